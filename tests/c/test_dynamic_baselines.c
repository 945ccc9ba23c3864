/* test_dynamic_baselines.c -- the baselines of wpart.dynamic at the C level: a scripted event
 * loop (per-PU FIFO queues, evaluations that hold every PU) checks exactly-once coverage of
 * every baseline on random instances, HDSS's weights by hand, and argument errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wtest.h"

#define MAXEV 4096

typedef struct {
    double t;
    int64_t seq;
    int is_eval;
    int32_t pu;
    int64_t id; /* block id or token */
    double start;
} ev_t;

typedef struct {
    ev_t ev[MAXEV];
    int n;
    int64_t seq;
} queue_t;

static void qpush(queue_t *q, ev_t e)
{
    if (q->n >= MAXEV) {
        fprintf(stderr, "event queue overflow\n");
        exit(2);
    }
    e.seq = q->seq++;
    q->ev[q->n++] = e;
}

static ev_t qpop(queue_t *q)
{
    int best = 0;
    for (int i = 1; i < q->n; i++) {
        if (q->ev[i].t < q->ev[best].t ||
            (q->ev[i].t == q->ev[best].t && q->ev[i].seq < q->ev[best].seq)) {
            best = i;
        }
    }
    ev_t e = q->ev[best];
    q->ev[best] = q->ev[--q->n];
    return e;
}

/* Runs b with affine truths t0 + x / r; returns the makespan, or -1 on a protocol error.
 * cover[] (size total) counts how often each element was dispatched. */
static double drive(wpart_dynamic_balancer_t *b, const double *t0, const double *r, double c_eval,
                    int *cover)
{
    static queue_t q;
    int32_t n = wpart_dynamic_balancer_n_pu(b);
    int64_t cap = wpart_dynamic_balancer_max_actions(b);
    wpart_dynamic_action_t *buf = calloc((size_t)cap, sizeof *buf);
    double *free_at = calloc((size_t)n, sizeof(double));
    wpart_dynamic_actions_t acts = {buf, 0, cap};
    double mk = 0.0, now = 0.0;
    memset(&q, 0, sizeof q);
    if (wpart_dynamic_balancer_start(b, 0.0, &acts) != WPART_OK) {
        mk = -1;
        goto out;
    }
    for (;;) {
        for (int64_t i = 0; i < acts.n; i++) {
            const wpart_dynamic_action_t *a = &acts.a[i];
            if (a->kind == WPART_DYN_ACT_EVAL) {
                CHECK(a->trigger_pu == -1);
                CHECK(wpart_dynamic_balancer_eval_run(b, a->token) == WPART_OK);
                qpush(&q, (ev_t){now + c_eval, 0, 1, -1, a->token, now});
                continue;
            }
            const wpart_dynamic_assign_t *s = &a->a;
            for (int64_t k = s->offset; k < s->offset + s->size; k++) {
                cover[k]++;
            }
            double st = now > free_at[s->pu] ? now : free_at[s->pu];
            double end = st + t0[s->pu] + (double)s->size / r[s->pu];
            free_at[s->pu] = end;
            qpush(&q, (ev_t){end, 0, 0, s->pu, s->block_id, st});
        }
        if (q.n == 0) {
            break;
        }
        ev_t e = qpop(&q);
        now = e.t;
        wpart_status_t st;
        if (e.is_eval) {
            st = wpart_dynamic_balancer_eval_done(b, e.id, now, &acts);
        } else {
            mk = now > mk ? now : mk;
            wpart_dynamic_completion_t c = {e.pu, e.id, 0.0, now - e.start, now};
            st = wpart_dynamic_balancer_complete(b, &c, &acts);
        }
        if (st != WPART_OK) {
            fprintf(stderr, "protocol error: %s\n", wpart_last_error());
            mk = -1;
            break;
        }
    }
out:
    free(buf);
    free(free_at);
    return mk;
}

static int64_t rint_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

static void check_run(wpart_dynamic_balancer_t *b, int64_t total, const double *t0,
                      const double *r)
{
    int *cover = calloc((size_t)total, sizeof(int));
    double mk = drive(b, t0, r, 0.1, cover);
    CHECK(mk >= 0);
    int bad = 0;
    for (int64_t k = 0; k < total; k++) {
        bad += cover[k] != 1;
    }
    if (bad) {
        fprintf(stderr, "%s: %d elements not dispatched exactly once (total %lld)\n",
                wpart_dynamic_balancer_name(b), bad, (long long)total);
    }
    CHECK(bad == 0);
    CHECK(wpart_dynamic_balancer_done(b));
    free(cover);
    wpart_dynamic_balancer_free(b);
}

static void test_exactly_once(void)
{
    for (int it = 0; it < 40; it++) {
        int32_t n = (int32_t)rint_in(1, 6);
        int64_t total = rint_in(1, it % 3 == 0 ? 50 : 30000);
        double t0[6], r[6], times[6], w[6];
        int32_t kinds[6];
        int64_t blocks[6];
        for (int32_t p = 0; p < n; p++) {
            t0[p] = (double)rint_in(0, 100) / 1000.0;
            r[p] = (double)rint_in(1, 500);
            times[p] = 1.0 / r[p] + 0.001;
            w[p] = (double)rint_in(0, 3);
            kinds[p] = (int32_t)rint_in(0, 2);
            blocks[p] = rint_in(0, 90);
        }
        w[0] += 1.0;
        blocks[n - 1] += 1;
        wpart_dynamic_balancer_t *b = NULL;
        wpart_dynamic_hdss_cfg_t c;
        wpart_dynamic_hdss_cfg_default(&c);
        c.x_init = rint_in(1, 64);
        c.min_chunk = rint_in(1, 32);
        CHECK_STATUS(wpart_dynamic_hdss_new(n, total, &c, &b), WPART_OK);
        check_run(b, total, t0, r);
        CHECK_STATUS(wpart_dynamic_acosta_new(n, total, rint_in(n, n + 300), 0.05, (int)(it & 1), &b),
                     WPART_OK);
        check_run(b, total, t0, r);
        CHECK_STATUS(wpart_dynamic_naive_new(n, total, rint_in(1, 100), &b), WPART_OK);
        check_run(b, total, t0, r);
        CHECK_STATUS(wpart_dynamic_asymmetric_new(n, total, kinds, rint_in(1, 40), 8, &b), WPART_OK);
        check_run(b, total, t0, r);
        CHECK_STATUS(wpart_dynamic_static_peak_new(n, total, w, &b), WPART_OK);
        check_run(b, total, t0, r);
        CHECK_STATUS(wpart_dynamic_dmda_new(n, total, times, rint_in(1 + total / 1000, 200 + total / 1000), &b),
                     WPART_OK);
        check_run(b, total, t0, r);
        CHECK_STATUS(wpart_dynamic_fixed_blocks_new(n, total, blocks, (int)(it & 1), &b), WPART_OK);
        check_run(b, total, t0, r);
    }
}

static void test_hdss_by_hand(void)
{
    /* rates 10 and 2.5 el/s, no intercept: both converge after round 2, weights 0.8 / 0.2 */
    wpart_dynamic_hdss_cfg_t c;
    wpart_dynamic_hdss_cfg_default(&c);
    c.x_init = 10;
    c.min_chunk = 1;
    wpart_dynamic_balancer_t *b = NULL;
    CHECK_STATUS(wpart_dynamic_hdss_new(2, 1000000, &c, &b), WPART_OK);
    double t0[2] = {0, 0}, r[2] = {10.0, 2.5}, w[2];
    CHECK(wpart_dynamic_hdss_weights(b, w) == 1);
    int *cover = calloc(1000000, sizeof(int));
    CHECK(drive(b, t0, r, 0.1, cover) > 0);
    CHECK(wpart_dynamic_hdss_weights(b, w) == 0);
    CHECK(fabs(w[0] - 0.8) < 1e-12 && fabs(w[1] - 0.2) < 1e-12);
    double sh[2];
    CHECK(wpart_dynamic_balancer_shares(b, sh) == 0);
    CHECK(fabs(sh[0] - 80.0) < 1e-9);
    wpart_dynamic_balancer_stats_t s;
    wpart_dynamic_balancer_stats(b, &s);
    CHECK(s.n_barriers == 2 && s.n_evals == 1);
    free(cover);
    wpart_dynamic_balancer_free(b);
}

static void test_split_and_errors(void)
{
    double w[4] = {1, 1, 1, 0};
    int64_t out[4];
    CHECK_STATUS(wpart_dynamic_split_proportional(4, 10, w, out), WPART_OK);
    CHECK(out[0] == 4 && out[1] == 3 && out[2] == 3 && out[3] == 0);
    CHECK_STATUS(wpart_dynamic_split_proportional(4, INT64_MAX, w, out), WPART_OK);
    CHECK(out[3] == 0 && out[0] >= out[1] && out[0] + out[1] == INT64_MAX - out[2]);
    w[0] = -1;
    CHECK_STATUS(wpart_dynamic_split_proportional(4, 10, w, out), WPART_EINVAL);
    wpart_dynamic_balancer_t *b = (wpart_dynamic_balancer_t *)1;
    wpart_dynamic_hdss_cfg_t c;
    wpart_dynamic_hdss_cfg_default(&c);
    c.kappa = 0;
    CHECK_STATUS(wpart_dynamic_hdss_new(2, 10, &c, &b), WPART_EINVAL);
    CHECK(b == NULL);
    CHECK_STATUS(wpart_dynamic_acosta_new(3, 10, 2, 0.05, 0, &b), WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_naive_new(0, 10, 5, &b), WPART_EINVAL);
    int32_t kinds[2] = {0, 5};
    CHECK_STATUS(wpart_dynamic_asymmetric_new(2, 10, kinds, 4, 8, &b), WPART_EINVAL);
    double zero[2] = {0, 0};
    CHECK_STATUS(wpart_dynamic_static_peak_new(2, 10, zero, &b), WPART_EINVAL);
    CHECK_STATUS(wpart_dynamic_dmda_new(2, 10, zero, 4, &b), WPART_EINVAL);
    double one[1] = {1.0};
    CHECK_STATUS(wpart_dynamic_dmda_new(1, INT64_MAX, one, 1, &b), WPART_ELIMIT);
    int64_t blocks[2] = {0, 0};
    CHECK_STATUS(wpart_dynamic_fixed_blocks_new(2, 10, blocks, 0, &b), WPART_EINVAL);
}

int main(void)
{
    test_exactly_once();
    test_hdss_by_hand();
    test_split_and_errors();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_dynamic_baselines: OK\n");
    return 0;
}
