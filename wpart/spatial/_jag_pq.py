"""``P x Q`` jagged partitions: JAG-PQ-HEUR, JAG-PQ-OPT-NICOL and JAG-PQ-OPT-DP (Sec. 3.2.1 of
Saule et al. 2012)."""

from __future__ import annotations

from numpy.typing import ArrayLike

from ._common import _ORIENT_NAME, _orient, _pq, _Prepared, _run
from ._partition import SpatialPartition

__all__ = ["jag_pq_heur", "jag_pq_opt_dp", "jag_pq_opt_nicol"]


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
    """JAG-PQ-HEUR (Sec. 3.2.1 of Saule et al. 2012): optimal ``P`` stripes of the
    projection, then each stripe cut optimally into ``Q`` pieces. Theorem 1:
    ``Lmax <= (1 + D P/n1)(1 + D Q/n2) T/m`` for strictly positive data with
    ``D = amax/amin``.

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
        {"P": P, "Q": Q, "orient": _ORIENT_NAME[o]},
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
    """JAG-PQ-OPT-NICOL (Sec. 3.2.1 of Saule et al. 2012): the optimal ``P x Q``-jagged
    partition, by Nicol's parametric search on the main dimension with the (memoised) nested
    1D optimum as cost. A `time_limit` (seconds) reached returns ``status="time_limit"``
    (the rows-first answer when ``orient="best"`` had finished it, else no partition).

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
        {"P": P, "Q": Q, "orient": _ORIENT_NAME[o]},
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
    """JAG-PQ-OPT-DP (Sec. 3.2.1 of Saule et al. 2012): the same optimum as
    :func:`jag_pq_opt_nicol` by dynamic programming over the main dimension (crossing-point
    bisection); a cross-check, slower. `time_limit` as for :func:`jag_pq_opt_nicol`.

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
        {"P": P, "Q": Q, "orient": _ORIENT_NAME[o]},
        P=P,
        Q=Q,
        orient=o,
        time_limit=time_limit,
        speeds=speeds,
    )
