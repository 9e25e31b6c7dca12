/* matmul's parameter table (ops/matmul/mm_table.c) without a device: a
 * context whose device fields are filled by hand. The tuned table is read
 * from disk once per process and cache directory, storing replaces what was
 * read, and a product takes the entry nearest in size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "ops/matmul/mm_table.h"

static tdcl_ctx fake_ctx(char *cache_dir)
{
    tdcl_ctx c;
    memset(&c, 0, sizeof c);
    snprintf(c.dev.platform_name, sizeof c.dev.platform_name, "Fake Platform");
    snprintf(c.dev.platform_vendor, sizeof c.dev.platform_vendor, "Nobody");
    snprintf(c.dev.device_name, sizeof c.dev.device_name, "Fake Device");
    snprintf(c.dev.driver_version, sizeof c.dev.driver_version, "1.0");
    snprintf(c.dev.device_version, sizeof c.dev.device_version, "OpenCL 3.0");
    c.dev.compute_units = 4;
    c.cache_dir = cache_dir;
    return c;
}

static tdcl_mm_table_row gpu_row(int64_t size, int bm)
{
    tdcl_mm_table_row r = {.size = size, .gflops = 100};
    r.par = (tdcl_mm_params){.bm = bm,
                             .bn = bm,
                             .bk = 16,
                             .tm = 4,
                             .tn = 4,
                             .wx = 8,
                             .wy = 4,
                             .nbuf = 2,
                             .aload = 1,
                             .atrans = 1,
                             .ksplit = 1};
    return r;
}

/* A lookup of a gpu float32 cube of side n: the source ("tuned", ...) and bm. */
static const char *lookup_bm(tdcl_ctx *c, int64_t n, int *bm)
{
    tdcl_mm_params p = {0};
    const char *src = tdcl_mm_table_lookup(c, TDCL_MM_GPU, TDCL_F32, n, n, n, &p);
    *bm = p.bm;
    return src;
}

/* Lines of the file at path that start with prefix. */
static int count_lines(const char *path, const char *prefix)
{
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, fp))
        n += strncmp(line, prefix, strlen(prefix)) == 0;
    fclose(fp);
    return n;
}

static void test_read_once_store_replaces(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir();
    tdcl_ctx c = fake_ctx(dir);
    tdcl_err e = {0};
    int bm = -1;
    /* no table, no built-in row for this device */
    assert_null(lookup_bm(&c, 512, &bm));

    tdcl_mm_table_row r = gpu_row(512, 64);
    char stored[4096] = "";
    assert_int_equal(tdcl_mm_table_store(&c, TDCL_MM_GPU, &r, 1, stored, sizeof stored, &e),
                     TDCL_OK);
    char *path = tdcl_mm_table_path(&c);
    assert_string_equal(stored, path);
    assert_string_equal(lookup_bm(&c, 512, &bm), "tuned");
    assert_int_equal(bm, 64);

    /* the file changes behind the process's back: the table was read */
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char text[4096];
    size_t len = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[len] = '\0';
    char *at = strstr(text, "bm=64 bn=64");
    assert_non_null(at);
    memcpy(at, "bm=32 bn=32", 11);
    tdcl_test_write_text(path, text);
    assert_string_equal(lookup_bm(&c, 512, &bm), "tuned");
    assert_int_equal(bm, 64);

    /* storing merges with the disk and replaces what was read */
    r = gpu_row(512, 128);
    tdcl_mm_table_row r2 = gpu_row(4096, 16);
    tdcl_mm_table_row rows[2] = {r, r2};
    assert_int_equal(tdcl_mm_table_store(&c, TDCL_MM_GPU, rows, 2, NULL, 0, &e), TDCL_OK);
    assert_string_equal(lookup_bm(&c, 512, &bm), "tuned");
    assert_int_equal(bm, 128);
    assert_int_equal(count_lines(path, "matmul float32 gpu 512 "), 1);
    assert_int_equal(count_lines(path, "matmul float32 gpu 4096 "), 1);

    /* another cache directory is another table */
    char *dir2 = tdcl_test_tmpdir();
    tdcl_ctx c2 = fake_ctx(dir2);
    assert_null(lookup_bm(&c2, 512, &bm));
    free(path);
    free(dir);
    free(dir2);
}

/* A product takes the entry nearest in size (ratio of cube roots); the
 * kernel and type must match. */
static void test_nearest_size(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir();
    tdcl_ctx c = fake_ctx(dir);
    c.dev.compute_units = 1; /* any tile gives a work-group per unit */
    tdcl_err e = {0};
    tdcl_mm_table_row rows[3] = {gpu_row(256, 16), gpu_row(1024, 32), gpu_row(4096, 64)};
    assert_int_equal(tdcl_mm_table_store(&c, TDCL_MM_GPU, rows, 3, NULL, 0, &e), TDCL_OK);
    const int64_t sides[][2] = {{100, 16},  {400, 16},  {600, 32},
                                {1500, 32}, {2100, 64}, {9000, 64}};
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        int bm = -1;
        assert_string_equal(lookup_bm(&c, sides[i][0], &bm), "tuned");
        assert_int_equal(bm, (int)sides[i][1]);
    }
    /* no row for another kernel or type */
    tdcl_mm_params p = {0};
    assert_null(tdcl_mm_table_lookup(&c, TDCL_MM_CPU, TDCL_F32, 512, 512, 512, &p));
    assert_null(tdcl_mm_table_lookup(&c, TDCL_MM_GPU, TDCL_F64, 512, 512, 512, &p));
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_once_store_replaces),
        cmocka_unit_test(test_nearest_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
