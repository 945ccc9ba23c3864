/*
 * sim_drive.c -- real execution with wpart.dynamic's event engine (wpart_dynamic_drive): the
 * engine of sim.c on the one event loop of event_loop.c, its events coming from an event source
 * (worker threads and an evaluator reporting block and evaluation completions, through the
 * loop's wait hook) instead of simulated devices.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_engine.h"

/* ------------------------------------------------------------------ real execution --- */

/* A block reported finished by the event source. */
static wpart_status_t on_ext_done(eng_t *e, const wpart_dynamic_done_t *d)
{
    wpart_status_t st = WPART_OK;
    if (d->block_id < 0 || d->block_id >= e->n_slot || e->rec[d->block_id].pu != d->pu ||
        !isnan(e->rec[d->block_id].t_end)) {
        return wpart_i_error(WPART_EINVAL, "event source: PU %d reported block %" PRId64
                             ", which it does not hold", (int)d->pu, d->block_id);
    }
    wpart_dynamic_trace_t *rc = &e->rec[d->block_id];
    rc->t_xfer_start = d->t_start;
    rc->t_xfer = d->t_xfer;
    rc->t_comp = d->t_comp;
    rc->t_comp_start = d->t_start + d->t_xfer;
    rc->t_end = d->t_end;
    wpart_dynamic_sim_result_t *r = e->r;
    int32_t p = d->pu;
    r->busy[p] += d->t_xfer + d->t_comp;
    r->elements[p] += rc->size;
    r->blocks[p]++;
    r->blocks_per_kind[(rc->kind >= 0 && rc->kind < 4) ? rc->kind : 3]++;
    e->makespan = d->t_end > e->makespan ? d->t_end : e->makespan;
    e->in_flight--;
    e->completed_blocks++;
    double now = e->src->now(e->src->ctx);
    wpart_dynamic_completion_t c = {p, rc->block, d->t_xfer, d->t_comp, now};
    WPART_CHECK(wpart_dynamic_balancer_complete(e->b, &c, &e->acts));
    WPART_CHECK(wpart_i_sim_process_actions(e, now));
cleanup:
    return st;
}

#define DRIVE_POLL 0.05 /* seconds between Ctrl-C polls while waiting for the source */

static wpart_status_t poll_source(eng_t *e)
{
    wpart_dynamic_balancer_stats_t bs;
    wpart_dynamic_balancer_stats(e->b, &bs);
    return wpart_i_poll(e->o->control, e->w0, (double)bs.completed,
                        (double)wpart_dynamic_balancer_total(e->b));
}

/* The loop's wait hook: the queue is empty, so wait (at most DRIVE_POLL) for the source's next
 * report and push it as an event at the source's time; stop at the time limit. */
static wpart_status_t wait_source(void *ctx, wpart_i_loop_t *lp)
{
    wpart_status_t st = WPART_OK;
    eng_t *e = ctx;
    const wpart_dynamic_source_t *src = e->src;
    double t = src->now(src->ctx);
    if (e->time_limit > 0 && t >= e->time_limit) {
        e->r->stopped = 1;
        lp->stop = 1;
        return WPART_OK;
    }
    double until = t + DRIVE_POLL;
    if (e->time_limit > 0 && e->time_limit < until) {
        until = e->time_limit;
    }
    int got = 0;
    WPART_CHECK(src->wait(src->ctx, until, &e->ext, &got));
    if (!got) {
        return poll_source(e);
    }
    st = wpart_i_loop_push(lp, src->now(src->ctx), e->ext.kind == 1 ? EV_EXT_EVAL : EV_EXT_BLOCK,
                             e->ext.pu, e->ext.block_id);
cleanup:
    return st;
}

static wpart_status_t h_ext_block(void *ctx, wpart_i_loop_t *lp, const wpart_i_event_t *ev)
{
    eng_t *e = ctx;
    (void)lp;
    (void)ev;
    wpart_status_t st = on_ext_done(e, &e->ext);
    if (st == WPART_OK) {
        st = poll_source(e);
    }
    return st != WPART_OK ? st : wpart_i_sim_settle(e);
}

static wpart_status_t h_ext_eval(void *ctx, wpart_i_loop_t *lp, const wpart_i_event_t *ev)
{
    eng_t *e = ctx;
    const wpart_dynamic_done_t *d = &e->ext;
    (void)lp;
    (void)ev;
    if (!e->evals_pending || d->block_id < 1 || d->block_id > e->n_ewin ||
        !isnan(e->ewin[3 * (d->block_id - 1) + 1])) {
        return wpart_i_error(WPART_EINVAL, "event source: evaluation %" PRId64 " is not in flight",
                             d->block_id);
    }
    e->r->eval_time += d->t_comp;
    wpart_status_t st = wpart_i_sim_on_eval_done(e, (int32_t)e->ewin[3 * (d->block_id - 1) + 2],
                                                 d->block_id, e->src->now(e->src->ctx));
    if (st == WPART_OK) {
        st = poll_source(e);
    }
    return st != WPART_OK ? st : wpart_i_sim_settle(e);
}

wpart_status_t wpart_dynamic_drive(wpart_dynamic_balancer_t *b, const wpart_dynamic_source_t *src,
                                   const wpart_dynamic_sim_options_t *opt,
                                   wpart_dynamic_sim_result_t *out)
{
    wpart_status_t st = WPART_OK;
    wpart_dynamic_sim_options_t o;
    eng_t e;
    WPART_CHECK(wpart_i_sim_open(&e, out));
    if (!b || !src || !src->submit || !src->eval || !src->wait || !src->now) {
        WPART_FAIL(WPART_EINVAL, "balancer and a complete event source are required");
    }
    if (opt) {
        o = *opt;
    } else {
        wpart_dynamic_sim_options_init(&o);
        o.eval_cost = 0.0;
    }
    o.record_trace = 1; /* block id = slot: completions find their record */
    wpart_control_t ctl;
    double time_limit = 0.0;
    if (o.control) { /* the limit is on the source's clock, checked here */
        ctl = *o.control;
        time_limit = ctl.time_limit;
        ctl.time_limit = 0.0;
        o.control = &ctl;
    }
    double w0 = wpart_i_now();
    int32_t n = wpart_dynamic_balancer_n_pu(b);
    e.w0 = w0;
    e.src = src;
    WPART_CHECK(wpart_i_sim_alloc(&e, b, &o, out, n, "driver state"));
    WPART_CHECK(wpart_i_loop_init(&e.loop, 16, &e));
    wpart_i_loop_on(&e.loop, EV_EXT_BLOCK, h_ext_block);
    wpart_i_loop_on(&e.loop, EV_EXT_EVAL, h_ext_eval);
    e.loop.wait = wait_source; /* the source polls the control hooks, not the loop */
    e.time_limit = time_limit;
    double t = src->now(src->ctx);
    WPART_CHECK(wpart_dynamic_balancer_start(b, t, &e.acts));
    WPART_CHECK(wpart_i_sim_process_actions(&e, t));
    WPART_CHECK(wpart_i_sim_settle(&e));
    st = wpart_i_loop_run(&e.loop);
    out->n_events = e.loop.n_events;
    WPART_CHECK(st);
    WPART_CHECK(wpart_i_sim_finish(&e));
    out->wall_seconds = wpart_i_now() - w0;
cleanup:
    return wpart_i_sim_release(&e, out, st);
}
