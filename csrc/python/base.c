/* base.c -- binding of the base layer: prefix sums, box loads, 1D partitioning. */
#include "wpy.h"

static PyObject *wpy_prefix_sum(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"A", "out", "name", NULL};
    PyObject *obj = NULL, *outobj = Py_None, *res = NULL;
    const char *name = "A";
    PyArrayObject *A = NULL, *S = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|Os", kwlist, &obj, &outobj, &name)) {
        return NULL;
    }
    int t = wpy_loads_typenum(obj, name);
    if (t < 0) {
        return NULL;
    }
    A = wpy_input_array(obj, name, t, 1, 3);
    if (!A) {
        goto cleanup;
    }
    int d = PyArray_NDIM(A);
    npy_intp shp[3];
    int64_t dims[3];
    for (int i = 0; i < d; i++) {
        dims[i] = (int64_t)PyArray_DIM(A, i);
        shp[i] = PyArray_DIM(A, i) + 1;
    }
    if (outobj != Py_None) {
        if (wpy_check_output(outobj, "out", t, d, shp) < 0) {
            goto cleanup;
        }
        if (PyArray_SIZE(A) > 0 && PyArray_SIZE((PyArrayObject *)outobj) > 0 &&
            PyArray_DATA(A) == PyArray_DATA((PyArrayObject *)outobj)) {
            PyErr_SetString(wpy_ValueError, "`out` must not share memory with the input");
            goto cleanup;
        }
        Py_INCREF(outobj);
        S = (PyArrayObject *)outobj;
    } else {
        S = (PyArrayObject *)PyArray_SimpleNew(d, shp, t);
        if (!S) {
            goto cleanup;
        }
    }
    wpart_status_t st;
    wpy_control_t ctl; /* Ctrl-C: polled between rows, about every 2^16 elements */
    wpy_control_setup(&ctl, NULL, 0.0);
    Py_BEGIN_ALLOW_THREADS
    if (t == NPY_INT64) {
        st = wpart_base_prefix_i64(PyArray_DATA(A), d, dims, PyArray_DATA(S), &ctl.ctl);
    } else {
        st = wpart_base_prefix_f64(PyArray_DATA(A), d, dims, PyArray_DATA(S), &ctl.ctl);
    }
    Py_END_ALLOW_THREADS
    if (PyErr_Occurred()) {
        goto cleanup; /* Ctrl-C: the pending KeyboardInterrupt */
    }
    if (st != WPART_OK) {
        char what[80]; /* the argument in backticks, as every message names it */
        PyOS_snprintf(what, sizeof what, "`%.60s`", name);
        wpy_raise(st, what);
        goto cleanup;
    }
    res = (PyObject *)S;
    S = NULL;
cleanup:
    WPY_XDECREF(A, S);
    return res;
}

static PyObject *wpy_box_loads(PyObject *self, PyObject *args)
{
    PyObject *sobj, *bobj, *res = NULL;
    PyArrayObject *S = NULL, *B = NULL, *out = NULL;
    if (!PyArg_ParseTuple(args, "OO", &sobj, &bobj)) {
        return NULL;
    }
    int t = wpy_loads_typenum(sobj, "S");
    if (t < 0) {
        return NULL;
    }
    S = wpy_input_array(sobj, "S", t, 2, 3);
    B = S ? wpy_input_array(bobj, "boxes", NPY_INT64, 2, 2) : NULL;
    if (!B) {
        goto cleanup;
    }
    int d = PyArray_NDIM(S);
    if (PyArray_DIM(B, 1) != 2 * d) {
        PyErr_Format(wpy_ValueError, "`boxes` must have %d columns for a %d-D prefix, got %zd",
                     2 * d, d, (Py_ssize_t)PyArray_DIM(B, 1));
        goto cleanup;
    }
    int64_t dims[3];
    for (int i = 0; i < d; i++) {
        if (PyArray_DIM(S, i) < 1) {
            PyErr_SetString(wpy_ValueError, "`S` must have extent >= 1 in every axis");
            goto cleanup;
        }
        dims[i] = (int64_t)PyArray_DIM(S, i) - 1;
    }
    npy_intp k = PyArray_DIM(B, 0);
    out = (PyArrayObject *)PyArray_SimpleNew(1, &k, t);
    if (!out) {
        goto cleanup;
    }
    wpart_status_t st;
    wpy_control_t ctl; /* Ctrl-C: asked every 2^16 boxes (2^24 take about 0.3 s) */
    wpy_control_setup(&ctl, NULL, 0.0);
    Py_BEGIN_ALLOW_THREADS
    if (t == NPY_INT64) {
        st = wpart_i_box_loads_i64(PyArray_DATA(S), d, dims, PyArray_DATA(B), (int64_t)k,
                                   PyArray_DATA(out), &ctl.ctl);
    } else {
        st = wpart_i_box_loads_f64(PyArray_DATA(S), d, dims, PyArray_DATA(B), (int64_t)k,
                                   PyArray_DATA(out), &ctl.ctl);
    }
    Py_END_ALLOW_THREADS
    if (PyErr_Occurred()) {
        goto cleanup; /* Ctrl-C: the pending KeyboardInterrupt */
    }
    res = wpy_result(st, "`boxes`", &out);
cleanup:
    WPY_XDECREF(S, B, out);
    return res;
}

/* The 1-D loads (dtype t) and the outputs of a chain partition: the bordered prefix W (n + 1
 * of t) and the m + 1 separators. 0, or -1 with an exception (the caller releases all). */
static int chain_arrays(PyObject *lobj, int t, long long m, PyArrayObject **L, PyArrayObject **W,
                        PyArrayObject **seps)
{
    *L = wpy_input_array(lobj, "loads", t, 1, 1);
    if (!*L) {
        return -1;
    }
    npy_intp n1 = PyArray_DIM(*L, 0) + 1, q1 = (npy_intp)m + 1;
    *W = (PyArrayObject *)PyArray_SimpleNew(1, &n1, t);
    *seps = *W ? (PyArrayObject *)PyArray_SimpleNew(1, &q1, NPY_INT64) : NULL;
    return *seps ? 0 : -1;
}

static PyObject *wpy_partition_1d(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"loads", "m", "method", "speeds", "normalize", "progress",
                             "time_limit", NULL};
    PyObject *lobj, *spobj = Py_None, *progress = Py_None, *res = NULL;
    long long m;
    int method, normalize = 1;
    double time_limit = 0.0;
    PyArrayObject *L = NULL, *SP = NULL, *W = NULL, *seps = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OLi|OpOd", kwlist, &lobj, &m, &method, &spobj,
                                     &normalize, &progress, &time_limit)) {
        return NULL;
    }
    if (method < WPART_1D_NICOL || method > WPART_1D_RECURSIVE_BISECTION) {
        PyErr_Format(wpy_ValueError, "`method` = %d is not a 1D method code (BASE_1D_*)",
                     method);
        return NULL;
    }
    int t = wpy_loads_typenum(lobj, "loads");
    if (t < 0 || wpy_check_m(m) < 0) {
        return NULL;
    }
    if (chain_arrays(lobj, t, m, &L, &W, &seps) < 0 ||
        wpy_optional_speeds(spobj, m, &SP) < 0) {
        goto cleanup;
    }
    npy_intp n = PyArray_DIM(L, 0);
    wpart_1d_options_t opt;
    wpart_1d_options_init(&opt);
    opt.method = (wpart_1d_method_t)method;
    opt.normalize = normalize;
    wpy_control_t ctl;
    opt.control = wpy_control_setup(&ctl, progress, time_limit);
    wpart_1d_stats_t stats;
    memset(&stats, 0, sizeof stats);
    const double *sp = SP ? PyArray_DATA(SP) : NULL;
    wpart_status_t st;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    st = t == NPY_INT64
             ? wpart_base_1d_loads_i64(PyArray_DATA(L), (int64_t)n, (int64_t)m, sp, &opt,
                                       PyArray_DATA(W), PyArray_DATA(seps), &stats, &bad)
             : wpart_base_1d_loads_f64(PyArray_DATA(L), (int64_t)n, (int64_t)m, sp, &opt,
                                       PyArray_DATA(W), PyArray_DATA(seps), &stats, &bad);
    Py_END_ALLOW_THREADS
    const char *what = bad ? "`loads`" : NULL;
    if (PyErr_Occurred()) {
        goto cleanup; /* Ctrl-C or a failed progress callable, even if the core then finished */
    }
    if (st == WPART_ECANCELLED && what == NULL && time_limit > 0) {
        /* the time limit, a status and not an error: no separators */
        Py_DECREF(seps);
        Py_INCREF(Py_None);
        seps = (PyArrayObject *)Py_None;
    } else if (st != WPART_OK) {
        wpy_raise(st, what);
        goto cleanup;
    }
    res = Py_BuildValue("OO(dLLLd)", seps, W, stats.bottleneck, (long long)stats.bottleneck_i64,
                        (long long)stats.probes, (long long)stats.steps, stats.seconds);
cleanup:
    WPY_XDECREF(L, SP, W, seps);
    return res;
}

static PyObject *wpy_probe_1d(PyObject *self, PyObject *args)
{
    PyObject *lobj, *bobj, *res = NULL;
    long long m;
    PyArrayObject *L = NULL, *W = NULL, *seps = NULL;
    if (!PyArg_ParseTuple(args, "OLO", &lobj, &m, &bobj)) {
        return NULL;
    }
    int t = wpy_loads_typenum(lobj, "loads");
    if (t < 0 || wpy_check_m(m) < 0) {
        return NULL;
    }
    int64_t Bi = 0;
    double Bf = 0.0;
    if (t == NPY_INT64) {
        Bi = PyLong_AsLongLong(bobj);
    } else {
        Bf = PyFloat_AsDouble(bobj);
    }
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (chain_arrays(lobj, t, m, &L, &W, &seps) < 0) {
        goto cleanup;
    }
    npy_intp n = PyArray_DIM(L, 0);
    int ok = 0;
    wpart_status_t st;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    st = t == NPY_INT64 ? wpart_base_1d_probe_loads_i64(PyArray_DATA(L), (int64_t)n, (int64_t)m,
                                                        Bi, PyArray_DATA(W), PyArray_DATA(seps),
                                                        &ok, &bad)
                        : wpart_base_1d_probe_loads_f64(PyArray_DATA(L), (int64_t)n, (int64_t)m,
                                                        Bf, PyArray_DATA(W), PyArray_DATA(seps),
                                                        &ok, &bad);
    Py_END_ALLOW_THREADS
    if (st != WPART_OK) {
        wpy_raise(st, bad ? "`loads`" : NULL);
        goto cleanup;
    }
    res = Py_BuildValue("NO", PyBool_FromLong(ok), seps);
cleanup:
    WPY_XDECREF(L, W, seps);
    return res;
}

/* The functions (their signatures: wpart/_core.pyi):
 * - prefix_sum: Bordered prefix sum of a 1-D, 2-D or 3-D int64/float64 array.
 * - box_loads: Loads of many half-open boxes from a prefix.
 * - partition_1d: 1D chains-on-chains partition: (separators, prefix, stats).
 * - probe_1d: PROBE: (ok, greedy separators). */
static PyMethodDef base_methods[] = {
    {"prefix_sum", WPY_CFUNC(wpy_prefix_sum), WPY_KW, NULL},
    {"box_loads", wpy_box_loads, METH_VARARGS, NULL},
    {"partition_1d", WPY_CFUNC(wpy_partition_1d), WPY_KW, NULL},
    {"probe_1d", wpy_probe_1d, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* The core's 1D method codes, exported so that the Python method table (wpart/_base.py)
 * names each C entry. */
static const struct {
    const char *name;
    int value;
} base_constants[] = {
    {"BASE_1D_NICOL", WPART_1D_NICOL},
    {"BASE_1D_BISECT", WPART_1D_BISECT},
    {"BASE_1D_DP", WPART_1D_DP},
    {"BASE_1D_DIRECT_CUT", WPART_1D_DIRECT_CUT},
    {"BASE_1D_RECURSIVE_BISECTION", WPART_1D_RECURSIVE_BISECTION},
};

int wpy_base_init(PyObject *m)
{
    for (size_t i = 0; i < sizeof base_constants / sizeof base_constants[0]; i++) {
        if (PyModule_AddIntConstant(m, base_constants[i].name, base_constants[i].value) < 0) {
            return -1;
        }
    }
    return PyModule_AddFunctions(m, base_methods);
}
