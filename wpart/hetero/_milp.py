"""The GLPK epsilon-constraint cross-check of the hetero family (spec 000 section 2.11)."""

from __future__ import annotations
from .._errors import WpartTypeError, WpartValueError

import time

import numpy as np

from .. import _core
from ._front import ParetoFront
from ._profiles import ProfileSet

__all__ = ["milp_front"]


def milp_front(ps: ProfileSet, n: int, *, time_limit: float | None = None) -> ParetoFront:
    """Exact front by epsilon-constraint MILPs solved with GLPK (mip_gap 0).

    Stage 1 minimises the dynamic energy with every time below the previous point's time;
    stage 2 minimises the time within that energy (relative tolerance 1e-12). The values
    reported are re-evaluated exactly from the distributions. Meant for small instances: one
    pair of MILPs per front point. Ctrl-C is seen once per branch-and-bound node.

    Parameters
    ----------
    ps : ProfileSet
    n : int
    time_limit : float, optional
        Seconds for the whole call; :class:`wpart.CancelledError` when it is reached.
    """
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(
            time_limit, (int, float, np.integer, np.floating))):
        raise WpartTypeError(f"`time_limit` must be a number of seconds or None, got "
                        f"{type(time_limit).__name__}")
    tl = 0.0 if time_limit is None else float(time_limit)
    if time_limit is not None and not tl > 0:
        raise WpartValueError(f"`time_limit` must be > 0 seconds, got {time_limit}")
    t0 = time.perf_counter()
    e, d, t, x = _core.hetero_milp_front(int(n), *ps.csr(), tl)
    return ParetoFront(t, e, d, x, int(n), "dynamic", 0.0, None, "milp",
                       {"seconds": time.perf_counter() - t0})
