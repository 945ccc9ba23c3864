/* ccm_internal.h -- private pieces shared by the CCM-LB engines (never installed). */
#ifndef WPART_CCM_INTERNAL_H
#define WPART_CCM_INTERNAL_H

#include <stdint.h>

#include "tasks_internal.h"
#include "wpart/rng.h"

typedef wpart_tasks_clusters_t clusters_t;
typedef wpart_tasks_comm_ctx_t comm_ctx_t;

typedef struct {
    double dexc;           /* reduction of the two ranks' summed memory excess */
    double gain;           /* reduction of max(W) without the memory term */
    int32_t cr, cp, moved; /* cluster indices (-1 = empty) */
    int single;            /* 0: cr / cp index clusters; 1: sub-cluster units; 2: per-pair
                              parts */
    int found;
    wpart_rng_t *rng;      /* explore: uniform choice among the improving exchanges */
    uint64_t seen;         /* improving exchanges met so far (explore) */
} best_t;

/* Peer information as of the start of the iteration (what the inform stage carried). */
typedef struct {
    const wpart_tasks_rank_t *rank; /* I aggregates */
    const int32_t *refcnt;          /* I x N block counts */
    const double *work;             /* I works */
    const int32_t *assign;          /* K: where every task was */
} snapshot_t;

/* Scratch of the per-pair target units (WPART_TASKS_SPLIT_FILL). */
typedef struct {
    clusters_t U;
    double *target; /* K + 1: per cluster of the giving rank */
    int32_t *tmp;   /* 2K */
    int8_t *in;     /* K */
} fill_t;

/* FindBestCCM on the current state (snap == NULL) or with the peer's gossiped snapshot: best
 * exchange between r and p, gain > tol * before (ccm_eval.c). */
wpart_status_t wpart_i_ccm_find_best(wpart_tasks_state_t *s, int32_t r, int32_t p,
                                     const clusters_t *Cr, const clusters_t *Cp,
                                     const clusters_t *Tr, const clusters_t *Tp, double tol,
                                     int one_way, int split_always, fill_t *X, wpart_rng_t *explore,
                                     const snapshot_t *snap, best_t *best);

#endif /* WPART_CCM_INTERNAL_H */
