/* rect_kick.c -- the SGO kick of a P x Q grid (SARMA's sgo_2dr_nic idea: Nicol's half-sweeps
 * from a subgradient grid; see rect_polish.h): the subgradient method of rect_sgo.c on block
 * loads kept by moving only the lines that change stripe, nic's half-sweeps from its grid and
 * the cut moves of rect_polish.c. */
#include "rect_grid_i.h"

#include "rect_polish.h"
#include "rect_polish_i.h"

#ifndef RK_WORK
#define RK_WORK 6 /* the SGO stops once it moved RK_WORK (nnz + RK_WORK_PQ P Q) entries */
#endif
/* (each iteration counts its 2 P Q block scans as work: with RK_WORK_PQ 1 a matrix of few
 * entries per block ran out after a few iterations, the 3D-grid slice of
 * tests/test_spatial_rect_nicol_ceiling.py, k = 7, stored, 16 x 16, 1,600 entries: 38
 * iterations, 43 against SARMA sgo_2dr_nic's 40; with 4, 40. The 476 max loads of
 * bench_spatial_fresh, bench_spatial_sarma and SARMA's six files the same, CPU within noise) */
#ifndef RK_WORK_PQ
#define RK_WORK_PQ 4
#endif
#ifndef RK_RATIO
#define RK_RATIO 1.16 /* no half-sweeps from an SGO grid above RK_RATIO x the given grid's max */
#endif
#ifndef RK_BIG
#define RK_BIG 1024 /* from RK_BIG blocks on, SARMA's nic from every SGO grid (see below) */
#endif
#ifndef RK_NIC
#define RK_NIC 1.13 /* SARMA's nic from the SGO grid too when that grid is <= RK_NIC x the given
                     * grid's max (1.16 gave the same gains on the fresh reference set at more
                     * half-sweeps: grid3d_20 8 x 32 0.47 x the C nic's speed instead of 1.1) */
#endif
#ifndef RK_UNI_ITERS
#define RK_UNI_ITERS 1000 /* big, within the budget: the uniform start's SGO goes on to these */
#endif
#ifndef RK_HEAVY_ITERS
#define RK_HEAVY_ITERS 20000 /* heavy-line matrices: the SGO's cap (SARMA's sgo_2dr's) */
#endif
/* ... only where the uniform grid's max is at most RK_HEAVY_UNI x the given grid's and the
 * given grid is more than one unit (integral loads) above the lower bound. bench_spatial_fresh's
 * 53 heavy-line cases from 256 blocks: the uniform grid is 1.3-2.2 x the given one on the 41
 * power-law ones (the stage lowers 25, 13 of them to the best of SARMA's nine), 2.8-5.0 on the
 * arrow / clustered ones (gated off, 3.5-5.0: two grids lower, neither crossing the best of
 * nine, and h_arrow_2600 / h_clust_400x1600 16 x 16 went above SARMA nic's CPU; kept,
 * h_clust_400x1600 32 x 32 at 2.8: 17 -> 14, SARMA's best); one unit above the bound:
 * plaw_1100x3000 values 64 x 64 (54 vs 53: nothing gained, and it went above nic's CPU) */
/* ... and from RK_HEAVY_FROM blocks: below it (16 x 16, 8 x 32) the stages before it now reach
 * the best of SARMA's nine on their own. Measured with the uniform run from 256 blocks against
 * from 1,024: bench_spatial_fresh's 334 max loads all the same but plaw_640 stored 16 x 16
 * (26 -> 27, SARMA's best of nine 27), its nine heavy-line 16 x 16 cases where the run went
 * 0.6-0.8 x the CPU (h_plaw_900 0.5 x); SARMA's test matrices (five of the six,
 * email-Eu-core not tried) the same 60 max loads, tumorAntiAngiogenesis_1 16 x 16
 * 0.82 -> 0.28 ms (SARMA's own nic 0.5-0.6 ms), Chebyshev1 16 x 16 0.64 -> 0.35 ms;
 * bench_spatial_sarma's 70 generated cases the same.
 * From 1,024 blocks it stays: without it tumorAntiAngiogenesis_1 32 x 32 ends at 18 (16 with
 * it; SARMA's best of nine 17) */
#ifndef RK_HEAVY_FROM
#define RK_HEAVY_FROM 1024
#endif
#ifndef RK_HEAVY_UNI
#define RK_HEAVY_UNI 3.0
#endif
/* ... then, up to RK_BIG blocks, RK_HEAVY_TRIES runs from SARMA's random starts (seeds 1, ...)
 * the same way: bench_spatial_fresh's 28 power-law cases of 256 / 1,024 blocks where the
 * stage runs: seed 1 lowered 5 when it came in (plaw_1100x3000 values 32 x 32 110 -> 107,
 * SARMA's best 108), seed 2 none more, at 64 x 64 seeds 1-2 none (1-8: 2, neither crossing
 * the best of nine). Measured again with the stages before it as they are now (0 tries:
 * 0.94 x the CPU of bench_spatial_fresh's 8 x 32 - 64 x 64 cases, no case across SARMA
 * nic's CPU either way): h_plaw_900 stored / values 32 x 32 17 / 40 -> 18 / 41, SARMA's best
 * of nine; plaw_640 values 16 x 16 61 -> 60. Now 0: on SARMA's test matrices the try lowered
 * none of their 60 grids and was 25-45 % of the call (tumorAntiAngiogenesis_1 16 x 16, 8 x 32,
 * 32 x 32; Chebyshev1 16 x 16), and bench_spatial_fresh's 334 max loads kept their count at
 * or below the best of SARMA's nine (328, with the random starts of rect_fast.c) */
#ifndef RK_HEAVY_TRIES
#define RK_HEAVY_TRIES 0
#endif
/* ... and where the uniform grid failed that gate (arrow-like), at P != Q below RK_BIG blocks,
 * RK_HEAVY_RECT random starts alone, at RK_BIG blocks half as many: bench_spatial_fresh's
 * arrow_1400 and h_arrow_2600 stored 8 x 32, 171 -> 162 and 322 -> 304 (SARMA's best 162 /
 * 310) at 6-9 x their CPU (both above SARMA nic's before: 2.4 / 2.9 ms, nic 1.6 / 1.8);
 * arrow_1400 32 x 32 96 -> 85 (best 91), h_arrow_2600 32 x 32 187 -> 181, at 5.3 -> 19.9 and
 * 12.9 -> 30.5 ms (SARMA's nic 36 / 49 ms; four starts: 33 / 48.5). Not at P = Q below RK_BIG
 * blocks: at 16 x 16 SARMA's nic is about as fast as the default on these matrices and such
 * runs take arrow_1400, h_arrow_2600 and h_clust_400x1600 above nic's CPU, none across the
 * best of nine */
#ifndef RK_HEAVY_RECT
#define RK_HEAVY_RECT 4
#endif
/* From RK_S1 blocks on, on a matrix without heavy lines where the given grid's max is at
 * least RK_S1_GAP x the proven lower bound (no bound given: always), SARMA's sgo_2dr_nic itself
 * after the runs above: the SGO from SARMA's own random start (seed 1) to its stop rule, then
 * SARMA's nic (plain half-sweeps, patience max(10, P + Q), no race) from its grid where that is
 * at most RK_NIC x the lowest max so far; a lower grid is kept. There (banded, mesh-like
 * matrices: total / m is far below what a grid reaches) SARMA's nic costs several times the
 * default: on bench_spatial_fresh's 26 such 64 x 64 cases
 * 0.45-9.5 x (median 3.1) the default's CPU before, 0.29-6.9 x with this run (its iterations
 * scan the P Q blocks; 0.1-2.6 x the default), the 25 above 1 still above (1.2 at least);
 * band_3200_ns, rgg2_1700, h_bdiag_15x70, h_rgg3_1200 stored 64 x 64: 87, 73, 39, 30 -> 83,
 * 70, 38, 28 (SARMA's best of nine 84, 72, 38, 29). The gap keeps it off SARMA's test
 * matrices at 64 x 64 (gaps 1.8-3.1: there it took cage and email-Eu-core above nic's CPU,
 * no grid lower) but mesh2em5 (9.0, above nic's CPU before); not at 32 x 32, where 12 of 54
 * such cases of bench_spatial_fresh would go above nic's CPU */
#ifndef RK_S1
#define RK_S1 4096
#endif
/* the iterations of rk_big's run from the given grid (from_grid): with 100, on
 * bench_spatial_fresh's 32 x 32 cases 7 max loads lower (h_delaunay_1500 152 -> 141, below
 * SARMA's best of nine 151; g3d7_14 229 -> 219, delaunay_2300 213 -> 200), none higher, about
 * 1.3 - 2 x the CPU of the cases where it ran; 500 (paired runs against 100): 9 more lower,
 * one higher (bdiag_22x110_z stored 213 -> 214), the CPU of the 334 1.016 x, and SARMA's
 * bayer05 stored 32 x 32 312 -> 300, below SARMA's own sgo_2dr_nic (306) */
#ifndef RK_FROM_ITERS
#define RK_FROM_ITERS 500
#endif
#ifndef RK_S1_GAP
#define RK_S1_GAP 5.0
#endif
#ifndef RK_TRIES
#define RK_TRIES 8 /* big, within the budget: SARMA's random starts at most */
#endif
/* the budget of the further runs (rk_big). SARMA's nic (benchmarks/_sarma_nic.c, its own
 * work: Nicol's cut-index search) spends RK_UNIT ns per step, P Q (P + Q) / 2 log2(n)^2 steps
 * per half-step (median of the 98 bench_spatial_fresh cases of 32 x 32 / 64 x 64, 0.08 at
 * 64 x 64), one of our work units about 1 ns (SGO: 1.0-1.3 ns per entry moved or block
 * scanned). SARMA's own nic, built from its sources and timed beside that re-implementation
 * on SARMA's five test matrices, takes 0.61-0.99 x its CPU at 32 x 32 / 64 x 64 (median 0.78):
 * RK_SHARE 0.6 and RK_MORE 0.8 (were 0.9 and 1.5, 1.2 x SARMA's own nic) gave the same
 * counts of cases <= the best of SARMA's nine on the 98 + 70 + 20 cases of 1,024 blocks and
 * more (3 grids one unit higher, still below it; one lower) at 0.84-0.87 x the CPU, and
 * mesh2em5 64 x 64 under SARMA nic's CPU (1.25 -> 0.83 x) */
#ifndef RK_MORE
#define RK_MORE 0.8 /* then, from fresh random starts (seeds on to RK_MORE_TRIES), up to RK_MORE
                     * x H of SARMA's half-steps in all, less the same RK_OWN; a lower grid is
                     * continued and kept only where it ends below (results never above) */
#endif
#ifndef RK_MORE_TRIES
#define RK_MORE_TRIES 40
#endif
#ifndef RK_UNIT
#define RK_UNIT 0.08 /* our work units per step of SARMA's nic */
#endif
#ifndef RK_SHARE
#define RK_SHARE 0.6 /* the share of SARMA nic's work that the kick's further runs may take ... */
#endif
#ifndef RK_OWN
#define RK_OWN 2.5 /* ... less the default's own work before the kick: RK_OWN (P + Q) of our
                    * half-sweeps */
#endif
#ifndef RK_PROBE
#define RK_PROBE 0.07 /* nic's length is measured when our half-sweep costs at most RK_PROBE of
                       * one of SARMA's (at 64 x 64 up to n ~2,700; not at 32 x 32): at 0.1
                       * the measurement alone cost bdiag_22x110_z stored 64 x 64 12 % (SARMA's
                       * nic stops after 7 half-steps there) */
#endif

/* one run of SARMA's subgradient method (rect_sgo.c's steps and stop rules) on s's grid, which
 * can go on where it stopped: positions pi, stripe maxima rs (per dimension), the lowest max
 * met, the stop rule's state, the next iteration m, the work done (entries moved, blocks
 * scanned), the iterations run and done: the stop rule fired */
typedef struct {
    double *pi[2], *rs[2];
    double best, pbest;
    int64_t pbest_m, m, work, its; /* its: the iterations run */
    int done;
} rk_sgo_t;

/* the run's state from s's cuts and block loads (set by the callers below); returns the
 * grid's max */
static double rk_sgo_begin(rp_t *s, rk_sgo_t *sg)
{
    double mx = wpart_i_rp_loads(s);
    sg->best = RG_INF;
    sg->pbest = RG_INF;
    sg->pbest_m = 1;
    sg->m = 1;
    sg->work = 0;
    sg->its = 0;
    sg->done = 0;
    return mx;
}

/* the run's start from s's cuts: their positions in load space */
static double rk_sgo_at_cuts(rp_t *s, const double *const pref[2], rk_sgo_t *sg)
{
    for (int d = 0; d < 2; d++) {
        for (int64_t k = 1; k < s->K[d]; k++) {
            sg->pi[d][k - 1] = pref[d][s->cut[d][k]];
        }
    }
    return rk_sgo_begin(s, sg);
}

/* the run's start: the uniform grid (seed 0) or SARMA's, K - 1 positions uniform at random in
 * [0, total load) per dimension, sorted (seed > 0); s's cuts and block loads set; returns the
 * start grid's max */
static double rk_sgo_start(rp_t *s, const double *const pref[2], uint64_t seed, rk_sgo_t *sg)
{
    wpart_mt64_t gen;
    if (seed == 0) {
        for (int d = 0; d < 2; d++) {
            wpart_i_uniform_cuts(s->side[d].n, s->K[d], s->cut[d]);
        }
        return rk_sgo_at_cuts(s, pref, sg);
    }
    wpart_i_mt64_seed(&gen, seed); /* SARMA's: std::mt19937_64 gen(seed), rows drawn first */
    for (int d = 0; d < 2; d++) {
        int64_t n = s->side[d].n, K = s->K[d];
        wpart_i_sgo_random(pref[d][n], K - 1, &gen, sg->pi[d]);
        wpart_i_sgo_cuts(pref[d], n, sg->pi[d], K - 1, NULL, s->cut[d]);
    }
    return rk_sgo_begin(s, sg);
}

/* the run's start from the grid (R, C) (the default's best: from_grid) */
static double rk_sgo_from(rp_t *s, const double *const pref[2], const int64_t *R,
                          const int64_t *C, rk_sgo_t *sg)
{
    memcpy(s->cut[0], R, (size_t)(s->K[0] + 1) * sizeof(int64_t));
    memcpy(s->cut[1], C, (size_t)(s->K[1] + 1) * sizeof(int64_t));
    return rk_sgo_at_cuts(s, pref, sg);
}

/* The run's iterations up to m = max_iter, while its work is <= cap, the block loads kept by
 * moving the lines that change stripe; a grid lower than sg->best goes to R, C (s's cuts on
 * return: the last grid). Not raced against the given grid: from the uniform grid the SGO
 * starts far above it and needs its iterations (SARMA's bayer05, stored, 16 x 16: 3 x above at
 * the start, 1.08 x after 100 iterations, the half-sweeps from there 736 against SARMA's best
 * of nine 757; a race that stopped a run above min(1.7, 1.16 (1 + 3 / m)) x the given grid
 * ended it at m = 1, 759). WPART_OK also when the time limit struck (*timed_out). */
static wpart_status_t rk_sgo_run(rp_t *s, const double *const pref[2], rk_sgo_t *sg,
                                 int64_t max_iter, int64_t cap, int64_t *nc, int64_t *R,
                                 int64_t *C, double t0,
                                 const wpart_control_t *control, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    int64_t *out[2] = {R, C}, work = 0;
    double mx = 0.0;
    int same = 0; /* s's block loads are those of the last maxima (rs, mx) */
    WPART_CHECK(rp_stopped(s)); /* (the start's block loads: rk_sgo_start) */
    for (; !sg->done && sg->m <= max_iter && sg->work <= cap; sg->m++) {
        int64_t moved = 0;
        for (int d = 0; d < 2; d++) {
            wpart_i_sgo_cuts(pref[d], s->side[d].n, sg->pi[d], s->K[d] - 1, s->cut[d], nc);
            int64_t e = wpart_i_rp_shift(s, d, nc);
            moved += e;
            e += s->K[0] * s->K[1]; /* (the scan counted as work even where skipped below) */
            sg->work += e;
            if (s->stop || rg_cancel(control, &work, e)) {
                return wpart_i_error(WPART_ECANCELLED, "stopped on request");
            }
        }
        if (!same || moved > 0) { /* (no entry moved: the same blocks, the same maxima) */
            mx = wpart_i_sgo_maxima(s->L, s->K[0], s->K[1], sg->rs[0], sg->rs[1]);
            same = 1;
        }
        sg->its++;
        if (mx < sg->best) {
            sg->best = mx;
            for (int d = 0; d < 2; d++) {
                memcpy(out[d], s->cut[d], (size_t)(s->K[d] + 1) * sizeof(int64_t));
            }
        }
        if (wpart_i_sgo_step(sg->pi, sg->rs, s->K, 2, sg->m, mx, sg->best, &sg->pbest,
                             &sg->pbest_m)) {
            sg->done = 1;
            break;
        }
        if ((sg->m & 15) == 0) {
            WPART_CHECK(rg_poll_limit(control, t0, 0.0, 1.0, timed_out));
            if (*timed_out) {
                break;
            }
        }
    }
cleanup:
    return st;
}

/* the exact max of the grid (R, C) to *v: s's cuts and block loads set to it, from scratch
 * (WPART_ECANCELLED when Ctrl-C stopped the pass: rp_stopped) */
static wpart_status_t rk_max(rp_t *s, const int64_t *R, const int64_t *C, double *v)
{
    memcpy(s->cut[0], R, (size_t)(s->K[0] + 1) * sizeof(int64_t));
    memcpy(s->cut[1], C, (size_t)(s->K[1] + 1) * sizeof(int64_t));
    *v = wpart_i_rp_loads(s);
    return rp_stopped(s);
}

/* grid (R, C) is the uniform one */
static int rk_uniform(const rp_t *s, const int64_t *R, const int64_t *C)
{
    const int64_t *c[2] = {R, C};
    for (int d = 0; d < 2; d++) {
        for (int64_t k = 0; k <= s->K[d]; k++) {
            if (c[d][k] != wpart_i_uniform_cut(k, s->side[d].n, s->K[d])) {
                return 0;
            }
        }
    }
    return 1;
}

/* the cut moves of a grid (R, C) of max *v (RG_INF: none, nothing done); timed out: its max
 * exact */
static wpart_status_t rk_moves(rg_ctx_t *g, rp_t *s, const wpart_rg_csr_t *At, int64_t *R,
                               int64_t *C, double *v, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    int64_t moves;
    if (*v < RG_INF) {
        if (!*timed_out) {
            WPART_CHECK(wpart_i_rect_polish_g(g, g->A, At, g->P[0], g->P[1], R, C, 20, g->ctl, v,
                                            &moves, timed_out));
        } else {
            WPART_CHECK(rk_max(s, R, C, v));
        }
    }
cleanup:
    return st;
}

/* the scratch of the kick: R0, C0 two grids each, R2, C2 one, Rx, Cx one, Ry, Cy one */
typedef struct {
    int64_t *R0, *C0, *R2, *C2, *Rx, *Cx, *Ry, *Cy;
} rk_grids_t;

/* SARMA's nic (*nic) from the SGO grid w->R0, w->C0 racing *best; a grid below *best to
 * (R, C), its max to *best and *v */
static wpart_status_t rk_nic(rg_ctx_t *g, double t0, const rk_grids_t *w, wpart_rg_opts_t *nic,
                             int64_t *R, int64_t *C, double *best, double *v, int64_t *halves,
                             int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    double v2;
    nic->incumbent = *best;
    WPART_CHECK(wpart_i_rect_from(g, t0, 2, 4, w->R0, w->C0, nic, w->R2, w->C2, &v2, halves,
                                  timed_out));
    if (rg_keep(g->P[0], g->P[1], w->R2, w->C2, v2, R, C, best)) {
        *v = v2;
    }
cleanup:
    return st;
}

/* The kick from RK_BIG blocks on. The SGO from the uniform grid, sgo_iters iterations in full,
 * then SARMA's nic from its grid (racing inc with slack 0.5) whatever its max and the cut moves
 * of nic's grid: an SGO grid far above the given one can still end below it after nic
 * (bench_spatial_fresh.py's power-law 32 x 32 / 64 x 64). Then, where one of our half-sweeps
 * costs at most RK_PROBE of one of SARMA's nic, nic's length on this matrix: one unraced nic
 * run from the SGO grid (H half-sweeps); and while the work (entries moved, blocks scanned,
 * half-sweeps) stays within RK_SHARE x H of SARMA's half-steps less RK_OWN (P + Q) of ours
 * (what the default spent before), further SGO runs: the uniform start's on to RK_UNI_ITERS
 * iterations, then SARMA's random starts (seeds 1 .. RK_TRIES), nic from each new lowest grid
 * racing the lowest so far. The first run's grid (nic's, its cut moves) to Rb, Cb, its exact
 * max to *vb; the further runs' lowest grid below both (its cut moves) to w->Rx, w->Cx, its
 * exact max to *vx_out (RG_INF: none). Then, within RK_MORE x H, fresh random starts (the
 * seeds after those run); their lowest grid below all so far (its cut moves) to w->Ry, w->Cy,
 * its exact max to *vy_out (RG_INF: none): taken apart, so the grids before are the same
 * (bench_spatial_fresh's 64 x 64: g2d5_44 count 45 -> 43, h_varband_2400 128 -> 124, the
 * CPU 1.6-1.9 x, under SARMA nic's; none higher). *iters: the SGO iterations of all runs. */
static wpart_status_t rk_big(rg_ctx_t *g, rp_t *s, rk_sgo_t *sg, double t0, int heavy,
                             const double *const pref[2], int64_t sgo_iters,
                             int64_t max_half, double lower, double inc, int64_t *nc,
                             const rk_grids_t *w, int from_grid, const int64_t *R,
                             const int64_t *C, int64_t *Rb, int64_t *Cb, double *vb,
                             double *vx_out, double *vy_out, int64_t *iters,
                             int64_t *halves, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    int64_t P = g->P[0], Q = g->P[1], moves, nnz = s->side[0].ptr[s->side[0].n];
    int64_t n = s->side[0].n > s->side[1].n ? s->side[0].n : s->side[1].n;
    int64_t lg = 1; /* ceil(log2(n)) */
    while (lg < 62 && ((int64_t)1 << lg) < n) {
        lg++;
    }
    /* one of SARMA nic's half-steps: P Q (P + Q) / 2 log2(n)^2 steps of its cut-index search
     * (RK_UNIT of our work units each); one of our half-sweeps: the prefix of n lines by K
     * stripes and the entries */
    double sarma = RK_UNIT * (double)(P * Q) * (double)(P + Q) * 0.5 * (double)(lg * lg);
    double hw = (double)n * (double)(P > Q ? P : Q) + (double)nnz, budget = 0.0;
    wpart_rg_csr_t At = {s->side[1].n, s->side[0].n, s->side[1].ptr, s->side[1].idx,
                         s->side[1].w};
    double best = inc, vx = RG_INF, v2, used = 0.0; /* used: the SGO work of the runs done */
    double more = 0.0, vy = RG_INF;
    int64_t hb = *halves, t = 0;
    /* SARMA's nic step of sgo_2dr_nic (wpart_i_rect_from: plain half-sweeps either dimension
     * first, patience max(10, P + Q)), the bound and racing the lowest grid with slack 0.5 */
    wpart_rg_opts_t nic = {2, max_half, 0, 1, 0.5, lower, 0, max_half, g->ctl, inc, 0};
    *vb = RG_INF;
    *vx_out = RG_INF;
    *vy_out = RG_INF;
    rk_sgo_start(s, pref, 0, sg);
    WPART_CHECK(rk_sgo_run(s, pref, sg, sgo_iters, INT64_MAX, nc, w->R0, w->C0, t0,
                           g->ctl, timed_out));
    if (!*timed_out && !rk_uniform(s, w->R0, w->C0)) {
        WPART_CHECK(wpart_i_rect_from(g, t0, 2, 4, w->R0, w->C0, &nic, w->R2, w->C2, &v2,
                                      halves, timed_out));
        if (!*timed_out) { /* the cut moves of nic's grid (the SGO grid if none went below) */
            WPART_CHECK(wpart_i_rect_polish_g(g, g->A, &At, P, Q, w->R2, w->C2, 20, g->ctl, &v2,
                                            &moves, timed_out));
        } else if (!(v2 < inc)) { /* the time limit struck: nic's grid only when below inc */
            v2 = RG_INF;
        }
        if (rg_keep(P, Q, w->R2, w->C2, v2, Rb, Cb, vb)) {
            best = v2 < best ? v2 : best;
        }
    }
    /* nic's length on this matrix, measured where our half-sweeps are cheap beside SARMA's:
     * nic from the SGO grid to its end (no race, no bound; a grid below the lowest so far is
     * a candidate); SARMA's nic would run about as many half-steps per start */
    if (!*timed_out && RK_SHARE > 0.0 && hw <= RK_PROBE * sarma) {
        int64_t h0 = *halves;
        wpart_rg_opts_t probe = {2, max_half, 0, 0, 0.0, lower, 0, max_half, g->ctl, best,
                                   0};
        WPART_CHECK(wpart_i_rect_from(g, t0, 1, 4, w->R0, w->C0, &probe, w->R2, w->C2, &v2,
                                      halves, timed_out));
        budget = RK_SHARE * sarma * (double)(*halves - h0) - RK_OWN * (double)(P + Q) * hw;
        more = (RK_MORE - RK_SHARE) * sarma * (double)(*halves - h0);
        if (rg_keep(P, Q, w->R2, w->C2, v2, w->Rx, w->Cx, &best)) {
            vx = v2;
        }
    }
    /* the runs within the budget: the uniform start's on, then random starts */
    for (t = 0; t <= RK_TRIES && !*timed_out && best > lower; t++) {
        /* the work so far: the SGO's and hw per half-sweep (integers below 2**53: exact) */
        double left = budget - (used + (double)(*halves - hb) * hw) - (double)sg->work;
        if (!(left > 0.0)) {
            break;
        }
        double b0 = sg->best;
        int64_t w0 = sg->work;
        if (t > 0) {
            *iters += sg->its;
            rk_sgo_start(s, pref, (uint64_t)t, sg);
            used += (double)w0;
            w0 = 0;
            b0 = RG_INF;
        }
        int64_t cap = (int64_t)left + w0;
        WPART_CHECK(rk_sgo_run(s, pref, sg, t == 0 ? RK_UNI_ITERS : INT64_MAX, cap, nc,
                               w->R0, w->C0, t0, g->ctl, timed_out));
        if (*timed_out || !(sg->best < b0)) {
            continue;
        }
        WPART_CHECK(rk_nic(g, t0, w, &nic, w->Rx, w->Cx, &best, &vx, halves, timed_out));
    }
    *iters += sg->its;
    /* further random starts within RK_MORE, their lowest grid below all so far to Ry, Cy */
    double b2 = best;
    budget += more;
    for (t = t > 1 ? t : 1; more > 0.0 && t <= RK_MORE_TRIES && !*timed_out && b2 > lower;
         t++) {
        double left = budget - (used + (double)(*halves - hb) * hw) - (double)sg->work;
        if (!(left > 0.0)) {
            break;
        }
        used += (double)sg->work;
        rk_sgo_start(s, pref, (uint64_t)t, sg);
        WPART_CHECK(rk_sgo_run(s, pref, sg, INT64_MAX, (int64_t)left, nc, w->R0, w->C0,
                               t0, g->ctl, timed_out));
        *iters += sg->its;
        if (*timed_out) {
            break;
        }
        WPART_CHECK(rk_nic(g, t0, w, &nic, w->Ry, w->Cy, &b2, &vy, halves, timed_out));
    }
    /* one more run from the given grid (from_grid, below RK_S1 blocks: 32 x 32), at most
     * RK_FROM_ITERS iterations, then nic from its grid; a grid below all so far to Rx, Cx */
    if (from_grid && !heavy && P * Q < RK_S1 && !*timed_out && (best < b2 ? best : b2) > lower) {
        rk_sgo_from(s, pref, R, C, sg);
        WPART_CHECK(rk_sgo_run(s, pref, sg, RK_FROM_ITERS, INT64_MAX, nc, w->R0, w->C0,
                               t0, g->ctl, timed_out));
        *iters += sg->its;
        if (!*timed_out && !rg_same_grid(P, Q, w->R0, w->C0, R, C)) {
            WPART_CHECK(rk_nic(g, t0, w, &nic, w->Rx, w->Cx, &best, &vx, halves, timed_out));
        }
    }
    /* SARMA's sgo_2dr_nic itself (RK_S1, RK_S1_GAP); a grid below all so far to Rx, Cx */
    double b3 = best < b2 ? best : b2;
    if (P * Q >= RK_S1 && !heavy && inc >= RK_S1_GAP * lower && !*timed_out && b3 > lower) {
        rk_sgo_start(s, pref, 1, sg);
        WPART_CHECK(rk_sgo_run(s, pref, sg, INT64_MAX, INT64_MAX, nc, w->R0, w->C0, t0,
                               g->ctl, timed_out));
        *iters += sg->its;
        if (!*timed_out && sg->best <= RK_NIC * b3) { /* (far above: nic would not come down;
                                                       * 200,000^2 banded: 1.15, 1.8 s) */
            wpart_rg_opts_t sn = {rg_sarma_patience(P, Q), max_half, 0, 0, 0.0, lower, 0,
                                  max_half, g->ctl, b3, 0};
            WPART_CHECK(rk_nic(g, t0, w, &sn, w->Rx, w->Cx, &b3, &vx, halves, timed_out));
        }
    }
    /* the cut moves of the lowest grids of the runs, their maxes exact */
    WPART_CHECK(rk_moves(g, s, &At, w->Ry, w->Cy, &vy, timed_out));
    WPART_CHECK(rk_moves(g, s, &At, w->Rx, w->Cx, &vx, timed_out));
    *vy_out = vy;
    *vx_out = vx;
cleanup:
    return st;
}

/* A heavy-line (power-law) matrix whose uniform grid is at most RK_HEAVY_UNI x inc, from
 * RK_HEAVY_FROM blocks: SARMA's sgo_2dr_nic from the uniform grid, the SGO to its own stop
 * rule (at most RK_HEAVY_ITERS iterations), then SARMA's nic from its grid (racing the
 * lowest grid so far with slack 0.5) and, when nic's lowest grid is not above that grid, the
 * cut moves of its grid; up to RK_BIG blocks the same from RK_HEAVY_TRIES random starts (where
 * the uniform grid is above the gate, without the uniform one: RK_HEAVY_RECT at P != Q, half
 * as many at RK_BIG blocks), while above the lower bound. The lowest grid below inc to
 * w->Rx, w->Cx, its exact max to *vx (RG_INF: none went below inc).
 * The kick's 100 iterations stop short there: bench_spatial_fresh's plaw_2600_z stored
 * 64 x 64 needs 3,904 (33 at 100, 25 after nic at the stop rule, SARMA's best 25). */
static wpart_status_t rk_heavy(rg_ctx_t *g, rp_t *s, rk_sgo_t *sg, double t0, int heavy,
                               const double *const pref[2], int64_t max_half, double lower,
                               double inc, int64_t *nc, const rk_grids_t *w, double *vx,
                               int64_t *iters, int64_t *halves, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    int64_t P = g->P[0], Q = g->P[1], moves;
    double best = inc, v2;
    wpart_rg_csr_t At = {s->side[1].n, s->side[0].n, s->side[1].ptr, s->side[1].idx,
                         s->side[1].w};
    wpart_rg_opts_t nic = {2, max_half, 0, 1, 0.5, lower, 0, max_half, g->ctl, inc, 0};
    /* (RK_SGO_NIC: seed 1 alone, the uniform grid's SGO not run) */
    int plaw = heavy != RK_SGO_NIC && rk_sgo_start(s, pref, 0, sg) <= RK_HEAVY_UNI * inc;
    int64_t tries = heavy == RK_SGO_NIC ? 1
                    : P * Q > RK_BIG    ? 0
                    : plaw              ? RK_HEAVY_TRIES
                    : P * Q == RK_BIG   ? RK_HEAVY_RECT / 2
                    : P != Q            ? RK_HEAVY_RECT
                                        : 0;
    int64_t first = plaw && P * Q >= RK_HEAVY_FROM ? 0 : 1; /* (0: the uniform grid's run) */
    *vx = RG_INF;
    for (int64_t t = first; t <= tries && !*timed_out && best > lower; t++) {
        if (t > 0) {
            rk_sgo_start(s, pref, (uint64_t)t, sg);
        }
        WPART_CHECK(rk_sgo_run(s, pref, sg, RK_HEAVY_ITERS, INT64_MAX, nc, w->R0,
                               w->C0, t0, g->ctl, timed_out));
        *iters += sg->its;
        if (*timed_out || (t == 0 && rk_uniform(s, w->R0, w->C0))) {
            continue;
        }
        nic.incumbent = best;
        WPART_CHECK(wpart_i_rect_from(g, t0, 2, 4, w->R0, w->C0, &nic, w->R2, w->C2, &v2,
                                      halves, timed_out));
        if (!(v2 <= best)) { /* above: w->R2 holds nic's first start */
            continue;
        }
        if (!*timed_out) { /* the time limit struck: nic's lowest grid as it is */
            WPART_CHECK(wpart_i_rect_polish_g(g, g->A, &At, P, Q, w->R2, w->C2, 20, g->ctl, &v2,
                                              &moves, timed_out));
        }
        if (rg_keep(P, Q, w->R2, w->C2, v2, w->Rx, w->Cx, &best)) { /* also at a time-out */
            *vx = best;
        }
    }
cleanup:
    return st;
}

wpart_status_t wpart_i_rect_kick(rg_ctx_t *g, double t0, int64_t sgo_iters, int64_t max_half,
                                 double lower, int heavy, int from_grid, int64_t *R, int64_t *C,
                                 double *value, int64_t *iters, int64_t *halves,
                                 int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    const wpart_rg_csr_t *A = g->A;
    const wpart_control_t *control = g->ctl;
    int64_t P = g->P[0], Q = g->P[1], K = P > Q ? P : Q, nmax = A->n1 > A->n2 ? A->n1 : A->n2;
    int64_t *S = NULL, *G = NULL, *nc = NULL;
    double *buf = NULL;
    rp_t s;
    rk_sgo_t sg;
    memset(&s, 0, sizeof s);
    s.ctl = control;
    *timed_out = 0;
    *iters = 0;
    *halves = 0;
    if (heavy == RK_SGO_NIC && P * Q >= RK_BIG) { /* (rk_big reads heavy as a heavy-line flag) */
        WPART_FAIL(WPART_EINVAL, "the kick's sgo_2dr_nic mode runs below 1,024 blocks only");
    }
    WPART_CHECK(wpart_i_rg_csc(g));
    s.side[0] = g->side[0];
    s.side[1] = g->side[1];
    s.K[0] = P;
    s.K[1] = Q;
    s.L = wpart_i_malloc(P, (size_t)Q * sizeof(double));
    S = wpart_i_malloc(P + Q + 2, 2 * sizeof(int64_t)); /* s's cuts, then the SGO grid */
    G = wpart_i_malloc(P + Q + 2, 5 * sizeof(int64_t)); /* R0, C0 (2 each), R2, C2, Rx .. Cy */
    nc = wpart_i_malloc(K + 1, sizeof(int64_t));
    buf = wpart_i_malloc(P + Q, 2 * sizeof(double)); /* the SGO's positions and maxima */
    for (int d = 0; d < 2; d++) {
        s.map[d] = wpart_i_malloc(nmax > 0 ? nmax : 1, sizeof(int32_t));
        s.smax[d] = wpart_i_malloc(K, sizeof(double));
        s.scnt[d] = wpart_i_malloc(K, sizeof(int64_t));
        if (!s.map[d] || !s.smax[d] || !s.scnt[d]) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in the grid kick");
        }
    }
    if (!s.L || !S || !G || !nc || !buf) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in the grid kick");
    }
    WPART_CHECK(wpart_i_rp_heavy(&s)); /* heavy lines move in O(K) (rect_polish_i.h) */
    s.cut[0] = S;
    s.cut[1] = S + P + 1;
    sg.pi[0] = buf;
    sg.pi[1] = buf + P;
    sg.rs[0] = buf + P + Q;
    sg.rs[1] = buf + 2 * P + Q;
    rk_grids_t w = {G, G + 2 * (P + 1), G + 2 * (P + Q + 2), G + 2 * (P + Q + 2) + P + 1,
                    G + 3 * (P + Q + 2), G + 3 * (P + Q + 2) + P + 1,
                    G + 4 * (P + Q + 2), G + 4 * (P + Q + 2) + P + 1};
    int64_t *Rs = S + P + Q + 2, *Cs = Rs + P + 1;
    if (!(*value >= 0.0)) { /* the given grid's max, exact (from scratch) */
        WPART_CHECK(rk_max(&s, R, C, value));
    }
    const double *pref[2] = {g->tot[0], g->tot[1]};
    double v = RG_INF;
    if (P * Q >= RK_BIG) {
        double vx, vy;
        WPART_CHECK(rk_big(g, &s, &sg, t0, heavy, pref, sgo_iters, max_half, lower, *value,
                           nc, &w, from_grid, R, C, Rs, Cs, &v, &vx, &vy, iters, halves,
                           timed_out));
        if (v < RG_INF || vx < RG_INF) { /* exact: against the given grid's exact max */
            WPART_CHECK(rk_max(&s, R, C, value));
        }
        rg_keep(P, Q, Rs, Cs, v, R, C, value);
        if (vx < *value && !*timed_out) {
            /* the further runs' grid is lower, but the caller's plain half-sweeps from it can
             * end above theirs from the first run's (band_2100_w40 64 x 64: 97 vs 96): both
             * continued here, the lower kept (never above the first run's continuation) */
            double va = *value;
            WPART_CHECK(wpart_i_rect_plain(g, A, t0, max_half, lower, R, C, &va, timed_out));
            WPART_CHECK(wpart_i_rect_plain(g, A, t0, max_half, lower, w.Rx, w.Cx, &vx,
                                           timed_out));
            *value = va;
        }
        rg_keep(P, Q, w.Rx, w.Cx, vx, R, C, value);
        if (vy < *value) {
            /* the further random starts' grid, continued the same way (not after a time-out),
             * kept when it ends lower (never above the grid before) */
            if (!*timed_out) {
                WPART_CHECK(wpart_i_rect_plain(g, A, t0, max_half, lower, w.Ry, w.Cy, &vy,
                                               timed_out));
            }
            rg_keep(P, Q, w.Ry, w.Cy, vy, R, C, value);
        }
        goto done;
    }
    /* below RK_BIG blocks: the SGO from the uniform grid, at most sgo_iters iterations and
     * RK_WORK (nnz + RK_WORK_PQ P Q) entries moved (sgo_iters 0: none) */
    if (sgo_iters <= 0) {
        goto done;
    }
    /* from_grid: the SGO from the given grid (the default's best) instead of the uniform one:
     * on bench_spatial_fresh's 16 x 16 cases (paired runs) 15 max loads lower (bdiag_22x110_z
     * stored 601 -> 588, SARMA's best of nine; g3d7_9 124 -> 114), one higher (band_3200_ns
     * 801 -> 812, below the best of nine 833), the CPU there 1.0 - 1.6 x. Where that run
     * brings no lower grid, the run from the uniform grid follows (the kick before from_grid):
     * bench_spatial_sarma's s_blockdiag_12 16 x 16 283 -> 277 (SARMA's best of nine; from the
     * uniform grid alone: 277), no other max load of the 8 x 8 / 16 x 16 cases of both
     * benchmarks changed (146, paired runs), their CPU 1.02 x (at most 1.55 x) */
    int from_best = from_grid && !heavy;
    for (int pass = 0; pass < 1 + (from_best && from_grid != RK_FROM_ONLY); pass++) {
        int fb = from_best && pass == 0;
        if (fb) {
            rk_sgo_from(&s, pref, R, C, &sg);
        } else {
            rk_sgo_start(&s, pref, 0, &sg);
        }
        int64_t cap = RK_WORK * (A->rp[A->n1] + RK_WORK_PQ * P * Q);
        WPART_CHECK(rk_sgo_run(&s, pref, &sg, sgo_iters, cap, nc, Rs, Cs, t0,
                               control, timed_out));
        *iters += sg.m;
        double sv = sg.best;
        v = RG_INF;
        if (*timed_out) {
            break;
        }
        /* the SGO grid is its start (the given one; or the uniform one, a start the default
         * ran): nothing new */
        if (!(sv <= RK_RATIO * *value) ||
            (fb ? rg_same_grid(P, Q, Rs, Cs, R, C) : rk_uniform(&s, Rs, Cs))) {
            continue;
        }
        /* the default's half-sweeps from the SGO grid (either dimension first, balanced),
         * racing the given grid (the incumbent), the best one continued when it went below */
        memcpy(w.R0, Rs, (size_t)(P + 1) * sizeof(int64_t));
        memcpy(w.C0, Cs, (size_t)(Q + 1) * sizeof(int64_t));
        wpart_rg_opts_t opt = {2, max_half, 0, 1, 0.25, lower, 10, max_half, control, *value,
                               0};
        WPART_CHECK(wpart_i_rect_from(g, t0, 2, 2, w.R0, w.C0, &opt, Rs, Cs, &v, halves,
                                      timed_out));
        /* SARMA's sgo_2dr_nic step from the same grid (plain half-sweeps, patience
         * max(10, P + Q), no race) when the SGO grid came near the given one: it can end
         * lower than the balanced race (the fresh reference set: lower_1800_v count 64 x 64
         * 64 -> 63, g2d5_19x11 8 x 32 26 -> 25, both the best of SARMA's nine); only a
         * strictly lower grid is taken */
        if (!*timed_out && sv <= RK_NIC * *value) {
            double inc = v < *value ? v : *value;
            wpart_rg_opts_t nic = {2, max_half, 0, 1, 0.0, lower, 10, max_half, control, inc,
                                   0};
            WPART_CHECK(rk_nic(g, t0, &w, &nic, Rs, Cs, &inc, &v, halves, timed_out));
        }
        if (!(v < *value)) {
            if (*timed_out) {
                break;
            }
            continue;
        }
        /* a lower grid: its polish, then both maxes exact (from scratch) before it replaces
         * R, C; no further run */
        wpart_rg_csr_t At = {A->n2, A->n1, g->side[1].ptr, g->side[1].idx, g->side[1].w};
        WPART_CHECK(rk_moves(g, &s, &At, Rs, Cs, &v, timed_out));
        WPART_CHECK(rk_max(&s, R, C, value));
        rg_keep(P, Q, Rs, Cs, v, R, C, value);
        break;
    }
done:
    if (heavy && !*timed_out && *value > lower + (g->integral ? 1.0 : 0.0)) {
        /* a heavy-line matrix: SARMA's sgo_2dr_nic in full; a lower grid and the kick's are
         * each continued by the plain half-sweeps and the lower kept (never above the
         * kick's path, as from 1,024 blocks) */
        double vx, va = *value;
        WPART_CHECK(rk_heavy(g, &s, &sg, t0, heavy, pref, max_half, lower, *value, nc, &w, &vx,
                             iters, halves, timed_out));
        if (vx < *value) { /* after a time-out: the lower grid as it is */
            if (!*timed_out) {
                WPART_CHECK(wpart_i_rect_plain(g, A, t0, max_half, lower, R, C, &va, timed_out));
            }
            if (!*timed_out) {
                WPART_CHECK(wpart_i_rect_plain(g, A, t0, max_half, lower, w.Rx, w.Cx, &vx,
                                               timed_out));
            }
            *value = va;
            rg_keep(P, Q, w.Rx, w.Cx, vx, R, C, value);
        }
    }
    WPART_CHECK(rp_stopped(&s)); /* (a pass stopped where no check followed) */
cleanup:
    free(s.L);
    free(S);
    free(G);
    free(nc);
    free(buf);
    wpart_i_rp_heavy_free(&s);
    for (int d = 0; d < 2; d++) {
        free(s.map[d]);
        free(s.smax[d]);
        free(s.scnt[d]);
    }
    return st;
}

wpart_status_t wpart_spatial_rect_kick(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                       int64_t *R, int64_t *C, int64_t max_iter,
                                       const wpart_control_t *control, double *value,
                                       int64_t *iters, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    double t0 = wpart_i_now();
    rg_ctx_t g;
    int64_t halves;
    memset(&g, 0, sizeof g);
    WPART_CHECK(wpart_i_rg_check_grids(A, P, Q, 1, R, C));
    WPART_CHECK(wpart_i_rg_open(&g, A, P, Q, control, -1));
    *value = -1.0; /* the kick computes the given grid's max */
    WPART_CHECK(wpart_i_rect_kick(&g, t0, max_iter, 200, 0.0, 0, 0, R, C, value, iters,
                                  &halves, timed_out));
cleanup:
    wpart_i_rg_close(&g);
    return st;
}
