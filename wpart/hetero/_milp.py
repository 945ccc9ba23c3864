"""The GLPK epsilon-constraint cross-check of the hetero family (an oracle of wpart's own, not
in Khaleghzadeh et al.)."""

from __future__ import annotations

import time

import numpy as np

from .. import _core
from .._milp import unit_scale
from .._validate import as_time_limit
from ._front import ParetoFront, make_front, stopped_front
from ._profiles import ProfileSet

__all__ = ["milp_front"]


def milp_front(ps: ProfileSet, n: int, *, time_limit: float | None = None) -> ParetoFront:
    """Exact front by epsilon-constraint MILPs solved with GLPK (mip_gap 0).

    Stage 1 minimises the dynamic energy with every time below the previous point's time;
    stage 2 minimises the time within that energy (relative tolerance 1e-12). The values
    reported are re-evaluated exactly from the distributions. Meant for small instances: one
    pair of MILPs per front point. Ctrl-C is seen within a fraction of a second. Energies
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
    return make_front("milp", (t / st, e / se, d / se, x), int(n), stats)
