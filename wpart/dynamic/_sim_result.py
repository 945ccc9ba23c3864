"""Running the simulator: :func:`simulate`, :class:`SimResult` and :func:`compare`.

Import these from :mod:`wpart.dynamic`.
"""

from __future__ import annotations
from .._errors import WpartOSError, WpartTypeError, WpartValueError

import math
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._progress import progress_hook
from .._result import Result, pct
from .._validate import (as_bool, as_float, as_floats, as_int, as_progress, as_seed, as_sequence,
                         choice, core_time_limit, deprecated_attr, extra_keywords_deprecated)
from ._balancer import BLOCK_KINDS, Balancer, PyBalancer
from ._sim import _EVAL_MODES, IDLE_COLUMNS, TRACE_DTYPE, Platform
from ._table import BALANCERS, make_balancer
from ._trace import BlockRun, _short, cancelling, rows_to_series

__all__ = ["SimResult", "simulate", "compare"]


@dataclass(frozen=True, eq=False, repr=False)
class SimResult(BlockRun, Result):
    """The outcome of one simulated run (the result protocol of :class:`wpart.Result`).

    Attributes
    ----------
    status : {"feasible", "time_limit"}
        ``"feasible"``: the run completed (a heuristic schedule). ``"time_limit"``: the
        simulation was stopped at its `time_limit` (wall clock); it holds no schedule
        (``success`` is False, the arrays are empty, ``makespan`` is NaN).
    message : str
        How the run ended.
    platform : str
        Platform name; ``stand_in`` tells whether it is a synthetic stand-in.
    balancer : str
        The balancer's name (``algo``: deprecated alias).
    seed : int
    n : int
        Elements ``W`` (``total``: deprecated alias).
    makespan : float
        ``max t_end`` (an evaluation still running after the last block is excluded).
    trace : ndarray, structured (:data:`TRACE_DTYPE`), shape (blocks,)
        One record per block in order of assignment (empty when ``trace=False``).
    busy, idle, idle_frac : ndarray of float64, shape (m,)
        ``busy = sum(t_xfer + t_comp)``, ``idle = makespan - busy``, ``idle / makespan``.
    idle_breakdown : ndarray of float64, shape (m, 4)
        Idle seconds by reason, columns :data:`IDLE_COLUMNS` (barrier, eval, starved, other).
    elements, blocks : ndarray of int64, shape (m,)
        Elements and blocks processed per PU.
    shares : ndarray of float64, shape (m,), or None
        The balancer's step shares in percent (the analogue of the paper's Fig. 5b).
    series : numpy.recarray
        The balancer's published block sizes ``(t, model_version, T_pred, S_eff, X[m])``:
        ``series.t`` (or ``series["t"]``) the times, ``series.X`` the block-size matrix
        (time x PU). Greedy, HDSS, Static and balancers written in Python record a row
        whenever a PU's block size changes (rows of one time merged; ``T_pred``, ``S_eff`` NaN).
    n_evals, n_barriers, n_blocks : int
    blocks_per_kind : dict of str to int
    eval_time : float
        Total evaluation time charged.
    speedup_vs_best_single : float
        ``min_p E_p(W) / makespan`` with the noiseless true curves.
    kinds : tuple of str
    stats : dict
        ``n_events`` (heap events processed), ``n_stale`` (stale completion events dropped),
        ``wall_seconds`` (wall time of the C run). Not compared by ``==``.
    """

    platform: str
    stand_in: bool
    balancer: str
    seed: int
    n: int
    makespan: float
    trace: NDArray[Any]
    busy: NDArray[np.float64]
    idle: NDArray[np.float64]
    idle_frac: NDArray[np.float64]
    idle_breakdown: NDArray[np.float64]
    elements: NDArray[np.int64]
    blocks: NDArray[np.int64]
    shares: NDArray[np.float64] | None
    series: NDArray[Any]
    n_evals: int
    n_barriers: int
    n_blocks: int
    blocks_per_kind: dict[str, int]
    eval_time: float
    speedup_vs_best_single: float
    kinds: tuple[str, ...]

    algo = deprecated_attr("algo", "balancer", "SimResult")
    total = deprecated_attr("total", "n", "SimResult")
    n_pu = deprecated_attr("n_pu", "m", "SimResult")

    @property
    def m(self) -> int:
        """Number of PUs."""
        return len(self.kinds)

    def _stat(self, key: str) -> Any:
        warnings.warn(f"SimResult.{key} is deprecated, use stats[{key!r}]", DeprecationWarning, stacklevel=3)
        return self.stats.get(key)

    @property
    def n_events(self) -> int:
        """Deprecated: ``stats["n_events"]``."""
        return self._stat("n_events")

    @property
    def n_stale(self) -> int:
        """Deprecated: ``stats["n_stale"]``."""
        return self._stat("n_stale")

    @property
    def wall_seconds(self) -> float:
        """Deprecated: ``stats["wall_seconds"]``."""
        return self._stat("wall_seconds")

    def _has_answer(self) -> bool:
        return self.status == "feasible"

    def _repr_lines(self) -> list[str]:
        tag = ", simulated, stand-in platform" if self.stand_in else ", simulated"
        lines = [f"SimResult(status={self.status!r}, platform={self.platform!r}, balancer={self.balancer!r}, "
                 f"seed={self.seed}, m={self.m}, n={self.n}{tag})"]
        if self.status == "feasible":
            idle = ", ".join(f"{k} {pct(v / 100.0)}" for k, v in self.idle_by_kind().items())
            lines.append(self._run_line())
            lines.append(f"  idle: {idle}; elements={_short(self.elements)}")
        lines.append(f"  {self.message}")
        return lines

    def efficiency(self, T_oracle: float) -> float:
        """``T_oracle / makespan`` (efficiency against an optimum)."""
        return float(T_oracle) / self.makespan if self.makespan > 0 else float("nan")

    def idle_by_kind(self) -> dict[str, float]:
        """Idle percentage per PU class (mean over the PUs of the class; the analogue of the
        paper's Fig. 5a)."""
        out: dict[str, float] = {}
        if self.idle_frac.size != len(self.kinds):
            return out
        for k in dict.fromkeys(self.kinds):
            sel = np.array([kk == k for kk in self.kinds])
            out[k] = float(100.0 * self.idle_frac[sel].mean())
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dict (arrays as lists; the trace and the series as dicts of columns),
        with ``success``, ``stats`` and ``idle_columns``."""
        d = super().to_dict()
        d["kinds"] = list(self.kinds)
        d["idle_columns"] = list(IDLE_COLUMNS)
        return d

    def _title(self) -> str:
        tag = "simulated, stand-in platform" if self.stand_in else "simulated"
        return f"{self.platform}: {self.balancer}, makespan {self.makespan:.4g} s ({tag})"

    def _gantt_kw(self) -> dict[str, Any]:
        return {"labels": [f"{p}:{k}" for p, k in enumerate(self.kinds)],
                "eval_times": self.series["t"] if self.series.size else None}


def _balancer_c(balancer: Any) -> Any:
    if isinstance(balancer, PyBalancer):  # a balancer written in Python: the C protocol over it
        return balancer._protocol()
    if isinstance(balancer, Balancer):
        return balancer._c
    if isinstance(balancer, _core.Balancer):
        return balancer
    raise WpartTypeError(f"`balancer` must be a wpart.dynamic balancer or a name among {BALANCERS.names}, "
                         f"got {type(balancer).__name__}")


_PRESETS: dict[Any, Platform] = {}  # presets named by simulate(), per state of the preset file


def _platform(platform: Any) -> Platform:
    import os

    from . import _sim

    if isinstance(platform, os.PathLike) or (
            isinstance(platform, str) and platform not in _sim.PRESET_NAMES
            and (platform.lower().endswith(".json") or os.path.exists(platform))):
        # a platform JSON file (a preset name wins over a file of that name): errors name
        # the file and the field; a directory is refused as one
        if os.path.isdir(platform):
            raise WpartOSError(f"`platform`: {os.fspath(platform)!r} is a directory, not a "
                               "platform JSON file")
        return Platform.from_json(platform)
    if isinstance(platform, str):
        try:
            stt = _sim.PRESET_FILE.stat()
            key: Any = (platform, str(_sim.PRESET_FILE), stt.st_mtime_ns, stt.st_size)
        except OSError:
            key = None
        pl = _PRESETS.get(key) if key is not None else None
        if pl is None:
            try:
                pl = Platform.preset(platform)  # (a Platform is frozen: one may serve every run)
            except WpartValueError as exc:  # name the argument of simulate, not preset's
                msg = str(exc)
                if msg.startswith("`name`"):
                    raise WpartValueError("`platform` (a preset name, or the path of a "
                                          "platform JSON file)" + msg[6:]) from None
                raise
            if key is not None:
                if len(_PRESETS) > 16:
                    _PRESETS.clear()
                _PRESETS[key] = pl
        return pl
    if not isinstance(platform, Platform):
        raise WpartTypeError(f"`platform` must be a Platform, a preset name or the path of a platform JSON file, got {type(platform).__name__}")
    return platform


@extra_keywords_deprecated("options", "the balancer's options")
def simulate(
    platform: Platform | str,
    balancer: Any,
    *,
    seed: int = 0,
    n: int | None = None,
    options: Mapping[str, Any] | None = None,
    time_limit: float | None = None,
    eval_cost: float = 0.1,
    eval_cost_mode: str = "const",
    eval_model: tuple[float, float] = (0.1, 0.0),
    eval_scale: float = 1.0,
    dispatch_overhead: float = 0.0,
    trace: bool = True,
    progress: bool | Callable[[float, float], Any] = False,
    max_events: int = 0,
) -> SimResult:
    """Run `balancer` on `platform` with the deterministic event engine.

    Parameters
    ----------
    platform : Platform, str or os.PathLike
        A platform, the name of a preset (:meth:`Platform.preset`: ``"paper5"``,
        ``"adapt2"``, ``"hetero3"``, ``"linear4"``, or ``"machines"``, ``"paper5"``'s devices
        under another label), or the path of a platform JSON file (a name ending in
        ``.json``, or an existing file: :meth:`Platform.from_json`).
    balancer : Balancer or str
        A fresh (unstarted) balancer with ``m == platform.m`` (it is consumed), or the name
        of one (``wpart.dynamic.BALANCERS.names``: ``"plbhac"``, ``"greedy"``, ``"hdss"``,
        ...), built for the platform by :func:`make_balancer` with `n` elements and
        `options`.
    seed : int
        Noise seed (common random numbers: the noise of the ``j``-th block on PU ``p``
        depends only on ``(seed, p, purpose, j)``).
    n : int, optional
        Elements, with a balancer given by name (default: the platform's ``n``).
    options : dict, optional
        The balancer's options, with a balancer given by name (e.g. ``{"chunk": 4096}``).
    time_limit : float, optional
        Wall-clock seconds (None: no limit). Reaching it stops the run and returns a
        result with ``status == "time_limit"`` (no schedule: ``success`` is False).
    eval_cost, eval_cost_mode, eval_model, eval_scale
        Cost of one evaluation: ``"const"`` (``eval_cost`` s), ``"model"``
        (``a + b * blocks completed so far`` with ``eval_model = (a, b)``) or ``"measured"``
        (wall time of ``eval_run`` times ``eval_scale``; not reproducible).
    dispatch_overhead : float
        Seconds before each block's transfer (idle "other").
    trace : bool
        Keep one record per block.
    progress : bool or callable
        ``True`` shows a tqdm bar (elements completed); a callable gets ``(done, total)``
        and stops the run with :class:`wpart.CancelledError` by returning False.
    max_events : int
        Stop with an error past this many events (0: no cap).

    Returns
    -------
    SimResult

    Raises
    ------
    wpart.WpartValueError, wpart.WpartTypeError
        Bad arguments, or a balancer error (bad action); a bad platform file (the message
        names the file and the field).
    wpart.WpartOSError, wpart.WpartFileNotFoundError
        A platform file that cannot be read, does not exist, or is a directory.
    wpart.WpartError
        A broken invariant: coverage or a stalled balancer.
    wpart.CancelledError
        Ctrl-C, or the progress callback returned False.

    Examples
    --------
    >>> from wpart.dynamic import simulate
    >>> r = simulate("linear4", "greedy", n=150, options={"chunk": 10})
    >>> r.status, int(r.elements.sum())
    ('feasible', 150)
    """
    platform = _platform(platform)
    seed = as_seed(seed)
    if isinstance(balancer, str):
        if options is not None and not isinstance(options, Mapping):
            raise WpartTypeError(f"`options` must be a dict, got {type(options).__name__}")
        if n is None:
            n = platform.n
            if n is None:
                raise WpartTypeError("`n` is needed with a balancer given by name: the platform names no amount of work")
        try:
            balancer = make_balancer(balancer, platform.m, n, platform=platform, seed=seed,
                                     options=options)
        except TypeError as e:  # (Python's, or the public classes' WpartTypeError)
            if "unexpected keyword" not in str(e) or "a key of `options`" in str(e):
                raise
            raise WpartTypeError(f"{e}: a key of `options` that is not an option of the "
                                 f"balancer {balancer!r}") from None
    elif n is not None or options is not None:
        raise WpartTypeError("`n` and `options` apply to a balancer given by name only")
    c = _balancer_c(balancer)
    if int(c.m) != platform.m:
        raise WpartValueError(f"`balancer` has m = {c.m} PUs but the platform has {platform.m}")
    eval_cost_mode = choice(eval_cost_mode, "eval_cost_mode", _EVAL_MODES)
    tl = core_time_limit(time_limit)
    a, b = (float(v) for v in as_floats(eval_model, "eval_model", n=2,
                                            values="finite and non-negative"))
    max_events = as_int(max_events, "max_events", minimum=0, maximum=2**63 - 1)
    eval_cost = as_float(eval_cost, "eval_cost", minimum=0.0)
    dispatch_overhead = as_float(dispatch_overhead, "dispatch_overhead", minimum=0.0)
    eval_scale = as_float(eval_scale, "eval_scale", minimum=0.0)
    trace = as_bool(trace, "trace")
    dev, tx, tt, off, fl, oo = platform._packed
    W = int(c.n)
    m = platform.m
    common = dict(platform=platform.name, stand_in=platform.stand_in,
                  balancer=balancer.name if isinstance(balancer, PyBalancer) else str(c.name), seed=seed, n=W,
                  kinds=platform.kinds)
    with progress_hook(cancelling(as_progress(progress)), total=W, desc=f"simulate {c.name}") as hook:
        raw = _core.dynamic_simulate(
            dev, tx, tt, off, fl, oo, c, seed=seed, eval_mode=_EVAL_MODES.index(eval_cost_mode),
            eval_cost=eval_cost, eval_a=a, eval_b=b, eval_scale=eval_scale,
            dispatch_overhead=dispatch_overhead, record_trace=trace, progress=hook,
            max_events=max_events, time_limit=tl,
        )  # fmt: skip
    if raw.get("time_limit"):
        return _stopped(common, m, raw, tl)
    assert raw["trace_itemsize"] == TRACE_DTYPE.itemsize  # (the core's wpart_dynamic_trace_t)
    tr = raw["trace"].view(TRACE_DTYPE)  # the core's records themselves (the binding's array)
    mk = float(raw["makespan"])
    best = min(float(platform.true_time(p, W, first=True)) for p in range(m))
    return SimResult(
        status="feasible", message=f"all {W} elements completed in {int(raw['n_blocks'])} blocks",
        **common, makespan=mk, trace=tr, busy=raw["busy"], idle=raw["idle"],
        idle_frac=raw["idle"] / mk if mk > 0 else np.zeros(m), idle_breakdown=raw["idle_breakdown"],
        elements=raw["elements"], blocks=raw["blocks"], shares=c.shares(),
        series=rows_to_series(c.series(), m),
        n_evals=int(raw["n_evals"]), n_barriers=int(raw["n_barriers"]), n_blocks=int(raw["n_blocks"]),
        blocks_per_kind=dict(zip(BLOCK_KINDS, (int(v) for v in raw["blocks_per_kind"]))),
        eval_time=float(raw["eval_time"]), speedup_vs_best_single=best / mk if mk > 0 else float("nan"),
        stats={"n_events": int(raw["n_events"]), "n_stale": int(raw["n_stale"]),
               "wall_seconds": float(raw["wall_seconds"])},
    )  # fmt: skip


def _stopped(common: dict, m: int, raw: dict, tl: float) -> SimResult:
    """The result of a run stopped at its time limit: no schedule."""
    empty_f = np.zeros(0)
    return SimResult(
        status="time_limit", message=f"time limit of {tl:g} s reached before the run completed (no schedule)",
        **common, makespan=math.nan, trace=np.zeros(0, dtype=TRACE_DTYPE), busy=empty_f, idle=empty_f,
        idle_frac=empty_f, idle_breakdown=np.zeros((0, 4)), elements=np.zeros(0, np.int64),
        blocks=np.zeros(0, np.int64), shares=None,
        series=np.zeros(0, dtype=[("t", "f8"), ("model_version", "i4"), ("T_pred", "f8"), ("S_eff", "f8"),
                                  ("X", "i8", (m,))]).view(np.recarray),
        n_evals=0, n_barriers=0, n_blocks=0, blocks_per_kind={k: 0 for k in BLOCK_KINDS}, eval_time=0.0,
        speedup_vs_best_single=math.nan, stats={"wall_seconds": float(raw.get("wall_seconds", tl))},
    )  # fmt: skip


COMPARE_DTYPE = np.dtype(
    [("algo", "U32"), ("seed", "i8"), ("makespan", "f8"), ("idle_pct", "f8"), ("n_evals", "i8"),
     ("n_barriers", "i8"), ("n_blocks", "i8"), ("eval_time", "f8"), ("speedup", "f8")]
)  # fmt: skip


def compare(
    platform: Platform | str,
    algos: Mapping[str, Any],
    *,
    seeds: Iterable[int] = range(10),
    progress: bool = True,
    **simulate_kw: Any,
) -> NDArray[Any]:
    """Simulate several balancers over several seeds (common random numbers per seed).

    Parameters
    ----------
    platform : Platform, str or os.PathLike
        A platform, a preset name or the path of a platform JSON file (as in
        :func:`simulate`).
    algos : dict of str to Balancer, callable or str
        A Balancer is re-created per run with ``.fresh()`` (the given one is left unstarted);
        a callable must return a fresh Balancer; a string names a balancer of
        ``wpart.dynamic.BALANCERS`` (built for the platform with its defaults).
    seeds : iterable of int
    progress : bool
        A tqdm bar over the runs.
    **simulate_kw
        Passed to :func:`simulate` (``trace`` defaults to False here).

    Returns
    -------
    ndarray, structured
        One row per (algo, seed): ``algo, seed, makespan, idle_pct`` (mean idle % over PUs),
        ``n_evals, n_barriers, n_blocks, eval_time, speedup`` (vs the best single PU). A run
        stopped by a ``time_limit`` gives NaN times and zero counts.
    """
    platform = _platform(platform)
    if not isinstance(algos, Mapping) or not algos:
        raise WpartValueError("`algos` must be a non-empty dict of name -> Balancer, callable or balancer name")
    for k, v in algos.items():
        if isinstance(v, str):
            BALANCERS.choose(v, f"algos[{k!r}]")
        elif not (isinstance(v, Balancer) or callable(v)):
            raise WpartTypeError(f"`algos[{k!r}]` must be a Balancer, a callable returning one or a balancer name")
    if isinstance(seeds, (str, bytes)):
        raise WpartTypeError("`seeds` must be an iterable of integers")
    seeds = [as_seed(s, "seeds") for s in as_sequence(seeds, "seeds")]
    bar_on = as_bool(progress, "progress")
    simulate_kw.setdefault("trace", False)
    rows = []
    runs = [(k, s) for k in algos for s in seeds]
    bar = None
    if bar_on:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(runs), desc="compare", leave=False)
    try:
        for k, s in runs:
            v = algos[k]
            bal = v if isinstance(v, str) else v.fresh() if isinstance(v, Balancer) else v()
            r = simulate(platform, bal, seed=s, **simulate_kw)
            idle = 100.0 * float(r.idle_frac.mean()) if r.idle_frac.size else math.nan
            rows.append((k, s, r.makespan, idle, r.n_evals, r.n_barriers, r.n_blocks, r.eval_time,
                         r.speedup_vs_best_single))  # fmt: skip
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return np.array(rows, dtype=COMPARE_DTYPE)
