/* dynamic_exec.c -- binding of wpart.dynamic's real-execution kernels (dynamic_exec.h).
 *
 * Workers call these from their own threads, once per block, with arrays that the Python
 * task objects (wpart/dynamic/_exec.py) laid out once at construction. The binding does not
 * copy: an array of the wrong dtype, order, alignment or shape is rejected with an error that
 * names it, because a silent copy of an output would drop the result. The GIL is released
 * around the kernel, so workers compute concurrently.
 */
#include "wpy.h"

/* obj must be an ndarray of typenum with ndim dims, aligned, native, and C- (fortran = 0) or
 * Fortran- (fortran = 1) contiguous; writeable when out. 0 or -1 with an error naming it. */
static int exact_array(PyObject *obj, const char *name, int typenum, int ndim, int fortran,
                       int out)
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
    if (PyArray_NDIM(a) != ndim) {
        PyErr_Format(wpy_ValueError, "`%s` must be %d-D, got %d-D", name, ndim,
                     PyArray_NDIM(a));
        return -1;
    }
    int contiguous = fortran ? PyArray_IS_F_CONTIGUOUS(a) : PyArray_IS_C_CONTIGUOUS(a);
    if (!contiguous || !PyArray_ISALIGNED(a) || PyArray_ISBYTESWAPPED(a)) {
        PyErr_Format(wpy_ValueError, "`%s` must be %s-contiguous, aligned and native", name,
                     fortran ? "Fortran" : "C");
        return -1;
    }
    if (out && !PyArray_ISWRITEABLE(a)) {
        PyErr_Format(wpy_ValueError, "`%s` is read-only", name);
        return -1;
    }
    return 0;
}

static PyObject *py_gemm_cols(PyObject *self, PyObject *args)
{
    PyObject *A, *B, *C;
    long long col0, ncols;
    int nthreads;
    if (!PyArg_ParseTuple(args, "OOOLLi:dynamic_kernel_gemm_cols", &A, &B, &C, &col0, &ncols,
                          &nthreads)) {
        return NULL;
    }
    if (exact_array(A, "A", NPY_FLOAT64, 2, 1, 0) < 0 ||
        exact_array(B, "B", NPY_FLOAT64, 2, 1, 0) < 0 ||
        exact_array(C, "C", NPY_FLOAT64, 2, 1, 1) < 0) {
        return NULL;
    }
    PyArrayObject *a = (PyArrayObject *)A, *b = (PyArrayObject *)B, *c = (PyArrayObject *)C;
    npy_intp n = PyArray_DIM(a, 0), kd = PyArray_DIM(a, 1), N = PyArray_DIM(b, 1);
    if (PyArray_DIM(b, 0) != kd) {
        return PyErr_Format(wpy_ValueError, "`B` must have %zd rows (the columns of `A`), got %zd",
                            (Py_ssize_t)kd, (Py_ssize_t)PyArray_DIM(b, 0));
    }
    if (PyArray_DIM(c, 0) != n || PyArray_DIM(c, 1) != N) {
        return PyErr_Format(wpy_ValueError, "`C` must have shape (%zd, %zd), got (%zd, %zd)",
                            (Py_ssize_t)n, (Py_ssize_t)N, (Py_ssize_t)PyArray_DIM(c, 0),
                            (Py_ssize_t)PyArray_DIM(c, 1));
    }
    wpart_status_t st;
    const double *pa = PyArray_DATA(a), *pb = PyArray_DATA(b);
    double *pc = PyArray_DATA(c);
    Py_BEGIN_ALLOW_THREADS
    st = wpart_dynamic_kernel_gemm_cols(n, kd, N, pa, pb, pc, col0, ncols, nthreads);
    Py_END_ALLOW_THREADS
    if (st != WPART_OK) {
        return wpy_raise(st, "gemm_cols");
    }
    Py_RETURN_NONE;
}

static PyObject *py_kmeans_assign(PyObject *self, PyObject *args)
{
    PyObject *P, *Cn, *L, *S, *K;
    long long p0, np_;
    int nthreads;
    if (!PyArg_ParseTuple(args, "OOOOOLLi:dynamic_kernel_kmeans_assign", &P, &Cn, &L, &S, &K,
                          &p0, &np_, &nthreads)) {
        return NULL;
    }
    if (exact_array(P, "points", NPY_FLOAT64, 2, 0, 0) < 0 ||
        exact_array(Cn, "centroids", NPY_FLOAT64, 2, 0, 0) < 0 ||
        exact_array(L, "labels", NPY_INT32, 1, 0, 1) < 0) {
        return NULL;
    }
    if ((S == Py_None) != (K == Py_None)) {
        return PyErr_Format(wpy_ValueError, "`sums` and `counts` must be given together");
    }
    PyArrayObject *pts = (PyArrayObject *)P, *cen = (PyArrayObject *)Cn, *lab = (PyArrayObject *)L;
    npy_intp npts = PyArray_DIM(pts, 0), d = PyArray_DIM(pts, 1), k = PyArray_DIM(cen, 0);
    if (PyArray_DIM(cen, 1) != d) {
        return PyErr_Format(wpy_ValueError,
                            "`centroids` must have %zd columns (the dimension of `points`), got %zd",
                            (Py_ssize_t)d, (Py_ssize_t)PyArray_DIM(cen, 1));
    }
    if (PyArray_DIM(lab, 0) != npts) {
        return PyErr_Format(wpy_ValueError, "`labels` must have length %zd, got %zd",
                            (Py_ssize_t)npts, (Py_ssize_t)PyArray_DIM(lab, 0));
    }
    double *psum = NULL;
    int64_t *pcnt = NULL;
    if (S != Py_None) {
        if (exact_array(S, "sums", NPY_FLOAT64, 2, 0, 1) < 0 ||
            exact_array(K, "counts", NPY_INT64, 1, 0, 1) < 0) {
            return NULL;
        }
        if (PyArray_DIM((PyArrayObject *)S, 0) != k || PyArray_DIM((PyArrayObject *)S, 1) != d ||
            PyArray_DIM((PyArrayObject *)K, 0) != k) {
            return PyErr_Format(wpy_ValueError,
                                "`sums` must have shape (%zd, %zd) and `counts` length %zd",
                                (Py_ssize_t)k, (Py_ssize_t)d, (Py_ssize_t)k);
        }
        psum = PyArray_DATA((PyArrayObject *)S);
        pcnt = PyArray_DATA((PyArrayObject *)K);
    }
    wpart_status_t st;
    const double *pp = PyArray_DATA(pts), *pc = PyArray_DATA(cen);
    int32_t *pl = PyArray_DATA(lab);
    Py_BEGIN_ALLOW_THREADS
    st = wpart_dynamic_kernel_kmeans_assign(npts, d, k, pp, pc, p0, np_, pl, psum, pcnt,
                                            nthreads);
    Py_END_ALLOW_THREADS
    if (st != WPART_OK) {
        return wpy_raise(st, "kmeans_assign");
    }
    Py_RETURN_NONE;
}

static PyMethodDef exec_methods[] = {
    {"dynamic_kernel_gemm_cols", py_gemm_cols, METH_VARARGS,
     "dynamic_kernel_gemm_cols(A, B, C, col0, ncols, nthreads): C[:, block] = A @ B[:, block]"},
    {"dynamic_kernel_kmeans_assign", py_kmeans_assign, METH_VARARGS,
     "dynamic_kernel_kmeans_assign(points, centroids, labels, sums, counts, p0, np, nthreads)"},
    {NULL, NULL, 0, NULL},
};

int wpy_dynamic_exec_init(PyObject *m) { return PyModule_AddFunctions(m, exec_methods); }
