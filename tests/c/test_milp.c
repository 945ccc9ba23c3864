/*
 * test_milp.c -- the MILP layer through its public C API (wpart/milp.h): known optima, every
 * EINVAL path, early stops, GLPK's fatal-error recovery and LP/MPS export.
 * Exits non-zero on failure; failures are printed to stderr.
 */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wpart/milp.h"
#include "wtest.h"

/* A model of n_rows x n_cols with the nnz entries (row[k], col[k], val[k]) and costs c; every
 * other field zero (defaults). */
static wpart_milp_problem_t model(int64_t n_rows, int64_t n_cols, const double *c, int64_t nnz,
                                  const int64_t *row, const int64_t *col, const double *val)
{
    wpart_milp_problem_t p;
    memset(&p, 0, sizeof p);
    p.n_rows = n_rows;
    p.n_cols = n_cols;
    p.c = c;
    p.nnz = nnz;
    p.a_row = row;
    p.a_col = col;
    p.a_val = val;
    return p;
}

/* Knapsack: max 8x0 + 11x1 + 6x2 + 4x3, 5x0 + 7x1 + 4x2 + 3x3 <= 14, x binary.
 * Integer optimum 21 at (0, 1, 1, 1); LP relaxation 22 at (1, 1, 0.5, 0). */
static const double ks_c[4] = {8, 11, 6, 4};
static const double ks_rub[1] = {14};
static const int64_t ks_row[4] = {0, 0, 0, 0};
static const int64_t ks_col[4] = {0, 1, 2, 3};
static const double ks_val[4] = {5, 7, 4, 3};
static const int8_t ks_kind[4] = {2, 2, 2, 2};
static const double ks_ub[4] = {1, 1, 1, 1};

static wpart_milp_problem_t knapsack(void)
{
    wpart_milp_problem_t p = model(1, 4, ks_c, 4, ks_row, ks_col, ks_val);
    p.sense = WPART_MILP_MAXIMIZE;
    p.kind = ks_kind;
    p.row_ub = ks_rub;
    return p;
}

static void test_knapsack(void)
{
    wpart_milp_problem_t p = knapsack();
    wpart_milp_result_t r;
    double x[4];
    for (int presolve = 0; presolve <= 1; presolve++) {
        wpart_milp_options_t o;
        wpart_milp_options_init(&o);
        o.presolve = presolve;
        CHECK(wpart_milp_solve(&p, &o, x, &r) == WPART_OK);
        CHECK(r.status == WPART_MILP_OPTIMAL);
        CHECK(r.stopped_by == WPART_MILP_STOP_NONE);
        CHECK_NEAR(r.objective, 21.0);
        CHECK_NEAR(r.bound, 21.0);
        CHECK(r.gap == 0.0);
        CHECK(x[0] == 0.0 && x[1] == 1.0 && x[2] == 1.0 && x[3] == 1.0);
        CHECK(strstr(r.message, "optimal") != NULL);
        CHECK(r.seconds >= 0.0);
    }
    /* LP relaxation: continuous columns in [0, 1] */
    p.kind = NULL;
    p.ub = ks_ub;
    CHECK(wpart_milp_solve(&p, NULL, x, &r) == WPART_OK);
    CHECK(r.status == WPART_MILP_OPTIMAL);
    CHECK_NEAR(r.objective, 22.0);
    CHECK_NEAR(x[2], 0.5);
    CHECK(r.nodes == 0);
    /* x may be NULL; the objective constant is included */
    p.c0 = 1.5;
    CHECK(wpart_milp_solve(&p, NULL, NULL, &r) == WPART_OK);
    CHECK_NEAR(r.objective, 23.5);
}

/* min x + y with x + y >= 1.5, x - y = 0.5 (duplicates summed: 0.25 + 0.75), free columns. */
static void test_equality_free_duplicates(void)
{
    const double c[2] = {1, 1};
    const double lb[2] = {-INFINITY, -INFINITY};
    const double rlb[2] = {1.5, 0.5}, rub[2] = {INFINITY, 0.5};
    const int64_t row[5] = {0, 0, 1, 1, 1};
    const int64_t col[5] = {0, 1, 0, 1, 0};
    const double val[5] = {1, 1, 0.25, -1, 0.75};
    wpart_milp_problem_t p = model(2, 2, c, 5, row, col, val);
    p.lb = lb;
    p.row_lb = rlb;
    p.row_ub = rub;
    double x[2];
    wpart_milp_result_t r;
    CHECK(wpart_milp_solve(&p, NULL, x, &r) == WPART_OK);
    CHECK(r.status == WPART_MILP_OPTIMAL);
    CHECK_NEAR(r.objective, 1.5);
    CHECK_NEAR(x[0], 1.0);
    CHECK_NEAR(x[1], 0.5);
}

/* p solved as an LP and as a MILP (kind), each with and without presolve: status `want`
 * every time (an unbounded one with an infinite bound) */
static void solve_four_ways(wpart_milp_problem_t *p, const int8_t *kind, wpart_milp_status_t want)
{
    double x[2];
    wpart_milp_result_t r;
    for (int integer = 0; integer <= 1; integer++) {
        for (int presolve = 0; presolve <= 1; presolve++) {
            wpart_milp_options_t o;
            wpart_milp_options_init(&o);
            o.presolve = presolve;
            p->kind = integer ? kind : NULL;
            CHECK(wpart_milp_solve(p, &o, x, &r) == WPART_OK);
            CHECK(r.status == want);
            CHECK(want != WPART_MILP_UNBOUNDED || r.bound == INFINITY);
        }
    }
}

static void test_infeasible_unbounded(void)
{
    /* x integer, 0.2 <= x <= 0.8: no integer in range (decided before GLPK) */
    const double lb1[1] = {0.2}, ub1[1] = {0.8};
    const int8_t k1[1] = {1};
    wpart_milp_problem_t p = model(0, 1, NULL, 0, NULL, NULL, NULL);
    p.lb = lb1;
    p.ub = ub1;
    p.kind = k1;
    double x[2];
    wpart_milp_result_t r;
    CHECK(wpart_milp_solve(&p, NULL, x, &r) == WPART_OK);
    CHECK(r.status == WPART_MILP_INFEASIBLE);
    CHECK(isnan(x[0]) && isnan(r.objective));

    /* x + y <= 1 and x + y >= 2, both as LP and as MILP, with and without presolve */
    const double rlb[2] = {-INFINITY, 2}, rub[2] = {1, INFINITY};
    const int64_t row[4] = {0, 0, 1, 1}, col[4] = {0, 1, 0, 1};
    const double val[4] = {1, 1, 1, 1};
    const int8_t k2[2] = {1, 1};
    p = model(2, 2, NULL, 4, row, col, val);
    p.row_lb = rlb;
    p.row_ub = rub;
    solve_four_ways(&p, k2, WPART_MILP_INFEASIBLE);

    /* max x + y, x - y <= 1: unbounded */
    const double c[2] = {1, 1};
    const int64_t row2[2] = {0, 0}, col2[2] = {0, 1};
    const double val2[2] = {1, -1};
    const double rub2[1] = {1};
    p = model(1, 2, c, 2, row2, col2, val2);
    p.sense = WPART_MILP_MAXIMIZE;
    p.row_ub = rub2;
    solve_four_ways(&p, k2, WPART_MILP_UNBOUNDED);
}

/* The knapsack with one thing wrong (case k; NULL past the last case), and the text the
 * error message must contain. */
static const char *spoiled(wpart_milp_problem_t *p, int k)
{
    static const double nan_c[4] = {1, 2, NAN, 4};
    static const double bad_lb[4] = {0, 0, 0, 2};
    static const int64_t bad_row[4] = {0, 0, 1, 0};
    static const int64_t bad_col[4] = {0, 4, 2, 3};
    static const double nan_val[4] = {1, NAN, 1, 1};
    static const int8_t bad_kind[4] = {0, 0, 3, 0};
    static const double rlb[1] = {20};
    *p = knapsack();
    switch (k) {
    case 0: p->n_cols = 0; return "n_cols";
    case 1: p->n_rows = -1; return "n_rows";
    case 2: p->nnz = -3; return "nnz";
    case 3: p->c = nan_c; return "c[2]";
    case 4: p->c0 = INFINITY; return "c0";
    case 5: p->lb = bad_lb; p->ub = ks_ub; p->kind = NULL; return "lb[3] = 2 > ub[3] = 1";
    case 6: p->a_row = bad_row; return "a_row[2] = 1";
    case 7: p->a_col = bad_col; return "a_col[1] = 4";
    case 8: p->a_val = nan_val; return "a_val[1]";
    case 9: p->a_val = NULL; return "a_val";
    case 10: p->kind = bad_kind; return "kind[2]";
    case 11: p->lb = bad_lb; return "kind[3] is binary";
    case 12: p->row_lb = rlb; return "row_lb[0] = 20 > row_ub[0]";
    case 13: p->sense = (wpart_milp_sense_t)7; return "sense";
    default: return NULL;
    }
}

static void test_einval(void)
{
    wpart_milp_problem_t p = knapsack();
    wpart_milp_result_t r;
    double x[4];
    CHECK_ERROR(wpart_milp_solve(NULL, NULL, x, &r), WPART_EINVAL, "prob");
    CHECK_ERROR(wpart_milp_solve(&p, NULL, x, NULL), WPART_EINVAL, "res");
    const char *needle;
    for (int k = 0; (needle = spoiled(&p, k)) != NULL; k++) {
        CHECK_ERROR(wpart_milp_solve(&p, NULL, x, &r), WPART_EINVAL, needle);
    }
    p = knapsack();
    wpart_milp_options_t o;
    wpart_milp_options_init(&o);
    o.mip_gap = -1.0;
    CHECK_ERROR(wpart_milp_solve(&p, &o, x, &r), WPART_EINVAL, "mip_gap");
    wpart_milp_options_init(&o);
    o.time_limit = NAN;
    CHECK_ERROR(wpart_milp_solve(&p, &o, x, &r), WPART_EINVAL, "time_limit");
    CHECK_ERROR(wpart_milp_write(&p, "", WPART_MILP_FORMAT_LP), WPART_EINVAL, "path");
    CHECK_ERROR(wpart_milp_write(&p, "a.lp", (wpart_milp_format_t)5), WPART_EINVAL, "format");
    spoiled(&p, 3); /* NaN cost */
    CHECK_ERROR(wpart_milp_write(&p, "a.lp", WPART_MILP_FORMAT_LP), WPART_EINVAL, "c[2]");
}

/* A market-split instance (Cornuejols & Dawande): equality knapsacks over 40 binaries. It is
 * far too hard for GLPK to finish in the short limits used here. */
#define MS_M 4
#define MS_N 40
static double ms_c[MS_N], ms_b[MS_M], ms_val[MS_M * MS_N];
static int64_t ms_row[MS_M * MS_N], ms_col[MS_M * MS_N];
static int8_t ms_kind[MS_N];

static wpart_milp_problem_t market_split(void)
{
    unsigned s = 12345u;
    for (int i = 0; i < MS_M; i++) {
        double sum = 0.0;
        for (int j = 0; j < MS_N; j++) {
            s = s * 1103515245u + 12345u;
            double a = (double)((s >> 16) % 100u);
            ms_row[i * MS_N + j] = i;
            ms_col[i * MS_N + j] = j;
            ms_val[i * MS_N + j] = a;
            sum += a;
        }
        ms_b[i] = floor(sum / 2.0);
    }
    for (int j = 0; j < MS_N; j++) {
        ms_c[j] = 1.0;
        ms_kind[j] = WPART_MILP_BINARY;
    }
    wpart_milp_problem_t p = model(MS_M, MS_N, ms_c, MS_M * MS_N, ms_row, ms_col, ms_val);
    p.kind = ms_kind;
    p.row_lb = ms_b;
    p.row_ub = ms_b;
    return p;
}

typedef struct {
    int polls;
    int progress_calls;
    double last_done;
} probe_t;

static int stop_after_3(void *ctx)
{
    probe_t *pr = ctx;
    return ++pr->polls >= 3;
}

static void on_progress(void *ctx, double done, double total)
{
    probe_t *pr = ctx;
    pr->progress_calls++;
    pr->last_done = done;
    if (total != 100.0 || done < 0.0 || done > 100.0) {
        fprintf(stderr, "bad progress %g / %g\n", done, total);
        failures++;
    }
}

static void test_stops(void)
{
    wpart_milp_problem_t p = market_split();
    wpart_milp_result_t r;
    double x[MS_N];
    wpart_milp_options_t o;

    wpart_milp_options_init(&o);
    o.time_limit = 0.3;
    CHECK(wpart_milp_solve(&p, &o, x, &r) == WPART_OK);
    CHECK(r.status == WPART_MILP_FEASIBLE || r.status == WPART_MILP_NO_SOLUTION);
    CHECK(r.stopped_by == WPART_MILP_STOP_TIME_LIMIT);
    CHECK(r.seconds < 3.0);
    CHECK(strstr(r.message, "GLP_ETMLIM") != NULL);

    probe_t pr = {0, 0, -1.0};
    wpart_control_t ctl;
    wpart_control_init(&ctl);
    ctl.should_stop = stop_after_3;
    ctl.progress = on_progress;
    ctl.ctx = &pr;
    wpart_milp_options_init(&o);
    o.control = &ctl;
    CHECK(wpart_milp_solve(&p, &o, x, &r) == WPART_OK);
    CHECK(r.status == WPART_MILP_FEASIBLE || r.status == WPART_MILP_NO_SOLUTION);
    CHECK(r.stopped_by == WPART_MILP_STOP_REQUEST);
    CHECK(pr.polls == 3);
    CHECK(pr.progress_calls >= 1);
    CHECK(pr.last_done == 100.0);
    CHECK(strstr(r.message, "GLP_ESTOP") != NULL);

    /* the control's time limit counts too */
    wpart_control_init(&ctl);
    ctl.time_limit = 0.2;
    wpart_milp_options_init(&o);
    o.control = &ctl;
    CHECK(wpart_milp_solve(&p, &o, x, &r) == WPART_OK);
    CHECK(r.stopped_by == WPART_MILP_STOP_TIME_LIMIT);
}

static void test_log(void)
{
    wpart_milp_problem_t p = knapsack();
    wpart_milp_result_t r;
    char log[4096];
    wpart_milp_options_t o;
    wpart_milp_options_init(&o);
    o.log = log;
    o.log_size = sizeof log;
    CHECK(wpart_milp_solve(&p, &o, NULL, &r) == WPART_OK);
    CHECK(strstr(log, "mip =") != NULL);
    /* a tiny buffer is truncated, never overrun */
    char small[8];
    memset(small, 'z', sizeof small);
    o.log = small;
    o.log_size = 5;
    CHECK(wpart_milp_solve(&p, &o, NULL, &r) == WPART_OK);
    CHECK(strlen(small) == 4 && small[5] == 'z');
}

static int file_contains(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        return 0;
    }
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return strstr(buf, needle) != NULL;
}

static void test_write(void)
{
    wpart_milp_problem_t p = knapsack();
    char path[] = "/tmp/wpart_test_milp_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) {
        return;
    }
    close(fd);
    CHECK(wpart_milp_write(&p, path, WPART_MILP_FORMAT_LP) == WPART_OK);
    CHECK(file_contains(path, "Maximize"));
    CHECK(file_contains(path, "Subject To"));
    CHECK(file_contains(path, "x3"));
    CHECK(file_contains(path, "End"));
    CHECK(wpart_milp_write(&p, path, WPART_MILP_FORMAT_MPS) == WPART_OK);
    CHECK(file_contains(path, "ROWS"));
    CHECK(file_contains(path, "COLUMNS"));
    CHECK(file_contains(path, "MARKER"));
    CHECK(file_contains(path, "ENDATA"));
    /* a model whose only row is free, with an empty column: written with a "dummy" row */
    const double c2[2] = {0, 2};
    const int64_t r2[1] = {0}, k2[1] = {1};
    const double v2[1] = {1};
    wpart_milp_problem_t q = model(1, 2, c2, 1, r2, k2, v2);
    CHECK(wpart_milp_write(&q, path, WPART_MILP_FORMAT_MPS) == WPART_OK);
    CHECK(file_contains(path, "dummy"));
    CHECK(file_contains(path, "x1 R0000000 2"));
    CHECK(wpart_milp_write(&q, path, WPART_MILP_FORMAT_LP) == WPART_OK);
    CHECK(file_contains(path, "Subject To"));
    remove(path);
    CHECK_ERROR(wpart_milp_write(&p, "/nonexistent-dir/x/model.lp", WPART_MILP_FORMAT_LP),
                WPART_ESOLVER, "cannot write");
}

/* GLPK refuses more than 1e8 rows with a fatal error (before allocating them): the error hook
 * must bring us back with WPART_ESOLVER, and GLPK must work again afterwards. */
static void test_fatal_error(void)
{
    wpart_milp_problem_t p = model(100000001, 1, NULL, 0, NULL, NULL, NULL);
    wpart_milp_result_t r;
    CHECK_ERROR(wpart_milp_solve(&p, NULL, NULL, &r), WPART_ESOLVER, "GLPK fatal error");
    p = knapsack();
    double x[4];
    CHECK(wpart_milp_solve(&p, NULL, x, &r) == WPART_OK);
    CHECK_NEAR(r.objective, 21.0);
}

int main(void)
{
    if (!wpart_milp_have_solver()) {
        wpart_milp_problem_t p = knapsack();
        wpart_milp_result_t r;
        CHECK_ERROR(wpart_milp_solve(&p, NULL, NULL, &r), WPART_ENOSOLVER, "GLPK");
        CHECK(wpart_milp_solver_version()[0] == '\0');
    } else {
        CHECK(wpart_milp_solver_version()[0] != '\0');
        test_knapsack();
        test_equality_free_duplicates();
        test_infeasible_unbounded();
        test_einval();
        test_stops();
        test_log();
        test_write();
        test_fatal_error();
    }
    wpart_milp_free_env();
    if (failures) {
        fprintf(stderr, "test_milp: %d failure(s)\n", failures);
        return 1;
    }
    return 0;
}
