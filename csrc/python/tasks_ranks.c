/* tasks_ranks.c -- bindings of the rank-side steps of the distributed CCM-LB engine
 * (csrc/tasks/ranks_*.c): the estimate of an exchange from two summaries, the exact pair step,
 * the record moves and a rank's summary. */
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

/* The 17 fields of a rank's tuple (`what` in the TypeError when it is not one): the rank, the
 * 13 arrays of items 1..13 (exact dtypes `types`; data and lengths), then baseline, cap and
 * alpha. 0, or -1 with an exception. */
static int rank_tuple(PyObject *t, const char *what, const int types[13], void *ptr[13],
                      npy_intp len[13], long *rank, double *baseline, double *cap, double *alpha)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 17) {
        PyErr_SetString(wpy_TypeError, what);
        return -1;
    }
    for (int i = 0; i < 13; i++) {
        PyArrayObject *a = item_array(t, i + 1, types[i], &len[i]);
        if (!a) return -1;
        ptr[i] = PyArray_DATA(a);
    }
    *rank = PyLong_AsLong(PyTuple_GET_ITEM(t, 0));
    *baseline = PyFloat_AsDouble(PyTuple_GET_ITEM(t, 14));
    *cap = PyFloat_AsDouble(PyTuple_GET_ITEM(t, 15));
    *alpha = PyFloat_AsDouble(PyTuple_GET_ITEM(t, 16));
    return PyErr_Occurred() ? -1 : 0;
}

/* (rank, blk, cptr, bid, load, fp, wk, cout, cin, cself, bsize, pinned, crank, bhome,
 *  baseline, cap, alpha[, key]) -> summary (views into the arrays, borrowed from the tuple) */
static int summary_parse(PyObject *t, wpart_tasks_rank_summary_t *s)
{
    static const int types[13] = {NPY_INT64, NPY_INT64, NPY_INT64, NPY_FLOAT64, NPY_FLOAT64,
                                  NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64,
                                  NPY_FLOAT64, NPY_UINT8, NPY_INT32, NPY_INT32};
    void *ptr[13];
    npy_intp len[13], nkey = -1;
    long rank;
    PyObject *head = NULL;
    s->key = NULL;
    if (PyTuple_Check(t) && PyTuple_GET_SIZE(t) == 18) { /* the clusters' ids last */
        PyArrayObject *k = item_array(t, 17, NPY_INT64, &nkey);
        if (!k) return -1;
        s->key = PyArray_DATA(k);
        head = PyTuple_GetSlice(t, 0, 17);
        if (!head) return -1;
    }
    int bad = rank_tuple(head ? head : t, "a summary is a tuple of 17 or 18 fields", types, ptr,
                         len, &rank, &s->baseline, &s->cap, &s->alpha);
    Py_XDECREF(head); /* the arrays stay alive: the caller's tuple holds them */
    if (bad < 0) return -1;
    if (nkey >= 0 && nkey != len[0]) {
        PyErr_SetString(wpy_ValueError, "summary ids of another length than its clusters");
        return -1;
    }
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
    PyArrayObject *give, *take;
    if (wpy_give_take(a.n, b.n, NPY_INT32, &give, &take) < 0) {
        return NULL;
    }
    wpart_tasks_lb_params_t prm;
    wpy_tasks_params(&prm, cluster, singles, one_way, split_always, tol);
    wpart_tasks_pair_step_t out = {0, 0.0, 0.0, PyArray_DATA(give), PyArray_DATA(take), 0, 0};
    wpart_status_t st;
    WPY_NOGIL(st = wpart_tasks_ranks_estimate(&a, &b, &c, &prm, comm_thresh, (int64_t)cross,
                                              per_rank, fallback, &out));
    PyObject *res = wpy_step_result(st, &out, give, take);
    WPY_XDECREF(give, take);
    return res;
}

/* estimate_peers(a, (b, ...), coeffs, cluster, singles, one_way, split_always, tol,
 * comm_thresh, cross_pairs, per_rank, fallback, skip_held): ((found, dexc, gain), ...). */
static PyObject *wpy_tasks_ranks_estimate_peers(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *ta, *tbs;
    wpart_tasks_coeffs_t c;
    int cluster, singles, one_way, split_always, per_rank, fallback, skip;
    double tol, comm_thresh;
    long long cross;
    wpart_tasks_coeffs_init(&c);
    if (!PyArg_ParseTuple(args, "OO!(ddddp)iiiiddLppp", &ta, &PyTuple_Type, &tbs, &c.alpha,
                          &c.beta, &c.gamma, &c.delta, &c.enforce_memory, &cluster, &singles,
                          &one_way, &split_always, &tol, &comm_thresh, &cross, &per_rank,
                          &fallback, &skip)) {
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(tbs);
    if (n > INT32_MAX) return PyErr_Format(wpy_ValueError, "too many peer summaries");
    wpart_tasks_rank_summary_t a;
    if (summary_parse(ta, &a) < 0) return NULL;
    wpart_tasks_rank_summary_t *bs = PyMem_Calloc((size_t)n + 1, sizeof(*bs));
    uint8_t *found = PyMem_Calloc((size_t)n + 1, 1);
    double *v = PyMem_Calloc(2 * (size_t)n + 1, sizeof(double));
    PyObject *res = NULL;
    if (!bs || !found || !v) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        if (summary_parse(PyTuple_GET_ITEM(tbs, k), &bs[k]) < 0) goto done;
    wpart_tasks_lb_params_t prm;
    wpy_tasks_params(&prm, cluster, singles, one_way, split_always, tol);
    wpart_status_t st;
    WPY_NOGIL(st = wpart_tasks_ranks_estimate_peers(&a, bs, (int32_t)n, &c, &prm, comm_thresh,
                                                    (int64_t)cross, per_rank, fallback, skip,
                                                    found, v, v + n));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto done;
    }
    res = PyTuple_New(n);
    for (Py_ssize_t k = 0; res && k < n; k++) {
        PyObject *x = Py_BuildValue("Ndd", PyBool_FromLong(found[k]), v[k], v[n + k]);
        if (!x) Py_CLEAR(res);
        else PyTuple_SET_ITEM(res, k, x);
    }
done:
    PyMem_Free(bs);
    PyMem_Free(found);
    PyMem_Free(v);
    return res;
}

/* (rank, gid, blk, eid, esrc, edst, bid, pinned, load, fp, wk, ebytes, bsize, bhome,
 *  baseline, cap, alpha) -> records (views into the arrays, borrowed from the tuple) */
static int records_parse(PyObject *t, wpart_tasks_rank_records_t *s)
{
    static const int types[13] = {NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT64,
                                  NPY_INT64, NPY_INT64, NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64,
                                  NPY_FLOAT64, NPY_FLOAT64, NPY_INT32};
    void *ptr[13];
    npy_intp len[13];
    long rank;
    if (rank_tuple(t, "rank records are a tuple of 17 fields", types, ptr, len, &rank, &s->baseline,
                   &s->cap, &s->alpha) < 0) {
        return -1;
    }
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
 * comm_thresh[, mixed]): best -> (found, dexc, gain, give gids, take gids); else W of a. */
static PyObject *wpy_tasks_ranks_pair(PyObject *self, PyObject *args)
{
    PyObject *ta, *tb;
    wpart_tasks_coeffs_t c;
    int best, cluster, singles, one_way, split_always, mixed = 0;
    double tol, comm_thresh;
    wpart_tasks_coeffs_init(&c);
    if (!PyArg_ParseTuple(args, "OO(ddddp)piiiidd|p", &ta, &tb, &c.alpha, &c.beta, &c.gamma,
                          &c.delta, &c.enforce_memory, &best, &cluster, &singles, &one_way,
                          &split_always, &tol, &comm_thresh, &mixed)) {
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
    wpy_tasks_params(&prm, cluster, singles, one_way, split_always, tol);
    wpart_status_t st;
    if (!best) {
        double w = 0.0;
        WPY_NOGIL(st = wpart_tasks_ranks_pair(&a, &b, &c, &prm, comm_thresh, 0, NULL, NULL, NULL,
                                              &w));
        if (st != WPART_OK) return wpy_raise(st, NULL);
        return PyFloat_FromDouble(w);
    }
    PyArrayObject *give, *take;
    if (wpy_give_take(a.n, b.n, NPY_INT64, &give, &take) < 0) {
        return NULL;
    }
    wpart_tasks_pair_step_t out = {0, 0.0, 0.0, NULL, NULL, 0, 0};
    WPY_NOGIL(st = wpart_tasks_ranks_pair(&a, &b, &c, &prm, comm_thresh, mixed, &out,
                                          PyArray_DATA(give), PyArray_DATA(take), NULL));
    PyObject *res = wpy_step_result(st, &out, give, take);
    WPY_XDECREF(give, take);
    return res;
}

/* union(a, b): (indices into a ++ b of the sorted union, ids on both sides). */
static PyObject *wpy_tasks_ranks_union(PyObject *self, PyObject *args)
{
    (void)self;
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) != 2) {
        PyErr_SetString(wpy_TypeError, "tasks_ranks_union takes 2 arguments");
        return NULL;
    }
    npy_intp na, nb;
    PyArrayObject *a = item_array(args, 0, NPY_INT64, &na);
    PyArrayObject *b = a ? item_array(args, 1, NPY_INT64, &nb) : NULL;
    if (!b) return NULL;
    npy_intp n = na + nb;
    PyArrayObject *idx = (PyArrayObject *)PyArray_EMPTY(1, &n, NPY_INT64, 0);
    if (!idx) return NULL;
    int64_t n_out = 0, common = 0;
    wpart_status_t st = wpart_tasks_ranks_union(PyArray_DATA(a), na, PyArray_DATA(b), nb,
                                                PyArray_DATA(idx), &n_out, &common);
    PyObject *res = NULL;
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
    } else {
        PyObject *sl = PySequence_GetSlice((PyObject *)idx, 0, (Py_ssize_t)n_out);
        if (sl) res = Py_BuildValue("NL", sl, (long long)common);
    }
    Py_DECREF(idx);
    return res;
}

/* summarize(gid, blk, esrc, edst, esr, edr, bid, pinned, load, fp, wk, ebytes, rank,
 * per_task): (key, load, fp, wk, blk, pinned, cself, cptr, crank, cout, cin, block_sel) of
 * the rank's summary (wpart_tasks_ranks_summarize; pinned and block_sel as bool). */
static PyObject *wpy_tasks_ranks_summarize(PyObject *self, PyObject *args)
{
    (void)self;
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) != 14) {
        PyErr_SetString(wpy_TypeError, "tasks_ranks_summarize takes 14 arguments");
        return NULL;
    }
    static const int types[12] = {NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT32,
                                  NPY_INT32, NPY_INT64, NPY_INT64, NPY_FLOAT64, NPY_FLOAT64,
                                  NPY_FLOAT64, NPY_FLOAT64};
    void *ptr[12];
    npy_intp len[12];
    for (int i = 0; i < 12; i++) {
        PyArrayObject *a = item_array(args, i, types[i], &len[i]);
        if (!a) return NULL;
        ptr[i] = PyArray_DATA(a);
    }
    long rank = PyLong_AsLong(PyTuple_GET_ITEM(args, 12));
    int per_task = PyObject_IsTrue(PyTuple_GET_ITEM(args, 13));
    if ((rank == -1 && PyErr_Occurred()) || per_task < 0) return NULL;
    npy_intp K = len[0], m = len[2];
    if (len[1] != K || len[8] != K || len[9] != K || len[10] != K || len[3] != m ||
        len[4] != m || len[5] != m || len[11] != m || rank < 0 || rank > INT32_MAX) {
        PyErr_SetString(wpy_ValueError, "summary record arrays of inconsistent lengths");
        return NULL;
    }
    wpart_tasks_rank_sum_in_t in = {(int32_t)rank, per_task, K, m, len[6], len[7], ptr[0],
                                    ptr[1], ptr[2], ptr[3], ptr[6], ptr[7], ptr[8], ptr[9],
                                    ptr[10], ptr[11], ptr[4], ptr[5]};
    npy_intp sz[12] = {K, K, K, K, K, K, K, K + 1, 2 * m, 2 * m, 2 * m, len[6]};
    static const int otypes[12] = {NPY_INT64, NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64,
                                   NPY_INT64, NPY_BOOL, NPY_FLOAT64, NPY_INT64, NPY_INT32,
                                   NPY_FLOAT64, NPY_FLOAT64, NPY_BOOL};
    PyArrayObject *o[12] = {NULL};
    PyObject *res = NULL;
    for (int i = 0; i < 12; i++) {
        o[i] = (PyArrayObject *)PyArray_EMPTY(1, &sz[i], otypes[i], 0);
        if (!o[i]) goto done;
    }
    wpart_tasks_rank_sum_out_t out = {0, 0, PyArray_DATA(o[0]), PyArray_DATA(o[4]),
                                      PyArray_DATA(o[7]), PyArray_DATA(o[1]),
                                      PyArray_DATA(o[2]), PyArray_DATA(o[3]),
                                      PyArray_DATA(o[6]), PyArray_DATA(o[9]),
                                      PyArray_DATA(o[10]), PyArray_DATA(o[5]),
                                      PyArray_DATA(o[11]), PyArray_DATA(o[8])};
    wpart_status_t st;
    WPY_NOGIL(st = wpart_tasks_ranks_summarize(&in, &out));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto done;
    }
    res = PyTuple_New(12);
    if (!res) goto done;
    for (int i = 0; i < 12; i++) {
        Py_ssize_t k = i == 7 ? out.n + 1 : (i >= 8 && i <= 10 ? out.n_pairs
                                                                : (i == 11 ? len[6] : out.n));
        PyObject *sl = PySequence_GetSlice((PyObject *)o[i], 0, k);
        if (!sl) {
            Py_CLEAR(res);
            goto done;
        }
        PyTuple_SET_ITEM(res, i, sl);
    }
done:
    for (int i = 0; i < 12; i++) Py_XDECREF(o[i]);
    return res;
}

/* The 15 record columns of a rank, in RankData's order: (gid, load, fp, wk, blk, orig), (eid,
 * esrc, edst, ebytes, esr, edr), (bid, bsize, bhome). */
#define N_COLS 15
static const int col_types[N_COLS] = {NPY_INT64, NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64,
                                      NPY_INT64, NPY_INT32,   NPY_INT64,   NPY_INT64,
                                      NPY_INT64, NPY_FLOAT64, NPY_INT32,   NPY_INT32,
                                      NPY_INT64, NPY_FLOAT64, NPY_INT32};

/* point c's columns at ptr[0..15) */
static void cols_point(wpart_tasks_rank_cols_t *c, void *const ptr[N_COLS])
{
    c->gid = ptr[0];
    c->load = ptr[1];
    c->fp = ptr[2];
    c->wk = ptr[3];
    c->blk = ptr[4];
    c->orig = ptr[5];
    c->eid = ptr[6];
    c->esrc = ptr[7];
    c->edst = ptr[8];
    c->ebytes = ptr[9];
    c->esr = ptr[10];
    c->edr = ptr[11];
    c->bid = ptr[12];
    c->bsize = ptr[13];
    c->bhome = ptr[14];
}

/* A tuple of the 15 columns -> c (views, borrowed); 0, or -1 with an exception. */
static int cols_parse(PyObject *t, wpart_tasks_rank_cols_t *c)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != N_COLS) {
        PyErr_SetString(wpy_TypeError, "rank records are a tuple of 15 columns");
        return -1;
    }
    void *ptr[N_COLS];
    npy_intp len[N_COLS];
    for (int i = 0; i < N_COLS; i++) {
        PyArrayObject *a = item_array(t, i, col_types[i], &len[i]);
        if (!a) return -1;
        ptr[i] = PyArray_DATA(a);
    }
    for (int i = 1; i < N_COLS; i++) {
        npy_intp want = len[i < 6 ? 0 : (i < 12 ? 6 : 12)];
        if (len[i] != want) {
            PyErr_SetString(wpy_ValueError, "rank record columns of inconsistent lengths");
            return -1;
        }
    }
    c->n = len[0];
    c->m = len[6];
    c->n_blocks = len[12];
    cols_point(c, ptr);
    return 0;
}

/* New columns with room for n tasks, m edges, nb blocks (o[15], NULL on error, set). */
static int cols_new(npy_intp n, npy_intp m, npy_intp nb, PyArrayObject *o[N_COLS],
                    wpart_tasks_rank_cols_t *c)
{
    void *ptr[N_COLS];
    for (int i = 0; i < N_COLS; i++) {
        npy_intp sz = i < 6 ? n : (i < 12 ? m : nb);
        o[i] = (PyArrayObject *)PyArray_EMPTY(1, &sz, col_types[i], 0);
        if (!o[i]) return -1;
        ptr[i] = PyArray_DATA(o[i]);
    }
    cols_point(c, ptr);
    c->n = n; /* the room; the core sets the sizes it fills */
    c->m = m;
    c->n_blocks = nb;
    return 0;
}

/* The tuple of c's columns at their sizes (slices of o); NULL on error. */
static PyObject *cols_tuple(PyArrayObject *const o[N_COLS], const wpart_tasks_rank_cols_t *c)
{
    PyObject *res = PyTuple_New(N_COLS);
    if (!res) return NULL;
    for (int i = 0; i < N_COLS; i++) {
        Py_ssize_t k = (Py_ssize_t)(i < 6 ? c->n : (i < 12 ? c->m : c->n_blocks));
        PyObject *sl = PySequence_GetSlice((PyObject *)o[i], 0, k);
        if (!sl) {
            Py_DECREF(res);
            return NULL;
        }
        PyTuple_SET_ITEM(res, i, sl);
    }
    return res;
}

static void cols_free(PyArrayObject *o[N_COLS])
{
    for (int i = 0; i < N_COLS; i++) Py_XDECREF(o[i]);
}

/* The task ids of a move: a contiguous 1-D int64 array (borrowed; NULL: error, set). */
static PyArrayObject *ids_parse(PyObject *o, npy_intp *k)
{
    PyObject *it = PyTuple_Pack(1, o);
    if (!it) return NULL;
    PyArrayObject *ids = item_array(it, 0, NPY_INT64, k);
    Py_DECREF(it); /* ids stays alive: the caller's arguments hold it */
    return ids;
}

/* extract(columns, ids, to): (n_found, n_ids, kept columns, leaving columns). */
static PyObject *wpy_tasks_ranks_extract(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *t, *ids_o;
    int to;
    if (!PyArg_ParseTuple(args, "OOi", &t, &ids_o, &to)) return NULL;
    wpart_tasks_rank_cols_t in, keep, moved;
    if (cols_parse(t, &in) < 0) return NULL;
    npy_intp k;
    PyArrayObject *ids = ids_parse(ids_o, &k);
    if (!ids) return NULL;
    PyArrayObject *ok[N_COLS] = {NULL}, *om[N_COLS] = {NULL};
    PyObject *res = NULL;
    if (cols_new(in.n, in.m, in.n_blocks, ok, &keep) == 0 &&
        cols_new(in.n, in.m, in.n_blocks, om, &moved) == 0) {
        int64_t found = 0, n_ids = 0;
        wpart_status_t st = wpart_tasks_ranks_extract(&in, PyArray_DATA(ids), k, (int32_t)to,
                                                      &keep, &moved, &found, &n_ids);
        if (st != WPART_OK) {
            wpy_raise(st, NULL);
        } else {
            PyObject *a = cols_tuple(ok, &keep);
            PyObject *b = a ? cols_tuple(om, &moved) : NULL;
            if (a && b) res = Py_BuildValue("LLNN", (long long)found, (long long)n_ids, a, b);
            else WPY_XDECREF(a, b);
        }
    }
    cols_free(ok);
    cols_free(om);
    return res;
}

/* insert(columns_a, columns_b, rank): (n_common, columns of the union). */
static PyObject *wpy_tasks_ranks_insert(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *ta, *tb;
    int rank;
    if (!PyArg_ParseTuple(args, "OOi", &ta, &tb, &rank)) return NULL;
    wpart_tasks_rank_cols_t a, b, out;
    if (cols_parse(ta, &a) < 0 || cols_parse(tb, &b) < 0) return NULL;
    PyArrayObject *o[N_COLS] = {NULL};
    PyObject *res = NULL;
    if (cols_new(a.n + b.n, a.m + b.m, a.n_blocks + b.n_blocks, o, &out) == 0) {
        int64_t common = 0;
        wpart_status_t st = wpart_tasks_ranks_insert(&a, &b, (int32_t)rank, &out, &common);
        if (st != WPART_OK) {
            wpy_raise(st, NULL);
        } else {
            PyObject *c = cols_tuple(o, &out);
            if (c) res = Py_BuildValue("LN", (long long)common, c);
        }
    }
    cols_free(o);
    return res;
}

/* swap(columns, ids, to, incoming columns or None, rank, want_moved): (n_found, n_ids, n_common,
 * leaving columns or None, new columns or None). */
static PyObject *wpy_tasks_ranks_swap(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *t, *ids_o, *ti;
    int to, rank, want;
    if (!PyArg_ParseTuple(args, "OOiOip", &t, &ids_o, &to, &ti, &rank, &want)) return NULL;
    wpart_tasks_rank_cols_t in, inc, moved, out;
    if (cols_parse(t, &in) < 0 || (ti != Py_None && cols_parse(ti, &inc) < 0)) return NULL;
    npy_intp k;
    PyArrayObject *ids = ids_parse(ids_o, &k);
    if (!ids) return NULL;
    const int has = ti != Py_None;
    PyArrayObject *om[N_COLS] = {NULL}, *oo[N_COLS] = {NULL};
    PyObject *res = NULL;
    if ((!want || cols_new(in.n, in.m, in.n_blocks, om, &moved) == 0) &&
        (!has || cols_new(in.n + inc.n, in.m + inc.m, in.n_blocks + inc.n_blocks, oo, &out) == 0)) {
        int64_t found = 0, n_ids = 0, common = 0;
        wpart_status_t st;
        WPY_NOGIL(st = wpart_tasks_ranks_swap(&in, PyArray_DATA(ids), k, (int32_t)to,
                                              has ? &inc : NULL, (int32_t)rank,
                                              want ? &moved : NULL, has ? &out : NULL, &found,
                                              &n_ids, &common));
        if (st != WPART_OK) {
            wpy_raise(st, NULL);
        } else {
            PyObject *a = want ? cols_tuple(om, &moved) : Py_NewRef(Py_None);
            PyObject *b = !a ? NULL : has ? cols_tuple(oo, &out) : Py_NewRef(Py_None);
            if (a && b) {
                res = Py_BuildValue("LLLNN", (long long)found, (long long)n_ids,
                                    (long long)common, a, b);
            } else {
                WPY_XDECREF(a, b);
            }
        }
    }
    cols_free(om);
    cols_free(oo);
    return res;
}

static PyMethodDef tasks_ranks_methods[] = {
    {"tasks_ranks_pair", wpy_tasks_ranks_pair, METH_VARARGS,
     "The exact pair step of two ranks' records (or W of one rank)."},
    {"tasks_ranks_estimate", wpy_tasks_ranks_estimate, METH_VARARGS,
     "The best exchange of two ranks estimated from their summaries."},
    {"tasks_ranks_union", wpy_tasks_ranks_union, METH_VARARGS,
     "The sorted union of two sorted id arrays as indices into their concatenation."},
    {"tasks_ranks_estimate_peers", wpy_tasks_ranks_estimate_peers, METH_VARARGS,
     "The estimates of a rank's best exchange with each of several peers, in one call."},
    {"tasks_ranks_extract", wpy_tasks_ranks_extract, METH_VARARGS,
     "A rank's records split by the task ids that leave (kept, leaving), in one call."},
    {"tasks_ranks_insert", wpy_tasks_ranks_insert, METH_VARARGS,
     "The union of a rank's records and arriving records, in one call."},
    {"tasks_ranks_swap", wpy_tasks_ranks_swap, METH_VARARGS,
     "A rank's records without leaving tasks and with arriving records, in one call."},
    {"tasks_ranks_summarize", wpy_tasks_ranks_summarize, METH_VARARGS,
     "A rank's bounded summary (clusters and their bytes per rank) from its records."},
    {NULL, NULL, 0, NULL}};

WPY_DEFINE_INIT(tasks_ranks, tasks_ranks_methods)
