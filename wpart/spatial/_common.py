"""Shared machinery of the spatial methods: method names, input validation (matrix, ``m``,
orientation, grid shape, stripe count), the call into the C core and the result assembly."""

from __future__ import annotations
from .._errors import WpartOverflowError, WpartTypeError, WpartValueError

import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _core
from .._progress import progress_hook
from .._validate import as_int, as_loads, as_parts, as_speeds, check_speed_costs, choice
from ._partition import SpatialPartition, _scalar

__all__ = ["METHODS", "factor_pair"]

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


# ---------------------------------------------------------------------------------------------
# input handling


def as_flag(x: Any, name: str) -> bool:
    """A boolean option (Python or NumPy bool)."""
    if not isinstance(x, (bool, np.bool_)):
        raise WpartTypeError(f"`{name}` must be True or False, got {type(x).__name__}")
    return bool(x)


def as_real(x: Any, name: str) -> float:
    """A real scalar (int or float, not bool or str)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise WpartTypeError(f"`{name}` must be a number, got {type(x).__name__}")
    return float(x)


def as_time_limit(x: Any, name: str = "time_limit") -> float:
    """Seconds (> 0) or None; 0.0 means no limit for the core."""
    if x is None:
        return 0.0
    tl = as_real(x, name)
    if not tl > 0:
        raise WpartValueError(f"`{name}` must be positive, got {x}")
    return tl


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
        self.m = as_parts(m, arr.size)
        if not as_flag(allow_empty, "allow_empty") and self.m > arr.size:
            raise WpartValueError(
                f"`m` = {self.m} exceeds the {arr.size} cells of A; pass "
                "allow_empty=True to accept empty rectangles"
            )


def _orient(orient: Any) -> int:
    return _ORIENT.index(
        choice(orient, "orient", _ORIENT, {"rows": "hor", "cols": "ver"})
    )


def _divisors(m: int) -> list[int]:
    """The divisors of ``m >= 1`` in increasing order (O(sqrt(m)))."""
    small, large = [], []
    for d in range(1, math.isqrt(m) + 1):
        if m % d == 0:
            small.append(d)
            if d != m // d:
                large.append(m // d)
    return small + large[::-1]


def factor_pair(m: int, n1: int, n2: int) -> tuple[int, int]:
    """The factor pair ``P x Q = m`` closest to ``P = sqrt(m n1 / n2)`` (Theorem 2).

    Ties go to the smaller ``P``. The divisors are found by trial division up to
    ``sqrt(m)``, so `m` is limited to ``2**44`` (an ``OverflowError`` above).
    """
    m = as_int(m, "m", minimum=1)
    if m > 2**44:
        raise WpartOverflowError(f"`m` = {m} is too large for the factor search (at most 2**44)")
    n1 = as_int(n1, "n1", minimum=1)
    n2 = as_int(n2, "n2", minimum=1)
    target = math.sqrt(m * n1 / n2)
    best = None
    for P in _divisors(m):
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
            and len(_divisors(m)) == 2
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
            raise WpartValueError(f"`P` = {P} does not divide m = {m}")
        Q = m // P
    if P is None:
        if m % Q:
            raise WpartValueError(f"`Q` = {Q} does not divide m = {m}")
        P = m // Q
    if P * Q != m:
        raise WpartValueError(f"`P` x `Q` must equal m = {m}, got {P} x {Q}")
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
    check_speed_costs(pp.total, sp)
    if sp is not None:
        kw["speeds"] = sp
        params = dict(params, speeds=True)
    tl = as_time_limit(time_limit)
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


def _stripes_P(pp: _Prepared, P: Any, o: int = 0) -> int:
    if P is None or (isinstance(P, str) and P == "sqrt"):
        return 0
    if isinstance(P, str):
        if P != "theorem4":
            raise WpartValueError(f"`P` must be 'sqrt', 'theorem4' or an integer, got {P!r}")
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
    return min(Pv, pp.m)  # the core clamps P to <= m anyway; keeps it in int64


def _stripes_of(rects: NDArray, orient: int, shape: tuple) -> tuple[list, list]:
    """Stripe cuts and per-stripe counts of an m-way jagged partition (main dim = orient);
    empty rectangles count for the last stripe."""
    a, b = (0, 1) if orient == 0 else (2, 3)
    nmain = shape[0] if orient == 0 else shape[1]
    r = np.asarray(rects, dtype=np.int64).reshape(-1, 4)
    full = (r[:, 1] > r[:, 0]) & (r[:, 3] > r[:, 2])
    extra = int(r.shape[0] - full.sum())
    keys, counts = np.unique(r[full, a] * (nmain + 1) + r[full, b], return_counts=True)
    cuts = [0] + (keys % (nmain + 1)).tolist()
    counts = counts.tolist()
    counts[-1] += extra
    assert cuts[-1] == nmain
    return cuts, counts
