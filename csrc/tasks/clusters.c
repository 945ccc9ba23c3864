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
    free(C->tasks);
    free(C->byload);
    free(C->start);
    free(C->blk);
    free(C->load);
    free(C->fp);
    free(C->wk);
    free(C->deg);
    free(C->vol);
    free(C->cv);
    free(C->ord);
    free(C->ordl);
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
    void *q = realloc(*p, (size_t)(n > 0 ? n : 1) * sz);
    if (!q) return 0;
    *p = q;
    return 1;
}


/* bytes of the edges incident to task t (a self-edge once) */
static double task_vol(const wpart_tasks_state_t *s, int32_t t)
{
    double v = 0.0;
    for (int64_t j = s->inc_ptr[t]; j < s->inc_ptr[t + 1]; j++) v += s->p.edge_bytes[s->inc_edge[j]];
    return v;
}

static void sort_by_load(int32_t *a, int32_t n, const double *load);

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

wpart_status_t wpart_tasks_i_build_clusters(const wpart_tasks_state_t *s, int32_t r, int mode,
                                            clusters_t *C, int32_t *tmp, const comm_ctx_t *cc)
{
    C->ord_ok = C->uses = 0;
    const wpart_tasks_problem_t *p = &s->p;
    int32_t n = s->rank[r].cnt;
    if (n > C->cap_t || n + 1 > C->cap_c) {
        int32_t nc = n + 1 > 2 * C->cap_c ? n + 1 : 2 * C->cap_c;
        if (!reserve((void **)&C->tasks, n > 2 * C->cap_t ? n : 2 * C->cap_t, sizeof(int32_t)) ||
            !reserve((void **)&C->byload, n > 2 * C->cap_t ? n : 2 * C->cap_t,
                     sizeof(int32_t)) ||
            !reserve((void **)&C->start, nc + 1, sizeof(int32_t)) ||
            !reserve((void **)&C->blk, nc, sizeof(int32_t)) ||
            !reserve((void **)&C->load, nc, sizeof(double)) ||
            !reserve((void **)&C->fp, nc, sizeof(double)) ||
            !reserve((void **)&C->wk, nc, sizeof(double)) ||
            !reserve((void **)&C->deg, nc, sizeof(int64_t)) ||
            !reserve((void **)&C->vol, nc, sizeof(double)) ||
            !reserve((void **)&C->cv, 5 * (int64_t)nc, sizeof(double))) {
            return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (clusters)");
        }
        C->cap_t = n > 2 * C->cap_t ? n : 2 * C->cap_t;
        C->cap_c = nc;
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
        C->vol[c] += task_vol(s, t);
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
    /* directional volumes of every cluster; tmp[t] = cluster of t (-1: pinned) on rank r */
    if (p->n_edges > 0) {
        for (int32_t k = s->head[r]; k >= 0; k = s->next[k]) tmp[k] = -1;
        for (int32_t c = 0; c < C->n; c++) {
            for (int32_t i = C->start[c]; i < C->start[c + 1]; i++) tmp[C->tasks[i]] = c;
        }
        for (int32_t c = 0; c < C->n; c++) {
            double in_ = 0, ot = 0, it = 0, so = 0, si = 0;
            for (int32_t i = C->start[c]; i < C->start[c + 1]; i++) {
                int32_t t = C->tasks[i];
                for (int64_t j = s->inc_ptr[t]; j < s->inc_ptr[t + 1]; j++) {
                    int64_t e = s->inc_edge[j];
                    int32_t a = p->edge_src[e], b2 = p->edge_dst[e];
                    int32_t o = a == t ? b2 : a;
                    double v = p->edge_bytes[e];
                    int mine = s->assign[o] == r;
                    if (o == t || (mine && tmp[o] == c)) {
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
            double *cv = C->cv + 5 * (int64_t)c;
            cv[0] = in_;
            cv[1] = ot;
            cv[2] = it;
            cv[3] = so;
            cv[4] = si;
        }
    }
    top_two_working(C);
    return WPART_OK;
}

/* cv (5 doubles) of cluster c of C on rank r; tmp[t] = cluster of each task of r */
static void cluster_cv(const wpart_tasks_state_t *s, int32_t r, const clusters_t *C, int32_t c,
                       const int32_t *tmp, double *cv)
{
    const wpart_tasks_problem_t *p = &s->p;
    double in_ = 0, ot = 0, it = 0, so = 0, si = 0;
    for (int32_t i = C->start[c]; i < C->start[c + 1]; i++) {
        int32_t t = C->tasks[i];
        for (int64_t j = s->inc_ptr[t]; j < s->inc_ptr[t + 1]; j++) {
            int64_t e = s->inc_edge[j];
            int32_t a = p->edge_src[e], b2 = p->edge_dst[e];
            int32_t o = a == t ? b2 : a;
            double v = p->edge_bytes[e];
            int mine = s->assign[o] == r;
            if (o == t || (mine && tmp[o] == c)) {
                if (t == a) in_ += v;
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

wpart_status_t wpart_tasks_i_rebuild_clusters(const wpart_tasks_state_t *s, int32_t r,
                                              const clusters_t *old, const int32_t *moved,
                                              int32_t n_moved, const int8_t *touched,
                                              int32_t *oldc, clusters_t *C, int32_t *tmp,
                                              int32_t *tmp2)
{
    C->ord_ok = C->uses = 0;
    const wpart_tasks_problem_t *p = &s->p;
    const int32_t *blk = p->task_block;
    int32_t n = s->rank[r].cnt;
    if (n > C->cap_t || n + 1 > C->cap_c) {
        int32_t nc = n + 1 > 2 * C->cap_c ? n + 1 : 2 * C->cap_c;
        int32_t ntk = n > 2 * C->cap_t ? n : 2 * C->cap_t;
        if (!reserve((void **)&C->tasks, ntk, sizeof(int32_t)) ||
            !reserve((void **)&C->byload, ntk, sizeof(int32_t)) ||
            !reserve((void **)&C->start, nc + 1, sizeof(int32_t)) ||
            !reserve((void **)&C->blk, nc, sizeof(int32_t)) ||
            !reserve((void **)&C->load, nc, sizeof(double)) ||
            !reserve((void **)&C->fp, nc, sizeof(double)) ||
            !reserve((void **)&C->wk, nc, sizeof(double)) ||
            !reserve((void **)&C->deg, nc, sizeof(int64_t)) ||
            !reserve((void **)&C->vol, nc, sizeof(double)) ||
            !reserve((void **)&C->cv, 5 * (int64_t)nc, sizeof(double))) {
            return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (clusters)");
        }
        C->cap_t = ntk;
        C->cap_c = nc;
    }
    C->wk_fixed = old->wk_fixed; /* pinned tasks never move */
    /* oldc: the old cluster of every task of `old`, -1 for the moved tasks that were not in
       it; arrivals (on r now, not in old) sorted, merged into the old order */
    for (int32_t i = 0; i < n_moved; i++) oldc[moved[i]] = -1;
    for (int32_t c = 0; c < old->n; c++) {
        for (int32_t i = old->start[c]; i < old->start[c + 1]; i++) oldc[old->tasks[i]] = c;
    }
    int32_t na = 0;
    for (int32_t i = 0; i < n_moved; i++) {
        if (s->assign[moved[i]] == r && oldc[moved[i]] < 0) tmp[na++] = moved[i];
    }
    sort_tasks(tmp, na, blk, tmp2);
    int32_t m = 0, ia = 0;
    for (int32_t i = 0; i < old->start[old->n]; i++) {
        int32_t t = old->tasks[i];
        if (s->assign[t] != r) continue;
        while (ia < na && cmp_block_task(tmp[ia], t, blk) < 0) C->tasks[m++] = tmp[ia++];
        C->tasks[m++] = t;
    }
    while (ia < na) C->tasks[m++] = tmp[ia++];
    /* clusters: one per block on the rank, block-less tasks alone */
    C->n = 0;
    for (int32_t i = 0; i < m; i++) {
        int32_t t = C->tasks[i];
        int32_t b = blk ? blk[t] : -1;
        if (b < 0 || i == 0 || b != C->blk[C->n - 1]) {
            C->start[C->n] = i;
            C->blk[C->n] = b;
            C->n++;
        }
    }
    C->start[C->n] = m;
    /* sums: an unchanged cluster's from old (the same tasks in the same order), else afresh
       in the order of a full build */
    for (int32_t c = 0; c < C->n; c++) {
        int32_t t0 = C->tasks[C->start[c]], b = C->blk[c];
        if (b >= 0 ? !touched[b] : oldc[t0] >= 0) {
            int32_t oc = oldc[t0];
            C->load[c] = old->load[oc];
            C->fp[c] = old->fp[oc];
            C->wk[c] = old->wk[oc];
            C->deg[c] = old->deg[oc];
            continue;
        }
        C->load[c] = C->fp[c] = C->wk[c] = 0.0;
        C->deg[c] = 0;
        for (int32_t i = C->start[c]; i < C->start[c + 1]; i++) {
            int32_t t = C->tasks[i];
            C->load[c] += p->task_load[t];
            if (p->task_footprint) C->fp[c] += p->task_footprint[t];
            if (p->task_working && p->task_working[t] > C->wk[c]) C->wk[c] = p->task_working[t];
            C->deg[c] += s->inc_ptr[t + 1] - s->inc_ptr[t];
        }
    }
    /* an unchanged cluster (its block touched by no moved task; a block-less task that did not
       move) keeps its order by load, volume and directional volumes */
    if (p->n_edges > 0) {
        for (int32_t k = s->head[r]; k >= 0; k = s->next[k]) tmp[k] = -1;
        for (int32_t c = 0; c < C->n; c++) {
            for (int32_t i = C->start[c]; i < C->start[c + 1]; i++) tmp[C->tasks[i]] = c;
        }
    }
    for (int32_t c = 0; c < C->n; c++) {
        int32_t t0 = C->tasks[C->start[c]], b = C->blk[c], len = C->start[c + 1] - C->start[c];
        /* a task of `old` has oldc >= 0, an arrival -1 */
        int same = b >= 0 ? !touched[b] : oldc[t0] >= 0;
        if (same) { /* with the next unchanged clusters that follow it in old too */
            int32_t oc = oldc[t0], k = 1;
            while (c + k < C->n) {
                int32_t t1 = C->tasks[C->start[c + k]], b1 = C->blk[c + k];
                if (!(b1 >= 0 ? !touched[b1] : oldc[t1] >= 0) || oldc[t1] != oc + k) break;
                k++;
            }
            len = C->start[c + k] - C->start[c];
            memcpy(C->byload + C->start[c], old->byload + old->start[oc],
                   sizeof(int32_t) * (size_t)len);
            memcpy(C->vol + c, old->vol + oc, sizeof(double) * (size_t)k);
            memcpy(C->cv + 5 * (int64_t)c, old->cv + 5 * (int64_t)oc,
                   5 * sizeof(double) * (size_t)k);
            c += k - 1;
        } else {
            memcpy(C->byload + C->start[c], C->tasks + C->start[c], sizeof(int32_t) * (size_t)len);
            sort_by_load(C->byload + C->start[c], len, p->task_load);
            double v = 0.0;
            for (int32_t i = C->start[c]; i < C->start[c + 1]; i++) v += task_vol(s, C->tasks[i]);
            C->vol[c] = v;
            if (p->n_edges > 0) cluster_cv(s, r, C, c, tmp, C->cv + 5 * (int64_t)c);
            C->deg[c] = -1 - C->deg[c]; /* marks "computed afresh" until the loop below */
        }
    }
    /* bytes of the unchanged clusters to their own rank: the moved tasks' edges */
    if (p->n_edges > 0) {
        for (int32_t i = 0; i < n_moved; i++) {
            int32_t t = moved[i];
            int now = s->assign[t] == r, was = oldc[t] >= 0;
            if (now == was) continue; /* moved away and back, or through */
            double sign = now ? 1.0 : -1.0; /* arrived / left */
            for (int64_t j = s->inc_ptr[t]; j < s->inc_ptr[t + 1]; j++) {
                int64_t e = s->inc_edge[j];
                int32_t a = p->edge_src[e], b2 = p->edge_dst[e];
                int32_t o = a == t ? b2 : a;
                if (o == t || s->assign[o] != r) continue;
                int32_t c = tmp[o];
                if (c < 0 || C->deg[c] < 0) continue; /* pinned, or computed afresh */
                C->cv[5 * (int64_t)c + (o == a ? 3 : 4)] += sign * p->edge_bytes[e];
            }
        }
    }
    for (int32_t c = 0; c < C->n; c++) {
        if (C->deg[c] < 0) C->deg[c] = -1 - C->deg[c];
    }
    top_two_working(C);
    return WPART_OK;
}

/* ------------------------------------------------------------------ sub-cluster units ---- */

static int grow(clusters_t *C, int64_t nt, int64_t nc)
{
    if (nt > INT32_MAX || nc + 1 > INT32_MAX) return 0;
    if (nt > C->cap_t) {
        int64_t c = nt > 2 * (int64_t)C->cap_t ? nt : 2 * (int64_t)C->cap_t;
        if (c > INT32_MAX) c = nt;
        if (!reserve((void **)&C->tasks, c, sizeof(int32_t))) return 0;
        C->cap_t = (int32_t)c;
    }
    if (nc + 1 > C->cap_c) {
        int64_t c = nc + 1 > 2 * (int64_t)C->cap_c ? nc + 1 : 2 * (int64_t)C->cap_c;
        if (c > INT32_MAX - 1) c = nc + 1;
        if (!reserve((void **)&C->start, c + 1, sizeof(int32_t)) ||
            !reserve((void **)&C->blk, c, sizeof(int32_t)) ||
            !reserve((void **)&C->load, c, sizeof(double)) ||
            !reserve((void **)&C->fp, c, sizeof(double)) ||
            !reserve((void **)&C->wk, c, sizeof(double)) ||
            !reserve((void **)&C->deg, c, sizeof(int64_t)) ||
            !reserve((void **)&C->vol, c, sizeof(double))) {
            return 0;
        }
        C->cap_c = (int32_t)c;
    }
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

/* Appends the unit X[0..m) with its summaries. */
static void add_unit(const wpart_tasks_state_t *s, clusters_t *U, const int32_t *X, int32_t m,
                     int force_exact)
{
    const wpart_tasks_problem_t *p = &s->p;
    int32_t c = U->n++, o = U->start[c];
    int32_t b = -1;
    U->load[c] = U->fp[c] = U->wk[c] = 0.0;
    U->deg[c] = 0;
    U->vol[c] = 0.0;
    for (int32_t i = 0; i < m; i++) {
        int32_t t = X[i];
        int32_t bt = p->task_block ? p->task_block[t] : -1;
        b = i == 0 ? bt : (b == bt ? b : -2);
        U->tasks[o + i] = t;
        U->load[c] += p->task_load[t];
        if (p->task_footprint) U->fp[c] += p->task_footprint[t];
        if (p->task_working && p->task_working[t] > U->wk[c]) U->wk[c] = p->task_working[t];
        U->deg[c] += s->inc_ptr[t + 1] - s->inc_ptr[t];
        U->vol[c] += task_vol(s, t);
    }
    U->blk[c] = b;
    /* overlapping units: the top-two working-memory shortcut and the block summary of a
       multi-block unit do not hold, so such units are always evaluated by the edge walk */
    if ((force_exact || b == -2) && U->deg[c] == 0) U->deg[c] = 1;
    U->start[c + 1] = o + m;
}

/* Sizes tried for the prefixes of a cluster of n tasks: all of 2..n-1, at most ~32 spread. */
static int32_t n_sizes(int32_t n) { return n <= 2 ? 0 : (n - 2 <= 32 ? n - 2 : 32); }

static int32_t size_at(int32_t n, int32_t j)
{
    if (n - 2 <= 32) return 2 + j;
    return 2 + (int32_t)((int64_t)j * (n - 3) / 31);
}

wpart_status_t wpart_tasks_i_build_units(const wpart_tasks_state_t *s, int32_t r, int split,
                                         const clusters_t *CL, clusters_t *U, int32_t *tmp)
{
    U->ord_ok = U->uses = 0;
    if (split == WPART_TASKS_SPLIT_SINGLES) {
        return wpart_tasks_i_build_clusters(s, r, WPART_TASKS_CLUSTER_TASK, U, tmp, NULL);
    }
    /* WPART_TASKS_SPLIT_SUBSETS: for every cluster of >= 2 tasks, each task alone, the m
       heaviest and the m lightest tasks for 2 <= m < n (a cluster's part moves, the block
       is then replicated). */
    int64_t nt = 0, nc = 0;
    for (int32_t c = 0; c < CL->n; c++) {
        int32_t n = CL->start[c + 1] - CL->start[c];
        if (n < 2) continue;
        nt += n;
        nc += n;
        for (int32_t j = 0; j < n_sizes(n); j++) {
            int32_t m = size_at(n, j);
            nt += 2 * (int64_t)m;
            nc += 2;
        }
    }
    if (!grow(U, nt > 0 ? nt : 1, nc)) {
        return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (sub-cluster units)");
    }
    const int force = s->p.task_working != NULL;
    U->n = 0;
    U->start[0] = 0;
    for (int32_t c = 0; c < CL->n; c++) {
        int32_t n = CL->start[c + 1] - CL->start[c];
        if (n < 2) continue;
        const int32_t *d = CL->byload + CL->start[c];
        for (int32_t i = 0; i < n; i++) add_unit(s, U, d + i, 1, force);
        for (int32_t j = 0; j < n_sizes(n); j++) {
            int32_t m = size_at(n, j);
            add_unit(s, U, d, m, force);         /* the m heaviest */
            add_unit(s, U, d + n - m, m, force); /* the m lightest */
        }
    }
    U->wk1 = U->wk2 = 0.0;
    U->wk_arg = -1;
    (void)r;
    (void)tmp;
    return WPART_OK;
}

wpart_status_t wpart_tasks_i_rebuild_units(const wpart_tasks_state_t *s, int32_t r, int split,
                                           const clusters_t *CL, const clusters_t *old,
                                           const int8_t *touched, int32_t *bfirst, clusters_t *U,
                                           int32_t *tmp)
{
    U->ord_ok = U->uses = 0;
    if (split < WPART_TASKS_SPLIT_SUBSETS || !s->p.task_block) {
        return wpart_tasks_i_build_units(s, r, split, CL, U, tmp);
    }
    int64_t nt = 0, nc = 0;
    for (int32_t c = 0; c < CL->n; c++) {
        int32_t n = CL->start[c + 1] - CL->start[c];
        if (n < 2) continue;
        nt += n;
        nc += n;
        for (int32_t j = 0; j < n_sizes(n); j++) {
            nt += 2 * (int64_t)size_at(n, j);
            nc += 2;
        }
    }
    if (!grow(U, nt > 0 ? nt : 1, nc)) {
        return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (sub-cluster units)");
    }
    /* the runs of old: the units of one cluster are consecutive and share its block */
    for (int32_t u = 0; u < old->n; u++) {
        int32_t b = old->blk[u];
        if (b >= 0 && (u == 0 || old->blk[u - 1] != b)) bfirst[b] = u;
    }
    const int force = s->p.task_working != NULL;
    U->n = 0;
    U->start[0] = 0;
    for (int32_t c = 0; c < CL->n; c++) {
        int32_t n = CL->start[c + 1] - CL->start[c];
        if (n < 2) continue;
        int32_t b = CL->blk[c];
        int32_t u0 = b >= 0 && !touched[b] ? bfirst[b] : -1;
        if (u0 >= 0) { /* unchanged cluster: its units as they were; the next unchanged
                          clusters whose units follow in old are copied with it */
            int32_t u1 = u0;
            while (u1 < old->n && old->blk[u1] == b) u1++;
            for (int32_t c2 = c + 1; c2 < CL->n; c2++) {
                int32_t n2 = CL->start[c2 + 1] - CL->start[c2], b2 = CL->blk[c2];
                if (n2 < 2) { /* no units, old or new */
                    c = c2;
                    continue;
                }
                if (b2 < 0 || touched[b2] || bfirst[b2] != u1) break;
                while (u1 < old->n && old->blk[u1] == b2) u1++;
                c = c2;
            }
            int32_t k = u1 - u0, o = U->start[U->n], t0 = old->start[u0];
            int32_t len = old->start[u1] - t0;
            memcpy(U->tasks + o, old->tasks + t0, sizeof(int32_t) * (size_t)len);
            for (int32_t i = 0; i < k; i++) {
                U->start[U->n + i + 1] = old->start[u0 + i + 1] - t0 + o;
            }
            memcpy(U->blk + U->n, old->blk + u0, sizeof(int32_t) * (size_t)k);
            memcpy(U->load + U->n, old->load + u0, sizeof(double) * (size_t)k);
            memcpy(U->fp + U->n, old->fp + u0, sizeof(double) * (size_t)k);
            memcpy(U->wk + U->n, old->wk + u0, sizeof(double) * (size_t)k);
            memcpy(U->deg + U->n, old->deg + u0, sizeof(int64_t) * (size_t)k);
            memcpy(U->vol + U->n, old->vol + u0, sizeof(double) * (size_t)k);
            U->n += k;
            continue;
        }
        const int32_t *d = CL->byload + CL->start[c];
        for (int32_t i = 0; i < n; i++) add_unit(s, U, d + i, 1, force);
        for (int32_t j = 0; j < n_sizes(n); j++) {
            int32_t m = size_at(n, j);
            add_unit(s, U, d, m, force);
            add_unit(s, U, d + n - m, m, force);
        }
    }
    for (int32_t u = 0; u < old->n; u++) {
        if (old->blk[u] >= 0) bfirst[old->blk[u]] = -1;
    }
    U->wk1 = U->wk2 = 0.0;
    U->wk_arg = -1;
    (void)r;
    return WPART_OK;
}

/* position of the lightest task of d (sorted by descending load) not taken */
static int32_t lightest_not_in(const int32_t *d, int32_t n, const int8_t *in)
{
    for (int32_t i = n - 1; i >= 0; i--) {
        if (!in[i]) return i;
    }
    return -1;
}

wpart_status_t wpart_tasks_i_build_fill(const wpart_tasks_state_t *s, const clusters_t *C,
                                        const double *target, clusters_t *U, int32_t *tmp,
                                        int8_t *in)
{
    U->ord_ok = U->uses = 0;
    int64_t nt = 0, nc = 0;
    for (int32_t c = 0; c < C->n; c++) {
        int32_t n = C->start[c + 1] - C->start[c];
        if (n < 2 || !(target[c] > 0)) continue;
        nt += 2 * (int64_t)n;
        nc += 2;
    }
    if (!grow(U, nt > 0 ? nt : 1, nc)) {
        return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (target units)");
    }
    const int force = s->p.task_working != NULL;
    const double *load = s->p.task_load;
    U->n = 0;
    U->start[0] = 0;
    for (int32_t c = 0; c < C->n; c++) {
        int32_t n = C->start[c + 1] - C->start[c];
        if (n < 2 || !(target[c] > 0)) continue;
        /* every task fits: no part (the whole cluster is a cluster move) */
        if (n < (1 << 20) && C->load[c] * (1.0 + 1e-9) < target[c]) continue;
        const int32_t *d = C->byload + C->start[c];
        int32_t *x = tmp;
        /* "under": heaviest first, each task taken while the sum stays within the target */
        double sum = 0.0;
        int32_t m = 0;
        for (int32_t i = 0; i < n; i++) {
            in[i] = 0;
            if (sum + load[d[i]] <= target[c]) {
                sum += load[d[i]];
                x[m++] = d[i];
                in[i] = 1;
            }
        }
        if (m > 0 && m < n) add_unit(s, U, x, m, force);
        /* "over": the same plus the lightest task left out */
        int32_t l = lightest_not_in(d, n, in);
        if (l >= 0 && m + 1 < n) {
            x[m] = d[l];
            add_unit(s, U, x, m + 1, force);
        }
    }
    U->wk1 = U->wk2 = 0.0;
    U->wk_arg = -1;
    return WPART_OK;
}
