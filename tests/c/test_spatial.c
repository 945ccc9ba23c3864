/* test_spatial.c -- C tests of the spatial family: golden values, validity of every method,
 * int64/double agreement and every status path, without Python. Exit status 0 on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wpart/wpart.h"
#include "wtest.h"

/* 1 if the m rects tile n1 x n2 exactly; *lmax receives the largest load */
static int tiles(const int64_t *A, int64_t n1, int64_t n2, const int64_t *R, int64_t m,
                 int64_t *lmax)
{
    int *cnt = calloc((size_t)(n1 * n2), sizeof(int));
    int ok = 1;
    *lmax = 0;
    for (int64_t k = 0; k < m; k++) {
        const int64_t *r = R + 4 * k;
        if (r[0] < 0 || r[0] > r[1] || r[1] > n1 || r[2] < 0 || r[2] > r[3] || r[3] > n2) {
            ok = 0;
            continue;
        }
        int64_t L = 0;
        for (int64_t i = r[0]; i < r[1]; i++) {
            for (int64_t j = r[2]; j < r[3]; j++) {
                cnt[i * n2 + j]++;
                L += A[i * n2 + j];
            }
        }
        if (L > *lmax) {
            *lmax = L;
        }
    }
    for (int64_t c = 0; c < n1 * n2; c++) {
        ok &= cnt[c] == 1;
    }
    free(cnt);
    return ok;
}

static int64_t run(const int64_t *A, int64_t n1, int64_t n2, int64_t m,
                   wpart_spatial_options_t *o)
{
    int64_t *S = malloc(sizeof(int64_t) * (size_t)((n1 + 1) * (n2 + 1)));
    int64_t *R = malloc(sizeof(int64_t) * (size_t)(4 * m));
    double *Sf = malloc(sizeof(double) * (size_t)((n1 + 1) * (n2 + 1)));
    double *Af = malloc(sizeof(double) * (size_t)(n1 * n2));
    int64_t *Rf = malloc(sizeof(int64_t) * (size_t)(4 * m));
    for (int64_t i = 0; i < n1 * n2; i++) {
        Af[i] = (double)A[i];
    }
    CHECK_STATUS(wpart_base_prefix2d_i64(A, n1, n2, S), WPART_OK);
    CHECK_STATUS(wpart_base_prefix2d_f64(Af, n1, n2, Sf), WPART_OK);
    int64_t lmax = -1, lf = -1;
    CHECK_STATUS(wpart_spatial_partition_i64(S, n1, n2, m, o, R, NULL), WPART_OK);
    CHECK(tiles(A, n1, n2, R, m, &lmax));
    CHECK_STATUS(wpart_spatial_partition_f64(Sf, n1, n2, m, o, Rf, NULL), WPART_OK);
    CHECK(tiles(A, n1, n2, Rf, m, &lf));
    CHECK(lf == lmax);
    free(S);
    free(R);
    free(Sf);
    free(Af);
    free(Rf);
    return lmax;
}

static void test_golden(void)
{
    const int64_t A1[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    const int64_t A2[16] = {0, 0, 9, 0, 1, 0, 0, 0, 0, 7, 0, 3, 0, 0, 2, 8};
    const int64_t A3[24] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4};
    struct {
        const int64_t *A;
        int64_t n1, n2, m, P, Q, uni, pqh, pqv, mh, mv, hier;
    } g[3] = {{A1, 4, 4, 4, 2, 2, 54, 45, 45, 40, 40, 40},
              {A2, 4, 4, 4, 2, 2, 13, 11, 10, 10, 10, 10},
              {A3, 4, 6, 6, 2, 3, 28, 26, 25, 23, 22, 22}};
    for (int k = 0; k < 3; k++) {
        wpart_spatial_options_t o;
        wpart_spatial_options_init(&o);
        o.P = g[k].P;
        o.Q = g[k].Q;
        o.method = WPART_SP_RECT_UNIFORM;
        CHECK(run(g[k].A, g[k].n1, g[k].n2, g[k].m, &o) == g[k].uni);
        o.method = WPART_SP_JAG_PQ_OPT_NICOL;
        CHECK(run(g[k].A, g[k].n1, g[k].n2, g[k].m, &o) == g[k].pqh);
        o.method = WPART_SP_JAG_PQ_OPT_DP;
        o.orient = WPART_SP_VER;
        CHECK(run(g[k].A, g[k].n1, g[k].n2, g[k].m, &o) == g[k].pqv);
        o.method = WPART_SP_JAG_M_OPT;
        CHECK(run(g[k].A, g[k].n1, g[k].n2, g[k].m, &o) == g[k].mv);
        o.orient = WPART_SP_HOR;
        CHECK(run(g[k].A, g[k].n1, g[k].n2, g[k].m, &o) == g[k].mh);
        o.method = WPART_SP_HIER_OPT;
        CHECK(run(g[k].A, g[k].n1, g[k].n2, g[k].m, &o) == g[k].hier);
    }
}

static void test_all_methods_random(void)
{
    for (int trial = 0; trial < 40; trial++) {
        int64_t n1 = 1 + (int64_t)(rnd() % 7), n2 = 1 + (int64_t)(rnd() % 7);
        int64_t A[49];
        for (int64_t i = 0; i < n1 * n2; i++) {
            A[i] = (rnd() % 3 == 0) ? 0 : (int64_t)(rnd() % 50);
        }
        int64_t m = 1 + (int64_t)(rnd() % (uint64_t)(n1 * n2));
        for (int meth = 0; meth <= WPART_SP_HYBRID; meth++) {
            wpart_spatial_options_t o;
            wpart_spatial_options_init(&o);
            o.method = (wpart_spatial_method_t)meth;
            o.orient = (wpart_spatial_orient_t)(trial % 3);
            o.rule = (wpart_spatial_rule_t)(trial % 4);
            int64_t cuts[2] = {0, 0}, counts[1] = {m};
            if (meth <= WPART_SP_JAG_PQ_OPT_DP) {
                o.P = 1;
                o.Q = m;
            }
            if (meth == WPART_SP_JAG_M_PROBE || meth == WPART_SP_JAG_M_ALLOC) {
                o.orient = WPART_SP_HOR;
                cuts[1] = n1;
                o.cuts = meth == WPART_SP_JAG_M_PROBE ? cuts : counts;
                o.ncuts = meth == WPART_SP_JAG_M_PROBE ? 2 : 1;
            }
            run(A, n1, n2, m, &o);
        }
    }
}

static void test_hybrid(void)
{
    int64_t n1 = 12, n2 = 10, A[120];
    for (int i = 0; i < 120; i++) {
        A[i] = (int64_t)(rnd() % 40);
    }
    wpart_spatial_options_t o;
    wpart_spatial_options_init(&o);
    o.method = WPART_SP_HYBRID;
    int64_t a = run(A, n1, n2, 20, &o);
    o.hybrid_slow = -1;
    int64_t b = run(A, n1, n2, 20, &o);
    CHECK(a <= b);
    o.m1 = 1;
    o.hybrid_fast = WPART_SP_JAG_M_OPT;
    o.orient = WPART_SP_BEST;
    int64_t c = run(A, n1, n2, 20, &o);
    wpart_spatial_options_t p;
    wpart_spatial_options_init(&p);
    p.method = WPART_SP_JAG_M_OPT;
    p.orient = WPART_SP_BEST;
    CHECK(c == run(A, n1, n2, 20, &p));
    o.hybrid_phase1 = WPART_SP_HIER_RELAXED;
    o.m1 = 0;
    run(A, n1, n2, 20, &o);
    o.hybrid_fast = WPART_SP_RECT_NICOL;
    int64_t S[143], R[80];
    CHECK_STATUS(wpart_base_prefix2d_i64(A, n1, n2, S), WPART_OK);
    CHECK_STATUS(wpart_spatial_partition_i64(S, n1, n2, 20, &o, R, NULL), WPART_EINVAL);
}

static void test_status_paths(void)
{
    int64_t A[6] = {1, 2, 3, 4, 5, 6}, S[12], R[4 * 8];
    CHECK_STATUS(wpart_base_prefix2d_i64(A, 2, 3, S), WPART_OK);
    wpart_spatial_options_t o;
    wpart_spatial_options_init(&o);
    CHECK_STATUS(wpart_spatial_partition_i64(NULL, 2, 3, 2, &o, R, NULL), WPART_EINVAL);
    CHECK_STATUS(wpart_spatial_partition_i64(S, 0, 3, 2, &o, R, NULL), WPART_EINVAL);
    CHECK_STATUS(wpart_spatial_partition_i64(S, 2, 3, 0, &o, R, NULL), WPART_EINVAL);
    o.P = 2;
    o.Q = 2;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 2, 3, 3, &o, R, NULL), WPART_EINVAL);
    o.method = (wpart_spatial_method_t)99;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 2, 3, 3, &o, R, NULL), WPART_EINVAL);
    wpart_spatial_options_init(&o);
    o.method = WPART_SP_HIER_RB;
    o.window[0] = 1;
    o.window[1] = 1;
    o.window[2] = 0;
    o.window[3] = 3;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 2, 3, 2, &o, R, NULL), WPART_EINVAL);
    o.window[1] = 2; /* the second row only */
    int64_t lm;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 2, 3, 2, &o, R, NULL), WPART_OK);
    CHECK(R[0] == 1 && R[1] == 2 && R[4] == 1 && R[5] == 2);
    (void)lm;
    wpart_spatial_options_init(&o);
    o.method = WPART_SP_JAG_M_PROBE;
    int64_t cuts[3] = {0, 2, 1};
    o.cuts = cuts;
    o.ncuts = 3;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 2, 3, 2, &o, R, NULL), WPART_EINVAL);
    o.orient = WPART_SP_BEST;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 2, 3, 2, &o, R, NULL), WPART_EINVAL);
    o.method = WPART_SP_JAG_M_ALLOC;
    o.orient = WPART_SP_HOR;
    int64_t counts[2] = {1, 2};
    o.cuts = counts;
    o.ncuts = 2;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 2, 3, 2, &o, R, NULL), WPART_EINVAL);
    CHECK_STATUS(wpart_spatial_partition_i64(S, 2, 3, 3, &o, R, NULL), WPART_OK);
    wpart_spatial_options_init(&o);
    o.method = WPART_SP_HIER_OPT;
    o.max_states = 5;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 2, 3, 3, &o, R, NULL), WPART_ELIMIT);
    int64_t L[3] = {10, 30, 60}, Q[3];
    CHECK_STATUS(wpart_spatial_alloc_i64(L, 3, 10, NULL, Q), WPART_OK);
    CHECK(Q[0] == 1 && Q[1] == 3 && Q[2] == 6);
    CHECK_STATUS(wpart_spatial_alloc_i64(L, 3, 2, NULL, Q), WPART_EINVAL);
    L[1] = -1;
    CHECK_STATUS(wpart_spatial_alloc_i64(L, 3, 10, NULL, Q), WPART_EINVAL);
}

/* max_k load_k / sp[k] of a tiling (the rects are checked by tiles()) */
static double bott(const int64_t *A, int64_t n2, const int64_t *R, int64_t m, const double *sp)
{
    double b = 0;
    for (int64_t k = 0; k < m; k++) {
        const int64_t *r = R + 4 * k;
        int64_t L = 0;
        for (int64_t i = r[0]; i < r[1]; i++) {
            for (int64_t j = r[2]; j < r[3]; j++) {
                L += A[i * n2 + j];
            }
        }
        double x = (double)L / sp[k];
        b = x > b ? x : b;
    }
    return b;
}

static void test_speeds(void)
{
    int64_t A[9] = {3, 1, 4, 1, 5, 9, 2, 6, 5}, S[16], R[16], lm;
    double Af[9], Sf[16];
    for (int k = 0; k < 9; k++) {
        Af[k] = (double)A[k];
    }
    CHECK_STATUS(wpart_base_prefix2d_i64(A, 3, 3, S), WPART_OK);
    CHECK_STATUS(wpart_base_prefix2d_f64(Af, 3, 3, Sf), WPART_OK);
    double sp[4] = {1.0, 2.0, 0.5, 3.0}, eq[4] = {2.0, 2.0, 2.0, 2.0};
    wpart_spatial_options_t o;
    wpart_spatial_options_init(&o);
    o.method = WPART_SP_JAG_M_OPT;
    o.orient = WPART_SP_HOR;
    o.speeds = sp;
    /* golden value of the brute-force oracle (tests/oracles/spatial.py m_jagged_speeds) */
    CHECK_STATUS(wpart_spatial_partition_i64(S, 3, 3, 4, &o, R, NULL), WPART_OK);
    CHECK(tiles(A, 3, 3, R, 4, &lm) && bott(A, 3, R, 4, sp) == 6.0);
    CHECK_STATUS(wpart_spatial_partition_f64(Sf, 3, 3, 4, &o, R, NULL), WPART_OK);
    CHECK(tiles(A, 3, 3, R, 4, &lm) && bott(A, 3, R, 4, sp) == 6.0);
    o.method = WPART_SP_JAG_M_ALLOC;
    int64_t counts[2] = {1, 3};
    o.cuts = counts;
    o.ncuts = 2;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 3, 3, 4, &o, R, NULL), WPART_OK);
    CHECK(tiles(A, 3, 3, R, 4, &lm) && bott(A, 3, R, 4, sp) == 8.0);
    CHECK_STATUS(wpart_spatial_partition_f64(Sf, 3, 3, 4, &o, R, NULL), WPART_OK);
    CHECK(tiles(A, 3, 3, R, 4, &lm) && bott(A, 3, R, 4, sp) == 8.0);
    /* P x Q jagged: stripe p on processors 2p, 2p + 1 */
    wpart_spatial_options_init(&o);
    o.orient = WPART_SP_HOR;
    o.speeds = sp;
    o.P = 2;
    o.Q = 2;
    for (int e = 0; e < 2; e++) {
        o.method = e ? WPART_SP_JAG_PQ_OPT_DP : WPART_SP_JAG_PQ_OPT_NICOL;
        CHECK_STATUS(wpart_spatial_partition_i64(S, 3, 3, 4, &o, R, NULL), WPART_OK);
        CHECK(tiles(A, 3, 3, R, 4, &lm) && bott(A, 3, R, 4, sp) == 25.0 / 3.0);
        CHECK_STATUS(wpart_spatial_partition_f64(Sf, 3, 3, 4, &o, R, NULL), WPART_OK);
        CHECK(tiles(A, 3, 3, R, 4, &lm) && bott(A, 3, R, 4, sp) == 25.0 / 3.0);
    }
    o.method = WPART_SP_JAG_PQ_HEUR;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 3, 3, 4, &o, R, NULL), WPART_OK);
    CHECK(tiles(A, 3, 3, R, 4, &lm) && bott(A, 3, R, 4, sp) >= 25.0 / 3.0);
    /* HIER-OPT: golden value of tests/oracles/spatial.py hierarchical_speeds; state cap */
    o.method = WPART_SP_HIER_OPT;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 3, 3, 4, &o, R, NULL), WPART_OK);
    CHECK(tiles(A, 3, 3, R, 4, &lm) && bott(A, 3, R, 4, sp) == 6.0);
    CHECK_STATUS(wpart_spatial_partition_f64(Sf, 3, 3, 4, &o, R, NULL), WPART_OK);
    CHECK(tiles(A, 3, 3, R, 4, &lm) && bott(A, 3, R, 4, sp) == 6.0);
    o.max_states = 100;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 3, 3, 4, &o, R, NULL), WPART_ELIMIT);
    /* equal speeds: the homogeneous optimum divided by the speed */
    wpart_spatial_options_init(&o);
    o.method = WPART_SP_JAG_M_OPT;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 3, 3, 4, &o, R, NULL), WPART_OK);
    CHECK(tiles(A, 3, 3, R, 4, &lm));
    o.speeds = eq;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 3, 3, 4, &o, R, NULL), WPART_OK);
    int64_t lm2;
    CHECK(tiles(A, 3, 3, R, 4, &lm2) && bott(A, 3, R, 4, eq) == (double)lm / 2.0);
    /* status paths */
    sp[2] = 0.0;
    o.speeds = sp;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 3, 3, 4, &o, R, NULL), WPART_EINVAL);
    o.speeds = eq;
    o.method = WPART_SP_RECT_UNIFORM;
    o.P = 2;
    o.Q = 2;
    CHECK_STATUS(wpart_spatial_partition_i64(S, 3, 3, 4, &o, R, NULL), WPART_EINVAL);
}

int main(void)
{
    test_golden();
    test_all_methods_random();
    test_hybrid();
    test_status_paths();
    test_speeds();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_spatial: ok\n");
    return 0;
}
