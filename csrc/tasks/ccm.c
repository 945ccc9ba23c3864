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
#include "tasks_internal.h"

typedef wpart_tasks_clusters_t clusters_t;
typedef wpart_tasks_comm_ctx_t comm_ctx_t;

/* ------------------------------------------------------------------ RNG ----------------- */
typedef struct {
    uint64_t s[4];
} rng_t;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void rng_seed(rng_t *g, uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t x = seed;
    uint64_t y = splitmix64(&x) ^ (a * 0xD1B54A32D192ED03ULL);
    y = splitmix64(&y) ^ (b * 0x8CB92BA72F3D8DD7ULL);
    for (int i = 0; i < 4; i++) g->s[i] = splitmix64(&y);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(rng_t *g)
{
    uint64_t *s = g->s;
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

/* uniform in [0, n) without modulo bias */
static uint64_t rng_below(rng_t *g, uint64_t n)
{
    uint64_t lim = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do {
        x = rng_next(g);
    } while (x >= lim);
    return x % n;
}

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
static void inform(int32_t P, int32_t f, int32_t k, rng_t *rngs, uint64_t *known, uint64_t *old,
                   int8_t *sender, int8_t *recv, int32_t *cand)
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
                int32_t j = i + (int32_t)rng_below(&rngs[r], (uint64_t)(nc - i));
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

/* Presence update of one rank for up to two blocks, in the exchange's order (bit-identical). */
static void fast_blocks(const wpart_tasks_state_t *s, int32_t r, const int32_t *rc,
                        const int32_t *bl, const int32_t *d, int nb, wpart_tasks_rank_t *v)
{
    for (int i = 0; i < nb; i++) {
        int32_t b = bl[i];
        if (d[i] == 0) continue;
        int32_t old = rc[b], nw = old + d[i];
        double sz = s->p.block_size[b];
        int off = s->p.block_home[b] != r;
        wpart_tasks_i_presence(v, old, nw, sz, off);
    }
}

static double wmax_after_c(const wpart_tasks_state_t *s, double cur, const clusters_t *C,
                           int32_t i, double in_wk)
{
    if (!s->p.task_working) return 0.0;
    double m;
    if (i >= 0 && C->wk[i] >= cur && C->start[i + 1] > C->start[i]) {
        m = i == C->wk_arg ? C->wk2 : C->wk1; /* max over the other clusters */
    } else {
        m = cur;
    }
    return in_wk > m ? in_wk : m;
}

/* Work of r1 and r2 after exchanging cluster i of r1 with cluster j of r2 (-1: none), from the
 * summaries alone; valid when neither cluster has an incident edge. */
static void fast_eval(const wpart_tasks_state_t *s, int32_t r1, const wpart_tasks_rank_t *b1,
                      const int32_t *rc1, const clusters_t *C1, int32_t i, int32_t r2,
                      const wpart_tasks_rank_t *b2, const int32_t *rc2, const clusters_t *C2,
                      int32_t j, wpart_tasks_rank_t *o1, wpart_tasks_rank_t *o2)
{
    wpart_tasks_rank_t v1 = *b1, v2 = *b2;
    int32_t na = i >= 0 ? C1->start[i + 1] - C1->start[i] : 0;
    int32_t nb = j >= 0 ? C2->start[j + 1] - C2->start[j] : 0;
    double la = i >= 0 ? C1->load[i] : 0, lb = j >= 0 ? C2->load[j] : 0;
    double fa = i >= 0 ? C1->fp[i] : 0, fb = j >= 0 ? C2->fp[j] : 0;
    v1.load = v1.load - la + lb;
    v2.load = v2.load - lb + la;
    v1.fp = v1.fp - fa + fb;
    v2.fp = v2.fp - fb + fa;
    v1.wmax = wmax_after_c(s, b1->wmax, C1, i, j >= 0 ? C2->wk[j] : 0.0);
    v2.wmax = wmax_after_c(s, b2->wmax, C2, j, i >= 0 ? C1->wk[i] : 0.0);
    v1.cnt += nb - na;
    v2.cnt += na - nb;
    v1.out += 0.0;
    v1.in += 0.0;
    v1.loc += 0.0;
    v2.out += 0.0;
    v2.in += 0.0;
    v2.loc += 0.0;
    if (s->p.task_block) {
        int32_t bl[2], d1[2], d2[2];
        int nbk = 0;
        int32_t ba = i >= 0 ? C1->blk[i] : -1, bb = j >= 0 ? C2->blk[j] : -1;
        if (ba >= 0) {
            bl[nbk] = ba;
            d1[nbk] = -na;
            d2[nbk] = na;
            nbk++;
        }
        if (bb >= 0) {
            if (nbk == 1 && bl[0] == bb) {
                d1[0] += nb;
                d2[0] -= nb;
            } else {
                bl[nbk] = bb;
                d1[nbk] = nb;
                d2[nbk] = -nb;
                nbk++;
            }
        }
        fast_blocks(s, r1, rc1, bl, d1, nbk, &v1);
        fast_blocks(s, r2, rc2, bl, d2, nbk, &v2);
    }
    if (v1.cnt == 0) memset(&v1, 0, sizeof(v1));
    if (v2.cnt == 0) memset(&v2, 0, sizeof(v2));
    *o1 = v1;
    *o2 = v2;
}

/* Directional volumes of a task set X (spec 1.8 closed form): bytes inside X, bytes from X to
 * tasks outside X (total, and to tasks on q1 / q2 under `assign`), the same into X, and bytes
 * from X to the other exchanged set. Members of X carry `bit` in s->mark, of the other set
 * `obit`. */
typedef struct {
    double intra, otot, itot, o1, i1, o2, i2, x;
} csum_t;

static void csum_walk(const wpart_tasks_state_t *s, const int32_t *X, int32_t nx, int bit,
                      int obit, const int32_t *assign, int32_t q1, int32_t q2, csum_t *o)
{
    const wpart_tasks_problem_t *p = &s->p;
    memset(o, 0, sizeof(*o));
    for (int32_t i = 0; i < nx; i++) {
        int32_t t = X[i];
        for (int64_t j = s->inc_ptr[t]; j < s->inc_ptr[t + 1]; j++) {
            int64_t e = s->inc_edge[j];
            int32_t a = p->edge_src[e], b = p->edge_dst[e];
            double v = p->edge_bytes[e];
            int ina = (s->mark[a] & bit) != 0, inb = (s->mark[b] & bit) != 0;
            if (ina && inb) {
                if (t == a) o->intra += v; /* an inner edge is met from both ends */
            } else if (ina) {
                o->otot += v;
                if (assign[b] == q1) o->o1 += v;
                if (assign[b] == q2) o->o2 += v;
                if (s->mark[b] & obit) o->x += v;
            } else {
                o->itot += v;
                if (assign[a] == q1) o->i1 += v;
                if (assign[a] == q2) o->i2 += v;
            }
        }
    }
}

/* Closed form of spec 1.8: out/in/loc of r1 (v1, from b1) and r2 (v2, from b2) after A (on r1)
 * and B (on r2) are exchanged; ab / ba: bytes A->B / B->A (0 when unknown). */
static void comm_closed_form(const csum_t *A, const csum_t *B, double ab, double ba,
                             const wpart_tasks_rank_t *b1, const wpart_tasks_rank_t *b2,
                             wpart_tasks_rank_t *v1, wpart_tasks_rank_t *v2)
{
    v1->loc = b1->loc - (A->o1 + A->i1 + A->intra) + (B->o1 - ba) + (B->i1 - ab) + B->intra;
    v1->out = b1->out - (A->otot - A->o1) + A->i1 - (B->i1 - ab) + (B->otot - B->o1) + ba;
    v1->in = b1->in - (A->itot - A->i1) + A->o1 - (B->o1 - ba) + (B->itot - B->i1) + ab;
    v2->loc = b2->loc - (B->o2 + B->i2 + B->intra) + (A->o2 - ab) + (A->i2 - ba) + A->intra;
    v2->out = b2->out - (B->otot - B->o2) + B->i2 - (A->i2 - ba) + (A->otot - A->o2) + ab;
    v2->in = b2->in - (B->itot - B->i2) + B->o2 - (A->o2 - ab) + (A->itot - A->i2) + ba;
    if (v1->cnt == 0) v1->loc = v1->out = v1->in = 0.0;
    if (v2->cnt == 0) v2->loc = v2->out = v2->in = 0.0;
}

/* Volumes of A (located by assign_a) and B (located by assign_b) relative to r1 and r2. */
static void csum_pair(const wpart_tasks_state_t *s, const int32_t *A, int32_t na,
                      const int32_t *assign_a, const int32_t *B, int32_t nb,
                      const int32_t *assign_b, int32_t r1, int32_t r2, csum_t *ca, csum_t *cb)
{
    for (int32_t i = 0; i < na; i++) s->mark[A[i]] |= 4;
    for (int32_t i = 0; i < nb; i++) s->mark[B[i]] |= 8;
    csum_walk(s, A, na, 4, 8, assign_a, r1, r2, ca);
    csum_walk(s, B, nb, 8, 4, assign_b, r1, r2, cb);
    for (int32_t i = 0; i < na; i++) s->mark[A[i]] = 0;
    for (int32_t i = 0; i < nb; i++) s->mark[B[i]] = 0;
}

wpart_status_t wpart_tasks_state_estimate_exchange(wpart_tasks_state_t *s, int32_t r1,
                                                   const int32_t *give, int32_t n_give,
                                                   int32_t r2, const int32_t *take,
                                                   int32_t n_take, int use_ab, double *w1_after,
                                                   double *w2_after)
{
    if (s == NULL || w1_after == NULL || w2_after == NULL) {
        return wpart_i_error(WPART_EINVAL, "state or outputs are NULL");
    }
    wpart_tasks_rank_t v1, v2;
    /* validates the lists and gives the exact non-communication parts */
    wpart_status_t st = wpart_tasks_i_exchange_vals(s, r1, give, n_give, r2, take, n_take, &v1,
                                                    &v2);
    if (st != WPART_OK) return st;
    csum_t ca, cb;
    csum_pair(s, give, n_give, s->assign, take, n_take, s->assign, r1, r2, &ca, &cb);
    comm_closed_form(&ca, &cb, use_ab ? ca.x : 0.0, use_ab ? cb.x : 0.0, &s->rank[r1],
                     &s->rank[r2], &v1, &v2);
    *w1_after = wpart_tasks_i_work(&s->p, &s->c, r1, &v1);
    *w2_after = wpart_tasks_i_work(&s->p, &s->c, r2, &v2);
    return WPART_OK;
}

typedef struct {
    double dexc;           /* reduction of the two ranks' summed memory excess */
    double gain;           /* reduction of max(W) without the memory term */
    int32_t cr, cp, moved; /* cluster indices (-1 = empty) */
    int single;            /* 0: cr / cp index clusters; 1: sub-cluster units; 2: per-pair
                              parts */
    int found;
    rng_t *rng;            /* explore: uniform choice among the improving exchanges */
    uint64_t seen;         /* improving exchanges met so far (explore) */
} best_t;

/* The pair state before an exchange: summed cap excess and max W without the memory term.
 * Acceptance is lexicographic (spec 3.5): lower the excess, or keep it and lower max W by more
 * than tol. From a feasible start the excess is 0 and this is the paper's criterion. */
typedef struct {
    double exc, w;
} pairkey_t;

static void consider(const wpart_tasks_state_t *s, best_t *best, pairkey_t before, double tol,
                     int32_t r, const wpart_tasks_rank_t *v1, int32_t p,
                     const wpart_tasks_rank_t *v2, int32_t i, int32_t j, int32_t moved,
                     int single)
{
    double exc = wpart_tasks_i_excess(&s->p, &s->c, r, v1) +
                 wpart_tasks_i_excess(&s->p, &s->c, p, v2);
    double dexc = 0.0, gain;
    if (exc < before.exc) {
        dexc = before.exc - exc;
    } else if (exc != before.exc) {
        return;
    }
    double w1 = wpart_tasks_i_work_noeps(&s->p, &s->c, r, v1);
    double w2 = wpart_tasks_i_work_noeps(&s->p, &s->c, p, v2);
    gain = before.w - (w1 > w2 ? w1 : w2);
    if (dexc == 0.0 && !(gain > tol * before.w)) return;
    if (best->rng && before.exc == 0.0) { /* reservoir sampling: uniform over candidates */
        if (rng_below(best->rng, ++best->seen) != 0) return;
    } else if (best->found && !(dexc > best->dexc ||
                                (dexc == best->dexc &&
                                 (gain > best->gain ||
                                  (gain == best->gain && moved < best->moved))))) {
        return;
    }
    best->found = 1;
    best->dexc = dexc;
    best->gain = gain;
    best->cr = i;
    best->cp = j;
    best->moved = moved;
    best->single = single;
}

/* Peer information as of the start of the iteration (what the inform stage carried). */
typedef struct {
    const wpart_tasks_rank_t *rank; /* I aggregates */
    const int32_t *refcnt;          /* I x N block counts */
    const double *work;             /* I works */
    const int32_t *assign;          /* K: where every task was */
} snapshot_t;

static wpart_status_t eval_pair(wpart_tasks_state_t *s, int32_t r, const clusters_t *Cr,
                                int32_t i, int32_t p, const clusters_t *Cp, int32_t j,
                                const snapshot_t *snap, wpart_tasks_rank_t *v1,
                                wpart_tasks_rank_t *v2, int *valid)
{
    const int64_t N = s->p.n_blocks;
    *valid = 1;
    const int32_t *A = i >= 0 ? Cr->tasks + Cr->start[i] : NULL;
    int32_t na = i >= 0 ? Cr->start[i + 1] - Cr->start[i] : 0;
    const int32_t *B = j >= 0 ? Cp->tasks + Cp->start[j] : NULL;
    int32_t nb = j >= 0 ? Cp->start[j + 1] - Cp->start[j] : 0;
    if ((i < 0 || Cr->deg[i] == 0) && (j < 0 || Cp->deg[j] == 0)) {
        const wpart_tasks_rank_t *bp = snap ? &snap->rank[p] : &s->rank[p];
        const int32_t *rcp = (snap ? snap->refcnt : s->refcnt) + p * N;
        fast_eval(s, r, &s->rank[r], s->refcnt + r * N, Cr, i, p, bp, rcp, Cp, j, v1, v2);
        return WPART_OK;
    }
    if (snap) {
        /* clusters with edges: the closed form of spec 1.8 from r's own cluster (current
           state) and p's gossiped cluster volumes and aggregates (snapshot); bytes between the
           two clusters are unknown to r and taken as 0 (the only approximation) */
        fast_eval(s, r, &s->rank[r], s->refcnt + r * N, Cr, i, p, &snap->rank[p],
                  snap->refcnt + p * N, Cp, j, v1, v2);
        csum_t ca, cb;
        csum_pair(s, A, na, s->assign, B, nb, snap->assign, r, p, &ca, &cb);
        comm_closed_form(&ca, &cb, 0.0, 0.0, &s->rank[r], &snap->rank[p], v1, v2);
        return WPART_OK;
    }
    return wpart_tasks_i_exchange_vals(s, r, A, na, p, B, nb, v1, v2);
}

/* Scratch of the per-pair target units (WPART_TASKS_SPLIT_FILL). */
typedef struct {
    clusters_t U;
    double *target; /* K + 1: per cluster of the giving rank */
    int32_t *tmp;   /* 2K */
    int8_t *in;     /* K */
} fill_t;

/* FindBestCCM on the current state: best exchange between r and p, gain > tol * before.
 * Tr / Tp (may be NULL): single-task clusters for one-way single transfers, tried only when
 * no cluster exchange pays (as LBAF tries subclusters only when no swap happened). */
static wpart_status_t find_best(wpart_tasks_state_t *s, int32_t r, int32_t p,
                                const clusters_t *Cr, const clusters_t *Cp, const clusters_t *Tr,
                                const clusters_t *Tp, double tol, int one_way, int split_always,
                                fill_t *X, rng_t *explore, const snapshot_t *snap,
                                best_t *best)
{
    wpart_status_t st;
    memset(best, 0, sizeof(*best));
    best->rng = explore;
    best->cr = best->cp = -1;
    const wpart_tasks_rank_t *vp = snap ? &snap->rank[p] : &s->rank[p];
    pairkey_t before;
    before.exc = wpart_tasks_i_excess(&s->p, &s->c, r, &s->rank[r]) +
                 wpart_tasks_i_excess(&s->p, &s->c, p, vp);
    double wr = wpart_tasks_i_work_noeps(&s->p, &s->c, r, &s->rank[r]);
    double wq = wpart_tasks_i_work_noeps(&s->p, &s->c, p, vp);
    before.w = wr > wq ? wr : wq;
    if (before.exc == 0.0 && !(before.w > 0)) return WPART_OK;
    wpart_tasks_rank_t v1, v2;
    int valid;
    for (int32_t i = -1; i < Cr->n; i++) {
        int32_t na = i >= 0 ? Cr->start[i + 1] - Cr->start[i] : 0;
        for (int32_t j = -1; j < Cp->n; j++) {
            if (i < 0 && j < 0) continue;
            if (one_way && i >= 0 && j >= 0) continue;
            int32_t nb = j >= 0 ? Cp->start[j + 1] - Cp->start[j] : 0;
            st = eval_pair(s, r, Cr, i, p, Cp, j, snap, &v1, &v2, &valid);
            if (st != WPART_OK) return st;
            if (valid) consider(s, best, before, tol, r, &v1, p, &v2, i, j, na + nb, 0);
        }
    }
    if (Tr && Tp && (split_always || !best->found)) { /* by default only when no cluster
                                                           move pays */
        for (int32_t i = 0; i < Tr->n; i++) {
            st = eval_pair(s, r, Tr, i, p, Tp, -1, snap, &v1, &v2, &valid);
            if (st != WPART_OK) return st;
            if (valid) {
                consider(s, best, before, tol, r, &v1, p, &v2, i, -1,
                         Tr->start[i + 1] - Tr->start[i], 1);
            }
        }
        for (int32_t j = 0; j < Tp->n; j++) {
            st = eval_pair(s, r, Tr, -1, p, Tp, j, snap, &v1, &v2, &valid);
            if (st != WPART_OK) return st;
            if (valid) {
                consider(s, best, before, tol, r, &v1, p, &v2, -1, j,
                         Tp->start[j + 1] - Tp->start[j], 1);
            }
        }
    }
    if (X && (split_always || !best->found)) {
        /* parts of the more loaded rank's clusters sized to even the pair's W */
        const int give = wr >= wq;
        const clusters_t *C = give ? Cr : Cp;
        const int32_t to = give ? p : r, from = give ? r : p;
        const int64_t N = s->p.n_blocks;
        const int32_t *rc = give ? (snap ? snap->refcnt : s->refcnt) + p * N : s->refcnt + r * N;
        const double *ra = s->p.rank_alpha;
        double a = (ra ? ra[from] : s->c.alpha) + (ra ? ra[to] : s->c.alpha);
        for (int32_t c = 0; c < C->n; c++) {
            int32_t b = C->blk[c];
            double h = 0.0;
            if (b >= 0 && rc[b] == 0 && s->p.block_home[b] != to) {
                h = s->c.delta * s->p.block_size[b];
            }
            X->target[c] = a > 0 ? (fabs(wr - wq) - h) / a : 0.0;
        }
        st = wpart_tasks_i_build_fill(s, C, X->target, &X->U, X->tmp, X->in);
        if (st != WPART_OK) return st;
        for (int32_t u = 0; u < X->U.n; u++) {
            if (give) {
                st = eval_pair(s, r, &X->U, u, p, Cp, -1, snap, &v1, &v2, &valid);
            } else {
                st = eval_pair(s, r, Cr, -1, p, &X->U, u, snap, &v1, &v2, &valid);
            }
            if (st != WPART_OK) return st;
            if (valid) {
                consider(s, best, before, tol, r, &v1, p, &v2, give ? u : -1, give ? -1 : u,
                         X->U.start[u + 1] - X->U.start[u], 2);
            }
        }
    }
    return WPART_OK;
}

typedef struct {
    double dexc, gain;
    int32_t p;
} cand_t;

static int cmp_cand(const void *x, const void *y)
{
    const cand_t *a = x, *b = y;
    if (a->dexc != b->dexc) return a->dexc > b->dexc ? -1 : 1;
    if (a->gain != b->gain) return a->gain > b->gain ? -1 : 1;
    return a->p < b->p ? -1 : a->p > b->p;
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
    rng_t *rngs = NULL;
    cand_t *wl = NULL;
    clusters_t *CL = NULL, *CT = NULL, *CLs = NULL, *CTs = NULL;
    wpart_tasks_rank_t *snap_rank = NULL;
    comm_ctx_t ccx = {NULL, NULL, 0.0};
    const comm_ctx_t *ccp = NULL;
    fill_t fill = {{0}, NULL, NULL, NULL}, *fx = NULL;
    int32_t *snap_refcnt = NULL;
    double *snap_work = NULL;
    int32_t *snap_assign = NULL;
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
    rngs = wpart_i_malloc(P + 1, sizeof(rng_t));
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
        double w = wpart_tasks_i_state_wmax(s);
        if (isinf(w) && !prm->allow_infeasible_start) {
            WPART_FAIL(WPART_EINVAL, "infeasible start: the initial assignment exceeds a memory "
                       "cap (W = inf on some rank)");
        }
        if (trial == 0) rep->w_max_initial = w;
        if (rep->w_max_history) rep->w_max_history[(int64_t)trial * (prm->n_iter + 1)] = w;
        for (int32_t r = 0; r <= P; r++) rng_seed(&rngs[r], prm->seed, (uint64_t)trial + 1, r);
        int32_t n_exch = 0;
        for (int32_t it = 0; it < prm->n_iter; it++) {
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
                    int32_t j = (int32_t)rng_below(&rngs[P], (uint64_t)i + 1);
                    int32_t t = order[i];
                    order[i] = order[j];
                    order[j] = t;
                }
            }
            int32_t moved = 0;
            for (int32_t oi = 0; oi < P; oi++) {
                int32_t r = order[oi];
                WPART_CHECK(wpart_i_poll(prm->control, t0,
                                         (double)trial * prm->n_iter * P + (double)it * P + oi,
                                         (double)prm->n_trials * prm->n_iter * P));
                /* rank the known peers by estimated gain */
                int32_t nw = 0;
                const uint64_t *kr = known + r * W;
                for (int32_t q = 0; q < P; q++) {
                    if (q == r || !(kr[q / 64] >> (q % 64) & 1)) continue;
                    best_t b;
                    if (prm->exact_ranking) {
                        WPART_CHECK(find_best(s, r, q, &CL[r], &CL[q], CT ? &CT[r] : NULL,
                                              CT ? &CT[q] : NULL, prm->tol, prm->one_way,
                                              prm->split_always, fx, NULL, NULL, &b));
                    } else {
                        WPART_CHECK(find_best(s, r, q, &CL[r], &CLs[q], CT ? &CT[r] : NULL,
                                              CTs ? &CTs[q] : NULL, prm->tol, prm->one_way,
                                              prm->split_always, fx, NULL, &snap, &b));
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
                for (int32_t i = 0; i < nw; i++) {
                    int32_t q = wl[i].p;
                    best_t b;
                    WPART_CHECK(find_best(s, r, q, &CL[r], &CL[q], CT ? &CT[r] : NULL,
                                          CT ? &CT[q] : NULL, prm->tol, prm->one_way,
                                          prm->split_always, fx,
                                          prm->explore && trial > 0 ? &rngs[r] : NULL, NULL,
                                          &b));
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
                        WPART_CHECK(wpart_tasks_state_apply_exchange(s, r, A, na, q, B, nb));
                        for (int side = 0; side < 2; side++) {
                            int32_t x = side ? q : r;
                            WPART_CHECK(wpart_tasks_i_build_clusters(s, x, prm->cluster, &CL[x],
                                                                     tmp, ccp));
                            if (CT) {
                                WPART_CHECK(wpart_tasks_i_build_units(s, x, prm->singles, &CL[x],
                                                                      &CT[x], tmp));
                            }
                        }
                        moved++;
                    }
                }
            }
            n_exch += moved;
            w = wpart_tasks_i_state_wmax(s);
            if (rep->w_max_history) {
                rep->w_max_history[(int64_t)trial * (prm->n_iter + 1) + it + 1] = w;
            }
            if (rep->exch_history) rep->exch_history[(int64_t)trial * prm->n_iter + it] = moved;
        }
        int32_t nmoved = 0;
        for (int32_t t = 0; t < K; t++) nmoved += s->assign[t] != a0[t];
        if (w < best_w || (w == best_w && nmoved < best_moved)) {
            best_w = w;
            best_moved = nmoved;
            if (K > 0) memcpy(best_assign, s->assign, sizeof(int32_t) * (size_t)K);
            rep->best_trial = trial;
            rep->n_exchanges = n_exch;
            rep->n_tasks_moved = nmoved;
        }
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
    return st;
}
