"""Brute-force oracles for the block-size problem of wpart.dynamic (spec 001 §1.4-1.6).

Obviously correct and slow: enumerate every allocation (discrete) or evaluate the definition
(continuous); used on tiny instances only.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

__all__ = ["discrete_minmax", "makespan", "capacity_bisect"]


def makespan(curves: Sequence[Callable[[float], float]], x: Sequence[float]) -> float:
    """max_p E_p(x_p) with E_p(0) = 0."""
    return max((float(f(float(v))) if v > 0 else 0.0) for f, v in zip(curves, x))


def discrete_minmax(
    curves: Sequence[Callable[[float], float]],
    S: int,
    q: int = 1,
    lb: Sequence[int] | None = None,
    ub: Sequence[int] | None = None,
) -> float:
    """Smallest max_p E_p(b_p) over all b with b_p multiples of q, sum b = S, lb <= b <= ub.

    S must be a multiple of q. Enumerates (S/q + 1)^(n-1) allocations.
    """
    n = len(curves)
    lb = [0] * n if lb is None else list(lb)
    ub = [S] * n if ub is None else [min(u, S) for u in ub]
    K = S // q
    best = math.inf
    for ks in itertools.product(range(K + 1), repeat=n - 1):
        rest = K - sum(ks)
        if rest < 0:
            continue
        b = [k * q for k in ks] + [rest * q]
        if any(b[p] < lb[p] or b[p] > ub[p] for p in range(n)):
            continue
        best = min(best, makespan(curves, b))
    return best


def capacity_bisect(f: Callable[[float], float], T: float, lo: float, hi: float) -> float:
    """sup{x in [lo, hi] : f(x) <= T} by 200 bisection steps (hi finite)."""
    if f(lo) > T:
        return lo
    if f(hi) <= T:
        return hi
    a, b = lo, hi
    for _ in range(200):
        m = 0.5 * (a + b)
        if f(m) <= T:
            a = m
        else:
            b = m
    return a
