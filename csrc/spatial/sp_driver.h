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

static wpart_status_t FN(partition_one)(const T *S, int64_t n1, int64_t n2, int64_t m,
                                        const wpart_spatial_options_t *opt, int64_t *rects,
                                        wpart_spatial_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    FN(ctx_t) cx, cxt;
    T *ST = NULL;
    int64_t *alt = NULL;
    memset(&cx, 0, sizeof cx);
    memset(&cxt, 0, sizeof cxt);
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
    int64_t big = cx.v.n1 > cx.v.n2 ? cx.v.n1 : cx.v.n2;
    int64_t sbig = big > m ? big : m;
    wpart_spatial_method_t meth = opt->method;
    cx.W = wpart_i_malloc(big + 1, sizeof(T));
    cx.sep = wpart_i_malloc(sbig + 2, sizeof(int64_t));
    if (!cx.W || !cx.sep) {
        WPART_FAIL(WPART_ENOMEM, "out of memory");
    }
    if (meth == WPART_SP_RECT_UNIFORM || meth == WPART_SP_RECT_NICOL) {
        if (meth == WPART_SP_RECT_NICOL && opt->orient == WPART_SP_VER) {
            /* the transposed problem: a Q x P grid of the strided transposed view, mapped
             * back (its rectangle i P + j is the original's j Q + i) */
            int64_t P = opt->P, Q = opt->Q;
            alt = wpart_i_malloc(4 * m, sizeof(int64_t));
            if (!alt) {
                WPART_FAIL(WPART_ENOMEM, "out of memory");
            }
            cxt = cx;
            cxt.v.s0 = cx.v.s1;
            cxt.v.s1 = cx.v.s0;
            cxt.v.n1 = cx.v.n2;
            cxt.v.n2 = cx.v.n1;
            WPART_CHECK(FN(rect_nicol)(&cxt, Q, P, alt));
            FN(untranspose_grid)(alt, P, Q, rects);
        } else if (meth == WPART_SP_RECT_NICOL) {
            WPART_CHECK(FN(rect_nicol)(&cx, opt->P, opt->Q, rects));
        } else {
            int64_t *R = wpart_i_malloc(opt->P + 1, sizeof(int64_t));
            int64_t *C = wpart_i_malloc(opt->Q + 1, sizeof(int64_t));
            if (!R || !C) {
                free(R);
                free(C);
                WPART_FAIL(WPART_ENOMEM, "out of memory");
            }
            FN(uniform_cuts)(cx.v.n1, opt->P, R);
            FN(uniform_cuts)(cx.v.n2, opt->Q, C);
            FN(emit_grid)(R, opt->P, C, opt->Q, rects);
            free(R);
            free(C);
        }
        stats->P = opt->P;
    } else if (meth == WPART_SP_HIER_RB || meth == WPART_SP_HIER_RELAXED) {
        WPART_CHECK(FN(hier)(&cx, m, meth == WPART_SP_HIER_RELAXED, rects));
    } else if (meth == WPART_SP_HIER_OPT) {
        if (opt->speeds) {
            WPART_CHECK(FN(hier_opt_sp)(&cx, m, rects));
        } else {
            WPART_CHECK(FN(hier_opt)(&cx, m, rects));
        }
    } else {
        int want_h = opt->orient != WPART_SP_VER, want_v = opt->orient != WPART_SP_HOR;
        T lh = 0;
        double bh = 0;
        wpart_spatial_stats_t sh = *stats;
        if (want_h) {
            WPART_CHECK(FN(run_oriented)(&cx, m, rects));
            lh = FN(lmax_of)(&cx.v, rects, m);
            bh = FN(bott_of)(&cx.v, rects, m, opt->speeds);
            sh = *stats;
            sh.orient = 0;
            if (stats->timed_out) {
                want_v = 0; /* the time is up: keep the rows-first answer */
            }
        }
        if (want_v) {
            int64_t a1 = cx.v.n1 + 1, a2 = cx.v.n2 + 1;
            /* the exact methods evaluate many stripes: a contiguous transposed copy pays off;
             * the heuristics read few values and use a strided view without copying */
            int copy = meth == WPART_SP_JAG_PQ_OPT_NICOL || meth == WPART_SP_JAG_PQ_OPT_DP ||
                       meth == WPART_SP_JAG_M_OPT || meth == WPART_SP_JAG_M_ALLOC;
            alt = want_h ? wpart_i_malloc(4 * m, sizeof(int64_t)) : rects;
            if (!alt) {
                WPART_FAIL(WPART_ENOMEM, "out of memory");
            }
            cxt = cx;
            if (copy) {
                ST = wpart_i_malloc(a1 * a2, sizeof(T));
                if (!ST) {
                    WPART_FAIL(WPART_ENOMEM, "out of memory for the transposed prefix");
                }
                for (int64_t i = 0; i < a1; i++) {
                    const T *row = cx.v.S + i * cx.v.s0;
                    for (int64_t j = 0; j < a2; j++) {
                        ST[j * a1 + i] = row[j];
                    }
                }
                cxt.v.S = ST;
                cxt.v.s0 = a1;
                cxt.v.s1 = 1;
            } else {
                cxt.v.s0 = cx.v.s1;
                cxt.v.s1 = cx.v.s0;
            }
            cxt.v.n1 = cx.v.n2;
            cxt.v.n2 = cx.v.n1;
            st = FN(run_oriented)(&cxt, m, alt);
            if (st == WPART_ECANCELLED && want_h && FN(time_up)(opt->control, cx.t0)) {
                /* the time limit stopped the columns-first run: the rows-first one is done */
                *stats = sh;
                stats->timed_out = 1;
                st = WPART_OK;
                goto shift;
            }
            if (st != WPART_OK) {
                goto cleanup;
            }
            for (int64_t k = 0; k < m; k++) { /* map back: (r0,r1,c0,c1) <- (c0,c1,r0,r1) */
                int64_t *p = alt + 4 * k, a = p[0], b = p[1];
                p[0] = p[2];
                p[1] = p[3];
                p[2] = a;
                p[3] = b;
            }
            T lv = FN(lmax_of)(&cx.v, alt, m);
            double bv = FN(bott_of)(&cx.v, alt, m, opt->speeds);
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
    }
shift:
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
    free(ST);
    if (alt != rects) {
        free(alt);
    }
    return st;
}
