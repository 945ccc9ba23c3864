/*
 * oned_cost_tmpl.h -- the exact 1D searches' steps that only see a part's cost, written once
 * and instantiated by oned_tmpl.h twice per element type: for the homogeneous cost
 * W[b] - W[a] (of type T) and for the speeds cost (W[b] - W[a]) / speed[p] (double). Both are
 * monotone in a and b, so PROBE, Nicol's search, the value bisection and the DP stay exact.
 *
 * Expects, besides oned_tmpl.h's T: V (the cost type), GN(x) (name mangling), COST(p, a, b)
 * (the cost of part p over elements [a, b); reads W and sp), CPROBE(t, p, B) (the polled probe
 * of parts p .. q-1 from position t: 1 covered, 0 not, -1 stopped; reads W, sp, n, q, ctl),
 * KEY and KEY_VALUE(k, v) (the bisection's ordered key type; sets v to the value of key k);
 * the includer defines GN(nicol), GN(bisect), GN(direct_cut) and GN(rb) (declared here, run by
 * GN(run)).
 * Undefines them at the end.
 */

/* largest e in [t, n] with COST(p, t, e) <= B; galloping, O(log(e - t)) */
static int64_t GN(reach)(const T *W, const double *sp, int64_t p, int64_t n, int64_t t, V B)
{
    int64_t lo = t, hi, step = 1;
    for (;;) {
        if (step > n - lo) {
            hi = n + 1;
            break;
        }
        if (COST(p, t, lo + step) <= B) {
            lo += step;
            step <<= 1;
        } else {
            hi = lo + step;
            break;
        }
    }
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (COST(p, t, mid) <= B) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/*
 * One part of Nicol's parametric search: the smallest end in [*end, hi] of part p starting at
 * t whose cost is feasible for the parts p .. q-1. A candidate B >= *best (a known feasible
 * value) is feasible, B < lb0 or B <= the largest value proven infeasible is not; only the
 * others are probed, and their answers tighten *best or the infeasible bound.
 */
static wpart_status_t GN(nicol_part)(const T *W, const double *sp, int64_t n, int64_t q,
                                     int64_t p, int64_t t, int64_t *end, int64_t hi, V lb0,
                                     V *best, V *infeas, int *has_inf,
                                     const wpart_control_t *ctl, double t0,
                                     wpart_1d_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    int64_t lo = *end;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        V B = COST(p, t, mid);
        int feas;
        stats->steps++;
        if (B >= *best) {
            feas = 1;
        } else if (B < lb0 || (*has_inf && B <= *infeas)) {
            feas = 0;
        } else {
            stats->probes++;
            feas = CPROBE(t, p, B);
            if (feas < 0) {
                WPART_FAIL(WPART_ECANCELLED, "stopped on request");
            }
            if (feas) {
                *best = B;
            } else if (!*has_inf || B > *infeas) {
                *infeas = B;
                *has_inf = 1;
            }
            /* a probe is O(q log n): poll after each (cheap, clock-gated) */
            WPART_CHECK(wpart_i_poll(ctl, t0, (double)p, (double)q));
        }
        if (feas) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    *end = lo;
cleanup:
    return st;
}

/* Exact optimum by bisection on the ordered keys [lo, hi] of the bottleneck values (the
 * integers themselves, or the bit patterns of non-negative doubles), hi feasible. */
static wpart_status_t GN(bisect_keys)(const T *W, const double *sp, int64_t n, int64_t q,
                                      KEY lo, KEY hi, const wpart_control_t *ctl, double t0,
                                      V *Bout, wpart_1d_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    while (lo < hi) {
        KEY mid = lo + (hi - lo) / 2;
        V B;
        KEY_VALUE(mid, B);
        stats->probes++;
        int f = CPROBE(0, 0, B);
        if (f < 0) {
            WPART_FAIL(WPART_ECANCELLED, "stopped on request");
        }
        if (f) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
        WPART_CHECK(wpart_i_poll(ctl, t0, 0.0, 1.0)); /* each probe is O(q log n) */
    }
    KEY_VALUE(lo, *Bout);
cleanup:
    return st;
}

/* Exact optimum by the DP of 2.5: F[p][t] = min_u max(F[p-1][u], cost_p(u, t)); the crossing
 * point moves right with t, so each row costs O(n). O(q n) time, O(n) memory. */
static wpart_status_t GN(dp)(const T *W, const double *sp, int64_t n, int64_t q,
                             const wpart_control_t *ctl, double t0, V *Bout,
                             wpart_1d_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    V *F = NULL, *G = NULL;
    F = wpart_i_malloc(n + 1, sizeof *F);
    G = wpart_i_malloc(n + 1, sizeof *G);
    if (!F || !G) {
        WPART_FAIL(WPART_ENOMEM, "DP rows of length %" PRId64, n + 1);
    }
    for (int64_t t = 0; t <= n; t++) {
        F[t] = COST(0, 0, t); /* one part */
    }
    for (int64_t p = 1; p < q; p++) {
        int64_t u = 0;
        for (int64_t t = 0; t <= n; t++) {
            /* smallest u with F[u] >= cost_p(u, t); exists since u = t qualifies */
            while (F[u] < COST(p, u, t)) {
                u++;
            }
            V v = F[u];
            if (u > 0) {
                V c = COST(p, u - 1, t); /* > F[u-1] */
                v = c < v ? c : v;
            }
            G[t] = v;
        }
        V *tmp = F;
        F = G;
        G = tmp;
        stats->steps += n + 1;
        WPART_CHECK(wpart_i_poll(ctl, t0, (double)(p + 1), (double)q));
    }
    *Bout = F[n];
cleanup:
    free(F);
    free(G);
    return st;
}

/* The searches and heuristics of this cost, defined in oned_tmpl.h after this template. */
static wpart_status_t GN(nicol)(const T *W, const double *sp, int64_t n, int64_t q,
                                const wpart_control_t *ctl, double t0, V *Bout,
                                wpart_1d_stats_t *stats);
static wpart_status_t GN(bisect)(const T *W, const double *sp, int64_t n, int64_t q,
                                 const wpart_control_t *ctl, double t0, V *Bout,
                                 wpart_1d_stats_t *stats);
static void GN(direct_cut)(const T *W, const double *sp, int64_t n, int64_t q, int64_t *seps);
static void GN(rb)(const T *W, const double *sp, int64_t lo, int64_t hi, int64_t q,
                   int64_t *seps, int64_t p0);

/* Runs opt->method (its time counted from here): an exact one sets *B (the optimal
 * bottleneck), a heuristic writes seps and clears *exact. */
static wpart_status_t GN(run)(const T *W, const double *sp, int64_t n, int64_t q,
                              const wpart_1d_options_t *opt, V *B, int64_t *seps, int *exact,
                              wpart_1d_stats_t *stats)
{
    wpart_status_t st = WPART_OK;
    const double t0 = wpart_i_now();
    const wpart_control_t *ctl = opt->control;
    switch (opt->method) {
    case WPART_1D_NICOL: WPART_CHECK(GN(nicol)(W, sp, n, q, ctl, t0, B, stats)); break;
    case WPART_1D_BISECT: WPART_CHECK(GN(bisect)(W, sp, n, q, ctl, t0, B, stats)); break;
    case WPART_1D_DP: WPART_CHECK(GN(dp)(W, sp, n, q, ctl, t0, B, stats)); break;
    case WPART_1D_DIRECT_CUT:
        GN(direct_cut)(W, sp, n, q, seps);
        *exact = 0;
        break;
    case WPART_1D_RECURSIVE_BISECTION:
        seps[0] = 0;
        seps[q] = n;
        GN(rb)(W, sp, 0, n, q, seps, 0);
        *exact = 0;
        break;
    default: WPART_FAIL(WPART_EINVAL, "unknown 1D method %d", (int)opt->method);
    }
cleanup:
    return st;
}

#undef V
#undef GN
#undef COST
#undef CPROBE
#undef KEY
#undef KEY_VALUE
