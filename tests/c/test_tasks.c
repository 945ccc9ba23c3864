/* test_tasks.c -- C tests of the tasks family: work model, exact deltas, CCM-LB, greedy, brute
 * force, status paths, the per-pair step of the distributed CCM-LB engines and the serial
 * engine's RNG streams, without Python. Exit status 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wpart/wpart.h"
#include "wtest.h"

/* synthetic blocks (PEERS 4.1) */
static const double SB_LOAD[9] = {1.0, 0.5, 0.5, 0.5, 0.5, 2.0, 1.0, 0.5, 1.5};
static const int32_t SB_BLOCK[9] = {0, 0, 1, 1, 2, 2, 3, 3, 4};
static const double SB_BSIZE[5] = {9, 9, 9, 9, 9};
static const int32_t SB_HOME[5] = {0, 0, 1, 1, 2};
static const int32_t SB_SRC[8] = {0, 1, 3, 3, 4, 5, 7, 8};
static const int32_t SB_DST[8] = {5, 4, 2, 8, 1, 8, 6, 6};
static const double SB_BYTES[8] = {2.0, 1.0, 1.0, 0.5, 2.0, 2.0, 1.0, 1.5};
static const int32_t SB_INIT[9] = {0, 0, 0, 0, 1, 1, 1, 1, 2};

/* seen from ranks 1 and 2 of the per-pair step: their tasks on 0 and 1, the rest on 2 */
static const int32_t PAIR_HOME[5] = {2, 2, 2, 0, 1};
static const int32_t PAIR[9] = {2, 2, 2, 2, 0, 0, 0, 0, 1};

/* the synthetic blocks on n_ranks ranks, blocks homed as in home[] */
static wpart_tasks_problem_t sb_on(int32_t n_ranks, const int32_t *home)
{
    wpart_tasks_problem_t p;
    memset(&p, 0, sizeof(p));
    p.n_ranks = n_ranks;
    p.n_tasks = 9;
    p.n_blocks = 5;
    p.n_edges = 8;
    p.task_load = SB_LOAD;
    p.task_block = SB_BLOCK;
    p.block_size = SB_BSIZE;
    p.block_home = home;
    p.edge_src = SB_SRC;
    p.edge_dst = SB_DST;
    p.edge_bytes = SB_BYTES;
    return p;
}

static wpart_tasks_problem_t sb(void) { return sb_on(4, SB_HOME); }

static void test_golden(void)
{
    wpart_tasks_problem_t p = sb();
    wpart_tasks_coeffs_t c;
    wpart_tasks_coeffs_init(&c);
    double w, work[4];
    wpart_tasks_report_t rep = {0};
    rep.work = work;
    CHECK_STATUS(wpart_tasks_evaluate(&p, &c, SB_INIT, &rep, &w), WPART_OK);
    CHECK(w == 4.0 && work[0] == 2.5 && work[3] == 0.0);
    c.beta = 1.0;
    c.gamma = 0.5;
    CHECK_STATUS(wpart_tasks_evaluate(&p, &c, SB_INIT, &rep, &w), WPART_OK);
    CHECK(w == 9.0 && work[0] == 6.5 && work[2] == 4.0);
    /* brute force: 2.0 (free), 2.5 (clusters), 4.0 (beta = 1) */
    int32_t a[9];
    wpart_tasks_coeffs_init(&c);
    CHECK_STATUS(wpart_tasks_brute_force(&p, &c, 0, 1 << 20, NULL, NULL, a, &w), WPART_OK);
    CHECK(w == 2.0);
    CHECK_STATUS(wpart_tasks_brute_force(&p, &c, 1, 1 << 20, NULL, NULL, a, &w), WPART_OK);
    CHECK(w == 2.5);
    c.beta = 1.0;
    CHECK_STATUS(wpart_tasks_brute_force(&p, &c, 0, 1 << 20, NULL, NULL, a, &w), WPART_OK);
    CHECK(w == 4.0);
    CHECK_STATUS(wpart_tasks_brute_force(&p, &c, 0, 1000, NULL, NULL, a, &w), WPART_ELIMIT);
    /* infeasible cap 9 */
    double cap[4] = {9, 9, 9, 9};
    p.rank_mem_cap = cap;
    wpart_tasks_coeffs_init(&c);
    CHECK_STATUS(wpart_tasks_brute_force(&p, &c, 0, 1 << 20, NULL, NULL, a, &w), WPART_OK);
    CHECK(isinf(w) && a[0] == -1);
    /* CCM on an infeasible start */
    wpart_tasks_lb_params_t prm;
    wpart_tasks_lb_params_init(&prm);
    wpart_tasks_lb_report_t lr;
    memset(&lr, 0, sizeof(lr));
    memcpy(a, SB_INIT, sizeof(a));
    CHECK_STATUS(wpart_tasks_ccm(&p, &c, &prm, a, &lr), WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "infeasible start") != NULL);
    p.rank_mem_cap = NULL;
    memcpy(a, SB_INIT, sizeof(a));
    CHECK_STATUS(wpart_tasks_ccm(&p, &c, &prm, a, &lr), WPART_OK);
    CHECK(lr.w_max_final == 2.5 && lr.w_max_initial == 4.0);
    CHECK_STATUS(wpart_tasks_greedy(&p, &c, NULL, a), WPART_OK);
    /* repair an infeasible start: all on rank 0 under a cap of 18 (2 blocks per rank) */
    double cap18[4] = {18, 18, 18, 18};
    p.rank_mem_cap = cap18;
    for (int k = 0; k < 9; k++) a[k] = 0;
    CHECK_STATUS(wpart_tasks_ccm(&p, &c, &prm, a, &lr), WPART_EINVAL);
    prm.allow_infeasible_start = 1;
    prm.n_iter = 6;
    for (int k = 0; k < 9; k++) a[k] = 0;
    CHECK_STATUS(wpart_tasks_ccm(&p, &c, &prm, a, &lr), WPART_OK);
    CHECK(isinf(lr.w_max_initial) && isfinite(lr.w_max_final) && lr.w_max_final >= 2.0);
    p.rank_mem_cap = NULL;
    /* block+comm clusters and single-task transfers run and never raise W_max */
    wpart_tasks_lb_params_init(&prm);
    prm.cluster = WPART_TASKS_CLUSTER_BLOCK_COMM;
    prm.comm_tau = 0.5;
    prm.singles = 1;
    c.beta = 1.0;
    memcpy(a, SB_INIT, sizeof(a));
    CHECK_STATUS(wpart_tasks_ccm(&p, &c, &prm, a, &lr), WPART_OK);
    CHECK(lr.w_max_final <= lr.w_max_initial && lr.w_max_final >= 4.0);
    prm.comm_tau = -1;
    CHECK_STATUS(wpart_tasks_ccm(&p, &c, &prm, a, &lr), WPART_EINVAL);
}

static void test_random_deltas(void)
{
    for (int inst = 0; inst < 50; inst++) {
        int32_t I = 2 + (int32_t)(rnd() % 4), K = 1 + (int32_t)(rnd() % 20),
                N = (int32_t)(rnd() % 5);
        int64_t M = (int64_t)(rnd() % 30);
        double load[20], fp[20], wk[20], bs[5], eb[30], base[6], cap[6];
        int32_t blk[20], home[5], src[30], dst[30], a[20];
        for (int32_t k = 0; k < K; k++) {
            load[k] = (double)(rnd() % 5) * 0.5;
            fp[k] = (double)(rnd() % 3);
            wk[k] = (double)(rnd() % 7);
            blk[k] = N ? (int32_t)(rnd() % (N + 1)) - 1 : -1;
            a[k] = (int32_t)(rnd() % I);
        }
        for (int32_t b = 0; b < N; b++) {
            bs[b] = (double)(rnd() % 9);
            home[b] = (int32_t)(rnd() % I);
        }
        for (int64_t e = 0; e < M; e++) {
            src[e] = (int32_t)(rnd() % K);
            dst[e] = (int32_t)(rnd() % K);
            eb[e] = (double)(rnd() % 4);
        }
        for (int32_t r = 0; r < I; r++) {
            base[r] = (double)(rnd() % 3);
            cap[r] = 20.0 + (double)(rnd() % 20);
        }
        wpart_tasks_problem_t p;
        memset(&p, 0, sizeof(p));
        p.n_ranks = I;
        p.n_tasks = K;
        p.n_blocks = N;
        p.n_edges = M;
        p.task_load = load;
        p.task_footprint = fp;
        p.task_working = wk;
        p.task_block = blk;
        p.block_size = bs;
        p.block_home = home;
        p.edge_src = src;
        p.edge_dst = dst;
        p.edge_bytes = eb;
        p.rank_baseline = base;
        p.rank_mem_cap = cap;
        wpart_tasks_coeffs_t c = {1.0, 0.7, 0.3, 0.2, 1};
        wpart_tasks_state_t *s = NULL;
        CHECK_STATUS(wpart_tasks_state_create(&p, &c, a, &s), WPART_OK);
        if (!s) continue;
        for (int mv = 0; mv < 100; mv++) {
            int32_t r1 = (int32_t)(rnd() % I), r2 = (int32_t)((r1 + 1 + rnd() % (I - 1)) % I);
            int32_t A[20], B[20], na = 0, nb = 0;
            const int32_t *cur = wpart_tasks_state_assignment(s);
            for (int32_t k = 0; k < K; k++) {
                if (cur[k] == r1 && rnd() % 2) A[na++] = k;
                if (cur[k] == r2 && rnd() % 3 == 0) B[nb++] = k;
            }
            double w1, w2;
            CHECK_STATUS(wpart_tasks_state_eval_exchange(s, r1, A, na, r2, B, nb, &w1, &w2),
                         WPART_OK);
            double e1, e2; /* closed form of spec 1.8 with the A-B bytes: the same values */
            CHECK_STATUS(wpart_tasks_state_estimate_exchange(s, r1, A, na, r2, B, nb, 1, &e1,
                                                             &e2),
                         WPART_OK);
            CHECK(fabs(e1 - w1) <= 1e-9 * (1 + fabs(w1)) || e1 == w1);
            CHECK(fabs(e2 - w2) <= 1e-9 * (1 + fabs(w2)) || e2 == w2);
            CHECK_STATUS(wpart_tasks_state_estimate_exchange(s, r1, A, na, r2, B, nb, 1, NULL,
                                                             &e2),
                         WPART_EINVAL);
            CHECK_STATUS(wpart_tasks_state_apply_exchange(s, r1, A, na, r2, B, nb), WPART_OK);
            double full[6], inc[6], wm;
            wpart_tasks_report_t rf = {0}, ri = {0};
            rf.work = full;
            ri.work = inc;
            CHECK_STATUS(wpart_tasks_evaluate(&p, &c, wpart_tasks_state_assignment(s), &rf, &wm),
                         WPART_OK);
            CHECK_STATUS(wpart_tasks_state_report(s, &ri, NULL), WPART_OK);
            for (int32_t r = 0; r < I; r++) {
                CHECK(full[r] == inc[r] || fabs(full[r] - inc[r]) <= 1e-9 * (1 + fabs(full[r])));
            }
            CHECK(w1 == inc[r1] && w2 == inc[r2]);
        }
        wpart_tasks_state_free(s);
    }
}

/* Sub-cluster units (singles, subsets; fallback and compete): on random instances with memory
 * and edges, W_max never rises, the result re-evaluates to the reported W_max and no rank ends
 * above its cap. */
static void test_split_modes(void)
{
    for (int inst = 0; inst < 40; inst++) {
        int32_t I = 2 + (int32_t)(rnd() % 3), K = 2 + (int32_t)(rnd() % 24),
                N = 1 + (int32_t)(rnd() % 4);
        int64_t M = (int64_t)(rnd() % 12);
        double load[26], fp[26], wk[26], bs[5], eb[12], cap[5], mem[5];
        int32_t blk[26], home[5], src[12], dst[12], a0[26], a[26];
        for (int32_t k = 0; k < K; k++) {
            load[k] = (double)(rnd() % 9) * 0.25;
            fp[k] = (double)(rnd() % 2);
            wk[k] = (double)(rnd() % 4);
            blk[k] = (int32_t)(rnd() % (N + 1)) - 1;
        }
        for (int32_t b = 0; b < N; b++) {
            bs[b] = (double)(rnd() % 5);
            home[b] = (int32_t)(rnd() % I);
        }
        for (int32_t k = 0; k < K; k++) a0[k] = blk[k] >= 0 ? home[blk[k]] : (int32_t)(rnd() % I);
        for (int64_t e = 0; e < M; e++) {
            src[e] = (int32_t)(rnd() % K);
            dst[e] = (int32_t)(rnd() % K);
            eb[e] = (double)(rnd() % 3);
        }
        wpart_tasks_problem_t p;
        memset(&p, 0, sizeof(p));
        p.n_ranks = I;
        p.n_tasks = K;
        p.n_blocks = N;
        p.n_edges = M;
        p.task_load = load;
        p.task_footprint = fp;
        p.task_working = (inst % 2) ? wk : NULL;
        p.task_block = blk;
        p.block_size = bs;
        p.block_home = home;
        p.edge_src = src;
        p.edge_dst = dst;
        p.edge_bytes = eb;
        wpart_tasks_coeffs_t c = {1.0, 0.3 * (inst % 3), 0.1, 0.15 * (inst % 4), 1};
        wpart_tasks_report_t rep = {0};
        rep.memory = mem;
        double w0;
        CHECK_STATUS(wpart_tasks_evaluate(&p, &c, a0, &rep, &w0), WPART_OK);
        double mx = 0.0;
        for (int32_t r = 0; r < I; r++) mx = mem[r] > mx ? mem[r] : mx;
        for (int32_t r = 0; r < I; r++) cap[r] = mx * 1.1;
        p.rank_mem_cap = cap;
        for (int mode = 1; mode <= 3; mode++) {
            for (int always = 0; always <= 1; always++) {
                wpart_tasks_lb_params_t prm;
                wpart_tasks_lb_params_init(&prm);
                prm.singles = mode;
                prm.split_always = always;
                prm.seed = (uint64_t)inst;
                prm.n_iter = 5;
                wpart_tasks_lb_report_t lr;
                memset(&lr, 0, sizeof(lr));
                memcpy(a, a0, sizeof(int32_t) * (size_t)K);
                CHECK_STATUS(wpart_tasks_ccm(&p, &c, &prm, a, &lr), WPART_OK);
                CHECK(lr.w_max_final <= lr.w_max_initial);
                double w;
                CHECK_STATUS(wpart_tasks_evaluate(&p, &c, a, &rep, &w), WPART_OK);
                CHECK(w == lr.w_max_final || fabs(w - lr.w_max_final) <= 1e-9 * (1 + w));
                for (int32_t r = 0; r < I; r++) CHECK(mem[r] <= cap[r]);
            }
        }
    }
    /* unknown mode */
    wpart_tasks_problem_t p = sb();
    wpart_tasks_coeffs_t c;
    wpart_tasks_coeffs_init(&c);
    wpart_tasks_lb_params_t prm;
    wpart_tasks_lb_params_init(&prm);
    wpart_tasks_lb_report_t lr;
    memset(&lr, 0, sizeof(lr));
    int32_t a[9];
    memcpy(a, SB_INIT, sizeof(a));
    prm.singles = 4;
    CHECK_STATUS(wpart_tasks_ccm(&p, &c, &prm, a, &lr), WPART_EINVAL);
    /* subsets competing with whole clusters reach the synthetic-blocks optimum 2.0 */
    prm.singles = WPART_TASKS_SPLIT_SUBSETS;
    prm.split_always = 1;
    CHECK_STATUS(wpart_tasks_ccm(&p, &c, &prm, a, &lr), WPART_OK);
    CHECK(lr.w_max_final >= 2.0 && lr.w_max_final <= 2.5);
    prm.singles = WPART_TASKS_SPLIT_FILL;
    memcpy(a, SB_INIT, sizeof(a));
    CHECK_STATUS(wpart_tasks_ccm(&p, &c, &prm, a, &lr), WPART_OK);
    CHECK(lr.w_max_final >= 2.0 && lr.w_max_final <= 2.5);
}

static void test_status_paths(void)
{
    wpart_tasks_problem_t p = sb();
    wpart_tasks_coeffs_t c;
    wpart_tasks_coeffs_init(&c);
    double w;
    CHECK_STATUS(wpart_tasks_evaluate(NULL, &c, SB_INIT, NULL, &w), WPART_EINVAL);
    CHECK_STATUS(wpart_tasks_evaluate(&p, NULL, SB_INIT, NULL, &w), WPART_EINVAL);
    CHECK_STATUS(wpart_tasks_evaluate(&p, &c, NULL, NULL, &w), WPART_EINVAL);
    int32_t bad[9] = {0, 0, 0, 0, 1, 1, 1, 1, 4};
    CHECK_STATUS(wpart_tasks_evaluate(&p, &c, bad, NULL, &w), WPART_EINVAL);
    c.beta = -1;
    CHECK_STATUS(wpart_tasks_evaluate(&p, &c, SB_INIT, NULL, &w), WPART_EINVAL);
    wpart_tasks_coeffs_init(&c);
    p.n_ranks = 0;
    CHECK_STATUS(wpart_tasks_evaluate(&p, &c, SB_INIT, NULL, &w), WPART_EINVAL);
    p = sb();
    double nl[9];
    memcpy(nl, SB_LOAD, sizeof(nl));
    nl[3] = NAN;
    p.task_load = nl;
    CHECK_STATUS(wpart_tasks_evaluate(&p, &c, SB_INIT, NULL, &w), WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "task_load[3]") != NULL);
    p = sb();
    wpart_tasks_state_t *s = NULL;
    CHECK_STATUS(wpart_tasks_state_create(&p, &c, SB_INIT, &s), WPART_OK);
    int32_t A[2] = {0, 4};
    CHECK_STATUS(wpart_tasks_state_apply_exchange(s, 0, A, 2, 1, NULL, 0), WPART_EINVAL);
    CHECK_STATUS(wpart_tasks_state_apply_exchange(s, 0, A, 1, 0, NULL, 0), WPART_EINVAL);
    CHECK_STATUS(wpart_tasks_state_apply_exchange(s, 0, A, 1, 9, NULL, 0), WPART_EINVAL);
    /* state unchanged after the failures */
    double wm;
    CHECK_STATUS(wpart_tasks_state_report(s, NULL, &wm), WPART_OK);
    CHECK(wm == 4.0);
    wpart_tasks_state_free(s);
    wpart_tasks_lb_params_t prm;
    wpart_tasks_lb_params_init(&prm);
    prm.n_trials = 0;
    int32_t a[9];
    memcpy(a, SB_INIT, sizeof(a));
    wpart_tasks_lb_report_t lr;
    CHECK_STATUS(wpart_tasks_ccm(&p, &c, &prm, a, &lr), WPART_EINVAL);
    int32_t k, f;
    wpart_tasks_knowledge(4, 0, 0, &k, &f);
    CHECK(k == 1 && f == 3);
    wpart_tasks_knowledge(14, 0, 0, &k, &f);
    CHECK(k == 2 && f == 4);
    wpart_tasks_knowledge(128, 0, 0, &k, &f);
    CHECK(k == 3 && f == 6);
    wpart_tasks_knowledge(256, 0, 0, &k, &f);
    CHECK(k == 3 && f == 7);
    wpart_tasks_knowledge(64, 0, 0, &k, &f);
    CHECK(k == 2 && f == 8);
}

static void test_milp(void)
{
    if (!wpart_milp_have_solver()) return;
    wpart_tasks_problem_t p = sb();
    wpart_tasks_coeffs_t c;
    wpart_tasks_coeffs_init(&c);
    wpart_tasks_milp_opts_t o;
    int32_t a[9];
    wpart_milp_result_t res;
    const double want[2][2] = {{2.0, 4.0}, {2.0, 4.0}}; /* beta 0 / 1, forms paper / compact */
    for (int form = 0; form < 2; form++) {
        for (int b = 0; b < 2; b++) {
            wpart_tasks_milp_opts_init(&o);
            o.form = form;
            c.beta = b;
            CHECK_STATUS(wpart_tasks_milp_solve(&p, &c, &o, a, &res), WPART_OK);
            CHECK(res.status == WPART_MILP_OPTIMAL);
            double w;
            CHECK_STATUS(wpart_tasks_evaluate(&p, &c, a, NULL, &w), WPART_OK);
            CHECK(fabs(w - want[form][b]) < 1e-9 && fabs(res.objective - w) < 1e-7);
        }
    }
    /* sizes of the paper form (spec 2.6) */
    wpart_tasks_milp_model_t m;
    wpart_tasks_milp_opts_init(&o);
    o.form = WPART_TASKS_MILP_PAPER;
    c.beta = 1.0;
    CHECK_STATUS(wpart_tasks_milp_build(&p, &c, &o, &m), WPART_OK);
    CHECK(m.n_cols == 185 && m.n_eq_rows == 9 && m.n_rows - m.n_eq_rows == 592);
    wpart_tasks_milp_model_free(&m);
    o.preserve_blocks = 1;
    CHECK_STATUS(wpart_tasks_milp_build(&p, &c, &o, &m), WPART_EINVAL);
    o.form = 7;
    CHECK_STATUS(wpart_tasks_milp_build(&p, &c, &o, &m), WPART_EINVAL);
}

/* Pinned tasks: every balancer leaves them on their rank; an exchange listing one is refused. */
static void test_pinned(void)
{
    wpart_tasks_problem_t p = sb();
    wpart_tasks_coeffs_t c;
    wpart_tasks_coeffs_init(&c);
    const uint8_t mig[9] = {0, 1, 1, 0, 1, 1, 1, 1, 0};
    p.task_migratable = mig;
    int32_t a[9];
    double w;
    CHECK_STATUS(wpart_tasks_greedy(&p, &c, NULL, a), WPART_EINVAL); /* needs the initial */
    CHECK_STATUS(wpart_tasks_greedy(&p, &c, SB_INIT, a), WPART_OK);
    for (int k = 0; k < 9; k++) CHECK(mig[k] || a[k] == SB_INIT[k]);
    CHECK_STATUS(wpart_tasks_brute_force(&p, &c, 0, 1 << 20, NULL, SB_INIT, a, &w), WPART_OK);
    for (int k = 0; k < 9; k++) CHECK(mig[k] || a[k] == SB_INIT[k]);
    wpart_tasks_lb_params_t prm;
    wpart_tasks_lb_params_init(&prm);
    wpart_tasks_lb_report_t lr = {0};
    for (int split = 0; split <= WPART_TASKS_SPLIT_FILL; split++) {
        prm.singles = split;
        memcpy(a, SB_INIT, sizeof(a));
        CHECK_STATUS(wpart_tasks_ccm(&p, &c, &prm, a, &lr), WPART_OK);
        for (int k = 0; k < 9; k++) CHECK(mig[k] || a[k] == SB_INIT[k]);
    }
    wpart_tasks_state_t *s = NULL;
    CHECK_STATUS(wpart_tasks_state_create(&p, &c, SB_INIT, &s), WPART_OK);
    const int32_t give[1] = {0};
    double w1, w2;
    CHECK_STATUS(wpart_tasks_state_eval_exchange(s, 0, give, 1, 1, NULL, 0, &w1, &w2),
                 WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "pinned") != NULL);
    wpart_tasks_state_free(s);
}

static void test_pair_step(void)
{
    wpart_tasks_problem_t p = sb_on(3, PAIR_HOME);
    wpart_tasks_coeffs_t c;
    wpart_tasks_coeffs_init(&c);
    wpart_tasks_lb_params_t prm;
    wpart_tasks_lb_params_init(&prm);
    int32_t give[9], take[9];
    wpart_tasks_pair_step_t out = {0, 0, 0, give, take, 0, 0};
    /* rank 0 holds blocks 2 (tasks 4, 5: load 2.5) and 3 (tasks 6, 7: 1.5), rank 1 block 4
       (task 8: 1.5): the best exchange gives block 3, leaving max(2.5, 3.0) = 3.0 */
    CHECK_STATUS(wpart_tasks_pair_best(&p, &c, &prm, 0.0, PAIR, 0, 1, &out), WPART_OK);
    CHECK(out.found == 1);
    double w0 = 4.0, w1 = 1.5, moved = 0.0;
    for (int32_t i = 0; i < out.n_give; i++) moved += SB_LOAD[give[i]];
    for (int32_t i = 0; i < out.n_take; i++) moved -= SB_LOAD[take[i]];
    double after = fmax(w0 - moved, w1 + moved);
    CHECK(fabs(out.gain - (fmax(w0, w1) - after)) < 1e-12);
    CHECK(after == 3.0 && out.n_give == 2 && out.n_take == 0);
    CHECK(give[0] + give[1] == 13); /* tasks 6 and 7 */
    /* nothing pays between an empty rank pair */
    static const int32_t ALL2[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
    CHECK_STATUS(wpart_tasks_pair_best(&p, &c, &prm, 0.0, ALL2, 0, 1, &out), WPART_OK);
    CHECK(out.found == 0 && out.n_give == 0 && out.n_take == 0);
    /* status paths */
    CHECK_STATUS(wpart_tasks_pair_best(&p, &c, &prm, 0.0, PAIR, 0, 0, &out), WPART_EINVAL);
    CHECK_STATUS(wpart_tasks_pair_best(&p, &c, &prm, 0.0, PAIR, 0, 3, &out), WPART_EINVAL);
    CHECK_STATUS(wpart_tasks_pair_best(&p, &c, &prm, -1.0, PAIR, 0, 1, &out), WPART_EINVAL);
    CHECK_STATUS(wpart_tasks_pair_best(&p, &c, NULL, 0.0, PAIR, 0, 1, &out), WPART_EINVAL);
    wpart_tasks_pair_step_t bad = {0, 0, 0, NULL, take, 0, 0};
    CHECK_STATUS(wpart_tasks_pair_best(&p, &c, &prm, 0.0, PAIR, 0, 1, &bad), WPART_EINVAL);
    /* every transfer-unit mode runs and agrees on feasibility */
    for (int32_t cl = 0; cl < 3; cl++) {
        for (int32_t sp = 0; sp <= WPART_TASKS_SPLIT_FILL; sp++) {
            prm.cluster = cl;
            prm.singles = sp;
            CHECK_STATUS(wpart_tasks_pair_best(&p, &c, &prm, 0.5, PAIR, 0, 1, &out), WPART_OK);
            CHECK(out.found == 1 && out.gain > 0);
        }
    }
}

static void test_rng_streams(void)
{
    uint64_t a[4], b[4];
    wpart_tasks_rng_seed(a, 7, 1, 3);
    wpart_tasks_rng_seed(b, 7, 1, 3);
    CHECK(memcmp(a, b, sizeof(a)) == 0);
    int32_t o1[10], o2[10];
    for (int i = 0; i < 10; i++) o1[i] = o2[i] = i;
    CHECK_STATUS(wpart_tasks_rng_shuffle(a, o1, 10), WPART_OK);
    CHECK_STATUS(wpart_tasks_rng_shuffle(b, o2, 10), WPART_OK);
    CHECK(memcmp(o1, o2, sizeof(o1)) == 0);
    int seen[10] = {0};
    for (int i = 0; i < 10; i++) seen[o1[i]]++;
    for (int i = 0; i < 10; i++) CHECK(seen[i] == 1);
    int32_t cand[6] = {3, 5, 8, 9, 11, 12};
    CHECK_STATUS(wpart_tasks_rng_sample(a, cand, 6, 3), WPART_OK);
    CHECK(cand[0] != cand[1] && cand[1] != cand[2] && cand[0] != cand[2]);
    CHECK_STATUS(wpart_tasks_rng_sample(a, cand, 6, 9), WPART_OK); /* m > n: all */
    CHECK_STATUS(wpart_tasks_rng_sample(a, NULL, 2, 1), WPART_EINVAL);
    CHECK_STATUS(wpart_tasks_rng_sample(a, cand, -1, 1), WPART_EINVAL);
}

int main(void)
{
    test_pinned();
    test_milp();
    test_golden();
    test_random_deltas();
    test_split_modes();
    test_status_paths();
    test_pair_step();
    test_rng_streams();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_tasks: OK\n");
    return 0;
}
