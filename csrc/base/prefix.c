/* prefix.c -- bordered prefix sums in 1D, 2D and 3D, and box-load queries (spec 004 1.2). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "wpart/base.h"

/* ---- validation messages: locate the first offending element after a fast pass ---- */

/* "i", "(i, j)" or "(i, j, k)": element i of a d-dimensional row-major array */
static const char *index_text(char *buf, size_t len, int d, const int64_t *dims, int64_t i)
{
    if (d == 1) {
        snprintf(buf, len, "%" PRId64, i);
    } else if (d == 2) {
        snprintf(buf, len, "(%" PRId64 ", %" PRId64 ")", i / dims[1], i % dims[1]);
    } else {
        snprintf(buf, len, "(%" PRId64 ", %" PRId64 ", %" PRId64 ")", i / (dims[1] * dims[2]),
                 (i / dims[2]) % dims[1], i % dims[2]);
    }
    return buf;
}

static wpart_status_t bad_i64(const int64_t *A, int d, const int64_t *dims, int64_t count)
{
    char at[80];
    for (int64_t i = 0; i < count; i++) {
        if (A[i] < 0) {
            return wpart_i_error(WPART_EINVAL, "negative load %" PRId64 " at index %s", A[i],
                                 index_text(at, sizeof at, d, dims, i));
        }
    }
    return wpart_i_error(WPART_EOVERFLOW, "the sum of the loads overflows int64");
}

static wpart_status_t bad_f64(const double *A, int d, const int64_t *dims, int64_t count)
{
    char at[80];
    for (int64_t i = 0; i < count; i++) {
        double x = A[i];
        if (!(x >= 0.0 && x <= DBL_MAX)) {
            const char *what = isnan(x) ? "NaN" : (isinf(x) ? (x > 0 ? "inf" : "-inf")
                                                            : "a negative load");
            return wpart_i_error(WPART_EINVAL, "contains %s at index %s", what,
                                 index_text(at, sizeof at, d, dims, i));
        }
    }
    return wpart_i_error(WPART_EOVERFLOW, "the sum of the loads overflows to inf");
}

static wpart_status_t check_dims(int d, const int64_t *dims, int64_t *count)
{
    int64_t c = 1, b = 1;
    for (int i = 0; i < d; i++) {
        if (dims[i] < 0) {
            return wpart_i_error(WPART_EINVAL, "negative extent %" PRId64 " in axis %d", dims[i], i);
        }
        if (!wpart_i_mul_size(c, dims[i], &c) || !wpart_i_mul_size(b, dims[i] + 1, &b)) {
            return wpart_i_error(WPART_ELIMIT, "array too large");
        }
    }
    if (!wpart_i_mul_size(b, 8, &b)) {
        return wpart_i_error(WPART_ELIMIT, "array too large");
    }
    *count = c;
    return WPART_OK;
}

/* ---- control: the hooks are polled once per POLL_ELEMS elements (a few hundred microseconds
 * of work), between rows or blocks, so the arithmetic and its order are those of a run
 * without hooks and the results are bit-identical ---- */

#define POLL_ELEMS (INT64_C(1) << 16)

typedef struct {
    const wpart_control_t *ctl;
    double t0;
    int64_t since;
} poller_t;

static void poller_init(poller_t *p, const wpart_control_t *ctl)
{
    p->ctl = ctl;
    p->t0 = ctl ? wpart_i_now() : 0.0;
    p->since = 0;
}

/* Counts k more elements done; polls the hooks once POLL_ELEMS have accumulated. */
static inline wpart_status_t poller_tick(poller_t *p, int64_t k, double done, double total)
{
    if (!p->ctl) {
        return WPART_OK;
    }
    p->since += k;
    if (p->since < POLL_ELEMS) {
        return WPART_OK;
    }
    p->since = 0;
    return wpart_i_poll(p->ctl, p->t0, done, total);
}

/* ---- 2D: one pass; the running row sum is added to the row above ---- */

#define F64_SCREEN UINT64_C(0x7FF0000000000000)

/*
 * One row of the int64 2D prefix: cur[j] = prev[j] + (a[0] + ... + a[j]).
 *
 * Overflow and sign checks without branches: in uint64 every operand stays below 2^63 while
 * nothing is wrong, so no single addition can wrap past 2^64, and the first bad value (a
 * negative load, a running sum or a prefix >= 2^63) shows up in the OR of all values, which is
 * returned (its sign bit set means "bad").
 */
static uint64_t prefix_row_i64(const uint64_t *restrict a, const uint64_t *restrict prev,
                               uint64_t *restrict cur, int64_t n)
{
    uint64_t r = 0, acc1 = 0, acc2 = 0;
    /* pass 1: running row sum (a serial chain); pass 2: add the row above (vectorisable) */
    for (int64_t j = 0; j < n; j++) {
        uint64_t x = a[j];
        r += x;
        cur[j] = r;
        acc1 |= x | r;
    }
    for (int64_t j = 0; j < n; j++) {
        uint64_t c = prev[j] + cur[j];
        cur[j] = c;
        acc2 |= c;
    }
    return acc1 | acc2;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define WPART_HAVE_AVX2_KERNEL 1

/* The same row with AVX2: an in-register prefix of 4 lanes (two shift-and-add steps), a carry
 * broadcast, and the row above added in the same pass. Integer sums are exact in any order, so
 * the result is bit-identical to the scalar kernel. Every partial sum is ORed into the check
 * (pairs, quadruples, with carry, with the row above), keeping the no-wrap argument valid. */
__attribute__((target("avx2"))) static uint64_t prefix_row_i64_avx2(const uint64_t *restrict a,
                                                                    const uint64_t *restrict prev,
                                                                    uint64_t *restrict cur,
                                                                    int64_t n)
{
    const __m256i zero = _mm256_setzero_si256();
    __m256i carry = zero, acc = zero;
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(a + j));
        __m256i t = _mm256_blend_epi32(_mm256_permute4x64_epi64(x, 0x90), zero, 0x03);
        __m256i v1 = _mm256_add_epi64(x, t);                       /* a, a+b, b+c, c+d */
        t = _mm256_blend_epi32(_mm256_permute4x64_epi64(v1, 0x40), zero, 0x0F);
        __m256i v2 = _mm256_add_epi64(v1, t);                      /* local prefix */
        __m256i v = _mm256_add_epi64(v2, carry);
        __m256i c = _mm256_add_epi64(v, _mm256_loadu_si256((const __m256i *)(prev + j)));
        _mm256_storeu_si256((__m256i *)(cur + j), c);
        acc = _mm256_or_si256(acc, _mm256_or_si256(_mm256_or_si256(x, v1),
                                                   _mm256_or_si256(_mm256_or_si256(v2, v), c)));
        carry = _mm256_permute4x64_epi64(v, 0xFF);
    }
    uint64_t lanes[4];
    _mm256_storeu_si256((__m256i *)lanes, acc);
    uint64_t out = lanes[0] | lanes[1] | lanes[2] | lanes[3];
    uint64_t r = j > 0 ? (uint64_t)_mm256_extract_epi64(carry, 0) : 0;
    for (; j < n; j++) {
        uint64_t x = a[j];
        r += x;
        uint64_t c = prev[j] + r;
        cur[j] = c;
        out |= x | r | c;
    }
    return out;
}
#endif

/* rows 1..n1 of the 2D prefix S (row 0 is zero; prefix_tmpl.h's prefix2d checks the extents) */
static wpart_status_t rows2d_i64(const int64_t *A, int64_t n1, int64_t n2, int64_t *S,
                               const int64_t *dims, int64_t cnt, poller_t *pl)
{
    wpart_status_t st = WPART_OK;
    const int64_t ld = n2 + 1;
    uint64_t (*row)(const uint64_t *restrict, const uint64_t *restrict, uint64_t *restrict,
                    int64_t) = prefix_row_i64;
#ifdef WPART_HAVE_AVX2_KERNEL
    if (__builtin_cpu_supports("avx2")) {
        row = prefix_row_i64_avx2;
    }
#endif
    for (int64_t i = 0; i < n1; i++) {
        uint64_t *cur = (uint64_t *)(S + (i + 1) * ld);
        cur[0] = 0;
        uint64_t acc = row((const uint64_t *)(A + i * n2), (const uint64_t *)(S + i * ld) + 1,
                           cur + 1, n2);
        if (WPART_UNLIKELY(acc >> 63)) {
            return bad_i64(A, 2, dims, cnt);
        }
        st = poller_tick(pl, n2 + 1, (double)(i + 1), (double)n1);
        if (st != WPART_OK) {
            return st;
        }
    }
    return WPART_OK;
}

/* rows 1..n1 of the 2D prefix S (row 0 is zero; prefix_tmpl.h's prefix2d checks the extents) */
static wpart_status_t rows2d_f64(const double *A, int64_t n1, int64_t n2, double *S,
                               const int64_t *dims, int64_t cnt, poller_t *pl)
{
    wpart_status_t st = WPART_OK;
    const int64_t ld = n2 + 1;
    int bad = 0, flag = 0;
    int64_t i = 0;
    /* Four rows at a time: four independent running sums hide the latency of the floating
     * adds. Each element still sees exactly the operations of the one-row loop below
     * (r += x; S[i+1][j+1] = S[i][j+1] + r), in the same order, so results are bit-identical. */
    for (; i + 4 <= n1; i += 4) {
        const double *a0 = A + i * n2, *a1 = a0 + n2, *a2 = a1 + n2, *a3 = a2 + n2;
        double *s0 = S + i * ld, *s1 = s0 + ld, *s2 = s1 + ld, *s3 = s2 + ld, *s4 = s3 + ld;
        double r0 = 0.0, r1 = 0.0, r2 = 0.0, r3 = 0.0;
        s1[0] = s2[0] = s3[0] = s4[0] = 0.0;
        for (int64_t j = 0; j < n2; j++) {
            double x0 = a0[j], x1 = a1[j], x2 = a2[j], x3 = a3[j];
            /* cheap screen on the bit patterns: sign set (negative, or -0.0) or exponent all
             * ones (inf, NaN); flagged rows are re-checked exactly below */
            uint64_t u0, u1, u2, u3;
            memcpy(&u0, &x0, 8);
            memcpy(&u1, &x1, 8);
            memcpy(&u2, &x2, 8);
            memcpy(&u3, &x3, 8);
            flag |= (u0 >= F64_SCREEN) | (u1 >= F64_SCREEN) | (u2 >= F64_SCREEN) |
                    (u3 >= F64_SCREEN);
            r0 += x0;
            r1 += x1;
            r2 += x2;
            r3 += x3;
            double c1 = s0[j + 1] + r0;
            double c2 = c1 + r1;
            double c3 = c2 + r2;
            s1[j + 1] = c1;
            s2[j + 1] = c2;
            s3[j + 1] = c3;
            s4[j + 1] = c3 + r3;
        }
        if (WPART_UNLIKELY(flag)) {
            for (int64_t t = 0; t < 4 * n2; t++) { /* exact check: -0.0 is a valid load */
                bad |= !(a0[t] >= 0.0 && a0[t] <= DBL_MAX);
            }
            flag = 0;
        }
        bad |= !(s4[n2] <= DBL_MAX);
        if (WPART_UNLIKELY(bad)) {
            return bad_f64(A, 2, dims, cnt);
        }
        st = poller_tick(pl, 4 * (n2 + 1), (double)(i + 4), (double)n1);
        if (st != WPART_OK) {
            return st;
        }
    }
    for (; i < n1; i++) {
        const double *a = A + i * n2;
        const double *prev = S + i * ld;
        double *cur = S + (i + 1) * ld;
        double r = 0.0;
        cur[0] = 0.0;
        for (int64_t j = 0; j < n2; j++) {
            double x = a[j];
            bad |= !(x >= 0.0 && x <= DBL_MAX);
            r += x;
            cur[j + 1] = prev[j + 1] + r;
        }
        bad |= !(cur[n2] <= DBL_MAX);
        if (WPART_UNLIKELY(bad)) {
            return bad_f64(A, 2, dims, cnt);
        }
        st = poller_tick(pl, n2 + 1, (double)(i + 1), (double)n1);
        if (st != WPART_OK) {
            return st;
        }
    }
    return WPART_OK;
}

/* ---- 1D, 3D, the entry points and the box loads: one body per type (prefix_tmpl.h) ---- */

static wpart_status_t check_d(int d, const int64_t *dims)
{
    if (d < 1 || d > 3 || !dims) {
        return wpart_i_error(WPART_EINVAL, "prefix sums are 1D, 2D or 3D (got d = %d)", d);
    }
    return WPART_OK;
}

static wpart_status_t check_boxes(int d, const int64_t *dims, const int64_t *boxes, int64_t k)
{
    if (d != 2 && d != 3) {
        return wpart_i_error(WPART_EINVAL, "boxes must be 2D or 3D (got d = %d)", d);
    }
    if (k < 0) {
        return wpart_i_error(WPART_EINVAL, "negative box count %" PRId64, k);
    }
    for (int64_t b = 0; b < k; b++) {
        const int64_t *x = boxes + b * 2 * d;
        for (int a = 0; a < d; a++) {
            int64_t lo = x[2 * a], hi = x[2 * a + 1];
            if (lo < 0 || hi > dims[a] || lo > hi) {
                return wpart_i_error(WPART_EINVAL,
                                     "box %" PRId64 " has [%" PRId64 ", %" PRId64
                                     ") in axis %d, outside [0, %" PRId64 "] or reversed",
                                     b, lo, hi, a, dims[a]);
            }
        }
    }
    return WPART_OK;
}

static inline int add_i64(int64_t a, int64_t b, int64_t *out)
{
    return __builtin_add_overflow(a, b, out);
}

static inline int add_f64(double a, double b, double *out)
{
    *out = a + b;
    return 0;
}

#define T int64_t
#define ACC uint64_t
#define FN(x) x##_i64
#define T_BAD(x) ((x) < 0)
#define T_BADSUM(r) 0
#include "prefix_tmpl.h"

#define T double
#define ACC double
#define FN(x) x##_f64
#define T_BAD(x) (!((x) >= 0.0 && (x) <= DBL_MAX))
#define T_BADSUM(r) (!((r) <= DBL_MAX))
#include "prefix_tmpl.h"
