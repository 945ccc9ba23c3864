/* dynamic_baselines.c -- binding of wpart.dynamic's baselines (the paper's competitors and a
 * few more): constructors that return wpart._core.Balancer objects, HDSS's weights and the
 * proportional split. Validation of the Python-level arguments happens in
 * wpart/dynamic/_baselines.py; the C constructors check again and their messages name the
 * arguments. */
#include "wpy.h"

static PyObject *wrap(wpart_status_t st, wpart_dynamic_balancer_t *b, const char *what)
{
    if (st != WPART_OK) {
        return wpy_raise(st, what);
    }
    return wpy_balancer_wrap(b);
}

static PyObject *py_hdss(PyObject *self, PyObject *args)
{
    int n;
    long long total, x_init, min_chunk;
    int rounds_max;
    double eps, adapt_fraction, kappa;
    if (!PyArg_ParseTuple(args, "iLLdiddL:dynamic_hdss", &n, &total, &x_init, &eps, &rounds_max,
                          &adapt_fraction, &kappa, &min_chunk)) {
        return NULL;
    }
    wpart_dynamic_hdss_cfg_t c;
    wpart_dynamic_hdss_cfg_default(&c);
    c.x_init = x_init;
    c.eps = eps;
    c.rounds_max = rounds_max;
    c.adapt_fraction = adapt_fraction;
    c.kappa = kappa;
    c.min_chunk = min_chunk;
    wpart_dynamic_balancer_t *b = NULL;
    wpart_status_t st = wpart_dynamic_hdss_new(n, total, &c, &b);
    return wrap(st, b, NULL);
}

static PyObject *py_hdss_weights(PyObject *self, PyObject *args)
{
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "O:dynamic_hdss_weights", &obj)) {
        return NULL;
    }
    wpart_dynamic_balancer_t *b = wpy_balancer_get(obj, "balancer");
    if (!b) {
        return NULL;
    }
    npy_intp n = wpart_dynamic_balancer_n_pu(b);
    PyObject *arr = PyArray_SimpleNew(1, &n, NPY_FLOAT64);
    if (!arr) {
        return NULL;
    }
    if (wpart_dynamic_hdss_weights(b, PyArray_DATA((PyArrayObject *)arr)) != 0) {
        Py_DECREF(arr);
        Py_RETURN_NONE;
    }
    return arr;
}

static PyObject *py_acosta(PyObject *self, PyObject *args)
{
    int n, eval_at_barrier;
    long long total, step;
    double threshold;
    if (!PyArg_ParseTuple(args, "iLLdp:dynamic_acosta", &n, &total, &step, &threshold,
                          &eval_at_barrier)) {
        return NULL;
    }
    wpart_dynamic_balancer_t *b = NULL;
    wpart_status_t st = wpart_dynamic_acosta_new(n, total, step, threshold, eval_at_barrier, &b);
    return wrap(st, b, NULL);
}

static PyObject *py_naive(PyObject *self, PyObject *args)
{
    int n;
    long long total, x_init;
    if (!PyArg_ParseTuple(args, "iLL:dynamic_naive", &n, &total, &x_init)) {
        return NULL;
    }
    wpart_dynamic_balancer_t *b = NULL;
    wpart_status_t st = wpart_dynamic_naive_new(n, total, x_init, &b);
    return wrap(st, b, NULL);
}

static PyObject *py_asymmetric(PyObject *self, PyObject *args)
{
    PyObject *kinds_obj;
    long long total, g_cpu, ratio;
    if (!PyArg_ParseTuple(args, "LOLL:dynamic_asymmetric", &total, &kinds_obj, &g_cpu, &ratio)) {
        return NULL;
    }
    int32_t n;
    PyArrayObject *kinds = wpy_input_pu_vector(kinds_obj, "pu_kinds", NPY_INT32, "kinds", &n);
    if (!kinds) {
        return NULL;
    }
    wpart_dynamic_balancer_t *b = NULL;
    wpart_status_t st = wpart_dynamic_asymmetric_new(
        (int32_t)n, total, (const int32_t *)PyArray_DATA(kinds), g_cpu, ratio, &b);
    Py_DECREF(kinds);
    return wrap(st, b, NULL);
}

/* A 1-D float64 per-PU vector, or NULL with an exception. */
static PyArrayObject *vec(PyObject *obj, const char *name, int32_t *n)
{
    return wpy_input_pu_vector(obj, name, NPY_FLOAT64, "values", n);
}

static PyObject *py_static_peak(PyObject *self, PyObject *args)
{
    PyObject *obj;
    long long total;
    if (!PyArg_ParseTuple(args, "LO:dynamic_static_peak", &total, &obj)) {
        return NULL;
    }
    int32_t n;
    PyArrayObject *r = vec(obj, "peak_rates", &n);
    if (!r) {
        return NULL;
    }
    wpart_dynamic_balancer_t *b = NULL;
    wpart_status_t st = wpart_dynamic_static_peak_new((int32_t)n, total,
                                                      (const double *)PyArray_DATA(r), &b);
    Py_DECREF(r);
    return wrap(st, b, NULL);
}

static PyObject *py_dmda(PyObject *self, PyObject *args)
{
    PyObject *obj;
    long long total, chunk;
    if (!PyArg_ParseTuple(args, "LOL:dynamic_dmda", &total, &obj, &chunk)) {
        return NULL;
    }
    int32_t n;
    PyArrayObject *t = vec(obj, "piece_times", &n);
    if (!t) {
        return NULL;
    }
    wpart_dynamic_balancer_t *b = NULL;
    wpart_status_t st =
        wpart_dynamic_dmda_new((int32_t)n, total, (const double *)PyArray_DATA(t), chunk, &b);
    Py_DECREF(t);
    return wrap(st, b, NULL);
}

static PyObject *py_fixed_blocks(PyObject *self, PyObject *args)
{
    PyObject *obj;
    long long total;
    int sync;
    if (!PyArg_ParseTuple(args, "LOp:dynamic_fixed_blocks", &total, &obj, &sync)) {
        return NULL;
    }
    int32_t n;
    PyArrayObject *blocks = wpy_input_pu_vector(obj, "blocks", NPY_INT64, "sizes", &n);
    if (!blocks) {
        return NULL;
    }
    wpart_dynamic_balancer_t *b = NULL;
    wpart_status_t st = wpart_dynamic_fixed_blocks_new(
        (int32_t)n, total, (const int64_t *)PyArray_DATA(blocks), sync, &b);
    Py_DECREF(blocks);
    return wrap(st, b, NULL);
}

static PyObject *py_split(PyObject *self, PyObject *args)
{
    PyObject *obj;
    long long total;
    if (!PyArg_ParseTuple(args, "LO:dynamic_split_proportional", &total, &obj)) {
        return NULL;
    }
    int32_t n;
    PyArrayObject *w = vec(obj, "weights", &n);
    if (!w) {
        return NULL;
    }
    npy_intp dim = n;
    PyObject *res = PyArray_SimpleNew(1, &dim, NPY_INT64);
    if (!res) {
        Py_DECREF(w);
        return NULL;
    }
    wpart_status_t st = wpart_dynamic_split_proportional(
        (int32_t)n, total, (const double *)PyArray_DATA(w),
        (int64_t *)PyArray_DATA((PyArrayObject *)res));
    Py_DECREF(w);
    if (st != WPART_OK) {
        Py_DECREF(res);
        return wpy_raise(st, NULL);
    }
    return res;
}

/* The functions (their signatures: wpart/_core.pyi):
 * - dynamic_hdss(m, n, x_init, eps, rounds_max, adapt_fraction, kappa, min_chunk)
 * - dynamic_hdss_weights(balancer) -> phase-1 weights (sum 1) or None
 * - dynamic_acosta(m, n, step, threshold, eval_at_barrier)
 * - dynamic_naive(m, n, x_init)
 * - dynamic_asymmetric(total, pu_kinds, g_cpu, ratio)
 * - dynamic_static_peak(total, peak_rates)
 * - dynamic_dmda(total, piece_times, chunk)
 * - dynamic_fixed_blocks(total, blocks, sync)
 * - dynamic_split_proportional(total, weights) -> int64 parts (largest remainder) */
static PyMethodDef baselines_methods[] = {
    {"dynamic_hdss", py_hdss, METH_VARARGS, NULL},
    {"dynamic_hdss_weights", py_hdss_weights, METH_VARARGS, NULL},
    {"dynamic_acosta", py_acosta, METH_VARARGS, NULL},
    {"dynamic_naive", py_naive, METH_VARARGS, NULL},
    {"dynamic_asymmetric", py_asymmetric, METH_VARARGS, NULL},
    {"dynamic_static_peak", py_static_peak, METH_VARARGS, NULL},
    {"dynamic_dmda", py_dmda, METH_VARARGS, NULL},
    {"dynamic_fixed_blocks", py_fixed_blocks, METH_VARARGS, NULL},
    {"dynamic_split_proportional", py_split, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

WPY_DEFINE_INIT(dynamic_baselines, baselines_methods)
