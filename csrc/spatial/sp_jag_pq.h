/* sp_jag_pq.h -- P x Q jagged partitions: JAG-PQ-HEUR (Sec. 3.2.1 of Saule et al. 2012), JAG-PQ-OPT by
 * Nicol's search (3.4) and by dynamic programming (3.5) on the memoised nested 1D optimum, and
 * their processor-speed extensions (stripe p runs on processors [pQ, pQ + Q)).
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

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
        if (st == WPART_OK && cx->sp && (p & 63) == 63) { /* a sparse one: O(nnz + n2) */
            st = wpart_i_poll(cx->opt->control, cx->t0, (double)p, (double)P);
        }
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
    if (cx->opt->start == 1) { /* uniform stripes */
        wpart_i_uniform_cuts(cx->v.n1, P, R);
    } else {
        FN(row_prefix)(cx, cx->W);
        WPART_CHECK(FN(opt1d)(cx, cx->W, cx->v.n1, P, R, NULL));
    }
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
    if (c->st != WPART_OK) { /* stopped (Ctrl-C, time limit, error): the search winds down */
        return 0;            /* without further evaluations; the caller returns c->st */
    }
    cx->stats->cost_evals++;
    /* a sparse stripe's evaluation reads its nonzeros (up to O(nnz)): check Ctrl-C and the
     * time limit before each one; a dense one costs O(q log n2): every 64 (no progress report
     * here: the searches report theirs) */
    wpart_status_t st = WPART_OK;
    const wpart_control_t *ctl = cx->opt->control;
    if (ctl && (cx->sp || (cx->stats->cost_evals & 63) == 0)) {
        if (wpart_i_stop_asked(ctl)) {
            st = wpart_i_error(WPART_ECANCELLED, "stopped on request");
        } else if (FN(time_up)(ctl, cx->t0)) {
            st = wpart_i_error(WPART_ECANCELLED, "time limit of %g s reached", ctl->time_limit);
        }
    }
    if (st == WPART_OK) {
        st = FN(split_stripe)(cx, a, b, q, NULL, &val);
    }
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

/* JAG-PQ-OPT's stripes R[0..P] over the cx->v.n1 rows, the nested cost f(a, b) read through
 * nc (the stripes read from cx->sp or the dense prefix): Nicol's search, or the DP with crossing-point bisection */
static wpart_status_t FN(jag_pq_opt_cuts)(FN(ctx_t) *cx, FN(nested_t) *nc, int64_t P,
                                          int use_dp, int64_t *R)
{
    wpart_status_t st = WPART_OK;
    T *F = NULL;
    int64_t n1 = cx->v.n1;
    T B;
    if (!use_dp) {
        WPART_CHECK(FN(gnicol)(cx, FN(nested_cost), nc, n1, P, 1, &B, R));
    } else {
        /* F[p][i], p parts over rows [0, i); crossing-point bisection */
        F = wpart_i_malloc(2 * (n1 + 1), sizeof(T));
        if (!F) {
            WPART_FAIL(WPART_ENOMEM, "out of memory");
        }
        T *prev = F, *cur = F + n1 + 1;
        /* each nested cost is an exact 1D partition of a stripe: poll every 64 of them */
        for (int64_t i = 0; i <= n1; i++) {
            prev[i] = FN(nested_cost)(nc, 0, 0, i);
            if ((i & 63) == 63) {
                WPART_CHECK(wpart_i_poll(cx->opt->control, cx->t0, 1.0, (double)P));
            }
        }
        for (int64_t p = 2; p <= P; p++) {
            for (int64_t i = 0; i <= n1; i++) {
                if ((i & 63) == 63) {
                    WPART_CHECK(wpart_i_poll(cx->opt->control, cx->t0,
                                             (double)(p - 1) + (double)i / (double)(n1 + 1),
                                             (double)P));
                }
                int64_t lo = 0, hi = i;
                while (lo < hi) { /* smallest k with prev[k] >= f(k, i) */
                    int64_t mid = lo + (hi - lo) / 2;
                    if (prev[mid] >= FN(nested_cost)(nc, 0, mid, i)) {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                T a = prev[lo] > FN(nested_cost)(nc, 0, lo, i) ? prev[lo]
                                                               : FN(nested_cost)(nc, 0, lo, i);
                if (lo > 0) {
                    T fb = FN(nested_cost)(nc, 0, lo - 1, i);
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
        FN(final_seps)(FN(nested_cost), nc, n1, P, 1, B, R);
        FN(normalize)(R, n1, P);
    }
    WPART_CHECK(nc->st);
cleanup:
    free(F);
    return st;
}

static wpart_status_t FN(jag_pq_opt)(FN(ctx_t) *cx, int64_t P, int64_t Q, int use_dp,
                                     int64_t *out)
{
    wpart_status_t st = WPART_OK;
    FN(nested_t) nc;
    int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
    if (!R) {
        return wpart_i_error(WPART_ENOMEM, "out of memory");
    }
    st = FN(nested_init)(&nc, cx, Q, NULL);
    if (st != WPART_OK) {
        free(R);
        return st;
    }
    WPART_CHECK(FN(jag_pq_opt_cuts)(cx, &nc, P, use_dp, R));
    WPART_CHECK(FN(emit_stripes)(cx, R, P, NULL, Q, out));
cleanup:
    FN(nested_free)(&nc);
    free(R);
    return st;
}

/* ---- P x Q jagged with speeds (extension): stripe p runs on processors [pQ, pQ + Q) ------ */

/* the exact JAG-M-ALLOC with speeds (sp_jag_m_opt.h), which JAG-PQ-OPT with speeds reuses */
static wpart_status_t FN(jag_m_alloc_sp)(FN(ctx_t) *cx, const int64_t *cnt, int64_t P,
                                         int64_t *out);

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
    if (cx->opt->start == 1) { /* uniform stripes */
        wpart_i_uniform_cuts(cx->v.n1, P, R);
    } else {
        FN(rows_w)(&cx->v, cx->W);
        WPART_CHECK(FN(base1d_sp)(cx->W, cx->v.n1, P, G, cx->opt->control, R));
    }
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
