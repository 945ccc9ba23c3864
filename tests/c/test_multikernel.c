/* test_multikernel.c -- the multi-kernel decisions (wpart/multikernel.h) at the C level:
 * SPLIT properties over random cases, quantum, bisection, detector table, adaptive binary
 * search convergence, interpolation exact at the nodes, bad input. */
#include <math.h>
#include <stdlib.h>

#include "wtest.h"
#include "wpart/multikernel.h"

static void test_split_random(void)
{
    for (int trial = 0; trial < 20000; trial++) {
        int32_t P = 1 + (int32_t)(rnd() % 9);
        int64_t total = (int64_t)(rnd() % 5000);
        double sh[9];
        int64_t q[9], n[9], off[9];
        int any = 0;
        for (int32_t e = 0; e < P; e++) {
            sh[e] = (rnd() % 4 == 0) ? 0.0 : (double)(rnd() % 1000) / 999.0;
            q[e] = (rnd() % 3 == 0) ? 1 + (int64_t)(rnd() % 64) : 1 + (int64_t)(rnd() % (2 * total + 3));
            any |= sh[e] > 0;
        }
        if (!any) {
            sh[0] = 1.0;
        }
        CHECK_STATUS(wpart_multikernel_split(total, P, sh, q, n, off), WPART_OK);
        int64_t sum = 0, qmin = INT64_MAX;
        int32_t last = -1;
        for (int32_t e = 0; e < P; e++) {
            if (sh[e] > 0) {
                last = e;
                qmin = q[e] < qmin ? q[e] : qmin;
            }
        }
        for (int32_t e = 0; e < P; e++) {
            CHECK(off[e] == sum);
            CHECK(n[e] >= 0);
            sum += n[e];
            if (sh[e] == 0) {
                CHECK(n[e] == 0);
            } else if (e != last) {
                CHECK(n[e] % q[e] == 0);
            } else {
                CHECK(n[e] % q[e] < qmin || n[e] % q[e] == 0);
            }
        }
        CHECK(sum == total);
    }
    /* huge totals: work independent of total */
    double sh[3] = {0.25, 0.25, 0.5};
    int64_t q[3] = {1, 1, 1000000000000000000LL}, n[3], off[3];
    CHECK_STATUS(wpart_multikernel_split(999999999999999999LL, 3, sh, q, n, off), WPART_OK);
    CHECK(n[0] + n[1] + n[2] == 999999999999999999LL && n[2] == 0);
}

static void test_split_bad(void)
{
    double sh[2] = {0.5, NAN};
    int64_t q[2] = {1, 1}, n[2], off[2];
    CHECK_STATUS(wpart_multikernel_split(10, 2, sh, q, n, off), WPART_EINVAL);
    sh[1] = 0.5;
    q[1] = 0;
    CHECK_STATUS(wpart_multikernel_split(10, 2, sh, q, n, off), WPART_EINVAL);
    q[1] = 1;
    CHECK_STATUS(wpart_multikernel_split(-1, 2, sh, q, n, off), WPART_EINVAL);
    CHECK_STATUS(wpart_multikernel_split(10, 0, sh, q, n, off), WPART_EINVAL);
    sh[0] = sh[1] = 0.0;
    CHECK_STATUS(wpart_multikernel_split(10, 2, sh, q, n, off), WPART_EINVAL);
}

static void test_quantum(void)
{
    int64_t a[2] = {1024, 3}, b[2] = {256, 64}, qv = 0;
    CHECK_STATUS(wpart_multikernel_quantum(2, a, b, &qv), WPART_OK);
    CHECK(qv == 64);
    int64_t a2[2] = {1, 1}, b2[2] = {(1LL << 62) - 1, (1LL << 61) - 1};
    CHECK_STATUS(wpart_multikernel_quantum(2, a2, b2, &qv), WPART_EOVERFLOW);
}

static void test_bisect_detector_abs(void)
{
    wpart_multikernel_bisect_t b;
    CHECK_STATUS(wpart_multikernel_bisect_init(&b, 1.0 / 1024), WPART_OK);
    CHECK(wpart_multikernel_bisect_candidate(&b) == 0.5);
    int ex = 0;
    CHECK_STATUS(wpart_multikernel_bisect_feedback(&b, 1.0, 2.0, &ex), WPART_OK);
    CHECK(wpart_multikernel_bisect_candidate(&b) == 0.75 && b.X == 0.5 && !ex);

    /* runs to fire from a perfect history at ratio 0.5: 4 (the table of the detector) */
    wpart_multikernel_detector_t d;
    CHECK_STATUS(wpart_multikernel_detector_init(&d, 0.10, 0.85, 1.0), WPART_OK);
    double t[2] = {0.5, 1.0};
    int fire = 0, runs = 0;
    while (!fire && runs < 100) {
        CHECK_STATUS(wpart_multikernel_detector_update(&d, 2, t, &fire, NULL), WPART_OK);
        runs++;
    }
    CHECK(runs == 4);

    /* linear devices: within 2 T_min of the optimum in at most 10 steps */
    for (int trial = 0; trial < 2000; trial++) {
        double a = 0.05 + (double)(rnd() % 10000) / 500.0, c = 0.05 + (double)(rnd() % 10000) / 500.0;
        double star = c / (a + c), s = (double)(rnd() % 1001) / 1000.0;
        wpart_multikernel_abs_t A;
        CHECK_STATUS(wpart_multikernel_abs_start(&A, s, 1.0 / 16, 1.0 / 256, 0.5), WPART_OK);
        for (int k = 0; k < 10 && fabs(s - star) > 2.0 / 256; k++) {
            CHECK_STATUS(wpart_multikernel_abs_step(&A, a * s, c * (1 - s), &s), WPART_OK);
        }
        CHECK(fabs(s - star) <= 2.0 / 256 + 1e-12);
    }
    wpart_multikernel_abs_t A;
    CHECK_STATUS(wpart_multikernel_abs_start(&A, 0.5, 0.5, 1.0 / 256, 0.25), WPART_EINVAL);

    /* the robust search: without noise the paper's steps; one stalled run in three ignored */
    for (int trial = 0; trial < 500; trial++) {
        double a = 0.05 + (double)(rnd() % 10000) / 500.0, c = 0.05 + (double)(rnd() % 10000) / 500.0;
        double star = c / (a + c), s0 = (double)(rnd() % 1001) / 1000.0, sp = s0, sr = s0, sn = s0;
        wpart_multikernel_abs_t P, R, N;
        CHECK_STATUS(wpart_multikernel_abs_start(&P, s0, 1.0 / 16, 1.0 / 256, 0.5), WPART_OK);
        CHECK_STATUS(wpart_multikernel_abs_start(&R, s0, 1.0 / 16, 1.0 / 256, 0.5), WPART_OK);
        CHECK_STATUS(wpart_multikernel_abs_start(&N, s0, 1.0 / 16, 1.0 / 256, 0.5), WPART_OK);
        CHECK_STATUS(wpart_multikernel_abs_set_window(&R, 4, 0.0), WPART_OK);
        CHECK_STATUS(wpart_multikernel_abs_set_window(&N, 4, 0.0), WPART_OK);
        for (int k = 0; k < 12; k++) {
            CHECK_STATUS(wpart_multikernel_abs_step(&P, a * sp, c * (1 - sp), &sp), WPART_OK);
            CHECK_STATUS(wpart_multikernel_abs_step(&R, a * sr, c * (1 - sr), &sr), WPART_OK);
            CHECK(sp == sr);
        }
        for (int k = 0; k < 30 && fabs(sn - star) > 2.0 / 256; k++) {
            double stall = k % 3 == 1 ? 20.0 : 1.0; /* one side stalled, in turn */
            double tg = a * sn * ((k / 3) % 2 ? stall : 1.0), tc = c * (1 - sn) * ((k / 3) % 2 ? 1.0 : stall);
            CHECK_STATUS(wpart_multikernel_abs_step(&N, tg, tc, &sn), WPART_OK);
        }
        CHECK(fabs(sn - star) <= 2.0 / 256 + 1e-12);
    }
    wpart_multikernel_abs_t R;
    double s = 0.0, tg = 0.0, tc = 0.0;
    int ok = 1;
    CHECK_STATUS(wpart_multikernel_abs_start(&R, 0.5, 1.0 / 16, 1.0 / 256, 0.5), WPART_OK);
    CHECK_STATUS(wpart_multikernel_abs_estimate(&R, &tg, &tc, &ok), WPART_OK);
    CHECK(!ok); /* window 1: no estimate */
    CHECK_STATUS(wpart_multikernel_abs_set_window(&R, 3, 0.9), WPART_OK);
    CHECK_STATUS(wpart_multikernel_abs_observe(&R, 1.0, 2.0), WPART_OK);
    CHECK_STATUS(wpart_multikernel_abs_observe(&R, 1.0, 200.0), WPART_OK);
    CHECK_STATUS(wpart_multikernel_abs_estimate(&R, &tg, &tc, &ok), WPART_OK);
    CHECK(ok && tg == 1.0 && tc == 2.0); /* the faster of each type */
    CHECK_STATUS(wpart_multikernel_abs_judge(&R, &s), WPART_OK);
    CHECK(s == 0.5 + 1.0 / 16);
    CHECK_STATUS(wpart_multikernel_abs_restart(&R, 0.25), WPART_OK);
    CHECK(R.s == 0.25 && R.phase == 0 && R.T == 1.0 / 16 && R.window == 3);
    CHECK_STATUS(wpart_multikernel_abs_observe(&R, 0.25, 0.23), WPART_OK); /* ratio 0.92 */
    CHECK_STATUS(wpart_multikernel_abs_observe(&R, 0.25, 0.23), WPART_OK);
    CHECK_STATUS(wpart_multikernel_abs_observe(&R, 0.25, 0.23), WPART_OK);
    CHECK_STATUS(wpart_multikernel_abs_judge(&R, &s), WPART_OK);
    CHECK(s == 0.25); /* within the band: stays */
    CHECK_STATUS(wpart_multikernel_abs_set_window(&R, 0, 0.0), WPART_EINVAL);
    CHECK_STATUS(wpart_multikernel_abs_set_window(&R, WPART_MULTIKERNEL_ABS_WMAX + 1, 0.0), WPART_EINVAL);
    CHECK_STATUS(wpart_multikernel_abs_set_window(&R, 3, 1.0), WPART_EINVAL);
    CHECK_STATUS(wpart_multikernel_abs_observe(&R, -1.0, 1.0), WPART_EINVAL);
    CHECK_STATUS(wpart_multikernel_abs_observe(&R, INFINITY, 1.0), WPART_EINVAL);
    CHECK_STATUS(wpart_multikernel_abs_restart(&R, 1.5), WPART_EINVAL);
}

static void test_interpolate(void)
{
    double X[10 * 2], y[10], out[10];
    for (int i = 0; i < 10; i++) {
        X[2 * i] = 8 + (double)(rnd() % 1000) / 200.0;
        X[2 * i + 1] = 8 + (double)(rnd() % 1000) / 200.0;
        y[i] = (double)(rnd() % 1000) / 1000.0;
    }
    int32_t how = -1;
    CHECK_STATUS(wpart_multikernel_interpolate(10, 2, X, y, 10, X, out, &how), WPART_OK);
    CHECK(how == WPART_MULTIKERNEL_INTERP_RBF);
    for (int i = 0; i < 10; i++) {
        CHECK(out[i] == y[i]);
    }
    CHECK_STATUS(wpart_multikernel_interpolate(0, 2, X, y, 1, X, out, &how), WPART_EINVAL);
}

int main(void)
{
    test_split_random();
    test_split_bad();
    test_quantum();
    test_bisect_detector_abs();
    test_interpolate();
    if (failures) {
        fprintf(stderr, "test_multikernel: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_multikernel: ok\n");
    return 0;
}
