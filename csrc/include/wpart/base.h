/*
 * wpart/base.h -- what every family shares: prefix sums, box-load queries and optimal 1D
 * chains-on-chains partitioning (Secs. 2.1 and 2.2 of Saule et al., JPDC 2012).
 *
 * Arrays are flat, row-major and borrowed: the core never modifies an input and never keeps a
 * pointer after returning. Output buffers are allocated by the caller with the sizes given below.
 */
#ifndef WPART_BASE_H
#define WPART_BASE_H

#include <stdint.h>

#include "wpart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Prefix sums (Sec. 2.1 of Saule et al. 2012)                                                 */
/* ------------------------------------------------------------------------------------------ */

/**
 * 1D bordered prefix sum: W[0] = 0, W[i+1] = W[i] + a[i].
 *
 * a  input loads, length n (n >= 0), non-negative (and finite for _f64)
 * W  output, length n+1 (caller-allocated)
 * Status: WPART_EINVAL for a negative, NaN or infinite load (the index is named in the
 * detail message), WPART_EOVERFLOW if the int64 total overflows (or the float total is inf).
 * On error the content of W is unspecified. Time O(n).
 */
wpart_status_t wpart_base_prefix1d_i64(const int64_t *a, int64_t n, int64_t *W);
wpart_status_t wpart_base_prefix1d_f64(const double *a, int64_t n, double *W);

/**
 * 2D bordered prefix sum S of an n1 x n2 matrix A: S has shape (n1+1) x (n2+1),
 * S[i][j] = sum of A[i'][j'] for i' < i, j' < j, and S[0][*] = S[*][0] = 0.
 * Status and validation as for the 1D version. Time O(n1 n2), one pass over A.
 */
wpart_status_t wpart_base_prefix2d_i64(const int64_t *A, int64_t n1, int64_t n2, int64_t *S);
wpart_status_t wpart_base_prefix2d_f64(const double *A, int64_t n1, int64_t n2, double *S);

/**
 * 3D bordered prefix sum S of an n1 x n2 x n3 array: shape (n1+1) x (n2+1) x (n3+1), zero on
 * the three lower faces. Time O(n1 n2 n3).
 */
wpart_status_t wpart_base_prefix3d_i64(const int64_t *A, int64_t n1, int64_t n2, int64_t n3,
                                       int64_t *S);
wpart_status_t wpart_base_prefix3d_f64(const double *A, int64_t n1, int64_t n2, int64_t n3,
                                       double *S);

/**
 * The bordered prefix sum of a d-dimensional array (d = 1, 2 or 3, extents dims[0..d-1]) with
 * control hooks: control (may be NULL) is polled about every 2^16 elements, between rows, so
 * the result is bit-identical to the functions above. A stop request or control->time_limit
 * returns WPART_ECANCELLED (the content of S is then unspecified); WPART_EINVAL for another d.
 */
wpart_status_t wpart_base_prefix_i64(const int64_t *A, int d, const int64_t *dims, int64_t *S,
                                     const wpart_control_t *control);
wpart_status_t wpart_base_prefix_f64(const double *A, int d, const int64_t *dims, double *S,
                                     const wpart_control_t *control);

/**
 * Loads of k half-open boxes read from a bordered prefix array, four reads per 2D box and
 * eight per 3D box (inclusion-exclusion).
 *
 * S      bordered prefix of an array with extents dims[0..d-1] (d = 2 or 3)
 * boxes  k x 2d int64, rows (lo0, hi0, lo1, hi1[, lo2, hi2]), 0 <= lo <= hi <= extent
 * out    length k
 * Status: WPART_EINVAL naming the first box outside the array or with lo > hi.
 */
wpart_status_t wpart_base_box_loads_i64(const int64_t *S, int d, const int64_t *dims,
                                        const int64_t *boxes, int64_t k, int64_t *out);
wpart_status_t wpart_base_box_loads_f64(const double *S, int d, const int64_t *dims,
                                        const int64_t *boxes, int64_t k, double *out);

/* ------------------------------------------------------------------------------------------ */
/* Optimal 1D partitioning, chains-on-chains (Sec. 2.2 of Saule et al. 2012)                  */
/* ------------------------------------------------------------------------------------------ */

typedef enum {
    WPART_1D_NICOL = 0,               /* exact parametric search (NicolPlus bounds) */
    WPART_1D_BISECT = 1,              /* exact bisection on the bottleneck value */
    WPART_1D_DP = 2,                  /* exact dynamic programme (reference) */
    WPART_1D_DIRECT_CUT = 3,          /* heuristic, Lmax <= T/q + amax */
    WPART_1D_RECURSIVE_BISECTION = 4  /* heuristic, 2-approximation */
} wpart_1d_method_t;

typedef struct {
    wpart_1d_method_t method;
    int normalize;                 /* make parts non-empty (exact results): default 1 */
    const wpart_control_t *control;  /* optional hooks; NULL for none */
} wpart_1d_options_t;

typedef struct {
    double bottleneck;     /* max over parts of load/speed (of load when homogeneous) */
    int64_t bottleneck_i64; /* the same, exact, for homogeneous int64 input (else 0) */
    int64_t probes;        /* PROBE calls */
    int64_t steps;         /* DP cells or binary-search steps, algorithm dependent */
    double seconds;        /* wall time of the call */
} wpart_1d_stats_t;

/** Sets the defaults: Nicol, normalize on, no control hooks. */
void wpart_1d_options_init(wpart_1d_options_t *opt);

/**
 * Partition the chain with prefix W[0..n] (W[0] = 0, non-decreasing) into q consecutive parts.
 *
 * W       bordered prefix of the loads, length n+1 (n >= 0)
 * q       number of parts, q >= 1 (q > n is allowed: some parts are then empty)
 * speeds  NULL for identical processors, else q positive finite relative speeds: part p costs
 *         load/speeds[p] and the bottleneck max_p load_p/speeds[p] is minimised
 * opt     NULL for defaults
 * seps    output, length q+1: 0 = seps[0] <= ... <= seps[q] = n; part p is [seps[p], seps[p+1])
 * stats   optional output (NULL to skip)
 *
 * Exact methods return the leftmost-greedy optimal separators at the optimal bottleneck B*,
 * so every exact method gives identical separators; with speeds == NULL and q <= n they are
 * normalised so that no part is empty (wpart's normalisation). With speeds, optimality is with respect to the
 * costs as computed in double precision (load / speed), which are monotone, so the result is
 * exactly optimal for those costs.
 *
 * Status: WPART_EINVAL (q < 1, n < 0, W not a valid prefix, bad speed),
 * WPART_ECANCELLED (control hook or time limit), WPART_ENOMEM.
 * Complexity: Nicol O((q log(n/q))^2) probes-steps, bisection O(q log(n/q) log(amax)),
 * DP O(q n), direct cut O(q log(n/q)), recursive bisection O(q log n).
 */
wpart_status_t wpart_base_1d_i64(const int64_t *W, int64_t n, int64_t q, const double *speeds,
                                 const wpart_1d_options_t *opt, int64_t *seps,
                                 wpart_1d_stats_t *stats);
wpart_status_t wpart_base_1d_f64(const double *W, int64_t n, int64_t q, const double *speeds,
                                 const wpart_1d_options_t *opt, int64_t *seps,
                                 wpart_1d_stats_t *stats);

/**
 * PROBE (Sec. 2.2): can the chain be split into at most q parts of cost <= B? Greedy, leftmost.
 * seps (length q+1) receives the greedy separators, padded with n; *ok is 1 on success.
 * Time O(q log(n/q)).
 */
wpart_status_t wpart_base_1d_probe_i64(const int64_t *W, int64_t n, int64_t q, int64_t B,
                                       int64_t *seps, int *ok);
wpart_status_t wpart_base_1d_probe_f64(const double *W, int64_t n, int64_t q, double B,
                                       int64_t *seps, int *ok);

/**
 * wpart_base_1d_* and wpart_base_1d_probe_* on the loads themselves (length n): their bordered
 * prefix (wpart_base_prefix1d_*) goes into W (length n+1), then the partition or the probe
 * runs on it. *loads_bad is 1 when the prefix step rejected the loads (its status is
 * returned: a negative, NaN or infinite load, an overflowing sum), 0 otherwise.
 */
wpart_status_t wpart_base_1d_loads_i64(const int64_t *loads, int64_t n, int64_t q,
                                       const double *speeds, const wpart_1d_options_t *opt,
                                       int64_t *W, int64_t *seps, wpart_1d_stats_t *stats,
                                       int *loads_bad);
wpart_status_t wpart_base_1d_loads_f64(const double *loads, int64_t n, int64_t q,
                                       const double *speeds, const wpart_1d_options_t *opt,
                                       double *W, int64_t *seps, wpart_1d_stats_t *stats,
                                       int *loads_bad);
wpart_status_t wpart_base_1d_probe_loads_i64(const int64_t *loads, int64_t n, int64_t q,
                                             int64_t B, int64_t *W, int64_t *seps, int *ok,
                                             int *loads_bad);
wpart_status_t wpart_base_1d_probe_loads_f64(const double *loads, int64_t n, int64_t q,
                                             double B, double *W, int64_t *seps, int *ok,
                                             int *loads_bad);

#ifdef __cplusplus
}
#endif

#endif /* WPART_BASE_H */
