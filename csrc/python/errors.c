/* errors.c -- the exception types and the status -> exception mapping. */
#include "wpy.h"

PyObject *wpy_WpartError = NULL;
PyObject *wpy_CancelledError = NULL;
PyObject *wpy_SolverError = NULL;
PyObject *wpy_ValueError = NULL;
PyObject *wpy_TypeError = NULL;
PyObject *wpy_OverflowError = NULL;
PyObject *wpy_MemoryError = NULL;
PyObject *wpy_RuntimeError = NULL;
PyObject *wpy_IndexError = NULL;
PyObject *wpy_KeyError = NULL;
PyObject *wpy_OSError = NULL;

/* One exception class deriving from wpart.WpartError and a built-in. */
static PyObject *new_error(const char *name, const char *doc, PyObject *builtin)
{
    PyObject *bases = builtin ? PyTuple_Pack(2, wpy_WpartError, builtin)
                              : PyTuple_Pack(1, wpy_WpartError);
    if (!bases) {
        return NULL;
    }
    PyObject *t = PyErr_NewExceptionWithDoc(name, doc, bases, NULL);
    Py_DECREF(bases);
    return t;
}

/* Every exception wpart raises derives from wpart.WpartError and, where one matches, from the
 * built-in of the same meaning (so `except ValueError` keeps working). */
int wpy_errors_init(PyObject *m)
{
    if (!wpy_WpartError) {
        wpy_WpartError = PyErr_NewExceptionWithDoc(
            "wpart.WpartError", "Base class of every exception raised by wpart.", PyExc_Exception,
            NULL);
        if (!wpy_WpartError) {
            return -1;
        }
        wpy_CancelledError = new_error(
            "wpart.CancelledError",
            "A computation was stopped on request: Ctrl-C or a progress callback that returned "
            "False. (A time limit is reported in a result's `status`, never raised.)",
            PyExc_RuntimeError);
        wpy_SolverError = new_error("wpart.SolverError",
                                    "The MILP solver failed or is not available.",
                                    PyExc_RuntimeError);
        wpy_ValueError = new_error("wpart.WpartValueError",
                                   "An argument has the right type but a bad value.",
                                   PyExc_ValueError);
        wpy_TypeError = new_error("wpart.WpartTypeError", "An argument has the wrong type.",
                                  PyExc_TypeError);
        wpy_OverflowError = new_error(
            "wpart.WpartOverflowError",
            "A value or a sum does not fit the arithmetic (int64 or float64).", PyExc_OverflowError);
        wpy_MemoryError = new_error("wpart.WpartMemoryError",
                                    "The core could not allocate its working memory.",
                                    PyExc_MemoryError);
        wpy_RuntimeError = new_error("wpart.WpartRuntimeError",
                                     "A failure inside wpart that is not an input error.",
                                     PyExc_RuntimeError);
        wpy_IndexError = new_error("wpart.WpartIndexError", "An index is out of range.",
                                   PyExc_IndexError);
        wpy_KeyError = new_error("wpart.WpartKeyError", "A name or key is unknown.",
                                 PyExc_KeyError);
        wpy_OSError = new_error("wpart.WpartOSError", "A file could not be read or written.",
                                PyExc_OSError);
        if (!wpy_OSError || !wpy_CancelledError || !wpy_SolverError || !wpy_ValueError || !wpy_TypeError ||
            !wpy_OverflowError || !wpy_MemoryError || !wpy_RuntimeError || !wpy_IndexError ||
            !wpy_KeyError) {
            return -1;
        }
    }
    if (PyModule_AddObjectRef(m, "WpartError", wpy_WpartError) < 0 ||
        PyModule_AddObjectRef(m, "CancelledError", wpy_CancelledError) < 0 ||
        PyModule_AddObjectRef(m, "SolverError", wpy_SolverError) < 0 ||
        PyModule_AddObjectRef(m, "WpartValueError", wpy_ValueError) < 0 ||
        PyModule_AddObjectRef(m, "WpartTypeError", wpy_TypeError) < 0 ||
        PyModule_AddObjectRef(m, "WpartOverflowError", wpy_OverflowError) < 0 ||
        PyModule_AddObjectRef(m, "WpartMemoryError", wpy_MemoryError) < 0 ||
        PyModule_AddObjectRef(m, "WpartRuntimeError", wpy_RuntimeError) < 0 ||
        PyModule_AddObjectRef(m, "WpartIndexError", wpy_IndexError) < 0 ||
        PyModule_AddObjectRef(m, "WpartKeyError", wpy_KeyError) < 0 ||
        PyModule_AddObjectRef(m, "WpartOSError", wpy_OSError) < 0) {
        return -1;
    }
    return 0;
}

PyObject *wpy_nomem(void)
{
    PyErr_SetString(wpy_MemoryError, "out of memory");
    return NULL;
}

PyObject *wpy_raise(wpart_status_t st, const char *what)
{
    if (PyErr_Occurred()) {
        return NULL; /* e.g. KeyboardInterrupt raised inside a control hook */
    }
    PyObject *type;
    switch (st) {
    case WPART_EINVAL: type = wpy_ValueError; break;
    case WPART_ENOMEM: type = wpy_MemoryError; break;
    case WPART_EOVERFLOW: type = wpy_OverflowError; break;
    case WPART_ECANCELLED: type = wpy_CancelledError; break;
    case WPART_ENOSOLVER:
    case WPART_ESOLVER: type = wpy_SolverError; break;
    default: type = wpy_RuntimeError; break;
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
