/*
 * clusters_units.c -- the sub-cluster units of CCM-LB (spec 003 section 3.3), tried when no
 * whole-cluster exchange pays: single tasks, the heaviest and lightest subsets of each cluster
 * (built, rebuilt from the units before an exchange, or updated in place), and the per-pair
 * fill units. The clusters themselves are built in clusters.c and clusters_inc.c.
 */
#include <stddef.h>
#include <string.h>

#include "internal.h"
#include "tasks_internal.h"

typedef wpart_tasks_clusters_t clusters_t;

#define cl_key wpart_tasks_i_cluster_key

static int grow(clusters_t *C, int64_t nt, int64_t nc)
{
    if (nt > INT32_MAX || nc + 1 > INT32_MAX) return 0;
    if (nt > C->cap_t) {
        int64_t c = nt > 2 * (int64_t)C->cap_t ? nt : 2 * (int64_t)C->cap_t;
        if (c > INT32_MAX) c = nt;
        if (!wpart_tasks_i_reserve((void **)&C->tasks, c, sizeof(int32_t))) return 0;
        C->cap_t = (int32_t)c;
    }
    if (nc + 1 > C->cap_c) {
        int64_t c = nc + 1 > 2 * (int64_t)C->cap_c ? nc + 1 : 2 * (int64_t)C->cap_c;
        if (c > INT32_MAX - 1) c = nc + 1;
        if (!wpart_tasks_i_reserve((void **)&C->start, c + 1, sizeof(int32_t)) ||
            !wpart_tasks_i_reserve((void **)&C->blk, c, sizeof(int32_t)) ||
            !wpart_tasks_i_reserve((void **)&C->load, c, sizeof(double)) ||
            !wpart_tasks_i_reserve((void **)&C->fp, c, sizeof(double)) ||
            !wpart_tasks_i_reserve((void **)&C->wk, c, sizeof(double)) ||
            !wpart_tasks_i_reserve((void **)&C->deg, c, sizeof(int64_t)) ||
            !wpart_tasks_i_reserve((void **)&C->vol, c, sizeof(double)) ||
            !wpart_tasks_i_reserve((void **)&C->wkr, c, sizeof(double))) {
            return 0;
        }
        C->cap_c = (int32_t)c;
    }
    return 1;
}

/* Appends the unit X[0..m) with its summaries; wkr: the largest working memory of its
 * cluster's other tasks when the cluster holds one block (< 0: unknown). */
static void add_unit(const wpart_tasks_state_t *s, clusters_t *U, const int32_t *X, int32_t m,
                     int force_exact, double wkr)
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
        U->vol[c] += wpart_tasks_i_task_vol(s, t);
    }
    U->blk[c] = b;
    U->wkr[c] = wkr;
    /* overlapping units: the top-two working-memory shortcut and the block summary of a
       multi-block unit do not hold, so such units are evaluated by the edge walk, unless the
       unit's cluster holds one block and wkr gives the working memory of the rest */
    if (((force_exact && !(wkr >= 0.0 && b >= 0)) || b == -2) && U->deg[c] == 0) U->deg[c] = 1;
    U->start[c + 1] = o + m;
}

/* Sizes tried for the prefixes of a cluster of n tasks: all of 2..n-1, at most ~32 spread. */
static int32_t n_sizes(int32_t n) { return n <= 2 ? 0 : (n - 2 <= 32 ? n - 2 : 32); }

static int32_t size_at(int32_t n, int32_t j)
{
    if (n - 2 <= 32) return 2 + j;
    return 2 + (int32_t)((int64_t)j * (n - 3) / 31);
}

/* The SUBSETS units of cluster c of CL (d: its tasks by descending load, n >= 2): each task
 * alone, then the m heaviest and the m lightest for every size m. With working memory and a
 * one-block cluster, each unit gets the largest working memory of the cluster's other tasks
 * (wkr), computed in O(n): the top two for the singles, suffix and prefix maxima for the
 * heaviest and the lightest. */
static void cluster_units(const wpart_tasks_state_t *s, clusters_t *U, const clusters_t *CL,
                          int32_t c, int force)
{
    int32_t n = CL->start[c + 1] - CL->start[c];
    const int32_t *d = CL->byload + CL->start[c];
    const double *wk = s->p.task_working;
    const int known = wk != NULL && CL->blk[c] >= 0;
    double top1 = 0.0, top2 = 0.0, wh[32], wl[32];
    int32_t arg = -1, ns = n_sizes(n);
    if (known) {
        for (int32_t i = 0; i < n; i++) {
            double w = wk[d[i]];
            if (arg < 0 || w > top1) {
                top2 = top1;
                top1 = w;
                arg = i;
            } else if (w > top2) {
                top2 = w;
            }
        }
        double suf = 0.0, pre = 0.0;
        int32_t ps = n, pp = 0;
        for (int32_t j = ns - 1; j >= 0; j--) { /* m shrinks: both ranges grow */
            int32_t m = size_at(n, j);
            while (ps > m) {
                ps--;
                if (wk[d[ps]] > suf) suf = wk[d[ps]];
            }
            while (pp < n - m) {
                if (wk[d[pp]] > pre) pre = wk[d[pp]];
                pp++;
            }
            wh[j] = suf;
            wl[j] = pre;
        }
    }
    for (int32_t i = 0; i < n; i++) {
        add_unit(s, U, d + i, 1, force, known ? (i == arg ? top2 : top1) : -1.0);
    }
    for (int32_t j = 0; j < ns; j++) {
        int32_t m = size_at(n, j);
        add_unit(s, U, d, m, force, known ? wh[j] : -1.0);         /* the m heaviest */
        add_unit(s, U, d + n - m, m, force, known ? wl[j] : -1.0); /* the m lightest */
    }
}

/* room in U for the SUBSETS units of CL's clusters */
static wpart_status_t grow_units(const clusters_t *CL, clusters_t *U)
{
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
    return WPART_OK;
}

/* the summaries of a finished set of SUBSETS units of CL */
static void units_done(const clusters_t *CL, clusters_t *U)
{
    U->wk1 = U->wk2 = 0.0;
    U->wk_arg = -1;
    U->runs = 1;
    U->par = CL;
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
    wpart_status_t st = grow_units(CL, U);
    if (st != WPART_OK) return st;
    const int force = s->p.task_working != NULL;
    U->n = 0;
    U->start[0] = 0;
    for (int32_t c = 0; c < CL->n; c++) {
        if (CL->start[c + 1] - CL->start[c] < 2) continue;
        cluster_units(s, U, CL, c, force);
    }
    units_done(CL, U);
    (void)r;
    (void)tmp;
    return WPART_OK;
}

/* units of a cluster of n tasks (build_units' SUBSETS layout) */
static int32_t n_units(int32_t n) { return n < 2 ? 0 : n + 2 * n_sizes(n); }

int32_t wpart_tasks_i_n_units(int32_t n) { return n_units(n); }

int32_t wpart_tasks_i_run_heaviest(int32_t n)
{
    return n_sizes(n) > 0 ? n + 2 * (n_sizes(n) - 1) : 0;
}

/* appends the units [u0, u1) of old to U */
static void copy_units(const clusters_t *old, int32_t u0, int32_t u1, clusters_t *U)
{
    if (u0 >= u1) return;
    int32_t k = u1 - u0, o = U->start[U->n], t0 = old->start[u0];
    int32_t len = old->start[u1] - t0;
    memcpy(U->tasks + o, old->tasks + t0, sizeof(int32_t) * (size_t)len);
    for (int32_t i = 0; i < k; i++) U->start[U->n + i + 1] = old->start[u0 + i + 1] - t0 + o;
    memcpy(U->blk + U->n, old->blk + u0, sizeof(int32_t) * (size_t)k);
    memcpy(U->load + U->n, old->load + u0, sizeof(double) * (size_t)k);
    memcpy(U->fp + U->n, old->fp + u0, sizeof(double) * (size_t)k);
    memcpy(U->wk + U->n, old->wk + u0, sizeof(double) * (size_t)k);
    memcpy(U->deg + U->n, old->deg + u0, sizeof(int64_t) * (size_t)k);
    memcpy(U->vol + U->n, old->vol + u0, sizeof(double) * (size_t)k);
    memcpy(U->wkr + U->n, old->wkr + u0, sizeof(double) * (size_t)k);
    U->n += k;
}

wpart_status_t wpart_tasks_i_rebuild_units(const wpart_tasks_state_t *s, int32_t r, int split,
                                           const clusters_t *CL, const clusters_t *old_cl,
                                           const clusters_t *old, const int8_t *touched,
                                           clusters_t *U, int32_t *tmp)
{
    U->ord_ok = U->uses = 0;
    if (split < WPART_TASKS_SPLIT_SUBSETS || !s->p.task_block) {
        return wpart_tasks_i_build_units(s, r, split, CL, U, tmp);
    }
    wpart_status_t st = grow_units(CL, U);
    if (st != WPART_OK) return st;
    /* old's units are those of old_cl's clusters in order (n_units each): a cluster of CL
       whose block no moved task touched is the same cluster in old_cl, its units are copied
       (runs of them at once); the others are built afresh */
    const int force = s->p.task_working != NULL;
    U->n = 0;
    U->start[0] = 0;
    int32_t oc = 0, ou = 0, run = 0; /* old cluster, its first unit; old units pending copy */
    for (int32_t c = 0; c < CL->n; c++) {
        int64_t key = cl_key(CL, c);
        while (oc < old_cl->n && cl_key(old_cl, oc) < key) { /* gone: skipped */
            copy_units(old, ou - run, ou, U);
            run = 0;
            ou += n_units(old_cl->start[oc + 1] - old_cl->start[oc]);
            oc++;
        }
        int32_t b = CL->blk[c], ko = 0, here = oc < old_cl->n && cl_key(old_cl, oc) == key;
        if (here) ko = n_units(old_cl->start[oc + 1] - old_cl->start[oc]);
        if (here && b >= 0 && !touched[b]) { /* unchanged */
            ou += ko;
            run += ko;
            oc++;
            continue;
        }
        copy_units(old, ou - run, ou, U);
        run = 0;
        if (here) {
            ou += ko;
            oc++;
        }
        int32_t n = CL->start[c + 1] - CL->start[c];
        if (n < 2) continue;
        cluster_units(s, U, CL, c, force);
    }
    copy_units(old, ou - run, ou, U);
    units_done(CL, U);
    (void)r;
    return WPART_OK;
}

/* An event of update_units: the old run of units [ou, ou + ko) (tasks [ot, ot + to)) is
   replaced by the kn units (tn tasks) built in F from f0 for CL's cluster c (-1: none); du, dt:
   the shift of the units and tasks after it (all events up to it). */
typedef struct {
    int32_t ou, ko, c, f0, kn, ot, to, tn, du, dt;
} uev_t;

/* segment q (0 .. ne) of the units before the update: between events q - 1 and q, moved by
   the shifts of event q - 1 */
typedef struct {
    int32_t u0, u1, t0, t1, du, dt;
} useg_t;

static useg_t seg_of(const uev_t *ev, int64_t ne, int64_t q, int32_t n0, int32_t T0)
{
    useg_t g;
    g.u0 = q > 0 ? ev[q - 1].ou + ev[q - 1].ko : 0;
    g.u1 = q < ne ? ev[q].ou : n0;
    g.t0 = q > 0 ? ev[q - 1].ot + ev[q - 1].to : 0;
    g.t1 = q < ne ? ev[q].ot : T0;
    g.du = q > 0 ? ev[q - 1].du : 0;
    g.dt = q > 0 ? ev[q - 1].dt : 0;
    return g;
}

/* the per-unit arrays of units [u0, u1) moved by du, their task offsets by dt */
static void shift_units(clusters_t *U, int32_t u0, int32_t u1, int32_t du, int32_t dt)
{
    int32_t k = u1 - u0;
    if (k <= 0) return;
    if (du != 0) {
        memmove(U->blk + u0 + du, U->blk + u0, sizeof(int32_t) * (size_t)k);
        memmove(U->load + u0 + du, U->load + u0, sizeof(double) * (size_t)k);
        memmove(U->fp + u0 + du, U->fp + u0, sizeof(double) * (size_t)k);
        memmove(U->wk + u0 + du, U->wk + u0, sizeof(double) * (size_t)k);
        memmove(U->deg + u0 + du, U->deg + u0, sizeof(int64_t) * (size_t)k);
        memmove(U->vol + u0 + du, U->vol + u0, sizeof(double) * (size_t)k);
        memmove(U->wkr + u0 + du, U->wkr + u0, sizeof(double) * (size_t)k);
        memmove(U->start + u0 + du, U->start + u0, sizeof(int32_t) * (size_t)k);
    }
    if (dt != 0) {
        for (int32_t i = u0 + du; i < u1 + du; i++) U->start[i] += dt;
    }
}

wpart_status_t wpart_tasks_i_update_units(const wpart_tasks_state_t *s, int32_t r, int split,
                                          const clusters_t *CL, const clusters_t *old_cl,
                                          const int8_t *touched, clusters_t *U, clusters_t *F,
                                          void *scratch, int64_t scratch_bytes, int *done)
{
    *done = 0;
    (void)r;
    if (split < WPART_TASKS_SPLIT_SUBSETS || !s->p.task_block || !U->runs) return WPART_OK;
    uev_t *ev = scratch;
    const int64_t cap_ev = scratch_bytes / (int64_t)sizeof(uev_t);
    /* the events, in key order */
    int64_t ne = 0;
    int32_t oc = 0, ou = 0;
    int64_t ft = 0, fc = 0; /* fresh tasks and units */
    for (int32_t c = 0; c <= CL->n; c++) {
        int64_t key = c < CL->n ? cl_key(CL, c) : INT64_MAX;
        while (oc < old_cl->n && cl_key(old_cl, oc) < key) { /* gone */
            int32_t ko = n_units(old_cl->start[oc + 1] - old_cl->start[oc]);
            if (ko > 0) {
                if (ne >= cap_ev) return WPART_OK;
                ev[ne].ou = ou;
                ev[ne].ko = ko;
                ev[ne++].c = -1;
            }
            ou += ko;
            oc++;
        }
        if (c == CL->n) break;
        int32_t b = CL->blk[c], ko = 0, here = oc < old_cl->n && cl_key(old_cl, oc) == key;
        if (here) ko = n_units(old_cl->start[oc + 1] - old_cl->start[oc]);
        if (here) {
            ou += ko;
            oc++;
        }
        if (here && b >= 0 && !touched[b]) continue; /* unchanged */
        int32_t n = CL->start[c + 1] - CL->start[c];
        if (ko == 0 && n < 2) continue;
        if (ne >= cap_ev) return WPART_OK;
        ev[ne].ou = ou - ko;
        ev[ne].ko = ko;
        ev[ne++].c = n >= 2 ? c : -1;
        if (n >= 2) {
            ft += n;
            fc += n;
            for (int32_t j = 0; j < n_sizes(n); j++) {
                ft += 2 * (int64_t)size_at(n, j);
                fc += 2;
            }
        }
    }
    if (ou != U->n) return WPART_OK; /* U is not old_cl's units: the copying rebuild */
    U->ord_ok = U->uses = 0;
    /* the fresh units in F, and the shifts */
    if (!grow(F, ft > 0 ? ft : 1, fc)) {
        return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (sub-cluster units)");
    }
    const int force = s->p.task_working != NULL;
    F->n = 0;
    F->start[0] = 0;
    int64_t du = 0, dt = 0;
    for (int64_t q = 0; q < ne; q++) {
        uev_t *e = ev + q;
        e->f0 = F->n;
        if (e->c >= 0) cluster_units(s, F, CL, e->c, force);
        e->kn = F->n - e->f0;
        e->tn = F->start[F->n] - F->start[e->f0];
        e->ot = U->start[e->ou];
        e->to = U->start[e->ou + e->ko] - e->ot;
        du += e->kn - e->ko;
        dt += e->tn - e->to;
        e->du = (int32_t)du;
        e->dt = (int32_t)dt;
    }
    const int32_t n0 = U->n, T0 = U->start[n0];
    if (!grow(U, (int64_t)T0 + (dt > 0 ? dt : 0) + 1, (int64_t)n0 + (du > 0 ? du : 0))) {
        return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (sub-cluster units)");
    }
    /* segment q (0 .. ne) lies between events q - 1 and q and moves by event q - 1's shifts:
       those moving right from the last, those moving left from the first, so that none
       overwrites a segment still to move (the per-unit arrays and the tasks separately) */
    for (int64_t q = ne; q >= 0; q--) {
        useg_t g = seg_of(ev, ne, q, n0, T0);
        if (g.du > 0) shift_units(U, g.u0, g.u1, g.du, g.dt);
    }
    for (int64_t q = 0; q <= ne; q++) {
        useg_t g = seg_of(ev, ne, q, n0, T0);
        if (g.du < 0 || (g.du == 0 && g.dt != 0)) shift_units(U, g.u0, g.u1, g.du, g.dt);
    }
    for (int64_t q = ne; q >= 0; q--) {
        useg_t g = seg_of(ev, ne, q, n0, T0);
        if (g.dt > 0 && g.t1 > g.t0) {
            memmove(U->tasks + g.t0 + g.dt, U->tasks + g.t0,
                    sizeof(int32_t) * (size_t)(g.t1 - g.t0));
        }
    }
    for (int64_t q = 0; q <= ne; q++) {
        useg_t g = seg_of(ev, ne, q, n0, T0);
        if (g.dt < 0 && g.t1 > g.t0) {
            memmove(U->tasks + g.t0 + g.dt, U->tasks + g.t0,
                    sizeof(int32_t) * (size_t)(g.t1 - g.t0));
        }
    }
    /* the fresh units in their places */
    for (int64_t q = 0; q < ne; q++) {
        const uev_t *e = ev + q;
        int32_t pu = e->ou + (q > 0 ? ev[q - 1].du : 0), pt = e->ot + (q > 0 ? ev[q - 1].dt : 0);
        int32_t k = e->kn;
        if (k == 0) continue;
        memcpy(U->tasks + pt, F->tasks + F->start[e->f0], sizeof(int32_t) * (size_t)e->tn);
        for (int32_t i = 0; i < k; i++) {
            U->start[pu + i] = F->start[e->f0 + i] - F->start[e->f0] + pt;
        }
        memcpy(U->blk + pu, F->blk + e->f0, sizeof(int32_t) * (size_t)k);
        memcpy(U->load + pu, F->load + e->f0, sizeof(double) * (size_t)k);
        memcpy(U->fp + pu, F->fp + e->f0, sizeof(double) * (size_t)k);
        memcpy(U->wk + pu, F->wk + e->f0, sizeof(double) * (size_t)k);
        memcpy(U->deg + pu, F->deg + e->f0, sizeof(int64_t) * (size_t)k);
        memcpy(U->vol + pu, F->vol + e->f0, sizeof(double) * (size_t)k);
        memcpy(U->wkr + pu, F->wkr + e->f0, sizeof(double) * (size_t)k);
    }
    U->n = n0 + (int32_t)du;
    U->start[U->n] = T0 + (int32_t)dt;
    units_done(CL, U);
    *done = 1;
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

wpart_status_t wpart_tasks_i_fill_begin(const clusters_t *C, const double *target, clusters_t *U)
{
    U->ord_ok = U->uses = U->runs = 0;
    U->par = C;
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
    U->n = 0;
    U->start[0] = 0;
    U->wk1 = U->wk2 = 0.0;
    U->wk_arg = -1;
    return WPART_OK;
}

int wpart_tasks_i_fill_cluster(const wpart_tasks_state_t *s, const clusters_t *C, int32_t c,
                               double target, int32_t *x, int8_t *in, int32_t *m_out,
                               double *sum_out, double *over_out, double *rest)
{
    rest[0] = rest[1] = -1.0;
    int32_t n = C->start[c + 1] - C->start[c];
    if (n < 2 || !(target > 0)) return 0;
    /* every task fits: no part (the whole cluster is a cluster move) */
    if (n < (1 << 20) && C->load[c] * (1.0 + 1e-9) < target) return 0;
    const double *load = C->lbl + C->start[c]; /* load[i] of task d[i] */
    const int32_t *d = C->byload + C->start[c];
    /* "under": heaviest first, each task taken while the sum stays within the target */
    double sum = 0.0;
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++) {
        in[i] = 0;
        if (sum + load[i] <= target) {
            sum += load[i];
            x[m++] = d[i];
            in[i] = 1;
        }
    }
    int parts = m > 0 && m < n ? 1 : 0;
    /* "over": the same plus the lightest task left out */
    int32_t l = lightest_not_in(d, n, in);
    if (l >= 0 && m + 1 < n) {
        x[m] = d[l];
        *over_out = sum + load[l]; /* add_unit's sum of x[0 .. m] */
        parts |= 2;
    }
    *m_out = m;
    *sum_out = sum;
    const double *wk = s->p.task_working;
    if (parts && wk && C->blk[c] >= 0) { /* the working memory of each part's rest */
        double r0 = 0.0, r1 = 0.0;
        for (int32_t i = 0; i < n; i++) {
            if (in[i]) continue;
            double w = wk[d[i]];
            if (w > r0) r0 = w;
            if (i != l && w > r1) r1 = w;
        }
        rest[0] = r0;
        rest[1] = r1;
    }
    return parts;
}

void wpart_tasks_i_add_part(const wpart_tasks_state_t *s, clusters_t *U, const int32_t *X,
                            int32_t m, double wkr)
{
    add_unit(s, U, X, m, s->p.task_working != NULL, wkr);
}

wpart_status_t wpart_tasks_i_build_fill(const wpart_tasks_state_t *s, const clusters_t *C,
                                        const double *target, clusters_t *U, int32_t *tmp,
                                        int8_t *in)
{
    wpart_status_t st = wpart_tasks_i_fill_begin(C, target, U);
    if (st != WPART_OK) return st;
    const int force = s->p.task_working != NULL;
    for (int32_t c = 0; c < C->n; c++) {
        int32_t m;
        double sum, over, rest[2];
        int parts = wpart_tasks_i_fill_cluster(s, C, c, target[c], tmp, in, &m, &sum, &over,
                                               rest);
        if (parts & 1) add_unit(s, U, tmp, m, force, rest[0]);
        if (parts & 2) add_unit(s, U, tmp, m + 1, force, rest[1]);
    }
    return WPART_OK;
}

/* ------------------------------------------------------------------ shared helpers ------- */