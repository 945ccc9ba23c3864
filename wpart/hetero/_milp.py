"""The GLPK epsilon-constraint cross-check of the hetero family (an oracle of wpart's own, not
in Khaleghzadeh et al.)."""

from __future__ import annotations

import time

import numpy as np

from .. import _core
from .._errors import WpartLimitError
from .._milp import unit_scale
from .._validate import as_time_limit
from ._front import ParetoFront, make_front, stopped_front
from ._profiles import ProfileSet

__all__ = ["milp_front"]


def milp_front(ps: ProfileSet, n: int, *, time_limit: float | None = None) -> ParetoFront:
    """Exact front by epsilon-constraint MILPs solved with GLPK (mip_gap 0).

    Stage 1 minimises the dynamic energy with every time below the previous point's time;
    stage 2 minimises the time within that energy (relative tolerance 1e-12). The values
    reported are re-evaluated exactly from the distributions; exact up to GLPK's tolerances
    (about 1e-9 relative): points whose times or energies differ by less can be missed, and a
    point another dominates after the exact evaluation is dropped
    (``stats["dominated_dropped"]``). An answer that is not a distribution (GLPK holds the sum
    of the shares to its tolerance: +-1 from sizes of about 1e5) raises WpartLimitError.
    Meant for small instances: one pair of MILPs per front point. Ctrl-C is seen within a fraction of a second. Energies
    whose per-processor sums overflow raise the same WpartValueError as the other fronts.

    Parameters
    ----------
    ps : ProfileSet
    n : int
    time_limit : float, optional
        Seconds for the whole call; reaching it gives status ``"time_limit"`` (no point: the
        points found so far are not kept).
    """
    tl = as_time_limit(time_limit)
    t0 = time.perf_counter()
    off, sizes, times, energies = ps.csr()
    # times and energies far from 1 go to GLPK scaled by powers of two (exact; without it,
    # times of 1e9 made stage 2 infeasible after a feasible stage 1)
    st = unit_scale(times.max()) if times.size else 1.0
    with np.errstate(over="ignore"):  # (energies whose sums overflow: the core refuses them)
        etop = float(sum(float(pr.energy.max()) for pr in ps.profiles if pr.n_points))
    se = unit_scale(energies.max()) if energies.size and np.isfinite(etop) else 1.0
    r = _core.hetero_milp_front(int(n), off, sizes, times * st, energies * se,
                                0.0 if tl is None else tl)
    stats = {"seconds": time.perf_counter() - t0, "time_scale": st, "energy_scale": se}
    if r == "time_limit":
        return stopped_front("milp", ps.m, int(n), stats, f"the time limit of {tl:g} s was "
                             "reached before the front was complete")
    e, d, t, x = r
    _check_rows(x, off, sizes, int(n))
    t, e, d = t / st, e / se, d / se
    # GLPK's tolerances (relative ~1e-9) can let a point through that another dominates or
    # ties, the values re-evaluated exactly: kept, in time order, only the points whose
    # energy is strictly below every faster one's
    keep, best = [], np.inf
    for k in np.lexsort((e, t)):
        if e[k] < best and not (keep and t[keep[-1]] == t[k]):
            keep.append(k)
            best = e[k]
    keep = np.array(keep[::-1], np.int64)  # (the front's order: time falling)
    stats["dominated_dropped"] = int(t.size - keep.size)
    return make_front("milp", (t[keep], e[keep], d[keep], x[keep]), int(n), stats)


def _check_rows(x: np.ndarray, off: np.ndarray, sizes: np.ndarray, n: int) -> None:
    """Refuse a GLPK answer that is not a distribution (each share 0 or one of its
    processor's sizes, the shares summing to `n` exactly): GLPK holds the sum only to its
    tolerance, which allows +-1 from sizes of about 1e5."""
    for row in np.asarray(x, np.int64):
        ok = int(row.sum()) == n and all(
            v == 0 or np.any(sizes[off[k]:off[k + 1]] == v) for k, v in enumerate(row))
        if not ok:
            raise WpartLimitError(
                f"`n` = {n}: GLPK's tolerances cannot hold a distribution of this size exactly "
                f"(it answered {row.tolist()}); milp_front is a cross-check for small "
                f"instances: use pareto_front")
