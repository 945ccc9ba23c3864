/* rect_polish_i.h -- the block-load state of a P x Q grid shared by the cut-move polish
 * (rect_polish.c) and the SGO kick (rect_kick.c). Internal to csrc/spatial. */
#ifndef WPART_RECT_POLISH_I_H
#define WPART_RECT_POLISH_I_H

#include "rect_grid_i.h"

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
} rp_t;

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

#endif
