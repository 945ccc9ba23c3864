/* sp_jag_m_opt.h -- the exact m-way jagged optimum JAG-M-OPT (Sec. 3.2.2 of Saule et al. 2012) and the
 * exact JAG-M-OPT / JAG-M-ALLOC with processor speeds (extension).
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

/* the fewest pieces a stripe of load L needs at bottleneck B (m + 1: more than m), >= 1 */
static inline int64_t FN(mopt_lbk)(T L, T B, int64_t m)
{
    int64_t lbk;
#if IS_INT
    if (B == 0) {
        lbk = L > 0 ? m + 1 : 1;
    } else { /* ceil(L / B) for L >= 0, B > 0 in 64 bits (no 128-bit division call) */
        int64_t x = L > 0 ? (L - 1) / B + 1 : 0;
        lbk = x > m + 1 ? m + 1 : x;
    }
#else
    if (B <= 0) {
        lbk = L > 0 ? m + 1 : 1;
    } else {
        double x = ceil(L / B);
        lbk = x > (double)(m + 1) ? m + 1 : (int64_t)x;
    }
#endif
    return lbk < 1 ? 1 : lbk;
}

/* JAG-M-OPT's bisection on the bottleneck key in [lo, hi] with the feasibility DP (the dense
 * and the sparse version): LOAD(k, i) is the load of rows [k, i), COUNT(k, i, B, limit) the
 * greedy piece count of stripe [k, i); for each i, BEGIN(i) comes before the k loop. In scope:
 * cx, m, n1, N, arg, lo, hi, iter (the DP runs so far), st and the label cleanup. */
#define SP_MOPT_SEARCH(LOAD, COUNT, BEGIN)                                                      \
    int found = 0; /* arg[] holds the DP of the smallest feasible B so far */                      \
    while (lo < hi || !found) {                                                                    \
        int64_t mid = lo < hi ? lo + (hi - lo) / 2 : lo;                                           \
        T B = FN(unkey)(mid);                                                                      \
        N[0] = 0;                                                                                  \
        for (int64_t i = 1; i <= n1; i++) {                                                        \
            int64_t best = m + 1, barg = -1;                                                       \
            BEGIN(i);                                                                              \
            for (int64_t k = i - 1; k >= 0; k--) {                                                 \
                int64_t nk = N[k];                                                                 \
                if (nk > m) {                                                                      \
                    continue;                                                                      \
                }                                                                                  \
                int64_t lbk = FN(mopt_lbk)(LOAD(k, i), B, m);                                      \
                if (lbk >= best) {                                                                 \
                    break;                                                                         \
                }                                                                                  \
                if (nk + lbk >= best) {                                                            \
                    continue;                                                                      \
                }                                                                                  \
                int64_t c = COUNT(k, i, B, best - nk - 1);                                         \
                cx->stats->cost_evals++;                                                           \
                if (c < 0) {                                                                       \
                    break;                                                                         \
                }                                                                                  \
                if (c <= best - nk - 1) {                                                          \
                    best = nk + c;                                                                 \
                    barg = k;                                                                      \
                }                                                                                  \
            }                                                                                      \
            N[i] = best;                                                                           \
            arg[i] = barg;                                                                         \
            cx->stats->dp_states++;                                                                \
            if ((i & 63) == 0) {                                                                   \
                WPART_CHECK(wpart_i_poll(cx->opt->control, cx->t0,                                 \
                                         (double)iter + (double)i / (double)n1, 64.0));            \
            }                                                                                      \
        }                                                                                          \
        cx->stats->probes++;                                                                       \
        iter++;                                                                                    \
        int ok = N[n1] <= m;                                                                       \
        if (lo >= hi) {                                                                            \
            if (!ok) {                                                                             \
                WPART_FAIL(WPART_EINTERNAL, "JAG-M-OPT: incumbent bound infeasible");              \
            }                                                                                      \
            found = 1;                                                                             \
            break;                                                                                 \
        }                                                                                          \
        if (ok) {                                                                                  \
            hi = mid;                                                                              \
        } else {                                                                                   \
            lo = mid + 1;                                                                          \
        }                                                                                          \
        WPART_CHECK(wpart_i_poll(cx->opt->control, cx->t0, (double)iter, 64.0));                   \
    }                                                                                              \
    (void)0

/* the stripes R[0..P] of the DP's last stripe starts arg[] over rows [0, n1); returns P */
static int64_t FN(stripes_of_dp)(const int64_t *arg, int64_t n1, int64_t *R)
{
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
    return P;
}

/* the search on the dense prefix: loads and piece counts from two rows of the prefix */
static wpart_status_t FN(mopt_search_dense)(FN(ctx_t) *cx, int64_t m, int64_t *N, int64_t *arg,
                                            int64_t lo, int64_t hi, int64_t *iterp)
{
    wpart_status_t st = WPART_OK;
    int64_t iter = 0;
    const FN(view_t) *v = &cx->v;
    int64_t n1 = v->n1;
#define LOAD(k, i) FN(load)(v, k, i, 0, v->n2)
#define COUNT(k, i, B, limit) FN(stripe_count)(v, k, i, B, limit)
#define NONE(x) (void)0
    SP_MOPT_SEARCH(LOAD, COUNT, NONE);
#undef LOAD
#undef COUNT
#undef NONE
cleanup:
    *iterp = iter;
    return st;
}

/* The search on a sparse matrix: the DP grows the stripe [k, i) one row at a time as k
 * decreases, so the stripe's column sums live in a Fenwick tree over the columns, rows added
 * when a piece count needs them: adding row k costs O(its nonzeros log n2), each piece of the
 * greedy count is one descent of the tree (O(log n2)), and the tree is cleared along the same
 * paths before the next i. Memory O(nnz + n1 + n2). Integer loads give the dense DP's
 * decisions, hence its optimum and partition; float loads are summed in another order (the
 * same optimum up to rounding). */
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

/* kept out of line: merged into the method dispatch, the search's Fenwick loops ran 15-25 %
 * slower for the same instructions (measured, GCC -O3) */
__attribute__((noinline)) static wpart_status_t
FN(mopt_search_sparse)(FN(ctx_t) *cx, int64_t m, int64_t *N, int64_t *arg, int64_t lo, int64_t hi,
                       int64_t *iterp)
{
    wpart_status_t st = WPART_OK;
    int64_t iter = 0;
    int64_t n1 = cx->sp->n1;
    T *rw = wpart_i_malloc(n1 + 1, sizeof(T));
    FN(spfen_t) f = {cx->sp, wpart_i_calloc(cx->sp->n2 + 1, sizeof(T)), 0, 0};
    if (!rw || !f.F) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in JAG-M-OPT (sparse)");
    }
    FN(row_prefix)(cx, rw);
#define LOAD(k, i) (rw[i] - rw[k])
#define COUNT(k, i, B, limit) (FN(fen_grow)(&f, k), FN(fen_count)(&f, B, limit))
#define BEGIN(i) FN(fen_begin)(&f, i)
    SP_MOPT_SEARCH(LOAD, COUNT, BEGIN);
#undef LOAD
#undef COUNT
#undef BEGIN
cleanup:
    *iterp = iter;
    free(rw);
    free(f.F);
    return st;
}

/* JAG-M-OPT (Sec. 3.2.2): bisection on the bottleneck with an exact feasibility DP
 * N(i) = min_k N(k) + pieces(k, i, B) (fewest parts for rows [0, i)), bounded by the incumbent
 * of JAG-M-HEUR-PROBE; the stripes at B* are then completed by JAG-M-PROBE. One body for the
 * dense and the sparse input (the search above for each). */
static wpart_status_t FN(jag_m_opt)(FN(ctx_t) *cx, int64_t m, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    int64_t n1 = cx->v.n1, iter = 0;
    int64_t *N = wpart_i_malloc(n1 + 1, sizeof(int64_t));
    int64_t *arg = wpart_i_malloc(n1 + 1, sizeof(int64_t));
    int64_t *R = wpart_i_malloc(n1 + 2, sizeof(int64_t));
    int64_t *inc = NULL; /* the incumbent, returned when the time limit stops the search */
    T inc_max = 0;       /* its max load (sparse: as the emission measured it) */
    if (!N || !arg || !R) {
        WPART_FAIL(WPART_ENOMEM, "out of memory");
    }
    cx->emit_max = 0;
    WPART_CHECK(FN(jag_m_heur_probe)(cx, m, out));
    inc_max = cx->emit_max;
    if (cx->opt->control && cx->opt->control->time_limit > 0) {
        inc = wpart_i_malloc(4 * m, sizeof(int64_t)); /* NULL: no incumbent kept, no error */
        if (inc) {
            memcpy(inc, out, 4 * m * sizeof(int64_t));
        }
    }
    T tot = FN(total)(cx);
    T ub = cx->sp ? inc_max : FN(lmax_of)(&cx->v, out, m);
#if !IS_INT
    /* rounding: the DP reads loads along other prefix paths than the incumbent's */
    ub = ub * (1.0 + 1e-9) + tot * 1e-12 + 1e-300;
    int64_t lo = 0;
#else
    int64_t lo = FN(ceil_div)(tot, m);
#endif
    int64_t hi = FN(key)(ub);
    if (lo > hi) {
        lo = hi;
    }
    WPART_CHECK(cx->sp ? FN(mopt_search_sparse)(cx, m, N, arg, lo, hi, &iter)
                       : FN(mopt_search_dense)(cx, m, N, arg, lo, hi, &iter));
    /* rebuild the stripes (arg[] belongs to the last DP run, which was at B = unkey(lo)) */
    int64_t P = FN(stripes_of_dp)(arg, n1, R);
    cx->stats->P = P;
    cx->stats->iterations = iter;
    cx->emit_max = 0;
    WPART_CHECK(FN(m_probe_core)(cx, R, P, m, out));
cleanup:
    if (st == WPART_ECANCELLED && inc && FN(time_up)(cx->opt->control, cx->t0)) {
        memcpy(out, inc, 4 * m * sizeof(int64_t));
        cx->stats->timed_out = 1;
        cx->stats->iterations = iter;
        cx->emit_max = inc_max;
        st = WPART_OK;
    }
    free(N);
    free(arg);
    free(R);
    free(inc);
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
    int64_t lo = 0, hi = FN(bits_of)(ub);
    int ok = 0;
    while (lo < hi) {
        double B;
        int64_t mid = FN(bits_mid)(lo, hi, &B);
        WPART_CHECK(FN(mopt_sp_test)(cx, m, B, N, arg, &ok));
        FN(bits_step)(cx, ok, mid, &lo, &hi);
    }
    double Bs = FN(bits_value)(lo);
    WPART_CHECK(FN(mopt_sp_test)(cx, m, Bs, N, arg, &ok));
    cx->stats->probes++;
    if (!ok) {
        WPART_FAIL(WPART_EINTERNAL, "JAG-M-OPT (speeds): upper bound infeasible");
    }
    int64_t P = FN(stripes_of_dp)(arg, n1, R);
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
    int64_t lo = 0, hi = FN(bits_of)(ub);
    while (lo < hi) {
        double B;
        int64_t mid = FN(bits_mid)(lo, hi, &B);
        int64_t a = 0, g = 0;
        for (int64_t p = 0; p < P && a < n1; p++) {
            a = FN(sp_reach)(v, a, B, sp, g, g + cnt[p]);
            g += cnt[p];
        }
        FN(bits_step)(cx, a >= n1, mid, &lo, &hi);
        wpart_status_t st = wpart_i_poll(cx->opt->control, cx->t0, (double)cx->stats->probes,
                                         64.0);
        if (st != WPART_OK) {
            return st;
        }
    }
    double Bs = FN(bits_value)(lo);
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
