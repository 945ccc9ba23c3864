/*
 * dyn_internal.h -- what every balancer implementation of wpart.dynamic shares (private).
 *
 * An implementation embeds wpart_dynamic_balancer_t as its FIRST member, fills a vtable and
 * calls wpart_i_dyn_base_init. The common layer (balancer.c) owns the cursor, the block table
 * (exactly-once bookkeeping), the validation of completions, the counters, the published
 * series and the shares; implementations take blocks only through wpart_i_dyn_assign.
 */
#ifndef WPART_DYN_INTERNAL_H
#define WPART_DYN_INTERNAL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "wpart/dynamic.h"

typedef struct {
    const char *name;
    /* Required. Write actions with wpart_i_dyn_assign / wpart_i_dyn_eval. */
    wpart_status_t (*start)(wpart_dynamic_balancer_t *b, double now, wpart_dynamic_actions_t *out);
    /* Required. Called after the common layer has validated c and marked the block complete
     * (b->completed already includes it). */
    wpart_status_t (*complete)(wpart_dynamic_balancer_t *b, const wpart_dynamic_completion_t *c,
                               wpart_dynamic_actions_t *out);
    /* Optional (NULL: the balancer never issues EVAL). eval_run must only touch the snapshot
     * captured when the EVAL action was issued and a result buffer; it may run on another
     * thread while complete() runs. No allocation inside eval_run. */
    wpart_status_t (*eval_run)(wpart_dynamic_balancer_t *b, int64_t token);
    /* Optional; called after the common layer cleared eval_in_flight. Not called once done. */
    wpart_status_t (*eval_done)(wpart_dynamic_balancer_t *b, int64_t token, double now,
                                wpart_dynamic_actions_t *out);
    /* Optional: WPART_DYN_IDLE_* for a PU holding no block (starved is decided by the common
     * layer when the cursor is at the end). NULL: OTHER. */
    int (*idle_reason)(const wpart_dynamic_balancer_t *b, int32_t pu);
    /* Optional: frees what the implementation owns (not the base, not b itself). */
    void (*destroy)(wpart_dynamic_balancer_t *b);
} wpart_i_dyn_vtable_t;

typedef struct {
    int64_t offset, size;
    int32_t pu;
    int8_t state; /* 1 assigned, 2 completed */
} wpart_i_dyn_block_t;

struct wpart_dynamic_balancer {
    const wpart_i_dyn_vtable_t *vt;
    int32_t n;          /* PUs */
    int64_t total;      /* W */
    int64_t cursor;     /* next undispatched element */
    int64_t completed;  /* elements of completed blocks */
    int64_t in_flight;  /* blocks assigned, not completed */
    int64_t max_actions;
    int64_t n_evals, n_barriers;
    int32_t eval_in_flight; /* set by wpart_i_dyn_eval, cleared before vt->eval_done (with
                             * multi_eval: the number in flight) */
    int multi_eval;         /* several evaluations may be in flight (callback balancers) */
    int64_t eval_token;     /* token of the evaluation in flight (tokens are 1, 2, ...) */
    int64_t next_token;
    /* block table, indexed by block_id (grows geometrically) */
    wpart_i_dyn_block_t *blk;
    int64_t n_blk, cap_blk;
    /* published series, rows of 4 + n doubles */
    double *ser;
    int64_t n_ser, cap_ser;
    /* balancers without a model of their own (Greedy, HDSS, Static) record their block sizes:
     * a row whenever a PU's block size changes (rows of one time merge), up to
     * WPART_I_DYN_AUTO_SERIES_MAX doubles; ser_cur holds each PU's latest size */
    int auto_series;
    int64_t *ser_cur;
    /* shares in percent (n values) */
    double *shares;
    int have_shares;
    double last_now; /* last time seen (for validation of non-decreasing times: not enforced) */
    /* set by a driver around eval_run: a long evaluation polls these (Ctrl-C, time limit) */
    const wpart_control_t *eval_control; /* &eval_ctl or NULL */
    wpart_control_t eval_ctl;            /* the driver's hooks without progress */
    double eval_t0;
};

/** The first step of a balancer constructor: a zeroed object of `size` bytes (the
 * implementation's struct, the base its first member) with its base initialised
 * (wpart_i_dyn_base_init), in *obj. The constructor then fills its own fields and, on a later
 * failure, releases the object with wpart_dynamic_balancer_free (its destroy must accept
 * fields still NULL). ENOMEM names `what`; on failure *obj is NULL and nothing is held. */
wpart_status_t wpart_i_dyn_new(size_t size, const wpart_i_dyn_vtable_t *vt, int32_t n,
                               int64_t total, int64_t max_actions, const char *what,
                               wpart_dynamic_balancer_t **obj);

/** The first check of a balancer constructor: out must not be NULL (EINVAL); sets *out = NULL. */
static inline wpart_status_t wpart_i_dyn_out(wpart_dynamic_balancer_t **out)
{
    if (!out) {
        return wpart_i_error(WPART_EINVAL, "out is NULL");
    }
    *out = NULL;
    return WPART_OK;
}

/** wpart_i_dyn_assign for every PU p in order: size sizes[p] (or `size` when sizes is NULL),
 * quantum 1, kind and vstep as given, no model. got (may be NULL) receives each PU's assigned
 * size and *issued (may be NULL) the number of blocks issued. */
wpart_status_t wpart_i_dyn_assign_each(wpart_dynamic_balancer_t *b, wpart_dynamic_actions_t *out,
                                       const int64_t *sizes, int64_t size, int32_t kind,
                                       int32_t vstep, int64_t *got, int64_t *issued);

/** The last step of a balancer constructor: with ok, hands b to *out and returns WPART_OK;
 * else releases b (wpart_dynamic_balancer_free) and returns ENOMEM naming `what`. */
wpart_status_t wpart_i_dyn_done(wpart_dynamic_balancer_t *b, int ok, const char *what,
                                wpart_dynamic_balancer_t **out);

/** A new copy of the n elements of sz bytes at src (wpart_i_malloc), or NULL. */
static inline void *wpart_i_dyn_dup(const void *src, int64_t n, size_t sz)
{
    void *p = wpart_i_malloc(n, sz);
    if (p && n > 0) {
        memcpy(p, src, (size_t)n * sz);
    }
    return p;
}

/** Initialises the base (allocates the tables). max_actions: the most actions one call of this
 * balancer can write (n + 1 is right for most). On failure frees what it allocated. */
wpart_status_t wpart_i_dyn_base_init(wpart_dynamic_balancer_t *b, const wpart_i_dyn_vtable_t *vt,
                                     int32_t n, int64_t total, int64_t max_actions);

/**
 * Takes min(size, total - cursor) elements from the cursor for PU pu and appends an ASSIGN
 * action. If what would remain is positive but smaller than `quantum`, the block takes it too
 * (never leave a sub-quantum sliver; pass quantum = 1 to disable). size <= 0 or an exhausted
 * cursor writes nothing and sets *assigned = 0 (assigned may be NULL).
 */
wpart_status_t wpart_i_dyn_assign(wpart_dynamic_balancer_t *b, wpart_dynamic_actions_t *out,
                                  int32_t pu, int64_t size, int64_t quantum, int32_t kind,
                                  int32_t vstep, int32_t model_version, double pred_end,
                                  int64_t *assigned);

/** Appends an EVAL action (sets eval_in_flight, counts it); *token receives the new token. */
wpart_status_t wpart_i_dyn_eval(wpart_dynamic_balancer_t *b, wpart_dynamic_actions_t *out,
                                int32_t trigger_pu, int64_t *token);

#define WPART_I_DYN_AUTO_SERIES_MAX ((int64_t)1 << 22) /* doubles (32 MB) */

/** Appends a series row [t, version, T_pred, S_eff, X[0..n)]. */
wpart_status_t wpart_i_dyn_series_add(wpart_dynamic_balancer_t *b, double t, int32_t version,
                                      double T_pred, double S_eff, const int64_t *X);

/** Records the Fig. 5b shares (values are normalised to sum to 100; first call wins unless
 * overwrite is non-zero). */
void wpart_i_dyn_set_shares(wpart_dynamic_balancer_t *b, const double *w, int overwrite);

/** Checks per-PU block sizes (n_pu >= 1, none negative; errors name `blocks`) and returns their
 * sum in *sum; *overflow = 1 (and *sum = INT64_MAX) when the sum exceeds int64. */
wpart_status_t wpart_i_dyn_check_blocks(int32_t n_pu, const int64_t *blocks, int64_t *sum,
                                        int *overflow);

/** A Static balancer (one block per PU) named "static", or "static_peak" when peak != 0. */
wpart_status_t wpart_i_dyn_static_new(int32_t n_pu, const int64_t *blocks, int peak,
                                      wpart_dynamic_balancer_t **out);

#endif /* WPART_DYN_INTERNAL_H */
