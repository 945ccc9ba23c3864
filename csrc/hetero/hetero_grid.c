/* hetero_grid.c -- validation, the common grid, evaluation, the minimum-energy DP, the
 * exact-sum bitsets and TOPT (spec 000 sections 1, 2.3). */
#include <math.h>
#include <string.h>

#include "hetero_grid.h"

void wpart_hetero_options_init(wpart_hetero_options_t *opt)
{
    opt->energy_threshold = NAN;
    opt->drop_above_eps = 1;
    opt->max_grid = 10000000;
    opt->control = NULL;
}

void wpart_hetero_front_free(wpart_hetero_front_t *f)
{
    if (!f) {
        return;
    }
    free(f->energy);
    free(f->dynamic_energy);
    free(f->time);
    free(f->dist);
    f->energy = f->dynamic_energy = f->time = NULL;
    f->dist = NULL;
    f->count = 0;
}

wpart_status_t hg_front_alloc(wpart_hetero_front_t *f, int64_t p, int64_t count)
{
    wpart_status_t st = WPART_OK;
    int64_t k = count > 0 ? count : 1, kp = 0;
    f->p = p;
    f->count = count;
    f->energy = wpart_i_calloc(k, sizeof(double));
    f->dynamic_energy = wpart_i_calloc(k, sizeof(double));
    f->time = wpart_i_calloc(k, sizeof(double));
    if (!wpart_i_mul_size(k, p, &kp)) {
        WPART_FAIL(WPART_EOVERFLOW, "front of %" PRId64 " x %" PRId64 " shares", k, p);
    }
    f->dist = wpart_i_calloc(kp, sizeof(int64_t));
    if (!f->energy || !f->dynamic_energy || !f->time || !f->dist) {
        WPART_FAIL(WPART_ENOMEM, "front of %" PRId64 " points", count);
    }
    return WPART_OK;
cleanup:
    wpart_hetero_front_free(f);
    return st;
}

wpart_status_t wpart_hetero_validate(const wpart_hetero_profiles_t *P)
{
    wpart_status_t st = WPART_OK;
    if (!P) {
        WPART_FAIL(WPART_EINVAL, "profiles is NULL");
    }
    if (P->p < 1) {
        WPART_FAIL(WPART_EINVAL, "p must be >= 1, got %" PRId64, P->p);
    }
    if (!P->offsets) {
        WPART_FAIL(WPART_EINVAL, "offsets is NULL");
    }
    if (P->offsets[0] != 0) {
        WPART_FAIL(WPART_EINVAL, "offsets[0] must be 0, got %" PRId64, P->offsets[0]);
    }
    for (int64_t i = 0; i < P->p; i++) {
        if (P->offsets[i + 1] < P->offsets[i]) {
            WPART_FAIL(WPART_EINVAL, "offsets must be non-decreasing (processor %" PRId64 ")", i);
        }
    }
    if (P->offsets[P->p] > 0 && (!P->size || !P->time || !P->energy)) {
        WPART_FAIL(WPART_EINVAL, "size, time and energy must not be NULL");
    }
    for (int64_t i = 0; i < P->p; i++) {
        for (int64_t j = P->offsets[i]; j < P->offsets[i + 1]; j++) {
            int64_t k = j - P->offsets[i];
            if (P->size[j] <= 0) {
                WPART_FAIL(WPART_EINVAL,
                           "processor %" PRId64 ": size must be > 0 at point %" PRId64
                           ", got %" PRId64, i, k, P->size[j]);
            }
            if (j > P->offsets[i] && P->size[j] <= P->size[j - 1]) {
                WPART_FAIL(WPART_EINVAL,
                           "processor %" PRId64 ": sizes must be strictly increasing (point %"
                           PRId64 ": %" PRId64 " after %" PRId64 ")", i, k, P->size[j],
                           P->size[j - 1]);
            }
            if (!isfinite(P->time[j]) || P->time[j] < 0) {
                WPART_FAIL(WPART_EINVAL,
                           "processor %" PRId64 ": time must be finite and >= 0 at point %"
                           PRId64 " (size %" PRId64 "), got %g", i, k, P->size[j], P->time[j]);
            }
            if (!isfinite(P->energy[j]) || P->energy[j] < 0) {
                WPART_FAIL(WPART_EINVAL,
                           "processor %" PRId64 ": energy must be finite and >= 0 at point %"
                           PRId64 " (size %" PRId64 "), got %g", i, k, P->size[j],
                           P->energy[j]);
            }
        }
    }
cleanup:
    return st;
}

void hg_grid_free(hg_grid_t *G)
{
    free(G->u);
    free(G->idx);
    G->u = G->idx = NULL;
}

wpart_status_t hg_grid_init(hg_grid_t *G, int64_t n, const wpart_hetero_profiles_t *P,
                            int64_t max_grid)
{
    wpart_status_t st = WPART_OK;
    memset(G, 0, sizeof *G);
    WPART_CHECK(wpart_hetero_validate(P));
    if (n < 0) {
        WPART_FAIL(WPART_EINVAL, "n must be >= 0, got %" PRId64, n);
    }
    int64_t tot = P->offsets[P->p];
    int64_t g = 0;
    for (int64_t j = 0; j < tot; j++) {
        g = wpart_i_gcd64(P->size[j], g);
    }
    if (g == 0) {
        g = n > 0 ? n : 1;
    }
    /* capacity: the most work any distribution can place (saturating); beyond it there is no
     * distribution at all, whatever the size of n (an empty front, not a grid-size error) */
    int64_t cap = 0;
    for (int64_t i = 0; i < P->p; i++) {
        if (P->offsets[i + 1] > P->offsets[i]) {
            int64_t top = P->size[P->offsets[i + 1] - 1];
            cap = cap > INT64_MAX - top ? INT64_MAX : cap + top;
        }
    }
    G->p = P->p;
    G->g = g;
    G->off = P->offsets;
    G->t = P->time;
    G->e = P->energy;
    G->feasible_grid = (n % g == 0) && n <= cap;
    G->N = G->feasible_grid ? n / g : 0;
    if (max_grid <= 0) {
        max_grid = 10000000;
    }
    if (G->N > max_grid) {
        WPART_FAIL(WPART_ELIMIT,
                   "n / g = %" PRId64 " grid units exceeds max_grid = %" PRId64
                   " (g = gcd of all sizes = %" PRId64 ")", G->N, max_grid, g);
    }
    G->u = wpart_i_malloc(tot > 0 ? tot : 1, sizeof(int64_t));
    int64_t cells = 0;
    if (!wpart_i_mul_size(G->p, G->N + 1, &cells)) {
        WPART_FAIL(WPART_EOVERFLOW, "p x (N+1)");
    }
    G->idx = wpart_i_malloc(cells, sizeof(int64_t));
    if (!G->u || !G->idx) {
        WPART_FAIL(WPART_ENOMEM, "grid of %" PRId64 " cells", cells);
    }
    for (int64_t k = 0; k < cells; k++) {
        G->idx[k] = -1;
    }
    double emax_sum = 0.0; /* bounds the energy of every distribution */
    for (int64_t i = 0; i < G->p; i++) {
        double emax = 0.0;
        for (int64_t j = P->offsets[i]; j < P->offsets[i + 1]; j++) {
            G->u[j] = P->size[j] / g;
            if (G->u[j] <= G->N) {
                G->idx[i * (G->N + 1) + G->u[j]] = j;
                emax = P->energy[j] > emax ? P->energy[j] : emax;
            }
        }
        emax_sum += emax;
    }
    if (G->feasible_grid && !isfinite(emax_sum)) {
        WPART_FAIL(WPART_EINVAL,
                   "profiles: energies too large, sums of one energy per processor overflow "
                   "float64 (the largest usable energies add up to inf); rescale them "
                   "(e.g. to kJ)");
    }
    return WPART_OK;
cleanup:
    hg_grid_free(G);
    return st;
}

/* index of size x on processor i, or -1 */
static int64_t find_size(const wpart_hetero_profiles_t *P, int64_t i, int64_t x)
{
    int64_t lo = P->offsets[i], hi = P->offsets[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (P->size[mid] < x) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return (lo < P->offsets[i + 1] && P->size[lo] == x) ? lo : -1;
}

wpart_status_t wpart_hetero_eval(const wpart_hetero_profiles_t *P, const int64_t *dist,
                                 double *time, double *energy)
{
    wpart_status_t st = WPART_OK;
    WPART_CHECK(wpart_hetero_validate(P));
    double T = 0.0, E = 0.0;
    for (int64_t i = P->p - 1; i >= 0; i--) {
        if (dist[i] < 0) {
            WPART_FAIL(WPART_EINVAL, "dist[%" PRId64 "] = %" PRId64 " is negative", i, dist[i]);
        }
        if (dist[i] == 0) {
            continue;
        }
        int64_t j = find_size(P, i, dist[i]);
        if (j < 0) {
            WPART_FAIL(WPART_EINVAL,
                       "dist[%" PRId64 "] = %" PRId64 " is not a measured size of processor %"
                       PRId64, i, dist[i], i);
        }
        E = P->energy[j] + E;
        T = P->time[j] > T ? P->time[j] : T;
    }
    *time = T;
    *energy = E;
cleanup:
    return st;
}

/* ------------------------------------------------------------------------------------------ */

wpart_status_t hg_dp_alloc(hg_dp_t *W, const hg_grid_t *G)
{
    wpart_status_t st = WPART_OK;
    memset(W, 0, sizeof *W);
    int64_t n1 = G->N + 1, cells = 0;
    if (!wpart_i_mul_size(G->p, n1, &cells)) {
        WPART_FAIL(WPART_EOVERFLOW, "p x (N+1)");
    }
    W->D0 = wpart_i_malloc(n1, sizeof(double));
    W->D1 = wpart_i_malloc(n1, sizeof(double));
    W->A0 = wpart_i_malloc(n1, sizeof(int32_t));
    W->A1 = wpart_i_malloc(n1, sizeof(int32_t));
    W->choice = wpart_i_malloc(cells, sizeof(int64_t));
    if (!W->D0 || !W->D1 || !W->A0 || !W->A1 || !W->choice) {
        WPART_FAIL(WPART_ENOMEM, "DP tables of %" PRId64 " cells", cells);
    }
    return WPART_OK;
cleanup:
    hg_dp_free(W);
    return st;
}

void hg_dp_free(hg_dp_t *W)
{
    WPART_FREE_ALL(W->D0, W->D1, W->A0, W->A1, W->choice);
    memset(W, 0, sizeof *W);
}

wpart_status_t hg_dp_min_energy(const hg_grid_t *G, hg_dp_t *W, double lo, double hi,
                                const char *must, const char *forbid, hg_poll_t *pl,
                                int *feasible, double *energy, double *time, int64_t *dist)
{
    wpart_status_t st = WPART_OK;
    int64_t N = G->N, n1 = N + 1;
    *feasible = 0;
    double *Dn = W->D1, *Dc = W->D0;
    int32_t *An = W->A1, *Ac = W->A0;
    for (int64_t w = 0; w <= N; w++) {
        Dn[w] = w == 0 ? 0.0 : INFINITY;
        An[w] = 0;
    }
    for (int64_t i = G->p - 1; i >= 0; i--) {
        int64_t *ch = W->choice + i * n1;
        int zero_ok = !(must && must[i]);
        for (int64_t w = 0; w <= N; w++) {
            Dc[w] = zero_ok ? Dn[w] : INFINITY;
            Ac[w] = zero_ok ? An[w] : 0;
            ch[w] = zero_ok && Dn[w] < INFINITY ? 0 : -1;
        }
        WPART_CHECK(hg_tick(pl, n1));
        if (!(forbid && forbid[i])) {
            /* sizes in blocks of about HG_POLL_WORK cell updates, one tick per block */
            const int64_t jend = G->off[i + 1], jstep = HG_POLL_WORK / (n1 + 1) + 1;
            for (int64_t jb = G->off[i]; jb < jend; jb += jstep) {
                int64_t je = jend - jb > jstep ? jb + jstep : jend;
                WPART_CHECK(hg_tick(pl, (je - jb) * (n1 + 1)));
                for (int64_t j = jb; j < je; j++) {
                    int64_t u = G->u[j];
                    double tj = G->t[j], ej = G->e[j];
                    if (u > N || !(tj >= lo && tj <= hi)) {
                        continue;
                    }
                    for (int64_t w = u; w <= N; w++) {
                        double r = Dn[w - u];
                        if (r == INFINITY) {
                            continue;
                        }
                        double v = ej + r;
                        int32_t a = An[w - u] + 1;
                        if (v < Dc[w] || (v == Dc[w] && a < Ac[w])) {
                            Dc[w] = v;
                            Ac[w] = a;
                            ch[w] = u;
                        }
                    }
                }
            }
        }
        double *td = Dn;
        Dn = Dc;
        Dc = td;
        int32_t *ta = An;
        An = Ac;
        Ac = ta;
    }
    /* Dn now holds D_0 */
    if (Dn[N] == INFINITY) {
        return WPART_OK;
    }
    *feasible = 1;
    *energy = Dn[N];
    double T = 0.0;
    int64_t w = N;
    for (int64_t i = 0; i < G->p; i++) {
        int64_t x = W->choice[i * n1 + w];
        dist[i] = x;
        if (x > 0) {
            int64_t j = G->idx[i * n1 + x];
            T = G->t[j] > T ? G->t[j] : T;
        }
        w -= x;
    }
    *time = T;
cleanup:
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

wpart_status_t hg_candidate_times(const hg_grid_t *G, const char *mask, double **out,
                                  int64_t *count)
{
    wpart_status_t st = WPART_OK;
    int64_t tot = G->off[G->p], k = 0;
    double *c = wpart_i_malloc(tot > 0 ? tot : 1, sizeof(double));
    if (!c) {
        WPART_FAIL(WPART_ENOMEM, "candidate times");
    }
    for (int64_t i = 0; i < G->p; i++) {
        if (mask && !mask[i]) {
            continue;
        }
        for (int64_t j = G->off[i]; j < G->off[i + 1]; j++) {
            if (G->u[j] <= G->N) {
                c[k++] = G->t[j];
            }
        }
    }
    qsort(c, (size_t)k, sizeof(double), cmp_double);
    int64_t d = 0;
    for (int64_t a = 0; a < k; a++) {
        if (d == 0 || c[a] != c[d - 1]) {
            c[d++] = c[a];
        }
    }
    *out = c;
    *count = d;
cleanup:
    return st;
}

/* Exact-sum reachability (bitset) of N with points lo <= t <= hi; must/forbid as the DP. */
wpart_status_t hg_feas(const hg_grid_t *G, uint64_t *R, uint64_t *R2, int64_t nw, double lo,
                           double hi, const char *must, const char *forbid, hg_poll_t *pl,
                           int *ok)
{
    wpart_status_t st = WPART_OK;
    *ok = 0;
    memset(R, 0, (size_t)nw * sizeof(uint64_t));
    R[0] = 1;
    for (int64_t i = 0; i < G->p; i++) {
        if (forbid && forbid[i]) {
            continue;
        }
        if (must && must[i]) {
            memset(R2, 0, (size_t)nw * sizeof(uint64_t));
        } else {
            memcpy(R2, R, (size_t)nw * sizeof(uint64_t));
        }
        WPART_CHECK(hg_tick(pl, nw));
        /* sizes in blocks of about HG_POLL_WORK words, one tick per block */
        const int64_t jend = G->off[i + 1], jstep = HG_POLL_WORK / (nw + 1) + 1;
        for (int64_t jb = G->off[i]; jb < jend; jb += jstep) {
            int64_t je = jend - jb > jstep ? jb + jstep : jend;
            WPART_CHECK(hg_tick(pl, (je - jb) * (nw + 1)));
            for (int64_t j = jb; j < je; j++) {
                int64_t u = G->u[j];
                if (u > G->N || !(G->t[j] >= lo && G->t[j] <= hi)) {
                    continue;
                }
                int64_t ws = u >> 6;
                int bs = (int)(u & 63);
                for (int64_t k = nw - 1; k >= ws; k--) {
                    uint64_t v = R[k - ws] << bs;
                    if (bs && k - ws - 1 >= 0) {
                        v |= R[k - ws - 1] >> (64 - bs);
                    }
                    R2[k] |= v;
                }
            }
        }
        memcpy(R, R2, (size_t)nw * sizeof(uint64_t));
    }
    *ok = (int)((R[G->N >> 6] >> (G->N & 63)) & 1u);
cleanup:
    return st;
}



wpart_status_t hg_bits_alloc(hg_bits_t *B, const hg_grid_t *G)
{
    B->nw = (G->N >> 6) + 1;
    B->R = wpart_i_malloc(B->nw, sizeof(uint64_t));
    B->R2 = wpart_i_malloc(B->nw, sizeof(uint64_t));
    if (!B->R || !B->R2) {
        free(B->R);
        free(B->R2);
        B->R = B->R2 = NULL;
        return wpart_i_error(WPART_ENOMEM, "bitsets of %" PRId64 " words", B->nw);
    }
    return WPART_OK;
}

void hg_bits_free(hg_bits_t *B)
{
    free(B->R);
    free(B->R2);
    B->R = B->R2 = NULL;
}

wpart_status_t hg_time_optimal(const hg_grid_t *G, const wpart_control_t *ctl, double t0,
                               int *feasible, double *time, double *energy, int64_t *dist)
{
    wpart_status_t st = WPART_OK;
    double *C = NULL;
    int64_t nc = 0;
    hg_bits_t B = {0};
    hg_dp_t W = {0};
    *feasible = 0;
    if (!G->feasible_grid) {
        return WPART_OK;
    }
    if (G->N == 0) {
        *feasible = 1;
        *time = 0.0;
        *energy = 0.0;
        for (int64_t i = 0; i < G->p; i++) {
            dist[i] = 0;
        }
        return WPART_OK;
    }
    hg_poll_t pl = hg_poll_init(ctl, t0);
    int ok = 0;
    WPART_CHECK(hg_candidate_times(G, NULL, &C, &nc));
    WPART_CHECK(hg_bits_alloc(&B, G));
    if (nc > 0) {
        WPART_CHECK(hg_feas(G, B.R, B.R2, B.nw, -INFINITY, C[nc - 1], NULL, NULL, &pl, &ok));
    }
    if (!ok) {
        goto cleanup;
    }
    int64_t lo = 0, hi = nc - 1; /* feasible at hi */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        WPART_CHECK(hg_feas(G, B.R, B.R2, B.nw, -INFINITY, C[mid], NULL, NULL, &pl, &ok));
        if (ok) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
        WPART_CHECK(wpart_i_poll(ctl, t0, 0.0, 1.0));
    }
    WPART_CHECK(hg_dp_alloc(&W, G));
    WPART_CHECK(hg_dp_min_energy(G, &W, -INFINITY, C[hi], NULL, NULL, &pl, feasible, energy,
                                 time, dist));
    if (!*feasible || *time != C[hi]) {
        WPART_FAIL(WPART_EINTERNAL, "TOPT: DP disagrees with the feasibility test");
    }
cleanup:
    free(C);
    hg_bits_free(&B);
    hg_dp_free(&W);
    return st;
}

static void scale_dist(int64_t *dist, int64_t p, int64_t g)
{
    for (int64_t i = 0; i < p; i++) {
        dist[i] *= g;
    }
}

wpart_status_t wpart_hetero_time_optimal(int64_t n, const wpart_hetero_profiles_t *P,
                                         const wpart_hetero_options_t *opt, int *feasible,
                                         double *time, double *energy, int64_t *dist)
{
    wpart_status_t st = WPART_OK;
    wpart_hetero_options_t dflt;
    opt = hg_options(opt, &dflt);
    hg_grid_t G = {0};
    WPART_CHECK(hg_grid_init(&G, n, P, opt->max_grid));
    WPART_CHECK(hg_time_optimal(&G, opt->control, wpart_i_now(), feasible, time, energy, dist));
    if (*feasible) {
        scale_dist(dist, G.p, G.g);
    }
cleanup:
    hg_grid_free(&G);
    return st;
}

wpart_status_t wpart_hetero_energy_optimal(int64_t n, const wpart_hetero_profiles_t *P,
                                           const wpart_hetero_options_t *opt, int *feasible,
                                           double *time, double *energy, int64_t *dist)
{
    wpart_status_t st = WPART_OK;
    wpart_hetero_options_t dflt;
    opt = hg_options(opt, &dflt);
    hg_grid_t G = {0};
    hg_dp_t W = {0};
    double *C = NULL;
    int64_t nc = 0;
    double t0 = wpart_i_now();
    *feasible = 0;
    WPART_CHECK(hg_grid_init(&G, n, P, opt->max_grid));
    if (!G.feasible_grid) {
        goto cleanup;
    }
    hg_poll_t pl = hg_poll_init(opt->control, t0);
    WPART_CHECK(hg_dp_alloc(&W, &G));
    double emin, tt;
    int f;
    WPART_CHECK(hg_dp_min_energy(&G, &W, -INFINITY, INFINITY, NULL, NULL, &pl, &f, &emin, &tt,
                                 dist));
    if (!f) {
        goto cleanup;
    }
    WPART_CHECK(hg_candidate_times(&G, NULL, &C, &nc));
    /* least tau with E*(tau) == emin; E* is non-increasing in tau */
    int64_t lo = 0, hi = nc - 1;
    if (G.N == 0) {
        nc = 0;
    }
    if (nc > 0) {
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            double e2, t2;
            int f2;
            WPART_CHECK(hg_dp_min_energy(&G, &W, -INFINITY, C[mid], NULL, NULL, &pl, &f2, &e2,
                                         &t2, dist));
            if (f2 && e2 == emin) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
            WPART_CHECK(wpart_i_poll(opt->control, t0, 0.0, 1.0));
        }
        WPART_CHECK(hg_dp_min_energy(&G, &W, -INFINITY, C[hi], NULL, NULL, &pl, &f, &emin, &tt,
                                     dist));
    }
    *feasible = 1;
    *energy = emin;
    *time = tt;
    scale_dist(dist, G.p, G.g);
cleanup:
    free(C);
    hg_dp_free(&W);
    hg_grid_free(&G);
    return st;
}
