/*
 * plbhac.c -- PLB-HAC (spec 001 §2.3) and PLB-HeC (§3.3) as pure state machines: training
 * with the R-scaled second block (barrier or probe), the single barrier, asynchronous virtual
 * steps with at most one evaluation in flight (the trigger PU pays for it), gap filling with no
 * chaining, parking of PUs excluded in the end-game, and the publication of each evaluation.
 * PLB-HeC: a barrier after every training round and execution step, evaluations while every
 * PU idles. The evaluation itself (fit, step volume, tail, solve, round) is plbhac_eval.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plbhac_internal.h"

/* ---------------------------------------------------------------- helpers ---------------- */

static int64_t round_up_q(int64_t x, int64_t q) { return x <= 0 ? 0 : ((x + q - 1) / q) * q; }

static wpart_status_t grow_samples(plb_t *s, int32_t p)
{
    wpart_status_t st = WPART_OK;
    if (s->ns[p] < s->scap[p]) {
        return WPART_OK;
    }
    int64_t nc = s->scap[p] > 0 ? 2 * s->scap[p] : 16;
    int64_t *x = wpart_i_realloc(s->sx[p], nc, sizeof(int64_t));
    if (x) {
        s->sx[p] = x;
    }
    double *tc = wpart_i_realloc(s->stc[p], nc, sizeof(double));
    if (tc) {
        s->stc[p] = tc;
    }
    double *tx = wpart_i_realloc(s->stx[p], nc, sizeof(double));
    if (tx) {
        s->stx[p] = tx;
    }
    if (!x || !tc || !tx) {
        WPART_FAIL(WPART_ENOMEM, "samples of PU %d (%" PRId64 ")", (int)p, nc);
    }
    s->scap[p] = nc;
cleanup:
    return st;
}

/* ASSIGN(p, size, kind, now) of §2.3: clip, no sliver, pred_end from the published model. */
static wpart_status_t plb_assign(plb_t *s, wpart_dynamic_actions_t *out, int32_t p, int64_t size,
                                 int32_t kind, double now, int64_t *got)
{
    wpart_dynamic_balancer_t *b = &s->base;
    int64_t q = s->cfg.quantum, rem = b->total - b->cursor;
    if (got) {
        *got = 0;
    }
    if (size <= 0 || rem <= 0) {
        return WPART_OK;
    }
    if (s->cur_blk[p] >= 0) {
        return wpart_i_error(WPART_EINTERNAL, "PU %d already holds block %" PRId64, (int)p,
                             s->cur_blk[p]);
    }
    int64_t sz = size < rem ? size : rem;
    if (rem - sz > 0 && rem - sz < q) {
        sz = rem;
    }
    double pred = NAN;
    if (s->version > 0) {
        pred = now + wpart_dynamic_model_eval(&s->models[p], (double)sz);
    }
    int64_t id = b->n_blk, a = 0;
    wpart_status_t st =
        wpart_i_dyn_assign(b, out, p, sz, q, kind, s->vstep[p], s->version, pred, &a);
    if (st != WPART_OK) {
        return st;
    }
    if (a > 0) {
        s->cur_blk[p] = id;
        s->cur_kind[p] = kind;
        s->cur_pred[p] = pred;
        s->cur_t0[p] = now;
        s->cur_dur[p] = pred - now;
        if (kind == WPART_DYN_BLK_TRAIN) {
            s->last_train[p] = a;
        }
    }
    if (got) {
        *got = a;
    }
    return WPART_OK;
}

/* Copies the last `window` samples of every PU into the snapshot (fit.window > 0). */
static wpart_status_t snap_raw(plb_t *s)
{
    wpart_status_t st = WPART_OK;
    int32_t n = s->base.n;
    int64_t win = s->cfg.fit.window > 0 ? s->cfg.fit.window : INT64_MAX;
    int64_t need = 0, mmax = 0;
    for (int32_t p = 0; p < n; p++) {
        int64_t m = s->ns[p] < win ? s->ns[p] : win;
        need += m;
        mmax = m > mmax ? m : mmax;
    }
    if (need > s->snap_cap) {
        int64_t nc = s->snap_cap > 0 ? s->snap_cap : 64;
        while (nc < need) {
            nc *= 2;
        }
        int64_t *x = wpart_i_realloc(s->snap_x, nc, sizeof(int64_t));
        if (x) {
            s->snap_x = x;
        }
        double *tc = wpart_i_realloc(s->snap_tc, nc, sizeof(double));
        if (tc) {
            s->snap_tc = tc;
        }
        double *tx = wpart_i_realloc(s->snap_tx, nc, sizeof(double));
        if (tx) {
            s->snap_tx = tx;
        }
        if (!x || !tc || !tx) {
            WPART_FAIL(WPART_ENOMEM, "evaluation snapshot (%" PRId64 " samples)", nc);
        }
        s->snap_cap = nc;
    }
    size_t ws = wpart_dynamic_fit_work_size(mmax);
    if (ws > s->work_cap) {
        size_t nc = s->work_cap > 0 ? s->work_cap : 1024;
        while (nc < ws) {
            nc *= 2;
        }
        void *w = wpart_i_realloc(s->work, (int64_t)nc, 1);
        if (!w) {
            WPART_FAIL(WPART_ENOMEM, "evaluation work space (%zu bytes)", nc);
        }
        s->work = w;
        s->work_cap = nc;
    }
    int64_t o = 0;
    for (int32_t p = 0; p < n; p++) {
        int64_t m = s->ns[p] < win ? s->ns[p] : win, first = s->ns[p] - m;
        s->snap_off[p] = o;
        memcpy(s->snap_x + o, s->sx[p] + first, (size_t)m * sizeof(int64_t));
        memcpy(s->snap_tc + o, s->stc[p] + first, (size_t)m * sizeof(double));
        memcpy(s->snap_tx + o, s->stx[p] + first, (size_t)m * sizeof(double));
        o += m;
    }
    s->snap_off[n] = o;
cleanup:
    return st;
}

/* Snapshots what the fits read (the incremental fit states that changed, or the last
 * `window` samples) and issues the EVAL. */
static wpart_status_t plb_issue_eval(plb_t *s, wpart_dynamic_actions_t *out, int32_t trigger,
                                     int release_waiting, double now)
{
    wpart_dynamic_balancer_t *b = &s->base;
    wpart_status_t st = WPART_OK;
    int32_t n = b->n;
    WPART_CHECK(wpart_i_plb_late_blocks(s, now));
    if (s->cfg.change_ratio > 0.0) {
        memcpy(s->snap_lvl, s->lvl, (size_t)n * sizeof(double));
#ifdef WPART_FIT_INC_H
        for (int32_t p = 0; p < n; p++) { /* rescaled samples: same count, new fit */
            if (s->resc[p]) {
                s->resc[p] = 0;
                s->snap_fi[p].m = -1;
                s->fc_m[p] = 0;
            }
        }
#endif
    }
    if (s->cfg.fit.window == 0) {
        for (int32_t p = 0; p < n; p++) {
            if (s->snap_fi[p].m != s->fi[p].m) {
                wpart_i_fitinc_copy(&s->snap_fi[p], &s->fi[p]);
            }
        }
    } else {
        WPART_CHECK(snap_raw(s));
    }
    s->snap_completed = b->completed;
    s->snap_cursor = b->cursor;
    s->snap_S = s->S;
    s->snap_have_S = s->have_S;
    s->snap_m_tail = s->m_tail;
    s->snap_S_train = s->S_train;
    if (s->cfg.step_fraction > 0.0) { /* the first S is at least step_fraction * W (Sec. 3.2) */
        int64_t q = s->cfg.quantum;
        double fw = floor(s->cfg.step_fraction * (double)b->total / (double)q) * (double)q;
        if (fw > (double)s->snap_S_train) {
            s->snap_S_train = (int64_t)fw;
        }
    }
    s->ev_trigger = trigger;
    s->ev_release_waiting = release_waiting;
    s->have_last_eval = 1;
    s->last_eval_t = now;
    s->res_ok = 0;
    WPART_CHECK(wpart_i_dyn_eval(b, out, trigger, NULL));
cleanup:
    return st;
}

/* ---------------------------------------------------------------- PLB-HAC ---------------- */

static wpart_status_t hac_start(wpart_dynamic_balancer_t *b, double now,
                                wpart_dynamic_actions_t *out)
{
    plb_t *s = (plb_t *)b;
    wpart_status_t st = WPART_OK;
    s->phase = PLB_TRAINING;
    s->hec_stage = 1;
    for (int32_t p = 0; p < b->n; p++) {
        WPART_CHECK(plb_assign(s, out, p, s->x_init, WPART_DYN_BLK_TRAIN, now, NULL));
    }
cleanup:
    return st;
}

static int all_trained(const plb_t *s)
{
    for (int32_t p = 0; p < s->base.n; p++) {
        if (s->ntrain[p] < 2) {
            return 0;
        }
    }
    return 1;
}

static int64_t second_size(plb_t *s, double t)
{
    int64_t q = s->cfg.quantum;
    if (!s->have_t_fast) {
        s->have_t_fast = 1;
        s->t_fast = t;
        return 2 * s->x_init;
    }
    double R = (t > 0) ? s->t_fast / t : 1.0;
    double v = llround(2.0 * (double)s->x_init * R / (double)q) * (double)q;
    return v < (double)q ? q : (int64_t)v;
}

static wpart_status_t training_step(plb_t *s, int32_t p, double t, double now,
                                    wpart_dynamic_actions_t *out)
{
    wpart_dynamic_balancer_t *b = &s->base;
    s->ntrain[p]++;
    if (b->cursor >= b->total) {
        return WPART_OK; /* no data left: no model is needed any more */
    }
    if (s->ntrain[p] == 1) {
        int64_t got = 0;
        int64_t size = second_size(s, t);
        wpart_status_t st = plb_assign(s, out, p, size, WPART_DYN_BLK_TRAIN, now, &got);
        s->S_train += got;
        return st;
    }
    s->waiting[p] = 1;
    if (all_trained(s)) { /* the single synchronisation point */
        s->phase = PLB_EXECUTION;
        if (s->cfg.training_mode == WPART_DYN_TRAIN_BARRIER) {
            b->n_barriers++;
        }
        return plb_issue_eval(s, out, p, 1, now);
    }
    if (s->cfg.training_mode == WPART_DYN_TRAIN_PROBE) {
        s->waiting[p] = 0;
        return plb_assign(s, out, p, 2 * s->last_train[p], WPART_DYN_BLK_TRAIN, now, NULL);
    }
    return WPART_OK; /* barrier: p idles */
}

static wpart_status_t next_regular(plb_t *s, int32_t p, double now, wpart_dynamic_actions_t *out)
{
    wpart_dynamic_balancer_t *b = &s->base;
    s->vstep[p]++;
    if (s->vstep[p] > s->V) {
        s->V = s->vstep[p];
        if (!b->eval_in_flight &&
            (!s->have_last_eval || now - s->last_eval_t >= s->cfg.min_eval_interval)) {
            return plb_issue_eval(s, out, p, 0, now); /* p waits for its evaluation */
        }
    }
    if (s->X[p] == 0) {
        s->parked[p] = 1;
        return WPART_OK;
    }
    return plb_assign(s, out, p, s->X[p], WPART_DYN_BLK_REGULAR, now, NULL);
}

static wpart_status_t record(plb_t *s, const wpart_dynamic_completion_t *c, int32_t *kind,
                             double *pred, int64_t *size)
{
    wpart_status_t st = WPART_OK;
    int32_t p = c->pu;
    if (s->cur_blk[p] != c->block_id) {
        WPART_FAIL(WPART_EINTERNAL, "PU %d completed block %" PRId64 ", holds %" PRId64,
                   (int)p, c->block_id, s->cur_blk[p]);
    }
    WPART_CHECK(grow_samples(s, p));
    *size = s->base.blk[c->block_id].size;
    *kind = s->cur_kind[p];
    *pred = s->cur_pred[p];
    s->cur_blk[p] = -1;
    s->sx[p][s->ns[p]] = *size;
    s->stc[p][s->ns[p]] = c->t_comp;
    s->stx[p][s->ns[p]] = c->t_xfer;
    s->ns[p]++;
    if (s->cfg.fit.window == 0) { /* the fit's sufficient statistics (fit_inc.h) */
        return wpart_i_fitinc_push(&s->fi[p], &s->cfg.fit, s->sx[p], s->stc[p], s->stx[p],
                                   s->ns[p]);
    }
cleanup:
    return st;
}

static wpart_status_t hac_complete(wpart_dynamic_balancer_t *b, const wpart_dynamic_completion_t *c,
                                   wpart_dynamic_actions_t *out)
{
    wpart_status_t st = WPART_OK;
    plb_t *s = (plb_t *)b;
    int32_t p = c->pu, kind = 0;
    double pred = NAN, now = c->now;
    int64_t size = 0;
    WPART_CHECK(record(s, c, &kind, &pred, &size));
    if (s->phase == PLB_TRAINING) {
        return training_step(s, p, c->t_xfer + c->t_comp, now, out);
    }
    if (b->cursor >= b->total) {
        return WPART_OK;
    }
    int changed = 0;
    if (s->phase == PLB_EXECUTION) {
        WPART_CHECK(wpart_i_plb_detect_change(s, p, kind, size, c->t_comp, &changed));
    }
    if (changed && s->version > 0 && b->cursor < b->total && !b->eval_in_flight) {
        return plb_issue_eval(s, out, p, 0, now); /* p's next block comes from the new level */
    }
    if (s->version == 0) { /* probe mode: the first model is not out yet */
        s->waiting[p] = 1;
        return WPART_OK;
    }
    if (s->cfg.gap_fill && kind == WPART_DYN_BLK_REGULAR && pred - now > s->cfg.gap_threshold) {
        double xg = 0.0;
        int64_t q = s->cfg.quantum;
        WPART_CHECK(wpart_dynamic_model_inverse(&s->models[p], pred - now, 0.0,
                                                (double)(b->total - b->cursor), &xg));
        int64_t g = isfinite(xg) && xg >= 0 ? (int64_t)floor(xg / (double)q) * q : 0;
        if (g >= q) {
            return plb_assign(s, out, p, g, WPART_DYN_BLK_GAP, now, NULL); /* vstep unchanged */
        }
    }
    st = next_regular(s, p, now, out);
cleanup:
    return st;
}

/* EVAL_DONE: publish atomically, then release. */
static wpart_status_t publish(plb_t *s, double now)
{
    wpart_dynamic_balancer_t *b = &s->base;
    int32_t n = b->n;
    memcpy(s->models, s->res_models, (size_t)n * sizeof(wpart_dynamic_model_t));
    if (s->cfg.change_ratio > 0.0) { /* the rescales read by this evaluation are in its models */
        for (int32_t p = 0; p < n; p++) {
            s->lvl[p] /= s->snap_lvl[p];
            s->snap_lvl[p] = 1.0;
        }
    }
    memcpy(s->X, s->res_X, (size_t)n * sizeof(int64_t));
    memcpy(s->lb_cur, s->res_lb, (size_t)n * sizeof(int64_t));
    s->T_pred = s->res_T;
    s->S = s->res_S;
    s->have_S = 1;
    s->S_eff = s->res_S_eff;
    s->m_tail = s->res_m_tail;
    s->version++;
    s->res_ok = 0;
    wpart_status_t st =
        wpart_i_dyn_series_add(b, now, s->version, s->T_pred, (double)s->S_eff, s->X);
    if (st == WPART_OK && s->version == 1) {
        for (int32_t p = 0; p < n; p++) {
            s->w_x[p] = (double)s->X[p] / (double)(s->S_eff > 0 ? s->S_eff : 1);
        }
        wpart_i_dyn_set_shares(b, s->w_x, 0);
    }
    return st;
}

/* eval_done without a finished eval_run: run the (pure) evaluation here. */
static wpart_status_t check_result(plb_t *s, int64_t token)
{
    if (!s->res_ok || s->res_token != token) {
        return wpart_i_plb_eval_run(&s->base, token);
    }
    return WPART_OK;
}

static wpart_status_t hac_eval_done(wpart_dynamic_balancer_t *b, int64_t token, double now,
                                    wpart_dynamic_actions_t *out)
{
    plb_t *s = (plb_t *)b;
    wpart_status_t st = WPART_OK;
    WPART_CHECK(check_result(s, token));
    int first = s->version == 0;
    WPART_CHECK(publish(s, now));
    for (int32_t w = 0; w < b->n; w++) {
        int rel = s->parked[w] || (s->ev_release_waiting ? s->waiting[w] : w == s->ev_trigger);
        if (!rel) {
            continue;
        }
        s->waiting[w] = 0;
        if (first) {
            s->vstep[w] = 1;
        }
        if (s->vstep[w] > s->V) {
            s->V = s->vstep[w];
        }
        if (s->X[w] == 0 || s->cur_blk[w] >= 0) {
            s->parked[w] = s->X[w] == 0; /* excluded in the end-game (§1.8) */
            continue;
        }
        s->parked[w] = 0;
        WPART_CHECK(plb_assign(s, out, w, s->X[w], WPART_DYN_BLK_REGULAR, now, NULL));
    }
    s->ev_trigger = -1;
cleanup:
    return st;
}

static int plb_idle_reason(const wpart_dynamic_balancer_t *b, int32_t p)
{
    const plb_t *s = (const plb_t *)b;
    if (s->cur_blk[p] >= 0) {
        return WPART_DYN_IDLE_OTHER;
    }
    if (b->eval_in_flight &&
        (s->ev_trigger < 0 || p == s->ev_trigger || (s->ev_release_waiting && s->waiting[p]))) {
        return WPART_DYN_IDLE_EVAL;
    }
    if (s->waiting[p]) {
        return s->phase == PLB_TRAINING || s->hec ? WPART_DYN_IDLE_BARRIER : WPART_DYN_IDLE_EVAL;
    }
    return WPART_DYN_IDLE_OTHER;
}

/* ---------------------------------------------------------------- PLB-HeC ---------------- */

static wpart_status_t hec_complete(wpart_dynamic_balancer_t *b, const wpart_dynamic_completion_t *c,
                                   wpart_dynamic_actions_t *out)
{
    plb_t *s = (plb_t *)b;
    int32_t p = c->pu, kind = 0;
    double pred = NAN;
    int64_t size;
    wpart_status_t st = record(s, c, &kind, &pred, &size);
    if (st != WPART_OK) {
        return st;
    }
    s->ntrain[p] += s->hec_stage < 3;
    if (s->hec_stage == 1) {
        s->first_t[p] = c->t_xfer + c->t_comp;
    }
    s->waiting[p] = 1;
    if (b->in_flight > 0) {
        return WPART_OK; /* wait for the slowest PU of the round / step */
    }
    b->n_barriers++;
    for (int32_t w = 0; w < b->n; w++) {
        s->waiting[w] = 0;
    }
    if (b->cursor >= b->total) {
        return WPART_OK;
    }
    if (s->hec_stage == 1) {
        double tf = INFINITY;
        int32_t fast = -1;
        for (int32_t w = 0; w < b->n; w++) {
            if (s->ns[w] > 0 && s->first_t[w] < tf) {
                tf = s->first_t[w];
                fast = w;
            }
        }
        s->have_t_fast = 1;
        s->t_fast = tf;
        s->hec_stage = 2;
        for (int32_t w = 0; w < b->n; w++) {
            int64_t got = 0, sz = 2 * s->x_init;
            if (w != fast) {
                double R = s->first_t[w] > 0 ? tf / s->first_t[w] : 1.0;
                double v = llround(2.0 * (double)s->x_init * R / (double)s->cfg.quantum) *
                           (double)s->cfg.quantum;
                sz = v < (double)s->cfg.quantum ? s->cfg.quantum : (int64_t)v;
            }
            WPART_CHECK(plb_assign(s, out, w, sz, WPART_DYN_BLK_TRAIN, c->now, &got));
            s->S_train += got;
        }
        return WPART_OK;
    }
    s->hec_stage = 3;
    s->phase = PLB_EXECUTION;
    for (int32_t w = 0; w < b->n; w++) {
        s->waiting[w] = 1; /* every PU waits for the global evaluation */
    }
    return plb_issue_eval(s, out, -1, 1, c->now);
cleanup:
    return st;
}

static wpart_status_t hec_eval_done(wpart_dynamic_balancer_t *b, int64_t token, double now,
                                    wpart_dynamic_actions_t *out)
{
    plb_t *s = (plb_t *)b;
    wpart_status_t st = WPART_OK;
    WPART_CHECK(check_result(s, token));
    WPART_CHECK(publish(s, now));
    for (int32_t w = 0; w < b->n; w++) {
        s->waiting[w] = 0;
        s->vstep[w]++;
        s->V = s->vstep[w] > s->V ? s->vstep[w] : s->V;
        s->parked[w] = s->X[w] == 0;
        if (s->X[w] > 0) {
            WPART_CHECK(plb_assign(s, out, w, s->X[w], WPART_DYN_BLK_REGULAR, now, NULL));
        }
    }
    s->ev_trigger = -1;
cleanup:
    return st;
}

/* ---------------------------------------------------------------- construction ----------- */

static void plb_destroy(wpart_dynamic_balancer_t *b)
{
    plb_t *s = (plb_t *)b;
    for (int32_t p = 0; p < b->n; p++) {
        free(s->sx ? s->sx[p] : NULL);
        free(s->stc ? s->stc[p] : NULL);
        free(s->stx ? s->stx[p] : NULL);
        if (s->fi) {
            wpart_i_fitinc_free(&s->fi[p]);
        }
        if (s->fg) {
            wpart_i_fitgrid_free(&s->fg[p]);
        }
    }
    void *arrs[] = {s->kinds, s->bmin_fixed, s->cap, s->X, s->lb_cur, s->models, s->waiting,
                    s->parked, s->sx, s->stc, s->stx, s->ns, s->scap, s->ntrain, s->vstep,
                    s->last_train, s->cur_blk, s->cur_kind, s->cur_pred, s->cur_t0, s->cur_dur,
                    s->lvl, s->snap_lvl, s->resc, s->first_t, s->snap_x,
                    s->snap_tc, s->snap_tx, s->snap_off, s->work, s->res_models, s->res_X,
                    s->res_lb, s->w_lb, s->w_ub, s->w_x, s->w_ilb, s->w_iub, s->w_bmin, s->w_slope,
                    s->fi, s->snap_fi, s->fc_m, s->fg};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) {
        free(arrs[i]);
    }
}

static const wpart_i_dyn_vtable_t hac_vt = {
    "plbhac", hac_start, hac_complete, wpart_i_plb_eval_run, hac_eval_done, plb_idle_reason,
    plb_destroy,
};

static const wpart_i_dyn_vtable_t hec_vt = {
    "plbhec", hac_start, hec_complete, wpart_i_plb_eval_run, hec_eval_done, plb_idle_reason,
    plb_destroy,
};

#define ALLOC(ptr, cnt)                                            \
    do {                                                           \
        (ptr) = wpart_i_calloc((cnt), sizeof(*(ptr)));             \
        if (!(ptr)) {                                              \
            WPART_FAIL(WPART_ENOMEM, "PLB-HAC state (%d PUs)", (int)n); \
        }                                                          \
    } while (0)

wpart_status_t wpart_dynamic_plbhac_new(const wpart_dynamic_plbhac_cfg_t *cfg, int32_t n,
                                        const int32_t *kinds, wpart_dynamic_balancer_t **out)
{
    wpart_status_t st = WPART_OK;
    plb_t *s = NULL;
    wpart_dynamic_balancer_t *b = NULL;
    if (!out || !cfg) {
        return wpart_i_error(WPART_EINVAL, "cfg and out must not be NULL");
    }
    *out = NULL;
    WPART_CHECK(wpart_i_plb_validate(cfg, n, kinds));
    int hec = cfg->sync_steps != 0;
    WPART_CHECK(wpart_i_dyn_new(sizeof *s, hec ? &hec_vt : &hac_vt, n, cfg->total, (int64_t)n + 1,
                                "PLB-HAC", &b));
    s = (plb_t *)b;
    s->hec = hec;
    s->cfg = *cfg;
    if (s->hec) {
        s->cfg.gap_fill = 0;
        s->cfg.tail_mode = WPART_DYN_TAIL_OFF;
        s->cfg.training_mode = WPART_DYN_TRAIN_BARRIER;
    }
    if (s->cfg.paper_strict) {
        s->cfg.fit.intercept = 0;
        s->cfg.step_mode = WPART_DYN_STEP_FIXED;
        if (!s->hec) {
            s->cfg.tail_mode = WPART_DYN_TAIL_SCALE;
        }
    }
    int64_t q = s->cfg.quantum;
    s->x_init = round_up_q(s->cfg.x_init, q);
    ALLOC(s->kinds, n);
    ALLOC(s->bmin_fixed, n);
    ALLOC(s->cap, n);
    for (int32_t p = 0; p < n; p++) {
        s->kinds[p] = kinds ? kinds[p] : WPART_DYN_PU_CPU;
        if (cfg->min_block) {
            s->bmin_fixed[p] = round_up_q(cfg->min_block[p], q);
        } else {
            s->bmin_fixed[p] = s->kinds[p] == WPART_DYN_PU_CPU ? q : s->x_init;
        }
        s->cap[p] = cfg->cap ? cfg->cap[p] : INT64_MAX;
    }
    s->cfg.min_block = s->bmin_fixed;
    s->cfg.cap = cfg->cap ? s->cap : NULL;
    ALLOC(s->X, n);
    ALLOC(s->lb_cur, n);
    ALLOC(s->models, n);
    ALLOC(s->waiting, n);
    ALLOC(s->parked, n);
    ALLOC(s->sx, n);
    ALLOC(s->stc, n);
    ALLOC(s->stx, n);
    ALLOC(s->ns, n);
    ALLOC(s->scap, n);
    ALLOC(s->ntrain, n);
    ALLOC(s->vstep, n);
    ALLOC(s->last_train, n);
    ALLOC(s->cur_blk, n);
    ALLOC(s->cur_kind, n);
    ALLOC(s->cur_pred, n);
    ALLOC(s->cur_t0, n);
    ALLOC(s->cur_dur, n);
    ALLOC(s->lvl, n);
    ALLOC(s->snap_lvl, n);
    ALLOC(s->resc, n);
    ALLOC(s->first_t, n);
    ALLOC(s->snap_off, (int64_t)n + 1);
    ALLOC(s->res_models, n);
    ALLOC(s->res_X, n);
    ALLOC(s->res_lb, n);
    ALLOC(s->w_lb, n);
    ALLOC(s->w_ub, n);
    ALLOC(s->w_x, n);
    ALLOC(s->w_ilb, n);
    ALLOC(s->w_iub, n);
    ALLOC(s->w_bmin, n);
    ALLOC(s->w_slope, n);
    ALLOC(s->fi, n);
    ALLOC(s->snap_fi, n);
    ALLOC(s->fc_m, n);
    ALLOC(s->fg, n);
    for (int32_t p = 0; p < n; p++) {
        wpart_i_fitinc_init(&s->fi[p]);
        wpart_i_fitinc_init(&s->snap_fi[p]);
        s->cur_blk[p] = -1;
        s->lb_cur[p] = s->bmin_fixed[p];
        s->lvl[p] = 1.0;
        s->snap_lvl[p] = 1.0;
    }
    s->ev_trigger = -1;
    *out = b;
    b = NULL;
cleanup:
    wpart_dynamic_balancer_free(b);
    return st;
}

wpart_status_t wpart_dynamic_plbhec_new(const wpart_dynamic_plbhac_cfg_t *cfg, int32_t n,
                                        const int32_t *kinds, wpart_dynamic_balancer_t **out)
{
    wpart_status_t st = WPART_OK;
    if (!cfg) {
        WPART_FAIL(WPART_EINVAL, "cfg must not be NULL");
    }
    wpart_dynamic_plbhac_cfg_t c = *cfg;
    c.sync_steps = 1;
    c.gap_fill = 0;
    c.tail_mode = WPART_DYN_TAIL_OFF;
    st = wpart_dynamic_plbhac_new(&c, n, kinds, out);
cleanup:
    return st;
}

/* ---------------------------------------------------------------- queries ---------------- */

int wpart_dynamic_is_plbhac(const wpart_dynamic_balancer_t *b)
{
    return b && (b->vt == &hac_vt || b->vt == &hec_vt);
}

wpart_status_t wpart_dynamic_plbhac_current(const wpart_dynamic_balancer_t *b, int64_t *X,
                                            double *T_pred, int64_t *S_eff, int64_t *S,
                                            int32_t *version)
{
    wpart_status_t st = WPART_OK;
    if (!wpart_dynamic_is_plbhac(b)) {
        WPART_FAIL(WPART_EINVAL, "balancer is not PLB-HAC / PLB-HeC");
    }
    const plb_t *s = (const plb_t *)b;
    if (X) {
        memcpy(X, s->X, (size_t)b->n * sizeof(int64_t));
    }
    if (T_pred) {
        *T_pred = s->version > 0 ? s->T_pred : NAN;
    }
    if (S_eff) {
        *S_eff = s->S_eff;
    }
    if (S) {
        *S = s->have_S ? s->S : 0;
    }
    if (version) {
        *version = s->version;
    }
cleanup:
    return st;
}

wpart_status_t wpart_dynamic_plbhac_models(const wpart_dynamic_balancer_t *b,
                                           wpart_dynamic_model_t *out)
{
    wpart_status_t st = WPART_OK;
    if (!wpart_dynamic_is_plbhac(b)) {
        WPART_FAIL(WPART_EINVAL, "balancer is not PLB-HAC / PLB-HeC");
    }
    memcpy(out, ((const plb_t *)b)->models, (size_t)b->n * sizeof(wpart_dynamic_model_t));
cleanup:
    return st;
}

wpart_status_t wpart_dynamic_plbhac_min_blocks(const wpart_dynamic_balancer_t *b, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    if (!wpart_dynamic_is_plbhac(b)) {
        WPART_FAIL(WPART_EINVAL, "balancer is not PLB-HAC / PLB-HeC");
    }
    memcpy(out, ((const plb_t *)b)->lb_cur, (size_t)b->n * sizeof(int64_t));
cleanup:
    return st;
}
