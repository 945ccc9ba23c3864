/* multikernel_sim.c -- binding of the simulated multi-kernel run (wpart_multikernel_sim_run,
 * wpart/multikernel.h). Arrays must already have the exact dtype and lengths (the Python layer,
 * wpart/dynamic/multikernel/_simulate.py, converts and validates); the C side checks values. */
#include "wpy.h"
#include "wpart/multikernel.h"

static PyObject *py_multikernel_sim_run(PyObject *self, PyObject *args)
{
    int n_gpus, overlap, n_cpu, iters, sync;
    PyObject *uo, *go, *co;
    double p[11];
    unsigned long long seed;
    long long run;
    if (!PyArg_ParseTuple(args, "iiiOOO(ddddddddddd)iiKL:multikernel_sim_run", &n_gpus, &overlap, &n_cpu,
                          &uo, &go, &co, &p[0], &p[1], &p[2], &p[3], &p[4], &p[5], &p[6], &p[7],
                          &p[8], &p[9], &p[10], &iters, &sync, &seed, &run)) {
        return NULL;
    }
    PyArrayObject *u = wpy_input_array(uo, "units", NPY_INT64, 1, 1), *g = NULL, *c = NULL;
    PyObject *te = NULL, *td = NULL, *tb = NULL;
    if (!u || !(g = wpy_input_array(go, "gpu_comp", NPY_FLOAT64, 1, 1)) ||
        !(c = wpy_input_array(co, "cpu_rate", NPY_FLOAT64, 1, 1))) {
        goto fail;
    }
    if (n_gpus < 0 || n_cpu < 0 || overlap < 1 || PyArray_DIM(g, 0) != n_gpus ||
        PyArray_DIM(c, 0) != n_cpu ||
        PyArray_DIM(u, 0) != (npy_intp)n_gpus * overlap + n_cpu) {
        PyErr_SetString(wpy_ValueError, "multikernel_sim_run: array lengths do not match the devices");
        goto fail;
    }
    npy_intp E = PyArray_DIM(u, 0), D = n_gpus + 1, B = 2 * n_gpus + 1;
    te = PyArray_SimpleNew(1, &E, NPY_FLOAT64);
    td = PyArray_SimpleNew(1, &D, NPY_FLOAT64);
    tb = PyArray_SimpleNew(1, &B, NPY_FLOAT64);
    if (!te || !td || !tb) {
        goto fail;
    }
    wpart_multikernel_sim_t in = {.n_gpus = n_gpus, .overlap = overlap, .n_cpu = n_cpu,
                         .units = PyArray_DATA(u), .gpu_comp = PyArray_DATA(g),
                         .gpu_up = p[0], .gpu_down = p[1], .gpu_copy = p[2], .lat_x = p[3],
                         .lat_k = p[4], .cpu_rate = PyArray_DATA(c), .cpu_fixed = p[5],
                         .ws = p[6], .cap = p[7], .lambda = p[8], .iters = iters, .sync = sync,
                         .host_merge = p[9], .sigma = p[10], .seed = (uint64_t)seed,
                         .run = (int64_t)run};
    double out3[3];
    int64_t events = 0;
    wpart_status_t st;
    WPY_NOGIL(st = wpart_multikernel_sim_run(&in, PyArray_DATA((PyArrayObject *)te),
                                             PyArray_DATA((PyArrayObject *)td),
                                             PyArray_DATA((PyArrayObject *)tb), out3, &events));
    if (st != WPART_OK) {
        wpy_raise(st, NULL);
        goto fail;
    }
    WPY_XDECREF(u, g, c);
    return Py_BuildValue("(dddNNNL)", out3[0], out3[1], out3[2], te, td, tb, (long long)events);
fail:
    WPY_XDECREF(u, g, c, te, td, tb);
    return NULL;
}

/* The functions (their signatures: wpart/_core.pyi):
 * - multikernel_sim_run(n_gpus, overlap, n_cpu, units, gpu_comp, cpu_rate, (gpu_up, gpu_down,
 *   gpu_copy, lat_x, lat_k, cpu_fixed, ws, cap, lambda, host_merge, sigma), iters, sync, seed,
 *   run) -> (T, T_gpu, T_cpu, t_exec, t_dev, busy, events) */
static PyMethodDef mksim_methods[] = {
    {"multikernel_sim_run", py_multikernel_sim_run, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

WPY_DEFINE_INIT(multikernel_sim, mksim_methods)
