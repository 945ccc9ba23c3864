/* spatial_internal.h -- spatial entry points shared with the Python binding but not installed:
 * the public functions of wpart/spatial.h with a control (stop check) where the public
 * signature has none. */
#ifndef WPART_SPATIAL_INTERNAL_H
#define WPART_SPATIAL_INTERNAL_H

#include "wpart/spatial.h"

#include "../base/internal.h" /* wpart_i_error (wpart_i_emit_grid_ctl) */

/* cut p of the uniform cuts of n lines into k stripes: floor(p n / k) (RECT-UNIFORM's, and
 * every uniform start of the other methods) */
static inline int64_t wpart_i_uniform_cut(int64_t p, int64_t n, int64_t k)
{
    return (int64_t)(((__int128)p * n) / k);
}

/* the uniform cuts (k + 1) of n lines into k stripes */
static inline void wpart_i_uniform_cuts(int64_t n, int64_t k, int64_t *cuts)
{
    for (int64_t p = 0; p <= k; p++) {
        cuts[p] = wpart_i_uniform_cut(p, n, k);
    }
}

/* wpart_spatial_alloc_{i64,f64} polling `ctl` (may be NULL) */
wpart_status_t wpart_i_spatial_alloc_i64(const int64_t *L, int64_t K, int64_t m,
                                         const int64_t *cap, const wpart_control_t *ctl,
                                         int64_t *Q);
wpart_status_t wpart_i_spatial_alloc_f64(const double *L, int64_t K, int64_t m,
                                         const int64_t *cap, const wpart_control_t *ctl,
                                         int64_t *Q);

/* RECT-UNIFORM, RECT-NICOL, JAG-PQ-HEUR, JAG-PQ-OPT (Nicol or DP), JAG-M-HEUR,
 * JAG-M-HEUR-PROBE or JAG-M-PROBE
 * (opt->method; no speeds, no window; JAG-M-PROBE: opt->cuts, orient HOR or VER) on the
 * n1 x n2 sparse matrix given by its CSR (rp[n1+1], ci, rv; columns increasing within a row)
 * and CSC (cp[n2+1], ri, cv; all three NULL: made here, for the call) arrays of the same nnz
 * non-negative entries; the partition the
 * dense functions give on the same matrix (integer loads bit for bit). loads (m entries, may
 * be NULL) receives each rectangle's load. */
wpart_status_t wpart_i_spatial_sparse_i64(int64_t n1, int64_t n2, const int64_t *rp,
                                          const int64_t *ci, const int64_t *rv,
                                          const int64_t *cp, const int64_t *ri,
                                          const int64_t *cv, int64_t m,
                                          const wpart_spatial_options_t *opt, int64_t *rects,
                                          int64_t *loads, wpart_spatial_stats_t *stats);
wpart_status_t wpart_i_spatial_sparse_f64(int64_t n1, int64_t n2, const int64_t *rp,
                                          const int64_t *ci, const double *rv,
                                          const int64_t *cp, const int64_t *ri,
                                          const double *cv, int64_t m,
                                          const wpart_spatial_options_t *opt, int64_t *rects,
                                          double *loads, wpart_spatial_stats_t *stats);

/* The starts of RECT-NICOL or JAG-PQ-HEUR (opt->method; no window) in one call, on the dense
 * prefix S or on the sparse matrix (the CSC arrays cp/ri/cv may be NULL: made once here). Start
 * s has code codes[s]: bit 0 = first cuts split by load (0: uniform), bit 1 = the transposed
 * problem (orientation VER; 0: HOR). Start s writes its m rectangles at rects + 4 m s, their
 * loads at loads + m s (as wpart_base_box_loads / the sparse loads give them), its stats and
 * stop[s] (0 finished, 1 stopped by the time limit with a partition, 2 without one: nothing
 * written). opt->control's time limit is the whole call's: each start gets what is left (the
 * first always runs) and a start it stops ends the call. *ran = the starts run. */
wpart_status_t wpart_i_spatial_starts_i64(const int64_t *S, int64_t n1, int64_t n2, int64_t m,
                                          const wpart_spatial_options_t *opt, int64_t k,
                                          const int *codes, int64_t *rects, int64_t *loads,
                                          wpart_spatial_stats_t *stats, int *stop, int64_t *ran);
wpart_status_t wpart_i_spatial_starts_f64(const double *S, int64_t n1, int64_t n2, int64_t m,
                                          const wpart_spatial_options_t *opt, int64_t k,
                                          const int *codes, int64_t *rects, double *loads,
                                          wpart_spatial_stats_t *stats, int *stop, int64_t *ran);
wpart_status_t wpart_i_spatial_sparse_starts_i64(
    int64_t n1, int64_t n2, const int64_t *rp, const int64_t *ci, const int64_t *rv,
    const int64_t *cp, const int64_t *ri, const int64_t *cv, int64_t m,
    const wpart_spatial_options_t *opt, int64_t k, const int *codes, int64_t *rects,
    int64_t *loads, wpart_spatial_stats_t *stats, int *stop, int64_t *ran);
wpart_status_t wpart_i_spatial_sparse_starts_f64(
    int64_t n1, int64_t n2, const int64_t *rp, const int64_t *ci, const double *rv,
    const int64_t *cp, const int64_t *ri, const double *cv, int64_t m,
    const wpart_spatial_options_t *opt, int64_t k, const int *codes, int64_t *rects,
    double *loads, wpart_spatial_stats_t *stats, int *stop, int64_t *ran);

/* loads of m rectangles (r0, r1, c0, c1) inside the n1 x n2 CSR matrix (columns sorted
 * within each row) */
wpart_status_t wpart_i_spatial_sparse_loads_i64(int64_t n1, int64_t n2, const int64_t *rp,
                                                const int64_t *ci, const int64_t *rv, int64_t m,
                                                const int64_t *rects, int64_t *out);
wpart_status_t wpart_i_spatial_sparse_loads_f64(int64_t n1, int64_t n2, const int64_t *rp,
                                                const int64_t *ci, const double *rv, int64_t m,
                                                const int64_t *rects, double *out);

/* the CSC arrays (cp[n2+1], ri[nnz], cv[nnz]) of the n1 x n2 CSR matrix (rp, ci, rv): rows
 * increasing within each column; the 8-byte values (int64 or double) are copied bit for bit */
wpart_status_t wpart_i_spatial_csr_transpose(int64_t n1, int64_t n2, const int64_t *rp,
                                             const int64_t *ci, const void *rv, int64_t *cp,
                                             int64_t *ri, void *cv);

/* The n1 x n2 CSR arrays (rp, ci) well formed: rp[0] = 0, non-decreasing, rp[n1] = nnz, every
 * index in [0, n2) (WPART_EINVAL naming the first fault otherwise; sortedness not checked) */
wpart_status_t wpart_i_spatial_check_csr(const int64_t *rp, const int64_t *ci, int64_t n1,
                                         int64_t n2, int64_t nnz);

/* The nonzeros of a dense n1 x n2 matrix D (row-major; int64 cells when is_int, else
 * float64) as CSR arrays, rows in order and columns increasing within each: pass 1 (ci NULL)
 * writes the row pointers rp (n1 + 1) and the entries per column cols (n2); pass 2 the column
 * indices ci and the values, as float64 in w and / or (is_int) as int64 in iw (NULL: not
 * made; rp[n1] each, rp from pass 1), and *ones (every value 1). Ctrl-C (ctl's should_stop) is
 * polled every 2**16 cells: WPART_ECANCELLED. */
wpart_status_t wpart_i_spatial_dense_csr(const void *D, int is_int, int64_t n1, int64_t n2,
                                         const wpart_control_t *ctl, int64_t *rp,
                                         int64_t *cols, int64_t *ci, double *w, int64_t *iw,
                                         int *ones);

/* The entries of the CSR matrix of n1 rows (rp, ci) whose value (int64 iv, or float64 fv when iv
 * is NULL) is not 0: with ci_out NULL only *kept, their count (the pointers checked first; the
 * indices are copied, not followed: their range is the caller's to check); else, after that
 * call, their pointers rp_out (n1 + 1), indices ci_out and values in their own type (int64
 * iv_out with iv, float64 fv_out with fv; NULL: not made; room for *kept + 1 each: the last
 * cell is scratch). */
wpart_status_t wpart_i_spatial_csr_nonzero(int64_t n1, const int64_t *rp, const int64_t *ci,
                                           const int64_t *iv, const double *fv,
                                           int64_t *rp_out, int64_t *ci_out, int64_t *iv_out,
                                           double *fv_out, int64_t *kept);

/* Where the cuts c[0..k] fail to read 0 = c[0] <= c[1] <= ... <= c[k] = n: 0 when an end is
 * wrong (c[0] != 0, or c[k] != n with n >= 0; n < 0 leaves the last cut free), i when
 * c[i] < c[i - 1] (the first such i), -1 when they are well formed. */
static inline int64_t wpart_i_cuts_fault(const int64_t *c, int64_t k, int64_t n)
{
    if (c[0] != 0 || (n >= 0 && c[k] != n)) return 0;
    for (int64_t i = 1; i <= k; i++) {
        if (c[i] < c[i - 1]) return i;
    }
    return -1;
}

/* The rectangles (r0, r1, c0, c1) of the P x Q grid with row cuts R[0..P] and column cuts
 * C[0..Q], row-major (part p * Q + q), into out[4 P Q]; ctl's should_stop (Ctrl-C; ctl may be
 * NULL) asked every 2^16 rectangles: WPART_ECANCELLED then, out unfinished (2^24 rectangles,
 * 512 MiB first touched, took 0.7 s) */
static inline wpart_status_t wpart_i_emit_grid_ctl(const int64_t *R, int64_t P, const int64_t *C,
                                                   int64_t Q, int64_t *out,
                                                   const wpart_control_t *ctl)
{
    int64_t since = 0;
    for (int64_t p = 0; p < P; p++) {
        for (int64_t q = 0; q < Q; q++) {
            int64_t *o = out + 4 * (p * Q + q);
            o[0] = R[p];
            o[1] = R[p + 1];
            o[2] = C[q];
            o[3] = C[q + 1];
        }
        since += Q;
        if (since >= ((int64_t)1 << 16)) {
            since = 0;
            if (wpart_i_stop_asked(ctl)) {
                return wpart_i_error(WPART_ECANCELLED, "stopped on request");
            }
        }
    }
    return WPART_OK;
}

/* wpart_i_emit_grid_ctl without the control (it cannot fail) */
static inline void wpart_i_emit_grid(const int64_t *R, int64_t P, const int64_t *C, int64_t Q,
                                     int64_t *out)
{
    (void)wpart_i_emit_grid_ctl(R, P, C, Q, out, NULL);
}

#endif
