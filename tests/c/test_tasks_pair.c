/* test_tasks_pair.c -- the per-pair step of the distributed CCM-LB engines and the serial
 * engine's RNG streams, without Python. Exit status 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wpart/wpart.h"
#include "wtest.h"

/* synthetic blocks (PEERS 4.1) seen from ranks 1 and 2: their tasks on 0 and 1, the rest on 2 */
static const double LOAD[9] = {1.0, 0.5, 0.5, 0.5, 0.5, 2.0, 1.0, 0.5, 1.5};
static const int32_t BLOCK[9] = {0, 0, 1, 1, 2, 2, 3, 3, 4};
static const double BSIZE[5] = {9, 9, 9, 9, 9};
static const int32_t HOME[5] = {2, 2, 2, 0, 1};
static const int32_t SRC[8] = {0, 1, 3, 3, 4, 5, 7, 8};
static const int32_t DST[8] = {5, 4, 2, 8, 1, 8, 6, 6};
static const double BYTES[8] = {2.0, 1.0, 1.0, 0.5, 2.0, 2.0, 1.0, 1.5};
static const int32_t PAIR[9] = {2, 2, 2, 2, 0, 0, 0, 0, 1};

static wpart_tasks_problem_t pair_problem(void)
{
    wpart_tasks_problem_t p;
    memset(&p, 0, sizeof(p));
    p.n_ranks = 3;
    p.n_tasks = 9;
    p.n_blocks = 5;
    p.n_edges = 8;
    p.task_load = LOAD;
    p.task_block = BLOCK;
    p.block_size = BSIZE;
    p.block_home = HOME;
    p.edge_src = SRC;
    p.edge_dst = DST;
    p.edge_bytes = BYTES;
    return p;
}

static void test_pair_step(void)
{
    wpart_tasks_problem_t p = pair_problem();
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
    for (int32_t i = 0; i < out.n_give; i++) moved += LOAD[give[i]];
    for (int32_t i = 0; i < out.n_take; i++) moved -= LOAD[take[i]];
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
    test_pair_step();
    test_rng_streams();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_tasks_pair: OK\n");
    return 0;
}
