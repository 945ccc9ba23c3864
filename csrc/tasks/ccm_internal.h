/* ccm_internal.h -- private pieces shared by the CCM-LB engines (never installed). */
#ifndef WPART_CCM_INTERNAL_H
#define WPART_CCM_INTERNAL_H

#include <stdint.h>

#include "tasks_internal.h"

typedef wpart_tasks_clusters_t clusters_t;
typedef wpart_tasks_comm_ctx_t comm_ctx_t;

/* ------------------------------------------------------------------ RNG ----------------- */
typedef struct {
    uint64_t s[4];
} rng_t;

static inline uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline void rng_seed(rng_t *g, uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t x = seed;
    uint64_t y = splitmix64(&x) ^ (a * 0xD1B54A32D192ED03ULL);
    y = splitmix64(&y) ^ (b * 0x8CB92BA72F3D8DD7ULL);
    for (int i = 0; i < 4; i++) g->s[i] = splitmix64(&y);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(rng_t *g)
{
    uint64_t *s = g->s;
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

/* uniform in [0, n) without modulo bias */
static inline uint64_t rng_below(rng_t *g, uint64_t n)
{
    uint64_t lim = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do {
        x = rng_next(g);
    } while (x >= lim);
    return x % n;
}

typedef struct {
    double dexc;           /* reduction of the two ranks' summed memory excess */
    double gain;           /* reduction of max(W) without the memory term */
    int32_t cr, cp, moved; /* cluster indices (-1 = empty) */
    int single;            /* 0: cr / cp index clusters; 1: sub-cluster units; 2: per-pair
                              parts */
    int found;
    rng_t *rng;            /* explore: uniform choice among the improving exchanges */
    uint64_t seen;         /* improving exchanges met so far (explore) */
} best_t;

/* Peer information as of the start of the iteration (what the inform stage carried). */
typedef struct {
    const wpart_tasks_rank_t *rank; /* I aggregates */
    const int32_t *refcnt;          /* I x N block counts */
    const double *work;             /* I works */
    const int32_t *assign;          /* K: where every task was */
} snapshot_t;

/* Scratch of the per-pair target units (WPART_TASKS_SPLIT_FILL). */
typedef struct {
    clusters_t U;
    double *target; /* K + 1: per cluster of the giving rank */
    int32_t *tmp;   /* 2K */
    int8_t *in;     /* K */
} fill_t;

/* FindBestCCM on the current state (snap == NULL) or with the peer's gossiped snapshot: best
 * exchange between r and p, gain > tol * before (ccm_eval.c). */
wpart_status_t wpart_i_ccm_find_best(wpart_tasks_state_t *s, int32_t r, int32_t p,
                                     const clusters_t *Cr, const clusters_t *Cp,
                                     const clusters_t *Tr, const clusters_t *Tp, double tol,
                                     int one_way, int split_always, fill_t *X, rng_t *explore,
                                     const snapshot_t *snap, best_t *best);

#endif /* WPART_CCM_INTERNAL_H */
