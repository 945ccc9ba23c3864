/* dynamic_model.c -- binding of wpart.dynamic (models and block sizing): fit, evaluation,
 * inverse, the equal-time solver, capacity, rounding, equal_finish and oracle_milp.
 *
 * Models arrive as a float64 array of shape (n, WPART_DYN_PACKED), or a sequence of n packed
 * 1-D float64 arrays (PerfModel.packed) -- packed C models: the core runs with the GIL released
 * -- or as a sequence of Python callables E_p(x) (the core calls back into Python with the GIL
 * held; an exception stops the solve and is re-raised). The solver and equal_finish entries
 * take their arguments by METH_FASTCALL and unpack up to WPY_SMALL models on the stack. */
#include "wpy.h"

#define WPY_SMALL 32 /* models unpacked without allocation */

/* ------------------------------------------------------------------ models argument ----- */

typedef struct {
    wpart_dynamic_model_t *models; /* packed case (small, or owned) */
    PyObject *funcs;               /* callables case: a new reference to a tuple */
    int64_t n;
    int failed;                    /* a Python exception is pending */
    const char *name;              /* the argument's name in messages: "models", "curves" */
    wpart_dynamic_model_t small[WPY_SMALL];
} wpy_timefn_t;

static double wpy_py_timefn(void *ctx, int64_t p, double x)
{
    wpy_timefn_t *t = (wpy_timefn_t *)ctx;
    if (t->failed) {
        return NAN;
    }
    PyObject *r = PyObject_CallFunction(PyTuple_GET_ITEM(t->funcs, (Py_ssize_t)p), "d", x);
    if (!r) {
        t->failed = 1;
        return NAN;
    }
    double v = PyFloat_AsDouble(r);
    if (v == -1.0 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            /* not a number (a str, None, ...): the project's TypeError naming the argument */
            PyErr_Clear();
            char *xs = PyOS_double_to_string(x, 'r', 0, 0, NULL);
            if (xs) {
                PyErr_Format(wpy_TypeError, "`%s[%lld]` returned %.100s at x = %s, not a real "
                             "number", t->name, (long long)p, Py_TYPE(r)->tp_name, xs);
                PyMem_Free(xs);
            }
        }
        Py_DECREF(r);
        t->failed = 1;
        return NAN;
    }
    Py_DECREF(r);
    if (isnan(v)) {
        /* PyErr_Format has no %g: the number is formatted first */
        char *xs = PyOS_double_to_string(x, 'r', 0, 0, NULL);
        if (xs) {
            PyErr_Format(wpy_ValueError, "`%s[%lld]` returned NaN at x = %s", t->name,
                         (long long)p, xs);
            PyMem_Free(xs);
        }
        t->failed = 1;
    }
    return v;
}

static void wpy_timefn_release(wpy_timefn_t *t)
{
    if (t->models != t->small) {
        PyMem_Free(t->models);
    }
    t->models = NULL;
    Py_CLEAR(t->funcs);
    t->n = 0;
    t->failed = 0;
}

/* Room for n models in t (t->small when it fits). 0 or -1 with MemoryError. */
static int wpy_timefn_alloc(wpy_timefn_t *t, int64_t n)
{
    t->n = n;
    t->models = n <= WPY_SMALL ? t->small : PyMem_Calloc((size_t)n, sizeof *t->models);
    if (!t->models) {
        wpy_nomem();
        return -1;
    }
    return 0;
}

/* Unpacks `items` (a tuple of packed 1-D float64 arrays) into t. 0 or -1 with an exception. */
static int wpy_timefn_unpack_items(PyObject *items, wpy_timefn_t *t)
{
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    if (wpy_timefn_alloc(t, (int64_t)n) < 0) {
        return -1;
    }
    for (Py_ssize_t p = 0; p < n; p++) {
        PyObject *it = PyTuple_GET_ITEM(items, p);
        PyArrayObject *a = (PyArrayObject *)it;
        if (!PyArray_Check(it) || PyArray_TYPE(a) != NPY_FLOAT64 || PyArray_NDIM(a) != 1 ||
            PyArray_DIM(a, 0) != WPART_DYN_PACKED || !PyArray_IS_C_CONTIGUOUS(a) ||
            !PyArray_ISALIGNED(a)) {
            PyErr_Format(wpy_TypeError, "`%s[%zd]` must be a packed model (a contiguous "
                         "float64 array of length %d, as PerfModel.packed)", t->name, p,
                         WPART_DYN_PACKED);
            wpy_timefn_release(t);
            return -1;
        }
        if (wpart_dynamic_model_unpack(PyArray_DATA(a), &t->models[p]) != WPART_OK) {
            wpy_raise(WPART_EINVAL, t->name);
            wpy_timefn_release(t);
            return -1;
        }
        if ((p & 0xFFFF) == 0xFFFF && PyErr_CheckSignals() < 0) { /* Ctrl-C over 10^6 models */
            wpy_timefn_release(t);
            return -1;
        }
    }
    return 0;
}

/* Fills t from `models` (the public argument `name`: messages name it); 0 or -1 with an
 * exception. */
static int wpy_timefn_setup(PyObject *models, const char *name, wpy_timefn_t *t)
{
    t->models = NULL;
    t->funcs = NULL;
    t->n = 0;
    t->failed = 0;
    t->name = name;
    if (PyArray_Check(models)) {
        PyArrayObject *a = wpy_input_array(models, name, NPY_FLOAT64, 2, 2);
        if (!a) {
            return -1;
        }
        if (PyArray_DIM(a, 1) != WPART_DYN_PACKED || PyArray_DIM(a, 0) < 1) {
            PyErr_Format(wpy_ValueError, "`%s` must have shape (n, %d) with n >= 1", name,
                         WPART_DYN_PACKED);
            Py_DECREF(a);
            return -1;
        }
        if (wpy_timefn_alloc(t, (int64_t)PyArray_DIM(a, 0)) < 0) {
            Py_DECREF(a);
            return -1;
        }
        const double *d = PyArray_DATA(a);
        for (int64_t p = 0; p < t->n; p++) {
            if (wpart_dynamic_model_unpack(d + p * WPART_DYN_PACKED, &t->models[p]) != WPART_OK) {
                Py_DECREF(a);
                wpy_raise(WPART_EINVAL, name);
                wpy_timefn_release(t);
                return -1;
            }
        }
        Py_DECREF(a);
        return 0;
    }
    PyObject *items = PySequence_Tuple(models);
    if (!items) {
        return -1;
    }
    if (PyTuple_GET_SIZE(items) < 1) {
        Py_DECREF(items);
        PyErr_Format(wpy_ValueError, "`%s` must not be empty", name);
        return -1;
    }
    if (PyArray_Check(PyTuple_GET_ITEM(items, 0))) {
        int rc = wpy_timefn_unpack_items(items, t);
        Py_DECREF(items);
        return rc;
    }
    t->funcs = items;
    t->n = (int64_t)PyTuple_GET_SIZE(t->funcs);
    for (int64_t p = 0; p < t->n; p++) {
        if (!PyCallable_Check(PyTuple_GET_ITEM(t->funcs, (Py_ssize_t)p))) {
            PyErr_Format(wpy_TypeError, "`%s[%lld]` must be callable", name, (long long)p);
            wpy_timefn_release(t);
            return -1;
        }
    }
    return 0;
}

/* A float64 (or int64) 1-D array of length n or None. */
static int wpy_vec(PyObject *obj, const char *name, int typenum, int64_t n, PyArrayObject **out)
{
    *out = NULL;
    if (obj == Py_None) {
        return 0;
    }
    PyArrayObject *a = wpy_input_array(obj, name, typenum, 1, 1);
    if (!a) {
        return -1;
    }
    if (n >= 0 && PyArray_DIM(a, 0) != n) {
        PyErr_Format(wpy_ValueError, "`%s` must have length %lld, got %zd", name, (long long)n,
                     (Py_ssize_t)PyArray_DIM(a, 0));
        Py_DECREF(a);
        return -1;
    }
    *out = a;
    return 0;
}

/* wpy_vec for an argument that must not be None (a TypeError naming it). */
static int wpy_vec_req(PyObject *obj, const char *name, int typenum, int64_t n, PyArrayObject **out)
{
    if (wpy_vec(obj, name, typenum, n, out) < 0) {
        return -1;
    }
    if (!*out) {
        PyErr_Format(wpy_TypeError, "`%s` must not be None", name);
        return -1;
    }
    return 0;
}

/* Runs a core call: with the GIL released for packed models, held for callables. */
#define WPY_RUN(t, st, call)                 \
    do {                                     \
        if ((t).models) {                    \
            Py_BEGIN_ALLOW_THREADS(st) = (call); \
            Py_END_ALLOW_THREADS                 \
        } else {                             \
            (st) = (call);                   \
        }                                    \
    } while (0)

#define WPY_E(t) ((t).models ? wpart_dynamic_model_timefn : wpy_py_timefn)
#define WPY_CTX(t) ((t).models ? (void *)(t).models : (void *)&(t))

/* ------------------------------------------------------------------ fit ----------------- */

static PyObject *wpy_dyn_fit(PyObject *self, PyObject *args)
{
    PyObject *xo, *tco, *txo, *res = NULL;
    long long quantum;
    unsigned int mask;
    int intercept, max_terms, weighting, window, grid;
    double decay, slope_floor;
    PyArrayObject *x = NULL, *tc = NULL, *tx = NULL;
    if (!PyArg_ParseTuple(args, "OOOLIiiidiid", &xo, &tco, &txo, &quantum, &mask, &intercept,
                          &max_terms, &weighting, &decay, &window, &grid, &slope_floor)) {
        return NULL;
    }
    if (wpy_vec_req(xo, "x", NPY_INT64, -1, &x) < 0) {
        goto cleanup;
    }
    int64_t m = (int64_t)PyArray_DIM(x, 0);
    if (wpy_vec_req(tco, "t_comp", NPY_FLOAT64, m, &tc) < 0 ||
        wpy_vec(txo, "t_xfer", NPY_FLOAT64, m, &tx) < 0) {
        goto cleanup;
    }
    wpart_dynamic_fit_opts_t o;
    wpart_dynamic_fit_opts_init(&o);
    o.allowed_mask = mask;
    o.intercept = intercept;
    o.max_terms = max_terms;
    o.weighting = weighting;
    o.decay = decay;
    o.window = window;
    o.grid_points = grid;
    o.slope_floor = slope_floor;
    wpart_dynamic_model_t pm;
    wpart_status_t st;
    const int64_t *xd = PyArray_DATA(x);
    const double *tcd = PyArray_DATA(tc), *txd = tx ? PyArray_DATA(tx) : NULL;
    WPY_NOGIL(st = wpart_dynamic_model_fit(xd, tcd, txd, m, (int64_t)quantum, &o, NULL, &pm));
    if (st != WPART_OK) {
        wpy_raise(st, "fit_model");
        goto cleanup;
    }
    npy_intp dim = WPART_DYN_PACKED;
    res = PyArray_SimpleNew(1, &dim, NPY_FLOAT64);
    if (res) {
        wpart_dynamic_model_pack(&pm, PyArray_DATA((PyArrayObject *)res));
    }
cleanup:
    WPY_XDECREF(x, tc, tx);
    return res;
}

static int wpy_one_model(PyObject *obj, wpart_dynamic_model_t *pm)
{
    PyArrayObject *a = NULL;
    if (wpy_vec_req(obj, "model", NPY_FLOAT64, WPART_DYN_PACKED, &a) < 0) {
        return -1;
    }
    wpart_status_t st = wpart_dynamic_model_unpack(PyArray_DATA(a), pm);
    Py_DECREF(a);
    if (st != WPART_OK) {
        wpy_raise(st, "model");
        return -1;
    }
    return 0;
}

static PyObject *wpy_dyn_eval(PyObject *self, PyObject *args)
{
    PyObject *mo, *xo;
    int which;
    if (!PyArg_ParseTuple(args, "OOi", &mo, &xo, &which)) {
        return NULL;
    }
    wpart_dynamic_model_t pm;
    if (wpy_one_model(mo, &pm) < 0) {
        return NULL;
    }
    PyArrayObject *x = NULL;
    if (wpy_vec_req(xo, "x", NPY_FLOAT64, -1, &x) < 0) {
        return NULL;
    }
    npy_intp k = PyArray_DIM(x, 0);
    PyObject *res = PyArray_SimpleNew(1, &k, NPY_FLOAT64);
    if (res) {
        wpart_dynamic_model_eval_vec(&pm, which, PyArray_DATA(x), (int64_t)k,
                                     PyArray_DATA((PyArrayObject *)res));
    }
    Py_DECREF(x);
    return res;
}

static PyObject *wpy_dyn_inverse(PyObject *self, PyObject *args)
{
    PyObject *mo;
    double t, lo, hi, x = 0.0;
    if (!PyArg_ParseTuple(args, "Oddd", &mo, &t, &lo, &hi)) {
        return NULL;
    }
    wpart_dynamic_model_t pm;
    if (wpy_one_model(mo, &pm) < 0) {
        return NULL;
    }
    wpart_status_t st = wpart_dynamic_model_inverse(&pm, t, lo, hi, &x);
    if (st != WPART_OK) {
        return wpy_raise(st, "inverse");
    }
    return PyFloat_FromDouble(x);
}

/* ------------------------------------------------------------------ solver -------------- */

/* METH_FASTCALL argument helpers: a float or an int argument, -1 with TypeError. */
static int wpy_arg_num(PyObject *o, const char *name, double *d, long long *ll)
{
    if (d) {
        *d = PyFloat_AsDouble(o);
    } else {
        *ll = PyLong_AsLongLong(o);
    }
    if ((d ? *d == -1.0 : *ll == -1) && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(wpy_TypeError, "`%s` must be %s, got %.100s", name,
                     d ? "a real number" : "an int64 integer", Py_TYPE(o)->tp_name);
        return -1;
    }
    return 0;
}
#define wpy_arg_double(o, name, v) wpy_arg_num(o, name, v, NULL)
#define wpy_arg_ll(o, name, v) wpy_arg_num(o, name, NULL, v)

static int wpy_nargs(Py_ssize_t nargs, Py_ssize_t want, const char *fn)
{
    if (nargs != want) {
        PyErr_Format(wpy_TypeError, "%s takes %zd arguments (%zd given)", fn, want, nargs);
        return -1;
    }
    return 0;
}

/* The frame of a call on time functions: the models, x_cont (round_blocks), the optional
 * bounds, the output vector of n values and the control hooks (Ctrl-C stops a long solve or
 * rounding). */
typedef struct {
    wpy_timefn_t t;
    PyArrayObject *xc, *lb, *ub;
    PyObject *out;
    wpy_control_t ctl;
} wpy_tcall_t;

/* Converts the models (the public argument `name`), x_cont when xco != NULL (float64,
 * required), the bounds lb and ub (None or `btype`) and allocates the output (`otype`). 0, or
 * -1 with an exception; wpy_tcall_end releases what was taken either way. */
static int wpy_tcall_begin(wpy_tcall_t *c, PyObject *mo, const char *name, PyObject *xco,
                           PyObject *lbo, PyObject *ubo, int btype, int otype)
{
    c->xc = c->lb = c->ub = NULL;
    c->out = NULL;
    if (wpy_timefn_setup(mo, name, &c->t) < 0 ||
        (xco && wpy_vec_req(xco, "x_cont", NPY_FLOAT64, c->t.n, &c->xc) < 0) ||
        wpy_vec(lbo, "lb", btype, c->t.n, &c->lb) < 0 ||
        wpy_vec(ubo, "ub", btype, c->t.n, &c->ub) < 0) {
        return -1;
    }
    npy_intp n = (npy_intp)c->t.n;
    c->out = PyArray_SimpleNew(1, &n, otype);
    wpy_control_setup(&c->ctl, NULL, 0.0);
    return c->out ? 0 : -1;
}

/* 0 after a call that succeeded; -1 with the callable's exception or st's (named `what`). */
static int wpy_tcall_status(const wpy_tcall_t *c, wpart_status_t st, const char *what)
{
    if (c->t.failed) {
        return -1;
    }
    return st == WPART_OK ? 0 : (wpy_raise(st, what), -1);
}

/* Releases the frame; returns res. */
static PyObject *wpy_tcall_end(wpy_tcall_t *c, PyObject *res)
{
    WPY_XDECREF(c->out, c->xc, c->lb, c->ub);
    wpy_timefn_release(&c->t);
    return res;
}

#define WPY_OUT(c, type) ((type *)PyArray_DATA((PyArrayObject *)(c).out))

/* dynamic_solve_equal_time(models, S, lb|None, ub|None, tol_T, tol_x, max_outer, max_inner,
 * newton_polish) -> (x, T) */
static PyObject *wpy_dyn_solve(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *res = NULL;
    double S, tol_T, tol_x, T = 0.0;
    long long max_outer, max_inner, polish;
    wpy_tcall_t c;
    if (wpy_nargs(nargs, 9, "dynamic_solve_equal_time") < 0) {
        return NULL;
    }
    if (wpy_arg_double(args[1], "S", &S) < 0 || wpy_arg_double(args[4], "tol_T", &tol_T) < 0 ||
        wpy_arg_double(args[5], "tol_x", &tol_x) < 0 ||
        wpy_arg_ll(args[6], "max_outer", &max_outer) < 0 ||
        wpy_arg_ll(args[7], "max_inner", &max_inner) < 0 ||
        wpy_arg_ll(args[8], "newton_polish", &polish) < 0) {
        return NULL;
    }
    if (max_outer < 1 || max_outer > INT32_MAX || max_inner < 1 || max_inner > INT32_MAX) {
        PyErr_SetString(wpy_ValueError, "`max_outer` and `max_inner` must be in [1, 2**31 - 1]");
        return NULL;
    }
    if (wpy_tcall_begin(&c, args[0], "models", NULL, args[2], args[3], NPY_FLOAT64,
                        NPY_FLOAT64) == 0) {
        wpart_dynamic_solve_opts_t o = {tol_T, tol_x, (int32_t)max_outer, (int32_t)max_inner,
                                         polish != 0, &c.ctl.ctl};
        wpart_status_t st;
        WPY_RUN(c.t, st, wpart_dynamic_solve_equal_time(c.t.n, WPY_E(c.t), WPY_CTX(c.t), S,
                                                        wpy_data_or_null(c.lb),
                                                        wpy_data_or_null(c.ub), &o,
                                                        WPY_OUT(c, double), &T));
        if (wpy_tcall_status(&c, st, "solve_equal_time") == 0) {
            res = Py_BuildValue("Od", c.out, T);
        }
    }
    return wpy_tcall_end(&c, res);
}

/* dynamic_equal_finish(models, total, quantum) -> (sizes int64[n], time, T): the core's
 * wpart_dynamic_equal_finish ((P_S) for `total` elements, then the optimal rounding to
 * multiples of `quantum`): `time` is the makespan of the sizes, T the water level. */
static PyObject *wpy_dyn_equal_finish(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *res = NULL;
    long long total, quantum;
    double T = 0.0, Tm = 0.0;
    wpy_tcall_t c;
    if (wpy_nargs(nargs, 3, "dynamic_equal_finish") < 0 ||
        wpy_arg_ll(args[1], "total", &total) < 0 || wpy_arg_ll(args[2], "quantum", &quantum) < 0) {
        return NULL;
    }
    if (total < 1 || quantum < 1) {
        PyErr_Format(wpy_ValueError, "`total` and `quantum` must be >= 1 (got %lld, %lld)", total,
                     quantum);
        return NULL;
    }
    if (wpy_tcall_begin(&c, args[0], "curves", NULL, Py_None, Py_None, NPY_INT64,
                        NPY_INT64) == 0) {
        wpart_status_t st;
        WPY_RUN(c.t, st, wpart_dynamic_equal_finish(c.t.n, WPY_E(c.t), WPY_CTX(c.t),
                                                    (int64_t)total, (int64_t)quantum, &c.ctl.ctl,
                                                    WPY_OUT(c, int64_t), &Tm, &T));
        if (wpy_tcall_status(&c, st, "equal_finish") == 0) {
            res = Py_BuildValue("Odd", c.out, Tm, T);
        }
    }
    return wpy_tcall_end(&c, res);
}

static PyObject *wpy_dyn_capacity(PyObject *self, PyObject *args)
{
    PyObject *mo, *lbo, *ubo, *res = NULL;
    double T, H = 0.0;
    wpy_tcall_t c;
    if (!PyArg_ParseTuple(args, "OdOO", &mo, &T, &lbo, &ubo)) {
        return NULL;
    }
    if (wpy_tcall_begin(&c, mo, "models", NULL, lbo, ubo, NPY_FLOAT64, NPY_FLOAT64) == 0) {
        wpart_status_t st;
        WPY_RUN(c.t, st, wpart_dynamic_capacity(c.t.n, WPY_E(c.t), WPY_CTX(c.t), T,
                                                wpy_data_or_null(c.lb), wpy_data_or_null(c.ub),
                                                WPY_OUT(c, double), &H));
        if (wpy_tcall_status(&c, st, "capacity") == 0) {
            res = Py_BuildValue("Od", c.out, H);
        }
    }
    return wpy_tcall_end(&c, res);
}

static PyObject *wpy_dyn_round(PyObject *self, PyObject *args)
{
    PyObject *mo, *xco, *lbo, *ubo, *res = NULL;
    long long S, quantum;
    double Tm = 0.0;
    wpy_tcall_t c;
    if (!PyArg_ParseTuple(args, "OOLLOO", &mo, &xco, &S, &quantum, &lbo, &ubo)) {
        return NULL;
    }
    if (wpy_tcall_begin(&c, mo, "models", xco, lbo, ubo, NPY_INT64, NPY_INT64) == 0) {
        wpart_status_t st;
        WPY_RUN(c.t, st, wpart_dynamic_round_blocks_ctl(
                             c.t.n, WPY_E(c.t), WPY_CTX(c.t), PyArray_DATA(c.xc), (int64_t)S,
                             (int64_t)quantum, wpy_data_or_null(c.lb), wpy_data_or_null(c.ub),
                             WPY_OUT(c, int64_t), &Tm, &c.ctl.ctl));
        if (wpy_tcall_status(&c, st, "round_blocks") == 0) {
            res = Py_BuildValue("Od", c.out, Tm);
        }
    }
    return wpy_tcall_end(&c, res);
}

/* ------------------------------------------------------------------ oracle_milp --------- */

static const char *const wpy_dyn_milp_status[] = {"optimal", "feasible", "infeasible",
                                                  "unbounded", "no_solution"};

static PyObject *wpy_dyn_oracle_milp(PyObject *self, PyObject *args)
{
    PyObject *bxo, *bto, *res = NULL, *xo = NULL;
    long long W, quantum;
    double time_limit;
    PyArrayObject *bx = NULL, *bt = NULL;
    if (!PyArg_ParseTuple(args, "OOLLd", &bxo, &bto, &W, &quantum, &time_limit)) {
        return NULL;
    }
    bx = wpy_input_array(bxo, "breakpoints x", NPY_FLOAT64, 2, 2);
    if (!bx) {
        goto cleanup;
    }
    bt = wpy_input_array(bto, "breakpoints t", NPY_FLOAT64, 2, 2);
    if (!bt) {
        goto cleanup;
    }
    if (PyArray_DIM(bx, 0) != PyArray_DIM(bt, 0) || PyArray_DIM(bx, 1) != PyArray_DIM(bt, 1)) {
        PyErr_SetString(wpy_ValueError, "breakpoint arrays must have the same shape");
        goto cleanup;
    }
    npy_intp n = PyArray_DIM(bx, 0);
    xo = PyArray_SimpleNew(1, &n, NPY_INT64);
    if (!xo) {
        goto cleanup;
    }
    wpart_milp_options_t opt;
    wpart_milp_options_init(&opt);
    opt.time_limit = time_limit;
    wpart_milp_result_t r;
    memset(&r, 0, sizeof r);
    double T = NAN;
    if (wpy_glpk_acquire("oracle_milp") < 0) {
        goto cleanup;
    }
    /* GIL held: GLPK's hooks are process-global (see milp.c); Ctrl-C through the control
     * hooks, once per branch-and-bound node */
    wpy_control_t ctl;
    opt.control = wpy_control_setup(&ctl, NULL, 0.0);
    wpart_status_t st = wpart_dynamic_oracle_milp((int64_t)n, (int64_t)PyArray_DIM(bx, 1),
                                                  PyArray_DATA(bx), PyArray_DATA(bt), (int64_t)W,
                                                  (int64_t)quantum, &opt,
                                                  PyArray_DATA((PyArrayObject *)xo), &T, &r);
    wpy_glpk_release();
    if (PyErr_Occurred()) {
        goto cleanup; /* KeyboardInterrupt from the control hooks */
    }
    if (st != WPART_OK) {
        wpy_raise(st, "oracle_milp");
        goto cleanup;
    }
    int s = (int)r.status;
    res = Py_BuildValue("OdssdL", xo, T, wpy_dyn_milp_status[s < 0 || s > 4 ? 4 : s], r.message,
                        r.seconds, (long long)r.nodes);
cleanup:
    WPY_XDECREF(xo, bx, bt);
    return res;
}

/* The functions (their signatures: wpart/_core.pyi):
 * - dynamic_fit_model: Fit a performance model (packed).
 * - dynamic_model_eval: Evaluate a packed model (0 E, 1 F, 2 G).
 * - dynamic_model_inverse: sup{x in [lo, hi]: E(x) <= t}.
 * - dynamic_solve_equal_time: Solve (P_S) by water-filling.
 * - dynamic_equal_finish: (P_S) then the optimal rounding: (sizes, time, T).
 * - dynamic_capacity: Time mode: x(T) and H(T).
 * - dynamic_round_blocks: Optimal discrete rounding.
 * - dynamic_oracle_milp: PWL min-max MILP (GLPK). */
static PyMethodDef wpy_dynamic_model_methods[] = {
    {"dynamic_fit_model", wpy_dyn_fit, METH_VARARGS, NULL},
    {"dynamic_model_eval", wpy_dyn_eval, METH_VARARGS, NULL},
    {"dynamic_model_inverse", wpy_dyn_inverse, METH_VARARGS, NULL},
    {"dynamic_solve_equal_time", WPY_CFUNC(wpy_dyn_solve), METH_FASTCALL, NULL},
    {"dynamic_equal_finish", WPY_CFUNC(wpy_dyn_equal_finish), METH_FASTCALL, NULL},
    {"dynamic_capacity", wpy_dyn_capacity, METH_VARARGS, NULL},
    {"dynamic_round_blocks", wpy_dyn_round, METH_VARARGS, NULL},
    {"dynamic_oracle_milp", wpy_dyn_oracle_milp, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

WPY_DEFINE_INIT(dynamic_model, wpy_dynamic_model_methods)
