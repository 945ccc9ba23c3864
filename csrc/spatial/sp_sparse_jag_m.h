/* sp_sparse_jag_m.h -- the m-way jagged heuristics JAG-M-HEUR, JAG-M-HEUR-PROBE and JAG-M-PROBE
 * (Sec. 3.2.2 of Saule et al. 2012) on a sparse matrix (the FN(sparse_t) of sp_sparse.h),
 * rows first (the columns-first orientation runs on the transposed arrays). The kernels are the
 * dense ones of sp_jag_m.h (FN(alloc), FN(probe_counts), FN(emit_stripes)) with the stripes read
 * through FN(sp_use): a stripe's column prefix is the scatter of its rows' nonzeros and a
 * running sum (O(nnz in the stripe + n2)), so integer loads give the dense partition bit for
 * bit (and float loads the same partition for A and A.toarray(), which take the same path: see
 * wpart/spatial/_sparse.py).
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
