/* matmul's parameter table (ops/matmul/mm_table): the built-in rows of known
 * devices, the tuned table stored in a scratch cache directory and read
 * back, the choice of the entry nearest in size (and not one that leaves the
 * device idle), malformed lines skipped, another device's table ignored.
 * No OpenCL: the context is a described device, as the table sees it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tdcl_test.h"

#include "base/fileio.h"
#include "ops/matmul/mm_table.h"

/* A device as the table sees it: identity strings, compute units, a cache. */
static tdcl_ctx fake_ctx(const char *vendor, const char *name, const char *driver, cl_uint cus,
                         char *cache_dir)
{
    tdcl_ctx c;
    memset(&c, 0, sizeof c);
    snprintf(c.dev.platform_name, sizeof c.dev.platform_name, "%s platform", vendor);
    snprintf(c.dev.platform_vendor, sizeof c.dev.platform_vendor, "%s", vendor);
    snprintf(c.dev.device_name, sizeof c.dev.device_name, "%s", name);
    snprintf(c.dev.driver_version, sizeof c.dev.driver_version, "%s", driver);
    snprintf(c.dev.device_version, sizeof c.dev.device_version, "OpenCL 1.2 test");
    c.dev.type = CL_DEVICE_TYPE_GPU;
    c.dev.compute_units = cus;
    c.cache_dir = cache_dir;
    return c;
}

static tdcl_mm_table_row gpu_row(int64_t size, int bm, int bn, double gflops)
{
    tdcl_mm_table_row r;
    memset(&r, 0, sizeof r);
    r.size = size;
    r.gflops = gflops;
    r.par.bm = bm, r.par.bn = bn, r.par.bk = 16, r.par.tm = 4, r.par.tn = 4;
    r.par.wx = 8, r.par.wy = 4, r.par.nbuf = 2, r.par.aload = 1, r.par.atrans = 1;
    r.par.ksplit = 1;
    return r;
}

static void store(tdcl_ctx *ctx, tdcl_mm_kernel k, const tdcl_mm_table_row *rows, int n)
{
    tdcl_err e = {0};
    char where[4096];
    if (tdcl_mm_table_store(ctx, k, rows, n, where, sizeof where, &e) != TDCL_OK)
        fail_msg("store: %s", e.msg);
    char *path = tdcl_mm_table_path(ctx);
    assert_non_null(path);
    assert_string_equal(where, path);
    free(path);
}

/* The bm of the GPU entry chosen for an M x K by K x N float32 product, or
 * -1 when none; *src gets the table it came from. */
static int gpu_bm(tdcl_ctx *ctx, int64_t M, int64_t K, int64_t N, const char **src)
{
    tdcl_mm_params p;
    memset(&p, 0, sizeof p);
    p.bm = -1;
    *src = tdcl_mm_table_lookup(ctx, TDCL_MM_GPU, TDCL_F32, M, K, N, &p);
    return p.bm;
}

static void append(const char *path, const char *text)
{
    FILE *fp = fopen(path, "ab");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

static void test_builtin_rows(void **state)
{
    (void)state;
    const char *src;
    /* PoCL: a CPU row only */
    tdcl_ctx pocl = fake_ctx("The pocl project", "pthread-test", "3.1", 2, NULL);
    tdcl_mm_params p = {0};
    assert_non_null(src = tdcl_mm_table_lookup(&pocl, TDCL_MM_CPU, TDCL_F32, 1000, 1000, 1000, &p));
    assert_string_equal(src, "built-in");
    assert_int_equal(p.mr, 6);
    assert_int_equal(gpu_bm(&pocl, 1000, 1000, 1000, &src), -1); /* untouched */
    assert_null(src);
    /* an H200: the large row at 3000 and past 4096; the 2560 row only
     * where the nearest row's tiles are too few (2000x3000x1000, not 2500
     * cubed), and not when the 1024 row is nearer (1500 cubed) */
    tdcl_ctx h200 = fake_ctx("NVIDIA Corporation", "NVIDIA H200", "580", 132, NULL);
    assert_int_equal(gpu_bm(&h200, 3000, 3000, 3000, &src), 128);
    assert_string_equal(src, "built-in");
    tdcl_mm_params q = {0};
    assert_non_null(tdcl_mm_table_lookup(&h200, TDCL_MM_GPU, TDCL_F32, 2000, 3000, 1000, &q));
    assert_int_equal(q.bm * 1000 + q.bn, 64128);
    assert_int_equal(gpu_bm(&h200, 2500, 2500, 2500, &src), 128);
    q = (tdcl_mm_params){0};
    assert_non_null(tdcl_mm_table_lookup(&h200, TDCL_MM_GPU, TDCL_F32, 1500, 1500, 1500, &q));
    assert_int_equal(q.bm * 1000 + q.bn, 64064);
    assert_int_equal(gpu_bm(&h200, 8192, 8192, 8192, &src), 128);
    assert_int_equal(gpu_bm(&h200, 256, 256, 256, &src), 32);
    /* an H100 shares the rows (name alternatives); an A100 has none */
    tdcl_ctx h100 = fake_ctx("NVIDIA Corporation", "NVIDIA H100 80GB HBM3", "580", 132, NULL);
    assert_int_equal(gpu_bm(&h100, 3000, 3000, 3000, &src), 128);
    tdcl_ctx a100 = fake_ctx("NVIDIA Corporation", "NVIDIA A100-SXM4-80GB", "580", 108, NULL);
    assert_int_equal(gpu_bm(&a100, 3000, 3000, 3000, &src), -1);
    /* an unknown device: nothing */
    tdcl_ctx other = fake_ctx("Someone", "Some GPU", "1.0", 16, NULL);
    assert_int_equal(gpu_bm(&other, 1024, 1024, 1024, &src), -1);
    assert_null(src);
    /* every built-in row parses back to a set of its shape */
    tdcl_mm_kernel k;
    size_t n = 0;
    for (const char *t; (t = tdcl_mm_table_builtin(n, &k)); n++) {
        tdcl_mm_params q = {0};
        char fmt[200];
        assert_int_equal(tdcl_mm_params_parse(t, &q, NULL), TDCL_OK);
        assert_true(tdcl_mm_params_format(&q, k, fmt, sizeof fmt)[0] != '\0');
    }
    assert_true(n > 0);
}

static void test_tuned_nearest(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir();
    const char *src;
    tdcl_ctx ctx = fake_ctx("Test Vendor", "Test GPU", "1.0", 1, dir);
    tdcl_mm_table_row rows[] = {gpu_row(256, 32, 32, 100), gpu_row(1024, 64, 64, 200),
                                gpu_row(4096, 128, 256, 300)};
    store(&ctx, TDCL_MM_GPU, rows, 3);
    assert_int_equal(gpu_bm(&ctx, 200, 200, 200, &src), 32);
    assert_string_equal(src, "tuned");
    assert_int_equal(gpu_bm(&ctx, 700, 700, 700, &src), 64);    /* 1024/700 < 700/256 */
    assert_int_equal(gpu_bm(&ctx, 2000, 2000, 2000, &src), 64); /* 1.95 against 2.05 */
    assert_int_equal(gpu_bm(&ctx, 3000, 3000, 3000, &src), 128);
    assert_int_equal(gpu_bm(&ctx, 4096, 64, 4096, &src), 64); /* the cube root of M*K*N */
    /* the whole set comes back */
    tdcl_mm_params p = {0};
    assert_non_null(tdcl_mm_table_lookup(&ctx, TDCL_MM_GPU, TDCL_F32, 4096, 4096, 4096, &p));
    assert_int_equal(p.bn, 256);
    assert_int_equal(p.bk, 16);
    assert_int_equal(p.nbuf, 2);
    /* float32 rows serve neither float64 nor the cpu shape */
    memset(&p, 0, sizeof p);
    assert_null(tdcl_mm_table_lookup(&ctx, TDCL_MM_GPU, TDCL_F64, 1024, 1024, 1024, &p));
    assert_null(tdcl_mm_table_lookup(&ctx, TDCL_MM_CPU, TDCL_F32, 1024, 1024, 1024, &p));
    assert_int_equal(p.bm, 0);
    tdcl_test_rmtree(dir);
    free(dir);
}

static void test_not_an_idle_device(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir();
    const char *src;
    /* 1000 compute units: 2048's 128x256 tiles make 12x6 groups at 1500,
     * far below 3/4 of a group per unit; 1024's 32x32 ones make 47x47 */
    tdcl_ctx wide = fake_ctx("Test Vendor", "Wide GPU", "1.0", 1000, dir);
    tdcl_mm_table_row rows[] = {gpu_row(1024, 32, 32, 100), gpu_row(2048, 128, 256, 200)};
    store(&wide, TDCL_MM_GPU, rows, 2);
    assert_int_equal(gpu_bm(&wide, 1500, 1500, 1500, &src), 32);
    assert_string_equal(src, "tuned");
    /* with one compute unit the nearest size wins */
    wide.dev.compute_units = 1;
    assert_int_equal(gpu_bm(&wide, 1500, 1500, 1500, &src), 128);
    /* when no entry fills the device, still the nearest */
    wide.dev.compute_units = 1000000;
    assert_int_equal(gpu_bm(&wide, 1500, 1500, 1500, &src), 128);
    tdcl_test_rmtree(dir);
    free(dir);
}

static void test_malformed_lines_skipped(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir();
    const char *src;
    tdcl_ctx ctx = fake_ctx("Test Vendor", "Test GPU", "1.0", 1, dir);
    tdcl_mm_table_row rows[] = {gpu_row(512, 64, 64, 100)};
    store(&ctx, TDCL_MM_GPU, rows, 1);
    char *path = tdcl_mm_table_path(&ctx);
    append(path, "matmul float32 gpu 1024 1.0 bm=128 bogus=1\n"
                 "matmul float16 gpu 1024 1.0 bm=128\n"
                 "matmul float32 gpu -1024 1.0 bm=128\n"
                 "matmul float32 tpu 1024 1.0 bm=128\n"
                 "matmul float32 gpu 1024\n"
                 "matmul float32 gpu 1024 fast bm=128\n"
                 "garbage\n\n");
    tdcl_mm_table_forget(); /* the table was read when stored */
    assert_int_equal(gpu_bm(&ctx, 1024, 1024, 1024, &src), 64);
    assert_string_equal(src, "tuned");
    /* a good line after the bad ones still counts */
    append(path, "matmul float32 gpu 1024 2.0 bm=32 bn=32\n");
    tdcl_mm_table_forget();
    assert_int_equal(gpu_bm(&ctx, 1024, 1024, 1024, &src), 32);
    /* storing again keeps the good rows and drops the bad ones */
    tdcl_mm_table_row more[] = {gpu_row(4096, 128, 128, 300)};
    store(&ctx, TDCL_MM_GPU, more, 1);
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(tdcl_read_file(path, &text, &len, NULL), TDCL_OK);
    assert_null(strstr(text, "bogus"));
    assert_null(strstr(text, "garbage"));
    assert_non_null(strstr(text, "matmul float32 gpu 512 "));
    assert_non_null(strstr(text, "matmul float32 gpu 1024 "));
    assert_non_null(strstr(text, "matmul float32 gpu 4096 "));
    free(text);
    free(path);
    tdcl_test_rmtree(dir);
    free(dir);
}

static void test_store_replaces_a_size(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir();
    const char *src;
    tdcl_ctx ctx = fake_ctx("Test Vendor", "Test GPU", "1.0", 1, dir);
    tdcl_mm_table_row a[] = {gpu_row(256, 32, 32, 100), gpu_row(1024, 64, 64, 200)};
    store(&ctx, TDCL_MM_GPU, a, 2);
    tdcl_mm_table_row b[] = {gpu_row(1024, 128, 64, 250)};
    store(&ctx, TDCL_MM_GPU, b, 1);
    assert_int_equal(gpu_bm(&ctx, 1024, 1024, 1024, &src), 128);
    assert_int_equal(gpu_bm(&ctx, 256, 256, 256, &src), 32); /* the other size stays */
    tdcl_test_rmtree(dir);
    free(dir);
}

static void test_other_device_ignored(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir();
    const char *src;
    tdcl_ctx mine = fake_ctx("Test Vendor", "Test GPU", "1.0", 1, dir);
    tdcl_ctx newer = fake_ctx("Test Vendor", "Test GPU", "2.0", 1, dir); /* a new driver */
    tdcl_mm_table_row rows[] = {gpu_row(1024, 64, 64, 200)};
    store(&mine, TDCL_MM_GPU, rows, 1);
    char *p1 = tdcl_mm_table_path(&mine), *p2 = tdcl_mm_table_path(&newer);
    assert_string_not_equal(p1, p2);
    assert_int_equal(gpu_bm(&newer, 1024, 1024, 1024, &src), -1);
    assert_null(src);
    /* even in the other device's file (a hash collision), the key decides */
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(tdcl_read_file(p1, &text, &len, NULL), TDCL_OK);
    tdcl_test_write_text(p2, text);
    tdcl_mm_table_forget(); /* newer's (empty) table was read above */
    assert_int_equal(gpu_bm(&newer, 1024, 1024, 1024, &src), -1);
    assert_null(src);
    assert_int_equal(gpu_bm(&mine, 1024, 1024, 1024, &src), 64);
    assert_string_equal(src, "tuned");
    free(text);
    free(p1);
    free(p2);
    tdcl_test_rmtree(dir);
    free(dir);
}

static void test_no_cache_dir(void **state)
{
    (void)state;
    const char *src;
    tdcl_ctx ctx = fake_ctx("NVIDIA Corporation", "NVIDIA H100 80GB HBM3", "580", 132, NULL);
    assert_null(tdcl_mm_table_path(&ctx));
    assert_int_equal(gpu_bm(&ctx, 1024, 1024, 1024, &src), 64); /* the built-in table */
    assert_string_equal(src, "built-in");
    tdcl_mm_table_row rows[] = {gpu_row(1024, 64, 64, 200)};
    tdcl_err e = {0};
    assert_int_equal(tdcl_mm_table_store(&ctx, TDCL_MM_GPU, rows, 1, NULL, 0, &e), TDCL_EIO);
    assert_true(e.msg[0] != '\0');
}

/* The tuned table is read from disk once per process and cache directory:
 * a change on disk behind the process's back is not seen, and storing
 * merges with the disk and replaces what was read. */
static void test_read_once_store_replaces(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir();
    tdcl_ctx c = fake_ctx("Nobody", "Fake Device", "1.0", 4, dir);
    const char *src = NULL;
    tdcl_mm_table_row r = gpu_row(512, 64, 64, 100);
    store(&c, TDCL_MM_GPU, &r, 1);
    assert_int_equal(gpu_bm(&c, 512, 512, 512, &src), 64);
    assert_string_equal(src, "tuned");

    char *path = tdcl_mm_table_path(&c), *text = NULL;
    size_t len = 0;
    assert_int_equal(tdcl_read_file(path, &text, &len, NULL), TDCL_OK);
    char *at = strstr(text, "bm=64 bn=64");
    assert_non_null(at);
    memcpy(at, "bm=32 bn=32", 11);
    tdcl_test_write_text(path, text);
    assert_int_equal(gpu_bm(&c, 512, 512, 512, &src), 64);

    tdcl_mm_table_row rows[2] = {gpu_row(512, 128, 128, 100), gpu_row(4096, 16, 16, 100)};
    store(&c, TDCL_MM_GPU, rows, 2);
    assert_int_equal(gpu_bm(&c, 512, 512, 512, &src), 128);
    free(text);
    assert_int_equal(tdcl_read_file(path, &text, &len, NULL), TDCL_OK);
    assert_non_null(strstr(text, "matmul float32 gpu 512 "));
    assert_null(strstr(strstr(text, "matmul float32 gpu 512 ") + 1, "matmul float32 gpu 512 "));
    assert_non_null(strstr(text, "matmul float32 gpu 4096 "));
    free(text);
    free(path);
    tdcl_test_rmtree(dir);
    free(dir);
}

/* Processes storing at once lose no rows: each store reads, merges and
 * replaces the table, so without a lock between processes the later
 * rename drops the rows another process merged meanwhile. */
static void test_concurrent_stores_keep_every_row(void **state)
{
    (void)state;
    enum { PROCS = 6, STORES = 12 };
    char *dir = tdcl_test_tmpdir();
    tdcl_ctx c = fake_ctx("Nobody", "Fake Device", "1.0", 4, dir);
    pid_t kids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        kids[p] = fork();
        assert_true(kids[p] >= 0);
        if (kids[p] == 0) {
            int bad = 0;
            for (int s = 0; s < STORES && !bad; s++) {
                tdcl_mm_table_row r = gpu_row(1000 * (p + 1) + s, 64, 64, 100);
                tdcl_err e = {0};
                bad = tdcl_mm_table_store(&c, TDCL_MM_GPU, &r, 1, NULL, 0, &e) != TDCL_OK;
            }
            _exit(bad);
        }
    }
    for (int p = 0; p < PROCS; p++) {
        int ws = 0;
        assert_int_equal(waitpid(kids[p], &ws, 0), kids[p]);
        assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    }
    char *path = tdcl_mm_table_path(&c), *text = NULL, want[64];
    size_t len = 0;
    assert_int_equal(tdcl_read_file(path, &text, &len, NULL), TDCL_OK);
    int missing = 0;
    for (int p = 0; p < PROCS; p++)
        for (int s = 0; s < STORES; s++) {
            snprintf(want, sizeof want, "matmul float32 gpu %d ", 1000 * (p + 1) + s);
            missing += strstr(text, want) == NULL;
        }
    assert_int_equal(missing, 0);
    free(text);
    free(path);
    tdcl_test_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_rows),
        cmocka_unit_test(test_tuned_nearest),
        cmocka_unit_test(test_not_an_idle_device),
        cmocka_unit_test(test_malformed_lines_skipped),
        cmocka_unit_test(test_store_replaces_a_size),
        cmocka_unit_test(test_other_device_ignored),
        cmocka_unit_test(test_no_cache_dir),
        cmocka_unit_test(test_read_once_store_replaces),
        cmocka_unit_test(test_concurrent_stores_keep_every_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
