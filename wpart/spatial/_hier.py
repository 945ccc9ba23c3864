"""Hierarchical (guillotine) partitions: HIER-RB, HIER-RELAXED and HIER-OPT (Sec. 3.3 of Saule
et al. 2012)."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from numpy.typing import ArrayLike

from .. import _core
from .._docs import fill_doc
from .._errors import WpartValueError
from .._validate import as_float, as_time_limit, choice
from ._common import (_RULE, _TIE, _VARIANT_BEST, _Prepared, _result, _run, run_method,
                      with_progress)
from ._partition import SpatialPartition

__all__ = ["hier_opt", "hier_rb", "hier_relaxed"]


def hier_rb(A: ArrayLike, m: int, *, variant: str = "best", tie: str = "area",
            allow_empty: bool = False, time_limit: float | None = None, progress: Any = None,
            speeds: ArrayLike | None = None, weights: str = "values") -> SpatialPartition:
    """HIER-RB (Sec. 3.3 of Saule et al. 2012; Berger and Bokhari's recursive bisection):
    ``floor(q/2) | ceil(q/2)`` parts on the two sides of each cut.

    Parameters
    ----------
    A : array_like, scipy.sparse matrix or path
        Loads, 2-D or 3-D (a dense array, a ``scipy.sparse`` matrix or a MatrixMarket file
        path). This method needs the dense prefix sum, so a sparse `A` is densified
        (``WpartMemoryError`` above ``wpart.spatial.MAX_DENSE_BYTES``).
    m : int
        Number of parts.
    variant : {"best", "load", "dist", "hor", "ver"}
        The cut dimension: ``"load"`` (at each node both dimensions, keep the better; the
        paper's rule), ``"dist"`` (the longer side), ``"hor"``/``"ver"`` (alternate, starting
        with rows/columns), or ``"best"`` (default): the whole bisection with ``"load"`` and
        with ``"dist"``, the smaller ``max_load`` kept (ties: ``"load"``), so the default is
        never worse than either rule; ``params["variant_used"]`` names the winner.
    tie : {"area", "first"}
        Inside a plateau of equal objective: area-proportional, or the first cut.
    allow_empty : bool
        Accept ``m`` larger than the number of cells.
    time_limit : float, optional
        Seconds for the whole call; the bisections are single passes, not stopped inside
        (``"best"`` skips the ``"dist"`` pass once the limit is reached).
    progress : bool or callable, optional
        A tqdm bar, or ``progress(done, total)`` (returning False raises
        :class:`wpart.CancelledError`).
    speeds : array_like, optional
        Relative processor speeds (2-D only).
    weights : {"values", "count", "stored"}
        The matrix values, 1 per nonzero value, or 1 per stored entry.

    Returns
    -------
    SpatialPartition
        ``status="feasible"`` (no proven bound).

    Raises
    ------
    WpartValueError
        A bad argument (named in the message).
    """
    pp = _Prepared(A, m, allow_empty, (2, 3), weights=weights, method="hier_rb")
    return _bisections(pp, "hier_rb", variant, tie, time_limit, progress, speeds)


def _bisections(pp: _Prepared, method: str, variant: Any, tie: Any, time_limit: Any,
                progress: Any, speeds: Any) -> SpatialPartition:
    """HIER-RB or HIER-RELAXED (`method`) on the prepared input with the cut rule `variant`,
    or with ``"best"`` both whole bisections (``"load"`` and ``"dist"``), the better kept."""
    v = choice(variant, "variant", _VARIANT_BEST)
    t = choice(tie, "tie", _TIE)
    tl = as_time_limit(time_limit)

    def one(r: str) -> SpatialPartition:
        if pp.A.ndim == 3:
            return _hier_rb3d(pp, r, speeds)
        return _run(pp, method, {"variant": r, "tie": t}, rule=_RULE[r],
                    tie_first=int(t == "first"), speeds=speeds, time_limit=tl)

    if v == "best":
        return with_progress(progress, method, lambda: _best_of(
            [lambda r=r: one(r) for r in ("load", "dist")], tl, v))
    return with_progress(progress, method, lambda: one(v))


def _best_of(runs: list, tl: float | None, variant: str) -> SpatialPartition:
    """The first run's result, replaced by each later one with a strictly smaller
    ``max_load`` (later runs skipped once `tl` seconds have passed);
    ``params["variant_used"]`` records the winner's rule."""
    t0 = time.perf_counter()
    best = None
    for run in runs:
        if best is not None and tl is not None and time.perf_counter() - t0 >= tl:
            break
        r = run()
        if best is None or (r.success and (not best.success or r.max_load < best.max_load)):
            best = r
    params = dict(best.params, variant=variant, variant_used=best.params["variant"])
    return dataclasses.replace(best, params=params)


def _hier_rb3d(pp: _Prepared, v: str, speeds: Any) -> SpatialPartition:
    """HIER-RB on a 3D `A` (rule "load" or "dist", no speeds)."""
    if v not in ("load", "dist"):
        raise WpartValueError("`variant` must be 'best', 'load' or 'dist' for a 3D `A`")
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
    return _result(pp, boxes, "hier_rb", {"variant": v, "tie": "first", "ndim": 3}, stats)


@fill_doc
def hier_relaxed(A: ArrayLike, m: int, *, variant: str = "load", tie: str = "area",
                 allow_empty: bool = False, time_limit: float | None = None, progress: Any = None,
                 speeds: ArrayLike | None = None, weights: str = "values") -> SpatialPartition:
    """HIER-RELAXED (Sec. 3.3 of Saule et al. 2012): like :func:`hier_rb` but every node also
    chooses how many parts each side gets (minimising ``max(L1/x, L2/(q-x))``); ties prefer
    balanced counts.
    Zero-load sub-rectangles are split by area.

    `A` may be a dense array, a ``scipy.sparse`` matrix or a MatrixMarket file path; this
    method needs the dense 2D prefix sum, so a sparse `A` is densified (``WpartMemoryError``
    above ``wpart.spatial.MAX_DENSE_BYTES``). `weights` is ``"values"`` (the matrix values are
    the loads), ``"count"`` (1 for every nonzero value, whatever its sign) or ``"stored"`` (1
    for every stored entry). `variant` as for :func:`hier_rb` (``"best"`` runs ``"load"`` and
    ``"dist"`` and keeps the better; the default stays the paper's ``"load"``). `time_limit`
    (seconds for the call; one bisection is not stopped inside) and `progress` (a tqdm bar or
    ``progress(done, total)``) have the family's meaning.

    Parameters
    ----------
    {A m}
    variant : str, optional
        The split rule, as described above.
    tie : str, optional
        How ties between equal cuts are broken, as described above.
    {allow_empty time_limit progress speeds weights returns_spatial raises}
    """
    pp = _Prepared(A, m, allow_empty, weights=weights, method="hier_relaxed")
    return _bisections(pp, "hier_relaxed", variant, tie, time_limit, progress, speeds)


@fill_doc
def hier_opt(A: ArrayLike, m: int, *, max_states: float = 2e7, allow_empty: bool = False,
             time_limit: float | None = None, progress: Any = None,
             speeds: ArrayLike | None = None, weights: str = "values") -> SpatialPartition:
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
    the loads), ``"count"`` (1 for every nonzero value, whatever its sign) or ``"stored"`` (1
    for every stored entry). `progress` is a tqdm bar (True) or ``progress(done, total)``
    (returning False raises :class:`wpart.CancelledError`).

    Parameters
    ----------
    {A m}
    max_states : float, optional
        Largest number of DP states allowed (a larger instance raises a limit error).
    {allow_empty time_limit progress speeds weights returns_spatial raises}
    """
    def setup(pp: _Prepared) -> tuple[dict, dict]:
        msf = as_float(max_states, "max_states", minimum=1.0, allow_inf=True)
        ms = int(min(msf, 2.0**62))
        return {"max_states": ms}, {"max_states": ms}

    return run_method("hier_opt", A, m, setup, allow_empty=allow_empty, weights=weights,
                      speeds=speeds, time_limit=time_limit, progress=progress, sparse=False)
