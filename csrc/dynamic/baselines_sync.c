/*
 * baselines_sync.c -- the baselines with synchronous rounds (spec 001 §3.2, §3.5): HDSS
 * (adaptive rounds with barriers, least-squares weights, weighted self-scheduling), AcostaRP
 * (steps of fixed volume redistributed by relative power) and NaiveProfile (one profiling
 * round, then one static block per PU).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baselines_internal.h"

/* A measured block time, floored so that a zero measurement gives a large finite rate. */
static double block_time(const wpart_dynamic_completion_t *c)
{
    double t = c->t_xfer + c->t_comp;
    return t > 1e-12 ? t : 1e-12;
}

/* ---------------------------------------------------------------- HDSS ------------------ */

enum { HDSS_ADAPT = 1, HDSS_EVAL = 2, HDSS_COMPLETE = 3 };

typedef struct {
    wpart_dynamic_balancer_t base;
    wpart_dynamic_hdss_cfg_t cfg;
    int phase;
    int32_t round;       /* current adaptive round, 0-based */
    int32_t outstanding; /* blocks of the current round not finished */
    int64_t *cur;        /* size of p's block in the current round (0: none) */
    int64_t *last;       /* p's last adaptive block size */
    int8_t *conv;        /* p has converged */
    double *prev_theta;  /* p's throughput in the previous round (NaN: none) */
    double *pb, *pth;    /* points: n * rounds_max (size, throughput) */
    int32_t *npts;
    double *wres; /* written by eval_run */
    double *w;    /* published weights (sum 1) */
    int have_w;
} hdss_t;

void wpart_dynamic_hdss_cfg_default(wpart_dynamic_hdss_cfg_t *c)
{
    *c = (wpart_dynamic_hdss_cfg_t){.x_init = 1024, .eps = 0.10, .rounds_max = 5,
                                    .adapt_fraction = 0.20, .kappa = 2.0, .min_chunk = 256};
}

/* The size PU p asks for in round r (before the cursor caps it). */
static int64_t hdss_size(const hdss_t *h, int32_t p, int32_t r)
{
    if (h->conv[p]) {
        return h->last[p];
    }
    int64_t x = h->cfg.x_init;
    for (int32_t i = 0; i < r; i++) {
        if (x > h->base.total / 2) {
            return h->base.total; /* the cursor caps it anyway */
        }
        x *= 2;
    }
    return x;
}

static wpart_status_t hdss_round(hdss_t *h, wpart_dynamic_actions_t *out)
{
    wpart_dynamic_balancer_t *b = &h->base;
    wpart_status_t st = WPART_OK;
    h->outstanding = 0;
    for (int32_t p = 0; p < b->n; p++) {
        int64_t got;
        WPART_CHECK(wpart_i_dyn_assign(b, out, p, hdss_size(h, p, h->round), 1,
                                       WPART_DYN_BLK_TRAIN, h->round + 1, 0, NAN, &got));
        h->cur[p] = got;
        if (got > 0) {
            h->last[p] = got;
            h->outstanding++;
        }
    }
cleanup:
    return st;
}

static wpart_status_t hdss_start(wpart_dynamic_balancer_t *b, double now,
                                 wpart_dynamic_actions_t *out)
{
    hdss_t *h = (hdss_t *)b;
    h->phase = HDSS_ADAPT;
    h->round = 0;
    return hdss_round(h, out);
}

static wpart_status_t hdss_chunk(hdss_t *h, int32_t p, wpart_dynamic_actions_t *out)
{
    wpart_dynamic_balancer_t *b = &h->base;
    int64_t rem = b->total - b->cursor;
    if (rem <= 0) {
        return WPART_OK;
    }
    double want = ceil(h->w[p] * (double)rem / h->cfg.kappa);
    int64_t size = want >= (double)rem ? rem : (int64_t)want;
    if (size < h->cfg.min_chunk) {
        size = h->cfg.min_chunk;
    }
    return wpart_i_dyn_assign(b, out, p, size, 1, WPART_DYN_BLK_OTHER, 0, 0, NAN, NULL);
}

static wpart_status_t hdss_complete(wpart_dynamic_balancer_t *b,
                                    const wpart_dynamic_completion_t *c,
                                    wpart_dynamic_actions_t *out)
{
    wpart_status_t st = WPART_OK;
    hdss_t *h = (hdss_t *)b;
    int32_t p = c->pu;
    if (h->phase == HDSS_COMPLETE) {
        return hdss_chunk(h, p, out);
    }
    if (h->phase != HDSS_ADAPT) {
        WPART_FAIL(WPART_EINTERNAL, "HDSS completion during its evaluation");
    }
    /* an adaptive block: one throughput point */
    double size = (double)h->cur[p];
    double theta = size / block_time(c);
    int32_t k = h->npts[p]++;
    h->pb[(int64_t)p * h->cfg.rounds_max + k] = size;
    h->pth[(int64_t)p * h->cfg.rounds_max + k] = theta;
    if (!h->conv[p] && isfinite(h->prev_theta[p]) &&
        theta < (1.0 + h->cfg.eps) * h->prev_theta[p]) {
        h->conv[p] = 1;
    }
    h->prev_theta[p] = theta;
    if (--h->outstanding > 0) {
        return WPART_OK;
    }
    /* the round's barrier */
    b->n_barriers++;
    if (b->cursor >= b->total) {
        return WPART_OK;
    }
    int32_t done_rounds = h->round + 1;
    int all_conv = 1;
    double next = 0.0;
    for (int32_t q = 0; q < b->n; q++) {
        all_conv &= h->conv[q] != 0;
        next += (double)hdss_size(h, q, done_rounds);
    }
    if (all_conv || done_rounds >= h->cfg.rounds_max ||
        (double)b->cursor + next > h->cfg.adapt_fraction * (double)b->total) {
        h->phase = HDSS_EVAL;
        return wpart_i_dyn_eval(b, out, -1, NULL);
    }
    h->round = done_rounds;
    st = hdss_round(h, out);
cleanup:
    return st;
}

/* theta_p(b) = c + d ln b by least squares on p's points, at p's last size, clamped. */
static double hdss_weight(const hdss_t *h, int32_t p)
{
    int32_t m = h->npts[p];
    if (m < 1) {
        return 0.0;
    }
    const double *bs = h->pb + (int64_t)p * h->cfg.rounds_max;
    const double *th = h->pth + (int64_t)p * h->cfg.rounds_max;
    double ml = 0.0, mt = 0.0, tmin = INFINITY;
    for (int32_t i = 0; i < m; i++) {
        ml += log(bs[i]);
        mt += th[i];
        tmin = th[i] < tmin ? th[i] : tmin;
    }
    ml /= m;
    mt /= m;
    double sxx = 0.0, sxy = 0.0;
    for (int32_t i = 0; i < m; i++) {
        double u = log(bs[i]) - ml;
        sxx += u * u;
        sxy += u * (th[i] - mt);
    }
    double d = sxx > 1e-12 ? sxy / sxx : 0.0; /* centred: well conditioned */
    double w = mt + d * (log((double)h->last[p]) - ml);
    if (!(w >= tmin)) {
        w = tmin;
    }
    return w;
}

static wpart_status_t hdss_eval_run(wpart_dynamic_balancer_t *b, int64_t token)
{
    hdss_t *h = (hdss_t *)b;
    double s = 0.0;
    for (int32_t p = 0; p < b->n; p++) {
        h->wres[p] = hdss_weight(h, p);
        s += h->wres[p];
    }
    for (int32_t p = 0; p < b->n; p++) {
        h->wres[p] = s > 0 && isfinite(s) ? h->wres[p] / s : 1.0 / b->n;
    }
    return WPART_OK;
}

static wpart_status_t hdss_eval_done(wpart_dynamic_balancer_t *b, int64_t token, double now,
                                     wpart_dynamic_actions_t *out)
{
    hdss_t *h = (hdss_t *)b;
    wpart_status_t st = WPART_OK;
    memcpy(h->w, h->wres, (size_t)b->n * sizeof(double));
    h->have_w = 1;
    wpart_i_dyn_set_shares(b, h->w, 1);
    h->phase = HDSS_COMPLETE;
    for (int32_t p = 0; p < b->n; p++) {
        WPART_CHECK(hdss_chunk(h, p, out));
    }
cleanup:
    return st;
}

static int hdss_idle(const wpart_dynamic_balancer_t *b, int32_t pu)
{
    const hdss_t *h = (const hdss_t *)b;
    return h->phase == HDSS_ADAPT ? WPART_DYN_IDLE_BARRIER
         : h->phase == HDSS_EVAL  ? WPART_DYN_IDLE_EVAL
                                  : WPART_DYN_IDLE_OTHER;
}

static void hdss_destroy(wpart_dynamic_balancer_t *b)
{
    hdss_t *h = (hdss_t *)b;
    free(h->cur);
    free(h->last);
    free(h->conv);
    free(h->prev_theta);
    free(h->pb);
    free(h->pth);
    free(h->npts);
    free(h->wres);
    free(h->w);
}

static const wpart_i_dyn_vtable_t hdss_vt = {
    "hdss", hdss_start, hdss_complete, hdss_eval_run, hdss_eval_done, hdss_idle, hdss_destroy,
};

wpart_status_t wpart_dynamic_hdss_new(int32_t n_pu, int64_t total,
                                      const wpart_dynamic_hdss_cfg_t *cfg,
                                      wpart_dynamic_balancer_t **out)
{
    wpart_status_t st = WPART_OK;
    wpart_dynamic_hdss_cfg_t c;
    hdss_t *h = NULL;
    wpart_dynamic_balancer_t *b = NULL;
    WPART_CHECK(wpart_i_dyn_out(out));
    if (cfg) {
        c = *cfg;
    } else {
        wpart_dynamic_hdss_cfg_default(&c);
    }
    if (c.x_init < 1) {
        WPART_FAIL(WPART_EINVAL, "x_init must be >= 1, got %" PRId64, c.x_init);
    }
    if (!(isfinite(c.eps) && c.eps >= 0)) {
        WPART_FAIL(WPART_EINVAL, "eps must be finite and >= 0, got %g", c.eps);
    }
    if (c.rounds_max < 1 || c.rounds_max > 62) {
        WPART_FAIL(WPART_EINVAL, "rounds_max must be in [1, 62], got %d",
                   (int)c.rounds_max);
    }
    if (!(c.adapt_fraction > 0 && c.adapt_fraction <= 1)) {
        WPART_FAIL(WPART_EINVAL, "adapt_fraction must be in (0, 1], got %g",
                   c.adapt_fraction);
    }
    if (!(isfinite(c.kappa) && c.kappa > 0)) {
        WPART_FAIL(WPART_EINVAL, "kappa must be finite and > 0, got %g", c.kappa);
    }
    if (c.min_chunk < 1) {
        WPART_FAIL(WPART_EINVAL, "min_chunk must be >= 1, got %" PRId64, c.min_chunk);
    }
    if (n_pu < 1) {
        WPART_FAIL(WPART_EINVAL, "n_pu must be >= 1, got %d", (int)n_pu);
    }
    WPART_CHECK(wpart_i_dyn_new(sizeof *h, &hdss_vt, n_pu, total, (int64_t)n_pu + 1, "hdss", &b));
    h = (hdss_t *)b;
    h->base.auto_series = 1; /* its block sizes per PU over time (no model to publish) */
    h->cfg = c;
    int64_t np = (int64_t)n_pu * c.rounds_max;
    h->cur = wpart_i_calloc(n_pu, sizeof(int64_t));
    h->last = wpart_i_calloc(n_pu, sizeof(int64_t));
    h->conv = wpart_i_calloc(n_pu, sizeof(int8_t));
    h->prev_theta = wpart_i_malloc(n_pu, sizeof(double));
    h->pb = wpart_i_calloc(np, sizeof(double));
    h->pth = wpart_i_calloc(np, sizeof(double));
    h->npts = wpart_i_calloc(n_pu, sizeof(int32_t));
    h->wres = wpart_i_calloc(n_pu, sizeof(double));
    h->w = wpart_i_calloc(n_pu, sizeof(double));
    int ok = h->cur && h->last && h->conv && h->prev_theta && h->pb && h->pth && h->npts &&
             h->wres && h->w;
    for (int32_t p = 0; ok && p < n_pu; p++) {
        h->prev_theta[p] = NAN;
    }
    st = wpart_i_dyn_done(b, ok, "hdss", out);
cleanup:
    return st;
}

int wpart_dynamic_hdss_weights(const wpart_dynamic_balancer_t *b, double *w)
{
    if (!b || b->vt != &hdss_vt || !((const hdss_t *)b)->have_w) {
        return 1;
    }
    memcpy(w, ((const hdss_t *)b)->w, (size_t)b->n * sizeof(double));
    return 0;
}

/* ---------------------------------------------------------------- AcostaRP -------------- */

typedef struct {
    wpart_dynamic_balancer_t base;
    int64_t step;
    double threshold;
    int eval_at_barrier;
    int eval_pending;
    int32_t k;           /* steps issued */
    int32_t outstanding; /* blocks of the current step not finished */
    int64_t *x;          /* current split of a full step (sums to step) */
    int64_t *cur;        /* sizes of the current step */
    double *t;           /* measured block times of the current step */
    double *rp;          /* workspace: relative powers */
    wpart_i_dyn_split_ws_t *ws;
} acosta_t;

static wpart_status_t acosta_step(acosta_t *a, double now, wpart_dynamic_actions_t *out)
{
    wpart_dynamic_balancer_t *b = &a->base;
    wpart_status_t st = WPART_OK;
    int64_t rem = b->total - b->cursor;
    int64_t s = rem < a->step ? rem : a->step;
    if (s <= 0) {
        return WPART_OK;
    }
    if (s < a->step) { /* the last, partial step keeps the split's proportions */
        for (int32_t p = 0; p < b->n; p++) {
            a->rp[p] = (double)a->x[p];
        }
        wpart_i_dyn_split(b->n, s, a->rp, a->cur, a->ws);
    } else {
        memcpy(a->cur, a->x, (size_t)b->n * sizeof(int64_t));
    }
    a->k++;
    a->outstanding = 0;
    WPART_CHECK(wpart_i_dyn_series_add(b, now, a->k, NAN, (double)s, a->cur));
    int64_t issued = 0;
    st = wpart_i_dyn_assign_each(b, out, a->cur, 0, WPART_DYN_BLK_OTHER, a->k, a->cur, &issued);
    a->outstanding += (int32_t)issued;
cleanup:
    return st;
}

static wpart_status_t acosta_start(wpart_dynamic_balancer_t *b, double now,
                                   wpart_dynamic_actions_t *out)
{
    acosta_t *a = (acosta_t *)b;
    for (int32_t p = 0; p < b->n; p++) {
        a->rp[p] = 1.0;
    }
    wpart_i_dyn_split(b->n, a->step, a->rp, a->x, a->ws); /* equal shares */
    wpart_i_dyn_set_shares(b, a->rp, 1);
    return acosta_step(a, now, out);
}

static void acosta_redistribute(acosta_t *a)
{
    wpart_dynamic_balancer_t *b = &a->base;
    double tmax = 0.0, tmin = INFINITY;
    for (int32_t p = 0; p < b->n; p++) {
        if (a->cur[p] > 0) {
            tmax = a->t[p] > tmax ? a->t[p] : tmax;
            tmin = a->t[p] < tmin ? a->t[p] : tmin;
        }
    }
    if (!(tmax > 0) || !((tmax - tmin) / tmax > a->threshold)) {
        return;
    }
    double s = 0.0;
    for (int32_t p = 0; p < b->n; p++) {
        a->rp[p] = a->cur[p] > 0 ? (double)a->cur[p] / a->t[p] : 0.0;
        s += a->rp[p];
    }
    if (!(s > 0) || !isfinite(s)) {
        return;
    }
    wpart_i_dyn_split(b->n, a->step, a->rp, a->x, a->ws);
    /* every PU keeps at least one element, so that it is measured again */
    for (int32_t p = 0; p < b->n; p++) {
        if (a->x[p] == 0) {
            int32_t big = 0;
            for (int32_t q = 1; q < b->n; q++) {
                big = a->x[q] > a->x[big] ? q : big;
            }
            a->x[big]--;
            a->x[p] = 1;
        }
    }
    for (int32_t p = 0; p < b->n; p++) {
        a->rp[p] = (double)a->x[p];
    }
    wpart_i_dyn_set_shares(b, a->rp, 1);
}

static wpart_status_t acosta_complete(wpart_dynamic_balancer_t *b,
                                      const wpart_dynamic_completion_t *c,
                                      wpart_dynamic_actions_t *out)
{
    acosta_t *a = (acosta_t *)b;
    a->t[c->pu] = block_time(c);
    if (--a->outstanding > 0) {
        return WPART_OK;
    }
    b->n_barriers++;
    if (b->cursor >= b->total) {
        return WPART_OK;
    }
    acosta_redistribute(a);
    if (a->eval_at_barrier) {
        a->eval_pending = 1;
        return wpart_i_dyn_eval(b, out, -1, NULL);
    }
    return acosta_step(a, c->now, out);
}

static wpart_status_t acosta_eval_run(wpart_dynamic_balancer_t *b, int64_t token)
{
    return WPART_OK; /* the redistribution was done at the barrier; the EVAL only charges it */
}

static wpart_status_t acosta_eval_done(wpart_dynamic_balancer_t *b, int64_t token, double now,
                                       wpart_dynamic_actions_t *out)
{
    acosta_t *a = (acosta_t *)b;
    a->eval_pending = 0;
    return acosta_step(a, now, out);
}

static int acosta_idle(const wpart_dynamic_balancer_t *b, int32_t pu)
{
    return ((const acosta_t *)b)->eval_pending ? WPART_DYN_IDLE_EVAL : WPART_DYN_IDLE_BARRIER;
}

static void acosta_destroy(wpart_dynamic_balancer_t *b)
{
    acosta_t *a = (acosta_t *)b;
    free(a->x);
    free(a->cur);
    free(a->t);
    free(a->rp);
    free(a->ws);
}

static const wpart_i_dyn_vtable_t acosta_vt = {
    "acosta_rp", acosta_start, acosta_complete, acosta_eval_run, acosta_eval_done, acosta_idle,
    acosta_destroy,
};

wpart_status_t wpart_dynamic_acosta_new(int32_t n_pu, int64_t total, int64_t step,
                                        double threshold, int eval_at_barrier,
                                        wpart_dynamic_balancer_t **out)
{
    wpart_status_t st = WPART_OK;
    acosta_t *a = NULL;
    wpart_dynamic_balancer_t *b = NULL;
    WPART_CHECK(wpart_i_dyn_out(out));
    if (n_pu < 1) {
        WPART_FAIL(WPART_EINVAL, "n_pu must be >= 1, got %d", (int)n_pu);
    }
    if (step < n_pu) {
        WPART_FAIL(WPART_EINVAL, "step must be >= n_pu (%d), got %" PRId64, (int)n_pu,
                   step);
    }
    if (!(isfinite(threshold) && threshold >= 0)) {
        WPART_FAIL(WPART_EINVAL, "threshold must be finite and >= 0, got %g",
                   threshold);
    }
    WPART_CHECK(wpart_i_dyn_new(sizeof *a, &acosta_vt, n_pu, total, (int64_t)n_pu + 1, "acosta",
                                &b));
    a = (acosta_t *)b;
    a->step = step;
    a->threshold = threshold;
    a->eval_at_barrier = eval_at_barrier != 0;
    a->x = wpart_i_calloc(n_pu, sizeof(int64_t));
    a->cur = wpart_i_calloc(n_pu, sizeof(int64_t));
    a->t = wpart_i_calloc(n_pu, sizeof(double));
    a->rp = wpart_i_calloc(n_pu, sizeof(double));
    a->ws = wpart_i_calloc(n_pu, sizeof(wpart_i_dyn_split_ws_t));
    st = wpart_i_dyn_done(b, a->x && a->cur && a->t && a->rp && a->ws, "acosta", out);
cleanup:
    return st;
}

/* ---------------------------------------------------------------- NaiveProfile ---------- */

typedef struct {
    wpart_dynamic_balancer_t base;
    int64_t x_init;
    int profiling;
    int32_t outstanding;
    double *rate;
    int64_t *blocks;
    wpart_i_dyn_split_ws_t *ws;
} naive_t;

static wpart_status_t naive_start(wpart_dynamic_balancer_t *b, double now,
                                  wpart_dynamic_actions_t *out)
{
    naive_t *v = (naive_t *)b;
    wpart_status_t st = WPART_OK;
    int64_t issued = 0;
    v->profiling = 1;
    st = wpart_i_dyn_assign_each(b, out, NULL, v->x_init, WPART_DYN_BLK_TRAIN, 0, NULL, &issued);
    v->outstanding += (int32_t)issued;
    return st;
}

static wpart_status_t naive_complete(wpart_dynamic_balancer_t *b,
                                     const wpart_dynamic_completion_t *c,
                                     wpart_dynamic_actions_t *out)
{
    naive_t *v = (naive_t *)b;
    wpart_status_t st = WPART_OK;
    if (!v->profiling) {
        return WPART_OK;
    }
    const wpart_i_dyn_block_t *blk = &b->blk[c->block_id];
    v->rate[c->pu] = (double)blk->size / block_time(c);
    if (--v->outstanding > 0) {
        return WPART_OK;
    }
    v->profiling = 0;
    b->n_barriers++;
    wpart_i_dyn_set_shares(b, v->rate, 1);
    if (b->cursor >= b->total) {
        return WPART_OK;
    }
    wpart_i_dyn_split(b->n, b->total - b->cursor, v->rate, v->blocks, v->ws);
    WPART_CHECK(wpart_i_dyn_series_add(b, c->now, 1, NAN, (double)(b->total - b->cursor),
                                       v->blocks));
    st = wpart_i_dyn_assign_each(b, out, v->blocks, 0, WPART_DYN_BLK_OTHER, 0, NULL, NULL);
cleanup:
    return st;
}

static int naive_idle(const wpart_dynamic_balancer_t *b, int32_t pu)
{
    return ((const naive_t *)b)->profiling ? WPART_DYN_IDLE_BARRIER : WPART_DYN_IDLE_OTHER;
}

static void naive_destroy(wpart_dynamic_balancer_t *b)
{
    naive_t *v = (naive_t *)b;
    free(v->rate);
    free(v->blocks);
    free(v->ws);
}

static const wpart_i_dyn_vtable_t naive_vt = {
    "naive_profile", naive_start, naive_complete, NULL, NULL, naive_idle, naive_destroy,
};

wpart_status_t wpart_dynamic_naive_new(int32_t n_pu, int64_t total, int64_t x_init,
                                       wpart_dynamic_balancer_t **out)
{
    wpart_status_t st = WPART_OK;
    naive_t *v = NULL;
    wpart_dynamic_balancer_t *b = NULL;
    WPART_CHECK(wpart_i_dyn_out(out));
    if (n_pu < 1) {
        WPART_FAIL(WPART_EINVAL, "n_pu must be >= 1, got %d", (int)n_pu);
    }
    if (x_init < 1) {
        WPART_FAIL(WPART_EINVAL, "x_init must be >= 1, got %" PRId64, x_init);
    }
    WPART_CHECK(wpart_i_dyn_new(sizeof *v, &naive_vt, n_pu, total, (int64_t)n_pu + 1,
                                "naive_profile", &b));
    v = (naive_t *)b;
    v->x_init = x_init;
    v->rate = wpart_i_calloc(n_pu, sizeof(double));
    v->blocks = wpart_i_calloc(n_pu, sizeof(int64_t));
    v->ws = wpart_i_calloc(n_pu, sizeof(wpart_i_dyn_split_ws_t));
    st = wpart_i_dyn_done(b, v->rate && v->blocks && v->ws, "naive_profile", out);
cleanup:
    return st;
}
