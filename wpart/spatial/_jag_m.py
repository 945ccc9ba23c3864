"""``m``-way jagged partitions: JAG-M-HEUR, JAG-M-PROBE, JAG-M-HEUR-PROBE, JAG-M-ALLOC,
JAG-M-OPT (Sec. 3.2.2 of Saule et al. 2012), the JAG-M-ITER extension (suggested in its
Sec. 5) and the proportional allocation."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import _core
from .._docs import fill_doc
from .._errors import WpartOverflowError, WpartTypeError, WpartValueError
from .._validate import as_int, as_loads, as_parts, as_time_limit
from ._common import (
    _ORIENT_CODE,
    _ORIENT_NAME,
    _orient,
    _m_cells,
    _pad,
    _Prepared,
    _result,
    _stripes_of,
    _stripes_P,
    named_method,
    run_method,
)
from ._jag_pq import heuristic_incumbent
from ._partition import SpatialPartition

def _as_int_vector(x: Any, name: str) -> NDArray:
    """`x` as an array (a ragged or otherwise unconvertible sequence is a WpartValueError naming
    `name`, not NumPy's error); its shape and dtype are checked by the caller."""
    try:
        return np.asarray(x)
    except (ValueError, TypeError) as exc:
        raise WpartValueError(f"`{name}` must be a 1-D integer array: {exc}") from None


def _stripe_heuristic(name: str, doc: str) -> Callable[..., SpatialPartition]:
    """JAG-M-HEUR or JAG-M-HEUR-PROBE (the core's method `name`): the same options, the same
    stripes (:func:`_heur_setup`) and the same run; `doc` is its docstring."""

    def method(A: ArrayLike, m: int, *, P: Any = "sqrt", orient: str = "best",
               allow_empty: bool = False, time_limit: float | None = None, progress: Any = None,
               speeds: ArrayLike | None = None, weights: str = "values") -> SpatialPartition:
        return run_method(name, A, m, _heur_setup(P, orient), allow_empty=allow_empty,
                          weights=weights, speeds=speeds, time_limit=time_limit,
                          progress=progress)

    return named_method(method, name, doc)


jag_m_heur = _stripe_heuristic(
    "jag_m_heur",
    """JAG-M-HEUR (Sec. 3.2.2 of Saule et al. 2012): ``P`` optimal stripes of the projection,
    parts shared out in proportion to the stripe loads (:func:`allocate`), each stripe cut
    optimally.

    `P` is ``"sqrt"`` (``floor(sqrt(m))``, the paper's choice), ``"theorem4"`` (the
    minimiser of the Theorem 3 bound, Theorem 4; strictly positive data only, else sqrt) or
    an int.
    It is clamped to ``[ceil(m/n2), min(n1, m)]`` where possible.

    `A` is a dense 2D array, a ``scipy.sparse`` matrix of any format or a MatrixMarket file
    path. Without `speeds`, a sparse matrix (more than 2**15 cells, at most 1/32 of them
    nonzero) is not densified: the stripes come from the row sums and each stripe's column
    prefix from its rows' nonzeros (O(nnz + P n2) per orientation), and the partition is the one
    the dense array gives, bit for bit. With `speeds` it is densified (the speed code reads the
    dense prefix). `weights` is ``"values"`` (the loads are the matrix values) or ``"count"`` (1
    for every nonzero).

    {heur_time_progress}

    Parameters
    ----------
    {A m P orient allow_empty time_limit progress speeds weights returns_spatial raises}
    """)


def _heur_stripes(
    pp: _Prepared, o: int, allow_empty: bool, speeds: Any, m: int | None = None
) -> tuple[int, list, list]:
    """Orientation, stripe cuts and per-stripe counts of JAG-M-HEUR into `m` parts (default
    ``pp.m``; the default stripes of JAG-M-PROBE and counts of JAG-M-ALLOC)."""
    m = pp.m if m is None else m
    if m < pp.m and speeds is not None:
        speeds = np.asarray(speeds)[:m]
    h = jag_m_heur(pp.A, m, orient=_ORIENT_NAME[o], allow_empty=allow_empty, speeds=speeds)
    oo = _ORIENT_CODE[h.params["orient_used"]]
    cuts, counts = _stripes_of(h.rects, oo, pp.A.shape)
    return oo, cuts, counts


def _heur_setup(P: Any, orient: Any) -> Any:
    """The params and core options of JAG-M-HEUR / JAG-M-HEUR-PROBE (`run_method`'s `setup`)."""

    def setup(pp: _Prepared) -> tuple[dict, dict]:
        o = _orient(orient)
        Pv = _stripes_P(pp, P, o, stacklevel=5)
        return {"P": P, "orient": _ORIENT_NAME[o]}, {"P": Pv, "orient": o}

    return setup


def _given_or_heur(pp: _Prepared, orient: Any, given: Any, which: int, name: str,
                   allow_empty: bool, speeds: Any) -> tuple[int, Any, int]:
    """The orientation, the stripe cuts (`which` = 1) or counts (2) and the parts to solve
    with: `given` as it is (orientation 'hor' or 'ver'), or by default JAG-M-HEUR's, for one
    part per cell when there are more parts than cells (the rest padded empty)."""
    o = _orient(orient)
    if given is None:
        m_solve = _m_cells(pp, speeds)
        found = _heur_stripes(pp, o, allow_empty, speeds, m_solve)
        return found[0], found[which], m_solve
    if o == _core.SP_BEST:
        raise WpartValueError(f"`orient` must be 'hor' or 'ver' when `{name}` are given")
    return o, given, pp.m


@fill_doc
def jag_m_probe(A: ArrayLike, m: int, *, stripe_cuts: ArrayLike | None = None, orient: str = "hor",
                allow_empty: bool = False, time_limit: float | None = None, progress: Any = None,
                speeds: ArrayLike | None = None, weights: str = "values") -> SpatialPartition:
    """JAG-M-PROBE (Sec. 3.2.2 of Saule et al. 2012): the optimal ``m``-way jagged partition
    for given stripes.

    `stripe_cuts` are ``0 = s_0 <= s_1 <= ... <= s_P = n_main`` along the main dimension
    (rows for ``orient="hor"``, columns for ``"ver"``), with ``P <= m``. By default they are
    the stripes of :func:`jag_m_heur` (as the paper composes JAG-M-HEUR-PROBE; then
    ``orient="best"`` is accepted too; ``params["stripe_cuts"]`` records the cuts used).
    With default stripes, `allow_empty` and more parts than cells (no or equal `speeds`), one
    part per cell is solved and the rest are empty rectangles (``params["parts_solved"]``).

    `A` is a dense 2D array, a ``scipy.sparse`` matrix or a MatrixMarket path; without `speeds`
    a sparse matrix (more than 2**15 cells, at most 1/32 of them nonzero) runs on its nonzeros
    (a table of the stripes' column prefixes, O(nnz + P n2), then the same bisection as the
    dense code) and gives the dense partition; with `speeds` it is densified. `weights` is
    ``"values"`` or ``"count"`` (1 for every nonzero).

    {heur_time_progress}

    Parameters
    ----------
    {A m}
    stripe_cuts : array_like or None, optional
        Stripe boundaries along the main dimension; default: those of :func:`jag_m_heur`.
    {orient allow_empty time_limit progress speeds weights returns_spatial raises}
    """
    def setup(pp: _Prepared) -> tuple[dict, dict]:
        o, given, m_solve = _given_or_heur(pp, orient, stripe_cuts, 1, "stripe_cuts",
                                           allow_empty, speeds)
        cuts = _as_int_vector(given, "stripe_cuts")
        if cuts.dtype.kind not in "iu" or cuts.ndim != 1 or cuts.size < 2:
            raise WpartValueError("`stripe_cuts` must be a 1-D integer array of length >= 2")
        cuts = np.ascontiguousarray(cuts, dtype=np.int64)
        nmain = pp.n1 if o == _core.SP_HOR else pp.n2
        if cuts[0] != 0 or cuts[-1] != nmain or (np.diff(cuts) < 0).any():
            raise WpartValueError(f"`stripe_cuts` must rise from 0 to {nmain}")
        if cuts.size - 1 > pp.m:
            raise WpartValueError(
                f"`stripe_cuts` define {cuts.size - 1} stripes, more than m = {pp.m}"
            )
        return ({"stripe_cuts": cuts.tolist(), "orient": _ORIENT_NAME[o]},
                {"cuts": cuts, "orient": o, "m_solve": m_solve})

    return run_method("jag_m_probe", A, m, setup, allow_empty=allow_empty, weights=weights,
                      speeds=speeds, time_limit=time_limit, progress=progress)


jag_m_heur_probe = _stripe_heuristic(
    "jag_m_heur_probe",
    """JAG-M-HEUR-PROBE (Sec. 3.2.2 of Saule et al. 2012): the stripes of
    :func:`jag_m_heur`, then the optimal part counts for them (:func:`jag_m_probe`). Never
    worse than :func:`jag_m_heur`.

    `A` and `weights` as for :func:`jag_m_probe`: without `speeds` a sparse matrix runs on
    its nonzeros and gives the dense partition; with `speeds` it is densified.

    {heur_time_progress}

    Parameters
    ----------
    {A m P orient allow_empty time_limit progress speeds weights returns_spatial raises}
    """)


@fill_doc
def jag_m_alloc(A: ArrayLike, m: int, *, counts: ArrayLike | None = None, orient: str = "hor",
                allow_empty: bool = False, time_limit: float | None = None, progress: Any = None,
                speeds: ArrayLike | None = None, weights: str = "values") -> SpatialPartition:
    """JAG-M-ALLOC (Sec. 3.2.2 of Saule et al. 2012): optimal stripe boundaries for given
    per-stripe part counts
    ``counts`` (length ``P``, each >= 1, summing to ``m``), by Nicol's algorithm on the
    heterogeneous nested cost. Empty stripes hand their parts to a neighbour.

    With `speeds`, stripe ``p`` runs on processors ``counts[0] + ... + counts[p-1]`` up to
    ``counts[0] + ... + counts[p] - 1`` (in the given order, left/top part first) and the
    stripe boundaries minimising ``max_k loads[k] / speeds[k]`` are found exactly (bisection
    on the bottleneck with a greedy over stripes); an empty stripe leaves its processors idle
    (empty parts) instead of handing them over.

    By default `counts` are the per-stripe part counts of :func:`jag_m_heur` (the
    proportional allocation of :func:`allocate` on its stripes; then ``orient="best"`` is
    accepted too and ``params["counts"]`` records the counts used). With default counts,
    `allow_empty` and more parts than cells (no or equal `speeds`), the counts are those of
    one part per cell and the rest are empty rectangles (``params["parts_solved"]``).

    A `time_limit` (seconds) reached in the search returns a result with
    ``status="time_limit"``: the rows-first answer when ``orient="best"`` had finished it;
    with default counts, that of :func:`jag_m_heur` (the same counts: the search's start; run
    after the search, without a limit, ``params["incumbent"] == "jag_m_heur"``) when better or
    there is none; with given counts, when better or there is none, a partition with those
    counts (``params["incumbent"] == "counts_stripes"``: each stripe's rows where the load
    prefix reaches its parts' (or its processors' speeds') share of the total, each stripe
    cut into its parts by the exact 1D optimum of its column loads, or with speeds where its
    prefix reaches each processor's share). `progress` is a
    tqdm bar (True) or ``progress(done, total)`` (returning False raises
    :class:`wpart.CancelledError`).

    `A` may be a dense array, a ``scipy.sparse`` matrix or a MatrixMarket file path. Without
    `speeds`, a sparse matrix (more than 2**15 cells, at most 1/32 of them nonzero) is not
    densified: each nested cost (the exact 1D optimum of a stripe for its count) reads the
    stripe's column prefix made from its rows' nonzeros, memory O(nnz + n1 + n2) plus the memo,
    and the same search on the same values gives the dense partition (integer loads bit for
    bit). With `speeds` it is densified (``WpartMemoryError`` above
    ``wpart.spatial.MAX_DENSE_BYTES``). `weights` is ``"values"`` (the matrix values are the
    loads) or ``"count"`` (1 for every nonzero, whatever its sign).

    Parameters
    ----------
    {A m}
    counts : array_like or None, optional
        Parts per stripe (each >= 1, summing to `m`); default: proportional to the stripe loads.
    {orient allow_empty time_limit progress speeds weights returns_spatial raises}
    """
    def setup(pp: _Prepared) -> tuple[dict, dict]:
        o, given, m_solve = _given_or_heur(pp, orient, counts, 2, "counts", allow_empty, speeds)
        c = _as_int_vector(given, "counts")
        if c.dtype.kind not in "iu" or c.ndim != 1 or c.size < 1:
            raise WpartValueError("`counts` must be a non-empty 1-D integer array")
        c = np.ascontiguousarray(c, dtype=np.int64)
        if (c < 1).any() or (c > m_solve).any() or int(c.sum()) != m_solve:
            raise WpartValueError(
                f"`counts` must be >= 1 and sum to m = {m_solve}, got sum {int(c.sum())}"
            )
        return ({"counts": c.tolist(), "orient": _ORIENT_NAME[o]},
                {"cuts": c, "orient": o, "m_solve": m_solve})

    res = run_method("jag_m_alloc", A, m, setup, allow_empty=allow_empty, weights=weights,
                     speeds=speeds, time_limit=time_limit, progress=progress)
    if counts is not None:
        return _counts_incumbent(res)
    return heuristic_incumbent(res, jag_m_heur, "jag_m_heur", orient=orient,
                               allow_empty=allow_empty, speeds=speeds)


def _counts_incumbent(res: SpatialPartition) -> SpatialPartition:
    """`res` of JAG-M-ALLOC with given counts stopped by its time limit, with a partition of
    those counts when it had none or a worse one: stripes cut where the load prefix reaches
    each stripe's share (its parts', or its processors' speeds', share of the total), each
    stripe cut into its parts along the other dimension (the exact 1D optimum of its line
    loads; with speeds, where the prefix reaches each processor's share).
    ``params["incumbent"] == "counts_stripes"``."""
    if res.status != "time_limit":
        return res
    counts = np.asarray(res.params["counts"], np.int64)
    hor = res.params["orient"] == "hor"
    A = res.A
    n_main, n_other = A.shape if hor else A.shape[::-1]
    sp = None if res.speeds is None else np.asarray(res.speeds, np.float64)
    ends = np.cumsum(counts)
    share = counts.astype(np.float64) if sp is None else np.add.reduceat(sp, ends - counts)
    lines = np.asarray(A.sum(axis=1 if hor else 0)).ravel()
    pre = np.concatenate(([0], np.cumsum(lines)))
    target = pre[-1] * np.cumsum(share)[:-1] / share.sum()
    cuts = np.concatenate(([0], np.searchsorted(pre, target, side="left"), [n_main]))
    cuts = np.maximum.accumulate(np.minimum(cuts, n_main))
    rects, loads = [], []
    for p, k in enumerate(counts.tolist()):
        a, b = int(cuts[p]), int(cuts[p + 1])
        band = A[a:b] if hor else A[:, a:b]
        line = np.asarray(band.sum(axis=0 if hor else 1)).ravel()
        lpre = np.concatenate(([0], np.cumsum(line)))
        if sp is None:
            k1 = min(k, n_other)
            inner = _core.spatial_rect_1d(line.astype(np.float64), k1)[0] if k1 else [0]
            inner = np.concatenate((inner, np.full(k - k1, n_other, np.int64)))
        else:
            s = sp[ends[p] - k: ends[p]]
            inner = np.concatenate(([0], np.searchsorted(lpre, lpre[-1] * np.cumsum(s)[:-1]
                                                         / s.sum(), side="left"), [n_other]))
            inner = np.maximum.accumulate(np.minimum(inner, n_other))
        for j in range(k):
            c0, c1 = int(inner[j]), int(inner[j + 1])
            rects.append((a, b, c0, c1) if hor else (c0, c1, a, b))
            loads.append(lpre[c1] - lpre[c0])
    loads = np.asarray(loads, dtype=res.loads.dtype)
    lmax = (loads / sp).max() if sp is not None else loads.max()
    lmax = lmax.item() if sp is None else float(lmax)
    if res.success and not lmax < res.max_load:
        return res
    return dataclasses.replace(
        res, rects=np.asarray(rects, np.int64).reshape(-1, 4), loads=loads, max_load=lmax,
        imbalance=float(lmax) / res.avg_load - 1.0 if res.total > 0 else 0.0,
        params=dict(res.params, incumbent="counts_stripes"),
        message="the time limit was reached; a partition with the given counts (stripes by "
                "load share, each cut into its parts) is returned")


@fill_doc
def jag_m_opt(A: ArrayLike, m: int, *, orient: str = "best", allow_empty: bool = False,
              time_limit: float | None = None, progress: Any = None,
              speeds: ArrayLike | None = None, weights: str = "values") -> SpatialPartition:
    """JAG-M-OPT (Sec. 3.2.2 of Saule et al. 2012): the optimal ``m``-way jagged partition.

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

    Parameters
    ----------
    A : array_like, shape (n1, n2)
        Non-negative loads: a dense array, a ``scipy.sparse`` matrix or a MatrixMarket file
        path. Without `speeds`, a sparse matrix (more than 2**15 cells, at most 1/32 of them
        nonzero) is not densified: the feasibility DP grows each candidate stripe ``[k, i)``
        one row at a time, its column sums in a Fenwick tree (a row's nonzeros cost
        O(log n2) each, a column prefix O(log n2)), so memory is O(nnz + n1 + n2); integer
        loads give the partition of ``A.toarray()``. With `speeds` it is densified
        (``WpartMemoryError`` above ``wpart.spatial.MAX_DENSE_BYTES``).
    m : int
        Number of rectangles.
    orient : {"best", "hor", "ver"}
        Stripes of rows, of columns, or both (the better wins).
    allow_empty : bool
        Accept ``m`` larger than the number of cells.
    time_limit : float, optional
        Seconds of the search (None or inf: none). When the search is stopped by it, the
        result has ``status="time_limit"`` and holds the best partition found: the search's
        incumbent (JAG-M-HEUR-PROBE, or the finished orientation of ``"best"``; with
        `speeds`, none) or, when smaller, that of :func:`jag_m_alloc` (default counts, in
        each orientation `orient` allows), which is then run to its end, without a limit
        (``params["incumbent"] == "jag_m_alloc"``): so a stopped call takes the limit plus
        JAG-M-ALLOC's time and never returns worse than :func:`jag_m_alloc` on the same
        input. A limit that stops the search before its JAG-M-HEUR-PROBE incumbent exists
        runs that heuristic to its end too (``params["incumbent"] == "jag_m_heur_probe"``
        when it is the better), so the result is never worse than either. Never raised.
    progress : bool or callable, optional
        A tqdm bar, or ``progress(done, total)`` (returning False raises
        :class:`wpart.CancelledError`); reaches its total when the search ends.
    speeds : array_like, shape (m,), optional
        Relative processor speeds (see above).
    weights : {"values", "count", "stored"}
        The load of a cell: the matrix value, 1 for every nonzero value (whatever its sign), or
        1 for every stored entry (explicit zeros and each duplicate included).

    Returns
    -------
    SpatialPartition
        ``status="optimal"`` (or ``"time_limit"``).

    {raises}

    Examples
    --------
    >>> import numpy as np
    >>> from wpart import spatial
    >>> r = spatial.jag_m_opt(np.arange(1, 17).reshape(4, 4), 4, time_limit=10)
    >>> r.status, r.max_load
    ('optimal', 40)
    """
    def setup(pp: _Prepared) -> tuple[dict, dict]:
        o = _orient(orient)
        as_time_limit(time_limit)  # checked here, in the order of the other options
        return {"orient": _ORIENT_NAME[o]}, {"orient": o}

    res = run_method("jag_m_opt", A, m, setup, allow_empty=allow_empty, weights=weights,
                     speeds=speeds, time_limit=time_limit, progress=progress)
    if res.status != "time_limit":  # the search ran to the optimum
        return res
    # the search was stopped by the limit, maybe with a worse incumbent than JAG-M-ALLOC's:
    # JAG-M-ALLOC (default counts, in each orientation of `orient`) runs to its end (a run
    # cut by the same limit could miss its own answer) and replaces a worse incumbent; a
    # limit that ended the search inside its first step (JAG-M-HEUR-PROBE) left no
    # incumbent, so that heuristic runs to its end too
    tl = as_time_limit(time_limit)
    o = _orient(orient)
    names = ("hor", "ver") if o == _core.SP_BEST else (_ORIENT_NAME[o],)
    runs = [("JAG-M-ALLOC", "jag_m_alloc", jag_m_alloc, dict(speeds=speeds))]
    if not res.success and speeds is None:
        runs.append(("JAG-M-HEUR-PROBE", "jag_m_heur_probe", jag_m_heur_probe, {}))
    for label, key, method, extra in runs:
        for name in names:
            r = method(res.A, res.m, orient=name, allow_empty=allow_empty, **extra)
            if r.success and r.status != "time_limit" and (
                    not res.success or r.max_load < res.max_load):
                params = dict(res.params, incumbent=key, P_used=r.params.get("P_used"),
                              orient_used=r.params["orient"])
                res = dataclasses.replace(
                    res, rects=r.rects, loads=r.loads, max_load=r.max_load,
                    imbalance=r.imbalance, params=params,
                    message=f"the time limit of {tl:g} s was reached; the best partition "
                            f"found ({label}'s, run after the search) is returned")
    return res


@fill_doc
def jag_m_iter(A: ArrayLike, m: int, *, orient: str = "best", max_rounds: int = 50,
               allow_empty: bool = False, weights: str = "values") -> SpatialPartition:
    """JAG-M-ITER (an extension suggested in Sec. 5 of Saule et al. 2012; not a paper method).

    Starting from :func:`jag_m_heur_probe`, alternately re-optimise the part counts for the
    current stripes (:func:`jag_m_probe`) and the stripes for the current counts
    (:func:`jag_m_alloc`) while ``max_load`` strictly decreases (at most `max_rounds`
    rounds). Never worse than JAG-M-HEUR-PROBE in the same orientation; always terminates.
    ``params["extension"]`` is True. With `allow_empty` and more parts than cells, the
    iteration runs on one part per cell and the rest are empty rectangles
    (``params["parts_solved"]``).

    {dense_only}

    Parameters
    ----------
    {A m orient}
    max_rounds : int, optional
        Most alternation rounds.
    {allow_empty weights returns_spatial raises}
    """
    pp = _Prepared(A, m, allow_empty, weights=weights, method="jag_m_iter")
    o = _orient(orient)
    rounds = as_int(max_rounds, "max_rounds", minimum=0)
    # more parts than cells: iterate on one part per cell, pad the rest empty in bulk
    m_solve = _m_cells(pp)
    best = None
    for oo in (_core.SP_HOR, _core.SP_VER) if o == _core.SP_BEST else (o,):
        cur = jag_m_heur_probe(pp.A, m_solve, orient=_ORIENT_NAME[oo], allow_empty=allow_empty)
        k = 0
        for k in range(rounds):
            cuts, counts = _stripes_of(cur.rects, oo, pp.A.shape)
            nxt = jag_m_alloc(
                pp.A, m_solve, counts=counts, orient=_ORIENT_NAME[oo], allow_empty=allow_empty
            )
            cuts, counts = _stripes_of(nxt.rects, oo, pp.A.shape)
            nxt = jag_m_probe(
                pp.A,
                m_solve,
                stripe_cuts=cuts,
                orient=_ORIENT_NAME[oo],
                allow_empty=allow_empty,
            )
            if not nxt.max_load < cur.max_load:
                break
            cur = nxt
        if best is None or cur.max_load < best[0].max_load:
            best = (cur, oo, k)
    cur, oo, k = best
    params = {
        "orient": _ORIENT_NAME[o],
        "orient_used": _ORIENT_NAME[oo],
        "max_rounds": rounds,
        "extension": True,
    }
    stats = dict(cur.stats, iterations=k)
    rects, loads = cur.rects, None
    if m_solve < pp.m:
        rects, loads = _pad(pp, cur.rects, m_solve)
        params["parts_solved"] = m_solve
    return _result(pp, rects, "jag_m_iter", params, stats, loads=loads)


@fill_doc
def allocate(
    loads: ArrayLike, m: int, *, cap: ArrayLike | None = None
) -> NDArray[np.int64]:
    """Proportional allocation (Sec. 3.2.2 and 5 of Saule et al. 2012): counts ``>= 1``
    summing to `m`, roughly
    proportional to `loads`; leftovers go greedily to the largest ``load/count`` (capped
    blocks are skipped; ties to the first block; once every block is at its cap, block 0
    takes the rest).

    `cap` are integers ``>= 1``, one per block. `m` is at most ``max(len(loads), 2**24)``
    (:func:`wpart._validate.as_parts`). The greedy runs in bulk (the same
    counts as one part at a time), so all-zero loads, caps and large `m` are fast.

    Parameters
    ----------
    loads : array_like
        Non-negative loads, one per item.
    {m}
    cap : array_like or None, optional
        Largest count per block (integers >= 1), or None.

    Returns
    -------
    ndarray of int64
        Parts per block, each >= 1 (or within its cap), summing to `m`.

    {raises}
    """
    L = as_loads(loads, "loads", (1,))
    m = as_parts(m, L.size)
    if L.size > m:
        raise WpartValueError(f"`loads` has {L.size} blocks, more than m = {m}")
    if (L < 0).any() or (L.dtype.kind == "f" and not np.isfinite(L).all()):
        raise WpartValueError("`loads` must be finite and non-negative")
    if L.dtype.kind == "i" and sum(L.tolist()) > np.iinfo(np.int64).max:
        raise WpartOverflowError("`loads` sum beyond the int64 range")
    with np.errstate(over="ignore"):
        fsum = float(L.sum())
    if L.dtype.kind == "f" and not np.isfinite(fsum):
        raise WpartOverflowError("`loads` sum overflows float64")
    c = None
    if cap is not None:
        c = as_loads(cap, "cap", (1,))
        if c.dtype.kind != "i":
            raise WpartTypeError(
                f"`cap` must be an array of integers, got dtype {np.asarray(cap).dtype}")
        if c.shape != L.shape:
            raise WpartValueError(f"`cap` must have the length of `loads` ({L.size}), got {c.size}")
        if (c < 1).any():
            raise WpartValueError("`cap` must be >= 1")
    return _core.spatial_alloc(L, m, c)
