"""Oracles on the simulator's true, noiseless curves: the "optimum" the paper compares with
(Sec. 5, Fig. 4; the paper finds it by brute force).

* :func:`oracle_oneshot` -- one block per PU: ``(P_S)`` with ``S = W`` solved on the true
  ``E_p`` (compute + transfer, the first block's setup included), ``lb = 0``, then optimal
  rounding. With subadditive truths its makespan ``T*_oneshot`` is a lower bound for every
  algorithm on a noiseless, fluctuation-free platform (test P8).
* :func:`oracle_stepped` -- the static equal-time shares of a step volume ``S = ceil(W / j)``
  for each ``j`` in ``divisors``, run in the simulator as repeated steps
  (:class:`~wpart.dynamic.FixedBlocks`) with the same seed; the best makespan wins (the
  closest analogue of the paper's empirical brute force).

Examples
--------
>>> from wpart.dynamic import Platform, oracle_oneshot, simulate
>>> pl = Platform.preset("linear4", k=1.0, sigma=0.0)
>>> o = oracle_oneshot(pl, 150)
>>> o.blocks.tolist(), o.makespan, o.status
([80, 40, 20, 10], 10.0, 'optimal')
"""

from __future__ import annotations
from .._errors import WpartTypeError, WpartValueError

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np
from numpy.typing import NDArray

from .._result import Result, new_axes
from .._keywords import checked_keywords
from .._validate import as_seed, as_time_limit, deprecated_attr, renamed
from ._balancer import Balancer, Static, count
from ._baselines import FixedBlocks
from ._model import round_blocks, solve_equal_time
from ._sim import Platform, simulate
from ._trace import ColumnsDict, plot_per_pu
from .._docs import fill_doc

__all__ = ["OracleResult", "oracle_oneshot", "oracle_stepped", "true_curves", "dmda_calibration"]

STEPPED_DTYPE = np.dtype([("j", "i8"), ("S", "i8"), ("T_pred", "f8"), ("makespan", "f8")])


@dataclass(frozen=True, eq=False, repr=False)
class OracleResult(ColumnsDict, Result):
    """What an oracle found (the result protocol of :class:`wpart.Result`). Unpacks as
    ``blocks, S, makespan``.

    Attributes
    ----------
    status : {"optimal", "feasible"}
        ``"optimal"``: the one-shot oracle (optimal on the noiseless curves, after optimal
        rounding); ``"feasible"``: the stepped oracle (the best of the step volumes tried).
    message : str
    kind : {"oneshot", "stepped"}
    blocks : ndarray of int64, shape (m,)
        Block size per PU (one-shot: the whole allocation, summing to ``n``; stepped: one
        step's shares, summing to ``S``).
    S : int
        Step volume (``n`` for the one-shot oracle).
    makespan : float
        One-shot: the predicted makespan ``T*_oneshot = max_p E_p(blocks_p)`` over the PUs
        with data. Stepped: the best simulated makespan.
    T_cont : float
        The continuous water level of ``(P_S)`` for the chosen ``S`` (a lower bound of the
        rounded step time).
    n : int
        Elements (``total``: deprecated alias).
    table : ndarray, structured, or None
        Stepped: one row per distinct ``S`` tried (``j``, ``S``, ``T_pred``, ``makespan``).
    stats : dict
        ``simulations``: simulated runs (stepped).
    """

    kind: str
    blocks: NDArray[np.int64]
    S: int
    makespan: float
    T_cont: float
    n: int
    table: NDArray[Any] | None = None

    total = deprecated_attr("total", "n", "OracleResult")

    def __iter__(self) -> Iterator[Any]:
        return iter((self.blocks, self.S, self.makespan))

    def balancer(self) -> Balancer:
        """A fresh balancer that runs this allocation: ``Static(blocks)`` (one-shot) or
        ``FixedBlocks(n, blocks)`` (stepped)."""
        if self.kind == "oneshot":
            return Static(self.blocks)
        return FixedBlocks(self.n, self.blocks)

    @property
    def shares(self) -> NDArray[np.float64]:
        """The blocks in percent of ``S`` (the analogue of the paper's Fig. 5b)."""
        return 100.0 * self.blocks / float(self.S)

    def _repr_lines(self) -> list[str]:
        b = self.blocks.tolist()
        return [f"OracleResult(status={self.status!r}, kind={self.kind!r}, n={self.n}, S={self.S}, "
                f"makespan={self.makespan:.6g} s)",
                f"  blocks={b if len(b) <= 8 else b[:8] + ['...']}",
                f"  {self.message}"]

    def plot(self, ax: Any = None) -> Any:
        """Bar chart of the shares (one-shot) or makespan against ``S`` (stepped) on `ax` (a
        new figure when None); returns the Axes."""
        if self.table is None:
            return plot_per_pu(ax, self.shares, "share of S (%)",
                               f"oracle_{self.kind}: T* = {self.makespan:.4g} s")
        ax = new_axes(ax)
        ax.plot(self.table["S"], self.table["makespan"], "o-")
        ax.set_xscale("log")
        ax.set_xlabel("step volume S (elements)")
        ax.set_ylabel("simulated makespan (s)")
        ax.set_title(f"oracle_stepped: best S = {self.S}, {self.makespan:.4g} s")
        return ax


def true_curves(platform: Platform, *, first: bool = True) -> list[Callable[[float], float]]:
    """The true noiseless block times ``E_p(x)`` (compute + transfer) of a platform as scalar
    callables, with ``E_p(0) = 0`` (no block, no cost). ``first=True`` includes the setup
    bytes of a PU's first block (the one-shot case)."""
    if not isinstance(platform, Platform):
        raise WpartTypeError(f"`platform` must be a Platform, got {type(platform).__name__}")

    def make(p: int) -> Callable[[float], float]:
        def E(x: float) -> float:
            return float(platform.true_time(p, x, first=first)) if x > 0 else 0.0

        return E

    return [make(p) for p in range(platform.m)]


def _solve_round(curves: list[Callable[[float], float]], S: int, q: int) -> tuple[NDArray[np.int64], float, float]:
    x, T = solve_equal_time(curves, float(S), lb=np.zeros(len(curves)), ub=np.full(len(curves), float(S)))
    blocks, _ = round_blocks(curves, np.minimum(x, S), S, quantum=q)
    blocks = np.asarray(blocks, dtype=np.int64)
    if int(blocks.sum()) != S:
        raise AssertionError(f"rounding gave {int(blocks.sum())} elements instead of {S}")
    pred = max(curves[p](float(b)) for p, b in enumerate(blocks) if b > 0)
    return blocks, float(T), float(pred)


@fill_doc
@renamed(total="n")
def oracle_oneshot(platform: Platform, n: int, *, quantum: int = 1,
                   time_limit: float | None = None, progress: Any = False) -> OracleResult:
    """One block per PU, optimal on the true noiseless curves.

    Solves ``min T s.t. E_p(x_p) <= T, sum x = n, x >= 0`` on the true ``E_p`` of the
    platform (compute + transfer, the first block's setup included; no noise, no slowdown),
    then rounds optimally to multiples of ``quantum`` (:func:`round_blocks`). A PU whose
    smallest block would end after ``T`` gets nothing.

    Parameters
    ----------
    platform : Platform
    n : int
        Elements ``W``.
    quantum : int, default 1
        Block granularity ``q`` (one block may take the remainder ``W mod q``).
    time_limit : float, optional
        Accepted for the family's vocabulary (None: none): the solve is one water-filling and
        one rounding, microseconds to milliseconds, and is not interrupted.
    progress : bool or callable, optional
        True for a progress bar, or a callable ``progress(done, total)``; it goes from 0 to
        1 around the solve.

    Returns
    -------
    OracleResult
        ``kind="oneshot"``, ``status="optimal"``, ``S = n``, ``makespan = T*_oneshot``
        (predicted); :meth:`OracleResult.balancer` gives the ``Static`` balancer that runs it.

    {raises}
    """
    W = count(n, "n")
    q = count(quantum, "quantum")
    if q > W:
        raise WpartValueError(f"`quantum` ({q}) must be at most `n` ({W})")
    as_time_limit(time_limit)
    from .._progress import progress_hook

    with progress_hook(progress, total=1.0, desc="oracle_oneshot") as hook:
        if hook is not None:
            hook(0.0, 1.0)
        curves = true_curves(platform, first=True)
        blocks, T, pred = _solve_round(curves, W, q)
        if hook is not None:
            hook(1.0, 1.0)
    return OracleResult(status="optimal", message="one block per PU, optimal on the noiseless curves",
                        kind="oneshot", blocks=blocks, S=W, makespan=pred, T_cont=T, n=W)


@fill_doc
@renamed(total="n")
@checked_keywords
def oracle_stepped(
    platform: Platform,
    n: int,
    *,
    divisors: Iterable[int] = range(1, 65),
    seed: int = 0,
    quantum: int = 1,
    time_limit: float | None = None,
    progress: Any = False,
    dispatch_overhead: float = 0.0,
    max_events: int = 0,
) -> OracleResult:
    """Best static equal-time shares run as repeated steps (the closest analogue of the
    paper's brute-force optimum, Sec. 5).

    For each ``j`` in ``divisors`` the step volume is ``S = ceil(n / j)``; ``(P_S)`` is
    solved on the true noiseless curves (steady state, without the first block's setup; for
    ``S = n`` with it) and rounded to multiples of ``quantum``; the shares run in the
    simulator as :class:`~wpart.dynamic.FixedBlocks` (PU ``p`` takes ``blocks[p]`` whenever
    it is free) with the given seed. The smallest simulated makespan wins (ties to the
    larger ``S``).

    Parameters
    ----------
    platform : Platform
    n : int
        Elements ``W``.
    divisors : iterable of int, default range(1, 65)
        Values of ``j`` (>= 1); duplicate step volumes are simulated once.
    seed : int, default 0
        Simulator seed (use the seed of the run being compared).
    quantum : int, default 1
    time_limit : float, optional
        Seconds for the whole call (None: none), checked between two simulations; reaching it
        gives status ``"time_limit"`` with the best step volume simulated so far (at least
        one is).
    progress : bool or callable, optional
        True for a progress bar over the step volumes, or a callable ``progress(done,
        total)`` (returning False cancels the run with :class:`wpart.CancelledError`).
    dispatch_overhead, max_events : optional
        The options of :func:`wpart.dynamic.simulate` for every simulation (see there; the
        fixed shares issue no evaluation, so its evaluation costs do not apply).

    Returns
    -------
    OracleResult
        ``kind="stepped"``; unpacks as ``blocks, S, makespan``; ``table`` lists every ``S``
        simulated.

    {raises}
    """
    W = count(n, "n")
    q = count(quantum, "quantum")
    seed = as_seed(seed)
    if isinstance(divisors, (str, bytes)):
        raise WpartTypeError("`divisors` must be an iterable of integers")
    try:
        it = iter(divisors)
    except TypeError:
        raise WpartTypeError(f"`divisors` must be an iterable of integers, got {type(divisors).__name__}") from None
    js = [count(j, "divisors") for j in it]
    if not js:
        raise WpartValueError("`divisors` must not be empty")
    import time as _time

    from .._progress import progress_hook

    tl = as_time_limit(time_limit)
    steady = true_curves(platform, first=False)
    once = true_curves(platform, first=True)
    rows, best = [], None
    steps: list[tuple[int, int]] = []
    seen: set[int] = set()
    for j in js:
        S = min(max(q, -(-W // j)), W)
        if S not in seen:
            seen.add(S)
            steps.append((j, S))
    t0 = _time.perf_counter()
    stopped = False
    with progress_hook(progress, total=len(steps), desc="oracle_stepped",
                       unit="step volume") as hook:
        for k, (j, S) in enumerate(steps):
            if rows and tl is not None and _time.perf_counter() - t0 > tl:
                stopped = True
                break
            blocks, T, pred = _solve_round(once if S == W else steady, S, q)
            res = simulate(platform, FixedBlocks(W, blocks), seed=seed, trace=False,
                           dispatch_overhead=dispatch_overhead, max_events=max_events)
            rows.append((j, S, pred, res.makespan))
            if best is None or res.makespan < best[3] or (res.makespan == best[3]
                                                          and S > best[1]):
                best = (blocks, S, T, res.makespan)
            if hook is not None:
                hook(k + 1, len(steps))
    table = np.array(rows, dtype=STEPPED_DTYPE)
    blocks, S, T, mk = best
    if stopped:
        return OracleResult(status="time_limit",
                            message=f"time limit of {tl:g} s reached: best of the first "
                                    f"{len(rows)} of {len(steps)} step volumes",
                            kind="stepped", blocks=blocks, S=int(S), makespan=float(mk),
                            T_cont=T, n=W, table=table, stats={"simulations": len(rows)})
    return OracleResult(status="feasible", message=f"best of {len(rows)} step volumes, simulated with seed {seed}",
                        kind="stepped", blocks=blocks, S=int(S), makespan=float(mk), T_cont=T, n=W,
                        table=table, stats={"simulations": len(rows)})


def dmda_calibration(platform: Platform, *, chunk: int = 1024, runs: int = 10, seed: int = 0) -> NDArray[np.float64]:
    """Per-PU piece times for :class:`~wpart.dynamic.DmdaLike` from a simulated calibration run.

    Every PU runs ``runs + 1`` pieces of ``chunk`` elements in synchronous steps (so each PU
    runs the same number); like StarPU's history models, the first measurement of each PU
    (which also pays the setup transfer) is dropped and the mean of the others is returned.

    Parameters
    ----------
    platform : Platform
    chunk : int, default 1024
    runs : int, default 10
        Measurements kept per PU (StarPU's ``STARPU_CALIBRATE_MINIMUM``).
    seed : int, default 0
        Simulator seed of the calibration run (use a seed other than the measured runs').

    Returns
    -------
    ndarray of float64, shape (n,)
        Mean measured time (transfer + compute) of one piece on each PU.
    """
    if not isinstance(platform, Platform):
        raise WpartTypeError(f"`platform` must be a Platform, got {type(platform).__name__}")
    g = count(chunk, "chunk")
    k = count(runs, "runs")
    n = platform.m
    W = n * (k + 1) * g
    res = simulate(platform, FixedBlocks(W, np.full(n, g), sync=True), seed=seed, eval_cost=0.0)
    tr = np.sort(res.trace, order="block")
    out = np.empty(n)
    for p in range(n):
        t = tr[tr["pu"] == p]
        out[p] = float(np.mean((t["t_xfer"] + t["t_comp"])[1:]))
    return out
