/*
 * wpart/tasks.h -- communication- and memory-aware task placement (the CCM model).
 *
 * A phase of K tasks is placed on I ranks. Rank r's work is
 *     W(r) = alpha_r L(r) + beta max(out(r), in(r)) + gamma loc(r) + delta H(r) + eps(r)
 * with L the summed task loads, out/in the off-rank bytes sent/received, loc the on-rank bytes,
 * H the bytes of shared blocks present on r but homed elsewhere and eps = +inf when the rank's
 * memory  baseline + sum footprint + max working + sum of distinct blocks  exceeds its cap
 * (only when enforce_memory is set). The objective is W_max = max_r W(r).
 *
 * Convention: gamma multiplies on-rank (intra-rank) bytes, as in the paper and ccm-milp
 * (LBAF treats gamma as an additive constant; vt as intra-node bytes).
 */
#ifndef WPART_TASKS_H
#define WPART_TASKS_H

#include <stdint.h>

#include "wpart/milp.h"
#include "wpart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One phase. Arrays are borrowed (caller-owned) and must outlive every object built on them. */
typedef struct {
    int32_t n_ranks, n_tasks, n_blocks;
    int64_t n_edges;
    const double *task_load;      /* K, >= 0 finite */
    const double *task_footprint; /* K or NULL (0) */
    const double *task_working;   /* K or NULL (0) */
    const int32_t *task_block;    /* K or NULL; -1 = no block */
    const double *block_size;     /* N (may be NULL when N = 0) */
    const int32_t *block_home;    /* N, in [0, I) */
    const int32_t *edge_src;      /* M */
    const int32_t *edge_dst;      /* M */
    const double *edge_bytes;     /* M, >= 0 finite */
    const double *rank_baseline;  /* I or NULL (0) */
    const double *rank_mem_cap;   /* I or NULL (+inf); +inf allowed */
    const double *rank_alpha;     /* I or NULL: per-rank speed factor replacing alpha */
    const uint8_t *task_migratable; /* K or NULL (all migratable): 0 = pinned, the task never
                                       leaves the rank it starts on (LBDatafile
                                       "migratable": false). Every balancer honours it: CCM-LB
                                       leaves pinned tasks out of its transfer units (a
                                       cluster holding one moves without it), greedy and brute
                                       force keep them on their rank of `initial`; an exchange
                                       that lists one is refused (WPART_EINVAL). */
} wpart_tasks_problem_t;

typedef struct {
    double alpha, beta, gamma, delta; /* >= 0 finite */
    int enforce_memory;               /* non-zero: W = +inf above the memory cap */
} wpart_tasks_coeffs_t;

/** alpha = 1, beta = gamma = delta = 0, enforce_memory = 1. */
void wpart_tasks_coeffs_init(wpart_tasks_coeffs_t *c);

/** Per-rank report; every pointer may be NULL, else an array of n_ranks. */
typedef struct {
    double *load, *vol_out, *vol_in, *vol_local, *homing, *memory, *work;
    int32_t *n_blocks_present, *n_blocks_off_home;
} wpart_tasks_report_t;

/** Checks every array (finite, non-negative, ids in range). */
wpart_status_t wpart_tasks_validate(const wpart_tasks_problem_t *p);
wpart_status_t wpart_tasks_validate_coeffs(const wpart_tasks_coeffs_t *c);
wpart_status_t wpart_tasks_validate_assignment(const wpart_tasks_problem_t *p,
                                               const int32_t *assign);

/** Full (non-incremental) evaluation of an assignment. w_max may be NULL. */
wpart_status_t wpart_tasks_evaluate(const wpart_tasks_problem_t *p,
                                    const wpart_tasks_coeffs_t *c, const int32_t *assign,
                                    const wpart_tasks_report_t *out, double *w_max);

/* ---- incremental engine ---- */
typedef struct wpart_tasks_state wpart_tasks_state_t;

wpart_status_t wpart_tasks_state_create(const wpart_tasks_problem_t *p,
                                        const wpart_tasks_coeffs_t *c, const int32_t *assign,
                                        wpart_tasks_state_t **out);
void wpart_tasks_state_free(wpart_tasks_state_t *s);

/**
 * Work of r1 and r2 if the tasks give[] (all on r1) moved to r2 and take[] (all on r2) moved to
 * r1. Exact; O(|give|+|take| + their edges). Uses scratch space of s (hence not const).
 */
wpart_status_t wpart_tasks_state_eval_exchange(wpart_tasks_state_t *s, int32_t r1,
                                               const int32_t *give, int32_t n_give, int32_t r2,
                                               const int32_t *take, int32_t n_take,
                                               double *w1_after, double *w2_after);
/**
 * Closed-form estimate of W(r1), W(r2) after the same exchange, from the directional
 * volumes of `give` and `take` per rank (what CCM-LB peers gossip). With use_ab the bytes
 * between `give` and `take` are counted and the result equals wpart_tasks_state_eval_exchange
 * up to rounding; without, they are taken as 0 (a remote estimate's only approximation).
 */
wpart_status_t wpart_tasks_state_estimate_exchange(wpart_tasks_state_t *s, int32_t r1,
                                                   const int32_t *give, int32_t n_give,
                                                   int32_t r2, const int32_t *take,
                                                   int32_t n_take, int use_ab, double *w1_after,
                                                   double *w2_after);
wpart_status_t wpart_tasks_state_apply_exchange(wpart_tasks_state_t *s, int32_t r1,
                                                const int32_t *give, int32_t n_give, int32_t r2,
                                                const int32_t *take, int32_t n_take);
wpart_status_t wpart_tasks_state_report(const wpart_tasks_state_t *s,
                                        const wpart_tasks_report_t *out, double *w_max);
const int32_t *wpart_tasks_state_assignment(const wpart_tasks_state_t *s);

/* ---- CCM-LB heuristic, serial simulation of all ranks ---- */
typedef enum {
    WPART_TASKS_CLUSTER_BLOCK = 0, /* one cluster per (rank, block); block-less tasks alone */
    WPART_TASKS_CLUSTER_TASK = 1,  /* every task is its own cluster (load-only TemperedLB) */
    WPART_TASKS_CLUSTER_BLOCK_COMM = 2 /* blocks, also joined by on-rank edges with
                                          beta V >= comm_tau * alpha * mean task load */
} wpart_tasks_cluster_t;

/** Sub-cluster moves of CCM-LB (splitting a block's tasks over ranks; LBAF-style). */
typedef enum {
    WPART_TASKS_SPLIT_NONE = 0,    /* whole clusters only (the paper) */
    WPART_TASKS_SPLIT_SINGLES = 1, /* also single tasks */
    WPART_TASKS_SPLIT_SUBSETS = 2, /* also single tasks and, per cluster of n tasks, its m
                                      heaviest and m lightest tasks (2 <= m < n; at most ~32
                                      sizes per cluster) */
    WPART_TASKS_SPLIT_FILL = 3     /* SUBSETS plus, per pair of ranks and cluster of the more
                                      loaded one, the part whose load best evens the pair's W
                                      (greedy fill by descending load, just under and just
                                      over the target) */
} wpart_tasks_split_t;

typedef struct {
    int32_t n_iter;     /* iterations per trial (default 4) */
    int32_t n_rounds;   /* inform hops; <= 0: log rule */
    int32_t fanout;     /* peers per hop; <= 0: log rule */
    int32_t n_trials;   /* default 1 */
    uint64_t seed;      /* default 0 */
    int32_t cluster;    /* wpart_tasks_cluster_t */
    int32_t order_random; /* 1 (default): ranks take turns in a seeded random order */
    double tol;         /* minimum relative gain (default 1e-12) */
    double comm_tau;    /* threshold of WPART_TASKS_CLUSTER_BLOCK_COMM (default 1) */
    int32_t one_way;    /* 1: only one-way transfers (no swaps), as TemperedLB (default 0) */
    int32_t split_always; /* 1: sub-cluster units compete with whole-cluster exchanges on gain
                             for every pair (default 0: tried only when no whole-cluster
                             exchange pays, as LBAF) */
    int32_t explore;    /* 1: trials after the first take, for each locked pair, a uniformly
                           random improving exchange instead of the best one (diversifies
                           the trials; trial 0 is the paper's run; default 0) */
    int32_t exact_ranking; /* 1: rank peers by their exact current state instead of the
                              snapshot carried by the inform stage (default 0) */
    int32_t allow_infeasible_start; /* 1: start above a memory cap and repair it first
                                       (lexicographic: cap excess, then max W) */
    int32_t singles;    /* wpart_tasks_split_t: sub-cluster one-way transfers tried when no
                           whole-cluster exchange pays (split clusters; not in the paper;
                           default WPART_TASKS_SPLIT_NONE) */
    int32_t exhaustive; /* 1: FindBestCCM evaluates every candidate exchange, as the paper
                           states it (default 0: only those that a lower bound of W does not
                           rule out; the same exchange is found, ties included) */
    const wpart_control_t *control; /* may be NULL */
    const wpart_tasks_coeffs_t *score; /* the model that picks the placement returned (NULL:
                                          c): each trial returns the best placement it saw
                                          under it, its start included (ties: the later) */
    int64_t max_moves;  /* migration budget: an exchange that would leave more than this many
                           tasks off their rank of the start is not made (< 0, the default:
                           no budget) */
} wpart_tasks_lb_params_t;

void wpart_tasks_lb_params_init(wpart_tasks_lb_params_t *prm);

/** The log rule: fills *rounds, *fanout for P ranks given the user's (<= 0 = unset) values. */
void wpart_tasks_knowledge(int32_t P, int32_t rounds_in, int32_t fanout_in, int32_t *rounds,
                           int32_t *fanout);

/* ---- distributed engines: the per-pair step and the serial engine's RNG streams ---- */

typedef struct {
    int32_t found;          /* 1: an exchange pays */
    double dexc, gain;      /* reduction of the pair's summed cap excess, and of max W */
    int32_t *give, *take;   /* caller-owned, n_tasks each: tasks r gives to q / takes from q */
    int32_t n_give, n_take;
} wpart_tasks_pair_step_t;

/**
 * FindBestCCM for ranks r and q of `p` under `assign`, evaluated exactly, with the transfer units, tolerance and one-way rule of `prm` (its iteration, gossip,
 * trial and explore fields are ignored). Tasks on other ranks stand for the rest of the phase:
 * they do not change W of r or q. comm_thresh: absolute edge threshold of
 * WPART_TASKS_CLUSTER_BLOCK_COMM (comm_tau * alpha * mean task load of the whole phase).
 */
wpart_status_t wpart_tasks_pair_best(const wpart_tasks_problem_t *p,
                                     const wpart_tasks_coeffs_t *c,
                                     const wpart_tasks_lb_params_t *prm, double comm_thresh,
                                     const int32_t *assign, int32_t r, int32_t q,
                                     wpart_tasks_pair_step_t *out);
/**
 * wpart_tasks_pair_best, then, when no exchange pays, the mixed exchanges: any unit of r for
 * any unit of q or none, units being single migratable tasks and the migratable tasks of one
 * block on a rank (two or more of them), at least one of the two a block part (a task for a
 * block's part, a block's part for nothing, a task or another part), each evaluated exactly
 * and accepted by the same rule. The final pass of the rank engine's rounds protocol.
 */
wpart_status_t wpart_tasks_pair_best_mixed(const wpart_tasks_problem_t *p,
                                           const wpart_tasks_coeffs_t *c,
                                           const wpart_tasks_lb_params_t *prm,
                                           double comm_thresh, const int32_t *assign, int32_t r,
                                           int32_t q, wpart_tasks_pair_step_t *out);

/** Seeds the stream (seed, a, b) of the core's generator (wpart/rng.h) that the serial engine
 * draws from (rank r of trial t: a = t + 1, b = r; the turn order: b = n_ranks). state is a
 * wpart_rng_t's s[4]. */
void wpart_tasks_rng_seed(uint64_t state[4], uint64_t seed, uint64_t a, uint64_t b);
/** Moves m candidates drawn without replacement to the front of cand[0..n) (inform stage). */
wpart_status_t wpart_tasks_rng_sample(uint64_t state[4], int32_t *cand, int32_t n, int32_t m);
/** Shuffles order[0..n) as the serial engine draws its turn order. */
wpart_status_t wpart_tasks_rng_shuffle(uint64_t state[4], int32_t *order, int32_t n);

typedef struct {
    double w_max_initial, w_max_final;
    int32_t best_trial, n_exchanges, n_tasks_moved;
    int32_t time_limit_reached; /* 1: control->time_limit ended the run (not an error) */
    int32_t n_trials_done;   /* trials run to their end */
    int32_t n_iter_done;     /* completed iterations of the trial the time limit interrupted */
    double *w_max_history;   /* optional (caller-owned), n_trials * (n_iter + 1): initial + per iter */
    int32_t *exch_history;   /* optional, n_trials * n_iter: exchanges per iteration */
} wpart_tasks_lb_report_t;

/**
 * CCM-LB. assign_inout holds the initial assignment and receives the best trial's result; a
 * trial's result is the best placement it saw (its start and the state after each completed
 * iteration, under prm->score when given; ties: the later), never above its start.
 * Returns WPART_EINVAL with "infeasible start" when the initial assignment exceeds a memory cap
 * (unless allow_infeasible_start).
 *
 * prm->control: a stop request (should_stop) returns WPART_ECANCELLED. Reaching
 * control->time_limit is not an error: the run stops at the next rank turn and returns WPART_OK
 * with rep->time_limit_reached = 1; assign_inout then receives the best of the finished trials
 * and of the interrupted trial's best placement up to its last completed iteration (lowest W_max,
 * ties: fewest tasks moved), and rep describes that assignment (best_trial = n_trials_done when
 * it is the interrupted trial's). History entries after the interrupted trial's n_iter_done
 * completed iterations, and those of the trials not run, are left untouched.
 */
wpart_status_t wpart_tasks_ccm(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                               const wpart_tasks_lb_params_t *prm, int32_t *assign_inout,
                               wpart_tasks_lb_report_t *rep);

/**
 * The same W_max with fewer tasks off their rank of `start`: assign_inout's ranks are relabelled
 * (each rank's tasks moved as a whole to the rank that keeps the most of them at home, when
 * their W there stays within the placement's W_max; Hungarian method, up to 1,024 ranks), then
 * tasks off their start are sent back, or swapped back with a task off its start on their home
 * rank, whenever both ranks' W stay within that W_max (W = inf above a memory cap). Pinned tasks
 * are never moved (they must be on their start). whole_blocks: the migratable tasks of a block
 * on a rank move together (no block is split; single steps for block-less tasks only). The
 * result is re-scored from scratch and written only when its W_max is not above the input's;
 * *n_back (may be NULL): how many fewer tasks are off their start. control: Ctrl-C; its time
 * limit ends the steps early, keeping those made (the relabelling is not polled: P <= 1,024).
 */
wpart_status_t wpart_tasks_economize(const wpart_tasks_problem_t *p,
                                     const wpart_tasks_coeffs_t *c, const int32_t *start,
                                     int32_t *assign_inout, int whole_blocks,
                                     const wpart_control_t *control, int64_t *n_back);

/**
 * Greedy LPT over clusters (the migratable tasks of a block form one cluster, block-less tasks
 * are singletons): pinned tasks first stay on their rank of `initial`, then by descending
 * cluster load (ties: the cluster's first task), each cluster to the rank with the smallest
 * resulting W that respects the memory cap (ties: lowest rank); W of the target rank counts
 * the bytes to tasks not placed yet as off-rank. O(K log K + M + units * I). `initial` may be
 * NULL when no task is pinned. Writes assign_out; WPART_EINVAL when a cluster fits on no rank.
 */
wpart_status_t wpart_tasks_greedy(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                                  const int32_t *initial, int32_t *assign_out);

/**
 * Exhaustive search over all I^U assignments of the U units (I^U <= max_states, else
 * WPART_ELIMIT): every migratable task, or with preserve_blocks the migratable tasks of each
 * block together (block-less tasks alone); pinned tasks stay on their rank of `initial` (may
 * be NULL when no task is pinned). Writes the first optimal assignment in lexicographic order
 * and its W_max (+inf when infeasible, assign_out then all -1).
 */
wpart_status_t wpart_tasks_brute_force(const wpart_tasks_problem_t *p,
                                       const wpart_tasks_coeffs_t *c, int preserve_blocks,
                                       int64_t max_states, const wpart_control_t *ctl,
                                       const int32_t *initial, int32_t *assign_out,
                                       double *w_max);

/* ---- exact MILP: model built here, solved through wpart/milp.h (GLPK) ---- */
typedef enum {
    WPART_TASKS_MILP_PAPER = 0,  /* the paper's rows exactly: COMCP when beta = gamma = delta = 0
                                    (unless force_fwmp), else FWMP with psi[i,j,m] */
    WPART_TASKS_MILP_COMPACT = 1 /* equivalent smaller form: sparse (17), one memory row per
                                    rank with y_i, continuous phi/psi, psi only on the diagonal
                                    (off-rank bytes = all bytes of the rank's tasks - on-rank),
                                    self-edges folded into the rank rows */
} wpart_tasks_milp_form_t;

typedef struct {
    int32_t form;            /* wpart_tasks_milp_form_t (default COMPACT) */
    int32_t force_fwmp;      /* paper form: build FWMP even when beta = gamma = delta = 0 */
    int32_t preserve_blocks; /* add sum_i phi[i,n] = 1 for every block with tasks (not in paper) */
    double time_limit;       /* seconds; <= 0: none */
    double mip_gap;          /* relative gap at which GLPK stops (default 0) */
    const wpart_control_t *control;
} wpart_tasks_milp_opts_t;

void wpart_tasks_milp_opts_init(wpart_tasks_milp_opts_t *o);

/** A built model in the form of wpart_milp_problem_t, owning its arrays. */
typedef struct {
    int64_t n_rows, n_cols, nnz, n_eq_rows;
    double *c, *lb, *ub, *row_lb, *row_ub, *a_val;
    int8_t *kind;
    int64_t *a_row, *a_col;
    int64_t col_chi;   /* first chi column: chi[i,k] = col_chi + i*K + k */
    int64_t col_wmax;  /* the W_max column */
    int32_t fwmp;      /* 1 when the model has communication variables psi */
} wpart_tasks_milp_model_t;

wpart_status_t wpart_tasks_milp_build(const wpart_tasks_problem_t *p,
                                      const wpart_tasks_coeffs_t *c,
                                      const wpart_tasks_milp_opts_t *o,
                                      wpart_tasks_milp_model_t *m);
void wpart_tasks_milp_model_free(wpart_tasks_milp_model_t *m);

/** The model as a borrowed wpart_milp_problem_t view (minimise W_max). */
void wpart_tasks_milp_view(const wpart_tasks_milp_model_t *m, wpart_milp_problem_t *view);

/**
 * Build and solve. assign_out (K) receives the incumbent (argmax of chi) when the status is
 * OPTIMAL or FEASIBLE, else -1 everywhere. res receives the solver outcome; its objective is
 * the MILP's W_max (re-evaluate with wpart_tasks_evaluate to check it).
 */
wpart_status_t wpart_tasks_milp_solve(const wpart_tasks_problem_t *p,
                                      const wpart_tasks_coeffs_t *c,
                                      const wpart_tasks_milp_opts_t *o, int32_t *assign_out,
                                      wpart_milp_result_t *res);

#ifdef __cplusplus
}
#endif

#endif /* WPART_TASKS_H */
