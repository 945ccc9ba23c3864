/* sp_driver.h -- one method on the whole matrix: orientation handling, the
 * dispatch to the class files, scratch buffers and the statistics.
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

static wpart_status_t FN(run_oriented)(FN(ctx_t) *cx, int64_t m, int64_t *out)
{
    const wpart_spatial_options_t *opt = cx->opt;
    switch (opt->method) {
    case WPART_SP_JAG_PQ_HEUR:
        if (opt->speeds) {
            return FN(jag_pq_heur_sp)(cx, opt->P, opt->Q, out);
        }
        return FN(jag_pq_heur)(cx, opt->P, opt->Q, out);
    case WPART_SP_JAG_PQ_OPT_NICOL:
    case WPART_SP_JAG_PQ_OPT_DP:
        if (opt->speeds) {
            cx->stats->P = opt->P;
            return FN(jag_pq_opt_sp)(cx, opt->P, opt->Q, out);
        }
        return FN(jag_pq_opt)(cx, opt->P, opt->Q, opt->method == WPART_SP_JAG_PQ_OPT_DP, out);
    case WPART_SP_JAG_M_HEUR:
        if (opt->speeds) {
            return FN(jag_m_heur_sp)(cx, m, 0, out);
        }
        return FN(jag_m_heur)(cx, m, out);
    case WPART_SP_JAG_M_PROBE:
        if (opt->cuts[opt->ncuts - 1] != cx->v.n1) {
            return wpart_i_error(WPART_EINVAL,
                                 "stripe cuts must end at the main extent %" PRId64, cx->v.n1);
        }
        cx->stats->P = opt->ncuts - 1;
        if (opt->speeds) {
            return FN(m_probe_sp)(cx, opt->cuts, opt->ncuts - 1, m, out);
        }
        return FN(m_probe_core)(cx, opt->cuts, opt->ncuts - 1, m, out);
    case WPART_SP_JAG_M_HEUR_PROBE:
        if (opt->speeds) {
            return FN(jag_m_heur_sp)(cx, m, 1, out);
        }
        return FN(jag_m_heur_probe)(cx, m, out);
    case WPART_SP_JAG_M_ALLOC:
        cx->stats->P = opt->ncuts;
        if (opt->speeds) {
            return FN(jag_m_alloc_sp)(cx, opt->cuts, opt->ncuts, out);
        }
        return FN(jag_m_alloc)(cx, opt->cuts, opt->ncuts, out);
    case WPART_SP_JAG_M_OPT:
        if (opt->speeds) {
            return FN(jag_m_opt_sp)(cx, m, out);
        }
        return FN(jag_m_opt)(cx, m, out);
    default:
        return wpart_i_error(WPART_EINVAL, "unknown method %d", (int)opt->method);
    }
}

/* (r0,r1,c0,c1) <- (c0,c1,r0,r1): a columns-first partition back in the input's orientation */
static void FN(flip_rects)(int64_t *rects, int64_t m)
{
    for (int64_t k = 0; k < m; k++) {
        int64_t *p = rects + 4 * k, a = p[0], b = p[1];
        p[0] = p[2];
        p[1] = p[3];
        p[2] = a;
        p[3] = b;
    }
}

/* the max load of the partition `rects` (in the input's orientation) that the run on cr made:
 * a dense input's from its prefix (with speeds: max load / speed), a sparse one's as the stripe
 * kernels emitted it (exact from each stripe's prefix) */
static double FN(bott_run)(const FN(ctx_t) *cx, const FN(ctx_t) *cr, const int64_t *rects,
                           int64_t m, T *lmax)
{
    if (cx->sp) {
        *lmax = cr->emit_max;
        return 0;
    }
    *lmax = FN(lmax_of)(&cx->v, rects, m);
    return cx->opt->speeds ? FN(bott_of)(&cx->v, rects, m, cx->opt->speeds) : 0;
}

/* cxt = cx on the transposed problem: a sparse matrix with its rows and columns swapped (held
 * in *at), the dense prefix as a strided view, or (copy) as a contiguous transposed copy (*ST,
 * for the caller to free): the exact methods read many stripes, the others few */
static wpart_status_t FN(transpose_ctx)(const FN(ctx_t) *cx, FN(ctx_t) *cxt, FN(sparse_t) *at,
                                        int copy, T **ST)
{
    *cxt = *cx;
    if (cx->sp) {
        *at = FN(sp_transposed)(cx->sp);
        cxt->sp = at;
    } else if (copy) {
        int64_t a1 = cx->v.n1 + 1, a2 = cx->v.n2 + 1;
        T *t = wpart_i_malloc(a1 * a2, sizeof(T));
        if (!t) {
            return wpart_i_error(WPART_ENOMEM, "out of memory for the transposed prefix");
        }
        for (int64_t i = 0; i < a1; i++) {
            const T *row = cx->v.S + i * cx->v.s0;
            for (int64_t j = 0; j < a2; j++) {
                t[j * a1 + i] = row[j];
            }
        }
        *ST = t;
        cxt->v.S = t;
        cxt->v.s0 = a1;
        cxt->v.s1 = 1;
    } else {
        cxt->v.s0 = cx->v.s1;
        cxt->v.s1 = cx->v.s0;
    }
    cxt->v.n1 = cx->v.n2;
    cxt->v.n2 = cx->v.n1;
    return WPART_OK;
}

/* the scratch of a context for m parts (W and sep, see FN(ctx_t)) */
static wpart_status_t FN(ctx_alloc)(FN(ctx_t) *cx, int64_t m)
{
    int64_t big = cx->v.n1 > cx->v.n2 ? cx->v.n1 : cx->v.n2;
    int64_t sbig = big > m ? big : m;
    cx->W = wpart_i_malloc(big + 1, sizeof(T));
    cx->sep = wpart_i_malloc(sbig + 2, sizeof(int64_t));
    return cx->W && cx->sep ? WPART_OK : wpart_i_error(WPART_ENOMEM, "out of memory");
}

/* RECT-UNIFORM or RECT-NICOL on the input of cx; orientation VER: RECT-NICOL's Q x P grid of
 * the transposed problem, mapped back (its rectangle i P + j is the input's j Q + i) */
static wpart_status_t FN(run_rect)(FN(ctx_t) *cx, int64_t m, int64_t *rects)
{
    const wpart_spatial_options_t *opt = cx->opt;
    int64_t P = opt->P, Q = opt->Q;
    wpart_status_t st = WPART_OK;
    cx->stats->P = P;
    if (opt->method == WPART_SP_RECT_UNIFORM) {
        int64_t *R = wpart_i_malloc(P + 1, sizeof(int64_t));
        int64_t *C = wpart_i_malloc(Q + 1, sizeof(int64_t));
        if (R && C) {
            wpart_i_uniform_cuts(cx->v.n1, P, R);
            wpart_i_uniform_cuts(cx->v.n2, Q, C);
            st = wpart_i_emit_grid_ctl(R, P, C, Q, rects, opt->control);
        } else {
            st = wpart_i_error(WPART_ENOMEM, "out of memory");
        }
        free(R);
        free(C);
    } else if (opt->orient == WPART_SP_VER) {
        FN(ctx_t) cxt;
        FN(sparse_t) at;
        int64_t *alt = wpart_i_malloc(4 * m, sizeof(int64_t));
        if (!alt) {
            return wpart_i_error(WPART_ENOMEM, "out of memory");
        }
        FN(transpose_ctx)(cx, &cxt, &at, 0, NULL); /* no copy: cannot fail */
        st = FN(rect_nicol)(&cxt, Q, P, alt);
        if (st == WPART_OK) {
            FN(untranspose_grid)(alt, P, Q, rects);
        }
        free(alt);
    } else {
        st = FN(rect_nicol)(cx, P, Q, rects);
    }
    return st;
}

/* the single-pass heuristics (JAG-PQ-HEUR, JAG-M-HEUR, JAG-M-HEUR-PROBE, JAG-M-PROBE, HIER-RB):
 * the time limit is not checked inside their pass, only after it (stats->timed_out: status
 * "time_limit" with the partition). FN(untimed) points cx at a copy of its options whose control
 * has no time limit (Ctrl-C and progress still polled) and returns 1, or changes nothing and
 * returns 0 */
static int FN(single_pass)(wpart_spatial_method_t meth)
{
    return meth == WPART_SP_JAG_PQ_HEUR || meth == WPART_SP_JAG_M_HEUR ||
           meth == WPART_SP_JAG_M_HEUR_PROBE || meth == WPART_SP_JAG_M_PROBE ||
           meth == WPART_SP_HIER_RB;
}

static int FN(untimed)(FN(ctx_t) *cx, wpart_spatial_options_t *o, wpart_control_t *c)
{
    const wpart_spatial_options_t *opt = cx->opt;
    if (!FN(single_pass)(opt->method) || !opt->control || !(opt->control->time_limit > 0)) {
        return 0;
    }
    *o = *opt;
    *c = *opt->control;
    c->time_limit = 0;
    o->control = c;
    cx->opt = o;
    return 1;
}

/* A jagged method (opt->method) on the input of cx (dense prefix or sparse matrix) in the
 * orientations opt->orient allows: rows first, then the transposed problem (the sparse matrix
 * with its rows and columns swapped; the dense prefix as a strided view, or a contiguous copy
 * for the exact methods, which read many stripes), the smaller max load kept (ties: rows
 * first), rects in the input's orientation. Stats: the winner's P and orientation, the counters
 * of both runs. A time limit that stops the columns-first run after the rows-first one finished
 * keeps the latter (timed_out). */
static wpart_status_t FN(run_orients)(FN(ctx_t) *cx, int64_t m, int64_t *rects)
{
    const wpart_spatial_options_t *opt = cx->opt;
    wpart_spatial_stats_t *stats = cx->stats;
    wpart_status_t st = WPART_OK;
    wpart_spatial_method_t meth = opt->method;
    int want_h = opt->orient != WPART_SP_VER, want_v = opt->orient != WPART_SP_HOR;
    T lh = 0, lv = 0;
    double bh = 0, bv = 0;
    T *ST = NULL;
    int64_t *alt = NULL;
    wpart_spatial_stats_t sh = *stats;
    if (want_h) {
        /* a single pass runs whole (the columns-first one below is stopped by the limit) */
        wpart_spatial_options_t o1;
        wpart_control_t c1;
        int untimed = FN(untimed)(cx, &o1, &c1);
        cx->emit_max = 0;
        st = FN(run_oriented)(cx, m, rects);
        cx->opt = opt;
        if (st != WPART_OK) {
            goto cleanup;
        }
        if (untimed && FN(time_up)(opt->control, cx->t0)) {
            stats->timed_out = 1;
        }
        bh = FN(bott_run)(cx, cx, rects, m, &lh);
        sh = *stats;
        sh.orient = 0;
        if (stats->timed_out) {
            want_v = 0; /* the time is up: keep the rows-first answer */
        }
    }
    if (want_v) {
        FN(ctx_t) cxt;
        FN(sparse_t) at;
        alt = want_h ? wpart_i_malloc(4 * m, sizeof(int64_t)) : rects;
        if (!alt) {
            WPART_FAIL(WPART_ENOMEM, "out of memory");
        }
        WPART_CHECK(FN(transpose_ctx)(cx, &cxt, &at,
                                      meth == WPART_SP_JAG_PQ_OPT_NICOL ||
                                          meth == WPART_SP_JAG_PQ_OPT_DP ||
                                          meth == WPART_SP_JAG_M_OPT ||
                                          meth == WPART_SP_JAG_M_ALLOC,
                                      &ST));
        cxt.emit_max = 0;
        wpart_spatial_options_t o1;
        wpart_control_t c1;
        int untimed = !want_h && FN(untimed)(&cxt, &o1, &c1); /* the only pass: whole */
        st = FN(run_oriented)(&cxt, m, alt);
        if (untimed && st == WPART_OK && FN(time_up)(opt->control, cx->t0)) {
            stats->timed_out = 1;
        }
        if (st == WPART_ECANCELLED && want_h && FN(time_up)(opt->control, cx->t0)) {
            /* the time limit stopped the columns-first run: the rows-first one is done */
            *stats = sh;
            stats->timed_out = 1;
            st = WPART_OK;
            goto cleanup;
        }
        if (st != WPART_OK) {
            goto cleanup;
        }
        FN(flip_rects)(alt, m);
        bv = FN(bott_run)(cx, &cxt, alt, m, &lv);
        stats->orient = 1;
        if (want_h) {
            if (opt->speeds ? bv < bh : lv < lh) {
                memcpy(rects, alt, 4 * m * sizeof(int64_t));
            } else {
                int64_t it = stats->iterations, pr = stats->probes, ce = stats->cost_evals,
                        ds = stats->dp_states;
                int to = stats->timed_out;
                *stats = sh;
                stats->iterations = it;
                stats->probes = pr;
                stats->cost_evals = ce;
                stats->dp_states = ds;
                stats->timed_out = to;
            }
        }
    }
cleanup:
    free(ST);
    if (alt != rects) {
        free(alt);
    }
    return st;
}

static wpart_status_t FN(partition_one)(const T *S, int64_t n1, int64_t n2, int64_t m,
                                        const wpart_spatial_options_t *opt, int64_t *rects,
                                        wpart_spatial_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    FN(ctx_t) cx;
    memset(&cx, 0, sizeof cx);
    int64_t r0 = opt->window[0], r1 = opt->window[1], c0 = opt->window[2], c1 = opt->window[3];
    if (r0 == 0 && r1 == 0 && c0 == 0 && c1 == 0) {
        r1 = n1;
        c1 = n2;
    }
    if (!(0 <= r0 && r0 < r1 && r1 <= n1 && 0 <= c0 && c0 < c1 && c1 <= n2)) {
        return wpart_i_error(WPART_EINVAL, "window (%" PRId64 ", %" PRId64 ", %" PRId64
                             ", %" PRId64 ") is empty or outside the %" PRId64 " x %" PRId64
                             " matrix", r0, r1, c0, c1, n1, n2);
    }
    cx.v.S = S + r0 * (n2 + 1) + c0;
    cx.v.s0 = n2 + 1;
    cx.v.s1 = 1;
    cx.v.n1 = r1 - r0;
    cx.v.n2 = c1 - c0;
    cx.opt = opt;
    cx.stats = stats;
    cx.t0 = wpart_i_now();
    wpart_spatial_method_t meth = opt->method;
    WPART_CHECK(FN(ctx_alloc)(&cx, m));
    if (meth == WPART_SP_RECT_UNIFORM || meth == WPART_SP_RECT_NICOL) {
        WPART_CHECK(FN(run_rect)(&cx, m, rects));
    } else if (meth == WPART_SP_HIER_RB || meth == WPART_SP_HIER_RELAXED) {
        wpart_spatial_options_t uo;
        wpart_control_t uc;
        int untimed = FN(untimed)(&cx, &uo, &uc); /* HIER-RB: one pass, run whole */
        st = FN(hier)(&cx, m, meth == WPART_SP_HIER_RELAXED, rects);
        cx.opt = opt;
        WPART_CHECK(st);
        if (untimed && FN(time_up)(opt->control, cx.t0)) {
            stats->timed_out = 1;
        }
    } else if (meth == WPART_SP_HIER_OPT) {
        if (opt->speeds) {
            WPART_CHECK(FN(hier_opt_sp)(&cx, m, rects));
        } else {
            WPART_CHECK(FN(hier_opt)(&cx, m, rects));
        }
    } else {
        WPART_CHECK(FN(run_orients)(&cx, m, rects));
    }
    for (int64_t k = 0; k < m; k++) {
        rects[4 * k] += r0;
        rects[4 * k + 1] += r0;
        rects[4 * k + 2] += c0;
        rects[4 * k + 3] += c0;
    }
cleanup:
    stats->seconds = wpart_i_now() - cx.t0;
    free(cx.W);
    free(cx.sep);
    return st;
}
