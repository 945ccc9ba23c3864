"""Rectilinear ``P x Q`` grids: RECT-UNIFORM and RECT-NICOL (Sec. 3.1 of Saule et al. 2012)."""

from __future__ import annotations

from numpy.typing import ArrayLike

from .._validate import as_int
from ._common import _pq, _Prepared, _run
from ._partition import SpatialPartition

__all__ = ["rect_nicol", "rect_uniform"]


def rect_uniform(
    A: ArrayLike,
    m: int,
    *,
    P: int | None = None,
    Q: int | None = None,
    allow_empty: bool = False,
) -> SpatialPartition:
    """RECT-UNIFORM (Sec. 3.1 of Saule et al. 2012): a ``P x Q`` grid with equal-area rows
    and columns.

    Parameters
    ----------
    A, m
        Loads and number of parts.
    P, Q : int, optional
        Grid shape with ``P * Q = m``; by default the factor pair closest to
        ``sqrt(m n1 / n2)`` (Theorem 2; a ``UserWarning`` is issued for prime ``m``).
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
    """RECT-NICOL (Sec. 3.1 of Saule et al. 2012): iterative refinement of a ``P x Q`` grid.

    Starting from uniform rows, the column cuts and then the row cuts are set optimally for
    the other dimension's fixed cuts (exact 1D Nicol on the max-over-stripes cost), until a
    sweep reproduces a state already seen or `max_sweeps` is reached. ``max_load`` never
    exceeds RECT-UNIFORM's. ``stats["iterations"]`` counts sweeps and
    ``stats["converged"]`` tells whether a fixed point (or cycle) was reached. A
    `time_limit` (seconds) reached between sweeps returns the current grid with
    ``status="time_limit"``.
    """
    pp = _Prepared(A, m, allow_empty)
    P, Q = _pq(pp.m, pp.n1, pp.n2, P, Q)
    ms = min(as_int(max_sweeps, "max_sweeps", minimum=1), 2**62)  # stays in int64
    return _run(
        pp,
        "rect_nicol",
        {"P": P, "Q": Q, "max_sweeps": ms},
        P=P,
        Q=Q,
        max_sweeps=ms,
        time_limit=time_limit,
    )
