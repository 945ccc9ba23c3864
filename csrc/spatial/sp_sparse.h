/* sp_sparse.h -- the spatial methods on a sparse matrix given by its rows (CSR) and its columns
 * (CSC), without the dense prefix (Secs. 3.1 and 3.2 of Saule et al. 2012). The jagged methods
 * are the dense kernels reading the nonzeros through FN(ctx_t).sp (sp_common.h): a stripe's
 * prefix over the other dimension is a scatter of its rows' nonzeros and a running sum, so
 * JAG-PQ-HEUR costs O(nnz + P n2) against O(n1 n2) for the dense prefix alone, and the
 * orientations are those of FN(run_orients) with the two arrays swapped. RECT-NICOL sweeps over
 * tables of its stripes' prefixes, O(nnz + P n2 + Q n1) a sweep. The decisions are those of the
 * dense code (same probes, bisections and 1D optima on the same values), so integer loads give
 * the same partition bit for bit.
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

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
    memset(&cx, 0, sizeof cx);
    cx.opt = opt;
    cx.stats = stats;
    cx.t0 = wpart_i_now();
    cx.v.n1 = a->n1;
    cx.v.n2 = a->n2;
    cx.sp = a;
    stats->P = opt->P;
    WPART_CHECK(FN(ctx_alloc)(&cx, m));
    if (opt->method == WPART_SP_RECT_UNIFORM || opt->method == WPART_SP_RECT_NICOL) {
        st = FN(run_rect)(&cx, m, rects);
    } else { /* the jagged methods: the dense kernels on the nonzeros */
        /* JAG-PQ-HEUR in one orientation: the pieces' loads as emitted (integer loads: exact) */
        int one = opt->orient != WPART_SP_BEST;
        cx.emit_loads = IS_INT && one && opt->method == WPART_SP_JAG_PQ_HEUR ? loads : NULL;
        *loads_done = cx.emit_loads != NULL;
        st = FN(run_orients)(&cx, m, rects);
    }
cleanup:
    stats->seconds = wpart_i_now() - cx.t0;
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
