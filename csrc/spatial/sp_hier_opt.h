/* sp_hier_opt.h -- the exact hierarchical optimum HIER-OPT (Sec. 3.3 of Saule et al. 2012), a memoised
 * DP over (row interval, column interval, q), and its processor-speed extension.
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

/* The best cut position of one (dimension, share) split, by bisection: the smallest c in
 * [lo, hi] where the first side's value A reaches the second side's B (A grows and B shrinks
 * with c), or c - 1 when that is not worse. PAIR evaluates max(A, B) at the cut hc_ (declared
 * here), storing A and B; VT is the value type. Sets val and c. Written once for the
 * homogeneous and the speeds DP (a macro: the two differ in the value type within one T). */
#ifndef WPART_HOPT_BISECT
#define WPART_HOPT_BISECT(VT, PAIR, lo, hi, val, c)                                               \
    do {                                                                                         \
        int64_t a_ = (lo), b_ = (hi), hc_;                                                       \
        VT A, B;                                                                                 \
        while (a_ < b_) {                                                                        \
            hc_ = a_ + (b_ - a_) / 2;                                                            \
            (void)(PAIR);                                                                        \
            if (A >= B) {                                                                        \
                b_ = hc_;                                                                        \
            } else {                                                                             \
                a_ = hc_ + 1;                                                                    \
            }                                                                                    \
        }                                                                                        \
        hc_ = a_;                                                                                \
        (val) = (PAIR);                                                                          \
        (c) = a_;                                                                                \
        if (a_ > (lo)) {                                                                         \
            hc_ = a_ - 1;                                                                        \
            VT v2_ = (PAIR);                                                                     \
            if (v2_ <= (val)) {                                                                  \
                (val) = v2_;                                                                     \
                (c) = a_ - 1;                                                                    \
            }                                                                                    \
        }                                                                                        \
    } while (0)
#endif

/* the run of a HIER-OPT DP: memoised states, the should-stop hook, the status */
typedef struct {
    int64_t states;
    const wpart_control_t *ctl;
    double t0;
    wpart_status_t st;
} FN(hrun_t);

/* HIER-OPT (3.13): memoised DP over (row interval, column interval, q) with bisection on c */
typedef struct {
    const FN(view_t) *v;
    T *memo;
    int64_t n1, n2, I1, qmax;
    FN(hrun_t) run;
    int64_t *out;
    int64_t nout;
} FN(hopt_t);

static inline int64_t FN(iv)(int64_t a, int64_t b, int64_t n)
{
    return a * (2 * n - a + 1) / 2 + (b - a - 1);
}

/* one more memoised state; every 4096 the should-stop hook is polled */
static inline void FN(hopt_tick)(FN(hrun_t) *run)
{
    if ((++run->states & 4095) == 0 && run->st == WPART_OK) {
        run->st = wpart_i_poll(run->ctl, run->t0, 0, 0);
    }
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
            T val;
            int64_t c;
            WPART_HOPT_BISECT(T, FN(hpair)(o, d, r, hc_, j, q, &A, &B), lo, hi, val, c);
            if (o->run.st != WPART_OK) {
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
    if (q == 1 || (x2 - x1) * (y2 - y1) == 1 || o->run.st != WPART_OK) {
        return FN(load)(o->v, x1, x2, y1, y2);
    }
    int64_t idx = (FN(iv)(x1, x2, o->n1) * o->I1 + FN(iv)(y1, y2, o->n2)) * o->qmax + (q - 1);
    if (o->memo[idx] >= 0) {
        return o->memo[idx];
    }
    int64_t r[4] = {x1, x2, y1, y2}, bj, bc;
    int bd;
    o->memo[idx] = FN(hbest)(o, r, q, &bd, &bj, &bc);
    FN(hopt_tick)(&o->run);
    return o->memo[idx];
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
    int64_t r1[4], r2[4];
    FN(cut_box)(r, bd, bc, r1, r2);
    FN(hopt_emit)(o, r1, bj);
    FN(hopt_emit)(o, r2, q - bj);
}

/* The HIER-OPT memo of I0 x I1 x k x k2 states (I0, I1: the row and column
 * intervals; k2 = k with speeds, 1 without), every entry -1 (doubles when as_double, else
 * int64); refused above the options' max_states. what, sq: the method and "^2" or "" for the
 * message. Also sets the run's should-stop hook and start time. */
static wpart_status_t FN(hopt_memo)(const FN(ctx_t) *cx, int64_t I0, int64_t I1, int64_t k,
                                    int64_t k2, const char *what, const char *sq, int as_double,
                                    void **memo, int64_t *nstates, FN(hrun_t) *run)
{
    run->ctl = cx->opt->control;
    run->t0 = cx->t0;
    int64_t cap = cx->opt->max_states > 0 ? cx->opt->max_states : 20000000;
    int64_t states;
    if (!wpart_i_mul_size(I0, I1, &states) || !wpart_i_mul_size(states, k, &states) ||
        !wpart_i_mul_size(states, k2, &states) || states > cap) {
        return wpart_i_error(WPART_ELIMIT,
                             "%s needs %" PRId64 " x %" PRId64 " x %" PRId64
                             "%s DP states, above `max_states` = %" PRId64,
                             what, I0, I1, k, sq, cap);
    }
    *memo = wpart_i_malloc(states, 8);
    if (!*memo) {
        return wpart_i_error(WPART_ENOMEM, "out of memory for %" PRId64 " DP states", states);
    }
    for (int64_t i = 0; i < states; i++) {
        if (as_double) {
            ((double *)*memo)[i] = -1;
        } else {
            ((int64_t *)*memo)[i] = -1;
        }
    }
    *nstates = states;
    return WPART_OK;
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
    int64_t states;
    void *memo = NULL;
    wpart_status_t st =
        FN(hopt_memo)(cx, I0, o.I1, q, 1, "HIER-OPT", "", !IS_INT, &memo, &states,
                         &o.run);
    if (st != WPART_OK) {
        return st;
    }
    o.memo = memo;
    o.out = out;
    FN(H)(&o, 0, o.n1, 0, o.n2, q);
    if (o.run.st == WPART_OK) {
        int64_t r[4] = {0, o.n1, 0, o.n2};
        FN(hopt_emit)(&o, r, q);
        for (int64_t k = q; k < m; k++) {
            int64_t *p = out + 4 * o.nout++;
            p[0] = p[1] = p[2] = p[3] = 0;
        }
    }
    cx->stats->dp_states = o.run.states;
    free(o.memo);
    return o.run.st;
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
    FN(hrun_t) run;
    int64_t *out;
} FN(hsp_t);

static double FN(Hs)(FN(hsp_t) *o, const int64_t *r, int64_t k, int64_t q);

static double FN(hs_pair)(FN(hsp_t) *o, int d, const int64_t *r, int64_t c, int64_t k,
                          int64_t j, int64_t q, double *A, double *B)
{
    int64_t r1[4], r2[4];
    FN(cut_box)(r, d, c, r1, r2);
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
            double val;
            int64_t c;
            WPART_HOPT_BISECT(double, FN(hs_pair)(o, d, r, hc_, k, j, q, &A, &B), lo, hi, val, c);
            if (o->run.st != WPART_OK) {
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
    if (q == 1 || o->run.st != WPART_OK) {
        return (double)FN(load)(o->v, r[0], r[1], r[2], r[3]) / o->sp[k];
    }
    int64_t idx = ((FN(iv)(r[0], r[1], o->n1) * o->I1 + FN(iv)(r[2], r[3], o->n2)) * o->m + k) *
                      o->m + (q - 1);
    if (o->memo[idx] >= 0) {
        return o->memo[idx];
    }
    int bd;
    int64_t bj = 1, bc = 0;
    o->memo[idx] = FN(hs_best)(o, r, k, q, &bd, &bj, &bc);
    FN(hopt_tick)(&o->run);
    return o->memo[idx];
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
    int64_t r1[4], r2[4];
    FN(cut_box)(r, bd, bc, r1, r2);
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
    int64_t states;
    void *memo = NULL;
    wpart_status_t st = FN(hopt_memo)(cx, I0, o.I1, m, m, "HIER-OPT with speeds", "^2", 1, &memo,
                                      &states, &o.run);
    if (st != WPART_OK) {
        return st;
    }
    o.memo = memo;
    o.out = out;
    int64_t r[4] = {0, o.n1, 0, o.n2};
    FN(Hs)(&o, r, 0, m);
    if (o.run.st == WPART_OK) {
        FN(hs_emit)(&o, r, 0, m);
    }
    cx->stats->dp_states = o.run.states;
    free(o.memo);
    return o.run.st;
}
