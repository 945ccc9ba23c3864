/* wtest.h -- the small harness shared by the C test programs in tests/c/: CHECK macros that
 * count failures instead of aborting (a condition, a status, a status with its message, a
 * value within 1e-7 relative), and a seeded xorshift generator (define WTEST_SEED before
 * including to change the seed). Each test's main returns non-zero when `failures` > 0. */
#ifndef WPART_WTEST_H
#define WPART_WTEST_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "wpart/wpart.h"

#ifndef WTEST_SEED
#define WTEST_SEED 88172645463325252ULL
#endif

static int failures = 0;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)

#define CHECK_STATUS(expr, want)                                                        \
    do {                                                                                \
        wpart_status_t st_ = (expr);                                                    \
        if (st_ != (want)) {                                                            \
            fprintf(stderr, "%s:%d: %s returned %d (%s: %s), expected %d\n", __FILE__,   \
                    __LINE__, #expr, (int)st_, wpart_strerror(st_), wpart_last_error(), \
                    (int)(want));                                                       \
            failures++;                                                                 \
        }                                                                               \
    } while (0)

/* Expect status `code` and a detail message containing `needle`. */
#define CHECK_ERROR(expr, code, needle)                                                      \
    do {                                                                                     \
        wpart_clear_error();                                                                 \
        wpart_status_t st_ = (expr);                                                         \
        if (st_ != (code) || !strstr(wpart_last_error(), (needle))) {                        \
            fprintf(stderr, "%s:%d: %s gave %d (%s), expected %d with '%s'\n", __FILE__,     \
                    __LINE__, #expr, (int)st_, wpart_last_error(), (int)(code), (needle));   \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

#define CHECK_NEAR(a, b)                                                              \
    do {                                                                              \
        double a_ = (a), b_ = (b);                                                    \
        if (!(fabs(a_ - b_) <= 1e-7 * (1.0 + fabs(b_)))) {                            \
            fprintf(stderr, "%s:%d: %s = %.12g, expected %.12g\n", __FILE__, __LINE__, \
                    #a, a_, b_);                                                      \
            failures++;                                                               \
        }                                                                             \
    } while (0)

static uint64_t rng_state = WTEST_SEED;

static inline uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

#endif /* WPART_WTEST_H */
