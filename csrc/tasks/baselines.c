/*
 * baselines.c -- centralised references of the task family: greedy LPT over block clusters and
 * exhaustive search (spec 003 section 4).
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "tasks_internal.h"

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
