/* rect_random.c -- the stage of the default RECT-NICOL after the race of its starts on grids of
 * 4 to 63 blocks (rect_fast.c calls it in the one call; wpart_spatial_rect_random is the step
 * engine's call of the same kernel, wpart/spatial/_nicol.py): SARMA's random starts, its
 * sgo_2dr_nic, or near the lower bound the cut moves in their place. Also the default's
 * half-sweeps from given grids that its stages share (rect_fast.c, rect_kick.c):
 * wpart_i_rect_from and wpart_i_rect_plain. */
#include "rect_grid_i.h"
#include "rect_polish.h"
#include "spatial_internal.h"

/* From RF_RAND_MIN to RF_RAND_MAX blocks, after the race: RF_RAND_TRIES of SARMA's random
 * starts (the inner cuts at positions uniform at random in load space, std::mt19937_64 seeds
 * 1, 2, ...), each run as the default's starts are (balanced half-sweeps, patience 2, at most
 * max(10, P + Q)) racing the best grid with slack RF_RAND_RACE; a lower grid replaces it.
 * At 4 x 4 the four fixed starts end in one local optimum where SARMA's SGO runs from its own
 * random start land lower: bench_spatial_fresh's 59 4 x 4 cases 54 -> 57 <= the best of
 * SARMA's nine (arrow_1400 1444 -> 1427, best 1358; h_clust_2200 1363 -> 1353, best 1351),
 * SARMA's test matrices cage 556 -> 491 (SARMA's sgo_2ds 495) and tumorAntiAngiogenesis_1
 * 194 -> 184 (its sgo_2dr_nic 185), none higher. The call's CPU at 4 x 4 about 1.7 x:
 * 0.36-0.64 x SARMA's own nic (built from its sources, its timer) on five of its six test
 * matrices, 1.0 x on bayer05 (27,836 entries), but a median 0.67 x our C re-implementation of
 * nic (benchmarks/_sarma_nic.c), faster than SARMA's there. 6 tries at slack 0.15 gave the same
 * counts (arrow_1400 1427) at 1.3 x the CPU of these, 8 at 0.2 also took arrow_1400 to 1332
 * (58 of 59) at a median 0.45 x the C nic's CPU. From 64 blocks (where nic, nicuni,
 * the cut moves and the kick follow) 4 tries lowered 2 of the 60 cases of SARMA's test
 * matrices (cage 8 x 8 / 32 x 32 one triangle, 62 -> 61, 12 -> 11) for 5-40 % more CPU.
 * Not on a banded matrix (wpart_i_rg_banded: the diagonal start alone), where they lowered
 * none of bench_spatial_fresh's banded, grid and mesh 4 x 4 grids */
#define RF_RAND_TRIES 4
/* ... then, where the grid before them was RF_SGO_LO to RF_SGO_HI x the lower bound, SARMA's
 * sgo_2dr_nic from its own random start (seed 1; rect_kick.c's RK_SGO_NIC), kept where lower:
 * bench_spatial_fresh's two 4 x 4 cases above the best of SARMA's nine went below it
 * (arrow_1400 1444 -> 1293, best 1358; h_clust_2200 1353 -> 1340, 1351). On all 4 x 4 cases
 * it lowered no other across that line and took 23 of 35 above SARMA nic's CPU: meshes,
 * grids, bands sit near 2.3 x the bound (total / m), power-law within 1.14 x of it */
#define RF_SGO_LO 1.19
#define RF_SGO_HI 1.7
/* ... and where it was below RF_SGO_LO x the bound (power-law and clustered matrices, whose
 * heavy lines make the bound tight), no random starts: rect_polish.c's cut moves from it
 * (RF_NEAR_TABU tabu steps) in their place. On bench_spatial_fresh's 16 such 4 x 4 cases the
 * random starts lowered 5 grids by 1-2 (one across the best of SARMA's nine: clust_1000 572 ->
 * 571); the cut moves lower 3 (clust_1000 571 too): 3 end 2 above, 1 below the random starts'
 * max, all <= the best of nine. CPU of the 59 4 x 4 cases 0.87 x (one process, interleaved),
 * 7 more at or below SARMA nic's (30 -> 37). The line lies between the largest ratio where the
 * random starts and the SGO lowered nothing, SARMA's email-Eu-core at 4 x 4 (1849 / 1605 =
 * 1.152, both weightings: 1.1 ms, the cut moves 0.4 ms, SARMA's nic 0.66-0.70 ms), and the
 * least where they went below the best of nine, h_clust_2200 stored 4 x 4 (1363 / 1109 = 1.229:
 * 1340, the best 1351); at 1.15 - 1.22 none of the 476 max loads of bench_spatial_fresh, SARMA's
 * six files and bench_spatial_sarma changed, from 1.25 they cross (h_clust_2200 1363) */
#define RF_NEAR_TABU 2
/* ... and above RF_SGO_HI x the bound (random starts alone, no sgo_2dr_nic) none runs where one
 * start of the race ended RF_RAND_DOM x or more below every other (its second-lowest max load
 * over the lowest; the starts as stats["starts"] lists them, an equal or transposed one
 * included): SARMA's random cuts are cuts of the uniform starts' kind, and those ended 20 %
 * and more above it. On 1,320 generated cases (11 families, 4x4, 2x8, 4x8, 8x4, 3x5, 4x12,
 * "stored"), of the 187 above 1.7 x the bound the random starts lowered the grid in 33, all at
 * a ratio <= 1.144, and none of the 13 at 1.25 - 1.56 (block-diagonal matrices, where the
 * diagonal start ends far below the others); in bench_spatial_fresh's 4 x 4 cases the four at
 * 1.35 - 1.53 (bdiag_22x110_z count and stored, h_bdiag_15x70, bdiag_9x45) kept none and
 * spent 27 - 38 % of the call on them. Between 1.19 and 1.7 x the bound no such line
 * exists (arrow matrices gain at 1.31, lose at 1.10) */
#define RF_RAND_DOM 1.2
#define RF_RAND_RACE 0.1
#define RF_RAND_MIN 4
#define RF_RAND_MAX 64

wpart_status_t wpart_i_rect_from(rg_ctx_t *g, double t0, int nst, int32_t first, int64_t *R0,
                                 int64_t *C0, const wpart_rg_opts_t *o, int64_t *R2,
                                 int64_t *C2, double *v, int64_t *halves, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    int64_t P = g->P[0], Q = g->P[1], h1 = rg_sarma_patience(P, Q), hv[3] = {0, 0, 0};
    int32_t fs[2] = {first, first | 1}, state[3];
    double val[3] = {RG_INF, RG_INF, RG_INF};
    wpart_rg_opts_t opt = *o;
    opt.max_half = o->max_half < h1 ? o->max_half : h1;
    if (nst == 2) {
        memcpy(R0 + (P + 1), R0, (size_t)(P + 1) * sizeof(int64_t));
        memcpy(C0 + (Q + 1), C0, (size_t)(Q + 1) * sizeof(int64_t));
    }
    WPART_CHECK(wpart_i_rg_run(g, t0, nst, R0, C0, fs, &opt, R2, C2, val, hv, state, NULL,
                               timed_out));
    *v = RG_INF;
    for (int k = 0; k < 3; k++) {
        *v = val[k] < *v ? val[k] : *v;
        if (halves) {
            *halves += hv[k];
        }
    }
cleanup:
    return st;
}

/* the race slack of wpart_i_rect_plain's half-sweeps: 0.25 -> 0.1 changed no max load of
 * bench_spatial_fresh's 275 cases of 64 blocks and more (nor 0.02), 2-5 % less CPU there */
#define RF_PLAIN_RACE 0.1

/* plain half-sweeps (SARMA's nic steps; either dimension first, patience 2, the race) from
 * the grid (R, C) of exact max *value, then the cut moves of a lower grid; R, C, *value change
 * only to a strictly lower grid (B: the weights of the cut moves; the CSC made) */
wpart_status_t wpart_i_rect_plain(rg_ctx_t *g, const wpart_rg_csr_t *B, double t0,
                                  int64_t max_half, double lower, int64_t *R, int64_t *C,
                                  double *value, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    int64_t P = g->P[0], Q = g->P[1], moves;
    int64_t *S = wpart_i_malloc(3 * (P + Q + 2), sizeof(int64_t));
    int32_t pto = 0;
    double v, pv;
    if (!S) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    int64_t *R0 = S, *C0 = R0 + 2 * (P + 1), *R2 = C0 + 2 * (Q + 1), *C2 = R2 + P + 1;
    memcpy(R0, R, (size_t)(P + 1) * sizeof(int64_t));
    memcpy(C0, C, (size_t)(Q + 1) * sizeof(int64_t));
    wpart_rg_opts_t o = {2, max_half, 0, 1, RF_PLAIN_RACE, lower, 0, max_half, g->ctl,
                         *value, 0};
    WPART_CHECK(wpart_i_rect_from(g, t0, 2, 0, R0, C0, &o, R2, C2, &v, NULL, timed_out));
    if (!(v < *value)) {
        goto cleanup;
    }
    if (*timed_out) { /* the lower grid met before the time limit struck is kept */
        rg_keep(P, Q, R2, C2, v, R, C, value);
        goto cleanup;
    }
    wpart_rg_csr_t At = {B->n2, B->n1, g->side[1].ptr, g->side[1].idx, g->side[1].w};
    WPART_CHECK(wpart_i_rect_polish_g(g, B, &At, P, Q, R2, C2, 20, g->ctl, &pv, &moves, &pto));
    *timed_out = pto;
    rg_keep(P, Q, R2, C2, pv, R, C, value);
cleanup:
    free(S);
    return st;
}

/* the grids the random starts run on (the rule above; the banded test is the caller's) */
int wpart_i_rect_rand_grid(int64_t P, int64_t Q)
{
    return P * Q >= RF_RAND_MIN && P * Q < RF_RAND_MAX;
}

/* the two lowest max loads (low) of the n starts val, state as the default reports them
 * (state 2: not run); RG_INF where fewer ran */
void wpart_i_rect_rand_low(const double *val, const int32_t *state, int64_t n, double low[2])
{
    low[0] = low[1] = RG_INF;
    for (int64_t s = 0; s < n; s++) {
        double v = val[s];
        if (state[s] == 2) {
            continue;
        }
        low[1] = v < low[0] ? low[0] : v < low[1] ? v : low[1];
        low[0] = v < low[0] ? v : low[0];
    }
}

/* out's fields of the random starts as when none ran */
void wpart_i_rect_rand_none(wpart_rg_auto_t *out)
{
    out->rand_runs = -1;
    out->rand_moves = -1;
    out->rand_halves = 0;
    out->rand_best = RG_INF;
    out->rand_kept = 0;
}

/* the random starts (RF_RAND_TRIES; the rule above), racing the best grid (R, C) of max *inc:
 * a lower grid replaces it; their count, half-sweeps and lowest max to out */
wpart_status_t wpart_i_rect_random(rg_ctx_t *g, double t0, int64_t max_half, double lower,
                                   const double low[2], int64_t *R, int64_t *C, double *inc,
                                   wpart_rg_auto_t *out, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    int64_t P = g->P[0], Q = g->P[1], K = P > Q ? P : Q;
    int64_t n[2] = {g->A->n1, g->A->n2}, k[2] = {P, Q};
    int64_t *S = wpart_i_malloc(2 * (P + Q + 2), sizeof(int64_t));
    double *pi = wpart_i_malloc(K, sizeof(double)), v;
    wpart_mt64_t gen;
    out->rand_runs = 0;
    if (!S || !pi) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    /* one start slot each (wpart_i_rect_from with nst 1), then the grid it returns */
    int64_t *c0[2] = {S, S + P + 1}, *R2 = c0[1] + Q + 1, *C2 = R2 + P + 1;
    /* (wpart_i_rect_from caps a start at SARMA's max(10, P + Q) half-sweeps) */
    wpart_rg_opts_t o = {2, max_half, 0, 1, RF_RAND_RACE, lower, 0, max_half, g->ctl, *inc,
                         0};
    double gap = lower > 0.0 ? *inc / lower : 0.0; /* (the grid before the random starts) */
    if (gap > 0.0 && gap < RF_SGO_LO) { /* near the bound: the cut moves in their place */
        double pv;
        WPART_CHECK(wpart_i_rg_csc(g));
        wpart_rg_csr_t At = {g->A->n2, g->A->n1, g->side[1].ptr, g->side[1].idx, g->side[1].w};
        WPART_CHECK(wpart_i_rect_polish_g(g, g->A, &At, P, Q, R, C, RF_NEAR_TABU, g->ctl, &pv,
                                          &out->rand_moves, timed_out));
        out->rand_best = pv;
        if (pv < *inc) { /* (R, C changed only to a strictly lower grid) */
            *inc = pv;
            out->rand_kept = 1;
        }
        goto cleanup;
    }
    if (gap > RF_SGO_HI && low[0] > 0.0 && low[1] < RG_INF && low[1] >= RF_RAND_DOM * low[0]) {
        goto cleanup; /* one start far below the others: none runs (runs 0) */
    }
    for (uint64_t t = 1; t <= RF_RAND_TRIES && !*timed_out && *inc > lower; t++) {
        wpart_i_mt64_seed(&gen, t);
        for (int d = 0; d < 2; d++) {
            wpart_i_sgo_random(g->tot[d][n[d]], k[d] - 1, &gen, pi);
            wpart_i_sgo_cuts(g->tot[d], n[d], pi, k[d] - 1, NULL, c0[d]);
        }
        o.incumbent = *inc;
        WPART_CHECK(wpart_i_rect_from(g, t0, 1, 2, c0[0], c0[1], &o, R2, C2, &v,
                                      &out->rand_halves, timed_out));
        out->rand_runs++;
        out->rand_best = v < out->rand_best ? v : out->rand_best;
        out->rand_kept |= rg_keep(P, Q, R2, C2, v, R, C, inc);
    }
    if (!*timed_out && *inc > lower && gap >= RF_SGO_LO && gap <= RF_SGO_HI) {
        int64_t its, hv = 0;
        v = -1.0; /* (the kick takes the grid's max exact, from scratch) */
        WPART_CHECK(wpart_i_rect_kick(g, t0, 0, max_half, lower, RK_SGO_NIC, 0, R, C, &v,
                                      &its, &hv, timed_out));
        out->rand_runs++;
        out->rand_halves += hv;
        out->rand_best = v < out->rand_best ? v : out->rand_best;
        if (v < *inc) { /* (R, C changed only to a strictly lower grid) */
            *inc = v;
            out->rand_kept = 1;
        }
    }
cleanup:
    free(S);
    free(pi);
    return st;
}

wpart_status_t wpart_spatial_rect_random(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                         int64_t *R, int64_t *C, int64_t max_half,
                                         double lower, const double low[2],
                                         const wpart_control_t *control, double *value,
                                         wpart_rg_auto_t *out)
{
    wpart_status_t st = WPART_OK;
    double t0 = wpart_i_now();
    rg_ctx_t g;
    memset(&g, 0, sizeof g);
    wpart_i_rect_rand_none(out);
    out->timed_out = 0;
    WPART_CHECK(wpart_i_rg_check_grids(A, P, Q, 1, R, C));
    if (max_half < 1) {
        WPART_FAIL(WPART_EINVAL, "max_half must be positive");
    }
    WPART_CHECK(wpart_i_rg_open(&g, A, P, Q, control, -1));
    if (wpart_i_rect_rand_grid(P, Q) && *value > lower) {
        WPART_CHECK(wpart_i_rect_random(&g, t0, max_half, lower, low, R, C, value, out,
                                        &out->timed_out));
    }
cleanup:
    wpart_i_rg_close(&g);
    return st;
}
