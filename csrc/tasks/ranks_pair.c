/*
 * ranks_pair.c -- the exact pair step of a rank of the distributed CCM-LB engine (wpart.tasks,
 * rank engine; the Python reference is wpart/tasks/_rankdata.py, pair_problem): the problem
 * of two ranks' task records, every edge endpoint off the pair one task of zero load on a third
 * rank (W of a rank depends only on its own task set, so the pair's works are exact), then the
 * serial engine's FindBestCCM (wpart_tasks_pair_best, ccm_pair.c; the final pass: with the
 * mixed exchanges, wpart_tasks_pair_best_mixed) or its evaluation of W.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ranks_internal.h"
#include "wpart/tasks_ranks.h"

typedef struct {
    int64_t key;
    int32_t pos; /* position in the concatenation (b's edges first): ties keep b's copy */
} keyed_t;

static int cmp_keyed(const void *x, const void *y)
{
    const keyed_t *a = x, *b = y;
    if (a->key != b->key) return (a->key > b->key) - (a->key < b->key);
    return (a->pos > b->pos) - (a->pos < b->pos);
}



static wpart_status_t check_records(const wpart_tasks_rank_records_t *s, const char *name)
{
    if (s == NULL) return wpart_i_error(WPART_EINVAL, "records %s are NULL", name);
    if (s->n < 0 || s->m < 0 || s->n_blocks < 0 || s->n_pinned < 0) {
        return wpart_i_error(WPART_EINVAL, "records %s have a negative size", name);
    }
    if (s->n > 0 && (!s->gid || !s->blk || !s->load || !s->fp || !s->wk)) {
        return wpart_i_error(WPART_EINVAL, "records %s miss a task array", name);
    }
    if (s->m > 0 && (!s->eid || !s->esrc || !s->edst || !s->ebytes)) {
        return wpart_i_error(WPART_EINVAL, "records %s miss an edge array", name);
    }
    if ((s->n_blocks > 0 && (!s->bid || !s->bsize || !s->bhome)) ||
        (s->n_pinned > 0 && !s->pinned)) {
        return wpart_i_error(WPART_EINVAL, "records %s miss their blocks or pins", name);
    }
    for (int32_t i = 1; i < s->n; i++) {
        if (s->gid[i] <= s->gid[i - 1]) {
            return wpart_i_error(WPART_EINVAL, "records %s: task ids not sorted", name);
        }
    }
    return WPART_OK;
}

WPART_TASKS_I_FIND_BLOCK(wpart_tasks_rank_records_t, find_block)

wpart_status_t wpart_tasks_ranks_pair(const wpart_tasks_rank_records_t *a,
                                      const wpart_tasks_rank_records_t *b,
                                      const wpart_tasks_coeffs_t *c,
                                      const wpart_tasks_lb_params_t *prm, double comm_thresh,
                                      int mixed, wpart_tasks_pair_step_t *out, int64_t *give64,
                                      int64_t *take64, double *w_a)
{
    wpart_status_t st = WPART_OK;
    int64_t *gs = NULL, *bids = NULL;
    int32_t *side = NULL, *src = NULL, *dst = NULL, *tb = NULL, *assign = NULL, *bhome = NULL;
    int32_t *give = NULL, *take = NULL, *from = NULL;
    double *load = NULL, *fp = NULL, *wk = NULL, *eb = NULL, *bsize = NULL, *work = NULL;
    uint8_t *mig = NULL;
    keyed_t *ek = NULL;
    wpart_tasks_i_map_t map = {NULL, NULL, 0, 0};
    double base3[3], cap3[3], alpha3[3];
    WPART_CHECK(check_records(a, "a"));
    WPART_CHECK(check_records(b, "b"));
    if (c == NULL || prm == NULL || (out == NULL && w_a == NULL)) {
        WPART_FAIL(WPART_EINVAL, "coefficients, parameters or outputs are NULL");
    }
    if (out && (give64 == NULL || take64 == NULL)) {
        WPART_FAIL(WPART_EINVAL, "output buffers are NULL");
    }
    if (wpart_i_stop_asked(prm->control)) {
        WPART_FAIL(WPART_ECANCELLED, "stopped");
    }
    const int64_t n = (int64_t)a->n + b->n, M0 = (int64_t)a->m + b->m;
    gs = wpart_i_malloc(n + 1, sizeof(int64_t));
    side = wpart_i_malloc(n + 1, sizeof(int32_t));
    from = wpart_i_malloc(n + 1, sizeof(int32_t));
    ek = wpart_i_malloc(M0 + 1, sizeof(keyed_t));
    if (!gs || !side || !from || !ek) WPART_FAIL(WPART_ENOMEM, "out of memory for a pair");
    /* the pair's tasks by gid (both sides sorted: a merge) */
    {
        int32_t i = 0, j = 0;
        int64_t k = 0;
        while (i < a->n || j < b->n) {
            if (j >= b->n || (i < a->n && a->gid[i] < b->gid[j])) {
                gs[k] = a->gid[i];
                side[k] = 0;
                from[k++] = i++;
            } else {
                if (i < a->n && a->gid[i] == b->gid[j]) {
                    WPART_FAIL(WPART_EINVAL, "ranks %d and %d both hold task %lld", (int)a->rank,
                               (int)b->rank, (long long)b->gid[j]);
                }
                gs[k] = b->gid[j];
                side[k] = 1;
                from[k++] = j++;
            }
        }
    }
    /* edges: the union by edge id, b's copy first (a merge when both are sorted, as the
     * records keep them; else a sort) */
    int64_t M = 0;
    if (wpart_tasks_i_sorted_strict(a->eid, a->m) && wpart_tasks_i_sorted_strict(b->eid, b->m)) {
        int32_t i = 0, j = 0;
        while (i < a->m || j < b->m) {
            if (j < b->m && (i >= a->m || b->eid[j] <= a->eid[i])) {
                if (i < a->m && b->eid[j] == a->eid[i]) i++;
                ek[M++] = (keyed_t){b->eid[j], j};
                j++;
            } else {
                ek[M++] = (keyed_t){a->eid[i], b->m + i};
                i++;
            }
        }
    } else {
        for (int32_t e = 0; e < b->m; e++) ek[e] = (keyed_t){b->eid[e], e};
        for (int32_t e = 0; e < a->m; e++) ek[b->m + e] = (keyed_t){a->eid[e], b->m + e};
        qsort(ek, (size_t)M0, sizeof(keyed_t), cmp_keyed);
        for (int64_t e = 0; e < M0; e++) {
            if (M == 0 || ek[M - 1].key != ek[e].key) ek[M++] = ek[e];
        }
    }
    src = wpart_i_malloc(M + 1, sizeof(int32_t));
    dst = wpart_i_malloc(M + 1, sizeof(int32_t));
    eb = wpart_i_malloc(M + 1, sizeof(double));
    if (!src || !dst || !eb) WPART_FAIL(WPART_ENOMEM, "out of memory for a pair's edges");
    if (wpart_tasks_i_map_build(&map, gs, n) < 0) WPART_FAIL(WPART_ENOMEM, "out of memory");
    int ghost = 0;
    for (int64_t e = 0; e < M; e++) {
        int32_t p = ek[e].pos;
        const wpart_tasks_rank_records_t *s = p < b->m ? b : a;
        int32_t q = p < b->m ? p : p - b->m;
        int64_t ls = wpart_tasks_i_map_find(&map, s->esrc[q]);
        int64_t ld = wpart_tasks_i_map_find(&map, s->edst[q]);
        ghost |= ls < 0 || ld < 0;
        src[e] = (int32_t)(ls < 0 ? n : ls);
        dst[e] = (int32_t)(ld < 0 ? n : ld);
        eb[e] = s->ebytes[q];
    }
    const int64_t T = n + ghost;
    load = wpart_i_calloc(T + 1, sizeof(double));
    fp = wpart_i_calloc(T + 1, sizeof(double));
    wk = wpart_i_calloc(T + 1, sizeof(double));
    tb = wpart_i_malloc(T + 1, sizeof(int32_t));
    assign = wpart_i_malloc(T + 1, sizeof(int32_t));
    mig = wpart_i_malloc(T + 1, sizeof(uint8_t));
    bids = wpart_i_malloc(T + 1, sizeof(int64_t));
    if (!load || !fp || !wk || !tb || !assign || !mig || !bids) {
        WPART_FAIL(WPART_ENOMEM, "out of memory for a pair's tasks");
    }
    int any_fp = 0, any_wk = 0, any_pin = 0;
    int32_t nblk = 0;
    for (int64_t k = 0; k < n; k++) {
        const wpart_tasks_rank_records_t *s = side[k] ? b : a;
        int32_t i = from[k];
        load[k] = s->load[i];
        fp[k] = s->fp[i];
        wk[k] = s->wk[i];
        any_fp |= fp[k] != 0.0;
        any_wk |= wk[k] != 0.0;
        assign[k] = side[k];
        tb[k] = -1;
        if (s->blk[i] >= 0) bids[nblk++] = s->blk[i];
        int pinned = s->n_pinned && wpart_tasks_i_find_sorted(s->pinned, s->n_pinned, gs[k]) >= 0;
        /* a task pinned on the other side (a stale copy) is pinned too */
        const wpart_tasks_rank_records_t *o = side[k] ? a : b;
        pinned |= o->n_pinned && wpart_tasks_i_find_sorted(o->pinned, o->n_pinned, gs[k]) >= 0;
        mig[k] = (uint8_t)!pinned;
        any_pin |= pinned;
    }
    if (ghost) {
        assign[n] = 2;
        tb[n] = -1;
        mig[n] = 1;
    }
    int32_t nub = 0;
    if (nblk) {
        WPART_CHECK(find_block_distinct(a, b, bids, nblk, &nub, &bsize, &bhome, "a pair's",
                                        "a task"));
        for (int64_t k = 0; k < n; k++) {
            const wpart_tasks_rank_records_t *s = side[k] ? b : a;
            int64_t bl = s->blk[from[k]];
            if (bl >= 0) tb[k] = (int32_t)wpart_tasks_i_find_sorted(bids, nub, bl);
        }
    }
    wpart_tasks_problem_t p;
    memset(&p, 0, sizeof(p));
    p.n_ranks = 3;
    p.n_tasks = (int32_t)T;
    p.n_blocks = nub;
    p.n_edges = M;
    p.task_load = load;
    p.task_footprint = any_fp ? fp : NULL;
    p.task_working = any_wk ? wk : NULL;
    p.task_block = nub ? tb : NULL;
    p.block_size = bsize;
    p.block_home = bhome;
    p.edge_src = src;
    p.edge_dst = dst;
    p.edge_bytes = eb;
    p.task_migratable = any_pin ? mig : NULL;
    wpart_tasks_i_pair_rank_fields(&p, a->baseline, b->baseline, a->cap, b->cap, a->alpha,
                                   b->alpha, c->alpha, base3, cap3, alpha3);
    if (w_a) {
        double wmax;
        work = wpart_i_malloc(3, sizeof(double));
        if (!work) WPART_FAIL(WPART_ENOMEM, "out of memory");
        wpart_tasks_report_t rep;
        memset(&rep, 0, sizeof(rep));
        rep.work = work;
        WPART_CHECK(wpart_tasks_evaluate(&p, c, assign, &rep, &wmax));
        *w_a = work[0];
    }
    if (out) {
        give = wpart_i_malloc(T + 1, sizeof(int32_t));
        take = wpart_i_malloc(T + 1, sizeof(int32_t));
        if (!give || !take) WPART_FAIL(WPART_ENOMEM, "out of memory for a pair step");
        wpart_tasks_pair_step_t res = {0, 0.0, 0.0, give, take, 0, 0};
        WPART_CHECK((mixed ? wpart_tasks_pair_best_mixed : wpart_tasks_pair_best)(
            &p, c, prm, comm_thresh, assign, 0, 1, &res));
        out->found = res.found;
        out->dexc = res.dexc;
        out->gain = res.gain;
        out->n_give = out->n_take = 0;
        for (int32_t i = 0; i < res.n_give; i++) {
            if (give[i] < 0 || give[i] >= n || side[give[i]] != 0) {
                WPART_FAIL(WPART_EINTERNAL, "the pair step gives a task not on rank a");
            }
            give64[out->n_give++] = gs[give[i]];
        }
        for (int32_t i = 0; i < res.n_take; i++) {
            if (take[i] < 0 || take[i] >= n || side[take[i]] != 1) {
                WPART_FAIL(WPART_EINTERNAL, "the pair step takes a task not on rank b");
            }
            take64[out->n_take++] = gs[take[i]];
        }
    }
cleanup:
    wpart_tasks_i_map_free(&map);
    free(gs);
    free(bids);
    free(side);
    free(from);
    free(ek);
    free(src);
    free(dst);
    free(eb);
    free(load);
    free(fp);
    free(wk);
    free(tb);
    free(assign);
    free(mig);
    free(bsize);
    free(bhome);
    free(give);
    free(take);
    free(work);
    return st;
}
