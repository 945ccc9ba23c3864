/*
 * ccm_index.c -- the edges between two ranks, found without walking every edge of both.
 *
 * FindBestCCM's bound (ccm_prune.c) needs, for every cluster of the pair, its bytes to and
 * from the other rank of the pair. Each cluster already carries its bytes inside itself, in
 * total and to its own rank (clusters.c); the bytes between the two ranks come from a list of
 * each rank's edges to other ranks, sorted by the other rank: the rank taking its turn under
 * the current assignment (rebuilt at its turn and after each of its exchanges) and every rank
 * under the snapshot of the iteration (what its peers gossiped).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ccm_internal.h"

void wpart_i_ccm_index_free(ccm_index_t *x)
{
    WPART_FREE_ALL(x->map_cur, x->map_snap, x->cur, x->snap, x->snap_start, x->tmp, x->cnt);
    memset(x, 0, sizeof(*x));
}

void wpart_i_ccm_index_map(const clusters_t *C, int32_t *map)
{
    for (int32_t c = 0; c < C->n; c++) {
        for (int32_t i = C->start[c]; i < C->start[c + 1]; i++) map[C->tasks[i]] = c;
    }
}

/* e[0..n) sorted by q (stable), through tmp[0..n) and cnt[0..P] */
static void sort_q(xent_t *e, int64_t n, xent_t *tmp, int64_t *cnt, int32_t P)
{
    memset(cnt, 0, sizeof(int64_t) * ((size_t)P + 1));
    for (int64_t k = 0; k < n; k++) cnt[e[k].q + 1]++;
    for (int32_t q = 0; q < P; q++) cnt[q + 1] += cnt[q];
    for (int64_t k = 0; k < n; k++) tmp[cnt[e[k].q]++] = e[k];
    memcpy(e, tmp, sizeof(xent_t) * (size_t)n);
}

static int grow(xent_t **e, int64_t *cap, int64_t n)
{
    if (n <= *cap) return 1;
    int64_t c = n > 2 * *cap ? n : 2 * *cap;
    void *q = wpart_i_realloc(*e, c, sizeof(xent_t));
    if (!q) return 0;
    *e = q;
    *cap = c;
    return 1;
}

/* appends rank r's edges to other ranks at e + n; returns the new n */
static int64_t rank_edges(const wpart_tasks_state_t *s, int32_t r, xent_t *e, int64_t n)
{
    const wpart_tasks_problem_t *p = &s->p;
    for (int32_t t = s->head[r]; t >= 0; t = s->next[t]) {
        for (int64_t j = s->inc_ptr[t]; j < s->inc_ptr[t + 1]; j++) {
            int64_t ed = s->inc_edge[j];
            int32_t a = p->edge_src[ed], b = p->edge_dst[ed];
            int32_t o = a == t ? b : a;
            int32_t q = s->assign[o];
            if (q == r) continue;
            e[n].q = q;
            e[n].t = t;
            e[n].o = o;
            e[n].out = a == t;
            e[n].v = p->edge_bytes[ed];
            n++;
        }
    }
    return n;
}

static int64_t rank_degree(const wpart_tasks_state_t *s, int32_t r)
{
    int64_t d = 0;
    for (int32_t t = s->head[r]; t >= 0; t = s->next[t]) d += s->inc_ptr[t + 1] - s->inc_ptr[t];
    return d;
}

wpart_status_t wpart_i_ccm_index_rank(const wpart_tasks_state_t *s, ccm_index_t *x, int32_t r)
{
    x->cur_rank = -1;
    if (!grow(&x->cur, &x->cap_cur, rank_degree(s, r) + 1)) {
        return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (edge index)");
    }
    if (!x->cnt) x->cnt = wpart_i_malloc((int64_t)s->p.n_ranks + 1, sizeof(int64_t));
    if (!x->cnt || !grow(&x->tmp, &x->cap_tmp, x->cap_cur)) {
        return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (edge index)");
    }
    x->n_cur = rank_edges(s, r, x->cur, 0);
    sort_q(x->cur, x->n_cur, x->tmp, x->cnt, s->p.n_ranks);
    x->cur_rank = r;
    return WPART_OK;
}

wpart_status_t wpart_i_ccm_index_snap(const wpart_tasks_state_t *s, ccm_index_t *x)
{
    const int32_t P = s->p.n_ranks;
    if (!x->snap_start) {
        x->snap_start = wpart_i_malloc((int64_t)P + 1, sizeof(int64_t));
        if (!x->snap_start) return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (edge index)");
    }
    if (!x->cnt) x->cnt = wpart_i_malloc((int64_t)P + 1, sizeof(int64_t));
    if (!x->cnt || !grow(&x->snap, &x->cap_snap, 2 * s->p.n_edges + 1) ||
        !grow(&x->tmp, &x->cap_tmp, 2 * s->p.n_edges + 1)) {
        return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (edge index)");
    }
    int64_t n = 0;
    for (int32_t r = 0; r < P; r++) {
        x->snap_start[r] = n;
        int64_t n0 = n;
        n = rank_edges(s, r, x->snap, n);
        sort_q(x->snap + n0, n - n0, x->tmp, x->cnt, P);
    }
    x->snap_start[P] = n;
    return WPART_OK;
}

void wpart_i_ccm_index_range(const xent_t *e, int64_t n, int32_t key, int64_t *lo, int64_t *hi)
{
    int64_t a = 0, b = n;
    while (a < b) {
        int64_t m = (a + b) / 2;
        if (e[m].q < key) a = m + 1;
        else b = m;
    }
    *lo = a;
    b = n;
    while (a < b) {
        int64_t m = (a + b) / 2;
        if (e[m].q <= key) a = m + 1;
        else b = m;
    }
    *hi = a;
}
