"""Hierarchical (guillotine) partitions: HIER-RB, HIER-RELAXED and HIER-OPT (Sec. 3.3 of Saule
et al. 2012)."""

from __future__ import annotations

import time

from numpy.typing import ArrayLike

from .. import _core
from .._errors import WpartValueError
from .._validate import as_float, choice
from ._common import _RULE, _TIE, _VARIANT, _Prepared, _result, _run
from ._partition import SpatialPartition

__all__ = ["hier_opt", "hier_rb", "hier_relaxed"]


def hier_rb(
    A: ArrayLike,
    m: int,
    *,
    variant: str = "load",
    tie: str = "area",
    allow_empty: bool = False,
    speeds: ArrayLike | None = None,
    weights: str = "values",
) -> SpatialPartition:
    """HIER-RB (Sec. 3.3 of Saule et al. 2012; Berger and Bokhari's recursive bisection):
    ``floor(q/2) | ceil(q/2)`` parts on the two sides of each cut.

    `variant` picks the cut dimension: ``"load"`` (both, keep the better; the paper's default),
    ``"dist"`` (the longer side), ``"hor"``/``"ver"`` (alternate, starting with rows/columns).
    `tie` chooses inside a plateau of equal objective: ``"area"`` (area-proportional) or
    ``"first"``.

    `A` may be a dense array, a ``scipy.sparse`` matrix or a MatrixMarket file path; this
    method needs the dense 2D prefix sum, so a sparse `A` is densified (``WpartMemoryError``
    above ``wpart.spatial.MAX_DENSE_BYTES``). `weights` is ``"values"`` (the matrix values are
    the loads) or ``"count"`` (1 for every nonzero, whatever its sign).
    """
    pp = _Prepared(A, m, allow_empty, (2, 3), weights=weights, method="hier_rb")
    v = choice(variant, "variant", _VARIANT)
    t = choice(tie, "tie", _TIE)
    if pp.A.ndim == 3:
        if v not in ("load", "dist"):
            raise WpartValueError("`variant` must be 'load' or 'dist' for a 3D `A`")
        if speeds is not None:
            raise WpartValueError("`speeds` are not supported for a 3D `A`")
        t0 = time.perf_counter()
        boxes = _core.spatial_hier_rb3d(pp.S, pp.m, _RULE[v])
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
        rule=_RULE[v],
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
    weights: str = "values",
) -> SpatialPartition:
    """HIER-RELAXED (Sec. 3.3 of Saule et al. 2012): like :func:`hier_rb` but every node also
    chooses how many parts each side gets (minimising ``max(L1/x, L2/(q-x))``); ties prefer
    balanced counts.
    Zero-load sub-rectangles are split by area.

    `A` may be a dense array, a ``scipy.sparse`` matrix or a MatrixMarket file path; this
    method needs the dense 2D prefix sum, so a sparse `A` is densified (``WpartMemoryError``
    above ``wpart.spatial.MAX_DENSE_BYTES``). `weights` is ``"values"`` (the matrix values are
    the loads) or ``"count"`` (1 for every nonzero, whatever its sign).
    """
    pp = _Prepared(A, m, allow_empty, weights=weights, method="hier_relaxed")
    v = choice(variant, "variant", _VARIANT)
    t = choice(tie, "tie", _TIE)
    return _run(
        pp,
        "hier_relaxed",
        {"variant": v, "tie": t},
        rule=_RULE[v],
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
    weights: str = "values",
) -> SpatialPartition:
    """HIER-OPT (Sec. 3.3 of Saule et al. 2012): the optimal hierarchical (guillotine)
    partition, by a memoised DP over ``(row interval, column interval, q)``; for small
    matrices only.

    Raises ``wpart.WpartError`` (limit) when the state count ``n1(n1+1)/2 * n2(n2+1)/2 * m``
    exceeds `max_states`. A `time_limit` (seconds) reached returns a result with
    ``status="time_limit"`` and no partition (``success`` False): the DP has no incumbent.

    With `speeds`, a node holding processors ``[k, k+q)`` (in the given order; the root holds
    all ``m``) is cut into ``[k, k+j)`` for the top / left side and ``[k+j, k+q)`` for the
    other, or leaves its first or last processor idle (empty part); the partition minimising
    ``max_k loads[k] / speeds[k]`` over this class is found exactly (memo over
    ``(rows, columns, k, q)``, so ``m`` times more states, counted against `max_states`).

    `A` may be a dense array, a ``scipy.sparse`` matrix or a MatrixMarket file path; this
    method needs the dense 2D prefix sum, so a sparse `A` is densified (``WpartMemoryError``
    above ``wpart.spatial.MAX_DENSE_BYTES``). `weights` is ``"values"`` (the matrix values are
    the loads) or ``"count"`` (1 for every nonzero, whatever its sign).
    """
    pp = _Prepared(A, m, allow_empty, weights=weights, method="hier_opt")
    msf = as_float(max_states, "max_states", minimum=1.0, allow_inf=True)
    ms = int(min(msf, 2.0**62))
    return _run(
        pp,
        "hier_opt",
        {"max_states": ms},
        max_states=ms,
        time_limit=time_limit,
        speeds=speeds,
    )
