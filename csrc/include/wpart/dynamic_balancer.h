/*
 * wpart/dynamic_balancer.h -- the one decision protocol of wpart.dynamic.
 *
 * A balancer is a pure state machine over a divisible 1-D index space [0, total). It never
 * reads a clock, never blocks and never owns threads. A driver (the simulator of
 * dynamic_sim.h, or a real executor) calls:
 *
 *   start(now)                          -> actions      issue the initial blocks
 *   complete(pu, block, t_xfer, t_comp, now) -> actions  the measured times of a finished block
 *   eval_run(token)                                      pure computation (fit + solve) on the
 *                                                        snapshot captured with the token; may run
 *                                                        on another thread, concurrently with
 *                                                        complete() calls
 *   eval_done(token, now)               -> actions      publish the evaluation's result
 *   done()                                               all data dispatched and completed
 *
 * An action is ASSIGN (a contiguous block [offset, offset+size) for a PU; a PU may hold
 * several assigned blocks, which it runs in FIFO order) or EVAL (run eval_run(token), then
 * call eval_done(token, ...) when the evaluation has finished). Every balancer takes its
 * blocks from one cursor, so every element is dispatched exactly once; the common layer checks
 * this and rejects completions of blocks it never assigned.
 *
 * Action buffers: every call writes at most wpart_dynamic_balancer_max_actions(b) actions.
 */
#ifndef WPART_DYNAMIC_BALANCER_H
#define WPART_DYNAMIC_BALANCER_H

#include <stdint.h>

#include "wpart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Kinds of block (trace field `kind`). */
typedef enum {
    WPART_DYN_BLK_TRAIN = 0,
    WPART_DYN_BLK_REGULAR = 1,
    WPART_DYN_BLK_GAP = 2,
    WPART_DYN_BLK_OTHER = 3 /* a baseline's block */
} wpart_dynamic_block_kind_t;

/** Kinds of processing unit. */
typedef enum { WPART_DYN_PU_CPU = 0, WPART_DYN_PU_GPU = 1, WPART_DYN_PU_PHI = 2 } wpart_dynamic_pu_kind_t;

/** Why a PU that holds no block is idle (the idle breakdown). */
typedef enum {
    WPART_DYN_IDLE_OTHER = 0,
    WPART_DYN_IDLE_BARRIER = 1, /* parked in the balancer's waiting set */
    WPART_DYN_IDLE_EVAL = 2,    /* waiting for an evaluation (its own, or a global one) */
    WPART_DYN_IDLE_STARVED = 3  /* the cursor reached the end of the data */
} wpart_dynamic_idle_t;

typedef struct {
    int32_t pu;
    int32_t kind;          /* wpart_dynamic_block_kind_t */
    int32_t vstep;         /* virtual step of the PU (PLB-HAC), 0 otherwise */
    int32_t model_version; /* version of the published model used, 0 if none */
    int64_t block_id;      /* 0, 1, 2, ... in order of assignment */
    int64_t offset, size;  /* the block is [offset, offset + size) */
    double pred_end;       /* predicted end time (now + E_p(size)); NaN if no model */
} wpart_dynamic_assign_t;

typedef enum { WPART_DYN_ACT_ASSIGN = 0, WPART_DYN_ACT_EVAL = 1 } wpart_dynamic_act_kind_t;

typedef struct {
    int32_t kind;       /* wpart_dynamic_act_kind_t */
    int32_t trigger_pu; /* EVAL: the PU that triggered it and pays for it (-1: every PU waits) */
    int64_t token;      /* EVAL: the token to pass to eval_run / eval_done */
    wpart_dynamic_assign_t a; /* ASSIGN */
} wpart_dynamic_action_t;

/** A caller-owned action buffer: a[0..n) are valid, cap is its capacity. */
typedef struct {
    wpart_dynamic_action_t *a;
    int64_t n, cap;
} wpart_dynamic_actions_t;

typedef struct {
    int32_t pu;
    int64_t block_id;
    double t_xfer, t_comp; /* measured seconds (finite, >= 0) */
    double now;            /* the time of the completion (non-decreasing in simulation) */
} wpart_dynamic_completion_t;

typedef struct wpart_dynamic_balancer wpart_dynamic_balancer_t;

/* ---- the protocol (every balancer) ---- */
wpart_status_t wpart_dynamic_balancer_start(wpart_dynamic_balancer_t *b, double now,
                                            wpart_dynamic_actions_t *out);
wpart_status_t wpart_dynamic_balancer_complete(wpart_dynamic_balancer_t *b,
                                               const wpart_dynamic_completion_t *c,
                                               wpart_dynamic_actions_t *out);
wpart_status_t wpart_dynamic_balancer_eval_run(wpart_dynamic_balancer_t *b, int64_t token);
/** eval_run that polls `control` (Ctrl-C, time limit; may be NULL) during a long evaluation. */
wpart_status_t wpart_dynamic_balancer_eval_run_ctl(wpart_dynamic_balancer_t *b, int64_t token,
                                                   const wpart_control_t *control);
wpart_status_t wpart_dynamic_balancer_eval_done(wpart_dynamic_balancer_t *b, int64_t token,
                                                double now, wpart_dynamic_actions_t *out);
/** 1 when every element is dispatched and completed, else 0. */
int wpart_dynamic_balancer_done(const wpart_dynamic_balancer_t *b);
void wpart_dynamic_balancer_free(wpart_dynamic_balancer_t *b);

/* ---- queries (every balancer) ---- */
const char *wpart_dynamic_balancer_name(const wpart_dynamic_balancer_t *b);
int32_t wpart_dynamic_balancer_n_pu(const wpart_dynamic_balancer_t *b);
int64_t wpart_dynamic_balancer_total(const wpart_dynamic_balancer_t *b);
int64_t wpart_dynamic_balancer_max_actions(const wpart_dynamic_balancer_t *b);
/** Why PU pu is idle when it holds no block (WPART_DYN_IDLE_*). */
int wpart_dynamic_balancer_idle_reason(const wpart_dynamic_balancer_t *b, int32_t pu);

typedef struct {
    int64_t cursor;      /* next undispatched element */
    int64_t completed;   /* elements of completed blocks */
    int64_t n_blocks;    /* blocks assigned so far */
    int64_t in_flight;   /* blocks assigned and not completed */
    int64_t n_evals;     /* EVAL actions issued */
    int64_t n_barriers;  /* synchronisation points (every PU held until the slowest) */
    int32_t eval_in_flight;
} wpart_dynamic_balancer_stats_t;
void wpart_dynamic_balancer_stats(const wpart_dynamic_balancer_t *b,
                                  wpart_dynamic_balancer_stats_t *out);

/**
 * The published block-size series (Fig. 6 analogue): one row per publication of block sizes,
 * row = [t, model_version, T_pred, S_eff, X_0 .. X_{n-1}] (width 4 + n). *rows is owned by the
 * balancer and valid until its next call. Greedy, HDSS, Static and callback balancers record
 * a row whenever a PU's block size changes (X: every PU's latest size, 0 before its first
 * block; version 0, T_pred and S_eff NaN; changes at one time share a row; at most 2^22
 * doubles).
 */
void wpart_dynamic_balancer_series(const wpart_dynamic_balancer_t *b, const double **rows,
                                   int64_t *n_rows);

/**
 * Step shares (Fig. 5b analogue) in percent, n values summing to 100: PLB-HAC's first
 * published X / S, HDSS's phase-1 weights. Returns 0 and fills out, or 1 if the balancer has
 * none (yet); out is then left unchanged.
 */
int wpart_dynamic_balancer_shares(const wpart_dynamic_balancer_t *b, double *out);

/* ---- balancers written elsewhere (callbacks) ---- */

/** The decisions of a balancer implemented outside C (e.g. in Python). start and complete are
 * required; the others may be NULL. Each writes its actions with wpart_dynamic_cb_assign /
 * wpart_dynamic_cb_eval only. */
typedef struct {
    void *ctx;
    wpart_status_t (*start)(void *ctx, wpart_dynamic_balancer_t *b, double now,
                            wpart_dynamic_actions_t *out);
    wpart_status_t (*complete)(void *ctx, wpart_dynamic_balancer_t *b,
                               const wpart_dynamic_completion_t *c, wpart_dynamic_actions_t *out);
    wpart_status_t (*eval_run)(void *ctx, wpart_dynamic_balancer_t *b, int64_t token);
    wpart_status_t (*eval_done)(void *ctx, wpart_dynamic_balancer_t *b, int64_t token,
                                double now, wpart_dynamic_actions_t *out);
    int (*idle_reason)(void *ctx, const wpart_dynamic_balancer_t *b, int32_t pu);
    void (*destroy)(void *ctx); /* called once by wpart_dynamic_balancer_free */
} wpart_dynamic_callbacks_t;

/** A balancer over callbacks (max_actions: the most actions one call may write; at least
 * n_pu + 1 is used). */
wpart_status_t wpart_dynamic_cb_new(int32_t n_pu, int64_t total, int64_t max_actions,
                                    const wpart_dynamic_callbacks_t *cb,
                                    wpart_dynamic_balancer_t **out);
/** The ctx of a callback balancer, NULL for any other balancer. */
void *wpart_dynamic_cb_ctx(const wpart_dynamic_balancer_t *b);
/** ASSIGN from a callback: must be [cursor, cursor + size) under the next block id. */
wpart_status_t wpart_dynamic_cb_assign(wpart_dynamic_balancer_t *b, wpart_dynamic_actions_t *out,
                                       int32_t pu, int64_t block_id, int64_t offset,
                                       int64_t size, int32_t kind, int32_t vstep,
                                       int32_t model_version, double pred_end);
/** EVAL from a callback (trigger_pu -1: every PU waits; several may be in flight); *token
 * gets the C token (1, 2, ... in order). */
wpart_status_t wpart_dynamic_cb_eval(wpart_dynamic_balancer_t *b, wpart_dynamic_actions_t *out,
                                     int32_t trigger_pu, int64_t *token);

/* ---- the simple baselines ---- */

/** Greedy(chunk): every PU takes the next `chunk` elements whenever it is free. */
wpart_status_t wpart_dynamic_greedy_new(int32_t n_pu, int64_t total, int64_t chunk,
                                        wpart_dynamic_balancer_t **out);
/**
 * Static: PU p gets one block of blocks[p] elements at start (blocks sum to total; a zero
 * entry gives that PU nothing). StaticEqual and the oracles' one-shot splits are Static.
 */
wpart_status_t wpart_dynamic_static_new(int32_t n_pu, const int64_t *blocks,
                                        wpart_dynamic_balancer_t **out);

#ifdef __cplusplus
}
#endif

#endif /* WPART_DYNAMIC_BALANCER_H */
