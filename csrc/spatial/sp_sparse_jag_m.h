/* sp_sparse_jag_m.h -- the jagged methods on a sparse matrix (the FN(sparse_t) of sp_sparse.h),
 * rows first (the columns-first orientation runs on the transposed arrays), without the dense
 * prefix: JAG-M-HEUR, JAG-M-HEUR-PROBE, JAG-M-PROBE (Sec. 3.2.2 of Saule et al. 2012),
 * JAG-PQ-OPT (Nicol's search and the DP, Sec. 3.2.1), JAG-M-ALLOC and JAG-M-OPT. The kernels
 * are the dense ones (FN(alloc), FN(probe_counts), FN(emit_stripes), the nested 1D optimum of
 * sp_jag_pq.h, SP_MOPT_SEARCH of sp_jag_m_opt.h) with the stripes read through FN(sp_use): a
 * stripe's column prefix is the scatter of its rows' nonzeros and a running sum (O(nnz in the
 * stripe + n2), the dense prefix's O(n2)); JAG-M-OPT's DP grows a stripe's column sums in a
 * Fenwick tree instead. The same searches on the same values give the same optimum, and integer
 * loads the dense partition bit for bit (float loads the same partition for A and A.toarray(),
 * which take the same path: see wpart/spatial/_sparse.py). Memory O(nnz + n1 + n2) and the memo
 * of the nested costs.
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

/* JAG-M-PROBE for the stripes R[0..P]: FN(probe_counts) on a table of the non-empty stripes'
 * column prefixes made once from their nonzeros, then the stripes cut; rw = the row prefix */
static wpart_status_t FN(spm_probe)(FN(ctx_t) *cx, const FN(sparse_t) *a, const T *rw,
                                    const int64_t *R, int64_t P, int64_t m, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    int64_t n2 = a->n2, w = n2 + 1, ne = 0;
    int64_t *cnt = wpart_i_malloc(P, sizeof(int64_t));
    int64_t *row = wpart_i_malloc(P, sizeof(int64_t));
    T *tab = NULL;
    if (!cnt || !row) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in JAG-M-PROBE (sparse)");
    }
    for (int64_t p = 0; p < P; p++) {
        row[p] = R[p] < R[p + 1] ? ne++ : -1;
    }
    tab = FN(sp_alloc_table)(ne > 0 ? ne : 1, w);
    if (!tab) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in JAG-M-PROBE (sparse): %" PRId64
                   " stripe prefixes of %" PRId64 " columns", ne, w);
    }
    for (int64_t p = 0; p < P; p++) {
        if (row[p] >= 0) {
            FN(sp_stripe_w)(a, R[p], R[p + 1], tab + row[p] * w);
        }
    }
    FN(stripes_t) sx = {NULL, tab, w, row};
    WPART_CHECK(FN(probe_counts)(cx, &sx, R, P, m, n2, rw[a->n1], cnt));
    WPART_CHECK(FN(emit_stripes)(cx, R, P, cnt, 0, out));
cleanup:
    free(cnt);
    free(row);
    free(tab);
    return st;
}

/* JAG-M-HEUR (probe = 0), JAG-M-HEUR-PROBE (1) or JAG-M-PROBE for the given cuts (cuts != NULL)
 * rows first on `a`; *lmax = the max load, *Pout = the stripe count */
static wpart_status_t FN(sp_jag_m)(const FN(ctx_t) *cx0, const FN(sparse_t) *a, int64_t m,
                                   int probe, const int64_t *cuts, int64_t ncuts, int64_t *out,
                                   T *lmax, int64_t *Pout)
{
    wpart_status_t st = WPART_OK;
    FN(ctx_t) cx = *cx0;
    FN(sp_use)(&cx, a);
    cx.emit_max = 0;
    int64_t n1 = a->n1, n2 = a->n2;
    int64_t P = cuts ? ncuts - 1 : FN(default_P)(&cx, m);
    T *rw = wpart_i_malloc(n1 + 1, sizeof(T));
    int64_t *R = cuts ? NULL : wpart_i_malloc(P + 1, sizeof(int64_t));
    int64_t *cnt = wpart_i_malloc(P, sizeof(int64_t));
    int64_t *cap = wpart_i_malloc(P, sizeof(int64_t));
    T *L = wpart_i_malloc(P, sizeof(T));
    if (!rw || (!cuts && !R) || !cnt || !cap || !L) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in the m-way jagged heuristic (sparse)");
    }
    *Pout = P;
    FN(sp_rows_w)(a, rw);
    if (!cuts) {
        WPART_CHECK(FN(opt1d)(&cx, rw, n1, P, R, NULL));
    }
    const int64_t *RR = cuts ? cuts : R;
    if (probe) {
        WPART_CHECK(FN(spm_probe)(&cx, a, rw, RR, P, m, out));
    } else {
        for (int64_t p = 0; p < P; p++) {
            L[p] = rw[RR[p + 1]] - rw[RR[p]];
            cap[p] = n2 * (RR[p + 1] - RR[p]) > 0 ? n2 : 1;
        }
        WPART_CHECK(FN(alloc)(L, P, m, cap, cnt, cx.opt->control, cx.t0));
        WPART_CHECK(FN(emit_stripes)(&cx, RR, P, cnt, 0, out));
    }
    *lmax = cx.emit_max;
cleanup:
    free(rw);
    free(R);
    free(cnt);
    free(cap);
    free(L);
    return st;
}

/* JAG-PQ-OPT rows-first on `a`; *lmax = the max load */
static wpart_status_t FN(sp_jag_pq_opt)(FN(ctx_t) *cx, const FN(sparse_t) *a, int64_t P,
                                        int64_t Q, int use_dp, int64_t *out, T *lmax)
{
    FN(sp_use)(cx, a);
    cx->emit_max = 0;
    wpart_status_t st = FN(jag_pq_opt)(cx, P, Q, use_dp, out);
    *lmax = cx->emit_max;
    return st;
}

/* JAG-M-ALLOC rows-first on `a` for the counts Qp[0..P) */
static wpart_status_t FN(sp_jag_m_alloc)(FN(ctx_t) *cx, const FN(sparse_t) *a, const int64_t *Qp,
                                         int64_t P, int64_t *out)
{
    FN(sp_use)(cx, a);
    return FN(jag_m_alloc)(cx, Qp, P, out);
}

/* ---- JAG-M-OPT (Sec. 3.2.2) on the sparse matrix. The feasibility DP (SP_MOPT_SEARCH, shared with the dense code)
 * grows the stripe [k, i) one row at a time as k decreases, so the stripe's column sums live in
 * a Fenwick tree over the columns, rows added when a piece count needs them: adding row k
 * costs O(its nonzeros log n2), each piece of the
 * greedy count is one descent of the tree (O(log n2)), and the tree is cleared along the same
 * paths before the next i. The incumbent (JAG-M-HEUR-PROBE) and the final JAG-M-PROBE on the
 * optimal stripes are the sparse ones (above). Memory O(nnz + n1 + n2). Integer
 * loads give the dense DP's decisions, hence its optimum and partition; float loads are summed
 * in another order (the same optimum up to rounding).
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
