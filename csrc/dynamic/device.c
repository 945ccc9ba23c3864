/*
 * device.c -- the device layer of wpart.dynamic (spec 001 §5.3, §5.9): true compute curves,
 * transfer paths, counter-based noise (one stream of the core's generator, wpart/rng.h, per key),
 * slowdown schedules and their integration. Stateless; shared by the event engine (sim.c) and
 * by run-based drivers (spec 002 §4.2).
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "wpart/dynamic_sim.h"
#include "wpart/rng.h"

/* ------------------------------------------------------------------ curves ----------- */

static double basis_eval(const wpart_dynamic_curve_t *c, double x)
{
    double u = x / c->x_ref;
    double t = c->bc0;
    const double *a = c->bcoef;
    if (a[0] != 0) {
        t += a[0] * u;
    }
    if (a[1] != 0) {
        t += a[1] * u * u;
    }
    if (a[2] != 0) {
        t += a[2] * u * u * u;
    }
    if (a[3] != 0) {
        t += a[3] * exp(u);
    }
    if (a[4] != 0) {
        t += a[4] * log(u);
    }
    if (a[5] != 0) {
        t += a[5] * u * exp(u);
    }
    if (a[6] != 0) {
        t += a[6] * (u > 0 ? u * log(u) : 0.0);
    }
    return t > 0 ? t : 0.0;
}

static double table_eval(const wpart_dynamic_curve_t *c, double x)
{
    const double *X = c->tab_x, *T = c->tab_t;
    int64_t n = c->tab_n;
    if (n == 1) {
        return X[0] > 0 ? T[0] * x / X[0] : T[0];
    }
    /* segment: the first k with x <= X[k+1] (end segments extrapolate) */
    int64_t lo = 0, hi = n - 1;
    if (x <= X[0]) {
        hi = 1;
    } else if (x >= X[n - 1]) {
        lo = n - 2;
    } else {
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            if (X[mid] <= x) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
    }
    double x0 = X[lo], x1 = X[lo + 1];
    double t = T[lo] + (T[lo + 1] - T[lo]) * (x - x0) / (x1 - x0);
    return t > 0 ? t : 0.0;
}

static double raw_eval(const wpart_dynamic_curve_t *c, double x)
{
    switch (c->kind) {
    case WPART_DYN_CURVE_AFFINE:
        return c->t0 + x / c->rate;
    case WPART_DYN_CURVE_SATURATING: {
        double e = -expm1(-x / c->bsat); /* 1 - exp(-x/bsat), accurate for small x */
        return c->t0 + (e > 0 ? x / (c->rate * e) : c->bsat / c->rate);
    }
    case WPART_DYN_CURVE_POWER:
        return c->t0 + c->c * pow(x, c->beta);
    case WPART_DYN_CURVE_BASIS:
        return basis_eval(c, x);
    case WPART_DYN_CURVE_TABLE:
        return table_eval(c, x);
    default:
        return NAN;
    }
}

double wpart_dynamic_curve_eval(const wpart_dynamic_curve_t *c, double x)
{
    if (!c || !(x >= 0)) {
        return NAN;
    }
    if (x == 0) {
        return 0.0;
    }
    double t = raw_eval(c, x);
    if (c->mem_cap > 0 && c->mem_gamma != 0 && x > c->mem_cap) {
        double tc = raw_eval(c, c->mem_cap);
        t = tc + (1.0 + c->mem_gamma) * (t - tc);
    }
    return t;
}

#define FIN(v) isfinite(v)

wpart_status_t wpart_dynamic_curve_check(const wpart_dynamic_curve_t *c)
{
    wpart_status_t st = WPART_OK;
    if (!c) {
        WPART_FAIL(WPART_EINVAL, "curve is NULL");
    }
    if (!(c->mem_cap >= 0 && FIN(c->mem_cap)) || !(c->mem_gamma >= 0 && FIN(c->mem_gamma))) {
        WPART_FAIL(WPART_EINVAL, "mem_cap and mem_gamma must be finite and >= 0");
    }
    switch (c->kind) {
    case WPART_DYN_CURVE_AFFINE:
    case WPART_DYN_CURVE_SATURATING:
        if (!(c->t0 >= 0 && FIN(c->t0))) {
            WPART_FAIL(WPART_EINVAL, "t0 must be finite and >= 0, got %g", c->t0);
        }
        if (!(c->rate > 0 && FIN(c->rate))) {
            WPART_FAIL(WPART_EINVAL, "rate must be finite and > 0, got %g", c->rate);
        }
        if (c->kind == WPART_DYN_CURVE_SATURATING && !(c->bsat > 0 && FIN(c->bsat))) {
            WPART_FAIL(WPART_EINVAL, "bsat must be finite and > 0, got %g", c->bsat);
        }
        return WPART_OK;
    case WPART_DYN_CURVE_POWER:
        if (!(c->t0 >= 0 && FIN(c->t0)) || !(c->c >= 0 && FIN(c->c)) ||
            !(c->beta > 0 && FIN(c->beta))) {
            WPART_FAIL(WPART_EINVAL,
                       "power curve needs t0 >= 0, c >= 0 and beta > 0 (finite)");
        }
        return WPART_OK;
    case WPART_DYN_CURVE_BASIS:
        if (!(c->x_ref > 0 && FIN(c->x_ref)) || !FIN(c->bc0)) {
            WPART_FAIL(WPART_EINVAL, "basis curve needs x_ref > 0 and a finite c0");
        }
        for (int i = 0; i < WPART_DYN_N_BASIS; i++) {
            if (!FIN(c->bcoef[i])) {
                WPART_FAIL(WPART_EINVAL, "basis coefficient %d is not finite", i);
            }
        }
        return WPART_OK;
    case WPART_DYN_CURVE_TABLE:
        if (c->tab_n < 1 || !c->tab_x || !c->tab_t) {
            WPART_FAIL(WPART_EINVAL, "table curve needs >= 1 point");
        }
        for (int64_t i = 0; i < c->tab_n; i++) {
            if (!(c->tab_x[i] >= 0 && FIN(c->tab_x[i])) ||
                !(c->tab_t[i] >= 0 && FIN(c->tab_t[i]))) {
                WPART_FAIL(WPART_EINVAL,
                           "table point %" PRId64 " must be finite and >= 0", i);
            }
            if (i > 0 && !(c->tab_x[i] > c->tab_x[i - 1])) {
                WPART_FAIL(WPART_EINVAL, "table x must increase strictly (at %" PRId64
                                                   ")", i);
            }
        }
        if (c->tab_n == 1 && !(c->tab_x[0] > 0)) {
            WPART_FAIL(WPART_EINVAL, "a one-point table needs x > 0");
        }
        return WPART_OK;
    default:
        WPART_FAIL(WPART_EINVAL, "unknown curve kind %d", (int)c->kind);
    }
cleanup:
    return st;
}

/* ------------------------------------------------------------------ devices ---------- */

void wpart_dynamic_device_init(wpart_dynamic_device_t *d)
{
    memset(d, 0, sizeof *d);
    d->kind = WPART_DYN_PU_CPU;
    d->comp.kind = WPART_DYN_CURVE_AFFINE;
    d->comp.rate = 1.0;
    d->f_out = 1.0;
}

wpart_status_t wpart_dynamic_device_check(const wpart_dynamic_device_t *d)
{
    wpart_status_t st = WPART_OK;
    if (!d) {
        WPART_FAIL(WPART_EINVAL, "device is NULL");
    }
    if (d->kind < 0 || d->kind > 2) {
        WPART_FAIL(WPART_EINVAL, "device kind must be 0 (CPU), 1 (GPU) or 2 (PHI)");
    }
    WPART_CHECK(wpart_dynamic_curve_check(&d->comp));
    if (d->n_hops < 0 || d->n_hops > WPART_DYN_MAX_HOPS) {
        WPART_FAIL(WPART_EINVAL, "n_hops must be in [0, %d], got %d",
                   WPART_DYN_MAX_HOPS, (int)d->n_hops);
    }
    for (int32_t h = 0; h < d->n_hops; h++) {
        if (!(d->hops[h].lat >= 0 && FIN(d->hops[h].lat)) || !(d->hops[h].bw > 0)) {
            WPART_FAIL(WPART_EINVAL, "hop %d needs lat >= 0 (finite) and bw > 0",
                       (int)h);
        }
    }
    if (!(d->bytes_per_elem >= 0 && FIN(d->bytes_per_elem)) ||
        !(d->setup_bytes >= 0 && FIN(d->setup_bytes))) {
        WPART_FAIL(WPART_EINVAL, "bytes_per_elem and setup_bytes must be >= 0");
    }
    if (!(d->sigma_comp >= 0 && d->sigma_comp <= 5) ||
        !(d->sigma_xfer >= 0 && d->sigma_xfer <= 5)) {
        WPART_FAIL(WPART_EINVAL, "sigma and sigma_xfer must be in [0, 5]");
    }
    if (!(d->p_out >= 0 && d->p_out <= 1) || !(d->f_out > 0 && FIN(d->f_out))) {
        WPART_FAIL(WPART_EINVAL, "p_out must be in [0, 1] and f_out finite and > 0");
    }
cleanup:
    return st;
}

double wpart_dynamic_device_xfer(const wpart_dynamic_device_t *d, double x, int first)
{
    if (d->n_hops == 0) {
        return 0.0;
    }
    double bytes = d->bytes_per_elem * x + (first ? d->setup_bytes : 0.0);
    double t = 0.0;
    for (int32_t h = 0; h < d->n_hops; h++) {
        t += d->hops[h].lat + bytes / d->hops[h].bw;
    }
    return t;
}

/* ------------------------------------------------------------------ noise ------------ */

/* Stream (seed, pu, purpose, j) of the core's generator (wpart/rng.h, which documents this
 * path): the ids are absorbed into the key with SplitMix64 steps, then SplitMix64 fills the
 * xoshiro256** state. */
static void part1_ids(uint64_t ids[4], int32_t pu, int32_t purpose, int64_t j)
{
    ids[0] = (uint64_t)(uint32_t)pu * WPART_RNG_MUL_1;
    ids[1] = (uint64_t)(uint32_t)purpose * WPART_RNG_MUL_3;
    ids[2] = (uint64_t)j;
    ids[3] = 0;
}

static void stream_init(wpart_rng_t *g, uint64_t seed, int32_t pu, int32_t purpose, int64_t j)
{
    uint64_t ids[4];
    part1_ids(ids, pu, purpose, j);
    wpart_rng_stream(g, seed, ids, 4);
}

double wpart_dynamic_noise_uniform(uint64_t seed, int32_t pu, int32_t purpose, int64_t j, int k)
{
    wpart_rng_t g;
    stream_init(&g, seed, pu, purpose, j);
    uint64_t v = wpart_rng_next(&g);
    if (k > 0) {
        v = wpart_rng_next(&g);
    }
    return wpart_rng_to_unit(v);
}

double wpart_dynamic_noise_lognormal(uint64_t seed, int32_t pu, int32_t purpose, int64_t j,
                                     double sigma)
{
    uint64_t ids[4];
    part1_ids(ids, pu, purpose, j);
    return wpart_rng_lognormal_ids(seed, ids, 4, sigma);
}

void wpart_dynamic_noise_vec(uint64_t seed, int32_t pu, int32_t purpose, const int64_t *j,
                             int64_t k, double sigma, double *out)
{
    for (int64_t i = 0; i < k; i++) {
        out[i] = sigma < 0 ? wpart_dynamic_noise_uniform(seed, pu, purpose, j[i], 0)
                           : wpart_dynamic_noise_lognormal(seed, pu, purpose, j[i], sigma);
    }
}

void wpart_dynamic_device_time_vec(const wpart_dynamic_device_t *d, int part, int first,
                                   const double *x, int64_t k, double *out)
{
    for (int64_t i = 0; i < k; i++) {
        double v = x[i], t = 0.0;
        if (!(v >= 0)) {
            t = NAN;
        } else {
            if (part != 2) {
                t += wpart_dynamic_curve_eval(&d->comp, v);
            }
            if (part != 1 && v > 0) {
                t += wpart_dynamic_device_xfer(d, v, first);
            }
        }
        out[i] = t;
    }
}

/* ------------------------------------------------------------------ load ------------- */

double wpart_dynamic_slowdown(const wpart_dynamic_fluct_t *f, int64_t n_fluct, int32_t pu,
                              double t)
{
    double s = 1.0;
    for (int64_t i = 0; i < n_fluct; i++) {
        if (f[i].pu == pu && f[i].t_start <= t && t < f[i].t_end) {
            s *= f[i].factor;
        }
    }
    return s;
}

/* The first schedule breakpoint of PU pu strictly after t (+inf if none). */
static double next_break(const wpart_dynamic_fluct_t *f, int64_t n_fluct, int32_t pu, double t)
{
    double nb = INFINITY;
    for (int64_t i = 0; i < n_fluct; i++) {
        if (f[i].pu != pu) {
            continue;
        }
        if (f[i].t_start > t && f[i].t_start < nb) {
            nb = f[i].t_start;
        }
        if (f[i].t_end > t && f[i].t_end < nb) {
            nb = f[i].t_end;
        }
    }
    return nb;
}

double wpart_dynamic_integrate(const wpart_dynamic_fluct_t *f, int64_t n_fluct, int32_t pu,
                               double t, double D)
{
    double rem = D;
    for (;;) {
        double s = wpart_dynamic_slowdown(f, n_fluct, pu, t);
        double nb = next_break(f, n_fluct, pu, t);
        double end = t + rem * s;
        if (end <= nb) {
            return end;
        }
        rem -= (nb - t) / s;
        t = nb;
        if (rem <= 0) {
            return t;
        }
    }
}

wpart_status_t wpart_dynamic_device_block(const wpart_dynamic_device_t *dev, int32_t pu,
                                          uint64_t seed, int64_t j, int64_t x, double t,
                                          const wpart_dynamic_fluct_t *f, int64_t n_fluct,
                                          double *t_xfer, double *t_comp)
{
    wpart_status_t st = WPART_OK;
    WPART_CHECK(wpart_dynamic_device_check(dev));
    if (x < 0 || j < 0 || !isfinite(t) || !t_xfer || !t_comp || (n_fluct > 0 && !f)) {
        WPART_FAIL(WPART_EINVAL, "device_block needs x >= 0, j >= 0, finite t");
    }
    double tx = wpart_dynamic_device_xfer(dev, (double)x, j == 0);
    if (tx > 0) {
        tx *= wpart_dynamic_noise_lognormal(seed, pu, WPART_DYN_NOISE_XFER, j, dev->sigma_xfer);
    }
    double D = wpart_dynamic_curve_eval(&dev->comp, (double)x);
    D *= wpart_dynamic_noise_lognormal(seed, pu, WPART_DYN_NOISE_COMP, j, dev->sigma_comp);
    if (dev->p_out > 0 &&
        wpart_dynamic_noise_uniform(seed, pu, WPART_DYN_NOISE_OUTLIER, j, 0) < dev->p_out) {
        D *= dev->f_out;
    }
    double c0 = t + tx;
    *t_xfer = tx;
    *t_comp = wpart_dynamic_integrate(f, n_fluct, pu, c0, D) - c0;
cleanup:
    return st;
}
