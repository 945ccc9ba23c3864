"""Rectangular partitions of 2D load matrices (spec 004; Saule, Baş, Çatalyürek, JPDC 2012).

Split an ``n1 x n2`` matrix of non-negative loads into ``m`` rectangles that tile it, so that
the largest rectangle load is as small as possible. Four classes of partition are offered,
each contained in the next:

* rectilinear ``P x Q`` grids: :func:`rect_uniform`, :func:`rect_nicol`;
* ``P x Q`` jagged: :func:`jag_pq_heur`, :func:`jag_pq_opt_nicol`, :func:`jag_pq_opt_dp`;
* ``m``-way jagged: :func:`jag_m_heur`, :func:`jag_m_probe`, :func:`jag_m_heur_probe`,
  :func:`jag_m_alloc`, :func:`jag_m_opt` (exact);
* hierarchical bipartitions: :func:`hier_rb`, :func:`hier_relaxed`, :func:`hier_opt` (exact);

plus the two-phase :func:`hybrid`. :func:`partition` dispatches by name. All algorithms run
in the C core on a bordered prefix array, with the GIL released.

Examples
--------
>>> import numpy as np
>>> from wpart import spatial
>>> A = np.arange(1, 17).reshape(4, 4)
>>> spatial.partition(A, 4, method="jag_m_opt").max_load
40
>>> spatial.partition(A, 4, method="rect_uniform").max_load
54
"""

from __future__ import annotations

import heapq
import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _core
from .._progress import progress_hook
from .._validate import as_int, as_loads, choice

__all__ = [
    "METHODS",
    "SpatialPartition",
    "partition",
    "rect_uniform",
    "rect_nicol",
    "jag_pq_heur",
    "jag_pq_opt_nicol",
    "jag_pq_opt_dp",
    "jag_m_heur",
    "jag_m_probe",
    "jag_m_heur_probe",
    "jag_m_alloc",
    "jag_m_opt",
    "hier_rb",
    "hier_relaxed",
    "hier_opt",
    "hybrid",
    "allocate",
    "factor_pair",
]

#: Method names accepted by :func:`partition` (spec names, lower case, underscores).
METHODS = (
    "rect_uniform",
    "rect_nicol",
    "jag_pq_heur",
    "jag_pq_opt_nicol",
    "jag_pq_opt_dp",
    "jag_m_heur",
    "jag_m_probe",
    "jag_m_heur_probe",
    "jag_m_alloc",
    "jag_m_opt",
    "hier_rb",
    "hier_relaxed",
    "hier_opt",
    "hybrid",
)
_CODE = {name: i for i, name in enumerate(METHODS[:13])}
_ORIENT = ("hor", "ver", "best")
_VARIANT = ("load", "dist", "hor", "ver")
_TIE = ("area", "first")


@dataclass(frozen=True)
class SpatialPartition:
    """A tiling of a load matrix by ``m`` rectangles.

    Attributes
    ----------
    rects : ndarray of int64, shape (m, 4)
        Rows ``(r0, r1, c0, c1)``: rectangle ``k`` covers rows ``r0 <= i < r1`` and columns
        ``c0 <= j < c1``. Empty rectangles (``r0 == r1`` or ``c0 == c1``) only appear when
        the structure forces them (more parts than cells, ``P > n1`` ...).
    loads : ndarray, shape (m,)
        Load of every rectangle (int64 or float64, as the input).
    max_load : int or float
        ``Lmax``, the objective.
    avg_load : float
        ``T / m``.
    total : int or float
        ``T``, the total load.
    lower_bound : int or float
        ``max(ceil(T/m), amax)`` (``max(T/m, amax)`` for floats), valid for every class.
    imbalance : float
        ``max_load / avg_load - 1`` (0 when ``T = 0``).
    gap_lb : float
        ``max_load / lower_bound - 1`` (0 when the bound is 0).
    method : str
        Algorithm name (spec name, lower case).
    params : dict
        The options used, with resolved values (e.g. ``orient_used``, ``P``).
    stats : dict
        ``seconds`` (core time), ``iterations``, ``probes``, ``cost_evals``, ``dp_states``,
        ``converged``.
    shape : tuple of int
        ``(n1, n2)``.
    """

    rects: NDArray[np.int64]
    loads: NDArray
    max_load: Any
    avg_load: float
    total: Any
    lower_bound: Any
    imbalance: float
    gap_lb: float
    method: str
    params: dict
    stats: dict
    shape: tuple
    A: NDArray = field(repr=False, compare=False)

    @property
    def m(self) -> int:
        """Number of parts."""
        return int(self.rects.shape[0])

    def owner_map(self) -> NDArray[np.int32]:
        """``(n1, n2)`` int32 array: the index of the rectangle owning each cell.

        Raises ``ValueError`` if some cell is uncovered or covered twice.
        """
        own = np.full(self.shape, -1, dtype=np.int32)
        cnt = np.zeros(self.shape, dtype=np.int32)
        for k, (r0, r1, c0, c1) in enumerate(self.rects.tolist()):
            own[r0:r1, c0:c1] = k
            cnt[r0:r1, c0:c1] += 1
        if not (cnt == 1).all():
            i, j = np.argwhere(cnt != 1)[0]
            raise ValueError(f"cell ({i}, {j}) is covered {cnt[i, j]} times")
        return own

    def validate(self) -> None:
        """Check the partition; raise ``ValueError`` with the reason if it is broken.

        Checks: ``m`` rows of 4 integers inside the matrix with ``r0 <= r1``, ``c0 <= c1``;
        the non-empty rectangles cover every cell exactly once (owner-map paint); every load
        equals the direct sum of ``A`` over the rectangle; ``max_load = max(loads)`` and
        ``max_load >= lower_bound``.
        """
        r = self.rects
        n1, n2 = self.shape
        if r.ndim != 2 or r.shape[1] != 4 or r.dtype != np.int64:
            raise ValueError(f"rects must be an (m, 4) int64 array, got {r.shape} {r.dtype}")
        bad = (r[:, 0] < 0) | (r[:, 0] > r[:, 1]) | (r[:, 1] > n1)
        bad |= (r[:, 2] < 0) | (r[:, 2] > r[:, 3]) | (r[:, 3] > n2)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(f"rectangle {k} = {r[k].tolist()} is outside the {n1}x{n2} matrix")
        self.owner_map()
        A = self.A
        for k, (r0, r1, c0, c1) in enumerate(r.tolist()):
            direct = A[r0:r1, c0:c1].sum()
            if A.dtype.kind == "f":
                ok = abs(direct - self.loads[k]) <= 1e-9 * max(1.0, abs(float(self.total)))
            else:
                ok = int(direct) == int(self.loads[k])
            if not ok:
                raise ValueError(f"load of rectangle {k} is {self.loads[k]}, direct sum {direct}")
        if self.m and self.max_load != self.loads.max():
            raise ValueError("max_load differs from max(loads)")
        if A.dtype.kind != "f" and self.max_load < self.lower_bound:
            raise ValueError("max_load is below the lower bound")

    def to_dict(self) -> dict:
        """Plain-Python summary (JSON-friendly)."""
        return {
            "method": self.method,
            "params": {k: v for k, v in self.params.items()},
            "shape": list(self.shape),
            "m": self.m,
            "rects": self.rects.tolist(),
            "loads": self.loads.tolist(),
            "max_load": _scalar(self.max_load),
            "avg_load": float(self.avg_load),
            "lower_bound": _scalar(self.lower_bound),
            "imbalance": float(self.imbalance),
            "gap_lb": float(self.gap_lb),
            "stats": dict(self.stats),
        }

    def __repr__(self) -> str:
        return (
            f"SpatialPartition(method={self.method!r}, shape={self.shape}, m={self.m}, "
            f"max_load={self.max_load}, imbalance={self.imbalance:.4f}, "
            f"gap_lb={self.gap_lb:.4f})"
        )

    def plot(self, ax: Any = None, *, cmap: str = "viridis", edgecolor: str = "white",
             linewidth: float | None = None, title: str | None = None) -> Any:
        """Heatmap of the loads with the rectangles drawn on top (matplotlib).

        Returns the Axes.
        """
        import matplotlib.pyplot as plt
        from matplotlib.collections import PatchCollection
        from matplotlib.patches import Rectangle

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 5))
        ax.imshow(self.A, cmap=cmap, interpolation="nearest", origin="upper")
        if linewidth is None:
            linewidth = max(0.2, 1.5 / math.sqrt(max(1, self.m) / 16))
        patches = [
            Rectangle((c0 - 0.5, r0 - 0.5), c1 - c0, r1 - r0)
            for r0, r1, c0, c1 in self.rects.tolist()
            if r1 > r0 and c1 > c0
        ]
        ax.add_collection(PatchCollection(patches, facecolor="none", edgecolor=edgecolor,
                                          linewidth=linewidth))
        ax.set_xlim(-0.5, self.shape[1] - 0.5)
        ax.set_ylim(self.shape[0] - 0.5, -0.5)
        ax.set_title(title or f"{self.method}, m={self.m}, LI={100 * self.imbalance:.2f}%")
        return ax


def _scalar(x: Any) -> Any:
    return x.item() if hasattr(x, "item") else x


# ---------------------------------------------------------------------------------------------
# input handling


class _Prepared:
    """Coerced matrix, its prefix and the validated part count."""

    __slots__ = ("A", "S", "m", "n1", "n2", "total", "amax")

    def __init__(self, A: ArrayLike, m: Any, allow_empty: bool):
        if isinstance(A, _Prepared):
            self.A, self.S, self.n1, self.n2 = A.A, A.S, A.n1, A.n2
            self.total, self.amax = A.total, A.amax
        else:
            arr = as_loads(A, "A", (2,))
            self.A = arr
            self.S = _core.prefix_sum(arr, None, "A")
            self.n1, self.n2 = arr.shape
            self.total = self.S[-1, -1]
            self.amax = arr.max()
        self.m = as_int(m, "m", minimum=1)
        if self.m > self.n1 * self.n2 and not allow_empty:
            raise ValueError(
                f"`m` = {self.m} exceeds the {self.n1 * self.n2} cells of A; pass "
                "allow_empty=True to accept empty rectangles"
            )


def _orient(orient: Any) -> int:
    return _ORIENT.index(choice(orient, "orient", _ORIENT, {"rows": "hor", "cols": "ver"}))


def factor_pair(m: int, n1: int, n2: int) -> tuple[int, int]:
    """The factor pair ``P x Q = m`` closest to ``P = sqrt(m n1 / n2)`` (Theorem 2).

    Ties go to the smaller ``P``.
    """
    target = math.sqrt(m * n1 / n2)
    best = None
    for P in range(1, m + 1):
        if m % P == 0:
            d = abs(math.log(P / target))
            if best is None or d < best[0] - 1e-12:
                best = (d, P)
    P = best[1]
    return P, m // P


def _pq(m: int, n1: int, n2: int, P: Any, Q: Any) -> tuple[int, int]:
    if P is None and Q is None:
        P, Q = factor_pair(m, n1, n2)
        if m > 3 and (P == 1 or Q == 1) and all(m % k for k in range(2, int(math.isqrt(m)) + 1)):
            warnings.warn(
                f"m = {m} is prime: the only P x Q grids are 1 x m and m x 1; consider an "
                "m-way algorithm (jag_m_heur_probe, hier_relaxed)",
                UserWarning,
                stacklevel=3,
            )
        return P, Q
    if P is not None:
        P = as_int(P, "P", minimum=1)
    if Q is not None:
        Q = as_int(Q, "Q", minimum=1)
    if Q is None:
        if m % P:
            raise ValueError(f"`P` = {P} does not divide m = {m}")
        Q = m // P
    if P is None:
        if m % Q:
            raise ValueError(f"`Q` = {Q} does not divide m = {m}")
        P = m // Q
    if P * Q != m:
        raise ValueError(f"`P` x `Q` must equal m = {m}, got {P} x {Q}")
    return P, Q


def _run(pp: _Prepared, method: str, params: dict, *, progress: Any = None,
         time_limit: float | None = None, **kw: Any) -> SpatialPartition:
    tl = 0.0
    if time_limit is not None:
        tl = float(time_limit)
        if not tl > 0:
            raise ValueError(f"`time_limit` must be positive, got {time_limit}")
    with progress_hook(progress, total=1.0, desc=method) as hook:
        rects, st = _core.spatial_partition(pp.S, pp.m, _CODE[method], progress=hook,
                                            time_limit=tl, **kw)
    stats = {
        "seconds": st[0],
        "iterations": st[1],
        "probes": st[2],
        "cost_evals": st[3],
        "dp_states": st[4],
        "converged": bool(st[5]),
    }
    params = dict(params)
    if "orient" in params:
        params["orient_used"] = _ORIENT[st[6]]
    if method.startswith("jag_m"):
        params["P_used"] = int(st[7])
    return _result(pp, rects, method, params, stats)


def _result(pp: _Prepared, rects: NDArray, method: str, params: dict,
            stats: dict) -> SpatialPartition:
    loads = _core.box_loads(pp.S, rects) if len(rects) else np.zeros(0, pp.S.dtype)
    m = rects.shape[0]
    total = pp.total
    lmax = loads.max() if m else total
    avg = float(total) / m
    if pp.S.dtype.kind == "f":
        lb = max(float(total) / m, float(pp.amax))
    else:
        lb = max(-(-int(total) // m), int(pp.amax))
    li = float(lmax) / avg - 1.0 if total > 0 else 0.0
    gap = float(lmax) / float(lb) - 1.0 if lb > 0 else 0.0
    return SpatialPartition(
        rects=rects,
        loads=loads,
        max_load=_scalar(lmax),
        avg_load=avg,
        total=_scalar(total),
        lower_bound=_scalar(lb),
        imbalance=li,
        gap_lb=gap,
        method=method,
        params=params,
        stats=stats,
        shape=(pp.n1, pp.n2),
        A=pp.A,
    )


# ---------------------------------------------------------------------------------------------
# one function per algorithm

_DOC_COMMON = """
    A : array_like, shape (n1, n2)
        Non-negative loads (integers are exact in int64; floats in float64).
    m : int
        Number of parts (rectangles), ``1 <= m <= n1*n2`` unless ``allow_empty``.
"""


def rect_uniform(A: ArrayLike, m: int, *, P: int | None = None, Q: int | None = None,
                 allow_empty: bool = False) -> SpatialPartition:
    """RECT-UNIFORM (spec 3.1): a ``P x Q`` grid with equal-area rows and columns.

    Parameters
    ----------
    A, m
        Loads and number of parts.
    P, Q : int, optional
        Grid shape with ``P * Q = m``; by default the factor pair closest to
        ``sqrt(m n1 / n2)`` (a ``UserWarning`` is issued for prime ``m``).
    allow_empty : bool
        Accept ``m`` larger than the number of cells.

    Returns
    -------
    SpatialPartition
        No balance guarantee: only area is split.
    """
    pp = _Prepared(A, m, allow_empty)
    P, Q = _pq(pp.m, pp.n1, pp.n2, P, Q)
    return _run(pp, "rect_uniform", {"P": P, "Q": Q}, P=P, Q=Q)


def rect_nicol(A: ArrayLike, m: int, *, P: int | None = None, Q: int | None = None,
               max_sweeps: int = 100, allow_empty: bool = False,
               time_limit: float | None = None) -> SpatialPartition:
    """RECT-NICOL (spec 3.2): iterative refinement of a ``P x Q`` grid.

    Starting from uniform rows, the column cuts and then the row cuts are set optimally for
    the other dimension's fixed cuts (exact 1D Nicol on the max-over-stripes cost), until a
    sweep reproduces a state already seen or `max_sweeps` is reached. ``max_load`` never
    exceeds RECT-UNIFORM's. ``stats["iterations"]`` counts sweeps and
    ``stats["converged"]`` tells whether a fixed point (or cycle) was reached.
    """
    pp = _Prepared(A, m, allow_empty)
    P, Q = _pq(pp.m, pp.n1, pp.n2, P, Q)
    ms = as_int(max_sweeps, "max_sweeps", minimum=1)
    return _run(pp, "rect_nicol", {"P": P, "Q": Q, "max_sweeps": ms}, P=P, Q=Q, max_sweeps=ms,
                time_limit=time_limit)


def jag_pq_heur(A: ArrayLike, m: int, *, P: int | None = None, Q: int | None = None,
                orient: str = "best", allow_empty: bool = False) -> SpatialPartition:
    """JAG-PQ-HEUR (spec 3.3): optimal ``P`` stripes of the projection, then each stripe cut
    optimally into ``Q`` pieces. Theorem 1: ``Lmax <= (1 + D P/n1)(1 + D Q/n2) T/m`` for
    strictly positive data with ``D = amax/amin``.

    `orient` is ``"hor"`` (stripes of rows), ``"ver"`` (stripes of columns) or ``"best"``
    (both; the smaller ``max_load`` wins, ties to ``"hor"``).
    """
    pp = _Prepared(A, m, allow_empty)
    P, Q = _pq(pp.m, pp.n1, pp.n2, P, Q)
    o = _orient(orient)
    return _run(pp, "jag_pq_heur", {"P": P, "Q": Q, "orient": _ORIENT[o]}, P=P, Q=Q, orient=o)


def jag_pq_opt_nicol(A: ArrayLike, m: int, *, P: int | None = None, Q: int | None = None,
                     orient: str = "best", allow_empty: bool = False,
                     time_limit: float | None = None) -> SpatialPartition:
    """JAG-PQ-OPT-NICOL (spec 3.4): the optimal ``P x Q``-jagged partition, by Nicol's
    parametric search on the main dimension with the (memoised) nested 1D optimum as cost."""
    pp = _Prepared(A, m, allow_empty)
    P, Q = _pq(pp.m, pp.n1, pp.n2, P, Q)
    o = _orient(orient)
    return _run(pp, "jag_pq_opt_nicol", {"P": P, "Q": Q, "orient": _ORIENT[o]}, P=P, Q=Q,
                orient=o, time_limit=time_limit)


def jag_pq_opt_dp(A: ArrayLike, m: int, *, P: int | None = None, Q: int | None = None,
                  orient: str = "best", allow_empty: bool = False,
                  time_limit: float | None = None) -> SpatialPartition:
    """JAG-PQ-OPT-DP (spec 3.5): the same optimum as :func:`jag_pq_opt_nicol` by dynamic
    programming over the main dimension (crossing-point bisection); a cross-check, slower."""
    pp = _Prepared(A, m, allow_empty)
    P, Q = _pq(pp.m, pp.n1, pp.n2, P, Q)
    o = _orient(orient)
    return _run(pp, "jag_pq_opt_dp", {"P": P, "Q": Q, "orient": _ORIENT[o]}, P=P, Q=Q,
                orient=o, time_limit=time_limit)


def _stripes_P(pp: _Prepared, P: Any) -> int:
    if P is None or (isinstance(P, str) and P == "sqrt"):
        return 0
    if isinstance(P, str):
        if P != "theorem4":
            raise ValueError(f"`P` must be 'sqrt', 'theorem4' or an integer, got {P!r}")
        amin = pp.A.min()
        if amin <= 0:
            return 0  # Delta undefined with zeros: fall back to sqrt(m)
        delta = float(pp.amax) / float(amin)
        Pstar = pp.m * math.sqrt(delta) / (math.sqrt(delta) + math.sqrt(pp.n2))
        return max(1, min(pp.m, int(round(Pstar))))
    return as_int(P, "P", minimum=1)


def jag_m_heur(A: ArrayLike, m: int, *, P: Any = "sqrt", orient: str = "best",
               allow_empty: bool = False) -> SpatialPartition:
    """JAG-M-HEUR (spec 3.7): ``P`` optimal stripes of the projection, parts shared out in
    proportion to the stripe loads (spec 3.6), each stripe cut optimally.

    `P` is ``"sqrt"`` (``floor(sqrt(m))``, the paper's choice), ``"theorem4"`` (the
    minimiser of the Theorem 3 bound; strictly positive data only, else sqrt) or an int.
    It is clamped to ``[ceil(m/n2), min(n1, m)]`` where possible.
    """
    pp = _Prepared(A, m, allow_empty)
    Pv = _stripes_P(pp, P)
    o = _orient(orient)
    return _run(pp, "jag_m_heur", {"P": P, "orient": _ORIENT[o]}, P=Pv, orient=o)


def jag_m_probe(A: ArrayLike, m: int, *, stripe_cuts: ArrayLike, orient: str = "hor",
                allow_empty: bool = False) -> SpatialPartition:
    """JAG-M-PROBE (spec 3.8): the optimal ``m``-way jagged partition for given stripes.

    `stripe_cuts` are ``0 = s_0 <= s_1 <= ... <= s_P = n_main`` along the main dimension
    (rows for ``orient="hor"``, columns for ``"ver"``), with ``P <= m``.
    """
    pp = _Prepared(A, m, allow_empty)
    o = _orient(orient)
    if o == 2:
        raise ValueError("`orient` must be 'hor' or 'ver' when `stripe_cuts` are given")
    cuts = np.asarray(stripe_cuts)
    if cuts.dtype.kind not in "iu" or cuts.ndim != 1 or cuts.size < 2:
        raise ValueError("`stripe_cuts` must be a 1-D integer array of length >= 2")
    cuts = np.ascontiguousarray(cuts, dtype=np.int64)
    nmain = pp.n1 if o == 0 else pp.n2
    if cuts[0] != 0 or cuts[-1] != nmain or (np.diff(cuts) < 0).any():
        raise ValueError(f"`stripe_cuts` must rise from 0 to {nmain}")
    if cuts.size - 1 > pp.m:
        raise ValueError(f"`stripe_cuts` define {cuts.size - 1} stripes, more than m = {pp.m}")
    return _run(pp, "jag_m_probe", {"stripe_cuts": cuts.tolist(), "orient": _ORIENT[o]},
                cuts=cuts, orient=o)


def jag_m_heur_probe(A: ArrayLike, m: int, *, P: Any = "sqrt", orient: str = "best",
                     allow_empty: bool = False) -> SpatialPartition:
    """JAG-M-HEUR-PROBE (spec 3.8): the stripes of :func:`jag_m_heur`, then the optimal
    part counts for them (:func:`jag_m_probe`). Never worse than :func:`jag_m_heur`."""
    pp = _Prepared(A, m, allow_empty)
    Pv = _stripes_P(pp, P)
    o = _orient(orient)
    return _run(pp, "jag_m_heur_probe", {"P": P, "orient": _ORIENT[o]}, P=Pv, orient=o)


def jag_m_alloc(A: ArrayLike, m: int, *, counts: ArrayLike, orient: str = "hor",
                allow_empty: bool = False, time_limit: float | None = None) -> SpatialPartition:
    """JAG-M-ALLOC (spec 3.9): optimal stripe boundaries for given per-stripe part counts
    ``counts`` (length ``P``, each >= 1, summing to ``m``), by Nicol's algorithm on the
    heterogeneous nested cost. Empty stripes hand their parts to a neighbour."""
    pp = _Prepared(A, m, allow_empty)
    o = _orient(orient)
    if o == 2:
        raise ValueError("`orient` must be 'hor' or 'ver' when `counts` are given")
    c = np.asarray(counts)
    if c.dtype.kind not in "iu" or c.ndim != 1 or c.size < 1:
        raise ValueError("`counts` must be a non-empty 1-D integer array")
    c = np.ascontiguousarray(c, dtype=np.int64)
    if (c < 1).any() or int(c.sum()) != pp.m:
        raise ValueError(f"`counts` must be >= 1 and sum to m = {pp.m}, got sum {int(c.sum())}")
    return _run(pp, "jag_m_alloc", {"counts": c.tolist(), "orient": _ORIENT[o]}, cuts=c,
                orient=o, time_limit=time_limit)


def jag_m_opt(A: ArrayLike, m: int, *, orient: str = "best", allow_empty: bool = False,
              time_limit: float | None = None, progress: Any = None) -> SpatialPartition:
    """JAG-M-OPT (spec 3.10): the optimal ``m``-way jagged partition.

    Bisection on the bottleneck between ``ceil(T/m)`` and the JAG-M-HEUR-PROBE incumbent;
    each test is an exact DP over the last stripe's start giving the fewest parts for every
    row prefix, pruned by load bounds and the monotonicity of the piece counts. The stripes at
    the optimum are completed by :func:`jag_m_probe`. Exact for int64 data (and for float64
    up to the cost model).
    """
    pp = _Prepared(A, m, allow_empty)
    o = _orient(orient)
    return _run(pp, "jag_m_opt", {"orient": _ORIENT[o]}, orient=o, time_limit=time_limit,
                progress=progress)


def hier_rb(A: ArrayLike, m: int, *, variant: str = "load", tie: str = "area",
            allow_empty: bool = False) -> SpatialPartition:
    """HIER-RB (spec 3.11): recursive bisection, ``floor(q/2) | ceil(q/2)`` parts.

    `variant` picks the cut dimension: ``"load"`` (both, keep the better; the paper's default),
    ``"dist"`` (the longer side), ``"hor"``/``"ver"`` (alternate, starting with rows/columns).
    `tie` chooses inside a plateau of equal objective: ``"area"`` (area-proportional) or
    ``"first"``.
    """
    pp = _Prepared(A, m, allow_empty)
    v = choice(variant, "variant", _VARIANT)
    t = choice(tie, "tie", _TIE)
    return _run(pp, "hier_rb", {"variant": v, "tie": t}, rule=_VARIANT.index(v),
                tie_first=int(t == "first"))


def hier_relaxed(A: ArrayLike, m: int, *, variant: str = "load", tie: str = "area",
                 allow_empty: bool = False) -> SpatialPartition:
    """HIER-RELAXED (spec 3.12): like :func:`hier_rb` but every node also chooses how many
    parts each side gets (minimising ``max(L1/x, L2/(q-x))``); ties prefer balanced counts.
    Zero-load sub-rectangles are split by area."""
    pp = _Prepared(A, m, allow_empty)
    v = choice(variant, "variant", _VARIANT)
    t = choice(tie, "tie", _TIE)
    return _run(pp, "hier_relaxed", {"variant": v, "tie": t}, rule=_VARIANT.index(v),
                tie_first=int(t == "first"))


def hier_opt(A: ArrayLike, m: int, *, max_states: float = 2e7, allow_empty: bool = False,
             time_limit: float | None = None) -> SpatialPartition:
    """HIER-OPT (spec 3.13): the optimal hierarchical (guillotine) partition, by a memoised DP
    over ``(row interval, column interval, q)``; for small matrices only.

    Raises ``wpart.WpartError`` (limit) when the state count ``n1(n1+1)/2 * n2(n2+1)/2 * m``
    exceeds `max_states`.
    """
    pp = _Prepared(A, m, allow_empty)
    ms = int(max_states)
    if ms < 1:
        raise ValueError(f"`max_states` must be >= 1, got {max_states}")
    return _run(pp, "hier_opt", {"max_states": ms}, max_states=ms, time_limit=time_limit)


def allocate(loads: ArrayLike, m: int, cap: ArrayLike | None = None) -> NDArray[np.int64]:
    """Proportional allocation of spec 3.6: counts ``>= 1`` summing to `m`, roughly
    proportional to `loads`; leftovers go greedily to the largest ``load/count`` (capped
    blocks are skipped)."""
    L = as_loads(loads, "loads", (1,))
    m = as_int(m, "m", minimum=1)
    if L.size > m:
        raise ValueError(f"`loads` has {L.size} blocks, more than m = {m}")
    if (L < 0).any() or (L.dtype.kind == "f" and not np.isfinite(L).all()):
        raise ValueError("`loads` must be finite and non-negative")
    c = None if cap is None else np.ascontiguousarray(cap, dtype=np.int64)
    return _core.spatial_alloc(L, m, c)


_PHASE2 = ("jag_m_heur", "jag_m_heur_probe", "jag_m_opt", "hier_rb", "hier_relaxed")
_PHASE1 = ("jag_m_heur", "jag_m_heur_probe", "jag_m_opt", "hier_rb", "hier_relaxed")


def hybrid(A: ArrayLike, m: int, *, phase1: str = "jag_m_heur",
           phase2_fast: str = "jag_m_heur_probe", phase2_slow: str | None = "jag_m_opt",
           m1: int | None = None, m1_min: int | None = None, orient: str = "best",
           allow_empty: bool = False) -> SpatialPartition:
    """HYBRID (spec 4): a fast phase-1 partition into ``m1 < m`` blocks, parts shared out in
    proportion to block loads (capped by area), then each block partitioned by `phase2_fast`;
    with `phase2_slow` (HYBRID-F), the most loaded block is re-partitioned by the slow
    algorithm while that lowers its maximum.

    `m1` defaults to the candidate ``(k+1)^2 - 1`` in ``[m1_min, m-1]`` with the lowest
    expected imbalance ``ELI = max_k (L_k/m_k)/(T/m) - 1`` (ties: larger ``m1``);
    ``m1_min`` defaults to ``max(2, ceil(m/64))``. ``params["eli"]`` reports the ELI.
    """
    pp = _Prepared(A, m, allow_empty)
    p1 = choice(phase1, "phase1", _PHASE1)
    pf = choice(phase2_fast, "phase2_fast", _PHASE2)
    ps = None if phase2_slow is None else choice(phase2_slow, "phase2_slow", _PHASE2)
    o = _orient(orient)
    M = pp.m
    kw1 = {"orient": o} if p1.startswith("jag") else {}

    def phase1_run(k: int):
        rects, _ = _core.spatial_partition(pp.S, k, _CODE[p1], **kw1)
        L = _core.box_loads(pp.S, rects)
        area = (rects[:, 1] - rects[:, 0]) * (rects[:, 3] - rects[:, 2])
        cap = np.maximum(area, 1).astype(np.int64)
        cnt = _core.spatial_alloc(np.ascontiguousarray(L), M, cap)
        avg = float(pp.total) / M
        eli = (max(float(l) / c for l, c in zip(L.tolist(), cnt.tolist())) / avg - 1.0
               if pp.total > 0 else 0.0)
        return rects, L, cnt, eli

    if m1 is None:
        lo = max(2, -(-M // 64)) if m1_min is None else as_int(m1_min, "m1_min", minimum=1)
        cands = [(k + 1) ** 2 - 1 for k in range(1, math.isqrt(M) + 2)]
        cands = [c for c in cands if lo <= c <= M - 1]
        if not cands:
            cands = [1]
        best = None
        for c in cands:
            res = phase1_run(c)
            if best is None or res[3] < best[1][3] or (res[3] == best[1][3] and c > best[0]):
                best = (c, res)
        m1v, (rects1, L1, cnt, eli) = best
    else:
        m1v = as_int(m1, "m1", minimum=1)
        if m1v > M:
            raise ValueError(f"`m1` = {m1v} must not exceed m = {M}")
        rects1, L1, cnt, eli = phase1_run(m1v)

    kw2 = {"orient": o}

    def solve(k: int, alg: str) -> NDArray:
        r0, r1, c0, c1 = rects1[k].tolist()
        q = int(cnt[k])
        if q == 1 or r0 == r1 or c0 == c1:
            out = np.zeros((q, 4), dtype=np.int64)
            out[0] = (r0, r1, c0, c1)
            out[1:] = (r0, r0, c0, c0)
            return out
        kw = kw2 if alg.startswith("jag") else {}
        rects, _ = _core.spatial_partition(pp.S, q, _CODE[alg], window=(r0, r1, c0, c1), **kw)
        return rects

    import time

    t0 = time.perf_counter()
    sols = [solve(k, pf) for k in range(len(rects1))]
    Ms = [float(_core.box_loads(pp.S, s).max()) for s in sols]
    slow_runs = 0
    if ps is not None:
        heap = [(-v, k) for k, v in enumerate(Ms)]
        heapq.heapify(heap)
        done = set()
        while heap:
            negv, k = heap[0]
            if k in done:
                break
            s = solve(k, ps)
            slow_runs += 1
            done.add(k)
            v = float(_core.box_loads(pp.S, s).max())
            if v < Ms[k]:
                sols[k], Ms[k] = s, v
                heapq.heapreplace(heap, (-v, k))
            else:
                break
    rects = np.ascontiguousarray(np.concatenate(sols, axis=0), dtype=np.int64)
    stats = {"seconds": time.perf_counter() - t0, "iterations": slow_runs, "probes": 0,
             "cost_evals": 0, "dp_states": 0, "converged": True}
    params = {"phase1": p1, "phase2_fast": pf, "phase2_slow": ps, "m1": m1v, "eli": eli,
              "orient": _ORIENT[o]}
    return _result(pp, rects, "hybrid", params, stats)


_FUNCS: dict[str, Callable[..., SpatialPartition]] = {
    "rect_uniform": rect_uniform,
    "rect_nicol": rect_nicol,
    "jag_pq_heur": jag_pq_heur,
    "jag_pq_opt_nicol": jag_pq_opt_nicol,
    "jag_pq_opt_dp": jag_pq_opt_dp,
    "jag_m_heur": jag_m_heur,
    "jag_m_probe": jag_m_probe,
    "jag_m_heur_probe": jag_m_heur_probe,
    "jag_m_alloc": jag_m_alloc,
    "jag_m_opt": jag_m_opt,
    "hier_rb": hier_rb,
    "hier_relaxed": hier_relaxed,
    "hier_opt": hier_opt,
    "hybrid": hybrid,
}


def partition(A: ArrayLike, m: int, method: str = "jag_m_heur_probe",
              **options: Any) -> SpatialPartition:
    """Partition the 2D load matrix `A` into `m` rectangles with the named method.

    Parameters
    ----------
    A : array_like, shape (n1, n2)
        Non-negative loads: integers (exact, int64) or floats (float64). NaN, inf and
        negative values are rejected.
    m : int
        Number of rectangles.
    method : str
        One of :data:`METHODS` (hyphens and upper case accepted, e.g. ``"JAG-M-OPT"``).
    **options
        Keyword options of the method's own function (``orient``, ``P``, ``variant`` ...).

    Returns
    -------
    SpatialPartition
    """
    name = choice(method, "method", METHODS)
    return _FUNCS[name](A, m, **options)
