/*
 * baselines_internal.h -- helpers shared by the baseline balancers (private).
 */
#ifndef WPART_DYN_BASELINES_INTERNAL_H
#define WPART_DYN_BASELINES_INTERNAL_H

#include <stdint.h>

#include "dyn_internal.h"

/** Workspace of wpart_i_dyn_split: one entry per PU. */
typedef struct {
    double frac;
    int32_t idx;
} wpart_i_dyn_split_ws_t;

/**
 * Largest-remainder split of total into n parts proportional to w (finite, >= 0, positive
 * sum; checked by the caller). ws holds n entries. No allocation.
 */
void wpart_i_dyn_split(int32_t n, int64_t total, const double *w, int64_t *out,
                       wpart_i_dyn_split_ws_t *ws);

/** Checks n weights: finite, >= 0, with a positive sum. `name` names them in the message. */
wpart_status_t wpart_i_dyn_check_weights(int32_t n, const double *w, const char *name);

#endif /* WPART_DYN_BASELINES_INTERNAL_H */
