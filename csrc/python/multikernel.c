/* multikernel.c -- binding of the multi-kernel decisions (wpart/multikernel.h).
 *
 * The state machines (bisection generator, configuration search, detector, adaptive binary
 * search) keep their C state in a bytearray owned by the Python object
 * (wpart/dynamic/multikernel/_decide.py); the functions here check its size and copy it in and
 * out. Arrays must already have the exact dtype (the Python layer converts and validates).
 */
#include "wpy.h"
#include "wpart/multikernel.h"

/* A 1-D array of typenum (new reference) or NULL with an error naming it. */
static PyArrayObject *vec(PyObject *obj, const char *name, int typenum)
{
    return wpy_input_array(obj, name, typenum, 1, 1);
}

static PyObject *new_i64(npy_intp n)
{
    return PyArray_SimpleNew(1, &n, NPY_INT64);
}

static PyObject *new_f64(npy_intp n)
{
    return PyArray_SimpleNew(1, &n, NPY_FLOAT64);
}

static int length32(PyArrayObject *a, const char *name, int32_t *n)
{
    npy_intp len = PyArray_DIM(a, 0);
    if (len > INT32_MAX) {
        PyErr_Format(wpy_ValueError, "`%s` is too long (%zd)", name, (Py_ssize_t)len);
        return -1;
    }
    *n = (int32_t)len;
    return 0;
}

/* A 1-D float64 array and its length as int32 (new reference), or NULL with an error naming it. */
static PyArrayObject *vec_f64_n(PyObject *obj, const char *name, int32_t *n)
{
    PyArrayObject *a = vec(obj, name, NPY_FLOAT64);
    if (a && length32(a, name, n) < 0) {
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

static PyObject *py_split(PyObject *self, PyObject *args)
{
    long long total;
    PyObject *so, *qo;
    if (!PyArg_ParseTuple(args, "LOO:multikernel_split", &total, &so, &qo)) {
        return NULL;
    }
    PyArrayObject *s = vec(so, "shares", NPY_FLOAT64), *q = NULL;
    PyObject *sizes = NULL, *offs = NULL;
    if (!s || !(q = vec(qo, "quanta", NPY_INT64))) {
        goto fail;
    }
    int32_t P;
    if (length32(s, "shares", &P) < 0) {
        goto fail;
    }
    if (PyArray_DIM(q, 0) != P) {
        PyErr_Format(wpy_ValueError, "`quanta` must have the length of `shares` (%d), got %zd",
                     (int)P, (Py_ssize_t)PyArray_DIM(q, 0));
        goto fail;
    }
    sizes = new_i64(P);
    offs = new_i64(P);
    if (!sizes || !offs) {
        goto fail;
    }
    wpart_status_t st;
    const double *ps = PyArray_DATA(s);
    const int64_t *pq = PyArray_DATA(q);
    int64_t *pn = PyArray_DATA((PyArrayObject *)sizes), *po = PyArray_DATA((PyArrayObject *)offs);
    wpy_control_t ctl; /* Ctrl-C while a long split runs */
    wpy_control_setup(&ctl, NULL, 0.0);
    WPY_NOGIL(st = wpart_multikernel_split_ctl(total, P, ps, pq, pn, po, &ctl.ctl));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto fail;
    }
    WPY_XDECREF(s, q);
    return Py_BuildValue("(NN)", sizes, offs);
fail:
    WPY_XDECREF(s, q, sizes, offs);
    return NULL;
}

static PyObject *py_quantum(PyObject *self, PyObject *args)
{
    PyObject *ao, *bo;
    if (!PyArg_ParseTuple(args, "OO:multikernel_quantum", &ao, &bo)) {
        return NULL;
    }
    PyArrayObject *a = vec(ao, "a", NPY_INT64), *b = NULL;
    if (!a || !(b = vec(bo, "b", NPY_INT64))) {
        Py_XDECREF(a);
        return NULL;
    }
    int32_t n;
    int64_t qv = 0;
    wpart_status_t st = WPART_EINVAL;
    if (length32(a, "a", &n) == 0) {
        if (PyArray_DIM(b, 0) != n) {
            PyErr_Format(wpy_ValueError, "`b` must have the length of `a`");
        } else {
            st = wpart_multikernel_quantum(n, PyArray_DATA(a), PyArray_DATA(b), &qv);
            if (st != WPART_OK) {
                wpy_raise(st, "constraints");
            }
        }
    }
    WPY_XDECREF(a, b);
    if (st != WPART_OK) {
        return NULL;
    }
    return PyLong_FromLongLong(qv);
}

static PyObject *py_lop(PyObject *self, PyObject *args)
{
    int c, o, g, cu, gu;
    if (!PyArg_ParseTuple(args, "iiipp:multikernel_level_of_parallelism", &c, &o, &g, &cu, &gu)) {
        return NULL;
    }
    int64_t lop;
    wpart_status_t st = wpart_multikernel_level_of_parallelism(c, o, g, cu, gu, &lop);
    if (st != WPART_OK) {
        return wpy_raise(st, NULL);
    }
    return PyLong_FromLongLong(lop);
}

static PyObject *py_exec_shares(PyObject *self, PyObject *args)
{
    double s;
    PyObject *go;
    int overlap, csub;
    if (!PyArg_ParseTuple(args, "dOii:multikernel_exec_shares", &s, &go, &overlap, &csub)) {
        return NULL;
    }
    PyArrayObject *g = vec(go, "gpu_scores", NPY_FLOAT64);
    if (!g) {
        return NULL;
    }
    int32_t G;
    if (length32(g, "gpu_scores", &G) < 0 || overlap < 1 || csub < 0 ||
        (int64_t)G * overlap + csub > INT32_MAX) {
        Py_DECREF(g);
        if (!PyErr_Occurred()) {
            PyErr_Format(wpy_ValueError, "`overlap` must be >= 1 and `cpu_subdevices` >= 0");
        }
        return NULL;
    }
    PyObject *out = new_f64((npy_intp)G * overlap + csub);
    if (!out) {
        Py_DECREF(g);
        return NULL;
    }
    wpart_status_t st = wpart_multikernel_exec_shares(s, G, PyArray_DATA(g), overlap, csub,
                                             PyArray_DATA((PyArrayObject *)out));
    Py_DECREF(g);
    if (st != WPART_OK) {
        Py_DECREF(out);
        return wpy_raise(st, NULL);
    }
    return out;
}

static PyObject *py_seed_share(PyObject *self, PyObject *args)
{
    PyObject *go;
    double cpu;
    if (!PyArg_ParseTuple(args, "Od:multikernel_seed_share", &go, &cpu)) {
        return NULL;
    }
    int32_t G;
    PyArrayObject *g = vec_f64_n(go, "gpu_scores", &G);
    if (!g) {
        return NULL;
    }
    double s = 0.0;
    wpart_status_t st = wpart_multikernel_seed_share(G, PyArray_DATA(g), cpu, &s);
    Py_DECREF(g);
    return st == WPART_OK ? PyFloat_FromDouble(s) : wpy_raise(st, NULL);
}

static int parse_caps(PyObject *o, wpart_multikernel_gpu_caps_t *c)
{
    if (!PyArg_ParseTuple(o, "iiiiiiii", &c->wavefront, &c->simds_cu, &c->max_waves_simd,
                          &c->max_waves_cu, &c->max_wg_cu, &c->lds_cu, &c->vgprs_lane,
                          &c->max_wgs)) {
        return -1;
    }
    return 0;
}

static PyObject *py_occupancy(PyObject *self, PyObject *args)
{
    PyObject *co;
    int wgs, lds, vgpr;
    wpart_multikernel_gpu_caps_t c;
    if (!PyArg_ParseTuple(args, "O!iii:multikernel_occupancy", &PyTuple_Type, &co, &wgs, &lds, &vgpr) ||
        parse_caps(co, &c) < 0) {
        return NULL;
    }
    double occ;
    wpart_status_t st = wpart_multikernel_occupancy(&c, wgs, lds, vgpr, &occ);
    if (st != WPART_OK) {
        return wpy_raise(st, NULL);
    }
    return PyFloat_FromDouble(occ);
}

static PyObject *py_wgs_candidates(PyObject *self, PyObject *args)
{
    PyObject *co;
    int lds, vgpr;
    double thr;
    wpart_multikernel_gpu_caps_t c;
    if (!PyArg_ParseTuple(args, "O!iid:multikernel_wgs_candidates", &PyTuple_Type, &co, &lds, &vgpr,
                          &thr) ||
        parse_caps(co, &c) < 0) {
        return NULL;
    }
    int32_t cap = c.max_wgs > 0 ? c.max_wgs : 1, cnt = 0;
    int32_t *w = PyMem_Malloc((size_t)cap * sizeof *w);
    double *o = PyMem_Malloc((size_t)cap * sizeof *o);
    if (!w || !o) {
        PyMem_Free(w);
        PyMem_Free(o);
        return wpy_nomem();
    }
    wpart_status_t st = wpart_multikernel_wgs_candidates(&c, lds, vgpr, thr, w, o, cap, &cnt);
    PyObject *ws = NULL, *os = NULL;
    if (st == WPART_OK) {
        ws = new_i64(cnt);
        os = new_f64(cnt);
        if (ws && os) {
            for (int32_t i = 0; i < cnt; i++) {
                ((int64_t *)PyArray_DATA((PyArrayObject *)ws))[i] = w[i];
                ((double *)PyArray_DATA((PyArrayObject *)os))[i] = o[i];
            }
        }
    }
    PyMem_Free(w);
    PyMem_Free(o);
    if (st != WPART_OK) {
        return wpy_raise(st, NULL);
    }
    if (!ws || !os) {
        WPY_XDECREF(ws, os);
        return NULL;
    }
    return Py_BuildValue("(NN)", ws, os);
}

/* ---------------------------------------------------------------- state machines -------- */

/* The state inside a bytearray of exactly `size` bytes, or NULL with a TypeError. */
static void *state_of(PyObject *o, size_t size, const char *what)
{
    if (!PyByteArray_Check(o) || (size_t)PyByteArray_GET_SIZE(o) != size) {
        PyErr_Format(wpy_TypeError, "not a %s state", what);
        return NULL;
    }
    return PyByteArray_AS_STRING(o);
}

/* Copy the state in `o` into `dst` (`size` bytes); returns the bytearray's buffer to copy the
 * updated state back into, or NULL with a TypeError. */
static void *state_load(PyObject *o, void *dst, size_t size, const char *what)
{
    void *p = state_of(o, size, what);
    if (p) {
        memcpy(dst, p, size);
    }
    return p;
}

/* A new state bytearray holding `st` when `status` is WPART_OK, else NULL with the error. */
static PyObject *state_new(wpart_status_t status, const void *st, size_t size)
{
    if (status != WPART_OK) {
        return wpy_raise(status, NULL);
    }
    return PyByteArray_FromStringAndSize((const char *)st, (Py_ssize_t)size);
}

static PyObject *py_bisect_new(PyObject *self, PyObject *args)
{
    double x_min;
    if (!PyArg_ParseTuple(args, "d:multikernel_bisect_new", &x_min)) {
        return NULL;
    }
    wpart_multikernel_bisect_t b;
    return state_new(wpart_multikernel_bisect_init(&b, x_min), &b, sizeof b);
}

static PyObject *py_search_new(PyObject *self, PyObject *args)
{
    int nf, no, nw;
    if (!PyArg_ParseTuple(args, "iii:multikernel_search_new", &nf, &no, &nw)) {
        return NULL;
    }
    wpart_multikernel_search_t s;
    return state_new(wpart_multikernel_search_init(&s, nf, no, nw), &s, sizeof s);
}

static PyObject *py_detector_new(PyObject *self, PyObject *args)
{
    double w, md, cf;
    int window = 1;
    if (!PyArg_ParseTuple(args, "ddd|i:multikernel_detector_new", &w, &md, &cf, &window)) {
        return NULL;
    }
    wpart_multikernel_detector_t d;
    wpart_status_t st = wpart_multikernel_detector_init(&d, w, md, cf);
    if (st == WPART_OK) {
        st = wpart_multikernel_detector_set_window(&d, (int32_t)window);
    }
    return state_new(st, &d, sizeof d);
}

static PyObject *py_detector_update(PyObject *self, PyObject *args)
{
    PyObject *o, *to;
    if (!PyArg_ParseTuple(args, "OO:multikernel_detector_update", &o, &to)) {
        return NULL;
    }
    wpart_multikernel_detector_t d;
    void *p = state_load(o, &d, sizeof d, "detector");
    int32_t n;
    PyArrayObject *t = p ? vec_f64_n(to, "t_dev", &n) : NULL;
    if (!t) {
        return NULL;
    }
    int fire = 0;
    double dev = 0.0;
    wpart_status_t st = wpart_multikernel_detector_update(&d, n, PyArray_DATA(t), &fire, &dev);
    Py_DECREF(t);
    if (st != WPART_OK) {
        return wpy_raise(st, "t_dev");
    }
    memcpy(p, &d, sizeof d);
    return Py_BuildValue("(Nd)", PyBool_FromLong(fire), dev);
}

static PyObject *py_balance_ratio(PyObject *self, PyObject *to)
{
    int32_t n;
    PyArrayObject *t = vec_f64_n(to, "t_dev", &n);
    if (!t) {
        return NULL;
    }
    double r = 0.0;
    wpart_status_t st = wpart_multikernel_balance_ratio(n, PyArray_DATA(t), &r);
    Py_DECREF(t);
    return st == WPART_OK ? PyFloat_FromDouble(r) : wpy_raise(st, NULL);
}

static PyObject *py_abs_new(PyObject *self, PyObject *args)
{
    double s, ti, tmin, tmax;
    int window = 1;
    double band = 0.0;
    if (!PyArg_ParseTuple(args, "dddd|id:multikernel_abs_new", &s, &ti, &tmin, &tmax, &window,
                          &band)) {
        return NULL;
    }
    wpart_multikernel_abs_t a;
    wpart_status_t st = wpart_multikernel_abs_start(&a, s, ti, tmin, tmax);
    if (st == WPART_OK) {
        st = wpart_multikernel_abs_set_window(&a, (int32_t)window, band);
    }
    return state_new(st, &a, sizeof a);
}

/* The steps and reads of the state machines: one switch over the operation, one table of
 * arguments. A step runs on a copy of the state, stored back when it succeeds. */
enum {
    BISECT_FEEDBACK, BISECT_GET, SEARCH_REPORT, SEARCH_GET, DETECTOR_RESET, DETECTOR_GET,
    ABS_OBSERVE, ABS_ESTIMATE, ABS_JUDGE, ABS_RESTART, ABS_STEP, ABS_GET
};

typedef union {
    wpart_multikernel_bisect_t bisect;
    wpart_multikernel_search_t search;
    wpart_multikernel_detector_t detector;
    wpart_multikernel_abs_t abs;
} mk_state_t;

#define ABS_WHAT "adaptive binary search"
static const struct {
    const char *fmt; /* (state, a[, b]); NULL: the argument is the state (METH_O) */
    size_t size;
    const char *what;
    int store;
} mk_ops[] = {
    [BISECT_FEEDBACK] = {"Odd:multikernel_bisect_feedback", sizeof(wpart_multikernel_bisect_t),
                         "bisection", 1},
    [BISECT_GET] = {NULL, sizeof(wpart_multikernel_bisect_t), "bisection", 0},
    [SEARCH_REPORT] = {"Od:multikernel_search_report", sizeof(wpart_multikernel_search_t),
                       "search", 1},
    [SEARCH_GET] = {NULL, sizeof(wpart_multikernel_search_t), "search", 0},
    [DETECTOR_RESET] = {NULL, sizeof(wpart_multikernel_detector_t), "detector", 1},
    [DETECTOR_GET] = {NULL, sizeof(wpart_multikernel_detector_t), "detector", 0},
    [ABS_OBSERVE] = {"Odd:multikernel_abs_observe", sizeof(wpart_multikernel_abs_t), ABS_WHAT, 1},
    [ABS_ESTIMATE] = {NULL, sizeof(wpart_multikernel_abs_t), ABS_WHAT, 0},
    [ABS_JUDGE] = {NULL, sizeof(wpart_multikernel_abs_t), ABS_WHAT, 1},
    [ABS_RESTART] = {"Od:multikernel_abs_restart", sizeof(wpart_multikernel_abs_t), ABS_WHAT, 1},
    [ABS_STEP] = {"Odd:multikernel_abs_step", sizeof(wpart_multikernel_abs_t), ABS_WHAT, 1},
    [ABS_GET] = {NULL, sizeof(wpart_multikernel_abs_t), ABS_WHAT, 0},
};

static PyObject *none(void)
{
    Py_RETURN_NONE;
}

/* Runs operation op on the state s with the arguments a, b: the result object (NULL with an
 * exception), the core's status in *st. */
static PyObject *state_apply(int op, mk_state_t *s, double a, double b, wpart_status_t *st)
{
    int k = 0;
    double v = 0.0, w = 0.0;
    int32_t f, ov, wi;
    *st = WPART_OK;
    switch (op) {
    case BISECT_FEEDBACK:
        *st = wpart_multikernel_bisect_feedback(&s->bisect, a, b, &k);
        return PyBool_FromLong(k);
    case BISECT_GET:
        return Py_BuildValue("(ddddiid)", s->bisect.g, s->bisect.c, s->bisect.X,
                             s->bisect.x_min, (int)s->bisect.iter, (int)s->bisect.exhausted,
                             wpart_multikernel_bisect_candidate(&s->bisect));
    case SEARCH_REPORT:
        *st = wpart_multikernel_search_report(&s->search, a);
        return none();
    case SEARCH_GET:
        k = wpart_multikernel_search_next(&s->search, &f, &ov, &wi);
        return Py_BuildValue("(iiiidiiii)", k, (int)f, (int)ov, (int)wi, s->search.best,
                             (int)s->search.best_fi, (int)s->search.best_oi,
                             (int)s->search.best_wi, (int)s->search.evaluated);
    case DETECTOR_RESET:
        wpart_multikernel_detector_reset(&s->detector);
        return none();
    case DETECTOR_GET:
        return Py_BuildValue("(dddddLLL)", s->detector.w, s->detector.max_dev, s->detector.cf,
                             s->detector.lbt, s->detector.last_dev, (long long)s->detector.runs,
                             (long long)s->detector.unbalanced, (long long)s->detector.fired);
    case ABS_OBSERVE:
        *st = wpart_multikernel_abs_observe(&s->abs, a, b);
        return none();
    case ABS_ESTIMATE:
        *st = wpart_multikernel_abs_estimate(&s->abs, &v, &w, &k);
        return k ? Py_BuildValue("(dd)", v, w) : none();
    case ABS_JUDGE:
        *st = wpart_multikernel_abs_judge(&s->abs, &v);
        return PyFloat_FromDouble(v);
    case ABS_RESTART:
        *st = wpart_multikernel_abs_restart(&s->abs, a);
        return none();
    case ABS_STEP:
        *st = wpart_multikernel_abs_step(&s->abs, a, b, &v);
        return PyFloat_FromDouble(v);
    default:
        return Py_BuildValue("(dddddddiiLid)", s->abs.s, s->abs.T, s->abs.lo, s->abs.hi,
                             s->abs.s_prev, s->abs.T_min, s->abs.T_max, (int)s->abs.phase,
                             (int)s->abs.last_dir, (long long)s->abs.steps, (int)s->abs.window,
                             s->abs.band);
    }
}

/* Operation op on the state given in args (see mk_ops). */
static PyObject *state_op(PyObject *args, int op)
{
    PyObject *o = args;
    double a = 0.0, b = 0.0;
    if (mk_ops[op].fmt && !PyArg_ParseTuple(args, mk_ops[op].fmt, &o, &a, &b)) {
        return NULL;
    }
    mk_state_t s;
    void *p = state_load(o, &s, mk_ops[op].size, mk_ops[op].what);
    if (!p) {
        return NULL;
    }
    wpart_status_t st;
    PyObject *res = state_apply(op, &s, a, b, &st);
    if (st != WPART_OK) {
        Py_XDECREF(res);
        return wpy_raise(st, NULL);
    }
    if (res && mk_ops[op].store) {
        memcpy(p, &s, mk_ops[op].size);
    }
    return res;
}

#define MK_OP(fn, op)                                                                         \
    static PyObject *fn(PyObject *self, PyObject *args) { return state_op(args, op); }
MK_OP(py_bisect_feedback, BISECT_FEEDBACK)
MK_OP(py_bisect_get, BISECT_GET)
MK_OP(py_search_report, SEARCH_REPORT)
MK_OP(py_search_get, SEARCH_GET)
MK_OP(py_detector_reset, DETECTOR_RESET)
MK_OP(py_detector_get, DETECTOR_GET)
MK_OP(py_abs_observe, ABS_OBSERVE)
MK_OP(py_abs_estimate, ABS_ESTIMATE)
MK_OP(py_abs_judge, ABS_JUDGE)
MK_OP(py_abs_restart, ABS_RESTART)
MK_OP(py_abs_step, ABS_STEP)
MK_OP(py_abs_get, ABS_GET)

static PyObject *py_interpolate(PyObject *self, PyObject *args)
{
    PyObject *xo, *yo, *qo;
    if (!PyArg_ParseTuple(args, "OOO:multikernel_interpolate", &xo, &yo, &qo)) {
        return NULL;
    }
    PyArrayObject *X = wpy_input_array(xo, "X", NPY_FLOAT64, 2, 2), *y = NULL, *Q = NULL;
    PyObject *out = NULL;
    if (!X || !(y = vec(yo, "y", NPY_FLOAT64)) ||
        !(Q = wpy_input_array(qo, "x", NPY_FLOAT64, 2, 2))) {
        goto fail;
    }
    npy_intp n = PyArray_DIM(X, 0), d = PyArray_DIM(X, 1), q = PyArray_DIM(Q, 0);
    if (PyArray_DIM(y, 0) != n || PyArray_DIM(Q, 1) != d || n > 100000 || d > 64 ||
        q > INT32_MAX) {
        PyErr_Format(wpy_ValueError,
                     "`y` must have one value per row of `X` and `x` the columns of `X` "
                     "(at most 100000 nodes of 64 features)");
        goto fail;
    }
    out = new_f64(q);
    if (!out) {
        goto fail;
    }
    int32_t how = -1;
    wpart_status_t st;
    const double *px = PyArray_DATA(X), *py = PyArray_DATA(y), *pq = PyArray_DATA(Q);
    double *po = PyArray_DATA((PyArrayObject *)out);
    wpy_control_t ctl; /* Ctrl-C in the RBF solve (O(n^3)) or the evaluation (O(q n)) */
    wpy_control_setup(&ctl, NULL, 0.0);
    WPY_NOGIL(st = wpart_multikernel_interpolate_ctl((int32_t)n, (int32_t)d, px, py, (int32_t)q, pq,
                                                     po, &how, &ctl.ctl));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto fail;
    }
    WPY_XDECREF(X, y, Q);
    return Py_BuildValue("(Ni)", out, (int)how);
fail:
    WPY_XDECREF(X, y, Q, out);
    return NULL;
}

static PyObject *py_interp_fit(PyObject *self, PyObject *args)
{
    PyObject *xo, *yo;
    if (!PyArg_ParseTuple(args, "OO:multikernel_interp_fit", &xo, &yo)) {
        return NULL;
    }
    PyArrayObject *X = wpy_input_array(xo, "X", NPY_FLOAT64, 2, 2), *y = NULL;
    PyObject *model = NULL;
    if (!X || !(y = vec(yo, "y", NPY_FLOAT64))) {
        goto fail;
    }
    npy_intp n = PyArray_DIM(X, 0), d = PyArray_DIM(X, 1);
    if (PyArray_DIM(y, 0) != n || n > 100000 || d > 64) {
        PyErr_Format(wpy_ValueError, "`y` must have one value per row of `X` (at most 100000 "
                     "nodes of 64 features)");
        goto fail;
    }
    model = new_f64((npy_intp)wpart_multikernel_interp_model_size((int32_t)n, (int32_t)d));
    if (!model) {
        goto fail;
    }
    wpart_status_t st;
    const double *px = PyArray_DATA(X), *py = PyArray_DATA(y);
    double *pm = PyArray_DATA((PyArrayObject *)model);
    WPY_NOGIL(st = wpart_multikernel_interp_fit((int32_t)n, (int32_t)d, px, py, pm));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto fail;
    }
    WPY_XDECREF(X, y);
    return model;
fail:
    WPY_XDECREF(X, y, model);
    return NULL;
}

/* multikernel_interp_eval(model, x): one query point (a float sequence or array of d values)
 * -> (value, how, nearest); kept lean: it is the per-derivation call. */
static PyObject *py_interp_eval(PyObject *self, PyObject *args)
{
    PyObject *mo, *xo;
    if (!PyArg_ParseTuple(args, "O!O:multikernel_interp_eval", &PyArray_Type, &mo, &xo)) {
        return NULL;
    }
    PyArrayObject *M = (PyArrayObject *)mo;
    if (PyArray_TYPE(M) != NPY_FLOAT64 || PyArray_NDIM(M) != 1 || !PyArray_IS_C_CONTIGUOUS(M) ||
        PyArray_DIM(M, 0) < 4) {
        PyErr_SetString(wpy_ValueError, "`model` must be a packed interpolation model");
        return NULL;
    }
    const double *pm = PyArray_DATA(M);
    int32_t d = (int32_t)pm[1];
    if (d < 1 || d > 64) {
        PyErr_SetString(wpy_ValueError, "`model` must be a packed interpolation model");
        return NULL;
    }
    double x[64];
    PyObject *seq = PySequence_Fast(xo, "`x` must be a sequence of floats");
    if (!seq) {
        return NULL;
    }
    if (PySequence_Fast_GET_SIZE(seq) != d) {
        Py_DECREF(seq);
        PyErr_Format(wpy_ValueError, "`x` must have %d features", (int)d);
        return NULL;
    }
    for (int32_t k = 0; k < d; k++) {
        x[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, k));
        if (x[k] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    double v = 0.0;
    int32_t how = -1, near = -1;
    wpart_status_t st = wpart_multikernel_interp_eval(pm, 1, x, &v, &how, &near);
    if (st != WPART_OK) {
        return wpy_raise(st, NULL);
    }
    return Py_BuildValue("(dii)", v, (int)how, (int)near);
}

/* The functions (their signatures: wpart/_core.pyi):
 * - multikernel_interp_fit(X, y) -> packed model
 * - multikernel_interp_eval(model, x) -> (value, how, nearest)
 * - multikernel_split(total, shares, quanta) -> (sizes, offsets)
 * - multikernel_quantum(a, b) -> q
 * - multikernel_level_of_parallelism(cpu_subdevices, overlap, n_gpus, cpu_used, gpu_used)
 * - multikernel_exec_shares(s, gpu_scores, overlap, cpu_subdevices)
 * - multikernel_seed_share(gpu_scores, cpu_score)
 * - multikernel_occupancy(caps, wgs, lds, vgpr)
 * - multikernel_wgs_candidates(caps, lds, vgpr, threshold) -> (wgs, occupancy)
 * - multikernel_bisect_new(x_min) -> state
 * - multikernel_bisect_feedback(state, t_gpu, t_cpu) -> exhausted
 * - multikernel_bisect_get(state) -> tuple
 * - multikernel_search_new(nf, no, nw) -> state
 * - multikernel_search_report(state, t)
 * - multikernel_search_get(state) -> tuple
 * - multikernel_detector_new(w, max_dev, cf)
 * - multikernel_detector_update(state, t_dev) -> (fire, dev)
 * - multikernel_detector_reset(state)
 * - multikernel_detector_get(state) -> tuple
 * - multikernel_balance_ratio(t_dev) -> float
 * - multikernel_abs_new(s, T_init, T_min, T_max, window=1, band=0) -> state
 * - multikernel_abs_observe(state, t_gpu, t_cpu)
 * - multikernel_abs_restart(state, s)
 * - multikernel_abs_estimate(state) -> (t_gpu, t_cpu) or None
 * - multikernel_abs_judge(state) -> s
 * - multikernel_abs_step(state, t_gpu, t_cpu) -> s
 * - multikernel_abs_get(state) -> tuple
 * - multikernel_interpolate(X, y, x) -> (values, how) */
static PyMethodDef multikernel_methods[] = {
    {"multikernel_interp_fit", py_interp_fit, METH_VARARGS, NULL},
    {"multikernel_interp_eval", py_interp_eval, METH_VARARGS, NULL},
    {"multikernel_split", py_split, METH_VARARGS, NULL},
    {"multikernel_quantum", py_quantum, METH_VARARGS, NULL},
    {"multikernel_level_of_parallelism", py_lop, METH_VARARGS, NULL},
    {"multikernel_exec_shares", py_exec_shares, METH_VARARGS, NULL},
    {"multikernel_seed_share", py_seed_share, METH_VARARGS, NULL},
    {"multikernel_occupancy", py_occupancy, METH_VARARGS, NULL},
    {"multikernel_wgs_candidates", py_wgs_candidates, METH_VARARGS, NULL},
    {"multikernel_bisect_new", py_bisect_new, METH_VARARGS, NULL},
    {"multikernel_bisect_feedback", py_bisect_feedback, METH_VARARGS, NULL},
    {"multikernel_bisect_get", py_bisect_get, METH_O, NULL},
    {"multikernel_search_new", py_search_new, METH_VARARGS, NULL},
    {"multikernel_search_report", py_search_report, METH_VARARGS, NULL},
    {"multikernel_search_get", py_search_get, METH_O, NULL},
    {"multikernel_detector_new", py_detector_new, METH_VARARGS, NULL},
    {"multikernel_detector_update", py_detector_update, METH_VARARGS, NULL},
    {"multikernel_detector_reset", py_detector_reset, METH_O, NULL},
    {"multikernel_detector_get", py_detector_get, METH_O, NULL},
    {"multikernel_balance_ratio", py_balance_ratio, METH_O, NULL},
    {"multikernel_abs_new", py_abs_new, METH_VARARGS, NULL},
    {"multikernel_abs_observe", py_abs_observe, METH_VARARGS, NULL},
    {"multikernel_abs_restart", py_abs_restart, METH_VARARGS, NULL},
    {"multikernel_abs_estimate", py_abs_estimate, METH_O, NULL},
    {"multikernel_abs_judge", py_abs_judge, METH_O, NULL},
    {"multikernel_abs_step", py_abs_step, METH_VARARGS, NULL},
    {"multikernel_abs_get", py_abs_get, METH_O, NULL},
    {"multikernel_interpolate", py_interpolate, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

WPY_DEFINE_INIT(multikernel, multikernel_methods)
