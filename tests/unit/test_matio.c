/* Matrix files: Matrix Market and .npy round trips, every format variant
 * against hand-computed layouts, every error with its message, gzip,
 * chunk boundaries and thread counts, and fixtures written by scipy/numpy. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>
#include <zlib.h>

#include "tdcl_test.h"

#include "base/csr.h"
#include "base/fileio.h"
#include "io/matio.h"
#include "io/mtx.h"
#include "io/npy.h"
#include "io/sparse_io.h"

static char *dir;

static int group_setup(void **state)
{
    (void)state;
    dir = tdcl_test_tmpdir();
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) return -1;
    free(dir);
    return 0;
}

/* A scratch path in one of four static buffers (four may be in use). */
static const char *tmp(const char *name)
{
    static char p[4][4200];
    static int next;
    char *b = p[next++ % 4];
    snprintf(b, sizeof p[0], "%s/%s", dir, name);
    return b;
}

static tdcl_status read_text(const char *text, tdcl_matrix *m, tdcl_err *e)
{
    tdcl_test_write_text(tmp("in.mtx"), text);
    memset(e, 0, sizeof *e);
    return tdcl_matrix_read(tmp("in.mtx"), 0, m, e);
}

/* Reads text and checks the shape, dtype and row-major values. */
static void expect_f64(const char *text, int64_t rows, int64_t cols, const double *want)
{
    tdcl_matrix m;
    tdcl_err e;
    tdcl_status st = read_text(text, &m, &e);
    if (st) print_message("unexpected error: %s\n", e.msg);
    assert_int_equal(st, TDCL_OK);
    assert_int_equal(m.rows, rows);
    assert_int_equal(m.cols, cols);
    assert_int_equal(m.dtype, TDCL_F64);
    for (int64_t k = 0; k < rows * cols; k++)
        assert_true(((double *)m.data)[k] == want[k]);
    tdcl_matrix_free(&m);
}

static void expect_i64(const char *text, int64_t rows, int64_t cols, const int64_t *want)
{
    tdcl_matrix m;
    tdcl_err e;
    tdcl_status st = read_text(text, &m, &e);
    if (st) print_message("unexpected error: %s\n", e.msg);
    assert_int_equal(st, TDCL_OK);
    assert_int_equal(m.rows, rows);
    assert_int_equal(m.cols, cols);
    assert_int_equal(m.dtype, TDCL_I64);
    for (int64_t k = 0; k < rows * cols; k++)
        assert_true(((int64_t *)m.data)[k] == want[k]);
    tdcl_matrix_free(&m);
}

static void test_array_real_column_major(void **state)
{
    (void)state;
    /* entries go down the columns: (1,1) (2,1) (1,2) (2,2) (1,3) (2,3) */
    const double want[] = {1.5, -2, 3e10, 4, 0.25, -6e-3};
    expect_f64("%%MatrixMarket matrix array real general\n"
               "% a comment\n"
               "2 3\n1.5\n4\n-2\n0.25\n3e10\n-6e-3\n",
               2, 3, want);
}

static void test_array_integer(void **state)
{
    (void)state;
    const int64_t want[] = {9007199254740993LL, INT64_MIN, -1, INT64_MAX};
    expect_i64("%%MatrixMarket matrix array integer general\n2 2\n"
               "9007199254740993\n-1\n-9223372036854775808\n9223372036854775807\n",
               2, 2, want);
}

static void test_coordinate_real_sums_duplicates(void **state)
{
    (void)state;
    const double want[] = {0, 2.5, 0, 0, 0, 0, 7, 0, -1};
    expect_f64("%%MatrixMarket matrix coordinate real general\n3 3 4\n"
               "1 2 2.5\n3 1 3\n3 3 -1\n3 1 4\n",
               3, 3, want);
}

static void test_coordinate_integer_and_pattern(void **state)
{
    (void)state;
    const int64_t wi[] = {0, 5000000000LL, -3, 0};
    expect_i64("%%MatrixMarket matrix coordinate integer general\n2 2 2\n"
               "1 2 5000000000\n2 1 -3\n",
               2, 2, wi);
    const double wp[] = {1, 0, 0, 1, 1, 0};
    expect_f64("%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 1\n2 2\n2 1\n", 2, 3,
               wp);
    /* a pattern entry given twice is one entry, as the CSR reading keeps it */
    expect_f64("%%MatrixMarket matrix coordinate pattern general\n2 3 4\n1 1\n2 2\n2 1\n1 1\n", 2,
               3, wp);
}

static void test_symmetric_and_skew(void **state)
{
    (void)state;
    const double sym[] = {1, 2, 3, 2, 4, 5, 3, 5, 6};
    /* array: the lower triangle column by column */
    expect_f64("%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n", 3, 3, sym);
    expect_f64("%%MatrixMarket matrix coordinate real symmetric\n3 3 6\n"
               "1 1 1\n2 1 2\n3 1 3\n2 2 4\n3 2 5\n3 3 6\n",
               3, 3, sym);
    const double skew[] = {0, -2, -3, 2, 0, -5, 3, 5, 0};
    expect_f64("%%MatrixMarket matrix array real skew-symmetric\n3 3\n2\n3\n5\n", 3, 3, skew);
    expect_f64("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 3\n"
               "2 1 2\n3 1 3\n3 2 5\n",
               3, 3, skew);
    const int64_t iskew[] = {0, -7, 7, 0};
    expect_i64("%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 7\n", 2, 2,
               iskew);
    const double psym[] = {1, 1, 1, 0};
    expect_f64("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n", 2, 2, psym);
}

static void test_tolerant_parsing(void **state)
{
    (void)state;
    const double want[] = {1, 2, 3, 4};
    /* any-case banner, CRLF, blank and comment lines before the size line,
     * leading blanks, blank lines between entries, no final newline */
    expect_f64("%%matrixmarket MATRIX Coordinate REAL General\r\n"
               "%\r\n\r\n% comment\r\n   \r\n"
               "  2 2 4  \r\n"
               "1 1 1\r\n\r\n  1\t2   2\r\n2 1 3 \r\n\n2 2 4",
               2, 2, want);
    expect_f64("%%MatrixMarket matrix array double general\n2 2\n1\n\n3\r\n  2\n4", 2, 2, want);
    const double spell[] = {INFINITY, -INFINITY, 1, -0.0};
    expect_f64("%%MatrixMarket matrix array real general\n2 2\ninf\n+1\n-Infinity\n-0\n", 2, 2,
               spell);
    tdcl_matrix m;
    tdcl_err e;
    assert_int_equal(read_text("%%MatrixMarket matrix array real general\n1 2\nNaN\nnan\n", &m, &e),
                     TDCL_OK);
    assert_true(isnan(((double *)m.data)[0]) && isnan(((double *)m.data)[1]));
    tdcl_matrix_free(&m);
}

/* Error cases: the text, the status, and a piece of the message. */
static const struct {
    const char *text, *msg;
    tdcl_status st;
} bad_files[] = {
    {"", "is empty", TDCL_EPARSE},
    {" \t\n%%MatrixMarket\n",
     ":1: expected the banner '%%MatrixMarket matrix FORMAT FIELD "
     "SYMMETRY', got 'end of line'",
     TDCL_EPARSE}, /* found by fuzz_mtx: a blank first line */
    {"hello\n",
     ":1: expected the banner '%%MatrixMarket matrix FORMAT FIELD SYMMETRY', got "
     "'hello'",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix array complex general\n1 1\n1 0\n",
     ":1: complex matrices are not "
     "supported",
     TDCL_EUNSUPPORTED},
    {"%%MatrixMarket matrix coordinate complex hermitian\n1 1 1\n1 1 1 0\n",
     ":1: complex matrices are not supported", TDCL_EUNSUPPORTED},
    {"%%MatrixMarket matrix array pattern general\n1 1\n", "pattern' needs the coordinate",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix sparse real general\n",
     ":1: expected the format 'array' or "
     "'coordinate', got 'sparse'",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix array real\n",
     ":1: expected the symmetry 'general', 'symmetric', 'skew-symmetric' or 'hermitian', got "
     "'end of line'",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix array real general extra\n", "end of the banner", TDCL_EPARSE},
    {"%%MatrixMarket vector array real general\n",
     "vector objects are not supported (object 'vector')", TDCL_EUNSUPPORTED},
    {"%%MatrixMarket matrix array real general\n% c\n-2 2\n",
     ":3: expected 'rows cols' after "
     "the banner, got '-2 2'",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix coordinate real general\n2 2\n",
     ":2: expected 'rows cols entries' "
     "after the banner, got '2 2'",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix array real general\n0 2\n", "expected 'rows cols'", TDCL_EPARSE},
    {"%%MatrixMarket matrix array real general\n% only comments\n", ":3: expected the size line",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix array real symmetric\n2 3\n",
     ":2: a symmetric matrix must be "
     "square, got 2x3",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix array real general\n2 2\n1.0\n2.0\n3.0\n",
     ":5: expected 4 entries, got 3 "
     "before the end of the file",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n",
     ":5: expected the end of the "
     "file after 2 entries, got '3'",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix array real general\n1 2\n1\nabc\n",
     ":4: expected a real number, got "
     "'abc'",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix array real general\n1 2\n1\n2 junk\n",
     ":4: expected the end of the "
     "line after the value, got "
     "'junk'",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix array real general\n1 2\n1\n1.5e\n", "got 'e'", TDCL_EPARSE},
    {"%%MatrixMarket matrix array integer general\n1 1\n1.5\n",
     ":3: expected an integer, got "
     "'1.5'",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix array integer general\n1 1\n9223372036854775808\n",
     "outside the int64 range", TDCL_EPARSE},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 5\n",
     ":3: row index 0 is out "
     "of range 1..2",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 5\n",
     ":3: column index 3 is out "
     "of range 1..2",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 5\n",
     ":3: expected a column "
     "index, got 'x'",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1     \n",
     ":3: expected 'row column "
     "value', got no value",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n",
     ":3: expected the end "
     "of the line after 'row "
     "column', got '1'",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 5\n",
     ":3: a skew-symmetric matrix has a zero diagonal, got '5' at (1, 1)", TDCL_EPARSE},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1000\n1 1 1\n",
     ":2: the size line claims 1000 entries, but the", TDCL_EPARSE},
    {"%%MatrixMarket matrix coordinate integer general\n1 1 2\n1 1 9223372036854775807\n1 1 1\n",
     "the sum of the entries at (1, 1) overflows int64", TDCL_EPARSE},
    /* no matrix at all: named by the first bytes, not called bad Matrix Market */
    {"\x89PNG\r\n\x1a\nIHDR", "in.mtx' is a PNG image, not a matrix (.mtx or .npy)",
     TDCL_EUNSUPPORTED},
    {"P6\n1 1\n255\nabc", "in.mtx' is a colour PPM image, not a matrix", TDCL_EUNSUPPORTED},
    {"\xff\xd8\xff\xe0", "in.mtx' is a JPEG image, not a matrix", TDCL_EUNSUPPORTED},
    {"PK\3\4zip", "in.mtx' is a zip archive (numpy's .npz is one); tiledcl reads .npy and .mtx",
     TDCL_EUNSUPPORTED},
};

static void test_errors_name_file_and_line(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) {
        tdcl_matrix m = {0};
        tdcl_err e;
        tdcl_status st = read_text(bad_files[i].text, &m, &e);
        if (st != bad_files[i].st || !strstr(e.msg, bad_files[i].msg))
            print_message("case %zu: status %d, message '%s'\n  expected '%s'\n", i, st, e.msg,
                          bad_files[i].msg);
        assert_int_equal(st, bad_files[i].st);
        assert_non_null(strstr(e.msg, bad_files[i].msg));
        assert_non_null(strstr(e.msg, "in.mtx"));
        assert_null(m.data);
    }
}

static void test_size_limits(void **state)
{
    (void)state;
    tdcl_matrix m;
    tdcl_err e;
    tdcl_test_write_text(tmp("big.mtx"),
                         "%%MatrixMarket matrix coordinate real general\n100 100 1\n1 1 1\n");
    assert_int_equal(tdcl_matrix_read(tmp("big.mtx"), 1000, &m, &e), TDCL_ELIMIT);
    assert_non_null(strstr(e.msg, "80000 bytes, more than the limit of 1000 bytes"));
    assert_int_equal(tdcl_matrix_read(tmp("big.mtx"), 80000, &m, &e), TDCL_OK);
    tdcl_matrix_free(&m);
    /* a dense size past this host's memory is refused before allocating */
    tdcl_test_write_text(tmp("huge.mtx"), "%%MatrixMarket matrix coordinate real general\n"
                                          "4000000000 4000000000 1\n1 1 1\n");
    assert_int_equal(tdcl_matrix_read(tmp("huge.mtx"), 0, &m, &e), TDCL_ELIMIT);
    assert_non_null(strstr(e.msg, "does not fit in memory") ||
                            strstr(e.msg, "more than this host's memory")
                        ? e.msg
                        : NULL);
    /* M*N overflowing 64 bits */
    tdcl_test_write_text(tmp("ovf.mtx"), "%%MatrixMarket matrix array real general\n"
                                         "9223372036854775807 9223372036854775807\n1\n");
    assert_int_equal(tdcl_matrix_read(tmp("ovf.mtx"), 0, &m, &e), TDCL_ELIMIT);
    assert_non_null(strstr(e.msg, "too large"));
    /* an array header claiming more than the file holds */
    tdcl_test_write_text(tmp("claim.mtx"), "%%MatrixMarket matrix array real general\n"
                                           "100000 100000\n1\n");
    assert_int_equal(tdcl_matrix_read(tmp("claim.mtx"), 0, &m, &e), TDCL_EPARSE);
    assert_non_null(strstr(e.msg, "claims 10000000000 entries"));
}

/* Values that stress shortest round-trip printing. */
static void fill_tricky_f64(tdcl_matrix *m, uint64_t seed)
{
    static const double special[] = {0.1,
                                     -0.0,
                                     1e-320,
                                     4.9406564584124654e-324,
                                     2.2250738585072014e-308,
                                     1.7976931348623157e308,
                                     123456789012345678.0,
                                     1.0 / 3.0,
                                     -2.5e-7,
                                     9007199254740993.0,
                                     INFINITY,
                                     -INFINITY,
                                     100,
                                     1e21,
                                     1e-5};
    tdcl_test_fill(m, seed, -1e6, 1e6);
    double *d = m->data;
    size_t n = tdcl_matrix_count(m), ns = sizeof special / sizeof special[0];
    uint64_t s = seed;
    for (size_t k = 0; k < n; k++) {
        uint64_t r = tdcl_test_rand(&s);
        if (r % 3 == 0)
            d[k] = special[(r >> 8) % ns];
        else if (r % 3 == 1) /* a random bit pattern: any exponent, 17 digits */
            memcpy(&d[k], &r, sizeof r);
        if (isnan(d[k])) d[k] = 1.5;
    }
}

static void assert_same_bits(const tdcl_matrix *a, const tdcl_matrix *b)
{
    assert_int_equal(a->rows, b->rows);
    assert_int_equal(a->cols, b->cols);
    assert_int_equal(a->dtype, b->dtype);
    assert_memory_equal(a->data, b->data, tdcl_matrix_count(a) * tdcl_dtype_size(a->dtype));
}

static void test_mtx_round_trip_f64_bits(void **state)
{
    (void)state;
    tdcl_matrix a, b;
    tdcl_err e;
    assert_int_equal(tdcl_matrix_alloc(&a, 37, 23, 1, TDCL_F64, &e), TDCL_OK);
    fill_tricky_f64(&a, 11);
    assert_int_equal(tdcl_matrix_write(tmp("rt.mtx"), &a, "tiledcl test", &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_read(tmp("rt.mtx"), 0, &b, &e), TDCL_OK);
    assert_same_bits(&a, &b);
    tdcl_matrix_free(&b);
    /* coordinate output holds the nonzeros only and reads back the same */
    tdcl_mtx_write_opts wo = {.coordinate = 1};
    assert_int_equal(tdcl_mtx_write_path(tmp("rtc.mtx"), &a, &wo, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_read(tmp("rtc.mtx"), 0, &b, &e), TDCL_OK);
    for (size_t k = 0; k < tdcl_matrix_count(&a); k++) /* -0.0 reads back as +0.0 */
        assert_true(((double *)a.data)[k] == ((double *)b.data)[k]);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
}

static void test_mtx_f32_prints_float32_shortest(void **state)
{
    (void)state;
    tdcl_matrix a, b;
    tdcl_err e;
    assert_int_equal(tdcl_matrix_alloc(&a, 1, 3, 1, TDCL_F32, &e), TDCL_OK);
    float *f = a.data;
    f[0] = 0.1f;
    f[1] = 16777217.0f; /* rounds to 16777216 */
    f[2] = 1.17549435e-38f;
    assert_int_equal(tdcl_matrix_write(tmp("f.mtx"), &a, NULL, &e), TDCL_OK);
    char *text;
    size_t n;
    assert_int_equal(tdcl_read_file(tmp("f.mtx"), &text, &n, &e), TDCL_OK);
    assert_string_equal(text, "%%MatrixMarket matrix array real general\n"
                              "% written by tiledcl\n1 3\n0.1\n16777216\n1.1754944e-38\n");
    free(text);
    /* the reader gives float64; converting back to float32 is exact */
    assert_int_equal(tdcl_matrix_read(tmp("f.mtx"), 0, &b, &e), TDCL_OK);
    for (int k = 0; k < 3; k++)
        assert_true((float)((double *)b.data)[k] == f[k]);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
}

static void test_mtx_integers_exact(void **state)
{
    (void)state;
    tdcl_matrix a, b;
    tdcl_err e;
    assert_int_equal(tdcl_matrix_alloc(&a, 4, 3, 1, TDCL_I64, &e), TDCL_OK);
    int64_t *d = a.data;
    const int64_t v[] = {INT64_MIN,     INT64_MAX, 0,   -1,  1,  4294967296LL,
                         -2147483649LL, 99,        100, -10, 10, 1000000000000000001LL};
    memcpy(d, v, sizeof v);
    assert_int_equal(tdcl_matrix_write(tmp("i.mtx"), &a, NULL, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_read(tmp("i.mtx"), 0, &b, &e), TDCL_OK);
    assert_same_bits(&a, &b);
    tdcl_matrix_free(&b);
    /* int32 writes the integer field and reads back as int64 */
    tdcl_matrix c;
    assert_int_equal(tdcl_matrix_convert(&a, TDCL_I32, &c, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_write(tmp("i32.mtx"), &c, NULL, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_read(tmp("i32.mtx"), 0, &b, &e), TDCL_OK);
    assert_int_equal(b.dtype, TDCL_I64);
    for (size_t k = 0; k < 12; k++)
        assert_int_equal(((int64_t *)b.data)[k], ((int32_t *)c.data)[k]);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&c);
}

static void test_npy_round_trip_all_dtypes(void **state)
{
    (void)state;
    const tdcl_dtype types[] = {TDCL_F32, TDCL_F64, TDCL_I32, TDCL_I64, TDCL_U8, TDCL_U16};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        tdcl_matrix a, b;
        tdcl_err e;
        assert_int_equal(tdcl_matrix_alloc(&a, 13, 7, 1, types[t], &e), TDCL_OK);
        int is_unsigned = types[t] == TDCL_U8 || types[t] == TDCL_U16;
        tdcl_test_fill(&a, 5 + t, is_unsigned ? 0 : -1e5, is_unsigned ? 250 : 1e5);
        assert_int_equal(tdcl_matrix_write(tmp("a.npy"), &a, NULL, &e), TDCL_OK);
        assert_int_equal(tdcl_matrix_read(tmp("a.npy"), 0, &b, &e), TDCL_OK);
        assert_same_bits(&a, &b);
        tdcl_matrix_free(&a);
        tdcl_matrix_free(&b);
    }
}

/* Writes a .npy file byte by byte: version, header text and data. */
static void write_npy(const char *path, int major, const char *dict, const void *data, size_t bytes)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    size_t n = strlen(dict);
    fwrite("\x93NUMPY", 1, 6, fp);
    fputc(major, fp);
    fputc(0, fp);
    fputc((int)(n & 0xff), fp);
    fputc((int)(n >> 8), fp);
    if (major > 1) {
        fputc(0, fp);
        fputc(0, fp);
    }
    fwrite(dict, 1, n, fp);
    fwrite(data, 1, bytes, fp);
    assert_int_equal(fclose(fp), 0);
}

static void test_npy_fortran_order_and_versions(void **state)
{
    (void)state;
    const double colmajor[] = {1, 4, 2, 5, 3, 6}; /* [[1,2,3],[4,5,6]] */
    for (int major = 1; major <= 3; major++) {
        write_npy(tmp("f.npy"), major,
                  "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }\n", colmajor,
                  sizeof colmajor);
        tdcl_matrix m;
        tdcl_err e;
        assert_int_equal(tdcl_matrix_read(tmp("f.npy"), 0, &m, &e), TDCL_OK);
        assert_int_equal(m.rows, 2);
        assert_int_equal(m.cols, 3);
        for (int k = 0; k < 6; k++)
            assert_true(((double *)m.data)[k] == k + 1);
        tdcl_matrix_free(&m);
    }
}

/* The whole content of path (malloc'd) and its length. */
static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    assert_int_equal(fread(b, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    *n = (size_t)len;
    return b;
}

/* Every dtype and odd shapes: a .npy written by tiledcl (data 64-byte
 * aligned) is mapped, not read, and holds what was written. */
static void test_npy_mapped_read(void **state)
{
    (void)state;
    const tdcl_dtype types[] = {TDCL_F32, TDCL_F64, TDCL_I32, TDCL_I64, TDCL_U8, TDCL_U16};
    const int64_t shapes[][2] = {{13, 7}, {1, 1}, {3, 1001}, {257, 1}};
    for (size_t t = 0; t < 6; t++)
        for (size_t k = 0; k < 4; k++) {
            tdcl_matrix a, b;
            tdcl_mapping map;
            tdcl_err e;
            assert_int_equal(tdcl_matrix_alloc(&a, shapes[k][0], shapes[k][1], 1, types[t], &e),
                             TDCL_OK);
            int is_unsigned = types[t] == TDCL_U8 || types[t] == TDCL_U16;
            tdcl_test_fill(&a, 17 + t + k, is_unsigned ? 0 : -1e5, is_unsigned ? 250 : 1e5);
            assert_int_equal(tdcl_matrix_write(tmp("m.npy"), &a, NULL, &e), TDCL_OK);
            assert_int_equal(tdcl_matrix_read_mapped(tmp("m.npy"), 0, &b, &map, &e), TDCL_OK);
            assert_non_null(map.addr);
            assert_true((char *)b.data >= (char *)map.addr &&
                        (char *)b.data < (char *)map.addr + map.len);
            assert_same_bits(&a, &b);
            tdcl_matrix_release(&b, &map);
            assert_null(map.addr);
            assert_null(b.data);
            tdcl_matrix_free(&a);
        }
}

/* Where mapping does not fit, the plain read gives the same values: data
 * not 64-byte aligned (a hand-made header), Fortran order (transposed),
 * versions 2.0 and 3.0 aligned (mapped), Matrix Market (read). */
static void test_npy_mapped_fallbacks(void **state)
{
    (void)state;
    const double colmajor[] = {1, 4, 2, 5, 3, 6}, rowmajor[] = {1, 2, 3, 4, 5, 6};
    const char *c_dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
    const char *f_dict = "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }";
    char dict[128];
    static const struct {
        int major, pad, fortran, mapped;
    } cases[] = {{1, 0, 0, 0},  {1, 3, 0, 0},  {1, 0, 1, 0}, {2, -1, 0, 1},
                 {3, -1, 0, 1}, {1, -1, 0, 1}, {1, -1, 1, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *base = cases[i].fortran ? f_dict : c_dict;
        size_t pre = cases[i].major == 1 ? 10 : 12, n = strlen(base);
        /* pad -1: spaces up to the next 64-byte boundary, as numpy does */
        size_t pad = cases[i].pad >= 0 ? (size_t)cases[i].pad : (64 - (pre + n + 1) % 64) % 64;
        snprintf(dict, sizeof dict, "%s%*s\n", base, (int)pad, "");
        write_npy(tmp("h.npy"), cases[i].major, dict, cases[i].fortran ? colmajor : rowmajor,
                  sizeof rowmajor);
        tdcl_matrix m;
        tdcl_mapping map;
        tdcl_err e;
        assert_int_equal(tdcl_matrix_read_mapped(tmp("h.npy"), 0, &m, &map, &e), TDCL_OK);
        if (cases[i].mapped != (map.addr != NULL)) print_message("case %zu\n", i);
        assert_int_equal(map.addr != NULL, cases[i].mapped);
        assert_int_equal(m.rows, 2);
        assert_int_equal(m.cols, 3);
        assert_memory_equal(m.data, rowmajor, sizeof rowmajor);
        tdcl_matrix_release(&m, &map);
    }
    tdcl_test_write_text(tmp("h.mtx"), "%%MatrixMarket matrix array real general\n2 3\n"
                                       "1\n4\n2\n5\n3\n6\n");
    tdcl_matrix m;
    tdcl_mapping map;
    tdcl_err e;
    assert_int_equal(tdcl_matrix_read_mapped(tmp("h.mtx"), 0, &m, &map, &e), TDCL_OK);
    assert_null(map.addr);
    assert_memory_equal(m.data, rowmajor, sizeof rowmajor);
    tdcl_matrix_release(&m, &map);
}

/* A lying header or a size limit fails the mapped read as the plain one,
 * with nothing allocated or mapped. */
static void test_npy_mapped_errors(void **state)
{
    (void)state;
    static const double data[4] = {1, 2, 3, 4};
    write_npy(tmp("lie.npy"), 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 3), }",
              data, sizeof data);
    tdcl_matrix m;
    tdcl_mapping map;
    tdcl_err e = {0};
    assert_int_equal(tdcl_matrix_read_mapped(tmp("lie.npy"), 0, &m, &map, &e), TDCL_EPARSE);
    assert_non_null(strstr(e.msg, "but the file holds 32"));
    assert_null(m.data);
    assert_null(map.addr);
    tdcl_matrix a;
    assert_int_equal(tdcl_matrix_alloc(&a, 64, 64, 1, TDCL_F64, &e), TDCL_OK);
    tdcl_test_fill(&a, 3, -1, 1);
    assert_int_equal(tdcl_matrix_write(tmp("big.npy"), &a, NULL, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_read_mapped(tmp("big.npy"), 1000, &m, &map, &e), TDCL_ELIMIT);
    assert_null(m.data);
    assert_null(map.addr);
    tdcl_matrix_free(&a);
}

/* The streamed writer gives tdcl_matrix_write's bytes whatever the chunks;
 * a missing or surplus byte writes nothing and keeps the old file. */
static void test_npy_out_chunks(void **state)
{
    (void)state;
    tdcl_matrix a;
    tdcl_err e;
    assert_int_equal(tdcl_matrix_alloc(&a, 31, 17, 1, TDCL_I64, &e), TDCL_OK);
    tdcl_test_fill(&a, 9, -1e9, 1e9);
    assert_int_equal(tdcl_matrix_write(tmp("ref.npy"), &a, NULL, &e), TDCL_OK);
    size_t nref, bytes = 31 * 17 * 8;
    unsigned char *ref = slurp(tmp("ref.npy"), &nref);
    const size_t steps[] = {1, 7, 4096, bytes, 1000};
    for (size_t k = 0; k < 5; k++) {
        tdcl_npy_out *w;
        assert_int_equal(tdcl_npy_out_open(tmp("s.npy"), 31, 17, TDCL_I64, &w, &e), TDCL_OK);
        size_t chunks = (bytes + steps[k] - 1) / steps[k];
        for (size_t c = 0; c < chunks; c++) {
            /* the last step size goes backwards: pieces land in any order */
            size_t pos = (k == 4 ? chunks - 1 - c : c) * steps[k];
            size_t len = bytes - pos < steps[k] ? bytes - pos : steps[k];
            assert_int_equal(tdcl_npy_out_write(w, pos, (char *)a.data + pos, len, &e), TDCL_OK);
        }
        assert_int_equal(tdcl_npy_out_commit(w, &e), TDCL_OK);
        size_t n;
        unsigned char *got = slurp(tmp("s.npy"), &n);
        assert_int_equal(n, nref);
        assert_memory_equal(got, ref, n);
        free(got);
    }
    tdcl_test_write_text(tmp("s.npy"), "old\n");
    tdcl_npy_out *w;
    assert_int_equal(tdcl_npy_out_open(tmp("s.npy"), 31, 17, TDCL_I64, &w, &e), TDCL_OK);
    assert_int_equal(tdcl_npy_out_write(w, 0, a.data, bytes - 1, &e), TDCL_OK);
    assert_int_equal(tdcl_npy_out_write(w, bytes - 1, a.data, 2, &e), TDCL_EINVAL);
    assert_int_equal(tdcl_npy_out_commit(w, &e), TDCL_EIO);
    assert_non_null(strstr(e.msg, "1 bytes of the array never came"));
    assert_int_equal(tdcl_npy_out_open(tmp("s.npy"), 31, 17, TDCL_I64, &w, &e), TDCL_OK);
    tdcl_npy_out_abort(w);
    size_t n;
    unsigned char *old = slurp(tmp("s.npy"), &n);
    assert_int_equal(n, 4);
    assert_memory_equal(old, "old\n", 4);
    free(old);
    /* a FIFO (or "-") cannot take pieces out of order: refused unopened */
    assert_int_equal(mkfifo(tmp("fifo.npy"), 0600), 0);
    assert_int_equal(tdcl_npy_out_open(tmp("fifo.npy"), 31, 17, TDCL_I64, &w, &e),
                     TDCL_EUNSUPPORTED);
    unlink(tmp("fifo.npy"));
    assert_null(w);
    assert_int_equal(tdcl_npy_out_open("-", 31, 17, TDCL_I64, &w, &e), TDCL_EUNSUPPORTED);
    free(ref);
    tdcl_matrix_free(&a);
}

/* A large array saved in bands by several threads is byte for byte what
 * the one-write path gives; small ones and FIFOs are left to that path. */
static void test_npy_save_bands(void **state)
{
    (void)state;
    tdcl_matrix a;
    tdcl_err e;
    assert_int_equal(tdcl_matrix_alloc(&a, 2049, 2053, 1, TDCL_F32, &e), TDCL_OK);
    tdcl_test_fill(&a, 21, -1e3, 1e3);
    FILE *fp = fopen(tmp("one.npy"), "wb");
    assert_non_null(fp);
    assert_int_equal(tdcl_npy_write(fp, "one.npy", &a, &e), TDCL_OK);
    assert_int_equal(fclose(fp), 0);
    int done = 0;
    tdcl_test_write_text(tmp("bands.npy"), "old\n");
    assert_int_equal(tdcl_npy_save(tmp("bands.npy"), &a, &done, &e), TDCL_OK);
    assert_int_equal(done, 1);
    size_t n1, n2;
    unsigned char *one = slurp(tmp("one.npy"), &n1), *bands = slurp(tmp("bands.npy"), &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(one, bands, n1);
    free(one);
    free(bands);
    assert_int_equal(mkfifo(tmp("fifo2.npy"), 0600), 0);
    assert_int_equal(tdcl_npy_save(tmp("fifo2.npy"), &a, &done, &e), TDCL_OK);
    assert_int_equal(done, 0);
    unlink(tmp("fifo2.npy"));
    tdcl_matrix small;
    assert_int_equal(tdcl_matrix_alloc(&small, 3, 3, 1, TDCL_F32, &e), TDCL_OK);
    assert_int_equal(tdcl_npy_save(tmp("small.npy"), &small, &done, &e), TDCL_OK);
    assert_int_equal(done, 0);
    assert_int_equal(access(tmp("small.npy"), F_OK), -1);
    tdcl_matrix_free(&small);
    tdcl_matrix_free(&a);
}

static void test_npy_errors(void **state)
{
    (void)state;
    static const struct {
        const char *dict, *msg;
        size_t bytes;
        tdcl_status st;
    } cases[] = {
        {"{'descr': '>f8', 'fortran_order': False, 'shape': (1, 1), }", "big-endian data ('>f8')",
         8, TDCL_EUNSUPPORTED},
        {"{'descr': '<c16', 'fortran_order': False, 'shape': (1, 1), }",
         "dtype '<c16' is not "
         "supported",
         16, TDCL_EUNSUPPORTED},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }",
         "expected a 2-D array, got "
         "shape (4,)",
         32, TDCL_EUNSUPPORTED},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 2), }", "got shape (2, 2, 2)",
         64, TDCL_EUNSUPPORTED},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
         "(32 bytes of data), but "
         "the file holds 24",
         24, TDCL_EPARSE},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", "holds 16 bytes", 16,
         TDCL_EPARSE},
        {"{'descr': '<f8', 'shape': (1, 1), }", "missing the key 'fortran_order'", 8, TDCL_EPARSE},
        {"{'descr': '<f8', 'fortran_order': Maybe, 'shape': (1, 1), }", "True or False", 8,
         TDCL_EPARSE},
    };
    static const unsigned char zeros[64] = {1, 2, 3};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_npy(tmp("bad.npy"), 1, cases[i].dict, zeros, cases[i].bytes);
        tdcl_matrix m = {0};
        tdcl_err e = {0};
        tdcl_status st = tdcl_matrix_read(tmp("bad.npy"), 0, &m, &e);
        if (st != cases[i].st || !strstr(e.msg, cases[i].msg))
            print_message("case %zu: %d '%s'\n", i, st, e.msg);
        assert_int_equal(st, cases[i].st);
        assert_non_null(strstr(e.msg, cases[i].msg));
        assert_null(m.data);
    }
}

static void test_gzip_input(void **state)
{
    (void)state;
    const char *text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 3.5\n2 1 -1\n";
    gzFile gz = gzopen(tmp("a.mtx.gz"), "wb");
    assert_non_null(gz);
    /* two gzip members, as concatenated .gz files are */
    assert_true(gzwrite(gz, text, 30) == 30);
    assert_int_equal(gzclose(gz), Z_OK);
    gz = gzopen(tmp("b.gz"), "wb");
    assert_true(gzwrite(gz, text + 30, (unsigned)strlen(text) - 30) > 0);
    assert_int_equal(gzclose(gz), Z_OK);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cat '%s' >> '%s'", tmp("b.gz"), tmp("a.mtx.gz"));
    assert_int_equal(system(cmd), 0);
    tdcl_matrix m;
    tdcl_err e;
    assert_int_equal(tdcl_matrix_read(tmp("a.mtx.gz"), 0, &m, &e), TDCL_OK);
    const double want[] = {0, 3.5, -1, 0};
    assert_memory_equal(m.data, want, sizeof want);
    tdcl_matrix_free(&m);
    /* a truncated .gz is an error, not a short matrix */
    snprintf(cmd, sizeof cmd, "head -c 40 '%s' > '%s'", tmp("a.mtx.gz"), tmp("t.mtx.gz"));
    assert_int_equal(system(cmd), 0);
    assert_int_equal(tdcl_matrix_read(tmp("t.mtx.gz"), 0, &m, &e), TDCL_EPARSE);
    assert_non_null(strstr(e.msg, "t.mtx.gz"));
}

/* Big enough for several chunks: every thread count, chunk size and
 * source (mapped, gzip stream) must give the same bits. */
static void test_chunks_and_threads_agree(void **state)
{
    (void)state;
    tdcl_matrix a, b;
    tdcl_err e;
    assert_int_equal(tdcl_matrix_alloc(&a, 67, 41, 1, TDCL_F64, &e), TDCL_OK);
    fill_tricky_f64(&a, 3);
    double *d = a.data;
    for (size_t k = 0; k < tdcl_matrix_count(&a); k += 3)
        d[k] = 0; /* a sparse pattern for the coordinate file */
    tdcl_mtx_write_opts wo[] = {{.coordinate = 0, .threads = 2}, {.coordinate = 1, .threads = 3}};
    for (int f = 0; f < 2; f++) {
        assert_int_equal(tdcl_mtx_write_path(tmp("c.mtx"), &a, &wo[f], &e), TDCL_OK);
        char cmd[9000];
        snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", tmp("c.mtx"), tmp("c.mtx.gz"));
        assert_int_equal(system(cmd), 0);
        /* tiny chunks on one thread only: each round starts its threads */
        const size_t chunks[] = {0, 1, 13, 100, 4096};
        for (int t = 1; t <= 4; t++)
            for (size_t c = t == 1 ? 0 : 3; c < sizeof chunks / sizeof chunks[0]; c++)
                for (int gz = 0; gz < 2; gz++) {
                    tdcl_mtx_read_opts ro = {.threads = t, .chunk = chunks[c]};
                    tdcl_status st =
                        tdcl_mtx_read_path(tmp(gz ? "c.mtx.gz" : "c.mtx"), &ro, &b, &e);
                    if (st) print_message("%s\n", e.msg);
                    assert_int_equal(st, TDCL_OK);
                    for (size_t k = 0; k < tdcl_matrix_count(&a); k++)
                        assert_true(d[k] == ((double *)b.data)[k]);
                    tdcl_matrix_free(&b);
                }
    }
    tdcl_matrix_free(&a);
}

/* An error deep in the file keeps its line number whatever the chunking. */
static void test_error_line_across_chunks(void **state)
{
    (void)state;
    FILE *fp = fopen(tmp("deep.mtx"), "wb");
    assert_non_null(fp);
    fprintf(fp, "%%%%MatrixMarket matrix array real general\n%% c\n1000 1\n");
    for (int i = 0; i < 1000; i++)
        fprintf(fp, i == 700 ? "1..5\n" : "%d.25\n", i);
    fclose(fp);
    for (int t = 1; t <= 3; t++) {
        tdcl_mtx_read_opts ro = {.threads = t, .chunk = 64};
        tdcl_matrix m;
        tdcl_err e;
        assert_int_equal(tdcl_mtx_read_path(tmp("deep.mtx"), &ro, &m, &e), TDCL_EPARSE);
        assert_non_null(strstr(e.msg, "deep.mtx:704: expected the end of the line after the "
                                      "value, got '.5'"));
    }
}

/* One coordinate entry's line in one of the spellings real files use, so
 * that both the fast line parser and the general one see every case:
 * single spaces, tabs, leading and trailing blanks, CRLF, '+' signs, long
 * lines, exponents, 17-digit values. Blank lines now and then. */
static int spell_entry(char *o, size_t cap, uint64_t *seed, int64_t i, int64_t j, const char *v)
{
    uint64_t r = tdcl_test_rand(seed);
    const char *sep = r % 7 == 0 ? "\t" : r % 11 == 0 ? "  " : " ";
    return snprintf(
        o, cap, "%s%s%lld%s%lld%s%s%s%s%s", r % 29 == 0 ? "\n" : "", r % 13 == 0 ? " " : "",
        (long long)i + 1, sep, (long long)j + 1, sep, v, r % 17 == 0 ? "   " : "",
        r % 19 == 0 ? "                                   " : "", r % 23 == 0 ? "\r\n" : "\n");
}

/* Value text whose sum depends on the order of addition (1e16 + 1 - 1e16),
 * in assorted spellings; *v is what strtod makes of it. */
static void order_value(char *o, size_t cap, uint64_t *seed, double *v)
{
    static const double pool[] = {1e16, -1e16, 1, -1, 0.1, 3.25e-5, -7.5, 123456.789, 1e300, 0};
    uint64_t r = tdcl_test_rand(seed);
    double x = pool[r % 10] * (1 + (double)(r >> 40 & 7) / 3);
    const char *fmt = (r >> 8) % 4 == 0 ? "%.17g" : (r >> 8) % 4 == 1 ? "%.9g" : "%+.6e";
    snprintf(o, cap, fmt, x);
    *v = strtod(o, NULL);
}

/* Writes n entries of a rows x cols coordinate file with many duplicates
 * per cell and returns, in want (row-major), their sums in file order,
 * mirrored as the symmetry says: the result every thread count must give
 * bit for bit. */
static void order_file(const char *path, const char *sym, int64_t rows, int64_t cols, int n,
                       double *want)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fprintf(fp, "%%%%MatrixMarket matrix coordinate real %s\n%lld %lld %d\n", sym, (long long)rows,
            (long long)cols, n);
    int mirror = strcmp(sym, "general") != 0, skew = strcmp(sym, "skew-symmetric") == 0;
    memset(want, 0, (size_t)(rows * cols) * sizeof *want);
    uint64_t seed = 2024;
    char line[160], val[48];
    for (int k = 0; k < n; k++) {
        int64_t i = (int64_t)(tdcl_test_rand(&seed) % (uint64_t)rows);
        int64_t j = (int64_t)(tdcl_test_rand(&seed) % (uint64_t)cols);
        double v;
        order_value(val, sizeof val, &seed, &v);
        if (skew && i == j) {
            snprintf(val, sizeof val, "0");
            v = 0;
        }
        spell_entry(line, sizeof line, &seed, i, j, val);
        fputs(line, fp);
        want[i * cols + j] += v;
        if (mirror && i != j) want[j * cols + i] += skew ? -v : v;
    }
    fclose(fp);
}

/* Duplicates summed in file order across chunk, part and band boundaries:
 * every thread count and chunk size gives the same bits, those of the
 * sums taken one by one in file order. */
static void test_duplicates_sum_in_file_order(void **state)
{
    (void)state;
    static const char *syms[] = {"general", "symmetric", "skew-symmetric"};
    static const size_t chunks[] = {0, 100, 1000, 4096};
    for (int s = 0; s < 3; s++) {
        int64_t rows = s ? 9 : 11, cols = 9;
        double want[99];
        order_file(tmp("dup.mtx"), syms[s], rows, cols, 6000, want);
        char cmd[9000]; /* gzip streams: the chunk-after-chunk path */
        snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", tmp("dup.mtx"), tmp("dup.mtx.gz"));
        assert_int_equal(system(cmd), 0);
        for (int t = 1; t <= 4; t++)
            for (size_t c = 0; c < 2 * sizeof chunks / sizeof chunks[0]; c++) {
                tdcl_mtx_read_opts ro = {.threads = t, .chunk = chunks[c / 2]};
                tdcl_matrix m;
                tdcl_err e;
                const char *f = tmp(c % 2 ? "dup.mtx.gz" : "dup.mtx");
                tdcl_status st = tdcl_mtx_read_path(f, &ro, &m, &e);
                if (st) print_message("%s\n", e.msg);
                assert_int_equal(st, TDCL_OK);
                for (int64_t k = 0; k < rows * cols; k++) {
                    double got = ((double *)m.data)[k];
                    if (memcmp(&got, &want[k], sizeof got) != 0)
                        fail_msg("%s, %s, %d threads, chunk %zu: cell %lld is %.17g, want %.17g",
                                 syms[s], f, t, chunks[c / 2], (long long)k, got, want[k]);
                }
                tdcl_matrix_free(&m);
            }
    }
}

/* Integer entries in every spelling the fast and the general parser take,
 * symmetric, against sums done here. */
static void test_integer_entries_fast_and_general(void **state)
{
    (void)state;
    enum { N = 7, COUNT = 4000 };
    FILE *fp = fopen(tmp("int.mtx"), "wb");
    assert_non_null(fp);
    fprintf(fp, "%%%%MatrixMarket matrix coordinate integer symmetric\n%d %d %d\n", N, N, COUNT);
    int64_t want[N * N] = {0};
    uint64_t seed = 77;
    char line[160], val[48];
    for (int k = 0; k < COUNT; k++) {
        int64_t i = (int64_t)(tdcl_test_rand(&seed) % N), j = (int64_t)(tdcl_test_rand(&seed) % N);
        uint64_t r = tdcl_test_rand(&seed);
        int64_t v = (int64_t)(r >> 20) % 1000000000000000000LL / (int64_t)(1 + r % 100000);
        v = r & 1 ? -v : v;
        v /= COUNT; /* no sum overflows */
        snprintf(val, sizeof val, (r >> 1) % 5 == 0 && v >= 0 ? "+%lld" : "%lld", (long long)v);
        spell_entry(line, sizeof line, &seed, i, j, val);
        fputs(line, fp);
        want[i * N + j] += v;
        if (i != j) want[j * N + i] += v;
    }
    fclose(fp);
    for (int t = 1; t <= 3; t++) {
        tdcl_mtx_read_opts ro = {.threads = t, .chunk = t == 3 ? 500 : 0};
        tdcl_matrix m;
        tdcl_err e;
        assert_int_equal(tdcl_mtx_read_path(tmp("int.mtx"), &ro, &m, &e), TDCL_OK);
        assert_int_equal(m.dtype, TDCL_I64);
        assert_memory_equal(m.data, want, sizeof want);
        tdcl_matrix_free(&m);
    }
}

/* An int64 overflow is named by the line of the entry whose addition
 * overflows: the first in file order whichever thread, band or part finds
 * it, and before a later error of the same chunk (a bad token, an extra
 * entry). */
static void test_overflow_first_in_file_order(void **state)
{
    (void)state;
    static const char *tails[] = {"", "100 1 x\n", "1 1 1\n1 1 1\n"};
    /* entries of row 90 (the last band) and row 3 (the first) that
     * overflow at their second big addition: in one part, in both parts
     * (2 threads, 16 KiB chunks), and the first band's first */
    static const struct {
        int a1, a2, b1, b2, line, row;
    } cases[] = {{100, 200, 150, 250, 203, 90},
                 {1000, 1100, 2000, 2500, 1103, 90},
                 {2000, 2100, 100, 300, 303, 3}};
    static const size_t chunks[] = {0, 300, 16384};
    enum { N = 3000 };
    for (size_t cs = 0; cs < sizeof cases / sizeof cases[0]; cs++)
        for (int tl = 0; tl < 3; tl++) {
            FILE *fp = fopen(tmp("ovf.mtx"), "wb");
            assert_non_null(fp);
            fprintf(fp, "%%%%MatrixMarket matrix coordinate integer general\n100 1 %d\n",
                    N + (tl == 1));
            for (int k = 0; k < N; k++) { /* entry k is on line 3 + k */
                int a = k == cases[cs].a1 || k == cases[cs].a2;
                int b = k == cases[cs].b1 || k == cases[cs].b2;
                fprintf(fp, "%d 1 %s\n",
                        a   ? 90
                        : b ? 3
                            : 1 + k % 100,
                        a || b ? "5000000000000000000" : "1");
            }
            fputs(tails[tl], fp);
            fclose(fp);
            char want[2][128], cmd[9000]; /* and gzip streams: chunk after chunk */
            snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", tmp("ovf.mtx"), tmp("ovf.mtx.gz"));
            assert_int_equal(system(cmd), 0);
            for (int z = 0; z < 2; z++)
                snprintf(want[z], sizeof want[z],
                         "ovf.mtx%s:%d: the sum of the entries at (%d, 1) overflows int64",
                         z ? ".gz" : "", cases[cs].line, cases[cs].row);
            for (int t = 1; t <= 3; t++)
                for (size_t c = 0; c < 2 * sizeof chunks / sizeof chunks[0]; c++) {
                    tdcl_mtx_read_opts ro = {.threads = t, .chunk = chunks[c / 2]};
                    tdcl_matrix m;
                    tdcl_err e;
                    const char *f = tmp(c % 2 ? "ovf.mtx.gz" : "ovf.mtx");
                    assert_int_equal(tdcl_mtx_read_path(f, &ro, &m, &e), TDCL_EPARSE);
                    if (!strstr(e.msg, want[c % 2]))
                        fail_msg("case %zu, tail %d, %d threads, chunk %zu: '%s'", cs, tl, t,
                                 chunks[c / 2], e.msg);
                }
        }
    /* an error before the overflow comes first */
    FILE *fp = fopen(tmp("ovf2.mtx"), "wb");
    assert_non_null(fp);
    fprintf(fp, "%%%%MatrixMarket matrix coordinate integer general\n100 1 4\n"
                "90 1 9223372036854775807\n5 1 x\n90 1 1\n1 1 1\n");
    fclose(fp);
    for (int t = 1; t <= 2; t++) {
        tdcl_mtx_read_opts ro = {.threads = t};
        tdcl_matrix m;
        tdcl_err e;
        assert_int_equal(tdcl_mtx_read_path(tmp("ovf2.mtx"), &ro, &m, &e), TDCL_EPARSE);
        assert_non_null(strstr(e.msg, "ovf2.mtx:4: expected an integer, got 'x'"));
    }
}

static void test_unreadable_inputs_are_named(void **state)
{
    (void)state;
    tdcl_matrix m;
    tdcl_err e;
    assert_int_equal(tdcl_matrix_read(dir, 0, &m, &e), TDCL_EIO);
    assert_non_null(strstr(e.msg, "is a directory"));
    assert_int_equal(tdcl_matrix_read(tmp("none.mtx"), 0, &m, &e), TDCL_EIO);
    assert_non_null(strstr(e.msg, "cannot open"));
    assert_non_null(strstr(e.msg, "none.mtx"));
}

static void test_write_is_atomic(void **state)
{
    (void)state;
    tdcl_test_write_text(tmp("keep.mtx"), "old\n");
    tdcl_matrix a;
    tdcl_err e;
    assert_int_equal(tdcl_matrix_alloc(&a, 2, 2, 3, TDCL_U8, &e), TDCL_OK);
    /* 3 channels cannot be written: the old file stays */
    assert_int_equal(tdcl_matrix_write(tmp("keep.mtx"), &a, NULL, &e), TDCL_EUNSUPPORTED);
    char *text;
    size_t n;
    assert_int_equal(tdcl_read_file(tmp("keep.mtx"), &text, &n, &e), TDCL_OK);
    assert_string_equal(text, "old\n");
    free(text);
    tdcl_matrix_free(&a);
    assert_int_equal(tdcl_matrix_alloc(&a, 2, 2, 1, TDCL_F64, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_write(tmp("x.txt"), &a, NULL, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "unknown matrix format"));
    tdcl_matrix_free(&a);
}

/* Fixtures written by scipy.io.mmwrite and numpy.save (tests/data/README.md),
 * each compared with the dense values scipy/numpy read back themselves. */
static void test_fixtures_from_scipy_and_numpy(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int64_t rows, cols;
        tdcl_dtype dtype;
    } fx[] = {
        {"sp_array_real.mtx", 7, 5, TDCL_F64},
        {"sp_array_int.mtx", 4, 6, TDCL_I64},
        {"sp_array_sym.mtx", 6, 6, TDCL_F64},
        {"sp_coord_real.mtx", 5, 4, TDCL_F64},
        {"sp_coord_real.mtx.gz", 5, 4, TDCL_F64},
        {"sp_coord_int_sym.mtx", 8, 8, TDCL_I64},
        {"sp_coord_skew.mtx", 6, 6, TDCL_F64},
        {"sp_coord_pattern.mtx", 5, 7, TDCL_F64},
        {"np_float32.npy", 3, 5, TDCL_F32},
        {"np_float64.npy", 3, 5, TDCL_F64},
        {"np_int32.npy", 3, 5, TDCL_I32},
        {"np_int64.npy", 3, 5, TDCL_I64},
        {"np_fortran.npy", 4, 3, TDCL_F64},
        {"np_v2.npy", 2, 3, TDCL_F64},
        {"np_v3.npy", 2, 3, TDCL_F64},
    };
    const char *data = getenv("TDCL_TEST_DATA");
    assert_non_null(data);
    for (size_t i = 0; i < sizeof fx / sizeof fx[0]; i++) {
        char path[4096], ref[4200];
        snprintf(path, sizeof path, "%s/%s", data, fx[i].name);
        snprintf(ref, sizeof ref, "%s.expect.bin", path);
        tdcl_matrix m, back;
        tdcl_err e;
        char *want;
        size_t n;
        tdcl_status st = tdcl_matrix_read(path, 0, &m, &e);
        if (st) print_message("%s\n", e.msg);
        assert_int_equal(st, TDCL_OK);
        assert_int_equal(m.rows, fx[i].rows);
        assert_int_equal(m.cols, fx[i].cols);
        assert_int_equal(m.dtype, fx[i].dtype);
        assert_int_equal(tdcl_read_file(ref, &want, &n, &e), TDCL_OK);
        assert_int_equal(n, tdcl_matrix_count(&m) * 8);
        int nonzero = 0;
        for (size_t k = 0; k < tdcl_matrix_count(&m); k++) {
            if (tdcl_dtype_is_int(m.dtype)) {
                int64_t w;
                memcpy(&w, want + 8 * k, 8);
                assert_true(tdcl_matrix_get_i64(&m, k) == w);
                nonzero += w != 0;
            } else {
                double w, got = tdcl_matrix_get_f64(&m, k);
                memcpy(&w, want + 8 * k, 8);
                assert_memory_equal(&got, &w, 8);
                nonzero += w != 0;
            }
        }
        assert_true(nonzero > 0);
        /* and our own output of it reads back bit-identical */
        assert_int_equal(tdcl_matrix_write(tmp("fx.mtx"), &m, NULL, &e), TDCL_OK);
        assert_int_equal(tdcl_matrix_read(tmp("fx.mtx"), 0, &back, &e), TDCL_OK);
        for (size_t k = 0; k < tdcl_matrix_count(&m); k++) {
            if (tdcl_dtype_is_int(m.dtype))
                assert_true(tdcl_matrix_get_i64(&m, k) == tdcl_matrix_get_i64(&back, k));
            else if (m.dtype == TDCL_F32) /* float32 text reads back as float64 */
                assert_true((float)tdcl_matrix_get_f64(&back, k) == ((float *)m.data)[k]);
            else if (tdcl_matrix_get_f64(&m, k) != tdcl_matrix_get_f64(&back, k))
                fail_msg("%s: element %zu: %.17g became %.17g", fx[i].name, k,
                         tdcl_matrix_get_f64(&m, k), tdcl_matrix_get_f64(&back, k));
        }
        free(want);
        tdcl_matrix_free(&m);
        tdcl_matrix_free(&back);
    }
}

/* Narrowing conversions: values past the target's range, and NaN or
 * infinities for integers, fail naming the first; clip saturates; NaN to
 * an integer fails even then. */
static void test_narrow(void **state)
{
    (void)state;
    tdcl_matrix f = {0}, r = {0}, i = {0};
    tdcl_err e = {0};
    assert_int_equal(tdcl_matrix_alloc(&f, 2, 3, 1, TDCL_F64, &e), TDCL_OK);
    double *v = f.data;
    v[0] = 5, v[1] = -2.9, v[2] = 1099511627781.0, v[3] = 1.2e17, v[4] = INFINITY, v[5] = 7.5;
    assert_int_equal(tdcl_matrix_narrow(&f, TDCL_I32, 0, &r, &e), TDCL_ERANGE);
    assert_non_null(strstr(e.msg, "value 1099511627781 at row 1, column 3"));
    assert_non_null(strstr(e.msg, "int32"));
    assert_null(r.data);
    assert_int_equal(tdcl_matrix_narrow(&f, TDCL_I32, 1, &r, &e), TDCL_OK);
    const int32_t want[6] = {5, -2, INT32_MAX, INT32_MAX, INT32_MAX, 7};
    for (int k = 0; k < 6; k++)
        assert_int_equal(((int32_t *)r.data)[k], want[k]);
    tdcl_matrix_free(&r);
    assert_int_equal(tdcl_matrix_narrow(&f, TDCL_I64, 0, &r, &e), TDCL_ERANGE);
    assert_non_null(strstr(e.msg, "value inf at row 2, column 2"));
    v[4] = NAN;
    assert_int_equal(tdcl_matrix_narrow(&f, TDCL_I64, 1, &r, &e), TDCL_ERANGE);
    assert_non_null(strstr(e.msg, "NaN"));
    /* float32: 1e308 would become inf; NaN and infinities stay */
    v[2] = -1e308, v[3] = INFINITY;
    assert_int_equal(tdcl_matrix_narrow(&f, TDCL_F32, 0, &r, &e), TDCL_ERANGE);
    assert_non_null(strstr(e.msg, "row 1, column 3"));
    assert_int_equal(tdcl_matrix_narrow(&f, TDCL_F32, 1, &r, &e), TDCL_OK);
    assert_true(((float *)r.data)[2] == -FLT_MAX && isinf(((float *)r.data)[3]) &&
                isnan(((float *)r.data)[4]));
    tdcl_matrix_free(&r);
    /* integers to narrower integers; 2^40 + 5 does not become 5 */
    assert_int_equal(tdcl_matrix_alloc(&i, 1, 2, 1, TDCL_I64, &e), TDCL_OK);
    ((int64_t *)i.data)[0] = 300;
    ((int64_t *)i.data)[1] = ((int64_t)1 << 40) + 5;
    assert_int_equal(tdcl_matrix_narrow(&i, TDCL_I32, 0, &r, &e), TDCL_ERANGE);
    assert_non_null(strstr(e.msg, "value 1099511627781 at row 1, column 2"));
    assert_int_equal(tdcl_matrix_narrow(&i, TDCL_U8, 0, &r, &e), TDCL_ERANGE);
    assert_non_null(strstr(e.msg, "value 300 at row 1, column 1"));
    assert_int_equal(tdcl_matrix_narrow(&i, TDCL_U16, 1, &r, &e), TDCL_OK);
    assert_int_equal(((uint16_t *)r.data)[0], 300);
    assert_int_equal(((uint16_t *)r.data)[1], 65535);
    tdcl_matrix_free(&r);
    assert_int_equal(tdcl_matrix_narrow(&i, TDCL_F64, 0, &r, &e), TDCL_OK);
    tdcl_matrix_free(&r);
    tdcl_matrix_free(&i);
    tdcl_matrix_free(&f);
    /* the range is checked after truncation toward zero, on both sides and
     * for every integer type: what truncates to an end fits */
    const struct {
        tdcl_dtype to;
        double ok[2], bad[2];
        int64_t want[2];
    } edges[] = {
        {TDCL_I32,
         {-2147483648.5, 2147483647.9},
         {-2147483649.0, 2147483648.0},
         {INT32_MIN, INT32_MAX}},
        {TDCL_U8, {-0.9, 255.9}, {-1.0, 256.0}, {0, 255}},
        {TDCL_U16, {-0.5, 65535.5}, {-1.0, 65536.0}, {0, 65535}},
        {TDCL_I64,
         {-9223372036854775808.0, 0.5},
         {-9223372036854777856.0, 9223372036854775808.0},
         {INT64_MIN, 0}},
    };
    for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++) {
        assert_int_equal(tdcl_matrix_alloc(&f, 1, 2, 1, TDCL_F64, &e), TDCL_OK);
        memcpy(f.data, edges[k].ok, sizeof edges[k].ok);
        if (tdcl_matrix_narrow(&f, edges[k].to, 0, &r, &e) != TDCL_OK)
            fail_msg("to %s: %s", tdcl_dtype_name(edges[k].to), e.msg);
        for (int j = 0; j < 2; j++)
            assert_int_equal(tdcl_matrix_get_i64(&r, (size_t)j), edges[k].want[j]);
        tdcl_matrix_free(&r);
        for (int j = 0; j < 2; j++) {
            ((double *)f.data)[0] = edges[k].bad[j];
            assert_int_equal(tdcl_matrix_narrow(&f, edges[k].to, 0, &r, &e), TDCL_ERANGE);
        }
        tdcl_matrix_free(&f);
    }
}

/* One array value's line in the spellings real files use: mostly the
 * short form of the fast line parser, and now and then CRLF, blanks, a
 * '+', 17-digit values, far exponents, blank lines before it. *v is what
 * strtod makes of the value. */
static void spell_array_value(char *o, size_t cap, uint64_t *seed, double *v)
{
    uint64_t r = tdcl_test_rand(seed);
    double x = ((double)(r >> 11) / 9007199254740992.0 * 2 - 1) * pow(10, (int)(r % 13) - 6);
    char val[48];
    const char *fmt = (r >> 4) % 5 == 0 ? "%.17g" : (r >> 4) % 5 == 1 ? "%+.6e" : "%.9g";
    snprintf(val, sizeof val, fmt, (r >> 7) % 97 == 0 ? x * 1e200 : x);
    *v = strtod(val, NULL);
    snprintf(o, cap, "%s%s%s%s%s", (r >> 8) % 31 == 0 ? "\n \n" : "",
             (r >> 9) % 37 == 0 ? "  " : "", val, (r >> 10) % 41 == 0 ? "\t " : "",
             (r >> 12) % 11 == 0 ? "\r\n" : "\n");
}

/* Writes a real array file (general, or symmetric when rows == cols and
 * sym) whose values, in want (row-major), are strtod's. */
static void array_file(const char *path, int64_t rows, int64_t cols, int sym, double *want)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fprintf(fp, "%%%%MatrixMarket matrix array real %s\n%% a comment\n%%\n\n%lld %lld\n",
            sym ? "symmetric" : "general", (long long)rows, (long long)cols);
    uint64_t seed = 31337;
    char line[128];
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = sym ? j : 0; i < rows; i++) {
            double v;
            spell_array_value(line, sizeof line, &seed, &v);
            fputs(line, fp);
            want[i * cols + j] = v;
            if (sym) want[j * cols + i] = v;
        }
    fclose(fp);
}

/* Real array files through the fast line parser and the general one, split
 * into parts and rounds at every sort of place (inside numbers, between
 * the CR and LF of a line, in blank lines): every thread count, chunk
 * size and source gives strtod's bits for every value. */
static void test_array_lines_against_strtod(void **state)
{
    (void)state;
    static const int64_t shapes[2][3] = {{173, 117, 0}, {150, 150, 1}};
    static const size_t chunks[] = {0, 200, 201, 203, 207, 215, 999, 4096, 16384, 131072};
    for (int s = 0; s < 2; s++) {
        int64_t rows = shapes[s][0], cols = shapes[s][1];
        double *want = malloc((size_t)(rows * cols) * sizeof *want);
        assert_non_null(want);
        array_file(tmp("lines.mtx"), rows, cols, (int)shapes[s][2], want);
        char cmd[9000];
        snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", tmp("lines.mtx"), tmp("lines.mtx.gz"));
        assert_int_equal(system(cmd), 0);
        for (int t = 1; t <= 3; t++)
            for (size_t c = 0; c < 2 * sizeof chunks / sizeof chunks[0]; c++) {
                tdcl_mtx_read_opts ro = {.threads = t, .chunk = chunks[c / 2]};
                tdcl_matrix m;
                tdcl_err e;
                tdcl_status st =
                    tdcl_mtx_read_path(tmp(c % 2 ? "lines.mtx.gz" : "lines.mtx"), &ro, &m, &e);
                if (st) fail_msg("%d threads, chunk %zu: %s", t, chunks[c / 2], e.msg);
                for (int64_t k = 0; k < rows * cols; k++)
                    if (memcmp(&((double *)m.data)[k], &want[k], sizeof want[k]) != 0)
                        fail_msg("%d threads, chunk %zu%s: cell %lld is %.17g, want %.17g", t,
                                 chunks[c / 2], c % 2 ? ", gzip" : "", (long long)k,
                                 ((double *)m.data)[k], want[k]);
                tdcl_matrix_free(&m);
            }
        free(want);
    }
}

/* A bad value anywhere in a real array file, the first part of a round or
 * a later one (another thread's), inside the lines the fast parser takes
 * or in a part's last bytes, is named by its own line. */
static void test_array_error_line_in_any_part(void **state)
{
    (void)state;
    enum { N = 20000 };
    static const int bad_at[] = {0, 5, 3000, 9999, 10000, 10001, 15000, 19990, N - 1};
    static const char *bad[] = {"1..5", "x7", "% no comment here", "-1.5e"};
    static const char *says[] = {"expected the end of the line after the value, got '.5'",
                                 "expected a real number, got 'x7'",
                                 "expected a real number, got '%'",
                                 "expected the end of the line after the value, got 'e'"};
    static const size_t chunks[] = {0, 4096, 16384, 131072};
    for (size_t b = 0; b < sizeof bad_at / sizeof bad_at[0]; b++) {
        FILE *fp = fopen(tmp("bad.mtx"), "wb");
        assert_non_null(fp);
        fprintf(fp, "%%%%MatrixMarket matrix array real general\n%% c\n%d 1\n", N);
        uint64_t seed = 5;
        for (int k = 0; k < N; k++) {
            double x = (double)(tdcl_test_rand(&seed) >> 11) / 9007199254740992.0 - 0.5;
            if (k == bad_at[b])
                fprintf(fp, "%s%s", bad[b % 4], b % 3 == 0 ? "\r\n" : "\n");
            else
                fprintf(fp, "%.9g\n", x);
        }
        fclose(fp);
        char want[160];
        snprintf(want, sizeof want, "bad.mtx:%d: %s", bad_at[b] + 4, says[b % 4]);
        for (int t = 1; t <= 3; t++)
            for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
                tdcl_mtx_read_opts ro = {.threads = t, .chunk = chunks[c]};
                tdcl_matrix m;
                tdcl_err e;
                assert_int_equal(tdcl_mtx_read_path(tmp("bad.mtx"), &ro, &m, &e), TDCL_EPARSE);
                if (!strstr(e.msg, want))
                    fail_msg("%d threads, chunk %zu: '%s', want '%s'", t, chunks[c], e.msg, want);
            }
    }
}

/* --- sparse (CSR) reading and writing ------------------------------------ */

static tdcl_status read_csr_text(const char *text, tdcl_csr *m, tdcl_err *e)
{
    tdcl_test_write_text(tmp("sp.mtx"), text);
    memset(e, 0, sizeof *e);
    return tdcl_mtx_read_csr_path(tmp("sp.mtx"), NULL, m, e);
}

/* Checks m's arrays against hand-computed ones (vals NULL: a pattern). */
static void expect_csr(const tdcl_csr *m, int64_t rows, int64_t cols, const int64_t *rp,
                       const int64_t *ci, const double *vals, int64_t nnz)
{
    assert_int_equal(m->rows, rows);
    assert_int_equal(m->cols, cols);
    assert_int_equal(m->nnz, nnz);
    assert_int_equal(m->idx64, 0);
    assert_int_equal(m->sorted, 1);
    assert_int_equal(m->pattern, vals == NULL);
    for (int64_t i = 0; i <= rows; i++)
        assert_int_equal(tdcl_csr_rp(m, i), rp[i]);
    for (int64_t k = 0; k < nnz; k++) {
        assert_int_equal(tdcl_csr_ci(m, k), ci[k]);
        if (vals) assert_true(tdcl_csr_get_f64(m, k) == vals[k]);
    }
}

/* Every field and symmetry straight into CSR, against arrays worked out by
 * hand: rows sorted by column, duplicates summed, explicit zeros and sums
 * to zero kept (as scipy keeps them), a pattern's duplicates kept once. */
static void test_csr_hand_computed(void **state)
{
    (void)state;
    tdcl_csr m;
    tdcl_err e;
    assert_int_equal(read_csr_text("%%MatrixMarket matrix coordinate real general\n3 4 6\n"
                                   "3 2 1.5\n1 4 2\n3 1 -1\n1 4 0.25\n2 3 0\n3 2 -1.5\n",
                                   &m, &e),
                     TDCL_OK);
    assert_int_equal(m.dtype, TDCL_F64);
    expect_csr(&m, 3, 4, (const int64_t[]){0, 1, 2, 4}, (const int64_t[]){3, 2, 0, 1},
               (const double[]){2.25, 0, -1, 0}, 4);
    tdcl_csr_free(&m);
    assert_int_equal(read_csr_text("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 4\n"
                                   "2 1\n3 3\n2 1\n1 1\n",
                                   &m, &e),
                     TDCL_OK);
    expect_csr(&m, 3, 3, (const int64_t[]){0, 2, 3, 4}, (const int64_t[]){0, 1, 0, 2}, NULL, 4);
    assert_null(m.values);
    tdcl_csr_free(&m);
    assert_int_equal(read_csr_text("%%MatrixMarket matrix coordinate integer hermitian\n2 2 2\n"
                                   "2 1 -4\n2 2 9\n",
                                   &m, &e),
                     TDCL_OK);
    assert_int_equal(m.dtype, TDCL_I64);
    expect_csr(&m, 2, 2, (const int64_t[]){0, 1, 3}, (const int64_t[]){1, 0, 1},
               (const double[]){-4, -4, 9}, 3);
    tdcl_csr_free(&m);
    assert_int_equal(read_csr_text("%%MatrixMarket matrix coordinate integer skew-symmetric\n"
                                   "3 3 2\n3 1 5000000000\n2 1 -7\n",
                                   &m, &e),
                     TDCL_OK);
    expect_csr(&m, 3, 3, (const int64_t[]){0, 2, 3, 4}, (const int64_t[]){1, 2, 0, 0},
               (const double[]){7, -5e9, -7, 5e9}, 4);
    assert_int_equal(tdcl_csr_get_i64(&m, 1), -5000000000LL);
    tdcl_csr_free(&m);
    /* an array file: read dense, its nonzeros kept */
    assert_int_equal(
        read_csr_text("%%MatrixMarket matrix array real general\n2 2\n0\n3\n-0.5\n0\n", &m, &e),
        TDCL_OK);
    expect_csr(&m, 2, 2, (const int64_t[]){0, 1, 2}, (const int64_t[]){1, 0},
               (const double[]){-0.5, 3}, 2);
    tdcl_csr_free(&m);
    tdcl_mtx_header h;
    assert_int_equal(tdcl_mtx_peek_path(tmp("sp.mtx"), &h, &e), TDCL_OK);
    assert_true(h.rows == 2 && h.cols == 2 && h.entries == 4 && !h.coordinate &&
                h.field == TDCL_MTX_REAL && h.symmetry == TDCL_MTX_GENERAL && h.header_lines == 2);
    tdcl_test_write_text(tmp("pk.mtx"), "%%MatrixMarket matrix coordinate pattern hermitian\n"
                                        "% c\n\n5 5 3\n1 1\n");
    assert_int_equal(tdcl_mtx_peek_path(tmp("pk.mtx"), &h, &e), TDCL_OK);
    assert_true(h.rows == 5 && h.entries == 3 && h.coordinate && h.field == TDCL_MTX_PATTERN &&
                h.symmetry == TDCL_MTX_HERMITIAN && h.header_lines == 4);
}

/* Duplicates across chunks, parts and bands summed in file order, as the
 * sums taken one by one in the test: the same bits for every thread
 * count, chunk size and source (mapped, gzip stream). */
static void test_csr_sums_in_file_order(void **state)
{
    (void)state;
    static const char *syms[] = {"general", "symmetric", "skew-symmetric"};
    static const size_t chunks[] = {0, 100};
    for (int s = 0; s < 3; s++) {
        int64_t rows = s ? 9 : 11, cols = 9;
        double want[99];
        order_file(tmp("sdup.mtx"), syms[s], rows, cols, 3000, want);
        char cmd[9000];
        snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", tmp("sdup.mtx"), tmp("sdup.mtx.gz"));
        assert_int_equal(system(cmd), 0);
        for (int t = 1; t <= 3; t++)
            for (size_t c = 0; c < 2 * sizeof chunks / sizeof chunks[0]; c++) {
                tdcl_mtx_read_opts ro = {.threads = t, .chunk = chunks[c / 2]};
                tdcl_csr m;
                tdcl_matrix d;
                tdcl_err e;
                const char *f = tmp(c % 2 ? "sdup.mtx.gz" : "sdup.mtx");
                tdcl_status st = tdcl_mtx_read_csr_path(f, &ro, &m, &e);
                if (st) print_message("%s\n", e.msg);
                assert_int_equal(st, TDCL_OK);
                assert_true(m.sorted && !m.idx64);
                for (int64_t i = 0; i < rows; i++)
                    for (int64_t k = tdcl_csr_rp(&m, i) + 1; k < tdcl_csr_rp(&m, i + 1); k++)
                        assert_true(tdcl_csr_ci(&m, k) > tdcl_csr_ci(&m, k - 1));
                assert_int_equal(tdcl_csr_to_dense(&m, 0, &d, &e), TDCL_OK);
                for (int64_t k = 0; k < rows * cols; k++) {
                    double got = ((double *)d.data)[k];
                    if (memcmp(&got, &want[k], sizeof got) != 0)
                        fail_msg("%s, %s, %d threads, chunk %zu: cell %lld is %.17g, want %.17g",
                                 syms[s], f, t, chunks[c / 2], (long long)k, got, want[k]);
                }
                tdcl_matrix_free(&d);
                tdcl_csr_free(&m);
            }
    }
}

static const struct {
    const char *text, *msg;
    tdcl_status st;
} bad_sparse[] = {
    {"%%MatrixMarket matrix coordinate real general\n3 4 2\n1 1 1\n2 0 1\n",
     "sp.mtx:4: column index 0 is out of range 1..4", TDCL_EPARSE},
    {"%%MatrixMarket matrix coordinate real general\n% c\n3 4 2\n\n4 1 1\n1 1 1\n",
     "sp.mtx:5: row index 4 is out of range 1..3", TDCL_EPARSE},
    {"%%MatrixMarket matrix coordinate real general\n3 4 1000\n1 1 1\n",
     "sp.mtx:2: the size line claims 1000 entries, but the 6 bytes after it can hold at most 1",
     TDCL_EPARSE},
    {"%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 2 9223372036854775807\n"
     "2 2 1\n1 2 1\n",
     "sp.mtx: the sum of the entries at (1, 2) overflows int64", TDCL_EPARSE},
    {"%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1.5\n2 2 2.5      \n",
     "sp.mtx:4: expected 3 entries, got 2 before the end of the file", TDCL_EPARSE},
    {"%%MatrixMarket matrix coordinate real general\n5000000000000 5000000000000 1\n1 1 1\n",
     "sp.mtx': a 5000000000000x5000000000000 sparse matrix has more than 2^64 cells", TDCL_ELIMIT},
    {"%%MatrixMarket matrix coordinate real general\n1000000000000 2 1\n1 1 1\n",
     "a 1000000000000x2 sparse matrix with up to 1 entries", TDCL_ELIMIT},
    {"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
     ":1: complex matrices are not supported", TDCL_EUNSUPPORTED},
};

static void test_csr_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_sparse / sizeof bad_sparse[0]; i++) {
        tdcl_csr m;
        tdcl_err e;
        tdcl_status st = read_csr_text(bad_sparse[i].text, &m, &e);
        if (st != bad_sparse[i].st || !strstr(e.msg, bad_sparse[i].msg))
            print_message("case %zu: status %d, message '%s'\n  expected '%s'\n", i, st, e.msg,
                          bad_sparse[i].msg);
        assert_int_equal(st, bad_sparse[i].st);
        assert_non_null(strstr(e.msg, bad_sparse[i].msg));
        assert_null(m.rowptr);
    }
    /* max_bytes bounds the CSR arrays the size line implies */
    tdcl_csr m;
    tdcl_err e;
    tdcl_test_write_text(tmp("lim.mtx"), "%%MatrixMarket matrix coordinate real general\n"
                                         "1000 1000 2\n1 1 1\n2 2 2\n");
    tdcl_mtx_read_opts ro = {.max_bytes = 1000};
    assert_int_equal(tdcl_mtx_read_csr_path(tmp("lim.mtx"), &ro, &m, &e), TDCL_ELIMIT);
    assert_non_null(strstr(e.msg, "with up to 2 entries needs 4.0 kB, more than the limit"));
    ro.max_bytes = 4028;
    assert_int_equal(tdcl_mtx_read_csr_path(tmp("lim.mtx"), &ro, &m, &e), TDCL_OK);
    assert_int_equal(m.nnz, 2);
    /* a dense copy is refused with its size */
    tdcl_matrix d;
    assert_int_equal(tdcl_csr_to_dense(&m, 1000, &d, &e), TDCL_ELIMIT);
    assert_non_null(
        strstr(e.msg, "a dense 1000x1000 float64 copy of the sparse matrix needs 8.0 MB"));
    tdcl_csr_free(&m);
}

/* The CSR writer prints what the dense coordinate writer prints for the
 * same matrix, byte for byte, and reads back bit-identical; an unsorted
 * matrix is written sorted; float32, int64 and pattern keep their field. */
static void test_csr_write(void **state)
{
    (void)state;
    tdcl_matrix a, b;
    tdcl_csr m, r;
    tdcl_err e;
    assert_int_equal(tdcl_matrix_alloc(&a, 37, 29, 1, TDCL_F64, &e), TDCL_OK);
    fill_tricky_f64(&a, 5);
    double *ad = a.data;
    for (size_t k = 0; k < tdcl_matrix_count(&a); k++)
        if (k % 2 == 0 || ad[k] == 0) ad[k] = 0; /* -0.0 is a zero: not stored */
    assert_int_equal(tdcl_csr_from_dense(&a, &m, &e), TDCL_OK);
    tdcl_mtx_write_opts wo = {.coordinate = 1, .threads = 2};
    assert_int_equal(tdcl_mtx_write_path(tmp("dense.mtx"), &a, &wo, &e), TDCL_OK);
    assert_int_equal(tdcl_sparse_write_path(tmp("sparse.mtx"), &m, &e), TDCL_OK);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", tmp("dense.mtx"), tmp("sparse.mtx"));
    assert_int_equal(system(cmd), 0);
    assert_int_equal(tdcl_sparse_read_path(tmp("sparse.mtx"), 0, &r, &e), TDCL_OK);
    assert_int_equal(tdcl_csr_to_dense(&r, 0, &b, &e), TDCL_OK);
    assert_same_bits(&a, &b);
    tdcl_matrix_free(&b);
    tdcl_csr_free(&r);
    tdcl_csr_free(&m);
    tdcl_matrix_free(&a);
    /* rows out of order, float32 */
    float fv[] = {2.5f, 0.1f, -3};
    int32_t rp[] = {0, 2, 2, 3}, ci[] = {4, 1, 0};
    tdcl_csr u = {.rows = 3,
                  .cols = 5,
                  .nnz = 3,
                  .dtype = TDCL_F32,
                  .rowptr = rp,
                  .colidx = ci,
                  .values = fv};
    FILE *fp = fopen(tmp("u.mtx"), "wb");
    assert_int_equal(tdcl_mtx_write_csr(fp, "u.mtx", &u, NULL, &e), TDCL_OK);
    fclose(fp);
    char text[256] = "";
    fp = fopen(tmp("u.mtx"), "rb");
    text[fread(text, 1, sizeof text - 1, fp)] = '\0';
    fclose(fp);
    assert_string_equal(text, "%%MatrixMarket matrix coordinate real general\n"
                              "% written by tiledcl\n3 5 3\n1 2 0.1\n1 5 2.5\n3 1 -3\n");
    /* integer and pattern */
    assert_int_equal(read_csr_text("%%MatrixMarket matrix coordinate pattern general\n"
                                   "2 3 2\n2 3\n1 2\n",
                                   &m, &e),
                     TDCL_OK);
    assert_int_equal(tdcl_sparse_write_path(tmp("p.mtx"), &m, &e), TDCL_OK);
    tdcl_csr_free(&m);
    fp = fopen(tmp("p.mtx"), "rb");
    text[fread(text, 1, sizeof text - 1, fp)] = '\0';
    fclose(fp);
    assert_string_equal(text, "%%MatrixMarket matrix coordinate pattern general\n"
                              "% written by tiledcl\n2 3 2\n1 2\n2 3\n");
    assert_int_equal(tdcl_sparse_write_path(tmp("p.txt"), &m, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "unknown extension"));
}

/* What tdcl_sparse_path calls sparse, and a dense .npy read as CSR. */
static void test_sparse_dispatch(void **state)
{
    (void)state;
    tdcl_err e;
    tdcl_test_write_text(tmp("c.mtx"), "%%MatrixMarket matrix coordinate real general\n1 1 0\n");
    tdcl_test_write_text(tmp("a.mtx"), "%%MatrixMarket matrix array real general\n1 1\n0\n");
    assert_int_equal(tdcl_sparse_path(tmp("c.mtx")), 1);
    assert_int_equal(tdcl_sparse_path(tmp("a.mtx")), 0);
    assert_int_equal(tdcl_sparse_path(tmp("x.npz")), 1);
    assert_int_equal(tdcl_sparse_path(tmp("x.npy")), 0);
    assert_int_equal(tdcl_sparse_path("-"), 0);
    tdcl_matrix a;
    assert_int_equal(tdcl_matrix_alloc(&a, 2, 3, 1, TDCL_I32, &e), TDCL_OK);
    ((int32_t *)a.data)[1] = -7;
    ((int32_t *)a.data)[5] = 2147483647;
    assert_int_equal(tdcl_matrix_write(tmp("n.npy"), &a, NULL, &e), TDCL_OK);
    tdcl_matrix_free(&a);
    tdcl_csr m;
    assert_int_equal(tdcl_sparse_read_path(tmp("n.npy"), 0, &m, &e), TDCL_OK);
    assert_int_equal(m.dtype, TDCL_I64);
    expect_csr(&m, 2, 3, (const int64_t[]){0, 1, 2}, (const int64_t[]){1, 2},
               (const double[]){-7, 2147483647}, 2);
    tdcl_csr_free(&m);
}

/* scipy.sparse.save_npz fixtures in each layout (unsorted indices,
 * duplicates, stored and deflated members) against scipy's own toarray(). */
static void test_npz_fixtures_from_scipy(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int64_t rows, cols;
        tdcl_dtype dtype;
        int pattern, is_int;
    } fx[] = {
        {"sp_csr_f64.npz", 3, 4, TDCL_F64, 0, 0},
        {"sp_csc_i64.npz", 3, 3, TDCL_I64, 0, 1},
        {"sp_coo_f32.npz", 5, 3, TDCL_F32, 0, 0},
        {"sp_bool.npz", 2, 3, TDCL_I64, 1, 1},
    };
    const char *data = getenv("TDCL_TEST_DATA");
    assert_non_null(data);
    for (size_t i = 0; i < sizeof fx / sizeof fx[0]; i++) {
        char path[4096], ref[4200];
        snprintf(path, sizeof path, "%s/%s", data, fx[i].name);
        snprintf(ref, sizeof ref, "%s.expect.bin", path);
        tdcl_csr m;
        tdcl_matrix d;
        tdcl_err e;
        assert_int_equal(tdcl_sparse_path(path), 1);
        tdcl_status st = tdcl_sparse_read_path(path, 0, &m, &e);
        if (st) print_message("%s: %s\n", fx[i].name, e.msg);
        assert_int_equal(st, TDCL_OK);
        assert_true(m.rows == fx[i].rows && m.cols == fx[i].cols && m.sorted);
        assert_int_equal(m.dtype, fx[i].dtype);
        assert_int_equal(m.pattern, fx[i].pattern);
        assert_int_equal(tdcl_csr_to_dense(&m, 0, &d, &e), TDCL_OK);
        FILE *fp = fopen(ref, "rb");
        assert_non_null(fp);
        for (size_t k = 0; k < tdcl_matrix_count(&d); k++) {
            union {
                double f;
                int64_t i;
            } w;
            assert_int_equal(fread(&w, 8, 1, fp), 1);
            if (fx[i].is_int)
                assert_true(tdcl_matrix_get_i64(&d, k) == w.i);
            else
                assert_true(tdcl_matrix_get_f64(&d, k) == w.f);
        }
        fclose(fp);
        tdcl_matrix_free(&d);
        tdcl_csr_free(&m);
    }
}

/* The .npz writer's archive reads back equal for every value kind and
 * index width; broken archives are refused naming the file and member. */
static void test_npz_round_trip_and_errors(void **state)
{
    (void)state;
    tdcl_err e;
    tdcl_csr m, r;
    assert_int_equal(read_csr_text("%%MatrixMarket matrix coordinate integer general\n"
                                   "3 4 4\n3 2 -9223372036854775807\n1 4 2\n3 1 -1\n2 2 0\n",
                                   &m, &e),
                     TDCL_OK);
    for (int kind = 0; kind < 3; kind++) {
        if (kind == 1) { /* float32 */
            float *f = malloc(4 * sizeof *f);
            for (int k = 0; k < 4; k++)
                f[k] = (float)k / 3;
            free(m.values);
            m.values = f;
            m.dtype = TDCL_F32;
        } else if (kind == 2) { /* pattern */
            free(m.values);
            m.values = NULL;
            m.pattern = 1;
            m.dtype = TDCL_I64;
        }
        assert_int_equal(tdcl_sparse_write_path(tmp("rt.npz"), &m, &e), TDCL_OK);
        tdcl_status st = tdcl_sparse_read_path(tmp("rt.npz"), 0, &r, &e);
        if (st) print_message("%s\n", e.msg);
        assert_int_equal(st, TDCL_OK);
        assert_true(r.rows == 3 && r.cols == 4 && r.nnz == 4 && r.dtype == m.dtype &&
                    r.pattern == m.pattern);
        for (int64_t i = 0; i <= 3; i++)
            assert_int_equal(tdcl_csr_rp(&r, i), tdcl_csr_rp(&m, i));
        for (int64_t k = 0; k < 4; k++) {
            assert_int_equal(tdcl_csr_ci(&r, k), tdcl_csr_ci(&m, k));
            assert_true(tdcl_csr_get_i64(&r, k) == tdcl_csr_get_i64(&m, k));
            assert_true(tdcl_csr_get_f64(&r, k) == tdcl_csr_get_f64(&m, k));
        }
        tdcl_csr_free(&r);
    }
    tdcl_csr_free(&m);
    tdcl_test_write_text(tmp("bad.npz"), "PK\x03\x04 not really a zip");
    assert_int_equal(tdcl_sparse_read_path(tmp("bad.npz"), 0, &r, &e), TDCL_EPARSE);
    assert_non_null(strstr(e.msg, "bad.npz': not a readable zip archive"));
    /* an archive holding format.npy only */
    char npy[256];
    size_t h = tdcl_npy_header_nd(npy, "|S3", 0, NULL);
    memcpy(npy + h, "csr", 3);
    int zerr;
    zip_t *za = zip_open(tmp("part.npz"), ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    assert_non_null(za);
    zip_source_t *src = zip_source_buffer(za, npy, h + 3, 0);
    assert_true(zip_file_add(za, "format.npy", src, 0) >= 0);
    assert_int_equal(zip_close(za), 0);
    assert_int_equal(tdcl_sparse_read_path(tmp("part.npz"), 0, &r, &e), TDCL_EPARSE);
    assert_non_null(strstr(e.msg, "part.npz': expected the member 'shape.npy'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array_real_column_major),
        cmocka_unit_test(test_npy_mapped_read),
        cmocka_unit_test(test_npy_mapped_fallbacks),
        cmocka_unit_test(test_npy_mapped_errors),
        cmocka_unit_test(test_npy_out_chunks),
        cmocka_unit_test(test_npy_save_bands),
        cmocka_unit_test(test_narrow),
        cmocka_unit_test(test_array_integer),
        cmocka_unit_test(test_coordinate_real_sums_duplicates),
        cmocka_unit_test(test_coordinate_integer_and_pattern),
        cmocka_unit_test(test_symmetric_and_skew),
        cmocka_unit_test(test_tolerant_parsing),
        cmocka_unit_test(test_errors_name_file_and_line),
        cmocka_unit_test(test_size_limits),
        cmocka_unit_test(test_mtx_round_trip_f64_bits),
        cmocka_unit_test(test_mtx_f32_prints_float32_shortest),
        cmocka_unit_test(test_mtx_integers_exact),
        cmocka_unit_test(test_npy_round_trip_all_dtypes),
        cmocka_unit_test(test_npy_fortran_order_and_versions),
        cmocka_unit_test(test_npy_errors),
        cmocka_unit_test(test_gzip_input),
        cmocka_unit_test(test_chunks_and_threads_agree),
        cmocka_unit_test(test_error_line_across_chunks),
        cmocka_unit_test(test_array_lines_against_strtod),
        cmocka_unit_test(test_array_error_line_in_any_part),
        cmocka_unit_test(test_duplicates_sum_in_file_order),
        cmocka_unit_test(test_integer_entries_fast_and_general),
        cmocka_unit_test(test_overflow_first_in_file_order),
        cmocka_unit_test(test_unreadable_inputs_are_named),
        cmocka_unit_test(test_write_is_atomic),
        cmocka_unit_test(test_fixtures_from_scipy_and_numpy),
        cmocka_unit_test(test_csr_hand_computed),
        cmocka_unit_test(test_csr_sums_in_file_order),
        cmocka_unit_test(test_csr_errors),
        cmocka_unit_test(test_csr_write),
        cmocka_unit_test(test_sparse_dispatch),
        cmocka_unit_test(test_npz_fixtures_from_scipy),
        cmocka_unit_test(test_npz_round_trip_and_errors),
    };
    return cmocka_run_group_tests_name("matio", tests, group_setup, group_teardown);
}
