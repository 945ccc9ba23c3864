"""The starts of RECT-NICOL and JAG-PQ-HEUR: each is run from several starts (uniform rows, rows
split by load, and the same on the transposed problem) and the best partition is kept. All the
starts run in one core call, so the input is checked (and a sparse matrix's columns built) once."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from .._errors import WpartTypeError, WpartValueError
from .._validate import as_speeds, check_speed_costs, choice, core_time_limit
from ._common import (
    _ORIENT_NAME,
    TABLE,
    _grid_solved,
    _pad,
    _result,
    _stats,
    _status,
)
from ._partition import SpatialPartition

#: Start names: the rows-first problem from uniform rows / rows split by load (the exact 1D
#: partition of the row sums), and the same on the transposed problem (columns first).
STARTS = ("rows_uniform", "rows_load", "cols_uniform", "cols_load")

#: name -> (orientation name, the core's start code: bit 0 = first cuts split by load, bit 1 =
#: the transposed problem). The core maps bit 0 to each method's own start option.
START_CODE = {"rows_uniform": ("hor", 0), "rows_load": ("hor", 1),
              "cols_uniform": ("ver", 2), "cols_load": ("ver", 3)}


def as_starts(starts: Any, order: tuple, allowed: tuple | None = None) -> tuple:
    """The requested starts in the method's `order` ("all" = every one of `allowed`)."""
    allowed = order if allowed is None else allowed
    if isinstance(starts, str):
        if starts == "all":
            return tuple(s for s in order if s in allowed)
        want = {choice(starts, "starts", STARTS)}
    elif isinstance(starts, (tuple, list)):
        if not starts:
            raise WpartValueError("`starts` must name at least one start, got an empty sequence")
        want = set()
        for s in starts:
            if not isinstance(s, str):
                raise WpartTypeError(f"`starts` must hold start names, got {type(s).__name__}")
            want.add(choice(s, "starts", STARTS))
    else:
        raise WpartTypeError(
            f"`starts` must be 'all', a start name or a tuple of them, got {type(starts).__name__}"
        )
    out = tuple(s for s in order if s in want and s in allowed)
    if not out:
        raise WpartValueError(
            f"`starts` {sorted(want)} has no start allowed here (allowed: {', '.join(allowed)})"
        )
    return out


def run_starts(
    pp: Any,
    method: str,
    params: dict,
    names: tuple,
    *,
    P: int,
    Q: int,
    time_limit: Any = None,
    speeds: Any = None,
    max_sweeps: int = 0,
) -> SpatialPartition:
    """Run `method` (RECT-NICOL or JAG-PQ-HEUR) from each start of `names` in ONE core call
    (the input checked and, for a sparse matrix, its columns built once) and keep the smallest
    ``max_load`` (ties: the earlier start). ``stats["start"]`` names the winner,
    ``stats["starts"]`` holds each start's ``max_load``, ``seconds`` and ``status``;
    ``stats["seconds"]`` is the total. `time_limit` is the whole call's: a start it stops ends
    the call (``status="time_limit"`` with the best partition found; the first start always
    runs)."""
    sp = as_speeds(speeds, pp.m)
    check_speed_costs(pp.total, sp)
    core_speeds = None
    if sp is not None:
        if pp.sp is None:  # a sparse run is homogeneous: equal speeds only (see jag_pq_heur)
            core_speeds = sp
        params = dict(params, speeds=True)
    tl = core_time_limit(time_limit)
    m_solve = pp.m
    same = sp is None or bool((sp == sp[0]).all())
    if same and pp.m > pp.size:  # more parts than cells: a smaller grid, the rest empty
        P2, Q2 = _grid_solved(pp, P, Q)
        if P2 * Q2 < pp.m:
            m_solve, P, Q = P2 * Q2, P2, Q2
            params = dict(params, P_solved=P2, Q_solved=Q2)
            if core_speeds is not None:
                core_speeds = np.ascontiguousarray(core_speeds[:m_solve])
    codes = [START_CODE[n][1] for n in names]
    code = TABLE[method].code
    if pp.sp is not None:
        arr = pp.sp.arrays()
        R, L, runs = _core.spatial_sparse_starts(pp.n1, pp.n2, *arr, m_solve, code, codes, P=P,
                                                 Q=Q, max_sweeps=max_sweeps, time_limit=tl)
    else:
        R, L, runs = _core.spatial_partition_starts(pp.S, m_solve, code, codes, P=P, Q=Q,
                                                    max_sweeps=max_sweeps, time_limit=tl,
                                                    speeds=core_speeds)
    # each start's max load (the same measure as the result's), the first smallest wins
    n = len(runs)
    lmax = (L[:n] if sp is None else L[:n] / sp[:m_solve]).max(axis=1).tolist()
    status = _status(method)
    table: dict = {}
    won = None
    for k, st in enumerate(runs):
        lk = lmax[k] if st[9] != 2 else None
        if lk is not None and (won is None or lk < lmax[won]):
            won = k
        table[names[k]] = {"max_load": lk, "seconds": st[0],
                           "status": "time_limit" if st[9] else status}
    w = won if won is not None else n - 1
    st = runs[w]
    rects = R[w] if st[9] != 2 else None
    loads = L[w] if rects is not None else None
    if m_solve < pp.m and rects is not None:
        rects, loads = _pad(pp, rects, m_solve)
        params = dict(params, parts_solved=m_solve)
    params = dict(params)
    if "orient" in params and rects is not None:
        params["orient_used"] = _ORIENT_NAME[st[6]]
    stats = dict(_stats(st), start=names[won] if won is not None else None, starts=table,
                 seconds=sum(v["seconds"] for v in table.values()))
    status = message = None
    if not st[9] and (len(runs) < len(names) or any(r[9] for r in runs)):
        status = "time_limit"  # a later start was stopped (or not run)
        message = (f"the time limit of {tl:g} s was reached after the start(s) "
                   f"{', '.join(table)}; the best partition found is returned")
    return _result(pp, rects, method, params, stats, sp, stop=st[9], time_limit=tl,
                   loads=loads, status=status, message=message)
