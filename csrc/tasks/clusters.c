/*
 * clusters.c -- the transfer units of CCM-LB (spec 003 section 3.3): the clusters of one rank
 * with the summaries a rank gossips, and the sub-cluster units (single tasks, or subsets of
 * each cluster) tried when no whole-cluster exchange pays.
 */
#include <stddef.h>
#include <string.h>

#include "internal.h"
#include "tasks_internal.h"

typedef wpart_tasks_clusters_t clusters_t;
typedef wpart_tasks_comm_ctx_t comm_ctx_t;

void wpart_tasks_i_clusters_free(clusters_t *C)
{
    WPART_FREE_ALL(C->tasks, C->byload, C->lbl, C->start, C->blk, C->load, C->fp, C->wk, C->deg,
                   C->vol, C->cv, C->ord, C->ordl, C->wkr);
    memset(C, 0, sizeof(*C));
}

static int cmp_block_task(int32_t a, int32_t b, const int32_t *blk)
{
    int32_t ba = blk ? blk[a] : -1, bb = blk ? blk[b] : -1;
    /* block-less tasks (-1) sort after blocks, each alone */
    int64_t ka = ba >= 0 ? ba : (int64_t)1 << 40, kb = bb >= 0 ? bb : (int64_t)1 << 40;
    if (ka != kb) return ka < kb ? -1 : 1;
    return a < b ? -1 : a > b;
}

static void sort_tasks(int32_t *a, int32_t n, const int32_t *blk, int32_t *tmp)
{
    if (n < 2) return;
    if (n <= 16) {
        for (int32_t i = 1; i < n; i++) {
            int32_t x = a[i], j = i;
            while (j > 0 && cmp_block_task(a[j - 1], x, blk) > 0) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    int32_t h = n / 2;
    sort_tasks(a, h, blk, tmp);
    sort_tasks(a + h, n - h, blk, tmp);
    int32_t i = 0, j = h, o = 0;
    while (i < h && j < n) tmp[o++] = cmp_block_task(a[j], a[i], blk) < 0 ? a[j++] : a[i++];
    while (i < h) tmp[o++] = a[i++];
    while (j < n) tmp[o++] = a[j++];
    memcpy(a, tmp, sizeof(int32_t) * (size_t)n);
}

static int reserve(void **p, int64_t n, size_t sz)
{
    void *q = wpart_i_realloc(*p, n > 0 ? n : 1, sz);
    if (!q) return 0;
    *p = q;
    return 1;
}


/* tasks by descending load, ties by id (insertion sort on a cluster's tasks) */
static void sort_by_load(int32_t *a, int32_t n, const double *load)
{
    for (int32_t i = 1; i < n; i++) {
        int32_t x = a[i], j = i;
        while (j > 0 && (load[a[j - 1]] < load[x] || (load[a[j - 1]] == load[x] && a[j - 1] > x))) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}


static int32_t uf_find(int32_t *par, int32_t x)
{
    while (par[x] != x) {
        par[x] = par[par[x]];
        x = par[x];
    }
    return x;
}

static void uf_union(int32_t *par, int32_t a, int32_t b)
{
    a = uf_find(par, a);
    b = uf_find(par, b);
    if (a != b) {
        if (a < b) par[b] = a;
        else par[a] = b;
    }
}

/* the largest and second largest working memory of C's clusters, and the first largest's index */
static void top_two_working(clusters_t *C)
{
    C->wk1 = C->wk2 = 0.0;
    C->wk_arg = -1;
    for (int32_t c = 0; c < C->n; c++) {
        if (C->wk_arg < 0 || C->wk[c] > C->wk1) {
            C->wk2 = C->wk1;
            C->wk1 = C->wk[c];
            C->wk_arg = c;
        } else if (C->wk[c] > C->wk2) {
            C->wk2 = C->wk[c];
        }
    }
}

int wpart_tasks_i_clusters_reserve(clusters_t *C, int32_t n)
{
    if (n <= C->cap_t && n + 1 <= C->cap_c) return 1;
    int32_t nc = n + 1 > 2 * C->cap_c ? n + 1 : 2 * C->cap_c;
    int32_t ntk = n > 2 * C->cap_t ? n : 2 * C->cap_t;
    if (!reserve((void **)&C->tasks, ntk, sizeof(int32_t)) ||
        !reserve((void **)&C->byload, ntk, sizeof(int32_t)) ||
        !reserve((void **)&C->lbl, ntk, sizeof(double)) ||
        !reserve((void **)&C->start, nc + 1, sizeof(int32_t)) ||
        !reserve((void **)&C->blk, nc, sizeof(int32_t)) ||
        !reserve((void **)&C->load, nc, sizeof(double)) ||
        !reserve((void **)&C->fp, nc, sizeof(double)) ||
        !reserve((void **)&C->wk, nc, sizeof(double)) ||
        !reserve((void **)&C->deg, nc, sizeof(int64_t)) ||
        !reserve((void **)&C->vol, nc, sizeof(double)) ||
        !reserve((void **)&C->cv, 5 * (int64_t)nc, sizeof(double))) {
        return 0;
    }
    C->cap_t = ntk;
    C->cap_c = nc;
    return 1;
}

void wpart_tasks_i_cluster_cv(const wpart_tasks_state_t *s, int32_t r, const clusters_t *C,
                               int32_t c, const int32_t *of, double *cv)
{
    const wpart_tasks_problem_t *p = &s->p;
    const uint8_t *mig = p->task_migratable;
    const int32_t b = C->blk[c];
    double in_ = 0, ot = 0, it = 0, so = 0, si = 0;
    for (int32_t i = C->start[c]; i < C->start[c + 1]; i++) {
        int32_t t = C->tasks[i];
        for (int64_t j = s->inc_ptr[t]; j < s->inc_ptr[t + 1]; j++) {
            int64_t e = s->inc_edge[j];
            int32_t a = p->edge_src[e], b2 = p->edge_dst[e];
            int32_t o = a == t ? b2 : a;
            double v = p->edge_bytes[e];
            int mine = s->assign[o] == r;
            int same = mine && (of ? of[o] == c
                                   : b >= 0 && (!mig || mig[o]) && p->task_block[o] == b);
            if (o == t || same) {
                if (t == a) in_ += v; /* an inner edge is met from both ends */
            } else if (t == a) {
                ot += v;
                if (mine) so += v;
            } else {
                it += v;
                if (mine) si += v;
            }
        }
    }
    cv[0] = in_;
    cv[1] = ot;
    cv[2] = it;
    cv[3] = so;
    cv[4] = si;
}

wpart_status_t wpart_tasks_i_build_clusters(const wpart_tasks_state_t *s, int32_t r, int mode,
                                            clusters_t *C, int32_t *tmp, const comm_ctx_t *cc)
{
    C->ord_ok = C->uses = C->runs = 0;
    C->par = NULL;
    const wpart_tasks_problem_t *p = &s->p;
    int32_t n = s->rank[r].cnt;
    if (!wpart_tasks_i_clusters_reserve(C, n)) {
        return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (clusters)");
    }
    /* pinned tasks are left out: a cluster that holds one moves without it */
    const uint8_t *mig = p->task_migratable;
    int32_t m = 0;
    C->wk_fixed = 0.0;
    for (int32_t k = s->head[r]; k >= 0; k = s->next[k]) {
        if (!mig || mig[k]) {
            C->tasks[m++] = k;
        } else if (p->task_working && p->task_working[k] > C->wk_fixed) {
            C->wk_fixed = p->task_working[k];
        }
    }
    const int32_t *blk = mode == WPART_TASKS_CLUSTER_BLOCK ? p->task_block : NULL;
    const int comm = mode == WPART_TASKS_CLUSTER_BLOCK_COMM && cc != NULL;
    if (comm) {
        /* components of "same block" and "heavy on-rank edge"; key = smallest task id */
        int32_t *par = cc->parent;
        for (int32_t i = 0; i < m; i++) par[C->tasks[i]] = C->tasks[i];
        if (p->task_block) { /* tasks of a block: consecutive once sorted by block */
            sort_tasks(C->tasks, m, p->task_block, tmp);
            for (int32_t i = 1; i < m; i++) {
                int32_t t = C->tasks[i], u = C->tasks[i - 1];
                if (p->task_block[t] >= 0 && p->task_block[t] == p->task_block[u]) {
                    uf_union(par, t, u);
                }
            }
        }
        for (int32_t i = 0; i < m; i++) {
            int32_t t = C->tasks[i];
            for (int64_t e = s->inc_ptr[t]; e < s->inc_ptr[t + 1]; e++) {
                int64_t ed = s->inc_edge[e];
                int32_t a = p->edge_src[ed], b2 = p->edge_dst[ed];
                int32_t o = a == t ? b2 : a;
                if (s->assign[o] != r || (mig && !mig[o])) continue;
                if (s->c.beta * p->edge_bytes[ed] >= cc->thresh) {
                    uf_union(par, t, o);
                }
            }
        }
        for (int32_t i = 0; i < m; i++) cc->key[C->tasks[i]] = uf_find(par, C->tasks[i]);
        blk = cc->key;
    }
    sort_tasks(C->tasks, m, blk, tmp);
    C->n = 0;
    for (int32_t i = 0; i < m; i++) {
        int32_t t = C->tasks[i];
        int32_t b = p->task_block ? p->task_block[t] : -1;
        int split;
        if (comm) {
            split = i == 0 || cc->key[t] != cc->key[C->tasks[i - 1]];
        } else {
            split = mode != WPART_TASKS_CLUSTER_BLOCK || b < 0 || i == 0 ||
                    b != C->blk[C->n - 1];
        }
        if (!split && comm && b != C->blk[C->n - 1]) C->blk[C->n - 1] = -2; /* several */
        if (split) {
            C->start[C->n] = i;
            C->blk[C->n] = b;
            C->load[C->n] = 0.0;
            C->fp[C->n] = 0.0;
            C->wk[C->n] = 0.0;
            C->deg[C->n] = 0;
            C->vol[C->n] = 0.0;
            C->n++;
        }
        int32_t c = C->n - 1;
        C->vol[c] += wpart_tasks_i_task_vol(s, t);
        C->load[c] += p->task_load[t]; /* same order as the exchange's own sums */
        if (p->task_footprint) C->fp[c] += p->task_footprint[t];
        if (p->task_working && p->task_working[t] > C->wk[c]) C->wk[c] = p->task_working[t];
        C->deg[c] += s->inc_ptr[t + 1] - s->inc_ptr[t];
    }
    C->start[C->n] = m;
    if (m > 0) memcpy(C->byload, C->tasks, sizeof(int32_t) * (size_t)m);
    for (int32_t c = 0; c < C->n; c++) {
        sort_by_load(C->byload + C->start[c], C->start[c + 1] - C->start[c], p->task_load);
    }
    for (int32_t i = 0; i < m; i++) C->lbl[i] = p->task_load[C->byload[i]];
    /* directional volumes of every cluster; tmp[t] = cluster of t (-1: pinned) on rank r */
    if (p->n_edges > 0) {
        for (int32_t k = s->head[r]; k >= 0; k = s->next[k]) tmp[k] = -1;
        for (int32_t c = 0; c < C->n; c++) {
            for (int32_t i = C->start[c]; i < C->start[c + 1]; i++) tmp[C->tasks[i]] = c;
        }
        for (int32_t c = 0; c < C->n; c++) {
            wpart_tasks_i_cluster_cv(s, r, C, c, tmp, C->cv + 5 * (int64_t)c);
        }
    }
    top_two_working(C);
    return WPART_OK;
}

/* (used by the incremental rebuild of clusters_inc.c) */

void wpart_tasks_i_sort_tasks(int32_t *a, int32_t n, const int32_t *blk, int32_t *tmp)
{
    sort_tasks(a, n, blk, tmp);
}

void wpart_tasks_i_sort_by_load(int32_t *a, int32_t n, const double *load)
{
    sort_by_load(a, n, load);
}


void wpart_tasks_i_top_two_working(clusters_t *C) { top_two_working(C); }

int wpart_tasks_i_reserve(void **p, int64_t n, size_t sz) { return reserve(p, n, sz); }
