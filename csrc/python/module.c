/* module.c -- wpart._core: multi-phase initialisation; each family adds its functions. */
#define WPY_MODULE_C
#include "wpy.h"

static int wpy_exec(PyObject *m)
{
    if (_import_array() < 0) {
        return -1;
    }
    if (wpy_errors_init(m) < 0) {
        return -1;
    }
#define WPY_RUN_INIT(name)              \
    if (wpy_##name##_init(m) < 0) {     \
        return -1;                      \
    }
    WPY_FAMILIES(WPY_RUN_INIT)
#undef WPY_RUN_INIT
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
