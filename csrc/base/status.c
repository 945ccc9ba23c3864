/* status.c -- status names, the thread-local error detail and the control helpers. */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define WPART_ERRBUF 1024

static _Thread_local char wpart_errbuf[WPART_ERRBUF];

const char *wpart_strerror(wpart_status_t st)
{
    switch (st) {
    case WPART_OK: return "success";
    case WPART_EINVAL: return "invalid argument";
    case WPART_ENOMEM: return "out of memory";
    case WPART_EOVERFLOW: return "overflow";
    case WPART_ELIMIT: return "size or state limit reached";
    case WPART_ECANCELLED: return "cancelled";
    case WPART_ENOSOLVER: return "built without a MILP solver";
    case WPART_ESOLVER: return "MILP solver failure";
    case WPART_EINTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *wpart_last_error(void) { return wpart_errbuf; }

void wpart_clear_error(void) { wpart_errbuf[0] = '\0'; }

wpart_status_t wpart_i_error(wpart_status_t st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(wpart_errbuf, sizeof wpart_errbuf, fmt, ap);
    va_end(ap);
    return st;
}

double wpart_i_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void wpart_control_init(wpart_control_t *ctl)
{
    if (ctl) {
        memset(ctl, 0, sizeof *ctl);
    }
}

wpart_status_t wpart_i_poll(const wpart_control_t *ctl, double t0, double done, double total)
{
    if (!ctl) {
        return WPART_OK;
    }
    if (ctl->progress) {
        ctl->progress(ctl->ctx, done, total);
    }
    if (wpart_i_stop_asked(ctl)) {
        return wpart_i_error(WPART_ECANCELLED, "stopped on request");
    }
    if (ctl->time_limit > 0 && wpart_i_now() - t0 > ctl->time_limit) {
        return wpart_i_error(WPART_ECANCELLED, "time limit of %g s reached", ctl->time_limit);
    }
    return WPART_OK;
}
