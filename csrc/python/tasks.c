/* tasks.c -- binding of wpart.tasks (C functions are added as the family lands). */
#include "wpy.h"

int wpy_tasks_init(PyObject *m) { return 0; }
