"""Brute-force oracles for wpart.spatial (pure Python, tiny matrices only).

Every function enumerates the partitions of its class explicitly (no bisection, no bounds)
and returns the optimal bottleneck. Nothing here calls the C core.
"""

from __future__ import annotations

import itertools
from functools import cache


def _pre(A):
    n1, n2 = len(A), len(A[0])
    S = [[0] * (n2 + 1) for _ in range(n1 + 1)]
    for i in range(n1):
        for j in range(n2):
            S[i + 1][j + 1] = S[i][j + 1] + S[i + 1][j] - S[i][j] + A[i][j]
    return S


def _load(S, r0, r1, c0, c1):
    return S[r1][c1] - S[r0][c1] - S[r1][c0] + S[r0][c0]


def grid_max(D, R, C):
    """The largest block load of the grid with row cuts `R` and column cuts `C` on the
    dense loads `D` (each block summed directly; empty stripes give 0)."""
    return float(max(D[R[i]:R[i + 1], C[j]:C[j + 1]].sum() for i in range(len(R) - 1)
                     for j in range(len(C) - 1)))


def transpose(A):
    return [list(r) for r in zip(*A)]


def seps_all(n, q):
    """Every separator vector 0 = s0 <= ... <= sq = n."""
    for inner in itertools.combinations_with_replacement(range(n + 1), q - 1):
        yield (0,) + inner + (n,)


def oned(w, q):
    """Optimal bottleneck of the chain w into q parts (enumeration)."""
    pre = [0]
    for x in w:
        pre.append(pre[-1] + x)
    return min(
        max(pre[s[p + 1]] - pre[s[p]] for p in range(q)) for s in seps_all(len(w), q)
    )


def _stripe_cols(A, a, b):
    return [sum(A[i][j] for i in range(a, b)) for j in range(len(A[0]))]


def rect_opt(A, P, Q):
    """Optimal P x Q rectilinear partition: every row-cut set x every column-cut set."""
    S = _pre(A)
    n1, n2 = len(A), len(A[0])
    best = None
    for R in seps_all(n1, P):
        for C in seps_all(n2, Q):
            v = max(
                _load(S, R[p], R[p + 1], C[q], C[q + 1])
                for p in range(P)
                for q in range(Q)
            )
            best = v if best is None or v < best else best
    return best


def pq_jagged(A, P, Q):
    """Optimal P x Q jagged partition with row stripes: every row-cut set, each stripe's
    columns split optimally by enumeration."""
    n1 = len(A)
    best = None
    for R in seps_all(n1, P):
        v = max(
            oned(_stripe_cols(A, R[p], R[p + 1]), Q) if R[p] < R[p + 1] else 0
            for p in range(P)
        )
        best = v if best is None or v < best else best
    return best


def m_jagged(A, m):
    """Optimal m-way jagged partition with row stripes: every set of distinct stripe cuts and
    every count vector (each >= 1, sum m), stripes split optimally by enumeration."""
    n1 = len(A)
    best = None
    cache = {}

    def stripe(a, b, x):
        key = (a, b, x)
        if key not in cache:
            cache[key] = oned(_stripe_cols(A, a, b), x)
        return cache[key]

    for P in range(1, min(n1, m) + 1):
        for inner in itertools.combinations(range(1, n1), P - 1):
            R = (0,) + inner + (n1,)
            for counts in _compositions(m, P):
                v = max(stripe(R[p], R[p + 1], counts[p]) for p in range(P))
                best = v if best is None or v < best else best
    return best


def _compositions(m, P):
    for cuts in itertools.combinations(range(1, m), P - 1):
        c = (0,) + cuts + (m,)
        yield tuple(c[i + 1] - c[i] for i in range(P))


def m_probe(A, m, stripe_cuts):
    """Optimal m-way jagged partition for fixed row stripes (every count vector)."""
    P = len(stripe_cuts) - 1
    return min(
        max(
            oned(_stripe_cols(A, stripe_cuts[p], stripe_cuts[p + 1]), c[p])
            if stripe_cuts[p] < stripe_cuts[p + 1]
            else 0
            for p in range(P)
        )
        for c in _compositions(m, P)
    )


def m_alloc(A, counts):
    """Optimal stripe cuts (row stripes, possibly empty) for fixed counts per stripe."""
    n1 = len(A)
    P = len(counts)
    return min(
        max(
            oned(_stripe_cols(A, R[p], R[p + 1]), counts[p]) if R[p] < R[p + 1] else 0
            for p in range(P)
        )
        for R in seps_all(n1, P)
    )


def hierarchical(A, m):
    """Optimal hierarchical (guillotine) partition: every cut position, dimension and part
    split, recursively (exhaustive, memoised; idle parts allowed)."""
    S = _pre(A)

    @cache
    def H(r0, r1, c0, c1, q):
        L = _load(S, r0, r1, c0, c1)
        if q == 1 or (r1 - r0) * (c1 - c0) <= 1:
            return L
        best = L  # keeping every part but one idle is allowed
        for j in range(1, q):
            for c in range(r0 + 1, r1):
                best = min(best, max(H(r0, c, c0, c1, j), H(c, r1, c0, c1, q - j)))
            for c in range(c0 + 1, c1):
                best = min(best, max(H(r0, r1, c0, c, j), H(r0, r1, c, c1, q - j)))
        return best

    return H(0, len(A), 0, len(A[0]), m)


def oned_speeds(w, speeds):
    """Optimal max_k load_k / speeds[k] over separators (parts in order, empty allowed)."""
    pre = [0]
    for x in w:
        pre.append(pre[-1] + x)
    q = len(speeds)
    return min(
        max((pre[s[p + 1]] - pre[s[p]]) / speeds[p] for p in range(q))
        for s in seps_all(len(w), q)
    )


def m_probe_speeds(A, speeds, stripe_cuts):
    """Fixed row stripes, processors used in order stripe by stripe: every count vector
    (>= 1 per stripe), each stripe split optimally among its processors."""
    P = len(stripe_cuts) - 1
    m = len(speeds)
    best = None
    for c in _compositions(m, P):
        v, k = 0.0, 0
        for p in range(P):
            v = max(
                v,
                oned_speeds(
                    _stripe_cols(A, stripe_cuts[p], stripe_cuts[p + 1]),
                    speeds[k : k + c[p]],
                ),
            )
            k += c[p]
        best = v if best is None or v < best else best
    return best


def oned_dp(w, q):
    """Optimal 1D bottleneck by the plain O(q n^2) DP (for medium chains)."""
    n = len(w)
    pre = [0]
    for x in w:
        pre.append(pre[-1] + x)
    INF = float("inf")
    F = [0] + [INF] * n
    for _ in range(q):
        F = [
            min(max(F[u], pre[t] - pre[u]) for u in range(t + 1)) for t in range(n + 1)
        ]
    return F[n]


def m_jagged_dp(A, m):
    """Optimal m-way jagged value (row stripes) by the plain recurrence of spec 3.10:
    F(i, q) = min over the last stripe [k, i) and its part count x of max(F(k, q-x), G(k, i, x))."""
    n1 = len(A)
    INF = float("inf")
    G = {}
    for k in range(n1):
        for i in range(k + 1, n1 + 1):
            cols = _stripe_cols(A, k, i)
            for x in range(1, m + 1):
                G[k, i, x] = oned_dp(cols, x)
    F = [[INF] * (m + 1) for _ in range(n1 + 1)]
    F[0][0] = 0
    for i in range(1, n1 + 1):
        for q in range(1, m + 1):
            F[i][q] = min(
                max(F[k][q - x], G[k, i, x]) for k in range(i) for x in range(1, q + 1)
            )
    return F[n1][m]


def m_jagged_speeds(A, speeds):
    """Optimal m-way jagged partition with speeds (row stripes, processors in order stripe by
    stripe, each stripe holding >= 1 processor, empty parts allowed): every stripe cut vector
    times every count vector."""
    n1, m = len(A), len(speeds)
    best = None
    for P in range(1, min(n1, m) + 1):
        for inner in itertools.combinations(range(1, n1), P - 1):
            v = m_probe_speeds(A, speeds, (0,) + inner + (n1,))
            best = v if best is None or v < best else best
    return best


def m_alloc_speeds(A, speeds, counts):
    """Optimal row stripes (possibly empty) for fixed counts with speeds: stripe p holds the
    processors counts[0] + ... + counts[p-1] onwards; an empty stripe's processors idle."""
    n1 = len(A)
    P = len(counts)
    best = None
    for R in seps_all(n1, P):
        v, g = 0.0, 0
        for p in range(P):
            if R[p] < R[p + 1]:
                v = max(
                    v,
                    oned_speeds(
                        _stripe_cols(A, R[p], R[p + 1]), speeds[g : g + counts[p]]
                    ),
                )
            g += counts[p]
        best = v if best is None or v < best else best
    return best


def hierarchical_speeds(A, speeds):
    """Optimal hierarchical partition with speeds: a node holding processors [k, k+q) is cut
    at every position of either dimension into [k, k+j) (top / left) and [k+j, k+q), or
    leaves its first or last processor idle; one processor costs load / speed (exhaustive)."""
    S = _pre(A)
    m = len(speeds)

    @cache
    def H(r0, r1, c0, c1, k, q):
        L = _load(S, r0, r1, c0, c1)
        if q == 1:
            return L / speeds[k]
        best = min(H(r0, r1, c0, c1, k + 1, q - 1), H(r0, r1, c0, c1, k, q - 1))
        for j in range(1, q):
            for c in range(r0 + 1, r1):
                best = min(
                    best, max(H(r0, c, c0, c1, k, j), H(c, r1, c0, c1, k + j, q - j))
                )
            for c in range(c0 + 1, c1):
                best = min(
                    best, max(H(r0, r1, c0, c, k, j), H(r0, r1, c, c1, k + j, q - j))
                )
        return best

    return H(0, len(A), 0, len(A[0]), 0, m)
