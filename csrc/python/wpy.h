/*
 * wpy.h -- shared declarations of the binding (private module wpart._core). Include first.
 * The binding only converts and validates; all work happens in the core with the GIL released.
 */
#ifndef WPY_H
#define WPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL wpart_ARRAY_API
#ifndef WPY_MODULE_C
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "wpart/wpart.h"
/* the overflow-checked allocators wpart_i_malloc / _calloc / _realloc (release with free) */
#include "../base/internal.h"

/* ---- shared shapes of the family files ---- */
/* Py_XDECREF of every argument (PyObject * or PyArrayObject *, NULL allowed), in order. */
static inline void wpy_xdecref_n(void *const *objs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        Py_XDECREF((PyObject *)objs[i]);
    }
}
#define WPY_XDECREF(...)                                                                      \
    wpy_xdecref_n((void *const[]){__VA_ARGS__}, sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))
/* The data of an optional array (NULL for NULL). */
static inline void *wpy_data_or_null(PyArrayObject *a)
{
    return a ? PyArray_DATA(a) : NULL;
}
/* Method-table helpers: a METH_FASTCALL or keywords function as a PyCFunction, and the
 * keywords flags. */
#define WPY_CFUNC(fn) ((PyCFunction)(void (*)(void))(fn))
#define WPY_KW (METH_VARARGS | METH_KEYWORDS)
/* Defines int wpy_<name>_init(m): adds the functions of `table` to the module. */
#define WPY_DEFINE_INIT(name, table)                                                          \
    int wpy_##name##_init(PyObject *m) { return PyModule_AddFunctions(m, table); }
/* The answer of a core call that wrote into *out: *out (the reference is handed over) when st
 * is WPART_OK, else NULL with st's exception (wpy_raise(st, what)). */
PyObject *wpy_result(wpart_status_t st, const char *what, PyArrayObject **out);
/* Runs one statement (a core call that never touches Python) with the GIL released. */
#define WPY_NOGIL(stmt)                                                                       \
    do {                                                                                      \
        Py_BEGIN_ALLOW_THREADS stmt;                                                          \
        Py_END_ALLOW_THREADS                                                                  \
    } while (0)

/* ---- errors.c ---- */
extern PyObject *wpy_WpartError;     /* wpart.WpartError (Exception): base of all below */
extern PyObject *wpy_CancelledError; /* wpart.CancelledError (WpartError, RuntimeError) */
extern PyObject *wpy_SolverError;    /* wpart.SolverError (WpartError, RuntimeError) */
extern PyObject *wpy_ValueError;     /* wpart.WpartValueError (WpartError, ValueError) */
extern PyObject *wpy_TypeError;      /* wpart.WpartTypeError (WpartError, TypeError) */
extern PyObject *wpy_OverflowError;  /* wpart.WpartOverflowError (WpartError, OverflowError) */
extern PyObject *wpy_MemoryError;    /* wpart.WpartMemoryError (WpartError, MemoryError) */
extern PyObject *wpy_RuntimeError;   /* wpart.WpartRuntimeError (WpartError, RuntimeError) */
extern PyObject *wpy_IndexError;     /* wpart.WpartIndexError (WpartError, IndexError) */
extern PyObject *wpy_KeyError;       /* wpart.WpartKeyError (WpartError, KeyError) */
extern PyObject *wpy_OSError;        /* wpart.WpartOSError (WpartError, OSError) */
extern PyObject *wpy_LimitError;     /* wpart.WpartLimitError (WpartRuntimeError, ValueError) */
/* Raise wpart.WpartMemoryError("out of memory"); returns NULL. */
PyObject *wpy_nomem(void);
int wpy_errors_init(PyObject *m);
/* Raise the exception for st (never overwrites one already set); returns NULL. The detail of
 * the core is prefixed with `what` (an argument or function name) when what != NULL. */
PyObject *wpy_raise(wpart_status_t st, const char *what);

/* ---- convert.c ---- */
/* obj must be an ndarray of exactly typenum; 0 or -1 with a TypeError naming `name`. */
int wpy_check_type(PyObject *obj, const char *name, int typenum);
/* A borrowed-input array: C-contiguous, aligned, of exactly `typenum`, ndim in [lo, hi].
 * Returns a new reference or NULL with a TypeError/ValueError naming `name`. */
PyArrayObject *wpy_input_array(PyObject *obj, const char *name, int typenum, int ndim_lo,
                               int ndim_hi);
/* A per-PU vector: like wpy_input_array (1-D, exact dtype) with 1 <= length <= 2**31-1, the
 * length in *n. NULL with a ValueError naming `name` ("`what` ... sizes"). */
PyArrayObject *wpy_input_pu_vector(PyObject *obj, const char *name, int typenum, const char *what,
                                   int32_t *n);
/* The dtype of a loads array: NPY_INT64 or NPY_FLOAT64, else -1 with a TypeError. */
int wpy_loads_typenum(PyObject *obj, const char *name);
/* An output array given by the user: must be an ndarray of typenum, C-contiguous, writeable,
 * with exactly the given shape. Returns 0 or -1 with ValueError/TypeError naming `name`. */
int wpy_check_output(PyObject *obj, const char *name, int typenum, int ndim,
                     const npy_intp *shape);
/* A part count: 0, or -1 with "`m` must be a positive integer" when m < 1. */
int wpy_check_m(long long m);
/* Optional relative speeds: None gives *out = NULL; otherwise a float64 1-D array of length m
 * (new reference in *out). Returns 0, or -1 with an exception naming `speeds`. */
int wpy_optional_speeds(PyObject *obj, long long m, PyArrayObject **out);
/* Exact-match choice table: returns the index of s in names[], or -1 with a ValueError
 * listing the valid names. */
int wpy_choice(PyObject *s, const char *name, const char *const *names);
/* A 1-D array of n items of sz bytes over the malloc'd buffer *data, which it then owns (freed
 * with the array; *data is NULL afterwards unless this fails first, a fresh array for n = 0 or
 * *data NULL): no copy, and no fresh pages to fault in for a large result. The buffer is first
 * shrunk to its size (builders double their capacities). NULL with an exception set. */
PyObject *wpy_array_take(void **data, npy_intp n, int typenum, size_t sz);

/* ---- control.c ---- */
/* Bridges the core's control hooks to Python: Ctrl-C (PyErr_CheckSignals) and an optional
 * progress callable(done, total). Safe to use while the GIL is released. */
typedef struct {
    wpart_control_t ctl;
    PyObject *progress;      /* borrowed callable or NULL */
    double last;             /* last time should_stop took the GIL */
    double last_progress;    /* last time progress took the GIL */
    int stopped;             /* a Python exception is pending (KeyboardInterrupt, callback error) */
} wpy_control_t;
/* Returns &c->ctl (for an options struct's `control`). */
wpart_control_t *wpy_control_setup(wpy_control_t *c, PyObject *progress, double time_limit);

/* ---- milp.c ---- */
/* The process-wide GLPK lock (see milp.c): every binding that runs a GLPK solve takes it, with
 * the GIL held; acquire returns -1 with RuntimeError for a nested call on the same thread. */
int wpy_glpk_acquire(const char *what);
void wpy_glpk_release(void);

/* ---- tasks.c: shared with tasks_ranks.c ---- */
/* The pair-step parameters: the defaults, then the given switches and tol. */
void wpy_tasks_params(wpart_tasks_lb_params_t *prm, int cluster, int singles, int one_way,
                      int split_always, double tol);
/* The give and take vectors (na, nb entries of typenum): 0, or -1 with an exception (none
 * left allocated). */
int wpy_give_take(npy_intp na, npy_intp nb, int typenum, PyArrayObject **give,
                  PyArrayObject **take);
/* A pair step's answer (found, dexc, gain, give[:n_give], take[:n_take]), or st's exception. */
PyObject *wpy_step_result(wpart_status_t st, const wpart_tasks_pair_step_t *out,
                          PyArrayObject *give, PyArrayObject *take);

/* ---- family files ----
 * Each binds one family, or a part of one, and exports int wpy_<name>_init(PyObject *m), which
 * adds its functions; module.c runs them in this order. spatial_rect.c: the rectilinear grid
 * kernels on the nonzeros; spatial_csr.c: sparse input to CSR arrays. wpart.dynamic is bound
 * by dynamic.c (the Balancer type and the simple baselines), dynamic_model.c,
 * dynamic_plbhac.c, dynamic_baselines.c, dynamic_sim.c and dynamic_exec.c; multikernel.c: the
 * multi-kernel decisions (wpart/multikernel.h); multikernel_sim.c: simulated multi-kernel runs
 * (wpart_multikernel_sim_run). */
#define WPY_FAMILIES(X)                                                                       \
    X(base) X(milp) X(spatial) X(hetero) X(dynamic) X(dynamic_model) X(dynamic_plbhac)       \
    X(dynamic_baselines) X(dynamic_sim) X(dynamic_exec) X(spatial_rect) X(spatial_auto)      \
    X(spatial_csr) X(multikernel) X(multikernel_sim) X(tasks) X(tasks_ranks)
#define WPY_DECLARE_INIT(name) int wpy_##name##_init(PyObject *m);
WPY_FAMILIES(WPY_DECLARE_INIT)
#undef WPY_DECLARE_INIT
/* Wraps a new balancer into a wpart._core.Balancer (steals b; frees it on failure). */
PyObject *wpy_balancer_wrap(struct wpart_dynamic_balancer *b);
/* The balancer inside a wpart._core.Balancer, or NULL with a TypeError naming `name`. */
struct wpart_dynamic_balancer *wpy_balancer_get(PyObject *obj, const char *name);
/* Marks a Balancer busy while a driver (the simulator) runs it with the GIL released;
 * returns -1 with a RuntimeError if it is busy already. */
int wpy_balancer_acquire(PyObject *obj);
void wpy_balancer_release(PyObject *obj);

#endif /* WPY_H */
