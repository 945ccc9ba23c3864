/* oned.c -- optimal 1D chains-on-chains partitioning (spec 004 section 2). */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "wpart/base.h"

#define T int64_t
#define FN(x) oned_##x##_i64
#define IS_INT 1
#include "oned_tmpl.h"

#define T double
#define FN(x) oned_##x##_f64
#define IS_INT 0
#include "oned_tmpl.h"

void wpart_1d_options_init(wpart_1d_options_t *opt)
{
    if (opt) {
        memset(opt, 0, sizeof *opt);
        opt->method = WPART_1D_NICOL;
        opt->normalize = 1;
    }
}

static wpart_status_t check_common(int64_t n, int64_t q, const double *speeds)
{
    if (n < 0) {
        return wpart_i_error(WPART_EINVAL, "chain length must be >= 0, got %" PRId64, n);
    }
    if (q < 1) {
        return wpart_i_error(WPART_EINVAL, "number of parts must be >= 1, got %" PRId64, q);
    }
    if (n > INT64_MAX / 4) {
        return wpart_i_error(WPART_ELIMIT, "chain too long");
    }
    if (speeds) {
        for (int64_t p = 0; p < q; p++) {
            if (!(speeds[p] > 0.0) || isinf(speeds[p])) {
                return wpart_i_error(WPART_EINVAL,
                                     "speeds[%" PRId64 "] = %g must be positive and finite", p,
                                     speeds[p]);
            }
        }
    }
    return WPART_OK;
}

#define DEFINE_1D(SFX, T, CHECKW)                                                               \
    wpart_status_t wpart_base_1d_##SFX(const T *W, int64_t n, int64_t q, const double *speeds,  \
                                       const wpart_1d_options_t *opt, int64_t *seps,            \
                                       wpart_1d_stats_t *stats)                                 \
    {                                                                                           \
        wpart_1d_options_t dflt;                                                                \
        wpart_1d_stats_t local;                                                                 \
        wpart_status_t st = check_common(n, q, speeds);                                         \
        if (st != WPART_OK) {                                                                   \
            return st;                                                                          \
        }                                                                                       \
        if (!opt) {                                                                             \
            wpart_1d_options_init(&dflt);                                                       \
            opt = &dflt;                                                                        \
        }                                                                                       \
        if (!stats) {                                                                           \
            stats = &local;                                                                     \
        }                                                                                       \
        memset(stats, 0, sizeof *stats);                                                        \
        if (W[0] != 0) {                                                                        \
            return wpart_i_error(WPART_EINVAL, "prefix W[0] must be 0");                        \
        }                                                                                       \
        for (int64_t i = 0; i < n; i++) {                                                       \
            if (!(W[i + 1] >= W[i]) CHECKW) {                                                   \
                return wpart_i_error(WPART_EINVAL,                                              \
                                     "prefix is not non-decreasing at index %" PRId64, i + 1);  \
            }                                                                                   \
        }                                                                                       \
        double t0 = wpart_i_now();                                                              \
        if (n == 0) {                                                                           \
            for (int64_t p = 0; p <= q; p++) {                                                  \
                seps[p] = 0;                                                                    \
            }                                                                                   \
            st = WPART_OK;                                                                      \
        } else if (speeds) {                                                                    \
            st = oned_hetero_##SFX(W, n, q, speeds, opt, seps, stats);                          \
        } else {                                                                                \
            st = oned_homog_##SFX(W, n, q, opt, seps, stats);                                   \
        }                                                                                       \
        stats->seconds = wpart_i_now() - t0;                                                    \
        return st;                                                                              \
    }

DEFINE_1D(i64, int64_t, )
DEFINE_1D(f64, double, || isinf(W[i + 1]))

wpart_status_t wpart_base_1d_probe_i64(const int64_t *W, int64_t n, int64_t q, int64_t B,
                                       int64_t *seps, int *ok)
{
    wpart_status_t st = check_common(n, q, NULL);
    if (st != WPART_OK) {
        return st;
    }
    int64_t k = 0;
    *ok = oned_probe_i64(W, n, 0, q, B, seps + 1, &k);
    seps[0] = 0;
    for (int64_t p = k + 1; p <= q; p++) {
        seps[p] = n;
    }
    return WPART_OK;
}

wpart_status_t wpart_base_1d_probe_f64(const double *W, int64_t n, int64_t q, double B,
                                       int64_t *seps, int *ok)
{
    wpart_status_t st = check_common(n, q, NULL);
    if (st != WPART_OK) {
        return st;
    }
    if (isnan(B)) {
        return wpart_i_error(WPART_EINVAL, "bottleneck B is NaN");
    }
    int64_t k = 0;
    *ok = oned_probe_f64(W, n, 0, q, B, seps + 1, &k);
    seps[0] = 0;
    for (int64_t p = k + 1; p <= q; p++) {
        seps[p] = n;
    }
    return WPART_OK;
}

/* The loads' bordered prefix into W, then the partition or the probe on it (*loads_bad: the
 * prefix step failed). */
#define DEFINE_1D_LOADS(SFX, T)                                                                 \
    wpart_status_t wpart_base_1d_loads_##SFX(const T *loads, int64_t n, int64_t q,              \
                                             const double *speeds,                              \
                                             const wpart_1d_options_t *opt, T *W,               \
                                             int64_t *seps, wpart_1d_stats_t *stats,            \
                                             int *loads_bad)                                    \
    {                                                                                           \
        wpart_status_t st = wpart_base_prefix1d_##SFX(loads, n, W);                             \
        *loads_bad = st != WPART_OK;                                                            \
        return st != WPART_OK ? st : wpart_base_1d_##SFX(W, n, q, speeds, opt, seps, stats);   \
    }                                                                                           \
    wpart_status_t wpart_base_1d_probe_loads_##SFX(const T *loads, int64_t n, int64_t q, T B,   \
                                                   T *W, int64_t *seps, int *ok,                \
                                                   int *loads_bad)                              \
    {                                                                                           \
        wpart_status_t st = wpart_base_prefix1d_##SFX(loads, n, W);                             \
        *loads_bad = st != WPART_OK;                                                            \
        return st != WPART_OK ? st : wpart_base_1d_probe_##SFX(W, n, q, B, seps, ok);          \
    }

DEFINE_1D_LOADS(i64, int64_t)
DEFINE_1D_LOADS(f64, double)
