/* rect_shift.c -- the SGO's block loads kept from one iteration to the next (rect_polish_i.h):
 * the lines that change stripe move their entries between the blocks, a heavy line (more than
 * RP_HEAVY_X K entries; integral loads) as its loads per stripe of the other dimension. Used by
 * the SGO (rect_sgo.c) and the SGO kick (rect_kick.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rect_polish_i.h"

int64_t wpart_i_rp_shift(rp_t *s, int d, const int64_t *nc)
{
    const rg_side_t *sd = &s->side[d];
    const int32_t *om = s->map[1 - d];
    int64_t K = s->K[d], Ko = s->K[1 - d], moved = 0;
    rp_heavy_t *h = s->hv;
    for (int64_t k = 1; k < K; k++) {
        int64_t a = s->cut[d][k] < nc[k] ? s->cut[d][k] : nc[k];
        int64_t b = s->cut[d][k] < nc[k] ? nc[k] : s->cut[d][k];
        for (int64_t i = a; i < b; i++) {
            if (WPART_UNLIKELY(rg_cancel(s->ctl, &s->work, sd->ptr[i + 1] - sd->ptr[i] + 1))) {
                s->stop = 1; /* (the loads unfinished: the caller stops, rp_stopped) */
                return moved;
            }
            int64_t p = k; /* the stripe of line i under the new cuts */
            while (p > 0 && i < nc[p]) {
                p--;
            }
            while (p + 1 < K && i >= nc[p + 1]) {
                p++;
            }
            int64_t p0 = s->map[d][i];
            if (p == p0) {
                continue;
            }
            int32_t sl = h ? h->slot[d][i] : -1;
            if (sl >= 0) { /* a heavy line: its loads per stripe, the heavy other lines' V */
                const double *v = h->V[d] + (int64_t)sl * Ko;
                for (int64_t q = 0; q < Ko; q++) {
                    if (v[q] != 0.0) {
                        *rp_at(s, d, p0, q) -= v[q];
                        *rp_at(s, d, p, q) += v[q];
                    }
                }
                double *Vo = h->V[1 - d];
                const int32_t *so = h->slot[1 - d];
                for (int64_t e = h->hp[d][sl]; e < h->hp[d][sl + 1]; e++) {
                    double w = h->hw[d] ? h->hw[d][e] : 1.0;
                    double *vo = Vo + (int64_t)so[h->hx[d][e]] * K;
                    vo[p0] -= w;
                    vo[p] += w;
                }
            } else { /* a light line: its entries (and the V of heavy other lines). A run of
                      * entries in one stripe q is moved in two registers, in entry order from
                      * the blocks as they were: the same sums bit for bit, without a
                      * store-to-load wait per entry */
                double *Vo = h ? h->V[1 - d] : NULL;
                const int32_t *so = h ? h->slot[1 - d] : NULL;
                double *L0 = rp_at(s, d, p0, 0), *L1 = rp_at(s, d, p, 0), a0 = 0.0, a1 = 0.0;
                int64_t st = d == 0 ? 1 : s->K[1];
                int32_t pq = -1; /* the run's stripe */
                for (int64_t e = sd->ptr[i]; e < sd->ptr[i + 1]; e++) {
                    double w = sd->w ? sd->w[e] : 1.0;
                    int64_t j = sd->idx[e];
                    int32_t q = om[j];
                    if (q != pq) {
                        if (pq >= 0) {
                            L0[pq * st] = a0;
                            L1[pq * st] = a1;
                        }
                        pq = q;
                        a0 = L0[q * st];
                        a1 = L1[q * st];
                    }
                    a0 -= w;
                    a1 += w;
                    if (so && so[j] >= 0) {
                        Vo[(int64_t)so[j] * K + p0] -= w;
                        Vo[(int64_t)so[j] * K + p] += w;
                    }
                }
                if (pq >= 0) {
                    L0[pq * st] = a0;
                    L1[pq * st] = a1;
                }
            }
            moved += sd->ptr[i + 1] - sd->ptr[i]; /* (the entries the line holds, either way) */
            s->map[d][i] = (int32_t)p;
        }
    }
    memcpy(s->cut[d], nc, (size_t)(K + 1) * sizeof(int64_t));
    return moved;
}

/* line i of side sd is heavy when it holds more than RP_HEAVY_X x the other dimension's parts
 * and more than RP_HEAVY_MIN entries (rect_polish_i.h) */
static inline int rp_heavy_line(const rg_side_t *sd, int64_t i, int64_t Ko)
{
    int64_t e = sd->ptr[i + 1] - sd->ptr[i];
    return e > RP_HEAVY_X * Ko && e > RP_HEAVY_MIN;
}

void wpart_i_rp_heavy_free(rp_t *s)
{
    rp_heavy_t *h = s->hv;
    if (h) {
        for (int d = 0; d < 2; d++) {
            free(h->slot[d]);
            free(h->V[d]);
            free(h->hp[d]);
            free(h->hx[d]);
            free(h->hw[d]);
        }
        free(h);
    }
    s->hv = NULL;
}

wpart_status_t wpart_i_rp_heavy(rp_t *s)
{
    wpart_status_t st = WPART_OK;
    const rg_side_t *r = &s->side[0];
    int64_t nnz = r->ptr[r->n], nh = 0;
    rp_heavy_t *h = NULL;
    s->hv = NULL;
    if (!rg_integral(r->w, nnz)) {
        return WPART_OK;
    }
    if (r->w) { /* sums of integers below 2^52: exact in any order */
        double t = 0.0;
        for (int64_t e = 0; e < nnz; e++) {
            t += fabs(r->w[e]);
        }
        if (!(t < 4503599627370496.0)) {
            return WPART_OK;
        }
    }
    for (int d = 0; d < 2; d++) {
        const rg_side_t *sd = &s->side[d];
        for (int64_t i = 0; i < sd->n; i++) {
            nh += rp_heavy_line(sd, i, s->K[1 - d]);
        }
    }
    if (nh == 0) {
        return WPART_OK;
    }
    h = wpart_i_calloc(1, sizeof *h);
    if (!h) {
        WPART_FAIL(WPART_ENOMEM, "out of memory in the SGO's block loads");
    }
    s->hv = h;
    for (int d = 0; d < 2; d++) {
        const rg_side_t *sd = &s->side[d];
        h->slot[d] = wpart_i_malloc(sd->n > 0 ? sd->n : 1, sizeof(int32_t));
        if (!h->slot[d]) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in the SGO's block loads");
        }
        for (int64_t i = 0; i < sd->n; i++) {
            h->slot[d][i] = rp_heavy_line(sd, i, s->K[1 - d]) ? (int32_t)h->nh[d]++ : -1;
        }
    }
    for (int d = 0; d < 2; d++) {
        const rg_side_t *sd = &s->side[d];
        const int32_t *so = h->slot[1 - d];
        int64_t nd = h->nh[d], cnt = 0;
        h->V[d] = wpart_i_calloc(nd > 0 ? nd : 1, (size_t)s->K[1 - d] * sizeof(double));
        h->hp[d] = wpart_i_malloc(nd + 1, sizeof(int64_t));
        if (!h->V[d] || !h->hp[d]) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in the SGO's block loads");
        }
        for (int64_t i = 0; i < sd->n; i++) { /* the entries between two heavy lines */
            if (rg_cancel(s->ctl, &s->work, sd->ptr[i + 1] - sd->ptr[i] + 1)) {
                WPART_FAIL(WPART_ECANCELLED, "stopped on request");
            }
            if (h->slot[d][i] >= 0) {
                for (int64_t e = sd->ptr[i]; e < sd->ptr[i + 1]; e++) {
                    cnt += so[sd->idx[e]] >= 0;
                }
            }
        }
        h->hx[d] = wpart_i_malloc(cnt > 0 ? cnt : 1, sizeof(int64_t));
        h->hw[d] = sd->w ? wpart_i_malloc(cnt > 0 ? cnt : 1, sizeof(double)) : NULL;
        if (!h->hx[d] || (sd->w && !h->hw[d])) {
            WPART_FAIL(WPART_ENOMEM, "out of memory in the SGO's block loads");
        }
        cnt = 0;
        for (int64_t i = 0; i < sd->n; i++) {
            int32_t sl = h->slot[d][i];
            if (rg_cancel(s->ctl, &s->work, sd->ptr[i + 1] - sd->ptr[i] + 1)) {
                WPART_FAIL(WPART_ECANCELLED, "stopped on request");
            }
            if (sl < 0) {
                continue;
            }
            h->hp[d][sl] = cnt;
            for (int64_t e = sd->ptr[i]; e < sd->ptr[i + 1]; e++) {
                if (so[sd->idx[e]] >= 0) {
                    h->hx[d][cnt] = sd->idx[e];
                    if (sd->w) {
                        h->hw[d][cnt] = sd->w[e];
                    }
                    cnt++;
                }
            }
        }
        h->hp[d][nd] = cnt;
    }
cleanup:
    if (st != WPART_OK) {
        wpart_i_rp_heavy_free(s);
    }
    return st;
}
