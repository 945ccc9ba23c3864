/* dynamic_plbhac.c -- binding of PLB-HAC / PLB-HeC (wpart/dynamic/_plbhac.py).
 *
 *   dynamic_plbhac(n, kinds|None, opts: dict, min_block|None, cap|None, hec: bool) -> Balancer
 *   dynamic_plbhac_current(bal) -> (X int64[n], T_pred, S_eff, S, version)
 *   dynamic_plbhac_models(bal)  -> float64[n, WPART_DYN_PACKED] (packed published models)
 *   dynamic_plbhac_min_blocks(bal) -> int64[n]
 *
 * opts holds every option of wpart_dynamic_plbhac_cfg_t by its C field name (enums as ints;
 * the fit and solve options flat: decay, window, weighting, intercept, max_terms,
 * allowed_mask, grid_points, slope_floor, tol_T, tol_x, max_outer, max_inner, newton_polish).
 * Missing keys keep the "paper" preset value. The Python layer resolves presets and names.
 */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <string.h>

#include "wpy.h"
#include "../dynamic/fit_inc.h"

/* CPU seconds of this thread (timings on a shared machine) */
static int get_d(PyObject *d, const char *k, double *v)
{
    PyObject *o = PyDict_GetItemString(d, k);
    if (!o) {
        return 0;
    }
    double x = PyFloat_AsDouble(o);
    if (x == -1.0 && PyErr_Occurred()) {
        PyErr_Format(wpy_TypeError, "`%s` must be a number", k);
        return -1;
    }
    *v = x;
    return 0;
}

static int get_ll(PyObject *d, const char *k, long long *v)
{
    PyObject *o = PyDict_GetItemString(d, k);
    if (!o) {
        return 0;
    }
    long long x = PyLong_AsLongLong(o);
    if (x == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(wpy_TypeError, "`%s` must be an integer that fits in int64", k);
        return -1;
    }
    *v = x;
    return 0;
}

#define GETI(field, key)                            \
    do {                                            \
        long long v_ = (long long)(field);          \
        if (get_ll(opts, key, &v_) < 0) {           \
            goto fail;                              \
        }                                           \
        if (v_ < INT32_MIN || v_ > INT32_MAX) {     \
            PyErr_Format(wpy_ValueError, "`%s` is out of range", key); \
            goto fail;                              \
        }                                           \
        (field) = (int32_t)v_;                      \
    } while (0)
#define GETL(field, key)                  \
    do {                                  \
        long long v_ = (long long)(field); \
        if (get_ll(opts, key, &v_) < 0) { \
            goto fail;                    \
        }                                 \
        (field) = (int64_t)v_;            \
    } while (0)
#define GETD(field, key)                  \
    do {                                  \
        if (get_d(opts, key, &(field)) < 0) { \
            goto fail;                    \
        }                                 \
    } while (0)

/* The model-fit options shared by the balancer and the incremental fit (not `window`). */
static int get_fit_opts(PyObject *opts, wpart_dynamic_fit_opts_t *f)
{
    long long mask = f->allowed_mask;
    if (get_ll(opts, "allowed_mask", &mask) < 0) {
        goto fail;
    }
    f->allowed_mask = (uint32_t)mask;
    GETI(f->intercept, "intercept");
    GETI(f->max_terms, "max_terms");
    GETI(f->weighting, "weighting");
    GETD(f->decay, "decay");
    GETI(f->grid_points, "grid_points");
    GETD(f->slope_floor, "slope_floor");
    return 0;
fail:
    return -1;
}

static PyArrayObject *opt_arr(PyObject *o, const char *name, int typenum, int n)
{
    PyArrayObject *a = wpy_input_array(o, name, typenum, 1, 1);
    if (a && PyArray_DIM(a, 0) != n) {
        PyErr_Format(wpy_ValueError, "`%s` must hold m = %d values, got %zd", name, n,
                     (Py_ssize_t)PyArray_DIM(a, 0));
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

static PyObject *py_plbhac(PyObject *self, PyObject *args)
{
    int n, hec;
    long long total;
    PyObject *kinds_o, *opts, *mb_o, *cap_o;
    PyArrayObject *kinds = NULL, *mb = NULL, *cap = NULL;
    if (!PyArg_ParseTuple(args, "iLOO!OOp:dynamic_plbhac", &n, &total, &kinds_o, &PyDict_Type,
                          &opts, &mb_o, &cap_o, &hec)) {
        return NULL;
    }
    if (n < 1) {
        return PyErr_Format(wpy_ValueError, "`m` must be >= 1, got %d", n);
    }
    wpart_dynamic_plbhac_cfg_t c;
    long long preset = 0;
    if (get_ll(opts, "preset", &preset) < 0) {
        return NULL;
    }
    if (preset == 1) {
        wpart_dynamic_plbhac_cfg_robust(&c);
    } else {
        wpart_dynamic_plbhac_cfg_paper(&c);
    }
    c.total = total;
    GETL(c.quantum, "quantum");
    GETL(c.x_init, "x_init");
    GETD(c.gap_threshold, "gap_threshold");
    GETD(c.tail_start, "tail_start");
    GETD(c.tail_alpha, "tail_alpha");
    GETI(c.tail_mode, "tail_mode");
    GETI(c.tail_once, "tail_once");
    GETD(c.tail_floor_time, "tail_floor_time");
    GETI(c.training_mode, "training_mode");
    GETI(c.step_mode, "step_mode");
    GETL(c.step_size, "step_size");
    GETD(c.step_time, "step_time");
    GETI(c.min_steps_left, "min_steps_left");
    GETI(c.min_block_mode, "min_block_mode");
    GETD(c.auto_eta, "auto_eta");
    GETD(c.min_eval_interval, "min_eval_interval");
    GETI(c.gap_fill, "gap_fill");
    GETI(c.paper_strict, "paper_strict");
    GETD(c.step_fraction, "step_fraction");
    GETD(c.change_ratio, "change_ratio");
    if (get_fit_opts(opts, &c.fit) < 0) {
        goto fail;
    }
    GETI(c.fit.window, "window");
    GETD(c.solve.tol_T, "tol_T");
    GETD(c.solve.tol_x, "tol_x");
    GETI(c.solve.max_outer, "max_outer");
    GETI(c.solve.max_inner, "max_inner");
    GETI(c.solve.newton_polish, "newton_polish");
    if (kinds_o != Py_None && !(kinds = opt_arr(kinds_o, "pu_kinds", NPY_INT32, n))) {
        goto fail;
    }
    if (mb_o != Py_None && !(mb = opt_arr(mb_o, "min_block", NPY_INT64, n))) {
        goto fail;
    }
    if (cap_o != Py_None && !(cap = opt_arr(cap_o, "cap", NPY_INT64, n))) {
        goto fail;
    }
    c.min_block = mb ? (const int64_t *)PyArray_DATA(mb) : NULL;
    c.cap = cap ? (const int64_t *)PyArray_DATA(cap) : NULL;
    wpart_dynamic_balancer_t *b = NULL;
    const int32_t *kd = kinds ? (const int32_t *)PyArray_DATA(kinds) : NULL;
    wpart_status_t st = hec ? wpart_dynamic_plbhec_new(&c, n, kd, &b)
                            : wpart_dynamic_plbhac_new(&c, n, kd, &b);
    WPY_XDECREF(kinds, mb, cap);
    if (st != WPART_OK) {
        return wpy_raise(st, NULL);
    }
    return wpy_balancer_wrap(b);
fail:
    WPY_XDECREF(kinds, mb, cap);
    return NULL;
}

static wpart_dynamic_balancer_t *get_plb(PyObject *args, const char *fmt)
{
    PyObject *o;
    if (!PyArg_ParseTuple(args, fmt, &o)) {
        return NULL;
    }
    wpart_dynamic_balancer_t *b = wpy_balancer_get(o, "balancer");
    if (b && !wpart_dynamic_is_plbhac(b)) {
        PyErr_SetString(wpy_TypeError, "balancer must be PLB-HAC or PLB-HeC");
        return NULL;
    }
    return b;
}

static PyObject *py_current(PyObject *self, PyObject *args)
{
    wpart_dynamic_balancer_t *b = get_plb(args, "O:dynamic_plbhac_current");
    if (!b) {
        return NULL;
    }
    npy_intp n = wpart_dynamic_balancer_n_pu(b);
    PyObject *X = PyArray_SimpleNew(1, &n, NPY_INT64);
    if (!X) {
        return NULL;
    }
    double T;
    int64_t S_eff, S;
    int32_t v;
    wpart_dynamic_plbhac_current(b, PyArray_DATA((PyArrayObject *)X), &T, &S_eff, &S, &v);
    return Py_BuildValue("(NdLLi)", X, T, (long long)S_eff, (long long)S, (int)v);
}

static PyObject *py_min_blocks(PyObject *self, PyObject *args)
{
    wpart_dynamic_balancer_t *b = get_plb(args, "O:dynamic_plbhac_min_blocks");
    if (!b) {
        return NULL;
    }
    npy_intp n = wpart_dynamic_balancer_n_pu(b);
    PyObject *X = PyArray_SimpleNew(1, &n, NPY_INT64);
    if (X) {
        wpart_dynamic_plbhac_min_blocks(b, PyArray_DATA((PyArrayObject *)X));
    }
    return X;
}

static PyObject *py_models(PyObject *self, PyObject *args)
{
    wpart_dynamic_balancer_t *b = get_plb(args, "O:dynamic_plbhac_models");
    if (!b) {
        return NULL;
    }
    int32_t n = wpart_dynamic_balancer_n_pu(b);
    wpart_dynamic_model_t *m = PyMem_Calloc((size_t)n, sizeof *m);
    if (!m) {
        return wpy_nomem();
    }
    wpart_dynamic_plbhac_models(b, m);
    npy_intp dims[2] = {n, WPART_DYN_PACKED};
    PyObject *arr = PyArray_SimpleNew(2, dims, NPY_FLOAT64);
    if (arr) {
        double *d = PyArray_DATA((PyArrayObject *)arr);
        for (int32_t p = 0; p < n; p++) {
            wpart_dynamic_model_pack(&m[p], d + (size_t)p * WPART_DYN_PACKED);
        }
    }
    PyMem_Free(m);
    return arr;
}

/* dynamic_fit_incremental(x int64[m], t_comp f64[m], t_xfer f64[m]|None, quantum, opts)
 *   -> (packed incremental model, packed batch model, rebuilds)
 * The incremental fit state of PLB-HAC's evaluations (csrc/dynamic/fit_inc.h) beside the batch
 * fit over the same samples (their timing: benchmarks/_fit_timeit.c). */
static PyObject *py_fit_incremental(PyObject *self, PyObject *args)
{
    PyObject *x_o, *tc_o, *tx_o, *opts;
    long long quantum;
    PyArrayObject *xa = NULL, *tca = NULL, *txa = NULL;
    PyObject *res = NULL;
    wpart_i_fitinc_t fi;
    wpart_i_fitinc_init(&fi);
    if (!PyArg_ParseTuple(args, "OOOLO!:dynamic_fit_incremental", &x_o, &tc_o, &tx_o, &quantum,
                          &PyDict_Type, &opts)) {
        return NULL;
    }
    wpart_dynamic_plbhac_cfg_t c; /* only its fit options */
    wpart_dynamic_plbhac_cfg_paper(&c);
    if (get_fit_opts(opts, &c.fit) < 0) {
        goto fail;
    }
    c.fit.window = 0;
    xa = wpy_input_array(x_o, "x", NPY_INT64, 1, 1);
    tca = xa ? wpy_input_array(tc_o, "t_comp", NPY_FLOAT64, 1, 1) : NULL;
    if (!tca) {
        goto fail;
    }
    if (tx_o != Py_None && !(txa = wpy_input_array(tx_o, "t_xfer", NPY_FLOAT64, 1, 1))) {
        goto fail;
    }
    npy_intp m = PyArray_DIM(xa, 0);
    if (PyArray_DIM(tca, 0) != m || (txa && PyArray_DIM(txa, 0) != m)) {
        PyErr_SetString(wpy_ValueError, "`x`, `t_comp` and `t_xfer` must have the same length");
        goto fail;
    }
    const int64_t *x = PyArray_DATA(xa);
    const double *tc = PyArray_DATA(tca), *tx = txa ? PyArray_DATA(txa) : NULL;
    wpart_dynamic_model_t mb, mi;
    double pb[WPART_DYN_PACKED], pi[WPART_DYN_PACKED];
    wpart_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = wpart_dynamic_model_fit(x, tc, tx, (int64_t)m, quantum, &c.fit, NULL, &mb);
    if (st == WPART_OK) {
        st = wpart_i_fitinc_fit_all(&fi, &c.fit, x, tc, tx, (int64_t)m, quantum, &mi);
    }
    Py_END_ALLOW_THREADS
    if (st != WPART_OK) {
        wpy_raise(st, "dynamic_fit_incremental");
        goto fail;
    }
    wpart_dynamic_model_pack(&mi, pi);
    wpart_dynamic_model_pack(&mb, pb);
    npy_intp dims[1] = {WPART_DYN_PACKED};
    PyObject *ai = PyArray_SimpleNew(1, dims, NPY_FLOAT64);
    PyObject *ab = PyArray_SimpleNew(1, dims, NPY_FLOAT64);
    if (ai && ab) {
        memcpy(PyArray_DATA((PyArrayObject *)ai), pi, sizeof pi);
        memcpy(PyArray_DATA((PyArrayObject *)ab), pb, sizeof pb);
        res = Py_BuildValue("(NNL)", ai, ab, (long long)fi.n_rebuild);
    } else {
        WPY_XDECREF(ai, ab);
    }
fail:
    wpart_i_fitinc_free(&fi);
    WPY_XDECREF(xa, tca, txa);
    return res;
}

/* The functions (their signatures: wpart/_core.pyi):
 * - dynamic_plbhac(n, total, kinds, opts, min_block, cap, hec) -> Balancer
 * - dynamic_plbhac_current(bal) -> (X, T_pred, S_eff, S, version)
 * - dynamic_plbhac_models(bal) -> packed models [n, 23]
 * - dynamic_plbhac_min_blocks(bal) -> int64[n]
 * - dynamic_fit_incremental(x, t_comp, t_xfer, quantum, opts) -> (inc, batch, rebuilds) */
static PyMethodDef plbhac_methods[] = {
    {"dynamic_plbhac", py_plbhac, METH_VARARGS, NULL},
    {"dynamic_plbhac_current", py_current, METH_VARARGS, NULL},
    {"dynamic_plbhac_models", py_models, METH_VARARGS, NULL},
    {"dynamic_plbhac_min_blocks", py_min_blocks, METH_VARARGS, NULL},
    {"dynamic_fit_incremental", py_fit_incremental, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

WPY_DEFINE_INIT(dynamic_plbhac, plbhac_methods)
