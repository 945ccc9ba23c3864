/*
 * glpk_solve.c -- the MILP layer over GLPK (wpart/milp.h): solve and write. GLPK itself is
 * reached only here and in glpk_env.c (hooks, guarded calls, loading); see there.
 *
 * GLPK handling (STYLE.md, "No printing, no aborting"):
 *  - a terminal hook returns non-zero, so GLPK never prints; the text goes to the caller's log
 *    buffer and, while GLPK is in its error state, to a message buffer;
 *  - an error hook longjmps back to wpart_i_glpk_guarded(), which calls glp_free_env() as GLPK
 *    requires after a fatal error and turns the message into WPART_ESOLVER;
 *  - all state the hooks touch lives in a wpart_i_glpk_t owned by the caller's frame, passed to
 *    GLPK as the hooks' info pointer: the core holds no mutable global of its own. GLPK's hooks
 *    are process-global, so two calls must never run at the same time (the binding serialises
 *    them with a lock).
 */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "milp_internal.h"
#include "wpart/milp.h"

#ifdef WPART_HAVE_GLPK
#include <glpk.h>

#include "glpk_env.h"
#endif


void wpart_milp_options_init(wpart_milp_options_t *opt)
{
    if (!opt) {
        return;
    }
    memset(opt, 0, sizeof *opt);
    opt->time_limit = 0.0;
    opt->mip_gap = 0.0;
    opt->presolve = 0;
    opt->log = NULL;
    opt->log_size = 0;
    opt->control = NULL;
}

int wpart_milp_have_solver(void)
{
#ifdef WPART_HAVE_GLPK
    return 1;
#else
    return 0;
#endif
}

const char *wpart_milp_solver_version(void)
{
#ifdef WPART_HAVE_GLPK
    return glp_version();
#else
    return "";
#endif
}

void wpart_milp_free_env(void)
{
#ifdef WPART_HAVE_GLPK
    glp_free_env();
#endif
}

#ifdef WPART_HAVE_GLPK

/* ------------------------------------------------------------------------------------------ */
/* Solving                                                                                     */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
    const wpart_milp_problem_t *p;
    const wpart_i_milp_matrix_t *M;
    const wpart_milp_options_t *opt;
    double *x;
    wpart_milp_result_t *res;
    int has_int;
    double glpk_obj; /* GLPK's objective value at the point it returned */
} milp_solve_args_t;

/* Relative tolerance of the solution check (rows, bounds, integrality, objective). */
#define MILP_CHECK_TOL 1e-6

/* GLPK's objective agrees with the one recomputed from the point (scaled by sum |c_j x_j|). */
static int milp_same_objective(const wpart_milp_problem_t *p, const double *x, double obj,
                               double glpk_obj)
{
    if (!isfinite(glpk_obj)) {
        return 1; /* GLPK gave none (e.g. the point of a stopped run) */
    }
    double scale = fmax(1.0, fabs(p->c0));
    for (int64_t j = 0; p->c && j < p->n_cols; j++) {
        scale = fmax(scale, fabs(p->c[j] * x[j]));
    }
    return fabs(obj - glpk_obj) <= MILP_CHECK_TOL * scale * (double)(p->n_cols + 1);
}

/* Remaining time in ms for GLPK's tm_lim (INT_MAX: none); 0 when the limit has passed. */
static int milp_tm_lim(const wpart_i_glpk_t *g)
{
    if (g->time_limit <= 0.0) {
        return INT_MAX;
    }
    double left = g->time_limit - (wpart_i_now() - g->t0);
    if (left <= 0.0) {
        return 0;
    }
    double ms = ceil(left * 1000.0);
    return ms >= (double)(INT_MAX - 1) ? INT_MAX - 1 : (int)ms;
}

/* GLPK prunes a node whose bound is within tol_obj (1 + |incumbent|) of the incumbent
 * (ios_is_hopeful); its default, 1e-7, pruned the optimum 4e7 of a tasks model below an
 * incumbent 4e7 + 4 (the objective reaches GLPK in [1, 2)), which then came back "optimal". */
#define MILP_TOL_OBJ 1e-9
/* GLPK's integrality tolerance on the retry after a point failed the check (its default 1e-5
 * took 1.6e-6 as an integer, beside a continuous column tied to it and a coefficient 6e5
 * times larger in one row: rounded, the point broke that row). */
#define MILP_TIGHT_TOL_INT 1e-9

/*
 * glp_intopt, always without GLPK's MIP presolver: it can run without end (ignoring tm_lim and
 * the callback) and return points that violate the model; the relaxation at the root is solved
 * by wpart_i_glpk_simplex first, with GLPK's LP presolver when presolve is on.
 */
static int milp_intopt(wpart_i_glpk_t *g, double mip_gap, int tm_lim)
{
    glp_iocp io;
    glp_init_iocp(&io);
    io.msg_lev = g->msg_lev;
    io.presolve = GLP_OFF;
    io.tm_lim = tm_lim;
    io.mip_gap = mip_gap;
    io.tol_obj = MILP_TOL_OBJ;
    if (g->tight_int) {
        io.tol_int = MILP_TIGHT_TOL_INT;
    }
    io.cb_func = wpart_i_glpk_ios_cb;
    io.cb_info = g;
    g->nodes_cur = 0;
    int ret = glp_intopt(g->P, &io);
    g->nodes += g->nodes_cur;
    g->nodes_cur = 0;
    return ret;
}

/* Outcome of one GLPK solve, before it becomes a wpart_milp_status_t. */
typedef enum {
    MILP_R_OPTIMAL,
    MILP_R_GAP,        /* stopped at the mip_gap tolerance with an incumbent */
    MILP_R_STOPPED,    /* time limit or stop request; incumbent in `have_x` */
    MILP_R_INFEASIBLE,
    MILP_R_DUAL_INF,   /* LP (relaxation) dual infeasible: unbounded or infeasible */
    MILP_R_UNBOUNDED,  /* primal feasible and unbounded (simplex without presolve) */
    MILP_R_ERROR
} milp_raw_t;

typedef struct {
    milp_raw_t kind;
    int have_x;        /* a primal feasible point is available in GLPK's solution */
    int code;          /* GLPK return code */
} milp_outcome_t;

/* Solves the LP in g->P with glp_simplex. Time limit 0: reports a stop without calling GLPK. */
static milp_outcome_t milp_run_lp(wpart_i_glpk_t *g, int presolve)
{
    milp_outcome_t r = {MILP_R_ERROR, 0, 0};
    int tm = milp_tm_lim(g);
    g->lp_verdict = 1;
    if (tm == 0) {
        r.kind = MILP_R_STOPPED;
        r.code = GLP_ETMLIM;
        return r;
    }
    r.code = wpart_i_glpk_simplex(g, presolve, tm);
    switch (r.code) {
    case 0:
        switch (glp_get_status(g->P)) {
        case GLP_OPT: r.kind = MILP_R_OPTIMAL; r.have_x = 1; break;
        case GLP_NOFEAS: r.kind = MILP_R_INFEASIBLE; break;
        case GLP_UNBND: r.kind = MILP_R_UNBOUNDED; break;
        default:
            /* e.g. GLP_INFEAS after a failed phase; should not happen */
            r.kind = MILP_R_ERROR;
            break;
        }
        break;
    case GLP_ENOPFS: r.kind = MILP_R_INFEASIBLE; break;
    case GLP_ENODFS: r.kind = MILP_R_DUAL_INF; break;
    case GLP_ETMLIM:
    case GLP_EITLIM:
    case GLP_ESTOP:
        r.kind = MILP_R_STOPPED;
        r.have_x = glp_get_prim_stat(g->P) == GLP_FEAS;
        break;
    default: r.kind = MILP_R_ERROR; break;
    }
    return r;
}

/* Solves the MILP in g->P (glp_intopt; without presolve, after the root LP by simplex). */
static milp_outcome_t milp_run_mip(wpart_i_glpk_t *g, int presolve, double mip_gap)
{
    milp_outcome_t r = {MILP_R_ERROR, 0, 0};
    {
        /* glp_intopt needs an optimal basis of the relaxation when its presolver is off. */
        r = milp_run_lp(g, presolve);
        if (r.kind != MILP_R_OPTIMAL) {
            r.have_x = 0; /* an LP point is not an integer point */
            return r;
        }
    }
    int tm = milp_tm_lim(g);
    if (tm == 0) {
        r.kind = MILP_R_STOPPED;
        r.have_x = 0;
        r.code = GLP_ETMLIM;
        return r;
    }
    g->lp_verdict = 0;
    r.code = milp_intopt(g, mip_gap, tm);
    r.have_x = 0;
    int ms = glp_mip_status(g->P);
    switch (r.code) {
    case 0:
        if (ms == GLP_OPT) {
            r.kind = MILP_R_OPTIMAL;
            r.have_x = 1;
        } else if (ms == GLP_NOFEAS) {
            r.kind = MILP_R_INFEASIBLE;
        } else {
            r.kind = MILP_R_ERROR;
        }
        break;
    case GLP_EMIPGAP:
        r.kind = ms == GLP_FEAS || ms == GLP_OPT ? MILP_R_GAP : MILP_R_ERROR;
        r.have_x = r.kind == MILP_R_GAP;
        break;
    case GLP_ETMLIM:
    case GLP_ESTOP:
        r.kind = MILP_R_STOPPED;
        r.have_x = ms == GLP_FEAS || ms == GLP_OPT;
        break;
    case GLP_ENOPFS: r.kind = MILP_R_INFEASIBLE; break;
    case GLP_ENODFS: r.kind = MILP_R_DUAL_INF; break;
    default: r.kind = MILP_R_ERROR; break;
    }
    return r;
}

/*
 * The relaxation is dual infeasible: the problem is unbounded if it has a feasible point and
 * infeasible otherwise (for rational data, an unbounded relaxation of a feasible MILP makes the
 * MILP unbounded). Decide by solving with a zero objective.
 */
static milp_outcome_t milp_feasibility(wpart_i_glpk_t *g, const wpart_milp_problem_t *p, int has_int,
                                       int presolve)
{
    for (int j = 0; j <= (int)p->n_cols; j++) {
        glp_set_obj_coef(g->P, j, 0.0);
    }
    g->track = 0;
    milp_outcome_t r = has_int ? milp_run_mip(g, presolve, 0.0) : milp_run_lp(g, presolve);
    g->track = 1;
    return r;
}

static void milp_stop_message(wpart_i_glpk_t *g, wpart_milp_result_t *res, const char *what,
                              int code)
{
    if (g->stop_requested && !g->time_stop) {
        res->stopped_by = WPART_MILP_STOP_REQUEST;
        snprintf(res->message, sizeof res->message, "stopped on request; %s (%s)", what,
                 wpart_i_glpk_code_name(code));
    } else {
        /* the time limit may be seen by our callback (GLPK then answers GLP_ESTOP) or by
         * GLPK's own tm_lim: either way it is GLPK's time-limit outcome */
        res->stopped_by = WPART_MILP_STOP_TIME_LIMIT;
        snprintf(res->message, sizeof res->message, "time limit of %g s reached; %s (%s)",
                 g->time_limit, what,
                 wpart_i_glpk_code_name(code == GLP_ESTOP ? GLP_ETMLIM : code));
    }
}

/* Copies GLPK's (basic or MIP) solution into x and computes the objective at it. */
static double milp_take_x(wpart_i_glpk_t *g, const wpart_milp_problem_t *p, int mip, double *x)
{
    double obj = p->c0;
    for (int64_t j = 0; j < p->n_cols; j++) {
        int jj = (int)j + 1;
        double v = mip ? glp_mip_col_val(g->P, jj) : glp_get_col_prim(g->P, jj);
        if (g->col_exp) {
            v = ldexp(v, g->col_exp[j]); /* GLPK's x'_j = x_j 2^-col_exp[j] */
        }
        if (wpart_i_milp_col_kind(p, j) != WPART_MILP_CONTINUOUS) {
            v = nearbyint(v); /* GLPK returns integers up to its tol_int */
        }
        if (x) {
            x[j] = v;
        }
        if (p->c) {
            obj += p->c[j] * v;
        }
    }
    return obj;
}

static wpart_status_t milp_solve_body(wpart_i_glpk_t *g, void *arg)
{
    milp_solve_args_t *a = arg;
    const wpart_milp_problem_t *p = a->p;
    wpart_milp_result_t *res = a->res;
    int presolve = a->opt->presolve != 0;
    int maximize = p->sense == WPART_MILP_MAXIMIZE;
    wpart_status_t st = WPART_OK;

    wpart_i_glpk_load(g, p, a->M, NULL);
    if (g->glpk_scale) {
        glp_scale_prob(g->P, GLP_SF_AUTO); /* a retry: GLPK's own scaling on top of ours */
    }
    milp_outcome_t r = a->has_int ? milp_run_mip(g, presolve, a->opt->mip_gap)
                                  : milp_run_lp(g, presolve);
    res->glpk_code = r.code;
    if (r.kind == MILP_R_UNBOUNDED || r.kind == MILP_R_DUAL_INF) {
        int first = r.code;
        int feasible;
        if (r.kind == MILP_R_UNBOUNDED && !a->has_int) {
            /* glp_simplex (no presolve) reached a primal feasible point and found a ray */
            feasible = 1;
        } else {
            r = milp_feasibility(g, p, a->has_int, presolve);
            res->glpk_code = r.code;
            feasible = r.kind == MILP_R_OPTIMAL || r.kind == MILP_R_GAP ||
                       (r.kind == MILP_R_STOPPED && r.have_x);
        }
        if (feasible) {
            res->status = WPART_MILP_UNBOUNDED;
            res->bound = maximize ? INFINITY : -INFINITY;
            snprintf(res->message, sizeof res->message, "problem is unbounded (%s%s)",
                     a->has_int ? "LP relaxation: " : "",
                     first ? wpart_i_glpk_code_name(first) : "primal simplex found an unbounded ray");
        } else if (r.kind == MILP_R_INFEASIBLE) {
            res->status = WPART_MILP_INFEASIBLE;
            snprintf(res->message, sizeof res->message,
                     "problem is infeasible (%s%s, and no feasible point exists)",
                     a->has_int ? "LP relaxation: " : "",
                     first ? wpart_i_glpk_code_name(first) : "unbounded");
        } else if (r.kind == MILP_R_STOPPED) {
            res->status = WPART_MILP_NO_SOLUTION;
            milp_stop_message(g, res, "relaxation unbounded, feasibility undecided", r.code);
        } else {
            st = wpart_i_error(WPART_ESOLVER, "GLPK failed while checking feasibility: %s",
                               wpart_i_glpk_code_name(r.code));
        }
        return st;
    }
    switch (r.kind) {
    case MILP_R_OPTIMAL:
    case MILP_R_GAP:
        res->status = WPART_MILP_OPTIMAL;
        res->objective = milp_take_x(g, p, a->has_int, a->x);
        a->glpk_obj = ldexp(a->has_int ? glp_mip_obj_val(g->P) : glp_get_obj_val(g->P),
                            g->obj_exp) + p->c0;
        if (r.kind == MILP_R_OPTIMAL) {
            res->bound = res->objective;
            res->gap = 0.0;
            snprintf(res->message, sizeof res->message, "optimal solution found");
        } else {
            res->bound = g->have_bound ? g->bound : NAN;
            res->gap = fabs(res->objective - res->bound) / (fabs(res->objective) + DBL_EPSILON);
            snprintf(res->message, sizeof res->message,
                     "optimal within the relative gap tolerance %g (%s)", a->opt->mip_gap,
                     wpart_i_glpk_code_name(r.code));
        }
        break;
    case MILP_R_STOPPED:
        if (r.have_x) {
            res->status = WPART_MILP_FEASIBLE;
            res->objective = milp_take_x(g, p, a->has_int, a->x);
            res->bound = g->have_bound ? g->bound : NAN;
            res->gap = fabs(res->objective - res->bound) / (fabs(res->objective) + DBL_EPSILON);
            milp_stop_message(g, res, "returning the best feasible solution found", r.code);
        } else {
            res->status = WPART_MILP_NO_SOLUTION;
            res->bound = g->have_bound ? g->bound : NAN;
            milp_stop_message(g, res, "no feasible solution found", r.code);
        }
        break;
    case MILP_R_INFEASIBLE:
        res->status = WPART_MILP_INFEASIBLE;
        snprintf(res->message, sizeof res->message, "problem is infeasible%s%s%s",
                 r.code ? " (" : "", r.code ? wpart_i_glpk_code_name(r.code) : "", r.code ? ")" : "");
        break;
    default:
        wpart_i_glpk_one_line(g->last);
        st = wpart_i_error(WPART_ESOLVER, "%s failed: %s%s%s",
                           a->has_int ? "glp_intopt" : "glp_simplex", wpart_i_glpk_code_name(r.code),
                           g->last[0] ? "; GLPK said: " : "", g->last);
        break;
    }
    return st;
}

typedef struct {
    const wpart_milp_problem_t *p;
    const wpart_i_milp_matrix_t *M;
    const int *rowmap;
    const char *path;  /* the file GLPK writes (the target or a temporary file next to it) */
    const char *shown; /* the target, named in messages */
    wpart_milp_format_t format;
} milp_write_args_t;

static wpart_status_t milp_write_body(wpart_i_glpk_t *g, void *arg)
{
    milp_write_args_t *a = arg;
    wpart_i_glpk_load(g, a->p, a->M, a->rowmap);
    int ret = a->format == WPART_MILP_FORMAT_LP ? glp_write_lp(g->P, NULL, a->path)
                                                : glp_write_mps(g->P, GLP_MPS_FILE, NULL, a->path);
    if (ret != 0) {
        wpart_i_glpk_one_line(g->last);
        return wpart_i_error(WPART_ESOLVER, "cannot write '%s'%s%s", a->shown,
                             g->last[0] ? ": " : "", g->last);
    }
    return WPART_OK;
}

/* The model's GLPK matrix (its free rows left out, see wpart_i_glpk_load), loaded into GLPK
 * and written to `file`: wpart_i_write_forked's writer, so that the sort of the nonzeros runs
 * in the stoppable child too. */
static wpart_status_t milp_write_to(const char *file, void *arg)
{
    milp_write_args_t *a = arg;
    const wpart_milp_problem_t *prob = a->p;
    wpart_status_t st = WPART_OK;
    wpart_i_milp_matrix_t M = {0, NULL, NULL, NULL};
    int *rowmap = NULL;
    WPART_CHECK(wpart_i_milp_matrix(prob, &M));
    /* number the rows kept, and renumber A's rows */
    rowmap = wpart_i_malloc(prob->n_rows, sizeof *rowmap);
    if (!rowmap) {
        WPART_FAIL(WPART_ENOMEM, "row map of %" PRId64 " rows", prob->n_rows);
    }
    int kept = 0;
    for (int64_t i = 0; i < prob->n_rows; i++) {
        int free_row = wpart_i_milp_row_lb(prob, i) == -INFINITY && wpart_i_milp_row_ub(prob, i) == INFINITY;
        rowmap[i] = free_row ? -1 : kept++;
    }
    int ne = 0;
    for (int k = 1; k <= M.ne; k++) {
        int r = rowmap[M.ia[k] - 1];
        if (r >= 0) {
            ne++;
            M.ia[ne] = r + 1;
            M.ja[ne] = M.ja[k];
            M.ar[ne] = M.ar[k];
        }
    }
    M.ne = ne;
    a->M = &M;
    a->rowmap = rowmap;
    a->path = file;
    wpart_i_glpk_t g;
    wpart_i_glpk_glpk_init(&g, wpart_i_now());
    st = wpart_i_glpk_guarded(&g, milp_write_body, a);
cleanup:
    wpart_i_milp_matrix_free(&M);
    free(rowmap);
    return st;
}


#endif /* WPART_HAVE_GLPK */

/* ------------------------------------------------------------------------------------------ */
/* Public entry points                                                                         */
/* ------------------------------------------------------------------------------------------ */

wpart_status_t wpart_milp_solve(const wpart_milp_problem_t *prob, const wpart_milp_options_t *opt,
                                double *x, wpart_milp_result_t *res)
{
    wpart_status_t st = WPART_OK;
    double t0 = wpart_i_now();
    wpart_milp_options_t defaults;
#ifdef WPART_HAVE_GLPK
    wpart_i_milp_matrix_t M = {0, NULL, NULL, NULL};
#endif
    double *xs = NULL, *act = NULL, *x0s = NULL;
    int *row_exp = NULL, *col_exp = NULL;
    if (!res) {
        WPART_FAIL(WPART_EINVAL, "res is NULL");
    }
    memset(res, 0, sizeof *res);
    res->status = WPART_MILP_NO_SOLUTION;
    res->stopped_by = WPART_MILP_STOP_NONE;
    res->objective = res->bound = res->gap = NAN;
    if (!opt) {
        wpart_milp_options_init(&defaults);
        opt = &defaults;
    }
    WPART_CHECK(wpart_i_milp_validate_options(opt));
    WPART_CHECK(wpart_i_milp_validate(prob));
    if (opt->log && opt->log_size > 0) {
        opt->log[0] = '\0';
    }
#ifndef WPART_HAVE_GLPK
    (void)x;
    WPART_FAIL(WPART_ENOSOLVER, "wpart was built without GLPK (WPART_WITH_GLPK=OFF)");
#else
    if (x) {
        for (int64_t j = 0; j < prob->n_cols; j++) {
            x[j] = NAN;
        }
    }
    int has_int = 0;
    for (int64_t j = 0; j < prob->n_cols; j++) {
        if (wpart_i_milp_col_kind(prob, j) == WPART_MILP_CONTINUOUS) {
            continue;
        }
        has_int = 1;
        double lo, hi;
        wpart_i_glpk_col_bounds(prob, j, 1, &lo, &hi);
        if (lo > hi) {
            /* no integer in [lb, ub]: decided without GLPK (it would reject the bounds) */
            res->status = WPART_MILP_INFEASIBLE;
            snprintf(res->message, sizeof res->message,
                     "problem is infeasible: integer column %" PRId64 " has no integer in "
                     "[%g, %g]", j, wpart_i_milp_col_lb(prob, j), wpart_i_milp_col_ub(prob, j));
            goto cleanup;
        }
    }
    WPART_CHECK(wpart_i_milp_matrix(prob, &M));
    row_exp = wpart_i_malloc(prob->n_rows > 0 ? prob->n_rows : 1, sizeof *row_exp);
    col_exp = wpart_i_malloc(prob->n_cols > 0 ? prob->n_cols : 1, sizeof *col_exp);
    if (!row_exp || !col_exp) {
        WPART_FAIL(WPART_ENOMEM, "row scale factors");
    }
    int obj_exp = 0;
    WPART_CHECK(wpart_i_milp_scale(prob, &M, row_exp, col_exp, &obj_exp));

    wpart_i_glpk_t g;
    wpart_i_glpk_glpk_init(&g, t0);
    g.row_exp = row_exp;
    g.col_exp = col_exp;
    g.obj_exp = obj_exp;
    g.c0 = prob->c0;
    g.ctl = opt->control;
    g.time_limit = opt->time_limit > 0.0 ? opt->time_limit : 0.0;
    if (g.ctl && g.ctl->time_limit > 0.0 &&
        (g.time_limit <= 0.0 || g.ctl->time_limit < g.time_limit)) {
        g.time_limit = g.ctl->time_limit;
    }
    if (opt->log && opt->log_size > 0) {
        g.log = opt->log;
        g.log_size = opt->log_size;
        g.msg_lev = GLP_MSG_ON;
    }
    if (opt->x0 && has_int) { /* GLPK's column j holds x_j 2^-col_exp[j], 1-based */
        x0s = wpart_i_malloc(prob->n_cols + 1, sizeof *x0s);
        if (!x0s) {
            WPART_FAIL(WPART_ENOMEM, "start point");
        }
        x0s[0] = 0.0;
        for (int64_t j = 0; j < prob->n_cols; j++) {
            x0s[j + 1] = ldexp(opt->x0[j], -col_exp[j]);
        }
        g.x0s = x0s;
    }
    /* GLPK's answer is re-checked against the problem (see milp_check.c): bounds, rows,
     * integrality and the objective recomputed from the point. With the presolver on, a point
     * that fails the check, an infeasible or unbounded verdict, or a GLPK failure is re-solved
     * once without it; without the presolver a point that fails the check is re-solved once
     * with GLPK's integrality tolerance tightened (MILP_TIGHT_TOL_INT), and one that fails
     * again is a solver fault, never returned; a GLPK failure, or an infeasible or unbounded
     * verdict of the LP (relaxation), is re-solved once with GLPK's scaling (see below). */
    xs = wpart_i_malloc(prob->n_cols, sizeof *xs);
    act = wpart_i_malloc(prob->n_rows > 0 ? 2 * prob->n_rows : 1, sizeof *act);
    if (!xs || !act) {
        WPART_FAIL(WPART_ENOMEM, "solution check buffers");
    }
    wpart_milp_options_t o2 = *opt;
    wpart_milp_result_t verdict; /* the verdict a rescaled retry falls back on */
    int have_verdict = 0;
    for (int attempt = 0;; attempt++) {
        for (int64_t j = 0; j < prob->n_cols; j++) {
            xs[j] = NAN;
        }
        milp_solve_args_t args = {prob, &M, &o2, xs, res, has_int, NAN};
        int64_t nodes_before = attempt ? res->nodes : 0;
        wpart_status_t gst = wpart_i_glpk_guarded(&g, milp_solve_body, &args);
        res->nodes = nodes_before + g.nodes;
        char why[200] = "";
        int retry;
        if (gst != WPART_OK) {
            retry = gst == WPART_ESOLVER;
            snprintf(why, sizeof why, "GLPK failed");
        } else if (res->status == WPART_MILP_OPTIMAL || res->status == WPART_MILP_FEASIBLE) {
            retry = !wpart_i_milp_check(prob, xs, row_exp, col_exp, MILP_CHECK_TOL, act,
                                        why, sizeof why);
            if (!retry && !milp_same_objective(prob, xs, res->objective, args.glpk_obj)) {
                retry = 1;
                snprintf(why, sizeof why, "objective %.17g recomputed from the point, GLPK "
                         "reported %.17g", res->objective, args.glpk_obj);
            }
        } else {
            retry = res->status == WPART_MILP_INFEASIBLE || res->status == WPART_MILP_UNBOUNDED;
        }
        if (have_verdict && gst != WPART_ECANCELLED &&
            !(gst == WPART_OK && !retry &&
              (res->status == WPART_MILP_OPTIMAL || res->status == WPART_MILP_FEASIBLE))) {
            /* the rescaled retry found no sound point (GLPK's scaling failed, e.g. a factor
             * of 0 beside coefficients of 1e-300, or it ran out of time): the first verdict */
            *res = verdict;
            gst = WPART_OK;
            retry = 0;
        }
        /* a retry without the presolver; then a point that failed the check is solved again
         * with GLPK's integrality tolerance tightened, and a GLPK failure or an infeasible or
         * unbounded verdict of the LP (relaxation) with GLPK's scaling too (geometric mean
         * and equilibration: a column whose every coefficient is 1e-7 of its row's largest
         * stayed at 0 and GLPK's phase 1 ended "infeasible" 3.6e-7 short) */
        int violated = retry && gst == WPART_OK &&
                       (res->status == WPART_MILP_OPTIMAL || res->status == WPART_MILP_FEASIBLE);
        int tight = 0, rescale = 0;
        if (retry && !o2.presolve) {
            tight = violated && has_int && !g.tight_int;
            rescale = !violated && !g.glpk_scale && (gst != WPART_OK || g.lp_verdict);
        }
        if (retry && (o2.presolve || tight || rescale)) {
            if (rescale && gst == WPART_OK) {
                verdict = *res;
                have_verdict = 1;
            }
            tight = tight || rescale;
            o2.presolve = 0;
            wpart_i_glpk_t keep = g; /* same hooks, log and time limit (counted from t0) */
            wpart_i_glpk_glpk_init(&g, t0);
            g.ctl = keep.ctl;
            g.time_limit = keep.time_limit;
            g.log = keep.log;
            g.log_size = keep.log_size;
            g.log_len = keep.log_len;
            g.msg_lev = keep.msg_lev;
            g.row_exp = keep.row_exp;
            g.col_exp = keep.col_exp;
            g.obj_exp = keep.obj_exp;
            g.c0 = keep.c0;
            g.x0s = keep.x0s;
            g.tight_int = keep.tight_int || tight;
            g.glpk_scale = keep.glpk_scale || rescale;
            memset(res, 0, sizeof *res);
            res->status = WPART_MILP_NO_SOLUTION;
            res->stopped_by = WPART_MILP_STOP_NONE;
            res->objective = res->bound = res->gap = NAN;
            res->nodes = nodes_before;
            continue;
        }
        WPART_CHECK(gst);
        if (retry && (res->status == WPART_MILP_OPTIMAL || res->status == WPART_MILP_FEASIBLE)) {
            WPART_FAIL(WPART_ESOLVER, "GLPK returned a point that violates the problem (%s)",
                       why);
        }
        break;
    }
    if (x) {
        memcpy(x, xs, (size_t)prob->n_cols * sizeof *x);
    }
    if (g.ctl && g.ctl->progress) {
        g.ctl->progress(g.ctl->ctx, 100.0, 100.0);
    }
#endif
cleanup:
#ifdef WPART_HAVE_GLPK
    wpart_i_milp_matrix_free(&M);
#endif
    free(xs);
    free(act);
    free(x0s);
    free(row_exp);
    free(col_exp);
    if (res) {
        res->seconds = wpart_i_now() - t0;
    }
    return st;
}

wpart_status_t wpart_milp_write(const wpart_milp_problem_t *prob, const char *path,
                                wpart_milp_format_t format)
{
    return wpart_milp_write_ctl(prob, path, format, NULL);
}

wpart_status_t wpart_milp_write_ctl(const wpart_milp_problem_t *prob, const char *path,
                                    wpart_milp_format_t format, const wpart_control_t *control)
{
    wpart_status_t st = WPART_OK;
    if (!path || !path[0]) {
        WPART_FAIL(WPART_EINVAL, "path must be a non-empty string");
    }
    if (format != WPART_MILP_FORMAT_LP && format != WPART_MILP_FORMAT_MPS) {
        WPART_FAIL(WPART_EINVAL, "format must be WPART_MILP_FORMAT_LP or WPART_MILP_FORMAT_MPS "
                   "(got %d)", (int)format);
    }
    WPART_CHECK(wpart_i_milp_validate(prob));
#ifndef WPART_HAVE_GLPK
    (void)control;
    WPART_FAIL(WPART_ENOSOLVER, "wpart was built without GLPK (WPART_WITH_GLPK=OFF)");
#else
    milp_write_args_t args = {prob, NULL, NULL, path, path, format};
    WPART_CHECK(wpart_i_write_forked(path, milp_write_to, &args, control));
#endif
cleanup:
    return st;
}
