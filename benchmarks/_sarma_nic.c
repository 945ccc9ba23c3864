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

/* ---- SARMA's own `nic` cost profile (its default, Nicol's index search) ----------------------
 * SARMA's `nic` (nicol2d with use_indices) does not bisect on the bottleneck value: for each part
 * it binary-searches the cut index, and a candidate bottleneck is probed only when it falls
 * between the current lower and upper bounds; a feasible probe becomes the upper bound on every
 * later cut (UB). Its half-step builds one prefix array per fixed stripe from the transposed CSR,
 * placing each stored entry in its stripe by a binary search over the fixed cuts, and the call
 * starts by transposing the matrix. `sarma_nicol_idx` reproduces that work (same searches, same
 * stop rule, same half-step budget) on int64 loads; the cuts are a 1D optimum each half-step,
 * as in `sarma_nicol`, but ties may resolve to other cuts. */

typedef struct {
    int64_t K, n;          /* K prefix arrays of n + 1 */
    const int64_t *X;
} pfx_t;

/* largest l in [a, r] with X_k[l] - X_k[a] <= L for every stripe k */
static int64_t idx_reach(const pfx_t *s, int64_t a, int64_t r, int64_t L)
{
    int64_t best = r;
    for (int64_t k = 0; k < s->K; k++) {
        const int64_t *x = s->X + k * (s->n + 1);
        int64_t l = a, h = best;
        while (l < h) {
            int64_t m = (l + 1) + (h - (l + 1)) / 2;
            if (x[m] - x[a] <= L) l = m; else h = m - 1;
        }
        if (l < best) best = l;
    }
    return best;
}

/* probe of L under the caps UB (parts + 1); the cuts into p (a fresh buffer per probe, as a
 * new vector is); returns 1 when the last cut reaches n */
static int idx_probe(const pfx_t *s, int parts, int64_t L, const int64_t *UB, int64_t *out)
{
    int64_t *p = malloc((size_t)(parts + 1) * sizeof(int64_t));
    if (!p) return -1;
    int np = 1;
    p[0] = 0;
    while (np < parts + 1) {
        p[np] = idx_reach(s, p[np - 1], UB[np], L);
        np++;
        if (p[np - 1] == p[np - 2]) {
            while (np < parts + 1) { p[np] = p[np - 1]; np++; }
            break;
        }
    }
    memcpy(out, p, (size_t)(parts + 1) * sizeof(int64_t));
    free(p);
    return out[parts] >= s->n;
}

static int64_t idx_cost(const pfx_t *s, int64_t a, int64_t b)
{
    int64_t c = 0;
    for (int64_t k = 0; k < s->K; k++) {
        const int64_t *x = s->X + k * (s->n + 1);
        if (x[b] - x[a] > c) c = x[b] - x[a];
    }
    return c;
}

/* Nicol's exact 1D partition by cut-index search (SARMA's partition_indices) */
static int idx_oned(const pfx_t *s, int parts, int64_t *cuts, int64_t *UB, int64_t *tmp)
{
    int64_t n = s->n, lo = 0, hi = 0;
    for (int p = 0; p <= parts; p++) UB[p] = n;
    for (int64_t k = 0; k < s->K; k++) {
        int64_t t = s->X[k * (n + 1) + n];
        if (t / parts > lo) lo = t / parts;
        if (t > hi) hi = t;
    }
    int64_t pback = 0;
    for (int i = 1; i <= parts; i++) {
        int64_t l = pback, r = UB[i];
        while (l < r) {
            int64_t m = (l + 1) + (r - (l + 1)) / 2;
            int64_t b = idx_cost(s, pback, m);
            if (b > hi) {
                r = m - 1;
            } else if (b < lo) {
                l = m;
            } else {
                int ok = idx_probe(s, parts, b, UB, tmp);
                if (ok < 0) return -1;
                if (!ok) {
                    l = m;
                    lo = b;
                } else {
                    r = m - 1;
                    memcpy(UB, tmp, (size_t)(parts + 1) * sizeof(int64_t));
                    hi = b;
                }
            }
        }
        if (l + 1 <= n) {
            int64_t b = idx_cost(s, pback, l + 1);
            if (lo < b && b < hi) {
                int ok = idx_probe(s, parts, b, UB, tmp);
                if (ok < 0) return -1;
                if (ok) {
                    memcpy(UB, tmp, (size_t)(parts + 1) * sizeof(int64_t));
                    hi = b;
                } else {
                    lo = b;
                }
            }
        }
        pback = l;
    }
    return idx_probe(s, parts, hi, UB, cuts) < 0 ? -1 : 0;
}

/* the stripe of index v among the cuts c[0..K] (c[0] = 0): SARMA's lowerbound_index */
static int64_t idx_stripe(const int64_t *c, int64_t K, int64_t v)
{
    int64_t lo = 0, hi = K + 1;          /* first c[i] >= v + 1 */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (c[mid] < v + 1) lo = mid + 1; else hi = mid;
    }
    return lo - 1;
}

/* SARMA's nic (start 0) / nicuni (start 1) on the CSR (rp, ci, w) of an n1 x n2 matrix with
 * integer loads w; R (P + 1), C (Q + 1) out. Returns the half-steps run, -1 out of memory. */
int sarma_nicol_idx(int64_t n1, int64_t n2, const int64_t *rp, const int64_t *ci,
                    const int64_t *w, int P, int Q, int start, int64_t *R, int64_t *C)
{
    int64_t nnz = rp[n1], N = n1 > n2 ? n1 : n2, K = P > Q ? P : Q;
    int64_t *tp = calloc((size_t)(n2 + 2), sizeof(int64_t));
    int64_t *ti = malloc((size_t)(nnz + 1) * sizeof(int64_t));
    int64_t *tw = malloc((size_t)(nnz + 1) * sizeof(int64_t));
    int64_t *X = malloc((size_t)(K * (N + 1) + 1) * sizeof(int64_t));
    int64_t *UB = malloc((size_t)(K + 1) * sizeof(int64_t));
    int64_t *tmp = malloc((size_t)(K + 1) * sizeof(int64_t));
    int64_t *prev = malloc((size_t)(K + 1) * sizeof(int64_t));
    int steps = -1;
    if (!tp || !ti || !tw || !X || !UB || !tmp || !prev) goto done;
    /* the transpose (CSR of A^T), inside the timed call as SARMA's is */
    for (int64_t e = 0; e < nnz; e++) tp[ci[e] + 2]++;
    for (int64_t j = 2; j <= n2 + 1; j++) tp[j] += tp[j - 1];
    for (int64_t i = 0; i < n1; i++)
        for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
            int64_t at = tp[ci[e] + 1]++;
            ti[at] = i;
            tw[at] = w[e];
        }
    pfx_t s;
    if (start == 0) {   /* the 1D optimum of the stored entries per row: rp is that prefix */
        s.K = 1; s.n = n1; s.X = rp;
        if (idx_oned(&s, P, R, UB, tmp) < 0) goto done;
    } else {
        for (int p = 0; p <= P; p++) R[p] = (p * n1) / P;
    }
    /* SARMA starts both cut vectors as the row cuts: the first half-step (the columns) stops
     * the refinement only when P == Q and it returns the row cuts */
    if (P == Q)
        memcpy(C, R, (size_t)(P + 1) * sizeof(int64_t));
    else
        C[0] = -1;
    int budget = 10 > P + Q ? 10 : P + Q;
    steps = 0;
    for (int it = 1; it <= budget; it++) {
        int cols = it & 1;
        const int64_t *mp = cols ? tp : rp, *mi = cols ? ti : ci, *mw = cols ? tw : w;
        int64_t n = cols ? n2 : n1, Kf = cols ? P : Q;
        int parts = cols ? Q : P;
        const int64_t *fc = cols ? R : C;
        int64_t *out = cols ? C : R;
        steps = it;
        memset(X, 0, (size_t)(Kf * (n + 1)) * sizeof(int64_t));
        for (int64_t i = 0; i < n; i++)
            for (int64_t e = mp[i]; e < mp[i + 1]; e++)
                X[idx_stripe(fc, Kf, mi[e]) * (n + 1) + i + 1] += mw[e];
        for (int64_t k = 0; k < Kf; k++)
            for (int64_t j = 1; j <= n; j++) X[k * (n + 1) + j] += X[k * (n + 1) + j - 1];
        memcpy(prev, out, (size_t)(parts + 1) * sizeof(int64_t));
        s.K = Kf; s.n = n; s.X = X;
        if (idx_oned(&s, parts, out, UB, tmp) < 0) { steps = -1; goto done; }
        if (!memcmp(prev, out, (size_t)(parts + 1) * sizeof(int64_t))) break;
    }
done:
    free(tp); free(ti); free(tw); free(X); free(UB); free(tmp); free(prev);
    return steps;
}
