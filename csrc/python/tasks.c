/* tasks.c -- binding of wpart.tasks: the CCM work model, CCM-LB, greedy, brute force, MILP.
 *
 * A problem travels as a dict of arrays prepared by wpart/tasks (exact dtypes, C-contiguous);
 * the coefficients as a tuple (alpha, beta, gamma, delta, enforce_memory). */
#include "wpy.h"

#include <stddef.h>

typedef struct {
    wpart_tasks_problem_t p;
    PyArrayObject *arr[14];
    int n;
} wpy_tprob_t;


void wpy_tasks_params(wpart_tasks_lb_params_t *prm, int cluster, int singles, int one_way,
                      int split_always, double tol)
{
    wpart_tasks_lb_params_init(prm);
    prm->cluster = cluster;
    prm->singles = singles;
    prm->one_way = one_way;
    prm->split_always = split_always;
    prm->tol = tol;
}

int wpy_give_take(npy_intp na, npy_intp nb, int typenum, PyArrayObject **give,
                  PyArrayObject **take)
{
    *give = (PyArrayObject *)PyArray_EMPTY(1, &na, typenum, 0);
    *take = *give ? (PyArrayObject *)PyArray_EMPTY(1, &nb, typenum, 0) : NULL;
    if (!*take) {
        Py_CLEAR(*give);
        return -1;
    }
    return 0;
}

PyObject *wpy_step_result(wpart_status_t st, const wpart_tasks_pair_step_t *out,
                          PyArrayObject *give, PyArrayObject *take)
{
    if (st != WPART_OK) {
        return wpy_raise(st, NULL);
    }
    PyObject *g = PySequence_GetSlice((PyObject *)give, 0, out->n_give);
    PyObject *k = g ? PySequence_GetSlice((PyObject *)take, 0, out->n_take) : NULL;
    if (!k) {
        Py_XDECREF(g);
        return NULL;
    }
    return Py_BuildValue("iddNN", (int)out->found, out->dexc, out->gain, g, k);
}

static void tprob_release(wpy_tprob_t *t)
{
    for (int i = 0; i < t->n; i++) Py_XDECREF(t->arr[i]);
    t->n = 0;
}

/* fetch d[key] as an array of typenum; optional keys may be absent or None */
static int tprob_get(wpy_tprob_t *t, PyObject *d, const char *key, int typenum, int required,
                     npy_intp want, const void **out, npy_intp *len)
{
    PyObject *o = PyDict_GetItemString(d, key);
    *out = NULL;
    if (o == NULL || o == Py_None) {
        if (required) {
            PyErr_Format(wpy_ValueError, "problem dict lacks `%s`", key);
            return -1;
        }
        if (len) *len = 0;
        return 0;
    }
    PyArrayObject *a = wpy_input_array(o, key, typenum, 1, 1);
    if (!a) return -1;
    t->arr[t->n++] = a;
    if (want >= 0 && PyArray_DIM(a, 0) != want) {
        PyErr_Format(wpy_ValueError, "`%s` must have length %zd, got %zd", key, (Py_ssize_t)want,
                     (Py_ssize_t)PyArray_DIM(a, 0));
        return -1;
    }
    if (len) *len = PyArray_DIM(a, 0);
    *out = PyArray_DATA(a);
    return 0;
}

static int tprob_parse(PyObject *d, wpy_tprob_t *t)
{
    memset(t, 0, sizeof(*t));
    if (!PyDict_Check(d)) {
        PyErr_SetString(wpy_TypeError, "problem must be a dict of arrays");
        return -1;
    }
    PyObject *nr = PyDict_GetItemString(d, "n_ranks");
    if (!nr) {
        PyErr_SetString(wpy_ValueError, "problem dict lacks `n_ranks`");
        return -1;
    }
    long long nI = PyLong_AsLongLong(nr);
    if (nI == -1 && PyErr_Occurred()) return -1;
    if (nI < 1 || nI > INT32_MAX) {
        PyErr_Format(wpy_ValueError, "`n_ranks` must be in [1, 2^31), got %lld", nI);
        return -1;
    }
    wpart_tasks_problem_t *p = &t->p;
    p->n_ranks = (int32_t)nI;
    npy_intp K, N, M;
    const void *v;
    if (tprob_get(t, d, "task_load", NPY_FLOAT64, 1, -1, &v, &K) < 0) goto fail;
    p->task_load = v;
    if (K > INT32_MAX) {
        PyErr_SetString(wpy_ValueError, "too many tasks (>= 2^31)");
        goto fail;
    }
    p->n_tasks = (int32_t)K;
    /* the other arrays: (key, dtype, length: the tasks K, blocks N, edges M, ranks or any)
     * into their field of p; absent or None is NULL (task_migratable: every task may move) */
    enum { LK, LN, LM, LR, LANY };
#define F(name, type, len) {#name, type, len, offsetof(wpart_tasks_problem_t, name)}
    static const struct {
        const char *key;
        int type, len;
        size_t off;
    } fields[] = {
        F(task_footprint, NPY_FLOAT64, LK), F(task_working, NPY_FLOAT64, LK),
        F(task_block, NPY_INT32, LK), F(block_size, NPY_FLOAT64, LANY),
        F(block_home, NPY_INT32, LN), F(edge_src, NPY_INT32, LANY),
        F(edge_dst, NPY_INT32, LM), F(edge_bytes, NPY_FLOAT64, LM),
        F(rank_baseline, NPY_FLOAT64, LR), F(rank_mem_cap, NPY_FLOAT64, LR),
        F(rank_alpha, NPY_FLOAT64, LR), F(task_migratable, NPY_BOOL, LK),
    };
#undef F
    N = M = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        npy_intp want[] = {K, N, M, (npy_intp)nI, -1}, got = 0;
        if (tprob_get(t, d, fields[i].key, fields[i].type, 0, want[fields[i].len], &v, &got) < 0) {
            goto fail;
        }
        memcpy((char *)p + fields[i].off, &v, sizeof v);
        if (fields[i].len == LANY) {
            *(fields[i].type == NPY_INT32 ? &M : &N) = got; /* edge_src: M, block_size: N */
        }
    }
    p->n_blocks = (int32_t)N;
    p->n_edges = (int64_t)M;
    if ((N > 0 && !p->block_home) || (M > 0 && (!p->edge_dst || !p->edge_bytes))) {
        PyErr_SetString(wpy_ValueError, "problem dict: block_home / edge_dst / edge_bytes missing");
        goto fail;
    }
    return 0;
fail:
    tprob_release(t);
    return -1;
}

static int coeffs_parse(PyObject *o, wpart_tasks_coeffs_t *c)
{
    wpart_tasks_coeffs_init(c);
    return PyArg_ParseTuple(o, "ddddp", &c->alpha, &c->beta, &c->gamma, &c->delta,
                            &c->enforce_memory)
               ? 0
               : -1;
}

static PyArrayObject *assign_in(PyObject *o, int32_t K)
{
    PyArrayObject *a = wpy_input_array(o, "assignment", NPY_INT32, 1, 1);
    if (a && PyArray_DIM(a, 0) != K) {
        PyErr_Format(wpy_ValueError, "`assignment` must have length n_tasks = %d, got %zd",
                     (int)K, (Py_ssize_t)PyArray_DIM(a, 0));
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* report arrays -> dict */
static PyObject *report_dict(int32_t nI, PyArrayObject **arr)
{
    static const char *names[9] = {"load", "vol_out", "vol_in", "vol_local", "homing", "memory",
                                   "work", "n_blocks_present", "n_blocks_off_home"};
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    for (int i = 0; i < 9; i++) {
        if (PyDict_SetItemString(d, names[i], (PyObject *)arr[i]) < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

static int report_alloc(int32_t nI, PyArrayObject **arr, wpart_tasks_report_t *rep)
{
    npy_intp n = nI;
    for (int i = 0; i < 9; i++) {
        arr[i] = (PyArrayObject *)PyArray_ZEROS(1, &n, i < 7 ? NPY_FLOAT64 : NPY_INT32, 0);
        if (!arr[i]) return -1;
    }
    rep->load = PyArray_DATA(arr[0]);
    rep->vol_out = PyArray_DATA(arr[1]);
    rep->vol_in = PyArray_DATA(arr[2]);
    rep->vol_local = PyArray_DATA(arr[3]);
    rep->homing = PyArray_DATA(arr[4]);
    rep->memory = PyArray_DATA(arr[5]);
    rep->work = PyArray_DATA(arr[6]);
    rep->n_blocks_present = PyArray_DATA(arr[7]);
    rep->n_blocks_off_home = PyArray_DATA(arr[8]);
    return 0;
}

static PyObject *wpy_tasks_evaluate(PyObject *self, PyObject *args)
{
    PyObject *pd, *co, *ao, *res = NULL;
    wpy_tprob_t t;
    wpart_tasks_coeffs_t c;
    PyArrayObject *A = NULL, *arr[9] = {0};
    if (!PyArg_ParseTuple(args, "OOO", &pd, &co, &ao)) return NULL;
    if (coeffs_parse(co, &c) < 0 || tprob_parse(pd, &t) < 0) return NULL;
    A = assign_in(ao, t.p.n_tasks);
    if (!A) goto cleanup;
    wpart_tasks_report_t rep;
    if (report_alloc(t.p.n_ranks, arr, &rep) < 0) goto cleanup;
    double wm = 0;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_tasks_evaluate(&t.p, &c, PyArray_DATA(A), &rep, &wm));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto cleanup;
    }
    PyObject *d = report_dict(t.p.n_ranks, arr);
    if (d) res = Py_BuildValue("dN", wm, d);
cleanup:
    for (int i = 0; i < 9; i++) Py_XDECREF(arr[i]);
    Py_XDECREF(A);
    tprob_release(&t);
    return res;
}

/* Replays exchanges: returns (predicted (n, 2), works after each (n, I), final assignment). */
static PyObject *wpy_tasks_exchanges(PyObject *self, PyObject *args)
{
    PyObject *pd, *co, *ao, *r1o, *r2o, *gpo, *gio, *tpo, *tio, *res = NULL;
    wpy_tprob_t t;
    wpart_tasks_coeffs_t c;
    PyArrayObject *A = NULL, *R1 = NULL, *R2 = NULL, *GP = NULL, *GI = NULL, *TP = NULL,
                  *TI = NULL, *pred = NULL, *works = NULL, *fin = NULL;
    wpart_tasks_state_t *s = NULL;
    if (!PyArg_ParseTuple(args, "OOOOOOOOO", &pd, &co, &ao, &r1o, &r2o, &gpo, &gio, &tpo, &tio)) {
        return NULL;
    }
    if (coeffs_parse(co, &c) < 0 || tprob_parse(pd, &t) < 0) return NULL;
    A = assign_in(ao, t.p.n_tasks);
    R1 = A ? wpy_input_array(r1o, "r1", NPY_INT32, 1, 1) : NULL;
    R2 = R1 ? wpy_input_array(r2o, "r2", NPY_INT32, 1, 1) : NULL;
    GP = R2 ? wpy_input_array(gpo, "give_ptr", NPY_INT64, 1, 1) : NULL;
    GI = GP ? wpy_input_array(gio, "give", NPY_INT32, 1, 1) : NULL;
    TP = GI ? wpy_input_array(tpo, "take_ptr", NPY_INT64, 1, 1) : NULL;
    TI = TP ? wpy_input_array(tio, "take", NPY_INT32, 1, 1) : NULL;
    if (!TI) goto cleanup;
    npy_intp n = PyArray_DIM(R1, 0);
    if (PyArray_DIM(R2, 0) != n || PyArray_DIM(GP, 0) != n + 1 || PyArray_DIM(TP, 0) != n + 1) {
        PyErr_SetString(wpy_ValueError, "exchange arrays have inconsistent lengths");
        goto cleanup;
    }
    const int64_t *gp = PyArray_DATA(GP), *tp = PyArray_DATA(TP);
    for (npy_intp i = 0; i < n; i++) {
        if (gp[i] < 0 || gp[i] > gp[i + 1] || gp[i + 1] > PyArray_DIM(GI, 0) || tp[i] < 0 ||
            tp[i] > tp[i + 1] || tp[i + 1] > PyArray_DIM(TI, 0)) {
            PyErr_SetString(wpy_ValueError, "bad give_ptr / take_ptr");
            goto cleanup;
        }
    }
    npy_intp d2[2] = {n, 2}, dI[2] = {n, t.p.n_ranks}, dK = t.p.n_tasks;
    pred = (PyArrayObject *)PyArray_SimpleNew(2, d2, NPY_FLOAT64);
    works = pred ? (PyArrayObject *)PyArray_SimpleNew(2, dI, NPY_FLOAT64) : NULL;
    fin = works ? (PyArrayObject *)PyArray_SimpleNew(1, &dK, NPY_INT32) : NULL;
    if (!fin) goto cleanup;
    wpart_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = wpart_tasks_state_create(&t.p, &c, PyArray_DATA(A), &s);
    const int32_t *r1 = PyArray_DATA(R1), *r2 = PyArray_DATA(R2);
    const int32_t *gi = PyArray_DATA(GI), *ti = PyArray_DATA(TI);
    double *pr = PyArray_DATA(pred), *wk = PyArray_DATA(works);
    for (npy_intp i = 0; i < n && st == WPART_OK; i++) {
        const int32_t *g = gi + gp[i], *tk = ti + tp[i];
        int32_t ng = (int32_t)(gp[i + 1] - gp[i]), nt = (int32_t)(tp[i + 1] - tp[i]);
        st = wpart_tasks_state_eval_exchange(s, r1[i], g, ng, r2[i], tk, nt, &pr[2 * i],
                                             &pr[2 * i + 1]);
        if (st == WPART_OK) st = wpart_tasks_state_apply_exchange(s, r1[i], g, ng, r2[i], tk, nt);
        if (st == WPART_OK) {
            wpart_tasks_report_t rep = {0};
            rep.work = wk + i * t.p.n_ranks;
            st = wpart_tasks_state_report(s, &rep, NULL);
        }
    }
    if (st == WPART_OK && t.p.n_tasks > 0) {
        memcpy(PyArray_DATA(fin), wpart_tasks_state_assignment(s),
               sizeof(int32_t) * (size_t)t.p.n_tasks);
    }
    Py_END_ALLOW_THREADS
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto cleanup;
    }
    res = Py_BuildValue("OOO", pred, works, fin);
cleanup:
    wpart_tasks_state_free(s);
    WPY_XDECREF(A, R1, R2, GP, GI, TP, TI, pred, works, fin);
    tprob_release(&t);
    return res;
}

/* Closed-form estimate of one exchange: returns ((w1, w2) estimate, (w1, w2) exact). */
static PyObject *wpy_tasks_estimate(PyObject *self, PyObject *args)
{
    PyObject *pd, *co, *ao, *go, *to, *res = NULL;
    int r1, r2, use_ab;
    wpy_tprob_t t;
    wpart_tasks_coeffs_t c;
    PyArrayObject *A = NULL, *G = NULL, *T = NULL;
    wpart_tasks_state_t *s = NULL;
    if (!PyArg_ParseTuple(args, "OOOiOiOp", &pd, &co, &ao, &r1, &go, &r2, &to, &use_ab)) {
        return NULL;
    }
    if (coeffs_parse(co, &c) < 0 || tprob_parse(pd, &t) < 0) return NULL;
    A = assign_in(ao, t.p.n_tasks);
    G = A ? wpy_input_array(go, "give", NPY_INT32, 1, 1) : NULL;
    T = G ? wpy_input_array(to, "take", NPY_INT32, 1, 1) : NULL;
    if (!T) goto cleanup;
    double e1 = 0, e2 = 0, x1 = 0, x2 = 0;
    wpart_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = wpart_tasks_state_create(&t.p, &c, PyArray_DATA(A), &s);
    if (st == WPART_OK) {
        st = wpart_tasks_state_estimate_exchange(s, r1, PyArray_DATA(G), (int32_t)PyArray_DIM(G, 0),
                                                 r2, PyArray_DATA(T), (int32_t)PyArray_DIM(T, 0),
                                                 use_ab, &e1, &e2);
    }
    if (st == WPART_OK) {
        st = wpart_tasks_state_eval_exchange(s, r1, PyArray_DATA(G), (int32_t)PyArray_DIM(G, 0),
                                             r2, PyArray_DATA(T), (int32_t)PyArray_DIM(T, 0), &x1,
                                             &x2);
    }
    Py_END_ALLOW_THREADS
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto cleanup;
    }
    res = Py_BuildValue("(dd)(dd)", e1, e2, x1, x2);
cleanup:
    wpart_tasks_state_free(s);
    WPY_XDECREF(A, G, T);
    tprob_release(&t);
    return res;
}

/* tasks_ccm(problem, coeffs, assignment, *, n_iter=4, ... options by keyword only) ->
 * (assignment, history, exchanges, report). A time limit is not an error:
 * report["time_limit"] is True and the assignment is the best reached (report["n_trials_done"],
 * report["n_iter_done"] say how far the run got). Ctrl-C or a progress callable that raised
 * leaves its exception pending, raised as is. score (a coeffs tuple or None): the model that
 * picks, in each trial, the best placement seen (its start included) that is returned. */
static PyObject *wpy_tasks_ccm(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"problem", "coeffs", "assignment", "n_iter", "n_rounds", "fanout",
                             "n_trials", "seed", "cluster", "order_random", "tol", "progress",
                             "time_limit", "one_way", "singles", "exact_ranking",
                             "allow_infeasible_start", "comm_tau", "split_always", "explore",
                             "exhaustive", "score", "max_moves", NULL};
    PyObject *pd, *co, *ao, *progress = Py_None, *res = NULL, *so = Py_None;
    int n_iter = 4, n_rounds = 0, fanout = 0, n_trials = 1, cluster = 0, order_random = 1;
    int one_way = 0, singles = 0, exact_ranking = 0, allow_inf = 0, split_always = 0;
    int explore = 0, exhaustive = 0;
    unsigned long long seed = 0;
    long long max_moves = -1;
    double tol = 1e-12, time_limit = 0.0, comm_tau = 1.0;
    wpy_tprob_t t;
    wpart_tasks_coeffs_t c, sc;
    PyArrayObject *A = NULL, *out = NULL, *hist = NULL, *exch = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|$iiiiKipdOdpippdpppOL", kwlist, &pd, &co, &ao,
                                     &n_iter, &n_rounds, &fanout, &n_trials, &seed, &cluster,
                                     &order_random, &tol, &progress, &time_limit, &one_way,
                                     &singles, &exact_ranking, &allow_inf, &comm_tau,
                                     &split_always, &explore, &exhaustive, &so,
                                     &max_moves)) {
        return NULL;
    }
    if (n_iter < 0 || n_trials < 1) {
        PyErr_SetString(wpy_ValueError, "`n_iter` must be >= 0 and `n_trials` >= 1");
        return NULL;
    }
    if (coeffs_parse(co, &c) < 0) return NULL;
    if (so != Py_None && coeffs_parse(so, &sc) < 0) return NULL;
    if (tprob_parse(pd, &t) < 0) return NULL;
    A = assign_in(ao, t.p.n_tasks);
    if (!A) goto cleanup;
    out = (PyArrayObject *)PyArray_NewCopy(A, NPY_CORDER);
    npy_intp dh[2] = {n_trials, (npy_intp)n_iter + 1}, de[2] = {n_trials, n_iter};
    hist = out ? (PyArrayObject *)PyArray_ZEROS(2, dh, NPY_FLOAT64, 0) : NULL;
    exch = hist ? (PyArrayObject *)PyArray_ZEROS(2, de, NPY_INT32, 0) : NULL;
    if (!exch) goto cleanup;
    wpart_tasks_lb_params_t prm;
    wpy_tasks_params(&prm, cluster, singles, one_way, split_always, tol);
    prm.n_iter = n_iter;
    prm.n_rounds = n_rounds;
    prm.fanout = fanout;
    prm.n_trials = n_trials;
    prm.seed = (uint64_t)seed;
    prm.order_random = order_random;
    prm.explore = explore;
    prm.exhaustive = exhaustive;
    prm.exact_ranking = exact_ranking;
    prm.allow_infeasible_start = allow_inf;
    prm.comm_tau = comm_tau;
    wpy_control_t ctl;
    prm.control = wpy_control_setup(&ctl, progress, time_limit);
    prm.score = so != Py_None ? &sc : NULL;
    prm.max_moves = max_moves < 0 ? -1 : (int64_t)max_moves;
    wpart_tasks_lb_report_t rep;
    memset(&rep, 0, sizeof(rep));
    rep.w_max_history = PyArray_DATA(hist);
    rep.exch_history = PyArray_DATA(exch);
    wpart_status_t st;
    WPY_NOGIL(st = wpart_tasks_ccm(&t.p, &c, &prm, PyArray_DATA(out), &rep));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto cleanup;
    }
    int32_t k, f;
    wpart_tasks_knowledge(t.p.n_ranks, n_rounds, fanout, &k, &f);
    res = Py_BuildValue("OOO{s:d,s:d,s:i,s:i,s:i,s:i,s:i,s:O,s:i,s:i}", out, hist, exch,
                        "w_max_initial", rep.w_max_initial, "w_max_final", rep.w_max_final,
                        "best_trial", (int)rep.best_trial, "n_exchanges", (int)rep.n_exchanges,
                        "n_tasks_moved", (int)rep.n_tasks_moved, "n_rounds", (int)k, "fanout",
                        (int)f, "time_limit", rep.time_limit_reached ? Py_True : Py_False,
                        "n_trials_done", (int)rep.n_trials_done, "n_iter_done",
                        (int)rep.n_iter_done);
cleanup:
    WPY_XDECREF(A, out, hist, exch);
    tprob_release(&t);
    return res;
}

/* The coefficients, the problem, the optional placement `io` of the pinned tasks (None: NULL)
 * and a new int32 assignment of n_tasks entries. 0, or -1 with an exception and nothing held. */
static int placement_in(PyObject *pd, PyObject *co, PyObject *io, wpy_tprob_t *t,
                        wpart_tasks_coeffs_t *c, PyArrayObject **init, PyArrayObject **out)
{
    *init = *out = NULL;
    if (coeffs_parse(co, c) < 0 || tprob_parse(pd, t) < 0) return -1;
    npy_intp K = t->p.n_tasks;
    *init = io == Py_None ? NULL : assign_in(io, t->p.n_tasks);
    *out = io != Py_None && !*init ? NULL : (PyArrayObject *)PyArray_SimpleNew(1, &K, NPY_INT32);
    if (!*out) {
        Py_CLEAR(*init);
        tprob_release(t);
        return -1;
    }
    return 0;
}

/* tasks_greedy(problem, coeffs, initial=None): `initial` places the pinned tasks (needed when
 * the problem has some). */
static PyObject *wpy_tasks_greedy(PyObject *self, PyObject *args)
{
    PyObject *pd, *co, *io = Py_None;
    wpy_tprob_t t;
    wpart_tasks_coeffs_t c;
    if (!PyArg_ParseTuple(args, "OO|O", &pd, &co, &io)) return NULL;
    PyArrayObject *init, *out;
    if (placement_in(pd, co, io, &t, &c, &init, &out) < 0) return NULL;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_tasks_greedy(&t.p, &c, init ? PyArray_DATA(init) : NULL,
                                      PyArray_DATA(out)));
    Py_XDECREF(init);
    tprob_release(&t);
    if (st != WPART_OK) {
        Py_DECREF(out);
        return wpy_raise(st, NULL);
    }
    return (PyObject *)out;
}

/* tasks_economize(problem, coeffs, start, assignment, whole_blocks=False, time_limit=0.0) ->
 * (assignment, n_back):
 * the same W_max with fewer tasks off `start` (wpart_tasks_economize; a new array, the input is
 * not changed). */
static PyObject *wpy_tasks_economize(PyObject *self, PyObject *args)
{
    PyObject *pd, *co, *so, *ao;
    wpy_tprob_t t;
    wpart_tasks_coeffs_t c;
    int whole = 0;
    double time_limit = 0.0;
    if (!PyArg_ParseTuple(args, "OOOO|pd", &pd, &co, &so, &ao, &whole, &time_limit)) return NULL;
    if (coeffs_parse(co, &c) < 0 || tprob_parse(pd, &t) < 0) return NULL;
    npy_intp K = t.p.n_tasks;
    PyArrayObject *S = assign_in(so, t.p.n_tasks);
    PyArrayObject *A = S ? assign_in(ao, t.p.n_tasks) : NULL;
    PyArrayObject *out = A ? (PyArrayObject *)PyArray_SimpleNew(1, &K, NPY_INT32) : NULL;
    if (!out) {
        WPY_XDECREF(S, A);
        tprob_release(&t);
        return NULL;
    }
    if (K > 0) memcpy(PyArray_DATA(out), PyArray_DATA(A), sizeof(int32_t) * (size_t)K);
    wpy_control_t ctl; /* Ctrl-C, and the time left to the caller */
    wpy_control_setup(&ctl, Py_None, time_limit > 0 ? time_limit : 0.0);
    int64_t back = 0;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_tasks_economize(&t.p, &c, PyArray_DATA(S), PyArray_DATA(out), whole,
                                         &ctl.ctl, &back));
    WPY_XDECREF(S, A);
    tprob_release(&t);
    if (st != WPART_OK) {
        Py_DECREF(out);
        return wpy_raise(st, NULL);
    }
    return Py_BuildValue("NL", out, (long long)back);
}

/* tasks_brute(problem, coeffs, preserve, max_states, time_limit=0.0, initial=None) ->
 * (assignment, w_max, stopped); `initial` places the pinned tasks. `stopped` is True when the
 * time limit ended the enumeration; the assignment is then the best one enumerated so far (-1
 * everywhere if none) and w_max is NaN. */
static PyObject *wpy_tasks_brute(PyObject *self, PyObject *args)
{
    PyObject *pd, *co, *io = Py_None;
    int preserve;
    long long max_states;
    double time_limit = 0.0;
    wpy_tprob_t t;
    wpart_tasks_coeffs_t c;
    if (!PyArg_ParseTuple(args, "OOpL|dO", &pd, &co, &preserve, &max_states, &time_limit, &io)) {
        return NULL;
    }
    PyArrayObject *init, *out;
    if (placement_in(pd, co, io, &t, &c, &init, &out) < 0) return NULL;
    wpy_control_t ctl;
    wpy_control_setup(&ctl, Py_None, time_limit > 0 ? time_limit : 0.0);
    double w = 0;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_tasks_brute_force(&t.p, &c, preserve, (int64_t)max_states, &ctl.ctl,
                                           init ? PyArray_DATA(init) : NULL, PyArray_DATA(out),
                                           &w));
    Py_XDECREF(init);
    tprob_release(&t);
    if (st == WPART_ECANCELLED && !ctl.stopped && time_limit > 0 && !PyErr_Occurred()) {
        /* the time limit, not Ctrl-C: the enumeration's best so far is in `out` */
        return Py_BuildValue("NdO", out, Py_NAN, Py_True);
    }
    if (st != WPART_OK) {
        Py_DECREF(out);
        return wpy_raise(st, NULL);
    }
    return Py_BuildValue("NdO", out, w, Py_False);
}

static PyObject *wpy_tasks_knowledge(PyObject *self, PyObject *args)
{
    int P, k, f;
    if (!PyArg_ParseTuple(args, "iii", &P, &k, &f)) return NULL;
    int32_t kk, ff;
    wpart_tasks_knowledge(P, k, f, &kk, &ff);
    return Py_BuildValue("ii", (int)kk, (int)ff);
}

/* Builds the MILP model (spec 2) and returns it as arrays; Python solves it with wpart.milp. */
static PyObject *wpy_tasks_milp_build(PyObject *self, PyObject *args)
{
    PyObject *pd, *co;
    int form, force_fwmp, preserve;
    wpy_tprob_t t;
    wpart_tasks_coeffs_t c;
    if (!PyArg_ParseTuple(args, "OOipp", &pd, &co, &form, &force_fwmp, &preserve)) return NULL;
    if (coeffs_parse(co, &c) < 0 || tprob_parse(pd, &t) < 0) return NULL;
    wpart_tasks_milp_opts_t o;
    wpart_tasks_milp_opts_init(&o);
    o.form = form;
    o.force_fwmp = force_fwmp;
    o.preserve_blocks = preserve;
    wpy_control_t ctl; /* Ctrl-C while a large model is built */
    o.control = wpy_control_setup(&ctl, Py_None, 0.0);
    wpart_tasks_milp_model_t m;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_tasks_milp_build(&t.p, &c, &o, &m));
    tprob_release(&t);
    if (st != WPART_OK) return wpy_raise(st, NULL);
    PyObject *res = Py_BuildValue(
        "{s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:L,s:L,s:L,s:L,s:L,s:i}",
        "c", wpy_array_take((void **)&m.c, m.n_cols, NPY_FLOAT64, sizeof(double)),
        "lb", wpy_array_take((void **)&m.lb, m.n_cols, NPY_FLOAT64, sizeof(double)),
        "ub", wpy_array_take((void **)&m.ub, m.n_cols, NPY_FLOAT64, sizeof(double)),
        "kind", wpy_array_take((void **)&m.kind, m.n_cols, NPY_INT8, sizeof(int8_t)),
        "row_lb", wpy_array_take((void **)&m.row_lb, m.n_rows, NPY_FLOAT64, sizeof(double)),
        "row_ub", wpy_array_take((void **)&m.row_ub, m.n_rows, NPY_FLOAT64, sizeof(double)),
        "a_row", wpy_array_take((void **)&m.a_row, m.nnz, NPY_INT64, sizeof(int64_t)),
        "a_col", wpy_array_take((void **)&m.a_col, m.nnz, NPY_INT64, sizeof(int64_t)),
        "a_val", wpy_array_take((void **)&m.a_val, m.nnz, NPY_FLOAT64, sizeof(double)),
        "n_rows", (long long)m.n_rows, "n_cols", (long long)m.n_cols,
        "n_eq_rows", (long long)m.n_eq_rows, "col_chi", (long long)m.col_chi,
        "col_wmax", (long long)m.col_wmax, "fwmp", (int)m.fwmp);
    wpart_tasks_milp_model_free(&m);
    return res;
}

/* ---- distributed engines: the per-pair step and the serial engine's RNG streams ---- */

static PyObject *wpy_tasks_pair_best(PyObject *self, PyObject *args)
{
    PyObject *pd, *co, *ao, *res = NULL;
    int r, q, cluster, singles, one_way, split_always, mixed = 0;
    double tol, comm_thresh;
    if (!PyArg_ParseTuple(args, "OOOiiiiiidd|p", &pd, &co, &ao, &r, &q, &cluster, &singles,
                          &one_way, &split_always, &tol, &comm_thresh, &mixed)) {
        return NULL;
    }
    wpy_tprob_t t;
    wpart_tasks_coeffs_t c;
    if (coeffs_parse(co, &c) < 0 || tprob_parse(pd, &t) < 0) return NULL;
    PyArrayObject *A = assign_in(ao, t.p.n_tasks), *give = NULL, *take = NULL;
    if (!A || wpy_give_take(t.p.n_tasks, t.p.n_tasks, NPY_INT32, &give, &take) < 0) goto cleanup;
    wpart_tasks_lb_params_t prm;
    wpy_tasks_params(&prm, cluster, singles, one_way, split_always, tol);
    wpart_tasks_pair_step_t out = {0, 0.0, 0.0, PyArray_DATA(give), PyArray_DATA(take), 0, 0};
    wpart_status_t st;
    WPY_NOGIL(st = (mixed ? wpart_tasks_pair_best_mixed : wpart_tasks_pair_best)(
                  &t.p, &c, &prm, comm_thresh, PyArray_DATA(A), r, q, &out));
    res = wpy_step_result(st, &out, give, take);
cleanup:
    WPY_XDECREF(A, give, take);
    tprob_release(&t);
    return res;
}

static int rng_state_in(PyObject *o, uint64_t st[4])
{
    unsigned long long a, b, c, d;
    if (!PyArg_ParseTuple(o, "KKKK", &a, &b, &c, &d)) return -1;
    st[0] = a;
    st[1] = b;
    st[2] = c;
    st[3] = d;
    return 0;
}

static PyObject *rng_state_out(const uint64_t st[4])
{
    return Py_BuildValue("(KKKK)", (unsigned long long)st[0], (unsigned long long)st[1],
                         (unsigned long long)st[2], (unsigned long long)st[3]);
}

static PyObject *wpy_tasks_rng_seed(PyObject *self, PyObject *args)
{
    unsigned long long seed, a, b;
    if (!PyArg_ParseTuple(args, "KKK", &seed, &a, &b)) return NULL;
    uint64_t st[4];
    wpart_tasks_rng_seed(st, seed, a, b);
    return rng_state_out(st);
}

/* (state, candidates, m) -> (state, the m drawn candidates in draw order) */
static PyObject *wpy_tasks_rng_sample(PyObject *self, PyObject *args)
{
    PyObject *so, *co;
    int m;
    uint64_t st[4];
    if (!PyArg_ParseTuple(args, "OOi", &so, &co, &m) || rng_state_in(so, st) < 0) return NULL;
    PyArrayObject *in = wpy_input_array(co, "candidates", NPY_INT32, 1, 1);
    if (!in) return NULL;
    PyArrayObject *c = (PyArrayObject *)PyArray_NewCopy(in, NPY_CORDER);
    Py_DECREF(in);
    if (!c) return NULL;
    npy_intp n = PyArray_DIM(c, 0);
    if (n > INT32_MAX || m < 0) {
        Py_DECREF(c);
        PyErr_SetString(wpy_ValueError, "too many candidates, or m < 0");
        return NULL;
    }
    wpart_status_t s = wpart_tasks_rng_sample(st, PyArray_DATA(c), (int32_t)n, m);
    if (s != WPART_OK) {
        Py_DECREF(c);
        return wpy_raise(s, NULL);
    }
    PyObject *head = PySequence_GetSlice((PyObject *)c, 0, m < n ? m : n);
    Py_DECREF(c);
    if (!head) return NULL;
    return Py_BuildValue("NN", rng_state_out(st), head);
}

/* (state, n) -> (state, the turn order of 0..n-1) */
static PyObject *wpy_tasks_rng_shuffle(PyObject *self, PyObject *args)
{
    PyObject *so;
    int n;
    uint64_t st[4];
    if (!PyArg_ParseTuple(args, "Oi", &so, &n) || rng_state_in(so, st) < 0) return NULL;
    if (n < 0) {
        PyErr_SetString(wpy_ValueError, "`n` must be >= 0");
        return NULL;
    }
    npy_intp nn = n;
    PyArrayObject *o = (PyArrayObject *)PyArray_EMPTY(1, &nn, NPY_INT32, 0);
    if (!o) return NULL;
    int32_t *d = PyArray_DATA(o);
    for (int i = 0; i < n; i++) d[i] = i;
    wpart_tasks_rng_shuffle(st, d, n);
    return Py_BuildValue("NN", rng_state_out(st), o);
}

static PyMethodDef tasks_methods[] = {
    {"tasks_milp_build", wpy_tasks_milp_build, METH_VARARGS, "Build the CCM MILP model."},
    {"tasks_evaluate", wpy_tasks_evaluate, METH_VARARGS, "CCM work model of an assignment."},
    {"tasks_exchanges", wpy_tasks_exchanges, METH_VARARGS, "Replay exchanges incrementally."},
    {"tasks_estimate", wpy_tasks_estimate, METH_VARARGS, "Closed-form exchange estimate."},
    {"tasks_ccm", (PyCFunction)(void (*)(void))wpy_tasks_ccm, METH_VARARGS | METH_KEYWORDS,
     "CCM-LB heuristic."},
    {"tasks_greedy", wpy_tasks_greedy, METH_VARARGS, "Greedy LPT over clusters."},
    {"tasks_economize", wpy_tasks_economize, METH_VARARGS,
     "The same W_max with fewer tasks off their start."},
    {"tasks_brute", wpy_tasks_brute, METH_VARARGS, "Exhaustive search."},
    {"tasks_knowledge", wpy_tasks_knowledge, METH_VARARGS, "Inform log rule (rounds, fanout)."},
    {"tasks_pair_best", wpy_tasks_pair_best, METH_VARARGS, "FindBestCCM of one pair of ranks."},
    {"tasks_rng_seed", wpy_tasks_rng_seed, METH_VARARGS, "Seed a CCM-LB RNG stream."},
    {"tasks_rng_sample", wpy_tasks_rng_sample, METH_VARARGS, "Draw gossip targets."},
    {"tasks_rng_shuffle", wpy_tasks_rng_shuffle, METH_VARARGS, "Draw the turn order."},
    {NULL, NULL, 0, NULL}};

WPY_DEFINE_INIT(tasks, tasks_methods)
