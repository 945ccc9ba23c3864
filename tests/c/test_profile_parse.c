/* test_profile_parse.c -- C tests of the bulk profile-file parsers: good text and CSV buffers
 * (comments, commas, CRLF, exact int64 sizes, integral float sizes), and bad ones with the line
 * and column of the first bad line. Buffers are not NUL-terminated (copied to exact-size
 * allocations) so that out-of-bounds reads show under ASan/valgrind. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wpart/wpart.h"
#include "wtest.h"

#define CAP 16

static wpart_status_t points(const char *text, int64_t *rows, int *ncol, int64_t *s, double *t,
                             double *e, int64_t *bl, int64_t *bc)
{
    size_t n = strlen(text);
    char *b = malloc(n ? n : 1);
    memcpy(b, text, n);
    wpart_status_t st = wpart_hetero_parse_points(b, n, CAP, rows, ncol, s, t, e, bl, bc);
    free(b);
    return st;
}

static void test_points_good(void)
{
    int64_t rows, s[CAP], bl = -1, bc = -1;
    double t[CAP], e[CAP];
    int ncol;
    CHECK_STATUS(points("# size time energy\n1 2.5 3\n\n  7,1e-3,\t4 # c\r\n"
                        "9223372036854775807 1e400 0\n-5. .5 -0.0",
                        &rows, &ncol, s, t, e, &bl, &bc), WPART_OK);
    CHECK(rows == 4 && ncol == 3);
    CHECK(s[0] == 1 && t[0] == 2.5 && e[0] == 3);
    CHECK(s[1] == 7 && t[1] == 1e-3 && e[1] == 4);
    CHECK(s[2] == INT64_MAX && isinf(t[2]));
    CHECK(s[3] == -5 && t[3] == 0.5 && e[3] == 0 && signbit(e[3]));
    CHECK_STATUS(points("3 1\n9007199254740991.0 2\n", &rows, &ncol, s, t, e, NULL, NULL),
                 WPART_OK);
    CHECK(rows == 2 && ncol == 2 && s[1] == 9007199254740991LL && e[0] == 0);
}

static void test_points_bad(void)
{
    static const struct {
        const char *text;
        int64_t line, col;
    } bad[] = {
        {"1 2\n3 x\n", 2, 3},
        {"1 2\n3 nan\n", 2, 3},
        {"1 2\n\n1 2 3\n", 3, 1},
        {"1 2 3 4\n", 1, 7},
        {"1\n", 1, 1},
        {"9223372036854775808 1\n", 1, 1},
        {"-9223372036854775808 1\n", 1, 1},
        {"9007199254740992.0 1\n", 1, 1},
        {"2.5 1\n", 1, 1},
        {"1 2\r3 4\n", 1, 4},
        {"1 2 #\xe2\x80\xa8 3 4\n", 1, 6},
        {"1 1e\n", 1, 3},
        {"1_0 1\n", 1, 2},
        {"# nothing\n\n", 2, 0},
        {"", 0, 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t rows = -1, s[CAP], bl = -1, bc = -1;
        double t[CAP], e[CAP];
        int ncol = -1;
        CHECK_STATUS(points(bad[i].text, &rows, &ncol, s, t, e, &bl, &bc), WPART_EINVAL);
        CHECK(rows == 0 && ncol == 0);
        if (bl != bad[i].line || bc != bad[i].col) {
            fprintf(stderr, "case %zu: line %lld col %lld\n", i, (long long)bl, (long long)bc);
        }
        CHECK(bl == bad[i].line && bc == bad[i].col);
        CHECK(strstr(wpart_last_error(), "line") != NULL ||
              strstr(wpart_last_error(), "no data") != NULL);
    }
    int64_t rows, s[CAP];
    double t[CAP], e[CAP];
    int ncol;
    CHECK_STATUS(wpart_hetero_parse_points("1 2\n3 4\n", 8, 1, &rows, &ncol, s, t, e, NULL, NULL),
                 WPART_ELIMIT);
    CHECK_STATUS(wpart_hetero_parse_points(NULL, 3, CAP, &rows, &ncol, s, t, e, NULL, NULL),
                 WPART_EINVAL);
}

static wpart_status_t csv(const char *text, int nf, int cp, int cs, int ct, int ce,
                          int64_t *rows, int64_t *code, int64_t *s, double *t, double *e,
                          int64_t *off, int64_t *len, int64_t *names, int64_t *bl, int64_t *bc)
{
    size_t n = strlen(text);
    char *b = malloc(n ? n : 1);
    memcpy(b, text, n);
    wpart_status_t st = wpart_hetero_parse_csv(b, n, nf, cp, cs, ct, ce, CAP, rows, code, s, t, e,
                                               off, len, names, bl, bc);
    free(b);
    return st;
}

static void test_csv(void)
{
    int64_t rows, code[CAP], s[CAP], off[CAP], len[CAP], names, bl, bc;
    double t[CAP], e[CAP];
    const char *body = "a,1,2.5,3\r\n b ,2,3, \n\na,4.0,1e-3,7\nc\xc3\xa9x,5,1,\n";
    CHECK_STATUS(csv(body, 4, 0, 1, 2, 3, &rows, code, s, t, e, off, len, &names, &bl, &bc),
                 WPART_OK);
    CHECK(rows == 4 && names == 3);
    CHECK(code[0] == 0 && code[1] == 1 && code[2] == 0 && code[3] == 2);
    CHECK(off[1] == 12 && len[1] == 1 && len[2] == 4 &&
          memcmp(body + off[2], "c\xc3\xa9x", 4) == 0);
    CHECK(s[2] == 4 && t[2] == 1e-3 && e[1] == 0 && e[2] == 7 && e[3] == 0);
    CHECK_STATUS(csv("\xc3\xa9,1,1,1\n", 4, 0, 1, 2, 3, &rows, code, s, t, e, off, len, &names,
                     &bl, &bc), WPART_EINVAL); /* a non-ASCII edge: Python's strip decides */
    /* many distinct names: the name table grows */
    char big[CAP * 12 + 1] = "";
    for (int i = 0; i < CAP; i++) {
        char line[16];
        snprintf(line, sizeof line, "%d,p%d,1\n", i + 1, i % 13);
        strcat(big, line);
    }
    CHECK_STATUS(csv(big, 3, 1, 0, 2, -1, &rows, code, s, t, e, off, len, &names, &bl, &bc),
                 WPART_OK);
    CHECK(rows == CAP && names == 13 && code[13] == 0 && code[15] == 2 && s[15] == 16);
    CHECK(e[0] == 0 && t[0] == 1);
    static const struct {
        const char *text;
        int64_t line, col;
    } bad[] = {
        {"a,1,2,3\na,1,x,3\n", 2, 3},
        {"a,1,2,3\na,1,2\n", 2, 3},
        {"a,1,2,3\na,1,2,3,4\n", 2, 5},
        {"\"a\",1,2,3\n", 1, 1},
        {"a,2.5,2,3\n", 1, 2},
        {"a,1,,3\n", 1, 3},
        {"a,1,2,3\n \n", 2, 1},
        {"\n\n", 2, 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bl = bc = -1;
        CHECK_STATUS(csv(bad[i].text, 4, 0, 1, 2, 3, &rows, code, s, t, e, off, len, &names, &bl,
                         &bc), WPART_EINVAL);
        if (bl != bad[i].line || bc != bad[i].col) {
            fprintf(stderr, "csv case %zu: line %lld col %lld\n", i, (long long)bl,
                    (long long)bc);
        }
        CHECK(rows == 0 && names == 0 && bl == bad[i].line && bc == bad[i].col);
    }
    CHECK_STATUS(csv("a,1,2\n", 3, 0, 1, 3, -1, &rows, code, s, t, e, off, len, &names, NULL,
                     NULL), WPART_EINVAL);
}

int main(void)
{
    test_points_good();
    test_points_bad();
    test_csv();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("test_profile_parse: all checks passed\n");
    return 0;
}
