/*
 * event_heap.c -- binary min-heap of simulator events keyed by (time, seq) (spec 001 §5.4).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "event_heap.h"

static inline int before(const wpart_i_event_t *a, const wpart_i_event_t *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

wpart_status_t wpart_i_heap_init(wpart_i_heap_t *h, int64_t cap)
{
    memset(h, 0, sizeof *h);
    if (cap < 1) {
        cap = 1;
    }
    h->ev = wpart_i_malloc(cap, sizeof(wpart_i_event_t));
    if (!h->ev) {
        return wpart_i_error(WPART_ENOMEM, "event heap (%" PRId64 " events)", cap);
    }
    h->cap = cap;
    return WPART_OK;
}

void wpart_i_heap_free(wpart_i_heap_t *h)
{
    free(h->ev);
    memset(h, 0, sizeof *h);
}

wpart_status_t wpart_i_heap_push(wpart_i_heap_t *h, double t, int32_t type, int32_t pu,
                                     int64_t arg)
{
    if (WPART_UNLIKELY(h->n == h->cap)) {
        int64_t nc = h->cap * 2;
        wpart_i_event_t *q = NULL;
        if (nc > h->cap) {
            q = wpart_i_realloc(h->ev, nc, sizeof *q);
        }
        if (!q) {
            return wpart_i_error(WPART_ENOMEM, "event heap (%" PRId64 " events)", nc);
        }
        h->ev = q;
        h->cap = nc;
    }
    wpart_i_event_t e = {t, h->next_seq++, type, pu, arg};
    int64_t i = h->n++;
    wpart_i_event_t *ev = h->ev;
    while (i > 0) {
        int64_t p = (i - 1) >> 1;
        if (!before(&e, &ev[p])) {
            break;
        }
        ev[i] = ev[p];
        i = p;
    }
    ev[i] = e;
    return WPART_OK;
}

int wpart_i_heap_pop(wpart_i_heap_t *h, wpart_i_event_t *out)
{
    if (h->n == 0) {
        return 0;
    }
    wpart_i_event_t *ev = h->ev;
    *out = ev[0];
    wpart_i_event_t last = ev[--h->n];
    int64_t n = h->n, i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n) {
            break;
        }
        if (c + 1 < n && before(&ev[c + 1], &ev[c])) {
            c++;
        }
        if (!before(&ev[c], &last)) {
            break;
        }
        ev[i] = ev[c];
        i = c;
    }
    if (n > 0) {
        ev[i] = last;
    }
    return 1;
}
