/* test_dynamic_model.c -- C tests of the performance models and block sizing of wpart.dynamic
 * (spec 001 §1.3-1.6): fit status paths, exact recovery, no allocation with a work buffer,
 * closed forms of §2.10, rounding, capacity, inverse, packing, oracle_milp. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wtest.h"

static double close_rel(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(fabs(b), 1e-300); }

typedef struct {
    double a[4], b[4];
} affine_t;

static double affine_fn(void *ctx, int64_t p, double x)
{
    const affine_t *c = ctx;
    return c->a[p] * x + c->b[p];
}

static double cubic_fn(void *ctx, int64_t p, double x)
{
    (void)ctx;
    return p == 0 ? x * x * x : 2.0 * x;
}

static double nan_fn(void *ctx, int64_t p, double x)
{
    (void)ctx;
    (void)p;
    (void)x;
    return NAN;
}

static void test_fit(void)
{
    wpart_dynamic_fit_opts_t o;
    wpart_dynamic_fit_opts_init(&o);
    CHECK(o.allowed_mask == 0x7fu && o.intercept == 1 && o.max_terms == 3 && o.grid_points == 64);
    int64_t x[8];
    double t[8], tx[8];
    for (int i = 0; i < 8; i++) {
        x[i] = (int64_t)(100.0 * pow(10.0, 2.0 * i / 7.0));
    }
    for (int i = 0; i < 8; i++) {
        double u = (double)x[i] / (double)x[7];
        t[i] = 0.2 + 3.0 * u * u;
        tx[i] = 0.01 + 0.02 * u;
    }
    size_t ws = wpart_dynamic_fit_work_size(8);
    CHECK(ws > 0);
    void *work = malloc(ws);
    wpart_dynamic_model_t m;
    CHECK_STATUS(wpart_dynamic_model_fit(x, t, tx, 8, 1, &o, work, &m), WPART_OK);
    CHECK(m.valid && m.kind == 0 && m.mask == 2u);
    CHECK(fabs(m.coef[1] - 3.0) < 1e-8 && fabs(m.c0 - 0.2) < 1e-8);
    CHECK(fabs(m.g_slope - 0.02) < 1e-10 && fabs(m.g_icept - 0.01) < 1e-10);
    for (int i = 0; i < 8; i++) {
        CHECK(fabs(wpart_dynamic_model_eval(&m, (double)x[i]) - (t[i] + tx[i])) < 1e-8);
        CHECK(fabs(wpart_dynamic_model_eval_comp(&m, (double)x[i]) +
                   wpart_dynamic_model_eval_xfer(&m, (double)x[i]) -
                   wpart_dynamic_model_eval(&m, (double)x[i])) < 1e-12);
    }
    CHECK(wpart_dynamic_model_eval(&m, 0.0) == 0.0);
    CHECK(wpart_dynamic_model_eval(&m, m.x_a * 0.5) == m.e_a);
    CHECK(wpart_dynamic_model_eval(&m, 3.0 * m.x_b) > m.e_b);
    /* the same model without a work buffer, and after a permutation (bitwise) */
    wpart_dynamic_model_t m2;
    int64_t xp[8];
    double tp[8], txp[8];
    for (int i = 0; i < 8; i++) {
        xp[i] = x[7 - i];
        tp[i] = t[7 - i];
        txp[i] = tx[7 - i];
    }
    CHECK_STATUS(wpart_dynamic_model_fit(xp, tp, txp, 8, 1, NULL, NULL, &m2), WPART_OK);
    CHECK(memcmp(&m, &m2, sizeof m) == 0);
    /* packing round trip */
    double pk[WPART_DYN_PACKED];
    wpart_dynamic_model_pack(&m, pk);
    CHECK_STATUS(wpart_dynamic_model_unpack(pk, &m2), WPART_OK);
    CHECK(wpart_dynamic_model_eval(&m2, 1234.5) == wpart_dynamic_model_eval(&m, 1234.5));
    pk[0] = 300.0;
    CHECK_STATUS(wpart_dynamic_model_unpack(pk, &m2), WPART_EINVAL);
    /* inverse */
    double xi = 0.0, tt = wpart_dynamic_model_eval(&m, 2000.0);
    CHECK_STATUS(wpart_dynamic_model_inverse(&m, tt, 0.0, INFINITY, &xi), WPART_OK);
    CHECK(fabs(xi - 2000.0) < 1e-8 * 2000.0);
    CHECK_STATUS(wpart_dynamic_model_inverse(&m, tt, -1.0, INFINITY, &xi), WPART_EINVAL);
    /* status paths */
    CHECK_STATUS(wpart_dynamic_model_fit(x, t, NULL, 0, 1, NULL, NULL, &m2), WPART_EINVAL);
    CHECK(m2.valid == 0);
    CHECK_STATUS(wpart_dynamic_model_fit(NULL, t, NULL, 8, 1, NULL, NULL, &m2), WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_model_fit(x, t, NULL, 8, 0, NULL, NULL, &m2), WPART_EINVAL);
    x[3] = 0;
    CHECK_STATUS(wpart_dynamic_model_fit(x, t, NULL, 8, 1, NULL, NULL, &m2), WPART_EINVAL);
    x[3] = 100;
    t[2] = NAN;
    CHECK_STATUS(wpart_dynamic_model_fit(x, t, NULL, 8, 1, NULL, NULL, &m2), WPART_EINVAL);
    t[2] = -1.0;
    CHECK_STATUS(wpart_dynamic_model_fit(x, t, NULL, 8, 1, NULL, NULL, &m2), WPART_EINVAL);
    t[2] = 1.0;
    o.decay = 0.0;
    CHECK_STATUS(wpart_dynamic_model_fit(x, t, NULL, 8, 1, &o, NULL, &m2), WPART_EINVAL);
    wpart_dynamic_fit_opts_init(&o);
    o.allowed_mask = 0x80u;
    CHECK_STATUS(wpart_dynamic_model_fit(x, t, NULL, 8, 1, &o, NULL, &m2), WPART_EINVAL);
    /* bootstrap: two sizes, affine truth, interpolated */
    int64_t xb[2] = {1024, 2048};
    double tb[2] = {1.25, 2.25};
    CHECK_STATUS(wpart_dynamic_model_fit(xb, tb, NULL, 2, 1, NULL, NULL, &m2), WPART_OK);
    CHECK(m2.kind == 1 && fabs(wpart_dynamic_model_eval(&m2, 1024.0) - 1.25) < 1e-12 &&
          fabs(wpart_dynamic_model_eval(&m2, 2048.0) - 2.25) < 1e-12);
    free(work);
}

static void test_solve(void)
{
    wpart_dynamic_solve_opts_t so;
    wpart_dynamic_solve_opts_init(&so);
    CHECK(so.tol_T == 1e-10 && so.tol_x == 1e-12 && so.max_outer == 200 && so.max_inner == 100);
    affine_t c = {{0.1, 0.2, 0.4, 0}, {1.0, 0.5, 0.0, 0}};
    double x[4], T = 0.0;
    CHECK_STATUS(wpart_dynamic_solve_equal_time(3, affine_fn, &c, 100.0, NULL, NULL, NULL, x, &T),
                 WPART_OK);
    CHECK(close_rel(T, 45.0 / 7.0));
    CHECK(close_rel(x[0], (T - 1.0) / 0.1) && close_rel(x[1], (T - 0.5) / 0.2) &&
          close_rel(x[2], T / 0.4));
    CHECK_STATUS(wpart_dynamic_solve_equal_time(2, cubic_fn, NULL, 3.0, NULL, NULL, NULL, x, &T),
                 WPART_OK);
    CHECK(fabs(x[0] - 1.4561642) < 1e-7 && fabs(T - 3.0876715) < 1e-7);
    /* exclusion by latency, and a lower bound */
    affine_t lat = {{1.0, 1.0, 0, 0}, {0.0, 10.0, 0, 0}};
    CHECK_STATUS(wpart_dynamic_solve_equal_time(2, affine_fn, &lat, 5.0, NULL, NULL, NULL, x, &T),
                 WPART_OK);
    CHECK(fabs(x[0] - 5.0) < 1e-9 && fabs(x[1]) < 1e-9 && close_rel(T, 5.0));
    double lb[2] = {0.0, 1.0};
    CHECK_STATUS(wpart_dynamic_solve_equal_time(2, affine_fn, &lat, 5.0, lb, NULL, NULL, x, &T),
                 WPART_OK);
    CHECK(fabs(x[0] - 4.0) < 1e-9 && fabs(x[1] - 1.0) < 1e-9 && close_rel(T, 4.0));
    /* infeasible lower bounds: scaled to S */
    double lb2[2] = {30.0, 30.0};
    CHECK_STATUS(wpart_dynamic_solve_equal_time(2, affine_fn, &lat, 30.0, lb2, NULL, NULL, x, &T),
                 WPART_OK);
    CHECK(x[0] == 15.0 && x[1] == 15.0);
    /* capacity */
    double H = 0.0;
    CHECK_STATUS(wpart_dynamic_capacity(3, affine_fn, &c, 45.0 / 7.0, NULL, NULL, x, &H),
                 WPART_OK);
    CHECK(fabs(H - 100.0) < 1e-8);
    /* status paths */
    CHECK_STATUS(wpart_dynamic_solve_equal_time(0, affine_fn, &c, 1.0, NULL, NULL, NULL, x, &T),
                 WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_solve_equal_time(3, affine_fn, &c, -1.0, NULL, NULL, NULL, x, &T),
                 WPART_EINVAL);
    double ub[2] = {1.0, 1.0};
    CHECK_STATUS(wpart_dynamic_solve_equal_time(2, affine_fn, &lat, 5.0, NULL, ub, NULL, x, &T),
                 WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_solve_equal_time(2, nan_fn, NULL, 5.0, NULL, NULL, NULL, x, &T),
                 WPART_EINVAL);
    /* rounding: §2.10 worked example and an exclusion */
    affine_t we = {{1.0 / 8, 1.0 / 4, 1.0 / 2, 1.0}, {0, 0, 0, 0}};
    CHECK_STATUS(wpart_dynamic_solve_equal_time(4, affine_fn, &we, 30.0, NULL, NULL, NULL, x, &T),
                 WPART_OK);
    CHECK(close_rel(T, 2.0));
    int64_t b[4];
    double Tm = 0.0;
    CHECK_STATUS(wpart_dynamic_round_blocks(4, affine_fn, &we, x, 30, 1, NULL, NULL, b, &Tm),
                 WPART_OK);
    CHECK(b[0] == 16 && b[1] == 8 && b[2] == 4 && b[3] == 2 && close_rel(Tm, 2.0));
    CHECK_STATUS(wpart_dynamic_round_blocks(4, affine_fn, &we, x, 31, 4, NULL, NULL, b, &Tm),
                 WPART_OK);
    CHECK(b[0] + b[1] + b[2] + b[3] == 31);
    CHECK_STATUS(wpart_dynamic_round_blocks(4, affine_fn, &we, x, 0, 1, NULL, NULL, b, &Tm),
                 WPART_EINVAL);
    int64_t ilb[4] = {40, 40, 40, 40};
    CHECK_STATUS(wpart_dynamic_round_blocks(4, affine_fn, &we, x, 32, 4, ilb, NULL, b, &Tm),
                 WPART_OK);
    CHECK(b[0] + b[1] + b[2] + b[3] == 32 && b[0] % 4 == 0 && b[1] % 4 == 0 && b[2] % 4 == 0 &&
          b[3] % 4 == 0);
}

static void test_milp(void)
{
    if (!wpart_milp_have_solver()) {
        return;
    }
    /* E = x and E = 2x on [0, 30], 4 breakpoints: optimum 20 + 10, T = 20 */
    double bx[8] = {0, 10, 20, 30, 0, 10, 20, 30}, bt[8] = {0, 10, 20, 30, 0, 20, 40, 60};
    int64_t xo[2];
    double T = 0.0;
    wpart_milp_result_t r;
    CHECK_STATUS(wpart_dynamic_oracle_milp(2, 4, bx, bt, 30, 1, NULL, xo, &T, &r), WPART_OK);
    CHECK(r.status == WPART_MILP_OPTIMAL && xo[0] == 20 && xo[1] == 10 && fabs(T - 20.0) < 1e-6);
    bx[1] = 0.0;
    CHECK_STATUS(wpart_dynamic_oracle_milp(2, 4, bx, bt, 30, 1, NULL, xo, &T, &r), WPART_EINVAL);
}

int main(void)
{
    test_fit();
    test_solve();
    test_milp();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
    }
    return failures != 0;
}
