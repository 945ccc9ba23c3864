"""Pure-Python oracles of spec 000 (independent of the C core): naive enumeration (2.1),
threshold DP (2.9), brute-force load balance (2.10) and the linear-profile formulas (3)."""

from __future__ import annotations

import math
from fractions import Fraction


def _table(profiles):
    """[{size: (t, e)}] per processor, from (sizes, times, energies) triples."""
    out = []
    for sizes, times, energies in profiles:
        out.append({int(s): (float(t), float(e)) for s, t, e in zip(sizes, times, energies)})
    return out


def evaluate(profiles, X):
    """(time, right-fold dynamic energy, active) of X."""
    tab = _table(profiles)
    T, E, A = 0.0, 0.0, 0
    for i in range(len(X) - 1, -1, -1):
        if X[i] == 0:
            continue
        t, e = tab[i][X[i]]
        E = e + E
        T = max(T, t)
        A += 1
    return T, E, A


def all_distributions(profiles, n):
    tab = _table(profiles)
    doms = [[0] + sorted(d) for d in tab]

    def rec(i, w, acc):
        if i == len(doms):
            if w == 0:
                yield tuple(acc)
            return
        for x in doms[i]:
            if x > w:
                break
            acc.append(x)
            yield from rec(i + 1, w - x, acc)
            acc.pop()

    yield from rec(0, n, [])


def naive_front(profiles, n):
    """NAIVE of spec 2.1: [(E, T, X)] energy ascending."""
    best = []
    for X in all_distributions(profiles, n):
        T, E, A = evaluate(profiles, X)
        best.append((E, T, A, X))
    best.sort()
    front, tmin = [], math.inf
    for E, T, A, X in best:
        if T < tmin:
            front.append((E, T, X))
            tmin = T
    return front


def _min_energy(tab, n, tau):
    """min right-fold energy with every time <= tau (DP over processors from the last)."""
    p = len(tab)
    D = [0.0] + [math.inf] * n
    for i in range(p - 1, -1, -1):
        Dn = list(D)  # x_i = 0
        for x, (t, e) in tab[i].items():
            if t > tau or x > n:
                continue
            for w in range(x, n + 1):
                if D[w - x] < math.inf:
                    v = e + D[w - x]
                    Dn[w] = min(Dn[w], v)
        D = Dn
    return D[n]


def threshold_dp_front(profiles, n):
    """Spec 2.9 (objective vectors only): [(E, T)] energy ascending."""
    tab = _table(profiles)
    if n == 0:
        return [(0.0, 0.0)]
    C = sorted({t for d in tab for x, (t, e) in d.items() if x <= n})
    front, best = [], math.inf
    for tau in C:
        E = _min_energy(tab, n, tau)
        if E < best:
            front.append((E, tau))
            best = E
    return front[::-1]


def load_balanced(profiles, n, mode="max_active"):
    """Spec 2.10 by enumeration: (T, E, X) or None."""
    cands = []
    p = len(profiles)
    tab = _table(profiles)
    for X in all_distributions(profiles, n):
        A = sum(1 for x in X if x > 0)
        if mode == "all_active" and A != p:
            continue
        ts = [tab[i][x][0] for i, x in enumerate(X) if x > 0]
        T, E, _ = evaluate(profiles, X)
        spread = (max(ts) - min(ts)) if ts else 0.0
        cands.append((-A, spread, T, E, X))
    if not cands:
        return None
    cands.sort()
    _, _, T, E, X = cands[0]
    return T, E, X


def linear2_count(n, a, b):
    """|front| of spec 3.2 for p = 2 linear profiles on sizes 1..n (exact arithmetic)."""
    if b[0] == b[1]:
        return 1
    k, o = (0, 1) if b[0] < b[1] else (1, 0)
    xs = Fraction(n * a[o], a[k] + a[o])
    xc, xf = math.ceil(xs), math.floor(xs)
    extra = 1 if (xs.denominator != 1 and a[o] * (n - xf) < a[k] * xc) else 0
    return n - xc + 1 + extra


def envelope(n, a, b, T):
    """E*(T) of spec 3.3 (continuous greedy fill, most efficient first)."""
    order = sorted(range(len(a)), key=lambda i: b[i])
    rest, E = float(n), 0.0
    for i in order:
        x = min(T / a[i], rest)
        E += b[i] * x
        rest -= x
    return E
