/* spatial_internal.h -- spatial entry points shared with the Python binding but not installed:
 * the public functions of wpart/spatial.h with a control (stop check) where the public
 * signature has none. */
#ifndef WPART_SPATIAL_INTERNAL_H
#define WPART_SPATIAL_INTERNAL_H

#include "wpart/spatial.h"

/* wpart_spatial_alloc_{i64,f64} polling `ctl` (may be NULL) */
wpart_status_t wpart_i_spatial_alloc_i64(const int64_t *L, int64_t K, int64_t m,
                                         const int64_t *cap, const wpart_control_t *ctl,
                                         int64_t *Q);
wpart_status_t wpart_i_spatial_alloc_f64(const double *L, int64_t K, int64_t m,
                                         const int64_t *cap, const wpart_control_t *ctl,
                                         int64_t *Q);

#endif
