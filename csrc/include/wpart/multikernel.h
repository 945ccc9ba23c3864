/*
 * wpart/multikernel.h -- decisions of multi-kernel runs split over CPUs and GPUs [Soldado 2016].
 *
 * Pure functions and small state machines, no event loop: the quantum of an execution and
 * SPLIT (shares -> contiguous partitions that respect every quantum), the static distribution
 * among GPUs and the empty-base seed, the level of parallelism, GPU occupancy and work-group
 * candidates, the bisection share generator of profile construction, the discard rule of the
 * configuration search (fission > overlap > work-group size), the imbalance detector
 * (weighted moving average of the balance ratio against the maximum deviation), the adaptive
 * binary search that rebalances the CPU/GPU share, and the exact polyharmonic RBF
 * interpolation (with its fall-backs) that derives a share for an unseen workload.
 *
 * Every function validates its input and returns WPART_EINVAL (with a detail naming the
 * argument) instead of aborting. Prefix: wpart_multikernel_.
 */
#ifndef WPART_MULTIKERNEL_H
#define WPART_MULTIKERNEL_H

#include <stdint.h>

#include "wpart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- partitioning ---------- */

/** q = lcm over i of b[i] / gcd(a[i], b[i]): the smallest n >= 1 with n*a[i] a multiple of
 *  b[i] for every i (n = 0 constraints give q = 1). a[i], b[i] >= 1. EOVERFLOW past int64. */
wpart_status_t wpart_multikernel_quantum(int32_t n, const int64_t *a, const int64_t *b, int64_t *q_out);

/**
 * SPLIT: cuts `total` units into P contiguous partitions in execution order.
 * shares: P finite values >= 0 with a positive sum (normalised by it); quanta: P values >= 1.
 * Every partition is a multiple of its quantum except the last one with a positive share,
 * which also takes the sub-quantum remainder (less than the smallest quantum of the executions
 * with a positive share). A zero share gives an empty partition. The rounding follows the
 * largest remainder in units of quanta (ties: lowest index). O(P log P) (a sort, then linear
 * passes with whole cycles given at once), independent of `total`. sizes_out/offsets_out: P
 * values each (offsets: exclusive prefix sum).
 */
wpart_status_t wpart_multikernel_split(int64_t total, int32_t P, const double *shares,
                              const int64_t *quanta, int64_t *sizes_out, int64_t *offsets_out);
/** wpart_multikernel_split polling the control hooks `ctl` (Ctrl-C, time limit; NULL: none). */
wpart_status_t wpart_multikernel_split_ctl(int64_t total, int32_t P, const double *shares,
                                           const int64_t *quanta, int64_t *sizes_out,
                                           int64_t *offsets_out, const wpart_control_t *ctl);

/** Exclusive prefix sum of n int64 values (out may alias in); EOVERFLOW past int64. */
wpart_status_t wpart_multikernel_exclusive_scan(int32_t n, const int64_t *in, int64_t *out);

/** Level of parallelism: [cpu_used] * cpu_subdevices + [gpu_used] * overlap * n_gpus. */
wpart_status_t wpart_multikernel_level_of_parallelism(int32_t cpu_subdevices, int32_t overlap,
                                             int32_t n_gpus, int cpu_used, int gpu_used,
                                             int64_t *lop_out);

/* ---------------------------------------------------------------- static distribution --- */

/** Empty-base seed s0 = sum(gpu_score) / (sum(gpu_score) + cpu_score); scores >= 0, finite,
 *  positive total. n_gpu may be 0 (s0 = 0). */
wpart_status_t wpart_multikernel_seed_share(int32_t n_gpu, const double *gpu_score, double cpu_score,
                                   double *s_out);

/** Per-GPU fractions s * score[g] / sum(score) (static, by install-time scores). */
wpart_status_t wpart_multikernel_gpu_fractions(int32_t n_gpu, const double *gpu_score, double s,
                                      double *frac_out);

/** Per-execution shares in the execution order of SPLIT: GPU 1 slots 1..overlap, GPU 2 ...,
 *  then the cpu_subdevices CPU sub-devices, each (1 - s) / cpu_subdevices. Writes
 *  n_gpu * overlap + cpu_subdevices values. */
wpart_status_t wpart_multikernel_exec_shares(double s, int32_t n_gpu, const double *gpu_score,
                                    int32_t overlap, int32_t cpu_subdevices, double *phi_out);

/* ---------------------------------------------------------------- occupancy ------------- */

typedef struct {
    int32_t wavefront, simds_cu, max_waves_simd, max_waves_cu, max_wg_cu, lds_cu, vgprs_lane,
        max_wgs;
} wpart_multikernel_gpu_caps_t;

/** AMD GCN (HD 7950) defaults: 64, 4, 10, 40, 16, 65536, 256, 256. */
void wpart_multikernel_gpu_caps_default(wpart_multikernel_gpu_caps_t *caps);

/** Occupancy in [0, 1] of a work-group size (1..max_wgs) with lds_per_wg bytes of local
 *  memory and vgpr_per_thread registers (>= 1). */
wpart_status_t wpart_multikernel_occupancy(const wpart_multikernel_gpu_caps_t *caps, int32_t wgs,
                                  int32_t lds_per_wg, int32_t vgpr_per_thread, double *occ_out);

/** Work-group size candidates: multiples of the wavefront up to max_wgs whose occupancy is
 *  >= threshold, by non-increasing occupancy, ties to the larger size; when none reaches the
 *  threshold, only the one with the highest occupancy. Writes at most cap entries; *count_out
 *  is the number written. */
wpart_status_t wpart_multikernel_wgs_candidates(const wpart_multikernel_gpu_caps_t *caps, int32_t lds_per_wg,
                                       int32_t vgpr_per_thread, double threshold,
                                       int32_t *wgs_out, double *occ_out, int32_t cap,
                                       int32_t *count_out);

/* ---------------------------------------------------------------- bisection generator --- */

typedef struct {
    double g, c, X, x_min; /* bound to GPU, bound to CPU, transferable; g + c + X = 1 */
    int32_t iter, exhausted;
} wpart_multikernel_bisect_t;

wpart_status_t wpart_multikernel_bisect_init(wpart_multikernel_bisect_t *b, double x_min);
/** The candidate GPU share g + X/2. */
double wpart_multikernel_bisect_candidate(const wpart_multikernel_bisect_t *b);
/** Feedback of the times measured with the candidate; *exhausted_out = 1 when done. */
wpart_status_t wpart_multikernel_bisect_feedback(wpart_multikernel_bisect_t *b, double t_gpu, double t_cpu,
                                        int *exhausted_out);

/* ---------------------------------------------------------------- configuration search -- */

/* The nested configuration search of profile construction (fission outermost, then overlap,
 * then work-group size), each dimension in its iterator order, with the discard rule: a
 * dimension stops at the first candidate whose best time does not beat the previous
 * candidate's. The caller asks next() for the (f, o, w) indices to evaluate and reports the
 * best time it measured for them. */
typedef struct {
    int32_t nf, no, nw;            /* candidates per dimension */
    int32_t f, o, w;               /* indices of the configuration to evaluate next */
    double prev_f, prev_o, prev_w; /* best of the previous candidate of each dimension */
    double best_f, best_o;         /* best inside the current fission / overlap candidate */
    double best;                   /* best over everything evaluated */
    int32_t best_fi, best_oi, best_wi;
    int32_t done, evaluated;
} wpart_multikernel_search_t;

wpart_status_t wpart_multikernel_search_init(wpart_multikernel_search_t *s, int32_t nf, int32_t no, int32_t nw);
/** The next configuration to evaluate; returns 0 when the search is over (*f = ... = -1). */
int wpart_multikernel_search_next(const wpart_multikernel_search_t *s, int32_t *f, int32_t *o, int32_t *w);
/** Reports the best time measured for the configuration next() gave (finite or +inf, >= 0). */
wpart_status_t wpart_multikernel_search_report(wpart_multikernel_search_t *s, double t);

/* ---------------------------------------------------------------- imbalance detector ---- */

#define WPART_MULTIKERNEL_DET_WMAX 15 /* the longest detector window */

typedef struct {
    double w, max_dev, cf, lbt, last_dev;
    int64_t runs, unbalanced, fired;
    /* the window: the last `window` balance ratios; their median drives lbt and the firing,
     * so that one noisy run neither fires nor hides an imbalance (window 1: the run's own) */
    double win[WPART_MULTIKERNEL_DET_WMAX];
    int32_t window, nwin, pos;
} wpart_multikernel_detector_t;

/** w in (0, 1], max_dev in (0, 1], cf in (0, 1]. lbt starts at 1 / (max_dev * cf). */
wpart_status_t wpart_multikernel_detector_init(wpart_multikernel_detector_t *d, double w, double max_dev,
                                      double cf);
/** Back to the initial history (a new (SCT, workload) pair or a new profile). */
void wpart_multikernel_detector_reset(wpart_multikernel_detector_t *d);
/** Sets the window (1 .. WPART_MULTIKERNEL_DET_WMAX; init gives 1) and resets the history. */
wpart_status_t wpart_multikernel_detector_set_window(wpart_multikernel_detector_t *d,
                                                     int32_t window);
/** Balance ratio min/max of n >= 1 device times (>= 0; an idle active device gives 0; all
 *  zero gives 1). */
wpart_status_t wpart_multikernel_balance_ratio(int32_t n, const double *t_dev, double *ratio_out);
/** One monitored run: updates lbt with the median balance ratio of the window; *fire_out = 1
 *  when lbt < 1 and that median is unbalanced. *dev_out: this run's own ratio. */
wpart_status_t wpart_multikernel_detector_update(wpart_multikernel_detector_t *d, int32_t n, const double *t_dev,
                                        int *fire_out, double *dev_out);

/* ---------------------------------------------------------------- adaptive binary search  */

#define WPART_MULTIKERNEL_ABS_WMAX 15 /* the longest window of the robust search */

typedef struct {
    double s, T, T_init, T_min, T_max, lo, hi, s_prev;
    int32_t phase; /* 0 SHIFT, 1 BISECT, 2 CONVERGED */
    int32_t last_dir, run, nb;
    int32_t bdirs[3];
    int64_t steps;
    /* the robust search (window > 1): the last `window` times per unit of share of each type
     * (t_gpu / s, t_cpu / (1 - s)); a step judges their ceil(window / 3)-th smallest (a low
     * order statistic: noise on a busy machine only adds time) scaled to the current share,
     * so that noisy runs neither turn the search nor reset it. window 1: the paper's. */
    double qg[WPART_MULTIKERNEL_ABS_WMAX], qc[WPART_MULTIKERNEL_ABS_WMAX];
    double band; /* robust: no move while the estimates' ratio min/max is >= band */
    int32_t window, ng, pg, nc, pc;
    int32_t nconv; /* robust: steps taken in the converged state (2 * window restart it) */
} wpart_multikernel_abs_t;

/** s in [0, 1]; 0 < T_min <= T_init <= T_max <= 1. Window 1 (the paper's rule). */
wpart_status_t wpart_multikernel_abs_start(wpart_multikernel_abs_t *a, double s, double T_init, double T_min,
                                  double T_max);
/** Sets the window (1 .. WPART_MULTIKERNEL_ABS_WMAX) and the band in [0, 1), and forgets the
 *  recorded runs. With a window above 1 a step judges the low order statistic of the window's
 *  per-share times (scaled to the current share): it does not move while their ratio min/max is >=
 *  band, and the converged state restarts the shift after a net count of three steps one
 *  way (an opposite step takes one back instead of resetting the count) or after 2 * window
 *  steps whatever their directions (a converged share that keeps being stepped is not
 *  balanced: the search cannot stall there). */
wpart_status_t wpart_multikernel_abs_set_window(wpart_multikernel_abs_t *a, int32_t window,
                                                double band);
/** One balancing step from the type times measured with share s; *s_out is the next share. */
wpart_status_t wpart_multikernel_abs_step(wpart_multikernel_abs_t *a, double t_gpu, double t_cpu, double *s_out);
/** Records a run made with the current share without a step: it joins the window of the
 *  robust search (nothing with window 1). */
wpart_status_t wpart_multikernel_abs_observe(wpart_multikernel_abs_t *a, double t_gpu, double t_cpu);
/** The robust search's estimate of the type times at the current share: the ceil(window /
 *  3)-th smallest of the window's per-share times of each type, scaled. *ok_out = 0 (and the outputs untouched) while a type
 *  that runs at this share has no recorded run, or with window 1. */
wpart_status_t wpart_multikernel_abs_estimate(const wpart_multikernel_abs_t *a, double *t_gpu_out,
                                              double *t_cpu_out, int *ok_out);
/** One balancing step on the runs recorded so far (robust search: a step without a new run,
 *  after wpart_multikernel_abs_observe); *s_out is the next share. With window 1, or without
 *  an estimate, the share stays. */
wpart_status_t wpart_multikernel_abs_judge(wpart_multikernel_abs_t *a, double *s_out);
/** A new episode from share s (shift phase, step T_init), keeping the window and constants. */
wpart_status_t wpart_multikernel_abs_restart(wpart_multikernel_abs_t *a, double s);

/* ---------------------------------------------------------------- interpolation --------- */

enum {
    WPART_MULTIKERNEL_INTERP_NODE = 0, /* one distinct node: its value (mean of its duplicates) */
    WPART_MULTIKERNEL_INTERP_RBF = 1,  /* exact polyharmonic RBF r^2 log r with an affine tail */
    WPART_MULTIKERNEL_INTERP_IDW = 2,  /* inverse distance weighting, power 2 */
    WPART_MULTIKERNEL_INTERP_NEAREST = 3
};

/**
 * Scattered-data interpolation of y over n nodes X (n x d, row-major) at q query points Q
 * (q x d): duplicate nodes are merged (mean of y); one distinct node -> its value; d <= 3 with
 * at least d + 1 distinct nodes in general position -> exact RBF; a singular RBF system or too
 * few nodes -> IDW (power 2, exact at a node); d > 3 -> the Euclidean nearest node (ties: the
 * first). *how_out: the WPART_MULTIKERNEL_INTERP_* used.
 */
wpart_status_t wpart_multikernel_interpolate(int32_t n, int32_t d, const double *X, const double *y,
                                    int32_t q, const double *Q, double *out, int32_t *how_out);
/** wpart_multikernel_interpolate polling the control hooks `ctl` (Ctrl-C, time limit; NULL:
 * none) in the node merge, the RBF system's build and solve and the evaluation. */
wpart_status_t wpart_multikernel_interpolate_ctl(int32_t n, int32_t d, const double *X,
                                                 const double *y, int32_t q, const double *Q,
                                                 double *out, int32_t *how_out,
                                                 const wpart_control_t *ctl);

/** Doubles of the packed model of n nodes of d features (what interp_fit writes). */
int64_t wpart_multikernel_interp_model_size(int32_t n, int32_t d);
/**
 * The interpolation of wpart_multikernel_interpolate in two halves, so that a fixed node set
 * is fitted once (the RBF solve, O(n^3)) and queried many times (O(n d) each): interp_fit
 * packs the merged nodes, their values, the RBF coefficients and each merged node's first
 * original index into `model` (wpart_multikernel_interp_model_size doubles); interp_eval
 * gives the same values as wpart_multikernel_interpolate at q points, the method, and per
 * point the index (in X) of the nearest node (ties: the first). near_out may be NULL.
 */
wpart_status_t wpart_multikernel_interp_fit(int32_t n, int32_t d, const double *X, const double *y,
                                            double *model);
wpart_status_t wpart_multikernel_interp_eval(const double *model, int32_t q, const double *Q,
                                             double *out, int32_t *how_out, int32_t *near_out);

/* ---------------------------------------------------------------- simulated runs --------- */

/**
 * One run of a skeleton computation tree on simulated devices (the event model of the
 * simulator of [Soldado 2016]'s decisions): executions 0 .. n_gpus*overlap - 1 are the overlap
 * partitions of the GPUs (GPU g owns g*overlap .. g*overlap + overlap - 1), then n_cpu CPU
 * sub-devices. Every execution runs the whole tree on its own partition (data stay resident
 * between kernels). A GPU has one copy engine (uploads, then downloads, first in first out by
 * ready time) and one compute engine, so one partition's transfers overlap another's compute:
 * partition j is u_j = lat_x + n_j*gpu_up (+ gpu_copy for the GPU's first non-empty one), then
 * c_j = lat_k + n_j*gpu_comp[g], then d_j = lat_x + n_j*gpu_down. A CPU sub-device i takes
 * cpu_fixed + n_i*cpu_rate[i]*pi_i, pi_i = 1 + lambda*clip((n_i*ws - cap)/(n_i*ws), 0, 1).
 * A Loop runs `iters` passes; with `sync` every pass ends at a barrier across all executions
 * plus host_merge, the next pass uploading only the COPY vectors (partitions stay resident)
 * and downloading the updated state. Transfer times are the device layer's
 * (wpart_dynamic_device_xfer: one hop of latency lat_x), and each execution's compute is scaled
 * by the device layer's log-normal noise exp(sigma*z - sigma^2/2) (mean 1), z drawn from the
 * stream (seed; run, execution).
 */
typedef struct {
    int32_t n_gpus, overlap, n_cpu;
    const int64_t *units;    /* n_gpus*overlap + n_cpu partition sizes */
    const double *gpu_comp;  /* n_gpus: seconds per unit of one pass */
    double gpu_up, gpu_down; /* seconds per unit moved host->device, device->host */
    double gpu_copy;         /* seconds to upload the COPY vectors */
    double lat_x, lat_k;     /* per transfer; per pass of a partition (kernel launches) */
    const double *cpu_rate;  /* n_cpu: seconds per unit of one pass (load included) */
    double cpu_fixed, ws, cap, lambda;
    int32_t iters, sync;
    double host_merge, sigma;
    uint64_t seed;
    int64_t run;
} wpart_multikernel_sim_t;

/**
 * Simulates one run. Outputs (any may be NULL): t_exec[E] completion of every execution,
 * t_dev[n_gpus + 1] completion of every GPU then of the CPU (0 for an idle device), busy[2 *
 * n_gpus + 1] copy-engine time of every GPU, compute time of every GPU, compute time of the
 * CPU (its slowest sub-device), and out3 = (T, T_gpu, T_cpu). *events_out: events processed.
 */
wpart_status_t wpart_multikernel_sim_run(const wpart_multikernel_sim_t *in, double *t_exec, double *t_dev,
                                double *busy, double *out3, int64_t *events_out);

#ifdef __cplusplus
}
#endif

#endif /* WPART_MULTIKERNEL_H */
