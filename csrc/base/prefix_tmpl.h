/*
 * prefix_tmpl.h -- the 1D and 3D bordered prefix sums, their public entry points and the box
 * loads, written once and instantiated by prefix.c for int64_t and double (the 2D row kernels
 * differ by type and stay in prefix.c).
 *
 * Expects: T (element type), ACC (box-load arithmetic: uint64_t, whose wrap-around a
 * user-supplied S cannot turn into undefined behaviour, or double), FN(x) (name mangling),
 * T_BAD(x) (1 when an element is not a valid load), T_BADSUM(r) (1 when a finished sum is out
 * of range), and the functions FN(add) (*out = a + b; 1 on overflow), FN(bad) (the message
 * naming the first invalid element) and FN(rows2d) (the 2D rows after the first).
 * Undefines its macros at the end.
 */

static wpart_status_t FN(prefix1d)(const T *a, int64_t n, T *W, const wpart_control_t *ctl)
{
    int64_t cnt;
    wpart_status_t st = check_dims(1, &n, &cnt);
    if (st != WPART_OK) {
        return st;
    }
    poller_t pl;
    poller_init(&pl, ctl);
    T r = 0;
    int bad = 0;
    W[0] = 0;
    for (int64_t i0 = 0; i0 < n; i0 += POLL_ELEMS) {
        int64_t i1 = n - i0 < POLL_ELEMS ? n : i0 + POLL_ELEMS;
        for (int64_t i = i0; i < i1; i++) {
            T x = a[i];
            bad |= T_BAD(x);
            bad |= FN(add)(r, x, &r);
            W[i + 1] = r;
        }
        st = poller_tick(&pl, i1 - i0, (double)i1, (double)n);
        if (st != WPART_OK) {
            return st;
        }
    }
    bad |= T_BADSUM(r);
    return bad ? FN(bad)(a, 1, &n, n) : WPART_OK;
}

/* 2D: one pass; the running row sum is added to the row above (FN(rows2d)) */
static wpart_status_t FN(prefix2d)(const T *A, int64_t n1, int64_t n2, T *S,
                                   const wpart_control_t *ctl)
{
    int64_t dims[2] = {n1, n2}, cnt;
    wpart_status_t st = check_dims(2, dims, &cnt);
    if (st != WPART_OK) {
        return st;
    }
    poller_t pl;
    poller_init(&pl, ctl);
    memset(S, 0, (size_t)(n2 + 1) * sizeof *S);
    return FN(rows2d)(A, n1, n2, S, dims, cnt, &pl);
}

/* 3D: per slab, a 2D prefix of the slice added to the previous slab */
static wpart_status_t FN(prefix3d)(const T *A, int64_t n1, int64_t n2, int64_t n3, T *S,
                                   const wpart_control_t *ctl)
{
    int64_t dims[3] = {n1, n2, n3}, cnt;
    wpart_status_t st = check_dims(3, dims, &cnt);
    if (st != WPART_OK) {
        return st;
    }
    poller_t pl;
    poller_init(&pl, ctl);
    const int64_t l2 = n3 + 1, l1 = (n2 + 1) * l2;
    memset(S, 0, (size_t)l1 * sizeof *S);
    int bad = 0;
    for (int64_t i = 0; i < n1; i++) {
        const T *prevslab = S + i * l1;
        T *slab = S + (i + 1) * l1;
        memset(slab, 0, (size_t)l2 * sizeof *S);
        for (int64_t j = 0; j < n2; j++) {
            const T *a = A + (i * n2 + j) * n3;
            const T *up = slab + j * l2; /* plane prefix, row j */
            T *cur = slab + (j + 1) * l2;
            T r = 0;
            cur[0] = 0;
            for (int64_t k = 0; k < n3; k++) {
                T x = a[k];
                bad |= T_BAD(x);
                bad |= FN(add)(r, x, &r);
                bad |= FN(add)(up[k + 1], r, &cur[k + 1]);
            }
            st = poller_tick(&pl, n3 + 1, (double)i, (double)n1);
            if (st != WPART_OK) {
                return st;
            }
        }
        /* slab holds the plane prefix of slice i: add the previous slab */
        for (int64_t t = 0; t < l1; t++) {
            bad |= FN(add)(slab[t], prevslab[t], &slab[t]);
        }
        bad |= T_BADSUM(slab[l1 - 1]);
        if (WPART_UNLIKELY(bad)) {
            return FN(bad)(A, 3, dims, cnt);
        }
    }
    return WPART_OK;
}

/* ---- public entry points ---- */

wpart_status_t FN(wpart_base_prefix1d)(const T *a, int64_t n, T *W)
{
    return FN(prefix1d)(a, n, W, NULL);
}

wpart_status_t FN(wpart_base_prefix2d)(const T *A, int64_t n1, int64_t n2, T *S)
{
    return FN(prefix2d)(A, n1, n2, S, NULL);
}

wpart_status_t FN(wpart_base_prefix3d)(const T *A, int64_t n1, int64_t n2, int64_t n3, T *S)
{
    return FN(prefix3d)(A, n1, n2, n3, S, NULL);
}

wpart_status_t FN(wpart_base_prefix)(const T *A, int d, const int64_t *dims, T *S,
                                     const wpart_control_t *control)
{
    wpart_status_t st = check_d(d, dims);
    if (st != WPART_OK) {
        return st;
    }
    return d == 1 ? FN(prefix1d)(A, dims[0], S, control)
         : d == 2 ? FN(prefix2d)(A, dims[0], dims[1], S, control)
                  : FN(prefix3d)(A, dims[0], dims[1], dims[2], S, control);
}

/* ---- box loads: inclusion-exclusion over the box's corners ---- */

/* the loads of boxes [b0, b1) (checked) */
static void FN(box_run)(const T *S, int d, const int64_t *dims, const int64_t *boxes, int64_t b0,
                        int64_t b1, T *out)
{
    if (d == 2) {
        const int64_t ld = dims[1] + 1;
        for (int64_t b = b0; b < b1; b++) {
            const int64_t *x = boxes + 4 * b;
            const T *s0 = S + x[0] * ld, *s1 = S + x[1] * ld;
            out[b] = (T)(((ACC)s1[x[3]] - (ACC)s0[x[3]]) - ((ACC)s1[x[2]] - (ACC)s0[x[2]]));
        }
    } else {
        const int64_t l2 = dims[2] + 1, l1 = (dims[1] + 1) * l2;
        for (int64_t b = b0; b < b1; b++) {
            const int64_t *x = boxes + 6 * b;
            ACC v[2];
            for (int h = 0; h < 2; h++) {
                const T *s = S + x[h] * l1;
                v[h] = ((ACC)s[x[3] * l2 + x[5]] - (ACC)s[x[2] * l2 + x[5]]) -
                       ((ACC)s[x[3] * l2 + x[4]] - (ACC)s[x[2] * l2 + x[4]]);
            }
            out[b] = (T)(v[1] - v[0]);
        }
    }
}

/* wpart_base_box_loads, asking ctl's should_stop (Ctrl-C; not its time limit: these are the
 * loads of a partition already made) every POLL_ELEMS boxes: 2^24 boxes take about 0.3 s */
wpart_status_t FN(wpart_i_box_loads)(const T *S, int d, const int64_t *dims,
                                     const int64_t *boxes, int64_t k, T *out,
                                     const wpart_control_t *ctl)
{
    wpart_status_t st = check_boxes(d, dims, boxes, k);
    if (st != WPART_OK) {
        return st;
    }
    for (int64_t b0 = 0; b0 < k; b0 += POLL_ELEMS) {
        int64_t b1 = k - b0 < POLL_ELEMS ? k : b0 + POLL_ELEMS;
        if (b0 > 0 && wpart_i_stop_asked(ctl)) {
            return wpart_i_error(WPART_ECANCELLED, "stopped on request");
        }
        FN(box_run)(S, d, dims, boxes, b0, b1, out);
    }
    return WPART_OK;
}

wpart_status_t FN(wpart_base_box_loads)(const T *S, int d, const int64_t *dims,
                                        const int64_t *boxes, int64_t k, T *out)
{
    return FN(wpart_i_box_loads)(S, d, dims, boxes, k, out, NULL);
}
#undef T
#undef ACC
#undef FN
#undef T_BAD
#undef T_BADSUM
