"""HYBRID (Sec. 5 of Saule et al. 2012), the general (unstructured) optimum by MILP, and
:func:`partition`, the dispatch by method name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _core
from .._docs import fill_doc
from .._errors import WpartTypeError, WpartValueError
from .._keywords import checked_keywords
from .._progress import progress_hook
from .._validate import as_int, choice, core_time_limit
from ._common import (
    _ORIENT_NAME,
    _RULE,
    _VARIANT,
    TABLE,
    _m_cells,
    _orient,
    _pad,
    _Prepared,
    _result,
    _stats,
    progress_done,
)
from ._partition import SpatialPartition
from ._sparse import SPARSE_NATIVE

__all__ = ["general_optimum", "hybrid", "partition"]


_PHASES = ("jag_m_heur", "jag_m_heur_probe", "jag_m_opt", "hier_rb", "hier_relaxed")


@fill_doc
def hybrid(A: ArrayLike, m: int, *, phase1: str = "jag_m_heur",
           phase2_fast: str = "jag_m_heur_probe", phase2_slow: str | None = "jag_m_opt",
           m1: int | None = None, m1_min: int | None = None, orient: str = "best",
           variant: str = "load", allow_empty: bool = False, time_limit: float | None = None,
           progress: Any = None, weights: str = "values") -> SpatialPartition:
    """HYBRID (Sec. 5 of Saule et al. 2012): a fast phase-1 partition into ``m1 < m`` blocks,
    parts shared out in proportion to block loads (capped by area), then each block
    partitioned by `phase2_fast`;
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
    time_limit : float, optional
        Seconds for the whole run (None or inf: none). Reached during the slow phase, it
        returns the partition built so far with ``status="time_limit"``; reached earlier, a
        result with no partition (``success`` False).
    progress : bool or callable, optional
        A tqdm bar, or ``progress(done, total)`` (returning False raises
        :class:`wpart.CancelledError`).
    weights : {"values", "count", "stored"}
        The load of a cell: the matrix value, 1 for every nonzero value (whatever its sign),
        or 1 for every stored entry.

    `A` may be a dense array, a ``scipy.sparse`` matrix or a MatrixMarket file path; HYBRID
    needs the dense 2D prefix sum, so a sparse `A` is densified (``WpartMemoryError`` above
    ``wpart.spatial.MAX_DENSE_BYTES``).

    ``params["m1"]`` and ``params["eli"]`` report the choice; ``stats["iterations"]`` counts
    the slow re-partitions. With `allow_empty`, more parts than cells and `m1`/`m1_min`
    defaulted, one part per cell is solved and the rest are empty rectangles
    (``params["parts_solved"]``).

    {returns_spatial raises}
    """
    pp = _Prepared(A, m, allow_empty, weights=weights, method="hybrid")
    p1 = choice(phase1, "phase1", _PHASES)
    pf = choice(phase2_fast, "phase2_fast", _PHASES)
    ps = None if phase2_slow is None else choice(phase2_slow, "phase2_slow", _PHASES)
    o = _orient(orient)
    v = choice(variant, "variant", _VARIANT)
    m1v = 0 if m1 is None else as_int(m1, "m1", minimum=1)
    if m1v > pp.m:
        raise WpartValueError(f"`m1` = {m1v} must not exceed m = {pp.m}")
    m1m = 0 if m1_min is None else as_int(m1_min, "m1_min", minimum=1)
    m1m = min(m1m, pp.m)  # beyond m no phase-1 count is a candidate either way
    tl = core_time_limit(time_limit)
    # more parts than cells with the phase-1 counts defaulted: one part per cell, the rest
    # padded as empty rectangles in bulk (explicit m1 / m1_min keep the full run)
    m_solve = _m_cells(pp) if m1 is None and m1_min is None else pp.m
    with progress_hook(progress, total=1.0, desc="hybrid") as hook:
        rects, st = _core.spatial_partition(
            pp.S,
            m_solve,
            TABLE["hybrid"].code,
            orient=o,
            rule=_RULE[v],
            phase1=TABLE[p1].code,
            fast=TABLE[pf].code,
            slow=-1 if ps is None else TABLE[ps].code,
            m1=m1v,
            m1_min=m1m,
            time_limit=tl,
            progress=hook,
        )
        if not st[9]:
            progress_done(hook)
    stats = dict(_stats(st), converged=True)
    params = {
        "phase1": p1,
        "phase2_fast": pf,
        "phase2_slow": ps,
        "m1": int(st[7]),
        "eli": float(st[8]),
        "orient": _ORIENT_NAME[o],
        "variant": v,
    }
    loads = None
    if m_solve < pp.m and rects is not None:
        rects, loads = _pad(pp, rects, m_solve)
        params["parts_solved"] = m_solve
    return _result(pp, rects, "hybrid", params, stats, stop=st[9], time_limit=tl,
                   loads=loads)


@fill_doc
def general_optimum(
    A: ArrayLike, m: int, *, time_limit: float | None = 60.0, allow_empty: bool = False,
    weights: str = "values",
) -> SpatialPartition:
    """Optimal partition into at most `m` arbitrary rectangles (no structure; the general
    class of Sec. 3.4 of Saule et al. 2012), by a MILP solved with GLPK; tiny matrices only
    (the model has one binary per sub-rectangle, ``n1(n1+1)/2 * n2(n2+1)/2``; refused above
    2,000).

    Model: binary ``x_R`` for every sub-rectangle ``R``, continuous ``Z``; every cell covered
    exactly once, ``sum x_R <= m``, ``load(R) x_R <= Z``; minimise ``Z``. Unused parts become
    empty rectangles. ``status`` is ``"optimal"``, or ``"time_limit"`` when `time_limit`
    (seconds, default 60; None for none) stopped GLPK: then the best partition found, or
    none (``success`` False).

    {dense_only}

    Parameters
    ----------
    {A m time_limit allow_empty weights returns_spatial raises}
    """
    from .. import milp

    pp = _Prepared(A, m, allow_empty, weights=weights, method="general_optimum")
    n1, n2 = pp.n1, pp.n2
    nrect = n1 * (n1 + 1) // 2 * (n2 * (n2 + 1) // 2)
    if nrect > 2000:
        raise WpartValueError(
            f"`A` is too large: the MILP would have {nrect} rectangle variables (> 2000); "
            "use a smaller matrix"
        )
    rs = [
        (a, b, c, d)
        for a in range(n1)
        for b in range(a + 1, n1 + 1)
        for c in range(n2)
        for d in range(c + 1, n2 + 1)
    ]
    nv = len(rs) + 1
    rects_arr = np.array(rs, dtype=np.int64)
    loads = _core.box_loads(pp.S, rects_arr).astype(float)
    loads /= max(float(loads.max()), 1.0)  # the bottleneck scaled to <= 1: GLPK-friendly
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
    stats = {
        "seconds": res.seconds,
        "iterations": int(res.nodes),
        "probes": 0,
        "cost_evals": 0,
        "dp_states": 0,
        "converged": res.status == "optimal",
    }
    params = {"milp_status": res.status}
    if res.status not in ("optimal", "time_limit"):
        raise _core.SolverError(f"the MILP found no solution: {res.status} ({res.message})")
    if not res.success:
        return _result(pp, None, "general_milp", params, stats, status="time_limit",
                       message=f"the time limit was reached before GLPK found a partition "
                               f"({res.message})")
    chosen = [rs[k] for k in range(len(rs)) if res.x[k] > 0.5]
    out = np.zeros((pp.m, 4), dtype=np.int64)
    out[: len(chosen)] = chosen
    if res.status == "optimal":
        return _result(pp, out, "general_milp", params, stats, status="optimal")
    return _result(pp, out, "general_milp", params, stats, status="time_limit",
                   message=f"the time limit was reached; the best partition GLPK found is "
                           f"returned ({res.message})")


class _Default:
    """The value of an option of :func:`partition` that was not given."""

    def __repr__(self) -> str:
        return "<the method's default>"


DEFAULT: Any = _Default()


def method_function(name: str) -> Callable[..., SpatialPartition]:
    """The function of the method `name` of :data:`TABLE`: each method is the public function
    of ``wpart.spatial`` of the same name (the table is the one list of names)."""
    import wpart.spatial

    return getattr(wpart.spatial, TABLE[name].name)


@fill_doc
@checked_keywords
def partition(
    A: ArrayLike, m: int, *, method: str = "jag_m_heur_probe",
    P: Any = DEFAULT, Q: Any = DEFAULT, orient: Any = DEFAULT, variant: Any = DEFAULT,
    counts: Any = DEFAULT, stripe_cuts: Any = DEFAULT, m1: Any = DEFAULT, m1_min: Any = DEFAULT,
    phase1: Any = DEFAULT, phase2_fast: Any = DEFAULT, phase2_slow: Any = DEFAULT,
    max_iter: Any = DEFAULT, max_states: Any = DEFAULT, max_sweeps: Any = DEFAULT,
    patience: Any = DEFAULT, refine: Any = DEFAULT, start: Any = DEFAULT, starts: Any = DEFAULT,
    tie: Any = DEFAULT, abandon: Any = DEFAULT, speeds: Any = DEFAULT,
    allow_empty: Any = DEFAULT, weights: Any = DEFAULT, time_limit: Any = DEFAULT,
    progress: Any = DEFAULT,
) -> SpatialPartition:
    """Partition the 2D load matrix `A` into `m` rectangles with the named method.

    Parameters
    ----------
    A : array_like, shape (n1, n2), scipy.sparse matrix or path
        Non-negative loads: integers (exact, int64) or floats (float64). With the default
        ``weights="values"`` NaN, inf and negative values are rejected; ``"count"`` takes any
        value but NaN (1 per nonzero, whatever its sign) and ``"stored"`` any value (1 per
        stored entry). A ``scipy.sparse`` matrix (any format) or a
        MatrixMarket file path runs on its nonzeros (when sparse enough, see the module
        docstring) for {sparse_native} (the m-way jagged ones without ``speeds``); the other
        methods densify it (refused over ``MAX_DENSE_BYTES``). ``weights`` (an option of every
        method) is ``"values"`` (the values are the loads), ``"count"`` (1 per nonzero value)
        or ``"stored"`` (1 per stored entry, explicit zeros and duplicates included).
    m : int
        Number of rectangles.
    method : str
        One of :data:`METHODS` (hyphens and upper case accepted, e.g. ``"JAG-M-OPT"``).
    P, Q, orient, variant, counts, stripe_cuts, m1, m1_min, phase1, phase2_fast, phase2_slow, max_iter, max_states, max_sweeps, patience, refine, start, starts, tie, abandon, speeds, allow_empty, weights, time_limit, progress : optional
        The options of the method's own function, with its defaults when not given; the
        table below lists which method takes which, and a method refuses the others.

    Returns
    -------
    SpatialPartition
        ``status`` is ``"optimal"`` for the exact methods, ``"feasible"`` for the heuristics,
        ``"time_limit"`` when a `time_limit` stopped the run.

    Raises
    ------
    WpartValueError
        An unknown method, or a bad value (the message names the argument).
    WpartTypeError
        An option the method does not take, or a value of the wrong type.

    Notes
    -----
    The methods (sections of Saule et al. 2012):

    {methods}

    Examples
    --------
    >>> import numpy as np
    >>> from wpart import spatial
    >>> spatial.partition(np.arange(1, 17).reshape(4, 4), 4, method="jag_m_opt").max_load
    40
    """
    options = {k: v for k, v in locals().items()
               if k not in ("A", "m", "method") and v is not DEFAULT}
    meth = TABLE.choose(method)
    bad = sorted(set(options) - set(meth.options))
    if bad:
        raise WpartTypeError(
            f"`{meth.name}` takes no option {', '.join(f'`{b}`' for b in bad)}; its options: "
            f"{', '.join(meth.options)}")
    return method_function(meth.name)(A, m, **options)


if partition.__doc__:
    partition.__doc__ = partition.__doc__.replace(
        "{methods}", "\n    ".join(TABLE.markdown().splitlines())).replace(
        "{sparse_native}", ", ".join(f"``{n}``" for n in SPARSE_NATIVE))
