/* rect_polish.c -- a cheap cut-move local search on a P x Q grid (see rect_polish.h).
 *
 * Nicol's half-sweeps stop at a grid where each dimension's cuts are optimal for the other's:
 * no move of one dimension lowers the max load. Among the many placements with that max,
 * moving a single cut can still lower the number of blocks at it (and even out the two
 * stripes it separates); once no block is left at the max, the max has gone down. The search
 * keeps the block loads, each stripe's largest block and how many blocks hold it, and each
 * stripe's blocks by load; a cut's places cost the entries of the moved rows (or columns) and
 * the blocks they reach, and stay known until a move changes them (rp_fill). */
#include "rect_grid_i.h"

#include "rect_polish.h"
#include "rect_polish_i.h"

#ifndef RP_TENURE
#define RP_TENURE 3 /* tabu steps of a cut that moved */
#endif
#ifndef RP_WINDOW
#define RP_WINDOW 8 /* a cut moves by at most this many rows (columns) at a time */
#endif

static void rp_stripe(rp_t *s, int d, int64_t p)
{
    double mx = -RG_INF;
    int64_t c = 0;
    for (int64_t q = 0; q < s->K[1 - d]; q++) {
        double v = *rp_at(s, d, p, q);
        if (v > mx) {
            mx = v;
            c = 1;
        } else if (v == mx) {
            c++;
        }
    }
    s->smax[d][p] = mx;
    s->scnt[d][p] = c;
}

static void rp_global(rp_t *s)
{
    s->M = -RG_INF;
    s->c = 0;
    for (int64_t p = 0; p < s->K[0]; p++) {
        if (s->smax[0][p] > s->M) {
            s->M = s->smax[0][p];
            s->c = s->scnt[0][p];
        } else if (s->smax[0][p] == s->M) {
            s->c += s->scnt[0][p];
        }
    }
}

/* dimension d's cuts go to nc: each line whose stripe changes moves its entries between the
 * blocks (O(moved entries)); returns the entries moved */
/* each line's stripe under s's cuts */
static void rp_maps(rp_t *s)
{
    for (int d = 0; d < 2; d++) {
        rg_map(s->cut[d], s->K[d], s->side[d].n, s->map[d]);
    }
}

/* with L made: each stripe's largest block and how many hold it, the grid's max */
static double rp_finish(rp_t *s)
{
    for (int d = 0; d < 2; d++) {
        for (int64_t p = 0; p < s->K[d]; p++) {
            rp_stripe(s, d, p);
        }
    }
    rp_global(s);
    return s->M;
}

double wpart_i_rp_loads(rp_t *s)
{
    const rg_side_t *r = &s->side[0];
    rp_heavy_t *h = s->hv; /* (with it, the heavy lines' loads per stripe too) */
    int64_t K0 = s->K[0], K1 = s->K[1];
    rp_maps(s);
    memset(s->L, 0, (size_t)(K0 * K1) * sizeof(double));
    if (h) {
        memset(h->V[0], 0, (size_t)(h->nh[0] * K1) * sizeof(double));
        memset(h->V[1], 0, (size_t)(h->nh[1] * K0) * sizeof(double));
    }
    for (int64_t i = 0; i < r->n; i++) {
        if (WPART_UNLIKELY(rg_cancel(s->ctl, &s->work, r->ptr[i + 1] - r->ptr[i] + 1))) {
            s->stop = 1;
            break;
        }
        int64_t p = s->map[0][i];
        double *row = s->L + p * K1;
        double *v0 = h && h->slot[0][i] >= 0 ? h->V[0] + (int64_t)h->slot[0][i] * K1 : NULL;
        for (int64_t e = r->ptr[i]; e < r->ptr[i + 1]; e++) {
            double w = r->w ? r->w[e] : 1.0;
            int64_t j = r->idx[e], q = s->map[1][j];
            row[q] += w;
            if (v0) {
                v0[q] += w;
            }
            if (h && h->slot[1][j] >= 0) {
                h->V[1][(int64_t)h->slot[1][j] * K0 + p] += w;
            }
        }
    }
    return rp_finish(s);
}

/* wpart_i_rp_loads with the block loads from g's prefix where wpart_i_rg_loads has one for
 * s's grid (integral loads: the same exact sums, in O(P Q) instead of O(nnz); at 8 x 8 the
 * from-scratch sums were 11 % of the default's CPU); g NULL: from scratch */
static double rp_loads_g(rg_ctx_t *g, rp_t *s)
{
    if (!g || !wpart_i_rg_loads(g, s->cut[0], s->cut[1], NULL, s->L)) {
        return wpart_i_rp_loads(s);
    }
    rp_maps(s);
    return rp_finish(s);
}

/* a grid's rank: max load, blocks at it, and the change of the sum of squared block loads */
typedef struct {
    double M;
    int64_t c;
    double ss;
} rp_obj_t;

/* A place of a cut changes the two stripes it separates only in the blocks of T, the other
 * dimension's stripes that hold entries of the moved rows (columns); the rest of the two
 * stripes keeps its loads, whose max and count come from the stripe's blocks by load (ord),
 * the first group of equal loads not all in T. The moved loads add up entry by entry, as in
 * the plain search. With exact loads (integral, the squares' sums at most 2**53) the change of
 * the sum of squares is summed over T alone (the same number in any order); otherwise over
 * both stripes in their order, as the plain search does. The places of a cut are kept (slot)
 * until a move changes them. */
typedef struct {
    int n;    /* places (-1: to be made) */
    double B; /* made for ranks to beat up to B: a place with a block above B holds m = inf */
    int64_t x[2 * RP_WINDOW], c[2 * RP_WINDOW];
    double m[2 * RP_WINDOW], ss[2 * RP_WINDOW];
} rp_slot_t;

typedef struct {
    rp_t s;
    rp_slot_t *slot[2]; /* per cut k of dimension d: its places (rp_fill) */
    int32_t *ord[2];    /* per stripe of dimension d: its blocks by load (rp_sort) */
    int exact;
    double *D;     /* per stripe of the other dimension: the load moved so far (0 out of T) */
    double *na, *nb; /* per member of T: the new loads of a place's two stripes */
    int32_t *T;    /* the stripes touched, nt of them ... */
    uint8_t *in;   /* ... and which (0 out of T) */
    int64_t nt;
} rp_run_t;

/* o below o0, lexicographically (the squares with a relative tolerance) */
static inline int rp_less(const rp_obj_t *o, const rp_obj_t *o0)
{
    return o->M < o0->M ||
           (o->M == o0->M && (o->c < o0->c || (o->c == o0->c && o->ss < o0->ss - 1e-12 *
                                                                      fabs(o0->ss))));
}

/* add the entries of major i to D (T grows by the stripes they reach; the fields in locals:
 * the stores to in[] may alias anything). A run of entries in one stripe (a row's entries
 * come mostly in runs) is added in a register, in entry order from D[q] as it was: the same
 * sums bit for bit, without a store-to-load wait per entry (that wait was a third of the
 * cut moves' time) */
static inline void rp_take(rp_run_t *u, const rg_side_t *sd, const int32_t *om, int64_t i)
{
    const int64_t *ci = sd->idx;
    const double *w = sd->w;
    double *D = u->D, acc = 0.0;
    int32_t *T = u->T;
    uint8_t *in = u->in;
    int64_t nt = u->nt, e1 = sd->ptr[i + 1];
    int32_t pq = -1; /* the run's stripe */
    for (int64_t e = sd->ptr[i]; e < e1; e++) {
        int32_t q = om[ci[e]];
        if (q != pq) {
            if (pq >= 0) {
                D[pq] = acc;
            }
            T[nt] = q; /* T has room for one more */
            nt += !in[q];
            in[q] = 1;
            pq = q;
            acc = D[q];
        }
        acc += w ? w[e] : 1.0;
    }
    if (pq >= 0) {
        D[pq] = acc;
    }
    u->nt = nt;
}

static inline void rp_clear(rp_run_t *u)
{
    for (int64_t t = 0; t < u->nt; t++) {
        u->D[u->T[t]] = 0.0;
        u->in[u->T[t]] = 0;
    }
    u->nt = 0;
}

/* ord[d][p Ko ..]: the blocks of stripe p of dimension d by load, largest first (insertion sort
 * from the order it had: after a move only a few blocks change) */
static void rp_sort(rp_run_t *u, int d, int64_t p)
{
    rp_t *s = &u->s;
    int64_t Ko = s->K[1 - d], st = d == 0 ? 1 : s->K[1];
    const double *v = rp_at(s, d, p, 0);
    int32_t *o = u->ord[d] + p * Ko;
    for (int64_t j = 1; j < Ko; j++) {
        int32_t q = o[j];
        double x = v[q * st];
        int64_t i = j;
        while (i > 0 && v[o[i - 1] * st] < x) {
            o[i] = o[i - 1];
            i--;
        }
        o[i] = q;
    }
}

/* The blocks of a stripe out of T (v[q * st], o: the stripe's order): the group of equal loads
 * o[j .. je) holding their max m, and c of the group out of T (the first seen members of T
 * taken out). */
typedef struct {
    int64_t j, je, c, seen;
    double m;
} rp_rest_t;

/* the max of the stripe's blocks out of T and how many hold it (-inf, 0: none) */
static inline double rp_rest(const rp_run_t *u, const double *v, int64_t st, const int32_t *o,
                             int64_t Ko, rp_rest_t *r, int64_t *cnt)
{
    for (; r->seen < u->nt; r->seen++) {
        r->c -= v[u->T[r->seen] * st] == r->m;
    }
    while (r->c == 0 && r->je < Ko) { /* the group is in T: the next group */
        r->j = r->je;
        r->m = v[o[r->j] * st];
        for (r->je = r->j; r->je < Ko && v[o[r->je] * st] == r->m; r->je++) {
            r->c += !u->in[o[r->je]];
        }
    }
    *cnt = r->c;
    return r->c > 0 ? r->m : -RG_INF;
}

/* the rest of a stripe (its blocks out of T) into a place's max *m and count *c: its max is
 * at most its group's load, so below *m (or with *m above B) it adds nothing and is not looked at */
static inline void rp_merge_rest(const rp_run_t *u, const double *v, int64_t st, const int32_t *o,
                                 int64_t Ko, rp_rest_t *r, double B, double *m, int64_t *c)
{
    if (r->m < *m || *m > B) {
        return;
    }
    int64_t cr;
    double x = rp_rest(u, v, st, o, Ko, r, &cr);
    if (x > *m) {
        *m = x;
        *c = cr;
    } else if (x == *m) {
        *c += cr;
    }
}

/* The places of cut k of dimension d within RP_WINDOW of where it is (between its
 * neighbours), first upwards then downwards, into its slot of the cache: each place, the
 * largest block of the two stripes it separates, how many blocks hold that load, and the change
 * of the sum of squares of their blocks; a place with a block above B (the rank to beat it is
 * made for: the grid's max during the descent, inf in the tabu steps) is only marked so, as the
 * plain search skips it for any rank up to B. A move of a cut changes only the slots of the
 * cut and of its two neighbours, and those of the other dimension's cuts next to a stripe that
 * holds entries of the moved rows (rp_move), so a slot holds until then. */
static void rp_fill(rp_run_t *u, int d, int64_t k, double B)
{
    rp_t *s = &u->s;
    const rg_side_t *sd = &s->side[d];
    const int32_t *om = s->map[1 - d];
    int64_t Ko = s->K[1 - d], a = s->cut[d][k - 1], x0 = s->cut[d][k], b = s->cut[d][k + 1];
    int64_t st = d == 0 ? 1 : s->K[1]; /* stripes k - 1, k: La[q * st], Lb[q * st] */
    const double *La = rp_at(s, d, k - 1, 0), *Lb = rp_at(s, d, k, 0), *D = u->D;
    rp_slot_t *sl = u->slot[d] + k;
    double ss0 = 0.0;
    if (!u->exact) {
        for (int64_t q = 0; q < Ko; q++) {
            double la = La[q * st], lb = Lb[q * st];
            ss0 += la * la + lb * lb;
        }
    }
    sl->n = 0;
    sl->B = B;
    for (int sgn = 1; sgn >= -1; sgn -= 2) {
        /* the rests: at first the stripes' largest group */
        rp_rest_t ra = {0, s->scnt[d][k - 1], s->scnt[d][k - 1], 0, s->smax[d][k - 1]};
        rp_rest_t rb = {0, s->scnt[d][k], s->scnt[d][k], 0, s->smax[d][k]};
        const int32_t *oa = u->ord[d] + (k - 1) * Ko, *ob = u->ord[d] + k * Ko;
        int64_t x = x0;
        for (int64_t step = 1; step <= RP_WINDOW; step++) {
            int64_t i;
            if (sgn > 0) { /* major x moves from stripe k to stripe k - 1 */
                if (x >= b) {
                    break;
                }
                i = x++;
            } else { /* major x - 1 moves from stripe k - 1 to stripe k */
                if (x <= a) {
                    break;
                }
                i = --x;
            }
            rp_take(u, sd, om, i);
            double m = -RG_INF, ds = 0.0, *na = u->na, *nb = u->nb;
            int64_t c = 0;
            int dead = 0; /* a block of the stripe that grows is above B */
            for (int64_t t = 0; t < u->nt; t++) { /* T's new loads, their max ... */
                int32_t q = u->T[t];
                double la = La[q * st], lb = Lb[q * st];
                double va = sgn > 0 ? la + D[q] : la - D[q];
                double vb = sgn > 0 ? lb - D[q] : lb + D[q];
                na[t] = va;
                nb[t] = vb;
                m = va > m ? va : m;
                m = vb > m ? vb : m;
                ds += (va * va + vb * vb) - (la * la + lb * lb);
                if (m > B) {
                    dead = (sgn > 0 ? va : vb) > B;
                    break;
                }
            }
            for (int64_t t = 0; t < u->nt && m <= B; t++) { /* ... and how many hold it */
                c += (na[t] == m) + (nb[t] == m);
            }
            rp_merge_rest(u, La, st, oa, Ko, &ra, B, &m, &c);
            rp_merge_rest(u, Lb, st, ob, Ko, &rb, B, &m, &c);
            if (m > B) { /* above any rank it will be asked for */
                m = RG_INF;
                c = 0;
                ds = 0.0;
            } else if (!u->exact) { /* the squares in the full pass's order */
                double ss = 0.0;
                for (int64_t q = 0; q < Ko; q++) {
                    double la = La[q * st], lb = Lb[q * st];
                    double va = sgn > 0 ? la + D[q] : la - D[q];
                    double vb = sgn > 0 ? lb - D[q] : lb + D[q];
                    ss += va * va + vb * vb;
                }
                ds = ss - ss0;
            }
            sl->x[sl->n] = x;
            sl->m[sl->n] = m;
            sl->c[sl->n] = c;
            sl->ss[sl->n] = ds;
            sl->n++;
            if (dead) { /* the loads are >= 0: that block only grows with the next places */
                break;
            }
        }
        rp_clear(u);
    }
}

/* the largest block of the stripes of dimension d but k - 1 and k, and how many hold it */
static void rp_other(const rp_t *s, int d, int64_t k, rp_obj_t *mo)
{
    double Mo = -RG_INF;
    int64_t co = 0;
    for (int64_t p = 0; p < s->K[d]; p++) {
        if (p == k - 1 || p == k) {
            continue;
        }
        if (s->smax[d][p] > Mo) {
            Mo = s->smax[d][p];
            co = s->scnt[d][p];
        } else if (s->smax[d][p] == Mo) {
            co += s->scnt[d][p];
        }
    }
    *mo = (rp_obj_t){Mo, co, 0.0};
}

/* The best place for cut k of dimension d within RP_WINDOW of where it is, ranked by *o (in:
 * the rank to beat; force: any place but the current one; mo: rp_other's). Returns the place
 * (the current one when none beats *o); *o is then its rank. The places are made for ranks up
 * to Bf (<= o->M): rp_step's best move so far, which a place with a block above it cannot beat
 * (such a place, made or not, never changes which move rp_step takes). */
static int64_t rp_best(rp_run_t *u, int d, int64_t k, int force, const rp_obj_t *mo,
                       rp_obj_t *o, double Bf)
{
    rp_t *s = &u->s;
    double Mo = mo->M;
    int64_t co = mo->c, bx = s->cut[d][k];
    if (force) {
        *o = (rp_obj_t){RG_INF, 0, 0.0};
    }
    rp_slot_t *sl = u->slot[d] + k;
    if (sl->n < 0 || sl->B < Bf) {
        rp_fill(u, d, k, Bf);
    }
    for (int j = 0; j < sl->n; j++) {
        if (sl->m[j] > o->M) {
            continue; /* a block above the rank to beat: this place cannot beat it */
        }
        rp_obj_t r = {Mo > sl->m[j] ? Mo : sl->m[j], 0, sl->ss[j]};
        r.c = (Mo == r.M ? co : 0) + (sl->m[j] == r.M ? sl->c[j] : 0);
        if (rp_less(&r, o)) {
            *o = r;
            bx = sl->x[j];
        }
    }
    return bx;
}

/* move cut k of dimension d to x: the two stripes' loads as rp_best made them */
static void rp_move(rp_run_t *u, int d, int64_t k, int64_t x)
{
    rp_t *s = &u->s;
    const rg_side_t *sd = &s->side[d];
    int64_t x0 = s->cut[d][k], st = d == 0 ? 1 : s->K[1];
    double *La = rp_at(s, d, k - 1, 0), *Lb = rp_at(s, d, k, 0);
    if (x > x0) {
        for (int64_t i = x0; i < x; i++) {
            rp_take(u, sd, s->map[1 - d], i);
        }
    } else {
        for (int64_t i = x0 - 1; i >= x; i--) {
            rp_take(u, sd, s->map[1 - d], i);
        }
    }
    for (int64_t t = 0; t < u->nt; t++) {
        int32_t q = u->T[t];
        double la = La[q * st], lb = Lb[q * st];
        La[q * st] = x > x0 ? la + u->D[q] : la - u->D[q];
        Lb[q * st] = x > x0 ? lb - u->D[q] : lb + u->D[q];
    }
    for (int64_t i = x < x0 ? x : x0; i < (x < x0 ? x0 : x); i++) {
        s->map[d][i] = (int32_t)(x > x0 ? k - 1 : k);
    }
    s->cut[d][k] = x;
    rp_stripe(s, d, k - 1);
    rp_stripe(s, d, k);
    rp_sort(u, d, k - 1);
    rp_sort(u, d, k);
    /* the other dimension changed only in the stripes of T: their loads, and the rows
     * (columns) that moved hold entries only there; the places of a cut next to one change */
    for (int64_t t = 0; t < u->nt; t++) {
        rp_stripe(s, 1 - d, u->T[t]);
        rp_sort(u, 1 - d, u->T[t]);
        u->slot[1 - d][u->T[t]].n = -1;
        u->slot[1 - d][u->T[t] + 1].n = -1;
    }
    rp_clear(u);
    rp_global(s);
    for (int64_t j = k - 1; j <= k + 1; j++) {
        u->slot[d][j].n = -1;
    }
}

/* whether cut k of dimension d separates a stripe holding a block at the max */
static inline int rp_hot(const rp_t *s, int d, int64_t k)
{
    return s->smax[d][k - 1] == s->M || s->smax[d][k] == s->M;
}

/* One step: the best move of a cut next to a block at the max that is not tabu (tabu[d][k] >
 * step; a move to a grid below the best met, *best, is taken anyway), improving or not when
 * force. Returns 0 when no move was made. */
static int rp_step(rp_run_t *u, int64_t *tabu[2], int64_t step, int64_t tenure, int force,
                   const rp_obj_t *best)
{
    rp_t *s = &u->s;
    rp_obj_t bo = {s->M, s->c, 0.0};
    int bd = -1;
    int64_t bk = 0, bx = 0;
    if (force) {
        bo.M = RG_INF;
    }
    for (int d = 0; d < 2; d++) {
        for (int64_t k = 1; k < s->K[d]; k++) {
            if (!rp_hot(s, d, k)) {
                continue;
            }
            /* every place keeps the other stripes' max mo: skip the cut where that cannot
             * beat bo, nor, tabu, the best met (a place at mo.M holds at least mo.c blocks) */
            rp_obj_t mo, o = {s->M, s->c, 0.0};
            rp_other(s, d, k, &mo);
            if (mo.M > bo.M || (mo.M == bo.M && mo.c > bo.c) ||
                (tabu[d][k] > step && (mo.M > best->M || (mo.M == best->M && mo.c >= best->c)))) {
                continue;
            }
            int64_t x = rp_best(u, d, k, force, &mo, &o, bo.M);
            if (x == s->cut[d][k]) {
                continue;
            }
            int ok = tabu[d][k] <= step || (o.M < best->M || (o.M == best->M && o.c < best->c));
            if (ok && rp_less(&o, &bo)) {
                bo = o;
                bd = d;
                bk = k;
                bx = x;
            }
        }
    }
    if (bd < 0) {
        return 0;
    }
    rp_move(u, bd, bk, bx);
    tabu[bd][bk] = step + tenure;
    return 1;
}

/* whether the squares of the block loads sum exactly in any order: integral weights whose
 * absolute sum S has S^2 <= 2^53 (every block load and every sum of squares is an integer of
 * at most S^2) */
static int rp_exact(const wpart_rg_csr_t *A)
{
    const double lim = 94906265.0; /* floor(sqrt(2^53)) */
    int64_t nnz = A->rp[A->n1];
    if (!A->w) {
        return (double)nnz <= lim;
    }
    double S = 0.0;
    for (int64_t e = 0; e < nnz && S <= lim; e++) {
        double w = fabs(A->w[e]);
        if (!(w <= lim) || (double)(int64_t)w != w) { /* large, fractional or nan */
            return 0;
        }
        S += w;
    }
    return S <= lim;
}

wpart_status_t wpart_spatial_rect_polish(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                         int64_t *R, int64_t *C, int64_t max_iter,
                                         const wpart_control_t *control, double *value,
                                         int64_t *iters, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    int64_t *cp = NULL, *ri = NULL;
    double *cw = NULL;
    WPART_CHECK(wpart_i_rg_check_grids(A, P, Q, 1, R, C));
    WPART_CHECK(rg_transpose(A, control, &cp, &ri, &cw));
    wpart_rg_csr_t At = {A->n2, A->n1, cp, ri, cw};
    st = wpart_i_rect_polish(A, &At, P, Q, R, C, max_iter, control, value, iters, timed_out);
cleanup:
    free(cp);
    free(ri);
    free(cw);
    return st;
}

wpart_status_t wpart_i_rect_polish(const wpart_rg_csr_t *A, const wpart_rg_csr_t *At, int64_t P,
                                   int64_t Q, int64_t *R, int64_t *C, int64_t max_iter,
                                   const wpart_control_t *control, double *value,
                                   int64_t *iters, int32_t *timed_out)
{
    return wpart_i_rect_polish_g(NULL, A, At, P, Q, R, C, max_iter, control, value, iters,
                                 timed_out);
}

wpart_status_t wpart_i_rect_polish_g(rg_ctx_t *g, const wpart_rg_csr_t *A,
                                     const wpart_rg_csr_t *At, int64_t P, int64_t Q, int64_t *R,
                                     int64_t *C, int64_t max_iter,
                                     const wpart_control_t *control, double *value,
                                     int64_t *iters, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    double t0 = wpart_i_now();
    int64_t *best[2] = {NULL, NULL}, *orig[2] = {NULL, NULL}, *tabu[2] = {NULL, NULL};
    rp_run_t u;
    rp_t *s = &u.s;
    memset(&u, 0, sizeof u);
    *timed_out = 0;
    *iters = 0;
    int64_t K = P > Q ? P : Q, nmax = A->n1 > A->n2 ? A->n1 : A->n2;
    s->side[0] = (rg_side_t){A->n1, A->n2, A->rp, A->ci, A->w};
    s->side[1] = (rg_side_t){At->n1, At->n2, At->rp, At->ci, At->w};
    s->K[0] = P;
    s->K[1] = Q;
    s->cut[0] = R;
    s->cut[1] = C;
    s->ctl = control;
    s->L = wpart_i_malloc(P, (size_t)Q * sizeof(double));
    u.D = wpart_i_calloc(K, sizeof(double));
    u.T = wpart_i_malloc(K + 1, sizeof(int32_t));
    u.na = wpart_i_malloc(K, 2 * sizeof(double));
    u.nb = u.na ? u.na + K : NULL;
    u.in = wpart_i_calloc(K, sizeof(uint8_t));
    u.exact = rp_exact(A);
    u.slot[0] = wpart_i_malloc(P + 1, sizeof(rp_slot_t));
    u.slot[1] = wpart_i_malloc(Q + 1, sizeof(rp_slot_t));
    u.ord[0] = wpart_i_malloc(P, (size_t)Q * sizeof(int32_t));
    u.ord[1] = wpart_i_malloc(P, (size_t)Q * sizeof(int32_t));
    for (int d = 0; d < 2; d++) {
        s->map[d] = wpart_i_malloc(nmax > 0 ? nmax : 1, sizeof(int32_t));
        s->smax[d] = wpart_i_malloc(K, sizeof(double));
        s->scnt[d] = wpart_i_malloc(K, sizeof(int64_t));
        best[d] = wpart_i_malloc(K + 1, sizeof(int64_t));
        orig[d] = wpart_i_malloc(K + 1, sizeof(int64_t));
        tabu[d] = wpart_i_calloc(K + 1, sizeof(int64_t));
        if (!s->map[d] || !s->smax[d] || !s->scnt[d] || !best[d] || !orig[d] || !tabu[d]) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in the grid polish");
        }
    }
    if (!s->L || !u.D || !u.T || !u.na || !u.in || !u.slot[0] || !u.slot[1] || !u.ord[0] ||
        !u.ord[1]) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in the grid polish");
    }
    for (int64_t j = 0; j <= P; j++) {
        u.slot[0][j].n = -1;
    }
    for (int64_t j = 0; j <= Q; j++) {
        u.slot[1][j].n = -1;
    }
    memcpy(orig[0], R, (size_t)(P + 1) * sizeof(int64_t));
    memcpy(orig[1], C, (size_t)(Q + 1) * sizeof(int64_t));
    memcpy(best[0], R, (size_t)(P + 1) * sizeof(int64_t));
    memcpy(best[1], C, (size_t)(Q + 1) * sizeof(int64_t));
    double v0 = rp_loads_g(g, s);
    WPART_CHECK(rp_stopped(s));
    for (int d = 0; d < 2; d++) {
        for (int64_t p = 0; p < s->K[d]; p++) {
            for (int64_t q = 0; q < s->K[1 - d]; q++) {
                u.ord[d][p * s->K[1 - d] + q] = (int32_t)q;
            }
            rp_sort(&u, d, p);
        }
    }
    rp_obj_t bo = {s->M, s->c, 0.0};
    int64_t moves = 0, steps = 0, cap = 4 * (P + Q);
    int descending = 1;
    /* the descent (at most 4 (P + Q) moves), then max_iter tabu steps (a cut that moved stays
     * where it is for RP_TENURE steps unless moving it beats the best grid met) */
    for (int64_t step = 0;; step++) {
        if (descending && moves >= cap) {
            descending = 0;
        }
        if (!descending && steps++ >= max_iter) {
            break;
        }
        if (!rp_step(&u, tabu, step, RP_TENURE, !descending, &bo)) {
            if (!descending) {
                break;
            }
            descending = 0;
            continue;
        }
        moves++;
        if (s->M < bo.M || (s->M == bo.M && s->c < bo.c)) {
            bo = (rp_obj_t){s->M, s->c, 0.0};
            memcpy(best[0], R, (size_t)(P + 1) * sizeof(int64_t));
            memcpy(best[1], C, (size_t)(Q + 1) * sizeof(int64_t));
        }
        if ((step & 15) == 15) {
            WPART_CHECK(rg_poll_limit(control, t0, (double)steps, (double)(max_iter + 1),
                                      timed_out));
            if (*timed_out) {
                break;
            }
        }
    }
    memcpy(R, best[0], (size_t)(P + 1) * sizeof(int64_t));
    memcpy(C, best[1], (size_t)(Q + 1) * sizeof(int64_t));
    if (u.exact) { /* the moves' sums are exact: the best grid's max as it was met */
        *value = bo.M;
    } else {
        *value = wpart_i_rp_loads(s); /* exact, from scratch */
        WPART_CHECK(rp_stopped(s));
    }
    if (!(*value <= v0)) { /* rounding in the moves' sums: the given grid */
        memcpy(R, orig[0], (size_t)(P + 1) * sizeof(int64_t));
        memcpy(C, orig[1], (size_t)(Q + 1) * sizeof(int64_t));
        *value = v0;
    }
    *iters = moves;
cleanup:
    free(s->L);
    free(u.D);
    free(u.T);
    free(u.na);
    free(u.in);
    free(u.slot[0]);
    free(u.slot[1]);
    free(u.ord[0]);
    free(u.ord[1]);
    for (int d = 0; d < 2; d++) {
        free(s->map[d]);
        free(s->smax[d]);
        free(s->scnt[d]);
        free(best[d]);
        free(orig[d]);
        free(tabu[d]);
    }
    return st;
}
