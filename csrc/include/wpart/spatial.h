/*
 * wpart/spatial.h -- rectangular partitions of 2D load matrices (Secs. 3 and 5 of
 * Saule et al., JPDC 2012):
 * rectilinear, P x Q jagged, m-way jagged and hierarchical classes.
 *
 * Every algorithm reads a bordered 2D prefix array S of shape (n1+1) x (n2+1) (see
 * wpart_base_prefix2d_*) and writes m half-open rectangles (r0, r1, c0, c1) in global
 * coordinates into a caller-allocated m x 4 int64 array. Empty rectangles appear only when the
 * requested structure forces them (m > cells in the window, P > n1, Q > n2, ...).
 */
#ifndef WPART_SPATIAL_H
#define WPART_SPATIAL_H

#include <stdint.h>

#include "wpart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    WPART_SP_RECT_UNIFORM = 0,
    WPART_SP_RECT_NICOL = 1,
    WPART_SP_JAG_PQ_HEUR = 2,
    WPART_SP_JAG_PQ_OPT_NICOL = 3,
    WPART_SP_JAG_PQ_OPT_DP = 4,
    WPART_SP_JAG_M_HEUR = 5,
    WPART_SP_JAG_M_PROBE = 6,
    WPART_SP_JAG_M_HEUR_PROBE = 7,
    WPART_SP_JAG_M_ALLOC = 8,
    WPART_SP_JAG_M_OPT = 9,
    WPART_SP_HIER_RB = 10,
    WPART_SP_HIER_RELAXED = 11,
    WPART_SP_HIER_OPT = 12,
    WPART_SP_HYBRID = 13
} wpart_spatial_method_t;

typedef enum { WPART_SP_HOR = 0, WPART_SP_VER = 1, WPART_SP_BEST = 2 } wpart_spatial_orient_t;

/* HIER cut-dimension rules (Sec. 3.3) */
typedef enum {
    WPART_SP_LOAD = 0, WPART_SP_DIST = 1, WPART_SP_DIMHOR = 2, WPART_SP_DIMVER = 3
} wpart_spatial_rule_t;

typedef struct {
    wpart_spatial_method_t method;
    wpart_spatial_orient_t orient; /* jagged methods; RECT-NICOL: VER = the transposed problem;
                                      RECT-UNIFORM and HIER ignore it */
    wpart_spatial_rule_t rule;     /* HIER-RB / HIER-RELAXED */
    int tie_first;                 /* plateau tie: 0 = area-proportional (default), 1 = first */
    int64_t P, Q;                  /* RECT / JAG-PQ: P*Q = m. JAG-M-HEUR(-PROBE): stripes
                                      (0 = floor(sqrt m)) */
    const int64_t *cuts;           /* JAG-M-PROBE: P+1 stripe cuts (main dim, 0..n_main);
                                      JAG-M-ALLOC: P part counts summing to m */
    int64_t ncuts;                 /* length of cuts */
    int64_t max_sweeps;            /* RECT-NICOL, default 100 when <= 0 */
    int64_t max_states;            /* HIER-OPT dense memo cap, default 2e7 when <= 0 */
    int64_t window[4];             /* r0, r1, c0, c1 of the sub-matrix; all 0 = whole matrix */
    const wpart_control_t *control;/* optional hooks (Ctrl-C, time limit, progress) */
    const double *speeds;          /* NULL, or m positive relative speeds: part k (row k of the
                                      output) costs load_k / speeds[k] and max_k load_k/speeds[k]
                                      is minimised. Supported by JAG-PQ-HEUR, JAG-PQ-OPT
                                      (exact; stripe p on processors pQ .. pQ+Q-1),
                                      JAG-M-HEUR, JAG-M-PROBE, JAG-M-HEUR-PROBE, JAG-M-ALLOC,
                                      JAG-M-OPT (both exact for the order), HIER-RB,
                                      HIER-RELAXED and HIER-OPT (exact; a node with processors
                                      [k, k+q) splits into [k, k+j) and [k+j, k+q), memo
                                      m times larger). Processors are
                                      used in the given order (stripe by stripe, left/top side
                                      first), so sorting the speeds changes the result. */
    /* HYBRID (Sec. 5): phase-1 method, fast and slow phase-2 methods (each one of JAG-M-HEUR,
       JAG-M-HEUR-PROBE, JAG-M-OPT, HIER-RB, HIER-RELAXED; slow < 0 for none), the phase-1
       part count m1 (0 = choose by the expected imbalance) and its minimum (0 = default
       max(2, ceil(m/64))). init sets JAG-M-HEUR / JAG-M-HEUR-PROBE / JAG-M-OPT. */
    int hybrid_phase1, hybrid_fast, hybrid_slow;
    int64_t m1, m1_min;
    /* The start of RECT-NICOL and JAG-PQ-HEUR (0 = the paper's): RECT-NICOL 0 = uniform rows,
       1 = rows split by load (the exact 1D partition of the row sums); JAG-PQ-HEUR 0 = stripes
       split by load, 1 = uniform stripes. RECT-NICOL with orient VER solves the transposed
       problem (columns fixed first) and maps it back. */
    int start;
} wpart_spatial_options_t;

typedef struct {
    double seconds;
    int64_t iterations;   /* RECT-NICOL half-sweeps, bisection steps ... */
    int64_t probes;       /* feasibility tests */
    int64_t cost_evals;   /* nested 1D optima evaluated */
    int64_t dp_states;    /* DP states computed */
    int converged;        /* RECT-NICOL reached a fixed point */
    int orient;           /* orientation used (0 HOR, 1 VER) for jagged methods */
    int64_t P;            /* stripes / row blocks used (HYBRID: the m1 used) */
    double eli;           /* HYBRID: expected load imbalance of the chosen phase 1 */
    int timed_out;        /* 1 when the time limit stopped the method after it had a complete
                             partition: the call returns WPART_OK with that partition (the
                             best found: the JAG-M-OPT incumbent, the current RECT-NICOL grid,
                             the finished orientation of a jagged method, HYBRID's phase 2) */
} wpart_spatial_stats_t;

/** Defaults: RECT-UNIFORM, HOR, LOAD rule, area tie, everything else 0/NULL. */
void wpart_spatial_options_init(wpart_spatial_options_t *opt);

/**
 * Partition the window of the matrix whose bordered prefix is S ((n1+1) x (n2+1), row-major)
 * into m rectangles with opt->method; rects receives m rows (r0, r1, c0, c1), global coordinates.
 * Status: WPART_EINVAL (m < 1, bad window, P*Q != m, bad cuts/counts), WPART_ENOMEM,
 * WPART_ELIMIT (HIER-OPT state cap), WPART_ECANCELLED (control hooks, or the time limit before
 * any complete partition; a time limit reached after one returns WPART_OK with
 * stats->timed_out = 1).
 */
wpart_status_t wpart_spatial_partition_i64(const int64_t *S, int64_t n1, int64_t n2, int64_t m,
                                           const wpart_spatial_options_t *opt, int64_t *rects,
                                           wpart_spatial_stats_t *stats);
wpart_status_t wpart_spatial_partition_f64(const double *S, int64_t n1, int64_t n2, int64_t m,
                                           const wpart_spatial_options_t *opt, int64_t *rects,
                                           wpart_spatial_stats_t *stats);

/**
 * HIER-RB on a 3D load array (an extension of Sec. 3.3): S is the bordered 3D prefix
 * ((n1+1) x (n2+1) x (n3+1), see wpart_base_prefix3d_*), boxes receives m rows
 * (r0, r1, c0, c1, l0, l1). rule: WPART_SP_LOAD (try the 3 dimensions, keep the best cut) or
 * WPART_SP_DIST (the longest extent). Ties take the smaller cut.
 */
wpart_status_t wpart_spatial_hier_rb3d_i64(const int64_t *S, int64_t n1, int64_t n2, int64_t n3,
                                           int64_t m, wpart_spatial_rule_t rule, int64_t *boxes);
wpart_status_t wpart_spatial_hier_rb3d_f64(const double *S, int64_t n1, int64_t n2, int64_t n3,
                                           int64_t m, wpart_spatial_rule_t rule, int64_t *boxes);

/**
 * Proportional allocation (Sec. 3.2.2): counts Q[k] >= 1 with sum m for K <= m blocks of loads L,
 * optional caps (NULL for none). Ties go to the smallest index.
 */
wpart_status_t wpart_spatial_alloc_i64(const int64_t *L, int64_t K, int64_t m,
                                       const int64_t *cap, int64_t *Q);
wpart_status_t wpart_spatial_alloc_f64(const double *L, int64_t K, int64_t m, const int64_t *cap,
                                       int64_t *Q);

/**
 * The body of a MatrixMarket coordinate file (buf[0, len): the entry lines after the size line)
 * as a canonical CSR matrix: rp (n1 + 1), ci and the values (fv for a real field, iv for an
 * integer or pattern one: 1 per entry; a real field with fv NULL: iv the indicator value != 0,
 * for weights that count entries) hold *count <= cap entries, cap = nnz (general) or
 * 2 nnz; each row's columns ascending, explicit zeros kept, both triangles of a symmetric file
 * (skew: the mirror negated). Only a strict subset of the syntax is parsed (see mm_read.c): a
 * body outside it, or one storing a cell twice, gives WPART_EINVAL (*bad_line: the entry line,
 * 1-based, or 0) and the caller reads the file with a general reader. WPART_ENOMEM,
 * WPART_ECANCELLED (control hooks).
 */
enum { WPART_MM_REAL = 0, WPART_MM_INTEGER = 1, WPART_MM_PATTERN = 2 };
enum { WPART_MM_GENERAL = 0, WPART_MM_SYMMETRIC = 1, WPART_MM_SKEW = 2 };
wpart_status_t wpart_spatial_mm_csr(const char *buf, size_t len, int64_t n1, int64_t n2,
                                    int64_t nnz, int field, int sym, int64_t *rp, int64_t *ci,
                                    double *fv, int64_t *iv, int64_t *count, int64_t *bad_line,
                                    const wpart_control_t *ctl);

/**
 * The m entries of a COO matrix (row[e], col[e]) as a canonical CSR matrix: rp (n1 + 1), ci and
 * the values (fv from fw, or iv from iw; fw and iw both NULL: iv the number of entries stored
 * in each cell, a cell stored twice counted twice) hold *count <= m entries, each row's
 * columns ascending, explicit zeros kept: what scipy's conversion with duplicates summed
 * gives. A cell stored twice with values given, or an index outside [0, n1) x [0, n2):
 * WPART_EINVAL (the caller converts with scipy, which sums floats in an order of its own, or
 * reports the fault). WPART_ENOMEM.
 */
wpart_status_t wpart_spatial_coo_csr(int64_t n1, int64_t n2, int64_t m, const int64_t *row,
                                     const int64_t *col, const double *fw, const int64_t *iw,
                                     int64_t *rp, int64_t *ci, double *fv, int64_t *iv,
                                     int64_t *count);

#ifdef __cplusplus
}
#endif

#endif /* WPART_SPATIAL_H */
