/* test_hetero.c -- C tests of the hetero family: the Appendix A example, HEPOPTA = enumeration =
 * threshold DP on random instances, HTPOPTA, load balance and every status path. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wpart/wpart.h"
#define WTEST_SEED 0x2545F4914F6CDD1DULL
#include "wtest.h"

static const int64_t A_OFF[5] = {0, 4, 8, 12, 16};
static const int64_t A_SIZE[16] = {1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4};
static const double A_TIME[16] = {1, 2, 4, 5, 3, 6, 8, 10, 1, 2, 3, 4, 1, 2, 3, 4};
static const double A_ENER[16] = {2, 1, 4, 6, 2, 1, 6, 8, 5, 4, 7, 9, 1, 6, 8, 10};

static void test_appendix_a(void)
{
    wpart_hetero_profiles_t P = {4, A_OFF, A_SIZE, A_TIME, A_ENER};
    wpart_hetero_front_t f = {0};
    wpart_hetero_stats_t s;
    CHECK_STATUS(wpart_hetero_hepopta(4, &P, NULL, &f, &s), WPART_OK);
    CHECK(f.count == 3);
    if (f.count == 3) {
        CHECK(f.energy[0] == 2 && f.time[0] == 6 && f.energy[1] == 4 && f.time[1] == 3);
        CHECK(f.energy[2] == 5 && f.time[2] == 2);
        int64_t want[12] = {2, 2, 0, 0, 2, 1, 0, 1, 2, 0, 2, 0};
        CHECK(memcmp(f.dist, want, sizeof want) == 0);
    }
    CHECK(s.t_opt == 2 && s.energy_threshold == 5);
    wpart_hetero_front_free(&f);
    wpart_hetero_front_free(&f); /* twice is safe */
    int feas;
    double t, e;
    int64_t d[4];
    CHECK_STATUS(wpart_hetero_time_optimal(4, &P, NULL, &feas, &t, &e, d), WPART_OK);
    CHECK(feas && t == 2 && e == 5 && d[0] == 2 && d[2] == 2);
    CHECK_STATUS(wpart_hetero_htpopta(4, &P, 0.75, NULL, &f, NULL), WPART_OK);
    CHECK(f.count == 2 && f.energy[0] == 6.25 && f.energy[1] == 6.5);
    wpart_hetero_front_free(&f);
    CHECK_STATUS(wpart_hetero_load_balanced(4, &P, WPART_HETERO_LB_MAX_ACTIVE, NULL, &feas, &t,
                                            &e, d),
                 WPART_OK);
    CHECK(feas && t == 3 && e == 10 && d[0] == 1 && d[3] == 1);
    CHECK_STATUS(wpart_hetero_eval(&P, d, &t, &e), WPART_OK);
    CHECK(t == 3 && e == 10);
}

static int same_vectors(const wpart_hetero_front_t *a, const wpart_hetero_front_t *b)
{
    if (a->count != b->count) {
        return 0;
    }
    for (int64_t k = 0; k < a->count; k++) {
        if (a->energy[k] != b->energy[k] || a->time[k] != b->time[k]) {
            return 0;
        }
    }
    return 1;
}

static void test_random(void)
{
    for (int it = 0; it < 1500; it++) {
        int64_t p = 1 + (int64_t)(rnd() % 4), off[5] = {0}, size[40];
        double tm[40], en[40];
        int64_t tot = 0, maxsum = 0;
        for (int64_t i = 0; i < p; i++) {
            int64_t last = 0;
            for (int64_t x = 1; x <= 7; x++) {
                if (rnd() % 3 == 0) {
                    continue;
                }
                size[tot] = x;
                tm[tot] = (double)(rnd() % 8);
                en[tot] = (double)(rnd() % 8) * 0.5;
                tot++;
                last = x;
            }
            off[i + 1] = tot;
            maxsum += last;
        }
        wpart_hetero_profiles_t P = {p, off, size, tm, en};
        int64_t n = (int64_t)(rnd() % (uint64_t)(maxsum + 2));
        wpart_hetero_front_t a = {0}, b = {0}, c = {0};
        CHECK_STATUS(wpart_hetero_hepopta(n, &P, NULL, &a, NULL), WPART_OK);
        CHECK_STATUS(wpart_hetero_bruteforce(n, &P, 0, &b), WPART_OK);
        CHECK_STATUS(wpart_hetero_threshold_dp(n, &P, NULL, &c), WPART_OK);
        CHECK(same_vectors(&a, &b));
        CHECK(same_vectors(&a, &c));
        for (int64_t k = 0; k < a.count; k++) {
            double t, e;
            int64_t s = 0;
            for (int64_t i = 0; i < p; i++) {
                s += a.dist[k * p + i];
            }
            CHECK(s == n);
            CHECK_STATUS(wpart_hetero_eval(&P, a.dist + k * p, &t, &e), WPART_OK);
            CHECK(t == a.time[k] && e == a.energy[k]);
            if (k > 0) {
                CHECK(a.energy[k] > a.energy[k - 1] && a.time[k] < a.time[k - 1]);
            }
        }
        wpart_hetero_front_free(&a);
        wpart_hetero_front_free(&b);
        wpart_hetero_front_free(&c);
    }
}

static int stop_now(void *ctx) { return 1; }

static void test_status_paths(void)
{
    wpart_hetero_profiles_t P = {4, A_OFF, A_SIZE, A_TIME, A_ENER};
    wpart_hetero_front_t f = {0};
    int feas;
    double t, e;
    int64_t d[4] = {1, 1, 1, 5};
    CHECK_STATUS(wpart_hetero_hepopta(-1, &P, NULL, &f, NULL), WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "n must be") != NULL);
    CHECK(f.count == 0 && f.dist == NULL);
    wpart_hetero_profiles_t bad = P;
    bad.p = 0;
    CHECK_STATUS(wpart_hetero_hepopta(4, &bad, NULL, &f, NULL), WPART_EINVAL);
    CHECK_STATUS(wpart_hetero_validate(NULL), WPART_EINVAL);
    double tn[16];
    memcpy(tn, A_TIME, sizeof tn);
    tn[5] = NAN;
    bad = P;
    bad.time = tn;
    CHECK_STATUS(wpart_hetero_hepopta(4, &bad, NULL, &f, NULL), WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "processor 1") != NULL);
    tn[5] = -1.0;
    CHECK_STATUS(wpart_hetero_time_optimal(4, &bad, NULL, &feas, &t, &e, d), WPART_EINVAL);
    int64_t sz[16];
    memcpy(sz, A_SIZE, sizeof sz);
    sz[2] = 2;
    bad = P;
    bad.size = sz;
    CHECK_STATUS(wpart_hetero_threshold_dp(4, &bad, NULL, &f), WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "strictly increasing") != NULL);
    CHECK_STATUS(wpart_hetero_eval(&P, d, &t, &e), WPART_EINVAL);
    d[3] = -1;
    CHECK_STATUS(wpart_hetero_eval(&P, d, &t, &e), WPART_EINVAL);
    CHECK_STATUS(wpart_hetero_htpopta(4, &P, -1.0, NULL, &f, NULL), WPART_EINVAL);
    CHECK_STATUS(wpart_hetero_htpopta(4, &P, NAN, NULL, &f, NULL), WPART_EINVAL);
    CHECK_STATUS(wpart_hetero_bruteforce(4, &P, 10, &f), WPART_ELIMIT);
    CHECK_STATUS(wpart_hetero_load_balanced(4, &P, (wpart_hetero_lb_mode_t)7, NULL, &feas, &t,
                                            &e, d),
                 WPART_EINVAL);
    wpart_hetero_options_t o;
    wpart_hetero_options_init(&o);
    o.energy_threshold = 1.0; /* below the time-optimal energy 5 */
    CHECK_STATUS(wpart_hetero_hepopta(4, &P, &o, &f, NULL), WPART_EINVAL);
    o.energy_threshold = INFINITY;
    CHECK_STATUS(wpart_hetero_hepopta(4, &P, &o, &f, NULL), WPART_OK);
    CHECK(f.count == 3);
    wpart_hetero_front_free(&f);
    wpart_hetero_options_init(&o);
    o.max_grid = 3;
    CHECK_STATUS(wpart_hetero_hepopta(4, &P, &o, &f, NULL), WPART_ELIMIT);
    /* cancellation from the control hook during the threshold DP */
    wpart_control_t ctl;
    wpart_control_init(&ctl);
    ctl.should_stop = stop_now;
    wpart_hetero_options_init(&o);
    o.control = &ctl;
    CHECK_STATUS(wpart_hetero_threshold_dp(4, &P, &o, &f), WPART_ECANCELLED);
    CHECK(f.count == 0 && f.energy == NULL);
    /* infeasible and trivial */
    CHECK_STATUS(wpart_hetero_hepopta(17, &P, NULL, &f, NULL), WPART_OK);
    CHECK(f.count == 0);
    wpart_hetero_front_free(&f);
    CHECK_STATUS(wpart_hetero_hepopta(0, &P, NULL, &f, NULL), WPART_OK);
    CHECK(f.count == 1 && f.energy[0] == 0 && f.time[0] == 0 && f.dist[3] == 0);
    wpart_hetero_front_free(&f);
    CHECK_STATUS(wpart_hetero_time_optimal(17, &P, NULL, &feas, &t, &e, d), WPART_OK);
    CHECK(!feas);
}

static void test_milp(void)
{
    wpart_hetero_profiles_t P = {4, A_OFF, A_SIZE, A_TIME, A_ENER};
    wpart_hetero_front_t f = {0};
    if (!wpart_milp_have_solver()) {
        CHECK_STATUS(wpart_hetero_milp_front(4, &P, 0, NULL, &f), WPART_ENOSOLVER);
        return;
    }
    CHECK_STATUS(wpart_hetero_milp_front(4, &P, 0, NULL, &f), WPART_OK);
    CHECK(f.count == 3 && f.energy[0] == 2 && f.time[2] == 2);
    wpart_hetero_front_free(&f);
    CHECK_STATUS(wpart_hetero_milp_front(-1, &P, 0, NULL, &f), WPART_EINVAL);
    CHECK_STATUS(wpart_hetero_milp_front(17, &P, 0, NULL, &f), WPART_OK);
    CHECK(f.count == 0);
    wpart_hetero_front_free(&f);
    wpart_milp_free_env();
}

/* Overflowing energies, n beyond every capacity at any size, and the control hooks polled
 * inside every long loop (a stop request is seen in TOPT, the load-balanced search, the
 * minimum-energy DP and HEPOPTA's bounds even when a single sweep is long). */
static void test_limits(void)
{
    wpart_hetero_front_t f = {0};
    int feas = 1;
    double t, e;
    int64_t d[4];
    double big[16];
    for (int k = 0; k < 16; k++) {
        big[k] = 1e308;
    }
    wpart_hetero_profiles_t P = {4, A_OFF, A_SIZE, A_TIME, big};
    CHECK_STATUS(wpart_hetero_hepopta(4, &P, NULL, &f, NULL), WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "energies too large") != NULL);
    CHECK_STATUS(wpart_hetero_time_optimal(4, &P, NULL, &feas, &t, &e, d), WPART_EINVAL);
    CHECK_STATUS(wpart_hetero_load_balanced(4, &P, WPART_HETERO_LB_MAX_ACTIVE, NULL, &feas, &t,
                                            &e, d),
                 WPART_EINVAL);
    P.energy = A_ENER;
    CHECK_STATUS(wpart_hetero_htpopta(4, &P, 1e308, NULL, &f, NULL), WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "static_power") != NULL);
    /* capacity 16: beyond it an empty front, even far past max_grid */
    wpart_hetero_options_t o;
    wpart_hetero_options_init(&o);
    o.max_grid = 8;
    int64_t ns[3] = {17, 1000000000000LL, INT64_MAX};
    for (int a = 0; a < 3; a++) {
        CHECK_STATUS(wpart_hetero_hepopta(ns[a], &P, &o, &f, NULL), WPART_OK);
        CHECK(f.count == 0);
        wpart_hetero_front_free(&f);
        CHECK_STATUS(wpart_hetero_threshold_dp(ns[a], &P, &o, &f), WPART_OK);
        CHECK(f.count == 0);
        wpart_hetero_front_free(&f);
        feas = 1;
        CHECK_STATUS(wpart_hetero_time_optimal(ns[a], &P, &o, &feas, &t, &e, d), WPART_OK);
        CHECK(!feas);
        feas = 1;
        CHECK_STATUS(wpart_hetero_energy_optimal(ns[a], &P, &o, &feas, &t, &e, d), WPART_OK);
        CHECK(!feas);
        feas = 1;
        CHECK_STATUS(wpart_hetero_load_balanced(ns[a], &P, WPART_HETERO_LB_MAX_ACTIVE, &o,
                                                &feas, &t, &e, d),
                     WPART_OK);
        CHECK(!feas);
    }
    /* a stop request is honoured inside long sweeps */
    enum { M = 3000, PP = 3 };
    int64_t *off = malloc((PP + 1) * sizeof *off), *sz = malloc(PP * M * sizeof *sz);
    double *tm = malloc(PP * M * sizeof *tm), *en = malloc(PP * M * sizeof *en);
    if (!off || !sz || !tm || !en) {
        CHECK(0);
        goto done;
    }
    for (int i = 0; i <= PP; i++) {
        off[i] = (int64_t)i * M;
    }
    for (int i = 0; i < PP; i++) {
        for (int k = 0; k < M; k++) {
            sz[i * M + k] = k + 1;
            tm[i * M + k] = (k + 1) * (1.0 + i) * (1.0 + 0.01 * (double)(rnd() % 10));
            en[i * M + k] = (k + 1) * (2.0 - 0.3 * i) * (1.0 + 0.01 * (double)(rnd() % 10));
        }
    }
    wpart_hetero_profiles_t L = {PP, off, sz, tm, en};
    wpart_control_t ctl;
    wpart_control_init(&ctl);
    ctl.should_stop = stop_now;
    wpart_hetero_options_init(&o);
    o.control = &ctl;
    int64_t dl[PP];
    CHECK_STATUS(wpart_hetero_time_optimal(2 * M, &L, &o, &feas, &t, &e, dl), WPART_ECANCELLED);
    CHECK_STATUS(wpart_hetero_energy_optimal(2 * M, &L, &o, &feas, &t, &e, dl),
                 WPART_ECANCELLED);
    CHECK_STATUS(wpart_hetero_load_balanced(2 * M, &L, WPART_HETERO_LB_MAX_ACTIVE, &o, &feas,
                                            &t, &e, dl),
                 WPART_ECANCELLED);
    CHECK_STATUS(wpart_hetero_hepopta(2 * M, &L, &o, &f, NULL), WPART_ECANCELLED);
    CHECK(f.count == 0 && f.dist == NULL);
    /* without the stop request the same calls succeed */
    CHECK_STATUS(wpart_hetero_time_optimal(2 * M, &L, NULL, &feas, &t, &e, dl), WPART_OK);
    CHECK(feas && dl[0] + dl[1] + dl[2] == 2 * M);
done:
    free(off);
    free(sz);
    free(tm);
    free(en);
}

int main(void)
{
    test_milp();
    test_appendix_a();
    test_random();
    test_status_paths();
    test_limits();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_hetero: all checks passed\n");
    return 0;
}
