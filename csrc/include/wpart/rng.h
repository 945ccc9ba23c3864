/*
 * wpart/rng.h -- the one pseudo-random generator of the wpart core.
 *
 * Every seeded draw of the core (the gossip targets, turn order and explore choices of CCM-LB in
 * wpart.tasks; the compute, transfer, outlier and on/off noise of wpart.dynamic) comes from this
 * generator: xoshiro256** 1.0 (Blackman and Vigna, "Scrambled linear pseudorandom number
 * generators", ACM TOMS 2021), its 256-bit state filled by SplitMix64 as its authors recommend.
 * There is no global state: a generator is a caller-owned wpart_rng_t, so runs on several
 * threads never share one and a fixed seed gives the same draws on every platform.
 *
 * Streams. A family names each independent stream by its seed and a short path of 64-bit ids
 * (a rank and a trial, a device, a purpose and a block index). The key of the stream starts at
 * the seed and absorbs the ids in order, one SplitMix64 step each:
 *
 *     key_0 = seed,   key_{i+1} = wpart_rng_mix(key_i, id_i) = splitmix64(key_i) ^ id_i,
 *
 * and the state is four SplitMix64 outputs from the final key (wpart_rng_init). Small integer
 * ids are first spread over 64 bits by a per-position odd multiplier (WPART_RNG_MUL_*). The
 * paths are part of each family's reproducibility contract (changing one changes every seeded
 * result of that family):
 *
 *     tasks, CCM-LB   rank b of trial t (a = t + 1; the turn order: b = number of ranks):
 *                     ids (a * WPART_RNG_MUL_1, b * WPART_RNG_MUL_2)
 *     dynamic noise   block j of PU pu for purpose q (a wpart_dynamic_noise_purpose_t):
 *                     ids ((uint32_t)pu * WPART_RNG_MUL_1, (uint32_t)q * WPART_RNG_MUL_3,
 *                          (uint64_t)j, 0)
 *
 * The draws: wpart_rng_next (uniform 64 bits), wpart_rng_uniform (a double in [0, 1) with 53
 * random bits), wpart_rng_below (an integer in [0, n) without modulo bias) and wpart_rng_normal
 * (a standard normal by Box-Muller, two draws per value). Everything but the normal is inline:
 * the noise of wpart.dynamic seeds a fresh stream for every block it draws.
 */
#ifndef WPART_RNG_H
#define WPART_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** State of one xoshiro256** stream: 256 bits, never all zero once seeded. Caller-owned; copy
 * it to fork a stream at its current position (the two copies then draw the same values). */
typedef struct wpart_rng {
    uint64_t s[4];
} wpart_rng_t;

/** Odd multipliers spreading a small id over 64 bits before it is mixed into a stream key
 * (Steele and Vigna, "Computationally easy, spectrally good multipliers", 2021). */
#define WPART_RNG_MUL_1 0xD1B54A32D192ED03ULL
#define WPART_RNG_MUL_2 0x8CB92BA72F3D8DD7ULL
#define WPART_RNG_MUL_3 0xABC98388FB8FAC03ULL

/** One SplitMix64 step (Steele, Lea and Flood, OOPSLA 2014): advances *x by the golden gamma
 * and returns its mixed value. */
static inline uint64_t wpart_rng_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/** The key of the stream one level below `key` named by `id`: splitmix64(key) ^ id. */
static inline uint64_t wpart_rng_mix(uint64_t key, uint64_t id)
{
    return wpart_rng_splitmix64(&key) ^ id;
}

/** Fills g's state with four SplitMix64 outputs starting from `key`. */
static inline void wpart_rng_init(wpart_rng_t *g, uint64_t key)
{
    for (int i = 0; i < 4; i++) {
        g->s[i] = wpart_rng_splitmix64(&key);
    }
}

/** Seeds g from a 64-bit seed: the stream of the empty path (wpart_rng_init(g, seed)). */
static inline void wpart_rng_seed(wpart_rng_t *g, uint64_t seed)
{
    wpart_rng_init(g, seed);
}

/** Seeds g with the stream (seed, ids[0], ..., ids[n_ids - 1]): the key absorbs the ids in
 * order with wpart_rng_mix, then wpart_rng_init. n_ids = 0 is wpart_rng_seed; ids may be NULL
 * then. */
static inline void wpart_rng_stream(wpart_rng_t *g, uint64_t seed, const uint64_t *ids,
                                    int n_ids)
{
    uint64_t key = seed;
    for (int i = 0; i < n_ids; i++) {
        key = wpart_rng_mix(key, ids[i]);
    }
    wpart_rng_init(g, key);
}

static inline uint64_t wpart_rng_rotl_(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/** The next 64 uniform bits of g (xoshiro256**). */
static inline uint64_t wpart_rng_next(wpart_rng_t *g)
{
    uint64_t *s = g->s;
    uint64_t r = wpart_rng_rotl_(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = wpart_rng_rotl_(s[3], 45);
    return r;
}

/** The double in [0, 1) made of the top 53 bits of v (a multiple of 2^-53). */
static inline double wpart_rng_to_unit(uint64_t v) { return (double)(v >> 11) * 0x1.0p-53; }

/** A uniform double in [0, 1): one draw, 53 random bits. */
static inline double wpart_rng_uniform(wpart_rng_t *g)
{
    return wpart_rng_to_unit(wpart_rng_next(g));
}

/** A uniform integer in [0, n) without modulo bias: draws are rejected at or above the
 * largest multiple of n that fits in 64 bits (the expected number of draws is below 2; n = 1
 * still takes one draw). n = 0 returns 0 and draws nothing. */
static inline uint64_t wpart_rng_below(wpart_rng_t *g, uint64_t n)
{
    if (n == 0) {
        return 0;
    }
    uint64_t lim = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do {
        x = wpart_rng_next(g);
    } while (x >= lim);
    return x % n;
}

/** A standard normal by Box-Muller from two draws: u1 = 1 - uniform (in (0, 1]), u2 = uniform,
 * sqrt(-2 ln u1) cos(2 pi u2). The sine half is not kept, so every value costs two draws. */
double wpart_rng_normal(wpart_rng_t *g);

/** The log-normal factor exp(sigma z - sigma^2 / 2) (mean 1), z the first normal draw of stream
 * (seed; ids[0..n_ids)); 1.0 when sigma == 0, drawing nothing. The noise of wpart.dynamic's
 * devices and of wpart.multikernel's simulator. */
double wpart_rng_lognormal_ids(uint64_t seed, const uint64_t *ids, int n_ids, double sigma);

#ifdef __cplusplus
}
#endif

#endif /* WPART_RNG_H */
