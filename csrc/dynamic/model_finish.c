/*
 * model_finish.c -- equal_finish: the integer block sizes that finish together, in one call:
 * the continuous equal-time split (P_S) of model_solve.c, clamped at 0 (rounding noise), then
 * the optimal discrete rounding of model_round.c (Sec. 3.2 of [Sant'Ana 2017], made optimal).
 */
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "wpart/dynamic_model.h"

#define FINISH_SMALL 32 /* PUs whose continuous split lives on the stack */

wpart_status_t wpart_dynamic_equal_finish(int64_t n, wpart_dynamic_time_fn E, void *ctx,
                                          int64_t total, int64_t quantum,
                                          const wpart_control_t *control, int64_t *blocks_out,
                                          double *time_out, double *T_out)
{
    wpart_status_t st = WPART_OK;
    double small[FINISH_SMALL], *x = small, T = 0.0, Tm = 0.0;
    if (total < 1 || quantum < 1) {
        WPART_FAIL(WPART_EINVAL, "total and quantum must be >= 1 (got %" PRId64 ", %" PRId64 ")",
                   total, quantum);
    }
    if (n < 1 || !E || !blocks_out) {
        WPART_FAIL(WPART_EINVAL, "need n >= 1 (got %" PRId64 "), E and blocks_out", n);
    }
    if (n > FINISH_SMALL) {
        x = wpart_i_malloc(n, sizeof *x);
        if (!x) {
            WPART_FAIL(WPART_ENOMEM, "continuous split (%" PRId64 " PUs)", n);
        }
    }
    wpart_dynamic_solve_opts_t so;
    wpart_dynamic_solve_opts_init(&so);
    so.control = control;
    WPART_CHECK(wpart_dynamic_solve_equal_time(n, E, ctx, (double)total, NULL, NULL, &so, x, &T));
    for (int64_t p = 0; p < n; p++) {
        x[p] = fmax(x[p], 0.0); /* rounding noise below 0 */
    }
    WPART_CHECK(wpart_dynamic_round_blocks_ctl(n, E, ctx, x, total, quantum, NULL, NULL,
                                               blocks_out, &Tm, control));
    if (time_out) {
        *time_out = Tm;
    }
    if (T_out) {
        /* the integer split is a continuous one, so the least level is at most its makespan;
         * the solver's tolerance (1e-10 relative) could put T a hair above it */
        *T_out = fmin(T, Tm);
    }
cleanup:
    if (x != small) {
        free(x);
    }
    return st;
}
