/* spatial.c -- binding of wpart.spatial (C functions are added as the family lands). */
#include "wpy.h"

int wpy_spatial_init(PyObject *m) { return 0; }
