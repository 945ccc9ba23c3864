/* milp.c -- binding of the MILP layer (wpart.milp): _core.milp_solve and _core.milp_write.
 *
 * GLPK's terminal and error hooks are process-global, so two GLPK calls must never overlap: a
 * process-wide lock (the binding's only global state) guards GLPK. milp_solve runs GLPK in a
 * worker thread with the GIL released (see "the solve in a worker thread" below) while the
 * caller checks Ctrl-C and calls the progress callable; the other GLPK calls (milp_write and
 * the families' MILP bindings) keep the GIL held and call the control bridge (control.c) from
 * their hooks. A second thread waits for the lock with the GIL released, and a nested call
 * from the progress callable of the running solve raises RuntimeError instead of deadlocking. */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include "wpy.h"

#include <pythread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    /* wait in short steps, Ctrl-C checked between them: the lock may be held by the worker
     * of a solve left on Ctrl-C, which ends its GLPK phase before releasing it */
    while (!PyThread_acquire_lock(wpy_glpk_lock, NOWAIT_LOCK)) {
        PyLockStatus got;
        WPY_NOGIL(got = PyThread_acquire_lock_timed(wpy_glpk_lock, 20000, 0));
        if (got == PY_LOCK_ACQUIRED) {
            break;
        }
        if (PyErr_CheckSignals() < 0) {
            return -1;
        }
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
    WPY_XDECREF(a->c, a->lb, a->ub, a->kind, a->row_lb, a->row_ub, a->a_row, a->a_col, a->a_val);
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

/* ---- the solve in a worker thread --------------------------------------------------------
 * GLPK's load, scaling and presolve run seconds without a hook on large models, so the solve
 * runs in a worker thread with the GIL released, on its own copies of the model: the caller
 * waits in WPY_MILP_WAIT_US steps, checks signals and relays progress. On Ctrl-C it sets the
 * stop flag (the core's should-stop hook) and returns KeyboardInterrupt at once; the worker
 * then ends its solve, frees its thread's GLPK environment and the job, and releases the GLPK
 * lock. The worker never touches a Python object. */
#define WPY_MILP_WAIT_US 10000

/* The core's error detail is thread-local (csrc/base/status.c): set in the caller's thread. */
wpart_status_t wpart_i_error(wpart_status_t st, const char *fmt, ...);

typedef struct {
    wpart_milp_problem_t p;       /* over the copies below */
    void *mem[10];                /* the copies of the model's arrays (malloc) */
    double *x;                    /* the solution (n_cols) */
    char *logbuf;                 /* GLPK's log, or NULL */
    wpart_milp_options_t opt;
    wpart_control_t ctl;
    wpart_milp_result_t r;
    wpart_status_t st;
    char err[1024];               /* the core's error detail, copied from the worker's thread */
    atomic_int stop;              /* set by the caller: the should-stop hook answers it */
    PyThread_type_lock mu;        /* guards the fields below */
    double p_done, p_total;       /* the latest progress */
    unsigned long p_seq;          /* progress calls so far */
    int finished;                 /* the worker is past its solve */
    int abandoned;                /* the caller left (Ctrl-C): the worker frees the job */
    PyThread_type_lock done;      /* held until the worker finished (when not abandoned) */
} wpy_milp_job_t;

static void wpy_milp_job_free(wpy_milp_job_t *job)
{
    if (!job) {
        return;
    }
    for (size_t i = 0; i < sizeof job->mem / sizeof job->mem[0]; i++) {
        free(job->mem[i]);
    }
    free(job->x);
    free(job->logbuf);
    if (job->mu) {
        PyThread_free_lock(job->mu);
    }
    if (job->done) {
        PyThread_free_lock(job->done);
    }
    free(job);
}

/* A malloc'd copy of `count` items of `size` bytes in job->mem[*k] (NULL for a NULL src). */
static int wpy_milp_job_copy(wpy_milp_job_t *job, int *k, const void *src, int64_t count,
                             size_t size, const void **out)
{
    *out = NULL;
    if (!src) {
        return 0;
    }
    void *d = wpart_i_malloc(count, size); /* overflow-checked; 0 bytes give 1 */
    if (!d) {
        return -1;
    }
    if (count > 0) {
        memcpy(d, src, (size_t)count * size);
    }
    job->mem[(*k)++] = d;
    *out = d;
    return 0;
}

static int wpy_milp_job_should_stop(void *ctx)
{
    wpy_milp_job_t *job = ctx;
    return atomic_load(&job->stop);
}

static void wpy_milp_job_progress(void *ctx, double done, double total)
{
    wpy_milp_job_t *job = ctx;
    PyThread_acquire_lock(job->mu, WAIT_LOCK);
    job->p_done = done;
    job->p_total = total;
    job->p_seq++;
    PyThread_release_lock(job->mu);
}

/* The job with copies of the model (and x0); NULL when out of memory. Called with the GIL. */
static wpy_milp_job_t *wpy_milp_job_new(const wpart_milp_problem_t *p, const double *x0,
                                        int want_log)
{
    wpy_milp_job_t *job = wpart_i_calloc(1, sizeof *job);
    if (!job) {
        return NULL;
    }
    int k = 0;
    int64_t n = p->n_cols, m = p->n_rows, nnz = p->nnz;
    job->p = *p;
    const void *x0c = NULL;
    int fail = wpy_milp_job_copy(job, &k, p->c, n, sizeof(double), (const void **)&job->p.c) ||
               wpy_milp_job_copy(job, &k, p->lb, n, sizeof(double), (const void **)&job->p.lb) ||
               wpy_milp_job_copy(job, &k, p->ub, n, sizeof(double), (const void **)&job->p.ub) ||
               wpy_milp_job_copy(job, &k, p->kind, n, sizeof(int8_t), (const void **)&job->p.kind) ||
               wpy_milp_job_copy(job, &k, p->row_lb, m, sizeof(double), (const void **)&job->p.row_lb) ||
               wpy_milp_job_copy(job, &k, p->row_ub, m, sizeof(double), (const void **)&job->p.row_ub) ||
               wpy_milp_job_copy(job, &k, p->a_row, nnz, sizeof(int64_t), (const void **)&job->p.a_row) ||
               wpy_milp_job_copy(job, &k, p->a_col, nnz, sizeof(int64_t), (const void **)&job->p.a_col) ||
               wpy_milp_job_copy(job, &k, p->a_val, nnz, sizeof(double), (const void **)&job->p.a_val) ||
               wpy_milp_job_copy(job, &k, x0, n, sizeof(double), &x0c);
    job->x = wpart_i_malloc(n, sizeof(double));
    job->logbuf = want_log ? wpart_i_malloc(WPY_MILP_LOG_SIZE, 1) : NULL;
    job->mu = PyThread_allocate_lock();
    job->done = PyThread_allocate_lock();
    if (fail || !job->x || (want_log && !job->logbuf) || !job->mu || !job->done) {
        wpy_milp_job_free(job);
        return NULL;
    }
    PyThread_acquire_lock(job->done, WAIT_LOCK); /* released when the worker finished */
    wpart_milp_options_init(&job->opt);
    job->opt.x0 = x0c;
    if (job->logbuf) {
        job->logbuf[0] = '\0';
        job->opt.log = job->logbuf;
        job->opt.log_size = WPY_MILP_LOG_SIZE;
    }
    wpart_control_init(&job->ctl);
    job->ctl.should_stop = wpy_milp_job_should_stop;
    job->ctl.ctx = job;
    job->opt.control = &job->ctl;
    atomic_init(&job->stop, 0);
    return job;
}

/* The worker (started holding the GLPK lock, without a Python thread state). */
static void wpy_milp_job_run(void *arg)
{
    wpy_milp_job_t *job = arg;
    job->st = wpart_milp_solve(&job->p, &job->opt, job->x, &job->r);
    if (job->st != WPART_OK) {
        snprintf(job->err, sizeof job->err, "%s", wpart_last_error());
    }
    wpart_milp_free_env(); /* GLPK's environment of this thread (thread-local in GLPK) */
    PyThread_acquire_lock(job->mu, WAIT_LOCK);
    int abandoned = job->abandoned;
    job->finished = 1;
    PyThread_release_lock(job->mu);
    if (abandoned) {
        PyThread_release_lock(wpy_glpk_lock); /* the caller has cleared wpy_glpk_owner */
        wpy_milp_job_free(job);
    } else {
        PyThread_release_lock(job->done); /* the caller owns the job from here on */
    }
}

/* Relays the worker's latest progress to the callable (throttled as control.c does); -1 when
 * the callable raised. */
static int wpy_milp_job_relay(wpy_milp_job_t *job, PyObject *progress, unsigned long *seen,
                              double *last)
{
    if (progress == Py_None) {
        return 0;
    }
    PyThread_acquire_lock(job->mu, WAIT_LOCK);
    unsigned long seq = job->p_seq;
    double done = job->p_done, total = job->p_total;
    PyThread_release_lock(job->mu);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    if (seq == *seen || (done < total && now - *last < 0.1)) {
        return 0;
    }
    *seen = seq;
    *last = now;
    PyObject *r = PyObject_CallFunction(progress, "dd", done, total);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* Waits for the worker. 0: it finished (the caller owns the job; an exception may be pending
 * from the progress callable, which stopped the solve); -1: a signal handler raised (Ctrl-C)
 * and the worker, told to stop, frees the job and releases the GLPK lock itself. */
static int wpy_milp_job_wait(wpy_milp_job_t *job, PyObject *progress)
{
    unsigned long seen = 0;
    double last = 0.0;
    int failed = 0;
    for (;;) {
        PyLockStatus got;
        WPY_NOGIL(got = PyThread_acquire_lock_timed(job->done, WPY_MILP_WAIT_US, 0));
        if (got == PY_LOCK_ACQUIRED) {
            break;
        }
        if (PyErr_CheckSignals() < 0) {
            atomic_store(&job->stop, 1);
            PyThread_acquire_lock(job->mu, WAIT_LOCK);
            int finished = job->finished;
            job->abandoned = !finished;
            PyThread_release_lock(job->mu);
            if (!finished) {
                wpy_glpk_owner = 0;
                return -1;
            }
            /* the worker is releasing `done`: take it, the job is ours */
            Py_BEGIN_ALLOW_THREADS
            PyThread_acquire_lock(job->done, WAIT_LOCK);
            Py_END_ALLOW_THREADS
            return 0;
        }
        if (!failed && wpy_milp_job_relay(job, progress, &seen, &last) < 0) {
            failed = 1;
            atomic_store(&job->stop, 1);
        }
    }
    if (!failed) {
        (void)wpy_milp_job_relay(job, progress, &seen, &last); /* may leave an exception */
    }
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
    wpy_milp_job_t *job = NULL;
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
    job = wpy_milp_job_new(&a.p, x0 ? PyArray_DATA(x0) : NULL, want_log);
    if (!job) {
        wpy_nomem();
        goto cleanup;
    }
    job->opt.time_limit = time_limit;
    job->opt.mip_gap = mip_gap;
    job->opt.presolve = presolve;
    if (progress != Py_None) {
        job->ctl.progress = wpy_milp_job_progress;
    }
    wpy_milp_arrays_release(&a); /* the worker has its own copies */
    if (wpy_glpk_acquire("milp_solve") < 0) {
        goto cleanup;
    }
    if (PyThread_start_new_thread(wpy_milp_job_run, job) == PYTHREAD_INVALID_THREAD_ID) {
        wpy_glpk_release();
        PyErr_SetString(wpy_RuntimeError, "milp_solve: cannot start the solver thread");
        goto cleanup;
    }
    if (wpy_milp_job_wait(job, progress) < 0) {
        /* Ctrl-C (or a signal handler's exception): the worker ends and frees on its own */
        job = NULL;
        goto cleanup;
    }
    wpy_glpk_release();
    if (PyErr_Occurred()) {
        /* the progress callable raised (the solve was stopped) */
        goto cleanup;
    }
    wpart_milp_result_t r = job->r;
    if (job->st != WPART_OK) {
        wpart_i_error(job->st, "%s", job->err); /* the worker's detail, for wpy_raise */
        wpy_raise(job->st, "milp_solve");
        goto cleanup;
    }
    memcpy(PyArray_DATA(x), job->x, (size_t)n * sizeof(double));
    if (job->logbuf) {
        log = PyUnicode_DecodeUTF8(job->logbuf, (Py_ssize_t)strlen(job->logbuf), "replace");
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
    wpy_milp_job_free(job);
    wpy_milp_arrays_release(&a);
    WPY_XDECREF(x0, x, log);
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

/* The functions (their signatures: wpart/_core.pyi):
 * - milp_solve: Solve a MILP given as validated arrays (see wpart.milp.solve).
 * - milp_write: Write a MILP given as validated arrays to an LP or free-MPS file.
 * - milp_solver_version: Version of the linked GLPK, or '' without GLPK. */
static PyMethodDef wpy_milp_methods[] = {
    {"milp_solve", WPY_CFUNC(wpy_milp_solve), WPY_KW, NULL},
    {"milp_write", WPY_CFUNC(wpy_milp_write), WPY_KW, NULL},
    {"milp_solver_version", wpy_milp_solver_version, METH_NOARGS, NULL},
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
