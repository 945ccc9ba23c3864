/* rect_piece.c -- the piece start of the default RECT-NICOL on heavy-line matrices (rect_fast.c
 * calls it from RF_PIECE_MIN blocks).
 *
 * A block of a P x Q grid holds, for every line crossing it, that line's piece inside the
 * block; so with the row cuts fixed, no grid is below the largest piece of one column inside
 * one row stripe, nor below a row stripe's load / Q. The piece cuts of the rows are the exact
 * 1D partition that makes the larger of the two least: a bisection on that value B, each probe
 * a greedy pass over the entries (a stripe grows while no column's piece in it passes B and its
 * load stays within Q B; O(nnz)), galloping from the lower bound, near which B lies on
 * power-law matrices. The same on the columns. Each set of cuts is a start (the other
 * dimension uniform, set first), run as the default's starts (balanced half-sweeps, patience
 * 2). On bench_spatial_fresh's power-law matrices from 256 blocks the two end at or below the
 * best of SARMA's nine in 27 of 33 cases (SARMA's sgo_2dr_nic reaches that class after
 * thousands of subgradient steps), in 3-11 half-sweeps. */
#include "rect_grid_i.h"
#include "rect_polish.h"
#include "spatial_internal.h"

/* the pieces of the stripe being grown: cell j's sum is valid when its stamp is the stripe's */
typedef struct {
    double v;
    int64_t s;
} rpc_cell_t;

typedef struct {
    int32_t v, s;
} rpc_icell_t;

/* The greedy probe of B on side sd (lines: the majors, their loads line[i + 1] - line[i]): the
 * stripes it needs (cuts[0..stripes], cuts[stripes..K] = n), or K + 1 when more than K (or one
 * line alone passes B or cap = Ko B). A line is added as it is read; where it does not fit,
 * the stripe closes (its cells are not read again) and the line opens the next. The stamp test
 * is branch-free (SEEN: a cell's sum where it was met in the stripe, else 0): whether a column
 * was met in the stripe is a coin toss on sparse input (a branch there cost 1.6-1.9 x the
 * probe's time on power-law matrices). Written once for two cell types (RPC_PROBE below):
 * float64 sums, and int32 ones on integral loads with a total below 2**31 (half the bytes). */
#define RPC_SEEN_F(x, cur) ((x)->v * (double)((x)->s == (cur)))
#define RPC_SEEN_I(x, cur) ((int64_t)((x)->v & -(int32_t)((x)->s == (cur))))
#define RPC_PROBE(NAME, CELL, VAL, STAMP, SEEN, STORE)                                         \
    static int64_t NAME(const rg_side_t *sd, const double *restrict line, VAL B, VAL cap,      \
                        int64_t K, CELL *restrict c, STAMP *stamp, int64_t *restrict cuts,   \
                        int64_t *reach)                                                       \
    {                                                                                         \
        const int64_t *restrict ptr = sd->ptr, *restrict idx = sd->idx;                       \
        const double *restrict w = sd->w;                                                     \
        int64_t n = sd->n, k = 0;                                                             \
        STAMP cur = ++*stamp;                                                                 \
        VAL tot = 0;                                                                          \
        cuts[0] = 0;                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                     \
            VAL li = (VAL)(line[i + 1] - line[i]);                                            \
            int64_t e0 = ptr[i], e1 = ptr[i + 1];                                             \
            int over = tot + li > cap;                                                        \
            for (int64_t e = e0; !over && e < e1; e++) {                                      \
                CELL *x = c + idx[e];                                                         \
                VAL r = SEEN(x, cur) + (w ? (VAL)w[e] : 1);                                   \
                x->v = (STORE)r;                                                              \
                x->s = cur;                                                                   \
                over = r > B;                                                                 \
            }                                                                                 \
            if (over) {                                                                       \
                if (li > cap || ++k >= K) {                                                   \
                    *reach = i;                                                               \
                    return K + 1;                                                             \
                }                                                                             \
                cuts[k] = i;                                                                  \
                cur = ++*stamp;                                                               \
                tot = 0;                                                                      \
                for (int64_t e = e0; e < e1; e++) {                                           \
                    CELL *x = c + idx[e];                                                     \
                    x->v = w ? (STORE)w[e] : 1;                                               \
                    x->s = cur;                                                               \
                    if (x->v > B) {                                                           \
                        *reach = i;                                                           \
                        return K + 1;                                                         \
                    }                                                                         \
                }                                                                             \
            }                                                                                 \
            tot += li;                                                                        \
        }                                                                                     \
        for (int64_t q = k + 1; q <= K; q++) {                                                \
            cuts[q] = n;                                                                      \
        }                                                                                     \
        *reach = n;                                                                           \
        return k + 1;                                                                         \
    }

RPC_PROBE(rpc_probe, rpc_cell_t, double, int64_t, RPC_SEEN_F, double)
RPC_PROBE(rpc_probe_i, rpc_icell_t, int64_t, int32_t, RPC_SEEN_I, int32_t)

/* the gallops and the bisection stop after this many probes each (never reached: B at most
 * doubles its step per probe, and the bisection halves an interval of at most 2**62) */
#define RPC_MAX_PROBES 128

typedef struct {
    const rg_side_t *s;
    const double *line;
    int64_t K, Ko;
    int i32;
    void *cells;
    int64_t stamp;
    int32_t istamp;
    int64_t *cuts;
    const wpart_control_t *ctl;
    int64_t *work;
    int64_t *keep; /* the cuts of the last feasible probe, at B = at (-1: none yet) */
    double at;
    int64_t reach; /* the lines the last probe covered (n where feasible) */
} rpc_t;

/* 1: B is feasible (p->cuts then hold its greedy cuts); -1: Ctrl-C asked to stop */
static int rpc_feasible(rpc_t *p, double B)
{
    int64_t got;
    if (p->i32) {
        got = rpc_probe_i(p->s, p->line, (int64_t)B, (int64_t)B * p->Ko, p->K,
                          (rpc_icell_t *)p->cells, &p->istamp, p->cuts, &p->reach);
    } else {
        got = rpc_probe(p->s, p->line, B, B * (double)p->Ko, p->K, (rpc_cell_t *)p->cells,
                        &p->stamp, p->cuts, &p->reach);
    }
    if (rg_cancel(p->ctl, p->work, p->s->ptr[p->s->n] + p->s->n)) {
        return -1;
    }
    if (got <= p->K) {
        memcpy(p->keep, p->cuts, (size_t)(p->K + 1) * sizeof(int64_t));
        p->at = B;
    }
    return got <= p->K;
}

/* the guess of the value after a failed probe at B = c: its K stripes covered the load
 * line[reach] of the total T, so c T / line[reach], at most T (at B = T one stripe holds all) */
static double rpc_guess(const rpc_t *p, double c)
{
    const double T = p->line[p->s->n], got = p->line[p->reach];
    double g = got > 0.0 ? ceil(c * (T / got)) : 2.0 * c;
    return g < T ? g : T;
}

/* The least feasible integer B above x (which fails), to *hi (*lo = *hi; the probe there the
 * last feasible one): with gallop, 1, 2, 4, ... above the last failure, then a bisection (the
 * columns' search from the rows' value: on bench_spatial_fresh's power-law matrices at 16 x 16
 * the value is 1-2 above it in 3 of 4, where the guesses below overshot by 4-6: one probe
 * instead of four); else a search that takes rpc_guess of each failed probe (on
 * bench_spatial_fresh's power-law and arrow matrices the first, from the bound, lies within
 * 1-5 % of the value, 11 % on arrows) while no value is known to pass (at least 1, 2, 4, ...
 * above the last failure: never slower than doubling), then between the bounds, with a
 * bisection step after each guess that did not halve the interval. Any search ends at the same
 * least B (feasibility is monotone in B). Returns rpc_feasible's last answer (-1: Ctrl-C) */
static int rpc_up(rpc_t *p, double x, int gallop, double *lo_out, double *hi_out)
{
    double lo = x + 1.0, hi = INFINITY, step = 1.0, c = x;
    double guess = gallop ? lo : rpc_guess(p, x);
    int ok = 0, bisect = 0;
    for (int t = 0; t < RPC_MAX_PROBES && lo < hi; t++) {
        double width = hi - lo;
        if (hi == INFINITY) {
            c = guess > lo ? guess : lo;
            if (t > 0) { /* (a guess that failed before: at least doubling) */
                c = c > lo - 1.0 + step ? c : lo - 1.0 + step;
                step *= 2.0;
            }
        } else {
            c = bisect || !(guess >= lo && guess < hi) ? lo + floor((hi - lo) / 2.0) : guess;
        }
        ok = rpc_feasible(p, c);
        if (ok < 0) {
            break;
        }
        if (ok > 0) {
            hi = c;
        } else {
            lo = c + 1.0;
            guess = gallop ? lo : rpc_guess(p, c);
        }
        /* (the interval after a guess more than half the one before: a bisection next) */
        bisect = !bisect && hi < INFINITY && width < INFINITY && hi - lo > width / 2.0;
    }
    *lo_out = lo;
    *hi_out = hi;
    return ok;
}

wpart_status_t wpart_i_rect_piece_cuts(rg_ctx_t *g, int d, double anchor, double hint,
                                      int exact, int64_t *cuts, double *value)
{
    wpart_status_t st = WPART_OK;
    const rg_side_t *s = &g->side[d];
    const double *line = g->tot[d];
    int in = g->integral;
    rpc_t p = {s, line, g->P[d], g->P[1 - d], in && line[s->n] < 2147483647.0, NULL, 0, 0,
               cuts, g->ctl, &g->work, NULL, -1.0, 0};
    p.cells = wpart_i_calloc(s->m > 0 ? s->m : 1, p.i32 ? sizeof(rpc_icell_t)
                                                        : sizeof(rpc_cell_t));
    p.keep = wpart_i_malloc(p.K + 1, sizeof(int64_t));
    if (!p.cells || !p.keep) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    double unit = in ? 1.0 : 0.0; /* the next value above a failed one */
    double floor0 = line[s->n] / (double)(p.K * p.Ko);
    floor0 = in ? ceil(floor0) : floor0;
    double x = anchor > floor0 ? anchor : floor0, lo, hi;
    x = in ? ceil(x) : x; /* (B an integer where the loads are) */
    x = x > 0.0 ? x : 1.0;
    double step = in ? 1.0 : 1e-3 * x;
    int ok;
    if (in && !exact && hint > x) { /* the first probe at the hint: above it (rpc_up), or
                                     * the anchor, then between the two */
        ok = rpc_feasible(&p, hint);
        if (ok == 0) { /* (most often a unit or two above it: a gallop, not the guesses) */
            ok = rpc_up(&p, hint, 1, &lo, &hi);
        } else if (ok > 0) {
            hi = hint;
            ok = rpc_feasible(&p, x);
            if (ok > 0) {
                lo = hi = x;
            } else {
                lo = x + 1.0;
            }
        }
    } else if ((ok = rpc_feasible(&p, x)) > 0 && !exact) {
        /* at the anchor (the start's: a grid cannot go below it) */
        lo = hi = x;
    } else if (ok > 0) { /* down from the anchor: the value is at most x */
        hi = x;
        lo = hi - step;
        for (int t = 0; t < RPC_MAX_PROBES && lo > floor0; t++) {
            ok = rpc_feasible(&p, lo);
            if (ok <= 0) {
                break;
            }
            hi = lo;
            step *= 2.0;
            lo = hi - step;
        }
        lo = ok < 0 ? lo : lo <= floor0 ? floor0 : lo + unit;
    } else if (in && ok == 0) { /* up from x, which fails: integers (rpc_up) */
        ok = rpc_up(&p, x, 0, &lo, &hi);
    } else { /* up: x fails */
        lo = x + unit;
        hi = x + step;
        for (int t = 0; t < RPC_MAX_PROBES && ok == 0; t++) {
            ok = rpc_feasible(&p, hi);
            if (ok == 0) {
                lo = hi + unit;
                step *= 2.0;
                hi += step;
            }
        }
    }
    for (int t = 0; t < RPC_MAX_PROBES && ok >= 0; t++) {
        if (in ? lo >= hi : hi - lo <= 1e-6 * hi) {
            break;
        }
        double mid = in ? floor((lo + hi) / 2.0) : 0.5 * (lo + hi);
        ok = rpc_feasible(&p, mid);
        if (ok > 0) {
            hi = mid;
        } else if (ok == 0) {
            lo = mid + unit;
        }
    }
    /* the cuts at hi: those of the feasible probe there (the greedy's, kept), else probed */
    if (ok < 0 || (p.at != hi && rpc_feasible(&p, hi) < 0)) {
        WPART_FAIL(WPART_ECANCELLED, "stopped on request");
    }
    memcpy(cuts, p.keep, (size_t)(p.K + 1) * sizeof(int64_t));
    if (value) {
        *value = hi;
    }
cleanup:
    free(p.cells);
    free(p.keep);
    return st;
}

wpart_status_t wpart_i_rect_piece(rg_ctx_t *g, double t0, const wpart_rg_opts_t *o,
                                  int64_t *S, int64_t *R, int64_t *C, double *v,
                                  int64_t *halves, double *bound, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    int64_t P = g->P[0], Q = g->P[1];
    int64_t *R0 = S, *C0 = R0 + 2 * (P + 1);
    int32_t first[2] = {2, 3}, state[3];
    double val[3] = {RG_INF, RG_INF, RG_INF};
    int64_t hv[3] = {0, 0, 0};
    double pv[2];
    WPART_CHECK(wpart_i_rg_csc(g));
    /* start 0: the rows' piece cuts, uniform columns set first; start 1: the transpose */
    WPART_CHECK(wpart_i_rect_piece_cuts(g, 0, o->lower, 0.0, 0, R0, pv));
    /* (the columns' value is most often within a unit or two of the rows': the first probe
     * there; the same cuts, the least feasible value at or above the bound, with fewer probes) */
    WPART_CHECK(wpart_i_rect_piece_cuts(g, 1, o->lower, pv[0], 0, C0 + (Q + 1), pv + 1));
    /* every grid is at or above each side's piece value (a line's piece inside a stripe lies in
     * one block, a stripe's load spreads over the other side's parts; the least over the
     * side's cuts, exact on integral loads): a lower bound where that is higher */
    *bound = o->lower;
    if (g->integral) {
        *bound = pv[0] > *bound ? pv[0] : *bound;
        *bound = pv[1] > *bound ? pv[1] : *bound;
    }
    wpart_i_uniform_cuts(g->side[1].n, Q, C0);
    wpart_i_uniform_cuts(g->side[0].n, P, R0 + P + 1);
    wpart_rg_opts_t opt = *o;
    opt.polish_patience = 0; /* (no continuation: the stages after it continue its grid) */
    opt.incumbent = 0.0;
    opt.first_only = 0;
    opt.lower = *bound;
    WPART_CHECK(wpart_i_rg_run(g, t0, 2, R0, C0, first, &opt, R, C, val, hv, state, NULL,
                               timed_out));
    *v = val[0] < val[1] ? val[0] : val[1];
    *halves = hv[0] + hv[1];
cleanup:
    return st;
}

wpart_status_t wpart_spatial_rect_piece_cuts(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                             int d, double anchor,
                                             const wpart_control_t *control, int64_t *cuts,
                                             double *value)
{
    wpart_status_t st = WPART_OK;
    rg_ctx_t g;
    memset(&g, 0, sizeof g);
    if (P < 1 || Q < 1 || (d != 0 && d != 1) || !(anchor >= 0.0) || !isfinite(anchor)) {
        WPART_FAIL(WPART_EINVAL, "P, Q must be positive, d 0 or 1, anchor finite and >= 0");
    }
    WPART_CHECK(wpart_i_spatial_check_csr(A->rp, A->ci, A->n1, A->n2, A->rp[A->n1]));
    WPART_CHECK(wpart_i_rg_open(&g, A, P, Q, control, -1));
    if (d == 1) {
        WPART_CHECK(wpart_i_rg_csc(&g));
    }
    WPART_CHECK(wpart_i_rect_piece_cuts(&g, d, anchor, 0.0, 1, cuts, value));
cleanup:
    wpart_i_rg_close(&g);
    return st;
}
