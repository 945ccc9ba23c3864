"""Real execution of any wpart.dynamic balancer against real workers.

A *task* binds a real computation to the balancer's 1-D index space (the columns of a dense
product, the points of a k-means assignment step, or any Python callable); a *worker* runs
the blocks of one PU on its own thread; :func:`run` drives the balancer with the simulator's
event engine (``wpart_dynamic_drive``): the workers are its event source instead of simulated
devices, so the same balancer object, protocol driver and bookkeeping serve both.

Examples
--------
>>> import numpy as np
>>> from wpart.dynamic import Greedy, GemmColumnsTask, ThreadWorker, run
>>> rng = np.random.default_rng(0)
>>> task = GemmColumnsTask(rng.random((64, 64)), rng.random((64, 256)))
>>> res = run(Greedy(2, 256, chunk=32), task, [ThreadWorker(), ThreadWorker(throttle=2.0)])
>>> task.verify(), int(res.elements.sum()), res.n_blocks
(True, 256, 8)
"""

from __future__ import annotations
from .._errors import WpartNotImplementedError, WpartRuntimeError, WpartTypeError, WpartValueError

import os
import queue
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import _core
from .._progress import progress_hook
from .._validate import as_float, as_int, as_progress, as_time_limit, renamed
from ._exec_tasks import GemmColumnsTask, Task
from ._balancer import Balancer as _Balancer
from ._trace import TRACE_DTYPE, RunResult, cancelling, rows_to_series, series_dtype

__all__ = [
    "Worker",
    "ThreadWorker",
    "CallableWorker",
    "CupyWorker",
    "WorkerError",
    "gpu_available",
    "run",
]

_KINDS = {"train": 0, "regular": 1, "gap": 2, "other": 3}


class WorkerError(WpartRuntimeError):
    """A worker (or the evaluator thread) raised; the run was stopped.

    Attributes
    ----------
    pu : int
        The PU whose worker failed (-1 for the evaluator thread).
    block : int
        The block it was running (-1 if none: the failure came at start-up).
    """

    def __init__(self, message: str, pu: int, block: int) -> None:
        super().__init__(message)
        self.pu = pu
        self.block = block


# ============================================================================== workers ====


def _schedule_iv(schedule: Any) -> tuple[tuple[float, float, float], ...]:
    if schedule is None:
        return ()
    out = []
    try:
        rows = [tuple(r) for r in schedule]
    except TypeError:
        raise WpartTypeError("`schedule` must be a sequence of (t_start, t_end, factor) triples") from None
    for i, r in enumerate(rows):
        if len(r) != 3:
            raise WpartValueError(f"`schedule[{i}]` must be (t_start, t_end, factor), got {r!r}")
        t0 = as_float(r[0], f"schedule[{i}]", minimum=0.0)
        t1 = as_float(r[1], f"schedule[{i}]", allow_inf=True)
        f = as_float(r[2], f"schedule[{i}]", minimum=0.0, strict_minimum=True)
        if not t1 > t0:
            raise WpartValueError(f"`schedule[{i}]` needs 0 <= t_start < t_end and a finite factor > 0, got {r!r}")
        out.append((t0, t1, f))
    return tuple(out)


class Worker:
    """Base of every worker: runs the blocks of one PU, timed, with an optional slowdown.

    Heterogeneity is emulated by duty-cycling: after computing a block for
    ``t`` seconds the worker sleeps ``(s − 1)·t``, and reports ``s·t`` as the block's compute
    time, where ``s = max(1, throttle · Π factor)`` over the ``schedule`` windows
    ``(t_start, t_end, factor)`` (seconds from the start of the run) that contain the start
    of the block.

    Parameters
    ----------
    throttle : float, optional
        Constant slowdown factor (>= 1 emulates a slower PU).
    schedule : Sequence[tuple[float, float, float]] or None, optional
        Windows ``(t_start, t_end, factor)`` (seconds from the run's start) of extra slowdown.
    """

    def __init__(self, *, throttle: float = 1.0, schedule: Sequence[tuple[float, float, float]] | None = None) -> None:
        self.throttle = as_float(throttle, "throttle", minimum=1.0)
        self.schedule = _schedule_iv(schedule)

    def slowdown(self, t: float) -> float:
        """The duty-cycle factor ``s`` for a block starting at ``t`` (seconds from the start)."""
        s = self.throttle
        for t0, t1, f in self.schedule:
            if t0 <= t < t1:
                s *= f
        return max(1.0, s)

    # per-run hooks, called on the worker's own thread
    def _open(self, task: Task | None, pu: int) -> dict:
        return {}

    def _block(self, st: dict, task: Task | None, offset: int, size: int) -> tuple[float, float]:
        raise WpartNotImplementedError

    def _close(self, st: dict) -> None:
        pass

    def _abort(self) -> None:
        """Called from the driver's thread when this PU's thread did not stop in time."""

    def _check_task(self, task: Task | None) -> None:
        if task is None:
            raise WpartValueError(f"{self!r} needs a task (only CallableWorkers run without one)")

    def _desc(self) -> str:
        return repr(self)


class ThreadWorker(Worker):
    """A CPU PU: one Python thread running the task's C kernel with ``threads`` threads.

    Parameters
    ----------
    threads : int, default 1
        Threads of the kernel (1 to 1024).
    throttle : float, default 1.0
        Duty-cycle slowdown ``s >= 1`` (see :class:`Worker`).
    schedule : sequence of (t_start, t_end, factor), optional
        Run-time slowdown windows, relative to the start of the run.
    pin : sequence of int, optional
        CPUs to pin the worker's thread (and its kernel threads) to, with
        ``os.sched_setaffinity``; ignored with a warning where that is not available.
    """

    def __init__(
        self,
        *,
        threads: int = 1,
        throttle: float = 1.0,
        schedule: Sequence[tuple[float, float, float]] | None = None,
        pin: Sequence[int] | None = None,
    ) -> None:
        super().__init__(throttle=throttle, schedule=schedule)
        self.threads = as_int(threads, "threads", minimum=1, maximum=1024)
        if pin is not None:
            pin = tuple(as_int(c, "pin", minimum=0) for c in pin)
            if not pin:
                raise WpartValueError("`pin` must name at least one CPU")
        self.pin = pin

    def _open(self, task: Task | None, pu: int) -> dict:
        if self.pin is not None:
            if hasattr(os, "sched_setaffinity"):
                os.sched_setaffinity(0, self.pin)  # 0: the calling thread on Linux
            else:
                warnings.warn("CPU pinning is not available on this platform; `pin` ignored", stacklevel=2)
        return {}

    def _block(self, st: dict, task: Task | None, offset: int, size: int) -> tuple[float, float]:
        t0 = time.perf_counter()
        task.compute(offset, size, threads=self.threads)  # type: ignore[union-attr]
        return 0.0, time.perf_counter() - t0

    def __repr__(self) -> str:
        extra = "".join(
            f", {k}={v!r}" for k, v in (("schedule", self.schedule), ("pin", self.pin)) if v
        )
        return f"ThreadWorker(threads={self.threads}, throttle={self.throttle:g}{extra})"


class CallableWorker(Worker):
    """A PU whose blocks run a user callable ``fn(offset, size)`` instead of the task's kernel.

    The measured wall time of ``fn`` is the block's compute time (throttled like every
    worker). ``fn`` runs on the worker's own thread; it may release the GIL itself. With only
    CallableWorkers, :func:`run` needs no task (``task=None``).

    Parameters
    ----------
    fn : Callable[[int, int], object]
        The function to run.
    throttle : float, optional
        Constant slowdown factor (>= 1 emulates a slower PU).
    schedule : Sequence[tuple[float, float, float]] or None, optional
        Windows ``(t_start, t_end, factor)`` (seconds from the run's start) of extra slowdown.
    """

    def __init__(
        self,
        fn: Callable[[int, int], Any],
        *,
        throttle: float = 1.0,
        schedule: Sequence[tuple[float, float, float]] | None = None,
    ) -> None:
        if not callable(fn):
            raise WpartTypeError(f"`fn` must be callable, got {type(fn).__name__}")
        super().__init__(throttle=throttle, schedule=schedule)
        self.fn = fn

    def _check_task(self, task: Task | None) -> None:
        pass

    def _block(self, st: dict, task: Task | None, offset: int, size: int) -> tuple[float, float]:
        if task is not None:
            task._check_block(offset, size)
        t0 = time.perf_counter()
        self.fn(offset, size)
        t = time.perf_counter() - t0
        if task is not None:
            task._mark(offset, size)
        return 0.0, t

    def __repr__(self) -> str:
        name = getattr(self.fn, "__name__", type(self.fn).__name__)
        return f"CallableWorker({name}, throttle={self.throttle:g})"


_GPU: bool | None = None


def gpu_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device (:class:`CupyWorker` works)."""
    global _GPU
    if _GPU is None:
        try:
            import cupy as cp

            _GPU = cp.cuda.runtime.getDeviceCount() > 0
        except Exception:  # no CuPy, no driver, no device: all mean "no GPU"
            _GPU = False
    return _GPU


class CupyWorker(Worker):
    """A GPU PU through CuPy (optional; needs CuPy and a CUDA device).

    For a :class:`GemmColumnsTask` block: the host-to-device copy of the ``B`` slice is timed
    as ``t_xfer``, the product is timed with CUDA events as ``t_comp``, and the device-to-host
    copy of the result is added to ``t_xfer``. ``A`` is copied once, with the first block
    (its time is part of that block's ``t_xfer``).

    Raises
    ------
    RuntimeError
        At construction when :func:`gpu_available` is False.

    Parameters
    ----------
    device : int, optional
        CUDA device index.
    throttle : float, optional
        Constant slowdown factor (>= 1 emulates a slower PU).
    schedule : Sequence[tuple[float, float, float]] or None, optional
        Windows ``(t_start, t_end, factor)`` (seconds from the run's start) of extra slowdown.
    """

    def __init__(self, *, device: int = 0, throttle: float = 1.0,
                 schedule: Sequence[tuple[float, float, float]] | None = None) -> None:
        super().__init__(throttle=throttle, schedule=schedule)
        self.device = as_int(device, "device", minimum=0)
        if not gpu_available():
            raise WpartRuntimeError("CupyWorker needs CuPy and a CUDA GPU; wpart.dynamic.gpu_available() is False")

    def _check_task(self, task: Task | None) -> None:
        if not isinstance(task, GemmColumnsTask):
            raise WpartTypeError(f"CupyWorker runs GemmColumnsTask only, got {type(task).__name__}")

    def _open(self, task: Task | None, pu: int) -> dict:
        import cupy as cp

        dev = cp.cuda.Device(self.device)
        dev.use()
        return {"device": dev}

    def _block(self, st: dict, task: Task | None, offset: int, size: int) -> tuple[float, float]:
        return task._gpu_block(st, offset, size)  # type: ignore[union-attr]

    def __repr__(self) -> str:
        return f"CupyWorker(device={self.device}, throttle={self.throttle:g})"


# ============================================================================== driver =====

_STOP = object()


class _PU(threading.Thread):
    """The thread of one PU: runs its assigned blocks in FIFO order, posts completions."""

    def __init__(self, pu: int, worker: Worker, task: Task | None, events: queue.SimpleQueue,
                 stop: threading.Event, t0: float) -> None:
        super().__init__(name=f"wpart-pu{pu}", daemon=True)
        self.pu, self.worker, self.task = pu, worker, task
        self.events, self.stop, self.t0 = events, stop, t0
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()

    def run(self) -> None:
        st: dict | None = None
        a = None
        try:
            self.worker._run_stop = self.stop  # the run's stop flag, for workers that wait
            st = self.worker._open(self.task, self.pu)
            while not self.stop.is_set():
                a = self.inbox.get()
                if a is _STOP or self.stop.is_set():
                    break
                t_start = time.perf_counter() - self.t0
                t_xfer, t_comp = self.worker._block(st, self.task, a.offset, a.size)
                s = self.worker.slowdown(t_start)
                if s > 1.0:
                    pause = (s - 1.0) * t_comp
                    if self.stop.wait(pause):
                        break
                    t_comp *= s
                t_end = time.perf_counter() - self.t0
                self.events.put(("done", self.pu, a, t_start, t_xfer, t_comp, t_end))
                a = None
        except BaseException as exc:  # reported to the driver, which stops the run
            self.events.put(("error", self.pu, a, exc))
        finally:
            if st is not None:
                try:
                    self.worker._close(st)
                except Exception:  # a failing close must not hide the run's outcome
                    pass


class _Evaluator(threading.Thread):
    """The helper thread that runs ``balancer.eval_run(token)`` off the driver's thread."""

    def __init__(self, bal: Any, events: queue.SimpleQueue, stop: threading.Event, eval_cost: float | None) -> None:
        super().__init__(name="wpart-evaluator", daemon=True)
        self.bal, self.events, self.stop, self.eval_cost = bal, events, stop, eval_cost
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()

    def run(self) -> None:
        while True:
            item = self.inbox.get()
            if item is _STOP or self.stop.is_set():
                return
            token, t_start = item
            try:
                t0 = time.perf_counter()
                self.bal.eval_run(token)
                spent = time.perf_counter() - t0
                if self.eval_cost is not None and spent < self.eval_cost:
                    if self.stop.wait(self.eval_cost - spent):
                        return
                self.events.put(("eval", token, t_start, spent))
            except BaseException as exc:
                self.events.put(("eval_error", token, exc))
                return


def protocol_size(balancer: Any, new: str, old: str, default: Any) -> Any:
    """``balancer.m`` / ``balancer.n`` of a protocol object (an older one may name them
    ``n_pu`` / ``total``)."""
    v = getattr(balancer, new, None)
    if v is None and not isinstance(balancer, _Balancer):
        v = getattr(balancer, old, None)
    return default if v is None else v


def _run_iv(balancer: Any, task: Any, workers: Any, eval_cost: Any, time_limit: Any) -> tuple:
    for m in ("start", "on_complete", "eval_run", "eval_done"):
        if not callable(getattr(balancer, m, None)):
            raise WpartTypeError(f"`balancer` must implement the wpart.dynamic protocol (no `{m}` method)")
    if isinstance(workers, Worker) or not isinstance(workers, Sequence):
        raise WpartTypeError("`workers` must be a sequence of workers, one per PU")
    workers = list(workers)
    for p, w in enumerate(workers):
        if not isinstance(w, Worker):
            raise WpartTypeError(f"`workers[{p}]` must be a wpart.dynamic worker, got {type(w).__name__}")
    if len({id(w) for w in workers}) != len(workers):
        raise WpartValueError("`workers` must be distinct objects (one per PU)")
    m = protocol_size(balancer, "m", "n_pu", len(workers))
    if len(workers) != m:
        raise WpartValueError(f"`workers` must have one worker per PU: the balancer has m = {m} PUs, got {len(workers)} workers")
    if task is not None and not isinstance(task, Task):
        raise WpartTypeError(f"`task` must be a wpart.dynamic task or None, got {type(task).__name__}")
    n = protocol_size(balancer, "n", "total", None)
    if task is not None and n is not None and task.n != n:
        raise WpartValueError(f"`task` has {task.n} elements but the balancer splits n = {n}")
    for w in workers:
        w._check_task(task)
    if eval_cost is not None:
        eval_cost = as_float(eval_cost, "eval_cost", minimum=0.0)
    return workers, m, n, eval_cost, as_time_limit(time_limit)


@renamed(timeout="time_limit")
def run(
    balancer: Any,
    task: Task | None,
    workers: Sequence[Worker],
    *,
    eval_cost: float | None = None,
    time_limit: float | None = None,
    progress: bool | Callable[[int, int], Any] = False,
) -> RunResult:
    """Run a balancer against real workers until every block is done.

    The run goes through the event engine of :func:`wpart.dynamic.simulate` (one engine: the
    same protocol driver, trace, evaluation windows and exactly-once check), with real workers
    as its event source instead of simulated devices. The clock is monotonic
    (``time.perf_counter``, seconds from the start). Worker threads post completions to a
    queue; each is passed to ``balancer.on_complete(pu, block, t_xfer, t_comp, now)``. An
    ``"eval"`` action goes to a helper thread that calls ``balancer.eval_run(token)`` (the C
    balancers release the GIL there) and then posts an event, upon which the engine calls
    ``balancer.eval_done``; meanwhile the other workers keep receiving blocks. Blocks assigned
    to a busy PU wait in its FIFO queue. A balancer written in Python (a
    :class:`~wpart.dynamic.PyBalancer`, or any object with the protocol) is driven through
    the same engine; its blocks must take the next elements under the next block id.

    Parameters
    ----------
    balancer : Balancer
        Any object with the protocol of :class:`wpart.dynamic.Balancer`, not started yet.
    task : Task or None
        The computation; None only when every worker is a :class:`CallableWorker`.
    workers : sequence of Worker
        One distinct worker per PU, in PU order.
    eval_cost : float, optional
        Minimum duration of an evaluation in seconds (the paper's ``c_eval``): an ``eval_run``
        that returns sooner is padded to it. None: its real duration.
    time_limit : float, optional
        Seconds (None: no limit). When the run has not finished by then, the workers are
        stopped and the result comes back with ``status == "time_limit"``, describing the
        blocks finished so far (``success`` is False). ``timeout`` is a deprecated alias.
    progress : bool or callable, optional
        True shows a tqdm bar (elements completed); a callable gets ``(completed, n)``
        after each block and stops the run with :class:`wpart.CancelledError` by returning
        False.

    Returns
    -------
    RunResult

    Raises
    ------
    WorkerError
        A worker (naming its PU and block) or the evaluation raised; the original exception is
        the ``__cause__``.
    wpart.WpartRuntimeError
        The balancer stalled (not done, with no block and no evaluation in flight).
    wpart.CancelledError
        The progress callback returned False (the workers are stopped first).
    KeyboardInterrupt
        Re-raised after the workers are stopped.

    Notes
    -----
    Real runs are not reproducible to the bit: tests on them use tolerances. ``t_comp``
    covers the kernel call (plus the throttle's pause); queue hand-off latency shows as idle
    time. Worker threads are stopped on every exit path. After Ctrl-C, an error or the time
    limit the driver waits at most 0.25 s for them: a :class:`ProcessWorker`'s child still
    busy is then killed, and a worker still inside a user callable (or a kernel) is abandoned
    -- its thread is a daemon thread that ends when the call returns, and its block is
    discarded. Ctrl-C therefore returns within about 0.3 s even with a hung worker.
    """
    workers, m, n, eval_cost, time_limit = _run_iv(balancer, task, workers, eval_cost, time_limit)
    progress = cancelling(as_progress(progress))
    if n is None:
        n = task.n if task is not None else 0
    with progress_hook(progress, total=n, desc=f"run {getattr(balancer, 'name', '')}") as hook:
        return _drive(balancer, task, workers, m, n, eval_cost, time_limit, hook)


class _Blk(NamedTuple):
    """A block handed to a PU thread."""

    block_id: int
    offset: int
    size: int


class _WorkerSource:
    """The event source of a real run for the event engine (``wpart_dynamic_drive``): PU
    threads run the submitted blocks and the evaluator thread the evaluations; both post to
    one queue, which :meth:`wait` reads. Clock: ``time.perf_counter()`` from the start."""

    def __init__(self, pus: list, evaluator: Any, events: queue.SimpleQueue, t0: float,
                 workers: list[Worker]) -> None:
        self.pus, self.evaluator, self.events, self.t0, self.workers = pus, evaluator, events, t0, workers
        self.completed = 0

    def now(self) -> float:
        return time.perf_counter() - self.t0

    def submit(self, pu: int, block_id: int, offset: int, size: int) -> None:
        self.pus[pu].inbox.put(_Blk(block_id, offset, size))

    def eval(self, token: int, trigger_pu: int) -> None:
        if self.evaluator.ident is None:  # started on the first evaluation
            self.evaluator.start()
        self.evaluator.inbox.put((token, self.now()))

    def wait(self, until: float) -> tuple | None:
        try:
            ev = self.events.get(timeout=max(0.0, until - self.now()))
        except queue.Empty:
            return None
        if ev[0] == "done":
            _, pu, a, t_start, t_xfer, t_comp, t_end = ev
            self.completed += a.size
            return (0, pu, a.block_id, t_start, t_xfer, t_comp, t_end)
        if ev[0] == "eval":
            _, token, t_start, spent = ev
            return (1, -1, token, t_start, 0.0, spent, self.now())
        if ev[0] == "error":
            _, pu, a, exc = ev
            if isinstance(exc, KeyboardInterrupt):
                raise exc
            where = f"block {a.block_id} [{a.offset}, {a.offset + a.size})" if a is not None else "start-up"
            raise WorkerError(
                f"PU {pu} ({self.workers[pu]._desc()}) failed on {where}: {type(exc).__name__}: {exc}",
                pu, a.block_id if a is not None else -1,
            ) from exc
        _, token, exc = ev  # eval_error
        raise WorkerError(f"evaluation {token} failed: {type(exc).__name__}: {exc}", -1, -1) from exc


def _protocol(balancer: Any, n_pu: int, total: int) -> Any:
    """The C protocol object the engine drives: a C balancer's own, or one over a balancer
    written in Python (any object with the protocol's methods)."""
    if isinstance(balancer, _Balancer) and getattr(balancer, "_c", None) is not None:
        return balancer._c
    return _core.dynamic_py_balancer(balancer, n_pu, total, int(getattr(balancer, "max_actions", 0) or 0))


def _drive(balancer: Any, task: Task | None, workers: list[Worker], n_pu: int, total: int,
           eval_cost: float | None, time_limit: float | None, progress: Any) -> RunResult:
    """One run through the event engine shared with the simulator (wpart_dynamic_drive): the
    engine owns the protocol (actions, evaluations, trace, coverage check); this source
    supplies the events of real workers."""
    wall0 = time.perf_counter()
    events: queue.SimpleQueue = queue.SimpleQueue()
    stop = threading.Event()
    t0 = time.perf_counter()
    c = _protocol(balancer, n_pu, total)
    pus = [_PU(p, w, task, events, stop, t0) for p, w in enumerate(workers)]
    evaluator = _Evaluator(c, events, stop, eval_cost)
    src = _WorkerSource(pus, evaluator, events, t0, workers)
    ended = interrupted = False
    try:
        for th in pus:
            th.start()
        try:
            raw = _core.dynamic_drive(c, src, 0.0, progress, 0.0 if time_limit is None else float(time_limit))
        except WpartRuntimeError as exc:
            if "stalled" in str(exc):
                raise WpartRuntimeError(f"the balancer stalled: {exc}") from None
            raise
        ended = not raw["stopped"]
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        stop.set()
        for th in pus:
            th.inbox.put(_STOP)
        evaluator.inbox.put(_STOP)
        _stop_threads(pus, evaluator, 5.0 if ended else _ABANDON_INTERRUPT if interrupted else _ABANDON)
    res = _result(balancer, n_pu, total, raw, time.perf_counter() - wall0, workers, src.completed, time_limit)
    if not len(res.series) and c is not getattr(balancer, "_c", None):
        # a balancer written in Python: the block sizes the protocol recorded for it
        object.__setattr__(res, "series", _series_rec(rows_to_series(c.series(), n_pu), n_pu))
    return res


#: seconds the driver waits for the PU threads after Ctrl-C, an error or the time limit before
#: it abandons them (they are daemon threads; see :func:`run`)
_ABANDON = 0.25
#: the same after Ctrl-C: a block that is one long C kernel call does not hold the caller up
_ABANDON_INTERRUPT = 0.05


def _stop_threads(pus: list, evaluator: threading.Thread, wait: float) -> None:
    """Join the PU and evaluator threads (the stop flag is set) for at most `wait` seconds;
    a PU still running then has its worker aborted (a ProcessWorker's child is killed) and is
    joined briefly once more. A thread still alive after that (a user callable that never
    returns) is a daemon thread: it is abandoned, ends when the callable returns, and its
    result is discarded."""
    deadline = time.perf_counter() + wait
    live = [th for th in [*pus, evaluator] if th.ident is not None]
    for th in live:
        th.join(max(0.0, deadline - time.perf_counter()))
    late = [th for th in pus if th.is_alive()]
    for th in late:
        try:
            th.worker._abort()
        except Exception:  # aborting is best effort
            pass
    deadline = time.perf_counter() + min(wait, 0.1)
    for th in late:
        th.join(max(0.0, deadline - time.perf_counter()))


def _series_rec(series: Any, m: int) -> Any:
    """The balancer's series as a record array (``series.t``, ``series.X``); empty, with an
    ``X`` of m columns, when it has none."""
    if series is None or not getattr(series, "dtype", None) or series.dtype.names is None:
        return np.zeros(0, dtype=series_dtype(m)).view(np.recarray)
    return np.asarray(series).view(np.recarray)


def _result(bal: Any, n_pu: int, total: int, raw: dict, wall: float, workers: list[Worker],
            completed: int = 0, time_limit: float | None = None) -> RunResult:
    craw = raw["trace"].view(TRACE_DTYPE)  # the core's records (TRACE_DTYPE is their layout)
    done = np.isfinite(craw["t_end"])
    trace = craw[done]  # blocks finished (all but after a stop)
    stopped = ""
    if raw["stopped"]:
        stopped = (f"time limit of {time_limit:g} s reached: {completed} of {total} elements completed, "
                   f"{int(np.sum(~done))} blocks in flight")
    ids = trace["block"]
    makespan = float(trace["t_end"].max()) if len(trace) else 0.0
    busy = np.bincount(trace["pu"], weights=trace["t_xfer"] + trace["t_comp"], minlength=n_pu)[:n_pu]
    elements = np.bincount(trace["pu"], weights=trace["size"], minlength=n_pu)[:n_pu].astype(np.int64)
    idle = np.maximum(makespan - busy, 0.0)
    series = getattr(bal, "series", None)
    step_shares = getattr(bal, "shares", None)
    ew = raw["eval_windows"]
    win, win_pu = ew[:, :2].copy(), ew[:, 2].astype(np.int64)
    eval_time = float(raw["eval_time"])
    return RunResult(
        status="time_limit" if stopped else "feasible",
        message=stopped or f"all {total} elements completed in {len(ids)} blocks",
        makespan=makespan,
        trace=trace,
        busy=busy,
        idle=idle,
        idle_frac=idle / makespan if makespan > 0 else np.zeros(n_pu),
        elements=elements,
        shares=elements / total if total else np.zeros(n_pu),
        step_shares=None if step_shares is None else np.asarray(step_shares, dtype=float),
        series=_series_rec(series, n_pu),
        n_evals=int(raw["n_evals"]),
        n_barriers=int(raw["n_barriers"]),
        eval_pu=win_pu,
        eval_windows=win,
        eval_time=eval_time,
        n=int(total),
        m=n_pu,
        balancer=str(getattr(bal, "name", type(bal).__name__)),
        workers=[w._desc() for w in workers],
        stats={"wall": wall, "completed": int(completed), "n_events": int(raw["n_events"])},
    )
