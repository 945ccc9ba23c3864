/*
 * sim_engine.h -- the state of wpart.dynamic's event engine, shared by sim.c (the engine and its
 * simulated devices) and sim_drive.c (the same engine with a real event source). Private.
 */
#ifndef WPART_SIM_ENGINE_H
#define WPART_SIM_ENGINE_H

#include "dyn_internal.h"
#include "event_loop.h"

enum { EV_XFER_DONE = 0, EV_COMP_DONE = 1, EV_EVAL_DONE = 2, EV_RATE_CHANGE = 3 };
/* Real execution (sim_drive.c): the event source reported a block or an evaluation finished
 * (its report is kept in eng_t.ext until handled). */
enum { EV_EXT_BLOCK = 8, EV_EXT_EVAL = 9 };
_Static_assert(EV_EXT_EVAL < WPART_I_LOOP_TYPES, "event types fit the loop's handler table");

#define POLL_EVERY WPART_I_LOOP_POLL
#define STALL_EVALS 1000000 /* consecutive evaluations without any block: a stalled balancer */

typedef struct {
    int64_t head, tail; /* FIFO of slots (-1: empty); head runs when running != 0 */
    int running;        /* 0 idle, 1 dispatch/transfer, 2 compute */
    int held;           /* evaluation holds (the PU waits for an evaluation) */
    int64_t nexec;      /* blocks started so far: the noise index j */
    double s;           /* current slowdown */
    double D, rem, t_last; /* compute: nominal total, nominal remaining, last update */
    int64_t version;
    double idle_since;
    int reason; /* WPART_DYN_IB_* of the open idle segment */
} pu_t;

typedef struct {
    int64_t offset, size;
} span_t;

typedef struct {
    const wpart_dynamic_platform_t *pl;
    wpart_dynamic_balancer_t *b;
    const wpart_dynamic_sim_options_t *o;
    wpart_dynamic_sim_result_t *r;
    int32_t n;
    pu_t *pu;
    wpart_i_loop_t loop; /* the event loop: queue, clock, polling, handlers (event_loop.h) */
    /* block slots: records and FIFO links; with record_trace slots are never reused */
    wpart_dynamic_trace_t *rec;
    int64_t *next;
    int64_t n_slot, cap_slot, free_slot;
    span_t *span; /* every assigned block, for the coverage check */
    int64_t n_span, cap_span;
    wpart_dynamic_actions_t acts;
    int *onoff_state;
    int64_t *onoff_count;
    int64_t in_flight, completed_blocks, evals_pending, evals_since_block;
    double makespan;
    double w0; /* wall-clock start, for the control hooks' time limit */
    const wpart_dynamic_source_t *src; /* real execution: devices outside (NULL: simulated) */
    double *ewin;                      /* evaluation windows: start, end, trigger PU */
    int64_t n_ewin, cap_ewin;
    wpart_dynamic_done_t ext; /* real execution: the source's report being handled */
    double time_limit;        /* real execution: on the source's clock (0: none) */
} eng_t;

/** Zeroes the engine e and the result out (EINVAL if out is NULL): the first step of a run. */
wpart_status_t wpart_i_sim_open(eng_t *e, wpart_dynamic_sim_result_t *out);
/** Ties e to balancer b, options o and result out for n PUs and allocates the result's
 *  per-PU arrays, the PU states and the action buffer (ENOMEM names `what`). */
wpart_status_t wpart_i_sim_alloc(eng_t *e, wpart_dynamic_balancer_t *b,
                                 const wpart_dynamic_sim_options_t *o,
                                 wpart_dynamic_sim_result_t *out, int32_t n, const char *what);
/** Grows *p (capacity *cap, entries of sz bytes) to hold need entries. */
wpart_status_t wpart_i_sim_grow(void **p, int64_t *cap, int64_t need, size_t sz, const char *what);
/** Applies the actions in e->acts at time t (spec 001 §5.4). */
wpart_status_t wpart_i_sim_process_actions(eng_t *e, double t);
/** The end of evaluation `token` (trigger PU trig) at time t. */
wpart_status_t wpart_i_sim_on_eval_done(eng_t *e, int32_t trig, int64_t token, double t);
/** The protocol's end test, after the start and after every event: with no block and no
 *  evaluation in flight, stops the loop if the balancer is done, else a stall error. */
wpart_status_t wpart_i_sim_settle(eng_t *e);
/** Coverage check (unless stopped), the totals, the trace and the evaluation windows. */
wpart_status_t wpart_i_sim_finish(eng_t *e);
/** Frees the engine's working memory (an engine zeroed before its set-up may be freed at any
 *  point of it); on a failed run also the result's arrays. Returns st. */
wpart_status_t wpart_i_sim_release(eng_t *e, wpart_dynamic_sim_result_t *out, wpart_status_t st);

#endif /* WPART_SIM_ENGINE_H */
