/*
 * baselines_pool.c -- the baselines without synchronisation (spec 001 §3.4, §3.5): Asymmetric
 * (a shared pool with piece sizes by PU kind), StaticPeak (one block per PU by peak rate),
 * DmdaLike (StarPU dmda-style push of every piece at start) and FixedBlocks (fixed per-PU
 * sizes, repeated; the oracle's stepped shares), plus the largest-remainder split.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baselines_internal.h"

/* ---------------------------------------------------------------- proportional split ---- */

static int split_cmp(const void *a, const void *b)
{
    const wpart_i_dyn_split_ws_t *x = a, *y = b;
    if (x->frac > y->frac) {
        return -1;
    }
    if (x->frac < y->frac) {
        return 1;
    }
    return (x->idx > y->idx) - (x->idx < y->idx);
}

void wpart_i_dyn_split(int32_t n, int64_t total, const double *w, int64_t *out,
                       wpart_i_dyn_split_ws_t *ws)
{
    long double s = 0.0L;
    for (int32_t p = 0; p < n; p++) {
        s += (long double)w[p];
    }
    int64_t given = 0;
    for (int32_t p = 0; p < n; p++) {
        long double share = (long double)total * ((long double)w[p] / s);
        long double fl = floorl(share);
        int64_t q = fl < 0 ? 0 : (fl > (long double)total ? total : (int64_t)fl);
        out[p] = q;
        given += q;
        ws[p].frac = (double)(share - fl);
        ws[p].idx = p;
    }
    /* rounding in long double can overshoot by a few elements: take them back from the
     * largest parts (ties to the highest index), one at a time */
    while (given > total) {
        int32_t best = -1;
        for (int32_t p = 0; p < n; p++) {
            if (out[p] > 0 && (best < 0 || out[p] >= out[best])) {
                best = p;
            }
        }
        out[best]--;
        given--;
    }
    int64_t r = total - given;
    if (r <= 0) {
        return;
    }
    qsort(ws, (size_t)n, sizeof *ws, split_cmp);
    /* only PUs with a positive weight receive the remainder */
    int32_t k = 0;
    while (r > 0) {
        int32_t p = ws[k % n].idx;
        if (w[p] > 0) {
            out[p]++;
            r--;
        }
        k++;
    }
}

wpart_status_t wpart_i_dyn_check_weights(int32_t n, const double *w, const char *name)
{
    wpart_status_t st = WPART_OK;
    double s = 0.0;
    if (!w) {
        WPART_FAIL(WPART_EINVAL, "%s is NULL", name);
    }
    for (int32_t p = 0; p < n; p++) {
        if (!(isfinite(w[p]) && w[p] >= 0)) {
            WPART_FAIL(WPART_EINVAL, "%s[%d] must be finite and >= 0, got %g", name,
                       (int)p, w[p]);
        }
        s += w[p];
    }
    if (!(s > 0) || !isfinite(s)) {
        WPART_FAIL(WPART_EINVAL, "%s must have a positive finite sum", name);
    }
cleanup:
    return st;
}

wpart_status_t wpart_dynamic_split_proportional(int32_t n, int64_t total, const double *w,
                                                int64_t *out)
{
    wpart_status_t st = WPART_OK;
    if (n < 1) {
        WPART_FAIL(WPART_EINVAL, "n must be >= 1, got %d", (int)n);
    }
    if (total < 0) {
        WPART_FAIL(WPART_EINVAL, "total must be >= 0, got %" PRId64, total);
    }
    if (!out) {
        WPART_FAIL(WPART_EINVAL, "out is NULL");
    }
    WPART_CHECK(wpart_i_dyn_check_weights(n, w, "weights"));
    wpart_i_dyn_split_ws_t *ws = wpart_i_malloc(n, sizeof *ws);
    if (!ws) {
        WPART_FAIL(WPART_ENOMEM, "split workspace");
    }
    wpart_i_dyn_split(n, total, w, out, ws);
    free(ws);
cleanup:
    return st;
}

/* ---------------------------------------------------------------- Asymmetric ------------ */

typedef struct {
    wpart_dynamic_balancer_t base;
    int64_t *piece; /* per PU */
} asym_t;

static wpart_status_t asym_start(wpart_dynamic_balancer_t *b, double now,
                                 wpart_dynamic_actions_t *out)
{
    return wpart_i_dyn_assign_each(b, out, ((asym_t *)b)->piece, 0, WPART_DYN_BLK_OTHER, 0, NULL,
                                   NULL);
}

static wpart_status_t asym_complete(wpart_dynamic_balancer_t *b,
                                    const wpart_dynamic_completion_t *c,
                                    wpart_dynamic_actions_t *out)
{
    asym_t *a = (asym_t *)b;
    return wpart_i_dyn_assign(b, out, c->pu, a->piece[c->pu], 1, WPART_DYN_BLK_OTHER, 0, 0, NAN,
                              NULL);
}

static void asym_destroy(wpart_dynamic_balancer_t *b) { free(((asym_t *)b)->piece); }

static const wpart_i_dyn_vtable_t asym_vt = {
    "asymmetric", asym_start, asym_complete, NULL, NULL, NULL, asym_destroy,
};

wpart_status_t wpart_dynamic_asymmetric_new(int32_t n_pu, int64_t total, const int32_t *kinds,
                                            int64_t g_cpu, int64_t ratio,
                                            wpart_dynamic_balancer_t **out)
{
    wpart_status_t st = WPART_OK;
    asym_t *a = NULL;
    wpart_dynamic_balancer_t *b = NULL;
    WPART_CHECK(wpart_i_dyn_out(out));
    if (n_pu < 1 || !kinds) {
        WPART_FAIL(WPART_EINVAL, "pu_kinds must hold n_pu >= 1 kinds");
    }
    if (g_cpu < 1) {
        WPART_FAIL(WPART_EINVAL, "g_cpu must be >= 1, got %" PRId64, g_cpu);
    }
    if (ratio < 1) {
        WPART_FAIL(WPART_EINVAL, "ratio must be >= 1, got %" PRId64, ratio);
    }
    if (g_cpu > INT64_MAX / ratio) {
        WPART_FAIL(WPART_EOVERFLOW, "g_cpu * ratio overflows int64");
    }
    for (int32_t p = 0; p < n_pu; p++) {
        if (kinds[p] < WPART_DYN_PU_CPU || kinds[p] > WPART_DYN_PU_PHI) {
            WPART_FAIL(WPART_EINVAL, "pu_kinds[%d] = %d is not a PU kind (0 cpu, 1 gpu, 2 phi)",
                       (int)p, (int)kinds[p]);
        }
    }
    WPART_CHECK(wpart_i_dyn_new(sizeof *a, &asym_vt, n_pu, total, (int64_t)n_pu + 1,
                                "asymmetric", &b));
    a = (asym_t *)b;
    a->piece = wpart_i_malloc(n_pu, sizeof(int64_t));
    for (int32_t p = 0; a->piece && p < n_pu; p++) {
        a->piece[p] = kinds[p] == WPART_DYN_PU_CPU ? g_cpu : g_cpu * ratio;
    }
    st = wpart_i_dyn_done(b, a->piece != NULL, "asymmetric", out);
cleanup:
    return st;
}

/* ---------------------------------------------------------------- StaticPeak ------------ */

/* One block per PU in proportion to its nominal peak rate: a Static balancer (balancer.c). */
wpart_status_t wpart_dynamic_static_peak_new(int32_t n_pu, int64_t total,
                                             const double *peak_rates,
                                             wpart_dynamic_balancer_t **out)
{
    wpart_status_t st = WPART_OK;
    int64_t *blocks = NULL;
    WPART_CHECK(wpart_i_dyn_out(out));
    if (n_pu < 1) {
        WPART_FAIL(WPART_EINVAL, "n_pu must be >= 1, got %d", (int)n_pu);
    }
    if (total < 1) {
        WPART_FAIL(WPART_EINVAL, "total must be >= 1, got %" PRId64, total);
    }
    WPART_CHECK(wpart_i_dyn_check_weights(n_pu, peak_rates, "peak_rates"));
    blocks = wpart_i_malloc(n_pu, sizeof(int64_t));
    if (!blocks) {
        WPART_FAIL(WPART_ENOMEM, "static_peak balancer");
    }
    WPART_CHECK(wpart_dynamic_split_proportional(n_pu, total, peak_rates, blocks));
    st = wpart_i_dyn_static_new(n_pu, blocks, 1, out);
cleanup:
    free(blocks);
    return st;
}

/* ---------------------------------------------------------------- DmdaLike -------------- */

static wpart_status_t no_more(wpart_dynamic_balancer_t *b, const wpart_dynamic_completion_t *c,
                              wpart_dynamic_actions_t *out)
{
    return WPART_OK; /* every piece was pushed at start */
}

#define DMDA_MAX_PIECES ((int64_t)1 << 26)

typedef struct {
    wpart_dynamic_balancer_t base;
    double *piece_time;
    double *avail; /* workspace of start */
    int64_t chunk;
} dmda_t;

static wpart_status_t dmda_start(wpart_dynamic_balancer_t *b, double now,
                                 wpart_dynamic_actions_t *out)
{
    dmda_t *d = (dmda_t *)b;
    wpart_status_t st = WPART_OK;
    double *avail = d->avail;
    for (int32_t p = 0; p < b->n; p++) {
        avail[p] = now;
    }
    while (b->cursor < b->total) {
        int64_t size = b->total - b->cursor < d->chunk ? b->total - b->cursor : d->chunk;
        double frac = (double)size / (double)d->chunk;
        int32_t best = 0;
        double best_end = INFINITY;
        for (int32_t p = 0; p < b->n; p++) {
            double end = avail[p] + d->piece_time[p] * frac;
            if (end < best_end) {
                best_end = end;
                best = p;
            }
        }
        avail[best] = best_end;
        WPART_CHECK(wpart_i_dyn_assign(b, out, best, size, 1, WPART_DYN_BLK_OTHER, 0, 0, best_end,
                                       NULL));
    }
cleanup:
    return st;
}

static void dmda_destroy(wpart_dynamic_balancer_t *b)
{
    free(((dmda_t *)b)->piece_time);
    free(((dmda_t *)b)->avail);
}

static const wpart_i_dyn_vtable_t dmda_vt = {
    "dmda_like", dmda_start, no_more, NULL, NULL, NULL, dmda_destroy,
};

wpart_status_t wpart_dynamic_dmda_new(int32_t n_pu, int64_t total, const double *piece_times,
                                      int64_t chunk, wpart_dynamic_balancer_t **out)
{
    wpart_status_t st = WPART_OK;
    dmda_t *d = NULL;
    wpart_dynamic_balancer_t *b = NULL;
    WPART_CHECK(wpart_i_dyn_out(out));
    if (n_pu < 1 || !piece_times) {
        WPART_FAIL(WPART_EINVAL, "piece_times must hold n_pu >= 1 times");
    }
    if (total < 1) {
        WPART_FAIL(WPART_EINVAL, "total must be >= 1, got %" PRId64, total);
    }
    if (chunk < 1) {
        WPART_FAIL(WPART_EINVAL, "chunk must be >= 1, got %" PRId64, chunk);
    }
    for (int32_t p = 0; p < n_pu; p++) {
        if (!(isfinite(piece_times[p]) && piece_times[p] > 0)) {
            WPART_FAIL(WPART_EINVAL, "piece_times[%d] must be finite and > 0, got %g",
                       (int)p, piece_times[p]);
        }
    }
    int64_t pieces = total / chunk + (total % chunk != 0);
    if (pieces > DMDA_MAX_PIECES) {
        WPART_FAIL(WPART_ELIMIT,
                   "total / chunk gives %" PRId64 " pieces, more than 2^26: raise chunk",
                   pieces);
    }
    WPART_CHECK(wpart_i_dyn_new(sizeof *d, &dmda_vt, n_pu, total, pieces + n_pu + 1, "dmda", &b));
    d = (dmda_t *)b;
    d->chunk = chunk;
    d->piece_time = wpart_i_dyn_dup(piece_times, n_pu, sizeof *piece_times);
    d->avail = wpart_i_malloc(n_pu, sizeof(double));
    st = wpart_i_dyn_done(b, d->piece_time && d->avail, "dmda", out);
cleanup:
    return st;
}

/* ---------------------------------------------------------------- FixedBlocks ----------- */

typedef struct {
    wpart_dynamic_balancer_t base;
    int64_t *blocks;
    int sync;
    int64_t outstanding; /* sync: blocks of the current step not finished */
    int32_t step;
} fixed_t;

static wpart_status_t fixed_step(wpart_dynamic_balancer_t *b, wpart_dynamic_actions_t *out)
{
    fixed_t *f = (fixed_t *)b;
    int64_t issued = 0;
    f->step++;
    wpart_status_t st = wpart_i_dyn_assign_each(b, out, f->blocks, 0, WPART_DYN_BLK_OTHER,
                                                f->sync ? f->step : 0, NULL, &issued);
    f->outstanding += issued;
    return st;
}

static wpart_status_t fixed_start(wpart_dynamic_balancer_t *b, double now,
                                  wpart_dynamic_actions_t *out)
{
    return fixed_step(b, out);
}

static wpart_status_t fixed_complete(wpart_dynamic_balancer_t *b,
                                     const wpart_dynamic_completion_t *c,
                                     wpart_dynamic_actions_t *out)
{
    fixed_t *f = (fixed_t *)b;
    if (!f->sync) {
        return wpart_i_dyn_assign(b, out, c->pu, f->blocks[c->pu], 1, WPART_DYN_BLK_OTHER, 0, 0,
                                  NAN, NULL);
    }
    if (--f->outstanding > 0) {
        return WPART_OK;
    }
    b->n_barriers++;
    return fixed_step(b, out);
}

static int fixed_idle(const wpart_dynamic_balancer_t *b, int32_t pu)
{
    const fixed_t *f = (const fixed_t *)b;
    return f->sync && f->blocks[pu] > 0 ? WPART_DYN_IDLE_BARRIER : WPART_DYN_IDLE_OTHER;
}

static void fixed_destroy(wpart_dynamic_balancer_t *b) { free(((fixed_t *)b)->blocks); }

static const wpart_i_dyn_vtable_t fixed_vt = {
    "fixed_blocks", fixed_start, fixed_complete, NULL, NULL, fixed_idle, fixed_destroy,
};

wpart_status_t wpart_dynamic_fixed_blocks_new(int32_t n_pu, int64_t total, const int64_t *blocks,
                                              int sync, wpart_dynamic_balancer_t **out)
{
    wpart_status_t st = WPART_OK;
    fixed_t *f = NULL;
    wpart_dynamic_balancer_t *b = NULL;
    WPART_CHECK(wpart_i_dyn_out(out));
    int64_t sum;
    int overflow;
    WPART_CHECK(wpart_i_dyn_check_blocks(n_pu, blocks, &sum, &overflow));
    if (sum == 0) {
        WPART_FAIL(WPART_EINVAL, "blocks must have at least one positive size");
    }
    WPART_CHECK(wpart_i_dyn_new(sizeof *f, &fixed_vt, n_pu, total, (int64_t)n_pu + 1,
                                "fixed_blocks", &b));
    f = (fixed_t *)b;
    f->sync = sync != 0;
    f->blocks = wpart_i_dyn_dup(blocks, n_pu, sizeof *blocks);
    st = wpart_i_dyn_done(b, f->blocks != NULL, "fixed_blocks", out);
cleanup:
    return st;
}
