/* sp_sparse_opt.h -- JAG-PQ-OPT (Nicol's search and the DP, Sec. 3.2.1 of Saule et al. 2012) and
 * JAG-M-ALLOC (Sec. 3.2.2) on a sparse matrix (CSR + CSC), without the dense prefix: the dense
 * kernels FN(jag_pq_opt) and FN(jag_m_alloc) themselves, their stripes read through
 * FN(sp_use) (a stripe's column prefix made from its rows' nonzeros, O(nnz in the stripe +
 * n2), the dense prefix's O(n2)): the same search on the same values, so the same optimum, and
 * with integer loads the same partition bit for bit. Memory O(nnz + n1 + n2) and the memo of
 * the nested costs.
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

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
