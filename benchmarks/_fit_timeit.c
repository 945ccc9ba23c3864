/*
 * _fit_timeit.c -- C timing of PLB-HAC's model fits for bench_dynamic_engine.py: the
 * incremental fit (wpart_i_fitinc_fit on a state built once) and the batch fit
 * (wpart_dynamic_model_fit with its scratch) over the same samples, `reps` calls each, thread
 * CPU seconds per call timed inside C. Compiled by the benchmark with the system C compiler
 * against csrc/include and csrc/dynamic; the core's functions come as addresses from the
 * loaded wpart._core (ctypes), so nothing is linked.
 */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "fit_inc.h"
#include "wpart/dynamic_plbhac.h"

typedef void (*cfg_fn)(wpart_dynamic_plbhac_cfg_t *);
typedef wpart_status_t (*batch_fn)(const int64_t *, const double *, const double *, int64_t,
                                   int64_t, const wpart_dynamic_fit_opts_t *, void *,
                                   wpart_dynamic_model_t *);
typedef size_t (*work_fn)(int64_t);
typedef void (*state_fn)(wpart_i_fitinc_t *);
typedef wpart_status_t (*all_fn)(wpart_i_fitinc_t *, const wpart_dynamic_fit_opts_t *,
                                 const int64_t *, const double *, const double *, int64_t,
                                 int64_t, wpart_dynamic_model_t *);
typedef wpart_status_t (*inc_fn)(const wpart_i_fitinc_t *, int64_t,
                                 const wpart_dynamic_fit_opts_t *, wpart_dynamic_model_t *);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* fn: cfg_paper, model_fit, fit_work_size, fitinc_init, fitinc_fit_all, fitinc_fit,
 * fitinc_free. out[0]: seconds per incremental fit, out[1]: per batch fit, out[2]: rebuilds.
 * Returns the first status that is not WPART_OK (0 on success), -1 without memory. */
int dyn_fit_timeit(void **fn, int64_t n, const int64_t *x, const double *tc, const double *tx,
                   int64_t quantum, int64_t reps, double *out)
{
    wpart_dynamic_plbhac_cfg_t c;
    ((cfg_fn)fn[0])(&c);
    c.fit.window = 0;
    wpart_i_fitinc_t fi;
    ((state_fn)fn[3])(&fi);
    wpart_dynamic_model_t mi, mb;
    void *work = malloc(((work_fn)fn[2])(n) + 8);
    int st = work ? (int)((all_fn)fn[4])(&fi, &c.fit, x, tc, tx, n, quantum, &mi) : -1;
    double t0 = now();
    for (int64_t r = 0; r < reps && st == 0; r++) {
        st = (int)((inc_fn)fn[5])(&fi, quantum, &c.fit, &mi);
    }
    double t1 = now();
    for (int64_t r = 0; r < reps && st == 0; r++) {
        st = (int)((batch_fn)fn[1])(x, tc, tx, n, quantum, &c.fit, work, &mb);
    }
    double t2 = now();
    out[0] = (t1 - t0) / (double)reps;
    out[1] = (t2 - t1) / (double)reps;
    out[2] = (double)fi.n_rebuild;
    ((state_fn)fn[6])(&fi);
    free(work);
    return st;
}
