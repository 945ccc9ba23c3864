/* dynamic.c -- binding of wpart.dynamic: the Balancer type and the simple baselines.
 *
 * A wpart._core.Balancer owns one C balancer and one action buffer. Its protocol methods
 * return lists of action tuples
 *   (kind, pu, block_id, offset, size, block_kind, vstep, model_version, pred_end, token)
 * with kind 0 = assign, 1 = eval; wpart/dynamic/_balancer.py wraps them into Action tuples.
 * Only one thread may call the protocol at a time, except eval_run (which releases the GIL
 * and may run concurrently with on_complete, as the protocol allows).
 */
#include "wpy.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
    PyObject_HEAD
    wpart_dynamic_balancer_t *b;
    wpart_dynamic_action_t *buf;
    int64_t cap;
    int busy; /* a driver runs it with the GIL released */
} BalancerObject;

static PyTypeObject Balancer_Type;

static void Balancer_dealloc(BalancerObject *self)
{
    wpart_dynamic_balancer_free(self->b);
    free(self->buf);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyObject *wpy_balancer_wrap(struct wpart_dynamic_balancer *b)
{
    BalancerObject *o = PyObject_New(BalancerObject, &Balancer_Type);
    if (!o) {
        wpart_dynamic_balancer_free(b);
        return NULL;
    }
    o->b = b;
    o->busy = 0;
    o->cap = wpart_dynamic_balancer_max_actions(b);
    o->buf = wpart_i_calloc(o->cap, sizeof(wpart_dynamic_action_t));
    if (!o->buf) {
        Py_DECREF(o);
        return wpy_nomem();
    }
    return (PyObject *)o;
}

struct wpart_dynamic_balancer *wpy_balancer_get(PyObject *obj, const char *name)
{
    if (!PyObject_TypeCheck(obj, &Balancer_Type)) {
        PyErr_Format(wpy_TypeError, "%s must be a wpart.dynamic balancer, got %.100s", name,
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return ((BalancerObject *)obj)->b;
}

int wpy_balancer_acquire(PyObject *obj)
{
    BalancerObject *o = (BalancerObject *)obj;
    if (o->busy) {
        PyErr_SetString(wpy_RuntimeError, "balancer is in use by another driver");
        return -1;
    }
    o->busy = 1;
    return 0;
}

void wpy_balancer_release(PyObject *obj) { ((BalancerObject *)obj)->busy = 0; }

static int not_busy(BalancerObject *self)
{
    if (self->busy) {
        PyErr_SetString(wpy_RuntimeError, "balancer is in use by a driver (simulate/run)");
        return 0;
    }
    return 1;
}

static PyObject *actions_list(const wpart_dynamic_actions_t *acts)
{
    PyObject *lst = PyList_New((Py_ssize_t)acts->n);
    if (!lst) {
        return NULL;
    }
    for (int64_t i = 0; i < acts->n; i++) {
        const wpart_dynamic_action_t *a = &acts->a[i];
        PyObject *t = Py_BuildValue("(iiLLLiiidL)", (int)a->kind, (int)a->a.pu,
                                    (long long)a->a.block_id, (long long)a->a.offset,
                                    (long long)a->a.size, (int)a->a.kind, (int)a->a.vstep,
                                    (int)a->a.model_version, a->a.pred_end, (long long)a->token);
        if (!t) {
            Py_DECREF(lst);
            return NULL;
        }
        PyList_SET_ITEM(lst, (Py_ssize_t)i, t);
    }
    return lst;
}

static PyObject *Balancer_start(BalancerObject *self, PyObject *args)
{
    double now = 0.0;
    if (!PyArg_ParseTuple(args, "|d:start", &now) || !not_busy(self)) {
        return NULL;
    }
    wpart_dynamic_actions_t acts = {self->buf, 0, self->cap};
    wpart_status_t st = wpart_dynamic_balancer_start(self->b, now, &acts);
    if (st != WPART_OK) {
        return wpy_raise(st, "start");
    }
    return actions_list(&acts);
}

static PyObject *Balancer_on_complete(BalancerObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"pu", "block_id", "t_xfer", "t_comp", "now", NULL};
    int pu;
    long long block_id;
    double t_xfer, t_comp, now;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iLddd:on_complete", kwlist, &pu, &block_id,
                                     &t_xfer, &t_comp, &now) ||
        !not_busy(self)) {
        return NULL;
    }
    wpart_dynamic_completion_t c = {pu, block_id, t_xfer, t_comp, now};
    wpart_dynamic_actions_t acts = {self->buf, 0, self->cap};
    wpart_status_t st = wpart_dynamic_balancer_complete(self->b, &c, &acts);
    if (st != WPART_OK) {
        return wpy_raise(st, "on_complete");
    }
    return actions_list(&acts);
}

int wpy_dynamic_pybal_reraise(struct wpart_dynamic_balancer *b); /* dynamic_sim.c */

static PyObject *Balancer_eval_run(BalancerObject *self, PyObject *args)
{
    long long token;
    if (!PyArg_ParseTuple(args, "L:eval_run", &token)) {
        return NULL;
    }
    wpart_status_t st;
    wpy_control_t ctl; /* Ctrl-C stops a long evaluation */
    wpy_control_setup(&ctl, NULL, 0.0);
    WPY_NOGIL(st = wpart_dynamic_balancer_eval_run_ctl(self->b, token, &ctl.ctl));
    if (st != WPART_OK && wpy_dynamic_pybal_reraise(self->b)) {
        return NULL; /* a balancer written in Python raised: its own exception */
    }
    if (st != WPART_OK) {
        return wpy_raise(st, "eval_run");
    }
    Py_RETURN_NONE;
}

static PyObject *Balancer_eval_done(BalancerObject *self, PyObject *args)
{
    long long token;
    double now;
    if (!PyArg_ParseTuple(args, "Ld:eval_done", &token, &now) || !not_busy(self)) {
        return NULL;
    }
    wpart_dynamic_actions_t acts = {self->buf, 0, self->cap};
    wpart_status_t st = wpart_dynamic_balancer_eval_done(self->b, token, now, &acts);
    if (st != WPART_OK) {
        return wpy_raise(st, "eval_done");
    }
    return actions_list(&acts);
}

static PyObject *Balancer_idle_reason(BalancerObject *self, PyObject *args)
{
    int pu;
    if (!PyArg_ParseTuple(args, "i:idle_reason", &pu)) {
        return NULL;
    }
    return PyLong_FromLong(wpart_dynamic_balancer_idle_reason(self->b, pu));
}

static PyObject *Balancer_stats(BalancerObject *self, PyObject *noargs)
{
    wpart_dynamic_balancer_stats_t s;
    wpart_dynamic_balancer_stats(self->b, &s);
    return Py_BuildValue("{sLsLsLsLsLsLsi}", "cursor", (long long)s.cursor, "completed",
                         (long long)s.completed, "n_blocks", (long long)s.n_blocks, "in_flight",
                         (long long)s.in_flight, "n_evals", (long long)s.n_evals, "n_barriers",
                         (long long)s.n_barriers, "eval_in_flight", (int)s.eval_in_flight);
}

static PyObject *Balancer_series(BalancerObject *self, PyObject *noargs)
{
    const double *rows;
    int64_t n_rows;
    wpart_dynamic_balancer_series(self->b, &rows, &n_rows);
    npy_intp dims[2] = {(npy_intp)n_rows, 4 + wpart_dynamic_balancer_n_pu(self->b)};
    PyObject *arr = PyArray_SimpleNew(2, dims, NPY_FLOAT64);
    if (!arr) {
        return NULL;
    }
    if (n_rows > 0) {
        memcpy(PyArray_DATA((PyArrayObject *)arr), rows,
               (size_t)(dims[0] * dims[1]) * sizeof(double));
    }
    return arr;
}

static PyObject *Balancer_shares(BalancerObject *self, PyObject *noargs)
{
    npy_intp n = wpart_dynamic_balancer_n_pu(self->b);
    PyObject *arr = PyArray_SimpleNew(1, &n, NPY_FLOAT64);
    if (!arr) {
        return NULL;
    }
    if (wpart_dynamic_balancer_shares(self->b, PyArray_DATA((PyArrayObject *)arr)) != 0) {
        Py_DECREF(arr);
        Py_RETURN_NONE;
    }
    return arr;
}

static PyObject *Balancer_get_done(BalancerObject *self, void *closure)
{
    return PyBool_FromLong(wpart_dynamic_balancer_done(self->b));
}

static PyObject *Balancer_get_name(BalancerObject *self, void *closure)
{
    return PyUnicode_FromString(wpart_dynamic_balancer_name(self->b));
}

static PyObject *Balancer_get_n_pu(BalancerObject *self, void *closure)
{
    return PyLong_FromLong(wpart_dynamic_balancer_n_pu(self->b));
}

static PyObject *Balancer_get_total(BalancerObject *self, void *closure)
{
    return PyLong_FromLongLong(wpart_dynamic_balancer_total(self->b));
}

/* The functions (their signatures: wpart/_core.pyi):
 * - start(now=0.0) -> list of actions
 * - on_complete(pu, block_id, t_xfer, t_comp, now) -> actions
 * - eval_run(token): the evaluation (GIL released; any thread)
 * - eval_done(token, now) -> list of actions
 * - idle_reason(pu) -> 0 other, 1 barrier, 2 eval, 3 starved
 * - stats: counters as a dict
 * - series: published series: rows [t, version, T_pred, S_eff, X_0..X_{n-1}]
 * - shares: step shares in percent, or None */
static PyMethodDef Balancer_methods[] = {
    {"start", (PyCFunction)Balancer_start, METH_VARARGS, NULL},
    {"on_complete", WPY_CFUNC(Balancer_on_complete), WPY_KW, NULL},
    {"eval_run", (PyCFunction)Balancer_eval_run, METH_VARARGS, NULL},
    {"eval_done", (PyCFunction)Balancer_eval_done, METH_VARARGS, NULL},
    {"idle_reason", (PyCFunction)Balancer_idle_reason, METH_VARARGS, NULL},
    {"stats", (PyCFunction)Balancer_stats, METH_NOARGS, NULL},
    {"series", (PyCFunction)Balancer_series, METH_NOARGS, NULL},
    {"shares", (PyCFunction)Balancer_shares, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Balancer_getset[] = {
    {"done", (getter)Balancer_get_done, NULL, "all data dispatched and completed", NULL},
    {"name", (getter)Balancer_get_name, NULL, "algorithm name", NULL},
    {"m", (getter)Balancer_get_n_pu, NULL, "number of processing units", NULL},
    {"n", (getter)Balancer_get_total, NULL, "elements to process (W)", NULL},
    {"n_pu", (getter)Balancer_get_n_pu, NULL, "number of processing units (old name of m)", NULL},
    {"total", (getter)Balancer_get_total, NULL, "elements to process (old name of n)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject Balancer_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "wpart._core.Balancer",
    .tp_basicsize = sizeof(BalancerObject),
    .tp_dealloc = (destructor)Balancer_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A wpart.dynamic balancer (C state machine). Use the wpart.dynamic classes.",
    .tp_methods = Balancer_methods,
    .tp_getset = Balancer_getset,
};

int wpy_dynamic_init(PyObject *m)
{
    if (PyType_Ready(&Balancer_Type) < 0) {
        return -1;
    }
    Py_INCREF(&Balancer_Type);
    if (PyModule_AddObject(m, "Balancer", (PyObject *)&Balancer_Type) < 0) {
        Py_DECREF(&Balancer_Type);
        return -1;
    }
    return 0;
}
