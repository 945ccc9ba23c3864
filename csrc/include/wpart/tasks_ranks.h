/*
 * tasks_ranks.h -- rank-side steps of the distributed CCM-LB engine (wpart.tasks, rounds
 * protocol): the estimate of the best exchange between two ranks from their gossiped
 * per-cluster summaries, on the serial engine's FindBestCCM (wpart_tasks_pair_best).
 */
#ifndef WPART_TASKS_RANKS_H
#define WPART_TASKS_RANKS_H

#include <stdint.h>

#include "wpart/status.h"
#include "wpart/tasks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One rank's summary: n clusters (load, footprint, largest working memory, block or -1,
 * pinned flag), and per cluster i the bytes it sends to (cout) and receives from (cin) the
 * tasks on rank crank[j] for cptr[i] <= j < cptr[i + 1] (the summary's own rank: its other
 * clusters; -1: unknown); cself[i] bytes stay inside cluster i. The blocks its clusters
 * access: bid, bsize, bhome (global rank). */
typedef struct {
    int32_t rank, n, n_pairs, n_blocks;
    const int64_t *blk, *cptr, *bid;
    const double *load, *fp, *wk, *cout, *cin, *cself, *bsize;
    const uint8_t *pinned;
    const int32_t *crank, *bhome;
    double baseline, cap, alpha;
    const int64_t *key; /* the clusters' ids, sorted (NULL: not given) */
} wpart_tasks_rank_summary_t;

/* The best exchange between the ranks of summaries a and b as FindBestCCM estimates it on
 * the three-rank problem they describe (a's clusters and a pinned pseudo-task for its other
 * clusters on rank 0, b's likewise on 1, every other rank one task on 2). The bytes between
 * the two ranks are spread over the cluster pairs in proportion to both sides (at most
 * cross_pairs pairs per direction; beyond, a cluster keeps them towards the other rank's
 * pseudo-task); without per_rank they count as bytes towards every other rank. With
 * fallback, when no exchange is found and beta or gamma is non-zero, the estimate is made
 * again without the bytes. out->give (a's cluster indices) and out->take (b's) must hold
 * a->n and b->n entries. */
wpart_status_t wpart_tasks_ranks_estimate(const wpart_tasks_rank_summary_t *a,
                                          const wpart_tasks_rank_summary_t *b,
                                          const wpart_tasks_coeffs_t *c,
                                          const wpart_tasks_lb_params_t *prm,
                                          double comm_thresh, int64_t cross_pairs,
                                          int per_rank, int fallback,
                                          wpart_tasks_pair_step_t *out);

/* wpart_tasks_ranks_estimate of a against each of the n summaries bs[k]: found[k], dexc[k] and
 * gain[k] (the clusters given and taken are not returned). With skip_held, the clusters of
 * bs[k] whose id a holds too (a stale summary naming clusters that came to a since) are left
 * out first, as the Python reference does (Summary.without); their ids (key) are then needed
 * on a and on every bs[k]. Polls the stop hook between peers. */
wpart_status_t wpart_tasks_ranks_estimate_peers(const wpart_tasks_rank_summary_t *a,
                                                const wpart_tasks_rank_summary_t *bs, int32_t n,
                                                const wpart_tasks_coeffs_t *c,
                                                const wpart_tasks_lb_params_t *prm,
                                                double comm_thresh, int64_t cross_pairs,
                                                int per_rank, int fallback, int skip_held,
                                                uint8_t *found, double *dexc, double *gain);

/* The records of the tasks on one rank (wpart.tasks RankData): n tasks sorted by gid (load,
 * footprint, working memory, block id or -1), m incident edges (edge id, source and
 * destination task gids, bytes), the blocks they access (id, size, home rank) and the pinned
 * task gids (sorted). */
typedef struct {
    int32_t rank, n, m, n_blocks, n_pinned;
    const int64_t *gid, *blk, *eid, *esrc, *edst, *bid, *pinned;
    const double *load, *fp, *wk, *ebytes, *bsize;
    const int32_t *bhome;
    double baseline, cap, alpha;
} wpart_tasks_rank_records_t;

/* The exact pair step of the rank engine: the problem of ranks a (local 0) and b (local 1;
 * b->n == 0 and b->m == 0: a alone), every endpoint off the pair one task on 2; when an edge
 * is on both ranks, b's copy is used. With out != NULL: FindBestCCM of the pair (found,
 * dexc, gain, n_give, n_take; the gids given and taken go to give64 and take64, which must
 * hold a->n and b->n entries; out->give / out->take are not used; mixed != 0: also the mixed
 * exchanges of wpart_tasks_pair_best_mixed when nothing else pays). With w_a != NULL: W of
 * rank a (before any exchange). */
wpart_status_t wpart_tasks_ranks_pair(const wpart_tasks_rank_records_t *a,
                                      const wpart_tasks_rank_records_t *b,
                                      const wpart_tasks_coeffs_t *c,
                                      const wpart_tasks_lb_params_t *prm, double comm_thresh,
                                      int mixed, wpart_tasks_pair_step_t *out, int64_t *give64,
                                      int64_t *take64, double *w_a);

/* The sorted union of the sorted, distinct arrays a and b as indices into their
 * concatenation (an id on both sides: a's index; n_common counts them); idx holds na + nb. */
wpart_status_t wpart_tasks_ranks_union(const int64_t *a, int64_t na, const int64_t *b,
                                       int64_t nb, int64_t *idx, int64_t *n_out,
                                       int64_t *n_common);

/* The records of one rank as columns (RankData): n tasks sorted by gid (gid, load, fp, wk,
 * blk or -1, orig: the rank the task started on), m incident edges (eid, esrc / edst task
 * gids, ebytes, esr / edr: the ranks holding the ends as the rank knows them, -1: unknown),
 * n_blocks blocks sorted by bid (bid, bsize, bhome). As an output: buffers with room for the
 * sizes the function states, the sizes set on return. */
typedef struct {
    int64_t n, m, n_blocks;
    int64_t *gid, *blk, *eid, *esrc, *edst, *bid;
    double *load, *fp, *wk, *ebytes, *bsize;
    int32_t *orig, *esr, *edr, *bhome;
} wpart_tasks_rank_cols_t;

/* RankData.extract in one call: the records of `in` split by the k task gids `ids` (any
 * order, repeats allowed) that leave for rank `to` (-1: not said): `moved` gets the leaving
 * tasks, every edge with an end among them and the blocks they access; `keep` the staying
 * tasks, every edge with an end among them and their blocks (both in `in`'s order; room for
 * in->n, in->m, in->n_blocks each). Edge ends among `ids` get rank `to` in both (when
 * to >= 0). n_found: the distinct ids held here, n_ids: the distinct ids (the caller checks
 * that they are equal). `in` is not changed. WPART_EINVAL when in's task or block ids are
 * not sorted and distinct. */
wpart_status_t wpart_tasks_ranks_extract(const wpart_tasks_rank_cols_t *in, const int64_t *ids,
                                         int64_t k, int32_t to, wpart_tasks_rank_cols_t *keep,
                                         wpart_tasks_rank_cols_t *moved, int64_t *n_found,
                                         int64_t *n_ids);

/* RankData.insert in one call: the union of the records a (the rank's) and b (arriving) by
 * task, edge and block id (an id on both sides: a's record; n_common counts the tasks on
 * both, which the caller refuses), then every edge end held by the union gets rank `rank`.
 * `out` has room for a->n + b->n, a->m + b->m, a->n_blocks + b->n_blocks. WPART_EINVAL when
 * task, edge or block ids are not sorted and distinct. */
wpart_status_t wpart_tasks_ranks_insert(const wpart_tasks_rank_cols_t *a,
                                        const wpart_tasks_rank_cols_t *b, int32_t rank,
                                        wpart_tasks_rank_cols_t *out, int64_t *n_common);

/* The records a rank's summary reads (RankData): n tasks (gid sorted, blk or -1, load,
 * footprint, working memory), m edges (source / destination task gids, bytes, and esr / edr
 * the ranks holding their ends as the rank knows them, -1: unknown), the blocks (bid sorted)
 * and the pinned task gids (sorted); per_task: every task is its own cluster. */
typedef struct {
    int32_t rank;
    int per_task;
    int64_t n, m, n_blocks, n_pinned;
    const int64_t *gid, *blk, *esrc, *edst, *bid, *pinned;
    const double *load, *fp, *wk, *ebytes;
    const int32_t *esr, *edr;
} wpart_tasks_rank_sum_in_t;

/* The summary (see wpart_tasks_rank_summary_t): n clusters by sorted key (key, load, fp, wk,
 * blk, pinned, cself; room for in->n), cptr (room for in->n + 1) over n_pairs (crank, cout,
 * cin; room for 2 in->m), block_sel[n_blocks]: the blocks the clusters access. */
typedef struct {
    int64_t n, n_pairs;
    int64_t *key, *blk, *cptr;
    double *load, *fp, *wk, *cself, *cout, *cin;
    uint8_t *pinned, *block_sel;
    int32_t *crank;
} wpart_tasks_rank_sum_out_t;

/* A rank's bounded summary from its records, the sums in the Python reference's order
 * (wpart/tasks/_summary.py, summarize), so the same bit for bit. */
wpart_status_t wpart_tasks_ranks_summarize(const wpart_tasks_rank_sum_in_t *in,
                                           wpart_tasks_rank_sum_out_t *out);

/* RankData.extract then RankData.insert in one call: the records of `in` without the tasks
 * `ids` (leaving for `to`, as wpart_tasks_ranks_extract), then the union with `incoming`
 * (rank `rank`, as wpart_tasks_ranks_insert) in `out`; the leaving records in `moved` (NULL:
 * not wanted). incoming == NULL: no union (out and n_common are not used): `moved` only.
 * Room in moved: in's sizes; in out: in's plus incoming's. */
wpart_status_t wpart_tasks_ranks_swap(const wpart_tasks_rank_cols_t *in, const int64_t *ids,
                                      int64_t k, int32_t to,
                                      const wpart_tasks_rank_cols_t *incoming, int32_t rank,
                                      wpart_tasks_rank_cols_t *moved,
                                      wpart_tasks_rank_cols_t *out, int64_t *n_found,
                                      int64_t *n_ids, int64_t *n_common);

#ifdef __cplusplus
}
#endif

#endif
