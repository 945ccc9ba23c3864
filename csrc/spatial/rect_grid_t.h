/* rect_grid_t.h -- the probes, the bisection and the balancing on a stripe prefix X of cell type
 * RG_T (rect_grid_i.h includes it twice: double, names as they are; int32_t for integral loads
 * with a total below 2**31, names ending in _i: the same integers, so the same decisions).
 * RG_BT: the type of a probe's bound as the stripes' loads are compared with it, RG_BOUND(B)
 * that bound from a double B (an integer load exceeds B exactly when it exceeds floor(B));
 * RG_INT defined: integer cells (plain / eight-wide loops where the double ones go by four).
 * No include guard: included once per cell type, its macros undefined at the end. */
#define RG_CAT2(a, b) a##b
#define RG_CAT(a, b) RG_CAT2(a, b)
#define RG_F(name) RG_CAT(name, RG_SFX)

/* the largest load of the K stripes of majors [a, b) (0 when none is positive). Four stripes
 * at a time without a branch (the max of the same values: the same result) */
static inline double RG_F(rg_cost)(const RG_T *X, int64_t K, int64_t a, int64_t b)
{
    RG_T c = 0;
    const RG_T *xa = X + a * K, *xb = X + b * K;
    int64_t q = 0;
#ifdef RG_INT
    for (; q < K; q++) { /* integers: a plain loop the compiler vectorises */
        RG_T d = xb[q] - xa[q];
        c = d > c ? d : c;
    }
#endif
    for (; q + 4 <= K; q += 4) {
        RG_T d0 = xb[q] - xa[q], d1 = xb[q + 1] - xa[q + 1];
        RG_T d2 = xb[q + 2] - xa[q + 2], d3 = xb[q + 3] - xa[q + 3];
        RG_T m0 = d0 > d1 ? d0 : d1, m1 = d2 > d3 ? d2 : d3, m = m0 > m1 ? m0 : m1;
        c = m > c ? m : c;
    }
    for (; q < K; q++) {
        RG_T d = xb[q] - xa[q];
        c = d > c ? d : c;
    }
    return (double)c;
}

/* 1 when no stripe of majors [a, b) costs more than B (RG_F(rg_cost)(X, K, a, b) <= B), testing
 * first the stripe *hot (one that failed before: a search's failing tests often fail on the same
 * stripe), then four stripes at a time, and keeping in *hot the stripe that fails */
static inline int RG_F(rg_fits_hot)(const RG_T *X, int64_t K, int64_t a, int64_t b, RG_BT B,
                                    int64_t *hot)
{
    const RG_T *xa = X + a * K, *xb = X + b * K;
    if (xb[*hot] - xa[*hot] > B) {
        return 0;
    }
    int64_t q = 0;
#ifdef RG_INT
    for (; q + 8 <= K; q += 8) { /* integers: eight at a time */
        int f = 0;
        for (int u = 0; u < 8; u++) {
            f |= xb[q + u] - xa[q + u] > B;
        }
        if (f) {
            while (!(xb[q] - xa[q] > B)) {
                q++;
            }
            *hot = q;
            return 0;
        }
    }
#endif
    for (; q + 4 <= K; q += 4) {
        if ((xb[q] - xa[q] > B) | (xb[q + 1] - xa[q + 1] > B) | (xb[q + 2] - xa[q + 2] > B) |
            (xb[q + 3] - xa[q + 3] > B)) {
            while (!(xb[q] - xa[q] > B)) {
                q++;
            }
            *hot = q;
            return 0;
        }
    }
    for (; q < K; q++) {
        if (xb[q] - xa[q] > B) {
            *hot = q;
            return 0;
        }
    }
    return 1;
}

/* the largest b in [a, n] with rg_fits_hot(a, b) (B >= 0, so a fits). The loads are
 * non-negative, so the costs grow with b and any search finds the same b: a gallop from the
 * guess h, then a binary search, costs O(log |b - h|) instead of O(log n) */
static inline int64_t RG_F(rg_reach)(const RG_T *X, int64_t n, int64_t K, int64_t a, RG_BT B,
                                     int64_t h)
{
    int64_t lo, hi, hot = 0; /* fits(a, lo); b == n or not fits(a, hi + 1) */
    h = h < a ? a : h > n ? n : h;
    if (RG_F(rg_fits_hot)(X, K, a, h, B, &hot)) {
        lo = h;
        hi = n;
        for (int64_t step = 1; lo < n; step *= 2) {
            int64_t t = step < n - lo ? lo + step : n;
            if (!RG_F(rg_fits_hot)(X, K, a, t, B, &hot)) {
                hi = t - 1;
                break;
            }
            lo = t;
        }
    } else {
        lo = a;
        hi = h - 1;
        for (int64_t step = 1;; step *= 2) {
            int64_t t = hi + 1 - step;
            if (t <= a) {
                break;
            }
            if (RG_F(rg_fits_hot)(X, K, a, t, B, &hot)) {
                lo = t;
                break;
            }
            hi = t - 1;
        }
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (RG_F(rg_fits_hot)(X, K, a, mid, B, &hot)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

/* greedy probe: 1 when P parts of cost <= B cover [0, n); cuts and the achieved max set.
 * hint (NULL: an even split of the rest): where the cuts probably are (a search guess only:
 * the cuts are the greedy ones whatever the hint; hint may be cuts itself) */
static inline int RG_F(rg_probe)(const RG_T *X, int64_t n, int64_t K, int64_t P, double B,
                                 int64_t *cuts, double *got, const int64_t *hint)
{
    int64_t a = 0;
    RG_BT Bb = RG_BOUND(B);
    double mx = 0.0;
    cuts[0] = 0;
    for (int64_t p = 0; p < P; p++) {
        int64_t b;
        if (p == P - 1) {
            b = n;
        } else {
            b = RG_F(rg_reach)(X, n, K, a, Bb, hint ? hint[p + 1] : a + (n - a) / (P - p));
        }
        double c = RG_F(rg_cost)(X, K, a, b);
        if (c > B) {
            return 0;
        }
        if (c > mx) {
            mx = c;
        }
        cuts[p + 1] = b;
        a = b;
    }
    *got = mx;
    return 1;
}

/* the optimal cuts (P parts) of the K-stripe prefix X, given a feasible upper bound hi (whose
 * probe succeeds) and a lower bound lo; tmp: P + 1 scratch; warm: cuts holds a guess of the
 * cuts on entry (the probes' search hint only). Returns the optimum. */
static inline double RG_F(rg_bisect_w)(const RG_T *X, int64_t n, int64_t K, int64_t P,
                                       double lo, double hi, int integral, int64_t *cuts,
                                       int64_t *tmp, int warm)
{
    double got;
    if (!RG_F(rg_probe)(X, n, K, P, hi, cuts, &got, warm ? cuts : NULL)) {
        return RG_INF; /* not reached: hi is feasible */
    }
    hi = got;
    if (integral) {
        lo = ceil(lo);
        /* warm: the optimum is most often the max of the cuts' own greedy (a half-sweep that
         * keeps its grid's value), or a little below it, so probes at hi - 1, 2, 4 (hi lowered
         * by each that succeeds, up to RG_GALLOP) come first: the first case takes one probe
         * instead of a bisection's. The same optimum and cuts whatever the probes: the greedy
         * cuts at any B >= the optimum whose max is the optimum are those at the optimum (each
         * reach is the same), and the cuts kept are those of the last probe that lowered hi to
         * its max */
        for (double step = 1; warm && step <= RG_GALLOP && lo < hi && hi - step >= lo; step *= 2) {
            if (RG_F(rg_probe)(X, n, K, P, hi - step, tmp, &got, cuts)) {
                hi = got;
                memcpy(cuts, tmp, (size_t)(P + 1) * sizeof(int64_t));
            } else {
                lo = hi - step + 1;
                break;
            }
        }
        /* lo + (hi - lo) / 2, not (lo + hi) / 2: above 2^52 the sum rounds, mid could be hi,
         * and the loop would never end; the cap bounds it for any values */
        for (int it = 0; it < 200 && lo < hi; it++) {
            double mid = lo + floor((hi - lo) / 2);
            if (RG_F(rg_probe)(X, n, K, P, mid, tmp, &got, cuts)) {
                hi = got;
                memcpy(cuts, tmp, (size_t)(P + 1) * sizeof(int64_t));
            } else {
                lo = mid + 1;
            }
        }
    } else {
        for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
            double mid = lo + (hi - lo) / 2;
            if (RG_F(rg_probe)(X, n, K, P, mid, tmp, &got, cuts)) {
                hi = got;
                memcpy(cuts, tmp, (size_t)(P + 1) * sizeof(int64_t));
            } else {
                lo = mid;
            }
        }
    }
    return hi;
}

/* each cut k in turn to the place between its neighbours that minimises the larger cost of its
 * two stripes (g grows, h shrinks: the crossing by binary search); never raises the max */
static inline int RG_F(rg_balance_pass)(const RG_T *X, int64_t K, int64_t P, int64_t *cuts)
{
    int moved = 0;
    for (int64_t k = 1; k < P; k++) {
        int64_t a = cuts[k - 1], b = cuts[k + 1];
        /* the smallest x in [a, b] with cost(a, x) >= cost(x, b) (b has it; the test is
         * monotone in x, so any search finds the same x): a gallop from the cut, then a
         * binary search */
        int64_t lo = a, hi = b, h = cuts[k] < a ? a : cuts[k] > b ? b : cuts[k];
        if (RG_F(rg_cost)(X, K, a, h) >= RG_F(rg_cost)(X, K, h, b)) {
            hi = h;
            for (int64_t step = 1;; step *= 2) {
                int64_t t = hi - step;
                if (t < a) {
                    break;
                }
                if (RG_F(rg_cost)(X, K, a, t) < RG_F(rg_cost)(X, K, t, b)) {
                    lo = t + 1;
                    break;
                }
                hi = t;
            }
        } else {
            lo = h + 1;
            for (int64_t step = 1;; step *= 2) {
                int64_t t = lo - 1 + step;
                if (t >= b) {
                    break;
                }
                if (RG_F(rg_cost)(X, K, a, t) >= RG_F(rg_cost)(X, K, t, b)) {
                    hi = t;
                    break;
                }
                lo = t + 1;
            }
        }
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (RG_F(rg_cost)(X, K, a, mid) >= RG_F(rg_cost)(X, K, mid, b)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        int64_t best = cuts[k];
        double bv = fmax(RG_F(rg_cost)(X, K, a, best), RG_F(rg_cost)(X, K, best, b));
        for (int64_t x = lo - 1; x <= lo; x++) {
            if (x < a || x > b) {
                continue;
            }
            double v = fmax(RG_F(rg_cost)(X, K, a, x), RG_F(rg_cost)(X, K, x, b));
            if (v < bv) {
                bv = v;
                best = x;
            }
        }
        moved |= best != cuts[k];
        cuts[k] = best;
    }
    return moved;
}

static inline void RG_F(rg_balance)(const RG_T *X, int64_t K, int64_t P, int64_t *cuts)
{
    for (int pass = 0; pass < RG_PASSES && RG_F(rg_balance_pass)(X, K, P, cuts); pass++) {
    }
}

/* the rest of a half-sweep on its prefix X (n majors, K stripes): the optimal cuts of
 * dimension d (P parts) from its cuts cut_d (the bisection's warm start and upper bound; the
 * other dimension's stripe totals / P its lower bound), then balanced when asked; the max */
static inline double RG_F(rg_solve)(const RG_T *X, int64_t n, int64_t K, int64_t P, int integral,
                                    int64_t *cut_d, int64_t *tmp, int balance)
{
    double hi = 0.0, lo = 0.0;
    for (int64_t p = 0; p < P; p++) {
        double c = RG_F(rg_cost)(X, K, cut_d[p], cut_d[p + 1]);
        hi = c > hi ? c : hi;
    }
    for (int64_t q = 0; q < K; q++) {
        double t = (double)X[n * K + q] / (double)P;
        lo = t > lo ? t : lo;
    }
    lo = integral ? ceil(lo) : lo * (1.0 - 1e-12);
    if (lo > hi) {
        lo = hi;
    }
    double v = RG_F(rg_bisect_w)(X, n, K, P, lo, hi, integral, cut_d, tmp, 1);
    if (balance) {
        RG_F(rg_balance)(X, K, P, cut_d);
    }
    return v;
}

/* rg_shift's move (rect_grid.c): the entries of the minors that change stripe (between each
 * cut's old place yo[k] and new place c[k]; their stripes in map, updated) as deltas D[i ns +
 * t] (the load that moves into the t-th changed stripe at major i - 1, slot[q]: stripe q's t)
 * of type RG_DT (the cells' own type for int32 cells: exact integer sums; double otherwise,
 * integral loads: exact), then from the first major touched on their running sums added to
 * the prefix Y (qs[t]: the t-th changed stripe). For ns up to 8 the pass has ns fixed
 * (RG_SHIFT_NS): the running sums and stripes stay in registers (the general loop reloads
 * run[u] after every store to Y, which may alias it); the same sums, so the same prefix */
#define RG_SHIFT_NS(NS)                                                                       \
    static inline void RG_F(RG_CAT(rg_shift_rows, NS))(RG_T *restrict Y, int64_t K,           \
                                                       int64_t r0, int64_t n,                 \
                                                       RG_DT *restrict D,                     \
                                                       const int32_t *restrict qs)            \
    {                                                                                         \
        RG_DT r[NS] = {0};                                                                    \
        int32_t q[NS];                                                                        \
        for (int u = 0; u < NS; u++) {                                                        \
            q[u] = qs[u];                                                                     \
        }                                                                                     \
        for (int64_t i = r0 + 1; i <= n; i++) {                                               \
            RG_DT *Di = D + i * NS;                                                           \
            RG_T *Yi = Y + i * K;                                                             \
            for (int u = 0; u < NS; u++) {                                                    \
                r[u] += Di[u];                                                                \
                Di[u] = 0;                                                                    \
                Yi[q[u]] += (RG_T)r[u];                                                       \
            }                                                                                 \
        }                                                                                     \
    }
/* ... the same where the changed stripes are consecutive (qs[u] = q0 + u: a cut run moved, or
 * every cut): each major's cells a contiguous run, on SSE2 RG_VW lanes at a time (two float64
 * or four int32 cells: the compiler kept the lanes scalar); each lane's sums as the scalar
 * loop's, so the same prefix bit for bit */
#if defined(__SSE2__)
#ifdef RG_INT /* RG_V: RG_VW lanes of RG_T in one SSE2 register */
#define RG_V __m128i
#define RG_VW 4
#define RG_VZERO() _mm_setzero_si128()
#define RG_VLOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define RG_VSTORE(p, v) _mm_storeu_si128((__m128i *)(void *)(p), v)
#define RG_VADD _mm_add_epi32
#else
#define RG_V __m128d
#define RG_VW 2
#define RG_VZERO() _mm_setzero_pd()
#define RG_VLOAD(p) _mm_loadu_pd(p)
#define RG_VSTORE(p, v) _mm_storeu_pd(p, v)
#define RG_VADD _mm_add_pd
#endif
/* the lane groups of one major (NV of them; the cells after them go one by one below) */
#define RG_SHIFT_NV(NS) ((NS) / RG_VW)
#define RG_SHIFT_VSTEP(NS)                                                                    \
    for (int u = 0; u < RG_SHIFT_NV(NS); u++) {                                               \
        r[u] = RG_VADD(r[u], RG_VLOAD(Di + RG_VW * u));                                       \
        RG_VSTORE(Di + RG_VW * u, RG_VZERO());                                                \
        RG_VSTORE(Yi + RG_VW * u, RG_VADD(RG_VLOAD(Yi + RG_VW * u), r[u]));                   \
    }
#define RG_SHIFT_VDECL(NS)                                                                    \
    RG_V r[RG_SHIFT_NV(NS) > 0 ? RG_SHIFT_NV(NS) : 1];                                        \
    for (int u = 0; u < RG_SHIFT_NV(NS); u++) {                                               \
        r[u] = RG_VZERO();                                                                    \
    }
#else
#define RG_VW 1
#define RG_SHIFT_NV(NS) 0
#define RG_SHIFT_VSTEP(NS)
#define RG_SHIFT_VDECL(NS)
#endif
#define RG_SHIFT_NSC(NS)                                                                      \
    static inline void RG_F(RG_CAT(rg_shift_rowsc, NS))(RG_T *restrict Y, int64_t K,          \
                                                        int64_t r0, int64_t n,                \
                                                        RG_DT *restrict D, int32_t q0)        \
    {                                                                                         \
        enum { N0 = RG_SHIFT_NV(NS) * RG_VW, NT = NS - N0 };                                  \
        RG_DT rs[NT > 0 ? NT : 1] = {0};                                                      \
        RG_SHIFT_VDECL(NS)                                                                    \
        for (int64_t i = r0 + 1; i <= n; i++) {                                               \
            RG_DT *Di = D + i * NS;                                                           \
            RG_T *Yi = Y + i * K + q0;                                                        \
            RG_SHIFT_VSTEP(NS)                                                                \
            for (int u = 0; u < NT; u++) {                                                    \
                rs[u] += Di[N0 + u];                                                          \
                Di[N0 + u] = 0;                                                               \
                Yi[N0 + u] += (RG_T)rs[u];                                                    \
            }                                                                                 \
        }                                                                                     \
    }
RG_SHIFT_NSC(2)
RG_SHIFT_NSC(3)
RG_SHIFT_NSC(4)
RG_SHIFT_NSC(5)
RG_SHIFT_NSC(6)
RG_SHIFT_NSC(7)
RG_SHIFT_NSC(8)
#undef RG_SHIFT_NSC
#undef RG_SHIFT_NV
#undef RG_SHIFT_VSTEP
#undef RG_SHIFT_VDECL
#undef RG_VW
#if defined(__SSE2__)
#undef RG_V
#undef RG_VZERO
#undef RG_VLOAD
#undef RG_VSTORE
#undef RG_VADD
#endif
RG_SHIFT_NS(1)
RG_SHIFT_NS(2)
RG_SHIFT_NS(3)
RG_SHIFT_NS(4)
RG_SHIFT_NS(5)
RG_SHIFT_NS(6)
RG_SHIFT_NS(7)
RG_SHIFT_NS(8)
#undef RG_SHIFT_NS

static inline void RG_F(rg_shift_move)(RG_T *Y, int64_t K, int64_t ns, int64_t n, RG_DT *D,
                                       const int32_t *slot, const int32_t *qs,
                                       const int64_t *yo, const int64_t *c, int32_t *map,
                                       const int64_t *ptr, const int64_t *idx, const double *w)
{
    RG_DT *run = D + ns * (n + 1);
    int64_t rmin = n, t = 0, hi = -1;
    /* (D is zero on entry: zeroed at the context's first shift, rg_shift, and each pass below
     * zeroes the rows it reads, the only ones written here -- majors rmin + 1 .. n) */
    for (int64_t k = 1; k < K; k++) {
        int64_t a = yo[k] < c[k] ? yo[k] : c[k], b = yo[k] < c[k] ? c[k] : yo[k];
        for (int64_t j = a > hi ? a : hi; j < b; j++) {
            while (c[t + 1] <= j) {
                t++;
            }
            int32_t qo = map[j], qn = (int32_t)t;
            if (qo == qn) {
                continue;
            }
            RG_DT *Do = D + ns + slot[qo], *Dn = D + ns + slot[qn];
            int64_t e0 = ptr[j], e1 = ptr[j + 1], r0 = rmin;
            if (w) {
                for (int64_t e = e0; e < e1; e++) {
                    int64_t r = idx[e];
                    Do[r * ns] -= (RG_DT)w[e];
                    Dn[r * ns] += (RG_DT)w[e];
                    r0 = r < r0 ? r : r0;
                }
            } else {
                for (int64_t e = e0; e < e1; e++) {
                    int64_t r = idx[e];
                    Do[r * ns] -= 1;
                    Dn[r * ns] += 1;
                    r0 = r < r0 ? r : r0;
                }
            }
            rmin = r0;
            map[j] = qn;
        }
        hi = b > hi ? b : hi;
    }
    int consec = ns > 1;
    for (int64_t u = 1; consec && u < ns; u++) {
        consec = qs[u] == qs[0] + u;
    }
    switch (consec ? ns : 0) {
    case 2: RG_F(rg_shift_rowsc2)(Y, K, rmin, n, D, qs[0]); return;
    case 3: RG_F(rg_shift_rowsc3)(Y, K, rmin, n, D, qs[0]); return;
    case 4: RG_F(rg_shift_rowsc4)(Y, K, rmin, n, D, qs[0]); return;
    case 5: RG_F(rg_shift_rowsc5)(Y, K, rmin, n, D, qs[0]); return;
    case 6: RG_F(rg_shift_rowsc6)(Y, K, rmin, n, D, qs[0]); return;
    case 7: RG_F(rg_shift_rowsc7)(Y, K, rmin, n, D, qs[0]); return;
    case 8: RG_F(rg_shift_rowsc8)(Y, K, rmin, n, D, qs[0]); return;
    default: break;
    }
    switch (ns) {
    case 1: RG_F(rg_shift_rows1)(Y, K, rmin, n, D, qs); return;
    case 2: RG_F(rg_shift_rows2)(Y, K, rmin, n, D, qs); return;
    case 3: RG_F(rg_shift_rows3)(Y, K, rmin, n, D, qs); return;
    case 4: RG_F(rg_shift_rows4)(Y, K, rmin, n, D, qs); return;
    case 5: RG_F(rg_shift_rows5)(Y, K, rmin, n, D, qs); return;
    case 6: RG_F(rg_shift_rows6)(Y, K, rmin, n, D, qs); return;
    case 7: RG_F(rg_shift_rows7)(Y, K, rmin, n, D, qs); return;
    case 8: RG_F(rg_shift_rows8)(Y, K, rmin, n, D, qs); return;
    default: break;
    }
    for (int64_t u = 0; u < ns; u++) {
        run[u] = 0;
    }
    for (int64_t i = rmin + 1; i <= n; i++) {
        RG_DT *Di = D + i * ns;
        RG_T *Yi = Y + i * K;
        for (int64_t u = 0; u < ns; u++) {
            run[u] += Di[u];
            Di[u] = 0;
            Yi[qs[u]] += (RG_T)run[u];
        }
    }
    for (int64_t u = 0; u < ns; u++) {
        run[u] = 0; /* (D's rows past n stay zero too) */
    }
}

/* rg_shift_all's pass: the moved entries (at[i]: the end of major i's; ev: old and new
 * stripe, ew: weight) summed into run (K, zero) and added to each major's row after them.
 * From the first major with moved entries on (the rows before it keep their cells); run does
 * not alias Y (restrict: the adds vectorise without a check per row) */
static inline void RG_F(rg_shift_all_rows)(RG_T *restrict Y, int64_t K, int64_t n,
                                           const int64_t *restrict at,
                                           const int32_t *restrict ev,
                                           const double *restrict ew, RG_T *restrict run)
{
    int64_t i = 1, x = 0;
    while (i <= n && at[i - 1] == 0) {
        i++;
    }
    for (; i <= n; i++) {
        for (int64_t e = at[i - 1]; x < e; x++) {
            run[ev[2 * x]] -= (RG_T)ew[x];
            run[ev[2 * x + 1]] += (RG_T)ew[x];
        }
        RG_T *restrict Yi = Y + i * K;
        for (int64_t q = 0; q < K; q++) {
            Yi[q] += run[q];
        }
    }
}

#undef RG_F
#undef RG_CAT
#undef RG_CAT2
#undef RG_T
#undef RG_BT
#undef RG_BOUND
#undef RG_SFX
#undef RG_DT
#undef RG_INT
