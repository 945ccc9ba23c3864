/*
 * wpart/hetero.h -- workload distribution over heterogeneous processors described by discrete
 * time and dynamic-energy profiles: the time-optimal distribution (TOPT), the exact
 * time x dynamic-energy Pareto front (HEPOPTA), the time x total-energy front (HTPOPTA), the
 * load-balanced baseline and two independent oracles (enumeration, threshold DP).
 *
 * Profiles are ragged, in CSR layout: processor i owns the points [offsets[i], offsets[i+1]) of
 * size/time/energy. Sizes are > 0 and strictly increasing per processor; times and energies are
 * finite and >= 0. Giving a processor 0 units always costs 0 time and 0 energy. A size that is
 * not listed cannot be given to that processor (never interpolated).
 *
 * All arithmetic is exact comparisons on doubles; dynamic energies are always summed as the right
 * fold e_0 + (e_1 + (... + e_{p-1})), so every algorithm here reports bitwise-identical values
 * for the same distribution. An infeasible instance is not an error: count == 0 / feasible == 0.
 */
#ifndef WPART_HETERO_H
#define WPART_HETERO_H

#include <stdint.h>

#include "wpart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Discrete profiles of p processors (CSR), all arrays borrowed. */
typedef struct {
    int64_t p;               /* number of processors, >= 1 */
    const int64_t *offsets;  /* length p+1, offsets[0] = 0, non-decreasing */
    const int64_t *size;     /* offsets[p] sizes, > 0, strictly increasing per processor */
    const double *time;      /* offsets[p] times (s), finite, >= 0 */
    const double *energy;    /* offsets[p] dynamic energies (J), finite, >= 0 */
} wpart_hetero_profiles_t;

/** Options; fill with wpart_hetero_options_init. A NULL pointer means defaults. */
typedef struct {
    double energy_threshold;          /* HEPOPTA's epsilon; NaN (default) = TOPT's value;
                                         +INFINITY disables energy pruning. Any value >= the
                                         energy of a time-optimal distribution is exact. */
    int drop_above_eps;               /* 1 (default): drop merged candidates above epsilon */
    int64_t max_grid;                 /* largest n / g accepted (default 1e8); WPART_ELIMIT */
    const wpart_control_t *control;   /* optional hooks (NULL: none) */
} wpart_hetero_options_t;

/** Counters of HEPOPTA. */
typedef struct {
    double t_opt;             /* time of the time-optimal distribution (NaN if infeasible) */
    double energy_threshold;  /* the epsilon used */
    int64_t granularity;      /* g: gcd of all sizes (and n) */
    int64_t cells;            /* memo cells expanded (FINAL or NS) */
    int64_t memo_hits;        /* memo reads of finished cells */
    int64_t cuts;             /* nodes cut by the size thresholds */
    int64_t candidates;       /* merged candidates offered to the staircases */
    int64_t skipped;          /* sizes skipped because the staircase already dominates them */
    int64_t peak_tuples;      /* tuples stored in the memo table at the end */
    double seconds;           /* wall time */
} wpart_hetero_stats_t;

/**
 * A front: count points, objective energy ascending, time strictly descending. Allocated by the
 * library; release with wpart_hetero_front_free (safe on a zeroed struct, safe twice).
 */
typedef struct {
    int64_t p;
    int64_t count;
    double *energy;          /* objective energy: dynamic (HEPOPTA) or total (HTPOPTA) */
    double *dynamic_energy;  /* the dynamic part */
    double *time;            /* parallel execution time max_i t_i(x_i) */
    int64_t *dist;           /* count x p, row-major, in the caller's size units */
} wpart_hetero_front_t;

/** Load-balanced baseline modes. */
typedef enum {
    WPART_HETERO_LB_MAX_ACTIVE = 0,  /* largest feasible active count, then least spread */
    WPART_HETERO_LB_ALL_ACTIVE = 1   /* every processor active, least spread */
} wpart_hetero_lb_mode_t;

void wpart_hetero_options_init(wpart_hetero_options_t *opt);
void wpart_hetero_front_free(wpart_hetero_front_t *f);

/** Checks the profiles; WPART_EINVAL with a message naming processor and point. */
wpart_status_t wpart_hetero_validate(const wpart_hetero_profiles_t *P);

/**
 * Time and right-fold dynamic energy of a distribution dist[p]. WPART_EINVAL when a share is
 * negative or is not a measured size of its processor.
 */
wpart_status_t wpart_hetero_eval(const wpart_hetero_profiles_t *P, const int64_t *dist,
                                 double *time, double *energy);

/**
 * TOPT: the least parallel time, and among the distributions reaching it one of least
 * dynamic energy (ties: fewer active processors, then smaller shares first). dist[p] is written
 * when *feasible. O(log(mp) p m N / 64 + p m N).
 */
wpart_status_t wpart_hetero_time_optimal(int64_t n, const wpart_hetero_profiles_t *P,
                                         const wpart_hetero_options_t *opt, int *feasible,
                                         double *time, double *energy, int64_t *dist);

/** The least dynamic energy and, among its distributions, the least time (front endpoint). */
wpart_status_t wpart_hetero_energy_optimal(int64_t n, const wpart_hetero_profiles_t *P,
                                           const wpart_hetero_options_t *opt, int *feasible,
                                           double *time, double *energy, int64_t *dist);

/** HEPOPTA: the exact time x dynamic-energy Pareto front. stats may be NULL.
 * WPART_ELIMIT for more than 10000 processors (the kernel recurses once per processor). */
wpart_status_t wpart_hetero_hepopta(int64_t n, const wpart_hetero_profiles_t *P,
                                    const wpart_hetero_options_t *opt, wpart_hetero_front_t *out,
                                    wpart_hetero_stats_t *stats);

/** HTPOPTA: the time x total-energy front with static power static_power >= 0. */
wpart_status_t wpart_hetero_htpopta(int64_t n, const wpart_hetero_profiles_t *P,
                                    double static_power, const wpart_hetero_options_t *opt,
                                    wpart_hetero_front_t *out, wpart_hetero_stats_t *stats);

/** The total-energy filter of HTPOPTA applied to a dynamic-energy front ep. */
wpart_status_t wpart_hetero_total_energy_front(const wpart_hetero_front_t *ep,
                                               double static_power, wpart_hetero_front_t *out);

/** Threshold-DP front: an independent exact oracle, O(|C| p m N). */
wpart_status_t wpart_hetero_threshold_dp(int64_t n, const wpart_hetero_profiles_t *P,
                                         const wpart_hetero_options_t *opt,
                                         wpart_hetero_front_t *out);

/** Naive enumeration; WPART_ELIMIT when prod_i (m_i + 1) > max_leaves. */
wpart_status_t wpart_hetero_bruteforce(int64_t n, const wpart_hetero_profiles_t *P,
                                       int64_t max_leaves, wpart_hetero_front_t *out);

/** The enumeration with control hooks (may be NULL), polled every 4096 leaves: Ctrl-C, a
 *  progress callback and control->time_limit stop it with WPART_ECANCELLED. */
wpart_status_t wpart_hetero_bruteforce_ctl(int64_t n, const wpart_hetero_profiles_t *P,
                                           int64_t max_leaves, const wpart_control_t *control,
                                           wpart_hetero_front_t *out);

/**
 * Load-balanced baseline: among distributions with the largest feasible number of
 * active processors (mode MAX_ACTIVE) or with all of them active (ALL_ACTIVE), one of least
 * spread max t - min t over the active processors; ties: lower time, lower energy, then
 * lexicographically smallest dist.
 */
wpart_status_t wpart_hetero_load_balanced(int64_t n, const wpart_hetero_profiles_t *P,
                                          wpart_hetero_lb_mode_t mode,
                                          const wpart_hetero_options_t *opt, int *feasible,
                                          double *time, double *energy, int64_t *dist);

/**
 * Benchmark kernel for real profile measurement: C += A B with A M x K, B K x N, C M x N, all
 * row-major doubles, cache-blocked, single-threaded. WPART_EINVAL for negative sizes or NULL.
 */
wpart_status_t wpart_hetero_kernel_dgemm(int64_t M, int64_t N, int64_t K, const double *A,
                                         const double *B, double *C);

/**
 * Epsilon-constraint MILP front with GLPK: an independent exact cross-check. One
 * stage-1 MILP (least energy with every time <= tau) and one stage-2 MILP (least time within
 * that energy, relative tolerance 1e-12) per front point; tau then drops below the point's time.
 * Reported values are re-evaluated exactly (right fold) from the distributions found.
 * time_limit (s, <= 0: none; the smaller of it and control->time_limit applies) bounds the
 * whole call; control (may be NULL) is polled once per branch-and-bound node. A time limit or
 * a stop request gives WPART_ECANCELLED. The caller must serialise GLPK calls (see
 * wpart/milp.h). WPART_ENOSOLVER without GLPK.
 */
wpart_status_t wpart_hetero_milp_front(int64_t n, const wpart_hetero_profiles_t *P,
                                       double time_limit, const wpart_control_t *control,
                                       wpart_hetero_front_t *out);

/**
 * Bulk parse of a FuPerMod-style profile file: lines of `size time [energy]` (blanks or commas
 * between the columns, '#' starts a comment, blank lines skipped, lines end with "\n" or
 * "\r\n"; every data line has 2 or every one has 3 columns). Sizes are exact: an integer literal
 * within +-(2**63-1), or a float literal that is an integer below 2**53 in magnitude; times and
 * energies are decimal numbers (strtod, C locale). Only a strict subset of what wpart's Python
 * reader accepts is accepted (ASCII numbers; no nan/inf words, hex, underscores): anything else
 * is WPART_EINVAL with the 1-based line and column in *bad_line / *bad_col and the detail, and
 * the caller re-reads the text its own way. WPART_EINVAL also when the locale's decimal point is
 * not '.' (wpart never calls setlocale). No data line: WPART_EINVAL.
 *
 * buf, len  the bytes (a UTF-8 BOM removed by the caller)
 * cap       capacity of size/time/energy (rows); more rows: WPART_ELIMIT
 * rows, ncol  rows parsed and their column count (2 or 3); energy is 0 for 2 columns
 * Time O(len), no allocation, no global state.
 */
wpart_status_t wpart_hetero_parse_points(const char *buf, size_t len, int64_t cap, int64_t *rows,
                                         int *ncol, int64_t *size, double *time, double *energy,
                                         int64_t *bad_line, int64_t *bad_col);

/**
 * Bulk parse of the body (the lines after the header) of a long-format profile CSV with nf
 * fields per line split at ',' (no quoting: a '"' is an error), processor / size / time /
 * energy in fields c_proc / c_size / c_time / c_energy (-1: none; energies then 0). Fields are
 * stripped of blanks; an empty energy is 0; empty lines are skipped. Sizes and numbers follow
 * wpart_hetero_parse_points. Processor names are numbered by first appearance: code[i] is row
 * i's name number and name_off/name_len[u] locate name u in buf (*names names). Errors as in
 * wpart_hetero_parse_points (*bad_col is the 1-based field). All outputs hold cap entries.
 * Time O(len) expected (a hash table of the names), memory O(names).
 */
wpart_status_t wpart_hetero_parse_csv(const char *buf, size_t len, int nf, int c_proc,
                                      int c_size, int c_time, int c_energy, int64_t cap,
                                      int64_t *rows, int64_t *code, int64_t *size, double *time,
                                      double *energy, int64_t *name_off, int64_t *name_len,
                                      int64_t *names, int64_t *bad_line, int64_t *bad_col);

#ifdef __cplusplus
}
#endif

#endif /* WPART_HETERO_H */
