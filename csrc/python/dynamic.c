/* dynamic.c -- binding of wpart.dynamic (C functions are added as the family lands). */
#include "wpy.h"

int wpy_dynamic_init(PyObject *m) { return 0; }
