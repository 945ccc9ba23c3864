/*
 * model_solve.c -- the block-size problem (P_S) of wpart.dynamic (Sec. 3.2 of [Sant'Ana 2017]):
 * water-filling on the common time T, its time mode (capacity), the inverse of a model, and the
 * optimal discrete rounding. Fitted models first try the Newton path of model_solve_fast.c.
 * No allocation anywhere in this file.
 *
 * Every value of a time function the solver reads is checked: NaN, an infinite or a negative
 * time, and a curve seen to decrease between two points it evaluated (the bracket ends and
 * every point inside) stop it with WPART_EINVAL naming the PU.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "internal.h"
#include "model_solve_internal.h"
#include "wpart/dynamic_model.h"

#define SOLVE_WARM_MAX 128 /* PUs whose inner brackets are kept on the stack */

void wpart_dynamic_solve_opts_init(wpart_dynamic_solve_opts_t *o)
{
    if (!o) {
        return;
    }
    memset(o, 0, sizeof *o);
    o->tol_T = 1e-10;
    o->tol_x = 1e-12;
    o->max_outer = 200;
    o->max_inner = 100;
    o->newton_polish = 0;
}

wpart_status_t wpart_i_dyn_cerr_fail(const cerr_t *ce)
{
    long long p = (long long)ce->p;
    switch (ce->code) {
    case 1:
        return wpart_i_error(WPART_EINVAL, "the time function of PU %lld returned NaN at x = %.10g",
                             p, ce->x);
    case 2:
        return wpart_i_error(WPART_EINVAL, "the time function of PU %lld returned inf at x = "
                             "%.10g (times must be finite)", p, ce->x);
    case 3:
        return wpart_i_error(WPART_EINVAL, "the time function of PU %lld returned %.10g at x = "
                             "%.10g (times must be >= 0)", p, ce->e, ce->x);
    default:
        return wpart_i_error(WPART_EINVAL, "the time function of PU %lld decreases: E(%.10g) = "
                             "%.10g > E(%.10g) = %.10g (times must not decrease as the block "
                             "grows)", p, ce->x, ce->e, ce->x2, ce->e2);
    }
}

/*
 * sup{x : E(x) <= T} inside a bracket a < b with E(a) = fa <= T < E(b) = fb, by the Illinois
 * variant of regula falsi, safeguarded by bisection (when the bracket has not halved in three
 * steps) and by a minimal step of a quarter of the tolerance (so that an exact root ends the
 * search at once). Stops when b - a <= xtol. Writes the final bracket; ce is filled when E
 * returned a bad value or decreased.
 */
/* The bracket's progress: a step that halves the reference width w_ref resets the count of
 * stale steps (three in a row force a bisection), any other adds one. */
static void stale_step(double width, double *wref, int *stale)
{
    if (width <= 0.5 * *wref) {
        *wref = width;
        *stale = 0;
    } else {
        (*stale)++;
    }
}

static void inv_bracket(wpart_dynamic_time_fn E, void *ctx, int64_t p, double T, double *pa,
                        double *pfa, double *pb, double *pfb, double rtol, double atol,
                        int max_inner, cerr_t *ce)
{
    double a = *pa, fa = *pfa, b = *pb, fb = *pfb;
    double ga = fa - T, gb = fb - T;
    double wref = b - a;
    int last = 0, stale = 0;
    for (int it = 0; it < max_inner; it++) {
        double w = b - a, xtol = rtol * b + atol;
        if (w <= xtol) {
            break;
        }
        double c, delta = 0.25 * xtol;
        if (stale >= 3) {
            c = a + 0.5 * w;
            stale = 0;
        } else {
            c = (gb - ga) > 0.0 ? a - ga * (w / (gb - ga)) : a + 0.5 * w;
            if (!(c >= a + delta)) {
                c = a + delta;
            } else if (!(c <= b - delta)) {
                c = b - delta;
            }
        }
        if (!(c > a && c < b)) {
            break; /* no representable point inside */
        }
        double fc = E(ctx, p, c);
        if (cbad(ce, p, c, fc) || cdec(ce, p, a, fa, c, fc) || cdec(ce, p, c, fc, b, fb)) {
            break;
        }
        if (fc <= T) {
            a = c;
            fa = fc;
            ga = fc - T;
            if (last == 1) {
                gb *= 0.5;
            }
            last = 1;
        } else {
            b = c;
            fb = fc;
            gb = fc - T;
            if (last == -1) {
                ga *= 0.5;
            }
            last = -1;
        }
        stale_step(b - a, &wref, &stale);
    }
    *pa = a;
    *pfa = fa;
    *pb = b;
    *pfb = fb;
}

/* wpart_i_dyn_inv_cold, with *width (when not NULL) set to the width of the final bracket
 * [a, b) that holds the true x(T) (0 when the answer is exact: lo or hi). */
static double inv_cold_w(wpart_dynamic_time_fn E, void *ctx, int64_t p, double T, double lo,
                         double hi, double tol_x, int max_inner, cerr_t *ce, double *width)
{
    if (width) {
        *width = 0.0;
    }
    double flo = E(ctx, p, lo);
    if (cbad(ce, p, lo, flo)) {
        return lo;
    }
    if (flo > T) {
        return lo;
    }
    double a = lo, fa = flo, b, fb;
    if (isfinite(hi)) {
        b = hi;
        fb = E(ctx, p, b);
        if (cbad(ce, p, b, fb) || cdec(ce, p, a, fa, b, fb)) {
            return lo;
        }
        if (fb <= T) {
            return hi;
        }
    } else {
        b = lo > 0.0 ? 2.0 * lo : 1.0;
        for (;;) {
            fb = E(ctx, p, b);
            if (cbad(ce, p, b, fb) || cdec(ce, p, a, fa, b, fb)) {
                return lo;
            }
            if (fb > T) {
                break;
            }
            a = b;
            fa = fb;
            b *= 2.0;
            if (!isfinite(b)) {
                return INFINITY;
            }
        }
    }
    inv_bracket(E, ctx, p, T, &a, &fa, &b, &fb, tol_x, 1e-3 * tol_x * b, max_inner, ce);
    if (width) {
        *width = b - a;
    }
    return a;
}

double wpart_i_dyn_inv_cold(wpart_dynamic_time_fn E, void *ctx, int64_t p, double T, double lo,
                            double hi, double tol_x, int max_inner, cerr_t *ce)
{
    return inv_cold_w(E, ctx, p, T, lo, hi, tol_x, max_inner, ce, NULL);
}

static wpart_status_t check_bounds(int64_t n, const double *lb, const double *ub)
{
    wpart_status_t st = WPART_OK;
    for (int64_t p = 0; p < n; p++) {
        double l = lb ? lb[p] : 0.0, u = ub ? ub[p] : INFINITY;
        if (!(l >= 0.0) || !isfinite(l)) {
            WPART_FAIL(WPART_EINVAL, "lb[%" PRId64 "] must be finite and >= 0 (got %g)", p, l);
        }
        if (isnan(u) || u < l) {
            WPART_FAIL(WPART_EINVAL, "ub[%" PRId64 "] = %g must be >= lb[%" PRId64 "] = %g", p, u,
                       p, l);
        }
    }
cleanup:
    return st;
}

wpart_status_t wpart_dynamic_model_inverse(const wpart_dynamic_model_t *pm, double t, double lo,
                                           double hi, double *x_out)
{
    wpart_status_t st = WPART_OK;
    if (!pm || !x_out) {
        WPART_FAIL(WPART_EINVAL, "pm and x_out must not be NULL");
    }
    if (isnan(t) || !(lo >= 0.0) || !isfinite(lo) || isnan(hi) || hi < lo) {
        WPART_FAIL(WPART_EINVAL, "need t not NaN and 0 <= lo <= hi, lo finite (got t = %g, "
                   "lo = %g, hi = %g)", t, lo, hi);
    }
    cerr_t ce = {0};
    *x_out = wpart_i_dyn_inv_cold(wpart_dynamic_model_timefn, (void *)pm, 0, t, lo, hi, 1e-12,
                                  200, &ce);
    if (ce.code) {
        st = wpart_i_dyn_cerr_fail(&ce);
    }
cleanup:
    return st;
}

wpart_status_t wpart_dynamic_capacity(int64_t n, wpart_dynamic_time_fn E, void *ctx, double T,
                                      const double *lb, const double *ub, double *x_out,
                                      double *H_out)
{
    wpart_status_t st = WPART_OK;
    if (n < 1 || !E || !x_out) {
        WPART_FAIL(WPART_EINVAL, "need n >= 1 and non-NULL E and x_out (n = %" PRId64 ")", n);
    }
    if (isnan(T)) {
        WPART_FAIL(WPART_EINVAL, "T must not be NaN");
    }
    WPART_CHECK(check_bounds(n, lb, ub));
    double H = 0.0;
    cerr_t ce = {0};
    for (int64_t p = 0; p < n; p++) {
        double l = lb ? lb[p] : 0.0, u = ub ? ub[p] : INFINITY;
        x_out[p] = wpart_i_dyn_inv_cold(E, ctx, p, T, l, u, 1e-12, 200, &ce);
        H += x_out[p];
        if (ce.code) {
            st = wpart_i_dyn_cerr_fail(&ce);
            goto cleanup;
        }
    }
    if (H_out) {
        *H_out = H;
    }
cleanup:
    return st;
}

/* One Newton step on [E_p(x_p) - T = 0 (interior p); sum x - S = 0]; apply = 0 only checks.
 * Returns 1 if the step is usable (and applied when apply). */
static int polish_step(int64_t n, wpart_dynamic_time_fn E, void *ctx, double S, const double *lb,
                       const double *ub, double *x, double *T, int apply)
{
    double sinv = 0.0, s2 = 0.0, sx = 0.0;
    for (int64_t p = 0; p < n; p++) {
        sx += x[p];
    }
    double dT = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t p = 0; p < n; p++) {
            double l = lb ? lb[p] : 0.0, u = ub ? ub[p] : INFINITY, xp = x[p];
            double h = 1e-7 * xp;
            if (!(xp - h > l && xp + h < u)) {
                continue; /* at a bound: fixed */
            }
            double e = E(ctx, p, xp);
            double d = (E(ctx, p, xp + h) - E(ctx, p, xp - h)) / (2.0 * h);
            if (!(d > 0.0) || !isfinite(d) || isnan(e)) {
                return 0;
            }
            if (pass == 0) {
                sinv += 1.0 / d;
                s2 += (*T - e) / d;
            } else {
                double xn = xp + (*T + dT - e) / d;
                if (!(xn > l && xn < u)) {
                    return 0;
                }
                if (apply) {
                    x[p] = xn;
                }
            }
        }
        if (pass == 0) {
            if (!(sinv > 0.0)) {
                return 0;
            }
            dT = ((S - sx) - s2) / sinv;
        }
    }
    if (apply) {
        *T += dT;
    }
    return 1;
}


wpart_status_t wpart_dynamic_solve_equal_time(int64_t n, wpart_dynamic_time_fn E, void *ctx,
                                              double S, const double *lb, const double *ub,
                                              const wpart_dynamic_solve_opts_t *o, double *x_out,
                                              double *T_out)
{
    wpart_status_t st = WPART_OK;
    wpart_dynamic_solve_opts_t def;
    if (!o) {
        wpart_dynamic_solve_opts_init(&def);
        o = &def;
    }
    if (n < 1 || !E || !x_out || !T_out) {
        WPART_FAIL(WPART_EINVAL, "need n >= 1 and non-NULL E, x_out and T_out (n = %" PRId64 ")",
                   n);
    }
    if (!isfinite(S) || !(S > 0.0)) {
        WPART_FAIL(WPART_EINVAL, "S must be finite and > 0 (got %g)", S);
    }
    if (!(o->tol_T > 0.0) || !(o->tol_x > 0.0) || o->max_outer < 1 || o->max_inner < 1) {
        WPART_FAIL(WPART_EINVAL, "solve options: tolerances must be > 0 and iteration limits "
                   ">= 1");
    }
    WPART_CHECK(check_bounds(n, lb, ub));
    double slb = 0.0, sub = 0.0;
    for (int64_t p = 0; p < n; p++) {
        slb += lb ? lb[p] : 0.0;
        sub += ub ? fmin(ub[p], S) : S;
    }
    if (sub < S * (1.0 - 1e-15)) {
        WPART_FAIL(WPART_EINVAL, "the upper bounds sum to %.17g < S = %.17g", sub, S);
    }
    cerr_t ce = {0};
    if (slb >= S) {
        /* lower bounds that do not fit are scaled to sum to S; that is then the only feasible
         * allocation, and T is its makespan */
        double f = S / slb, Tm = 0.0;
        for (int64_t p = 0; p < n; p++) {
            x_out[p] = (lb ? lb[p] : 0.0) * f;
            double e = x_out[p] > 0.0 ? E(ctx, p, x_out[p]) : 0.0;
            cbad(&ce, p, x_out[p], e);
            Tm = fmax(Tm, e);
        }
        if (ce.code) {
            st = wpart_i_dyn_cerr_fail(&ce);
            goto cleanup;
        }
        *T_out = Tm;
        goto cleanup;
    }
    /* fitted models: Newton's method with their analytic derivatives, checked against the
     * optimality conditions; water-filling below when it declines */
    if (E == wpart_dynamic_model_timefn &&
        wpart_i_dyn_solve_models_fast(n, (const wpart_dynamic_model_t *)ctx, S, lb, ub, x_out,
                                      T_out)) {
        goto cleanup;
    }
    int warm = n <= SOLVE_WARM_MAX;
    double t0 = o->control ? wpart_i_now() : 0.0; /* the control hooks: every POLL_PUS PUs */
#define POLL_PUS(p)                                                           \
    do {                                                                      \
        if (((p) & 1023) == 1023 && o->control) {                             \
            WPART_CHECK(wpart_i_poll(o->control, t0, 0.0, 0.0));              \
        }                                                                     \
    } while (0)
    /* warm brackets: E(xa) <= T_lo (xa = x(T_lo)), E(xb) > T_hi or xb = min(ub, S),
     * xh = x(T_hi); t* hold the brackets of the trial T until its side is known */
    double xa[SOLVE_WARM_MAX], fa[SOLVE_WARM_MAX], xb[SOLVE_WARM_MAX], fb[SOLVE_WARM_MAX];
    double xh[SOLVE_WARM_MAX], ta[SOLVE_WARM_MAX], tfa[SOLVE_WARM_MAX], tb[SOLVE_WARM_MAX];
    double tfb[SOLVE_WARM_MAX];
    /* the width of the inner bracket that holds the true x_p(T) (0 when exact): tw for the
     * trial T, wh for T_hi */
    double tw[SOLVE_WARM_MAX], wh[SOLVE_WARM_MAX];
    /* the last trial's x(T), E(x) and dx/dE (secant of the final inner bracket), to predict */
    double px[SOLVE_WARM_MAX], pf[SOLVE_WARM_MAX], ps[SOLVE_WARM_MAX];
    double xtol = 1e-3 * o->tol_x * S; /* absolute floor of the inner tolerance */
    /* T_hi: every PU can take min(ub, S), so H(T_hi) >= S */
    double T_lo = 0.0, T_hi = 0.0, H_lo = slb, H_hi = 0.0;
    int lo_set = 0, hi_set = 0;
    for (int64_t p = 0; p < n; p++) {
        double l = lb ? lb[p] : 0.0, u = ub ? fmin(ub[p], S) : S;
        double e = E(ctx, p, u), el = E(ctx, p, l);
        if (cbad(&ce, p, u, e) || cbad(&ce, p, l, el) || cdec(&ce, p, l, el, u, e)) {
            st = wpart_i_dyn_cerr_fail(&ce);
            goto cleanup;
        }
        T_hi = fmax(T_hi, e);
        H_hi += u;
        if (warm) {
            xa[p] = l;
            fa[p] = el;
            xb[p] = u;
            fb[p] = e;
            xh[p] = u;
            wh[p] = 0.0;
            px[p] = pf[p] = ps[p] = NAN;
        }
    }
    /* outer iteration on H(T) - S: Newton steps (H'(T) from the inner brackets' secant
     * slopes), pushed slightly across the root so that the bracket closes; otherwise Illinois
     * regula falsi; bisection when the bracket stalls */
    double g_lo = H_lo - S, g_hi = H_hi - S, wref = T_hi - T_lo;
    int last = 0, stale = 0;
    double Tn = NAN, inv_sum = 0.0;
    for (int64_t p = 0; p < n; p++) {
        /* first guess: each PU linear through the origin and (v, E(v)), v = S / n */
        double u = fmin(ub ? fmin(ub[p], S) : S, fmax(S / (double)n, lb ? lb[p] : 0.0));
        double e = E(ctx, p, u);
        if (cbad(&ce, p, u, e) ||
            (warm && (cdec(&ce, p, xa[p], fa[p], u, e) || cdec(&ce, p, u, e, xb[p], fb[p])))) {
            st = wpart_i_dyn_cerr_fail(&ce);
            goto cleanup;
        }
        if (e > 0.0) {
            inv_sum += u / e;
        }
        if (warm && e > 0.0 && isfinite(e)) {
            /* the first prediction of x_p(T) follows the same chord */
            px[p] = u;
            pf[p] = e;
            ps[p] = u / e;
        }
    }
    if (inv_sum > 0.0) {
        Tn = S / inv_sum;
    }
    for (int it = 0; it < o->max_outer && !ce.code; it++) {
        double w = T_hi - T_lo;
        if (w <= o->tol_T * T_hi || !(w > 0.0)) {
            break;
        }
        double Tm, delta = 0.25 * o->tol_T * T_hi;
        if (stale >= 3) {
            Tm = T_lo + 0.5 * w;
            stale = 0;
        } else if (Tn > T_lo + delta && Tn < T_hi - delta) {
            Tm = Tn;
        } else {
            Tm = (g_hi - g_lo) > 0.0 ? T_lo - g_lo * (w / (g_hi - g_lo)) : T_lo + 0.5 * w;
            if (!(Tm >= T_lo + delta)) {
                Tm = T_lo + delta;
            } else if (!(Tm <= T_hi - delta)) {
                Tm = T_hi - delta;
            }
        }
        if (!(Tm > T_lo && Tm < T_hi)) {
            break;
        }
        double dH = 0.0;
        double H = 0.0, slack = 0.0; /* the true H(Tm) is in [H, H + slack] */
        for (int64_t p = 0; p < n; p++) {
            if (warm) {
                if (fa[p] > Tm) { /* xa is lb_p and E(lb_p) > Tm */
                    ta[p] = xa[p];
                    tw[p] = 0.0;
                    tfa[p] = fa[p];
                    tb[p] = xb[p];
                    tfb[p] = fb[p];
                } else if (fb[p] <= Tm) { /* the upper end fits */
                    ta[p] = tb[p] = xb[p];
                    tw[p] = 0.0;
                    tfa[p] = tfb[p] = fb[p];
                } else {
                    double a = xa[p], fa_ = fa[p], b = xb[p], fb_ = fb[p];
                    if (ps[p] > 0.0 && isfinite(ps[p])) {
                        /* predictive bracket: secant steps with the last slope dx/dE,
                         * lengthened by 5 % (then 4x more each time) so that they cross the
                         * root within a step or two */
                        double g = px[p] + (Tm - pf[p]) * ps[p];
                        double over = 0.05;
                        int sides = 0;
                        for (int k = 0; k < 6 && sides != 3; k++) {
                            if (!(g > a && g < b)) {
                                break;
                            }
                            double fg = E(ctx, p, g);
                            if (cbad(&ce, p, g, fg) || cdec(&ce, p, a, fa_, g, fg) ||
                                cdec(&ce, p, g, fg, b, fb_)) {
                                break;
                            }
                            double tiny = 2.0 * (o->tol_x * fabs(g) + xtol);
                            if (fg <= Tm) {
                                a = g;
                                fa_ = fg;
                                sides |= 1;
                                g += (Tm - fg) * ps[p] * (1.0 + over) + tiny;
                            } else {
                                b = g;
                                fb_ = fg;
                                sides |= 2;
                                g -= (fg - Tm) * ps[p] * (1.0 + over) + tiny;
                            }
                            over *= 4.0;
                        }
                    }
                    inv_bracket(E, ctx, p, Tm, &a, &fa_, &b, &fb_, o->tol_x, xtol, o->max_inner,
                                &ce);
                    ta[p] = a;
                    tfa[p] = fa_;
                    tb[p] = b;
                    tfb[p] = fb_;
                    tw[p] = b - a;
                    slack += tw[p];
                    /* dx/dE: the chord from the last trial (well conditioned), else the
                     * final bracket when its times differ enough to carry digits */
                    double sl = NAN;
                    if (isfinite(px[p]) && fabs(fa_ - pf[p]) > 1e-9 * fa_ && a != px[p]) {
                        sl = (a - px[p]) / (fa_ - pf[p]);
                    } else if (fb_ - fa_ > 1e-7 * fb_ && isfinite(fb_)) {
                        sl = (b - a) / (fb_ - fa_);
                    } else {
                        sl = ps[p];
                    }
                    if (sl > 0.0 && isfinite(sl)) {
                        ps[p] = sl;
                        dH += sl;
                    }
                    px[p] = a;
                    pf[p] = fa_;
                }
                H += ta[p];
            } else {
                double l = lb ? lb[p] : 0.0;
                double wd;
                H += inv_cold_w(E, ctx, p, Tm, l, ub ? fmin(ub[p], S) : S, o->tol_x,
                                o->max_inner, &ce, &wd);
                slack += wd;
                POLL_PUS(p);
            }
        }
        /* Tm fits when H(Tm) >= S up to the inner brackets: the computed H is their lower
         * ends, a hair short of S at the level where step curves' steps sum to S exactly
         * (H is then flat up to the next step: the least level would be missed) */
        int fits = H + slack >= S;
        Tn = NAN;
        if (dH > 0.0) {
            Tn = Tm - (H - S) / dH;
            Tn += (fits ? -0.5 : 0.5) * o->tol_T * Tm; /* land across the root */
        }
        if (fits) {
            T_hi = Tm;
            H_hi = H;
            g_hi = H - S;
            hi_set = 1;
            if (warm) {
                for (int64_t p = 0; p < n; p++) {
                    xh[p] = ta[p];
                    wh[p] = tw[p];
                    xb[p] = tb[p];
                    fb[p] = tfb[p];
                }
            }
            if (last == 1) {
                g_lo *= 0.5;
            }
            last = 1;
        } else {
            T_lo = Tm;
            H_lo = H;
            g_lo = H - S;
            lo_set = 1;
            if (warm) {
                for (int64_t p = 0; p < n; p++) {
                    xa[p] = ta[p];
                    fa[p] = tfa[p];
                }
            }
            if (last == -1) {
                g_hi *= 0.5;
            }
            last = -1;
        }
        stale_step(T_hi - T_lo, &wref, &stale);
    }
    if (ce.code) {
        st = wpart_i_dyn_cerr_fail(&ce);
        goto cleanup;
    }
    /* x between x(T_lo) and x(T_hi), in proportion, so that sum x = S also across jumps of H */
    double theta = H_hi > H_lo ? (S - H_lo) / (H_hi - H_lo) : 1.0;
    theta = fmin(fmax(theta, 0.0), 1.0);
    double sx = 0.0, wsum = 0.0; /* sum x, and the inner brackets' widths at T_hi */
    for (int64_t p = 0; p < n; p++) {
        double l = lb ? lb[p] : 0.0, u = ub ? fmin(ub[p], S) : S, xl, xu, wd = 0.0;
        if (warm) {
            xl = xa[p];
            xu = xh[p];
            wd = wh[p];
        } else {
            xl = lo_set ? wpart_i_dyn_inv_cold(E, ctx, p, T_lo, l, u, o->tol_x, o->max_inner, &ce)
                        : l;
            xu = hi_set ? inv_cold_w(E, ctx, p, T_hi, l, u, o->tol_x, o->max_inner, &ce, &wd)
                        : u;
            POLL_PUS(p);
        }
        x_out[p] = xl + theta * (xu - xl);
        sx += x_out[p];
        wsum += wd;
    }
    /* T_hi fitted only up to the inner brackets (H_hi < S): x(T_hi) falls short of S by at
     * most their widths; the shortfall goes to the PUs in proportion to them (each true x_p
     * lies inside its bracket) */
    double short_by = H_hi < S && theta == 1.0 && hi_set ? fmin(S - sx, wsum) : 0.0;
    if (short_by > 0.0 && wsum > 0.0 && !ce.code) {
        for (int64_t p = 0; p < n; p++) {
            double wd = warm ? wh[p] : 0.0;
            if (!warm) {
                double l = lb ? lb[p] : 0.0, u = ub ? fmin(ub[p], S) : S;
                (void)inv_cold_w(E, ctx, p, T_hi, l, u, o->tol_x, o->max_inner, &ce, &wd);
                POLL_PUS(p);
            }
            x_out[p] += short_by * (wd / wsum);
        }
    }
    if (ce.code) {
        st = wpart_i_dyn_cerr_fail(&ce);
        goto cleanup;
    }
    /* the water level at the same point of the last bracket as x (T_hi overshoots the root by
     * up to half the tolerance: the outer steps land across it on purpose) */
    double T = lo_set ? T_lo + theta * (T_hi - T_lo) : T_hi;
    if (o->newton_polish) {
        for (int k = 0; k < 2; k++) {
            if (!polish_step(n, E, ctx, S, lb, ub, x_out, &T, 0) ||
                !polish_step(n, E, ctx, S, lb, ub, x_out, &T, 1)) {
                break;
            }
        }
    }
    *T_out = T;
#undef POLL_PUS
cleanup:
    return st;
}
