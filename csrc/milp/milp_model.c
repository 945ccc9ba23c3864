/*
 * milp_model.c -- the sparse model container of the MILP layer, independent of GLPK:
 * validation of a wpart_milp_problem_t and of the options, and the triplet matrix in the
 * 1-based (row, column)-sorted form GLPK loads (duplicates summed, zeros dropped).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "milp_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* Validation (independent of GLPK)                                                           */
/* ------------------------------------------------------------------------------------------ */

/*
 * Checks every field of the problem. Every failure is WPART_EINVAL (WPART_ELIMIT for sizes that
 * GLPK's int indices cannot hold) with a detail naming the field and the index.
 */
/* The bounds lo = lname[j], hi = uname[j] of a column or row: numbers, lo < +inf, hi > -inf,
 * lo <= hi (note: appended to the last message). */
static wpart_status_t check_bounds(const char *lname, const char *uname, int64_t j, double lo,
                                   double hi, const char *note)
{
    if (isnan(lo) || lo == INFINITY) {
        return wpart_i_error(WPART_EINVAL, "%s[%" PRId64 "] must be a number < +inf (got %g)",
                             lname, j, lo);
    }
    if (isnan(hi) || hi == -INFINITY) {
        return wpart_i_error(WPART_EINVAL, "%s[%" PRId64 "] must be a number > -inf (got %g)",
                             uname, j, hi);
    }
    if (lo > hi) {
        return wpart_i_error(WPART_EINVAL, "%s[%" PRId64 "] = %g > %s[%" PRId64 "] = %g%s", lname,
                             j, lo, uname, j, hi, note);
    }
    return WPART_OK;
}

wpart_status_t wpart_i_milp_validate(const wpart_milp_problem_t *p)
{
    wpart_status_t st = WPART_OK;
    if (!p) {
        WPART_FAIL(WPART_EINVAL, "prob is NULL");
    }
    if (p->n_cols < 1) {
        WPART_FAIL(WPART_EINVAL, "n_cols must be >= 1 (got %" PRId64 ")", p->n_cols);
    }
    if (p->n_rows < 0) {
        WPART_FAIL(WPART_EINVAL, "n_rows must be >= 0 (got %" PRId64 ")", p->n_rows);
    }
    if (p->nnz < 0) {
        WPART_FAIL(WPART_EINVAL, "nnz must be >= 0 (got %" PRId64 ")", p->nnz);
    }
    /* GLPK indexes rows, columns and triplets with int, from 1. */
    if (p->n_cols > INT_MAX - 1 || p->n_rows > INT_MAX - 1 || p->nnz > INT_MAX - 1) {
        WPART_FAIL(WPART_ELIMIT,
                   "n_rows = %" PRId64 ", n_cols = %" PRId64 ", nnz = %" PRId64
                   ": each must be < %d for GLPK",
                   p->n_rows, p->n_cols, p->nnz, INT_MAX);
    }
    if (p->sense != WPART_MILP_MINIMIZE && p->sense != WPART_MILP_MAXIMIZE) {
        WPART_FAIL(WPART_EINVAL,
                   "sense must be WPART_MILP_MINIMIZE or WPART_MILP_MAXIMIZE (got %d)",
                   (int)p->sense);
    }
    if (!isfinite(p->c0)) {
        WPART_FAIL(WPART_EINVAL, "c0 must be finite (got %g)", p->c0);
    }
    if (p->nnz > 0 && (!p->a_row || !p->a_col || !p->a_val)) {
        WPART_FAIL(WPART_EINVAL, "a_row, a_col and a_val must not be NULL when nnz > 0");
    }
    for (int64_t j = 0; j < p->n_cols; j++) {
        if (p->c && !isfinite(p->c[j])) {
            WPART_FAIL(WPART_EINVAL, "c[%" PRId64 "] must be finite (got %g)", j, p->c[j]);
        }
        double lo = wpart_i_milp_col_lb(p, j), hi = wpart_i_milp_col_ub(p, j);
        WPART_CHECK(check_bounds("lb", "ub", j, lo, hi, p->lb ? "" : " (lb defaults to 0)"));
        int k = wpart_i_milp_col_kind(p, j);
        if (k != WPART_MILP_CONTINUOUS && k != WPART_MILP_INTEGER && k != WPART_MILP_BINARY) {
            WPART_FAIL(WPART_EINVAL, "kind[%" PRId64 "] must be 0 (continuous), 1 (integer) or "
                       "2 (binary) (got %d)", j, k);
        }
        if (k == WPART_MILP_BINARY && (lo > 1.0 || hi < 0.0)) {
            WPART_FAIL(WPART_EINVAL, "kind[%" PRId64 "] is binary but its bounds [%g, %g] "
                       "exclude both 0 and 1", j, lo, hi);
        }
    }
    for (int64_t i = 0; i < p->n_rows; i++) {
        double lo = wpart_i_milp_row_lb(p, i), hi = wpart_i_milp_row_ub(p, i);
        WPART_CHECK(check_bounds("row_lb", "row_ub", i, lo, hi, ""));
    }
    for (int64_t k = 0; k < p->nnz; k++) {
        if (p->a_row[k] < 0 || p->a_row[k] >= p->n_rows) {
            WPART_FAIL(WPART_EINVAL, "a_row[%" PRId64 "] = %" PRId64 " is out of range [0, %" PRId64
                       ")", k, p->a_row[k], p->n_rows);
        }
        if (p->a_col[k] < 0 || p->a_col[k] >= p->n_cols) {
            WPART_FAIL(WPART_EINVAL, "a_col[%" PRId64 "] = %" PRId64 " is out of range [0, %" PRId64
                       ")", k, p->a_col[k], p->n_cols);
        }
        if (!isfinite(p->a_val[k])) {
            WPART_FAIL(WPART_EINVAL, "a_val[%" PRId64 "] must be finite (got %g)", k, p->a_val[k]);
        }
    }
cleanup:
    return st;
}

wpart_status_t wpart_i_milp_validate_options(const wpart_milp_options_t *o)
{
    wpart_status_t st = WPART_OK;
    if (isnan(o->time_limit)) {
        WPART_FAIL(WPART_EINVAL, "options.time_limit must not be NaN");
    }
    if (!(o->mip_gap >= 0.0) || !isfinite(o->mip_gap)) {
        WPART_FAIL(WPART_EINVAL, "options.mip_gap must be finite and >= 0 (got %g)", o->mip_gap);
    }
    if (o->control && isnan(o->control->time_limit)) {
        WPART_FAIL(WPART_EINVAL, "options.control->time_limit must not be NaN");
    }
cleanup:
    return st;
}


/* ------------------------------------------------------------------------------------------ */
/* The constraint matrix: triplets sorted by (row, column), duplicates summed, zeros dropped   */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
    int row, col;
    double val;
} milp_entry_t;


static int milp_entry_cmp(const void *pa, const void *pb)
{
    const milp_entry_t *a = pa, *b = pb;
    if (a->row != b->row) {
        return a->row < b->row ? -1 : 1;
    }
    if (a->col != b->col) {
        return a->col < b->col ? -1 : 1;
    }
    return 0;
}

void wpart_i_milp_matrix_free(wpart_i_milp_matrix_t *M)
{
    free(M->ia);
    free(M->ja);
    free(M->ar);
    M->ia = M->ja = NULL;
    M->ar = NULL;
    M->ne = 0;
}

/* Builds GLPK's 1-based triplet arrays from validated input. O(nnz log nnz). */
wpart_status_t wpart_i_milp_matrix(const wpart_milp_problem_t *p, wpart_i_milp_matrix_t *M)
{
    wpart_status_t st = WPART_OK;
    milp_entry_t *e = NULL;
    int64_t nnz = p->nnz;
    memset(M, 0, sizeof *M);
    e = wpart_i_malloc(nnz, sizeof *e);
    M->ia = wpart_i_malloc(nnz + 1, sizeof *M->ia);
    M->ja = wpart_i_malloc(nnz + 1, sizeof *M->ja);
    M->ar = wpart_i_malloc(nnz + 1, sizeof *M->ar);
    if (!e || !M->ia || !M->ja || !M->ar) {
        WPART_FAIL(WPART_ENOMEM, "constraint matrix with %" PRId64 " entries", nnz);
    }
    for (int64_t k = 0; k < nnz; k++) {
        e[k].row = (int)p->a_row[k];
        e[k].col = (int)p->a_col[k];
        e[k].val = p->a_val[k];
    }
    if (nnz > 1) {
        qsort(e, (size_t)nnz, sizeof *e, milp_entry_cmp);
    }
    int ne = 0;
    for (int64_t k = 0; k < nnz;) {
        int64_t k2 = k;
        double sum = 0.0;
        while (k2 < nnz && e[k2].row == e[k].row && e[k2].col == e[k].col) {
            sum += e[k2].val;
            k2++;
        }
        if (!isfinite(sum)) {
            WPART_FAIL(WPART_EINVAL, "the duplicate entries of A at (%d, %d) sum to %g", e[k].row,
                       e[k].col, sum);
        }
        if (sum != 0.0) {
            ne++;
            M->ia[ne] = e[k].row + 1;
            M->ja[ne] = e[k].col + 1;
            M->ar[ne] = sum;
        }
        k = k2;
    }
    M->ne = ne;
cleanup:
    free(e);
    if (st != WPART_OK) {
        wpart_i_milp_matrix_free(M);
    }
    return st;
}
