/*
 * multikernel_sim.c -- simulated runs of multi-kernel computations [Soldado 2016] on the event queue of
 * wpart.dynamic's engine (event_loop.h, event types EV_MULTIKERNEL_* of sim_engine.h).
 *
 * One run: a split (one partition per execution: the overlap partitions of every GPU, then the
 * CPU sub-devices) goes through each GPU's copy engine and compute engine, and through the
 * CPU sub-devices, pass after pass of a Loop, with a global synchronisation between passes
 * when the Loop asks for one. These are handlers of their own event types (two engines per
 * GPU, a fixed split, a barrier between passes) registered with the one event loop of
 * event_loop.c, which also runs part 1's block protocol (sim.c): same queue, same (time,
 * insertion) order, same dispatch; no loop of its own.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "event_loop.h"
#include "internal.h"
#include "wpart/dynamic_sim.h"
#include "wpart/multikernel.h"
#include "wpart/rng.h"

/* The event types of a run: a GPU's copy engine finished an upload or a download of one of its
 * overlap partitions, its compute engine finished a partition's pass of the whole SCT, a CPU
 * sub-device finished its partition, a Loop's global synchronisation ended (host merge). */
enum { EV_MULTIKERNEL_UP_DONE = 0, EV_MULTIKERNEL_COMP_DONE = 1, EV_MULTIKERNEL_DOWN_DONE = 2,
       EV_MULTIKERNEL_CPU_DONE = 3, EV_MULTIKERNEL_BARRIER = 4 };
_Static_assert(EV_MULTIKERNEL_BARRIER < WPART_I_LOOP_TYPES, "event types fit the loop's table");

typedef struct {
    int32_t up_next;          /* next partition to upload in this pass */
    int32_t *cq, cq_h, cq_t;  /* compute queue (uploaded partitions) */
    int32_t *dq, dq_h, dq_t;  /* download queue (computed partitions) */
    int copy_busy, comp_busy;
    double copy_time, comp_time;
} gpu_t;

typedef struct {
    const wpart_multikernel_sim_t *in;
    wpart_i_loop_t loop; /* the engine's event loop (event_loop.h) */
    gpu_t *g;
    /* the two transfer paths of every GPU as part 1's device layer models them (one hop of
     * latency lat_x; bandwidth 1 with "bytes" in seconds: gpu_up / gpu_down per unit, the
     * COPY vectors as the setup of the first partition) */
    wpart_dynamic_device_t up, down;
    double *noise, *t_exec, *cpu_busy;
    int32_t E, pass, first_nonempty_set;
    int32_t *first; /* per GPU: its first non-empty partition (-1: idle GPU) */
    int64_t pending;
    double t_pass_end;
} multikernel_t;

static double up_dur(const multikernel_t *s, int32_t g, int32_t j)
{
    const wpart_multikernel_sim_t *in = s->in;
    int32_t e = g * in->overlap + j;
    int is_first = s->first[g] == j;
    if (s->pass == 0) {
        return wpart_dynamic_device_xfer(&s->up, (double)in->units[e], is_first);
    }
    /* later passes of a synchronised Loop: only the COPY vectors travel again */
    return is_first ? wpart_dynamic_device_xfer(&s->up, 0.0, 1) : 0.0;
}

static double comp_dur(const multikernel_t *s, int32_t g, int32_t j)
{
    const wpart_multikernel_sim_t *in = s->in;
    int32_t e = g * in->overlap + j;
    double passes = in->sync ? 1.0 : (double)in->iters;
    return (in->lat_k + (double)in->units[e] * in->gpu_comp[g]) * passes * s->noise[e];
}

static double down_dur(const multikernel_t *s, int32_t g, int32_t j)
{
    return wpart_dynamic_device_xfer(&s->down, (double)s->in->units[g * s->in->overlap + j], 0);
}

/* The copy engine of GPU g takes its next job: pending uploads first (all ready at the start
 * of the pass, so earlier than any download), then downloads in completion order. */
/* An engine of GPU g starts partition j at time t for d: busy (its flag *busy, its busy time
 * *time) until the event `type` at t + d. */
static wpart_status_t engine_start(multikernel_t *s, int32_t g, int32_t j, double t, double d,
                                   int *busy, double *time, int32_t type)
{
    *busy = 1;
    *time += d;
    return wpart_i_loop_push(&s->loop, t + d, type, g, j);
}

static wpart_status_t copy_next(multikernel_t *s, int32_t g, double t)
{
    gpu_t *u = &s->g[g];
    const int32_t k = s->in->overlap;
    while (u->up_next < k && s->in->units[g * k + u->up_next] == 0) {
        u->up_next++;
    }
    if (u->up_next < k) {
        int32_t j = u->up_next++;
        return engine_start(s, g, j, t, up_dur(s, g, j), &u->copy_busy, &u->copy_time,
                            EV_MULTIKERNEL_UP_DONE);
    }
    if (u->dq_h < u->dq_t) {
        int32_t j = u->dq[u->dq_h++];
        return engine_start(s, g, j, t, down_dur(s, g, j), &u->copy_busy, &u->copy_time,
                            EV_MULTIKERNEL_DOWN_DONE);
    }
    u->copy_busy = 0;
    return WPART_OK;
}

static wpart_status_t comp_next(multikernel_t *s, int32_t g, double t)
{
    gpu_t *u = &s->g[g];
    if (u->cq_h < u->cq_t) {
        int32_t j = u->cq[u->cq_h++];
        return engine_start(s, g, j, t, comp_dur(s, g, j), &u->comp_busy, &u->comp_time,
                            EV_MULTIKERNEL_COMP_DONE);
    }
    u->comp_busy = 0;
    return WPART_OK;
}

static double cpu_dur(const multikernel_t *s, int32_t i)
{
    const wpart_multikernel_sim_t *in = s->in;
    int32_t e = in->n_gpus * in->overlap + i;
    double n = (double)in->units[e], W = n * in->ws, pi = 1.0;
    if (W > 0.0 && W > in->cap) {
        pi += in->lambda * fmin(1.0, (W - in->cap) / W);
    }
    double passes = in->sync ? 1.0 : (double)in->iters;
    return (in->cpu_fixed + n * in->cpu_rate[i] * pi) * passes * s->noise[e];
}

/* Starts a pass at time t: every GPU's copy engine and every CPU sub-device. */
static wpart_status_t start_pass(multikernel_t *s, double t)
{
    wpart_status_t st = WPART_OK;
    const wpart_multikernel_sim_t *in = s->in;
    const int32_t k = in->overlap;
    s->pending = 0;
    for (int32_t g = 0; g < in->n_gpus; g++) {
        gpu_t *u = &s->g[g];
        u->up_next = 0;
        u->cq_h = u->cq_t = u->dq_h = u->dq_t = 0;
        for (int32_t j = 0; j < k; j++) {
            s->pending += in->units[g * k + j] > 0;
        }
        WPART_CHECK(copy_next(s, g, t));
    }
    for (int32_t i = 0; i < in->n_cpu; i++) {
        int32_t e = in->n_gpus * k + i;
        if (in->units[e] > 0) {
            double d = cpu_dur(s, i);
            s->cpu_busy[i] += d;
            s->pending++;
            WPART_CHECK(wpart_i_loop_push(&s->loop, t + d, EV_MULTIKERNEL_CPU_DONE, -1, i));
        }
    }
cleanup:
    return st;
}

static wpart_status_t exec_done(multikernel_t *s, int32_t e, double t)
{
    s->t_exec[e] = t;
    if (--s->pending == 0) {
        s->t_pass_end = t;
        if (s->in->sync && s->pass + 1 < s->in->iters) {
            return wpart_i_loop_push(&s->loop, t + s->in->host_merge, EV_MULTIKERNEL_BARRIER, -1, 0);
        }
    }
    return WPART_OK;
}

typedef wpart_status_t (*engine_next_fn)(multikernel_t *s, int32_t g, double t);

/* Partition j of GPU g leaves one engine for the other at time t: it joins the other engine's
 * queue (q, its tail *q_t), which starts on it when idle (other_busy == 0); then the engine it
 * left takes its next partition. */
static wpart_status_t hand_over(multikernel_t *s, int32_t g, double t, int32_t j, int32_t *q,
                                int32_t *q_t, int other_busy, engine_next_fn other,
                                engine_next_fn self)
{
    wpart_status_t st = WPART_OK;
    q[(*q_t)++] = j;
    if (!other_busy) {
        WPART_CHECK(other(s, g, t));
    }
    st = self(s, g, t);
cleanup:
    return st;
}

/* The handlers of the multi-kernel event types on the engine's loop (event_loop.h). An upload
 * done hands its partition to the compute engine, a compute done to the copy engine (download). */
static wpart_status_t h_stage_done(void *ctx, wpart_i_loop_t *lp, const wpart_i_event_t *ev)
{
    multikernel_t *s = ctx;
    gpu_t *u = &s->g[ev->pu];
    (void)lp;
    if (ev->type == EV_MULTIKERNEL_UP_DONE) {
        return hand_over(s, ev->pu, ev->t, (int32_t)ev->arg, u->cq, &u->cq_t, u->comp_busy,
                         comp_next, copy_next);
    }
    return hand_over(s, ev->pu, ev->t, (int32_t)ev->arg, u->dq, &u->dq_t, u->copy_busy, copy_next,
                     comp_next);
}

static wpart_status_t h_down_done(void *ctx, wpart_i_loop_t *lp, const wpart_i_event_t *ev)
{
    wpart_status_t st = WPART_OK;
    multikernel_t *s = ctx;
    const int32_t g = ev->pu, j = (int32_t)ev->arg;
    (void)lp;
    WPART_CHECK(exec_done(s, g * s->in->overlap + j, ev->t));
    st = copy_next(s, g, ev->t);
cleanup:
    return st;
}

static wpart_status_t h_cpu_done(void *ctx, wpart_i_loop_t *lp, const wpart_i_event_t *ev)
{
    multikernel_t *s = ctx;
    (void)lp;
    return exec_done(s, s->in->n_gpus * s->in->overlap + (int32_t)ev->arg, ev->t);
}

static wpart_status_t h_barrier(void *ctx, wpart_i_loop_t *lp, const wpart_i_event_t *ev)
{
    multikernel_t *s = ctx;
    (void)lp;
    s->pass++;
    return start_pass(s, ev->t);
}

static wpart_status_t check(const wpart_multikernel_sim_t *in)
{
    wpart_status_t st = WPART_OK;
    if (!in || in->n_gpus < 0 || in->n_cpu < 0 || (in->n_gpus > 0 && in->overlap < 1) ||
        in->iters < 1) {
        WPART_FAIL(WPART_EINVAL, "multikernel_sim_run: bad device counts, overlap or iters");
    }
    int64_t E = (int64_t)in->n_gpus * (in->n_gpus > 0 ? in->overlap : 0) + in->n_cpu;
    if (E < 1 || E > (1 << 24) || !in->units || (in->n_gpus && !in->gpu_comp) ||
        (in->n_cpu && !in->cpu_rate)) {
        WPART_FAIL(WPART_EINVAL, "multikernel_sim_run: no execution or NULL arrays");
    }
    for (int64_t e = 0; e < E; e++) {
        if (in->units[e] < 0) {
            WPART_FAIL(WPART_EINVAL, "multikernel_sim_run: negative partition size");
        }
    }
    const double sc[] = {in->gpu_up, in->gpu_down, in->gpu_copy, in->lat_x, in->lat_k,
                         in->cpu_fixed, in->ws, in->cap, in->lambda, in->host_merge, in->sigma};
    for (size_t i = 0; i < sizeof sc / sizeof *sc; i++) {
        if (!(sc[i] >= 0.0) || !isfinite(sc[i])) {
            WPART_FAIL(WPART_EINVAL, "multikernel_sim_run: a cost is negative or not finite");
        }
    }
    for (int32_t g = 0; g < in->n_gpus; g++) {
        if (!(in->gpu_comp[g] >= 0.0) || !isfinite(in->gpu_comp[g])) {
            WPART_FAIL(WPART_EINVAL, "multikernel_sim_run: gpu_comp negative or not finite");
        }
    }
    for (int32_t i = 0; i < in->n_cpu; i++) {
        if (!(in->cpu_rate[i] >= 0.0) || !isfinite(in->cpu_rate[i])) {
            WPART_FAIL(WPART_EINVAL, "multikernel_sim_run: cpu_rate negative or not finite");
        }
    }
cleanup:
    return st;
}

wpart_status_t wpart_multikernel_sim_run(const wpart_multikernel_sim_t *in, double *t_exec, double *t_dev,
                                double *busy, double *out3, int64_t *events_out)
{
    wpart_status_t st = WPART_OK;
    multikernel_t s;
    int32_t *qs = NULL;
    memset(&s, 0, sizeof s);
    WPART_CHECK(check(in));
    const int32_t G = in->n_gpus, k = G > 0 ? in->overlap : 0, C = in->n_cpu;
    const int32_t E = G * k + C;
    s.in = in;
    s.E = E;
    s.g = wpart_i_calloc(G, sizeof *s.g);
    s.first = wpart_i_calloc(G, sizeof *s.first);
    s.noise = wpart_i_calloc(E, sizeof *s.noise);
    s.t_exec = wpart_i_calloc(E, sizeof *s.t_exec);
    s.cpu_busy = wpart_i_calloc(C, sizeof *s.cpu_busy);
    qs = wpart_i_calloc(2 * (int64_t)G * k + 1, sizeof *qs);
    if (!s.g || !s.first || !s.noise || !s.t_exec || !s.cpu_busy || !qs) {
        WPART_FAIL(WPART_ENOMEM, "multikernel_sim_run: out of memory");
    }
    WPART_CHECK(wpart_i_loop_init(&s.loop, 2 * (int64_t)E + 8, &s));
    for (int32_t g = 0; g < G; g++) {
        s.g[g].cq = qs + 2 * g * k;
        s.g[g].dq = qs + 2 * g * k + k;
        s.first[g] = -1;
        for (int32_t j = k - 1; j >= 0; j--) {
            if (in->units[g * k + j] > 0) {
                s.first[g] = j;
            }
        }
    }
    wpart_dynamic_device_init(&s.up);
    s.up.n_hops = 1;
    s.up.hops[0].lat = in->lat_x;
    s.up.hops[0].bw = 1.0;
    s.up.bytes_per_elem = in->gpu_up;
    s.up.setup_bytes = in->gpu_copy;
    s.down = s.up;
    s.down.bytes_per_elem = in->gpu_down;
    s.down.setup_bytes = 0.0;
    /* part 1's noise draw (mean 1), one stream per (seed; run, execution) */
    for (int32_t e = 0; e < E; e++) {
        const uint64_t ids[2] = {(uint64_t)in->run, (uint64_t)e * WPART_RNG_MUL_1};
        s.noise[e] = wpart_rng_lognormal_ids(in->seed, ids, 2, in->sigma);
    }
    WPART_CHECK(start_pass(&s, 0.0));
    wpart_i_loop_on(&s.loop, EV_MULTIKERNEL_UP_DONE, h_stage_done);
    wpart_i_loop_on(&s.loop, EV_MULTIKERNEL_COMP_DONE, h_stage_done);
    wpart_i_loop_on(&s.loop, EV_MULTIKERNEL_DOWN_DONE, h_down_done);
    wpart_i_loop_on(&s.loop, EV_MULTIKERNEL_CPU_DONE, h_cpu_done);
    wpart_i_loop_on(&s.loop, EV_MULTIKERNEL_BARRIER, h_barrier);
    WPART_CHECK(wpart_i_loop_run(&s.loop));
    double Tg = 0.0, Tc = 0.0, Tcb = 0.0;
    for (int32_t g = 0; g < G; g++) {
        double t = 0.0;
        for (int32_t j = 0; j < k; j++) {
            t = fmax(t, s.t_exec[g * k + j]);
        }
        Tg = fmax(Tg, t);
        if (t_dev) {
            t_dev[g] = t;
        }
        if (busy) {
            busy[g] = s.g[g].copy_time;
            busy[G + g] = s.g[g].comp_time;
        }
    }
    for (int32_t i = 0; i < C; i++) {
        Tc = fmax(Tc, s.t_exec[G * k + i]);
        Tcb = fmax(Tcb, s.cpu_busy[i]);
    }
    if (t_dev) {
        t_dev[G] = Tc;
    }
    if (busy) {
        busy[2 * G] = Tcb;
    }
    if (t_exec) {
        memcpy(t_exec, s.t_exec, (size_t)E * sizeof *t_exec);
    }
    if (out3) {
        out3[0] = fmax(Tg, Tc) + (in->sync && in->iters > 0 ? in->host_merge : 0.0);
        out3[1] = Tg;
        out3[2] = Tc;
    }
    if (events_out) {
        *events_out = s.loop.n_events;
    }
cleanup:
    wpart_i_loop_free(&s.loop);
    free(s.g);
    free(s.first);
    free(s.noise);
    free(s.t_exec);
    free(s.cpu_busy);
    free(qs);
    return st;
}
