/*
 * ranks_move.c -- the record moves of a rank of the distributed CCM-LB engine (wpart.tasks,
 * RankData.extract / RankData.insert; the Python reference is wpart/tasks/_rankdata.py): which
 * tasks, edges and blocks leave a rank with a set of task ids, the sorted union of two id
 * arrays, and the ranks of the edge ends held by a rank. Short calls (one binary search or one
 * merge step per record), so they do not poll the stop hook.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ranks_internal.h"
#include "wpart/tasks_ranks.h"


static int is_sorted_strict(const int64_t *s, int64_t n)
{
    for (int64_t i = 1; i < n; i++)
        if (s[i - 1] >= s[i]) return 0;
    return 1;
}

wpart_status_t wpart_tasks_ranks_split(const wpart_tasks_rank_split_t *in, int32_t to,
                                       wpart_tasks_rank_split_out_t *out)
{
    wpart_status_t st = WPART_OK;
    if (in == NULL || out == NULL) WPART_FAIL(WPART_EINVAL, "split input or output is NULL");
    if (in->n < 0 || in->m < 0 || in->n_blocks < 0 || in->k < 0)
        WPART_FAIL(WPART_EINVAL, "split sizes are negative");
    if (!is_sorted_strict(in->gid, in->n) || !is_sorted_strict(in->out, in->k) ||
        !is_sorted_strict(in->bid, in->n_blocks))
        WPART_FAIL(WPART_EINVAL, "task ids, moving ids or block ids are not sorted and distinct");
    int64_t found = 0;
    for (int64_t i = 0; i < in->n; i++) {
        out->task_out[i] = wpart_tasks_i_find_sorted(in->out, in->k, in->gid[i]) >= 0;
        found += out->task_out[i];
    }
    out->n_found = found;
    for (int64_t e = 0; e < in->m; e++) {
        uint8_t o = 0, kp = 0;
        for (int side = 0; side < 2; side++) {
            int64_t end = side ? in->edst[e] : in->esrc[e];
            int64_t p = wpart_tasks_i_find_sorted(in->gid, in->n, end);
            if (p >= 0) {
                if (out->task_out[p]) o = 1;
                else kp = 1;
            }
            if (to >= 0 && in->k > 0 && wpart_tasks_i_find_sorted(in->out, in->k, end) >= 0) {
                if (side) in->edr[e] = to;
                else in->esr[e] = to;
            }
        }
        out->edge_out[e] = o;
        out->edge_keep[e] = kp;
    }
    memset(out->block_out, 0, (size_t)in->n_blocks);
    memset(out->block_keep, 0, (size_t)in->n_blocks);
    for (int64_t i = 0; i < in->n; i++) {
        int64_t b = wpart_tasks_i_find_sorted(in->bid, in->n_blocks, in->blk[i]);
        if (b < 0) continue;
        if (out->task_out[i]) out->block_out[b] = 1;
        else out->block_keep[b] = 1;
    }
cleanup:
    return st;
}

wpart_status_t wpart_tasks_ranks_union(const int64_t *a, int64_t na, const int64_t *b,
                                       int64_t nb, int64_t *idx, int64_t *n_out,
                                       int64_t *n_common)
{
    wpart_status_t st = WPART_OK;
    if (n_out == NULL || n_common == NULL || na < 0 || nb < 0 ||
        ((na || nb) && idx == NULL))
        WPART_FAIL(WPART_EINVAL, "union arrays or outputs are NULL or of negative size");
    if (!is_sorted_strict(a, na) || !is_sorted_strict(b, nb))
        WPART_FAIL(WPART_EINVAL, "union inputs are not sorted and distinct");
    int64_t i = 0, j = 0, n = 0, common = 0;
    while (i < na || j < nb) {
        if (j >= nb || (i < na && a[i] < b[j])) {
            idx[n++] = i++;
        } else if (i >= na || b[j] < a[i]) {
            idx[n++] = na + j++;
        } else { /* the same id on both sides: a's record (the first occurrence) */
            idx[n++] = i++;
            j++;
            common++;
        }
    }
    *n_out = n;
    *n_common = common;
cleanup:
    return st;
}

wpart_status_t wpart_tasks_ranks_mark(const int64_t *ends, int64_t m, const int64_t *gid,
                                      int64_t n, int32_t rank, int32_t *ranks)
{
    wpart_status_t st = WPART_OK;
    if (m < 0 || n < 0 || (m && (ends == NULL || ranks == NULL)) || (n && gid == NULL))
        WPART_FAIL(WPART_EINVAL, "mark arrays are NULL or of negative size");
    for (int64_t e = 0; e < m; e++)
        if (wpart_tasks_i_find_sorted(gid, n, ends[e]) >= 0) ranks[e] = rank;
cleanup:
    return st;
}
