/*
 * wpart/dynamic_exec.h -- the kernels of wpart.dynamic's real execution.
 *
 * A real-execution driver hands a worker a contiguous block [offset, offset + size) of a
 * 1-D index space; these kernels compute one such block of a real application. Each call uses
 * `nthreads` POSIX threads (the calling thread plus nthreads - 1 helpers started for the
 * call), writes only the part of the output that belongs to its block, and gives results that
 * do not depend on nthreads (every output element is summed in the same order). Blocks of one
 * run may therefore be computed concurrently by different workers.
 */
#ifndef WPART_DYNAMIC_EXEC_H
#define WPART_DYNAMIC_EXEC_H

#include <stdint.h>

#include "wpart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest thread count the kernels accept. */
#define WPART_DYN_KERNEL_MAX_THREADS 1024

/**
 * Column block of a dense product: C[:, col0:col0+ncols] = A · B[:, col0:col0+ncols].
 *
 * The index space is the N columns of B and C. All three matrices are column-major
 * (Fortran order), so a column range of B and C is contiguous:
 *   A: n × kdim, element (i, l) at A[i + l·n];
 *   B: kdim × N, element (l, j) at B[l + j·kdim];
 *   C: n × N,    element (i, j) at C[i + j·n]   (only columns [col0, col0+ncols) are written).
 * Tiled 64 × 64 over (rows, columns) with k-blocking 256; the tiles are shared out among
 * nthreads threads. Each C element is accumulated over l = 0, 1, ..., kdim-1 in that order,
 * whatever nthreads is.
 *
 * @param n, kdim, N   matrix dimensions (>= 0; the products must fit in int64)
 * @param A, B         inputs (borrowed, not modified; may be NULL when empty)
 * @param C            output (caller-owned)
 * @param col0, ncols  the block: 0 <= col0, 0 <= ncols, col0 + ncols <= N
 * @param nthreads     1 .. WPART_DYN_KERNEL_MAX_THREADS
 * @return WPART_OK; WPART_EINVAL for a bad dimension, range, thread count or NULL pointer;
 *         WPART_EOVERFLOW when a size product overflows.
 * Time: O(n · kdim · ncols) (wp_kernel_gemm_cols).
 */
wpart_status_t wpart_dynamic_kernel_gemm_cols(int64_t n, int64_t kdim, int64_t N,
                                              const double *A, const double *B, double *C,
                                              int64_t col0, int64_t ncols, int nthreads);

/**
 * Point block of k-means' assignment step: for every point i in [p0, p0 + np),
 * labels[i] = argmin_c sum_j (points[i, j] - centroids[c, j])^2 (the lowest c on ties; the sum
 * runs over j = 0..d-1 in order).
 *
 * Row-major inputs: points is npoints × d, centroids is k × d; labels has npoints entries and
 * only [p0, p0 + np) are written. When sums (k × d, row-major) and counts (k) are given, they
 * are overwritten with this block's partial centroid update: sums[c, :] = the sum of the
 * block's points labelled c (added in point order), counts[c] = their number.
 *
 * @param npoints, d, k  dimensions (npoints >= 0, d >= 1, 1 <= k <= INT32_MAX)
 * @param points, centroids  inputs (borrowed)
 * @param p0, np         the block: 0 <= p0, 0 <= np, p0 + np <= npoints
 * @param labels         output (caller-owned, npoints entries)
 * @param sums, counts   optional outputs (both NULL or both given)
 * @param nthreads       1 .. WPART_DYN_KERNEL_MAX_THREADS
 * @return WPART_OK; WPART_EINVAL for a bad argument; WPART_EOVERFLOW on a size overflow.
 * Time: O(np · k · d) (wp_kernel_kmeans_assign).
 */
wpart_status_t wpart_dynamic_kernel_kmeans_assign(int64_t npoints, int64_t d, int64_t k,
                                                  const double *points, const double *centroids,
                                                  int64_t p0, int64_t np, int32_t *labels,
                                                  double *sums, int64_t *counts, int nthreads);

#ifdef __cplusplus
}
#endif

#endif /* WPART_DYNAMIC_EXEC_H */
