/* milp.c -- binding of the MILP layer (wpart.milp): _core.milp_solve and _core.milp_write.
 *
 * Unlike the other families, the GIL stays HELD during the solve: GLPK's terminal and error
 * hooks are process-global, so two solves must never overlap. The control bridge (control.c)
 * takes the GIL with PyGILState_Ensure, which is reentrant, so Ctrl-C and the progress callable
 * still work. Because those hooks run Python code, the interpreter may switch threads inside a
 * solve; a process-wide lock (the binding's only global state) therefore also guards GLPK:
 * a second thread waits for it with the GIL released, and a nested call from the progress
 * callable of the running solve raises RuntimeError instead of deadlocking. */
#include "wpy.h"

#include <pythread.h>

static PyThread_type_lock wpy_glpk_lock = NULL; /* created once, lives with the process */
static unsigned long wpy_glpk_owner = 0;        /* thread holding the lock; under the GIL */

/* Takes the GLPK lock; 0, or -1 with RuntimeError for a nested call on the same thread. */
int wpy_glpk_acquire(const char *what)
{
    unsigned long me = PyThread_get_thread_ident();
    if (wpy_glpk_owner == me) {
        PyErr_Format(wpy_RuntimeError,
                     "%s: a GLPK solve is already running in this thread (GLPK is not "
                     "reentrant; do not call wpart.milp from a progress callback)", what);
        return -1;
    }
    if (!PyThread_acquire_lock(wpy_glpk_lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(wpy_glpk_lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    wpy_glpk_owner = me;
    return 0;
}

void wpy_glpk_release(void)
{
    wpy_glpk_owner = 0;
    PyThread_release_lock(wpy_glpk_lock);
}

#define WPY_MILP_LOG_SIZE (1 << 18)

static const char *const sense_names[] = {"min", "max", NULL};
static const char *const format_names[] = {"lp", "mps", NULL};
static const char *const status_names[] = {"optimal", "feasible", "infeasible", "unbounded",
                                           "no_solution"};
static const char *const stop_names[] = {"none", "time_limit", "request"};

/* The problem's arrays: owned references (NULL when absent) and the core's view of them. */
typedef struct {
    PyArrayObject *c, *lb, *ub, *kind, *row_lb, *row_ub, *a_row, *a_col, *a_val;
    wpart_milp_problem_t p;
} wpy_milp_arrays_t;

static void wpy_milp_arrays_release(wpy_milp_arrays_t *a)
{
    Py_XDECREF(a->c);
    Py_XDECREF(a->lb);
    Py_XDECREF(a->ub);
    Py_XDECREF(a->kind);
    Py_XDECREF(a->row_lb);
    Py_XDECREF(a->row_ub);
    Py_XDECREF(a->a_row);
    Py_XDECREF(a->a_col);
    Py_XDECREF(a->a_val);
    memset(a, 0, sizeof *a);
}

/* A 1-D input of `typenum` and length `len` (len < 0: any), or NULL for None when optional.
 * Returns 0, or -1 with an exception naming the argument. */
static int wpy_milp_vector(PyObject *obj, const char *name, int typenum, npy_intp len,
                           int optional, PyArrayObject **out)
{
    *out = NULL;
    if (obj == Py_None) {
        if (optional) {
            return 0;
        }
        PyErr_Format(wpy_TypeError, "`%s` must not be None", name);
        return -1;
    }
    PyArrayObject *arr = wpy_input_array(obj, name, typenum, 1, 1);
    if (!arr) {
        return -1;
    }
    if (len >= 0 && PyArray_DIM(arr, 0) != len) {
        PyErr_Format(wpy_ValueError, "`%s` must have length %zd, got %zd", name,
                     (Py_ssize_t)len, (Py_ssize_t)PyArray_DIM(arr, 0));
        Py_DECREF(arr);
        return -1;
    }
    *out = arr;
    return 0;
}

/* Fills a from the Python arguments; 0 or -1 with an exception. */
static int wpy_milp_arrays_fill(wpy_milp_arrays_t *a, PyObject *c, double c0, PyObject *sense,
                                PyObject *lb, PyObject *ub, PyObject *kind, PyObject *row_lb,
                                PyObject *row_ub, PyObject *a_row, PyObject *a_col,
                                PyObject *a_val, Py_ssize_t n_rows)
{
    memset(a, 0, sizeof *a);
    int s = wpy_choice(sense, "sense", sense_names);
    if (s < 0) {
        return -1;
    }
    if (n_rows < 0) {
        PyErr_Format(wpy_ValueError, "`n_rows` must be >= 0, got %zd", n_rows);
        return -1;
    }
    if (wpy_milp_vector(c, "c", NPY_FLOAT64, -1, 0, &a->c) < 0) {
        return -1;
    }
    npy_intp n = PyArray_DIM(a->c, 0);
    if (wpy_milp_vector(lb, "lb", NPY_FLOAT64, n, 1, &a->lb) < 0 ||
        wpy_milp_vector(ub, "ub", NPY_FLOAT64, n, 1, &a->ub) < 0 ||
        wpy_milp_vector(kind, "integrality", NPY_INT8, n, 1, &a->kind) < 0 ||
        wpy_milp_vector(row_lb, "b_lower", NPY_FLOAT64, n_rows, 1, &a->row_lb) < 0 ||
        wpy_milp_vector(row_ub, "b_upper", NPY_FLOAT64, n_rows, 1, &a->row_ub) < 0 ||
        wpy_milp_vector(a_row, "A rows", NPY_INT64, -1, 0, &a->a_row) < 0) {
        return -1;
    }
    npy_intp nnz = PyArray_DIM(a->a_row, 0);
    if (wpy_milp_vector(a_col, "A cols", NPY_INT64, nnz, 0, &a->a_col) < 0 ||
        wpy_milp_vector(a_val, "A values", NPY_FLOAT64, nnz, 0, &a->a_val) < 0) {
        return -1;
    }
    wpart_milp_problem_t *p = &a->p;
    p->n_rows = (int64_t)n_rows;
    p->n_cols = (int64_t)n;
    p->c = PyArray_DATA(a->c);
    p->c0 = c0;
    p->sense = s == 1 ? WPART_MILP_MAXIMIZE : WPART_MILP_MINIMIZE;
    p->lb = a->lb ? PyArray_DATA(a->lb) : NULL;
    p->ub = a->ub ? PyArray_DATA(a->ub) : NULL;
    p->kind = a->kind ? PyArray_DATA(a->kind) : NULL;
    p->row_lb = a->row_lb ? PyArray_DATA(a->row_lb) : NULL;
    p->row_ub = a->row_ub ? PyArray_DATA(a->row_ub) : NULL;
    p->nnz = (int64_t)nnz;
    p->a_row = PyArray_DATA(a->a_row);
    p->a_col = PyArray_DATA(a->a_col);
    p->a_val = PyArray_DATA(a->a_val);
    return 0;
}

static PyObject *wpy_milp_solve(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"c", "c0", "sense", "lb", "ub", "integrality", "b_lower", "b_upper",
                             "a_row", "a_col", "a_val", "n_rows", "time_limit", "mip_gap",
                             "presolve", "log", "progress", "x0", NULL};
    PyObject *c, *sense, *lb, *ub, *kind, *row_lb, *row_ub, *a_row, *a_col, *a_val;
    PyObject *progress = Py_None, *x0o = Py_None;
    PyArrayObject *x0 = NULL;
    double c0, time_limit = 0.0, mip_gap = 0.0;
    Py_ssize_t n_rows;
    int presolve = 0, want_log = 0;
    wpy_milp_arrays_t a;
    memset(&a, 0, sizeof a);
    PyArrayObject *x = NULL;
    PyObject *log = NULL, *res = NULL;
    char *logbuf = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OdOOOOOOOOOn|ddppOO", kwlist, &c, &c0, &sense,
                                     &lb, &ub, &kind, &row_lb, &row_ub, &a_row, &a_col, &a_val,
                                     &n_rows, &time_limit, &mip_gap, &presolve, &want_log,
                                     &progress, &x0o)) {
        return NULL;
    }
    if (progress != Py_None && !PyCallable_Check(progress)) {
        PyErr_Format(wpy_TypeError, "`progress` must be callable or None, got %s",
                     Py_TYPE(progress)->tp_name);
        return NULL;
    }
    if (wpy_milp_arrays_fill(&a, c, c0, sense, lb, ub, kind, row_lb, row_ub, a_row, a_col, a_val,
                             n_rows) < 0) {
        goto cleanup;
    }
    npy_intp n = (npy_intp)a.p.n_cols;
    if (wpy_milp_vector(x0o, "x0", NPY_FLOAT64, n, 1, &x0) < 0) {
        goto cleanup;
    }
    x = (PyArrayObject *)PyArray_SimpleNew(1, &n, NPY_FLOAT64);
    if (!x) {
        goto cleanup;
    }
    wpart_milp_options_t opt;
    wpart_milp_options_init(&opt);
    opt.time_limit = time_limit;
    opt.mip_gap = mip_gap;
    opt.presolve = presolve;
    opt.x0 = x0 ? PyArray_DATA(x0) : NULL;
    if (want_log) {
        logbuf = PyMem_Malloc(WPY_MILP_LOG_SIZE);
        if (!logbuf) {
            wpy_nomem();
            goto cleanup;
        }
        logbuf[0] = '\0';
        opt.log = logbuf;
        opt.log_size = WPY_MILP_LOG_SIZE;
    }
    wpy_control_t ctl;
    wpy_control_setup(&ctl, progress, 0.0);
    opt.control = &ctl.ctl;

    wpart_milp_result_t r;
    if (wpy_glpk_acquire("milp_solve") < 0) {
        goto cleanup;
    }
    /* GIL held on purpose: see the comment at the top of this file. */
    wpart_status_t st = wpart_milp_solve(&a.p, &opt, PyArray_DATA(x), &r);
    wpy_glpk_release();
    if (PyErr_Occurred()) {
        /* KeyboardInterrupt from the should-stop hook, or the progress callable raised */
        goto cleanup;
    }
    if (st != WPART_OK) {
        wpy_raise(st, "milp_solve");
        goto cleanup;
    }
    if (logbuf) {
        log = PyUnicode_DecodeUTF8(logbuf, (Py_ssize_t)strlen(logbuf), "replace");
    } else {
        log = PyUnicode_FromString("");
    }
    if (!log) {
        goto cleanup;
    }
    res = Py_BuildValue("{s:N,s:s,s:d,s:d,s:d,s:L,s:d,s:s,s:s,s:i,s:N}", "x", (PyObject *)x,
                        "status", status_names[r.status], "objective", r.objective, "bound",
                        r.bound, "gap", r.gap, "nodes", (long long)r.nodes, "seconds", r.seconds,
                        "message", r.message, "stopped_by", stop_names[r.stopped_by],
                        "glpk_code", r.glpk_code, "log", log);
    /* "N" stole both references, even if Py_BuildValue failed */
    x = NULL;
    log = NULL;
cleanup:
    wpy_milp_arrays_release(&a);
    Py_XDECREF(x0);
    Py_XDECREF(x);
    Py_XDECREF(log);
    PyMem_Free(logbuf);
    return res;
}

static PyObject *wpy_milp_write(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"path", "c", "c0", "sense", "lb", "ub", "integrality", "b_lower",
                             "b_upper", "a_row", "a_col", "a_val", "n_rows", "format", NULL};
    PyObject *path = NULL, *c, *sense, *lb, *ub, *kind, *row_lb, *row_ub, *a_row, *a_col, *a_val;
    PyObject *format, *res = NULL;
    double c0;
    Py_ssize_t n_rows;
    wpy_milp_arrays_t a;
    memset(&a, 0, sizeof a);
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&OdOOOOOOOOOnO", kwlist, PyUnicode_FSConverter,
                                     &path, &c, &c0, &sense, &lb, &ub, &kind, &row_lb, &row_ub,
                                     &a_row, &a_col, &a_val, &n_rows, &format)) {
        return NULL;
    }
    int f = wpy_choice(format, "format", format_names);
    if (f < 0) {
        goto cleanup;
    }
    if (wpy_milp_arrays_fill(&a, c, c0, sense, lb, ub, kind, row_lb, row_ub, a_row, a_col, a_val,
                             n_rows) < 0) {
        goto cleanup;
    }
    const char *cpath = PyBytes_AS_STRING(path);
    if ((Py_ssize_t)strlen(cpath) != PyBytes_GET_SIZE(path)) {
        PyErr_SetString(wpy_ValueError, "`path` must not contain NUL characters");
        goto cleanup;
    }
    if (wpy_glpk_acquire("milp_write") < 0) {
        goto cleanup;
    }
    /* GIL held: GLPK's hooks are process-global. GLPK writes in a child process, stopped on
     * Ctrl-C (its writers have no hook); the file is whole or untouched. */
    wpy_control_t ctl;
    wpy_control_setup(&ctl, Py_None, 0.0);
    wpart_status_t st = wpart_milp_write_ctl(
        &a.p, cpath, f == 1 ? WPART_MILP_FORMAT_MPS : WPART_MILP_FORMAT_LP, &ctl.ctl);
    wpy_glpk_release();
    if (st == WPART_ECANCELLED && !PyErr_Occurred()) {
        PyErr_CheckSignals(); /* a Ctrl-C that reached the writing child first */
    }
    if (PyErr_Occurred()) {
        goto cleanup;
    }
    if (st == WPART_ESOLVER) {
        /* the file could not be written: an OSError, as for open() */
        PyErr_Format(wpy_OSError, "%s", wpart_last_error());
        goto cleanup;
    }
    if (st != WPART_OK) {
        wpy_raise(st, "milp_write");
        goto cleanup;
    }
    res = Py_NewRef(Py_None);
cleanup:
    wpy_milp_arrays_release(&a);
    Py_XDECREF(path);
    return res;
}

static PyObject *wpy_milp_solver_version(PyObject *self, PyObject *noargs)
{
    return PyUnicode_FromString(wpart_milp_solver_version());
}

static PyMethodDef wpy_milp_methods[] = {
    {"milp_solve", (PyCFunction)(void (*)(void))wpy_milp_solve, METH_VARARGS | METH_KEYWORDS,
     "Solve a MILP given as validated arrays (see wpart.milp.solve)."},
    {"milp_write", (PyCFunction)(void (*)(void))wpy_milp_write, METH_VARARGS | METH_KEYWORDS,
     "Write a MILP given as validated arrays to an LP or free-MPS file."},
    {"milp_solver_version", wpy_milp_solver_version, METH_NOARGS,
     "Version of the linked GLPK, or '' without GLPK."},
    {NULL, NULL, 0, NULL},
};

int wpy_milp_init(PyObject *m)
{
    if (!wpy_glpk_lock) {
        wpy_glpk_lock = PyThread_allocate_lock();
        if (!wpy_glpk_lock) {
            wpy_nomem();
            return -1;
        }
    }
    return PyModule_AddFunctions(m, wpy_milp_methods);
}
