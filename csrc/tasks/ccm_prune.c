/*
 * ccm_prune.c -- FindBestCCM without the quadratic scan.
 *
 * The exhaustive scan (ccm_eval.c) evaluates every pair (cluster of r, cluster of p), then
 * every sub-cluster unit and every per-pair part: O(n_r n_p) per pair of ranks, which made
 * CCM-LB quadratic in the tasks per rank. This scan returns the same exchange: it evaluates a
 * candidate only when a cheap lower bound of max(W_r, W_p) after it does not exclude it from
 * being accepted and from beating the best found so far, and it breaks ties exactly as the
 * exhaustive scan (larger gain, then fewer tasks moved, then the earlier in the exhaustive
 * order).
 *
 * The bound. Rank r gives unit i (load l_i, incident bytes v_i, homing bytes it may take away
 * h_i) and takes unit j. Its load becomes L_r - l_i + l_j exactly; max(out, in) and loc move
 * by at most the bytes of the edges incident to the moved tasks, and arrivals only add
 * homing, so
 *     W_r >= [a_r (L_r - l_i) + b (M_r - v_i)^+ + g (loc_r - v_i)^+ + d (H_r - h_i)^+]
 *            + [a_r l_j - b v_j]  =  A_i + x_j,
 * and symmetrically W_p >= B_j + y_i. For each i the candidates j satisfy x_j <= T - A_i and
 * B_j <= T - y_i (T: the largest max W that can still win): a prefix of the j sorted by x,
 * scanned in blocks of 16 that are skipped whole when their smallest B_j is too large. The
 * bound is computed in floating point with a relative margin of 1e-9, far above rounding.
 * Only used from a pair without cap excess (every accepted candidate then has none either)
 * and without explore (which draws among all improving candidates).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ccm_internal.h"

typedef struct {
    double a, L, M, loc, h; /* alpha, load, max(out, in), on-rank bytes, homing bytes */
} side_t;


int wpart_i_ccm_cmp_xkey(const void *x, const void *y)
{
    const xkey_t *a = x, *b = y;
    if (a->x != b->x) return a->x < b->x ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

static void side_of(const wpart_tasks_state_t *s, int32_t r, const wpart_tasks_rank_t *v,
                    side_t *o)
{
    o->a = s->p.rank_alpha ? s->p.rank_alpha[r] : s->c.alpha;
    o->L = v->load;
    o->M = v->out > v->in ? v->out : v->in;
    o->loc = v->loc;
    o->h = v->h;
}

/* homing bytes that unit c leaving `rank` may take away */
static double hrm(const wpart_tasks_state_t *s, const clusters_t *C, int32_t c, int32_t rank,
                  double h)
{
    if (s->c.delta == 0.0) return 0.0; /* only delta * (H - hr) uses it: 0 either way */
    int32_t b = C->blk[c];
    if (b == -1) return 0.0;
    if (b < 0) return h; /* several blocks */
    return s->p.block_home[b] != rank ? s->p.block_size[b] : 0.0;
}

/* lower bound of W of side x after losing a unit (load l, bytes v, homing hr) */
static double lose(const wpart_tasks_coeffs_t *c, const side_t *x, double l, double v, double hr)
{
    double w = x->a * (x->L - l);
    if (x->M - v > 0) w += c->beta * (x->M - v);
    if (x->loc - v > 0) w += c->gamma * (x->loc - v);
    if (x->h - hr > 0) w += c->delta * (x->h - hr);
    return w;
}

typedef struct {
    wpart_tasks_state_t *s;
    int32_t r, p;
    double bw, tol, mg;
    const snapshot_t *snap;
    best_t *best;
    const csum_t *ca, *cb; /* directional volumes of the clusters (index a = i + 1, b = j + 1),
                              NULL when not known */
} scan_t;

/* 1 when rank `to` cannot take a one-way unit of block b: it lacks the block and its memory
 * plus the block's size is above its cap. Its memory only grows with the unit (footprints,
 * the working-memory max, the block), the pair has no excess, so consider_at would reject
 * the move: it is skipped unevaluated (with a relative margin of 1e-9 for the rounding of
 * the sums). The receiver's state is the one eval_pair uses (the snapshot for p). */
static int no_room(const scan_t *z, int32_t to, int32_t b)
{
    const wpart_tasks_state_t *s = z->s;
    if (b < 0 || !s->c.enforce_memory || !s->p.rank_mem_cap) return 0;
    const int64_t N = s->p.n_blocks;
    const int from_snap = to == z->p && z->snap;
    const wpart_tasks_rank_t *v = from_snap ? &z->snap->rank[to] : &s->rank[to];
    const int32_t *rc = (from_snap ? z->snap->refcnt : s->refcnt) + to * N;
    if (rc[b] > 0) return 0;
    double cap = s->p.rank_mem_cap[to];
    return wpart_tasks_i_memory(&s->p, to, v) + s->p.block_size[b] > cap + 1e-9 * fabs(cap);
}

/* the largest max(W_r, W_p) that can still be accepted and win, plus the margin */
static double limit(const scan_t *z)
{
    return (z->best->found ? z->bw - z->best->gain : z->bw - z->tol * z->bw) + z->mg;
}

/* consider() of the exhaustive scan for a pair without excess, with the order made explicit */
static void consider_at(const scan_t *z, const wpart_tasks_rank_t *v1,
                        const wpart_tasks_rank_t *v2, int32_t i, int32_t j, int32_t moved,
                        int single, int64_t idx)
{
    const wpart_tasks_state_t *s = z->s;
    best_t *best = z->best;
    if (wpart_tasks_i_excess(&s->p, &s->c, z->r, v1) + wpart_tasks_i_excess(&s->p, &s->c, z->p, v2)
        != 0.0) {
        return;
    }
    double w1 = wpart_tasks_i_work_noeps(&s->p, &s->c, z->r, v1);
    double w2 = wpart_tasks_i_work_noeps(&s->p, &s->c, z->p, v2);
    double gain = z->bw - (w1 > w2 ? w1 : w2);
    if (!(gain > z->tol * z->bw)) return;
    if (best->found &&
        !(gain > best->gain ||
          (gain == best->gain && (moved < best->moved || (moved == best->moved && idx < best->idx))))) {
        return;
    }
    wpart_i_ccm_take(best, 0.0, gain, i, j, moved, single);
    best->idx = idx;
}

static wpart_status_t try_pair(const scan_t *z, const clusters_t *Cr, int32_t i,
                               const clusters_t *Cp, int32_t j, int single, int64_t idx)
{
    wpart_tasks_rank_t v1, v2;
    int valid;
    if ((j < 0 && i >= 0 && no_room(z, z->p, Cr->blk[i])) ||
        (i < 0 && j >= 0 && no_room(z, z->r, Cp->blk[j]))) {
        return WPART_OK;
    }
    if (z->ca && single == 0 && ((i >= 0 && Cr->deg[i] > 0) || (j >= 0 && Cp->deg[j] > 0)) &&
        (i < 0 || Cr->blk[i] != -2) && (j < 0 || Cp->blk[j] != -2)) { /* one block at most */
        /* clusters with edges: the closed form without the bytes between the two (cheap)
           rules out most candidates before the edge walk */
        const wpart_tasks_state_t *s = z->s;
        wpart_i_ccm_estimate_pair(s, z->r, Cr, i, z->p, Cp, j, z->snap, &z->ca[i + 1],
                                  &z->cb[j + 1], &v1, &v2);
        double w1 = wpart_tasks_i_work_noeps(&s->p, &s->c, z->r, &v1);
        double w2 = wpart_tasks_i_work_noeps(&s->p, &s->c, z->p, &v2);
        double vi = i >= 0 ? Cr->vol[i] : 0.0, vj = j >= 0 ? Cp->vol[j] : 0.0;
        double slack = s->c.gamma * (vi < vj ? vi : vj);
        if ((w1 > w2 ? w1 : w2) - slack > limit(z)) return WPART_OK;
    }
    wpart_status_t st = wpart_i_ccm_eval_pair(z->s, z->r, Cr, i, z->p, Cp, j, z->snap, &v1, &v2,
                                              &valid);
    if (st != WPART_OK) return st;
    int32_t moved = (i >= 0 ? Cr->start[i + 1] - Cr->start[i] : 0) +
                    (j >= 0 ? Cp->start[j + 1] - Cp->start[j] : 0);
    if (valid) consider_at(z, &v1, &v2, i, j, moved, single, idx);
    return WPART_OK;
}

static int scratch(wpart_tasks_state_t *s, int64_t bytes)
{
    if (bytes <= s->scr_n) return 1;
    void *q = wpart_i_realloc(s->scr, bytes, 1);
    if (!q) return 0;
    s->scr = q;
    s->scr_n = bytes;
    return 1;
}

/* U's units by ascending load, built on the 8th scan since U was built (a set scanned a few
   times is not worth sorting; `now`: at once, for a set that is sorted on every scan
   otherwise); NULL when not (yet) available. The order is a cache of U: its builders reset
   it. */
static const int32_t *by_load(clusters_t *U, int now)
{
    if (U->ord_ok) return U->ord;
    if (!now && (++U->uses < 8 || U->n < 32)) return NULL;
    if (U->n > U->ord_cap) {
        int32_t *o = wpart_i_realloc(U->ord, U->n, sizeof(int32_t));
        if (o) U->ord = o;
        double *l = wpart_i_realloc(U->ordl, U->n, sizeof(double));
        if (l) U->ordl = l;
        if (!o || !l) return NULL; /* no memory: the plain scan */
        U->ord_cap = U->n;
    }
    xkey_t *k = wpart_i_malloc(U->n, sizeof(xkey_t));
    if (!k) return NULL;
    for (int32_t u = 0; u < U->n; u++) {
        k[u].x = U->load[u];
        k[u].b = u;
    }
    qsort(k, (size_t)U->n, sizeof(xkey_t), wpart_i_ccm_cmp_xkey);
    for (int32_t u = 0; u < U->n; u++) {
        U->ord[u] = k[u].b;
        U->ordl[u] = k[u].x;
    }
    free(k);
    U->ord_ok = 1;
    return U->ord;
}

static wpart_status_t scan_unit(const scan_t *z, const side_t *sr, const side_t *sp,
                                const clusters_t *Cr, const clusters_t *Cp, const clusters_t *U,
                                int32_t u, int from_r, int single, int64_t base, double Ar0,
                                double Bp0);

/* The loads [lo, hi] a one-way unit leaving r (from_r) or p may have to beat the current
 * best (see scan_units), widened slightly for rounding. */
static void unit_load_window(const scan_t *z, const side_t *sr, const side_t *sp, int from_r,
                             double Ar0, double Bp0, double *lo_out, double *hi_out)
{
    const side_t *g = from_r ? sr : sp, *t = from_r ? sp : sr;
    double T = limit(z), t0 = from_r ? Bp0 : Ar0;
    double lo = g->L - T / g->a, hi = (T - t0) / t->a;
    double w = 1e-9 * (fabs(lo) + fabs(hi) + g->L + t->L) + 1e-300;
    *lo_out = lo - w;
    *hi_out = hi + w;
}

/* one-way units of U leaving r (from_r) or p: each tried when its bound allows */
static wpart_status_t scan_units(const scan_t *z, const side_t *sr, const side_t *sp,
                                 const clusters_t *Cr, const clusters_t *Cp, const clusters_t *U,
                                 int from_r, int single, int64_t base)
{
    const wpart_tasks_coeffs_t *c = &z->s->c;
    const double Ar0 = lose(c, sr, 0, 0, 0), Bp0 = lose(c, sp, 0, 0, 0);
    const int32_t *ord = NULL;
    /* Without communication terms the bounds are monotone in the unit's load: the giving
       side's W >= a (L - l), the taking side's W = W0 + a l exactly, so only the units with
       a load in [lo, hi] can win (a slightly widened interval; each is checked in full). */
    if (z->ca == NULL && single != 2 && sr->a > 0 && sp->a > 0) {
        ord = by_load((clusters_t *)U, 0); /* the cache of the const set */
    }
    if (ord) {
        double lo, hi;
        unit_load_window(z, sr, sp, from_r, Ar0, Bp0, &lo, &hi);
        int32_t a = 0, b = U->n; /* first position with load > hi */
        while (a < b) {
            int32_t m = a + (b - a) / 2;
            if (U->ordl[m] <= hi) a = m + 1;
            else b = m;
        }
        for (int32_t k = a - 1; k >= 0 && U->ordl[k] >= lo; k--) { /* heaviest first */
            wpart_status_t st = scan_unit(z, sr, sp, Cr, Cp, U, U->ord[k], from_r, single, base,
                                          Ar0, Bp0);
            if (st != WPART_OK) return st;
        }
        return WPART_OK;
    }
    const clusters_t *C = from_r ? Cr : Cp;
    if (z->ca == NULL && single != 2 && sr->a > 0 && sp->a > 0 && U->runs) {
        /* Not sorted: the same interval of loads, a cluster's run of units at once (its
           loads lie between its lightest single and its n - 1 heaviest tasks). */
        int64_t nu = 0;
        for (int32_t k = 0; k < C->n; k++) {
            nu += wpart_tasks_i_n_units(C->start[k + 1] - C->start[k]);
        }
        if (nu == U->n) { /* U was built from C */
            double lo, hi;
            unit_load_window(z, sr, sp, from_r, Ar0, Bp0, &lo, &hi);
            int32_t u0 = 0;
            for (int32_t k = 0; k < C->n; k++) {
                int32_t n = C->start[k + 1] - C->start[k], nk = wpart_tasks_i_n_units(n);
                if (nk == 0) continue;
                double lmin = U->load[u0 + n - 1];
                double lmax = U->load[u0 + wpart_tasks_i_run_heaviest(n)];
                if (lmax >= lo && lmin <= hi) {
                    for (int32_t u = u0; u < u0 + nk; u++) {
                        wpart_status_t st = scan_unit(z, sr, sp, Cr, Cp, U, u, from_r, single,
                                                      base, Ar0, Bp0);
                        if (st != WPART_OK) return st;
                    }
                }
                u0 += nk;
            }
            return WPART_OK;
        }
    }
    for (int32_t u = 0; u < U->n; u++) {
        wpart_status_t st = scan_unit(z, sr, sp, Cr, Cp, U, u, from_r, single, base, Ar0, Bp0);
        if (st != WPART_OK) return st;
    }
    return WPART_OK;
}

static wpart_status_t scan_unit(const scan_t *z, const side_t *sr, const side_t *sp,
                                const clusters_t *Cr, const clusters_t *Cp, const clusters_t *U,
                                int32_t u, int from_r, int single, int64_t base, double Ar0,
                                double Bp0)
{
    const wpart_tasks_coeffs_t *c = &z->s->c;
    {
        double l = U->load[u], v = U->vol[u], w1, w2;
        if (from_r) {
            w1 = lose(c, sr, l, v, hrm(z->s, U, u, z->r, sr->h));
            w2 = Bp0 + sp->a * l - c->beta * v;
        } else {
            w1 = Ar0 + sr->a * l - c->beta * v;
            w2 = lose(c, sp, l, v, hrm(z->s, U, u, z->p, sp->h));
        }
        double T = limit(z);
        if (w1 > T || w2 > T) return WPART_OK;
        return from_r ? try_pair(z, U, u, Cp, -1, single, base + u)
                      : try_pair(z, Cr, -1, U, u, single, base + u);
    }
}

/* The per-pair parts of C (the giving side's clusters, targets in X), in build_fill's order,
   each tried when its bound allows (scan_units' test), as scan_units on the whole set would:
   only the parts tried are built (appended to X->U; the winner's index is its place there),
   the order of the others (base + position in the whole set) is kept for the ties. */
static wpart_status_t scan_fill(const scan_t *z, const side_t *sr, const side_t *sp,
                                const clusters_t *Cr, const clusters_t *Cp, const clusters_t *C,
                                fill_t *X, int from_r, int64_t base)
{
    const wpart_tasks_state_t *s = z->s;
    const wpart_tasks_coeffs_t *c = &s->c;
    const double Ar0 = lose(c, sr, 0, 0, 0), Bp0 = lose(c, sp, 0, 0, 0);
    const int32_t *tb = s->p.task_block;
    clusters_t *U = &X->U;
    wpart_status_t st = wpart_tasks_i_fill_begin(C, X->target, U);
    if (st != WPART_OK) return st;
    int64_t u = 0; /* position in the whole set */
    for (int32_t k = 0; k < C->n; k++) {
        /* no part of a block the receiver has no room for (its index in the whole set is
           then not counted: the later parts keep their order) */
        if (no_room(z, from_r ? z->p : z->r, C->blk[k])) continue;
        int32_t m;
        double sum, over = 0.0, rest[2];
        int parts = wpart_tasks_i_fill_cluster(s, C, k, X->target[k], X->tmp, X->in, &m, &sum,
                                               &over, rest);
        for (int part = 0; part < 2; part++) {
            if (!(parts & (1 << part))) continue;
            const int32_t *x = X->tmp, len = m + part;
            double l = part ? over : sum, v = 0.0; /* add_unit's sums */
            if (s->p.n_edges > 0) {
                for (int32_t i = 0; i < len; i++) v += wpart_tasks_i_task_vol(s, x[i]);
            }
            int32_t b = C->blk[k];
            if (b == -2) { /* the part's own blocks (add_unit's rule) */
                for (int32_t i = 0; i < len; i++) {
                    int32_t bt = tb ? tb[x[i]] : -1;
                    b = i == 0 ? bt : (b == bt ? b : -2);
                }
            }
            int32_t g = from_r ? z->r : z->p;
            double hr = b == -1 || c->delta == 0.0 ? 0.0 : b < 0 ? (from_r ? sr->h : sp->h)
                        : s->p.block_home[b] != g ? s->p.block_size[b] : 0.0;
            double w1, w2;
            if (from_r) {
                w1 = lose(c, sr, l, v, hr);
                w2 = Bp0 + sp->a * l - c->beta * v;
            } else {
                w1 = Ar0 + sr->a * l - c->beta * v;
                w2 = lose(c, sp, l, v, hr);
            }
            double T = limit(z);
            if (!(w1 > T || w2 > T)) {
                wpart_tasks_i_add_part(s, U, x, len, rest[part]);
                int32_t ui = U->n - 1;
                st = from_r ? try_pair(z, U, ui, Cp, -1, 2, base + u)
                            : try_pair(z, Cr, -1, U, ui, 2, base + u);
                if (st != WPART_OK) return st;
            }
            u++;
        }
    }
    return WPART_OK;
}

/* One side of the exchange between r and p, for side_terms: its clusters C of `rank`, its
 * own and the other side, own_r (1: r's side, whose bytes are the o1/i1 of csum_t; 0: p's, o2/i2),
 * the rank's out/in, the bytes of each cluster to / from the other rank (with the index) and
 * the assignment its byte sums read */
typedef struct {
    const clusters_t *C;
    int32_t rank;
    const side_t *own, *oth;
    int own_r;
    double m_out, m_in;
    const double *xo, *xi;
    const int32_t *asg;
} side_terms_t;

/* The two ranking terms of cluster k - 1 of a side (k = 0: none): *lose_v, the lower bound of
 * the side's W after giving it away, *gain_v, its x (what it costs the other side); with
 * communication its byte sums go to *keep. Written once for r's clusters (A_i, y_i) and p's
 * (B_j, x_j). */
static void side_terms(wpart_tasks_state_t *s, const side_terms_t *q, int comm, int use_ix,
                       int32_t r, int32_t p, int64_t k, csum_t *keep, double *lose_v,
                       double *gain_v)
{
    const wpart_tasks_coeffs_t *c = &s->c;
    const clusters_t *C = q->C;
    const side_t *own = q->own;
    int32_t i = (int32_t)k - 1;
    double l = i >= 0 ? C->load[i] : 0.0, v = i >= 0 ? C->vol[i] : 0.0;
    double hr = i >= 0 ? hrm(s, C, i, q->rank, own->h) : 0.0;
    if (!(comm && i >= 0)) {
        *lose_v = lose(c, own, l, v, hr);
        *gain_v = q->oth->a * l - c->beta * v;
        return;
    }
    csum_t A;
    if (use_ix) {
        const double *cv = C->cv + 5 * (int64_t)i;
        A.intra = cv[0], A.otot = cv[1], A.itot = cv[2];
        if (q->own_r) {
            A.o1 = cv[3], A.i1 = cv[4], A.o2 = q->xo[k], A.i2 = q->xi[k];
        } else {
            A.o2 = cv[3], A.i2 = cv[4], A.o1 = q->xo[k], A.i1 = q->xi[k];
        }
    } else {
        wpart_i_ccm_csum(s, C->tasks + C->start[i], C->start[i + 1] - C->start[i], q->asg, r, p,
                         &A);
    }
    A.x = 0.0;
    *keep = A;
    double mo = q->own_r ? A.o1 : A.o2, mi = q->own_r ? A.i1 : A.i2; /* own side's bytes */
    double to = q->own_r ? A.o2 : A.o1, ti = q->own_r ? A.i2 : A.i1; /* the other side's */
    double o1 = q->m_out - (A.otot - mo) + mi, i1 = q->m_in - (A.itot - mi) + mo;
    double l1 = own->loc - (mo + mi + A.intra) - v;
    *lose_v = own->a * (own->L - l) + c->beta * (o1 > i1 ? o1 : i1) + c->gamma * l1 +
              (own->h - hr > 0 ? c->delta * (own->h - hr) : 0.0);
    double po = -ti + (A.otot - to), pi = -to + (A.itot - ti);
    *gain_v = q->oth->a * l + c->beta * (po < pi ? po : pi) + c->gamma * (to + ti + A.intra);
}

wpart_status_t wpart_i_ccm_find_best_pruned(wpart_tasks_state_t *s, int32_t r, int32_t p,
                                            const clusters_t *Cr, const clusters_t *Cp,
                                            const clusters_t *Tr, const clusters_t *Tp,
                                            double tol, int one_way, int split_always,
                                            fill_t *X, const snapshot_t *snap, double bw,
                                            double wr, double wq, best_t *best)
{
    wpart_status_t st;
    const wpart_tasks_coeffs_t *c = &s->c;
    const wpart_tasks_rank_t *vp = snap ? &snap->rank[p] : &s->rank[p];
    side_t sr, sp;
    side_of(s, r, &s->rank[r], &sr);
    side_of(s, p, vp, &sp);
    double scale = bw + sr.a * sr.L + sp.a * sp.L + c->beta * (sr.M + sp.M) +
                   c->gamma * (sr.loc + sp.loc) + c->delta * (sr.h + sp.h);
    scan_t z = {s, r, p, bw, tol, 1e-9 * scale + 1e-300, snap, best, NULL, NULL};
    const int64_t nI = (int64_t)Cr->n + 1, nJ = (int64_t)Cp->n + 1, nB = (nJ + 15) / 16;
    /* A_i, y_i (i = -1 .. n_r - 1), B_j (j = -1 .. n_p - 1), the j by x_j, block minima, and
       the bytes of each cluster to and from the other rank */
    if (!scratch(s, (int64_t)sizeof(double) * (4 * nI + 3 * nJ + 2 * nB) +
                        (int64_t)sizeof(xkey_t) * nJ + (int64_t)sizeof(csum_t) * (nI + nJ))) {
        return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (scan)");
    }
    xkey_t *kx = s->scr;
    double *Ai = (double *)(kx + nJ), *yi = Ai + nI, *Bj = yi + nI, *bmin = Bj + nJ;
    double *bpre = bmin + nB; /* bpre[k]: the smallest B_j of blocks 0 .. k */
    double *xo = bpre + nB, *xi = xo + nI, *yo = xi + nI, *yn = yo + nJ;
    csum_t *ca = (csum_t *)(yn + nJ), *cb = ca + nI;
    /* With communication, a cluster's own effect on the out/in/loc of both ranks is exact (its
       directional volumes, the closed form of the exchange); only the bytes between the two
       exchanged clusters (S = ab + ba, <= either cluster's volume) are unknown: they add S to
       out and in (max(out, in) only grows) and take S from loc (gamma * volume of slack). */
    const int comm = s->p.n_edges > 0 && (c->beta > 0 || c->gamma > 0);
    const int32_t *asg_p = snap ? snap->assign : s->assign;
    const ccm_index_t *ix = s->cx;
    const int use_ix = comm && ix && ix->cur_rank == r;
    if (comm) {
        memset(&ca[0], 0, sizeof(csum_t));
        memset(&cb[0], 0, sizeof(csum_t));
        z.ca = ca;
        z.cb = cb;
    }
    if (use_ix) { /* bytes between each cluster and the other rank, from the edge lists */
        memset(xo, 0, sizeof(double) * (size_t)(2 * nI + 2 * nJ));
        int64_t lo, hi;
        wpart_i_ccm_index_range(ix->cur, ix->n_cur, p, &lo, &hi);
        for (int64_t k = lo; k < hi; k++) {
            const xent_t *e = ix->cur + k;
            int32_t ci = ix->map_cur[e->t];
            if (ci >= 0) (e->out ? xo : xi)[ci + 1] += e->v; /* A -> p, p -> A */
            if (!snap) {
                int32_t cj = ix->map_cur[e->o];
                if (cj >= 0) (e->out ? yn : yo)[cj + 1] += e->v; /* r -> B, B -> r */
            }
        }
        if (snap) { /* p's clusters as gossiped: its edges to r's tasks of the snapshot */
            const xent_t *e0 = ix->snap + ix->snap_start[p];
            wpart_i_ccm_index_range(e0, ix->snap_start[p + 1] - ix->snap_start[p], r, &lo, &hi);
            for (int64_t k = lo; k < hi; k++) {
                int32_t cj = ix->map_snap[e0[k].t];
                if (cj >= 0) (e0[k].out ? yo : yn)[cj + 1] += e0[k].v;
            }
        }
    }
    const double mr_out = s->rank[r].out, mr_in = s->rank[r].in;
    const double mp_out = vp->out, mp_in = vp->in;
    /* Ranking from the snapshot without communication terms and with one alpha: r's side
       depends only on r's state during its turn, p's side only on the snapshot of the
       iteration; both are kept (ccm_cache_t) instead of being computed for every pair. */
    ccm_cache_t *pc = s->pc;
    const int cache = pc && snap && !comm && !s->p.rank_alpha;
    int r_ready = 0, p_ready = 0;
    if (cache) {
        if (!(pc->r == r && pc->r_stamp == pc->turn && pc->nA == nI)) {
            if (nI > pc->capA) {
                double *q = wpart_i_realloc(pc->A, 2 * (int64_t)nI, sizeof(double));
                if (!q) return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (cache)");
                pc->A = q;
                pc->capA = nI;
            }
            pc->r = -1;
        } else {
            r_ready = 1;
        }
        Ai = pc->A;
        yi = pc->A + pc->capA;
        if (!(pc->p_stamp[p] == pc->iter && pc->pn[p] == nJ)) {
            if (nJ > pc->pcap[p]) {
                void *q = wpart_i_realloc(pc->pmem[p],
                                          (int64_t)(sizeof(double) + sizeof(xkey_t)) * nJ +
                                              (int64_t)(2 * sizeof(double)) * nB,
                                          1);
                if (!q) return wpart_i_error(WPART_ENOMEM, "ccm: out of memory (cache)");
                pc->pmem[p] = q;
                pc->pcap[p] = nJ;
            }
            pc->p_stamp[p] = -1;
        } else {
            p_ready = 1;
        }
        kx = pc->pmem[p];
        Bj = (double *)(kx + pc->pcap[p]);
        bmin = Bj + pc->pcap[p];
        bpre = bmin + (pc->pcap[p] + 15) / 16;
    }
    const side_terms_t tr = {Cr, r, &sr, &sp, 1, mr_out, mr_in, xo, xi, s->assign};
    const side_terms_t tp = {Cp, p, &sp, &sr, 0, mp_out, mp_in, yo, yn, asg_p};
    for (int64_t a = 0; a < nI && !r_ready; a++) {
        side_terms(s, &tr, comm, use_ix, r, p, a, &ca[a], &Ai[a], &yi[a]);
    }
    if (cache && !r_ready) {
        pc->r = r;
        pc->r_stamp = pc->turn;
        pc->nA = nI;
    }
    for (int64_t b = 0; b < nJ && !p_ready; b++) {
        side_terms(s, &tp, comm, use_ix, r, p, b, &cb[b], &Bj[b], &kx[b].x);
        kx[b].b = (int32_t)b;
    }
    /* without communication terms x_j = a_r l_j: the clusters' cached order by load */
    const int32_t *ordp = !p_ready && !comm && sr.a > 0 ? by_load((clusters_t *)Cp, 1) : NULL;
    if (p_ready) {
        /* kx, Bj and bmin as computed for this peer earlier in the iteration */
    } else if (ordp) {
        kx[0].x = 0.0;
        kx[0].b = 0;
        for (int64_t t = 0; t + 1 < nJ; t++) {
            kx[t + 1].x = sr.a * Cp->ordl[t];
            kx[t + 1].b = ordp[t] + 1;
        }
    } else {
        qsort(kx, (size_t)nJ, sizeof(xkey_t), wpart_i_ccm_cmp_xkey);
    }
    for (int64_t k = 0; k < nB && !p_ready; k++) {
        double m = INFINITY;
        for (int64_t t = 16 * k; t < 16 * k + 16 && t < nJ; t++) {
            if (Bj[kx[t].b] < m) m = Bj[kx[t].b];
        }
        bmin[k] = m;
        bpre[k] = k > 0 && bpre[k - 1] < m ? bpre[k - 1] : m;
    }
    if (cache && !p_ready) {
        pc->p_stamp[p] = pc->iter;
        pc->pn[p] = nJ;
    }
    /* whole clusters: i = -1 .. n_r - 1 against j = -1 .. n_p - 1 (exhaustive order a*nJ+b) */
    /* r's clusters heaviest first when x is the load (A_i then mostly grows and the prefix
       below shrinks: each prefix is searched from the previous one) */
    const int32_t *ordr = !comm && sr.a > 0 ? by_load((clusters_t *)Cr, 1) : NULL;
    int64_t hint = nJ;
    for (int64_t q = 0; q < nI; q++) {
        int64_t a = q == 0 || !ordr ? q : (int64_t)ordr[nI - 1 - q] + 1;
        int32_t i = (int32_t)a - 1;
        double T = limit(&z);
        if (Ai[a] + kx[0].x > T) continue;
        if (one_way && i >= 0) { /* a one-way give: j = -1 only */
            if (Bj[0] + yi[a] <= T) {
                st = try_pair(&z, Cr, i, Cp, -1, 0, a * nJ);
                if (st != WPART_OK) return st;
            }
            continue;
        }
        /* prefix of the j with x_j <= T - A_i: bracketed by galloping from the previous */
        int64_t lo, hi, step = 1;
        if (hint < nJ && kx[hint].x + Ai[a] <= T) {
            lo = hint + 1;
            hi = lo;
            while (hi < nJ && kx[hi].x + Ai[a] <= T) {
                lo = hi + 1;
                hi = lo + step;
                step *= 2;
            }
            if (hi > nJ) hi = nJ;
        } else {
            hi = hint;
            lo = hi;
            while (lo > 0 && !(kx[lo - 1].x + Ai[a] <= T)) {
                hi = lo - 1;
                lo = hi - step > 0 ? hi - step : 0;
                step *= 2;
            }
        }
        while (lo < hi) {
            int64_t mid = (lo + hi) / 2;
            if (kx[mid].x + Ai[a] <= T) lo = mid + 1;
            else hi = mid;
        }
        hint = lo;
        /* heaviest first: the first candidate that survives is usually close to the best,
           which then rules out most of the rest (the result does not depend on the order) */
        for (int64_t k = (lo - 1) / 16; lo > 0 && k >= 0; k--) {
            if (bpre[k] + yi[a] > limit(&z)) break; /* no block of 0 .. k can pass */
            if (bmin[k] + yi[a] > limit(&z)) continue;
            for (int64_t t = (16 * k + 15 < lo - 1 ? 16 * k + 15 : lo - 1); t >= 16 * k; t--) {
                int32_t b = kx[t].b;
                if (b == 0 && a == 0) continue;
                T = limit(&z);
                if (Bj[b] + yi[a] > T || kx[t].x + Ai[a] > T) continue;
                st = try_pair(&z, Cr, i, Cp, b - 1, 0, a * nJ + b);
                if (st != WPART_OK) return st;
            }
        }
    }
    int64_t base = nI * nJ;
    if (Tr && Tp && (split_always || !best->found)) { /* sub-cluster units, one way */
        st = scan_units(&z, &sr, &sp, Cr, Cp, Tr, 1, 1, base);
        if (st != WPART_OK) return st;
        st = scan_units(&z, &sr, &sp, Cr, Cp, Tp, 0, 1, base + Tr->n);
        if (st != WPART_OK) return st;
    }
    if (Tr && Tp) base += (int64_t)Tr->n + Tp->n;
    if (X && (split_always || !best->found)) { /* per-pair parts */
        int give;
        /* a part leaving g can only win if a_g (L_g - l) <= T: l >= L_g - T / a_g */
        double T = limit(&z), lr = -INFINITY, lp = -INFINITY;
        if (sr.a > 0) lr = sr.L - T / sr.a;
        if (sp.a > 0) lp = sp.L - T / sp.a;
        lr -= 1e-9 * (fabs(lr) + sr.L) + 1e-300;
        lp -= 1e-9 * (fabs(lp) + sp.L) + 1e-300;
        wpart_i_ccm_fill_targets(s, r, p, Cr, Cp, X, snap, wr, wq, lr, lp, &give);
        st = scan_fill(&z, &sr, &sp, Cr, Cp, give ? Cr : Cp, X, give, base);
        if (st != WPART_OK) return st;
    }
    return WPART_OK;
}
