/*
 * plbhac_change.c -- PLB-HAC's change detection (option change_ratio): a PU whose blocks take
 * a different time than its model predicts (a completed block, or one still running past
 * change_ratio times its expected duration) has its older samples carried to the new level,
 * so the next evaluation sees the change at once (Sec. 5.4 and Fig. 6 of [Sant'Ana 2017]).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plbhac_internal.h"

static wpart_status_t rescale_samples(plb_t *s, int32_t p, int64_t m, double r);

/* 1 if one of the last 8 of PU p's first m samples is within a factor 2 of size: the model
 * then rests on nearby samples and a large error is evidence of a change, not of the shape. */
static int near_samples(const plb_t *s, int32_t p, int64_t m, int64_t size)
{
    for (int64_t i = m - 1; i >= 0 && i >= m - 8; i--) {
        int64_t x = s->sx[p][i];
        if (x <= 2 * size && size <= 2 * x) {
            return 1;
        }
    }
    return 0;
}

/* change_ratio: a regular block still running after change_ratio times its expected duration
 * shows that its PU slowed down by at least elapsed / expected; the PU's samples are carried
 * to that level before the evaluation reads them (checked when an evaluation is issued). */
wpart_status_t wpart_i_plb_late_blocks(plb_t *s, double now)
{
    wpart_status_t st = WPART_OK;
    double cr = s->cfg.change_ratio;
    if (!(cr > 1.0) || s->hec || s->version == 0) {
        return WPART_OK;
    }
    for (int32_t w = 0; w < s->base.n; w++) {
        double d = s->cur_dur[w], el = now - s->cur_t0[w];
        if (s->cur_blk[w] < 0 || s->cur_kind[w] != WPART_DYN_BLK_REGULAR || !(d > 0.0) ||
            !(el > cr * d) || s->ns[w] < 2) {
            continue;
        }
        if (!near_samples(s, w, s->ns[w], s->base.blk[s->cur_blk[w]].size)) {
            continue;
        }
        double r = el / d;
        WPART_CHECK(rescale_samples(s, w, s->ns[w], r));
        s->cur_dur[w] = el;
    }
cleanup:
    return st;
}


/* change_ratio: a regular or gap block of a size near the PU's recent ones (near_samples)
 * whose compute time differs
 * from the published model by more than the factor carries the PU's older samples to the new
 * level (their compute times are multiplied by the observed ratio), so the next evaluation
 * sees the change at once instead of averaging it with every older sample (Sec. 5.4: "PLB-HAC
 * detects that executions at GPU A are taking longer"). */
wpart_status_t wpart_i_plb_detect_change(plb_t *s, int32_t p, int32_t kind, int64_t size,
                                    double t_comp, int *changed)
{
    double cr = s->cfg.change_ratio;
    *changed = 0;
    if (!(cr > 1.0) || s->version == 0 || kind == WPART_DYN_BLK_TRAIN || s->ns[p] < 2) {
        return WPART_OK;
    }
    const wpart_dynamic_model_t *md = &s->models[p];
    if (!md->valid || !near_samples(s, p, s->ns[p] - 1, size)) {
        return WPART_OK; /* no recent sample of a similar size: no evidence */
    }
    double f = wpart_dynamic_model_eval_comp(md, (double)size) * s->lvl[p];
    double r = f > 0.0 ? t_comp / f : 1.0;
    if (!(isfinite(r) && r > 0.0) || (r <= cr && r >= 1.0 / cr)) {
        return WPART_OK;
    }
    *changed = 1;
    return rescale_samples(s, p, s->ns[p] - 1, r);
}

/* Multiplies the compute times of the first m samples of PU p by r. */
static wpart_status_t rescale_samples(plb_t *s, int32_t p, int64_t m, double r)
{
    wpart_status_t st = WPART_OK;
    for (int64_t i = 0; i < m; i++) {
        s->stc[p][i] *= r;
    }
    s->lvl[p] *= r;
    s->resc[p] = 1;
    s->n_changes++;
#ifdef WPART_FIT_INC_H /* the incremental fit state is rebuilt from the rescaled samples */
    if (s->cfg.fit.window == 0) {
        wpart_i_fitinc_free(&s->fi[p]);
        wpart_i_fitinc_init(&s->fi[p]);
        for (int64_t k = 1; k <= s->ns[p]; k++) {
            WPART_CHECK(wpart_i_fitinc_push(&s->fi[p], &s->cfg.fit, s->sx[p], s->stc[p],
                                            s->stx[p], k));
        }
    }
#endif
cleanup:
    return st;
}
