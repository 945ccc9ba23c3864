/* tasks_internal.h -- private pieces of the tasks family (never installed). */
#ifndef WPART_TASKS_INTERNAL_H
#define WPART_TASKS_INTERNAL_H

#include "wpart/tasks.h"

/* Aggregates of one rank. */
typedef struct {
    double load, fp, wmax, out, in, loc, h, ms;
    int32_t nblk, noff, cnt;
} wpart_tasks_rank_t;

struct wpart_tasks_state {
    wpart_tasks_problem_t p;
    wpart_tasks_coeffs_t c;
    int32_t *assign;
    int64_t *inc_ptr, *inc_edge;     /* edges incident to each task (self-edges once) */
    int32_t *next, *prev, *head;     /* per-rank doubly linked task lists */
    wpart_tasks_rank_t *rank;
    double *work;
    int32_t *refcnt;                 /* I x N task counts per (rank, block) */
    int8_t *mark;                    /* scratch: 1 = leaving r1, 2 = leaving r2 */
    int32_t *d1, *d2, *touched;      /* scratch for block deltas */
    int8_t *btouched;
    int32_t exhaustive;              /* 1: FindBestCCM evaluates every candidate (the
                                        reference of the pruned scan; same result) */
    void *cx;                        /* the serial engine's cluster maps and edge index
                                        (ccm_index_t of ccm_internal.h; NULL: none) */
    void *pc;                        /* the pruned scan's cache (ccm_cache_t; NULL: none) */
    void *scr;                       /* scratch of FindBestCCM's pruned scan (ccm_prune.c) */
    int64_t scr_n;                   /* its size in bytes */
};

/* A block's task count on rank r goes from `old` to `nw`: update the presence aggregates
 * (M_S, block count) and, for a block homed elsewhere, the homing ones (M_H, off-home count). */
static inline void wpart_tasks_i_presence(wpart_tasks_rank_t *v, int32_t old, int32_t nw,
                                          double sz, int off)
{
    if (old > 0 && nw == 0) {
        v->ms -= sz;
        v->nblk--;
        if (off) {
            v->h -= sz;
            v->noff--;
        }
    } else if (old == 0 && nw > 0) {
        v->ms += sz;
        v->nblk++;
        if (off) {
            v->h += sz;
            v->noff++;
        }
    }
}

double wpart_tasks_i_memory(const wpart_tasks_problem_t *p, int32_t r,
                            const wpart_tasks_rank_t *v);
double wpart_tasks_i_work(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                          int32_t r, const wpart_tasks_rank_t *v);
/* Full evaluation with caller workspace: v[I] (overwritten), cnt[I*N] (zero on entry and exit). */
wpart_status_t wpart_tasks_i_eval_full(const wpart_tasks_problem_t *p,
                                       const wpart_tasks_coeffs_t *c, const int32_t *assign,
                                       wpart_tasks_rank_t *v, int32_t *cnt,
                                       const wpart_tasks_report_t *out, double *w_max);
double wpart_tasks_i_state_wmax(const wpart_tasks_state_t *s);
/* Aggregates of r1 and r2 after an exchange (nothing applied). */
wpart_status_t wpart_tasks_i_exchange_vals(wpart_tasks_state_t *s, int32_t r1, const int32_t *A,
                                          int32_t na, int32_t r2, const int32_t *B, int32_t nb,
                                          wpart_tasks_rank_t *v1, wpart_tasks_rank_t *v2);
/* Memory above the cap (0 when within it or not enforced) and W without the memory term. */
double wpart_tasks_i_excess(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                            int32_t r, const wpart_tasks_rank_t *v);
double wpart_tasks_i_work_noeps(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                                int32_t r, const wpart_tasks_rank_t *v);

/* ---- CCM-LB transfer units (clusters.c) ---- */
/* The clusters of one rank with their summaries (what a rank would send to its peers). */
typedef struct {
    int32_t *tasks;   /* tasks of the rank grouped by cluster */
    int32_t *byload;  /* clusters (not units): the same tasks, by descending load within each
                         cluster (ties: lower id first) */
    double *lbl;      /* clusters (not units): the loads of byload's tasks */
    int32_t *start;   /* cluster c = tasks[start[c] .. start[c+1]) */
    int32_t *blk;     /* block of the cluster's tasks (-1: none, -2: several) */
    double *load, *fp, *wk; /* summed load and footprint, max working memory */
    int64_t *deg;     /* incident edges of the cluster's tasks (>= 1 forces the exact path) */
    double *vol;      /* bytes of the edges incident to the cluster's tasks (an inner edge
                         twice): no exchange changes a rank's out, in or loc by more */
    double *cv;       /* 5 per cluster (clusters, not units): bytes inside it, out of it, into
                         it, out of it to the other tasks of its rank, into it from them
                         (under the assignment when built; 0 when the phase has no edges) */
    int32_t n, cap_t, cap_c;
    double wk1, wk2;  /* largest and second largest cluster working memory */
    int32_t wk_arg;   /* cluster holding wk1 (-1 if none) */
    double wk_fixed;  /* largest working memory of the rank's pinned tasks (in no cluster) */
    int32_t *ord;     /* units by ascending load (FindBestCCM's scan; valid when ord_ok) */
    double *ordl;     /* their loads */
    int32_t ord_cap, ord_ok, uses; /* uses: scans since the units were built */
    double *wkr;      /* units (SUBSETS, FILL parts) of a one-block cluster: the largest working
                         memory of the cluster's tasks outside the unit (< 0: unknown, the unit
                         takes the exact path) */
    const void *par;  /* units: the clusters (wpart_tasks_clusters_t) they were built from, whose
                         wk1 / wk2 / wk_arg / wk_fixed give, with wkr, the rank's working-memory
                         max once the unit leaves (NULL: clusters, or units without it) */
    int32_t runs;     /* units: 1 when they are the sub-cluster units (SUBSETS) of the clusters
                         they were built from, in runs of n + 2 n_sizes(n) per cluster of n >= 2
                         tasks (singles by descending load, then the m heaviest and m lightest
                         for each size); 0 otherwise */
} wpart_tasks_clusters_t;

/* Union-find context of the block+comm clustering (NULL for the other modes). */
typedef struct {
    int32_t *parent; /* K scratch */
    int32_t *key;    /* K scratch: component representative of each task */
    double thresh;   /* an edge joins when beta * V >= thresh */
} wpart_tasks_comm_ctx_t;

void wpart_tasks_i_clusters_free(wpart_tasks_clusters_t *C);
/* Clusters of rank r under `mode` (wpart_tasks_cluster_t); tmp: K scratch; cc may be NULL. */
wpart_status_t wpart_tasks_i_build_clusters(const wpart_tasks_state_t *s, int32_t r, int mode,
                                            wpart_tasks_clusters_t *C, int32_t *tmp,
                                            const wpart_tasks_comm_ctx_t *cc);
/* The block clusters of rank r (WPART_TASKS_CLUSTER_BLOCK) after exchanges that moved the
 * tasks moved[] (no duplicates; to or from r, possibly away and back; their blocks marked in
 * touched[]), from `old`, the rank's clusters before them: the same clusters as a full build
 * (same order and sums), in O(tasks of the rank + edges of the moved tasks and of the changed
 * clusters). oldc, tmp, tmp2: K scratch. */
wpart_status_t wpart_tasks_i_rebuild_clusters(const wpart_tasks_state_t *s, int32_t r,
                                              const wpart_tasks_clusters_t *old,
                                              const int32_t *moved, int32_t n_moved,
                                              const int8_t *touched, int32_t *oldc,
                                              wpart_tasks_clusters_t *C, int32_t *tmp,
                                              int32_t *tmp2);
/* Helpers of clusters.c shared with clusters_inc.c and clusters_units.c: tasks by (block, id)
 * (block-less last; tmp: n scratch), tasks by descending load (ties: lower id first), the two
 * largest working memories of C's clusters, realloc to n items, and room in C for the clusters
 * of n tasks (0: no memory). */
void wpart_tasks_i_sort_tasks(int32_t *a, int32_t n, const int32_t *blk, int32_t *tmp);
void wpart_tasks_i_sort_by_load(int32_t *a, int32_t n, const double *load);
void wpart_tasks_i_top_two_working(wpart_tasks_clusters_t *C);
int wpart_tasks_i_reserve(void **p, int64_t n, size_t sz);
int wpart_tasks_i_clusters_reserve(wpart_tasks_clusters_t *C, int32_t n);
/* cv (5 doubles, see wpart_tasks_clusters_t) of cluster c of C on rank r: a task o is in the
 * cluster when of[o] == c, or with of NULL when it is on r, migratable and of the cluster's
 * block (a block-less cluster holds one task). */
void wpart_tasks_i_cluster_cv(const wpart_tasks_state_t *s, int32_t r,
                              const wpart_tasks_clusters_t *C, int32_t c, const int32_t *of,
                              double *cv);

/* bytes of the edges incident to task t (a self-edge once) */
static inline double wpart_tasks_i_task_vol(const wpart_tasks_state_t *s, int32_t t)
{
    double v = 0.0;
    for (int64_t j = s->inc_ptr[t]; j < s->inc_ptr[t + 1]; j++) {
        v += s->p.edge_bytes[s->inc_edge[j]];
    }
    return v;
}

/* The order of a rank's block clusters: by block, the block-less tasks (each alone) after
 * every block, by id. The key of task t, and of cluster c of C. */
#define WPART_TASKS_KEY_FREE ((int64_t)1 << 40)
static inline int64_t wpart_tasks_i_task_key(const int32_t *blk, int32_t t)
{
    int32_t b = blk ? blk[t] : -1;
    return b >= 0 ? (int64_t)b : WPART_TASKS_KEY_FREE + t;
}
static inline int64_t wpart_tasks_i_cluster_key(const wpart_tasks_clusters_t *C, int32_t c)
{
    return C->blk[c] >= 0 ? (int64_t)C->blk[c] : WPART_TASKS_KEY_FREE + C->tasks[C->start[c]];
}
/* Sub-cluster units of rank r (wpart_tasks_split_t): single tasks, or subsets of each cluster
 * of CL (CL must describe the rank's current clusters). The units may overlap. */
wpart_status_t wpart_tasks_i_build_units(const wpart_tasks_state_t *s, int32_t r, int split,
                                         const wpart_tasks_clusters_t *CL,
                                         wpart_tasks_clusters_t *U, int32_t *tmp);
/* The same, copying from `old` (the rank's units before an exchange, built from its clusters
 * old_cl) the units of every cluster whose block is not marked in touched[] (the blocks of the
 * moved tasks): they are those the full build makes. Only for split >= SUBSETS with block
 * clusters; O(clusters + units built afresh) plus the copies. */
wpart_status_t wpart_tasks_i_rebuild_units(const wpart_tasks_state_t *s, int32_t r, int split,
                                           const wpart_tasks_clusters_t *CL,
                                           const wpart_tasks_clusters_t *old_cl,
                                           const wpart_tasks_clusters_t *old,
                                           const int8_t *touched, wpart_tasks_clusters_t *U,
                                           int32_t *tmp);

/* The SUBSETS units of a cluster of n tasks (0 for n < 2), and the position in its run of the
 * heaviest one (the n - 1 heaviest tasks; the lightest is the last single, at n - 1). */
int32_t wpart_tasks_i_n_units(int32_t n);
int32_t wpart_tasks_i_run_heaviest(int32_t n);

/* The same in place: U (the rank's SUBSETS units of old_cl) becomes the units of CL, the
 * runs of unchanged clusters moved within U (memmove of the segments between the changed
 * ones) instead of copied to another set; F: scratch set for the units built afresh;
 * scratch: room for the changed runs (about 40 bytes each). *done = 0 (U untouched) when
 * the in-place update does not apply (then use rebuild_units). */
wpart_status_t wpart_tasks_i_update_units(const wpart_tasks_state_t *s, int32_t r, int split,
                                          const wpart_tasks_clusters_t *CL,
                                          const wpart_tasks_clusters_t *old_cl,
                                          const int8_t *touched, wpart_tasks_clusters_t *U,
                                          wpart_tasks_clusters_t *F, void *scratch,
                                          int64_t scratch_bytes, int *done);

/* Per-pair target units (WPART_TASKS_SPLIT_FILL): for every cluster c of C with target[c] > 0
 * (a load), its tasks by descending load taken while their sum stays within target[c], and
 * that set plus the lightest task left out; empty and whole-cluster units are skipped.
 * tmp: 2 x (largest cluster) scratch; in: largest-cluster scratch. */
wpart_status_t wpart_tasks_i_build_fill(const wpart_tasks_state_t *s,
                                        const wpart_tasks_clusters_t *C, const double *target,
                                        wpart_tasks_clusters_t *U, int32_t *tmp, int8_t *in);
/* The same in steps, for a scan that builds only the parts it evaluates: U emptied with room
 * for every part; the parts of cluster c for `target` (0: none; bit 1: the "under" part
 * x[0..*m) of load *sum; bit 2: the "over" part x[0..*m + 1) of load *over);
 * x: 2 x (cluster size), in: cluster size; a part appended to U as build_fill does. */
wpart_status_t wpart_tasks_i_fill_begin(const wpart_tasks_clusters_t *C, const double *target,
                                        wpart_tasks_clusters_t *U);
int wpart_tasks_i_fill_cluster(const wpart_tasks_state_t *s, const wpart_tasks_clusters_t *C,
                               int32_t c, double target, int32_t *x, int8_t *in, int32_t *m,
                               double *sum, double *over, double *rest);
/* rest[2] from fill_cluster: the wkr of the "under" and "over" parts (-1: unknown) */
void wpart_tasks_i_add_part(const wpart_tasks_state_t *s, wpart_tasks_clusters_t *U,
                            const int32_t *X, int32_t m, double wkr);

#endif /* WPART_TASKS_INTERNAL_H */
