/* sp_sparse.h -- RECT-UNIFORM, RECT-NICOL and JAG-PQ-HEUR (Secs. 3.1 and 3.2.1 of Saule et al.
 * 2012) on a sparse matrix given by its rows (CSR) and its columns (CSC), without the dense
 * prefix: the 1D chains these methods cut are built from the nonzeros. A stripe's prefix over
 * the other dimension is a scatter of its rows' nonzeros and a running sum, so a RECT-NICOL
 * sweep costs O(nnz + P n2 + Q n1) and JAG-PQ-HEUR O(nnz + P n2), against O(n1 n2) for the
 * dense prefix alone. The decisions are those of the dense code (same probes, bisections and
 * 1D optima on the same values), so integer loads give the same partition bit for bit.
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

typedef struct {
    int64_t n1, n2;
    const int64_t *rp, *ci; /* CSR: row i's nonzeros at [rp[i], rp[i+1]), columns ci */
    const T *rv;
    const int64_t *cp, *ri; /* CSC: column j's nonzeros at [cp[j], cp[j+1]), rows ri */
    const T *cv;
} FN(sparse_t);

static FN(sparse_t) FN(sp_transposed)(const FN(sparse_t) *a)
{
    FN(sparse_t) t = {a->n2, a->n1, a->cp, a->ri, a->cv, a->rp, a->ci, a->rv};
    return t;
}

/* W[j] (j = 0 .. n2) = load of rows [r0, r1) x columns [0, j) */
static void FN(sp_stripe_w)(const FN(sparse_t) *a, int64_t r0, int64_t r1, T *W)
{
    memset(W, 0, (size_t)(a->n2 + 1) * sizeof(T));
    for (int64_t e = a->rp[r0]; e < a->rp[r1]; e++) {
        W[a->ci[e] + 1] += a->rv[e];
    }
    for (int64_t j = 1; j <= a->n2; j++) {
        W[j] += W[j - 1];
    }
}

static void FN(sp_w_of)(const void *src, int64_t r0, int64_t r1, T *W)
{
    FN(sp_stripe_w)((const FN(sparse_t) *)src, r0, r1, W);
}

static void FN(sp_rows_w)(const FN(sparse_t) *a, T *W);

static void FN(sp_rows_of)(const void *src, T *W)
{
    FN(sp_rows_w)((const FN(sparse_t) *)src, W);
}

/* the stripe kernels of the dense code (FN(split_stripe) and what is built on it: the nested
 * 1D optimum, JAG-PQ-OPT, JAG-M-ALLOC, JAG-M-PROBE's cuts) read their stripes from `a` */
static void FN(sp_use)(FN(ctx_t) *cx, const FN(sparse_t) *a)
{
    cx->v.S = NULL;
    cx->v.n1 = a->n1;
    cx->v.n2 = a->n2;
    cx->sp_w = FN(sp_w_of);
    cx->sp_rows = FN(sp_rows_of);
    cx->sp_src = a;
}

/* W[i] (i = 0 .. n1) = load of rows [0, i) */
static void FN(sp_rows_w)(const FN(sparse_t) *a, T *W)
{
    W[0] = 0;
    for (int64_t i = 0; i < a->n1; i++) {
        T s = 0;
        for (int64_t e = a->rp[i]; e < a->rp[i + 1]; e++) {
            s += a->rv[e];
        }
        W[i + 1] = W[i] + s;
    }
}

/* k stripe prefixes side by side: row p of the table (width n2 + 1) for rows [cuts[p],
 * cuts[p+1]) */
typedef struct {
    T *W;
    int64_t w, k;
} FN(sptab_t);

static void FN(sp_table)(const FN(sparse_t) *a, const int64_t *cuts, FN(sptab_t) *t)
{
    for (int64_t p = 0; p < t->k; p++) {
        FN(sp_stripe_w)(a, cuts[p], cuts[p + 1], t->W + p * t->w);
    }
}

/* the heaviest stripe's load over [a, b) of the other dimension (FN(maxcost) of sp_rect.h) */
static T FN(sp_maxcost)(void *ctx, int64_t part, int64_t a, int64_t b)
{
    (void)part;
    const FN(sptab_t) *t = ctx;
    T best = 0;
    for (int64_t p = 0; p < t->k; p++) {
        const T *Wp = t->W + p * t->w;
        T x = Wp[b] - Wp[a];
        if (x > best) {
            best = x;
        }
    }
    return best;
}

/* max load of the grid: the table's stripes cut at C[0..q] (FN(grid_lmax)) */
static T FN(sp_grid_lmax)(const FN(sptab_t) *t, const int64_t *C, int64_t q)
{
    T best = 0;
    for (int64_t p = 0; p < t->k; p++) {
        const T *Wp = t->W + p * t->w;
        for (int64_t j = 0; j < q; j++) {
            T x = Wp[C[j + 1]] - Wp[C[j]];
            if (x > best) {
                best = x;
            }
        }
    }
    return best;
}

/* max over the stripes of (stripe load / parts) (FN(stripe_lb)) */
static T FN(sp_stripe_lb)(const FN(sptab_t) *t, int64_t parts)
{
    T best = 0;
    for (int64_t p = 0; p < t->k; p++) {
        T x = FN(ceil_div)(t->W[p * t->w + t->w - 1], parts);
#if !IS_INT
        x *= 1.0 - 1e-12;
#endif
        if (x > best) {
            best = x;
        }
    }
    return best;
}

static T *FN(sp_alloc_table)(int64_t k, int64_t w)
{
    int64_t n;
    if (!wpart_i_mul_size(k, w, &n)) {
        return NULL;
    }
    return wpart_i_malloc(n, sizeof(T));
}

/* RECT-NICOL (FN(rect_nicol) of sp_rect.h step for step) */
static wpart_status_t FN(sp_rect_nicol)(FN(ctx_t) *cx, const FN(sparse_t) *a, int64_t P,
                                        int64_t Q, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    FN(sparse_t) at = FN(sp_transposed)(a);
    int64_t sweeps = cx->opt->max_sweeps > 0 ? cx->opt->max_sweeps : 100;
    int64_t n1 = a->n1, n2 = a->n2;
    FN(grid_hist_t) hist;
    int hist_ok = FN(grid_hist_init)(&hist, P, Q, sweeps) == 0;
    int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
    int64_t *C = wpart_i_malloc(Q + 1, sizeof(int64_t));
    FN(sptab_t) tr = {FN(sp_alloc_table)(P, n2 + 1), n2 + 1, P};
    FN(sptab_t) tc = {FN(sp_alloc_table)(Q, n1 + 1), n1 + 1, Q};
    T *rw = NULL;
    if (!hist_ok || !R || !C || !tr.W || !tc.W) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL (sparse)");
    }
    if (cx->opt->start == 1) { /* rows split by load */
        rw = wpart_i_malloc(n1 + 1, sizeof(T));
        if (!rw) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL (sparse)");
        }
        FN(sp_rows_w)(a, rw);
        WPART_CHECK(FN(opt1d)(cx, rw, n1, P, R, NULL));
    } else {
        FN(uniform_cuts)(n1, P, R);
    }
    FN(uniform_cuts)(n2, Q, C);
    cx->stats->converged = 0;
    for (int64_t s = 0; s < sweeps; s++) {
        T B, lb, ub;
        FN(sp_table)(a, R, &tr);
        ub = FN(sp_grid_lmax)(&tr, C, Q);
        lb = FN(sp_stripe_lb)(&tr, Q);
        WPART_CHECK(FN(gbisect)(cx, FN(sp_maxcost), &tr, n2, Q, 1, lb, ub, &B, C));
        ub = FN(sp_grid_lmax)(&tr, C, Q);
        FN(sp_table)(&at, C, &tc);
        lb = FN(sp_stripe_lb)(&tc, P);
        WPART_CHECK(FN(gbisect)(cx, FN(sp_maxcost), &tc, n1, P, 1, lb, ub, &B, R));
        cx->stats->iterations++;
        int seen = FN(grid_hist_seen)(&hist, R, P, C, Q);
        if (seen < 0) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL (sparse)");
        }
        if (seen) {
            cx->stats->converged = 1;
            break;
        }
        WPART_CHECK(wpart_i_poll(cx->opt->control, cx->t0, (double)s, (double)sweeps));
    }
    FN(emit_grid)(R, P, C, Q, out);
cleanup:
    st = FN(nicol_end)(cx, st, R, P, C, Q, out);
    free(hist.rows);
    free(R);
    free(C);
    free(tr.W);
    free(tc.W);
    free(rw);
    return st;
}

/* JAG-PQ-HEUR (FN(jag_pq_heur) of sp_jag_pq.h): rows-first on `a`; *lmax = the max load;
 * with integer loads and `loads` given, each piece's load (exact from the stripe's prefix) */
static wpart_status_t FN(sp_jag_pq_heur)(FN(ctx_t) *cx, const FN(sparse_t) *a, int64_t P,
                                         int64_t Q, int64_t *out, T *lmax, T *loads)
{
    FN(sp_use)(cx, a);
    cx->emit_max = 0;
    cx->emit_loads = loads;
    wpart_status_t st = FN(jag_pq_heur)(cx, P, Q, out);
    cx->emit_loads = NULL;
    *lmax = cx->emit_max;
    return st;
}

static void FN(sp_flip)(int64_t *rects, int64_t m)
{
    for (int64_t k = 0; k < m; k++) { /* (r0,r1,c0,c1) <- (c0,c1,r0,r1) */
        int64_t *p = rects + 4 * k, x = p[0], y = p[1];
        p[0] = p[2];
        p[1] = p[3];
        p[2] = x;
        p[3] = y;
    }
}

#include "sp_sparse_jag_m.h"

/* one method on the sparse matrix; `loads` (may be NULL) receives the rectangles' loads when
 * the method has them exactly at hand (JAG-PQ-HEUR in one orientation, integer loads), and
 * *loads_done tells whether it did */
static wpart_status_t FN(sparse_partition)(const FN(sparse_t) *a, int64_t m,
                                           const wpart_spatial_options_t *opt, int64_t *rects,
                                           wpart_spatial_stats_t *stats, T *loads,
                                           int *loads_done)
{
    *loads_done = 0;
    wpart_status_t st = WPART_OK;
    FN(ctx_t) cx;
    int64_t *alt = NULL;
    memset(&cx, 0, sizeof cx);
    cx.opt = opt;
    cx.stats = stats;
    cx.t0 = wpart_i_now();
    cx.v.n1 = a->n1;
    cx.v.n2 = a->n2;
    int64_t P = opt->P, Q = opt->Q;
    int64_t big = a->n1 > a->n2 ? a->n1 : a->n2, sbig = big > m ? big : m;
    stats->P = P;
    cx.W = wpart_i_malloc(big + 1, sizeof(T)); /* the stripe kernels' scratch (sp_driver.h) */
    cx.sep = wpart_i_malloc(sbig + 2, sizeof(int64_t));
    if (!cx.W || !cx.sep) {
        WPART_FAIL(WPART_ENOMEM, "out of memory");
    }
    if (opt->method == WPART_SP_RECT_UNIFORM) {
        int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
        int64_t *C = wpart_i_malloc(Q + 1, sizeof(int64_t));
        if (R && C) {
            FN(uniform_cuts)(a->n1, P, R);
            FN(uniform_cuts)(a->n2, Q, C);
            FN(emit_grid)(R, P, C, Q, rects);
        } else {
            st = wpart_i_error(WPART_ENOMEM, "out of memory");
        }
        free(R);
        free(C);
    } else if (opt->method == WPART_SP_RECT_NICOL) {
        if (opt->orient == WPART_SP_VER) {
            FN(sparse_t) at = FN(sp_transposed)(a);
            alt = wpart_i_malloc(4 * m, sizeof(int64_t));
            if (!alt) {
                WPART_FAIL(WPART_ENOMEM, "out of memory");
            }
            WPART_CHECK(FN(sp_rect_nicol)(&cx, &at, Q, P, alt));
            FN(untranspose_grid)(alt, P, Q, rects);
        } else {
            WPART_CHECK(FN(sp_rect_nicol)(&cx, a, P, Q, rects));
        }
    } else if (opt->method == WPART_SP_JAG_M_HEUR || opt->method == WPART_SP_JAG_M_HEUR_PROBE ||
               opt->method == WPART_SP_JAG_M_PROBE) {
        int probe = opt->method != WPART_SP_JAG_M_HEUR;
        const int64_t *cuts = opt->method == WPART_SP_JAG_M_PROBE ? opt->cuts : NULL;
        int want_h = opt->orient != WPART_SP_VER, want_v = opt->orient != WPART_SP_HOR;
        T lh = 0, lv = 0;
        int64_t Ph = 0, Pv = 0;
        if (want_h) {
            WPART_CHECK(FN(sp_jag_m)(&cx, a, m, probe, cuts, opt->ncuts, rects, &lh, &Ph));
            stats->orient = 0;
            stats->P = Ph;
        }
        if (want_v) {
            FN(sparse_t) at = FN(sp_transposed)(a);
            alt = want_h ? wpart_i_malloc(4 * m, sizeof(int64_t)) : rects;
            if (!alt) {
                WPART_FAIL(WPART_ENOMEM, "out of memory");
            }
            WPART_CHECK(FN(sp_jag_m)(&cx, &at, m, probe, cuts, opt->ncuts, alt, &lv, &Pv));
            FN(sp_flip)(alt, m);
            if (!want_h || lv < lh) {
                if (want_h) {
                    memcpy(rects, alt, 4 * m * sizeof(int64_t));
                }
                stats->orient = 1;
                stats->P = Pv;
            }
        }
    } else if (opt->method == WPART_SP_JAG_M_ALLOC) {
        stats->P = opt->ncuts;
        if (opt->orient == WPART_SP_VER) {
            FN(sparse_t) at = FN(sp_transposed)(a);
            WPART_CHECK(FN(sp_jag_m_alloc)(&cx, &at, opt->cuts, opt->ncuts, rects));
            FN(sp_flip)(rects, m);
            stats->orient = 1;
        } else {
            WPART_CHECK(FN(sp_jag_m_alloc)(&cx, a, opt->cuts, opt->ncuts, rects));
            stats->orient = 0;
        }
    } else if (opt->method == WPART_SP_JAG_PQ_OPT_NICOL || opt->method == WPART_SP_JAG_PQ_OPT_DP ||
               opt->method == WPART_SP_JAG_M_OPT) {
        int dp = opt->method == WPART_SP_JAG_PQ_OPT_DP, mopt = opt->method == WPART_SP_JAG_M_OPT;
        int want_h = opt->orient != WPART_SP_VER, want_v = opt->orient != WPART_SP_HOR;
        T lh = 0, lv = 0;
        int64_t Ph = 0;
        if (want_h) {
            WPART_CHECK(mopt ? FN(sp_jag_m_opt)(&cx, a, m, rects, &lh)
                             : FN(sp_jag_pq_opt)(&cx, a, P, Q, dp, rects, &lh));
            stats->orient = 0;
            Ph = stats->P;
            if (stats->timed_out) {
                want_v = 0; /* the time is up: keep the rows-first answer */
            }
        }
        if (want_v) {
            FN(sparse_t) at = FN(sp_transposed)(a);
            alt = want_h ? wpart_i_malloc(4 * m, sizeof(int64_t)) : rects;
            if (!alt) {
                WPART_FAIL(WPART_ENOMEM, "out of memory");
            }
            st = mopt ? FN(sp_jag_m_opt)(&cx, &at, m, alt, &lv)
                      : FN(sp_jag_pq_opt)(&cx, &at, P, Q, dp, alt, &lv);
            if (st == WPART_ECANCELLED && want_h && FN(time_up)(opt->control, cx.t0)) {
                stats->timed_out = 1; /* the time is up: keep the rows-first optimum */
                stats->P = Ph;
                st = WPART_OK;
                goto cleanup;
            }
            if (st != WPART_OK) {
                goto cleanup;
            }
            FN(sp_flip)(alt, m);
            if (!want_h || lv < lh) {
                if (want_h) {
                    memcpy(rects, alt, 4 * m * sizeof(int64_t));
                }
                stats->orient = 1;
            } else {
                stats->P = Ph;
            }
        }
    } else { /* JAG-PQ-HEUR */
        int want_h = opt->orient != WPART_SP_VER, want_v = opt->orient != WPART_SP_HOR;
        T lh = 0, lv = 0;
        T *ld = IS_INT && !(want_h && want_v) ? loads : NULL; /* one orientation: exact */
        if (want_h) {
            WPART_CHECK(FN(sp_jag_pq_heur)(&cx, a, P, Q, rects, &lh, ld));
            stats->orient = 0;
        }
        if (want_v) {
            FN(sparse_t) at = FN(sp_transposed)(a);
            alt = want_h ? wpart_i_malloc(4 * m, sizeof(int64_t)) : rects;
            if (!alt) {
                WPART_FAIL(WPART_ENOMEM, "out of memory");
            }
            WPART_CHECK(FN(sp_jag_pq_heur)(&cx, &at, P, Q, alt, &lv, ld));
            FN(sp_flip)(alt, m);
            if (!want_h || lv < lh) {
                if (want_h) {
                    memcpy(rects, alt, 4 * m * sizeof(int64_t));
                }
                stats->orient = 1;
            }
        }
        *loads_done = ld != NULL;
    }
cleanup:
    stats->seconds = wpart_i_now() - cx.t0;
    if (alt != rects) {
        free(alt);
    }
    free(cx.W);
    free(cx.sep);
    return st;
}

/* the load of rectangle r: row by row, from the first entry at column >= c0 (binary search;
 * columns sorted within each row) to the last below c1 */
static T FN(sparse_box)(const FN(sparse_t) *a, const int64_t *r)
{
    T s = 0;
    if (r[0] < r[1] && r[2] < r[3]) {
        for (int64_t i = r[0]; i < r[1]; i++) {
            int64_t lo = a->rp[i], hi = a->rp[i + 1];
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (a->ci[mid] < r[2]) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            for (int64_t e = lo; e < a->rp[i + 1] && a->ci[e] < r[3]; e++) {
                s += a->rv[e];
            }
        }
    }
    return s;
}

/* the loads of the g rectangles r[0..g-1] sharing the lines [l0, l1) of the compressed arrays
 * (ptr, idx, val: rows of CSR or columns of CSC) and cutting the other dimension into the
 * intervals [r[4j+o], r[4j+o+1]): one merge of each line's sorted entries with the intervals
 * (a binary search for the first, then in step), O(entries + lines log g). 0 (nothing
 * written) unless the intervals are in order and disjoint. Each load is summed line by line,
 * entries in order, as FN(sparse_box) sums a rectangle of rows. */
static int FN(sparse_run)(const int64_t *ptr, const int64_t *idx, const T *val, int64_t l0,
                          int64_t l1, const int64_t *r, int64_t g, int o, T *out)
{
    for (int64_t j = 0; j < g; j++) {
        if (r[4 * j + o] > r[4 * j + o + 1] || (j > 0 && r[4 * j + o] < r[4 * j - 4 + o + 1])) {
            return 0;
        }
    }
    for (int64_t j = 0; j < g; j++) {
        out[j] = 0;
    }
    for (int64_t l = l0; l < l1; l++) {
        int64_t e = ptr[l], end = ptr[l + 1];
        if (e == end) {
            continue;
        }
        int64_t lo = 0, hi = g, c = idx[e]; /* the first interval ending after c */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (r[4 * mid + o + 1] <= c) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        for (int64_t k = lo; e < end; e++) {
            c = idx[e];
            while (k < g && r[4 * k + o + 1] <= c) {
                k++;
            }
            if (k == g) {
                break;
            }
            if (c >= r[4 * k + o]) {
                out[k] += val[e];
            }
        }
    }
    return 1;
}

/* the load of each rectangle (r0, r1, c0, c1) of rects[m]. A run of consecutive rectangles on
 * the same rows, their columns in order and disjoint (a stripe of a grid or jagged partition),
 * is summed in one merge over the stripe's rows (FN(sparse_run)); a run on the same columns (a
 * stripe of columns) over its columns from the CSC arrays when given (a->cp); any other
 * rectangle row by row (FN(sparse_box)). A row run gives the values FN(sparse_box) gives, bit
 * for bit; a column run is summed column by column, so a float load may differ in its last
 * bits from the row-by-row sum (the same for every input giving these arrays). */
static void FN(sparse_loads)(const FN(sparse_t) *a, const int64_t *rects, int64_t m, T *out)
{
    int64_t k = 0;
    while (k < m) {
        const int64_t *r = rects + 4 * k;
        int64_t g = 1;
        while (k + g < m && rects[4 * (k + g)] == r[0] && rects[4 * (k + g) + 1] == r[1]) {
            g++;
        }
        if (g >= 2 && r[0] < r[1] &&
            FN(sparse_run)(a->rp, a->ci, a->rv, r[0], r[1], r, g, 2, out + k)) {
            k += g;
            continue;
        }
        if (g < 2 && a->cp && r[2] < r[3]) { /* a run on the same columns (a column stripe) */
            int64_t h = 1;
            while (k + h < m && rects[4 * (k + h) + 2] == r[2] && rects[4 * (k + h) + 3] == r[3]) {
                h++;
            }
            if (h >= 2 && FN(sparse_run)(a->cp, a->ri, a->cv, r[2], r[3], r, h, 0, out + k)) {
                k += h;
                continue;
            }
        }
        for (int64_t j = 0; j < g; j++) {
            out[k + j] = FN(sparse_box)(a, rects + 4 * (k + j));
        }
        k += g;
    }
}
