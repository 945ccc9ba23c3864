"""A worker in its own process: :class:`ProcessWorker`.

The PU's thread in the driver's process talks to a child process over a pipe: at start-up it
sends the task's inputs once (the child keeps its own copies), then one ``(offset, size)``
message per block; the child runs the C kernel and sends back the block's results, which the
PU thread stores into the task. The child's kernel time is the block's ``t_comp``; the rest of
the round trip (pickling, the pipe, storing the results) is its ``t_xfer``, so the balancer
sees the cost of moving data to and from a separate address space, as with a remote device.
"""

from __future__ import annotations
from .._errors import WpartRuntimeError, WpartTypeError

import multiprocessing as mp
import time
from collections.abc import Sequence
from typing import Any

from .._validate import as_int
from ._exec import Worker
from ._exec_tasks import Task

__all__ = ["ProcessWorker"]


def _child(conn: Any, spec: tuple, threads: int) -> None:
    """Entry point of the child process: serve blocks until told to stop (None)."""
    import numpy as np

    from .. import _core

    try:
        kind = spec[0]
        if kind == "gemm":
            A, B = spec[1], spec[2]
            C = np.empty((A.shape[0], B.shape[1]), order="F")
        else:
            P, Cn = spec[1], spec[2]
            labels = np.empty(P.shape[0], dtype=np.int32)
        conn.send(("ready", 0.0, None))
        while True:
            msg = conn.recv()
            if msg is None:
                return
            off, size = msg
            t0 = time.perf_counter()
            if kind == "gemm":
                _core.dynamic_kernel_gemm_cols(A, B, C, off, size, threads)
                t = time.perf_counter() - t0
                payload: Any = C[:, off : off + size]
            else:
                k, d = Cn.shape
                sums, counts = np.empty((k, d)), np.empty(k, dtype=np.int64)
                _core.dynamic_kernel_kmeans_assign(P, Cn, labels, sums, counts, off, size, threads)
                t = time.perf_counter() - t0
                payload = (labels[off : off + size], sums, counts)
            conn.send(("ok", t, payload))
    except BaseException as exc:  # reported to the PU thread, which stops the run
        try:
            conn.send(("error", 0.0, f"{type(exc).__name__}: {exc}"))
        except Exception:
            pass


class ProcessWorker(Worker):
    """A CPU PU in its own process (``multiprocessing``, spawn start method).

    Real isolation from the driver: its own interpreter, its own copy of the inputs, its
    own memory traffic. Runs :class:`GemmColumnsTask` and :class:`KMeansAssignTask`.

    Parameters
    ----------
    threads : int, default 1
        Threads of the kernel in the child.
    throttle, schedule
        Duty-cycle slowdown, as for every worker (applied by the PU thread).

    Notes
    -----
    Starting the child (a fresh interpreter importing NumPy and wpart) takes a fraction of a
    second; it happens before the PU's first block, whose ``t_xfer`` includes sending the
    inputs. A child that dies is reported as a :class:`WorkerError` naming the PU.
    """

    def __init__(self, *, threads: int = 1, throttle: float = 1.0,
                 schedule: Sequence[tuple[float, float, float]] | None = None) -> None:
        super().__init__(throttle=throttle, schedule=schedule)
        self.threads = as_int(threads, "threads", minimum=1, maximum=1024)

    def _check_task(self, task: Task | None) -> None:
        if not callable(getattr(task, "_proc_spec", None)):
            raise WpartTypeError(f"ProcessWorker runs GemmColumnsTask and KMeansAssignTask, got {type(task).__name__}")

    def _open(self, task: Task | None, pu: int) -> dict:
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_child, args=(child, task._proc_spec(), self.threads),  # type: ignore[union-attr]
                           name=f"wpart-proc{pu}", daemon=True)
        proc.start()
        child.close()
        st = {"proc": proc, "conn": parent}
        self._recv(st)  # the child is up and holds the inputs
        return st

    @staticmethod
    def _recv(st: dict) -> tuple:
        conn, proc = st["conn"], st["proc"]
        # poll, so that a child that dies (even before it could report) is noticed
        while not conn.poll(0.05):
            if not proc.is_alive() and not conn.poll(0.05):
                raise WpartRuntimeError(f"the worker process exited (exit code {proc.exitcode})")
        try:
            msg = conn.recv()
        except EOFError:
            raise WpartRuntimeError(f"the worker process exited (exit code {proc.exitcode})") from None
        if msg[0] == "error":
            raise WpartRuntimeError(f"in the worker process: {msg[2]}")
        return msg

    def _block(self, st: dict, task: Task | None, offset: int, size: int) -> tuple[float, float]:
        t0 = time.perf_counter()
        st["conn"].send((offset, size))
        _, t_comp, payload = self._recv(st)
        task._proc_store(offset, size, payload)  # type: ignore[union-attr]
        return max(time.perf_counter() - t0 - t_comp, 0.0), t_comp

    def _close(self, st: dict) -> None:
        proc = st["proc"]
        try:
            st["conn"].send(None)
        except Exception:
            pass
        proc.join(2.0)
        if proc.is_alive():
            proc.terminate()
            proc.join(1.0)
        st["conn"].close()

    def __repr__(self) -> str:
        return f"ProcessWorker(threads={self.threads}, throttle={self.throttle:g})"
