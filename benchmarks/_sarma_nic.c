/* SARMA's nic / nicuni (Nicol's 2D refinement) at C speed for bench_spatial_sarma.py: the same
 * algorithm, start, budget and stop rule as the vectorised numpy version in _sarma.py (same
 * cuts on integer loads), written plainly in C so the benchmark's CPU baseline is not a
 * Python one. Compiled by _sarma.py with the system C compiler, loaded through ctypes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

/* first index i in [lo, hi) with x[i] > v (hi when none) */
static int64_t upper(const double *x, int64_t lo, int64_t hi, double v)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (x[mid] > v) hi = mid; else lo = mid + 1;
    }
    return lo;
}

/* greedy probe of bottleneck B on the K stripe prefixes X (K x (n + 1)); 1 when feasible */
static int probe(const double *X, int64_t K, int64_t n, int parts, double B, double span,
                 int64_t *cuts)
{
    int64_t a = 0;
    double b2 = B < span ? B : span;
    cuts[0] = 0;
    for (int p = 1; p < parts; p++) {
        int64_t b = n + 1;
        for (int64_t k = 0; k < K; k++) {
            const double *x = X + k * (n + 1);
            int64_t e = upper(x, a, (b < n + 1 ? b + 1 : n + 1), x[a] + b2);
            if (e < b) b = e;
        }
        b -= 1;
        if (b < a) b = a;
        cuts[p] = b;
        a = b;
    }
    cuts[parts] = n;
    for (int64_t k = 0; k < K; k++) {
        const double *x = X + k * (n + 1);
        if (x[n] - x[a] > B) return 0;
    }
    return 1;
}

/* the exact min-max partition of the K-stripe prefix X into `parts` intervals (bisection on
 * the bottleneck, as _sarma._oned_multi) */
static void oned(const double *X, int64_t K, int64_t n, int parts, int integral,
                 int64_t *cuts, int64_t *tmp)
{
    double lo = 0.0, hi = 0.0, x0 = X[0];
    for (int64_t k = 0; k < K; k++) {
        double t = X[k * (n + 1) + n];
        if (t / parts > lo) lo = t / parts;
        if (t - X[k * (n + 1)] > hi) hi = t - X[k * (n + 1)];
        if (X[k * (n + 1)] < x0) x0 = X[k * (n + 1)];
    }
    double tmax = 0.0;
    for (int64_t k = 0; k < K; k++)
        if (X[k * (n + 1) + n] > tmax) tmax = X[k * (n + 1) + n];
    double span = tmax - x0 + 1.0;
    if (integral) lo = ceil(lo);
    probe(X, K, n, parts, hi, span, cuts);
    for (int it = 0; lo < hi && it < 200; it++) {
        double mid = integral ? floor((lo + hi) / 2) : (lo + hi) / 2;
        if (probe(X, K, n, parts, mid, span, tmp)) {
            hi = mid;
            memcpy(cuts, tmp, (size_t)(parts + 1) * sizeof(int64_t));
        } else {
            lo = integral ? mid + 1 : mid;
        }
        if (!integral && hi - lo <= 1e-12 * hi) break;
    }
}

/* one half-step: the cuts of the major dimension (size n, `parts` intervals) for the fixed
 * cuts `oc` (K + 1) of the minor one (size nm) */
static void half(int64_t nnz, const int64_t *major, const int64_t *minor, const double *w,
                 int64_t n, int64_t nm, const int64_t *oc, int64_t K, int parts,
                 int integral, int64_t *cuts, int64_t *tmp, int64_t *stripe, double *X)
{
    for (int64_t k = 0; k < K; k++)
        for (int64_t j = oc[k]; j < oc[k + 1] && j < nm; j++) stripe[j] = k;
    memset(X, 0, (size_t)(K * (n + 1)) * sizeof(double));
    for (int64_t e = 0; e < nnz; e++)
        X[stripe[minor[e]] * (n + 1) + major[e] + 1] += w[e];
    for (int64_t k = 0; k < K; k++) {
        double *x = X + k * (n + 1);
        for (int64_t j = 1; j <= n; j++) x[j] += x[j - 1];
    }
    oned(X, K, n, parts, integral, cuts, tmp);
}

/* nic (start 0: rows from the stored entries per row) or nicuni (start 1: uniform rows);
 * R (P + 1), C (Q + 1) out. Returns the half-steps run, -1 when out of memory. */
int sarma_nicol(int64_t n1, int64_t n2, int64_t nnz, const int64_t *row, const int64_t *ci,
                const double *w, int P, int Q, int start, int integral, int64_t *R, int64_t *C)
{
    int64_t N = n1 > n2 ? n1 : n2, K = P > Q ? P : Q;
    double *X = malloc((size_t)(K * (N + 1)) * sizeof(double));
    int64_t *tmp = malloc((size_t)(K + 1) * sizeof(int64_t));
    int64_t *prev = malloc((size_t)(K + 1) * sizeof(int64_t));
    int64_t *stripe = malloc((size_t)(N + 1) * sizeof(int64_t));
    int steps = 0;
    if (!X || !tmp || !prev || !stripe) {
        free(X); free(tmp); free(prev); free(stripe);
        return -1;
    }
    if (start == 0) {  /* 1D optimum of the stored entries per row */
        memset(X, 0, (size_t)(n1 + 1) * sizeof(double));
        for (int64_t e = 0; e < nnz; e++) X[row[e] + 1] += 1.0;
        for (int64_t j = 1; j <= n1; j++) X[j] += X[j - 1];
        oned(X, 1, n1, P, 1, R, tmp);
    } else {
        for (int p = 0; p <= P; p++) R[p] = (p * n1) / P;
    }
    for (int q = 0; q <= Q; q++) C[q] = (q * n2) / Q;
    int budget = 10 > P + Q ? 10 : P + Q;
    for (int i = 1; i <= budget; i++) {
        steps = i;
        if (i & 1) {  /* columns for the rows */
            memcpy(prev, C, (size_t)(Q + 1) * sizeof(int64_t));
            half(nnz, ci, row, w, n2, n1, R, P, Q, integral, C, tmp, stripe, X);
            if (!memcmp(prev, C, (size_t)(Q + 1) * sizeof(int64_t))) break;
        } else {
            memcpy(prev, R, (size_t)(P + 1) * sizeof(int64_t));
            half(nnz, row, ci, w, n1, n2, C, Q, P, integral, R, tmp, stripe, X);
            if (!memcmp(prev, R, (size_t)(P + 1) * sizeof(int64_t))) break;
        }
    }
    free(X); free(tmp); free(prev); free(stripe);
    return steps;
}
