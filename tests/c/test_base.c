/* test_base.c -- C tests of the base layer: prefix sums, box loads, 1D partitioning and every
 * status path, without Python. Exit status 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wpart/wpart.h"
#include "wtest.h"

/* brute force: best bottleneck over all separator vectors (recursive) */
static int64_t brute(const int64_t *W, int64_t start, int64_t n, int64_t q)
{
    if (q == 1) {
        return W[n] - W[start];
    }
    int64_t best = INT64_MAX;
    for (int64_t e = start; e <= n; e++) {
        int64_t c = W[e] - W[start];
        int64_t rest = brute(W, e, n, q - 1);
        int64_t v = c > rest ? c : rest;
        best = v < best ? v : best;
    }
    return best;
}

static void test_strerror(void)
{
    for (int s = 0; s <= 8; s++) {
        const char *m = wpart_strerror((wpart_status_t)s);
        CHECK(m != NULL && m[0] != '\0');
    }
    CHECK(strcmp(wpart_strerror((wpart_status_t)99), "unknown status") == 0);
}

static void test_prefix2d(void)
{
    int64_t A[6] = {1, 2, 3, 4, 5, 6}, S[12];
    CHECK_STATUS(wpart_base_prefix2d_i64(A, 2, 3, S), WPART_OK);
    int64_t want[12] = {0, 0, 0, 0, 0, 1, 3, 6, 0, 5, 12, 21};
    CHECK(memcmp(S, want, sizeof want) == 0);
    int64_t boxes[8] = {0, 2, 0, 3, 1, 2, 1, 3}, out[2];
    int64_t dims[2] = {2, 3};
    CHECK_STATUS(wpart_base_box_loads_i64(S, 2, dims, boxes, 2, out), WPART_OK);
    CHECK(out[0] == 21 && out[1] == 11);
    int64_t badbox[4] = {0, 3, 0, 1};
    CHECK_STATUS(wpart_base_box_loads_i64(S, 2, dims, badbox, 1, out), WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "box 0") != NULL);

    A[4] = -1;
    CHECK_STATUS(wpart_base_prefix2d_i64(A, 2, 3, S), WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "(1, 1)") != NULL);
    int64_t B[2] = {INT64_MAX, 1}, SB[6];
    CHECK_STATUS(wpart_base_prefix2d_i64(B, 1, 2, SB), WPART_EOVERFLOW);
    CHECK_STATUS(wpart_base_prefix2d_i64(B, -1, 2, SB), WPART_EINVAL);

    double F[4] = {0.5, 1.5, NAN, 1.0}, SF[9];
    CHECK_STATUS(wpart_base_prefix2d_f64(F, 2, 2, SF), WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "NaN at index (1, 0)") != NULL);
    F[2] = 2.0;
    CHECK_STATUS(wpart_base_prefix2d_f64(F, 2, 2, SF), WPART_OK);
    CHECK(SF[8] == 5.0 && SF[4] == 0.5);
    double G[2] = {1e308, 1e308}, SG[6];
    CHECK_STATUS(wpart_base_prefix2d_f64(G, 1, 2, SG), WPART_EOVERFLOW);
}

static void test_prefix3d(void)
{
    enum { N1 = 3, N2 = 4, N3 = 5 };
    int64_t A[N1 * N2 * N3], S[(N1 + 1) * (N2 + 1) * (N3 + 1)];
    for (int i = 0; i < N1 * N2 * N3; i++) {
        A[i] = (int64_t)(rnd() % 10);
    }
    CHECK_STATUS(wpart_base_prefix3d_i64(A, N1, N2, N3, S), WPART_OK);
    for (int i = 0; i <= N1; i++) {
        for (int j = 0; j <= N2; j++) {
            for (int k = 0; k <= N3; k++) {
                int64_t s = 0;
                for (int a = 0; a < i; a++) {
                    for (int b = 0; b < j; b++) {
                        for (int c = 0; c < k; c++) {
                            s += A[(a * N2 + b) * N3 + c];
                        }
                    }
                }
                CHECK(S[(i * (N2 + 1) + j) * (N3 + 1) + k] == s);
            }
        }
    }
    int64_t dims[3] = {N1, N2, N3}, box[6] = {1, 3, 0, 2, 2, 5}, out;
    CHECK_STATUS(wpart_base_box_loads_i64(S, 3, dims, box, 1, &out), WPART_OK);
    int64_t s = 0;
    for (int a = 1; a < 3; a++) {
        for (int b = 0; b < 2; b++) {
            for (int c = 2; c < 5; c++) {
                s += A[(a * N2 + b) * N3 + c];
            }
        }
    }
    CHECK(out == s);
}

static void test_oned_random(void)
{
    const wpart_1d_method_t exact[3] = {WPART_1D_NICOL, WPART_1D_BISECT, WPART_1D_DP};
    int64_t a[10], W[11], seps[12], ref_seps[12];
    for (int trial = 0; trial < 3000; trial++) {
        int64_t n = 1 + (int64_t)(rnd() % 8), q = 1 + (int64_t)(rnd() % 9);
        for (int64_t i = 0; i < n; i++) {
            a[i] = (rnd() % 3 == 0) ? 0 : (int64_t)(rnd() % 12);
        }
        CHECK_STATUS(wpart_base_prefix1d_i64(a, n, W), WPART_OK);
        int64_t want = brute(W, 0, n, q);
        for (int k = 0; k < 3; k++) {
            wpart_1d_options_t opt;
            wpart_1d_options_init(&opt);
            opt.method = exact[k];
            wpart_1d_stats_t stats;
            CHECK_STATUS(wpart_base_1d_i64(W, n, q, NULL, &opt, seps, &stats), WPART_OK);
            CHECK(stats.bottleneck_i64 == want);
            CHECK(seps[0] == 0 && seps[q] == n);
            if (k == 0) {
                memcpy(ref_seps, seps, (size_t)(q + 1) * sizeof *seps);
            } else {
                CHECK(memcmp(ref_seps, seps, (size_t)(q + 1) * sizeof *seps) == 0);
            }
        }
        /* heuristics respect the DirectCut bound T/q + amax */
        int64_t amax = 0;
        for (int64_t i = 0; i < n; i++) {
            amax = a[i] > amax ? a[i] : amax;
        }
        wpart_1d_options_t opt;
        wpart_1d_options_init(&opt);
        opt.method = WPART_1D_DIRECT_CUT;
        wpart_1d_stats_t stats;
        CHECK_STATUS(wpart_base_1d_i64(W, n, q, NULL, &opt, seps, &stats), WPART_OK);
        CHECK(stats.bottleneck_i64 * q <= W[n] + amax * q);
        CHECK(stats.bottleneck_i64 >= want);
    }
}

static void test_oned_float_and_speeds(void)
{
    double a[6] = {0.5, 2.25, 0.0, 3.0, 1.0, 1.5}, W[7];
    int64_t seps[4];
    CHECK_STATUS(wpart_base_prefix1d_f64(a, 6, W), WPART_OK);
    double speeds[3] = {1.0, 2.0, 1.0};
    double b[3];
    for (int k = 0; k < 3; k++) {
        wpart_1d_options_t opt;
        wpart_1d_options_init(&opt);
        opt.method = (wpart_1d_method_t)k;
        wpart_1d_stats_t st;
        CHECK_STATUS(wpart_base_1d_f64(W, 6, 3, speeds, &opt, seps, &st), WPART_OK);
        b[k] = st.bottleneck;
    }
    CHECK(b[0] == b[1] && b[1] == b[2]);
    speeds[1] = 0.0;
    CHECK_STATUS(wpart_base_1d_f64(W, 6, 3, speeds, NULL, seps, NULL), WPART_EINVAL);
    CHECK(strstr(wpart_last_error(), "speeds[1]") != NULL);
}

static int stop_now(void *ctx)
{
    int *calls = (int *)ctx;
    (*calls)++;
    return 1;
}

static void test_oned_errors_and_control(void)
{
    int64_t W[4] = {0, 1, 3, 2}, seps[3];
    CHECK_STATUS(wpart_base_1d_i64(W, 3, 2, NULL, NULL, seps, NULL), WPART_EINVAL);
    W[3] = 6;
    CHECK_STATUS(wpart_base_1d_i64(W, 3, 0, NULL, NULL, seps, NULL), WPART_EINVAL);
    CHECK_STATUS(wpart_base_1d_i64(W, -1, 2, NULL, NULL, seps, NULL), WPART_EINVAL);
    wpart_1d_options_t opt;
    wpart_1d_options_init(&opt);
    opt.method = (wpart_1d_method_t)42;
    CHECK_STATUS(wpart_base_1d_i64(W, 3, 2, NULL, &opt, seps, NULL), WPART_EINVAL);
    /* n = 0: all separators 0 */
    int64_t W0[1] = {0}, s0[4] = {9, 9, 9, 9};
    CHECK_STATUS(wpart_base_1d_i64(W0, 0, 3, NULL, NULL, s0, NULL), WPART_OK);
    CHECK(s0[0] == 0 && s0[3] == 0);

    /* the should-stop hook cancels a long DP */
    int64_t n = 200000, *L = malloc(sizeof(int64_t) * (size_t)n);
    int64_t *WL = malloc(sizeof(int64_t) * (size_t)(n + 1)), *sp = malloc(sizeof(int64_t) * 101);
    for (int64_t i = 0; i < n; i++) {
        L[i] = (int64_t)(rnd() % 100);
    }
    CHECK_STATUS(wpart_base_prefix1d_i64(L, n, WL), WPART_OK);
    int calls = 0;
    wpart_control_t ctl;
    wpart_control_init(&ctl);
    ctl.should_stop = stop_now;
    ctl.ctx = &calls;
    wpart_1d_options_init(&opt);
    opt.method = WPART_1D_DP;
    opt.control = &ctl;
    CHECK_STATUS(wpart_base_1d_i64(WL, n, 100, NULL, &opt, sp, NULL), WPART_ECANCELLED);
    CHECK(calls == 1);
    /* a time limit also cancels */
    wpart_control_init(&ctl);
    ctl.time_limit = 1e-9;
    CHECK_STATUS(wpart_base_1d_i64(WL, n, 100, NULL, &opt, sp, NULL), WPART_ECANCELLED);
    CHECK(strstr(wpart_last_error(), "time limit") != NULL);
    free(L);
    free(WL);
    free(sp);
}

static int never_stop(void *ctx)
{
    int *calls = (int *)ctx;
    (*calls)++;
    return 0;
}

/* the prefix sums with control hooks: polled about every 2^16 elements, results identical to
 * the functions without hooks, a stop request or a time limit cancels */
static void test_prefix_control(void)
{
    const int64_t cases[3][3] = {{300001, 1, 1}, {517, 1031, 1}, {19, 67, 211}};
    for (int d = 1; d <= 3; d++) {
        const int64_t *dims = cases[d - 1];
        int64_t cnt = 1, bcnt = 1;
        for (int a = 0; a < d; a++) {
            cnt *= dims[a];
            bcnt *= dims[a] + 1;
        }
        int64_t *A = malloc(sizeof(int64_t) * (size_t)cnt);
        double *F = malloc(sizeof(double) * (size_t)cnt);
        int64_t *S0 = malloc(sizeof(int64_t) * (size_t)bcnt), *S1 = malloc(sizeof(int64_t) * (size_t)bcnt);
        double *G0 = malloc(sizeof(double) * (size_t)bcnt), *G1 = malloc(sizeof(double) * (size_t)bcnt);
        for (int64_t i = 0; i < cnt; i++) {
            A[i] = (int64_t)(rnd() % 1000);
            F[i] = (double)(rnd() % 100000) / 7.0;
        }
        CHECK_STATUS(d == 1 ? wpart_base_prefix1d_i64(A, dims[0], S0)
                     : d == 2 ? wpart_base_prefix2d_i64(A, dims[0], dims[1], S0)
                              : wpart_base_prefix3d_i64(A, dims[0], dims[1], dims[2], S0),
                     WPART_OK);
        CHECK_STATUS(d == 1 ? wpart_base_prefix1d_f64(F, dims[0], G0)
                     : d == 2 ? wpart_base_prefix2d_f64(F, dims[0], dims[1], G0)
                              : wpart_base_prefix3d_f64(F, dims[0], dims[1], dims[2], G0),
                     WPART_OK);
        int calls = 0;
        wpart_control_t ctl;
        wpart_control_init(&ctl);
        ctl.should_stop = never_stop;
        ctl.ctx = &calls;
        CHECK_STATUS(wpart_base_prefix_i64(A, d, dims, S1, &ctl), WPART_OK);
        CHECK(memcmp(S0, S1, sizeof(int64_t) * (size_t)bcnt) == 0);
        CHECK(calls >= 1 && calls <= cnt / 30000 + 2);
        CHECK_STATUS(wpart_base_prefix_f64(F, d, dims, G1, &ctl), WPART_OK);
        CHECK(memcmp(G0, G1, sizeof(double) * (size_t)bcnt) == 0);
        CHECK_STATUS(wpart_base_prefix_i64(A, d, dims, S1, NULL), WPART_OK);
        CHECK(memcmp(S0, S1, sizeof(int64_t) * (size_t)bcnt) == 0);
        calls = 0;
        ctl.should_stop = stop_now;
        CHECK_STATUS(wpart_base_prefix_i64(A, d, dims, S1, &ctl), WPART_ECANCELLED);
        CHECK(calls == 1);
        CHECK_STATUS(wpart_base_prefix_f64(F, d, dims, G1, &ctl), WPART_ECANCELLED);
        CHECK(calls == 2);
        wpart_control_init(&ctl);
        ctl.time_limit = 1e-9;
        CHECK_STATUS(wpart_base_prefix_f64(F, d, dims, G1, &ctl), WPART_ECANCELLED);
        CHECK(strstr(wpart_last_error(), "time limit") != NULL);
        free(A);
        free(F);
        free(S0);
        free(S1);
        free(G0);
        free(G1);
    }
    /* fewer than 2^16 elements: no poll; a bad d */
    int64_t a[3] = {1, 2, 3}, w[4], n3 = 3;
    int calls = 0;
    wpart_control_t ctl;
    wpart_control_init(&ctl);
    ctl.should_stop = stop_now;
    ctl.ctx = &calls;
    CHECK_STATUS(wpart_base_prefix_i64(a, 1, &n3, w, &ctl), WPART_OK);
    CHECK(calls == 0 && w[3] == 6);
    CHECK_STATUS(wpart_base_prefix_i64(a, 4, &n3, w, NULL), WPART_EINVAL);
}

int main(void)
{
    test_strerror();
    test_prefix2d();
    test_prefix3d();
    test_oned_random();
    test_oned_float_and_speeds();
    test_oned_errors_and_control();
    test_prefix_control();
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("test_base: all checks passed\n");
    return 0;
}
