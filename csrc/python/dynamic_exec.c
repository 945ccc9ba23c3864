/* dynamic_exec.c -- binding of wpart.dynamic's real-execution kernels (dynamic_exec.h).
 *
 * Workers call these from their own threads, once per block, with arrays that the Python
 * task objects (wpart/dynamic/_exec.py) laid out once at construction. The binding does not
 * copy: an array of the wrong dtype, order, alignment or shape is rejected with an error that
 * names it, because a silent copy of an output would drop the result. The GIL is released
 * around the kernel, so workers compute concurrently.
 */
#include "wpy.h"

#include <math.h>
#include <string.h>

/* obj must be an ndarray of typenum with ndim dims, aligned, native, and C- (fortran = 0) or
 * Fortran- (fortran = 1) contiguous; writeable when out. 0 or -1 with an error naming it. */
static int exact_array(PyObject *obj, const char *name, int typenum, int ndim, int fortran,
                       int out)
{
    if (wpy_check_type(obj, name, typenum) < 0) {
        return -1;
    }
    PyArrayObject *a = (PyArrayObject *)obj;
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
    WPY_NOGIL(st = wpart_dynamic_kernel_gemm_cols(n, kd, N, pa, pb, pc, col0, ncols, nthreads));
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
    WPY_NOGIL(st = wpart_dynamic_kernel_kmeans_assign(npts, d, k, pp, pc, p0, np_, pl, psum, pcnt,
                                                      nthreads));
    if (st != WPART_OK) {
        return wpy_raise(st, "kmeans_assign");
    }
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------- the driver ------------ */

/* dynamic_drive(balancer, source, eval_cost, progress, time_limit) -> dict
 * Real execution through the event engine (wpart_dynamic_drive): `source` is a Python object
 * with submit(pu, block_id, offset, size) (hand the block to PU pu's worker), eval(token,
 * trigger_pu) (start the evaluation off the driving thread), wait(until) -> None or (kind, pu,
 * id, t_start, t_xfer, t_comp, t_end) (kind 0: block id finished; kind 1: evaluation id
 * finished, t_comp = its eval_run seconds), now() -> seconds since the run's start. The engine runs with the GIL released and takes it for each callback; the first
 * exception a callback raises stops the run and is re-raised. */
int wpy_dynamic_pybal_reraise(wpart_dynamic_balancer_t *b);

typedef struct {
    PyObject *obj;
    PyObject *et, *ev, *etb;
} drvsrc_t;

static wpart_status_t src_fail(drvsrc_t *s)
{
    if (!s->et) {
        PyErr_Fetch(&s->et, &s->ev, &s->etb);
    } else {
        PyErr_Clear();
    }
    return WPART_ECANCELLED;
}

static wpart_status_t src_submit(void *ctx, const wpart_dynamic_assign_t *a)
{
    drvsrc_t *s = ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = PyObject_CallMethod(s->obj, "submit", "iLLL", (int)a->pu, (long long)a->block_id,
                                      (long long)a->offset, (long long)a->size);
    wpart_status_t st = r ? WPART_OK : src_fail(s);
    Py_XDECREF(r);
    PyGILState_Release(g);
    return st;
}

static wpart_status_t src_wait(void *ctx, double until, wpart_dynamic_done_t *ev, int *got)
{
    drvsrc_t *s = ctx;
    wpart_status_t st = WPART_OK;
    *got = 0;
    if (s->et) { /* now() raised (e.g. Ctrl-C there): stop */
        return WPART_ECANCELLED;
    }
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = PyObject_CallMethod(s->obj, "wait", "d", until);
    if (!r) {
        st = src_fail(s);
    } else if (r != Py_None) {
        int kind, pu;
        long long bid;
        if (!PyArg_ParseTuple(r, "iiLdddd", &kind, &pu, &bid, &ev->t_start, &ev->t_xfer,
                              &ev->t_comp, &ev->t_end)) {
            st = src_fail(s);
        } else {
            ev->kind = kind;
            ev->pu = pu;
            ev->block_id = bid;
            *got = 1;
        }
    }
    Py_XDECREF(r);
    PyGILState_Release(g);
    return st;
}

static wpart_status_t src_eval(void *ctx, int64_t token, int32_t trigger_pu)
{
    drvsrc_t *s = ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = PyObject_CallMethod(s->obj, "eval", "Li", (long long)token, (int)trigger_pu);
    wpart_status_t st = r ? WPART_OK : src_fail(s);
    Py_XDECREF(r);
    PyGILState_Release(g);
    return st;
}

static double src_now(void *ctx)
{
    drvsrc_t *s = ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = PyObject_CallMethod(s->obj, "now", NULL);
    double t = r ? PyFloat_AsDouble(r) : NAN;
    if (!r || PyErr_Occurred()) {
        src_fail(s);
        t = NAN;
    }
    Py_XDECREF(r);
    PyGILState_Release(g);
    return t;
}

static PyObject *vec(const void *src, npy_intp n, int typenum, size_t sz)
{
    PyObject *a = PyArray_SimpleNew(1, &n, typenum);
    if (a && n > 0) {
        memcpy(PyArray_DATA((PyArrayObject *)a), src, (size_t)n * sz);
    }
    return a;
}

static PyObject *py_drive(PyObject *self, PyObject *args)
{
    PyObject *bal, *srcobj, *progress;
    double eval_cost, time_limit;
    if (!PyArg_ParseTuple(args, "OOdOd:dynamic_drive", &bal, &srcobj, &eval_cost, &progress,
                          &time_limit)) {
        return NULL;
    }
    wpart_dynamic_balancer_t *b = wpy_balancer_get(bal, "balancer");
    if (!b) {
        return NULL;
    }
    drvsrc_t s = {srcobj, NULL, NULL, NULL};
    wpart_dynamic_source_t src = {&s, src_submit, src_eval, src_wait, src_now};
    wpart_dynamic_sim_options_t o;
    wpart_dynamic_sim_options_init(&o);
    o.eval_mode = WPART_DYN_EVAL_CONST;
    o.eval_cost = eval_cost;
    wpy_control_t ctl;
    o.control = wpy_control_setup(&ctl, progress, time_limit > 0 ? time_limit : 0.0);
    if (wpy_balancer_acquire(bal) < 0) {
        return NULL;
    }
    wpart_dynamic_sim_result_t r;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_dynamic_drive(b, &src, &o, &r));
    wpy_balancer_release(bal);
    if (st != WPART_OK) {
        if (s.et) { /* a source callback raised (a worker error, Ctrl-C in a wait, ...) */
            PyErr_Restore(s.et, s.ev, s.etb);
            return NULL;
        }
        if (wpy_dynamic_pybal_reraise(b)) {
            return NULL;
        }
        return wpy_raise(st, "run");
    }
    if (s.et) { /* a callback raised after the last check (now() on the final event) */
        wpart_dynamic_sim_result_free(&r);
        PyErr_Restore(s.et, s.ev, s.etb);
        return NULL;
    }
    npy_intp nb = (npy_intp)(r.n_trace * (int64_t)sizeof(wpart_dynamic_trace_t));
    npy_intp ewd[2] = {r.n_eval_windows, 3};
    PyObject *ew = PyArray_SimpleNew(2, ewd, NPY_FLOAT64);
    if (ew && r.n_eval_windows > 0) {
        memcpy(PyArray_DATA((PyArrayObject *)ew), r.eval_windows,
               (size_t)r.n_eval_windows * 3 * sizeof(double));
    }
    PyObject *res = Py_BuildValue(
        "{sdsNsNsNsNsNsLsLsdsLsOsds(LLLL)}", "makespan", r.makespan, "trace",
        wpy_array_take((void **)&r.trace, nb, NPY_UINT8, 1), "busy",
        vec(r.busy, r.n, NPY_FLOAT64, sizeof(double)), "elements",
        vec(r.elements, r.n, NPY_INT64, sizeof(int64_t)), "blocks",
        vec(r.blocks, r.n, NPY_INT64, sizeof(int64_t)), "eval_windows", ew, "n_evals",
        (long long)r.n_evals, "n_barriers", (long long)r.n_barriers, "eval_time", r.eval_time,
        "n_events", (long long)r.n_events, "stopped", r.stopped ? Py_True : Py_False,
        "wall_seconds", r.wall_seconds, "blocks_per_kind", (long long)r.blocks_per_kind[0],
        (long long)r.blocks_per_kind[1], (long long)r.blocks_per_kind[2],
        (long long)r.blocks_per_kind[3]);
    wpart_dynamic_sim_result_free(&r);
    return res;
}

/* The functions (their signatures: wpart/_core.pyi):
 * - dynamic_kernel_gemm_cols(A, B, C, col0, ncols, nthreads): C[:, block] = A @ B[:, block]
 * - dynamic_kernel_kmeans_assign(points, centroids, labels, sums, counts, p0, np, nthreads)
 * - dynamic_drive(balancer, source, eval_cost, progress, time_limit) -> dict */
static PyMethodDef exec_methods[] = {
    {"dynamic_kernel_gemm_cols", py_gemm_cols, METH_VARARGS, NULL},
    {"dynamic_kernel_kmeans_assign", py_kmeans_assign, METH_VARARGS, NULL},
    {"dynamic_drive", py_drive, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

WPY_DEFINE_INIT(dynamic_exec, exec_methods)
