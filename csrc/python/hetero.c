/* hetero.c -- binding of wpart.hetero (C functions are added as the family lands). */
#include "wpy.h"

int wpy_hetero_init(PyObject *m) { return 0; }
