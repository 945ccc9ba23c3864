/*
 * ranks_internal.h -- helpers shared by the rank engine's C files (ranks_estimate.c,
 * ranks_pair.c, ranks_move.c): the int64 order for qsort, a binary search in a sorted id array,
 * and the lookup of a block's size and home in two rank records.
 */
#ifndef WPART_TASKS_RANKS_INTERNAL_H
#define WPART_TASKS_RANKS_INTERNAL_H

#include <stdint.h>

/* qsort order of int64 values */
static inline int wpart_tasks_i_cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* index of v in the sorted array s[0..n), or -1 */
static inline int64_t wpart_tasks_i_find_sorted(const int64_t *s, int64_t n, int64_t v)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (s[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && s[lo] == v ? lo : -1;
}

/* static int NAME(const T *a, const T *b, int64_t id, double *size, int32_t *home): the size
 * and home (local rank 0 for a, 1 for b, else 2) of block `id`, b's record first, then a's;
 * 0 when neither holds it. T is any rank record with n_blocks, bid, bsize, bhome and rank. */
#define WPART_TASKS_I_FIND_BLOCK(T, NAME)                                                     \
    static int NAME(const T *a, const T *b, int64_t id, double *size, int32_t *home)          \
    {                                                                                         \
        const T *s[2] = {b, a};                                                               \
        for (int k = 0; k < 2; k++) {                                                         \
            for (int32_t i = 0; i < s[k]->n_blocks; i++) {                                    \
                if (s[k]->bid[i] == id) {                                                     \
                    int32_t h = s[k]->bhome[i];                                               \
                    *size = s[k]->bsize[i];                                                   \
                    *home = h == a->rank ? 0 : (h == b->rank ? 1 : 2);                        \
                    return 1;                                                                 \
                }                                                                             \
            }                                                                                 \
        }                                                                                     \
        return 0;                                                                             \
    }

#endif
