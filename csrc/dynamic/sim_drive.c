/*
 * sim_drive.c -- real execution with wpart.dynamic's event engine (wpart_dynamic_drive): the
 * engine of sim.c, its events coming from an event source (worker threads and an evaluator
 * reporting block and evaluation completions) instead of simulated devices.
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

wpart_status_t wpart_dynamic_drive(wpart_dynamic_balancer_t *b, const wpart_dynamic_source_t *src,
                                   const wpart_dynamic_sim_options_t *opt,
                                   wpart_dynamic_sim_result_t *out)
{
    wpart_status_t st = WPART_OK;
    wpart_dynamic_sim_options_t o;
    eng_t e;
    memset(&e, 0, sizeof e);
    e.free_slot = -1;
    if (!out) {
        return wpart_i_error(WPART_EINVAL, "out is NULL");
    }
    memset(out, 0, sizeof *out);
    if (!b || !src || !src->submit || !src->eval || !src->wait || !src->now) {
        return wpart_i_error(WPART_EINVAL, "balancer and a complete event source are required");
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
    int64_t W = wpart_dynamic_balancer_total(b);
    e.w0 = w0;
    e.b = b;
    e.o = &o;
    e.r = out;
    e.n = n;
    e.src = src;
    out->n = n;
    out->busy = wpart_i_calloc(n, sizeof(double));
    out->idle = wpart_i_calloc(n, sizeof(double));
    out->idle_breakdown = wpart_i_calloc(4 * (int64_t)n, sizeof(double));
    out->elements = wpart_i_calloc(n, sizeof(int64_t));
    out->blocks = wpart_i_calloc(n, sizeof(int64_t));
    e.pu = wpart_i_calloc(n, sizeof(pu_t));
    int64_t mxa = wpart_dynamic_balancer_max_actions(b);
    e.acts.a = wpart_i_calloc(mxa, sizeof(wpart_dynamic_action_t));
    e.acts.cap = mxa;
    if (!out->busy || !out->idle || !out->idle_breakdown || !out->elements || !out->blocks ||
        !e.pu || !e.acts.a) {
        WPART_FAIL(WPART_ENOMEM, "driver state for %d PUs", (int)n);
    }
    double t = src->now(src->ctx);
    WPART_CHECK(wpart_dynamic_balancer_start(b, t, &e.acts));
    WPART_CHECK(wpart_i_sim_process_actions(&e, t));
    for (;;) {
        if (e.in_flight == 0 && e.evals_pending == 0) {
            if (wpart_dynamic_balancer_done(b)) {
                break;
            }
            wpart_dynamic_balancer_stats_t bs;
            wpart_dynamic_balancer_stats(b, &bs);
            WPART_FAIL(WPART_EINTERNAL,
                       "balancer stalled: %s has no block or evaluation in flight but is not "
                       "done (%" PRId64 " of %" PRId64 " elements completed)",
                       wpart_dynamic_balancer_name(b), bs.completed, W);
        }
        t = src->now(src->ctx);
        if (time_limit > 0 && t >= time_limit) {
            out->stopped = 1;
            break;
        }
        double until = t + DRIVE_POLL;
        if (time_limit > 0 && time_limit < until) {
            until = time_limit;
        }
        wpart_dynamic_done_t d;
        int got = 0;
        WPART_CHECK(src->wait(src->ctx, until, &d, &got));
        if (got) {
            out->n_events++;
            if (d.kind == 1) {
                if (!e.evals_pending || d.block_id < 1 || d.block_id > e.n_ewin ||
                    !isnan(e.ewin[3 * (d.block_id - 1) + 1])) {
                    WPART_FAIL(WPART_EINVAL, "event source: evaluation %" PRId64
                               " is not in flight", d.block_id);
                }
                out->eval_time += d.t_comp;
                WPART_CHECK(wpart_i_sim_on_eval_done(&e, (int32_t)e.ewin[3 * (d.block_id - 1) + 2],
                                         d.block_id, src->now(src->ctx)));
            } else {
                WPART_CHECK(on_ext_done(&e, &d));
            }
        }
        wpart_dynamic_balancer_stats_t bs;
        wpart_dynamic_balancer_stats(b, &bs);
        WPART_CHECK(wpart_i_poll(o.control, w0, (double)bs.completed, (double)W));
    }
    WPART_CHECK(wpart_i_sim_finish(&e));
    out->wall_seconds = wpart_i_now() - w0;
cleanup:
    if (st != WPART_OK) {
        wpart_dynamic_sim_result_free(out);
    }
    free(e.rec);
    free(e.next);
    free(e.span);
    free(e.pu);
    free(e.acts.a);
    free(e.ewin);
    return st;
}
