/*
 * wpart/milp.h -- mixed-integer linear programmes in sparse form, solved with GLPK.
 *
 *     minimise (or maximise)  c^T x + c0
 *     subject to              row_lb <= A x <= row_ub
 *                             lb <= x <= ub,   x_j integer for the integer/binary columns
 *
 * A is given as COO triplets (row index, column index, value). Arrays are flat and borrowed: the
 * core never modifies an input and never keeps a pointer after returning. -INFINITY / +INFINITY
 * mark a missing bound. The model builders of the task and hetero families sit on top of this
 * layer; it is the only part of the core that talks to GLPK.
 *
 * GLPK keeps process-global state (its terminal and error hooks): never run two calls of this
 * header at the same time, from any thread. The Python binding serialises them with a lock.
 * Without GLPK (built with WPART_WITH_GLPK=OFF), every function returns WPART_ENOSOLVER.
 */
#ifndef WPART_MILP_H
#define WPART_MILP_H

#include <stddef.h>
#include <stdint.h>

#include "wpart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Optimisation direction. */
typedef enum {
    WPART_MILP_MINIMIZE = 0,
    WPART_MILP_MAXIMIZE = 1
} wpart_milp_sense_t;

/** Kind of a column (stored as int8_t in wpart_milp_problem_t.kind). */
typedef enum {
    WPART_MILP_CONTINUOUS = 0,
    WPART_MILP_INTEGER = 1,
    WPART_MILP_BINARY = 2   /* integer with bounds intersected with [0, 1] */
} wpart_milp_kind_t;

/** Outcome of a solve (recorded in the result; none of these is an error status). */
typedef enum {
    WPART_MILP_OPTIMAL = 0,      /* proven optimal (within mip_gap when mip_gap > 0) */
    WPART_MILP_FEASIBLE = 1,     /* stopped (time limit or stop request) with an incumbent */
    WPART_MILP_INFEASIBLE = 2,   /* no point satisfies the constraints */
    WPART_MILP_UNBOUNDED = 3,    /* feasible, objective unbounded in the optimisation direction */
    WPART_MILP_NO_SOLUTION = 4   /* stopped before any feasible point was found */
} wpart_milp_status_t;

/** Why a solve stopped early (WPART_MILP_FEASIBLE / WPART_MILP_NO_SOLUTION). */
typedef enum {
    WPART_MILP_STOP_NONE = 0,        /* ran to completion */
    WPART_MILP_STOP_TIME_LIMIT = 1,  /* options.time_limit or control->time_limit */
    WPART_MILP_STOP_REQUEST = 2      /* control->should_stop returned non-zero */
} wpart_milp_stop_t;

/** File formats understood by wpart_milp_write. */
typedef enum {
    WPART_MILP_FORMAT_LP = 0,   /* CPLEX LP format, as written by GLPK's glp_write_lp */
    WPART_MILP_FORMAT_MPS = 1   /* free MPS format (GLP_MPS_FILE) */
} wpart_milp_format_t;

/**
 * A problem, all arrays borrowed. Optional arrays may be NULL and then take the value shown.
 *
 * Columns j = 0..n_cols-1 are named x<j> and rows i = 0..n_rows-1 are named c<i> in written
 * files (0-based, as in the arrays).
 */
typedef struct {
    int64_t n_rows;             /* number of constraints, >= 0 */
    int64_t n_cols;             /* number of variables, >= 1 */
    const double *c;            /* n_cols finite objective coefficients (NULL: all 0) */
    double c0;                  /* finite objective constant */
    wpart_milp_sense_t sense;   /* minimise or maximise */
    const double *lb;           /* n_cols lower bounds, -INFINITY allowed (NULL: all 0) */
    const double *ub;           /* n_cols upper bounds, +INFINITY allowed (NULL: all +inf) */
    const int8_t *kind;         /* n_cols wpart_milp_kind_t values (NULL: all continuous) */
    const double *row_lb;       /* n_rows row lower bounds, -INFINITY allowed (NULL: all -inf) */
    const double *row_ub;       /* n_rows row upper bounds, +INFINITY allowed (NULL: all +inf) */
    int64_t nnz;                /* number of triplets, >= 0 */
    const int64_t *a_row;       /* nnz row indices in [0, n_rows) */
    const int64_t *a_col;       /* nnz column indices in [0, n_cols) */
    const double *a_val;        /* nnz finite values; duplicates (same row and column) are
                                   summed, and entries that are (or sum to) zero are dropped */
} wpart_milp_problem_t;

/** Solver options; fill with wpart_milp_options_init. A NULL options pointer means defaults. */
typedef struct {
    double time_limit;                /* seconds of wall time; <= 0 means none (default 0) */
    double mip_gap;                   /* relative gap at which to stop, >= 0 (default 0) */
    int presolve;                     /* use GLPK's presolver: 1 (default) or 0 */
    char *log;                        /* caller buffer receiving GLPK's terminal output
                                         (truncated, NUL-terminated); NULL: discard (default) */
    size_t log_size;                  /* size of log in bytes */
    const wpart_control_t *control;   /* optional hooks (NULL: none), see below */
    const double *x0;                 /* n_cols: a feasible point given to the branch and bound
                                         as its first incumbent (GLPK's heuristic-solution
                                         hook); NULL: none (default) */
} wpart_milp_options_t;

/** Outcome of wpart_milp_solve. */
typedef struct {
    wpart_milp_status_t status;
    wpart_milp_stop_t stopped_by;
    double objective;       /* c^T x + c0 at the returned x; NaN when there is no x */
    double bound;           /* best proven bound on the optimum (lower when minimising); equals
                               objective when optimal; -inf/+inf when unbounded; NaN if unknown */
    double gap;             /* |objective - bound| / (|objective| + DBL_EPSILON), GLPK's
                               definition; 0 when optimal; NaN when undefined */
    int64_t nodes;          /* branch-and-bound nodes created (0 for a pure LP) */
    double seconds;         /* wall time of the call */
    int glpk_code;          /* return code of the last GLPK solver call (0 if none) */
    char message[256];      /* one line describing the outcome, with GLPK's code name */
} wpart_milp_result_t;

/** Sets the defaults: no time limit, mip_gap 0, presolve on, no log, no control hooks. */
void wpart_milp_options_init(wpart_milp_options_t *opt);

/**
 * Solve a MILP (or an LP when no column is integer) with GLPK.
 *
 * prob  the problem (see wpart_milp_problem_t); validated completely before GLPK is called
 * opt   options, NULL for defaults
 * x     output, n_cols doubles (caller-allocated) or NULL: the solution when the status is
 *       OPTIMAL or FEASIBLE (integer columns hold exact integers), NaN otherwise
 * res   output, required
 *
 * Pure LPs go to the simplex method (glp_simplex); problems with integer columns to
 * branch-and-cut (glp_intopt). Infeasible and unbounded problems are recognised also when the
 * presolver reports them (GLP_ENOPFS / GLP_ENODFS); an unbounded LP relaxation is followed by a
 * feasibility solve to tell "unbounded" from "infeasible". Bounds of integer columns are rounded
 * inwards (1e-9 tolerance); an empty rounded range makes the problem infeasible.
 *
 * Every point GLPK returns is checked against the problem (milp_check.c). Retries: with the
 * presolver on, a point that fails the check, an infeasible or unbounded verdict or a GLPK
 * failure is re-solved once without it; then a point that fails the check is re-solved once
 * with GLPK's integrality tolerance 1e-9 (a second failure is WPART_ESOLVER, never returned),
 * and a GLPK failure or an infeasible or unbounded LP verdict once with GLPK's scaling
 * (glp_scale_prob; the first verdict stands when that retry finds no sound point). The simplex
 * runs in slices with an iteration cap; one that makes no progress (cycling) is WPART_ESOLVER.
 * Branch-and-cut prunes with tol_obj 1e-9.
 *
 * A time limit (options or control) or a stop request is not an error: the call returns WPART_OK
 * with status FEASIBLE (incumbent in x) or NO_SOLUTION, and stopped_by says why. Note that this
 * differs from the other families, which return WPART_ECANCELLED. control->should_stop is
 * polled once per branch-and-bound node (GLPK's callback; not during a pure LP simplex), and
 * control->progress(ctx, done, 100) receives the percentage of the relative gap closed
 * (0 until an incumbent exists, 100 at the end).
 *
 * Status: WPART_EINVAL (a NULL required pointer, sizes < 0, n_cols < 1, a NaN or infinite
 * coefficient, lb > ub, an index out of range, a bad kind; the detail names the field and the
 * index), WPART_ELIMIT (a size beyond GLPK's int indices), WPART_ENOMEM, WPART_ESOLVER (a GLPK
 * failure: GLP_E* code name or GLPK's fatal-error text in the detail; after a fatal error GLPK's
 * environment has been freed with glp_free_env, which also deletes every other GLPK object of
 * the process), WPART_ENOSOLVER (built without GLPK). On error x and res are unspecified.
 *
 * Complexity: O(nnz log nnz) to build the model, then GLPK's simplex / branch-and-cut
 * (exponential in the worst case).
 */
wpart_status_t wpart_milp_solve(const wpart_milp_problem_t *prob, const wpart_milp_options_t *opt,
                                double *x, wpart_milp_result_t *res);

/**
 * Write the problem to a file, in CPLEX LP format or free MPS, as GLPK writes them, so that
 * another solver (or glpsol) can read it. Objective "obj", columns x<j>, rows c<i> (0-based
 * indices of the arrays). Free rows (both bounds infinite) are left out; a model without other
 * rows gets one empty row "dummy" (0 >= 0), which GLPK's writers need. Two limits of the formats
 * as GLPK writes them: the LP file keeps a nonzero c0 only as a comment, and the free MPS file
 * records no direction (read a maximisation model with `glpsol --max`).
 *
 * Status: WPART_EINVAL (as for wpart_milp_solve, or a NULL/empty path or a bad format),
 * WPART_ELIMIT, WPART_ENOMEM, WPART_ESOLVER (the file could not be written; GLPK's message in
 * the detail), WPART_ENOSOLVER. Complexity O(nnz log nnz).
 */
wpart_status_t wpart_milp_write(const wpart_milp_problem_t *prob, const char *path,
                                wpart_milp_format_t format);

/**
 * wpart_milp_write with a stop request: where fork() is available and control->should_stop is
 * set, GLPK writes a temporary file next to `path` in a child process while the hook is asked
 * every few milliseconds (GLPK's writers have no hook of their own). A stop kills the child,
 * removes the temporary file and returns WPART_ECANCELLED with `path` untouched; a success
 * renames the temporary file over `path` (a regular file keeps its permission bits; a path
 * that is not a regular file, e.g. a link or a FIFO, is written in place). Without a hook, as
 * wpart_milp_write. control may be NULL; its time limit and progress hook are not used.
 */
wpart_status_t wpart_milp_write_ctl(const wpart_milp_problem_t *prob, const char *path,
                                    wpart_milp_format_t format, const wpart_control_t *control);

/** 1 when built with GLPK, else 0. */
int wpart_milp_have_solver(void);

/** GLPK's version string ("5.0"), or "" when built without GLPK. Static; never NULL. */
const char *wpart_milp_solver_version(void);

/**
 * Free GLPK's process-wide environment (glp_free_env): all memory GLPK holds. Optional; call it
 * at the end of a program (for leak checkers) when no GLPK object is in use. GLPK re-creates
 * its environment on the next call. No-op without GLPK.
 */
void wpart_milp_free_env(void);

#ifdef __cplusplus
}
#endif

#endif /* WPART_MILP_H */
