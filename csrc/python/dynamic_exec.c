/* dynamic_exec.c -- binding of wpart.dynamic (exec). */
#include "wpy.h"

int wpy_dynamic_exec_init(PyObject *m) { return 0; }
