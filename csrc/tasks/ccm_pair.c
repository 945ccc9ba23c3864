/*
 * ccm_pair.c -- the per-pair step of the distributed CCM-LB engines (spec 003 section 3.6).
 *
 * A rank of a distributed run never holds the whole phase: it holds its own tasks and, while it
 * evaluates a peer, that peer's tasks (exact, after the lock) or its gossiped cluster summary
 * (ranking). Both engines built on this file (the in-process rank engine and the MPI engine of
 * wpart.tasks) describe such a pair as a small problem in which every other task sits on a
 * third rank: W of a rank depends only on its own task set, so the pair's works are exact.
 * FindBestCCM then runs with the same code as the serial engine (ccm_eval.c); the mixed
 * variant (the rank engine's final pass) then tries, when nothing pays, single tasks and
 * block parts for each other (wpart_i_ccm_find_best_mixed). The RNG helpers
 * expose the serial engine's per-rank streams of the core's generator (wpart/rng.h) so that a
 * distributed run draws the same gossip targets and turn order as the serial simulation.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "internal.h"
#include "ccm_internal.h"

void wpart_tasks_rng_seed(uint64_t state[4], uint64_t seed, uint64_t a, uint64_t b)
{
    const uint64_t ids[2] = {a * WPART_RNG_MUL_1, b * WPART_RNG_MUL_2};
    wpart_rng_t g;
    wpart_rng_stream(&g, seed, ids, 2);
    memcpy(state, g.s, sizeof(g.s));
}

wpart_status_t wpart_tasks_rng_sample(uint64_t state[4], int32_t *cand, int32_t n, int32_t m)
{
    if (state == NULL || (cand == NULL && n > 0)) {
        return wpart_i_error(WPART_EINVAL, "state or candidates are NULL");
    }
    if (n < 0 || m < 0) return wpart_i_error(WPART_EINVAL, "n and m must be >= 0");
    wpart_rng_t g;
    memcpy(g.s, state, sizeof(g.s));
    if (m > n) m = n;
    for (int32_t i = 0; i < m; i++) { /* partial Fisher-Yates, as the inform stage */
        int32_t j = i + (int32_t)wpart_rng_below(&g, (uint64_t)(n - i));
        int32_t t = cand[i];
        cand[i] = cand[j];
        cand[j] = t;
    }
    memcpy(state, g.s, sizeof(g.s));
    return WPART_OK;
}

wpart_status_t wpart_tasks_rng_shuffle(uint64_t state[4], int32_t *order, int32_t n)
{
    if (state == NULL || (order == NULL && n > 0)) {
        return wpart_i_error(WPART_EINVAL, "state or order is NULL");
    }
    wpart_rng_t g;
    memcpy(g.s, state, sizeof(g.s));
    for (int32_t i = n - 1; i > 0; i--) { /* the serial engine's turn order */
        int32_t j = (int32_t)wpart_rng_below(&g, (uint64_t)i + 1);
        int32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    memcpy(state, g.s, sizeof(g.s));
    return WPART_OK;
}

static wpart_status_t pair_best(const wpart_tasks_problem_t *p, const wpart_tasks_coeffs_t *c,
                                const wpart_tasks_lb_params_t *prm, double comm_thresh,
                                const int32_t *assign, int32_t r, int32_t q, int mixed,
                                wpart_tasks_pair_step_t *out)
{
    wpart_status_t st = WPART_OK;
    wpart_tasks_state_t *s = NULL;
    clusters_t CL[2], CT[2];
    fill_t fill = {{0}, NULL, NULL, NULL}, *fx = NULL;
    comm_ctx_t ccx = {NULL, NULL, 0.0};
    const comm_ctx_t *ccp = NULL;
    int32_t *tmp = NULL;
    memset(CL, 0, sizeof(CL));
    memset(CT, 0, sizeof(CT));
    if (prm == NULL || out == NULL) return wpart_i_error(WPART_EINVAL, "params or out is NULL");
    if (out->give == NULL || out->take == NULL) {
        return wpart_i_error(WPART_EINVAL, "give or take buffer is NULL");
    }
    WPART_CHECK(wpart_tasks_validate(p));
    WPART_CHECK(wpart_tasks_validate_coeffs(c));
    if (r < 0 || q < 0 || r >= p->n_ranks || q >= p->n_ranks || r == q) {
        WPART_FAIL(WPART_EINVAL, "ranks r = %" PRId32 " and q = %" PRId32 " must be distinct "
                   "and in [0, %" PRId32 ")", r, q, p->n_ranks);
    }
    if (!(prm->tol >= 0) || isinf(prm->tol)) WPART_FAIL(WPART_EINVAL, "tol must be finite >= 0");
    if (prm->singles < WPART_TASKS_SPLIT_NONE || prm->singles > WPART_TASKS_SPLIT_FILL) {
        WPART_FAIL(WPART_EINVAL, "unknown sub-cluster mode %" PRId32, prm->singles);
    }
    if (prm->cluster != WPART_TASKS_CLUSTER_BLOCK && prm->cluster != WPART_TASKS_CLUSTER_TASK &&
        prm->cluster != WPART_TASKS_CLUSTER_BLOCK_COMM) {
        WPART_FAIL(WPART_EINVAL, "unknown cluster mode %" PRId32, prm->cluster);
    }
    if (!(comm_thresh >= 0) || isinf(comm_thresh)) {
        WPART_FAIL(WPART_EINVAL, "comm_thresh must be finite >= 0");
    }
    const int32_t K = p->n_tasks, KK = K > 0 ? K : 1;
    out->found = 0;
    out->dexc = out->gain = 0.0;
    out->n_give = out->n_take = 0;
    WPART_CHECK(wpart_tasks_state_create(p, c, assign, &s));
    s->exhaustive = prm->exhaustive != 0;
    tmp = wpart_i_malloc(KK, sizeof(int32_t));
    if (!tmp) WPART_FAIL(WPART_ENOMEM, "pair step: out of memory");
    if (prm->cluster == WPART_TASKS_CLUSTER_BLOCK_COMM) {
        ccx.parent = wpart_i_malloc(KK, sizeof(int32_t));
        ccx.key = wpart_i_malloc(KK, sizeof(int32_t));
        if (!ccx.parent || !ccx.key) WPART_FAIL(WPART_ENOMEM, "pair step: out of memory");
        ccx.thresh = comm_thresh;
        ccp = &ccx;
    }
    if (prm->singles == WPART_TASKS_SPLIT_FILL) {
        fill.target = wpart_i_malloc((int64_t)KK + 1, sizeof(double));
        fill.tmp = wpart_i_malloc(2 * (int64_t)KK, sizeof(int32_t));
        fill.in = wpart_i_malloc(KK, 1);
        if (!fill.target || !fill.tmp || !fill.in) {
            WPART_FAIL(WPART_ENOMEM, "pair step: out of memory");
        }
        fx = &fill;
    }
    const int32_t who[2] = {r, q};
    for (int side = 0; side < 2; side++) {
        WPART_CHECK(wpart_tasks_i_build_clusters(s, who[side], prm->cluster, &CL[side], tmp, ccp));
        if (prm->singles) {
            WPART_CHECK(wpart_tasks_i_build_units(s, who[side], prm->singles, &CL[side],
                                                  &CT[side], tmp));
        }
    }
    best_t b;
    WPART_CHECK(wpart_i_ccm_find_best(s, r, q, &CL[0], &CL[1], prm->singles ? &CT[0] : NULL,
                                      prm->singles ? &CT[1] : NULL, prm->tol, prm->one_way,
                                      prm->split_always, fx, NULL, NULL, &b));
    if (!b.found && mixed) { /* the mixed units (single 3) in CT, CL[0] their scratch */
        WPART_CHECK(wpart_i_ccm_find_best_mixed(s, r, q, prm->tol, prm->one_way, CT, &CL[0], tmp,
                                                &b));
    }
    if (b.found) {
        const clusters_t *Cr = b.single == 2 ? &fill.U : b.single ? &CT[0] : &CL[0];
        const clusters_t *Cq = b.single == 2 ? &fill.U : b.single ? &CT[1] : &CL[1];
        if (b.cr >= 0) {
            out->n_give = Cr->start[b.cr + 1] - Cr->start[b.cr];
            memcpy(out->give, Cr->tasks + Cr->start[b.cr], sizeof(int32_t) * (size_t)out->n_give);
        }
        if (b.cp >= 0) {
            out->n_take = Cq->start[b.cp + 1] - Cq->start[b.cp];
            memcpy(out->take, Cq->tasks + Cq->start[b.cp], sizeof(int32_t) * (size_t)out->n_take);
        }
        out->found = 1;
        out->dexc = b.dexc;
        out->gain = b.gain;
    }
cleanup:
    wpart_tasks_state_free(s);
    for (int side = 0; side < 2; side++) {
        wpart_tasks_i_clusters_free(&CL[side]);
        wpart_tasks_i_clusters_free(&CT[side]);
    }
    wpart_tasks_i_clusters_free(&fill.U);
    free(fill.target);
    free(fill.tmp);
    free(fill.in);
    free(ccx.parent);
    free(ccx.key);
    free(tmp);
    return st;
}

wpart_status_t wpart_tasks_pair_best(const wpart_tasks_problem_t *p,
                                     const wpart_tasks_coeffs_t *c,
                                     const wpart_tasks_lb_params_t *prm, double comm_thresh,
                                     const int32_t *assign, int32_t r, int32_t q,
                                     wpart_tasks_pair_step_t *out)
{
    return pair_best(p, c, prm, comm_thresh, assign, r, q, 0, out);
}

wpart_status_t wpart_tasks_pair_best_mixed(const wpart_tasks_problem_t *p,
                                           const wpart_tasks_coeffs_t *c,
                                           const wpart_tasks_lb_params_t *prm,
                                           double comm_thresh, const int32_t *assign, int32_t r,
                                           int32_t q, wpart_tasks_pair_step_t *out)
{
    return pair_best(p, c, prm, comm_thresh, assign, r, q, 1, out);
}
