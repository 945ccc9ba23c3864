/* dynamic_plbhac.c -- binding of wpart.dynamic (plbhac). */
#include "wpy.h"

int wpy_dynamic_plbhac_init(PyObject *m) { return 0; }
