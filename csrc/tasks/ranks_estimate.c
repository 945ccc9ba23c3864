/*
 * ranks_estimate.c -- the estimate a rank of the distributed CCM-LB engine makes of its best
 * exchange with a peer from the two ranks' gossiped per-cluster summaries (rounds protocol of
 * wpart.tasks; the Python reference is wpart/tasks/_summary.py, estimate_problem).
 *
 * The two summaries describe a three-rank problem: a's clusters on rank 0 then a pinned
 * pseudo-task of zero load standing for a's other clusters, b's clusters and pseudo-task on 1,
 * and one task on 2 for every other rank. A cluster's bytes towards its own rank go to its
 * rank's pseudo-task (they leave the rank with the cluster), its bytes towards the other rank
 * of the pair are spread over the other side's clusters (they become local once it moves
 * there), its bytes towards every other rank go to the task on 2. FindBestCCM then runs on
 * that problem with the serial engine's code (wpart_tasks_pair_best, ccm_pair.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ranks_internal.h"
#include "wpart/tasks_ranks.h"

typedef struct {
    int32_t *src, *dst;
    double *w;
    int64_t n, cap;
} edges_t;

static wpart_status_t edge_add(edges_t *e, int32_t s, int32_t d, double w)
{
    if (!(w > 0.0)) return WPART_OK; /* zero bytes: no edge */
    if (e->n == e->cap) {
        int64_t nc = e->cap ? 2 * e->cap : 64;
        int32_t *ns = wpart_i_malloc(nc, sizeof(int32_t));
        int32_t *nd = wpart_i_malloc(nc, sizeof(int32_t));
        double *nw = wpart_i_malloc(nc, sizeof(double));
        if (!ns || !nd || !nw) {
            free(ns);
            free(nd);
            free(nw);
            return wpart_i_error(WPART_ENOMEM, "out of memory for the estimate's edges");
        }
        if (e->n) {
            memcpy(ns, e->src, (size_t)e->n * sizeof(int32_t));
            memcpy(nd, e->dst, (size_t)e->n * sizeof(int32_t));
            memcpy(nw, e->w, (size_t)e->n * sizeof(double));
        }
        free(e->src);
        free(e->dst);
        free(e->w);
        e->src = ns;
        e->dst = nd;
        e->w = nw;
        e->cap = nc;
    }
    e->src[e->n] = s;
    e->dst[e->n] = d;
    e->w[e->n] = w;
    e->n++;
    return WPART_OK;
}

static wpart_status_t check_summary(const wpart_tasks_rank_summary_t *s, const char *name)
{
    if (s == NULL) return wpart_i_error(WPART_EINVAL, "summary %s is NULL", name);
    if (s->n < 0 || s->n_pairs < 0 || s->n_blocks < 0) {
        return wpart_i_error(WPART_EINVAL, "summary %s has a negative size", name);
    }
    if (s->n > 0 && (!s->blk || !s->cptr || !s->load || !s->fp || !s->wk || !s->cself ||
                     !s->pinned)) {
        return wpart_i_error(WPART_EINVAL, "summary %s misses a per-cluster array", name);
    }
    if (s->n_pairs > 0 && (!s->crank || !s->cout || !s->cin)) {
        return wpart_i_error(WPART_EINVAL, "summary %s misses its volumes", name);
    }
    if (s->n_blocks > 0 && (!s->bid || !s->bsize || !s->bhome)) {
        return wpart_i_error(WPART_EINVAL, "summary %s misses its blocks", name);
    }
    if (s->n > 0 && (s->cptr[0] != 0 || s->cptr[s->n] != s->n_pairs)) {
        return wpart_i_error(WPART_EINVAL, "summary %s: cptr does not cover its volumes", name);
    }
    for (int32_t i = 0; i < s->n; i++) {
        if (s->cptr[i + 1] < s->cptr[i]) {
            return wpart_i_error(WPART_EINVAL, "summary %s: cptr is not ascending", name);
        }
    }
    return WPART_OK;
}


WPART_TASKS_I_FIND_BLOCK(wpart_tasks_rank_summary_t, find_block)

/* What an estimate needs of one summary whatever the other rank: per cluster its bytes out /
 * in towards every rank but its own (summed in the volumes' order), and its volumes towards
 * its own rank (cluster, entry), in order. */
typedef struct {
    double *far_out, *far_in;
    int32_t *own_c;
    int64_t *own_j, n_own;
} side_prep_t;

static void prep_free(side_prep_t *p)
{
    WPART_FREE_ALL(p->far_out, p->far_in, p->own_c, p->own_j);
    memset(p, 0, sizeof(*p));
}

static wpart_status_t prep_side(const wpart_tasks_rank_summary_t *s, side_prep_t *p)
{
    wpart_status_t st = WPART_OK;
    memset(p, 0, sizeof(*p));
    p->far_out = wpart_i_malloc((int64_t)s->n + 1, sizeof(double));
    p->far_in = wpart_i_malloc((int64_t)s->n + 1, sizeof(double));
    p->own_c = wpart_i_malloc((int64_t)s->n_pairs + 1, sizeof(int32_t));
    p->own_j = wpart_i_malloc((int64_t)s->n_pairs + 1, sizeof(int64_t));
    if (!p->far_out || !p->far_in || !p->own_c || !p->own_j) {
        WPART_FAIL(WPART_ENOMEM, "out of memory for an estimate");
    }
    for (int32_t i = 0; i < s->n; i++) {
        double fo = 0.0, fi = 0.0;
        for (int64_t j = s->cptr[i]; j < s->cptr[i + 1]; j++) {
            if (s->crank[j] != s->rank) {
                fo += s->cout[j];
                fi += s->cin[j];
            } else {
                p->own_c[p->n_own] = i;
                p->own_j[p->n_own++] = j;
            }
        }
        p->far_out[i] = fo;
        p->far_in[i] = fi;
    }
cleanup:
    if (st != WPART_OK) prep_free(p);
    return st;
}

static wpart_status_t estimate(const wpart_tasks_rank_summary_t *a,
                               const wpart_tasks_rank_summary_t *b, const side_prep_t *pa,
                               const side_prep_t *pb, const wpart_tasks_coeffs_t *c,
                               const wpart_tasks_lb_params_t *prm, double comm_thresh,
                               int64_t cross_pairs, int per_rank, int fallback,
                               wpart_tasks_pair_step_t *out);

wpart_status_t wpart_tasks_ranks_estimate(const wpart_tasks_rank_summary_t *a,
                                          const wpart_tasks_rank_summary_t *b,
                                          const wpart_tasks_coeffs_t *c,
                                          const wpart_tasks_lb_params_t *prm,
                                          double comm_thresh, int64_t cross_pairs,
                                          int per_rank, int fallback,
                                          wpart_tasks_pair_step_t *out)
{
    wpart_status_t st = WPART_OK;
    side_prep_t pa, pb;
    memset(&pa, 0, sizeof(pa));
    memset(&pb, 0, sizeof(pb));
    WPART_CHECK(check_summary(a, "a"));
    WPART_CHECK(check_summary(b, "b"));
    WPART_CHECK(prep_side(a, &pa));
    WPART_CHECK(prep_side(b, &pb));
    WPART_CHECK(estimate(a, b, &pa, &pb, c, prm, comm_thresh, cross_pairs, per_rank, fallback,
                         out));
cleanup:
    prep_free(&pa);
    prep_free(&pb);
    return st;
}

static wpart_status_t estimate(const wpart_tasks_rank_summary_t *a,
                               const wpart_tasks_rank_summary_t *b, const side_prep_t *pa,
                               const side_prep_t *pb, const wpart_tasks_coeffs_t *c,
                               const wpart_tasks_lb_params_t *prm, double comm_thresh,
                               int64_t cross_pairs, int per_rank, int fallback,
                               wpart_tasks_pair_step_t *out)
{
    wpart_status_t st = WPART_OK;
    edges_t e = {NULL, NULL, NULL, 0, 0};
    double *load = NULL, *fp = NULL, *wk = NULL, *tw = NULL, *bsize = NULL;
    int32_t *tb = NULL, *assign = NULL, *bhome = NULL, *give = NULL, *take = NULL;
    int64_t *bids = NULL;
    uint8_t *mig = NULL;
    double base3[3], cap3[3], alpha3[3];
    if (c == NULL || prm == NULL || out == NULL || out->give == NULL || out->take == NULL) {
        WPART_FAIL(WPART_EINVAL, "coefficients, parameters or output is NULL");
    }
    if (wpart_i_stop_asked(prm->control)) {
        WPART_FAIL(WPART_ECANCELLED, "stopped");
    }
    const int32_t na = a->n, nb = b->n;
    const int32_t anc[2] = {na, na + nb + 1}, off[2] = {0, na + 1};
    const int32_t ghost = na + nb + 2, T = ghost + 1;
    load = wpart_i_calloc(T, sizeof(double));
    fp = wpart_i_calloc(T, sizeof(double));
    wk = wpart_i_calloc(T, sizeof(double));
    tb = wpart_i_malloc(T, sizeof(int32_t));
    assign = wpart_i_malloc(T, sizeof(int32_t));
    mig = wpart_i_malloc(T, sizeof(uint8_t));
    give = wpart_i_malloc(T, sizeof(int32_t));
    take = wpart_i_malloc(T, sizeof(int32_t));
    /* per side: bytes out / in towards the other rank of the pair, per cluster */
    tw = wpart_i_calloc(2 * (int64_t)(na + nb) + 1, sizeof(double));
    bids = wpart_i_malloc((int64_t)na + nb + 1, sizeof(int64_t));
    if (!load || !fp || !wk || !tb || !assign || !mig || !give || !take || !tw || !bids) {
        WPART_FAIL(WPART_ENOMEM, "out of memory for the estimate's problem");
    }
    { /* room for every edge at once: inside, own rank (2 per volume), the rest, between */
        const int64_t cross = (int64_t)na * nb < cross_pairs ? (int64_t)na * nb : cross_pairs;
        e.cap = 3 * ((int64_t)na + nb) + 2 * (pa->n_own + pb->n_own) + 2 * (cross + na + nb) + 1;
        e.src = wpart_i_malloc(e.cap, sizeof(int32_t));
        e.dst = wpart_i_malloc(e.cap, sizeof(int32_t));
        e.w = wpart_i_malloc(e.cap, sizeof(double));
        if (!e.src || !e.dst || !e.w) WPART_FAIL(WPART_ENOMEM, "out of memory for the edges");
    }
    double *t_out[2] = {tw, tw + na}, *t_in[2] = {tw + na + nb, tw + 2 * na + nb};
    int any_fp = 0, any_wk = 0, nblk = 0;
    for (int side = 0; side < 2; side++) {
        const wpart_tasks_rank_summary_t *s = side ? b : a;
        const int32_t o = off[side], other = side ? a->rank : b->rank;
        for (int32_t i = 0; i < s->n; i++) {
            load[o + i] = s->load[i];
            fp[o + i] = s->fp[i];
            wk[o + i] = s->wk[i];
            any_fp |= s->fp[i] != 0.0;
            any_wk |= s->wk[i] != 0.0;
            assign[o + i] = side;
            mig[o + i] = (uint8_t)!s->pinned[i];
            tb[o + i] = -1;
            if (s->blk[i] >= 0) bids[nblk++] = s->blk[i];
            if (per_rank) {
                for (int64_t j = s->cptr[i]; j < s->cptr[i + 1]; j++) {
                    if (s->crank[j] == other) {
                        t_out[side][i] += s->cout[j];
                        t_in[side][i] += s->cin[j];
                    }
                }
            }
        }
        assign[anc[side]] = side;
        mig[anc[side]] = 0;
        tb[anc[side]] = -1;
    }
    assign[ghost] = 2;
    mig[ghost] = 1;
    tb[ghost] = -1;
    /* the bytes of each side: inside a cluster, towards its own rank's other clusters, towards
     * every rank but the pair's other one */
    for (int side = 0; side < 2; side++) {
        const wpart_tasks_rank_summary_t *s = side ? b : a;
        const side_prep_t *ps = side ? pb : pa;
        const int32_t o = off[side];
        for (int32_t i = 0; i < s->n; i++) WPART_CHECK(edge_add(&e, o + i, o + i, s->cself[i]));
        for (int64_t k = 0; k < ps->n_own; k++) {
            WPART_CHECK(edge_add(&e, o + ps->own_c[k], anc[side], s->cout[ps->own_j[k]]));
        }
        for (int64_t k = 0; k < ps->n_own; k++) {
            WPART_CHECK(edge_add(&e, anc[side], o + ps->own_c[k], s->cin[ps->own_j[k]]));
        }
        for (int32_t i = 0; i < s->n; i++) {
            WPART_CHECK(edge_add(&e, o + i, ghost, ps->far_out[i] - t_out[side][i]));
        }
        for (int32_t i = 0; i < s->n; i++) {
            WPART_CHECK(edge_add(&e, ghost, o + i, ps->far_in[i] - t_in[side][i]));
        }
    }
    /* the bytes between the two ranks: from a's clusters to b's, then from b's to a's */
    for (int dir = 0; dir < 2; dir++) {
        const int sa = dir == 0;
        const wpart_tasks_rank_summary_t *s = sa ? a : b, *t = sa ? b : a;
        const double *r = t_out[sa ? 0 : 1], *q = t_in[sa ? 1 : 0];
        const int32_t so = off[sa ? 0 : 1], to = off[sa ? 1 : 0];
        int64_t nr = 0, nq = 0;
        double sr = 0.0, sq = 0.0;
        for (int32_t i = 0; i < s->n; i++) {
            if (r[i] != 0.0) { nr++; sr += r[i]; }
        }
        for (int32_t j = 0; j < t->n; j++) {
            if (q[j] != 0.0) { nq++; sq += q[j]; }
        }
        if (nr && nq && nr * nq <= cross_pairs) {
            for (int32_t i = 0; i < s->n; i++) {
                if (r[i] == 0.0) continue;
                for (int32_t j = 0; j < t->n; j++) {
                    if (q[j] == 0.0) continue;
                    /* a's clusters keep their own totals */
                    double w = sa ? r[i] * (q[j] / sq) : (r[i] / sr) * q[j];
                    WPART_CHECK(edge_add(&e, so + i, to + j, w));
                }
            }
        } else if ((sa && nr) || (!sa && !nq)) { /* the sender's view */
            for (int32_t i = 0; i < s->n; i++) {
                if (r[i] != 0.0) WPART_CHECK(edge_add(&e, so + i, anc[sa ? 1 : 0], r[i]));
            }
        } else { /* the receiver's view */
            for (int32_t j = 0; j < t->n; j++) {
                if (q[j] != 0.0) WPART_CHECK(edge_add(&e, anc[sa ? 0 : 1], to + j, q[j]));
            }
        }
    }
    /* blocks: the distinct blocks of the clusters, their size and local home */
    int32_t nub = 0;
    if (nblk) {
        WPART_CHECK(find_block_distinct(a, b, bids, nblk, &nub, &bsize, &bhome, "the estimate's",
                                        "a cluster"));
        for (int side = 0; side < 2; side++) {
            const wpart_tasks_rank_summary_t *s = side ? b : a;
            for (int32_t i = 0; i < s->n; i++) {
                if (s->blk[i] < 0) continue;
                const int64_t *hit = bsearch(&s->blk[i], bids, (size_t)nub, sizeof(int64_t),
                                             wpart_tasks_i_cmp_i64);
                tb[off[side] + i] = (int32_t)(hit - bids);
            }
        }
    }
    wpart_tasks_problem_t p;
    memset(&p, 0, sizeof(p));
    p.n_ranks = 3;
    p.n_tasks = T;
    p.n_blocks = nub;
    p.n_edges = e.n;
    p.task_load = load;
    p.task_footprint = any_fp ? fp : NULL;
    p.task_working = any_wk ? wk : NULL;
    p.task_block = nub ? tb : NULL;
    p.block_size = bsize;
    p.block_home = bhome;
    p.edge_src = e.src;
    p.edge_dst = e.dst;
    p.edge_bytes = e.w;
    p.task_migratable = mig;
    wpart_tasks_i_pair_rank_fields(&p, a->baseline, b->baseline, a->cap, b->cap, a->alpha,
                                   b->alpha, c->alpha, base3, cap3, alpha3);
    wpart_tasks_pair_step_t res = {0, 0.0, 0.0, give, take, 0, 0};
    WPART_CHECK(wpart_tasks_pair_best(&p, c, prm, comm_thresh, assign, 0, 1, &res));
    if (!res.found && fallback && e.n > 0 && (c->beta != 0.0 || c->gamma != 0.0)) {
        /* the summaries' first-order view of the bytes can reject an exchange that the exact
         * step takes: estimate again on load, memory and homing alone */
        p.n_edges = 0;
        p.edge_src = p.edge_dst = NULL;
        p.edge_bytes = NULL;
        WPART_CHECK(wpart_tasks_pair_best(&p, c, prm, comm_thresh, assign, 0, 1, &res));
    }
    out->found = res.found;
    out->dexc = res.dexc;
    out->gain = res.gain;
    out->n_give = out->n_take = 0;
    for (int32_t i = 0; i < res.n_give; i++) {
        if (give[i] < 0 || give[i] >= na) WPART_FAIL(WPART_EINTERNAL, "gives a pseudo-task");
        out->give[out->n_give++] = give[i];
    }
    for (int32_t i = 0; i < res.n_take; i++) {
        int32_t x = take[i] - off[1];
        if (x < 0 || x >= nb) WPART_FAIL(WPART_EINTERNAL, "takes a pseudo-task");
        out->take[out->n_take++] = x;
    }
cleanup:
    free(e.src);
    free(e.dst);
    free(e.w);
    free(load);
    free(fp);
    free(wk);
    free(tb);
    free(assign);
    free(mig);
    free(give);
    free(take);
    free(tw);
    free(bids);
    free(bsize);
    free(bhome);
    return st;
}

/* the arrays of a summary without some of its clusters (summary_without) */
typedef struct {
    int64_t *blk, *cptr, *key;
    double *load, *fp, *wk, *cself, *cout, *cin;
    uint8_t *pinned;
    int32_t *crank;
} sum_buf_t;

static void sum_buf_free(sum_buf_t *w)
{
    WPART_FREE_ALL(w->blk, w->cptr, w->key, w->load, w->fp, w->wk, w->cself, w->cout, w->cin,
                   w->pinned, w->crank);
    memset(w, 0, sizeof(*w));
}

/* *o = b without its clusters whose key a holds too (views into w, which the caller frees;
 * *o = *b when there is none): the Python Summary.without. Its blocks stay: a block's size
 * and home are the same in every record, and only the clusters' blocks are looked up. */
static wpart_status_t summary_without(const wpart_tasks_rank_summary_t *b,
                                      const wpart_tasks_rank_summary_t *a, sum_buf_t *w,
                                      wpart_tasks_rank_summary_t *o)
{
    wpart_status_t st = WPART_OK;
    *o = *b;
    int64_t common = 0;
    for (int32_t i = 0, j = 0; i < b->n && j < a->n;) { /* a merge of the sorted keys */
        if (b->key[i] < a->key[j]) i++;
        else if (a->key[j] < b->key[i]) j++;
        else {
            common++;
            i++;
            j++;
        }
    }
    if (!common) return WPART_OK;
    const int64_t n = b->n, np = b->n_pairs;
    w->blk = wpart_i_malloc(n + 1, sizeof(int64_t));
    w->cptr = wpart_i_malloc(n + 2, sizeof(int64_t));
    w->key = wpart_i_malloc(n + 1, sizeof(int64_t));
    w->load = wpart_i_malloc(n + 1, sizeof(double));
    w->fp = wpart_i_malloc(n + 1, sizeof(double));
    w->wk = wpart_i_malloc(n + 1, sizeof(double));
    w->cself = wpart_i_malloc(n + 1, sizeof(double));
    w->pinned = wpart_i_malloc(n + 1, 1);
    w->cout = wpart_i_malloc(np + 1, sizeof(double));
    w->cin = wpart_i_malloc(np + 1, sizeof(double));
    w->crank = wpart_i_malloc(np + 1, sizeof(int32_t));
    if (!w->blk || !w->cptr || !w->key || !w->load || !w->fp || !w->wk || !w->cself ||
        !w->pinned || !w->cout || !w->cin || !w->crank) {
        WPART_FAIL(WPART_ENOMEM, "out of memory for a stale summary");
    }
    int32_t k = 0;
    int64_t p = 0;
    w->cptr[0] = 0;
    for (int32_t i = 0; i < b->n; i++) {
        if (wpart_tasks_i_find_sorted(a->key, a->n, b->key[i]) >= 0) continue;
        w->key[k] = b->key[i];
        w->blk[k] = b->blk[i];
        w->load[k] = b->load[i];
        w->fp[k] = b->fp[i];
        w->wk[k] = b->wk[i];
        w->cself[k] = b->cself[i];
        w->pinned[k] = b->pinned[i];
        for (int64_t j = b->cptr[i]; j < b->cptr[i + 1]; j++) {
            w->crank[p] = b->crank[j];
            w->cout[p] = b->cout[j];
            w->cin[p] = b->cin[j];
            p++;
        }
        w->cptr[++k] = p;
    }
    o->n = k;
    o->n_pairs = (int32_t)p;
    o->key = w->key;
    o->blk = w->blk;
    o->cptr = w->cptr;
    o->load = w->load;
    o->fp = w->fp;
    o->wk = w->wk;
    o->cself = w->cself;
    o->pinned = w->pinned;
    o->crank = w->crank;
    o->cout = w->cout;
    o->cin = w->cin;
cleanup:
    return st;
}

wpart_status_t wpart_tasks_ranks_estimate_peers(const wpart_tasks_rank_summary_t *a,
                                                const wpart_tasks_rank_summary_t *bs, int32_t n,
                                                const wpart_tasks_coeffs_t *c,
                                                const wpart_tasks_lb_params_t *prm,
                                                double comm_thresh, int64_t cross_pairs,
                                                int per_rank, int fallback, int skip_held,
                                                uint8_t *found, double *dexc, double *gain)
{
    wpart_status_t st = WPART_OK;
    int32_t *give = NULL, *take = NULL;
    sum_buf_t w;
    side_prep_t pa, pb;
    memset(&w, 0, sizeof(w));
    memset(&pa, 0, sizeof(pa));
    memset(&pb, 0, sizeof(pb));
    if (a == NULL || n < 0 || (n > 0 && (bs == NULL || !found || !dexc || !gain)))
        WPART_FAIL(WPART_EINVAL, "peer summaries or outputs are NULL");
    if (skip_held && (a->n > 0 && !a->key))
        WPART_FAIL(WPART_EINVAL, "leaving out held clusters needs the summaries' ids");
    if (skip_held && !wpart_tasks_i_sorted_strict(a->key, a->n))
        WPART_FAIL(WPART_EINVAL, "summary ids are not sorted and distinct");
    int32_t most = 0;
    for (int32_t k = 0; k < n; k++) {
        if (skip_held && bs[k].n > 0 &&
            (!bs[k].key || !wpart_tasks_i_sorted_strict(bs[k].key, bs[k].n)))
            WPART_FAIL(WPART_EINVAL, "summary ids are missing, or not sorted and distinct");
        most = bs[k].n > most ? bs[k].n : most;
    }
    give = wpart_i_malloc((int64_t)a->n + 1, sizeof(int32_t));
    take = wpart_i_malloc((int64_t)most + 1, sizeof(int32_t));
    if (!give || !take) WPART_FAIL(WPART_ENOMEM, "out of memory for the estimates");
    WPART_CHECK(check_summary(a, "a"));
    WPART_CHECK(prep_side(a, &pa));
    for (int32_t k = 0; k < n; k++) {
        wpart_tasks_rank_summary_t b = bs[k];
        WPART_CHECK(check_summary(&bs[k], "b"));
        if (skip_held) WPART_CHECK(summary_without(&bs[k], a, &w, &b));
        WPART_CHECK(prep_side(&b, &pb));
        wpart_tasks_pair_step_t out = {0, 0.0, 0.0, give, take, 0, 0};
        WPART_CHECK(estimate(a, &b, &pa, &pb, c, prm, comm_thresh, cross_pairs, per_rank,
                             fallback, &out));
        prep_free(&pb);
        sum_buf_free(&w);
        found[k] = (uint8_t)(out.found != 0);
        dexc[k] = out.dexc;
        gain[k] = out.gain;
    }
cleanup:
    sum_buf_free(&w);
    prep_free(&pa);
    prep_free(&pb);
    free(give);
    free(take);
    return st;
}
