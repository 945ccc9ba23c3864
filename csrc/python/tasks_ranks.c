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
 *  baseline, cap, alpha) -> summary (views into the arrays, borrowed from the tuple) */
static int summary_parse(PyObject *t, wpart_tasks_rank_summary_t *s)
{
    static const int types[13] = {NPY_INT64, NPY_INT64, NPY_INT64, NPY_FLOAT64, NPY_FLOAT64,
                                  NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64, NPY_FLOAT64,
                                  NPY_FLOAT64, NPY_UINT8, NPY_INT32, NPY_INT32};
    void *ptr[13];
    npy_intp len[13];
    long rank;
    if (rank_tuple(t, "a summary is a tuple of 17 fields", types, ptr, len, &rank, &s->baseline,
                   &s->cap, &s->alpha) < 0) {
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
    wpy_tasks_params(&prm, cluster, singles, one_way, split_always, tol);
    wpart_status_t st;
    if (!best) {
        double w = 0.0;
        WPY_NOGIL(st = wpart_tasks_ranks_pair(&a, &b, &c, &prm, comm_thresh, NULL, NULL, NULL, &w));
        if (st != WPART_OK) return wpy_raise(st, NULL);
        return PyFloat_FromDouble(w);
    }
    PyArrayObject *give, *take;
    if (wpy_give_take(a.n, b.n, NPY_INT64, &give, &take) < 0) {
        return NULL;
    }
    wpart_tasks_pair_step_t out = {0, 0.0, 0.0, NULL, NULL, 0, 0};
    WPY_NOGIL(st = wpart_tasks_ranks_pair(&a, &b, &c, &prm, comm_thresh, &out, PyArray_DATA(give),
                                          PyArray_DATA(take), NULL));
    PyObject *res = wpy_step_result(st, &out, give, take);
    WPY_XDECREF(give, take);
    return res;
}

/* A writeable exact-dtype contiguous 1-D array of the tuple's item i (borrowed). */
static PyArrayObject *item_out(PyObject *t, Py_ssize_t i, int typenum, npy_intp *n)
{
    PyArrayObject *a = item_array(t, i, typenum, n);
    if (a && !PyArray_ISWRITEABLE(a)) {
        PyErr_Format(wpy_ValueError, "argument %zd must be writeable", i);
        return NULL;
    }
    return a;
}

static PyArrayObject *new_flags(npy_intp n)
{
    return (PyArrayObject *)PyArray_ZEROS(1, &n, NPY_BOOL, 0);
}

/* split(gid, blk, esrc, edst, esr, edr, bid, out, to): (task_out, edge_out, edge_keep,
 * block_out, block_keep, n_found) as bool arrays; esr / edr updated in place. */
static PyObject *wpy_tasks_ranks_split(PyObject *self, PyObject *args)
{
    (void)self;
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) != 9) {
        PyErr_SetString(wpy_TypeError, "tasks_ranks_split takes 9 arguments");
        return NULL;
    }
    static const int types[8] = {NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT64, NPY_INT32,
                                 NPY_INT32, NPY_INT64, NPY_INT64};
    void *ptr[8];
    npy_intp len[8];
    for (int i = 0; i < 8; i++) {
        PyArrayObject *a = (i == 4 || i == 5) ? item_out(args, i, types[i], &len[i])
                                              : item_array(args, i, types[i], &len[i]);
        if (!a) return NULL;
        ptr[i] = PyArray_DATA(a);
    }
    long to = PyLong_AsLong(PyTuple_GET_ITEM(args, 8));
    if (to == -1 && PyErr_Occurred()) return NULL;
    if (len[1] != len[0] || len[3] != len[2] || len[4] != len[2] || len[5] != len[2]) {
        PyErr_SetString(wpy_ValueError, "split arrays of inconsistent lengths");
        return NULL;
    }
    wpart_tasks_rank_split_t in = {len[0], len[2], len[6], len[7], ptr[0], ptr[1], ptr[2],
                                   ptr[3], ptr[6], ptr[7], ptr[4], ptr[5]};
    PyArrayObject *f[5] = {new_flags(len[0]), new_flags(len[2]), new_flags(len[2]),
                           new_flags(len[6]), new_flags(len[6])};
    PyObject *res = NULL;
    if (f[0] && f[1] && f[2] && f[3] && f[4]) {
        wpart_tasks_rank_split_out_t out = {PyArray_DATA(f[0]), PyArray_DATA(f[1]),
                                            PyArray_DATA(f[2]), PyArray_DATA(f[3]),
                                            PyArray_DATA(f[4]), 0};
        wpart_status_t st = wpart_tasks_ranks_split(&in, (int32_t)(to < 0 ? -1 : to), &out);
        if (st != WPART_OK) wpy_raise(st, NULL);
        else res = Py_BuildValue("OOOOOL", f[0], f[1], f[2], f[3], f[4],
                                 (long long)out.n_found);
    }
    for (int i = 0; i < 5; i++) Py_XDECREF(f[i]);
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

/* mark(ends, gid, rank, ranks): ranks[e] = rank where ends[e] is in gid (sorted). */
static PyObject *wpy_tasks_ranks_mark(PyObject *self, PyObject *args)
{
    (void)self;
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) != 4) {
        PyErr_SetString(wpy_TypeError, "tasks_ranks_mark takes 4 arguments");
        return NULL;
    }
    npy_intp m, n, mr;
    PyArrayObject *e = item_array(args, 0, NPY_INT64, &m);
    PyArrayObject *g = e ? item_array(args, 1, NPY_INT64, &n) : NULL;
    PyArrayObject *r = g ? item_out(args, 3, NPY_INT32, &mr) : NULL;
    if (!r) return NULL;
    long rank = PyLong_AsLong(PyTuple_GET_ITEM(args, 2));
    if (rank == -1 && PyErr_Occurred()) return NULL;
    if (mr != m) {
        PyErr_SetString(wpy_ValueError, "mark: ends and ranks of different lengths");
        return NULL;
    }
    wpart_status_t st = wpart_tasks_ranks_mark(PyArray_DATA(e), m, PyArray_DATA(g), n,
                                               (int32_t)rank, PyArray_DATA(r));
    if (st != WPART_OK) return wpy_raise(st, NULL);
    Py_RETURN_NONE;
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

/* A tuple of contiguous 1-D arrays (any dtype) of one length; NULL on error (set). */
static int check_columns(PyObject *cols, npy_intp *n)
{
    if (!PyTuple_Check(cols)) {
        PyErr_SetString(wpy_TypeError, "expected a tuple of arrays");
        return -1;
    }
    *n = -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(cols); i++) {
        PyObject *o = PyTuple_GET_ITEM(cols, i);
        if (!PyArray_Check(o) || PyArray_NDIM((PyArrayObject *)o) != 1 ||
            !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)o)) {
            PyErr_Format(wpy_TypeError, "column %zd: expected a contiguous 1-D array", i);
            return -1;
        }
        npy_intp m = PyArray_DIM((PyArrayObject *)o, 0);
        if (*n >= 0 && m != *n) {
            PyErr_SetString(wpy_ValueError, "columns of different lengths");
            return -1;
        }
        *n = m;
    }
    return 0;
}

/* A new array of `count` items of a's dtype: item j is a[idx[j]] (idx < na) or b[idx[j] - na]. */
static PyObject *gather_column(PyArrayObject *a, PyArrayObject *b, const int64_t *idx,
                               npy_intp count, int keep_flag, const uint8_t *flag)
{
    PyArray_Descr *d = PyArray_DESCR(a);
    Py_INCREF(d);
    PyArrayObject *r = (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, d, 1, &count, NULL,
                                                             NULL, 0, NULL);
    if (!r) return NULL;
    size_t w = (size_t)PyArray_ITEMSIZE(a);
    char *dst = PyArray_DATA(r);
    const char *pa = PyArray_DATA(a);
    if (flag) { /* the items of a whose flag equals keep_flag, in order */
        npy_intp na = PyArray_DIM(a, 0), j = 0;
        for (npy_intp i = 0; i < na; i++)
            if ((flag[i] != 0) == keep_flag) memcpy(dst + w * (size_t)j++, pa + w * (size_t)i, w);
    } else {
        npy_intp na = PyArray_DIM(a, 0);
        const char *pb = b ? PyArray_DATA(b) : NULL;
        for (npy_intp j = 0; j < count; j++) {
            int64_t k = idx[j];
            memcpy(dst + w * (size_t)j, k < na ? pa + w * (size_t)k : pb + w * (size_t)(k - na), w);
        }
    }
    return (PyObject *)r;
}

/* select(columns, flags): (columns where flags, columns where not), flags a bool array. */
static PyObject *wpy_tasks_ranks_select(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cols, *fl;
    if (!PyArg_ParseTuple(args, "OO", &cols, &fl)) return NULL;
    npy_intp n, nf;
    if (check_columns(cols, &n) < 0) return NULL;
    PyObject *ft = PyTuple_Pack(1, fl);
    if (!ft) return NULL;
    PyArrayObject *f = item_array(ft, 0, NPY_BOOL, &nf);
    Py_DECREF(ft); /* f stays alive: borrowed from args */
    if (!f) return NULL;
    if (PyTuple_GET_SIZE(cols) && nf != n) {
        PyErr_SetString(wpy_ValueError, "flags and columns of different lengths");
        return NULL;
    }
    const uint8_t *flag = PyArray_DATA(f);
    npy_intp on = 0;
    for (npy_intp i = 0; i < nf; i++) on += flag[i] != 0;
    Py_ssize_t nc = PyTuple_GET_SIZE(cols);
    PyObject *yes = PyTuple_New(nc), *no = PyTuple_New(nc);
    if (!yes || !no) goto fail;
    for (Py_ssize_t i = 0; i < nc; i++) {
        PyArrayObject *a = (PyArrayObject *)PyTuple_GET_ITEM(cols, i);
        PyObject *y = gather_column(a, NULL, NULL, on, 1, flag);
        if (!y) goto fail;
        PyTuple_SET_ITEM(yes, i, y);
        PyObject *z = gather_column(a, NULL, NULL, nf - on, 0, flag);
        if (!z) goto fail;
        PyTuple_SET_ITEM(no, i, z);
    }
    return Py_BuildValue("NN", yes, no);
fail:
    WPY_XDECREF(yes, no);
    return NULL;
}

/* gather(columns_a, columns_b, idx): per column, (a ++ b)[idx] (columns of one dtype each). */
static PyObject *wpy_tasks_ranks_gather(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *ca, *cb, *ix;
    if (!PyArg_ParseTuple(args, "OOO", &ca, &cb, &ix)) return NULL;
    npy_intp na, nb, ni;
    if (check_columns(ca, &na) < 0 || check_columns(cb, &nb) < 0) return NULL;
    Py_ssize_t nc = PyTuple_GET_SIZE(ca);
    if (PyTuple_GET_SIZE(cb) != nc) {
        PyErr_SetString(wpy_ValueError, "gather: different numbers of columns");
        return NULL;
    }
    PyObject *it = PyTuple_Pack(1, ix);
    if (!it) return NULL;
    PyArrayObject *idx = item_array(it, 0, NPY_INT64, &ni);
    Py_DECREF(it);
    if (!idx) return NULL;
    if (na < 0) na = 0;
    if (nb < 0) nb = 0;
    const int64_t *p = PyArray_DATA(idx);
    for (npy_intp j = 0; j < ni; j++)
        if (p[j] < 0 || p[j] >= na + nb) {
            PyErr_SetString(wpy_ValueError, "gather: index out of range");
            return NULL;
        }
    PyObject *res = PyTuple_New(nc);
    if (!res) return NULL;
    for (Py_ssize_t i = 0; i < nc; i++) {
        PyArrayObject *a = (PyArrayObject *)PyTuple_GET_ITEM(ca, i);
        PyArrayObject *b = (PyArrayObject *)PyTuple_GET_ITEM(cb, i);
        if (PyArray_TYPE(a) != PyArray_TYPE(b) || PyArray_ITEMSIZE(a) != PyArray_ITEMSIZE(b)) {
            PyErr_Format(wpy_TypeError, "gather: column %zd of different dtypes", i);
            Py_DECREF(res);
            return NULL;
        }
        PyObject *g = gather_column(a, b, p, ni, 0, NULL);
        if (!g) {
            Py_DECREF(res);
            return NULL;
        }
        PyTuple_SET_ITEM(res, i, g);
    }
    return res;
}

static PyMethodDef tasks_ranks_methods[] = {
    {"tasks_ranks_pair", wpy_tasks_ranks_pair, METH_VARARGS,
     "The exact pair step of two ranks' records (or W of one rank)."},
    {"tasks_ranks_estimate", wpy_tasks_ranks_estimate, METH_VARARGS,
     "The best exchange of two ranks estimated from their summaries."},
    {"tasks_ranks_split", wpy_tasks_ranks_split, METH_VARARGS,
     "Which task, edge and block records of a rank leave with a set of task ids."},
    {"tasks_ranks_union", wpy_tasks_ranks_union, METH_VARARGS,
     "The sorted union of two sorted id arrays as indices into their concatenation."},
    {"tasks_ranks_select", wpy_tasks_ranks_select, METH_VARARGS,
     "Split columns of records by a flag array (those flagged, the others)."},
    {"tasks_ranks_gather", wpy_tasks_ranks_gather, METH_VARARGS,
     "Per column, the items of the concatenation of two columns at the given indices."},
    {"tasks_ranks_mark", wpy_tasks_ranks_mark, METH_VARARGS,
     "Set the rank of the edge ends held by a rank (in place)."},
    {"tasks_ranks_summarize", wpy_tasks_ranks_summarize, METH_VARARGS,
     "A rank's bounded summary (clusters and their bytes per rank) from its records."},
    {NULL, NULL, 0, NULL}};

WPY_DEFINE_INIT(tasks_ranks, tasks_ranks_methods)
