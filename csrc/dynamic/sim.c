/*
 * sim.c -- the event engine of wpart.dynamic (spec 001 §5.4-5.6): ONE protocol driver (action
 * processing, evaluation requests and windows, trace, exactly-once coverage check) over an
 * event queue, fed either by simulated devices (wpart_dynamic_sim_run: deterministic, below)
 * or by a real event source (wpart_dynamic_drive: worker threads and an evaluator report
 * block and evaluation completions). Both are sets of handlers on the one event loop of
 * event_loop.c (queue, clock, polling, dispatch by type; the real source through its wait
 * hook), as are the multi-kernel runs of csrc/multikernel/sim.c: new kinds of events are new event types
 * and handlers, not a new loop.
 *
 * Per PU: a FIFO of assigned blocks (a balancer may push several at once); the head runs
 * transfer then compute. Compute progress is integrated over the PU's slowdown s(t): a block
 * of D nominal seconds keeps (rem, t_last); a RATE_CHANGE on a busy PU moves rem forward and
 * reschedules COMP_DONE under a new version, so the old event is dropped as stale. Idle time is
 * split into barrier / eval / starved / other by asking the balancer (and by the engine's own
 * evaluation holds) whenever an idle PU's situation may have changed.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sim_engine.h"

/* wpart.dynamic.TRACE_DTYPE views these records: its offsets are these */
_Static_assert(sizeof(wpart_dynamic_trace_t) == 104 &&
                   offsetof(wpart_dynamic_trace_t, block) == 8 &&
                   offsetof(wpart_dynamic_trace_t, kind) == 32 &&
                   offsetof(wpart_dynamic_trace_t, t_assign) == 48,
               "the block record's layout (TRACE_DTYPE)");

wpart_status_t wpart_i_sim_grow(void **p, int64_t *cap, int64_t need, size_t sz, const char *what)
{
    wpart_status_t st = WPART_OK;
    if (need <= *cap) {
        return WPART_OK;
    }
    int64_t nc = *cap > 0 ? *cap : 64;
    while (nc < need) {
        nc *= 2;
    }
    void *q = wpart_i_realloc(*p, nc, sz);
    if (!q) {
        WPART_FAIL(WPART_ENOMEM, "%s (%" PRId64 " entries)", what, nc);
    }
    *p = q;
    *cap = nc;
cleanup:
    return st;
}

void wpart_dynamic_sim_options_init(wpart_dynamic_sim_options_t *o)
{
    *o = (wpart_dynamic_sim_options_t){.eval_mode = WPART_DYN_EVAL_CONST, .eval_cost = 0.1,
                                       .eval_scale = 1.0, .record_trace = 1};
}

void wpart_dynamic_sim_result_free(wpart_dynamic_sim_result_t *r)
{
    if (!r) {
        return;
    }
    free(r->trace);
    free(r->busy);
    free(r->idle);
    free(r->idle_breakdown);
    free(r->elements);
    free(r->blocks);
    free(r->eval_windows);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------------ validation ------- */

static wpart_status_t check_inputs(const wpart_dynamic_platform_t *pl,
                                   const wpart_dynamic_balancer_t *b,
                                   const wpart_dynamic_sim_options_t *o)
{
    wpart_status_t st;
    if (!pl || !b) {
        return wpart_i_error(WPART_EINVAL, "platform and balancer must not be NULL");
    }
    if (pl->n < 1 || !pl->dev) {
        return wpart_i_error(WPART_EINVAL, "platform needs n >= 1 devices");
    }
    if (pl->n != wpart_dynamic_balancer_n_pu(b)) {
        return wpart_i_error(WPART_EINVAL, "platform has %d PUs but the balancer has n_pu = %d",
                             (int)pl->n, (int)wpart_dynamic_balancer_n_pu(b));
    }
    for (int32_t p = 0; p < pl->n; p++) {
        if ((st = wpart_dynamic_device_check(&pl->dev[p])) != WPART_OK) {
            return wpart_i_error(st, "device %d: %s", (int)p, wpart_last_error());
        }
    }
    if (pl->n_fluct < 0 || (pl->n_fluct > 0 && !pl->fluct) || pl->n_onoff < 0 ||
        (pl->n_onoff > 0 && !pl->onoff)) {
        return wpart_i_error(WPART_EINVAL, "fluctuation or on/off arrays missing");
    }
    for (int64_t i = 0; i < pl->n_fluct; i++) {
        const wpart_dynamic_fluct_t *f = &pl->fluct[i];
        if (f->pu < 0 || f->pu >= pl->n || !isfinite(f->t_start) || !(f->t_end > f->t_start) ||
            !(f->factor > 0 && isfinite(f->factor))) {
            return wpart_i_error(WPART_EINVAL,
                                 "fluctuation %" PRId64 " needs a PU in range, finite t_start < "
                                 "t_end and a finite factor > 0",
                                 i);
        }
    }
    for (int64_t i = 0; i < pl->n_onoff; i++) {
        const wpart_dynamic_onoff_t *f = &pl->onoff[i];
        if (f->pu < 0 || f->pu >= pl->n || !(f->mu_on > 0 && isfinite(f->mu_on)) ||
            !(f->mu_off > 0 && isfinite(f->mu_off)) || !(f->f_busy > 0 && isfinite(f->f_busy))) {
            return wpart_i_error(WPART_EINVAL,
                                 "on/off entry %" PRId64 " needs a PU in range and finite "
                                 "mu_on, mu_off, f_busy > 0",
                                 i);
        }
    }
    if (o->eval_mode < WPART_DYN_EVAL_CONST || o->eval_mode > WPART_DYN_EVAL_MEASURED) {
        return wpart_i_error(WPART_EINVAL, "unknown eval_mode %d", (int)o->eval_mode);
    }
    if (!(o->eval_cost >= 0 && isfinite(o->eval_cost)) ||
        !(o->eval_a >= 0 && isfinite(o->eval_a)) ||
        !(o->eval_b >= 0 && isfinite(o->eval_b)) ||
        !(o->eval_scale >= 0 && isfinite(o->eval_scale))) {
        return wpart_i_error(WPART_EINVAL, "eval costs must be finite and >= 0");
    }
    if (!(o->dispatch_overhead >= 0 && isfinite(o->dispatch_overhead))) {
        return wpart_i_error(WPART_EINVAL, "dispatch_overhead must be finite and >= 0, got %g",
                             o->dispatch_overhead);
    }
    if (o->max_events < 0) {
        return wpart_i_error(WPART_EINVAL, "max_events must be >= 0");
    }
    return WPART_OK;
}

/* ------------------------------------------------------------------ idle accounting -- */

static int classify(const eng_t *e, int32_t p)
{
    if (e->pu[p].held > 0) {
        return WPART_DYN_IB_EVAL;
    }
    switch (wpart_dynamic_balancer_idle_reason(e->b, p)) {
    case WPART_DYN_IDLE_BARRIER:
        return WPART_DYN_IB_BARRIER;
    case WPART_DYN_IDLE_EVAL:
        return WPART_DYN_IB_EVAL;
    case WPART_DYN_IDLE_STARVED:
        return WPART_DYN_IB_STARVED;
    default:
        return WPART_DYN_IB_OTHER;
    }
}

static inline void idle_close(eng_t *e, int32_t p, double t)
{
    pu_t *u = &e->pu[p];
    if (t > u->idle_since) {
        e->r->idle_breakdown[4 * (int64_t)p + u->reason] += t - u->idle_since;
    }
    u->idle_since = t;
}

/* Re-reads the reason of every idle PU; a changed reason closes the segment at t. */
static void reclassify(eng_t *e, double t)
{
    if (wpart_dynamic_balancer_done(e->b)) {
        return; /* final segments close at the makespan (a late evaluation is not idle time) */
    }
    for (int32_t p = 0; p < e->n; p++) {
        if (e->pu[p].running == 0) {
            int r = classify(e, p);
            if (r != e->pu[p].reason) {
                idle_close(e, p, t);
                e->pu[p].reason = r;
            }
        }
    }
}

/* ------------------------------------------------------------------ blocks ----------- */

static inline double slowdown_now(const eng_t *e, int32_t p, double t)
{
    const wpart_dynamic_platform_t *pl = e->pl;
    double s = pl->n_fluct ? wpart_dynamic_slowdown(pl->fluct, pl->n_fluct, p, t) : 1.0;
    for (int64_t i = 0; i < pl->n_onoff; i++) {
        if (pl->onoff[i].pu == p && e->onoff_state[i]) {
            s *= pl->onoff[i].f_busy;
        }
    }
    return s;
}

static wpart_status_t begin_compute(eng_t *e, int32_t p, double t)
{
    pu_t *u = &e->pu[p];
    u->running = 2;
    u->rem = u->D;
    u->t_last = t;
    u->version++;
    return wpart_i_loop_push(&e->loop, t + u->D * u->s, EV_COMP_DONE, p, u->version);
}

/* PU p is idle, not held, with a queued head: start it at t. */
static wpart_status_t start_block(eng_t *e, int32_t p, double t)
{
    pu_t *u = &e->pu[p];
    const wpart_dynamic_device_t *d = &e->pl->dev[p];
    wpart_dynamic_trace_t *rc = &e->rec[u->head];
    uint64_t seed = e->o->seed;
    int64_t j = u->nexec++;
    double x = (double)rc->size;
    idle_close(e, p, t);
    double ov = e->o->dispatch_overhead;
    if (ov > 0) {
        e->r->idle_breakdown[4 * (int64_t)p + WPART_DYN_IB_OTHER] += ov;
    }
    double tx = wpart_dynamic_device_xfer(d, x, j == 0);
    if (tx > 0 && d->sigma_xfer > 0) {
        tx *= wpart_dynamic_noise_lognormal(seed, p, WPART_DYN_NOISE_XFER, j, d->sigma_xfer);
    }
    double D = wpart_dynamic_curve_eval(&d->comp, x);
    if (d->sigma_comp > 0) {
        D *= wpart_dynamic_noise_lognormal(seed, p, WPART_DYN_NOISE_COMP, j, d->sigma_comp);
    }
    if (d->p_out > 0 &&
        wpart_dynamic_noise_uniform(seed, p, WPART_DYN_NOISE_OUTLIER, j, 0) < d->p_out) {
        D *= d->f_out;
    }
    u->D = D;
    rc->t_xfer_start = t + ov;
    rc->t_xfer = tx;
    rc->t_comp_start = rc->t_xfer_start + tx;
    if (rc->t_comp_start > t) {
        u->running = 1;
        return wpart_i_loop_push(&e->loop, rc->t_comp_start, EV_XFER_DONE, p, u->head);
    }
    return begin_compute(e, p, t);
}

static wpart_status_t new_slot(eng_t *e, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    if (e->free_slot >= 0) {
        *out = e->free_slot;
        e->free_slot = e->next[*out];
        return WPART_OK;
    }
    int64_t cap = e->cap_slot;
    WPART_CHECK(wpart_i_sim_grow((void **)&e->rec, &cap, e->n_slot + 1, sizeof *e->rec, "trace"));
    cap = e->cap_slot;
    WPART_CHECK(wpart_i_sim_grow((void **)&e->next, &cap, e->n_slot + 1, sizeof *e->next, "trace links"));
    e->cap_slot = cap;
    *out = e->n_slot++;
cleanup:
    return st;
}

static wpart_status_t eval_request(eng_t *e, const wpart_dynamic_action_t *a, double t)
{
    wpart_status_t st = WPART_OK;
    const wpart_dynamic_sim_options_t *o = e->o;
    int32_t trig = a->trigger_pu;
    if (trig < -1 || trig >= e->n) {
        WPART_FAIL(WPART_EINVAL, "balancer %s: evaluation trigger PU %d out of range",
                   wpart_dynamic_balancer_name(e->b), (int)trig);
    }
    WPART_CHECK(wpart_i_sim_grow((void **)&e->ewin, &e->cap_ewin, 3 * (e->n_ewin + 1), sizeof(double),
                     "evaluation windows"));
    e->ewin[3 * e->n_ewin] = t;
    e->ewin[3 * e->n_ewin + 1] = NAN;
    e->ewin[3 * e->n_ewin + 2] = (double)trig;
    e->n_ewin++;
    e->evals_pending++;
    if (e->src) { /* real execution: the source runs it and reports its end */
        WPART_CHECK(e->src->eval(e->src->ctx, a->token, trig));
        goto cleanup;
    }
    double w0 = o->eval_mode == WPART_DYN_EVAL_MEASURED ? wpart_i_now() : 0.0;
    WPART_CHECK(wpart_dynamic_balancer_eval_run_ctl(e->b, a->token, o->control));
    if (o->control) {
        /* an evaluation (model fits over every sample so far) can take far longer than the
         * POLL_EVERY events between the main loop's polls: poll after each one too */
        wpart_dynamic_balancer_stats_t bs;
        wpart_dynamic_balancer_stats(e->b, &bs);
        WPART_CHECK(wpart_i_poll(o->control, e->w0, (double)bs.completed,
                                 (double)wpart_dynamic_balancer_total(e->b)));
    }
    double c;
    if (o->eval_mode == WPART_DYN_EVAL_MEASURED) {
        c = (wpart_i_now() - w0) * o->eval_scale;
    } else if (o->eval_mode == WPART_DYN_EVAL_MODEL) {
        c = o->eval_a + o->eval_b * (double)e->completed_blocks;
    } else {
        c = o->eval_cost;
    }
    for (int32_t p = 0; p < e->n; p++) {
        if (trig == -1 || p == trig) {
            e->pu[p].held++;
        }
    }
    e->r->eval_time += c;
    e->ewin[3 * e->n_ewin - 2] = t + c;
    if (++e->evals_since_block > STALL_EVALS) {
        WPART_FAIL(WPART_EINTERNAL, "balancer stalled: %s requested %d evaluations in a row "
                   "without issuing a block", wpart_dynamic_balancer_name(e->b), STALL_EVALS);
    }
    WPART_CHECK(wpart_i_loop_push(&e->loop, t + c, EV_EVAL_DONE, trig, a->token));
cleanup:
    return st;
}

/* Applies the actions in e->acts at time t (spec 001 §5.4), then re-reads idle reasons. */
wpart_status_t wpart_i_sim_process_actions(eng_t *e, double t)
{
    wpart_status_t st = WPART_OK;
    int64_t na = e->acts.n;
    for (int64_t i = 0; i < na; i++) {
        const wpart_dynamic_action_t *a = &e->acts.a[i];
        if (a->kind == WPART_DYN_ACT_EVAL) {
            WPART_CHECK(eval_request(e, a, t));
            continue;
        }
        const wpart_dynamic_assign_t *as = &a->a;
        if (as->pu < 0 || as->pu >= e->n || as->size < 1) {
            WPART_FAIL(WPART_EINVAL, "balancer %s assigned a bad block (PU %d, size %" PRId64 ")",
                       wpart_dynamic_balancer_name(e->b), (int)as->pu, as->size);
        }
        int64_t s;
        WPART_CHECK(new_slot(e, &s));
        e->rec[s] = (wpart_dynamic_trace_t){
            .pu = as->pu, .block = as->block_id, .offset = as->offset, .size = as->size,
            .kind = as->kind, .vstep = as->vstep, .model_version = as->model_version,
            .t_assign = t, .t_xfer_start = NAN, .t_comp_start = NAN, .t_end = NAN,
            .pred_end = as->pred_end, .t_xfer = NAN, .t_comp = NAN}; /* (the pads 0) */
        e->next[s] = -1;
        WPART_CHECK(wpart_i_sim_grow((void **)&e->span, &e->cap_span, e->n_span + 1, sizeof *e->span,
                         "coverage table"));
        e->span[e->n_span].offset = as->offset;
        e->span[e->n_span].size = as->size;
        e->n_span++;
        e->in_flight++;
        e->evals_since_block = 0;
        if (e->src) { /* a real worker runs it */
            WPART_CHECK(e->src->submit(e->src->ctx, as));
            continue;
        }
        pu_t *u = &e->pu[as->pu];
        if (u->head < 0) {
            u->head = u->tail = s;
        } else {
            e->next[u->tail] = s;
            u->tail = s;
        }
        if (u->running == 0 && u->held == 0) {
            WPART_CHECK(start_block(e, as->pu, t));
        }
    }
    if (!e->src) {
        reclassify(e, t);
    }
cleanup:
    return st;
}

/* ------------------------------------------------------------------ event handlers --- */

static wpart_status_t on_comp_done(eng_t *e, int32_t p, double t)
{
    wpart_status_t st = WPART_OK;
    pu_t *u = &e->pu[p];
    int64_t s = u->head;
    wpart_dynamic_trace_t *rc = &e->rec[s];
    rc->t_end = t;
    rc->t_comp = t - rc->t_comp_start;
    wpart_dynamic_sim_result_t *r = e->r;
    r->busy[p] += rc->t_xfer + rc->t_comp;
    r->elements[p] += rc->size;
    r->blocks[p]++;
    r->blocks_per_kind[(rc->kind >= 0 && rc->kind < 4) ? rc->kind : 3]++;
    if (t > e->makespan) {
        e->makespan = t;
    }
    wpart_dynamic_completion_t c = {p, rc->block, rc->t_xfer, rc->t_comp, t};
    /* pop the head; recycle the slot unless the trace keeps it */
    u->head = e->next[s];
    if (u->head < 0) {
        u->tail = -1;
    }
    if (!e->o->record_trace) {
        e->next[s] = e->free_slot;
        e->free_slot = s;
    }
    u->running = 0;
    u->idle_since = t;
    u->reason = WPART_DYN_IB_OTHER;
    e->in_flight--;
    e->completed_blocks++;
    if (u->head >= 0 && u->held == 0) {
        WPART_CHECK(start_block(e, p, t));
    }
    WPART_CHECK(wpart_dynamic_balancer_complete(e->b, &c, &e->acts));
    WPART_CHECK(wpart_i_sim_process_actions(e, t));
cleanup:
    return st;
}

wpart_status_t wpart_i_sim_on_eval_done(eng_t *e, int32_t trig, int64_t token, double t)
{
    wpart_status_t st = WPART_OK;
    e->evals_pending--;
    if (e->src && token >= 1 && token <= e->n_ewin) { /* tokens are 1, 2, ... in order */
        e->ewin[3 * (token - 1) + 1] = t;
    }
    for (int32_t p = 0; p < e->n; p++) {
        if ((trig == -1 || p == trig) && e->pu[p].held > 0) {
            e->pu[p].held--;
        }
    }
    WPART_CHECK(wpart_dynamic_balancer_eval_done(e->b, token, t, &e->acts));
    for (int32_t p = 0; p < e->n && !e->src; p++) {
        pu_t *u = &e->pu[p];
        if (u->running == 0 && u->held == 0 && u->head >= 0) {
            WPART_CHECK(start_block(e, p, t));
        }
    }
    WPART_CHECK(wpart_i_sim_process_actions(e, t));
cleanup:
    return st;
}

static wpart_status_t on_rate_change(eng_t *e, int32_t p, int64_t k, double t)
{
    wpart_status_t st = WPART_OK;
    const wpart_dynamic_platform_t *pl = e->pl;
    if (k >= 0) { /* an on/off toggle: flip, then schedule the next one */
        const wpart_dynamic_onoff_t *f = &pl->onoff[k];
        e->onoff_state[k] = !e->onoff_state[k];
        int64_t j = (e->onoff_count[k]++) * pl->n_onoff + k;
        double mu = e->onoff_state[k] ? f->mu_on : f->mu_off;
        double u01 = wpart_dynamic_noise_uniform(e->o->seed, p, WPART_DYN_NOISE_ONOFF, j, 0);
        WPART_CHECK(wpart_i_loop_push(&e->loop, t - mu * log1p(-u01), EV_RATE_CHANGE, p, k));
    }
    pu_t *u = &e->pu[p];
    double s = slowdown_now(e, p, t);
    if (s == u->s) {
        return WPART_OK;
    }
    if (u->running == 2) {
        u->rem -= (t - u->t_last) / u->s;
        if (u->rem < 0) {
            u->rem = 0;
        }
        u->t_last = t;
        u->version++;
        WPART_CHECK(wpart_i_loop_push(&e->loop, t + u->rem * s, EV_COMP_DONE, p, u->version));
    }
    u->s = s;
cleanup:
    return st;
}

/* ------------------------------------------------------------------ the run ---------- */

wpart_status_t wpart_i_sim_settle(eng_t *e)
{
    if (e->in_flight != 0 || e->evals_pending != 0) {
        return WPART_OK;
    }
    if (wpart_dynamic_balancer_done(e->b)) {
        e->loop.stop = 1;
        return WPART_OK;
    }
    wpart_dynamic_balancer_stats_t bs;
    wpart_dynamic_balancer_stats(e->b, &bs);
    if (e->src) {
        return wpart_i_error(WPART_EINTERNAL,
                             "balancer stalled: %s has no block or evaluation in flight but is "
                             "not done (%" PRId64 " of %" PRId64 " elements completed)",
                             wpart_dynamic_balancer_name(e->b), bs.completed,
                             wpart_dynamic_balancer_total(e->b));
    }
    return wpart_i_error(WPART_EINTERNAL,
                         "balancer stalled: %s has no block or evaluation in flight but is not "
                         "done (%" PRId64 " of %" PRId64 " elements completed, t = %g)",
                         wpart_dynamic_balancer_name(e->b), bs.completed,
                         wpart_dynamic_balancer_total(e->b), e->makespan);
}

static void progress(void *ctx, double *done, double *total)
{
    const eng_t *e = ctx;
    wpart_dynamic_balancer_stats_t bs;
    wpart_dynamic_balancer_stats(e->b, &bs);
    *done = (double)bs.completed;
    *total = (double)wpart_dynamic_balancer_total(e->b);
}

/* The handlers of part 1's event types on the engine's loop (event_loop.h). */
static wpart_status_t h_comp_done(void *ctx, wpart_i_loop_t *lp, const wpart_i_event_t *ev)
{
    eng_t *e = ctx;
    (void)lp;
    if (ev->arg != e->pu[ev->pu].version || e->pu[ev->pu].running != 2) {
        e->r->n_stale++;
        return WPART_OK; /* superseded by a rate change: nothing changed */
    }
    wpart_status_t st = on_comp_done(e, ev->pu, ev->t);
    return st != WPART_OK ? st : wpart_i_sim_settle(e);
}

static wpart_status_t h_xfer_done(void *ctx, wpart_i_loop_t *lp, const wpart_i_event_t *ev)
{
    eng_t *e = ctx;
    (void)lp;
    wpart_status_t st = begin_compute(e, ev->pu, ev->t);
    return st != WPART_OK ? st : wpart_i_sim_settle(e);
}

static wpart_status_t h_eval_done(void *ctx, wpart_i_loop_t *lp, const wpart_i_event_t *ev)
{
    eng_t *e = ctx;
    (void)lp;
    wpart_status_t st = wpart_i_sim_on_eval_done(e, ev->pu, ev->arg, ev->t);
    return st != WPART_OK ? st : wpart_i_sim_settle(e);
}

static wpart_status_t h_rate_change(void *ctx, wpart_i_loop_t *lp, const wpart_i_event_t *ev)
{
    eng_t *e = ctx;
    (void)lp;
    wpart_status_t st = on_rate_change(e, ev->pu, ev->arg, ev->t);
    return st != WPART_OK ? st : wpart_i_sim_settle(e);
}

static int span_cmp(const void *a, const void *b)
{
    const span_t *x = a, *y = b;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* P1: the assigned blocks are disjoint and cover [0, W) exactly once, all completed. */
static wpart_status_t check_coverage(eng_t *e)
{
    wpart_status_t st = WPART_OK;
    int64_t W = wpart_dynamic_balancer_total(e->b);
    int sorted = 1;
    for (int64_t i = 1; i < e->n_span && sorted; i++) {
        sorted = e->span[i - 1].offset <= e->span[i].offset;
    }
    if (!sorted) {
        qsort(e->span, (size_t)e->n_span, sizeof *e->span, span_cmp);
    }
    int64_t at = 0;
    for (int64_t i = 0; i < e->n_span; i++) {
        if (e->span[i].offset != at) {
            WPART_FAIL(WPART_EINTERNAL,
                       "coverage invariant violated (balancer %s): element %" PRId64
                       " is %s",
                       wpart_dynamic_balancer_name(e->b),
                       e->span[i].offset > at ? at : e->span[i].offset,
                       e->span[i].offset > at ? "never assigned" : "assigned twice");
        }
        at += e->span[i].size;
    }
    if (at != W || e->in_flight != 0) {
        WPART_FAIL(WPART_EINTERNAL,
                   "coverage invariant violated (balancer %s): %" PRId64 " of %" PRId64
                   " elements assigned, %" PRId64 " blocks unfinished",
                   wpart_dynamic_balancer_name(e->b), at, W, e->in_flight);
    }
cleanup:
    return st;
}

wpart_status_t wpart_i_sim_finish(eng_t *e)
{
    wpart_status_t st = WPART_OK;
    wpart_dynamic_sim_result_t *r = e->r;
    if (!r->stopped) {
        WPART_CHECK(check_coverage(e));
    }
    r->makespan = e->makespan;
    for (int32_t p = 0; p < e->n; p++) {
        pu_t *u = &e->pu[p];
        if (!e->src && u->running == 0 && e->makespan > u->idle_since) {
            r->idle_breakdown[4 * (int64_t)p + u->reason] += e->makespan - u->idle_since;
        }
        r->idle[p] = e->makespan - r->busy[p];
    }
    wpart_dynamic_balancer_stats_t bs;
    wpart_dynamic_balancer_stats(e->b, &bs);
    r->n_evals = bs.n_evals;
    r->n_barriers = bs.n_barriers;
    r->n_blocks = e->completed_blocks;
    if (e->o->record_trace) {
        r->trace = e->rec;
        r->n_trace = e->n_slot;
        e->rec = NULL;
    }
    r->eval_windows = e->ewin;
    r->n_eval_windows = e->n_ewin;
    e->ewin = NULL;
cleanup:
    return st;
}

wpart_status_t wpart_i_sim_open(eng_t *e, wpart_dynamic_sim_result_t *out)
{
    wpart_status_t st = WPART_OK;
    memset(e, 0, sizeof *e);
    e->free_slot = -1;
    if (!out) {
        WPART_FAIL(WPART_EINVAL, "out is NULL");
    }
    memset(out, 0, sizeof *out);
cleanup:
    return st;
}

wpart_status_t wpart_i_sim_alloc(eng_t *e, wpart_dynamic_balancer_t *b,
                                 const wpart_dynamic_sim_options_t *o,
                                 wpart_dynamic_sim_result_t *out, int32_t n, const char *what)
{
    wpart_status_t st = WPART_OK;
    e->b = b;
    e->o = o;
    e->r = out;
    e->n = n;
    out->n = n;
    out->busy = wpart_i_calloc(n, sizeof(double));
    out->idle = wpart_i_calloc(n, sizeof(double));
    out->idle_breakdown = wpart_i_calloc(4 * (int64_t)n, sizeof(double));
    out->elements = wpart_i_calloc(n, sizeof(int64_t));
    out->blocks = wpart_i_calloc(n, sizeof(int64_t));
    e->pu = wpart_i_calloc(n, sizeof(pu_t));
    int64_t mxa = wpart_dynamic_balancer_max_actions(b);
    e->acts.a = wpart_i_calloc(mxa, sizeof(wpart_dynamic_action_t));
    e->acts.cap = mxa;
    if (!out->busy || !out->idle || !out->idle_breakdown || !out->elements || !out->blocks ||
        !e->pu || !e->acts.a) {
        WPART_FAIL(WPART_ENOMEM, "%s for %d PUs", what, (int)n);
    }
cleanup:
    return st;
}

wpart_status_t wpart_i_sim_release(eng_t *e, wpart_dynamic_sim_result_t *out, wpart_status_t st)
{
    if (st != WPART_OK) {
        wpart_dynamic_sim_result_free(out);
    }
    wpart_i_loop_free(&e->loop);
    free(e->rec);
    free(e->next);
    free(e->span);
    free(e->pu);
    free(e->onoff_state);
    free(e->onoff_count);
    free(e->acts.a);
    free(e->ewin);
    return st;
}

wpart_status_t wpart_dynamic_sim_run(const wpart_dynamic_platform_t *pl,
                                     wpart_dynamic_balancer_t *b,
                                     const wpart_dynamic_sim_options_t *opt,
                                     wpart_dynamic_sim_result_t *out)
{
    wpart_status_t st = WPART_OK;
    wpart_dynamic_sim_options_t defaults;
    eng_t e;
    WPART_CHECK(wpart_i_sim_open(&e, out));
    if (!opt) {
        wpart_dynamic_sim_options_init(&defaults);
        opt = &defaults;
    }
    WPART_CHECK(check_inputs(pl, b, opt));
    double w0 = wpart_i_now();
    e.w0 = w0;
    int32_t n = pl->n;
    e.pl = pl;
    WPART_CHECK(wpart_i_sim_alloc(&e, b, opt, out, n, "simulator state"));
    e.onoff_state = wpart_i_calloc(pl->n_onoff + 1, sizeof(int));
    e.onoff_count = wpart_i_calloc(pl->n_onoff + 1, sizeof(int64_t));
    if (!e.onoff_state || !e.onoff_count) {
        WPART_FAIL(WPART_ENOMEM, "simulator state for %d PUs", (int)n);
    }
    WPART_CHECK(
        wpart_i_loop_init(&e.loop, 4 * (int64_t)n + 2 * pl->n_fluct + pl->n_onoff + 16, &e));
    for (int32_t p = 0; p < n; p++) {
        e.pu[p].head = e.pu[p].tail = -1;
        e.pu[p].s = slowdown_now(&e, p, 0.0);
        e.pu[p].reason = WPART_DYN_IB_OTHER;
    }
    /* the load timeline: schedule breakpoints, then the first on/off toggles */
    for (int64_t i = 0; i < pl->n_fluct; i++) {
        const wpart_dynamic_fluct_t *f = &pl->fluct[i];
        if (f->t_start > 0) {
            WPART_CHECK(wpart_i_loop_push(&e.loop, f->t_start, EV_RATE_CHANGE, f->pu, -1));
        }
        if (f->t_end > 0 && isfinite(f->t_end)) {
            WPART_CHECK(wpart_i_loop_push(&e.loop, f->t_end, EV_RATE_CHANGE, f->pu, -1));
        }
    }
    for (int64_t k = 0; k < pl->n_onoff; k++) {
        const wpart_dynamic_onoff_t *f = &pl->onoff[k];
        double u01 = wpart_dynamic_noise_uniform(opt->seed, f->pu, WPART_DYN_NOISE_ONOFF, k, 0);
        e.onoff_count[k] = 1;
        WPART_CHECK(wpart_i_loop_push(&e.loop, -f->mu_off * log1p(-u01), EV_RATE_CHANGE,
                                          f->pu, k));
    }
    WPART_CHECK(wpart_dynamic_balancer_start(b, 0.0, &e.acts));
    WPART_CHECK(wpart_i_sim_process_actions(&e, 0.0));
    int64_t W = wpart_dynamic_balancer_total(b);
    wpart_i_loop_on(&e.loop, EV_XFER_DONE, h_xfer_done);
    wpart_i_loop_on(&e.loop, EV_COMP_DONE, h_comp_done);
    wpart_i_loop_on(&e.loop, EV_EVAL_DONE, h_eval_done);
    wpart_i_loop_on(&e.loop, EV_RATE_CHANGE, h_rate_change);
    e.loop.control = opt->control;
    e.loop.w0 = w0;
    e.loop.max_events = opt->max_events;
    e.loop.progress = progress;
    WPART_CHECK(wpart_i_sim_settle(&e));
    st = wpart_i_loop_run(&e.loop);
    out->n_events = e.loop.n_events;
    WPART_CHECK(st);
    if (!e.loop.stop) {
        WPART_FAIL(WPART_EINTERNAL, "event queue empty with work in flight");
    }
    if (opt->max_events > 0 && out->n_events > opt->max_events) {
        WPART_FAIL(WPART_ELIMIT, "more than max_events = %" PRId64 " events", opt->max_events);
    }
    WPART_CHECK(wpart_i_sim_finish(&e));
    if (opt->control && opt->control->progress) {
        opt->control->progress(opt->control->ctx, (double)W, (double)W);
    }
    out->wall_seconds = wpart_i_now() - w0;
cleanup:
    return wpart_i_sim_release(&e, out, st);
}
