"""Reference performance models, solver and rounding of wpart.dynamic (spec 001 §1.3-1.6), in
pure Python, for the P13 reference of PLB-HAC (tests/oracles/dynamic_ref_plbhac.py).

Written from the spec. Where an integer outcome (a block size) depends on the last bits of a
float, the C arithmetic is mirrored operation by operation and said so:

* the candidate fits: weighted least squares by Householder QR on unit-norm columns, as
  ``csrc/dynamic/model_fit.c`` does it (NumPy's LAPACK QR differs in the last bits, and an exact
  linear4 model then breaks the rounding's ties differently); the order of the terms inside
  ``F(u)`` (``u, u², u³, eᵘ, u·eᵘ, ln u, u·ln u``) is the C one for the same reason;
* the inverse ``sup{x : E(x) <= T}``: Illinois regula falsi with the bisection safeguard of
  ``model_solve.c`` (the capacity ``H(τ)`` is floored into the step volume ``S``, and on linear4
  it is an exact integer, so the side from which the root is approached decides ``S``);
* the equal-time solve is NOT mirrored: a plain bisection on ``T`` (spec §1.5) followed by the
  interpolation ``x = x(T_lo) + θ (x(T_hi) − x(T_lo))`` that makes ``Σ x = S``; the optimal
  rounding (§1.6) makes the integer blocks insensitive to the last digits of ``x``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

__all__ = ["RefModel", "fit_model", "model_eval", "inverse", "capacity", "solve", "round_blocks"]

RANK_TOL, MONO_TOL, SSE_FLOOR, GRID = 1e-9, 1e-12, 1e-24, 64


def _basis(i: int, u: float) -> float:
    return (u, u * u, u * u * u, math.exp(u) if i == 3 else 0.0, math.log(u) if i == 4 else 0.0,
            u * math.exp(u) if i == 5 else 0.0, u * math.log(u) if i == 6 else 0.0)[i]  # fmt: skip


def _basis_deriv(i: int, u: float) -> float:
    if i == 0:
        return 1.0
    if i == 1:
        return 2.0 * u
    if i == 2:
        return 3.0 * u * u
    if i == 3:
        return math.exp(u)
    if i == 4:
        return 1.0 / u
    if i == 5:
        return (1.0 + u) * math.exp(u)
    return math.log(u) + 1.0


def _f(mask: int, coef: Sequence[float], c0: float, u: float) -> float:
    """F(u) = c0 + sum of the masked terms, in the C order of evaluation."""
    s = c0
    if mask & 1:
        s += coef[0] * u
    if mask & 2:
        s += coef[1] * u * u
    if mask & 4:
        s += coef[2] * u * u * u
    if mask & 0x28:
        e = math.exp(u)
        if mask & 8:
            s += coef[3] * e
        if mask & 32:
            s += coef[5] * u * e
    if mask & 0x50:
        lg = math.log(u) if u > 0 else (-math.inf if u == 0 else math.nan)
        if mask & 16:
            s += coef[4] * lg
        if mask & 64:
            s += coef[6] * u * lg
    return s


@dataclass
class RefModel:
    """E(x) = F(x / x_scale) + G, on the evaluation domain of spec §1.3 step 10."""

    mask: int
    coef: list
    c0: float
    x_scale: float
    g_slope: float
    g_icept: float
    x_a: float
    x_b: float
    e_a: float
    e_b: float
    slope_hi: float
    kind: int  # 0 selected, 1 bootstrap affine, 2 proportional


def model_eval(m: RefModel, x: float) -> float:
    """E(x): 0 at x <= 0, flat below x_a, linear above x_b (slope floor)."""
    if not x > 0.0:
        return math.nan if math.isnan(x) else 0.0
    if x <= m.x_a:
        return m.e_a
    if x >= m.x_b:
        return m.e_b + m.slope_hi * (x - m.x_b)
    u = x / m.x_scale
    return _f(m.mask, m.coef, m.c0, u) + m.g_slope * u + m.g_icept


def _candidate(u, W, mc, mask, cst):  # noqa: ANN001, ANN202
    """WLS by Householder QR on unit-norm columns; None when |R_jj| < RANK_TOL."""
    md = len(u)
    cols = [i for i in range(7) if mask >> i & 1] + ([-1] if cst else [])
    k = len(cols)
    a, scale = [], []
    for ci in cols:
        col = [math.sqrt(W[g]) * (1.0 if ci < 0 else _basis(ci, u[g])) for g in range(md)]
        amax = 0.0
        for v in col:
            amax = max(amax, abs(v))  # fmax (no NaN here on admissible data)
        if not (amax > 0.0) or not math.isfinite(amax):
            return None
        nrm = 0.0
        for v in col:
            t = v / amax
            nrm += t * t
        nrm = amax * math.sqrt(nrm)
        sc = 1.0 / nrm
        scale.append(sc)
        a.append([v * sc for v in col])
    b = [math.sqrt(W[g]) * mc[g] for g in range(md)]
    z = [0.0] * k
    for j in range(k):
        v = a[j]
        nrm = 0.0
        for g in range(j, md):
            nrm += v[g] * v[g]
        nrm = math.sqrt(nrm)
        if nrm < RANK_TOL:
            return None
        alpha = -nrm if v[j] > 0.0 else nrm
        v[j] -= alpha
        vn2 = 0.0
        for g in range(j, md):
            vn2 += v[g] * v[g]
        if vn2 > 0.0:
            for jj in range(j + 1, k):
                w = a[jj]
                dot = 0.0
                for g in range(j, md):
                    dot += v[g] * w[g]
                f = 2.0 * dot / vn2
                for g in range(j, md):
                    w[g] -= f * v[g]
            dot = 0.0
            for g in range(j, md):
                dot += v[g] * b[g]
            f = 2.0 * dot / vn2
            for g in range(j, md):
                b[g] -= f * v[g]
        z[j] = alpha
    y = [0.0] * k
    for j in range(k - 1, -1, -1):
        s = b[j]
        for jj in range(j + 1, k):
            s -= a[jj][j] * y[jj]
        y[j] = s / z[j]
    coef, c0 = [0.0] * 7, 0.0
    for j in range(k):
        v = y[j] * scale[j]
        if not math.isfinite(v):
            return None
        if cols[j] < 0:
            c0 = v
        else:
            coef[cols[j]] = v
    return coef, c0


def fit_model(x: Sequence[int], tc: Sequence[float], tx: Sequence[float] | None, quantum: int = 1,
              intercept: bool = True, decay: float = 1.0, allowed: int = 0x7F) -> RefModel:
    """Spec §1.3 with plain weights, no window, <= 3 terms; ``decay`` weighs a sample of age a
    (in samples of the PU, the newest 0) by decay^a and replaces m by m_eff; ``allowed`` is the
    mask of the candidate basis functions (bit i: x, x^2, x^3, exp, log, x exp, x log)."""
    m = len(x)
    d = [1.0 if decay == 1.0 else decay ** float(m - 1 - i) for i in range(m)]
    order = sorted(range(m), key=lambda i: (x[i], tc[i], tx[i] if tx is not None else 0.0, i))
    swt2 = sd = sd2 = 0.0
    for i in order:
        sd += d[i]
        sd2 += d[i] * d[i]
        swt2 += d[i] * tc[i] * tc[i]
    x_lo, x_hi = x[order[0]], x[order[-1]]
    gu, gW, gmc, gmx = [], [], [], []
    ss_within, r = 0.0, 0
    while r < m:  # 1. duplicates, weighted Welford in canonical order
        xv = x[order[r]]
        Wg = mean = meanx = ssg = 0.0
        while r < m and x[order[r]] == xv:
            i = order[r]
            Wg += d[i]  # decay weights of old samples may underflow to 0: they add nothing
            if Wg > 0.0:
                delta = tc[i] - mean
                mean += (d[i] / Wg) * delta
                ssg += d[i] * delta * (tc[i] - mean)
                if tx is not None:
                    meanx += (d[i] / Wg) * (tx[i] - meanx)
            r += 1
        gu.append(xv / x_hi)
        gW.append(Wg)
        gmc.append(mean)
        gmx.append(meanx)
        ss_within += ssg
    md = len(gu)
    x_b = 2.0 * x_hi
    x_a = min(max(float(quantum), x_lo / 8.0), x_b)
    me = sd * sd / sd2  # m_eff = (sum w)^2 / sum w^2

    def sse(mask: int, coef: list, c0: float) -> float:
        s = ss_within
        for g in range(md):
            d = _f(mask, coef, c0, gu[g]) - gmc[g]
            s += gW[g] * d * d
        return s

    def admissible(mask: int, coef: list, c0: float) -> bool:  # 6. finite, > 0, monotone
        prev, ratio = 0.0, x_b / x_a
        for i in range(GRID):
            xx = x_b if i == GRID - 1 else x_a * ratio ** (i / (GRID - 1))
            f = _f(mask, coef, c0, xx / x_hi)
            if not math.isfinite(f) or not f > 0.0:
                return False
            if i > 0 and f < prev - MONO_TOL * abs(prev):
                return False
            prev = f
        return True

    coef, c0, mask, kind = [0.0] * 7, 0.0, 1, 2
    if md >= 3:  # 5. selection by AICc; ties: fewer parameters, then the lower mask
        best = None
        for sm in range(1, 128):
            nb = bin(sm).count("1")
            if nb > 3 or sm & ~allowed:
                continue
            for cst in range(2 if intercept else 1):
                k = nb + cst
                if k > md - 1 or m - k - 1 < 1 or me - k - 1 <= 0.0:
                    continue
                fit = _candidate(gu, gW, gmc, sm, cst)
                if fit is None or not admissible(sm, *fit):
                    continue
                s = max(sse(sm, *fit), SSE_FLOOR * swt2)
                score = (me * math.log(s / me) if s > 0.0 else -math.inf) + 2.0 * k
                score += 2.0 * k * (k + 1) / (me - k - 1)
                key = (sm << 1) | cst
                tie = best is not None and score == best[0] and (k, key) < (best[1], best[2])
                if best is None or score < best[0] or tie:
                    best = (score, k, key, fit)
        if best is not None:
            coef, c0 = best[3]
            mask, kind = best[2] >> 1, 0
    elif md == 2 and intercept:  # 4. bootstrap: affine through the two means
        c1 = (gmc[1] - gmc[0]) / (gu[1] - gu[0])
        cc = gmc[0] - c1 * gu[0]
        if c1 > 0.0 and cc >= 0.0:
            coef, c0, kind = [c1] + [0.0] * 6, cc, 1
    if kind == 2:  # 8. proportional fallback
        num = den = 0.0
        for g in range(md):
            num += gW[g] * gmc[g] * gu[g]
            den += gW[g] * gu[g] * gu[g]
        coef, c0, mask = [max(num / den, 0.0) if den > 0.0 else 0.0] + [0.0] * 6, 0.0, 1
    used = 0
    for i in range(7):
        if mask >> i & 1 and coef[i] != 0.0:
            used |= 1 << i
        else:
            coef[i] = 0.0
    if kind == 2 and used == 0:
        used = 1
    a1 = a2 = 0.0
    if tx is not None:  # 9. transfer model
        Wt = ub = tb = 0.0
        for g in range(md):
            Wt += gW[g]
            if Wt > 0.0:
                ub += (gW[g] / Wt) * (gu[g] - ub)
                tb += (gW[g] / Wt) * (gmx[g] - tb)
        if md >= 2:
            sxy = sxx = 0.0
            for g in range(md):
                sxy += gW[g] * (gu[g] - ub) * (gmx[g] - tb)
                sxx += gW[g] * (gu[g] - ub) * (gu[g] - ub)
            a1 = sxy / sxx if sxx > 0.0 else 0.0
            a2 = tb - a1 * ub
            if a1 < 0.0:
                a1, a2 = 0.0, tb
            elif a2 < 0.0:
                num = den = 0.0
                for g in range(md):
                    num += gW[g] * gu[g] * gmx[g]
                    den += gW[g] * gu[g] * gu[g]
                a1, a2 = (max(num / den, 0.0) if den > 0.0 else 0.0), 0.0
        else:
            a1, a2 = 0.0, tb
        a2 = max(a2, 0.0)
    ua, ubb = x_a / x_hi, x_b / x_hi
    e_a = _f(used, coef, c0, ua) + a1 * ua + a2
    e_b = _f(used, coef, c0, ubb) + a1 * ubb + a2
    d = 0.0
    for i in range(7):
        if used >> i & 1:
            d += coef[i] * _basis_deriv(i, ubb)
    deriv = (d + a1) / x_hi
    slope_hi = max(deriv if math.isfinite(deriv) else 0.0, 0.5 * e_b / x_b)
    e_a = min(e_a, e_b)
    return RefModel(used, coef, c0, float(x_hi), a1, a2, x_a, x_b, e_a, e_b, slope_hi, kind)


# ------------------------------------------------------------------------------ inverse (mirrored)
def _inv_bracket(E, T, a, fa, b, fb, rtol, atol, max_inner):  # noqa: ANN001, ANN202
    ga, gb = fa - T, fb - T
    wref, last, stale = b - a, 0, 0
    for _ in range(max_inner):
        w, xtol = b - a, rtol * b + atol
        if w <= xtol:
            break
        delta = 0.25 * xtol
        if stale >= 3:
            c, stale = a + 0.5 * w, 0
        else:
            c = a - ga * (w / (gb - ga)) if (gb - ga) > 0.0 else a + 0.5 * w
            if not c >= a + delta:
                c = a + delta
            elif not c <= b - delta:
                c = b - delta
        if not (a < c < b):
            break
        fc = E(c)
        if fc <= T:
            a, fa, ga = c, fc, fc - T
            if last == 1:
                gb *= 0.5
            last = 1
        else:
            b, fb, gb = c, fc, fc - T
            if last == -1:
                ga *= 0.5
            last = -1
        if b - a <= 0.5 * wref:
            wref, stale = b - a, 0
        else:
            stale += 1
    return a, fa, b, fb


def _inv_cold(E, T, lo, hi, tol_x=1e-12, max_inner=200):  # noqa: ANN001, ANN202
    flo = E(lo)
    if flo > T:
        return lo
    a, fa = lo, flo
    if math.isfinite(hi):
        b, fb = hi, E(hi)
        if fb <= T:
            return hi
    else:
        b = 2.0 * lo if lo > 0.0 else 1.0
        while True:
            fb = E(b)
            if fb > T:
                break
            a, fa, b = b, fb, 2.0 * b
            if not math.isfinite(b):
                return math.inf
    return _inv_bracket(E, T, a, fa, b, fb, tol_x, 1e-3 * tol_x * b, max_inner)[0]


def inverse(m: RefModel, t: float, lo: float = 0.0, hi: float = math.inf) -> float:
    """sup{x in [lo, hi] : E(x) <= t}."""
    return _inv_cold(lambda v: model_eval(m, v), t, lo, hi)


def capacity(models: Sequence[RefModel], T: float, lb: Sequence[float],
             ub: Sequence[float]) -> float:
    """H(T) = sum_p x_p(T) with lb <= x_p <= ub (time mode, spec §1.9)."""
    H = 0.0
    for p, m in enumerate(models):
        H += _inv_cold(lambda v, m=m: model_eval(m, v), T, lb[p], ub[p])
    return H


# ------------------------------------------------------------------------------ solve and round
def solve(models: Sequence[RefModel], S: float, lb: Sequence[float], ub: Sequence[float],
          tol_T: float = 1e-10) -> tuple[list[float], float]:
    """(P_S) by water-filling bisection on T (spec §1.5); lower bounds that do not fit are
    scaled to sum to S (§1.8)."""
    n = len(models)
    E = [lambda v, m=m: model_eval(m, v) for m in models]
    slb = sum(lb)
    if slb >= S:
        f = S / slb
        x = [lb[p] * f for p in range(n)]
        return x, max(E[p](x[p]) if x[p] > 0 else 0.0 for p in range(n))
    up = [min(ub[p], S) for p in range(n)]
    T_lo, T_hi = 0.0, max(E[p](up[p]) for p in range(n))
    xs_lo, xs_hi = list(lb), list(up)
    H_lo, H_hi = slb, sum(up)
    for _ in range(200):
        if T_hi - T_lo <= tol_T * T_hi:
            break
        Tm = 0.5 * (T_lo + T_hi)
        xs = [_inv_cold(E[p], Tm, lb[p], up[p]) for p in range(n)]
        H = sum(xs)
        if H >= S:
            T_hi, H_hi, xs_hi = Tm, H, xs
        else:
            T_lo, H_lo, xs_lo = Tm, H, xs
    theta = (S - H_lo) / (H_hi - H_lo) if H_hi > H_lo else 1.0
    theta = min(max(theta, 0.0), 1.0)
    return [xs_lo[p] + theta * (xs_hi[p] - xs_lo[p]) for p in range(n)], T_hi


def round_blocks(models: Sequence[RefModel], x: Sequence[float], S: int, q: int,
                 lb: Sequence[int], ub: Sequence[int]) -> tuple[list[int], float]:
    """Floor to multiples of q (not below lb), then one quantum at a time to the PU that would
    finish it first, ties to the lowest index; a sub-quantum remainder likewise (spec §1.6)."""
    n = len(models)
    E = [lambda v, m=m: model_eval(m, v) for m in models]
    slb = sum(lb)
    lsc = S / slb if slb > S else 1.0
    L = [q * math.floor(lb[p] * lsc / q) if lsc < 1.0 else lb[p] for p in range(n)]
    b = [min(max(q * math.floor(x[p] / q), L[p]), ub[p]) for p in range(n)]
    tot = sum(b)
    while tot > S:  # x above S: quanta back from the slowest PU (not reached on a solved x)
        cand = [(E[p](b[p]), p) for p in range(n) if b[p] > L[p]]
        if not cand:
            break
        p = max(cand, key=lambda t: (t[0], -t[1]))[1]
        step = min(b[p] % q or q, b[p] - L[p], tot - S)
        b[p] -= step
        tot -= step
    r = S - tot
    while r >= q:
        cand = [(E[p](b[p] + q), p) for p in range(n) if b[p] <= ub[p] - q]
        if not cand:
            break
        p = min(cand)[1]
        b[p] += q
        r -= q
    if 0 < r < q:
        cand = [(E[p](b[p] + r), p) for p in range(n) if b[p] <= ub[p] - r]
        if cand:
            p = min(cand)[1]
            b[p] += r
            r = 0
    while r > 0:
        cand = [(E[p](b[p] + min(ub[p] - b[p], r)), p) for p in range(n) if ub[p] > b[p]]
        e, p = min(cand)
        pc = min(ub[p] - b[p], r)
        b[p] += pc
        r -= pc
    return b, max((E[p](b[p]) for p in range(n) if b[p] > 0), default=0.0)
