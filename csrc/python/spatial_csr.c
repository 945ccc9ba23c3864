/* spatial_csr.c -- bindings of the conversions of wpart.spatial's sparse input to canonical
 * CSR arrays: a MatrixMarket coordinate body and a COO matrix's entries (mm_read.c), and a
 * dense array's nonzeros. */
#include "wpy.h"

#include "../spatial/spatial_internal.h"

/* The result of a conversion to CSR arrays into R (pointers), C (indices) and V (values), room
 * for more entries than the *count it wrote (a symmetric file's diagonal mirrors, cells stored
 * twice): None for WPART_EINVAL (outside what the core converts: the caller's general path),
 * the error raised for another failure, else (R, C, V) with C and V cut to count entries */
static PyObject *csr_triple(wpart_status_t st, int64_t count, PyArrayObject *R,
                            PyArrayObject *C, PyArrayObject *V)
{
    if (st == WPART_EINVAL) {
        Py_RETURN_NONE;
    }
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        return NULL;
    }
    if (count < (int64_t)PyArray_DIM(C, 0)) {
        npy_intp k = (npy_intp)count;
        PyArray_Dims d = {&k, 1};
        PyObject *rc = PyArray_Resize(C, &d, 0, NPY_CORDER);
        if (rc) {
            Py_DECREF(rc);
            rc = PyArray_Resize(V, &d, 0, NPY_CORDER);
        }
        if (!rc) {
            return NULL;
        }
        Py_DECREF(rc);
    }
    return Py_BuildValue("OOO", R, C, V);
}

/* spatial_mm_csr(data, offset, n1, n2, nnz, field, sym, exact): the canonical CSR arrays (rp,
 * ci, values: float64 for a real field, else int64; not exact: int64 value != 0 for a real
 * field) of the MatrixMarket coordinate body
 * data[offset:], or None where the body is outside the syntax the core parses (the caller then
 * reads the file with scipy); the GIL released, Ctrl-C polled */
static PyObject *wpy_mm_csr(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *data, *res = NULL;
    long long off, n1, n2, nnz;
    int field, sym, exact = 1;
    if (!PyArg_ParseTuple(args, "SLLLLii|p", &data, &off, &n1, &n2, &nnz, &field, &sym,
                          &exact)) {
        return NULL;
    }
    Py_ssize_t len = PyBytes_GET_SIZE(data);
    if (off < 0 || off > len || n1 < 1 || n2 < 1 || nnz < 0 || nnz > (1LL << 60)) {
        PyErr_SetString(wpy_ValueError, "spatial_mm_csr: bad offset or sizes");
        return NULL;
    }
    npy_intp np1 = (npy_intp)n1 + 1, cap = (npy_intp)(sym ? 2 * nnz : nnz);
    PyArrayObject *R = (PyArrayObject *)PyArray_EMPTY(1, &np1, NPY_INT64, 0);
    PyArrayObject *C = (PyArrayObject *)PyArray_EMPTY(1, &cap, NPY_INT64, 0);
    int fl = field == WPART_MM_REAL && exact;
    PyArrayObject *V = (PyArrayObject *)PyArray_EMPTY(1, &cap, fl ? NPY_FLOAT64 : NPY_INT64, 0);
    if (!R || !C || !V) {
        goto cleanup;
    }
    wpy_control_t ctl;
    wpy_control_setup(&ctl, NULL, 0.0);
    const char *buf = PyBytes_AS_STRING(data) + off;
    int64_t count = 0, bad = 0;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_spatial_mm_csr(buf, (size_t)(len - off), n1, n2, nnz, field, sym,
                                        PyArray_DATA(R), PyArray_DATA(C),
                                        fl ? PyArray_DATA(V) : NULL, fl ? NULL : PyArray_DATA(V),
                                        &count,
                                        &bad, &ctl.ctl));
    res = csr_triple(st, count, R, C, V);
cleanup:
    WPY_XDECREF(R, C, V);
    return res;
}

/* spatial_coo_csr(n1, n2, row, col, vals): the canonical CSR arrays (rp, ci, values) of a
 * COO matrix's entries (row, col: integer arrays, converted to int64; vals: a float64 or int64
 * array of as many values, their type kept, or None: int64 counts of the entries stored in each
 * cell), or None where an index is outside the shape or, with vals, a cell is stored twice (the
 * caller then converts with scipy); the GIL released */
static PyObject *wpy_coo_csr(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *ro, *co, *vo, *res = NULL;
    long long n1, n2;
    PyArrayObject *r = NULL, *c = NULL, *v = NULL, *R = NULL, *C = NULL, *V = NULL;
    if (!PyArg_ParseTuple(args, "LLOOO", &n1, &n2, &ro, &co, &vo)) {
        return NULL;
    }
    r = (PyArrayObject *)PyArray_FROMANY(ro, NPY_INT64, 1, 1, NPY_ARRAY_IN_ARRAY);
    c = r ? (PyArrayObject *)PyArray_FROMANY(co, NPY_INT64, 1, 1, NPY_ARRAY_IN_ARRAY) : NULL;
    if (!r || !c) {
        goto cleanup;
    }
    npy_intp m = PyArray_DIM(r, 0);
    int fl = 0;
    if (vo != Py_None) {
        if (!PyArray_Check(vo) || PyArray_NDIM((PyArrayObject *)vo) != 1 ||
            (PyArray_TYPE((PyArrayObject *)vo) != NPY_FLOAT64 &&
             PyArray_TYPE((PyArrayObject *)vo) != NPY_INT64)) {
            PyErr_SetString(wpy_TypeError, "spatial_coo_csr: vals must be a 1-D float64 or "
                                           "int64 array or None");
            goto cleanup;
        }
        fl = PyArray_TYPE((PyArrayObject *)vo) == NPY_FLOAT64;
        v = (PyArrayObject *)PyArray_FROMANY(vo, fl ? NPY_FLOAT64 : NPY_INT64, 1, 1,
                                             NPY_ARRAY_IN_ARRAY);
        if (!v) {
            goto cleanup;
        }
    }
    if (n1 < 1 || n2 < 1 || PyArray_DIM(c, 0) != m || (v && PyArray_DIM(v, 0) != m)) {
        PyErr_SetString(wpy_ValueError, "spatial_coo_csr: bad sizes");
        goto cleanup;
    }
    npy_intp np1 = (npy_intp)n1 + 1;
    R = (PyArrayObject *)PyArray_EMPTY(1, &np1, NPY_INT64, 0);
    C = (PyArrayObject *)PyArray_EMPTY(1, &m, NPY_INT64, 0);
    V = (PyArrayObject *)PyArray_EMPTY(1, &m, fl ? NPY_FLOAT64 : NPY_INT64, 0);
    if (!R || !C || !V) {
        goto cleanup;
    }
    const int64_t *rows = PyArray_DATA(r), *cols = PyArray_DATA(c);
    const void *vals = v ? PyArray_DATA(v) : NULL;
    int64_t count = 0;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_spatial_coo_csr(n1, n2, (int64_t)m, rows, cols,
                                         fl ? (const double *)vals : NULL,
                                         fl ? NULL : (const int64_t *)vals, PyArray_DATA(R),
                                         PyArray_DATA(C), fl ? PyArray_DATA(V) : NULL,
                                         fl ? NULL : PyArray_DATA(V), &count));
    res = csr_triple(st, count, R, C, V);
cleanup:
    WPY_XDECREF(r, c, v);
    WPY_XDECREF(R, C, V);
    return res;
}

/* the nonzeros of a dense 2D array (int64 kept, any other type as float64; made C-contiguous)
 * as CSR arrays (wpart_i_spatial_dense_csr): (rp, ci, float64 values, entries per column,
 * every value 1); with one true, (rp, buf, entries per column, every value 1) with buf one
 * int64 array: the indices, then for an int64 array its int64 values, then the float64
 * values' bits (3 nnz, or 2 nnz for a float array), then for a float array that density and
 * min_cells keep dense (not nnz * density <= cells > min_cells) room for its (n1 + 1) x
 * (n2 + 1) prefix sums. One allocation: rect_nicol's call on them then frees one chunk, not
 * several, which keeps glibc from trimming and re-faulting its heap at every call */
static PyObject *wpy_dense_csr(PyObject *self, PyObject *args)
{
    PyObject *o, *res = NULL;
    PyArrayObject *D = NULL, *R = NULL, *C = NULL, *W = NULL, *N = NULL;
    int one = 0;
    long long density = 0, min_cells = 0;
    if (!PyArg_ParseTuple(args, "O|pLL", &o, &one, &density, &min_cells)) {
        return NULL;
    }
    int is_int = PyArray_Check(o) && PyArray_TYPE((PyArrayObject *)o) == NPY_INT64;
    int ints = one && is_int;
    D = (PyArrayObject *)PyArray_FROMANY(o, is_int ? NPY_INT64 : NPY_FLOAT64, 2, 2,
                                         NPY_ARRAY_IN_ARRAY);
    if (!D) {
        return NULL;
    }
    npy_intp n1 = PyArray_DIM(D, 0), n2 = PyArray_DIM(D, 1), np1 = n1 + 1;
    R = (PyArrayObject *)PyArray_EMPTY(1, &np1, NPY_INT64, 0);
    N = (PyArrayObject *)PyArray_EMPTY(1, &n2, NPY_INT64, 0);
    if (!R || !N) {
        goto cleanup;
    }
    wpy_control_t ctl;
    wpy_control_setup(&ctl, NULL, 0.0);
    wpart_status_t st;
    int ones = 1;
    WPY_NOGIL(st = wpart_i_spatial_dense_csr(PyArray_DATA(D), is_int, n1, n2, &ctl.ctl,
                                             PyArray_DATA(R), PyArray_DATA(N), NULL, NULL,
                                             NULL, NULL));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto cleanup;
    }
    npy_intp nnz = (npy_intp)((int64_t *)PyArray_DATA(R))[n1], nb = (2 + ints) * nnz;
    int64_t cells = (int64_t)n1 * n2;
    if (one && !is_int && density > 0 && !((int64_t)nnz * density <= cells && cells > min_cells)) {
        nb += (n1 + 1) * (n2 + 1); /* (the prefix: at most 2 x the entries' room, as dense) */
    }
    if (one) {
        C = (PyArrayObject *)PyArray_EMPTY(1, &nb, NPY_INT64, 0);
    } else {
        C = (PyArrayObject *)PyArray_EMPTY(1, &nnz, NPY_INT64, 0);
        W = (PyArrayObject *)PyArray_EMPTY(1, &nnz, NPY_FLOAT64, 0);
    }
    if (!C || (!one && !W)) {
        goto cleanup;
    }
    int64_t *ci = PyArray_DATA(C);
    WPY_NOGIL(st = wpart_i_spatial_dense_csr(PyArray_DATA(D), is_int, n1, n2, &ctl.ctl,
                                             PyArray_DATA(R), NULL, ci,
                                             one ? (double *)(void *)(ci + (1 + ints) * nnz)
                                                 : PyArray_DATA(W),
                                             ints ? ci + nnz : NULL, &ones));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto cleanup;
    }
    res = one ? Py_BuildValue("OOOO", R, C, N, ones ? Py_True : Py_False)
              : Py_BuildValue("OOOOO", R, C, W, N, ones ? Py_True : Py_False);
cleanup:
    WPY_XDECREF(D, R, C, W, N);
    return res;
}

/* The functions (their signatures: wpart/_core.pyi):
 * - spatial_mm_csr: The canonical CSR arrays of a MatrixMarket coordinate body, or None.
 * - spatial_coo_csr: The canonical CSR arrays of a COO matrix's entries (duplicates counted
 *   without values), or None.
 * - spatial_dense_csr: The nonzeros of a dense 2D array as CSR arrays: (rp, ci, float64
 *   values, entries per column, every value 1); with one, (rp, [ci | int64 values (an int64
 *   array) | float64 values' bits | a dense float array's prefix room], entries per column,
 *   every value 1). */
static PyMethodDef spatial_csr_methods[] = {
    {"spatial_dense_csr", wpy_dense_csr, METH_VARARGS, NULL},
    {"spatial_mm_csr", wpy_mm_csr, METH_VARARGS, NULL},
    {"spatial_coo_csr", wpy_coo_csr, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

WPY_DEFINE_INIT(spatial_csr, spatial_csr_methods)
