/*
 * plbhac_cfg.c -- the configuration of PLB-HAC / PLB-HeC: the presets "paper" and "robust"
 * and the validation of every option, with messages naming the option.
 */
#include <math.h>
#include <string.h>

#include "plbhac_internal.h"

/* ---------------------------------------------------------------- presets ---------------- */

void wpart_dynamic_plbhac_cfg_paper(wpart_dynamic_plbhac_cfg_t *c)
{
    /* min_block_mode auto: "a minimum block size that does not underutilize the GPUs" (Sec.
     * 3.2 of the paper): accelerators' minimum blocks reach auto_eta of their best modelled
     * throughput (the fixed x_init ran a saturating GPU at 22 % of its rate); CPUs keep q.
     * Every field not named is 0 / NULL. */
    *c = (wpart_dynamic_plbhac_cfg_t){
        .quantum = 1,
        .x_init = 1024,
        .gap_threshold = 0.4,
        .tail_start = 0.7,
        .tail_alpha = 0.1,
        .tail_mode = WPART_DYN_TAIL_RESOLVE,
        .tail_floor_time = 1.0,
        .training_mode = WPART_DYN_TRAIN_BARRIER,
        .step_mode = WPART_DYN_STEP_FROZEN,
        .step_time = 2.0,
        .min_steps_left = 4,
        .min_block_mode = WPART_DYN_MINBLK_AUTO,
        .auto_eta = 0.8,
        .gap_fill = 1,
    };
    wpart_dynamic_fit_opts_init(&c->fit);
    wpart_dynamic_solve_opts_init(&c->solve);
}

void wpart_dynamic_plbhac_cfg_robust(wpart_dynamic_plbhac_cfg_t *c)
{
    wpart_dynamic_plbhac_cfg_paper(c);
    c->training_mode = WPART_DYN_TRAIN_PROBE;
    c->step_mode = WPART_DYN_STEP_RATCHET;
    c->min_block_mode = WPART_DYN_MINBLK_AUTO;
    c->fit.allowed_mask = 1u;      /* F = a x + b: the 7-function basis extrapolates badly */
    c->step_fraction = 1.0 / 64.0; /* steps grow with the input: per-step costs amortise */
    c->change_ratio = 1.3;         /* a PU's level change is adopted at once (Fig. 6) */
}

static int bad(double v, double lo, double hi) { return !(isfinite(v) && v >= lo && v <= hi); }

wpart_status_t wpart_i_plb_validate(const wpart_dynamic_plbhac_cfg_t *c, int32_t n,
                                    const int32_t *kinds)
{
    if (n < 1) {
        return wpart_i_error(WPART_EINVAL, "n_pu must be >= 1, got %d", (int)n);
    }
    if (c->total < 1) {
        return wpart_i_error(WPART_EINVAL, "total must be >= 1, got %" PRId64, c->total);
    }
    if (c->quantum < 1) {
        return wpart_i_error(WPART_EINVAL, "quantum must be >= 1, got %" PRId64, c->quantum);
    }
    if (c->total < c->quantum) {
        return wpart_i_error(WPART_EINVAL,
                             "total (%" PRId64 ") is smaller than one quantum (%" PRId64 ")",
                             c->total, c->quantum);
    }
    if (c->x_init < 1 || c->x_init > INT64_MAX / 8) {
        return wpart_i_error(WPART_EINVAL, "x_init must be >= 1, got %" PRId64, c->x_init);
    }
#define RANGE(f, lo, hi)                                                                     \
    if (bad(c->f, lo, hi)) {                                                                 \
        return wpart_i_error(WPART_EINVAL, #f " must be finite in [%g, %g], got %g", (double)(lo), \
                             (double)(hi), c->f);                                            \
    }
    RANGE(gap_threshold, 0.0, HUGE_VAL)
    RANGE(tail_start, 0.0, 1.0)
    RANGE(tail_floor_time, 0.0, HUGE_VAL)
    RANGE(step_time, 0.0, HUGE_VAL)
    RANGE(min_eval_interval, 0.0, HUGE_VAL)
    RANGE(auto_eta, 1e-12, 1.0)
    RANGE(step_fraction, 0.0, 1.0)
#undef RANGE
    if (!(c->change_ratio == 0.0 || (c->change_ratio > 1.0 && isfinite(c->change_ratio)))) {
        return wpart_i_error(WPART_EINVAL, "change_ratio must be 0 (off) or finite > 1, got %g",
                             c->change_ratio);
    }
    if (!(c->tail_alpha >= 0.0 && c->tail_alpha < 1.0)) {
        return wpart_i_error(WPART_EINVAL, "tail_alpha must be in [0, 1), got %g", c->tail_alpha);
    }
    if (c->tail_mode < 0 || c->tail_mode > 2) {
        return wpart_i_error(WPART_EINVAL, "tail_mode must be resolve/scale/off (0..2), got %d",
                             (int)c->tail_mode);
    }
    if (c->training_mode < 0 || c->training_mode > 1) {
        return wpart_i_error(WPART_EINVAL, "training_mode must be barrier/probe (0..1), got %d",
                             (int)c->training_mode);
    }
    if (c->step_mode < 0 || c->step_mode > 3) {
        return wpart_i_error(WPART_EINVAL,
                             "step_mode must be frozen/ratchet/fixed/adaptive (0..3), got %d",
                             (int)c->step_mode);
    }
    if ((c->step_mode == WPART_DYN_STEP_FIXED || c->paper_strict) && c->step_size < c->quantum) {
        return wpart_i_error(WPART_EINVAL,
                             "step_size must be >= quantum (%" PRId64
                             ") with step_mode fixed, got %" PRId64,
                             c->quantum, c->step_size);
    }
    if (c->step_size < 0) {
        return wpart_i_error(WPART_EINVAL, "step_size must be >= 0, got %" PRId64, c->step_size);
    }
    if (c->min_steps_left < 1) {
        return wpart_i_error(WPART_EINVAL, "min_steps_left must be >= 1, got %d",
                             (int)c->min_steps_left);
    }
    if (c->min_block_mode < 0 || c->min_block_mode > 1) {
        return wpart_i_error(WPART_EINVAL, "min_block_mode must be fixed/auto (0..1), got %d",
                             (int)c->min_block_mode);
    }
    for (int32_t p = 0; p < n; p++) {
        if (kinds && (kinds[p] < 0 || kinds[p] > 2)) {
            return wpart_i_error(WPART_EINVAL, "pu_kinds[%d] must be CPU/GPU/PHI (0..2), got %d",
                                 (int)p,
                                 (int)kinds[p]);
        }
        if (c->min_block && (c->min_block[p] < 0 || c->min_block[p] > c->total)) {
            return wpart_i_error(WPART_EINVAL, "min_block[%d] must be in [0, total], got %" PRId64,
                                 (int)p, c->min_block[p]);
        }
        if (c->cap && c->cap[p] < c->quantum) {
            return wpart_i_error(WPART_EINVAL, "cap[%d] must be >= quantum, got %" PRId64, (int)p,
                                 c->cap[p]);
        }
    }
    if (!(c->fit.decay > 0.0 && c->fit.decay <= 1.0)) {
        return wpart_i_error(WPART_EINVAL, "decay must be in (0, 1], got %g", c->fit.decay);
    }
    if (c->fit.window < 0) {
        return wpart_i_error(WPART_EINVAL, "window must be >= 0, got %d", (int)c->fit.window);
    }
    return WPART_OK;
}

