/*
 * ccm.c -- CCM-LB (spec 003 section 3) as a serial simulation of all ranks, plus the greedy
 * and brute-force references.
 *
 * The simulation runs each rank's transfer step in turn. Because an exchange involves exactly two
 * ranks, both locked, every distributed execution of the lock protocol is equivalent to some
 * serial order of atomic pairwise exchanges; the simulation picks a seeded random order. A rank's
 * step only reads its own state, its peer list and (after the lock) the peer's current state, so
 * it maps one-to-one onto an MPI process.
 *
 * Peer ranking uses what the inform stage carried: every rank's aggregates, block counts and
 * cluster summaries as of the start of the iteration (exact_ranking = 0). Clusters without
 * edges are estimated from the summaries alone; for clusters with edges, from the closed form
 * of spec 1.8: r's own cluster volumes per rank (current state) and the peer's gossiped cluster
 * volumes (snapshot), bytes between the two clusters taken as 0. After the lock, every exchange
 * is re-evaluated exactly.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "internal.h"
#include "ccm_internal.h"

/* ------------------------------------------------------------------ parameters ---------- */

void wpart_tasks_lb_params_init(wpart_tasks_lb_params_t *prm)
{
    memset(prm, 0, sizeof(*prm));
    prm->n_iter = 4;
    prm->n_rounds = 0;
    prm->fanout = 0;
    prm->n_trials = 1;
    prm->seed = 0;
    prm->cluster = WPART_TASKS_CLUSTER_BLOCK;
    prm->order_random = 1;
    prm->tol = 1e-12;
    prm->comm_tau = 1.0;
    prm->control = NULL;
    prm->max_moves = -1;
}

void wpart_tasks_knowledge(int32_t P, int32_t rounds_in, int32_t fanout_in, int32_t *rounds,
                           int32_t *fanout)
{
    int32_t k, f;
    if (P <= 1) {
        *rounds = 1;
        *fanout = 0;
        return;
    }
    if (rounds_in > 0 && fanout_in > 0) {
        k = rounds_in;
        f = fanout_in;
    } else if (fanout_in > 0) {
        f = fanout_in;
        k = f > 1 ? (int32_t)ceil(log((double)P) / log((double)f) - 1e-12) : P - 1;
        if (k < 1) k = 1;
    } else {
        k = rounds_in > 0 ? rounds_in : (int32_t)lround(sqrt(log2((double)P)));
        if (k < 1) k = 1;
        f = (int32_t)ceil(pow((double)P, 1.0 / k) - 1e-12);
    }
    if (f > P - 1) f = P - 1;
    if (f < 1) f = 1;
    *rounds = k;
    *fanout = f;
}

/* ------------------------------------------------------------------ inform stage -------- */
/* known: P rows of W words (bitsets). Synchronous hops; messages are snapshots at hop start. */
static void inform(int32_t P, int32_t f, int32_t k, wpart_rng_t *rngs, uint64_t *known,
                   uint64_t *old, int8_t *sender, int8_t *recv, int32_t *cand)
{
    const int64_t W = (P + 63) / 64;
    memset(known, 0, sizeof(uint64_t) * (size_t)(W * P));
    for (int32_t r = 0; r < P; r++) {
        known[r * W + r / 64] |= 1ULL << (r % 64);
        sender[r] = 1;
    }
    for (int32_t hop = 0; hop < k; hop++) {
        memcpy(old, known, sizeof(uint64_t) * (size_t)(W * P));
        memset(recv, 0, (size_t)P);
        for (int32_t r = 0; r < P; r++) {
            if (!sender[r]) continue;
            const uint64_t *kr = old + r * W;
            int32_t nc = 0;
            for (int32_t q = 0; q < P; q++) {
                if (!(kr[q / 64] >> (q % 64) & 1)) cand[nc++] = q;
            }
            int32_t m = f < nc ? f : nc;
            for (int32_t i = 0; i < m; i++) { /* partial Fisher-Yates */
                int32_t j = i + (int32_t)wpart_rng_below(&rngs[r], (uint64_t)(nc - i));
                int32_t t = cand[i];
                cand[i] = cand[j];
                cand[j] = t;
                int32_t q = cand[i];
                uint64_t *kq = known + q * W;
                for (int64_t w = 0; w < W; w++) kq[w] |= kr[w];
                recv[q] = 1;
            }
        }
        memcpy(sender, recv, (size_t)P);
    }
}

typedef struct {
    double dexc, gain;
    int32_t p;
} cand_t;

/* Polls the control hooks. A stop request (should_stop) is an error (WPART_ECANCELLED); reaching
 * the time limit only sets *time_up, so that the caller keeps the best assignment reached. */
static wpart_status_t ccm_poll(const wpart_control_t *ctl, double t0, double done, double total,
                               int *time_up)
{
    if (!ctl) return WPART_OK;
    wpart_control_t hooks = *ctl;
    hooks.time_limit = 0.0;
    wpart_status_t st = wpart_i_poll(&hooks, t0, done, total);
    if (st != WPART_OK) return st;
    *time_up = ctl->time_limit > 0 && wpart_i_now() - t0 > ctl->time_limit;
    return WPART_OK;
}

/* The deadline alone (no hooks): polled between the pair steps of a turn. */
static int ccm_late(const wpart_control_t *ctl, double t0)
{
    return ctl && ctl->time_limit > 0 && wpart_i_now() - t0 > ctl->time_limit;
}

static int cmp_cand(const void *x, const void *y)
{
    const cand_t *a = x, *b = y;
    if (a->dexc != b->dexc) return a->dexc > b->dexc ? -1 : 1;
    if (a->gain != b->gain) return a->gain > b->gain ? -1 : 1;
    return a->p < b->p ? -1 : a->p > b->p;
}

/* Incremental cluster upkeep of the serial engine (block clusters): after an exchange the
 * rank taking its turn is rebuilt at once, its peer only when its clusters are next needed,
 * from the tasks that moved to or from it in between. */
typedef struct {
    clusters_t *CL, *CT, CLx, CTx; /* CLx, CTx: spares (built into, then swapped) */
    int8_t *touched, *seen;        /* N, K */
    int32_t *oldc, *tmp, *tmp2;
    int32_t **pend, *npend, *cap;  /* per rank: tasks moved since its clusters were built */
    int reuse;                     /* units of unchanged clusters are copied */
    int32_t singles;
    ccm_index_t *ix;
} upkeep_t;

static wpart_status_t upkeep_note(upkeep_t *u, int32_t x, const int32_t *mv, int32_t n)
{
    if (u->npend[x] + n > u->cap[x]) {
        int32_t c = 2 * (u->npend[x] + n);
        int32_t *q = wpart_i_realloc(u->pend[x], c, sizeof(int32_t));
        if (!q) return wpart_i_error(WPART_ENOMEM, "ccm: out of memory");
        u->pend[x] = q;
        u->cap[x] = c;
    }
    memcpy(u->pend[x] + u->npend[x], mv, sizeof(int32_t) * (size_t)n);
    u->npend[x] += n;
    return WPART_OK;
}

/* rank x's clusters and units as a full build would make them now */
static wpart_status_t upkeep_fresh(wpart_tasks_state_t *s, upkeep_t *u, int32_t x)
{
    wpart_status_t st = WPART_OK;
    if (u->npend[x] == 0) return WPART_OK;
    const int32_t *blk = s->p.task_block;
    int32_t *mv = u->pend[x], m = 0;
    for (int32_t i = 0; i < u->npend[x]; i++) {
        if (!u->seen[mv[i]]) {
            u->seen[mv[i]] = 1;
            mv[m++] = mv[i];
        }
    }
    u->npend[x] = 0;
    for (int32_t i = 0; i < m; i++) {
        u->seen[mv[i]] = 0;
        if (blk && blk[mv[i]] >= 0) u->touched[blk[mv[i]]] = 1;
    }
    WPART_CHECK(wpart_tasks_i_rebuild_clusters(s, x, &u->CL[x], mv, m, u->touched, u->oldc,
                                               &u->CLx, u->tmp, u->tmp2));
    clusters_t sw = u->CL[x];
    u->CL[x] = u->CLx;
    u->CLx = sw;
    int done = 0;
    if (u->CT && u->reuse) { /* units of unchanged clusters are kept, moved in place */
        WPART_CHECK(wpart_tasks_i_update_units(
            s, x, u->singles, &u->CL[x], &u->CLx, u->touched, &u->CT[x], &u->CTx, u->tmp2,
            (int64_t)sizeof(int32_t) * (s->p.n_tasks > 0 ? s->p.n_tasks : 1), &done));
    }
    if (u->CT && u->reuse && !done) { /* or copied to the spare set */
        WPART_CHECK(wpart_tasks_i_rebuild_units(s, x, u->singles, &u->CL[x], &u->CLx, &u->CT[x],
                                                u->touched, &u->CTx, u->tmp));
        sw = u->CT[x];
        u->CT[x] = u->CTx;
        u->CTx = sw;
    }
    if (u->CT && !u->reuse) {
        WPART_CHECK(wpart_tasks_i_build_units(s, x, u->singles, &u->CL[x], &u->CT[x], u->tmp));
    }
    for (int32_t i = 0; i < m; i++) {
        if (blk && blk[mv[i]] >= 0) u->touched[blk[mv[i]]] = 0;
    }
    if (u->ix) wpart_i_ccm_index_map(&u->CL[x], u->ix->map_cur);
cleanup:
    return st;
}

wpart_status_t wpart_tasks_ccm(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                               const wpart_tasks_lb_params_t *prm, int32_t *assign_inout,
                               wpart_tasks_lb_report_t *rep)
{
    wpart_status_t st = WPART_OK;
    wpart_tasks_state_t *s = NULL;
    int32_t *a0 = NULL, *best_assign = NULL, *cand = NULL, *order = NULL, *tmp = NULL;
    uint64_t *known = NULL, *old = NULL;
    int8_t *sender = NULL, *recv = NULL;
    wpart_rng_t *rngs = NULL;
    cand_t *wl = NULL;
    clusters_t *CL = NULL, *CT = NULL, *CLs = NULL, *CTs = NULL;
    wpart_tasks_rank_t *snap_rank = NULL;
    comm_ctx_t ccx = {NULL, NULL, 0.0};
    const comm_ctx_t *ccp = NULL;
    fill_t fill = {{0}, NULL, NULL, NULL}, *fx = NULL;
    ccm_index_t cidx, *ix = NULL;
    upkeep_t up;                     /* incremental clusters (block clusters) */
    ccm_cache_t pcache;              /* the pruned scan's per-turn / per-iteration arrays */
    memset(&pcache, 0, sizeof(pcache));
    int32_t *mv = NULL;
    int incr = 0;
    memset(&up, 0, sizeof(up));
    memset(&cidx, 0, sizeof(cidx));
    int32_t *snap_refcnt = NULL;
    double *snap_work = NULL;
    int32_t *snap_assign = NULL;
    int32_t *tbest = NULL, *ev_cnt = NULL; /* the trial's best placement seen; score workspace */
    wpart_tasks_rank_t *ev_v = NULL;
    if (prm == NULL || rep == NULL) return wpart_i_error(WPART_EINVAL, "params or report is NULL");
    WPART_CHECK(wpart_tasks_validate(p));
    WPART_CHECK(wpart_tasks_validate_coeffs(c));
    if (assign_inout == NULL && p->n_tasks > 0) WPART_FAIL(WPART_EINVAL, "assignment is NULL");
    WPART_CHECK(wpart_tasks_validate_assignment(p, assign_inout));
    if (prm->n_iter < 0 || prm->n_trials < 1) {
        WPART_FAIL(WPART_EINVAL, "n_iter = %" PRId32 " must be >= 0 and n_trials = %" PRId32
                   " >= 1", prm->n_iter, prm->n_trials);
    }
    if (!(prm->tol >= 0) || isinf(prm->tol)) WPART_FAIL(WPART_EINVAL, "tol must be finite >= 0");
    if (!(prm->comm_tau >= 0) || isinf(prm->comm_tau)) {
        WPART_FAIL(WPART_EINVAL, "comm_tau must be finite >= 0");
    }
    if (prm->singles < WPART_TASKS_SPLIT_NONE || prm->singles > WPART_TASKS_SPLIT_FILL) {
        WPART_FAIL(WPART_EINVAL, "unknown sub-cluster mode %" PRId32, prm->singles);
    }
    if (prm->cluster != WPART_TASKS_CLUSTER_BLOCK && prm->cluster != WPART_TASKS_CLUSTER_TASK &&
        prm->cluster != WPART_TASKS_CLUSTER_BLOCK_COMM) {
        WPART_FAIL(WPART_EINVAL, "unknown cluster mode %" PRId32, prm->cluster);
    }
    const int32_t P = p->n_ranks, K = p->n_tasks;
    int64_t W = (P + 63) / 64, PW;
    if (!wpart_i_mul_size(W, P, &PW)) WPART_FAIL(WPART_EOVERFLOW, "n_ranks too large");
    int32_t k, f;
    wpart_tasks_knowledge(P, prm->n_rounds, prm->fanout, &k, &f);
    const int32_t KK = K > 0 ? K : 1;
    a0 = wpart_i_malloc(KK, sizeof(int32_t));
    best_assign = wpart_i_malloc(KK, sizeof(int32_t));
    tmp = wpart_i_malloc(KK, sizeof(int32_t));
    cand = wpart_i_malloc(P, sizeof(int32_t));
    order = wpart_i_malloc(P, sizeof(int32_t));
    known = wpart_i_malloc(PW, sizeof(uint64_t));
    old = wpart_i_malloc(PW, sizeof(uint64_t));
    sender = wpart_i_malloc(P, 1);
    recv = wpart_i_malloc(P, 1);
    rngs = wpart_i_malloc(P + 1, sizeof(wpart_rng_t));
    wl = wpart_i_malloc(P, sizeof(cand_t));
    CL = wpart_i_calloc(P, sizeof(clusters_t));
    CT = prm->singles ? wpart_i_calloc(P, sizeof(clusters_t)) : NULL;
    CLs = wpart_i_calloc(P, sizeof(clusters_t));
    CTs = prm->singles ? wpart_i_calloc(P, sizeof(clusters_t)) : NULL;
    int64_t n_rc;
    if (!wpart_i_mul_size(P, p->n_blocks > 0 ? p->n_blocks : 1, &n_rc)) {
        WPART_FAIL(WPART_EOVERFLOW, "n_ranks * n_blocks overflows");
    }
    snap_rank = wpart_i_malloc(P, sizeof(wpart_tasks_rank_t));
    snap_refcnt = wpart_i_malloc(n_rc, sizeof(int32_t));
    snap_work = wpart_i_malloc(P, sizeof(double));
    snap_assign = wpart_i_malloc(KK, sizeof(int32_t));
    tbest = wpart_i_malloc(KK, sizeof(int32_t));
    const wpart_tasks_coeffs_t *sc = prm->score;
    if (sc) {
        WPART_CHECK(wpart_tasks_validate_coeffs(sc));
        ev_v = wpart_i_malloc(P, sizeof(wpart_tasks_rank_t));
        ev_cnt = wpart_i_calloc(n_rc, sizeof(int32_t));
        if (!ev_v || !ev_cnt) WPART_FAIL(WPART_ENOMEM, "ccm: out of memory");
    }
    if (!tbest) WPART_FAIL(WPART_ENOMEM, "ccm: out of memory");
    if (prm->cluster == WPART_TASKS_CLUSTER_BLOCK_COMM) {
        ccx.parent = wpart_i_malloc(KK, sizeof(int32_t));
        ccx.key = wpart_i_malloc(KK, sizeof(int32_t));
        if (!ccx.parent || !ccx.key) WPART_FAIL(WPART_ENOMEM, "ccm: out of memory");
        double tot = 0.0;
        for (int32_t t = 0; t < K; t++) tot += p->task_load[t];
        ccx.thresh = prm->comm_tau * c->alpha * (K > 0 ? tot / K : 0.0);
        ccp = &ccx;
    }
    if (!a0 || !best_assign || !tmp || !cand || !order || !known || !old || !sender || !recv ||
        !rngs || !wl || !CL || (prm->singles && (!CT || !CTs)) || !CLs || !snap_rank ||
        !snap_refcnt || !snap_work || !snap_assign) {
        WPART_FAIL(WPART_ENOMEM, "ccm: out of memory");
    }
    if (p->n_edges > 0 && (c->beta > 0 || c->gamma > 0)) { /* bytes between ranks, indexed */
        cidx.map_cur = wpart_i_malloc(KK, sizeof(int32_t));
        cidx.map_snap = wpart_i_malloc(KK, sizeof(int32_t));
        if (!cidx.map_cur || !cidx.map_snap) WPART_FAIL(WPART_ENOMEM, "ccm: out of memory");
        cidx.cur_rank = -1;
        ix = &cidx;
    }
    pcache.p_stamp = wpart_i_calloc(P, sizeof(int64_t));
    pcache.pn = wpart_i_calloc(P, sizeof(int64_t));
    pcache.pcap = wpart_i_calloc(P, sizeof(int64_t));
    pcache.pmem = wpart_i_calloc(P, sizeof(void *));
    if (!pcache.p_stamp || !pcache.pn || !pcache.pcap || !pcache.pmem) {
        WPART_FAIL(WPART_ENOMEM, "ccm: out of memory");
    }
    pcache.r = -1;
    if (prm->cluster == WPART_TASKS_CLUSTER_BLOCK) { /* clusters rebuilt incrementally */
        up.oldc = wpart_i_malloc(KK, sizeof(int32_t));
        mv = wpart_i_malloc(KK, sizeof(int32_t));
        up.tmp2 = wpart_i_malloc(KK, sizeof(int32_t));
        up.seen = wpart_i_calloc(KK, 1);
        up.touched = wpart_i_calloc(p->n_blocks > 0 ? p->n_blocks : 1, 1);
        up.pend = wpart_i_calloc(P, sizeof(int32_t *));
        up.npend = wpart_i_calloc(P, sizeof(int32_t));
        up.cap = wpart_i_calloc(P, sizeof(int32_t));
        if (!up.oldc || !mv || !up.tmp2 || !up.seen || !up.touched || !up.pend || !up.npend ||
            !up.cap) {
            WPART_FAIL(WPART_ENOMEM, "ccm: out of memory");
        }
        up.CL = CL;
        up.CT = CT;
        up.tmp = tmp;
        up.singles = prm->singles;
        up.ix = ix;
        incr = 1;
    }
    if (incr && prm->singles >= WPART_TASKS_SPLIT_SUBSETS && p->task_block && p->n_blocks > 0) {
        up.reuse = 1;
    }
    if (prm->singles == WPART_TASKS_SPLIT_FILL) {
        fill.target = wpart_i_malloc((int64_t)KK + 1, sizeof(double));
        fill.tmp = wpart_i_malloc(2 * (int64_t)KK, sizeof(int32_t));
        fill.in = wpart_i_malloc(KK, 1);
        if (!fill.target || !fill.tmp || !fill.in) WPART_FAIL(WPART_ENOMEM, "ccm: out of memory");
        fx = &fill;
    }
    if (K > 0) memcpy(a0, assign_inout, sizeof(int32_t) * (size_t)K);
    double t0 = wpart_i_now();
    double best_w = INFINITY;
    int32_t best_moved = INT32_MAX;
    memset(rep, 0, offsetof(wpart_tasks_lb_report_t, w_max_history));
    for (int32_t trial = 0; trial < prm->n_trials; trial++) {
        wpart_tasks_state_free(s);
        s = NULL;
        WPART_CHECK(wpart_tasks_state_create(p, c, a0, &s));
        s->exhaustive = prm->exhaustive != 0;
        s->cx = ix;
        s->pc = &pcache;
        double w = wpart_tasks_i_state_wmax(s);
        if (!isfinite(w)) {
            int32_t over = -1; /* a rank above its cap, else the work overflowed */
            for (int32_t r = 0; r < P && over < 0; r++) {
                if (wpart_tasks_i_excess(p, c, r, &s->rank[r]) > 0) over = r;
            }
            if (over < 0) {
                WPART_FAIL(WPART_EOVERFLOW, "overflow: the initial assignment's work is not "
                           "finite on some rank (its loads, bytes or homing terms sum above the "
                           "largest float); no memory cap is exceeded");
            }
            if (!prm->allow_infeasible_start) {
                WPART_FAIL(WPART_EINVAL, "`memory_cap`: infeasible start: the initial "
                           "assignment exceeds the memory cap of rank %" PRId32 " (W = inf "
                           "there); pass allow_infeasible_start=True to start from it (the "
                           "moves then look for a placement within the cap)", over);
            }
        }
        if (trial == 0) rep->w_max_initial = w;
        if (rep->w_max_history) rep->w_max_history[(int64_t)trial * (prm->n_iter + 1)] = w;
        for (int32_t r = 0; r <= P; r++) {
            wpart_tasks_rng_seed(rngs[r].s, prm->seed, (uint64_t)trial + 1, (uint64_t)r);
        }
        int32_t n_exch = 0, it;
        int time_up = 0;
        int64_t off_start = 0; /* tasks off their rank of a0 (the migration budget's count) */
        const int32_t *cur = K > 0 ? tbest : NULL; /* the trial's candidate assignment */
        double tb_w = w; /* W (under sc, when given) of tbest: the best placement seen */
        if (sc) WPART_CHECK(wpart_tasks_i_eval_full(p, sc, s->assign, ev_v, ev_cnt, NULL, &tb_w));
        if (K > 0) memcpy(tbest, s->assign, sizeof(int32_t) * (size_t)K);
        for (it = 0; it < prm->n_iter; it++) {
            /* clusters are rebuilt at the start of every iteration (and after each exchange
               for the two ranks involved) */
            for (int32_t r = 0; r < P; r++) {
                WPART_CHECK(wpart_tasks_i_build_clusters(s, r, prm->cluster, &CL[r], tmp, ccp));
                if (CT) {
                    WPART_CHECK(wpart_tasks_i_build_units(s, r, prm->singles, &CL[r], &CT[r], tmp));
                }
                WPART_CHECK(wpart_tasks_i_build_clusters(s, r, prm->cluster, &CLs[r], tmp, ccp));
                if (CTs) {
                    WPART_CHECK(wpart_tasks_i_build_units(s, r, prm->singles, &CLs[r], &CTs[r],
                                                          tmp));
                }
            }
            if (incr) memset(up.npend, 0, sizeof(int32_t) * (size_t)P); /* all built afresh */
            pcache.iter++; /* a new snapshot */
            if (ix) {
                for (int32_t t = 0; t < K; t++) ix->map_cur[t] = ix->map_snap[t] = -1;
                for (int32_t r = 0; r < P; r++) {
                    wpart_i_ccm_index_map(&CL[r], ix->map_cur);
                    wpart_i_ccm_index_map(&CLs[r], ix->map_snap);
                }
                ix->cur_rank = -1;
                WPART_CHECK(wpart_i_ccm_index_snap(s, ix));
            }
            /* what the inform stage carries: every rank's state at the start of the iteration */
            memcpy(snap_rank, s->rank, sizeof(wpart_tasks_rank_t) * (size_t)P);
            memcpy(snap_refcnt, s->refcnt, sizeof(int32_t) * (size_t)n_rc);
            memcpy(snap_work, s->work, sizeof(double) * (size_t)P);
            if (K > 0) memcpy(snap_assign, s->assign, sizeof(int32_t) * (size_t)K);
            const snapshot_t snap = {snap_rank, snap_refcnt, snap_work, snap_assign};
            inform(P, f, k, rngs, known, old, sender, recv, cand);
            for (int32_t r = 0; r < P; r++) order[r] = r;
            if (prm->order_random) {
                for (int32_t i = P - 1; i > 0; i--) {
                    int32_t j = (int32_t)wpart_rng_below(&rngs[P], (uint64_t)i + 1);
                    int32_t t = order[i];
                    order[i] = order[j];
                    order[j] = t;
                }
            }
            int32_t moved = 0;
            for (int32_t oi = 0; oi < P; oi++) {
                int32_t r = order[oi];
                WPART_CHECK(ccm_poll(prm->control, t0,
                                     (double)trial * prm->n_iter * P + (double)it * P + oi,
                                     (double)prm->n_trials * prm->n_iter * P, &time_up));
                if (time_up) break;
                if (incr) WPART_CHECK(upkeep_fresh(s, &up, r));
                if (ix) WPART_CHECK(wpart_i_ccm_index_rank(s, ix, r));
                pcache.turn++; /* r's state as of this turn */
                /* rank the known peers by estimated gain */
                int32_t nw = 0;
                const uint64_t *kr = known + r * W;
                for (int32_t q = 0; q < P && !time_up; q++) {
                    if (q == r || !(kr[q / 64] >> (q % 64) & 1)) continue;
                    if ((q & 15) == 0 && ccm_late(prm->control, t0)) {
                        time_up = 1;
                        break;
                    }
                    best_t b;
                    if (prm->exact_ranking) {
                        if (incr) WPART_CHECK(upkeep_fresh(s, &up, q));
                        WPART_CHECK(wpart_i_ccm_find_best(
                            s, r, q, &CL[r], &CL[q], CT ? &CT[r] : NULL, CT ? &CT[q] : NULL,
                            prm->tol, prm->one_way, prm->split_always, fx, NULL, NULL, &b));
                    } else {
                        WPART_CHECK(wpart_i_ccm_find_best(
                            s, r, q, &CL[r], &CLs[q], CT ? &CT[r] : NULL, CTs ? &CTs[q] : NULL,
                            prm->tol, prm->one_way, prm->split_always, fx, NULL, &snap, &b));
                    }
                    if (b.found) {
                        wl[nw].dexc = b.dexc;
                        wl[nw].gain = b.gain;
                        wl[nw].p = q;
                        nw++;
                    }
                }
                qsort(wl, (size_t)nw, sizeof(cand_t), cmp_cand);
                /* lock each peer in turn, re-evaluate exactly, exchange if it still pays */
                for (int32_t i = 0; i < nw && !time_up; i++) {
                    int32_t q = wl[i].p;
                    if (ccm_late(prm->control, t0)) {
                        time_up = 1;
                        break;
                    }
                    best_t b;
                    if (incr) WPART_CHECK(upkeep_fresh(s, &up, q));
                    WPART_CHECK(wpart_i_ccm_find_best(
                        s, r, q, &CL[r], &CL[q], CT ? &CT[r] : NULL, CT ? &CT[q] : NULL, prm->tol,
                        prm->one_way, prm->split_always, fx,
                        prm->explore && trial > 0 ? &rngs[r] : NULL, NULL, &b));
                    if (b.found) {
                        /* unit kinds: 0 clusters, 1 sub-cluster units, 2 per-pair parts */
                        const clusters_t *Cr = b.single == 2 ? &fx->U
                                               : b.single ? &CT[r] : &CL[r];
                        const clusters_t *Cq = b.single == 2 ? &fx->U
                                               : b.single ? &CT[q] : &CL[q];
                        const int32_t *A = b.cr >= 0 ? Cr->tasks + Cr->start[b.cr] : NULL;
                        int32_t na = b.cr >= 0 ? Cr->start[b.cr + 1] - Cr->start[b.cr] : 0;
                        const int32_t *B = b.cp >= 0 ? Cq->tasks + Cq->start[b.cp] : NULL;
                        int32_t nb = b.cp >= 0 ? Cq->start[b.cp + 1] - Cq->start[b.cp] : 0;
                        if (prm->max_moves >= 0) { /* the budget: tasks off their start */
                            int64_t d = 0;
                            for (int32_t t = 0; t < na; t++) {
                                d += (a0[A[t]] != q) - (a0[A[t]] != r);
                            }
                            for (int32_t t = 0; t < nb; t++) {
                                d += (a0[B[t]] != r) - (a0[B[t]] != q);
                            }
                            if (d > 0 && off_start + d > prm->max_moves) continue;
                            off_start += d;
                        }
                        WPART_CHECK(wpart_tasks_state_apply_exchange(s, r, A, na, q, B, nb));
                        if (incr) { /* r now, q when next needed */
                            for (int32_t t = 0; t < na + nb; t++) mv[t] = t < na ? A[t] : B[t - na];
                            WPART_CHECK(upkeep_note(&up, r, mv, na + nb));
                            WPART_CHECK(upkeep_note(&up, q, mv, na + nb));
                            WPART_CHECK(upkeep_fresh(s, &up, r));
                        } else {
                            for (int side = 0; side < 2; side++) {
                                int32_t x = side ? q : r;
                                WPART_CHECK(wpart_tasks_i_build_clusters(s, x, prm->cluster,
                                                                         &CL[x], tmp, ccp));
                                if (CT) {
                                    WPART_CHECK(wpart_tasks_i_build_units(s, x, prm->singles,
                                                                          &CL[x], &CT[x], tmp));
                                }
                                if (ix) wpart_i_ccm_index_map(&CL[x], ix->map_cur);
                            }
                        }
                        if (ix) WPART_CHECK(wpart_i_ccm_index_rank(s, ix, r));
                        moved++;
                    }
                }
            }
            if (time_up) { /* tbest: the best of the completed iterations, or the state
                              reached inside this one when better */
                double wc = wpart_tasks_i_state_wmax(s);
                if (sc) {
                    WPART_CHECK(wpart_tasks_i_eval_full(p, sc, s->assign, ev_v, ev_cnt, NULL,
                                                        &wc));
                }
                if (wc < tb_w) {
                    tb_w = wc;
                    if (K > 0) memcpy(tbest, s->assign, sizeof(int32_t) * (size_t)K);
                }
                break;
            }
            n_exch += moved;
            w = wpart_tasks_i_state_wmax(s);
            {
                double ws = w;
                if (sc) {
                    WPART_CHECK(wpart_tasks_i_eval_full(p, sc, s->assign, ev_v, ev_cnt, NULL,
                                                        &ws));
                }
                if (ws <= tb_w) { /* ties: the later placement (the run's own end) */
                    tb_w = ws;
                    if (K > 0) memcpy(tbest, s->assign, sizeof(int32_t) * (size_t)K);
                }
            }
            if (rep->w_max_history) {
                rep->w_max_history[(int64_t)trial * (prm->n_iter + 1) + it + 1] = w;
            }
            if (rep->exch_history) rep->exch_history[(int64_t)trial * prm->n_iter + it] = moved;
        }
        w = tb_w;
        int32_t nmoved = 0;
        for (int32_t t = 0; t < K; t++) nmoved += cur[t] != a0[t];
        if (w < best_w || (w == best_w && nmoved < best_moved)) {
            best_w = w;
            best_moved = nmoved;
            if (K > 0) memcpy(best_assign, cur, sizeof(int32_t) * (size_t)K);
            rep->best_trial = trial;
            rep->n_exchanges = n_exch;
            rep->n_tasks_moved = nmoved;
        }
        if (time_up) {
            rep->time_limit_reached = 1;
            rep->n_iter_done = it;
            break;
        }
        rep->n_trials_done = trial + 1;
    }
    rep->w_max_final = best_w;
    if (K > 0) memcpy(assign_inout, best_assign, sizeof(int32_t) * (size_t)K);
cleanup:
    wpart_tasks_state_free(s);
    if (CL) {
        for (int32_t r = 0; r < p->n_ranks; r++) wpart_tasks_i_clusters_free(&CL[r]);
    }
    if (CT) {
        for (int32_t r = 0; r < p->n_ranks; r++) wpart_tasks_i_clusters_free(&CT[r]);
    }
    if (CLs) {
        for (int32_t r = 0; r < p->n_ranks; r++) wpart_tasks_i_clusters_free(&CLs[r]);
    }
    if (CTs) {
        for (int32_t r = 0; r < p->n_ranks; r++) wpart_tasks_i_clusters_free(&CTs[r]);
    }
    free(CL);
    free(CT);
    free(CLs);
    free(CTs);
    wpart_tasks_i_clusters_free(&fill.U);
    free(fill.target);
    free(fill.tmp);
    free(fill.in);
    free(snap_rank);
    free(snap_refcnt);
    free(snap_work);
    free(snap_assign);
    free(tbest);
    free(ev_v);
    free(ev_cnt);
    free(ccx.parent);
    free(ccx.key);
    free(a0);
    free(best_assign);
    free(tmp);
    free(cand);
    free(order);
    free(known);
    free(old);
    free(sender);
    free(recv);
    free(rngs);
    free(wl);
    wpart_i_ccm_index_free(&cidx);
    if (pcache.pmem) {
        for (int32_t r = 0; r < p->n_ranks; r++) free(pcache.pmem[r]);
    }
    free(pcache.pmem);
    free(pcache.p_stamp);
    free(pcache.pn);
    free(pcache.pcap);
    free(pcache.A);
    wpart_tasks_i_clusters_free(&up.CTx);
    wpart_tasks_i_clusters_free(&up.CLx);
    free(up.touched);
    free(up.seen);
    free(up.oldc);
    free(up.tmp2);
    if (up.pend) {
        for (int32_t r = 0; r < p->n_ranks; r++) free(up.pend[r]);
    }
    free(up.pend);
    free(up.npend);
    free(up.cap);
    free(mv);
    return st;
}
