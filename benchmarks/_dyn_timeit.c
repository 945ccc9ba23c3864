/*
 * _dyn_timeit.c -- C timing of wpart.dynamic's block-size solver for bench_dynamic_solver.py:
 * wpart_dynamic_solve_equal_time and wpart_dynamic_equal_finish (solve and rounding) on packed
 * models, best of `reps` calls each, timed inside C (no Python in the loop). Compiled by the
 * benchmark with the system C compiler against csrc/include; the core's functions come as
 * addresses from the loaded wpart._core (ctypes), so nothing is linked.
 */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "wpart/dynamic_model.h"

typedef wpart_status_t (*unpack_fn)(const double *, wpart_dynamic_model_t *);
typedef wpart_status_t (*solve_fn)(int64_t, wpart_dynamic_time_fn, void *, double,
                                   const double *, const double *,
                                   const wpart_dynamic_solve_opts_t *, double *, double *);
typedef wpart_status_t (*finish_fn)(int64_t, wpart_dynamic_time_fn, void *, int64_t, int64_t,
                                    const wpart_control_t *, int64_t *, double *, double *);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* best[0]: seconds per solve; best[1]: seconds per equal_finish (NaN when quantum < 1).
 * Returns the first status that is not WPART_OK (0 on success), -1 without memory. */
int dyn_solve_timeit(void *unpack, void *solve, void *timefn, void *finish, int64_t n,
                     const double *packed, double S, int64_t quantum, int64_t reps, double *best)
{
    wpart_dynamic_model_t *models = malloc((size_t)n * sizeof *models);
    double *x = malloc((size_t)n * sizeof *x), T = 0.0, Tm = 0.0;
    int64_t *b = malloc((size_t)n * sizeof *b);
    int st = models && x && b ? 0 : -1;
    for (int64_t p = 0; p < n && st == 0; p++) {
        st = (int)((unpack_fn)unpack)(packed + p * WPART_DYN_PACKED, &models[p]);
    }
    wpart_dynamic_time_fn E = (wpart_dynamic_time_fn)timefn;
    best[0] = INFINITY;
    best[1] = quantum >= 1 ? INFINITY : NAN;
    for (int64_t k = 0; k < reps && st == 0; k++) {
        double t0 = now();
        st = (int)((solve_fn)solve)(n, E, models, S, NULL, NULL, NULL, x, &T);
        double t1 = now();
        best[0] = fmin(best[0], t1 - t0);
        if (st == 0 && quantum >= 1) {
            st = (int)((finish_fn)finish)(n, E, models, (int64_t)S, quantum, NULL, b, &Tm, NULL);
            best[1] = fmin(best[1], now() - t1);
        }
    }
    free(models);
    free(x);
    free(b);
    return st;
}
