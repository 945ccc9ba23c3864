/* rect_grid.c -- rectilinear P x Q grids on the nonzeros (see rect_grid.h).
 *
 * A half-sweep sets one dimension's cuts optimally for the other's fixed cuts: the stripes'
 * prefix sums X[i * K + q] (row i, column stripe q; O(nnz + K n)) and a bisection on the
 * bottleneck B whose probe places each cut as far as all K stripes allow (binary search,
 * O(P K log n)). Integral loads bisect on integers (the exact optimum); float loads to 1e-12. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "rect_grid.h"

#define RG_INF HUGE_VAL

typedef struct {
    int64_t n, m;             /* major and minor dimension */
    const int64_t *ptr, *idx; /* major-wise lists */
    const double *w;          /* NULL: unit weights */
} rg_side_t;

static int rg_integral(const double *w, int64_t nnz)
{
    double tot = 0.0;
    if (!w) {
        return 1;
    }
    for (int64_t k = 0; k < nnz; k++) {
        if (w[k] != floor(w[k])) {
            return 0;
        }
        tot += w[k];
    }
    return tot < 9007199254740992.0;
}

static void rg_map(const int64_t *cuts, int64_t K, int64_t n, int32_t *map)
{
    for (int64_t k = 0; k < K; k++) {
        int64_t a = cuts[k] < n ? cuts[k] : n, b = cuts[k + 1] < n ? cuts[k + 1] : n;
        for (int64_t x = a; x < b; x++) {
            map[x] = (int32_t)k;
        }
    }
}

/* X[i * K + q] = load of majors [0, i) in minor stripe q */
static void rg_prefix(const rg_side_t *s, const int32_t *map, int64_t K, double *X)
{
    memset(X, 0, (size_t)K * sizeof(double));
    for (int64_t i = 0; i < s->n; i++) {
        double *row = X + (i + 1) * K;
        memcpy(row, X + i * K, (size_t)K * sizeof(double));
        for (int64_t e = s->ptr[i]; e < s->ptr[i + 1]; e++) {
            row[map[s->idx[e]]] += s->w ? s->w[e] : 1.0;
        }
    }
}

static double rg_cost(const double *X, int64_t K, int64_t a, int64_t b)
{
    double c = 0.0;
    const double *xa = X + a * K, *xb = X + b * K;
    for (int64_t q = 0; q < K; q++) {
        double d = xb[q] - xa[q];
        if (d > c) {
            c = d;
        }
    }
    return c;
}

/* greedy probe: 1 when P parts of cost <= B cover [0, n); cuts and the achieved max set */
static int rg_probe(const double *X, int64_t n, int64_t K, int64_t P, double B, int64_t *cuts,
                    double *got)
{
    int64_t a = 0;
    double mx = 0.0;
    cuts[0] = 0;
    for (int64_t p = 0; p < P; p++) {
        int64_t b;
        if (p == P - 1) {
            b = n;
        } else {
            int64_t lo = a, hi = n; /* largest b in [a, n] with cost(a, b) <= B */
            while (lo < hi) {
                int64_t mid = lo + (hi - lo + 1) / 2;
                if (rg_cost(X, K, a, mid) <= B) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            b = lo;
        }
        double c = rg_cost(X, K, a, b);
        if (c > B) {
            return 0;
        }
        if (c > mx) {
            mx = c;
        }
        cuts[p + 1] = b;
        a = b;
    }
    *got = mx;
    return 1;
}

/* the optimal cuts (P parts) of the K-stripe prefix X, given a feasible upper bound hi (whose
 * probe succeeds) and a lower bound lo; tmp: P + 1 scratch. Returns the optimum. */
static double rg_bisect(const double *X, int64_t n, int64_t K, int64_t P, double lo, double hi,
                        int integral, int64_t *cuts, int64_t *tmp)
{
    double got;
    if (!rg_probe(X, n, K, P, hi, cuts, &got)) {
        return RG_INF; /* not reached: hi is feasible */
    }
    hi = got;
    if (integral) {
        lo = ceil(lo);
        while (lo < hi) {
            double mid = floor((lo + hi) / 2);
            if (rg_probe(X, n, K, P, mid, tmp, &got)) {
                hi = got;
                memcpy(cuts, tmp, (size_t)(P + 1) * sizeof(int64_t));
            } else {
                lo = mid + 1;
            }
        }
    } else {
        for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
            double mid = lo + (hi - lo) / 2;
            if (rg_probe(X, n, K, P, mid, tmp, &got)) {
                hi = got;
                memcpy(cuts, tmp, (size_t)(P + 1) * sizeof(int64_t));
            } else {
                lo = mid;
            }
        }
    }
    return hi;
}

/* each cut k in turn to the place between its neighbours that minimises the larger cost of its
 * two stripes (g grows, h shrinks: the crossing by binary search); never raises the max */
static void rg_balance(const double *X, int64_t K, int64_t P, int64_t *cuts)
{
    for (int64_t k = 1; k < P; k++) {
        int64_t a = cuts[k - 1], b = cuts[k + 1];
        int64_t lo = a, hi = b; /* smallest x with cost(a, x) >= cost(x, b) */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (rg_cost(X, K, a, mid) >= rg_cost(X, K, mid, b)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        int64_t best = cuts[k];
        double bv = fmax(rg_cost(X, K, a, best), rg_cost(X, K, best, b));
        for (int64_t x = lo - 1; x <= lo; x++) {
            if (x < a || x > b) {
                continue;
            }
            double v = fmax(rg_cost(X, K, a, x), rg_cost(X, K, x, b));
            if (v < bv) {
                bv = v;
                best = x;
            }
        }
        cuts[k] = best;
    }
}

typedef struct {
    rg_side_t side[2]; /* 0: rows major (CSR), 1: columns major (CSC) */
    int64_t P[2];      /* parts along rows (0) and columns (1) */
    double *X;         /* prefix scratch */
    int32_t *map;      /* minor -> stripe */
    int64_t *tmp;
    double *tot[2];    /* prefix of the major sums, rows (0) and columns (1) */
    int integral;
} rg_ctx_t;

/* set the cuts of dimension d (0 rows, 1 columns) for the other's cuts; returns the grid max */
static double rg_half(rg_ctx_t *g, int d, int64_t *cut_d, const int64_t *cut_o, int balance)
{
    const rg_side_t *s = &g->side[d];
    int64_t K = g->P[1 - d], P = g->P[d];
    rg_map(cut_o, K, s->m, g->map);
    rg_prefix(s, g->map, K, g->X);
    double hi = 0.0, lo = 0.0;
    for (int64_t p = 0; p < P; p++) {
        double c = rg_cost(g->X, K, cut_d[p], cut_d[p + 1]);
        hi = c > hi ? c : hi;
    }
    for (int64_t q = 0; q < K; q++) {
        double t = g->X[s->n * K + q] / (double)P;
        lo = t > lo ? t : lo;
    }
    lo = g->integral ? ceil(lo) : lo * (1.0 - 1e-12);
    if (lo > hi) {
        lo = hi;
    }
    double v = rg_bisect(g->X, s->n, K, P, lo, hi, g->integral, cut_d, g->tmp);
    if (balance) {
        rg_balance(g->X, K, P, cut_d);
    }
    return v;
}

/* the lower bound of the next half-sweep of dimension d: the other's stripes' loads / P[d] */
static double rg_bound(const rg_ctx_t *g, int d, const int64_t *cut_o)
{
    const double *t = g->tot[1 - d];
    double b = 0.0;
    for (int64_t q = 0; q < g->P[1 - d]; q++) {
        double x = (t[cut_o[q + 1]] - t[cut_o[q]]) / (double)g->P[d];
        b = x > b ? x : b;
    }
    return g->integral ? ceil(b) : b * (1.0 - 1e-12);
}

/* CSC of A: column pointers, row indices and weights (NULL for unit weights) */
static wpart_status_t rg_transpose(const wpart_rg_csr_t *A, int64_t **cp, int64_t **ri,
                                   double **cw)
{
    wpart_status_t st = WPART_OK;
    int64_t nnz = A->rp[A->n1];
    *cp = wpart_i_calloc(A->n2 + 1, sizeof(int64_t));
    *ri = wpart_i_malloc(nnz > 0 ? nnz : 1, sizeof(int64_t));
    *cw = A->w ? wpart_i_malloc(nnz > 0 ? nnz : 1, sizeof(double)) : NULL;
    if (!*cp || !*ri || (A->w && !*cw)) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    for (int64_t e = 0; e < nnz; e++) {
        (*cp)[A->ci[e] + 1]++;
    }
    for (int64_t j = 0; j < A->n2; j++) {
        (*cp)[j + 1] += (*cp)[j];
    }
    int64_t *pos = wpart_i_malloc(A->n2 + 1, sizeof(int64_t));
    if (!pos) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    memcpy(pos, *cp, (size_t)(A->n2 + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < A->n1; i++) {
        for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
            int64_t k = pos[A->ci[e]]++;
            (*ri)[k] = i;
            if (A->w) {
                (*cw)[k] = A->w[e];
            }
        }
    }
    free(pos);
cleanup:
    return st;
}

static int rg_time_up(const wpart_control_t *ctl, double t0)
{
    return ctl && ctl->time_limit > 0 && wpart_i_now() - t0 >= ctl->time_limit;
}

wpart_status_t wpart_spatial_rect_grid(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                       int64_t nstarts, const int64_t *R0, const int64_t *C0,
                                       const int32_t *first, const wpart_rg_opts_t *opt,
                                       int64_t *R, int64_t *C, double *val, int64_t *halves,
                                       int32_t *state, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    double t0 = wpart_i_now();
    int64_t *cp = NULL, *ri = NULL, *cur[2] = {NULL, NULL}, *best[2] = {NULL, NULL};
    double *cw = NULL;
    rg_ctx_t g;
    memset(&g, 0, sizeof g);
    *timed_out = 0;
    int64_t nnz = A->rp[A->n1], nmax = A->n1 > A->n2 ? A->n1 : A->n2;
    int64_t K = P > Q ? P : Q;
    WPART_CHECK(rg_transpose(A, &cp, &ri, &cw));
    g.side[0] = (rg_side_t){A->n1, A->n2, A->rp, A->ci, A->w};
    g.side[1] = (rg_side_t){A->n2, A->n1, cp, ri, cw};
    g.P[0] = P;
    g.P[1] = Q;
    g.integral = rg_integral(A->w, nnz);
    int64_t xs;
    if (!wpart_i_mul_size(nmax + 1, K, &xs)) {
        WPART_FAIL(WPART_ENOMEM, "RECT-NICOL: the stripe prefix is too large");
    }
    g.X = wpart_i_malloc(xs, sizeof(double));
    g.map = wpart_i_malloc(nmax, sizeof(int32_t));
    g.tmp = wpart_i_malloc(K + 1, sizeof(int64_t));
    g.tot[0] = wpart_i_calloc(A->n1 + 1, sizeof(double));
    g.tot[1] = wpart_i_calloc(A->n2 + 1, sizeof(double));
    cur[0] = wpart_i_malloc(P + 1, sizeof(int64_t));
    cur[1] = wpart_i_malloc(Q + 1, sizeof(int64_t));
    best[0] = wpart_i_malloc(P + 1, sizeof(int64_t));
    best[1] = wpart_i_malloc(Q + 1, sizeof(int64_t));
    if (!g.X || !g.map || !g.tmp || !g.tot[0] || !g.tot[1] || !cur[0] || !cur[1] || !best[0] ||
        !best[1]) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    for (int d = 0; d < 2; d++) {
        const rg_side_t *s = &g.side[d];
        for (int64_t i = 0; i < s->n; i++) {
            double t = 0.0;
            for (int64_t e = s->ptr[i]; e < s->ptr[i + 1]; e++) {
                t += s->w ? s->w[e] : 1.0;
            }
            g.tot[d][i + 1] = g.tot[d][i] + t;
        }
    }
    memcpy(best[0], R0, (size_t)(P + 1) * sizeof(int64_t)); /* a start's grid at least */
    memcpy(best[1], C0, (size_t)(Q + 1) * sizeof(int64_t));
    double inc = RG_INF;
    int stop = 0;
    for (int64_t s = 0; s < nstarts; s++) {
        val[s] = RG_INF;
        halves[s] = 0;
        state[s] = 2;
    }
    for (int64_t s = 0; s < nstarts && !stop; s++) {
        memcpy(cur[0], R0 + s * (P + 1), (size_t)(P + 1) * sizeof(int64_t));
        memcpy(cur[1], C0 + s * (Q + 1), (size_t)(Q + 1) * sizeof(int64_t));
        int d = (first[s] & 1) ? 0 : 1;
        int bal = opt->balance || (first[s] & 2);
        int64_t pat = (first[s] & 4) ? (P + Q > 10 ? P + Q : 10) : opt->patience;
        int64_t nogain = 0, h = 0;
        double v = RG_INF;
        state[s] = 0;
        while (h < opt->max_half) {
            if (opt->abandon && h >= 2 && inc < RG_INF && rg_bound(&g, d, cur[1 - d]) >= inc) {
                state[s] = 1;
                break;
            }
            int64_t *keep = wpart_i_malloc(g.P[d] + 1, sizeof(int64_t));
            if (!keep) {
                WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
            }
            memcpy(keep, cur[d], (size_t)(g.P[d] + 1) * sizeof(int64_t));
            double nv = rg_half(&g, d, cur[d], cur[1 - d], bal);
            int same = memcmp(keep, cur[d], (size_t)(g.P[d] + 1) * sizeof(int64_t)) == 0;
            free(keep);
            h++;
                        if (nv < v) {
                v = nv;
                nogain = 0;
            } else {
                nogain++;
            }
            if (v < inc) {
                inc = v;
                memcpy(best[0], cur[0], (size_t)(P + 1) * sizeof(int64_t));
                memcpy(best[1], cur[1], (size_t)(Q + 1) * sizeof(int64_t));
            }
            val[s] = v;
            halves[s] = h;
            if (nogain >= pat || (same && h >= 2)) {
                break;
            }
            d = 1 - d;
            st = wpart_i_poll(opt->control, t0, (double)s, (double)nstarts);
            if (st != WPART_OK) {
                if (st == WPART_ECANCELLED && rg_time_up(opt->control, t0)) {
                    st = WPART_OK;
                    state[s] = 3;
                    stop = 1;
                    *timed_out = 1;
                    break;
                }
                goto cleanup;
            }
        }
    }
    memcpy(R, best[0], (size_t)(P + 1) * sizeof(int64_t));
    memcpy(C, best[1], (size_t)(Q + 1) * sizeof(int64_t));
cleanup:
    free(cp);
    free(ri);
    free(cw);
    free(g.X);
    free(g.map);
    free(g.tmp);
    free(g.tot[0]);
    free(g.tot[1]);
    for (int d = 0; d < 2; d++) {
        free(cur[d]);
        free(best[d]);
    }
    return st;
}

wpart_status_t wpart_spatial_rect_1d(const double *w, int64_t n, int64_t P, int64_t *cuts,
                                     double *value)
{
    wpart_status_t st = WPART_OK;
    double *X = wpart_i_malloc(n + 1, sizeof(double));
    int64_t *tmp = wpart_i_malloc(P + 1, sizeof(int64_t));
    if (!X || !tmp) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in the 1D partition");
    }
    X[0] = 0.0;
    double mx = 0.0;
    for (int64_t i = 0; i < n; i++) {
        X[i + 1] = X[i] + w[i];
        mx = w[i] > mx ? w[i] : mx;
    }
    int integral = rg_integral(w, n);
    double lo = X[n] / (double)P;
    lo = lo > mx ? lo : mx;
    lo = integral ? ceil(lo) : lo * (1.0 - 1e-12);
    *value = rg_bisect(X, n, 1, P, lo, X[n], integral, cuts, tmp);
cleanup:
    free(X);
    free(tmp);
    return st;
}

/* ------------------------------------------------------------------ symmetric grids ---- */

typedef struct {
    const wpart_rg_csr_t *A;
    int64_t N, P;
    int64_t *lp, *lo; /* entries by L-shape k = max(i, j): the other index */
    char *up;         /* 1: the entry lies in column k above the diagonal (i < j) */
    double *lw;
    double *blk;     /* P x P block loads */
    int32_t *map;    /* index -> interval (N) */
    double *L1, *L2; /* probe: blocks (t, cur) and (cur, t) */
    int integral;
} rg_sym_t;

static double rg_w(const wpart_rg_csr_t *A, int64_t e)
{
    return A->w ? A->w[e] : 1.0;
}

static wpart_status_t rg_sym_init(rg_sym_t *y, const wpart_rg_csr_t *A, int64_t P)
{
    wpart_status_t st = WPART_OK;
    int64_t nnz = A->rp[A->n1];
    y->A = A;
    y->P = P;
    y->N = A->n1 > A->n2 ? A->n1 : A->n2;
    y->lp = wpart_i_calloc(y->N + 1, sizeof(int64_t));
    y->lo = wpart_i_malloc(nnz > 0 ? nnz : 1, sizeof(int64_t));
    y->up = wpart_i_malloc(nnz > 0 ? nnz : 1, 1);
    y->lw = wpart_i_malloc(nnz > 0 ? nnz : 1, sizeof(double));
    y->blk = wpart_i_calloc(P * P, sizeof(double));
    y->map = wpart_i_malloc(y->N, sizeof(int32_t));
    y->L1 = wpart_i_calloc(P + 1, sizeof(double));
    y->L2 = wpart_i_calloc(P + 1, sizeof(double));
    if (!y->lp || !y->lo || !y->up || !y->lw || !y->blk || !y->map || !y->L1 || !y->L2) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in a symmetric grid");
    }
    for (int64_t i = 0; i < A->n1; i++) {
        for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
            int64_t j = A->ci[e];
            y->lp[(i > j ? i : j) + 1]++;
        }
    }
    for (int64_t k = 0; k < y->N; k++) {
        y->lp[k + 1] += y->lp[k];
    }
    {
        int64_t *pos = wpart_i_malloc(y->N + 1, sizeof(int64_t));
        if (!pos) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in a symmetric grid");
        }
        memcpy(pos, y->lp, (size_t)(y->N + 1) * sizeof(int64_t));
        for (int64_t i = 0; i < A->n1; i++) {
            for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
                int64_t j = A->ci[e], k = i > j ? i : j, at = pos[k]++;
                y->up[at] = (char)(i < j);
                y->lo[at] = i < j ? i : j;
                y->lw[at] = rg_w(A, e);
            }
        }
        free(pos);
    }
    y->integral = rg_integral(A->w, nnz);
cleanup:
    return st;
}

static void rg_sym_free(rg_sym_t *y)
{
    free(y->lp);
    free(y->lo);
    free(y->up);
    free(y->lw);
    free(y->blk);
    free(y->map);
    free(y->L1);
    free(y->L2);
}

/* the max load of the symmetric grid `cuts` (blk filled, map set) */
static double rg_sym_value(rg_sym_t *y, const int64_t *cuts)
{
    const wpart_rg_csr_t *A = y->A;
    int64_t P = y->P;
    rg_map(cuts, P, y->N, y->map);
    memset(y->blk, 0, (size_t)(P * P) * sizeof(double));
    for (int64_t i = 0; i < A->n1; i++) {
        double *row = y->blk + (int64_t)y->map[i] * P;
        for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
            row[y->map[A->ci[e]]] += rg_w(A, e);
        }
    }
    double mx = 0.0;
    for (int64_t k = 0; k < P * P; k++) {
        mx = y->blk[k] > mx ? y->blk[k] : mx;
    }
    return mx;
}

/* greedy L-shape probe (ub: each cut's upper bound, or NULL): 1 when P parts reach N */
static int rg_sym_probe(rg_sym_t *y, double L, const int64_t *ub, int64_t *cuts)
{
    int64_t N = y->N, P = y->P, k = 0, a = 0, p = 0;
    cuts[0] = 0;
    while (k < N) {
        if (p == P) {
            return 0;
        }
        memset(y->L1, 0, (size_t)(p + 1) * sizeof(double));
        memset(y->L2, 0, (size_t)(p + 1) * sizeof(double));
        int64_t lim = ub ? ub[p + 1] : N, start = k;
        while (k < lim) {
            int over = 0;
            for (int64_t e = y->lp[k]; e < y->lp[k + 1]; e++) {
                int64_t o = y->lo[e];
                int64_t t = o < a ? y->map[o] : p;
                double *slot = (y->up[e] || t == p) ? &y->L1[t] : &y->L2[t];
                *slot += y->lw[e];
                if (*slot > L) {
                    over = 1;
                    break;
                }
            }
            if (over) {
                break;
            }
            k++;
        }
        if (k == start) {
            return 0;
        }
        for (int64_t x = a; x < k; x++) {
            y->map[x] = (int32_t)p;
        }
        cuts[++p] = k;
        a = k;
    }
    for (int64_t q = p + 1; q <= P; q++) {
        cuts[q] = N;
    }
    return 1;
}

static wpart_status_t rg_sym_pal(rg_sym_t *y, int bounded, const wpart_control_t *ctl,
                                 double t0, int64_t *cuts, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    int64_t P = y->P;
    int64_t *ub = wpart_i_malloc(P + 1, sizeof(int64_t));
    int64_t *tmp = wpart_i_malloc(P + 1, sizeof(int64_t));
    if (!ub || !tmp) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in a symmetric grid");
    }
    double total = 0.0, amax = 0.0;
    for (int64_t e = 0; e < y->lp[y->N]; e++) {
        total += y->lw[e];
        amax = y->lw[e] > amax ? y->lw[e] : amax;
    }
    for (int64_t q = 0; q <= P; q++) {
        ub[q] = y->N;
    }
    ub[0] = 0;
    double lo = total / (double)(P * P), hi = total;
    lo = lo > amax ? lo : amax;
    lo = y->integral ? ceil(lo) : lo;
    rg_sym_probe(y, hi, NULL, cuts); /* one interval holds everything */
    memcpy(ub, cuts, (size_t)(P + 1) * sizeof(int64_t));
    for (int it = 0; it < 200 && lo < hi; it++) {
        double mid = y->integral ? floor((lo + hi) / 2) : lo + (hi - lo) / 2;
        if (!y->integral && hi - lo <= 1e-12 * hi) {
            break;
        }
        if (rg_sym_probe(y, mid, bounded ? ub : NULL, tmp)) {
            hi = mid;
            memcpy(cuts, tmp, (size_t)(P + 1) * sizeof(int64_t));
            if (bounded) {
                memcpy(ub, tmp, (size_t)(P + 1) * sizeof(int64_t));
            }
        } else {
            lo = y->integral ? mid + 1 : mid;
        }
        st = wpart_i_poll(ctl, t0, (double)it, 64.0);
        if (st != WPART_OK) {
            if (st == WPART_ECANCELLED && rg_time_up(ctl, t0)) {
                st = WPART_OK;
                *timed_out = 1;
                break;
            }
            goto cleanup;
        }
    }
cleanup:
    free(ub);
    free(tmp);
    return st;
}

/* RAC's weights: per index i of dimension d, the largest load of its line within one interval */
static void rg_rac_weights(rg_sym_t *y, const rg_side_t *s, const int64_t *cuts, double *w)
{
    int64_t P = y->P;
    rg_map(cuts, P, y->N, y->map);
    memset(w, 0, (size_t)y->N * sizeof(double));
    for (int64_t i = 0; i < s->n; i++) {
        double *acc = y->L1; /* P + 1 slots */
        memset(acc, 0, (size_t)P * sizeof(double));
        double mx = 0.0;
        for (int64_t e = s->ptr[i]; e < s->ptr[i + 1]; e++) {
            double *a = &acc[y->map[s->idx[e]]];
            *a += s->w ? s->w[e] : 1.0;
            mx = *a > mx ? *a : mx;
        }
        w[i] = mx;
    }
}

/* move index x (a border of intervals `from` and `to`) between them; blk and map updated */
static void rg_sym_move(rg_sym_t *y, const rg_side_t *cs, int64_t x, int32_t from, int32_t to)
{
    const wpart_rg_csr_t *A = y->A;
    int64_t P = y->P;
    if (x < A->n1) {
        for (int64_t e = A->rp[x]; e < A->rp[x + 1]; e++) {
            int64_t c = A->ci[e];
            int32_t t = c == x ? from : y->map[c], t2 = c == x ? to : y->map[c];
            double w = rg_w(A, e);
            y->blk[from * P + t] -= w;
            y->blk[to * P + t2] += w;
        }
    }
    if (x < A->n2) {
        for (int64_t e = cs->ptr[x]; e < cs->ptr[x + 1]; e++) {
            int64_t r = cs->idx[e];
            if (r == x) {
                continue;
            }
            double w = cs->w ? cs->w[e] : 1.0;
            y->blk[y->map[r] * P + from] -= w;
            y->blk[y->map[r] * P + to] += w;
        }
    }
    y->map[x] = to;
}

static double rg_sym_local(const rg_sym_t *y, int64_t k)
{
    int64_t P = y->P;
    double mx = 0.0;
    for (int64_t t = 0; t < P; t++) {
        double v = fmax(fmax(y->blk[(k - 1) * P + t], y->blk[k * P + t]),
                        fmax(y->blk[t * P + k - 1], y->blk[t * P + k]));
        mx = v > mx ? v : mx;
    }
    return mx;
}

/* one pass of cut moves: each cut k to its best place in [cuts[k-1], cuts[k+1]] */
static int rg_sym_moves(rg_sym_t *y, const rg_side_t *cs, int64_t *cuts)
{
    int moved = 0;
    for (int64_t k = 1; k < y->P; k++) {
        int64_t a = cuts[k - 1], b = cuts[k + 1], c = cuts[k];
        for (int64_t x = c - 1; x >= a; x--) { /* all of [a, b) into interval k */
            rg_sym_move(y, cs, x, (int32_t)(k - 1), (int32_t)k);
        }
        int64_t best = c;
        double bv = RG_INF, cv = RG_INF;
        for (int64_t x = a;; x++) { /* the cut at x: [a, x) in k - 1 */
            double v = rg_sym_local(y, k);
            if (x == c) {
                cv = v;
            }
            if (v < bv) {
                bv = v;
                best = x;
            }
            if (x == b) {
                break;
            }
            rg_sym_move(y, cs, x, (int32_t)k, (int32_t)(k - 1));
        }
        if (!(bv < cv)) {
            best = c;
        }
        for (int64_t x = b - 1; x >= best; x--) {
            rg_sym_move(y, cs, x, (int32_t)(k - 1), (int32_t)k);
        }
        moved |= best != c;
        cuts[k] = best;
    }
    return moved;
}

wpart_status_t wpart_spatial_rect_sym(const wpart_rg_csr_t *A, int64_t P, int variant,
                                      const int64_t *c0, int64_t max_iter,
                                      const wpart_control_t *control, int64_t *cuts,
                                      double *value, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    double t0 = wpart_i_now();
    rg_sym_t y;
    memset(&y, 0, sizeof y);
    int64_t *cp = NULL, *ri = NULL, *c = NULL, *tmp = NULL;
    double *cw = NULL, *w = NULL, *X = NULL;
    *timed_out = 0;
    WPART_CHECK(rg_sym_init(&y, A, P));
    if (variant == 0 || variant == 1) {
        WPART_CHECK(rg_sym_pal(&y, variant == 0, control, t0, cuts, timed_out));
        *value = rg_sym_value(&y, cuts);
        goto cleanup;
    }
    WPART_CHECK(rg_transpose(A, &cp, &ri, &cw));
    rg_side_t sides[2] = {{A->n1, A->n2, A->rp, A->ci, A->w}, {A->n2, A->n1, cp, ri, cw}};
    c = wpart_i_malloc(P + 1, sizeof(int64_t));
    tmp = wpart_i_malloc(P + 1, sizeof(int64_t));
    w = wpart_i_calloc(y.N, sizeof(double));
    X = wpart_i_malloc(y.N + 1, sizeof(double));
    if (!c || !tmp || !w || !X) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in a symmetric grid");
    }
    if (c0) {
        memcpy(c, c0, (size_t)(P + 1) * sizeof(int64_t));
    } else {
        c[0] = 0;
        for (int64_t q = 1; q <= P; q++) {
            c[q] = y.N;
        }
    }
    memcpy(cuts, c, (size_t)(P + 1) * sizeof(int64_t));
    double best = rg_sym_value(&y, c);
    if (variant == 3) {
        for (int64_t it = 0; it < max_iter; it++) {
            if (!rg_sym_moves(&y, &sides[1], c)) {
                break;
            }
            st = wpart_i_poll(control, t0, (double)it, (double)max_iter);
            if (st != WPART_OK) {
                if (st == WPART_ECANCELLED && rg_time_up(control, t0)) {
                    st = WPART_OK;
                    *timed_out = 1;
                    break;
                }
                goto cleanup;
            }
        }
        memcpy(cuts, c, (size_t)(P + 1) * sizeof(int64_t));
        *value = rg_sym_value(&y, cuts);
        goto cleanup;
    }
    /* RAC: the direction whose first refinement is better, then max_iter refinements */
    int dir = 0;
    {
        double v[2];
        for (int d = 0; d < 2; d++) {
            rg_rac_weights(&y, &sides[d], c, w);
            X[0] = 0.0;
            for (int64_t i = 0; i < y.N; i++) {
                X[i + 1] = X[i] + w[i];
            }
            rg_bisect(X, y.N, 1, P, X[y.N] / (double)P * (1.0 - 1e-12), X[y.N], y.integral,
                      tmp, cuts);
            v[d] = rg_sym_value(&y, tmp);
        }
        dir = v[1] < v[0];
    }
    int integral_w = y.integral;
    for (int64_t it = 0; it < max_iter; it++) {
        rg_rac_weights(&y, &sides[dir], c, w);
        X[0] = 0.0;
        for (int64_t i = 0; i < y.N; i++) {
            X[i + 1] = X[i] + w[i];
        }
        rg_bisect(X, y.N, 1, P, X[y.N] / (double)P * (1.0 - 1e-12), X[y.N], integral_w, c,
                  tmp);
        double v = rg_sym_value(&y, c);
        if (variant == 12 || v < best) {
            best = v;
            memcpy(cuts, c, (size_t)(P + 1) * sizeof(int64_t));
        }
        st = wpart_i_poll(control, t0, (double)it, (double)max_iter);
        if (st != WPART_OK) {
            if (st == WPART_ECANCELLED && rg_time_up(control, t0)) {
                st = WPART_OK;
                *timed_out = 1;
                break;
            }
            goto cleanup;
        }
    }
    *value = rg_sym_value(&y, cuts);
cleanup:
    rg_sym_free(&y);
    free(cp);
    free(ri);
    free(cw);
    free(c);
    free(tmp);
    free(w);
    free(X);
    return st;
}
