/* rect_grid.c -- rectilinear P x Q grids on the nonzeros (see rect_grid.h).
 *
 * A half-sweep sets one dimension's cuts optimally for the other's fixed cuts: the stripes'
 * prefix sums X[i * K + q] (row i, column stripe q; O(nnz + K n), or with integral loads the
 * previous half-sweep's prefix of that dimension with only the entries that change stripe
 * moved, rg_shift; int32 cells where the loads are integers with a total below 2**31) and a
 * bisection on the bottleneck B whose probe places each cut as far as all K stripes allow
 * (binary search, O(P K log n); rect_grid_t.h). Integral loads bisect on integers (the exact
 * optimum); float loads to 1e-12. */
#include "rect_grid_i.h"
#include "spatial_internal.h"

/* rg_shift: up to RG_INC_S changed stripes, a delta per changed stripe and major, each costing
 * about RG_INC_COL per major (against a new prefix's entry + major x stripe); more: the moved
 * entries sorted by major (rg_shift_all), when fewer than 1 / RG_INC_EV of the entries */
#ifndef RG_INC_S
#define RG_INC_S 8
#endif
#ifndef RG_INC_COL
#define RG_INC_COL 1
#endif
#ifndef RG_INC_EV
#define RG_INC_EV 3
#endif
#ifndef RG_I32_K
#define RG_I32_K 4
#endif
/* the race judges a start from its RG_RACE_FROM-th half-sweep: one half-sweep from uniform
 * cuts says little on a power-law graph (SARMA's email-Eu-core at 4 x 4: the uniform start,
 * 3,000 after one against 1,930, ends at 1,849, below SARMA's best of nine 1,888; at h >= 1
 * it was dropped). On SARMA's test matrices 4 more of 60 cases <= the best of nine; on
 * bench_spatial_fresh no max load across it, 5 fewer cases <= nic's CPU */
#ifndef RG_RACE_FROM
#define RG_RACE_FROM 2
#endif
#ifndef RG_Y_ONE
#define RG_Y_ONE 4096
#endif
/* rg_shift out of line: inlined into rg_half it changed the code of the running prefix and the
 * probes (1.05x the core's time at 32 x 32) */
#if defined(__GNUC__)
#define RG_NOINLINE __attribute__((noinline))
#else
#define RG_NOINLINE
#endif

/* the columns of rg_shift's deltas (g->yd) per major: a shift there changes at most RG_INC_S
 * stripes (more go to rg_shift_all), and a grid has at most max(P, Q) */
static inline int64_t rg_yd_cols(int64_t P, int64_t Q)
{
    int64_t k = P > Q ? P : Q;
    return k < RG_INC_S ? k : RG_INC_S;
}

/* rg_shift where many stripes change (more than RG_INC_S) but few entries move: the moved
 * entries (their major, old and new stripe, weight) sorted by major, then one pass that adds
 * to each major's row of Y[d] the loads moved so far (K stripes; integral loads: exact sums).
 * 0 (Y[d] unchanged) when the scratch cannot be had: a new prefix then */
RG_NOINLINE static int rg_shift_all(rg_ctx_t *g, int d, const int64_t *c, int64_t moved)
{
    const rg_side_t *s = &g->side[d], *o = &g->side[1 - d];
    int64_t K = g->P[1 - d], n = s->n, *yo = g->yo[d], nj = 0, hi = -1, t = 0;
    int64_t *at = wpart_i_calloc(n + 1, sizeof(int64_t));
    int64_t *js = wpart_i_malloc(moved + 1, sizeof(int64_t));
    int32_t *jq = wpart_i_malloc(moved + 1, sizeof(int32_t));
    int32_t *ev = wpart_i_malloc(2 * (moved + 1), sizeof(int32_t));
    double *ew = wpart_i_malloc(moved + 1, sizeof(double));
    double *run = wpart_i_calloc(K, sizeof(double)), *Y = g->Y[d];
    int32_t *map = g->ymap[d];
    int ok = at && js && jq && ev && ew && run;
    /* the minors that change stripe and have entries (js: at most `moved`), their old
     * stripes (jq), and the count of their entries per major */
    for (int64_t k = 1; ok && k < K; k++) {
        int64_t a = yo[k] < c[k] ? yo[k] : c[k], b = yo[k] < c[k] ? c[k] : yo[k];
        for (int64_t j = a > hi ? a : hi; j < b; j++) {
            while (c[t + 1] <= j) {
                t++;
            }
            if (map[j] != (int32_t)t && o->ptr[j + 1] > o->ptr[j]) {
                jq[nj] = map[j];
                js[nj++] = j;
                for (int64_t e = o->ptr[j]; e < o->ptr[j + 1]; e++) {
                    at[o->idx[e] + 1]++;
                }
            }
            map[j] = (int32_t)t;
        }
        hi = b > hi ? b : hi;
    }
    if (!ok) {
        goto done;
    }
    for (int64_t i = 0; i < n; i++) {
        at[i + 1] += at[i];
    }
    for (int64_t u = 0; u < nj; u++) {
        int64_t j = js[u];
        int32_t qn = map[j], qo = jq[u];
        for (int64_t e = o->ptr[j]; e < o->ptr[j + 1]; e++) {
            int64_t x = at[o->idx[e]]++;
            ev[2 * x] = qo;
            ev[2 * x + 1] = qn;
            ew[x] = o->w ? o->w[e] : 1.0;
        }
    }
    /* at[r]: the end of major r's moved entries (run: zero, an int32 array in int32 Y) */
    if (g->i32[d]) {
        rg_shift_all_rows_i((int32_t *)(void *)Y, K, n, at, ev, ew, (int32_t *)(void *)run);
    } else {
        rg_shift_all_rows(Y, K, n, at, ev, ew, run);
    }
    memcpy(yo, c, (size_t)(K + 1) * sizeof(int64_t));
done:
    free(at);
    free(js);
    free(jq);
    free(ev);
    free(ew);
    free(run);
    return ok;
}

/* Y[d] (made for the cuts yo[d]) brought to the cuts c of the other dimension by moving the
 * entries of the minors that change stripe (integral loads: exact sums, so the numbers of a
 * new prefix exactly): 1 when done, 0 when a new prefix is cheaper or the other side's lists
 * are not made (Y[d] unchanged) */
RG_NOINLINE static int rg_shift(rg_ctx_t *g, int d, const int64_t *c)
{
    const rg_side_t *s = &g->side[d], *o = &g->side[1 - d];
    int64_t K = g->P[1 - d], n = s->n, *yo = g->yo[d];
    int64_t ns = 0, moved = 0, hi = -1;
    if (!g->integral || !o->idx) {
        return 0;
    }
    for (int64_t q = 0; q < K; q++) {
        int ch = yo[q] != c[q] || yo[q + 1] != c[q + 1];
        g->yslot[q] = ch ? (int32_t)ns : -1;
        ns += ch;
    }
    if (ns == 0) {
        return 1;
    }
    /* the minors that change stripe lie in the ranges between each cut's old and new place
     * (both ends rise with the cut's index: one merged sweep) */
    for (int64_t k = 1; k < K; k++) {
        int64_t a = yo[k] < c[k] ? yo[k] : c[k], b = yo[k] < c[k] ? c[k] : yo[k];
        if (a == b) {
            continue;
        }
        a = a > hi ? a : hi;
        if (a < b) {
            moved += o->ptr[b] - o->ptr[a];
            hi = b;
        }
    }
    if (ns > RG_INC_S) {
        return moved * RG_INC_EV < s->ptr[n] && rg_shift_all(g, d, c, moved);
    }
    if (moved + ns * n * RG_INC_COL >= s->ptr[n] + n * K) {
        return 0;
    }
    /* the moved entries as deltas per major and changed stripe (g->yd: rg_yd_cols (n + 2)
     * cells), then added to the prefix from the first major they touch */
    int32_t *qs = g->yslot + K + 1;
    for (int64_t q = 0; q < K; q++) {
        if (g->yslot[q] >= 0) {
            qs[g->yslot[q]] = (int32_t)q;
        }
    }
    if (!g->ydz) { /* the deltas start zero and each shift leaves them zero (rg_shift_move) */
        int64_t nmax = g->A->n1 > g->A->n2 ? g->A->n1 : g->A->n2;
        memset(g->yd, 0, (size_t)(rg_yd_cols(g->P[0], g->P[1]) * (nmax + 2)) * sizeof(double));
        g->ydz = 1;
    }
    if (g->i32[d]) {
        rg_shift_move_i((int32_t *)(void *)g->Y[d], K, ns, n, (int32_t *)(void *)g->yd,
                        g->yslot, qs, yo, c, g->ymap[d], o->ptr, o->idx, o->w);
    } else {
        rg_shift_move(g->Y[d], K, ns, n, g->yd, g->yslot, qs, yo, c, g->ymap[d], o->ptr,
                      o->idx, o->w);
    }
    memcpy(yo, c, (size_t)(K + 1) * sizeof(int64_t));
    return 1;
}

/* set the cuts of dimension d (0 rows, 1 columns) for the other's cuts; returns the grid max */
static double rg_half(rg_ctx_t *g, int d, int64_t *cut_d, const int64_t *cut_o, int balance)
{
    const rg_side_t *s = &g->side[d];
    int64_t K = g->P[1 - d], P = g->P[d];
    double *X = g->Y[d];
    if (g->Y[1] == g->Y[0]) {
        g->yok[1 - d] = 0; /* one buffer: this half-sweep's prefix replaces the other's */
    }
    if (!(g->yok[d] && rg_shift(g, d, cut_o))) {
        g->yok[d] = 0;
        rg_map(cut_o, K, s->m, g->ymap[d]);
        /* int32 cells: rg_prefix_i. Integral loads in float64 (a total from 2**31): both
         * ways of rg_prefix give the same numbers exactly; the two-pass one is faster for a
         * few stripes, the running prefix for many (measured on the 70 cases of
         * bench_spatial_sarma: 0.6-0.9x the time at 16 and 32 stripes, 1.0-1.25x at 4, 8) */
        if (g->i32[d] ? rg_prefix_i(s, g->ymap[d], K, (int32_t *)(void *)X, g->ctl, &g->work)
                   : rg_prefix(s, g->ymap[d], K, X, g->ctl, &g->work, g->integral && K < 12)) {
            g->stop = 1;
            return RG_INF;
        }
        memcpy(g->yo[d], cut_o, (size_t)(K + 1) * sizeof(int64_t));
        g->yok[d] = 1;
    }
    if (g->i32[d]) {
        return rg_solve_i((const int32_t *)(void *)X, s->n, K, P, 1, cut_d, g->tmp, balance);
    }
    return rg_solve(X, s->n, K, P, g->integral, cut_d, g->tmp, balance);
}

/* one half-sweep of dimension d from the grid cur: its max load; *same says whether the
 * cuts of d stayed where they were */
static double rg_step(rg_ctx_t *g, int d, int64_t *const cur[2], int balance, int *same)
{
    size_t bytes = (size_t)(g->P[d] + 1) * sizeof(int64_t);
    memcpy(g->keep, cur[d], bytes);
    double v = rg_half(g, d, cur[d], cur[1 - d], balance);
    *same = memcmp(g->keep, cur[d], bytes) == 0;
    return v;
}

/* the lower bound of the next half-sweep of dimension d: the other's stripes' loads / P[d] */
static double rg_bound(const rg_ctx_t *g, int d, const int64_t *cut_o)
{
    const double *t = g->tot[1 - d];
    double b = 0.0;
    for (int64_t q = 0; q < g->P[1 - d]; q++) {
        double x = (t[cut_o[q + 1]] - t[cut_o[q]]) / (double)g->P[d];
        b = x > b ? x : b;
    }
    return g->integral ? ceil(b) : b * (1.0 - 1e-12);
}

/* whether A equals its transpose entry for entry, without making the transpose: the t-th
 * entry of column j met in CSR order (the transpose's entry t of its row j) must be entry t
 * of row j, (j, i) with the same weight bits, and every row j must be met that often
 * (next: n1 of scratch). -1: Ctrl-C asked to stop */
static int rg_sym_scan(rg_ctx_t *g, int64_t *next)
{
    const wpart_rg_csr_t *A = g->A;
    const int64_t *rp = A->rp, *ci = A->ci;
    const double *w = A->w;
    /* next[j]: where the next entry of column j met in CSR order must be (row j's entries in
     * turn) */
    memcpy(next, rp, (size_t)A->n1 * sizeof(int64_t));
    for (int64_t i = 0; i < A->n1; i++) {
        if (rg_cancel(g->ctl, &g->work, rp[i + 1] - rp[i])) {
            return -1;
        }
        for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
            int64_t j = ci[e], k = next[j]++;
            if (k >= rp[j + 1] || ci[k] != i || (w && memcmp(w + k, w + e, sizeof(double)))) {
                return 0;
            }
        }
    }
    for (int64_t j = 0; j < A->n1; j++) {
        if (next[j] != rp[j + 1]) {
            return 0;
        }
    }
    return 1;
}

/* rg_sym_scan on scratch of its own (the context's is sized by the answer): 0 when A is not
 * square, -1: Ctrl-C, -2: out of memory */
static int rg_symmetric(rg_ctx_t *g)
{
    if (g->A->n1 != g->A->n2) {
        return 0;
    }
    int64_t *next = wpart_i_malloc(g->A->n1, sizeof(int64_t));
    if (!next) {
        return -2;
    }
    int r = rg_sym_scan(g, next);
    free(next);
    return r;
}

int wpart_i_rg_load_starts(int64_t nnz, int64_t n1, int64_t n2)
{
    return (double)nnz * 2.0 >= (double)n1 * (double)n2 ? 3 : 0;
}

/* one block carved into arrays (rg_open): base NULL sizes it (rg_take gives NULL), then the
 * same calls carve it; each array starts on a 64-byte step; bad: a size overflowed */
typedef struct {
    char *base;
    int64_t used;
    int bad;
} rg_carve_t;

static void *rg_take(rg_carve_t *c, int64_t n, size_t sz)
{
    int64_t b;
    if (c->bad || !wpart_i_mul_size(n > 0 ? n : 1, (int64_t)sz, &b) ||
        b > INT64_MAX - 64 - c->used) {
        c->bad = 1;
        return NULL;
    }
    void *p = c->base ? c->base + c->used : NULL;
    c->used += (b + 63) & ~(int64_t)63;
    return p;
}

/* after rg_take's first pass (pass 0): *block, the carved arrays' allocation, and the carve
 * started on it; after the second: nothing. ENOMEM when a size overflowed or malloc failed */
static wpart_status_t rg_block(rg_carve_t *c, int pass, void **block)
{
    wpart_status_t st = WPART_OK;
    if (c->bad) {
        WPART_FAIL(WPART_ENOMEM, "RECT-NICOL: the scratch is too large");
    }
    if (!pass) {
        *block = wpart_i_malloc(c->used, 1);
        if (!*block) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
        }
        *c = (rg_carve_t){*block, 0, 0};
    }
cleanup:
    return st;
}

/* the CSC's arrays (pointers, rows, weights for A->w) and the fill's scratch pos, carved */
static void rg_take_csc(rg_carve_t *c, rg_ctx_t *g, int64_t **pos)
{
    const wpart_rg_csr_t *A = g->A;
    int64_t nnz = A->rp[A->n1];
    g->cp = rg_take(c, A->n2 + 1, sizeof(int64_t));
    *pos = rg_take(c, A->n2 + 1, sizeof(int64_t));
    g->ri = rg_take(c, nnz, sizeof(int64_t));
    g->cw = A->w ? rg_take(c, nnz, sizeof(double)) : NULL;
}

/* the CSC made in the carved arrays (side[1]); csum: the column loads (rg_fill_in; NULL: none) */
static wpart_status_t rg_make_csc(rg_ctx_t *g, int64_t *pos, double *csum)
{
    wpart_status_t st = WPART_OK;
    const wpart_rg_csr_t *A = g->A;
    memset(g->cp, 0, (size_t)(A->n2 + 1) * sizeof(int64_t));
    if (csum && A->w) {
        memset(csum, 0, (size_t)A->n2 * sizeof(double));
    }
    WPART_CHECK(rg_colptr_in(A, g->ctl, g->cp));
    WPART_CHECK(rg_fill_in(A, g->ctl, g->cp, pos, g->ri, g->cw, csum));
    g->side[1] = (rg_side_t){A->n2, A->n1, g->cp, g->ri, g->cw};
cleanup:
    return st;
}

wpart_status_t wpart_i_rg_csc(rg_ctx_t *g)
{
    wpart_status_t st = WPART_OK;
    int64_t *pos = NULL;
    if (g->side[1].idx) {
        return st;
    }
    rg_carve_t c = {NULL, 0, 0};
    for (int pass = 0; pass < 2; pass++) {
        rg_take_csc(&c, g, &pos);
        WPART_CHECK(rg_block(&c, pass, &g->csc));
    }
    WPART_CHECK(rg_make_csc(g, pos, NULL));
cleanup:
    return st;
}

/* the context of a set of runs on A (rect_grid_i.h): the CSC, the major sums, the scratch */
wpart_status_t wpart_i_rg_open(rg_ctx_t *g, const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                               const wpart_control_t *ctl, int integral)
{
    wpart_status_t st = WPART_OK;
    memset(g, 0, sizeof *g);
    g->A = A;
    int64_t nnz = A->rp[A->n1], nmax = A->n1 > A->n2 ? A->n1 : A->n2;
    int64_t K = P > Q ? P : Q;
    g->integral = integral >= 0 ? integral : rg_integral(A->w, nnz);
    g->ctl = ctl;
    g->P[0] = P;
    g->P[1] = Q;
    int64_t xs;
    if (!wpart_i_mul_size(nmax + 1, K < 8 ? K : 8, &xs)) {
        WPART_FAIL(WPART_ENOMEM, "RECT-NICOL: the stripe prefix is too large");
    }
    /* the CSC: A itself when A equals its transpose entry for entry (the same arrays
     * exactly); otherwise made below (the half-sweeps' rg_shift moves the entries of the
     * columns that change stripe through it) */
    g->sym = rg_symmetric(g);
    if (g->sym == -2) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    if (g->sym < 0) {
        WPART_FAIL(WPART_ECANCELLED, "stopped on request");
    }
    /* the CSC and the scratch are one block (rg_take: sized in a first pass, carved in the
     * second). A call's arrays, allocated one by one, came and went at the top of the heap:
     * freed there, glibc gave them back to the system once the top passed its trim threshold
     * (twice the largest mmap-sized chunk freed so far), and the next call faulted them in
     * again; one block is that largest chunk itself */
    int one = P * Q >= RG_Y_ONE;
    int64_t *pos = NULL;
    rg_carve_t c = {NULL, 0, 0};
    for (int pass = 0; pass < 2; pass++) {
        if (!g->sym) {
            rg_take_csc(&c, g, &pos);
        }
        g->X = rg_take(&c, xs, sizeof(double));
        g->map = rg_take(&c, nmax, sizeof(int32_t));
        /* from RG_Y_ONE blocks both dimensions' prefixes share one buffer (the larger): kept
         * apart there they cost more in cache misses than rg_shift saves */
        for (int d = 0; d < 2; d++) {
            int64_t ys, ys1;
            if (!wpart_i_mul_size(A->n1 + 1, Q, &ys) || !wpart_i_mul_size(A->n2 + 1, P, &ys1)) {
                WPART_FAIL(WPART_ENOMEM, "RECT-NICOL: the stripe prefix is too large");
            }
            if (one) {
                ys = ys > ys1 ? ys : ys1;
            } else if (d) {
                ys = ys1;
            }
            g->Y[d] = one && d ? g->Y[0] : rg_take(&c, ys, sizeof(double));
            g->ymap[d] = rg_take(&c, d ? A->n1 : A->n2, sizeof(int32_t));
            g->yo[d] = rg_take(&c, (d ? P : Q) + 1, sizeof(int64_t));
        }
        g->yd = rg_take(&c, rg_yd_cols(P, Q) * (nmax + 2), sizeof(double));
        g->yslot = rg_take(&c, K + 1 + RG_INC_S, sizeof(int32_t));
        g->tmp = rg_take(&c, K + 1, sizeof(int64_t));
        g->keep = rg_take(&c, K + 1, sizeof(int64_t));
        for (int d = 0; d < 2; d++) {
            g->tot[d] = rg_take(&c, (d ? A->n2 : A->n1) + 1, sizeof(double));
            g->line[d] = rg_take(&c, d ? A->n2 : A->n1, sizeof(double));
            g->cur[d] = rg_take(&c, g->P[d] + 1, sizeof(int64_t));
            g->best[d] = rg_take(&c, g->P[d] + 1, sizeof(int64_t));
        }
        WPART_CHECK(rg_block(&c, pass, &g->block));
    }
    g->tot[0][0] = g->tot[1][0] = 0.0; /* (the rest is written below) */
    g->side[0] = (rg_side_t){A->n1, A->n2, A->rp, A->ci, A->w};
    if (!g->sym) { /* (with the column loads of a weighted matrix, summed in its fill) */
        WPART_CHECK(rg_make_csc(g, pos, g->line[1]));
    } else {
        g->side[1] = g->side[0];
    }
    /* tot[d][i]: the load of majors [0, i), summed in order (the running sum in a register:
     * the same additions); a symmetric matrix's columns are its rows (the same sums) */
    for (int d = 0; d < (g->sym ? 1 : 2); d++) {
        const rg_side_t *s = &g->side[d];
        const int64_t *ptr = s->ptr;
        const double *w = s->w;
        double *line = g->line[d], *tot = g->tot[d], run = 0.0;
        for (int64_t i = 0; i < s->n; i++) {
            if (rg_cancel(ctl, &g->work, ptr[i + 1] - ptr[i])) {
                WPART_FAIL(WPART_ECANCELLED, "stopped on request");
            }
            double t = 0.0;
            if (d == 1 && w) {
                t = line[i]; /* (summed in the CSC's fill, in this order) */
            } else if (w) {
                for (int64_t e = ptr[i]; e < ptr[i + 1]; e++) {
                    t += w[e];
                }
            } else {
                t = (double)(ptr[i + 1] - ptr[i]); /* the same sum of 1s, exactly */
            }
            line[i] = t;
            run += t;
            tot[i + 1] = run;
        }
    }
    if (g->sym) {
        memcpy(g->line[1], g->line[0], (size_t)A->n1 * sizeof(double));
        memcpy(g->tot[1], g->tot[0], (size_t)(A->n1 + 1) * sizeof(double));
    }
    /* integral loads with a total below 2**31: the half-sweeps' prefixes of RG_I32_K stripes
     * or more in int32 (the same integers, half the bytes: the prefixes and shifts are passes
     * over K (n + 1) cells; the default's core CPU 0.86x at 8 x 32, 0.81x at 32 x 32, 0.71x
     * at 64 x 64). At 4 x 4 (from 4 stripes since rg_shift's SSE2 pass and rg_prefix_i's
     * register runs below 8 stripes; was 8): the default's CPU 0.97 x (geomean of
     * bench_spatial_fresh's 74 cases, one process, interleaved; 0.73-0.86 x on the power-law
     * and arrow ones, at most 1.07 x on the banded ones, whose CPU is 1.1-5 x below SARMA
     * nic's); fewer stripes keep float64 */
    for (int d = 0; d < 2; d++) {
        g->i32[d] = g->integral && g->tot[0][A->n1] < 2147483647.0 && g->P[1 - d] >= RG_I32_K;
    }
cleanup:
    return st;
}

void wpart_i_rg_close(rg_ctx_t *g)
{
    free(g->csc);   /* cp, ri, cw when made by wpart_i_rg_csc */
    free(g->block); /* the scratch's arrays (and cp, ri, cw when made by open) */
    memset(g, 0, sizeof *g);
}

int wpart_i_rg_loads(rg_ctx_t *g, const int64_t *R, const int64_t *C, int64_t *il, double *fl)
{
    int64_t P = g->P[0], Q = g->P[1];
    /* a prefix made for these cuts, else one brought to them by rg_shift when that is cheap */
    for (int pass = 0; pass < 2 && g->integral; pass++) {
        for (int d = 0; d < 2; d++) {
            int64_t K = g->P[1 - d];
            const int64_t *c = d ? R : C;
            if (!g->yok[d] ||
                (pass ? !rg_shift(g, d, c)
                      : memcmp(c, g->yo[d], (size_t)(K + 1) * sizeof(int64_t)) != 0)) {
                continue;
            }
            const double *X = g->Y[d];
            const int32_t *Xi = (const int32_t *)(const void *)X;
            for (int64_t p = 0; p < P; p++) {
                for (int64_t q = 0; q < Q; q++) {
                    int64_t a = d ? C[q] * K + p : R[p] * K + q;
                    int64_t b = d ? C[q + 1] * K + p : R[p + 1] * K + q;
                    double v = g->i32[d] ? (double)(Xi[b] - Xi[a]) : X[b] - X[a];
                    if (il) {
                        il[p * Q + q] = (int64_t)v;
                    } else {
                        fl[p * Q + q] = v;
                    }
                }
            }
            return 1;
        }
    }
    return 0;
}

wpart_status_t wpart_i_rg_run(rg_ctx_t *g, double t0, int64_t nstarts, const int64_t *R0,
                              const int64_t *C0, const int32_t *first,
                              const wpart_rg_opts_t *opt, int64_t *R, int64_t *C, double *val,
                              int64_t *halves, int32_t *state, int64_t *twin_of,
                              int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    int64_t P = g->P[0], Q = g->P[1];
    int64_t **cur = g->cur, **best = g->best;
    *timed_out = 0;
    memcpy(best[0], R0, (size_t)(P + 1) * sizeof(int64_t)); /* a start's grid at least */
    memcpy(best[1], C0, (size_t)(Q + 1) * sizeof(int64_t));
    double inc = opt->incumbent > 0 ? opt->incumbent : RG_INF;
    int stop = 0, fixed = 0, gained = !(opt->incumbent > 0);
    for (int64_t s = 0; s < nstarts + (opt->polish_patience > 0); s++) {
        val[s] = RG_INF;
        halves[s] = 0;
        state[s] = 2;
        if (twin_of && s < nstarts) {
            twin_of[s] = -1;
        }
    }
    /* a symmetric matrix (A equal to its transpose, entry for entry) with P == Q: a start
     * that is the transpose of an earlier one runs the same half-sweeps transposed, so its
     * values are that start's and it cannot lower the incumbent: it is not run (state 4) */
    int sym = P == Q && nstarts > 1 && g->sym;
    for (int64_t s = 0; s < nstarts && !stop && !(inc <= opt->lower); s++) {
        if (opt->first_only && s > 0) {
            break; /* the others keep state 2: not run */
        }
        int64_t twin = -1;
        for (int64_t t = 0; sym && t < s && twin < 0; t++) {
            if ((state[t] == 0 || state[t] == 1) && ((first[s] ^ first[t]) == 1) &&
                memcmp(R0 + s * (P + 1), C0 + t * (Q + 1), (size_t)(P + 1) * sizeof(int64_t)) == 0 &&
                memcmp(C0 + s * (Q + 1), R0 + t * (P + 1), (size_t)(Q + 1) * sizeof(int64_t)) == 0) {
                twin = t;
            }
        }
        if (twin >= 0) {
            val[s] = val[twin];
            halves[s] = halves[twin];
            state[s] = 4;
            if (twin_of) {
                twin_of[s] = twin;
            }
            continue;
        }
        memcpy(cur[0], R0 + s * (P + 1), (size_t)(P + 1) * sizeof(int64_t));
        memcpy(cur[1], C0 + s * (Q + 1), (size_t)(Q + 1) * sizeof(int64_t));
        int d = (first[s] & 1) ? 0 : 1;
        int bal = opt->balance || (first[s] & 2);
        int64_t pat = (first[s] & 4) ? rg_sarma_patience(P, Q) : opt->patience;
        int64_t nogain = 0, h = 0;
        double v = RG_INF;
        state[s] = 0;
        while (h < opt->max_half) {
            if (opt->abandon && h >= 2 && inc < RG_INF && rg_bound(g, d, cur[1 - d]) >= inc) {
                state[s] = 1;
                break;
            }
            int same;
            double nv = rg_step(g, d, cur, bal, &same);
            if (g->stop) {
                WPART_FAIL(WPART_ECANCELLED, "stopped on request");
            }
            h++;
            if (nv < v) {
                v = nv;
                nogain = 0;
            } else {
                nogain++;
            }
            if (v < inc) {
                inc = v;
                fixed = 0;
                gained = 1;
                memcpy(best[0], cur[0], (size_t)(P + 1) * sizeof(int64_t));
                memcpy(best[1], cur[1], (size_t)(Q + 1) * sizeof(int64_t));
            }
            val[s] = v;
            halves[s] = h;
            if (inc <= opt->lower) {
                break; /* the incumbent is optimal: nothing can lower it */
            }
            /* the race: more than slack * 2 / h above the incumbent after h >= RG_RACE_FROM
             * half-sweeps (a start still far behind after many sweeps will not catch up) */
            if (opt->slack > 0 && h >= RG_RACE_FROM &&
                v > inc * (1.0 + opt->slack * 2.0 / (double)h)) {
                state[s] = 1;
                break;
            }
            if (nogain >= pat || (same && h >= 2)) {
                /* a balanced start at a fixed point of both half-sweeps (the last one kept
                 * its cuts; the one before made the other dimension's from them) whose grid
                 * is the best: the polish would repeat the same two half-sweeps */
                fixed = same && h >= 2 && bal &&
                        rg_same_grid(P, Q, cur[0], cur[1], best[0], best[1]);
                break;
            }
            d = 1 - d;
            st = wpart_i_poll(opt->control, t0, (double)s, (double)nstarts);
            if (st != WPART_OK) {
                if (st == WPART_ECANCELLED && rg_time_up(opt->control, t0)) {
                    st = WPART_OK;
                    state[s] = 3;
                    stop = 1;
                    *timed_out = 1;
                    break;
                }
                goto cleanup;
            }
        }
    }
    if (opt->polish_patience > 0 && !gained) {
        state[nstarts] = 2; /* no start went below the caller's incumbent: no continuation */
    } else if (opt->polish_patience > 0 && !stop && !(inc <= opt->lower) && fixed) {
        state[nstarts] = 0; /* the best grid is a fixed point: nothing to continue */
        val[nstarts] = inc;
    } else if (opt->polish_patience > 0 && !stop && !(inc <= opt->lower)) {
        /* the polish: the best grid goes on balanced, columns first, with its own patience
         * and incumbent (as a separate call from that grid would), reported in slot nstarts */
        memcpy(cur[0], best[0], (size_t)(P + 1) * sizeof(int64_t));
        memcpy(cur[1], best[1], (size_t)(Q + 1) * sizeof(int64_t));
        double pinc = RG_INF, v = RG_INF;
        int64_t nogain = 0, h = 0;
        int d = 1;
        state[nstarts] = 0;
        val[nstarts] = RG_INF;
        halves[nstarts] = 0;
        while (h < opt->polish_max_half) {
            int same;
            double nv = rg_step(g, d, cur, 1, &same);
            if (g->stop) {
                WPART_FAIL(WPART_ECANCELLED, "stopped on request");
            }
            h++;
            if (nv < v) {
                v = nv;
                nogain = 0;
            } else {
                nogain++;
            }
            if (v < pinc) {
                pinc = v;
                memcpy(best[0], cur[0], (size_t)(P + 1) * sizeof(int64_t));
                memcpy(best[1], cur[1], (size_t)(Q + 1) * sizeof(int64_t));
            }
            val[nstarts] = v;
            halves[nstarts] = h;
            if (nogain >= opt->polish_patience || (same && h >= 2)) {
                break;
            }
            d = 1 - d;
            st = wpart_i_poll(opt->control, t0, (double)nstarts - 0.5, (double)nstarts);
            if (st != WPART_OK) {
                if (st == WPART_ECANCELLED && rg_time_up(opt->control, t0)) {
                    st = WPART_OK;
                    state[nstarts] = 3;
                    *timed_out = 1;
                    break;
                }
                goto cleanup;
            }
        }
    }
    memcpy(R, best[0], (size_t)(P + 1) * sizeof(int64_t));
    memcpy(C, best[1], (size_t)(Q + 1) * sizeof(int64_t));
cleanup:
    return st;
}

wpart_status_t wpart_i_rg_check_grids(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                      int64_t ngrids, const int64_t *R, const int64_t *C)
{
    if (!A || !R || !C || P < 1 || Q < 1 || ngrids < 0) {
        return wpart_i_error(WPART_EINVAL, "RECT grid: missing input or P, Q < 1");
    }
    for (int64_t s = 0; s < ngrids; s++) {
        if (wpart_i_cuts_fault(R + s * (P + 1), P, A->n1) >= 0) {
            return wpart_i_error(WPART_EINVAL, "RECT grid: row cuts of grid %lld must rise from "
                                 "0 to %lld", (long long)s, (long long)A->n1);
        }
        if (wpart_i_cuts_fault(C + s * (Q + 1), Q, A->n2) >= 0) {
            return wpart_i_error(WPART_EINVAL, "RECT grid: column cuts of grid %lld must rise "
                                 "from 0 to %lld", (long long)s, (long long)A->n2);
        }
    }
    return WPART_OK;
}

wpart_status_t wpart_spatial_rect_grid(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                       int64_t nstarts, const int64_t *R0, const int64_t *C0,
                                       const int32_t *first, const wpart_rg_opts_t *opt,
                                       int64_t *R, int64_t *C, double *val, int64_t *halves,
                                       int32_t *state, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    double t0 = wpart_i_now();
    rg_ctx_t g;
    *timed_out = 0;
    memset(&g, 0, sizeof g);
    WPART_CHECK(wpart_i_rg_check_grids(A, P, Q, nstarts, R0, C0));
    WPART_CHECK(wpart_i_rg_open(&g, A, P, Q, opt->control, -1));
    WPART_CHECK(wpart_i_rg_run(&g, t0, nstarts, R0, C0, first, opt, R, C, val, halves, state,
                               NULL, timed_out));
cleanup:
    wpart_i_rg_close(&g);
    return st;
}

double wpart_i_rect_1d(const double *w, int64_t n, int64_t P, int64_t *cuts, double *X,
                       int64_t *tmp, int integral)
{
    double mx = 0.0, run = 0.0;
    X[0] = 0.0;
    if (integral) { /* integers: the prefix by int64 adds (no float add chain, no integrality
                     * pass), the same numbers below 2**53 */
        int64_t acc = 0;
        for (int64_t i = 0; i < n; i++) {
            acc += (int64_t)w[i];
            X[i + 1] = (double)acc;
            mx = w[i] > mx ? w[i] : mx;
        }
        if (acc < ((int64_t)1 << 53)) {
            double lo = X[n] / (double)P;
            return rg_bisect(X, n, 1, P, ceil(lo > mx ? lo : mx), X[n], 1, cuts, tmp);
        }
    }
    integral = 1; /* rg_integral(w, n) in the same pass: the same sum */
    for (int64_t i = 0; i < n; i++) { /* the running sum in a register: the same additions */
        run += w[i];
        X[i + 1] = run;
        mx = w[i] > mx ? w[i] : mx;
        integral &= rg_whole(w[i]);
    }
    integral = integral && run < 9007199254740992.0;
    double lo = X[n] / (double)P;
    lo = lo > mx ? lo : mx;
    lo = integral ? ceil(lo) : lo * (1.0 - 1e-12);
    return rg_bisect(X, n, 1, P, lo, X[n], integral, cuts, tmp);
}

wpart_status_t wpart_spatial_rect_1d(const double *w, int64_t n, int64_t P, int64_t *cuts,
                                     double *value)
{
    wpart_status_t st = WPART_OK;
    double *X = wpart_i_malloc(n + 1, sizeof(double));
    int64_t *tmp = wpart_i_malloc(P + 1, sizeof(int64_t));
    if (!X || !tmp) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in the 1D partition");
    }
    *value = wpart_i_rect_1d(w, n, P, cuts, X, tmp, 0);
cleanup:
    free(X);
    free(tmp);
    return st;
}
