"""A worker in its own process: :class:`ProcessWorker`.

The PU's thread in the driver's process talks to a child process over a pipe: at start-up it
sends the task's inputs once, in chunks of 8 MB (the child keeps its own copies), then one
``(offset, size)`` message per block; the child runs the C kernel and sends back the block's
results, which the PU thread stores into the task. The child's kernel time is the block's
``t_comp``; the rest of the round trip (pickling, the pipe, storing the results) is its
``t_xfer``, so the balancer sees the cost of moving data to and from a separate address space,
as with a remote device.

Every wait (the child's start-up, each chunk of the inputs, each block) checks the run's stop
flag, so Ctrl-C and ``time_limit`` stop the PU within a chunk; the driver also kills the child
of a PU that does not stop by itself (a hung or stopped child).
"""

from __future__ import annotations
from .._errors import WpartRuntimeError, WpartTypeError

import multiprocessing as mp
import signal
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validate import as_int
from ._exec import Worker
from ._exec_tasks import Task

__all__ = ["ProcessWorker"]

#: bytes per message of the input transfer: small enough that a stop is seen within a few ms
_CHUNK = 8 << 20


class _Stopped(Exception):
    """The run was stopped (Ctrl-C, time limit, another PU's error) while this PU waited."""


def _flat(a: np.ndarray) -> tuple[memoryview, str]:
    """A byte view of `a` in its memory order ('C' or 'F'; a copy only if neither)."""
    order = "F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C"
    flat = np.ascontiguousarray(a.reshape(-1, order=order))
    return memoryview(flat).cast("B"), order


def _child(conn: Any, threads: int) -> None:
    """Entry point of the child process: receive the inputs, then serve blocks until told to
    stop (None)."""
    from .. import _core

    try:
        conn.send(("hello", 0.0, None))
        kind, metas = conn.recv()
        arrays = []
        for shape, dtype, order, nbytes in metas:
            a = np.empty(shape, dtype=dtype, order=order)
            buf = memoryview(a.reshape(-1, order=order)).cast("B")
            got = 0
            while got < nbytes:
                got += conn.recv_bytes_into(buf, got)
            arrays.append(a)
        if kind == "gemm":
            A, B = arrays
            C = np.empty((A.shape[0], B.shape[1]), order="F")
        else:
            P, Cn = arrays
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


def _exit_reason(proc: Any) -> str:
    """How the child ended: 'exited with code N' or 'killed by signal 9 (SIGKILL)'."""
    proc.join(1.0)  # the exit status is known only once the child is reaped
    code = proc.exitcode
    if code is None:
        return "closed its pipe but is still running"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "unknown signal"
        return f"was killed by signal {-code} ({name})"
    return f"exited with code {code}"


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
        stop = getattr(self, "_run_stop", None)  # set by the PU thread
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_child, args=(child, self.threads), name=f"wpart-proc{pu}",
                           daemon=True)
        st = {"proc": proc, "conn": parent, "stop": stop or threading.Event()}
        self._proc = proc
        try:
            proc.start()
            child.close()
            self._recv(st)  # the child is up (a fresh interpreter: a fraction of a second)
            kind, *arrays = task._proc_spec()  # type: ignore[union-attr]
            views = [_flat(np.asarray(a)) for a in arrays]
            try:
                parent.send((kind, [(a.shape, a.dtype.str, order, v.nbytes)
                                    for a, (v, order) in zip(arrays, views)]))
                for v, _ in views:
                    for i in range(0, v.nbytes, _CHUNK):
                        if st["stop"].is_set():
                            raise _Stopped("stopped while sending the inputs")
                        parent.send_bytes(v[i : i + _CHUNK])
            except OSError:  # the child died while its inputs were sent (e.g. killed)
                raise WpartRuntimeError(f"the worker process {_exit_reason(proc)}") from None
            self._recv(st)  # the child holds the inputs
        except BaseException:
            self._close(st)
            raise
        return st

    @staticmethod
    def _recv(st: dict) -> tuple:
        conn, proc, stop = st["conn"], st["proc"], st["stop"]
        # poll, so that a child that dies (even before it could report) and a stop are noticed
        while not conn.poll(0.05):
            if stop.is_set():
                raise _Stopped("stopped while waiting for the worker process")
            if not proc.is_alive() and not conn.poll(0.05):
                raise WpartRuntimeError(f"the worker process {_exit_reason(proc)}")
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            raise WpartRuntimeError(f"the worker process {_exit_reason(proc)}") from None
        if msg[0] == "error":
            raise WpartRuntimeError(f"in the worker process: {msg[2]}")
        return msg

    def _block(self, st: dict, task: Task | None, offset: int, size: int) -> tuple[float, float]:
        t0 = time.perf_counter()
        try:
            st["conn"].send((offset, size))
        except OSError:
            raise WpartRuntimeError(f"the worker process {_exit_reason(st['proc'])}") from None
        _, t_comp, payload = self._recv(st)
        task._proc_store(offset, size, payload)  # type: ignore[union-attr]
        return max(time.perf_counter() - t0 - t_comp, 0.0), t_comp

    def _close(self, st: dict) -> None:
        proc = st["proc"]
        if proc.pid is not None:
            if not st["stop"].is_set():  # a normal end: let the child finish and exit
                try:
                    st["conn"].send(None)
                except Exception:
                    pass
                proc.join(2.0)
            if proc.is_alive():
                proc.kill()
            proc.join(1.0)
        st["conn"].close()
        self._proc = None

    def _abort(self) -> None:
        """Called by the driver when this PU's thread did not stop: kill the child (a blocked
        send or receive then fails and the thread ends)."""
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.pid is not None and proc.is_alive():
            proc.kill()

    def __repr__(self) -> str:
        return f"ProcessWorker(threads={self.threads}, throttle={self.throttle:g})"
