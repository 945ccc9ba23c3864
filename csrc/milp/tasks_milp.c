/*
 * tasks_milp.c -- the exact MILP of spec 003 section 2 (COMCP / FWMP of the paper, and an
 * equivalent compact form), built as sparse arrays for wpart/milp.h. No GLPK header here: the
 * model goes through wpart_milp_solve.
 *
 * Paper form, columns: chi[i,k] = i*K + k, phi[i,n] = I*K + i*N + n,
 * psi[i,j,m] = I*K + I*N + (i*I + j)*M + m (FWMP only), W_max last.
 * Rows in the order (22), (17), (18), (19), [(25), (26), (27)], (20) or (30).
 */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "wpart/tasks.h"

typedef struct {
    wpart_tasks_milp_model_t *m;
    int64_t cap_cols, cap_rows, cap_nz;
    wpart_status_t st;
    wpart_control_t stop; /* the caller's should-stop hook only (no progress, no time limit) */
    int64_t calls;        /* builder calls since the last poll */
} builder_t;

/* Asks the should-stop hook (Ctrl-C) every 2^18 builder calls (a few ms); a stop leaves b->st
 * set, after which every add_col / add_row / nz returns at once (the loops run out cheaply). */
static void poll_stop(builder_t *b)
{
    if (!b->stop.should_stop || ++b->calls < (INT64_C(1) << 18)) return;
    b->calls = 0;
    b->st = wpart_i_poll(&b->stop, 0.0, 0.0, 0.0);
}

/* Whether the build goes on: the loop nests below end at once after a stop (Ctrl-C) or an
 * allocation failure instead of running out every remaining iteration. */
#define GOING(b) ((b)->st == WPART_OK)

static int grow(void **ptr, int64_t *cap, int64_t need, size_t sz)
{
    if (need <= *cap) return 1;
    int64_t nc = *cap ? *cap : 64;
    while (nc < need) nc *= 2;
    void *q = wpart_i_realloc(*ptr, nc, sz);
    if (!q) return 0;
    *ptr = q;
    *cap = nc;
    return 1;
}

/* Room for `need` entries in each of the k parallel arrays *p[i] (element size sz[i]) sharing
 * the capacity *cap; 0 with b->st = ENOMEM when out of memory (*cap then unchanged). */
static int grow_arrays(builder_t *b, int64_t *cap, int64_t need, int k, void **const p[],
                       const size_t sz[])
{
    int64_t c = *cap;
    for (int i = 0; i < k; i++) {
        c = *cap;
        if (!grow(p[i], &c, need, sz[i])) {
            b->st = wpart_i_error(WPART_ENOMEM, "MILP model: out of memory");
            return 0;
        }
    }
    *cap = c;
    return 1;
}

static int64_t add_col(builder_t *b, double lb, double ub, int8_t kind, double cost)
{
    wpart_tasks_milp_model_t *m = b->m;
    poll_stop(b);
    if (b->st != WPART_OK) return -1;
    void **const cols[4] = {(void **)&m->c, (void **)&m->lb, (void **)&m->ub, (void **)&m->kind};
    static const size_t csz[4] = {sizeof(double), sizeof(double), sizeof(double), sizeof(int8_t)};
    if (!grow_arrays(b, &b->cap_cols, m->n_cols + 1, 4, cols, csz)) return -1;
    int64_t j = m->n_cols++;
    m->c[j] = cost;
    m->lb[j] = lb;
    m->ub[j] = ub;
    m->kind[j] = kind;
    return j;
}

static int64_t add_row(builder_t *b, double lo, double hi)
{
    wpart_tasks_milp_model_t *m = b->m;
    poll_stop(b);
    if (b->st != WPART_OK) return -1;
    void **const rows[2] = {(void **)&m->row_lb, (void **)&m->row_ub};
    static const size_t rsz[2] = {sizeof(double), sizeof(double)};
    if (!grow_arrays(b, &b->cap_rows, m->n_rows + 1, 2, rows, rsz)) return -1;
    int64_t i = m->n_rows++;
    m->row_lb[i] = lo;
    m->row_ub[i] = hi;
    if (lo == hi) m->n_eq_rows++;
    return i;
}

static void nz(builder_t *b, int64_t row, int64_t col, double v)
{
    wpart_tasks_milp_model_t *m = b->m;
    poll_stop(b);
    if (b->st != WPART_OK || v == 0.0) return;
    void **const nzs[3] = {(void **)&m->a_row, (void **)&m->a_col, (void **)&m->a_val};
    static const size_t nsz[3] = {sizeof(int64_t), sizeof(int64_t), sizeof(double)};
    if (!grow_arrays(b, &b->cap_nz, m->nnz + 1, 3, nzs, nsz)) return;
    m->a_row[m->nnz] = row;
    m->a_col[m->nnz] = col;
    m->a_val[m->nnz] = v;
    m->nnz++;
}

/* The objective column W (cost 1) and the rows sum_i chi[i,k] = 1 placing each task once
 * (chi[i,k] is column X + i K + k); records both in the model; returns W. */
static int64_t add_wmax_assign(builder_t *b, int64_t X, int32_t I, int32_t K)
{
    int64_t W = add_col(b, 0, INFINITY, WPART_MILP_CONTINUOUS, 1.0);
    b->m->col_chi = X;
    b->m->col_wmax = W;
    for (int32_t k = 0; k < K && GOING(b); k++) {
        int64_t r = add_row(b, 1, 1);
        for (int32_t i = 0; i < I && GOING(b); i++) nz(b, r, X + (int64_t)i * K + k, 1.0);
    }
    return W;
}

void wpart_tasks_milp_opts_init(wpart_tasks_milp_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->form = WPART_TASKS_MILP_COMPACT;
}

void wpart_tasks_milp_model_free(wpart_tasks_milp_model_t *m)
{
    if (!m) return;
    WPART_FREE_ALL(m->c, m->lb, m->ub, m->kind, m->row_lb, m->row_ub, m->a_row, m->a_col, m->a_val);
    memset(m, 0, sizeof(*m));
}

void wpart_tasks_milp_view(const wpart_tasks_milp_model_t *m, wpart_milp_problem_t *v)
{
    memset(v, 0, sizeof(*v));
    v->n_rows = m->n_rows;
    v->n_cols = m->n_cols;
    v->c = m->c;
    v->c0 = 0.0;
    v->sense = WPART_MILP_MINIMIZE;
    v->lb = m->lb;
    v->ub = m->ub;
    v->kind = m->kind;
    v->row_lb = m->row_lb;
    v->row_ub = m->row_ub;
    v->nnz = m->nnz;
    v->a_row = m->a_row;
    v->a_col = m->a_col;
    v->a_val = m->a_val;
}

static double alpha_of(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c, int32_t i)
{
    return p->rank_alpha ? p->rank_alpha[i] : c->alpha;
}

static int capped(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c)
{
    if (!c->enforce_memory || !p->rank_mem_cap) return 0;
    for (int32_t i = 0; i < p->n_ranks; i++) {
        if (isfinite(p->rank_mem_cap[i])) return 1;
    }
    return 0;
}

static double fp_of(const wpart_tasks_problem_t *p, int32_t k)
{
    return p->task_footprint ? p->task_footprint[k] : 0.0;
}

static double wk_of(const wpart_tasks_problem_t *p, int32_t k)
{
    return p->task_working ? p->task_working[k] : 0.0;
}

static int32_t blk_of(const wpart_tasks_problem_t *p, int32_t k)
{
    return p->task_block ? p->task_block[k] : -1;
}

/* The tasks of each block in increasing task order: task[ptr[n] .. ptr[n + 1]) (the nonzeros
 * of the block rows (18), without a scan of all K tasks per (rank, block) pair). */
typedef struct {
    int64_t *ptr;
    int32_t *task;
} block_tasks_t;

static void build_paper(builder_t *b, const wpart_tasks_problem_t *p,
                        const wpart_tasks_coeffs_t *c, const wpart_tasks_milp_opts_t *o,
                        const block_tasks_t *bl)
{
    const int32_t I = p->n_ranks, K = p->n_tasks, N = p->n_blocks;
    const int64_t M = p->n_edges;
    const int fwmp = o->force_fwmp || c->beta > 0 || c->gamma > 0 || c->delta > 0;
    b->m->fwmp = fwmp;
    const int64_t X = 0, PHI = (int64_t)I * K, PSI = PHI + (int64_t)I * N;
    for (int64_t j = 0; j < (int64_t)I * (K + N) && GOING(b); j++) {
        add_col(b, 0, 1, WPART_MILP_BINARY, 0);
    }
    if (fwmp) {
        for (int64_t j = 0; j < (int64_t)I * I * M && GOING(b); j++) {
            add_col(b, 0, 1, WPART_MILP_BINARY, 0);
        }
    }
    int64_t W = add_wmax_assign(b, X, I, K); /* (22) */
    /* (17): phi[i,n] - u[k,n] chi[i,k] >= 0 */
    for (int32_t i = 0; i < I && GOING(b); i++) {
        for (int32_t n = 0; n < N && GOING(b); n++) {
            for (int32_t k = 0; k < K && GOING(b); k++) {
                int64_t r = add_row(b, 0, INFINITY);
                nz(b, r, PHI + (int64_t)i * N + n, 1.0);
                if (blk_of(p, k) == n) nz(b, r, X + (int64_t)i * K + k, -1.0);
            }
        }
    }
    /* (18): phi[i,n] - sum_k u[k,n] chi[i,k] <= 0 */
    for (int32_t i = 0; i < I && GOING(b); i++) {
        for (int32_t n = 0; n < N && GOING(b); n++) {
            int64_t r = add_row(b, -INFINITY, 0);
            nz(b, r, PHI + (int64_t)i * N + n, 1.0);
            for (int64_t t = bl->ptr[n]; t < bl->ptr[n + 1] && GOING(b); t++) {
                nz(b, r, X + (int64_t)i * K + bl->task[t], -1.0);
            }
        }
    }
    /* (19): one row per (i, k) */
    if (capped(p, c)) {
        for (int32_t i = 0; i < I && GOING(b); i++) {
            double rhs = p->rank_mem_cap[i] - (p->rank_baseline ? p->rank_baseline[i] : 0.0);
            for (int32_t k = 0; k < K && GOING(b); k++) {
                int64_t r = add_row(b, -INFINITY, isfinite(rhs) ? rhs : INFINITY);
                for (int32_t l = 0; l < K && GOING(b); l++) {
                    double v = fp_of(p, l) + (l == k ? wk_of(p, k) : 0.0);
                    nz(b, r, X + (int64_t)i * K + l, v);
                }
                for (int32_t n = 0; n < N && GOING(b); n++) {
                    nz(b, r, PHI + (int64_t)i * N + n, p->block_size[n]);
                }
            }
        }
    }
    if (fwmp) {
        /* (25), (26), (27) */
        for (int rule = 0; rule < 3 && GOING(b); rule++) {
            for (int32_t i = 0; i < I && GOING(b); i++) {
                for (int32_t j = 0; j < I && GOING(b); j++) {
                    for (int64_t e = 0; e < M && GOING(b); e++) {
                        int64_t col = PSI + ((int64_t)i * I + j) * M + e;
                        int64_t xs = X + (int64_t)i * K + p->edge_src[e];
                        int64_t xd = X + (int64_t)j * K + p->edge_dst[e];
                        int64_t r = rule < 2 ? add_row(b, -INFINITY, 0) : add_row(b, -1, INFINITY);
                        nz(b, r, col, 1.0);
                        if (rule == 0) nz(b, r, xs, -1.0);
                        if (rule == 1) nz(b, r, xd, -1.0);
                        if (rule == 2) {
                            nz(b, r, xs, -1.0);
                            nz(b, r, xd, -1.0);
                        }
                    }
                }
            }
        }
        /* (30): sent and received versions per rank */
        for (int32_t i = 0; i < I && GOING(b); i++) {
            for (int sigma = 0; sigma < 2 && GOING(b); sigma++) {
                int64_t r = add_row(b, -INFINITY, 0);
                for (int32_t k = 0; k < K && GOING(b); k++) {
                    nz(b, r, X + (int64_t)i * K + k, alpha_of(p, c, i) * p->task_load[k]);
                }
                for (int32_t j = 0; j < I && GOING(b); j++) {
                    for (int64_t e = 0; e < M && GOING(b); e++) {
                        double v = p->edge_bytes[e];
                        if (j == i) {
                            nz(b, r, PSI + ((int64_t)i * I + i) * M + e, c->gamma * v);
                        } else {
                            int64_t ii = sigma == 0 ? i : j, jj = sigma == 0 ? j : i;
                            nz(b, r, PSI + (ii * I + jj) * M + e, c->beta * v);
                        }
                    }
                }
                for (int32_t n = 0; n < N && GOING(b); n++) {
                    if (p->block_home[n] != i) {
                        nz(b, r, PHI + (int64_t)i * N + n, c->delta * p->block_size[n]);
                    }
                }
                nz(b, r, W, -1.0);
            }
        }
    } else {
        /* (20) */
        for (int32_t i = 0; i < I && GOING(b); i++) {
            int64_t r = add_row(b, -INFINITY, 0);
            for (int32_t k = 0; k < K && GOING(b); k++) {
                nz(b, r, X + (int64_t)i * K + k, alpha_of(p, c, i) * p->task_load[k]);
            }
            nz(b, r, W, -1.0);
        }
    }
}

static void build_compact(builder_t *b, const wpart_tasks_problem_t *p,
                          const wpart_tasks_coeffs_t *c, const wpart_tasks_milp_opts_t *o,
                          const int32_t *has_tasks, const block_tasks_t *bl)
{
    const int32_t I = p->n_ranks, K = p->n_tasks, N = p->n_blocks;
    const int64_t M = p->n_edges;
    const int cap = capped(p, c);
    int any_wk = 0;
    for (int32_t k = 0; k < K && cap; k++) any_wk |= wk_of(p, k) > 0;
    const int need_phi = N > 0 && (c->delta > 0 || cap || o->preserve_blocks);
    const int need_psi = M > 0 && (c->beta > 0 || c->gamma > 0);
    b->m->fwmp = need_psi;
    const int64_t X = 0;
    for (int64_t j = 0; j < (int64_t)I * K && GOING(b); j++) add_col(b, 0, 1, WPART_MILP_BINARY, 0);
    const int64_t PHI = b->m->n_cols;
    if (need_phi) {
        for (int64_t j = 0; j < (int64_t)I * N && GOING(b); j++) {
            add_col(b, 0, 1, WPART_MILP_CONTINUOUS, 0);
        }
    }
    const int64_t PSI = b->m->n_cols; /* psi[i,m]: both ends of non-self edge m on rank i */
    if (need_psi) {
        for (int64_t j = 0; j < (int64_t)I * M && GOING(b); j++) {
            add_col(b, 0, 1, WPART_MILP_CONTINUOUS, 0);
        }
    }
    const int64_t Y = b->m->n_cols;
    if (any_wk) {
        for (int32_t i = 0; i < I && GOING(b); i++) {
            add_col(b, 0, INFINITY, WPART_MILP_CONTINUOUS, 0);
        }
    }
    int64_t W = add_wmax_assign(b, X, I, K);
    if (need_phi) {
        for (int32_t i = 0; i < I && GOING(b); i++) { /* sparse (17) */
            for (int32_t k = 0; k < K && GOING(b); k++) {
                int32_t n = blk_of(p, k);
                if (n < 0) continue;
                int64_t r = add_row(b, 0, INFINITY);
                nz(b, r, PHI + (int64_t)i * N + n, 1.0);
                nz(b, r, X + (int64_t)i * K + k, -1.0);
            }
        }
        for (int32_t i = 0; i < I && GOING(b); i++) { /* (18) */
            for (int32_t n = 0; n < N && GOING(b); n++) {
                int64_t r = add_row(b, -INFINITY, 0);
                nz(b, r, PHI + (int64_t)i * N + n, 1.0);
                for (int64_t t = bl->ptr[n]; t < bl->ptr[n + 1] && GOING(b); t++) {
                    nz(b, r, X + (int64_t)i * K + bl->task[t], -1.0);
                }
            }
        }
    }
    if (o->preserve_blocks && N > 0) {
        for (int32_t n = 0; n < N && GOING(b); n++) {
            if (!has_tasks[n]) continue;
            int64_t r = add_row(b, 1, 1);
            for (int32_t i = 0; i < I && GOING(b); i++) nz(b, r, PHI + (int64_t)i * N + n, 1.0);
        }
    }
    if (cap) {
        for (int32_t i = 0; i < I && GOING(b); i++) {
            double rhs = p->rank_mem_cap[i] - (p->rank_baseline ? p->rank_baseline[i] : 0.0);
            if (!isfinite(rhs)) continue;
            if (any_wk) {
                for (int32_t k = 0; k < K && GOING(b); k++) {
                    if (wk_of(p, k) <= 0) continue;
                    int64_t r = add_row(b, 0, INFINITY);
                    nz(b, r, Y + i, 1.0);
                    nz(b, r, X + (int64_t)i * K + k, -wk_of(p, k));
                }
            }
            int64_t r = add_row(b, -INFINITY, rhs);
            for (int32_t l = 0; l < K && GOING(b); l++) {
                nz(b, r, X + (int64_t)i * K + l, fp_of(p, l));
            }
            if (need_phi) {
                for (int32_t n = 0; n < N && GOING(b); n++) {
                    nz(b, r, PHI + (int64_t)i * N + n, p->block_size[n]);
                }
            }
            if (any_wk) nz(b, r, Y + i, 1.0);
        }
    }
    if (need_psi) {
        for (int32_t i = 0; i < I && GOING(b); i++) {
            for (int64_t e = 0; e < M && GOING(b); e++) {
                if (p->edge_src[e] == p->edge_dst[e]) continue;
                int64_t col = PSI + (int64_t)i * M + e;
                int64_t xs = X + (int64_t)i * K + p->edge_src[e];
                int64_t xd = X + (int64_t)i * K + p->edge_dst[e];
                int64_t r = add_row(b, -INFINITY, 0);
                nz(b, r, col, 1.0);
                nz(b, r, xs, -1.0);
                r = add_row(b, -INFINITY, 0);
                nz(b, r, col, 1.0);
                nz(b, r, xd, -1.0);
                r = add_row(b, -1, INFINITY);
                nz(b, r, col, 1.0);
                nz(b, r, xs, -1.0);
                nz(b, r, xd, -1.0);
            }
        }
    }
    /* rank rows: sent and received versions (one when beta = 0) */
    int nsig = need_psi && c->beta > 0 ? 2 : 1;
    for (int32_t i = 0; i < I && GOING(b); i++) {
        for (int sigma = 0; sigma < nsig && GOING(b); sigma++) {
            int64_t r = add_row(b, -INFINITY, 0);
            for (int32_t k = 0; k < K && GOING(b); k++) {
                nz(b, r, X + (int64_t)i * K + k, alpha_of(p, c, i) * p->task_load[k]);
            }
            for (int64_t e = 0; e < M && (c->beta > 0 || c->gamma > 0) && GOING(b); e++) {
                double v = p->edge_bytes[e];
                int32_t s = p->edge_src[e], d = p->edge_dst[e];
                if (s == d) { /* always on-rank */
                    nz(b, r, X + (int64_t)i * K + s, c->gamma * v);
                    continue;
                }
                /* off-rank sent (sigma 0) = sum_m V chi[i,src] - V psi[i,m]; received: dst */
                if (c->beta > 0) nz(b, r, X + (int64_t)i * K + (sigma == 0 ? s : d), c->beta * v);
                nz(b, r, PSI + (int64_t)i * M + e, (c->gamma - c->beta) * v);
            }
            if (need_phi && c->delta > 0) {
                for (int32_t n = 0; n < N && GOING(b); n++) {
                    if (p->block_home[n] != i) {
                        nz(b, r, PHI + (int64_t)i * N + n, c->delta * p->block_size[n]);
                    }
                }
            }
            nz(b, r, W, -1.0);
        }
    }
}

wpart_status_t wpart_tasks_milp_build(const wpart_tasks_problem_t *p,
                                      const wpart_tasks_coeffs_t *c,
                                      const wpart_tasks_milp_opts_t *o,
                                      wpart_tasks_milp_model_t *m)
{
    wpart_status_t st = WPART_OK;
    int32_t *has = NULL;
    block_tasks_t bl = {NULL, NULL};
    if (m == NULL || o == NULL) return wpart_i_error(WPART_EINVAL, "model or options is NULL");
    memset(m, 0, sizeof(*m));
    WPART_CHECK(wpart_tasks_validate(p));
    WPART_CHECK(wpart_tasks_validate_coeffs(c));
    if (o->form != WPART_TASKS_MILP_PAPER && o->form != WPART_TASKS_MILP_COMPACT) {
        WPART_FAIL(WPART_EINVAL, "unknown MILP form %" PRId32, o->form);
    }
    if (o->form == WPART_TASKS_MILP_PAPER && o->preserve_blocks) {
        WPART_FAIL(WPART_EINVAL, "preserve_blocks needs the compact form");
    }
    /* size guard: the paper form has I*K*N + I^2*M rows */
    int64_t ikn, iim;
    if (!wpart_i_mul_size((int64_t)p->n_ranks * p->n_tasks, p->n_blocks > 0 ? p->n_blocks : 1,
                          &ikn) ||
        !wpart_i_mul_size((int64_t)p->n_ranks * p->n_ranks, p->n_edges > 0 ? p->n_edges : 1,
                          &iim) ||
        (o->form == WPART_TASKS_MILP_PAPER && ikn + 3 * iim > ((int64_t)1 << 30))) {
        WPART_FAIL(WPART_ELIMIT, "MILP model too large for GLPK's int indices");
    }
    has = wpart_i_calloc(p->n_blocks > 0 ? p->n_blocks : 1, sizeof(int32_t));
    if (!has) WPART_FAIL(WPART_ENOMEM, "out of memory");
    for (int32_t k = 0; k < p->n_tasks; k++) {
        if (blk_of(p, k) >= 0) has[blk_of(p, k)] = 1;
    }
    bl.ptr = wpart_i_calloc((size_t)(p->n_blocks > 0 ? p->n_blocks : 0) + 1, sizeof(int64_t));
    bl.task = wpart_i_malloc(p->n_tasks > 0 ? p->n_tasks : 1, sizeof(int32_t));
    if (!bl.ptr || !bl.task) WPART_FAIL(WPART_ENOMEM, "out of memory");
    for (int32_t k = 0; k < p->n_tasks; k++) {
        if (blk_of(p, k) >= 0) bl.ptr[blk_of(p, k) + 1]++;
    }
    for (int32_t n = 0; n < p->n_blocks; n++) bl.ptr[n + 1] += bl.ptr[n];
    for (int32_t k = 0; k < p->n_tasks; k++) { /* ptr[n] moves to the end of block n */
        if (blk_of(p, k) >= 0) bl.task[bl.ptr[blk_of(p, k)]++] = k;
    }
    for (int32_t n = p->n_blocks; n > 0; n--) bl.ptr[n] = bl.ptr[n - 1];
    bl.ptr[0] = 0;
    builder_t b = {m, 0, 0, 0, WPART_OK, {NULL, NULL, NULL, 0.0}, 0};
    if (o->control) { /* Ctrl-C while a large model is built; its time limit is the solve's */
        b.stop.should_stop = o->control->should_stop;
        b.stop.ctx = o->control->ctx;
    }
    if (o->form == WPART_TASKS_MILP_PAPER) build_paper(&b, p, c, o, &bl);
    else build_compact(&b, p, c, o, has, &bl);
    st = b.st;
cleanup:
    free(has);
    free(bl.ptr);
    free(bl.task);
    if (st != WPART_OK && m) wpart_tasks_milp_model_free(m);
    return st;
}

wpart_status_t wpart_tasks_milp_solve(const wpart_tasks_problem_t *p,
                                      const wpart_tasks_coeffs_t *c,
                                      const wpart_tasks_milp_opts_t *o, int32_t *assign_out,
                                      wpart_milp_result_t *res)
{
    wpart_status_t st = WPART_OK;
    wpart_tasks_milp_model_t m;
    double *x = NULL;
    memset(&m, 0, sizeof(m));
    if (res == NULL || (assign_out == NULL && p && p->n_tasks > 0)) {
        return wpart_i_error(WPART_EINVAL, "assign_out or res is NULL");
    }
    WPART_CHECK(wpart_tasks_milp_build(p, c, o, &m));
    x = wpart_i_malloc(m.n_cols, sizeof(double));
    if (!x) WPART_FAIL(WPART_ENOMEM, "out of memory");
    wpart_milp_problem_t v;
    wpart_tasks_milp_view(&m, &v);
    wpart_milp_options_t mo;
    wpart_milp_options_init(&mo);
    mo.time_limit = o->time_limit;
    mo.mip_gap = o->mip_gap;
    mo.control = o->control;
    WPART_CHECK(wpart_milp_solve(&v, &mo, x, res));
    const int32_t I = p->n_ranks, K = p->n_tasks;
    int have = res->status == WPART_MILP_OPTIMAL || res->status == WPART_MILP_FEASIBLE;
    for (int32_t k = 0; k < K; k++) {
        assign_out[k] = -1;
        if (!have) continue;
        for (int32_t i = 0; i < I; i++) {
            if (x[m.col_chi + (int64_t)i * K + k] > 0.5) {
                assign_out[k] = i;
                break;
            }
        }
    }
cleanup:
    free(x);
    wpart_tasks_milp_model_free(&m);
    return st;
}
