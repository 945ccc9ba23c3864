/* rect_grid_i.h -- helpers shared by rect_grid.c and rect_sym.c (private): the stripe prefix,
 * the greedy probe and the bisection of the exact 1D partitions, the CSR transpose. */
#ifndef WPART_RECT_GRID_I_H
#define WPART_RECT_GRID_I_H

#include <math.h>
#include <string.h>

#include "internal.h"
#include "rect_grid.h"

#define RG_INF HUGE_VAL
#ifndef RG_GALLOP
#define RG_GALLOP 4
#endif
#ifndef RG_PASSES
#define RG_PASSES 1
#endif

typedef struct {
    int64_t n, m;             /* major and minor dimension */
    const int64_t *ptr, *idx; /* major-wise lists */
    const double *w;          /* NULL: unit weights */
} rg_side_t;

/* the state of RECT-NICOL runs on one matrix (rect_grid.c): the CSR and its CSC, the major
 * sums, the scratch of the half-sweeps and the current / best grids */
typedef struct {
    const wpart_rg_csr_t *A;
    int64_t *cp, *ri;  /* the CSC of A (rows increasing in each column) unless A is
                        * symmetric (NULL then) */
    double *cw;        /* its weights (NULL for unit weights) */
    rg_side_t side[2]; /* 0: rows major (CSR), 1: columns major (the CSC: A's own arrays when
                        * sym, cp / ri / cw otherwise) */
    int64_t P[2];      /* parts along rows (0) and columns (1) */
    double *X;         /* (nmax + 1) min(K, 8) doubles of scratch (K: max(P, Q)): 1D
                        * prefixes, up to 8 lines' prefixes (rect_fast.c) */
    double *Y[2];      /* the half-sweeps' prefixes of dimension d (rg_half): majors of side d
                        * x the other dimension's stripes, kept between half-sweeps */
    int32_t *ymap[2];  /* minor -> stripe for the cuts Y[d] was made for (yo[d]) */
    int64_t *yo[2];    /* those cuts (K + 1) */
    int yok[2];        /* 1: Y[d] holds the prefix of the cuts yo[d] */
    double *yd;        /* RG_INC_S (nmax + 2) doubles: the changed stripes' deltas, sums */
    int32_t *yslot;    /* K + 1 + RG_INC_S: a stripe's delta slot (-1: none), the slots' stripes */
    int32_t *map;      /* nmax int32 of scratch (rect_fast.c: a grid's column stripes) */
    int64_t *tmp;
    int64_t *keep;     /* the cuts before a half-sweep (rg_step) */
    double *tot[2];    /* prefix of the major sums, rows (0) and columns (1) */
    double *line[2];   /* the major sums (each summed from 0 in entry order) */
    int64_t *cur[2], *best[2];
    int integral;
    int sym; /* 1: A equals its transpose entry for entry (found by open) */
    const wpart_control_t *ctl; /* Ctrl-C inside a half-sweep's pass (rg_cancel) */
    int64_t work;
    int stop; /* 1: should_stop fired inside a half-sweep; the caller returns ECANCELLED */
} rg_ctx_t;

/* open: the context of P x Q runs on A (the CSC, the sums, the scratch); close frees it (also
 * after a failed open). run: wpart_spatial_rect_grid's starts and polish on an open context,
 * the time limit counted from t0; twin_of (NULL or nstarts): the start whose transpose a
 * start in state 4 is. */
wpart_status_t wpart_i_rg_open(rg_ctx_t *g, const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                               const wpart_control_t *ctl);
void wpart_i_rg_close(rg_ctx_t *g);
/* make the CSC's rows and weights (side[1]) if they are not there (open makes them: then a
 * no-op, for the callers that need the CSC) */
wpart_status_t wpart_i_rg_csc(rg_ctx_t *g);
/* the P x Q block loads of the grid (R, C), row-major (il: int64, else fl: float64), from
 * a half-sweeps' prefix Y[d] made for this grid's cuts of the other dimension, or brought to
 * them (rg_shift, when cheap), when the loads are integral (exact sums: the numbers of a sum
 * over the entries, bit for bit): 1; otherwise nothing is written: 0 */
int wpart_i_rg_loads(rg_ctx_t *g, const int64_t *R, const int64_t *C, int64_t *il, double *fl);
/* wpart_spatial_rect_1d on the caller's scratch (X: n + 1 doubles, tmp: P + 1): the max;
 * integral 1: w holds integers (their prefix by int64 adds, the same numbers) */
double wpart_i_rect_1d(const double *w, int64_t n, int64_t P, int64_t *cuts, double *X,
                       int64_t *tmp, int integral);
/* EINVAL unless each of the `ngrids` grids (R: P + 1 cuts each, C: Q + 1 each) starts at 0,
 * ends at n1 (n2) and never decreases: the public entries that take grids check them first */
wpart_status_t wpart_i_rg_check_grids(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                      int64_t ngrids, const int64_t *R, const int64_t *C);
wpart_status_t wpart_i_rg_run(rg_ctx_t *g, double t0, int64_t nstarts, const int64_t *R0,
                              const int64_t *C0, const int32_t *first,
                              const wpart_rg_opts_t *opt, int64_t *R, int64_t *C, double *val,
                              int64_t *halves, int32_t *state, int64_t *twin_of,
                              int32_t *timed_out);

/* SARMA's patience of a P x Q grid: max(10, P + Q) half-sweeps without a gain */
static inline int64_t rg_sarma_patience(int64_t P, int64_t Q)
{
    return P + Q > 10 ? P + Q : 10;
}

static inline int rg_integral(const double *w, int64_t nnz)
{
    double tot = 0.0;
    if (!w) {
        return 1;
    }
    for (int64_t k = 0; k < nnz; k++) {
        if (w[k] != floor(w[k])) {
            return 0;
        }
        tot += w[k];
    }
    return tot < 9007199254740992.0;
}

static inline void rg_map(const int64_t *cuts, int64_t K, int64_t n, int32_t *map)
{
    for (int64_t k = 0; k < K; k++) {
        int64_t a = cuts[k] < n ? cuts[k] : n, b = cuts[k + 1] < n ? cuts[k + 1] : n;
        for (int64_t x = a; x < b; x++) {
            map[x] = (int32_t)k;
        }
    }
}

static inline int rg_cancel(const wpart_control_t *ctl, int64_t *work, int64_t done);

/* X[i * K + q] = load of majors [0, i) in minor stripe q; 1 (X unfinished) when Ctrl-C asks to
 * stop (rg_cancel with ctl and work). exact (integral weights, sums below 2**53): each major's
 * stripe sums are made first and the prefix added after, the same numbers exactly; otherwise
 * every entry is added to the running prefix in order (float sums: the same bits as ever) */
static inline int rg_prefix(const rg_side_t *s, const int32_t *map, int64_t K, double *X,
                            const wpart_control_t *ctl, int64_t *work, int exact)
{
    if (exact) {
        memset(X, 0, (size_t)((s->n + 1) * K) * sizeof(double));
        for (int64_t i = 0; i < s->n; i++) {
            if (rg_cancel(ctl, work, s->ptr[i + 1] - s->ptr[i] + K)) {
                return 1;
            }
            double *row = X + (i + 1) * K;
            int64_t e = s->ptr[i], end = s->ptr[i + 1];
            if (e == end) {
                continue;
            }
            int32_t cur = map[s->idx[e]];
            double acc = 0.0;
            for (; e < end; e++) { /* a run in one stripe is summed in a register */
                int32_t q = map[s->idx[e]];
                if (q != cur) {
                    row[cur] += acc;
                    cur = q;
                    acc = 0.0;
                }
                acc += s->w ? s->w[e] : 1.0;
            }
            row[cur] += acc;
        }
        for (int64_t i = 0; i < s->n; i++) {
            const double *prev = X + i * K;
            double *row = X + (i + 1) * K;
            for (int64_t q = 0; q < K; q++) {
                row[q] += prev[q];
            }
        }
        return 0;
    }
    memset(X, 0, (size_t)K * sizeof(double));
    for (int64_t i = 0; i < s->n; i++) {
        if (rg_cancel(ctl, work, s->ptr[i + 1] - s->ptr[i] + K)) {
            return 1;
        }
        double *row = X + (i + 1) * K;
        const double *prev = X + i * K;
        for (int64_t q = 0; q < K; q++) {
            row[q] = prev[q];
        }
        int64_t e = s->ptr[i], end = s->ptr[i + 1];
        if (e == end) {
            continue;
        }
        /* a run of entries in the same stripe (sorted indices: a stripe's entries are
         * consecutive) is summed in a register, in entry order as before: the same sums bit
         * for bit, without a store-to-load dependency per entry */
        int32_t cur = map[s->idx[e]];
        double acc = row[cur];
        for (; e < end; e++) {
            int32_t q = map[s->idx[e]];
            if (q != cur) {
                row[cur] = acc;
                cur = q;
                acc = row[q];
            }
            acc += s->w ? s->w[e] : 1.0;
        }
        row[cur] = acc;
    }
    return 0;
}

/* the largest load of the K stripes of majors [a, b) (0 when none is positive). Four stripes
 * at a time without a branch (the max of the same values: the same result) */
static inline double rg_cost(const double *X, int64_t K, int64_t a, int64_t b)
{
    double c = 0.0;
    const double *xa = X + a * K, *xb = X + b * K;
    int64_t q = 0;
    for (; q + 4 <= K; q += 4) {
        double d0 = xb[q] - xa[q], d1 = xb[q + 1] - xa[q + 1];
        double d2 = xb[q + 2] - xa[q + 2], d3 = xb[q + 3] - xa[q + 3];
        double m0 = d0 > d1 ? d0 : d1, m1 = d2 > d3 ? d2 : d3, m = m0 > m1 ? m0 : m1;
        c = m > c ? m : c;
    }
    for (; q < K; q++) {
        double d = xb[q] - xa[q];
        c = d > c ? d : c;
    }
    return c;
}

/* 1 when no stripe of majors [a, b) costs more than B (rg_cost(X, K, a, b) <= B), testing
 * first the stripe *hot (one that failed before: a search's failing tests often fail on the same
 * stripe), then four stripes at a time, and keeping in *hot the stripe that fails */
static inline int rg_fits_hot(const double *X, int64_t K, int64_t a, int64_t b, double B,
                              int64_t *hot)
{
    const double *xa = X + a * K, *xb = X + b * K;
    if (xb[*hot] - xa[*hot] > B) {
        return 0;
    }
    int64_t q = 0;
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
static inline int64_t rg_reach(const double *X, int64_t n, int64_t K, int64_t a, double B,
                               int64_t h)
{
    int64_t lo, hi, hot = 0; /* fits(a, lo); b == n or not fits(a, hi + 1) */
    h = h < a ? a : h > n ? n : h;
    if (rg_fits_hot(X, K, a, h, B, &hot)) {
        lo = h;
        hi = n;
        for (int64_t step = 1; lo < n; step *= 2) {
            int64_t t = step < n - lo ? lo + step : n;
            if (!rg_fits_hot(X, K, a, t, B, &hot)) {
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
            if (rg_fits_hot(X, K, a, t, B, &hot)) {
                lo = t;
                break;
            }
            hi = t - 1;
        }
    }
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (rg_fits_hot(X, K, a, mid, B, &hot)) {
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
static inline int rg_probe(const double *X, int64_t n, int64_t K, int64_t P, double B, int64_t *cuts,
                    double *got, const int64_t *hint)
{
    int64_t a = 0;
    double mx = 0.0;
    cuts[0] = 0;
    for (int64_t p = 0; p < P; p++) {
        int64_t b;
        if (p == P - 1) {
            b = n;
        } else {
            b = rg_reach(X, n, K, a, B, hint ? hint[p + 1] : a + (n - a) / (P - p));
        }
        double c = rg_cost(X, K, a, b);
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
static inline double rg_bisect_w(const double *X, int64_t n, int64_t K, int64_t P, double lo,
                                 double hi, int integral, int64_t *cuts, int64_t *tmp, int warm)
{
    double got;
    if (!rg_probe(X, n, K, P, hi, cuts, &got, warm ? cuts : NULL)) {
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
            if (rg_probe(X, n, K, P, hi - step, tmp, &got, cuts)) {
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
            if (rg_probe(X, n, K, P, mid, tmp, &got, cuts)) {
                hi = got;
                memcpy(cuts, tmp, (size_t)(P + 1) * sizeof(int64_t));
            } else {
                lo = mid + 1;
            }
        }
    } else {
        for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
            double mid = lo + (hi - lo) / 2;
            if (rg_probe(X, n, K, P, mid, tmp, &got, cuts)) {
                hi = got;
                memcpy(cuts, tmp, (size_t)(P + 1) * sizeof(int64_t));
            } else {
                lo = mid;
            }
        }
    }
    return hi;
}

static inline double rg_bisect(const double *X, int64_t n, int64_t K, int64_t P, double lo,
                               double hi, int integral, int64_t *cuts, int64_t *tmp)
{
    return rg_bisect_w(X, n, K, P, lo, hi, integral, cuts, tmp, 0);
}

/* each cut k in turn to the place between its neighbours that minimises the larger cost of its
 * two stripes (g grows, h shrinks: the crossing by binary search); never raises the max */
/* Ctrl-C inside one pass over the nonzeros: `done` entries more since the last check; every
 * RG_POLL_WORK entries the should-stop hook (clock-gated by its owner) is asked. 1: stop. The
 * time limit is left to the iteration polls, which keep a result. */
#define RG_POLL_WORK ((int64_t)1 << 16)
static inline int rg_cancel(const wpart_control_t *ctl, int64_t *work, int64_t done)
{
    *work += done;
    if (*work < RG_POLL_WORK) {
        return 0;
    }
    *work = 0;
    return ctl && ctl->should_stop && ctl->should_stop(ctl->ctx);
}

/* the column pointers of A's transpose (cp: n2 + 1, rows counted per column) */
static inline wpart_status_t rg_colptr(const wpart_rg_csr_t *A, const wpart_control_t *ctl,
                                       int64_t **cp)
{
    int64_t work = 0;
    wpart_status_t st = WPART_OK;
    int64_t nnz = A->rp[A->n1];
    *cp = wpart_i_calloc(A->n2 + 1, sizeof(int64_t));
    if (!*cp) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    for (int64_t e = 0; e < nnz; e++) {
        (*cp)[A->ci[e] + 1]++;
        if (WPART_UNLIKELY((e & (RG_POLL_WORK - 1)) == 0) && rg_cancel(ctl, &work, RG_POLL_WORK)) {
            WPART_FAIL(WPART_ECANCELLED, "stopped on request");
        }
    }
    for (int64_t j = 0; j < A->n2; j++) {
        (*cp)[j + 1] += (*cp)[j];
    }
cleanup:
    return st;
}

/* the rows and weights of A's transpose from its column pointers cp (rows increasing in each
 * column, entry order within a row) */
static inline wpart_status_t rg_fill(const wpart_rg_csr_t *A, const wpart_control_t *ctl,
                                     const int64_t *cp, int64_t **ri, double **cw)
{
    int64_t work = 0;
    wpart_status_t st = WPART_OK;
    int64_t nnz = A->rp[A->n1];
    *ri = wpart_i_malloc(nnz > 0 ? nnz : 1, sizeof(int64_t));
    *cw = A->w ? wpart_i_malloc(nnz > 0 ? nnz : 1, sizeof(double)) : NULL;
    int64_t *pos = wpart_i_malloc(A->n2 + 1, sizeof(int64_t));
    if (!*ri || (A->w && !*cw) || !pos) {
        free(pos);
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    memcpy(pos, cp, (size_t)(A->n2 + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < A->n1; i++) {
        if (rg_cancel(ctl, &work, A->rp[i + 1] - A->rp[i])) {
            free(pos);
            WPART_FAIL(WPART_ECANCELLED, "stopped on request");
        }
        for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
            int64_t k = pos[A->ci[e]]++;
            (*ri)[k] = i;
            if (A->w) {
                (*cw)[k] = A->w[e];
            }
        }
    }
    free(pos);
cleanup:
    return st;
}

static inline wpart_status_t rg_transpose(const wpart_rg_csr_t *A, const wpart_control_t *ctl,
                                          int64_t **cp, int64_t **ri, double **cw)
{
    wpart_status_t st = rg_colptr(A, ctl, cp);
    return st != WPART_OK ? st : rg_fill(A, ctl, *cp, ri, cw);
}

static inline int rg_time_up(const wpart_control_t *ctl, double t0)
{
    return ctl && ctl->time_limit > 0 && wpart_i_now() - t0 >= ctl->time_limit;
}

static inline double rg_w(const wpart_rg_csr_t *A, int64_t e)
{
    return A->w ? A->w[e] : 1.0;
}

#endif
