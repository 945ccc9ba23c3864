/*
 * fit_inc.h -- the incremental form of wpart.dynamic's model fit (private).
 *
 * The least-squares problems of the fit (every candidate subset of the basis, the
 * proportional fallback, the affine bootstrap) only need the weighted Gram structure of the
 * rows [f_1(u) .. f_7(u), 1, t]. wpart_i_fitinc_t keeps it as the 9 x 9 triangular factor R of
 * those rows (updated by Givens rotations, one row per sample: numerically a QR, not normal
 * equations), plus the sums the fit reads (sample count, distinct sizes, decay sums, the
 * transfer model's weighted means and co-moments). A fit from the state costs O(1) in the
 * number of samples and gives the same model as wpart_dynamic_model_fit over all samples (to
 * rounding). Exponential decay (fit option `decay`) scales the factor before each new row.
 *
 * The rows use u = x / x_hi; when a new sample raises x_hi (or, with relative weighting,
 * changes the weight of a zero-time sample), the factor is rebuilt from the samples, which
 * happens O(log m) times for block sizes that settle (amortised O(1) per sample).
 */
#ifndef WPART_FIT_INC_H
#define WPART_FIT_INC_H

#include <math.h>
#include <stdint.h>

#include "wpart/dynamic_model.h"
#include "wpart/status.h"

/* ---- the basis (shared by the batch and the incremental fit) ---- */

/* The coefficients of a solved, column-scaled subset: y[j] * scale[j] to basis column
 * col_of[j] (or the intercept c0 where col_of[j] < 0), every other coefficient 0. Returns 0 if
 * one is not finite. */
static inline int fit_unscale(const double *y, const double *scale, const int *col_of, int k,
                              double *coef, double *c0)
{
    for (int i = 0; i < WPART_DYN_NBASIS; i++) {
        coef[i] = 0.0;
    }
    *c0 = 0.0;
    for (int j = 0; j < k; j++) {
        double v = y[j] * scale[j];
        if (!isfinite(v)) {
            return 0;
        }
        if (col_of[j] < 0) {
            *c0 = v;
        } else {
            coef[col_of[j]] = v;
        }
    }
    return 1;
}

/* The terms of a fitted model: those of `mask` with a non-zero coefficient (every other
 * coefficient set to 0); the zero proportional model (`proportional`) keeps its single term. */
static inline uint32_t fit_used_terms(uint32_t mask, double *coef, int proportional)
{
    uint32_t used = 0;
    for (int i = 0; i < WPART_DYN_NBASIS; i++) {
        if ((mask & (1u << i)) && coef[i] != 0.0) {
            used |= 1u << i;
        } else {
            coef[i] = 0.0;
        }
    }
    return (proportional && used == 0) ? 1u : used;
}

/* ---- the fit engine's steps (shared by the batch fit, model_fit.c, and the incremental
 * fit, model_fit_inc.c: the two fronts reach the same least-squares problems from grouped
 * samples or from a triangular factor, then decide with these) ---- */

#define WPART_FIT_RANK_TOL 1e-9   /* reject a candidate when |R_jj| (unit-norm columns) < this */
#define WPART_FIT_MONO_TOL 1e-12  /* relative tolerance of the non-decreasing check */
#define WPART_FIT_SSE_FLOOR 1e-24 /* SSE floor relative to sum w t^2 */
#define WPART_FIT_MAXK 4          /* at most 3 basis functions + constant */

/* Householder reflection of column v at position d over rows d..hi-1, applied to the columns
 * tg[0..ntg) in order. Returns 0 when the column's norm below d is under the rank tolerance;
 * else 1 with R_dd in *alpha. Every QR of both fits goes through it. */
static inline int fit_reflect(double *v, int64_t d, int64_t hi, double *const *tg, int ntg,
                              double *alpha)
{
    double nrm = 0.0;
    for (int64_t r = d; r < hi; r++) {
        nrm += v[r] * v[r];
    }
    nrm = sqrt(nrm);
    if (nrm < WPART_FIT_RANK_TOL) {
        return 0;
    }
    double al = v[d] > 0.0 ? -nrm : nrm; /* R_dd = al, |al| = nrm */
    v[d] -= al;                          /* v = x - al e_d */
    double vn2 = 0.0;
    for (int64_t r = d; r < hi; r++) {
        vn2 += v[r] * v[r];
    }
    if (vn2 > 0.0) {
        for (int c = 0; c < ntg; c++) {
            double *w = tg[c], dot = 0.0;
            for (int64_t r = d; r < hi; r++) {
                dot += v[r] * w[r];
            }
            double fct = 2.0 * dot / vn2;
            for (int64_t r = d; r < hi; r++) {
                w[r] -= fct * v[r];
            }
        }
    }
    *alpha = al;
    return 1;
}

/* The AICc of a candidate with k coefficients, weighted SSE sse and effective sample count me. */
static inline double fit_aicc(double sse, double me, int k)
{
    return (sse > 0.0 ? me * log(sse / me) : -INFINITY) + 2.0 * k +
           2.0 * k * (k + 1) / (me - k - 1);
}

/* The order of candidates: lower AICc, then fewer coefficients, then the smaller key
 * (mask << 1 | constant). 1 when (score, k, key) comes before (bscore, bk, bkey). */
static inline int fit_before(double score, int k, uint32_t key, double bscore, int bk,
                             uint32_t bkey)
{
    if (score != bscore) {
        return score < bscore;
    }
    return k < bk || (k == bk && key < bkey);
}

/* One point of the admissibility test (the model at grid point i is f): finite, > 0 and not
 * below the previous point *prev (relative tolerance). 0 when it fails. */
static inline int fit_grid_ok(double f, int i, double *prev)
{
    if (!isfinite(f) || !(f > 0.0)) {
        return 0;
    }
    if (i > 0 && f < *prev - WPART_FIT_MONO_TOL * fabs(*prev)) {
        return 0;
    }
    *prev = f;
    return 1;
}

/* The proportional fallback F = c1 u from its normal equation's sums (num = sum w t u,
 * den = sum w u^2): every other coefficient 0, c1 >= 0. */
static inline void fit_proportional(double num, double den, double *coef, double *c0)
{
    for (int i = 0; i < WPART_DYN_NBASIS; i++) {
        coef[i] = 0.0;
    }
    *c0 = 0.0;
    coef[0] = den > 0.0 ? fmax(num / den, 0.0) : 0.0;
}

/* The transfer model G = a1 u + a2 from the decay-weighted means (ub, tb), co-moments (sxy, sxx)
 * and, for the proportional fallback, the plain sums num = sum w u t, den = sum w u^2; md the
 * number of distinct sizes. a1, a2 >= 0. */
static inline void fit_xfer(int64_t md, double ub, double tb, double sxy, double sxx, double num,
                            double den, double *a1_out, double *a2_out)
{
    double a1 = 0.0, a2 = tb;
    if (md >= 2) {
        a1 = sxx > 0.0 ? sxy / sxx : 0.0;
        a2 = tb - a1 * ub;
        if (a1 < 0.0) {
            a1 = 0.0;
            a2 = tb;
        } else if (a2 < 0.0) {
            a1 = den > 0.0 ? fmax(num / den, 0.0) : 0.0;
            a2 = 0.0;
        }
    }
    *a1_out = a1;
    *a2_out = fmax(a2, 0.0);
}

/* The last step of both fits: the model of terms `used` (coef, c0; wpart_dynamic_model_fit's
 * kind 0 AICc choice, 1 affine bootstrap, 2 proportional), transfer (a1, a2), over samples of
 * scale x_scale with evaluation domain [x_a, x_b], into *out with its evaluation domain values.
 * EINTERNAL when the model is not finite there. */
wpart_status_t wpart_i_fit_finish(uint32_t used, const double *coef, double c0, double a1,
                                  double a2, double x_scale, double x_a, double x_b, double sse,
                                  double aicc, int64_t m, int64_t md, int kind,
                                  double slope_floor, wpart_dynamic_model_t *out);

static inline double basis(int i, double u)
{
    switch (i) {
    case 0: return u;
    case 1: return u * u;
    case 2: return u * u * u;
    case 3: return exp(u);
    case 4: return log(u);
    case 5: return u * exp(u);
    default: return u * log(u);
    }
}

static inline double basis_deriv(int i, double u)
{
    switch (i) {
    case 0: return 1.0;
    case 1: return 2.0 * u;
    case 2: return 3.0 * u * u;
    case 3: return exp(u);
    case 4: return 1.0 / u;
    case 5: return (1.0 + u) * exp(u);
    default: return log(u) + 1.0;
    }
}

/* F(u) of coefficients (mask, coef, c0); the exponential is computed once. */
static inline double f_raw(uint32_t mask, const double *coef, double c0, double u)
{
    double s = c0;
    if (mask & 0x7u) {
        if (mask & 1u) {
            s += coef[0] * u;
        }
        if (mask & 2u) {
            s += coef[1] * u * u;
        }
        if (mask & 4u) {
            s += coef[2] * u * u * u;
        }
    }
    if (mask & 0x28u) {
        double e = exp(u);
        if (mask & 8u) {
            s += coef[3] * e;
        }
        if (mask & 32u) {
            s += coef[5] * u * e;
        }
    }
    if (mask & 0x50u) {
        double l = log(u);
        if (mask & 16u) {
            s += coef[4] * l;
        }
        if (mask & 64u) {
            s += coef[6] * u * l;
        }
    }
    return s;
}

static inline double f_raw_deriv(uint32_t mask, const double *coef, double u)
{
    double s = 0.0;
    for (int i = 0; i < WPART_DYN_NBASIS; i++) {
        if (mask & (1u << i)) {
            s += coef[i] * basis_deriv(i, u);
        }
    }
    return s;
}

#define WPART_FI_COLS 9 /* 7 basis functions, the constant, t */

typedef struct {
    double R[WPART_FI_COLS * WPART_FI_COLS]; /* row-major, upper triangular */
    double x_scale;                          /* x_hi the rows were built with */
    int64_t x_lo, x_hi;
    int64_t m, md; /* samples, distinct sizes */
    double sd, sd2, swt2;
    double tW, txb, ttb, tcxy, tcxx; /* transfer: decay-weighted Welford, x units */
    int any_tx;
    double tmin;
    int64_t nzero;
    int64_t n_rebuild; /* rebuilds so far (a statistic) */
    /* scratch of an evaluation: a value derived from the model of these m samples, valid
     * while aux_m == m (a copy of a changed state never matches: aux_m stays 0 in the live
     * state) */
    int64_t aux_m;
    double aux;
    /* distinct sizes (open addressing; touched only by push) */
    int64_t *hs;
    int64_t hcap;
} wpart_i_fitinc_t;

void wpart_i_fitinc_init(wpart_i_fitinc_t *f);
void wpart_i_fitinc_free(wpart_i_fitinc_t *f);

/** Copies the value part of src into dst (not the distinct-size table). */
void wpart_i_fitinc_copy(wpart_i_fitinc_t *dst, const wpart_i_fitinc_t *src);

/**
 * Adds sample n - 1 of the arrays (x[0..n), t_comp, t_xfer: every sample so far, oldest
 * first; t_xfer may be NULL). The options must be valid (wpart_dynamic_model_fit's checks)
 * and the same at every call; the sample must be valid (x > 0, finite times >= 0).
 */
wpart_status_t wpart_i_fitinc_push(wpart_i_fitinc_t *f, const wpart_dynamic_fit_opts_t *o,
                                   const int64_t *x, const double *t_comp, const double *t_xfer,
                                   int64_t n);

/** Pushes samples 0..n-1 of the arrays (wpart_i_fitinc_push one at a time) into the empty f
 * and fits them (wpart_i_fitinc_fit) into out. */
wpart_status_t wpart_i_fitinc_fit_all(wpart_i_fitinc_t *f, const wpart_dynamic_fit_opts_t *o,
                                      const int64_t *x, const double *t_comp,
                                      const double *t_xfer, int64_t n, int64_t quantum,
                                      wpart_dynamic_model_t *out);

/** The model of every sample pushed so far (wpart_dynamic_model_fit's result, to rounding). */
wpart_status_t wpart_i_fitinc_fit(const wpart_i_fitinc_t *f, int64_t quantum,
                                  const wpart_dynamic_fit_opts_t *o, wpart_dynamic_model_t *out);

/* The admissibility grid of a PU's last fit and the basis functions' values on it: reused while
 * the evaluation domain (x_a, x_b, x_scale) and the grid size stay, which they do once the block
 * sizes settle, so that a fit computes no exp/log for the test. Values are basis(j, u) exactly,
 * so a fit with or without the cache gives the same model bit for bit. */
typedef struct {
    double xa, xb, xs;
    int G;          /* points held (0: empty) */
    uint32_t have;  /* basis columns of tab filled */
    double *gu;     /* G grid points in u */
    double *tab;    /* WPART_DYN_NBASIS x G: tab[j * G + i] = basis(j, gu[i]) */
} wpart_i_fitgrid_t;

void wpart_i_fitgrid_free(wpart_i_fitgrid_t *g);

/** wpart_i_fitinc_fit with the grid cache g (may be NULL); the same model bit for bit. */
wpart_status_t wpart_i_fitinc_fit_g(const wpart_i_fitinc_t *f, int64_t quantum,
                                    const wpart_dynamic_fit_opts_t *o, wpart_i_fitgrid_t *g,
                                    wpart_dynamic_model_t *out);

#endif /* WPART_FIT_INC_H */
