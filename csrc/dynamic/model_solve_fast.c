/*
 * model_solve_fast.c -- the equal-time solve (P_S) on fitted models, by Newton's method on the
 * coupled system [E_p(x_p) = T for the PUs inside their bounds, sum x_p = S] with the models'
 * analytic derivatives (Sec. 3.2 of [Sant'Ana 2017]).
 *
 * Each iteration evaluates E_p and E_p' once per PU and solves the linearised system exactly:
 * the step of T is the root of the piecewise-linear sum of the clamped linearisations (a PU
 * whose model is flat below x_a takes lb there while E(x_a) is above the level). It starts
 * from the equal split and converges quadratically (4 to 6 iterations on the fitted models of
 * the benchmarks). The answer is accepted only when it meets the optimality conditions on the
 * models' own values (|E_p(x_p) - T| <= 1e-13 T inside the bounds, E_p >= T at a lower bound,
 * <= T at an upper one); anything else (the level on a jump of the sum, an active set that
 * does not settle, a non-positive slope, no convergence) returns 0 and the caller runs the
 * water-filling instead. No allocation.
 */
#include <float.h>
#include <math.h>

#include "internal.h"
#include "model_solve_internal.h"
#include "wpart/dynamic_model.h"

#define FAST_MAX_IT 40
#define FAST_MAX_PASS 24
#define FAST_STEP 1e-6 /* a check of the conditions follows a step below FAST_STEP * S */
#define FAST_TOL 1e-13 /* |E_p(x_p) - T| <= FAST_TOL * T for the PUs inside their bounds */
/* once the steps are rounding noise (below FAST_STALL * S) the models' own evaluation noise
 * (cancelling terms) may keep the residual above FAST_TOL: then FAST_TOL_STALL, the tolerance
 * of the water-filling on T */
#define FAST_STALL 1e-13
#define FAST_TOL_STALL 1e-10

/* E(x) and E'(x); E is computed with the same operations, in the same order, as
 * wpart_dynamic_model_eval, so the checks of the optimality conditions read the values the
 * rest of wpart sees. At x <= x_a the value is E(x_a) and the slope the right derivative
 * there; beyond x_b the linear extension. */
static inline void model_ed(const wpart_dynamic_model_t *pm, double x, double *e, double *d)
{
    if (x >= pm->x_b) {
        *e = pm->e_b + pm->slope_hi * (x - pm->x_b);
        *d = pm->slope_hi;
        return;
    }
    int flat = x <= pm->x_a;
    double u = (flat ? pm->x_a : x) / pm->x_scale;
    uint32_t mask = pm->mask;
    const double *c = pm->coef;
    double s = pm->c0, ds = 0.0;
    if (mask & 0x7u) {
        if (mask & 1u) {
            s += c[0] * u;
            ds += c[0];
        }
        if (mask & 2u) {
            s += c[1] * u * u;
            ds += c[1] * (2.0 * u);
        }
        if (mask & 4u) {
            s += c[2] * u * u * u;
            ds += c[2] * (3.0 * u * u);
        }
    }
    if (mask & 0x28u) {
        double ex = exp(u);
        if (mask & 8u) {
            s += c[3] * ex;
            ds += c[3] * ex;
        }
        if (mask & 32u) {
            s += c[5] * u * ex;
            ds += c[5] * ((1.0 + u) * ex);
        }
    }
    if (mask & 0x50u) {
        double l = log(u);
        if (mask & 16u) {
            s += c[4] * l;
            ds += c[4] / u;
        }
        if (mask & 64u) {
            s += c[6] * u * l;
            ds += c[6] * (l + 1.0);
        }
    }
    *e = flat ? pm->e_a : s + pm->g_slope * u + pm->g_icept;
    *d = (ds + pm->g_slope) / pm->x_scale;
}

int wpart_i_dyn_solve_models_fast(int64_t n, const wpart_dynamic_model_t *M, double S,
                                  const double *lb, const double *ub, double *x, double *T_out)
{
    if (n < 1 || n > WPART_I_DYN_FAST_MAX) {
        return 0;
    }
    /* L: the smallest size on the smooth part (max(lb, x_a)); Lv: what a PU below it takes
     * (lb: a PU whose model is flat up to x_a gets nothing beyond lb while E(x_a) > T) */
    double L[WPART_I_DYN_FAST_MAX], Lv[WPART_I_DYN_FAST_MAX], U[WPART_I_DYN_FAST_MAX];
    double e[WPART_I_DYN_FAST_MAX], d[WPART_I_DYN_FAST_MAX];
    signed char s[WPART_I_DYN_FAST_MAX]; /* -1 low (at Lv), 0 inside, +1 at U */
    double v = S / (double)n;
    for (int64_t p = 0; p < n; p++) {
        const wpart_dynamic_model_t *pm = M + p;
        if (!pm->valid || !(pm->x_scale > 0.0)) {
            return 0;
        }
        double l = lb ? lb[p] : 0.0, u = ub ? fmin(ub[p], S) : S;
        L[p] = fmax(l, pm->x_a);
        Lv[p] = l;
        U[p] = u;
        if (!(L[p] < U[p])) {
            return 0;
        }
        x[p] = fmin(fmax(v, L[p]), U[p]); /* Newton starts from the equal split */
        s[p] = 0;
    }
    double T = NAN, step = INFINITY;
    for (int it = 0; it < FAST_MAX_IT; it++) {
        for (int64_t p = 0; p < n; p++) {
            model_ed(M + p, x[p], &e[p], &d[p]);
            if (!(d[p] > 0.0) || !isfinite(d[p]) || !isfinite(e[p])) {
                return 0;
            }
        }
        /* done when the last step was small and x meets the optimality conditions at T (on
         * the models' own values: model_ed computes E as wpart_dynamic_model_eval does) */
        if (step <= FAST_STEP * S) {
            double tolT = (step <= FAST_STALL * S ? FAST_TOL_STALL : FAST_TOL) * T;
            int good = 1;
            for (int64_t p = 0; p < n && good; p++) {
                if (s[p] == 0) {
                    good = fabs(e[p] - T) <= tolT && x[p] > M[p].x_a;
                } else if (s[p] < 0 && Lv[p] < L[p]) {
                    /* below the smooth part: E is E(x_a) on (0, x_a], above the water level */
                    good = M[p].e_a > T + tolT;
                } else if (s[p] < 0) {
                    good = e[p] >= T - tolT; /* at its lower bound, at or above the level */
                } else {
                    good = e[p] <= T + tolT; /* at its upper bound, at or below the level */
                }
            }
            if (good) {
                *T_out = T;
                return 1;
            }
        }
        /* T' with sum_p clamp(x_p + (T' - e_p) / d_p, L_p, U_p) = S: an active-set iteration
         * on the piecewise-linear sum, started from the last active set (a PU below its
         * smooth part, at Lv < L, is linearised at L: e and d were taken there) */
        double Tn = isfinite(T) ? T : 0.0;
        int settled = 0, all_fixed = 0;
        for (int pass = 0; pass < FAST_MAX_PASS; pass++) {
            double A = 0.0, B = 0.0;
            for (int64_t p = 0; p < n; p++) {
                if (s[p] == 0) {
                    A += 1.0 / d[p];
                    B += fmax(x[p], L[p]) - e[p] / d[p];
                } else {
                    B += s[p] < 0 ? Lv[p] : U[p];
                }
            }
            if (!(A > 0.0) && fabs(B - S) <= 4.0 * DBL_EPSILON * S) {
                /* every PU at a bound and they sum to S: the water level is the largest time
                 * of the PUs at their upper bound */
                Tn = 0.0;
                for (int64_t p = 0; p < n; p++) {
                    if (s[p] > 0) {
                        Tn = fmax(Tn, wpart_dynamic_model_eval(M + p, U[p]));
                    }
                }
                all_fixed = 1;
                settled = 1;
                break;
            }
            if (!(A > 0.0)) {
                /* every PU at a bound: free one on the side that moves the sum towards S */
                int64_t best = -1;
                for (int64_t p = 0; p < n; p++) {
                    if ((s[p] < 0 && B < S) || (s[p] > 0 && B > S)) {
                        best = p;
                        break;
                    }
                }
                if (best < 0) {
                    return 0;
                }
                s[best] = 0;
                continue;
            }
            Tn = (S - B) / A;
            int changed = 0;
            for (int64_t p = 0; p < n; p++) {
                double xp = fmax(x[p], L[p]) + (Tn - e[p]) / d[p];
                signed char ns = xp <= L[p] ? -1 : xp >= U[p] ? 1 : 0;
                changed |= ns != s[p];
                s[p] = ns;
            }
            if (!changed) {
                settled = 1;
                break;
            }
        }
        if (!settled || !isfinite(Tn) || !(Tn > 0.0)) {
            return 0;
        }
        step = 0.0;
        for (int64_t p = 0; p < n; p++) {
            double xp = s[p] < 0   ? Lv[p]
                        : s[p] > 0 ? U[p]
                                   : fmax(x[p], L[p]) + (Tn - e[p]) / d[p];
            step = fmax(step, fabs(xp - x[p]));
            x[p] = xp;
        }
        T = Tn;
        if (all_fixed) {
            step = 0.0; /* nothing left to move: the next pass only checks */
        }
    }
    return 0;
}
