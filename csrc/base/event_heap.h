/*
 * event_heap.h -- the event queue of the core's simulators (private): a binary min-heap of fixed-size
 * events keyed by (time, seq). seq is a global insertion counter, so equal times pop in
 * insertion order (spec 001 §5.4). Grows geometrically; no allocation per event once warm.
 * Self-contained (only <stdint.h> and status.h) so that tests/c can include it.
 */
#ifndef WPART_EVENT_HEAP_H
#define WPART_EVENT_HEAP_H

#include <stdint.h>

#include "wpart/status.h"

typedef struct {
    double t;
    uint64_t seq;
    int32_t type; /* engine event type */
    int32_t pu;
    int64_t arg;  /* version, token or schedule index */
} wpart_i_event_t;

typedef struct {
    wpart_i_event_t *ev;
    int64_t n, cap;
    uint64_t next_seq;
} wpart_i_heap_t;

/** Zeroed heap with room for cap events (cap >= 1). */
wpart_status_t wpart_i_heap_init(wpart_i_heap_t *h, int64_t cap);
void wpart_i_heap_free(wpart_i_heap_t *h);
/** Pushes (t, next seq, type, pu, arg). */
wpart_status_t wpart_i_heap_push(wpart_i_heap_t *h, double t, int32_t type, int32_t pu,
                                     int64_t arg);
/** Pops the smallest (t, seq) into *out; returns 0 when empty, else 1. */
int wpart_i_heap_pop(wpart_i_heap_t *h, wpart_i_event_t *out);

#endif /* WPART_EVENT_HEAP_H */
