/* test_rng.c -- the core's one generator (wpart/rng.h): golden first outputs (the values the
 * tasks and dynamic families drew before they shared it, so fixed seeds keep their results),
 * distinct streams, the ranges of the draws, and the two families' stream paths. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wtest.h"
#include "wpart/dynamic_sim.h"
#include "wpart/rng.h"
#include "wpart/tasks.h"

#define N_DRAWS 100000

static int same_state(const wpart_rng_t *g, const uint64_t want[4])
{
    return memcmp(g->s, want, sizeof g->s) == 0;
}

/* The published reference: xoshiro256** from the state {1, 2, 3, 4}. */
static void test_reference(void)
{
    wpart_rng_t g = {{1, 2, 3, 4}};
    const uint64_t want[4] = {11520ULL, 0ULL, 1509978240ULL, 1215971899390074240ULL};
    for (int i = 0; i < 4; i++) {
        CHECK(wpart_rng_next(&g) == want[i]);
    }
    uint64_t x = 0;
    CHECK(wpart_rng_splitmix64(&x) == 0xE220A8397B1DCDAFULL); /* SplitMix64 from 0 */
    CHECK(x == 0x9E3779B97F4A7C15ULL);
}

/* tasks: rank 3 of trial 0 (a = 1, b = 3) under seed 42, as CCM-LB drew it before. */
static void test_golden_tasks(void)
{
    const uint64_t state[4] = {0x44f994a05d211117ULL, 0xfe7e2ae3da621f40ULL,
                               0x32684a482416d740ULL, 0x8be240d302e0c5afULL};
    const uint64_t ids[2] = {1 * WPART_RNG_MUL_1, 3 * WPART_RNG_MUL_2};
    wpart_rng_t g;
    wpart_rng_stream(&g, 42, ids, 2);
    CHECK(same_state(&g, state));
    uint64_t st[4];
    wpart_tasks_rng_seed(st, 42, 1, 3);
    CHECK(memcmp(st, state, sizeof st) == 0);

    const uint64_t next[4] = {0x16c506b19fbf245cULL, 0x16f305db0b948886ULL,
                              0x5e801e0c49322c1bULL, 0x291b046ae9dc666dULL};
    for (int i = 0; i < 4; i++) {
        CHECK(wpart_rng_next(&g) == next[i]);
    }
    const uint64_t below10[8] = {5, 6, 0, 5, 4, 7, 1, 7};
    for (int i = 0; i < 8; i++) {
        CHECK(wpart_rng_below(&g, 10) == below10[i]);
    }
    const uint64_t below_big[4] = {0x0d097baa3350b8cbULL, 0x686fffb773833bfcULL,
                                   0x2d3490faccac90d5ULL, 0x79446aa97b8627bdULL};
    for (int i = 0; i < 4; i++) {
        CHECK(wpart_rng_below(&g, (1ULL << 63) + 1) == below_big[i]);
    }

    wpart_tasks_rng_seed(st, 0, 1, 0);
    memcpy(g.s, st, sizeof st);
    CHECK(wpart_rng_next(&g) == 0x6e2a3587702f30dbULL);

    /* the turn order of 10 ranks (stream b = 10), then 4 gossip targets of 20 */
    int32_t order[10], cand[20];
    for (int32_t i = 0; i < 20; i++) {
        cand[i] = i;
        if (i < 10) {
            order[i] = i;
        }
    }
    wpart_tasks_rng_seed(st, 0, 1, 10);
    CHECK_STATUS(wpart_tasks_rng_shuffle(st, order, 10), WPART_OK);
    const int32_t want_order[10] = {0, 1, 8, 5, 6, 4, 9, 7, 3, 2};
    CHECK(memcmp(order, want_order, sizeof order) == 0);
    CHECK_STATUS(wpart_tasks_rng_sample(st, cand, 20, 4), WPART_OK);
    const int32_t want_cand[4] = {6, 1, 7, 11};
    CHECK(memcmp(cand, want_cand, sizeof want_cand) == 0);
}

/* dynamic: the noise stream (seed, pu, purpose, j), as wpart.dynamic drew it before. */
static void test_golden_dynamic(void)
{
    const uint64_t s1[4] = {0x5387513557a63e97ULL, 0x8118c93b1444fa52ULL,
                            0x3ea10a407a55d31aULL, 0x95a62995887fa2d2ULL};
    const uint64_t ids1[4] = {1 * WPART_RNG_MUL_1, 2 * WPART_RNG_MUL_3, 5, 0};
    wpart_rng_t g;
    wpart_rng_stream(&g, 42, ids1, 4);
    CHECK(same_state(&g, s1));
    /* negative pu and j: pu as uint32, j as two's complement */
    const uint64_t s2[4] = {0x9116af9e2e8f2f89ULL, 0x260b633fb9ce63d1ULL,
                            0x3c76f2ed314fc73aULL, 0xddefa26f4d4b2f8bULL};
    const uint64_t ids2[4] = {(uint64_t)(uint32_t)-1 * WPART_RNG_MUL_1, 3 * WPART_RNG_MUL_3,
                              (uint64_t)(int64_t)-4, 0};
    wpart_rng_stream(&g, 7, ids2, 4);
    CHECK(same_state(&g, s2));

    CHECK(wpart_dynamic_noise_uniform(42, 1, 2, 5, 0) == 0x1.5b5f629020006p-1);
    CHECK(wpart_dynamic_noise_uniform(42, 1, 2, 5, 1) == 0x1.ff6f804a5e646p-2);
    CHECK(wpart_dynamic_noise_lognormal(42, 1, 2, 5, 0.25) == 0x1.54851a5adc336p-1);
    /* the lognormal is exp(sigma z - sigma^2 / 2) of the stream's first normal */
    wpart_rng_stream(&g, 42, ids1, 4);
    double z = wpart_rng_normal(&g);
    CHECK(wpart_dynamic_noise_lognormal(42, 1, 2, 5, 0.25) == exp(0.25 * z - 0.5 * 0.25 * 0.25));
}

/* seeding: wpart_rng_seed is the empty path; the fill is four SplitMix64 outputs. */
static void test_seed(void)
{
    wpart_rng_t g, h;
    wpart_rng_seed(&g, 42);
    const uint64_t next[3] = {0x15780b2e0c2ec716ULL, 0x6104d9866d113a7eULL, 0xae17533239e499a1ULL};
    for (int i = 0; i < 3; i++) {
        CHECK(wpart_rng_next(&g) == next[i]);
    }
    wpart_rng_stream(&h, 42, NULL, 0);
    wpart_rng_seed(&g, 42);
    CHECK(memcmp(g.s, h.s, sizeof g.s) == 0);
    uint64_t x = 42;
    for (int i = 0; i < 4; i++) {
        CHECK(g.s[i] == wpart_rng_splitmix64(&x));
    }
    /* one id: the key is splitmix64(seed) ^ id */
    const uint64_t id = 99;
    wpart_rng_stream(&h, 42, &id, 1);
    wpart_rng_init(&g, wpart_rng_mix(42, id));
    CHECK(memcmp(g.s, h.s, sizeof g.s) == 0);
    /* a copy forks the stream at its position */
    for (int i = 0; i < 5; i++) {
        wpart_rng_next(&g);
    }
    h = g;
    for (int i = 0; i < 100; i++) {
        CHECK(wpart_rng_next(&g) == wpart_rng_next(&h));
    }
    /* every seed gives a nonzero state */
    for (uint64_t s = 0; s < 1000; s++) {
        wpart_rng_seed(&g, s);
        CHECK((g.s[0] | g.s[1] | g.s[2] | g.s[3]) != 0);
    }
}

/* different seeds and ids give different streams; the path order matters */
static void test_streams_differ(void)
{
    enum { NS = 4, NA = 8, NB = 8, NT = NS * NA * NB };
    static uint64_t first[NT];
    int k = 0;
    for (uint64_t s = 0; s < NS; s++) {
        for (uint64_t a = 0; a < NA; a++) {
            for (uint64_t b = 0; b < NB; b++) {
                const uint64_t ids[2] = {a * WPART_RNG_MUL_1, b * WPART_RNG_MUL_2};
                wpart_rng_t g;
                wpart_rng_stream(&g, s, ids, 2);
                first[k++] = wpart_rng_next(&g);
            }
        }
    }
    int dup = 0;
    for (int i = 0; i < NT; i++) {
        for (int j = i + 1; j < NT; j++) {
            dup += first[i] == first[j];
        }
    }
    CHECK(dup == 0);

    wpart_rng_t g, h;
    const uint64_t ab[2] = {1, 2}, ba[2] = {2, 1};
    wpart_rng_stream(&g, 5, ab, 2);
    wpart_rng_stream(&h, 5, ba, 2);
    CHECK(memcmp(g.s, h.s, sizeof g.s) != 0);
    /* a stream is not its parent shifted: (seed) and (seed, 0) differ */
    const uint64_t zero = 0;
    wpart_rng_seed(&g, 5);
    wpart_rng_stream(&h, 5, &zero, 1);
    CHECK(memcmp(g.s, h.s, sizeof g.s) != 0);
    /* consecutive streams are uncorrelated in their low bit (a loose check) */
    int agree = 0;
    for (uint64_t j = 0; j < 4096; j++) {
        const uint64_t i0[1] = {j}, i1[1] = {j + 1};
        wpart_rng_stream(&g, 9, i0, 1);
        wpart_rng_stream(&h, 9, i1, 1);
        agree += (int)((wpart_rng_next(&g) ^ wpart_rng_next(&h) ^ 1) & 1);
    }
    CHECK(agree > 1800 && agree < 2300);
}

static void test_uniform(void)
{
    CHECK(wpart_rng_to_unit(0) == 0.0);
    CHECK(wpart_rng_to_unit(UINT64_MAX) < 1.0);
    CHECK(wpart_rng_to_unit(UINT64_MAX) == 1.0 - 0x1.0p-53);
    wpart_rng_t g;
    wpart_rng_seed(&g, 1);
    double sum = 0, lo = 1, hi = 0;
    int bins[10] = {0};
    for (int i = 0; i < N_DRAWS; i++) {
        double u = wpart_rng_uniform(&g);
        CHECK(u >= 0.0 && u < 1.0);
        CHECK(u * 0x1.0p53 == floor(u * 0x1.0p53)); /* a multiple of 2^-53 */
        sum += u;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
        bins[(int)(u * 10)]++;
    }
    CHECK(fabs(sum / N_DRAWS - 0.5) < 0.005);
    CHECK(lo < 1e-3 && hi > 1 - 1e-3);
    for (int b = 0; b < 10; b++) {
        CHECK(abs(bins[b] - N_DRAWS / 10) < N_DRAWS / 100);
    }
}

static void test_below(void)
{
    const uint64_t ns[] = {1, 2, 3, 7, 10, 1000, (1ULL << 32) + 1, (1ULL << 63) + 1,
                           UINT64_MAX - 1, UINT64_MAX};
    wpart_rng_t g;
    wpart_rng_seed(&g, 3);
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        for (int i = 0; i < 2000; i++) {
            CHECK(wpart_rng_below(&g, ns[k]) < ns[k]);
        }
    }
    /* n = 1 takes one draw (the callers' streams depend on it); n = 0 takes none */
    wpart_rng_t h = g;
    CHECK(wpart_rng_below(&g, 1) == 0);
    wpart_rng_next(&h);
    CHECK(memcmp(g.s, h.s, sizeof g.s) == 0);
    CHECK(wpart_rng_below(&g, 0) == 0);
    CHECK(memcmp(g.s, h.s, sizeof g.s) == 0);
    /* no modulo bias: with n = 3 * 2^62 a plain x % n would give [0, 2^62) twice as often */
    const uint64_t n = 3ULL << 62;
    int low = 0;
    for (int i = 0; i < 30000; i++) {
        low += wpart_rng_below(&g, n) < (1ULL << 62);
    }
    CHECK(abs(low - 10000) < 600);
    /* every value of a small range, evenly */
    int cnt[7] = {0};
    for (int i = 0; i < 70000; i++) {
        cnt[wpart_rng_below(&g, 7)]++;
    }
    for (int v = 0; v < 7; v++) {
        CHECK(abs(cnt[v] - 10000) < 500);
    }
}

static void test_normal(void)
{
    wpart_rng_t g, h;
    wpart_rng_seed(&g, 11);
    h = g;
    double u1 = 1.0 - wpart_rng_uniform(&h), u2 = wpart_rng_uniform(&h);
    CHECK(wpart_rng_normal(&g) == sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
    CHECK(memcmp(g.s, h.s, sizeof g.s) == 0); /* two draws per value */
    double m = 0, m2 = 0;
    int tail = 0;
    for (int i = 0; i < N_DRAWS; i++) {
        double z = wpart_rng_normal(&g);
        CHECK(isfinite(z));
        m += z;
        m2 += z * z;
        tail += fabs(z) > 1.959963984540054;
    }
    m /= N_DRAWS;
    CHECK(fabs(m) < 0.015);
    CHECK(fabs(m2 / N_DRAWS - m * m - 1.0) < 0.02);
    CHECK(abs(tail - N_DRAWS / 20) < N_DRAWS / 200); /* 5 % outside +-1.96 */
}

int main(void)
{
    test_reference();
    test_golden_tasks();
    test_golden_dynamic();
    test_seed();
    test_streams_differ();
    test_uniform();
    test_below();
    test_normal();
    if (failures) {
        fprintf(stderr, "test_rng: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_rng: ok\n");
    return 0;
}
