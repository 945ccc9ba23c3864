/*
 * balancer_cb.c -- a balancer whose decisions come from callbacks (a balancer written in
 * another language: the Python binding drives wpart.dynamic balancers written in Python with
 * it). The callbacks write their actions with wpart_dynamic_cb_assign / wpart_dynamic_cb_eval,
 * which hold them to the protocol: a block takes the next elements of the cursor under the next
 * block id (several evaluations may be in flight, tokens 1, 2, ...). The common layer keeps the exactly-once
 * bookkeeping as for every C balancer, so the event engine drives both alike.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_internal.h"

typedef struct {
    wpart_dynamic_balancer_t base; /* first member */
    wpart_dynamic_callbacks_t cb;
} cbb_t;

static wpart_status_t cb_start(wpart_dynamic_balancer_t *b, double now,
                               wpart_dynamic_actions_t *out)
{
    cbb_t *s = (cbb_t *)b;
    return s->cb.start(s->cb.ctx, b, now, out);
}

static wpart_status_t cb_complete(wpart_dynamic_balancer_t *b, const wpart_dynamic_completion_t *c,
                                  wpart_dynamic_actions_t *out)
{
    cbb_t *s = (cbb_t *)b;
    return s->cb.complete(s->cb.ctx, b, c, out);
}

static wpart_status_t cb_eval_run(wpart_dynamic_balancer_t *b, int64_t token)
{
    wpart_status_t st = WPART_OK;
    cbb_t *s = (cbb_t *)b;
    if (!s->cb.eval_run) {
        WPART_FAIL(WPART_EINVAL, "this balancer issues no evaluations");
    }
    st = s->cb.eval_run(s->cb.ctx, b, token);
cleanup:
    return st;
}

static wpart_status_t cb_eval_done(wpart_dynamic_balancer_t *b, int64_t token, double now,
                                   wpart_dynamic_actions_t *out)
{
    cbb_t *s = (cbb_t *)b;
    if (!s->cb.eval_done) {
        return WPART_OK;
    }
    return s->cb.eval_done(s->cb.ctx, b, token, now, out);
}

static int cb_idle_reason(const wpart_dynamic_balancer_t *b, int32_t pu)
{
    const cbb_t *s = (const cbb_t *)b;
    return s->cb.idle_reason ? s->cb.idle_reason(s->cb.ctx, b, pu) : WPART_DYN_IDLE_OTHER;
}

static void cb_destroy(wpart_dynamic_balancer_t *b)
{
    cbb_t *s = (cbb_t *)b;
    if (s->cb.destroy) {
        s->cb.destroy(s->cb.ctx);
    }
}

static const wpart_i_dyn_vtable_t cb_vt = {
    "callbacks", cb_start, cb_complete, cb_eval_run, cb_eval_done, cb_idle_reason, cb_destroy,
};

wpart_status_t wpart_dynamic_cb_new(int32_t n_pu, int64_t total, int64_t max_actions,
                                    const wpart_dynamic_callbacks_t *cb,
                                    wpart_dynamic_balancer_t **out)
{
    wpart_status_t st = WPART_OK;
    if (!out || !cb || !cb->start || !cb->complete) {
        WPART_FAIL(WPART_EINVAL, "out, cb, cb->start and cb->complete are required");
    }
    *out = NULL;
    if (max_actions < (int64_t)n_pu + 1) {
        max_actions = (int64_t)n_pu + 1;
    }
    wpart_dynamic_balancer_t *b = NULL;
    WPART_CHECK(wpart_i_dyn_new(sizeof(cbb_t), &cb_vt, n_pu, total, max_actions,
                                "callback", &b));
    cbb_t *s = (cbb_t *)b;
    s->cb = *cb;
    s->base.multi_eval = 1; /* a Python driver always allowed several */
    s->base.auto_series = 1; /* its block sizes per PU over time, as for Greedy */
    *out = &s->base;
cleanup:
    return st;
}

void *wpart_dynamic_cb_ctx(const wpart_dynamic_balancer_t *b)
{
    return b && b->vt == &cb_vt ? ((const cbb_t *)b)->cb.ctx : NULL;
}

wpart_status_t wpart_dynamic_cb_assign(wpart_dynamic_balancer_t *b, wpart_dynamic_actions_t *out,
                                       int32_t pu, int64_t block_id, int64_t offset,
                                       int64_t size, int32_t kind, int32_t vstep,
                                       int32_t model_version, double pred_end)
{
    wpart_status_t st = WPART_OK;
    if (pu < 0 || pu >= b->n || size < 1 || offset != b->cursor || block_id != b->n_blk ||
        size > b->total - b->cursor || kind < 0 || kind > 3) {
        WPART_FAIL(
            WPART_EINVAL,
            "block %" PRId64 " [%" PRId64 ", %" PRId64 ") of kind %d for PU %d breaks the "
            "protocol: blocks take the next elements (offset %" PRId64 ") under the next id (%"
            PRId64 "), 1 <= size <= %" PRId64 ", 0 <= pu < %d, kind in 0..3",
            block_id, offset, offset + size, (int)kind, (int)pu, b->cursor, b->n_blk,
            b->total - b->cursor, (int)b->n);
    }
    if (out->n >= out->cap) {
        WPART_FAIL(WPART_ELIMIT, "more than max_actions = %" PRId64 " actions at once",
                   out->cap);
    }
    st = wpart_i_dyn_assign(b, out, pu, size, 1, kind, vstep, model_version, pred_end, NULL);
cleanup:
    return st;
}

wpart_status_t wpart_dynamic_cb_eval(wpart_dynamic_balancer_t *b, wpart_dynamic_actions_t *out,
                                     int32_t trigger_pu, int64_t *token)
{
    wpart_status_t st = WPART_OK;
    if (trigger_pu < -1 || trigger_pu >= b->n) {
        WPART_FAIL(WPART_EINVAL, "evaluation trigger PU %d out of [-1, %d)",
                             (int)trigger_pu, (int)b->n);
    }
    if (out->n >= out->cap) {
        WPART_FAIL(WPART_ELIMIT, "more than max_actions = %" PRId64 " actions at once",
                   out->cap);
    }
    st = wpart_i_dyn_eval(b, out, trigger_pu, token);
cleanup:
    return st;
}
