/*
 * glpk_env.c -- GLPK's environment for the MILP layer (see glpk_env.h).
 *
 * GLPK handling (STYLE.md, "No printing, no aborting"):
 *  - a terminal hook returns non-zero, so GLPK never prints; the text goes to the caller's log
 *    buffer and, while GLPK is in its error state, to a message buffer;
 *  - an error hook longjmps back to wpart_i_glpk_guarded(), which calls glp_free_env() as GLPK
 *    requires after a fatal error and turns the message into WPART_ESOLVER;
 *  - all state the hooks touch lives in a wpart_i_glpk_t owned by the caller's frame.
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
#include "glpk_env.h"

/* ------------------------------------------------------------------------------------------ */
/* GLPK hooks                                                                                  */
/* ------------------------------------------------------------------------------------------ */



static void milp_append(char *buf, size_t cap, size_t *len, const char *s)
{
    if (!buf || cap == 0) {
        return;
    }
    while (*s && *len + 1 < cap) {
        buf[(*len)++] = *s++;
    }
    buf[*len] = '\0';
}

/* Terminal hook: capture, never print (returning non-zero suppresses GLPK's own output). */
static int milp_term_hook(void *info, const char *s)
{
    wpart_i_glpk_t *g = info;
    if (!s || !s[0]) {
        return 1;
    }
    if (glp_at_error()) {
        milp_append(g->err, sizeof g->err, &g->err_len, s);
    } else {
        snprintf(g->last, sizeof g->last, "%s", s);
    }
    milp_append(g->log, g->log_size, &g->log_len, s);
    return 1;
}

/* Error hook: GLPK is about to abort; jump back to wpart_i_glpk_guarded() instead. */
static void milp_error_hook(void *info)
{
    wpart_i_glpk_t *g = info;
    longjmp(g->jmp, 1);
}

/* Strip trailing newlines and turn inner ones into "; " (messages are single lines). */
void wpart_i_glpk_one_line(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ')) {
        s[--n] = '\0';
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n') {
            s[i] = ';';
        }
    }
}



/*
 * Runs body with GLPK's hooks installed and recovers from a fatal GLPK error. Everything that
 * changes between setjmp and longjmp lives in *g (not a local of this function), so nothing
 * here needs to be volatile; `st` is only read on the normal path.
 */
wpart_status_t wpart_i_glpk_guarded(wpart_i_glpk_t *g, wpart_i_glpk_body_fn body, void *arg)
{
    wpart_status_t st;
    if (setjmp(g->jmp) != 0) {
        /* After a fatal error GLPK's state is undefined: glp_free_env() is mandatory. It frees
         * every GLPK object (g->P included) and removes the hooks. */
        glp_free_env();
        g->P = NULL;
        wpart_i_glpk_one_line(g->err);
        return wpart_i_error(WPART_ESOLVER, "GLPK fatal error: %s",
                             g->err[0] ? g->err : "(no message)");
    }
    glp_term_hook(milp_term_hook, g);
    glp_error_hook(milp_error_hook, g);
    st = body(g, arg);
    if (g->P) {
        glp_delete_prob(g->P);
        g->P = NULL;
    }
    glp_error_hook(NULL, NULL);
    glp_term_hook(NULL, NULL);
    return st;
}

/* Name and meaning of a glp_simplex / glp_intopt / glp_write_* return code. */
const char *wpart_i_glpk_code_name(int code)
{
    switch (code) {
    case 0: return "0: success";
    case GLP_EBADB: return "GLP_EBADB: invalid basis";
    case GLP_ESING: return "GLP_ESING: singular matrix";
    case GLP_ECOND: return "GLP_ECOND: ill-conditioned matrix";
    case GLP_EBOUND: return "GLP_EBOUND: invalid bounds";
    case GLP_EFAIL: return "GLP_EFAIL: solver failed";
    case GLP_EOBJLL: return "GLP_EOBJLL: objective lower limit reached";
    case GLP_EOBJUL: return "GLP_EOBJUL: objective upper limit reached";
    case GLP_EITLIM: return "GLP_EITLIM: iteration limit exceeded";
    case GLP_ETMLIM: return "GLP_ETMLIM: time limit exceeded";
    case GLP_ENOPFS: return "GLP_ENOPFS: no primal feasible solution";
    case GLP_ENODFS: return "GLP_ENODFS: no dual feasible solution";
    case GLP_EROOT: return "GLP_EROOT: root LP optimum not provided";
    case GLP_ESTOP: return "GLP_ESTOP: search terminated by application";
    case GLP_EMIPGAP: return "GLP_EMIPGAP: relative mip gap tolerance reached";
    case GLP_ENOFEAS: return "GLP_ENOFEAS: no primal/dual feasible solution";
    case GLP_ENOCVG: return "GLP_ENOCVG: no convergence";
    case GLP_EINSTAB: return "GLP_EINSTAB: numerical instability";
    case GLP_EDATA: return "GLP_EDATA: invalid data";
    case WPART_I_GLPK_ESTALL:
        return "no progress of the simplex method (cycling: primal and dual, Harris' and the "
               "textbook ratio test, each stalled)";
    case GLP_ERANGE: return "GLP_ERANGE: result out of range";
    default: return "unknown GLPK code";
    }
}

/* Branch-and-cut callback: track nodes and the bound, report progress, poll should_stop. */
void wpart_i_glpk_ios_cb(glp_tree *T, void *info)
{
    wpart_i_glpk_t *g = info;
    int a_cnt = 0, n_cnt = 0, t_cnt = 0;
    glp_ios_tree_size(T, &a_cnt, &n_cnt, &t_cnt);
    if (t_cnt > g->nodes_cur) {
        g->nodes_cur = t_cnt;
    }
    if (g->track) {
        int best = glp_ios_best_node(T);
        if (best != 0) {
            g->bound = ldexp(glp_ios_node_bound(T, best), g->obj_exp) + g->c0;
            g->have_bound = 1;
        }
    }
    int reason = glp_ios_reason(T);
    /* The time limit and should_stop are checked at every callback reason: a depth-first dive
     * never selects a node from the active list (GLP_ISELECT), but passes GLP_IPREPRO,
     * GLP_IROWGEN, GLP_IHEUR, GLP_ICUTGEN and GLP_IBRANCH at every node. The clock is read each
     * time; should_stop is asked at most every WPART_I_GLPK_POLL seconds, and at every node
     * selection and new incumbent. */
    double now = wpart_i_now();
    if (g->time_limit > 0.0 && now - g->t0 >= g->time_limit) {
        g->time_stop = 1;
        glp_ios_terminate(T);
        return;
    }
    if (reason == GLP_IHEUR && g->x0s && !g->x0_done) { /* the caller's start, once */
        g->x0_done = 1;
        glp_ios_heur_sol(T, g->x0s);
    }
    if (!g->ctl) {
        return;
    }
    int node_event = reason == GLP_ISELECT || reason == GLP_IBINGO;
    if (g->ctl->progress && g->track && node_event) {
        double gap = glp_ios_mip_gap(T); /* DBL_MAX while there is no incumbent */
        double done = (gap >= 1.0 || !(gap >= 0.0)) ? 0.0 : 100.0 * (1.0 - gap);
        g->ctl->progress(g->ctl->ctx, done, 100.0);
    }
    if (!node_event && now - g->last_poll < WPART_I_GLPK_POLL) {
        return;
    }
    g->last_poll = now;
    if (wpart_i_glpk_should_stop(g)) {
        glp_ios_terminate(T);
    }
}

/* Asks the control hook whether to stop (records the request); 0 without a hook. */
int wpart_i_glpk_should_stop(wpart_i_glpk_t *g)
{
    if (wpart_i_stop_asked(g->ctl)) {
        g->stop_requested = 1;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* The simplex method in slices                                                                */
/* ------------------------------------------------------------------------------------------ */

/* Sum of the primal (dual = 0) or dual (dual = 1) infeasibilities of GLPK's current basic
 * solution: the quantity the primal (dual) simplex method drives to zero in its phase 1. */
static double milp_infeas(glp_prob *P, int dual)
{
    int m = glp_get_num_rows(P), n = glp_get_num_cols(P);
    double sense = glp_get_obj_dir(P) == GLP_MAX ? -1.0 : 1.0, sum = 0.0;
    for (int k = 1; k <= m + n; k++) {
        int row = k <= m, j = row ? k : k - m;
        if (dual) {
            int st = row ? glp_get_row_stat(P, j) : glp_get_col_stat(P, j);
            double d = sense * (row ? glp_get_row_dual(P, j) : glp_get_col_dual(P, j));
            sum += st == GLP_NL ? fmax(0.0, -d) : st == GLP_NU ? fmax(0.0, d)
                 : st == GLP_NF ? fabs(d) : 0.0;
            continue;
        }
        int type = row ? glp_get_row_type(P, j) : glp_get_col_type(P, j);
        double v = row ? glp_get_row_prim(P, j) : glp_get_col_prim(P, j);
        double lo = row ? glp_get_row_lb(P, j) : glp_get_col_lb(P, j);
        double hi = row ? glp_get_row_ub(P, j) : glp_get_col_ub(P, j);
        if (type == GLP_LO || type == GLP_DB || type == GLP_FX) {
            sum += fmax(0.0, lo - v);
        }
        if (type == GLP_UP || type == GLP_DB || type == GLP_FX) {
            sum += fmax(0.0, v - hi);
        }
    }
    return sum;
}

/* The ways wpart_i_glpk_simplex tries in turn when the simplex method makes no progress: GLPK's
 * primal simplex with Harris' ratio test (its default), the dual, then both with the
 * textbook ratio test. */
static const struct {
    int meth, r_test;
} milp_simplex_ways[] = {
    {GLP_PRIMAL, GLP_RT_HAR}, {GLP_DUALP, GLP_RT_HAR}, {GLP_PRIMAL, GLP_RT_STD},
    {GLP_DUALP, GLP_RT_STD}};
#define MILP_SIMPLEX_WAYS ((int)(sizeof milp_simplex_ways / sizeof milp_simplex_ways[0]))

/* No progress: this many simplex iterations (at least) with neither the objective nor the
 * method's phase-1 measure (milp_infeas) changing by more than MILP_STALL_RTOL relative. */
#define MILP_STALL_ITERS 20000
#define MILP_STALL_RTOL 1e-11

static int milp_same(double a, double b)
{
    return fabs(a - b) <= MILP_STALL_RTOL * fmax(1.0, fmax(fabs(a), fabs(b)));
}

/*
 * glp_simplex in slices of at most WPART_I_GLPK_SLICE_MS (and at most stall_iters iterations):
 * after a slice that ran out of time (or iterations) the next one resumes from the basis it
 * left, so should_stop is asked between slices and a large LP stays interruptible. GLPK's LP presolver (presolve) is used in the first slice only: a
 * presolved run that stops keeps no basis, so the following slices start over without it, and
 * a presolved run that ends is followed by one without it from its basis.
 *
 * GLPK's simplex can cycle for ever (no iteration limit is set): its primal method with
 * Harris' ratio test stayed at the optimum of a tasks relaxation with one dual infeasibility
 * (coefficients 1.8e-6 and 1.25 in one row), 150000 degenerate pivots per slice. So progress
 * is measured between slices: when neither the objective nor the method's phase-1 measure
 * moved over stall_iters = max(MILP_STALL_ITERS, 10 (rows + columns)) iterations, the next of
 * milp_simplex_ways resumes from the basis left; after the last, WPART_I_GLPK_ESTALL.
 * Returns GLPK's code; GLP_ESTOP when should_stop asked to stop, GLP_ETMLIM at tm_lim.
 */
int wpart_i_glpk_simplex(wpart_i_glpk_t *g, int presolve, int tm_lim)
{
    glp_smcp sm;
    glp_init_smcp(&sm);
    sm.msg_lev = g->msg_lev;
    double t_start = wpart_i_now();
    int way = 0, have_ref = 0, it_ref = 0;
    double obj_ref = 0.0, inf_ref = 0.0;
    double size = 10.0 * ((double)glp_get_num_rows(g->P) + glp_get_num_cols(g->P));
    int stall_iters = size > MILP_STALL_ITERS ? (size < INT_MAX / 2 ? (int)size : INT_MAX / 2)
                                              : MILP_STALL_ITERS;
    for (;;) {
        double used_ms = (wpart_i_now() - t_start) * 1000.0;
        double left_ms = tm_lim == INT_MAX ? (double)INT_MAX : (double)tm_lim - used_ms;
        if (left_ms <= 0.0) {
            return GLP_ETMLIM;
        }
        int slice = left_ms < WPART_I_GLPK_SLICE_MS ? (int)ceil(left_ms) : WPART_I_GLPK_SLICE_MS;
        sm.presolve = presolve ? GLP_ON : GLP_OFF;
        sm.tm_lim = slice;
        sm.meth = milp_simplex_ways[way].meth;
        sm.r_test = milp_simplex_ways[way].r_test;
        sm.it_lim = stall_iters;
        int ret = glp_simplex(g->P, &sm);
        int presolved = presolve;
        presolve = 0;
        if (ret == 0 && presolved) {
            /* GLPK's LP presolver can end at a basis that is not optimal for the problem
             * itself (a coefficient of 1e-296 suffices): re-run without it from that basis,
             * which costs nothing when the basis is optimal. */
            continue;
        }
        if (ret != GLP_ETMLIM && ret != GLP_EITLIM) {
            return ret;
        }
        if (wpart_i_glpk_should_stop(g)) {
            return GLP_ESTOP;
        }
        if (presolved) {
            continue; /* no basis was kept: nothing to compare with */
        }
        int it = glp_get_it_cnt(g->P);
        double obj = glp_get_obj_val(g->P);
        double inf = milp_infeas(g->P, milp_simplex_ways[way].meth != GLP_PRIMAL);
        if (!have_ref || !milp_same(obj, obj_ref) || !milp_same(inf, inf_ref)) {
            have_ref = 1; /* progress (or a first measure): the new reference */
            it_ref = it;
            obj_ref = obj;
            inf_ref = inf;
        } else if (it - it_ref >= stall_iters) {
            if (++way == MILP_SIMPLEX_WAYS) {
                return WPART_I_GLPK_ESTALL;
            }
            have_ref = 0; /* the next way, from the basis left */
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Building the GLPK problem                                                                   */
/* ------------------------------------------------------------------------------------------ */

static int milp_bnd_type(double lo, double hi)
{
    if (lo == -INFINITY && hi == INFINITY) {
        return GLP_FR;
    }
    if (hi == INFINITY) {
        return GLP_LO;
    }
    if (lo == -INFINITY) {
        return GLP_UP;
    }
    return lo == hi ? GLP_FX : GLP_DB;
}

/*
 * Effective bounds of column j for GLPK: binary columns are intersected with [0, 1]; with
 * round_int, integer bounds are rounded inwards (glp_intopt rejects fractional ones).
 */
void wpart_i_glpk_col_bounds(const wpart_milp_problem_t *p, int64_t j, int round_int, double *lo,
                            double *hi)
{
    double l = wpart_i_milp_col_lb(p, j), u = wpart_i_milp_col_ub(p, j);
    int k = wpart_i_milp_col_kind(p, j);
    if (k == WPART_MILP_BINARY) {
        l = l > 0.0 ? l : 0.0;
        u = u < 1.0 ? u : 1.0;
    }
    if (round_int && k != WPART_MILP_CONTINUOUS) {
        if (isfinite(l)) {
            l = ceil(l - MILP_INT_TOL);
        }
        if (isfinite(u)) {
            u = floor(u + MILP_INT_TOL);
        }
    }
    *lo = l;
    *hi = u;
}

/*
 * Loads the validated problem into g->P (created here). Only GLPK calls: may longjmp.
 *
 * For a solve (rowmap == NULL) every row is loaded. For a file (rowmap != NULL) the rows with
 * rowmap[i] < 0 (free rows) are left out, because GLPK's MPS writer omits the objective when a
 * free row exists, and a row-less model gets one empty row "dummy" (0 >= 0), because GLPK's LP
 * writer cannot write a model without rows and its MPS writer asserts on an empty column.
 * Rows and columns are then named c<i> and x<j> after their indices in the caller's arrays.
 */
void wpart_i_glpk_load(wpart_i_glpk_t *g, const wpart_milp_problem_t *p, const wpart_i_milp_matrix_t *M,
                      const int *rowmap)
{
    char name[32];
    int for_solve = rowmap == NULL;
    int m = (int)p->n_rows, n = (int)p->n_cols, m_kept = m;
    if (rowmap) {
        m_kept = 0;
        for (int i = 0; i < m; i++) {
            m_kept += rowmap[i] >= 0;
        }
    }
    g->P = glp_create_prob();
    glp_prob *P = g->P;
    glp_set_obj_dir(P, p->sense == WPART_MILP_MAXIMIZE ? GLP_MAX : GLP_MIN);
    int oe = for_solve ? -g->obj_exp : 0;
    glp_set_obj_coef(P, 0, for_solve ? 0.0 : p->c0); /* a solve adds c0 itself (g->c0) */
    if (!for_solve) {
        glp_set_prob_name(P, "wpart");
        glp_set_obj_name(P, "obj");
    }
    if (m_kept > 0) {
        glp_add_rows(P, m_kept);
    } else if (!for_solve) {
        glp_add_rows(P, 1);
        glp_set_row_name(P, 1, "dummy");
        glp_set_row_bnds(P, 1, GLP_LO, 0.0, 0.0);
    }
    glp_add_cols(P, n);
    for (int i = 0; i < m; i++) {
        int ii = rowmap ? rowmap[i] + 1 : i + 1;
        if (ii < 1) {
            continue;
        }
        double lo = wpart_i_milp_row_lb(p, i), hi = wpart_i_milp_row_ub(p, i);
        if (for_solve && g->row_exp) {
            lo = ldexp(lo, -g->row_exp[i]);
            hi = ldexp(hi, -g->row_exp[i]);
        }
        int type = milp_bnd_type(lo, hi);
        if (type != GLP_FR) {
            glp_set_row_bnds(P, ii, type, isfinite(lo) ? lo : 0.0, isfinite(hi) ? hi : 0.0);
        }
        if (!for_solve) {
            snprintf(name, sizeof name, "c%d", i);
            glp_set_row_name(P, ii, name);
        }
    }
    for (int j = 0; j < n; j++) {
        double lo, hi;
        int k = wpart_i_milp_col_kind(p, j);
        wpart_i_glpk_col_bounds(p, j, for_solve, &lo, &hi);
        int ce = for_solve && g->col_exp ? g->col_exp[j] : 0; /* 0 for integer columns */
        lo = ldexp(lo, -ce);
        hi = ldexp(hi, -ce);
        if (k == WPART_MILP_CONTINUOUS) {
            /* GLP_CV is the default kind */
        } else if (lo == 0.0 && hi == 1.0) {
            glp_set_col_kind(P, j + 1, GLP_BV); /* sets the bounds [0, 1] too */
        } else {
            glp_set_col_kind(P, j + 1, GLP_IV);
        }
        glp_set_col_bnds(P, j + 1, milp_bnd_type(lo, hi), isfinite(lo) ? lo : 0.0,
                         isfinite(hi) ? hi : 0.0);
        if (p->c) {
            glp_set_obj_coef(P, j + 1, ldexp(p->c[j], oe + ce));
        }
        if (!for_solve) {
            snprintf(name, sizeof name, "x%d", j);
            glp_set_col_name(P, j + 1, name);
        }
    }
    if (M->ne > 0) {
        glp_load_matrix(P, M->ne, M->ia, M->ja, M->ar);
    }
}


void wpart_i_glpk_glpk_init(wpart_i_glpk_t *g, double t0)
{
    memset(g, 0, sizeof *g);
    g->track = 1;
    g->bound = NAN;
    g->t0 = t0;
    g->msg_lev = GLP_MSG_ERR;
}

#endif /* WPART_HAVE_GLPK */
