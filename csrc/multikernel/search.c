/*
 * multikernel_search.c -- the searches of multi-kernel runs [Soldado 2016]: the bisection share
 * generator of profile construction (Sec. 3.2.2), the discard rule of the configuration
 * search (Algorithm 1), the imbalance detector (Sec. 3.3) and the adaptive binary search that
 * rebalances the CPU/GPU share (Sec. 3.3.1).
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "wpart/multikernel.h"

/* ---------------------------------------------------------------- bisection generator --- */

wpart_status_t wpart_multikernel_bisect_init(wpart_multikernel_bisect_t *b, double x_min)
{
    wpart_status_t st = WPART_OK;
    if (!b) {
        WPART_FAIL(WPART_EINVAL, "bisect: NULL state");
    }
    if (!(x_min > 0.0 && x_min <= 1.0)) {
        WPART_FAIL(WPART_EINVAL, "x_min must be in (0, 1], got %g", x_min);
    }
    *b = (wpart_multikernel_bisect_t){.g = 0.0, .c = 0.0, .X = 1.0, .x_min = x_min};
cleanup:
    return st;
}

double wpart_multikernel_bisect_candidate(const wpart_multikernel_bisect_t *b) { return b->g + b->X / 2.0; }

static int bad_time(double t) { return !(t >= 0.0) || isnan(t); }

wpart_status_t wpart_multikernel_bisect_feedback(wpart_multikernel_bisect_t *b, double t_gpu, double t_cpu,
                                        int *exhausted_out)
{
    wpart_status_t st = WPART_OK;
    if (!b) {
        WPART_FAIL(WPART_EINVAL, "bisect: NULL state");
    }
    if (bad_time(t_gpu) || bad_time(t_cpu)) {
        WPART_FAIL(WPART_EINVAL, "t_gpu and t_cpu must be >= 0, got %g and %g", t_gpu,
                   t_cpu);
    }
    if (b->exhausted) {
        WPART_FAIL(WPART_EINVAL, "the generator is exhausted");
    }
    if (t_gpu < t_cpu) {
        b->g += b->X / 2.0; /* the GPU did better: its half is bound to it */
    } else if (t_gpu > t_cpu) {
        b->c += b->X / 2.0;
    } else {
        b->exhausted = 1; /* a tie: balanced */
    }
    if (!b->exhausted) {
        b->X /= 2.0;
        b->iter++;
        b->exhausted = b->X < b->x_min;
    }
    if (exhausted_out) {
        *exhausted_out = b->exhausted;
    }
cleanup:
    return st;
}

/* ---------------------------------------------------------------- configuration search -- */

wpart_status_t wpart_multikernel_search_init(wpart_multikernel_search_t *s, int32_t nf, int32_t no, int32_t nw)
{
    wpart_status_t st = WPART_OK;
    if (!s || nf < 1 || no < 1 || nw < 1) {
        WPART_FAIL(WPART_EINVAL,
                   "search: need >= 1 candidate per dimension, got %d, %d, %d",
                   (int)nf, (int)no, (int)nw);
    }
    memset(s, 0, sizeof *s);
    s->nf = nf;
    s->no = no;
    s->nw = nw;
    s->prev_f = s->prev_o = s->prev_w = INFINITY;
    s->best_f = s->best_o = s->best = INFINITY;
    s->best_fi = s->best_oi = s->best_wi = -1;
cleanup:
    return st;
}

int wpart_multikernel_search_next(const wpart_multikernel_search_t *s, int32_t *f, int32_t *o, int32_t *w)
{
    if (s->done) {
        *f = *o = *w = -1;
        return 0;
    }
    *f = s->f;
    *o = s->o;
    *w = s->w;
    return 1;
}

/* Closes the overlap candidate: its best joins the fission's; returns 1 if the overlap
 * dimension goes on with the next candidate. */
static int close_overlap(wpart_multikernel_search_t *s)
{
    if (s->best_o < s->best_f) {
        s->best_f = s->best_o;
    }
    int go = s->best_o < s->prev_o && s->o + 1 < s->no;
    s->prev_o = s->best_o;
    return go;
}

static int close_fission(wpart_multikernel_search_t *s)
{
    int go = s->best_f < s->prev_f && s->f + 1 < s->nf;
    s->prev_f = s->best_f;
    return go;
}

wpart_status_t wpart_multikernel_search_report(wpart_multikernel_search_t *s, double t)
{
    wpart_status_t st = WPART_OK;
    if (!s) {
        WPART_FAIL(WPART_EINVAL, "search: NULL state");
    }
    if (s->done) {
        WPART_FAIL(WPART_EINVAL, "the search is over");
    }
    if (!(t >= 0.0)) {
        WPART_FAIL(WPART_EINVAL, "t must be >= 0 (or +inf), got %g", t);
    }
    s->evaluated++;
    if (t < s->best) {
        s->best = t;
        s->best_fi = s->f;
        s->best_oi = s->o;
        s->best_wi = s->w;
    }
    if (t < s->best_o) {
        s->best_o = t;
    }
    /* work-group dimension: stop at the first candidate that does not beat the previous one */
    int next_w = t < s->prev_w && s->w + 1 < s->nw;
    s->prev_w = t;
    if (next_w) {
        s->w++;
        return WPART_OK;
    }
    if (close_overlap(s)) {
        s->o++;
    } else if (close_fission(s)) {
        s->f++;
        s->o = 0;
        s->prev_o = INFINITY;
        s->best_f = INFINITY;
    } else {
        s->done = 1;
        return WPART_OK;
    }
    s->w = 0;
    s->prev_w = INFINITY;
    s->best_o = INFINITY;
cleanup:
    return st;
}

/* ---------------------------------------------------------------- imbalance detector ---- */

wpart_status_t wpart_multikernel_detector_init(wpart_multikernel_detector_t *d, double w, double max_dev,
                                      double cf)
{
    wpart_status_t st = WPART_OK;
    if (!d) {
        WPART_FAIL(WPART_EINVAL, "detector: NULL state");
    }
    if (!(w > 0.0 && w <= 1.0)) {
        WPART_FAIL(WPART_EINVAL, "w must be in (0, 1], got %g", w);
    }
    if (!(max_dev > 0.0 && max_dev <= 1.0)) {
        WPART_FAIL(WPART_EINVAL, "max_dev must be in (0, 1], got %g", max_dev);
    }
    if (!(cf > 0.0 && cf <= 1.0)) {
        WPART_FAIL(WPART_EINVAL, "cf must be in (0, 1], got %g", cf);
    }
    memset(d, 0, sizeof *d);
    d->w = w;
    d->max_dev = max_dev;
    d->cf = cf;
    d->window = 1;
    wpart_multikernel_detector_reset(d);
cleanup:
    return st;
}

/* The checks of a set_window call: the state (`who`) given, window in 1..wmax. */
static wpart_status_t check_window(int have_state, const char *who, int32_t window, int32_t wmax)
{
    wpart_status_t st = WPART_OK;
    if (!have_state) {
        WPART_FAIL(WPART_EINVAL, "%s: NULL state", who);
    }
    if (window < 1 || window > wmax) {
        WPART_FAIL(WPART_EINVAL, "window must be in 1..%d, got %d", (int)wmax,
                   (int)window);
    }
cleanup:
    return st;
}

wpart_status_t wpart_multikernel_detector_set_window(wpart_multikernel_detector_t *d,
                                                     int32_t window)
{
    wpart_status_t st = WPART_OK;
    WPART_CHECK(check_window(d != NULL, "detector", window, WPART_MULTIKERNEL_DET_WMAX));
    d->window = window;
    wpart_multikernel_detector_reset(d);
cleanup:
    return st;
}

/* v[0..n) sorted into a (insertion sort: n <= WPART_MULTIKERNEL_DET_WMAX, a window). */
static void sort_small(const double *v, int32_t n, double *a)
{
    memcpy(a, v, (size_t)n * sizeof *a);
    for (int32_t i = 1; i < n; i++) {
        double x = a[i];
        int32_t j = i - 1;
        while (j >= 0 && a[j] > x) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = x;
    }
}

/* The median of v[0..n) (n <= WPART_MULTIKERNEL_DET_WMAX; the mean of the middle two when n
 * is even). */
static double median_small(const double *v, int32_t n)
{
    double a[WPART_MULTIKERNEL_DET_WMAX];
    sort_small(v, n, a);
    return n % 2 ? a[n / 2] : 0.5 * (a[n / 2 - 1] + a[n / 2]);
}

void wpart_multikernel_detector_reset(wpart_multikernel_detector_t *d)
{
    d->lbt = 1.0 / (d->max_dev * d->cf);
    d->last_dev = 1.0;
    d->runs = d->unbalanced = d->fired = 0;
    d->nwin = d->pos = 0;
    if (d->window < 1) {
        d->window = 1;
    }
}

wpart_status_t wpart_multikernel_balance_ratio(int32_t n, const double *t, double *ratio_out)
{
    wpart_status_t st = WPART_OK;
    if (n < 1 || !t || !ratio_out) {
        WPART_FAIL(WPART_EINVAL, "t_dev: need at least one device time");
    }
    double lo = INFINITY, hi = 0.0;
    for (int32_t i = 0; i < n; i++) {
        if (!(t[i] >= 0.0) || !isfinite(t[i])) {
            WPART_FAIL(WPART_EINVAL, "t_dev[%d] must be finite and >= 0, got %g",
                                 (int)i, t[i]);
        }
        lo = t[i] < lo ? t[i] : lo;
        hi = t[i] > hi ? t[i] : hi;
    }
    *ratio_out = hi > 0.0 ? lo / hi : 1.0;
cleanup:
    return st;
}

wpart_status_t wpart_multikernel_detector_update(wpart_multikernel_detector_t *d, int32_t n, const double *t_dev,
                                        int *fire_out, double *dev_out)
{
    wpart_status_t st = WPART_OK;
    if (!d) {
        WPART_FAIL(WPART_EINVAL, "detector: NULL state");
    }
    double dev;
    WPART_CHECK(wpart_multikernel_balance_ratio(n, t_dev, &dev));
    double bound = d->max_dev * d->cf;
    int32_t W = d->window >= 1 && d->window <= WPART_MULTIKERNEL_DET_WMAX ? d->window : 1;
    d->win[d->pos] = dev;
    d->pos = (d->pos + 1) % W;
    d->nwin = d->nwin < W ? d->nwin + 1 : W;
    double med = W == 1 ? dev : median_small(d->win, d->nwin);
    d->lbt = d->w * (med / bound) + (1.0 - d->w) * d->lbt;
    int unbalanced = med < bound;
    int fire = d->lbt < 1.0 && unbalanced;
    d->runs++;
    d->unbalanced += unbalanced;
    d->fired += fire;
    d->last_dev = dev;
    if (fire_out) {
        *fire_out = fire;
    }
    if (dev_out) {
        *dev_out = dev;
    }
cleanup:
    return st;
}

/* ---------------------------------------------------------------- adaptive binary search  */

/* The robust search's typical time of v[0..n): its ceil(n / 3)-th smallest (n = 5: the second
 * fastest, n = 3: the fastest). A noisy run on a busy machine is a slow one (a device that was
 * not scheduled), so up to n - ceil(n / 3) ruined runs of the window (3 of 5) leave it alone,
 * while a real load, which slows every run, shows once n - ceil(n / 3) + 1 runs had it. */
static double low_order(const double *v, int32_t n)
{
    double a[WPART_MULTIKERNEL_ABS_WMAX];
    sort_small(v, n, a);
    return a[(n + 2) / 3 - 1];
}

_Static_assert(WPART_MULTIKERNEL_ABS_WMAX <= WPART_MULTIKERNEL_DET_WMAX,
               "median_small's buffer holds the search's window");

enum { ABS_SHIFT = 0, ABS_BISECT = 1, ABS_CONVERGED = 2 };

static double clamp01(double x) { return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x); }

wpart_status_t wpart_multikernel_abs_start(wpart_multikernel_abs_t *a, double s, double T_init, double T_min,
                                  double T_max)
{
    wpart_status_t st = WPART_OK;
    if (!a) {
        WPART_FAIL(WPART_EINVAL, "abs: NULL state");
    }
    if (!(s >= 0.0 && s <= 1.0)) {
        WPART_FAIL(WPART_EINVAL, "s must be in [0, 1], got %g", s);
    }
    if (!(T_min > 0.0 && T_min <= T_init && T_init <= T_max && T_max <= 1.0)) {
        WPART_FAIL(WPART_EINVAL,
                   "need 0 < T_min <= T_init <= T_max <= 1, got T_min=%g, T_init=%g, "
                   "T_max=%g",
                   T_min, T_init, T_max);
    }
    memset(a, 0, sizeof *a);
    a->s = s;
    a->T = a->T_init = T_init;
    a->T_min = T_min;
    a->T_max = T_max;
    a->s_prev = s;
    a->lo = 0.0;
    a->hi = 1.0;
    a->phase = ABS_SHIFT;
    a->window = 1;
cleanup:
    return st;
}

wpart_status_t wpart_multikernel_abs_set_window(wpart_multikernel_abs_t *a, int32_t window,
                                                double band)
{
    wpart_status_t st = WPART_OK;
    WPART_CHECK(check_window(a != NULL, "abs", window, WPART_MULTIKERNEL_ABS_WMAX));
    if (!(band >= 0.0 && band < 1.0)) {
        WPART_FAIL(WPART_EINVAL, "band must be in [0, 1), got %g", band);
    }
    a->window = window;
    a->band = band;
    a->ng = a->pg = a->nc = a->pc = 0;
cleanup:
    return st;
}

wpart_status_t wpart_multikernel_abs_restart(wpart_multikernel_abs_t *a, double s)
{
    wpart_status_t st = WPART_OK;
    if (!a) {
        WPART_FAIL(WPART_EINVAL, "abs: NULL state");
    }
    if (!(s >= 0.0 && s <= 1.0)) {
        WPART_FAIL(WPART_EINVAL, "s must be in [0, 1], got %g", s);
    }
    a->s = a->s_prev = s;
    a->T = a->T_init;
    a->lo = 0.0;
    a->hi = 1.0;
    a->phase = ABS_SHIFT;
    a->last_dir = a->run = a->nb = a->nconv = 0;
    a->bdirs[0] = a->bdirs[1] = a->bdirs[2] = 0;
cleanup:
    return st;
}

/* The robust search's window: the run's times per unit of share of each type that ran. */
static void abs_record(wpart_multikernel_abs_t *a, double t_gpu, double t_cpu)
{
    int32_t W = a->window;
    if (W <= 1 || W > WPART_MULTIKERNEL_ABS_WMAX) {
        return;
    }
    if (a->s > 0.0) {
        a->qg[a->pg] = t_gpu / a->s;
        a->pg = (a->pg + 1) % W;
        a->ng = a->ng < W ? a->ng + 1 : W;
    }
    if (a->s < 1.0) {
        a->qc[a->pc] = t_cpu / (1.0 - a->s);
        a->pc = (a->pc + 1) % W;
        a->nc = a->nc < W ? a->nc + 1 : W;
    }
}

wpart_status_t wpart_multikernel_abs_observe(wpart_multikernel_abs_t *a, double t_gpu, double t_cpu)
{
    wpart_status_t st = WPART_OK;
    if (!a) {
        WPART_FAIL(WPART_EINVAL, "abs: NULL state");
    }
    if (bad_time(t_gpu) || bad_time(t_cpu) || isinf(t_gpu) || isinf(t_cpu)) {
        WPART_FAIL(WPART_EINVAL, "t_gpu and t_cpu must be finite and >= 0, got %g "
                   "and %g", t_gpu, t_cpu);
    }
    abs_record(a, t_gpu, t_cpu);
cleanup:
    return st;
}

static void abs_shift(wpart_multikernel_abs_t *a, int dir)
{
    a->run++;
    if (a->run > 2) {
        a->T = fmin(2.0 * a->T, a->T_max); /* more than 2 shifts one way: double */
    }
    a->s_prev = a->s;
    a->s = clamp01(a->s + dir * a->T);
}

wpart_status_t wpart_multikernel_abs_estimate(const wpart_multikernel_abs_t *a, double *t_gpu_out,
                                              double *t_cpu_out, int *ok_out)
{
    wpart_status_t st = WPART_OK;
    if (!a || !t_gpu_out || !t_cpu_out || !ok_out) {
        WPART_FAIL(WPART_EINVAL, "abs: NULL argument");
    }
    *ok_out = 0;
    if (a->window <= 1 || (a->s > 0.0 && a->ng == 0) || (a->s < 1.0 && a->nc == 0)) {
        return WPART_OK;
    }
    *t_gpu_out = a->s > 0.0 ? a->s * low_order(a->qg, a->ng) : 0.0;
    *t_cpu_out = a->s < 1.0 ? (1.0 - a->s) * low_order(a->qc, a->nc) : 0.0;
    *ok_out = 1;
cleanup:
    return st;
}

static void abs_move(wpart_multikernel_abs_t *a, double t_gpu, double t_cpu, double *s_out);

wpart_status_t wpart_multikernel_abs_judge(wpart_multikernel_abs_t *a, double *s_out)
{
    wpart_status_t st = WPART_OK;
    if (!a || !s_out) {
        WPART_FAIL(WPART_EINVAL, "abs: NULL argument");
    }
    double tg = 0.0, tc = 0.0;
    int ok = 0;
    wpart_multikernel_abs_estimate(a, &tg, &tc, &ok);
    a->steps++;
    double lo = fmin(tg, tc), hi = fmax(tg, tc);
    if (!ok || hi <= 0.0 || (a->band > 0.0 && lo / hi >= a->band)) {
        /* nothing to judge, or balanced within the band: stay */
        *s_out = a->s;
        return WPART_OK;
    }
    abs_move(a, tg, tc, s_out);
cleanup:
    return st;
}

wpart_status_t wpart_multikernel_abs_step(wpart_multikernel_abs_t *a, double t_gpu, double t_cpu, double *s_out)
{
    wpart_status_t st = WPART_OK;
    if (!a || !s_out) {
        WPART_FAIL(WPART_EINVAL, "abs: NULL argument");
    }
    if (bad_time(t_gpu) || bad_time(t_cpu)) {
        WPART_FAIL(WPART_EINVAL, "t_gpu and t_cpu must be >= 0, got %g and %g", t_gpu,
                   t_cpu);
    }
    if (a->window > 1 && isfinite(t_gpu) && isfinite(t_cpu)) {
        /* robust: the run joins the window; the step judges its medians at this share */
        abs_record(a, t_gpu, t_cpu);
        double tg = 0.0, tc = 0.0;
        int ok = 0;
        wpart_multikernel_abs_estimate(a, &tg, &tc, &ok);
        if (ok && a->s > 0.0 && a->s < 1.0) {
            return wpart_multikernel_abs_judge(a, s_out);
        }
    }
    a->steps++;
    abs_move(a, t_gpu, t_cpu, s_out);
cleanup:
    return st;
}

/* The paper's step on the type times (t_gpu, t_cpu) judged at the current share. */
static void abs_move(wpart_multikernel_abs_t *a, double t_gpu, double t_cpu, double *s_out)
{
    if (t_gpu == t_cpu) { /* balanced: nothing to move */
        *s_out = a->s;
        return;
    }
    int dir = t_gpu < t_cpu ? +1 : -1; /* +1: move work from the CPU to the GPU */
    if (a->phase == ABS_SHIFT) {
        if (a->last_dir != 0 && dir != a->last_dir) {
            a->lo = fmin(a->s_prev, a->s);
            a->hi = fmax(a->s_prev, a->s);
            a->phase = ABS_BISECT;
            a->nb = 0;
            a->s = (a->lo + a->hi) / 2.0;
        } else {
            abs_shift(a, dir);
        }
    } else if (a->phase == ABS_BISECT) {
        if (dir > 0) {
            a->lo = a->s;
        } else {
            a->hi = a->s;
        }
        /* bdirs[0]: the first direction of this bracket; bdirs[1]: all the same since */
        if (a->nb == 0) {
            a->bdirs[0] = dir;
            a->bdirs[1] = 1;
        } else if (dir != a->bdirs[0]) {
            a->bdirs[1] = 0;
        }
        a->nb++;
        if (a->hi - a->lo <= a->T_min) {
            if (a->nb >= 3 && a->bdirs[1]) {
                /* the bracket collapsed onto one of its edges: the optimum has left it */
                a->phase = ABS_SHIFT;
                a->T = a->T_init;
                a->run = 0;
                abs_shift(a, dir);
            } else {
                a->phase = ABS_CONVERGED;
                a->bdirs[2] = 0;
                a->nb = 0;
                a->nconv = 0;
            }
        } else {
            a->s = (a->lo + a->hi) / 2.0;
        }
    } else { /* CONVERGED: s stays; three steps in a row the same way mean it has moved */
        if (a->window > 1) { /* robust: a net count, an opposite step takes one back */
            if (a->nb > 0 && dir != a->bdirs[2]) {
                a->nb--;
            } else {
                a->nb++;
                a->bdirs[2] = dir;
            }
        } else {
            a->nb = (a->nb > 0 && dir == a->bdirs[2]) ? a->nb + 1 : 1;
            a->bdirs[2] = dir;
        }
        int bounded = a->window > 1 && ++a->nconv >= 2 * a->window;
        if (a->nb >= 3 || bounded) {
            if (a->nb > 0) {
                dir = a->bdirs[2]; /* the way of the net count */
            }
            a->phase = ABS_SHIFT;
            a->T = a->T_init;
            a->run = 0;
            abs_shift(a, dir);
        }
    }
    a->last_dir = dir;
    *s_out = a->s;
}
