/*
 * multikernel_rbf.c -- scattered-data interpolation that derives a configuration for an unseen
 * workload from stored profiles [Soldado 2016, Sec. 3.2.3]: exact polyharmonic RBF
 * (r^2 log r plus an affine tail, solved by LU with partial pivoting) for 1 to 3 dimensions,
 * inverse distance weighting when the RBF system is singular or the nodes too few, and the
 * Euclidean nearest node above 3 dimensions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "wpart/multikernel.h"

static double dist2(int32_t d, const double *a, const double *b)
{
    double s = 0.0;
    for (int32_t j = 0; j < d; j++) {
        double t = a[j] - b[j];
        s += t * t;
    }
    return s;
}

static double phi_r2(double r2) { return r2 > 0.0 ? 0.5 * r2 * log(r2) : 0.0; } /* r^2 log r */

/* Polls `ctl` (Ctrl-C, time limit) once about 2^22 multiply-adds of work have been done since
 * the last poll (*work counts them): a few milliseconds between polls at any size. */
#define RBF_POLL_WORK (INT64_C(1) << 22)
static wpart_status_t rbf_poll(const wpart_control_t *ctl, double t0, int64_t *work, int64_t add)
{
    *work += add;
    if (!ctl || *work < RBF_POLL_WORK) {
        return WPART_OK;
    }
    *work = 0;
    return wpart_i_poll(ctl, t0, 0.0, 0.0);
}

/* Solves A x = b in place (A: n x n row-major); 0, -1 when singular, -3 when `ctl` stopped it
 * (*st then holds the status). */
static int lu_solve(int32_t n, double *A, double *b, const wpart_control_t *ctl, double t0,
                    wpart_status_t *st)
{
    int64_t work = 0;
    double amax = 0.0;
    for (int64_t i = 0; i < (int64_t)n * n; i++) {
        amax = fmax(amax, fabs(A[i]));
    }
    double tol = 1e-12 * (amax > 0.0 ? amax : 1.0) * n;
    for (int32_t k = 0; k < n; k++) {
        int32_t p = k;
        for (int32_t i = k + 1; i < n; i++) {
            if (fabs(A[(int64_t)i * n + k]) > fabs(A[(int64_t)p * n + k])) {
                p = i;
            }
        }
        if (!(fabs(A[(int64_t)p * n + k]) > tol)) {
            return -1;
        }
        if (p != k) {
            for (int32_t j = 0; j < n; j++) {
                double t = A[(int64_t)k * n + j];
                A[(int64_t)k * n + j] = A[(int64_t)p * n + j];
                A[(int64_t)p * n + j] = t;
            }
            double t = b[k];
            b[k] = b[p];
            b[p] = t;
        }
        double piv = A[(int64_t)k * n + k];
        for (int32_t i = k + 1; i < n; i++) {
            double f = A[(int64_t)i * n + k] / piv;
            if (f == 0.0) {
                continue;
            }
            for (int32_t j = k; j < n; j++) {
                A[(int64_t)i * n + j] -= f * A[(int64_t)k * n + j];
            }
            b[i] -= f * b[k];
            if ((*st = rbf_poll(ctl, t0, &work, n - k)) != WPART_OK) {
                return -3;
            }
        }
    }
    for (int32_t k = n - 1; k >= 0; k--) {
        double s = b[k];
        for (int32_t j = k + 1; j < n; j++) {
            s -= A[(int64_t)k * n + j] * b[j];
        }
        b[k] = s / A[(int64_t)k * n + k];
        if (!isfinite(b[k])) {
            return -1;
        }
    }
    return 0;
}

/* RBF coefficients (lambda[0..n), beta[0..d]) into coef; 0, -1 if singular, -2 out of
 * memory, -3 stopped by `ctl` (*st holds the status). */
static int rbf_fit(int32_t n, int32_t d, const double *X, const double *y, double *coef,
                   const wpart_control_t *ctl, double t0, wpart_status_t *st)
{
    int64_t work = 0;
    int32_t N = n + d + 1;
    double *A = wpart_i_calloc((int64_t)N * N, sizeof *A);
    if (!A) {
        return -2;
    }
    for (int32_t i = 0; i < n; i++) {
        for (int32_t j = 0; j < n; j++) {
            A[(int64_t)i * N + j] = phi_r2(dist2(d, X + (int64_t)i * d, X + (int64_t)j * d));
        }
        A[(int64_t)i * N + n] = 1.0;
        A[(int64_t)n * N + i] = 1.0;
        for (int32_t k = 0; k < d; k++) {
            A[(int64_t)i * N + n + 1 + k] = X[(int64_t)i * d + k];
            A[(int64_t)(n + 1 + k) * N + i] = X[(int64_t)i * d + k];
        }
        coef[i] = y[i];
        if ((*st = rbf_poll(ctl, t0, &work, (int64_t)n * d)) != WPART_OK) {
            free(A);
            return -3;
        }
    }
    for (int32_t k = 0; k <= d; k++) {
        coef[n + k] = 0.0;
    }
    int r = lu_solve(N, A, coef, ctl, t0, st);
    free(A);
    return r;
}

static double rbf_eval(int32_t n, int32_t d, const double *X, const double *coef,
                       const double *x)
{
    double s = coef[n];
    for (int32_t k = 0; k < d; k++) {
        s += coef[n + 1 + k] * x[k];
    }
    for (int32_t i = 0; i < n; i++) {
        s += coef[i] * phi_r2(dist2(d, X + (int64_t)i * d, x));
    }
    return s;
}

static int32_t nearest(int32_t n, int32_t d, const double *X, const double *x)
{
    int32_t best = 0;
    double bd = INFINITY;
    for (int32_t i = 0; i < n; i++) {
        double t = dist2(d, X + (int64_t)i * d, x);
        if (t < bd) {
            bd = t;
            best = i;
        }
    }
    return best;
}

static double idw(int32_t n, int32_t d, const double *X, const double *y, const double *x)
{
    double num = 0.0, den = 0.0;
    for (int32_t i = 0; i < n; i++) {
        double t = dist2(d, X + (int64_t)i * d, x);
        if (t == 0.0) {
            return y[i];
        }
        num += y[i] / t; /* weight 1 / r^2 */
        den += 1.0 / t;
    }
    return num / den;
}

/* The packed model: [m, d, how, U (m x d), v (m), coef (m + d + 1), first (m)]. */
/* What the fit and the one-shot interpolation share: the checks of X and y, the merge of
 * duplicate nodes (their mean value; first[j] the index of node j's first copy, when first is
 * not NULL) into the caller's U (n x d), v (n) and cnt (n), and the choice of the
 * interpolation with its RBF coefficients in coef (n + d + 1). *m: the merged nodes. */
static wpart_status_t interp_prepare(int32_t n, int32_t d, const double *X, const double *y,
                                     double *U, double *v, int32_t *cnt, double *first,
                                     double *coef, const wpart_control_t *ctl, double t0,
                                     int64_t *work, int32_t *m_out, int32_t *how_out)
{
    wpart_status_t st = WPART_OK;
    for (int64_t i = 0; i < (int64_t)n * d; i++) {
        if (!isfinite(X[i])) {
            return wpart_i_error(WPART_EINVAL, "X must be finite (node %" PRId64 ")", i / d);
        }
    }
    for (int32_t i = 0; i < n; i++) {
        if (!isfinite(y[i])) {
            return wpart_i_error(WPART_EINVAL, "y[%d] must be finite, got %g", (int)i, y[i]);
        }
    }
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++) {
        const double *xi = X + (int64_t)i * d;
        int32_t j = 0;
        while (j < m && memcmp(U + (int64_t)j * d, xi, (size_t)d * sizeof *xi) != 0) {
            j++;
        }
        if (j == m) {
            memcpy(U + (int64_t)m * d, xi, (size_t)d * sizeof *xi);
            v[m] = 0.0;
            cnt[m] = 0;
            if (first) {
                first[m] = (double)i;
            }
            m++;
        }
        v[j] += y[i];
        cnt[j]++;
        WPART_CHECK(rbf_poll(ctl, t0, work, (int64_t)j * d));
    }
    for (int32_t j = 0; j < m; j++) {
        v[j] /= cnt[j];
    }
    int32_t how;
    if (m == 1) {
        how = WPART_MULTIKERNEL_INTERP_NODE;
    } else if (d > 3) {
        how = WPART_MULTIKERNEL_INTERP_NEAREST;
    } else if (m >= d + 1) {
        wpart_status_t fst = WPART_OK;
        int r = rbf_fit(m, d, U, v, coef, ctl, t0, &fst);
        if (r == -2) {
            WPART_FAIL(WPART_ENOMEM, "RBF system of %d nodes", (int)m);
        }
        if (r == -3) {
            return fst;
        }
        how = r == 0 ? WPART_MULTIKERNEL_INTERP_RBF : WPART_MULTIKERNEL_INTERP_IDW;
    } else {
        how = WPART_MULTIKERNEL_INTERP_IDW;
    }
    *m_out = m;
    *how_out = how;
cleanup:
    return st;
}

int64_t wpart_multikernel_interp_model_size(int32_t n, int32_t d)
{
    return 3 + (int64_t)n * d + (int64_t)n + (int64_t)n + d + 1 + (int64_t)n;
}

wpart_status_t wpart_multikernel_interp_fit(int32_t n, int32_t d, const double *X, const double *y,
                                            double *model)
{
    wpart_status_t st = WPART_OK;
    int32_t *cnt = NULL;
    double *coef = NULL;
    if (n < 1 || !X || !y || !model) {
        return wpart_i_error(WPART_EINVAL, "X: need at least one node");
    }
    if (d < 1) {
        return wpart_i_error(WPART_EINVAL, "X: need at least one feature, got %d", (int)d);
    }
    /* room for n merged nodes; compacted to m below */
    double *U = model + 3, *v = U + (int64_t)n * d;
    double *first = v + n; /* kept at offset for n, moved after the fit */
    cnt = wpart_i_malloc(n, sizeof *cnt);
    coef = wpart_i_malloc((int64_t)n + d + 1, sizeof *coef);
    if (!cnt || !coef) {
        WPART_FAIL(WPART_ENOMEM, "interpolation over %d nodes", (int)n);
    }
    int64_t work = 0;
    int32_t m = 0, how = 0;
    WPART_CHECK(interp_prepare(n, d, X, y, U, v, cnt, first, coef, NULL, 0.0, &work, &m, &how));
    /* compact: U (m x d) stays, then v (m), coef (m + d + 1), first (m) */
    double *v2 = U + (int64_t)m * d;
    memmove(v2, v, (size_t)m * sizeof *v);
    double *c2 = v2 + m, *f2 = c2 + m + d + 1;
    /* first[] sits at v + n >= v2 + m: move it to its place after coef (never overlapping the
     * copy of coef below, which is written last) */
    memmove(f2, first, (size_t)m * sizeof *first);
    if (how == WPART_MULTIKERNEL_INTERP_RBF) {
        memcpy(c2, coef, ((size_t)m + (size_t)d + 1) * sizeof *coef);
    } else {
        memset(c2, 0, ((size_t)m + (size_t)d + 1) * sizeof *c2);
    }
    model[0] = (double)m;
    model[1] = (double)d;
    model[2] = (double)how;
cleanup:
    free(cnt);
    free(coef);
    return st;
}

/* The interpolation of method `how` at x over the m merged nodes U (values v, RBF
 * coefficients coef); a value that is not finite (a badly conditioned system) falls back to
 * inverse distance weighting. The nearest node's index goes to *near when near is given (it
 * is searched only when near is given or the method needs it). */
static double interp_at(int32_t how, int32_t m, int32_t d, const double *U, const double *v,
                        const double *coef, const double *x, int32_t *near)
{
    int32_t j = 0;
    if (near || how == WPART_MULTIKERNEL_INTERP_NEAREST || how == WPART_MULTIKERNEL_INTERP_RBF) {
        j = nearest(m, d, U, x);
    }
    double r;
    switch (how) {
    case WPART_MULTIKERNEL_INTERP_NODE: r = v[0]; break;
    case WPART_MULTIKERNEL_INTERP_NEAREST: r = v[j]; break;
    case WPART_MULTIKERNEL_INTERP_RBF:
        /* exact at a node (the solve's rounding is not) */
        r = dist2(d, U + (int64_t)j * d, x) == 0.0 ? v[j] : rbf_eval(m, d, U, coef, x);
        break;
    default: r = idw(m, d, U, v, x); break;
    }
    if (!isfinite(r)) {
        r = idw(m, d, U, v, x);
    }
    if (near) {
        *near = j;
    }
    return r;
}

wpart_status_t wpart_multikernel_interp_eval(const double *model, int32_t q, const double *Q,
                                             double *out, int32_t *how_out, int32_t *near_out)
{
    wpart_status_t st = WPART_OK;
    if (!model || q < 0 || (q > 0 && (!Q || !out))) {
        WPART_FAIL(WPART_EINVAL, "interp_eval: NULL argument");
    }
    int32_t m = (int32_t)model[0], d = (int32_t)model[1], how = (int32_t)model[2];
    if (m < 1 || d < 1 || how < 0 || how > 3) {
        WPART_FAIL(WPART_EINVAL, "interp_eval: not a packed interpolation model");
    }
    for (int64_t i = 0; i < (int64_t)q * d; i++) {
        if (!isfinite(Q[i])) {
            WPART_FAIL(WPART_EINVAL, "x must be finite (point %" PRId64 ")", i / d);
        }
    }
    const double *U = model + 3, *v = U + (int64_t)m * d, *coef = v + m, *first = coef + m + d + 1;
    for (int32_t k = 0; k < q; k++) {
        int32_t j;
        out[k] = interp_at(how, m, d, U, v, coef, Q + (int64_t)k * d, &j);
        if (near_out) {
            near_out[k] = (int32_t)first[j];
        }
    }
    if (how_out) {
        *how_out = how;
    }
cleanup:
    return st;
}

wpart_status_t wpart_multikernel_interpolate(int32_t n, int32_t d, const double *X, const double *y,
                                    int32_t q, const double *Q, double *out, int32_t *how_out)
{
    return wpart_multikernel_interpolate_ctl(n, d, X, y, q, Q, out, how_out, NULL);
}

wpart_status_t wpart_multikernel_interpolate_ctl(int32_t n, int32_t d, const double *X,
                                                 const double *y, int32_t q, const double *Q,
                                                 double *out, int32_t *how_out,
                                                 const wpart_control_t *ctl)
{
    wpart_status_t st = WPART_OK;
    const double t0 = wpart_i_now();
    int64_t work = 0;
    double *U = NULL, *v = NULL, *coef = NULL;
    int32_t *cnt = NULL;
    if (n < 1 || !X || !y) {
        return wpart_i_error(WPART_EINVAL, "X: need at least one node");
    }
    if (d < 1) {
        return wpart_i_error(WPART_EINVAL, "X: need at least one feature, got %d", (int)d);
    }
    if (q < 0 || (q > 0 && (!Q || !out))) {
        return wpart_i_error(WPART_EINVAL, "x: NULL query points");
    }
    U = wpart_i_malloc((int64_t)n * d, sizeof *U);
    v = wpart_i_malloc(n, sizeof *v);
    cnt = wpart_i_malloc(n, sizeof *cnt);
    coef = wpart_i_malloc((int64_t)n + d + 1, sizeof *coef);
    if (!U || !v || !cnt || !coef) {
        WPART_FAIL(WPART_ENOMEM, "interpolation over %d nodes", (int)n);
    }
    int32_t m = 0, how = 0;
    WPART_CHECK(interp_prepare(n, d, X, y, U, v, cnt, NULL, coef, ctl, t0, &work, &m, &how));
    for (int32_t k = 0; k < q; k++) {
        out[k] = interp_at(how, m, d, U, v, coef, Q + (int64_t)k * d, NULL);
        WPART_CHECK(rbf_poll(ctl, t0, &work, (int64_t)m * d));
    }
    if (how_out) {
        *how_out = how;
    }
cleanup:
    free(U);
    free(v);
    free(cnt);
    free(coef);
    return st;
}
