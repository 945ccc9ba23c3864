/* rect_sgo.c -- the subgradient refinement of a P x Q grid (SGO, after SARMA's sgo_2dr; see
 * rect_grid.h): the inner cut positions move in load space against the cumulated excess of
 * each stripe's largest block. Its cut placement and step are shared with the SGO kick of
 * rect_polish.c. */
#include "rect_grid_i.h"

#include "rect_polish.h"
#include "rect_polish_i.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void wpart_i_sgo_cuts(const double *pref, int64_t n, const double *pi, int64_t k,
                      const int64_t *hint, int64_t *cuts)
{
    /* cuts[i + 1]: the smallest x in [cuts[i], n) with pref[x] >= pi[i], else n (pi sorted:
     * the answers rise), galloping from hint[i + 1] (read before cuts[i + 1] is written) */
    cuts[0] = 0;
    for (int64_t i = 0; i < k; i++) {
        double p = pi[i];
        int64_t lo = cuts[i], hi = n;
        if (hint) {
            int64_t x = hint[i + 1] < lo ? lo : hint[i + 1] > n ? n : hint[i + 1], step = 1;
            if (x == n || pref[x] >= p) { /* the answer is in [lo, x] */
                hi = x;
                while (hi - step >= lo && pref[hi - step] >= p) {
                    hi -= step;
                    step *= 2;
                }
                lo = hi - step < lo ? lo : hi - step + 1;
            } else { /* in (x, n] */
                lo = x + 1;
                for (;;) {
                    int64_t y = lo + step - 1;
                    if (y >= n) {
                        break;
                    }
                    if (pref[y] >= p) {
                        hi = y;
                        break;
                    }
                    lo = y + 1;
                    step *= 2;
                }
            }
        }
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (pref[mid] >= p) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        cuts[i + 1] = lo;
    }
    cuts[k + 1] = n;
}

static int sgo_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* x[0..k) sorted ascending by insertion: a step moves the positions a little, so they are
 * nearly sorted and this costs about k compares (qsort's calls were a third of an SGO
 * iteration at 64 x 64); the same array as any sort (positions are never -0 or NaN) */
static void sgo_sort(double *x, int64_t k)
{
    for (int64_t i = 1; i < k; i++) {
        double v = x[i];
        int64_t j = i;
        while (j > 0 && x[j - 1] > v) {
            x[j] = x[j - 1];
            j--;
        }
        x[j] = v;
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SGO_AVX2 1
/* wpart_i_sgo_maxima with four columns per instruction where the CPU has AVX2: VMAXPD(v, m)
 * is v > m ? v : m per lane, the SSE2 and scalar loops' choice, so the same maxima bit for
 * bit; eight columns a step in two chains (measured: the default's CPU on SARMA's test
 * matrices at 32 x 32 / 64 x 64 in the table of the commit that added it) */
__attribute__((target("avx2"))) static double sgo_maxima_avx2(const double *restrict L,
                                                              int64_t P, int64_t Q,
                                                              double *restrict rmax,
                                                              double *restrict cmax)
{
    double mx = 0.0;
    for (int64_t q = 0; q < Q; q++) {
        cmax[q] = 0.0;
    }
    for (int64_t p = 0; p < P; p++) {
        const double *restrict row = L + p * Q;
        __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
        int64_t q = 0;
        for (; q + 8 <= Q; q += 8) {
            __m256d v0 = _mm256_loadu_pd(row + q), v1 = _mm256_loadu_pd(row + q + 4);
            a0 = _mm256_max_pd(v0, a0);
            a1 = _mm256_max_pd(v1, a1);
            _mm256_storeu_pd(cmax + q, _mm256_max_pd(v0, _mm256_loadu_pd(cmax + q)));
            _mm256_storeu_pd(cmax + q + 4, _mm256_max_pd(v1, _mm256_loadu_pd(cmax + q + 4)));
        }
        double m8[8];
        _mm256_storeu_pd(m8, a0);
        _mm256_storeu_pd(m8 + 4, a1);
        double r = 0.0;
        for (int j = 0; j < 8; j++) {
            r = m8[j] > r ? m8[j] : r;
        }
        for (; q < Q; q++) {
            double v = row[q];
            r = v > r ? v : r;
            cmax[q] = v > cmax[q] ? v : cmax[q];
        }
        rmax[p] = r;
        mx = r > mx ? r : mx;
    }
    return mx;
}
#endif

double wpart_i_sgo_maxima(const double *restrict L, int64_t P, int64_t Q,
                          double *restrict rmax, double *restrict cmax)
{
#ifdef SGO_AVX2
    if (Q >= 8 && __builtin_cpu_supports("avx2")) {
        return sgo_maxima_avx2(L, P, Q, rmax, cmax);
    }
#endif
    /* two columns per instruction where SSE2 is there (every x86-64): MAXPD(v, m) is v > m ?
     * v : m, the scalar loop's choice, so the same maxima; about 1.6x faster at 64 x 64 than
     * the four scalar row chains below (the default on SARMA's Chebyshev1 64 x 64 12.0 ->
     * 10.5 ms, mesh2em5 43.9 -> 37.0 ms), which remain for the tail and elsewhere (2.2x
     * faster than one chain through rmax[p]: the maxima do not wait on each other) */
    double mx = 0.0;
    for (int64_t q = 0; q < Q; q++) {
        cmax[q] = 0.0;
    }
    for (int64_t p = 0; p < P; p++) {
        const double *restrict row = L + p * Q;
        double m4[4] = {0.0, 0.0, 0.0, 0.0};
        int64_t q = 0;
#if defined(__SSE2__)
        __m128d a0 = _mm_setzero_pd(), a1 = _mm_setzero_pd();
        for (; q + 4 <= Q; q += 4) {
            __m128d v0 = _mm_loadu_pd(row + q), v1 = _mm_loadu_pd(row + q + 2);
            a0 = _mm_max_pd(v0, a0);
            a1 = _mm_max_pd(v1, a1);
            _mm_storeu_pd(cmax + q, _mm_max_pd(v0, _mm_loadu_pd(cmax + q)));
            _mm_storeu_pd(cmax + q + 2, _mm_max_pd(v1, _mm_loadu_pd(cmax + q + 2)));
        }
        _mm_storeu_pd(m4, a0);
        _mm_storeu_pd(m4 + 2, a1);
#endif
        for (; q + 4 <= Q; q += 4) {
            for (int j = 0; j < 4; j++) {
                double v = row[q + j];
                m4[j] = v > m4[j] ? v : m4[j];
                cmax[q + j] = v > cmax[q + j] ? v : cmax[q + j];
            }
        }
        for (; q < Q; q++) {
            double v = row[q];
            m4[0] = v > m4[0] ? v : m4[0];
            cmax[q] = v > cmax[q] ? v : cmax[q];
        }
        double a = m4[0] > m4[1] ? m4[0] : m4[1], b = m4[2] > m4[3] ? m4[2] : m4[3];
        rmax[p] = a > b ? a : b;
        mx = rmax[p] > mx ? rmax[p] : mx;
    }
    return mx;
}

void wpart_i_mt64_seed(wpart_mt64_t *g, uint64_t seed)
{
    g->mt[0] = seed;
    for (int i = 1; i < 312; i++) {
        g->mt[i] = 6364136223846793005ull * (g->mt[i - 1] ^ (g->mt[i - 1] >> 62)) + (uint64_t)i;
    }
    g->i = 312;
}

/* the next output of std::mt19937_64 (the C++ standard's engine: its 10000th output from the
 * default seed 5489 is 9981545732273789042, tested) */
static uint64_t mt64_next(wpart_mt64_t *g)
{
    uint64_t *mt = g->mt;
    if (g->i >= 312) {
        for (int k = 0; k < 312; k++) {
            uint64_t y = (mt[k] & 0xFFFFFFFF80000000ull) | (mt[(k + 1) % 312] & 0x7FFFFFFFull);
            mt[k] = mt[(k + 156) % 312] ^ (y >> 1) ^ ((y & 1) ? 0xB5026F5AA96619E9ull : 0);
        }
        g->i = 0;
    }
    uint64_t y = mt[g->i++];
    y ^= (y >> 29) & 0x5555555555555555ull;
    y ^= (y << 17) & 0x71D67FFFEDA60000ull;
    y ^= (y << 37) & 0xFFF7EEE000000000ull;
    return y ^ (y >> 43);
}

void wpart_i_sgo_random(double total, int64_t k, wpart_mt64_t *g, double *pi)
{
    for (int64_t i = 0; i < k; i++) {
        /* std::uniform_real_distribution<double>(0, total) as libstdc++ draws it:
         * generate_canonical takes one 64-bit output x, x / 2**64 (x rounded to a double
         * first), the largest double below 1 where that rounds up to 1; times total */
        double u = (double)mt64_next(g) * 0x1p-64;
        pi[i] = (u < 1.0 ? u : 0x1.fffffffffffffp-1) * total;
    }
    qsort(pi, (size_t)k, sizeof(double), sgo_cmp);
}

int wpart_i_sgo_step(double *const pi[2], double *const rs[2], const int64_t K[2], int nd,
                     int64_t m, double mx, double best, double *pbest, int64_t *pbest_m)
{
    double mn = RG_INF;
    int64_t span = 0; /* SARMA's PQ: (the dimension's cuts + 2) summed */
    for (int d = 0; d < nd; d++) {
        span += K[d] + 1;
        double avg = 0.0, u = 0.0;
        for (int64_t k = 0; k < K[d]; k++) {
            avg += rs[d][k];
            mn = rs[d][k] < mn ? rs[d][k] : mn;
        }
        avg /= (double)K[d];
        double t = 1.0 / sqrt((double)(m / (K[d] + 1)) + 100.0);
        for (int64_t k = 0; k + 1 < K[d]; k++) {
            u += rs[d][k] - avg;
            pi[d][k] -= t * u;
        }
        sgo_sort(pi[d], K[d] - 1);
    }
    if (mn > 0 && (mx - mn) / mn < 0.001) {
        return 1;
    }
    if (m - *pbest_m > 10 * span) {
        if (best * 1.001 >= *pbest) {
            return 1;
        }
        *pbest = best;
        *pbest_m = m;
    }
    return 0;
}

/* the SGO of wpart_spatial_rect_sgo; sym: one cut vector for rows and columns (SARMA's
 * sgo_2ds: positions in the load of rows + columns, over N = max(n1, n2), each cut clipped to
 * the dimension; a stripe's value the larger of its row and column stripes' largest blocks;
 * R, C: the cut vector clipped to n1 and n2). The block loads are kept from one iteration to
 * the next by moving the entries of the lines that change stripe (wpart_i_rp_shift; a line
 * moves in a few iterations of the hundreds, so an iteration costs about its cut searches and
 * the P Q blocks instead of the nnz entries) where the loads are integral (the sums exact, so
 * the same blocks as from scratch), from scratch otherwise (float sums in the same order). */
static wpart_status_t sgo_run(const wpart_rg_csr_t *A, int64_t P, int64_t Q, int64_t *R,
                              int64_t *C, int64_t max_iter, uint64_t seed, int sym,
                              const wpart_control_t *control, double *value, int64_t *iters,
                              int32_t *timed_out)
{
    wpart_status_t st = WPART_OK;
    double t0 = wpart_i_now();
    int64_t N = A->n1 > A->n2 ? A->n1 : A->n2, nnz = A->rp[A->n1];
    int64_t n[2] = {sym ? N : A->n1, sym ? N : A->n2}, K[2] = {P, Q};
    double *pref[2] = {NULL, NULL}, *pi[2] = {NULL, NULL}, *rs[2] = {NULL, NULL}, *blk = NULL;
    double *smax[2] = {NULL, NULL};
    int64_t *cut[2] = {NULL, NULL}, *nc[2] = {NULL, NULL}, *scnt[2] = {NULL, NULL};
    int32_t *map[2] = {NULL, NULL};
    int nd = sym ? 1 : 2;
    /* the CSC (the columns' entries, moved when a column changes stripe) only for integral
     * loads, whose sums are exact in any order */
    rg_ctx_t g;
    rp_t s;
    memset(&g, 0, sizeof g);
    memset(&s, 0, sizeof s);
    int inc = rg_integral(A->w, nnz);
    *timed_out = 0;
    WPART_CHECK(wpart_i_rg_check_grids(A, P, Q, 1, R, C));
    blk = wpart_i_malloc(P * Q, sizeof(double));
    for (int d = 0; d < 2; d++) {
        pref[d] = wpart_i_calloc(n[d] + 1, sizeof(double));
        pi[d] = wpart_i_malloc(K[d], sizeof(double));
        rs[d] = wpart_i_malloc(K[d], sizeof(double));
        cut[d] = wpart_i_malloc(K[d] + 1, sizeof(int64_t));
        nc[d] = wpart_i_malloc(K[d] + 1, sizeof(int64_t));
        map[d] = wpart_i_malloc(n[d], sizeof(int32_t));
        smax[d] = wpart_i_malloc(K[d], sizeof(double));
        scnt[d] = wpart_i_malloc(K[d], sizeof(int64_t));
        if (!pref[d] || !pi[d] || !rs[d] || !cut[d] || !nc[d] || !map[d] || !smax[d] ||
            !scnt[d]) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in the subgradient refinement");
        }
    }
    if (!blk) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in the subgradient refinement");
    }
    g.A = A;
    g.ctl = control;
    g.side[0] = (rg_side_t){A->n1, A->n2, A->rp, A->ci, A->w};
    g.side[1] = (rg_side_t){A->n2, A->n1, NULL, NULL, NULL};
    if (inc) {
        WPART_CHECK(wpart_i_rg_csc(&g));
    }
    s = (rp_t){{g.side[0], g.side[1]}, {P, Q}, {cut[0], cut[1]}, {map[0], map[1]}, blk,
               {smax[0], smax[1]}, {scnt[0], scnt[1]}, 0.0, 0, NULL, control, 0, 0};
    if (inc) { /* heavy lines move in O(K) (rect_polish_i.h) */
        WPART_CHECK(wpart_i_rp_heavy(&s));
    }
    int64_t work = 0;
    for (int64_t i = 0; i < A->n1; i++) {
        if (rg_cancel(control, &work, A->rp[i + 1] - A->rp[i])) {
            WPART_FAIL(WPART_ECANCELLED, "stopped on request");
        }
        for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
            double w = rg_w(A, e);
            pref[0][i + 1] += w;
            pref[1][A->ci[e] + 1] += w;
        }
    }
    for (int d = 0; d < 2; d++) {
        for (int64_t x = 0; x < n[d]; x++) {
            pref[d][x + 1] += pref[d][x];
        }
    }
    if (sym) { /* the one dimension's prefix: rows + columns (the sums SARMA adds) */
        for (int64_t x = 0; x <= N; x++) {
            pref[0][x] += pref[1][x];
        }
    }
    const int64_t *given[2] = {R, C};
    wpart_mt64_t gen;
    if (seed > 0) { /* SARMA's random start: std::mt19937_64 gen(seed), rows drawn first */
        wpart_i_mt64_seed(&gen, seed);
    }
    for (int d = 0; d < nd; d++) {
        if (seed > 0) {
            wpart_i_sgo_random(pref[d][n[d]], K[d] - 1, &gen, pi[d]);
            continue;
        }
        for (int64_t k = 1; k < K[d]; k++) {
            pi[d][k - 1] = pref[d][given[d][k]];
        }
    }
    double best = RG_INF, pbest = RG_INF, mx = 0.0;
    int64_t pbest_m = 1, m = 1, nn[2] = {A->n1, A->n2};
    for (; m <= max_iter; m++) {
        for (int d = 0; d < nd; d++) { /* (the last cuts: where the search starts) */
            wpart_i_sgo_cuts(pref[d], n[d], pi[d], K[d] - 1, m > 1 ? cut[d] : NULL, nc[d]);
        }
        if (sym) { /* the one cut vector, clipped to each dimension */
            for (int64_t k = 0; k <= P; k++) {
                nc[1][k] = nc[0][k] < nn[1] ? nc[0][k] : nn[1];
                nc[0][k] = nc[0][k] < nn[0] ? nc[0][k] : nn[0];
            }
        }
        int fresh = m == 1; /* the blocks changed: their maxima (else rs, mx as they are) */
        if (inc && m > 1) { /* the rows that change stripe (columns as they were), then the
                             * columns (rows as they are now) */
            for (int d = 0; d < 2; d++) {
                int64_t e = wpart_i_rp_shift(&s, d, nc[d]);
                fresh |= e > 0;
                if (rg_cancel(control, &work, e) || s.stop) {
                    WPART_FAIL(WPART_ECANCELLED, "stopped on request");
                }
            }
        } else if (m == 1 || !rg_same_grid(P, Q, cut[0], cut[1], nc[0], nc[1])) {
            /* from scratch (the entries in CSR order) */
            for (int d = 0; d < 2; d++) {
                memcpy(cut[d], nc[d], (size_t)(K[d] + 1) * sizeof(int64_t));
            }
            wpart_i_rp_loads(&s);
            fresh = 1;
            if (s.stop || rg_cancel(control, &work, nnz)) {
                WPART_FAIL(WPART_ECANCELLED, "stopped on request");
            }
        }
        if (fresh) {
            mx = wpart_i_sgo_maxima(blk, P, Q, rs[0], rs[1]);
            if (sym) {
                for (int64_t k = 0; k < P; k++) {
                    rs[0][k] = rs[0][k] > rs[1][k] ? rs[0][k] : rs[1][k];
                }
            }
        }
        if (mx < best) {
            best = mx;
            memcpy(R, cut[0], (size_t)(P + 1) * sizeof(int64_t));
            memcpy(C, cut[1], (size_t)(Q + 1) * sizeof(int64_t));
        }
        if (wpart_i_sgo_step(pi, rs, K, nd, m, mx, best, &pbest, &pbest_m)) {
            break;
        }
        if ((m & 15) == 0) {
            WPART_CHECK(rg_poll_limit(control, t0, (double)m, (double)max_iter, timed_out));
            if (*timed_out) {
                break;
            }
        }
    }
    *value = best;
    *iters = m;
cleanup:
    wpart_i_rp_heavy_free(&s);
    wpart_i_rg_close(&g);
    free(blk);
    for (int d = 0; d < 2; d++) {
        free(pref[d]);
        free(pi[d]);
        free(rs[d]);
        free(cut[d]);
        free(nc[d]);
        free(map[d]);
        free(smax[d]);
        free(scnt[d]);
    }
    return st;
}

wpart_status_t wpart_spatial_rect_sgo(const wpart_rg_csr_t *A, int64_t P, int64_t Q, int64_t *R,
                                      int64_t *C, int64_t max_iter, uint64_t seed,
                                      const wpart_control_t *control, double *value,
                                      int64_t *iters, int32_t *timed_out)
{
    return sgo_run(A, P, Q, R, C, max_iter, seed, 0, control, value, iters, timed_out);
}

wpart_status_t wpart_spatial_rect_sgo_sym(const wpart_rg_csr_t *A, int64_t P, int64_t Q,
                                          int64_t *R, int64_t *C, int64_t max_iter,
                                          uint64_t seed, const wpart_control_t *control,
                                          double *value, int64_t *iters, int32_t *timed_out)
{
    if (P != Q) {
        return wpart_i_error(WPART_EINVAL, "the symmetric subgradient method needs P == Q");
    }
    return sgo_run(A, P, Q, R, C, max_iter, seed, 1, control, value, iters, timed_out);
}
