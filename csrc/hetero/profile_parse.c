/* profile_parse.c -- bulk parsers of profile files (FuPerMod-style `size time [energy]` text and
 * the body of the long-format `processor,size,time[,energy]` CSV) for wpart.hetero's readers.
 *
 * The accepted syntax is a strict subset of what the Python readers accept, so that every
 * buffer parsed here gives exactly the Python readers' values: ASCII numbers only (an integer
 * literal or a decimal float; no nan/inf words, hex, underscores or Unicode digits), lines
 * ended by "\n" or "\r\n". Anything else is reported as WPART_EINVAL with the line and column,
 * and the Python side then re-reads the file line by line (its own messages). The numbers are
 * parsed with strtod, which follows the C locale's decimal point: wpart never calls setlocale,
 * and a process whose LC_NUMERIC decimal point is not '.' gets WPART_EINVAL here (the Python
 * reader then does the work). No global state. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "wpart/hetero.h"

#define TOKMAX 63

static int is_num_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E';
}

/* A float token [s, s+n) of number characters; 0 on success. */
static int parse_double(const char *s, size_t n, double *out)
{
    char tok[TOKMAX + 1];
    if (n == 0 || n > TOKMAX) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!is_num_char((unsigned char)s[i])) {
            return -1;
        }
    }
    memcpy(tok, s, n);
    tok[n] = '\0';
    char *end = NULL;
    double v = strtod(tok, &end);
    if (end != tok + n) {
        return -1;
    }
    *out = v;
    return 0;
}

/* A size token: an integer literal within +-(2**63-1), or a float literal that is an integer
 * of magnitude below 2**53; 0 on success. */
static int parse_size(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (n > 0 && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        i = 1;
    }
    if (i < n) {
        uint64_t v = 0;
        size_t j = i;
        for (; j < n && s[j] >= '0' && s[j] <= '9'; j++) {
            unsigned d = (unsigned)(s[j] - '0');
            if (v > (UINT64_C(0x7FFFFFFFFFFFFFFF) - d) / 10) {
                return -1; /* above int64 (the Python reader reports the overflow) */
            }
            v = v * 10 + d;
        }
        if (j == n) {
            *out = neg ? -(int64_t)v : (int64_t)v;
            return 0;
        }
    }
    double f;
    if (parse_double(s, n, &f) != 0 || !(fabs(f) < 9007199254740992.0) || f != floor(f)) {
        return -1;
    }
    *out = (int64_t)f;
    return 0;
}

static int locale_ok(void)
{
    const struct lconv *lc = localeconv();
    return lc && lc->decimal_point && lc->decimal_point[0] == '.' && !lc->decimal_point[1];
}

/* End of the line starting at p (position of '\n' or len); *next = start of the next line. */
static size_t line_end(const char *buf, size_t len, size_t p, size_t *next)
{
    const char *nl = memchr(buf + p, '\n', len - p);
    size_t e = nl ? (size_t)(nl - buf) : len;
    *next = nl ? e + 1 : len;
    if (e > p && buf[e - 1] == '\r') {
        e--;
    }
    return e;
}

wpart_status_t wpart_hetero_parse_points(const char *buf, size_t len, int64_t cap, int64_t *rows,
                                         int *ncol, int64_t *size, double *time, double *energy,
                                         int64_t *bad_line, int64_t *bad_col)
{
    wpart_status_t st = WPART_OK;
    int64_t line = 0, col = 0, n = 0;
    int nc = 0;
    *rows = 0;
    *ncol = 0;
    if ((!buf && len) || !size || !time || !energy || cap < 0) {
        WPART_FAIL(WPART_EINVAL, "NULL buffer or output");
    }
    if (!locale_ok()) {
        WPART_FAIL(WPART_EINVAL, "the C locale's decimal point is not '.'");
    }
    for (size_t p = 0, next; p < len; p = next) {
        size_t e = line_end(buf, len, p, &next);
        line++;
        col = 0;
        /* the data part (before '#'): number characters, blanks and commas only */
        size_t d = p;
        for (; d < e && buf[d] != '#'; d++) {
            unsigned char c = (unsigned char)buf[d];
            if (!is_num_char(c) && c != ' ' && c != '\t' && c != ',') {
                col = (int64_t)(d - p) + 1;
                WPART_FAIL(WPART_EINVAL, "line %" PRId64 ", column %" PRId64
                           ": unexpected byte 0x%02x", line, col, c);
            }
        }
        /* a comment must not hold a character that Python's splitlines() breaks a line at */
        for (size_t k = d; k < e; k++) {
            unsigned char c = (unsigned char)buf[k];
            int brk = c == '\r' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1e) ||
                      (c == 0xC2 && k + 1 < e && (unsigned char)buf[k + 1] == 0x85) ||
                      (c == 0xE2 && k + 2 < e && (unsigned char)buf[k + 1] == 0x80 &&
                       ((unsigned char)buf[k + 2] == 0xA8 || (unsigned char)buf[k + 2] == 0xA9));
            if (brk) {
                col = (int64_t)(k - p) + 1;
                WPART_FAIL(WPART_EINVAL, "line %" PRId64 ", column %" PRId64
                           ": line-break character in a comment", line, col);
            }
        }
        size_t tok[3][2];
        int nt = 0;
        for (size_t k = p; k < d;) {
            while (k < d && (buf[k] == ' ' || buf[k] == '\t' || buf[k] == ',')) {
                k++;
            }
            if (k >= d) {
                break;
            }
            size_t s = k;
            while (k < d && buf[k] != ' ' && buf[k] != '\t' && buf[k] != ',') {
                k++;
            }
            if (nt == 3) {
                col = (int64_t)(s - p) + 1;
                WPART_FAIL(WPART_EINVAL, "line %" PRId64 ", column %" PRId64
                           ": more than 3 columns", line, col);
            }
            tok[nt][0] = s;
            tok[nt][1] = k - s;
            nt++;
        }
        if (nt == 0) {
            continue;
        }
        col = (int64_t)(tok[0][0] - p) + 1;
        if (nt == 1 || (nc && nt != nc)) {
            WPART_FAIL(WPART_EINVAL, "line %" PRId64 ": %d columns", line, nt);
        }
        nc = nt;
        if (n >= cap) {
            WPART_FAIL(WPART_ELIMIT, "line %" PRId64 ": more than %" PRId64 " rows", line, cap);
        }
        if (parse_size(buf + tok[0][0], tok[0][1], &size[n]) != 0) {
            WPART_FAIL(WPART_EINVAL, "line %" PRId64 ", column %" PRId64 ": bad size", line, col);
        }
        for (int t = 1; t < nt; t++) {
            col = (int64_t)(tok[t][0] - p) + 1;
            if (parse_double(buf + tok[t][0], tok[t][1], t == 1 ? &time[n] : &energy[n]) != 0) {
                WPART_FAIL(WPART_EINVAL, "line %" PRId64 ", column %" PRId64 ": bad number",
                           line, col);
            }
        }
        if (nt == 2) {
            energy[n] = 0.0;
        }
        n++;
    }
    if (n == 0) {
        WPART_FAIL(WPART_EINVAL, "no data points");
    }
    *rows = n;
    *ncol = nc;
cleanup:
    if (st != WPART_OK) {
        if (bad_line) {
            *bad_line = line;
        }
        if (bad_col) {
            *bad_col = col;
        }
    }
    return st;
}

static uint64_t name_hash(const char *s, size_t n)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < n; i++) {
        h = (h ^ (unsigned char)s[i]) * UINT64_C(1099511628211);
    }
    return h;
}

static int is_blank(unsigned char c) { return c == ' ' || c == '\t'; }

wpart_status_t wpart_hetero_parse_csv(const char *buf, size_t len, int nf, int c_proc,
                                      int c_size, int c_time, int c_energy, int64_t cap,
                                      int64_t *rows, int64_t *code, int64_t *size, double *time,
                                      double *energy, int64_t *name_off, int64_t *name_len,
                                      int64_t *names, int64_t *bad_line, int64_t *bad_col)
{
    wpart_status_t st = WPART_OK;
    int64_t line = 0, col = 0, n = 0, nn = 0;
    int64_t *table = NULL;
    size_t tcap = 16;
    *rows = 0;
    *names = 0;
    if ((!buf && len) || !code || !size || !time || !energy || !name_off || !name_len ||
        cap < 0 || nf < 3 || nf > 4096 || c_proc < 0 || c_proc >= nf || c_size < 0 ||
        c_size >= nf || c_time < 0 || c_time >= nf || c_energy < -1 || c_energy >= nf) {
        WPART_FAIL(WPART_EINVAL, "bad buffer, output or column index");
    }
    if (!locale_ok()) {
        WPART_FAIL(WPART_EINVAL, "the C locale's decimal point is not '.'");
    }
    table = wpart_i_malloc((int64_t)tcap, sizeof *table);
    if (!table) {
        WPART_FAIL(WPART_ENOMEM, "out of memory (%zu name slots)", tcap);
    }
    memset(table, 0xff, tcap * sizeof *table); /* -1: empty slot */
    for (size_t p = 0, next; p < len; p = next) {
        size_t e = line_end(buf, len, p, &next);
        line++;
        col = 0;
        if (e == p) {
            continue; /* an empty line (the csv module skips it too) */
        }
        if (n >= cap) {
            WPART_FAIL(WPART_ELIMIT, "line %" PRId64 ": more than %" PRId64 " rows", line, cap);
        }
        int f = 0;
        energy[n] = 0.0;
        for (size_t s = p;; f++) {
            size_t k = s;
            while (k < e && buf[k] != ',') {
                k++;
            }
            col = f + 1;
            if (f >= nf) {
                WPART_FAIL(WPART_EINVAL, "line %" PRId64 ": more than %d fields", line, nf);
            }
            size_t a = s, b = k;
            for (size_t i = s; i < k; i++) {
                unsigned char c = (unsigned char)buf[i];
                if ((c < 0x20 && c != '\t') || c == '"' || c == 0x7f) {
                    WPART_FAIL(WPART_EINVAL, "line %" PRId64 ", field %" PRId64
                               ": unexpected byte 0x%02x", line, col, c);
                }
            }
            while (a < b && is_blank((unsigned char)buf[a])) {
                a++;
            }
            while (b > a && is_blank((unsigned char)buf[b - 1])) {
                b--;
            }
            if (f == c_proc) {
                if ((size_t)nn * 2 >= tcap) { /* grow the name table, rehash */
                    int64_t *t2 = wpart_i_malloc(2 * (int64_t)tcap, sizeof *t2);
                    if (!t2) {
                        WPART_FAIL(WPART_ENOMEM, "out of memory (%zu name slots)", 2 * tcap);
                    }
                    free(table);
                    table = t2;
                    tcap *= 2;
                    memset(table, 0xff, tcap * sizeof *table);
                    for (int64_t u = 0; u < nn; u++) {
                        size_t sl = (size_t)(name_hash(buf + name_off[u], (size_t)name_len[u]) &
                                             (tcap - 1));
                        while (table[sl] >= 0) {
                            sl = (sl + 1) & (tcap - 1);
                        }
                        table[sl] = u;
                    }
                }
                if (a < b && (((unsigned char)buf[a] & 0x80) ||
                              ((unsigned char)buf[b - 1] & 0x80))) {
                    WPART_FAIL(WPART_EINVAL, "line %" PRId64 ", field %" PRId64
                               ": non-ASCII byte at the edge of a processor name", line, col);
                }
                uint64_t h = name_hash(buf + a, b - a);
                size_t slot = (size_t)(h & (tcap - 1));
                for (;;) {
                    int64_t u = table[slot];
                    if (u < 0) {
                        table[slot] = nn;
                        name_off[nn] = (int64_t)a;
                        name_len[nn] = (int64_t)(b - a);
                        code[n] = nn++;
                        break;
                    }
                    if ((size_t)name_len[u] == b - a &&
                        memcmp(buf + name_off[u], buf + a, b - a) == 0) {
                        code[n] = u;
                        break;
                    }
                    slot = (slot + 1) & (tcap - 1);
                }
            } else if (f == c_size) {
                if (parse_size(buf + a, b - a, &size[n]) != 0) {
                    WPART_FAIL(WPART_EINVAL, "line %" PRId64 ", field %" PRId64 ": bad size",
                               line, col);
                }
            } else if (f == c_time || (f == c_energy && b > a)) {
                if (parse_double(buf + a, b - a, f == c_time ? &time[n] : &energy[n]) != 0) {
                    WPART_FAIL(WPART_EINVAL, "line %" PRId64 ", field %" PRId64
                               ": bad number", line, col);
                }
            }
            if (k >= e) {
                break;
            }
            s = k + 1;
        }
        if (f != nf - 1) {
            WPART_FAIL(WPART_EINVAL, "line %" PRId64 ": %d fields, the header has %d", line,
                       f + 1, nf);
        }
        n++;
    }
    if (n == 0) {
        WPART_FAIL(WPART_EINVAL, "no data rows");
    }
    *rows = n;
    *names = nn;
cleanup:
    free(table);
    if (st != WPART_OK) {
        if (bad_line) {
            *bad_line = line;
        }
        if (bad_col) {
            *bad_col = col;
        }
    }
    return st;
}
