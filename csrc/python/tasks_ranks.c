/* tasks_ranks.c -- bindings of the rank-side steps of the distributed CCM-LB engine
 * (csrc/tasks/ranks_*.c): the estimate of an exchange from two summaries. */
#include <math.h>
#include <string.h>

#include "wpy.h"

#include "wpart/tasks_ranks.h"

/* An exact-dtype, C-contiguous 1-D array of the tuple's item i (borrowed; NULL: error). */
static PyArrayObject *item_array(PyObject *t, Py_ssize_t i, int typenum, npy_intp *n)
{
    PyObject *o = PyTuple_GET_ITEM(t, i);
    if (!PyArray_Check(o) || PyArray_TYPE((PyArrayObject *)o) != typenum ||
        PyArray_NDIM((PyArrayObject *)o) != 1 || !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)o)) {
        PyErr_Format(wpy_TypeError, "summary field %zd: expected a contiguous 1-D array of "
                     "type %d", i, typenum);
        return NULL;
    }
    *n = PyArray_DIM((PyArrayObject *)o, 0);
    return (PyArrayObject *)o;
}

/* (rank, blk, cptr, bid, load, fp, wk, cout, cin, cself, bsize, pinned, crank, bhome,
 *  baseline, cap, alpha) -> summary (views into the arrays, borrowed from the tuple) */
static int summary_parse(PyObject *t, wpart_tasks_rank_summary_t *s)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 17) {
        PyErr_SetString(wpy_TypeError, "a summary is a tuple of 17 fields");
        return -1;
    }
    static const int types[13] = {NPY_INT64, NPY_INT64, NPY_INT64, NPY_FLOAT64, NPY_FLOAT64,
                                  NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64,
                                  NPY_FLOAT64, NPY_UINT8, NPY_INT32, NPY_INT32};
    void *ptr[13];
    npy_intp len[13];
    for (int i = 0; i < 13; i++) {
        PyArrayObject *a = item_array(t, i + 1, types[i], &len[i]);
        if (!a) return -1;
        ptr[i] = PyArray_DATA(a);
    }
    long rank = PyLong_AsLong(PyTuple_GET_ITEM(t, 0));
    s->baseline = PyFloat_AsDouble(PyTuple_GET_ITEM(t, 14));
    s->cap = PyFloat_AsDouble(PyTuple_GET_ITEM(t, 15));
    s->alpha = PyFloat_AsDouble(PyTuple_GET_ITEM(t, 16));
    if (PyErr_Occurred()) return -1;
    npy_intp n = len[0];
    if (len[1] != n + 1 || len[3] != n || len[4] != n || len[5] != n || len[8] != n ||
        len[10] != n || len[6] != len[11] || len[7] != len[11] || len[9] != len[2] ||
        len[12] != len[2] || n > INT32_MAX || len[11] > INT32_MAX || len[2] > INT32_MAX) {
        PyErr_SetString(wpy_ValueError, "summary arrays of inconsistent lengths");
        return -1;
    }
    s->rank = (int32_t)rank;
    s->n = (int32_t)n;
    s->n_pairs = (int32_t)len[11];
    s->n_blocks = (int32_t)len[2];
    s->blk = ptr[0];
    s->cptr = ptr[1];
    s->bid = ptr[2];
    s->load = ptr[3];
    s->fp = ptr[4];
    s->wk = ptr[5];
    s->cout = ptr[6];
    s->cin = ptr[7];
    s->cself = ptr[8];
    s->bsize = ptr[9];
    s->pinned = ptr[10];
    s->crank = ptr[11];
    s->bhome = ptr[12];
    return 0;
}

static PyObject *wpy_tasks_ranks_estimate(PyObject *self, PyObject *args)
{
    PyObject *ta, *tb;
    wpart_tasks_coeffs_t c;
    int cluster, singles, one_way, split_always, per_rank, fallback;
    double tol, comm_thresh;
    long long cross;
    wpart_tasks_coeffs_init(&c);
    if (!PyArg_ParseTuple(args, "OO(ddddp)iiiiddLpp", &ta, &tb, &c.alpha, &c.beta, &c.gamma,
                          &c.delta, &c.enforce_memory, &cluster, &singles, &one_way,
                          &split_always, &tol, &comm_thresh, &cross, &per_rank, &fallback)) {
        return NULL;
    }
    wpart_tasks_rank_summary_t a, b;
    if (summary_parse(ta, &a) < 0 || summary_parse(tb, &b) < 0) return NULL;
    npy_intp na = a.n, nb = b.n;
    PyArrayObject *give = (PyArrayObject *)PyArray_EMPTY(1, &na, NPY_INT32, 0);
    PyArrayObject *take = give ? (PyArrayObject *)PyArray_EMPTY(1, &nb, NPY_INT32, 0) : NULL;
    if (!take) {
        Py_XDECREF(give);
        return NULL;
    }
    wpart_tasks_lb_params_t prm;
    wpart_tasks_lb_params_init(&prm);
    prm.cluster = cluster;
    prm.singles = singles;
    prm.one_way = one_way;
    prm.split_always = split_always;
    prm.tol = tol;
    wpart_tasks_pair_step_t out = {0, 0.0, 0.0, PyArray_DATA(give), PyArray_DATA(take), 0, 0};
    wpart_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = wpart_tasks_ranks_estimate(&a, &b, &c, &prm, comm_thresh, (int64_t)cross, per_rank,
                                    fallback, &out);
    Py_END_ALLOW_THREADS
    PyObject *res = NULL;
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
    } else {
        PyObject *g = PySequence_GetSlice((PyObject *)give, 0, out.n_give);
        PyObject *k = g ? PySequence_GetSlice((PyObject *)take, 0, out.n_take) : NULL;
        if (k) res = Py_BuildValue("iddNN", (int)out.found, out.dexc, out.gain, g, k);
        else Py_XDECREF(g);
    }
    Py_DECREF(give);
    Py_DECREF(take);
    return res;
}

/* (rank, gid, blk, eid, esrc, edst, bid, pinned, load, fp, wk, ebytes, bsize, bhome,
 *  baseline, cap, alpha) -> records (views into the arrays, borrowed from the tuple) */
static int records_parse(PyObject *t, wpart_tasks_rank_records_t *s)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 17) {
        PyErr_SetString(wpy_TypeError, "rank records are a tuple of 17 fields");
        return -1;
    }
    static const int types[13] = {NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT64,
                                  NPY_INT64, NPY_INT64, NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64,
                                  NPY_FLOAT64, NPY_FLOAT64, NPY_INT32};
    void *ptr[13];
    npy_intp len[13];
    for (int i = 0; i < 13; i++) {
        PyArrayObject *a = item_array(t, i + 1, types[i], &len[i]);
        if (!a) return -1;
        ptr[i] = PyArray_DATA(a);
    }
    long rank = PyLong_AsLong(PyTuple_GET_ITEM(t, 0));
    s->baseline = PyFloat_AsDouble(PyTuple_GET_ITEM(t, 14));
    s->cap = PyFloat_AsDouble(PyTuple_GET_ITEM(t, 15));
    s->alpha = PyFloat_AsDouble(PyTuple_GET_ITEM(t, 16));
    if (PyErr_Occurred()) return -1;
    npy_intp n = len[0], m = len[2], nb = len[5];
    if (len[1] != n || len[7] != n || len[8] != n || len[9] != n || len[3] != m ||
        len[4] != m || len[10] != m || len[11] != nb || len[12] != nb || n > INT32_MAX ||
        m > INT32_MAX || nb > INT32_MAX || len[6] > INT32_MAX) {
        PyErr_SetString(wpy_ValueError, "rank record arrays of inconsistent lengths");
        return -1;
    }
    s->rank = (int32_t)rank;
    s->n = (int32_t)n;
    s->m = (int32_t)m;
    s->n_blocks = (int32_t)nb;
    s->n_pinned = (int32_t)len[6];
    s->gid = ptr[0];
    s->blk = ptr[1];
    s->eid = ptr[2];
    s->esrc = ptr[3];
    s->edst = ptr[4];
    s->bid = ptr[5];
    s->pinned = ptr[6];
    s->load = ptr[7];
    s->fp = ptr[8];
    s->wk = ptr[9];
    s->ebytes = ptr[10];
    s->bsize = ptr[11];
    s->bhome = ptr[12];
    return 0;
}

/* tasks_ranks_pair(a, b or None, coeffs, best, cluster, singles, one_way, split_always, tol,
 * comm_thresh): best -> (found, dexc, gain, give gids, take gids); else W of a. */
static PyObject *wpy_tasks_ranks_pair(PyObject *self, PyObject *args)
{
    PyObject *ta, *tb;
    wpart_tasks_coeffs_t c;
    int best, cluster, singles, one_way, split_always;
    double tol, comm_thresh;
    wpart_tasks_coeffs_init(&c);
    if (!PyArg_ParseTuple(args, "OO(ddddp)piiiidd", &ta, &tb, &c.alpha, &c.beta, &c.gamma,
                          &c.delta, &c.enforce_memory, &best, &cluster, &singles, &one_way,
                          &split_always, &tol, &comm_thresh)) {
        return NULL;
    }
    wpart_tasks_rank_records_t a, b;
    if (records_parse(ta, &a) < 0) return NULL;
    if (tb == Py_None) {
        memset(&b, 0, sizeof(b));
        b.rank = -1;
        b.cap = INFINITY;
        b.alpha = NAN;
    } else if (records_parse(tb, &b) < 0) {
        return NULL;
    }
    wpart_tasks_lb_params_t prm;
    wpart_tasks_lb_params_init(&prm);
    prm.cluster = cluster;
    prm.singles = singles;
    prm.one_way = one_way;
    prm.split_always = split_always;
    prm.tol = tol;
    wpart_status_t st;
    if (!best) {
        double w = 0.0;
        Py_BEGIN_ALLOW_THREADS
        st = wpart_tasks_ranks_pair(&a, &b, &c, &prm, comm_thresh, NULL, NULL, NULL, &w);
        Py_END_ALLOW_THREADS
        if (st != WPART_OK) return wpy_raise(st, NULL);
        return PyFloat_FromDouble(w);
    }
    npy_intp na = a.n, nb = b.n;
    PyArrayObject *give = (PyArrayObject *)PyArray_EMPTY(1, &na, NPY_INT64, 0);
    PyArrayObject *take = give ? (PyArrayObject *)PyArray_EMPTY(1, &nb, NPY_INT64, 0) : NULL;
    if (!take) {
        Py_XDECREF(give);
        return NULL;
    }
    wpart_tasks_pair_step_t out = {0, 0.0, 0.0, NULL, NULL, 0, 0};
    Py_BEGIN_ALLOW_THREADS
    st = wpart_tasks_ranks_pair(&a, &b, &c, &prm, comm_thresh, &out, PyArray_DATA(give),
                                PyArray_DATA(take), NULL);
    Py_END_ALLOW_THREADS
    PyObject *res = NULL;
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
    } else {
        PyObject *g = PySequence_GetSlice((PyObject *)give, 0, out.n_give);
        PyObject *k = g ? PySequence_GetSlice((PyObject *)take, 0, out.n_take) : NULL;
        if (k) res = Py_BuildValue("iddNN", (int)out.found, out.dexc, out.gain, g, k);
        else Py_XDECREF(g);
    }
    Py_DECREF(give);
    Py_DECREF(take);
    return res;
}

static PyMethodDef tasks_ranks_methods[] = {
    {"tasks_ranks_pair", wpy_tasks_ranks_pair, METH_VARARGS,
     "The exact pair step of two ranks' records (or W of one rank)."},
    {"tasks_ranks_estimate", wpy_tasks_ranks_estimate, METH_VARARGS,
     "The best exchange of two ranks estimated from their summaries."},
    {NULL, NULL, 0, NULL}};

int wpy_tasks_ranks_init(PyObject *m) { return PyModule_AddFunctions(m, tasks_ranks_methods); }
