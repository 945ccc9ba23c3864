/* milp_internal.h -- private helpers of the MILP layer (csrc/milp/). */
#ifndef WPART_MILP_INTERNAL_H
#define WPART_MILP_INTERNAL_H

#include <stddef.h>

#include "wpart/milp.h"

/**
 * Checks a solution against every row, column bound and integrality requirement of p, with
 * the relative tolerance tol (scaled by the magnitudes involved). Returns 1 when x satisfies
 * them all, 0 otherwise, with a one-line description of the first violation in why.
 * work: n_rows doubles of scratch.
 */
int wpart_i_milp_check(const wpart_milp_problem_t *p, const double *x, double tol, double *work,
                       char *why, size_t why_size);

#endif /* WPART_MILP_INTERNAL_H */
