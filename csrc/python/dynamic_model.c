/* dynamic_model.c -- binding of wpart.dynamic (model). */
#include "wpy.h"

int wpy_dynamic_model_init(PyObject *m) { return 0; }
