/* dynamic_baselines.c -- binding of wpart.dynamic (baselines). */
#include "wpy.h"

int wpy_dynamic_baselines_init(PyObject *m) { return 0; }
