/*
 * plbhac_internal.h -- the state of PLB-HAC / PLB-HeC (spec 001 §2.2), shared by plbhac.c
 * (the protocol: training, steps, gap filling, publication) and plbhac_eval.c (eval_run: fit,
 * minimum blocks, step volume, tail, solve, round). Private.
 */
#ifndef WPART_PLBHAC_INTERNAL_H
#define WPART_PLBHAC_INTERNAL_H

#include "dyn_internal.h"
#include "fit_inc.h"

enum { PLB_TRAINING = 0, PLB_EXECUTION = 1 };

typedef struct {
    wpart_dynamic_balancer_t base; /* first member */
    wpart_dynamic_plbhac_cfg_t cfg; /* copy; cfg.min_block / cfg.cap point to the arrays below */
    int32_t *kinds;
    int64_t *bmin_fixed; /* fixed minimum block per PU (multiple of q) */
    int64_t *cap;        /* per-PU cap (INT64_MAX: none) */
    int64_t x_init;      /* cfg.x_init rounded up to a multiple of q */
    int hec;             /* PLB-HeC (sync_steps) */

    /* global state */
    int phase;
    int have_t_fast;
    double t_fast;
    int32_t V;
    int have_S;
    int64_t S, S_train, S_eff;
    int64_t n_changes; /* level changes detected (change_ratio) */
    int32_t m_tail;
    double T_pred;
    int32_t version;
    int64_t *X;
    int64_t *lb_cur;
    wpart_dynamic_model_t *models;
    uint8_t *waiting, *parked;
    int hec_stage; /* 1, 2: training rounds; 3: execution */

    /* the evaluation in flight */
    int32_t ev_trigger;     /* -1: every PU (PLB-HeC) */
    int ev_release_waiting; /* release the waiting set (else the trigger) */
    int have_last_eval;
    double last_eval_t;

    /* per PU */
    int64_t **sx;
    double **stc, **stx;
    int64_t *ns, *scap;
    int32_t *ntrain, *vstep;
    int64_t *last_train;
    int64_t *cur_blk; /* block held (-1: none) */
    int32_t *cur_kind;
    double *cur_pred;
    double *cur_t0, *cur_dur; /* dispatch time and expected duration of the block held */
    double *lvl, *snap_lvl;   /* change_ratio: sample rescales not yet in the published
                                 models / in the evaluation in flight (products, 1 = none) */
    uint8_t *resc;            /* samples rescaled since the last snapshot */
    double *first_t; /* PLB-HeC: duration of the first training block */

    /* snapshot captured when an EVAL is issued (eval_run reads only this) */
    int64_t snap_cap;
    int64_t *snap_x;
    double *snap_tc, *snap_tx;
    int64_t *snap_off; /* n + 1 */
    int64_t snap_completed, snap_cursor, snap_S, snap_S_train;
    int snap_have_S;
    int32_t snap_m_tail;
    void *work;
    size_t work_cap;
    /* incremental fits (every fit over all samples, fit.window == 0): the live state per PU,
     * its snapshot, and the sample count each res_models[p] was fitted from (0: none) */
    wpart_i_fitinc_t *fi, *snap_fi;
    int64_t *fc_m;
    wpart_i_fitgrid_t *fg; /* per PU: the last fit's admissibility grid and basis values */

    /* result of eval_run (published by eval_done) */
    int res_ok;
    int64_t res_token;
    wpart_dynamic_model_t *res_models;
    int64_t *res_X, *res_lb;
    double res_T;
    int64_t res_S_eff, res_S;
    int32_t res_m_tail;

    /* scratch for eval_run (n values each) */
    double *w_lb, *w_ub, *w_x;
    int64_t *w_ilb, *w_iub, *w_bmin;
    /* the sizing fallback of an evaluation whose fitted models fail the solver (a model that
     * decreases, or is not finite, where the solve evaluates it): E_p(x) = w_slope[p] * x */
    double *w_slope;
    int lin;            /* the current evaluation sizes with the fallback */
    int64_t n_fallback; /* evaluations that used it */
} plb_t;

/** eval_run of both balancers (plbhac_eval.c). */
wpart_status_t wpart_i_plb_eval_run(wpart_dynamic_balancer_t *b, int64_t token);

/** change_ratio (plbhac_change.c): rescales the samples of PUs whose running regular block is
 * late by more than the ratio; called when an evaluation is issued (no evaluation in flight). */
wpart_status_t wpart_i_plb_late_blocks(plb_t *s, double now);

/** change_ratio (plbhac_change.c): checks PU p's just recorded block (size, t_comp) against
 * the published model; *changed = 1 if its older samples were rescaled. */
wpart_status_t wpart_i_plb_detect_change(plb_t *s, int32_t p, int32_t kind, int64_t size,
                                         double t_comp, int *changed);

/** Validates a configuration (plbhac_cfg.c). */
wpart_status_t wpart_i_plb_validate(const wpart_dynamic_plbhac_cfg_t *c, int32_t n,
                                    const int32_t *kinds);

#endif /* WPART_PLBHAC_INTERNAL_H */
