"""Real runs driven by the decision loop: a real CPU with a paced accelerator, and several runs
of any runtime under :class:`DecisionLoop` [Soldado 2016, Fig. 4 and Sec. 4.3].

:class:`PacedRuntime` is the "real CPU + paced accelerator" mode: the CPU partition is
computed for real by a pinned worker thread, timed by the wall clock; the accelerator (the GPU
stand-in) spends the time its throughput model gives for its partition (``latency + size /
rate``, slept, so its side is deterministic and untouched by CPU load, as a GPU is in the
paper) and its partition is computed after the timed window, so results stay exact. Each run
goes through :func:`wpart.dynamic.run` (the one event engine, with the SPLIT of the run as a
static two-block balancer), so real CPU load -- busy processes on the CPU worker's core,
:class:`LoadInjector` -- slows the CPU partition as it would slow an OpenCL CPU device.

:func:`adaptive_runs` repeats a computation on any such runtime (this one or the OpenCL
:class:`~wpart.multikernel.opencl.Runtime`) under :class:`DecisionLoop` -- the
configuration from the knowledge base or derived, the monitor, one adaptive binary search step
per firing run -- with an optional load schedule, and records every run.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .._errors import WpartTypeError, WpartValueError
from .._result import Result, new_axes
from .._progress import progress_hook
from .._validate import as_float, as_int, as_time_limit, choice
from ..dynamic import PyBalancer, Task, ThreadWorker, Worker, run as _run
from ._decide import split
from ._flow import DecisionLoop, plot_share_runs
from ._kb import KnowledgeBase
from ._load import LoadInjector
from .._docs import fill_doc

__all__ = ["PacedWorker", "PacedRuntime", "PacedRun", "adaptive_runs", "AdaptiveRuns"]


class PacedWorker(Worker):
    """An accelerator stand-in for :func:`wpart.dynamic.run`: a block of ``size`` elements
    takes ``latency + size / rate`` seconds of (slept) device time.

    The block is not computed inside that time: it is recorded in :attr:`deferred`, and the
    caller computes it afterwards (:meth:`flush`), so that the device time is exactly the
    model's whatever the CPU load.

    Parameters
    ----------
    rate : float
        Elements per second (> 0).
    latency : float, optional
        Seconds per block (transfers and launch), >= 0.
    """

    def __init__(self, *, rate: float, latency: float = 0.0) -> None:
        super().__init__()
        self.rate = as_float(rate, "rate", minimum=0.0, strict_minimum=True)
        self.latency = as_float(latency, "latency", minimum=0.0)
        self.deferred: list[tuple[int, int]] = []

    def model_time(self, size: int) -> float:
        """Device seconds for a block of `size` elements."""
        return self.latency + size / self.rate if size > 0 else 0.0

    def _block(self, st: dict, task: Task | None, offset: int, size: int) -> tuple[float, float]:
        task._check_block(offset, size)  # type: ignore[union-attr]
        t = self.model_time(size)
        end = time.perf_counter() + t
        stop = getattr(self, "_run_stop", None)
        while (left := end - time.perf_counter()) > 0:
            if stop is not None and stop.wait(left):
                break
            if stop is None:
                time.sleep(left)
        self.deferred.append((offset, size))
        return 0.0, t

    def flush(self, task: Task, *, threads: int = 1) -> None:
        """Computes the deferred blocks on the calling thread and forgets them, in pieces of
        about 20 ms (a block's elements are independent), so that Ctrl-C lands between two."""
        for off, size in self.deferred:
            end, step = off + size, 16
            while off < end:
                k = min(step, end - off)
                t = time.perf_counter()
                task.compute(off, k, threads=threads)
                off += k
                dt = time.perf_counter() - t
                step = max(1, min(4 * k, int(k * 0.02 / dt))) if dt > 0 else 4 * k
        self.deferred = []

    def __repr__(self) -> str:
        return f"PacedWorker(rate={self.rate:g}, latency={self.latency:g})"


class _Split(PyBalancer):
    """The SPLIT of one run as a balancer: one block per PU, sizes given."""

    def __init__(self, sizes: np.ndarray) -> None:
        super().__init__(len(sizes), int(sizes.sum()))
        self._sizes = [int(k) for k in sizes]

    def start(self, now: float) -> list:
        return [a for p, k in enumerate(self._sizes) if k > 0 and (a := self.assign(p, k))]

    def on_complete(self, pu: int, block_id: int, t_xfer: float, t_comp: float, now: float) -> list:
        self.completed(block_id)
        return []


@dataclass(frozen=True, eq=False, repr=False)
class PacedRun(Result):
    """One run of :class:`PacedRuntime`.

    Attributes
    ----------
    status, message : str
    benchmark : str
        The task's name.
    sizes, offsets : ndarray of int64
        Elements of the accelerator (first) and the CPU partition.
    device_times : dict
        Seconds: ``"acc"`` (the model's) and ``"cpu"`` (measured).
    wall : float
        The run's makespan, ``max`` of the device times (the accelerator's partition is
        computed after the timed window).
    s_eff : float
        Share of the elements given to the accelerator.
    stats : dict
        ``elapsed`` (real seconds, deferred computing included), ``cpu_core``, ``run`` (the
        engine's :class:`~wpart.dynamic.RunResult`).
    """

    benchmark: str
    sizes: np.ndarray
    offsets: np.ndarray
    device_times: dict
    wall: float
    s_eff: float
    _check: Any = field(repr=False, compare=False, default=None)

    @property
    def balance_ratio(self) -> float:
        t = list(self.device_times.values())
        return min(t) / max(t) if t and max(t) > 0 else 1.0

    def check(self) -> bool:
        """Whether every element was computed once and the task's result is right (its
        ``verify()``; True for a task without one)."""
        return bool(self._check()) if self._check is not None else True

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Bar chart of the two device times, labelled with their partitions; returns the Axes."""
        ax = new_axes(ax)
        names = list(self.device_times)
        ax.bar(range(len(names)), [self.device_times[k] * 1e3 for k in names], **kwargs)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels([f"{k}\n{n}" for k, n in zip(names, self.sizes)], fontsize=7)
        ax.set_ylabel("ms")
        ax.set_title(f"{self.benchmark}: balance {self.balance_ratio:.2f}")
        return ax

    def _repr_lines(self) -> list[str]:
        return [f"PacedRun({self.benchmark!r}, status={self.status!r})",
                f"  partitions {self.sizes.tolist()} (accelerator, CPU)",
                f"  makespan {self.wall * 1e3:.2f} ms, balance ratio {self.balance_ratio:.2f}, "
                f"accelerator share {self.s_eff:.3f}"]


def _default_core() -> int:
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
    return cores[-1]


class PacedRuntime:
    """Real CPU + paced accelerator: the mode for showing adaptation to real CPU load on a
    machine without a GPU (the paper's setting, where CPU load does not slow the GPU).

    Parameters
    ----------
    acc_rate : float, optional
        Accelerator throughput in elements per second; None: set by :meth:`calibrate`.
    acc_latency : float, optional
        Accelerator seconds per partition.
    cpu_core : int, optional
        CPU the CPU worker is pinned to (default: the last CPU this process may use); put the
        busy processes of a :class:`LoadInjector` there.
    threads : int, optional
        Threads of the CPU worker's kernel.

    Examples
    --------
    >>> import numpy as np
    >>> from wpart.dynamic import GemmColumnsTask
    >>> from wpart.multikernel import PacedRuntime
    >>> rng = np.random.default_rng(0)
    >>> task = GemmColumnsTask(rng.random((64, 64)), rng.random((64, 512)))
    >>> rt = PacedRuntime(acc_rate=1e5)
    >>> r = rt.run(task, s=0.25)
    >>> r.sizes.tolist(), r.device_times["acc"], r.check()
    ([128, 384], 0.00128, True)
    """

    def __init__(self, *, acc_rate: float | None = None, acc_latency: float = 0.0,
                 cpu_core: int | None = None, threads: int = 1) -> None:
        self.acc_rate = None if acc_rate is None else as_float(
            acc_rate, "acc_rate", minimum=0.0, strict_minimum=True)
        self.acc_latency = as_float(acc_latency, "acc_latency", minimum=0.0)
        if cpu_core is None:
            cpu_core = _default_core()
        self.cpu_core = as_int(cpu_core, "cpu_core", minimum=0)
        if hasattr(os, "sched_getaffinity") and self.cpu_core not in os.sched_getaffinity(0):
            raise WpartValueError(f"`cpu_core` {self.cpu_core} is not usable here "
                                  f"({sorted(os.sched_getaffinity(0))})")
        self.threads = as_int(threads, "threads", minimum=1, maximum=1024)
        self.speed = {"acc": 1.0, "cpu": 1.0}

    def set_speed(self, device: str, speed: float) -> None:
        """A deterministic virtual load: `device` (``"acc"`` or ``"cpu"``) runs at `speed`
        in (0, 1] of its normal rate (the CPU by duty-cycle throttling)."""
        device = choice(device, "device", ("acc", "cpu"))
        self.speed[device] = as_float(speed, "speed", minimum=0.0, maximum=1.0,
                                      strict_minimum=True)

    def calibrate(self, task: Task, *, ratio: float = 1.0, runs: int = 5) -> float:
        """Sets the accelerator's rate to `ratio` times the CPU's, measured on `task`, so
        that the balanced share on the machine as it is stays near ``ratio / (1 + ratio)``.

        The CPU's time is the median of `runs` CPU-only runs after one unmeasured warm-up
        run (caches, page faults), so that one run slowed by a busy moment of the machine
        does not set the rate.

        Parameters
        ----------
        task : wpart.dynamic.Task
        ratio : float, optional
            Accelerator rate over CPU rate (> 0).
        runs : int, optional
            Measured CPU-only runs (>= 1).

        Returns
        -------
        float
            The rate, elements per second.

        Raises
        ------
        wpart.WpartError
            If an argument is invalid.
        """
        ratio = as_float(ratio, "ratio", minimum=0.0, strict_minimum=True)
        runs = as_int(runs, "runs", minimum=1)
        if self.acc_rate is None:
            self.acc_rate = 1.0
        self.run(task, s=0.0)                                   # warm-up, not measured
        t = float(np.median([self.run(task, s=0.0).device_times["cpu"] for _ in range(runs)]))
        self.acc_rate = ratio * task.n / max(t, 1e-9)
        return self.acc_rate

    def run(self, task: Task, *, s: float = 0.5) -> PacedRun:
        """Runs `task` once: the accelerator takes the first ``s`` of the elements (SPLIT),
        the CPU worker the rest."""
        if not isinstance(task, Task):
            raise WpartTypeError(f"`task` must be a wpart.dynamic task, got {type(task).__name__}")
        s = as_float(s, "s", minimum=0.0, maximum=1.0)
        if task.n < 1:
            raise WpartValueError("`task` has no elements to split")
        if self.acc_rate is None:
            raise WpartValueError("the accelerator has no rate: pass `acc_rate` or call "
                                  "calibrate() first")
        sizes, offs = split(task.n, np.array([s, 1.0 - s]), np.ones(2, dtype=np.int64))
        acc = PacedWorker(rate=self.acc_rate * self.speed["acc"], latency=self.acc_latency)
        cpu = ThreadWorker(threads=self.threads, pin=[self.cpu_core],
                           throttle=1.0 / self.speed["cpu"])
        task.reset()
        t0 = time.perf_counter()
        res = _run(_Split(sizes), task, [acc, cpu])
        acc.flush(task, threads=self.threads)
        elapsed = time.perf_counter() - t0
        t_dev = {"acc": acc.model_time(int(sizes[0])), "cpu": float(res.busy[1])}
        verify = getattr(task, "verify", None)
        return PacedRun("feasible", "", getattr(task, "name", type(task).__name__), sizes, offs,
                        t_dev, max(t_dev.values()), float(sizes[0]) / task.n if task.n else 0.0,
                        stats={"elapsed": elapsed, "cpu_core": self.cpu_core, "run": res},
                        _check=(lambda: bool(np.all(task.coverage == 1)) and
                                (verify() if callable(verify) else True)))

    def __repr__(self) -> str:
        return (f"PacedRuntime(acc_rate={self.acc_rate!r}, acc_latency={self.acc_latency:g}, "
                f"cpu_core={self.cpu_core})")


# ============================================================================ many runs =====

@dataclass(frozen=True, eq=False, repr=False)
class AdaptiveRuns(Result):
    """Record of :func:`adaptive_runs`, one entry per run.

    Attributes
    ----------
    status, message : str
    benchmark : str
    share : ndarray
        GPU (accelerator) share used in each run.
    makespan, t_gpu, t_cpu : ndarray
        Seconds per run: the run's time, the slowest GPU's and the CPU's.
    balance_ratio : ndarray
        min/max of the device times (1 for the unjudged warm-up run).
    fired, lb_op, loaded : ndarray of bool
        The detector fired; an adaptive binary search step was taken; the load was on.
    correct : bool
        Every run's result equalled the reference.
    stats : dict
        ``runs``, ``lb_ops``, ``load`` (start, stop) when a load schedule was given.
    """

    benchmark: str
    share: np.ndarray
    makespan: np.ndarray
    t_gpu: np.ndarray
    t_cpu: np.ndarray
    balance_ratio: np.ndarray
    fired: np.ndarray
    lb_op: np.ndarray
    loaded: np.ndarray
    correct: bool

    @property
    def cpu_share(self) -> np.ndarray:
        """1 - share: the CPU's share per run."""
        return 1.0 - self.share

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """The CPU share per run (left axis) and the makespan (right axis, ms), the loaded
        runs shaded; returns the left Axes."""
        ax, _ = plot_share_runs(ax, 100 * self.cpu_share, 1e3 * self.makespan,
                                share_label="CPU share (%)", time_label="makespan (ms)",
                                share_fmt="o-", time_fmt="r.-", time_color="r", ms=3, **kwargs)
        if self.loaded.any():
            on = np.flatnonzero(self.loaded)
            ax.axvspan(on[0] - 0.5, on[-1] + 0.5, color="0.85", label="CPU load on")
        ax.set_title(f"{self.benchmark}: {int(self.lb_op.sum())} balancing steps")
        ax.legend(fontsize=7, loc="lower left")
        return ax

    def _repr_lines(self) -> list[str]:
        return [f"AdaptiveRuns({self.benchmark!r}, {len(self.share)} runs, "
                f"correct={self.correct})",
                f"  CPU share first {self.cpu_share[0]:.3f}, last {self.cpu_share[-1]:.3f}; "
                f"{int(self.lb_op.sum())} balancing steps"]


def _identity(comp: Any) -> tuple[str, tuple]:
    name = getattr(comp, "name", None) or type(comp).__name__
    units = getattr(comp, "units", None)
    if units is None:
        units = getattr(comp, "n", None)
    if units is None:
        raise WpartTypeError("`comp` must have `units` (an OpenCL computation) or `n` (a task)")
    return str(name), (int(units),)


@fill_doc
def adaptive_runs(runtime: Any, comp: Any, *, runs: int, kb: KnowledgeBase | None = None,
                  loop: DecisionLoop | None = None, load: LoadInjector | None = None,
                  speed: Callable[[int], float] | None = None,
                  check: bool = True,
                  time_limit: float | None = None, progress: Any = False) -> AdaptiveRuns:
    """Runs `comp` `runs` times on `runtime`, each run's GPU share decided by a
    :class:`DecisionLoop` (Fig. 4 of [Soldado 2016]): the base's entry or a derived one, then
    after every run the "persist when best so far" rule, the imbalance detector and one
    adaptive binary search step when it fires.

    Parameters
    ----------
    runtime
        :class:`PacedRuntime` (with a :class:`~wpart.dynamic.Task`) or the OpenCL
        ``Runtime`` (with one of its computations): anything whose ``run(comp, s=)`` returns
        ``device_times`` (``"cpu"`` and the GPUs), ``wall`` and ``check()``.
    comp
        The computation; its pair in the base is ``(name, (units,))``.
    runs : int
    kb : KnowledgeBase, optional
        Needed when `loop` is not given (a loop with default constants over it is made).
    loop : DecisionLoop, optional
    load : LoadInjector, optional
        With ``start_run`` and ``stop_run``: its busy processes run during those runs (and
        are stopped at the end whatever happens).
    speed : callable, optional
        ``speed(run) -> float`` in (0, 1]: a deterministic virtual CPU load through
        ``runtime.set_speed("cpu", ...)`` (a :class:`PacedRuntime`).
    check : bool, optional
        Check every run's result against the reference.
    time_limit : float, optional
        Seconds for the whole call (None: none), checked between runs: once spent, no run
        starts and the result has status ``"time_limit"`` with the runs made (at least one).
    progress : bool or callable, optional
        True for a progress bar over the runs, or a callable ``progress(done, total)``
        (returning False cancels with :class:`wpart.CancelledError`).

    Returns
    -------
    AdaptiveRuns
        The runs' shares, times and decisions.

    {raises}
    """
    runs = as_int(runs, "runs", minimum=1)
    if loop is None:
        if kb is None:
            raise WpartValueError("give `kb` or `loop`")
        loop = DecisionLoop(kb)
    elif not isinstance(loop, DecisionLoop):
        raise WpartTypeError(f"`loop` must be a DecisionLoop, got {type(loop).__name__}")
    if load is not None and not isinstance(load, LoadInjector):
        raise WpartTypeError(f"`load` must be a LoadInjector, got {type(load).__name__}")
    if speed is not None and not callable(speed):
        raise WpartTypeError("`speed` must be callable: speed(run) -> float")
    if speed is not None and not callable(getattr(runtime, "set_speed", None)):
        raise WpartTypeError(f"`speed` needs a runtime with set_speed() (a PacedRuntime), "
                             f"got {type(runtime).__name__}")
    if not callable(getattr(runtime, "run", None)):
        raise WpartTypeError("`runtime` must have a run(comp, s=) method")
    sct_id, wl = _identity(comp)
    rec: dict[str, list] = {k: [] for k in ("share", "T", "tg", "tc", "dev", "fired", "lb",
                                            "loaded")}
    correct = True
    tl = as_time_limit(time_limit)
    t_start = time.perf_counter()
    stopped = False
    bar = progress_hook(progress, total=runs, desc="adaptive_runs", unit="run")
    hook = bar.__enter__()
    try:
        for k in range(runs):
            if k and tl is not None and time.perf_counter() - t_start > tl:
                stopped = True
                break
            on = load.at_run(k) if load is not None else False
            if speed is not None:
                runtime.set_speed("cpu", speed(k))
                on = on or speed(k) < 1.0
            cfg = loop.begin(sct_id, wl)
            r = runtime.run(comp, s=cfg.s)
            if check:
                correct = correct and bool(r.check())
            dt = r.device_times
            tc = float(dt.get("cpu", 0.0))
            gpus = [float(v) for d, v in dt.items() if d != "cpu"]
            tg = max(gpus) if gpus else 0.0
            d = loop.end(T=r.wall, device_times=[*gpus, tc] if "cpu" in dt else gpus,
                         t_gpu=tg, t_cpu=tc)
            for key, v in (("share", cfg.s), ("T", r.wall), ("tg", tg), ("tc", tc),
                           ("dev", d.balance_ratio), ("fired", d.fired), ("lb", d.lb_op),
                           ("loaded", on)):
                rec[key].append(v)
            if hook is not None:
                hook(k + 1, runs)
    finally:  # (an error on its way out reaches the bar: no "done" report then)
        bar.__exit__(*sys.exc_info())
        if load is not None:
            load.stop()
        if speed is not None:
            runtime.set_speed("cpu", 1.0)
    stats: dict = {"runs": len(rec["T"]), "lb_ops": int(sum(rec["lb"]))}
    if load is not None and load.start_run is not None:
        stats["load"] = (load.start_run, load.stop_run)
    status = "error" if not correct else "time_limit" if stopped else "feasible"
    message = ("a run's result differed from the reference" if not correct else
               f"time limit of {tl:g} s reached after {len(rec['T'])} of {runs} runs"
               if stopped else "")
    return AdaptiveRuns(status, message,
                        sct_id, np.array(rec["share"]), np.array(rec["T"]), np.array(rec["tg"]),
                        np.array(rec["tc"]), np.array(rec["dev"]), np.array(rec["fired"]),
                        np.array(rec["lb"]), np.array(rec["loaded"]), correct, stats=stats)
