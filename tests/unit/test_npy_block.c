/* .npy blocks read by offset (tdcl_npy_probe, tdcl_npy_read_block), as
 * MPI ranks read their own blocks of A and B: every block of a written
 * matrix against the whole, version 2.0 headers, the files refused (text,
 * Fortran order, a header that does not match the size). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "io/matio.h"
#include "io/npy.h"

static char *dir;
static char path[4200];

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

static const char *tmp(const char *name)
{
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

/* Every block [r0, r1) x [c0, c1) of a 7 x 5 int64 matrix equals the
 * whole matrix's elements there. */
static void test_every_block(void **state)
{
    (void)state;
    tdcl_matrix m, b;
    tdcl_err e;
    tdcl_npy_info info;
    assert_int_equal(tdcl_matrix_alloc(&m, 7, 5, 1, TDCL_I64, &e), TDCL_OK);
    for (int k = 0; k < 35; k++)
        ((int64_t *)m.data)[k] = 1000 + k * 37 - (k % 3) * 5000;
    assert_int_equal(tdcl_matrix_write(tmp("m.npy"), &m, NULL, &e), TDCL_OK);
    assert_int_equal(tdcl_npy_probe(path, &info, &e), TDCL_OK);
    assert_int_equal(info.rows, 7);
    assert_int_equal(info.cols, 5);
    assert_int_equal(info.dtype, TDCL_I64);
    for (int r0 = 0; r0 < 7; r0++)
        for (int r1 = r0 + 1; r1 <= 7; r1++)
            for (int c0 = 0; c0 < 5; c0++)
                for (int c1 = c0 + 1; c1 <= 5; c1++) {
                    assert_int_equal(tdcl_npy_read_block(path, &info, r0, r1, c0, c1, &b, &e),
                                     TDCL_OK);
                    assert_int_equal(b.rows, r1 - r0);
                    assert_int_equal(b.cols, c1 - c0);
                    for (int r = r0; r < r1; r++)
                        for (int c = c0; c < c1; c++)
                            assert_int_equal(((int64_t *)b.data)[(r - r0) * (c1 - c0) + c - c0],
                                             ((int64_t *)m.data)[r * 5 + c]);
                    tdcl_matrix_free(&b);
                }
    tdcl_matrix_free(&m);
}

static void write_npy(const char *p, int major, const char *dict, const void *data, size_t bytes)
{
    FILE *fp = fopen(p, "wb");
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

/* A version 2.0 header: the data starts 2 bytes later. */
static void test_version_2(void **state)
{
    (void)state;
    const float v[] = {1, 2, 3, 4, 5, 6};
    tdcl_npy_info info;
    tdcl_matrix b;
    tdcl_err e;
    write_npy(tmp("v2.npy"), 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n", v,
              sizeof v);
    assert_int_equal(tdcl_npy_probe(path, &info, &e), TDCL_OK);
    assert_int_equal(tdcl_npy_read_block(path, &info, 1, 2, 1, 3, &b, &e), TDCL_OK);
    assert_true(((float *)b.data)[0] == 5 && ((float *)b.data)[1] == 6);
    tdcl_matrix_free(&b);
}

/* numpy under Python 2 wrote shapes as longs, "(2L, 3L)"; numpy reads them
 * still, and so does tiledcl. */
static void test_python2_longs(void **state)
{
    (void)state;
    const double v[] = {1, 2, 3, 4, 5, 6};
    tdcl_npy_info info;
    tdcl_matrix b;
    tdcl_err e;
    write_npy(tmp("py2.npy"), 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 3L), }\n",
              v, sizeof v);
    if (tdcl_npy_probe(path, &info, &e) != TDCL_OK) fail_msg("%s", e.msg);
    assert_int_equal(info.rows, 2);
    assert_int_equal(info.cols, 3);
    assert_int_equal(tdcl_npy_read_block(path, &info, 1, 2, 0, 3, &b, &e), TDCL_OK);
    assert_true(((double *)b.data)[0] == 4 && ((double *)b.data)[2] == 6);
    tdcl_matrix_free(&b);
    write_npy(tmp("py2b.npy"), 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2LL, 3), }\n",
              v, sizeof v);
    assert_int_equal(tdcl_npy_probe(path, &info, &e), TDCL_EPARSE); /* one L, no more */
}

/* What the ranks cannot read by offset: refused as EUNSUPPORTED, so that
 * the job reads the file whole on rank 0; a broken header as itself. */
static void test_refused(void **state)
{
    (void)state;
    const double v[] = {1, 2, 3, 4, 5, 6};
    tdcl_npy_info info;
    tdcl_err e;
    write_npy(tmp("f.npy"), 1, "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }\n", v,
              sizeof v);
    assert_int_equal(tdcl_npy_probe(path, &info, &e), TDCL_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "Fortran order"));
    write_npy(tmp("short.npy"), 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 4), }\n",
              v, sizeof v);
    assert_int_equal(tdcl_npy_probe(path, &info, &e), TDCL_EPARSE);
    FILE *fp = fopen(tmp("m.mtx"), "w");
    assert_non_null(fp);
    fputs("%%MatrixMarket matrix array real general\n1 1\n2\n", fp);
    fclose(fp);
    assert_int_equal(tdcl_npy_probe(path, &info, &e), TDCL_EUNSUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_block),
        cmocka_unit_test(test_version_2),
        cmocka_unit_test(test_python2_longs),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
