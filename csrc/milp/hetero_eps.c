/* hetero_eps.c -- epsilon-constraint MILP front of the hetero family (spec 000 section 2.11),
 * built on the MILP layer (wpart/milp.h). Binaries y_ij pick at most one measured size per
 * processor; the sizes must add up to n. */
#include <math.h>
#include <string.h>

#include "../hetero/hetero_grid.h"
#include "wpart/milp.h"

typedef struct {
    int64_t *col;              /* point index of each binary column */
    double *c, *lb, *ub, *rlb, *rub, *val, *x;
    int64_t *ar, *ac;
    int8_t *kind;
} eps_buf_t;

static void eps_free(eps_buf_t *b)
{
    WPART_FREE_ALL(b->col, b->c, b->lb, b->ub, b->rlb, b->rub, b->val, b->x, b->ar, b->ac, b->kind);
    memset(b, 0, sizeof *b);
}

/* One MILP. stage 1: min energy over points with t < tmax; stage 2: min T with energy <= ebound.
 * *status gets the MILP status; y (point -> 0/1 chosen) written into dist via proc of point. */
static wpart_status_t eps_solve(const wpart_hetero_profiles_t *P, int64_t n, double tmax,
                                int stage2, double ebound, double time_limit,
                                const wpart_control_t *control, eps_buf_t *b, int *infeasible,
                                double *obj, int64_t *dist)
{
    wpart_status_t st = WPART_OK;
    int64_t p = P->p, nc = 0;
    for (int64_t i = 0; i < p; i++) {
        for (int64_t j = P->offsets[i]; j < P->offsets[i + 1]; j++) {
            if (P->size[j] <= n && P->time[j] < tmax) {
                b->col[nc++] = j;
            }
        }
    }
    *infeasible = 0;
    if (nc == 0) {
        *infeasible = 1;
        return WPART_OK;
    }
    int64_t ncols = nc + (stage2 ? 1 : 0), nrows = p + 1 + (stage2 ? 1 + nc : 0), nnz = 0;
    for (int64_t k = 0; k < ncols; k++) {
        b->lb[k] = 0.0;
        b->ub[k] = 1.0;
        b->kind[k] = WPART_MILP_BINARY;
        b->c[k] = stage2 ? 0.0 : P->energy[b->col[k < nc ? k : 0]];
    }
    if (stage2) {
        b->ub[nc] = INFINITY;
        b->kind[nc] = WPART_MILP_CONTINUOUS;
        b->c[nc] = 1.0;
    }
    /* rows 0..p-1: at most one size per processor; row p: sizes sum to n */
    for (int64_t i = 0; i < p; i++) {
        b->rlb[i] = -INFINITY;
        b->rub[i] = 1.0;
    }
    b->rlb[p] = b->rub[p] = (double)n;
    for (int64_t k = 0; k < nc; k++) {
        int64_t j = b->col[k], i = 0;
        while (P->offsets[i + 1] <= j) {
            i++;
        }
        b->ar[nnz] = i;
        b->ac[nnz] = k;
        b->val[nnz++] = 1.0;
        b->ar[nnz] = p;
        b->ac[nnz] = k;
        b->val[nnz++] = (double)P->size[j];
    }
    if (stage2) {
        int64_t re = p + 1;
        b->rlb[re] = -INFINITY;
        b->rub[re] = ebound;
        for (int64_t k = 0; k < nc; k++) {
            int64_t j = b->col[k];
            if (P->energy[j] != 0.0) {
                b->ar[nnz] = re;
                b->ac[nnz] = k;
                b->val[nnz++] = P->energy[j];
            }
            /* T - t_j y_j >= 0 */
            b->rlb[re + 1 + k] = 0.0;
            b->rub[re + 1 + k] = INFINITY;
            b->ar[nnz] = re + 1 + k;
            b->ac[nnz] = nc;
            b->val[nnz++] = 1.0;
            if (P->time[j] != 0.0) {
                b->ar[nnz] = re + 1 + k;
                b->ac[nnz] = k;
                b->val[nnz++] = -P->time[j];
            }
        }
    }
    wpart_milp_problem_t prob = {nrows, ncols, b->c, 0.0, WPART_MILP_MINIMIZE, b->lb, b->ub,
                                 b->kind, b->rlb, b->rub, nnz, b->ar, b->ac, b->val};
    wpart_milp_options_t mo;
    wpart_milp_options_init(&mo);
    mo.time_limit = time_limit;
    mo.mip_gap = 0.0;
    mo.control = control;
    wpart_milp_result_t res;
    WPART_CHECK(wpart_milp_solve(&prob, &mo, b->x, &res));
    if (res.stopped_by == WPART_MILP_STOP_REQUEST) {
        WPART_FAIL(WPART_ECANCELLED, "interrupted");
    }
    if (res.stopped_by == WPART_MILP_STOP_TIME_LIMIT) {
        WPART_FAIL(WPART_ECANCELLED, "time limit reached");
    }
    if (res.status == WPART_MILP_INFEASIBLE) {
        *infeasible = 1;
        return WPART_OK;
    }
    if (res.status != WPART_MILP_OPTIMAL) {
        WPART_FAIL(WPART_ESOLVER, "epsilon-constraint MILP not solved to optimality: %s",
                   res.message);
    }
    *obj = res.objective;
    for (int64_t i = 0; i < p; i++) {
        dist[i] = 0;
    }
    for (int64_t k = 0; k < nc; k++) {
        if (b->x[k] > 0.5) {
            int64_t j = b->col[k], i = 0;
            while (P->offsets[i + 1] <= j) {
                i++;
            }
            dist[i] = P->size[j];
        }
    }
cleanup:
    return st;
}

/* Seconds left before `deadline` (a wpart_i_now() value; 0: none), at least 1e-3 so that a
 * GLPK call still starts (and reports the limit); 0 when there is no deadline. */
static double eps_left(double deadline)
{
    if (deadline <= 0.0) {
        return 0.0;
    }
    return fmax(deadline - wpart_i_now(), 1e-3);
}

wpart_status_t wpart_hetero_milp_front(int64_t n, const wpart_hetero_profiles_t *P,
                                       double time_limit, const wpart_control_t *control,
                                       wpart_hetero_front_t *out)
{
    wpart_status_t st = WPART_OK;
    eps_buf_t b;
    memset(&b, 0, sizeof b);
    memset(out, 0, sizeof *out);
    double *fe = NULL, *ft = NULL;
    int64_t *fd = NULL, *x = NULL, k = 0;
    if (!wpart_milp_have_solver()) {
        WPART_FAIL(WPART_ENOSOLVER, "wpart was built without GLPK");
    }
    WPART_CHECK(wpart_hetero_validate(P));
    if (n < 0) {
        WPART_FAIL(WPART_EINVAL, "n must be >= 0, got %" PRId64, n);
    }
    int64_t p = P->p, tot = P->offsets[p];
    out->p = p;
    /* The same limit as the other fronts (hetero_grid.c): every distribution's energy is a sum
     * of one usable energy per processor, and must stay finite. */
    double emax_sum = 0.0;
    for (int64_t i = 0; i < p; i++) {
        double emax = 0.0;
        for (int64_t j = P->offsets[i]; j < P->offsets[i + 1]; j++) {
            if (P->size[j] <= n && P->energy[j] > emax) {
                emax = P->energy[j];
            }
        }
        emax_sum += emax;
    }
    if (!isfinite(emax_sum)) {
        WPART_FAIL(WPART_EINVAL,
                   "profiles: energies too large, sums of one energy per processor overflow "
                   "float64 (the largest usable energies add up to inf); rescale them "
                   "(e.g. to kJ)");
    }
    if (n == 0) {
        WPART_CHECK(hg_front_alloc(out, p, 1));
        goto cleanup;
    }
    int64_t m = tot + 1, rows = p + 2 + m, nz = 5 * m + 4;
    b.col = wpart_i_malloc(m, sizeof(int64_t));
    b.c = wpart_i_malloc(m + 1, sizeof(double));
    b.lb = wpart_i_malloc(m + 1, sizeof(double));
    b.ub = wpart_i_malloc(m + 1, sizeof(double));
    b.x = wpart_i_malloc(m + 1, sizeof(double));
    b.kind = wpart_i_malloc(m + 1, sizeof(int8_t));
    b.rlb = wpart_i_malloc(rows, sizeof(double));
    b.rub = wpart_i_malloc(rows, sizeof(double));
    b.val = wpart_i_malloc(nz, sizeof(double));
    b.ar = wpart_i_malloc(nz, sizeof(int64_t));
    b.ac = wpart_i_malloc(nz, sizeof(int64_t));
    fe = wpart_i_malloc(m, sizeof(double));
    ft = wpart_i_malloc(m, sizeof(double));
    fd = wpart_i_malloc(m * p, sizeof(int64_t));
    x = wpart_i_malloc(p, sizeof(int64_t));
    if (!b.col || !b.c || !b.lb || !b.ub || !b.x || !b.kind || !b.rlb || !b.rub || !b.val ||
        !b.ar || !b.ac || !fe || !ft || !fd || !x) {
        WPART_FAIL(WPART_ENOMEM, "MILP model");
    }
    double tmax = INFINITY;
    double tl = time_limit > 0.0 ? time_limit : 0.0;
    if (control && control->time_limit > 0.0 && (tl == 0.0 || control->time_limit < tl)) {
        tl = control->time_limit;
    }
    double deadline = tl > 0.0 ? wpart_i_now() + tl : 0.0;
    while (k < m) {
        int inf;
        double E, T;
        WPART_CHECK(eps_solve(P, n, tmax, 0, 0.0, eps_left(deadline), control, &b, &inf, &E, x));
        if (inf) {
            break;
        }
        /* relative: energies may be of any magnitude (1e-200 J as well as 1e300 J) */
        double bound = E + 1e-12 * fabs(E);
        WPART_CHECK(eps_solve(P, n, tmax, 1, bound, eps_left(deadline), control, &b, &inf, &T, x));
        if (inf) {
            WPART_FAIL(WPART_ESOLVER, "stage 2 infeasible after a feasible stage 1");
        }
        WPART_CHECK(wpart_hetero_eval(P, x, &T, &E));
        if (!(T < tmax)) {
            WPART_FAIL(WPART_ESOLVER, "MILP returned a distribution violating the time bound");
        }
        fe[k] = E;
        ft[k] = T;
        memcpy(fd + k * p, x, (size_t)p * sizeof(int64_t));
        k++;
        tmax = T;
    }
    WPART_CHECK(hg_front_alloc(out, p, k));
    for (int64_t a = 0; a < k; a++) {
        out->energy[a] = out->dynamic_energy[a] = fe[a];
        out->time[a] = ft[a];
        memcpy(out->dist + a * p, fd + a * p, (size_t)p * sizeof(int64_t));
    }
cleanup:
    if (st != WPART_OK) {
        wpart_hetero_front_free(out);
    }
    eps_free(&b);
    free(fe);
    free(ft);
    free(fd);
    free(x);
    return st;
}
