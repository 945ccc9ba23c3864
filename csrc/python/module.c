/* module.c -- wpart._core: multi-phase initialisation; each family adds its functions. */
#define WPY_MODULE_C
#include "wpy.h"

static int wpy_exec(PyObject *m)
{
    if (_import_array() < 0) {
        return -1;
    }
    if (wpy_errors_init(m) < 0 || wpy_base_init(m) < 0 || wpy_milp_init(m) < 0 ||
        wpy_spatial_init(m) < 0 || wpy_hetero_init(m) < 0 || wpy_dynamic_init(m) < 0 ||
        wpy_spatial_rect_init(m) < 0 ||
        wpy_multikernel_init(m) < 0 || wpy_multikernel_sim_init(m) < 0 || wpy_tasks_init(m) < 0 ||
        wpy_tasks_ranks_init(m) < 0) {
        return -1;
    }
    if (PyModule_AddStringConstant(m, "core_version", "0.1.0") < 0) {
        return -1;
    }
#ifdef WPART_HAVE_GLPK
    if (PyModule_AddIntConstant(m, "have_glpk", 1) < 0) {
        return -1;
    }
#else
    if (PyModule_AddIntConstant(m, "have_glpk", 0) < 0) {
        return -1;
    }
#endif
    return 0;
}

static PyModuleDef_Slot wpy_slots[] = {
    {Py_mod_exec, (void *)wpy_exec},
    {0, NULL},
};

static struct PyModuleDef wpy_module = {
    PyModuleDef_HEAD_INIT,
    "wpart._core",
    "C core of wpart (private; use the wpart package).",
    0,
    NULL,
    wpy_slots,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__core(void) { return PyModuleDef_Init(&wpy_module); }
