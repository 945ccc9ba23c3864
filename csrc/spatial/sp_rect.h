/* sp_rect.h -- rectilinear P x Q grids: RECT-UNIFORM and RECT-NICOL
 * (Sec. 3.1 of Saule et al. 2012).
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

/* The P x Q grid of a RECT-NICOL run on the transposed problem (alt: Q x P rectangles with
 * rows and columns swapped) written back in the orientation of the input. */
static void FN(untranspose_grid)(const int64_t *alt, int64_t P, int64_t Q, int64_t *rects)
{
    for (int64_t i = 0; i < Q; i++) {
        for (int64_t j = 0; j < P; j++) {
            const int64_t *a = alt + 4 * (i * P + j);
            int64_t *o = rects + 4 * (j * Q + i);
            o[0] = a[2];
            o[1] = a[3];
            o[2] = a[0];
            o[3] = a[1];
        }
    }
}

/* RECT-NICOL's fixed stripes of one dimension ("band"), cut at cuts[0..k]: the cost of an
 * interval [a, b) of the other dimension is the heaviest stripe's load over it. A dense input
 * reads the loads from its prefix (rows: the stripes are row blocks); a sparse one from a
 * table of the stripes' prefixes over the other dimension (W: k rows of width w, made from the
 * nonzeros once per half-sweep, O(nnz + k w)). */
typedef struct {
    const FN(view_t) *v;
    const int64_t *cuts;
    int64_t k;
    int rows;
    T *W;
    int64_t w;
} FN(band_t);

/* the band's cost on the dense prefix */
static T FN(maxcost)(void *ctx, int64_t part, int64_t a, int64_t b)
{
    (void)part;
    FN(band_t) *c = ctx;
    T best = 0;
    for (int64_t p = 0; p < c->k; p++) {
        T x = c->rows ? FN(load)(c->v, c->cuts[p], c->cuts[p + 1], a, b)
                      : FN(load)(c->v, a, b, c->cuts[p], c->cuts[p + 1]);
        if (x > best) {
            best = x;
        }
    }
    return best;
}

/* the band's cost from its table */
static T FN(tab_cost)(void *ctx, int64_t part, int64_t a, int64_t b)
{
    (void)part;
    const FN(band_t) *t = ctx;
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

/* the band of the cuts (rows: row blocks; else column blocks, read from the transposed
 * sparse matrix `at`); its table (sparse) was allocated for k stripes */
static void FN(band_set)(const FN(ctx_t) *cx, const FN(sparse_t) *at, FN(band_t) *b,
                         const int64_t *cuts, int64_t k, int rows)
{
    b->v = &cx->v;
    b->cuts = cuts;
    b->k = k;
    b->rows = rows;
    for (int64_t p = 0; cx->sp && p < k; p++) {
        FN(sp_stripe_w)(rows ? cx->sp : at, cuts[p], cuts[p + 1], b->W + p * b->w);
    }
}

/* max load of the grid of the row band cut at C[0..q] */
static T FN(band_lmax)(const FN(band_t) *b, const int64_t *C, int64_t q)
{
    T best = 0;
    for (int64_t p = 0; p < b->k; p++) {
        const T *Wp = b->W ? b->W + p * b->w : NULL;
        for (int64_t j = 0; j < q; j++) {
            T x = Wp ? Wp[C[j + 1]] - Wp[C[j]]
                     : FN(load)(b->v, b->cuts[p], b->cuts[p + 1], C[j], C[j + 1]);
            if (x > best) {
                best = x;
            }
        }
    }
    return best;
}

/* max over the band's stripes of (stripe load / parts): a lower bound of the 1D optimum */
static T FN(band_lb)(const FN(band_t) *b, int64_t parts)
{
    const FN(view_t) *v = b->v;
    T best = 0;
    for (int64_t p = 0; p < b->k; p++) {
        T L = b->W ? b->W[p * b->w + b->w - 1]
                   : b->rows ? FN(load)(v, b->cuts[p], b->cuts[p + 1], 0, v->n2)
                             : FN(load)(v, 0, v->n1, b->cuts[p], b->cuts[p + 1]);
        T x = FN(ceil_div)(L, parts);
#if !IS_INT
        x *= 1.0 - 1e-12;
#endif
        if (x > best) {
            best = x;
        }
    }
    return best;
}

static T *FN(alloc_table)(int64_t k, int64_t w)
{
    int64_t n;
    if (!wpart_i_mul_size(k, w, &n)) {
        return NULL;
    }
    return wpart_i_malloc(n, sizeof(T));
}

/* RECT-NICOL's sweep history (the dense and the sparse version): the grids (R, C) of the
 * sweeps so far, to stop at the first one repeated */
typedef struct {
    int64_t *rows, n, cap, width, sweeps;
} FN(grid_hist_t);

/* 0, or -1 out of memory */
static int FN(grid_hist_init)(FN(grid_hist_t) *h, int64_t P, int64_t Q, int64_t sweeps)
{
    h->width = P + Q + 2;
    h->cap = sweeps < 64 ? sweeps + 1 : 64; /* history rows, grown on demand */
    h->n = 0;
    h->sweeps = sweeps;
    h->rows = wpart_i_malloc(h->cap * h->width, sizeof(int64_t));
    return h->rows ? 0 : -1;
}

/* 1 when the grid (R, C) is in the history; else 0 once added to it; -1 out of memory */
static int FN(grid_hist_seen)(FN(grid_hist_t) *h, const int64_t *R, int64_t P, const int64_t *C,
                              int64_t Q)
{
    for (int64_t k = 0; k < h->n; k++) {
        const int64_t *row = h->rows + k * h->width;
        if (memcmp(row, R, (P + 1) * sizeof(int64_t)) == 0 &&
            memcmp(row + P + 1, C, (Q + 1) * sizeof(int64_t)) == 0) {
            return 1;
        }
    }
    if (h->n == h->cap) {
        int64_t ncap = h->cap < (h->sweeps + 1) / 2 ? 2 * h->cap : h->sweeps + 1;
        int64_t cells;
        int64_t *nrows = NULL;
        if (wpart_i_mul_size(ncap, h->width, &cells)) {
            nrows = wpart_i_realloc(h->rows, cells, sizeof(int64_t));
        }
        if (!nrows) {
            return -1;
        }
        h->rows = nrows;
        h->cap = ncap;
    }
    memcpy(h->rows + h->n * h->width, R, (P + 1) * sizeof(int64_t));
    memcpy(h->rows + h->n * h->width + P + 1, C, (Q + 1) * sizeof(int64_t));
    h->n++;
    return 0;
}

/* The end of a RECT-NICOL run with status st: every poll comes after R and C hold complete
 * cuts, so when the time limit stopped it the current grid is the answer (timed_out). */
static wpart_status_t FN(nicol_end)(FN(ctx_t) *cx, wpart_status_t st, const int64_t *R,
                                    int64_t P, const int64_t *C, int64_t Q, int64_t *out)
{
    if (st == WPART_ECANCELLED && R && C && FN(time_up)(cx->opt->control, cx->t0)) {
        wpart_i_emit_grid(R, P, C, Q, out);
        cx->stats->timed_out = 1;
        st = WPART_OK;
    }
    return st;
}

/* RECT-NICOL (Sec. 3.1): alternately the optimal column cuts for the fixed row stripes and the
 * row cuts for the fixed column stripes (exact bisections on the heaviest stripe), until a grid
 * repeats or max_sweeps. One body for the dense and the sparse input (the bands above). */
static wpart_status_t FN(rect_nicol)(FN(ctx_t) *cx, int64_t P, int64_t Q, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    int64_t n1 = cx->v.n1, n2 = cx->v.n2;
    int64_t sweeps = cx->opt->max_sweeps > 0 ? cx->opt->max_sweeps : 100;
    FN(sparse_t) at = {0};
    FN(band_t) br = {0}, bc = {0};
    FN(cost_f) cost = cx->sp ? FN(tab_cost) : FN(maxcost);
    FN(grid_hist_t) hist;
    int hist_ok = FN(grid_hist_init)(&hist, P, Q, sweeps) == 0;
    int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
    int64_t *C = wpart_i_malloc(Q + 1, sizeof(int64_t));
    if (cx->sp) {
        at = FN(sp_transposed)(cx->sp);
        br.w = n2 + 1;
        br.W = FN(alloc_table)(P, br.w);
        bc.w = n1 + 1;
        bc.W = FN(alloc_table)(Q, bc.w);
    }
    if (!hist_ok || !R || !C || (cx->sp && (!br.W || !bc.W))) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    if (cx->opt->start == 1) { /* rows split by load */
        FN(row_prefix)(cx, cx->W);
        WPART_CHECK(FN(opt1d)(cx, cx->W, n1, P, R, NULL));
    } else {
        wpart_i_uniform_cuts(n1, P, R);
    }
    wpart_i_uniform_cuts(n2, Q, C);
    cx->stats->converged = 0;
    for (int64_t s = 0; s < sweeps; s++) {
        T B, lb, ub;
        /* bounds: every stripe's load / parts below, the current grid above */
        FN(band_set)(cx, &at, &br, R, P, 1);
        ub = FN(band_lmax)(&br, C, Q);
        lb = FN(band_lb)(&br, Q);
        WPART_CHECK(FN(gbisect)(cx, cost, &br, n2, Q, 1, lb, ub, &B, C));
        ub = FN(band_lmax)(&br, C, Q);
        FN(band_set)(cx, &at, &bc, C, Q, 0);
        lb = FN(band_lb)(&bc, P);
        WPART_CHECK(FN(gbisect)(cx, cost, &bc, n1, P, 1, lb, ub, &B, R));
        cx->stats->iterations++;
        int seen = FN(grid_hist_seen)(&hist, R, P, C, Q);
        if (seen < 0) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
        }
        if (seen) {
            cx->stats->converged = 1;
            break;
        }
        WPART_CHECK(wpart_i_poll(cx->opt->control, cx->t0, (double)s, (double)sweeps));
    }
    wpart_i_emit_grid(R, P, C, Q, out);
cleanup:
    st = FN(nicol_end)(cx, st, R, P, C, Q, out);
    free(hist.rows);
    free(R);
    free(C);
    free(br.W);
    free(bc.W);
    return st;
}
