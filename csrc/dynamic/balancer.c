/*
 * balancer.c -- the common layer of every wpart.dynamic balancer (spec 001 §5.2): one cursor,
 * the block table (exactly-once bookkeeping), validation of completions, counters, the
 * published block-size series and the step shares.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_internal.h"

static wpart_status_t grow(void **p, int64_t *cap, int64_t need, size_t sz)
{
    wpart_status_t st = WPART_OK;
    if (need <= *cap) {
        return WPART_OK;
    }
    int64_t nc = *cap > 0 ? *cap : 16;
    while (nc < need) {
        if (nc > INT64_MAX / 2) {
            WPART_FAIL(WPART_ELIMIT, "balancer table too large");
        }
        nc *= 2;
    }
    int64_t bytes;
    if (!wpart_i_mul_size(nc, (int64_t)sz, &bytes)) {
        WPART_FAIL(WPART_ELIMIT, "balancer table too large");
    }
    void *q = wpart_i_realloc(*p, nc, sz);
    if (!q) {
        WPART_FAIL(WPART_ENOMEM, "balancer table (%" PRId64 " entries)", nc);
    }
    *p = q;
    *cap = nc;
cleanup:
    return st;
}

wpart_status_t wpart_i_dyn_base_init(wpart_dynamic_balancer_t *b, const wpart_i_dyn_vtable_t *vt,
                                     int32_t n, int64_t total, int64_t max_actions)
{
    wpart_status_t st = WPART_OK;
    if (n < 1) {
        return wpart_i_error(WPART_EINVAL, "n_pu must be >= 1, got %d", (int)n);
    }
    if (total < 1) {
        return wpart_i_error(WPART_EINVAL, "total must be >= 1, got %" PRId64, total);
    }
    memset(b, 0, sizeof *b);
    b->vt = vt;
    b->n = n;
    b->total = total;
    b->max_actions = max_actions > n + 1 ? max_actions : n + 1;
    b->next_token = 1;
    b->shares = wpart_i_calloc(n, sizeof(double));
    if (!b->shares) {
        WPART_FAIL(WPART_ENOMEM, "shares");
    }
    WPART_CHECK(grow((void **)&b->blk, &b->cap_blk, 4 * (int64_t)n, sizeof(wpart_i_dyn_block_t)));
cleanup:
    if (st != WPART_OK) {
        free(b->shares);
        free(b->blk);
        b->shares = NULL;
        b->blk = NULL;
    }
    return st;
}

wpart_status_t wpart_i_dyn_new(size_t size, const wpart_i_dyn_vtable_t *vt, int32_t n,
                               int64_t total, int64_t max_actions, const char *what,
                               wpart_dynamic_balancer_t **obj)
{
    wpart_status_t st = WPART_OK;
    wpart_dynamic_balancer_t *b = wpart_i_calloc(1, size);
    *obj = NULL;
    if (!b) {
        WPART_FAIL(WPART_ENOMEM, "%s balancer", what);
    }
    WPART_CHECK(wpart_i_dyn_base_init(b, vt, n, total, max_actions));
    *obj = b;
    b = NULL;
cleanup:
    free(b);
    return st;
}

wpart_status_t wpart_i_dyn_done(wpart_dynamic_balancer_t *b, int ok, const char *what,
                                wpart_dynamic_balancer_t **out)
{
    wpart_status_t st = WPART_OK;
    if (!ok) {
        wpart_dynamic_balancer_free(b);
        WPART_FAIL(WPART_ENOMEM, "%s balancer", what);
    }
    *out = b;
cleanup:
    return st;
}

wpart_status_t wpart_i_dyn_assign_each(wpart_dynamic_balancer_t *b, wpart_dynamic_actions_t *out,
                                       const int64_t *sizes, int64_t size, int32_t kind,
                                       int32_t vstep, int64_t *got, int64_t *issued)
{
    wpart_status_t st = WPART_OK;
    int64_t n_issued = 0;
    for (int32_t p = 0; p < b->n; p++) {
        int64_t a = 0;
        WPART_CHECK(wpart_i_dyn_assign(b, out, p, sizes ? sizes[p] : size, 1, kind, vstep, 0, NAN,
                                       &a));
        if (got) {
            got[p] = a;
        }
        n_issued += a > 0;
    }
cleanup:
    if (issued) {
        *issued = n_issued;
    }
    return st;
}

static wpart_status_t push(wpart_dynamic_actions_t *out, const wpart_dynamic_action_t *a)
{
    wpart_status_t st = WPART_OK;
    if (!out || !out->a || out->n >= out->cap) {
        WPART_FAIL(WPART_ELIMIT, "action buffer too small (capacity %" PRId64 ")",
                   out ? out->cap : 0);
    }
    out->a[out->n++] = *a;
cleanup:
    return st;
}

/* The block-size series of a balancer without a model: PU pu's block size is now size (at the
 * last time seen). A row when it changed; changes at one time share a row. */
static wpart_status_t auto_series(wpart_dynamic_balancer_t *b, int32_t pu, int64_t size)
{
    wpart_status_t st = WPART_OK;
    if (!b->ser_cur) {
        b->ser_cur = wpart_i_calloc(b->n, sizeof *b->ser_cur);
        if (!b->ser_cur) {
            WPART_FAIL(WPART_ENOMEM, "block-size series");
        }
    }
    if (b->ser_cur[pu] == size) {
        return WPART_OK;
    }
    b->ser_cur[pu] = size;
    int64_t w = 4 + (int64_t)b->n;
    if (b->n_ser > 0 && b->ser[(b->n_ser - 1) * w] == b->last_now) {
        b->ser[(b->n_ser - 1) * w + 4 + pu] = (double)size;
        return WPART_OK;
    }
    if ((b->n_ser + 1) * w > WPART_I_DYN_AUTO_SERIES_MAX) {
        b->auto_series = 0; /* the series ends here: its size stays bounded */
        return WPART_OK;
    }
    st = wpart_i_dyn_series_add(b, b->last_now, 0, NAN, NAN, b->ser_cur);
cleanup:
    return st;
}

wpart_status_t wpart_i_dyn_assign(wpart_dynamic_balancer_t *b, wpart_dynamic_actions_t *out,
                                  int32_t pu, int64_t size, int64_t quantum, int32_t kind,
                                  int32_t vstep, int32_t model_version, double pred_end,
                                  int64_t *assigned)
{
    wpart_status_t st = WPART_OK;
    int64_t rem = b->total - b->cursor;
    if (assigned) {
        *assigned = 0;
    }
    if (pu < 0 || pu >= b->n) {
        return wpart_i_error(WPART_EINTERNAL, "assign to PU %d of %d", (int)pu, (int)b->n);
    }
    if (size <= 0 || rem <= 0) {
        return WPART_OK;
    }
    if (size > rem) {
        size = rem;
    }
    if (quantum < 1) {
        quantum = 1;
    }
    if (rem - size > 0 && rem - size < quantum) {
        size = rem; /* never leave a sub-quantum sliver */
    }
    WPART_CHECK(grow((void **)&b->blk, &b->cap_blk, b->n_blk + 1, sizeof(wpart_i_dyn_block_t)));
    wpart_dynamic_action_t a;
    memset(&a, 0, sizeof a);
    a.kind = WPART_DYN_ACT_ASSIGN;
    a.trigger_pu = pu;
    a.token = 0;
    a.a.pu = pu;
    a.a.kind = kind;
    a.a.vstep = vstep;
    a.a.model_version = model_version;
    a.a.block_id = b->n_blk;
    a.a.offset = b->cursor;
    a.a.size = size;
    a.a.pred_end = pred_end;
    WPART_CHECK(push(out, &a));
    b->blk[b->n_blk].offset = b->cursor;
    b->blk[b->n_blk].size = size;
    b->blk[b->n_blk].pu = pu;
    b->blk[b->n_blk].state = 1;
    b->n_blk++;
    b->cursor += size;
    b->in_flight++;
    if (assigned) {
        *assigned = size;
    }
    if (b->auto_series) {
        WPART_CHECK(auto_series(b, pu, size));
    }
cleanup:
    return st;
}

wpart_status_t wpart_i_dyn_eval(wpart_dynamic_balancer_t *b, wpart_dynamic_actions_t *out,
                                int32_t trigger_pu, int64_t *token)
{
    wpart_status_t st = WPART_OK;
    if (b->eval_in_flight && !b->multi_eval) {
        return wpart_i_error(WPART_EINTERNAL, "a second evaluation while one is in flight");
    }
    wpart_dynamic_action_t a;
    memset(&a, 0, sizeof a);
    a.kind = WPART_DYN_ACT_EVAL;
    a.trigger_pu = trigger_pu;
    a.token = b->next_token;
    a.a.pu = trigger_pu;
    a.a.block_id = -1;
    a.a.pred_end = NAN;
    WPART_CHECK(push(out, &a));
    b->eval_in_flight = b->multi_eval ? b->eval_in_flight + 1 : 1;
    b->eval_token = b->next_token++;
    b->n_evals++;
    if (token) {
        *token = b->eval_token;
    }
cleanup:
    return st;
}

wpart_status_t wpart_i_dyn_series_add(wpart_dynamic_balancer_t *b, double t, int32_t version,
                                      double T_pred, double S_eff, const int64_t *X)
{
    wpart_status_t st = WPART_OK;
    int64_t w = 4 + (int64_t)b->n;
    int64_t cap_rows = b->cap_ser;
    WPART_CHECK(grow((void **)&b->ser, &cap_rows, (b->n_ser + 1), (size_t)w * sizeof(double)));
    b->cap_ser = cap_rows;
    double *row = b->ser + b->n_ser * w;
    row[0] = t;
    row[1] = (double)version;
    row[2] = T_pred;
    row[3] = S_eff;
    for (int32_t p = 0; p < b->n; p++) {
        row[4 + p] = X ? (double)X[p] : NAN;
    }
    b->n_ser++;
cleanup:
    return st;
}

void wpart_i_dyn_set_shares(wpart_dynamic_balancer_t *b, const double *w, int overwrite)
{
    if (b->have_shares && !overwrite) {
        return;
    }
    double s = 0.0;
    for (int32_t p = 0; p < b->n; p++) {
        s += (isfinite(w[p]) && w[p] > 0) ? w[p] : 0.0;
    }
    if (!(s > 0)) {
        return;
    }
    for (int32_t p = 0; p < b->n; p++) {
        b->shares[p] = ((isfinite(w[p]) && w[p] > 0) ? w[p] : 0.0) * 100.0 / s;
    }
    b->have_shares = 1;
}

/* ---------------------------------------------------------------- the public protocol ---- */

static wpart_status_t check_out(const wpart_dynamic_balancer_t *b, wpart_dynamic_actions_t *out)
{
    wpart_status_t st = WPART_OK;
    if (!b) {
        WPART_FAIL(WPART_EINVAL, "balancer is NULL");
    }
    if (!out || !out->a || out->cap < b->max_actions) {
        WPART_FAIL(WPART_EINVAL,
                   "action buffer needs capacity >= %" PRId64 " (max_actions)",
                   b->max_actions);
    }
    out->n = 0;
cleanup:
    return st;
}

wpart_status_t wpart_dynamic_balancer_start(wpart_dynamic_balancer_t *b, double now,
                                            wpart_dynamic_actions_t *out)
{
    wpart_status_t st = WPART_OK;
    WPART_CHECK(check_out(b, out));
    if (!isfinite(now)) {
        WPART_FAIL(WPART_EINVAL, "now must be finite");
    }
    if (b->n_blk > 0 || b->eval_in_flight || b->n_evals > 0) {
        WPART_FAIL(WPART_EINVAL, "balancer already started (use a new balancer per run)");
    }
    b->last_now = now;
    st = b->vt->start(b, now, out);
cleanup:
    return st;
}

wpart_status_t wpart_dynamic_balancer_complete(wpart_dynamic_balancer_t *b,
                                               const wpart_dynamic_completion_t *c,
                                               wpart_dynamic_actions_t *out)
{
    wpart_status_t st = WPART_OK;
    WPART_CHECK(check_out(b, out));
    if (!c) {
        WPART_FAIL(WPART_EINVAL, "completion is NULL");
    }
    if (c->pu < 0 || c->pu >= b->n) {
        WPART_FAIL(WPART_EINVAL, "pu %d out of range [0, %d)", (int)c->pu, (int)b->n);
    }
    if (c->block_id < 0 || c->block_id >= b->n_blk) {
        WPART_FAIL(WPART_EINVAL, "block %" PRId64 " was never assigned", c->block_id);
    }
    wpart_i_dyn_block_t *blk = &b->blk[c->block_id];
    if (blk->pu != c->pu) {
        WPART_FAIL(WPART_EINVAL, "block %" PRId64 " was assigned to PU %d, not PU %d",
                   c->block_id, (int)blk->pu, (int)c->pu);
    }
    if (blk->state != 1) {
        WPART_FAIL(WPART_EINVAL, "block %" PRId64 " was already completed",
                   c->block_id);
    }
    if (!(isfinite(c->t_xfer) && c->t_xfer >= 0)) {
        WPART_FAIL(WPART_EINVAL, "t_xfer must be finite and >= 0, got %g", c->t_xfer);
    }
    if (!(isfinite(c->t_comp) && c->t_comp >= 0)) {
        WPART_FAIL(WPART_EINVAL, "t_comp must be finite and >= 0, got %g", c->t_comp);
    }
    if (!isfinite(c->now)) {
        WPART_FAIL(WPART_EINVAL, "now must be finite");
    }
    blk->state = 2;
    b->completed += blk->size;
    b->in_flight--;
    if (c->now > b->last_now) {
        b->last_now = c->now;
    }
    st = b->vt->complete(b, c, out);
cleanup:
    return st;
}

wpart_status_t wpart_dynamic_balancer_eval_run(wpart_dynamic_balancer_t *b, int64_t token)
{
    wpart_status_t st = WPART_OK;
    if (!b) {
        WPART_FAIL(WPART_EINVAL, "balancer is NULL");
    }
    if (!b->vt->eval_run) {
        WPART_FAIL(WPART_EINVAL, "this balancer (%s) issues no evaluations", b->vt->name);
    }
    if (token < 1 || token >= b->next_token) {
        WPART_FAIL(WPART_EINVAL, "unknown evaluation token %" PRId64, token);
    }
    st = b->vt->eval_run(b, token);
cleanup:
    return st;
}

wpart_status_t wpart_dynamic_balancer_eval_run_ctl(wpart_dynamic_balancer_t *b, int64_t token,
                                                   const wpart_control_t *control)
{
    if (!b) {
        return wpart_i_error(WPART_EINVAL, "balancer is NULL");
    }
    if (control) {
        b->eval_ctl = *control;
        b->eval_ctl.progress = NULL;   /* progress counts elements, not PUs fitted */
        b->eval_ctl.time_limit = 0.0;  /* the driver checks its own limit after the call */
    }
    b->eval_control = control ? &b->eval_ctl : NULL;
    b->eval_t0 = control ? wpart_i_now() : 0.0;
    wpart_status_t st = wpart_dynamic_balancer_eval_run(b, token);
    b->eval_control = NULL;
    return st;
}

wpart_status_t wpart_dynamic_balancer_eval_done(wpart_dynamic_balancer_t *b, int64_t token,
                                                double now, wpart_dynamic_actions_t *out)
{
    wpart_status_t st = WPART_OK;
    WPART_CHECK(check_out(b, out));
    if (token < 1 || token >= b->next_token) {
        WPART_FAIL(WPART_EINVAL, "unknown evaluation token %" PRId64, token);
    }
    if (!b->eval_in_flight || (!b->multi_eval && token != b->eval_token)) {
        WPART_FAIL(WPART_EINVAL, "evaluation %" PRId64 " is not in flight", token);
    }
    if (!isfinite(now)) {
        WPART_FAIL(WPART_EINVAL, "now must be finite");
    }
    b->eval_in_flight = b->multi_eval ? b->eval_in_flight - 1 : 0;
    if (wpart_dynamic_balancer_done(b) || !b->vt->eval_done) {
        return WPART_OK; /* a pending result after the end is discarded (A9) */
    }
    if (now > b->last_now) {
        b->last_now = now;
    }
    st = b->vt->eval_done(b, token, now, out);
cleanup:
    return st;
}

int wpart_dynamic_balancer_done(const wpart_dynamic_balancer_t *b)
{
    return b && b->cursor == b->total && b->in_flight == 0;
}

void wpart_dynamic_balancer_free(wpart_dynamic_balancer_t *b)
{
    if (!b) {
        return;
    }
    if (b->vt && b->vt->destroy) {
        b->vt->destroy(b);
    }
    free(b->blk);
    free(b->ser);
    free(b->ser_cur);
    free(b->shares);
    free(b);
}

const char *wpart_dynamic_balancer_name(const wpart_dynamic_balancer_t *b)
{
    return b && b->vt && b->vt->name ? b->vt->name : "";
}

int32_t wpart_dynamic_balancer_n_pu(const wpart_dynamic_balancer_t *b) { return b ? b->n : 0; }

int64_t wpart_dynamic_balancer_total(const wpart_dynamic_balancer_t *b) { return b ? b->total : 0; }

int64_t wpart_dynamic_balancer_max_actions(const wpart_dynamic_balancer_t *b)
{
    return b ? b->max_actions : 0;
}

int wpart_dynamic_balancer_idle_reason(const wpart_dynamic_balancer_t *b, int32_t pu)
{
    if (!b || pu < 0 || pu >= b->n) {
        return WPART_DYN_IDLE_OTHER;
    }
    if (b->cursor >= b->total) {
        return WPART_DYN_IDLE_STARVED;
    }
    return b->vt->idle_reason ? b->vt->idle_reason(b, pu) : WPART_DYN_IDLE_OTHER;
}

void wpart_dynamic_balancer_stats(const wpart_dynamic_balancer_t *b,
                                  wpart_dynamic_balancer_stats_t *out)
{
    memset(out, 0, sizeof *out);
    if (!b) {
        return;
    }
    out->cursor = b->cursor;
    out->completed = b->completed;
    out->n_blocks = b->n_blk;
    out->in_flight = b->in_flight;
    out->n_evals = b->n_evals;
    out->n_barriers = b->n_barriers;
    out->eval_in_flight = b->eval_in_flight;
}

void wpart_dynamic_balancer_series(const wpart_dynamic_balancer_t *b, const double **rows,
                                   int64_t *n_rows)
{
    *rows = b ? b->ser : NULL;
    *n_rows = b ? b->n_ser : 0;
}

int wpart_dynamic_balancer_shares(const wpart_dynamic_balancer_t *b, double *out)
{
    if (!b || !b->have_shares) {
        return 1;
    }
    memcpy(out, b->shares, (size_t)b->n * sizeof(double));
    return 0;
}

/* ---------------------------------------------------------------- Greedy and Static ---- */

typedef struct {
    wpart_dynamic_balancer_t base;
    int64_t chunk;
} greedy_t;

static wpart_status_t greedy_start(wpart_dynamic_balancer_t *b, double now,
                                   wpart_dynamic_actions_t *out)
{
    return wpart_i_dyn_assign_each(b, out, NULL, ((greedy_t *)b)->chunk, WPART_DYN_BLK_OTHER, 0,
                                   NULL, NULL);
}

static wpart_status_t greedy_complete(wpart_dynamic_balancer_t *b,
                                      const wpart_dynamic_completion_t *c,
                                      wpart_dynamic_actions_t *out)
{
    greedy_t *g = (greedy_t *)b;
    return wpart_i_dyn_assign(b, out, c->pu, g->chunk, 1, WPART_DYN_BLK_OTHER, 0, 0, NAN, NULL);
}

static const wpart_i_dyn_vtable_t greedy_vt = {
    "greedy", greedy_start, greedy_complete, NULL, NULL, NULL, NULL,
};

wpart_status_t wpart_dynamic_greedy_new(int32_t n_pu, int64_t total, int64_t chunk,
                                        wpart_dynamic_balancer_t **out)
{
    wpart_status_t st = WPART_OK;
    greedy_t *g = NULL;
    WPART_CHECK(wpart_i_dyn_out(out));
    if (chunk < 1) {
        WPART_FAIL(WPART_EINVAL, "chunk must be >= 1, got %" PRId64, chunk);
    }
    WPART_CHECK(wpart_i_dyn_new(sizeof *g, &greedy_vt, n_pu, total, (int64_t)n_pu + 1, "greedy",
                                out));
    g = (greedy_t *)*out;
    g->base.auto_series = 1;
    g->chunk = chunk;
cleanup:
    return st;
}

typedef struct {
    wpart_dynamic_balancer_t base;
    int64_t *blocks;
} static_t;

static wpart_status_t static_start(wpart_dynamic_balancer_t *b, double now,
                                   wpart_dynamic_actions_t *out)
{
    return wpart_i_dyn_assign_each(b, out, ((static_t *)b)->blocks, 0, WPART_DYN_BLK_OTHER, 0,
                                   NULL, NULL);
}

static wpart_status_t static_complete(wpart_dynamic_balancer_t *b,
                                      const wpart_dynamic_completion_t *c,
                                      wpart_dynamic_actions_t *out)
{
    return WPART_OK;
}

static void static_destroy(wpart_dynamic_balancer_t *b) { free(((static_t *)b)->blocks); }

static const wpart_i_dyn_vtable_t static_vt = {
    "static", static_start, static_complete, NULL, NULL, NULL, static_destroy,
};

wpart_status_t wpart_i_dyn_check_blocks(int32_t n_pu, const int64_t *blocks, int64_t *sum,
                                        int *overflow)
{
    wpart_status_t st = WPART_OK;
    *sum = 0;
    *overflow = 0;
    if (n_pu < 1 || !blocks) {
        WPART_FAIL(WPART_EINVAL, "blocks must hold n_pu >= 1 sizes");
    }
    for (int32_t p = 0; p < n_pu; p++) {
        if (blocks[p] < 0) {
            WPART_FAIL(WPART_EINVAL, "blocks[%d] is negative (%" PRId64 ")", (int)p,
                       blocks[p]);
        }
        if (blocks[p] > INT64_MAX - *sum) {
            *overflow = 1;
            *sum = INT64_MAX;
        } else if (!*overflow) {
            *sum += blocks[p];
        }
    }
cleanup:
    return st;
}

/* StaticPeak (baselines_pool.c) is a Static balancer under its own name. */
static const wpart_i_dyn_vtable_t static_peak_vt = {
    "static_peak", static_start, static_complete, NULL, NULL, NULL, static_destroy,
};

wpart_status_t wpart_dynamic_static_new(int32_t n_pu, const int64_t *blocks,
                                        wpart_dynamic_balancer_t **out)
{
    return wpart_i_dyn_static_new(n_pu, blocks, 0, out);
}

wpart_status_t wpart_i_dyn_static_new(int32_t n_pu, const int64_t *blocks, int peak,
                                      wpart_dynamic_balancer_t **out)
{
    wpart_status_t st = WPART_OK;
    static_t *s = NULL;
    wpart_dynamic_balancer_t *b = NULL;
    int64_t total = 0;
    WPART_CHECK(wpart_i_dyn_out(out));
    int overflow = 0;
    WPART_CHECK(wpart_i_dyn_check_blocks(n_pu, blocks, &total, &overflow));
    if (overflow) {
        WPART_FAIL(WPART_EOVERFLOW, "the sum of blocks overflows int64");
    }
    WPART_CHECK(wpart_i_dyn_new(sizeof *s, peak ? &static_peak_vt : &static_vt, n_pu, total,
                                (int64_t)n_pu + 1, "static", &b));
    s = (static_t *)b;
    s->base.auto_series = 1;
    s->blocks = wpart_i_dyn_dup(blocks, n_pu, sizeof *blocks);
    st = wpart_i_dyn_done(b, s->blocks != NULL, "static", out);
cleanup:
    return st;
}
