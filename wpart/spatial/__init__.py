"""Rectangular partitions of 2D load matrices (spec 004; Saule, Baş, Çatalyürek, JPDC 2012).

Split an ``n1 x n2`` matrix of non-negative loads into ``m`` rectangles that tile it, so that
the largest rectangle load is as small as possible. Four classes of partition are offered,
each contained in the next:

* rectilinear ``P x Q`` grids: :func:`rect_uniform`, :func:`rect_nicol`;
* ``P x Q`` jagged: :func:`jag_pq_heur`, :func:`jag_pq_opt_nicol`, :func:`jag_pq_opt_dp`;
* ``m``-way jagged: :func:`jag_m_heur`, :func:`jag_m_probe`, :func:`jag_m_heur_probe`,
  :func:`jag_m_alloc`, :func:`jag_m_opt` (exact);
* hierarchical bipartitions: :func:`hier_rb`, :func:`hier_relaxed`, :func:`hier_opt` (exact);

plus the two-phase :func:`hybrid` and the :func:`jag_m_iter` extension. :func:`partition`
dispatches by name. All algorithms run in the C core on a bordered prefix array, with the GIL
released; instance generators are in :mod:`wpart.spatial.instances`.

Guarantees
----------
* Exact (integer loads exactly; float loads exactly for the costs as computed in float64):
  JAG-PQ-OPT (both engines, the optimum of the ``P x Q`` jagged class in the chosen
  orientation), JAG-M-PROBE (best counts for given stripes), JAG-M-ALLOC (best stripes for
  given counts), JAG-M-OPT (the ``m``-way jagged optimum) and HIER-OPT (the hierarchical
  optimum). The class chain HIER-OPT <= JAG-M-OPT <= JAG-PQ-OPT <= RECT-NICOL <= RECT-UNIFORM
  holds for every input.
* Proven bounds (strictly positive loads, ``Delta = amax / amin``; spec 3.3 and 3.7):
  JAG-PQ-HEUR ``<= (1 + Delta P/n1)(1 + Delta Q/n2) T/m``; JAG-M-HEUR
  ``<= (m/(m-P) + m Delta/(P n2) + m Delta^2/(n1 n2)) T/m`` when ``P < m`` and every stripe
  count is ``<= n2``. Always: JAG-M-HEUR-PROBE <= JAG-M-HEUR, RECT-NICOL <= RECT-UNIFORM,
  HYBRID with a slow phase <= the same HYBRID without, JAG-M-ITER <= JAG-M-HEUR-PROBE.
  HIER-RB and HIER-RELAXED have no proven bound (the paper states none).
* Processor speeds (``speeds=``, beyond the paper): part ``k`` costs ``load_k / speeds[k]``
  and the bottleneck ``max_k load_k / speeds[k]`` is minimised with processors used in the
  given order (stripe by stripe, or the first side of every cut first): stripe ``p``'s parts
  are the processors following those of stripes ``0 .. p-1``, left to right (top to bottom
  for ``orient="ver"``; for ``P x Q`` stripe ``p`` holds processors ``pQ .. pQ+Q-1``), and a
  processor may get an empty part; for HIER-OPT a node holding processors ``[k, k+q)`` is
  cut into ``[k, k+j)`` (top / left side) and ``[k+j, k+q)``. Supported by JAG-PQ-HEUR,
  JAG-PQ-OPT (both engines), JAG-M-HEUR, JAG-M-PROBE, JAG-M-HEUR-PROBE, JAG-M-ALLOC,
  JAG-M-OPT, HIER-RB, HIER-RELAXED and HIER-OPT (not by RECT and HYBRID). JAG-PQ-OPT (the
  ``P x Q`` class), JAG-M-PROBE (given stripes), JAG-M-ALLOC (given counts; an empty
  stripe's processors idle), JAG-M-OPT (the ``m``-way jagged class) and HIER-OPT (the
  hierarchical class) stay exact for that order, with the bottleneck as computed in
  float64; equal speeds ``s`` give the homogeneous optimum divided by ``s`` (JAG-PQ-HEUR:
  the same rectangles); HIER-OPT <= JAG-M-OPT <= JAG-PQ-OPT <= JAG-PQ-HEUR and
  JAG-M-OPT <= JAG-M-HEUR-PROBE <= JAG-M-HEUR still hold (one orientation for the jagged
  ones). The
  Delta bounds above are not proven with speeds (only ``bottleneck >= T / sum(speeds)``).
  Sorting the speeds changes the result.
* 3D loads (``hier_rb`` on an ``n1 x n2 x n3`` array, beyond the paper): valid boxes, no bound.

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

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

import wpart

from .. import _core
from .._progress import progress_hook
from .._validate import as_int, as_loads, as_speeds, choice
from . import instances

__all__ = [
    "METHODS",
    "SpatialPartition",
    "allocate",
    "factor_pair",
    "hier_opt",
    "hier_rb",
    "hier_relaxed",
    "hybrid",
    "instances",
    "jag_m_alloc",
    "jag_m_heur",
    "jag_m_heur_probe",
    "jag_m_iter",
    "jag_m_opt",
    "jag_m_probe",
    "jag_pq_heur",
    "jag_pq_opt_dp",
    "jag_pq_opt_nicol",
    "partition",
    "rect_nicol",
    "rect_uniform",
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
        ``(n1, n2)`` (``(n1, n2, n3)`` for 3D HIER-RB, whose `rects` have 6 columns
        ``(r0, r1, c0, c1, l0, l1)``).
    speeds : ndarray or None
        Relative processor speeds (part ``k`` runs on a processor of speed ``speeds[k]``).
    bottleneck : float
        ``max_k loads[k] / speeds[k]``, the objective with speeds (``max_load`` without).
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
    speeds: NDArray | None = None
    bottleneck: float = 0.0

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
        nd = len(self.shape)
        for k, r in enumerate(self.rects.tolist()):
            sl = tuple(slice(r[2 * d], r[2 * d + 1]) for d in range(nd))
            own[sl] = k
            cnt[sl] += 1
        if not (cnt == 1).all():
            idx = tuple(int(x) for x in np.argwhere(cnt != 1)[0])
            raise ValueError(f"cell {idx} is covered {cnt[idx]} times")
        return own

    def structure(self) -> dict:
        """The partition's structure, derived from the rectangles (spec 7.2), on demand.

        * RECT methods: ``{"row_cuts", "col_cuts"}`` (the grid lines).
        * jagged methods: ``{"main_dim", "stripe_cuts", "counts", "cuts_per_stripe"}``
          (``main_dim`` 0 = stripes of rows).
        * every other 2D result: ``{"tree": [(r0, r1, c0, c1, dim, cut, n_first), ...]}``,
          the guillotine cuts in pre-order, or ``{"tree": None}`` when the rectangles are not a
          guillotine partition (possible only for :func:`general_optimum`).

        Empty rectangles are ignored. Raises ``ValueError`` for 3D results.
        """
        if len(self.shape) != 2:
            raise ValueError("structure() describes 2D partitions only")
        rs = [tuple(r) for r in self.rects.tolist() if r[1] > r[0] and r[3] > r[2]]
        if self.method.startswith("rect"):
            return {
                "row_cuts": sorted({r[0] for r in rs} | {r[1] for r in rs}),
                "col_cuts": sorted({r[2] for r in rs} | {r[3] for r in rs}),
            }
        if self.method.startswith("jag"):
            main = (
                0
                if self.params.get("orient_used", self.params.get("orient")) == "hor"
                else 1
            )
            a, b, c, d = (0, 1, 2, 3) if main == 0 else (2, 3, 0, 1)
            stripes: dict = {}
            for r in rs:
                stripes.setdefault((r[a], r[b]), []).append((r[c], r[d]))
            keys = sorted(stripes)
            return {
                "main_dim": main,
                "stripe_cuts": [0] + [k[1] for k in keys],
                "counts": [len(stripes[k]) for k in keys],
                "cuts_per_stripe": [
                    [0] + sorted(p[1] for p in stripes[k]) for k in keys
                ],
            }
        tree: list = []

        def rec(group: list) -> bool:
            if len(group) <= 1:
                return True
            r0, r1 = min(r[0] for r in group), max(r[1] for r in group)
            c0, c1 = min(r[2] for r in group), max(r[3] for r in group)
            for dim in (0, 1):
                lo, hi = 2 * dim, 2 * dim + 1
                order = sorted(group, key=lambda r: r[lo])
                reach = order[0][hi]
                for k in range(1, len(order)):
                    if (
                        order[k][lo] >= reach
                    ):  # every earlier rectangle ends by this cut
                        cut = order[k][lo]
                        tree.append((r0, r1, c0, c1, dim, cut, k))
                        return rec(order[:k]) and rec(order[k:])
                    reach = max(reach, order[k][hi])
            return False

        return {"tree": tree if rec(rs) else None}

    def validate(self) -> None:
        """Check the partition; raise ``ValueError`` with the reason if it is broken.

        Checks: ``m`` rows of 4 integers inside the matrix with ``r0 <= r1``, ``c0 <= c1``;
        the non-empty rectangles cover every cell exactly once (owner-map paint); every load
        equals the direct sum of ``A`` over the rectangle; ``max_load = max(loads)`` and
        ``max_load >= lower_bound``.
        """
        r = self.rects
        nd = len(self.shape)
        if r.ndim != 2 or r.shape[1] != 2 * nd or r.dtype != np.int64:
            raise ValueError(
                f"rects must be an (m, {2 * nd}) int64 array, got {r.shape} {r.dtype}"
            )
        bad = np.zeros(r.shape[0], dtype=bool)
        for d in range(nd):
            bad |= (r[:, 2 * d] < 0) | (r[:, 2 * d] > r[:, 2 * d + 1])
            bad |= r[:, 2 * d + 1] > self.shape[d]
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"rectangle {k} = {r[k].tolist()} is outside the matrix {self.shape}"
            )
        self.owner_map()
        A = self.A
        for k, rk in enumerate(r.tolist()):
            direct = A[tuple(slice(rk[2 * d], rk[2 * d + 1]) for d in range(nd))].sum()
            if A.dtype.kind == "f":
                ok = abs(direct - self.loads[k]) <= 1e-9 * max(
                    1.0, abs(float(self.total))
                )
            else:
                ok = int(direct) == int(self.loads[k])
            if not ok:
                raise ValueError(
                    f"load of rectangle {k} is {self.loads[k]}, direct sum {direct}"
                )
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
            "speeds": None if self.speeds is None else self.speeds.tolist(),
            "bottleneck": float(self.bottleneck),
        }

    def __repr__(self) -> str:
        return (
            f"SpatialPartition(method={self.method!r}, shape={self.shape}, m={self.m}, "
            f"max_load={self.max_load}, imbalance={self.imbalance:.4f}, "
            f"gap_lb={self.gap_lb:.4f})"
        )

    def plot(
        self,
        ax: Any = None,
        *,
        cmap: str = "viridis",
        edgecolor: str = "white",
        linewidth: float | None = None,
        title: str | None = None,
    ) -> Any:
        """Heatmap of the loads with the rectangles drawn on top (matplotlib).

        Returns the Axes.
        """
        import matplotlib.pyplot as plt
        from matplotlib.collections import PatchCollection
        from matplotlib.patches import Rectangle

        if len(self.shape) != 2:
            raise ValueError("plot() draws 2D partitions only")
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
        ax.add_collection(
            PatchCollection(
                patches, facecolor="none", edgecolor=edgecolor, linewidth=linewidth
            )
        )
        ax.set_xlim(-0.5, self.shape[1] - 0.5)
        ax.set_ylim(self.shape[0] - 0.5, -0.5)
        ax.set_title(
            title or f"{self.method}, m={self.m}, LI={100 * self.imbalance:.2f}%"
        )
        return ax


def _scalar(x: Any) -> Any:
    return x.item() if hasattr(x, "item") else x


# ---------------------------------------------------------------------------------------------
# input handling


class _Prepared:
    """Coerced matrix, its prefix and the validated part count."""

    __slots__ = ("A", "S", "amax", "m", "n1", "n2", "total")

    @property
    def shape(self) -> tuple:
        return self.A.shape

    def __init__(self, A: ArrayLike, m: Any, allow_empty: bool, ndims: tuple = (2,)):
        arr = as_loads(A, "A", ndims)
        self.A = arr
        self.S = _core.prefix_sum(arr, None, "A")
        self.n1, self.n2 = arr.shape[:2]
        self.total = self.S[(-1,) * arr.ndim]
        self.amax = arr.max()
        self.m = as_int(m, "m", minimum=1)
        if self.m > arr.size and not allow_empty:
            raise ValueError(
                f"`m` = {self.m} exceeds the {arr.size} cells of A; pass "
                "allow_empty=True to accept empty rectangles"
            )


def _orient(orient: Any) -> int:
    return _ORIENT.index(
        choice(orient, "orient", _ORIENT, {"rows": "hor", "cols": "ver"})
    )


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
        if (
            m > 3
            and (P == 1 or Q == 1)
            and all(m % k for k in range(2, math.isqrt(m) + 1))
        ):
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
    if P > n1 or Q > n2:
        warnings.warn(
            f"P x Q = {P} x {Q} exceeds the {n1} x {n2} matrix: some rectangles will be empty",
            UserWarning,
            stacklevel=3,
        )
    return P, Q


def _run(
    pp: _Prepared,
    method: str,
    params: dict,
    *,
    progress: Any = None,
    time_limit: float | None = None,
    speeds: Any = None,
    **kw: Any,
) -> SpatialPartition:
    sp = as_speeds(speeds, pp.m)
    if sp is not None:
        kw["speeds"] = sp
        params = dict(params, speeds=True)
    tl = 0.0
    if time_limit is not None:
        tl = float(time_limit)
        if not tl > 0:
            raise ValueError(f"`time_limit` must be positive, got {time_limit}")
    with progress_hook(progress, total=1.0, desc=method) as hook:
        rects, st = _core.spatial_partition(
            pp.S, pp.m, _CODE[method], progress=hook, time_limit=tl, **kw
        )
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
    return _result(pp, rects, method, params, stats, sp)


def _result(
    pp: _Prepared,
    rects: NDArray,
    method: str,
    params: dict,
    stats: dict,
    speeds: NDArray | None = None,
) -> SpatialPartition:
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
    bott = float(lmax) if speeds is None else float((loads / speeds).max())
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
        shape=tuple(pp.A.shape),
        A=pp.A,
        speeds=speeds,
        bottleneck=bott,
    )


# ---------------------------------------------------------------------------------------------
# one function per algorithm

_DOC_COMMON = """
    A : array_like, shape (n1, n2)
        Non-negative loads (integers are exact in int64; floats in float64).
    m : int
        Number of parts (rectangles), ``1 <= m <= n1*n2`` unless ``allow_empty``.
"""


def rect_uniform(
    A: ArrayLike,
    m: int,
    *,
    P: int | None = None,
    Q: int | None = None,
    allow_empty: bool = False,
) -> SpatialPartition:
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


def rect_nicol(
    A: ArrayLike,
    m: int,
    *,
    P: int | None = None,
    Q: int | None = None,
    max_sweeps: int = 100,
    allow_empty: bool = False,
    time_limit: float | None = None,
) -> SpatialPartition:
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
    return _run(
        pp,
        "rect_nicol",
        {"P": P, "Q": Q, "max_sweeps": ms},
        P=P,
        Q=Q,
        max_sweeps=ms,
        time_limit=time_limit,
    )


def jag_pq_heur(
    A: ArrayLike,
    m: int,
    *,
    P: int | None = None,
    Q: int | None = None,
    orient: str = "best",
    allow_empty: bool = False,
    speeds: ArrayLike | None = None,
) -> SpatialPartition:
    """JAG-PQ-HEUR (spec 3.3): optimal ``P`` stripes of the projection, then each stripe cut
    optimally into ``Q`` pieces. Theorem 1: ``Lmax <= (1 + D P/n1)(1 + D Q/n2) T/m`` for
    strictly positive data with ``D = amax/amin``.

    `orient` is ``"hor"`` (stripes of rows), ``"ver"`` (stripes of columns) or ``"best"``
    (both; the smaller ``max_load`` wins, ties to ``"hor"``).

    With `speeds`, stripe ``p`` runs on processors ``pQ .. pQ+Q-1`` (in the given order, its
    parts left to right, or top to bottom for ``"ver"``) and ``max_k loads[k] / speeds[k]``
    is minimised: the stripes are the exact 1D partition of the
    projection for the stripes' total speeds, each stripe then split exactly among its
    processors (no proven bound; equal speeds give the homogeneous rectangles).
    """
    pp = _Prepared(A, m, allow_empty)
    P, Q = _pq(pp.m, pp.n1, pp.n2, P, Q)
    o = _orient(orient)
    return _run(
        pp,
        "jag_pq_heur",
        {"P": P, "Q": Q, "orient": _ORIENT[o]},
        P=P,
        Q=Q,
        orient=o,
        speeds=speeds,
    )


def jag_pq_opt_nicol(
    A: ArrayLike,
    m: int,
    *,
    P: int | None = None,
    Q: int | None = None,
    orient: str = "best",
    allow_empty: bool = False,
    time_limit: float | None = None,
    speeds: ArrayLike | None = None,
) -> SpatialPartition:
    """JAG-PQ-OPT-NICOL (spec 3.4): the optimal ``P x Q``-jagged partition, by Nicol's
    parametric search on the main dimension with the (memoised) nested 1D optimum as cost.

    With `speeds`, stripe ``p`` runs on processors ``pQ .. pQ+Q-1`` (in the given order, its
    parts left to right, or top to bottom for ``"ver"``) and ``max_k loads[k] / speeds[k]``
    is minimised exactly over the ``P x Q`` jagged class in that orientation (both engines
    then run the same bisection on the float64 bottleneck with a greedy over the stripes; an
    empty stripe's processors idle).
    """
    pp = _Prepared(A, m, allow_empty)
    P, Q = _pq(pp.m, pp.n1, pp.n2, P, Q)
    o = _orient(orient)
    return _run(
        pp,
        "jag_pq_opt_nicol",
        {"P": P, "Q": Q, "orient": _ORIENT[o]},
        P=P,
        Q=Q,
        orient=o,
        time_limit=time_limit,
        speeds=speeds,
    )


def jag_pq_opt_dp(
    A: ArrayLike,
    m: int,
    *,
    P: int | None = None,
    Q: int | None = None,
    orient: str = "best",
    allow_empty: bool = False,
    time_limit: float | None = None,
    speeds: ArrayLike | None = None,
) -> SpatialPartition:
    """JAG-PQ-OPT-DP (spec 3.5): the same optimum as :func:`jag_pq_opt_nicol` by dynamic
    programming over the main dimension (crossing-point bisection); a cross-check, slower.

    With `speeds`, stripe ``p`` runs on processors ``pQ .. pQ+Q-1`` (in the given order, its
    parts left to right, or top to bottom for ``"ver"``) and ``max_k loads[k] / speeds[k]``
    is minimised exactly over the ``P x Q`` jagged class in that orientation (both engines
    then run the same bisection on the float64 bottleneck with a greedy over the stripes; an
    empty stripe's processors idle).
    """
    pp = _Prepared(A, m, allow_empty)
    P, Q = _pq(pp.m, pp.n1, pp.n2, P, Q)
    o = _orient(orient)
    return _run(
        pp,
        "jag_pq_opt_dp",
        {"P": P, "Q": Q, "orient": _ORIENT[o]},
        P=P,
        Q=Q,
        orient=o,
        time_limit=time_limit,
        speeds=speeds,
    )


def _stripes_P(pp: _Prepared, P: Any, o: int = 0) -> int:
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
        return max(1, min(pp.m, round(Pstar)))
    Pv = as_int(P, "P", minimum=1)
    nother = (pp.n2, pp.n1, max(pp.n1, pp.n2))[o]
    if Pv * nother < pp.m <= pp.n1 * pp.n2:
        warnings.warn(
            f"P = {Pv} stripes of at most {nother} pieces cannot hold m = {pp.m} non-empty "
            f"rectangles (P >= {-(-pp.m // nother)} would): some will be empty",
            UserWarning,
            stacklevel=3,
        )
    return Pv


def jag_m_heur(
    A: ArrayLike,
    m: int,
    *,
    P: Any = "sqrt",
    orient: str = "best",
    allow_empty: bool = False,
    speeds: ArrayLike | None = None,
) -> SpatialPartition:
    """JAG-M-HEUR (spec 3.7): ``P`` optimal stripes of the projection, parts shared out in
    proportion to the stripe loads (spec 3.6), each stripe cut optimally.

    `P` is ``"sqrt"`` (``floor(sqrt(m))``, the paper's choice), ``"theorem4"`` (the
    minimiser of the Theorem 3 bound; strictly positive data only, else sqrt) or an int.
    It is clamped to ``[ceil(m/n2), min(n1, m)]`` where possible.
    """
    pp = _Prepared(A, m, allow_empty)
    o = _orient(orient)
    Pv = _stripes_P(pp, P, o)
    return _run(
        pp, "jag_m_heur", {"P": P, "orient": _ORIENT[o]}, P=Pv, orient=o, speeds=speeds
    )


def _heur_stripes(
    pp: _Prepared, o: int, allow_empty: bool, speeds: Any
) -> tuple[int, list, list]:
    """Orientation, stripe cuts and per-stripe counts of JAG-M-HEUR (the default stripes of
    JAG-M-PROBE and counts of JAG-M-ALLOC)."""
    h = jag_m_heur(pp.A, pp.m, orient=_ORIENT[o], allow_empty=allow_empty, speeds=speeds)
    oo = _ORIENT.index(h.params["orient_used"])
    cuts, counts = _stripes_of(h.rects, oo, pp.A.shape)
    return oo, cuts, counts


def jag_m_probe(
    A: ArrayLike,
    m: int,
    *,
    stripe_cuts: ArrayLike | None = None,
    orient: str = "hor",
    allow_empty: bool = False,
    speeds: ArrayLike | None = None,
) -> SpatialPartition:
    """JAG-M-PROBE (spec 3.8): the optimal ``m``-way jagged partition for given stripes.

    `stripe_cuts` are ``0 = s_0 <= s_1 <= ... <= s_P = n_main`` along the main dimension
    (rows for ``orient="hor"``, columns for ``"ver"``), with ``P <= m``. By default they are
    the stripes of :func:`jag_m_heur` (as the paper composes JAG-M-HEUR-PROBE; then
    ``orient="best"`` is accepted too; ``params["stripe_cuts"]`` records the cuts used).
    """
    pp = _Prepared(A, m, allow_empty)
    o = _orient(orient)
    if stripe_cuts is None:
        o, stripe_cuts, _ = _heur_stripes(pp, o, allow_empty, speeds)
    elif o == 2:
        raise ValueError("`orient` must be 'hor' or 'ver' when `stripe_cuts` are given")
    cuts = np.asarray(stripe_cuts)
    if cuts.dtype.kind not in "iu" or cuts.ndim != 1 or cuts.size < 2:
        raise ValueError("`stripe_cuts` must be a 1-D integer array of length >= 2")
    cuts = np.ascontiguousarray(cuts, dtype=np.int64)
    nmain = pp.n1 if o == 0 else pp.n2
    if cuts[0] != 0 or cuts[-1] != nmain or (np.diff(cuts) < 0).any():
        raise ValueError(f"`stripe_cuts` must rise from 0 to {nmain}")
    if cuts.size - 1 > pp.m:
        raise ValueError(
            f"`stripe_cuts` define {cuts.size - 1} stripes, more than m = {pp.m}"
        )
    return _run(
        pp,
        "jag_m_probe",
        {"stripe_cuts": cuts.tolist(), "orient": _ORIENT[o]},
        cuts=cuts,
        orient=o,
        speeds=speeds,
    )


def jag_m_heur_probe(
    A: ArrayLike,
    m: int,
    *,
    P: Any = "sqrt",
    orient: str = "best",
    allow_empty: bool = False,
    speeds: ArrayLike | None = None,
) -> SpatialPartition:
    """JAG-M-HEUR-PROBE (spec 3.8): the stripes of :func:`jag_m_heur`, then the optimal
    part counts for them (:func:`jag_m_probe`). Never worse than :func:`jag_m_heur`."""
    pp = _Prepared(A, m, allow_empty)
    o = _orient(orient)
    Pv = _stripes_P(pp, P, o)
    return _run(
        pp,
        "jag_m_heur_probe",
        {"P": P, "orient": _ORIENT[o]},
        P=Pv,
        orient=o,
        speeds=speeds,
    )


def jag_m_alloc(
    A: ArrayLike,
    m: int,
    *,
    counts: ArrayLike | None = None,
    orient: str = "hor",
    allow_empty: bool = False,
    time_limit: float | None = None,
    speeds: ArrayLike | None = None,
) -> SpatialPartition:
    """JAG-M-ALLOC (spec 3.9): optimal stripe boundaries for given per-stripe part counts
    ``counts`` (length ``P``, each >= 1, summing to ``m``), by Nicol's algorithm on the
    heterogeneous nested cost. Empty stripes hand their parts to a neighbour.

    With `speeds`, stripe ``p`` runs on processors ``counts[0] + ... + counts[p-1]`` up to
    ``counts[0] + ... + counts[p] - 1`` (in the given order, left/top part first) and the
    stripe boundaries minimising ``max_k loads[k] / speeds[k]`` are found exactly (bisection
    on the bottleneck with a greedy over stripes); an empty stripe leaves its processors idle
    (empty parts) instead of handing them over.

    By default `counts` are the per-stripe part counts of :func:`jag_m_heur` (the
    proportional allocation of spec 3.6 on its stripes; then ``orient="best"`` is accepted too
    and ``params["counts"]`` records the counts used)."""
    pp = _Prepared(A, m, allow_empty)
    o = _orient(orient)
    if counts is None:
        o, _, counts = _heur_stripes(pp, o, allow_empty, speeds)
    elif o == 2:
        raise ValueError("`orient` must be 'hor' or 'ver' when `counts` are given")
    c = np.asarray(counts)
    if c.dtype.kind not in "iu" or c.ndim != 1 or c.size < 1:
        raise ValueError("`counts` must be a non-empty 1-D integer array")
    c = np.ascontiguousarray(c, dtype=np.int64)
    if (c < 1).any() or int(c.sum()) != pp.m:
        raise ValueError(
            f"`counts` must be >= 1 and sum to m = {pp.m}, got sum {int(c.sum())}"
        )
    return _run(
        pp,
        "jag_m_alloc",
        {"counts": c.tolist(), "orient": _ORIENT[o]},
        cuts=c,
        orient=o,
        time_limit=time_limit,
        speeds=speeds,
    )


def jag_m_opt(
    A: ArrayLike,
    m: int,
    *,
    orient: str = "best",
    allow_empty: bool = False,
    time_limit: float | None = None,
    progress: Any = None,
    speeds: ArrayLike | None = None,
) -> SpatialPartition:
    """JAG-M-OPT (spec 3.10): the optimal ``m``-way jagged partition.

    With `speeds`, processors are used in the given order, stripe by stripe: stripe ``p``
    (top to bottom for rows, left to right for columns) holds the processors following those
    of stripes ``0 .. p-1``, its parts left to right (top to bottom); a processor may get an
    empty part. The partition minimising ``max_k loads[k] / speeds[k]`` over this class is
    found exactly by bisection on the float64 bottleneck with a DP giving the fewest
    processors for every row prefix (``O(n1^2 m log n2)`` per test).

    Bisection on the bottleneck between ``ceil(T/m)`` and the JAG-M-HEUR-PROBE incumbent;
    each test is an exact DP over the last stripe's start giving the fewest parts for every
    row prefix, pruned by load bounds and the monotonicity of the piece counts. The stripes at
    the optimum are completed by :func:`jag_m_probe`. Exact for int64 data (and for float64
    up to the cost model).
    """
    pp = _Prepared(A, m, allow_empty)
    o = _orient(orient)
    return _run(
        pp,
        "jag_m_opt",
        {"orient": _ORIENT[o]},
        orient=o,
        time_limit=time_limit,
        progress=progress,
        speeds=speeds,
    )


def hier_rb(
    A: ArrayLike,
    m: int,
    *,
    variant: str = "load",
    tie: str = "area",
    allow_empty: bool = False,
    speeds: ArrayLike | None = None,
) -> SpatialPartition:
    """HIER-RB (spec 3.11): recursive bisection, ``floor(q/2) | ceil(q/2)`` parts.

    `variant` picks the cut dimension: ``"load"`` (both, keep the better; the paper's default),
    ``"dist"`` (the longer side), ``"hor"``/``"ver"`` (alternate, starting with rows/columns).
    `tie` chooses inside a plateau of equal objective: ``"area"`` (area-proportional) or
    ``"first"``.
    """
    pp = _Prepared(A, m, allow_empty, (2, 3))
    v = choice(variant, "variant", _VARIANT)
    t = choice(tie, "tie", _TIE)
    if pp.A.ndim == 3:
        if v not in ("load", "dist"):
            raise ValueError("`variant` must be 'load' or 'dist' for a 3D `A`")
        if speeds is not None:
            raise ValueError("`speeds` are not supported for a 3D `A`")
        import time

        t0 = time.perf_counter()
        boxes = _core.spatial_hier_rb3d(pp.S, pp.m, _VARIANT.index(v))
        stats = {
            "seconds": time.perf_counter() - t0,
            "iterations": 0,
            "probes": 0,
            "cost_evals": 0,
            "dp_states": 0,
            "converged": True,
        }
        return _result(
            pp, boxes, "hier_rb", {"variant": v, "tie": "first", "ndim": 3}, stats
        )
    return _run(
        pp,
        "hier_rb",
        {"variant": v, "tie": t},
        rule=_VARIANT.index(v),
        tie_first=int(t == "first"),
        speeds=speeds,
    )


def hier_relaxed(
    A: ArrayLike,
    m: int,
    *,
    variant: str = "load",
    tie: str = "area",
    allow_empty: bool = False,
    speeds: ArrayLike | None = None,
) -> SpatialPartition:
    """HIER-RELAXED (spec 3.12): like :func:`hier_rb` but every node also chooses how many
    parts each side gets (minimising ``max(L1/x, L2/(q-x))``); ties prefer balanced counts.
    Zero-load sub-rectangles are split by area."""
    pp = _Prepared(A, m, allow_empty)
    v = choice(variant, "variant", _VARIANT)
    t = choice(tie, "tie", _TIE)
    return _run(
        pp,
        "hier_relaxed",
        {"variant": v, "tie": t},
        rule=_VARIANT.index(v),
        tie_first=int(t == "first"),
        speeds=speeds,
    )


def hier_opt(
    A: ArrayLike,
    m: int,
    *,
    max_states: float = 2e7,
    allow_empty: bool = False,
    time_limit: float | None = None,
    speeds: ArrayLike | None = None,
) -> SpatialPartition:
    """HIER-OPT (spec 3.13): the optimal hierarchical (guillotine) partition, by a memoised DP
    over ``(row interval, column interval, q)``; for small matrices only.

    Raises ``wpart.WpartError`` (limit) when the state count ``n1(n1+1)/2 * n2(n2+1)/2 * m``
    exceeds `max_states`.

    With `speeds`, a node holding processors ``[k, k+q)`` (in the given order; the root holds
    all ``m``) is cut into ``[k, k+j)`` for the top / left side and ``[k+j, k+q)`` for the
    other, or leaves its first or last processor idle (empty part); the partition minimising
    ``max_k loads[k] / speeds[k]`` over this class is found exactly (memo over
    ``(rows, columns, k, q)``, so ``m`` times more states, counted against `max_states`).
    """
    pp = _Prepared(A, m, allow_empty)
    ms = int(max_states)
    if ms < 1:
        raise ValueError(f"`max_states` must be >= 1, got {max_states}")
    return _run(
        pp,
        "hier_opt",
        {"max_states": ms},
        max_states=ms,
        time_limit=time_limit,
        speeds=speeds,
    )


def jag_m_iter(
    A: ArrayLike,
    m: int,
    *,
    orient: str = "best",
    max_rounds: int = 50,
    allow_empty: bool = False,
) -> SpatialPartition:
    """JAG-M-ITER (extension suggested in the paper's section 5, spec 3.9; not a paper method).

    Starting from :func:`jag_m_heur_probe`, alternately re-optimise the part counts for the
    current stripes (:func:`jag_m_probe`) and the stripes for the current counts
    (:func:`jag_m_alloc`) while ``max_load`` strictly decreases (at most `max_rounds`
    rounds). Never worse than JAG-M-HEUR-PROBE in the same orientation; always terminates.
    ``params["extension"]`` is True.
    """
    pp = _Prepared(A, m, allow_empty)
    o = _orient(orient)
    rounds = as_int(max_rounds, "max_rounds", minimum=0)
    best = None
    for oo in (0, 1) if o == 2 else (o,):
        cur = jag_m_heur_probe(pp.A, pp.m, orient=_ORIENT[oo], allow_empty=allow_empty)
        k = 0
        for k in range(rounds):
            cuts, counts = _stripes_of(cur.rects, oo, pp.A.shape)
            nxt = jag_m_alloc(
                pp.A, pp.m, counts=counts, orient=_ORIENT[oo], allow_empty=allow_empty
            )
            cuts, counts = _stripes_of(nxt.rects, oo, pp.A.shape)
            nxt = jag_m_probe(
                pp.A,
                pp.m,
                stripe_cuts=cuts,
                orient=_ORIENT[oo],
                allow_empty=allow_empty,
            )
            if not nxt.max_load < cur.max_load:
                break
            cur = nxt
        if best is None or cur.max_load < best[0].max_load:
            best = (cur, oo, k)
    cur, oo, k = best
    params = {
        "orient": _ORIENT[o],
        "orient_used": _ORIENT[oo],
        "max_rounds": rounds,
        "extension": True,
    }
    stats = dict(cur.stats, iterations=k)
    return _result(pp, cur.rects, "jag_m_iter", params, stats)


def _stripes_of(rects: NDArray, orient: int, shape: tuple) -> tuple[list, list]:
    """Stripe cuts and per-stripe counts of an m-way jagged partition (main dim = orient)."""
    a, b = (0, 1) if orient == 0 else (2, 3)
    nmain = shape[0] if orient == 0 else shape[1]
    spans: dict = {}
    for r in rects.tolist():
        if r[1] > r[0] and r[3] > r[2]:
            spans[(r[a], r[b])] = spans.get((r[a], r[b]), 0) + 1
        else:
            spans.setdefault(None, 0)
            spans[None] += 1
    extra = spans.pop(None, 0)
    keys = sorted(spans)
    cuts = [0] + [k[1] for k in keys]
    counts = [spans[k] for k in keys]
    counts[-1] += extra
    assert cuts[-1] == nmain
    return cuts, counts


def allocate(
    loads: ArrayLike, m: int, cap: ArrayLike | None = None
) -> NDArray[np.int64]:
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


_PHASES = ("jag_m_heur", "jag_m_heur_probe", "jag_m_opt", "hier_rb", "hier_relaxed")


def hybrid(
    A: ArrayLike,
    m: int,
    *,
    phase1: str = "jag_m_heur",
    phase2_fast: str = "jag_m_heur_probe",
    phase2_slow: str | None = "jag_m_opt",
    m1: int | None = None,
    m1_min: int | None = None,
    orient: str = "best",
    variant: str = "load",
    allow_empty: bool = False,
    time_limit: float | None = None,
) -> SpatialPartition:
    """HYBRID (spec 4): a fast phase-1 partition into ``m1 < m`` blocks, parts shared out in
    proportion to block loads (capped by area), then each block partitioned by `phase2_fast`;
    with `phase2_slow` (HYBRID-F), the most loaded block is re-partitioned by the slow
    algorithm while that lowers its maximum. Runs in the C core.

    Parameters
    ----------
    phase1, phase2_fast, phase2_slow : str
        Each one of ``"jag_m_heur"``, ``"jag_m_heur_probe"``, ``"jag_m_opt"``, ``"hier_rb"``,
        ``"hier_relaxed"``; ``phase2_slow=None`` runs only the fast phase 2 (plain HYBRID).
    m1 : int, optional
        Phase-1 part count. By default the candidate with the lowest expected imbalance
        ``ELI = max_k (L_k/m_k)/(T/m) - 1`` (ties: larger ``m1``) among ``(k+1)^2 - 1`` in
        ``[m1_min, m-1]`` (every ``m1`` in ``[m1_min, 4 m1_min]`` for a hierarchical phase 1).
    m1_min : int, optional
        Default ``max(2, ceil(m/64))``; larger is faster and usually worse.
    orient, variant : str
        Passed to the jagged / hierarchical phases.

    ``params["m1"]`` and ``params["eli"]`` report the choice; ``stats["iterations"]`` counts
    the slow re-partitions.
    """
    pp = _Prepared(A, m, allow_empty)
    p1 = choice(phase1, "phase1", _PHASES)
    pf = choice(phase2_fast, "phase2_fast", _PHASES)
    ps = None if phase2_slow is None else choice(phase2_slow, "phase2_slow", _PHASES)
    o = _orient(orient)
    v = choice(variant, "variant", _VARIANT)
    m1v = 0 if m1 is None else as_int(m1, "m1", minimum=1)
    if m1v > pp.m:
        raise ValueError(f"`m1` = {m1v} must not exceed m = {pp.m}")
    m1m = 0 if m1_min is None else as_int(m1_min, "m1_min", minimum=1)
    tl = 0.0
    if time_limit is not None:
        tl = float(time_limit)
        if not tl > 0:
            raise ValueError(f"`time_limit` must be positive, got {time_limit}")
    rects, st = _core.spatial_partition(
        pp.S,
        pp.m,
        13,
        orient=o,
        rule=_VARIANT.index(v),
        phase1=_CODE[p1],
        fast=_CODE[pf],
        slow=-1 if ps is None else _CODE[ps],
        m1=m1v,
        m1_min=m1m,
        time_limit=tl,
    )
    stats = {
        "seconds": st[0],
        "iterations": st[1],
        "probes": st[2],
        "cost_evals": st[3],
        "dp_states": st[4],
        "converged": True,
    }
    params = {
        "phase1": p1,
        "phase2_fast": pf,
        "phase2_slow": ps,
        "m1": int(st[7]),
        "eli": float(st[8]),
        "orient": _ORIENT[o],
        "variant": v,
    }
    return _result(pp, rects, "hybrid", params, stats)


def general_optimum(
    A: ArrayLike, m: int, *, time_limit: float | None = 60.0, allow_empty: bool = False
) -> SpatialPartition:
    """Optimal partition into at most `m` arbitrary rectangles (no structure), by a MILP solved
    with GLPK (spec 6 item 12); tiny matrices only (the model has one binary per
    sub-rectangle, ``n1(n1+1)/2 * n2(n2+1)/2``; refused above 2,000).

    Model: binary ``x_R`` for every sub-rectangle ``R``, continuous ``Z``; every cell covered
    exactly once, ``sum x_R <= m``, ``load(R) x_R <= Z``; minimise ``Z``. Unused parts become
    empty rectangles. ``params["status"]`` is GLPK's outcome (``"optimal"`` unless the time
    limit stopped it).
    """
    from .. import milp

    pp = _Prepared(A, m, allow_empty)
    n1, n2 = pp.n1, pp.n2
    rs = [
        (a, b, c, d)
        for a in range(n1)
        for b in range(a + 1, n1 + 1)
        for c in range(n2)
        for d in range(c + 1, n2 + 1)
    ]
    if len(rs) > 2000:
        raise ValueError(
            f"the MILP would have {len(rs)} rectangle variables (> 2000): "
            "use a smaller matrix"
        )
    nv = len(rs) + 1
    rects_arr = np.array(rs, dtype=np.int64)
    loads = _core.box_loads(pp.S, rects_arr).astype(float)
    rows, cols, vals = [], [], []
    ncell = n1 * n2
    for k, (a, b, c, d) in enumerate(rs):
        for i in range(a, b):
            for j in range(c, d):
                rows.append(i * n2 + j)
                cols.append(k)
                vals.append(1.0)
        rows.append(ncell)  # count
        cols.append(k)
        vals.append(1.0)
        rows.append(ncell + 1 + k)  # load(R) x_R - Z <= 0
        cols.append(k)
        vals.append(loads[k])
        rows.append(ncell + 1 + k)
        cols.append(nv - 1)
        vals.append(-1.0)
    nrow = ncell + 1 + len(rs)
    blo = np.concatenate([np.ones(ncell), [-np.inf], np.full(len(rs), -np.inf)])
    bup = np.concatenate([np.ones(ncell), [float(pp.m)], np.zeros(len(rs))])
    c = np.zeros(nv)
    c[-1] = 1.0
    integ = np.concatenate([np.full(len(rs), 2, dtype=np.int8), [0]])
    res = milp.solve(
        c,
        A=(np.array(rows), np.array(cols), np.array(vals), (nrow, nv)),
        b_lower=blo,
        b_upper=bup,
        integrality=integ,
        time_limit=time_limit,
    )
    if res.status not in ("optimal", "feasible"):
        raise wpart.WpartError(f"the MILP found no solution: {res.status}")
    chosen = [rs[k] for k in range(len(rs)) if res.x[k] > 0.5]
    out = np.zeros((pp.m, 4), dtype=np.int64)
    out[: len(chosen)] = chosen
    stats = {
        "seconds": res.seconds,
        "iterations": int(res.nodes),
        "probes": 0,
        "cost_evals": 0,
        "dp_states": 0,
        "converged": res.status == "optimal",
    }
    return _result(pp, out, "general_milp", {"status": res.status}, stats)


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


def partition(
    A: ArrayLike, m: int, method: str = "jag_m_heur_probe", **options: Any
) -> SpatialPartition:
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
