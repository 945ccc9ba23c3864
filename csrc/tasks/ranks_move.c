/*
 * ranks_move.c -- the record moves of a rank of the distributed CCM-LB engine (wpart.tasks,
 * RankData.extract / RankData.insert in one call each; the Python references are
 * wpart/tasks/_rankdata.py, extract_np / insert_np): the tasks, edges and blocks that leave a
 * rank with a set of task ids and those that stay; the union of a rank's records and arriving
 * ones; the sorted union of two id arrays. Short calls (one binary search or one merge step
 * per record), so they do not poll the stop hook.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ranks_internal.h"
#include "wpart/tasks_ranks.h"

wpart_status_t wpart_tasks_ranks_union(const int64_t *a, int64_t na, const int64_t *b,
                                       int64_t nb, int64_t *idx, int64_t *n_out,
                                       int64_t *n_common)
{
    wpart_status_t st = WPART_OK;
    if (n_out == NULL || n_common == NULL || na < 0 || nb < 0 ||
        ((na || nb) && idx == NULL))
        WPART_FAIL(WPART_EINVAL, "union arrays or outputs are NULL or of negative size");
    if (!wpart_tasks_i_sorted_strict(a, na) || !wpart_tasks_i_sorted_strict(b, nb))
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

/* copies task i of s to task j of d (the six task columns) */
static void copy_task(const wpart_tasks_rank_cols_t *s, int64_t i, wpart_tasks_rank_cols_t *d,
                      int64_t j)
{
    d->gid[j] = s->gid[i];
    d->load[j] = s->load[i];
    d->fp[j] = s->fp[i];
    d->wk[j] = s->wk[i];
    d->blk[j] = s->blk[i];
    d->orig[j] = s->orig[i];
}

/* copies edge e of s to edge j of d, the ranks of its ends being r_src and r_dst */
static void copy_edge(const wpart_tasks_rank_cols_t *s, int64_t e, wpart_tasks_rank_cols_t *d,
                      int64_t j, int32_t r_src, int32_t r_dst)
{
    d->eid[j] = s->eid[e];
    d->esrc[j] = s->esrc[e];
    d->edst[j] = s->edst[e];
    d->ebytes[j] = s->ebytes[e];
    d->esr[j] = r_src;
    d->edr[j] = r_dst;
}

static void copy_block(const wpart_tasks_rank_cols_t *s, int64_t b, wpart_tasks_rank_cols_t *d,
                       int64_t j)
{
    d->bid[j] = s->bid[b];
    d->bsize[j] = s->bsize[b];
    d->bhome[j] = s->bhome[b];
}

static int cols_ok(const wpart_tasks_rank_cols_t *c)
{
    return c && c->n >= 0 && c->m >= 0 && c->n_blocks >= 0 &&
           (!c->n || (c->gid && c->load && c->fp && c->wk && c->blk && c->orig)) &&
           (!c->m || (c->eid && c->esrc && c->edst && c->ebytes && c->esr && c->edr)) &&
           (!c->n_blocks || (c->bid && c->bsize && c->bhome));
}

wpart_status_t wpart_tasks_ranks_extract(const wpart_tasks_rank_cols_t *in, const int64_t *ids,
                                         int64_t k, int32_t to, wpart_tasks_rank_cols_t *keep,
                                         wpart_tasks_rank_cols_t *moved, int64_t *n_found,
                                         int64_t *n_ids)
{
    wpart_status_t st = WPART_OK;
    int64_t *out = NULL;
    uint8_t *tout = NULL, *bflag = NULL;
    wpart_tasks_i_map_t map = {NULL, NULL, 0, 0};
    if (!cols_ok(in) || !cols_ok(keep) || !cols_ok(moved) || !n_found || !n_ids || k < 0 ||
        (k && !ids))
        WPART_FAIL(WPART_EINVAL, "extract records, ids or outputs are NULL or negative");
    if (!wpart_tasks_i_sorted_strict(in->gid, in->n) ||
        !wpart_tasks_i_sorted_strict(in->bid, in->n_blocks))
        WPART_FAIL(WPART_EINVAL, "task ids or block ids are not sorted and distinct");
    out = wpart_i_malloc(k + 1, sizeof(int64_t));
    tout = wpart_i_malloc(in->n + 1, 1);
    bflag = wpart_i_calloc(in->n_blocks + 1, 1); /* bit 1: a leaving task's, bit 2: a staying */
    if (!out || !tout || !bflag) WPART_FAIL(WPART_ENOMEM, "out of memory for a move");
    if (k) memcpy(out, ids, (size_t)k * sizeof(int64_t));
    k = wpart_tasks_i_sort_unique(out, k);
    int64_t found = 0, nk = 0, nm = 0;
    for (int64_t i = 0; i < in->n; i++) {
        tout[i] = wpart_tasks_i_find_sorted(out, k, in->gid[i]) >= 0;
        found += tout[i];
        if (tout[i]) copy_task(in, i, moved, nm++);
        else copy_task(in, i, keep, nk++);
        int64_t b = wpart_tasks_i_find_sorted(in->bid, in->n_blocks, in->blk[i]);
        if (b >= 0) bflag[b] |= tout[i] ? 1 : 2;
    }
    keep->n = nk;
    moved->n = nm;
    nk = nm = 0;
    if (wpart_tasks_i_map_build(&map, in->gid, in->n) < 0)
        WPART_FAIL(WPART_ENOMEM, "out of memory for a move");
    for (int64_t e = 0; e < in->m; e++) {
        uint8_t o = 0, kp = 0;
        int32_t r[2] = {in->esr[e], in->edr[e]};
        for (int side = 0; side < 2; side++) {
            int64_t end = side ? in->edst[e] : in->esrc[e];
            int64_t p = wpart_tasks_i_map_find(&map, end);
            if (p >= 0) {
                if (tout[p]) o = 1;
                else kp = 1;
            }
            if (to >= 0 && k > 0 && wpart_tasks_i_find_sorted(out, k, end) >= 0) r[side] = to;
        }
        if (o) copy_edge(in, e, moved, nm++, r[0], r[1]);
        if (kp) copy_edge(in, e, keep, nk++, r[0], r[1]);
    }
    keep->m = nk;
    moved->m = nm;
    nk = nm = 0;
    for (int64_t b = 0; b < in->n_blocks; b++) {
        if (bflag[b] & 1) copy_block(in, b, moved, nm++);
        if (bflag[b] & 2) copy_block(in, b, keep, nk++);
    }
    keep->n_blocks = nk;
    moved->n_blocks = nm;
    *n_found = found;
    *n_ids = k;
cleanup:
    free(out);
    free(tout);
    free(bflag);
    wpart_tasks_i_map_free(&map);
    return st;
}

wpart_status_t wpart_tasks_ranks_insert(const wpart_tasks_rank_cols_t *a,
                                        const wpart_tasks_rank_cols_t *b, int32_t rank,
                                        wpart_tasks_rank_cols_t *out, int64_t *n_common)
{
    wpart_status_t st = WPART_OK;
    wpart_tasks_i_map_t map = {NULL, NULL, 0, 0};
    if (!cols_ok(a) || !cols_ok(b) || !cols_ok(out) || !n_common)
        WPART_FAIL(WPART_EINVAL, "insert records or outputs are NULL or negative");
    if (!wpart_tasks_i_sorted_strict(a->gid, a->n) || !wpart_tasks_i_sorted_strict(b->gid, b->n) ||
        !wpart_tasks_i_sorted_strict(a->eid, a->m) || !wpart_tasks_i_sorted_strict(b->eid, b->m) ||
        !wpart_tasks_i_sorted_strict(a->bid, a->n_blocks) ||
        !wpart_tasks_i_sorted_strict(b->bid, b->n_blocks))
        WPART_FAIL(WPART_EINVAL, "task, edge or block ids are not sorted and distinct");
    int64_t i = 0, j = 0, n = 0, common = 0;
    while (i < a->n || j < b->n) { /* tasks: the merge by id (a's record on both sides) */
        if (j >= b->n || (i < a->n && a->gid[i] < b->gid[j])) {
            copy_task(a, i++, out, n++);
        } else if (i >= a->n || b->gid[j] < a->gid[i]) {
            copy_task(b, j++, out, n++);
        } else {
            copy_task(a, i++, out, n++);
            j++;
            common++;
        }
    }
    out->n = n;
    i = j = n = 0;
    while (i < a->m || j < b->m) { /* edges */
        if (j >= b->m || (i < a->m && a->eid[i] < b->eid[j])) {
            copy_edge(a, i, out, n++, a->esr[i], a->edr[i]);
            i++;
        } else if (i >= a->m || b->eid[j] < a->eid[i]) {
            copy_edge(b, j, out, n++, b->esr[j], b->edr[j]);
            j++;
        } else {
            copy_edge(a, i, out, n++, a->esr[i], a->edr[i]);
            i++;
            j++;
        }
    }
    out->m = n;
    i = j = n = 0;
    while (i < a->n_blocks || j < b->n_blocks) { /* blocks */
        if (j >= b->n_blocks || (i < a->n_blocks && a->bid[i] < b->bid[j])) {
            copy_block(a, i++, out, n++);
        } else if (i >= a->n_blocks || b->bid[j] < a->bid[i]) {
            copy_block(b, j++, out, n++);
        } else {
            copy_block(a, i++, out, n++);
            j++;
        }
    }
    out->n_blocks = n;
    if (wpart_tasks_i_map_build(&map, out->gid, out->n) < 0)
        WPART_FAIL(WPART_ENOMEM, "out of memory for a move");
    for (int64_t e = 0; e < out->m; e++) { /* the ends held here are here now */
        if (wpart_tasks_i_map_find(&map, out->esrc[e]) >= 0) out->esr[e] = rank;
        if (wpart_tasks_i_map_find(&map, out->edst[e]) >= 0) out->edr[e] = rank;
    }
    *n_common = common;
cleanup:
    wpart_tasks_i_map_free(&map);
    return st;
}

/* points c's columns into one block with room for n tasks, m edges, nb blocks (*blk: the
 * block, to free); -1: out of memory */
static int cols_alloc(int64_t n, int64_t m, int64_t nb, wpart_tasks_rank_cols_t *c, char **blk)
{
    /* int64: gid, blk, eid, esrc, edst, bid; double: load, fp, wk, ebytes, bsize; int32: orig,
     * esr, edr, bhome */
    const int64_t n8 = 2 * n + 3 * m + nb, nf = 3 * n + m + nb, n4 = n + 2 * m + nb;
    char *p = wpart_i_malloc(8 * (n8 + nf) + 4 * n4 + 8, 1);
    *blk = p;
    if (!p) return -1;
    int64_t *i8 = (int64_t *)p;
    double *f8 = (double *)(i8 + n8);
    int32_t *i4 = (int32_t *)(f8 + nf);
    c->gid = i8;
    c->blk = i8 + n;
    c->eid = i8 + 2 * n;
    c->esrc = i8 + 2 * n + m;
    c->edst = i8 + 2 * n + 2 * m;
    c->bid = i8 + 2 * n + 3 * m;
    c->load = f8;
    c->fp = f8 + n;
    c->wk = f8 + 2 * n;
    c->ebytes = f8 + 3 * n;
    c->bsize = f8 + 3 * n + m;
    c->orig = i4;
    c->esr = i4 + n;
    c->edr = i4 + n + m;
    c->bhome = i4 + n + 2 * m;
    c->n = n;
    c->m = m;
    c->n_blocks = nb;
    return 0;
}

wpart_status_t wpart_tasks_ranks_swap(const wpart_tasks_rank_cols_t *in, const int64_t *ids,
                                      int64_t k, int32_t to,
                                      const wpart_tasks_rank_cols_t *incoming, int32_t rank,
                                      wpart_tasks_rank_cols_t *moved,
                                      wpart_tasks_rank_cols_t *out, int64_t *n_found,
                                      int64_t *n_ids, int64_t *n_common)
{
    wpart_status_t st = WPART_OK;
    char *b1 = NULL, *b2 = NULL;
    wpart_tasks_rank_cols_t keep, tmp;
    if (!cols_ok(in) || (incoming && (!cols_ok(incoming) || !out || !n_common)))
        WPART_FAIL(WPART_EINVAL, "swap records or outputs are NULL or negative");
    if (cols_alloc(in->n, in->m, in->n_blocks, &keep, &b1) < 0 ||
        (!moved && cols_alloc(in->n, in->m, in->n_blocks, &tmp, &b2) < 0))
        WPART_FAIL(WPART_ENOMEM, "out of memory for a move");
    WPART_CHECK(wpart_tasks_ranks_extract(in, ids, k, to, &keep, moved ? moved : &tmp, n_found,
                                          n_ids));
    if (incoming) WPART_CHECK(wpart_tasks_ranks_insert(&keep, incoming, rank, out, n_common));
cleanup:
    free(b1);
    free(b2);
    return st;
}
