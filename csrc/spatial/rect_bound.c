/* rect_bound.c -- what the default RECT-NICOL (rect_fast.c) reads of a matrix before its starts
 * run: the lower bound of the optimum P x Q grid (the exact 1D partitions of the line loads,
 * the heaviest lines cut alone and, on heavy-line matrices, together: the joint bound, whose
 * cuts are a start), whether the matrix is banded at the grid's resolution, the diagonal its
 * entries follow (an offset; a rectangular matrix's corner-to-corner diagonal) and the diagonal
 * start along it. */
#include "rect_grid_i.h"

#include <math.h>

#include "rect_polish.h"

/* a line nearly fills a block when its load / the other dimension's parts >= RF_HEAVY x the
 * bound of the exact 1D partitions and the single heavy lines (the joint bound's gate) */
#define RF_HEAVY 0.9

/* the (at most k <= 8) heaviest of the n loads above thr into heavy (ties: the higher index,
 * as at a stable sort's end); returns how many */
static int64_t rf_top(const double *load, int64_t n, double thr, int64_t k, int64_t *heavy)
{
    int64_t nh = 0, lo = -1;
    for (int64_t i = 0; i < n; i++) {
        if (!(load[i] > thr)) {
            continue;
        }
        if (nh < k) {
            heavy[nh++] = i;
            continue;
        }
        if (lo < 0) { /* the lightest kept line (the lower index among equals), found again
                       * only when it was replaced: O(n + k r) for r replacements */
            lo = 0;
            for (int64_t t = 1; t < k; t++) {
                double x = load[heavy[t]], y = load[heavy[lo]];
                if (x < y || (x == y && heavy[t] < heavy[lo])) {
                    lo = t;
                }
            }
        }
        if (load[i] >= load[heavy[lo]]) {
            heavy[lo] = i;
            lo = -1;
        }
    }
    return nh;
}

/* the joint bound of k lines of side d (integral loads): the other dimension's `parts`
 * intervals cut all of them at once, and a block holding line i holds at least i's part, so
 * the exact min-max partition of the k lines' prefixes (stripes of X) bounds the optimum */
static double rf_joint(rg_ctx_t *g, int d, const int64_t *lines, int64_t k,
                       int64_t parts, int64_t *cuts, int64_t *tmp)
{
    const rg_side_t *s = &g->side[d];
    int64_t n = s->m;
    double *X = g->X, lo = 0.0, hi = 0.0;
    memset(X, 0, (size_t)((n + 1) * k) * sizeof(double));
    for (int64_t t = 0; t < k; t++) {
        for (int64_t e = s->ptr[lines[t]]; e < s->ptr[lines[t] + 1]; e++) {
            X[(s->idx[e] + 1) * k + t] += s->w ? s->w[e] : 1.0;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        for (int64_t t = 0; t < k; t++) {
            X[(i + 1) * k + t] += X[i * k + t];
        }
    }
    for (int64_t t = 0; t < k; t++) {
        double x = X[n * k + t];
        hi = x > hi ? x : hi;
        lo = x / (double)parts > lo ? x / (double)parts : lo;
    }
    return rg_bisect(X, n, k, parts, ceil(lo), hi, 1, cuts, tmp);
}

/* the lower bound of the default (see rect_polish.h) */
double wpart_i_rect_lower(rg_ctx_t *g, const double *load[2], double imax, double *line,
                          int64_t *tmp, int *heavy_line, int64_t *jcuts, int *jside,
                          int64_t *rcuts, wpart_status_t *st)
{
    const wpart_rg_csr_t *A = g->A;
    int64_t nnz = A->rp[A->n1], n[2] = {A->n1, A->n2};
    int integral = 1;
    double b = 0.0, value;
    int64_t *cuts = tmp + g->P[0] + g->P[1], heavy[8];
    if (nnz > 0) {
        b = 1.0;
        if (A->w && imax >= 0) {
            b = imax;
        } else if (A->w) {
            b = A->w[0];
            for (int64_t e = 0; e < nnz; e++) {
                b = A->w[e] > b ? A->w[e] : b;
                integral &= rg_whole(A->w[e]);
            }
        }
    }
    for (int d = 0; d < 2; d++) {
        value = wpart_i_rect_1d(load[d], n[d], g->P[d], cuts, g->X, tmp, g->integral) /
                (double)g->P[1 - d];
        b = value > b ? value : b;
        if (d == 0 && rcuts) {
            memcpy(rcuts, cuts, (size_t)(g->P[0] + 1) * sizeof(int64_t));
        }
    }
    for (int d = 0; d < 2; d++) {
        const rg_side_t *s = &g->side[d];
        int64_t parts = g->P[1 - d];
        int64_t nh = rf_top(load[d], n[d], b * (double)parts, 8, heavy);
        if (nh > 0 && d == 1 && (*st = wpart_i_rg_csc(g)) != WPART_OK) {
            return 0.0;
        }
        for (int64_t t = 0; t < nh; t++) {
            /* the line's entries in order, without its zeros (the same optimum: a zero
             * changes no interval's sum) */
            int64_t i = heavy[t], len = s->ptr[i + 1] - s->ptr[i];
            for (int64_t e = 0; e < len; e++) {
                line[e] = s->w ? s->w[s->ptr[i] + e] : 1.0;
            }
            value = wpart_i_rect_1d(line, len, parts, cuts, g->X, tmp, g->integral);
            b = value > b ? value : b;
        }
    }
    /* where one line nearly fills a block (its load / parts >= 0.9 of the bound: power-law
     * matrices; *heavy_line = 1), the k = min(8, max(P, Q)) heaviest lines of that side cut
     * together; integral loads only (exact sums) */
    int64_t kmax = g->P[0] > g->P[1] ? g->P[0] : g->P[1];
    double mx[2] = {0.0, 0.0};
    for (int d = 0; d < 2; d++) {
        for (int64_t i = 0; i < n[d]; i++) {
            mx[d] = load[d][i] > mx[d] ? load[d][i] : mx[d];
        }
    }
    *heavy_line = nnz > 0 && (mx[0] / (double)g->P[1] >= RF_HEAVY * b ||
                              mx[1] / (double)g->P[0] >= RF_HEAVY * b);
    for (int d = 0; d < 2 && integral && g->integral; d++) {
        int64_t parts = g->P[1 - d], k = kmax < 8 ? kmax : 8;
        if (nnz == 0 || !(mx[d] / (double)parts >= RF_HEAVY * b)) {
            continue;
        }
        k = rf_top(load[d], n[d], -INFINITY, k, heavy);
        if (d == 1 && (*st = wpart_i_rg_csc(g)) != WPART_OK) {
            return 0.0;
        }
        value = rf_joint(g, d, heavy, k, parts, cuts, tmp);
        if (*jside < 0 || value > b) {
            memcpy(jcuts, cuts, (size_t)(parts + 1) * sizeof(int64_t));
            *jside = d;
        }
        b = value > b ? value : b;
    }
    return integral ? ceil(b - 1e-9) : b * (1.0 - 1e-12);
}

/* wpart_i_rg_banded: RG_BAND_ROWS sampled rows and the rows of more than RG_BAND_HEAVY x the
 * mean count, RG_BAND of their entries near the diagonal. (The heavy rows came in when a
 * band with an arrow's 3 dense rows and columns, 1,500^2, 22,147 entries, read as banded:
 * only the diagonal start ran, and at 16 x 16 / 8 x 32 the default ended at 689 / 533 against
 * SARMA nic's 676 / 520; now 663 / 520. The 476 max loads of bench_spatial_fresh,
 * bench_spatial_sarma and SARMA's six files the same, median CPU 1.007 x: one pass over the
 * row pointers) */
#ifndef RG_BAND_ROWS
#define RG_BAND_ROWS 64
#endif
#ifndef RG_BAND
#define RG_BAND 0.9
#endif
#ifndef RG_BAND_HEAVY
#define RG_BAND_HEAVY 4.0
#endif
/* the weight of row i in the banded test: step for a sampled row (every step-th from
 * step / 2; *next the next one), 1 for another row of more than hl entries, 0 (not read) */
static inline double rg_band_weight(int64_t i, int64_t *next, int64_t step, int64_t len,
                                    int64_t hl)
{
    if (i == *next) {
        *next += step;
        return (double)step;
    }
    return len > hl ? 1.0 : 0.0;
}

int wpart_i_rg_banded(const wpart_rg_csr_t *A, int64_t P, int64_t Q, int64_t shift)
{
    int64_t n1 = A->n1, n2 = A->n2, PQ = P * Q, nnz = A->rp[n1];
    int64_t K = (int64_t)sqrt((double)PQ); /* ceil(sqrt(P Q)), exact */
    while (K * K < PQ) {
        K++;
    }
    while (K > 1 && (K - 1) * (K - 1) >= PQ) {
        K--;
    }
    int64_t step = n1 / RG_BAND_ROWS > 1 ? n1 / RG_BAND_ROWS : 1;
    __int128 half = (__int128)n1 * n2;
    /* the sampled rows (every step-th, each standing for step rows), and every other row of
     * more than RG_BAND_HEAVY x the mean count of entries, for itself: an arrow's few dense
     * rows, which a sample misses (its dense columns show in every sampled row) */
    /* |d| <= (2 n1 + |shift|) n2 and 2 K <= 2 (n1 + n2): the test in int64 where that
     * product fits (the same answers) */
    __int128 as = shift < 0 ? -(__int128)shift : shift;
    int small = (2 * (__int128)n1 + as) * n2 * 2 * ((__int128)n1 + n2) < ((__int128)1 << 62);
    /* a row is heavy where len n1 > RG_BAND_HEAVY nnz, in doubles as before, read as len >
     * hl: the largest len that is not heavy (found once; len n1 grows with len) */
    int64_t hl = (int64_t)(RG_BAND_HEAVY * (double)nnz / (double)n1);
    while (hl > 0 && (double)hl * (double)n1 > RG_BAND_HEAVY * (double)nnz) {
        hl--;
    }
    while ((double)(hl + 1) * (double)n1 <= RG_BAND_HEAVY * (double)nnz) {
        hl++;
    }
    /* the weighted count of the rows the test reads (a pass over the row pointers): a test
     * that cannot pass stops early, where the entries away from the diagonal so far already
     * leave fewer than RG_BAND of them near it whatever the rest hold (sums of integers below
     * 2**52, exact: the same answer as the whole pass) */
    double total = 0.0;
    for (int64_t i = 0, next = step / 2; i < n1; i++) {
        int64_t len = A->rp[i + 1] - A->rp[i];
        total += rg_band_weight(i, &next, step, len, hl) * (double)len;
    }
    double need = RG_BAND * total;
    int early = total < 4503599627370496.0; /* 2**52 */
    double fnear = 0.0, fall = 0.0;
    for (int64_t i = 0, next = step / 2; i < n1; i++) {
        int64_t len = A->rp[i + 1] - A->rp[i];
        double wgt = rg_band_weight(i, &next, step, len, hl);
        if (wgt == 0.0) {
            continue;
        }
        if (early && total - (fall - fnear) < need) {
            return 0;
        }
        int64_t c = 0;
        if (small) {
            int64_t a = (i + shift) * n2, h = (int64_t)half, k2 = 2 * K;
            for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
                int64_t d = a - A->ci[e] * n1;
                c += k2 * (d < 0 ? -d : d) <= h;
            }
        } else {
            for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
                __int128 d = (__int128)(i + shift) * n2 - (__int128)A->ci[e] * n1;
                c += 2 * (__int128)K * (d < 0 ? -d : d) <= half;
            }
        }
        fnear += wgt * (double)c;
        fall += wgt * (double)len;
    }
    return fall > 0.0 && fnear >= RG_BAND * fall;
}

/* wpart_i_rg_offset: of a square matrix, the entries of RG_OFFSET_ROWS evenly spaced rows (all
 * rows when fewer); where at least twice as many of those off the diagonal lie on one side of
 * it as on the other, the lower median of their j - i (a selection among the sampled entries:
 * memory and time in their number, not in n) when at most n / 3 in size, else 0. (With more
 * than 3/4 of them, the first rule, four bands from 100 below to 40 above the diagonal,
 * 20 / 50, 60 / 150, 90 / 30 -- 71-75 % on one side -- kept the plain diagonal start; with
 * this rule the default's max loads there at 4 x 4 - 32 x 32 went lower in 16 of 20 cases, by
 * up to 5.1 %, and higher in 2, by at most 1 %, and none of the 484 of bench_spatial_fresh's
 * three sets and SARMA's five test files changed: the two matrices that cross, Chebyshev1 at
 * 75 % and h_arrow_2600 at 74 %, end at the same max loads. SARMA's bayer05 sits at 59 %,
 * random-order matrices at 50-57 %) */
#ifndef RG_OFFSET_ROWS
#define RG_OFFSET_ROWS 256
#endif
/* the k-th smallest (from 0) of the m values of a (reordered): Hoare's selection, the pivot
 * the median of the first, middle and last values; O(m) expected, no allocation */
static int64_t rg_select(int64_t *a, int64_t m, int64_t k)
{
    int64_t lo = 0, hi = m - 1;
    while (lo < hi) {
        int64_t x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi];
        int64_t piv = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < piv) {
                i++;
            }
            while (a[j] > piv) {
                j--;
            }
            if (i <= j) {
                int64_t t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (k <= j) {
            hi = j;
        } else if (k >= i) {
            lo = i;
        } else {
            return a[k];
        }
    }
    return a[k];
}

int64_t wpart_i_rg_offset(const wpart_rg_csr_t *A)
{
    int64_t n = A->n1, below = 0, above = 0;
    if (n != A->n2 || n < 2 || A->rp[n] == 0) {
        return 0;
    }
    int64_t step = n / RG_OFFSET_ROWS > 1 ? n / RG_OFFSET_ROWS : 1;
    for (int64_t i = step / 2; i < n; i += step) {
        for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
            below += A->ci[e] < i;
            above += A->ci[e] > i;
        }
    }
    int64_t side = below > above ? below : above;
    if (side == 0 || side < 2 * (below + above - side)) {
        return 0;
    }
    int64_t all = 0, k = 0;
    for (int64_t i = step / 2; i < n; i += step) {
        all += A->rp[i + 1] - A->rp[i];
    }
    int64_t *d = wpart_i_malloc(all, sizeof(int64_t));
    if (!d) {
        return 0; /* (no memory for the offsets: the plain diagonal) */
    }
    for (int64_t i = step / 2; i < n; i += step) {
        for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
            d[k++] = A->ci[e] - i;
        }
    }
    int64_t s = rg_select(d, all, (all - 1) / 2); /* the lower median */
    free(d);
    /* a band (a DAG in topological order: n / 4) keeps the shifted diagonal mostly inside the
     * matrix; entries spread over one side (SARMA's bayer05 without its explicit zeros, 3.3 x as
     * many below as above: the median at -0.46 n) are no band: the plain diagonal */
    return 3 * (s < 0 ? -s : s) > n ? 0 : s;
}

/* wpart_i_rg_corner: of a rectangular matrix, the entries of RG_CORNER_ROWS evenly spaced rows
 * (all rows when fewer); whether the correlation of their (i + 1/2) / n1 and (j + 1/2) / n2 is
 * at least RG_CORNER (about 1 on a band, 0.64-0.67 with a third of its entries anywhere;
 * within 0.07 of 0 on bench_spatial_fresh's four rectangular matrices, power-law and clustered,
 * whose rows and columns are in random order) and they lie nearer the diagonal from corner to
 * corner than the one from (0, 0) at 45 degrees: the sum of |j - i n2 / n1| below that of
 * |j - i| (a square matrix's rows cut to a part, tests/test_spatial_rect_nicol_ceiling.py's
 * 3D-grid slices, lie along the second) */
#ifndef RG_CORNER
#define RG_CORNER 0.5
#endif
/* (64 rows: a correlation of 1 on a band against 0 +- 0.07 on random order needs no more; with
 * 256, every row of h_clust_400x1600, the test was 7 % of its default call at 4 x 4) */
#ifndef RG_CORNER_ROWS
#define RG_CORNER_ROWS 64
#endif
int wpart_i_rg_corner(const wpart_rg_csr_t *A)
{
    int64_t n1 = A->n1, n2 = A->n2;
    if (n1 == n2 || n1 < 2 || n2 < 2) {
        return 0;
    }
    int64_t step = n1 / RG_CORNER_ROWS > 1 ? n1 / RG_CORNER_ROWS : 1;
    /* the correlation of i and j (that of (i + 1/2) / n1 and (j + 1/2) / n2: a shift and a
     * scale of each), a row's sums of j and j^2 first, then its i times those */
    double k = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0, dc = 0.0, dp = 0.0;
    double r = (double)n2 / (double)n1;
    for (int64_t i = step / 2; i < n1; i += step) {
        double x = (double)i, xr = x * r, ry = 0.0, ryy = 0.0, c = 0.0, p = 0.0;
        for (int64_t e = A->rp[i]; e < A->rp[i + 1]; e++) {
            double y = (double)A->ci[e];
            ry += y;
            ryy += y * y;
            c += fabs(y - xr);
            p += fabs(y - x);
        }
        double len = (double)(A->rp[i + 1] - A->rp[i]);
        k += len;
        sx += len * x;
        sxx += len * x * x;
        sy += ry;
        syy += ryy;
        sxy += x * ry;
        dc += c;
        dp += p;
    }
    double vx = k * sxx - sx * sx, vy = k * syy - sy * sy, cxy = k * sxy - sx * sy;
    return k > 1.0 && vx > 0.0 && vy > 0.0 && cxy >= RG_CORNER * sqrt(vx * vy) && dc < dp;
}

/* line k of a dimension of n lines at index k N / n of the diagonal's N = max(n1, n2) indices
 * (k itself where n = N), and the lines before index x: x, or ceil(x n / N) */
static inline int64_t rf_at(int64_t k, int64_t n, int64_t N)
{
    return n == N ? k : (int64_t)((__int128)k * N / n);
}

static inline int64_t rf_before(int64_t x, int64_t n, int64_t N)
{
    return n == N || x <= 0 ? x : (int64_t)(((__int128)x * n + N - 1) / N);
}

/* wpart_i_rect_diagonal (rect_polish.h). Index i holds row i and column i; with the offset s
 * row i and column i + s; on a rectangular matrix whose entries follow the diagonal from
 * corner to corner the shorter dimension's line k sits at index k N / n, N = max(n1, n2): the
 * diagonal the banded test reads (on a band of 1,000 x 3,000 the default's max load at 4 x 4
 * 2,870 -> 2,136, at 8 x 32 413 -> 388) */
void wpart_i_rect_diagonal(int64_t n1, int64_t n2, int64_t P, int64_t Q, const double *rl,
                           const double *cl, int64_t s, int corner, int integral, double *v,
                           double *X, int64_t *tmp, int64_t *R, int64_t *C)
{
    int64_t N = n1 > n2 ? n1 : n2;
    int64_t m1 = corner ? n1 : N, m2 = corner ? n2 : N; /* (N: line k at index k) */
    int64_t K = P + Q - 1;
    int64_t *b = tmp + K + 1;
    /* index t of v: row t + lo, column t + lo + s (lo = min(0, -s): every line counted) */
    int64_t lo = s < 0 ? 0 : -s, M = N + (s < 0 ? -s : s);
    memset(v, 0, (size_t)M * sizeof(double));
    for (int64_t i = 0; i < n1; i++) { /* (rows first, then columns: the engine's sums) */
        v[rf_at(i, m1, N) - lo] += rl[i];
    }
    for (int64_t j = 0; j < n2; j++) {
        v[rf_at(j, m2, N) - lo - s] += cl[j];
    }
    wpart_i_rect_1d(v, M, K, b, X, tmp, integral);
    int64_t nr = 0, nc = 0;
    R[0] = C[0] = 0;
    for (int64_t j = 1; j < K; j++) {
        if (nr < P - 1 && (nr * (Q - 1) <= nc * (P - 1) || nc >= Q - 1)) {
            R[++nr] = rf_before(b[j] + lo, m1, N);
        } else {
            C[++nc] = rf_before(b[j] + lo + s, m2, N);
        }
    }
    R[P] = n1;
    C[Q] = n2;
    for (int64_t p = 0; p <= P; p++) {
        R[p] = R[p] < 0 ? 0 : R[p] < n1 ? R[p] : n1;
    }
    for (int64_t q = 0; q <= Q; q++) {
        C[q] = C[q] < 0 ? 0 : C[q] < n2 ? C[q] : n2;
    }
}
