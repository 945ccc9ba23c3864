/*
 * ccm.c -- CCM-LB (spec 003 section 3) as a serial simulation of all ranks, plus the greedy
 * and brute-force references.
 *
 * The simulation runs each rank's transfer step in turn. Because an exchange involves exactly two
 * ranks, both locked, every distributed execution of the lock protocol is equivalent to some
 * serial order of atomic pairwise exchanges; the simulation picks a seeded random order. A rank's
 * step only reads its own state, its peer list and (after the lock) the peer's current state, so
 * it maps one-to-one onto an MPI process.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "internal.h"
#include "tasks_internal.h"

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

/* ------------------------------------------------------------------ clusters ------------ */
typedef struct {
    int32_t *tasks;   /* tasks of the rank grouped by cluster */
    int32_t *start;   /* cluster c = tasks[start[c] .. start[c+1]) */
    int32_t *key;     /* block id of the cluster (or -1 - task id for singletons) */
    int32_t n;        /* number of clusters */
} clusters_t;

static int cmp_block_task(const void *x, const void *y, void *ctx)
{
    const int32_t *blk = ctx;
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    int32_t ba = blk ? blk[a] : -1, bb = blk ? blk[b] : -1;
    /* block-less tasks (-1) sort after blocks, each alone */
    int64_t ka = ba >= 0 ? ba : (int64_t)1 << 40, kb = bb >= 0 ? bb : (int64_t)1 << 40;
    if (ka != kb) return ka < kb ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* insertion sort for small arrays, else a heap-free merge sort with a scratch buffer */
static void sort_tasks(int32_t *a, int32_t n, const int32_t *blk, int32_t *tmp)
{
    if (n < 2) return;
    if (n <= 16) {
        for (int32_t i = 1; i < n; i++) {
            int32_t x = a[i], j = i;
            while (j > 0 && cmp_block_task(&a[j - 1], &x, (void *)blk) > 0) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = x;
        }
        return;
    }
    int32_t h = n / 2;
    sort_tasks(a, h, blk, tmp);
    sort_tasks(a + h, n - h, blk, tmp);
    int32_t i = 0, j = h, o = 0;
    while (i < h && j < n) tmp[o++] = cmp_block_task(&a[j], &a[i], (void *)blk) < 0 ? a[j++] : a[i++];
    while (i < h) tmp[o++] = a[i++];
    while (j < n) tmp[o++] = a[j++];
    memcpy(a, tmp, sizeof(int32_t) * (size_t)n);
}

static void build_clusters(const wpart_tasks_state_t *s, int32_t r, int mode, clusters_t *C,
                           int32_t *tmp)
{
    int32_t n = 0;
    for (int32_t k = s->head[r]; k >= 0; k = s->next[k]) C->tasks[n++] = k;
    const int32_t *blk = mode == WPART_TASKS_CLUSTER_BLOCK ? s->p.task_block : NULL;
    sort_tasks(C->tasks, n, blk, tmp);
    C->n = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t b = blk ? blk[C->tasks[i]] : -1;
        if (i == 0 || b < 0 || b != C->key[C->n - 1]) {
            C->start[C->n] = i;
            C->key[C->n] = b >= 0 ? b : -1 - C->tasks[i];
            C->n++;
        }
    }
    C->start[C->n] = n;
}

typedef struct {
    double gain;
    int32_t cr, cp, moved; /* cluster indices (-1 = empty) */
} best_t;

/* FindBestCCM on the current state: best exchange between r and p, gain > tol * before. */
static wpart_status_t find_best(wpart_tasks_state_t *s, int32_t r, int32_t p,
                                const clusters_t *Cr, const clusters_t *Cp, double tol,
                                best_t *best)
{
    best->gain = -INFINITY;
    best->cr = best->cp = -1;
    best->moved = 0;
    double before = s->work[r] > s->work[p] ? s->work[r] : s->work[p];
    if (!(before > 0) || isinf(before)) return WPART_OK;
    for (int32_t i = -1; i < Cr->n; i++) {
        const int32_t *A = i >= 0 ? Cr->tasks + Cr->start[i] : NULL;
        int32_t na = i >= 0 ? Cr->start[i + 1] - Cr->start[i] : 0;
        for (int32_t j = -1; j < Cp->n; j++) {
            if (i < 0 && j < 0) continue;
            const int32_t *B = j >= 0 ? Cp->tasks + Cp->start[j] : NULL;
            int32_t nb = j >= 0 ? Cp->start[j + 1] - Cp->start[j] : 0;
            double w1, w2;
            wpart_status_t st =
                wpart_tasks_state_eval_exchange(s, r, A, na, p, B, nb, &w1, &w2);
            if (st != WPART_OK) return st;
            double after = w1 > w2 ? w1 : w2;
            double gain = before - after;
            if (!(gain > tol * before)) continue;
            if (gain > best->gain || (gain == best->gain && na + nb < best->moved)) {
                best->gain = gain;
                best->cr = i;
                best->cp = j;
                best->moved = na + nb;
            }
        }
    }
    return WPART_OK;
}

typedef struct {
    double gain;
    int32_t p;
} cand_t;

static int cmp_cand(const void *x, const void *y)
{
    const cand_t *a = x, *b = y;
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
    clusters_t Cr = {0}, Cp = {0};
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
    if (prm->cluster != WPART_TASKS_CLUSTER_BLOCK && prm->cluster != WPART_TASKS_CLUSTER_TASK) {
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
    Cr.tasks = wpart_i_malloc(KK, sizeof(int32_t));
    Cr.start = wpart_i_malloc((int64_t)KK + 1, sizeof(int32_t));
    Cr.key = wpart_i_malloc(KK, sizeof(int32_t));
    Cp.tasks = wpart_i_malloc(KK, sizeof(int32_t));
    Cp.start = wpart_i_malloc((int64_t)KK + 1, sizeof(int32_t));
    Cp.key = wpart_i_malloc(KK, sizeof(int32_t));
    if (!a0 || !best_assign || !tmp || !cand || !order || !known || !old || !sender || !recv ||
        !rngs || !wl || !Cr.tasks || !Cr.start || !Cr.key || !Cp.tasks || !Cp.start || !Cp.key) {
        WPART_FAIL(WPART_ENOMEM, "ccm: out of memory");
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
        if (isinf(w)) {
            WPART_FAIL(WPART_EINVAL, "infeasible start: the initial assignment exceeds a memory "
                       "cap (W = inf on some rank)");
        }
        if (trial == 0) rep->w_max_initial = w;
        if (rep->w_max_history) rep->w_max_history[(int64_t)trial * (prm->n_iter + 1)] = w;
        for (int32_t r = 0; r <= P; r++) rng_seed(&rngs[r], prm->seed, (uint64_t)trial + 1, r);
        int32_t n_exch = 0;
        for (int32_t it = 0; it < prm->n_iter; it++) {
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
                /* rank peers by estimated gain */
                int32_t nw = 0;
                build_clusters(s, r, prm->cluster, &Cr, tmp);
                const uint64_t *kr = known + r * W;
                for (int32_t q = 0; q < P; q++) {
                    if (q == r || !(kr[q / 64] >> (q % 64) & 1)) continue;
                    best_t b;
                    build_clusters(s, q, prm->cluster, &Cp, tmp);
                    WPART_CHECK(find_best(s, r, q, &Cr, &Cp, prm->tol, &b));
                    if (b.gain > 0) {
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
                    build_clusters(s, r, prm->cluster, &Cr, tmp);
                    build_clusters(s, q, prm->cluster, &Cp, tmp);
                    WPART_CHECK(find_best(s, r, q, &Cr, &Cp, prm->tol, &b));
                    if (b.gain > 0) {
                        const int32_t *A = b.cr >= 0 ? Cr.tasks + Cr.start[b.cr] : NULL;
                        int32_t na = b.cr >= 0 ? Cr.start[b.cr + 1] - Cr.start[b.cr] : 0;
                        const int32_t *B = b.cp >= 0 ? Cp.tasks + Cp.start[b.cp] : NULL;
                        int32_t nb = b.cp >= 0 ? Cp.start[b.cp + 1] - Cp.start[b.cp] : 0;
                        WPART_CHECK(wpart_tasks_state_apply_exchange(s, r, A, na, q, B, nb));
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
    free(Cr.tasks);
    free(Cr.start);
    free(Cr.key);
    free(Cp.tasks);
    free(Cp.start);
    free(Cp.key);
    return st;
}

/* ------------------------------------------------------------------ global clusters ----- */
/* Units: one per block that has tasks (all its tasks) and one per block-less task. */
static wpart_status_t global_units(const wpart_tasks_problem_t *p, int32_t **ptr_out,
                                   int32_t **tasks_out, int32_t *n_out)
{
    wpart_status_t st = WPART_OK;
    const int32_t K = p->n_tasks, N = p->n_blocks;
    int32_t *cnt = wpart_i_calloc((int64_t)N + 1, sizeof(int32_t));
    int32_t *uid = wpart_i_malloc(N > 0 ? N : 1, sizeof(int32_t));
    int32_t *ptr = wpart_i_calloc((int64_t)N + K + 1, sizeof(int32_t));
    int32_t *tasks = wpart_i_malloc(K > 0 ? K : 1, sizeof(int32_t));
    if (!cnt || !uid || !ptr || !tasks) WPART_FAIL(WPART_ENOMEM, "out of memory");
    int32_t n = 0;
    for (int32_t b = 0; b < N; b++) uid[b] = -1;
    /* units in order of their first task */
    int32_t *unit_of = wpart_i_malloc(K > 0 ? K : 1, sizeof(int32_t));
    if (!unit_of) WPART_FAIL(WPART_ENOMEM, "out of memory");
    for (int32_t t = 0; t < K; t++) {
        int32_t b = p->task_block ? p->task_block[t] : -1;
        if (b >= 0) {
            if (uid[b] < 0) uid[b] = n++;
            unit_of[t] = uid[b];
        } else {
            unit_of[t] = n++;
        }
        ptr[unit_of[t] + 1]++;
    }
    for (int32_t u = 0; u < n; u++) ptr[u + 1] += ptr[u];
    {
        int32_t *fill = wpart_i_malloc((int64_t)n + 1, sizeof(int32_t));
        if (!fill) {
            free(unit_of);
            WPART_FAIL(WPART_ENOMEM, "out of memory");
        }
        memcpy(fill, ptr, sizeof(int32_t) * ((size_t)n + 1));
        for (int32_t t = 0; t < K; t++) tasks[fill[unit_of[t]]++] = t;
        free(fill);
    }
    free(unit_of);
    *ptr_out = ptr;
    *tasks_out = tasks;
    *n_out = n;
    ptr = tasks = NULL;
cleanup:
    free(cnt);
    free(uid);
    free(ptr);
    free(tasks);
    return st;
}

typedef struct {
    double load;
    int32_t u;
} unit_load_t;

static int cmp_unit(const void *x, const void *y)
{
    const unit_load_t *a = x, *b = y;
    if (a->load != b->load) return a->load > b->load ? -1 : 1;
    return a->u < b->u ? -1 : a->u > b->u;
}

wpart_status_t wpart_tasks_greedy(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                                  int32_t *assign_out)
{
    wpart_status_t st = WPART_OK;
    int32_t *ptr = NULL, *tasks = NULL, *a = NULL;
    double *base = NULL, *cap = NULL, *alpha = NULL;
    unit_load_t *ul = NULL;
    wpart_tasks_state_t *s = NULL;
    WPART_CHECK(wpart_tasks_validate(p));
    WPART_CHECK(wpart_tasks_validate_coeffs(c));
    if (assign_out == NULL && p->n_tasks > 0) WPART_FAIL(WPART_EINVAL, "assign_out is NULL");
    const int32_t I = p->n_ranks, K = p->n_tasks;
    int32_t n;
    WPART_CHECK(global_units(p, &ptr, &tasks, &n));
    /* an extra "pool" rank I holds the unplaced tasks; its work is never looked at */
    base = wpart_i_calloc((int64_t)I + 1, sizeof(double));
    cap = wpart_i_malloc((int64_t)I + 1, sizeof(double));
    alpha = wpart_i_malloc((int64_t)I + 1, sizeof(double));
    a = wpart_i_malloc(K > 0 ? K : 1, sizeof(int32_t));
    ul = wpart_i_malloc(n > 0 ? n : 1, sizeof(unit_load_t));
    if (!base || !cap || !alpha || !a || !ul) WPART_FAIL(WPART_ENOMEM, "greedy: out of memory");
    for (int32_t r = 0; r < I; r++) {
        base[r] = p->rank_baseline ? p->rank_baseline[r] : 0.0;
        cap[r] = p->rank_mem_cap ? p->rank_mem_cap[r] : INFINITY;
        alpha[r] = p->rank_alpha ? p->rank_alpha[r] : c->alpha;
    }
    base[I] = 0.0;
    cap[I] = INFINITY;
    alpha[I] = 0.0;
    wpart_tasks_problem_t q = *p;
    q.n_ranks = I + 1;
    q.rank_baseline = base;
    q.rank_mem_cap = cap;
    q.rank_alpha = alpha;
    for (int32_t t = 0; t < K; t++) a[t] = I;
    WPART_CHECK(wpart_tasks_state_create(&q, c, a, &s));
    for (int32_t u = 0; u < n; u++) {
        double l = 0;
        for (int32_t i = ptr[u]; i < ptr[u + 1]; i++) l += p->task_load[tasks[i]];
        ul[u].load = l;
        ul[u].u = u;
    }
    qsort(ul, (size_t)n, sizeof(unit_load_t), cmp_unit);
    for (int32_t i = 0; i < n; i++) {
        int32_t u = ul[i].u;
        const int32_t *A = tasks + ptr[u];
        int32_t na = ptr[u + 1] - ptr[u];
        double bw = INFINITY;
        int32_t br = -1;
        for (int32_t r = 0; r < I; r++) {
            double w1, w2;
            WPART_CHECK(wpart_tasks_state_eval_exchange(s, I, A, na, r, NULL, 0, &w1, &w2));
            if (w2 < bw) {
                bw = w2;
                br = r;
            }
        }
        if (br < 0) {
            WPART_FAIL(WPART_EINVAL, "greedy: the cluster of task %" PRId32
                       " (%" PRId32 " tasks) fits on no rank under the memory caps", A[0], na);
        }
        WPART_CHECK(wpart_tasks_state_apply_exchange(s, I, A, na, br, NULL, 0));
    }
    if (K > 0) memcpy(assign_out, s->assign, sizeof(int32_t) * (size_t)K);
cleanup:
    wpart_tasks_state_free(s);
    free(ptr);
    free(tasks);
    free(a);
    free(base);
    free(cap);
    free(alpha);
    free(ul);
    return st;
}

wpart_status_t wpart_tasks_brute_force(const wpart_tasks_problem_t *p,
                                       const wpart_tasks_coeffs_t *c, int preserve_blocks,
                                       int64_t max_states, const wpart_control_t *ctl,
                                       int32_t *assign_out, double *w_max)
{
    wpart_status_t st = WPART_OK;
    int32_t *ptr = NULL, *tasks = NULL, *digit = NULL, *a = NULL, *cnt = NULL;
    wpart_tasks_rank_t *v = NULL;
    WPART_CHECK(wpart_tasks_validate(p));
    WPART_CHECK(wpart_tasks_validate_coeffs(c));
    if (w_max == NULL || (assign_out == NULL && p->n_tasks > 0)) {
        WPART_FAIL(WPART_EINVAL, "assign_out or w_max is NULL");
    }
    const int32_t I = p->n_ranks, K = p->n_tasks, N = p->n_blocks;
    int32_t n;
    if (preserve_blocks) {
        WPART_CHECK(global_units(p, &ptr, &tasks, &n));
    } else {
        n = K;
        ptr = wpart_i_malloc((int64_t)K + 1, sizeof(int32_t));
        tasks = wpart_i_malloc(K > 0 ? K : 1, sizeof(int32_t));
        if (!ptr || !tasks) WPART_FAIL(WPART_ENOMEM, "out of memory");
        for (int32_t t = 0; t <= K; t++) ptr[t] = t;
        for (int32_t t = 0; t < K; t++) tasks[t] = t;
    }
    int64_t total = 1;
    for (int32_t u = 0; u < n; u++) {
        if (!wpart_i_mul_size(total, I, &total) || total > max_states) {
            WPART_FAIL(WPART_ELIMIT, "brute force: %" PRId32 "^%" PRId32
                       " assignments exceed max_states = %" PRId64, I, n, max_states);
        }
    }
    int64_t in;
    if (!wpart_i_mul_size(I, N > 0 ? N : 1, &in)) WPART_FAIL(WPART_EOVERFLOW, "overflow");
    digit = wpart_i_calloc(n > 0 ? n : 1, sizeof(int32_t));
    a = wpart_i_calloc(K > 0 ? K : 1, sizeof(int32_t));
    cnt = wpart_i_calloc(in, sizeof(int32_t));
    v = wpart_i_calloc(I, sizeof(*v));
    if (!digit || !a || !cnt || !v) WPART_FAIL(WPART_ENOMEM, "brute force: out of memory");
    double best = INFINITY, t0 = wpart_i_now();
    for (int32_t t = 0; t < K; t++) assign_out[t] = -1;
    for (int64_t it = 0; it < total; it++) {
        if ((it & 0xFFF) == 0) WPART_CHECK(wpart_i_poll(ctl, t0, (double)it, (double)total));
        double w;
        wpart_tasks_i_eval_full(p, c, a, v, cnt, NULL, &w);
        if (w < best) {
            best = w;
            memcpy(assign_out, a, sizeof(int32_t) * (size_t)K);
        }
        /* odometer: last unit fastest, so the first optimum is lexicographically smallest */
        for (int32_t u = n - 1; u >= 0; u--) {
            int32_t d = ++digit[u];
            if (d == I) d = digit[u] = 0;
            for (int32_t i = ptr[u]; i < ptr[u + 1]; i++) a[tasks[i]] = d;
            if (d != 0) break;
        }
    }
    *w_max = best;
cleanup:
    free(ptr);
    free(tasks);
    free(digit);
    free(a);
    free(cnt);
    free(v);
    return st;
}
