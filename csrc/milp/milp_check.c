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
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#include "milp_internal.h"

int wpart_i_milp_check(const wpart_milp_problem_t *p, const double *x, const int *row_exp,
                       const int *col_exp, double tol, double *work, char *why, size_t why_size)
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
        /* relative to the column's own magnitude: its value, or the unit it reached GLPK in */
        double unit = col_exp ? ldexp(1.0, col_exp[j]) : 1.0;
        double t = tol * fmax(unit, fabs(v));
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
    double *mag = work + p->n_rows; /* sum of |a_ij x_j|: the size of the row's terms */
    for (int64_t i = 0; i < p->n_rows; i++) {
        act[i] = 0.0;
        mag[i] = 0.0;
    }
    for (int64_t k = 0; k < p->nnz; k++) {
        double t = p->a_val[k] * x[p->a_col[k]];
        act[p->a_row[k]] += t;
        mag[p->a_row[k]] += fabs(t);
    }
    for (int64_t i = 0; i < p->n_rows; i++) {
        double lo = p->row_lb ? p->row_lb[i] : -INFINITY;
        double hi = p->row_ub ? p->row_ub[i] : INFINITY;
        /* Relative to the magnitudes in the row itself (its terms and bounds) and to the unit
         * the row reached GLPK in (2^row_exp[i]: GLPK's largest coefficient in the row is 1);
         * no absolute floor: a row of 1e-150 terms is checked at about 1e-156, not at 1e-6,
         * while a term of 1e-296 beside coefficients of 5 stays below the tolerance. */
        double scale = fmax(mag[i], row_exp ? ldexp(1.0, row_exp[i]) : 1.0);
        if (isfinite(lo)) {
            scale = fmax(scale, fabs(lo));
        }
        if (isfinite(hi)) {
            scale = fmax(scale, fabs(hi));
        }
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
 * Exact scaling for GLPK, whose tolerances are absolute. Everything is multiplied by powers of
 * two (which changes no answer): coefficient a_ij is loaded as a_ij 2^(-row_exp[i] + col_exp[j]),
 * the bounds of row i times 2^-row_exp[i], the bounds of column j times 2^-col_exp[j] (GLPK's
 * x'_j = x_j 2^-col_exp[j]), the objective times 2^-obj_exp (the column factors are chosen
 * below).
 * Rejects (WPART_EINVAL, naming row, column and value) a coefficient that would fall below the
 * normal range after scaling (GLPK would read it as 0 or fail to scale it), and a finite row
 * bound that would overflow.
 */
#define MILP_COL_EXP_MAX 1000

wpart_status_t wpart_i_milp_scale(const wpart_milp_problem_t *p, wpart_i_milp_matrix_t *M,
                                  int *row_exp, int *col_exp, int *obj_exp)
{
    /* Work in exponents e_k = ilogb(|a_k|). Integer columns keep the factor 1. A row with an
     * integer entry has the reference ref_i = the largest exponent among its integer entries.
     * A continuous column j is given a larger unit only as far as every row agrees: with
     * d_ij = e_ij - ref_i, by 2^min d_ij when all d_ij > 0, provided every row of j has an
     * integer entry and the objective keeps its balance (c_j = 0, or j alone in the
     * objective). So the bottleneck z in rows 1e-150 y_k - z <= 0 (y_k binary) reaches GLPK in
     * units of 1e-150, while a column with an ordinary entry beside the 1e-300 of one binary
     * column keeps its scale. Then every row is scaled so that its largest |coefficient| lies
     * in [1, 2). */
    int64_t nr = p->n_rows, nc = p->n_cols;
    int *ref = wpart_i_malloc((size_t)nr + 1, sizeof *ref);
    int *dlo = wpart_i_malloc((size_t)nc + 1, sizeof *dlo);
    int *dhi = wpart_i_malloc((size_t)nc + 1, sizeof *dhi);
    int *rcnt = wpart_i_malloc((size_t)nr + 1, sizeof *rcnt);
    if (!ref || !dlo || !dhi || !rcnt) {
        free(rcnt);
        free(ref);
        free(dlo);
        free(dhi);
        return wpart_i_error(WPART_ENOMEM, "scale factors");
    }
    for (int64_t i = 0; i < nr; i++) {
        ref[i] = INT_MIN;
        rcnt[i] = 0;
    }
    for (int k = 1; k <= M->ne; k++) {
        rcnt[M->ia[k] - 1]++;
    }
    for (int k = 1; k <= M->ne; k++) {
        int i = M->ia[k] - 1, j = M->ja[k] - 1, e = ilogb(M->ar[k]);
        if (wpart_i_milp_col_kind(p, j) != WPART_MILP_CONTINUOUS && e > ref[i]) {
            ref[i] = e;
        }
    }
    for (int64_t j = 0; j < nc; j++) {
        dlo[j] = INT_MAX;
        dhi[j] = INT_MIN;
    }
    for (int k = 1; k <= M->ne; k++) {
        int i = M->ia[k] - 1, j = M->ja[k] - 1;
        if (wpart_i_milp_col_kind(p, j) != WPART_MILP_CONTINUOUS) {
            continue;
        }
        if (ref[i] == INT_MIN && rcnt[i] == 1) {
            continue; /* x_j alone in its row: a bound, which the row scaling absorbs */
        }
        if (ref[i] == INT_MIN) {
            dhi[j] = INT_MAX; /* a row with no integer entry: leave the column alone */
            dlo[j] = INT_MIN;
            continue;
        }
        if (dhi[j] == INT_MAX) {
            continue;
        }
        int d = ilogb(M->ar[k]) - ref[i];
        dlo[j] = d < dlo[j] ? d : dlo[j];
        dhi[j] = d > dhi[j] ? d : dhi[j];
    }
    int64_t n_obj = 0;
    for (int64_t j = 0; p->c && j < nc; j++) {
        n_obj += p->c[j] != 0.0;
    }
    for (int64_t j = 0; j < nc; j++) {
        int sc = 0;
        /* only downwards (a larger unit for x_j), and only where the objective keeps its
         * balance: c_j = 0, or x_j the only column in the objective */
        int obj_ok = !p->c || p->c[j] == 0.0 || n_obj == 1;
        if (dlo[j] != INT_MAX && dlo[j] != INT_MIN && dlo[j] > 0 && obj_ok) {
            sc = -dlo[j];
        }
        sc = sc > MILP_COL_EXP_MAX ? MILP_COL_EXP_MAX : sc < -MILP_COL_EXP_MAX ? -MILP_COL_EXP_MAX : sc;
        double l = wpart_i_milp_col_lb(p, j), u = wpart_i_milp_col_ub(p, j);
        if ((isfinite(l) && (!isfinite(ldexp(l, -sc)) || (l != 0.0 && fabs(ldexp(l, -sc)) < DBL_MIN))) ||
            (isfinite(u) && (!isfinite(ldexp(u, -sc)) || (u != 0.0 && fabs(ldexp(u, -sc)) < DBL_MIN)))) {
            sc = 0; /* its bounds would not survive the scaling */
        }
        col_exp[j] = sc;
    }
    free(ref);
    free(rcnt);
    free(dlo);
    free(dhi);
    /* rows: largest |coefficient| in [1, 2) */
    for (int64_t i = 0; i < nr; i++) {
        row_exp[i] = INT_MIN;
    }
    for (int k = 1; k <= M->ne; k++) {
        int i = M->ia[k] - 1, e = ilogb(M->ar[k]) + col_exp[M->ja[k] - 1];
        row_exp[i] = e > row_exp[i] ? e : row_exp[i];
    }
    for (int64_t i = 0; i < nr; i++) {
        if (row_exp[i] == INT_MIN) {
            row_exp[i] = 0;
        }
    }
    for (int k = 1; k <= M->ne; k++) {
        int i = M->ia[k] - 1, j = M->ja[k] - 1;
        double v = ldexp(M->ar[k], col_exp[j] - row_exp[i]);
        if (!(fabs(v) >= DBL_MIN) || !isfinite(v)) {
            return wpart_i_error(WPART_EINVAL,
                                 "A[%d, %d] = %.17g is too small next to the largest |coefficient| "
                                 "of row %d for GLPK (ratio below 2^-1022 after scaling): rescale "
                                 "the column or drop the coefficient", i, j, M->ar[k], i);
        }
        M->ar[k] = v;
    }
    for (int64_t i = 0; i < nr; i++) {
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
    for (int64_t j = 0; p->c && j < nc; j++) {
        cmax = fmax(cmax, fabs(ldexp(p->c[j], col_exp[j])));
    }
    *obj_exp = 0;
    if (cmax > 0.0 && isfinite(cmax)) {
        int e;
        frexp(cmax, &e);
        *obj_exp = e - 1;
    }
    return WPART_OK;
}
