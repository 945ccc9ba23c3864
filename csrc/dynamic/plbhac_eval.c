/*
 * plbhac_eval.c -- EVAL_RUN of PLB-HAC / PLB-HeC (spec 001 §2.3): fit one model per PU on the
 * snapshot, minimum blocks (§1.8, fixed or auto), the step volume (§1.9), the tail shrink with
 * its floors (§2.7), the infeasible-bounds and end-game rules (§1.8), the equal-time solve
 * (§1.5) and the optimal rounding (§1.6). Pure: reads only the snapshot and the configuration,
 * writes only the result and scratch buffers preallocated by plbhac.c; never allocates.
 */
#include <math.h>
#include <string.h>

#include "plbhac_internal.h"

#define PLB_GRID 64

/* The time functions the sizing uses (context: the balancer): the fitted models, or, when
 * they fail the solver in this evaluation (s->lin), the fallback E_p(x) = w_slope[p] * x,
 * non-decreasing by construction. */
static double plb_timefn(void *ctx, int64_t p, double x)
{
    const plb_t *s = ctx;
    if (s->lin) {
        return x > 0.0 ? s->w_slope[p] * x : (isnan(x) ? NAN : 0.0);
    }
    return wpart_dynamic_model_eval(&s->res_models[p], x);
}

static double E(plb_t *s, int32_t p, double x) { return plb_timefn(s, p, x); }

static wpart_dynamic_time_fn timefn(void) { return plb_timefn; }

/* The fallback's slopes: each model's time per element at the largest block it was fitted on
 * (its x_scale; the quantum when that is not positive), or at the smallest block where it
 * gives a positive finite time; 1e-9 s per element when none does. */
static void fallback_slopes(plb_t *s, int32_t n, int64_t q)
{
    for (int32_t p = 0; p < n; p++) {
        const wpart_dynamic_model_t *md = &s->res_models[p];
        double xr = md->x_scale > 0.0 && isfinite(md->x_scale) ? md->x_scale : (double)q;
        double e = wpart_dynamic_model_eval(md, xr);
        double sl = isfinite(e) && e > 0.0 ? e / xr : 0.0;
        if (!(sl > 0.0) || !isfinite(sl)) {
            sl = 1e-9;
        }
        s->w_slope[p] = sl;
    }
}

static int64_t round_up_q(int64_t x, int64_t q) { return x <= 0 ? 0 : ((x + q - 1) / q) * q; }

/* Smallest x on a log grid over [lo, hi] with x / E(x) >= eta * (best x / E(x) on the grid). */
static double grid_eff(plb_t *s, int32_t p, double lo, double hi, double eta, double ref_thr)
{
    if (!(hi > lo)) {
        return lo;
    }
    double best = ref_thr;
    double lr = log(hi / lo), xs[PLB_GRID], th[PLB_GRID];
    for (int k = 0; k < PLB_GRID; k++) { /* the grid and its throughputs, computed once */
        xs[k] = lo * exp(lr * ((double)k / (PLB_GRID - 1)));
        double e = E(s, p, xs[k]);
        th[k] = e > 0 ? xs[k] / e : INFINITY;
    }
    if (!(ref_thr > 0)) {
        best = 0.0;
        for (int k = 0; k < PLB_GRID; k++) {
            if (th[k] > best) {
                best = th[k];
            }
        }
    }
    for (int k = 0; k < PLB_GRID; k++) {
        if (th[k] >= eta * best) {
            return xs[k];
        }
    }
    return hi;
}

/* H_models(tau): time-mode capacity with x_p >= lb_p (§1.9). */
static wpart_status_t capacity(plb_t *s, double tau, double *H)
{
    return wpart_dynamic_capacity(s->base.n, timefn(), s, tau, s->w_lb, s->w_ub,
                                  s->w_x, H);
}

wpart_status_t wpart_i_plb_eval_run(wpart_dynamic_balancer_t *b, int64_t token)
{
    plb_t *s = (plb_t *)b;
    const wpart_dynamic_plbhac_cfg_t *c = &s->cfg;
    wpart_status_t st = WPART_OK;
    int32_t n = b->n;
    int64_t q = c->quantum;
    int64_t W = b->total;
    int64_t rem = W - s->snap_cursor;
    s->res_ok = 0;
    if (token != b->eval_token) {
        return wpart_i_error(WPART_EINVAL, "evaluation %" PRId64 " is not in flight", token);
    }

    /* 1. models (the paper's determineModel): from the incremental fit states (a PU whose
     * samples did not change keeps its model), or over the last `window` samples */
    for (int32_t p = 0; p < n; p++) {
        if (c->fit.window == 0) {
            const wpart_i_fitinc_t *fi = &s->snap_fi[p];
            if (fi->m < 1) {
                WPART_FAIL(WPART_EINTERNAL, "PU %d has no samples at an evaluation", (int)p);
            }
            if (s->fc_m[p] != fi->m) {
                s->fc_m[p] = 0;
                WPART_CHECK(wpart_i_fitinc_fit_g(fi, q, &c->fit, &s->fg[p], &s->res_models[p]));
                s->fc_m[p] = fi->m;
            }
        } else {
            int64_t o = s->snap_off[p], m = s->snap_off[p + 1] - o;
            if (m < 1) {
                WPART_FAIL(WPART_EINTERNAL, "PU %d has no samples at an evaluation", (int)p);
            }
            const double *tx = NULL;
            for (int64_t i = 0; i < m; i++) {
                if (s->snap_tx[o + i] != 0.0) {
                    tx = s->snap_tx + o;
                    break;
                }
            }
            WPART_CHECK(wpart_dynamic_model_fit(s->snap_x + o, s->snap_tc + o, tx, m, q,
                                                &c->fit, s->work, &s->res_models[p]));
        }
        if ((p & 255) == 255 && b->eval_control) {
            WPART_CHECK(wpart_i_poll(b->eval_control, b->eval_t0, (double)p, (double)n));
        }
    }

    s->lin = 0;
    int sized = 0; /* past the fit: a failure from here on is the models' */
retry:
    sized = 1;
    /* 2. minimum blocks (§1.8) and upper bounds (§1.7) */
    for (int32_t p = 0; p < n; p++) {
        int64_t bm = s->bmin_fixed[p];
        if (c->min_block_mode == WPART_DYN_MINBLK_AUTO && s->kinds[p] != WPART_DYN_PU_CPU) {
            double xhi = s->res_models[p].x_scale, xa;
            wpart_i_fitinc_t *fi = c->fit.window == 0 ? &s->snap_fi[p] : NULL;
            if (!s->lin && fi && fi->aux_m == fi->m && fi->m > 0) { /* same model as last time */
                xa = fi->aux;
            } else {
                xa = grid_eff(s, p, (double)q, 2.0 * xhi, c->auto_eta, 0.0);
                if (fi && !s->lin) {
                    fi->aux = xa;
                    fi->aux_m = fi->m;
                }
            }
            int64_t ba = round_up_q((int64_t)ceil(xa), q);
            if (ba > bm) {
                bm = ba;
            }
        }
        int64_t ub = s->cap[p] < rem ? s->cap[p] : rem;
        s->w_bmin[p] = bm;
        s->w_iub[p] = ub;
        s->w_ilb[p] = bm < ub ? bm : ub;
        s->w_lb[p] = (double)s->w_ilb[p];
        s->w_ub[p] = (double)ub;
    }

    /* 3. step volume (§1.9) */
    double tau_step = c->step_time;
    for (int32_t p = 0; p < n; p++) {
        double e = E(s, p, s->w_lb[p]);
        if (e > tau_step) {
            tau_step = e;
        }
    }
    int64_t capS = rem / c->min_steps_left;
    int64_t S = s->snap_S;
    int32_t m_tail = s->snap_m_tail;
    int choose = !s->snap_have_S || c->step_mode == WPART_DYN_STEP_ADAPTIVE ||
                 (c->step_mode == WPART_DYN_STEP_RATCHET && m_tail == 0);
    if (choose) {
        double H = 0.0;
        if (c->step_mode != WPART_DYN_STEP_FIXED) {
            WPART_CHECK(capacity(s, tau_step, &H));
        }
        int64_t h = isfinite(H) && H < 9.0e18 ? (int64_t)floor(H) : INT64_MAX / 2;
        int64_t hc = h < capS ? h : capS;
        if (!s->snap_have_S) {
            if (c->step_mode == WPART_DYN_STEP_FIXED) {
                S = c->step_size;
            } else if (c->step_mode == WPART_DYN_STEP_ADAPTIVE) {
                S = hc;
            } else {
                S = h > s->snap_S_train ? h : s->snap_S_train;
                S = S < capS ? S : capS;
            }
        } else if (c->step_mode == WPART_DYN_STEP_ADAPTIVE) {
            S = hc;
        } else if (c->step_mode == WPART_DYN_STEP_RATCHET) {
            S = S > hc ? S : hc;
        }
    }
    if (S < q) {
        S = q;
    }

    /* 4. tail shrink (§2.7): "after 70 % was processed" = completed */
    if (c->tail_mode != WPART_DYN_TAIL_OFF &&
        (double)s->snap_completed >= c->tail_start * (double)W) {
        m_tail++;
    }
    double f = 1.0;
    if (m_tail > 0) {
        f = pow(1.0 - c->tail_alpha, c->tail_once ? 1.0 : (double)m_tail);
    }
    double S_eff_d = (double)S;
    if (m_tail > 0 && c->tail_mode == WPART_DYN_TAIL_RESOLVE) {
        double Hf = 0.0;
        WPART_CHECK(capacity(s, c->tail_floor_time, &Hf));
        if (c->step_fraction > 0.0) { /* steps scaled to the input: so is the tail's floor */
            double fr = (double)rem / (2.0 * (double)c->min_steps_left);
            Hf = fr > Hf ? fr : Hf;
        }
        double fl = Hf < (double)S ? Hf : (double)S;
        S_eff_d = (double)S * f > fl ? (double)S * f : fl;
    }
    /* relative slack: 300 * (1 - 0.9) must give 30, not 29 */
    int64_t S_eff = (int64_t)floor(S_eff_d * (1.0 + 1e-12) / (double)q) * q;
    if (S_eff < q) {
        S_eff = q;
    }

    /* 5. infeasible bounds: raise S; end-game: exclusion allowed (§1.8) */
    int64_t sum_lb = 0, sum_ub = 0;
    for (int32_t p = 0; p < n; p++) {
        sum_lb += s->w_ilb[p];
        sum_ub = sum_ub > INT64_MAX - s->w_iub[p] ? INT64_MAX : sum_ub + s->w_iub[p];
    }
    if (S_eff < sum_lb) {
        S_eff = sum_lb;
    }
    if (S_eff >= rem) {
        S_eff = rem;
        for (int32_t p = 0; p < n; p++) {
            s->w_ilb[p] = 0;
            s->w_lb[p] = 0.0;
        }
    }
    if (S_eff > sum_ub) {
        S_eff = sum_ub; /* per-PU caps bind */
    }

    /* 6. solve (P_S) and round (the paper's solveEquationSystem) */
    double T = 0.0, Tmax = 0.0;
    if (S_eff > 0) {
        const wpart_dynamic_solve_opts_t *so = &c->solve;
        wpart_dynamic_solve_opts_t sc;
        if (b->eval_control) { /* a long solve (many PUs) polls the driver's hooks */
            sc = c->solve;
            sc.control = b->eval_control;
            so = &sc;
        }
        WPART_CHECK(wpart_dynamic_solve_equal_time(n, timefn(), s, (double)S_eff,
                                                   s->w_lb, s->w_ub, so, s->w_x, &T));
        WPART_CHECK(wpart_dynamic_round_blocks_ctl(n, timefn(), s, s->w_x, S_eff, q,
                                                   s->w_ilb, s->w_iub, s->res_X, &Tmax,
                                                   b->eval_control));
    } else {
        memset(s->res_X, 0, (size_t)n * sizeof(int64_t));
    }

    /* 7. literal tail: scale each block, with floors (§2.7) */
    if (m_tail > 0 && c->tail_mode == WPART_DYN_TAIL_SCALE) {
        int64_t sum = 0;
        Tmax = 0.0;
        for (int32_t p = 0; p < n; p++) {
            int64_t B = s->res_X[p];
            if (B > 0) {
                int64_t Bs = (int64_t)floor((double)B * f * (1.0 + 1e-12) / (double)q) * q;
                double eB = E(s, p, (double)B);
                double thr = eB > 0 ? (double)B / eB : INFINITY;
                double xf = grid_eff(s, p, (double)q, (double)B, 0.5, thr);
                int64_t Ff = round_up_q((int64_t)ceil(xf), q);
                int64_t nb = s->w_bmin[p];
                nb = Bs > nb ? Bs : nb;
                nb = Ff > nb ? Ff : nb;
                nb = nb < B ? nb : B;
                s->res_X[p] = nb;
                double e = E(s, p, (double)nb);
                Tmax = e > Tmax ? e : Tmax;
            }
            sum += s->res_X[p];
        }
        S_eff = sum;
    }

    for (int32_t p = 0; p < n; p++) {
        s->res_lb[p] = s->w_bmin[p];
    }
    s->res_T = Tmax > 0 ? Tmax : T;
    s->res_S = S;
    s->res_S_eff = S_eff;
    s->res_m_tail = m_tail;
    s->res_token = token;
    s->res_ok = 1;
cleanup:
    if (st == WPART_EINVAL && sized && !s->lin) {
        /* the fitted models fail the solver (e.g. a model that dips below a sampled block,
         * which the solver refuses as a decreasing time function): this evaluation sizes its
         * step with the non-decreasing fallback, and the run goes on */
        fallback_slopes(s, n, q);
        s->lin = 1;
        s->n_fallback++;
        st = WPART_OK;
        goto retry;
    }
    s->lin = 0;
    return st;
}
