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
                              parts; 3: mixed units (wpart_i_ccm_find_best_mixed) */
    int found;
    wpart_rng_t *rng;      /* explore: uniform choice among the improving exchanges */
    uint64_t seen;         /* improving exchanges met so far (explore) */
    int64_t idx;           /* position of the best in the exhaustive scan's order (pruned
                              scan: ties of gain and size go to the earlier one) */
} best_t;

/* Records the exchange of cluster (or unit) i of r with j of p as the best so far. */
static inline void wpart_i_ccm_take(best_t *best, double dexc, double gain, int32_t i, int32_t j,
                                    int32_t moved, int single)
{
    best->found = 1;
    best->dexc = dexc;
    best->gain = gain;
    best->cr = i;
    best->cp = j;
    best->moved = moved;
    best->single = single;
}

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

/* One edge seen from a rank: task t of the rank, task o on rank q (another rank), v bytes,
 * out = 1 when the edge goes t -> o. */
typedef struct {
    int32_t q, t, o, out;
    double v;
} xent_t;

/* What the serial engine keeps so that FindBestCCM finds the bytes between a pair of ranks
 * without walking every edge of both: the cluster of every task in CL / CLs, the edges of
 * the rank taking its turn (current assignment) and of every rank (snapshot), by other rank. */
typedef struct {
    int32_t *map_cur, *map_snap; /* K: cluster index in CL[rank] / CLs[rank] (-1: none) */
    xent_t *cur;                 /* edges of cur_rank's tasks to other ranks, by q */
    int64_t n_cur, cap_cur;
    int32_t cur_rank;            /* -1: none */
    xent_t *snap;                /* every rank's edges to other ranks under the snapshot */
    int64_t *snap_start;         /* P + 1: rank r's entries are snap[snap_start[r] ..) */
    int64_t cap_snap;
    xent_t *tmp;                 /* sorting scratch */
    int64_t cap_tmp;
    int64_t *cnt;                /* P + 1 */
} ccm_index_t;

typedef struct {
    double x;
    int32_t b;
} xkey_t;
/* qsort order of xkey_t: by x, ties by b (ascending) */
int wpart_i_ccm_cmp_xkey(const void *x, const void *y);

/* The pruned scan's per-rank arrays while a rank ranks its peers from the snapshot (see
 * ccm_prune.c): r's side for the turn `turn`, each peer's side for the iteration `iter`. */
typedef struct {
    int64_t turn, iter;          /* stamps, advanced by the engine */
    int32_t r;                   /* whose side A holds (-1: none) */
    int64_t r_stamp, nA, capA;
    double *A;                   /* A_i then y_i (capA each) */
    int64_t *p_stamp, *pn, *pcap; /* per peer */
    void **pmem;                 /* per peer: kx (xkey), B_j, block minima */
} ccm_cache_t;

void wpart_i_ccm_index_free(ccm_index_t *x);
/* cluster index of each task of C in map (the rank's other tasks are left as they are) */
void wpart_i_ccm_index_map(const clusters_t *C, int32_t *map);
/* x->cur from rank r's tasks under the current assignment */
wpart_status_t wpart_i_ccm_index_rank(const wpart_tasks_state_t *s, ccm_index_t *x, int32_t r);
/* x->snap from every rank under the current assignment (taken as the snapshot) */
wpart_status_t wpart_i_ccm_index_snap(const wpart_tasks_state_t *s, ccm_index_t *x);
/* entries [*lo, *hi) of e[0..n) (sorted by q) with q == key */
void wpart_i_ccm_index_range(const xent_t *e, int64_t n, int32_t key, int64_t *lo, int64_t *hi);

/* Directional volumes of a task set X (spec 1.8 closed form): bytes inside X, bytes from X to
 * tasks outside X (total, and to tasks on q1 / q2 under `assign`), the same into X, and bytes
 * from X to the other exchanged set. */
typedef struct {
    double intra, otot, itot, o1, i1, o2, i2, x;
} csum_t;

/* The volumes of X alone (x = 0) relative to ranks q1 and q2 under `assign`. */
void wpart_i_ccm_csum(wpart_tasks_state_t *s, const int32_t *X, int32_t nx, const int32_t *assign,
                      int32_t q1, int32_t q2, csum_t *o);

/* The closed form of an exchange of unit i of Cr and unit j of Cp from their directional
 * volumes A and B (zero for none), the bytes between the two taken as 0: exact but for those
 * bytes (which add to out and in and take from loc) and rounding. */
void wpart_i_ccm_estimate_pair(const wpart_tasks_state_t *s, int32_t r, const clusters_t *Cr,
                               int32_t i, int32_t p, const clusters_t *Cp, int32_t j,
                               const snapshot_t *snap, const csum_t *A, const csum_t *B,
                               wpart_tasks_rank_t *v1, wpart_tasks_rank_t *v2);

/* Aggregates of r and p after exchanging unit i of Cr with unit j of Cp (-1: none): from
 * the summaries (no edges), the closed form with p's snapshot (snap), or exactly. */
wpart_status_t wpart_i_ccm_eval_pair(wpart_tasks_state_t *s, int32_t r, const clusters_t *Cr,
                                     int32_t i, int32_t p, const clusters_t *Cp, int32_t j,
                                     const snapshot_t *snap, wpart_tasks_rank_t *v1,
                                     wpart_tasks_rank_t *v2, int *valid);

/* The per-pair parts of WPART_TASKS_SPLIT_FILL for r and p: builds X->U from the clusters of
 * the more loaded of the two (wr, wq: their W without the memory term); *give = 1 when that is
 * r (the units leave r), 0 when p. Clusters none of whose parts can weigh lmin_r (r gives) or
 * lmin_p (p gives) are left out (-INFINITY: none). */
wpart_status_t wpart_i_ccm_fill_units(wpart_tasks_state_t *s, int32_t r, int32_t p,
                                      const clusters_t *Cr, const clusters_t *Cp, fill_t *X,
                                      const snapshot_t *snap, double wr, double wq,
                                      double lmin_r, double lmin_p, int *give);

/* The targets of those parts only (X->target per cluster of the giving side; 0: none). */
void wpart_i_ccm_fill_targets(wpart_tasks_state_t *s, int32_t r, int32_t p,
                              const clusters_t *Cr, const clusters_t *Cp, fill_t *X,
                              const snapshot_t *snap, double wr, double wq, double lmin_r,
                              double lmin_p, int *give);

/* FindBestCCM from a feasible pair (no cap excess) without explore: the same exchange as the
 * exhaustive scan, found by evaluating only the candidates that a lower bound of W on both
 * ranks does not rule out (ccm_prune.c). bw: max W of the pair before. */
wpart_status_t wpart_i_ccm_find_best_pruned(wpart_tasks_state_t *s, int32_t r, int32_t p,
                                            const clusters_t *Cr, const clusters_t *Cp,
                                            const clusters_t *Tr, const clusters_t *Tp,
                                            double tol, int one_way, int split_always,
                                            fill_t *X, const snapshot_t *snap, double bw,
                                            double wr, double wq, best_t *best);

/* FindBestCCM on the current state (snap == NULL) or with the peer's gossiped snapshot: best
 * exchange between r and p, gain > tol * before (ccm_eval.c). */
wpart_status_t wpart_i_ccm_find_best(wpart_tasks_state_t *s, int32_t r, int32_t p,
                                     const clusters_t *Cr, const clusters_t *Cp,
                                     const clusters_t *Tr, const clusters_t *Tp, double tol,
                                     int one_way, int split_always, fill_t *X, wpart_rng_t *explore,
                                     const snapshot_t *snap, best_t *best);

/* The mixed exchanges of the distributed engines' final pass (ccm_eval.c): any unit of r for
 * any unit of p or none, units being single migratable tasks and the migratable tasks of one
 * block on a rank (two or more), at least one of the two a block part, each evaluated
 * exactly, gain > tol * before; the best by the acceptance rule of FindBestCCM goes to best
 * (single 3, cr / cp: units of U[0] / U[1]; not found when none pays). U[2]: the two ranks'
 * units (freed and built here: the task clusters, then the block clusters of two tasks or
 * more), B: scratch clusters, tmp: K scratch. */
wpart_status_t wpart_i_ccm_find_best_mixed(wpart_tasks_state_t *s, int32_t r, int32_t p,
                                           double tol, int one_way, clusters_t U[2],
                                           clusters_t *B, int32_t *tmp, best_t *best);

#endif /* WPART_CCM_INTERNAL_H */
