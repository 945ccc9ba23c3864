/* dynamic_milp.c -- the oracle_milp cross-check of wpart.dynamic (spec 001 §3.4), built on the
 * MILP layer (wpart/milp.h): min T s.t. PWL_p(x_p) <= T, sum x_p = W, x_p = q k_p (+ the
 * remainder on one PU), PWL_p on K breakpoints with SOS2 modelled by segment binaries. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "wpart/dynamic_model.h"
#include "wpart/milp.h"

wpart_status_t wpart_dynamic_oracle_milp(int64_t n, int64_t K, const double *bx,
                                         const double *bt, int64_t W, int64_t quantum,
                                         const wpart_milp_options_t *opt, int64_t *x_out,
                                         double *T_out, wpart_milp_result_t *res)
{
    wpart_status_t st = WPART_OK;
    double *c = NULL, *lo = NULL, *hi = NULL, *rlb = NULL, *rub = NULL, *val = NULL, *sol = NULL;
    int64_t *ar = NULL, *ac = NULL;
    int8_t *kind = NULL;
    if (n < 1 || K < 2 || !bx || !bt || !x_out || !T_out || !res) {
        WPART_FAIL(WPART_EINVAL, "need n >= 1, K >= 2 and non-NULL arrays (n = %" PRId64
                   ", K = %" PRId64 ")", n, K);
    }
    if (W < 1 || quantum < 1) {
        WPART_FAIL(WPART_EINVAL, "W and quantum must be >= 1 (got %" PRId64 ", %" PRId64 ")", W,
                   quantum);
    }
    for (int64_t p = 0; p < n; p++) {
        for (int64_t k = 0; k < K; k++) {
            double xv = bx[p * K + k], tv = bt[p * K + k];
            if (!isfinite(xv) || !isfinite(tv) || xv < 0.0 || tv < 0.0) {
                WPART_FAIL(WPART_EINVAL, "breakpoint (%" PRId64 ", %" PRId64 ") must be finite "
                           "and >= 0 (got x = %g, t = %g)", p, k, xv, tv);
            }
            if (k > 0 && !(xv > bx[p * K + k - 1])) {
                WPART_FAIL(WPART_EINVAL, "breakpoints of PU %" PRId64 " must increase strictly",
                           p);
            }
        }
    }
    int64_t rem = W % quantum;
    int has_y = rem > 0;
    /* columns of PU p: lambda (K), z (K-1), k (1), y (has_y); then T */
    int64_t per = K + (K - 1) + 1 + has_y;
    int64_t ncols = n * per + 1, Tcol = n * per;
    int64_t rows_per = 4 + K;
    int64_t nrows = n * rows_per + 1 + has_y;
    int64_t nnz_max = n * (K + (K - 1) + 3 * K + 2 * K + 2 + has_y + K + 1) + n * (1 + has_y) + 1
                      + n;
    c = wpart_i_calloc(ncols, sizeof *c);
    lo = wpart_i_calloc(ncols, sizeof *lo);
    hi = wpart_i_calloc(ncols, sizeof *hi);
    kind = wpart_i_calloc(ncols, sizeof *kind);
    sol = wpart_i_calloc(ncols, sizeof *sol);
    rlb = wpart_i_calloc(nrows, sizeof *rlb);
    rub = wpart_i_calloc(nrows, sizeof *rub);
    val = wpart_i_calloc(nnz_max, sizeof *val);
    ar = wpart_i_calloc(nnz_max, sizeof *ar);
    ac = wpart_i_calloc(nnz_max, sizeof *ac);
    if (!c || !lo || !hi || !kind || !sol || !rlb || !rub || !val || !ar || !ac) {
        WPART_FAIL(WPART_ENOMEM, "oracle_milp model");
    }
    int64_t nnz = 0, row_sum = n * rows_per, row_y = row_sum + 1;
#define ADD(r, cl, v) do { ar[nnz] = (r); ac[nnz] = (cl); val[nnz] = (v); nnz++; } while (0)
    for (int64_t p = 0; p < n; p++) {
        int64_t c0 = p * per, r0 = p * rows_per;
        int64_t cz = c0 + K, ck = c0 + K + (K - 1), cy = ck + 1;
        for (int64_t k = 0; k < K; k++) {
            lo[c0 + k] = 0.0;
            hi[c0 + k] = 1.0;
            kind[c0 + k] = WPART_MILP_CONTINUOUS;
        }
        for (int64_t s = 0; s < K - 1; s++) {
            lo[cz + s] = 0.0;
            hi[cz + s] = 1.0;
            kind[cz + s] = WPART_MILP_BINARY;
        }
        lo[ck] = 0.0;
        hi[ck] = (double)(W / quantum);
        kind[ck] = WPART_MILP_INTEGER;
        if (has_y) {
            lo[cy] = 0.0;
            hi[cy] = 1.0;
            kind[cy] = WPART_MILP_BINARY;
        }
        /* r0: sum lambda = 1; r0+1: sum z = 1 */
        rlb[r0] = rub[r0] = 1.0;
        rlb[r0 + 1] = rub[r0 + 1] = 1.0;
        for (int64_t k = 0; k < K; k++) {
            ADD(r0, c0 + k, 1.0);
        }
        for (int64_t s = 0; s < K - 1; s++) {
            ADD(r0 + 1, cz + s, 1.0);
        }
        /* r0+2: sum X_k lambda_k - q k - rem y = 0 */
        rlb[r0 + 2] = rub[r0 + 2] = 0.0;
        for (int64_t k = 0; k < K; k++) {
            ADD(r0 + 2, c0 + k, bx[p * K + k]);
        }
        ADD(r0 + 2, ck, -(double)quantum);
        if (has_y) {
            ADD(r0 + 2, cy, -(double)rem);
        }
        /* r0+3: sum T_k lambda_k - T <= 0 */
        rlb[r0 + 3] = -INFINITY;
        rub[r0 + 3] = 0.0;
        for (int64_t k = 0; k < K; k++) {
            ADD(r0 + 3, c0 + k, bt[p * K + k]);
        }
        ADD(r0 + 3, Tcol, -1.0);
        /* r0+4+k: lambda_k <= z_{k-1} + z_k (adjacency of SOS2) */
        for (int64_t k = 0; k < K; k++) {
            rlb[r0 + 4 + k] = -INFINITY;
            rub[r0 + 4 + k] = 0.0;
            ADD(r0 + 4 + k, c0 + k, 1.0);
            if (k > 0) {
                ADD(r0 + 4 + k, cz + k - 1, -1.0);
            }
            if (k < K - 1) {
                ADD(r0 + 4 + k, cz + k, -1.0);
            }
        }
        /* the sum of the sizes */
        ADD(row_sum, ck, (double)quantum);
        if (has_y) {
            ADD(row_sum, cy, (double)rem);
            ADD(row_y, cy, 1.0);
        }
    }
#undef ADD
    rlb[row_sum] = rub[row_sum] = (double)W;
    if (has_y) {
        rlb[row_y] = rub[row_y] = 1.0;
    }
    c[Tcol] = 1.0;
    lo[Tcol] = 0.0;
    hi[Tcol] = INFINITY;
    kind[Tcol] = WPART_MILP_CONTINUOUS;
    wpart_milp_problem_t prob;
    memset(&prob, 0, sizeof prob);
    prob.n_rows = nrows;
    prob.n_cols = ncols;
    prob.c = c;
    prob.sense = WPART_MILP_MINIMIZE;
    prob.lb = lo;
    prob.ub = hi;
    prob.kind = kind;
    prob.row_lb = rlb;
    prob.row_ub = rub;
    prob.nnz = nnz;
    prob.a_row = ar;
    prob.a_col = ac;
    prob.a_val = val;
    WPART_CHECK(wpart_milp_solve(&prob, opt, sol, res));
    *T_out = NAN;
    if (res->status == WPART_MILP_OPTIMAL || res->status == WPART_MILP_FEASIBLE) {
        *T_out = sol[Tcol];
        for (int64_t p = 0; p < n; p++) {
            int64_t ck = p * per + K + (K - 1);
            x_out[p] = quantum * (int64_t)llround(sol[ck]) +
                       (has_y ? rem * (int64_t)llround(sol[ck + 1]) : 0);
        }
    }
cleanup:
    free(c);
    free(lo);
    free(hi);
    free(kind);
    free(sol);
    free(rlb);
    free(rub);
    free(val);
    free(ar);
    free(ac);
    return st;
}
