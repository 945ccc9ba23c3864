/*
 * spatial_tmpl.h -- the rectangular-partition algorithms of spec 004, written once and compiled
 * twice by spatial.c: T = int64_t (IS_INT 1, exact, fractions compared in 128 bits) and
 * T = double (IS_INT 0). FN(x) names a function for the current type.
 *
 * Conventions: a view is a window of a bordered prefix array; coordinates inside are relative
 * to the window origin and every algorithm below is written for the "rows first" orientation
 * (the column-first one runs the same code on the transposed prefix). Rectangles are written
 * as 4 int64 (r0, r1, c0, c1), half-open.
 */

typedef struct {
    const T *S;       /* prefix value at the window origin */
    int64_t s0, s1;   /* strides of the prefix array: element (i, j) at S[i*s0 + j*s1]
                         (s1 = 1 normally; the transposed view swaps them, no copy) */
    int64_t n1, n2;   /* window extents */
} FN(view_t);

typedef struct {
    FN(view_t) v;
    const wpart_spatial_options_t *opt;
    wpart_spatial_stats_t *stats;
    double t0;
    T *W;             /* scratch prefix, max(n1, n2) + 1 */
    int64_t *sep;     /* scratch separators, max(m, n1, n2) + 2 */
} FN(ctx_t);

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
static inline int64_t FN(key)(T v)
{
    int64_t k;
    if (!(v > 0)) {
        return 0;
    }
    memcpy(&k, &v, sizeof k);
    return k;
}
static inline T FN(unkey)(int64_t k)
{
    T v;
    memcpy(&v, &k, sizeof v);
    return v;
}
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

/* optimum of the stripe rows [a, b) cut into q column pieces; rects written when out != NULL */
static wpart_status_t FN(split_stripe)(FN(ctx_t) *cx, int64_t a, int64_t b, int64_t q,
                                       int64_t *out, T *val)
{
    FN(stripe_w)(&cx->v, a, b, cx->W);
    wpart_status_t st = FN(opt1d)(cx, cx->W, cx->v.n2, q, cx->sep, val);
    if (st == WPART_OK && out) {
        for (int64_t k = 0; k < q; k++) {
            out[4 * k] = a;
            out[4 * k + 1] = b;
            out[4 * k + 2] = cx->sep[k];
            out[4 * k + 3] = cx->sep[k + 1];
        }
    }
    return st;
}

/* ---- generic monotone-cost 1D (spec 2.2, 2.6, 2.7) -------------------------------------- */

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

/* Nicol's parametric search (spec 2.6) on a monotone cost; returns B*, seps = leftmost greedy
 * separators at B* (normalised when homogeneous and q <= n). */
static wpart_status_t FN(gnicol)(FN(ctx_t) *cx, FN(cost_f) f, void *ctx, int64_t n, int64_t q,
                                 int homog, T *Bout, int64_t *seps)
{
    T best = TINF;
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
                if (FN(gprobe)(f, ctx, n, t, p, q - p, homog, f(ctx, p, t, mid), NULL)) {
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

/* ---- proportional allocation (spec 3.6) -------------------------------------------------- */

static wpart_status_t FN(alloc)(const T *L, int64_t K, int64_t m, const int64_t *cap, int64_t *Q)
{
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
    while (sum > m) { /* float rounding only */
        int64_t kb = -1;
        for (int64_t k = 0; k < K; k++) {
            if (Q[k] > 1 && (kb < 0 || FN(frac_lt)(L[k], Q[k], L[kb], Q[kb]))) {
                kb = k;
            }
        }
        Q[kb]--;
        sum--;
    }
    while (sum < m) {
        int64_t kb = -1;
        for (int64_t k = 0; k < K; k++) {
            if (cap && Q[k] >= cap[k]) {
                continue;
            }
            if (kb < 0 || FN(frac_lt)(L[kb], Q[kb], L[k], Q[k])) {
                kb = k;
            }
        }
        if (kb < 0) {
            kb = 0;
        }
        Q[kb]++;
        sum++;
    }
    return WPART_OK;
}

/* ---- RECT-UNIFORM (3.1) and RECT-NICOL (3.2) -------------------------------------------- */

static void FN(emit_grid)(const int64_t *R, int64_t P, const int64_t *C, int64_t Q, int64_t *out)
{
    for (int64_t p = 0; p < P; p++) {
        for (int64_t q = 0; q < Q; q++) {
            int64_t *o = out + 4 * (p * Q + q);
            o[0] = R[p];
            o[1] = R[p + 1];
            o[2] = C[q];
            o[3] = C[q + 1];
        }
    }
}

static void FN(uniform_cuts)(int64_t n, int64_t P, int64_t *R)
{
    for (int64_t p = 0; p <= P; p++) {
        R[p] = (int64_t)((__int128)p * n / P);
    }
}

typedef struct {
    const FN(view_t) *v;
    const int64_t *cuts;
    int64_t k;
    int cols; /* 1: chain = columns, stripes = row blocks */
} FN(maxcost_t);

static T FN(maxcost)(void *ctx, int64_t part, int64_t a, int64_t b)
{
    (void)part;
    FN(maxcost_t) *c = ctx;
    T best = 0;
    for (int64_t p = 0; p < c->k; p++) {
        T x = c->cols ? FN(load)(c->v, c->cuts[p], c->cuts[p + 1], a, b)
                      : FN(load)(c->v, a, b, c->cuts[p], c->cuts[p + 1]);
        if (x > best) {
            best = x;
        }
    }
    return best;
}

static T FN(grid_lmax)(const FN(view_t) *v, const int64_t *R, int64_t P, const int64_t *C,
                       int64_t Q)
{
    T best = 0;
    for (int64_t p = 0; p < P; p++) {
        for (int64_t q = 0; q < Q; q++) {
            T x = FN(load)(v, R[p], R[p + 1], C[q], C[q + 1]);
            if (x > best) {
                best = x;
            }
        }
    }
    return best;
}

/* max over the fixed blocks of (block load / parts): a lower bound of the 1D optimum */
static T FN(stripe_lb)(const FN(view_t) *v, const int64_t *cuts, int64_t k, int64_t parts,
                       int rows)
{
    T best = 0;
    for (int64_t p = 0; p < k; p++) {
        T L = rows ? FN(load)(v, cuts[p], cuts[p + 1], 0, v->n2)
                   : FN(load)(v, 0, v->n1, cuts[p], cuts[p + 1]);
        T x = FN(ceil_div)(L, parts);
#if !IS_INT
        x *= 1.0 - 1e-12;
#endif
        if (x > best) {
            best = x;
        }
    }
    return best;
}

static wpart_status_t FN(rect_nicol)(FN(ctx_t) *cx, int64_t P, int64_t Q, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    int64_t sweeps = cx->opt->max_sweeps > 0 ? cx->opt->max_sweeps : 100;
    int64_t width = P + Q + 2;
    int64_t *hist = wpart_i_malloc((sweeps + 1) * width, sizeof(int64_t));
    int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
    int64_t *C = wpart_i_malloc(Q + 1, sizeof(int64_t));
    if (!hist || !R || !C) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    FN(uniform_cuts)(cx->v.n1, P, R);
    FN(uniform_cuts)(cx->v.n2, Q, C);
    int64_t nh = 0;
    cx->stats->converged = 0;
    for (int64_t s = 0; s < sweeps; s++) {
        T B, lb, ub;
        /* bounds: every stripe's load / parts below, the current grid above */
        ub = FN(grid_lmax)(&cx->v, R, P, C, Q);
        lb = FN(stripe_lb)(&cx->v, R, P, Q, 1);
        FN(maxcost_t) mc = {&cx->v, R, P, 1};
        WPART_CHECK(FN(gbisect)(cx, FN(maxcost), &mc, cx->v.n2, Q, 1, lb, ub, &B, C));
        ub = FN(grid_lmax)(&cx->v, R, P, C, Q);
        lb = FN(stripe_lb)(&cx->v, C, Q, P, 0);
        FN(maxcost_t) mr = {&cx->v, C, Q, 0};
        WPART_CHECK(FN(gbisect)(cx, FN(maxcost), &mr, cx->v.n1, P, 1, lb, ub, &B, R));
        cx->stats->iterations++;
        int seen = 0;
        for (int64_t h = 0; h < nh && !seen; h++) {
            seen = memcmp(hist + h * width, R, (P + 1) * sizeof(int64_t)) == 0 &&
                   memcmp(hist + h * width + P + 1, C, (Q + 1) * sizeof(int64_t)) == 0;
        }
        if (seen) {
            cx->stats->converged = 1;
            break;
        }
        memcpy(hist + nh * width, R, (P + 1) * sizeof(int64_t));
        memcpy(hist + nh * width + P + 1, C, (Q + 1) * sizeof(int64_t));
        nh++;
        WPART_CHECK(wpart_i_poll(cx->opt->control, cx->t0, (double)s, (double)sweeps));
    }
    FN(emit_grid)(R, P, C, Q, out);
cleanup:
    free(hist);
    free(R);
    free(C);
    return st;
}

/* ---- P x Q jagged (3.3 - 3.5) ------------------------------------------------------------ */

static wpart_status_t FN(emit_stripes)(FN(ctx_t) *cx, const int64_t *R, int64_t P,
                                       const int64_t *counts, int64_t Qall, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    for (int64_t p = 0; p < P; p++) {
        int64_t q = counts ? counts[p] : Qall;
        if (q == 0) {
            continue;
        }
        st = FN(split_stripe)(cx, R[p], R[p + 1], q, out, NULL);
        if (st != WPART_OK) {
            return st;
        }
        out += 4 * q;
    }
    return st;
}

static wpart_status_t FN(jag_pq_heur)(FN(ctx_t) *cx, int64_t P, int64_t Q, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
    if (!R) {
        WPART_FAIL(WPART_ENOMEM, "out of memory");
    }
    FN(rows_w)(&cx->v, cx->W);
    WPART_CHECK(FN(opt1d)(cx, cx->W, cx->v.n1, P, R, NULL));
    WPART_CHECK(FN(emit_stripes)(cx, R, P, NULL, Q, out));
cleanup:
    free(R);
    return st;
}

/* memo of the nested optimum f(a, b) = OPT1D_Q(stripe [a, b)), open addressing */
typedef struct {
    FN(ctx_t) *cx;
    int64_t Q;
    const int64_t *Qp;  /* per-part counts (JAG-M-ALLOC), else NULL */
    int64_t *keys;
    T *vals;
    int64_t cap, used;
    wpart_status_t st;
} FN(nested_t);

static T FN(nested_eval)(FN(nested_t) *c, int64_t q, int64_t a, int64_t b)
{
    T val = 0;
    FN(ctx_t) *cx = c->cx;
    cx->stats->cost_evals++;
    wpart_status_t st = FN(split_stripe)(cx, a, b, q, NULL, &val);
    if (st != WPART_OK && c->st == WPART_OK) {
        c->st = st;
    }
    return val;
}

static T FN(nested_cost)(void *ctx, int64_t part, int64_t a, int64_t b)
{
    FN(nested_t) *c = ctx;
    if (a == b) {
        return 0;
    }
    int64_t q = c->Qp ? c->Qp[part] : c->Q;
    if (!c->keys) {
        return FN(nested_eval)(c, q, a, b);
    }
    int64_t key = (a * (c->cx->v.n1 + 1) + b) * 4 + 1; /* never 0 */
    if (c->Qp) {
        key = key * (c->cx->v.n2 + 2) + q;
    }
    uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ULL;
    int64_t i = (int64_t)(h >> 20) & (c->cap - 1);
    while (c->keys[i] != 0) {
        if (c->keys[i] == key) {
            return c->vals[i];
        }
        i = (i + 1) & (c->cap - 1);
    }
    T val = FN(nested_eval)(c, q, a, b);
    if (c->used * 2 + 2 > c->cap) { /* grow */
        int64_t ncap = c->cap * 2;
        int64_t *nk = wpart_i_calloc(ncap, sizeof(int64_t));
        T *nv = wpart_i_malloc(ncap, sizeof(T));
        if (!nk || !nv) {
            free(nk);
            free(nv);
            if (c->st == WPART_OK) {
                c->st = wpart_i_error(WPART_ENOMEM, "out of memory in the nested-cost memo");
            }
            return val;
        }
        for (int64_t j = 0; j < c->cap; j++) {
            if (c->keys[j]) {
                uint64_t hh = (uint64_t)c->keys[j] * 0x9E3779B97F4A7C15ULL;
                int64_t r = (int64_t)(hh >> 20) & (ncap - 1);
                while (nk[r]) {
                    r = (r + 1) & (ncap - 1);
                }
                nk[r] = c->keys[j];
                nv[r] = c->vals[j];
            }
        }
        free(c->keys);
        free(c->vals);
        c->keys = nk;
        c->vals = nv;
        c->cap = ncap;
        i = (int64_t)(h >> 20) & (c->cap - 1);
        while (c->keys[i] != 0) {
            i = (i + 1) & (c->cap - 1);
        }
    }
    c->keys[i] = key;
    c->vals[i] = val;
    c->used++;
    return val;
}

static wpart_status_t FN(nested_init)(FN(nested_t) *c, FN(ctx_t) *cx, int64_t Q,
                                      const int64_t *Qp)
{
    memset(c, 0, sizeof *c);
    c->cx = cx;
    c->Q = Q;
    c->Qp = Qp;
    c->cap = 1024;
    c->keys = wpart_i_calloc(c->cap, sizeof(int64_t));
    c->vals = wpart_i_malloc(c->cap, sizeof(T));
    if (!c->keys || !c->vals) {
        free(c->keys);
        free(c->vals);
        return wpart_i_error(WPART_ENOMEM, "out of memory");
    }
    return WPART_OK;
}

static void FN(nested_free)(FN(nested_t) *c)
{
    free(c->keys);
    free(c->vals);
}

static wpart_status_t FN(jag_pq_opt)(FN(ctx_t) *cx, int64_t P, int64_t Q, int use_dp,
                                     int64_t *out)
{
    wpart_status_t st = WPART_OK;
    FN(nested_t) nc;
    T *F = NULL;
    int64_t n1 = cx->v.n1;
    int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
    if (!R) {
        return wpart_i_error(WPART_ENOMEM, "out of memory");
    }
    st = FN(nested_init)(&nc, cx, Q, NULL);
    if (st != WPART_OK) {
        free(R);
        return st;
    }
    T B;
    if (!use_dp) {
        WPART_CHECK(FN(gnicol)(cx, FN(nested_cost), &nc, n1, P, 1, &B, R));
    } else {
        /* F[p][i], p parts over rows [0, i); crossing-point bisection (spec 2.5) */
        F = wpart_i_malloc(2 * (n1 + 1), sizeof(T));
        if (!F) {
            WPART_FAIL(WPART_ENOMEM, "out of memory");
        }
        T *prev = F, *cur = F + n1 + 1;
        for (int64_t i = 0; i <= n1; i++) {
            prev[i] = FN(nested_cost)(&nc, 0, 0, i);
        }
        for (int64_t p = 2; p <= P; p++) {
            for (int64_t i = 0; i <= n1; i++) {
                int64_t lo = 0, hi = i;
                while (lo < hi) { /* smallest k with prev[k] >= f(k, i) */
                    int64_t mid = lo + (hi - lo) / 2;
                    if (prev[mid] >= FN(nested_cost)(&nc, 0, mid, i)) {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                T a = prev[lo] > FN(nested_cost)(&nc, 0, lo, i) ? prev[lo]
                                                                : FN(nested_cost)(&nc, 0, lo, i);
                if (lo > 0) {
                    T fb = FN(nested_cost)(&nc, 0, lo - 1, i);
                    T b = prev[lo - 1] > fb ? prev[lo - 1] : fb;
                    if (b < a) {
                        a = b;
                    }
                }
                cur[i] = a;
                cx->stats->dp_states++;
            }
            T *tmp = prev;
            prev = cur;
            cur = tmp;
            WPART_CHECK(wpart_i_poll(cx->opt->control, cx->t0, (double)p, (double)P));
        }
        B = prev[n1];
        FN(final_seps)(FN(nested_cost), &nc, n1, P, 1, B, R);
        FN(normalize)(R, n1, P);
    }
    WPART_CHECK(nc.st);
    WPART_CHECK(FN(emit_stripes)(cx, R, P, NULL, Q, out));
cleanup:
    FN(nested_free)(&nc);
    free(R);
    free(F);
    return st;
}

/* ---- m-way jagged (3.6 - 3.10) ----------------------------------------------------------- */

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

static wpart_status_t FN(stripes_from_rows)(FN(ctx_t) *cx, int64_t P, int64_t *R)
{
    FN(rows_w)(&cx->v, cx->W);
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
        L[p] = FN(load)(&cx->v, R[p], R[p + 1], 0, cx->v.n2);
        cap[p] = cx->v.n2 * (R[p + 1] - R[p]) > 0 ? cx->v.n2 : 1;
    }
    WPART_CHECK(FN(alloc)(L, P, m, cap, cnt));
    WPART_CHECK(FN(emit_stripes)(cx, R, P, cnt, 0, out));
cleanup:
    free(R);
    free(cnt);
    free(cap);
    free(L);
    return st;
}

/* greedy piece count of stripe rows [a, b) at bottleneck B, at most `limit` pieces:
 * returns the count, limit + 1 when more are needed, or -1 when one column exceeds B */
static int64_t FN(stripe_count)(const FN(view_t) *v, int64_t a, int64_t b, T B, int64_t limit)
{
    const T *Sa = v->S + a * v->s0, *Sb = v->S + b * v->s0;
    int64_t n = v->n2, t = 0, cnt = 0, s1 = v->s1;
#define COLW(x) (Sb[(x) * s1] - Sa[(x) * s1])
    while (t < n) {
        T wt = COLW(t);
        int64_t lo = t, hi = n;
        /* galloping from t, then binary search */
        int64_t step = 1;
        while (lo + step <= n && COLW(lo + step) - wt <= B) {
            lo += step;
            step *= 2;
        }
        hi = lo + step - 1 < n ? lo + step - 1 : n;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo + 1) / 2;
            if (COLW(mid) - wt <= B) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        if (lo == t) {
            return -1;
        }
        if (++cnt > limit) {
            return limit + 1;
        }
        t = lo;
    }
    return cnt;
#undef COLW
}

/* optimal m-way jagged partition for the given stripes R[0..P] (JAG-M-PROBE, 3.8) */
/* PROBE-M (3.8): can the stripes R be cut into at most m pieces of load <= B? */
static int FN(mprobe_ok)(const FN(view_t) *v, const int64_t *R, int64_t P, int64_t m, T B)
{
    int64_t used = 0;
    for (int64_t p = 0; p < P; p++) {
        if (R[p] == R[p + 1]) {
            used++;
        } else {
            int64_t c = FN(stripe_count)(v, R[p], R[p + 1], B, m - used);
            if (c < 0 || c > m - used) {
                return 0;
            }
            used += c;
        }
        if (used > m) {
            return 0;
        }
    }
    return 1;
}

static wpart_status_t FN(m_probe_core)(FN(ctx_t) *cx, const int64_t *R, int64_t P, int64_t m,
                                       int64_t *out)
{
    wpart_status_t st = WPART_OK;
    const FN(view_t) *v = &cx->v;
    int64_t *cnt = wpart_i_malloc(P, sizeof(int64_t));
    T *val = wpart_i_malloc(P, sizeof(T));
    T *L = wpart_i_malloc(P, sizeof(T));
    int64_t *cap = wpart_i_malloc(P, sizeof(int64_t));
    if (!cnt || !val || !L || !cap) {
        WPART_FAIL(WPART_ENOMEM, "out of memory");
    }
    T tot = FN(load)(v, 0, v->n1, 0, v->n2);
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
            L[p] = FN(load)(v, R[p], R[p + 1], 0, v->n2);
            cap[p] = R[p] < R[p + 1] ? v->n2 : 1;
        }
        WPART_CHECK(FN(alloc)(L, P, m, cap, cnt));
        T ub = 0;
        const T *Sa, *Sb;
        for (int64_t p = 0; p < P; p++) {
            if (R[p] == R[p + 1]) {
                continue;
            }
            Sa = v->S + R[p] * v->s0;
            Sb = v->S + R[p + 1] * v->s0;
            T colmax = 0;
            for (int64_t j = 0; j < v->n2; j++) {
                T c = (Sb[(j + 1) * v->s1] - Sa[(j + 1) * v->s1]) - (Sb[j * v->s1] - Sa[j * v->s1]);
                colmax = c > colmax ? c : colmax;
            }
            T b = FN(ceil_div)(L[p], cnt[p]);
            b = colmax > tot - b ? tot : b + colmax; /* no int64 overflow near the limit */
            ub = b > ub ? b : ub;
        }
#if !IS_INT
        ub *= 1.0 + 1e-9;
#endif
        if (ub < tot && FN(mprobe_ok)(v, R, P, m, ub)) {
            hi = FN(key)(ub);
        }
    }
#if !IS_INT
    /* loads read along different prefix paths differ by rounding: make sure hi is feasible */
    {
        double b = FN(unkey)(hi);
        double eps = tot * 1e-12 + 1e-300;
        while (!FN(mprobe_ok)(v, R, P, m, b)) {
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
        int ok = FN(mprobe_ok)(v, R, P, m, FN(unkey)(mid));
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
        cnt[p] = R[p] == R[p + 1] ? 1 : FN(stripe_count)(v, R[p], R[p + 1], Bs, m);
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
                if (cnt[p] >= v->n2 || R[p] == R[p + 1]) {
                    continue;
                }
                if (kb < 0 || val[p] > val[kb]) {
                    kb = p;
                }
            }
            if (kb < 0) {
                cnt[0]++;
                continue;
            }
            cnt[kb]++;
            WPART_CHECK(FN(split_stripe)(cx, R[kb], R[kb + 1], cnt[kb], NULL, &val[kb]));
        }
    }
    WPART_CHECK(FN(emit_stripes)(cx, R, P, cnt, 0, out));
cleanup:
    free(cnt);
    free(val);
    free(L);
    free(cap);
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

static wpart_status_t FN(jag_m_alloc)(FN(ctx_t) *cx, const int64_t *Qp, int64_t P, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    FN(nested_t) nc;
    int64_t n1 = cx->v.n1;
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
    T B;
    WPART_CHECK(FN(gnicol)(cx, FN(nested_cost), &nc, n1, P, 0, &B, R));
    WPART_CHECK(nc.st);
    /* hand the parts of an empty stripe to the next non-empty one (else the previous) */
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
    WPART_CHECK(FN(emit_stripes)(cx, R, P, cnt, 0, out));
cleanup:
    FN(nested_free)(&nc);
    free(R);
    free(cnt);
    return st;
}

/* ---- m-way jagged with processor speeds (extension): processors in order, stripe by stripe */

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
        for (int64_t k = 0; k < q; k++) {
            out[4 * k] = a;
            out[4 * k + 1] = b;
            out[4 * k + 2] = cx->sep[k];
            out[4 * k + 3] = cx->sep[k + 1];
        }
    }
    return st;
}

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
    int64_t lo = 0, hi;
    double ub = tot / smin * (1.0 + 1e-12) + 1.0;
    memcpy(&hi, &ub, sizeof hi);
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        double B;
        memcpy(&B, &mid, sizeof B);
        int64_t pi = 0;
        int ok = 1;
        for (int64_t p = 0; p < P && ok; p++) {
            if (R[p] < R[p + 1]) {
                ok = FN(sp_stripe_greedy)(v, R[p], R[p + 1], B, sp, m, &pi);
            }
        }
        cx->stats->probes++;
        if (ok) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    double Bs;
    memcpy(&Bs, &lo, sizeof Bs);
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

static double FN(bott_of)(const FN(view_t) *v, const int64_t *rects, int64_t m,
                          const double *sp);

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

/* JAG-M-OPT (3.10): bisection on the bottleneck with an exact feasibility DP
 * N(i) = min_k N(k) + pieces(k, i, B) (fewest parts for rows [0, i)), bounded by the incumbent
 * of JAG-M-HEUR-PROBE; the stripes at B* are then completed by JAG-M-PROBE. */
static wpart_status_t FN(jag_m_opt)(FN(ctx_t) *cx, int64_t m, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    const FN(view_t) *v = &cx->v;
    int64_t n1 = v->n1;
    int64_t *N = wpart_i_malloc(n1 + 1, sizeof(int64_t));
    int64_t *arg = wpart_i_malloc(n1 + 1, sizeof(int64_t));
    int64_t *R = wpart_i_malloc(n1 + 2, sizeof(int64_t));
    if (!N || !arg || !R) {
        WPART_FAIL(WPART_ENOMEM, "out of memory");
    }
    WPART_CHECK(FN(jag_m_heur_probe)(cx, m, out));
    T ub = FN(lmax_of)(v, out, m);
#if !IS_INT
    /* rounding: the DP reads loads along other prefix paths than lmax_of */
    ub = ub * (1.0 + 1e-9) + FN(load)(v, 0, n1, 0, v->n2) * 1e-12 + 1e-300;
#endif
#if IS_INT
    int64_t lo = FN(ceil_div)(FN(load)(v, 0, n1, 0, v->n2), m);
#else
    int64_t lo = 0;
#endif
    int64_t hi = FN(key)(ub);
    if (lo > hi) {
        lo = hi;
    }
    int found = 0; /* arg[] holds the DP of the smallest feasible B so far */
    int64_t iter = 0;
    while (lo < hi || !found) {
        int64_t mid = lo < hi ? lo + (hi - lo) / 2 : lo;
        T B = FN(unkey)(mid);
        N[0] = 0;
        for (int64_t i = 1; i <= n1; i++) {
            int64_t best = m + 1, barg = -1;
            for (int64_t k = i - 1; k >= 0; k--) {
                int64_t nk = N[k];
                if (nk > m) {
                    continue;
                }
                T L = FN(load)(v, k, i, 0, v->n2);
                int64_t lbk;
#if IS_INT
                if (B == 0) {
                    lbk = L > 0 ? m + 1 : 1;
                } else {
                    __int128 x = ((__int128)L + B - 1) / B;
                    lbk = x > m + 1 ? m + 1 : (int64_t)x;
                }
#else
                if (B <= 0) {
                    lbk = L > 0 ? m + 1 : 1;
                } else {
                    double x = ceil(L / B);
                    lbk = x > (double)(m + 1) ? m + 1 : (int64_t)x;
                }
#endif
                if (lbk < 1) {
                    lbk = 1;
                }
                if (lbk >= best) {
                    break;
                }
                if (nk + lbk >= best) {
                    continue;
                }
                int64_t c = FN(stripe_count)(v, k, i, B, best - nk - 1);
                cx->stats->cost_evals++;
                if (c < 0) {
                    break;
                }
                if (c <= best - nk - 1) {
                    best = nk + c;
                    barg = k;
                }
            }
            N[i] = best;
            arg[i] = barg;
            cx->stats->dp_states++;
            if ((i & 63) == 0) {
                WPART_CHECK(wpart_i_poll(cx->opt->control, cx->t0,
                                         (double)iter + (double)i / (double)n1, 64.0));
            }
        }
        cx->stats->probes++;
        iter++;
        int ok = N[n1] <= m;
        if (lo >= hi) {
            if (!ok) {
                WPART_FAIL(WPART_EINTERNAL, "JAG-M-OPT: incumbent bound infeasible");
            }
            found = 1;
            break;
        }
        if (ok) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
        WPART_CHECK(wpart_i_poll(cx->opt->control, cx->t0, (double)iter, 64.0));
    }
    /* rebuild the stripes (arg[] belongs to the last DP run, which was at B = unkey(lo)) */
    int64_t P = 0;
    for (int64_t i = n1; i > 0; i = arg[i]) {
        R[P++] = i;
    }
    R[P] = 0;
    for (int64_t a = 0, b = P; a < b; a++, b--) {
        int64_t t = R[a];
        R[a] = R[b];
        R[b] = t;
    }
    cx->stats->P = P;
    cx->stats->iterations = iter;
    WPART_CHECK(FN(m_probe_core)(cx, R, P, m, out));
cleanup:
    free(N);
    free(arg);
    free(R);
    return st;
}

/* ---- JAG-M-OPT / JAG-M-ALLOC with processor speeds (extension) -----------------------------
 * Processors are used in the given order, stripe by stripe (stripe p holds the processors after
 * those of stripes 0..p-1); a processor may get an empty part. Feasibility of a bottleneck B is
 * tested with the comparison (double)load / speed <= B, monotone in the load, so the bisection
 * over the float64 keys of B finds the optimum exactly as the objective is computed. */

/* processors *pi, *pi+1, ... (below lim) take the longest column intervals of stripe [a, b)
 * with load / speed <= B; cuts (NULL or room for lim - *pi + 1) receives the separators.
 * Returns 1 when the stripe is covered. */
static int FN(spg)(const FN(view_t) *v, int64_t a, int64_t b, double B, const double *sp,
                   int64_t lim, int64_t *pi, int64_t *cuts)
{
    const T *Sa = v->S + a * v->s0, *Sb = v->S + b * v->s0;
    int64_t n = v->n2, t = 0, s1 = v->s1, k0 = *pi;
    if (cuts) {
        cuts[0] = 0;
    }
    while (t < n) {
        if (*pi >= lim) {
            return 0;
        }
        double s = sp[*pi];
        T wt = Sb[t * s1] - Sa[t * s1];
        int64_t lo = t, hi = n;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo + 1) / 2;
            if ((double)((Sb[mid * s1] - Sa[mid * s1]) - wt) / s <= B) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        t = lo;
        (*pi)++;
        if (cuts) {
            cuts[*pi - k0] = t;
        }
    }
    return 1;
}

/* largest b in [a, n1] such that stripe [a, b) fits processors [k, lim) at B */
static int64_t FN(sp_reach)(const FN(view_t) *v, int64_t a, double B, const double *sp,
                            int64_t k, int64_t lim)
{
    int64_t lo = a, hi = v->n1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2, pi = k;
        if (FN(spg)(v, a, mid, B, sp, lim, &pi, NULL)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

/* emit stripe [a, b) on processors [k, e) at B (greedy cuts; unused processors get empty
 * parts at the right end) */
static void FN(sp_emit)(FN(ctx_t) *cx, int64_t a, int64_t b, double B, int64_t k, int64_t e,
                        int64_t *out)
{
    const double *sp = cx->opt->speeds;
    int64_t pi = k, n2 = cx->v.n2;
    int64_t *c = cx->sep;
    if (a < b) {
        FN(spg)(&cx->v, a, b, B, sp, e, &pi, c);
    } else {
        c[0] = 0;
    }
    for (int64_t j = k; j < e; j++) {
        int64_t *r = out + 4 * j;
        r[0] = a;
        r[1] = b;
        r[2] = j < pi ? c[j - k] : n2;
        r[3] = j < pi ? c[j - k + 1] : n2;
    }
}

/* feasibility of B for the m-way jagged class: N[i] = fewest processors (in order) covering
 * rows [0, i); arg[i] the start of the last stripe */
static wpart_status_t FN(mopt_sp_test)(FN(ctx_t) *cx, int64_t m, double B, int64_t *N,
                                       int64_t *arg, int *ok)
{
    const FN(view_t) *v = &cx->v;
    const double *sp = cx->opt->speeds;
    int64_t n1 = v->n1;
    N[0] = 0;
    for (int64_t i = 1; i <= n1; i++) {
        int64_t best = m + 1, barg = -1;
        for (int64_t k = i - 1; k >= 0; k--) {
            if (N[k] >= best || N[k] >= m) {
                continue; /* N is non-decreasing in k: cannot improve */
            }
            int64_t pi = N[k];
            cx->stats->cost_evals++;
            if (FN(spg)(v, k, i, B, sp, best - 1 < m ? best - 1 : m, &pi, NULL) && pi < best) {
                best = pi;
                barg = k;
            }
        }
        N[i] = best;
        arg[i] = barg;
        cx->stats->dp_states++;
        if ((i & 15) == 0) {
            wpart_status_t st = wpart_i_poll(cx->opt->control, cx->t0,
                                             (double)cx->stats->probes + (double)i / (double)n1,
                                             64.0);
            if (st != WPART_OK) {
                return st;
            }
        }
    }
    *ok = N[n1] <= m;
    return wpart_i_poll(cx->opt->control, cx->t0, (double)cx->stats->probes, 64.0);
}

static wpart_status_t FN(jag_m_opt_sp)(FN(ctx_t) *cx, int64_t m, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    const FN(view_t) *v = &cx->v;
    const double *sp = cx->opt->speeds;
    int64_t n1 = v->n1;
    int64_t *N = wpart_i_malloc(n1 + 1, sizeof(int64_t));
    int64_t *arg = wpart_i_malloc(n1 + 1, sizeof(int64_t));
    int64_t *R = wpart_i_malloc(n1 + 2, sizeof(int64_t));
    if (!N || !arg || !R) {
        WPART_FAIL(WPART_ENOMEM, "out of memory");
    }
    /* upper bound: the first processor alone (load / speed of the whole window, with slack
     * for float prefix rounding) */
    double ub = (double)FN(load)(v, 0, n1, 0, v->n2) / sp[0];
    ub = ub * (1.0 + 1e-9) + 1e-300;
    int64_t lo = 0, hi;
    memcpy(&hi, &ub, sizeof hi);
    int ok = 0;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        double B;
        memcpy(&B, &mid, sizeof B);
        WPART_CHECK(FN(mopt_sp_test)(cx, m, B, N, arg, &ok));
        cx->stats->probes++;
        if (ok) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    double Bs;
    memcpy(&Bs, &lo, sizeof Bs);
    WPART_CHECK(FN(mopt_sp_test)(cx, m, Bs, N, arg, &ok));
    cx->stats->probes++;
    if (!ok) {
        WPART_FAIL(WPART_EINTERNAL, "JAG-M-OPT (speeds): upper bound infeasible");
    }
    int64_t P = 0;
    for (int64_t i = n1; i > 0; i = arg[i]) {
        R[P++] = i;
    }
    R[P] = 0;
    for (int64_t a = 0, b = P; a < b; a++, b--) {
        int64_t t = R[a];
        R[a] = R[b];
        R[b] = t;
    }
    cx->stats->P = P;
    cx->stats->iterations = cx->stats->probes;
    for (int64_t p = 0; p < P; p++) {
        int64_t k = N[R[p]], e = p == P - 1 ? m : N[R[p + 1]];
        FN(sp_emit)(cx, R[p], R[p + 1], Bs, k, e, out);
    }
cleanup:
    free(N);
    free(arg);
    free(R);
    return st;
}

/* JAG-M-ALLOC with speeds: stripe p holds processors [g_p, g_p + counts[p]); greedy stripes
 * (each as tall as its processors allow) decide B; an empty stripe leaves its processors idle */
static wpart_status_t FN(jag_m_alloc_sp)(FN(ctx_t) *cx, const int64_t *cnt, int64_t P,
                                         int64_t *out)
{
    const FN(view_t) *v = &cx->v;
    const double *sp = cx->opt->speeds;
    int64_t n1 = v->n1, m = 0;
    for (int64_t p = 0; p < P; p++) {
        m += cnt[p];
    }
    double smin = sp[0];
    for (int64_t k = 1; k < m; k++) {
        smin = sp[k] < smin ? sp[k] : smin;
    }
    double ub = (double)FN(load)(v, 0, n1, 0, v->n2) / smin;
    ub = ub * (1.0 + 1e-9) + 1e-300;
    int64_t lo = 0, hi;
    memcpy(&hi, &ub, sizeof hi);
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        double B;
        memcpy(&B, &mid, sizeof B);
        int64_t a = 0, g = 0;
        for (int64_t p = 0; p < P && a < n1; p++) {
            a = FN(sp_reach)(v, a, B, sp, g, g + cnt[p]);
            g += cnt[p];
        }
        cx->stats->probes++;
        if (a >= n1) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
        wpart_status_t st = wpart_i_poll(cx->opt->control, cx->t0, (double)cx->stats->probes,
                                         64.0);
        if (st != WPART_OK) {
            return st;
        }
    }
    double Bs;
    memcpy(&Bs, &lo, sizeof Bs);
    int64_t a = 0, g = 0;
    for (int64_t p = 0; p < P; p++) {
        int64_t b = p == P - 1 ? n1 : FN(sp_reach)(v, a, Bs, sp, g, g + cnt[p]);
        int64_t pi = g;
        if (a < b && !FN(spg)(v, a, b, Bs, sp, g + cnt[p], &pi, NULL)) {
            return wpart_i_error(WPART_EINTERNAL, "JAG-M-ALLOC (speeds): infeasible optimum");
        }
        FN(sp_emit)(cx, a, b, Bs, g, g + cnt[p], out);
        g += cnt[p];
        a = b;
    }
    cx->stats->iterations = cx->stats->probes;
    return WPART_OK;
}

/* ---- P x Q jagged with speeds (extension): stripe p runs on processors [pQ, pQ + Q) ------ */

static int FN(speeds_equal)(const double *sp, int64_t m)
{
    for (int64_t k = 1; k < m; k++) {
        if (sp[k] != sp[0]) {
            return 0;
        }
    }
    return 1;
}

/* JAG-PQ-HEUR: stripes by the exact 1D partition of the row loads with the stripes' total
 * speeds, then each stripe split exactly among its Q processors (equal speeds: the homogeneous
 * heuristic, so the same rectangles) */
static wpart_status_t FN(jag_pq_heur_sp)(FN(ctx_t) *cx, int64_t P, int64_t Q, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    const double *sp = cx->opt->speeds;
    if (FN(speeds_equal)(sp, P * Q)) {
        return FN(jag_pq_heur)(cx, P, Q, out);
    }
    int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
    double *G = wpart_i_malloc(P, sizeof(double));
    if (!R || !G) {
        WPART_FAIL(WPART_ENOMEM, "out of memory");
    }
    for (int64_t p = 0; p < P; p++) {
        G[p] = 0;
        for (int64_t j = 0; j < Q; j++) {
            G[p] += sp[p * Q + j];
        }
    }
    FN(rows_w)(&cx->v, cx->W);
    WPART_CHECK(FN(base1d_sp)(cx->W, cx->v.n1, P, G, cx->opt->control, R));
    for (int64_t p = 0; p < P; p++) {
        WPART_CHECK(FN(split_stripe_sp)(cx, R[p], R[p + 1], sp + p * Q, Q, out + 4 * p * Q));
    }
cleanup:
    free(R);
    free(G);
    return st;
}

/* JAG-PQ-OPT (both engines): the exact JAG-M-ALLOC with speeds for P counts of Q */
static wpart_status_t FN(jag_pq_opt_sp)(FN(ctx_t) *cx, int64_t P, int64_t Q, int64_t *out)
{
    int64_t *cnt = wpart_i_malloc(P, sizeof(int64_t));
    if (!cnt) {
        return wpart_i_error(WPART_ENOMEM, "out of memory");
    }
    for (int64_t p = 0; p < P; p++) {
        cnt[p] = Q;
    }
    wpart_status_t st = FN(jag_m_alloc_sp)(cx, cnt, P, out);
    free(cnt);
    return st;
}

/* ---- hierarchical (3.11 - 3.13) ---------------------------------------------------------- */

typedef struct {
    const FN(view_t) *v;
    int64_t *out;
    int64_t nout;
    int rule, tie_first;
    const wpart_control_t *ctl;
    double t0;
    int64_t steps;
    const double *SP;  /* prefix of the speeds (m+1) or NULL */
    int64_t ck[5];     /* cache: the node (r0, r1, c0, c1, area) whose load is cL */
    T cL;
} FN(hier_t);

static inline T FN(hl)(const FN(hier_t) *h, int area, int64_t a, int64_t b, int64_t c, int64_t d)
{
    if (area) {
        return (T)((b - a) * (d - c));
    }
    return FN(load)(h->v, a, b, c, d);
}

static void FN(emit)(FN(hier_t) *h, int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t *o = h->out + 4 * h->nout++;
    o[0] = a;
    o[1] = b;
    o[2] = c;
    o[3] = d;
}

/* loads of the two sides when cutting dimension d of rect at c */
static inline void FN(sides)(FN(hier_t) *h, int area, const int64_t *r, int d, int64_t c,
                             T *L1, T *L2)
{
    /* L2 = load(node) - L1: the node's load is cached, so a cut costs 4 reads, not 8 */
    if (h->ck[0] != r[0] || h->ck[1] != r[1] || h->ck[2] != r[2] || h->ck[3] != r[3] ||
        h->ck[4] != area) {
        h->ck[0] = r[0];
        h->ck[1] = r[1];
        h->ck[2] = r[2];
        h->ck[3] = r[3];
        h->ck[4] = area;
        h->cL = FN(hl)(h, area, r[0], r[1], r[2], r[3]);
    }
    *L1 = d == 0 ? FN(hl)(h, area, r[0], c, r[2], r[3]) : FN(hl)(h, area, r[0], r[1], r[2], c);
    *L2 = h->cL - *L1;
#if !IS_INT
    if (*L2 < 0) {
        *L2 = 0;
    }
#endif
}

/* objective max(L1/q1, L2/q2) at cut c, as a fraction */
static inline void FN(obj)(FN(hier_t) *h, int area, const int64_t *r, int d, int64_t c,
                           int64_t q1, int64_t q2, T *num, int64_t *den)
{
    T L1, L2;
    FN(sides)(h, area, r, d, c, &L1, &L2);
    if (FN(frac_lt)(L1, q1, L2, q2)) {
        *num = L2;
        *den = q2;
    } else {
        *num = L1;
        *den = q1;
    }
}

/* feasible cut range in dimension d for q1 | q2 parts; 0 if none */
static int FN(cut_range)(const int64_t *r, int d, int64_t q1, int64_t q2, int64_t *lo,
                         int64_t *hi)
{
    int64_t s = d == 0 ? r[0] : r[2], e = d == 0 ? r[1] : r[3];
    int64_t w = d == 0 ? r[3] - r[2] : r[1] - r[0];
    if (w <= 0 || e - s < 2) {
        return 0;
    }
    *lo = s + (q1 + w - 1) / w;
    *hi = e - (q2 + w - 1) / w;
    return *lo <= *hi;
}

/* best cut for a fixed (d, q1, q2): minimal objective; returns 0 if infeasible */
static int FN(bestcut)(FN(hier_t) *h, int area, const int64_t *r, int d, int64_t q1, int64_t q2,
                       int64_t *cut, T *num, int64_t *den)
{
    int64_t lo, hi;
    if (!FN(cut_range)(r, d, q1, q2, &lo, &hi)) {
        return 0;
    }
    /* smallest c in [lo, hi] with L1/q1 >= L2/q2 (hi if none): gallop from the
     * area-proportional guess, then bisect */
    int64_t s0 = d == 0 ? r[0] : r[2], e0 = d == 0 ? r[1] : r[3];
    int64_t est = s0 + (int64_t)((__int128)(e0 - s0) * q1 / (q1 + q2));
    est = est < lo ? lo : (est > hi ? hi : est);
    int64_t a, b, step = 1;
    T L1, L2;
    FN(sides)(h, area, r, d, est, &L1, &L2);
    if (!FN(frac_lt)(L1, q1, L2, q2)) {
        b = est;
        for (;;) {
            if (b - step < lo) {
                break;
            }
            FN(sides)(h, area, r, d, b - step, &L1, &L2);
            if (FN(frac_lt)(L1, q1, L2, q2)) {
                break;
            }
            b -= step;
            step *= 2;
        }
        a = b - step + 1 > lo ? b - step + 1 : lo;
    } else {
        int64_t x = est;
        for (;;) {
            if (x + step > hi) {
                break;
            }
            FN(sides)(h, area, r, d, x + step, &L1, &L2);
            if (!FN(frac_lt)(L1, q1, L2, q2)) {
                break;
            }
            x += step;
            step *= 2;
        }
        a = x + 1;
        b = x + step < hi ? x + step : hi;
    }
    while (a < b) {
        int64_t mid = a + (b - a) / 2;
        FN(sides)(h, area, r, d, mid, &L1, &L2);
        if (!FN(frac_lt)(L1, q1, L2, q2)) {
            b = mid;
        } else {
            a = mid + 1;
        }
    }
    h->steps++;
    FN(obj)(h, area, r, d, a, q1, q2, num, den);
    *cut = a;
    if (a > lo) {
        T n2;
        int64_t d2;
        FN(obj)(h, area, r, d, a - 1, q1, q2, &n2, &d2);
        if (!FN(frac_lt)(*num, *den, n2, d2)) { /* <=: prefer the smaller cut */
            *num = n2;
            *den = d2;
            *cut = a - 1;
        }
    }
    return 1;
}

/* plateau rule (3.11): among the minimisers pick the cut closest to the area-proportional one */
static int64_t FN(plateau)(FN(hier_t) *h, int area, const int64_t *r, int d, int64_t q1,
                           int64_t q2, int64_t cbest, T num, int64_t den)
{
    int64_t lo = cbest, hi = cbest;
    FN(cut_range)(r, d, q1, q2, &lo, &hi);
    {
        T n2;
        int64_t d2;
        int left = cbest == lo, right = cbest == hi;
        if (!left) {
            FN(obj)(h, area, r, d, cbest - 1, q1, q2, &n2, &d2);
            left = FN(frac_lt)(num, den, n2, d2);
        }
        if (left && !right) {
            FN(obj)(h, area, r, d, cbest + 1, q1, q2, &n2, &d2);
            right = FN(frac_lt)(num, den, n2, d2);
        }
        if (left && right) { /* strict minimum: no plateau */
            return cbest;
        }
    }
    int64_t a = lo, b = cbest; /* smallest c in [lo, cbest] with obj(c) <= v */
    while (a < b) {
        int64_t mid = a + (b - a) / 2;
        T n2;
        int64_t d2;
        FN(obj)(h, area, r, d, mid, q1, q2, &n2, &d2);
        if (!FN(frac_lt)(num, den, n2, d2)) {
            b = mid;
        } else {
            a = mid + 1;
        }
    }
    int64_t ca = a;
    if (h->tie_first) {
        return ca;
    }
    a = cbest;
    b = hi; /* largest c in [cbest, hi] with obj(c) <= v */
    while (a < b) {
        int64_t mid = a + (b - a + 1) / 2;
        T n2;
        int64_t d2;
        FN(obj)(h, area, r, d, mid, q1, q2, &n2, &d2);
        if (!FN(frac_lt)(num, den, n2, d2)) {
            a = mid;
        } else {
            b = mid - 1;
        }
    }
    int64_t cb = a;
    if (ca == cb) {
        return ca;
    }
    int64_t s = d == 0 ? r[0] : r[2], e = d == 0 ? r[1] : r[3];
    int64_t q = q1 + q2;
    /* target s + (e - s) q1 / q: compare |c - target| via |q (c - s) - (e - s) q1| */
    __int128 tq = (__int128)(e - s) * q1;
    int64_t c0 = s + (int64_t)(tq / q);
    int64_t best = -1;
    __int128 bd = 0;
    for (int64_t c = c0; c <= c0 + 1; c++) {
        int64_t cc = c < ca ? ca : (c > cb ? cb : c);
        __int128 dist = (__int128)q * (cc - s) - tq;
        if (dist < 0) {
            dist = -dist;
        }
        if (best < 0 || dist < bd || (dist == bd && cc < best)) {
            best = cc;
            bd = dist;
        }
    }
    return best;
}

static void FN(emit_cells)(FN(hier_t) *h, const int64_t *r, int64_t q)
{
    int64_t k = 0;
    for (int64_t i = r[0]; i < r[1]; i++) {
        for (int64_t j = r[2]; j < r[3]; j++) {
            FN(emit)(h, i, i + 1, j, j + 1);
            k++;
        }
    }
    for (; k < q; k++) {
        FN(emit)(h, r[0], r[0], r[2], r[2]);
    }
}

static int FN(dims)(const FN(hier_t) *h, const int64_t *r, int depth, int *ds)
{
    int64_t e0 = r[1] - r[0], e1 = r[3] - r[2];
    int d;
    switch (h->rule) {
    case WPART_SP_LOAD:
        ds[0] = 0;
        ds[1] = 1;
        return 2;
    case WPART_SP_DIST:
        d = e1 > e0 ? 1 : 0;
        break;
    case WPART_SP_DIMHOR:
        d = depth % 2;
        break;
    default:
        d = (depth + 1) % 2;
        break;
    }
    if ((d == 0 ? e0 : e1) < 2) {
        d = 1 - d;
    }
    ds[0] = d;
    return 1;
}

/* fallback when no cut of the preferred shares exists: the feasible q1 nearest q/2 */
static int FN(fallback)(FN(hier_t) *h, int area, const int64_t *r, int64_t q, int *bd,
                        int64_t *bq1, int64_t *bc, T *bn, int64_t *bden)
{
    for (int64_t delta = 0; delta < q; delta++) {
        int got = 0;
        for (int sgn = 0; sgn < 2; sgn++) {
            int64_t q1 = sgn == 0 ? q / 2 - delta : q - q / 2 + delta;
            if (q1 < 1 || q1 >= q) {
                continue;
            }
            for (int d = 0; d < 2; d++) {
                int64_t c, den;
                T num;
                if (FN(bestcut)(h, area, r, d, q1, q - q1, &c, &num, &den) &&
                    (!got || FN(frac_lt)(num, den, *bn, *bden))) {
                    got = 1;
                    *bd = d;
                    *bq1 = q1;
                    *bc = c;
                    *bn = num;
                    *bden = den;
                }
            }
        }
        if (got) {
            return 1;
        }
    }
    return 0;
}

/* Shared start of a hierarchical node (with or without speeds): emit leaves and nodes with
 * fewer cells than parts, poll the control hooks, and switch a zero-load node of HIER-RELAXED
 * to the area rule (spec 8 item 5). Returns 1 when the node is finished (*st says how). */
static int FN(hier_node_start)(FN(hier_t) *h, const int64_t *r, int64_t q, int relaxed,
                               int *area, wpart_status_t *st)
{
    *st = WPART_OK;
    if (q == 1) {
        FN(emit)(h, r[0], r[1], r[2], r[3]);
        return 1;
    }
    if ((r[1] - r[0]) * (r[3] - r[2]) < q) {
        FN(emit_cells)(h, r, q);
        return 1;
    }
    if ((h->steps & 1023) == 0) {
        *st = wpart_i_poll(h->ctl, h->t0, 0, 0);
        if (*st != WPART_OK) {
            return 1;
        }
    }
    if (relaxed && !*area && FN(load)(h->v, r[0], r[1], r[2], r[3]) == 0) {
        *area = 1;
    }
    return 0;
}

static wpart_status_t FN(hier_rec)(FN(hier_t) *h, const int64_t *r, int64_t q, int depth,
                                   int relaxed, int area)
{
    wpart_status_t st0;
    if (FN(hier_node_start)(h, r, q, relaxed, &area, &st0)) {
        return st0;
    }
    int ds[2];
    int nd = FN(dims)(h, r, depth, ds);
    int got = 0, bd = 0;
    int64_t bq1 = 0, bc = 0, bden = 1;
    T bn = 0;
    if (!relaxed) {
        int64_t qs[2] = {q / 2, q - q / 2};
        int nq = qs[0] == qs[1] ? 1 : 2;
        for (int iq = 0; iq < nq; iq++) {
            for (int id = 0; id < nd; id++) {
                int64_t c, den;
                T num;
                if (FN(bestcut)(h, area, r, ds[id], qs[iq], q - qs[iq], &c, &num, &den) &&
                    (!got || FN(frac_lt)(num, den, bn, bden))) {
                    got = 1;
                    bd = ds[id];
                    bq1 = qs[iq];
                    bc = c;
                    bn = num;
                    bden = den;
                }
            }
        }
    } else {
        int64_t bpen = 0;
        for (int id = 0; id < nd; id++) {
            for (int64_t x = 1; x < q; x++) {
                int64_t c, den;
                T num;
                if (!FN(bestcut)(h, area, r, ds[id], x, q - x, &c, &num, &den)) {
                    continue;
                }
                int64_t pen = 2 * x - q < 0 ? q - 2 * x : 2 * x - q;
                int better = !got || FN(frac_lt)(num, den, bn, bden) ||
                             (!FN(frac_lt)(bn, bden, num, den) && pen < bpen);
                if (better) {
                    got = 1;
                    bd = ds[id];
                    bq1 = x;
                    bc = c;
                    bn = num;
                    bden = den;
                    bpen = pen;
                }
            }
        }
    }
    if (!got && !FN(fallback)(h, area, r, q, &bd, &bq1, &bc, &bn, &bden)) {
        return wpart_i_error(WPART_EINTERNAL, "HIER: no feasible cut");
    }
    int64_t c = FN(plateau)(h, area, r, bd, bq1, q - bq1, bc, bn, bden);
    int64_t r1[4] = {r[0], r[1], r[2], r[3]}, r2[4] = {r[0], r[1], r[2], r[3]};
    if (bd == 0) {
        r1[1] = c;
        r2[0] = c;
    } else {
        r1[3] = c;
        r2[2] = c;
    }
    wpart_status_t st = FN(hier_rec)(h, r1, bq1, depth + 1, relaxed, area);
    if (st == WPART_OK) {
        st = FN(hier_rec)(h, r2, q - bq1, depth + 1, relaxed, area);
    }
    return st;
}

/* ---- hierarchical with processor speeds (extension): processors [p0, p0+q) in order ---- */

static inline double FN(hw)(const FN(hier_t) *h, int64_t a, int64_t b)
{
    return h->SP[b] - h->SP[a];
}

static int FN(hs_cut)(FN(hier_t) *h, int area, const int64_t *r, int d, int64_t p0, int64_t q1,
                      int64_t q2, int64_t *cut, double *val)
{
    int64_t lo, hi;
    if (!FN(cut_range)(r, d, q1, q2, &lo, &hi)) {
        return 0;
    }
    double w1 = FN(hw)(h, p0, p0 + q1), w2 = FN(hw)(h, p0 + q1, p0 + q1 + q2);
    int64_t a = lo, b = hi;
    T L1, L2;
    while (a < b) { /* smallest c with L1/w1 >= L2/w2 */
        int64_t mid = a + (b - a) / 2;
        FN(sides)(h, area, r, d, mid, &L1, &L2);
        if ((double)L1 * w2 >= (double)L2 * w1) {
            b = mid;
        } else {
            a = mid + 1;
        }
    }
    h->steps++;
    FN(sides)(h, area, r, d, a, &L1, &L2);
    double v = fmax((double)L1 / w1, (double)L2 / w2);
    *cut = a;
    if (a > lo) {
        FN(sides)(h, area, r, d, a - 1, &L1, &L2);
        double v2 = fmax((double)L1 / w1, (double)L2 / w2);
        if (v2 <= v) {
            v = v2;
            *cut = a - 1;
        }
    }
    *val = v;
    return 1;
}

static wpart_status_t FN(hs_rec)(FN(hier_t) *h, const int64_t *r, int64_t p0, int64_t q,
                                 int depth, int relaxed, int area)
{
    wpart_status_t st0;
    if (FN(hier_node_start)(h, r, q, relaxed, &area, &st0)) {
        return st0;
    }
    int ds[2];
    int nd = FN(dims)(h, r, depth, ds);
    int got = 0, bd = 0;
    int64_t bq1 = 0, bc = 0, bpen = 0;
    double bv = 0;
    for (int pass = 0; pass < 2 && !got; pass++) {
        int64_t xlo = 1, xhi = q - 1;
        if (!relaxed && pass == 0) {
            xlo = q / 2;
            xhi = q - q / 2;
        }
        int ndd = pass == 0 ? nd : 2;
        int dd[2] = {pass == 0 ? ds[0] : 0, pass == 0 ? ds[1] : 1};
        int64_t nx = xhi - xlo + 1;
        for (int64_t it = 0; it < nx * ndd; it++) {
            /* RB: shares outer, dimensions inner; RELAXED: dimensions outer (as hier_rec) */
            int rbmode = !relaxed && pass == 0;
            int id = (int)(rbmode ? it % ndd : it / nx);
            int64_t x = xlo + (rbmode ? it / ndd : it % nx);
            {
                int64_t c;
                double v;
                if (!FN(hs_cut)(h, area, r, dd[id], p0, x, q - x, &c, &v)) {
                    continue;
                }
                int64_t pen = 2 * x - q < 0 ? q - 2 * x : 2 * x - q;
                if (!got || v < bv || (v == bv && pen < bpen)) {
                    got = 1;
                    bd = dd[id];
                    bq1 = x;
                    bc = c;
                    bv = v;
                    bpen = pen;
                }
            }
        }
    }
    if (!got) {
        return wpart_i_error(WPART_EINTERNAL, "HIER: no feasible cut");
    }
    int64_t r1[4] = {r[0], r[1], r[2], r[3]}, r2[4] = {r[0], r[1], r[2], r[3]};
    if (bd == 0) {
        r1[1] = bc;
        r2[0] = bc;
    } else {
        r1[3] = bc;
        r2[2] = bc;
    }
    wpart_status_t st = FN(hs_rec)(h, r1, p0, bq1, depth + 1, relaxed, area);
    if (st == WPART_OK) {
        st = FN(hs_rec)(h, r2, p0 + bq1, q - bq1, depth + 1, relaxed, area);
    }
    return st;
}

static wpart_status_t FN(hier)(FN(ctx_t) *cx, int64_t m, int relaxed, int64_t *out)
{
    FN(hier_t) h;
    memset(&h, 0, sizeof h);
    h.ck[0] = -1; /* empty cache */
    h.v = &cx->v;
    h.out = out;
    h.rule = cx->opt->rule;
    h.tie_first = cx->opt->tie_first;
    h.ctl = cx->opt->control;
    h.t0 = cx->t0;
    int64_t r[4] = {0, cx->v.n1, 0, cx->v.n2};
    wpart_status_t st;
    if (cx->opt->speeds) {
        double *SP = wpart_i_malloc(m + 1, sizeof(double));
        if (!SP) {
            return wpart_i_error(WPART_ENOMEM, "out of memory");
        }
        SP[0] = 0;
        for (int64_t k = 0; k < m; k++) {
            SP[k + 1] = SP[k] + cx->opt->speeds[k];
        }
        h.SP = SP;
        st = FN(hs_rec)(&h, r, 0, m, 0, relaxed, 0);
        free(SP);
    } else {
        st = FN(hier_rec)(&h, r, m, 0, relaxed, 0);
    }
    cx->stats->iterations = h.steps;
    return st;
}

/* HIER-OPT (3.13): memoised DP over (row interval, column interval, q) with bisection on c */
typedef struct {
    const FN(view_t) *v;
    T *memo;
    int64_t n1, n2, I1, qmax;
    int64_t states;
    const wpart_control_t *ctl;
    double t0;
    wpart_status_t st;
    int64_t *out;
    int64_t nout;
} FN(hopt_t);

static inline int64_t FN(iv)(int64_t a, int64_t b, int64_t n)
{
    return a * (2 * n - a + 1) / 2 + (b - a - 1);
}

static T FN(H)(FN(hopt_t) *o, int64_t x1, int64_t x2, int64_t y1, int64_t y2, int64_t q);

static inline T FN(hpair)(FN(hopt_t) *o, int d, const int64_t *r, int64_t c, int64_t j, int64_t q,
                          T *A, T *B)
{
    if (d == 0) {
        *A = FN(H)(o, r[0], c, r[2], r[3], j);
        *B = FN(H)(o, c, r[1], r[2], r[3], q - j);
    } else {
        *A = FN(H)(o, r[0], r[1], r[2], c, j);
        *B = FN(H)(o, r[0], r[1], c, r[3], q - j);
    }
    return *A > *B ? *A : *B;
}

/* best (value, d, j, c) of a node; returns the value */
static T FN(hbest)(FN(hopt_t) *o, const int64_t *r, int64_t q, int *bd, int64_t *bj, int64_t *bc)
{
    T L = FN(load)(o->v, r[0], r[1], r[2], r[3]);
    T lb = FN(ceil_div)(L, q);
    T best = TINF;
    for (int d = 0; d < 2; d++) {
        for (int64_t j = 1; j < q; j++) {
            int64_t lo, hi;
            if (!FN(cut_range)(r, d, j, q - j, &lo, &hi)) {
                continue;
            }
            int64_t a = lo, b = hi;
            T A, B;
            while (a < b) { /* smallest c with H(left, j) >= H(right, q - j) */
                int64_t mid = a + (b - a) / 2;
                FN(hpair)(o, d, r, mid, j, q, &A, &B);
                if (A >= B) {
                    b = mid;
                } else {
                    a = mid + 1;
                }
            }
            T val = FN(hpair)(o, d, r, a, j, q, &A, &B);
            int64_t c = a;
            if (a > lo) {
                T v2 = FN(hpair)(o, d, r, a - 1, j, q, &A, &B);
                if (v2 <= val) {
                    val = v2;
                    c = a - 1;
                }
            }
            if (o->st != WPART_OK) {
                return 0;
            }
            if (val < best) {
                best = val;
                *bd = d;
                *bj = j;
                *bc = c;
                if (best <= lb) {
                    return best;
                }
            }
        }
    }
    return best;
}

static T FN(H)(FN(hopt_t) *o, int64_t x1, int64_t x2, int64_t y1, int64_t y2, int64_t q)
{
    if (q == 1 || (x2 - x1) * (y2 - y1) == 1 || o->st != WPART_OK) {
        return FN(load)(o->v, x1, x2, y1, y2);
    }
    int64_t idx = (FN(iv)(x1, x2, o->n1) * o->I1 + FN(iv)(y1, y2, o->n2)) * o->qmax + (q - 1);
    if (o->memo[idx] >= 0) {
        return o->memo[idx];
    }
    int64_t r[4] = {x1, x2, y1, y2}, bj, bc;
    int bd;
    T val = FN(hbest)(o, r, q, &bd, &bj, &bc);
    o->memo[idx] = val;
    if ((++o->states & 4095) == 0 && o->st == WPART_OK) {
        o->st = wpart_i_poll(o->ctl, o->t0, 0, 0);
    }
    return val;
}

static void FN(hopt_emit)(FN(hopt_t) *o, const int64_t *r, int64_t q)
{
    if (q == 1 || (r[1] - r[0]) * (r[3] - r[2]) == 1) {
        int64_t *p = o->out + 4 * o->nout++;
        memcpy(p, r, 4 * sizeof(int64_t));
        return;
    }
    int bd = 0;
    int64_t bj = 1, bc = r[0] + 1;
    FN(hbest)(o, r, q, &bd, &bj, &bc);
    int64_t r1[4] = {r[0], r[1], r[2], r[3]}, r2[4] = {r[0], r[1], r[2], r[3]};
    if (bd == 0) {
        r1[1] = bc;
        r2[0] = bc;
    } else {
        r1[3] = bc;
        r2[2] = bc;
    }
    FN(hopt_emit)(o, r1, bj);
    FN(hopt_emit)(o, r2, q - bj);
}

static wpart_status_t FN(hier_opt)(FN(ctx_t) *cx, int64_t m, int64_t *out)
{
    FN(hopt_t) o;
    memset(&o, 0, sizeof o);
    o.v = &cx->v;
    o.n1 = cx->v.n1;
    o.n2 = cx->v.n2;
    int64_t cells = o.n1 * o.n2;
    int64_t q = m < cells ? m : cells;
    int64_t I0 = o.n1 * (o.n1 + 1) / 2;
    o.I1 = o.n2 * (o.n2 + 1) / 2;
    o.qmax = q;
    int64_t cap = cx->opt->max_states > 0 ? cx->opt->max_states : 20000000;
    int64_t states;
    if (!wpart_i_mul_size(I0, o.I1, &states) || !wpart_i_mul_size(states, q, &states) ||
        states > cap) {
        return wpart_i_error(WPART_ELIMIT,
                             "HIER-OPT needs %" PRId64 " x %" PRId64 " x %" PRId64
                             " DP states, above max_states = %" PRId64,
                             I0, o.I1, q, cap);
    }
    o.memo = wpart_i_malloc(states, sizeof(T));
    if (!o.memo) {
        return wpart_i_error(WPART_ENOMEM, "out of memory for %" PRId64 " DP states", states);
    }
    for (int64_t i = 0; i < states; i++) {
        o.memo[i] = -1;
    }
    o.ctl = cx->opt->control;
    o.t0 = cx->t0;
    o.out = out;
    FN(H)(&o, 0, o.n1, 0, o.n2, q);
    if (o.st == WPART_OK) {
        int64_t r[4] = {0, o.n1, 0, o.n2};
        FN(hopt_emit)(&o, r, q);
        for (int64_t k = q; k < m; k++) {
            int64_t *p = out + 4 * o.nout++;
            p[0] = p[1] = p[2] = p[3] = 0;
        }
    }
    cx->stats->dp_states = o.states;
    free(o.memo);
    return o.st;
}

/* HIER-OPT with processor speeds (extension): a node holding processors [k, k+q) (in the
 * given order) either drops its first or last processor (which then idles with an empty
 * part) or is cut strictly inside into [k, k+j) for the first (top / left) side and
 * [k+j, k+q) for the second; a single processor costs load / speed. Dropping processors
 * makes the value monotone under inclusion, so the cut position is found by bisection as in
 * the homogeneous DP. Memo over (row interval, column interval, k, q). */
typedef struct {
    const FN(view_t) *v;
    const double *sp;
    double *memo;
    int64_t n1, n2, I1, m;
    int64_t states;
    const wpart_control_t *ctl;
    double t0;
    wpart_status_t st;
    int64_t *out;
} FN(hsp_t);

static double FN(Hs)(FN(hsp_t) *o, const int64_t *r, int64_t k, int64_t q);

static double FN(hs_pair)(FN(hsp_t) *o, int d, const int64_t *r, int64_t c, int64_t k,
                          int64_t j, int64_t q, double *A, double *B)
{
    int64_t r1[4] = {r[0], r[1], r[2], r[3]}, r2[4] = {r[0], r[1], r[2], r[3]};
    if (d == 0) {
        r1[1] = c;
        r2[0] = c;
    } else {
        r1[3] = c;
        r2[2] = c;
    }
    *A = FN(Hs)(o, r1, k, j);
    *B = FN(Hs)(o, r2, k + j, q - j);
    return *A > *B ? *A : *B;
}

/* best choice of a node: *bd = 2 drop the first processor, 3 drop the last, else cut
 * dimension d at *bc with *bj processors on the first side */
static double FN(hs_best)(FN(hsp_t) *o, const int64_t *r, int64_t k, int64_t q, int *bd,
                          int64_t *bj, int64_t *bc)
{
    double best = FN(Hs)(o, r, k + 1, q - 1);
    *bd = 2;
    double x = FN(Hs)(o, r, k, q - 1);
    if (x < best) {
        best = x;
        *bd = 3;
    }
    for (int d = 0; d < 2; d++) {
        int64_t lo = r[2 * d] + 1, hi = r[2 * d + 1] - 1;
        if (lo > hi) {
            continue;
        }
        for (int64_t j = 1; j < q; j++) {
            int64_t a = lo, b = hi;
            double A, B;
            while (a < b) { /* smallest c with H(first) >= H(second) */
                int64_t mid = a + (b - a) / 2;
                FN(hs_pair)(o, d, r, mid, k, j, q, &A, &B);
                if (A >= B) {
                    b = mid;
                } else {
                    a = mid + 1;
                }
            }
            double val = FN(hs_pair)(o, d, r, a, k, j, q, &A, &B);
            int64_t c = a;
            if (a > lo) {
                double v2 = FN(hs_pair)(o, d, r, a - 1, k, j, q, &A, &B);
                if (v2 <= val) {
                    val = v2;
                    c = a - 1;
                }
            }
            if (o->st != WPART_OK) {
                return 0;
            }
            if (val < best) {
                best = val;
                *bd = d;
                *bj = j;
                *bc = c;
            }
        }
    }
    return best;
}

static double FN(Hs)(FN(hsp_t) *o, const int64_t *r, int64_t k, int64_t q)
{
    if (q == 1 || o->st != WPART_OK) {
        return (double)FN(load)(o->v, r[0], r[1], r[2], r[3]) / o->sp[k];
    }
    int64_t idx = ((FN(iv)(r[0], r[1], o->n1) * o->I1 + FN(iv)(r[2], r[3], o->n2)) * o->m + k) *
                      o->m + (q - 1);
    if (o->memo[idx] >= 0) {
        return o->memo[idx];
    }
    int bd;
    int64_t bj = 1, bc = 0;
    double val = FN(hs_best)(o, r, k, q, &bd, &bj, &bc);
    o->memo[idx] = val;
    if ((++o->states & 4095) == 0 && o->st == WPART_OK) {
        o->st = wpart_i_poll(o->ctl, o->t0, 0, 0);
    }
    return val;
}

static void FN(hs_emit)(FN(hsp_t) *o, const int64_t *r, int64_t k, int64_t q)
{
    if (q == 1) {
        memcpy(o->out + 4 * k, r, 4 * sizeof(int64_t));
        return;
    }
    int bd = 2;
    int64_t bj = 1, bc = 0;
    FN(hs_best)(o, r, k, q, &bd, &bj, &bc);
    if (bd >= 2) {
        int64_t idle = bd == 2 ? k : k + q - 1, *p = o->out + 4 * idle;
        p[0] = p[1] = r[0];
        p[2] = p[3] = r[2];
        FN(hs_emit)(o, r, bd == 2 ? k + 1 : k, q - 1);
        return;
    }
    int64_t r1[4] = {r[0], r[1], r[2], r[3]}, r2[4] = {r[0], r[1], r[2], r[3]};
    if (bd == 0) {
        r1[1] = bc;
        r2[0] = bc;
    } else {
        r1[3] = bc;
        r2[2] = bc;
    }
    FN(hs_emit)(o, r1, k, bj);
    FN(hs_emit)(o, r2, k + bj, q - bj);
}

static wpart_status_t FN(hier_opt_sp)(FN(ctx_t) *cx, int64_t m, int64_t *out)
{
    FN(hsp_t) o;
    memset(&o, 0, sizeof o);
    o.v = &cx->v;
    o.sp = cx->opt->speeds;
    o.n1 = cx->v.n1;
    o.n2 = cx->v.n2;
    o.m = m;
    int64_t I0 = o.n1 * (o.n1 + 1) / 2;
    o.I1 = o.n2 * (o.n2 + 1) / 2;
    int64_t cap = cx->opt->max_states > 0 ? cx->opt->max_states : 20000000;
    int64_t states;
    if (!wpart_i_mul_size(I0, o.I1, &states) || !wpart_i_mul_size(states, m, &states) ||
        !wpart_i_mul_size(states, m, &states) || states > cap) {
        return wpart_i_error(WPART_ELIMIT,
                             "HIER-OPT with speeds needs %" PRId64 " x %" PRId64 " x %" PRId64
                             "^2 DP states, above max_states = %" PRId64,
                             I0, o.I1, m, cap);
    }
    o.memo = wpart_i_malloc(states, sizeof(double));
    if (!o.memo) {
        return wpart_i_error(WPART_ENOMEM, "out of memory for %" PRId64 " DP states", states);
    }
    for (int64_t i = 0; i < states; i++) {
        o.memo[i] = -1;
    }
    o.ctl = cx->opt->control;
    o.t0 = cx->t0;
    o.out = out;
    int64_t r[4] = {0, o.n1, 0, o.n2};
    FN(Hs)(&o, r, 0, m);
    if (o.st == WPART_OK) {
        FN(hs_emit)(&o, r, 0, m);
    }
    cx->stats->dp_states = o.states;
    free(o.memo);
    return o.st;
}

/* ---- driver ------------------------------------------------------------------------------- */

static wpart_status_t FN(run_oriented)(FN(ctx_t) *cx, int64_t m, int64_t *out)
{
    const wpart_spatial_options_t *opt = cx->opt;
    switch (opt->method) {
    case WPART_SP_JAG_PQ_HEUR:
        if (opt->speeds) {
            return FN(jag_pq_heur_sp)(cx, opt->P, opt->Q, out);
        }
        return FN(jag_pq_heur)(cx, opt->P, opt->Q, out);
    case WPART_SP_JAG_PQ_OPT_NICOL:
    case WPART_SP_JAG_PQ_OPT_DP:
        if (opt->speeds) {
            cx->stats->P = opt->P;
            return FN(jag_pq_opt_sp)(cx, opt->P, opt->Q, out);
        }
        return FN(jag_pq_opt)(cx, opt->P, opt->Q, opt->method == WPART_SP_JAG_PQ_OPT_DP, out);
    case WPART_SP_JAG_M_HEUR:
        if (opt->speeds) {
            return FN(jag_m_heur_sp)(cx, m, 0, out);
        }
        return FN(jag_m_heur)(cx, m, out);
    case WPART_SP_JAG_M_PROBE:
        if (opt->cuts[opt->ncuts - 1] != cx->v.n1) {
            return wpart_i_error(WPART_EINVAL,
                                 "stripe cuts must end at the main extent %" PRId64, cx->v.n1);
        }
        cx->stats->P = opt->ncuts - 1;
        if (opt->speeds) {
            return FN(m_probe_sp)(cx, opt->cuts, opt->ncuts - 1, m, out);
        }
        return FN(m_probe_core)(cx, opt->cuts, opt->ncuts - 1, m, out);
    case WPART_SP_JAG_M_HEUR_PROBE:
        if (opt->speeds) {
            return FN(jag_m_heur_sp)(cx, m, 1, out);
        }
        return FN(jag_m_heur_probe)(cx, m, out);
    case WPART_SP_JAG_M_ALLOC:
        cx->stats->P = opt->ncuts;
        if (opt->speeds) {
            return FN(jag_m_alloc_sp)(cx, opt->cuts, opt->ncuts, out);
        }
        return FN(jag_m_alloc)(cx, opt->cuts, opt->ncuts, out);
    case WPART_SP_JAG_M_OPT:
        if (opt->speeds) {
            return FN(jag_m_opt_sp)(cx, m, out);
        }
        return FN(jag_m_opt)(cx, m, out);
    default:
        return wpart_i_error(WPART_EINVAL, "unknown method %d", (int)opt->method);
    }
}

static wpart_status_t FN(partition_one)(const T *S, int64_t n1, int64_t n2, int64_t m,
                                        const wpart_spatial_options_t *opt, int64_t *rects,
                                        wpart_spatial_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    FN(ctx_t) cx, cxt;
    T *ST = NULL;
    int64_t *alt = NULL;
    memset(&cx, 0, sizeof cx);
    memset(&cxt, 0, sizeof cxt);
    int64_t r0 = opt->window[0], r1 = opt->window[1], c0 = opt->window[2], c1 = opt->window[3];
    if (r0 == 0 && r1 == 0 && c0 == 0 && c1 == 0) {
        r1 = n1;
        c1 = n2;
    }
    if (!(0 <= r0 && r0 < r1 && r1 <= n1 && 0 <= c0 && c0 < c1 && c1 <= n2)) {
        return wpart_i_error(WPART_EINVAL, "window (%" PRId64 ", %" PRId64 ", %" PRId64
                             ", %" PRId64 ") is empty or outside the %" PRId64 " x %" PRId64
                             " matrix", r0, r1, c0, c1, n1, n2);
    }
    cx.v.S = S + r0 * (n2 + 1) + c0;
    cx.v.s0 = n2 + 1;
    cx.v.s1 = 1;
    cx.v.n1 = r1 - r0;
    cx.v.n2 = c1 - c0;
    cx.opt = opt;
    cx.stats = stats;
    cx.t0 = wpart_i_now();
    int64_t big = cx.v.n1 > cx.v.n2 ? cx.v.n1 : cx.v.n2;
    int64_t sbig = big > m ? big : m;
    wpart_spatial_method_t meth = opt->method;
    cx.W = wpart_i_malloc(big + 1, sizeof(T));
    cx.sep = wpart_i_malloc(sbig + 2, sizeof(int64_t));
    if (!cx.W || !cx.sep) {
        WPART_FAIL(WPART_ENOMEM, "out of memory");
    }
    if (meth == WPART_SP_RECT_UNIFORM || meth == WPART_SP_RECT_NICOL) {
        if (meth == WPART_SP_RECT_NICOL) {
            WPART_CHECK(FN(rect_nicol)(&cx, opt->P, opt->Q, rects));
        } else {
            int64_t *R = wpart_i_malloc(opt->P + 1, sizeof(int64_t));
            int64_t *C = wpart_i_malloc(opt->Q + 1, sizeof(int64_t));
            if (!R || !C) {
                free(R);
                free(C);
                WPART_FAIL(WPART_ENOMEM, "out of memory");
            }
            FN(uniform_cuts)(cx.v.n1, opt->P, R);
            FN(uniform_cuts)(cx.v.n2, opt->Q, C);
            FN(emit_grid)(R, opt->P, C, opt->Q, rects);
            free(R);
            free(C);
        }
        stats->P = opt->P;
    } else if (meth == WPART_SP_HIER_RB || meth == WPART_SP_HIER_RELAXED) {
        WPART_CHECK(FN(hier)(&cx, m, meth == WPART_SP_HIER_RELAXED, rects));
    } else if (meth == WPART_SP_HIER_OPT) {
        if (opt->speeds) {
            WPART_CHECK(FN(hier_opt_sp)(&cx, m, rects));
        } else {
            WPART_CHECK(FN(hier_opt)(&cx, m, rects));
        }
    } else {
        int want_h = opt->orient != WPART_SP_VER, want_v = opt->orient != WPART_SP_HOR;
        T lh = 0;
        double bh = 0;
        wpart_spatial_stats_t sh = *stats;
        if (want_h) {
            WPART_CHECK(FN(run_oriented)(&cx, m, rects));
            lh = FN(lmax_of)(&cx.v, rects, m);
            bh = FN(bott_of)(&cx.v, rects, m, opt->speeds);
            sh = *stats;
            sh.orient = 0;
        }
        if (want_v) {
            int64_t a1 = cx.v.n1 + 1, a2 = cx.v.n2 + 1;
            /* the exact methods evaluate many stripes: a contiguous transposed copy pays off;
             * the heuristics read few values and use a strided view without copying */
            int copy = meth == WPART_SP_JAG_PQ_OPT_NICOL || meth == WPART_SP_JAG_PQ_OPT_DP ||
                       meth == WPART_SP_JAG_M_OPT || meth == WPART_SP_JAG_M_ALLOC;
            alt = want_h ? wpart_i_malloc(4 * m, sizeof(int64_t)) : rects;
            if (!alt) {
                WPART_FAIL(WPART_ENOMEM, "out of memory");
            }
            cxt = cx;
            if (copy) {
                ST = wpart_i_malloc(a1 * a2, sizeof(T));
                if (!ST) {
                    WPART_FAIL(WPART_ENOMEM, "out of memory for the transposed prefix");
                }
                for (int64_t i = 0; i < a1; i++) {
                    const T *row = cx.v.S + i * cx.v.s0;
                    for (int64_t j = 0; j < a2; j++) {
                        ST[j * a1 + i] = row[j];
                    }
                }
                cxt.v.S = ST;
                cxt.v.s0 = a1;
                cxt.v.s1 = 1;
            } else {
                cxt.v.s0 = cx.v.s1;
                cxt.v.s1 = cx.v.s0;
            }
            cxt.v.n1 = cx.v.n2;
            cxt.v.n2 = cx.v.n1;
            WPART_CHECK(FN(run_oriented)(&cxt, m, alt));
            for (int64_t k = 0; k < m; k++) { /* map back: (r0,r1,c0,c1) <- (c0,c1,r0,r1) */
                int64_t *p = alt + 4 * k, a = p[0], b = p[1];
                p[0] = p[2];
                p[1] = p[3];
                p[2] = a;
                p[3] = b;
            }
            T lv = FN(lmax_of)(&cx.v, alt, m);
            double bv = FN(bott_of)(&cx.v, alt, m, opt->speeds);
            stats->orient = 1;
            if (want_h) {
                if (opt->speeds ? bv < bh : lv < lh) {
                    memcpy(rects, alt, 4 * m * sizeof(int64_t));
                } else {
                    int64_t it = stats->iterations, pr = stats->probes, ce = stats->cost_evals,
                            ds = stats->dp_states;
                    *stats = sh;
                    stats->iterations = it;
                    stats->probes = pr;
                    stats->cost_evals = ce;
                    stats->dp_states = ds;
                }
            }
        }
    }
    for (int64_t k = 0; k < m; k++) {
        rects[4 * k] += r0;
        rects[4 * k + 1] += r0;
        rects[4 * k + 2] += c0;
        rects[4 * k + 3] += c0;
    }
cleanup:
    stats->seconds = wpart_i_now() - cx.t0;
    free(cx.W);
    free(cx.sep);
    free(ST);
    if (alt != rects) {
        free(alt);
    }
    return st;
}

#undef TINF


/* ---- HYBRID (spec 4): phase 1 on the window, proportional counts, phase 2 per part ------- */

static wpart_status_t FN(partition)(const T *S, int64_t n1, int64_t n2, int64_t m,
                                    const wpart_spatial_options_t *opt, int64_t *rects,
                                    wpart_spatial_stats_t *stats);

static wpart_status_t FN(hybrid)(const T *S, int64_t n1, int64_t n2, int64_t m,
                                 const wpart_spatial_options_t *opt, int64_t *rects,
                                 wpart_spatial_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    double t0 = wpart_i_now();
    FN(view_t) g = {S, n2 + 1, 1, n1, n2};
    int64_t w[4] = {opt->window[0], opt->window[1], opt->window[2], opt->window[3]};
    if (w[0] == 0 && w[1] == 0 && w[2] == 0 && w[3] == 0) {
        w[1] = n1;
        w[3] = n2;
    }
    if (!(0 <= w[0] && w[0] < w[1] && w[1] <= n1 && 0 <= w[2] && w[2] < w[3] && w[3] <= n2)) {
        return wpart_i_error(WPART_EINVAL, "window is empty or outside the matrix");
    }
    T tot = FN(load)(&g, w[0], w[1], w[2], w[3]);
    double avg = (double)tot / (double)m;
    /* candidate phase-1 part counts */
    int64_t lo = opt->m1_min > 0 ? opt->m1_min : ((m + 63) / 64 > 2 ? (m + 63) / 64 : 2);
    int hier1 = opt->hybrid_phase1 == WPART_SP_HIER_RB ||
                opt->hybrid_phase1 == WPART_SP_HIER_RELAXED;
    int64_t ncand = 0, *cand = wpart_i_malloc(4 * lo + 2 + m / 2 + 64, sizeof(int64_t));
    int64_t *r1 = wpart_i_malloc(4 * m, sizeof(int64_t));
    int64_t *rb = wpart_i_malloc(4 * m, sizeof(int64_t));
    int64_t *cnt = wpart_i_malloc(m, sizeof(int64_t)), *cb = wpart_i_malloc(m, sizeof(int64_t));
    int64_t *cap = wpart_i_malloc(m, sizeof(int64_t));
    int64_t *off = wpart_i_malloc(m + 1, sizeof(int64_t));
    int64_t *tmp = wpart_i_malloc(4 * m, sizeof(int64_t));
    T *L = wpart_i_malloc(m, sizeof(T)), *M = wpart_i_malloc(m, sizeof(T));
    char *done = wpart_i_calloc(m, 1);
    if (!cand || !r1 || !rb || !cnt || !cb || !cap || !off || !tmp || !L || !M || !done) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in HYBRID");
    }
    if (opt->m1 > 0) {
        cand[ncand++] = opt->m1;
    } else if (hier1) {
        for (int64_t c = lo; c <= m - 1 && c <= 4 * lo; c++) {
            cand[ncand++] = c;
        }
    } else {
        for (int64_t k = 1; (k + 1) * (k + 1) - 1 <= m - 1; k++) {
            if ((k + 1) * (k + 1) - 1 >= lo) {
                cand[ncand++] = (k + 1) * (k + 1) - 1;
            }
        }
    }
    if (ncand == 0) {
        cand[ncand++] = 1;
    }
    wpart_spatial_options_t o = *opt;
    o.speeds = NULL;
    o.cuts = NULL;
    o.ncuts = 0;
    o.P = o.Q = 0;
    wpart_spatial_stats_t sub;
    double best_eli = HUGE_VAL;
    int64_t best_m1 = 0;
    for (int64_t ci = 0; ci < ncand; ci++) {
        int64_t m1 = cand[ci];
        o.method = (wpart_spatial_method_t)opt->hybrid_phase1;
        memcpy(o.window, w, sizeof w);
        WPART_CHECK(FN(partition)(S, n1, n2, m1, &o, r1, &sub));
        for (int64_t k = 0; k < m1; k++) {
            const int64_t *r = r1 + 4 * k;
            L[k] = FN(load)(&g, r[0], r[1], r[2], r[3]);
            int64_t area = (r[1] - r[0]) * (r[3] - r[2]);
            cap[k] = area > 1 ? area : 1;
        }
        WPART_CHECK(FN(alloc)(L, m1, m, cap, cnt));
        double e = 0;
        for (int64_t k = 0; k < m1; k++) {
            double x = (double)L[k] / (double)cnt[k];
            e = x > e ? x : e;
        }
        e = avg > 0 ? e / avg - 1.0 : 0.0;
        if (e < best_eli || (e == best_eli && m1 > best_m1)) {
            best_eli = e;
            best_m1 = m1;
            memcpy(rb, r1, 4 * m1 * sizeof(int64_t));
            memcpy(cb, cnt, m1 * sizeof(int64_t));
        }
        WPART_CHECK(wpart_i_poll(opt->control, t0, 0, 0));
    }
    int64_t K = best_m1;
    off[0] = 0;
    for (int64_t k = 0; k < K; k++) {
        off[k + 1] = off[k] + cb[k];
    }
    /* phase 2 (fast) on every part */
    for (int64_t k = 0; k < K; k++) {
        const int64_t *r = rb + 4 * k;
        int64_t *dst = rects + 4 * off[k];
        if (cb[k] == 1 || r[0] == r[1] || r[2] == r[3]) {
            memcpy(dst, r, 4 * sizeof(int64_t));
            for (int64_t j = 1; j < cb[k]; j++) {
                dst[4 * j] = dst[4 * j + 1] = r[0];
                dst[4 * j + 2] = dst[4 * j + 3] = r[2];
            }
            done[k] = 1; /* nothing to improve */
        } else {
            o.method = (wpart_spatial_method_t)opt->hybrid_fast;
            memcpy(o.window, r, 4 * sizeof(int64_t));
            WPART_CHECK(FN(partition)(S, n1, n2, cb[k], &o, dst, &sub));
        }
        WPART_CHECK(wpart_i_poll(opt->control, t0, (double)k, (double)K));
        M[k] = 0;
        for (int64_t j = 0; j < cb[k]; j++) {
            const int64_t *q = dst + 4 * j;
            if (q[0] < q[1] && q[2] < q[3]) {
                T x = FN(load)(&g, q[0], q[1], q[2], q[3]);
                M[k] = x > M[k] ? x : M[k];
            }
        }
    }
    /* slow refinement of the most loaded part while it improves (HYBRID-F) */
    int64_t slow_runs = 0;
    if (opt->hybrid_slow >= 0) {
        for (;;) {
            int64_t kb = 0;
            for (int64_t k = 1; k < K; k++) {
                if (M[k] > M[kb]) {
                    kb = k;
                }
            }
            if (done[kb]) {
                break;
            }
            done[kb] = 1;
            WPART_CHECK(wpart_i_poll(opt->control, t0, (double)K, (double)K));
            o.method = (wpart_spatial_method_t)opt->hybrid_slow;
            memcpy(o.window, rb + 4 * kb, 4 * sizeof(int64_t));
            WPART_CHECK(FN(partition)(S, n1, n2, cb[kb], &o, tmp, &sub));
            slow_runs++;
            T x = 0;
            for (int64_t j = 0; j < cb[kb]; j++) {
                const int64_t *q = tmp + 4 * j;
                if (q[0] < q[1] && q[2] < q[3]) {
                    T y = FN(load)(&g, q[0], q[1], q[2], q[3]);
                    x = y > x ? y : x;
                }
            }
            if (x < M[kb]) {
                memcpy(rects + 4 * off[kb], tmp, 4 * cb[kb] * sizeof(int64_t));
                M[kb] = x;
            } else {
                break;
            }
        }
    }
    stats->P = K;
    stats->eli = best_eli;
    stats->iterations = slow_runs;
cleanup:
    stats->seconds = wpart_i_now() - t0;
    free(cand);
    free(r1);
    free(rb);
    free(cnt);
    free(cb);
    free(cap);
    free(off);
    free(tmp);
    free(L);
    free(M);
    free(done);
    return st;
}

static wpart_status_t FN(partition)(const T *S, int64_t n1, int64_t n2, int64_t m,
                                    const wpart_spatial_options_t *opt, int64_t *rects,
                                    wpart_spatial_stats_t *stats)
{
    memset(stats, 0, sizeof *stats);
    if (opt->method == WPART_SP_HYBRID) {
        return FN(hybrid)(S, n1, n2, m, opt, rects, stats);
    }
    return FN(partition_one)(S, n1, n2, m, opt, rects, stats);
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

/* ---- 3D HIER-RB (extension) ---------------------------------------------------------------- */

typedef struct {
    const T *S;
    int64_t d1, d2; /* strides: S[i][j][k] = S[i*d1 + j*d2 + k] */
    int64_t *out;
    int64_t nout;
    int rule;
} FN(h3_t);

static inline T FN(load3)(const FN(h3_t) *h, const int64_t *b)
{
    const T *S = h->S;
    int64_t d1 = h->d1, d2 = h->d2;
    T x = S[b[1] * d1 + b[3] * d2 + b[5]] - S[b[0] * d1 + b[3] * d2 + b[5]] -
          S[b[1] * d1 + b[2] * d2 + b[5]] - S[b[1] * d1 + b[3] * d2 + b[4]] +
          S[b[0] * d1 + b[2] * d2 + b[5]] + S[b[0] * d1 + b[3] * d2 + b[4]] +
          S[b[1] * d1 + b[2] * d2 + b[4]] - S[b[0] * d1 + b[2] * d2 + b[4]];
#if !IS_INT
    if (x < 0) {
        x = 0;
    }
#endif
    return x;
}

static void FN(h3_emit)(FN(h3_t) *h, const int64_t *b)
{
    memcpy(h->out + 6 * h->nout++, b, 6 * sizeof(int64_t));
}

static void FN(h3_rec)(FN(h3_t) *h, const int64_t *b, int64_t q)
{
    int64_t ext[3] = {b[1] - b[0], b[3] - b[2], b[5] - b[4]};
    int64_t vol = ext[0] * ext[1] * ext[2];
    if (q == 1) {
        FN(h3_emit)(h, b);
        return;
    }
    if (vol < q) {
        int64_t k = 0, c[6];
        for (int64_t i = b[0]; i < b[1]; i++) {
            for (int64_t j = b[2]; j < b[3]; j++) {
                for (int64_t l = b[4]; l < b[5]; l++) {
                    c[0] = i, c[1] = i + 1, c[2] = j, c[3] = j + 1, c[4] = l, c[5] = l + 1;
                    FN(h3_emit)(h, c);
                    k++;
                }
            }
        }
        c[0] = c[1] = b[0], c[2] = c[3] = b[2], c[4] = c[5] = b[4];
        for (; k < q; k++) {
            FN(h3_emit)(h, c);
        }
        return;
    }
    int got = 0, bd = 0;
    int64_t bq1 = 0, bc = 0, bden = 1;
    T bn = 0;
    int longest = ext[1] > ext[0] ? 1 : 0;
    longest = ext[2] > ext[longest] ? 2 : longest;
    for (int64_t delta = 0; delta < q && !got; delta++) {
        for (int side = 0; side < 2; side++) {
            int64_t q1 = side == 0 ? q / 2 - delta : q - q / 2 + delta;
            if (q1 < 1 || q1 >= q || (delta == 0 && side == 1 && q % 2 == 0)) {
                continue;
            }
            int64_t q2 = q - q1;
            for (int d = 0; d < 3; d++) {
                if (h->rule == WPART_SP_DIST && d != longest && delta == 0) {
                    continue;
                }
                int64_t w = vol / ext[d];
                if (ext[d] < 2) {
                    continue;
                }
                int64_t lo = b[2 * d] + (q1 + w - 1) / w, hi = b[2 * d + 1] - (q2 + w - 1) / w;
                if (lo > hi) {
                    continue;
                }
                int64_t x1[6], x2[6];
                memcpy(x1, b, sizeof x1);
                memcpy(x2, b, sizeof x2);
                int64_t a = lo, e = hi;
                while (a < e) {
                    int64_t mid = a + (e - a) / 2;
                    x1[2 * d + 1] = mid;
                    x2[2 * d] = mid;
                    if (!FN(frac_lt)(FN(load3)(h, x1), q1, FN(load3)(h, x2), q2)) {
                        e = mid;
                    } else {
                        a = mid + 1;
                    }
                }
                for (int64_t c = a > lo ? a - 1 : a; c <= a; c++) {
                    x1[2 * d + 1] = c;
                    x2[2 * d] = c;
                    T L1 = FN(load3)(h, x1), L2 = FN(load3)(h, x2);
                    T n;
                    int64_t dn;
                    if (FN(frac_lt)(L1, q1, L2, q2)) {
                        n = L2;
                        dn = q2;
                    } else {
                        n = L1;
                        dn = q1;
                    }
                    if (!got || FN(frac_lt)(n, dn, bn, bden)) {
                        got = 1;
                        bd = d;
                        bq1 = q1;
                        bc = c;
                        bn = n;
                        bden = dn;
                    }
                }
            }
        }
    }
    int64_t x1[6], x2[6];
    memcpy(x1, b, sizeof x1);
    memcpy(x2, b, sizeof x2);
    x1[2 * bd + 1] = bc;
    x2[2 * bd] = bc;
    FN(h3_rec)(h, x1, bq1);
    FN(h3_rec)(h, x2, q - bq1);
}

static wpart_status_t FN(hier_rb3d)(const T *S, int64_t n1, int64_t n2, int64_t n3, int64_t m,
                                    int rule, int64_t *boxes)
{
    FN(h3_t) h;
    h.S = S;
    h.d2 = n3 + 1;
    h.d1 = (n2 + 1) * (n3 + 1);
    h.out = boxes;
    h.nout = 0;
    h.rule = rule;
    int64_t b[6] = {0, n1, 0, n2, 0, n3};
    FN(h3_rec)(&h, b, m);
    return WPART_OK;
}
