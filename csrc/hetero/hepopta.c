/* hepopta.c -- HEPOPTA (exact time x dynamic-energy front, spec 000 section 2.4 with the fixes of
 * section 8), HTPOPTA (section 2.6) and the naive enumeration oracle (section 2.1). */
#include <math.h>
#include <string.h>

#include "hetero_grid.h"

typedef struct {
    double eng, time;
    int64_t part;    /* grid units given to P_c */
    int32_t active;  /* processors with work in P_c..P_{p-1} */
    int32_t child;   /* entry index in PMem[c+1][w - part] */
} tup_t;

enum { CELL_UNVISITED = 0, CELL_NS = 1, CELL_FINAL = 2 };

/* The kernel recurses once per processor: bound the depth of the C stack. */
#define WPART_HETERO_MAX_P 10000

typedef struct {
    tup_t *v;
    int32_t n;
    int8_t state;
} cell_t;

typedef struct {
    tup_t *v;
    int64_t n, cap;
} stair_t;

typedef struct {
    const hg_grid_t *G;
    double eps;
    int drop;
    int64_t *sigma;     /* p */
    int64_t **scan;     /* per processor: point indices by (e asc, size asc), e <= eps, u <= N */
    int64_t *nscan;
    cell_t *cells;      /* (p-1) x (N+1) */
    stair_t *stairs;    /* one building staircase per level */
    wpart_hetero_stats_t *stats;
    const wpart_control_t *ctl;
    double t0;
    int64_t polls;
    double *lbe, *lbt;  /* p x (N+1): least energy / least time of sub-problem (c, w) */
} hp_ctx_t;

/* Insert cand into S (energy ascending, time strictly descending); spec 2.4.3 PARETO_INSERT. */
static wpart_status_t stair_insert(stair_t *S, const tup_t *cand)
{
    int64_t lo = 0, hi = S->n;
    while (lo < hi) { /* first entry with eng >= cand.eng */
        int64_t mid = lo + (hi - lo) / 2;
        if (S->v[mid].eng < cand->eng) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    int64_t k = lo;
    if (k < S->n && S->v[k].eng == cand->eng) {
        if (S->v[k].time > cand->time ||
            (S->v[k].time == cand->time && cand->active < S->v[k].active)) {
            S->v[k] = *cand;
            int64_t e = k + 1;
            while (e < S->n && S->v[e].time >= cand->time) {
                e++;
            }
            memmove(S->v + k + 1, S->v + e, (size_t)(S->n - e) * sizeof(tup_t));
            S->n -= e - (k + 1);
        }
        return WPART_OK;
    }
    if (k > 0 && S->v[k - 1].time <= cand->time) {
        return WPART_OK;
    }
    int64_t e = k;
    while (e < S->n && S->v[e].time >= cand->time) {
        e++;
    }
    if (e == k) { /* pure insertion */
        if (S->n == S->cap) {
            int64_t nc = S->cap ? 2 * S->cap : 16;
            tup_t *nv = wpart_i_realloc(S->v, nc, sizeof(tup_t));
            if (!nv) {
                return wpart_i_error(WPART_ENOMEM, "staircase of %" PRId64 " entries", nc);
            }
            S->v = nv;
            S->cap = nc;
        }
        memmove(S->v + k + 1, S->v + k, (size_t)(S->n - k) * sizeof(tup_t));
        S->v[k] = *cand;
        S->n++;
    } else { /* replace the dominated run [k, e) by cand */
        S->v[k] = *cand;
        memmove(S->v + k + 1, S->v + e, (size_t)(S->n - e) * sizeof(tup_t));
        S->n -= e - (k + 1);
    }
    return WPART_OK;
}

/* True when some entry of S strictly dominates every candidate with energy >= e and time >= t
 * (so none of them can enter S, and skipping them leaves S bit-identical). */
static int stair_dominates(const stair_t *S, double e, double t)
{
    int64_t lo = 0, hi = S->n;
    while (lo < hi) { /* first entry with eng >= e */
        int64_t mid = lo + (hi - lo) / 2;
        if (S->v[mid].eng < e) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo > 0 && S->v[lo - 1].time <= t) {
        return 1; /* eng < e, time <= t */
    }
    return lo < S->n && S->v[lo].eng == e && S->v[lo].time < t;
}

static wpart_status_t kernel(hp_ctx_t *X, int64_t c, int64_t w, cell_t **res)
{
    wpart_status_t st = WPART_OK;
    const hg_grid_t *G = X->G;
    int64_t p = G->p, N = G->N, n1 = N + 1;
    *res = NULL;
    if (w > X->sigma[c]) {
        X->stats->cuts++;
        return WPART_OK;
    }
    cell_t *cell = X->cells + c * n1 + w;
    if (cell->state != CELL_UNVISITED) {
        X->stats->memo_hits++;
        *res = cell->state == CELL_FINAL ? cell : NULL;
        return WPART_OK;
    }
    if ((++X->polls & 255) == 0) {
        WPART_CHECK(wpart_i_poll(X->ctl, X->t0, 0.0, 1.0));
    }
    stair_t *S = X->stairs + c;
    S->n = 0;
    int64_t ns = X->nscan[c];
    for (int64_t s = -1; s < ns; s++) {
        if ((++X->polls & 1023) == 0) { /* cells with many sizes poll inside the scan too */
            WPART_CHECK(wpart_i_poll(X->ctl, X->t0, 0.0, 1.0));
        }
        int64_t u = 0;
        double tx = 0.0, ex = 0.0;
        int32_t ax = 0;
        if (s >= 0) {
            int64_t j = X->scan[c][s];
            u = G->u[j];
            if (u > w) {
                continue;
            }
            tx = G->t[j];
            ex = G->e[j];
            ax = 1;
        }
        if (s >= 0) {
            const double *be = X->lbe + (c + 1) * n1, *bt = X->lbt + (c + 1) * n1;
            double lbe = ex + be[w - u];
            if (be[w - u] == INFINITY || (X->drop && lbe > X->eps)) {
                X->stats->skipped++;
                goto next; /* no distribution of the rest, or all above epsilon */
            }
            if (stair_dominates(S, lbe, tx > bt[w - u] ? tx : bt[w - u])) {
                X->stats->skipped++;
                goto next; /* every candidate of x is dominated */
            }
        }
        int64_t r = w - u;
        const tup_t *sub;
        int64_t nsub;
        tup_t leaf;
        if (c + 1 == p - 1) { /* leaf level, not memoised */
            if (r > X->sigma[c + 1]) {
                X->stats->cuts++;
                goto next;
            }
            if (r == 0) {
                leaf = (tup_t){0.0, 0.0, 0, 0, -1};
            } else {
                int64_t j = G->idx[(p - 1) * n1 + r];
                if (j < 0 || G->e[j] > X->eps) {
                    goto next;
                }
                leaf = (tup_t){G->e[j], G->t[j], r, 1, -1};
            }
            sub = &leaf;
            nsub = 1;
        } else {
            cell_t *ch;
            WPART_CHECK(kernel(X, c + 1, r, &ch));
            if (!ch) {
                goto next;
            }
            sub = ch->v;
            nsub = ch->n;
            if (s >= 0 && stair_dominates(S, ex + sub[0].eng, tx)) {
                X->stats->skipped++;
                goto next;
            }
        }
        for (int64_t k = 0; k < nsub; k++) {
            tup_t cand;
            cand.eng = ex + sub[k].eng;
            if (X->drop && cand.eng > X->eps) {
                break; /* later entries cost even more */
            }
            cand.time = tx > sub[k].time ? tx : sub[k].time;
            cand.part = u;
            cand.active = ax + sub[k].active;
            cand.child = (int32_t)k;
            X->stats->candidates++;
            WPART_CHECK(stair_insert(S, &cand));
            if (sub[k].time <= tx) {
                break; /* every later entry is dominated */
            }
        }
    next:
        if (w == 0) {
            break; /* only x = 0 fits */
        }
    }
    X->stats->cells++;
    if (S->n == 0) {
        cell->state = CELL_NS;
        return WPART_OK;
    }
    cell->v = wpart_i_malloc(S->n, sizeof(tup_t));
    if (!cell->v) {
        WPART_FAIL(WPART_ENOMEM, "memo cell of %" PRId64 " entries", S->n);
    }
    memcpy(cell->v, S->v, (size_t)S->n * sizeof(tup_t));
    cell->n = (int32_t)S->n;
    cell->state = CELL_FINAL;
    X->stats->peak_tuples += S->n;
    *res = cell;
cleanup:
    return st;
}

/* stable merge sort of a scan list by (e asc, size asc) */
static void sort_scan(int64_t *a, int64_t n, int64_t *tmp, const double *e, const int64_t *u)
{
    if (n < 2) {
        return;
    }
    int64_t h = n / 2;
    sort_scan(a, h, tmp, e, u);
    sort_scan(a + h, n - h, tmp, e, u);
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        int64_t x = a[i], y = a[j];
        int le = e[x] < e[y] || (e[x] == e[y] && u[x] <= u[y]);
        tmp[k++] = le ? a[i++] : a[j++];
    }
    while (i < h) {
        tmp[k++] = a[i++];
    }
    while (j < n) {
        tmp[k++] = a[j++];
    }
    memcpy(a, tmp, (size_t)n * sizeof(int64_t));
}

static wpart_status_t hepopta_grid(const hg_grid_t *G, const wpart_hetero_options_t *opt,
                                   wpart_hetero_front_t *out, wpart_hetero_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    int64_t p = G->p, N = G->N, n1 = N + 1;
    hp_ctx_t X;
    memset(&X, 0, sizeof X);
    int64_t *x0 = NULL, *tmp = NULL;
    int64_t ncells = 0;
    X.G = G;
    X.stats = stats;
    X.ctl = opt->control;
    X.t0 = wpart_i_now();
    X.drop = opt->drop_above_eps;
    out->p = p;
    stats->t_opt = NAN;
    stats->energy_threshold = NAN;
    stats->granularity = G->g;
    if (!G->feasible_grid) {
        return hg_front_alloc(out, p, 0);
    }
    if (N == 0) {
        stats->t_opt = 0.0;
        return hg_front_alloc(out, p, 1);
    }
    if (p == 1) {
        int64_t j = G->idx[N];
        if (j < 0) {
            return hg_front_alloc(out, p, 0);
        }
        if (!isnan(opt->energy_threshold) && opt->energy_threshold < G->e[j]) {
            WPART_FAIL(WPART_EINVAL, /* (the one distribution is the time-optimal one) */
                       "energy_threshold = %.17g is below the energy %.17g of the time-optimal "
                       "distribution: the front would be incomplete", opt->energy_threshold,
                       G->e[j]);
        }
        WPART_CHECK(hg_front_alloc(out, p, 1));
        out->energy[0] = out->dynamic_energy[0] = G->e[j];
        out->time[0] = G->t[j];
        out->dist[0] = N * G->g;
        stats->t_opt = G->t[j];
        stats->energy_threshold = G->e[j];
        return WPART_OK;
    }
    x0 = wpart_i_malloc(p, sizeof(int64_t));
    if (!x0) {
        WPART_FAIL(WPART_ENOMEM, "p shares");
    }
    int feasible;
    double topt, etopt;
    WPART_CHECK(hg_time_optimal(G, opt->control, X.t0, &feasible, &topt, &etopt, x0));
    if (!feasible) {
        WPART_CHECK(hg_front_alloc(out, p, 0));
        goto cleanup;
    }
    stats->t_opt = topt;
    double eps = opt->energy_threshold;
    if (isnan(eps)) {
        eps = etopt;
    } else if (eps < etopt) {
        WPART_FAIL(WPART_EINVAL,
                   "energy_threshold = %.17g is below the energy %.17g of the time-optimal "
                   "distribution: the front would be incomplete", eps, etopt);
    }
    X.eps = eps;
    stats->energy_threshold = eps;
    /* scan lists and size thresholds (SizeThresholdCalc) */
    X.sigma = wpart_i_calloc(p, sizeof(int64_t));
    X.scan = wpart_i_calloc(p, sizeof(int64_t *));
    X.nscan = wpart_i_calloc(p, sizeof(int64_t));
    X.stairs = wpart_i_calloc(p, sizeof(stair_t));
    tmp = wpart_i_malloc(G->off[p] > 0 ? G->off[p] : 1, sizeof(int64_t));
    if (!wpart_i_mul_size(p - 1, n1, &ncells)) {
        WPART_FAIL(WPART_EOVERFLOW, "memo table");
    }
    X.cells = wpart_i_calloc(ncells, sizeof(cell_t));
    if (!X.sigma || !X.scan || !X.nscan || !X.stairs || !tmp || !X.cells) {
        WPART_FAIL(WPART_ENOMEM, "memo table of %" PRId64 " cells", ncells);
    }
    hg_poll_t pl = hg_poll_init(opt->control, X.t0);
    int64_t acc = 0;
    for (int64_t i = p - 1; i >= 0; i--) {
        int64_t m = G->off[i + 1] - G->off[i], k = 0, cap = 0;
        X.scan[i] = wpart_i_malloc(m > 0 ? m : 1, sizeof(int64_t));
        if (!X.scan[i]) {
            WPART_FAIL(WPART_ENOMEM, "scan list");
        }
        for (int64_t j = G->off[i]; j < G->off[i + 1]; j++) {
            if (G->u[j] <= N && G->e[j] <= eps) {
                X.scan[i][k++] = j;
                cap = G->u[j] > cap ? G->u[j] : cap;
            }
        }
        sort_scan(X.scan[i], k, tmp, G->e, G->u);
        WPART_CHECK(hg_tick(&pl, 8 * m));
        X.nscan[i] = k;
        acc += cap;
        X.sigma[i] = acc;
    }
    /* exact least energy and least time of every sub-problem (c, w) over the points within
     * epsilon: lower bounds that skip sizes whose candidates would all be dominated */
    X.lbe = wpart_i_malloc(p * n1, sizeof(double));
    X.lbt = wpart_i_malloc(p * n1, sizeof(double));
    if (!X.lbe || !X.lbt) {
        WPART_FAIL(WPART_ENOMEM, "bounds of %" PRId64 " cells", p * n1);
    }
    for (int64_t c = p - 1; c >= 1; c--) {
        double *E = X.lbe + c * n1, *T = X.lbt + c * n1;
        const double *En = c + 1 < p ? X.lbe + (c + 1) * n1 : NULL;
        const double *Tn = c + 1 < p ? X.lbt + (c + 1) * n1 : NULL;
        for (int64_t w = 0; w <= N; w++) {
            E[w] = En ? En[w] : (w == 0 ? 0.0 : INFINITY);
            T[w] = Tn ? Tn[w] : (w == 0 ? 0.0 : INFINITY);
        }
        WPART_CHECK(hg_tick(&pl, n1));
        for (int64_t s = 0; s < X.nscan[c]; s++) {
            int64_t j = X.scan[c][s], u = G->u[j];
            double ej = G->e[j], tj = G->t[j];
            WPART_CHECK(hg_tick(&pl, 1 + n1 - u));
            for (int64_t w = u; w <= N; w++) {
                double re = En ? En[w - u] : (w == u ? 0.0 : INFINITY);
                double rt = Tn ? Tn[w - u] : (w == u ? 0.0 : INFINITY);
                if (re != INFINITY) {
                    double v = ej + re;
                    E[w] = v < E[w] ? v : E[w];
                    double tt = tj > rt ? tj : rt;
                    T[w] = tt < T[w] ? tt : T[w];
                }
            }
        }
    }
    cell_t *root;
    WPART_CHECK(kernel(&X, 0, N, &root));
    if (!root) {
        WPART_FAIL(WPART_EINTERNAL, "HEPOPTA found no solution although TOPT did");
    }
    WPART_CHECK(hg_front_alloc(out, p, root->n));
    for (int64_t a = 0; a < root->n; a++) {
        const tup_t *cur = root->v + a;
        int64_t *d = out->dist + a * p;
        out->energy[a] = out->dynamic_energy[a] = cur->eng;
        out->time[a] = cur->time;
        d[0] = cur->part;
        int64_t w = N - cur->part;
        for (int64_t c = 1; c <= p - 2; c++) {
            const cell_t *cl = X.cells + c * n1 + w;
            if (cl->state != CELL_FINAL || cur->child < 0 || cur->child >= cl->n) {
                WPART_FAIL(WPART_EINTERNAL, "HEPOPTA: broken back-pointer");
            }
            cur = cl->v + cur->child;
            d[c] = cur->part;
            w -= cur->part;
        }
        d[p - 1] = w;
        for (int64_t i = 0; i < p; i++) {
            d[i] *= G->g;
        }
    }
    if (out->time[out->count - 1] != topt) {
        WPART_FAIL(WPART_EINTERNAL, "HEPOPTA: fastest point differs from TOPT");
    }
cleanup:
    if (st != WPART_OK) {
        wpart_hetero_front_free(out);
    }
    if (X.cells) {
        for (int64_t k = 0; k < ncells; k++) {
            free(X.cells[k].v);
        }
    }
    if (X.scan) {
        for (int64_t i = 0; i < p; i++) {
            free(X.scan[i]);
        }
    }
    if (X.stairs) {
        for (int64_t i = 0; i < p; i++) {
            free(X.stairs[i].v);
        }
    }
    free(X.cells);
    free(X.scan);
    free(X.nscan);
    free(X.sigma);
    free(X.stairs);
    free(X.lbe);
    free(X.lbt);
    free(x0);
    free(tmp);
    return st;
}

wpart_status_t wpart_hetero_hepopta(int64_t n, const wpart_hetero_profiles_t *P,
                                    const wpart_hetero_options_t *opt, wpart_hetero_front_t *out,
                                    wpart_hetero_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    wpart_hetero_options_t dflt;
    wpart_hetero_stats_t local;
    opt = hg_options(opt, &dflt);
    if (!stats) {
        stats = &local;
    }
    memset(stats, 0, sizeof *stats);
    memset(out, 0, sizeof *out);
    double t0 = wpart_i_now();
    hg_grid_t G = {0};
    if (!isnan(opt->energy_threshold) && !(opt->energy_threshold >= 0)) {
        WPART_FAIL(WPART_EINVAL, "energy_threshold must be >= 0 or NaN, got %g",
                   opt->energy_threshold);
    }
    WPART_CHECK(hg_grid_init(&G, n, P, opt->max_grid));
    if (G.p > WPART_HETERO_MAX_P) {
        WPART_FAIL(WPART_ELIMIT, "HEPOPTA supports at most %d processors, got %" PRId64,
                   WPART_HETERO_MAX_P, G.p);
    }
    WPART_CHECK(hepopta_grid(&G, opt, out, stats));
cleanup:
    hg_grid_free(&G);
    stats->seconds = wpart_i_now() - t0;
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* HTPOPTA (spec 2.6)                                                                         */

typedef struct {
    double te, t;
    int64_t active, k;
} te_t;

static int cmp_te(const void *a, const void *b)
{
    const te_t *x = a, *y = b;
    if (x->te != y->te) {
        return x->te < y->te ? -1 : 1;
    }
    if (x->t != y->t) {
        return x->t < y->t ? -1 : 1;
    }
    if (x->active != y->active) {
        return x->active < y->active ? -1 : 1;
    }
    return (x->k > y->k) - (x->k < y->k);
}

wpart_status_t wpart_hetero_total_energy_front(const wpart_hetero_front_t *ep,
                                               double static_power, wpart_hetero_front_t *out)
{
    wpart_status_t st = WPART_OK;
    te_t *v = NULL;
    memset(out, 0, sizeof *out);
    if (!isfinite(static_power) || static_power < 0) {
        WPART_FAIL(WPART_EINVAL, "static_power must be finite and >= 0, got %g", static_power);
    }
    int64_t k = ep->count, p = ep->p;
    v = wpart_i_malloc(k > 0 ? k : 1, sizeof(te_t));
    if (!v) {
        WPART_FAIL(WPART_ENOMEM, "total-energy front");
    }
    for (int64_t a = 0; a < k; a++) {
        v[a].te = ep->dynamic_energy[a] + static_power * ep->time[a];
        if (!isfinite(v[a].te)) {
            WPART_FAIL(WPART_EINVAL,
                       "static_power x time + dynamic energy overflows float64 "
                       "(%g W x %g s + %g J); rescale the units", static_power, ep->time[a],
                       ep->dynamic_energy[a]);
        }
        v[a].t = ep->time[a];
        v[a].k = a;
        v[a].active = 0;
        for (int64_t i = 0; i < p; i++) {
            v[a].active += ep->dist[a * p + i] > 0;
        }
    }
    qsort(v, (size_t)k, sizeof(te_t), cmp_te);
    int64_t cnt = 0;
    double tmin = INFINITY, last = NAN;
    for (int64_t a = 0; a < k; a++) {
        if (v[a].te == last) {
            continue; /* the first of equal total energies (lower time, fewer active) stays */
        }
        last = v[a].te;
        if (v[a].t < tmin) {
            v[cnt++] = v[a];
            tmin = v[a].t;
        }
    }
    WPART_CHECK(hg_front_alloc(out, p, cnt));
    for (int64_t a = 0; a < cnt; a++) {
        int64_t b = v[a].k;
        out->energy[a] = v[a].te;
        out->dynamic_energy[a] = ep->dynamic_energy[b];
        out->time[a] = ep->time[b];
        memcpy(out->dist + a * p, ep->dist + b * p, (size_t)p * sizeof(int64_t));
    }
cleanup:
    free(v);
    return st;
}

wpart_status_t wpart_hetero_htpopta(int64_t n, const wpart_hetero_profiles_t *P,
                                    double static_power, const wpart_hetero_options_t *opt,
                                    wpart_hetero_front_t *out, wpart_hetero_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    wpart_hetero_front_t ep = {0};
    memset(out, 0, sizeof *out);
    if (!isfinite(static_power) || static_power < 0) {
        WPART_FAIL(WPART_EINVAL, "static_power must be finite and >= 0, got %g", static_power);
    }
    WPART_CHECK(wpart_hetero_hepopta(n, P, opt, &ep, stats));
    WPART_CHECK(wpart_hetero_total_energy_front(&ep, static_power, out));
cleanup:
    wpart_hetero_front_free(&ep);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Naive enumeration (spec 2.1)                                                               */

typedef struct {
    const hg_grid_t *G;
    int64_t *x;      /* current shares (grid units) */
    int64_t *pt;     /* current point index or -1 */
    /* staircase with distributions */
    double *e, *t;
    int64_t *a, *d;
    int64_t n, cap;
    int64_t leaves;
    const wpart_control_t *ctl;
    double t0, total; /* start time, leaves of the full tree (progress) */
} bf_t;

static wpart_status_t bf_insert(bf_t *B, double E, double T, int64_t A)
{
    int64_t p = B->G->p;
    int64_t lo = 0, hi = B->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (B->e[mid] < E) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    int64_t k = lo, e;
    if (k < B->n && B->e[k] == E) {
        if (!(B->t[k] > T || (B->t[k] == T && A < B->a[k]))) {
            return WPART_OK;
        }
        e = k + 1;
    } else {
        if (k > 0 && B->t[k - 1] <= T) {
            return WPART_OK;
        }
        e = k;
    }
    while (e < B->n && B->t[e] >= T) {
        e++;
    }
    /* replace [k, e) by one entry */
    int64_t shift = 1 - (e - k);
    if (B->n + shift > B->cap) {
        int64_t nc = B->cap ? 2 * B->cap : 16;
        int64_t ncp;
        double *ne = wpart_i_realloc(B->e, nc, sizeof(double));
        if (ne) B->e = ne;
        double *nt = wpart_i_realloc(B->t, nc, sizeof(double));
        if (nt) B->t = nt;
        int64_t *na = wpart_i_realloc(B->a, nc, sizeof(int64_t));
        if (na) B->a = na;
        int64_t *nd =
            wpart_i_mul_size(nc, p, &ncp) ? wpart_i_realloc(B->d, ncp, sizeof(int64_t)) : NULL;
        if (nd) B->d = nd;
        if (!ne || !nt || !na || !nd) {
            return wpart_i_error(WPART_ENOMEM, "enumeration front");
        }
        B->cap = nc;
    }
    int64_t tail = B->n - e;
    memmove(B->e + e + shift, B->e + e, (size_t)tail * sizeof(double));
    memmove(B->t + e + shift, B->t + e, (size_t)tail * sizeof(double));
    memmove(B->a + e + shift, B->a + e, (size_t)tail * sizeof(int64_t));
    memmove(B->d + (e + shift) * p, B->d + e * p, (size_t)(tail * p) * sizeof(int64_t));
    B->n += shift;
    B->e[k] = E;
    B->t[k] = T;
    B->a[k] = A;
    memcpy(B->d + k * p, B->x, (size_t)p * sizeof(int64_t));
    return WPART_OK;
}

static wpart_status_t bf_rec(bf_t *B, int64_t i, int64_t w)
{
    wpart_status_t st = WPART_OK;
    const hg_grid_t *G = B->G;
    int64_t p = G->p;
    if (i == p) {
        if ((++B->leaves & 4095) == 0) {
            WPART_CHECK(wpart_i_poll(B->ctl, B->t0, (double)B->leaves, B->total));
        }
        if (w != 0) {
            return WPART_OK;
        }
        double E = 0.0, T = 0.0;
        int64_t A = 0;
        for (int64_t q = p - 1; q >= 0; q--) {
            if (B->pt[q] >= 0) {
                E = G->e[B->pt[q]] + E;
                T = G->t[B->pt[q]] > T ? G->t[B->pt[q]] : T;
                A++;
            }
        }
        return bf_insert(B, E, T, A);
    }
    B->x[i] = 0;
    B->pt[i] = -1;
    WPART_CHECK(bf_rec(B, i + 1, w));
    for (int64_t j = G->off[i]; j < G->off[i + 1]; j++) {
        if (G->u[j] > w) {
            break;
        }
        B->x[i] = G->u[j];
        B->pt[i] = j;
        WPART_CHECK(bf_rec(B, i + 1, w - G->u[j]));
    }
    B->x[i] = 0;
    B->pt[i] = -1;
cleanup:
    return st;
}

wpart_status_t wpart_hetero_bruteforce(int64_t n, const wpart_hetero_profiles_t *P,
                                       int64_t max_leaves, wpart_hetero_front_t *out)
{
    return wpart_hetero_bruteforce_ctl(n, P, max_leaves, NULL, out);
}

wpart_status_t wpart_hetero_bruteforce_ctl(int64_t n, const wpart_hetero_profiles_t *P,
                                           int64_t max_leaves, const wpart_control_t *control,
                                           wpart_hetero_front_t *out)
{
    wpart_status_t st = WPART_OK;
    hg_grid_t G = {0};
    bf_t B;
    memset(&B, 0, sizeof B);
    memset(out, 0, sizeof *out);
    WPART_CHECK(hg_grid_init(&G, n, P, 0));
    out->p = G.p;
    if (G.p > WPART_HETERO_MAX_P) {
        WPART_FAIL(WPART_ELIMIT, "the enumeration supports at most %d processors, got %" PRId64,
                   WPART_HETERO_MAX_P, G.p);
    }
    double leaves = 1.0;
    for (int64_t i = 0; i < G.p; i++) {
        leaves *= (double)(G.off[i + 1] - G.off[i] + 1);
    }
    if (max_leaves > 0 && leaves > (double)max_leaves) {
        WPART_FAIL(WPART_ELIMIT, "enumeration would visit %.3g leaves > max_leaves = %" PRId64,
                   leaves, max_leaves);
    }
    if (!G.feasible_grid) {
        WPART_CHECK(hg_front_alloc(out, G.p, 0));
        goto cleanup;
    }
    B.G = &G;
    B.ctl = control;
    B.total = leaves;
    B.x = wpart_i_calloc(G.p, sizeof(int64_t));
    B.pt = wpart_i_calloc(G.p, sizeof(int64_t));
    B.t0 = wpart_i_now();
    if (!B.x || !B.pt) {
        WPART_FAIL(WPART_ENOMEM, "enumeration");
    }
    WPART_CHECK(bf_rec(&B, 0, G.N));
    WPART_CHECK(hg_front_alloc(out, G.p, B.n));
    for (int64_t a = 0; a < B.n; a++) {
        out->energy[a] = out->dynamic_energy[a] = B.e[a];
        out->time[a] = B.t[a];
        for (int64_t i = 0; i < G.p; i++) {
            out->dist[a * G.p + i] = B.d[a * G.p + i] * G.g;
        }
    }
cleanup:
    if (st != WPART_OK) {
        wpart_hetero_front_free(out);
    }
    free(B.x);
    free(B.pt);
    free(B.e);
    free(B.t);
    free(B.a);
    free(B.d);
    hg_grid_free(&G);
    return st;
}
