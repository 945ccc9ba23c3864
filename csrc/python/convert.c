/* convert.c -- array and choice converters shared by the family files. */
#include "wpy.h"

int wpy_check_type(PyObject *obj, const char *name, int typenum)
{
    if (!PyArray_Check(obj)) {
        PyErr_Format(wpy_TypeError, "`%s` must be a NumPy array, got %s", name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyArrayObject *a = (PyArrayObject *)obj;
    if (PyArray_TYPE(a) != typenum) {
        PyArray_Descr *want = PyArray_DescrFromType(typenum);
        PyErr_Format(wpy_TypeError, "`%s` must have dtype %S, got %S", name, (PyObject *)want,
                     (PyObject *)PyArray_DESCR(a));
        Py_XDECREF(want);
        return -1;
    }
    return 0;
}

PyArrayObject *wpy_input_array(PyObject *obj, const char *name, int typenum, int ndim_lo,
                               int ndim_hi)
{
    if (wpy_check_type(obj, name, typenum) < 0) {
        return NULL;
    }
    PyArrayObject *a = (PyArrayObject *)obj;
    if (PyArray_NDIM(a) < ndim_lo || PyArray_NDIM(a) > ndim_hi) {
        if (ndim_lo == ndim_hi) {
            PyErr_Format(wpy_ValueError, "`%s` must be %d-D, got %d-D", name, ndim_lo,
                         PyArray_NDIM(a));
        } else {
            PyErr_Format(wpy_ValueError, "`%s` must be %d-D to %d-D, got %d-D", name, ndim_lo,
                         ndim_hi, PyArray_NDIM(a));
        }
        return NULL;
    }
    /* Copy only when needed (non-contiguous, misaligned or byte-swapped). */
    return (PyArrayObject *)PyArray_FROMANY(obj, typenum, ndim_lo, ndim_hi, NPY_ARRAY_IN_ARRAY);
}

int wpy_loads_typenum(PyObject *obj, const char *name)
{
    if (!PyArray_Check(obj)) {
        PyErr_Format(wpy_TypeError, "`%s` must be a NumPy array, got %s", name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    int t = PyArray_TYPE((PyArrayObject *)obj);
    if (t == NPY_INT64 || t == NPY_FLOAT64) {
        return t;
    }
    PyErr_Format(wpy_TypeError, "`%s` must have dtype int64 or float64, got %S", name,
                 (PyObject *)PyArray_DESCR((PyArrayObject *)obj));
    return -1;
}

int wpy_check_output(PyObject *obj, const char *name, int typenum, int ndim,
                     const npy_intp *shape)
{
    if (wpy_check_type(obj, name, typenum) < 0) {
        return -1;
    }
    PyArrayObject *a = (PyArrayObject *)obj;
    if (PyArray_NDIM(a) != ndim) {
        PyErr_Format(wpy_ValueError, "`%s` must be %d-D, got %d-D", name, ndim, PyArray_NDIM(a));
        return -1;
    }
    for (int i = 0; i < ndim; i++) {
        if (PyArray_DIM(a, i) != shape[i]) {
            PyErr_Format(wpy_ValueError, "`%s` has extent %zd in axis %d, expected %zd", name,
                         (Py_ssize_t)PyArray_DIM(a, i), i, (Py_ssize_t)shape[i]);
            return -1;
        }
    }
    if (!PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a) || PyArray_ISBYTESWAPPED(a)) {
        PyErr_Format(wpy_ValueError, "`%s` must be C-contiguous, aligned and in native byte order",
                     name);
        return -1;
    }
    if (!PyArray_ISWRITEABLE(a)) {
        PyErr_Format(wpy_ValueError, "`%s` is read-only", name);
        return -1;
    }
    return 0;
}

int wpy_choice(PyObject *s, const char *name, const char *const *names)
{
    if (!PyUnicode_Check(s)) {
        PyErr_Format(wpy_TypeError, "`%s` must be a string, got %s", name, Py_TYPE(s)->tp_name);
        return -1;
    }
    for (int i = 0; names[i]; i++) {
        if (PyUnicode_CompareWithASCIIString(s, names[i]) == 0) {
            return i;
        }
    }
    PyObject *valid = PyUnicode_FromString("");
    for (int i = 0; names[i] && valid; i++) {
        PyObject *next = PyUnicode_FromFormat("%U%s'%s'", valid, i ? ", " : "", names[i]);
        Py_SETREF(valid, next);
    }
    if (valid) {
        PyErr_Format(wpy_ValueError, "`%s` must be one of %U, got %R", name, valid, s);
        Py_DECREF(valid);
    }
    return -1;
}

int wpy_check_m(long long m)
{
    if (m < 1) {
        PyErr_Format(wpy_ValueError, "`m` must be a positive integer, got %lld", m);
        return -1;
    }
    return 0;
}

int wpy_optional_speeds(PyObject *obj, long long m, PyArrayObject **out)
{
    *out = NULL;
    if (obj == Py_None) {
        return 0;
    }
    PyArrayObject *sp = wpy_input_array(obj, "speeds", NPY_FLOAT64, 1, 1);
    if (!sp) {
        return -1;
    }
    if (PyArray_DIM(sp, 0) != m) {
        PyErr_Format(wpy_ValueError, "`speeds` must have length m = %lld, got %zd", m,
                     (Py_ssize_t)PyArray_DIM(sp, 0));
        Py_DECREF(sp);
        return -1;
    }
    *out = sp;
    return 0;
}

PyArrayObject *wpy_input_pu_vector(PyObject *obj, const char *name, int typenum, const char *what,
                                   int32_t *n)
{
    PyArrayObject *a = wpy_input_array(obj, name, typenum, 1, 1);
    if (!a) {
        return NULL;
    }
    npy_intp len = PyArray_DIM(a, 0);
    if (len < 1 || len > INT32_MAX) {
        Py_DECREF(a);
        PyErr_Format(wpy_ValueError, "%s must hold 1 to 2**31-1 %s, got %zd", name, what,
                     (Py_ssize_t)len);
        return NULL;
    }
    *n = (int32_t)len;
    return a;
}

static void buffer_free(PyObject *cap)
{
    free(PyCapsule_GetPointer(cap, "wpart.buffer"));
}

PyObject *wpy_array_take(void **data, npy_intp n, int typenum, size_t sz)
{
    if (n == 0 || *data == NULL) {
        return PyArray_SimpleNew(1, &n, typenum);
    }
    void *q = wpart_i_realloc(*data, n, sz);
    if (q) {
        *data = q;
    }
    PyObject *a = PyArray_SimpleNewFromData(1, &n, typenum, *data);
    if (!a) {
        return NULL;
    }
    PyObject *cap = PyCapsule_New(*data, "wpart.buffer", buffer_free);
    if (!cap) {
        Py_DECREF(a);
        return NULL;
    }
    /* steals cap even when it fails (then the capsule frees the buffer) */
    int bad = PyArray_SetBaseObject((PyArrayObject *)a, cap) < 0;
    *data = NULL;
    if (bad) {
        Py_DECREF(a);
        return NULL;
    }
    return a;
}
