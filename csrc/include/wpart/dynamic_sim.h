/*
 * wpart/dynamic_sim.h -- the device layer and the deterministic discrete-event simulator of
 * wpart.dynamic (part of wpart/dynamic.h).
 *
 * Two layers:
 *
 * 1. The DEVICE LAYER (device.c) is stateless and reusable on its own. A device has a true
 *    compute curve (affine, saturating, power, paper basis, table; optional mem_cap cliff), a
 *    transfer path of hops (lat + bytes/bw each; setup_bytes on its first block), a noise model
 *    (mean-one log-normal per purpose with its own sigma, outliers p_out/f_out) and a slowdown
 *    schedule. Noise is counter-based: the draw for (seed, pu, purpose, j) is a pure function
 *    (SplitMix64 hashes the key into a xoshiro256** state), so any driver gets common random
 *    numbers by passing the same key. A run-based driver (one "execution" per
 *    run, load schedules in run units) reuses it directly:
 *      - wpart_dynamic_curve_eval / wpart_dynamic_device_xfer: noiseless times (oracles);
 *      - wpart_dynamic_noise_lognormal / wpart_dynamic_noise_uniform with key (seed, pu,
 *        purpose, j), j = run * executions_per_run + execution for instance;
 *      - wpart_dynamic_device_block: the time of one block of x elements on device `pu`
 *        starting at time t (transfer, then compute integrated over the slowdown schedule,
 *        noise from stream j), exactly what the event engine produces for that block when no
 *        on/off interference is configured.
 *      - wpart_dynamic_integrate: the end of D nominal seconds of compute started at t under a
 *        piecewise-constant slowdown schedule (∫ 1/s = D).
 *    A LoadSchedule entry (runs [from, to), E external threads on a sub-device of m
 *    cores, availability m / (m + E)) is a wpart_dynamic_fluct_t with factor (m + E) / m on
 *    the driver's time axis (run index, or seconds); its noise key is (seed, device, purpose,
 *    run * executions_per_run + execution).
 *
 * 2. The EVENT ENGINE (sim.c, csrc/base/event_heap.c): wpart_dynamic_sim_run drives any balancer of
 *    dynamic_balancer.h over a platform: one binary heap keyed (time, seq), no allocation per
 *    event in steady state, events XFER_DONE, COMP_DONE(version), EVAL_DONE(token),
 *    RATE_CHANGE; the ASSIGN / EVAL_REQUEST semantics; the trace and metrics;
 *    the coverage invariant (P1) checked at the end.
 *    An EVAL action runs eval_run inline and schedules EVAL_DONE at t + c_eval; meanwhile its
 *    trigger PU (every PU for trigger -1) is held: a block it is running finishes, but no
 *    queued or newly assigned block starts on it before EVAL_DONE (the evaluation's cost is
 *    charged to the PU that triggers it). The run ends when the balancer is
 *    done and no block or evaluation is in flight (pending rate changes are dropped); no
 *    work in flight while not done is reported as "balancer stalled".
 *
 * Units: sizes in elements (int64), times in seconds, bandwidths in bytes/s.
 */
#ifndef WPART_DYNAMIC_SIM_H
#define WPART_DYNAMIC_SIM_H

#include <stdint.h>

#include "wpart/dynamic_balancer.h"
#include "wpart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ curves --------- */

typedef enum {
    WPART_DYN_CURVE_AFFINE = 0,     /* t0 + x / rate */
    WPART_DYN_CURVE_SATURATING = 1, /* t0 + x / (rate (1 - exp(-x / bsat))) */
    WPART_DYN_CURVE_POWER = 2,      /* t0 + c x^beta */
    WPART_DYN_CURVE_BASIS = 3,      /* bc0 + sum_i bcoef[i] f_i(x / x_ref), paper basis */
    WPART_DYN_CURVE_TABLE = 4       /* piecewise-linear through (tab_x, tab_t) */
} wpart_dynamic_curve_kind_t;

/** Number of paper basis functions; bcoef[i] multiplies, in order:
 * u, u^2, u^3, exp(u), ln(u), u exp(u), u ln(u)  (u = x / x_ref). */
#define WPART_DYN_N_BASIS 7

typedef struct {
    int32_t kind;                      /* wpart_dynamic_curve_kind_t */
    double t0, rate, bsat;             /* affine, saturating (t0 also for power) */
    double c, beta;                    /* power */
    double bcoef[WPART_DYN_N_BASIS];   /* basis */
    double bc0, x_ref;                 /* basis */
    const double *tab_x, *tab_t;       /* table: increasing x >= 0, t >= 0 (borrowed) */
    int64_t tab_n;                     /* table: >= 1 points */
    double mem_cap;                    /* > 0: beyond mem_cap elements the extra time */
    double mem_gamma;                  /*      costs (1 + mem_gamma) times more; 0: none */
} wpart_dynamic_curve_t;

/**
 * Noiseless compute time of x >= 0 elements (seconds, >= 0, 0 for x = 0). Table curves
 * interpolate linearly and extrapolate with their end segments (clamped at 0; one point:
 * proportional). Basis curves are clamped at 0. Returns NaN for an invalid curve.
 */
double wpart_dynamic_curve_eval(const wpart_dynamic_curve_t *c, double x);

/** WPART_OK or WPART_EINVAL naming the bad field (rates > 0, t0 >= 0, finite values ...). */
wpart_status_t wpart_dynamic_curve_check(const wpart_dynamic_curve_t *c);

/* ------------------------------------------------------------------ devices -------- */

#define WPART_DYN_MAX_HOPS 4

typedef struct {
    double lat; /* seconds */
    double bw;  /* bytes per second (> 0) */
} wpart_dynamic_hop_t;

typedef struct {
    int32_t kind;    /* wpart_dynamic_pu_kind_t (CPU, GPU, PHI) */
    int32_t machine; /* machine index (labels only) */
    wpart_dynamic_curve_t comp;
    wpart_dynamic_hop_t hops[WPART_DYN_MAX_HOPS];
    int32_t n_hops;
    double bytes_per_elem; /* bytes(x) = bytes_per_elem * x */
    double setup_bytes;    /* charged (over every hop) on the PU's first block only */
    double sigma_comp;     /* log-normal sigma of compute noise (0: none) */
    double sigma_xfer;     /* log-normal sigma of transfer noise */
    double p_out, f_out;   /* outliers: with probability p_out the compute time is x f_out */
} wpart_dynamic_device_t;

/** Sets a device to an affine CPU of rate 1 el/s with no transfers and no noise. */
void wpart_dynamic_device_init(wpart_dynamic_device_t *d);

/** WPART_OK or WPART_EINVAL naming the field. */
wpart_status_t wpart_dynamic_device_check(const wpart_dynamic_device_t *d);

/** Noiseless transfer time of a block of x elements: sum over hops of lat + bytes / bw, with
 * bytes = bytes_per_elem x (+ setup_bytes when first != 0). 0 without hops. */
double wpart_dynamic_device_xfer(const wpart_dynamic_device_t *d, double x, int first);

/** Noiseless times of blocks of x[i] elements, i < k: compute + transfer (part 0), compute
 * (part 1) or transfer (part 2; `first` as in wpart_dynamic_device_xfer); NaN for x[i] < 0 or
 * NaN. */
void wpart_dynamic_device_time_vec(const wpart_dynamic_device_t *d, int part, int first,
                                   const double *x, int64_t k, double *out);

/* ------------------------------------------------------------------ noise --------- */

/** Purposes of the noise streams. */
typedef enum {
    WPART_DYN_NOISE_COMP = 0,
    WPART_DYN_NOISE_XFER = 1,
    WPART_DYN_NOISE_OUTLIER = 2,
    WPART_DYN_NOISE_ONOFF = 3 /* holding times of the on/off interference */
} wpart_dynamic_noise_purpose_t;

/** Uniform in [0, 1) of stream (seed, pu, purpose, j) of the core's generator (wpart/rng.h:
 * xoshiro256** seeded by SplitMix64 over the key); draw `k` (0 or 1) of that stream. Pure
 * function. */
double wpart_dynamic_noise_uniform(uint64_t seed, int32_t pu, int32_t purpose, int64_t j, int k);

/** Mean-one log-normal factor exp(sigma N - sigma^2 / 2), N standard normal drawn (Box-Muller)
 * from stream (seed, pu, purpose, j). sigma = 0 gives exactly 1. */
double wpart_dynamic_noise_lognormal(uint64_t seed, int32_t pu, int32_t purpose, int64_t j,
                                     double sigma);

/** out[i] = wpart_dynamic_noise_lognormal(seed, pu, purpose, j[i], sigma) for i < k, or with
 * sigma < 0 wpart_dynamic_noise_uniform(seed, pu, purpose, j[i], 0). */
void wpart_dynamic_noise_vec(uint64_t seed, int32_t pu, int32_t purpose, const int64_t *j,
                             int64_t k, double sigma, double *out);

/* ------------------------------------------------------------------ load ---------- */

/** Slowdown factor `factor` (>= 1 usually; > 0 required) on PU `pu` during [t_start, t_end).
 * Overlapping entries multiply. t_end may be +inf. */
typedef struct {
    double t_start, t_end;
    int32_t pu;
    double factor;
} wpart_dynamic_fluct_t;

/** Two-state Markov on/off interference on PU `pu`: it starts off; holding times are
 * exponential with means mu_off (off) and mu_on (on); while on, the PU is slowed by f_busy. */
typedef struct {
    int32_t pu;
    double mu_on, mu_off, f_busy;
} wpart_dynamic_onoff_t;

/** Slowdown s_pu(t) of the schedule (product of the active entries; 1 if none). */
double wpart_dynamic_slowdown(const wpart_dynamic_fluct_t *f, int64_t n_fluct, int32_t pu,
                              double t);

/**
 * End time of D >= 0 nominal seconds of compute started at t on PU pu: the t_end with
 * ∫_t^t_end 1/s_pu(τ) dτ = D. O(n_fluct^2), no allocation. +inf if never.
 */
double wpart_dynamic_integrate(const wpart_dynamic_fluct_t *f, int64_t n_fluct, int32_t pu,
                               double t, double D);

/**
 * The time one block takes on device `dev` (PU index `pu`): x elements, the j-th block of the
 * PU (j = 0 is its first: setup_bytes), its transfer starting at time t, then compute
 * integrated over the slowdown schedule (f may be NULL). Noise from streams (seed, pu, *, j).
 * Writes the transfer and compute durations (seconds). This is the engine's own formula.
 */
wpart_status_t wpart_dynamic_device_block(const wpart_dynamic_device_t *dev, int32_t pu,
                                          uint64_t seed, int64_t j, int64_t x, double t,
                                          const wpart_dynamic_fluct_t *f, int64_t n_fluct,
                                          double *t_xfer, double *t_comp);

/* ------------------------------------------------------------------ the engine ------ */

typedef struct {
    int32_t n;                          /* PUs (= the balancer's n_pu) */
    const wpart_dynamic_device_t *dev;  /* n devices (borrowed) */
    int64_t n_fluct;
    const wpart_dynamic_fluct_t *fluct; /* may be NULL when n_fluct = 0 */
    int64_t n_onoff;
    const wpart_dynamic_onoff_t *onoff; /* may be NULL when n_onoff = 0 */
} wpart_dynamic_platform_t;

typedef enum {
    WPART_DYN_EVAL_CONST = 0,   /* eval_cost seconds */
    WPART_DYN_EVAL_MODEL = 1,   /* eval_a + eval_b * (blocks completed so far) */
    WPART_DYN_EVAL_MEASURED = 2 /* wall time of eval_run * eval_scale (not reproducible) */
} wpart_dynamic_eval_mode_t;

typedef struct {
    uint64_t seed;
    int32_t eval_mode;        /* wpart_dynamic_eval_mode_t; default CONST */
    double eval_cost;         /* default 0.1 s */
    double eval_a, eval_b;    /* MODEL */
    double eval_scale;        /* MEASURED; default 1 */
    double dispatch_overhead; /* seconds added before each block's transfer; default 0 */
    int record_trace;         /* 1 (default): keep one record per block */
    int64_t max_events;       /* 0 (default): no cap; else WPART_ELIMIT past it */
    const wpart_control_t *control; /* progress (elements completed / W) and Ctrl-C */
} wpart_dynamic_sim_options_t;

void wpart_dynamic_sim_options_init(wpart_dynamic_sim_options_t *o);

/** One record per block, 104 bytes: the fields in the order of wpart.dynamic.TRACE_DTYPE,
 * naturally aligned, the padding named (pad0, pad1: 0), so that a trace is these records viewed
 * (and saved as they are). */
typedef struct {
    int32_t pu, pad0;
    int64_t block, offset, size;
    int32_t kind, vstep, model_version, pad1;
    double t_assign, t_xfer_start, t_comp_start, t_end, pred_end, t_xfer, t_comp;
} wpart_dynamic_trace_t;

/** Columns of idle_breakdown (n x 4, row-major), in this order. */
enum { WPART_DYN_IB_BARRIER = 0, WPART_DYN_IB_EVAL = 1, WPART_DYN_IB_STARVED = 2,
       WPART_DYN_IB_OTHER = 3 };

typedef struct {
    int32_t n;
    double makespan;                /* max t_end (an evaluation after the last block excluded) */
    wpart_dynamic_trace_t *trace;   /* n_trace records in order of assignment (NULL if off) */
    int64_t n_trace;
    double *busy;                   /* n: sum of t_xfer + t_comp */
    double *idle;                   /* n: makespan - busy */
    double *idle_breakdown;         /* n x 4: barrier, eval, starved, other (sums to idle) */
    int64_t *elements;              /* n: elements processed */
    int64_t *blocks;                /* n: blocks processed */
    int64_t blocks_per_kind[4];     /* train, regular, gap, other */
    int64_t n_blocks, n_evals, n_barriers;
    double eval_time;               /* total evaluation time charged */
    int64_t n_events;               /* heap events processed (stale ones included) */
    int64_t n_stale;                /* stale COMP_DONE events dropped */
    double wall_seconds;            /* wall time of the run */
    double *eval_windows;           /* n_eval_windows x 3: start, end, trigger PU (-1: all) */
    int64_t n_eval_windows;
    int32_t stopped;                /* wpart_dynamic_drive: its time limit was reached */
} wpart_dynamic_sim_result_t;

/* ---- real execution: the same engine, devices outside it ---- */

/** What an event source reports: a finished block (kind 0) or a finished evaluation (kind 1:
 * block_id holds its token, t_comp the seconds eval_run took). Times on the source's clock. */
typedef struct {
    int32_t kind;
    int32_t pu;
    int64_t block_id;
    double t_start, t_xfer, t_comp, t_end;
} wpart_dynamic_done_t;

/**
 * The devices of a real run: submit hands an ASSIGN to PU a->pu's worker (which runs its blocks
 * in FIFO order and reports each finished one); eval starts the balancer's eval_run(token) off
 * the driving thread (wpart_dynamic_balancer_eval_run is safe beside complete()) and reports
 * its end, at least the minimum evaluation time after its start; wait blocks until something
 * finishes (*got = 1, *ev filled) or the source's clock reaches `until` (*got = 0); now reads
 * that clock (0 at the start of the run). An error status from a callback stops the run.
 */
typedef struct {
    void *ctx;
    wpart_status_t (*submit)(void *ctx, const wpart_dynamic_assign_t *a);
    wpart_status_t (*eval)(void *ctx, int64_t token, int32_t trigger_pu);
    wpart_status_t (*wait)(void *ctx, double until, wpart_dynamic_done_t *ev, int *got);
    double (*now)(void *ctx);
} wpart_dynamic_source_t;

/**
 * Drives balancer b against the event source src with the simulator's engine (the same action
 * processing, trace, evaluation windows and coverage check): the events are the
 * source's block and evaluation completions instead of simulated devices. opt->control:
 * progress and Ctrl-C; its time_limit (source seconds) stops the run with out->stopped = 1 and
 * the blocks finished so far (no coverage check). The trace is always recorded;
 * idle_breakdown stays zero (idle = makespan - busy); eval_time sums the measured eval_run
 * times.
 */
wpart_status_t wpart_dynamic_drive(wpart_dynamic_balancer_t *b, const wpart_dynamic_source_t *src,
                                   const wpart_dynamic_sim_options_t *opt,
                                   wpart_dynamic_sim_result_t *out);

/**
 * Runs balancer b (fresh: not started) on the platform until it is done.
 *
 * pl   platform; pl->n must equal the balancer's n_pu
 * b    the balancer, driven through its protocol; eval_run runs inline (deterministic)
 * opt  NULL for defaults
 * out  result; owned by the caller, release with wpart_dynamic_sim_result_free (also on error,
 *      where it is left zeroed)
 *
 * Status: WPART_EINVAL (bad platform or options, balancer errors), WPART_EINTERNAL (the
 * coverage invariant P1 failed, or "balancer stalled": no work in flight and not done),
 * WPART_ELIMIT (max_events), WPART_ECANCELLED (control hooks), WPART_ENOMEM.
 * Complexity: O(E log H) for E events and heap size H (<= blocks in flight + evaluations +
 * rate-change entries); O(B) memory for B blocks (the trace, 104 bytes per block, only when
 * record_trace; 16 bytes per block otherwise, for the coverage check).
 */
wpart_status_t wpart_dynamic_sim_run(const wpart_dynamic_platform_t *pl,
                                     wpart_dynamic_balancer_t *b,
                                     const wpart_dynamic_sim_options_t *opt,
                                     wpart_dynamic_sim_result_t *out);

/** Frees what a result owns; safe on a zeroed result and twice. */
void wpart_dynamic_sim_result_free(wpart_dynamic_sim_result_t *r);

#ifdef __cplusplus
}
#endif

#endif /* WPART_DYNAMIC_SIM_H */
