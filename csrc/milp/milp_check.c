/*
 * milp_check.c -- independent check of a MILP solution against its own problem.
 *
 * GLPK's MIP presolver can report an infeasible problem "optimal" (for example
 * 1 <= 3x <= 2 with x binary gives x = 1), so wpart_milp_solve never trusts a returned point:
 * it re-checks every row, bound and integrality here and re-solves without the presolver when
 * the point violates its own constraints.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "internal.h"

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

/*
 * Exact scaling for GLPK, whose tolerances are absolute: row i of M is multiplied by
 * 2^-row_exp[i] so that its largest |coefficient| lies in [1, 2) (its bounds are scaled when
 * loaded), and the objective by 2^-obj_exp likewise. Multiplying by a power of two changes no
 * answer; the solution check uses the caller's unscaled model. Rejects (WPART_EINVAL, naming
 * row, column and value) a coefficient that would fall below the normal range after scaling
 * (smaller than 2^-1022 times the largest of its row: GLPK would read it as 0 or fail to
 * scale it), and a finite row bound that would overflow.
 */
wpart_status_t wpart_i_milp_scale(const wpart_milp_problem_t *p, wpart_i_milp_matrix_t *M,
                                  int *row_exp, int *obj_exp)
{
    for (int64_t i = 0; i < p->n_rows; i++) {
        row_exp[i] = INT_MIN; /* no entry yet */
    }
    for (int k = 1; k <= M->ne; k++) {
        int e;
        frexp(M->ar[k], &e);
        int i = M->ia[k] - 1;
        if (e - 1 > row_exp[i]) {
            row_exp[i] = e - 1;
        }
    }
    for (int64_t i = 0; i < p->n_rows; i++) {
        if (row_exp[i] == INT_MIN) {
            row_exp[i] = 0;
        }
    }
    for (int k = 1; k <= M->ne; k++) {
        int i = M->ia[k] - 1;
        double v = ldexp(M->ar[k], -row_exp[i]);
        if (fabs(v) < DBL_MIN) {
            return wpart_i_error(WPART_EINVAL,
                                 "A[%d, %d] = %.17g is too small next to the largest |coefficient| "
                                 "of row %d (%.17g) for GLPK (ratio below 2^-1022): rescale the "
                                 "column or drop the coefficient", i, M->ja[k] - 1, M->ar[k], i,
                                 ldexp(1.0, row_exp[i]));
        }
        M->ar[k] = v;
    }
    for (int64_t i = 0; i < p->n_rows; i++) {
        double b[2] = {wpart_i_milp_row_lb(p, i), wpart_i_milp_row_ub(p, i)};
        for (int s = 0; s < 2; s++) {
            if (isfinite(b[s]) && !isfinite(ldexp(b[s], -row_exp[i]))) {
                return wpart_i_error(WPART_EINVAL,
                                     "%s[%lld] = %.17g is too large for the coefficients of its "
                                     "row (largest |coefficient| about %.3g): rescale the row",
                                     s ? "b_upper" : "b_lower", (long long)i, b[s],
                                     ldexp(1.0, row_exp[i]));
            }
        }
    }
    double cmax = 0.0;
    for (int64_t j = 0; p->c && j < p->n_cols; j++) {
        cmax = fmax(cmax, fabs(p->c[j]));
    }
    *obj_exp = 0;
    if (cmax > 0.0) {
        int e;
        frexp(cmax, &e);
        *obj_exp = e - 1;
    }
    return WPART_OK;
}
