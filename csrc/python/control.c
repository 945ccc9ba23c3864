/* control.c -- the core's control hooks mapped to Ctrl-C and a Python progress callable.
 *
 * The core calls these hooks with the GIL released; each hook takes the GIL only every
 * WPY_POLL seconds, so polling stays cheap. A KeyboardInterrupt (or an exception raised by the
 * progress callable) is left pending and the hook asks the core to stop; the caller then sees
 * WPART_ECANCELLED and wpy_raise keeps the pending exception. */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <time.h>

#include "wpy.h"

#define WPY_POLL 0.05

static double wpy_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int wpy_should_stop(void *ctx)
{
    wpy_control_t *c = (wpy_control_t *)ctx;
    if (c->stopped) {
        return 1;
    }
    double now = wpy_now();
    if (now - c->last < WPY_POLL) {
        return 0;
    }
    c->last = now;
    PyGILState_STATE g = PyGILState_Ensure();
    if (PyErr_CheckSignals() < 0) {
        c->stopped = 1;
    }
    PyGILState_Release(g);
    return c->stopped;
}

static void wpy_progress(void *ctx, double done, double total)
{
    wpy_control_t *c = (wpy_control_t *)ctx;
    if (!c->progress || c->stopped) {
        return;
    }
    double now = wpy_now();
    if (done < total && now - c->last_progress < 2 * WPY_POLL) {
        return;
    }
    c->last_progress = now;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = PyObject_CallFunction(c->progress, "dd", done, total);
    if (!r) {
        c->stopped = 1;
    }
    Py_XDECREF(r);
    PyGILState_Release(g);
}

wpart_control_t *wpy_control_setup(wpy_control_t *c, PyObject *progress, double time_limit)
{
    wpart_control_init(&c->ctl);
    c->progress = (progress && progress != Py_None) ? progress : NULL;
    c->last = wpy_now();
    c->last_progress = 0.0;
    c->stopped = 0;
    c->ctl.should_stop = wpy_should_stop;
    c->ctl.progress = c->progress ? wpy_progress : NULL;
    c->ctl.ctx = c;
    c->ctl.time_limit = time_limit;
    return &c->ctl;
}
