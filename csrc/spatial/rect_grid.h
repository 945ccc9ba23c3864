/* rect_grid.h -- rectilinear P x Q grids on the nonzeros of a matrix (float64 loads): RECT-NICOL
 * half-sweeps from several starts with a shared incumbent, adjacent-stripe balancing, and the
 * symmetric grids (one cut vector for rows and columns). Private to the core and its binding. */
#ifndef WPART_RECT_GRID_H
#define WPART_RECT_GRID_H

#include <stdint.h>

#include "wpart/status.h"

/* A CSR matrix n1 x n2 (column indices sorted or not); w NULL: every stored entry weighs 1. */
typedef struct {
    int64_t n1, n2;
    const int64_t *rp, *ci;
    const double *w;
} wpart_rg_csr_t;

typedef struct {
    int64_t patience; /* half-sweeps in a row without a gain before a start stops (>= 1) */
    int64_t max_half; /* cap on the half-sweeps of one start */
    int balance;      /* 1: after each half-sweep, balance each pair of adjacent stripes */
    int abandon;      /* 1: stop a start once its next half-sweep's bound reaches the incumbent */
    double slack;     /* > 0: also stop a start whose max load after h >= 1 half-sweeps
                       * exceeds the incumbent by more than the fraction slack * 2 / h (a
                       * race, not a bound) */
    double lower;     /* a lower bound of the optimum (0: none): once the incumbent reaches it,
                       * no further half-sweep or start runs (the starts left are not run) */
    int64_t polish_patience; /* > 0: the best grid then goes on balanced (columns first)
                              * with this patience, at most polish_max_half half-sweeps;
                              * its max load, half-sweeps and state go to slot nstarts of
                              * val, halves, state (nstarts + 1 long), its grid to R, C;
                              * 0 half-sweeps when the best grid is a balanced start's
                              * fixed point (both half-sweeps keep it) */
    int64_t polish_max_half;
    const wpart_control_t *control;
    double incumbent; /* > 0: the max load of a grid the caller already has: the race, the
                       * bound and `lower` start from it; R, C stay start 0's grid and the
                       * continuation does not run unless a start goes strictly below it
                       * (0: none) */
    int first_only; /* 1: only start 0 runs, the others are not run (state 2): the default's
                     * set on a banded matrix (wpart_i_rg_banded), where the diagonal start
                     * goes first and the others end above it */
} wpart_rg_opts_t;

/* Whether A is banded at the resolution of a P x Q grid: of the entries of 64 evenly spaced
 * rows (all rows when fewer), at least 90 % lie within half a block of the diagonal shifted by
 * `shift` columns (wpart_i_rg_offset), a block's side taken as 1 / K of the matrix's with
 * K = ceil(sqrt(P Q)) (P at P = Q): |(i + shift) n2 - j n1| <= n1 n2 / (2 K). O(64 x the entries
 * per row). */
int wpart_i_rg_banded(const wpart_rg_csr_t *A, int64_t P, int64_t Q, int64_t shift);

/* The diagonal's offset of a square matrix whose entries lie mostly on one side of its
 * diagonal (a band above or below it, a triangle): of the off-diagonal entries of 256 evenly
 * spaced rows (all rows when fewer) at least twice as many on one side as on the other; then
 * the lower median of their j - i where at most n / 3 in size (entries spread far off the
 * diagonal are no band), else 0 (0 too when memory for them cannot be had). The
 * default RECT-NICOL's diagonal start and banded test follow that diagonal. O(256 x the
 * entries per row). */
int64_t wpart_i_rg_offset(const wpart_rg_csr_t *A);

/* Whether a rectangular matrix's entries follow its diagonal from corner to corner: over the
 * entries of 64 evenly spaced rows the correlation of i / n1 and j / n2 is at least 1/2 and
 * the sum of |j - i n2 / n1| below that of |j - i| (0 for a square matrix). The default
 * RECT-NICOL's diagonal start then places the shorter dimension's line k at k max(n1, n2) / n
 * along the longer one. O(64 x the entries per row). */
int wpart_i_rg_corner(const wpart_rg_csr_t *A);

/* The default RECT-NICOL's diagonal start (R: P + 1 cuts, C: Q + 1) of an n1 x n2 matrix
 * from its row and column loads: the exact 1D partition of the index loads into P + Q - 1
 * pieces (wpart_i_rect_1d with `integral`), boundaries in turn to rows and columns; row i with
 * column i + s (s: wpart_i_rg_offset), on a rectangular matrix whose entries follow its
 * corner-to-corner diagonal (corner: wpart_i_rg_corner) the shorter dimension's line k at
 * index k max(n1, n2) / n. Scratch: v max(n1, n2) + |s| doubles, X one more, tmp 2 (P + Q)
 * int64 */
void wpart_i_rect_diagonal(int64_t n1, int64_t n2, int64_t P, int64_t Q, const double *rl,
                           const double *cl, int64_t s, int corner, int integral, double *v,
                           double *X, int64_t *tmp, int64_t *R, int64_t *C);

/* The default set's load starts on an n1 x n2 matrix of nnz stored entries: 3 (rows_load and
 * cols_load in the uniform starts' places) where at least half the cells are stored (a dense
 * load matrix: the stored entries per row are about even, so rows_stored is near uniform
 * rows), else 0. The one rule of the one-call default (rect_fast.c) and of the step-by-step
 * engine (wpart/spatial/_nicol.py, through spatial_rect_load_starts). */
int wpart_i_rg_load_starts(int64_t nnz, int64_t n1, int64_t n2);

/* RECT-NICOL from nstarts starts (R0: nstarts x (P+1) row cuts, C0: nstarts x (Q+1) column
 * cuts; first[s] bit 0 clear: the columns are set first for the start's rows, set: the rows
 * first; bit 1: balance this start (as opt->balance); bit 2: this start's patience is
 * max(10, P + Q) half-sweeps).
 * The best grid comes back in R, C; per start: its final max load, half-sweeps and state
 * (0 stopped by the rule, 1 abandoned by the bound, 2 not run, 3 stopped by the time limit,
 * 4 not run: the transpose of an earlier start on a symmetric matrix with P == Q, whose
 * max load and half-sweeps it reports).
 * *timed_out = 1 when the time limit stopped the call (R, C: the best grid so far). */
wpart_status_t wpart_spatial_rect_grid(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                       int64_t nstarts, const int64_t *R0, const int64_t *C0,
                                       const int32_t *first, const wpart_rg_opts_t *opt,
                                       int64_t *R, int64_t *C, double *val, int64_t *halves,
                                       int32_t *state, int32_t *timed_out);

/* Symmetric grids (N = max(n1, n2); one cut vector of P + 1 entries in [0, N], clipped to each
 * dimension): variant 0 PAL (probe with the previous feasible cuts as upper bounds),
 * 1 OPAL (ordered probe), 2 RAC (refine a cut, the best iterate), 12 RAC returning its last
 * iterate, 3 cut moves from c0 (each cut to its best place between its neighbours, until no
 * gain). c0: the start of 2/12/3 (NULL: all cuts at N but the first). max_iter: RAC's
 * iterations, the sweeps of 3. *value: the grid's max load. */
wpart_status_t wpart_spatial_rect_sym(const wpart_rg_csr_t *A, int64_t P, int variant,
                                      const int64_t *c0, int64_t max_iter,
                                      const wpart_control_t *control, int64_t *cuts,
                                      double *value, int32_t *timed_out);

/* Subgradient refinement of the grid (R, C) (in/out: the best grid met): the cuts as positions
 * in load space (prefix loads of the rows and of the columns), each iteration moves every cut
 * against the running sum of (its stripe's max block - the mean), step 1/sqrt(k + 100); stops
 * when (max - min)/min of the stripe maxima is below 0.001, when 10 (P + Q + 2) iterations
 * gain less than 0.1 %, or after max_iter. O(nnz + PQ + (P + Q) log n) per iteration. seed > 0:
 * from SARMA's random start instead (rect_polish.h's wpart_i_sgo_random, std::mt19937_64
 * gen(seed): with seed 1 SARMA's sgo_2dr itself); R, C then only receive the best grid */
wpart_status_t wpart_spatial_rect_sgo(const wpart_rg_csr_t *A, int64_t P, int64_t Q, int64_t *R,
                                      int64_t *C, int64_t max_iter, uint64_t seed,
                                      const wpart_control_t *control, double *value,
                                      int64_t *iters, int32_t *timed_out);
/* The same with one cut vector for rows and columns (P == Q; SARMA's sgo_2ds): positions in the
 * load of the rows plus the columns over N = max(n1, n2), a stripe's value the larger of its
 * row and column stripes' largest blocks; R, C: the best cut vector clipped to n1, n2 */
wpart_status_t wpart_spatial_rect_sgo_sym(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                          int64_t *R, int64_t *C, int64_t max_iter,
                                          uint64_t seed, const wpart_control_t *control,
                                          double *value, int64_t *iters, int32_t *timed_out);

/* The exact 1D partition of w[0..n) into P intervals (min max sum): cuts (P + 1). Integral
 * loads (below 2**53) give the optimum exactly; float loads within 1e-12 relative. */
wpart_status_t wpart_spatial_rect_1d(const double *w, int64_t n, int64_t P, int64_t *cuts,
                                     double *value);

/* The default RECT-NICOL in one call (wpart.spatial.rect_nicol with starts="auto" and the
 * default refine / patience / abandon): the four starts (diag_interleaved, rows_stored,
 * rows_uniform, cols_uniform: rows_load / cols_load in the uniform ones' places where at
 * least half the cells are stored; every one balanced, patience 2, at most max(10, P + Q)
 * half-sweeps), the race with the shared incumbent and the proven lower bound, the
 * continuation of the best grid (10 half-sweeps without a gain), the uniform grid when the
 * time limit struck and it is lower, and the block loads. A->w: float64 values (NULL for
 * unit weights; with iv NULL, or the same values as float64, then used as they are: no
 * copy made); iv: int64 values (NULL: A->w). The arrays are checked first
 * (WPART_EINVAL when rp decreases or an index is out of range; the indices must also be
 * sorted within each row, which is not checked), then the values: bad != 0 (one of
 * WPART_RF_*) and nothing else is done. */
enum { WPART_RF_ZERO = 1, WPART_RF_NEGATIVE, WPART_RF_NAN, WPART_RF_INF, WPART_RF_BIG };
/* the default's stages, in the order they run (wpart_rg_auto_t's stage clock): the checks, the
 * context and the lower bound; the starts (the joint-bound and piece starts, the race and its
 * continuation); the random starts (4 - 63 blocks); SARMA's nic and nicuni members; the cut
 * moves; the SGO kick; the plain half-sweeps after it; the rest (the uniform grid's test, the
 * block loads) */
enum {
    WPART_RF_ST_SETUP,
    WPART_RF_ST_STARTS,
    WPART_RF_ST_RANDOM,
    WPART_RF_ST_NIC,
    WPART_RF_ST_MOVES,
    WPART_RF_ST_KICK,
    WPART_RF_ST_PLAIN,
    WPART_RF_ST_END,
    WPART_RF_NST
};
#define WPART_RF_SAME 5 /* a start's state: equal to the earlier start ref[s], not run again */
typedef struct {
    int64_t *R, *C;  /* out: the grid (P + 1, Q + 1 cuts) */
    int64_t *iloads; /* out when not NULL (iv given, or A->w NULL too: 1 per entry): the
                      * P Q block loads, row-major */
    double *floads;  /* out when not NULL (float weights A->w): the same in float64 */
    int64_t *rects;  /* out with the loads: the blocks (r0, r1, c0, c1), row-major */
    double val[5];   /* per start, then the continuation: max load, half-sweeps, state (as */
    int64_t halves[5]; /* wpart_spatial_rect_grid's, or WPART_RF_SAME); ref: the start a */
    int32_t state[5];  /* state-4 start is the transpose of, or that a WPART_RF_SAME one */
    int64_t ref[5];    /* equals */
    double lower;      /* the proven lower bound of the optimum */
    int32_t timed_out;
    int32_t bad;       /* the value check: 0, or the first of NaN, infinite, negative, an
                        * explicit zero, an int64 total that may overflow */
    int64_t itotal;    /* the int64 total (iv or unit weights) */
    int64_t iamax;     /* the largest value (iv or unit weights) */
    double amax;       /* the largest value */
    int64_t moves;     /* the cut-move polish's moves (-1: not run) */
    double polished;   /* its grid's max load */
    int64_t kick_iters;  /* the SGO kick's iterations (-1: not run) */
    int64_t kick_halves; /* its half-sweeps */
    double kicked;       /* the max load of the grid it returns (the given one unless lower) */
    int64_t joint_halves; /* the joint-bound start's half-sweeps (-1: not run) */
    double joint;         /* its max load (the result when <= lower: then no other start ran) */
    int64_t rand_runs;    /* the random starts run (rect_fast.c RF_RAND_*; -1: not on this grid) */
    int64_t rand_halves;  /* their half-sweeps */
    double rand_best;     /* the lowest max load they reached (infinite: none ran) */
    int32_t rand_kept;    /* 1: one of them gave the grid the later stages continue */
    int64_t rand_moves;   /* the cut moves run in their place (a grid near the bound; -1: none) */
    int32_t load_starts;  /* bits 0, 1: starts 2 and 3 are rows_load and cols_load (at least
                           * half the cells stored: a dense load matrix; else the uniform
                           * ones); bit 2: the uniform grid was lower than every grid the
                           * stages reached and is the result */
    int64_t piece_halves; /* the piece start's half-sweeps (-1: not run; rect_piece.c) */
    double piece;         /* its max load */
    int32_t piece_state;  /* 0: near the bound (RF_PIECE_NEAR, RF_PIECE_NEAR_P), the result
                           * (no other start or stage ran); 1: lower than the grid the stages
                           * reached, the result; 2: not lower (dropped); 3: within
                           * RF_PIECE_MID of the bound, the grid the stages continued (no
                           * other start ran) */
    double stage[WPART_RF_NST]; /* the stage clock: seconds from the call's start at the end of
                                 * each stage WPART_RF_ST_* (-1: it did not run) */
} wpart_rg_auto_t;

wpart_status_t wpart_spatial_rect_nicol_auto(const wpart_rg_csr_t *A, const int64_t *iv,
                                             int64_t P, int64_t Q, int64_t max_half,
                                             const wpart_control_t *control,
                                             wpart_rg_auto_t *out);

/* ... on the plain copy (simd 0) or, where the build made it (x86-64, GCC or Clang) and the CPU
 * has AVX2, the copy compiled with -mavx2 (simd 1; rect_avx2.h): the same grid, loads and
 * stats, the stage clock aside. wpart_spatial_rect_nicol_auto is simd 1 (both: rect_isa.c) */
wpart_status_t wpart_spatial_rect_nicol_auto_isa(const wpart_rg_csr_t *A, const int64_t *iv,
                                                 int64_t P, int64_t Q, int64_t max_half,
                                                 const wpart_control_t *control,
                                                 wpart_rg_auto_t *out, int simd);

/* 1 when wpart_spatial_rect_nicol_auto runs the AVX2 copy on this machine, else 0 */
int wpart_spatial_rect_nicol_auto_avx2(void);

/* the body of wpart_spatial_rect_nicol_auto (one copy; rect_fast.c) */
wpart_status_t wpart_i_rect_nicol_auto_body(const wpart_rg_csr_t *A, const int64_t *iv,
                                            int64_t P, int64_t Q, int64_t max_half,
                                            const wpart_control_t *control,
                                            wpart_rg_auto_t *out);

/* The default's random starts alone (rect_fast.c: RF_RAND_TRIES of SARMA's random starts, from
 * RF_RAND_MIN to RF_RAND_MAX blocks, each racing the best grid), from the grid (R, C) of max
 * *value (the step-by-step engine's race result): a lower grid replaces R, C, *value; lower: the
 * proven lower bound (none run once *value reaches it); low: the two lowest max loads of the
 * race's starts (0, 0: unknown); out's rand_* fields and timed_out set */
wpart_status_t wpart_spatial_rect_random(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                         int64_t *R, int64_t *C, int64_t max_half,
                                         double lower, const double low[2],
                                         const wpart_control_t *control, double *value,
                                         wpart_rg_auto_t *out);

/* The piece cuts of side d (0: the P row stripes, 1: the Q column stripes; rect_piece.c): the
 * exact 1D partition of that side's lines least in the larger of a stripe's largest piece of
 * one line of the other side and its load / the other side's parts, to cuts (P + 1 or Q + 1),
 * that value to *value (integral weights: exact, the least integer; float: to 1e-6 relative);
 * anchor >= 0 where
 * the bisection starts (a lower bound of it is best; any value is correct) */
wpart_status_t wpart_spatial_rect_piece_cuts(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                             int d, double anchor,
                                             const wpart_control_t *control, int64_t *cuts,
                                             double *value);

#endif
