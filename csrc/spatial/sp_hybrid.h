/* sp_hybrid.h -- HYBRID (Sec. 5 of Saule et al. 2012): phase 1 on the window, proportional counts,
 * phase 2 per part, optional slow re-partition of the most loaded block; and the entry point
 * FN(partition) that dispatches between HYBRID and a single method.
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

static wpart_status_t FN(partition)(const T *S, int64_t n1, int64_t n2, int64_t m,
                                    const wpart_spatial_options_t *opt, int64_t *rects,
                                    wpart_spatial_stats_t *stats);

/* the part of the time limit left to a sub-run (its control's time_limit; its clock starts
 * at its own call), or WPART_ECANCELLED when none is left */
static wpart_status_t FN(budget)(const wpart_control_t *ctl, double t0, wpart_control_t *sub)
{
    if (ctl && ctl->time_limit > 0) {
        double left = ctl->time_limit - (wpart_i_now() - t0);
        if (!(left > 0)) {
            return wpart_i_error(WPART_ECANCELLED, "time limit of %g s reached",
                                 ctl->time_limit);
        }
        sub->time_limit = left;
    }
    return WPART_OK;
}

static wpart_status_t FN(hybrid)(const T *S, int64_t n1, int64_t n2, int64_t m,
                                 const wpart_spatial_options_t *opt, int64_t *rects,
                                 wpart_spatial_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    double t0 = wpart_i_now();
    int complete = 0, sub_timed_out = 0;
    int64_t K = 0, slow_runs = 0;
    double best_eli = HUGE_VAL;
    FN(view_t) g = {S, n2 + 1, 1, n1, n2};
    int64_t w[4] = {opt->window[0], opt->window[1], opt->window[2], opt->window[3]};
    if (w[0] == 0 && w[1] == 0 && w[2] == 0 && w[3] == 0) {
        w[1] = n1;
        w[3] = n2;
    }
    if (!(0 <= w[0] && w[0] < w[1] && w[1] <= n1 && 0 <= w[2] && w[2] < w[3] && w[3] <= n2)) {
        return wpart_i_error(WPART_EINVAL, "window is empty or outside the matrix");
    }
    T tot = FN(load)(&g, w[0], w[1], w[2], w[3]);
    double avg = (double)tot / (double)m;
    /* candidate phase-1 part counts */
    int64_t lo = opt->m1_min > 0 ? opt->m1_min : ((m + 63) / 64 > 2 ? (m + 63) / 64 : 2);
    int hier1 = opt->hybrid_phase1 == WPART_SP_HIER_RB ||
                opt->hybrid_phase1 == WPART_SP_HIER_RELAXED;
    int64_t ncand = 0, *cand = wpart_i_malloc(4 * lo + 2 + m / 2 + 64, sizeof(int64_t));
    int64_t *r1 = wpart_i_malloc(4 * m, sizeof(int64_t));
    int64_t *rb = wpart_i_malloc(4 * m, sizeof(int64_t));
    int64_t *cnt = wpart_i_malloc(m, sizeof(int64_t)), *cb = wpart_i_malloc(m, sizeof(int64_t));
    int64_t *cap = wpart_i_malloc(m, sizeof(int64_t));
    int64_t *off = wpart_i_malloc(m + 1, sizeof(int64_t));
    int64_t *tmp = wpart_i_malloc(4 * m, sizeof(int64_t));
    T *L = wpart_i_malloc(m, sizeof(T)), *M = wpart_i_malloc(m, sizeof(T));
    char *done = wpart_i_calloc(m, 1);
    if (!cand || !r1 || !rb || !cnt || !cb || !cap || !off || !tmp || !L || !M || !done) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in HYBRID");
    }
    /* more phase-1 blocks than cells would only add empty blocks: candidates stop at the
     * cell count (a no-op unless m > cells + 1, where it keeps the search O(sqrt(cells))) */
    int64_t cmax = (w[1] - w[0]) * (w[3] - w[2]) < m - 1 ? (w[1] - w[0]) * (w[3] - w[2]) : m - 1;
    if (opt->m1 > 0) {
        cand[ncand++] = opt->m1;
    } else if (hier1) {
        for (int64_t c = lo; c <= cmax && c <= 4 * lo; c++) {
            cand[ncand++] = c;
        }
    } else {
        for (int64_t k = 1; (k + 1) * (k + 1) - 1 <= cmax; k++) {
            if ((k + 1) * (k + 1) - 1 >= lo) {
                cand[ncand++] = (k + 1) * (k + 1) - 1;
            }
        }
    }
    if (ncand == 0) {
        cand[ncand++] = 1;
    }
    wpart_spatial_options_t o = *opt;
    /* the sub-runs share the one time budget: each gets what is left of it */
    wpart_control_t subctl;
    wpart_control_init(&subctl);
    if (opt->control) {
        subctl = *opt->control;
        o.control = &subctl;
    }
    o.speeds = NULL;
    o.cuts = NULL;
    o.ncuts = 0;
    o.P = o.Q = 0;
    wpart_spatial_stats_t sub;
    int64_t best_m1 = 0;
    for (int64_t ci = 0; ci < ncand; ci++) {
        int64_t m1 = cand[ci];
        o.method = (wpart_spatial_method_t)opt->hybrid_phase1;
        memcpy(o.window, w, sizeof w);
        WPART_CHECK(FN(budget)(opt->control, t0, &subctl));
        WPART_CHECK(FN(partition)(S, n1, n2, m1, &o, r1, &sub));
        sub_timed_out |= sub.timed_out;
        for (int64_t k = 0; k < m1; k++) {
            const int64_t *r = r1 + 4 * k;
            L[k] = FN(load)(&g, r[0], r[1], r[2], r[3]);
            int64_t area = (r[1] - r[0]) * (r[3] - r[2]);
            cap[k] = area > 1 ? area : 1;
        }
        WPART_CHECK(FN(alloc)(L, m1, m, cap, cnt, opt->control, t0));
        double e = 0;
        for (int64_t k = 0; k < m1; k++) {
            double x = (double)L[k] / (double)cnt[k];
            e = x > e ? x : e;
        }
        e = avg > 0 ? e / avg - 1.0 : 0.0;
        if (e < best_eli || (e == best_eli && m1 > best_m1)) {
            best_eli = e;
            best_m1 = m1;
            memcpy(rb, r1, 4 * m1 * sizeof(int64_t));
            memcpy(cb, cnt, m1 * sizeof(int64_t));
        }
        WPART_CHECK(wpart_i_poll(opt->control, t0, 0, 0));
    }
    K = best_m1;
    off[0] = 0;
    for (int64_t k = 0; k < K; k++) {
        off[k + 1] = off[k] + cb[k];
    }
    /* phase 2 (fast) on every part */
    for (int64_t k = 0; k < K; k++) {
        const int64_t *r = rb + 4 * k;
        int64_t *dst = rects + 4 * off[k];
        if (cb[k] == 1 || r[0] == r[1] || r[2] == r[3]) {
            memcpy(dst, r, 4 * sizeof(int64_t));
            for (int64_t j = 1; j < cb[k]; j++) {
                dst[4 * j] = dst[4 * j + 1] = r[0];
                dst[4 * j + 2] = dst[4 * j + 3] = r[2];
            }
            done[k] = 1; /* nothing to improve */
        } else {
            o.method = (wpart_spatial_method_t)opt->hybrid_fast;
            memcpy(o.window, r, 4 * sizeof(int64_t));
            WPART_CHECK(FN(budget)(opt->control, t0, &subctl));
            WPART_CHECK(FN(partition)(S, n1, n2, cb[k], &o, dst, &sub));
            sub_timed_out |= sub.timed_out;
        }
        WPART_CHECK(wpart_i_poll(opt->control, t0, (double)k, (double)K));
        M[k] = 0;
        for (int64_t j = 0; j < cb[k]; j++) {
            const int64_t *q = dst + 4 * j;
            if (q[0] < q[1] && q[2] < q[3]) {
                T x = FN(load)(&g, q[0], q[1], q[2], q[3]);
                M[k] = x > M[k] ? x : M[k];
            }
        }
    }
    complete = 1; /* rects is a full partition from here on */
    /* slow refinement of the most loaded part while it improves (HYBRID-F) */
    if (opt->hybrid_slow >= 0 && !sub_timed_out) {
        for (;;) {
            int64_t kb = 0;
            for (int64_t k = 1; k < K; k++) {
                if (M[k] > M[kb]) {
                    kb = k;
                }
            }
            if (done[kb]) {
                break;
            }
            done[kb] = 1;
            WPART_CHECK(wpart_i_poll(opt->control, t0, (double)K, (double)K));
            o.method = (wpart_spatial_method_t)opt->hybrid_slow;
            memcpy(o.window, rb + 4 * kb, 4 * sizeof(int64_t));
            WPART_CHECK(FN(budget)(opt->control, t0, &subctl));
            WPART_CHECK(FN(partition)(S, n1, n2, cb[kb], &o, tmp, &sub));
            slow_runs++;
            T x = 0;
            for (int64_t j = 0; j < cb[kb]; j++) {
                const int64_t *q = tmp + 4 * j;
                if (q[0] < q[1] && q[2] < q[3]) {
                    T y = FN(load)(&g, q[0], q[1], q[2], q[3]);
                    x = y > x ? y : x;
                }
            }
            sub_timed_out |= sub.timed_out; /* a cut run that did not improve still says so */
            if (x < M[kb]) {
                memcpy(rects + 4 * off[kb], tmp, 4 * cb[kb] * sizeof(int64_t));
                M[kb] = x;
            } else {
                break;
            }
            if (sub_timed_out) {
                break;
            }
        }
    }
cleanup:
    if (st == WPART_ECANCELLED && complete && FN(time_up)(opt->control, t0)) {
        st = WPART_OK; /* the time limit stopped the slow phase: phase 2's partition stands */
        sub_timed_out = 1;
    }
    if (st == WPART_OK) {
        stats->P = K;
        stats->eli = best_eli;
        stats->iterations = slow_runs;
        stats->timed_out = sub_timed_out;
    }
    stats->seconds = wpart_i_now() - t0;
    free(cand);
    free(r1);
    free(rb);
    free(cnt);
    free(cb);
    free(cap);
    free(off);
    free(tmp);
    free(L);
    free(M);
    free(done);
    return st;
}

static wpart_status_t FN(partition)(const T *S, int64_t n1, int64_t n2, int64_t m,
                                    const wpart_spatial_options_t *opt, int64_t *rects,
                                    wpart_spatial_stats_t *stats)
{
    memset(stats, 0, sizeof *stats);
    if (opt->method == WPART_SP_HYBRID) {
        return FN(hybrid)(S, n1, n2, m, opt, rects, stats);
    }
    return FN(partition_one)(S, n1, n2, m, opt, rects, stats);
}
