/* rect_polish_i.h -- the block-load state of a P x Q grid shared by the cut-move polish
 * (rect_polish.c) and the SGO kick (rect_kick.c). Internal to csrc/spatial. */
#ifndef WPART_RECT_POLISH_I_H
#define WPART_RECT_POLISH_I_H

#include "rect_grid_i.h"

/* the heavy lines' cache of wpart_i_rp_shift (integral loads only: its sums are the same
 * integers): a line of dimension d with more than RP_HEAVY_X K[1 - d] and more than
 * RP_HEAVY_MIN entries keeps its load per stripe of the other dimension (V[d], K[1 - d] per
 * heavy line), so that moving it costs K[1 - d] block updates instead of its entries; the
 * entries of a heavy line whose other line is heavy too are listed (hp, hx, hw) to keep the
 * other one's V when it moves; a light line that moves updates the V of the heavy lines among
 * its entries' other lines. Kept by wpart_i_rp_loads (made there) and wpart_i_rp_shift. */
#define RP_HEAVY_X 4
/* (at 4 x 4, 16 entries, the clustered and random geometric matrices of bench_spatial_fresh had
 * thousands of heavy lines whose cache cost more to make and keep than their moves saved: the
 * default's CPU 0.73-0.95 x on the seven 4 x 4 cases where the SGO of rect_random.c runs, one
 * process, interleaved; the arrows' dense lines stay heavy: 0.97-0.99 x; 8 x 32, 16 x 16:
 * 0.96-1.0 x; the same block loads either way) */
#define RP_HEAVY_MIN 256
typedef struct {
    int32_t *slot[2]; /* line -> its row of V[d] (-1: light) */
    double *V[2];
    int64_t *hp[2];   /* heavy line h of d: [hp[h], hp[h + 1]) of hx / hw */
    int64_t *hx[2];   /* the other line of those entries */
    double *hw[2];    /* their weights (NULL: unit weights) */
    int64_t nh[2];
} rp_heavy_t;

typedef struct {
    rg_side_t side[2]; /* 0: rows major (CSR), 1: columns major (CSC) */
    int64_t K[2];      /* stripes of the rows (P) and of the columns (Q) */
    int64_t *cut[2];
    int32_t *map[2];   /* row (column) -> its stripe */
    double *L;         /* P x Q block loads, row-major */
    double *smax[2];   /* per stripe of dimension d: its largest block ... */
    int64_t *scnt[2];  /* ... and how many of its blocks hold that load */
    double M;          /* the grid's max load and the number of blocks at it */
    int64_t c;
    rp_heavy_t *hv;    /* NULL: no cache (wpart_i_rp_heavy) */
    /* Ctrl-C inside wpart_i_rp_loads, wpart_i_rp_shift and wpart_i_rp_heavy (rg_cancel every
     * RG_POLL_WORK entries; on a dense 4096^2 matrix one pass is ~0.3 s): stop 1 once asked,
     * the loads then unfinished (the caller fails with WPART_ECANCELLED: rp_stopped) */
    const wpart_control_t *ctl;
    int64_t work;
    int stop;
} rp_t;

/* WPART_ECANCELLED once a pass over s's entries saw a request to stop, else WPART_OK */
static inline wpart_status_t rp_stopped(const rp_t *s)
{
    return s->stop ? wpart_i_error(WPART_ECANCELLED, "stopped on request") : WPART_OK;
}

static inline double *rp_at(rp_t *s, int d, int64_t p, int64_t q)
{
    return d == 0 ? &s->L[p * s->K[1] + q] : &s->L[q * s->K[1] + p];
}

/* the block loads of the grid (cut[0], cut[1]) from scratch, each stripe's largest block and
 * the grid's max and count; returns the max */
double wpart_i_rp_loads(rp_t *s);

/* dimension d's cuts go to nc (P + 1 or Q + 1): each line whose stripe changes moves its
 * entries between the blocks (O(moved entries); the other dimension's map as it is); returns
 * the entries moved. The SGO kick (rect_kick.c) and the SGO (rect_sgo.c) keep their block
 * loads so */
int64_t wpart_i_rp_shift(rp_t *s, int d, const int64_t *nc);

/* s->hv made for s's matrix (none when the weights are not integers, their total reaches
 * 2^52 or no line is heavy; freed by wpart_i_rp_heavy_free, also after a failure); the next
 * wpart_i_rp_loads fills it. WPART_OK or WPART_ENOMEM */
wpart_status_t wpart_i_rp_heavy(rp_t *s);
void wpart_i_rp_heavy_free(rp_t *s);

#endif
