/* spatial.c -- binding of wpart.spatial: rectangular partitions of a 2D prefix array. */
#include "wpy.h"

#include "../spatial/spatial_internal.h"

/* m >= 1 that leaves room for the core's m + 1 and 4 m (the Python layer also bounds it by
 * the cells, wpart._validate.as_parts) */
static int sp_check_m(long long m)
{
    if (wpy_check_m(m) < 0) {
        return -1;
    }
    if (m > (1LL << 62)) {
        PyErr_Format(wpy_OverflowError, "`m` = %lld is too large (at most 2**62)", m);
        return -1;
    }
    return 0;
}

/* The optional stripe cuts (None or 1-D int64) into *C (new reference); -1 with an error. */
static int sp_cuts(PyObject *cobj, PyArrayObject **C)
{
    if (cobj != Py_None) {
        *C = wpy_input_array(cobj, "cuts", NPY_INT64, 1, 1);
        if (!*C) {
            return -1;
        }
    }
    return 0;
}

/* The options common to the dense and the sparse partition calls (ctl set up by the caller
 * with the progress callable and the time limit). */
static void sp_options(wpart_spatial_options_t *opt, PyArrayObject *C, int method, int orient,
                       long long P, long long Q, long long max_sweeps, int start,
                       wpy_control_t *ctl)
{
    wpart_spatial_options_init(opt);
    opt->cuts = C ? PyArray_DATA(C) : NULL;
    opt->ncuts = C ? (int64_t)PyArray_DIM(C, 0) : 0;
    opt->method = (wpart_spatial_method_t)method;
    opt->orient = (wpart_spatial_orient_t)orient;
    opt->P = P;
    opt->Q = Q;
    opt->max_sweeps = max_sweeps;
    opt->start = start;
    opt->control = &ctl->ctl;
}

/* (rects, stats[, loads]) of a finished partition call, or NULL with the error. The last
 * stats field: 0 = finished, 1 = the time limit stopped it with a partition (the best found),
 * 2 = the time limit stopped it before any partition (rects is None). *out may become None. */
static PyObject *sp_result(wpart_status_t st, PyArrayObject **out,
                           const wpart_spatial_stats_t *stats, double time_limit,
                           PyArrayObject *L)
{
    if (PyErr_Occurred()) {
        return NULL; /* Ctrl-C or a failed progress callable, even if the core then finished */
    }
    int stop = stats->timed_out ? 1 : 0;
    if (st == WPART_ECANCELLED && time_limit > 0) {
        stop = 2; /* a time limit is a status, not an error */
        Py_DECREF(*out);
        Py_INCREF(Py_None);
        *out = (PyArrayObject *)Py_None;
    } else if (st != WPART_OK) {
        return wpy_raise(st, NULL);
    }
    return Py_BuildValue(L ? "O(dLLLLiiLdi)O" : "O(dLLLLiiLdi)", *out, stats->seconds,
                         (long long)stats->iterations, (long long)stats->probes,
                         (long long)stats->cost_evals, (long long)stats->dp_states,
                         stats->converged, stats->orient, (long long)stats->P, stats->eli, stop,
                         L ? (PyObject *)L : Py_None);
}

/* The CSR arrays o[0..2] (rp, ci, rv) and the CSC arrays o[3..5] (cp, ri, cv; all three None:
 * the core makes them) of an n1 x n2 sparse matrix with values of typenum t into a[] (new
 * references; NULL where None); -1 with the error. */
static int sp_sparse_arrays(PyObject *const *o, int t, long long n1, long long n2,
                            PyArrayObject **a)
{
    static const char *names[6] = {"rp", "ci", "rv", "cp", "ri", "cv"};
    int csc = o[3] != Py_None;
    if (csc != (o[4] != Py_None) || csc != (o[5] != Py_None)) {
        PyErr_SetString(wpy_ValueError, "`cp`, `ri` and `cv` must all be given or all None");
        return -1;
    }
    for (int i = 0; i < (csc ? 6 : 3); i++) {
        a[i] = wpy_input_array(o[i], names[i], (i == 2 || i == 5) ? t : NPY_INT64, 1, 1);
        if (!a[i]) {
            return -1;
        }
    }
    npy_intp nnz = PyArray_DIM(a[1], 0);
    if (n1 < 1 || n2 < 1 || PyArray_DIM(a[0], 0) != n1 + 1 || PyArray_DIM(a[2], 0) != nnz ||
        ((const int64_t *)PyArray_DATA(a[0]))[n1] != (int64_t)nnz ||
        (csc && (PyArray_DIM(a[3], 0) != n2 + 1 || PyArray_DIM(a[4], 0) != nnz ||
                 PyArray_DIM(a[5], 0) != nnz ||
                 ((const int64_t *)PyArray_DATA(a[3]))[n2] != (int64_t)nnz))) {
        PyErr_SetString(wpy_ValueError, "malformed CSR / CSC arrays (`rp` / `cp` must have "
                        "n1 + 1 / n2 + 1 entries ending at nnz)");
        return -1;
    }
    return 0;
}

/* The bordered prefix S (dtype t, ndim-D) of a non-empty `what` (every extent >= 2): a new
 * reference, or NULL with an exception naming `S`. */
static PyArrayObject *sp_prefix(PyObject *sobj, int t, int ndim, const char *what)
{
    PyArrayObject *S = wpy_input_array(sobj, "S", t, ndim, ndim);
    for (int i = 0; S && i < ndim; i++) {
        if (PyArray_DIM(S, i) < 2) {
            PyErr_Format(wpy_ValueError, "`S` must be the prefix of a non-empty %s", what);
            Py_CLEAR(S);
        }
    }
    return S;
}

/* The dtype of S in *t, the check of m, then sp_prefix. */
static PyArrayObject *sp_prefix_m(PyObject *sobj, long long m, int ndim, const char *what, int *t)
{
    *t = wpy_loads_typenum(sobj, "S");
    if (*t < 0 || sp_check_m(m) < 0) {
        return NULL;
    }
    return sp_prefix(sobj, *t, ndim, what);
}

static PyObject *wpy_spatial_partition(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"S", "m", "method", "orient", "rule", "tie_first", "P", "Q",
                             "cuts", "max_sweeps", "max_states", "window", "progress",
                             "time_limit", "speeds", "phase1", "fast", "slow", "m1", "m1_min",
                             "start", NULL};
    PyObject *sobj, *cobj = Py_None, *progress = Py_None, *spobj = Py_None, *res = NULL;
    long long m, P = 0, Q = 0, max_sweeps = 0, max_states = 0;
    long long w[4] = {0, 0, 0, 0};
    int method, orient = 0, rule = 0, tie_first = 0, start = 0;
    int phase1 = WPART_SP_JAG_M_HEUR, fast = WPART_SP_JAG_M_HEUR_PROBE, slow = WPART_SP_JAG_M_OPT;
    long long m1 = 0, m1_min = 0;
    double time_limit = 0.0;
    PyArrayObject *S = NULL, *C = NULL, *out = NULL, *SP = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OLi|iiiLLOLL(LLLL)OdOiiiLLi", kwlist,
                                     &sobj, &m, &method, &orient, &rule, &tie_first, &P, &Q,
                                     &cobj, &max_sweeps, &max_states, &w[0], &w[1], &w[2], &w[3],
                                     &progress, &time_limit, &spobj, &phase1, &fast, &slow, &m1,
                                     &m1_min, &start)) {
        return NULL;
    }
    int t;
    S = sp_prefix_m(sobj, m, 2, "matrix", &t);
    if (!S) {
        return NULL;
    }
    if (sp_cuts(cobj, &C) < 0 || wpy_optional_speeds(spobj, m, &SP) < 0) {
        goto cleanup;
    }
    npy_intp shp[2] = {(npy_intp)m, 4};
    out = (PyArrayObject *)PyArray_ZEROS(2, shp, NPY_INT64, 0);
    if (!out) {
        goto cleanup;
    }
    wpy_control_t ctl;
    wpy_control_setup(&ctl, progress, time_limit);
    wpart_spatial_options_t opt;
    sp_options(&opt, C, method, orient, P, Q, max_sweeps, start, &ctl);
    opt.rule = (wpart_spatial_rule_t)rule;
    opt.tie_first = tie_first;
    opt.speeds = SP ? PyArray_DATA(SP) : NULL;
    opt.hybrid_phase1 = phase1;
    opt.hybrid_fast = fast;
    opt.hybrid_slow = slow;
    opt.m1 = m1;
    opt.m1_min = m1_min;
    opt.max_states = max_states;
    for (int i = 0; i < 4; i++) {
        opt.window[i] = w[i];
    }
    wpart_spatial_stats_t stats;
    memset(&stats, 0, sizeof stats);
    int64_t n1 = (int64_t)PyArray_DIM(S, 0) - 1, n2 = (int64_t)PyArray_DIM(S, 1) - 1;
    wpart_status_t st;
    Py_BEGIN_ALLOW_THREADS
    if (t == NPY_INT64) {
        st = wpart_spatial_partition_i64(PyArray_DATA(S), n1, n2, (int64_t)m, &opt,
                                         PyArray_DATA(out), &stats);
    } else {
        st = wpart_spatial_partition_f64(PyArray_DATA(S), n1, n2, (int64_t)m, &opt,
                                         PyArray_DATA(out), &stats);
    }
    Py_END_ALLOW_THREADS
    res = sp_result(st, &out, &stats, time_limit, NULL);
cleanup:
    WPY_XDECREF(S, C, SP, out);
    return res;
}

/* RECT-UNIFORM / RECT-NICOL / JAG-PQ-HEUR / JAG-M-HEUR(-PROBE) / JAG-M-PROBE on a sparse
 * matrix: (rects, stats) as spatial_partition, and the loads with with_loads=True. rp/ci/rv:
 * CSR, cp/ri/cv: CSC (int64 pointers and indices; values int64 or float64, the same for
 * both). */
static PyObject *wpy_spatial_sparse_partition(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n1", "n2", "rp", "ci", "rv", "cp", "ri", "cv", "m", "method",
                             "orient", "P", "Q", "max_sweeps", "start", "progress",
                             "time_limit", "cuts", "with_loads", NULL};
    PyObject *o[6], *progress = Py_None, *res = NULL, *cobj = Py_None;
    PyArrayObject *a[6] = {NULL, NULL, NULL, NULL, NULL, NULL}, *out = NULL, *C = NULL;
    PyArrayObject *L = NULL;
    int with_loads = 0;
    long long n1, n2, m, P = 0, Q = 0, max_sweeps = 0;
    int method, orient = 0, start = 0;
    double time_limit = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "LLOOOOOOLi|iLLLiOdOp", kwlist, &n1, &n2, &o[0],
                                     &o[1], &o[2], &o[3], &o[4], &o[5], &m, &method, &orient, &P,
                                     &Q, &max_sweeps, &start, &progress, &time_limit, &cobj,
                                     &with_loads)) {
        return NULL;
    }
    int t = wpy_loads_typenum(o[2], "rv");
    if (t < 0 || sp_check_m(m) < 0 || sp_sparse_arrays(o, t, n1, n2, a) < 0) {
        goto cleanup;
    }
    if (sp_cuts(cobj, &C) < 0) {
        goto cleanup;
    }
    npy_intp shp[2] = {(npy_intp)m, 4};
    out = (PyArrayObject *)PyArray_ZEROS(2, shp, NPY_INT64, 0);
    if (!out) {
        goto cleanup;
    }
    if (with_loads) {
        L = (PyArrayObject *)PyArray_ZEROS(1, shp, t, 0);
        if (!L) {
            goto cleanup;
        }
    }
    wpy_control_t ctl;
    wpy_control_setup(&ctl, progress, time_limit);
    wpart_spatial_options_t opt;
    sp_options(&opt, C, method, orient, P, Q, max_sweeps, start, &ctl);
    wpart_spatial_stats_t stats;
    memset(&stats, 0, sizeof stats);
    const void *d[6];
    for (int i = 0; i < 6; i++) {
        d[i] = a[i] ? PyArray_DATA(a[i]) : NULL;
    }
    wpart_status_t st;
    Py_BEGIN_ALLOW_THREADS
    if (t == NPY_INT64) {
        st = wpart_i_spatial_sparse_i64(n1, n2, d[0], d[1], d[2], d[3], d[4], d[5], (int64_t)m,
                                        &opt, PyArray_DATA(out), L ? PyArray_DATA(L) : NULL,
                                        &stats);
    } else {
        st = wpart_i_spatial_sparse_f64(n1, n2, d[0], d[1], d[2], d[3], d[4], d[5], (int64_t)m,
                                        &opt, PyArray_DATA(out), L ? PyArray_DATA(L) : NULL,
                                        &stats);
    }
    Py_END_ALLOW_THREADS
    res = sp_result(st, &out, &stats, time_limit, L);
cleanup:
    for (int i = 0; i < 6; i++) {
        Py_XDECREF(a[i]);
    }
    WPY_XDECREF(C, L, out);
    return res;
}

/* ---- the starts of RECT-NICOL / JAG-PQ-HEUR in one call ---- */

#define SP_MAX_STARTS 16

/* the start codes (a sequence of ints in 0 .. 3) into codes[]; their number, or -1 */
static int sp_start_codes(PyObject *obj, int *codes)
{
    PyObject *seq = PySequence_Fast(obj, "`starts` must be a sequence of start codes");
    if (!seq) {
        return -1;
    }
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    if (k < 1 || k > SP_MAX_STARTS) {
        Py_DECREF(seq);
        PyErr_Format(wpy_ValueError, "`starts` must hold 1 to %d start codes", SP_MAX_STARTS);
        return -1;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (v < 0 || v > 3) {
            Py_DECREF(seq);
            PyErr_Format(wpy_ValueError, "start code %ld is not in 0 .. 3", v);
            return -1;
        }
        codes[i] = (int)v;
    }
    Py_DECREF(seq);
    return (int)k;
}

/* (rects (k, m, 4), loads (k, m), [stats tuple of each start run]) or NULL with the error; the
 * stats tuples are those of sp_result (the last field: 0 finished, 1 / 2 the time limit with /
 * without a partition). */
static PyObject *sp_starts_result(wpart_status_t st, PyArrayObject *R, PyArrayObject *L,
                                  const wpart_spatial_stats_t *stats, const int *stop,
                                  int64_t ran)
{
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (st != WPART_OK) {
        return wpy_raise(st, NULL);
    }
    PyObject *lst = PyList_New((Py_ssize_t)ran);
    if (!lst) {
        return NULL;
    }
    for (int64_t s = 0; s < ran; s++) {
        const wpart_spatial_stats_t *x = stats + s;
        PyObject *t = Py_BuildValue("(dLLLLiiLdi)", x->seconds, (long long)x->iterations,
                                    (long long)x->probes, (long long)x->cost_evals,
                                    (long long)x->dp_states, x->converged, x->orient,
                                    (long long)x->P, x->eli, stop[s]);
        if (!t) {
            Py_DECREF(lst);
            return NULL;
        }
        PyList_SET_ITEM(lst, (Py_ssize_t)s, t);
    }
    PyObject *res = Py_BuildValue("OON", R, L, lst);
    if (!res) {
        Py_DECREF(lst);
    }
    return res;
}

/* the (k, m, 4) rectangles and (k, m) loads of typenum t, zero-filled; -1 with the error */
static int sp_starts_out(int k, long long m, int t, PyArrayObject **R, PyArrayObject **L)
{
    npy_intp rs[3] = {k, (npy_intp)m, 4}, ls[2] = {k, (npy_intp)m};
    *R = (PyArrayObject *)PyArray_ZEROS(3, rs, NPY_INT64, 0);
    *L = *R ? (PyArrayObject *)PyArray_ZEROS(2, ls, t, 0) : NULL;
    return *L ? 0 : -1;
}

/* RECT-NICOL / JAG-PQ-HEUR from several starts on a dense prefix S: (rects, loads, stats) */
static PyObject *wpy_spatial_partition_starts(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"S", "m", "method", "starts", "P", "Q", "max_sweeps", "progress",
                             "time_limit", "speeds", NULL};
    PyObject *sobj, *stobj, *progress = Py_None, *spobj = Py_None, *res = NULL;
    long long m, P = 0, Q = 0, max_sweeps = 0;
    int method, codes[SP_MAX_STARTS], stop[SP_MAX_STARTS];
    wpart_spatial_stats_t stats[SP_MAX_STARTS];
    double time_limit = 0.0;
    PyArrayObject *S = NULL, *R = NULL, *L = NULL, *SP = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OLiO|LLLOdO", kwlist, &sobj, &m, &method,
                                     &stobj, &P, &Q, &max_sweeps, &progress, &time_limit,
                                     &spobj)) {
        return NULL;
    }
    int t = wpy_loads_typenum(sobj, "S");
    int k = t < 0 ? -1 : sp_start_codes(stobj, codes);
    if (k < 0 || sp_check_m(m) < 0) {
        return NULL;
    }
    S = sp_prefix(sobj, t, 2, "matrix");
    if (!S) {
        goto cleanup;
    }
    if (wpy_optional_speeds(spobj, m, &SP) < 0 || sp_starts_out(k, m, t, &R, &L) < 0) {
        goto cleanup;
    }
    wpy_control_t ctl;
    wpy_control_setup(&ctl, progress, time_limit);
    wpart_spatial_options_t opt;
    sp_options(&opt, NULL, method, 0, P, Q, max_sweeps, 0, &ctl);
    opt.speeds = SP ? PyArray_DATA(SP) : NULL;
    int64_t n1 = (int64_t)PyArray_DIM(S, 0) - 1, n2 = (int64_t)PyArray_DIM(S, 1) - 1, ran = 0;
    wpart_status_t st;
    Py_BEGIN_ALLOW_THREADS
    if (t == NPY_INT64) {
        st = wpart_i_spatial_starts_i64(PyArray_DATA(S), n1, n2, (int64_t)m, &opt, k, codes,
                                        PyArray_DATA(R), PyArray_DATA(L), stats, stop, &ran);
    } else {
        st = wpart_i_spatial_starts_f64(PyArray_DATA(S), n1, n2, (int64_t)m, &opt, k, codes,
                                        PyArray_DATA(R), PyArray_DATA(L), stats, stop, &ran);
    }
    Py_END_ALLOW_THREADS
    res = sp_starts_result(st, R, L, stats, stop, ran);
cleanup:
    WPY_XDECREF(S, SP, R, L);
    return res;
}

/* the same on a sparse matrix: CSR (rp, ci, rv) and, optional (None: made in the core, once
 * for every start), CSC (cp, ri, cv) */
static PyObject *wpy_spatial_sparse_starts(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n1", "n2", "rp", "ci", "rv", "cp", "ri", "cv", "m", "method",
                             "starts", "P", "Q", "max_sweeps", "progress", "time_limit", NULL};
    PyObject *o[6], *stobj, *progress = Py_None, *res = NULL;
    PyArrayObject *a[6] = {NULL, NULL, NULL, NULL, NULL, NULL}, *R = NULL, *L = NULL;
    long long n1, n2, m, P = 0, Q = 0, max_sweeps = 0;
    int method, codes[SP_MAX_STARTS], stop[SP_MAX_STARTS];
    wpart_spatial_stats_t stats[SP_MAX_STARTS];
    double time_limit = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "LLOOOOOOLiO|LLLOd", kwlist, &n1, &n2, &o[0],
                                     &o[1], &o[2], &o[3], &o[4], &o[5], &m, &method, &stobj, &P,
                                     &Q, &max_sweeps, &progress, &time_limit)) {
        return NULL;
    }
    int t = wpy_loads_typenum(o[2], "rv");
    int k = t < 0 ? -1 : sp_start_codes(stobj, codes);
    if (k < 0 || sp_check_m(m) < 0) {
        return NULL;
    }
    if (sp_sparse_arrays(o, t, n1, n2, a) < 0 || sp_starts_out(k, m, t, &R, &L) < 0) {
        goto cleanup;
    }
    wpy_control_t ctl;
    wpy_control_setup(&ctl, progress, time_limit);
    wpart_spatial_options_t opt;
    sp_options(&opt, NULL, method, 0, P, Q, max_sweeps, 0, &ctl);
    const void *d[6];
    for (int i = 0; i < 6; i++) {
        d[i] = a[i] ? PyArray_DATA(a[i]) : NULL;
    }
    int64_t ran = 0;
    wpart_status_t st;
    Py_BEGIN_ALLOW_THREADS
    if (t == NPY_INT64) {
        st = wpart_i_spatial_sparse_starts_i64(n1, n2, d[0], d[1], d[2], d[3], d[4], d[5],
                                               (int64_t)m, &opt, k, codes, PyArray_DATA(R),
                                               PyArray_DATA(L), stats, stop, &ran);
    } else {
        st = wpart_i_spatial_sparse_starts_f64(n1, n2, d[0], d[1], d[2], d[3], d[4], d[5],
                                               (int64_t)m, &opt, k, codes, PyArray_DATA(R),
                                               PyArray_DATA(L), stats, stop, &ran);
    }
    Py_END_ALLOW_THREADS
    res = sp_starts_result(st, R, L, stats, stop, ran);
cleanup:
    for (int i = 0; i < 6; i++) {
        Py_XDECREF(a[i]);
    }
    WPY_XDECREF(R, L);
    return res;
}

/* loads of rects (m x 4) in the CSR matrix (rp, ci, rv) of n1 x n2 */
static PyObject *wpy_spatial_sparse_loads(PyObject *self, PyObject *args)
{
    PyObject *o[4], *res = NULL;
    long long n1, n2;
    PyArrayObject *a[4] = {NULL, NULL, NULL, NULL}, *out = NULL;
    static const char *names[4] = {"rp", "ci", "rv", "rects"};
    if (!PyArg_ParseTuple(args, "LLOOOO", &n1, &n2, &o[0], &o[1], &o[2], &o[3])) {
        return NULL;
    }
    int t = wpy_loads_typenum(o[2], "rv");
    if (t < 0) {
        return NULL;
    }
    for (int i = 0; i < 4; i++) {
        a[i] = wpy_input_array(o[i], names[i], i == 2 ? t : NPY_INT64, i == 3 ? 2 : 1,
                               i == 3 ? 2 : 1);
        if (!a[i]) {
            goto cleanup;
        }
    }
    if (n1 < 1 || n2 < 1 || PyArray_DIM(a[0], 0) != n1 + 1 ||
        PyArray_DIM(a[1], 0) != PyArray_DIM(a[2], 0) || PyArray_DIM(a[3], 1) != 4 ||
        ((const int64_t *)PyArray_DATA(a[0]))[n1] != (int64_t)PyArray_DIM(a[1], 0)) {
        PyErr_SetString(wpy_ValueError, "malformed CSR arrays or rectangles");
        goto cleanup;
    }
    npy_intp m = PyArray_DIM(a[3], 0);
    out = (PyArrayObject *)PyArray_ZEROS(1, &m, t, 0);
    if (!out) {
        goto cleanup;
    }
    wpart_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = t == NPY_INT64
             ? wpart_i_spatial_sparse_loads_i64(n1, n2, PyArray_DATA(a[0]), PyArray_DATA(a[1]),
                                                PyArray_DATA(a[2]), (int64_t)m,
                                                PyArray_DATA(a[3]), PyArray_DATA(out))
             : wpart_i_spatial_sparse_loads_f64(n1, n2, PyArray_DATA(a[0]), PyArray_DATA(a[1]),
                                                PyArray_DATA(a[2]), (int64_t)m,
                                                PyArray_DATA(a[3]), PyArray_DATA(out));
    Py_END_ALLOW_THREADS
    res = wpy_result(st, NULL, &out);
cleanup:
    WPY_XDECREF(a[0], a[1], a[2], a[3], out);
    return res;
}

static PyObject *wpy_spatial_hier_rb3d(PyObject *self, PyObject *args)
{
    PyObject *sobj, *res = NULL;
    long long m;
    int rule = 0;
    PyArrayObject *S = NULL, *out = NULL;
    if (!PyArg_ParseTuple(args, "OL|i", &sobj, &m, &rule)) {
        return NULL;
    }
    int t;
    S = sp_prefix_m(sobj, m, 3, "array", &t);
    if (!S) {
        return NULL;
    }
    npy_intp shp[2] = {(npy_intp)m, 6};
    out = (PyArrayObject *)PyArray_ZEROS(2, shp, NPY_INT64, 0);
    if (!out) {
        goto cleanup;
    }
    int64_t n1 = PyArray_DIM(S, 0) - 1, n2 = PyArray_DIM(S, 1) - 1, n3 = PyArray_DIM(S, 2) - 1;
    wpart_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = t == NPY_INT64 ? wpart_spatial_hier_rb3d_i64(PyArray_DATA(S), n1, n2, n3, (int64_t)m,
                                                      (wpart_spatial_rule_t)rule,
                                                      PyArray_DATA(out))
                        : wpart_spatial_hier_rb3d_f64(PyArray_DATA(S), n1, n2, n3, (int64_t)m,
                                                      (wpart_spatial_rule_t)rule,
                                                      PyArray_DATA(out));
    Py_END_ALLOW_THREADS
    res = wpy_result(st, NULL, &out);
cleanup:
    WPY_XDECREF(S, out);
    return res;
}

static PyObject *wpy_spatial_alloc(PyObject *self, PyObject *args)
{
    PyObject *lobj, *capobj = Py_None, *res = NULL;
    long long m;
    PyArrayObject *L = NULL, *cap = NULL, *out = NULL;
    if (!PyArg_ParseTuple(args, "OL|O", &lobj, &m, &capobj)) {
        return NULL;
    }
    int t = wpy_loads_typenum(lobj, "loads");
    if (t < 0 || sp_check_m(m) < 0) {
        return NULL;
    }
    L = wpy_input_array(lobj, "loads", t, 1, 1);
    if (!L) {
        goto cleanup;
    }
    npy_intp K = PyArray_DIM(L, 0);
    if (capobj != Py_None) {
        cap = wpy_input_array(capobj, "cap", NPY_INT64, 1, 1);
        if (!cap) {
            goto cleanup;
        }
        if (PyArray_DIM(cap, 0) != K) {
            PyErr_SetString(wpy_ValueError, "`cap` must have the length of `loads`");
            goto cleanup;
        }
    }
    out = (PyArrayObject *)PyArray_ZEROS(1, &K, NPY_INT64, 0);
    if (!out) {
        goto cleanup;
    }
    const int64_t *cp = cap ? PyArray_DATA(cap) : NULL;
    wpy_control_t ctl;
    wpy_control_setup(&ctl, Py_None, 0.0);
    wpart_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = t == NPY_INT64
             ? wpart_i_spatial_alloc_i64(PyArray_DATA(L), (int64_t)K, (int64_t)m, cp, &ctl.ctl,
                                         PyArray_DATA(out))
             : wpart_i_spatial_alloc_f64(PyArray_DATA(L), (int64_t)K, (int64_t)m, cp, &ctl.ctl,
                                         PyArray_DATA(out));
    Py_END_ALLOW_THREADS
    res = wpy_result(st, "`loads`", &out);
cleanup:
    WPY_XDECREF(L, cap, out);
    return res;
}

/* The functions (their signatures: wpart/_core.pyi):
 * - spatial_partition: Rectangular partition of a 2D prefix: (rects, stats).
 * - spatial_sparse_partition: RECT-UNIFORM / RECT-NICOL / JAG-PQ-HEUR / JAG-M-* on CSR (+ CSC)
 *   arrays: (rects, stats).
 * - spatial_partition_starts: RECT-NICOL / JAG-PQ-HEUR from several starts on a 2D prefix: (rects,
 *   loads, stats).
 * - spatial_sparse_starts: RECT-NICOL / JAG-PQ-HEUR from several starts on CSR (+ CSC) arrays:
 *   (rects, loads, stats).
 * - spatial_sparse_loads: Loads of rectangles (m x 4) in a CSR matrix (columns sorted within
 *   rows).
 * - spatial_hier_rb3d: 3D HIER-RB on a bordered 3D prefix: boxes (m x 6).
 * - spatial_alloc: Proportional allocation of m parts to K blocks (Sec. 3.3 of Saule et al.). */
static PyMethodDef spatial_methods[] = {
    {"spatial_partition", WPY_CFUNC(wpy_spatial_partition), WPY_KW, NULL},
    {"spatial_sparse_partition", WPY_CFUNC(wpy_spatial_sparse_partition), WPY_KW, NULL},
    {"spatial_partition_starts", WPY_CFUNC(wpy_spatial_partition_starts), WPY_KW, NULL},
    {"spatial_sparse_starts", WPY_CFUNC(wpy_spatial_sparse_starts), WPY_KW, NULL},
    {"spatial_sparse_loads", wpy_spatial_sparse_loads, METH_VARARGS, NULL},
    {"spatial_hier_rb3d", wpy_spatial_hier_rb3d, METH_VARARGS, NULL},
    {"spatial_alloc", wpy_spatial_alloc, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

/* The core's enum values, exported so that the Python method table (wpart/spatial/_common.py)
 * names each C entry instead of relying on an order. */
static const struct {
    const char *name;
    int value;
} spatial_constants[] = {
    {"SP_RECT_UNIFORM", WPART_SP_RECT_UNIFORM},
    {"SP_RECT_NICOL", WPART_SP_RECT_NICOL},
    {"SP_JAG_PQ_HEUR", WPART_SP_JAG_PQ_HEUR},
    {"SP_JAG_PQ_OPT_NICOL", WPART_SP_JAG_PQ_OPT_NICOL},
    {"SP_JAG_PQ_OPT_DP", WPART_SP_JAG_PQ_OPT_DP},
    {"SP_JAG_M_HEUR", WPART_SP_JAG_M_HEUR},
    {"SP_JAG_M_PROBE", WPART_SP_JAG_M_PROBE},
    {"SP_JAG_M_HEUR_PROBE", WPART_SP_JAG_M_HEUR_PROBE},
    {"SP_JAG_M_ALLOC", WPART_SP_JAG_M_ALLOC},
    {"SP_JAG_M_OPT", WPART_SP_JAG_M_OPT},
    {"SP_HIER_RB", WPART_SP_HIER_RB},
    {"SP_HIER_RELAXED", WPART_SP_HIER_RELAXED},
    {"SP_HIER_OPT", WPART_SP_HIER_OPT},
    {"SP_HYBRID", WPART_SP_HYBRID},
    {"SP_HOR", WPART_SP_HOR},
    {"SP_VER", WPART_SP_VER},
    {"SP_BEST", WPART_SP_BEST},
    {"SP_RULE_LOAD", WPART_SP_LOAD},
    {"SP_RULE_DIST", WPART_SP_DIST},
    {"SP_RULE_HOR", WPART_SP_DIMHOR},
    {"SP_RULE_VER", WPART_SP_DIMVER},
};

int wpy_spatial_init(PyObject *m)
{
    for (size_t i = 0; i < sizeof spatial_constants / sizeof spatial_constants[0]; i++) {
        if (PyModule_AddIntConstant(m, spatial_constants[i].name, spatial_constants[i].value) <
            0) {
            return -1;
        }
    }
    return PyModule_AddFunctions(m, spatial_methods);
}
