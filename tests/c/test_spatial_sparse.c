/* test_spatial_sparse.c -- C tests of the spatial methods on a sparse matrix (CSR + CSC, no
 * dense prefix): RECT-UNIFORM, RECT-NICOL (both starts, both orientations), JAG-PQ-HEUR,
 * JAG-PQ-OPT (Nicol and DP), JAG-M-HEUR, JAG-M-HEUR-PROBE, JAG-M-PROBE, JAG-M-ALLOC and
 * JAG-M-OPT give the dense functions' partition on random integer matrices (empty rows and columns, all-zero, 1 x n, n x 1, m = 1), the loads returned
 * are the rectangles' sums, the CSR transpose matches a direct one, and bad input (malformed
 * arrays, unsorted or out-of-range indices, negative or NaN entries, a method that needs the
 * dense prefix, P x Q != m, bad stripe cuts) is refused with WPART_EINVAL; the starts of
 * RECT-NICOL / JAG-PQ-HEUR in one call give each start's single-call partition. Exit status 0
 * on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wpart/wpart.h"
#include "wtest.h"
#include "../../csrc/spatial/spatial_internal.h"
#include "../../csrc/spatial/rect_grid_i.h"

typedef struct {
    int64_t n1, n2, nnz;
    int64_t *A;              /* dense n1 x n2 */
    int64_t *rp, *ci, *rv;   /* CSR */
    int64_t *cp, *ri, *cv;   /* CSC */
    int64_t *S;              /* bordered prefix */
} mat_t;

static void mat_free(mat_t *M)
{
    free(M->A);
    free(M->rp);
    free(M->ci);
    free(M->rv);
    free(M->cp);
    free(M->ri);
    free(M->cv);
    free(M->S);
}

/* a random n1 x n2 matrix with about `pct` % nonzeros in 1..9 (ties when `ties`), one empty
 * row and column when `holes`; its CSR, CSC (by a direct column scan) and prefix */
static void mat_random(mat_t *M, int64_t n1, int64_t n2, int pct, int ties, int holes)
{
    M->n1 = n1;
    M->n2 = n2;
    M->A = calloc((size_t)(n1 * n2), sizeof(int64_t));
    for (int64_t i = 0; i < n1; i++) {
        for (int64_t j = 0; j < n2; j++) {
            if ((int)(rnd() % 100) < pct && !(holes && (i == n1 / 2 || j == 0))) {
                M->A[i * n2 + j] = ties ? 1 : 1 + (int64_t)(rnd() % 9);
            }
        }
    }
    int64_t nnz = 0;
    for (int64_t k = 0; k < n1 * n2; k++) {
        nnz += M->A[k] != 0;
    }
    M->nnz = nnz;
    M->rp = malloc((size_t)(n1 + 1) * sizeof(int64_t));
    M->cp = malloc((size_t)(n2 + 1) * sizeof(int64_t));
    M->ci = calloc((size_t)(nnz + 1), sizeof(int64_t));
    M->rv = calloc((size_t)(nnz + 1), sizeof(int64_t));
    M->ri = calloc((size_t)(nnz + 1), sizeof(int64_t));
    M->cv = calloc((size_t)(nnz + 1), sizeof(int64_t));
    int64_t e = 0;
    M->rp[0] = 0;
    for (int64_t i = 0; i < n1; i++) {
        for (int64_t j = 0; j < n2; j++) {
            if (M->A[i * n2 + j]) {
                M->ci[e] = j;
                M->rv[e++] = M->A[i * n2 + j];
            }
        }
        M->rp[i + 1] = e;
    }
    e = 0;
    M->cp[0] = 0;
    for (int64_t j = 0; j < n2; j++) {
        for (int64_t i = 0; i < n1; i++) {
            if (M->A[i * n2 + j]) {
                M->ri[e] = i;
                M->cv[e++] = M->A[i * n2 + j];
            }
        }
        M->cp[j + 1] = e;
    }
    M->S = malloc((size_t)((n1 + 1) * (n2 + 1)) * sizeof(int64_t));
    wpart_base_prefix2d_i64(M->A, n1, n2, M->S);
}

static int64_t box(const mat_t *M, const int64_t *r)
{
    int64_t s = 0;
    for (int64_t i = r[0]; i < r[1]; i++) {
        for (int64_t j = r[2]; j < r[3]; j++) {
            s += M->A[i * M->n2 + j];
        }
    }
    return s;
}

static int compared = 0;

/* the sparse call against the dense one: same status, same rectangles, loads = the sums */
static void same_as_dense(const mat_t *M, int64_t m, const wpart_spatial_options_t *opt)
{
    int64_t *rs = calloc((size_t)(4 * m), sizeof(int64_t));
    int64_t *rd = calloc((size_t)(4 * m), sizeof(int64_t));
    int64_t *ld = calloc((size_t)m, sizeof(int64_t));
    wpart_spatial_stats_t ss, sd;
    wpart_status_t a = wpart_i_spatial_sparse_i64(M->n1, M->n2, M->rp, M->ci, M->rv, M->cp,
                                                  M->ri, M->cv, m, opt, rs, ld, &ss);
    wpart_status_t b = wpart_spatial_partition_i64(M->S, M->n1, M->n2, m, opt, rd, &sd);
    CHECK(a == WPART_OK);
    CHECK(a == b);
    compared++;
    if (a == WPART_OK && b == WPART_OK) {
        int same = memcmp(rs, rd, (size_t)(4 * m) * sizeof(int64_t)) == 0;
        if (!same) {
            fprintf(stderr, "  method %d orient %d start %d P %lld: %lld x %lld, m = %lld\n",
                    (int)opt->method, (int)opt->orient, opt->start, (long long)opt->P,
                    (long long)M->n1, (long long)M->n2, (long long)m);
        }
        CHECK(same);
        CHECK(ss.orient == sd.orient);
        for (int64_t k = 0; k < m; k++) {
            CHECK(ld[k] == box(M, rs + 4 * k));
        }
    }
    free(rs);
    free(rd);
    free(ld);
}

static void check_methods(const mat_t *M, int64_t m)
{
    wpart_spatial_options_t opt;
    int64_t P = 1;
    for (int64_t d = 1; d * d <= m; d++) {
        if (m % d == 0) {
            P = d;
        }
    }
    static const wpart_spatial_method_t grid[] = {WPART_SP_RECT_UNIFORM, WPART_SP_RECT_NICOL,
                                                  WPART_SP_JAG_PQ_HEUR, WPART_SP_JAG_PQ_OPT_NICOL,
                                                  WPART_SP_JAG_PQ_OPT_DP};
    for (int g = 0; g < 5; g++) {
        for (int o = 0; o < 3; o++) {
            for (int start = 0; start < 2; start++) {
                if (grid[g] == WPART_SP_RECT_NICOL && o == WPART_SP_BEST) {
                    continue; /* RECT-NICOL: HOR or VER (the transposed problem) */
                }
                wpart_spatial_options_init(&opt);
                opt.method = grid[g];
                opt.orient = (wpart_spatial_orient_t)o;
                opt.start = start;
                opt.P = P;
                opt.Q = m / P;
                opt.max_sweeps = 5;
                same_as_dense(M, m, &opt);
            }
        }
    }
    static const wpart_spatial_method_t jm[] = {WPART_SP_JAG_M_HEUR, WPART_SP_JAG_M_HEUR_PROBE,
                                                WPART_SP_JAG_M_OPT};
    for (int g = 0; g < 3; g++) {
        for (int o = 0; o < 3; o++) {
            for (int64_t Pm = 0; Pm <= 2; Pm++) {
                wpart_spatial_options_init(&opt);
                opt.method = jm[g];
                opt.orient = (wpart_spatial_orient_t)o;
                opt.P = Pm; /* 0: floor(sqrt(m)) */
                same_as_dense(M, m, &opt);
            }
        }
    }
    for (int o = 0; o < 2; o++) { /* JAG-M-PROBE: random cuts, empty stripes allowed */
        int64_t nmain = o == 0 ? M->n1 : M->n2;
        int64_t ns = 1 + (int64_t)(rnd() % (uint64_t)m);
        int64_t *cuts = malloc((size_t)(ns + 1) * sizeof(int64_t));
        cuts[0] = 0;
        cuts[ns] = nmain;
        for (int64_t k = 1; k < ns; k++) {
            cuts[k] = (int64_t)(rnd() % (uint64_t)(nmain + 1));
        }
        for (int64_t k = 1; k < ns; k++) { /* insertion sort */
            for (int64_t j = k; j > 1 && cuts[j] < cuts[j - 1]; j--) {
                int64_t x = cuts[j];
                cuts[j] = cuts[j - 1];
                cuts[j - 1] = x;
            }
        }
        wpart_spatial_options_init(&opt);
        opt.method = WPART_SP_JAG_M_PROBE;
        opt.orient = (wpart_spatial_orient_t)o;
        opt.cuts = cuts;
        opt.ncuts = ns + 1;
        same_as_dense(M, m, &opt);
        /* JAG-M-ALLOC: ns counts >= 1 summing to m */
        for (int64_t k = 0; k < ns; k++) {
            cuts[k] = 1;
        }
        for (int64_t r = m - ns; r > 0; r--) {
            cuts[rnd() % (uint64_t)ns]++;
        }
        opt.method = WPART_SP_JAG_M_ALLOC;
        opt.ncuts = ns;
        same_as_dense(M, m, &opt);
        free(cuts);
    }
}

static void test_random(void)
{
    static const int64_t shapes[][2] = {{1, 1}, {1, 17}, {17, 1}, {2, 2}, {5, 7},
                                        {13, 4}, {30, 30}, {41, 17}, {64, 50}};
    for (int t = 0; t < 54; t++) {
        int64_t n1 = shapes[t % 9][0], n2 = shapes[t % 9][1];
        int pct = (int[]){0, 3, 10, 40, 100}[t % 5];
        mat_t M;
        mat_random(&M, n1, n2, pct, (t / 9) % 2, t % 3 == 0 && n1 > 2 && n2 > 2);
        int64_t cells = n1 * n2;
        int64_t ms[3] = {1, 1 + (int64_t)(rnd() % 12), 1 + (int64_t)(rnd() % 30)};
        for (int k = 0; k < 3; k++) {
            if (ms[k] <= cells) {
                check_methods(&M, ms[k]);
            }
        }
        mat_free(&M);
    }
}

static void test_transpose_and_loads(void)
{
    mat_t M;
    mat_random(&M, 23, 31, 15, 0, 1);
    int64_t *cp = malloc(32 * sizeof(int64_t));
    int64_t *ri = malloc((size_t)(M.nnz + 1) * sizeof(int64_t));
    int64_t *cv = malloc((size_t)(M.nnz + 1) * sizeof(int64_t));
    CHECK_STATUS(wpart_i_spatial_csr_transpose(23, 31, M.rp, M.ci, M.rv, cp, ri, cv), WPART_OK);
    CHECK(memcmp(cp, M.cp, 32 * sizeof(int64_t)) == 0);
    CHECK(memcmp(ri, M.ri, (size_t)M.nnz * sizeof(int64_t)) == 0);
    CHECK(memcmp(cv, M.cv, (size_t)M.nnz * sizeof(int64_t)) == 0);
    /* loads of arbitrary (overlapping, empty) rectangles */
    int64_t R[7][4] = {{0, 23, 0, 31}, {0, 5, 3, 9}, {0, 5, 9, 31}, {4, 4, 0, 31},
                       {2, 20, 7, 7}, {3, 9, 0, 31}, {3, 9, 5, 10}};
    int64_t L[7];
    CHECK_STATUS(wpart_i_spatial_sparse_loads_i64(23, 31, M.rp, M.ci, M.rv, 7, &R[0][0], L),
                 WPART_OK);
    for (int k = 0; k < 7; k++) {
        CHECK(L[k] == box(&M, R[k]));
    }
    int64_t out[4] = {-1, 5, 0, 31};
    CHECK_STATUS(wpart_i_spatial_sparse_loads_i64(23, 31, M.rp, M.ci, M.rv, 1, out, L),
                 WPART_EINVAL);
    free(cp);
    free(ri);
    free(cv);
    mat_free(&M);
}

static void test_float(void)
{
    /* double values: the f64 entry gives the f64 dense partition on integral values */
    mat_t M;
    mat_random(&M, 29, 37, 8, 0, 1);
    double *rv = malloc((size_t)(M.nnz + 1) * sizeof(double));
    double *cv = malloc((size_t)(M.nnz + 1) * sizeof(double));
    double *A = malloc((size_t)(29 * 37) * sizeof(double));
    double *S = malloc((size_t)(30 * 38) * sizeof(double));
    for (int64_t e = 0; e < M.nnz; e++) {
        rv[e] = (double)M.rv[e];
        cv[e] = (double)M.cv[e];
    }
    for (int64_t k = 0; k < 29 * 37; k++) {
        A[k] = (double)M.A[k];
    }
    wpart_base_prefix2d_f64(A, 29, 37, S);
    int64_t rs[4 * 12], rd[4 * 12];
    double ld[12];
    wpart_spatial_options_t opt;
    static const wpart_spatial_method_t ms[] = {WPART_SP_RECT_NICOL, WPART_SP_JAG_PQ_HEUR,
                                                WPART_SP_JAG_M_HEUR, WPART_SP_JAG_M_HEUR_PROBE};
    for (int k = 0; k < 4; k++) {
        wpart_spatial_options_init(&opt);
        opt.method = ms[k];
        opt.P = 3;
        opt.Q = 4;
        opt.orient = ms[k] == WPART_SP_RECT_NICOL ? WPART_SP_HOR : WPART_SP_BEST;
        CHECK_STATUS(wpart_i_spatial_sparse_f64(29, 37, M.rp, M.ci, rv, M.cp, M.ri, cv, 12, &opt,
                                                rs, ld, NULL),
                     WPART_OK);
        CHECK_STATUS(wpart_spatial_partition_f64(S, 29, 37, 12, &opt, rd, NULL), WPART_OK);
        CHECK(memcmp(rs, rd, sizeof rs) == 0);
        for (int j = 0; j < 12; j++) {
            CHECK(ld[j] == (double)box(&M, rs + 4 * j));
        }
    }
    /* NaN and negative entries are refused */
    if (M.nnz > 0) {
        double keep = rv[0];
        rv[0] = NAN;
        CHECK_STATUS(wpart_i_spatial_sparse_f64(29, 37, M.rp, M.ci, rv, M.cp, M.ri, cv, 12, &opt,
                                                rs, NULL, NULL),
                     WPART_EINVAL);
        rv[0] = -1.0;
        CHECK_STATUS(wpart_i_spatial_sparse_f64(29, 37, M.rp, M.ci, rv, M.cp, M.ri, cv, 12, &opt,
                                                rs, NULL, NULL),
                     WPART_EINVAL);
        rv[0] = keep;
    }
    free(rv);
    free(cv);
    free(A);
    free(S);
    mat_free(&M);
}

static void test_bad_input(void)
{
    mat_t M;
    mat_random(&M, 6, 5, 50, 0, 0);
    int64_t rects[4 * 6];
    wpart_spatial_options_t opt;
    wpart_spatial_options_init(&opt);
    opt.method = WPART_SP_RECT_NICOL;
    opt.P = 2;
    opt.Q = 3;
#define SPARSE(rp, ci, rv, cp, ri, cv, m)                                                      \
    wpart_i_spatial_sparse_i64(6, 5, rp, ci, rv, cp, ri, cv, m, &opt, rects, NULL, NULL)
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_OK);
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 5), WPART_EINVAL); /* P x Q != m */
    CHECK_STATUS(SPARSE(NULL, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
    CHECK_STATUS(wpart_i_spatial_sparse_i64(0, 5, M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6, &opt,
                                            rects, NULL, NULL),
                 WPART_EINVAL);
    CHECK_STATUS(wpart_i_spatial_sparse_i64(6, 5, M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6, NULL,
                                            rects, NULL, NULL),
                 WPART_EINVAL);
    if (M.nnz >= 2) {
        int64_t keep = M.ci[0];
        M.ci[0] = 5; /* out of range */
        CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
        M.ci[0] = -1;
        CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
        M.ci[0] = keep;
        int64_t r0 = M.rp[1];
        if (r0 >= 2) { /* two entries of row 0 swapped: not increasing */
            int64_t x = M.ci[0];
            M.ci[0] = M.ci[1];
            M.ci[1] = x;
            CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
            M.ci[1] = M.ci[0];
            M.ci[0] = x;
        }
        int64_t rk = M.ri[0];
        M.ri[0] = 6; /* CSC row out of range */
        CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
        M.ri[0] = rk;
        int64_t v = M.rv[0];
        M.rv[0] = -3;
        CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
        M.rv[0] = v;
        int64_t p1 = M.rp[1];
        M.rp[1] = M.rp[2] + 1; /* pointers decrease */
        CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
        M.rp[1] = p1;
        int64_t last = M.rp[6];
        M.rp[6] = last + 1; /* rp[n1] != cp[n2] */
        CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
        M.rp[6] = last;
    }
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_OK); /* restored */
    opt.method = WPART_SP_HIER_OPT; /* needs the dense prefix */
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
    opt.method = WPART_SP_JAG_M_OPT; /* runs on the nonzeros */
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_OK);
    opt.method = WPART_SP_JAG_PQ_OPT_DP; /* runs on the nonzeros */
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_OK);
    int64_t cnt_ok[2] = {4, 2}, cnt_bad[2] = {4, 3};
    opt.method = WPART_SP_JAG_M_ALLOC; /* runs on the nonzeros; counts checked */
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
    opt.cuts = cnt_ok;
    opt.ncuts = 2;
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_OK);
    opt.cuts = cnt_bad;
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
    opt.cuts = NULL;
    opt.ncuts = 0;
    double sp[6] = {1, 1, 1, 1, 1, 1};
    opt.method = WPART_SP_JAG_M_HEUR;
    opt.speeds = sp; /* speeds: dense only */
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
    opt.speeds = NULL;
    opt.P = -1;
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
    opt.P = 0;
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_OK);
    /* JAG-M-PROBE: cuts missing, not ending at n1, decreasing, more stripes than m, BEST */
    int64_t c1[3] = {0, 3, 6}, c2[3] = {0, 3, 5}, c3[3] = {0, 4, 2}, c4[8] = {0, 1, 2, 3, 4, 5,
                                                                           6, 6};
    opt.method = WPART_SP_JAG_M_PROBE;
    opt.orient = WPART_SP_HOR;
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
    opt.cuts = c1;
    opt.ncuts = 3;
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_OK);
    opt.cuts = c2;
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
    opt.cuts = c3;
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
    opt.cuts = c4;
    opt.ncuts = 8;
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
    opt.cuts = c1;
    opt.ncuts = 3;
    opt.orient = WPART_SP_BEST;
    CHECK_STATUS(SPARSE(M.rp, M.ci, M.rv, M.cp, M.ri, M.cv, 6), WPART_EINVAL);
#undef SPARSE
    /* transpose: malformed CSR refused */
    int64_t cp[6], ri[64], cv[64];
    int64_t bad_rp[7] = {0, 2, 1, 3, 3, 3, 3};
    CHECK_STATUS(wpart_i_spatial_csr_transpose(6, 5, bad_rp, M.ci, M.rv, cp, ri, cv),
                 WPART_EINVAL);
    CHECK_STATUS(wpart_i_spatial_csr_transpose(6, 0, M.rp, M.ci, M.rv, cp, ri, cv),
                 WPART_EINVAL);
    mat_free(&M);
}

/* the starts of RECT-NICOL / JAG-PQ-HEUR in one call (dense prefix, sparse with and without
 * the CSC arrays): start s gives the single call's partition with the method's own start
 * option, its loads are the sums; bad codes, methods and a window are refused */
static void test_starts(void)
{
    int codes[4] = {0, 1, 2, 3};
    for (int t = 0; t < 40; t++) {
        mat_t M;
        int64_t n1 = 1 + (int64_t)(rnd() % 23), n2 = 1 + (int64_t)(rnd() % 19);
        mat_random(&M, n1, n2, t % 3 == 0 ? 100 : 12, t % 4 == 1, t % 5 == 2 && n1 > 2);
        int64_t P = 1 + (int64_t)(rnd() % (uint64_t)n1), Q = 1 + (int64_t)(rnd() % (uint64_t)n2);
        int64_t m = P * Q;
        for (int meth = 0; meth < 2; meth++) {
            wpart_spatial_options_t opt;
            wpart_spatial_options_init(&opt);
            opt.method = meth ? WPART_SP_JAG_PQ_HEUR : WPART_SP_RECT_NICOL;
            opt.P = P;
            opt.Q = Q;
            int64_t *R[3], *L[3], *one = calloc((size_t)(4 * m), sizeof(int64_t)), ran[3];
            wpart_spatial_stats_t st[3][4];
            int stop[3][4];
            for (int v = 0; v < 3; v++) {
                R[v] = calloc((size_t)(16 * m), sizeof(int64_t));
                L[v] = calloc((size_t)(4 * m), sizeof(int64_t));
            }
            CHECK_STATUS(wpart_i_spatial_starts_i64(M.S, n1, n2, m, &opt, 4, codes, R[0], L[0],
                                                    st[0], stop[0], &ran[0]), WPART_OK);
            CHECK_STATUS(wpart_i_spatial_sparse_starts_i64(n1, n2, M.rp, M.ci, M.rv, M.cp, M.ri,
                                                           M.cv, m, &opt, 4, codes, R[1], L[1],
                                                           st[1], stop[1], &ran[1]), WPART_OK);
            CHECK_STATUS(wpart_i_spatial_sparse_starts_i64(n1, n2, M.rp, M.ci, M.rv, NULL, NULL,
                                                           NULL, m, &opt, 4, codes, R[2], L[2],
                                                           st[2], stop[2], &ran[2]), WPART_OK);
            for (int s = 0; s < 4; s++) {
                wpart_spatial_options_t o = opt;
                o.orient = (s & 2) ? WPART_SP_VER : WPART_SP_HOR;
                o.start = meth ? !(s & 1) : (s & 1);
                CHECK_STATUS(wpart_spatial_partition_i64(M.S, n1, n2, m, &o, one, NULL),
                             WPART_OK);
                for (int v = 0; v < 3; v++) {
                    CHECK(ran[v] == 4 && stop[v][s] == 0);
                    CHECK(memcmp(R[v] + 4 * m * s, one, (size_t)(4 * m) * sizeof(int64_t)) == 0);
                    for (int64_t k = 0; k < m; k++) {
                        CHECK(L[v][m * s + k] == box(&M, one + 4 * k));
                    }
                }
                compared++;
            }
            for (int v = 0; v < 3; v++) {
                free(R[v]);
                free(L[v]);
            }
            free(one);
        }
        mat_free(&M);
    }
    mat_t M;
    mat_random(&M, 6, 5, 50, 0, 0);
    wpart_spatial_options_t opt;
    wpart_spatial_options_init(&opt);
    opt.method = WPART_SP_RECT_NICOL;
    opt.P = 2;
    opt.Q = 3;
    int64_t R[4 * 6 * 2], L[6 * 2], ran;
    wpart_spatial_stats_t st[2];
    int stop[2], bad[1] = {4};
#define STARTS(k, c)                                                                            \
    wpart_i_spatial_sparse_starts_i64(6, 5, M.rp, M.ci, M.rv, NULL, NULL, NULL, 6, &opt, k, c, R, \
                                      L, st, stop, &ran)
    CHECK_STATUS(STARTS(2, codes), WPART_OK);
    CHECK_STATUS(STARTS(1, bad), WPART_EINVAL);
    CHECK_STATUS(STARTS(0, codes), WPART_EINVAL);
    CHECK_STATUS(wpart_i_spatial_starts_i64(M.S, 6, 5, 6, &opt, 1, bad, R, L, st, stop, &ran),
                 WPART_EINVAL);
    opt.window[1] = 3;
    opt.window[3] = 3;
    CHECK_STATUS(wpart_i_spatial_starts_i64(M.S, 6, 5, 6, &opt, 1, codes, R, L, st, stop, &ran),
                 WPART_EINVAL);
    memset(opt.window, 0, sizeof opt.window);
    opt.method = WPART_SP_JAG_M_HEUR;
    CHECK_STATUS(STARTS(1, codes), WPART_EINVAL);
    CHECK_STATUS(wpart_i_spatial_starts_i64(M.S, 6, 5, 6, &opt, 1, codes, R, L, st, stop, &ran),
                 WPART_EINVAL);
#undef STARTS
    mat_free(&M);
}

/* rg_whole (the half-sweeps' integral-value test) against floor on values around its 2**52
 * switch, signed zeros, fractions, infinities and NaN */
static void test_whole(void)
{
    const double big = 4503599627370496.0; /* 2**52 */
    const double v[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 3.0000000000000004, 1e15 + 0.5,
                        big - 0.5, big - 1.0, big, big + 1.0, 2.0 * big, 1e300, -1e300,
                        5e-324, 9.2233720368547758e18, -9.2233720368547758e18, INFINITY,
                        -INFINITY, NAN};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        CHECK(rg_whole(v[i]) == (v[i] == floor(v[i])));
    }
    double w[3] = {1.0, 2.0, 3.0};
    CHECK(rg_integral(w, 3));
    w[1] = 2.25;
    CHECK(!rg_integral(w, 3));
}

int main(void)
{
    test_whole();
    test_random();
    test_transpose_and_loads();
    test_float();
    test_bad_input();
    test_starts();
    if (failures) {
        fprintf(stderr, "test_spatial_sparse: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_spatial_sparse: ok (%d sparse runs equal to the dense ones)\n", compared);
    return 0;
}
