/* tasks_internal.h -- private pieces of the tasks family (never installed). */
#ifndef WPART_TASKS_INTERNAL_H
#define WPART_TASKS_INTERNAL_H

#include "wpart/tasks.h"

/* Aggregates of one rank. */
typedef struct {
    double load, fp, wmax, out, in, loc, h, ms;
    int32_t nblk, noff, cnt;
} wpart_tasks_rank_t;

struct wpart_tasks_state {
    wpart_tasks_problem_t p;
    wpart_tasks_coeffs_t c;
    int32_t *assign;
    int64_t *inc_ptr, *inc_edge;     /* edges incident to each task (self-edges once) */
    int32_t *next, *prev, *head;     /* per-rank doubly linked task lists */
    wpart_tasks_rank_t *rank;
    double *work;
    int32_t *refcnt;                 /* I x N task counts per (rank, block) */
    int8_t *mark;                    /* scratch: 1 = leaving r1, 2 = leaving r2 */
    int32_t *d1, *d2, *touched;      /* scratch for block deltas */
    int8_t *btouched;
};

/* A block's task count on rank r goes from `old` to `nw`: update the presence aggregates
 * (M_S, block count) and, for a block homed elsewhere, the homing ones (M_H, off-home count). */
static inline void wpart_tasks_i_presence(wpart_tasks_rank_t *v, int32_t old, int32_t nw,
                                          double sz, int off)
{
    if (old > 0 && nw == 0) {
        v->ms -= sz;
        v->nblk--;
        if (off) {
            v->h -= sz;
            v->noff--;
        }
    } else if (old == 0 && nw > 0) {
        v->ms += sz;
        v->nblk++;
        if (off) {
            v->h += sz;
            v->noff++;
        }
    }
}

double wpart_tasks_i_memory(const wpart_tasks_problem_t *p, int32_t r,
                            const wpart_tasks_rank_t *v);
double wpart_tasks_i_work(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                          int32_t r, const wpart_tasks_rank_t *v);
/* Full evaluation with caller workspace: v[I] (overwritten), cnt[I*N] (zero on entry and exit). */
wpart_status_t wpart_tasks_i_eval_full(const wpart_tasks_problem_t *p,
                                       const wpart_tasks_coeffs_t *c, const int32_t *assign,
                                       wpart_tasks_rank_t *v, int32_t *cnt,
                                       const wpart_tasks_report_t *out, double *w_max);
double wpart_tasks_i_state_wmax(const wpart_tasks_state_t *s);
/* Aggregates of r1 and r2 after an exchange (nothing applied). */
wpart_status_t wpart_tasks_i_exchange_vals(wpart_tasks_state_t *s, int32_t r1, const int32_t *A,
                                          int32_t na, int32_t r2, const int32_t *B, int32_t nb,
                                          wpart_tasks_rank_t *v1, wpart_tasks_rank_t *v2);
/* Memory above the cap (0 when within it or not enforced) and W without the memory term. */
double wpart_tasks_i_excess(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                            int32_t r, const wpart_tasks_rank_t *v);
double wpart_tasks_i_work_noeps(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                                int32_t r, const wpart_tasks_rank_t *v);

#endif /* WPART_TASKS_INTERNAL_H */
