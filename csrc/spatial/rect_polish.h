/* rect_polish.h -- a cheap local search that polishes a P x Q grid (private to the core and its
 * binding). */
#ifndef WPART_RECT_POLISH_H
#define WPART_RECT_POLISH_H

#include "rect_grid.h"

/* Cut moves on the grid (R, C) (in/out): a row or column cut next to a block at the max load
 * moves by 1 .. RP_WINDOW (8) positions (between its neighbours) when that lowers the grid's
 * (max load, number of blocks at it, sum of squared block loads), lexicographically, at most
 * 4 (P + Q) moves; at the local optimum, max_iter tabu steps (the best such move, even a
 * worse one; a cut that moved stays for RP_TENURE (3) steps unless moving it beats the best
 * grid met). The best grid met comes back. O(nnz) to start (the block loads), a move
 * O(moved entries + (P + Q) window + P Q). *value: the returned grid's max load, recomputed
 * from scratch; never above the given grid's (that grid comes back when nothing is lower).
 * *iters: moves made. deterministic (no randomness). */
wpart_status_t wpart_spatial_rect_polish(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                         int64_t *R, int64_t *C, int64_t max_iter,
                                         const wpart_control_t *control, double *value,
                                         int64_t *iters, int32_t *timed_out);

/* The same with the transpose of A given (At: the n2 x n1 CSR of A's columns, as
 * wpart_spatial_rect_grid builds it), for a caller that has it. */
wpart_status_t wpart_i_rect_polish(const wpart_rg_csr_t *A, const wpart_rg_csr_t *At, int64_t P,
                                   int64_t Q, int64_t *R, int64_t *C, int64_t max_iter,
                                   const wpart_control_t *control, double *value,
                                   int64_t *iters, int32_t *timed_out);

#endif
