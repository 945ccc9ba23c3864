/* wtest.h -- the small harness shared by the C test programs in tests/c/: CHECK macros that
 * count failures instead of aborting, and a seeded xorshift generator (define WTEST_SEED before
 * including to change the seed). Each test's main returns non-zero when `failures` > 0. */
#ifndef WPART_WTEST_H
#define WPART_WTEST_H

#include <stdint.h>
#include <stdio.h>

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

static uint64_t rng_state = WTEST_SEED;

static inline uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

#endif /* WPART_WTEST_H */
