/*
 * wpart/dynamic_baselines.h -- the baselines of wpart.dynamic, part of
 * wpart/dynamic.h. Every one is a balancer of the common protocol (dynamic_balancer.h), so it
 * runs unchanged in the simulator and in real execution, and every element is dispatched
 * exactly once. Greedy and Static are declared in dynamic_balancer.h (StarPU's `eager` is
 * Greedy).
 *
 * Block kinds: blocks that only serve to learn speeds (HDSS's adaptive rounds, NaiveProfile's
 * profiling blocks) are WPART_DYN_BLK_TRAIN; every other baseline block is
 * WPART_DYN_BLK_OTHER. HDSS and AcostaRP carry their round / step number (1, 2, ...) in
 * `vstep` (0 for HDSS's completion phase).
 */
#ifndef WPART_DYNAMIC_BASELINES_H
#define WPART_DYNAMIC_BASELINES_H

#include <stdint.h>

#include "wpart/dynamic_balancer.h"
#include "wpart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- HDSS (the wpart reconstruction) ---- */

typedef struct {
    int64_t x_init;        /* first adaptive block, 1024; round r gives x_init * 2^r */
    double eps;            /* convergence: theta_r < (1 + eps) theta_{r-1} (0.10) */
    int32_t rounds_max;    /* at most this many adaptive rounds (5) */
    double adapt_fraction; /* phase 1 stops before it would dispatch more than this share (0.20) */
    double kappa;          /* completion chunk = ceil(w_p R / kappa) (2.0) */
    int64_t min_chunk;     /* completion chunk floor b_min_h (x_init / 4 = 256) */
} wpart_dynamic_hdss_cfg_t;

/** Fills the defaults. */
void wpart_dynamic_hdss_cfg_default(wpart_dynamic_hdss_cfg_t *c);

/**
 * HDSS. Phase 1 (adaptive): synchronous rounds; PU p gets x_init * 2^r in round r until it
 * converges (its throughput grew by less than eps), then keeps its last size; every round
 * ends at a barrier. Phase 1 ends at a barrier when every PU has converged, after rounds_max
 * rounds, or when the next round would take the dispatched data beyond adapt_fraction * total.
 * The weights w_p (least squares theta = c + d ln b on p's round points, evaluated at p's last
 * size, clamped to >= p's smallest observed throughput, normalised to sum 1) are computed by
 * one evaluation (EVAL with trigger_pu = -1: every PU waits). Phase 2 (completion, no
 * barriers): an idle PU takes min(R, max(min_chunk, ceil(w_p R / kappa))) of the R remaining
 * elements. The phase-1 weights are the balancer's shares (x 100).
 */
wpart_status_t wpart_dynamic_hdss_new(int32_t n_pu, int64_t total,
                                      const wpart_dynamic_hdss_cfg_t *cfg,
                                      wpart_dynamic_balancer_t **out);

/** HDSS's phase-1 weights (n values summing to 1). Returns 0, or 1 before they exist. */
int wpart_dynamic_hdss_weights(const wpart_dynamic_balancer_t *b, double *w);

/* ---- AcostaRP ---- */

/**
 * Synchronous steps of `step` elements (the last step takes what remains), starting from
 * equal shares. After each step (a barrier), with t_p the measured time of PU p's block,
 * RP_p = x_p / t_p and, if (max t - min t) / max t > threshold, x_p <- step * RP_p / sum RP
 * (largest-remainder rounding; every PU keeps >= 1 element while step >= n_pu). With
 * eval_at_barrier, each barrier also issues an EVAL (trigger -1) so that a driver charges an
 * evaluation cost to every PU; by default the redistribution is free. The split of every
 * step is published in the series (row per step: t, step, NaN, step volume, x).
 */
wpart_status_t wpart_dynamic_acosta_new(int32_t n_pu, int64_t total, int64_t step,
                                        double threshold, int eval_at_barrier,
                                        wpart_dynamic_balancer_t **out);

/* ---- NaiveProfile ---- */

/**
 * Each PU first runs x_init elements (one barrier), giving rates r_p = x_init / t_p; the
 * remaining data is then split statically proportionally to r_p (largest remainder), one
 * block per PU. The rates are the shares.
 */
wpart_status_t wpart_dynamic_naive_new(int32_t n_pu, int64_t total, int64_t x_init,
                                       wpart_dynamic_balancer_t **out);

/* ---- Asymmetric ---- */

/**
 * A shared pool like Greedy: a CPU PU takes g_cpu elements whenever it is free, a GPU or PHI
 * PU takes ratio * g_cpu. kinds[p] is a wpart_dynamic_pu_kind_t.
 */
wpart_status_t wpart_dynamic_asymmetric_new(int32_t n_pu, int64_t total, const int32_t *kinds,
                                            int64_t g_cpu, int64_t ratio,
                                            wpart_dynamic_balancer_t **out);

/* ---- StaticPeak ---- */

/**
 * One block per PU, proportional to the nominal peak rates (n finite values >= 0, at least
 * one positive), by largest remainder (ties to the lowest index).
 */
wpart_status_t wpart_dynamic_static_peak_new(int32_t n_pu, int64_t total,
                                             const double *peak_rates,
                                             wpart_dynamic_balancer_t **out);

/* ---- DmdaLike (StarPU dmda-style) ---- */

/**
 * The data is pre-split into pieces of `chunk` elements (the last one takes what remains),
 * all pushed at start in order: piece k goes to argmin_p (avail_p + E_p) (ties to the lowest
 * p), avail_p += E_p, where E_p = piece_times[p] * size / chunk is PU p's estimated time of
 * the piece (piece_times[p] finite > 0: the calibrated time of one full piece on p). Each PU
 * runs its queue in FIFO order; completions change nothing. One start writes every piece,
 * so max_actions is the number of pieces plus n + 1 (at most 2^26 pieces).
 */
wpart_status_t wpart_dynamic_dmda_new(int32_t n_pu, int64_t total, const double *piece_times,
                                      int64_t chunk, wpart_dynamic_balancer_t **out);

/* ---- FixedBlocks (the oracle's repeated equal-time shares) ---- */

/**
 * PU p takes blocks[p] elements from the cursor (or what remains) each time it is free;
 * a PU with blocks[p] = 0 gets nothing. With sync = 0 there is no synchronisation; with
 * sync = 1 every PU gets its block of step k at once and the next step starts when every
 * block of step k has finished (one barrier per step).
 */
wpart_status_t wpart_dynamic_fixed_blocks_new(int32_t n_pu, int64_t total, const int64_t *blocks,
                                              int sync, wpart_dynamic_balancer_t **out);

/**
 * Splits total into n integer parts proportional to the weights (finite, >= 0, positive sum)
 * by largest remainder: floor(total w_p / sum w) first, then one element each to the largest
 * fractional parts (ties to the lowest index). out receives n values summing to total.
 */
wpart_status_t wpart_dynamic_split_proportional(int32_t n, int64_t total, const double *w,
                                                int64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* WPART_DYNAMIC_BASELINES_H */
