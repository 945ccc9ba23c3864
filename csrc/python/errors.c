/* errors.c -- the exception types and the status -> exception mapping. */
#include "wpy.h"

PyObject *wpy_WpartError = NULL;
PyObject *wpy_CancelledError = NULL;
PyObject *wpy_SolverError = NULL;

int wpy_errors_init(PyObject *m)
{
    if (!wpy_WpartError) {
        wpy_WpartError = PyErr_NewExceptionWithDoc(
            "wpart.WpartError", "Failure inside the wpart core (not an input error).",
            PyExc_RuntimeError, NULL);
        if (!wpy_WpartError) {
            return -1;
        }
        wpy_CancelledError = PyErr_NewExceptionWithDoc(
            "wpart.CancelledError", "A computation was stopped by a time limit or on request.",
            wpy_WpartError, NULL);
        wpy_SolverError = PyErr_NewExceptionWithDoc(
            "wpart.SolverError", "The MILP solver failed or is not available.", wpy_WpartError,
            NULL);
        if (!wpy_CancelledError || !wpy_SolverError) {
            return -1;
        }
    }
    if (PyModule_AddObjectRef(m, "WpartError", wpy_WpartError) < 0 ||
        PyModule_AddObjectRef(m, "CancelledError", wpy_CancelledError) < 0 ||
        PyModule_AddObjectRef(m, "SolverError", wpy_SolverError) < 0) {
        return -1;
    }
    return 0;
}

PyObject *wpy_raise(wpart_status_t st, const char *what)
{
    if (PyErr_Occurred()) {
        return NULL; /* e.g. KeyboardInterrupt raised inside a control hook */
    }
    PyObject *type;
    switch (st) {
    case WPART_EINVAL: type = PyExc_ValueError; break;
    case WPART_ENOMEM: type = PyExc_MemoryError; break;
    case WPART_EOVERFLOW: type = PyExc_OverflowError; break;
    case WPART_ECANCELLED: type = wpy_CancelledError; break;
    case WPART_ENOSOLVER:
    case WPART_ESOLVER: type = wpy_SolverError; break;
    default: type = wpy_WpartError; break;
    }
    const char *detail = wpart_last_error();
    if (what && detail[0]) {
        PyErr_Format(type, "%s: %s (%s)", what, detail, wpart_strerror(st));
    } else if (detail[0]) {
        PyErr_Format(type, "%s (%s)", detail, wpart_strerror(st));
    } else {
        PyErr_Format(type, "%s", wpart_strerror(st));
    }
    return NULL;
}
