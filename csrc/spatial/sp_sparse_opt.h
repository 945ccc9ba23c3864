/* sp_sparse_opt.h -- JAG-PQ-OPT (Nicol's search and the DP, Sec. 3.2.1 of Saule et al. 2012) and
 * JAG-M-ALLOC (Sec. 3.2.2) on a sparse matrix (CSR + CSC), without the dense prefix: the nested cost f(a, b), the exact 1D
 * optimum of the stripe [a, b) cut into Q pieces, reads the stripe's column prefix made from
 * its rows' nonzeros (O(nnz in the stripe + n2), the dense code's O(n2)), memoised as in the
 * dense code, which runs the same search on the same values: the same optimum, and with integer
 * loads the same partition bit for bit. Memory O(nnz + n1 + n2) and the memo of f.
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

typedef struct {
    FN(ctx_t) *cx;
    const FN(sparse_t) *a;
    T *W;         /* n2 + 1 */
    int64_t *sep; /* Q + 2 */
} FN(sp_nested_t);

/* f(r0, r1) for q pieces: the nested cost's evaluation (FN(nested_t).eval) */
static wpart_status_t FN(sp_stripe_opt)(void *ctx, int64_t q, int64_t r0, int64_t r1, T *val)
{
    FN(sp_nested_t) *s = ctx;
    FN(sp_stripe_w)(s->a, r0, r1, s->W);
    return FN(opt1d)(s->cx, s->W, s->a->n2, q, s->sep, val);
}

/* JAG-PQ-OPT rows-first on `a` (FN(jag_pq_opt) of sp_jag_pq.h); *lmax = the max load */
static wpart_status_t FN(sp_jag_pq_opt)(FN(ctx_t) *cx, const FN(sparse_t) *a, int64_t P,
                                        int64_t Q, int use_dp, int64_t *out, T *lmax)
{
    wpart_status_t st = WPART_OK;
    FN(nested_t) nc;
    int nc_ok = 0;
    int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
    int64_t *sep = wpart_i_malloc(Q + 2, sizeof(int64_t));
    T *W = wpart_i_malloc(a->n2 + 1, sizeof(T));
    T best = 0;
    if (!R || !sep || !W) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in JAG-PQ-OPT (sparse)");
    }
    cx->v.n1 = a->n1;
    cx->v.n2 = a->n2;
    FN(sp_nested_t) sn = {cx, a, W, sep};
    WPART_CHECK(FN(nested_init)(&nc, cx, Q, NULL));
    nc_ok = 1;
    nc.eval = FN(sp_stripe_opt);
    nc.ectx = &sn;
    WPART_CHECK(FN(jag_pq_opt_cuts)(cx, &nc, P, use_dp, R));
    for (int64_t p = 0; p < P; p++) { /* FN(emit_stripes) */
        T val = 0;
        FN(sp_stripe_w)(a, R[p], R[p + 1], W);
        WPART_CHECK(FN(opt1d)(cx, W, a->n2, Q, sep, &val));
        FN(emit_pieces)(R[p], R[p + 1], sep, Q, out + 4 * p * Q);
        best = val > best ? val : best;
    }
    *lmax = best;
cleanup:
    if (nc_ok) {
        FN(nested_free)(&nc);
    }
    free(R);
    free(sep);
    free(W);
    return st;
}

/* JAG-M-ALLOC rows-first on `a` for the counts Qp[0..P) (FN(jag_m_alloc) of sp_jag_m.h) */
static wpart_status_t FN(sp_jag_m_alloc)(FN(ctx_t) *cx, const FN(sparse_t) *a, const int64_t *Qp,
                                         int64_t P, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    FN(nested_t) nc;
    int nc_ok = 0;
    int64_t qmax = 1;
    for (int64_t p = 0; p < P; p++) {
        qmax += Qp[p]; /* a stripe may receive its empty neighbours' parts */
    }
    int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
    int64_t *cnt = wpart_i_malloc(P, sizeof(int64_t));
    int64_t *sep = wpart_i_malloc(qmax + 1, sizeof(int64_t));
    T *W = wpart_i_malloc(a->n2 + 1, sizeof(T));
    if (!R || !cnt || !sep || !W) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in JAG-M-ALLOC (sparse)");
    }
    cx->v.n1 = a->n1;
    cx->v.n2 = a->n2;
    FN(sp_nested_t) sn = {cx, a, W, sep};
    WPART_CHECK(FN(nested_init)(&nc, cx, 0, Qp));
    nc_ok = 1;
    nc.eval = FN(sp_stripe_opt);
    nc.ectx = &sn;
    WPART_CHECK(FN(jag_m_alloc_cuts)(cx, &nc, Qp, P, R, cnt));
    for (int64_t p = 0; p < P; p++) { /* FN(emit_stripes) with the counts */
        if (cnt[p] == 0) {
            continue;
        }
        FN(sp_stripe_w)(a, R[p], R[p + 1], W);
        WPART_CHECK(FN(opt1d)(cx, W, a->n2, cnt[p], sep, NULL));
        FN(emit_pieces)(R[p], R[p + 1], sep, cnt[p], out);
        out += 4 * cnt[p];
    }
cleanup:
    if (nc_ok) {
        FN(nested_free)(&nc);
    }
    free(R);
    free(cnt);
    free(sep);
    free(W);
    return st;
}
