"""Running the simulator: :func:`simulate`, :class:`SimResult` and :func:`compare` (spec 001 §5.4-5.6).

Import these from :mod:`wpart.dynamic`.
"""

from __future__ import annotations
from .._errors import WpartOverflowError, WpartTypeError, WpartValueError

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._progress import progress_hook
from ._balancer import BLOCK_KINDS, Balancer
from ._sim import _C_TRACE, _EVAL_MODES, IDLE_COLUMNS, TRACE_DTYPE, Platform
from ._trace import plot_run

__all__ = ["SimResult", "simulate", "compare"]


@dataclass(frozen=True, repr=False)
class SimResult:
    """The outcome of one simulated run (spec 001 §5.6).

    Attributes
    ----------
    platform : str
        Platform name; ``stand_in`` tells whether it is a synthetic stand-in.
    algo : str
        The balancer's name.
    seed : int
    total : int
        Elements ``W``.
    makespan : float
        ``max t_end`` (an evaluation still running after the last block is excluded).
    trace : ndarray, structured (:data:`TRACE_DTYPE`), shape (blocks,)
        One record per block in order of assignment (empty when ``trace=False``).
    busy, idle, idle_frac : ndarray of float64, shape (n,)
        ``busy = sum(t_xfer + t_comp)``, ``idle = makespan - busy``, ``idle / makespan``.
    idle_breakdown : ndarray of float64, shape (n, 4)
        Idle seconds by reason, columns :data:`IDLE_COLUMNS` (barrier, eval, starved, other).
    elements, blocks : ndarray of int64, shape (n,)
        Elements and blocks processed per PU.
    shares : ndarray of float64, shape (n,), or None
        The balancer's step shares in percent (Fig. 5b analogue).
    series : ndarray, structured
        The balancer's published block sizes ``(t, model_version, T_pred, S_eff, X[n])``.
    n_evals, n_barriers, n_blocks : int
    blocks_per_kind : dict of str to int
    eval_time : float
        Total evaluation time charged.
    speedup_vs_best_single : float
        ``min_p E_p(W) / makespan`` with the noiseless true curves.
    kinds : tuple of str
    n_events, n_stale : int
        Heap events processed, stale completion events dropped.
    wall_seconds : float
        Wall time of the C run.
    """

    platform: str
    stand_in: bool
    algo: str
    seed: int
    total: int
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
    n_events: int
    n_stale: int
    wall_seconds: float

    @property
    def n_pu(self) -> int:
        return int(self.busy.size)

    def __repr__(self) -> str:
        idle = ", ".join(f"{k} {v:.1f}%" for k, v in self.idle_by_kind().items())
        return (f"SimResult(platform={self.platform!r}, algo={self.algo!r}, seed={self.seed}, "
                f"total={self.total}, makespan={self.makespan:.6g} s, blocks={self.n_blocks}, "
                f"evals={self.n_evals}, barriers={self.n_barriers}, idle: {idle}"
                f"{', simulated, stand-in platform' if self.stand_in else ''})")

    def efficiency(self, T_oracle: float) -> float:
        """``T_oracle / makespan`` (efficiency against an optimum)."""
        return float(T_oracle) / self.makespan if self.makespan > 0 else float("nan")

    def idle_by_kind(self) -> dict[str, float]:
        """Idle percentage per PU class (mean over the PUs of the class; Fig. 5a analogue)."""
        out: dict[str, float] = {}
        for k in dict.fromkeys(self.kinds):
            sel = np.array([kk == k for kk in self.kinds])
            out[k] = float(100.0 * self.idle_frac[sel].mean())
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dict (arrays as lists; the trace as a dict of columns)."""
        d: dict[str, Any] = {}
        for k in self.__dataclass_fields__:
            v = getattr(self, k)
            if k == "trace" or k == "series":
                v = {f: v[f].tolist() for f in v.dtype.names}
            elif isinstance(v, np.ndarray):
                v = v.tolist()
            d[k] = v
        d["idle_columns"] = list(IDLE_COLUMNS)
        return d

    def plot(self, ax: Any = None) -> Any:
        """Gantt chart (PU rows, blocks coloured by kind, transfers hatched, idle in grey,
        evaluations marked) above the block-size series. ``ax``: a pair of Axes, or one Axes
        for the Gantt chart alone. Returns the matplotlib figure."""
        ser = self.series
        tag = "simulated, stand-in platform" if self.stand_in else "simulated"
        return plot_run(
            self.trace, self.n_pu, series=ser, ax=ax, makespan=self.makespan,
            labels=[f"{p}:{k}" for p, k in enumerate(self.kinds)],
            eval_times=ser["t"] if ser.size else None,
            title=f"{self.platform}: {self.algo}, makespan {self.makespan:.4g} s ({tag})",
        )  # fmt: skip


def _balancer_c(balancer: Any) -> Any:
    if isinstance(balancer, Balancer):
        return balancer._c
    if isinstance(balancer, _core.Balancer):
        return balancer
    raise WpartTypeError(f"`balancer` must be a wpart.dynamic balancer, got {type(balancer).__name__}")


def _series(c: Any, n: int) -> NDArray[Any]:
    raw = c.series()
    dt = np.dtype([("t", "f8"), ("model_version", "i4"), ("T_pred", "f8"), ("S_eff", "f8"), ("X", "i8", (n,))])
    out = np.zeros(raw.shape[0], dtype=dt)
    if raw.shape[0]:
        out["t"], out["model_version"] = raw[:, 0], raw[:, 1].astype(np.int32)
        out["T_pred"], out["S_eff"] = raw[:, 2], raw[:, 3]
        out["X"] = np.nan_to_num(raw[:, 4:], nan=0.0).astype(np.int64)
    return out


def simulate(
    platform: Platform,
    balancer: Any,
    *,
    seed: int = 0,
    eval_cost: float = 0.1,
    eval_cost_mode: str = "const",
    eval_model: tuple[float, float] = (0.1, 0.0),
    eval_scale: float = 1.0,
    dispatch_overhead: float = 0.0,
    trace: bool = True,
    progress: bool | Callable[[float, float], None] = False,
    max_events: int = 0,
) -> SimResult:
    """Run ``balancer`` on ``platform`` with the deterministic event engine (spec 001 §5.4).

    Parameters
    ----------
    platform : Platform
    balancer : Balancer
        A fresh (unstarted) balancer with ``n_pu == platform.n_pu``; it is consumed.
    seed : int
        Noise seed (common random numbers: the noise of the ``j``-th block on PU ``p``
        depends only on ``(seed, p, purpose, j)``).
    eval_cost, eval_cost_mode, eval_model, eval_scale
        Cost of one evaluation: ``"const"`` (``eval_cost`` s), ``"model"``
        (``a + b * blocks completed so far`` with ``eval_model = (a, b)``) or ``"measured"``
        (wall time of ``eval_run`` times ``eval_scale``; not reproducible).
    dispatch_overhead : float
        Seconds before each block's transfer (idle "other").
    trace : bool
        Keep one record per block.
    progress : bool or callable
        ``True`` shows a tqdm bar (elements completed); a callable gets ``(done, total)``.
    max_events : int
        Stop with an error past this many events (0: no cap).

    Returns
    -------
    SimResult

    Raises
    ------
    ValueError
        Bad arguments, or a balancer error (bad action).
    wpart.WpartError
        A broken invariant: coverage (P1) or a stalled balancer.
    """
    if not isinstance(platform, Platform):
        raise WpartTypeError(f"`platform` must be a Platform, got {type(platform).__name__}")
    c = _balancer_c(balancer)
    if int(c.n_pu) != platform.n_pu:
        raise WpartValueError(f"`balancer` has n_pu = {c.n_pu} but the platform has {platform.n_pu} PUs")
    if not isinstance(eval_cost_mode, str) or eval_cost_mode not in _EVAL_MODES:
        raise WpartValueError(f"`eval_cost_mode` must be one of {_EVAL_MODES}, got {eval_cost_mode!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**64:
        raise WpartValueError(f"`seed` must be an integer in [0, 2**64), got {seed!r}")
    try:
        a, b = (float(v) for v in eval_model)
    except (TypeError, ValueError):
        raise WpartValueError(f"`eval_model` must be a pair (a, b) of numbers, got {eval_model!r}") from None
    if isinstance(max_events, bool) or not isinstance(max_events, (int, np.integer)) or max_events < 0:
        raise WpartValueError(f"`max_events` must be an integer >= 0, got {max_events!r}")
    if max_events > 2**63 - 1:
        raise WpartOverflowError(f"`max_events` must fit in int64, got {max_events}")
    for nm, v in (("eval_cost", eval_cost), ("dispatch_overhead", dispatch_overhead), ("eval_scale", eval_scale), ("eval_model", a), ("eval_model", b)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise WpartTypeError(f"`{nm}` must be a number, got {type(v).__name__}")
        if not (np.isfinite(float(v)) and float(v) >= 0):
            raise WpartValueError(f"`{nm}` must be finite and >= 0, got {v!r}")
    if not isinstance(trace, (bool, np.bool_, int)):
        raise WpartTypeError(f"`trace` must be a bool, got {type(trace).__name__}")
    dev, tx, tt, off, fl, oo = platform._packed
    W = int(c.total)
    with progress_hook(progress, total=W, desc=f"simulate {c.name}") as hook:
        raw = _core.dynamic_simulate(
            dev, tx, tt, off, fl, oo, c, seed=int(seed), eval_mode=_EVAL_MODES.index(eval_cost_mode),
            eval_cost=float(eval_cost), eval_a=a, eval_b=b, eval_scale=float(eval_scale),
            dispatch_overhead=float(dispatch_overhead), record_trace=bool(trace), progress=hook,
            max_events=int(max_events),
        )  # fmt: skip
    assert raw["trace_itemsize"] == _C_TRACE.itemsize
    craw = raw["trace"].view(_C_TRACE)
    tr = np.empty(craw.size, dtype=TRACE_DTYPE)
    for f in TRACE_DTYPE.names:
        tr[f] = craw[f]
    mk = float(raw["makespan"])
    best = min(float(platform.true_time(p, W, first=True)) for p in range(platform.n_pu))
    n = platform.n_pu
    shares = c.shares()
    return SimResult(
        platform=platform.name, stand_in=platform.stand_in, algo=str(c.name), seed=int(seed), total=W,
        makespan=mk, trace=tr, busy=raw["busy"], idle=raw["idle"],
        idle_frac=raw["idle"] / mk if mk > 0 else np.zeros(n), idle_breakdown=raw["idle_breakdown"],
        elements=raw["elements"], blocks=raw["blocks"], shares=shares, series=_series(c, n),
        n_evals=int(raw["n_evals"]), n_barriers=int(raw["n_barriers"]), n_blocks=int(raw["n_blocks"]),
        blocks_per_kind=dict(zip(BLOCK_KINDS, (int(v) for v in raw["blocks_per_kind"]))),
        eval_time=float(raw["eval_time"]), speedup_vs_best_single=best / mk if mk > 0 else float("nan"),
        kinds=platform.kinds, n_events=int(raw["n_events"]), n_stale=int(raw["n_stale"]),
        wall_seconds=float(raw["wall_seconds"]),
    )  # fmt: skip


COMPARE_DTYPE = np.dtype(
    [("algo", "U32"), ("seed", "i8"), ("makespan", "f8"), ("idle_pct", "f8"), ("n_evals", "i8"),
     ("n_barriers", "i8"), ("n_blocks", "i8"), ("eval_time", "f8"), ("speedup", "f8")]
)  # fmt: skip


def compare(
    platform: Platform,
    algos: Mapping[str, Any],
    *,
    seeds: Iterable[int] = range(10),
    progress: bool = True,
    **simulate_kw: Any,
) -> NDArray[Any]:
    """Simulate several balancers over several seeds (common random numbers per seed).

    Parameters
    ----------
    platform : Platform
    algos : dict of str to Balancer or callable
        A Balancer is re-created per run with ``.fresh()`` (the given one is left unstarted);
        a callable must return a fresh Balancer.
    seeds : iterable of int
    progress : bool
        A tqdm bar over the runs.
    **simulate_kw
        Passed to :func:`simulate` (``trace`` defaults to False here).

    Returns
    -------
    ndarray, structured
        One row per (algo, seed): ``algo, seed, makespan, idle_pct`` (mean idle % over PUs),
        ``n_evals, n_barriers, n_blocks, eval_time, speedup`` (vs the best single PU).
    """
    if not isinstance(algos, Mapping) or not algos:
        raise WpartValueError("`algos` must be a non-empty dict of name -> Balancer or callable")
    for k, v in algos.items():
        if not (isinstance(v, Balancer) or callable(v)):
            raise WpartTypeError(f"`algos[{k!r}]` must be a Balancer or a callable returning one")
    seeds = [int(s) for s in seeds]
    simulate_kw.setdefault("trace", False)
    rows = []
    runs = [(k, s) for k in algos for s in seeds]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(runs), desc="compare", leave=False)
    try:
        for k, s in runs:
            v = algos[k]
            bal = v.fresh() if isinstance(v, Balancer) else v()
            r = simulate(platform, bal, seed=s, **simulate_kw)
            rows.append((k, s, r.makespan, 100.0 * float(r.idle_frac.mean()), r.n_evals, r.n_barriers,
                         r.n_blocks, r.eval_time, r.speedup_vs_best_single))  # fmt: skip
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return np.array(rows, dtype=COMPARE_DTYPE)
