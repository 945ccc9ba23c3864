"""Obviously correct, slow oracles for the tests (pure Python, tiny inputs only).

Nothing here calls the C core: each function is an independent re-statement of a problem.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Sequence


def oned_enumerate(loads: Sequence, m: int, *, speeds: Sequence | None = None):
    """Optimal 1D bottleneck by enumerating every separator vector.

    Returns ``(best, all_optimal_separator_vectors)``. With `speeds`, part ``p`` costs
    ``load / speeds[p]`` evaluated as ``float(load) / float(speed)`` (the core's definition).
    """
    n = len(loads)
    pre = [0]
    for x in loads:
        pre.append(pre[-1] + x)
    best = None
    arg = []
    for inner in itertools.combinations_with_replacement(range(n + 1), m - 1):
        seps = (0,) + inner + (n,)
        cost = max(_cost(pre, seps[p], seps[p + 1], p, speeds) for p in range(m))
        if best is None or cost < best:
            best, arg = cost, [seps]
        elif cost == best:
            arg.append(seps)
    return best, arg


def _cost(pre, a, b, p, speeds):
    load = pre[b] - pre[a]
    if speeds is None:
        return load
    return float(load) / float(speeds[p])


def oned_dp(loads: Sequence, m: int, *, speeds: Sequence | None = None):
    """Optimal 1D bottleneck by the textbook O(m n^2) dynamic programme."""
    n = len(loads)
    pre = [0]
    for x in loads:
        pre.append(pre[-1] + x)
    inf = float("inf")
    F = [0] + [inf] * n
    for p in range(m):
        G = []
        for t in range(n + 1):
            G.append(min(max(F[u], _cost(pre, u, t, p, speeds)) for u in range(t + 1)))
        F = G
    return F[n]


def direct_cut_bound(loads: Sequence, m: int) -> Fraction:
    """The DirectCut / 1D optimum upper bound ``T/m + amax`` as an exact fraction."""
    return Fraction(sum(loads), m) + max(loads)
