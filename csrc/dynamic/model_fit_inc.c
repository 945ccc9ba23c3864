/*
 * model_fit_inc.c -- the incremental model fit of wpart.dynamic (see fit_inc.h): the same
 * weighted least squares, AICc subset selection, admissibility, transfer model and evaluation
 * domain as wpart_dynamic_model_fit (model_fit.c), computed from a 9 x 9 triangular factor
 * updated one sample at a time, so that an evaluation costs the same after 10 or 10^6 blocks.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "fit_inc.h"

#define FI_MAXK WPART_FIT_MAXK
#define NC WPART_FI_COLS
#define C_ONE 7
#define C_T 8

void wpart_i_fitinc_init(wpart_i_fitinc_t *f)
{
    memset(f, 0, sizeof *f);
    f->tmin = INFINITY;
}

void wpart_i_fitinc_free(wpart_i_fitinc_t *f)
{
    if (f) {
        free(f->hs);
        f->hs = NULL;
        f->hcap = 0;
    }
}

void wpart_i_fitinc_copy(wpart_i_fitinc_t *dst, const wpart_i_fitinc_t *src)
{
    memcpy(dst, src, sizeof *dst);
    dst->hs = NULL;
    dst->hcap = 0;
}

/* ---- distinct sizes: open addressing over x > 0 (0 marks an empty slot) ---- */

static inline uint64_t mix(uint64_t v)
{
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdULL;
    v ^= v >> 33;
    return v;
}

static int hs_insert(int64_t *hs, int64_t cap, int64_t x)
{
    uint64_t i = mix((uint64_t)x) & (uint64_t)(cap - 1);
    for (;;) {
        if (hs[i] == x) {
            return 0;
        }
        if (hs[i] == 0) {
            hs[i] = x;
            return 1;
        }
        i = (i + 1) & (uint64_t)(cap - 1);
    }
}

static wpart_status_t hs_add(wpart_i_fitinc_t *f, int64_t x, int *added)
{
    wpart_status_t st = WPART_OK;
    if (2 * (f->md + 1) > f->hcap) {
        int64_t nc = f->hcap > 0 ? 2 * f->hcap : 16;
        int64_t *h = wpart_i_calloc(nc, sizeof *h);
        if (!h) {
            WPART_FAIL(WPART_ENOMEM, "distinct sizes of a fit (%" PRId64 ")", nc);
        }
        for (int64_t i = 0; i < f->hcap; i++) {
            if (f->hs[i]) {
                hs_insert(h, nc, f->hs[i]);
            }
        }
        free(f->hs);
        f->hs = h;
        f->hcap = nc;
    }
    *added = hs_insert(f->hs, f->hcap, x);
cleanup:
    return st;
}

/* ---- the factor ---- */

/* Adds the row sqrt(w) [basis(u), 1, t] to R by Givens rotations. */
static void add_row(wpart_i_fitinc_t *f, uint32_t cols, double u, double t, double w)
{
    double v[NC];
    double sw = sqrt(w);
    for (int i = 0; i < WPART_DYN_NBASIS; i++) {
        v[i] = (cols & (1u << i)) ? sw * basis(i, u) : 0.0;
    }
    v[C_ONE] = sw;
    v[C_T] = sw * t;
    for (int j = 0; j < NC; j++) {
        if (v[j] == 0.0) {
            continue;
        }
        double *rj = f->R + j * NC;
        double r = hypot(rj[j], v[j]);
        double c = rj[j] / r, s = v[j] / r;
        rj[j] = r;
        for (int k = j + 1; k < NC; k++) {
            double a = rj[k], b = v[k];
            rj[k] = c * a + s * b;
            v[k] = c * b - s * a;
        }
    }
    f->swt2 += w * t * t;
}

static double row_weight(const wpart_i_fitinc_t *f, const wpart_dynamic_fit_opts_t *o, double t)
{
    if (o->weighting == 1 && isfinite(f->tmin)) {
        double tt = t > 0.0 ? t : f->tmin;
        return 1.0 / (tt * tt);
    }
    return 1.0;
}

static void decay_factor(wpart_i_fitinc_t *f, double decay, double sq)
{
    if (decay == 1.0) {
        return;
    }
    for (int i = 0; i < NC * NC; i++) {
        f->R[i] *= sq;
    }
    f->swt2 *= decay;
}

wpart_status_t wpart_i_fitinc_push(wpart_i_fitinc_t *f, const wpart_dynamic_fit_opts_t *o,
                                   const int64_t *x, const double *t_comp, const double *t_xfer,
                                   int64_t n)
{
    wpart_status_t st = WPART_OK;
    if (n < 1 || n != f->m + 1) {
        WPART_FAIL(WPART_EINTERNAL, "fit state holds %" PRId64 " samples, got %" PRId64,
                   f->m, n);
    }
    int64_t xn = x[n - 1];
    double tc = t_comp[n - 1], tx = t_xfer ? t_xfer[n - 1] : 0.0;
    int added = 0;
    WPART_CHECK(hs_add(f, xn, &added));
    f->md += added;
    f->m = n;
    f->x_lo = n == 1 || xn < f->x_lo ? xn : f->x_lo;
    f->x_hi = n == 1 || xn > f->x_hi ? xn : f->x_hi;
    double decay = o->decay, sq = decay == 1.0 ? 1.0 : sqrt(decay);
    /* counts and the transfer model (decay-weighted Welford in x units) */
    f->sd = f->sd * decay + 1.0;
    f->sd2 = f->sd2 * decay * decay + 1.0;
    f->tW *= decay;
    f->tcxy *= decay;
    f->tcxx *= decay;
    f->tW += 1.0;
    double dx = (double)xn - f->txb;
    f->txb += dx / f->tW;
    f->ttb += (tx - f->ttb) / f->tW;
    f->tcxy += dx * (tx - f->ttb);
    f->tcxx += dx * ((double)xn - f->txb);
    f->any_tx |= tx != 0.0;
    /* relative weights: a zero time weighs like the smallest positive one */
    double tmin_old = f->tmin;
    if (tc > 0.0 && tc < f->tmin) {
        f->tmin = tc;
    }
    if (!(tc > 0.0)) {
        f->nzero++;
    }
    uint32_t cols = o->allowed_mask | 1u;
    int rebuild = (double)f->x_hi != f->x_scale ||
                  (o->weighting == 1 && f->nzero > 0 && f->tmin != tmin_old);
    if (!rebuild) {
        decay_factor(f, decay, sq);
        add_row(f, cols, (double)xn / f->x_scale, tc, row_weight(f, o, tc));
        return WPART_OK;
    }
    memset(f->R, 0, sizeof f->R);
    f->swt2 = 0.0;
    f->x_scale = (double)f->x_hi;
    f->n_rebuild++;
    for (int64_t i = 0; i < n; i++) {
        decay_factor(f, decay, sq);
        add_row(f, cols, (double)x[i] / f->x_scale, t_comp[i], row_weight(f, o, t_comp[i]));
    }
cleanup:
    return st;
}

/* ---- the fit ---- */

/* Least squares over the columns col_of[0..k) of R against its t column: unit-norm columns,
 * Householder QR on the 9 rows (the same rank test as model_fit.c). Returns 1 and fills
 * coef/c0/sse, or 0 when rank-deficient. */
static int fi_candidate(const double *R, const double *inv_norm, const int *col_of, int k,
                        double *coef, double *c0, double *sse)
{
    double a[FI_MAXK][NC], b[NC], scale[FI_MAXK], z[FI_MAXK];
    int lim[FI_MAXK]; /* column j of R is zero below row col (R is triangular) */
    for (int j = 0; j < k; j++) {
        int col = col_of[j] < 0 ? C_ONE : col_of[j];
        double sc = inv_norm[col];
        if (!(sc > 0.0) || !isfinite(sc)) {
            return 0;
        }
        scale[j] = sc;
        lim[j] = col + 1;
        for (int r = 0; r < NC; r++) {
            a[j][r] = R[r * NC + col] * sc;
        }
    }
    for (int r = 0; r < NC; r++) {
        b[r] = R[r * NC + C_T];
    }
    for (int j = 0; j < k; j++) {
        double *tg[FI_MAXK + 1];
        int nt = 0;
        for (int jj = j + 1; jj < k; jj++) {
            tg[nt++] = a[jj];
        }
        tg[nt++] = b;
        if (!fit_reflect(a[j], j, lim[j], tg, nt, &z[j])) {
            return 0;
        }
    }
    double y[FI_MAXK];
    for (int j = k - 1; j >= 0; j--) {
        double s = b[j];
        for (int jj = j + 1; jj < k; jj++) {
            s -= a[jj][j] * y[jj];
        }
        y[j] = s / z[j];
    }
    if (!fit_unscale(y, scale, col_of, k, coef, c0)) {
        return 0;
    }
    /* the SSE of these coefficients over every sample: |R [coef; c0; -1]|^2 */
    double s2 = 0.0;
    for (int r = 0; r < NC; r++) {
        const double *rr = R + r * NC;
        double e = -rr[C_T] + *c0 * rr[C_ONE];
        for (int j = 0; j < k; j++) {
            if (col_of[j] >= 0) {
                e += coef[col_of[j]] * rr[col_of[j]];
            }
        }
        s2 += e * e;
    }
    *sse = s2;
    return 1;
}

static double fi_sse(const double *R, uint32_t mask, const double *coef, double c0)
{
    double s2 = 0.0;
    for (int r = 0; r < NC; r++) {
        const double *rr = R + r * NC;
        double e = -rr[C_T] + c0 * rr[C_ONE];
        for (int i = 0; i < WPART_DYN_NBASIS; i++) {
            if (mask & (1u << i)) {
                e += coef[i] * rr[i];
            }
        }
        s2 += e * e;
    }
    return s2;
}


typedef struct {
    double sse, score, coef[WPART_DYN_NBASIS], c0;
    double rk[FI_MAXK][FI_MAXK], bt[FI_MAXK], z[FI_MAXK]; /* the triangle, for the coefficients */
    int col_of[FI_MAXK];
    int k, have_coef;
    uint32_t key;
    int dead;
} cand_t;

/* ---- every candidate by one depth-first pass: a subset's QR extends its prefix's ---- */

typedef struct {
    double a[NC][NC]; /* a[col][row]: the scaled columns and t, reflected by the prefix (a
                       * node holds only the columns its descendants read: first.. NC-1) */
    int col_of[FI_MAXK];
} qnode_t;

typedef struct {
    const double *R, *inv_norm;
    uint32_t allowed;
    int max_terms, intercept;
    int64_t md, mu;
    double m_eff, sse_floor;
    cand_t *cand;
    int nc;
} qctx_t;

/* Appends the candidate of the first k columns (the last one the constant when cst): its SSE
 * over every sample is the squared norm of t's rows k.. after the k reflections. The triangle
 * is rebuilt (cand_triangle) only for the candidates that are tested. */
static void q_emit(qctx_t *x, const int *col_of, int k, const double *bt, int cst)
{
    cand_t *c = &x->cand[x->nc];
    uint32_t sm = 0;
    for (int j = 0; j < k; j++) {
        if (col_of[j] >= 0) {
            sm |= 1u << col_of[j];
        }
    }
    double s2 = 0.0;
    for (int r = k; r < NC; r++) {
        s2 += bt[r] * bt[r];
    }
    c->sse = s2 > x->sse_floor ? s2 : x->sse_floor;
    c->score = NAN; /* the AICc, computed only for the candidates compared (fi_score) */
    c->k = k;
    c->have_coef = 0;
    c->key = (sm << 1) | (uint32_t)cst;
    c->dead = 0;
    x->nc++;
}

/* The triangle of candidate c (rk, bt, z, col_of) from the root's columns: the reflections of
 * the depth-first pass along c's path, each column receiving the same operations in the same
 * order (a column's reflection reads only that column), so the same values bit for bit.
 * 0 if a reflection is rank-deficient (cannot happen for an emitted candidate). */
static int cand_triangle(cand_t *c, const double (*root)[NC])
{
    uint32_t sm = c->key >> 1;
    int cst = (int)(c->key & 1u), nb = 0, cols[FI_MAXK];
    for (int j = 0; j < WPART_DYN_NBASIS; j++) {
        if (sm & (1u << j)) {
            cols[nb++] = j;
        }
    }
    double a[FI_MAXK + 2][NC]; /* the subset's columns, then the constant and t */
    for (int j = 0; j < nb; j++) {
        memcpy(a[j], root[cols[j]], sizeof a[j]);
    }
    double *one = a[nb], *t = a[nb + 1];
    memcpy(one, root[C_ONE], sizeof a[0]);
    memcpy(t, root[C_T], sizeof a[0]);
    for (int d = 0; d < nb; d++) {
        double *tg[FI_MAXK + 2];
        int nt = 0;
        for (int j = d + 1; j < nb + 2; j++) {
            tg[nt++] = a[j];
        }
        if (!fit_reflect(a[d], d, cols[d] + 1, tg, nt, &c->z[d])) {
            return 0;
        }
        c->col_of[d] = cols[d];
    }
    int k = nb;
    if (cst) {
        for (int i = 0; i < nb; i++) {
            c->rk[i][nb] = one[i]; /* its rows < nb: before the constant's own reflection */
        }
        double *t1[1] = {t};
        if (!fit_reflect(one, nb, C_ONE + 1, t1, 1, &c->z[nb])) {
            return 0;
        }
        c->col_of[nb] = -1;
        k = nb + 1;
    }
    for (int j = 0; j < nb; j++) {
        for (int i = 0; i < j; i++) {
            c->rk[i][j] = a[j][i];
        }
    }
    for (int j = 0; j < k; j++) {
        c->bt[j] = t[j];
    }
    return 1;
}

/* Back substitution and unscaling of a candidate's coefficients; 0 if one is not finite. */
static int cand_coefs(cand_t *c, const double *inv_norm)
{
    double y[FI_MAXK];
    int k = c->k;
    for (int j = k - 1; j >= 0; j--) {
        double s = c->bt[j];
        for (int jj = j + 1; jj < k; jj++) {
            s -= c->rk[j][jj] * y[jj];
        }
        y[j] = s / c->z[j];
    }
    double scale[FI_MAXK];
    for (int j = 0; j < k; j++) {
        scale[j] = inv_norm[c->col_of[j] < 0 ? C_ONE : c->col_of[j]];
    }
    if (!fit_unscale(y, scale, c->col_of, k, c->coef, &c->c0)) {
        return 0;
    }
    c->have_coef = 1;
    return 1;
}

static int q_ok(const qctx_t *x, int k)
{
    return !(k > x->md - 1 || x->mu - k - 1 < 1 || x->m_eff - k - 1 <= 0.0);
}

/* The candidates of column c added at position d to the prefix of node nd: without and with
 * the constant. c_one and c_t: the constant and t after column c's reflection. */
static void q_candidates(qctx_t *x, const qnode_t *nd, int d, int c, const double *c_one,
                         const double *c_t)
{
    int col_of[FI_MAXK];
    for (int j = 0; j < d; j++) {
        col_of[j] = nd->col_of[j];
    }
    col_of[d] = c;
    int nb = d + 1;
    if (q_ok(x, nb)) {
        q_emit(x, col_of, nb, c_t, 0);
    }
    if (x->intercept && q_ok(x, nb + 1)) {
        double one[NC], bt[NC], *t1[1] = {bt}, al;
        memcpy(one, c_one, sizeof one);
        memcpy(bt, c_t, sizeof bt);
        col_of[nb] = -1;
        if (fit_reflect(one, nb, C_ONE + 1, t1, 1, &al)) {
            q_emit(x, col_of, nb + 1, bt, 1);
        }
    }
}

static void q_dfs(qctx_t *x, const qnode_t *nd, int d, int first)
{
    for (int c = first; c < WPART_DYN_NBASIS; c++) {
        if (!(x->allowed & (1u << c))) {
            continue;
        }
        if (d + 1 >= x->max_terms) { /* a leaf: only column c, the constant and t change */
            double col[3][NC], al, *tg[2] = {col[1], col[2]};
            memcpy(col[0], nd->a[c], sizeof col[0]);
            memcpy(col[1], nd->a[C_ONE], sizeof col[1]);
            memcpy(col[2], nd->a[C_T], sizeof col[2]);
            if (fit_reflect(col[0], d, c + 1, tg, 2, &al)) {
                q_candidates(x, nd, d, c, col[1], col[2]);
            }
            continue;
        }
        qnode_t ch;
        memcpy(ch.a[c], nd->a[c], sizeof(double) * NC * (size_t)(NC - c));
        memcpy(ch.col_of, nd->col_of, sizeof ch.col_of);
        ch.col_of[d] = c;
        double *tg[NC];
        int nt = 0;
        for (int cc = c + 1; cc < NC; cc++) { /* descendants read every later column */
            tg[nt++] = ch.a[cc];
        }
        double al;
        if (!fit_reflect(ch.a[c], d, c + 1, tg, nt, &al)) {
            continue; /* rank-deficient: so is every superset with this prefix */
        }
        q_candidates(x, nd, d, c, ch.a[C_ONE], ch.a[C_T]);
        q_dfs(x, &ch, d + 1, c + 1);
    }
}

/* Finite, > 0 and non-decreasing on the log grid over [x_a, x_b] (model_fit.c's test, terms
 * summed in basis order as there). */
static int fi_admissible(uint32_t mask, const double *coef, double c0, const double *gu, int G)
{
    double prev = 0.0;
    for (int i = 0; i < G; i++) {
        double u = gu[i], f = c0;
        for (int j = 0; j < WPART_DYN_NBASIS; j++) {
            if (mask & (1u << j)) {
                f += coef[j] * basis(j, u);
            }
        }
        if (!fit_grid_ok(f, i, &prev)) {
            return 0;
        }
    }
    return 1;
}

/* The admissibility grid in u: G points log-spaced over [x_a, x_b] (model_fit.c's grid). */
static void fi_grid(double *gu, double x_a, double x_b, double x_scale, int G)
{
    double lr = log(x_b / x_a);
    for (int i = 0; i < G; i++) {
        double xk = i == G - 1 ? x_b : x_a * exp(lr * ((double)i / (double)(G - 1)));
        gu[i] = xk / x_scale;
    }
}

void wpart_i_fitgrid_free(wpart_i_fitgrid_t *g)
{
    if (g) {
        free(g->gu);
        free(g->tab);
        memset(g, 0, sizeof *g);
    }
}

/* The grid of (x_a, x_b, x_scale, G) from the cache g, filled again when the domain changed;
 * NULL when g is NULL or an allocation failed (the caller then computes its own). */
static const double *fg_grid(wpart_i_fitgrid_t *g, double x_a, double x_b, double x_scale, int G)
{
    if (!g) {
        return NULL;
    }
    if (g->G == G && g->xa == x_a && g->xb == x_b && g->xs == x_scale) {
        return g->gu;
    }
    if (g->G != G) {
        wpart_i_fitgrid_free(g);
        g->gu = wpart_i_malloc(G, sizeof *g->gu);
        g->tab = wpart_i_malloc((int64_t)G * WPART_DYN_NBASIS, sizeof *g->tab);
        if (!g->gu || !g->tab) {
            wpart_i_fitgrid_free(g);
            return NULL;
        }
    }
    fi_grid(g->gu, x_a, x_b, x_scale, G);
    g->xa = x_a;
    g->xb = x_b;
    g->xs = x_scale;
    g->G = G;
    g->have = 0;
    return g->gu;
}

/* fi_admissible on the cached basis values (the same sums in the same order). */
static int fg_admissible(wpart_i_fitgrid_t *g, uint32_t mask, const double *coef, double c0)
{
    int G = g->G;
    for (int j = 0; j < WPART_DYN_NBASIS; j++) {
        if ((mask & (1u << j)) && !(g->have & (1u << j))) {
            double *col = g->tab + (size_t)j * G;
            for (int i = 0; i < G; i++) {
                col[i] = basis(j, g->gu[i]);
            }
            g->have |= 1u << j;
        }
    }
    int js[WPART_DYN_NBASIS], nj = 0;
    for (int j = 0; j < WPART_DYN_NBASIS; j++) {
        if (mask & (1u << j)) {
            js[nj++] = j;
        }
    }
    double prev = 0.0;
    for (int i = 0; i < G; i++) {
        double f = c0;
        for (int a = 0; a < nj; a++) {
            f += coef[js[a]] * g->tab[(size_t)js[a] * G + i];
        }
        if (!fit_grid_ok(f, i, &prev)) {
            return 0;
        }
    }
    return 1;
}

/* The AICc of a candidate (model_fit.c's formula), computed once. */
static double fi_score(cand_t *c, double me)
{
    if (isnan(c->score)) {
        c->score = fit_aicc(c->sse, me, c->k);
    }
    return c->score;
}

static int cand_before(const cand_t *a, const cand_t *b)
{
    return fit_before(a->score, a->k, a->key, b->score, b->k, b->key);
}

wpart_status_t wpart_i_fitinc_fit(const wpart_i_fitinc_t *f, int64_t quantum,
                                  const wpart_dynamic_fit_opts_t *o, wpart_dynamic_model_t *out)
{
    return wpart_i_fitinc_fit_g(f, quantum, o, NULL, out);
}

wpart_status_t wpart_i_fitinc_fit_all(wpart_i_fitinc_t *f, const wpart_dynamic_fit_opts_t *o,
                                      const int64_t *x, const double *t_comp,
                                      const double *t_xfer, int64_t n, int64_t quantum,
                                      wpart_dynamic_model_t *out)
{
    wpart_status_t st = WPART_OK;
    for (int64_t i = 0; i < n; i++) {
        WPART_CHECK(wpart_i_fitinc_push(f, o, x, t_comp, t_xfer, i + 1));
    }
    WPART_CHECK(wpart_i_fitinc_fit(f, quantum, o, out));
cleanup:
    return st;
}

wpart_status_t wpart_i_fitinc_fit_g(const wpart_i_fitinc_t *f, int64_t quantum,
                                    const wpart_dynamic_fit_opts_t *o, wpart_i_fitgrid_t *fg,
                                    wpart_dynamic_model_t *out)
{
    wpart_status_t st = WPART_OK;
    memset(out, 0, sizeof *out);
    if (f->m < 1) {
        WPART_FAIL(WPART_EINVAL, "a fit needs at least one sample");
    }
    if (f->m > INT32_MAX) {
        WPART_FAIL(WPART_ELIMIT, "m = %" PRId64 " is too large", f->m);
    }
    const double *R = f->R;
    int64_t mu = f->m, md = f->md;
    double x_scale = (double)f->x_hi, x_b = 2.0 * x_scale;
    double x_a = fmin(fmax((double)quantum, (double)f->x_lo / 8.0), x_b);
    double m_eff = f->sd * f->sd / f->sd2;
    double sse_floor = WPART_FIT_SSE_FLOOR * f->swt2;
    double coef[WPART_DYN_NBASIS], c0 = 0.0, aicc = NAN;
    uint32_t mask = 1u;
    int kind = 2;
    memset(coef, 0, sizeof coef);
    /* 1 / the 2-norm of each column of R (= of the weighted design column), scaled */
    double inv_norm[NC];
    for (int col = 0; col < NC; col++) {
        double amax = 0.0, nrm = 0.0;
        for (int r = 0; r <= col; r++) {
            double v = fabs(R[r * NC + col]);
            amax = v > amax ? v : amax;
        }
        if (amax > 0.0 && isfinite(amax)) {
            for (int r = 0; r <= col; r++) {
                double t = R[r * NC + col] / amax;
                nrm += t * t;
            }
            inv_norm[col] = 1.0 / (amax * sqrt(nrm));
        } else {
            inv_norm[col] = 0.0;
        }
    }
    if (md >= 3) {
        cand_t cand[256];
        qctx_t qx = {R, inv_norm, o->allowed_mask, o->max_terms, o->intercept, md, mu,
                     m_eff, sse_floor, cand, 0};
        qnode_t root;
        for (int col = 0; col < NC; col++) {
            double sc = col == C_T ? 1.0 : inv_norm[col];
            for (int r = 0; r < NC; r++) {
                root.a[col][r] = R[r * NC + col] * sc;
            }
        }
        if (o->intercept && !(inv_norm[C_ONE] > 0.0)) {
            qx.intercept = 0;
        }
        q_dfs(&qx, &root, 0, 0);
        int nc = qx.nc, G = o->grid_points, have_grid = 0;
        double gu_small[128], *gu = gu_small;
        if (G > 128) {
            gu = wpart_i_malloc(G, sizeof *gu);
            if (!gu) {
                WPART_FAIL(WPART_ENOMEM, "admissibility grid (%d points)", G);
            }
        }
        /* the best admissible candidate: test admissibility best-first (same choice as
         * testing every candidate, for a fraction of the work) */
        for (;;) {
            /* within a term count the AICc grows with the SSE: the best of each count by
             * (SSE, key), then the best of those by (AICc, count, key) -- a log per count */
            int gbest[FI_MAXK + 1];
            for (int k = 0; k <= FI_MAXK; k++) {
                gbest[k] = -1;
            }
            for (int i = 0; i < nc; i++) {
                const cand_t *ci = &cand[i];
                int g = gbest[ci->k];
                if (!ci->dead && (g < 0 || ci->sse < cand[g].sse ||
                                  (ci->sse == cand[g].sse && ci->key < cand[g].key))) {
                    gbest[ci->k] = i;
                }
            }
            int bi = -1;
            for (int k = 0; k <= FI_MAXK; k++) {
                int g = gbest[k];
                if (g >= 0) {
                    fi_score(&cand[g], m_eff);
                    if (bi < 0 || cand_before(&cand[g], &cand[bi])) {
                        bi = g;
                    }
                }
            }
            if (bi < 0) {
                break;
            }
            uint32_t sm = cand[bi].key >> 1;
            if (!have_grid) {
                have_grid = fg_grid(fg, x_a, x_b, x_scale, G) ? 2 : 1;
                if (have_grid == 1) {
                    fi_grid(gu, x_a, x_b, x_scale, G);
                }
            }
            if (cand_triangle(&cand[bi], (const double (*)[NC])root.a) &&
                cand_coefs(&cand[bi], inv_norm) &&
                (have_grid == 2 ? fg_admissible(fg, sm, cand[bi].coef, cand[bi].c0)
                                : fi_admissible(sm, cand[bi].coef, cand[bi].c0, gu, G))) {
                memcpy(coef, cand[bi].coef, sizeof coef);
                c0 = cand[bi].c0;
                mask = sm;
                kind = 0;
                aicc = cand[bi].score;
                break;
            }
            cand[bi].dead = 1;
        }
        if (gu != gu_small) {
            free(gu);
        }
    } else if (md == 2 && o->intercept) {
        /* the affine model through the two group means = least squares on {u, 1} */
        int col_of[2] = {0, -1};
        double cf[WPART_DYN_NBASIS], cc = 0.0, sse;
        if (fi_candidate(R, inv_norm, col_of, 2, cf, &cc, &sse) && cf[0] > 0.0 && cc >= 0.0) {
            memcpy(coef, cf, sizeof coef);
            c0 = cc;
            kind = 1;
        }
    }
    if (kind == 2) {
        double num = 0.0, den = 0.0;
        for (int r = 0; r < NC; r++) {
            num += R[r * NC + 0] * R[r * NC + C_T];
            den += R[r * NC + 0] * R[r * NC + 0];
        }
        fit_proportional(num, den, coef, &c0);
        mask = 1u;
    }
    /* mask holds only the terms with a coefficient (for a clean model) */
    uint32_t used = fit_used_terms(mask, coef, kind == 2);
    /* the transfer model G = a1 u + a2 (decay weights) */
    double a1 = 0.0, a2 = 0.0;
    if (f->any_tx) {
        double ub = f->txb / x_scale, tb = f->ttb;
        double sxy = f->tcxy / x_scale, sxx = f->tcxx / (x_scale * x_scale);
        fit_xfer(md, ub, tb, sxy, sxx, sxy + f->tW * ub * tb, sxx + f->tW * ub * ub, &a1, &a2);
    }
    WPART_CHECK(wpart_i_fit_finish(used, coef, c0, a1, a2, x_scale, x_a, x_b,
                                   fi_sse(R, used, coef, c0), aicc, mu, md, kind,
                                   o->slope_floor, out));
cleanup:
    if (st != WPART_OK) {
        memset(out, 0, sizeof *out);
    }
    return st;
}
