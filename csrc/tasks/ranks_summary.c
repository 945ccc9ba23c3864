/*
 * ranks_summary.c -- the bounded summary of one rank of the distributed CCM-LB engine
 * (wpart.tasks, rounds protocol; the Python reference is wpart/tasks/_summary.py, summarize):
 * the rank's clusters with their summed load and footprint, largest working memory, block and
 * pinned flag, and per cluster the bytes it sends to and receives from each rank it talks to.
 * Every sum is taken in the reference's order (tasks, then edges, in their record order), so
 * the numbers are the same bit for bit. One pass over the records and a sort of the cluster
 * ends of the edges (by counting): a short call, it does not poll the stop hook.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ranks_internal.h"
#include "wpart/tasks_ranks.h"

/* an edge end of a cluster: (cluster, far rank) and its place among the ends */
typedef struct {
    int64_t c, r, seq;
} sum_end_t;

static int cmp_end(const void *x, const void *y)
{
    const sum_end_t *a = x, *b = y;
    if (a->c != b->c) return (a->c > b->c) - (a->c < b->c);
    if (a->r != b->r) return (a->r > b->r) - (a->r < b->r);
    return (a->seq > b->seq) - (a->seq < b->seq);
}

wpart_status_t wpart_tasks_ranks_summarize(const wpart_tasks_rank_sum_in_t *in,
                                           wpart_tasks_rank_sum_out_t *out)
{
    wpart_status_t st = WPART_OK;
    int64_t *key = NULL, *ubp = NULL, *inv = NULL, *grp = NULL, *pos = NULL, *cnt = NULL;
    double *eb = NULL;
    uint8_t *pm = NULL;
    sum_end_t *ends = NULL, *sorted = NULL;
    wpart_tasks_i_map_t map = {NULL, NULL, 0, 0};
    if (in == NULL || out == NULL) WPART_FAIL(WPART_EINVAL, "summary input or output is NULL");
    const int64_t K = in->n, m = in->m;
    if (K < 0 || m < 0 || in->n_blocks < 0 || in->n_pinned < 0)
        WPART_FAIL(WPART_EINVAL, "summary sizes are negative");
    if (!wpart_tasks_i_sorted_strict(in->gid, K) ||
        !wpart_tasks_i_sorted_strict(in->pinned, in->n_pinned) ||
        !wpart_tasks_i_sorted_strict(in->bid, in->n_blocks))
        WPART_FAIL(WPART_EINVAL, "task ids, pinned ids or block ids are not sorted and distinct");
    const int64_t me = in->rank;
    const int64_t base = -((int64_t)1 << 62) - me * ((int64_t)1 << 24); /* _summary._base */
    key = wpart_i_malloc(K + 1, sizeof(int64_t));
    ubp = wpart_i_malloc(K + 1, sizeof(int64_t));
    inv = wpart_i_malloc(K + 1, sizeof(int64_t));
    pm = wpart_i_calloc(K + 1, 1);
    ends = wpart_i_malloc(2 * m + 1, sizeof(sum_end_t));
    sorted = wpart_i_malloc(2 * m + 1, sizeof(sum_end_t));
    pos = wpart_i_malloc(2 * m + 1, sizeof(int64_t));
    cnt = wpart_i_malloc(K + 2, sizeof(int64_t));
    grp = wpart_i_malloc(2 * m + 1, sizeof(int64_t));
    eb = wpart_i_malloc(2 * m + 1, sizeof(double));
    if (!key || !ubp || !inv || !pm || !ends || !grp || !eb || !sorted || !pos || !cnt)
        WPART_FAIL(WPART_ENOMEM, "out of memory for a rank summary");
    /* clusters: a block's movable tasks (-2 - block), a block's pinned tasks and the
     * block-less pinned tasks (pseudo ids below base), every other task alone (its id) */
    int64_t nb_pin = 0;
    for (int64_t i = 0; i < K; i++) {
        pm[i] = in->n_pinned && wpart_tasks_i_find_sorted(in->pinned, in->n_pinned,
                                                          in->gid[i]) >= 0;
        int has = !in->per_task && in->blk[i] >= 0;
        if (has && pm[i]) ubp[nb_pin++] = in->blk[i];
    }
    nb_pin = wpart_tasks_i_sort_unique(ubp, nb_pin);
    for (int64_t i = 0; i < K; i++) {
        int has = !in->per_task && in->blk[i] >= 0;
        if (has && !pm[i]) key[i] = -2 - in->blk[i];
        else if (has) key[i] = base - wpart_tasks_i_find_sorted(ubp, nb_pin, in->blk[i]);
        else if (!in->per_task && pm[i]) key[i] = base - nb_pin;
        else key[i] = in->gid[i];
    }
    memcpy(out->key, key, (size_t)K * sizeof(int64_t));
    const int64_t n = wpart_tasks_i_sort_unique(out->key, K);
    out->n = n;
    for (int64_t c = 0; c < n; c++) {
        out->load[c] = out->fp[c] = out->wk[c] = out->cself[c] = 0.0;
        out->blk[c] = -1;
        out->pinned[c] = 0;
    }
    for (int64_t i = 0; i < K; i++) {
        int64_t c = wpart_tasks_i_find_sorted(out->key, n, key[i]);
        inv[i] = c;
        out->load[c] += in->load[i];
        out->fp[c] += in->fp[i];
        if (in->wk[i] > out->wk[c]) out->wk[c] = in->wk[i];
        out->blk[c] = in->blk[i]; /* a cluster of several tasks holds one block (or none) */
        if (pm[i]) out->pinned[c] = 1;
    }
    /* the edges: bytes inside a cluster, and per cluster end the rank of the far end (a far
     * end said to be here but not held here is a stale record: -1, unknown); the ends are
     * numbered as the reference lists them: every sent end, then every received end, each
     * in edge order */
    int64_t n_end = 0;
    if (wpart_tasks_i_map_build(&map, in->gid, K) < 0)
        WPART_FAIL(WPART_ENOMEM, "out of memory for a rank summary");
    for (int64_t e = 0; e < m; e++) { /* where each edge's ends are among the tasks here */
        pos[2 * e] = wpart_tasks_i_map_find(&map, in->esrc[e]);
        pos[2 * e + 1] = wpart_tasks_i_map_find(&map, in->edst[e]);
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t e = 0; e < m; e++) {
            int64_t ps = pos[2 * e], pd = pos[2 * e + 1];
            int64_t cs = ps >= 0 ? inv[ps] : -1, cd = pd >= 0 ? inv[pd] : -1;
            int inner = ps >= 0 && pd >= 0 && cs == cd;
            double b = in->ebytes[e];
            if (pass == 0 && inner) out->cself[cs] += b;
            if (inner || !(b > 0)) continue;
            if (pass == 0 && ps >= 0) { /* sent by a cluster here: the far end is dst */
                int64_t r = pd >= 0 ? me : (in->edr[e] == me ? -1 : in->edr[e]);
                ends[n_end] = (sum_end_t){cs, r, n_end};
                eb[n_end++] = b;
            } else if (pass == 1 && pd >= 0) { /* received by a cluster here */
                int64_t r = ps >= 0 ? me : (in->esr[e] == me ? -1 : in->esr[e]);
                ends[n_end] = (sum_end_t){cd, r, n_end};
                eb[n_end++] = -b; /* received: negative */
            }
        }
    }
    /* the ends by (cluster, far rank, place): a counting sort by cluster (stable), then an
     * insertion sort by rank within each cluster (stable: places stay ascending) */
    for (int64_t c = 0; c <= n; c++) cnt[c] = 0;
    for (int64_t j = 0; j < n_end; j++) cnt[ends[j].c + 1]++;
    for (int64_t c = 0; c < n; c++) cnt[c + 1] += cnt[c];
    for (int64_t j = 0; j < n_end; j++) sorted[cnt[ends[j].c]++] = ends[j];
    for (int64_t c = 0, lo = 0; c < n; lo = cnt[c++]) { /* cnt[c]: the end of cluster c */
        if (cnt[c] - lo > 32) { /* many ends: a sort, not quadratic */
            qsort(sorted + lo, (size_t)(cnt[c] - lo), sizeof(sum_end_t), cmp_end);
            continue;
        }
        for (int64_t j = lo + 1; j < cnt[c]; j++) {
            sum_end_t x = sorted[j];
            int64_t k = j;
            while (k > lo && sorted[k - 1].r > x.r) {
                sorted[k] = sorted[k - 1];
                k--;
            }
            sorted[k] = x;
        }
    }
    memcpy(ends, sorted, (size_t)n_end * sizeof(sum_end_t));
    int64_t np_ = 0;
    for (int64_t c = 0; c <= n; c++) out->cptr[c] = 0;
    for (int64_t j = 0; j < n_end; j++) {
        if (j == 0 || ends[j].c != ends[j - 1].c || ends[j].r != ends[j - 1].r) {
            out->crank[np_] = (int32_t)ends[j].r;
            out->cout[np_] = out->cin[np_] = 0.0;
            out->cptr[ends[j].c + 1]++;
            np_++;
        }
        grp[ends[j].seq] = np_ - 1;
    }
    for (int64_t k = 0; k < n_end; k++) { /* the sums in the reference's order */
        if (eb[k] > 0) out->cout[grp[k]] += eb[k];
        else out->cin[grp[k]] += -eb[k];
    }
    for (int64_t c = 0; c < n; c++) out->cptr[c + 1] += out->cptr[c];
    out->n_pairs = np_;
    memset(out->block_sel, 0, (size_t)in->n_blocks);
    for (int64_t c = 0; c < n; c++) {
        if (out->blk[c] < 0) continue;
        int64_t p = wpart_tasks_i_find_sorted(in->bid, in->n_blocks, out->blk[c]);
        if (p >= 0) out->block_sel[p] = 1;
    }
cleanup:
    wpart_tasks_i_map_free(&map);
    free(key);
    free(ubp);
    free(inv);
    free(pm);
    free(ends);
    free(sorted);
    free(pos);
    free(cnt);
    free(grp);
    free(eb);
    return st;
}
