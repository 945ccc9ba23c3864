/*
 * event_loop.h -- the one event loop of the core's simulators (private, shared by
 * wpart.dynamic and wpart.multikernel): an engine core that owns the
 * event queue (event_heap.h: (time, insertion) order), the simulated clock, the event count,
 * Ctrl-C / time-limit / max_events polling and a table of handlers by event type. A run
 * registers the handlers of its event types and calls wpart_i_loop_run, which pops events in
 * order and dispatches each to its handler until the queue is empty or a handler stops it.
 *
 * wpart.dynamic's block protocol, simulated (csrc/dynamic/sim.c) or fed by real workers
 * (csrc/dynamic/sim_drive.c, through the wait hook), and the multi-kernel runs
 * (csrc/multikernel/sim.c) are sets of handlers over this same loop; new kinds of events are new handlers,
 * not a new loop.
 */
#ifndef WPART_EVENT_LOOP_H
#define WPART_EVENT_LOOP_H

#include "internal.h"
#include "event_heap.h"

#define WPART_I_LOOP_TYPES 32 /* event types 0 .. 31 (each run numbers its own) */
#define WPART_I_LOOP_POLL 4096 /* events between two polls of the control hooks */

typedef struct wpart_i_loop wpart_i_loop_t;

/** Handles one event (lp->now == ev->t); may push events and set lp->stop. */
typedef wpart_status_t (*wpart_i_loop_handler_t)(void *ctx, wpart_i_loop_t *lp,
                                                 const wpart_i_event_t *ev);

struct wpart_i_loop {
    wpart_i_heap_t heap;
    double now;       /* time of the event being handled (the last one after the run) */
    int64_t n_events; /* events popped so far */
    int stop;         /* set by a handler: the run ends after this event */
    void *ctx;        /* the run's state, passed to every handler */
    wpart_i_loop_handler_t on[WPART_I_LOOP_TYPES];
    /* polling, every WPART_I_LOOP_POLL events (control NULL and max_events 0: none) */
    const wpart_control_t *control;
    double w0;          /* wall-clock start, for the time limit */
    int64_t max_events; /* > 0: more events is an error (WPART_ELIMIT) */
    /* progress for the control hooks: fills (done, total); NULL: (0, 0) */
    void (*progress)(void *ctx, double *done, double *total);
    /* a real event source: called when the queue is empty and the run not stopped; waits
     * for the source's next event and pushes it, or sets stop (NULL: an empty queue ends
     * the run). The source polls the control hooks itself while it waits. */
    wpart_status_t (*wait)(void *ctx, wpart_i_loop_t *lp);
};

/** Zeroed loop with an event queue of room cap and context ctx; no handlers yet. */
wpart_status_t wpart_i_loop_init(wpart_i_loop_t *lp, int64_t cap, void *ctx);
void wpart_i_loop_free(wpart_i_loop_t *lp);
/** Registers the handler of event type `type` (0 <= type < WPART_I_LOOP_TYPES). */
void wpart_i_loop_on(wpart_i_loop_t *lp, int32_t type, wpart_i_loop_handler_t h);

/** Schedules an event. */
static inline wpart_status_t wpart_i_loop_push(wpart_i_loop_t *lp, double t, int32_t type,
                                               int32_t pu, int64_t arg)
{
    return wpart_i_heap_push(&lp->heap, t, type, pu, arg);
}

/** Runs until a handler (or the wait hook) sets lp->stop or, without a wait hook, the queue
 *  is empty; a handler's error, an event of a type without a handler, a refusal of the
 *  control hooks and max_events end it with that status. */
wpart_status_t wpart_i_loop_run(wpart_i_loop_t *lp);

#endif /* WPART_EVENT_LOOP_H */
