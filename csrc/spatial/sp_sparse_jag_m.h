/* sp_sparse_jag_m.h -- the m-way jagged heuristics JAG-M-HEUR, JAG-M-HEUR-PROBE and JAG-M-PROBE
 * (Sec. 3.2.2 of Saule et al. 2012) on a sparse matrix (the FN(sparse_t) of sp_sparse.h),
 * rows first (the columns-first orientation runs on the transposed arrays). A stripe's column
 * prefix is the scatter of its rows' nonzeros and a running sum (O(nnz in the stripe + n2));
 * the stripes, the proportional allocation, the PROBE-M bisection and the final 1D cuts are
 * those of sp_jag_m.h step for step on the same values, so integer loads give the dense
 * partition bit for bit (and float loads the same partition for A and A.toarray(), which take
 * the same path: see wpart/spatial/_sparse.py).
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

/* scratch of one sparse m-way jagged run */
typedef struct {
    T *W;         /* n2 + 1: one stripe's column prefix */
    T *rw;        /* n1 + 1: the row prefix */
    int64_t *sep; /* max(m, n1, n2) + 2 */
} FN(spm_t);

/* stripe rows [r0, r1) cut optimally into q column pieces (FN(split_stripe)); rects written
 * when out != NULL, *val = the heaviest piece */
static wpart_status_t FN(spm_split)(FN(ctx_t) *cx, const FN(sparse_t) *a, FN(spm_t) *s,
                                    int64_t r0, int64_t r1, int64_t q, int64_t *out, T *val)
{
    FN(sp_stripe_w)(a, r0, r1, s->W);
    wpart_status_t st = FN(opt1d)(cx, s->W, a->n2, q, s->sep, val);
    if (st == WPART_OK && out) {
        FN(emit_pieces)(r0, r1, s->sep, q, out);
    }
    return st;
}

/* every stripe R[p]..R[p+1] cut into cnt[p] pieces (FN(emit_stripes)); *lmax = the heaviest */
static wpart_status_t FN(spm_emit)(FN(ctx_t) *cx, const FN(sparse_t) *a, FN(spm_t) *s,
                                   const int64_t *R, int64_t P, const int64_t *cnt, int64_t *out,
                                   T *lmax)
{
    T best = 0;
    for (int64_t p = 0; p < P; p++) {
        T val = 0;
        if (cnt[p] == 0) {
            continue;
        }
        wpart_status_t st = FN(spm_split)(cx, a, s, R[p], R[p + 1], cnt[p], out, &val);
        if (st != WPART_OK) {
            return st;
        }
        best = val > best ? val : best;
        out += 4 * cnt[p];
        if ((p & 63) == 63) {
            st = wpart_i_poll(cx->opt->control, cx->t0, (double)p, (double)P);
            if (st != WPART_OK) {
                return st;
            }
        }
    }
    *lmax = best;
    return WPART_OK;
}

/* greedy piece count of one stripe (column prefix Wp[0..n]) at bottleneck B, at most `limit`
 * pieces (FN(stripe_count)): the count, limit + 1 when more are needed, -1 when one column
 * exceeds B */
static int64_t FN(spm_count)(const T *Wp, int64_t n, T B, int64_t limit)
{
#define COLW(x) (Wp[(x)])
    SP_GREEDY_COUNT(COLW, n, B, limit);
#undef COLW
}

/* PROBE-M on the table of the non-empty stripes (row k of width w for the stripe row[p]) */
static int FN(spm_probe_ok)(const T *tab, int64_t w, const int64_t *row, const int64_t *R,
                            int64_t P, int64_t m, T B)
{
#define COUNT(p, limit) FN(spm_count)(tab + row[p] * w, w - 1, B, limit)
    SP_PROBE_M(COUNT, R, P, m);
#undef COUNT
}

/* JAG-M-PROBE for the stripes R[0..P] (FN(m_probe_core) step for step) */
static wpart_status_t FN(spm_probe)(FN(ctx_t) *cx, const FN(sparse_t) *a, FN(spm_t) *s,
                                    const int64_t *R, int64_t P, int64_t m, int64_t *out,
                                    T *lmax)
{
    wpart_status_t st = WPART_OK;
    int64_t n2 = a->n2, w = n2 + 1, ne = 0;
    int64_t *cnt = wpart_i_malloc(P, sizeof(int64_t));
    int64_t *cap = wpart_i_malloc(P, sizeof(int64_t));
    int64_t *row = wpart_i_malloc(P, sizeof(int64_t));
    T *val = wpart_i_malloc(P, sizeof(T));
    T *L = wpart_i_malloc(P, sizeof(T));
    T *tab = NULL;
    if (!cnt || !cap || !row || !val || !L) {
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
            L[p] = tab[row[p] * w + n2];
        } else {
            L[p] = 0;
        }
        cap[p] = R[p] < R[p + 1] ? n2 : 1;
    }
    T tot = s->rw[a->n1];
#if IS_INT
    int64_t lo = FN(ceil_div)(tot, m);
#else
    int64_t lo = 0;
#endif
    int64_t hi = FN(key)(tot);
    {
        WPART_CHECK(FN(alloc)(L, P, m, cap, cnt, cx->opt->control, cx->t0));
        T ub = 0;
        for (int64_t p = 0; p < P; p++) {
            if (row[p] < 0) {
                continue;
            }
            const T *Wp = tab + row[p] * w;
            T colmax = 0;
            for (int64_t j = 0; j < n2; j++) {
                T c = Wp[j + 1] - Wp[j];
                colmax = c > colmax ? c : colmax;
            }
            T b = FN(ceil_div)(L[p], cnt[p]);
            b = colmax > tot - b ? tot : b + colmax;
            ub = b > ub ? b : ub;
        }
#if !IS_INT
        ub *= 1.0 + 1e-9;
#endif
        if (ub < tot && FN(spm_probe_ok)(tab, w, row, R, P, m, ub)) {
            hi = FN(key)(ub);
        }
    }
#if !IS_INT
    {
        double b = FN(unkey)(hi);
        double eps = tot * 1e-12 + 1e-300;
        while (!FN(spm_probe_ok)(tab, w, row, R, P, m, b)) {
            b = b * (1.0 + 1e-9) + eps;
            eps *= 2;
        }
        hi = FN(key)(b);
    }
#endif
    if (lo > hi) {
        lo = hi;
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int ok = FN(spm_probe_ok)(tab, w, row, R, P, m, FN(unkey)(mid));
        cx->stats->probes++;
        if (ok) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    T Bs = FN(unkey)(lo);
    int64_t used = 0;
    for (int64_t p = 0; p < P; p++) {
        cnt[p] = row[p] < 0 ? 1 : FN(spm_count)(tab + row[p] * w, n2, Bs, m);
        if (cnt[p] < 1) {
            WPART_FAIL(WPART_EINTERNAL, "JAG-M-PROBE: infeasible optimum");
        }
        used += cnt[p];
    }
    if (used > m) {
        WPART_FAIL(WPART_EINTERNAL, "JAG-M-PROBE: optimum uses too many parts");
    }
    if (used < m) {
        for (int64_t p = 0; p < P; p++) {
            WPART_CHECK(FN(spm_split)(cx, a, s, R[p], R[p + 1], cnt[p], NULL, &val[p]));
        }
        for (; used < m; used++) {
            int64_t kb = -1;
            for (int64_t p = 0; p < P; p++) {
                if (cnt[p] >= n2 || R[p] == R[p + 1]) {
                    continue;
                }
                if (kb < 0 || val[p] > val[kb]) {
                    kb = p;
                }
            }
            if (kb < 0) {
                cnt[0] += m - used;
                break;
            }
            cnt[kb]++;
            WPART_CHECK(FN(spm_split)(cx, a, s, R[kb], R[kb + 1], cnt[kb], NULL, &val[kb]));
            if ((used & 255) == 0) {
                WPART_CHECK(wpart_i_poll(cx->opt->control, cx->t0, 0, 0));
            }
        }
    }
    WPART_CHECK(FN(spm_emit)(cx, a, s, R, P, cnt, out, lmax));
cleanup:
    free(cnt);
    free(cap);
    free(row);
    free(val);
    free(L);
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
    cx.v.n1 = a->n1;
    cx.v.n2 = a->n2;
    int64_t n1 = a->n1, n2 = a->n2;
    int64_t big = n1 > n2 ? n1 : n2;
    big = big > m ? big : m;
    int64_t P = cuts ? ncuts - 1 : FN(default_P)(&cx, m);
    FN(spm_t) s = {wpart_i_malloc(n2 + 1, sizeof(T)), wpart_i_malloc(n1 + 1, sizeof(T)),
                   wpart_i_malloc(big + 2, sizeof(int64_t))};
    int64_t *R = cuts ? NULL : wpart_i_malloc(P + 1, sizeof(int64_t));
    int64_t *cnt = wpart_i_malloc(P, sizeof(int64_t));
    int64_t *cap = wpart_i_malloc(P, sizeof(int64_t));
    T *L = wpart_i_malloc(P, sizeof(T));
    if (!s.W || !s.rw || !s.sep || (!cuts && !R) || !cnt || !cap || !L) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in the m-way jagged heuristic (sparse)");
    }
    *Pout = P;
    FN(sp_rows_w)(a, s.rw);
    if (!cuts) {
        WPART_CHECK(FN(opt1d)(&cx, s.rw, n1, P, R, NULL));
    }
    const int64_t *RR = cuts ? cuts : R;
    if (probe) {
        WPART_CHECK(FN(spm_probe)(&cx, a, &s, RR, P, m, out, lmax));
    } else {
        for (int64_t p = 0; p < P; p++) {
            L[p] = s.rw[RR[p + 1]] - s.rw[RR[p]];
            cap[p] = n2 * (RR[p + 1] - RR[p]) > 0 ? n2 : 1;
        }
        WPART_CHECK(FN(alloc)(L, P, m, cap, cnt, cx.opt->control, cx.t0));
        WPART_CHECK(FN(spm_emit)(&cx, a, &s, RR, P, cnt, out, lmax));
    }
cleanup:
    free(s.W);
    free(s.rw);
    free(s.sep);
    free(R);
    free(cnt);
    free(cap);
    free(L);
    return st;
}
