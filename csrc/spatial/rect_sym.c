/* rect_sym.c -- symmetric grids on the nonzeros (one cut vector for rows and columns): PAL and
 * OPAL (a bisection on the bottleneck with a greedy probe along the diagonal), RAC (refine a
 * cut) and cut moves. After Yasar, Balin, An, Sancak and Catalyurek, "On Symmetric Rectilinear
 * Partitioning", ACM JEA 2022. See rect_grid.h. */
#include "rect_grid_i.h"

#include "rect_polish.h"

typedef struct {
    const wpart_rg_csr_t *A;
    int64_t N, P;
    int64_t *lp, *lo; /* entries by L-shape k = max(i, j): the other index */
    char *up;         /* 1: the entry lies in column k above the diagonal (i < j) */
    double *lw;
    double *blk;     /* P x P block loads */
    int32_t *map;    /* index -> interval (N) */
    double *L1, *L2; /* probe: blocks (t, cur) and (cur, t) */
    int integral;
    const wpart_control_t *ctl; /* Ctrl-C inside the passes over the nonzeros (rg_cancel) */
    int64_t work;
    int stop; /* 1: should_stop fired inside a pass; the caller returns WPART_ECANCELLED */
} rg_sym_t;

/* `done` entries more of a pass; 1 when Ctrl-C asks to stop (y->stop set) */
static int rg_sym_tick(rg_sym_t *y, int64_t done)
{
    if (rg_cancel(y->ctl, &y->work, done)) {
        y->stop = 1;
    }
    return y->stop;
}

static wpart_status_t rg_sym_init(rg_sym_t *y, const wpart_rg_csr_t *A, int64_t P,
                                  const wpart_control_t *ctl)
{
    wpart_status_t st = WPART_OK;
    y->ctl = ctl;
    int64_t nnz = A->rp[A->n1];
    y->A = A;
    y->P = P;
    y->N = A->n1 > A->n2 ? A->n1 : A->n2;
    y->lp = wpart_i_calloc(y->N + 1, sizeof(int64_t));
    y->lo = wpart_i_malloc(nnz > 0 ? nnz : 1, sizeof(int64_t));
    y->up = wpart_i_malloc(nnz > 0 ? nnz : 1, 1);
    y->lw = wpart_i_malloc(nnz > 0 ? nnz : 1, sizeof(double));
    y->blk = wpart_i_calloc(P * P, sizeof(double));
    y->map = wpart_i_malloc(y->N, sizeof(int32_t));
    y->L1 = wpart_i_calloc(P + 1, sizeof(double));
    y->L2 = wpart_i_calloc(P + 1, sizeof(double));
    if (!y->lp || !y->lo || !y->up || !y->lw || !y->blk || !y->map || !y->L1 || !y->L2) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in a symmetric grid");
    }
    for (int64_t i = 0; i < A->n1; i++) {
        if (rg_sym_tick(y, A->rp[i + 1] - A->rp[i])) {
            WPART_FAIL(WPART_ECANCELLED, "stopped on request");
        }
        for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
            int64_t j = A->ci[e];
            y->lp[(i > j ? i : j) + 1]++;
        }
    }
    for (int64_t k = 0; k < y->N; k++) {
        y->lp[k + 1] += y->lp[k];
    }
    {
        int64_t *pos = wpart_i_malloc(y->N + 1, sizeof(int64_t));
        if (!pos) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in a symmetric grid");
        }
        memcpy(pos, y->lp, (size_t)(y->N + 1) * sizeof(int64_t));
        for (int64_t i = 0; i < A->n1; i++) {
            if (rg_sym_tick(y, A->rp[i + 1] - A->rp[i])) {
                free(pos);
                WPART_FAIL(WPART_ECANCELLED, "stopped on request");
            }
            for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
                int64_t j = A->ci[e], k = i > j ? i : j, at = pos[k]++;
                y->up[at] = (char)(i < j);
                y->lo[at] = i < j ? i : j;
                y->lw[at] = rg_w(A, e);
            }
        }
        free(pos);
    }
    y->integral = rg_integral(A->w, nnz);
cleanup:
    return st;
}

static void rg_sym_free(rg_sym_t *y)
{
    free(y->lp);
    free(y->lo);
    free(y->up);
    free(y->lw);
    free(y->blk);
    free(y->map);
    free(y->L1);
    free(y->L2);
}

/* the max load of the symmetric grid `cuts` (blk filled, map set); 0 with y->stop on Ctrl-C */
static double rg_sym_value(rg_sym_t *y, const int64_t *cuts)
{
    const wpart_rg_csr_t *A = y->A;
    int64_t P = y->P;
    rg_map(cuts, P, y->N, y->map);
    memset(y->blk, 0, (size_t)(P * P) * sizeof(double));
    for (int64_t i = 0; i < A->n1; i++) {
        if (rg_sym_tick(y, A->rp[i + 1] - A->rp[i])) {
            return 0.0;
        }
        double *row = y->blk + (int64_t)y->map[i] * P;
        for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
            row[y->map[A->ci[e]]] += rg_w(A, e);
        }
    }
    double mx = 0.0;
    for (int64_t k = 0; k < P * P; k++) {
        mx = y->blk[k] > mx ? y->blk[k] : mx;
    }
    return mx;
}

/* greedy L-shape probe (ub: each cut's upper bound, or NULL): 1 when P parts reach N */
static int rg_sym_probe(rg_sym_t *y, double L, const int64_t *ub, int64_t *cuts)
{
    int64_t N = y->N, P = y->P, k = 0, a = 0, p = 0;
    cuts[0] = 0;
    while (k < N) {
        if (p == P) {
            return 0;
        }
        memset(y->L1, 0, (size_t)(p + 1) * sizeof(double));
        memset(y->L2, 0, (size_t)(p + 1) * sizeof(double));
        int64_t lim = ub ? ub[p + 1] : N, start = k;
        while (k < lim) {
            if (rg_sym_tick(y, y->lp[k + 1] - y->lp[k])) {
                return 0;
            }
            int over = 0;
            for (int64_t e = y->lp[k]; e < y->lp[k + 1]; e++) {
                int64_t o = y->lo[e];
                int64_t t = o < a ? y->map[o] : p;
                double *slot = (y->up[e] || t == p) ? &y->L1[t] : &y->L2[t];
                *slot += y->lw[e];
                if (*slot > L) {
                    over = 1;
                    break;
                }
            }
            if (over) {
                break;
            }
            k++;
        }
        if (k == start) {
            return 0;
        }
        for (int64_t x = a; x < k; x++) {
            y->map[x] = (int32_t)p;
        }
        cuts[++p] = k;
        a = k;
    }
    for (int64_t q = p + 1; q <= P; q++) {
        cuts[q] = N;
    }
    return 1;
}

static wpart_status_t rg_sym_pal(rg_sym_t *y, int bounded, const wpart_control_t *ctl,
                                 double t0, int64_t *cuts, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    int64_t P = y->P;
    int64_t *ub = wpart_i_malloc(P + 1, sizeof(int64_t));
    int64_t *tmp = wpart_i_malloc(P + 1, sizeof(int64_t));
    if (!ub || !tmp) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in a symmetric grid");
    }
    double total = 0.0, amax = 0.0;
    for (int64_t e = 0; e < y->lp[y->N]; e++) {
        if (WPART_UNLIKELY((e & (RG_POLL_WORK - 1)) == 0) && rg_sym_tick(y, RG_POLL_WORK)) {
            WPART_FAIL(WPART_ECANCELLED, "stopped on request");
        }
        total += y->lw[e];
        amax = y->lw[e] > amax ? y->lw[e] : amax;
    }
    for (int64_t q = 0; q <= P; q++) {
        ub[q] = y->N;
    }
    ub[0] = 0;
    double lo = total / (double)(P * P), hi = total;
    lo = lo > amax ? lo : amax;
    lo = y->integral ? ceil(lo) : lo;
    rg_sym_probe(y, hi, NULL, cuts); /* one interval holds everything */
    if (y->stop) {
        WPART_FAIL(WPART_ECANCELLED, "stopped on request");
    }
    memcpy(ub, cuts, (size_t)(P + 1) * sizeof(int64_t));
    for (int it = 0; it < 200 && lo < hi; it++) {
        double mid = y->integral ? lo + floor((hi - lo) / 2) : lo + (hi - lo) / 2;
        if (!y->integral && hi - lo <= 1e-12 * hi) {
            break;
        }
        int fits = rg_sym_probe(y, mid, bounded ? ub : NULL, tmp);
        if (y->stop) {
            WPART_FAIL(WPART_ECANCELLED, "stopped on request");
        }
        if (fits) {
            hi = mid;
            memcpy(cuts, tmp, (size_t)(P + 1) * sizeof(int64_t));
            if (bounded) {
                memcpy(ub, tmp, (size_t)(P + 1) * sizeof(int64_t));
            }
        } else {
            lo = y->integral ? mid + 1 : mid;
        }
        WPART_CHECK(rg_poll_limit(ctl, t0, (double)it, 64.0, timed_out));
        if (*timed_out) {
            break;
        }
    }
cleanup:
    free(ub);
    free(tmp);
    return st;
}

/* RAC's weights: per index i of dimension d, the largest load of its line within one interval */
static void rg_rac_weights(rg_sym_t *y, const rg_side_t *s, const int64_t *cuts, double *w)
{
    int64_t P = y->P;
    rg_map(cuts, P, y->N, y->map);
    memset(w, 0, (size_t)y->N * sizeof(double));
    for (int64_t i = 0; i < s->n; i++) {
        if (rg_sym_tick(y, s->ptr[i + 1] - s->ptr[i])) {
            return;
        }
        double *acc = y->L1; /* P + 1 slots */
        memset(acc, 0, (size_t)P * sizeof(double));
        double mx = 0.0;
        for (int64_t e = s->ptr[i]; e < s->ptr[i + 1]; e++) {
            double *a = &acc[y->map[s->idx[e]]];
            *a += s->w ? s->w[e] : 1.0;
            mx = *a > mx ? *a : mx;
        }
        w[i] = mx;
    }
}

/* move index x (a border of intervals `from` and `to`) between them; blk and map updated */
static void rg_sym_move(rg_sym_t *y, const rg_side_t *cs, int64_t x, int32_t from, int32_t to)
{
    const wpart_rg_csr_t *A = y->A;
    int64_t P = y->P;
    rg_sym_tick(y, (x < A->n1 ? A->rp[x + 1] - A->rp[x] : 0) +
                       (x < A->n2 ? cs->ptr[x + 1] - cs->ptr[x] : 0) + 1);
    if (x < A->n1) {
        for (int64_t e = A->rp[x]; e < A->rp[x + 1]; e++) {
            int64_t c = A->ci[e];
            int32_t t = c == x ? from : y->map[c], t2 = c == x ? to : y->map[c];
            double w = rg_w(A, e);
            y->blk[from * P + t] -= w;
            y->blk[to * P + t2] += w;
        }
    }
    if (x < A->n2) {
        for (int64_t e = cs->ptr[x]; e < cs->ptr[x + 1]; e++) {
            int64_t r = cs->idx[e];
            if (r == x) {
                continue;
            }
            double w = cs->w ? cs->w[e] : 1.0;
            y->blk[y->map[r] * P + from] -= w;
            y->blk[y->map[r] * P + to] += w;
        }
    }
    y->map[x] = to;
}

static double rg_sym_local(const rg_sym_t *y, int64_t k)
{
    int64_t P = y->P;
    double mx = 0.0;
    for (int64_t t = 0; t < P; t++) {
        double v = fmax(fmax(y->blk[(k - 1) * P + t], y->blk[k * P + t]),
                        fmax(y->blk[t * P + k - 1], y->blk[t * P + k]));
        mx = v > mx ? v : mx;
    }
    return mx;
}

/* one pass of cut moves: each cut k to its best place in [cuts[k-1], cuts[k+1]]; with a time
 * limit (t0: the kernel's start), *timed set and the pass left after the cut that reached it */
static int rg_sym_moves(rg_sym_t *y, const rg_side_t *cs, int64_t *cuts, double t0,
                        int32_t *timed)
{
    int moved = 0;
    for (int64_t k = 1; k < y->P; k++) {
        if (k > 1 && rg_time_up(y->ctl, t0)) {
            *timed = 1;
            break;
        }
        int64_t a = cuts[k - 1], b = cuts[k + 1], c = cuts[k];
        for (int64_t x = c - 1; x >= a; x--) { /* all of [a, b) into interval k */
            rg_sym_move(y, cs, x, (int32_t)(k - 1), (int32_t)k);
        }
        int64_t best = c;
        double bv = RG_INF, cv = RG_INF;
        for (int64_t x = a;; x++) { /* the cut at x: [a, x) in k - 1 */
            double v = rg_sym_local(y, k);
            if (x == c) {
                cv = v;
            }
            if (v < bv) {
                bv = v;
                best = x;
            }
            if (x == b) {
                break;
            }
            rg_sym_move(y, cs, x, (int32_t)k, (int32_t)(k - 1));
        }
        if (!(bv < cv)) {
            best = c;
        }
        for (int64_t x = b - 1; x >= best; x--) {
            rg_sym_move(y, cs, x, (int32_t)(k - 1), (int32_t)k);
        }
        moved |= best != c;
        cuts[k] = best;
        if (y->stop) {
            break;
        }
    }
    return moved;
}

/* a run cut by its time limit returns the better of its cuts and the uniform cuts (cuts and
 * *value replaced when the uniform ones are lower): never worse than rect_sym_uniform */
static void rg_sym_incumbent(rg_sym_t *y, int64_t *cuts, double *value)
{
    int64_t P = y->P;
    int64_t *u = wpart_i_malloc(P + 1, sizeof(int64_t));
    if (!u) {
        return;
    }
    for (int64_t q = 0; q <= P; q++) {
        u[q] = (q * y->N) / P;
    }
    double v = rg_sym_value(y, u);
    if (!y->stop && v < *value) {
        memcpy(cuts, u, (size_t)(P + 1) * sizeof(int64_t));
        *value = v;
    }
    free(u);
}

wpart_status_t wpart_spatial_rect_sym(const wpart_rg_csr_t *A, int64_t P, int variant,
                                      const int64_t *c0, int64_t max_iter,
                                      const wpart_control_t *control, int64_t *cuts,
                                      double *value, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    double t0 = wpart_i_now();
    rg_sym_t y;
    memset(&y, 0, sizeof y);
    int64_t *cp = NULL, *ri = NULL, *c = NULL, *tmp = NULL;
    double *cw = NULL, *w = NULL, *X = NULL;
    *timed_out = 0;
    WPART_CHECK(rg_sym_init(&y, A, P, control));
    if (variant == 0 || variant == 1) {
        WPART_CHECK(rg_sym_pal(&y, variant == 0, control, t0, cuts, timed_out));
        *value = rg_sym_value(&y, cuts);
        goto cleanup;
    }
    WPART_CHECK(rg_transpose(A, control, &cp, &ri, &cw));
    rg_side_t sides[2] = {{A->n1, A->n2, A->rp, A->ci, A->w}, {A->n2, A->n1, cp, ri, cw}};
    c = wpart_i_malloc(P + 1, sizeof(int64_t));
    tmp = wpart_i_malloc(P + 1, sizeof(int64_t));
    w = wpart_i_calloc(y.N, sizeof(double));
    X = wpart_i_malloc(y.N + 1, sizeof(double));
    if (!c || !tmp || !w || !X) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in a symmetric grid");
    }
    if (c0) {
        memcpy(c, c0, (size_t)(P + 1) * sizeof(int64_t));
    } else {
        c[0] = 0;
        for (int64_t q = 1; q <= P; q++) {
            c[q] = y.N;
        }
    }
    memcpy(cuts, c, (size_t)(P + 1) * sizeof(int64_t));
    double best = rg_sym_value(&y, c);
    if (y.stop) {
        goto cleanup;
    }
    if (variant == 3) {
        for (int64_t it = 0; it < max_iter; it++) {
            int moved = rg_sym_moves(&y, &sides[1], c, t0, timed_out);
            if (y.stop) {
                goto cleanup;
            }
            if (*timed_out || !moved) {
                break;
            }
            WPART_CHECK(rg_poll_limit(control, t0, (double)it, (double)max_iter, timed_out));
            if (*timed_out) {
                break;
            }
        }
        memcpy(cuts, c, (size_t)(P + 1) * sizeof(int64_t));
        *value = rg_sym_value(&y, cuts);
        goto cleanup;
    }
    /* RAC: the direction whose first refinement is better, then max_iter refinements */
    int dir = 0;
    {
        double v[2];
        for (int d = 0; d < 2; d++) {
            rg_rac_weights(&y, &sides[d], c, w);
            if (y.stop) {
                goto cleanup;
            }
            X[0] = 0.0;
            for (int64_t i = 0; i < y.N; i++) {
                X[i + 1] = X[i] + w[i];
            }
            rg_bisect(X, y.N, 1, P, X[y.N] / (double)P * (1.0 - 1e-12), X[y.N], y.integral,
                      tmp, cuts);
            v[d] = rg_sym_value(&y, tmp);
            if (y.stop) {
                goto cleanup;
            }
        }
        dir = v[1] < v[0];
    }
    int integral_w = y.integral;
    for (int64_t it = 0; it < max_iter; it++) {
        rg_rac_weights(&y, &sides[dir], c, w);
        if (y.stop) {
            goto cleanup;
        }
        X[0] = 0.0;
        for (int64_t i = 0; i < y.N; i++) {
            X[i + 1] = X[i] + w[i];
        }
        rg_bisect(X, y.N, 1, P, X[y.N] / (double)P * (1.0 - 1e-12), X[y.N], integral_w, c,
                  tmp);
        double v = rg_sym_value(&y, c);
        if (y.stop) {
            goto cleanup;
        }
        if (variant == 12 || v < best) {
            best = v;
            memcpy(cuts, c, (size_t)(P + 1) * sizeof(int64_t));
        }
        WPART_CHECK(rg_poll_limit(control, t0, (double)it, (double)max_iter, timed_out));
        if (*timed_out) {
            break;
        }
    }
    *value = rg_sym_value(&y, cuts);
cleanup:
    if (st == WPART_OK && !y.stop && *timed_out) {
        rg_sym_incumbent(&y, cuts, value);
    }
    if (st == WPART_OK && y.stop) {
        st = wpart_i_error(WPART_ECANCELLED, "stopped on request");
    }
    rg_sym_free(&y);
    free(cp);
    free(ri);
    free(cw);
    free(c);
    free(tmp);
    free(w);
    free(X);
    return st;
}
