/* spatial_rect.c -- bindings of the rectilinear grid kernels on the nonzeros (rect_grid.c):
 * RECT-NICOL from several starts, the symmetric grids and the exact 1D partition. */
#include "spatial_rect.h"

#include "../spatial/rect_polish.h"
#include "../spatial/spatial_internal.h"

int wpy_rect_csr(long long n1, long long n2, PyObject *o[3], const char *wname, int wt, int conv,
                  PyArrayObject *a[3], wpart_rg_csr_t *A)
{
    static const char *names[2] = {"rp", "ci"};
    for (int i = 0; i < 3; i++) {
        if (i == 2 && o[i] == Py_None) {
            continue;
        }
        a[i] = i == 2 ? wpy_input_array(o[i], wname, wt, 1, 1)
               : conv ? (PyArrayObject *)PyArray_FROMANY(o[i], NPY_INT64, 1, 1, NPY_ARRAY_IN_ARRAY)
                      : wpy_input_array(o[i], names[i], NPY_INT64, 1, 1);
        if (!a[i]) {
            return -1;
        }
    }
    const int64_t *rp = PyArray_DATA(a[0]);
    if (n1 < 1 || n2 < 1 || PyArray_DIM(a[0], 0) != n1 + 1 || rp[0] != 0 ||
        rp[n1] != (int64_t)PyArray_DIM(a[1], 0) ||
        (a[2] && PyArray_DIM(a[2], 0) != PyArray_DIM(a[1], 0))) {
        PyErr_SetString(wpy_ValueError, "malformed CSR arrays");
        return -1;
    }
    A->n1 = n1;
    A->n2 = n2;
    A->rp = rp;
    A->ci = PyArray_DATA(a[1]);
    A->w = a[2] && wt == NPY_FLOAT64 ? PyArray_DATA(a[2]) : NULL;
    return 0;
}

static PyObject *wpy_rect_grid(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n1", "n2", "rp", "ci", "w", "P", "Q", "R0", "C0", "first",
                             "patience", "max_half", "balance", "abandon", "time_limit",
                             "progress", "slack", "lower", "polish_patience",
                             "polish_max_half", "first_only", NULL};
    PyObject *o[3], *ro, *co, *fo, *progress = Py_None, *res = NULL;
    PyArrayObject *a[3] = {NULL, NULL, NULL}, *R0 = NULL, *C0 = NULL, *F = NULL;
    PyArrayObject *R = NULL, *C = NULL, *V = NULL, *H = NULL, *S = NULL;
    long long n1, n2, P, Q, patience = 2, max_half = 200, pol_pat = 0, pol_max = 0;
    int balance = 0, abandon = 0, first_only = 0;
    double time_limit = 0.0, slack = 0.0, lower = 0.0;
    wpart_rg_csr_t A;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "LLOOOLLOOO|LLppdOddLLp", kwlist, &n1, &n2,
                                     &o[0], &o[1], &o[2], &P, &Q, &ro, &co, &fo, &patience,
                                     &max_half, &balance, &abandon, &time_limit, &progress,
                                     &slack, &lower, &pol_pat, &pol_max, &first_only)) {
        return NULL;
    }
    if (wpy_rect_csr(n1, n2, o, "w", NPY_FLOAT64, 0, a, &A) < 0) {
        goto cleanup;
    }
    R0 = wpy_input_array(ro, "R0", NPY_INT64, 2, 2);
    C0 = R0 ? wpy_input_array(co, "C0", NPY_INT64, 2, 2) : NULL;
    F = C0 ? wpy_input_array(fo, "first", NPY_INT32, 1, 1) : NULL;
    if (!F) {
        goto cleanup;
    }
    npy_intp ns = PyArray_DIM(R0, 0);
    if (P < 1 || Q < 1 || PyArray_DIM(R0, 1) != P + 1 || PyArray_DIM(C0, 1) != Q + 1 ||
        PyArray_DIM(C0, 0) != ns || PyArray_DIM(F, 0) != ns || ns < 1 || patience < 1 ||
        max_half < 1) {
        PyErr_SetString(wpy_ValueError, "malformed starts");
        goto cleanup;
    }
    npy_intp np1 = P + 1, nq1 = Q + 1;
    R = (PyArrayObject *)PyArray_ZEROS(1, &np1, NPY_INT64, 0);
    C = (PyArrayObject *)PyArray_ZEROS(1, &nq1, NPY_INT64, 0);
    if (pol_pat < 0 || (pol_pat > 0 && pol_max < 1)) {
        PyErr_SetString(wpy_ValueError, "malformed polish options");
        goto cleanup;
    }
    npy_intp nout = ns + (pol_pat > 0); /* the polish reports in the last slot */
    V = (PyArrayObject *)PyArray_ZEROS(1, &nout, NPY_FLOAT64, 0);
    H = (PyArrayObject *)PyArray_ZEROS(1, &nout, NPY_INT64, 0);
    S = (PyArrayObject *)PyArray_ZEROS(1, &nout, NPY_INT32, 0);
    if (!R || !C || !V || !H || !S) {
        goto cleanup;
    }
    wpy_control_t ctl;
    wpy_control_setup(&ctl, progress, time_limit);
    wpart_rg_opts_t opt = {patience, max_half, balance, abandon, slack, lower,
                           pol_pat, pol_max, &ctl.ctl, 0.0, first_only};
    int32_t timed_out = 0;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_spatial_rect_grid(&A, P, Q, ns, PyArray_DATA(R0), PyArray_DATA(C0),
                                           PyArray_DATA(F), &opt, PyArray_DATA(R), PyArray_DATA(C),
                                           PyArray_DATA(V), PyArray_DATA(H), PyArray_DATA(S),
                                           &timed_out));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto cleanup;
    }
    res = Py_BuildValue("OOOOOi", R, C, V, H, S, (int)timed_out);
cleanup:
    for (int i = 0; i < 3; i++) {
        Py_XDECREF(a[i]);
    }
    WPY_XDECREF(R0, C0, F, R, C, V, H, S);
    return res;
}

static PyObject *wpy_rect_sym(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n1", "n2", "rp", "ci", "w", "P", "variant", "c0", "max_iter",
                             "time_limit", "progress", NULL};
    PyObject *o[3], *c0o = Py_None, *progress = Py_None, *res = NULL;
    PyArrayObject *a[3] = {NULL, NULL, NULL}, *c0 = NULL, *out = NULL;
    long long n1, n2, P, max_iter = 10;
    int variant;
    double time_limit = 0.0;
    wpart_rg_csr_t A;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "LLOOOLi|OLdO", kwlist, &n1, &n2, &o[0], &o[1],
                                     &o[2], &P, &variant, &c0o, &max_iter, &time_limit,
                                     &progress)) {
        return NULL;
    }
    if (wpy_rect_csr(n1, n2, o, "w", NPY_FLOAT64, 0, a, &A) < 0) {
        goto cleanup;
    }
    if (P < 1 || max_iter < 0 || (variant != 0 && variant != 1 && variant != 2 &&
                                  variant != 3 && variant != 12)) {
        PyErr_SetString(wpy_ValueError, "bad symmetric grid arguments");
        goto cleanup;
    }
    if (c0o != Py_None) {
        c0 = wpy_input_array(c0o, "c0", NPY_INT64, 1, 1);
        if (!c0) {
            goto cleanup;
        }
        if (PyArray_DIM(c0, 0) != P + 1) {
            PyErr_SetString(wpy_ValueError, "`c0` must hold P + 1 cuts");
            goto cleanup;
        }
    }
    npy_intp np1 = P + 1;
    out = (PyArrayObject *)PyArray_ZEROS(1, &np1, NPY_INT64, 0);
    if (!out) {
        goto cleanup;
    }
    wpy_control_t ctl;
    wpy_control_setup(&ctl, progress, time_limit);
    double value = 0.0;
    int32_t timed_out = 0;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_spatial_rect_sym(&A, P, variant, c0 ? PyArray_DATA(c0) : NULL, max_iter,
                                          &ctl.ctl, PyArray_DATA(out), &value, &timed_out));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto cleanup;
    }
    res = Py_BuildValue("Odi", out, value, (int)timed_out);
cleanup:
    for (int i = 0; i < 3; i++) {
        Py_XDECREF(a[i]);
    }
    WPY_XDECREF(c0, out);
    return res;
}

typedef wpart_status_t (*sr_refine_fn)(const wpart_rg_csr_t *, int64_t, int64_t, int64_t *,
                                       int64_t *, int64_t, const wpart_control_t *, double *,
                                       int64_t *, int32_t *);
/* the same with a seed (the subgradient method's random start) */
typedef wpart_status_t (*sr_seeded_fn)(const wpart_rg_csr_t *, int64_t, int64_t, int64_t *,
                                       int64_t *, int64_t, uint64_t, const wpart_control_t *,
                                       double *, int64_t *, int32_t *);

/* copies of the grid's cuts ro, co as int64 arrays of P + 1 and Q + 1 (*R, *C: new references,
 * NULL on error); -1 with the Python error set ("malformed grid for <what>") */
static int sr_grid(PyObject *ro, PyObject *co, long long P, long long Q, const char *what,
                   PyArrayObject **R, PyArrayObject **C)
{
    *R = (PyArrayObject *)PyArray_FROMANY(ro, NPY_INT64, 1, 1, NPY_ARRAY_ENSURECOPY |
                                          NPY_ARRAY_CARRAY);
    *C = *R ? (PyArrayObject *)PyArray_FROMANY(co, NPY_INT64, 1, 1, NPY_ARRAY_ENSURECOPY |
                                               NPY_ARRAY_CARRAY)
            : NULL;
    if (!*C) {
        return -1;
    }
    if (P < 1 || Q < 1 || PyArray_DIM(*R, 0) != P + 1 || PyArray_DIM(*C, 0) != Q + 1) {
        PyErr_Format(wpy_ValueError, "malformed grid for %s", what);
        return -1;
    }
    return 0;
}

/* a refinement of the grid (R, C): the subgradient method (sfn, seeded) or the cut-move
 * polish and the kick (fn: a seed refused) */
static PyObject *sr_refine(PyObject *args, PyObject *kwds, sr_refine_fn fn, sr_seeded_fn sfn)
{
    static char *kwlist[] = {"n1", "n2", "rp", "ci", "w", "P", "Q", "R", "C", "max_iter",
                             "time_limit", "progress", "seed", NULL};
    PyObject *o[3], *ro, *co, *progress = Py_None, *res = NULL;
    PyArrayObject *a[3] = {NULL, NULL, NULL}, *R = NULL, *C = NULL;
    long long n1, n2, P, Q, max_iter = 100000, seed = 0;
    double time_limit = 0.0;
    wpart_rg_csr_t A;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "LLOOOLLOO|LdOL", kwlist, &n1, &n2, &o[0], &o[1],
                                     &o[2], &P, &Q, &ro, &co, &max_iter, &time_limit,
                                     &progress, &seed)) {
        return NULL;
    }
    if (seed < 0 || (seed && !sfn)) {
        PyErr_SetString(wpy_ValueError, seed < 0 ? "`seed` must be >= 0"
                                                 : "`seed` applies to spatial_rect_sgo only");
        return NULL;
    }
    if (wpy_rect_csr(n1, n2, o, "w", NPY_FLOAT64, 0, a, &A) < 0) {
        goto cleanup;
    }
    if (sr_grid(ro, co, P, Q, "the refinement", &R, &C) < 0) {
        goto cleanup;
    }
    if (max_iter < 1) {
        PyErr_SetString(wpy_ValueError, "malformed grid for the refinement");
        goto cleanup;
    }
    wpy_control_t ctl;
    wpy_control_setup(&ctl, progress, time_limit);
    double value = 0.0;
    int64_t iters = 0;
    int32_t timed_out = 0;
    wpart_status_t st;
    if (sfn) {
        WPY_NOGIL(st = sfn(&A, P, Q, PyArray_DATA(R), PyArray_DATA(C), max_iter,
                           (uint64_t)seed, &ctl.ctl, &value, &iters, &timed_out));
    } else {
        WPY_NOGIL(st = fn(&A, P, Q, PyArray_DATA(R), PyArray_DATA(C), max_iter, &ctl.ctl,
                          &value, &iters, &timed_out));
    }
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto cleanup;
    }
    res = Py_BuildValue("OOdLi", R, C, value, (long long)iters, (int)timed_out);
cleanup:
    for (int i = 0; i < 3; i++) {
        Py_XDECREF(a[i]);
    }
    WPY_XDECREF(R, C);
    return res;
}

static PyObject *wpy_rect_sgo(PyObject *self, PyObject *args, PyObject *kwds)
{
    return sr_refine(args, kwds, NULL, wpart_spatial_rect_sgo);
}

static PyObject *wpy_rect_sgo_sym(PyObject *self, PyObject *args, PyObject *kwds)
{
    return sr_refine(args, kwds, NULL, wpart_spatial_rect_sgo_sym);
}

static PyObject *wpy_rect_polish(PyObject *self, PyObject *args, PyObject *kwds)
{
    return sr_refine(args, kwds, wpart_spatial_rect_polish, NULL);
}

static PyObject *wpy_rect_kick(PyObject *self, PyObject *args, PyObject *kwds)
{
    return sr_refine(args, kwds, wpart_spatial_rect_kick, NULL);
}

/* the default's random starts from a grid (wpart_spatial_rect_random; low1, low2: the race's
 * two lowest start max loads): (R, C, value, runs, half-sweeps, lowest max, kept, timed_out),
 * R, C copies */
static PyObject *wpy_rect_random(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n1", "n2", "rp", "ci", "w", "P", "Q", "R", "C", "value",
                             "lower", "max_half", "time_limit", "progress", "low1", "low2",
                             NULL};
    PyObject *o[3], *ro, *co, *progress = Py_None, *res = NULL;
    PyArrayObject *a[3] = {NULL, NULL, NULL}, *R = NULL, *C = NULL;
    long long n1, n2, P, Q, max_half;
    double value, lower, time_limit = 0.0, low[2] = {0.0, 0.0};
    wpart_rg_csr_t A;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "LLOOOLLOOddL|dOdd", kwlist, &n1, &n2, &o[0],
                                     &o[1], &o[2], &P, &Q, &ro, &co, &value, &lower,
                                     &max_half, &time_limit, &progress, &low[0], &low[1])) {
        return NULL;
    }
    if (wpy_rect_csr(n1, n2, o, "w", NPY_FLOAT64, 0, a, &A) < 0) {
        goto cleanup;
    }
    if (sr_grid(ro, co, P, Q, "the random starts", &R, &C) < 0) {
        goto cleanup;
    }
    wpy_control_t ctl;
    wpy_control_setup(&ctl, progress, time_limit);
    wpart_rg_auto_t out;
    memset(&out, 0, sizeof out);
    wpart_status_t st;
    WPY_NOGIL(st = wpart_spatial_rect_random(&A, P, Q, PyArray_DATA(R), PyArray_DATA(C),
                                             max_half, lower, low, &ctl.ctl, &value, &out));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto cleanup;
    }
    res = Py_BuildValue("OOdLLdiiL", R, C, value, (long long)out.rand_runs,
                        (long long)out.rand_halves, out.rand_best, (int)out.rand_kept,
                        (int)out.timed_out, (long long)out.rand_moves);
cleanup:
    WPY_XDECREF(a[0], a[1], a[2], R, C);
    return res;
}

static PyObject *wpy_rect_1d(PyObject *self, PyObject *args)
{
    PyObject *wo, *res = NULL;
    PyArrayObject *w = NULL, *out = NULL;
    long long P;
    if (!PyArg_ParseTuple(args, "OL", &wo, &P)) {
        return NULL;
    }
    w = wpy_input_array(wo, "w", NPY_FLOAT64, 1, 1);
    if (!w) {
        return NULL;
    }
    if (P < 1) {
        PyErr_SetString(wpy_ValueError, "`P` must be positive");
        goto cleanup;
    }
    npy_intp np1 = P + 1;
    out = (PyArrayObject *)PyArray_ZEROS(1, &np1, NPY_INT64, 0);
    if (!out) {
        goto cleanup;
    }
    double value = 0.0;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_spatial_rect_1d(PyArray_DATA(w), (int64_t)PyArray_DIM(w, 0), P,
                                         PyArray_DATA(out), &value));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto cleanup;
    }
    res = Py_BuildValue("Od", out, value);
cleanup:
    WPY_XDECREF(w, out);
    return res;
}

/* the CSR arrays (n1, n2, o[0] pointers, o[1] indices) of a binding's arguments, converted to
 * int64 and checked into A -- their shape and pointers, then (PQ given) the grid PQ[0] x PQ[1],
 * then the indices in range: 0, or -1 with the error set */
static int sr_csr_checked(long long n1, long long n2, PyObject *o[3], PyArrayObject *a[3],
                          wpart_rg_csr_t *A, const long long *PQ)
{
    if (wpy_rect_csr(n1, n2, o, "w", NPY_FLOAT64, 1, a, A) < 0) {
        return -1;
    }
    if (PQ && (PQ[0] < 1 || PQ[1] < 1 || PQ[0] > (1LL << 31) || PQ[1] > (1LL << 31))) {
        PyErr_SetString(wpy_ValueError, "`P` and `Q` must be in [1, 2**31]");
        return -1;
    }
    wpart_status_t st = wpart_i_spatial_check_csr(A->rp, A->ci, n1, n2, A->rp[n1]);
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        return -1;
    }
    return 0;
}

/* spatial_rect_offset / spatial_rect_corner(n1, n2, rp, ci): wpart_i_rg_offset (corner 0) or
 * wpart_i_rg_corner (1) on checked CSR arrays */
static PyObject *sr_diagonal_of(PyObject *args, int corner)
{
    PyObject *o[3] = {NULL, NULL, Py_None}, *res = NULL;
    PyArrayObject *a[3] = {NULL, NULL, NULL};
    long long n1, n2;
    wpart_rg_csr_t A;
    if (!PyArg_ParseTuple(args, "LLOO", &n1, &n2, &o[0], &o[1])) {
        return NULL;
    }
    if (sr_csr_checked(n1, n2, o, a, &A, NULL) == 0) {
        res = corner ? PyBool_FromLong(wpart_i_rg_corner(&A))
                     : PyLong_FromLongLong((long long)wpart_i_rg_offset(&A));
    }
    WPY_XDECREF(a[0], a[1], a[2]);
    return res;
}

static PyObject *wpy_rect_offset(PyObject *self, PyObject *args)
{
    return sr_diagonal_of(args, 0);
}

static PyObject *wpy_rect_corner(PyObject *self, PyObject *args)
{
    return sr_diagonal_of(args, 1);
}

/* spatial_rect_diagonal(n1, n2, rp, ci, rl, cl, P, Q): the default's diagonal start
 * (wpart_i_rect_diagonal along the diagonal of wpart_i_rg_offset / wpart_i_rg_corner) from the
 * float64 row and column loads rl, cl: (R, C) int64 cuts */
static PyObject *wpy_rect_diagonal(PyObject *self, PyObject *args)
{
    PyObject *o[3] = {NULL, NULL, Py_None}, *lo[2], *res = NULL;
    PyArrayObject *a[3] = {NULL, NULL, NULL}, *w[2] = {NULL, NULL}, *R = NULL, *C = NULL;
    long long n1, n2, PQ[2];
    wpart_rg_csr_t A;
    double *v = NULL;
    int64_t *tmp = NULL;
    if (!PyArg_ParseTuple(args, "LLOOOOLL", &n1, &n2, &o[0], &o[1], &lo[0], &lo[1], &PQ[0],
                          &PQ[1])) {
        return NULL;
    }
    int64_t P = PQ[0], Q = PQ[1];
    if (sr_csr_checked(n1, n2, o, a, &A, PQ) < 0) {
        goto cleanup;
    }
    w[0] = wpy_input_array(lo[0], "rl", NPY_FLOAT64, 1, 1);
    w[1] = w[0] ? wpy_input_array(lo[1], "cl", NPY_FLOAT64, 1, 1) : NULL;
    if (!w[1]) {
        goto cleanup;
    }
    if (PyArray_DIM(w[0], 0) != n1 || PyArray_DIM(w[1], 0) != n2) {
        PyErr_SetString(wpy_ValueError, "`rl` and `cl` must hold n1 and n2 loads");
        goto cleanup;
    }
    int64_t s = wpart_i_rg_offset(&A), nd = (n1 > n2 ? n1 : n2) + (s < 0 ? -s : s);
    npy_intp np1 = (npy_intp)P + 1, nq1 = (npy_intp)Q + 1;
    v = wpart_i_malloc(2 * nd + 1, sizeof(double));
    tmp = wpart_i_malloc(2 * (P + Q), sizeof(int64_t));
    R = (PyArrayObject *)PyArray_ZEROS(1, &np1, NPY_INT64, 0);
    C = R ? (PyArrayObject *)PyArray_ZEROS(1, &nq1, NPY_INT64, 0) : NULL;
    if (!v || !tmp || !C) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        goto cleanup;
    }
    wpart_i_rect_diagonal(n1, n2, P, Q, PyArray_DATA(w[0]), PyArray_DATA(w[1]), s,
                          wpart_i_rg_corner(&A), 0, v, v + nd, tmp, PyArray_DATA(R),
                          PyArray_DATA(C));
    res = Py_BuildValue("OO", R, C);
cleanup:
    free(v);
    free(tmp);
    WPY_XDECREF(a[0], a[1], a[2]);
    WPY_XDECREF(w[0], w[1], R, C);
    return res;
}

/* spatial_rect_banded(n1, n2, rp, ci, P, Q): wpart_i_rg_banded on checked CSR arrays, along the
 * diagonal of wpart_i_rg_offset */
static PyObject *wpy_rect_banded(PyObject *self, PyObject *args)
{
    PyObject *o[3] = {NULL, NULL, Py_None}, *res = NULL;
    PyArrayObject *a[3] = {NULL, NULL, NULL};
    long long n1, n2, PQ[2];
    wpart_rg_csr_t A;
    if (!PyArg_ParseTuple(args, "LLOOLL", &n1, &n2, &o[0], &o[1], &PQ[0], &PQ[1])) {
        return NULL;
    }
    if (sr_csr_checked(n1, n2, o, a, &A, PQ) == 0) {
        res = PyBool_FromLong(wpart_i_rg_banded(&A, PQ[0], PQ[1], wpart_i_rg_offset(&A)));
    }
    WPY_XDECREF(a[0], a[1], a[2]);
    return res;
}

/* spatial_rect_load_starts(nnz, n1, n2): wpart_i_rg_load_starts */
static PyObject *wpy_rect_load_starts(PyObject *self, PyObject *args)
{
    long long nnz, n1, n2;
    if (!PyArg_ParseTuple(args, "LLL", &nnz, &n1, &n2)) {
        return NULL;
    }
    return PyLong_FromLong(wpart_i_rg_load_starts(nnz, n1, n2));
}

/* spatial_rect_piece_cuts(n1, n2, rp, ci, w, P, Q, d, anchor): rect_piece.c's piece cuts of
 * side d on CSR arrays: (cuts, value) */
static PyObject *wpy_rect_piece_cuts(PyObject *self, PyObject *args)
{
    PyObject *o[3] = {NULL, NULL, Py_None}, *res = NULL;
    PyArrayObject *a[3] = {NULL, NULL, NULL}, *cuts = NULL;
    long long n1, n2, P, Q;
    int d;
    double anchor, value = 0.0;
    wpart_rg_csr_t A;
    if (!PyArg_ParseTuple(args, "LLOOOLLid", &n1, &n2, &o[0], &o[1], &o[2], &P, &Q, &d,
                          &anchor)) {
        return NULL;
    }
    if (wpy_rect_csr(n1, n2, o, "w", NPY_FLOAT64, 0, a, &A) < 0) {
        goto cleanup;
    }
    if (P < 1 || Q < 1 || P > (1LL << 31) || Q > (1LL << 31)) {
        PyErr_SetString(wpy_ValueError, "`P` and `Q` must be in [1, 2**31]");
        goto cleanup;
    }
    npy_intp nc = (d ? Q : P) + 1;
    cuts = (PyArrayObject *)PyArray_ZEROS(1, &nc, NPY_INT64, 0);
    if (!cuts) {
        goto cleanup;
    }
    wpart_status_t st;
    WPY_NOGIL(st = wpart_spatial_rect_piece_cuts(&A, P, Q, d, anchor, NULL,
                                                 PyArray_DATA(cuts), &value));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto cleanup;
    }
    res = Py_BuildValue("Od", cuts, value);
cleanup:
    WPY_XDECREF(a[0], a[1], a[2], cuts);
    return res;
}

/* The functions (their signatures: wpart/_core.pyi; the one-call default: spatial_auto.c):
 * - spatial_rect_piece_cuts: The piece cuts of one side on CSR arrays: (cuts, value).
 * - spatial_rect_grid: RECT-NICOL half-sweeps from several starts on CSR arrays: (R, C, values,
 *   half-sweeps, states, timed_out).
 * - spatial_rect_sym: A symmetric grid on CSR arrays: (cuts, value, timed_out).
 * - spatial_rect_sgo: Subgradient refinement of a grid on CSR arrays (seed > 0: from SARMA's
 *   random start instead): (R, C, value, iterations, timed_out).
 * - spatial_rect_sgo_sym: The same with one cut vector for rows and columns (P == Q).
 * - spatial_rect_polish: Cut-move polish of a grid on CSR arrays (max_iter: tabu steps): (R, C,
 *   value, moves, timed_out).
 * - spatial_rect_kick: SGO from the uniform grid, then half-sweeps racing the given grid and
 *   the polish, on CSR arrays (max_iter: SGO iterations): (R, C, value, iterations, timed_out).
 * - spatial_rect_1d: The exact 1D partition of a float64 vector: (cuts, value).
 * - spatial_rect_banded: Whether the CSR matrix is banded at a K-way grid's resolution (the
 *   default RECT-NICOL's test for its first-half-sweep race), along spatial_rect_offset's diagonal.
 * - spatial_rect_offset: The offset of the diagonal the default RECT-NICOL's diagonal start
 *   follows (a square matrix whose entries lie mostly on one side of its diagonal; else 0).
 * - spatial_rect_corner: Whether that start follows a rectangular matrix's diagonal from corner
 *   to corner (its entries do).
 * - spatial_rect_diagonal: That start's (R, C) from the row and column loads (the step-by-step
 *   engine's diag_interleaved: the one call's cuts).
 * - spatial_rect_load_starts: The default set's load starts (3: rows_load and cols_load in
 *   the uniform starts' places, a dense matrix; 0) for nnz stored entries of n1 x n2.
 * The conversions of sparse input to CSR arrays: spatial_csr.c. */
static PyMethodDef spatial_rect_methods[] = {
    {"spatial_rect_piece_cuts", wpy_rect_piece_cuts, METH_VARARGS, NULL},
    {"spatial_rect_grid", WPY_CFUNC(wpy_rect_grid), WPY_KW, NULL},
    {"spatial_rect_sym", WPY_CFUNC(wpy_rect_sym), WPY_KW, NULL},
    {"spatial_rect_sgo", WPY_CFUNC(wpy_rect_sgo), WPY_KW, NULL},
    {"spatial_rect_sgo_sym", WPY_CFUNC(wpy_rect_sgo_sym), WPY_KW, NULL},
    {"spatial_rect_polish", WPY_CFUNC(wpy_rect_polish), WPY_KW, NULL},
    {"spatial_rect_kick", WPY_CFUNC(wpy_rect_kick), WPY_KW, NULL},
    {"spatial_rect_random", WPY_CFUNC(wpy_rect_random), WPY_KW, NULL},
    {"spatial_rect_1d", wpy_rect_1d, METH_VARARGS, NULL},
    {"spatial_rect_banded", wpy_rect_banded, METH_VARARGS, NULL},
    {"spatial_rect_offset", wpy_rect_offset, METH_VARARGS, NULL},
    {"spatial_rect_corner", wpy_rect_corner, METH_VARARGS, NULL},
    {"spatial_rect_diagonal", wpy_rect_diagonal, METH_VARARGS, NULL},
    {"spatial_rect_load_starts", wpy_rect_load_starts, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

WPY_DEFINE_INIT(spatial_rect, spatial_rect_methods)
