/* milp_internal.h -- private helpers of the MILP layer (csrc/milp/). */
#ifndef WPART_MILP_INTERNAL_H
#define WPART_MILP_INTERNAL_H

#include <stddef.h>

#include <math.h>
#include <stdint.h>

#include "wpart/milp.h"
#include "wpart/status.h"

/* Tolerance used to round the bounds of integer columns inwards. */
#define MILP_INT_TOL 1e-9

/* Bounds of column j / row i as the caller meant them (NULL arrays: the documented defaults). */
static inline double wpart_i_milp_col_lb(const wpart_milp_problem_t *p, int64_t j)
{
    return p->lb ? p->lb[j] : 0.0;
}
static inline double wpart_i_milp_col_ub(const wpart_milp_problem_t *p, int64_t j)
{
    return p->ub ? p->ub[j] : INFINITY;
}
static inline int wpart_i_milp_col_kind(const wpart_milp_problem_t *p, int64_t j)
{
    return p->kind ? (int)p->kind[j] : WPART_MILP_CONTINUOUS;
}
static inline double wpart_i_milp_row_lb(const wpart_milp_problem_t *p, int64_t i)
{
    return p->row_lb ? p->row_lb[i] : -INFINITY;
}
static inline double wpart_i_milp_row_ub(const wpart_milp_problem_t *p, int64_t i)
{
    return p->row_ub ? p->row_ub[i] : INFINITY;
}

/** Every field of the problem / options checked; WPART_EINVAL (or ELIMIT) naming the field. */
wpart_status_t wpart_i_milp_validate(const wpart_milp_problem_t *p);
wpart_status_t wpart_i_milp_validate_options(const wpart_milp_options_t *o);

/** GLPK's 1-based triplets, sorted by (row, column), duplicates summed, zeros dropped. */
typedef struct {
    int ne;     /* entries kept */
    int *ia;    /* 1 + ne, 1-based rows (GLPK ignores index 0) */
    int *ja;    /* 1 + ne, 1-based columns */
    double *ar; /* 1 + ne values */
} wpart_i_milp_matrix_t;
wpart_status_t wpart_i_milp_matrix(const wpart_milp_problem_t *p, wpart_i_milp_matrix_t *M);
void wpart_i_milp_matrix_free(wpart_i_milp_matrix_t *M);

/**
 * Checks a solution against every row, column bound and integrality requirement of p, with
 * the relative tolerance tol (scaled by the magnitudes involved). Returns 1 when x satisfies
 * them all, 0 otherwise, with a one-line description of the first violation in why.
 * row_exp, col_exp: the scale exponents of wpart_i_milp_scale (or NULL); work: 2 * n_rows
 * doubles of scratch.
 */
int wpart_i_milp_check(const wpart_milp_problem_t *p, const double *x, const int *row_exp,
                       const int *col_exp, double tol, double *work, char *why, size_t why_size);

/**
 * Scales M's rows, continuous columns and the objective by powers of two for GLPK (see milp_check.c); row_exp:
 * n_rows ints. WPART_EINVAL naming the coefficient GLPK cannot take.
 */
wpart_status_t wpart_i_milp_scale(const wpart_milp_problem_t *p, wpart_i_milp_matrix_t *M,
                                  int *row_exp, int *col_exp, int *obj_exp);

/** Writes a file named `file`; a status with the message set (wpart_i_error). */
typedef wpart_status_t (*wpart_i_write_fn)(const char *file, void *arg);

/**
 * writer(file, arg) made stoppable (milp_fork.c): with control->should_stop set and fork()
 * available, the writer runs in a child process into a temporary file next to `path` while
 * the hook is asked every few milliseconds; a stop kills the child, removes the temporary file
 * and returns WPART_ECANCELLED, a success renames the file over `path` (whole or untouched).
 * Without a hook (or a child), writer(path, arg) here.
 */
wpart_status_t wpart_i_write_forked(const char *path, wpart_i_write_fn writer, void *arg,
                                    const wpart_control_t *control);

#endif /* WPART_MILP_INTERNAL_H */
