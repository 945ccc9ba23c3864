"""``P x Q`` jagged partitions: JAG-PQ-HEUR, JAG-PQ-OPT-NICOL and JAG-PQ-OPT-DP (Sec. 3.2.1 of
Saule et al. 2012)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._docs import fill_doc
from ._common import _ORIENT_NAME, _orient, _pq, _Prepared, named_method, run_method, with_progress
from ._partition import SpatialPartition
from ._starts import START_CODE, as_starts, run_starts

#: JAG-PQ-HEUR's starts in the order tried (ties: the earlier, so rows before columns).
_HEUR_STARTS = ("rows_load", "rows_uniform", "cols_load", "cols_uniform")

__all__ = ["jag_pq_heur", "jag_pq_opt_dp", "jag_pq_opt_nicol"]


@fill_doc
def jag_pq_heur(A: ArrayLike, m: int, *, P: int | None = None, Q: int | None = None,
                orient: str = "best", starts: str | tuple = "all", allow_empty: bool = False,
                time_limit: float | None = None, progress: Any = None,
                speeds: ArrayLike | None = None, weights: str = "values") -> SpatialPartition:
    """JAG-PQ-HEUR (Sec. 3.2.1 of Saule et al. 2012): optimal ``P`` stripes of the
    projection, then each stripe cut optimally into ``Q`` pieces. Theorem 1:
    ``Lmax <= (1 + D P/n1)(1 + D Q/n2) T/m`` for strictly positive data with
    ``D = amax/amin``.

    Parameters
    ----------
    A, m
        Loads (a dense 2D array, a ``scipy.sparse`` matrix of any format, or a MatrixMarket file
        path) and number of parts. Without `speeds` (or with equal ones) a sparse matrix (more
        than 2**15 cells, at most 1/32 of them nonzero) is not densified: O(nnz + P n2) per
        start, and the partition is the one the dense array gives. Other methods densify.
    P, Q : int, optional
        Stripes and pieces per stripe, ``P * Q = m`` (default as :func:`rect_uniform`).
    orient : {"best", "hor", "ver"}
        ``"hor"`` (stripes of rows), ``"ver"`` (stripes of columns) or ``"best"`` (both).
    starts : "all", str or tuple of str
        The stripes: ``"rows_load"`` (the paper's: the exact 1D partition of the row sums),
        ``"rows_uniform"`` (equal-height stripes), and ``"cols_load"``, ``"cols_uniform"``
        (the same for stripes of columns). `orient` keeps those of its orientation;
        ``"all"`` (default) runs every one kept and returns the smallest ``max_load`` (ties
        in the order rows_load, rows_uniform, cols_load, cols_uniform), never worse than
        the paper's heuristic.
    allow_empty : bool
        Accept ``m`` larger than the number of cells.
    time_limit : float, optional
        Seconds for the whole call: a start it stops ends the call with the best partition
        found and ``status="time_limit"`` (the first start always runs).
    progress : bool or callable, optional
        A tqdm bar, or ``progress(done, total)`` (returning False raises
        :class:`wpart.CancelledError`); reaches its total when the call ends.
    speeds : array_like, optional
        Stripe ``p`` runs on processors ``pQ .. pQ+Q-1`` (in the given order, its parts left
        to right, or top to bottom for ``"ver"``) and ``max_k loads[k] / speeds[k]`` is
        minimised: the stripes are the exact 1D partition of the projection for the
        stripes' total speeds, each stripe then split exactly among its processors (no
        proven bound; equal speeds give the homogeneous rectangles).
    {weights}

    Returns
    -------
    SpatialPartition
        ``params["orient_used"]`` is the winner's orientation, ``stats["start"]`` its start
        and ``stats["starts"]`` each start's ``max_load``, ``seconds`` and ``status``.

    {raises}
    """
    # equal speeds give the homogeneous rectangles: they run on the nonzeros too
    same = speeds is None
    if not same and isinstance(speeds, (list, tuple, np.ndarray)):
        sv = np.asarray(speeds)
        same = sv.ndim == 1 and sv.size > 0 and sv.dtype.kind in "iuf" and bool((sv == sv[0]).all())
    pp = _Prepared(A, m, allow_empty, weights=weights, sparse=same)
    P, Q = _pq(pp.m, pp.n1, pp.n2, P, Q)
    o = _orient(orient)
    oname = _ORIENT_NAME[o]
    allowed = tuple(s for s in _HEUR_STARTS if oname == "best" or START_CODE[s][0] == oname)
    names = as_starts(starts, _HEUR_STARTS, allowed)
    params = {"P": P, "Q": Q, "orient": oname, "starts": names}
    return with_progress(progress, "jag_pq_heur", lambda: run_starts(
        pp, "jag_pq_heur", params, names, P=P, Q=Q, speeds=speeds, time_limit=time_limit))


def heuristic_incumbent(res: SpatialPartition, heur: Any, name: str, **kw: Any
                        ) -> SpatialPartition:
    """`res` of an exact search stopped by its time limit, with the partition of the heuristic
    that starts it (``heur(res.A, res.m, **kw)``, run without a limit: a few passes over the
    loads) when the search had none or a worse one (``params["incumbent"] = name``)."""
    if res.status != "time_limit":
        return res
    h = heur(res.A, res.m, **kw)
    if not h.success or (res.success and not h.max_load < res.max_load):
        return res
    params = dict(res.params, incumbent=name)
    for key in ("orient_used", "P_used", "counts"):
        if key in h.params:
            params[key] = h.params[key]
    return dataclasses.replace(
        res, rects=h.rects, loads=h.loads, max_load=h.max_load, imbalance=h.imbalance,
        params=params,
        message=f"the time limit was reached; the best partition found ({name}'s, the "
                "search's start) is returned")


def _grid_setup(P: Any, Q: Any, orient: Any) -> Any:
    """The params and core options of a ``P x Q`` method (:func:`run_method`'s `setup`)."""

    def setup(pp: _Prepared) -> tuple[dict, dict]:
        P2, Q2 = _pq(pp.m, pp.n1, pp.n2, P, Q, stacklevel=5)
        o = _orient(orient)
        return {"P": P2, "Q": Q2, "orient": _ORIENT_NAME[o]}, {"P": P2, "Q": Q2, "orient": o}

    return setup


def _pq_optimum(name: str, doc: str) -> Callable[..., SpatialPartition]:
    """JAG-PQ-OPT-NICOL or JAG-PQ-OPT-DP (the core's method `name`): the same options, the
    same ``P x Q`` grid (:func:`_grid_setup`), the same run and time-limit fallback to
    :func:`jag_pq_heur`; `doc` is its docstring."""

    def method(A: ArrayLike, m: int, *, P: int | None = None, Q: int | None = None,
               orient: str = "best", allow_empty: bool = False, time_limit: float | None = None,
               progress: Any = None, speeds: ArrayLike | None = None,
               weights: str = "values") -> SpatialPartition:
        res = run_method(name, A, m, _grid_setup(P, Q, orient), allow_empty=allow_empty,
                         weights=weights, speeds=speeds, time_limit=time_limit,
                         progress=progress)
        return heuristic_incumbent(res, jag_pq_heur, "jag_pq_heur", P=res.params["P"],
                                   Q=res.params["Q"], orient=orient, allow_empty=allow_empty,
                                   speeds=speeds)

    return named_method(method, name, doc)


jag_pq_opt_nicol = _pq_optimum(
    "jag_pq_opt_nicol",
    """JAG-PQ-OPT-NICOL (Sec. 3.2.1 of Saule et al. 2012): the optimal ``P x Q``-jagged
    partition, by Nicol's parametric search on the main dimension with the (memoised) nested
    1D optimum as cost. A `time_limit` (seconds) reached returns
    ``status="time_limit"`` with the best partition found: the rows-first answer when
    ``orient="best"`` had finished it or, when better or there is none, that of
    :func:`jag_pq_heur` (same ``P``, ``Q``, `orient`; run after the search, without a limit;
    ``params["incumbent"] == "jag_pq_heur"``).

    {pq_notes}

    Parameters
    ----------
    {A m P Q orient allow_empty time_limit progress speeds weights returns_spatial raises}
    """)


jag_pq_opt_dp = _pq_optimum(
    "jag_pq_opt_dp",
    """JAG-PQ-OPT-DP (Sec. 3.2.1 of Saule et al. 2012): the same optimum as
    :func:`jag_pq_opt_nicol` by dynamic programming over the main dimension (crossing-point
    bisection); a cross-check, slower. `time_limit` as for :func:`jag_pq_opt_nicol`.

    {pq_notes}

    Parameters
    ----------
    {A m P Q orient allow_empty time_limit progress speeds weights returns_spatial raises}
    """)
