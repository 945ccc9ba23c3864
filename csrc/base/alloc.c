/*
 * alloc.c -- the core's allocators: every allocation in csrc/ goes through these three
 * (tools/check_alloc.sh fails on a raw malloc/calloc/realloc anywhere else).
 * n elements of sz bytes each; the product is overflow-checked and NULL is returned on
 * overflow, a negative n, or an allocation failure. A zero-byte request allocates one byte,
 * so a non-NULL result always means success. free() releases what they return.
 */
#include "internal.h"

int wpart_i_mul_size(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0) {
        return 0;
    }
    return !__builtin_mul_overflow(a, b, out);
}

/* The byte count of n elements of sz bytes, or -1 when it overflows or n < 0. */
static int64_t alloc_bytes(int64_t n, size_t sz)
{
    int64_t bytes;
    if (n < 0 || (uint64_t)sz > (uint64_t)INT64_MAX || !wpart_i_mul_size(n, (int64_t)sz, &bytes) ||
        (uint64_t)bytes > SIZE_MAX) {
        return -1;
    }
    return bytes;
}

void *wpart_i_malloc(int64_t n, size_t sz)
{
    int64_t bytes = alloc_bytes(n, sz);
    if (bytes < 0) {
        return NULL;
    }
    return malloc(bytes > 0 ? (size_t)bytes : 1);
}

void *wpart_i_calloc(int64_t n, size_t sz)
{
    int64_t bytes = alloc_bytes(n, sz);
    if (bytes < 0) {
        return NULL;
    }
    return calloc(n > 0 ? (size_t)n : 1, sz > 0 ? sz : 1);
}

void *wpart_i_realloc(void *p, int64_t n, size_t sz)
{
    int64_t bytes = alloc_bytes(n, sz);
    if (bytes < 0) {
        return NULL; /* p is left as it was, as realloc leaves it on failure */
    }
    return realloc(p, bytes > 0 ? (size_t)bytes : 1);
}

void wpart_i_free_all(void *const *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(p[i]);
    }
}
