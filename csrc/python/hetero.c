/* hetero.c -- binding of wpart.hetero: discrete time/energy profiles (CSR) in, fronts and
 * distributions out. Validation of the profiles happens in wpart/hetero/ (clear messages) and
 * again in the core.
 *
 * A time limit is not an error: every solver entry returns the string "time_limit" instead of
 * its result when the core stopped on it (WPART_ECANCELLED with no Python exception pending).
 * A stop requested by a control hook (Ctrl-C, an exception or a cancel from the progress
 * callable) always leaves its Python exception pending, which is raised as is. */
#include <math.h>

#include "wpy.h"

/* After a solve: 0 when st is WPART_OK; 1 when the call is over: *res = 'time_limit' when
 * the core stopped on its time limit (not on a hook's stop request), else st's exception. */
static int hetero_stopped(wpart_status_t st, PyObject **res)
{
    if (st == WPART_OK) {
        return 0;
    }
    if (st == WPART_ECANCELLED && !PyErr_Occurred()) {
        wpart_clear_error();
        *res = PyUnicode_FromString("time_limit");
    } else {
        wpy_raise(st, NULL);
    }
    return 1;
}

/* The options of a solve: the defaults, max_grid, and the control hooks in ctl. */
static void hetero_options(wpart_hetero_options_t *opt, wpy_control_t *ctl, long long max_grid,
                           PyObject *progress, double time_limit)
{
    wpart_hetero_options_init(opt);
    opt->max_grid = (int64_t)max_grid;
    wpy_control_setup(ctl, progress, time_limit);
    opt->control = &ctl->ctl;
}

typedef struct {
    PyArrayObject *off, *size, *time, *energy;
    wpart_hetero_profiles_t P;
} wpy_prof_t;

static void prof_release(wpy_prof_t *w)
{
    WPY_XDECREF(w->off, w->size, w->time, w->energy);
}

static int prof_convert(wpy_prof_t *w, PyObject *o, PyObject *s, PyObject *t, PyObject *e)
{
    w->off = wpy_input_array(o, "offsets", NPY_INT64, 1, 1);
    w->size = w->off ? wpy_input_array(s, "sizes", NPY_INT64, 1, 1) : NULL;
    w->time = w->size ? wpy_input_array(t, "times", NPY_FLOAT64, 1, 1) : NULL;
    w->energy = w->time ? wpy_input_array(e, "energies", NPY_FLOAT64, 1, 1) : NULL;
    if (!w->energy) {
        return -1;
    }
    npy_intp p1 = PyArray_DIM(w->off, 0), m = PyArray_DIM(w->size, 0);
    if (p1 < 2) {
        PyErr_SetString(wpy_ValueError, "`profiles` must describe at least one processor");
        return -1;
    }
    if (PyArray_DIM(w->time, 0) != m || PyArray_DIM(w->energy, 0) != m ||
        ((const int64_t *)PyArray_DATA(w->off))[p1 - 1] != (int64_t)m) {
        PyErr_SetString(wpy_ValueError, "`profiles`: inconsistent CSR arrays");
        return -1;
    }
    w->P.p = (int64_t)(p1 - 1);
    w->P.offsets = PyArray_DATA(w->off);
    w->P.size = PyArray_DATA(w->size);
    w->P.time = PyArray_DATA(w->time);
    w->P.energy = PyArray_DATA(w->energy);
    return 0;
}

static PyObject *front_to_tuple(const wpart_hetero_front_t *f)
{
    npy_intp k = (npy_intp)f->count, d2[2] = {k, (npy_intp)f->p};
    PyArrayObject *E = (PyArrayObject *)PyArray_SimpleNew(1, &k, NPY_FLOAT64);
    PyArrayObject *D = (PyArrayObject *)PyArray_SimpleNew(1, &k, NPY_FLOAT64);
    PyArrayObject *T = (PyArrayObject *)PyArray_SimpleNew(1, &k, NPY_FLOAT64);
    PyArrayObject *X = (PyArrayObject *)PyArray_SimpleNew(2, d2, NPY_INT64);
    if (!E || !D || !T || !X) {
        WPY_XDECREF(E, D, T, X);
        return NULL;
    }
    if (k > 0) {
        memcpy(PyArray_DATA(E), f->energy, (size_t)k * sizeof(double));
        memcpy(PyArray_DATA(D), f->dynamic_energy, (size_t)k * sizeof(double));
        memcpy(PyArray_DATA(T), f->time, (size_t)k * sizeof(double));
        memcpy(PyArray_DATA(X), f->dist, (size_t)(k * f->p) * sizeof(int64_t));
    }
    return Py_BuildValue("NNNN", E, D, T, X);
}

static const char *const front_kinds[] = {"hepopta", "htpopta", "threshold_dp", "bruteforce",
                                          NULL};

static PyObject *wpy_hetero_front(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"kind", "n", "offsets", "sizes", "times", "energies",
                             "energy_threshold", "static_power", "max_leaves", "progress",
                             "time_limit", "max_grid", NULL};
    PyObject *kobj, *o, *s, *t, *e, *progress = Py_None, *res = NULL;
    long long n, max_leaves = 10000000, max_grid = 10000000;
    double eps = NAN, ps = 0.0, time_limit = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OLOOOO|ddLOdL", kwlist, &kobj, &n, &o, &s, &t,
                                     &e, &eps, &ps, &max_leaves, &progress, &time_limit,
                                     &max_grid)) {
        return NULL;
    }
    int kind = wpy_choice(kobj, "kind", front_kinds);
    if (kind < 0) {
        return NULL;
    }
    wpy_prof_t w = {0};
    if (prof_convert(&w, o, s, t, e) < 0) {
        prof_release(&w);
        return NULL;
    }
    wpart_hetero_options_t opt;
    wpy_control_t ctl;
    hetero_options(&opt, &ctl, max_grid, progress, time_limit);
    opt.energy_threshold = eps;
    wpart_hetero_front_t f = {0};
    wpart_hetero_stats_t stats = {0};
    wpart_status_t st;
    Py_BEGIN_ALLOW_THREADS
    switch (kind) {
    case 0:
        st = wpart_hetero_hepopta((int64_t)n, &w.P, &opt, &f, &stats);
        break;
    case 1:
        st = wpart_hetero_htpopta((int64_t)n, &w.P, ps, &opt, &f, &stats);
        break;
    case 2:
        st = wpart_hetero_threshold_dp((int64_t)n, &w.P, &opt, &f);
        break;
    default:
        st = wpart_hetero_bruteforce_ctl((int64_t)n, &w.P, (int64_t)max_leaves, &ctl.ctl, &f);
        break;
    }
    Py_END_ALLOW_THREADS
    if (hetero_stopped(st, &res)) {
        goto cleanup;
    }
    PyObject *ft = front_to_tuple(&f);
    if (!ft) {
        goto cleanup;
    }
    res = Py_BuildValue("N{sLsdsdsLsLsLsLsLsLsd}", ft, "skipped", (long long)stats.skipped, "t_opt", stats.t_opt, "energy_threshold",
                        stats.energy_threshold, "granularity", (long long)stats.granularity,
                        "cells", (long long)stats.cells, "memo_hits",
                        (long long)stats.memo_hits, "cuts", (long long)stats.cuts, "candidates",
                        (long long)stats.candidates, "peak_tuples",
                        (long long)stats.peak_tuples, "seconds", stats.seconds);
cleanup:
    wpart_hetero_front_free(&f);
    prof_release(&w);
    return res;
}

static const char *const point_kinds[] = {"time_optimal", "energy_optimal", "load_balanced",
                                          "load_balanced_all", NULL};

static PyObject *wpy_hetero_point(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"kind", "n", "offsets", "sizes", "times", "energies", "progress",
                             "time_limit", "max_grid", NULL};
    PyObject *kobj, *o, *s, *t, *e, *progress = Py_None, *res = NULL;
    long long n, max_grid = 10000000;
    double time_limit = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OLOOOO|OdL", kwlist, &kobj, &n, &o, &s, &t, &e,
                                     &progress, &time_limit, &max_grid)) {
        return NULL;
    }
    int kind = wpy_choice(kobj, "kind", point_kinds);
    if (kind < 0) {
        return NULL;
    }
    wpy_prof_t w = {0};
    PyArrayObject *X = NULL;
    if (prof_convert(&w, o, s, t, e) < 0) {
        goto cleanup;
    }
    npy_intp p = (npy_intp)w.P.p;
    X = (PyArrayObject *)PyArray_ZEROS(1, &p, NPY_INT64, 0);
    if (!X) {
        goto cleanup;
    }
    wpart_hetero_options_t opt;
    wpy_control_t ctl;
    hetero_options(&opt, &ctl, max_grid, progress, time_limit);
    int feasible = 0;
    double T = 0, E = 0;
    int64_t *d = PyArray_DATA(X);
    wpart_status_t st;
    Py_BEGIN_ALLOW_THREADS
    switch (kind) {
    case 0:
        st = wpart_hetero_time_optimal((int64_t)n, &w.P, &opt, &feasible, &T, &E, d);
        break;
    case 1:
        st = wpart_hetero_energy_optimal((int64_t)n, &w.P, &opt, &feasible, &T, &E, d);
        break;
    case 2:
        st = wpart_hetero_load_balanced((int64_t)n, &w.P, WPART_HETERO_LB_MAX_ACTIVE, &opt,
                                        &feasible, &T, &E, d);
        break;
    default:
        st = wpart_hetero_load_balanced((int64_t)n, &w.P, WPART_HETERO_LB_ALL_ACTIVE, &opt,
                                        &feasible, &T, &E, d);
        break;
    }
    Py_END_ALLOW_THREADS
    if (hetero_stopped(st, &res)) {
        goto cleanup;
    }
    if (!feasible) {
        res = Py_None;
        Py_INCREF(res);
    } else {
        res = Py_BuildValue("ddO", T, E, X);
    }
cleanup:
    Py_XDECREF(X);
    prof_release(&w);
    return res;
}

static PyObject *wpy_hetero_total_energy(PyObject *self, PyObject *args)
{
    PyObject *eo, *to, *xo, *res = NULL;
    double ps;
    PyArrayObject *E = NULL, *T = NULL, *X = NULL;
    if (!PyArg_ParseTuple(args, "OOOd", &eo, &to, &xo, &ps)) {
        return NULL;
    }
    E = wpy_input_array(eo, "energy", NPY_FLOAT64, 1, 1);
    T = E ? wpy_input_array(to, "time", NPY_FLOAT64, 1, 1) : NULL;
    X = T ? wpy_input_array(xo, "dist", NPY_INT64, 2, 2) : NULL;
    if (!X) {
        goto cleanup;
    }
    npy_intp k = PyArray_DIM(E, 0);
    if (PyArray_DIM(T, 0) != k || PyArray_DIM(X, 0) != k) {
        PyErr_SetString(wpy_ValueError, "`front`: energy, time and dist lengths differ");
        goto cleanup;
    }
    wpart_hetero_front_t ep = {.p = (int64_t)PyArray_DIM(X, 1), .count = (int64_t)k,
                               .energy = PyArray_DATA(E), .dynamic_energy = PyArray_DATA(E),
                               .time = PyArray_DATA(T), .dist = PyArray_DATA(X)};
    wpart_hetero_front_t f = {0};
    wpart_status_t st;
    WPY_NOGIL(st = wpart_hetero_total_energy_front(&ep, ps, &f));
    if (st != WPART_OK) {
        wpy_raise(st, "static_power");
        goto cleanup;
    }
    res = front_to_tuple(&f);
    wpart_hetero_front_free(&f);
cleanup:
    WPY_XDECREF(E, T, X);
    return res;
}

static PyObject *wpy_hetero_eval(PyObject *self, PyObject *args)
{
    PyObject *o, *s, *t, *e, *xo, *res = NULL;
    PyArrayObject *X = NULL;
    wpy_prof_t w = {0};
    if (!PyArg_ParseTuple(args, "OOOOO", &o, &s, &t, &e, &xo)) {
        return NULL;
    }
    if (prof_convert(&w, o, s, t, e) < 0) {
        goto cleanup;
    }
    X = wpy_input_array(xo, "dist", NPY_INT64, 1, 1);
    if (!X) {
        goto cleanup;
    }
    if (PyArray_DIM(X, 0) != w.P.p) {
        PyErr_Format(wpy_ValueError,
                     "`dist` must have length m = %lld (one share per processor), got %zd",
                     (long long)w.P.p, (Py_ssize_t)PyArray_DIM(X, 0));
        goto cleanup;
    }
    double T, E;
    wpart_status_t st = wpart_hetero_eval(&w.P, PyArray_DATA(X), &T, &E);
    if (st != WPART_OK) {
        wpy_raise(st, "dist");
        goto cleanup;
    }
    res = Py_BuildValue("dd", T, E);
cleanup:
    Py_XDECREF(X);
    prof_release(&w);
    return res;
}

static PyObject *wpy_hetero_dgemm(PyObject *self, PyObject *args)
{
    PyObject *ao, *bo, *co;
    PyArrayObject *A = NULL, *B = NULL;
    PyObject *res = NULL;
    if (!PyArg_ParseTuple(args, "OOO", &ao, &bo, &co)) {
        return NULL;
    }
    A = wpy_input_array(ao, "A", NPY_FLOAT64, 2, 2);
    B = A ? wpy_input_array(bo, "B", NPY_FLOAT64, 2, 2) : NULL;
    if (!B) {
        goto cleanup;
    }
    npy_intp M = PyArray_DIM(A, 0), K = PyArray_DIM(A, 1), N = PyArray_DIM(B, 1);
    if (PyArray_DIM(B, 0) != K) {
        PyErr_Format(wpy_ValueError, "`B` must have %zd rows, got %zd", (Py_ssize_t)K,
                     (Py_ssize_t)PyArray_DIM(B, 0));
        goto cleanup;
    }
    npy_intp shp[2] = {M, N};
    if (wpy_check_output(co, "C", NPY_FLOAT64, 2, shp) < 0) {
        goto cleanup;
    }
    wpart_status_t st;
    WPY_NOGIL(st = wpart_hetero_kernel_dgemm((int64_t)M, (int64_t)N, (int64_t)K, PyArray_DATA(A),
                                             PyArray_DATA(B), PyArray_DATA((PyArrayObject *)co)));
    if (st != WPART_OK) {
        wpy_raise(st, "dgemm");
        goto cleanup;
    }
    res = Py_None;
    Py_INCREF(res);
cleanup:
    WPY_XDECREF(A, B);
    return res;
}

static PyObject *wpy_hetero_milp_front(PyObject *self, PyObject *args)
{
    PyObject *o, *s, *t, *e, *res = NULL;
    long long n;
    double time_limit = 0.0;
    wpy_prof_t w = {0};
    wpart_hetero_front_t f = {0};
    if (!PyArg_ParseTuple(args, "LOOOO|d", &n, &o, &s, &t, &e, &time_limit)) {
        return NULL;
    }
    if (prof_convert(&w, o, s, t, e) < 0) {
        goto cleanup;
    }
    if (wpy_glpk_acquire("milp_front") < 0) {
        goto cleanup;
    }
    /* GIL held on purpose: GLPK's hooks are process-global (see wpart/milp.h). The control
     * hooks see Ctrl-C once per branch-and-bound node; the lock keeps other threads out. */
    wpy_control_t ctl;
    wpy_control_setup(&ctl, NULL, 0.0);
    wpart_status_t st = wpart_hetero_milp_front((int64_t)n, &w.P, time_limit, &ctl.ctl, &f);
    wpy_glpk_release();
    if (hetero_stopped(st, &res)) {
        goto cleanup;
    }
    res = front_to_tuple(&f);
cleanup:
    wpart_hetero_front_free(&f);
    prof_release(&w);
    return res;
}

/* Newlines + 1: an upper bound on the rows of a buffer. */
static int64_t count_lines(const char *b, size_t len)
{
    int64_t n = 1;
    for (const char *p = b, *end = b + len; (p = memchr(p, '\n', (size_t)(end - p))) != NULL;
         p++) {
        n++;
    }
    return n;
}

/* A parse error the Python reader re-reads itself: the detail string "line L, column C: ...". */
static PyObject *parse_fallback(wpart_status_t st)
{
    if (st != WPART_EINVAL && st != WPART_ELIMIT) {
        return wpy_raise(st, "profile file");
    }
    PyObject *r = PyUnicode_FromString(wpart_last_error());
    wpart_clear_error();
    return r;
}

/* The line count of the bytes (GIL released): the capacity of the parse's arrays. */
static int64_t bytes_lines(const char *buf, size_t len)
{
    int64_t cap;
    WPY_NOGIL(cap = count_lines(buf, len));
    return cap;
}

static PyObject *wpy_hetero_parse_points(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *data;
    if (!PyArg_ParseTuple(args, "S", &data)) {
        return NULL;
    }
    const char *buf = PyBytes_AS_STRING(data);
    size_t len = (size_t)PyBytes_GET_SIZE(data);
    int64_t cap = bytes_lines(buf, len);
    npy_intp d = (npy_intp)cap;
    PyArrayObject *S = (PyArrayObject *)PyArray_SimpleNew(1, &d, NPY_INT64);
    PyArrayObject *T = (PyArrayObject *)PyArray_SimpleNew(1, &d, NPY_FLOAT64);
    PyArrayObject *E = (PyArrayObject *)PyArray_SimpleNew(1, &d, NPY_FLOAT64);
    PyObject *res = NULL;
    if (!S || !T || !E) {
        goto done;
    }
    int64_t rows = 0, bl = 0, bc = 0;
    int ncol = 0;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_hetero_parse_points(buf, len, cap, &rows, &ncol, PyArray_DATA(S),
                                             PyArray_DATA(T), PyArray_DATA(E), &bl, &bc));
    res = st == WPART_OK ? Py_BuildValue("(LiOOO)", (long long)rows, ncol, S, T, E)
                         : parse_fallback(st);
done:
    WPY_XDECREF(S, T, E);
    return res;
}

static PyObject *wpy_hetero_parse_csv(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *data;
    int nf, cp, cs, ct, ce;
    if (!PyArg_ParseTuple(args, "Siiiii", &data, &nf, &cp, &cs, &ct, &ce)) {
        return NULL;
    }
    const char *buf = PyBytes_AS_STRING(data);
    size_t len = (size_t)PyBytes_GET_SIZE(data);
    int64_t cap = bytes_lines(buf, len);
    npy_intp d = (npy_intp)cap;
    PyArrayObject *a[6] = {NULL};
    const int types[6] = {NPY_INT64, NPY_INT64, NPY_FLOAT64, NPY_FLOAT64, NPY_INT64, NPY_INT64};
    PyObject *res = NULL;
    for (int i = 0; i < 6; i++) {
        if (!(a[i] = (PyArrayObject *)PyArray_SimpleNew(1, &d, types[i]))) {
            goto done;
        }
    }
    int64_t rows = 0, names = 0, bl = 0, bc = 0;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_hetero_parse_csv(buf, len, nf, cp, cs, ct, ce, cap, &rows,
                                          PyArray_DATA(a[0]), PyArray_DATA(a[1]),
                                          PyArray_DATA(a[2]), PyArray_DATA(a[3]),
                                          PyArray_DATA(a[4]), PyArray_DATA(a[5]), &names, &bl,
                                          &bc));
    res = st == WPART_OK ? Py_BuildValue("(LLOOOOOO)", (long long)rows, (long long)names, a[0],
                                         a[1], a[2], a[3], a[4], a[5])
                         : parse_fallback(st);
done:
    for (int i = 0; i < 6; i++) {
        Py_XDECREF(a[i]);
    }
    return res;
}

/* The functions (their signatures: wpart/_core.pyi):
 * - hetero_front: Front of a hetero instance: ((energy, dynamic, time, dist), stats), or
 *   'time_limit'.
 * - hetero_point: One distribution (time, energy, dist), None (infeasible) or 'time_limit'.
 * - hetero_total_energy: Total-energy filter of a dynamic-energy front.
 * - hetero_eval: (time, energy) of a distribution.
 * - hetero_milp_front: Epsilon-constraint MILP front (GLPK): (energy, dynamic, time, dist), or
 *   'time_limit'.
 * - hetero_dgemm: C += A @ B (blocked C kernel, GIL released).
 * - hetero_parse_points: Bulk parse of `size time [energy]` bytes: (rows, ncol, sizes, time,
 *   energy) with cap-long arrays, or the detail string of the first bad line (GIL released).
 * - hetero_parse_csv: Bulk parse of a profile CSV body: (rows, names, code, sizes, time, energy,
 *   name_off, name_len), or the detail string of the first bad line (GIL released). */
static PyMethodDef hetero_methods[] = {
    {"hetero_front", WPY_CFUNC(wpy_hetero_front), WPY_KW, NULL},
    {"hetero_point", WPY_CFUNC(wpy_hetero_point), WPY_KW, NULL},
    {"hetero_total_energy", wpy_hetero_total_energy, METH_VARARGS, NULL},
    {"hetero_eval", wpy_hetero_eval, METH_VARARGS, NULL},
    {"hetero_milp_front", wpy_hetero_milp_front, METH_VARARGS, NULL},
    {"hetero_dgemm", wpy_hetero_dgemm, METH_VARARGS, NULL},
    {"hetero_parse_points", wpy_hetero_parse_points, METH_VARARGS, NULL},
    {"hetero_parse_csv", wpy_hetero_parse_csv, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

WPY_DEFINE_INIT(hetero, hetero_methods)
