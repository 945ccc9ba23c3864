/*
 * event_loop.c -- the one event loop of the core's simulators (event_loop.h): pop in (time, insertion)
 * order, poll the control hooks every WPART_I_LOOP_POLL events, dispatch by event type; with
 * a real event source, wait for it whenever the queue is empty.
 */
#include <string.h>

#include "event_loop.h"

wpart_status_t wpart_i_loop_init(wpart_i_loop_t *lp, int64_t cap, void *ctx)
{
    memset(lp, 0, sizeof *lp);
    lp->ctx = ctx;
    return wpart_i_heap_init(&lp->heap, cap);
}

void wpart_i_loop_free(wpart_i_loop_t *lp)
{
    wpart_i_heap_free(&lp->heap);
}

void wpart_i_loop_on(wpart_i_loop_t *lp, int32_t type, wpart_i_loop_handler_t h)
{
    if (type >= 0 && type < WPART_I_LOOP_TYPES) {
        lp->on[type] = h;
    }
}

static wpart_status_t poll(wpart_i_loop_t *lp)
{
    if (lp->max_events > 0 && lp->n_events > lp->max_events) {
        return wpart_i_error(WPART_ELIMIT, "more than max_events = %" PRId64 " events",
                             lp->max_events);
    }
    if (!lp->control) {
        return WPART_OK;
    }
    double done = 0.0, total = 0.0;
    if (lp->progress) {
        lp->progress(lp->ctx, &done, &total);
    }
    return wpart_i_poll(lp->control, lp->w0, done, total);
}

wpart_status_t wpart_i_loop_run(wpart_i_loop_t *lp)
{
    wpart_i_event_t ev;
    while (!lp->stop) {
        if (!wpart_i_heap_pop(&lp->heap, &ev)) {
            if (!lp->wait) {
                break;
            }
            wpart_status_t st = lp->wait(lp->ctx, lp);
            if (st != WPART_OK) {
                return st;
            }
            continue;
        }
        lp->n_events++;
        if (WPART_UNLIKELY(lp->n_events % WPART_I_LOOP_POLL == 0)) {
            wpart_status_t st = poll(lp);
            if (st != WPART_OK) {
                return st;
            }
        }
        wpart_i_loop_handler_t h =
            (ev.type >= 0 && ev.type < WPART_I_LOOP_TYPES) ? lp->on[ev.type] : NULL;
        if (WPART_UNLIKELY(!h)) {
            return wpart_i_error(WPART_EINTERNAL, "event loop: no handler for event type %d",
                                 (int)ev.type);
        }
        lp->now = ev.t;
        wpart_status_t st = h(lp->ctx, lp, &ev);
        if (st != WPART_OK) {
            return st;
        }
    }
    return WPART_OK;
}
