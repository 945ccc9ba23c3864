/* dynamic_sim.c -- binding of wpart.dynamic's device layer and event engine (dynamic_sim.h).
 *
 * Platforms travel as flat arrays built by wpart/dynamic/_sim.py:
 *   dev    float64 (n, DEV_COLS): one row per device, columns as in the DEV_* indices below
 *   tab_x, tab_t  float64 (m,): every table curve's points, concatenated
 *   tab_off       int64 (n + 1,): device p's points are [tab_off[p], tab_off[p + 1])
 *   fluct  float64 (k, 4): t_start, t_end, pu, factor
 *   onoff  float64 (k, 4): pu, mu_on, mu_off, f_busy
 */
#include "wpy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    DEV_KIND = 0, DEV_MACHINE, DEV_CURVE, DEV_T0, DEV_RATE, DEV_BSAT, DEV_C, DEV_BETA, DEV_BC0,
    DEV_XREF, DEV_BCOEF, /* 7 columns */
    DEV_MEMCAP = DEV_BCOEF + WPART_DYN_N_BASIS, DEV_MEMGAMMA, DEV_BPE, DEV_SETUP, DEV_SIGMA,
    DEV_SIGMAX, DEV_POUT, DEV_FOUT, DEV_NHOPS, DEV_HOPS, /* lat, bw per hop */
    DEV_COLS = DEV_HOPS + 2 * WPART_DYN_MAX_HOPS
};

int wpy_dynamic_pybal_reraise(wpart_dynamic_balancer_t *b);

typedef struct {
    PyArrayObject *dev, *tab_x, *tab_t, *tab_off, *fluct, *onoff;
    wpart_dynamic_device_t *d;
    wpart_dynamic_fluct_t *f;
    wpart_dynamic_onoff_t *oo;
    wpart_dynamic_platform_t pl;
} plat_t;

static void plat_clear(plat_t *P)
{
    WPY_XDECREF(P->dev, P->tab_x, P->tab_t, P->tab_off, P->fluct, P->onoff);
    free(P->d);
    free(P->f);
    free(P->oo);
    memset(P, 0, sizeof *P);
}

/* Converts the flat arrays; 0 or -1 with an exception. fluct/onoff may be NULL. */
static int plat_build(plat_t *P, PyObject *dev, PyObject *tx, PyObject *tt, PyObject *toff,
                      PyObject *fl, PyObject *oo)
{
    memset(P, 0, sizeof *P);
    P->dev = wpy_input_array(dev, "dev", NPY_FLOAT64, 2, 2);
    P->tab_x = wpy_input_array(tx, "tab_x", NPY_FLOAT64, 1, 1);
    P->tab_t = wpy_input_array(tt, "tab_t", NPY_FLOAT64, 1, 1);
    P->tab_off = wpy_input_array(toff, "tab_off", NPY_INT64, 1, 1);
    if (!P->dev || !P->tab_x || !P->tab_t || !P->tab_off) {
        return -1;
    }
    npy_intp n = PyArray_DIM(P->dev, 0);
    if (n < 1 || n > INT32_MAX || PyArray_DIM(P->dev, 1) != DEV_COLS) {
        PyErr_Format(wpy_ValueError, "`dev` must have shape (n >= 1, %d)", (int)DEV_COLS);
        return -1;
    }
    npy_intp m = PyArray_DIM(P->tab_x, 0);
    if (PyArray_DIM(P->tab_t, 0) != m || PyArray_DIM(P->tab_off, 0) != n + 1) {
        PyErr_SetString(wpy_ValueError, "table arrays have inconsistent lengths");
        return -1;
    }
    const double *D = PyArray_DATA(P->dev);
    const int64_t *off = PyArray_DATA(P->tab_off);
    const double *X = PyArray_DATA(P->tab_x), *T = PyArray_DATA(P->tab_t);
    P->d = wpart_i_calloc(n, sizeof *P->d);
    if (!P->d) {
        wpy_nomem();
        return -1;
    }
    for (npy_intp p = 0; p < n; p++) {
        const double *r = D + p * DEV_COLS;
        wpart_dynamic_device_t *d = &P->d[p];
        wpart_dynamic_device_init(d);
        d->kind = (int32_t)r[DEV_KIND];
        d->machine = (int32_t)r[DEV_MACHINE];
        d->comp.kind = (int32_t)r[DEV_CURVE];
        d->comp.t0 = r[DEV_T0];
        d->comp.rate = r[DEV_RATE];
        d->comp.bsat = r[DEV_BSAT];
        d->comp.c = r[DEV_C];
        d->comp.beta = r[DEV_BETA];
        d->comp.bc0 = r[DEV_BC0];
        d->comp.x_ref = r[DEV_XREF];
        for (int i = 0; i < WPART_DYN_N_BASIS; i++) {
            d->comp.bcoef[i] = r[DEV_BCOEF + i];
        }
        if (off[p] < 0 || off[p + 1] < off[p] || off[p + 1] > m) {
            PyErr_SetString(wpy_ValueError, "`tab_off` is not a valid offset table");
            return -1;
        }
        d->comp.tab_x = X + off[p];
        d->comp.tab_t = T + off[p];
        d->comp.tab_n = off[p + 1] - off[p];
        d->comp.mem_cap = r[DEV_MEMCAP];
        d->comp.mem_gamma = r[DEV_MEMGAMMA];
        d->bytes_per_elem = r[DEV_BPE];
        d->setup_bytes = r[DEV_SETUP];
        d->sigma_comp = r[DEV_SIGMA];
        d->sigma_xfer = r[DEV_SIGMAX];
        d->p_out = r[DEV_POUT];
        d->f_out = r[DEV_FOUT];
        d->n_hops = (int32_t)r[DEV_NHOPS];
        for (int h = 0; h < WPART_DYN_MAX_HOPS; h++) {
            d->hops[h].lat = r[DEV_HOPS + 2 * h];
            d->hops[h].bw = r[DEV_HOPS + 2 * h + 1];
        }
        wpart_status_t st = wpart_dynamic_device_check(d);
        if (st != WPART_OK) {
            char what[32];
            snprintf(what, sizeof what, "device %d", (int)p);
            wpy_raise(st, what);
            return -1;
        }
    }
    P->pl.n = (int32_t)n;
    P->pl.dev = P->d;
    if (fl && fl != Py_None) {
        P->fluct = wpy_input_array(fl, "fluctuations", NPY_FLOAT64, 2, 2);
        if (!P->fluct) {
            return -1;
        }
        npy_intp k = PyArray_DIM(P->fluct, 0);
        if (k > 0 && PyArray_DIM(P->fluct, 1) != 4) {
            PyErr_SetString(wpy_ValueError, "`fluctuations` must have shape (k, 4)");
            return -1;
        }
        P->f = wpart_i_calloc((int64_t)k + 1, sizeof *P->f);
        if (!P->f) {
            wpy_nomem();
            return -1;
        }
        const double *F = PyArray_DATA(P->fluct);
        for (npy_intp i = 0; i < k; i++) {
            P->f[i].t_start = F[4 * i];
            P->f[i].t_end = F[4 * i + 1];
            P->f[i].pu = (int32_t)F[4 * i + 2];
            P->f[i].factor = F[4 * i + 3];
        }
        P->pl.n_fluct = k;
        P->pl.fluct = P->f;
    }
    if (oo && oo != Py_None) {
        P->onoff = wpy_input_array(oo, "onoff", NPY_FLOAT64, 2, 2);
        if (!P->onoff) {
            return -1;
        }
        npy_intp k = PyArray_DIM(P->onoff, 0);
        if (k > 0 && PyArray_DIM(P->onoff, 1) != 4) {
            PyErr_SetString(wpy_ValueError, "`onoff` must have shape (k, 4)");
            return -1;
        }
        P->oo = wpart_i_calloc((int64_t)k + 1, sizeof *P->oo);
        if (!P->oo) {
            wpy_nomem();
            return -1;
        }
        const double *F = PyArray_DATA(P->onoff);
        for (npy_intp i = 0; i < k; i++) {
            P->oo[i].pu = (int32_t)F[4 * i];
            P->oo[i].mu_on = F[4 * i + 1];
            P->oo[i].mu_off = F[4 * i + 2];
            P->oo[i].f_busy = F[4 * i + 3];
        }
        P->pl.n_onoff = k;
        P->pl.onoff = P->oo;
    }
    return 0;
}

static PyObject *arr_f64(const double *src, npy_intp n0, npy_intp n1)
{
    npy_intp dims[2] = {n0, n1};
    PyObject *a = PyArray_SimpleNew(n1 > 0 ? 2 : 1, dims, NPY_FLOAT64);
    if (a && n0 > 0) {
        memcpy(PyArray_DATA((PyArrayObject *)a), src,
               (size_t)(n0 * (n1 > 0 ? n1 : 1)) * sizeof(double));
    }
    return a;
}

static PyObject *arr_i64(const int64_t *src, npy_intp n0)
{
    PyObject *a = PyArray_SimpleNew(1, &n0, NPY_INT64);
    if (a && n0 > 0) {
        memcpy(PyArray_DATA((PyArrayObject *)a), src, (size_t)n0 * sizeof(int64_t));
    }
    return a;
}

static PyObject *py_simulate(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"dev", "tab_x", "tab_t", "tab_off", "fluct", "onoff", "balancer",
                             "seed", "eval_mode", "eval_cost", "eval_a", "eval_b", "eval_scale",
                             "dispatch_overhead", "record_trace", "progress", "max_events",
                             "time_limit", NULL};
    PyObject *dev, *tx, *tt, *toff, *fl, *oo, *bal, *progress = Py_None;
    unsigned long long seed = 0;
    long long max_events = 0;
    double time_limit = 0.0;
    /* the options, parsed into their fields (the binding's defaults first) */
    wpart_dynamic_sim_options_t o;
    wpart_dynamic_sim_options_init(&o);
    o.eval_mode = 0;
    o.eval_cost = 0.1;
    o.eval_a = o.eval_b = o.dispatch_overhead = 0.0;
    o.eval_scale = 1.0;
    o.record_trace = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOOO|KidddddpOLd:dynamic_simulate", kwlist,
                                     &dev, &tx, &tt, &toff, &fl, &oo, &bal, &seed, &o.eval_mode,
                                     &o.eval_cost, &o.eval_a, &o.eval_b, &o.eval_scale,
                                     &o.dispatch_overhead, &o.record_trace, &progress,
                                     &max_events, &time_limit)) {
        return NULL;
    }
    wpart_dynamic_balancer_t *b = wpy_balancer_get(bal, "balancer");
    if (!b) {
        return NULL;
    }
    if (progress != Py_None && !PyCallable_Check(progress)) {
        return PyErr_Format(wpy_TypeError, "`progress` must be callable or None");
    }
    plat_t P;
    if (plat_build(&P, dev, tx, tt, toff, fl, oo) < 0) {
        plat_clear(&P);
        return NULL;
    }
    o.seed = (uint64_t)seed;
    o.max_events = max_events;
    wpy_control_t ctl;
    o.control = wpy_control_setup(&ctl, progress, time_limit > 0 ? time_limit : 0.0);
    if (wpy_balancer_acquire(bal) < 0) {
        plat_clear(&P);
        return NULL;
    }
    wpart_dynamic_sim_result_t r;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_dynamic_sim_run(&P.pl, b, &o, &r));
    wpy_balancer_release(bal);
    plat_clear(&P);
    if (st == WPART_ECANCELLED && time_limit > 0 && !ctl.stopped && !PyErr_Occurred()) {
        /* the time limit, not Ctrl-C nor the progress callback: a result, not an error */
        return Py_BuildValue("{sOss}", "time_limit", Py_True, "message", wpart_last_error());
    }
    if (st != WPART_OK) {
        if (wpy_dynamic_pybal_reraise(b)) {
            return NULL;
        }
        return wpy_raise(st, "simulate");
    }
    PyObject *res = NULL;
    /* the core's records become the array (no copy: at 65,536 blocks a copy and its fresh
     * pages cost a fifth of the call) */
    npy_intp nbytes = (npy_intp)(r.n_trace * (int64_t)sizeof(wpart_dynamic_trace_t));
    PyObject *trace = wpy_array_take((void **)&r.trace, nbytes, NPY_UINT8, 1);
    if (trace) {
        res = Py_BuildValue(
            "{sdsNsNsNsNsNsNs(LLLL)sLsLsLsLsdsLsLsd}", "makespan", r.makespan, "trace", trace,
            "busy", arr_f64(r.busy, r.n, 0), "idle", arr_f64(r.idle, r.n, 0), "idle_breakdown",
            arr_f64(r.idle_breakdown, r.n, 4), "elements", arr_i64(r.elements, r.n), "blocks",
            arr_i64(r.blocks, r.n), "blocks_per_kind", (long long)r.blocks_per_kind[0],
            (long long)r.blocks_per_kind[1], (long long)r.blocks_per_kind[2],
            (long long)r.blocks_per_kind[3], "n_blocks", (long long)r.n_blocks, "n_evals",
            (long long)r.n_evals, "n_barriers", (long long)r.n_barriers, "n_stale",
            (long long)r.n_stale, "eval_time", r.eval_time, "n_events", (long long)r.n_events,
            "trace_itemsize", (long long)sizeof(wpart_dynamic_trace_t), "wall_seconds",
            r.wall_seconds);
    }
    wpart_dynamic_sim_result_free(&r);
    return res;
}

/* ---------------------------------------------------------------- Python balancers ------ */

/* A balancer written in Python (any object with start / on_complete / eval_run / eval_done and,
 * optionally, idle_reason) behind the C protocol (a callback balancer, dynamic_balancer.h), so
 * that the one event engine drives it as it drives the C balancers. Its decisions pass through
 * the common layer's checks (next elements, next block id, one evaluation in flight); an EVAL
 * gets a C token mapped to the object's own. Callbacks take the GIL; the first exception raised
 * is kept and re-raised by the caller once the engine has stopped. */
typedef struct {
    PyObject *obj;
    PyObject *et, *ev, *etb; /* the saved exception */
    long long *tok;          /* the object's token of each C token (1, 2, ...) */
    int64_t ntok;
} pybal_t;

static const char *const BLK_NAMES[] = {"train", "regular", "gap", "other"};
static const char *const IDLE_NAMES[] = {"other", "barrier", "eval", "starved"};
static const char *const ACT_NAMES[] = {"assign", "eval"};

static wpart_status_t pyb_fail(pybal_t *s, wpart_status_t st, const char *what)
{
    if (PyErr_Occurred()) {
        if (!s->et) {
            PyErr_Fetch(&s->et, &s->ev, &s->etb);
        } else {
            PyErr_Clear();
        }
        return WPART_EINVAL;
    }
    if (!s->et) { /* a protocol error of the C layer: raise it as a ValueError */
        PyErr_Format(wpy_ValueError, "the Python balancer's %s: %s", what, wpart_last_error());
        PyErr_Fetch(&s->et, &s->ev, &s->etb);
    }
    return st != WPART_OK ? st : WPART_EINVAL;
}

static int name_index(PyObject *o, const char *const *names, int n)
{
    const char *c = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
    for (int i = 0; c && i < n; i++) {
        if (strcmp(c, names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

/* Converts the list of Actions returned by a callback (GIL held; steals lst). */
static wpart_status_t pyb_actions(pybal_t *s, wpart_dynamic_balancer_t *b, PyObject *lst,
                                  const char *what, wpart_dynamic_actions_t *out)
{
    wpart_status_t st = WPART_OK;
    if (!lst) {
        return pyb_fail(s, WPART_EINVAL, what);
    }
    PyObject *seq = PySequence_Fast(lst, "a balancer returns a list of actions");
    Py_DECREF(lst);
    if (!seq) {
        return pyb_fail(s, WPART_EINVAL, what);
    }
    Py_ssize_t na = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < na && st == WPART_OK; i++) {
        PyObject *a = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyTuple_Check(a) || PyTuple_GET_SIZE(a) != 10) {
            PyErr_Format(wpy_TypeError, "%s returned %.100s, not a wpart.dynamic Action", what,
                         Py_TYPE(a)->tp_name);
            st = pyb_fail(s, WPART_EINVAL, what);
            break;
        }
        int k = name_index(PyTuple_GET_ITEM(a, 0), ACT_NAMES, 2);
        long long pu = PyLong_AsLongLong(PyTuple_GET_ITEM(a, 1));
        if (k < 0 || (pu == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            PyErr_Format(wpy_ValueError, "%s: an Action's kind must be 'assign' or 'eval' and its "
                         "pu an int", what);
            st = pyb_fail(s, WPART_EINVAL, what);
            break;
        }
        if (pu < INT32_MIN || pu > INT32_MAX) {
            pu = INT32_MIN;
        }
        if (k == 1) {
            long long tok = PyLong_AsLongLong(PyTuple_GET_ITEM(a, 9));
            if (tok == -1 && PyErr_Occurred()) {
                st = pyb_fail(s, WPART_EINVAL, what);
                break;
            }
            int64_t ct = 0;
            st = wpart_dynamic_cb_eval(b, out, (int32_t)pu, &ct);
            if (st != WPART_OK) {
                st = pyb_fail(s, st, what);
                continue;
            }
            long long *nt = wpart_i_realloc(s->tok, (int64_t)ct + 1, sizeof *nt);
            if (!nt) {
                PyErr_NoMemory();
                st = pyb_fail(s, WPART_ENOMEM, what);
                continue;
            }
            s->tok = nt;
            s->ntok = ct + 1;
            s->tok[ct] = tok;
            continue;
        }
        long long bid = PyLong_AsLongLong(PyTuple_GET_ITEM(a, 2));
        long long off = PyLong_AsLongLong(PyTuple_GET_ITEM(a, 3));
        long long size = PyLong_AsLongLong(PyTuple_GET_ITEM(a, 4));
        int bk = name_index(PyTuple_GET_ITEM(a, 5), BLK_NAMES, 4);
        long vs = PyLong_AsLong(PyTuple_GET_ITEM(a, 6));
        long mv = PyLong_AsLong(PyTuple_GET_ITEM(a, 7));
        double pe = PyFloat_AsDouble(PyTuple_GET_ITEM(a, 8));
        if (PyErr_Occurred() || bk < 0) {
            PyErr_Clear();
            PyErr_Format(wpy_TypeError, "%s: an assign Action needs int block_id, offset, size, "
                         "vstep, model_version, a float pred_end and a block_kind among "
                         "train/regular/gap/other", what);
            st = pyb_fail(s, WPART_EINVAL, what);
            break;
        }
        st = wpart_dynamic_cb_assign(b, out, (int32_t)pu, bid, off, size, bk, (int32_t)vs,
                                     (int32_t)mv, pe);
        if (st != WPART_OK) {
            st = pyb_fail(s, st, what);
        }
    }
    Py_DECREF(seq);
    return st;
}

static wpart_status_t pyb_start(void *ctx, wpart_dynamic_balancer_t *b, double now,
                                wpart_dynamic_actions_t *out)
{
    pybal_t *s = ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    wpart_status_t st =
        pyb_actions(s, b, PyObject_CallMethod(s->obj, "start", "d", now), "start", out);
    PyGILState_Release(g);
    return st;
}

static wpart_status_t pyb_complete(void *ctx, wpart_dynamic_balancer_t *b,
                                   const wpart_dynamic_completion_t *c,
                                   wpart_dynamic_actions_t *out)
{
    pybal_t *s = ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    wpart_status_t st = pyb_actions(
        s, b, PyObject_CallMethod(s->obj, "on_complete", "iLddd", (int)c->pu,
                                  (long long)c->block_id, c->t_xfer, c->t_comp, c->now),
        "on_complete", out);
    PyGILState_Release(g);
    return st;
}

static wpart_status_t pyb_eval_run(void *ctx, wpart_dynamic_balancer_t *b, int64_t token)
{
    pybal_t *s = ctx;
    (void)b;
    long long pt = token >= 0 && token < s->ntok ? s->tok[token] : -1;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = PyObject_CallMethod(s->obj, "eval_run", "L", pt);
    wpart_status_t st = r ? WPART_OK : pyb_fail(s, WPART_EINVAL, "eval_run");
    Py_XDECREF(r);
    PyGILState_Release(g);
    return st;
}

static wpart_status_t pyb_eval_done(void *ctx, wpart_dynamic_balancer_t *b, int64_t token,
                                    double now, wpart_dynamic_actions_t *out)
{
    pybal_t *s = ctx;
    long long pt = token >= 0 && token < s->ntok ? s->tok[token] : -1;
    PyGILState_STATE g = PyGILState_Ensure();
    wpart_status_t st = pyb_actions(
        s, b, PyObject_CallMethod(s->obj, "eval_done", "Ld", pt, now), "eval_done", out);
    PyGILState_Release(g);
    return st;
}

static int pyb_idle_reason(void *ctx, const wpart_dynamic_balancer_t *b, int32_t pu)
{
    pybal_t *s = ctx;
    (void)b;
    int r = WPART_DYN_IDLE_OTHER;
    PyGILState_STATE g = PyGILState_Ensure();
    if (PyObject_HasAttrString(s->obj, "idle_reason")) {
        PyObject *o = PyObject_CallMethod(s->obj, "idle_reason", "i", (int)pu);
        int k = o ? name_index(o, IDLE_NAMES, 4) : -1;
        r = k >= 0 ? k : WPART_DYN_IDLE_OTHER;
        Py_XDECREF(o);
        PyErr_Clear(); /* a reason is only a label: an unreadable one is "other" */
    }
    PyGILState_Release(g);
    return r;
}

static void pyb_destroy(void *ctx)
{
    pybal_t *s = ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_CLEAR(s->obj);
    Py_CLEAR(s->et);
    Py_CLEAR(s->ev);
    Py_CLEAR(s->etb);
    PyGILState_Release(g);
    free(s->tok);
    free(s);
}

/* dynamic_py_balancer(obj, m, n, max_actions) -> Balancer (the C protocol over obj) */
static PyObject *py_py_balancer(PyObject *self, PyObject *args)
{
    PyObject *obj;
    int m;
    long long n, mxa;
    if (!PyArg_ParseTuple(args, "OiLL:dynamic_py_balancer", &obj, &m, &n, &mxa)) {
        return NULL;
    }
    pybal_t *s = wpart_i_calloc(1, sizeof *s);
    if (!s) {
        return wpy_nomem();
    }
    wpart_dynamic_callbacks_t cb = {s, pyb_start, pyb_complete, pyb_eval_run, pyb_eval_done,
                                    pyb_idle_reason, pyb_destroy};
    wpart_dynamic_balancer_t *b = NULL;
    wpart_status_t st = wpart_dynamic_cb_new(m, (int64_t)n, (int64_t)mxa, &cb, &b);
    if (st != WPART_OK) {
        free(s);
        return wpy_raise(st, "dynamic_py_balancer");
    }
    Py_INCREF(obj);
    s->obj = obj;
    return wpy_balancer_wrap(b);
}

/* After a run of b: re-raises the exception a Python balancer's callback raised (returns 1),
 * else 0. */
int wpy_dynamic_pybal_reraise(wpart_dynamic_balancer_t *b)
{
    pybal_t *s = wpart_dynamic_cb_ctx(b);
    if (!s || !s->et) {
        return 0;
    }
    PyErr_Restore(s->et, s->ev, s->etb);
    s->et = s->ev = s->etb = NULL;
    return 1;
}

/* device_time(dev, tab_x, tab_t, tab_off, p, x, first, part) -> float64 array like x.
 * part: 0 total (compute + transfer), 1 compute, 2 transfer. */
static PyObject *py_device_time(PyObject *self, PyObject *args)
{
    PyObject *dev, *tx, *tt, *toff, *xo;
    int p, first, part;
    if (!PyArg_ParseTuple(args, "OOOOiOii:dynamic_device_time", &dev, &tx, &tt, &toff, &p, &xo,
                          &first, &part)) {
        return NULL;
    }
    plat_t P;
    PyArrayObject *x = NULL;
    PyObject *out = NULL;
    if (plat_build(&P, dev, tx, tt, toff, NULL, NULL) < 0) {
        goto cleanup;
    }
    if (p < 0 || p >= P.pl.n) {
        PyErr_Format(wpy_ValueError, "`p` must be in [0, %d), got %d", (int)P.pl.n, p);
        goto cleanup;
    }
    x = (PyArrayObject *)PyArray_FROMANY(xo, NPY_FLOAT64, 0, 0, NPY_ARRAY_IN_ARRAY);
    if (!x) {
        goto cleanup;
    }
    out = PyArray_SimpleNew(PyArray_NDIM(x), PyArray_DIMS(x), NPY_FLOAT64);
    if (!out) {
        goto cleanup;
    }
    wpart_dynamic_device_time_vec(&P.d[p], part, first, PyArray_DATA(x),
                                  (int64_t)PyArray_SIZE(x), PyArray_DATA((PyArrayObject *)out));
cleanup:
    Py_XDECREF(x);
    plat_clear(&P);
    return out;
}

/* device_block(dev, tab_x, tab_t, tab_off, fluct, p, seed, j, x, t) -> (t_xfer, t_comp) */
static PyObject *py_device_block(PyObject *self, PyObject *args)
{
    PyObject *dev, *tx, *tt, *toff, *fl;
    int p;
    unsigned long long seed;
    long long j, x;
    double t;
    if (!PyArg_ParseTuple(args, "OOOOOiKLLd:dynamic_device_block", &dev, &tx, &tt, &toff, &fl, &p,
                          &seed, &j, &x, &t)) {
        return NULL;
    }
    plat_t P;
    PyObject *out = NULL;
    if (plat_build(&P, dev, tx, tt, toff, fl, NULL) < 0) {
        goto cleanup;
    }
    if (p < 0 || p >= P.pl.n) {
        PyErr_Format(wpy_ValueError, "`p` must be in [0, %d), got %d", (int)P.pl.n, p);
        goto cleanup;
    }
    double t_x, t_c;
    wpart_status_t st = wpart_dynamic_device_block(&P.d[p], p, (uint64_t)seed, j, x, t, P.pl.fluct,
                                                   P.pl.n_fluct, &t_x, &t_c);
    if (st != WPART_OK) {
        wpy_raise(st, "block_time");
        goto cleanup;
    }
    out = Py_BuildValue("(dd)", t_x, t_c);
cleanup:
    plat_clear(&P);
    return out;
}

/* noise(seed, pu, purpose, j_array, sigma) -> log-normal factors (sigma >= 0) or, with
 * sigma < 0, uniforms of draw 0. */
static PyObject *py_noise(PyObject *self, PyObject *args)
{
    unsigned long long seed;
    int pu, purpose;
    PyObject *jo;
    double sigma;
    if (!PyArg_ParseTuple(args, "KiiOd:dynamic_noise", &seed, &pu, &purpose, &jo, &sigma)) {
        return NULL;
    }
    PyArrayObject *j = (PyArrayObject *)PyArray_FROMANY(jo, NPY_INT64, 1, 1, NPY_ARRAY_IN_ARRAY);
    if (!j) {
        return NULL;
    }
    npy_intp k = PyArray_DIM(j, 0);
    PyObject *out = PyArray_SimpleNew(1, &k, NPY_FLOAT64);
    if (out) {
        wpart_dynamic_noise_vec(seed, pu, purpose, PyArray_DATA(j), (int64_t)k, sigma,
                                PyArray_DATA((PyArrayObject *)out));
    }
    Py_DECREF(j);
    return out;
}

/* integrate(fluct, pu, t, D) -> t_end */
static PyObject *py_integrate(PyObject *self, PyObject *args)
{
    PyObject *fo;
    int pu;
    double t, D;
    if (!PyArg_ParseTuple(args, "Oidd:dynamic_integrate", &fo, &pu, &t, &D)) {
        return NULL;
    }
    PyArrayObject *f = wpy_input_array(fo, "fluctuations", NPY_FLOAT64, 2, 2);
    if (!f) {
        return NULL;
    }
    npy_intp k = PyArray_DIM(f, 0);
    if (k > 0 && PyArray_DIM(f, 1) != 4) {
        Py_DECREF(f);
        return PyErr_Format(wpy_ValueError, "`fluctuations` must have shape (k, 4)");
    }
    wpart_dynamic_fluct_t *fl = wpart_i_calloc((int64_t)k + 1, sizeof *fl);
    if (!fl) {
        Py_DECREF(f);
        return wpy_nomem();
    }
    const double *F = PyArray_DATA(f);
    for (npy_intp i = 0; i < k; i++) {
        fl[i].t_start = F[4 * i];
        fl[i].t_end = F[4 * i + 1];
        fl[i].pu = (int32_t)F[4 * i + 2];
        fl[i].factor = F[4 * i + 3];
    }
    double r = wpart_dynamic_integrate(fl, k, pu, t, D);
    free(fl);
    Py_DECREF(f);
    return PyFloat_FromDouble(r);
}

/* The functions (their signatures: wpart/_core.pyi):
 * - dynamic_simulate(dev, tab_x, tab_t, tab_off, fluct, onoff, balancer, ...) -> dict
 * - dynamic_py_balancer(obj, m, n, max_actions) -> Balancer driving a Python balancer
 * - dynamic_device_time(dev, tab_x, tab_t, tab_off, p, x, first, part) -> times
 * - dynamic_device_block(dev, tab_x, tab_t, tab_off, fluct, p, seed, j, x, t) -> tuple
 * - dynamic_noise(seed, pu, purpose, j, sigma)
 * - dynamic_integrate(fluct, pu, t, D) */
static PyMethodDef sim_methods[] = {
    {"dynamic_simulate", WPY_CFUNC(py_simulate), WPY_KW, NULL},
    {"dynamic_py_balancer", py_py_balancer, METH_VARARGS, NULL},
    {"dynamic_device_time", py_device_time, METH_VARARGS, NULL},
    {"dynamic_device_block", py_device_block, METH_VARARGS, NULL},
    {"dynamic_noise", py_noise, METH_VARARGS, NULL},
    {"dynamic_integrate", py_integrate, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

int wpy_dynamic_sim_init(PyObject *m)
{
    if (PyModule_AddIntConstant(m, "DYNAMIC_DEV_COLS", DEV_COLS) < 0) {
        return -1;
    }
    return PyModule_AddFunctions(m, sim_methods);
}
