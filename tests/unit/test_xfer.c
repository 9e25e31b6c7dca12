/* runtime/xfer: staged and plain copies give the bytes of a plain
 * clEnqueueWriteBuffer/ReadBuffer at any size, offset and chunk size, and a
 * failing sink stops a download without spoiling the ring. */
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "runtime/xfer.h"

typedef struct collect {
    unsigned char *dst;
    size_t got, max_chunk, fail_pos; /* fail_pos: refuse the chunk there (0: none) */
} collect;

/* Called from several threads: the counters are atomic. */
static tdcl_status collect_sink(void *user, size_t pos, const void *p, size_t n, tdcl_err *err)
{
    collect *c = user;
    if (c->fail_pos && pos == c->fail_pos)
        return tdcl_fail(err, TDCL_EIO, "sink refused the chunk at %zu", pos);
    memcpy(c->dst + pos, p, n);
    __atomic_add_fetch(&c->got, n, __ATOMIC_RELAXED);
    size_t m = __atomic_load_n(&c->max_chunk, __ATOMIC_RELAXED);
    while (n > m && !__atomic_compare_exchange_n(&c->max_chunk, &m, n, 0, __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED)) {
    }
    return TDCL_OK;
}

static unsigned char *random_bytes(size_t n, uint64_t seed)
{
    unsigned char *b = malloc(n);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(tdcl_test_rand(&seed) >> 56);
    return b;
}

/* One configuration: env staging mode and chunk, then n bytes at off. */
static void check_config(const char *mode, const char *chunk, size_t n, size_t off)
{
    setenv("TILEDCL_STAGING", mode, 1);
    setenv("TILEDCL_STAGING_CHUNK", chunk, 1);
    setenv("TILEDCL_STAGING_THREADS", "3", 1);
    tdcl_ctx *ctx = tdcl_test_ctx();
    if (!ctx) skip();
    cl_int rc;
    cl_mem buf = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, off + n + 64, NULL, &rc);
    assert_int_equal(rc, CL_SUCCESS);
    unsigned char *src = random_bytes(n, n + off), *back = calloc(1, n), *dst = calloc(1, n);
    tdcl_err e = {0};
    assert_int_equal(tdcl_xfer_upload(ctx, buf, off, src, n, &e), TDCL_OK);
    /* the reference: the driver's own blocking read */
    assert_int_equal(clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, off, n, back, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_memory_equal(back, src, n);
    assert_int_equal(tdcl_xfer_read(ctx, buf, off, dst, n, &e), TDCL_OK);
    assert_memory_equal(dst, src, n);
    collect c = {.dst = calloc(1, n)};
    assert_int_equal(tdcl_xfer_download(ctx, buf, off, n, collect_sink, &c, &e), TDCL_OK);
    assert_int_equal(c.got, n);
    assert_memory_equal(c.dst, src, n);
    if (strcmp(mode, "1") == 0) assert_true(c.max_chunk <= (size_t)atol(chunk));
    /* a sink failing at the second chunk: its error, and the ring still works */
    size_t chunk_bytes = strcmp(mode, "1") == 0 ? (size_t)atol(chunk) : 0;
    if (chunk_bytes && chunk_bytes < n) {
        collect f = {.dst = c.dst, .fail_pos = chunk_bytes};
        assert_int_equal(tdcl_xfer_download(ctx, buf, off, n, collect_sink, &f, &e), TDCL_EIO);
        assert_non_null(strstr(e.msg, "sink refused the chunk at"));
    }
    memset(dst, 0, n);
    assert_int_equal(tdcl_xfer_read(ctx, buf, off, dst, n, &e), TDCL_OK);
    assert_memory_equal(dst, src, n);
    free(c.dst);
    free(src);
    free(back);
    free(dst);
    clReleaseMemObject(buf);
    tdcl_ctx_close(ctx);
}

static void test_staged_small_chunks(void **state)
{
    (void)state;
    check_config("1", "4096", 4096 * 5 + 123, 0);
    check_config("1", "4096", 4096 * 5 + 123, 7);
    check_config("1", "5000", 1, 3);
    check_config("1", "4096", 4096, 4096);
}

static void test_staged_threads(void **state)
{
    (void)state;
    /* chunks over 1 MiB are copied by the three threads */
    check_config("1", "3145739", (size_t)7 << 20, 64);
}

static void test_plain_and_auto(void **state)
{
    (void)state;
    check_config("0", "4096", 4096 * 3 + 1, 5);
    check_config("", "4096", (size_t)5 << 20, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_staged_small_chunks),
        cmocka_unit_test(test_staged_threads),
        cmocka_unit_test(test_plain_and_auto),
    };
    return tdcl_test_exit(cmocka_run_group_tests_name("xfer", tests, NULL, NULL));
}
