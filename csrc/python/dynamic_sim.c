/* dynamic_sim.c -- binding of wpart.dynamic (sim). */
#include "wpy.h"

int wpy_dynamic_sim_init(PyObject *m) { return 0; }
