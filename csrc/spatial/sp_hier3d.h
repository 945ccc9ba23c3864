/* sp_hier3d.h -- HIER-RB on 3D loads (extension).
 * Part of the spatial template (see spatial_tmpl.h): compiled once per element type T.
 */

typedef struct {
    const T *S;
    int64_t d1, d2; /* strides: S[i][j][k] = S[i*d1 + j*d2 + k] */
    int64_t *out;
    int64_t nout;
    int rule;
} FN(h3_t);

static inline T FN(load3)(const FN(h3_t) *h, const int64_t *b)
{
    const T *S = h->S;
    int64_t d1 = h->d1, d2 = h->d2;
    T x = S[b[1] * d1 + b[3] * d2 + b[5]] - S[b[0] * d1 + b[3] * d2 + b[5]] -
          S[b[1] * d1 + b[2] * d2 + b[5]] - S[b[1] * d1 + b[3] * d2 + b[4]] +
          S[b[0] * d1 + b[2] * d2 + b[5]] + S[b[0] * d1 + b[3] * d2 + b[4]] +
          S[b[1] * d1 + b[2] * d2 + b[4]] - S[b[0] * d1 + b[2] * d2 + b[4]];
#if !IS_INT
    if (x < 0) {
        x = 0;
    }
#endif
    return x;
}

static void FN(h3_emit)(FN(h3_t) *h, const int64_t *b)
{
    memcpy(h->out + 6 * h->nout++, b, 6 * sizeof(int64_t));
}

static void FN(h3_rec)(FN(h3_t) *h, const int64_t *b, int64_t q)
{
    int64_t ext[3] = {b[1] - b[0], b[3] - b[2], b[5] - b[4]};
    int64_t vol = ext[0] * ext[1] * ext[2];
    if (q == 1) {
        FN(h3_emit)(h, b);
        return;
    }
    if (vol < q) {
        int64_t k = 0, c[6];
        for (int64_t i = b[0]; i < b[1]; i++) {
            for (int64_t j = b[2]; j < b[3]; j++) {
                for (int64_t l = b[4]; l < b[5]; l++) {
                    c[0] = i, c[1] = i + 1, c[2] = j, c[3] = j + 1, c[4] = l, c[5] = l + 1;
                    FN(h3_emit)(h, c);
                    k++;
                }
            }
        }
        c[0] = c[1] = b[0], c[2] = c[3] = b[2], c[4] = c[5] = b[4];
        for (; k < q; k++) {
            FN(h3_emit)(h, c);
        }
        return;
    }
    int got = 0, bd = 0;
    int64_t bq1 = 0, bc = 0, bden = 1;
    T bn = 0;
    int longest = ext[1] > ext[0] ? 1 : 0;
    longest = ext[2] > ext[longest] ? 2 : longest;
    for (int64_t delta = 0; delta < q && !got; delta++) {
        for (int side = 0; side < 2; side++) {
            int64_t q1 = side == 0 ? q / 2 - delta : q - q / 2 + delta;
            if (q1 < 1 || q1 >= q || (delta == 0 && side == 1 && q % 2 == 0)) {
                continue;
            }
            int64_t q2 = q - q1;
            for (int d = 0; d < 3; d++) {
                if (h->rule == WPART_SP_DIST && d != longest && delta == 0) {
                    continue;
                }
                int64_t w = vol / ext[d];
                if (ext[d] < 2) {
                    continue;
                }
                int64_t lo = b[2 * d] + (q1 + w - 1) / w, hi = b[2 * d + 1] - (q2 + w - 1) / w;
                if (lo > hi) {
                    continue;
                }
                int64_t x1[6], x2[6];
                memcpy(x1, b, sizeof x1);
                memcpy(x2, b, sizeof x2);
                int64_t a = lo, e = hi;
                while (a < e) {
                    int64_t mid = a + (e - a) / 2;
                    x1[2 * d + 1] = mid;
                    x2[2 * d] = mid;
                    if (!FN(frac_lt)(FN(load3)(h, x1), q1, FN(load3)(h, x2), q2)) {
                        e = mid;
                    } else {
                        a = mid + 1;
                    }
                }
                for (int64_t c = a > lo ? a - 1 : a; c <= a; c++) {
                    x1[2 * d + 1] = c;
                    x2[2 * d] = c;
                    T L1 = FN(load3)(h, x1), L2 = FN(load3)(h, x2);
                    T n;
                    int64_t dn;
                    if (FN(frac_lt)(L1, q1, L2, q2)) {
                        n = L2;
                        dn = q2;
                    } else {
                        n = L1;
                        dn = q1;
                    }
                    if (!got || FN(frac_lt)(n, dn, bn, bden)) {
                        got = 1;
                        bd = d;
                        bq1 = q1;
                        bc = c;
                        bn = n;
                        bden = dn;
                    }
                }
            }
        }
    }
    int64_t x1[6], x2[6];
    memcpy(x1, b, sizeof x1);
    memcpy(x2, b, sizeof x2);
    x1[2 * bd + 1] = bc;
    x2[2 * bd] = bc;
    FN(h3_rec)(h, x1, bq1);
    FN(h3_rec)(h, x2, q - bq1);
}

static wpart_status_t FN(hier_rb3d)(const T *S, int64_t n1, int64_t n2, int64_t n3, int64_t m,
                                    int rule, int64_t *boxes)
{
    FN(h3_t) h;
    h.S = S;
    h.d2 = n3 + 1;
    h.d1 = (n2 + 1) * (n3 + 1);
    h.out = boxes;
    h.nout = 0;
    h.rule = rule;
    int64_t b[6] = {0, n1, 0, n2, 0, n3};
    FN(h3_rec)(&h, b, m);
    return WPART_OK;
}
