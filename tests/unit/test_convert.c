/* tdcl_convert (jobs/convert_job): every kind of input to every kind of
 * output through files in a scratch directory, each result read back with
 * the format's own reader and compared with values written out here by
 * hand; a failed conversion writes nothing and leaves an existing file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "base/fileio.h"
#include "io/image.h"
#include "io/life_io.h"
#include "io/matio.h"
#include "jobs/convert_job.h"

static char *dir;

static int setup(void **state)
{
    (void)state;
    dir = tdcl_test_tmpdir();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tdcl_test_rmtree(dir);
    free(dir);
    return 0;
}

static tdcl_status convert_clip(const char *in, const char *out, int dtype, int clip, tdcl_err *e)
{
    char *pi = tdcl_test_join(dir, in), *po = tdcl_test_join(dir, out);
    tdcl_convert_opts o;
    memset(&o, 0, sizeof o);
    o.in = pi;
    o.out = po;
    o.dtype = dtype;
    o.io.threads = 1;
    o.clip = clip;
    tdcl_status st = tdcl_convert(&o, e);
    free(pi);
    free(po);
    return st;
}

static tdcl_status convert(const char *in, const char *out, int dtype, tdcl_err *e)
{
    return convert_clip(in, out, dtype, 0, e);
}

static void convert_ok(const char *in, const char *out, int dtype)
{
    tdcl_err e = {0};
    if (convert(in, out, dtype, &e) != TDCL_OK) fail_msg("%s -> %s: %s", in, out, e.msg);
}

static void write_in(const char *name, const char *text)
{
    char *p = tdcl_test_join(dir, name);
    tdcl_test_write_text(p, text);
    free(p);
}

static tdcl_matrix read_matrix(const char *name)
{
    char *p = tdcl_test_join(dir, name);
    tdcl_matrix m = {0};
    tdcl_err e = {0};
    if (tdcl_matrix_read(p, 0, &m, &e) != TDCL_OK) fail_msg("%s: %s", name, e.msg);
    free(p);
    return m;
}

/* m (one channel) holds want, row-major. */
static void assert_values(const tdcl_matrix *m, int64_t rows, int64_t cols, const double *want)
{
    assert_int_equal(m->rows, rows);
    assert_int_equal(m->cols, cols);
    assert_int_equal(m->channels, 1);
    for (size_t k = 0; k < (size_t)(rows * cols); k++)
        if (tdcl_matrix_get_f64(m, k) != want[k])
            fail_msg("element %zu: %.17g, want %.17g", k, tdcl_matrix_get_f64(m, k), want[k]);
}

/* A symmetric coordinate file (lower triangle, column-major in the file)
 * to .npy and back to .mtx: every value, and the mirror image filled in. */
static void test_matrix_to_matrix(void **state)
{
    (void)state;
    write_in("s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                      "3 3 4\n1 1 1.5\n2 1 -2.5\n3 2 1e-300\n3 3 7\n");
    const double want[] = {1.5, -2.5, 0, -2.5, 0, 1e-300, 0, 1e-300, 7};
    convert_ok("s.mtx", "s.npy", -1);
    tdcl_matrix m = read_matrix("s.npy");
    assert_int_equal(m.dtype, TDCL_F64);
    assert_values(&m, 3, 3, want);
    tdcl_matrix_free(&m);
    convert_ok("s.npy", "back.mtx", -1);
    m = read_matrix("back.mtx");
    assert_values(&m, 3, 3, want);
    tdcl_matrix_free(&m);
    /* to float32: each value rounded to float */
    convert_ok("s.mtx", "s32.npy", TDCL_F32);
    m = read_matrix("s32.npy");
    assert_int_equal(m.dtype, TDCL_F32);
    const double want32[] = {1.5, -2.5, 0, -2.5, 0, (float)1e-300, 0, (float)1e-300, 7};
    assert_values(&m, 3, 3, want32);
    tdcl_matrix_free(&m);
}

/* Integers stay exact through .npy int64. */
static void test_integers_exact(void **state)
{
    (void)state;
    write_in("i.mtx", "%%MatrixMarket matrix array integer general\n2 2\n"
                      "9007199254740993\n-3\n4\n-9007199254740993\n");
    convert_ok("i.mtx", "i.npy", -1);
    tdcl_matrix m = read_matrix("i.npy");
    assert_int_equal(m.dtype, TDCL_I64);
    /* array files are column-major: (0,0) (1,0) (0,1) (1,1) */
    assert_true(tdcl_matrix_get_i64(&m, 0) == 9007199254740993LL);
    assert_true(tdcl_matrix_get_i64(&m, 1) == 4);
    assert_true(tdcl_matrix_get_i64(&m, 2) == -3);
    assert_true(tdcl_matrix_get_i64(&m, 3) == -9007199254740993LL);
    tdcl_matrix_free(&m);
}

/* A PGM's samples as an integer matrix; a matrix to a picture, 16 bits when
 * a value exceeds 255, rounded and clamped. */
static void test_images(void **state)
{
    (void)state;
    write_in("p.pgm", "P2\n3 2\n255\n0 128 255\n1 2 3\n");
    convert_ok("p.pgm", "p.mtx", -1);
    tdcl_matrix m = read_matrix("p.mtx");
    const double want[] = {0, 128, 255, 1, 2, 3};
    assert_values(&m, 2, 3, want);
    tdcl_matrix_free(&m);

    write_in("v.mtx", "%%MatrixMarket matrix array real general\n2 2\n"
                      "0.4\n1000.6\n-5\n70000\n");
    tdcl_err e = {0};
    /* samples out of range are refused, naming the first, unless clipped */
    assert_int_equal(convert("v.mtx", "v.pgm", -1, &e), TDCL_ERANGE);
    assert_non_null(strstr(e.msg, "value -5 at row 1, column 2"));
    if (convert_clip("v.mtx", "v.pgm", -1, 1, &e) != TDCL_OK) fail_msg("v.pgm: %s", e.msg);
    char *p = tdcl_test_join(dir, "v.pgm");
    tdcl_matrix img = {0};
    int maxval = 0;
    if (tdcl_image_read(p, &img, &maxval, &e) != TDCL_OK) fail_msg("v.pgm: %s", e.msg);
    assert_int_equal(maxval, 65535);
    const double wantimg[] = {0, 0, 1001, 65535}; /* row-major: (0,0) (0,1) (1,0) (1,1) */
    assert_values(&img, 2, 2, wantimg);
    tdcl_matrix_free(&img);
    free(p);
}

/* A glider in RLE to a 0/1 matrix, and a matrix back to a .cells pattern. */
static void test_patterns(void **state)
{
    (void)state;
    write_in("g.rle", "x = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n");
    convert_ok("g.rle", "g.npy", -1);
    tdcl_matrix m = read_matrix("g.npy");
    const double want[] = {0, 1, 0, 0, 0, 1, 1, 1, 1};
    assert_values(&m, 3, 3, want);
    tdcl_matrix_free(&m);
    convert_ok("g.npy", "g.cells", -1);
    char *p = tdcl_test_join(dir, "g.cells");
    tdcl_life_pattern pat;
    memset(&pat, 0, sizeof pat);
    tdcl_err e = {0};
    if (tdcl_life_read(p, 0, &pat, &e) != TDCL_OK) fail_msg("g.cells: %s", e.msg);
    assert_values(&pat.grid, 3, 3, want);
    tdcl_life_pattern_free(&pat);
    free(p);
}

/* Nothing is written on failure, and an existing output stays as it was. */
static void test_failures_write_nothing(void **state)
{
    (void)state;
    tdcl_err e = {0};
    write_in("bad.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n");
    write_in("keep.npy", "precious");
    assert_int_not_equal(convert("bad.mtx", "keep.npy", -1, &e), TDCL_OK);
    assert_non_null(strstr(e.msg, "bad.mtx"));
    char *p = tdcl_test_join(dir, "keep.npy"), *text = NULL;
    size_t len = 0;
    assert_int_equal(tdcl_read_file(p, &text, &len, NULL), TDCL_OK);
    assert_string_equal(text, "precious");
    free(text);
    free(p);
    memset(&e, 0, sizeof e);
    assert_int_not_equal(convert("missing.mtx", "out.npy", -1, &e), TDCL_OK);
    assert_non_null(strstr(e.msg, "missing.mtx"));
    p = tdcl_test_join(dir, "out.npy");
    assert_int_not_equal(tdcl_read_file(p, &text, &len, NULL), TDCL_OK);
    free(p);
    assert_true(tdcl_convert_out_known("a.npy"));
    assert_true(tdcl_convert_out_known("a.png"));
    assert_true(tdcl_convert_out_known("a.rle"));
    assert_false(tdcl_convert_out_known("a.txt"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matrix_to_matrix),
        cmocka_unit_test(test_integers_exact),
        cmocka_unit_test(test_images),
        cmocka_unit_test(test_patterns),
        cmocka_unit_test(test_failures_write_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
