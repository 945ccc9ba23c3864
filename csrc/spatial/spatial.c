/* spatial.c -- rectangular partitions of 2D load matrices (Secs. 3 and 5 of Saule et al. 2012). The
 * algorithms live in spatial_tmpl.h, compiled once for int64 and once for double. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "wpart/base.h"
#include "wpart/spatial.h"
#include "spatial_internal.h"

#define T int64_t
#define FN(x) sp_##x##_i64
#define IS_INT 1
#include "spatial_tmpl.h"

#define T double
#define FN(x) sp_##x##_f64
#define IS_INT 0
#include "spatial_tmpl.h"

void wpart_spatial_options_init(wpart_spatial_options_t *opt)
{
    if (opt) {
        memset(opt, 0, sizeof *opt);
        opt->method = WPART_SP_RECT_UNIFORM;
        opt->orient = WPART_SP_HOR;
        opt->rule = WPART_SP_LOAD;
        opt->hybrid_phase1 = WPART_SP_JAG_M_HEUR;
        opt->hybrid_fast = WPART_SP_JAG_M_HEUR_PROBE;
        opt->hybrid_slow = WPART_SP_JAG_M_OPT;
    }
}

/* JAG-M-ALLOC's counts (opt->cuts[0..ncuts)): each in [1, m], summing to m; HOR or VER */
static wpart_status_t check_counts(const wpart_spatial_options_t *opt, int64_t m)
{
    if (opt->orient == WPART_SP_BEST) {
        return wpart_i_error(WPART_EINVAL, "stripe counts need orientation HOR or VER");
    }
    if (!opt->cuts || opt->ncuts < 1) {
        return wpart_i_error(WPART_EINVAL, "counts must be a non-empty array");
    }
    int64_t sum = 0;
    for (int64_t i = 0; i < opt->ncuts; i++) {
        if (opt->cuts[i] < 1 || opt->cuts[i] > m) {
            return wpart_i_error(WPART_EINVAL, "counts[%" PRId64 "] = %" PRId64
                                 " must be in [1, m]", i, opt->cuts[i]);
        }
        sum += opt->cuts[i];
    }
    if (sum != m) {
        return wpart_i_error(WPART_EINVAL, "counts sum to %" PRId64 ", not m = %" PRId64, sum, m);
    }
    return WPART_OK;
}

static wpart_status_t check_args(const void *S, int64_t n1, int64_t n2, int64_t m,
                                 const wpart_spatial_options_t *opt, const int64_t *rects)
{
    if (!S || !rects || !opt) {
        return wpart_i_error(WPART_EINVAL, "NULL prefix, options or output");
    }
    if (n1 < 1 || n2 < 1) {
        return wpart_i_error(WPART_EINVAL, "the matrix must be non-empty, got %" PRId64
                             " x %" PRId64, n1, n2);
    }
    int64_t cells;
    if (!wpart_i_mul_size(n1 + 1, n2 + 1, &cells) || n1 > INT32_MAX || n2 > INT32_MAX) {
        return wpart_i_error(WPART_ELIMIT, "matrix too large");
    }
    if (m < 1) {
        return wpart_i_error(WPART_EINVAL, "m must be >= 1, got %" PRId64, m);
    }
    if (m > INT64_MAX / 8) {
        return wpart_i_error(WPART_ELIMIT, "m too large");
    }
    if ((int)opt->method < 0 || opt->method > WPART_SP_HYBRID) {
        return wpart_i_error(WPART_EINVAL, "unknown method %d", (int)opt->method);
    }
    if ((int)opt->orient < 0 || opt->orient > WPART_SP_BEST) {
        return wpart_i_error(WPART_EINVAL, "unknown orientation %d", (int)opt->orient);
    }
    if ((int)opt->rule < 0 || opt->rule > WPART_SP_DIMVER) {
        return wpart_i_error(WPART_EINVAL, "unknown cut rule %d", (int)opt->rule);
    }
    if (opt->speeds) {
        switch (opt->method) {
        case WPART_SP_JAG_PQ_HEUR:
        case WPART_SP_JAG_PQ_OPT_NICOL:
        case WPART_SP_JAG_PQ_OPT_DP:
        case WPART_SP_JAG_M_HEUR:
        case WPART_SP_JAG_M_PROBE:
        case WPART_SP_JAG_M_HEUR_PROBE:
        case WPART_SP_JAG_M_ALLOC:
        case WPART_SP_JAG_M_OPT:
        case WPART_SP_HIER_RB:
        case WPART_SP_HIER_RELAXED:
        case WPART_SP_HIER_OPT:
            break;
        default:
            return wpart_i_error(WPART_EINVAL, "speeds are not supported by this method");
        }
        for (int64_t k = 0; k < m; k++) {
            if (!(opt->speeds[k] > 0.0) || isinf(opt->speeds[k])) {
                return wpart_i_error(WPART_EINVAL, "speeds[%" PRId64 "] = %g must be positive "
                                     "and finite", k, opt->speeds[k]);
            }
        }
    }
    if (opt->method == WPART_SP_HYBRID) {
        int ph[3] = {opt->hybrid_phase1, opt->hybrid_fast, opt->hybrid_slow};
        for (int i = 0; i < 3; i++) {
            if (i == 2 && ph[i] < 0) {
                continue;
            }
            if (ph[i] != WPART_SP_JAG_M_HEUR && ph[i] != WPART_SP_JAG_M_HEUR_PROBE &&
                ph[i] != WPART_SP_JAG_M_OPT && ph[i] != WPART_SP_HIER_RB &&
                ph[i] != WPART_SP_HIER_RELAXED) {
                return wpart_i_error(WPART_EINVAL, "HYBRID phases must be m-way jagged or "
                                     "hierarchical heuristics or JAG-M-OPT (got %d)", ph[i]);
            }
        }
        if (opt->m1 < 0 || opt->m1 > m || opt->m1_min < 0) {
            return wpart_i_error(WPART_EINVAL, "HYBRID needs 0 <= m1 <= m and m1_min >= 0");
        }
    }
    switch (opt->method) {
    case WPART_SP_RECT_UNIFORM:
    case WPART_SP_RECT_NICOL:
    case WPART_SP_JAG_PQ_HEUR:
    case WPART_SP_JAG_PQ_OPT_NICOL:
    case WPART_SP_JAG_PQ_OPT_DP: {
        int64_t pq;
        if (opt->P < 1 || opt->Q < 1 || !wpart_i_mul_size(opt->P, opt->Q, &pq) || pq != m) {
            return wpart_i_error(WPART_EINVAL, "P x Q must equal m = %" PRId64 ", got %" PRId64
                                 " x %" PRId64, m, opt->P, opt->Q);
        }
        break;
    }
    case WPART_SP_JAG_M_HEUR:
    case WPART_SP_JAG_M_HEUR_PROBE:
        if (opt->P < 0) {
            return wpart_i_error(WPART_EINVAL, "P must be >= 0 (0 = floor(sqrt(m))), got %"
                                 PRId64, opt->P);
        }
        break;
    case WPART_SP_JAG_M_PROBE: {
        if (opt->orient == WPART_SP_BEST) {
            return wpart_i_error(WPART_EINVAL, "stripe cuts need orientation HOR or VER");
        }
        int64_t bad = opt->cuts && opt->ncuts >= 2
                          ? wpart_i_cuts_fault(opt->cuts, opt->ncuts - 1, -1) : 0;
        if (bad == 0 || opt->ncuts - 1 > m) {
            return wpart_i_error(WPART_EINVAL, "stripe cuts must be 0 = c_0 <= ... <= c_P with "
                                 "1 <= P <= m");
        }
        if (bad > 0) {
            return wpart_i_error(WPART_EINVAL, "stripe cuts must be non-decreasing (index %"
                                 PRId64 ")", bad);
        }
        break;
    }
    case WPART_SP_JAG_M_ALLOC:
        return check_counts(opt, m);
    default:
        break;
    }
    return WPART_OK;
}

#define DEFINE_PARTITION(SFX, TT)                                                              \
    wpart_status_t wpart_spatial_partition_##SFX(const TT *S, int64_t n1, int64_t n2,          \
                                                 int64_t m,                                    \
                                                 const wpart_spatial_options_t *opt,           \
                                                 int64_t *rects, wpart_spatial_stats_t *stats) \
    {                                                                                          \
        wpart_spatial_options_t dflt;                                                          \
        wpart_spatial_stats_t local;                                                           \
        if (!opt) {                                                                            \
            wpart_spatial_options_init(&dflt);                                                 \
            opt = &dflt;                                                                       \
        }                                                                                      \
        if (!stats) {                                                                          \
            stats = &local;                                                                    \
        }                                                                                      \
        memset(stats, 0, sizeof *stats);                                                       \
        wpart_status_t st = check_args(S, n1, n2, m, opt, rects);                              \
        if (st != WPART_OK) {                                                                  \
            return st;                                                                         \
        }                                                                                      \
        return sp_partition_##SFX(S, n1, n2, m, opt, rects, stats);                            \
    }                                                                                          \
    wpart_status_t wpart_i_spatial_alloc_##SFX(const TT *L, int64_t K, int64_t m,              \
                                               const int64_t *cap, const wpart_control_t *ctl, \
                                               int64_t *Q)                                     \
    {                                                                                          \
        if (!L || !Q) {                                                                        \
            return wpart_i_error(WPART_EINVAL, "NULL loads or output");                        \
        }                                                                                      \
        for (int64_t k = 0; k < K; k++) {                                                      \
            if (!(L[k] >= 0)) {                                                                \
                return wpart_i_error(WPART_EINVAL, "load %" PRId64 " is negative or NaN", k);  \
            }                                                                                  \
        }                                                                                      \
        return sp_alloc_##SFX(L, K, m, cap, Q, ctl, wpart_i_now());                            \
    }                                                                                          \
    wpart_status_t wpart_spatial_alloc_##SFX(const TT *L, int64_t K, int64_t m,                \
                                             const int64_t *cap, int64_t *Q)                   \
    {                                                                                          \
        return wpart_i_spatial_alloc_##SFX(L, K, m, cap, NULL, Q);                             \
    }                                                                                          \
    wpart_status_t wpart_spatial_hier_rb3d_##SFX(const TT *S, int64_t n1, int64_t n2,          \
                                                 int64_t n3, int64_t m,                        \
                                                 wpart_spatial_rule_t rule, int64_t *boxes)    \
    {                                                                                          \
        if (!S || !boxes) {                                                                    \
            return wpart_i_error(WPART_EINVAL, "NULL prefix or output");                       \
        }                                                                                      \
        if (n1 < 1 || n2 < 1 || n3 < 1 || m < 1) {                                             \
            return wpart_i_error(WPART_EINVAL, "extents and m must be >= 1");                  \
        }                                                                                      \
        if (rule != WPART_SP_LOAD && rule != WPART_SP_DIST) {                                  \
            return wpart_i_error(WPART_EINVAL, "3D HIER-RB supports the LOAD and DIST rules"); \
        }                                                                                      \
        return sp_hier_rb3d_##SFX(S, n1, n2, n3, m, (int)rule, boxes);                         \
    }

DEFINE_PARTITION(i64, int64_t)
DEFINE_PARTITION(f64, double)

/* check_compressed's pointers part: ptr[0] = 0, ptr[n] = nnz, non-decreasing */
static wpart_status_t check_pointers(const int64_t *ptr, const int64_t *idx, int64_t n,
                                     int64_t nnz, const char *what)
{
    if (!ptr || (nnz > 0 && !idx) || ptr[0] != 0 || ptr[n] != nnz) {
        return wpart_i_error(WPART_EINVAL, "malformed %s arrays", what);
    }
    /* a pass without a branch per entry; the first fault looked for only after it */
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        bad |= ptr[i + 1] < ptr[i];
    }
    for (int64_t i = 0; bad && i < n; i++) {
        if (ptr[i + 1] < ptr[i]) {
            return wpart_i_error(WPART_EINVAL, "%s pointers decrease at %" PRId64, what, i);
        }
    }
    return WPART_OK;
}

/* CSR (or CSC) arrays: ptr[0] = 0, non-decreasing, ptr[n] = nnz, indices in [0, n_other) */
static wpart_status_t check_compressed(const int64_t *ptr, const int64_t *idx, int64_t n,
                                       int64_t n_other, int64_t nnz, const char *what)
{
    wpart_status_t st = check_pointers(ptr, idx, n, nnz, what);
    if (st != WPART_OK) {
        return st;
    }
    /* (the same: one pass, then the first fault). An index x in [0, n_other) leaves the top
     * bit of both x and n_other - 1 - x clear (modulo 2**64; n_other >= 1 here or nnz is 0):
     * ORs and subtractions the compiler vectorises, no 64-bit compare per entry */
    uint64_t acc = 0, lim = (uint64_t)n_other - 1;
    for (int64_t e = 0; e < nnz; e++) {
        acc |= (uint64_t)idx[e] | (lim - (uint64_t)idx[e]);
    }
    int bad = nnz > 0 && (n_other < 1 || acc >> 63);
    for (int64_t e = 0; bad && e < nnz; e++) {
        if (idx[e] < 0 || idx[e] >= n_other) {
            return wpart_i_error(WPART_EINVAL, "%s index %" PRId64 " out of range", what, e);
        }
    }
    return WPART_OK;
}

wpart_status_t wpart_i_spatial_check_csr(const int64_t *rp, const int64_t *ci, int64_t n1,
                                         int64_t n2, int64_t nnz)
{
    return check_compressed(rp, ci, n1, n2, nnz, "CSR");
}

/* check_compressed, and the indices strictly increasing within each row / column: one pass */
static wpart_status_t check_sorted(const int64_t *ptr, const int64_t *idx, int64_t n,
                                   int64_t n_other, int64_t nnz, const char *what)
{
    if (!ptr || (nnz > 0 && !idx) || ptr[0] != 0 || ptr[n] != nnz) {
        return wpart_i_error(WPART_EINVAL, "malformed %s arrays", what);
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t lo = ptr[i], hi = ptr[i + 1], prev = -1;
        if (hi < lo || hi > nnz) {
            return wpart_i_error(WPART_EINVAL, "%s pointers decrease at %" PRId64, what, i);
        }
        for (int64_t e = lo; e < hi; e++) {
            int64_t c = idx[e];
            if (c <= prev || c >= n_other) {
                return wpart_i_error(WPART_EINVAL, "%s index %" PRId64 " out of range or not "
                                     "increasing in its row / column", what, e);
            }
            prev = c;
        }
    }
    return WPART_OK;
}

/* JAG-M-PROBE's stripe cuts on a sparse matrix: orient HOR or VER, 0 = c[0] <= ... <= c[P] =
 * the main extent, 1 <= P <= m */
static wpart_status_t check_cuts(const wpart_spatial_options_t *opt, int64_t n1, int64_t n2,
                                 int64_t m)
{
    if (opt->orient != WPART_SP_HOR && opt->orient != WPART_SP_VER) {
        return wpart_i_error(WPART_EINVAL, "JAG-M-PROBE needs the orientation HOR or VER");
    }
    int64_t nmain = opt->orient == WPART_SP_HOR ? n1 : n2;
    int64_t bad = opt->cuts && opt->ncuts >= 2
                      ? wpart_i_cuts_fault(opt->cuts, opt->ncuts - 1, nmain) : 0;
    if (bad == 0 || opt->ncuts - 1 > m) {
        return wpart_i_error(WPART_EINVAL, "stripe cuts must rise from 0 to %" PRId64
                             " with at most m stripes", nmain);
    }
    if (bad > 0) {
        return wpart_i_error(WPART_EINVAL, "stripe cuts decrease at %" PRId64, bad);
    }
    return WPART_OK;
}

/* The starts of RECT-NICOL / JAG-PQ-HEUR, one after the other in one call: run(ctx, o, rects,
 * loads, stats) is one start on options o (orientation and opt->start set from the start's
 * code), writing m rectangles and their loads (element size tsize). A time limit is the
 * call's: each start gets what is left (the first always runs), a start stopped by it ends
 * the call (stop[s] = 1 with its partition, 2 without). */
typedef wpart_status_t (*start_run_f)(void *ctx, const wpart_spatial_options_t *o,
                                      int64_t *rects, void *loads, wpart_spatial_stats_t *stats);

static wpart_status_t run_starts(start_run_f run, void *ctx, size_t tsize, int64_t m,
                                 const wpart_spatial_options_t *opt, int64_t k, const int *codes,
                                 int64_t *rects, void *loads, wpart_spatial_stats_t *stats,
                                 int *stop, int64_t *ran)
{
    double t0 = wpart_i_now();
    *ran = 0;
    for (int64_t s = 0; s < k; s++) {
        wpart_spatial_options_t o = *opt;
        wpart_control_t c;
        int load = codes[s] & 1;
        o.orient = (codes[s] & 2) ? WPART_SP_VER : WPART_SP_HOR;
        /* RECT-NICOL: 1 = rows split by load; JAG-PQ-HEUR: 1 = uniform stripes */
        o.start = opt->method == WPART_SP_JAG_PQ_HEUR ? !load : load;
        if (opt->control) {
            c = *opt->control;
            if (c.time_limit > 0) {
                double left = c.time_limit - (wpart_i_now() - t0);
                if (left <= 0) {
                    if (s > 0) {
                        break;
                    }
                    left = 1e-9;
                }
                c.time_limit = left;
            }
            o.control = &c;
        }
        memset(&stats[s], 0, sizeof stats[s]);
        stop[s] = 0;
        double ts = wpart_i_now();
        wpart_status_t st = run(ctx, &o, rects + 4 * m * s, (char *)loads + tsize * m * s,
                                &stats[s]);
        *ran = s + 1;
        if (st == WPART_ECANCELLED && o.control && o.control->time_limit > 0 &&
            wpart_i_now() - ts > o.control->time_limit) {
            stop[s] = 2;
            stats[s].seconds = wpart_i_now() - ts;
            break;
        }
        if (st != WPART_OK) {
            return st;
        }
        if (stats[s].timed_out) {
            stop[s] = 1;
            break;
        }
    }
    return WPART_OK;
}

/* the checks of a starts call: *ran = 0; st (the input's own check) first, then the codes */
static wpart_status_t check_starts(wpart_status_t st, const wpart_spatial_options_t *opt,
                                   int64_t k, const int *codes, int64_t *ran)
{
    *ran = 0;
    if (st != WPART_OK) {
        return st;
    }
    if (opt->method != WPART_SP_RECT_NICOL && opt->method != WPART_SP_JAG_PQ_HEUR) {
        return wpart_i_error(WPART_EINVAL, "starts are for RECT-NICOL and JAG-PQ-HEUR");
    }
    if (k < 1 || !codes) {
        return wpart_i_error(WPART_EINVAL, "at least one start is needed");
    }
    for (int64_t s = 0; s < k; s++) {
        if (codes[s] < 0 || codes[s] > 3) {
            return wpart_i_error(WPART_EINVAL, "start code %d is not in 0 .. 3", codes[s]);
        }
    }
    return WPART_OK;
}

#define DEFINE_STARTS(SFX, TT)                                                                 \
    typedef struct {                                                                           \
        const TT *S;                                                                           \
        int64_t n1, n2, m;                                                                     \
    } dense_run_##SFX;                                                                         \
    static wpart_status_t dense_start_##SFX(void *ctx, const wpart_spatial_options_t *o,       \
                                            int64_t *rects, void *loads,                       \
                                            wpart_spatial_stats_t *stats)                      \
    {                                                                                          \
        const dense_run_##SFX *d = ctx;                                                        \
        wpart_status_t st = sp_partition_##SFX(d->S, d->n1, d->n2, d->m, o, rects, stats);    \
        if (st == WPART_OK) {                                                                  \
            int64_t dims[2] = {d->n1, d->n2};                                                  \
            st = wpart_i_box_loads_##SFX(d->S, 2, dims, rects, d->m, loads, o->control);      \
        }                                                                                      \
        return st;                                                                             \
    }                                                                                          \
    wpart_status_t wpart_i_spatial_starts_##SFX(                                               \
        const TT *S, int64_t n1, int64_t n2, int64_t m, const wpart_spatial_options_t *opt,    \
        int64_t k, const int *codes, int64_t *rects, TT *loads, wpart_spatial_stats_t *stats,  \
        int *stop, int64_t *ran)                                                               \
    {                                                                                          \
        wpart_status_t st =                                                                    \
            check_starts(check_args(S, n1, n2, m, opt, rects), opt, k, codes, ran);            \
        if (st != WPART_OK) {                                                                  \
            return st;                                                                         \
        }                                                                                      \
        if (opt->window[0] || opt->window[1] || opt->window[2] || opt->window[3]) {            \
            return wpart_i_error(WPART_EINVAL, "starts run on the whole matrix (no window)"); \
        }                                                                                      \
        dense_run_##SFX d = {S, n1, n2, m};                                                    \
        return run_starts(dense_start_##SFX, &d, sizeof(TT), m, opt, k, codes, rects, loads,   \
                          stats, stop, ran);                                                   \
    }

DEFINE_STARTS(i64, int64_t)
DEFINE_STARTS(f64, double)

/* The checks of a sparse partition call (CSC arrays: checked when given; when not, they are
 * made from the checked CSR arrays by sparse_columns, for the call only). */
#define DEFINE_SPARSE(SFX, TT)                                                                 \
    typedef struct {                                                                           \
        int64_t *p, *i;                                                                        \
        TT *v;                                                                                 \
    } sp_csc_##SFX;                                                                            \
    static wpart_status_t sparse_columns_##SFX(int64_t n1, int64_t n2, const int64_t *rp,      \
                                               const int64_t *ci, const TT *rv,                \
                                               sp_csc_##SFX *t)                                \
    {                                                                                          \
        int64_t nnz = rp[n1];                                                                  \
        t->p = wpart_i_malloc(n2 + 1, sizeof(int64_t));                                        \
        t->i = wpart_i_malloc(nnz > 0 ? nnz : 1, sizeof(int64_t));                             \
        t->v = wpart_i_malloc(nnz > 0 ? nnz : 1, sizeof(TT));                                  \
        if (!t->p || !t->i || !t->v) {                                                         \
            return wpart_i_error(WPART_ENOMEM, "out of memory for the sparse columns");        \
        }                                                                                      \
        return wpart_i_spatial_csr_transpose(n1, n2, rp, ci, rv, t->p, t->i, t->v);           \
    }                                                                                          \
    static void sparse_columns_free_##SFX(sp_csc_##SFX *t)                                     \
    {                                                                                          \
        free(t->p);                                                                            \
        free(t->i);                                                                            \
        free(t->v);                                                                            \
    }                                                                                          \
    static wpart_status_t sparse_check_##SFX(                                                  \
        int64_t n1, int64_t n2, const int64_t *rp, const int64_t *ci, const TT *rv,            \
        const int64_t *cp, const int64_t *ri, const TT *cv, int64_t m,                         \
        const wpart_spatial_options_t *opt, const int64_t *rects)                              \
    {                                                                                          \
        if (!opt || !rects || n1 < 1 || n2 < 1 || n1 > INT32_MAX || n2 > INT32_MAX || m < 1) { \
            return wpart_i_error(WPART_EINVAL, "bad sparse partition arguments");              \
        }                                                                                      \
        wpart_spatial_method_t mt = opt->method;                                               \
        int grid = mt == WPART_SP_RECT_UNIFORM || mt == WPART_SP_RECT_NICOL ||                 \
                   mt == WPART_SP_JAG_PQ_HEUR || mt == WPART_SP_JAG_PQ_OPT_NICOL ||            \
                   mt == WPART_SP_JAG_PQ_OPT_DP;                                               \
        if (!grid && mt != WPART_SP_JAG_M_HEUR && mt != WPART_SP_JAG_M_HEUR_PROBE &&           \
            mt != WPART_SP_JAG_M_PROBE && mt != WPART_SP_JAG_M_ALLOC &&                        \
            mt != WPART_SP_JAG_M_OPT) {                                                        \
            return wpart_i_error(WPART_EINVAL, "method %d does not run on a sparse matrix",    \
                                 (int)opt->method);                                            \
        }                                                                                      \
        if (opt->speeds) {                                                                     \
            return wpart_i_error(WPART_EINVAL, "speeds are not supported on a sparse matrix"); \
        }                                                                                      \
        if ((int)opt->orient < 0 || opt->orient > WPART_SP_BEST) {                             \
            return wpart_i_error(WPART_EINVAL, "unknown orientation %d", (int)opt->orient);    \
        }                                                                                      \
        int64_t pq;                                                                            \
        if (m > INT64_MAX / 8) {                                                               \
            return wpart_i_error(WPART_EINVAL, "m = %" PRId64 " is too large", m);             \
        }                                                                                      \
        if (grid && (opt->P < 1 || opt->Q < 1 || !wpart_i_mul_size(opt->P, opt->Q, &pq) ||     \
                     pq != m)) {                                                               \
            return wpart_i_error(WPART_EINVAL, "P x Q must equal m = %" PRId64, m);            \
        }                                                                                      \
        if (!grid && opt->P < 0) {                                                             \
            return wpart_i_error(WPART_EINVAL, "P must be >= 0 (0: automatic)");               \
        }                                                                                      \
        if (mt == WPART_SP_JAG_M_PROBE || mt == WPART_SP_JAG_M_ALLOC) {                        \
            wpart_status_t cs = mt == WPART_SP_JAG_M_PROBE ? check_cuts(opt, n1, n2, m)        \
                                                           : check_counts(opt, m);             \
            if (cs != WPART_OK) {                                                              \
                return cs;                                                                     \
            }                                                                                  \
        }                                                                                      \
        int64_t nnz = rp ? rp[n1] : 0;                                                         \
        wpart_status_t st = check_sorted(rp, ci, n1, n2, nnz, "CSR");                          \
        if (st == WPART_OK && cp) {                                                            \
            st = check_sorted(cp, ri, n2, n1, nnz, "CSC");                                     \
        }                                                                                      \
        if (st != WPART_OK) {                                                                  \
            return st;                                                                         \
        }                                                                                      \
        int bad = 0;                                                                           \
        for (int64_t e = 0; e < nnz; e++) {                                                    \
            bad |= !(rv[e] >= 0) | (cp && !(cv[e] >= 0));                                      \
        }                                                                                      \
        if (bad) {                                                                             \
            return wpart_i_error(WPART_EINVAL, "an entry is negative or NaN");                 \
        }                                                                                      \
        return WPART_OK;                                                                       \
    }                                                                                          \
    typedef struct {                                                                           \
        sp_sparse_t_##SFX a;                                                                   \
        int64_t m;                                                                             \
    } sparse_run_##SFX;                                                                        \
    /* one run on the input of ctx (the single call and each start): the partition, its loads */\
    static wpart_status_t sparse_start_##SFX(void *ctx, const wpart_spatial_options_t *o,      \
                                             int64_t *rects, void *loads,                      \
                                             wpart_spatial_stats_t *stats)                     \
    {                                                                                          \
        sparse_run_##SFX *d = ctx;                                                             \
        int done = 0;                                                                          \
        wpart_status_t st = sp_sparse_partition_##SFX(&d->a, d->m, o, rects, stats, loads,     \
                                                      &done);                                  \
        if (st == WPART_OK && loads && !done) {                                                \
            sp_sparse_loads_##SFX(&d->a, rects, d->m, loads);                                  \
        }                                                                                      \
        return st;                                                                             \
    }                                                                                          \
    /* the input of a checked call: its CSC arrays made (in *t, for the call) when not given */\
    static wpart_status_t sparse_input_##SFX(int64_t n1, int64_t n2, const int64_t *rp,        \
                                             const int64_t *ci, const TT *rv,                  \
                                             const int64_t *cp, const int64_t *ri,             \
                                             const TT *cv, int64_t m, sparse_run_##SFX *d,     \
                                             sp_csc_##SFX *t)                                  \
    {                                                                                          \
        wpart_status_t st = WPART_OK;                                                          \
        if (!cp || !ri || !cv) {                                                               \
            st = sparse_columns_##SFX(n1, n2, rp, ci, rv, t);                                  \
            cp = t->p;                                                                         \
            ri = t->i;                                                                         \
            cv = t->v;                                                                         \
        }                                                                                      \
        sparse_run_##SFX r = {{n1, n2, rp, ci, rv, cp, ri, cv}, m};                            \
        *d = r;                                                                                \
        return st;                                                                             \
    }                                                                                          \
    wpart_status_t wpart_i_spatial_sparse_##SFX(                                               \
        int64_t n1, int64_t n2, const int64_t *rp, const int64_t *ci, const TT *rv,            \
        const int64_t *cp, const int64_t *ri, const TT *cv, int64_t m,                         \
        const wpart_spatial_options_t *opt, int64_t *rects, TT *loads,                         \
        wpart_spatial_stats_t *stats)                                                          \
    {                                                                                          \
        wpart_spatial_stats_t local;                                                           \
        if (!stats) {                                                                          \
            stats = &local;                                                                    \
        }                                                                                      \
        memset(stats, 0, sizeof *stats);                                                       \
        wpart_status_t st = sparse_check_##SFX(n1, n2, rp, ci, rv, cp, ri, cv, m, opt, rects); \
        if (st != WPART_OK) {                                                                  \
            return st;                                                                         \
        }                                                                                      \
        sp_csc_##SFX t = {NULL, NULL, NULL};                                                   \
        sparse_run_##SFX d;                                                                    \
        st = sparse_input_##SFX(n1, n2, rp, ci, rv, cp, ri, cv, m, &d, &t);                    \
        if (st == WPART_OK) {                                                                  \
            st = sparse_start_##SFX(&d, opt, rects, loads, stats);                             \
        }                                                                                      \
        sparse_columns_free_##SFX(&t);                                                         \
        return st;                                                                             \
    }                                                                                          \
    wpart_status_t wpart_i_spatial_sparse_starts_##SFX(                                        \
        int64_t n1, int64_t n2, const int64_t *rp, const int64_t *ci, const TT *rv,            \
        const int64_t *cp, const int64_t *ri, const TT *cv, int64_t m,                         \
        const wpart_spatial_options_t *opt, int64_t k, const int *codes, int64_t *rects,       \
        TT *loads, wpart_spatial_stats_t *stats, int *stop, int64_t *ran)                      \
    {                                                                                          \
        wpart_status_t st = check_starts(                                                      \
            sparse_check_##SFX(n1, n2, rp, ci, rv, cp, ri, cv, m, opt, rects), opt, k, codes,  \
            ran);                                                                              \
        if (st != WPART_OK) {                                                                  \
            return st;                                                                         \
        }                                                                                      \
        sp_csc_##SFX t = {NULL, NULL, NULL}; /* the columns, once for every start */           \
        sparse_run_##SFX d;                                                                    \
        st = sparse_input_##SFX(n1, n2, rp, ci, rv, cp, ri, cv, m, &d, &t);                    \
        if (st == WPART_OK) {                                                                  \
            st = run_starts(sparse_start_##SFX, &d, sizeof(TT), m, opt, k, codes, rects,       \
                            loads, stats, stop, ran);                                          \
        }                                                                                      \
        sparse_columns_free_##SFX(&t);                                                         \
        return st;                                                                             \
    }

DEFINE_SPARSE(i64, int64_t)
DEFINE_SPARSE(f64, double)

#define DEFINE_SPARSE_LOADS(SFX, TT)                                                           \
    wpart_status_t wpart_i_spatial_sparse_loads_##SFX(int64_t n1, int64_t n2,                  \
                                                      const int64_t *rp, const int64_t *ci,    \
                                                      const TT *rv, int64_t m,                 \
                                                      const int64_t *rects, TT *out)           \
    {                                                                                          \
        if (n1 < 1 || n2 < 1 || m < 0 || !rp || (m > 0 && (!rects || !out))) {                \
            return wpart_i_error(WPART_EINVAL, "bad sparse loads arguments");                  \
        }                                                                                      \
        int64_t nnz = rp[n1];                                                                  \
        wpart_status_t st = check_sorted(rp, ci, n1, n2, nnz, "CSR");                          \
        if (st != WPART_OK) {                                                                  \
            return st;                                                                         \
        }                                                                                      \
        for (int64_t k = 0; k < m; k++) {                                                      \
            const int64_t *r = rects + 4 * k;                                                  \
            if (r[0] < 0 || r[1] > n1 || r[2] < 0 || r[3] > n2) {                              \
                return wpart_i_error(WPART_EINVAL, "rectangle %" PRId64 " is outside", k);     \
            }                                                                                  \
        }                                                                                      \
        sp_sparse_t_##SFX a = {n1, n2, rp, ci, rv, NULL, NULL, NULL};                          \
        sp_sparse_loads_##SFX(&a, rects, m, out);                                              \
        return WPART_OK;                                                                       \
    }

DEFINE_SPARSE_LOADS(i64, int64_t)
DEFINE_SPARSE_LOADS(f64, double)

wpart_status_t wpart_i_spatial_csr_nonzero(int64_t n1, const int64_t *rp, const int64_t *ci,
                                           const int64_t *iv, const double *fv,
                                           int64_t *rp_out, int64_t *ci_out, int64_t *iv_out,
                                           double *fv_out, int64_t *kept)
{
    if (n1 < 1 || !rp || (!iv && !fv) || !kept || (ci_out && !rp_out) || (iv && fv_out) ||
        (!iv && iv_out)) {
        return wpart_i_error(WPART_EINVAL, "bad arguments of the nonzero entries");
    }
    int64_t nnz = rp[n1], t = 0;
    if (!ci_out) {
        /* the pointers only: the indices are copied, not followed (the caller's core call
         * checks the kept ones) */
        wpart_status_t st = check_pointers(rp, ci, n1, nnz, "CSR");
        if (st != WPART_OK) {
            return st;
        }
        for (int64_t e = 0; e < nnz; e++) {
            t += iv ? iv[e] != 0 : fv[e] != 0.0;
        }
        *kept = t;
        return WPART_OK;
    }
    /* branch-free: every entry written at t, kept by moving t on (a zero entry's write lands
     * on the next kept one's place, or on the one cell of room past the last) */
    rp_out[0] = 0;
    for (int64_t i = 0; i < n1; i++) {
        for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
            ci_out[t] = ci[e];
            if (iv_out) {
                iv_out[t] = iv[e];
            }
            if (fv_out) {
                fv_out[t] = fv[e];
            }
            t += iv ? iv[e] != 0 : fv[e] != 0.0;
        }
        rp_out[i + 1] = t;
    }
    *kept = t;
    return WPART_OK;
}

wpart_status_t wpart_i_spatial_dense_csr(const void *D, int is_int, int64_t n1, int64_t n2,
                                         const wpart_control_t *ctl, int64_t *rp,
                                         int64_t *cols, int64_t *ci, double *w, int64_t *iw,
                                         int *ones)
{
    if (n1 < 0 || n2 < 0 || !rp || (!ci && !cols) || (ci && ((!w && !iw) || !ones)) ||
        (iw && !is_int)) {
        return wpart_i_error(WPART_EINVAL, "bad arguments of the dense CSR arrays");
    }
    const int64_t *Di = is_int ? (const int64_t *)D : NULL;
    const double *Df = is_int ? NULL : (const double *)D;
    int64_t work = 0;
    int one = 1;
    if (!ci) {
        memset(cols, 0, (size_t)n2 * sizeof(int64_t));
        rp[0] = 0;
    }
    for (int64_t i = 0; i < n1; i++) {
        if ((work += n2) >= ((int64_t)1 << 16)) {
            work = 0;
            if (wpart_i_stop_asked(ctl)) {
                return wpart_i_error(WPART_ECANCELLED, "stopped on request");
            }
        }
        const int64_t *ri = Di ? Di + i * n2 : NULL;
        const double *rf = Df ? Df + i * n2 : NULL;
        if (!ci) { /* pass 1: the counts (branch-free) */
            int64_t c = 0;
            for (int64_t j = 0; j < n2; j++) {
                int nz = ri ? ri[j] != 0 : rf[j] != 0.0;
                c += nz;
                cols[j] += nz;
            }
            rp[i + 1] = rp[i] + c;
            continue;
        }
        int64_t k = rp[i];
        for (int64_t j = 0; j < n2; j++) {
            double v = ri ? (double)ri[j] : rf[j];
            if (ri ? ri[j] != 0 : v != 0.0) {
                ci[k] = j;
                if (iw) {
                    iw[k] = ri[j];
                }
                if (w) {
                    w[k] = v;
                }
                k++;
                one &= v == 1.0;
            }
        }
    }
    if (ci) {
        *ones = one;
    }
    return WPART_OK;
}

/* the CSC arrays of a CSR matrix (counting sort: rows increasing within each column, as
 * scipy's tocsc); 8-byte values of any type, copied bit for bit */
wpart_status_t wpart_i_spatial_csr_transpose(int64_t n1, int64_t n2, const int64_t *rp,
                                             const int64_t *ci, const void *rv, int64_t *cp,
                                             int64_t *ri, void *cv)
{
    if (n1 < 1 || n2 < 1 || !rp || !cp) {
        return wpart_i_error(WPART_EINVAL, "bad transpose arguments");
    }
    int64_t nnz = rp[n1];
    wpart_status_t st = check_compressed(rp, ci, n1, n2, nnz, "CSR");
    if (st != WPART_OK) {
        return st;
    }
    if (nnz > 0 && (!rv || !ri || !cv)) {
        return wpart_i_error(WPART_EINVAL, "bad transpose arguments");
    }
    const uint64_t *v = rv;
    uint64_t *w = cv;
    memset(cp, 0, (size_t)(n2 + 1) * sizeof(int64_t));
    for (int64_t e = 0; e < nnz; e++) {
        cp[ci[e] + 1]++;
    }
    for (int64_t j = 0; j < n2; j++) {
        cp[j + 1] += cp[j];
    }
    int64_t *next = wpart_i_malloc(n2 > 0 ? n2 : 1, sizeof(int64_t));
    if (!next) {
        return wpart_i_error(WPART_ENOMEM, "out of memory in the CSR transpose");
    }
    memcpy(next, cp, (size_t)n2 * sizeof(int64_t));
    for (int64_t i = 0; i < n1; i++) {
        for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
            int64_t k = next[ci[e]]++;
            ri[k] = i;
            w[k] = v[e];
        }
    }
    free(next);
    return WPART_OK;
}
