/* hetero_oracles.c -- the threshold-DP front (spec 000 section 2.9) and the load-balanced
 * baseline (spec 2.10), on the common grid and bitsets of hetero_grid.c. */
#include <math.h>
#include <string.h>

#include "hetero_grid.h"

/* ------------------------------------------------------------------------------------------ */
/* Threshold-DP front (spec 2.9)                                                              */

wpart_status_t wpart_hetero_threshold_dp(int64_t n, const wpart_hetero_profiles_t *P,
                                         const wpart_hetero_options_t *opt,
                                         wpart_hetero_front_t *out)
{
    wpart_status_t st = WPART_OK;
    wpart_hetero_options_t dflt;
    opt = hg_options(opt, &dflt);
    memset(out, 0, sizeof *out);
    hg_grid_t G = {0};
    hg_dp_t W = {0};
    double *C = NULL, *fe = NULL, *ft = NULL;
    int64_t *fd = NULL, *x = NULL, nc = 0, k = 0;
    double t0 = wpart_i_now();
    WPART_CHECK(hg_grid_init(&G, n, P, opt->max_grid));
    out->p = G.p;
    if (!G.feasible_grid) {
        WPART_CHECK(hg_front_alloc(out, G.p, 0));
        goto cleanup;
    }
    if (G.N == 0) {
        WPART_CHECK(hg_front_alloc(out, G.p, 1));
        goto cleanup;
    }
    WPART_CHECK(hg_candidate_times(&G, NULL, &C, &nc));
    WPART_CHECK(hg_dp_alloc(&W, &G));
    fe = wpart_i_malloc(nc + 1, sizeof(double));
    ft = wpart_i_malloc(nc + 1, sizeof(double));
    fd = wpart_i_malloc((nc + 1) * G.p, sizeof(int64_t));
    x = wpart_i_malloc(G.p, sizeof(int64_t));
    if (!fe || !ft || !fd || !x) {
        WPART_FAIL(WPART_ENOMEM, "threshold DP front");
    }
    double best = INFINITY;
    hg_poll_t pl = hg_poll_init(opt->control, t0);
    for (int64_t c = 0; c < nc; c++) {
        int f;
        double E, T;
        WPART_CHECK(hg_dp_min_energy(&G, &W, -INFINITY, C[c], NULL, NULL, &pl, &f, &E, &T, x));
        if (f && E < best) {
            best = E;
            fe[k] = E;
            ft[k] = T;
            memcpy(fd + k * G.p, x, (size_t)G.p * sizeof(int64_t));
            k++;
        }
        WPART_CHECK(wpart_i_poll(opt->control, t0, (double)c, (double)nc));
    }
    WPART_CHECK(hg_front_alloc(out, G.p, k));
    for (int64_t a = 0; a < k; a++) {
        int64_t b = k - 1 - a;
        out->energy[a] = out->dynamic_energy[a] = fe[b];
        out->time[a] = ft[b];
        for (int64_t i = 0; i < G.p; i++) {
            out->dist[a * G.p + i] = fd[b * G.p + i] * G.g;
        }
    }
cleanup:
    if (st != WPART_OK) {
        wpart_hetero_front_free(out);
    }
    free(C);
    free(fe);
    free(ft);
    free(fd);
    free(x);
    hg_dp_free(&W);
    hg_grid_free(&G);
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Load-balanced baseline (spec 2.10)                                                         */

static int lex_less(const int64_t *a, const int64_t *b, int64_t p)
{
    for (int64_t i = 0; i < p; i++) {
        if (a[i] != b[i]) {
            return a[i] < b[i];
        }
    }
    return 0;
}

wpart_status_t wpart_hetero_load_balanced(int64_t n, const wpart_hetero_profiles_t *P,
                                          wpart_hetero_lb_mode_t mode,
                                          const wpart_hetero_options_t *opt, int *feasible,
                                          double *time, double *energy, int64_t *dist)
{
    wpart_status_t st = WPART_OK;
    wpart_hetero_options_t dflt;
    opt = hg_options(opt, &dflt);
    hg_grid_t G = {0};
    hg_dp_t W = {0};
    hg_bits_t B = {0};
    uint64_t *reach = NULL, *nreach = NULL;
    char *must = NULL, *forbid = NULL;
    int64_t *comb = NULL, *x = NULL, *bx = NULL;
    double *C = NULL;
    double t0 = wpart_i_now();
    *feasible = 0;
    if (mode != WPART_HETERO_LB_MAX_ACTIVE && mode != WPART_HETERO_LB_ALL_ACTIVE) {
        WPART_FAIL(WPART_EINVAL, "unknown load-balanced mode %d", (int)mode);
    }
    WPART_CHECK(hg_grid_init(&G, n, P, opt->max_grid));
    if (!G.feasible_grid) {
        goto cleanup;
    }
    int64_t p = G.p, N = G.N;
    if (N == 0) {
        if (mode == WPART_HETERO_LB_ALL_ACTIVE) {
            goto cleanup;
        }
        *feasible = 1;
        *time = *energy = 0.0;
        for (int64_t i = 0; i < p; i++) {
            dist[i] = 0;
        }
        goto cleanup;
    }
    hg_poll_t pl = hg_poll_init(opt->control, t0);
    WPART_CHECK(hg_bits_alloc(&B, &G));
    int64_t nw = B.nw, kstar = -1;
    if (mode == WPART_HETERO_LB_ALL_ACTIVE) {
        kstar = p;
    } else {
        /* reach[k]: sums reachable with exactly k active processors */
        int64_t cells = 0;
        if (!wpart_i_mul_size(p + 1, nw, &cells)) {
            WPART_FAIL(WPART_EOVERFLOW, "active-count bitsets");
        }
        reach = wpart_i_calloc(cells, sizeof(uint64_t));
        nreach = wpart_i_calloc(cells, sizeof(uint64_t));
        if (!reach || !nreach) {
            WPART_FAIL(WPART_ENOMEM, "active-count bitsets");
        }
        reach[0] = 1;
        for (int64_t i = 0; i < p; i++) {
            memcpy(nreach, reach, (size_t)cells * sizeof(uint64_t));
            WPART_CHECK(hg_tick(&pl, cells));
            const int64_t jend = G.off[i + 1], jw = (i + 1) * nw + 1;
            const int64_t jstep = HG_POLL_WORK / jw + 1;
            for (int64_t jb = G.off[i]; jb < jend; jb += jstep) {
                int64_t je = jend - jb > jstep ? jb + jstep : jend;
                WPART_CHECK(hg_tick(&pl, (je - jb) * jw));
                for (int64_t j = jb; j < je; j++) {
                    int64_t u = G.u[j];
                    if (u > N) {
                        continue;
                    }
                    int64_t ws = u >> 6;
                    int bs = (int)(u & 63);
                    for (int64_t kk = 1; kk <= i + 1; kk++) {
                        const uint64_t *R = reach + (kk - 1) * nw;
                        uint64_t *R2 = nreach + kk * nw;
                        for (int64_t q = nw - 1; q >= ws; q--) {
                            uint64_t v = R[q - ws] << bs;
                            if (bs && q - ws - 1 >= 0) {
                                v |= R[q - ws - 1] >> (64 - bs);
                            }
                            R2[q] |= v;
                        }
                    }
                }
            }
            uint64_t *tmp = reach;
            reach = nreach;
            nreach = tmp;
        }
        for (int64_t kk = p; kk >= 1; kk--) {
            if ((reach[kk * nw + (N >> 6)] >> (N & 63)) & 1u) {
                kstar = kk;
                break;
            }
        }
        if (kstar < 0) {
            goto cleanup;
        }
    }
    must = wpart_i_calloc(p, 1);
    forbid = wpart_i_calloc(p, 1);
    comb = wpart_i_malloc(kstar + 1, sizeof(int64_t));
    x = wpart_i_malloc(p, sizeof(int64_t));
    bx = wpart_i_malloc(p, sizeof(int64_t));
    if (!must || !forbid || !comb || !x || !bx) {
        WPART_FAIL(WPART_ENOMEM, "load-balanced scratch");
    }
    WPART_CHECK(hg_dp_alloc(&W, &G));
    double bspread = INFINITY, bT = INFINITY, bE = INFINITY;
    int have = 0;
    for (int64_t a = 0; a < kstar; a++) {
        comb[a] = a;
    }
    double nsub = 1.0; /* C(p, kstar) */
    for (int64_t a = 0; a < kstar; a++) {
        nsub = nsub * (double)(p - a) / (double)(a + 1);
    }
    if (nsub > 1e6) {
        WPART_FAIL(WPART_ELIMIT,
                   "the load-balanced baseline would examine C(%" PRId64 ", %" PRId64
                   ") = %.3g active sets (limit 10^6)", p, kstar, nsub);
    }
    for (;;) {
        for (int64_t i = 0; i < p; i++) {
            must[i] = 0;
            forbid[i] = 1;
        }
        for (int64_t a = 0; a < kstar; a++) {
            must[comb[a]] = 1;
            forbid[comb[a]] = 0;
        }
        int64_t nc = 0;
        free(C);
        C = NULL;
        WPART_CHECK(hg_candidate_times(&G, must, &C, &nc));
        int64_t uu = 0, bl = -1, bu = -1;
        double sp = INFINITY;
        int ok = 0;
        if (nc > 0) {
            WPART_CHECK(hg_feas(&G, B.R, B.R2, nw, -INFINITY, INFINITY, must, forbid, &pl, &ok));
        }
        if (ok) {
            for (int64_t l = 0; l < nc; l++) {
                if (uu < l) {
                    uu = l;
                }
                while (uu < nc) {
                    WPART_CHECK(hg_feas(&G, B.R, B.R2, nw, C[l], C[uu], must, forbid, &pl, &ok));
                    if (ok) {
                        break;
                    }
                    uu++;
                }
                if (uu == nc) {
                    break;
                }
                if (C[uu] - C[l] < sp) {
                    sp = C[uu] - C[l];
                    bl = l;
                    bu = uu;
                }
                WPART_CHECK(wpart_i_poll(opt->control, t0, 0.0, 1.0));
            }
        }
        if (bl >= 0) {
            int f;
            double E, T;
            WPART_CHECK(hg_dp_min_energy(&G, &W, C[bl], C[bu], must, forbid, &pl, &f, &E, &T,
                                         x));
            if (!f) {
                WPART_FAIL(WPART_EINTERNAL, "load-balanced: window DP infeasible");
            }
            if (!have || sp < bspread ||
                (sp == bspread && (T < bT || (T == bT && (E < bE ||
                                                          (E == bE && lex_less(x, bx, p))))))) {
                have = 1;
                bspread = sp;
                bT = T;
                bE = E;
                memcpy(bx, x, (size_t)p * sizeof(int64_t));
            }
        }
        /* next combination */
        int64_t a = kstar - 1;
        while (a >= 0 && comb[a] == p - kstar + a) {
            a--;
        }
        if (a < 0) {
            break;
        }
        comb[a]++;
        for (int64_t b = a + 1; b < kstar; b++) {
            comb[b] = comb[b - 1] + 1;
        }
    }
    if (have) {
        *feasible = 1;
        *time = bT;
        *energy = bE;
        for (int64_t i = 0; i < p; i++) {
            dist[i] = bx[i] * G.g;
        }
    }
cleanup:
    free(C);
    free(reach);
    free(nreach);
    free(must);
    free(forbid);
    free(comb);
    free(x);
    free(bx);
    hg_bits_free(&B);
    hg_dp_free(&W);
    hg_grid_free(&G);
    return st;
}
