"""The starts of RECT-NICOL and JAG-PQ-HEUR: each is run from several starts (uniform rows, rows
split by load, and the same on the transposed problem) and the best partition is kept."""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable

from .._errors import WpartTypeError, WpartValueError
from .._validate import as_time_limit, choice
from ._partition import SpatialPartition

#: Start names: the rows-first problem from uniform rows / rows split by load (the exact 1D
#: partition of the row sums), and the same on the transposed problem (columns first).
STARTS = ("rows_uniform", "rows_load", "cols_uniform", "cols_load")

#: name -> (orient code name, the core's start code)
START_CODE = {"rows_uniform": ("hor", 0), "rows_load": ("hor", 1),
              "cols_uniform": ("ver", 0), "cols_load": ("ver", 1)}


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


def best_of(
    names: tuple,
    run: Callable[[str, float | None], SpatialPartition],
    time_limit: Any,
) -> SpatialPartition:
    """Run ``run(name, time_left)`` for each start and keep the smallest ``max_load`` (ties: the
    earlier start). ``stats["start"]`` names the winner, ``stats["starts"]`` holds each start's
    ``max_load``, ``seconds`` and ``status``; ``stats["seconds"]`` is the total. A time limit
    reached stops the remaining starts (``status="time_limit"`` with the best found)."""
    tl = as_time_limit(time_limit)
    t0 = time.perf_counter()
    best = last = None
    won = None
    table: dict = {}
    stopped = False
    for name in names:
        left = None
        if tl is not None:
            left = tl - (time.perf_counter() - t0)
            if left <= 0:
                if last is not None:
                    stopped = True
                    break
                left = 1e-9  # the first start always runs (its current grid is an answer)
        r = run(name, left)
        last = r
        table[name] = {"max_load": r.max_load if r._has_answer() else None,
                       "seconds": float(r.stats.get("seconds", 0.0)), "status": r.status}
        if r._has_answer() and (best is None or r.max_load < best.max_load):
            best, won = r, name
        if r.status == "time_limit":
            stopped = True
            break
    res = best if best is not None else last
    stats = dict(res.stats, start=won, starts=table,
                 seconds=sum(v["seconds"] for v in table.values()))
    kw: dict = {"stats": stats}
    if stopped and res.status != "time_limit":
        kw["status"] = "time_limit"
        kw["message"] = (f"the time limit of {tl:g} s was reached after the start(s) "
                         f"{', '.join(table)}; the best partition found is returned")
    return dataclasses.replace(res, **kw)
