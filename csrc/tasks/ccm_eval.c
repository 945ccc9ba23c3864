/*
 * ccm_eval.c -- candidate evaluation of CCM-LB (spec 003 sections 1.8 and 3.5): exchanges
 * estimated from cluster summaries and the closed form of spec 1.8, the acceptance rule and
 * FindBestCCM. Shared by the serial engine (ccm.c) and the per-pair step of the distributed
 * engines (ccm_pair.c).
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "internal.h"
#include "ccm_internal.h"

/* Presence update of one rank for up to two blocks, in the exchange's order (bit-identical). */
static void fast_blocks(const wpart_tasks_state_t *s, int32_t r, const int32_t *rc,
                        const int32_t *bl, const int32_t *d, int nb, wpart_tasks_rank_t *v)
{
    for (int i = 0; i < nb; i++) {
        int32_t b = bl[i];
        if (d[i] == 0) continue;
        int32_t old = rc[b], nw = old + d[i];
        double sz = s->p.block_size[b];
        int off = s->p.block_home[b] != r;
        wpart_tasks_i_presence(v, old, nw, sz, off);
    }
}

static double wmax_after_c(const wpart_tasks_state_t *s, double cur, const clusters_t *C,
                           int32_t i, double in_wk)
{
    if (!s->p.task_working) return 0.0;
    double m;
    if (i >= 0 && C->wk[i] >= cur && C->start[i + 1] > C->start[i] && C->par &&
        C->wkr[i] >= 0.0) {
        /* a unit of a one-block cluster (wkr known, else it takes the exact path): the rest
           of its cluster, the other clusters, the pinned tasks */
        const clusters_t *P = C->par;
        m = P->wk_arg >= 0 && P->blk[P->wk_arg] == C->blk[i] ? P->wk2 : P->wk1;
        if (C->wkr[i] > m) m = C->wkr[i];
        if (P->wk_fixed > m) m = P->wk_fixed;
    } else if (i >= 0 && C->wk[i] >= cur && C->start[i + 1] > C->start[i]) {
        m = i == C->wk_arg ? C->wk2 : C->wk1; /* max over the other clusters */
        if (C->wk_fixed > m) m = C->wk_fixed; /* and the pinned tasks */
    } else {
        m = cur;
    }
    return in_wk > m ? in_wk : m;
}

/* Work of r1 and r2 after exchanging cluster i of r1 with cluster j of r2 (-1: none), from the
 * summaries alone; valid when neither cluster has an incident edge. */
static void fast_eval(const wpart_tasks_state_t *s, int32_t r1, const wpart_tasks_rank_t *b1,
                      const int32_t *rc1, const clusters_t *C1, int32_t i, int32_t r2,
                      const wpart_tasks_rank_t *b2, const int32_t *rc2, const clusters_t *C2,
                      int32_t j, wpart_tasks_rank_t *o1, wpart_tasks_rank_t *o2)
{
    wpart_tasks_rank_t v1 = *b1, v2 = *b2;
    int32_t na = i >= 0 ? C1->start[i + 1] - C1->start[i] : 0;
    int32_t nb = j >= 0 ? C2->start[j + 1] - C2->start[j] : 0;
    double la = i >= 0 ? C1->load[i] : 0, lb = j >= 0 ? C2->load[j] : 0;
    double fa = i >= 0 ? C1->fp[i] : 0, fb = j >= 0 ? C2->fp[j] : 0;
    v1.load = v1.load - la + lb;
    v2.load = v2.load - lb + la;
    v1.fp = v1.fp - fa + fb;
    v2.fp = v2.fp - fb + fa;
    v1.wmax = wmax_after_c(s, b1->wmax, C1, i, j >= 0 ? C2->wk[j] : 0.0);
    v2.wmax = wmax_after_c(s, b2->wmax, C2, j, i >= 0 ? C1->wk[i] : 0.0);
    v1.cnt += nb - na;
    v2.cnt += na - nb;
    v1.out += 0.0;
    v1.in += 0.0;
    v1.loc += 0.0;
    v2.out += 0.0;
    v2.in += 0.0;
    v2.loc += 0.0;
    if (s->p.task_block) {
        int32_t bl[2], d1[2], d2[2];
        int nbk = 0;
        int32_t ba = i >= 0 ? C1->blk[i] : -1, bb = j >= 0 ? C2->blk[j] : -1;
        if (ba >= 0) {
            bl[nbk] = ba;
            d1[nbk] = -na;
            d2[nbk] = na;
            nbk++;
        }
        if (bb >= 0) {
            if (nbk == 1 && bl[0] == bb) {
                d1[0] += nb;
                d2[0] -= nb;
            } else {
                bl[nbk] = bb;
                d1[nbk] = nb;
                d2[nbk] = -nb;
                nbk++;
            }
        }
        fast_blocks(s, r1, rc1, bl, d1, nbk, &v1);
        fast_blocks(s, r2, rc2, bl, d2, nbk, &v2);
    }
    if (v1.cnt == 0) memset(&v1, 0, sizeof(v1));
    if (v2.cnt == 0) memset(&v2, 0, sizeof(v2));
    *o1 = v1;
    *o2 = v2;
}

/* Directional volumes of a task set X (spec 1.8 closed form): bytes inside X, bytes from X to
 * tasks outside X (total, and to tasks on q1 / q2 under `assign`), the same into X, and bytes
 * from X to the other exchanged set. Members of X carry `bit` in s->mark, of the other set
 * `obit`. */

static void csum_walk(const wpart_tasks_state_t *s, const int32_t *X, int32_t nx, int bit,
                      int obit, const int32_t *assign, int32_t q1, int32_t q2, csum_t *o)
{
    const wpart_tasks_problem_t *p = &s->p;
    memset(o, 0, sizeof(*o));
    for (int32_t i = 0; i < nx; i++) {
        int32_t t = X[i];
        for (int64_t j = s->inc_ptr[t]; j < s->inc_ptr[t + 1]; j++) {
            int64_t e = s->inc_edge[j];
            int32_t a = p->edge_src[e], b = p->edge_dst[e];
            double v = p->edge_bytes[e];
            int ina = (s->mark[a] & bit) != 0, inb = (s->mark[b] & bit) != 0;
            if (ina && inb) {
                if (t == a) o->intra += v; /* an inner edge is met from both ends */
            } else if (ina) {
                o->otot += v;
                if (assign[b] == q1) o->o1 += v;
                if (assign[b] == q2) o->o2 += v;
                if (s->mark[b] & obit) o->x += v;
            } else {
                o->itot += v;
                if (assign[a] == q1) o->i1 += v;
                if (assign[a] == q2) o->i2 += v;
            }
        }
    }
}

void wpart_i_ccm_csum(wpart_tasks_state_t *s, const int32_t *X, int32_t nx, const int32_t *assign,
                      int32_t q1, int32_t q2, csum_t *o)
{
    for (int32_t i = 0; i < nx; i++) s->mark[X[i]] |= 4;
    csum_walk(s, X, nx, 4, 8, assign, q1, q2, o);
    for (int32_t i = 0; i < nx; i++) s->mark[X[i]] = 0;
}

/* Closed form of spec 1.8: out/in/loc of r1 (v1, from b1) and r2 (v2, from b2) after A (on r1)
 * and B (on r2) are exchanged; ab / ba: bytes A->B / B->A (0 when unknown). */
static void comm_closed_form(const csum_t *A, const csum_t *B, double ab, double ba,
                             const wpart_tasks_rank_t *b1, const wpart_tasks_rank_t *b2,
                             wpart_tasks_rank_t *v1, wpart_tasks_rank_t *v2)
{
    v1->loc = b1->loc - (A->o1 + A->i1 + A->intra) + (B->o1 - ba) + (B->i1 - ab) + B->intra;
    v1->out = b1->out - (A->otot - A->o1) + A->i1 - (B->i1 - ab) + (B->otot - B->o1) + ba;
    v1->in = b1->in - (A->itot - A->i1) + A->o1 - (B->o1 - ba) + (B->itot - B->i1) + ab;
    v2->loc = b2->loc - (B->o2 + B->i2 + B->intra) + (A->o2 - ab) + (A->i2 - ba) + A->intra;
    v2->out = b2->out - (B->otot - B->o2) + B->i2 - (A->i2 - ba) + (A->otot - A->o2) + ab;
    v2->in = b2->in - (B->itot - B->i2) + B->o2 - (A->o2 - ab) + (A->itot - A->i2) + ba;
    if (v1->cnt == 0) v1->loc = v1->out = v1->in = 0.0;
    if (v2->cnt == 0) v2->loc = v2->out = v2->in = 0.0;
}

/* Volumes of A (located by assign_a) and B (located by assign_b) relative to r1 and r2. */
static void csum_pair(const wpart_tasks_state_t *s, const int32_t *A, int32_t na,
                      const int32_t *assign_a, const int32_t *B, int32_t nb,
                      const int32_t *assign_b, int32_t r1, int32_t r2, csum_t *ca, csum_t *cb)
{
    for (int32_t i = 0; i < na; i++) s->mark[A[i]] |= 4;
    for (int32_t i = 0; i < nb; i++) s->mark[B[i]] |= 8;
    csum_walk(s, A, na, 4, 8, assign_a, r1, r2, ca);
    csum_walk(s, B, nb, 8, 4, assign_b, r1, r2, cb);
    for (int32_t i = 0; i < na; i++) s->mark[A[i]] = 0;
    for (int32_t i = 0; i < nb; i++) s->mark[B[i]] = 0;
}

wpart_status_t wpart_tasks_state_estimate_exchange(wpart_tasks_state_t *s, int32_t r1,
                                                   const int32_t *give, int32_t n_give,
                                                   int32_t r2, const int32_t *take,
                                                   int32_t n_take, int use_ab, double *w1_after,
                                                   double *w2_after)
{
    if (s == NULL || w1_after == NULL || w2_after == NULL) {
        return wpart_i_error(WPART_EINVAL, "state or outputs are NULL");
    }
    wpart_tasks_rank_t v1, v2;
    /* validates the lists and gives the exact non-communication parts */
    wpart_status_t st = wpart_tasks_i_exchange_vals(s, r1, give, n_give, r2, take, n_take, &v1,
                                                    &v2);
    if (st != WPART_OK) return st;
    csum_t ca, cb;
    csum_pair(s, give, n_give, s->assign, take, n_take, s->assign, r1, r2, &ca, &cb);
    comm_closed_form(&ca, &cb, use_ab ? ca.x : 0.0, use_ab ? cb.x : 0.0, &s->rank[r1],
                     &s->rank[r2], &v1, &v2);
    *w1_after = wpart_tasks_i_work(&s->p, &s->c, r1, &v1);
    *w2_after = wpart_tasks_i_work(&s->p, &s->c, r2, &v2);
    return WPART_OK;
}



/* The pair state before an exchange: summed cap excess and max W without the memory term.
 * Acceptance is lexicographic (spec 3.5): lower the excess, or keep it and lower max W by more
 * than tol. From a feasible start the excess is 0 and this is the paper's criterion. */
typedef struct {
    double exc, w;
} pairkey_t;

static void consider(const wpart_tasks_state_t *s, best_t *best, pairkey_t before, double tol,
                     int32_t r, const wpart_tasks_rank_t *v1, int32_t p,
                     const wpart_tasks_rank_t *v2, int32_t i, int32_t j, int32_t moved,
                     int single)
{
    double exc = wpart_tasks_i_excess(&s->p, &s->c, r, v1) +
                 wpart_tasks_i_excess(&s->p, &s->c, p, v2);
    double dexc = 0.0, gain;
    if (exc < before.exc) {
        dexc = before.exc - exc;
    } else if (exc != before.exc) {
        return;
    }
    double w1 = wpart_tasks_i_work_noeps(&s->p, &s->c, r, v1);
    double w2 = wpart_tasks_i_work_noeps(&s->p, &s->c, p, v2);
    gain = before.w - (w1 > w2 ? w1 : w2);
    if (dexc == 0.0 && !(gain > tol * before.w)) return;
    if (best->rng && before.exc == 0.0) { /* reservoir sampling: uniform over candidates */
        if (wpart_rng_below(best->rng, ++best->seen) != 0) return;
    } else if (best->found && !(dexc > best->dexc ||
                                (dexc == best->dexc &&
                                 (gain > best->gain ||
                                  (gain == best->gain && moved < best->moved))))) {
        return;
    }
    wpart_i_ccm_take(best, dexc, gain, i, j, moved, single);
}



void wpart_i_ccm_estimate_pair(const wpart_tasks_state_t *s, int32_t r, const clusters_t *Cr,
                               int32_t i, int32_t p, const clusters_t *Cp, int32_t j,
                               const snapshot_t *snap, const csum_t *A, const csum_t *B,
                               wpart_tasks_rank_t *v1, wpart_tasks_rank_t *v2)
{
    const int64_t N = s->p.n_blocks;
    const wpart_tasks_rank_t *bp = snap ? &snap->rank[p] : &s->rank[p];
    const int32_t *rcp = (snap ? snap->refcnt : s->refcnt) + p * N;
    fast_eval(s, r, &s->rank[r], s->refcnt + r * N, Cr, i, p, bp, rcp, Cp, j, v1, v2);
    comm_closed_form(A, B, 0.0, 0.0, &s->rank[r], bp, v1, v2);
}

wpart_status_t wpart_i_ccm_eval_pair(wpart_tasks_state_t *s, int32_t r, const clusters_t *Cr,
                                     int32_t i, int32_t p, const clusters_t *Cp, int32_t j,
                                     const snapshot_t *snap, wpart_tasks_rank_t *v1,
                                     wpart_tasks_rank_t *v2, int *valid)
{
    const int64_t N = s->p.n_blocks;
    *valid = 1;
    const int32_t *A = i >= 0 ? Cr->tasks + Cr->start[i] : NULL;
    int32_t na = i >= 0 ? Cr->start[i + 1] - Cr->start[i] : 0;
    const int32_t *B = j >= 0 ? Cp->tasks + Cp->start[j] : NULL;
    int32_t nb = j >= 0 ? Cp->start[j + 1] - Cp->start[j] : 0;
    if ((i < 0 || Cr->deg[i] == 0) && (j < 0 || Cp->deg[j] == 0)) {
        const wpart_tasks_rank_t *bp = snap ? &snap->rank[p] : &s->rank[p];
        const int32_t *rcp = (snap ? snap->refcnt : s->refcnt) + p * N;
        fast_eval(s, r, &s->rank[r], s->refcnt + r * N, Cr, i, p, bp, rcp, Cp, j, v1, v2);
        return WPART_OK;
    }
    if (snap) {
        /* clusters with edges: the closed form of spec 1.8 from r's own cluster (current
           state) and p's gossiped cluster volumes and aggregates (snapshot); bytes between the
           two clusters are unknown to r and taken as 0 (the only approximation) */
        fast_eval(s, r, &s->rank[r], s->refcnt + r * N, Cr, i, p, &snap->rank[p],
                  snap->refcnt + p * N, Cp, j, v1, v2);
        csum_t ca, cb;
        csum_pair(s, A, na, s->assign, B, nb, snap->assign, r, p, &ca, &cb);
        comm_closed_form(&ca, &cb, 0.0, 0.0, &s->rank[r], &snap->rank[p], v1, v2);
        return WPART_OK;
    }
    return wpart_tasks_i_exchange_vals(s, r, A, na, p, B, nb, v1, v2);
}



void wpart_i_ccm_fill_targets(wpart_tasks_state_t *s, int32_t r, int32_t p,
                               const clusters_t *Cr, const clusters_t *Cp, fill_t *X,
                               const snapshot_t *snap, double wr, double wq, double lmin_r,
                               double lmin_p, int *give_out)
{
    /* parts of the more loaded rank's clusters sized to even the pair's W */
    const int give = wr >= wq;
    const clusters_t *C = give ? Cr : Cp;
    const int32_t to = give ? p : r, from = give ? r : p;
    const int64_t N = s->p.n_blocks;
    const int32_t *rc = give ? (snap ? snap->refcnt : s->refcnt) + p * N : s->refcnt + r * N;
    const double *ra = s->p.rank_alpha;
    double a = (ra ? ra[from] : s->c.alpha) + (ra ? ra[to] : s->c.alpha);
    for (int32_t c = 0; c < C->n; c++) {
        int32_t b = C->blk[c];
        double h = 0.0;
        if (s->c.delta != 0.0 && b >= 0 && rc[b] == 0 && s->p.block_home[b] != to) {
            h = s->c.delta * s->p.block_size[b];
        }
        X->target[c] = a > 0 ? (fabs(wr - wq) - h) / a : 0.0;
        /* no part of this cluster is heavier than min(its load, target + its heaviest task):
           below lmin it cannot win (the pruned scan's bound); target 0 builds none */
        double lmin = give ? lmin_r : lmin_p;
        if (X->target[c] > 0 && C->start[c + 1] > C->start[c]) {
            double top = X->target[c] + C->lbl[C->start[c]]; /* its heaviest task */
            if (C->load[c] < top) top = C->load[c];
            if (top < lmin) X->target[c] = 0.0;
        }
    }
    *give_out = give;
}

wpart_status_t wpart_i_ccm_fill_units(wpart_tasks_state_t *s, int32_t r, int32_t p,
                                      const clusters_t *Cr, const clusters_t *Cp, fill_t *X,
                                      const snapshot_t *snap, double wr, double wq,
                                      double lmin_r, double lmin_p, int *give)
{
    wpart_i_ccm_fill_targets(s, r, p, Cr, Cp, X, snap, wr, wq, lmin_r, lmin_p, give);
    return wpart_tasks_i_build_fill(s, *give ? Cr : Cp, X->target, &X->U, X->tmp, X->in);
}

/* FindBestCCM on the current state: best exchange between r and p, gain > tol * before.
 * Tr / Tp (may be NULL): single-task clusters for one-way single transfers, tried only when
 * no cluster exchange pays (as LBAF tries subclusters only when no swap happened). */
wpart_status_t wpart_i_ccm_find_best(wpart_tasks_state_t *s, int32_t r, int32_t p,
                                const clusters_t *Cr, const clusters_t *Cp, const clusters_t *Tr,
                                const clusters_t *Tp, double tol, int one_way, int split_always,
                                fill_t *X, wpart_rng_t *explore, const snapshot_t *snap,
                                best_t *best)
{
    wpart_status_t st;
    memset(best, 0, sizeof(*best));
    best->rng = explore;
    best->cr = best->cp = -1;
    const wpart_tasks_rank_t *vp = snap ? &snap->rank[p] : &s->rank[p];
    pairkey_t before;
    before.exc = wpart_tasks_i_excess(&s->p, &s->c, r, &s->rank[r]) +
                 wpart_tasks_i_excess(&s->p, &s->c, p, vp);
    double wr = wpart_tasks_i_work_noeps(&s->p, &s->c, r, &s->rank[r]);
    double wq = wpart_tasks_i_work_noeps(&s->p, &s->c, p, vp);
    before.w = wr > wq ? wr : wq;
    if (before.exc == 0.0 && !(before.w > 0)) return WPART_OK;
    if (before.exc == 0.0 && explore == NULL && !s->exhaustive) {
        return wpart_i_ccm_find_best_pruned(s, r, p, Cr, Cp, Tr, Tp, tol, one_way, split_always,
                                            X, snap, before.w, wr, wq, best);
    }
    wpart_tasks_rank_t v1, v2;
    int valid;
    for (int32_t i = -1; i < Cr->n; i++) {
        int32_t na = i >= 0 ? Cr->start[i + 1] - Cr->start[i] : 0;
        for (int32_t j = -1; j < Cp->n; j++) {
            if (i < 0 && j < 0) continue;
            if (one_way && i >= 0 && j >= 0) continue;
            int32_t nb = j >= 0 ? Cp->start[j + 1] - Cp->start[j] : 0;
            st = wpart_i_ccm_eval_pair(s, r, Cr, i, p, Cp, j, snap, &v1, &v2, &valid);
            if (st != WPART_OK) return st;
            if (valid) consider(s, best, before, tol, r, &v1, p, &v2, i, j, na + nb, 0);
        }
    }
    if (Tr && Tp && (split_always || !best->found)) { /* by default only when no cluster
                                                           move pays */
        for (int32_t i = 0; i < Tr->n; i++) {
            st = wpart_i_ccm_eval_pair(s, r, Tr, i, p, Tp, -1, snap, &v1, &v2, &valid);
            if (st != WPART_OK) return st;
            if (valid) {
                consider(s, best, before, tol, r, &v1, p, &v2, i, -1,
                         Tr->start[i + 1] - Tr->start[i], 1);
            }
        }
        for (int32_t j = 0; j < Tp->n; j++) {
            st = wpart_i_ccm_eval_pair(s, r, Tr, -1, p, Tp, j, snap, &v1, &v2, &valid);
            if (st != WPART_OK) return st;
            if (valid) {
                consider(s, best, before, tol, r, &v1, p, &v2, -1, j,
                         Tp->start[j + 1] - Tp->start[j], 1);
            }
        }
    }
    if (X && (split_always || !best->found)) {
        int give;
        st = wpart_i_ccm_fill_units(s, r, p, Cr, Cp, X, snap, wr, wq, -INFINITY, -INFINITY,
                                    &give);
        if (st != WPART_OK) return st;
        for (int32_t u = 0; u < X->U.n; u++) {
            if (give) {
                st = wpart_i_ccm_eval_pair(s, r, &X->U, u, p, Cp, -1, snap, &v1, &v2, &valid);
            } else {
                st = wpart_i_ccm_eval_pair(s, r, Cr, -1, p, &X->U, u, snap, &v1, &v2, &valid);
            }
            if (st != WPART_OK) return st;
            if (valid) {
                consider(s, best, before, tol, r, &v1, p, &v2, give ? u : -1, give ? -1 : u,
                         X->U.start[u + 1] - X->U.start[u], 2);
            }
        }
    }
    return WPART_OK;
}

/* ---- the mixed units of the distributed engines' final pass (wpart_tasks_pair_best_mixed) */

/* The mixed units of rank r in U: its task clusters (each migratable task alone, by index),
 * then its block clusters (B) of two tasks or more (its migratable tasks of one block, by
 * block, tasks by index, the load summed in that order as the exchange sums it); of the
 * appended ones only start, tasks and load are set. tmp: K scratch. */
static wpart_status_t mixed_units(const wpart_tasks_state_t *s, int32_t r, clusters_t *U,
                                  clusters_t *B, int32_t *tmp)
{
    wpart_status_t st = WPART_OK;
    WPART_CHECK(wpart_tasks_i_build_clusters(s, r, WPART_TASKS_CLUSTER_TASK, U, tmp, NULL));
    WPART_CHECK(wpart_tasks_i_build_clusters(s, r, WPART_TASKS_CLUSTER_BLOCK, B, tmp, NULL));
    if (!wpart_tasks_i_clusters_reserve(U, 2 * U->start[U->n])) {
        WPART_FAIL(WPART_ENOMEM, "pair step: out of memory (mixed units)");
    }
    for (int32_t c = 0; c < B->n; c++) {
        int32_t a = B->start[c], n = B->start[c + 1] - a, o = U->start[U->n];
        if (n < 2) continue;
        memcpy(U->tasks + o, B->tasks + a, sizeof(int32_t) * (size_t)n);
        U->load[U->n] = B->load[c];
        U->start[++U->n] = o + n;
    }
cleanup:
    return st;
}

/* The mixed units of a rank by (load, index): all, -1 (none, load 0) and every unit; parts,
 * the block parts only (the units from n_one: the single tasks come first) */
typedef struct {
    int32_t *all, *parts;
    int32_t n_all, n_parts, n_one;
} mixed_ord_t;

static wpart_status_t mixed_order(const clusters_t *U, mixed_ord_t *O)
{
    wpart_status_t st = WPART_OK;
    xkey_t *kl = wpart_i_malloc((int64_t)U->n + 1, sizeof(xkey_t));
    O->all = wpart_i_malloc((int64_t)U->n + 1, sizeof(int32_t));
    O->parts = wpart_i_malloc((int64_t)U->n + 1, sizeof(int32_t));
    if (!kl || !O->all || !O->parts) {
        WPART_FAIL(WPART_ENOMEM, "pair step: out of memory (mixed units)");
    }
    O->n_one = 0;
    while (O->n_one < U->n && U->start[O->n_one + 1] - U->start[O->n_one] < 2) O->n_one++;
    O->n_all = 0;
    kl[O->n_all++] = (xkey_t){0.0, -1};
    for (int32_t u = 0; u < U->n; u++) kl[O->n_all++] = (xkey_t){U->load[u], u};
    qsort(kl, (size_t)O->n_all, sizeof(xkey_t), wpart_i_ccm_cmp_xkey);
    O->n_parts = 0;
    for (int32_t k = 0; k < O->n_all; k++) {
        O->all[k] = kl[k].b;
        if (kl[k].b >= O->n_one) O->parts[O->n_parts++] = kl[k].b;
    }
cleanup:
    free(kl);
    return st;
}

/* whether a bound g of the gain (before.w - alpha * load of one rank after) leaves room for an
 * exchange that pays (> thr) and wins or ties with the best so far (>= its gain) */
static inline int mixed_may(double g, double thr, const best_t *best)
{
    return g > thr && (!best->found || best->dexc > 0.0 || g >= best->gain);
}

/* the first k in [0, n) at which mixed_may(bw - a * ((l - L[k]) + add)) (non-decreasing in
 * L[k]: a suffix of the units by load) */
static int32_t mixed_lower(const clusters_t *U, const int32_t *ix, int32_t n, double bw,
                           double a, double l, double add, double thr, const best_t *best)
{
    int32_t lo = 0, hi = n;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        double L = ix[mid] >= 0 ? U->load[ix[mid]] : 0.0;
        if (mixed_may(bw - a * ((l - L) + add), thr, best)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

wpart_status_t wpart_i_ccm_find_best_mixed(wpart_tasks_state_t *s, int32_t r, int32_t p,
                                           double tol, int one_way, clusters_t U[2],
                                           clusters_t *B, int32_t *tmp, best_t *best)
{
    wpart_status_t st = WPART_OK;
    const clusters_t *R = &U[0], *Q = &U[1];
    mixed_ord_t RO, QO;
    memset(&RO, 0, sizeof(RO));
    memset(&QO, 0, sizeof(QO));
    memset(best, 0, sizeof(*best));
    best->cr = best->cp = -1;
    pairkey_t before;
    before.exc = wpart_tasks_i_excess(&s->p, &s->c, r, &s->rank[r]) +
                 wpart_tasks_i_excess(&s->p, &s->c, p, &s->rank[p]);
    double wr = wpart_tasks_i_work_noeps(&s->p, &s->c, r, &s->rank[r]);
    double wq = wpart_tasks_i_work_noeps(&s->p, &s->c, p, &s->rank[p]);
    before.w = wr > wq ? wr : wq;
    if (before.exc == 0.0 && !(before.w > 0)) return WPART_OK;
    for (int side = 0; side < 2; side++) {
        wpart_tasks_i_clusters_free(&U[side]);
        WPART_CHECK(mixed_units(s, side ? p : r, &U[side], B, tmp));
    }
    WPART_CHECK(mixed_order(R, &RO));
    WPART_CHECK(mixed_order(Q, &QO));
    /* from a feasible pair, W of a rank is at least alpha * its load (the other terms are not
       negative): a unit pair that leaves either rank's alpha * load at or above
       before.w (1 - tol), or above before.w less the best gain so far, cannot pay or win (a
       tie may: it is evaluated); those that can form one range of p's units by load */
    const int prune = before.exc == 0.0;
    const double ar = s->p.rank_alpha ? s->p.rank_alpha[r] : s->c.alpha;
    const double ap = s->p.rank_alpha ? s->p.rank_alpha[p] : s->c.alpha;
    const double lr = s->rank[r].load, lp = s->rank[p].load, thr = tol * before.w;
    wpart_tasks_rank_t v1, v2;
    for (int32_t i = -1; i < R->n; i++) {
        /* a single task or none for a block part; a block part for anything */
        const int32_t *ix = i >= RO.n_one ? QO.all : QO.parts;
        const int32_t nx = i >= RO.n_one ? QO.n_all : QO.n_parts;
        const double Li = i >= 0 ? R->load[i] : 0.0;
        const int32_t na = i >= 0 ? R->start[i + 1] - R->start[i] : 0;
        const int32_t *A = i >= 0 ? R->tasks + R->start[i] : NULL;
        int32_t k = prune ? mixed_lower(Q, ix, nx, before.w, ap, lp, Li, thr, best) : 0;
        for (; k < nx; k++) {
            const int32_t j = ix[k];
            const double Lj = j >= 0 ? Q->load[j] : 0.0;
            if (prune && !mixed_may(before.w - ar * ((lr - Li) + Lj), thr, best)) break;
            if ((i < 0 && j < 0) || (one_way && i >= 0 && j >= 0)) continue;
            const int32_t nb = j >= 0 ? Q->start[j + 1] - Q->start[j] : 0;
            WPART_CHECK(wpart_tasks_i_exchange_vals(s, r, A, na, p,
                                                    j >= 0 ? Q->tasks + Q->start[j] : NULL, nb,
                                                    &v1, &v2));
            consider(s, best, before, tol, r, &v1, p, &v2, i, j, na + nb, 3);
        }
    }
cleanup:
    WPART_FREE_ALL(RO.all, RO.parts, QO.all, QO.parts);
    return st;
}
