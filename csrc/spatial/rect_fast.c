/* rect_fast.c -- the default RECT-NICOL (rect_nicol's starts="auto") in one call: the value
 * checks, the four starts (the diagonal one, the 1D optimum of the stored entries per
 * column, uniform cuts with the columns or the rows set first), the proven lower bound, the
 * race of the starts and the continuation of the best grid (rect_grid.c), the uniform grid
 * when the time limit struck, and the exact loads of the grid's blocks. The same arithmetic
 * as the step-by-step engine (wpart/spatial/_nicol.py), so both give one grid. */
#include "rect_grid_i.h"
#include "rect_polish.h"
#include "spatial_internal.h"

#define RF_N 4 /* starts */
/* the diagonal start runs last on such a matrix up to this many blocks (_nicol.HEAVY_LAST_BLOCKS;
 * at 64 x 64 the fresh arrow matrix ended one unit higher that way, nothing gained there) */
#define RF_LAST_MAX 1024
/* the starts' race (a start more than RF_RACE x 2 / h above the best grid after h half-sweeps
 * stops; _nicol.AUTO_RACE), from RF_BIG_MIN blocks RF_RACE_BIG, and RF_RACE_HEAVY for the
 * starts of a heavy-line matrix whose diagonal start runs last (_nicol.AUTO_RACE_HEAVY).
 * Halved (0.2, 0.15, 0.5 before) with rows_stored's race start dropped from RF_NIC_MIN blocks
 * (below): the counts of max loads <= the best of SARMA's nine on bench_spatial_fresh,
 * bench_spatial_sarma and SARMA's six test files unchanged (473 of 476; 9 grids higher, 6
 * lower, none across it), CPU <= SARMA nic's on bench_spatial_fresh +6 of 334 and on the six
 * files +3 of 72 (paired runs), median CPU per case 0.97 x. Before: 0.25 -> 0.15 from 64
 * blocks kept the 334 max loads <= that best, ~5 % less CPU; the heavy-line race (was none)
 * 0.87-0.95 x the CPU of its 112 cases */
#define RF_RACE 0.1
#define RF_RACE_BIG 0.075
#define RF_RACE_HEAVY 0.25
/* the piece start's own race (rect_piece.c; measured at this value) */
#define RF_PIECE_RACE 0.5
/* On a banded matrix (wpart_i_rg_banded; not a heavy-line one whose diagonal start runs last)
 * only the diagonal start runs, and SARMA's nic members below do not: on every banded case of
 * bench_spatial_fresh (59 of 334) the diagonal start's grid is the one the later stages
 * continue, the stored-entry and uniform starts sit 40-70 % above it after one half-sweep and
 * after two, and before this rule they ran one half-sweep each (a race on the first half-sweep,
 * 30 %), nic and nicuni two or more. Without them: the same max loads on the 334 + 70 + 60
 * cases of bench_spatial_fresh, _sarma and SARMA's test matrices, CPU geomean 0.95 x on the
 * first (band_3200_ns / h_band_1300_w9 4 x 4 248 -> 193 us / 0.79 -> 1.09 x SARMA nic's).
 * At P != Q the test's resolution is ceil(sqrt(P Q)) (was max(P, Q)): the 83 cases at 8 x 32
 * of the three sets kept their max loads, 7 of them (2D grids, bands) 1.4-2.7 x faster */
#define RF_BIG_MIN 64
/* below RF_BIG_MIN blocks the best grid's continuation stops after RF_SHORT_PATIENCE
 * half-sweeps without a gain (_nicol.SHORT_POLISH_PATIENCE; from RF_BIG_MIN blocks 10,
 * _nicol.POLISH_PATIENCE): at 4 x 4 patience 10 lowered 4 of 59 bench_spatial_fresh grids
 * by 0.05-1 %, none across the best of SARMA's nine (three 14-21 % below it, one above it
 * either way), for 10 % of the call */
#define RF_SHORT_PATIENCE 1
/* ... from RF_BIG_MIN to RF_MID_MAX blocks RF_MID_PATIENCE (_nicol.MID_POLISH_*): at 8 x 8
 * patience 10 changed none of bench_spatial_fresh's 59 max loads, 7 % of the call */
#define RF_MID_PATIENCE 5
#define RF_MID_MAX 256
#define RF_LONG_PATIENCE 10
/* the SGO kick from RF_KICK_MIN blocks (below, only the plain half-sweeps after it run): at
 * 8 x 8 it lowered none of bench_spatial_fresh's 59 grids */
#define RF_KICK_MIN 256
/* ... at P = Q below RF_KICK_RECT blocks on a matrix without heavy lines, where the grid after
 * the cut moves is below RF_KICK_GAP x the proven lower bound (clustered matrices, DAGs and
 * random-order graphs: 1.9-2.5 x at 16 x 16; meshes, bands and block-diagonal ones 4.5-8.3 x),
 * RF_KICK_NEAR_ITS iterations from the best grid alone (rect_polish.h's RK_FROM_ONLY; without
 * the run from the uniform grid there no max load of the 424 + 440 cases below changed).
 * Against 100 iterations and both runs: on
 * bench_spatial_fresh's 424 cases one max load higher (rgg3_2900_rand 16 x 16 167 -> 170,
 * SARMA's best of nine 191), on 1,320 generated ones at P = Q of 256-961 blocks (11 families;
 * 163 where it applies) three, by 1-4, each still below SARMA's best of nine (nine computed:
 * 85 / 86, 89 / 93, 165 / 178), bench_spatial_sarma's 252 unchanged; callgrind's
 * instructions on clust_700x2400, h_clust_2200 and rgg3_2900_rand stored 16 x 16 0.76 x, on
 * ten of the generated cases 0.92 x. Without the kick there at all, one of the first 440 went
 * above SARMA's best (a clustered matrix, 16 x 16 count, 65 against 64) */
#define RF_KICK_GAP 3.0
#define RF_KICK_NEAR_ITS 50
/* ... but below RF_KICK_RECT blocks at P != Q only its heavy-line runs (sgo_iters 0): at
 * 8 x 32 the rest decided no case <= the best of SARMA's nine (bench_spatial_fresh's 59,
 * bench_spatial_sarma's 14, SARMA's test matrices' 10: the same counts without it) and cost
 * 12 of bench_spatial_fresh's 59 their CPU <= SARMA nic's (29 -> 41 with it off; four grids
 * 0.3-2 % higher, none above the best of nine: rgg3_2900_rand 152 -> 153, its value) */
#define RF_KICK_RECT 1024
/* SARMA's nic member (rf_nic, uni = 0) from RF_NIC_MIN blocks (nicuni from RF_BIG_MIN): at
 * 8 x 8 it lowers none of bench_spatial_fresh's 59 grids (nicuni 3) and costs 3 of them
 * their CPU <= SARMA's nic, but without it SARMA's email-Eu-core (a SuiteSparse graph of
 * SARMA's tests) ended at 547 against nic's 543 (with it 541) */
#define RF_NIC_MIN 64
/* nicuni (uni = 1) below RF_UNI_MAX blocks: from there (32 x 32, 64 x 64: 98 cases of
 * bench_spatial_fresh) no final max load changed without it, 10 % of the call */
#define RF_UNI_MAX 1024


/* the piece start (rect_piece.c) on a heavy-line matrix from RF_PIECE_MIN blocks, after the
 * joint-bound start (one half-sweep there: where that grid meets the bound it is the result
 * at less cost than the piece start's probes; powerlaw_20k 16 x 16 of bench_spatial_sarma
 * 3.8 -> 2.7 ms, 0.33-0.8 x on the fresh power-law cases it ends) and before the others:
 * where its grid is within RF_PIECE_NEAR x the lower bound it is the result and nothing else
 * runs (bench_spatial_fresh, paired runs: 245 -> 267 of 334 cases <= SARMA nic's CPU, the
 * counts <= the best of SARMA's nine unchanged; the 21 cases it ended were all <= that best,
 * by 0-13 %; the first above it was at 1.132 x the bound, at 8 x 8); else the stages run as
 * without it and its grid is the result only where it is lower than theirs (12 max loads
 * lower, 2 higher: a grid near the bound is not continued) */
#define RF_PIECE_MIN 256
#define RF_PIECE_NEAR 1.1
/* ... or within RF_PIECE_NEAR_P x the piece bound: the larger of the two sides' piece values
 * (rect_piece.c), which every grid is at or above, so that from there it is the lower bound
 * where higher (on bench_spatial_fresh's power-law matrices from 256 blocks 0-11 % above the
 * bound before: plaw_2600_z stored 16 x 16 94 -> 103, h_plaw_3100_z stored 16 x 16 105 -> 116).
 * The grids near the bound sit 1.00-1.08 x it; at 1.1 x this bound plaw_2600_z values 16 x 16
 * ended at the piece grid, 231, above SARMA's best of nine (229; the stages reach 228), the
 * first at 1.079 x; at 1.07 the other grids at 1.078-1.083 x (at or below that best) go on to
 * the stages as before (RF_PIECE_MID). Five more cases end near the bound (h_plaw_3100_z 16 x 16
 * in its three weightings, plaw_2600_z count 16 x 16, stored 32 x 32): callgrind's
 * instructions 0.14-0.38 x, two max loads a unit higher (h_plaw_3100_z count 103 -> 104, values
 * 243 -> 244; SARMA's best of nine 104 and 245), bench_spatial_sarma's 70 unchanged */
#define RF_PIECE_NEAR_P 1.07
/* ... and where its grid is within RF_PIECE_MID x the lower bound (from the piece bound on)
 * but not near it, the other starts do not run: the stages below continue the piece grid
 * (state "continued"). On bench_spatial_fresh the five such cases (plaw_640 stored, plaw_2600_z
 * stored and values, h_plaw_900 stored and values, all 16 x 16; 1.08-1.15 x) kept their max
 * loads, at 0.64-0.77 x the instructions; SARMA's nic members stay (without them plaw_2600_z
 * values 16 x 16 ends at 230, above the best of nine 229) */
#define RF_PIECE_MID 1.2

/* the exact 1D partition of v[0..n) into k intervals (cuts: k + 1) and its max; the prefix
 * in the context's scratch X (>= n + 1 doubles; no half-sweep keeps a prefix there), tmp: k + 1 */
static double rf_oned(rg_ctx_t *g, const double *v, int64_t n, int64_t k, int64_t *cuts,
                      int64_t *tmp)
{
    return wpart_i_rect_1d(v, n, k, cuts, g->X, tmp, g->integral);
}

/* whether the max load of the grid (R, C) is below `bound`: the block sums of rf_loads (below),
 * left as soon as a block reaches the bound (the loads are not negative, so its sum only grows:
 * the answer is exact; a banded matrix's uniform grid passes the default's grid in its first
 * block, after a few rows instead of a pass over every entry); il / fl the block loads and *mx
 * their max when below (il, fl: P Q, cmap: n2 of scratch) */
static int rf_below(const wpart_rg_csr_t *A, const int64_t *iv, const double *fv, int64_t P,
                    int64_t Q, const int64_t *R, const int64_t *C, int32_t *cmap, int64_t *il,
                    double *fl, double bound, double *mx)
{
    rg_map(C, Q, A->n2, cmap);
    int64_t p = 0;
    *mx = 0.0;
    if (iv || !fv) {
        memset(il, 0, (size_t)(P * Q) * sizeof(int64_t));
        for (int64_t i = 0; i < A->n1; i++) {
            while (R[p + 1] <= i) {
                p++;
            }
            int64_t *row = il + p * Q;
            for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
                int64_t *b = row + cmap[A->ci[e]];
                *b += iv ? iv[e] : 1;
                if ((double)*b >= bound) {
                    return 0;
                }
            }
        }
        for (int64_t k = 0; k < P * Q; k++) {
            *mx = (double)il[k] > *mx ? (double)il[k] : *mx;
        }
    } else {
        memset(fl, 0, (size_t)(P * Q) * sizeof(double));
        for (int64_t i = 0; i < A->n1; i++) {
            while (R[p + 1] <= i) {
                p++;
            }
            double *row = fl + p * Q;
            for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
                double *b = row + cmap[A->ci[e]];
                *b += fv[e];
                if (*b >= bound) {
                    return 0;
                }
            }
        }
        for (int64_t k = 0; k < P * Q; k++) {
            *mx = fl[k] > *mx ? fl[k] : *mx;
        }
    }
    return *mx < bound;
}

/* the block loads of the grid (R, C), row-major: exact int64 from iv (with fv NULL too: 1
 * each), else float from fv, each block's entries added in row order, entry order within a
 * row (the order of the core's sparse loads, so the same sums bit for bit), in one pass over
 * the entries (rf_below with no bound); the grid's rectangles in out_rects (NULL: not made);
 * *mx the max load; cmap: n2 int32 of scratch */
static void rf_loads(const wpart_rg_csr_t *A, const int64_t *iv, const double *fv, int64_t P,
                     int64_t Q, const int64_t *R, const int64_t *C, int32_t *cmap, int64_t *il,
                     double *fl, int64_t *out_rects, double *mx)
{
    if (out_rects) {
        wpart_i_emit_grid(R, P, C, Q, out_rects);
    }
    rf_below(A, iv, fv, P, Q, R, C, cmap, il, fl, RG_INF, mx);
}

/* the max of the grid (R, C) the stages reached: from the last half-sweep's prefix where it was
 * made for this grid (O(P Q), exact sums), else a pass over the entries (il, fl: P Q scratch) */
static double rf_grid_max(rg_ctx_t *g, const wpart_rg_csr_t *A, const int64_t *iv,
                          const int64_t *R, const int64_t *C, int timed_out, int64_t *il,
                          double *fl)
{
    int64_t PQ = g->P[0] * g->P[1];
    double mg;
    if (!timed_out && wpart_i_rg_loads(g, R, C, NULL, fl)) {
        mg = fl[0];
        for (int64_t k = 1; k < PQ; k++) {
            mg = fl[k] > mg ? fl[k] : mg;
        }
    } else {
        rf_loads(A, iv, A->w, g->P[0], g->P[1], R, C, g->map, il, fl, NULL, &mg);
    }
    return mg;
}

/* the value check: the first problem in the order NaN, infinite, negative, explicit zero (as
 * the Python input rules report them), or an int64 total that may overflow; the max, the
 * int64 total and whether every value is 1; wout (iv only; NULL: none): the values as
 * doubles, written in the same pass */
static int rf_check(int64_t nnz, const int64_t *iv, const double *fv, double *amax,
                    int64_t *iamax, int64_t *itotal, int *ones, const wpart_control_t *ctl,
                    int *stop, double *wout)
{
    int64_t work = 0;
    *ones = 1;
    *amax = 0.0;
    *iamax = 0;
    *itotal = 0;
    /* blocks of RG_POLL_WORK entries (the hook asked before each), each one branch-free pass
     * of min, max (and the sum): a negative value makes the min negative, a zero (no negative)
     * the min 0, all ones min = max = 1 */
    if (iv) {
        int64_t mn = nnz > 0 ? iv[0] : 1, mx = 0;
        uint64_t sum = 0; /* exact when max * nnz < 2**62, the only case it is used */
        for (int64_t e0 = 0; e0 < nnz; e0 += RG_POLL_WORK) {
            if (rg_cancel(ctl, &work, RG_POLL_WORK)) {
                *stop = 1;
                return 0;
            }
            int64_t e1 = nnz - e0 < RG_POLL_WORK ? nnz : e0 + RG_POLL_WORK;
            for (int64_t e = e0; e < e1; e++) {
                int64_t x = iv[e];
                mn = x < mn ? x : mn;
                mx = x > mx ? x : mx;
                sum += (uint64_t)x;
                if (wout) {
                    wout[e] = (double)x;
                }
            }
        }
        *ones = mn == 1 && mx <= 1;
        *amax = (double)mx;
        *iamax = mx;
        if (mn <= 0) {
            return mn < 0 ? WPART_RF_NEGATIVE : WPART_RF_ZERO;
        }
        if ((__int128)mx * nnz >= ((__int128)1 << 62)) {
            return WPART_RF_BIG;
        }
        *itotal = (int64_t)sum;
        return 0;
    }
    if (fv) {
        double mn = nnz > 0 ? fv[0] : 1.0, mx = 0.0;
        int nan = 0;
        for (int64_t e0 = 0; e0 < nnz; e0 += RG_POLL_WORK) {
            if (rg_cancel(ctl, &work, RG_POLL_WORK)) {
                *stop = 1;
                return 0;
            }
            int64_t e1 = nnz - e0 < RG_POLL_WORK ? nnz : e0 + RG_POLL_WORK;
            for (int64_t e = e0; e < e1; e++) {
                double x = fv[e];
                nan |= x != x;
                mn = x < mn ? x : mn;
                mx = x > mx ? x : mx;
            }
        }
        *ones = mn == 1.0 && mx <= 1.0;
        *amax = mx;
        return nan                                 ? WPART_RF_NAN
               : mx == INFINITY || mn == -INFINITY ? WPART_RF_INF
               : mn < 0                            ? WPART_RF_NEGATIVE
               : mn == 0                           ? WPART_RF_ZERO
                                                   : 0;
    }
    *amax = nnz > 0 ? 1.0 : 0.0;
    *iamax = nnz > 0;
    *itotal = nnz;
    return 0;
}

/* the nic members stop after RF_NIC_PATIENCE half-sweeps without a gain (SARMA's own: max(10,
 * P + Q)): on bench_spatial_fresh's 275 cases of 64 blocks and more no case went above the best
 * of SARMA's nine and h_arrow_2600 16 x 16 came below it (423 -> 399, best9 420; 8 and 12 alike),
 * median CPU per grid within 2 % */
#define RF_NIC_PATIENCE 10

/* SARMA's nic (uni = 0: from `rows`, the exact 1D partition of the stored entries per row,
 * the default's rows_stored start) or nicuni (uni = 1: uniform rows) racing the grid (R, C) of
 * max load *inc: uniform columns, plain half-sweeps (the columns first), at most SARMA's
 * max(10, P + Q), patience RF_NIC_PATIENCE, the bound and a looser race (slack 0.5: nic often
 * starts far above where it ends); a strictly lower grid replaces R, C, *inc. nicuni on a
 * heavy-line matrix (heavy) runs free, without the race or the bound: its uniform rows start
 * far above where its plain half-sweeps end (bench_spatial_fresh's
 * arrow_1400 stored 16 x 16: 191 -> 178, below SARMA's best of nine, nicuni's 182; no other
 * max load changed on the 236 cases of 8 x 8 - 32 x 32 nor on SARMA's five test matrices, CPU
 * geomean 1.008 x; free for every matrix: the same max loads at 1.11 x the CPU) */
static wpart_status_t rf_nic(rg_ctx_t *g, int uni, const int64_t *rows, int heavy, double t0,
                             int64_t max_half, double lower, int64_t *R, int64_t *C,
                             double *inc, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    const wpart_rg_csr_t *A = g->A;
    int64_t P = g->P[0], Q = g->P[1];
    int64_t *S = wpart_i_malloc(2 * (P + Q + 2), sizeof(int64_t));
    double v;
    if (!S) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    int64_t *Rn = S, *Cn = Rn + P + 1, *R2 = Cn + Q + 1, *C2 = R2 + P + 1;
    if (uni) {
        wpart_i_uniform_cuts(A->n1, P, Rn);
    } else {
        memcpy(Rn, rows, (size_t)(P + 1) * sizeof(int64_t));
    }
    wpart_i_uniform_cuts(A->n2, Q, Cn);
    int race = !(uni && heavy);
    wpart_rg_opts_t o = {RF_NIC_PATIENCE, max_half, 0, race, race ? 0.5 : 0.0, lower, 0,
                         max_half, g->ctl, *inc, 0};
    WPART_CHECK(wpart_i_rect_from(g, t0, 1, 0, Rn, Cn, &o, R2, C2, &v, NULL, timed_out));
    rg_keep(P, Q, R2, C2, v, R, C, inc);
cleanup:
    free(S);
    return st;
}

/* the joint-bound start's half-sweeps (at most; the bound is reached in the first or never;
 * from RF_PIECE_MIN blocks, where the piece start follows it, one) */
#define RF_JOINT_HALF 2

/* the joint-bound start (heavy-line matrices, from RF_BIG_MIN blocks): the cuts of the joint
 * bound of side jd's heaviest lines for the other dimension, uniform cuts for side jd, whose
 * balanced half-sweeps set side jd first. A grid at the proven lower bound is optimal: then it
 * goes to R, C (on bench_spatial_fresh's heavy-line matrices at 8 x 32 in one half-sweep, where
 * the race, the nic members and the kick took 1-6 ms to reach it); else the starts run as
 * without it and it is kept where it is below all of theirs (S: 2 (P + Q + 2) int64 of
 * scratch; its grid in the second P + Q + 2) */
static wpart_status_t rf_joint_start(rg_ctx_t *g, double t0, int jd, const int64_t *jcuts,
                                     int64_t max_half, double lower, int64_t *S, int64_t *R,
                                     int64_t *C, double *v, int64_t *halves, int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    int64_t P = g->P[0], Q = g->P[1];
    int64_t *Rj = S, *Cj = Rj + P + 1, *R2 = Cj + Q + 1, *C2 = R2 + P + 1;
    if (jd == 0) {
        wpart_i_uniform_cuts(g->A->n1, P, Rj);
        memcpy(Cj, jcuts, (size_t)(Q + 1) * sizeof(int64_t));
    } else {
        memcpy(Rj, jcuts, (size_t)(P + 1) * sizeof(int64_t));
        wpart_i_uniform_cuts(g->A->n2, Q, Cj);
    }
    int64_t jh = g->P[0] * g->P[1] >= RF_PIECE_MIN ? 1 : RF_JOINT_HALF;
    wpart_rg_opts_t o = {1, max_half < jh ? max_half : jh, 1, 0, 0.0,
                         lower, 0, max_half, g->ctl, 0.0, 0};
    *halves = 0;
    WPART_CHECK(wpart_i_rect_from(g, t0, 1, jd == 0 ? 1 : 0, Rj, Cj, &o, R2, C2, v, halves,
                                  timed_out));
    if (*v <= lower) { /* optimal, also when the time limit struck after it */
        memcpy(R, R2, (size_t)(P + 1) * sizeof(int64_t));
        memcpy(C, C2, (size_t)(Q + 1) * sizeof(int64_t));
    }
cleanup:
    return st;
}

/* run slot 0 (the diagonal start) moved behind the other nu - 1 (tr, tc: P + 1, Q + 1 of
 * scratch): on heavy-line matrices the stored-entry and uniform starts come near the bound
 * (often reach it) in a half-sweep or two, the diagonal one after several */
static void rf_first_last(int64_t nu, int64_t P, int64_t Q, int64_t *R0, int64_t *C0,
                          int32_t *first, int64_t *uniq, int64_t *tr, int64_t *tc)
{
    size_t rn = (size_t)(P + 1) * sizeof(int64_t), cn = (size_t)(Q + 1) * sizeof(int64_t);
    int32_t f = first[0];
    int64_t u = uniq[0];
    memcpy(tr, R0, rn);
    memcpy(tc, C0, cn);
    memmove(R0, R0 + (P + 1), (size_t)(nu - 1) * rn);
    memmove(C0, C0 + (Q + 1), (size_t)(nu - 1) * cn);
    memcpy(R0 + (nu - 1) * (P + 1), tr, rn);
    memcpy(C0 + (nu - 1) * (Q + 1), tc, cn);
    for (int64_t k = 0; k + 1 < nu; k++) {
        first[k] = first[k + 1];
        uniq[k] = uniq[k + 1];
    }
    first[nu - 1] = f;
    uniq[nu - 1] = u;
}

/* the stage clock: stage k of the default ended now (t0: the call's start) */
static void rf_mark(wpart_rg_auto_t *out, int k, double t0)
{
    out->stage[k] = wpart_i_now() - t0;
}

wpart_status_t wpart_i_rect_nicol_auto_body(const wpart_rg_csr_t *A, const int64_t *iv,
                                            int64_t P, int64_t Q, int64_t max_half,
                                            const wpart_control_t *control,
                                            wpart_rg_auto_t *out)
{
    wpart_status_t st = WPART_OK;
    double t0 = wpart_i_now();
    int64_t nnz = A->rp[A->n1];
    for (int k = 0; k < WPART_RF_NST; k++) {
        out->stage[k] = -1.0;
    }
    rg_ctx_t g;
    memset(&g, 0, sizeof g);
    double *w = NULL, *load[2] = {NULL, NULL}, *buf = NULL, val[RF_N + 1], mx;
    int64_t *R0 = NULL, *C0 = NULL, *Ru = NULL, *Cu = NULL, *tmp = NULL, *J = NULL, *Jp = NULL;
    int64_t halves[RF_N + 1];
    int64_t twin[RF_N];
    int64_t uniq[RF_N], nu = 0;
    int32_t first[RF_N], state[RF_N + 1];
    int ones;
    out->timed_out = 0;
    out->lower = 0.0;
    int stop = 0;
    /* (a canonical scipy matrix may still hold indices out of range: its flag does not
     * check them) */
    WPART_CHECK(wpart_i_spatial_check_csr(A->rp, A->ci, A->n1, A->n2, nnz));
    /* int values without the caller's float64 copy (A->w with iv): converted in the value
     * check's pass where the first is not 1 (then not all are 1, which need no weights) */
    if (iv && !A->w && nnz > 0 && iv[0] != 1) {
        w = wpart_i_malloc(nnz, sizeof(double));
        if (!w) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
        }
    }
    out->bad = rf_check(nnz, iv, A->w, &out->amax, &out->iamax, &out->itotal, &ones, control,
                        &stop, w);
    if (stop) {
        WPART_FAIL(WPART_ECANCELLED, "stopped on request");
    }
    if (out->bad) {
        goto cleanup;
    }
    wpart_rg_csr_t B = *A; /* float weights, NULL when every entry weighs 1 */
    if (ones || nnz == 0) {
        B.w = NULL;
    } else if (w) {
        B.w = w;
    } else if (iv && !A->w) { /* (A->w with iv: the caller's float64 copy of the values) */
        w = wpart_i_malloc(nnz, sizeof(double));
        if (!w) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
        }
        for (int64_t e = 0; e < nnz; e++) {
            w[e] = (double)iv[e];
        }
        B.w = w;
    }
    /* (int64 values converted here: whole, and rf_check's exact total says whether their sums
     * stay exact; rg_open's pass over them not needed: 4 % of a 14,870-entry call at 8 x 8) */
    WPART_CHECK(wpart_i_rg_open(&g, &B, P, Q, control,
                                B.w && B.w == w ? out->itotal < ((int64_t)1 << 53) : -1));
    load[0] = g.line[0]; /* the row and column loads */
    load[1] = g.line[1];
    /* one scratch for the diagonal's index loads and their prefix (nd and nd + 1 doubles: the
     * context's X holds fewer at P = Q = 1), then the bound's heavy lines, then the stored
     * entries per row (fewer fresh pages than one array each) */
    int64_t shift = wpart_i_rg_offset(A);
    int64_t nd = (A->n1 > A->n2 ? A->n1 : A->n2) + (shift < 0 ? -shift : shift);
    buf = wpart_i_malloc(2 * nd + 1, sizeof(double));
    tmp = wpart_i_malloc(2 * (P + Q), sizeof(int64_t));
    R0 = wpart_i_malloc((RF_N + 1) * (P + 1), sizeof(int64_t)); /* the starts', then nic's */
    C0 = wpart_i_malloc(RF_N * (Q + 1), sizeof(int64_t));
    J = wpart_i_malloc(2 * (P + Q + 2) + (P > Q ? P : Q) + 1, sizeof(int64_t));
    if (!buf || !tmp || !R0 || !C0 || !J) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
    }
    /* the starts of _nicol.AUTO, all balanced: diag_interleaved, rows_stored (SARMA nic's
     * own: the rows from the stored entries per row, the columns set first), rows_uniform,
     * cols_uniform (first bit 0: which dimension is set first) */
    int64_t *Rnic = R0 + RF_N * (P + 1); /* (the starts' moves below stay in the first RF_N) */
    wpart_i_rect_diagonal(A->n1, A->n2, P, Q, load[0], load[1], shift, wpart_i_rg_corner(A),
                          g.integral, buf, buf + nd, tmp, R0, C0);
    /* the lower bound (its first step, the exact 1D partition of the row loads, is SARMA nic's
     * start where every entry weighs 1: the row loads are then the stored entries per row) */
    int heavy_line = 0, jd = -1, jdone = 0;
    int64_t *jc = J + 2 * (P + Q + 2);
    out->lower = wpart_i_rect_lower(&g, (const double **)load, iv ? out->amax : -1.0, buf,
                                    tmp, &heavy_line, jc, &jd, B.w ? NULL : Rnic, &st);
    if (st != WPART_OK) {
        goto cleanup;
    }
    if (B.w) {
        for (int64_t i = 0; i < A->n1; i++) {
            buf[i] = (double)(A->rp[i + 1] - A->rp[i]);
        }
        rf_oned(&g, buf, A->n1, P, Rnic, tmp);
    }
    memcpy(R0 + (P + 1), Rnic, (size_t)(P + 1) * sizeof(int64_t));
    wpart_i_uniform_cuts(A->n2, Q, C0 + (Q + 1));
    for (int s = 2; s < RF_N; s++) {
        wpart_i_uniform_cuts(A->n1, P, R0 + s * (P + 1));
        wpart_i_uniform_cuts(A->n2, Q, C0 + s * (Q + 1));
    }
    first[0] = 2;
    first[1] = 2;
    first[2] = 2;
    first[3] = 3;
    /* a dense load matrix: the loads' 1D partitions take the uniform starts' places
     * (rows_load, cols_load; wpart_i_rg_load_starts; measured in docs/spatial.rst) */
    out->load_starts = wpart_i_rg_load_starts(nnz, A->n1, A->n2);
    if (out->load_starts) {
        rf_oned(&g, load[0], A->n1, P, R0 + 2 * (P + 1), tmp);
        rf_oned(&g, load[1], A->n2, Q, C0 + 3 * (Q + 1), tmp);
    }
    /* from RF_NIC_MIN blocks rows_stored (slot 1) is no start of the race: SARMA nic's member
     * runs from the same cuts below (rf_nic), and without it in the race the counts of max
     * loads <= the best of SARMA's nine stay (RF_RACE above); below, where no nic member runs,
     * h_plaw_900 values 4 x 4 needs it (673 without, that best 666). Not run: state 2 */
    int drop1 = P * Q >= RF_NIC_MIN;
    for (int s = 0; s < RF_N; s++) { /* a start equal to an earlier one is not run again */
        out->ref[s] = s;
        if (s == 1 && drop1) {
            continue;
        }
        for (int t = 0; t < s && out->ref[s] == s; t++) {
            if (t == 1 && drop1) {
                continue;
            }
            if (first[s] == first[t] && rg_same_grid(P, Q, R0 + s * (P + 1), C0 + s * (Q + 1),
                                                     R0 + t * (P + 1), C0 + t * (Q + 1))) {
                out->ref[s] = t;
            }
        }
        if (out->ref[s] == s) {
            if (nu != s) {
                memmove(R0 + nu * (P + 1), R0 + s * (P + 1), (size_t)(P + 1) * sizeof(int64_t));
                memmove(C0 + nu * (Q + 1), C0 + s * (Q + 1), (size_t)(Q + 1) * sizeof(int64_t));
                first[nu] = first[s];
            }
            uniq[nu++] = s;
        }
    }
    rf_mark(out, WPART_RF_ST_SETUP, t0);
    out->joint_halves = -1;
    out->piece_halves = -1;
    out->piece = RG_INF;
    out->piece_state = 2;
    int piece = heavy_line && P * Q >= RF_PIECE_MIN, near = 0, skip = 0;
    if (jd >= 0 && P * Q >= RF_BIG_MIN && !out->timed_out) {
        WPART_CHECK(rf_joint_start(&g, t0, jd, jc, max_half, out->lower, J, out->R, out->C,
                                   &out->joint, &out->joint_halves, &out->timed_out));
        jdone = out->joint <= out->lower; /* (_nicol._auto_stats reads it the same way) */
    }
    int big = P * Q >= RF_BIG_MIN, banded = 0;
    if (jdone) { /* the optimum: no start runs */
        for (int64_t k = 0; k <= nu; k++) {
            val[k] = RG_INF;
            halves[k] = 0;
            state[k] = 2;
        }
    } else {
        /* a heavy-line matrix: the diagonal start last and a loose race (its first
         * half-sweeps can be far above a grid it ends below; _nicol.nicol_engine: the same) */
        int last = heavy_line && nu > 1 && P * Q <= RF_LAST_MAX;
        if (last) {
            rf_first_last(nu, P, Q, R0, C0, first, uniq, out->R, out->C);
            /* ... and SARMA nic's own start (rows_stored) after the uniform ones: it ends
             * far above them there (about 2 x; plaw_2600_z stored 16 x 16: 205 after 14
             * half-sweeps as the first start, with no grid to race, against 113), so the
             * race drops it after 2 half-sweeps (bench_spatial_fresh, paired runs: the
             * same 334 max loads, the power-law cases' CPU 1.6 % lower; within the noise
             * of one --set both rerun) */
            if (nu > 2 && !drop1) {
                rf_first_last(nu - 1, P, Q, R0, C0, first, uniq, out->R, out->C);
            }
        }
        int64_t h1 = rg_sarma_patience(P, Q);
        int64_t cont = !big ? RF_SHORT_PATIENCE : P * Q < RF_MID_MAX ? RF_MID_PATIENCE
                                                                     : RF_LONG_PATIENCE;
        banded = !last && wpart_i_rg_banded(A, P, Q, shift);
        wpart_rg_opts_t opt = {2, max_half < h1 ? max_half : h1, 0, 1,
                               last ? RF_RACE_HEAVY : big ? RF_RACE_BIG : RF_RACE, out->lower,
                               cont, max_half, control, 0.0, banded};
        if (piece && !out->timed_out) {
            Jp = wpart_i_malloc(3 * (P + Q + 2), sizeof(int64_t));
            if (!Jp) {
                WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
            }
            wpart_rg_opts_t po = opt; /* (the loose race of a heavy-line matrix's starts) */
            po.slack = RF_PIECE_RACE;
            double pb;
            WPART_CHECK(wpart_i_rect_piece(&g, t0, &po, Jp + (P + Q + 2), Jp, Jp + P + 1,
                                           &out->piece, &out->piece_halves, &pb,
                                           &out->timed_out));
            near = out->piece <= RF_PIECE_NEAR * out->lower ||
                   out->piece <= RF_PIECE_NEAR_P * pb;
            if (pb > out->lower) {
                out->lower = pb;
                opt.lower = pb;
            }
        }
        skip = near || (out->piece < RG_INF && out->piece <= RF_PIECE_MID * out->lower);
        if (skip) { /* the result, or the grid the stages continue: no other start runs
                     * (state 2) */
            for (int64_t k = 0; k <= nu; k++) {
                val[k] = RG_INF;
                halves[k] = 0;
                state[k] = 2;
            }
            memcpy(out->R, Jp, (size_t)(P + 1) * sizeof(int64_t));
            memcpy(out->C, Jp + P + 1, (size_t)(Q + 1) * sizeof(int64_t));
            out->piece_state = near ? 0 : 3;
        } else {
            WPART_CHECK(wpart_i_rg_run(&g, t0, nu, R0, C0, first, &opt, out->R, out->C, val,
                                       halves, state, twin, &out->timed_out));
        }
    }
    rf_mark(out, WPART_RF_ST_STARTS, t0);
    double inc = jdone ? out->joint : skip ? out->piece : RG_INF;
    for (int64_t k = 0; k <= nu; k++) {
        inc = val[k] < inc ? val[k] : inc;
    }
    if (!jdone && out->joint_halves >= 0 && out->joint < inc) {
        /* the joint-bound start's grid (J's second slot, rf_joint_start) below every start's:
         * the grid the stages below continue (bench_spatial_fresh's power-law matrices at
         * 16 x 16 - 64 x 64: 15 cases where it was, 5 of them ending lower, e.g.
         * plaw_2600_z count 32 x 32 46 -> 45, h_plaw_3100_z stored 32 x 32 59 -> 57; none
         * higher; as the starts' incumbent too it cost tumorAntiAngiogenesis_1 ~10 % more,
         * for one case lower) */
        memcpy(out->R, J + (P + Q + 2), (size_t)(P + 1) * sizeof(int64_t));
        memcpy(out->C, J + (P + Q + 2) + P + 1, (size_t)(Q + 1) * sizeof(int64_t));
        inc = out->joint;
    }
    for (int s = 0; s < RF_N; s++) { /* back to the four starts */
        if (s == 1 && drop1) {
            out->val[s] = RG_INF;
            out->halves[s] = 0;
            out->state[s] = 2;
            continue;
        }
        int64_t k = 0;
        while (uniq[k] != out->ref[s]) {
            k++;
        }
        out->val[s] = val[k];
        out->halves[s] = halves[k];
        out->state[s] = out->ref[s] != s ? WPART_RF_SAME : state[k];
        if (out->ref[s] == s && state[k] == 4) {
            out->ref[s] = uniq[twin[k]];
        }
    }
    out->val[RF_N] = val[nu];
    out->halves[RF_N] = halves[nu];
    out->state[RF_N] = state[nu];
    wpart_i_rect_rand_none(out);
    if (!near && !jdone && !out->timed_out && !banded && wpart_i_rect_rand_grid(P, Q) &&
        inc > out->lower) {
        double low[2];
        wpart_i_rect_rand_low(out->val, out->state, RF_N, low);
        WPART_CHECK(wpart_i_rect_random(&g, t0, max_half, out->lower, low, out->R, out->C, &inc,
                                        out, &out->timed_out));
        rf_mark(out, WPART_RF_ST_RANDOM, t0);
    }
    int uni0 = P * Q >= RF_NIC_MIN ? 0 : 1, uni1 = banded ? 0 : P * Q < RF_UNI_MAX ? 2 : 1;
    for (int uni = uni0; !near && uni < uni1 && !out->timed_out && big && inc > out->lower;
         uni++) {
        /* SARMA's nic, then nicuni, racing the best grid (on the fresh reference set 5 more
         * cases <= the best of SARMA's nine; they end lower where the balanced half-sweeps
         * stall) */
        WPART_CHECK(rf_nic(&g, uni, Rnic, heavy_line, t0, max_half, out->lower, out->R,
                           out->C, &inc, &out->timed_out));
        rf_mark(out, WPART_RF_ST_NIC, t0);
    }
    out->moves = -1;
    if (!near && !out->timed_out && big && inc > out->lower) {
        /* rect_polish.c's cut moves from the best grid (never worse), on grids of 64 blocks
         * and more (where the half-sweeps' fixed points leave SGO-class gains) */
        WPART_CHECK(wpart_i_rg_csc(&g));
        wpart_rg_csr_t At = {A->n2, A->n1, g.side[1].ptr, g.side[1].idx, g.side[1].w};
        double pv;
        WPART_CHECK(wpart_i_rect_polish_g(&g, &B, &At, P, Q, out->R, out->C, 20, control, &pv,
                                        &out->moves, &out->timed_out));
        out->polished = pv;
        rf_mark(out, WPART_RF_ST_MOVES, t0);
    }
    out->kick_iters = -1;
    if (!out->timed_out && out->moves >= 0 && out->polished > out->lower) {
        /* rect_polish.c's SGO kick (SARMA's sgo_2dr_nic idea) from RF_KICK_MIN blocks: the
         * subgradient method from the uniform grid, half-sweeps from its grid racing ours,
         * the cut moves of a lower grid; R, C change only to a strictly lower grid (below:
         * 0 iterations) */
        out->kicked = out->polished;
        out->kick_iters = 0;
        out->kick_halves = 0;
        if (P * Q >= RF_KICK_MIN) {
            int nk = P == Q && P * Q < RF_KICK_RECT && !heavy_line &&
                     out->polished < RF_KICK_GAP * out->lower;
            int64_t its = P != Q && P * Q < RF_KICK_RECT ? 0 : nk ? RF_KICK_NEAR_ITS : 100;
            WPART_CHECK(wpart_i_rect_kick(&g, t0, its, max_half, out->lower, heavy_line,
                                          nk ? RK_FROM_ONLY : 1,
                                          out->R, out->C, &out->kicked, &out->kick_iters,
                                          &out->kick_halves, &out->timed_out));
            rf_mark(out, WPART_RF_ST_KICK, t0);
        }
        if (!out->timed_out && out->kicked > out->lower) {
            /* plain half-sweeps from the best grid (on the fresh reference set 7 more cases
             * <= the best of SARMA's nine, where the balanced ones stall) */
            WPART_CHECK(wpart_i_rect_plain(&g, &B, t0, max_half, out->lower, out->R,
                                           out->C, &out->kicked, &out->timed_out));
            rf_mark(out, WPART_RF_ST_PLAIN, t0);
        }
    }
    if (!skip && out->piece < RG_INF) {
        /* the piece start's grid where lower than the one the stages reached */
        double mf;
        int64_t *il = wpart_i_malloc(P * Q, sizeof(int64_t));
        double *fl = wpart_i_malloc(P * Q, sizeof(double));
        if (!il || !fl) {
            free(il);
            free(fl);
            WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
        }
        mf = rf_grid_max(&g, A, iv, out->R, out->C, out->timed_out, il, fl);
        free(il);
        free(fl);
        if (out->piece < mf) {
            memcpy(out->R, Jp, (size_t)(P + 1) * sizeof(int64_t));
            memcpy(out->C, Jp + P + 1, (size_t)(Q + 1) * sizeof(int64_t));
            out->piece_state = 1;
        }
    }
    if (out->timed_out || out->load_starts || banded || skip) {
        /* never worse than the uniform grid: a start may not have moved (the time limit), or no
         * uniform start ran (the load starts in their places on a dense matrix, the diagonal
         * start alone on a banded one, the piece start alone near the bound or in the others'
         * place), whose first half-sweep is at most the uniform grid's (a dense 7 x 11 matrix
         * at 3 x 6 ended at 10 against the uniform grid's 9) */
        double mu, mg;
        int64_t *il = wpart_i_malloc(P * Q, sizeof(int64_t));
        double *fl = wpart_i_malloc(P * Q, sizeof(double));
        Ru = wpart_i_malloc(P + 1, sizeof(int64_t));
        Cu = wpart_i_malloc(Q + 1, sizeof(int64_t));
        if (!il || !fl || !Ru || !Cu) {
            free(il);
            free(fl);
            WPART_FAIL(WPART_ENOMEM, "out of memory in RECT-NICOL");
        }
        wpart_i_uniform_cuts(A->n1, P, Ru);
        wpart_i_uniform_cuts(A->n2, Q, Cu);
        mg = rf_grid_max(&g, A, iv, out->R, out->C, out->timed_out, il, fl);
        int below = rf_below(A, iv, A->w, P, Q, Ru, Cu, g.map, il, fl, mg, &mu);
        free(il);
        free(fl);
        if (below) {
            memcpy(out->R, Ru, (size_t)(P + 1) * sizeof(int64_t));
            memcpy(out->C, Cu, (size_t)(Q + 1) * sizeof(int64_t));
            out->load_starts |= 4;
        }
    }
    if (out->iloads || out->floads) {
        /* from the last half-sweep's prefix when it was made for this grid (exact sums) */
        if (wpart_i_rg_loads(&g, out->R, out->C, out->iloads, out->floads)) {
            if (out->rects) {
                wpart_i_emit_grid(out->R, P, out->C, Q, out->rects);
            }
        } else {
            rf_loads(A, iv, A->w, P, Q, out->R, out->C, g.map, out->iloads, out->floads,
                     out->rects, &mx);
        }
    }
    rf_mark(out, WPART_RF_ST_END, t0);
cleanup:
    wpart_i_rg_close(&g);
    free(w);
    free(buf);
    free(tmp);
    free(R0);
    free(C0);
    free(J);
    free(Jp);
    free(Ru);
    free(Cu);
    return st;
}
