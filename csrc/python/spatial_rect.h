/* spatial_rect.h -- what the rectilinear grid bindings share (spatial_rect.c, spatial_auto.c). */
#ifndef WPY_SPATIAL_RECT_H
#define WPY_SPATIAL_RECT_H

#include "wpy.h"

#include "../spatial/rect_grid.h"

/* CSR arrays into a wpart_rg_csr_t: int64 pointers and indices (any other integer type
 * converted when conv, else a TypeError), o[2] None or an array of exactly type wt named
 * `wname` (A->w only when float64); the pointers n1 + 1 from 0 to the indices' count, o[2]
 * as many. a[0..2] receive new references. 0, or -1 with an exception. */
int wpy_rect_csr(long long n1, long long n2, PyObject *o[3], const char *wname, int wt, int conv,
                 PyArrayObject *a[3], wpart_rg_csr_t *A);

#endif /* WPY_SPATIAL_RECT_H */
