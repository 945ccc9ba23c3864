/* test_dynamic_kernels.c -- the real-execution kernels of wpart.dynamic (dynamic_exec.h):
 * GEMM column blocks against a naive triple loop (same summation order: bit-equal), k-means
 * labels against a naive argmin, thread-count independence and every status path. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wtest.h"

static double urand(void) { return (double)(rnd() >> 11) / 9007199254740992.0 - 0.5; }

static void test_gemm(int64_t n, int64_t kd, int64_t N)
{
    double *A = malloc(sizeof(double) * (size_t)(n * kd + 1));
    double *B = malloc(sizeof(double) * (size_t)(kd * N + 1));
    double *C = malloc(sizeof(double) * (size_t)(n * N + 1));
    double *R = malloc(sizeof(double) * (size_t)(n * N + 1));
    for (int64_t i = 0; i < n * kd; i++) {
        A[i] = urand();
    }
    for (int64_t i = 0; i < kd * N; i++) {
        B[i] = urand();
    }
    for (int64_t j = 0; j < N; j++) {
        for (int64_t i = 0; i < n; i++) {
            double s = 0.0;
            for (int64_t l = 0; l < kd; l++) {
                s += A[i + l * n] * B[l + j * kd];
            }
            R[i + j * n] = s;
        }
    }
    const int64_t c0 = N / 3, nc = N - N / 3 - N / 5;
    for (int th = 1; th <= 5; th += 2) {
        for (int64_t i = 0; i < n * N; i++) {
            C[i] = -12345.0;
        }
        CHECK_STATUS(wpart_dynamic_kernel_gemm_cols(n, kd, N, A, B, C, c0, nc, th), WPART_OK);
        int bad = 0;
        for (int64_t j = 0; j < N; j++) {
            for (int64_t i = 0; i < n; i++) {
                double want = (j >= c0 && j < c0 + nc) ? R[i + j * n] : -12345.0;
                bad += C[i + j * n] != want;
            }
        }
        CHECK(bad == 0);
    }
    free(A);
    free(B);
    free(C);
    free(R);
}

static void test_kmeans(int64_t np, int64_t d, int64_t k, int grid)
{
    double *P = malloc(sizeof(double) * (size_t)(np * d + 1));
    double *Cn = malloc(sizeof(double) * (size_t)(k * d));
    int32_t *L = malloc(sizeof(int32_t) * (size_t)(np + 1));
    double *S = malloc(sizeof(double) * (size_t)(k * d));
    int64_t *K = malloc(sizeof(int64_t) * (size_t)k);
    for (int64_t i = 0; i < np * d; i++) {
        P[i] = grid ? (double)(rnd() % 3) : urand();
    }
    for (int64_t i = 0; i < k * d; i++) {
        Cn[i] = grid ? (double)(rnd() % 3) : urand();
    }
    for (int th = 1; th <= 4; th++) {
        CHECK_STATUS(wpart_dynamic_kernel_kmeans_assign(np, d, k, P, Cn, 0, np, L, S, K, th),
                     WPART_OK);
        int64_t total = 0;
        for (int64_t c = 0; c < k; c++) {
            total += K[c];
        }
        CHECK(total == np);
        for (int64_t i = 0; i < np; i++) {
            int32_t best = 0;
            double bd = 0.0;
            for (int64_t c = 0; c < k; c++) {
                double s = 0.0;
                for (int64_t j = 0; j < d; j++) {
                    double df = P[i * d + j] - Cn[c * d + j];
                    s += df * df;
                }
                if (c == 0 || s < bd) {
                    bd = s;
                    best = (int32_t)c;
                }
            }
            CHECK(L[i] == best);
        }
    }
    free(P);
    free(Cn);
    free(L);
    free(S);
    free(K);
}

static void test_status(void)
{
    double A[6] = {0}, B[6] = {0}, C[4] = {0};
    int32_t L[3];
    double S[2];
    int64_t K[2];
    CHECK_STATUS(wpart_dynamic_kernel_gemm_cols(-1, 3, 2, A, B, C, 0, 2, 1), WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_kernel_gemm_cols(2, 3, 2, A, B, C, 1, 2, 1), WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_kernel_gemm_cols(2, 3, 2, A, B, C, -1, 1, 1), WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_kernel_gemm_cols(2, 3, 2, A, B, C, 0, 2, 0), WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_kernel_gemm_cols(2, 3, 2, A, B, C, 0, 2, 5000), WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_kernel_gemm_cols(2, 3, 2, NULL, B, C, 0, 2, 1), WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_kernel_gemm_cols(INT64_MAX, 3, 2, A, B, C, 0, 2, 1),
                 WPART_EOVERFLOW);
    CHECK_STATUS(wpart_dynamic_kernel_gemm_cols(2, 3, 2, A, B, C, 2, 0, 1), WPART_OK);
    CHECK_STATUS(wpart_dynamic_kernel_gemm_cols(0, 3, 2, NULL, NULL, NULL, 0, 2, 1), WPART_OK);
    CHECK_STATUS(wpart_dynamic_kernel_kmeans_assign(3, 0, 2, A, B, 0, 3, L, NULL, NULL, 1),
                 WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_kernel_kmeans_assign(3, 1, 0, A, B, 0, 3, L, NULL, NULL, 1),
                 WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_kernel_kmeans_assign(3, 1, 2, A, B, 2, 2, L, NULL, NULL, 1),
                 WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_kernel_kmeans_assign(3, 1, 2, A, B, 0, 3, L, S, NULL, 1),
                 WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_kernel_kmeans_assign(3, 1, 2, A, B, 0, 3, NULL, NULL, NULL, 1),
                 WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_kernel_kmeans_assign(3, 1, 2, A, B, 0, 3, L, S, K, -2),
                 WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_kernel_kmeans_assign(INT64_MAX, 2, 2, A, B, 0, 3, L, S, K, 1),
                 WPART_EOVERFLOW);
    /* an empty block writes zero partial sums */
    S[0] = S[1] = 7.0;
    K[0] = K[1] = 7;
    CHECK_STATUS(wpart_dynamic_kernel_kmeans_assign(3, 1, 2, A, B, 1, 0, L, S, K, 3), WPART_OK);
    CHECK(S[0] == 0.0 && S[1] == 0.0 && K[0] == 0 && K[1] == 0);
}

int main(void)
{
    test_gemm(1, 1, 1);
    test_gemm(3, 5, 7);
    test_gemm(65, 257, 70);
    test_gemm(130, 300, 131);
    test_gemm(7, 0, 5);
    test_kmeans(1, 1, 1, 0);
    test_kmeans(200, 3, 5, 0);
    test_kmeans(301, 2, 7, 1);
    test_kmeans(64, 5, 3, 1);
    test_status();
    return failures != 0;
}
