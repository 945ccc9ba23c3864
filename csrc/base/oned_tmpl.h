/*
 * oned_tmpl.h -- homogeneous 1D chains-on-chains on an additive cost, instantiated twice by
 * oned.c: for int64_t (exact integer arithmetic, fractions compared in 128 bits) and double.
 *
 * Expects: T (element type), FN(x) (name mangling), IS_INT (1 for int64_t); undefines them at
 * the end.
 * W is the bordered prefix of the chain (W[0] = 0, non-decreasing); cost(a, b) = W[b] - W[a].
 */

static inline double FN(hc)(const T *W, const double *sp, int64_t p, int64_t a, int64_t b)
{
    return (double)(W[b] - W[a]) / sp[p];
}

static int FN(cprobe)(const T *W, int64_t n, int64_t t, int64_t r, T B,
                      const wpart_control_t *ctl);
static int FN(hcprobe)(const T *W, const double *sp, int64_t n, int64_t t, int64_t p0, int64_t q,
                       double B, const wpart_control_t *ctl);

/* reach, one part of Nicol's search, the value bisection and the DP, once per cost
 * (oned_cost_tmpl.h): homogeneous parts, then parts with speeds (names FN(h...)) */
#define V T
#define GN(x) FN(x)
#define COST(p, a, b) (W[b] - W[a])
#define CPROBE(t, p, B) FN(cprobe)(W, n, (t), q - (p), (B), ctl)
#if IS_INT
#define KEY int64_t
#define KEY_VALUE(k, v) ((v) = (k))
#else
#define KEY uint64_t
#define KEY_VALUE(k, v) memcpy(&(v), &(k), sizeof(v))
#endif
#include "oned_cost_tmpl.h"

#define V double
#define GN(x) FN(h##x)
#define COST(p, a, b) FN(hc)(W, sp, (p), (a), (b))
#define CPROBE(t, p, B) FN(hcprobe)(W, sp, n, (t), (p), q, (B), ctl)
#define KEY uint64_t
#define KEY_VALUE(k, v) memcpy(&(v), &(k), sizeof(v))
#include "oned_cost_tmpl.h"

/* PROBE from position t with at most r parts and bottleneck B; ends[] (may be NULL) receives
 * the greedy part ends; returns 1 when the chain is covered. */
static int FN(probe)(const T *W, int64_t n, int64_t t, int64_t r, T B, int64_t *ends,
                     int64_t *nends)
{
    int64_t k = 0;
    while (k < r && t < n) {
        int64_t e = FN(reach)(W, NULL, 0, n, t, B);
        if (e == t) {
            break; /* one element alone exceeds B */
        }
        if (ends) {
            ends[k] = e;
        }
        k++;
        t = e;
    }
    if (nends) {
        *nends = k;
    }
    return t == n;
}

#ifndef ONED_STOP_PARTS
/* a probe inside a search asks the should-stop hook (clock-gated by its owner) every this many
 * parts: a probe over 5 * 10^6 parts took 0.15-0.4 s on a loaded machine */
#define ONED_STOP_PARTS ((int64_t)1 << 14)
static inline int oned_stop(const wpart_control_t *ctl)
{
    return wpart_i_stop_asked(ctl);
}
#endif

/* FN(probe) without ends, polled: -1 when ctl's should-stop hook fires (else as FN(probe)) */
static int FN(cprobe)(const T *W, int64_t n, int64_t t, int64_t r, T B, const wpart_control_t *ctl)
{
    int64_t k = 0;
    while (k < r && t < n) {
        int64_t e = FN(reach)(W, NULL, 0, n, t, B);
        if (e == t) {
            break; /* one element alone exceeds B */
        }
        k++;
        t = e;
        if (WPART_UNLIKELY(k % ONED_STOP_PARTS == 0) && oned_stop(ctl)) {
            return -1;
        }
    }
    return t == n;
}

/* is x >= num / den, exactly? (den >= 1) */
static int FN(ge_frac)(T x, T num, int64_t den)
{
#if IS_INT
    return (__int128)x * den >= (__int128)num;
#else
    return x >= num / (double)den;
#endif
}

/* smallest e in [lo, n] with W[e] - W[t] >= num/den (n if none) */
static int64_t FN(first_ge)(const T *W, int64_t n, int64_t t, int64_t lo, T num, int64_t den)
{
    int64_t hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (FN(ge_frac)(W[mid] - W[t], num, den)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

static T FN(amax)(const T *W, int64_t n)
{
    T a = 0;
    for (int64_t i = 0; i < n; i++) {
        T d = W[i + 1] - W[i];
        a = d > a ? d : a;
    }
    return a;
}

/* DirectCut (2.3) */
static void FN(direct_cut)(const T *W, const double *sp, int64_t n, int64_t q, int64_t *seps)
{
    const T total = W[n] - W[0];
    int64_t t = 0;
    seps[0] = 0;
    for (int64_t p = 1; p < q; p++) {
        t = FN(first_ge)(W, n, t, t, total, q);
        seps[p] = t;
    }
    seps[q] = n;
}

/* 1D recursive bisection (2.4): split q into floor(q/2) and the rest at the crossing point */
static void FN(rb)(const T *W, const double *sp, int64_t lo, int64_t hi, int64_t q,
                   int64_t *seps, int64_t p0)
{
    while (q > 1) {
        const int64_t q1 = q / 2, q2 = q - q1;
        /* smallest c with (W[c]-W[lo]) * q2 >= (W[hi]-W[c]) * q1 */
        int64_t a = lo, b = hi;
        while (a < b) {
            int64_t mid = a + (b - a) / 2;
#if IS_INT
            int ge = (__int128)(W[mid] - W[lo]) * q2 >= (__int128)(W[hi] - W[mid]) * q1;
#else
            int ge = (W[mid] - W[lo]) / (double)q1 >= (W[hi] - W[mid]) / (double)q2;
#endif
            if (ge) {
                b = mid;
            } else {
                a = mid + 1;
            }
        }
        int64_t c = a;
        if (c > lo) { /* compare with c - 1: keep the smaller max(L1/q1, L2/q2) */
#if IS_INT
            __int128 l1a = (__int128)(W[c] - W[lo]) * q2, l2a = (__int128)(W[hi] - W[c]) * q1;
            __int128 l1b = (__int128)(W[c - 1] - W[lo]) * q2, l2b = (__int128)(W[hi] - W[c - 1]) * q1;
            __int128 ma = l1a > l2a ? l1a : l2a, mb = l1b > l2b ? l1b : l2b;
#else
            double l1a = (W[c] - W[lo]) / (double)q1, l2a = (W[hi] - W[c]) / (double)q2;
            double l1b = (W[c - 1] - W[lo]) / (double)q1, l2b = (W[hi] - W[c - 1]) / (double)q2;
            double ma = l1a > l2a ? l1a : l2a, mb = l1b > l2b ? l1b : l2b;
#endif
            if (mb < ma) {
                c = c - 1;
            }
        }
        seps[p0 + q1] = c;
        FN(rb)(W, sp, lo, c, q1, seps, p0);
        lo = c;
        p0 += q1;
        q = q2;
    }
}

/* bottleneck of DirectCut's partition: a feasible value, <= T/q + amax */
static T FN(direct_cut_value)(const T *W, int64_t n, int64_t q)
{
    const T total = W[n] - W[0];
    int64_t t = 0;
    T worst = 0;
    for (int64_t p = 1; p < q && t < n; p++) {
        int64_t e = FN(first_ge)(W, n, t, t, total, q);
        T c = W[e] - W[t];
        worst = c > worst ? c : worst;
        t = e;
    }
    T c = W[n] - W[t];
    return c > worst ? c : worst;
}

/*
 * Exact optimum by Nicol's parametric search with the NicolPlus bounds (2.6).
 *
 * Besides the index windows of 2.6, every candidate bottleneck B met in the binary searches is
 * first compared with the global bounds: B >= best (a known feasible value) is feasible and
 * B <= the largest value proven infeasible (or below max(T/q, amax)) is infeasible, so most
 * search steps need no probe. Both rules are exact: a residual probe at step p succeeds at B iff
 * the whole chain can be split at cost <= B with the parts already fixed (those are cheaper
 * than the residual optimum), as long as the optimum has not yet been found; once it has, every
 * later candidate is >= it and cannot change the answer.
 */
static wpart_status_t FN(nicol)(const T *W, const double *sp, int64_t n, int64_t q,
                                const wpart_control_t *ctl,
                                double t0, T *Bout, wpart_1d_stats_t *stats)
{
    const T amax = FN(amax)(W, n);
#if IS_INT
    const T total = W[n] - W[0];
    T lb0 = total / q + (total % q != 0);
    lb0 = lb0 > amax ? lb0 : amax;
#else
    const T lb0 = amax; /* T/q is not a safe bound under rounding */
#endif
    T best = FN(direct_cut_value)(W, n, q);
    T infeas = 0;     /* largest bottleneck proven infeasible (valid when has_inf) */
    int has_inf = 0;
    int64_t t = 0;
    wpart_status_t st = WPART_OK;
    for (int64_t p = 0; p + 1 < q && best > lb0; p++) {
#if IS_INT
        if (has_inf && infeas + 1 == best) {
            break; /* the bounds meet: best is optimal */
        }
#endif
        const int64_t r = q - p;
        const T rem = W[n] - W[t];
        int64_t lo = t + 1, hi = n;
        /* NicolPlus index bounds: the smallest feasible end has cost >= rem/r, and any cost
         * >= rem/r + amax is feasible (DirectCut bound on the residual chain). */
        int64_t lo2 = FN(first_ge)(W, n, t, t + 1, rem, r);
#if IS_INT
        int64_t hi2;
        {
            int64_t a = t + 1, b = n;
            __int128 target = (__int128)rem + (__int128)amax * r;
            while (a < b) {
                int64_t mid = a + (b - a) / 2;
                if ((__int128)(W[mid] - W[t]) * r >= target) {
                    b = mid;
                } else {
                    a = mid + 1;
                }
            }
            hi2 = a;
        }
#else
        int64_t hi2 = FN(first_ge)(W, n, t, lo2, rem + amax * (double)r, r);
        /* float: the bounds are rounded, so confirm them with a probe each */
        if (lo2 > t + 1) {
            stats->probes++;
            int f = FN(cprobe)(W, n, t, r, W[lo2 - 1] - W[t], ctl);
            if (f < 0) {
                WPART_FAIL(WPART_ECANCELLED, "stopped on request");
            }
            if (f) {
                lo2 = t + 1;
            }
        }
        if (hi2 < n) {
            stats->probes++;
            int f = FN(cprobe)(W, n, t, r, W[hi2] - W[t], ctl);
            if (f < 0) {
                WPART_FAIL(WPART_ECANCELLED, "stopped on request");
            }
            if (!f) {
                hi2 = n;
            }
        }
#endif
        lo = lo2;
        hi = hi2 < lo ? lo : hi2;
        WPART_CHECK(FN(nicol_part)(W, NULL, n, q, p, t, &lo, hi, lb0, &best, &infeas, &has_inf,
                                   ctl, t0, stats));
        T cand = W[lo] - W[t];
        if (cand < best) {
            best = cand;
        }
        if (lo == t + 1) {
            break; /* a single element costs <= OPT: the candidate is optimal */
        }
        t = lo - 1;
        if ((p & 63) == 63) {
            WPART_CHECK(wpart_i_poll(ctl, t0, (double)p, (double)q));
        }
        if (p + 2 == q && W[n] - W[t] < best) {
            best = W[n] - W[t]; /* the last part takes the rest */
        }
    }
    *Bout = best;
cleanup:
    return st;
}

/* Exact optimum by bisection on the bottleneck value: integers for int64, the ordered bit
 * patterns of non-negative doubles for float64 (so both are exact). */
static wpart_status_t FN(bisect)(const T *W, const double *sp, int64_t n, int64_t q,
                                 const wpart_control_t *ctl,
                                 double t0, T *Bout, wpart_1d_stats_t *stats)
{
    const T amax = FN(amax)(W, n);
    const T total = W[n] - W[0];
#if IS_INT
    int64_t lo = total / q + (total % q != 0);
    lo = lo > amax ? lo : amax;
    int64_t hi = total;
    /* DirectCut's bound T/q + amax is feasible: use it when smaller than the total */
    if (amax < total - total / q) {
        int64_t ub = total / q + amax + 1;
        hi = ub < hi ? ub : hi;
    }
#else
    uint64_t lo, hi;
    double dlo = amax, dhi = total;
    memcpy(&lo, &dlo, sizeof lo);
    memcpy(&hi, &dhi, sizeof hi);
#endif
    return FN(bisect_keys)(W, NULL, n, q, lo, hi, ctl, t0, Bout, stats);
}

static void FN(normalize)(int64_t *s, int64_t n, int64_t q)
{
    s[0] = 0;
    for (int64_t p = 1; p <= q; p++) {
        int64_t v = s[p] < n - (q - p) ? s[p] : n - (q - p);
        s[p] = v > s[p - 1] + 1 ? v : s[p - 1] + 1;
    }
}

static wpart_status_t FN(homog)(const T *W, int64_t n, int64_t q, const wpart_1d_options_t *opt,
                                int64_t *seps, wpart_1d_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    T B = 0;
    int exact = 1;
    WPART_CHECK(FN(run)(W, NULL, n, q, opt, &B, seps, &exact, stats));
    if (exact) {
        int64_t k = 0;
        stats->probes++;
        if (!FN(probe)(W, n, 0, q, B, seps + 1, &k)) {
            WPART_FAIL(WPART_EINTERNAL, "the optimal bottleneck failed its own probe");
        }
        seps[0] = 0;
        for (int64_t p = k + 1; p <= q; p++) {
            seps[p] = n;
        }
    }
    if (opt->normalize && q <= n) {
        FN(normalize)(seps, n, q);
    }
    T worst = 0;
    for (int64_t p = 0; p < q; p++) {
        T c = W[seps[p + 1]] - W[seps[p]];
        worst = c > worst ? c : worst;
    }
    if (exact && worst != B) {
        WPART_FAIL(WPART_EINTERNAL, "separators do not reach the optimal bottleneck");
    }
    stats->bottleneck = (double)worst;
#if IS_INT
    stats->bottleneck_i64 = worst;
#endif
cleanup:
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Heterogeneous parts: cost_p(a, b) = (W[b] - W[a]) / speed[p] in double precision. The     */
/* cost is monotone in b and in a, so PROBE, Nicol, bisection and the DP stay exact for it.   */
/* ------------------------------------------------------------------------------------------ */

/* PROBE for parts p0 .. q-1 starting at t; ends[k] for part p0+k (empty parts allowed) */
static int FN(hprobe)(const T *W, const double *sp, int64_t n, int64_t t, int64_t p0, int64_t q,
                      double B, int64_t *ends)
{
    for (int64_t p = p0; p < q; p++) {
        if (t < n) {
            t = FN(hreach)(W, sp, p, n, t, B);
        }
        if (ends) {
            ends[p - p0] = t;
        }
    }
    return t == n;
}

/* FN(hprobe) without ends, polled: -1 when ctl's should-stop hook fires */
static int FN(hcprobe)(const T *W, const double *sp, int64_t n, int64_t t, int64_t p0, int64_t q,
                       double B, const wpart_control_t *ctl)
{
    for (int64_t p = p0; p < q; p++) {
        if (t < n) {
            t = FN(hreach)(W, sp, p, n, t, B);
        }
        if (WPART_UNLIKELY((p - p0 + 1) % ONED_STOP_PARTS == 0) && oned_stop(ctl)) {
            return -1;
        }
    }
    return t == n;
}

static wpart_status_t FN(hnicol)(const T *W, const double *sp, int64_t n, int64_t q,
                                 const wpart_control_t *ctl, double t0, double *Bout,
                                 wpart_1d_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    /* bounds as in the homogeneous Nicol: everything on the fastest part is feasible; the
     * heaviest element on the fastest part is a lower bound (rounding is monotone) */
    double smax = sp[0];
    int64_t pfast = 0;
    for (int64_t p = 1; p < q; p++) {
        if (sp[p] > smax) {
            smax = sp[p];
            pfast = p;
        }
    }
    double best = FN(hc)(W, sp, pfast, 0, n);
    const double lb0 = (double)FN(amax)(W, n) / smax;
    double infeas = 0.0;
    int has_inf = 0;
    int64_t t = 0;
    for (int64_t p = 0; p + 1 < q && t < n && best > lb0; p++) {
        int64_t lo = t + 1;
        WPART_CHECK(FN(hnicol_part)(W, sp, n, q, p, t, &lo, n, lb0, &best, &infeas, &has_inf, ctl,
                                    t0, stats));
        double cand = FN(hc)(W, sp, p, t, lo);
        best = cand < best ? cand : best;
        t = lo - 1;
        if ((p & 63) == 63) {
            WPART_CHECK(wpart_i_poll(ctl, t0, (double)p, (double)q));
        }
        if (p + 2 == q) {
            double last = FN(hc)(W, sp, q - 1, t, n);
            best = last < best ? last : best;
        }
    }
    *Bout = best;
cleanup:
    return st;
}

static wpart_status_t FN(hbisect)(const T *W, const double *sp, int64_t n, int64_t q,
                                  const wpart_control_t *ctl, double t0, double *Bout,
                                  wpart_1d_stats_t *stats)
{
    double dhi = FN(hc)(W, sp, 0, 0, n), dlo = 0.0;
    uint64_t lo, hi;
    memcpy(&lo, &dlo, sizeof lo);
    memcpy(&hi, &dhi, sizeof hi);
    return FN(hbisect_keys)(W, sp, n, q, lo, hi, ctl, t0, Bout, stats);
}

/* heuristics with speeds: DirectCut on speed-proportional cumulative targets, and recursive
 * bisection splitting the speed sum */
static void FN(hdirect_cut)(const T *W, const double *sp, int64_t n, int64_t q, int64_t *seps)
{
    double stot = 0.0, acc = 0.0;
    for (int64_t p = 0; p < q; p++) {
        stot += sp[p];
    }
    const double total = (double)(W[n] - W[0]);
    int64_t t = 0;
    seps[0] = 0;
    for (int64_t p = 1; p < q; p++) {
        acc += sp[p - 1];
        double target = total * (acc / stot);
        int64_t a = t, b = n;
        while (a < b) {
            int64_t mid = a + (b - a) / 2;
            if ((double)(W[mid] - W[0]) >= target) {
                b = mid;
            } else {
                a = mid + 1;
            }
        }
        t = a;
        seps[p] = t;
    }
    seps[q] = n;
}

static void FN(hrb)(const T *W, const double *sp, int64_t lo, int64_t hi, int64_t q,
                    int64_t *seps, int64_t p0)
{
    while (q > 1) {
        const int64_t q1 = q / 2;
        double s1 = 0.0, s2 = 0.0;
        for (int64_t p = 0; p < q; p++) {
            if (p < q1) {
                s1 += sp[p0 + p];
            } else {
                s2 += sp[p0 + p];
            }
        }
        int64_t a = lo, b = hi;
        while (a < b) {
            int64_t mid = a + (b - a) / 2;
            if ((double)(W[mid] - W[lo]) / s1 >= (double)(W[hi] - W[mid]) / s2) {
                b = mid;
            } else {
                a = mid + 1;
            }
        }
        int64_t c = a;
        if (c > lo) {
            double ma = fmax((double)(W[c] - W[lo]) / s1, (double)(W[hi] - W[c]) / s2);
            double mb = fmax((double)(W[c - 1] - W[lo]) / s1, (double)(W[hi] - W[c - 1]) / s2);
            if (mb < ma) {
                c--;
            }
        }
        seps[p0 + q1] = c;
        FN(hrb)(W, sp, lo, c, q1, seps, p0);
        lo = c;
        p0 += q1;
        q -= q1;
    }
}

static wpart_status_t FN(hetero)(const T *W, int64_t n, int64_t q, const double *sp,
                                 const wpart_1d_options_t *opt, int64_t *seps,
                                 wpart_1d_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    double B = 0.0;
    int exact = 1;
    WPART_CHECK(FN(hrun)(W, sp, n, q, opt, &B, seps, &exact, stats));
    if (exact) {
        stats->probes++;
        seps[0] = 0;
        if (!FN(hprobe)(W, sp, n, 0, 0, q, B, seps + 1)) {
            WPART_FAIL(WPART_EINTERNAL, "the optimal bottleneck failed its own probe");
        }
    }
    double worst = 0.0;
    for (int64_t p = 0; p < q; p++) {
        double c = FN(hc)(W, sp, p, seps[p], seps[p + 1]);
        worst = c > worst ? c : worst;
    }
    if (exact && worst != B) {
        WPART_FAIL(WPART_EINTERNAL, "separators do not reach the optimal bottleneck");
    }
    stats->bottleneck = worst;
cleanup:
    return st;
}

#undef T
#undef FN
#undef IS_INT
