/*
 * split.c -- partitions of a multi-kernel run [Soldado 2016]: the quantum of an execution,
 * SPLIT (shares -> contiguous partitions respecting every quantum), the static distribution
 * among GPUs, the empty-base seed, the level of parallelism and the GPU occupancy model.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "wpart/multikernel.h"

wpart_status_t wpart_multikernel_quantum(int32_t n, const int64_t *a, const int64_t *b, int64_t *q_out)
{
    wpart_status_t st = WPART_OK;
    if (!q_out || n < 0 || (n > 0 && (!a || !b))) {
        WPART_FAIL(WPART_EINVAL, "quantum: NULL argument or negative count");
    }
    int64_t q = 1;
    for (int32_t i = 0; i < n; i++) {
        if (a[i] < 1 || b[i] < 1) {
            WPART_FAIL(WPART_EINVAL,
                       "constraint %d: a and b must be >= 1, got (%" PRId64
                       ", %" PRId64 ")",
                       (int)i, a[i], b[i]);
        }
        int64_t need = b[i] / wpart_i_gcd64(a[i], b[i]);
        int64_t g = wpart_i_gcd64(q, need);
        int64_t f = need / g;
        if (q > INT64_MAX / f) {
            WPART_FAIL(WPART_EOVERFLOW, "the quantum overflows int64");
        }
        q *= f;
    }
    *q_out = q;
cleanup:
    return st;
}

wpart_status_t wpart_multikernel_exclusive_scan(int32_t n, const int64_t *in, int64_t *out)
{
    wpart_status_t st = WPART_OK;
    if (n < 0 || (n > 0 && (!in || !out))) {
        WPART_FAIL(WPART_EINVAL, "exclusive_scan: NULL argument or negative count");
    }
    int64_t acc = 0;
    for (int32_t i = 0; i < n; i++) {
        int64_t v = in[i];
        out[i] = acc;
        if ((v > 0 && acc > INT64_MAX - v) || (v < 0 && acc < INT64_MIN - v)) {
            WPART_FAIL(WPART_EOVERFLOW, "the prefix sum overflows int64");
        }
        acc += v;
    }
cleanup:
    return st;
}

/* An execution in the greedy's order (split_exact.c sorts them). */
typedef struct {
    double r;
    int32_t e;
} multikernel_rem_t;

/* split_exact.c: exact whole quanta n0 and the greedy's order of the executions */
wpart_status_t wpart_i_mk_split_start(int64_t total, int32_t P, const double *shares,
                                      const int64_t *quanta, int64_t *n0, int32_t *order,
                                      int32_t *ne_out, void *scratch, int32_t *scratch_i,
                                      const wpart_control_t *ctl, double t0);

/* The sum of the live candidates' quanta, exact: up to 2^31 values below 2^63 (two words). */
typedef struct {
    uint64_t hi, lo;
} u128_t;

static void u128_add(u128_t *a, uint64_t v)
{
    uint64_t lo = a->lo + v;
    a->hi += lo < a->lo;
    a->lo = lo;
}

static void u128_sub(u128_t *a, uint64_t v)
{
    a->hi -= a->lo < v;
    a->lo -= v;
}

/*
 * The greedy of the rounding gives one quantum at a time to the execution with the largest
 * (target - n) / q among those whose quantum still fits the remainder R. Every execution
 * starts with a value in [0, 1) and each quantum lowers its value by exactly 1, so the picks
 * go round the executions in a fixed cyclic order (by starting value, ties to the lower index)
 * while the candidate set stays the same, and whole cycles can be given at once: the work is
 * independent of `total`. Values are compared as (cycles taken, starting value), which is
 * exact. The live cycle is a circular linked list (a candidate whose quantum no longer fits
 * leaves in O(1), and R only decreases, so it never comes back) and the sum of its quanta is
 * kept as candidates leave, so that the rounding costs O(P log P) (the sort) plus O(P) per
 * pass of single picks; the walk stops as soon as R is 0 and polls `ctl` (Ctrl-C) every 4096
 * steps.
 */
wpart_status_t wpart_multikernel_split_ctl(int64_t total, int32_t P, const double *shares,
                                           const int64_t *quanta, int64_t *sizes_out,
                                           int64_t *offsets_out, const wpart_control_t *ctl)
{
    wpart_status_t st = WPART_OK;
    multikernel_rem_t *ord = NULL, *tmp = NULL;
    int32_t *nxt = NULL, *prv = NULL;
    const double t0 = wpart_i_now();
    if (P < 1) {
        return wpart_i_error(WPART_EINVAL, "shares: need at least one execution, got %d",
                             (int)P);
    }
    if (!shares || !quanta || !sizes_out) {
        return wpart_i_error(WPART_EINVAL, "split: NULL argument");
    }
    if (total < 0) {
        return wpart_i_error(WPART_EINVAL, "total must be >= 0, got %" PRId64, total);
    }
    double sum = 0.0;
    int32_t last = -1;
    for (int32_t e = 0; e < P; e++) {
        double s = shares[e];
        if (!(s >= 0.0) || !isfinite(s)) {
            return wpart_i_error(WPART_EINVAL, "shares[%d] must be finite and >= 0, got %g",
                                 (int)e, s);
        }
        if (quanta[e] < 1) {
            return wpart_i_error(WPART_EINVAL, "quanta[%d] must be >= 1, got %" PRId64, (int)e,
                                 quanta[e]);
        }
        sum += s;
        if (s > 0.0) {
            last = e;
        }
    }
    if (!(sum > 0.0) || !isfinite(sum)) {
        return wpart_i_error(WPART_EINVAL, "shares must have a positive finite sum, got %g", sum);
    }
    /* one scratch buffer carved into ord, tmp, nxt, prv (40 bytes per execution): four
       separate chunks above glibc's dynamic mmap threshold came back to the OS at the end of
       every call (the heap top they leave exceeds the trim threshold, twice the largest one),
       so the next call faulted them all in again (~1 fault per 100 executions, ~15 % of the
       time); one chunk of the same size stays in the heap from the second call on (up to
       glibc's 32 MB cap on that threshold, ~800 000 executions) */
    ord = wpart_i_malloc(P, 2 * sizeof *ord + sizeof *nxt + sizeof *prv);
    if (!ord) {
        WPART_FAIL(WPART_ENOMEM, "split of %d executions", (int)P);
    }
    tmp = ord + P;
    nxt = (int32_t *)(tmp + P);
    prv = nxt + P;
    /* whole quanta below each target, and the greedy's order, by the rule's exact arithmetic
       (split_exact.c): ties and floors are the rule's, not the float rounding's */
    int32_t ne = 0;
    _Static_assert(sizeof(multikernel_rem_t) == 16, "split_exact.c's intervals use ord");
    WPART_CHECK(wpart_i_mk_split_start(total, P, shares, quanta, sizes_out, nxt, &ne, ord, prv,
                                       ctl, t0)); /* ord and tmp: 2 P scratch entries */
    uint64_t assigned = 0; /* each n0 <= its target: the sum is <= total */
    for (int32_t k = 0; k < ne; k++) {
        ord[k].e = nxt[k];
        ord[k].r = 0.0;
        assigned += (uint64_t)sizes_out[nxt[k]];
    }
    if (assigned > (uint64_t)total) {
        WPART_FAIL(WPART_EINTERNAL, "split: the whole quanta exceed the total");
    }
    int64_t R = (int64_t)((uint64_t)total - assigned);
    /* cyclic greedy over the candidates (quantum <= R): ord[0..nc) linked in a circle */
    int32_t nc = 0;
    u128_t cyc = {0, 0};
    for (int32_t k = 0; k < ne; k++) {
        if (quanta[ord[k].e] <= R) {
            ord[nc++] = ord[k];
            u128_add(&cyc, (uint64_t)quanta[ord[k].e]);
        }
    }
    for (int32_t k = 0; k < nc; k++) {
        nxt[k] = k + 1 < nc ? k + 1 : 0;
        prv[k] = k > 0 ? k - 1 : nc - 1;
    }
    int32_t pos = 0; /* the next candidate to visit */
    int64_t steps = 0;
    while (nc > 0 && R > 0) {
        /* whole cycles at once while every candidate fits */
        if (cyc.hi == 0 && cyc.lo <= (uint64_t)R) {
            int64_t c = R / (int64_t)cyc.lo;
            int32_t k = pos;
            for (int32_t v = 0; v < nc; v++, k = nxt[k]) {
                sizes_out[ord[k].e] += c * quanta[ord[k].e];
            }
            R -= c * (int64_t)cyc.lo;
            steps += nc;
        }
        /* then one pass of single picks; a candidate whose quantum no longer fits leaves */
        int32_t visits = nc;
        while (visits-- > 0 && nc > 0 && R > 0) {
            if ((++steps & 4095) == 0) {
                WPART_CHECK(wpart_i_poll(ctl, t0, 0.0, 0.0));
            }
            int32_t e = ord[pos].e;
            if (quanta[e] <= R) {
                sizes_out[e] += quanta[e];
                R -= quanta[e];
                pos = nxt[pos];
            } else {
                u128_sub(&cyc, (uint64_t)quanta[e]);
                int32_t a = prv[pos], b = nxt[pos];
                nxt[a] = b;
                prv[b] = a;
                nc--;
                pos = b;
            }
        }
    }
    if (R > 0) {
        sizes_out[last] += R; /* the tail: less than every candidate's quantum */
    }
    if (offsets_out) {
        WPART_CHECK(wpart_multikernel_exclusive_scan(P, sizes_out, offsets_out));
    }
cleanup:
    free(ord); /* tmp, nxt and prv are parts of it */
    return st;
}

wpart_status_t wpart_multikernel_split(int64_t total, int32_t P, const double *shares,
                                       const int64_t *quanta, int64_t *sizes_out,
                                       int64_t *offsets_out)
{
    return wpart_multikernel_split_ctl(total, P, shares, quanta, sizes_out, offsets_out, NULL);
}

wpart_status_t wpart_multikernel_level_of_parallelism(int32_t cpu_subdevices, int32_t overlap,
                                             int32_t n_gpus, int cpu_used, int gpu_used,
                                             int64_t *lop_out)
{
    wpart_status_t st = WPART_OK;
    if (!lop_out || cpu_subdevices < 1 || overlap < 1 || n_gpus < 0) {
        WPART_FAIL(WPART_EINVAL,
                   "level of parallelism: need cpu_subdevices >= 1, overlap >= 1, "
                   "n_gpus >= 0");
    }
    *lop_out = (cpu_used ? (int64_t)cpu_subdevices : 0) +
               (gpu_used ? (int64_t)overlap * (int64_t)n_gpus : 0);
cleanup:
    return st;
}

static wpart_status_t check_scores(int32_t n, const double *score, double *sum_out)
{
    wpart_status_t st = WPART_OK;
    if (n < 0 || (n > 0 && !score)) {
        WPART_FAIL(WPART_EINVAL, "gpu_scores: NULL or negative count");
    }
    double s = 0.0;
    for (int32_t g = 0; g < n; g++) {
        if (!(score[g] >= 0.0) || !isfinite(score[g])) {
            WPART_FAIL(WPART_EINVAL, "gpu_scores[%d] must be finite and >= 0, got %g",
                       (int)g, score[g]);
        }
        s += score[g];
    }
    if (!isfinite(s)) {
        WPART_FAIL(WPART_EINVAL, "gpu_scores must have a finite sum");
    }
    *sum_out = s;
cleanup:
    return st;
}

wpart_status_t wpart_multikernel_seed_share(int32_t n_gpu, const double *gpu_score, double cpu_score,
                                   double *s_out)
{
    wpart_status_t st = WPART_OK;
    double sg;
    WPART_CHECK(check_scores(n_gpu, gpu_score, &sg));
    if (!(cpu_score >= 0.0) || !isfinite(cpu_score) || !(sg + cpu_score > 0.0) || !s_out) {
        WPART_FAIL(WPART_EINVAL,
                   "cpu_score must be finite and >= 0, with a positive total score");
    }
    *s_out = sg / (sg + cpu_score);
cleanup:
    return st;
}

wpart_status_t wpart_multikernel_gpu_fractions(int32_t n_gpu, const double *gpu_score, double s,
                                      double *frac_out)
{
    wpart_status_t st = WPART_OK;
    double sg;
    WPART_CHECK(check_scores(n_gpu, gpu_score, &sg));
    if (!(s >= 0.0 && s <= 1.0) || (n_gpu > 0 && !frac_out)) {
        WPART_FAIL(WPART_EINVAL, "s must be in [0, 1], got %g", s);
    }
    if (n_gpu > 0 && !(sg > 0.0)) {
        WPART_FAIL(WPART_EINVAL, "gpu_scores must have a positive sum");
    }
    for (int32_t g = 0; g < n_gpu; g++) {
        frac_out[g] = s * (gpu_score[g] / sg);
    }
cleanup:
    return st;
}

wpart_status_t wpart_multikernel_exec_shares(double s, int32_t n_gpu, const double *gpu_score,
                                    int32_t overlap, int32_t cpu_subdevices, double *phi_out)
{
    wpart_status_t st = WPART_OK;
    if (overlap < 1 || cpu_subdevices < 0 || !phi_out) {
        WPART_FAIL(WPART_EINVAL, "exec_shares: need overlap >= 1, cpu_subdevices >= 0");
    }
    if (n_gpu == 0 && s != 0.0) {
        WPART_FAIL(WPART_EINVAL, "s must be 0 without GPUs, got %g", s);
    }
    if (cpu_subdevices == 0 && s != 1.0) {
        WPART_FAIL(WPART_EINVAL, "s must be 1 without CPU sub-devices, got %g", s);
    }
    double sg;
    WPART_CHECK(check_scores(n_gpu, gpu_score, &sg));
    if (!(s >= 0.0 && s <= 1.0)) {
        WPART_FAIL(WPART_EINVAL, "s must be in [0, 1], got %g", s);
    }
    if (n_gpu > 0 && !(sg > 0.0)) {
        WPART_FAIL(WPART_EINVAL, "gpu_scores must have a positive sum");
    }
    int64_t k = 0;
    for (int32_t g = 0; g < n_gpu; g++) {
        for (int32_t j = 0; j < overlap; j++) {
            phi_out[k++] = s * (gpu_score[g] / sg) / overlap;
        }
    }
    for (int32_t c = 0; c < cpu_subdevices; c++) {
        phi_out[k++] = (1.0 - s) / cpu_subdevices;
    }
cleanup:
    return st;
}

/* ---------------------------------------------------------------- occupancy ------------- */

void wpart_multikernel_gpu_caps_default(wpart_multikernel_gpu_caps_t *c)
{
    *c = (wpart_multikernel_gpu_caps_t){.wavefront = 64, .simds_cu = 4, .max_waves_simd = 10,
                                        .max_waves_cu = 40, .max_wg_cu = 16, .lds_cu = 65536,
                                        .vgprs_lane = 256, .max_wgs = 256};
}

static wpart_status_t check_caps(const wpart_multikernel_gpu_caps_t *c)
{
    wpart_status_t st = WPART_OK;
    if (!c || c->wavefront < 1 || c->simds_cu < 1 || c->max_waves_simd < 1 ||
        c->max_waves_cu < 1 || c->max_wg_cu < 1 || c->lds_cu < 0 || c->vgprs_lane < 1 ||
        c->max_wgs < 1) {
        WPART_FAIL(WPART_EINVAL, "caps: every capability must be >= 1");
    }
cleanup:
    return st;
}

wpart_status_t wpart_multikernel_occupancy(const wpart_multikernel_gpu_caps_t *c, int32_t wgs, int32_t lds_per_wg,
                                  int32_t vgpr_per_thread, double *occ_out)
{
    wpart_status_t st = WPART_OK;
    WPART_CHECK(check_caps(c));
    if (wgs < 1 || wgs > c->max_wgs) {
        WPART_FAIL(WPART_EINVAL, "wgs must be in [1, %d], got %d", (int)c->max_wgs,
                   (int)wgs);
    }
    if (lds_per_wg < 0 || vgpr_per_thread < 1 || !occ_out) {
        WPART_FAIL(WPART_EINVAL, "need lds_per_wg >= 0 and vgpr_per_thread >= 1");
    }
    int64_t waves_wg = (wgs + c->wavefront - 1) / c->wavefront;
    int64_t lim = c->max_waves_cu / waves_wg;
    if (c->max_wg_cu < lim) {
        lim = c->max_wg_cu;
    }
    if (lds_per_wg > 0 && c->lds_cu / lds_per_wg < lim) {
        lim = c->lds_cu / lds_per_wg;
    }
    int64_t per_simd = c->vgprs_lane / vgpr_per_thread;
    if (per_simd > c->max_waves_simd) {
        per_simd = c->max_waves_simd;
    }
    int64_t lim_vgpr = (int64_t)c->simds_cu * per_simd / waves_wg;
    if (lim_vgpr < lim) {
        lim = lim_vgpr;
    }
    double occ = (double)(lim * waves_wg) / (double)c->max_waves_cu;
    *occ_out = occ > 1.0 ? 1.0 : occ;
cleanup:
    return st;
}

wpart_status_t wpart_multikernel_wgs_candidates(const wpart_multikernel_gpu_caps_t *c, int32_t lds_per_wg,
                                       int32_t vgpr_per_thread, double threshold,
                                       int32_t *wgs_out, double *occ_out, int32_t cap,
                                       int32_t *count_out)
{
    wpart_status_t st = WPART_OK;
    WPART_CHECK(check_caps(c));
    if (!(threshold >= 0.0 && threshold <= 1.0) || cap < 0 || !count_out ||
        (cap > 0 && (!wgs_out || !occ_out))) {
        WPART_FAIL(WPART_EINVAL, "threshold must be in [0, 1], got %g", threshold);
    }
    int32_t nw = c->max_wgs / c->wavefront;
    if (nw < 1) {
        nw = 1;
    }
    int32_t *w = wpart_i_malloc(nw, sizeof *w);
    double *o = wpart_i_malloc(nw, sizeof *o);
    if (!w || !o) {
        free(w);
        free(o);
        WPART_FAIL(WPART_ENOMEM, "wgs candidates");
    }
    int32_t k = 0;
    for (int32_t i = 1; i <= nw; i++) {
        int32_t size = i * c->wavefront;
        if (size > c->max_wgs) {
            size = c->max_wgs;
        }
        st = wpart_multikernel_occupancy(c, size, lds_per_wg, vgpr_per_thread, &o[k]);
        if (st != WPART_OK) {
            free(w);
            free(o);
            return st;
        }
        w[k++] = size;
    }
    /* insertion sort: occupancy desc, then size desc */
    for (int32_t i = 1; i < k; i++) {
        int32_t wi = w[i];
        double oi = o[i];
        int32_t j = i - 1;
        while (j >= 0 && (o[j] < oi || (o[j] == oi && w[j] < wi))) {
            w[j + 1] = w[j];
            o[j + 1] = o[j];
            j--;
        }
        w[j + 1] = wi;
        o[j + 1] = oi;
    }
    int32_t keep = 0;
    while (keep < k && o[keep] >= threshold) {
        keep++;
    }
    if (keep == 0) {
        keep = 1;
    }
    if (keep > cap) {
        keep = cap;
    }
    for (int32_t i = 0; i < keep; i++) {
        wgs_out[i] = w[i];
        occ_out[i] = o[i];
    }
    *count_out = keep;
    free(w);
    free(o);
cleanup:
    return st;
}
