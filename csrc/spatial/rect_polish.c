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

double wpart_i_rp_loads(rp_t *s)
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
    double v0 = wpart_i_rp_loads(&s);
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
    *value = wpart_i_rp_loads(&s); /* exact, from scratch */
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
