/* sp_hier.h -- hierarchical bipartitions: HIER-RB (Sec. 3.3 of Saule et al. 2012) and HIER-RELAXED
 * (3.12), with and without processor speeds.
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

typedef struct {
    const FN(view_t) *v;
    int64_t *out;
    int64_t nout;
    int rule, tie_first;
    const wpart_control_t *ctl;
    double t0;
    int64_t steps;
    int64_t next_poll; /* the steps (cut evaluations) at which a node start polls next */
    int cancel;        /* Ctrl-C seen inside a node's choice of cut (FN(hier_cancel)) */
    const double *SP;  /* prefix of the speeds (m+1) or NULL */
    int64_t ck[5];     /* cache: the node (r0, r1, c0, c1, area) whose load is cL */
    T cL;
} FN(hier_t);

/* the two sides of box r = (r0, r1, c0, c1) cut at c across the rows (d = 0) or the columns */
static void FN(cut_box)(const int64_t *r, int d, int64_t c, int64_t *r1, int64_t *r2)
{
    memcpy(r1, r, 4 * sizeof(int64_t));
    memcpy(r2, r, 4 * sizeof(int64_t));
    r1[d == 0 ? 1 : 3] = c;
    r2[d == 0 ? 0 : 2] = c;
}

static inline T FN(hl)(const FN(hier_t) *h, int area, int64_t a, int64_t b, int64_t c, int64_t d)
{
    if (area) {
        return (T)((b - a) * (d - c));
    }
    return FN(load)(h->v, a, b, c, d);
}

static void FN(emit)(FN(hier_t) *h, int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t *o = h->out + 4 * h->nout++;
    o[0] = a;
    o[1] = b;
    o[2] = c;
    o[3] = d;
}

/* loads of the two sides when cutting dimension d of rect at c */
static inline void FN(sides)(FN(hier_t) *h, int area, const int64_t *r, int d, int64_t c,
                             T *L1, T *L2)
{
    /* L2 = load(node) - L1: the node's load is cached, so a cut costs 4 reads, not 8 */
    if (h->ck[0] != r[0] || h->ck[1] != r[1] || h->ck[2] != r[2] || h->ck[3] != r[3] ||
        h->ck[4] != area) {
        h->ck[0] = r[0];
        h->ck[1] = r[1];
        h->ck[2] = r[2];
        h->ck[3] = r[3];
        h->ck[4] = area;
        h->cL = FN(hl)(h, area, r[0], r[1], r[2], r[3]);
    }
    *L1 = d == 0 ? FN(hl)(h, area, r[0], c, r[2], r[3]) : FN(hl)(h, area, r[0], r[1], r[2], c);
    *L2 = h->cL - *L1;
#if !IS_INT
    if (*L2 < 0) {
        *L2 = 0;
    }
#endif
}

/* objective max(L1/q1, L2/q2) at cut c, as a fraction */
static inline void FN(obj)(FN(hier_t) *h, int area, const int64_t *r, int d, int64_t c,
                           int64_t q1, int64_t q2, T *num, int64_t *den)
{
    T L1, L2;
    FN(sides)(h, area, r, d, c, &L1, &L2);
    if (FN(frac_lt)(L1, q1, L2, q2)) {
        *num = L2;
        *den = q2;
    } else {
        *num = L1;
        *den = q1;
    }
}

/* feasible cut range in dimension d for q1 | q2 parts; 0 if none */
static int FN(cut_range)(const int64_t *r, int d, int64_t q1, int64_t q2, int64_t *lo,
                         int64_t *hi)
{
    int64_t s = d == 0 ? r[0] : r[2], e = d == 0 ? r[1] : r[3];
    int64_t w = d == 0 ? r[3] - r[2] : r[1] - r[0];
    if (w <= 0 || e - s < 2) {
        return 0;
    }
    *lo = s + (q1 + w - 1) / w;
    *hi = e - (q2 + w - 1) / w;
    return *lo <= *hi;
}

/* best cut for a fixed (d, q1, q2): minimal objective; returns 0 if infeasible */
static int FN(bestcut)(FN(hier_t) *h, int area, const int64_t *r, int d, int64_t q1, int64_t q2,
                       int64_t *cut, T *num, int64_t *den)
{
    int64_t lo, hi;
    if (!FN(cut_range)(r, d, q1, q2, &lo, &hi)) {
        return 0;
    }
    /* smallest c in [lo, hi] with L1/q1 >= L2/q2 (hi if none): gallop from the
     * area-proportional guess, then bisect */
    int64_t s0 = d == 0 ? r[0] : r[2], e0 = d == 0 ? r[1] : r[3];
    int64_t est = s0 + (int64_t)((__int128)(e0 - s0) * q1 / (q1 + q2));
    est = est < lo ? lo : (est > hi ? hi : est);
    int64_t a, b, step = 1;
    T L1, L2;
    FN(sides)(h, area, r, d, est, &L1, &L2);
    if (!FN(frac_lt)(L1, q1, L2, q2)) {
        b = est;
        for (;;) {
            if (b - step < lo) {
                break;
            }
            FN(sides)(h, area, r, d, b - step, &L1, &L2);
            if (FN(frac_lt)(L1, q1, L2, q2)) {
                break;
            }
            b -= step;
            step *= 2;
        }
        a = b - step + 1 > lo ? b - step + 1 : lo;
    } else {
        int64_t x = est;
        for (;;) {
            if (x + step > hi) {
                break;
            }
            FN(sides)(h, area, r, d, x + step, &L1, &L2);
            if (!FN(frac_lt)(L1, q1, L2, q2)) {
                break;
            }
            x += step;
            step *= 2;
        }
        a = x + 1;
        b = x + step < hi ? x + step : hi;
    }
    while (a < b) {
        int64_t mid = a + (b - a) / 2;
        FN(sides)(h, area, r, d, mid, &L1, &L2);
        if (!FN(frac_lt)(L1, q1, L2, q2)) {
            b = mid;
        } else {
            a = mid + 1;
        }
    }
    h->steps++;
    FN(obj)(h, area, r, d, a, q1, q2, num, den);
    *cut = a;
    if (a > lo) {
        T n2;
        int64_t d2;
        FN(obj)(h, area, r, d, a - 1, q1, q2, &n2, &d2);
        if (!FN(frac_lt)(*num, *den, n2, d2)) { /* <=: prefer the smaller cut */
            *num = n2;
            *den = d2;
            *cut = a - 1;
        }
    }
    return 1;
}

/* obj(c) <= num / den for the cut at c */
static inline int FN(obj_le)(FN(hier_t) *h, int area, const int64_t *r, int d, int64_t c,
                             int64_t q1, int64_t q2, T num, int64_t den)
{
    T n2;
    int64_t d2;
    FN(obj)(h, area, r, d, c, q1, q2, &n2, &d2);
    return !FN(frac_lt)(num, den, n2, d2);
}

/* plateau rule (3.11): among the minimisers pick the cut closest to the area-proportional one */
static int64_t FN(plateau)(FN(hier_t) *h, int area, const int64_t *r, int d, int64_t q1,
                           int64_t q2, int64_t cbest, T num, int64_t den)
{
    int64_t lo = cbest, hi = cbest;
    FN(cut_range)(r, d, q1, q2, &lo, &hi);
    int left = cbest == lo || !FN(obj_le)(h, area, r, d, cbest - 1, q1, q2, num, den);
    int right = cbest == hi || (left && !FN(obj_le)(h, area, r, d, cbest + 1, q1, q2, num, den));
    if (left && right) { /* strict minimum: no plateau */
        return cbest;
    }
    int64_t a = lo, b = cbest; /* smallest c in [lo, cbest] with obj(c) <= v */
    while (a < b) {
        int64_t mid = a + (b - a) / 2;
        if (FN(obj_le)(h, area, r, d, mid, q1, q2, num, den)) {
            b = mid;
        } else {
            a = mid + 1;
        }
    }
    int64_t ca = a;
    if (h->tie_first) {
        return ca;
    }
    a = cbest;
    b = hi; /* largest c in [cbest, hi] with obj(c) <= v */
    while (a < b) {
        int64_t mid = a + (b - a + 1) / 2;
        if (FN(obj_le)(h, area, r, d, mid, q1, q2, num, den)) {
            a = mid;
        } else {
            b = mid - 1;
        }
    }
    int64_t cb = a;
    if (ca == cb) {
        return ca;
    }
    int64_t s = d == 0 ? r[0] : r[2], e = d == 0 ? r[1] : r[3];
    int64_t q = q1 + q2;
    /* target s + (e - s) q1 / q: compare |c - target| via |q (c - s) - (e - s) q1| */
    __int128 tq = (__int128)(e - s) * q1;
    int64_t c0 = s + (int64_t)(tq / q);
    int64_t best = -1;
    __int128 bd = 0;
    for (int64_t c = c0; c <= c0 + 1; c++) {
        int64_t cc = c < ca ? ca : (c > cb ? cb : c);
        __int128 dist = (__int128)q * (cc - s) - tq;
        if (dist < 0) {
            dist = -dist;
        }
        if (best < 0 || dist < bd || (dist == bd && cc < best)) {
            best = cc;
            bd = dist;
        }
    }
    return best;
}

static void FN(emit_cells)(FN(hier_t) *h, const int64_t *r, int64_t q)
{
    int64_t k = 0;
    for (int64_t i = r[0]; i < r[1]; i++) {
        for (int64_t j = r[2]; j < r[3]; j++) {
            FN(emit)(h, i, i + 1, j, j + 1);
            k++;
        }
    }
    for (; k < q; k++) {
        FN(emit)(h, r[0], r[0], r[2], r[2]);
    }
}

static int FN(dims)(const FN(hier_t) *h, const int64_t *r, int depth, int *ds)
{
    int64_t e0 = r[1] - r[0], e1 = r[3] - r[2];
    int d;
    switch (h->rule) {
    case WPART_SP_LOAD:
        ds[0] = 0;
        ds[1] = 1;
        return 2;
    case WPART_SP_DIST:
        d = e1 > e0 ? 1 : 0;
        break;
    case WPART_SP_DIMHOR:
        d = depth % 2;
        break;
    default:
        d = (depth + 1) % 2;
        break;
    }
    if ((d == 0 ? e0 : e1) < 2) {
        d = 1 - d;
    }
    ds[0] = d;
    return 1;
}

/* fallback when no cut of the preferred shares exists: the feasible q1 nearest q/2 */
static int FN(fallback)(FN(hier_t) *h, int area, const int64_t *r, int64_t q, int *bd,
                        int64_t *bq1, int64_t *bc, T *bn, int64_t *bden)
{
    for (int64_t delta = 0; delta < q; delta++) {
        int got = 0;
        for (int sgn = 0; sgn < 2; sgn++) {
            int64_t q1 = sgn == 0 ? q / 2 - delta : q - q / 2 + delta;
            if (q1 < 1 || q1 >= q) {
                continue;
            }
            for (int d = 0; d < 2; d++) {
                int64_t c, den;
                T num;
                if (FN(bestcut)(h, area, r, d, q1, q - q1, &c, &num, &den) &&
                    (!got || FN(frac_lt)(num, den, *bn, *bden))) {
                    got = 1;
                    *bd = d;
                    *bq1 = q1;
                    *bc = c;
                    *bn = num;
                    *bden = den;
                }
            }
        }
        if (got) {
            return 1;
        }
    }
    return 0;
}

/* Shared start of a hierarchical node (with or without speeds): emit leaves and nodes with
 * fewer cells than parts, poll the control hooks, and switch a zero-load node of HIER-RELAXED
 * to the area rule (a choice of wpart; the paper leaves it open). Returns 1 when the node is finished (*st says how). */
static int FN(hier_node_start)(FN(hier_t) *h, const int64_t *r, int64_t q, int relaxed,
                               int *area, wpart_status_t *st)
{
    *st = WPART_OK;
    if (q == 1) {
        FN(emit)(h, r[0], r[1], r[2], r[3]);
        return 1;
    }
    if ((r[1] - r[0]) * (r[3] - r[2]) < q) {
        FN(emit_cells)(h, r, q);
        return 1;
    }
    if (h->steps >= h->next_poll) { /* every 1024 cut evaluations (a node may make many) */
        h->next_poll = h->steps + 1024;
        *st = wpart_i_poll(h->ctl, h->t0, 0, 0);
        if (*st != WPART_OK) {
            return 1;
        }
    }
    if (relaxed && !*area && FN(load)(h->v, r[0], r[1], r[2], r[3]) == 0) {
        *area = 1;
    }
    return 0;
}

/* Ctrl-C inside a node's choice of cut, asked every 4096 candidate shares: HIER-RELAXED's
 * top nodes try q - 1 shares each (2^18 parts on 12,000^2: about 0.5 s per node without a
 * check). The time limit is not read there (one bisection is not stopped inside) */
static int FN(hier_cancel)(FN(hier_t) *h, int64_t x)
{
    const wpart_control_t *ctl = h->ctl;
    if ((x & 4095) == 0 && wpart_i_stop_asked(ctl)) {
        h->cancel = 1;
    }
    return h->cancel;
}

/* a node's chosen cut: dimension d, q1 processors on the first side, position c, the share's
 * distance pen from an even split; got: one is chosen */
typedef struct {
    int got, d;
    int64_t q1, c, pen;
} FN(hcut_t);

static inline void FN(hcut_take)(FN(hcut_t) *b, int d, int64_t q1, int64_t c, int64_t pen)
{
    b->got = 1;
    b->d = d;
    b->q1 = q1;
    b->c = c;
    b->pen = pen;
}

/* the homogeneous choice of a node's cut among the dimensions ds[0..nd) into *b; 0 when none
 * is feasible */
static int FN(hier_choose)(FN(hier_t) *h, const int64_t *r, int64_t q, int relaxed, int area,
                           const int *ds, int nd, FN(hcut_t) *b)
{
    int64_t bden = 1;
    T bn = 0;
    if (!relaxed) {
        int64_t qs[2] = {q / 2, q - q / 2};
        int nq = qs[0] == qs[1] ? 1 : 2;
        for (int iq = 0; iq < nq; iq++) {
            for (int id = 0; id < nd; id++) {
                int64_t c, den;
                T num;
                if (FN(bestcut)(h, area, r, ds[id], qs[iq], q - qs[iq], &c, &num, &den) &&
                    (!b->got || FN(frac_lt)(num, den, bn, bden))) {
                    FN(hcut_take)(b, ds[id], qs[iq], c, 0);
                    bn = num;
                    bden = den;
                }
            }
        }
    } else {
        for (int id = 0; id < nd; id++) {
            for (int64_t x = 1; x < q; x++) {
                int64_t c, den;
                T num;
                if (FN(hier_cancel)(h, x)) {
                    return 0;
                }
                if (!FN(bestcut)(h, area, r, ds[id], x, q - x, &c, &num, &den)) {
                    continue;
                }
                int64_t pen = 2 * x - q < 0 ? q - 2 * x : 2 * x - q;
                int better = !b->got || FN(frac_lt)(num, den, bn, bden) ||
                             (!FN(frac_lt)(bn, bden, num, den) && pen < b->pen);
                if (better) {
                    FN(hcut_take)(b, ds[id], x, c, pen);
                    bn = num;
                    bden = den;
                }
            }
        }
    }
    if (!b->got && !FN(fallback)(h, area, r, q, &b->d, &b->q1, &b->c, &bn, &bden)) {
        return 0;
    }
    b->c = FN(plateau)(h, area, r, b->d, b->q1, q - b->q1, b->c, bn, bden);
    return 1;
}

/* ---- hierarchical with processor speeds (extension): processors [p0, p0+q) in order ---- */

static inline double FN(hw)(const FN(hier_t) *h, int64_t a, int64_t b)
{
    return h->SP[b] - h->SP[a];
}

static int FN(hs_cut)(FN(hier_t) *h, int area, const int64_t *r, int d, int64_t p0, int64_t q1,
                      int64_t q2, int64_t *cut, double *val)
{
    int64_t lo, hi;
    if (!FN(cut_range)(r, d, q1, q2, &lo, &hi)) {
        return 0;
    }
    double w1 = FN(hw)(h, p0, p0 + q1), w2 = FN(hw)(h, p0 + q1, p0 + q1 + q2);
    int64_t a = lo, b = hi;
    T L1, L2;
    while (a < b) { /* smallest c with L1/w1 >= L2/w2 */
        int64_t mid = a + (b - a) / 2;
        FN(sides)(h, area, r, d, mid, &L1, &L2);
        if ((double)L1 * w2 >= (double)L2 * w1) {
            b = mid;
        } else {
            a = mid + 1;
        }
    }
    h->steps++;
    FN(sides)(h, area, r, d, a, &L1, &L2);
    double v = fmax((double)L1 / w1, (double)L2 / w2);
    *cut = a;
    if (a > lo) {
        FN(sides)(h, area, r, d, a - 1, &L1, &L2);
        double v2 = fmax((double)L1 / w1, (double)L2 / w2);
        if (v2 <= v) {
            v = v2;
            *cut = a - 1;
        }
    }
    *val = v;
    return 1;
}

/* the choice of a node's cut with speeds (processors [p0, p0+q)), as hier_choose */
static int FN(hs_choose)(FN(hier_t) *h, const int64_t *r, int64_t p0, int64_t q, int relaxed,
                         int area, const int *ds, int nd, FN(hcut_t) *b)
{
    double bv = 0;
    for (int pass = 0; pass < 2 && !b->got; pass++) {
        int64_t xlo = 1, xhi = q - 1;
        if (!relaxed && pass == 0) {
            xlo = q / 2;
            xhi = q - q / 2;
        }
        int ndd = pass == 0 ? nd : 2;
        int dd[2] = {pass == 0 ? ds[0] : 0, pass == 0 ? ds[1] : 1};
        int64_t nx = xhi - xlo + 1;
        for (int64_t it = 0; it < nx * ndd; it++) {
            /* RB: shares outer, dimensions inner; RELAXED: dimensions outer (as hier_rec) */
            int rbmode = !relaxed && pass == 0;
            int id = (int)(rbmode ? it % ndd : it / nx);
            int64_t x = xlo + (rbmode ? it / ndd : it % nx);
            if (FN(hier_cancel)(h, it + 1)) {
                return 0;
            }
            {
                int64_t c;
                double v;
                if (!FN(hs_cut)(h, area, r, dd[id], p0, x, q - x, &c, &v)) {
                    continue;
                }
                int64_t pen = 2 * x - q < 0 ? q - 2 * x : 2 * x - q;
                if (!b->got || v < bv || (v == bv && pen < b->pen)) {
                    FN(hcut_take)(b, dd[id], x, c, pen);
                    bv = v;
                }
            }
        }
    }
    return b->got;
}

/* HIER / HIER-RELAXED recursion over a node r holding processors [p0, p0+q) (p0 only read
 * with speeds): the cut is chosen by hs_choose with speeds, else hier_choose */
static wpart_status_t FN(hier_rec)(FN(hier_t) *h, const int64_t *r, int64_t p0, int64_t q,
                                   int depth, int relaxed, int area)
{
    wpart_status_t st0;
    if (FN(hier_node_start)(h, r, q, relaxed, &area, &st0)) {
        return st0;
    }
    int ds[2];
    int nd = FN(dims)(h, r, depth, ds);
    FN(hcut_t) b = {0, 0, 0, 0, 0};
    int got = h->SP ? FN(hs_choose)(h, r, p0, q, relaxed, area, ds, nd, &b)
                    : FN(hier_choose)(h, r, q, relaxed, area, ds, nd, &b);
    if (h->cancel) {
        return wpart_i_error(WPART_ECANCELLED, "stopped on request");
    }
    if (!got) {
        return wpart_i_error(WPART_EINTERNAL, "HIER: no feasible cut");
    }
    int64_t r1[4], r2[4];
    FN(cut_box)(r, b.d, b.c, r1, r2);
    wpart_status_t st = FN(hier_rec)(h, r1, p0, b.q1, depth + 1, relaxed, area);
    if (st == WPART_OK) {
        st = FN(hier_rec)(h, r2, p0 + b.q1, q - b.q1, depth + 1, relaxed, area);
    }
    return st;
}

static wpart_status_t FN(hier)(FN(ctx_t) *cx, int64_t m, int relaxed, int64_t *out)
{
    FN(hier_t) h;
    memset(&h, 0, sizeof h);
    h.ck[0] = -1; /* empty cache */
    h.v = &cx->v;
    h.out = out;
    h.rule = cx->opt->rule;
    h.tie_first = cx->opt->tie_first;
    h.ctl = cx->opt->control;
    h.t0 = cx->t0;
    int64_t r[4] = {0, cx->v.n1, 0, cx->v.n2};
    wpart_status_t st;
    if (cx->opt->speeds) {
        double *SP = wpart_i_malloc(m + 1, sizeof(double));
        if (!SP) {
            return wpart_i_error(WPART_ENOMEM, "out of memory");
        }
        SP[0] = 0;
        for (int64_t k = 0; k < m; k++) {
            SP[k + 1] = SP[k] + cx->opt->speeds[k];
        }
        h.SP = SP;
        st = FN(hier_rec)(&h, r, 0, m, 0, relaxed, 0);
        free(SP);
    } else {
        st = FN(hier_rec)(&h, r, 0, m, 0, relaxed, 0);
    }
    cx->stats->iterations = h.steps;
    return st;
}
