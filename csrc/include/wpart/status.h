/*
 * wpart/status.h -- status codes, error details and the control hooks shared by every family.
 *
 * Every public function of the core that can fail returns a wpart_status_t. WPART_OK is 0.
 * Values are numbered explicitly and are never reused.
 */
#ifndef WPART_STATUS_H
#define WPART_STATUS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    WPART_OK = 0,
    WPART_EINVAL = 1,      /* invalid argument: bad value, shape, NaN, negative load ... */
    WPART_ENOMEM = 2,      /* allocation failed */
    WPART_EOVERFLOW = 3,   /* an int64 sum or a size computation overflowed */
    WPART_ELIMIT = 4,      /* a size, memory or state cap was reached */
    WPART_ECANCELLED = 5,  /* stopped by the should-stop hook or a time limit */
    WPART_ENOSOLVER = 6,   /* built without GLPK */
    WPART_ESOLVER = 7,     /* the MILP solver failed */
    WPART_EINTERNAL = 8    /* a broken internal invariant (a bug: please report) */
} wpart_status_t;

/** Static, human-readable name of a status ("invalid argument", ...). Never NULL. */
const char *wpart_strerror(wpart_status_t st);

/**
 * Detail message of the last failure raised on the calling thread ("" if none).
 * The buffer is thread-local; it stays valid until the next failing call on the same thread.
 */
const char *wpart_last_error(void);

/** Clears the calling thread's detail message. */
void wpart_clear_error(void);

/**
 * Control hooks for long computations. Both hooks are optional (NULL).
 *
 * progress(ctx, done, total) reports how far a computation is, in units the algorithm chooses;
 * should_stop(ctx) returns non-zero to ask the computation to stop as soon as possible, in which
 * case it returns WPART_ECANCELLED and writes nothing half-done to caller buffers that it promised
 * to fill. The core calls the hooks from the calling thread only, at most every few thousand
 * elementary steps, so they may be moderately expensive.
 */
typedef struct wpart_control {
    void (*progress)(void *ctx, double done, double total);
    int (*should_stop)(void *ctx);
    void *ctx;
    double time_limit;     /* seconds of wall time; <= 0 means none */
} wpart_control_t;

/** Sets every field to its default (no hooks, no time limit). */
void wpart_control_init(wpart_control_t *ctl);

#ifdef __cplusplus
}
#endif

#endif /* WPART_STATUS_H */
