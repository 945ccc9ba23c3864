/*
 * ranks_internal.h -- helpers shared by the rank engine's C files (ranks_estimate.c,
 * ranks_pair.c, ranks_move.c, ranks_summary.c): the int64 order for qsort, a sort keeping one
 * of each value, a test of sorted distinct ids, a binary search in a sorted id array,
 * the lookup of a block's size and home in two rank records, and the per-rank fields of a
 * pair's problem.
 */
#ifndef WPART_TASKS_RANKS_INTERNAL_H
#define WPART_TASKS_RANKS_INTERNAL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"
#include "wpart/tasks.h"

/* qsort order of int64 values */
static inline int wpart_tasks_i_cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* sorts v[0..n) and keeps one of each value; returns the count */
static inline int64_t wpart_tasks_i_sort_unique(int64_t *v, int64_t n)
{
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof(int64_t), wpart_tasks_i_cmp_i64);
    int64_t k = 1;
    for (int64_t i = 1; i < n; i++)
        if (v[i] != v[k - 1]) v[k++] = v[i];
    return k;
}

/* whether s[0..n) is sorted and distinct */
static inline int wpart_tasks_i_sorted_strict(const int64_t *s, int64_t n)
{
    for (int64_t i = 1; i < n; i++)
        if (s[i - 1] >= s[i]) return 0;
    return 1;
}

/* index of v in the sorted array s[0..n), or -1 (a lower bound whose halving steps have no
 * branch: they compile to conditional moves) */
static inline int64_t wpart_tasks_i_find_sorted(const int64_t *s, int64_t n, int64_t v)
{
    if (n <= 0) return -1;
    const int64_t *b = s;
    for (int64_t len = n; len > 1;) { /* the lower bound of v is in [b, b + len] */
        int64_t half = len / 2;
        b = b[half] < v ? b + half : b;
        len -= half;
    }
    int64_t i = (b - s) + (*b < v);
    return i < n && s[i] == v ? i : -1;
}

/* The index of each of n distinct ids (open addressing, linear probing, room a power of 2 at
 * least twice n): wpart_tasks_i_map_find gives what wpart_tasks_i_find_sorted gives on the
 * sorted ids, in about one probe instead of log2 n unpredictable steps. */
typedef struct {
    int64_t *key;
    int64_t *val; /* -1: empty */
    uint64_t mask;
    int shift;
} wpart_tasks_i_map_t;

/* fills m from ids[0..n) (distinct); 0, or -1 when out of memory (free with ..._map_free) */
static inline int wpart_tasks_i_map_build(wpart_tasks_i_map_t *m, const int64_t *ids, int64_t n)
{
    int bits = 4;
    while (((int64_t)1 << bits) < 2 * n) bits++;
    const int64_t cap = (int64_t)1 << bits;
    m->mask = (uint64_t)cap - 1;
    m->shift = 64 - bits;
    m->key = (int64_t *)wpart_i_malloc(cap, sizeof(int64_t));
    m->val = (int64_t *)wpart_i_malloc(cap, sizeof(int64_t));
    if (!m->key || !m->val) return -1;
    for (int64_t h = 0; h < cap; h++) m->val[h] = -1;
    for (int64_t i = 0; i < n; i++) {
        uint64_t h = ((uint64_t)ids[i] * 0x9E3779B97F4A7C15ull) >> m->shift;
        while (m->val[h] >= 0) h = (h + 1) & m->mask;
        m->key[h] = ids[i];
        m->val[h] = i;
    }
    return 0;
}

static inline int64_t wpart_tasks_i_map_find(const wpart_tasks_i_map_t *m, int64_t v)
{
    uint64_t h = ((uint64_t)v * 0x9E3779B97F4A7C15ull) >> m->shift;
    while (m->val[h] >= 0) {
        if (m->key[h] == v) return m->val[h];
        h = (h + 1) & m->mask;
    }
    return -1;
}

static inline void wpart_tasks_i_map_free(wpart_tasks_i_map_t *m)
{
    free(m->key);
    free(m->val);
    m->key = NULL;
    m->val = NULL;
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
    }                                                                                         \
    /* the distinct ids of bids[0..n) (sorted in place, the first *nub), their sizes and local \
     * homes in fresh *bsize, *bhome; the errors name `what` (whose blocks) and `who` (what    \
     * accesses a block) */                                                                   \
    static wpart_status_t NAME##_distinct(const T *a, const T *b, int64_t *bids, int32_t n,     \
                                          int32_t *nub, double **bsize, int32_t **bhome,      \
                                          const char *what, const char *who)                  \
    {                                                                                         \
        wpart_status_t st = WPART_OK;                                                         \
        int32_t u = 0;                                                                        \
        qsort(bids, (size_t)n, sizeof(int64_t), wpart_tasks_i_cmp_i64);                       \
        for (int32_t i = 0; i < n; i++) {                                                     \
            if (u == 0 || bids[u - 1] != bids[i]) bids[u++] = bids[i];                        \
        }                                                                                     \
        *nub = u;                                                                             \
        *bsize = wpart_i_malloc(u, sizeof(double));                                           \
        *bhome = wpart_i_malloc(u, sizeof(int32_t));                                          \
        if (!*bsize || !*bhome) WPART_FAIL(WPART_ENOMEM, "out of memory for %s blocks", what); \
        for (int32_t k = 0; k < u; k++) {                                                     \
            if (!NAME(a, b, bids[k], &(*bsize)[k], &(*bhome)[k])) {                           \
                WPART_FAIL(WPART_EINVAL, "%s accesses a block with no size or home", who);    \
            }                                                                                 \
        }                                                                                     \
    cleanup:                                                                                  \
        return st;                                                                            \
    }

/* The per-rank fields of a pair's problem (local ranks 0 = a, 1 = b, 2 = every rank off the
 * pair): baseline, memory cap and alpha (NaN: the coefficient's `alpha`), set in `p` only
 * where either rank has one, in the caller's arrays of 3 (the Python twin is
 * wpart/tasks/_rankdata.py, pair_rank_fields). */
static inline void wpart_tasks_i_pair_rank_fields(wpart_tasks_problem_t *p, double base_a,
                                                  double base_b, double cap_a, double cap_b,
                                                  double alpha_a, double alpha_b, double alpha,
                                                  double base3[3], double cap3[3],
                                                  double alpha3[3])
{
    if (base_a != 0.0 || base_b != 0.0) {
        base3[0] = base_a;
        base3[1] = base_b;
        base3[2] = 0.0;
        p->rank_baseline = base3;
    }
    if (isfinite(cap_a) || isfinite(cap_b)) {
        cap3[0] = cap_a;
        cap3[1] = cap_b;
        cap3[2] = INFINITY;
        p->rank_mem_cap = cap3;
    }
    if (!(isnan(alpha_a) && isnan(alpha_b))) {
        alpha3[0] = isnan(alpha_a) ? alpha : alpha_a;
        alpha3[1] = isnan(alpha_b) ? alpha : alpha_b;
        alpha3[2] = alpha;
        p->rank_alpha = alpha3;
    }
}

#endif
