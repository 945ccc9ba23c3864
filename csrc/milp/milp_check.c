/*
 * milp_check.c -- independent check of a MILP solution against its own problem.
 *
 * GLPK's MIP presolver can report an infeasible problem "optimal" (for example
 * 1 <= 3x <= 2 with x binary gives x = 1), so wpart_milp_solve never trusts a returned point:
 * it re-checks every row, bound and integrality here and re-solves without the presolver when
 * the point violates its own constraints.
 */
#include <math.h>
#include <stdio.h>

#include "milp_internal.h"

int wpart_i_milp_check(const wpart_milp_problem_t *p, const double *x, double tol, double *work,
                       char *why, size_t why_size)
{
    double *act = work;
    if (why && why_size) {
        why[0] = '\0';
    }
    for (int64_t j = 0; j < p->n_cols; j++) {
        double v = x[j];
        double lo = p->lb ? p->lb[j] : 0.0, hi = p->ub ? p->ub[j] : INFINITY;
        int kind = p->kind ? (int)p->kind[j] : WPART_MILP_CONTINUOUS;
        if (!isfinite(v)) {
            snprintf(why, why_size, "column %lld is %g", (long long)j, v);
            return 0;
        }
        double t = tol * fmax(1.0, fabs(v));
        if (v < lo - t || v > hi + t) {
            snprintf(why, why_size, "column %lld = %.17g outside its bounds [%g, %g]",
                     (long long)j, v, lo, hi);
            return 0;
        }
        if (kind != WPART_MILP_CONTINUOUS && fabs(v - nearbyint(v)) > tol) {
            snprintf(why, why_size, "integer column %lld = %.17g is not integral", (long long)j, v);
            return 0;
        }
    }
    for (int64_t i = 0; i < p->n_rows; i++) {
        act[i] = 0.0;
    }
    double *mag = NULL; /* magnitudes: accumulate |a x| in a second pass to scale the tolerance */
    (void)mag;
    for (int64_t k = 0; k < p->nnz; k++) {
        act[p->a_row[k]] += p->a_val[k] * x[p->a_col[k]];
    }
    for (int64_t i = 0; i < p->n_rows; i++) {
        double lo = p->row_lb ? p->row_lb[i] : -INFINITY;
        double hi = p->row_ub ? p->row_ub[i] : INFINITY;
        double scale = 1.0;
        if (isfinite(lo)) {
            scale = fmax(scale, fabs(lo));
        }
        if (isfinite(hi)) {
            scale = fmax(scale, fabs(hi));
        }
        scale = fmax(scale, fabs(act[i]));
        double t = tol * scale;
        if (act[i] < lo - t || act[i] > hi + t) {
            snprintf(why, why_size, "row %lld: activity %.17g outside [%g, %g]", (long long)i,
                     act[i], lo, hi);
            return 0;
        }
    }
    return 1;
}
