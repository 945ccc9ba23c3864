/* dynamic_baselines.c -- binding of wpart.dynamic's baselines (the paper's competitors and a
 * few more): constructors that return wpart._core.Balancer objects, HDSS's weights and the
 * proportional split. Validation of the Python-level arguments happens in
 * wpart/dynamic/_baselines.py; the C constructors check again and their messages name the
 * arguments. */
#include "wpy.h"

/* The constructors: parse the arguments of operation op, build the balancer, wrap it (a
 * failure raises the core's error; dynamic_static names `blocks`). */
enum { GREEDY, NAIVE, ACOSTA, HDSS, ASYMMETRIC, STATIC, STATIC_PEAK, DMDA, FIXED_BLOCKS };

static PyObject *new_balancer(PyObject *args, int op)
{
    int n = 0, flag = 0;
    long long total = 0, k1 = 0, k2 = 0;
    double d1 = 0.0;
    PyObject *obj = NULL;
    PyArrayObject *v = NULL; /* the per-PU vector argument */
    wpart_dynamic_hdss_cfg_t c;
    wpart_dynamic_balancer_t *b = NULL;
    wpart_status_t st = WPART_OK;
    switch (op) {
    case GREEDY:
        if (!PyArg_ParseTuple(args, "iLL:dynamic_greedy", &n, &total, &k1)) {
            return NULL;
        }
        st = wpart_dynamic_greedy_new(n, total, k1, &b);
        break;
    case NAIVE:
        if (!PyArg_ParseTuple(args, "iLL:dynamic_naive", &n, &total, &k1)) {
            return NULL;
        }
        st = wpart_dynamic_naive_new(n, total, k1, &b);
        break;
    case ACOSTA:
        if (!PyArg_ParseTuple(args, "iLLdp:dynamic_acosta", &n, &total, &k1, &d1, &flag)) {
            return NULL;
        }
        st = wpart_dynamic_acosta_new(n, total, k1, d1, flag, &b);
        break;
    case HDSS:
        wpart_dynamic_hdss_cfg_default(&c);
        if (!PyArg_ParseTuple(args, "iLLdiddL:dynamic_hdss", &n, &total, &k1, &c.eps, &flag,
                              &c.adapt_fraction, &c.kappa, &k2)) {
            return NULL;
        }
        c.x_init = k1;
        c.rounds_max = flag;
        c.min_chunk = k2;
        st = wpart_dynamic_hdss_new(n, total, &c, &b);
        break;
    case ASYMMETRIC:
        if (!PyArg_ParseTuple(args, "LOLL:dynamic_asymmetric", &total, &obj, &k1, &k2) ||
            !(v = wpy_input_pu_vector(obj, "pu_kinds", NPY_INT32, "kinds", &n))) {
            return NULL;
        }
        st = wpart_dynamic_asymmetric_new(n, total, PyArray_DATA(v), k1, k2, &b);
        break;
    case STATIC:
        if (!PyArg_ParseTuple(args, "O:dynamic_static", &obj) ||
            !(v = wpy_input_pu_vector(obj, "blocks", NPY_INT64, "sizes", &n))) {
            return NULL;
        }
        st = wpart_dynamic_static_new(n, PyArray_DATA(v), &b);
        break;
    case STATIC_PEAK:
        if (!PyArg_ParseTuple(args, "LO:dynamic_static_peak", &total, &obj) ||
            !(v = wpy_input_pu_vector(obj, "peak_rates", NPY_FLOAT64, "values", &n))) {
            return NULL;
        }
        st = wpart_dynamic_static_peak_new(n, total, PyArray_DATA(v), &b);
        break;
    case DMDA:
        if (!PyArg_ParseTuple(args, "LOL:dynamic_dmda", &total, &obj, &k1) ||
            !(v = wpy_input_pu_vector(obj, "piece_times", NPY_FLOAT64, "values", &n))) {
            return NULL;
        }
        st = wpart_dynamic_dmda_new(n, total, PyArray_DATA(v), k1, &b);
        break;
    default:
        if (!PyArg_ParseTuple(args, "LOp:dynamic_fixed_blocks", &total, &obj, &flag) ||
            !(v = wpy_input_pu_vector(obj, "blocks", NPY_INT64, "sizes", &n))) {
            return NULL;
        }
        st = wpart_dynamic_fixed_blocks_new(n, total, PyArray_DATA(v), flag, &b);
        break;
    }
    Py_XDECREF(v);
    if (st != WPART_OK) {
        return wpy_raise(st, op == STATIC ? "blocks" : NULL);
    }
    return wpy_balancer_wrap(b);
}

#define NEW_BALANCER(fn, op)                                                                  \
    static PyObject *fn(PyObject *self, PyObject *args) { return new_balancer(args, op); }
NEW_BALANCER(py_greedy, GREEDY)
NEW_BALANCER(py_naive, NAIVE)
NEW_BALANCER(py_acosta, ACOSTA)
NEW_BALANCER(py_hdss, HDSS)
NEW_BALANCER(py_asymmetric, ASYMMETRIC)
NEW_BALANCER(py_static, STATIC)
NEW_BALANCER(py_static_peak, STATIC_PEAK)
NEW_BALANCER(py_dmda, DMDA)
NEW_BALANCER(py_fixed_blocks, FIXED_BLOCKS)

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

static PyObject *py_split(PyObject *self, PyObject *args)
{
    PyObject *obj;
    long long total;
    if (!PyArg_ParseTuple(args, "LO:dynamic_split_proportional", &total, &obj)) {
        return NULL;
    }
    int32_t n;
    PyArrayObject *w = wpy_input_pu_vector(obj, "weights", NPY_FLOAT64, "values", &n);
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
 * - dynamic_greedy(m, n, chunk)
 * - dynamic_static(blocks)
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
    {"dynamic_greedy", py_greedy, METH_VARARGS, NULL},
    {"dynamic_static", py_static, METH_VARARGS, NULL},
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
