/*
 * split_exact.c -- the start of SPLIT (split.c) by the rule's exact arithmetic: each
 * execution's whole quanta below its target, and the order in which the greedy visits them.
 *
 * Execution e with share s_e > 0 has the target T_e = s_e U / S (U the total, S the exact sum
 * of the shares), starts with n_e = q_e floor(T_e / q_e), and the greedy orders the executions
 * by frac(T_e / q_e) = (T_e - n_e) / q_e, larger first, ties to the lower index. Doubles give
 * n_e and that order except where a target is near a multiple of its quantum or two
 * remainders are near each other: there the float rounding decided (split(100, [2, 1], [1, 2])
 * gave [66, 34] where the rule gives [68, 32], two remainders of exactly 2/3). So:
 *
 * 1. a float pass with rigorous error bounds (S by compensated summation, relative error
 *    < 2^-47 on every target): an interval for each remainder, and a flag where the interval
 *    of the target holds a multiple of q_e (its floor is uncertain);
 * 2. the flagged executions get exact values: every double is m 2^x (m < 2^53), so with
 *    I_e = s_e 2^-xmin (an integer; xmin the lowest exponent of the shares) and S_I their sum,
 *    T_e / q_e = I_e U / (S_I q_e): one integer division gives the floor and the remainder
 *    r_e (frac = r_e / (S_I q_e));
 * 3. the executions sorted by the upper end of their interval, merged into clusters of
 *    overlapping intervals (a later cluster lies wholly below an earlier one), and each
 *    cluster of two or more sorted exactly: r_a q_b against r_b q_a (S_I cancels).
 *
 * The integers are fixed-length little-endian arrays of 64-bit limbs, long enough for the
 * shares' exponent spread (at most ~2,100 bits + 220). Only clusters and flagged executions
 * pay for them; usually a handful.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "wpart/multikernel.h"

/* the entry point, called by split.c (declared there) */
wpart_status_t wpart_i_mk_split_start(int64_t total, int32_t P, const double *shares,
                                      const int64_t *quanta, int64_t *n0, int32_t *order,
                                      int32_t *ne_out, void *scratch, int32_t *scratch_i,
                                      const wpart_control_t *ctl, double t0);

typedef unsigned __int128 u128;

/* ------------------------------------------------------------------ fixed-length integers */

typedef struct {
    int32_t L;     /* limbs per number */
    int xmin;      /* every share is an integer multiple of 2^xmin */
    uint64_t *S;   /* the exact sum of the shares / 2^xmin */
    uint64_t *w;   /* scratch: 3 numbers, then a 4th (a remainder) */
} xctx_t;

static void b_shifted(uint64_t *a, int32_t L, uint64_t m, int sh)
{
    memset(a, 0, (size_t)L * sizeof *a);
    int w = sh / 64, b = sh % 64;
    a[w] |= m << b;
    if (b && w + 1 < L) {
        a[w + 1] |= m >> (64 - b);
    }
}

static void b_sub(uint64_t *a, const uint64_t *b, int32_t L) /* a -= b, a >= b */
{
    uint64_t br = 0;
    for (int32_t i = 0; i < L; i++) {
        uint64_t x = a[i], y = b[i];
        uint64_t d = x - y - br;
        br = (x < y) || (x == y && br);
        a[i] = d;
    }
}

static void b_mul(uint64_t *out, const uint64_t *a, uint64_t v, int32_t L)
{
    u128 c = 0;
    for (int32_t i = 0; i < L; i++) {
        c += (u128)a[i] * v;
        out[i] = (uint64_t)c;
        c >>= 64;
    }
}

static int b_cmp(const uint64_t *a, const uint64_t *b, int32_t L)
{
    for (int32_t i = L - 1; i >= 0; i--) {
        if (a[i] != b[i]) {
            return a[i] > b[i] ? 1 : -1;
        }
    }
    return 0;
}

static void b_shl(uint64_t *out, const uint64_t *a, int sh, int32_t L) /* sh < 64 */
{
    for (int32_t i = L - 1; i >= 0; i--) {
        out[i] = (a[i] << sh) | (sh && i > 0 ? a[i - 1] >> (64 - sh) : 0);
    }
}

static void b_shr1(uint64_t *a, int32_t L)
{
    for (int32_t i = 0; i < L; i++) {
        a[i] = (a[i] >> 1) | (i + 1 < L ? a[i + 1] << 63 : 0);
    }
}

static int b_bits(const uint64_t *a, int32_t L)
{
    for (int32_t i = L - 1; i >= 0; i--) {
        if (a[i]) {
            int n = 64;
            while (!(a[i] >> (n - 1))) {
                n--;
            }
            return 64 * i + n;
        }
    }
    return 0;
}

static uint64_t b_word(const uint64_t *a, int k, int32_t L) /* (a >> k) mod 2^64 */
{
    int w = k / 64, b = k % 64;
    uint64_t lo = w < L ? a[w] : 0, hi = w + 1 < L ? a[w + 1] : 0;
    return b ? (lo >> b) | (hi << (64 - b)) : lo;
}

/* The share (finite, > 0) as m 2^x with m an integer < 2^53 (from its bits). */
static void share_parts(double s, uint64_t *m, int *x)
{
    uint64_t b;
    memcpy(&b, &s, sizeof b);
    int ex = (int)((b >> 52) & 0x7FF);
    uint64_t fr = b & ((UINT64_C(1) << 52) - 1);
    *m = ex ? fr | (UINT64_C(1) << 52) : fr; /* subnormal: 0.f 2^-1022 */
    *x = ex ? ex - 1075 : -1074;
}

/* a += m 2^sh (m < 2^64) */
static void b_add_shifted(uint64_t *a, int32_t L, uint64_t m, int sh)
{
    int w = sh / 64, b = sh % 64;
    uint64_t lo = m << b, hi = b ? m >> (64 - b) : 0;
    u128 c = (u128)a[w] + lo;
    a[w] = (uint64_t)c;
    c = (c >> 64) + hi;
    for (int32_t i = w + 1; i < L && c; i++) {
        c += a[i];
        a[i] = (uint64_t)c;
        c >>= 64;
    }
}

static wpart_status_t xctx_init(xctx_t *c, int32_t P, const double *shares)
{
    wpart_status_t st = WPART_OK;
    int xmin = 1 << 20, xmax = -(1 << 20);
    for (int32_t e = 0; e < P; e++) {
        if (shares[e] > 0.0) {
            uint64_t m;
            int x;
            share_parts(shares[e], &m, &x);
            xmin = x < xmin ? x : xmin;
            xmax = x > xmax ? x : xmax;
        }
    }
    /* bits: share 53 + spread, sum + 31, times a quantum or the total + 63 (twice: the
       division shifts the divisor by up to 62, the comparison multiplies by a quantum) */
    int bits = 53 + (xmax - xmin) + 31 + 63 + 63 + 2;
    c->L = (int32_t)(bits / 64 + 1);
    c->xmin = xmin;
    c->S = wpart_i_calloc((int64_t)c->L * 5, sizeof(uint64_t));
    if (!c->S) {
        WPART_FAIL(WPART_ENOMEM, "split: exact arithmetic of %d executions", (int)P);
    }
    c->w = c->S + c->L;
    for (int32_t e = 0; e < P; e++) {
        if (shares[e] > 0.0) {
            uint64_t m;
            int x;
            share_parts(shares[e], &m, &x);
            b_add_shifted(c->S, c->L, m, x - xmin);
        }
    }
cleanup:
    return st;
}

/* Exact floor(T / q) of a share s (returned) and the remainder r (L limbs): T / q =
 * I U / (S q) = floor + r / (S q). The quotient is at most U / q < 2^63; [qlo, qhi] is a
 * range known to hold it (a float estimate), which spares the long division when narrow. */
static int64_t exact_of(const xctx_t *c, double s, int64_t U, int64_t q, int64_t qlo,
                        int64_t qhi, uint64_t *r)
{
    int32_t L = c->L;
    uint64_t *I = c->w, *D = c->w + L, *Dk = c->w + 2 * L;
    uint64_t m;
    int x;
    share_parts(s, &m, &x);
    b_shifted(I, L, m, x - c->xmin);
    b_mul(r, I, (uint64_t)U, L);          /* N = I U */
    b_mul(D, c->S, (uint64_t)q, L);       /* D = S q */
    if (qlo >= 0 && qhi >= qlo && qhi - qlo <= 64) {
        b_mul(Dk, D, (uint64_t)qlo, L);
        if (b_cmp(r, Dk, L) >= 0) { /* qlo is at most the quotient: step up from it */
            b_sub(r, Dk, L);
            int64_t Q = qlo;
            while (b_cmp(r, D, L) >= 0) {
                b_sub(r, D, L);
                Q++;
            }
            return Q;
        }
        b_mul(r, I, (uint64_t)U, L); /* (never: the range is rigorous) start again */
    }
    /* long division, quotient bits 62 .. 0 */
    b_shl(Dk, D, 62, L);
    int64_t Q = 0;
    for (int k = 62; k >= 0; k--) {
        if (b_cmp(r, Dk, L) >= 0) {
            b_sub(r, Dk, L);
            Q |= (int64_t)1 << k;
        }
        b_shr1(Dk, L);
    }
    return Q;
}

/* r / (S q) as a double, within 2^-62 + 4 ulps (D = S q is in c->w + L after exact_of). */
static double exact_frac(const xctx_t *c, const uint64_t *r)
{
    const uint64_t *D = c->w + c->L;
    int k = b_bits(D, c->L) - 64;
    k = k < 0 ? 0 : k;
    return (double)b_word(r, k, c->L) / (double)b_word(D, k, c->L);
}

/* ------------------------------------------------------------------ intervals and order */

typedef struct {
    double hi;      /* the remainder (in quanta) lies in [hi - w, hi] */
    float w;        /* rounded up */
    int32_t e;
} ivl_t;

_Static_assert(sizeof(ivl_t) == 16, "split.c lends its 16-byte entries as intervals");

/* The interval [x - err, x + err] as an ivl_t (w rounded up, so it still holds it). */
static ivl_t ivl_of(double x, double err, int32_t e)
{
    /* a float's rounding is within 2^-24 (normal range): the factor keeps it above 2 err;
       below the normal range, 2^-120 (values that close are then compared exactly) */
    double w = 2.0 * err * (1.0 + 0x1p-20);
    float fw = w < 0x1p-120 ? 0x1p-120f : (float)w;
    return (ivl_t){x + err, fw, e};
}

static double ivl_lo(const ivl_t *v)
{
    return v->hi - (double)v->w;
}

static int ivl_before(const ivl_t *a, const ivl_t *b)
{
    return a->hi != b->hi ? a->hi > b->hi : a->e < b->e;
}

/* Bottom-up merge sort of v[0..n) by `before` (tmp: n entries), polling `ctl` every 64 K
 * moves so that a sort of millions of executions answers Ctrl-C. */
#define MERGE_SORT(NAME, T, BEFORE, ARG)                                                     \
    static wpart_status_t NAME(T *v, T *tmp, int32_t n, ARG, const wpart_control_t *ctl,   \
                               double t0)                                                    \
    {                                                                                        \
        wpart_status_t st = WPART_OK;                                                        \
        (void)unused_;                                                                       \
        T *src = v, *dst = tmp;                                                              \
        int64_t moves = 0;                                                                   \
        for (int64_t w = 1; w < n; w *= 2) {                                                 \
            for (int64_t lo = 0; lo < n; lo += 2 * w) {                                      \
                int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n; \
                int64_t i = lo, j = mid, k = lo;                                             \
                while (i < mid && j < hi) {                                                  \
                    dst[k++] = BEFORE(&src[j], &src[i]) ? src[j++] : src[i++];               \
                }                                                                            \
                while (i < mid) {                                                            \
                    dst[k++] = src[i++];                                                     \
                }                                                                            \
                while (j < hi) {                                                             \
                    dst[k++] = src[j++];                                                     \
                }                                                                            \
                moves += hi - lo;                                                            \
                if (moves >= 65536) {                                                        \
                    moves = 0;                                                               \
                    WPART_CHECK(wpart_i_poll(ctl, t0, 0.0, 0.0));                            \
                }                                                                            \
            }                                                                                \
            T *t_ = src;                                                                     \
            src = dst;                                                                       \
            dst = t_;                                                                        \
        }                                                                                    \
        if (src != v) {                                                                      \
            memcpy(v, src, (size_t)n * sizeof *v);                                           \
        }                                                                                    \
    cleanup:                                                                                 \
        return st;                                                                           \
    }

#define IVL_BEFORE(a, b) ivl_before((a), (b))
MERGE_SORT(ivl_sort, ivl_t, IVL_BEFORE, int unused_)

/* A member of a cluster sorted exactly: its remainder r (L limbs at r), quantum, index. */
typedef struct {
    const uint64_t *r;
    uint64_t q;
    int32_t e;
    const xctx_t *c;
    uint64_t *w1, *w2; /* scratch of the comparison (L limbs each) */
} xm_t;

static int xm_before(const xm_t *a, const xm_t *b)
{
    int32_t L = a->c->L;
    b_mul(a->w1, a->r, b->q, L); /* r_a q_b against r_b q_a: frac_a > frac_b */
    b_mul(a->w2, b->r, a->q, L);
    int cmp = b_cmp(a->w1, a->w2, L);
    return cmp != 0 ? cmp > 0 : a->e < b->e;
}

#define XM_BEFORE(a, b) xm_before((a), (b))
MERGE_SORT(xm_sort, xm_t, XM_BEFORE, int unused_)

/* Sort the cluster v[0..n) (n >= 2) exactly. */
static wpart_status_t sort_cluster(xctx_t *c, int32_t P, ivl_t *v, int32_t n,
                                   const double *shares,
                                   const int64_t *quanta, const int64_t *n0, int64_t total,
                                   const wpart_control_t *ctl, double t0)
{
    wpart_status_t st = WPART_OK;
    uint64_t *r = NULL;
    xm_t *m = NULL;
    int same = 1; /* one share and one quantum: equal values, already by index */
    for (int32_t i = 1; i < n && same; i++) {
        same = shares[v[i].e] == shares[v[0].e] && quanta[v[i].e] == quanta[v[0].e];
    }
    if (same) {
        for (int32_t i = 1; i < n; i++) { /* by index (equal upper ends: already so) */
            ivl_t x = v[i];
            int32_t j = i - 1;
            while (j >= 0 && v[j].e > x.e) {
                v[j + 1] = v[j];
                j--;
            }
            v[j + 1] = x;
            if ((i & 65535) == 0) {
                WPART_CHECK(wpart_i_poll(ctl, t0, 0.0, 0.0));
            }
        }
        goto cleanup;
    }
    if (!c->S) { /* the exact sum of the shares, once */
        WPART_CHECK(xctx_init(c, P, shares));
    }
    int32_t L = c->L;
    r = wpart_i_malloc(((int64_t)n + 2) * L, sizeof *r);
    m = wpart_i_malloc(2 * (int64_t)n, sizeof *m);
    if (!r || !m) {
        WPART_FAIL(WPART_ENOMEM, "split: exact order of %d executions", (int)n);
    }
    uint64_t *w1 = r + (int64_t)n * L, *w2 = w1 + L;
    for (int32_t i = 0; i < n; i++) {
        int32_t e = v[i].e;
        int64_t qe = n0[e] / quanta[e]; /* the exact floor (float pass or exact values) */
        (void)exact_of(c, shares[e], total, quanta[e], qe, qe, r + (int64_t)i * L);
        m[i] = (xm_t){r + (int64_t)i * L, (uint64_t)quanta[e], e, c, w1, w2};
        if ((i & 4095) == 4095) {
            WPART_CHECK(wpart_i_poll(ctl, t0, 0.0, 0.0));
        }
    }
    WPART_CHECK(xm_sort(m, m + n, n, 0, ctl, t0));
    for (int32_t i = 0; i < n; i++) {
        v[i].e = m[i].e;
    }
cleanup:
    free(r);
    free(m);
    return st;
}

static int64_t floor_clamped(double x, int64_t total)
{
    if (!(x > 0.0)) {
        return 0;
    }
    if (x >= 9.2e18) {
        return total;
    }
    int64_t v = (int64_t)floor(x);
    return v > total ? total : v;
}

/*
 * n0[e] = q_e floor(T_e / q_e) for every execution (0 for a zero share); order[0..ne) the
 * executions with a positive share, by frac(T_e / q_e) descending, ties to the lower index.
 * The shares are checked by the caller (finite, >= 0, a positive finite sum).
 */
wpart_status_t wpart_i_mk_split_start(int64_t total, int32_t P, const double *shares,
                                      const int64_t *quanta, int64_t *n0, int32_t *order,
                                      int32_t *ne_out, void *scratch, int32_t *scratch_i,
                                      const wpart_control_t *ctl, double t0)
{
    wpart_status_t st = WPART_OK;
    ivl_t *iv = scratch;       /* 2 P entries: the intervals and the sort's buffer */
    int32_t *flag = scratch_i; /* P entries: the executions whose floor is uncertain */
    xctx_t c = {0};
    const double u = ldexp(1.0, -53), tiny = ldexp(1.0, -1000), eps = ldexp(1.0, -47);
    /* S by compensated (Neumaier) summation: relative error within 2u + P u^2 */
    double s_hi = 0.0, comp = 0.0;
    for (int32_t e = 0; e < P; e++) {
        double x = shares[e], t = s_hi + x;
        comp += s_hi >= x ? (s_hi - t) + x : (x - t) + s_hi;
        s_hi = t;
    }
    const double S = s_hi + comp, dtotal = (double)total;
    int32_t ne = 0, nflag = 0;
    for (int32_t e = 0; e < P; e++) {
        n0[e] = 0;
        if (shares[e] == 0.0) {
            continue;
        }
        double t = shares[e] / S * dtotal;
        t = t > dtotal ? dtotal : t;
        /* |t - T| <= err_t: the quotient, the product, the total's and S's roundings */
        double err_t = eps * t + tiny;
        int64_t q = quanta[e];
        int64_t f = floor_clamped(t, total);
        int64_t n = q == 1 ? f : (f / q) * q;
        n0[e] = n;
        double r = (t - (double)n) / (double)q;
        double err = (err_t + 4.0 * u * t) / (double)q + 4.0 * u * fabs(r) + tiny;
        int64_t flo = floor_clamped(t - err_t, total), fhi = floor_clamped(t + err_t, total);
        if (flo != fhi && flo / q != fhi / q) {
            flag[nflag++] = ne; /* a multiple of q within reach: the floor is uncertain */
        }
        iv[ne] = ivl_of(r, err, e);
        ne++;
        if ((e & 65535) == 65535) {
            WPART_CHECK(wpart_i_poll(ctl, t0, 0.0, 0.0));
        }
    }
    if (nflag > 0) { /* exact floors, and remainders within 2^-60 */
        WPART_CHECK(xctx_init(&c, P, shares));
        uint64_t *r = c.w + 3 * c.L; /* the 4th number of the context */
        for (int32_t k = 0; k < nflag; k++) {
            ivl_t *x = &iv[flag[k]];
            int64_t q = quanta[x->e];
            /* the exact floor lies in [floor(t - err_t) / q, floor(t + err_t) / q] */
            double t = shares[x->e] / S * dtotal;
            t = t > dtotal ? dtotal : t;
            double err_t = eps * t + tiny;
            int64_t qlo = floor_clamped(t - err_t, total) / q;
            int64_t qhi = floor_clamped(t + err_t, total) / q;
            n0[x->e] = exact_of(&c, shares[x->e], total, q, qlo, qhi, r) * q;
            double f = exact_frac(&c, r), err = ldexp(1.0, -60) + 8.0 * u * f;
            *x = ivl_of(f, err, x->e);
        }
    }
    WPART_CHECK(ivl_sort(iv, iv + ne, ne, 0, ctl, t0));
    for (int32_t i = 0; i < ne;) { /* clusters of overlapping intervals */
        int32_t j = i + 1;
        double low = ivl_lo(&iv[i]);
        while (j < ne && iv[j].hi >= low) {
            double lo = ivl_lo(&iv[j]);
            low = lo < low ? lo : low;
            j++;
        }
        if (j - i >= 2) {
            WPART_CHECK(sort_cluster(&c, P, iv + i, j - i, shares, quanta, n0, total, ctl,
                                     t0));
        }
        i = j;
    }
    for (int32_t k = 0; k < ne; k++) {
        order[k] = iv[k].e;
    }
    *ne_out = ne;
cleanup:
    free(c.S);
    return st;
}
