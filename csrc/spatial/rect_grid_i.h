/* rect_grid_i.h -- helpers shared by rect_grid.c and rect_sym.c (private): the stripe prefix,
 * the greedy probe and the bisection of the exact 1D partitions (rect_grid_t.h, for float64 and
 * int32 prefixes), the CSR transpose. */
#ifndef WPART_RECT_GRID_I_H
#define WPART_RECT_GRID_I_H

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "internal.h"
#include "rect_grid.h"
#include "spatial_internal.h" /* wpart_i_uniform_cuts */

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
                        * symmetric (NULL then); carved out of block (open) or csc */
    double *cw;        /* its weights (NULL for unit weights) */
    void *csc;         /* the CSC's allocation when wpart_i_rg_csc made it after open */
    rg_side_t side[2]; /* 0: rows major (CSR), 1: columns major (the CSC: A's own arrays when
                        * sym, cp / ri / cw otherwise) */
    int64_t P[2];      /* parts along rows (0) and columns (1) */
    double *X;         /* (nmax + 1) min(K, 8) doubles of scratch (K: max(P, Q)): 1D
                        * prefixes, up to 8 lines' prefixes (rect_fast.c) */
    double *Y[2];      /* the half-sweeps' prefixes of dimension d (rg_half): majors of side d
                        * x the other dimension's stripes, kept between half-sweeps (int32
                        * cells in the same buffer when i32) */
    int32_t *ymap[2];  /* minor -> stripe for the cuts Y[d] was made for (yo[d]) */
    int64_t *yo[2];    /* those cuts (K + 1) */
    int yok[2];        /* 1: Y[d] holds the prefix of the cuts yo[d] */
    double *yd;        /* RG_INC_S (nmax + 2) doubles: the changed stripes' deltas, sums;
                        * zero between shifts once ydz (zeroed at the first shift) */
    int ydz;
    int32_t *yslot;    /* K + 1 + RG_INC_S: a stripe's delta slot (-1: none), the slots' stripes */
    int32_t *map;      /* nmax int32 of scratch (rect_fast.c: a grid's column stripes) */
    int64_t *tmp;
    int64_t *keep;     /* the cuts before a half-sweep (rg_step) */
    double *tot[2];    /* prefix of the major sums, rows (0) and columns (1) */
    double *line[2];   /* the major sums (each summed from 0 in entry order) */
    int64_t *cur[2], *best[2];
    void *block; /* the scratch above (X .. best) is carved out of this one allocation */
    int integral;
    int i32[2]; /* 1: Y[d] holds int32 (integral loads, total below 2**31; rect_grid_t.h) */
    int sym; /* 1: A equals its transpose entry for entry (found by open) */
    const wpart_control_t *ctl; /* Ctrl-C inside a half-sweep's pass (rg_cancel) */
    int64_t work;
    int stop; /* 1: should_stop fired inside a half-sweep; the caller returns ECANCELLED */
} rg_ctx_t;

/* open: the context of P x Q runs on A (the CSC, the sums, the scratch); close frees it (also
 * after a failed open). run: wpart_spatial_rect_grid's starts and polish on an open context,
 * the time limit counted from t0; twin_of (NULL or nstarts): the start whose transpose a
 * start in state 4 is. integral: -1, or 1 / 0 where the caller knows rg_integral's answer
 * for A->w (the default's int64 values converted: whole, their exact total below 2**53). */
wpart_status_t wpart_i_rg_open(rg_ctx_t *g, const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                               const wpart_control_t *ctl, int integral);
void wpart_i_rg_close(rg_ctx_t *g);
/* make the CSC (side[1]: pointers, rows, weights in one allocation) if it is not there (open
 * makes it: then a no-op, for the callers that need the CSC) */
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

/* x == floor(x) without a libm call per value (floor is one where SSE4.1 is not assumed: ~19
 * instructions a value, 6 % of the default at 4 x 4 on a matrix with values): below 2**52 in
 * magnitude through int64, from there every double is whole (infinities too, as floor has
 * them); NaN is not */
static inline int rg_whole(double x)
{
    return fabs(x) < 4503599627370496.0 ? (double)(int64_t)x == x : x == x;
}

static inline int rg_integral(const double *w, int64_t nnz)
{
    double tot = 0.0;
    if (!w) {
        return 1;
    }
    for (int64_t k = 0; k < nnz; k++) {
        if (!rg_whole(w[k])) {
            return 0;
        }
        tot += w[k];
    }
    return tot < 9007199254740992.0;
}

/* whether (R, C) and (R2, C2) are the same P x Q grid */
static inline int rg_same_grid(int64_t P, int64_t Q, const int64_t *R, const int64_t *C,
                               const int64_t *R2, const int64_t *C2)
{
    return !memcmp(R, R2, (size_t)(P + 1) * sizeof(int64_t)) &&
           !memcmp(C, C2, (size_t)(Q + 1) * sizeof(int64_t));
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

/* a running prefix's next row: Ctrl-C polled (1: stop), row i + 1 of X (K cells of `cell`
 * bytes) starts as a copy of row i */
static inline int rg_next_row(const rg_side_t *s, int64_t i, int64_t K, void *X, size_t cell,
                              const wpart_control_t *ctl, int64_t *work)
{
    if (rg_cancel(ctl, work, s->ptr[i + 1] - s->ptr[i] + K)) {
        return 1;
    }
    char *dst = (char *)X + (size_t)((i + 1) * K) * cell;
    const char *src = (const char *)X + (size_t)(i * K) * cell;
    /* the usual row sizes copied inline (a libc call per row of 32 - 256 bytes: ~5 % of the
     * default's CPU at 8 x 32) */
    switch ((size_t)K * cell) {
    case 16: memcpy(dst, src, 16); break;
    case 32: memcpy(dst, src, 32); break;
    case 64: memcpy(dst, src, 64); break;
    case 128: memcpy(dst, src, 128); break;
    case 256: memcpy(dst, src, 256); break;
    default: memcpy(dst, src, (size_t)K * cell); break;
    }
    return 0;
}

/* the entries of major i of side s added to its prefix row (cells of type T, stripes by map): a
 * run of entries in the same stripe (sorted indices: a stripe's entries are consecutive) is
 * summed in a register, in entry order: the same sums bit for bit as adding each to its cell,
 * without a store-to-load dependency per entry */
#define RG_ROW_RUNS(T, row, s, map, i)                                                        \
    do {                                                                                      \
        int64_t e_ = (s)->ptr[i], end_ = (s)->ptr[(i) + 1];                                   \
        if (e_ < end_) {                                                                      \
            int32_t cur_ = (map)[(s)->idx[e_]];                                               \
            T acc_ = (row)[cur_];                                                             \
            for (; e_ < end_; e_++) {                                                         \
                int32_t q_ = (map)[(s)->idx[e_]];                                             \
                if (q_ != cur_) {                                                             \
                    (row)[cur_] = acc_;                                                       \
                    cur_ = q_;                                                                \
                    acc_ = (row)[q_];                                                         \
                }                                                                             \
                acc_ += (s)->w ? (T)(s)->w[e_] : (T)1;                                        \
            }                                                                                 \
            (row)[cur_] = acc_;                                                               \
        }                                                                                     \
    } while (0)

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
        if (rg_next_row(s, i, K, X, sizeof(double), ctl, work)) {
            return 1;
        }
        double *row = X + (i + 1) * K;
        RG_ROW_RUNS(double, row, s, map, i);
    }
    return 0;
}

/* rg_prefix's running prefix in int32 (integral loads with a total below 2**31: the same
 * integers): below RG_I32_RUN_K stripes a run of entries in one stripe summed in a register (as
 * rg_prefix; each entry added to its cell cost a store-to-load wait per entry where the runs
 * are long: banded and grid matrices at 4 x 4 1.3-1.4 x the default's CPU), from there each
 * entry added to its stripe's cell (no branch per run: 0.97 x the CPU of bench_spatial_fresh's
 * 222 cases at 8 x 8, 8 x 32, 16 x 16 against the runs) */
#ifndef RG_I32_RUN_K
#define RG_I32_RUN_K 8
#endif
static inline int rg_prefix_i(const rg_side_t *s, const int32_t *map, int64_t K, int32_t *X,
                              const wpart_control_t *ctl, int64_t *work)
{
    memset(X, 0, (size_t)K * sizeof(int32_t));
    for (int64_t i = 0; i < s->n; i++) {
        if (rg_next_row(s, i, K, X, sizeof(int32_t), ctl, work)) {
            return 1;
        }
        int32_t *row = X + (i + 1) * K;
        if (K < RG_I32_RUN_K) { /* few stripes: a run in one stripe summed in a register */
            RG_ROW_RUNS(int32_t, row, s, map, i);
        } else if (s->w) {
            for (int64_t e = s->ptr[i]; e < s->ptr[i + 1]; e++) {
                row[map[s->idx[e]]] += (int32_t)s->w[e];
            }
        } else {
            for (int64_t e = s->ptr[i]; e < s->ptr[i + 1]; e++) {
                row[map[s->idx[e]]]++;
            }
        }
    }
    return 0;
}

#define RG_T double
#define RG_BT double
#define RG_BOUND(B) (B)
#define RG_SFX
#define RG_DT double
#include "rect_grid_t.h"

/* an int32 prefix's bound: the loads are integers, so a load exceeds B when it exceeds
 * floor(B) (none does from 2**31 - 1) */
static inline int32_t rg_bound_i(double B)
{
    return B >= 2147483647.0 ? INT32_MAX : (int32_t)floor(B);
}

#define RG_T int32_t
#define RG_BT int32_t
#define RG_BOUND(B) rg_bound_i(B)
#define RG_SFX _i
#define RG_DT int32_t
#define RG_INT
#include "rect_grid_t.h"

static inline double rg_bisect(const double *X, int64_t n, int64_t K, int64_t P, double lo,
                               double hi, int integral, int64_t *cuts, int64_t *tmp)
{
    return rg_bisect_w(X, n, K, P, lo, hi, integral, cuts, tmp, 0);
}

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
    return wpart_i_stop_asked(ctl);
}

/* the column pointers of A's transpose (cp: n2 + 1, zero on entry; rows counted per column) */
static inline wpart_status_t rg_colptr_in(const wpart_rg_csr_t *A, const wpart_control_t *ctl,
                                          int64_t *cp)
{
    int64_t work = 0;
    wpart_status_t st = WPART_OK;
    int64_t nnz = A->rp[A->n1];
    const int64_t *ci = A->ci;
    for (int64_t e0 = 0; e0 < nnz; e0 += RG_POLL_WORK) { /* (a poll per RG_POLL_WORK entries) */
        if (rg_cancel(ctl, &work, RG_POLL_WORK)) {
            WPART_FAIL(WPART_ECANCELLED, "stopped on request");
        }
        int64_t e1 = nnz - e0 < RG_POLL_WORK ? nnz : e0 + RG_POLL_WORK;
        for (int64_t e = e0; e < e1; e++) {
            cp[ci[e] + 1]++;
        }
    }
    for (int64_t j = 0; j < A->n2; j++) {
        cp[j + 1] += cp[j];
    }
cleanup:
    return st;
}

/* the rows ri and weights cw (A->w only) of A's transpose from its column pointers cp (rows
 * increasing in each column, entry order within a row); pos: n2 + 1 of scratch; csum (A->w
 * only; NULL: none): the column loads, each column's weights added in the transpose's order
 * (the sums of a pass over cw, bit for bit) */
static inline wpart_status_t rg_fill_in(const wpart_rg_csr_t *A, const wpart_control_t *ctl,
                                        const int64_t *cp, int64_t *pos, int64_t *ri, double *cw,
                                        double *csum)
{
    int64_t work = 0;
    wpart_status_t st = WPART_OK;
    memcpy(pos, cp, (size_t)(A->n2 + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < A->n1; i++) {
        if (rg_cancel(ctl, &work, A->rp[i + 1] - A->rp[i])) {
            WPART_FAIL(WPART_ECANCELLED, "stopped on request");
        }
        const int64_t *ci = A->ci;
        const double *w = A->w;
        int64_t e0 = A->rp[i], e1 = A->rp[i + 1];
        if (!w) { /* (the three cases' loops apart: no test per entry) */
            for (int64_t e = e0; e < e1; e++) {
                ri[pos[ci[e]]++] = i;
            }
        } else if (!csum) {
            for (int64_t e = e0; e < e1; e++) {
                int64_t k = pos[ci[e]]++;
                ri[k] = i;
                cw[k] = w[e];
            }
        } else {
            for (int64_t e = e0; e < e1; e++) {
                int64_t j = ci[e], k = pos[j]++;
                ri[k] = i;
                cw[k] = w[e];
                csum[j] += w[e];
            }
        }
    }
cleanup:
    return st;
}

/* rg_colptr_in into a new array *cp */
static inline wpart_status_t rg_colptr(const wpart_rg_csr_t *A, const wpart_control_t *ctl,
                                       int64_t **cp)
{
    wpart_status_t st = WPART_OK;
    *cp = wpart_i_calloc(A->n2 + 1, sizeof(int64_t));
    if (!*cp) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    st = rg_colptr_in(A, ctl, *cp);
cleanup:
    return st;
}

/* rg_fill_in into new arrays *ri, *cw */
static inline wpart_status_t rg_fill(const wpart_rg_csr_t *A, const wpart_control_t *ctl,
                                     const int64_t *cp, int64_t **ri, double **cw)
{
    wpart_status_t st = WPART_OK;
    int64_t nnz = A->rp[A->n1];
    *ri = wpart_i_malloc(nnz > 0 ? nnz : 1, sizeof(int64_t));
    *cw = A->w ? wpart_i_malloc(nnz > 0 ? nnz : 1, sizeof(double)) : NULL;
    int64_t *pos = wpart_i_malloc(A->n2 + 1, sizeof(int64_t));
    if (!*ri || (A->w && !*cw) || !pos) {
        free(pos);
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    st = rg_fill_in(A, ctl, cp, pos, *ri, *cw, NULL);
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
