/*
 * internal.h -- private helpers shared by the core's files. Never installed.
 * Names here start with wpart_i_ (functions) or WPART_ (macros).
 */
#ifndef WPART_INTERNAL_H
#define WPART_INTERNAL_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "wpart/status.h"

#if defined(__GNUC__) || defined(__clang__)
#define WPART_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define WPART_LIKELY(x) __builtin_expect(!!(x), 1)
#define WPART_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define WPART_PRINTF(a, b)
#define WPART_LIKELY(x) (x)
#define WPART_UNLIKELY(x) (x)
#endif

/* Whether the control hooks ask to stop (Ctrl-C): 0 without hooks or without a stop hook. The
 * one test of the request; each caller decides how often to ask and what stopping means. */
static inline int wpart_i_stop_asked(const wpart_control_t *ctl)
{
    return ctl && ctl->should_stop && ctl->should_stop(ctl->ctx);
}

/** Records a detail message for the calling thread and returns st. */
wpart_status_t wpart_i_error(wpart_status_t st, const char *fmt, ...) WPART_PRINTF(2, 3);

/* Fail: set st, record the message and jump to the function's cleanup label. */
#define WPART_FAIL(code, ...)                          \
    do {                                               \
        st = wpart_i_error((code), __VA_ARGS__);       \
        goto cleanup;                                  \
    } while (0)

/* Propagate: evaluate a status expression; on error keep it and jump to cleanup. */
#define WPART_CHECK(expr)                              \
    do {                                               \
        st = (expr);                                   \
        if (WPART_UNLIKELY(st != WPART_OK)) {          \
            goto cleanup;                              \
        }                                              \
    } while (0)

/*
 * Overflow-checked allocation of n elements of size sz (csrc/base/alloc.c, the only file that
 * calls malloc/calloc/realloc); NULL on overflow, n < 0 or failure; release with free().
 * wpart_i_realloc leaves p untouched when it returns NULL.
 */
void *wpart_i_malloc(int64_t n, size_t sz);
void *wpart_i_calloc(int64_t n, size_t sz);
void *wpart_i_realloc(void *p, int64_t n, size_t sz);

/* free() of each of the n pointers p[0..n); WPART_FREE_ALL(a, b, ...) frees the pointers listed
 * (a struct's arrays), in order */
void wpart_i_free_all(void *const *p, size_t n);
#define WPART_FREE_ALL(...)                          \
    wpart_i_free_all((void *const[]){__VA_ARGS__}, \
                     sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

/* Greatest common divisor (Euclid; gcd(a, 0) = a). */
static inline int64_t wpart_i_gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Overflow-checked products for sizes. Return 0 on overflow. */
int wpart_i_mul_size(int64_t a, int64_t b, int64_t *out);

/* Monotonic wall clock in seconds. */
double wpart_i_now(void);

/*
 * Poll the control hooks. Cheap enough to call every few thousand steps; returns
 * WPART_ECANCELLED (with a message) when should_stop fires or the time limit has passed.
 * t0 is the start time of the computation (wpart_i_now()).
 */
wpart_status_t wpart_i_poll(const wpart_control_t *ctl, double t0, double done, double total);

/* wpart_base_box_loads_{i64,f64} that stops on ctl's should_stop (Ctrl-C; ctl may be NULL),
 * asked every 2^16 boxes: WPART_ECANCELLED then, `out` unfinished */
wpart_status_t wpart_i_box_loads_i64(const int64_t *S, int d, const int64_t *dims,
                                     const int64_t *boxes, int64_t k, int64_t *out,
                                     const wpart_control_t *ctl);
wpart_status_t wpart_i_box_loads_f64(const double *S, int d, const int64_t *dims,
                                     const int64_t *boxes, int64_t k, double *out,
                                     const wpart_control_t *ctl);

#endif /* WPART_INTERNAL_H */
