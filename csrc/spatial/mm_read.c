/* mm_read.c -- the body of a MatrixMarket coordinate file, or a COO matrix's entries, as a
 * canonical CSR matrix, for wpart.spatial's file reader (wpart/spatial/_mmfast.py) and its
 * one-call default (wpart/spatial/_nicol_fast.py).
 *
 * The accepted syntax is a strict subset of what scipy.io.mmread accepts, so that every body
 * parsed here gives exactly the CSR matrix the general path (scipy's reader, then its COO to
 * CSR conversion) gives: entry lines `i j [value]` of ASCII tokens separated by spaces or tabs,
 * ended by "\n" or "\r\n" (the last one may end the buffer), 1-based indices without a sign,
 * integer values within int64, real values as decimal literals (no nan / inf words, no hex, no
 * leading '+', nothing that over- or underflows), exactly `nnz` lines, then only white space;
 * and no cell stored twice (a sum of duplicates depends on the order of the additions). Anything
 * else is WPART_EINVAL with the entry line (1-based) in *bad_line, and the caller reads the file
 * with the general reader, whose result or error then stands. Symmetric files give both
 * triangles (the mirror of an off-diagonal entry; skew-symmetric: negated), as scipy does. The
 * numbers are parsed with strtod, which follows the C locale's decimal point: wpart never calls
 * setlocale, and a process whose LC_NUMERIC decimal point is not '.' gets WPART_EINVAL here (the
 * general reader then does the work). The same sort orders a COO matrix's entries
 * (wpart_spatial_coo_csr: scipy.io.mmread's matrices, read in the one-call default without
 * scipy's conversion). No global state. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "wpart/spatial.h"

#define MM_TOKMAX 63
#define MM_POLL 65536 /* entries between two polls of the control hooks */

/* s at a blank (space, tab) */
static int mm_blank(const char *s, const char *end)
{
    return s < end && (*s == ' ' || *s == '\t');
}

/* the next token [*s, *t): starts after blanks, ends at a blank or a line end */
static const char *mm_token(const char **s, const char *end)
{
    const char *p = *s;
    while (mm_blank(p, end)) {
        p++;
    }
    *s = p;
    while (p < end && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
        p++;
    }
    return p;
}

/* after blanks at p, a 1-based index in [1, n] (digits only) as 0-based to *out, followed by
 * a blank (or, `last`, by anything: the caller checks what comes); the position after its
 * digits, NULL when there is none */
static inline const char *mm_index(const char *p, const char *end, int64_t n, int last, int64_t *out)
{
    while (mm_blank(p, end)) {
        p++;
    }
    const char *s = p;
    uint64_t v = 0;
    while (p < end && (unsigned char)(*p - '0') < 10 && p - s < 19) {
        v = 10 * v + (uint64_t)(*p - '0');
        p++;
    }
    if (p == s || p - s > 18 || v < 1 || v > (uint64_t)n || (!last && !mm_blank(p, end))) {
        return NULL;
    }
    *out = (int64_t)v - 1;
    return p;
}

/* an integer literal (optional '-') within +-(2**63 - 1); 0 on success */
static int mm_int(const char *s, const char *t, int64_t *out)
{
    int neg = s < t && *s == '-';
    s += neg;
    if (t == s || t - s > 19) {
        return -1;
    }
    uint64_t v = 0;
    for (; s < t; s++) {
        if (*s < '0' || *s > '9') {
            return -1;
        }
        v = 10 * v + (uint64_t)(*s - '0'); /* 19 digits stay below 2**64 */
    }
    if (v > (uint64_t)INT64_MAX) {
        return -1;
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* a decimal float literal (no leading '+'), finite and not flushed by an underflow; 0 on
 * success */
static int mm_real(const char *s, const char *t, double *out)
{
    char tok[MM_TOKMAX + 1];
    size_t n = (size_t)(t - s);
    if (n == 0 || n > MM_TOKMAX || *s == '+') {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' ||
              c == 'E')) {
            return -1;
        }
    }
    memcpy(tok, s, n);
    tok[n] = '\0';
    char *e = NULL;
    errno = 0;
    double v = strtod(tok, &e);
    if (e != tok + n || errno == ERANGE || !isfinite(v)) {
        return -1;
    }
    *out = v;
    return 0;
}

/* whether a decimal float literal is nonzero (its value, rounded, is not 0.0): a nonzero digit
 * in its significand (at most 63 characters) and a decimal exponent within +-280 (no under- or
 * overflow); otherwise it is parsed (mm_real). 0 / 1 to *out; 0 on success */
static int mm_nonzero(const char *s, const char *t, int64_t *out)
{
    const char *p = s;
    int nz = 0, digits = 0;
    if (t - s > MM_TOKMAX || (p < t && *p == '+')) {
        return -1;
    }
    p += p < t && *p == '-';
    int dots = 0;
    for (; p < t && ((*p >= '0' && *p <= '9') || *p == '.'); p++) {
        nz |= *p > '0';
        digits += *p != '.';
        dots += *p == '.';
    }
    if (!digits || dots > 1) {
        return -1;
    }
    int64_t ex = 0;
    if (p < t && (*p == 'e' || *p == 'E')) {
        if (mm_int(p + 1 + (p + 1 < t && p[1] == '+'), t, &ex) || ex < -280 || ex > 280) {
            double v;
            if (mm_real(s, t, &v)) {
                return -1;
            }
            *out = v != 0.0;
            return 0;
        }
        p = t;
    }
    if (p != t) {
        return -1;
    }
    *out = nz;
    return 0;
}

/* past the line end at *s ("\n", "\r\n", or the buffer's end after the last entry); 0 when
 * the line ends there (blanks before it allowed) */
static int mm_eol(const char **s, const char *end)
{
    const char *p = *s;
    while (mm_blank(p, end)) {
        p++;
    }
    if (p < end && *p == '\r') {
        p++;
        if (p >= end || *p != '\n') {
            return -1;
        }
    }
    if (p < end) {
        if (*p != '\n') {
            return -1;
        }
        p++;
    }
    *s = p;
    return 0;
}

/* The unchecked parse of a plain entry line: where at least MM_ROOM bytes follow the line's
 * start, every loop below stops within them (at most MM_BLANKS blanks in a row, 19 index
 * digits, MM_TOKMAX value characters), so no byte is compared with the buffer's end. It takes
 * only lines the checked parse (mm_index, mm_token, mm_int / mm_nonzero, mm_eol) takes, with
 * the same values, and gives up (NULL) on anything else -- a long run of blanks, an exponent
 * outside +-280 or with more than 3 digits, a value needing strtod, a control byte --, which
 * the checked parse then reads (and accepts or refuses) as before. The body of SARMA's test
 * matrices 1.5 - 2.1 x faster than by the checked parse alone (bayer05, 27,836 real entries:
 * 1.44 -> 0.94 ms; Chebyshev1 0.16 -> 0.07 ms). */
#define MM_ROOM 256
#define MM_BLANKS 8

static inline const char *mm_blanks_fast(const char *p)
{
    for (int b = 0; b < MM_BLANKS && (*p == ' ' || *p == '\t'); b++) {
        p++;
    }
    return p;
}

/* a 1-based index in [1, n] as 0-based to *out (mm_index's rule), NULL when none */
static inline const char *mm_index_fast(const char *p, int64_t n, int64_t *out)
{
    const char *s = p;
    uint64_t v = 0;
    while (p - s < 19 && (unsigned char)(*p - '0') < 10) {
        v = 10 * v + (uint64_t)(*p - '0');
        p++;
    }
    if (p == s || p - s > 18 || v < 1 || v > (uint64_t)n) {
        return NULL;
    }
    *out = (int64_t)v - 1;
    return p;
}

static inline int mm_ends_token(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* past the decimal digits at p, the token (from s) kept within MM_TOKMAX characters; *nz set
 * when one of them is not '0'. Eight bytes at a time while they are all digits (a byte is one
 * when its high nibble is 3 and adding 6 does not carry out of its low nibble: no byte carries
 * into the next), then one at a time: the same end and flag as the plain loop. The reads stay
 * within the MM_ROOM bytes after the line's start (a value token starts within 62 of it) */
#define MM_ONES 0x0101010101010101ULL
static inline const char *mm_digits_fast(const char *p, const char *s, int *nz)
{
    while (p - s + 8 <= MM_TOKMAX) {
        uint64_t w;
        memcpy(&w, p, sizeof w);
        if ((w & 0xF0 * MM_ONES) != 0x30 * MM_ONES ||
            ((w + 0x06 * MM_ONES) & 0xF0 * MM_ONES) != 0x30 * MM_ONES) {
            break;
        }
        *nz |= w != 0x30 * MM_ONES;
        p += 8;
    }
    while (p - s < MM_TOKMAX && (unsigned char)(*p - '0') < 10) {
        *nz |= *p++ != '0';
    }
    return p;
}
#undef MM_ONES

/* the value token at p (after its blanks): an integer (mm_int) or, real, whether it is
 * nonzero (mm_nonzero), to *out; the position after it, NULL to give up */
static inline const char *mm_value_fast(const char *p, int field, int64_t *out)
{
    const char *s = p;
    p += *p == '-';
    if (field == WPART_MM_INTEGER) {
        const char *d = p;
        int64_t v = 0;
        while (p - d < 18 && (unsigned char)(*p - '0') < 10) {
            v = 10 * v + (*p - '0');
            p++;
        }
        if (p == d || !mm_ends_token(*p)) {
            return NULL;
        }
        *out = *s == '-' ? -v : v;
        return p;
    }
    /* digits, at most one '.', digits (at least one digit in all) */
    const char *d = p;
    int nz = 0;
    p = mm_digits_fast(p, s, &nz);
    ptrdiff_t digits = p - d;
    if (*p == '.') {
        d = ++p;
        p = mm_digits_fast(p, s, &nz);
        digits += p - d;
    }
    if (!digits) {
        return NULL;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        p += *p == '+' || *p == '-';
        d = p;
        int ex = 0;
        while (p - d < 3 && (unsigned char)(*p - '0') < 10) {
            ex = 10 * ex + (*p - '0');
            p++;
        }
        if (p == d || ex > 280) {
            return NULL;
        }
    }
    if (p - s > MM_TOKMAX || !mm_ends_token(*p)) {
        return NULL;
    }
    *out = nz;
    return p;
}

/* the line "i j [value]" at p (MM_ROOM bytes follow): its end (after the "\n"), NULL to give
 * up; value: not for exact real values */
static inline const char *mm_line_fast(const char *p, int64_t n1, int64_t n2, int field,
                                       int64_t *i, int64_t *j, int64_t *v)
{
    p = mm_index_fast(mm_blanks_fast(p), n1, i);
    if (!p || (*p != ' ' && *p != '\t')) {
        return NULL;
    }
    p = mm_index_fast(mm_blanks_fast(p), n2, j);
    if (!p) {
        return NULL;
    }
    if (field != WPART_MM_PATTERN) {
        if (*p != ' ' && *p != '\t') {
            return NULL;
        }
        p = mm_value_fast(mm_blanks_fast(p), field, v);
        if (!p) {
            return NULL;
        }
    } else {
        *v = 1;
    }
    p = mm_blanks_fast(p);
    p += *p == '\r';
    return *p == '\n' ? p + 1 : NULL;
}

/* the entries into COO arrays (the file's order, then the mirrors of the off-diagonal ones);
 * *count entries written */
static wpart_status_t mm_entries(const char *buf, size_t len, int64_t n1, int64_t n2,
                                 int64_t nnz, int field, int sym, int64_t *row, int64_t *col,
                                 double *fv, int64_t *iv, int64_t *count, int64_t *bad_line,
                                 const wpart_control_t *ctl)
{
    wpart_status_t st = WPART_OK;
    const char *s = buf, *end = buf + len;
    double t0 = wpart_i_now();
    int64_t k = 0, m = nnz;
    for (; k < nnz; k++) {
        if ((k & (MM_POLL - 1)) == MM_POLL - 1) {
            WPART_CHECK(wpart_i_poll(ctl, t0, (double)k, (double)nnz));
        }
        *bad_line = k + 1;
        if (!fv && end - s >= MM_ROOM) {
            const char *q = mm_line_fast(s, n1, n2, field, &row[k], &col[k], &iv[k]);
            if (q && !(sym == WPART_MM_SKEW && field == WPART_MM_INTEGER &&
                       iv[k] == INT64_MIN)) {
                s = q;
                continue;
            }
        }
        if (s >= end) {
            WPART_FAIL(WPART_EINVAL, "MatrixMarket body: fewer entries than declared");
        }
        int64_t i, j;
        s = mm_index(s, end, n1, 0, &i);
        s = s ? mm_index(s, end, n2, field == WPART_MM_PATTERN, &j) : NULL;
        if (!s) {
            WPART_FAIL(WPART_EINVAL, "MatrixMarket body: not an entry line");
        }
        row[k] = i;
        col[k] = j;
        if (field != WPART_MM_PATTERN) {
            const char *t = mm_token(&s, end);
            int bad = field != WPART_MM_REAL ? mm_int(s, t, &iv[k])
                      : fv                   ? mm_real(s, t, &fv[k])
                                             : mm_nonzero(s, t, &iv[k]);
            s = t;
            if (bad || (sym == WPART_MM_SKEW && field == WPART_MM_INTEGER &&
                        iv[k] == INT64_MIN)) {
                WPART_FAIL(WPART_EINVAL, "MatrixMarket body: not an entry line");
            }
        } else {
            iv[k] = 1;
        }
        if (mm_eol(&s, end)) {
            WPART_FAIL(WPART_EINVAL, "MatrixMarket body: not an entry line");
        }
    }
    *bad_line = nnz + 1;
    for (; s < end; s++) { /* only white space after the entries */
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') {
            WPART_FAIL(WPART_EINVAL, "MatrixMarket body: more entries than declared");
        }
    }
    *bad_line = 0;
    for (k = 0; sym != WPART_MM_GENERAL && k < nnz; k++) {
        if (row[k] != col[k]) {
            if (row[k] >= n2 || col[k] >= n1) { /* (a symmetric file is square) */
                *bad_line = k + 1;
                WPART_FAIL(WPART_EINVAL, "MatrixMarket body: a mirror outside the matrix");
            }
            row[m] = col[k];
            col[m] = row[k];
            if (fv) {
                fv[m] = sym == WPART_MM_SKEW ? -fv[k] : fv[k];
            } else { /* (an indicator of a real value is its mirror's too) */
                iv[m] = sym == WPART_MM_SKEW && field != WPART_MM_REAL ? -iv[k] : iv[k];
            }
            m++;
        }
    }
    *count = m;
cleanup:
    return st;
}

/* the entries in the order ord (NULL: as they are) stably into the rows of rp: ci and fv or iv
 * (fw and iw NULL: 1 each); pos (n1) scratch */
static void coo_scatter(int64_t n1, int64_t m, const int64_t *row, const int64_t *col,
                        const double *fw, const int64_t *iw, const int64_t *ord, int64_t *pos,
                        const int64_t *rp, int64_t *ci, double *fv, int64_t *iv)
{
    memcpy(pos, rp, (size_t)n1 * sizeof(int64_t));
    for (int64_t k = 0; k < m; k++) {
        int64_t e = ord ? ord[k] : k, p = pos[row[e]]++;
        ci[p] = col[e];
        if (fv) {
            fv[p] = fw[e];
        } else {
            iv[p] = iw ? iw[e] : 1;
        }
    }
}

/* whether every row's columns ascend: 1 strictly, 2 with a cell stored twice (equal
 * neighbours), 0 where a row's columns fall */
static int coo_rows_sorted(int64_t n1, const int64_t *rp, const int64_t *ci)
{
    int twice = 0;
    for (int64_t i = 0; i < n1; i++) {
        for (int64_t p = rp[i] + 1; p < rp[i + 1]; p++) {
            if (ci[p] < ci[p - 1]) {
                return 0;
            }
            twice |= ci[p] == ci[p - 1];
        }
    }
    return 1 + twice;
}

/* The m entries (row[e], col[e]) in [0, n1) x [0, n2) with values fw[e], iw[e] (both NULL: 1
 * each) in canonical CSR order: rp (n1 + 1), ci, fv or iv; ord (m) and pos (max(n1, n2) + 1)
 * are scratch. A stable counting sort by row; where that leaves each row's columns ascending
 * (entries in column order: a symmetric file's triangle by columns gives rows whose own
 * entries come in column order and whose mirrors follow, all further right), that is the
 * canonical order, else a stable counting sort by column first, then by row: the same arrays
 * either way. A cell stored twice: merge (integer values only), one entry holding their sum
 * (the order of an integer sum does not matter); else WPART_EINVAL (the general reader sums
 * floats in an order of its own). *count: the entries written (m less the merged ones) */
static wpart_status_t coo_sort(int64_t n1, int64_t n2, int64_t m, const int64_t *row,
                               const int64_t *col, const double *fw, const int64_t *iw,
                               int merge, int64_t *ord, int64_t *pos, int64_t *rp, int64_t *ci,
                               double *fv, int64_t *iv, int64_t *count)
{
    wpart_status_t st = WPART_OK;
    memset(rp, 0, (size_t)(n1 + 1) * sizeof(int64_t));
    for (int64_t e = 0; e < m; e++) {
        rp[row[e] + 1]++;
    }
    for (int64_t i = 0; i < n1; i++) {
        rp[i + 1] += rp[i];
    }
    coo_scatter(n1, m, row, col, fw, iw, NULL, pos, rp, ci, fv, iv);
    int sorted = coo_rows_sorted(n1, rp, ci);
    if (!sorted) { /* by column first (the columns' counts in pos), then by row again */
        memset(pos, 0, (size_t)(n2 + 1) * sizeof(int64_t));
        for (int64_t e = 0; e < m; e++) {
            pos[col[e] + 1]++;
        }
        for (int64_t j = 0; j < n2; j++) {
            pos[j + 1] += pos[j];
        }
        for (int64_t e = 0; e < m; e++) {
            ord[pos[col[e]]++] = e;
        }
        coo_scatter(n1, m, row, col, fw, iw, ord, pos, rp, ci, fv, iv);
        sorted = coo_rows_sorted(n1, rp, ci);
    }
    if (sorted == 2) { /* one entry per cell, its values summed (rp rewritten as it goes) */
        if (!merge || fv) {
            WPART_FAIL(WPART_EINVAL, "a cell stored twice");
        }
        int64_t w = 0, start = 0;
        for (int64_t i = 0; i < n1; i++) {
            int64_t end = rp[i + 1];
            for (int64_t p = start; p < end; p++) {
                if (p > start && ci[p] == ci[w - 1]) {
                    iv[w - 1] += iv[p];
                } else {
                    ci[w] = ci[p];
                    iv[w++] = iv[p];
                }
            }
            start = end;
            rp[i + 1] = w;
        }
        m = w;
    }
    *count = m;
cleanup:
    return st;
}

wpart_status_t wpart_spatial_mm_csr(const char *buf, size_t len, int64_t n1, int64_t n2,
                                    int64_t nnz, int field, int sym, int64_t *rp, int64_t *ci,
                                    double *fv, int64_t *iv, int64_t *count, int64_t *bad_line,
                                    const wpart_control_t *ctl)
{
    wpart_status_t st = WPART_OK;
    int64_t cap = sym == WPART_MM_GENERAL ? nnz : 2 * nnz;
    int64_t *row = NULL, *col = NULL, *ord = NULL, *pos = NULL, *iw = NULL;
    double *fw = NULL;
    *count = 0;
    *bad_line = 0;
    if (n1 < 1 || n2 < 1 || nnz < 0 || field < 0 || field > 2 || sym < 0 || sym > 2 ||
        (fv != NULL) != (field == WPART_MM_REAL && iv == NULL) || (!fv && !iv) ||
        (field == WPART_MM_PATTERN && sym == WPART_MM_SKEW) || nnz > INT64_MAX / 2) {
        WPART_FAIL(WPART_EINVAL, "MatrixMarket body: unsupported header");
    }
    cap = cap > 0 ? cap : 1;
    /* one block (the COO arrays, the order, the counts): a call's fresh pages are faulted in
     * once, and glibc keeps a freed block this size for the next call */
    int64_t nb = (n1 > n2 ? n1 : n2) + 1, words;
    if (!wpart_i_mul_size(cap, 4, &words) || words > INT64_MAX - nb ||
        !(row = wpart_i_malloc(words + nb, sizeof(int64_t)))) {
        WPART_FAIL(WPART_ENOMEM, "out of memory reading a MatrixMarket file");
    }
    col = row + cap;
    ord = col + cap;
    pos = ord + cap; /* (coo_sort sets what it reads) */
    if (fv) {
        fw = (double *)(pos + nb);
    } else {
        iw = pos + nb;
    }
    int64_t m = 0;
    WPART_CHECK(mm_entries(buf, len, n1, n2, nnz, field, sym, row, col, fw, iw, &m, bad_line,
                           ctl));
    WPART_CHECK(coo_sort(n1, n2, m, row, col, fw, iw, 0, ord, pos, rp, ci, fv, iv, count));
cleanup:
    free(row);
    return st;
}

wpart_status_t wpart_spatial_coo_csr(int64_t n1, int64_t n2, int64_t m, const int64_t *row,
                                     const int64_t *col, const double *fw, const int64_t *iw,
                                     int64_t *rp, int64_t *ci, double *fv, int64_t *iv,
                                     int64_t *count)
{
    wpart_status_t st = WPART_OK;
    int64_t *ord = NULL;
    *count = 0;
    if (n1 < 1 || n2 < 1 || m < 0 || (fw && iw) || (fv != NULL) != (fw != NULL) ||
        (!fv && !iv)) {
        WPART_FAIL(WPART_EINVAL, "COO to CSR: bad sizes or value arrays");
    }
    for (int64_t e = 0; e < m; e++) {
        if ((uint64_t)row[e] >= (uint64_t)n1 || (uint64_t)col[e] >= (uint64_t)n2) {
            WPART_FAIL(WPART_EINVAL, "COO to CSR: an index out of range");
        }
    }
    int64_t nb = (n1 > n2 ? n1 : n2) + 1;
    if (m > INT64_MAX - nb || !(ord = wpart_i_malloc(m + nb, sizeof(int64_t)))) {
        WPART_FAIL(WPART_ENOMEM, "out of memory converting a COO matrix");
    }
    WPART_CHECK(coo_sort(n1, n2, m, row, col, fw, iw, !fw && !iw, ord, ord + m, rp, ci, fv, iv,
                         count));
cleanup:
    free(ord);
    return st;
}
