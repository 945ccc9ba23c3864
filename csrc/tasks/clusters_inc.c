/*
 * clusters_inc.c -- the block clusters of one rank after exchanges, from its clusters before
 * them (CCM-LB's serial engine rebuilds the two ranks of every exchange; spec 003 section 3.3).
 *
 * The clusters of a rank are sorted by key (the block, then the block-less tasks by id, each
 * alone), so the clusters the moved tasks did not touch are runs of the old arrays: they are
 * copied whole (memcpy of their tasks and summaries, their offsets shifted), and only the
 * clusters of the moved tasks' blocks are built afresh. The cost is O(clusters of the rank +
 * tasks of the changed clusters + log per moved task) plus the copies, instead of a pass over
 * every task of the rank with a lookup of its block, cluster and rank each (cache misses on
 * K-sized arrays, which made the rebuild the largest cost per exchange at 466 k tasks).
 */
#include <stddef.h>
#include <string.h>

#include "internal.h"
#include "tasks_internal.h"

typedef wpart_tasks_clusters_t clusters_t;

#define task_key wpart_tasks_i_task_key
#define clus_key wpart_tasks_i_cluster_key

/* first cluster of C[lo .. C->n) with a key >= k */
static int32_t find_key(const clusters_t *C, int32_t lo, int64_t k)
{
    int32_t hi = C->n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (clus_key(C, mid) < k) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* appends old's clusters [a, b) to C (m: tasks of C so far) */
static void copy_run(const clusters_t *old, int32_t a, int32_t b, clusters_t *C, int32_t *m)
{
    if (a >= b) return;
    int32_t k = b - a, t0 = old->start[a], len = old->start[b] - t0, n = C->n;
    memcpy(C->tasks + *m, old->tasks + t0, sizeof(int32_t) * (size_t)len);
    memcpy(C->byload + *m, old->byload + t0, sizeof(int32_t) * (size_t)len);
    memcpy(C->lbl + *m, old->lbl + t0, sizeof(double) * (size_t)len);
    for (int32_t i = 0; i < k; i++) C->start[n + i] = old->start[a + i] - t0 + *m;
    memcpy(C->blk + n, old->blk + a, sizeof(int32_t) * (size_t)k);
    memcpy(C->load + n, old->load + a, sizeof(double) * (size_t)k);
    memcpy(C->fp + n, old->fp + a, sizeof(double) * (size_t)k);
    memcpy(C->wk + n, old->wk + a, sizeof(double) * (size_t)k);
    memcpy(C->deg + n, old->deg + a, sizeof(int64_t) * (size_t)k);
    memcpy(C->vol + n, old->vol + a, sizeof(double) * (size_t)k);
    memcpy(C->cv + 5 * (int64_t)n, old->cv + 5 * (int64_t)a, 5 * sizeof(double) * (size_t)k);
    C->n += k;
    *m += len;
}

/* appends the cluster of tasks X[0..n) (sorted by id, one block or one block-less task) with
   its summaries computed afresh, in the order of a full build; marked by deg < 0 */
static void add_fresh(const wpart_tasks_state_t *s, int32_t r, const int32_t *X, int32_t n,
                      clusters_t *C, int32_t *m)
{
    const wpart_tasks_problem_t *p = &s->p;
    int32_t c = C->n++;
    C->start[c] = *m;
    C->blk[c] = p->task_block ? p->task_block[X[0]] : -1;
    C->load[c] = C->fp[c] = C->wk[c] = 0.0;
    C->deg[c] = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t t = X[i];
        C->tasks[*m + i] = t;
        C->load[c] += p->task_load[t];
        if (p->task_footprint) C->fp[c] += p->task_footprint[t];
        if (p->task_working && p->task_working[t] > C->wk[c]) C->wk[c] = p->task_working[t];
        C->deg[c] += s->inc_ptr[t + 1] - s->inc_ptr[t];
    }
    memcpy(C->byload + *m, X, sizeof(int32_t) * (size_t)n);
    wpart_tasks_i_sort_by_load(C->byload + *m, n, p->task_load);
    for (int32_t i = 0; i < n; i++) C->lbl[*m + i] = p->task_load[C->byload[*m + i]];
    double v = 0.0;
    for (int32_t i = 0; i < n; i++) v += wpart_tasks_i_task_vol(s, X[i]);
    C->vol[c] = v;
    *m += n;
    C->start[c + 1] = *m;
    if (p->n_edges > 0) wpart_tasks_i_cluster_cv(s, r, C, c, NULL, C->cv + 5 * (int64_t)c);
    else memset(C->cv + 5 * (int64_t)c, 0, 5 * sizeof(double));
    C->deg[c] = -1 - C->deg[c];
}

/* C's clusters by ascending load, ties by index (the order FindBestCCM's scan sorts them in,
   ccm_prune.c) from old's when old had it: the clusters copied keep their order, the few
   built afresh (deg < 0 here) are merged in. map: old->n scratch. No memory: left unsorted. */
static void keep_order(const clusters_t *old, clusters_t *C, int32_t *map)
{
    if (!old->ord_ok || C->n == 0) return;
    if (C->n > C->ord_cap) {
        int32_t *o = wpart_i_realloc(C->ord, C->n, sizeof(int32_t));
        if (o) C->ord = o;
        double *l = wpart_i_realloc(C->ordl, C->n, sizeof(double));
        if (l) C->ordl = l;
        if (!o || !l) return;
        C->ord_cap = C->n;
    }
    for (int32_t o = 0; o < old->n; o++) map[o] = -1;
    int32_t nf = 0;
    for (int32_t c = 0, o = 0; c < C->n; c++) { /* both by key: a copied cluster is in old */
        if (C->deg[c] < 0) {
            nf++;
            continue;
        }
        int64_t key = clus_key(C, c);
        while (o < old->n && clus_key(old, o) < key) o++;
        if (o >= old->n) return; /* not expected */
        map[o++] = c;
    }
    /* the fresh clusters at the end of ord, by (load, index) */
    int32_t *f = C->ord + (C->n - nf), k = 0;
    for (int32_t c = 0; c < C->n; c++) {
        if (C->deg[c] >= 0) continue;
        int32_t j = k++;
        while (j > 0 && (C->load[f[j - 1]] > C->load[c] ||
                         (C->load[f[j - 1]] == C->load[c] && f[j - 1] > c))) {
            f[j] = f[j - 1];
            j--;
        }
        f[j] = c;
    }
    /* merge: an output position never passes the next fresh one still to place */
    int32_t t = 0, i = 0, out = 0;
    while (out < C->n) {
        while (t < old->n && map[old->ord[t]] < 0) t++;
        int32_t a = t < old->n ? map[old->ord[t]] : -1, b = i < nf ? f[i] : -1;
        int take_old = a >= 0 && (b < 0 || C->load[a] < C->load[b] ||
                                  (C->load[a] == C->load[b] && a < b));
        int32_t c = take_old ? a : b;
        if (take_old) t++;
        else i++;
        C->ord[out] = c;
        C->ordl[out] = C->load[c];
        out++;
    }
    C->ord_ok = 1;
}

wpart_status_t wpart_tasks_i_rebuild_clusters(const wpart_tasks_state_t *s, int32_t r,
                                              const clusters_t *old, const int32_t *moved,
                                              int32_t n_moved, const int8_t *touched,
                                              int32_t *oldc, clusters_t *C, int32_t *tmp,
                                              int32_t *tmp2)
{
    C->ord_ok = C->uses = C->runs = 0;
    C->par = NULL;
    const wpart_tasks_problem_t *p = &s->p;
    const int32_t *blk = p->task_block;
    int32_t n = s->rank[r].cnt;
    if (!wpart_tasks_i_clusters_reserve(C, n)) {
        return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (clusters)");
    }
    (void)touched; /* the moved tasks' blocks: the groups of mv below */
    C->wk_fixed = old->wk_fixed; /* pinned tasks never move */
    /* the moved tasks by key (block, then id): a group per block, a block-less task alone */
    int32_t *mv = tmp2;
    if (n_moved > 0) memcpy(mv, moved, sizeof(int32_t) * (size_t)n_moved);
    wpart_tasks_i_sort_tasks(mv, n_moved, blk, tmp);
    C->n = 0;
    int32_t m = 0, oc = 0;
    for (int32_t g = 0; g < n_moved;) {
        int64_t key = task_key(blk, mv[g]);
        int32_t ge = g + 1;
        while (ge < n_moved && task_key(blk, mv[ge]) == key) ge++;
        /* the unchanged clusters before the group's key, copied whole */
        int32_t at = find_key(old, oc, key);
        copy_run(old, oc, at, C, &m);
        oc = at;
        int32_t a0 = 0, a1 = 0; /* the old cluster of the key (none: empty) */
        if (oc < old->n && clus_key(old, oc) == key) {
            a0 = old->start[oc];
            a1 = old->start[oc + 1];
        }
        /* tasks on r now: the old cluster's that stayed and the group's that are here (both
           by id; a task in both moved away and back); oldc[t] = 1 when t was in old */
        int32_t x = 0, i = a0, j = g;
        while (i < a1 || j < ge) {
            int32_t ti = i < a1 ? old->tasks[i] : INT32_MAX, tj = j < ge ? mv[j] : INT32_MAX;
            int32_t t = ti <= tj ? ti : tj;
            if (j < ge && tj == t) oldc[t] = ti == t;
            if (ti == t) i++;
            if (tj == t) j++;
            if (s->assign[t] == r) tmp[x++] = t;
        }
        if (key >= WPART_TASKS_KEY_FREE && a1 > a0 && x == 1) {
            copy_run(old, oc, oc + 1, C, &m); /* a block-less task away and back: kept */
        } else if (x > 0) {
            add_fresh(s, r, tmp, x, C, &m);
        }
        if (a1 > a0) oc++;
        g = ge;
    }
    copy_run(old, oc, old->n, C, &m);
    C->start[C->n] = m;
    /* bytes of the unchanged clusters to their own rank: the moved tasks' edges (in the order
       of moved[], as the sums were kept so far) */
    if (p->n_edges > 0) {
        const uint8_t *mig = p->task_migratable;
        for (int32_t i = 0; i < n_moved; i++) {
            int32_t t = moved[i];
            int now = s->assign[t] == r, was = oldc[t];
            if (now == was) continue; /* moved away and back, or through */
            double sign = now ? 1.0 : -1.0; /* arrived / left */
            for (int64_t j = s->inc_ptr[t]; j < s->inc_ptr[t + 1]; j++) {
                int64_t e = s->inc_edge[j];
                int32_t a = p->edge_src[e], b2 = p->edge_dst[e];
                int32_t o = a == t ? b2 : a;
                if (o == t || s->assign[o] != r || (mig && !mig[o])) continue;
                int64_t ko = task_key(blk, o);
                int32_t c = find_key(C, 0, ko);
                if (c >= C->n || clus_key(C, c) != ko || C->deg[c] < 0) continue; /* afresh */
                C->cv[5 * (int64_t)c + (o == a ? 3 : 4)] += sign * p->edge_bytes[e];
            }
        }
    }
    keep_order(old, C, tmp);
    for (int32_t c = 0; c < C->n; c++) {
        if (C->deg[c] < 0) C->deg[c] = -1 - C->deg[c];
    }
    wpart_tasks_i_top_two_working(C);
    return WPART_OK;
}
