/* rect_polish.c -- a cheap cut-move local search on a P x Q grid (see rect_polish.h).
 *
 * Nicol's half-sweeps stop at a grid where each dimension's cuts are optimal for the other's:
 * no move of one dimension lowers the max load. Among the many placements with that max,
 * moving a single cut can still lower the number of blocks at it (and even out the two
 * stripes it separates); once no block is left at the max, the max has gone down. The search
 * keeps the block loads, each stripe's largest block and how many blocks hold it, so a move
 * of cut k by x positions costs the entries of the x moved rows (or columns) plus P + Q. */
#include "rect_grid_i.h"

#include "rect_polish.h"

#ifndef RP_TENURE
#define RP_TENURE 3 /* tabu steps of a cut that moved */
#endif
#ifndef RP_WINDOW
#define RP_WINDOW 8 /* a cut moves by at most this many rows (columns) at a time */
#endif

typedef struct {
    rg_side_t side[2]; /* 0: rows major (CSR), 1: columns major (CSC) */
    int64_t K[2];      /* stripes of the rows (P) and of the columns (Q) */
    int64_t *cut[2];
    int32_t *map[2];   /* row (column) -> its stripe */
    double *L;         /* P x Q block loads, row-major */
    double *smax[2];   /* per stripe of dimension d: its largest block ... */
    int64_t *scnt[2];  /* ... and how many of its blocks hold that load */
    double *D, *na, *nb, *ba, *bb; /* scratch, max(P, Q) each */
    double M;          /* the grid's max load and the number of blocks at it */
    int64_t c;
} rp_t;

static inline double *rp_at(rp_t *s, int d, int64_t p, int64_t q)
{
    return d == 0 ? &s->L[p * s->K[1] + q] : &s->L[q * s->K[1] + p];
}

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

/* the block loads of the grid (cut[0], cut[1]) from scratch; returns the max */
static double rp_loads(rp_t *s)
{
    const rg_side_t *r = &s->side[0];
    for (int d = 0; d < 2; d++) {
        rg_map(s->cut[d], s->K[d], s->side[d].n, s->map[d]);
    }
    memset(s->L, 0, (size_t)(s->K[0] * s->K[1]) * sizeof(double));
    for (int64_t i = 0; i < r->n; i++) {
        double *row = s->L + (int64_t)s->map[0][i] * s->K[1];
        for (int64_t e = r->ptr[i]; e < r->ptr[i + 1]; e++) {
            row[s->map[1][r->idx[e]]] += r->w ? r->w[e] : 1.0;
        }
    }
    for (int d = 0; d < 2; d++) {
        for (int64_t p = 0; p < s->K[d]; p++) {
            rp_stripe(s, d, p);
        }
    }
    rp_global(s);
    return s->M;
}

/* a grid's rank: max load, blocks at it, and the change of the sum of squared block loads */
typedef struct {
    double M;
    int64_t c;
    double ss;
} rp_obj_t;

/* o below o0, lexicographically (the squares with a relative tolerance) */
static inline int rp_less(const rp_obj_t *o, const rp_obj_t *o0)
{
    return o->M < o0->M ||
           (o->M == o0->M && (o->c < o0->c || (o->c == o0->c && o->ss < o0->ss - 1e-12 *
                                                                      fabs(o0->ss))));
}

/* The best place for cut k of dimension d within RP_WINDOW of where it is (between its
 * neighbours), ranked by *o (in: the rank to beat; force: any place but the current one). The
 * new loads of stripes k - 1 and k go to ba, bb. Returns the place (the current one when none
 * beats *o); *o is then its rank. */
static int64_t rp_best(rp_t *s, int d, int64_t k, int force, rp_obj_t *o)
{
    const rg_side_t *sd = &s->side[d];
    const int32_t *om = s->map[1 - d];
    int64_t Ko = s->K[1 - d], a = s->cut[d][k - 1], x0 = s->cut[d][k], b = s->cut[d][k + 1];
    double Mo = -RG_INF, ss0 = 0.0;
    int64_t co = 0, bx = x0;
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
    for (int64_t q = 0; q < Ko; q++) {
        double la = *rp_at(s, d, k - 1, q), lb = *rp_at(s, d, k, q);
        ss0 += la * la + lb * lb;
    }
    if (force) {
        *o = (rp_obj_t){RG_INF, 0, 0.0};
    }
    for (int sgn = 1; sgn >= -1; sgn -= 2) {
        memset(s->D, 0, (size_t)Ko * sizeof(double));
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
            for (int64_t e = sd->ptr[i]; e < sd->ptr[i + 1]; e++) {
                s->D[om[sd->idx[e]]] += sd->w ? sd->w[e] : 1.0;
            }
            double ma = -RG_INF, mb = -RG_INF, ss = 0.0;
            int over = 0; /* a block above the rank to beat: this place cannot beat it */
            for (int64_t q = 0; q < Ko; q++) {
                double la = *rp_at(s, d, k - 1, q), lb = *rp_at(s, d, k, q);
                double va = sgn > 0 ? la + s->D[q] : la - s->D[q];
                double vb = sgn > 0 ? lb - s->D[q] : lb + s->D[q];
                if (va > o->M || vb > o->M) {
                    over = 1;
                    break;
                }
                s->na[q] = va;
                s->nb[q] = vb;
                ma = va > ma ? va : ma;
                mb = vb > mb ? vb : mb;
                ss += va * va + vb * vb;
            }
            if (over) {
                continue;
            }
            rp_obj_t r = {Mo > ma ? Mo : ma, 0, ss - ss0};
            r.M = r.M > mb ? r.M : mb;
            r.c = Mo == r.M ? co : 0;
            for (int64_t q = 0; q < Ko; q++) {
                r.c += (s->na[q] == r.M) + (s->nb[q] == r.M);
            }
            if (rp_less(&r, o)) {
                *o = r;
                bx = x;
                memcpy(s->ba, s->na, (size_t)Ko * sizeof(double));
                memcpy(s->bb, s->nb, (size_t)Ko * sizeof(double));
            }
        }
    }
    return bx;
}

/* move cut k of dimension d to x (stripe loads in ba, bb) */
static void rp_move(rp_t *s, int d, int64_t k, int64_t x)
{
    int64_t x0 = s->cut[d][k];
    for (int64_t i = x < x0 ? x : x0; i < (x < x0 ? x0 : x); i++) {
        s->map[d][i] = (int32_t)(x > x0 ? k - 1 : k);
    }
    s->cut[d][k] = x;
    for (int64_t q = 0; q < s->K[1 - d]; q++) {
        *rp_at(s, d, k - 1, q) = s->ba[q];
        *rp_at(s, d, k, q) = s->bb[q];
    }
    rp_stripe(s, d, k - 1);
    rp_stripe(s, d, k);
    for (int64_t q = 0; q < s->K[1 - d]; q++) {
        rp_stripe(s, 1 - d, q);
    }
    rp_global(s);
}

/* whether cut k of dimension d separates a stripe holding a block at the max */
static inline int rp_hot(const rp_t *s, int d, int64_t k)
{
    return s->smax[d][k - 1] == s->M || s->smax[d][k] == s->M;
}

/* One step: the best move of a cut next to a block at the max that is not tabu (tabu[d][k] >
 * step; a move to a grid below the best met, *best, is taken anyway), improving or not when
 * force. Returns 0 when no move was made. */
static int rp_step(rp_t *s, int64_t *tabu[2], int64_t step, int64_t tenure, int force,
                   const rp_obj_t *best)
{
    rp_obj_t bo = {s->M, s->c, 0.0};
    int bd = -1;
    int64_t bk = 0;
    if (force) {
        bo.M = RG_INF;
    }
    for (int d = 0; d < 2; d++) {
        for (int64_t k = 1; k < s->K[d]; k++) {
            if (!rp_hot(s, d, k)) {
                continue;
            }
            rp_obj_t o = {s->M, s->c, 0.0};
            int64_t x = rp_best(s, d, k, force, &o);
            if (x == s->cut[d][k]) {
                continue;
            }
            int ok = tabu[d][k] <= step || (o.M < best->M || (o.M == best->M && o.c < best->c));
            if (ok && rp_less(&o, &bo)) {
                bo = o;
                bd = d;
                bk = k;
            }
        }
    }
    if (bd < 0) {
        return 0;
    }
    rp_obj_t o = {s->M, s->c, 0.0};
    rp_move(s, bd, bk, rp_best(s, bd, bk, force, &o));
    tabu[bd][bk] = step + tenure;
    return 1;
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
    wpart_status_t st = WPART_OK;
    double t0 = wpart_i_now();
    int64_t *best[2] = {NULL, NULL}, *orig[2] = {NULL, NULL}, *tabu[2] = {NULL, NULL};
    rp_t s;
    memset(&s, 0, sizeof s);
    *timed_out = 0;
    *iters = 0;
    int64_t K = P > Q ? P : Q, nmax = A->n1 > A->n2 ? A->n1 : A->n2;
    s.side[0] = (rg_side_t){A->n1, A->n2, A->rp, A->ci, A->w};
    s.side[1] = (rg_side_t){At->n1, At->n2, At->rp, At->ci, At->w};
    s.K[0] = P;
    s.K[1] = Q;
    s.cut[0] = R;
    s.cut[1] = C;
    s.L = wpart_i_malloc(P, (size_t)Q * sizeof(double));
    s.D = wpart_i_malloc(K, sizeof(double));
    s.na = wpart_i_malloc(K, sizeof(double));
    s.nb = wpart_i_malloc(K, sizeof(double));
    s.ba = wpart_i_malloc(K, sizeof(double));
    s.bb = wpart_i_malloc(K, sizeof(double));
    for (int d = 0; d < 2; d++) {
        s.map[d] = wpart_i_malloc(nmax > 0 ? nmax : 1, sizeof(int32_t));
        s.smax[d] = wpart_i_malloc(K, sizeof(double));
        s.scnt[d] = wpart_i_malloc(K, sizeof(int64_t));
        best[d] = wpart_i_malloc(K + 1, sizeof(int64_t));
        orig[d] = wpart_i_malloc(K + 1, sizeof(int64_t));
        tabu[d] = wpart_i_calloc(K + 1, sizeof(int64_t));
        if (!s.map[d] || !s.smax[d] || !s.scnt[d] || !best[d] || !orig[d] || !tabu[d]) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in the grid polish");
        }
    }
    if (!s.L || !s.D || !s.na || !s.nb || !s.ba || !s.bb) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in the grid polish");
    }
    memcpy(orig[0], R, (size_t)(P + 1) * sizeof(int64_t));
    memcpy(orig[1], C, (size_t)(Q + 1) * sizeof(int64_t));
    memcpy(best[0], R, (size_t)(P + 1) * sizeof(int64_t));
    memcpy(best[1], C, (size_t)(Q + 1) * sizeof(int64_t));
    double v0 = rp_loads(&s);
    rp_obj_t bo = {s.M, s.c, 0.0};
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
        if (!rp_step(&s, tabu, step, RP_TENURE, !descending, &bo)) {
            if (!descending) {
                break;
            }
            descending = 0;
            continue;
        }
        moves++;
        if (s.M < bo.M || (s.M == bo.M && s.c < bo.c)) {
            bo = (rp_obj_t){s.M, s.c, 0.0};
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
    *value = rp_loads(&s); /* exact, from scratch */
    if (!(*value <= v0)) { /* rounding in the moves' sums: the given grid */
        memcpy(R, orig[0], (size_t)(P + 1) * sizeof(int64_t));
        memcpy(C, orig[1], (size_t)(Q + 1) * sizeof(int64_t));
        *value = v0;
    }
    *iters = moves;
cleanup:
    free(s.L);
    free(s.D);
    free(s.na);
    free(s.nb);
    free(s.ba);
    free(s.bb);
    for (int d = 0; d < 2; d++) {
        free(s.map[d]);
        free(s.smax[d]);
        free(s.scnt[d]);
        free(best[d]);
        free(orig[d]);
        free(tabu[d]);
    }
    return st;
}

/* ------------------------------------------------- the SGO kick (SARMA's sgo_2dr_nic idea) ---- */

/* dimension d's cuts go to nc: each line whose stripe changes moves its entries between the
 * blocks (O(moved entries)); returns the entries moved */
static int64_t rk_shift(rp_t *s, int d, const int64_t *nc)
{
    const rg_side_t *sd = &s->side[d];
    const int32_t *om = s->map[1 - d];
    int64_t K = s->K[d], moved = 0;
    for (int64_t k = 1; k < K; k++) {
        int64_t a = s->cut[d][k] < nc[k] ? s->cut[d][k] : nc[k];
        int64_t b = s->cut[d][k] < nc[k] ? nc[k] : s->cut[d][k];
        for (int64_t i = a; i < b; i++) {
            int64_t p = k; /* the stripe of line i under the new cuts */
            while (p > 0 && i < nc[p]) {
                p--;
            }
            while (p + 1 < K && i >= nc[p + 1]) {
                p++;
            }
            int64_t p0 = s->map[d][i];
            if (p == p0) {
                continue;
            }
            for (int64_t e = sd->ptr[i]; e < sd->ptr[i + 1]; e++) {
                double w = sd->w ? sd->w[e] : 1.0;
                *rp_at(s, d, p0, om[sd->idx[e]]) -= w;
                *rp_at(s, d, p, om[sd->idx[e]]) += w;
            }
            moved += sd->ptr[i + 1] - sd->ptr[i];
            s->map[d][i] = (int32_t)p;
        }
    }
    memcpy(s->cut[d], nc, (size_t)(K + 1) * sizeof(int64_t));
    return moved;
}

#ifndef RK_WORK
#define RK_WORK 6 /* the SGO stops once it moved RK_WORK (nnz + P Q) entries */
#endif
#ifndef RK_RATIO
#define RK_RATIO 1.16 /* no half-sweeps from an SGO grid above RK_RATIO x the given grid's max */
#endif
#ifndef RK_SLACK
#define RK_SLACK 3.0 /* the SGO stops after m iterations above min(RK_FAR, RK_RATIO (1 + */
#endif               /* RK_SLACK / m)) x the given grid's max */
#ifndef RK_FAR
#define RK_FAR 1.7
#endif
#ifndef RK_BIG
#define RK_BIG 1024 /* from RK_BIG blocks on, SARMA's nic from every SGO grid (see below) */
#endif
#ifndef RK_NIC
#define RK_NIC 1.13 /* SARMA's nic from the SGO grid too when that grid is <= RK_NIC x the given
                     * grid's max (1.16 gave the same gains on the fresh reference set at more
                     * half-sweeps: grid3d_20 8 x 32 0.47 x the C nic's speed instead of 1.1) */
#endif

/* each stripe's largest block of the P x Q loads L (row-major, >= 0): the rows' to rmax (P),
 * the columns' to cmax (Q); returns the largest. Four row chains, so that the maxima do not
 * wait on each other (the SGO's hot loop: 2.2x faster at 64 x 64 than one chain through
 * rmax[p]) */
static double rk_maxima(const double *restrict L, int64_t P, int64_t Q, double *restrict rmax,
                        double *restrict cmax)
{
    double mx = 0.0;
    for (int64_t q = 0; q < Q; q++) {
        cmax[q] = 0.0;
    }
    for (int64_t p = 0; p < P; p++) {
        const double *restrict row = L + p * Q;
        double m4[4] = {0.0, 0.0, 0.0, 0.0};
        int64_t q = 0;
        for (; q + 4 <= Q; q += 4) {
            for (int j = 0; j < 4; j++) {
                double v = row[q + j];
                m4[j] = v > m4[j] ? v : m4[j];
                cmax[q + j] = v > cmax[q + j] ? v : cmax[q + j];
            }
        }
        for (; q < Q; q++) {
            double v = row[q];
            m4[0] = v > m4[0] ? v : m4[0];
            cmax[q] = v > cmax[q] ? v : cmax[q];
        }
        double a = m4[0] > m4[1] ? m4[0] : m4[1], b = m4[2] > m4[3] ? m4[2] : m4[3];
        rmax[p] = a > b ? a : b;
        mx = rmax[p] > mx ? rmax[p] : mx;
    }
    return mx;
}

/* SARMA's subgradient method (rect_grid.c's wpart_spatial_rect_sgo, the same steps and stop
 * rules) from the uniform grid, the block loads kept by moving the lines that change stripe;
 * the lowest grid met goes to R, C, its max (as the moves summed it) to *bestv (cut arrays of
 * s on return: the last grid). At most max_iter iterations and RK_WORK (nnz + P Q) entries
 * moved (big: max_iter only); stops once the lowest grid is far above inc (the race; not
 * when big). pi, rs: P + Q each; nc: max(P, Q) + 1. Returns the iterations, -1 when stopped
 * (*st set). */
static int64_t rk_sgo(rp_t *s, const double *const pref[2], int64_t max_iter, double inc,
                      int big, double *pi, double *rs, int64_t *nc, int64_t *R, int64_t *C,
                      double *bestv, double t0, const wpart_control_t *control,
                      int32_t *timed_out, wpart_status_t *st)
{
    double *pis[2] = {pi, pi + s->K[0]}, *r[2] = {rs, rs + s->K[0]};
    int64_t *out[2] = {R, C}, work = 0;
    for (int d = 0; d < 2; d++) {
        for (int64_t k = 0; k <= s->K[d]; k++) {
            s->cut[d][k] = (int64_t)(((__int128)k * s->side[d].n) / s->K[d]);
        }
        for (int64_t k = 1; k < s->K[d]; k++) {
            pis[d][k - 1] = pref[d][s->cut[d][k]];
        }
    }
    rp_loads(s);
    double best = RG_INF, pbest = RG_INF;
    int64_t pbest_m = 1, m = 1, moved = 0;
    int64_t cap = RK_WORK * (s->side[0].ptr[s->side[0].n] + s->K[0] * s->K[1]);
    cap = big ? INT64_MAX : cap;
    for (; m <= max_iter && moved <= cap; m++) {
        for (int d = 0; d < 2; d++) {
            wpart_i_sgo_cuts(pref[d], s->side[d].n, pis[d], s->K[d] - 1, s->cut[d], nc);
            int64_t e = rk_shift(s, d, nc) + s->K[0] * s->K[1];
            moved += e;
            if (rg_cancel(control, &work, e)) {
                *st = wpart_i_error(WPART_ECANCELLED, "stopped on request");
                return -1;
            }
        }
        double mx = rk_maxima(s->L, s->K[0], s->K[1], r[0], r[1]);
        if (mx < best) {
            best = mx;
            for (int d = 0; d < 2; d++) {
                memcpy(out[d], s->cut[d], (size_t)(s->K[d] + 1) * sizeof(int64_t));
            }
        }
        if (wpart_i_sgo_step(pis, r, s->K, m, mx, best, &pbest, &pbest_m)) {
            break;
        }
        /* a race: far above the given grid for the iterations it had (it cannot come near) */
        double lim = RK_RATIO * (1.0 + RK_SLACK / (double)m);
        if (!big && best > inc * (lim < RK_FAR ? lim : RK_FAR)) {
            break;
        }
        if ((m & 15) == 0) {
            *st = rg_poll_limit(control, t0, 0.0, 1.0, timed_out);
            if (*st != WPART_OK) {
                return -1;
            }
            if (*timed_out) {
                break;
            }
        }
    }
    *bestv = best;
    return m;
}

wpart_status_t wpart_i_rect_kick(rg_ctx_t *g, double t0, int64_t sgo_iters, int64_t max_half,
                                 double lower, int64_t *R, int64_t *C, double *value,
                                 int64_t *iters, int64_t *halves, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    const wpart_rg_csr_t *A = g->A;
    const wpart_control_t *control = g->ctl;
    int64_t P = g->P[0], Q = g->P[1], K = P > Q ? P : Q, nmax = A->n1 > A->n2 ? A->n1 : A->n2;
    int64_t *S = NULL, *R0 = NULL, *C0 = NULL, *nc = NULL, *R2 = NULL, *C2 = NULL;
    int64_t hv[3] = {0, 0, 0};
    double *pi = NULL, *rs = NULL, val[3] = {RG_INF, RG_INF, RG_INF};
    int32_t first[2] = {2, 3}, state[3];
    rp_t s;
    memset(&s, 0, sizeof s);
    *timed_out = 0;
    *iters = 0;
    *halves = 0;
    WPART_CHECK(wpart_i_rg_csc(g));
    s.side[0] = g->side[0];
    s.side[1] = g->side[1];
    s.K[0] = P;
    s.K[1] = Q;
    s.L = wpart_i_malloc(P, (size_t)Q * sizeof(double));
    S = wpart_i_malloc(P + Q + 2, 2 * sizeof(int64_t)); /* s's cuts, then the SGO grid */
    R0 = wpart_i_malloc(2, (size_t)(P + 1) * sizeof(int64_t));
    C0 = wpart_i_malloc(2, (size_t)(Q + 1) * sizeof(int64_t));
    nc = wpart_i_malloc(K + 1, sizeof(int64_t));
    R2 = wpart_i_malloc(P + 1, sizeof(int64_t));
    C2 = wpart_i_malloc(Q + 1, sizeof(int64_t));
    pi = wpart_i_malloc(P + Q, sizeof(double));
    rs = wpart_i_malloc(P + Q, sizeof(double));
    for (int d = 0; d < 2; d++) {
        s.map[d] = wpart_i_malloc(nmax > 0 ? nmax : 1, sizeof(int32_t));
        s.smax[d] = wpart_i_malloc(K, sizeof(double));
        s.scnt[d] = wpart_i_malloc(K, sizeof(int64_t));
        if (!s.map[d] || !s.smax[d] || !s.scnt[d]) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in the grid kick");
        }
    }
    if (!s.L || !S || !R0 || !C0 || !nc || !R2 || !C2 || !pi || !rs) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in the grid kick");
    }
    s.cut[0] = S;
    s.cut[1] = S + P + 1;
    int64_t *Rs = S + P + Q + 2, *Cs = Rs + P + 1;
    if (!(*value >= 0.0)) { /* the given grid's max, exact (from scratch) */
        memcpy(s.cut[0], R, (size_t)(P + 1) * sizeof(int64_t));
        memcpy(s.cut[1], C, (size_t)(Q + 1) * sizeof(int64_t));
        *value = rp_loads(&s);
    }
    const double *pref[2] = {g->tot[0], g->tot[1]};
    double sv;
    /* big: the SGO's sgo_iters iterations in full, then SARMA's nic from its grid (racing)
     * whatever its max: an SGO grid far above the given one can still end below it after nic
     * (bench_spatial_fresh.py's power-law 32 x 32 / 64 x 64), which the race and the RK_RATIO
     * gate threw away; the balanced half-sweeps are left out there (their cost) */
    int big = P * Q >= RK_BIG;
    int64_t m = rk_sgo(&s, pref, sgo_iters, *value, big, pi, rs, nc, Rs, Cs, &sv, t0, control,
                       timed_out, &st);
    if (m < 0) {
        goto cleanup;
    }
    *iters = m;
    int uni = 1; /* the SGO grid is the uniform one (a start the default ran): nothing new */
    for (int64_t k = 0; k <= P; k++) {
        uni &= Rs[k] == (int64_t)(((__int128)k * A->n1) / P);
    }
    for (int64_t k = 0; k <= Q; k++) {
        uni &= Cs[k] == (int64_t)(((__int128)k * A->n2) / Q);
    }
    if (*timed_out || uni || !(big || sv <= RK_RATIO * *value)) {
        goto cleanup;
    }
    /* the default's half-sweeps from the SGO grid (either dimension first, balanced), racing
     * the given grid (the incumbent), the best one continued when it went below */
    for (int k = 0; k < 2; k++) {
        memcpy(R0 + k * (P + 1), Rs, (size_t)(P + 1) * sizeof(int64_t));
        memcpy(C0 + k * (Q + 1), Cs, (size_t)(Q + 1) * sizeof(int64_t));
    }
    int64_t h1 = rg_sarma_patience(P, Q);
    wpart_rg_opts_t opt = {2, max_half < h1 ? max_half : h1, 0, 1, 0.25, lower, 10, max_half,
                           control, *value};
    double v = RG_INF;
    if (!big) {
        WPART_CHECK(wpart_i_rg_run(g, t0, 2, R0, C0, first, &opt, Rs, Cs, val, hv, state, NULL,
                                   timed_out));
        for (int k = 0; k < 3; k++) {
            v = val[k] < v ? val[k] : v;
            *halves += hv[k];
        }
    }
    /* SARMA's sgo_2dr_nic step from the same grid (plain half-sweeps, patience max(10, P + Q),
     * no race) when the SGO grid came near the given one: it can end lower than the balanced
     * race (the fresh reference set: lower_1800_v count 64 x 64 64 -> 63, g2d5_19x11 8 x 32
     * 26 -> 25, both the best of SARMA's nine); only a strictly lower grid is taken (big:
     * always, racing with slack 0.5, no polish continuation; its grid, the SGO grid when nic
     * stayed above, then gets the cut moves: 5 of bench_spatial_fresh's 98 32 x 32 / 64 x 64
     * grids end lower for it, e.g. g3d7_14 stored 32 x 32 232 -> 229) */
    int took = 0; /* big: nic's grid taken whatever its max */
    if (!*timed_out && (big || sv <= RK_NIC * *value)) {
        int32_t plain[2] = {4, 5};
        wpart_rg_opts_t o2 = opt;
        o2.slack = big ? 0.5 : 0.0;
        o2.polish_patience = big ? 0 : o2.polish_patience;
        o2.incumbent = v < *value ? v : *value;
        WPART_CHECK(wpart_i_rg_run(g, t0, 2, R0, C0, plain, &o2, R2, C2, val, hv, state, NULL,
                                   timed_out));
        double v2 = RG_INF;
        for (int k = 0; k < 3; k++) {
            v2 = val[k] < v2 ? val[k] : v2;
            *halves += hv[k];
        }
        if (big || v2 < o2.incumbent) {
            took = big;
            memcpy(Rs, R2, (size_t)(P + 1) * sizeof(int64_t));
            memcpy(Cs, C2, (size_t)(Q + 1) * sizeof(int64_t));
            v = v2;
        }
    }
    if (!(took || v < *value)) {
        goto cleanup;
    }
    /* a lower grid (big: any): its polish, then both maxes exact (from scratch) before it replaces R, C */
    int64_t moves;
    int32_t pto = 0;
    wpart_rg_csr_t At = {A->n2, A->n1, g->side[1].ptr, g->side[1].idx, g->side[1].w};
    if (!*timed_out) {
        WPART_CHECK(wpart_i_rect_polish(A, &At, P, Q, Rs, Cs, 20, control, &v, &moves, &pto));
        *timed_out = pto;
    } else {
        memcpy(s.cut[0], Rs, (size_t)(P + 1) * sizeof(int64_t));
        memcpy(s.cut[1], Cs, (size_t)(Q + 1) * sizeof(int64_t));
        v = rp_loads(&s);
    }
    memcpy(s.cut[0], R, (size_t)(P + 1) * sizeof(int64_t));
    memcpy(s.cut[1], C, (size_t)(Q + 1) * sizeof(int64_t));
    double v0 = rp_loads(&s);
    *value = v0;
    if (v < v0) {
        memcpy(R, Rs, (size_t)(P + 1) * sizeof(int64_t));
        memcpy(C, Cs, (size_t)(Q + 1) * sizeof(int64_t));
        *value = v;
    }
cleanup:
    free(s.L);
    free(S);
    free(R0);
    free(C0);
    free(nc);
    free(R2);
    free(C2);
    free(pi);
    free(rs);
    for (int d = 0; d < 2; d++) {
        free(s.map[d]);
        free(s.smax[d]);
        free(s.scnt[d]);
    }
    return st;
}

wpart_status_t wpart_spatial_rect_kick(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                       int64_t *R, int64_t *C, int64_t max_iter,
                                       const wpart_control_t *control, double *value,
                                       int64_t *iters, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    double t0 = wpart_i_now();
    rg_ctx_t g;
    int64_t halves;
    memset(&g, 0, sizeof g);
    WPART_CHECK(wpart_i_rg_check_grids(A, P, Q, 1, R, C));
    WPART_CHECK(wpart_i_rg_open(&g, A, P, Q, control));
    *value = -1.0; /* the kick computes the given grid's max */
    WPART_CHECK(wpart_i_rect_kick(&g, t0, max_iter, 200, 0.0, R, C, value, iters, &halves,
                                  timed_out));
cleanup:
    wpart_i_rg_close(&g);
    return st;
}
