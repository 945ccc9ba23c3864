/*
 * model_solve_internal.h -- shared by the block-size solver (model_solve.c), its Newton path on
 * fitted models (model_solve_fast.c) and the rounding (model_round.c); private.
 */
#ifndef WPART_MODEL_SOLVE_INTERNAL_H
#define WPART_MODEL_SOLVE_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "wpart/dynamic_model.h"

/** Most PUs of the fast path (its state lives on the stack). */
#define WPART_I_DYN_FAST_MAX 512

/** (P_S) on fitted models by Newton's method with analytic derivatives. Returns 1 with x (n
 * sizes summing to S) and *T_out (the water level) when the answer passes the optimality
 * conditions, 0 otherwise (x then holds garbage and the caller must solve another way). */
int wpart_i_dyn_solve_models_fast(int64_t n, const wpart_dynamic_model_t *M, double S,
                                  const double *lb, const double *ub, double *x, double *T_out);

/* The first bad value a time function returned: 1 NaN, 2 infinite, 3 negative, 4 decreasing
 * (E(x) = e > E(x2) = e2 with x < x2). */
typedef struct {
    int code;
    int64_t p;
    double x, e, x2, e2;
} cerr_t;

/* 1 (and ce filled, if still empty) when e is not a finite time >= 0. */
static inline int cbad(cerr_t *ce, int64_t p, double x, double e)
{
    if (isfinite(e) && e >= 0.0) {
        return 0;
    }
    if (!ce->code) {
        ce->code = isnan(e) ? 1 : (isinf(e) && e > 0.0) ? 2 : 3;
        ce->p = p;
        ce->x = x;
        ce->e = e;
    }
    return 1;
}

/* 1 (and ce filled) when E(x) = e > E(x2) = e2 for x < x2, by more than the rounding noise of
 * an evaluation (a relative 1e-9: fitted models with cancelling terms wobble by a few ulps). */
static inline int cdec(cerr_t *ce, int64_t p, double x, double e, double x2, double e2)
{
    if (!(x < x2 && e - e2 > 1e-9 * e)) {
        return 0;
    }
    if (!ce->code) {
        ce->code = 4;
        ce->p = p;
        ce->x = x;
        ce->e = e;
        ce->x2 = x2;
        ce->e2 = e2;
    }
    return 1;
}

/** WPART_EINVAL with a message naming the PU and the bad value of ce (ce->code != 0). */
wpart_status_t wpart_i_dyn_cerr_fail(const cerr_t *ce);

/** x(T) = sup{x in [lo, hi] : E(x) <= T} from scratch (hi may be +inf; lo when E(lo) > T),
 * relative accuracy tol_x; a bad value of E fills ce. */
double wpart_i_dyn_inv_cold(wpart_dynamic_time_fn E, void *ctx, int64_t p, double T, double lo,
                            double hi, double tol_x, int max_inner, cerr_t *ce);

#endif
