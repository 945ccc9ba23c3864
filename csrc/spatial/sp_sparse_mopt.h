/* sp_sparse_mopt.h -- JAG-M-OPT (Sec. 3.2.2 of Saule et al. 2012) on a sparse matrix (CSR + CSC),
 * without the dense prefix. The feasibility DP (SP_MOPT_SEARCH, shared with the dense code)
 * grows the stripe [k, i) one row at a time as k decreases, so the stripe's column sums live in
 * a Fenwick tree over the columns, rows added when a piece count needs them: adding row k
 * costs O(its nonzeros log n2), each piece of the
 * greedy count is one descent of the tree (O(log n2)), and the tree is cleared along the same
 * paths before the next i. The incumbent (JAG-M-HEUR-PROBE) and the final JAG-M-PROBE on the
 * optimal stripes are the sparse ones (sp_sparse_jag_m.h). Memory O(nnz + n1 + n2). Integer
 * loads give the dense DP's decisions, hence its optimum and partition; float loads are summed
 * in another order (the same optimum up to rounding).
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

typedef struct {
    const FN(sparse_t) *a;
    T *F;         /* Fenwick tree over the n2 columns, F[1..n2] */
    int64_t lo;   /* rows [lo, top) are in the tree */
    int64_t top;
} FN(spfen_t);

/* add (clear = 0) or clear (1) row r of the stripe in the tree */
static void FN(fen_row)(FN(spfen_t) *f, int64_t r, int clear)
{
    const FN(sparse_t) *a = f->a;
    int64_t n = a->n2;
    for (int64_t e = a->rp[r]; e < a->rp[r + 1]; e++) {
        for (int64_t j = a->ci[e] + 1; j <= n; j += j & -j) {
            if (clear) {
                f->F[j] = 0;
            } else {
                f->F[j] += a->rv[e];
            }
        }
    }
}

/* BEGIN(i): an empty stripe ending at row i */
static void FN(fen_begin)(FN(spfen_t) *f, int64_t i)
{
    for (int64_t r = f->lo; r < f->top; r++) {
        FN(fen_row)(f, r, 1);
    }
    f->lo = f->top = i;
}

/* the stripe [k, i) in the tree: the rows from k up to the ones already there added (the DP
 * asks for counts on ever longer stripes of the same i, and only some of the rows it visits
 * need one, so rows are added when a count needs them) */
static void FN(fen_grow)(FN(spfen_t) *f, int64_t k)
{
    for (int64_t r = f->lo - 1; r >= k; r--) {
        FN(fen_row)(f, r, 0);
    }
    if (k < f->lo) {
        f->lo = k;
    }
}

/* the greedy piece count of the stripe in the tree (FN(stripe_count) of sp_jag_m.h: each piece
 * from column t takes the most columns with load <= B), -1 when a column alone exceeds B,
 * limit + 1 above limit. A piece is one descent of the tree to the last column prefix <= the
 * piece's start prefix + B, O(log n2); with integer loads the same pieces as the dense count. */
static int64_t FN(fen_count)(const FN(spfen_t) *f, T B, int64_t limit)
{
    const T *F = f->F;
    int64_t n = f->a->n2, t = 0, cnt = 0, top = 1;
    while (top * 2 <= n) {
        top *= 2;
    }
    T wt = 0; /* the prefix of columns [0, t) */
    while (t < n) {
        T goal = wt + B, acc = 0;
        int64_t pos = 0;
        for (int64_t step = top; step > 0; step >>= 1) {
            if (pos + step <= n && acc + F[pos + step] <= goal) {
                pos += step;
                acc += F[pos];
            }
        }
        if (pos <= t) {
            return -1;
        }
        if (++cnt > limit) {
            return limit + 1;
        }
        t = pos;
        wt = acc;
    }
    return cnt;
}

/* JAG-M-OPT rows-first on `a` (FN(jag_m_opt) of sp_jag_m_opt.h); *lmax = the max load */
static wpart_status_t FN(sp_jag_m_opt)(FN(ctx_t) *cx, const FN(sparse_t) *a, int64_t m,
                                       int64_t *out, T *lmax)
{
    wpart_status_t st = WPART_OK;
    int64_t n1 = a->n1, Pu = 0;
    int64_t *N = wpart_i_malloc(n1 + 1, sizeof(int64_t));
    int64_t *arg = wpart_i_malloc(n1 + 1, sizeof(int64_t));
    int64_t *R = wpart_i_malloc(n1 + 2, sizeof(int64_t));
    T *rw = wpart_i_malloc(n1 + 1, sizeof(T));
    FN(spfen_t) f = {a, wpart_i_calloc(a->n2 + 1, sizeof(T)), 0, 0};
    int64_t *inc = NULL; /* the incumbent, returned when the time limit stops the search */
    T ub = 0;
    if (!N || !arg || !R || !rw || !f.F) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in JAG-M-OPT (sparse)");
    }
    cx->v.n1 = a->n1;
    cx->v.n2 = a->n2;
    FN(sp_rows_w)(a, rw);
    WPART_CHECK(FN(sp_jag_m)(cx, a, m, 1, NULL, 0, out, &ub, &Pu));
    *lmax = ub;
    if (cx->opt->control && cx->opt->control->time_limit > 0) {
        inc = wpart_i_malloc(4 * m, sizeof(int64_t)); /* NULL: no incumbent kept, no error */
        if (inc) {
            memcpy(inc, out, 4 * m * sizeof(int64_t));
        }
    }
#if !IS_INT
    ub = ub * (1.0 + 1e-9) + rw[n1] * 1e-12 + 1e-300; /* rounding (as the dense code) */
    int64_t lo = 0;
#else
    int64_t lo = FN(ceil_div)(rw[n1], m);
#endif
    int64_t hi = FN(key)(ub);
    if (lo > hi) {
        lo = hi;
    }
#define LOAD(k, i) (rw[i] - rw[k])
#define COUNT(k, i, B, limit) (FN(fen_grow)(&f, k), FN(fen_count)(&f, B, limit))
#define BEGIN(i) FN(fen_begin)(&f, i)
#define ADD(k) (void)0
    SP_MOPT_SEARCH(LOAD, COUNT, BEGIN, ADD);
#undef LOAD
#undef COUNT
#undef BEGIN
#undef ADD
    int64_t P = 0; /* the stripes of the last DP run (at the optimum) */
    for (int64_t i = n1; i > 0; i = arg[i]) {
        R[P++] = i;
    }
    R[P] = 0;
    for (int64_t x = 0, y = P; x < y; x++, y--) {
        int64_t t = R[x];
        R[x] = R[y];
        R[y] = t;
    }
    cx->stats->P = P;
    cx->stats->iterations = iter;
    WPART_CHECK(FN(sp_jag_m)(cx, a, m, 1, R, P + 1, out, lmax, &Pu));
cleanup:
    if (st == WPART_ECANCELLED && inc && FN(time_up)(cx->opt->control, cx->t0)) {
        memcpy(out, inc, 4 * m * sizeof(int64_t));
        cx->stats->timed_out = 1;
        st = WPART_OK;
    }
    free(N);
    free(arg);
    free(R);
    free(rw);
    free(f.F);
    free(inc);
    return st;
}
