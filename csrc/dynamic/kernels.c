/*
 * kernels.c -- the compute kernels of wpart.dynamic's real execution (spec 001 §5.8): a column
 * block of a dense product and a point block of k-means' assignment step.
 *
 * Each call shares its work among nthreads POSIX threads: the calling thread takes rank 0 and
 * nthreads - 1 helper threads are started for the call (a block takes milliseconds, thread
 * start-up microseconds). Work is split so that every output element is written by exactly
 * one thread, in an order that does not depend on nthreads: results are identical for any
 * thread count. If a helper thread cannot be started, the calling thread does its share.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "wpart/dynamic_exec.h"

/* ---------------------------------------------------------------- thread team ----------- */

typedef void (*team_fn)(void *ctx, int rank, int nthreads);

typedef struct {
    team_fn fn;
    void *ctx;
    int rank, nthreads;
} team_arg_t;

static void *team_entry(void *p)
{
    team_arg_t *a = p;
    a->fn(a->ctx, a->rank, a->nthreads);
    return NULL;
}

/* The block [start, start + count) of a kernel call (`what`: its unit) lies in [0, total), and
 * nthreads is in range. */
static wpart_status_t check_block(const char *what, int64_t start, int64_t count, int64_t total,
                                  int nthreads)
{
    wpart_status_t st = WPART_OK;
    if (start < 0 || count < 0 || start > total || count > total - start) {
        WPART_FAIL(WPART_EINVAL,
                   "%s block [%" PRId64 ", %" PRId64 " + %" PRId64 ") is outside [0, %" PRId64 ")",
                   what, start, start, count, total);
    }
    if (nthreads < 1 || nthreads > WPART_DYN_KERNEL_MAX_THREADS) {
        WPART_FAIL(WPART_EINVAL, "nthreads must be in [1, %d], got %d",
                   WPART_DYN_KERNEL_MAX_THREADS, nthreads);
    }
cleanup:
    return st;
}

/* Runs fn(ctx, r, nthreads) for r = 0..nthreads-1, rank 0 on the calling thread. */
static void team_run(team_fn fn, void *ctx, int nthreads)
{
    if (nthreads <= 1) {
        fn(ctx, 0, 1);
        return;
    }
    pthread_t *tid = wpart_i_malloc(nthreads, sizeof *tid);
    team_arg_t *arg = wpart_i_malloc(nthreads, sizeof *arg);
    unsigned char *started = wpart_i_calloc(nthreads, 1);
    if (!tid || !arg || !started) {
        /* no memory for the team: the calling thread does every share, in rank order */
        for (int r = 0; r < nthreads; r++) {
            fn(ctx, r, nthreads);
        }
        goto cleanup;
    }
    for (int r = 1; r < nthreads; r++) {
        arg[r] = (team_arg_t){fn, ctx, r, nthreads};
        started[r] = pthread_create(&tid[r], NULL, team_entry, &arg[r]) == 0;
    }
    fn(ctx, 0, nthreads);
    for (int r = 1; r < nthreads; r++) {
        if (!started[r]) {
            fn(ctx, r, nthreads);
        }
    }
    for (int r = 1; r < nthreads; r++) {
        if (started[r]) {
            pthread_join(tid[r], NULL);
        }
    }
cleanup:
    free(tid);
    free(arg);
    free(started);
}

/* ---------------------------------------------------------------- GEMM columns ----------- */

enum { GEMM_TILE_I = 64, GEMM_TILE_J = 64, GEMM_BLOCK_K = 256 };

typedef struct {
    int64_t n, kdim;
    const double *A, *B;
    double *C;
    int64_t col0, ncols;
    int64_t nti, ntj; /* tiles along rows and along the block's columns */
} gemm_ctx_t;

/* C[i0:i1, j0:j1] = A[i0:i1, :] · B[:, j0:j1], four columns at a time. */
static void gemm_tile(const gemm_ctx_t *g, int64_t i0, int64_t i1, int64_t j0, int64_t j1)
{
    const int64_t n = g->n, kd = g->kdim;
    const int64_t m = i1 - i0;
    for (int64_t j = j0; j < j1; j++) {
        memset(g->C + j * n + i0, 0, (size_t)m * sizeof(double));
    }
    for (int64_t l0 = 0; l0 < kd; l0 += GEMM_BLOCK_K) {
        const int64_t l1 = l0 + GEMM_BLOCK_K < kd ? l0 + GEMM_BLOCK_K : kd;
        int64_t j = j0;
        for (; j + 4 <= j1; j += 4) {
            double *restrict c0 = g->C + j * n + i0;
            double *restrict c1 = c0 + n;
            double *restrict c2 = c1 + n;
            double *restrict c3 = c2 + n;
            const double *b = g->B + j * kd;
            for (int64_t l = l0; l < l1; l++) {
                const double *restrict a = g->A + l * n + i0;
                const double b0 = b[l], b1 = b[l + kd], b2 = b[l + 2 * kd], b3 = b[l + 3 * kd];
                for (int64_t i = 0; i < m; i++) {
                    const double ai = a[i];
                    c0[i] += ai * b0;
                    c1[i] += ai * b1;
                    c2[i] += ai * b2;
                    c3[i] += ai * b3;
                }
            }
        }
        for (; j < j1; j++) {
            double *restrict c0 = g->C + j * n + i0;
            const double *b = g->B + j * kd;
            for (int64_t l = l0; l < l1; l++) {
                const double *restrict a = g->A + l * n + i0;
                const double b0 = b[l];
                for (int64_t i = 0; i < m; i++) {
                    c0[i] += a[i] * b0;
                }
            }
        }
    }
}

static void gemm_worker(void *ctx, int rank, int nthreads)
{
    const gemm_ctx_t *g = ctx;
    const int64_t ntiles = g->nti * g->ntj;
    for (int64_t t = rank; t < ntiles; t += nthreads) {
        const int64_t ti = t % g->nti, tj = t / g->nti;
        const int64_t i0 = ti * GEMM_TILE_I;
        const int64_t i1 = i0 + GEMM_TILE_I < g->n ? i0 + GEMM_TILE_I : g->n;
        const int64_t j0 = g->col0 + tj * GEMM_TILE_J;
        const int64_t jend = g->col0 + g->ncols;
        const int64_t j1 = j0 + GEMM_TILE_J < jend ? j0 + GEMM_TILE_J : jend;
        gemm_tile(g, i0, i1, j0, j1);
    }
}

wpart_status_t wpart_dynamic_kernel_gemm_cols(int64_t n, int64_t kdim, int64_t N,
                                              const double *A, const double *B, double *C,
                                              int64_t col0, int64_t ncols, int nthreads)
{
    wpart_status_t st = WPART_OK;
    int64_t prod;
    if (n < 0 || kdim < 0 || N < 0) {
        WPART_FAIL(WPART_EINVAL,
                   "matrix dimensions must be >= 0 (got n=%" PRId64 ", kdim=%" PRId64
                   ", N=%" PRId64 ")",
                   n, kdim, N);
    }
    if (!wpart_i_mul_size(n, kdim, &prod) || !wpart_i_mul_size(kdim, N, &prod) ||
        !wpart_i_mul_size(n, N, &prod)) {
        WPART_FAIL(WPART_EOVERFLOW, "matrix sizes overflow int64");
    }
    WPART_CHECK(check_block("column", col0, ncols, N, nthreads));
    if (n == 0 || ncols == 0) {
        goto cleanup;
    }
    if (!C || (kdim > 0 && (!A || !B))) {
        WPART_FAIL(WPART_EINVAL, "A, B and C must not be NULL");
    }
    gemm_ctx_t g = {n, kdim, A, B, C, col0, ncols, (n + GEMM_TILE_I - 1) / GEMM_TILE_I,
                    (ncols + GEMM_TILE_J - 1) / GEMM_TILE_J};
    const int64_t ntiles = g.nti * g.ntj;
    team_run(gemm_worker, &g, ntiles < nthreads ? (int)ntiles : nthreads);
cleanup:
    return st;
}

/* ---------------------------------------------------------------- k-means assignment ----- */

typedef struct {
    int64_t d, k;
    const double *points, *centroids;
    int64_t p0, np;
    int32_t *labels;
} kmeans_ctx_t;

static void kmeans_worker(void *ctx, int rank, int nthreads)
{
    const kmeans_ctx_t *g = ctx;
    /* contiguous point ranges: rank r takes [p0 + r·np/T, p0 + (r+1)·np/T) */
    const int64_t q = g->np / nthreads, r = g->np % nthreads;
    const int64_t lo = g->p0 + q * rank + (rank < r ? rank : r);
    const int64_t cnt = q + (rank < r ? 1 : 0);
    const int64_t d = g->d, k = g->k;
    for (int64_t i = lo; i < lo + cnt; i++) {
        const double *restrict p = g->points + i * d;
        double best = 0.0;
        int32_t arg = 0;
        for (int64_t c = 0; c < k; c++) {
            const double *restrict cen = g->centroids + c * d;
            double dist = 0.0;
            for (int64_t j = 0; j < d; j++) {
                const double diff = p[j] - cen[j];
                dist += diff * diff;
            }
            if (c == 0 || dist < best) {
                best = dist;
                arg = (int32_t)c;
            }
        }
        g->labels[i] = arg;
    }
}

wpart_status_t wpart_dynamic_kernel_kmeans_assign(int64_t npoints, int64_t d, int64_t k,
                                                  const double *points, const double *centroids,
                                                  int64_t p0, int64_t np, int32_t *labels,
                                                  double *sums, int64_t *counts, int nthreads)
{
    wpart_status_t st = WPART_OK;
    int64_t prod;
    if (npoints < 0 || d < 1 || k < 1 || k > INT32_MAX) {
        WPART_FAIL(WPART_EINVAL,
                   "need npoints >= 0, d >= 1 and 1 <= k <= 2**31-1 (got npoints=%" PRId64
                   ", d=%" PRId64 ", k=%" PRId64 ")",
                   npoints, d, k);
    }
    if (!wpart_i_mul_size(npoints, d, &prod) || !wpart_i_mul_size(k, d, &prod)) {
        WPART_FAIL(WPART_EOVERFLOW, "array sizes overflow int64");
    }
    WPART_CHECK(check_block("point", p0, np, npoints, nthreads));
    if ((sums == NULL) != (counts == NULL)) {
        WPART_FAIL(WPART_EINVAL, "sums and counts must be given together");
    }
    if (!centroids || (np > 0 && (!points || !labels))) {
        WPART_FAIL(WPART_EINVAL, "points, centroids and labels must not be NULL");
    }
    if (np > 0) {
        kmeans_ctx_t g = {d, k, points, centroids, p0, np, labels};
        team_run(kmeans_worker, &g, np < nthreads ? (int)np : nthreads);
    }
    if (sums) {
        /* the block's partial update, serial so that it is the same for every nthreads */
        memset(sums, 0, (size_t)(k * d) * sizeof(double));
        memset(counts, 0, (size_t)k * sizeof(int64_t));
        for (int64_t i = p0; i < p0 + np; i++) {
            const int64_t c = labels[i];
            const double *p = points + i * d;
            double *s = sums + c * d;
            counts[c]++;
            for (int64_t j = 0; j < d; j++) {
                s[j] += p[j];
            }
        }
    }
cleanup:
    return st;
}
