/*
 * model.c -- the CCM work and memory model (spec 003 section 1): validation, full evaluation and
 * the incremental engine with exact exchange deltas (section 1.8).
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "tasks_internal.h"

void wpart_tasks_coeffs_init(wpart_tasks_coeffs_t *c)
{
    c->alpha = 1.0;
    c->beta = 0.0;
    c->gamma = 0.0;
    c->delta = 0.0;
    c->enforce_memory = 1;
}

static wpart_status_t check_values(const double *a, int64_t n, const char *name, int allow_inf)
{
    if (n > 0 && a == NULL) {
        return wpart_i_error(WPART_EINVAL, "%s is NULL", name);
    }
    for (int64_t i = 0; i < n; i++) {
        double v = a[i];
        if (isnan(v) || v < 0 || (!allow_inf && isinf(v))) {
            return wpart_i_error(WPART_EINVAL, "%s[%" PRId64 "] = %g must be %s", name, i, v,
                                 allow_inf ? "non-negative (inf allowed)"
                                           : "finite and non-negative");
        }
    }
    return WPART_OK;
}

static wpart_status_t check_ids(const int32_t *a, int64_t n, const char *name, int32_t lo,
                                int32_t hi)
{
    if (n > 0 && a == NULL) {
        return wpart_i_error(WPART_EINVAL, "%s is NULL", name);
    }
    for (int64_t i = 0; i < n; i++) {
        if (a[i] < lo || a[i] >= hi) {
            return wpart_i_error(WPART_EINVAL, "%s[%" PRId64 "] = %" PRId32
                                 " is out of range [%" PRId32 ", %" PRId32 ")",
                                 name, i, a[i], lo, hi);
        }
    }
    return WPART_OK;
}

wpart_status_t wpart_tasks_validate(const wpart_tasks_problem_t *p)
{
    wpart_status_t st;
    if (p == NULL) {
        return wpart_i_error(WPART_EINVAL, "problem is NULL");
    }
    if (p->n_ranks < 1) {
        return wpart_i_error(WPART_EINVAL, "n_ranks = %" PRId32 " must be >= 1", p->n_ranks);
    }
    if (p->n_tasks < 0 || p->n_blocks < 0 || p->n_edges < 0) {
        return wpart_i_error(WPART_EINVAL, "negative size (n_tasks, n_blocks or n_edges)");
    }
    if ((st = check_values(p->task_load, p->n_tasks, "task_load", 0)) != WPART_OK) {
        return st;
    }
    if (p->task_footprint &&
        (st = check_values(p->task_footprint, p->n_tasks, "task_footprint", 0)) != WPART_OK) {
        return st;
    }
    if (p->task_working &&
        (st = check_values(p->task_working, p->n_tasks, "task_working", 0)) != WPART_OK) {
        return st;
    }
    if (p->task_block &&
        (st = check_ids(p->task_block, p->n_tasks, "task_block", -1, p->n_blocks)) != WPART_OK) {
        return st;
    }
    if ((st = check_values(p->block_size, p->n_blocks, "block_size", 0)) != WPART_OK) {
        return st;
    }
    if ((st = check_ids(p->block_home, p->n_blocks, "block_home", 0, p->n_ranks)) != WPART_OK) {
        return st;
    }
    if ((st = check_ids(p->edge_src, p->n_edges, "edge_src", 0, p->n_tasks)) != WPART_OK) {
        return st;
    }
    if ((st = check_ids(p->edge_dst, p->n_edges, "edge_dst", 0, p->n_tasks)) != WPART_OK) {
        return st;
    }
    if ((st = check_values(p->edge_bytes, p->n_edges, "edge_bytes", 0)) != WPART_OK) {
        return st;
    }
    if (p->rank_baseline &&
        (st = check_values(p->rank_baseline, p->n_ranks, "rank_baseline", 0)) != WPART_OK) {
        return st;
    }
    if (p->rank_mem_cap &&
        (st = check_values(p->rank_mem_cap, p->n_ranks, "rank_mem_cap", 1)) != WPART_OK) {
        return st;
    }
    if (p->rank_alpha &&
        (st = check_values(p->rank_alpha, p->n_ranks, "rank_alpha", 0)) != WPART_OK) {
        return st;
    }
    return WPART_OK;
}

wpart_status_t wpart_tasks_validate_coeffs(const wpart_tasks_coeffs_t *c)
{
    if (c == NULL) {
        return wpart_i_error(WPART_EINVAL, "coefficients are NULL");
    }
    const double v[4] = {c->alpha, c->beta, c->gamma, c->delta};
    const char *names[4] = {"alpha", "beta", "gamma", "delta"};
    for (int i = 0; i < 4; i++) {
        if (!isfinite(v[i]) || v[i] < 0) {
            return wpart_i_error(WPART_EINVAL, "%s = %g must be finite and non-negative",
                                 names[i], v[i]);
        }
    }
    return WPART_OK;
}

wpart_status_t wpart_tasks_validate_assignment(const wpart_tasks_problem_t *p,
                                               const int32_t *assign)
{
    return check_ids(assign, p->n_tasks, "assignment", 0, p->n_ranks);
}

/* ------------------------------------------------------------------ work of one rank ---- */

double wpart_tasks_i_memory(const wpart_tasks_problem_t *p, int32_t r, const wpart_tasks_rank_t *v)
{
    double base = p->rank_baseline ? p->rank_baseline[r] : 0.0;
    return base + v->fp + v->wmax + v->ms;
}

double wpart_tasks_i_work(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                          int32_t r, const wpart_tasks_rank_t *v)
{
    double a = p->rank_alpha ? p->rank_alpha[r] : c->alpha;
    double w = a * v->load + c->beta * (v->out > v->in ? v->out : v->in) + c->gamma * v->loc +
               c->delta * v->h;
    if (c->enforce_memory && p->rank_mem_cap) {
        double cap = p->rank_mem_cap[r];
        if (wpart_tasks_i_memory(p, r, v) > cap) {
            return INFINITY;
        }
    }
    return w;
}

static void fill_report(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c, int32_t r,
                        const wpart_tasks_rank_t *v, const wpart_tasks_report_t *out)
{
    if (out == NULL) {
        return;
    }
    if (out->load) out->load[r] = v->load;
    if (out->vol_out) out->vol_out[r] = v->out;
    if (out->vol_in) out->vol_in[r] = v->in;
    if (out->vol_local) out->vol_local[r] = v->loc;
    if (out->homing) out->homing[r] = v->h;
    if (out->memory) out->memory[r] = wpart_tasks_i_memory(p, r, v);
    if (out->work) out->work[r] = wpart_tasks_i_work(p, c, r, v);
    if (out->n_blocks_present) out->n_blocks_present[r] = v->nblk;
    if (out->n_blocks_off_home) out->n_blocks_off_home[r] = v->noff;
}

/* ------------------------------------------------------------------ full evaluation ----- */

wpart_status_t wpart_tasks_i_eval_full(const wpart_tasks_problem_t *p,
                                       const wpart_tasks_coeffs_t *c, const int32_t *assign,
                                       wpart_tasks_rank_t *v, int32_t *cnt,
                                       const wpart_tasks_report_t *out, double *w_max)
{
    const int32_t I = p->n_ranks, K = p->n_tasks, N = p->n_blocks;
    memset(v, 0, sizeof(*v) * (size_t)I);
    for (int32_t k = 0; k < K; k++) {
        int32_t r = assign[k];
        v[r].load += p->task_load[k];
        if (p->task_footprint) v[r].fp += p->task_footprint[k];
        if (p->task_working && p->task_working[k] > v[r].wmax) v[r].wmax = p->task_working[k];
        v[r].cnt++;
        int32_t s = p->task_block ? p->task_block[k] : -1;
        if (s >= 0 && cnt[(int64_t)r * N + s]++ == 0) {
            v[r].ms += p->block_size[s];
            v[r].nblk++;
            if (p->block_home[s] != r) {
                v[r].h += p->block_size[s];
                v[r].noff++;
            }
        }
    }
    for (int64_t e = 0; e < p->n_edges; e++) {
        int32_t ra = assign[p->edge_src[e]], rb = assign[p->edge_dst[e]];
        double b = p->edge_bytes[e];
        if (ra == rb) {
            v[ra].loc += b;
        } else {
            v[ra].out += b;
            v[rb].in += b;
        }
    }
    double wm = 0.0;
    for (int32_t r = 0; r < I; r++) {
        double w = wpart_tasks_i_work(p, c, r, &v[r]);
        wm = w > wm ? w : wm;
        fill_report(p, c, r, &v[r], out);
    }
    /* reset the counters so the workspace can be reused */
    for (int32_t k = 0; k < K; k++) {
        int32_t s = p->task_block ? p->task_block[k] : -1;
        if (s >= 0) cnt[(int64_t)assign[k] * N + s] = 0;
    }
    if (w_max) *w_max = wm;
    return WPART_OK;
}

wpart_status_t wpart_tasks_evaluate(const wpart_tasks_problem_t *p,
                                    const wpart_tasks_coeffs_t *c, const int32_t *assign,
                                    const wpart_tasks_report_t *out, double *w_max)
{
    wpart_status_t st = WPART_OK;
    wpart_tasks_rank_t *v = NULL;
    int32_t *cnt = NULL;
    WPART_CHECK(wpart_tasks_validate(p));
    WPART_CHECK(wpart_tasks_validate_coeffs(c));
    if (assign == NULL && p->n_tasks > 0) WPART_FAIL(WPART_EINVAL, "assignment is NULL");
    WPART_CHECK(wpart_tasks_validate_assignment(p, assign));
    int64_t in;
    if (!wpart_i_mul_size(p->n_ranks, p->n_blocks > 0 ? p->n_blocks : 1, &in)) {
        WPART_FAIL(WPART_EOVERFLOW, "n_ranks * n_blocks overflows");
    }
    v = wpart_i_calloc(p->n_ranks, sizeof(*v));
    cnt = wpart_i_calloc(in, sizeof(*cnt));
    if (!v || !cnt) WPART_FAIL(WPART_ENOMEM, "evaluate: out of memory");
    st = wpart_tasks_i_eval_full(p, c, assign, v, cnt, out, w_max);
cleanup:
    free(v);
    free(cnt);
    return st;
}

/* ------------------------------------------------------------------ incremental state --- */

void wpart_tasks_state_free(wpart_tasks_state_t *s)
{
    if (s == NULL) return;
    free(s->assign);
    free(s->inc_ptr);
    free(s->inc_edge);
    free(s->next);
    free(s->prev);
    free(s->head);
    free(s->rank);
    free(s->work);
    free(s->refcnt);
    free(s->mark);
    free(s->d1);
    free(s->d2);
    free(s->touched);
    free(s->btouched);
    free(s->scr);
    free(s);
}

static void list_push(wpart_tasks_state_t *s, int32_t r, int32_t k)
{
    s->prev[k] = -1;
    s->next[k] = s->head[r];
    if (s->head[r] >= 0) s->prev[s->head[r]] = k;
    s->head[r] = k;
}

static void list_remove(wpart_tasks_state_t *s, int32_t r, int32_t k)
{
    if (s->prev[k] >= 0) s->next[s->prev[k]] = s->next[k];
    else s->head[r] = s->next[k];
    if (s->next[k] >= 0) s->prev[s->next[k]] = s->prev[k];
}

wpart_status_t wpart_tasks_state_create(const wpart_tasks_problem_t *p,
                                        const wpart_tasks_coeffs_t *c, const int32_t *assign,
                                        wpart_tasks_state_t **out)
{
    wpart_status_t st = WPART_OK;
    wpart_tasks_state_t *s = NULL;
    if (out == NULL) return wpart_i_error(WPART_EINVAL, "out is NULL");
    *out = NULL;
    WPART_CHECK(wpart_tasks_validate(p));
    WPART_CHECK(wpart_tasks_validate_coeffs(c));
    if (assign == NULL && p->n_tasks > 0) WPART_FAIL(WPART_EINVAL, "assignment is NULL");
    WPART_CHECK(wpart_tasks_validate_assignment(p, assign));
    const int32_t I = p->n_ranks, K = p->n_tasks, N = p->n_blocks;
    const int64_t M = p->n_edges;
    int64_t in;
    if (!wpart_i_mul_size(I, N > 0 ? N : 1, &in)) {
        WPART_FAIL(WPART_EOVERFLOW, "n_ranks * n_blocks overflows");
    }
    s = wpart_i_calloc(1, sizeof(*s));
    if (!s) WPART_FAIL(WPART_ENOMEM, "state: out of memory");
    s->p = *p;
    s->c = *c;
    s->assign = wpart_i_malloc(K > 0 ? K : 1, sizeof(int32_t));
    s->inc_ptr = wpart_i_calloc((int64_t)K + 1, sizeof(int64_t));
    s->inc_edge = wpart_i_malloc(2 * M > 0 ? 2 * M : 1, sizeof(int64_t));
    s->next = wpart_i_malloc(K > 0 ? K : 1, sizeof(int32_t));
    s->prev = wpart_i_malloc(K > 0 ? K : 1, sizeof(int32_t));
    s->head = wpart_i_malloc(I, sizeof(int32_t));
    s->rank = wpart_i_calloc(I, sizeof(wpart_tasks_rank_t));
    s->work = wpart_i_calloc(I, sizeof(double));
    s->refcnt = wpart_i_calloc(in, sizeof(int32_t));
    s->mark = wpart_i_calloc(K > 0 ? K : 1, sizeof(int8_t));
    s->d1 = wpart_i_calloc(N > 0 ? N : 1, sizeof(int32_t));
    s->d2 = wpart_i_calloc(N > 0 ? N : 1, sizeof(int32_t));
    s->touched = wpart_i_malloc(K > 0 ? K : 1, sizeof(int32_t));
    s->btouched = wpart_i_calloc(N > 0 ? N : 1, sizeof(int8_t));
    if (!s->assign || !s->inc_ptr || !s->inc_edge || !s->next || !s->prev || !s->head ||
        !s->rank || !s->work || !s->refcnt || !s->mark || !s->d1 || !s->d2 || !s->touched ||
        !s->btouched) {
        WPART_FAIL(WPART_ENOMEM, "state: out of memory");
    }
    if (K > 0) memcpy(s->assign, assign, sizeof(int32_t) * (size_t)K);
    /* incidence lists (a self-edge is listed once) */
    for (int64_t e = 0; e < M; e++) {
        s->inc_ptr[p->edge_src[e] + 1]++;
        if (p->edge_dst[e] != p->edge_src[e]) s->inc_ptr[p->edge_dst[e] + 1]++;
    }
    for (int32_t k = 0; k < K; k++) s->inc_ptr[k + 1] += s->inc_ptr[k];
    {
        int64_t *fill = wpart_i_malloc((int64_t)K + 1, sizeof(int64_t));
        if (!fill) WPART_FAIL(WPART_ENOMEM, "state: out of memory");
        memcpy(fill, s->inc_ptr, sizeof(int64_t) * ((size_t)K + 1));
        for (int64_t e = 0; e < M; e++) {
            s->inc_edge[fill[p->edge_src[e]]++] = e;
            if (p->edge_dst[e] != p->edge_src[e]) s->inc_edge[fill[p->edge_dst[e]]++] = e;
        }
        free(fill);
    }
    for (int32_t r = 0; r < I; r++) s->head[r] = -1;
    for (int32_t k = K - 1; k >= 0; k--) list_push(s, assign[k], k);
    /* aggregates by a full evaluation; keep the counters */
    WPART_CHECK(wpart_tasks_i_eval_full(p, c, assign, s->rank, s->refcnt, NULL, NULL));
    for (int32_t k = 0; k < K; k++) {
        int32_t b = p->task_block ? p->task_block[k] : -1;
        if (b >= 0) s->refcnt[(int64_t)assign[k] * N + b]++;
    }
    for (int32_t r = 0; r < I; r++) s->work[r] = wpart_tasks_i_work(p, c, r, &s->rank[r]);
    *out = s;
    s = NULL;
cleanup:
    wpart_tasks_state_free(s);
    return st;
}

const int32_t *wpart_tasks_state_assignment(const wpart_tasks_state_t *s) { return s->assign; }

wpart_status_t wpart_tasks_state_report(const wpart_tasks_state_t *s,
                                        const wpart_tasks_report_t *out, double *w_max)
{
    if (s == NULL) return wpart_i_error(WPART_EINVAL, "state is NULL");
    double wm = 0.0;
    for (int32_t r = 0; r < s->p.n_ranks; r++) {
        fill_report(&s->p, &s->c, r, &s->rank[r], out);
        wm = s->work[r] > wm ? s->work[r] : wm;
    }
    if (w_max) *w_max = wm;
    return WPART_OK;
}

double wpart_tasks_i_state_wmax(const wpart_tasks_state_t *s)
{
    double wm = 0.0;
    for (int32_t r = 0; r < s->p.n_ranks; r++) wm = s->work[r] > wm ? s->work[r] : wm;
    return wm;
}

static void contrib(int32_t x, int32_t ra, int32_t rb, double v, double sign,
                    wpart_tasks_rank_t *d)
{
    if (ra == x && rb == x) {
        d->loc += sign * v;
    } else if (ra == x) {
        d->out += sign * v;
    } else if (rb == x) {
        d->in += sign * v;
    }
}

static int32_t new_rank(const wpart_tasks_state_t *s, int32_t t, int32_t r1, int32_t r2)
{
    int8_t m = s->mark[t];
    return m == 1 ? r2 : m == 2 ? r1 : s->assign[t];
}

static void unmark(wpart_tasks_state_t *s, const int32_t *a, int32_t na, const int32_t *b,
                   int32_t nb)
{
    for (int32_t i = 0; i < na; i++) s->mark[a[i]] = 0;
    for (int32_t i = 0; i < nb; i++) s->mark[b[i]] = 0;
}

/* Working-memory max of rank r after the exchange: tasks marked as leaving are skipped. */
static double wmax_after(const wpart_tasks_state_t *s, int32_t r, const int32_t *out_t,
                         int32_t n_out, const int32_t *in_t, int32_t n_in)
{
    const double *wk = s->p.task_working;
    if (!wk) return 0.0;
    double cur = s->rank[r].wmax;
    int rescan = 0;
    for (int32_t i = 0; i < n_out; i++) {
        if (wk[out_t[i]] >= cur) {
            rescan = 1;
            break;
        }
    }
    double m = 0.0;
    if (rescan) { /* a staying task at the old max ends the scan: nothing is above it */
        for (int32_t k = s->head[r]; k >= 0; k = s->next[k]) {
            if (s->mark[k] == 0 && wk[k] > m) {
                m = wk[k];
                if (m >= cur) break;
            }
        }
    } else {
        m = cur;
    }
    for (int32_t i = 0; i < n_in; i++) {
        if (wk[in_t[i]] > m) m = wk[in_t[i]];
    }
    return m;
}

/* Block presence update of one rank given per-block count deltas. */
static void block_update(wpart_tasks_state_t *s, int32_t r, const int32_t *d, int32_t nt,
                         wpart_tasks_rank_t *v, int apply)
{
    const int32_t N = s->p.n_blocks;
    for (int32_t i = 0; i < nt; i++) {
        int32_t b = s->touched[i];
        if (d[b] == 0) continue;
        int32_t *rc = &s->refcnt[(int64_t)r * N + b];
        int32_t old = *rc, nw = old + d[b];
        double sz = s->p.block_size[b];
        int off = s->p.block_home[b] != r;
        wpart_tasks_i_presence(v, old, nw, sz, off);
        if (apply) *rc = nw;
    }
}

/* Computes the new aggregates of r1 and r2 (apply != 0: also update counters, lists, assign). */
static wpart_status_t exchange(wpart_tasks_state_t *s, int32_t r1, const int32_t *A, int32_t na,
                               int32_t r2, const int32_t *B, int32_t nb, wpart_tasks_rank_t *v1,
                               wpart_tasks_rank_t *v2, int apply)
{
    const wpart_tasks_problem_t *p = &s->p;
    const int32_t I = p->n_ranks, K = p->n_tasks;
    if (r1 < 0 || r1 >= I || r2 < 0 || r2 >= I || r1 == r2) {
        return wpart_i_error(WPART_EINVAL,
                             "exchange ranks r1 = %" PRId32 ", r2 = %" PRId32
                             " must be distinct and in [0, %" PRId32 ")", r1, r2, I);
    }
    if (na < 0 || nb < 0 || (na > 0 && !A) || (nb > 0 && !B)) {
        return wpart_i_error(WPART_EINVAL, "exchange: bad task lists");
    }
    for (int32_t i = 0; i < na + nb; i++) {
        int32_t t = i < na ? A[i] : B[i - na];
        int32_t want = i < na ? r1 : r2;
        if (t < 0 || t >= K || s->assign[t] != want || s->mark[t] != 0) {
            for (int32_t j = 0; j < i; j++) s->mark[j < na ? A[j] : B[j - na]] = 0;
            return wpart_i_error(WPART_EINVAL,
                                 "exchange: task %" PRId32 " is out of range, not on rank %" PRId32
                                 " or listed twice", t, want);
        }
        if (p->task_migratable && !p->task_migratable[t]) {
            for (int32_t j = 0; j < i; j++) s->mark[j < na ? A[j] : B[j - na]] = 0;
            return wpart_i_error(WPART_EINVAL,
                                 "exchange: task %" PRId32 " is pinned (not migratable)", t);
        }
        s->mark[t] = i < na ? 1 : 2;
    }
    *v1 = s->rank[r1];
    *v2 = s->rank[r2];
    /* loads and footprints */
    double la = 0, lb = 0, fa = 0, fb = 0;
    for (int32_t i = 0; i < na; i++) {
        la += p->task_load[A[i]];
        if (p->task_footprint) fa += p->task_footprint[A[i]];
    }
    for (int32_t i = 0; i < nb; i++) {
        lb += p->task_load[B[i]];
        if (p->task_footprint) fb += p->task_footprint[B[i]];
    }
    v1->load = v1->load - la + lb;
    v2->load = v2->load - lb + la;
    v1->fp = v1->fp - fa + fb;
    v2->fp = v2->fp - fb + fa;
    v1->wmax = wmax_after(s, r1, A, na, B, nb);
    v2->wmax = wmax_after(s, r2, B, nb, A, na);
    v1->cnt += nb - na;
    v2->cnt += na - nb;
    /* communication: walk the edges incident to moved tasks, each edge once */
    wpart_tasks_rank_t d1 = {0}, d2 = {0};
    for (int32_t i = 0; i < na + nb; i++) {
        int32_t x = i < na ? A[i] : B[i - na];
        for (int64_t j = s->inc_ptr[x]; j < s->inc_ptr[x + 1]; j++) {
            int64_t e = s->inc_edge[j];
            int32_t a = p->edge_src[e], b = p->edge_dst[e];
            int32_t other = a == x ? b : a;
            if (other != x && s->mark[other] && x != a) continue; /* counted from a */
            double vol = p->edge_bytes[e];
            int32_t oa = s->assign[a], ob = s->assign[b];
            int32_t na_ = new_rank(s, a, r1, r2), nb_ = new_rank(s, b, r1, r2);
            contrib(r1, oa, ob, vol, -1.0, &d1);
            contrib(r1, na_, nb_, vol, 1.0, &d1);
            contrib(r2, oa, ob, vol, -1.0, &d2);
            contrib(r2, na_, nb_, vol, 1.0, &d2);
        }
    }
    v1->out += d1.out;
    v1->in += d1.in;
    v1->loc += d1.loc;
    v2->out += d2.out;
    v2->in += d2.in;
    v2->loc += d2.loc;
    /* shared blocks */
    int32_t nt = 0;
    if (p->task_block) {
        for (int32_t i = 0; i < na + nb; i++) {
            int32_t x = i < na ? A[i] : B[i - na];
            int32_t b = p->task_block[x];
            if (b < 0) continue;
            if (!s->btouched[b]) {
                s->btouched[b] = 1;
                s->touched[nt++] = b;
            }
            if (i < na) {
                s->d1[b]--;
                s->d2[b]++;
            } else {
                s->d1[b]++;
                s->d2[b]--;
            }
        }
        block_update(s, r1, s->d1, nt, v1, apply);
        block_update(s, r2, s->d2, nt, v2, apply);
        for (int32_t i = 0; i < nt; i++) {
            int32_t b = s->touched[i];
            s->d1[b] = s->d2[b] = 0;
            s->btouched[b] = 0;
        }
    }
    /* an empty rank has exactly zero aggregates (no drift) */
    if (v1->cnt == 0) memset(v1, 0, sizeof(*v1));
    if (v2->cnt == 0) memset(v2, 0, sizeof(*v2));
    if (apply) {
        for (int32_t i = 0; i < na; i++) {
            list_remove(s, r1, A[i]);
            list_push(s, r2, A[i]);
        }
        for (int32_t i = 0; i < nb; i++) {
            list_remove(s, r2, B[i]);
            list_push(s, r1, B[i]);
        }
        for (int32_t i = 0; i < na; i++) s->assign[A[i]] = r2;
        for (int32_t i = 0; i < nb; i++) s->assign[B[i]] = r1;
        s->rank[r1] = *v1;
        s->rank[r2] = *v2;
        s->work[r1] = wpart_tasks_i_work(p, &s->c, r1, v1);
        s->work[r2] = wpart_tasks_i_work(p, &s->c, r2, v2);
    }
    unmark(s, A, na, B, nb);
    return WPART_OK;
}

wpart_status_t wpart_tasks_i_exchange_vals(wpart_tasks_state_t *s, int32_t r1, const int32_t *A,
                                          int32_t na, int32_t r2, const int32_t *B, int32_t nb,
                                          wpart_tasks_rank_t *v1, wpart_tasks_rank_t *v2)
{
    return exchange(s, r1, A, na, r2, B, nb, v1, v2, 0);
}

double wpart_tasks_i_excess(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                            int32_t r, const wpart_tasks_rank_t *v)
{
    if (!c->enforce_memory || !p->rank_mem_cap) return 0.0;
    double e = wpart_tasks_i_memory(p, r, v) - p->rank_mem_cap[r];
    return e > 0 ? e : 0.0;
}

double wpart_tasks_i_work_noeps(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                                int32_t r, const wpart_tasks_rank_t *v)
{
    double a = p->rank_alpha ? p->rank_alpha[r] : c->alpha;
    return a * v->load + c->beta * (v->out > v->in ? v->out : v->in) + c->gamma * v->loc +
           c->delta * v->h;
}

wpart_status_t wpart_tasks_state_eval_exchange(wpart_tasks_state_t *s, int32_t r1,
                                               const int32_t *give, int32_t n_give, int32_t r2,
                                               const int32_t *take, int32_t n_take,
                                               double *w1_after, double *w2_after)
{
    if (s == NULL) return wpart_i_error(WPART_EINVAL, "state is NULL");
    wpart_tasks_rank_t v1, v2;
    wpart_status_t st = exchange(s, r1, give, n_give, r2, take, n_take, &v1, &v2, 0);
    if (st != WPART_OK) return st;
    if (w1_after) *w1_after = wpart_tasks_i_work(&s->p, &s->c, r1, &v1);
    if (w2_after) *w2_after = wpart_tasks_i_work(&s->p, &s->c, r2, &v2);
    return WPART_OK;
}

wpart_status_t wpart_tasks_state_apply_exchange(wpart_tasks_state_t *s, int32_t r1,
                                                const int32_t *give, int32_t n_give, int32_t r2,
                                                const int32_t *take, int32_t n_take)
{
    if (s == NULL) return wpart_i_error(WPART_EINVAL, "state is NULL");
    wpart_tasks_rank_t v1, v2;
    return exchange(s, r1, give, n_give, r2, take, n_take, &v1, &v2, 1);
}
