/* rect_polish.h -- a cheap local search that polishes a P x Q grid (private to the core and its
 * binding). */
#ifndef WPART_RECT_POLISH_H
#define WPART_RECT_POLISH_H

#include "rect_grid.h"

/* Cut moves on the grid (R, C) (in/out): a row or column cut next to a block at the max load
 * moves by 1 .. RP_WINDOW (8) positions (between its neighbours) when that lowers the grid's
 * (max load, number of blocks at it, sum of squared block loads), lexicographically, at most
 * 4 (P + Q) moves; at the local optimum, max_iter tabu steps (the best such move, even a
 * worse one; a cut that moved stays for RP_TENURE (3) steps unless moving it beats the best
 * grid met). The best grid met comes back. O(nnz) to start (the block loads), a move
 * O(moved entries + (P + Q) window + P Q). *value: the returned grid's max load, recomputed
 * from scratch; never above the given grid's (that grid comes back when nothing is lower).
 * *iters: moves made. deterministic (no randomness). */
wpart_status_t wpart_spatial_rect_polish(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                         int64_t *R, int64_t *C, int64_t max_iter,
                                         const wpart_control_t *control, double *value,
                                         int64_t *iters, int32_t *timed_out);

/* The same with the transpose of A given (At: the n2 x n1 CSR of A's columns, as
 * wpart_spatial_rect_grid builds it), for a caller that has it. */
wpart_status_t wpart_i_rect_polish(const wpart_rg_csr_t *A, const wpart_rg_csr_t *At, int64_t P,
                                   int64_t Q, int64_t *R, int64_t *C, int64_t max_iter,
                                   const wpart_control_t *control, double *value,
                                   int64_t *iters, int32_t *timed_out);

/* The SGO kick (rect_kick.c; SARMA's sgo_2dr_nic idea: Nicol's half-sweeps from a subgradient
 * grid). Below 1,024 blocks: the subgradient method (the steps and stop rules of
 * wpart_spatial_rect_sgo; at most max_iter iterations and 6 (nnz + P Q) moved entries; stopped
 * after m iterations at more than min(1.7, 1.16 (1 + 3 / m)) x the given grid's max) from the
 * uniform grid, the block loads kept by moving only the lines that change stripe; when its grid
 * is not the uniform one and its max is at most 1.16 x the given grid's, RECT-NICOL's
 * half-sweeps from it (either dimension first, balanced, the default's race and continuation)
 * racing the given grid, and the cut-move polish (20 tabu steps) of a lower grid. From 1,024
 * blocks: the SGO's max_iter iterations in full, SARMA's nic (plain half-sweeps, race slack
 * 0.5) from its grid whatever its max and the cut moves of nic's grid; then, where one of our
 * half-sweeps (n max(P, Q) + nnz) costs at most 0.07 of one of SARMA's nic (its cut-index
 * search, ~P Q (P + Q) / 2 log2(n)^2 steps), one unraced nic run from the SGO grid measures
 * how long nic runs on this matrix, and further SGO runs take at most 0.9 x SARMA nic's
 * estimated work less 2.5 (P + Q) of our half-sweeps: the uniform start's SGO on to 1,000
 * iterations, then SARMA's random starts (fixed seeds 1, 2, ...), nic from each new lowest
 * grid racing the lowest so far; their lowest grid, after the cut moves, and the first run's
 * are each continued by wpart_i_rect_plain and the lower kept. R, C (in/out) change only to
 * a grid of a strictly lower max load (both maxes exact, from scratch); from 4,096 blocks (no
 * bound given here) also SARMA's sgo_2dr_nic itself (rect_kick.c's RK_S1); *value: its max;
 * *iters: SGO iterations (all runs). Deterministic. */
wpart_status_t wpart_spatial_rect_kick(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                       int64_t *R, int64_t *C, int64_t max_iter,
                                       const wpart_control_t *control, double *value,
                                       int64_t *iters, int32_t *timed_out);

/* The SGO's pieces (rect_sgo.c), shared by wpart_spatial_rect_sgo and the kick: cuts[1..k]
 * the smallest x with pref[x] >= pi[i] (pref: n + 1 non-decreasing values, pi sorted;
 * cuts[0] = 0, cuts[k + 1] = n), searched from hint[i + 1] outwards (NULL: no hint; hint may
 * be cuts itself); one step of both dimensions' positions pi[d] (K[d] - 1, kept sorted) from
 * the stripe maxima rs[d] (K[d]) at iteration m (the step 1 / sqrt(m / (K + 1) + 100)), then
 * the stop rules: 1 when the stripe maxima are within 0.1 % (mx: the grid's max) or
 * 10 (P + Q + 2) iterations lowered the best max (best) by less than 0.1 % (*pbest, *pbest_m:
 * the last check's). */
void wpart_i_sgo_cuts(const double *pref, int64_t n, const double *pi, int64_t k,
                      const int64_t *hint, int64_t *cuts);
int wpart_i_sgo_step(double *const pi[2], double *const rs[2], const int64_t K[2], int nd,
                     int64_t m, double mx, double best, double *pbest, int64_t *pbest_m);
/* each stripe's largest block of the P x Q loads L (row-major, >= 0): the rows' to rmax (P),
 * the columns' to cmax (Q); returns the largest */
double wpart_i_sgo_maxima(const double *restrict L, int64_t P, int64_t Q,
                          double *restrict rmax, double *restrict cmax);
/* std::mt19937_64, the engine of SARMA's random starts */
typedef struct {
    uint64_t mt[312];
    int i;
} wpart_mt64_t;
void wpart_i_mt64_seed(wpart_mt64_t *g, uint64_t seed);
/* SARMA's random start (subgradient_method.hpp's random_init): k positions uniform in
 * [0, total) drawn from g as libstdc++'s uniform_real_distribution<double> draws them, sorted;
 * a dimension after another draws on from the same g (SARMA: rows, then columns) */
void wpart_i_sgo_random(double total, int64_t k, wpart_mt64_t *g, double *pi);

#ifdef WPART_RECT_GRID_I_H
/* The poll of a long loop (wpart_i_poll): WPART_OK to go on, also when the time limit struck
 * (then *timed_out = 1: the loop stops with its best so far); any other status (Ctrl-C, a
 * progress callback's stop) is the caller's to return. */
static inline wpart_status_t rg_poll_limit(const wpart_control_t *ctl, double t0, double done,
                                           double total, int32_t *timed_out)
{
    wpart_status_t st = wpart_i_poll(ctl, t0, done, total);
    if (st == WPART_ECANCELLED && rg_time_up(ctl, t0)) {
        *timed_out = 1;
        return WPART_OK;
    }
    return st;
}

/* The same on an open context (rect_grid_i.h: its CSC, line sums and scratch; g's best and
 * current grids are overwritten), the time limit counted from t0. sgo_iters: the SGO's
 * iterations at most (below 1,024 blocks 0: only the heavy-line runs below); max_half: the
 * half-sweeps' cap; lower: a proven lower bound (0: none);
 * *value in: the given grid's max as the caller has it (the race's incumbent; < 0: computed
 * here, exact), out: the returned grid's (exact when the grid changed); *halves: the
 * half-sweeps run. heavy (a heavy-line matrix, rect_fast.c's gate): then also SARMA's
 * sgo_2dr_nic in full (the SGO from the uniform grid to its own stop rule, nic, the cut
 * moves; rect_kick.c's rk_heavy and its gates), a lower grid and the kick's each continued by
 * wpart_i_rect_plain and the lower kept. heavy RK_SGO_NIC (any matrix, below 1,024 blocks,
 * sgo_iters 0: rect_fast.c's random starts): that run from SARMA's own random start (seed 1)
 * alone, not from the uniform grid; from 1,024 blocks the value counts as heavy. from_grid
 * (rect_fast.c's default on a matrix without heavy lines): below 1,024 blocks the SGO starts
 * from the given grid instead of the uniform one, and below RK_S1 blocks (rk_big) one more
 * run of at most RK_FROM_ITERS iterations from the given grid follows the others, then nic
 * from its grid (see rect_kick.c); from_grid RK_FROM_ONLY, below 1,024 blocks: the run from
 * the given grid alone (none from the uniform grid after it). */
#define RK_SGO_NIC 2
#define RK_FROM_ONLY 3 /* (not 2: RK_SGO_NIC is heavy's value, this from_grid's) */
wpart_status_t wpart_i_rect_kick(rg_ctx_t *g, double t0, int64_t sgo_iters, int64_t max_half,
                                 double lower, int heavy, int from_grid, int64_t *R, int64_t *C,
                                 double *value, int64_t *iters, int64_t *halves,
                                 int32_t *timed_out);

/* wpart_i_rect_polish on an open context g (rect_grid_i.h): the block loads of the given grid
 * come from g's half-sweep prefix where one is made (or cheaply brought) for it and the loads
 * are integral (the same exact sums), else from the nonzeros; the same moves and grid */
wpart_status_t wpart_i_rect_polish_g(rg_ctx_t *g, const wpart_rg_csr_t *A,
                                     const wpart_rg_csr_t *At, int64_t P, int64_t Q, int64_t *R,
                                     int64_t *C, int64_t max_iter,
                                     const wpart_control_t *control, double *value,
                                     int64_t *iters, int32_t *timed_out);

/* (Rn, Cn) of max v replaces the grid (R, C) (P + 1, Q + 1 cuts) and *value when strictly
 * lower: 1 then, else 0 */
static inline int rg_keep(int64_t P, int64_t Q, const int64_t *Rn, const int64_t *Cn, double v,
                          int64_t *R, int64_t *C, double *value)
{
    if (!(v < *value)) {
        return 0;
    }
    memcpy(R, Rn, (size_t)(P + 1) * sizeof(int64_t));
    memcpy(C, Cn, (size_t)(Q + 1) * sizeof(int64_t));
    *value = v;
    return 1;
}

/* rect_random.c: RECT-NICOL's half-sweeps (wpart_i_rg_run) from the one grid in slot 0 of R0, C0
 * (nst = 2: also from slot 1, its copy made here, the other dimension first; first: rg_run's
 * code of slot 0, slot 1's first | 1), o's options with the half-sweeps of a start capped at
 * SARMA's max(10, P + Q). rg_run's grid to R2, C2 (one strictly below o->incumbent, else slot
 * 0's), the lowest max of its slots to *v; the half-sweeps added to *halves (NULL: not
 * counted). The nic members of the default, the plain half-sweeps below and the kick's steps
 * (its nic from an SGO grid and the default's half-sweeps from it) run through it. */
wpart_status_t wpart_i_rect_from(rg_ctx_t *g, double t0, int nst, int32_t first, int64_t *R0,
                                 int64_t *C0, const wpart_rg_opts_t *o, int64_t *R2,
                                 int64_t *C2, double *v, int64_t *halves, int32_t *timed_out);

/* rect_random.c: the stage after the race at 4 to 63 blocks (wpart_i_rect_rand_grid; the
 * banded test is the caller's): from the best grid (R, C) of max *inc, SARMA's random starts
 * (then its sgo_2dr_nic where that grid is 1.19-1.7 x lower), or below 1.19 x lower the cut
 * moves in their place; a strictly lower grid replaces R, C, *inc; out's rand_* fields say
 * what ran (wpart_i_rect_rand_none: as when none ran). low: the two lowest max loads of the
 * race's starts as stats["starts"] lists them (0, 0: unknown; the dominance rule of
 * rect_random.c, RF_RAND_DOM) */
int wpart_i_rect_rand_grid(int64_t P, int64_t Q);
void wpart_i_rect_rand_low(const double *val, const int32_t *state, int64_t n, double low[2]);
void wpart_i_rect_rand_none(wpart_rg_auto_t *out);
wpart_status_t wpart_i_rect_random(rg_ctx_t *g, double t0, int64_t max_half, double lower,
                                   const double low[2], int64_t *R, int64_t *C, double *inc,
                                   wpart_rg_auto_t *out, int32_t *timed_out);

/* rect_random.c: the default's plain half-sweeps (SARMA's nic steps, either dimension first,
 * patience 2, its race) from the grid (R, C) of exact max *value, then the cut moves of a
 * lower grid (B: their weights); R, C, *value change only to a strictly lower grid. The kick continues both of its
 * candidate grids with it (the default runs it after the kick). */
wpart_status_t wpart_i_rect_plain(rg_ctx_t *g, const wpart_rg_csr_t *B, double t0,
                                  int64_t max_half, double lower, int64_t *R, int64_t *C,
                                  double *value, int32_t *timed_out);

/* rect_piece.c: the piece cuts of side d (its K = g->P[d] stripes; the larger of a stripe's
 * largest piece of one line of the other side and its load / the other side's parts, least;
 * the bisection galloping from anchor, the lower bound) to cuts (K + 1), that value to
 * *value (NULL: not wanted); exact 0: where the anchor is feasible, its cuts (the piece start's
 * anchor is the grid's lower bound: no grid goes below it, so a lower value buys nothing);
 * hint (integral loads, exact 0; <= anchor: none): the first probe there, a gallop up from it
 * where it fails (the same least value at or above the anchor, so the same cuts) */
wpart_status_t wpart_i_rect_piece_cuts(rg_ctx_t *g, int d, double anchor, double hint,
                                      int exact, int64_t *cuts, double *value);

/* rect_piece.c: the piece start: the rows' piece cuts (uniform columns set first) and the
 * columns' (the transpose), run by wpart_i_rg_run with o's options but no continuation and no
 * incumbent; the better grid to R, C, its max to *v (RG_INF: none ran), the half-sweeps to
 * *halves; *bound: the larger of o->lower and (integral loads) the two sides' piece values, a
 * lower bound of every grid. S: 2 (P + Q + 2) int64 of scratch. */
wpart_status_t wpart_i_rect_piece(rg_ctx_t *g, double t0, const wpart_rg_opts_t *o,
                                  int64_t *S, int64_t *R, int64_t *C, double *v,
                                  int64_t *halves, double *bound, int32_t *timed_out);

/* rect_bound.c: the lower bound of the optimum (see _nicol.lower_bound): the stripes of the
 * exact 1D partitions of the line loads (load[d], side d) split among the other dimension's
 * parts, the heaviest lines (at most 8 per side, whose load / parts exceeds the bound so far)
 * cut alone, the largest entry; rounded up for integral weights. imax >= 0: every weight is an
 * integer and imax the largest (int input: no pass over the weights); < 0: found here. line:
 * max(n1, n2) doubles of scratch, tmp: 2 (P + Q) int64. *heavy_line: a line nearly fills a
 * block (power-law matrices); where the joint bound of the heaviest lines ran, *jside its side
 * d (the first, or the one that raised the bound) and jcuts (max(P, Q) + 1) its cuts of the
 * other dimension; rcuts (NULL: not wanted; P + 1) the exact 1D partition of the row loads
 * into P parts (the bound's first); *st the status of building the CSC (the bound is 0 when
 * not WPART_OK) */
double wpart_i_rect_lower(rg_ctx_t *g, const double *load[2], double imax, double *line,
                          int64_t *tmp, int *heavy_line, int64_t *jcuts, int *jside,
                          int64_t *rcuts, wpart_status_t *st);
#endif

#endif
