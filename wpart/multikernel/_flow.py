"""The decision flow of multi-kernel runs [Soldado 2016, Fig. 4], without an event loop.

:func:`build_profile` is the profile construction of Algorithm 1 (fission, overlap and
work-group size searched with the discard rule, the CPU/GPU share by the bisection generator
inside each configuration) over a `measure` callable that runs the computation once.
:class:`DecisionLoop` is what happens around every run: the configuration of a request
(exact entry of the knowledge base, or a derived one), then after the run the
"persist when best so far" rule, the imbalance detector and one adaptive binary search step
when it fires (or a profile construction, when enabled and never done for the pair). Whatever
executes runs (the simulator, OpenCL, threads) calls these; the decisions are the C ones.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import numpy as np

from .._errors import WpartTypeError, WpartValueError
from .._result import Result, new_axes
from .._progress import progress_hook
from .._validate import as_bool, as_float, as_int, as_time_limit, choice
from ._adapt import (AdaptiveBinarySearch, BisectionGenerator, ConfigSearch, ImbalanceDetector,
                     balance_ratio)
from ._defaults import MK_DEFAULTS, MK_PRESETS
from ._kb import KnowledgeBase, KernelProfile, _workload
from .._docs import fill_doc

__all__ = ["build_profile", "ProfileBuild", "DecisionLoop", "RunDecision"]


@dataclass(frozen=True, eq=False, repr=False)
class ProfileBuild(Result):
    """Outcome of :func:`build_profile`.

    Attributes
    ----------
    status, message : str
    profile : KernelProfile or None
        The best configuration found (stored in the base as ``PROFILED`` when one was given).
    evaluated : list of dict
        Every measured candidate in order: ``fission``, ``overlap``, ``wgs``, ``s``, ``T``,
        ``T_gpu``, ``T_cpu``.
    stats : dict
        ``configurations`` (evaluated), ``measurements`` (calls of `measure`).
    """

    profile: KernelProfile | None
    evaluated: list

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Time of every measured candidate against its GPU share, one series per
        configuration; returns the Axes."""
        ax = new_axes(ax)
        groups: dict[tuple, list] = {}
        for e in self.evaluated:
            groups.setdefault((e["fission"], e["overlap"], tuple(e["wgs"])), []).append(e)
        for (f, o, w), es in groups.items():
            ax.plot([e["s"] for e in es], [e["T"] for e in es], "o-", label=f"{f}/{o}", **kwargs)
        ax.set_xlabel("GPU share")
        ax.set_ylabel("time")
        ax.legend(fontsize=7)
        return ax

    def _repr_lines(self) -> list[str]:
        p = self.profile
        head = f"ProfileBuild(status={self.status!r}, {self.stats.get('measurements', 0)} runs)"
        if p is None:
            return [head]
        return [head, f"  fission {p.fission}, overlap {p.overlap}, wgs {list(p.wgs)}, "
                      f"GPU share {p.s:.4f}, best time {p.best_time:.6g}"]


def plot_share_runs(ax: Any, share_pct: Any, times: Any, *, share_label: str, time_label: str,
                    share_fmt: str = "-", time_fmt: str = "k:", time_color: str | None = None,
                    **line_kw: Any) -> tuple[Any, Any]:
    """The runs of a decision loop: a device type's share per run (left axis, in percent) and
    a time per run (right axis) on `ax` (a new figure when None); returns both Axes."""
    ax = new_axes(ax)
    k = np.arange(len(share_pct))
    ax.plot(k, share_pct, share_fmt, label=share_label, **line_kw)
    ax.set_xlabel("run")
    ax.set_ylabel(share_label)
    ax2 = ax.twinx()
    ax2.plot(k, times, time_fmt, **({} if time_color is None else {"ms": 3, "alpha": 0.6}))
    ax2.set_ylabel(time_label, **({} if time_color is None else {"color": time_color}))
    return ax, ax2


def _measure(measure, n_exec, args):
    best = None
    for _ in range(n_exec):
        r = measure(*args)
        try:
            T, tg, tc = (float(v) for v in r)
        except (TypeError, ValueError):
            raise WpartTypeError("`measure` must return (T, T_gpu, T_cpu)") from None
        if not all(v >= 0 for v in (T, tg, tc)):
            raise WpartValueError(f"`measure` returned negative or NaN times {r!r}")
        best = (T, tg, tc) if best is None else tuple(min(a, b) for a, b in zip(best, (T, tg, tc)))
    return best


@fill_doc
def build_profile(measure: Callable[[str, int, tuple, float], Sequence[float]], *, sct_id: str,
                  workload: Any, kb: KnowledgeBase | None = None,
                  fission: Sequence[str] = ("NONE",), overlaps: Sequence[int] | None = None,
                  wgs: Sequence[Sequence[int]] = ((),), n_gpus: int = 1, cpu: bool = True,
                  precision: float | None = None, n_exec: int | None = None,
                  it_max: int | None = None, x_min: float | None = None,
                  mode: str = "wpart", time_limit: float | None = None,
                  progress: Any = False) -> ProfileBuild:
    """Profile construction (Algorithm 1 of [Soldado 2016]).

    Fission levels (outermost), overlap factors and work-group size tuples are searched in
    the given orders, each dimension stopping at its first candidate that does not beat the
    previous one (:class:`ConfigSearch`). Inside a configuration the CPU/GPU share comes from
    the :class:`BisectionGenerator`: each candidate is measured `n_exec` times (each of T,
    T_gpu, T_cpu aggregated by its minimum) until two successive improving candidates differ
    by at most `precision` (relative), the generator is exhausted, or `it_max` candidates.
    Every candidate that beats the best stored time is written to `kb` as ``PROFILED``.

    Parameters
    ----------
    measure : callable
        ``measure(fission, overlap, wgs, s) -> (T, T_gpu, T_cpu)``: one run with that
        configuration and GPU share ``s``.
    sct_id, workload
        The pair being profiled.
    kb : KnowledgeBase, optional
    fission, overlaps, wgs : sequences
        Candidates in iterator order (fission finest to coarsest then ``"NONE"``; overlaps
        default ``MK_DEFAULTS["overlaps"]``; work-group size tuples by non-increasing
        occupancy).
    n_gpus : int, optional
        0: CPU only (share 0: only the fission level is chosen).
    cpu : bool, optional
        False: GPU only (share 1).
    precision, n_exec, it_max, x_min : optional
        Defaults in :data:`MK_DEFAULTS`.
    mode : {"wpart", "paper"}, optional
        ``"paper"`` stops a configuration's share search at its first non-improving
        candidate (the literal reading of the paper's Algorithm 1).
    time_limit : float, optional
        Seconds for the whole call (None: none), checked before each measurement after the
        first: once spent, the search stops with status ``"time_limit"`` and the best
        profile measured so far.
    progress : bool or callable, optional
        True for a progress bar over the configurations, or a callable ``progress(done,
        total)`` (total: the candidate configurations; returning False cancels with
        :class:`wpart.CancelledError`).

    Returns
    -------
    ProfileBuild
        The profile built and the runs it took.

    {raises}
    """
    d = MK_DEFAULTS
    if not callable(measure):
        raise WpartTypeError("`measure` must be callable")
    ext, fp64 = _workload(workload)
    fission = list(fission)
    overlaps = list(d["overlaps"] if overlaps is None else overlaps)
    wgs = [tuple(w) for w in wgs]
    if not fission or not overlaps or not wgs:
        raise WpartValueError("`fission`, `overlaps` and `wgs` need at least one candidate each")
    n_gpus = as_int(n_gpus, "n_gpus", minimum=0)
    cpu = as_bool(cpu, "cpu")
    if n_gpus == 0 and not cpu:
        raise WpartValueError("`n_gpus` = 0 with `cpu` = False leaves no device")
    prec = as_float(d["precision"] if precision is None else precision, "precision", minimum=0.0)
    n_exec = as_int(d["n_exec"] if n_exec is None else n_exec, "n_exec", minimum=1)
    it_max = as_int(d["it_max"] if it_max is None else it_max, "it_max", minimum=1)
    xm = d["x_min"] if x_min is None else x_min
    mode = choice(mode, "mode", ("wpart", "paper"))
    if n_gpus == 0:                      # CPU only: the search is over the fission level
        overlaps, wgs = overlaps[:1], wgs[:1]
    if not cpu:
        fission = [None]
    search = ConfigSearch(len(fission), len(overlaps), len(wgs))
    evaluated: list[dict] = []
    best: KernelProfile | None = None
    stored_best = kb.best_time(sct_id, (ext, fp64)) if kb is not None else math.inf
    tl = as_time_limit(time_limit)
    n_cfg = len(fission) * len(overlaps) * len(wgs)
    state = {"best": best, "stored_best": stored_best, "n_meas": 0, "tl": tl,
             "t_start": time.perf_counter(), "stopped": False}
    with progress_hook(progress, total=n_cfg, desc="build_profile",
                       unit="configuration") as hook:
        _search(search, fission, overlaps, wgs, xm, it_max, n_gpus, cpu, measure, n_exec,
                evaluated, prec, mode, sct_id, ext, fp64, kb, state, hook, n_cfg)
    best, n_meas, stopped = state["best"], state["n_meas"], state["stopped"]
    if stopped:
        return ProfileBuild("time_limit", f"time limit of {tl:g} s reached after {n_meas} "
                            "measurements", best, evaluated,
                            stats={"configurations": search.evaluated, "measurements": n_meas})
    return ProfileBuild("feasible", "", best, evaluated,
                        stats={"configurations": search.evaluated, "measurements": n_meas})


def _search(search: Any, fission: list, overlaps: list, wgs: list, xm: Any, it_max: int,
            n_gpus: int, cpu: bool, measure: Any, n_exec: int, evaluated: list, prec: float,
            mode: str, sct_id: str, ext: Any, fp64: bool, kb: Any, st: dict, hook: Any,
            n_cfg: int) -> None:
    """The configuration search of :func:`build_profile` (Algorithm 1); its results in `st`."""
    best, stored_best = st["best"], st["stored_best"]
    tl, t_start = st["tl"], st["t_start"]
    while (cfg := search.next()) is not None:
        f, o, w = fission[cfg[0]], overlaps[cfg[1]], wgs[cfg[2]]
        gen = BisectionGenerator(x_min=xm)
        best_local, t_prev = math.inf, None
        for _ in range(it_max):
            if st["n_meas"] and tl is not None and time.perf_counter() - t_start > tl:
                st["stopped"] = True
                break
            s = 0.0 if n_gpus == 0 else (1.0 if not cpu else gen.candidate())
            T, tg, tc = _measure(measure, n_exec, (f, o, w, s))
            st["n_meas"] += n_exec
            evaluated.append({"fission": f, "overlap": o, "wgs": list(w), "s": s, "T": T,
                              "T_gpu": tg, "T_cpu": tc})
            exhausted = True if (n_gpus == 0 or not cpu) else gen.feedback(tg, tc)
            if T < best_local:
                best_local = T
                if best is None or T < best.best_time:
                    ratio = min(tg, tc) / max(tg, tc) if min(tg, tc) > 0 else 1.0
                    best = KernelProfile(sct_id, ext, fp64=fp64, s=s, s_eff=s,
                                   fission=None if s == 1.0 else f, overlap=o, wgs=w,
                                   best_time=T, process="PROFILED", balance_ratio=ratio,
                                   n_obs=n_exec)
                    if kb is not None and T < stored_best:
                        kb.store(best)
                        stored_best = T
                if t_prev is not None and abs(t_prev - T) <= prec * t_prev:
                    break
            elif mode == "paper":
                break
            if exhausted:
                break
            t_prev = T
        st["best"], st["stored_best"] = best, stored_best
        if st["stopped"]:
            break
        search.report(best_local)
        if hook is not None:
            hook(min(search.evaluated, n_cfg), n_cfg)
    st["best"], st["stored_best"] = best, stored_best


@dataclass(frozen=True)
class RunDecision:
    """What :meth:`DecisionLoop.end` decided after one run.

    Attributes
    ----------
    judged : bool
        False for the warm-up run after a configuration change.
    fired : bool
        The imbalance detector fired.
    balance_ratio : float
        The run's balance ratio (slowest over fastest device time).
    lbt : float
        The load-balance threshold it was compared with.
    persisted : bool
        The configuration used was stored (best so far).
    profile : bool
        A profile construction is due (enabled and never done).
    s_next : float
        GPU share of the next run.
    lb_op : bool
        An adaptive binary search step was taken.
    """

    judged: bool          # False for the warm-up run after a configuration change
    fired: bool           # the detector fired
    balance_ratio: float
    lbt: float
    persisted: bool       # the configuration used was stored (best so far)
    profile: bool         # a profile construction is due (enabled and never done)
    s_next: float         # GPU share of the next run
    lb_op: bool           # an adaptive binary search step was taken


class DecisionLoop:
    """The decisions around every run of a (computation, workload) pair (Fig. 4 of
    [Soldado 2016]).

    Call :meth:`begin` before a run (it gives the configuration: the base's entry, or a
    derived one for a new pair), run it, then :meth:`end` with its times. The first run after
    a change of pair is not judged (warm-up).

    Parameters
    ----------
    kb : KnowledgeBase
    profiling : bool, optional
        Build a profile (the caller runs :func:`build_profile`, then :meth:`profile_built`)
        when a pair is unbalanced and has none.
    seed : float, optional
        GPU share for a base with nothing to derive from (see :func:`seed_share`).
    preset : {"robust", "paper"}, optional
        The rules (:data:`MK_PRESETS`; default ``MK_DEFAULTS["preset"]``, ``"robust"``).
        ``"paper"`` is the paper's: the detector judges each run's own balance ratio, an
        episode of the adaptive binary search ends at the first run judged balanced, and
        each step judges the run's own times. ``"robust"`` is for busy machines: the
        detector and the search judge the device times estimated from the last `window`
        runs (each type's second fastest time per unit of share of 4, scaled to the current
        share; see :class:`AdaptiveBinarySearch`), the converged search counts steps net of
        opposite ones and cannot stay converged while it keeps being stepped, and an
        episode ends only after `window` runs in a row judged balanced, so that noisy runs
        neither fire, nor turn the search, nor reset or stall it. Without noise both reach
        the same shares (the robust one a run or two later).
    window : int, optional
        Runs judged together, 1 to 15 (default: the preset's, 4 for ``"robust"``, 1 for
        ``"paper"``).
    w, max_dev, cf, cf_min, T_init, T_min, T_max : float, optional
        Detector and adaptive binary search constants (defaults in :data:`MK_DEFAULTS`).
    """

    def __init__(self, kb: KnowledgeBase, *, profiling: bool = False, seed: float = 0.5,
                 preset: str | None = None, window: int | None = None,
                 w: float | None = None, max_dev: float | None = None, cf: float | None = None,
                 cf_min: float | None = None, T_init: float | None = None,
                 T_min: float | None = None, T_max: float | None = None) -> None:
        if not isinstance(kb, KnowledgeBase):
            raise WpartTypeError(f"`kb` must be a KnowledgeBase, got {type(kb).__name__}")
        d = MK_DEFAULTS
        self.preset = choice(d["preset"] if preset is None else preset, "preset",
                             tuple(MK_PRESETS))
        self.window = as_int(MK_PRESETS[self.preset]["window"] if window is None else window,
                             "window", minimum=1, maximum=15)
        self.kb = kb
        self.profiling = as_bool(profiling, "profiling")
        self.seed = as_float(seed, "seed", minimum=0.0, maximum=1.0)
        self.w = as_float(d["w"] if w is None else w, "w")
        self.max_dev = as_float(d["max_dev"] if max_dev is None else max_dev, "max_dev")
        self.cf = as_float(d["cf"] if cf is None else cf, "cf")
        self.cf_min = as_float(d["cf_min"] if cf_min is None else cf_min, "cf_min")
        self.abs_opts = {"T_init": T_init, "T_min": T_min, "T_max": T_max}
        AdaptiveBinarySearch(0.5, **self.abs_opts)      # validates the constants now
        self.key = None
        self.cfg: KernelProfile | None = None
        self.lb_ops = 0
        self._profiled: set = set()

    def _detector(self, cfg: KernelProfile) -> ImbalanceDetector:
        cf = self.cf
        if cfg.process == "PROFILED" and cfg.balance_ratio < self.max_dev:
            cf = max(self.cf_min, cfg.balance_ratio / self.max_dev)
        return ImbalanceDetector(w=self.w, max_dev=self.max_dev, cf=min(1.0, cf))

    def begin(self, sct_id: str, workload: Any) -> KernelProfile:
        """The configuration of the next run of this pair."""
        ext, fp64 = _workload(workload)
        key = (sct_id, ext, fp64)
        if key != self.key:
            self.cfg = self.kb.lookup(sct_id, (ext, fp64)) or \
                self.kb.derive(sct_id, (ext, fp64), seed=self.seed)
            self._reset(key)
        return self.cfg

    def _reset(self, key) -> None:
        self.key = key
        self.detector = self._detector(self.cfg)
        self.episode: AdaptiveBinarySearch | None = None
        self._quiet = 0                  # runs in a row judged balanced (robust rule)
        if self.window > 1:              # one search for the pair: its window outlives episodes
            self.episode = AdaptiveBinarySearch(
                self.cfg.s, window=self.window, band=min(self.detector.bound, 0.999),
                **self.abs_opts)
            self._quiet = self.window
        self.warmup = 1
        self.moved = False

    def profile_built(self) -> KernelProfile:
        """After :func:`build_profile` for the current pair: its entry becomes the
        configuration, and the detector starts again."""
        sct_id, ext, fp64 = self.key
        self._profiled.add(self.key)
        self.cfg = self.kb.lookup(sct_id, (ext, fp64)) or self.cfg
        key = self.key
        self._reset(key)
        self.warmup = 0
        return self.cfg

    def end(self, *, T: float, device_times: Any, t_gpu: float, t_cpu: float) -> RunDecision:
        """Judges the run just made with :meth:`begin`'s configuration."""
        if self.cfg is None:
            raise WpartValueError("call begin() before end()")
        T = as_float(T, "T", minimum=0.0)
        t_gpu = as_float(t_gpu, "t_gpu", minimum=0.0)
        t_cpu = as_float(t_cpu, "t_cpu", minimum=0.0)
        if self.warmup > 0:
            self.warmup -= 1
            return RunDecision(False, False, 1.0, self.detector.lbt, False, False, self.cfg.s,
                               False)
        cfg = self.cfg
        sct_id, ext, fp64 = self.key
        persisted = False
        t_dev = np.asarray(device_times, dtype=np.float64)
        est = None
        if self.window > 1:       # robust: the detector judges the window's estimate
            self.episode.observe(t_gpu, t_cpu)
            est = self.episode.estimate()
        fire, dev = self.detector.update(t_dev if est is None else np.asarray(est))
        if est is not None:
            dev = balance_ratio(t_dev)
        if T < self.kb.best_time(sct_id, (ext, fp64)):
            stored = self.kb.lookup(sct_id, (ext, fp64))
            process = ("PROFILED" if self.key in self._profiled else
                       "REFINED" if self.moved else
                       (stored.process if stored is not None else cfg.process))
            self.kb.store(replace(cfg, best_time=T, process=process, balance_ratio=dev,
                                  n_obs=cfg.n_obs + 1, timestamp=0.0))
            persisted = True
        profile = lb_op = False
        if fire:
            if self.profiling and self.key not in self._profiled:
                profile = True
            else:
                if self.window > 1:
                    if self._quiet >= self.window or self.episode.s != cfg.s:
                        self.episode.restart(cfg.s)    # a new episode, the same window
                    self._quiet = 0
                    s = self.episode.judge()           # the run is already in the window
                else:
                    if self.episode is None:
                        self.episode = AdaptiveBinarySearch(cfg.s, **self.abs_opts)
                    s = self.episode.step(t_gpu, t_cpu)
                if s != cfg.s:
                    self.cfg = replace(cfg, s=s, s_eff=s, timestamp=0.0)
                    self.moved = True
                self.lb_ops += 1
                lb_op = True
        elif self.window > 1:
            self._quiet += 1             # robust: the episode ends after `window` quiet runs
        else:
            self.episode = None
        return RunDecision(True, bool(fire), dev, self.detector.lbt, persisted, profile,
                           self.cfg.s, lb_op)
