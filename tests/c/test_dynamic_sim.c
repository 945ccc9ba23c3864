/* test_dynamic_sim.c -- the simulator of wpart.dynamic in C: the event heap against a sorted
 * reference (ties in insertion order), the integration of slowdowns (a block spanning rate
 * changes ends where ∫ 1/s = D; the engine agrees with wpart_dynamic_device_block), curves,
 * the stall guard and the coverage check (P1) with deliberately broken balancers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_internal.h"
#include "event_heap.h"
#include "wtest.h"

static int near(double a, double b, double tol) { return fabs(a - b) <= tol * (1.0 + fabs(b)); }

static void test_heap(void)
{
    wpart_i_heap_t h;
    CHECK_STATUS(wpart_i_heap_init(&h, 1), WPART_OK);
    enum { N = 5000 };
    static double ts[N];
    static int64_t order[N];
    for (int i = 0; i < N; i++) {
        ts[i] = (double)(rnd() % 97); /* many ties */
        CHECK_STATUS(wpart_i_heap_push(&h, ts[i], 0, 0, i), WPART_OK);
    }
    /* reference: stable sort of indices by time */
    for (int i = 0; i < N; i++) {
        order[i] = i;
    }
    for (int i = 1; i < N; i++) { /* insertion sort is stable */
        int64_t k = order[i];
        int j = i - 1;
        while (j >= 0 && ts[order[j]] > ts[k]) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = k;
    }
    wpart_i_event_t e;
    int ok = 1;
    for (int i = 0; i < N / 2; i++) {
        ok &= wpart_i_heap_pop(&h, &e) == 1 && e.arg == order[i];
    }
    CHECK(ok);
    /* interleave: push later events, the rest must still come in (t, seq) order */
    for (int i = 0; i < 100; i++) {
        CHECK_STATUS(wpart_i_heap_push(&h, 1000.0 + i, 1, 0, N + i), WPART_OK);
    }
    for (int i = N / 2; i < N; i++) {
        ok &= wpart_i_heap_pop(&h, &e) == 1 && e.arg == order[i];
    }
    for (int i = 0; i < 100; i++) {
        ok &= wpart_i_heap_pop(&h, &e) == 1 && e.arg == N + i && e.type == 1;
    }
    CHECK(ok);
    CHECK(wpart_i_heap_pop(&h, &e) == 0);
    wpart_i_heap_free(&h);
}

static void test_integrate(void)
{
    /* s = 2 on [5, 10), s = 4 on [8, 20) (overlap: 8 on [8, 10)) */
    wpart_dynamic_fluct_t f[2] = {{5.0, 10.0, 0, 2.0}, {8.0, 20.0, 0, 4.0}};
    CHECK(wpart_dynamic_slowdown(f, 2, 0, 9.0) == 8.0);
    CHECK(wpart_dynamic_slowdown(f, 2, 1, 9.0) == 1.0);
    CHECK(wpart_dynamic_slowdown(f, 2, 0, 10.0) == 4.0);
    /* from t = 2 with D = 3 + 1.5 + 0.25 + 2.5 + 1: [2,5) 3 nominal, [5,8) 1.5, [8,10) 0.25,
     * [10,20) 2.5, then 1 more at s = 1 -> ends at 21 */
    CHECK(near(wpart_dynamic_integrate(f, 2, 0, 2.0, 8.25), 21.0, 1e-14));
    CHECK(near(wpart_dynamic_integrate(f, 2, 0, 2.0, 3.0 + 1.5 + 0.125), 9.0, 1e-14));
    CHECK(wpart_dynamic_integrate(f, 2, 1, 2.0, 3.0) == 5.0);
    CHECK(wpart_dynamic_integrate(NULL, 0, 0, 1.5, 2.0) == 3.5);
}

static void test_curves_noise(void)
{
    wpart_dynamic_curve_t c;
    memset(&c, 0, sizeof c);
    c.kind = WPART_DYN_CURVE_SATURATING;
    c.t0 = 0.01;
    c.rate = 1000;
    c.bsat = 100;
    CHECK_STATUS(wpart_dynamic_curve_check(&c), WPART_OK);
    CHECK(near(wpart_dynamic_curve_eval(&c, 100), 0.01 + 100 / (1000 * (1 - exp(-1.0))), 1e-14));
    CHECK(near(wpart_dynamic_curve_eval(&c, 1e-9), 0.01 + 0.1, 1e-6)); /* device-fill limit */
    c.mem_cap = 50;
    c.mem_gamma = 1.0;
    double t50 = 0.01 + 50 / (1000 * (1 - exp(-0.5)));
    double t100 = 0.01 + 100 / (1000 * (1 - exp(-1.0)));
    CHECK(near(wpart_dynamic_curve_eval(&c, 100), t50 + 2 * (t100 - t50), 1e-14));
    double tx[3] = {10, 20, 40}, tt[3] = {1, 2, 6};
    wpart_dynamic_curve_t tab;
    memset(&tab, 0, sizeof tab);
    tab.kind = WPART_DYN_CURVE_TABLE;
    tab.tab_x = tx;
    tab.tab_t = tt;
    tab.tab_n = 3;
    CHECK_STATUS(wpart_dynamic_curve_check(&tab), WPART_OK);
    CHECK(near(wpart_dynamic_curve_eval(&tab, 30), 4.0, 1e-15));
    CHECK(near(wpart_dynamic_curve_eval(&tab, 50), 8.0, 1e-15));
    CHECK(near(wpart_dynamic_curve_eval(&tab, 5), 0.5, 1e-15));
    tt[1] = -1;
    CHECK_STATUS(wpart_dynamic_curve_check(&tab), WPART_EINVAL);
    /* noise: pure function of the key, mean one */
    CHECK(wpart_dynamic_noise_lognormal(7, 1, 0, 5, 0.1) ==
          wpart_dynamic_noise_lognormal(7, 1, 0, 5, 0.1));
    CHECK(wpart_dynamic_noise_lognormal(7, 1, 0, 5, 0.1) !=
          wpart_dynamic_noise_lognormal(7, 1, 0, 6, 0.1));
    CHECK(wpart_dynamic_noise_lognormal(7, 1, 0, 5, 0.0) == 1.0);
    double m = 0;
    for (int j = 0; j < 20000; j++) {
        m += wpart_dynamic_noise_lognormal(3, 0, 0, j, 0.2);
    }
    CHECK(near(m / 20000, 1.0, 0.01));
}

/* one affine PU (rate 1), Greedy(chunk 10) on 30 elements, slowed x2 on [5, 15) */
static void test_engine_slowdown(void)
{
    wpart_dynamic_device_t d;
    wpart_dynamic_device_init(&d);
    wpart_dynamic_fluct_t f = {5.0, 15.0, 0, 2.0};
    wpart_dynamic_platform_t pl = {1, &d, 1, &f, 0, NULL};
    wpart_dynamic_balancer_t *b = NULL;
    CHECK_STATUS(wpart_dynamic_greedy_new(1, 30, 10, &b), WPART_OK);
    wpart_dynamic_sim_result_t r;
    CHECK_STATUS(wpart_dynamic_sim_run(&pl, b, NULL, &r), WPART_OK);
    /* block 0: [0, 10) needs 10 nominal: 5 at s=1, then 5 more at s=2 -> 15; block 1 from 15
     * at s = 1 -> 25; block 2 -> 35 */
    CHECK(r.n_trace == 3);
    if (r.n_trace == 3) {
        CHECK(near(r.trace[0].t_end, 15.0, 1e-14));
        CHECK(near(r.trace[0].t_comp, 15.0, 1e-14));
        CHECK(near(r.trace[1].t_end, 25.0, 1e-14));
        CHECK(near(r.makespan, 35.0, 1e-14));
    }
    CHECK(r.n_stale >= 1); /* the first COMP_DONE (t = 10) was rescheduled */
    /* the device function gives the same block */
    double t_x, t_c;
    CHECK_STATUS(wpart_dynamic_device_block(&d, 0, 0, 0, 10, 0.0, &f, 1, &t_x, &t_c), WPART_OK);
    CHECK(t_x == 0.0 && near(t_c, 15.0, 1e-14));
    wpart_dynamic_sim_result_free(&r);
    wpart_dynamic_sim_result_free(&r); /* twice is safe */
    wpart_dynamic_balancer_free(b);
}

/* ---- deliberately broken balancers ---- */

typedef struct {
    wpart_dynamic_balancer_t base;
    int mode; /* 0: stalls after its first block; 1: a block with a wrong offset */
} bad_t;

static wpart_status_t bad_start(wpart_dynamic_balancer_t *b, double now,
                                wpart_dynamic_actions_t *out)
{
    wpart_status_t st = wpart_i_dyn_assign(b, out, 0, 5, 1, WPART_DYN_BLK_OTHER, 0, 0, NAN, NULL);
    if (((bad_t *)b)->mode == 1) {
        out->a[0].a.offset = 3; /* the engine must notice the overlap */
    }
    return st;
}

static wpart_status_t bad_complete(wpart_dynamic_balancer_t *b,
                                   const wpart_dynamic_completion_t *c,
                                   wpart_dynamic_actions_t *out)
{
    if (((bad_t *)b)->mode == 1) {
        return wpart_i_dyn_assign(b, out, 0, 5, 1, WPART_DYN_BLK_OTHER, 0, 0, NAN, NULL);
    }
    return WPART_OK; /* mode 0: stops issuing work */
}

static const wpart_i_dyn_vtable_t bad_vt = {"bad", bad_start, bad_complete, NULL, NULL, NULL, NULL};

/* ---- a balancer that evaluates: 10 + 10 at start; PU 0's completion triggers an evaluation
 * (trigger = the `trig` field); its end assigns the last 10 elements to PU 0 ---- */

typedef struct {
    wpart_dynamic_balancer_t base;
    int32_t trig;
    int asked;
} ev_t;

static wpart_status_t ev_start(wpart_dynamic_balancer_t *b, double now,
                               wpart_dynamic_actions_t *out)
{
    wpart_status_t st = wpart_i_dyn_assign(b, out, 0, 10, 1, WPART_DYN_BLK_TRAIN, 0, 0, NAN, NULL);
    if (st == WPART_OK) {
        st = wpart_i_dyn_assign(b, out, 1, 10, 1, WPART_DYN_BLK_TRAIN, 0, 0, NAN, NULL);
    }
    return st;
}

static wpart_status_t ev_complete(wpart_dynamic_balancer_t *b, const wpart_dynamic_completion_t *c,
                                  wpart_dynamic_actions_t *out)
{
    ev_t *e = (ev_t *)b;
    if (c->pu == 0 && !e->asked) {
        e->asked = 1;
        return wpart_i_dyn_eval(b, out, e->trig, NULL);
    }
    return WPART_OK;
}

static wpart_status_t ev_run(wpart_dynamic_balancer_t *b, int64_t token) { return WPART_OK; }

static wpart_status_t ev_done(wpart_dynamic_balancer_t *b, int64_t token, double now,
                              wpart_dynamic_actions_t *out)
{
    return wpart_i_dyn_assign(b, out, 0, 10, 1, WPART_DYN_BLK_REGULAR, 1, 1, now + 10, NULL);
}

static const wpart_i_dyn_vtable_t ev_vt = {"evaluator", ev_start, ev_complete, ev_run, ev_done,
                                           NULL, NULL};

static void test_eval(void)
{
    wpart_dynamic_device_t d[2];
    wpart_dynamic_device_init(&d[0]);
    wpart_dynamic_device_init(&d[1]);
    wpart_dynamic_platform_t pl = {2, d, 0, NULL, 0, NULL};
    for (int32_t trig = -1; trig <= 0; trig++) {
        for (int mode = 0; mode < 2; mode++) {
            ev_t *b = calloc(1, sizeof *b);
            CHECK_STATUS(wpart_i_dyn_base_init(&b->base, &ev_vt, 2, 30, 3), WPART_OK);
            b->trig = trig;
            wpart_dynamic_sim_options_t o;
            wpart_dynamic_sim_options_init(&o);
            o.eval_mode = mode;
            o.eval_a = 0.5;
            o.eval_b = 0.25; /* model: 0.5 + 0.25 * 1 completed block */
            double c = mode == 0 ? 0.1 : 0.75;
            wpart_dynamic_sim_result_t r;
            CHECK_STATUS(wpart_dynamic_sim_run(&pl, &b->base, &o, &r), WPART_OK);
            CHECK(near(r.makespan, 20.0 + c, 1e-14));
            CHECK(r.n_evals == 1 && near(r.eval_time, c, 1e-15));
            CHECK(r.blocks_per_kind[0] == 2 && r.blocks_per_kind[1] == 1);
            if (r.idle_breakdown) {
                CHECK(near(r.idle_breakdown[WPART_DYN_IB_EVAL], c, 1e-12));          /* PU 0 */
                CHECK(near(r.idle_breakdown[4 + WPART_DYN_IB_STARVED], 10.0, 1e-12)); /* PU 1 */
                int col = trig == -1 ? WPART_DYN_IB_EVAL : WPART_DYN_IB_OTHER;
                CHECK(near(r.idle_breakdown[4 + col], c, 1e-12));
                CHECK(near(r.trace[2].t_assign, 10.0 + c, 1e-14) && r.trace[2].vstep == 1);
            }
            wpart_dynamic_sim_result_free(&r);
            wpart_dynamic_balancer_free(&b->base);
        }
    }
}

static void test_guards(void)
{
    wpart_dynamic_device_t d;
    wpart_dynamic_device_init(&d);
    wpart_dynamic_platform_t pl = {1, &d, 0, NULL, 0, NULL};
    for (int mode = 0; mode < 2; mode++) {
        bad_t *b = calloc(1, sizeof *b);
        CHECK_STATUS(wpart_i_dyn_base_init(&b->base, &bad_vt, 1, 10, 2), WPART_OK);
        b->mode = mode;
        wpart_dynamic_sim_result_t r;
        CHECK_STATUS(wpart_dynamic_sim_run(&pl, &b->base, NULL, &r), WPART_EINTERNAL);
        CHECK(strstr(wpart_last_error(), mode == 0 ? "balancer stalled: bad" : "coverage") != NULL);
        CHECK(r.trace == NULL && r.busy == NULL);
        wpart_dynamic_balancer_free(&b->base);
    }
    /* a platform / balancer size mismatch */
    wpart_dynamic_balancer_t *g = NULL;
    CHECK_STATUS(wpart_dynamic_greedy_new(2, 10, 3, &g), WPART_OK);
    wpart_dynamic_sim_result_t r;
    CHECK_STATUS(wpart_dynamic_sim_run(&pl, g, NULL, &r), WPART_EINVAL);
    wpart_dynamic_balancer_free(g);
}

int main(void)
{
    test_heap();
    test_integrate();
    test_curves_noise();
    test_engine_slowdown();
    test_guards();
    test_eval();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
    }
    return failures != 0;
}
