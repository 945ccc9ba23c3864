/* test_multikernel_sim.c -- simulated multi-kernel runs (wpart_multikernel_sim_run): overlap 1 is
 * upload + compute + download, two overlap partitions pipeline on the copy and compute
 * engines, a synchronised Loop re-sends only its COPY vectors, the cache penalty, the noise is
 * reproducible per (seed, run, execution), bad input is refused. */
#include <math.h>
#include <string.h>

#include "wtest.h"
#include "wpart/multikernel.h"

static wpart_multikernel_sim_t base(int32_t G, int32_t k, int32_t C, const int64_t *u, const double *gc,
                           const double *cr)
{
    wpart_multikernel_sim_t in;
    memset(&in, 0, sizeof in);
    in.n_gpus = G;
    in.overlap = k;
    in.n_cpu = C;
    in.units = u;
    in.gpu_comp = gc;
    in.cpu_rate = cr;
    in.iters = 1;
    return in;
}

static void test_overlap(void)
{
    const int64_t u1[] = {20};
    const double gc[] = {1.0};
    wpart_multikernel_sim_t in = base(1, 1, 0, u1, gc, NULL);
    in.gpu_up = in.gpu_down = 0.5;
    double out[3], te[4], td[2], busy[3];
    int64_t ev = 0;
    CHECK_STATUS(wpart_multikernel_sim_run(&in, te, td, busy, out, &ev), WPART_OK);
    CHECK(out[0] == 40.0 && ev == 3);
    const int64_t u2[] = {10, 10, 5, 5};
    const double cr[] = {2.0, 2.0};
    in = base(1, 2, 2, u2, gc, cr);
    in.gpu_up = in.gpu_down = 0.5;
    CHECK_STATUS(wpart_multikernel_sim_run(&in, te, td, busy, out, &ev), WPART_OK);
    CHECK(te[0] == 20.0 && te[1] == 30.0 && te[2] == 10.0 && te[3] == 10.0);
    CHECK(out[0] == 30.0 && out[1] == 30.0 && out[2] == 10.0 && ev == 8);
    CHECK(busy[0] == 20.0 && busy[1] == 20.0 && busy[2] == 10.0);
}

static void test_loop_and_cache(void)
{
    const int64_t u[] = {10, 10};
    const double gc[] = {1.0}, cr[] = {1.0};
    wpart_multikernel_sim_t in = base(1, 1, 1, u, gc, cr);
    in.gpu_up = in.gpu_down = 0.1;
    in.gpu_copy = 2.0;
    in.host_merge = 0.5;
    in.iters = 3;
    in.sync = 1;
    double out[3];
    CHECK_STATUS(wpart_multikernel_sim_run(&in, NULL, NULL, NULL, out, NULL), WPART_OK);
    CHECK(fabs(out[0] - (14.0 + 0.5 + 13.0 + 0.5 + 13.0 + 0.5)) < 1e-12);
    in.sync = 0;
    CHECK_STATUS(wpart_multikernel_sim_run(&in, NULL, NULL, NULL, out, NULL), WPART_OK);
    CHECK(fabs(out[0] - 34.0) < 1e-12);
    const int64_t uc[] = {10};
    in = base(0, 1, 1, uc, NULL, cr);
    in.cpu_fixed = 0.5;
    in.ws = 100.0;
    in.cap = 400.0;
    in.lambda = 2.0;
    CHECK_STATUS(wpart_multikernel_sim_run(&in, NULL, NULL, NULL, out, NULL), WPART_OK);
    CHECK(fabs(out[0] - (0.5 + 22.0)) < 1e-12);
}

static void test_noise_and_errors(void)
{
    const int64_t u[] = {10, 10};
    const double cr[] = {1.0, 1.0};
    wpart_multikernel_sim_t in = base(0, 1, 2, u, NULL, cr);
    in.sigma = 0.02;
    in.seed = 7;
    in.run = 3;
    double a[2], b[2], c[2];
    CHECK_STATUS(wpart_multikernel_sim_run(&in, a, NULL, NULL, NULL, NULL), WPART_OK);
    CHECK_STATUS(wpart_multikernel_sim_run(&in, b, NULL, NULL, NULL, NULL), WPART_OK);
    in.run = 4;
    CHECK_STATUS(wpart_multikernel_sim_run(&in, c, NULL, NULL, NULL, NULL), WPART_OK);
    CHECK(a[0] == b[0] && a[1] == b[1] && a[0] != c[0] && a[0] != a[1]);
    CHECK(fabs(log(a[0] / 10.0)) < 0.2);
    const int64_t neg[] = {-1, 0};
    in.units = neg;
    CHECK_STATUS(wpart_multikernel_sim_run(&in, NULL, NULL, NULL, NULL, NULL), WPART_EINVAL);
    in.units = u;
    in.lambda = NAN;
    CHECK_STATUS(wpart_multikernel_sim_run(&in, NULL, NULL, NULL, NULL, NULL), WPART_EINVAL);
    CHECK_STATUS(wpart_multikernel_sim_run(NULL, NULL, NULL, NULL, NULL, NULL), WPART_EINVAL);
}

int main(void)
{
    test_overlap();
    test_loop_and_cache();
    test_noise_and_errors();
    if (failures) {
        fprintf(stderr, "test_multikernel_sim: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_multikernel_sim: ok\n");
    return 0;
}
