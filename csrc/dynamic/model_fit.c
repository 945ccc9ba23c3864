/*
 * model_fit.c -- per-PU performance models of wpart.dynamic (spec 001 §1.2-1.3): weighted
 * least squares with AICc subset selection, the transfer model, evaluation and inverse.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "internal.h"
#include "wpart/dynamic_model.h"
#include "fit_inc.h"

#define FIT_MAXK WPART_FIT_MAXK

void wpart_dynamic_fit_opts_init(wpart_dynamic_fit_opts_t *o)
{
    if (!o) {
        return;
    }
    *o = (wpart_dynamic_fit_opts_t){.allowed_mask = 0x7fu, .intercept = 1, .max_terms = 3,
                                    .weighting = 0, .decay = 1.0, .window = 0,
                                    .grid_points = 64, .slope_floor = 0.5};
}

/* ---------------------------------------------------------------- evaluation ---------- */

/* The size a part of the model is evaluated at: x raised to the domain's start; 0 with *v set
 * when no model is needed (no valid model or x <= 0: 0; x NaN: NaN). */
static int eval_at(const wpart_dynamic_model_t *pm, double *x, double *v)
{
    if (!pm || !pm->valid || !(*x > 0.0)) {
        *v = (pm && pm->valid && isnan(*x)) ? NAN : 0.0;
        return 0;
    }
    if (*x < pm->x_a) {
        *x = pm->x_a;
    }
    return 1;
}

double wpart_dynamic_model_eval_xfer(const wpart_dynamic_model_t *pm, double x)
{
    double v;
    if (!eval_at(pm, &x, &v)) {
        return v;
    }
    return pm->g_slope * (x / pm->x_scale) + pm->g_icept;
}

double wpart_dynamic_model_eval_comp(const wpart_dynamic_model_t *pm, double x)
{
    double v;
    if (!eval_at(pm, &x, &v)) {
        return v;
    }
    if (x > pm->x_b) {
        double fb = f_raw(pm->mask, pm->coef, pm->c0, pm->x_b / pm->x_scale);
        return fb + (pm->slope_hi - pm->g_slope / pm->x_scale) * (x - pm->x_b);
    }
    return f_raw(pm->mask, pm->coef, pm->c0, x / pm->x_scale);
}

void wpart_dynamic_model_eval_vec(const wpart_dynamic_model_t *pm, int which, const double *x,
                                  int64_t k, double *out)
{
    for (int64_t i = 0; i < k; i++) {
        out[i] = which == 1   ? wpart_dynamic_model_eval_comp(pm, x[i])
                 : which == 2 ? wpart_dynamic_model_eval_xfer(pm, x[i])
                              : wpart_dynamic_model_eval(pm, x[i]);
    }
}

double wpart_dynamic_model_eval(const wpart_dynamic_model_t *pm, double x)
{
    if (!pm || !pm->valid) {
        return 0.0;
    }
    if (!(x > 0.0)) {
        return isnan(x) ? NAN : 0.0;
    }
    if (x <= pm->x_a) {
        return pm->e_a;
    }
    if (x >= pm->x_b) {
        return pm->e_b + pm->slope_hi * (x - pm->x_b);
    }
    double u = x / pm->x_scale;
    return f_raw(pm->mask, pm->coef, pm->c0, u) + pm->g_slope * u + pm->g_icept;
}

double wpart_dynamic_model_timefn(void *models, int64_t p, double x)
{
    return wpart_dynamic_model_eval((const wpart_dynamic_model_t *)models + p, x);
}

void wpart_dynamic_model_pack(const wpart_dynamic_model_t *pm, double *out)
{
    out[0] = (double)pm->mask;
    for (int i = 0; i < WPART_DYN_NBASIS; i++) {
        out[1 + i] = pm->coef[i];
    }
    out[8] = pm->c0;
    out[9] = pm->x_scale;
    out[10] = pm->g_slope;
    out[11] = pm->g_icept;
    out[12] = pm->x_a;
    out[13] = pm->x_b;
    out[14] = pm->e_a;
    out[15] = pm->e_b;
    out[16] = pm->slope_hi;
    out[17] = pm->sse;
    out[18] = pm->aicc;
    out[19] = (double)pm->m;
    out[20] = (double)pm->m_distinct;
    out[21] = (double)pm->kind;
    out[22] = (double)pm->valid;
}

wpart_status_t wpart_dynamic_model_unpack(const double *in, wpart_dynamic_model_t *pm)
{
    wpart_status_t st = WPART_OK;
    if (!in || !pm) {
        WPART_FAIL(WPART_EINVAL, "in and pm must not be NULL");
    }
    if (!(in[0] >= 0.0 && in[0] <= 127.0 && in[0] == floor(in[0]))) {
        WPART_FAIL(WPART_EINVAL, "packed model: mask must be an integer in [0, 127] (got %g)",
                   in[0]);
    }
    for (int i = 1; i <= 16; i++) {
        if (!isfinite(in[i])) {
            WPART_FAIL(WPART_EINVAL, "packed model: field %d must be finite (got %g)", i, in[i]);
        }
    }
    if (in[22] != 0.0 && !(in[9] > 0.0 && in[12] > 0.0 && in[13] >= in[12])) {
        WPART_FAIL(WPART_EINVAL, "packed model: x_scale, x_a must be > 0 and x_b >= x_a");
    }
    memset(pm, 0, sizeof *pm);
    pm->mask = (uint32_t)in[0];
    for (int i = 0; i < WPART_DYN_NBASIS; i++) {
        pm->coef[i] = in[1 + i];
    }
    pm->c0 = in[8];
    pm->x_scale = in[9];
    pm->g_slope = in[10];
    pm->g_icept = in[11];
    pm->x_a = in[12];
    pm->x_b = in[13];
    pm->e_a = in[14];
    pm->e_b = in[15];
    pm->slope_hi = in[16];
    pm->sse = in[17];
    pm->aicc = in[18];
    pm->m = (int32_t)in[19];
    pm->m_distinct = (int32_t)in[20];
    pm->kind = (int32_t)in[21];
    pm->valid = in[22] != 0.0;
cleanup:
    return st;
}

/* ---------------------------------------------------------------- the fit ------------------ */

/* Scratch layout (all 8-byte elements): idx[m], w[m] (full weights), d[m] (decay weights),
 * then per group (<= m): u, W (full weight), mc (mean t_comp), Wd (decay weight), mx (mean
 * t_xfer), then the design a[4 m], the right-hand side b[m] and the basis table B[7 m]. */
#define FIT_SLOTS 20

size_t wpart_dynamic_fit_work_size(int64_t m)
{
    if (m < 0 || m > (int64_t)(SIZE_MAX / (8 * FIT_SLOTS)) - 1) {
        return 0;
    }
    return (size_t)(m + 1) * 8u * FIT_SLOTS;
}

typedef struct {
    const int64_t *x;
    const double *tc, *tx;
} fit_keys_t;

/* canonical order: x, then t_comp, then t_xfer */
static int key_less(const fit_keys_t *k, int64_t a, int64_t b)
{
    if (k->x[a] != k->x[b]) {
        return k->x[a] < k->x[b];
    }
    if (k->tc[a] != k->tc[b]) {
        return k->tc[a] < k->tc[b];
    }
    if (k->tx && k->tx[a] != k->tx[b]) {
        return k->tx[a] < k->tx[b];
    }
    return a < b;
}

static void sift_down(const fit_keys_t *k, int64_t *idx, int64_t start, int64_t end)
{
    int64_t root = start;
    while (2 * root + 1 < end) {
        int64_t child = 2 * root + 1;
        if (child + 1 < end && key_less(k, idx[child], idx[child + 1])) {
            child++;
        }
        if (key_less(k, idx[root], idx[child])) {
            int64_t t = idx[root];
            idx[root] = idx[child];
            idx[child] = t;
            root = child;
        } else {
            return;
        }
    }
}

static void heap_sort(const fit_keys_t *k, int64_t *idx, int64_t n)
{
    for (int64_t s = n / 2 - 1; s >= 0; s--) {
        sift_down(k, idx, s, n);
    }
    for (int64_t e = n - 1; e > 0; e--) {
        int64_t t = idx[0];
        idx[0] = idx[e];
        idx[e] = t;
        sift_down(k, idx, 0, e);
    }
}

typedef struct {
    int64_t md;
    const double *u, *W, *mc;
    double ss_within; /* sum over groups of the within-group weighted sum of squares */
    double sse_floor;
    double m_eff;
    int64_t m;
    double *a, *b; /* scratch for the design */
    const double *B;  /* basis values at the groups: B[i * bstride + g] */
    int64_t bstride;
    const double *GB; /* basis values on the grid: GB[i * grid + k], or NULL */
    double x_a, x_b, x_scale;
    int grid;
} fit_ctx_t;

/* F at group g from the basis table (same terms as f_raw) */
static inline double f_tab(const double *B, int64_t stride, int64_t g, uint32_t mask,
                           const double *coef, double c0)
{
    double s = c0;
    for (int i = 0; i < WPART_DYN_NBASIS; i++) {
        if (mask & (1u << i)) {
            s += coef[i] * B[i * stride + g];
        }
    }
    return s;
}

/* Weighted SSE of F = (mask, coef, c0) on the aggregated data. */
static double fit_sse(const fit_ctx_t *c, uint32_t mask, const double *coef, double c0)
{
    double s = c->ss_within;
    for (int64_t g = 0; g < c->md; g++) {
        double r = f_tab(c->B, c->bstride, g, mask, coef, c0) - c->mc[g];
        s += c->W[g] * r * r;
    }
    return s;
}

/* Finite, > 0 and non-decreasing on the log grid over [x_a, x_b]. */
static int admissible(const fit_ctx_t *c, uint32_t mask, const double *coef, double c0)
{
    double prev = 0.0;
    int G = c->grid;
    double ratio = c->x_b / c->x_a;
    for (int i = 0; i < G; i++) {
        double f;
        if (c->GB) {
            f = f_tab(c->GB, G, i, mask, coef, c0);
        } else {
            double x = i == G - 1 ? c->x_b : c->x_a * pow(ratio, (double)i / (double)(G - 1));
            f = f_raw(mask, coef, c0, x / c->x_scale);
        }
        if (!fit_grid_ok(f, i, &prev)) {
            return 0;
        }
    }
    return 1;
}

/*
 * Weighted least squares of one candidate by Householder QR with unit-norm columns. Columns:
 * the basis functions of `mask` in increasing order, then the constant when `cst`. Returns 1
 * and fills coef/c0, or 0 when rank-deficient (|R_jj| < FIT_RANK_TOL).
 */
static int fit_candidate(const fit_ctx_t *c, uint32_t mask, int cst, double *coef, double *c0)
{
    int64_t md = c->md;
    int k = 0, col_of[FIT_MAXK];
    for (int i = 0; i < WPART_DYN_NBASIS; i++) {
        if (mask & (1u << i)) {
            col_of[k++] = i;
        }
    }
    if (cst) {
        col_of[k++] = -1;
    }
    double *a = c->a, *b = c->b, scale[FIT_MAXK], z[FIT_MAXK];
    for (int j = 0; j < k; j++) {
        double nrm = 0.0;
        for (int64_t g = 0; g < md; g++) {
            double sw = sqrt(c->W[g]);
            double v = sw * (col_of[j] < 0 ? 1.0 : c->B[col_of[j] * c->bstride + g]);
            a[j * md + g] = v;
        }
        /* scaled 2-norm, safe from overflow/underflow */
        double amax = 0.0;
        for (int64_t g = 0; g < md; g++) {
            amax = fmax(amax, fabs(a[j * md + g]));
        }
        if (!(amax > 0.0) || !isfinite(amax)) {
            return 0;
        }
        for (int64_t g = 0; g < md; g++) {
            double t = a[j * md + g] / amax;
            nrm += t * t;
        }
        nrm = amax * sqrt(nrm);
        scale[j] = 1.0 / nrm;
        for (int64_t g = 0; g < md; g++) {
            a[j * md + g] *= scale[j];
        }
    }
    for (int64_t g = 0; g < md; g++) {
        b[g] = sqrt(c->W[g]) * c->mc[g];
    }
    /* Householder: column j of a (column-major, leading dimension md), then b */
    for (int j = 0; j < k; j++) {
        double *tg[FIT_MAXK];
        int nt = 0;
        for (int jj = j + 1; jj < k; jj++) {
            tg[nt++] = a + (int64_t)jj * md;
        }
        tg[nt++] = b;
        if (!fit_reflect(a + (int64_t)j * md, j, md, tg, nt, &z[j])) {
            return 0; /* keep R_jj in z; the rest of R is in the upper part of a */
        }
    }
    /* back substitution: R y = (Q^T b)[0..k) */
    double y[FIT_MAXK];
    for (int j = k - 1; j >= 0; j--) {
        double s = b[j];
        for (int jj = j + 1; jj < k; jj++) {
            s -= a[(int64_t)jj * md + j] * y[jj];
        }
        y[j] = s / z[j];
    }
    if (!fit_unscale(y, scale, col_of, k, coef, c0)) {
        return 0;
    }
    return 1;
}

static void proportional(const fit_ctx_t *c, double *coef, double *c0)
{
    double num = 0.0, den = 0.0;
    for (int64_t g = 0; g < c->md; g++) {
        num += c->W[g] * c->mc[g] * c->u[g];
        den += c->W[g] * c->u[g] * c->u[g];
    }
    fit_proportional(num, den, coef, c0);
}

static int popcount7(uint32_t v)
{
    int c = 0;
    for (int i = 0; i < WPART_DYN_NBASIS; i++) {
        c += (int)((v >> i) & 1u);
    }
    return c;
}

wpart_status_t wpart_dynamic_model_fit(const int64_t *x, const double *t_comp,
                                       const double *t_xfer, int64_t m, int64_t quantum,
                                       const wpart_dynamic_fit_opts_t *o, void *work,
                                       wpart_dynamic_model_t *out)
{
    wpart_status_t st = WPART_OK;
    void *owned = NULL;
    wpart_dynamic_fit_opts_t def;
    if (!o) {
        wpart_dynamic_fit_opts_init(&def);
        o = &def;
    }
    if (!out) {
        return wpart_i_error(WPART_EINVAL, "out must not be NULL");
    }
    memset(out, 0, sizeof *out);
    if (!x || !t_comp) {
        WPART_FAIL(WPART_EINVAL, "x and t_comp must not be NULL");
    }
    if (m < 1) {
        WPART_FAIL(WPART_EINVAL, "m must be >= 1 (got %" PRId64 ")", m);
    }
    if (m > INT32_MAX) {
        WPART_FAIL(WPART_ELIMIT, "m = %" PRId64 " is too large", m);
    }
    if (quantum < 1) {
        WPART_FAIL(WPART_EINVAL, "quantum must be >= 1 (got %" PRId64 ")", quantum);
    }
    if ((o->allowed_mask & ~0x7fu) != 0 || o->allowed_mask == 0) {
        WPART_FAIL(WPART_EINVAL, "allowed_mask must be a non-empty subset of 0x7f (got 0x%x)",
                   (unsigned)o->allowed_mask);
    }
    if (o->max_terms < 1 || o->max_terms > 3) {
        WPART_FAIL(WPART_EINVAL, "max_terms must be in [1, 3] (got %d)", o->max_terms);
    }
    if (o->weighting != 0 && o->weighting != 1) {
        WPART_FAIL(WPART_EINVAL, "weighting must be 0 (plain) or 1 (relative) (got %d)",
                   o->weighting);
    }
    if (!(o->decay > 0.0 && o->decay <= 1.0)) {
        WPART_FAIL(WPART_EINVAL, "decay must be in (0, 1] (got %g)", o->decay);
    }
    if (o->window < 0) {
        WPART_FAIL(WPART_EINVAL, "window must be >= 0 (got %d)", (int)o->window);
    }
    if (o->grid_points < 2) {
        WPART_FAIL(WPART_EINVAL, "grid_points must be >= 2 (got %d)", (int)o->grid_points);
    }
    if (!(o->slope_floor >= 0.0) || !isfinite(o->slope_floor)) {
        WPART_FAIL(WPART_EINVAL, "slope_floor must be finite and >= 0 (got %g)", o->slope_floor);
    }
    int64_t first = (o->window > 0 && o->window < m) ? m - o->window : 0;
    int64_t mu = m - first;
    for (int64_t i = first; i < m; i++) {
        if (x[i] <= 0) {
            WPART_FAIL(WPART_EINVAL, "x[%" PRId64 "] must be > 0 (got %" PRId64 ")", i, x[i]);
        }
        if (!isfinite(t_comp[i]) || t_comp[i] < 0.0) {
            WPART_FAIL(WPART_EINVAL, "t_comp[%" PRId64 "] must be finite and >= 0 (got %g)", i,
                       t_comp[i]);
        }
        if (t_xfer && (!isfinite(t_xfer[i]) || t_xfer[i] < 0.0)) {
            WPART_FAIL(WPART_EINVAL, "t_xfer[%" PRId64 "] must be finite and >= 0 (got %g)", i,
                       t_xfer[i]);
        }
    }
    if (!work) {
        owned = wpart_i_malloc((int64_t)wpart_dynamic_fit_work_size(mu), 1);
        if (!owned) {
            WPART_FAIL(WPART_ENOMEM, "fit scratch for %" PRId64 " samples", mu);
        }
        work = owned;
    }
    int64_t *idx = (int64_t *)work;
    double *w = (double *)work + (mu + 1);
    double *d = w + mu;
    double *gu = d + mu, *gW = gu + mu, *gmc = gW + mu, *gWd = gmc + mu, *gmx = gWd + mu;
    double *ga = gmx + mu, *gb = ga + 4 * mu, *gB = gb + mu;
    const int64_t *xs = x + first;
    const double *tcs = t_comp + first, *txs = t_xfer ? t_xfer + first : NULL;

    /* weights: decay by age (newest 0), optionally relative 1/t^2 */
    double tmin = INFINITY;
    for (int64_t i = 0; i < mu; i++) {
        if (tcs[i] > 0.0 && tcs[i] < tmin) {
            tmin = tcs[i];
        }
    }
    double sd = 0.0, sd2 = 0.0, swt2 = 0.0;
    for (int64_t i = 0; i < mu; i++) {
        double di = o->decay == 1.0 ? 1.0 : pow(o->decay, (double)(mu - 1 - i));
        d[i] = di;
        double wi = di;
        if (o->weighting == 1 && isfinite(tmin)) {
            double t = tcs[i] > 0.0 ? tcs[i] : tmin;
            wi = di / (t * t);
        }
        w[i] = wi;
        idx[i] = i;
    }
    fit_keys_t keys = {xs, tcs, txs};
    heap_sort(&keys, idx, mu);
    for (int64_t r = 0; r < mu; r++) {
        int64_t i = idx[r];
        sd += d[i];
        sd2 += d[i] * d[i];
        swt2 += w[i] * tcs[i] * tcs[i];
    }

    /* 1. aggregate duplicates in canonical order (weighted Welford) */
    int64_t md = 0;
    double ss_within = 0.0;
    int64_t x_lo = xs[idx[0]], x_hi = xs[idx[mu - 1]];
    for (int64_t r = 0; r < mu;) {
        int64_t xv = xs[idx[r]];
        double Wg = 0.0, mean = 0.0, Wdg = 0.0, meanx = 0.0, ssg = 0.0;
        for (; r < mu && xs[idx[r]] == xv; r++) {
            int64_t i = idx[r];
            Wg += w[i];
            if (Wg > 0.0) {
                double delta = tcs[i] - mean;
                mean += (w[i] / Wg) * delta;
                ssg += w[i] * delta * (tcs[i] - mean);
            }
            Wdg += d[i];
            if (txs && Wdg > 0.0) { /* decay weights of old samples underflow to 0 */
                meanx += (d[i] / Wdg) * (txs[i] - meanx);
            }
        }
        gu[md] = (double)xv / (double)x_hi;
        gW[md] = Wg;
        gmc[md] = mean;
        gWd[md] = Wdg;
        gmx[md] = meanx;
        ss_within += ssg;
        md++;
    }

    double x_b = 2.0 * (double)x_hi;
    fit_ctx_t c = {.md = md, .u = gu, .W = gW, .mc = gmc, .ss_within = ss_within,
                   .sse_floor = WPART_FIT_SSE_FLOOR * swt2, .m_eff = sd * sd / sd2, .m = mu,
                   .a = ga, .b = gb, .B = gB, .bstride = mu, .x_scale = (double)x_hi,
                   .x_b = x_b, .x_a = fmin(fmax((double)quantum, (double)x_lo / 8.0), x_b),
                   .grid = o->grid_points};
    double GB[WPART_DYN_NBASIS * 128]; /* basis values on the grid (when it fits) */
    for (int64_t g = 0; g < md; g++) {
        for (int i = 0; i < WPART_DYN_NBASIS; i++) {
            gB[i * mu + g] = ((o->allowed_mask | 1u) & (1u << i)) ? basis(i, gu[g]) : 0.0;
        }
    }
    if (c.grid <= 128 && md >= 3) {
        int G = c.grid;
        double ratio = c.x_b / c.x_a;
        for (int k = 0; k < G; k++) {
            double xk = k == G - 1 ? c.x_b : c.x_a * pow(ratio, (double)k / (double)(G - 1));
            for (int i = 0; i < WPART_DYN_NBASIS; i++) {
                GB[i * G + k] = (o->allowed_mask & (1u << i)) ? basis(i, xk / c.x_scale) : 0.0;
            }
        }
        c.GB = GB;
    }

    double coef[WPART_DYN_NBASIS], c0 = 0.0;
    uint32_t mask = 1u;
    int kind = 2;
    double aicc = NAN;
    if (md >= 3) {
        double best = INFINITY, bcoef[WPART_DYN_NBASIS], bc0 = 0.0;
        int bk = 0;
        uint32_t bkey = 0;
        int found = 0;
        for (uint32_t sm = 1; sm < 128u; sm++) {
            if ((sm & ~o->allowed_mask) != 0) {
                continue;
            }
            int nb = popcount7(sm);
            if (nb > o->max_terms) {
                continue;
            }
            for (int cst = 0; cst <= (o->intercept ? 1 : 0); cst++) {
                int k = nb + cst;
                if (k > md - 1 || mu - k - 1 < 1 || c.m_eff - k - 1 <= 0.0) {
                    continue;
                }
                double cf[WPART_DYN_NBASIS], cc = 0.0;
                if (!fit_candidate(&c, sm, cst, cf, &cc) || !admissible(&c, sm, cf, cc)) {
                    continue;
                }
                double sse = fmax(fit_sse(&c, sm, cf, cc), c.sse_floor);
                double score = fit_aicc(sse, c.m_eff, k);
                uint32_t key = (sm << 1) | (uint32_t)cst;
                if (!found || fit_before(score, k, key, best, bk, bkey)) {
                    found = 1;
                    best = score;
                    bk = k;
                    bkey = key;
                    memcpy(bcoef, cf, sizeof cf);
                    bc0 = cc;
                }
            }
        }
        if (found) {
            memcpy(coef, bcoef, sizeof coef);
            c0 = bc0;
            mask = bkey >> 1;
            kind = 0;
            aicc = best;
        }
    } else if (md == 2 && o->intercept) {
        /* 4. bootstrap: the affine model through the two group means */
        double c1 = (gmc[1] - gmc[0]) / (gu[1] - gu[0]);
        double cc = gmc[0] - c1 * gu[0];
        if (c1 > 0.0 && cc >= 0.0) {
            memset(coef, 0, sizeof coef);
            coef[0] = c1;
            c0 = cc;
            kind = 1;
        }
    }
    if (kind == 2) {
        proportional(&c, coef, &c0);
        mask = 1u;
    }
    /* mask holds only the terms with a coefficient (for a clean model) */
    uint32_t used = fit_used_terms(mask, coef, kind == 2);

    /* 9. transfer model G = a1 u + a2 (decay weights) */
    double a1 = 0.0, a2 = 0.0;
    if (txs) {
        double Wt = 0.0, ub = 0.0, tb = 0.0;
        for (int64_t g = 0; g < md; g++) {
            Wt += gWd[g];
            if (Wt > 0.0) { /* a leading group of zero weight (underflowed decay) adds nothing */
                ub += (gWd[g] / Wt) * (gu[g] - ub);
                tb += (gWd[g] / Wt) * (gmx[g] - tb);
            }
        }
        double sxy = 0.0, sxx = 0.0, num = 0.0, den = 0.0;
        for (int64_t g = 0; g < md && md >= 2; g++) {
            sxy += gWd[g] * (gu[g] - ub) * (gmx[g] - tb);
            sxx += gWd[g] * (gu[g] - ub) * (gu[g] - ub);
            num += gWd[g] * gu[g] * gmx[g];
            den += gWd[g] * gu[g] * gu[g];
        }
        fit_xfer(md, ub, tb, sxy, sxx, num, den, &a1, &a2);
    }
    /* 10. the model and its evaluation domain */
    WPART_CHECK(wpart_i_fit_finish(used, coef, c0, a1, a2, (double)x_hi, c.x_a, c.x_b,
                                   fit_sse(&c, used, coef, c0), aicc, mu, md, kind,
                                   o->slope_floor, out));
cleanup:
    if (st != WPART_OK) {
        memset(out, 0, sizeof *out);
    }
    free(owned);
    return st;
}

wpart_status_t wpart_i_fit_finish(uint32_t used, const double *coef, double c0, double a1,
                                  double a2, double x_scale, double x_a, double x_b, double sse,
                                  double aicc, int64_t m, int64_t md, int kind,
                                  double slope_floor, wpart_dynamic_model_t *out)
{
    wpart_status_t st = WPART_OK;
    *out = (wpart_dynamic_model_t){.mask = used, .c0 = c0, .x_scale = x_scale, .g_slope = a1,
                                   .g_icept = a2, .x_a = x_a, .x_b = x_b, .sse = sse,
                                   .aicc = aicc, .m = (int32_t)m, .m_distinct = (int32_t)md,
                                   .kind = kind};
    memcpy(out->coef, coef, sizeof out->coef);
    double ua = x_a / x_scale, ubb = x_b / x_scale;
    out->e_a = f_raw(used, coef, c0, ua) + a1 * ua + a2;
    out->e_b = f_raw(used, coef, c0, ubb) + a1 * ubb + a2;
    double deriv = (f_raw_deriv(used, coef, ubb) + a1) / x_scale;
    out->slope_hi = fmax(isfinite(deriv) ? deriv : 0.0, slope_floor * out->e_b / x_b);
    if (!isfinite(out->e_a) || !isfinite(out->e_b) || !isfinite(out->slope_hi)) {
        WPART_FAIL(WPART_EINTERNAL, "fitted model is not finite on its domain");
    }
    if (out->e_a > out->e_b) {
        out->e_a = out->e_b; /* only possible through rounding */
    }
    out->valid = 1;
cleanup:
    return st;
}
