/* Number text: the from_chars/to_chars shim against glibc's correctly
 * rounded strtod/strtof and snprintf, on random bit patterns and the edge
 * cases (subnormals, 9 and 17 digits, exponents, signs, inf/nan, range);
 * the hand-written integer code against snprintf and its own limits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "io/numconv.h"

static uint64_t bits64(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double parse_d(const char *s, size_t *used)
{
    double v = -12345;
    const char *e = tdcl_nc_parse_f64(s, s + strlen(s), &v);
    *used = e ? (size_t)(e - s) : 0;
    return v;
}

static void test_parse_matches_strtod(void **state)
{
    (void)state;
    static const char *cases[] = {
        "0",
        "-0",
        "1",
        "+1",
        "0.1",
        "1e10",
        "1E-10",
        "1.7976931348623157e308",
        "2.2250738585072014e-308",
        "2.2250738585072011e-308",
        "4.9406564584124654e-324",
        "2.4703282292062328e-324", /* just above half the smallest subnormal */
        "123456789",
        "1.23456789",
        "12345678901234567",
        "0.30000000000000004",
        "9007199254740993",
        "1e-5",
        "100000000000000000000000",
        ".5",
        "5.",
        "-7.25e+03",
        "0.000000000000000000000000000000000000000001",
        "1e308",
        "8.98846567431158e307"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t used;
        double got = parse_d(cases[i], &used), want = strtod(cases[i], NULL);
        if (memcmp(&got, &want, sizeof got) != 0)
            print_message("'%s': got %.17g want %.17g\n", cases[i], got, want);
        assert_memory_equal(&got, &want, sizeof got);
        assert_int_equal(used, strlen(cases[i]));
    }
}

/* Random decimal text of every shape the fast path takes or hands on:
 * 1 to 22 digits, leading and trailing zeros, a point anywhere, exponents
 * around the +-22 edge and far past it, signs. Both parsers must agree
 * with strtod bit for bit and stop at the same character. */
static void test_fast_path_matches_strtod(void **state)
{
    (void)state;
    uint64_t seed = 99;
    char txt[96];
    for (int i = 0; i < 400000; i++) {
        uint64_t r = tdcl_test_rand(&seed);
        int len = 0, nd = 1 + (int)(r % 22), point = (int)((r >> 8) % (unsigned)(nd + 2)) - 1;
        if ((r >> 16) & 1) txt[len++] = (r >> 17) & 1 ? '-' : '+';
        for (int k = 0; k < nd; k++) {
            if (k == point) txt[len++] = '.';
            uint64_t d = tdcl_test_rand(&seed);
            txt[len++] = (char)('0' + (d % 4 == 0 ? 0 : d % 10)); /* many zeros */
        }
        if ((r >> 20) % 3) {
            int ex = (int)((r >> 24) % 61) - 30;
            if ((r >> 40) % 17 == 0) ex *= 15; /* far exponents */
            len += snprintf(txt + len, sizeof txt - (size_t)len, "%c%d", (r >> 32) & 1 ? 'e' : 'E',
                            ex);
        }
        txt[len] = '\0';
        char *want_end;
        double want = strtod(txt, &want_end);
        double a = -1, b = -1, c = -1;
        const char *ea = tdcl_nc_parse_f64_fast(txt, txt + len, &a);
        const char *eb = tdcl_nc_parse_f64(txt, txt + len, &b);
        /* inside a long buffer, as in a file, where the SIMD path runs */
        char big[160];
        memset(big, ' ', sizeof big);
        memcpy(big, txt, (size_t)len);
        big[len] = (r >> 44) & 1 ? '\n' : 'x';
        const char *ec = tdcl_nc_parse_f64_fast(big, big + sizeof big, &c);
        assert_true(bits64(c) == bits64(want));
        assert_ptr_equal(ec, big + (want_end - txt));
        if (bits64(a) != bits64(want) || ea != want_end)
            print_message("'%s': fast %.17g, strtod %.17g\n", txt, a, want);
        assert_true(bits64(a) == bits64(want));
        assert_true(bits64(b) == bits64(want));
        assert_ptr_equal(ea, want_end);
        assert_ptr_equal(eb, want_end);
    }
    /* and the inputs it must hand on untouched */
    static const char *odd[] = {"inf", "-nan", "+-1", ".", "-", "1.5e", "1e+", "5.", ".5e-3"};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        double a = 7, b = 7;
        const char *e = odd[i] + strlen(odd[i]);
        const char *ea = tdcl_nc_parse_f64_fast(odd[i], e, &a);
        const char *eb = tdcl_nc_parse_f64(odd[i], e, &b);
        assert_ptr_equal(ea, eb);
        assert_true(bits64(a) == bits64(b) || (isnan(a) && isnan(b)));
    }
}

static void test_range_and_spellings(void **state)
{
    (void)state;
    size_t used;
    assert_true(parse_d("1e400", &used) == INFINITY && used == 5);
    assert_true(parse_d("-1e400", &used) == -INFINITY);
    assert_true(parse_d("123456e999999999999", &used) == INFINITY);
    double z = parse_d("1e-400", &used);
    assert_true(z == 0 && !signbit(z) && used == 6);
    z = parse_d("-0.0001e-330", &used);
    assert_true(z == 0 && signbit(z));
    assert_true(parse_d("2e-324", &used) == 0); /* rounds to zero, not a subnormal */
    assert_true(parse_d("inf", &used) == INFINITY && used == 3);
    assert_true(parse_d("-Infinity", &used) == -INFINITY && used == 9);
    assert_true(parse_d("+INF", &used) == INFINITY && used == 4);
    assert_true(isnan(parse_d("nan", &used)) && used == 3);
    assert_true(isnan(parse_d("NaN", &used)));
    /* what is not a number */
    static const char *bad[] = {"", "+", "-", "+-1", "++1", "e5", "x", " 1", "."};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v;
        assert_null(tdcl_nc_parse_f64(bad[i], bad[i] + strlen(bad[i]), &v));
    }
    /* a number stops where its grammar stops: the caller sees the rest */
    assert_true(parse_d("1.5e", &used) == 1.5 && used == 3);
    assert_true(parse_d("0x10", &used) == 0 && used == 1);
    assert_true(parse_d("1,5", &used) == 1 && used == 1); /* no locale decimal comma */
    /* the end pointer is respected: "12" of "123" */
    const char *s = "123";
    double v;
    assert_ptr_equal(tdcl_nc_parse_f64(s, s + 2, &v), s + 2);
    assert_true(v == 12);
    float f;
    s = "1e39";
    assert_non_null(tdcl_nc_parse_f32(s, s + 4, &f));
    assert_true(f == INFINITY);
    s = "1e-46";
    assert_non_null(tdcl_nc_parse_f32(s, s + 5, &f));
    assert_true(f == 0);
}

/* Random bit patterns (every exponent, subnormals included): the shortest
 * text reads back bit-identical, is no longer than %.17g, and parsing
 * %.17g text agrees with strtod. */
static void test_random_doubles_round_trip(void **state)
{
    (void)state;
    uint64_t seed = 42;
    char buf[TDCL_NC_MAX + 1], ref[64];
    for (int i = 0; i < 200000; i++) {
        uint64_t u = tdcl_test_rand(&seed);
        if (i % 4 == 0) u &= 0x800FFFFFFFFFFFFFULL; /* subnormals */
        double d;
        memcpy(&d, &u, sizeof d);
        if (isnan(d)) continue;
        char *e = tdcl_nc_format_f64(buf, d);
        *e = '\0';
        double back;
        assert_ptr_equal(tdcl_nc_parse_f64(buf, e, &back), e);
        if (bits64(back) != u)
            print_message("%s does not read back as %016llx\n", buf, (unsigned long long)u);
        assert_true(bits64(back) == u);
        snprintf(ref, sizeof ref, "%.17g", d);
        assert_true(strlen(buf) <= strlen(ref) + 4); /* "e+XX" vs "e+0XX" spellings */
        size_t used;
        double p = parse_d(ref, &used);
        assert_true(bits64(p) == bits64(strtod(ref, NULL)));
    }
}

static void test_random_floats_round_trip(void **state)
{
    (void)state;
    uint64_t seed = 7;
    char buf[TDCL_NC_MAX + 1], ref[64];
    for (int i = 0; i < 200000; i++) {
        uint32_t u = (uint32_t)tdcl_test_rand(&seed);
        float f;
        memcpy(&f, &u, sizeof f);
        if (isnan(f)) continue;
        char *e = tdcl_nc_format_f32(buf, f);
        *e = '\0';
        float back;
        assert_ptr_equal(tdcl_nc_parse_f32(buf, e, &back), e);
        assert_memory_equal(&back, &f, sizeof f);
        /* and through a double, as the Matrix Market reader reads it */
        double d;
        assert_ptr_equal(tdcl_nc_parse_f64_fast(buf, e, &d), e);
        back = (float)d;
        assert_memory_equal(&back, &f, sizeof f);
        /* at most 9 significant digits, as float32 needs */
        snprintf(ref, sizeof ref, "%.9g", f);
        assert_true(strlen(buf) <= strlen(ref) + 4);
        float p;
        assert_non_null(tdcl_nc_parse_f32(ref, ref + strlen(ref), &p));
        float want = strtof(ref, NULL);
        assert_memory_equal(&p, &want, sizeof p);
    }
}

static void test_format_shortest_examples(void **state)
{
    (void)state;
    static const struct {
        double d;
        const char *s;
    } cases[] = {{0.1, "0.1"},       {-0.0, "-0"},
                 {1e21, "1e+21"},    {1e-7, "1e-07"},
                 {100, "100"},       {0.3, "0.3"},
                 {INFINITY, "inf"},  {-INFINITY, "-inf"},
                 {5e-324, "5e-324"}, {1.0 / 3, "0.3333333333333333"}};
    char buf[TDCL_NC_MAX + 1];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        *tdcl_nc_format_f64(buf, cases[i].d) = '\0';
        assert_string_equal(buf, cases[i].s);
    }
    *tdcl_nc_format_f64(buf, -NAN) = '\0';
    assert_string_equal(buf, "nan");
    *tdcl_nc_format_f32(buf, 0.1f) = '\0';
    assert_string_equal(buf, "0.1");
    *tdcl_nc_format_f32(buf, 3.4028235e38f) = '\0';
    assert_string_equal(buf, "3.4028235e+38");
    /* float32 in both notations; an integer in fixed notation is exact
     * (123456792, not the shorter-digit 123456790) */
    static const struct {
        float f;
        const char *s;
    } fcases[] = {{123456792.f, "123456792"},
                  {0.f, "0"},
                  {-0.f, "-0"},
                  {1e10f, "1e+10"},
                  {1e-5f, "1e-05"},
                  {1e-4f, "1e-04"},
                  {1e-3f, "0.001"},
                  {100000.f, "1e+05"},
                  {10000.f, "10000"},
                  {12300000.f, "12300000"},
                  {1.5e9f, "1.5e+09"},
                  {9.999999e-5f, "9.999999e-05"},
                  {-2.5f, "-2.5"},
                  {16777216.f, "16777216"},
                  {0.123456789f, "0.12345679"},
                  {-1.17549435e-38f, "-1.1754944e-38"}};
    for (size_t i = 0; i < sizeof fcases / sizeof fcases[0]; i++) {
        *tdcl_nc_format_f32(buf, fcases[i].f) = '\0';
        assert_string_equal(buf, fcases[i].s);
    }
}

/* 1 when tdcl_nc_format_f32 writes exactly what std::to_chars writes. (The
 * one exception, 7.038531e-26, which does not read back through a double,
 * has its own test.) */
static int same_as_to_chars(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    char a[TDCL_NC_MAX + 1], b[TDCL_NC_MAX + 1];
    *tdcl_nc_format_f32(a, f) = '\0';
    *tdcl_nc_format_f32_std(b, f) = '\0';
    if (strcmp(a, b) == 0) return 1;
    print_error("float %08x: '%s', std::to_chars '%s'\n", (unsigned)u, a, b);
    return 0;
}

/* Of all 2^32 floats, only 7.038531e-26 (0x15ae43fd) and its negative
 * have a shortest text that a double read puts exactly on a float32 tie
 * (it reads back as 0x15ae43fe once converted): they are written with one
 * more digit, which reads back right both ways. */
static void test_f32_text_survives_double_read(void **state)
{
    (void)state;
    static const struct {
        uint32_t bits;
        const char *s;
    } cases[] = {{0x15ae43fd, "7.0385307e-26"}, {0x95ae43fd, "-7.0385307e-26"}};
    for (size_t i = 0; i < 2; i++) {
        float f;
        memcpy(&f, &cases[i].bits, sizeof f);
        char buf[TDCL_NC_MAX + 1], ref[TDCL_NC_MAX + 1];
        *tdcl_nc_format_f32(buf, f) = '\0';
        assert_string_equal(buf, cases[i].s);
        double d;
        char *e = tdcl_nc_format_f32_std(ref, f);
        assert_non_null(tdcl_nc_parse_f64(ref, e, &d));
        float via_double = (float)d; /* std::to_chars's shorter text does not survive */
        assert_memory_not_equal(&via_double, &f, sizeof f);
    }
}

/* The C float32 formatter against std::to_chars (libstdc++'s Ryu), which it
 * reproduces byte for byte: every exponent and both signs with the
 * significands at the edges (powers of two, whose interval is lopsided, odd
 * and even ends) and random ones; the floats nearest to powers of ten and
 * their neighbours, where digit removal and rounding meet; small integers
 * and decimals, where fixed and scientific notation trade places. All 2^32
 * floats were compared once with tools/matio_exhaustive_vs_to_chars.c. */
static void test_f32_matches_to_chars(void **state)
{
    (void)state;
    static const uint32_t edge[] = {0, 1, 2, 3, 0x3FFFFF, 0x400000, 0x400001, 0x7FFFFE, 0x7FFFFF};
    uint64_t seed = 11;
    for (uint32_t sign = 0; sign < 2; sign++)
        for (uint32_t e = 0; e < 256; e++) {
            uint32_t top = sign << 31 | e << 23;
            for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
                assert_true(same_as_to_chars(top | edge[i]));
            for (int i = 0; i < 2000; i++)
                assert_true(same_as_to_chars(top | ((uint32_t)tdcl_test_rand(&seed) & 0x7FFFFF)));
        }
    for (int k = -46; k <= 39; k++) {
        float p = (float)pow(10.0, k);
        uint32_t u;
        memcpy(&u, &p, sizeof u);
        for (uint32_t d = 0; d < 8; d++) {
            assert_true(same_as_to_chars(u + d));
            assert_true(same_as_to_chars(u - d));
        }
    }
    for (int i = 1; i <= 200000; i++) {
        float fi = (float)i, fd = (float)(i / 1000.0), fe = (float)(i * 1e7);
        uint32_t u[3];
        memcpy(&u[0], &fi, 4), memcpy(&u[1], &fd, 4), memcpy(&u[2], &fe, 4);
        for (int k = 0; k < 3; k++)
            assert_true(same_as_to_chars(u[k]));
    }
}

static void test_integers(void **state)
{
    (void)state;
    char buf[32], ref[32];
    static const int64_t edge[] = {0,
                                   1,
                                   -1,
                                   9,
                                   10,
                                   99,
                                   100,
                                   101,
                                   INT64_MAX,
                                   INT64_MIN,
                                   4294967296LL,
                                   -2147483648LL,
                                   1000000000000000000LL};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        *tdcl_nc_format_i64(buf, edge[i]) = '\0';
        snprintf(ref, sizeof ref, "%lld", (long long)edge[i]);
        assert_string_equal(buf, ref);
    }
    uint64_t seed = 9;
    for (int i = 0; i < 100000; i++) {
        int64_t v = (int64_t)tdcl_test_rand(&seed) >> (i % 64);
        char *e = tdcl_nc_format_i64(buf, v);
        *e = '\0';
        snprintf(ref, sizeof ref, "%lld", (long long)v);
        assert_string_equal(buf, ref);
        int64_t back;
        int ovf;
        assert_ptr_equal(tdcl_nc_parse_i64(buf, e, &back, &ovf), e);
        assert_true(back == v);
    }
    int64_t v;
    int ovf;
    const char *s = "9223372036854775807";
    assert_non_null(tdcl_nc_parse_i64(s, s + strlen(s), &v, &ovf));
    assert_true(v == INT64_MAX);
    s = "9223372036854775808";
    assert_null(tdcl_nc_parse_i64(s, s + strlen(s), &v, &ovf));
    assert_int_equal(ovf, 1);
    s = "-9223372036854775808";
    assert_non_null(tdcl_nc_parse_i64(s, s + strlen(s), &v, &ovf));
    assert_true(v == INT64_MIN);
    s = "-9223372036854775809";
    assert_null(tdcl_nc_parse_i64(s, s + strlen(s), &v, &ovf));
    s = "99999999999999999999999";
    assert_null(tdcl_nc_parse_i64(s, s + strlen(s), &v, &ovf));
    assert_int_equal(ovf, 1);
    s = "-";
    assert_null(tdcl_nc_parse_i64(s, s + 1, &v, &ovf));
    assert_int_equal(ovf, 0);
    /* the SIMD index parser, inside a long buffer as in a file */
    for (int i = 0; i < 100000; i++) {
        char big[64];
        memset(big, ' ', sizeof big);
        uint64_t want = tdcl_test_rand(&seed) >> (i % 64);
        int n = snprintf(big, sizeof big, "%llu", (unsigned long long)want);
        big[n] = i % 2 ? ' ' : '\n';
        uint64_t got;
        const char *e = tdcl_nc_parse_u64_fast(big, big + sizeof big, &got, &ovf);
        assert_ptr_equal(e, big + n);
        assert_true(got == want);
    }
    uint64_t u;
    s = "18446744073709551615";
    assert_non_null(tdcl_nc_parse_u64(s, s + strlen(s), &u, &ovf));
    assert_true(u == UINT64_MAX);
}

#ifdef __SSE2__
/* 1 when the line parser must take txt: an optional '-', 1 to 15 digits
 * with at most one point, an optional exponent of 1 to 3 digits, 16 bytes
 * at most, and once the mantissa's digits are read as the 16 digit places
 * V = m * 10^(16 - its end), V below 2^53 (with a margin) and V's decimal
 * exponent within +-22. */
static int line_form(const char *txt, int nd, int has_point, int ex_digits, int e10)
{
    size_t len = strlen(txt), pe = strcspn(txt, "eE");
    double m = 0;
    for (size_t i = 0; i < pe; i++)
        if (txt[i] >= '0' && txt[i] <= '9') m = m * 10 + (txt[i] - '0');
    int k = e10 - (16 - (int)pe);
    return len <= 16 && txt[0] != '+' && nd >= 1 && nd <= 15 && has_point <= 1 && ex_digits <= 3 &&
           m * pow(10, 16 - (double)pe) < 9.0e15 && k >= -22 && k <= 22;
}

/* tdcl_nc_parse_f64_line against strtod: every text it takes must be
 * read whole and to strtod's bits, every text of its form must be taken,
 * and what it refuses leaves the output alone. */
static void test_line_parser_matches_strtod(void **state)
{
    (void)state;
    uint64_t seed = 4242;
    char big[64];
    int taken = 0;
    for (int i = 0; i < 400000; i++) {
        uint64_t r = tdcl_test_rand(&seed);
        char txt[48];
        int len = 0, nd = 1 + (int)(r % 17), point = (int)((r >> 8) % (unsigned)(nd + 3)) - 1;
        int has_point = point >= 0 && point <= nd, e10 = 0, ex_digits = 0;
        if ((r >> 16) % 4 == 0) txt[len++] = (r >> 18) & 1 ? '-' : '+';
        if ((r >> 16) % 4 == 1) txt[len++] = '-';
        for (int k = 0; k <= nd; k++) {
            if (k == point) txt[len++] = '.';
            if (k == nd) break;
            uint64_t d = tdcl_test_rand(&seed);
            txt[len++] = (char)('0' + (d % 4 == 0 ? 0 : d % 10));
        }
        if (has_point) e10 -= nd - point;
        if ((r >> 20) % 3 == 0) {
            int ex = (int)((r >> 24) % 61) - 30;
            const char *sg = ex < 0 ? "-" : (r >> 33) & 1 ? "+" : "";
            ex_digits = (r >> 34) % 5 == 0 ? 3 : ex < -9 || ex > 9 ? 2 : 1;
            len += snprintf(txt + len, sizeof txt - (size_t)len, "%c%s%0*d",
                            (r >> 32) & 1 ? 'e' : 'E', sg, ex_digits, ex < 0 ? -ex : ex);
            e10 += ex;
        }
        txt[len] = '\0';
        /* in a longer buffer, as in a file: what follows the line is read */
        memset(big, (r >> 40) & 1 ? '7' : '\n', sizeof big);
        memcpy(big, txt, (size_t)len);
        double got = 12345;
        int ok = tdcl_nc_parse_f64_line(big, (size_t)len, &got);
        char *end;
        double want = strtod(txt, &end);
        if (ok) {
            taken++;
            if (bits64(got) != bits64(want) || *end)
                fail_msg("'%s': line parser %.17g, strtod %.17g", txt, got, want);
        } else {
            assert_true(got == 12345);
        }
        if (!ok && line_form(txt, nd, has_point, ex_digits, e10))
            fail_msg("'%s' is of the line parser's form but was refused", txt);
    }
    assert_true(taken > 50000);
    static const char *refused[] = {"",
                                    "-",
                                    ".",
                                    "-.",
                                    "+1",
                                    " 1",
                                    "1 ",
                                    "1e",
                                    "1e+",
                                    "1E-",
                                    "e5",
                                    "1.2.3",
                                    "1e5.",
                                    "1e5e",
                                    "--1",
                                    "1-2",
                                    "nan",
                                    "-inf",
                                    "0x1p3",
                                    "1e1234",
                                    "1e40",
                                    "1e-23",
                                    "1234567890123456",
                                    "1.5\r",
                                    "12345678901234567"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        memset(big, '\n', sizeof big);
        memcpy(big, refused[i], strlen(refused[i]));
        double got = 7;
        if (tdcl_nc_parse_f64_line(big, strlen(refused[i]), &got))
            fail_msg("'%s' taken as %.17g", refused[i], got);
    }
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_matches_strtod),
        cmocka_unit_test(test_fast_path_matches_strtod),
        cmocka_unit_test(test_range_and_spellings),
        cmocka_unit_test(test_random_doubles_round_trip),
        cmocka_unit_test(test_random_floats_round_trip),
        cmocka_unit_test(test_format_shortest_examples),
        cmocka_unit_test(test_f32_matches_to_chars),
        cmocka_unit_test(test_f32_text_survives_double_read),
        cmocka_unit_test(test_integers),
#ifdef __SSE2__
        cmocka_unit_test(test_line_parser_matches_strtod),
#endif
    };
    return cmocka_run_group_tests_name("numconv", tests, NULL, NULL);
}
