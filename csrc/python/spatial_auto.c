/* spatial_auto.c -- the binding of the default RECT-NICOL in one call (rect_fast.c): its
 * CSR arrays checked and converted, explicit zeros dropped where asked, the result and its
 * stage clock. */
#include "spatial_rect.h"

#include "../spatial/rect_polish.h"
#include "../spatial/spatial_internal.h"

/* the default's stages, in the order they run (wpart_rg_auto_t's stage: WPART_RF_ST_*) */
static const char *const sr_names[WPART_RF_NST] = {
    "setup", "starts", "random_starts", "nic", "cut_moves", "kick", "plain", "finish"};

/* spatial_rect_stages(): the stage names as a tuple (wpart.spatial._nicol.STAGES) */
static PyObject *wpy_rect_stages(PyObject *self, PyObject *unused)
{
    PyObject *t = PyTuple_New(WPART_RF_NST);
    for (int k = 0; t && k < WPART_RF_NST; k++) {
        PyObject *v = PyUnicode_FromString(sr_names[k]);
        if (!v) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, k, v);
    }
    return t;
}

/* spatial_rect_avx2(): whether the default runs its AVX2 copy on this machine */
static PyObject *wpy_rect_avx2(PyObject *self, PyObject *unused)
{
    return PyBool_FromLong(wpart_spatial_rect_nicol_auto_avx2());
}

/* the default's stage clock (wpart_rg_auto_t's stage: seconds from the call's start at each
 * stage's end, -1 where it did not run) as {stage: seconds spent in it} for the stages that
 * ran, in order (sr_names; spatial_rect_stages); NULL with the error set */
static PyObject *sr_stages(const double *clock)
{
    PyObject *d = PyDict_New();
    double last = 0.0;
    for (int k = 0; d && k < WPART_RF_NST; k++) {
        if (!(clock[k] >= 0.0)) {
            continue;
        }
        PyObject *v = PyFloat_FromDouble(clock[k] > last ? clock[k] - last : 0.0);
        last = clock[k];
        if (!v || PyDict_SetItemString(d, sr_names[k], v) < 0) {
            Py_CLEAR(d);
        }
        Py_XDECREF(v);
    }
    return d;
}

/* spatial_rect_nicol_auto's zeros (wpart_i_spatial_csr_nonzero): A's entries whose value (*ivp,
 * else A->w) is not 0 in new arrays that take the places of a[0], a[1] and, with keep, a[2]
 * (the kept values, int64 where *ivp, else float64; without keep a[2] stays), A's pointers
 * with them. 0: done (A unchanged where no entry is 0), 1: no entry left, -1: error set */
static int sr_nonzero(long long n1, wpart_rg_csr_t *A, const int64_t **ivp, int keep,
                      PyArrayObject *a[3])
{
    int64_t nnz = A->rp[n1], kept = 0;
    const int64_t *iv = *ivp;
    wpart_status_t st = wpart_i_spatial_csr_nonzero(n1, A->rp, A->ci, iv, A->w, NULL, NULL,
                                                    NULL, NULL, &kept);
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        return -1;
    }
    if (kept == 0 || kept == nnz) {
        return kept == 0;
    }
    /* (one cell of room past the last kept entry: the branch-free copy writes there) */
    npy_intp np1 = (npy_intp)n1 + 1, k1 = (npy_intp)kept + 1, nk = (npy_intp)kept;
    PyArrayObject *b[3] = {(PyArrayObject *)PyArray_EMPTY(1, &np1, NPY_INT64, 0),
                           (PyArrayObject *)PyArray_EMPTY(1, &k1, NPY_INT64, 0),
                           keep ? (PyArrayObject *)PyArray_EMPTY(1, &k1, iv ? NPY_INT64
                                                                            : NPY_FLOAT64, 0)
                                : NULL};
    int ok = b[0] && b[1] && (!keep || b[2]);
    if (ok) {
        void *v = keep ? PyArray_DATA(b[2]) : NULL;
        st = wpart_i_spatial_csr_nonzero(n1, A->rp, A->ci, iv, A->w, PyArray_DATA(b[0]),
                                         PyArray_DATA(b[1]), iv ? v : NULL, iv ? NULL : v,
                                         &kept);
        ok = st == WPART_OK;
        for (int i = 1; i < 3 && ok; i++) { /* views of the kept entries (the room unused) */
            if (b[i]) {
                PyObject *view = PySequence_GetSlice((PyObject *)b[i], 0, nk);
                Py_SETREF(b[i], (PyArrayObject *)view);
                ok = view != NULL;
            }
        }
    }
    if (!ok) {
        WPY_XDECREF(b[0], b[1], b[2]);
        return -1;
    }
    for (int i = 0; i < (keep ? 3 : 2); i++) {
        Py_XDECREF(a[i]);
        a[i] = b[i];
    }
    A->rp = PyArray_DATA(a[0]);
    A->ci = PyArray_DATA(a[1]);
    if (keep) {
        *ivp = iv ? PyArray_DATA(a[2]) : NULL;
        A->w = iv ? NULL : PyArray_DATA(a[2]);
    }
    return 0;
}

/* the default RECT-NICOL in one call (rect_fast.c) on CSR arrays (int32 or int64 pointers
 * and indices, converted) and values: an int64 or float64 array, or None for 1 each (int64
 * block loads then); the result's last four items: the int64 pointers and indices it ran on
 * (the given arrays when they were int64), the largest block load (a Python int for int64
 * loads, else a float; None without loads) and, for None values with loads, an int64 array of
 * one 1 per entry (the loads matrix's values; else None); then the load starts' bits, the values
 * it ran on (None: the given ones) and the seconds of each stage that ran (sr_stages) */
static PyObject *wpy_rect_nicol_auto(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"n1", "n2", "rp", "ci", "vals", "P", "Q", "max_half", "loads",
                             "time_limit", "progress", "fvals", "zeros", "simd", NULL};
    PyObject *o[3], *progress = Py_None, *res = NULL, *lmax = NULL, *fo = Py_None, *vf = NULL;
    PyObject *stages = NULL;
    PyArrayObject *a[3] = {NULL, NULL, NULL}, *R = NULL, *C = NULL, *L = NULL, *B = NULL;
    PyArrayObject *ones = NULL, *F = NULL;
    long long n1, n2, P, Q, max_half;
    int loads = 0, zeros = 0, simd = 1;
    double time_limit = 0.0;
    wpart_rg_csr_t A;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "LLOOOLLL|pdOOip", kwlist, &n1, &n2,
                                     &o[0], &o[1], &o[2], &P, &Q, &max_half, &loads,
                                     &time_limit, &progress, &fo, &zeros, &simd)) {
        return NULL;
    }
    int iv = PyArray_Check(o[2]) && PyArray_TYPE((PyArrayObject *)o[2]) == NPY_INT64;
    if (zeros == 2 && o[2] != Py_None && !iv) { /* (any other numeric type as float64) */
        vf = PyArray_FROMANY(o[2], NPY_FLOAT64, 1, 1, NPY_ARRAY_IN_ARRAY);
        if (!vf) {
            return NULL;
        }
        o[2] = vf;
    }
    if (wpy_rect_csr(n1, n2, o, "vals", iv ? NPY_INT64 : NPY_FLOAT64, 1, a, &A) < 0) {
        goto cleanup;
    }
    /* zeros 1: the entries of value 0 dropped (their arrays returned), 2: the same and then 1
     * per entry left (the nonzero values counted); None where no entry is left */
    const int64_t *ivp = iv ? PyArray_DATA(a[2]) : NULL, *rp0 = A.rp;
    if ((zeros == 1 || zeros == 2) && a[2]) {
        int none = sr_nonzero(n1, &A, &ivp, zeros == 1, a);
        if (none) {
            res = none > 0 ? Py_NewRef(Py_None) : NULL;
            goto cleanup;
        }
        if (zeros == 2) {
            Py_CLEAR(a[2]);
            A.w = NULL;
            ivp = NULL;
            iv = 0;
        }
    }
    int unit = !a[2]; /* 1 per entry: int64 loads */
    if (P < 1 || Q < 1 || max_half < 1) {
        PyErr_SetString(wpy_ValueError, "malformed CSR arrays");
        goto cleanup;
    }
    if (fo != Py_None) { /* int64 vals' float64 copy (wpart_spatial_rect_nicol_auto's A->w) */
        F = iv ? wpy_input_array(fo, "fvals", NPY_FLOAT64, 1, 1) : NULL;
        if (!F || PyArray_DIM(F, 0) != PyArray_DIM(a[1], 0)) {
            if (F || !PyErr_Occurred()) {
                PyErr_SetString(wpy_ValueError, "`fvals` must match int64 `vals`");
            }
            goto cleanup;
        }
        A.w = PyArray_DATA(F);
    }
    npy_intp np1 = P + 1, nq1 = Q + 1, npq = P * Q;
    R = (PyArrayObject *)PyArray_ZEROS(1, &np1, NPY_INT64, 0);
    C = (PyArrayObject *)PyArray_ZEROS(1, &nq1, NPY_INT64, 0);
    if (!R || !C) {
        goto cleanup;
    }
    if (loads) {
        npy_intp bd[2] = {npq, 4};
        npy_intp nnz = (npy_intp)A.rp[n1];
        L = (PyArrayObject *)PyArray_ZEROS(1, &npq, iv || unit ? NPY_INT64 : NPY_FLOAT64, 0);
        B = (PyArrayObject *)PyArray_ZEROS(2, bd, NPY_INT64, 0);
        ones = unit ? (PyArrayObject *)PyArray_EMPTY(1, &nnz, NPY_INT64, 0) : NULL;
        if (!L || !B || (unit && !ones)) {
            goto cleanup;
        }
        int64_t *one = unit ? PyArray_DATA(ones) : NULL;
        for (npy_intp e = 0; e < (unit ? nnz : 0); e++) {
            one[e] = 1;
        }
    }
    wpart_rg_auto_t out;
    memset(&out, 0, sizeof out);
    out.R = PyArray_DATA(R);
    out.C = PyArray_DATA(C);
    out.iloads = L && (iv || unit) ? PyArray_DATA(L) : NULL;
    out.floads = L && !(iv || unit) ? PyArray_DATA(L) : NULL;
    out.rects = B ? PyArray_DATA(B) : NULL;
    wpy_control_t ctl;
    wpy_control_setup(&ctl, progress, time_limit);
    wpart_status_t st;
    WPY_NOGIL(st = wpart_spatial_rect_nicol_auto_isa(&A, ivp, P, Q, max_half, &ctl.ctl, &out,
                                                     simd));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto cleanup;
    }
    if (L && out.iloads) { /* (no loads made when a value was bad: zeros then) */
        int64_t mi = 0;
        for (npy_intp k = 0; k < npq; k++) {
            mi = out.iloads[k] > mi ? out.iloads[k] : mi;
        }
        lmax = PyLong_FromLongLong((long long)mi);
    } else if (L) {
        double mf = out.floads[0];
        for (npy_intp k = 1; k < npq; k++) {
            mf = out.floads[k] > mf ? out.floads[k] : mf;
        }
        lmax = PyFloat_FromDouble(mf);
    } else {
        lmax = Py_NewRef(Py_None);
    }
    if (!lmax) {
        goto cleanup;
    }
    stages = sr_stages(out.stage);
    if (!stages) {
        goto cleanup;
    }
    res = Py_BuildValue("OOO(ddddd)(LLLLL)(iiiii)(LLLLL)diiLLdO(LdLLdLdLLdiLLdi)OOOOiOO", R, C,
                        L ? (PyObject *)L : Py_None,
                        out.val[0], out.val[1], out.val[2], out.val[3], out.val[4],
                        (long long)out.halves[0], (long long)out.halves[1],
                        (long long)out.halves[2], (long long)out.halves[3],
                        (long long)out.halves[4], (int)out.state[0], (int)out.state[1],
                        (int)out.state[2], (int)out.state[3], (int)out.state[4],
                        (long long)out.ref[0], (long long)out.ref[1], (long long)out.ref[2],
                        (long long)out.ref[3], (long long)out.ref[4], out.lower,
                        (int)out.timed_out, (int)out.bad, (long long)out.itotal,
                        (long long)out.iamax, out.amax, B ? (PyObject *)B : Py_None,
                        (long long)out.moves, out.polished, (long long)out.kick_iters,
                        (long long)out.kick_halves, out.kicked,
                        (long long)out.joint_halves, out.joint, (long long)out.rand_runs,
                        (long long)out.rand_halves, out.rand_best, (int)out.rand_kept,
                        (long long)out.rand_moves, (long long)out.piece_halves, out.piece,
                        (int)out.piece_state, a[0], a[1], lmax,
                        ones ? (PyObject *)ones : Py_None, (int)out.load_starts,
                        a[2] && A.rp != rp0 ? (PyObject *)a[2] : Py_None, stages);
cleanup:
    WPY_XDECREF(a[0], a[1], a[2], R, C, L, B);
    Py_XDECREF(lmax);
    Py_XDECREF(stages);
    Py_XDECREF(ones);
    Py_XDECREF(F);
    Py_XDECREF(vf);
    return res;
}

/* The functions (their signatures: wpart/_core.pyi):
 * - spatial_rect_nicol_auto: The default RECT-NICOL in one call on CSR arrays: (R, C, loads,
 *   values, half-sweeps, states, refs, lower bound, timed_out, value check, int total, int max,
 *   max, rects, (polish moves, polished max, kick iterations, kick half-sweeps, kicked max,
 *   joint half-sweeps, joint max, random runs, their half-sweeps, their best, kept, their
 *   cut moves, piece half-sweeps, piece max, piece state), ..., the values the core ran on
 *   where zeros dropped entries, else None, the seconds of each stage that ran); zeros 1 / 2:
 *   the entries of value 0 dropped first (2: then 1 per entry left), None where none is left;
 *   simd False: the plain copy of the core, not its AVX2 one (the same results).
 * - spatial_rect_stages: The names of its stages, in order.
 * - spatial_rect_avx2: Whether the default runs the core's AVX2 copy on this machine. */
static PyMethodDef spatial_auto_methods[] = {
    {"spatial_rect_nicol_auto", WPY_CFUNC(wpy_rect_nicol_auto), WPY_KW, NULL},
    {"spatial_rect_stages", wpy_rect_stages, METH_NOARGS, NULL},
    {"spatial_rect_avx2", wpy_rect_avx2, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

WPY_DEFINE_INIT(spatial_auto, spatial_auto_methods)
