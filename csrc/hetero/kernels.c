/* kernels.c -- small compute kernels shipped for real profile measurement (spec 000 section 4):
 * a cache-blocked matrix multiply whose time grows with the number of rows, like the paper's
 * row-partitioned DGEMM. */
#include "internal.h"
#include "wpart/hetero.h"

#define BM 64
#define BN 256
#define BK 128

wpart_status_t wpart_hetero_kernel_dgemm(int64_t M, int64_t N, int64_t K, const double *A,
                                         const double *B, double *C)
{
    wpart_status_t st = WPART_OK;
    if (M < 0 || N < 0 || K < 0) {
        WPART_FAIL(WPART_EINVAL, "matrix sizes must be >= 0 (M=%" PRId64 ", N=%" PRId64
                   ", K=%" PRId64 ")", M, N, K);
    }
    if ((M * K > 0 && !A) || (K * N > 0 && !B) || (M * N > 0 && !C)) {
        WPART_FAIL(WPART_EINVAL, "NULL matrix");
    }
    for (int64_t i0 = 0; i0 < M; i0 += BM) {
        int64_t i1 = i0 + BM < M ? i0 + BM : M;
        for (int64_t k0 = 0; k0 < K; k0 += BK) {
            int64_t k1 = k0 + BK < K ? k0 + BK : K;
            for (int64_t j0 = 0; j0 < N; j0 += BN) {
                int64_t j1 = j0 + BN < N ? j0 + BN : N;
                for (int64_t i = i0; i < i1; i++) {
                    double *c = C + i * N;
                    for (int64_t k = k0; k < k1; k++) {
                        double a = A[i * K + k];
                        const double *b = B + k * N;
                        for (int64_t j = j0; j < j1; j++) {
                            c[j] += a * b[j];
                        }
                    }
                }
            }
        }
    }
cleanup:
    return st;
}
