/* hetero_grid.h -- private helpers of the hetero family (csrc/hetero/ only). */
#ifndef WPART_HETERO_GRID_H
#define WPART_HETERO_GRID_H

#include "internal.h"
#include "wpart/hetero.h"

/* Profiles on the common grid g = gcd(all sizes, n): sizes in grid units, size lookup. */
typedef struct {
    int64_t p, N, g;
    const int64_t *off;   /* borrowed offsets */
    int64_t *u;           /* size / g for every point */
    const double *t, *e;  /* borrowed */
    int64_t *idx;         /* p x (N+1): point index of size w on processor i, or -1 */
    int feasible_grid;    /* 0 when n is not a multiple of g */
} hg_grid_t;

wpart_status_t hg_grid_init(hg_grid_t *G, int64_t n, const wpart_hetero_profiles_t *P,
                            int64_t max_grid);
void hg_grid_free(hg_grid_t *G);

/* Work-counted polling: every long loop adds the elementary steps it did and the control hooks
 * (Ctrl-C, progress, time limit measured from t0) are polled about every HG_POLL_WORK steps
 * (well under a millisecond), however the work is shaped (many sizes or long rows). */
#define HG_POLL_WORK ((int64_t)1 << 17)

typedef struct {
    const wpart_control_t *ctl;
    double t0;
    int64_t work;
} hg_poll_t;

static inline hg_poll_t hg_poll_init(const wpart_control_t *ctl, double t0)
{
    hg_poll_t pl = {ctl, t0, 0};
    return pl;
}

static inline wpart_status_t hg_tick(hg_poll_t *pl, int64_t work)
{
    if (!pl || !pl->ctl) {
        return WPART_OK;
    }
    pl->work += work;
    if (pl->work < HG_POLL_WORK) {
        return WPART_OK;
    }
    pl->work = 0;
    return wpart_i_poll(pl->ctl, pl->t0, 0.0, 1.0);
}

/* Minimum right-fold energy DP (spec 2.3) over points with lo <= t <= hi; must[i] != 0 forbids
 * x_i = 0; forbid[i] != 0 forces x_i = 0 (both may be NULL). Ties: fewer active, then smaller
 * shares from the first processor on. Writes *feasible, *energy, dist (grid units) and *time.
 * Polls pl (may be NULL); WPART_ECANCELLED when stopped. */
typedef struct {
    double *D0, *D1;
    int32_t *A0, *A1;
    int64_t *choice;   /* p x (N+1) */
} hg_dp_t;

wpart_status_t hg_dp_alloc(hg_dp_t *W, const hg_grid_t *G);
void hg_dp_free(hg_dp_t *W);
wpart_status_t hg_dp_min_energy(const hg_grid_t *G, hg_dp_t *W, double lo, double hi,
                                const char *must, const char *forbid, hg_poll_t *pl,
                                int *feasible, double *energy, double *time, int64_t *dist);

/* Sorted distinct times of points with 1 <= u <= N (processors with mask[i] != 0, or all when
 * mask is NULL). Caller frees *out. */
wpart_status_t hg_candidate_times(const hg_grid_t *G, const char *mask, double **out,
                                  int64_t *count);

/* Time-optimal distribution, grid units; same contract as wpart_hetero_time_optimal. */
wpart_status_t hg_time_optimal(const hg_grid_t *G, const wpart_control_t *ctl, double t0,
                               int *feasible, double *time, double *energy, int64_t *dist);

/* Allocates the arrays of a front of count points (zero-filled). */
wpart_status_t hg_front_alloc(wpart_hetero_front_t *f, int64_t p, int64_t count);

/* Exact-sum reachability bitsets (hetero_grid.c). */
typedef struct {
    uint64_t *R, *R2;
    int64_t nw;
} hg_bits_t;
wpart_status_t hg_bits_alloc(hg_bits_t *B, const hg_grid_t *G);
void hg_bits_free(hg_bits_t *B);
/* Is N reachable with points lo <= t <= hi (must/forbid as the DP)? Polls pl. */
wpart_status_t hg_feas(const hg_grid_t *G, uint64_t *R, uint64_t *R2, int64_t nw, double lo,
                       double hi, const char *must, const char *forbid, hg_poll_t *pl, int *ok);

/* opt, or the defaults written into *dflt when opt is NULL */
static inline const wpart_hetero_options_t *hg_options(const wpart_hetero_options_t *opt,
                                                       wpart_hetero_options_t *dflt)
{
    if (opt) {
        return opt;
    }
    wpart_hetero_options_init(dflt);
    return dflt;
}

#endif
