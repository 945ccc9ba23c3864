/* sp_common.h -- shared pieces of the spatial template: the window (view) over
 * a bordered prefix array and the algorithm context, exact fraction comparisons, 1D prefixes
 * read from a window, the exact 1D optimum of a chain, the generic monotone-cost 1D probe /
 * Nicol search / bisection (Sec. 2.2 of Saule et al. 2012), proportional allocation
 * (Sec. 3.2.2) and the
 * max-load / bottleneck of a rectangle list.
 *
 * Conventions: coordinates are relative to the window origin and every algorithm is written
 * for the "rows first" orientation (the column-first one runs the same code on the
 * transposed prefix). Rectangles are 4 int64 (r0, r1, c0, c1), half-open.
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

typedef struct {
    const T *S;       /* prefix value at the window origin */
    int64_t s0, s1;   /* strides of the prefix array: element (i, j) at S[i*s0 + j*s1]
                         (s1 = 1 normally; the transposed view swaps them, no copy) */
    int64_t n1, n2;   /* window extents */
} FN(view_t);

/* a sparse matrix by its rows (CSR) and its columns (CSC); the columns-first orientation reads
 * the same struct with the two swapped (FN(sp_transposed)) */
typedef struct {
    int64_t n1, n2;
    const int64_t *rp, *ci; /* CSR: row i's nonzeros at [rp[i], rp[i+1]), columns ci */
    const T *rv;
    const int64_t *cp, *ri; /* CSC: column j's nonzeros at [cp[j], cp[j+1]), rows ri */
    const T *cv;
} FN(sparse_t);

typedef struct {
    FN(view_t) v;
    const wpart_spatial_options_t *opt;
    wpart_spatial_stats_t *stats;
    double t0;
    T *W;             /* scratch prefix, max(n1, n2) + 1 */
    int64_t *sep;     /* scratch separators, max(m, n1, n2) + 2 */
    /* the input the kernels read: a sparse matrix (sp), or NULL: the dense prefix v (v.S). The
     * stripe kernels read a stripe's column prefix (FN(split_stripe)), the row prefix
     * (FN(row_prefix)), a stripe's load (FN(rows_load)) and the total (FN(total)) through the
     * functions below, so each method is written once for both */
    const FN(sparse_t) *sp;
    T emit_max;       /* the heaviest piece FN(split_stripe) has emitted since reset to 0 */
    T *emit_loads;    /* NULL, or where FN(split_stripe) writes the emitted pieces' loads
                         (integer loads: exact from the stripe's prefix), advanced past them */
} FN(ctx_t);

/* whether the control's time limit has passed since t0 (a WPART_ECANCELLED then came from
 * the time limit, after which a method that holds a complete partition returns it) */
static inline int FN(time_up)(const wpart_control_t *ctl, double t0)
{
    return ctl && ctl->time_limit > 0 && wpart_i_now() - t0 > ctl->time_limit;
}

static inline T FN(load)(const FN(view_t) *v, int64_t a, int64_t b, int64_t c, int64_t d)
{
    const T *S = v->S;
    int64_t s0 = v->s0, s1 = v->s1;
    T x = S[b * s0 + d * s1] - S[a * s0 + d * s1] - S[b * s0 + c * s1] + S[a * s0 + c * s1];
#if !IS_INT
    if (x < 0) {
        x = 0;
    }
#endif
    return x;
}

/* a double's bit pattern and back: non-negative doubles are ordered as their patterns, so a
 * value bisection may run over the patterns (the float keys below; the speeds bisections) */
static inline int64_t FN(bits_of)(double x)
{
    int64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static inline double FN(bits_value)(int64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

#if IS_INT
static inline int64_t FN(key)(T v) { return v; }
static inline T FN(unkey)(int64_t k) { return k; }
/* a/b < c/d for non-negative a, c and positive b, d */
static inline int FN(frac_lt)(T a, int64_t b, T c, int64_t d)
{
    return (__int128)a * d < (__int128)c * b;
}
static inline T FN(ceil_div)(T a, int64_t b) { return b > 0 ? (a + b - 1) / b : a; }
#define TINF INT64_MAX
#else
static inline int64_t FN(key)(T v) { return v > 0 ? FN(bits_of)(v) : 0; }
static inline T FN(unkey)(int64_t k) { return FN(bits_value)(k); }
static inline int FN(frac_lt)(T a, int64_t b, T c, int64_t d)
{
    return a * (double)d < c * (double)b;
}
static inline T FN(ceil_div)(T a, int64_t b) { return b > 0 ? a / (double)b : a; }
#define TINF HUGE_VAL
#endif

static wpart_status_t FN(base1d)(const T *W, int64_t n, int64_t q, const wpart_1d_options_t *o,
                                 int64_t *seps)
{
#if IS_INT
    return wpart_base_1d_i64(W, n, q, NULL, o, seps, NULL);
#else
    return wpart_base_1d_f64(W, n, q, NULL, o, seps, NULL);
#endif
}

/* ---- 1D prefixes read from the view ---------------------------------------------------- */

/* W[j] = load of rows [a, b) x columns [0, j) */
static void FN(stripe_w)(const FN(view_t) *v, int64_t a, int64_t b, T *W)
{
    const T *Sa = v->S + a * v->s0, *Sb = v->S + b * v->s0;
    int64_t s1 = v->s1;
    T base = Sb[0] - Sa[0];
    W[0] = 0;
    for (int64_t j = 1; j <= v->n2; j++) {
        W[j] = (Sb[j * s1] - Sa[j * s1]) - base;
#if !IS_INT
        if (!(W[j] >= W[j - 1])) {
            W[j] = W[j - 1];
        }
#endif
    }
}

/* W[i] = load of rows [0, i) */
static void FN(rows_w)(const FN(view_t) *v, T *W)
{
    W[0] = 0;
    for (int64_t i = 1; i <= v->n1; i++) {
        W[i] = FN(load)(v, 0, i, 0, v->n2);
#if !IS_INT
        if (!(W[i] >= W[i - 1])) {
            W[i] = W[i - 1];
        }
#endif
    }
}

static FN(sparse_t) FN(sp_transposed)(const FN(sparse_t) *a)
{
    FN(sparse_t) t = {a->n2, a->n1, a->cp, a->ri, a->cv, a->rp, a->ci, a->rv};
    return t;
}

/* W[j] (j = 0 .. n2) = load of rows [r0, r1) x columns [0, j) of the sparse matrix */
static void FN(sp_stripe_w)(const FN(sparse_t) *a, int64_t r0, int64_t r1, T *W)
{
    memset(W, 0, (size_t)(a->n2 + 1) * sizeof(T));
    for (int64_t e = a->rp[r0]; e < a->rp[r1]; e++) {
        W[a->ci[e] + 1] += a->rv[e];
    }
    for (int64_t j = 1; j <= a->n2; j++) {
        W[j] += W[j - 1];
    }
}

/* the sum of row i of the sparse matrix */
static inline T FN(sp_row_sum)(const FN(sparse_t) *a, int64_t i)
{
    T s = 0;
    for (int64_t e = a->rp[i]; e < a->rp[i + 1]; e++) {
        s += a->rv[e];
    }
    return s;
}

/* ---- the input as the kernels read it (dense prefix or sparse matrix) ------------------- */

/* W[i] (i = 0 .. n1) = load of rows [0, i) */
static void FN(row_prefix)(const FN(ctx_t) *cx, T *W)
{
    const FN(sparse_t) *a = cx->sp;
    if (!a) {
        FN(rows_w)(&cx->v, W);
        return;
    }
    W[0] = 0;
    for (int64_t i = 0; i < a->n1; i++) {
        W[i + 1] = W[i] + FN(sp_row_sum)(a, i);
    }
}

/* the load of rows [a, b), W the row prefix FN(row_prefix) wrote (a dense input reads its 2D
 * prefix, as the dense methods always did) */
static inline T FN(rows_load)(const FN(ctx_t) *cx, const T *W, int64_t a, int64_t b)
{
    return cx->sp ? W[b] - W[a] : FN(load)(&cx->v, a, b, 0, cx->v.n2);
}

/* the total load (summed as FN(row_prefix) sums it for a sparse input) */
static T FN(total)(const FN(ctx_t) *cx)
{
    if (!cx->sp) {
        return FN(load)(&cx->v, 0, cx->v.n1, 0, cx->v.n2);
    }
    T t = 0;
    for (int64_t i = 0; i < cx->sp->n1; i++) {
        t = t + FN(sp_row_sum)(cx->sp, i);
    }
    return t;
}

/* exact 1D optimum of the additive chain W[0..n] into q parts (leftmost greedy, normalised) */
static wpart_status_t FN(opt1d)(FN(ctx_t) *cx, const T *W, int64_t n, int64_t q, int64_t *seps,
                                T *val)
{
    wpart_1d_options_t o;
    wpart_1d_options_init(&o);
    o.control = cx->opt->control;
    wpart_status_t st = FN(base1d)(W, n, q, &o, seps);
    if (st != WPART_OK) {
        return st;
    }
    T best = 0;
    for (int64_t p = 0; p < q; p++) {
        T x = W[seps[p + 1]] - W[seps[p]];
        if (x > best) {
            best = x;
        }
    }
    if (val) {
        *val = best;
    }
    return WPART_OK;
}

/* the q rectangles of stripe rows [a, b) between the column cuts sep[0..q] */
static void FN(emit_pieces)(int64_t a, int64_t b, const int64_t *sep, int64_t q, int64_t *out)
{
    for (int64_t k = 0; k < q; k++) {
        out[4 * k] = a;
        out[4 * k + 1] = b;
        out[4 * k + 2] = sep[k];
        out[4 * k + 3] = sep[k + 1];
    }
}

/* optimum of the stripe rows [a, b) cut into q column pieces; rects written when out != NULL */
static wpart_status_t FN(split_stripe)(FN(ctx_t) *cx, int64_t a, int64_t b, int64_t q,
                                       int64_t *out, T *val)
{
    if (cx->sp) {
        FN(sp_stripe_w)(cx->sp, a, b, cx->W);
    } else {
        FN(stripe_w)(&cx->v, a, b, cx->W);
    }
    T v = 0;
    wpart_status_t st = FN(opt1d)(cx, cx->W, cx->v.n2, q, cx->sep, &v);
    if (st == WPART_OK) {
        if (val) {
            *val = v;
        }
        if (out) {
            FN(emit_pieces)(a, b, cx->sep, q, out);
            cx->emit_max = v > cx->emit_max ? v : cx->emit_max;
#if IS_INT
            if (cx->emit_loads) {
                for (int64_t k = 0; k < q; k++) {
                    cx->emit_loads[k] = cx->W[cx->sep[k + 1]] - cx->W[cx->sep[k]];
                }
                cx->emit_loads += q;
            }
#endif
        }
    }
    return st;
}

/* ---- 1D with processor speeds (the speed extensions of every class) -------------------- */

static wpart_status_t FN(base1d_sp)(const T *W, int64_t n, int64_t q, const double *sp,
                                    const wpart_control_t *ctl, int64_t *seps)
{
    wpart_1d_options_t o;
    wpart_1d_options_init(&o);
    o.control = ctl;
#if IS_INT
    return wpart_base_1d_i64(W, n, q, sp, &o, seps, NULL);
#else
    return wpart_base_1d_f64(W, n, q, sp, &o, seps, NULL);
#endif
}

/* emit stripe rows [a, b) split among processors sp[0..q) */
static wpart_status_t FN(split_stripe_sp)(FN(ctx_t) *cx, int64_t a, int64_t b, const double *sp,
                                          int64_t q, int64_t *out)
{
    FN(stripe_w)(&cx->v, a, b, cx->W);
    wpart_status_t st = FN(base1d_sp)(cx->W, cx->v.n2, q, sp, cx->opt->control, cx->sep);
    if (st == WPART_OK) {
        FN(emit_pieces)(a, b, cx->sep, q, out);
    }
    return st;
}

/* ---- generic monotone-cost 1D (Sec. 2.2 of Saule et al. 2012) --------------------------- */

typedef T (*FN(cost_f))(void *ctx, int64_t part, int64_t a, int64_t b);

/* PROBE from `start` with parts p0 .. p0+q-1; seps (optional) gets q+1 entries */
static int FN(gprobe)(FN(cost_f) f, void *ctx, int64_t n, int64_t start, int64_t p0, int64_t q,
                      int homog, T B, int64_t *seps)
{
    int64_t t = start;
    if (seps) {
        seps[0] = start;
    }
    for (int64_t k = 0; k < q; k++) {
        if (t < n) {
            /* gallop from t (parts are usually short), then bisect */
            int64_t lo = t, step = 1;
            while (lo + step <= n && f(ctx, p0 + k, t, lo + step) <= B) {
                lo += step;
                step *= 2;
            }
            int64_t hi = lo + step - 1 < n ? lo + step - 1 : n;
            while (lo < hi) {
                int64_t mid = lo + (hi - lo + 1) / 2;
                if (f(ctx, p0 + k, t, mid) <= B) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            if (lo == t && homog) {
                if (seps) {
                    for (int64_t r = k; r < q; r++) {
                        seps[r + 1] = n;
                    }
                }
                return 0;
            }
            t = lo;
        }
        if (seps) {
            seps[k + 1] = t;
        }
    }
    return t == n;
}

/* leftmost-greedy separators at B*; with float costs, rounding can make B* fail by an ulp
 * (costs read along different prefix paths), so B is nudged up, and as a last resort the last
 * part takes the rest. Exact integer costs never need either. */
static void FN(final_seps)(FN(cost_f) f, void *ctx, int64_t n, int64_t q, int homog, T B,
                           int64_t *seps)
{
    for (int tries = 0; tries < 80; tries++) {
        if (FN(gprobe)(f, ctx, n, 0, 0, q, homog, B, seps)) {
            return;
        }
#if IS_INT
        B += 1;
#else
        B = B * (1.0 + 1e-12) + 1e-300;
        if (tries > 40) {
            B *= 2;
        }
#endif
    }
    seps[q] = n;
}

static void FN(normalize)(int64_t *s, int64_t n, int64_t q)
{
    if (q > n) {
        return;
    }
    s[0] = 0;
    for (int64_t p = 1; p <= q; p++) {
        int64_t x = s[p] < n - (q - p) ? s[p] : n - (q - p);
        s[p] = x > s[p - 1] + 1 ? x : s[p - 1] + 1;
    }
}

/* Nicol's parametric search (Sec. 2.2) on a monotone cost; returns B*, seps = leftmost greedy
 * separators at B* (normalised when homogeneous and q <= n). Float costs are monotone only up
 * to rounding: a cost read along another prefix path can come out an ulp below a shorter
 * interval's (a zero column appended to a stripe: f(0, 2) = 2505.2619999999993 against
 * f(0, 1) = 2505.2619999999997), and a probe at the longer interval's cost then failed on the
 * shorter one, the search went past the optimum (JAG-PQ-OPT 3257.152 against 2505.262). The
 * probes take the cost plus a slack of 1e-12 of the total (far above such rounding, far below
 * any gap between the loads); final_seps then places the cuts for the value found, which is
 * one of the costs, so the partition is the optimum's to that rounding. */
static wpart_status_t FN(gnicol)(FN(ctx_t) *cx, FN(cost_f) f, void *ctx, int64_t n, int64_t q,
                                 int homog, T *Bout, int64_t *seps)
{
    T best = TINF;
#if IS_INT
    const T slack = 0;
#else
    const T slack = n > 0 ? FN(total)(cx) * 1e-12 + 1e-300 : 0;
#endif
    if (n == 0) {
        best = 0;
    } else {
        int64_t t = 0;
        int done = 0;
        for (int64_t p = 0; p + 1 < q && !done; p++) {
            int64_t lo = t + 1, hi = n;
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                cx->stats->probes++;
                if (FN(gprobe)(f, ctx, n, t, p, q - p, homog, f(ctx, p, t, mid) + slack,
                                  NULL)) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            T c = f(ctx, p, t, lo);
            if (c < best) {
                best = c;
            }
            if (homog && lo == t + 1) {
                done = 1;
            }
            t = lo - 1;
        }
        if (!done) {
            T c = f(ctx, q - 1, t, n);
            if (c < best) {
                best = c;
            }
        }
        wpart_status_t st = wpart_i_poll(cx->opt->control, cx->t0, 0, 0);
        if (st != WPART_OK) {
            return st;
        }
    }
    *Bout = best;
    if (seps) {
        FN(final_seps)(f, ctx, n, q, homog, best, seps);
        if (homog) {
            FN(normalize)(seps, n, q);
        }
    }
    return WPART_OK;
}

/* Exact bisection on the bottleneck value (integer keys; the bit patterns of non-negative
 * doubles are ordered like the doubles): the smallest feasible B in [lb, ub], ub feasible. */
static wpart_status_t FN(gbisect)(FN(ctx_t) *cx, FN(cost_f) f, void *ctx, int64_t n, int64_t q,
                                  int homog, T lb, T ub, T *Bout, int64_t *seps)
{
    int64_t lo = FN(key)(lb), hi = FN(key)(ub);
    if (lo > hi) {
        lo = hi;
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        cx->stats->probes++;
        if (FN(gprobe)(f, ctx, n, 0, 0, q, homog, FN(unkey)(mid), NULL)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
        wpart_status_t st = wpart_i_poll(cx->opt->control, cx->t0, 0, 0); /* per probe */
        if (st != WPART_OK) {
            return st;
        }
    }
    *Bout = FN(unkey)(lo);
    if (seps) {
        FN(final_seps)(f, ctx, n, q, homog, *Bout, seps);
        if (homog) {
            FN(normalize)(seps, n, q);
        }
    }
    return wpart_i_poll(cx->opt->control, cx->t0, 0, 0);
}

/* ---- proportional allocation (Sec. 3.2.2) ------------------------------------------------ */

/* does block a (load La on qa parts) win the allocation greedy's pick over block b: the larger
 * La / qa, ties to the lower index */
static inline int FN(alloc_wins)(T La, int64_t qa, int64_t a, T Lb, int64_t qb, int64_t b)
{
    return FN(frac_lt)(Lb, qb, La, qa) || (!FN(frac_lt)(La, qa, Lb, qb) && a < b);
}

/* sift block h[i] down a heap of block indices ordered by FN(alloc_wins) */
static void FN(aheap_down)(int64_t *h, int64_t n, int64_t i, const T *L, const int64_t *Q)
{
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, b = i;
        if (l < n && FN(alloc_wins)(L[h[l]], Q[h[l]], h[l], L[h[b]], Q[h[b]], h[b])) {
            b = l;
        }
        if (r < n && FN(alloc_wins)(L[h[r]], Q[h[r]], h[r], L[h[b]], Q[h[b]], h[b])) {
            b = r;
        }
        if (b == i) {
            return;
        }
        int64_t x = h[i];
        h[i] = h[b];
        h[b] = x;
        i = b;
    }
}

/* approximate number of parts the leftover greedy gives block k while L_k / Q_k > lam */
static double FN(alloc_above)(T Lk, int64_t Qk, int64_t room, double lam)
{
    double c = ceil((double)Lk / lam);
    double n = (c < (double)INT64_MAX / 2 ? c : (double)INT64_MAX / 2) - (double)Qk;
    n = n < (double)room ? n : (double)room;
    return n > 0 ? n : 0;
}

/* Proportional counts Q[k] >= 1 summing to m: ceil((m - K) L_k / T), capped, then the leftover
 * parts one at a time to the largest L_k / Q_k among the uncapped blocks (ties: lowest index;
 * block 0 once all are capped). The leftover is handed out in bulk with the same result: the
 * parts whose ratio clearly exceeds a threshold lam (found by bisection so that fewer than the
 * leftover minus 2K are above it; each block's count is taken one short of its rounded value)
 * are among the greedy's first picks, and the rest run on a heap, a block taking at once every
 * part it wins in a row against the runner-up. So all-zero loads, caps and huge m stay
 * O(K log K + K log m); ctl (may be NULL) is polled. */
static wpart_status_t FN(alloc)(const T *L, int64_t K, int64_t m, const int64_t *cap, int64_t *Q,
                                const wpart_control_t *ctl, double t0)
{
    wpart_status_t st = WPART_OK;
    int64_t *h = NULL;
    if (K < 1 || K > m) {
        return wpart_i_error(WPART_EINVAL, "allocation needs 1 <= K <= m, got K = %" PRId64
                             ", m = %" PRId64, K, m);
    }
    T tot = 0;
    for (int64_t k = 0; k < K; k++) {
        tot += L[k];
    }
    int64_t base = m - K, sum = 0;
    for (int64_t k = 0; k < K; k++) {
        int64_t x = 0;
        if (tot > 0) {
#if IS_INT
            x = (int64_t)(((__int128)base * L[k] + tot - 1) / tot);
#else
            x = (int64_t)ceil((double)base * (L[k] / tot));
#endif
        }
        if (x < 1) {
            x = 1;
        }
        if (cap && x > cap[k]) {
            x = cap[k] > 1 ? cap[k] : 1;
        }
        Q[k] = x;
        sum += x;
    }
    int64_t iter = 0;
    while (sum > m) { /* float rounding only */
        int64_t kb = -1;
        for (int64_t k = 0; k < K; k++) {
            if (Q[k] > 1 && (kb < 0 || FN(frac_lt)(L[k], Q[k], L[kb], Q[kb]))) {
                kb = k;
            }
        }
        if (kb < 0) {
            return wpart_i_error(WPART_EINTERNAL, "allocation overshoot");
        }
        Q[kb]--;
        sum--;
        if ((++iter & 255) == 0) {
            WPART_CHECK(wpart_i_poll(ctl, t0, 0, 0));
        }
    }
    int64_t left = m - sum;
    if (left == 0) {
        return WPART_OK;
    }
    h = wpart_i_malloc(K, sizeof(int64_t));
    if (!h) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in the allocation");
    }
    int64_t n = 0;
    double top = 0;
    for (int64_t k = 0; k < K; k++) {
        if (!cap || Q[k] < cap[k]) {
            h[n++] = k;
            double r = (double)L[k] / (double)Q[k];
            top = r > top ? r : top;
        }
    }
    if (top > 0 && left > 2 * K + 2) { /* bulk: parts clearly above the threshold */
        double target = (double)(left - 2 * K - 2), lo = 0, hi = top;
        for (int it = 0; it < 200 && lo < hi; it++) {
            double mid = lo + (hi - lo) / 2;
            if (mid <= lo || mid >= hi) {
                break;
            }
            double c = 0;
            for (int64_t i = 0; i < n; i++) {
                int64_t k = h[i];
                c += FN(alloc_above)(L[k], Q[k], cap ? cap[k] - Q[k] : INT64_MAX, mid);
            }
            if (c <= target) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t k = h[i];
            double x = FN(alloc_above)(L[k], Q[k], cap ? cap[k] - Q[k] : INT64_MAX, hi) - 1;
            if (x > 0) {
                Q[k] += (int64_t)x;
                left -= (int64_t)x;
            }
        }
        int64_t j = 0;
        for (int64_t i = 0; i < n; i++) {
            if (!cap || Q[h[i]] < cap[h[i]]) {
                h[j++] = h[i];
            }
        }
        n = j;
    }
    for (int64_t i = n / 2 - 1; i >= 0; i--) {
        FN(aheap_down)(h, n, i, L, Q);
    }
    while (left > 0 && n > 0) {
        int64_t kb = h[0];
        int64_t lim = cap && cap[kb] - Q[kb] < left ? cap[kb] - Q[kb] : left;
        int64_t t = lim; /* parts kb wins in a row: while it still beats the runner-up */
        if (n > 1) {
            int64_t k2 = h[1];
            if (n > 2 && FN(alloc_wins)(L[h[2]], Q[h[2]], h[2], L[k2], Q[k2], k2)) {
                k2 = h[2];
            }
            int64_t lo = 1, hi = lim;
            while (lo < hi) {
                int64_t mid = lo + (hi - lo + 1) / 2;
                if (FN(alloc_wins)(L[kb], Q[kb] + mid - 1, kb, L[k2], Q[k2], k2)) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            t = lo;
        }
        Q[kb] += t;
        left -= t;
        if (cap && Q[kb] >= cap[kb]) {
            h[0] = h[--n];
        }
        FN(aheap_down)(h, n, 0, L, Q);
        if ((++iter & 255) == 0) {
            WPART_CHECK(wpart_i_poll(ctl, t0, 0, 0));
        }
    }
    if (left > 0) { /* every block at its cap: the rest to block 0 */
        Q[0] += left;
    }
cleanup:
    free(h);
    return st;
}

static T FN(lmax_of)(const FN(view_t) *v, const int64_t *rects, int64_t m)
{
    T best = 0;
    for (int64_t k = 0; k < m; k++) {
        const int64_t *r = rects + 4 * k;
        if (r[0] < r[1] && r[2] < r[3]) {
            T x = FN(load)(v, r[0], r[1], r[2], r[3]);
            if (x > best) {
                best = x;
            }
        }
    }
    return best;
}


/* max_k load_k / speeds_k (or max load) */
static double FN(bott_of)(const FN(view_t) *v, const int64_t *rects, int64_t m,
                          const double *sp)
{
    double best = 0;
    for (int64_t k = 0; k < m; k++) {
        const int64_t *r = rects + 4 * k;
        if (r[0] < r[1] && r[2] < r[3]) {
            double x = (double)FN(load)(v, r[0], r[1], r[2], r[3]) / (sp ? sp[k] : 1.0);
            best = x > best ? x : best;
        }
    }
    return best;
}
