/*
 * wpart/dynamic_plbhac.h -- PLB-HAC and PLB-HeC as pure state machines.
 *
 * Both speak the balancer protocol of dynamic_balancer.h. PLB-HAC: two training blocks per PU
 * (the second scaled by R_p = t_fast / t_p), one barrier, then asynchronous virtual steps:
 * the first PU to enter a step triggers (and pays for) one evaluation -- fit the performance
 * models of dynamic_model.h, solve the equal-time problem (P_S), round -- while the others keep
 * the last published block sizes X; gap filling for early finishers; tail shrink after
 * tail_start of the data completed. PLB-HeC: a barrier after every training round and every
 * execution step, the evaluation while every PU idles (EVAL with trigger_pu = -1), no gap
 * filling and no tail.
 */
#ifndef WPART_DYNAMIC_PLBHAC_H
#define WPART_DYNAMIC_PLBHAC_H

#include <stdint.h>

#include "wpart/dynamic_balancer.h"
#include "wpart/dynamic_model.h"
#include "wpart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    WPART_DYN_TAIL_RESOLVE = 0, /* shrink the step volume, re-solve (default) */
    WPART_DYN_TAIL_SCALE = 1,   /* scale each solved block (the literal reading) */
    WPART_DYN_TAIL_OFF = 2
} wpart_dynamic_tail_mode_t;

typedef enum { WPART_DYN_TRAIN_BARRIER = 0, WPART_DYN_TRAIN_PROBE = 1 } wpart_dynamic_train_mode_t;

typedef enum {
    WPART_DYN_STEP_FROZEN = 0,
    WPART_DYN_STEP_RATCHET = 1,
    WPART_DYN_STEP_FIXED = 2,
    WPART_DYN_STEP_ADAPTIVE = 3
} wpart_dynamic_step_mode_t;

typedef enum { WPART_DYN_MINBLK_FIXED = 0, WPART_DYN_MINBLK_AUTO = 1 } wpart_dynamic_minblk_mode_t;

/** Every constant of PLB-HAC and PLB-HeC. Fill with a preset function, then override. */
typedef struct {
    int64_t total;            /* W (no default: set it) */
    int64_t quantum;          /* q, 1 */
    int64_t x_init;           /* first training block, 1024 */
    double gap_threshold;     /* θ_gap seconds, 0.4 */
    double tail_start;        /* fraction of the data completed, 0.7 */
    double tail_alpha;        /* α, 0.1 (multiplier 1 - α per evaluation) */
    int32_t tail_mode;        /* wpart_dynamic_tail_mode_t, resolve */
    int32_t tail_once;        /* 1: apply (1 - α) once, not compounded; 0 */
    double tail_floor_time;   /* τ_floor seconds, 1.0 */
    int32_t training_mode;    /* wpart_dynamic_train_mode_t, barrier (paper) / probe (robust) */
    int32_t step_mode;        /* wpart_dynamic_step_mode_t, frozen (paper) / ratchet (robust) */
    int64_t step_size;        /* S for step_mode fixed (elements, >= quantum); 0 otherwise */
    double step_time;         /* seconds, 2.0 */
    int32_t min_steps_left;   /* 4 */
    int32_t min_block_mode;   /* wpart_dynamic_minblk_mode_t, auto */
    const int64_t *min_block; /* per PU (n values, >= 0) or NULL: GPU/PHI x_init, CPU q */
    double auto_eta;          /* η, 0.8 */
    double min_eval_interval; /* seconds between evaluations triggered by new steps, 0 */
    int32_t gap_fill;         /* 1 */
    int32_t sync_steps;       /* 0; 1 = PLB-HeC behaviour (what wpart_dynamic_plbhec_new sets) */
    const int64_t *cap;       /* per-PU block caps (device memory; n values >= 1) or NULL */
    int32_t paper_strict;     /* 1: no intercept, step_mode fixed, tail_mode scale; 0 */
    double step_fraction;     /* frozen/ratchet: S >= step_fraction * W (the paper's input
                                 "normalised to 1", Sec. 3.2), capped as S is; 0 = off */
    double change_ratio;      /* > 1: a block whose compute time differs from the model by more
                                 than this factor rescales the PU's older samples to it; 0 = off */
    wpart_dynamic_fit_opts_t fit;     /* paper: 7 basis functions; robust: x (affine) */
    wpart_dynamic_solve_opts_t solve;
} wpart_dynamic_plbhac_cfg_t;

/** Preset "paper": the faithful reproduction (auto minimum blocks for accelerators: "a minimum
 * block size that does not underutilize the GPUs", Sec. 3.2). total is set to 0. */
void wpart_dynamic_plbhac_cfg_paper(wpart_dynamic_plbhac_cfg_t *c);
/** Preset "robust" (recommended): probe training, ratchet steps, auto minimum blocks, an
 * affine compute model (basis x plus a constant), step_fraction 1/64, change_ratio 1.3. */
void wpart_dynamic_plbhac_cfg_robust(wpart_dynamic_plbhac_cfg_t *c);

/**
 * PLB-HAC over n PUs of the given kinds (wpart_dynamic_pu_kind_t; NULL: all CPU). The cfg
 * and its arrays are copied. With cfg->sync_steps = 1 this builds PLB-HeC.
 */
wpart_status_t wpart_dynamic_plbhac_new(const wpart_dynamic_plbhac_cfg_t *cfg, int32_t n,
                                        const int32_t *kinds, wpart_dynamic_balancer_t **out);
/** PLB-HeC: cfg with sync_steps = 1, gap_fill = 0, tail_mode = off forced. */
wpart_status_t wpart_dynamic_plbhec_new(const wpart_dynamic_plbhac_cfg_t *cfg, int32_t n,
                                        const int32_t *kinds, wpart_dynamic_balancer_t **out);

/** 1 if b was built by wpart_dynamic_plbhac_new / plbhec_new, else 0. */
int wpart_dynamic_is_plbhac(const wpart_dynamic_balancer_t *b);

/**
 * The published state: X (n block sizes; 0 before the first evaluation), the predicted step
 * time, the effective step volume, the step volume S and the model version (0: none yet).
 * Any output pointer may be NULL. WPART_EINVAL if b is not PLB-HAC/PLB-HeC.
 */
wpart_status_t wpart_dynamic_plbhac_current(const wpart_dynamic_balancer_t *b, int64_t *X,
                                            double *T_pred, int64_t *S_eff, int64_t *S,
                                            int32_t *version);
/** The published models (n values; zeroed with valid = 0 before the first evaluation). */
wpart_status_t wpart_dynamic_plbhac_models(const wpart_dynamic_balancer_t *b,
                                           wpart_dynamic_model_t *out);
/** The minimum block sizes currently in force (n values). */
wpart_status_t wpart_dynamic_plbhac_min_blocks(const wpart_dynamic_balancer_t *b, int64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* WPART_DYNAMIC_PLBHAC_H */
