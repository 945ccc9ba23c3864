/*
 * model_round.c -- the optimal discrete rounding of a continuous block-size split (the rounding
 * step of Sec. 3.2 of [Sant'Ana 2017], made optimal): floor to multiples of the quantum, then
 * hand out the remaining quanta one at a time to the PU that finishes it first, on a heap:
 * O(n log n) for n PUs (the quanta left after the floor and the water-level steps are O(n):
 * x_cont far below S is raised, far above S lowered, to a water level first). Sums never
 * overflow (blocks clamped to S, sums saturating).
 * Polls the control hooks every few thousand evaluations.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include <stdlib.h>

#include "internal.h"
#include "model_solve_internal.h"
#include "wpart/dynamic_model.h"

static double eval_checked(wpart_dynamic_time_fn E, void *ctx, int64_t p, double x, cerr_t *ce)
{
    double e = E(ctx, p, x);
    cbad(ce, p, x, e);
    return e;
}

/* The PU whose time is smallest after `add` more elements, among those with room for them
 * under ub (NULL: none); ties to the lowest PU; -1 if none has room. */
static int64_t cheapest_with_room(int64_t n, wpart_dynamic_time_fn E, void *ctx,
                                  const int64_t *blocks, const int64_t *ub, int64_t add,
                                  cerr_t *ce)
{
    int64_t best = -1;
    double be = INFINITY;
    for (int64_t p = 0; p < n; p++) {
        if (blocks[p] <= (ub ? ub[p] : INT64_MAX) - add) {
            double e = eval_checked(E, ctx, p, (double)(blocks[p] + add), ce);
            if (e < be) {
                be = e;
                best = p;
            }
        }
    }
    return best;
}

/* A binary min-heap of (time, PU) for the greedy augmentation, ordered as the linear scan it
 * replaces picks: the smallest time, ties to the lowest PU. */
static inline int heap_less(const double *he, const int64_t *hp, int64_t i, int64_t j)
{
    return he[i] < he[j] || (he[i] == he[j] && hp[i] < hp[j]);
}

static void heap_swap(double *he, int64_t *hp, int64_t i, int64_t j)
{
    double te = he[i];
    int64_t tp = hp[i];
    he[i] = he[j];
    hp[i] = hp[j];
    he[j] = te;
    hp[j] = tp;
}

static void heap_down(double *he, int64_t *hp, int64_t k, int64_t i)
{
    for (;;) {
        int64_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < k && heap_less(he, hp, l, m)) {
            m = l;
        }
        if (r < k && heap_less(he, hp, r, m)) {
            m = r;
        }
        if (m == i) {
            return;
        }
        heap_swap(he, hp, i, m);
        i = m;
    }
}

/* After the top PU took a step: with keep, its new key v replaces the top; else the top leaves
 * the heap (of *k entries) for the last one. Then the top sifts down. */
static void heap_top(double *he, int64_t *hp, int64_t *k, int keep, double v)
{
    if (keep) {
        he[0] = v;
    } else {
        (*k)--;
        he[0] = he[*k];
        hp[0] = hp[*k];
    }
    heap_down(he, hp, *k, 0);
}

#define ROUND_HEAP_MAX 256 /* PUs whose heap lives on the stack (beyond: allocated) */
#define ROUND_POLL 4096    /* evaluations of E between two polls of the control hooks */

/* Counts work and polls ctl every ROUND_POLL units. */
static wpart_status_t rpoll(const wpart_control_t *ctl, double t0, int64_t *tick, int64_t work)
{
    *tick += work;
    if (!ctl || *tick < ROUND_POLL) {
        return WPART_OK;
    }
    *tick = 0;
    return wpart_i_poll(ctl, t0, 0.0, 0.0);
}

/* Builds the heap of (he, hp)[0..k) in place. */
static void heap_build(double *he, int64_t *hp, int64_t k)
{
    for (int64_t i = k / 2 - 1; i >= 0; i--) {
        heap_down(he, hp, k, i);
    }
}

/* q floor(x / q) for x >= 0, at most the largest multiple of q <= cap (no int64 overflow for
 * any x, 1e308 included). */
static int64_t qfloor(double x, int64_t q, int64_t cap)
{
    int64_t top = q * (cap / q);
    if (!(x < (double)top)) {
        return top;
    }
    int64_t v = q * (int64_t)floor(x / (double)q);
    return v < top ? v : top;
}

/* The block of PU p once the removal below (quanta taken back from the slowest PU) has brought
 * every time to <= T, from b down to L: b if E_p(b) <= T, else the largest multiple of q in
 * [L, b) with E_p <= T, else L. Exact for a nondecreasing E_p: the inverse is only the first
 * guess of an exponential-then-binary search over the multiples of q. */
static int64_t level_block(wpart_dynamic_time_fn E, void *ctx, int64_t p, double T, int64_t b,
                           int64_t L, int64_t q, cerr_t *ce)
{
    if (T < 0.0) {
        return L;
    }
    if (b <= L || eval_checked(E, ctx, p, (double)b, ce) <= T || ce->code) {
        return b;
    }
    int64_t klo = L / q + (L % q != 0), khi = (b - 1) / q;
    if (klo > khi) {
        return L;
    }
    double x = wpart_i_dyn_inv_cold(E, ctx, p, T, (double)L, (double)b, 1e-12, 200, ce);
    int64_t k0 = x >= (double)b ? khi : (int64_t)(x / (double)q), ok, bad;
    k0 = k0 < klo ? klo : (k0 > khi ? khi : k0);
    if (eval_checked(E, ctx, p, (double)(q * k0), ce) <= T) {
        ok = k0;
        bad = khi + 1;
        for (int64_t step = 1; step <= khi - k0 && !ce->code; step *= 2) {
            if (eval_checked(E, ctx, p, (double)(q * (k0 + step)), ce) > T) {
                bad = k0 + step;
                break;
            }
            ok = k0 + step;
        }
    } else {
        bad = k0;
        ok = klo - 1;
        for (int64_t step = 1; step <= k0 - klo && !ce->code; step *= 2) {
            if (eval_checked(E, ctx, p, (double)(q * (k0 - step)), ce) <= T) {
                ok = k0 - step;
                break;
            }
            bad = k0 - step;
        }
        if (ok < klo && !ce->code && eval_checked(E, ctx, p, (double)(q * klo), ce) <= T) {
            ok = klo;
        }
        if (ok < klo) {
            return L;
        }
    }
    while (bad - ok > 1 && !ce->code) { /* E(q ok) <= T < E(q bad) */
        int64_t mid = ok + (bad - ok) / 2;
        if (eval_checked(E, ctx, p, (double)(q * mid), ce) <= T) {
            ok = mid;
        } else {
            bad = mid;
        }
    }
    return q * ok;
}

static double bits_double(int64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static int64_t double_bits(double d)
{
    int64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* The sum of the level blocks at T, at most S + 1 + 4 n q: *big set when it is above. */
static wpart_status_t level_sum(int64_t n, wpart_dynamic_time_fn E, void *ctx, double T,
                                int64_t S, int64_t q, const int64_t *blocks, const int64_t *lb,
                                double lscale, const wpart_control_t *control, double t0,
                                int64_t *tick, cerr_t *ce, int64_t *tot_out, int *big)
{
    wpart_status_t st = WPART_OK;
    int64_t tot = 0, room = INT64_MAX - S;
    int64_t cap = S + ((room / 4) / q < n ? room : 4 * n * q);
    *big = 0;
    for (int64_t p = 0; p < n && !ce->code; p++) {
        int64_t L = lscale < 1.0 ? q * (int64_t)floor((double)lb[p] * lscale / (double)q)
                                 : (lb ? lb[p] : 0);
        int64_t v = level_block(E, ctx, p, T, blocks[p], L, q, ce);
        if (v > cap - tot) {
            *big = 1;
            break;
        }
        tot += v;
        WPART_CHECK(rpoll(control, t0, tick, 16));
    }
cleanup:
    *tot_out = tot;
    return st;
}

/* x_cont far above S (more than 4 quanta per PU too many, or a sum beyond int64): lower every PU
 * at once to its block at the level T at which the removal one quantum at a time (below)
 * would still have between 1 and 4 n quanta to take back: a bisection over T (over the bits of
 * the double, at most 64 + 1 steps of n searches) keeps the result of that removal bit for bit.
 * Where no T leaves so few (times tied over many quanta), lower to the highest level whose
 * blocks sum to <= S, and the raise and greedy steps below hand the rest out. */
static wpart_status_t lower_to_level(int64_t n, wpart_dynamic_time_fn E, void *ctx, int64_t S,
                                     int64_t q, int64_t *blocks, const int64_t *lb,
                                     double lscale, const wpart_control_t *control, double t0,
                                     int64_t *tick, int64_t *sum_io, cerr_t *ce)
{
    wpart_status_t st = WPART_OK;
    double T_lo = -1.0, T_hi = 0.0, T_set = -1.0;
    for (int64_t p = 0; p < n && !ce->code; p++) {
        T_hi = fmax(T_hi, eval_checked(E, ctx, p, (double)blocks[p], ce));
        WPART_CHECK(rpoll(control, t0, tick, 1));
    }
    for (int it = 0; it < 70 && !ce->code; it++) {
        double Tm = T_lo < 0.0 ? 0.0
                               : bits_double(double_bits(T_lo) +
                                             (double_bits(T_hi) - double_bits(T_lo)) / 2);
        if (T_lo >= 0.0 && !(Tm > T_lo && Tm < T_hi)) {
            break;
        }
        int big;
        int64_t tot;
        WPART_CHECK(level_sum(n, E, ctx, Tm, S, q, blocks, lb, lscale, control, t0, tick, ce,
                              &tot, &big));
        if (!big && tot <= S) {
            T_lo = Tm;
        } else if (!big) {
            T_set = Tm; /* S < sum <= S + 4 n q */
            break;
        } else {
            T_hi = Tm;
        }
    }
    if (T_set < 0.0) {
        T_set = T_lo;
    }
    int64_t sum = 0;
    for (int64_t p = 0; p < n && !ce->code; p++) {
        int64_t L = lscale < 1.0 ? q * (int64_t)floor((double)lb[p] * lscale / (double)q)
                                 : (lb ? lb[p] : 0);
        blocks[p] = level_block(E, ctx, p, T_set, blocks[p], L, q, ce);
        sum += blocks[p]; /* <= S + 4 n q: checked by level_sum at T_set */
        WPART_CHECK(rpoll(control, t0, tick, 16));
    }
    *sum_io = sum;
cleanup:
    return st;
}

wpart_status_t wpart_dynamic_round_blocks(int64_t n, wpart_dynamic_time_fn E, void *ctx,
                                          const double *x_cont, int64_t S, int64_t quantum,
                                          const int64_t *lb, const int64_t *ub,
                                          int64_t *blocks_out, double *Tmax_out)
{
    return wpart_dynamic_round_blocks_ctl(n, E, ctx, x_cont, S, quantum, lb, ub, blocks_out,
                                          Tmax_out, NULL);
}

wpart_status_t wpart_dynamic_round_blocks_ctl(int64_t n, wpart_dynamic_time_fn E, void *ctx,
                                              const double *x_cont, int64_t S, int64_t quantum,
                                              const int64_t *lb, const int64_t *ub,
                                              int64_t *blocks_out, double *Tmax_out,
                                              const wpart_control_t *control)
{
    wpart_status_t st = WPART_OK;
    double he_s[ROUND_HEAP_MAX], *he = he_s;
    int64_t hp_s[ROUND_HEAP_MAX], *hp = hp_s, tick = 0;
    double t0 = control ? wpart_i_now() : 0.0;
    if (n < 1 || !E || !x_cont || !blocks_out) {
        WPART_FAIL(WPART_EINVAL, "need n >= 1 and non-NULL E, x_cont and blocks_out");
    }
    if (S < 1 || quantum < 1) {
        WPART_FAIL(WPART_EINVAL, "S and quantum must be >= 1 (got %" PRId64 ", %" PRId64 ")", S,
                   quantum);
    }
    int64_t slb = 0, sub = 0;
    for (int64_t p = 0; p < n; p++) {
        int64_t l = lb ? lb[p] : 0, u = ub ? ub[p] : INT64_MAX;
        if (l < 0 || u < l) {
            WPART_FAIL(WPART_EINVAL, "need 0 <= lb[%" PRId64 "] <= ub[%" PRId64 "] (got %" PRId64
                       ", %" PRId64 ")", p, p, l, u);
        }
        if (!isfinite(x_cont[p]) || x_cont[p] < 0.0) {
            WPART_FAIL(WPART_EINVAL, "x_cont[%" PRId64 "] must be finite and >= 0 (got %g)", p,
                       x_cont[p]);
        }
        if (l > INT64_MAX - slb) {
            WPART_FAIL(WPART_EOVERFLOW, "the lower bounds overflow int64");
        }
        slb += l;
        sub = (u > INT64_MAX - sub) ? INT64_MAX : sub + u;
    }
    if (sub < S) {
        WPART_FAIL(WPART_EINVAL, "the upper bounds sum to %" PRId64 " < S = %" PRId64, sub, S);
    }
    /* lower bounds that do not fit are scaled down to multiples of q */
    double lscale = slb > S ? (double)S / (double)slb : 1.0;
#define LB(p) (lscale < 1.0 ? quantum * (int64_t)floor((double)(lb[p]) * lscale / (double)quantum) \
                            : (lb ? lb[p] : 0))
#define UB(p) (ub ? ub[p] : INT64_MAX)
    cerr_t ce = {0};
    /* the floors, each clamped to S (no block of a sum S exceeds S), summed saturating at
     * INT64_MAX (n blocks of up to S each may not fit int64; a saturated sum is > S anyway) */
    int64_t sum = 0;
    int over = 0; /* the sum saturated */
    for (int64_t p = 0; p < n; p++) {
        int64_t b = S;
        if (x_cont[p] < 9.2e18) {
            int64_t f = quantum * (int64_t)floor(x_cont[p] / (double)quantum);
            b = f < S ? f : S;
        }
        if (b < LB(p)) {
            b = LB(p);
        }
        if (b > UB(p)) {
            b = UB(p);
        }
        blocks_out[p] = b;
        over |= b > INT64_MAX - sum;
        sum = over ? INT64_MAX : sum + b;
    }
    if (n > ROUND_HEAP_MAX) {
        he = wpart_i_malloc(n, sizeof *he);
        hp = wpart_i_malloc(n, sizeof *hp);
        if (!he || !hp) {
            WPART_FAIL(WPART_ENOMEM, "rounding heap (%" PRId64 " PUs)", n);
        }
    }
    /* too much (x_cont above S): take quanta back from the slowest PU (the largest E_p(b_p),
     * ties to the lowest PU: a min-heap on -E) */
    if (over || (sum > S && (sum - S) / quantum > 4 * n)) {
        WPART_CHECK(lower_to_level(n, E, ctx, S, quantum, blocks_out, lb, lscale, control, t0,
                                   &tick, &sum, &ce));
    }
    if (sum > S && !ce.code) {
        int64_t k = 0;
        for (int64_t p = 0; p < n; p++) {
            if (blocks_out[p] > LB(p)) {
                he[k] = -eval_checked(E, ctx, p, (double)blocks_out[p], &ce);
                hp[k++] = p;
            }
        }
        heap_build(he, hp, k);
        while (sum > S && k > 0 && !ce.code) {
            int64_t best = hp[0];
            int64_t take = blocks_out[best] - LB(best);
            int64_t r = blocks_out[best] % quantum;
            int64_t step = r > 0 ? r : quantum;
            if (step > take) {
                step = take;
            }
            if (step > sum - S) {
                step = sum - S;
            }
            blocks_out[best] -= step;
            sum -= step;
            int keep = blocks_out[best] > LB(best);
            heap_top(he, hp, &k, keep,
                     keep ? -eval_checked(E, ctx, best, (double)blocks_out[best], &ce) : 0.0);
            WPART_CHECK(rpoll(control, t0, &tick, 1));
        }
    }
    /* x_cont far below S (more than 4 quanta per PU missing): first raise every PU to its
     * largest multiple of q that fits the water level T of a discrete bisection with
     * sum <= S, so that the greedy below hands out O(n) quanta; E_p(b_p) <= T <= the discrete
     * optimum keeps the greedy optimal */
    if ((S - sum) / quantum > 4 * n && !ce.code) {
        double T_lo = 0.0, T_hi = 0.0;
        for (int64_t p = 0; p < n; p++) {
            int64_t room = UB(p) - blocks_out[p];
            int64_t top = blocks_out[p] + (room < S - sum ? room : S - sum);
            T_hi = fmax(T_hi, eval_checked(E, ctx, p, (double)top, &ce));
        }
        /* to 1e-12 relative, then on to adjacent doubles while S is beyond 2^40 (the greedy
         * hands out what the level leaves: at most about n + 1e-12 S / q quanta) */
        for (int it = 0; it < 100 && !ce.code &&
                         (T_hi - T_lo > 1e-12 * T_hi || (S > ((int64_t)1 << 40) && it < 80));
             it++) {
            double Tm = bits_double(double_bits(T_lo) + (double_bits(T_hi) - double_bits(T_lo)) / 2),
                   tot = 0.0;
            if (S > ((int64_t)1 << 40) && T_hi - T_lo <= 1e-12 * T_hi) {
                if (!(Tm > T_lo && Tm < T_hi)) {
                    break;
                }
            } else {
                Tm = 0.5 * (T_lo + T_hi);
            }
            for (int64_t p = 0; p < n && tot <= (double)S; p++) {
                double hi = (double)(UB(p) < S ? UB(p) : S);
                double xp = wpart_i_dyn_inv_cold(E, ctx, p, Tm, (double)blocks_out[p], hi, 1e-12,
                                                 200, &ce);
                tot += fmax((double)blocks_out[p], (double)quantum * floor(xp / (double)quantum));
                WPART_CHECK(rpoll(control, t0, &tick, 64));
            }
            if (tot <= (double)S) {
                T_lo = Tm;
            } else {
                T_hi = Tm;
            }
        }
        if (T_lo > 0.0) {
            for (int64_t p = 0; p < n && !ce.code; p++) {
                double hi = (double)(UB(p) < S ? UB(p) : S);
                double xp = wpart_i_dyn_inv_cold(E, ctx, p, T_lo, (double)blocks_out[p], hi,
                                                 1e-12, 200, &ce);
                int64_t v = qfloor(xp, quantum, UB(p) < S ? UB(p) : S);
                if (v > blocks_out[p] && v - blocks_out[p] > S - sum) {
                    v = blocks_out[p] + quantum * ((S - sum) / quantum); /* (sums in double) */
                }
                if (v > blocks_out[p]) {
                    sum += v - blocks_out[p];
                    blocks_out[p] = v;
                }
                WPART_CHECK(rpoll(control, t0, &tick, 64));
            }
        }
    }
    /* greedy augmentation: one quantum at a time to the PU that finishes it first, on a heap
     * (one evaluation per quantum) */
    int64_t r = S - sum;
    if (r >= quantum && !ce.code) {
        int64_t k = 0;
        for (int64_t p = 0; p < n; p++) {
            if (blocks_out[p] <= UB(p) - quantum) {
                he[k] = eval_checked(E, ctx, p, (double)(blocks_out[p] + quantum), &ce);
                hp[k++] = p;
            }
        }
        heap_build(he, hp, k);
        while (r >= quantum && k > 0 && !ce.code) {
            int64_t best = hp[0];
            blocks_out[best] += quantum;
            r -= quantum;
            int keep = r >= quantum && blocks_out[best] <= UB(best) - quantum;
            heap_top(he, hp, &k, keep,
                     keep ? eval_checked(E, ctx, best, (double)(blocks_out[best] + quantum), &ce)
                          : 0.0);
            WPART_CHECK(rpoll(control, t0, &tick, 1));
        }
    }
    while (r >= quantum && !ce.code) { /* (the heap ran out: no PU has room for a quantum) */
        int64_t best = cheapest_with_room(n, E, ctx, blocks_out, ub, quantum, &ce);
        if (best < 0) {
            break;
        }
        blocks_out[best] += quantum;
        r -= quantum;
    }
    if (r > 0 && r < quantum && !ce.code) {
        int64_t best = cheapest_with_room(n, E, ctx, blocks_out, ub, r, &ce);
        if (best >= 0) {
            blocks_out[best] += r;
            r = 0;
        }
    }
    /* what does not fit in quanta under ub: pieces to the PUs with room, cheapest first */
    while (r > 0 && !ce.code) {
        int64_t best = -1, piece = 0;
        double be = INFINITY;
        for (int64_t p = 0; p < n; p++) {
            int64_t room = UB(p) - blocks_out[p];
            if (room > 0) {
                int64_t pc = room < r ? room : r;
                double e = eval_checked(E, ctx, p, (double)(blocks_out[p] + pc), &ce);
                if (e < be) {
                    be = e;
                    best = p;
                    piece = pc;
                }
            }
        }
        if (best < 0) {
            WPART_FAIL(WPART_EINTERNAL, "no room left for %" PRId64 " elements", r);
        }
        blocks_out[best] += piece;
        r -= piece;
        WPART_CHECK(rpoll(control, t0, &tick, n));
    }
#undef LB
#undef UB
    if (ce.code) {
        st = wpart_i_dyn_cerr_fail(&ce);
        goto cleanup;
    }
    if (Tmax_out) {
        double Tm = 0.0;
        for (int64_t p = 0; p < n; p++) {
            if (blocks_out[p] > 0) { /* no block, no cost */
                Tm = fmax(Tm, eval_checked(E, ctx, p, (double)blocks_out[p], &ce));
            }
        }
        if (ce.code) {
            st = wpart_i_dyn_cerr_fail(&ce);
            goto cleanup;
        }
        *Tmax_out = Tm;
    }
cleanup:
    if (he != he_s) {
        free(he);
    }
    if (hp != hp_s) {
        free(hp);
    }
    return st;
}
