/*
 * baselines.c -- centralised references of the task family: greedy LPT over block clusters and
 * exhaustive search (spec 003 section 4).
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "tasks_internal.h"

/* ------------------------------------------------------------------ global clusters ----- */
/* Units: one per block that has migratable tasks (all of them) and one per migratable
 * block-less task (per_task: one per migratable task), in order of their first task. Pinned
 * tasks are in no unit. */
static wpart_status_t global_units(const wpart_tasks_problem_t *p, int per_task, int32_t **ptr_out,
                                   int32_t **tasks_out, int32_t *n_out)
{
    wpart_status_t st = WPART_OK;
    const int32_t K = p->n_tasks, N = p->n_blocks;
    const uint8_t *mig = p->task_migratable;
    int32_t *uid = wpart_i_malloc(N > 0 ? N : 1, sizeof(int32_t));
    int32_t *ptr = wpart_i_calloc((int64_t)N + K + 1, sizeof(int32_t));
    int32_t *tasks = wpart_i_malloc(K > 0 ? K : 1, sizeof(int32_t));
    int32_t *unit_of = wpart_i_malloc(K > 0 ? K : 1, sizeof(int32_t));
    int32_t *fill = NULL;
    if (!uid || !ptr || !tasks || !unit_of) WPART_FAIL(WPART_ENOMEM, "out of memory");
    int32_t n = 0;
    for (int32_t b = 0; b < N; b++) uid[b] = -1;
    for (int32_t t = 0; t < K; t++) {
        if (mig && !mig[t]) {
            unit_of[t] = -1;
            continue;
        }
        int32_t b = p->task_block && !per_task ? p->task_block[t] : -1;
        if (b >= 0) {
            if (uid[b] < 0) uid[b] = n++;
            unit_of[t] = uid[b];
        } else {
            unit_of[t] = n++;
        }
        ptr[unit_of[t] + 1]++;
    }
    for (int32_t u = 0; u < n; u++) ptr[u + 1] += ptr[u];
    fill = wpart_i_malloc((int64_t)n + 1, sizeof(int32_t));
    if (!fill) WPART_FAIL(WPART_ENOMEM, "out of memory");
    memcpy(fill, ptr, sizeof(int32_t) * ((size_t)n + 1));
    for (int32_t t = 0; t < K; t++) {
        if (unit_of[t] >= 0) tasks[fill[unit_of[t]]++] = t;
    }
    *ptr_out = ptr;
    *tasks_out = tasks;
    *n_out = n;
    ptr = tasks = NULL;
cleanup:
    free(uid);
    free(ptr);
    free(tasks);
    free(unit_of);
    free(fill);
    return st;
}

/* Pinned tasks need `initial` (their rank); checks it when some task is pinned. */
static wpart_status_t check_initial(const wpart_tasks_problem_t *p, const int32_t *initial,
                                    int *any_pinned)
{
    *any_pinned = 0;
    if (!p->task_migratable) return WPART_OK;
    for (int32_t t = 0; t < p->n_tasks; t++) {
        if (!p->task_migratable[t]) {
            *any_pinned = 1;
            break;
        }
    }
    if (!*any_pinned) return WPART_OK;
    if (initial == NULL) {
        return wpart_i_error(WPART_EINVAL, "initial is NULL but some tasks are pinned");
    }
    return wpart_tasks_validate_assignment(p, initial);
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

/* Greedy's view of a set A about to be placed: its sums and its bytes per rank. */
typedef struct {
    double load, fp, wk, intra, out_tot, in_tot;
    int32_t blk; /* block of A's tasks (-1: none or several, then per task in blocks[]) */
    double *to, *from;   /* I: bytes A -> tasks on r, tasks on r -> A */
    int32_t *touched, nt; /* ranks with to/from set */
    int8_t *seen;         /* I */
} gview_t;

/* Fills v with A's sums; where[t] is the rank of a placed task (-1: not placed), inA marks A. */
static void gview_build(const wpart_tasks_problem_t *p, const int64_t *inc_ptr,
                        const int64_t *inc_edge, const int32_t *where, int8_t *inA,
                        const int32_t *A, int32_t na, gview_t *v)
{
    v->load = v->fp = v->wk = v->intra = v->out_tot = v->in_tot = 0.0;
    v->nt = 0;
    v->blk = -1;
    for (int32_t i = 0; i < na; i++) inA[A[i]] = 1;
    for (int32_t i = 0; i < na; i++) {
        int32_t x = A[i];
        v->load += p->task_load[x];
        if (p->task_footprint) v->fp += p->task_footprint[x];
        if (p->task_working && p->task_working[x] > v->wk) v->wk = p->task_working[x];
        for (int64_t j = inc_ptr[x]; j < inc_ptr[x + 1]; j++) {
            int64_t e = inc_edge[j];
            int32_t a = p->edge_src[e], b = p->edge_dst[e];
            double vol = p->edge_bytes[e];
            if (inA[a] && inA[b]) {
                if (x == a) v->intra += vol; /* met from both ends (a self-edge once) */
                continue;
            }
            int32_t o = x == a ? b : a;
            int32_t q = where[o];
            if (x == a) v->out_tot += vol;
            else v->in_tot += vol;
            if (q < 0) continue;
            if (!v->seen[q]) {
                v->seen[q] = 1;
                v->to[q] = v->from[q] = 0.0;
                v->touched[v->nt++] = q;
            }
            if (x == a) v->to[q] += vol;
            else v->from[q] += vol;
        }
    }
    for (int32_t i = 0; i < na; i++) inA[A[i]] = 0;
}

static void gview_reset(gview_t *v)
{
    for (int32_t i = 0; i < v->nt; i++) v->seen[v->touched[i]] = 0;
    v->nt = 0;
}

/* Aggregates of rank r once A (of view v; all its tasks in block blk, or -1) is placed on it:
 * the bytes to tasks not placed yet are off-rank. cnt: N x I block counts (block-major). */
static void gview_on(const wpart_tasks_problem_t *p, const gview_t *v, int32_t blk,
                     const int32_t *cnt, int32_t r, const wpart_tasks_rank_t *b,
                     wpart_tasks_rank_t *o)
{
    double to = v->seen[r] ? v->to[r] : 0.0, from = v->seen[r] ? v->from[r] : 0.0;
    *o = *b;
    o->load += v->load;
    o->fp += v->fp;
    if (v->wk > o->wmax) o->wmax = v->wk;
    o->loc += to + from + v->intra;
    o->out += (v->out_tot - to) - from;
    o->in += (v->in_tot - from) - to;
    if (blk >= 0 && cnt[(int64_t)blk * p->n_ranks + r] == 0) {
        wpart_tasks_i_presence(o, 0, 1, p->block_size[blk], p->block_home[blk] != r);
    }
}

/* Places A on r: aggregates, block counts and where[]. */
static void gplace(const wpart_tasks_problem_t *p, const gview_t *v, const int32_t *A,
                   int32_t na, int32_t r, wpart_tasks_rank_t *rank, int32_t *cnt, int32_t *where)
{
    const int64_t I = p->n_ranks;
    if (v->blk >= 0 || !p->task_block) {
        wpart_tasks_rank_t o;
        gview_on(p, v, v->blk, cnt, r, &rank[r], &o);
        rank[r] = o;
    } else { /* tasks of several blocks (pinned tasks of one rank): block by block */
        wpart_tasks_rank_t o;
        gview_on(p, v, -1, cnt, r, &rank[r], &o);
        for (int32_t i = 0; i < na; i++) {
            int32_t b = p->task_block[A[i]];
            if (b >= 0 && cnt[b * I + r] == 0) {
                wpart_tasks_i_presence(&o, 0, 1, p->block_size[b], p->block_home[b] != r);
                cnt[b * I + r] = -1; /* present; counted below */
            }
        }
        for (int32_t i = 0; i < na; i++) {
            int32_t b = p->task_block[A[i]];
            if (b >= 0 && cnt[b * I + r] < 0) cnt[b * I + r] = 0;
        }
        rank[r] = o;
    }
    rank[r].cnt += na;
    for (int32_t i = 0; i < na; i++) {
        where[A[i]] = r;
        int32_t b = p->task_block ? p->task_block[A[i]] : -1;
        if (b >= 0) cnt[b * I + r]++;
    }
}

wpart_status_t wpart_tasks_greedy(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                                  const int32_t *initial, int32_t *assign_out)
{
    wpart_status_t st = WPART_OK;
    int32_t *ptr = NULL, *tasks = NULL, *where = NULL, *cnt = NULL, *pin = NULL;
    int64_t *inc_ptr = NULL, *inc_edge = NULL;
    int8_t *inA = NULL;
    wpart_tasks_rank_t *rank = NULL;
    unit_load_t *ul = NULL;
    gview_t v = {0};
    WPART_CHECK(wpart_tasks_validate(p));
    WPART_CHECK(wpart_tasks_validate_coeffs(c));
    if (assign_out == NULL && p->n_tasks > 0) WPART_FAIL(WPART_EINVAL, "assign_out is NULL");
    int any_pinned;
    WPART_CHECK(check_initial(p, initial, &any_pinned));
    const int32_t I = p->n_ranks, K = p->n_tasks, N = p->n_blocks;
    const int64_t M = p->n_edges;
    const int32_t KK = K > 0 ? K : 1;
    int64_t in;
    if (!wpart_i_mul_size(I, N > 0 ? N : 1, &in)) {
        WPART_FAIL(WPART_EOVERFLOW, "n_ranks * n_blocks overflows");
    }
    int32_t n;
    WPART_CHECK(global_units(p, 0, &ptr, &tasks, &n));
    where = wpart_i_malloc(KK, sizeof(int32_t));
    pin = wpart_i_malloc(KK, sizeof(int32_t));
    inA = wpart_i_calloc(KK, 1);
    cnt = wpart_i_calloc(in, sizeof(int32_t));
    rank = wpart_i_calloc(I, sizeof(*rank));
    inc_ptr = wpart_i_calloc((int64_t)K + 1, sizeof(int64_t));
    inc_edge = wpart_i_malloc(2 * M > 0 ? 2 * M : 1, sizeof(int64_t));
    ul = wpart_i_malloc(n > 0 ? n : 1, sizeof(unit_load_t));
    v.to = wpart_i_malloc(I, sizeof(double));
    v.from = wpart_i_malloc(I, sizeof(double));
    v.touched = wpart_i_malloc(I, sizeof(int32_t));
    v.seen = wpart_i_calloc(I, 1);
    if (!where || !pin || !inA || !cnt || !rank || !inc_ptr || !inc_edge || !ul || !v.to ||
        !v.from || !v.touched || !v.seen) {
        WPART_FAIL(WPART_ENOMEM, "greedy: out of memory");
    }
    /* incidence lists (a self-edge once) */
    for (int64_t e = 0; e < M; e++) {
        inc_ptr[p->edge_src[e] + 1]++;
        if (p->edge_dst[e] != p->edge_src[e]) inc_ptr[p->edge_dst[e] + 1]++;
    }
    for (int32_t k = 0; k < K; k++) inc_ptr[k + 1] += inc_ptr[k];
    {
        int64_t *fl = wpart_i_malloc((int64_t)K + 1, sizeof(int64_t));
        if (!fl) WPART_FAIL(WPART_ENOMEM, "greedy: out of memory");
        memcpy(fl, inc_ptr, sizeof(int64_t) * ((size_t)K + 1));
        for (int64_t e = 0; e < M; e++) {
            inc_edge[fl[p->edge_src[e]]++] = e;
            if (p->edge_dst[e] != p->edge_src[e]) inc_edge[fl[p->edge_dst[e]]++] = e;
        }
        free(fl);
    }
    for (int32_t t = 0; t < K; t++) where[t] = -1;
    /* pinned tasks first, on their rank of `initial`, rank by rank */
    if (any_pinned) { /* pin[] = pinned tasks by rank (counting sort), then rank by rank */
        int32_t *first = wpart_i_calloc((int64_t)I + 1, sizeof(int32_t));
        if (!first) WPART_FAIL(WPART_ENOMEM, "greedy: out of memory");
        for (int32_t t = 0; t < K; t++) {
            if (!p->task_migratable[t]) first[initial[t] + 1]++;
        }
        for (int32_t r = 0; r < I; r++) first[r + 1] += first[r];
        for (int32_t t = 0; t < K; t++) {
            if (!p->task_migratable[t]) pin[first[initial[t]]++] = t;
        }
        for (int32_t r = I; r > 0; r--) first[r] = first[r - 1];
        first[0] = 0;
        for (int32_t r = 0; r < I; r++) {
            if (first[r + 1] == first[r]) continue;
            gview_build(p, inc_ptr, inc_edge, where, inA, pin + first[r], first[r + 1] - first[r],
                        &v);
            gplace(p, &v, pin + first[r], first[r + 1] - first[r], r, rank, cnt, where);
            gview_reset(&v);
        }
        free(first);
    }
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
        gview_build(p, inc_ptr, inc_edge, where, inA, A, na, &v);
        v.blk = p->task_block ? p->task_block[A[0]] : -1; /* a unit is one block or one task */
        double bw = INFINITY;
        int32_t br = -1;
        int fin = 0; /* a rank where the work is finite before the memory check */
        /* W of every rank after taking the unit: gview_on + wpart_tasks_i_work, the same
           operations in the same order, over the ranks' aggregates */
        const int32_t ub = v.blk;
        const double bsz = ub >= 0 ? p->block_size[ub] : 0.0;
        const int32_t bhome = ub >= 0 ? p->block_home[ub] : -1;
        const int32_t *cb = ub >= 0 ? cnt + (int64_t)ub * I : NULL;
        const int capped = c->enforce_memory && p->rank_mem_cap;
        for (int32_t r = 0; r < I; r++) {
            const wpart_tasks_rank_t *b0 = &rank[r];
            double to = 0.0, from = 0.0;
            if (v.nt > 0 && v.seen[r]) {
                to = v.to[r];
                from = v.from[r];
            }
            double load = b0->load + v.load;
            double loc = b0->loc + (to + from + v.intra);
            double out = b0->out + ((v.out_tot - to) - from);
            double vin = b0->in + ((v.in_tot - from) - to);
            double h = b0->h, ms = b0->ms;
            if (cb && cb[r] == 0) {
                ms += bsz;
                if (bhome != r) h += bsz;
            }
            double a = p->rank_alpha ? p->rank_alpha[r] : c->alpha;
            double w2 = a * load + c->beta * (out > vin ? out : vin) + c->gamma * loc +
                        c->delta * h;
            fin |= isfinite(w2) != 0;
            if (capped) {
                double fp = b0->fp + v.fp;
                double wm = v.wk > b0->wmax ? v.wk : b0->wmax;
                double base = p->rank_baseline ? p->rank_baseline[r] : 0.0;
                if (base + fp + wm + ms > p->rank_mem_cap[r]) w2 = INFINITY;
            }
            if (w2 < bw) {
                bw = w2;
                br = r;
            }
        }
        if (br < 0) {
            gview_reset(&v);
            if (!fin) {
                WPART_FAIL(WPART_EOVERFLOW, "greedy: overflow: with the cluster of task %" PRId32
                           " (%" PRId32 " tasks) the work is not finite on any rank (its loads, "
                           "bytes or homing terms sum above the largest float); no memory cap "
                           "is exceeded", A[0], na);
            }
            WPART_FAIL(WPART_EINVAL, "greedy: the cluster of task %" PRId32
                       " (%" PRId32 " tasks) fits on no rank under the memory caps", A[0], na);
        }
        gplace(p, &v, A, na, br, rank, cnt, where);
        gview_reset(&v);
    }
    if (K > 0) memcpy(assign_out, where, sizeof(int32_t) * (size_t)K);
cleanup:
    free(ptr);
    free(tasks);
    free(where);
    free(pin);
    free(inA);
    free(cnt);
    free(rank);
    free(inc_ptr);
    free(inc_edge);
    free(ul);
    free(v.to);
    free(v.from);
    free(v.touched);
    free(v.seen);
    return st;
}

wpart_status_t wpart_tasks_brute_force(const wpart_tasks_problem_t *p,
                                       const wpart_tasks_coeffs_t *c, int preserve_blocks,
                                       int64_t max_states, const wpart_control_t *ctl,
                                       const int32_t *initial, int32_t *assign_out,
                                       double *w_max)
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
    int any_pinned;
    WPART_CHECK(check_initial(p, initial, &any_pinned));
    int32_t n;
    WPART_CHECK(global_units(p, !preserve_blocks, &ptr, &tasks, &n));
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
    if (any_pinned) { /* pinned tasks stay on their rank; the units start on rank 0 */
        for (int32_t t = 0; t < K; t++) a[t] = p->task_migratable[t] ? 0 : initial[t];
    }
    for (int64_t it = 0; it < total; it++) {
        double w;
        wpart_tasks_i_eval_full(p, c, a, v, cnt, NULL, &w);
        if (w < best) {
            best = w;
            memcpy(assign_out, a, sizeof(int32_t) * (size_t)K);
        }
        /* polled after the evaluation: a stop (a time limit of 1e-9 s) always leaves the
         * first assignment evaluated in assign_out */
        if ((it & 0xFFF) == 0 && it + 1 < total) {
            WPART_CHECK(wpart_i_poll(ctl, t0, (double)(it + 1), (double)total));
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
