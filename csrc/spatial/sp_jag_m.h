/* sp_jag_m.h -- m-way jagged heuristics: JAG-M-HEUR (Sec. 3.2.2 of Saule et al. 2012), JAG-M-PROBE and
 * JAG-M-HEUR-PROBE (3.8), JAG-M-ALLOC (3.9), and the processor-speed versions of the
 * heuristics and of PROBE (processors in order, stripe by stripe).
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

static int64_t FN(default_P)(const FN(ctx_t) *cx, int64_t m)
{
    int64_t P = cx->opt->P;
    if (P <= 0) {
        P = (int64_t)floor(sqrt((double)m));
        while (P * P > m) {
            P--;
        }
        while ((P + 1) * (P + 1) <= m) {
            P++;
        }
        int64_t need = (m + cx->v.n2 - 1) / cx->v.n2;
        if (P < need) {
            P = need;
        }
    }
    if (P > cx->v.n1) {
        P = cx->v.n1;
    }
    if (P > m) {
        P = m;
    }
    if (P < 1) {
        P = 1;
    }
    return P;
}

/* the P stripes R[0..P] of the exact 1D partition of the row loads; cx->W keeps the row prefix */
static wpart_status_t FN(stripes_from_rows)(FN(ctx_t) *cx, int64_t P, int64_t *R)
{
    FN(row_prefix)(cx, cx->W);
    return FN(opt1d)(cx, cx->W, cx->v.n1, P, R, NULL);
}

static wpart_status_t FN(jag_m_heur)(FN(ctx_t) *cx, int64_t m, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    int64_t P = FN(default_P)(cx, m);
    int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
    int64_t *cnt = wpart_i_malloc(P, sizeof(int64_t));
    int64_t *cap = wpart_i_malloc(P, sizeof(int64_t));
    T *L = wpart_i_malloc(P, sizeof(T));
    if (!R || !cnt || !cap || !L) {
        WPART_FAIL(WPART_ENOMEM, "out of memory");
    }
    cx->stats->P = P;
    WPART_CHECK(FN(stripes_from_rows)(cx, P, R));
    for (int64_t p = 0; p < P; p++) {
        L[p] = FN(rows_load)(cx, cx->W, R[p], R[p + 1]);
        cap[p] = cx->v.n2 * (R[p + 1] - R[p]) > 0 ? cx->v.n2 : 1;
    }
    WPART_CHECK(FN(alloc)(L, P, m, cap, cnt, cx->opt->control, cx->t0));
    WPART_CHECK(FN(emit_stripes)(cx, R, P, cnt, 0, out));
cleanup:
    free(R);
    free(cnt);
    free(cap);
    free(L);
    return st;
}

#ifndef SP_GREEDY_COUNT
/* The body of a greedy piece count over columns 0..n at bottleneck B, at most `limit` pieces,
 * with COLW(x) the column prefix of the stripe at x (the dense prefix difference or the sparse
 * stripe's own prefix): returns the count, limit + 1 when more are needed, or -1 when one
 * column exceeds B. Written once as a macro so that each caller keeps its inlined load. */
#define SP_GREEDY_COUNT(COLW, n, B, limit)                                                   \
    do {                                                                                     \
        int64_t t_ = 0, cnt_ = 0;                                                            \
        while (t_ < (n)) {                                                                   \
            T wt_ = COLW(t_);                                                                \
            int64_t lo_ = t_, hi_;                                                           \
            int64_t step_ = 1; /* galloping from t, then binary search */                    \
            while (lo_ + step_ <= (n) && COLW(lo_ + step_) - wt_ <= (B)) {                   \
                lo_ += step_;                                                                \
                step_ *= 2;                                                                  \
            }                                                                                \
            hi_ = lo_ + step_ - 1 < (n) ? lo_ + step_ - 1 : (n);                             \
            while (lo_ < hi_) {                                                              \
                int64_t mid_ = lo_ + (hi_ - lo_ + 1) / 2;                                    \
                if (COLW(mid_) - wt_ <= (B)) {                                               \
                    lo_ = mid_;                                                              \
                } else {                                                                     \
                    hi_ = mid_ - 1;                                                          \
                }                                                                            \
            }                                                                                \
            if (lo_ == t_) {                                                                 \
                return -1;                                                                   \
            }                                                                                \
            if (++cnt_ > (limit)) {                                                          \
                return (limit) + 1;                                                          \
            }                                                                                \
            t_ = lo_;                                                                        \
        }                                                                                    \
        return cnt_;                                                                         \
    } while (0)

/* The body of PROBE-M (3.8): can the stripes R[0..P] be cut into at most m pieces of load
 * <= B, with COUNT(p, limit) the greedy count of the non-empty stripe p. */
#define SP_PROBE_M(COUNT, R, P, m)                                                           \
    do {                                                                                     \
        int64_t used_ = 0;                                                                   \
        for (int64_t p_ = 0; p_ < (P); p_++) {                                               \
            if ((R)[p_] == (R)[p_ + 1]) {                                                    \
                used_++;                                                                     \
            } else {                                                                         \
                int64_t c_ = COUNT(p_, (m) - used_);                                         \
                if (c_ < 0 || c_ > (m) - used_) {                                            \
                    return 0;                                                                \
                }                                                                            \
                used_ += c_;                                                                 \
            }                                                                                \
            if (used_ > (m)) {                                                               \
                return 0;                                                                    \
            }                                                                                \
        }                                                                                    \
        return 1;                                                                            \
    } while (0)
#endif

/* greedy piece count of stripe rows [a, b) at bottleneck B, at most `limit` pieces:
 * returns the count, limit + 1 when more are needed, or -1 when one column exceeds B */
static int64_t FN(stripe_count)(const FN(view_t) *v, int64_t a, int64_t b, T B, int64_t limit)
{
    const T *Sa = v->S + a * v->s0, *Sb = v->S + b * v->s0;
    int64_t n = v->n2, s1 = v->s1;
#define COLW(x) (Sb[(x) * s1] - Sa[(x) * s1])
    SP_GREEDY_COUNT(COLW, n, B, limit);
#undef COLW
}

/* greedy piece count of a stripe whose column prefix is Wp[0..n] (a sparse stripe's own
 * prefix): as FN(stripe_count) */
static int64_t FN(prefix_count)(const T *Wp, int64_t n, T B, int64_t limit)
{
#define COLW(x) (Wp[(x)])
    SP_GREEDY_COUNT(COLW, n, B, limit);
#undef COLW
}

/* The stripes R[p]..R[p+1] as PROBE-M reads them, one interface for a dense and a sparse
 * matrix: a stripe's column prefix is the difference of two rows of the dense prefix (v), or
 * row row[p] (width w, -1: an empty stripe) of a table made once from the stripes' nonzeros
 * (tab), since the bisection reads every stripe many times. */
typedef struct {
    const FN(view_t) *v; /* dense, or NULL */
    const T *tab;        /* sparse: the non-empty stripes' column prefixes */
    int64_t w;
    const int64_t *row;
} FN(stripes_t);

static int64_t FN(st_count)(const FN(stripes_t) *s, const int64_t *R, int64_t p, T B,
                            int64_t limit)
{
    if (s->tab) {
        return FN(prefix_count)(s->tab + s->row[p] * s->w, s->w - 1, B, limit);
    }
    return FN(stripe_count)(s->v, R[p], R[p + 1], B, limit);
}

/* PROBE-M (3.8): can the stripes R be cut into at most m pieces of load <= B? */
static int FN(st_probe_ok)(const FN(stripes_t) *s, const int64_t *R, int64_t P, int64_t m, T B)
{
#define COUNT(p, limit) FN(st_count)(s, R, p, B, limit)
    SP_PROBE_M(COUNT, R, P, m);
#undef COUNT
}

/* the load of stripe p and its heaviest column */
static void FN(st_load)(const FN(stripes_t) *s, const int64_t *R, int64_t p, int64_t n2, T *load,
                        T *colmax)
{
    T cm = 0;
    if (s->tab) {
        const T *Wp = s->tab + s->row[p] * s->w;
        *load = Wp[n2];
        for (int64_t j = 0; colmax && j < n2; j++) {
            T c = Wp[j + 1] - Wp[j];
            cm = c > cm ? c : cm;
        }
    } else {
        const FN(view_t) *v = s->v;
        const T *Sa = v->S + R[p] * v->s0, *Sb = v->S + R[p + 1] * v->s0;
        *load = FN(load)(v, R[p], R[p + 1], 0, n2);
        for (int64_t j = 0; colmax && j < n2; j++) {
            T c = (Sb[(j + 1) * v->s1] - Sa[(j + 1) * v->s1]) - (Sb[j * v->s1] - Sa[j * v->s1]);
            cm = c > cm ? c : cm;
        }
    }
    if (colmax) {
        *colmax = cm;
    }
}

/* JAG-M-PROBE's part counts cnt[0..P) for the stripes R[0..P] of an n2-column matrix of total
 * tot: bisection on the bottleneck with PROBE-M, then the parts left over each to the stripe
 * whose heaviest piece is the heaviest. Written once for the dense and the sparse input. */
static wpart_status_t FN(probe_counts)(FN(ctx_t) *cx, const FN(stripes_t) *s, const int64_t *R,
                                       int64_t P, int64_t m, int64_t n2, T tot, int64_t *cnt)
{
    wpart_status_t st = WPART_OK;
    T *val = wpart_i_malloc(P, sizeof(T));
    T *L = wpart_i_malloc(P, sizeof(T));
    T *cmax = wpart_i_malloc(P, sizeof(T));
    int64_t *cap = wpart_i_malloc(P, sizeof(int64_t));
    if (!val || !L || !cmax || !cap) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in JAG-M-PROBE");
    }
#if IS_INT
    int64_t lo = FN(ceil_div)(tot, m);
#else
    int64_t lo = 0;
#endif
    int64_t hi = FN(key)(tot);
    /* tighter upper bound: with the proportional counts Q_p, DirectCut's argument makes
     * B = max_p (L_p / Q_p + heaviest column of stripe p) feasible */
    {
        for (int64_t p = 0; p < P; p++) {
            L[p] = cmax[p] = 0;
            if (R[p] < R[p + 1]) {
                FN(st_load)(s, R, p, n2, &L[p], &cmax[p]);
            }
            cap[p] = R[p] < R[p + 1] ? n2 : 1;
        }
        WPART_CHECK(FN(alloc)(L, P, m, cap, cnt, cx->opt->control, cx->t0));
        T ub = 0;
        for (int64_t p = 0; p < P; p++) {
            if (R[p] == R[p + 1]) {
                continue;
            }
            T b = FN(ceil_div)(L[p], cnt[p]);
            b = cmax[p] > tot - b ? tot : b + cmax[p]; /* no int64 overflow near the limit */
            ub = b > ub ? b : ub;
        }
#if !IS_INT
        ub *= 1.0 + 1e-9;
#endif
        if (ub < tot && FN(st_probe_ok)(s, R, P, m, ub)) {
            hi = FN(key)(ub);
        }
    }
#if !IS_INT
    /* loads read along different prefix paths differ by rounding: make sure hi is feasible */
    {
        double b = FN(unkey)(hi);
        double eps = tot * 1e-12 + 1e-300;
        while (!FN(st_probe_ok)(s, R, P, m, b)) {
            b = b * (1.0 + 1e-9) + eps;
            eps *= 2;
            WPART_CHECK(wpart_i_poll(cx->opt->control, cx->t0, 0, 0));
        }
        hi = FN(key)(b);
    }
#endif
    if (lo > hi) {
        lo = hi;
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int ok = FN(st_probe_ok)(s, R, P, m, FN(unkey)(mid));
        cx->stats->probes++;
        /* Ctrl-C and the time limit between probes: one is O(m log n2) (45 ms at 12000^2,
         * m = 2^18; the bisection, unpolled, was 0.7 s of it) */
        WPART_CHECK(wpart_i_poll(cx->opt->control, cx->t0, 0, 0));
        if (ok) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    T Bs = FN(unkey)(lo);
    int64_t used = 0;
    for (int64_t p = 0; p < P; p++) {
        cnt[p] = R[p] == R[p + 1] ? 1 : FN(st_count)(s, R, p, Bs, m);
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
            WPART_CHECK(FN(split_stripe)(cx, R[p], R[p + 1], cnt[p], NULL, &val[p]));
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
            if (kb < 0) { /* every stripe full: the rest (empty parts) to stripe 0 at once */
                cnt[0] += m - used;
                break;
            }
            cnt[kb]++;
            WPART_CHECK(FN(split_stripe)(cx, R[kb], R[kb + 1], cnt[kb], NULL, &val[kb]));
            if ((used & 255) == 0) {
                WPART_CHECK(wpart_i_poll(cx->opt->control, cx->t0, 0, 0));
            }
        }
    }
cleanup:
    free(val);
    free(L);
    free(cmax);
    free(cap);
    return st;
}

/* JAG-M-PROBE (3.8) for the stripes R[0..P]: the counts of FN(probe_counts), then the stripes
 * cut. A sparse input's stripes are read from a table of the non-empty stripes' column prefixes
 * made once from their nonzeros (O(nnz + P n2)); a dense one's from two rows of its prefix. */
static wpart_status_t FN(m_probe_core)(FN(ctx_t) *cx, const int64_t *R, int64_t P, int64_t m,
                                       int64_t *out)
{
    wpart_status_t st = WPART_OK;
    const FN(view_t) *v = &cx->v;
    int64_t n2 = v->n2, w = n2 + 1, ne = 0;
    int64_t *cnt = wpart_i_malloc(P, sizeof(int64_t));
    int64_t *row = NULL;
    T *tab = NULL;
    FN(stripes_t) s = {v, NULL, 0, NULL};
    if (!cnt) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in JAG-M-PROBE");
    }
    if (cx->sp) {
        row = wpart_i_malloc(P, sizeof(int64_t));
        if (!row) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in JAG-M-PROBE (sparse)");
        }
        for (int64_t p = 0; p < P; p++) {
            row[p] = R[p] < R[p + 1] ? ne++ : -1;
        }
        int64_t cells;
        if (wpart_i_mul_size(ne > 0 ? ne : 1, w, &cells)) {
            tab = wpart_i_malloc(cells, sizeof(T));
        }
        if (!tab) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in JAG-M-PROBE (sparse): %" PRId64
                       " stripe prefixes of %" PRId64 " columns", ne, w);
        }
        for (int64_t p = 0; p < P; p++) {
            if (row[p] >= 0) {
                FN(sp_stripe_w)(cx->sp, R[p], R[p + 1], tab + row[p] * w);
            }
        }
        s = (FN(stripes_t)){NULL, tab, w, row};
    }
    WPART_CHECK(FN(probe_counts)(cx, &s, R, P, m, n2, FN(total)(cx), cnt));
    WPART_CHECK(FN(emit_stripes)(cx, R, P, cnt, 0, out));
cleanup:
    free(cnt);
    free(row);
    free(tab);
    return st;
}

static wpart_status_t FN(jag_m_heur_probe)(FN(ctx_t) *cx, int64_t m, int64_t *out)
{
    int64_t P = FN(default_P)(cx, m);
    int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
    if (!R) {
        return wpart_i_error(WPART_ENOMEM, "out of memory");
    }
    cx->stats->P = P;
    wpart_status_t st = FN(stripes_from_rows)(cx, P, R);
    if (st == WPART_OK) {
        st = FN(m_probe_core)(cx, R, P, m, out);
    }
    free(R);
    return st;
}

/* JAG-M-ALLOC's stripes R[0..P] for the counts Qp (the nested cost read through nc: the dense
 * prefix, or cx->sp) and the counts cnt[] to cut them with: an empty stripe hands its parts
 * to the next non-empty one (else the previous) */
static wpart_status_t FN(jag_m_alloc_cuts)(FN(ctx_t) *cx, FN(nested_t) *nc, const int64_t *Qp,
                                           int64_t P, int64_t *R, int64_t *cnt)
{
    wpart_status_t st = WPART_OK;
    T B;
    WPART_CHECK(FN(gnicol)(cx, FN(nested_cost), nc, cx->v.n1, P, 0, &B, R));
    WPART_CHECK(nc->st);
    memcpy(cnt, Qp, P * sizeof(int64_t));
    for (int64_t p = 0; p < P; p++) {
        if (R[p] == R[p + 1] && cnt[p] > 0) {
            int64_t k = p + 1;
            while (k < P && R[k] == R[k + 1]) {
                k++;
            }
            if (k >= P) {
                k = p - 1;
                while (k >= 0 && R[k] == R[k + 1]) {
                    k--;
                }
            }
            if (k < 0) { /* cannot happen when n1 >= 1 */
                WPART_FAIL(WPART_EINTERNAL, "JAG-M-ALLOC: every stripe is empty");
            }
            cnt[k] += cnt[p];
            cnt[p] = 0;
        }
    }
cleanup:
    return st;
}

static wpart_status_t FN(jag_m_alloc)(FN(ctx_t) *cx, const int64_t *Qp, int64_t P, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    FN(nested_t) nc;
    int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
    int64_t *cnt = wpart_i_malloc(P, sizeof(int64_t));
    if (!R || !cnt) {
        free(R);
        free(cnt);
        return wpart_i_error(WPART_ENOMEM, "out of memory");
    }
    st = FN(nested_init)(&nc, cx, 0, Qp);
    if (st != WPART_OK) {
        free(R);
        free(cnt);
        return st;
    }
    WPART_CHECK(FN(jag_m_alloc_cuts)(cx, &nc, Qp, P, R, cnt));
    WPART_CHECK(FN(emit_stripes)(cx, R, P, cnt, 0, out));
cleanup:
    FN(nested_free)(&nc);
    free(R);
    free(cnt);
    return st;
}

/* ---- m-way jagged with processor speeds (extension): processors in order, stripe by stripe */

/* greedy: processors from *pi take the longest column intervals of stripe [a, b) with
 * load <= B * speed; returns 0 when the processors run out */
static int FN(sp_stripe_greedy)(const FN(view_t) *v, int64_t a, int64_t b, double B,
                                const double *sp, int64_t m, int64_t *pi)
{
    const T *Sa = v->S + a * v->s0, *Sb = v->S + b * v->s0;
    int64_t n = v->n2, t = 0, s1 = v->s1;
    while (t < n) {
        if (*pi >= m) {
            return 0;
        }
        double cap = B * sp[*pi];
        T wt = Sb[t * s1] - Sa[t * s1];
        int64_t lo = t, hi = n;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo + 1) / 2;
            if ((double)((Sb[mid * s1] - Sa[mid * s1]) - wt) <= cap) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        t = lo;
        (*pi)++;
    }
    return 1;
}

/* The value bisections with speeds run over the bit patterns of non-negative doubles (bits_of
 * in sp_common.h). bits_mid: the pattern in the middle of [lo, hi], its value in *B; bits_step:
 * one probe counted, [lo, hi] narrowed to the half that holds the optimum (ok: the middle is
 * feasible). */
static inline int64_t FN(bits_mid)(int64_t lo, int64_t hi, double *B)
{
    int64_t mid = lo + (hi - lo) / 2;
    memcpy(B, &mid, sizeof *B);
    return mid;
}

static inline void FN(bits_step)(FN(ctx_t) *cx, int ok, int64_t mid, int64_t *lo, int64_t *hi)
{
    cx->stats->probes++;
    if (ok) {
        *hi = mid;
    } else {
        *lo = mid + 1;
    }
}

static wpart_status_t FN(m_probe_sp)(FN(ctx_t) *cx, const int64_t *R, int64_t P, int64_t m,
                                     int64_t *out)
{
    const FN(view_t) *v = &cx->v;
    const double *sp = cx->opt->speeds;
    double smin = sp[0];
    for (int64_t k = 1; k < m; k++) {
        smin = sp[k] < smin ? sp[k] : smin;
    }
    double tot = (double)FN(load)(v, 0, v->n1, 0, v->n2);
    int64_t lo = 0, hi = FN(bits_of)(tot / smin * (1.0 + 1e-12) + 1.0);
    while (lo < hi) {
        double B;
        int64_t mid = FN(bits_mid)(lo, hi, &B);
        int64_t pi = 0;
        int ok = 1;
        for (int64_t p = 0; p < P && ok; p++) {
            if (R[p] < R[p + 1]) {
                ok = FN(sp_stripe_greedy)(v, R[p], R[p + 1], B, sp, m, &pi);
            }
        }
        FN(bits_step)(cx, ok, mid, &lo, &hi);
    }
    double Bs = FN(bits_value)(lo);
    int64_t pi = 0, last = -1;
    int64_t *first = wpart_i_malloc(P + 1, sizeof(int64_t));
    if (!first) {
        return wpart_i_error(WPART_ENOMEM, "out of memory");
    }
    for (int64_t p = 0; p < P; p++) {
        first[p] = pi;
        if (R[p] < R[p + 1]) {
            if (!FN(sp_stripe_greedy)(v, R[p], R[p + 1], Bs, sp, m, &pi)) {
                free(first);
                return wpart_i_error(WPART_EINTERNAL, "JAG-M-PROBE (speeds): infeasible optimum");
            }
            last = p;
        }
    }
    first[P] = m; /* leftover processors join the last non-empty stripe */
    wpart_status_t st = WPART_OK;
    int64_t k = 0;
    for (int64_t p = 0; p < P && st == WPART_OK; p++) {
        if (R[p] == R[p + 1]) {
            continue;
        }
        int64_t end = p == last ? m : first[p + 1];
        /* processors of the following empty stripes belong to the next non-empty one: */
        int64_t np = p + 1;
        while (np < P && R[np] == R[np + 1]) {
            np++;
        }
        if (p != last) {
            end = first[np];
        }
        st = FN(split_stripe_sp)(cx, R[p], R[p + 1], sp + first[p], end - first[p],
                                 out + 4 * k);
        k += end - first[p];
    }
    free(first);
    return st;
}

static wpart_status_t FN(jag_m_heur_sp)(FN(ctx_t) *cx, int64_t m, int probe, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    const double *sp = cx->opt->speeds;
    int64_t P = FN(default_P)(cx, m);
    int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
    int64_t *g = wpart_i_malloc(P + 1, sizeof(int64_t));
    double *SPW = wpart_i_malloc(m + 1, sizeof(double));
    double *G = wpart_i_malloc(P, sizeof(double));
    if (!R || !g || !SPW || !G) {
        WPART_FAIL(WPART_ENOMEM, "out of memory");
    }
    cx->stats->P = P;
    /* P consecutive processor groups of about equal total speed */
    SPW[0] = 0;
    for (int64_t k = 0; k < m; k++) {
        SPW[k + 1] = SPW[k] + sp[k];
    }
    {
        wpart_1d_options_t o;
        wpart_1d_options_init(&o);
        WPART_CHECK(wpart_base_1d_f64(SPW, m, P, NULL, &o, g, NULL));
    }
    for (int64_t p = 0; p < P; p++) {
        G[p] = SPW[g[p + 1]] - SPW[g[p]];
    }
    FN(rows_w)(&cx->v, cx->W);
    WPART_CHECK(FN(base1d_sp)(cx->W, cx->v.n1, P, G, cx->opt->control, R));
    if (probe) {
        WPART_CHECK(FN(m_probe_sp)(cx, R, P, m, out));
    } else {
        for (int64_t p = 0; p < P; p++) {
            WPART_CHECK(FN(split_stripe_sp)(cx, R[p], R[p + 1], sp + g[p], g[p + 1] - g[p],
                                            out + 4 * g[p]));
        }
    }
cleanup:
    free(R);
    free(g);
    free(SPW);
    free(G);
    return st;
}
