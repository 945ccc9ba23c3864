/* test_dynamic_plbhac.c -- core cases of the PLB-HAC / PLB-HeC state machines (spec 001
 * §2.3, §2.10, §3.3): the worked example (A3), exactly-once coverage on random runs (A8),
 * termination (A9) and bad configurations. A tiny event loop drives the balancers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wtest.h"

#define MAXEV 4096

typedef struct {
    double t;
    int64_t seq;
    int is_eval;
    int32_t pu;
    int64_t id; /* block id or token */
    double tc;
} ev_t;

static ev_t evq[MAXEV];
static int nev;

static void push(ev_t e)
{
    evq[nev++] = e;
}

static ev_t pop(void)
{
    int best = 0;
    for (int i = 1; i < nev; i++) {
        if (evq[i].t < evq[best].t || (evq[i].t == evq[best].t && evq[i].seq < evq[best].seq)) {
            best = i;
        }
    }
    ev_t e = evq[best];
    evq[best] = evq[--nev];
    return e;
}

typedef struct {
    double rate[8];
    double c_eval;
    int64_t seq;
    double free_t[8];
    unsigned char *cover;
    int64_t total;
    int errors;
    /* records */
    int64_t train2[8];
    double train2_end[8];
    int64_t first_eval_X[8];
    double first_eval_t;
    int n_evals;
} sim_t;

static void submit(sim_t *s, wpart_dynamic_balancer_t *b, wpart_dynamic_actions_t *acts, double now)
{
    for (int64_t i = 0; i < acts->n; i++) {
        wpart_dynamic_action_t *a = &acts->a[i];
        if (a->kind == WPART_DYN_ACT_EVAL) {
            CHECK_STATUS(wpart_dynamic_balancer_eval_run(b, a->token), WPART_OK);
            ev_t e = {now + s->c_eval, s->seq++, 1, a->trigger_pu, a->token, 0};
            push(e);
            continue;
        }
        int32_t p = a->a.pu;
        for (int64_t k = a->a.offset; k < a->a.offset + a->a.size; k++) {
            CHECK(s->cover[k] == 0);
            s->cover[k] = 1;
        }
        if (a->a.kind == WPART_DYN_BLK_TRAIN && a->a.block_id >= 4 && a->a.block_id < 8) {
            s->train2[p] = a->a.size;
        }
        double start = now > s->free_t[p] ? now : s->free_t[p];
        double tc = (double)a->a.size / s->rate[p];
        s->free_t[p] = start + tc;
        if (a->a.kind == WPART_DYN_BLK_TRAIN && a->a.block_id >= 4 && a->a.block_id < 8) {
            s->train2_end[p] = start + tc;
        }
        ev_t e = {start + tc, s->seq++, 0, p, a->a.block_id, tc};
        push(e);
    }
}

static void run(sim_t *s, wpart_dynamic_balancer_t *b)
{
    wpart_dynamic_action_t buf[16];
    wpart_dynamic_actions_t acts = {buf, 0, 16};
    nev = 0;
    s->cover = calloc((size_t)s->total, 1);
    CHECK_STATUS(wpart_dynamic_balancer_start(b, 0.0, &acts), WPART_OK);
    submit(s, b, &acts, 0.0);
    while (nev > 0) {
        ev_t e = pop();
        if (e.is_eval) {
            CHECK_STATUS(wpart_dynamic_balancer_eval_done(b, e.id, e.t, &acts), WPART_OK);
            if (s->n_evals++ == 0) {
                s->first_eval_t = e.t;
                wpart_dynamic_plbhac_current(b, s->first_eval_X, NULL, NULL, NULL, NULL);
            }
        } else {
            wpart_dynamic_completion_t c = {e.pu, e.id, 0.0, e.tc, e.t};
            CHECK_STATUS(wpart_dynamic_balancer_complete(b, &c, &acts), WPART_OK);
        }
        submit(s, b, &acts, e.t);
        CHECK(nev < MAXEV - 16);
    }
    CHECK(wpart_dynamic_balancer_done(b));
    for (int64_t k = 0; k < s->total; k++) {
        CHECK(s->cover[k] == 1);
    }
    free(s->cover);
}

static void test_worked_example(int hec)
{
    wpart_dynamic_plbhac_cfg_t c;
    wpart_dynamic_plbhac_cfg_paper(&c);
    c.total = 300;
    c.x_init = 8;
    c.step_mode = WPART_DYN_STEP_FIXED;
    c.step_size = 30;
    wpart_dynamic_balancer_t *b = NULL;
    CHECK_STATUS(hec ? wpart_dynamic_plbhec_new(&c, 4, NULL, &b)
                     : wpart_dynamic_plbhac_new(&c, 4, NULL, &b),
                 WPART_OK);
    sim_t s;
    memset(&s, 0, sizeof s);
    s.rate[0] = 8, s.rate[1] = 4, s.rate[2] = 2, s.rate[3] = 1;
    s.total = 300;
    run(&s, b);
    int64_t want[4] = {16, 8, 4, 2};
    double end_hac[4] = {3, 4, 6, 10}, end_hec[4] = {10, 10, 10, 10};
    for (int p = 0; p < 4; p++) {
        CHECK(s.train2[p] == want[p]);
        CHECK(s.first_eval_X[p] == want[p]);
        CHECK(fabs(s.train2_end[p] - (hec ? end_hec[p] : end_hac[p])) < 1e-12);
    }
    CHECK(s.first_eval_t == (hec ? 10.0 : 10.0));
    wpart_dynamic_balancer_stats_t st;
    wpart_dynamic_balancer_stats(b, &st);
    CHECK(hec ? st.n_barriers >= 3 : st.n_barriers == 1);
    wpart_dynamic_balancer_free(b);
}

static void test_random_coverage(void)
{
    for (int it = 0; it < 40; it++) {
        wpart_dynamic_plbhac_cfg_t c;
        if (it % 2) {
            wpart_dynamic_plbhac_cfg_robust(&c);
        } else {
            wpart_dynamic_plbhac_cfg_paper(&c);
        }
        int32_t n = 1 + (int32_t)(rnd() % 4);
        c.quantum = 1 + (int64_t)(rnd() % 5);
        c.total = c.quantum + (int64_t)(rnd() % 5000);
        c.x_init = 1 + (int64_t)(rnd() % 100);
        int32_t kinds[8];
        sim_t s;
        memset(&s, 0, sizeof s);
        for (int p = 0; p < n; p++) {
            kinds[p] = (int32_t)(rnd() % 3);
            s.rate[p] = 1.0 + (double)(rnd() % 100);
        }
        s.total = c.total;
        s.c_eval = (it % 3) * 0.05;
        wpart_dynamic_balancer_t *b = NULL;
        wpart_status_t st = it % 5 == 4 ? wpart_dynamic_plbhec_new(&c, n, kinds, &b)
                                        : wpart_dynamic_plbhac_new(&c, n, kinds, &b);
        CHECK_STATUS(st, WPART_OK);
        if (b) {
            run(&s, b);
            wpart_dynamic_action_t buf[16];
            wpart_dynamic_actions_t acts = {buf, 0, 16};
            wpart_dynamic_completion_t cc = {0, 0, 0.0, 1.0, 1e9};
            CHECK(wpart_dynamic_balancer_complete(b, &cc, &acts) == WPART_EINVAL);
            wpart_dynamic_balancer_free(b);
        }
    }
}

static void test_bad_config(void)
{
    wpart_dynamic_plbhac_cfg_t c;
    wpart_dynamic_balancer_t *b = NULL;
    wpart_dynamic_plbhac_cfg_paper(&c);
    c.total = 100;
    CHECK_STATUS(wpart_dynamic_plbhac_new(&c, 0, NULL, &b), WPART_EINVAL);
    c.quantum = 200;
    CHECK_STATUS(wpart_dynamic_plbhac_new(&c, 2, NULL, &b), WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "quantum") != NULL);
    c.quantum = 1;
    c.gap_threshold = NAN;
    CHECK_STATUS(wpart_dynamic_plbhac_new(&c, 2, NULL, &b), WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "gap_threshold") != NULL);
    c.gap_threshold = 0.4;
    c.step_mode = WPART_DYN_STEP_FIXED;
    CHECK_STATUS(wpart_dynamic_plbhac_new(&c, 2, NULL, &b), WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "step_size") != NULL);
    c.step_mode = 7;
    CHECK_STATUS(wpart_dynamic_plbhac_new(&c, 2, NULL, &b), WPART_EINVAL);
    c.step_mode = 0;
    int32_t kinds[2] = {0, 5};
    CHECK_STATUS(wpart_dynamic_plbhac_new(&c, 2, kinds, &b), WPART_EINVAL);
    CHECK(b == NULL);
    CHECK_STATUS(wpart_dynamic_plbhac_current(NULL, NULL, NULL, NULL, NULL, NULL), WPART_EINVAL);
}

int main(void)
{
    test_worked_example(0);
    test_worked_example(1);
    test_random_coverage();
    test_bad_config();
    return failures != 0;
}
