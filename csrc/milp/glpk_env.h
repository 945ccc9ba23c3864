/*
 * glpk_env.h -- GLPK's environment for the MILP layer (private to csrc/milp/): the state the
 * hooks touch, the guarded call that turns GLPK's fatal errors into WPART_ESOLVER, loading a
 * wpart_milp_problem_t into a glp_prob, and the branch-and-cut callback.
 */
#ifndef WPART_GLPK_ENV_H
#define WPART_GLPK_ENV_H

#ifdef WPART_HAVE_GLPK
#include <glpk.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "milp_internal.h"
#include "wpart/status.h"

typedef struct {
    jmp_buf jmp;                    /* where the error hook jumps back to */
    glp_prob *P;                    /* the problem object (freed by glp_free_env on error) */
    char *log;                      /* caller's log buffer or NULL */
    size_t log_size, log_len;
    char err[512];                  /* text printed while GLPK was in its error state */
    size_t err_len;
    char last[512];                 /* the last message printed (for non-fatal failures) */
    const wpart_control_t *ctl;     /* control hooks or NULL */
    int track;                      /* record the bound from the branch-and-bound tree */
    int stop_requested;             /* should_stop fired */
    int time_stop;                  /* the callback stopped the search at the time limit */
    double last_poll;               /* when should_stop was last asked (wpart_i_now) */
    int have_bound;
    double bound;                   /* best bound seen in the tree */
    int64_t nodes;                  /* nodes of finished glp_intopt calls */
    int64_t nodes_cur;              /* nodes of the running glp_intopt call */
    double t0;                      /* start of the solve (wpart_i_now) */
    double time_limit;              /* effective limit in seconds, <= 0 for none */
    const int *row_exp;             /* solve: row i is loaded times 2^-row_exp[i] (or NULL) */
    const int *col_exp;             /* solve: column j is loaded as x_j 2^-col_exp[j] (or NULL) */
    double c0;                      /* solve: the objective constant, added outside GLPK */
    int obj_exp;                    /* solve: the objective is loaded times 2^-obj_exp */
    int msg_lev;                    /* GLP_MSG_ERR, or GLP_MSG_ON when a log is captured */
    const double *x0s;              /* solve: a start, 1-based and scaled as GLPK's columns,
                                       offered once at the first GLP_IHEUR (or NULL) */
    int x0_done;
    int tight_int;                  /* solve: GLPK's integrality tolerance tightened (a retry) */
    int glpk_scale;                 /* solve: GLPK's scaling on top of ours (a retry) */
    int lp_verdict;                 /* solve: the outcome came from the LP (relaxation) */
} wpart_i_glpk_t;

/* Longest interval between two calls of should_stop while GLPK runs (seconds). */
#define WPART_I_GLPK_POLL 0.02
/* Longest single glp_simplex call: the LP is solved in slices of this many ms, resumed from
 * the last basis, with should_stop asked between slices. */
#define WPART_I_GLPK_SLICE_MS 200
/* wpart_i_glpk_simplex's code (not GLPK's) when the simplex method made no progress in any way tried
 * (cycling). */
#define WPART_I_GLPK_ESTALL 0x7F01

typedef wpart_status_t (*wpart_i_glpk_body_fn)(wpart_i_glpk_t *g, void *arg);

void wpart_i_glpk_one_line(char *s);
wpart_status_t wpart_i_glpk_guarded(wpart_i_glpk_t *g, wpart_i_glpk_body_fn body, void *arg);
const char *wpart_i_glpk_code_name(int code);
int wpart_i_glpk_should_stop(wpart_i_glpk_t *g);
void wpart_i_glpk_ios_cb(glp_tree *T, void *info);
int wpart_i_glpk_simplex(wpart_i_glpk_t *g, int presolve, int tm_lim);
void wpart_i_glpk_col_bounds(const wpart_milp_problem_t *p, int64_t j, int round_int, double *lo,
                            double *hi);
void wpart_i_glpk_load(wpart_i_glpk_t *g, const wpart_milp_problem_t *p, const wpart_i_milp_matrix_t *M,
                      const int *rowmap);
void wpart_i_glpk_glpk_init(wpart_i_glpk_t *g, double t0);

#endif /* WPART_HAVE_GLPK */
#endif /* WPART_GLPK_ENV_H */
