/* wpart/dynamic_model.h -- part of wpart/dynamic.h (see there).
 *
 * Per-PU performance models E_p(x) = F_p(x) + G_p(x) fitted from block measurements,
 * the equal-finish-time block-size problem (P_S) solved by water-filling, its time mode, and
 * the optimal discrete rounding.
 */
#ifndef WPART_DYNAMIC_MODEL_H
#define WPART_DYNAMIC_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "wpart/milp.h"
#include "wpart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Basis functions of u = x / x_scale; bit i of a mask is basis i, in this order:
 * x, x^2, x^3, e^x, ln x, x e^x, x ln x. */
#define WPART_DYN_NBASIS 7

/** Fitting options. Fill with wpart_dynamic_fit_opts_init; NULL means defaults. */
typedef struct {
    uint32_t allowed_mask; /* candidate basis functions (default 0x7f) */
    int intercept;         /* 1: candidate constant term (default 1; 0 in paper_strict) */
    int max_terms;         /* most basis functions per candidate, 1..7 (default 3) */
    int weighting;         /* 0 plain (default), 1 relative (weights 1/t^2) */
    double decay;          /* in (0, 1]; a sample of age a (newest 0) weighs decay^a (1.0) */
    int32_t window;        /* 0 = all samples, else only the last `window` (0) */
    int32_t grid_points;   /* admissibility grid, >= 2 (64) */
    double slope_floor;    /* extrapolation slope floor factor, >= 0 (0.5) */
} wpart_dynamic_fit_opts_t;

/** Sets the defaults listed in wpart_dynamic_fit_opts_t. */
void wpart_dynamic_fit_opts_init(wpart_dynamic_fit_opts_t *o);

/** A fitted model: a plain value (copy it freely). */
typedef struct {
    uint32_t mask;                 /* basis functions used by F */
    double coef[WPART_DYN_NBASIS]; /* F(u) = c0 + sum coef_i f_i(u), u = x / x_scale */
    double c0;
    double x_scale;                /* x_hi: the largest size in the fit */
    double g_slope, g_icept;       /* G(x) = g_slope * x / x_scale + g_icept (0 when x = 0) */
    double x_a, x_b, e_a, e_b, slope_hi; /* evaluation domain */
    double sse, aicc;              /* of F (aicc NaN for the bootstrap and the fallback) */
    int32_t m, m_distinct;         /* samples used, distinct sizes among them */
    int32_t kind;                  /* 0 fitted, 1 affine bootstrap, 2 proportional fallback */
    int32_t valid;                 /* 0 for a zeroed/unfitted model (evaluates to 0) */
} wpart_dynamic_model_t;

/** Number of doubles of a packed model (wpart_dynamic_model_pack). */
#define WPART_DYN_PACKED 23

/** Packs a model into WPART_DYN_PACKED doubles: mask, coef[7], c0, x_scale, g_slope, g_icept,
 * x_a, x_b, e_a, e_b, slope_hi, sse, aicc, m, m_distinct, kind, valid (integers exactly). */
void wpart_dynamic_model_pack(const wpart_dynamic_model_t *pm, double *out);

/** Inverse of wpart_dynamic_model_pack. WPART_EINVAL if a field is out of range. */
wpart_status_t wpart_dynamic_model_unpack(const double *in, wpart_dynamic_model_t *pm);

/** Bytes of scratch wpart_dynamic_model_fit needs for m samples (0 if m < 0 or overflow). */
size_t wpart_dynamic_fit_work_size(int64_t m);

/**
 * Fits the model of one PU (aggregation in canonical order, per-fit scaling, AICc
 * subset selection over <= max_terms basis functions with and without a constant, Householder
 * QR with unit-norm columns, admissibility on a log grid, affine bootstrap, proportional
 * fallback, paper-form transfer model, evaluation domain).
 *
 * x       m block sizes (> 0), in arrival order (oldest first)
 * t_comp  m compute times (finite, >= 0)
 * t_xfer  m transfer times (finite, >= 0) or NULL (no transfers: G == 0)
 * quantum block granularity (>= 1): the grid starts at max(quantum, x_lo / 8)
 * o       options or NULL
 * work    wpart_dynamic_fit_work_size(m) bytes of scratch (8-byte aligned), or NULL to let
 *         the function allocate; with a buffer the function never allocates
 * out     the model
 *
 * With relative weighting a zero time weighs as the smallest positive time of the fit. m_eff
 * (the sample count of AICc) is (sum w)^2 / sum w^2 over the decay weights only. The transfer
 * model uses the decay weights only.
 *
 * Status: WPART_EINVAL (NULL pointer, m < 1, x <= 0, a NaN/negative/infinite time, bad
 * options), WPART_ENOMEM (work == NULL and allocation failed).
 * Complexity: O(m log m + m_d * C) with C <= 126 candidates.
 */
wpart_status_t wpart_dynamic_model_fit(const int64_t *x, const double *t_comp,
                                       const double *t_xfer, int64_t m, int64_t quantum,
                                       const wpart_dynamic_fit_opts_t *o, void *work,
                                       wpart_dynamic_model_t *out);

/** E = F + G with its evaluation domain: E(x) = 0 for x <= 0, E(x_a) on
 * (0, x_a), the fitted functions on [x_a, x_b], linear with slope slope_hi beyond x_b.
 * Non-decreasing. 0 for an invalid model; NaN for NaN x. */
double wpart_dynamic_model_eval(const wpart_dynamic_model_t *pm, double x);
/** F alone (same domain rules; beyond x_b slope slope_hi - g_slope / x_scale). */
double wpart_dynamic_model_eval_comp(const wpart_dynamic_model_t *pm, double x);
/** G alone (0 for x <= 0, g_slope * x / x_scale + g_icept otherwise; held at x_a below x_a). */
double wpart_dynamic_model_eval_xfer(const wpart_dynamic_model_t *pm, double x);
/** out[i] = E(x[i]) (which 0), F(x[i]) (which 1) or G(x[i]) (which 2) for i < k. */
void wpart_dynamic_model_eval_vec(const wpart_dynamic_model_t *pm, int which, const double *x,
                                  int64_t k, double *out);

/** sup{x in [lo, hi] : E(x) <= t} (lo if none; hi may be +inf, and the result is +inf when E
 * stays <= t forever). Relative accuracy 1e-12. WPART_EINVAL: NULL pointers, NaN, lo < 0,
 * lo > hi, lo infinite. */
wpart_status_t wpart_dynamic_model_inverse(const wpart_dynamic_model_t *pm, double t, double lo,
                                           double hi, double *x_out);

/** A time function: E_p(x) for PU p, non-decreasing in x, E_p(0) >= 0. NaN signals an error
 * (the solver then returns WPART_EINVAL). */
typedef double (*wpart_dynamic_time_fn)(void *ctx, int64_t p, double x);

/** The time function of an array of models: ctx is wpart_dynamic_model_t[n]. */
double wpart_dynamic_model_timefn(void *models, int64_t p, double x);

/** Solver options; NULL means defaults. */
typedef struct {
    double tol_T;          /* relative bracket width on T (1e-10) */
    double tol_x;          /* relative accuracy of the inner inverse (1e-12) */
    int32_t max_outer;     /* 200 */
    int32_t max_inner;     /* 100 */
    int32_t newton_polish; /* 0; 1: polish the (n+1) system [E_p(x_p) = T, sum x = S] */
    const wpart_control_t *control; /* NULL; else polled every few thousand PUs: a stop
                                          * request or its time_limit is WPART_ECANCELLED */
} wpart_dynamic_solve_opts_t;

/** Sets tol_T 1e-10, tol_x 1e-12, max_outer 200, max_inner 100, newton_polish 0. */
void wpart_dynamic_solve_opts_init(wpart_dynamic_solve_opts_t *o);

/**
 * Solves (P_S): min T s.t. E_p(x_p) <= T, sum x_p = S, lb <= x <= ub, by
 * water-filling on T: Newton steps on H(T) = sum x_p(T) - S (H' from secant slopes), kept inside
 * the bracket [T_lo, T_hi] and backed by Illinois regula falsi and bisection, with a
 * safeguarded secant (Illinois)/bisection inner inverse x_p(T) = sup{x in [lb_p, ub_p] :
 * E_p(x) <= T} started from a predicted bracket.
 * Globally optimal for non-decreasing E_p. The final x and T interpolate between the ends of
 * the last bracket [T_lo, T_hi] so that sum x = S to rounding also where H jumps (flat
 * stretches of E); every PU has E_p(x_p) <= T (to the tolerance) or sits at lb_p.
 * With E == wpart_dynamic_model_timefn (fitted models, n <= 512) the solver first takes Newton
 * steps on [E_p(x_p) = T inside the bounds, sum x = S] with the models' analytic derivatives,
 * from the equal split, and keeps that answer when it meets the optimality conditions to a
 * relative 1e-13 (about 3 us at 16 PUs); otherwise, and for any other E, the water-filling.
 * Every value of E read is checked: NaN, +-inf, a negative time, or E seen to decrease
 * between two sizes the solver evaluated (the bracket ends and every point inside, beyond a
 * relative 1e-9) is WPART_EINVAL with a message naming the PU.
 *
 * n, E, ctx  the PUs and their time function
 * S          the step volume, finite, > 0
 * lb, ub     n bounds each, or NULL (0 / +inf); 0 <= lb <= ub, ub may be +inf
 * x_out      n doubles: the allocation (sums to S)
 * T_out      the water level T*: the common time of the PUs strictly inside their bounds.
 *            The makespan is max(T*, max of E_p(lb_p) over PUs held at lb_p).
 *
 * Infeasible bounds: if sum lb > S, the lower bounds are scaled by
 * S / sum lb (keeping their proportions) and the problem is solved with them. sum ub < S is
 * WPART_EINVAL. No allocation (for n <= 128 the inner brackets are warm-started from a stack
 * buffer of about 12 KB, above that they start cold).
 *
 * Status: WPART_EINVAL (n < 1, NULL pointers, S not finite or <= 0, NaN/negative bounds,
 * lb > ub, sum ub < S, E returned NaN, inf or a negative time, or decreased).
 * Complexity: the Newton path takes about 5 evaluations of E and E' per PU; the water-filling
 * O(n * outer * inner) evaluations of E (about 45 per PU).
 */
wpart_status_t wpart_dynamic_solve_equal_time(int64_t n, wpart_dynamic_time_fn E, void *ctx,
                                              double S, const double *lb, const double *ub,
                                              const wpart_dynamic_solve_opts_t *o, double *x_out,
                                              double *T_out);

/** Time mode: x_p(T) = sup{x in [lb_p, ub_p] : E_p(x) <= T} (lb_p if empty) and H = sum x_p.
 * x_p is +inf when ub_p = +inf and E_p stays <= T. Status as for the solver. No allocation. */
wpart_status_t wpart_dynamic_capacity(int64_t n, wpart_dynamic_time_fn E, void *ctx, double T,
                                      const double *lb, const double *ub, double *x_out,
                                      double *H_out);

/**
 * Discrete rounding: b_p = max(lb_p, q floor(x_p / q)), then while r = S - sum b >= q
 * give one quantum to argmin_p E_p(b_p + q) (among b_p + q <= ub_p), then the remainder r < q
 * to argmin_p E_p(b_p + r); ties go to the lowest p. Optimal for the discrete min-max when
 * x_cont is the solution of (P_S) and E_p is non-decreasing. If sum b > S (x_cont above S),
 * quanta are taken back from argmax_p E_p(b_p) (down to lb_p). If sum lb > S the lower bounds
 * are first scaled to q floor(lb_p S / sum lb / q). If the quanta do not fit
 * under ub, the rest is spread in pieces over the PUs with room.
 *
 * x_cont    n continuous sizes (finite, >= 0)
 * S         elements to hand out, >= 1
 * quantum   >= 1
 * lb, ub    n bounds each or NULL (0 / unbounded); sum ub >= S
 * blocks_out n sizes summing to S
 * Tmax_out  max_p E_p(b_p) over the PUs with b_p > 0 (no block, no cost; may be NULL)
 *
 * Status: WPART_EINVAL (bad arguments, infeasible ub, E NaN, inf or negative); WPART_ENOMEM.
 * Allocates two arrays of n entries beyond 256 PUs (the heap).
 * Complexity: O((n + k) log n) for the k quanta handed out or taken back after the floor (a
 * heap; k = O(n) after the water-level step), plus O(n) per piece when quanta do not fit
 * under ub.
 */
wpart_status_t wpart_dynamic_round_blocks(int64_t n, wpart_dynamic_time_fn E, void *ctx,
                                          const double *x_cont, int64_t S, int64_t quantum,
                                          const int64_t *lb, const int64_t *ub,
                                          int64_t *blocks_out, double *Tmax_out);

/** wpart_dynamic_round_blocks polling control (may be NULL) every few thousand evaluations:
 * a stop request or control->time_limit returns WPART_ECANCELLED (blocks_out unspecified). */
wpart_status_t wpart_dynamic_round_blocks_ctl(int64_t n, wpart_dynamic_time_fn E, void *ctx,
                                              const double *x_cont, int64_t S, int64_t quantum,
                                              const int64_t *lb, const int64_t *ub,
                                              int64_t *blocks_out, double *Tmax_out,
                                              const wpart_control_t *control);

/**
 * equal_finish: integer sizes that finish together. Solves (P_S) for S = total (no bounds,
 * default solver options with `control`), clamps the split at 0, then rounds it optimally to
 * multiples of `quantum` (wpart_dynamic_round_blocks_ctl, no bounds): the remainder
 * total mod quantum goes to the PU that finishes it first.
 *
 * n, E, ctx   the PUs and their time function (E_p(0) = 0 makes an empty block free)
 * total       elements to hand out, >= 1
 * quantum     >= 1
 * control     polled by the solve and the rounding (may be NULL)
 * blocks_out  n sizes summing to total
 * time_out    the makespan of the sizes (max E_p(b_p) over b_p > 0; may be NULL)
 * T_out       the water level of the continuous split, at most time_out (may be NULL)
 *
 * Status: those of the two steps (WPART_EINVAL, WPART_ENOMEM, WPART_ECANCELLED); WPART_EINVAL
 * for total or quantum < 1. Allocates n doubles beyond 32 PUs.
 * Complexity: the solve's plus the rounding's.
 */
wpart_status_t wpart_dynamic_equal_finish(int64_t n, wpart_dynamic_time_fn E, void *ctx,
                                          int64_t total, int64_t quantum,
                                          const wpart_control_t *control, int64_t *blocks_out,
                                          double *time_out, double *T_out);

/**
 * The oracle_milp cross-check: min T s.t. PWL_p(x_p) <= T, sum x_p = W, x_p = q k_p
 * (integer k_p), where PWL_p interpolates the K breakpoints (bx[p*K + k], bt[p*K + k]) of PU p
 * (bx strictly increasing, bx[p*K] = 0 allowed). SOS2 is modelled with K - 1 segment binaries
 * per PU (the curves may be concave). If W is not a multiple of q, one PU takes the remainder
 * (x_p = q k_p + r y_p with a binary y, sum y = 1). Built on wpart_milp_solve (GLPK).
 *
 * x_out  n sizes (int64) when res->status is OPTIMAL or FEASIBLE
 * T_out  the optimal T of the PWL problem (NaN when none)
 * Status: WPART_EINVAL, WPART_ENOMEM, WPART_ESOLVER, WPART_ENOSOLVER (see wpart_milp_solve).
 */
wpart_status_t wpart_dynamic_oracle_milp(int64_t n, int64_t K, const double *bx,
                                         const double *bt, int64_t W, int64_t quantum,
                                         const wpart_milp_options_t *opt, int64_t *x_out,
                                         double *T_out, wpart_milp_result_t *res);

#ifdef __cplusplus
}
#endif

#endif
