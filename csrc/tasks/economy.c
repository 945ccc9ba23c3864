/*
 * economy.c -- the same W_max with fewer migrations (wpart_tasks_economize).
 *
 * A balancer's placement is one of many with its W_max: every rank below the maximum has room,
 * and a constructive start (greedy's LPT bins) places its bins on ranks in an arbitrary order.
 * Two steps bring tasks back to their rank of the start without letting any rank's W rise above
 * the placement's W_max (W = inf above a memory cap, so no cap is broken; pinned tasks never
 * leave their start, so they are never touched):
 *
 * 1. Rank relabelling: the tasks of each rank (a "bin") may move as a whole to another rank.
 *    The bins keep their tasks, so their loads, footprints, working memories, shared blocks and
 *    bytes to other bins are unchanged; only the rank's speed, baseline, cap and the homing
 *    term depend on the rank. Bin j may go to rank r when its W there is within W_max and it
 *    holds no pinned task (or r = j). Among those, the permutation keeping the most tasks on
 *    their rank of the start is an assignment problem (Hungarian method, O(P^3), P <= 1024).
 * 2. Steps, repeated while one pays: the tasks of a block on a rank that started on another
 *    rank go back there as a group, or are swapped with such a group on that rank (its own
 *    start first: both come back), or (blocks may split) with part of one of about its load,
 *    the block that leaves freeing its memory; then single tasks off their start go back, or are swapped
 *    with a task off its start on their home rank. A step is made when both ranks' W stay
 *    within W_max (or do not rise). With whole_blocks (CCM-LB's block clusters without
 *    sub-cluster transfers) blocks stay whole: a group is every migratable task of a block on
 *    a rank, all from one start, and single steps move block-less tasks only.
 *
 * Every step is evaluated exactly (the incremental engine); the result is re-scored from
 * scratch and returned only when its W_max is not above the input's (rounding of the
 * incremental aggregates), else the input is left as it is.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tasks_internal.h"

#define ECON_HUNGARIAN_MAX 1024 /* ranks: above, no relabelling (O(P^3)) */
#define ECON_ROUNDS 16          /* rounds of steps at most */
#define ECON_SCAN 128           /* swap candidates looked at per task */
#define ECON_EVALS 8            /* of which evaluated exactly */

/* Minimum-cost perfect assignment of an n x n cost matrix (row-major): row i -> col[i].
 * Potentials method (Kuhn-Munkres with Dijkstra-like row insertion), O(n^3). */
static wpart_status_t hungarian(int32_t n, const double *cost, int32_t *col)
{
    wpart_status_t st = WPART_OK;
    double *u = wpart_i_calloc((int64_t)n + 1, sizeof(double));
    double *v = wpart_i_calloc((int64_t)n + 1, sizeof(double));
    double *minv = wpart_i_malloc((int64_t)n + 1, sizeof(double));
    int32_t *pm = wpart_i_calloc((int64_t)n + 1, sizeof(int32_t));
    int32_t *way = wpart_i_calloc((int64_t)n + 1, sizeof(int32_t));
    int8_t *used = wpart_i_malloc((int64_t)n + 1, 1);
    if (!u || !v || !minv || !pm || !way || !used) WPART_FAIL(WPART_ENOMEM, "economize: out of memory");
    for (int32_t i = 1; i <= n; i++) {
        pm[0] = i;
        int32_t j0 = 0;
        for (int32_t j = 0; j <= n; j++) {
            minv[j] = INFINITY;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            int32_t i0 = pm[j0], j1 = 0;
            double delta = INFINITY;
            const double *row = cost + (int64_t)(i0 - 1) * n;
            for (int32_t j = 1; j <= n; j++) {
                if (used[j]) continue;
                double cur = row[j - 1] - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (int32_t j = 0; j <= n; j++) {
                if (used[j]) {
                    u[pm[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (pm[j0] != 0);
        do {
            int32_t j1 = way[j0];
            pm[j0] = pm[j1];
            j0 = j1;
        } while (j0);
    }
    for (int32_t j = 1; j <= n; j++) col[pm[j] - 1] = j - 1;
cleanup:
    free(u);
    free(v);
    free(minv);
    free(pm);
    free(way);
    free(used);
    return st;
}

/* Step 1: perm[j] = the rank bin j (the tasks now on rank j) goes to. */
static wpart_status_t relabel(const wpart_tasks_state_t *s, const int32_t *start, double thr,
                              int32_t *perm)
{
    wpart_status_t st = WPART_OK;
    const wpart_tasks_problem_t *p = &s->p;
    const int32_t P = p->n_ranks, K = p->n_tasks, N = p->n_blocks;
    double *cost = NULL, *homed = NULL;
    int8_t *pinned = NULL;
    int64_t PP = (int64_t)P * P;
    for (int32_t j = 0; j < P; j++) perm[j] = j;
    if (P < 2 || P > ECON_HUNGARIAN_MAX) return WPART_OK;
    cost = wpart_i_calloc(PP, sizeof(double));
    pinned = wpart_i_calloc(P, 1);
    if (!cost || !pinned) WPART_FAIL(WPART_ENOMEM, "economize: out of memory");
    /* weight: tasks of bin j whose start is r (counted negative: a minimum-cost problem) */
    int64_t n_off = 0;
    for (int32_t t = 0; t < K; t++) {
        int32_t j = s->assign[t];
        cost[(int64_t)j * P + start[t]] -= 1.0;
        if (p->task_migratable && !p->task_migratable[t]) pinned[j] = 1;
        n_off += j != start[t];
    }
    if (n_off == 0) goto cleanup;
    if (N > 0 && p->task_block && s->c.delta > 0) { /* bytes of bin j's blocks homed on r */
        homed = wpart_i_calloc(PP, sizeof(double));
        if (!homed) WPART_FAIL(WPART_ENOMEM, "economize: out of memory");
        for (int32_t j = 0; j < P; j++) {
            const int32_t *rc = s->refcnt + (int64_t)j * N;
            for (int32_t b = 0; b < N; b++) {
                if (rc[b] > 0) homed[(int64_t)j * P + p->block_home[b]] += p->block_size[b];
            }
        }
    }
    /* a pair that is not allowed costs more than any whole assignment of allowed ones */
    const double big = 4.0 * (double)K + 4.0;
    for (int32_t j = 0; j < P; j++) {
        const wpart_tasks_rank_t *vj = &s->rank[j];
        for (int32_t r = 0; r < P; r++) {
            if (r == j) continue; /* the bin where it is: allowed */
            int ok = !pinned[j];
            if (ok && vj->cnt > 0) {
                wpart_tasks_rank_t v = *vj;
                v.h = homed ? vj->ms - homed[(int64_t)j * P + r] : 0.0;
                if (v.h < 0) v.h = 0.0;
                ok = wpart_tasks_i_work(p, &s->c, r, &v) <= thr;
            } else if (ok) {
                ok = 1; /* an empty bin fits anywhere */
            }
            if (!ok) cost[(int64_t)j * P + r] = big;
        }
    }
    WPART_CHECK(hungarian(P, cost, perm));
    {
        double keep = 0.0, was = 0.0;
        for (int32_t j = 0; j < P; j++) {
            double cj = cost[(int64_t)j * P + perm[j]];
            if (cj >= big) { /* cannot happen (the identity is allowed); keep the identity */
                for (int32_t r = 0; r < P; r++) perm[r] = r;
                goto cleanup;
            }
            keep += cj;
            was += cost[(int64_t)j * P + j];
        }
        if (!(keep < was)) {
            for (int32_t r = 0; r < P; r++) perm[r] = r;
        }
    }
cleanup:
    free(cost);
    free(homed);
    free(pinned);
    return st;
}

/* (load, id) order */
static int before(const double *l, int32_t x, int32_t y)
{
    return l[x] < l[y] || (l[x] == l[y] && x < y);
}

/* bottom-up merge sort by (load, id) (qsort has no context argument) */
static void sort_by_load(int32_t *a, int32_t n, const double *load, int32_t *tmp)
{
    for (int32_t w = 1; w < n; w *= 2) {
        for (int32_t lo = 0; lo < n; lo += 2 * w) {
            int32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                tmp[k++] = before(load, a[j], a[i]) ? a[j++] : a[i++];
            }
            while (i < mid) tmp[k++] = a[i++];
            while (j < hi) tmp[k++] = a[j++];
        }
        memcpy(a, tmp, sizeof(int32_t) * (size_t)n);
    }
}

/* Does the exchange keep both ranks within thr (or not above their W before)? Applies it if so. */
static wpart_status_t try_step(wpart_tasks_state_t *s, int32_t q, const int32_t *A, int32_t na,
                               int32_t h, const int32_t *B, int32_t nb, double thr, int *done)
{
    wpart_tasks_rank_t v1, v2;
    *done = 0;
    wpart_status_t st = wpart_tasks_i_exchange_vals(s, q, A, na, h, B, nb, &v1, &v2);
    if (st != WPART_OK) return st;
    double w1 = wpart_tasks_i_work(&s->p, &s->c, q, &v1);
    double w2 = wpart_tasks_i_work(&s->p, &s->c, h, &v2);
    if (!(w1 <= thr || w1 <= s->work[q]) || !(w2 <= thr || w2 <= s->work[h])) return WPART_OK;
    st = wpart_tasks_state_apply_exchange(s, q, A, na, h, B, nb);
    *done = st == WPART_OK;
    return st;
}

/* Memory of rank x after task `out` (on x, may be -1) leaves and task `in` arrives, from
 * below: its working memory is at least `in`'s; the blocks' bytes are exact. */
static double mem_after_lb(const wpart_tasks_state_t *s, int32_t x, int32_t out, int32_t in)
{
    const wpart_tasks_problem_t *p = &s->p;
    const wpart_tasks_rank_t *v = &s->rank[x];
    const int32_t N = p->n_blocks;
    double m = (p->rank_baseline ? p->rank_baseline[x] : 0.0) + v->fp + v->ms;
    double wk_in = p->task_working ? p->task_working[in] : 0.0;
    if (p->task_footprint) m += p->task_footprint[in] - (out >= 0 ? p->task_footprint[out] : 0);
    m += wk_in;
    int32_t bi = p->task_block ? p->task_block[in] : -1;
    int32_t bo = out >= 0 && p->task_block ? p->task_block[out] : -1;
    if (bi >= 0 && s->refcnt[(int64_t)x * N + bi] - (bo == bi) == 0) m += p->block_size[bi];
    if (bo >= 0 && bo != bi && s->refcnt[(int64_t)x * N + bo] == 1) m -= p->block_size[bo];
    return m;
}

/* Can the swap of t (on q) and u (on h) keep both within their caps? (a necessary test) */
static int swap_may_fit(const wpart_tasks_state_t *s, int32_t q, int32_t t, int32_t h,
                        int32_t u)
{
    const wpart_tasks_problem_t *p = &s->p;
    if (!s->c.enforce_memory || !p->rank_mem_cap) return 1;
    double mq = mem_after_lb(s, q, t, u), mh = mem_after_lb(s, h, u, t);
    return mq <= p->rank_mem_cap[q] * (1 + 1e-12) && mh <= p->rank_mem_cap[h] * (1 + 1e-12);
}

/* first index of F[lo..hi) (by ascending load) with load >= x (upper = 0) or > x (upper = 1) */
static int32_t bound(const int32_t *F, int32_t lo, int32_t hi, const double *load, double x,
                     int upper)
{
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (load[F[mid]] < x || (upper && load[F[mid]] == x)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* 1: Ctrl-C (an error); 2: the time limit (the steps made so far are kept); 0: go on */
static int econ_stop(const wpart_control_t *ctl, double t0)
{
    if (!ctl) return 0;
    wpart_control_t hooks = *ctl;
    hooks.time_limit = 0.0;
    if (wpart_i_poll(&hooks, t0, 0.0, 0.0) != WPART_OK) return 1;
    return ctl->time_limit > 0 && wpart_i_now() - t0 > ctl->time_limit ? 2 : 0;
}

/* A group: the tasks of one block on rank q whose start is h (all off their start). */
typedef struct {
    int32_t q, b, h, t;
} gkey_t;

static int cmp_gkey(const void *x, const void *y)
{
    const gkey_t *a = x, *b = y;
    if (a->q != b->q) return a->q < b->q ? -1 : 1;
    if (a->b != b->b) return a->b < b->b ? -1 : 1;
    if (a->h != b->h) return a->h < b->h ? -1 : 1;
    return a->t < b->t ? -1 : a->t > b->t;
}

/* Step 2a: whole groups go back to their start, or are swapped with a group on that rank (its
 * own start first): what a memory cap that admits no further block still allows. *gained: tasks
 * brought back. */
static wpart_status_t group_steps(wpart_tasks_state_t *s, const int32_t *start, double thr,
                                  int whole, int64_t *gained)
{
    wpart_status_t st = WPART_OK;
    const wpart_tasks_problem_t *p = &s->p;
    const int32_t P = p->n_ranks, K = p->n_tasks;
    gkey_t *g = wpart_i_malloc(K, sizeof(gkey_t));
    int32_t *T = wpart_i_malloc(K, sizeof(int32_t));
    int32_t *gs = wpart_i_malloc((int64_t)K + 1, sizeof(int32_t)); /* group i: T[gs[i]..) */
    int32_t *rs = wpart_i_calloc((int64_t)P + 1, sizeof(int32_t)); /* rank q: groups rs[q].. */
    int8_t *gone = NULL;
    double *gl = NULL; /* group loads */
    int32_t *X = wpart_i_malloc(K, sizeof(int32_t)), *Xt = wpart_i_malloc(K, sizeof(int32_t));
    *gained = 0;
    if (!g || !T || !gs || !rs || !X || !Xt) WPART_FAIL(WPART_ENOMEM, "economize: out of memory");
    int32_t n = 0, ng = 0;
    for (int32_t t = 0; t < K; t++) { /* whole: every migratable task of a block */
        int32_t b = p->task_block ? p->task_block[t] : -1;
        int mig = !p->task_migratable || p->task_migratable[t];
        if (b >= 0 && (whole ? mig : s->assign[t] != start[t])) {
            g[n++] = (gkey_t){s->assign[t], b, start[t], t};
        }
    }
    if (n == 0) goto cleanup;
    qsort(g, (size_t)n, sizeof(gkey_t), cmp_gkey);
    for (int32_t i = 0; i < n; i++) {
        if (i == 0 || g[i].q != g[i - 1].q || g[i].b != g[i - 1].b || g[i].h != g[i - 1].h) {
            gs[ng++] = i;
            rs[g[i].q + 1]++;
        }
        T[i] = g[i].t;
    }
    gs[ng] = n;
    for (int32_t r = 0; r < P; r++) rs[r + 1] += rs[r];
    for (int32_t i = 0; i < ng; i++) sort_by_load(T + gs[i], gs[i + 1] - gs[i], p->task_load, Xt);
    gone = wpart_i_calloc(ng, 1);
    gl = wpart_i_calloc(ng, sizeof(double));
    if (!gone || !gl) WPART_FAIL(WPART_ENOMEM, "economize: out of memory");
    for (int32_t i = 0; i < ng; i++) {
        for (int32_t k = gs[i]; k < gs[i + 1]; k++) gl[i] += p->task_load[T[k]];
    }
    /* without bytes terms, W' >= W + alpha dload - delta (largest block): a necessary test */
    const int window = s->c.beta == 0 && s->c.gamma == 0;
    double bmax = 0.0;
    for (int32_t b = 0; b < p->n_blocks; b++) {
        if (p->block_size[b] > bmax) bmax = p->block_size[b];
    }
    const double slack = s->c.delta * bmax + 1e-9 * (thr > 0 ? thr : 0);
    for (int32_t i = 0; whole && i < ng; i++) { /* a block cluster moves whole: one start */
        const gkey_t *a = &g[gs[i]];
        int same_prev = i > 0 && g[gs[i - 1]].q == a->q && g[gs[i - 1]].b == a->b;
        int same_next = i + 1 < ng && g[gs[i + 1]].q == a->q && g[gs[i + 1]].b == a->b;
        if (a->h == a->q || same_prev || same_next) gone[i] = 1;
    }
    for (int32_t i = 0; i < ng; i++) {
        if (gone[i]) continue;
        const gkey_t *a = &g[gs[i]];
        int32_t q = a->q, h = a->h, na = gs[i + 1] - gs[i];
        double ah = p->rank_alpha ? p->rank_alpha[h] : s->c.alpha;
        double aq = p->rank_alpha ? p->rank_alpha[q] : s->c.alpha;
        int done = 0;
        if (!window || s->work[h] + ah * gl[i] <= thr + slack) {
            WPART_CHECK(try_step(s, q, T + gs[i], na, h, NULL, 0, thr, &done));
        }
        if (done) {
            gone[i] = 1;
            *gained += na;
            continue;
        }
        for (int pass = 0; pass < 2 && !done; pass++) {
            for (int32_t j = rs[h]; j < rs[h + 1] && !done; j++) {
                const gkey_t *o = &g[gs[j]];
                if (gone[j] || (o->h == q) != (pass == 0)) continue;
                if (window && (s->work[h] + ah * (gl[i] - gl[j]) > thr + slack ||
                               s->work[q] + aq * (gl[j] - gl[i]) > thr + slack)) {
                    continue;
                }
                int32_t nb = gs[j + 1] - gs[j];
                WPART_CHECK(try_step(s, q, T + gs[i], na, h, T + gs[j], nb, thr, &done));
                if (done) {
                    gone[i] = gone[j] = 1;
                    *gained += na + (o->h == q ? nb : 0);
                }
            }
        }
        /* blocks may split: the group comes back for part of a group on h of about its load
           (heaviest first while it fits); the block leaving q frees its memory there */
        for (int32_t j = rs[h]; j < rs[h + 1] && !done && !whole; j++) {
            if (gone[j]) continue;
            double hi = aq > 0 ? gl[i] + (thr - s->work[q]) / aq : INFINITY;
            double lo = ah > 0 ? gl[i] - (thr - s->work[h]) / ah : -INFINITY;
            if (gl[j] < lo || !(hi > 0)) continue; /* gl[j]: at least its part still on h */
            double sum = 0.0;
            int32_t m = 0, nb = 0;
            for (int32_t k = gs[j + 1] - 1; k >= gs[j]; k--) { /* heaviest first */
                if (s->assign[T[k]] != h) continue;
                double l = p->task_load[T[k]];
                nb++;
                if (sum + l <= hi) {
                    X[m++] = T[k];
                    sum += l;
                }
            }
            if (m == 0 || m == nb || sum < lo) continue;
            WPART_CHECK(try_step(s, q, T + gs[i], na, h, X, m, thr, &done));
            if (done) {
                gone[i] = gone[j] = 1;
                *gained += na;
            }
        }
    }
cleanup:
    free(X);
    free(Xt);
    free(g);
    free(T);
    free(gs);
    free(rs);
    free(gone);
    free(gl);
    return st;
}

/* Step 2 on s (W_max bound thr). */
static wpart_status_t task_steps(wpart_tasks_state_t *s, const int32_t *start, double thr,
                                 int whole, const wpart_control_t *ctl, double t0)
{
    wpart_status_t st = WPART_OK;
    const wpart_tasks_problem_t *p = &s->p;
    const int32_t P = p->n_ranks, K = p->n_tasks;
    const double *load = p->task_load;
    const int32_t *blk = p->task_block;
    int32_t *M = wpart_i_malloc(K, sizeof(int32_t));
    int32_t *F = wpart_i_malloc(K, sizeof(int32_t));
    int32_t *tmp = wpart_i_malloc(K, sizeof(int32_t));
    int32_t *fs = wpart_i_calloc((int64_t)P + 1, sizeof(int32_t));
    int32_t *pos = wpart_i_malloc((int64_t)P + 1, sizeof(int32_t));
    if (!M || !F || !tmp || !fs || !pos) WPART_FAIL(WPART_ENOMEM, "economize: out of memory");
    const int window = s->c.beta == 0 && s->c.gamma == 0; /* W' >= W + a dload - delta bmax */
    double bmax = 0.0;
    for (int32_t b = 0; b < p->n_blocks; b++) {
        if (p->block_size[b] > bmax) bmax = p->block_size[b];
    }
    const double dmargin = s->c.delta * bmax;
    for (int32_t round = 0; round < ECON_ROUNDS; round++) {
        int64_t gained = 0;
        int32_t n = 0;
        if (p->task_block && p->n_blocks > 0) {
            WPART_CHECK(group_steps(s, start, thr, whole, &gained));
        }
        for (int32_t t = 0; t < K; t++) { /* never a pinned task */
            if (s->assign[t] != start[t] && !(whole && blk && blk[t] >= 0)) M[n++] = t;
        }
        if (n == 0) {
            if (gained == 0) break;
            continue;
        }
        sort_by_load(M, n, load, tmp);
        /* (a) back home one-way, lightest first */
        for (int32_t i = 0; i < n; i++) {
            int32_t t = M[i], q = s->assign[t], h = start[t];
            int stop = (i & 255) == 0 ? econ_stop(ctl, t0) : 0;
            if (stop == 1) WPART_FAIL(WPART_ECANCELLED, "economize: stopped");
            if (stop == 2) goto cleanup;
            if (q == h) continue;
            double a = p->rank_alpha ? p->rank_alpha[h] : s->c.alpha;
            if (window && s->work[h] + a * load[t] - dmargin > thr) continue;
            int done;
            WPART_CHECK(try_step(s, q, &t, 1, h, NULL, 0, thr, &done));
            gained += done;
        }
        /* (b) swaps with a task off its start on the home rank; heaviest first */
        memset(fs, 0, sizeof(int32_t) * ((size_t)P + 1));
        int32_t nf = 0;
        for (int32_t t = 0; t < K; t++) {
            if (s->assign[t] != start[t] && !(whole && blk && blk[t] >= 0)) {
                fs[s->assign[t] + 1]++;
            }
        }
        for (int32_t r = 0; r < P; r++) fs[r + 1] += fs[r];
        memcpy(pos, fs, sizeof(int32_t) * ((size_t)P + 1));
        for (int32_t t = 0; t < K; t++) {
            if (s->assign[t] != start[t] && !(whole && blk && blk[t] >= 0)) {
                F[pos[s->assign[t]]++] = t;
            }
        }
        nf = fs[P];
        for (int32_t r = 0; r < P; r++) sort_by_load(F + fs[r], fs[r + 1] - fs[r], load, tmp);
        n = 0;
        for (int32_t t = 0; t < K; t++) {
            if (s->assign[t] != start[t] && !(whole && blk && blk[t] >= 0)) M[n++] = t;
        }
        sort_by_load(M, n, load, tmp);
        for (int32_t i = n - 1; i >= 0 && nf > 0; i--) {
            int32_t t = M[i], q = s->assign[t], h = start[t];
            int stop = ((n - 1 - i) & 255) == 0 ? econ_stop(ctl, t0) : 0;
            if (stop == 1) WPART_FAIL(WPART_ECANCELLED, "economize: stopped");
            if (stop == 2) goto cleanup;
            if (q == h) continue;
            int32_t lo = fs[h], hi = fs[h + 1];
            if (window) { /* a necessary condition on the load of the task taken back */
                double ah = p->rank_alpha ? p->rank_alpha[h] : s->c.alpha;
                double aq = p->rank_alpha ? p->rank_alpha[q] : s->c.alpha;
                if (ah > 0) {
                    double x = load[t] - (thr - s->work[h] + dmargin) / ah;
                    lo = bound(F, lo, hi, load, x - 1e-9 * fabs(x), 0);
                }
                if (aq > 0) {
                    double y = load[t] + (thr - s->work[q] + dmargin) / aq;
                    hi = bound(F, lo, hi, load, y + 1e-9 * fabs(y), 1);
                }
            }
            /* the ECON_SCAN nearest loads; the home's own tasks first (both come back) */
            int32_t c0 = bound(F, lo, hi, load, load[t], 0), L = c0 - 1, R = c0, nc = 0;
            int32_t seen = 0;
            int32_t *cand = tmp; /* tmp is free here (sorting scratch) */
            while ((L >= lo || R < hi) && nc < ECON_EVALS && seen++ < ECON_SCAN) {
                int32_t idx;
                if (L < lo) idx = R++;
                else if (R >= hi) idx = L--;
                else idx = load[F[R]] - load[t] <= load[t] - load[F[L]] ? R++ : L--;
                int32_t u = F[idx];
                if (s->assign[u] != h || start[u] == h) continue; /* moved since */
                if (!swap_may_fit(s, q, t, h, u)) continue;
                cand[nc++] = u;
            }
            int done = 0, evals = 0;
            for (int pass = 0; pass < 2 && !done; pass++) {
                for (int32_t k = 0; k < nc && !done && evals < ECON_EVALS; k++) {
                    int32_t u = cand[k];
                    if ((start[u] == q) != (pass == 0)) continue;
                    evals++;
                    WPART_CHECK(try_step(s, q, &t, 1, h, &u, 1, thr, &done));
                }
            }
            gained += done;
        }
        int64_t left = 0; /* tasks still off their start */
        for (int32_t t = 0; t < K; t++) left += s->assign[t] != start[t];
        if (gained == 0 || (round >= 3 && 1000 * gained < left)) break; /* little to gain */
    }
cleanup:
    free(M);
    free(F);
    free(tmp);
    free(fs);
    free(pos);
    return st;
}

wpart_status_t wpart_tasks_economize(const wpart_tasks_problem_t *p,
                                     const wpart_tasks_coeffs_t *c, const int32_t *start,
                                     int32_t *assign_inout, int whole_blocks,
                                     const wpart_control_t *control, int64_t *n_back)
{
    wpart_status_t st = WPART_OK;
    wpart_tasks_state_t *s = NULL;
    int32_t *perm = NULL, *a = NULL;
    if (n_back) *n_back = 0;
    WPART_CHECK(wpart_tasks_validate(p));
    WPART_CHECK(wpart_tasks_validate_coeffs(c));
    if (p->n_tasks > 0 && (!start || !assign_inout)) {
        WPART_FAIL(WPART_EINVAL, "economize: start or assignment is NULL");
    }
    WPART_CHECK(wpart_tasks_validate_assignment(p, start));
    WPART_CHECK(wpart_tasks_validate_assignment(p, assign_inout));
    const int32_t P = p->n_ranks, K = p->n_tasks;
    if (K == 0) return WPART_OK;
    for (int32_t t = 0; t < K; t++) {
        if (p->task_migratable && !p->task_migratable[t] && assign_inout[t] != start[t]) {
            WPART_FAIL(WPART_EINVAL, "economize: pinned task %" PRId32 " is off its start", t);
        }
    }
    double w_in;
    WPART_CHECK(wpart_tasks_evaluate(p, c, assign_inout, NULL, &w_in));
    if (!isfinite(w_in)) return WPART_OK; /* above a cap: nothing to keep */
    int64_t off_in = 0;
    for (int32_t t = 0; t < K; t++) off_in += assign_inout[t] != start[t];
    if (off_in == 0) return WPART_OK;
    double t0 = wpart_i_now();
    perm = wpart_i_malloc(P, sizeof(int32_t));
    a = wpart_i_malloc(K, sizeof(int32_t));
    if (!perm || !a) WPART_FAIL(WPART_ENOMEM, "economize: out of memory");
    WPART_CHECK(wpart_tasks_state_create(p, c, assign_inout, &s));
    double thr = wpart_tasks_i_state_wmax(s);
    if (w_in > thr) thr = w_in;
    WPART_CHECK(relabel(s, start, thr, perm));
    int relabelled = 0;
    for (int32_t j = 0; j < P; j++) relabelled |= perm[j] != j;
    if (relabelled) {
        for (int32_t t = 0; t < K; t++) a[t] = perm[assign_inout[t]];
        wpart_tasks_state_free(s);
        s = NULL;
        WPART_CHECK(wpart_tasks_state_create(p, c, a, &s));
    }
    WPART_CHECK(task_steps(s, start, thr, whole_blocks != 0, control, t0));
    memcpy(a, s->assign, sizeof(int32_t) * (size_t)K);
    double w_out;
    WPART_CHECK(wpart_tasks_evaluate(p, c, a, NULL, &w_out));
    int64_t off_out = 0;
    for (int32_t t = 0; t < K; t++) off_out += a[t] != start[t];
    if (w_out <= w_in && off_out < off_in) { /* else rounding: the input is kept */
        memcpy(assign_inout, a, sizeof(int32_t) * (size_t)K);
        if (n_back) *n_back = off_in - off_out;
    }
cleanup:
    wpart_tasks_state_free(s);
    free(perm);
    free(a);
    return st;
}
