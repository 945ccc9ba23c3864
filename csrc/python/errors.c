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
PyObject *wpy_LimitError = NULL;

/* The exception classes under wpart.WpartError: the C global, the name, the docstring and the
 * built-in of the same meaning (so `except ValueError` keeps working), added to the module
 * under the name after "wpart.". */
static const struct {
    PyObject **slot;
    const char *name, *doc;
    PyObject **builtin;
} wpy_error_table[] = {
    {&wpy_CancelledError, "wpart.CancelledError",
     "A computation was stopped on request: a progress callback returned False (Ctrl-C "
     "raises KeyboardInterrupt). A time limit is reported in a result's `status`, never "
     "raised.",
     &PyExc_RuntimeError},
    {&wpy_SolverError, "wpart.SolverError", "The MILP solver failed or is not available.",
     &PyExc_RuntimeError},
    {&wpy_ValueError, "wpart.WpartValueError", "An argument has the right type but a bad value.",
     &PyExc_ValueError},
    {&wpy_TypeError, "wpart.WpartTypeError", "An argument has the wrong type.", &PyExc_TypeError},
    {&wpy_OverflowError, "wpart.WpartOverflowError",
     "A value or a sum does not fit the arithmetic (int64 or float64).", &PyExc_OverflowError},
    {&wpy_MemoryError, "wpart.WpartMemoryError", "The core could not allocate its working memory.",
     &PyExc_MemoryError},
    {&wpy_RuntimeError, "wpart.WpartRuntimeError",
     "A failure inside wpart that is not an input error.", &PyExc_RuntimeError},
    {&wpy_IndexError, "wpart.WpartIndexError", "An index is out of range.", &PyExc_IndexError},
    {&wpy_KeyError, "wpart.WpartKeyError", "A name or key is unknown.", &PyExc_KeyError},
    {&wpy_OSError, "wpart.WpartOSError", "A file could not be read or written.", &PyExc_OSError},
};
#define WPY_NERRORS (sizeof wpy_error_table / sizeof wpy_error_table[0])

int wpy_errors_init(PyObject *m)
{
    if (!wpy_WpartError) {
        wpy_WpartError = PyErr_NewExceptionWithDoc(
            "wpart.WpartError", "Base class of every exception raised by wpart.", PyExc_Exception,
            NULL);
        if (!wpy_WpartError) {
            return -1;
        }
        for (size_t i = 0; i < WPY_NERRORS; i++) {
            PyObject *bases = PyTuple_Pack(2, wpy_WpartError, *wpy_error_table[i].builtin);
            if (!bases) {
                return -1;
            }
            *wpy_error_table[i].slot = PyErr_NewExceptionWithDoc(
                wpy_error_table[i].name, wpy_error_table[i].doc, bases, NULL);
            Py_DECREF(bases);
            if (!*wpy_error_table[i].slot) {
                return -1;
            }
        }
        /* a size, memory or state cap (WPART_ELIMIT): the input is too large for a cap the
         * caller can raise, so a WpartRuntimeError (as before) and a ValueError too */
        PyObject *lb = PyTuple_Pack(2, wpy_RuntimeError, PyExc_ValueError);
        if (!lb) {
            return -1;
        }
        wpy_LimitError = PyErr_NewExceptionWithDoc(
            "wpart.WpartLimitError",
            "A size, memory or state cap was reached (max_states, ...): raise the cap or "
            "give a smaller input.",
            lb, NULL);
        Py_DECREF(lb);
        if (!wpy_LimitError) {
            return -1;
        }
    }
    if (PyModule_AddObjectRef(m, "WpartError", wpy_WpartError) < 0) {
        return -1;
    }
    for (size_t i = 0; i < WPY_NERRORS; i++) {
        if (PyModule_AddObjectRef(m, wpy_error_table[i].name + 6, *wpy_error_table[i].slot) < 0) {
            return -1;
        }
    }
    if (PyModule_AddObjectRef(m, "WpartLimitError", wpy_LimitError) < 0) {
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
    case WPART_ELIMIT: type = wpy_LimitError; break;
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

PyObject *wpy_result(wpart_status_t st, const char *what, PyArrayObject **out)
{
    if (st != WPART_OK) {
        return wpy_raise(st, what);
    }
    PyObject *res = (PyObject *)*out;
    *out = NULL;
    return res;
}
