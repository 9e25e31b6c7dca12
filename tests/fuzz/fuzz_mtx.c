/* libFuzzer target for the Matrix Market reader (plain and gzip): any input
 * must give a matrix or an error, never a crash, a leak or a read out of
 * bounds. Each input is read three ways that must agree: whole on one
 * thread (the fast line parser takes the usual lines); in small chunks on
 * two or three threads (short parts go to the general parser, entries to
 * several bands, chunks overlap); and gzip-compressed here first, so that
 * it streams through the other, chunk-after-chunk path. The first two must
 * give the same status, message and bits; the stream the same status and
 * bits (its messages may differ: a claimed entry count cannot be checked
 * against the size of a stream up front). Gzip inputs are only read the
 * first two ways, without comparing messages: a corrupt stream is found
 * wherever its check fails, which depends on how much was inflated before
 * the text went wrong. The size limit keeps a header's claimed dense size
 * from exhausting memory. Whatever reads dense is also read straight into
 * CSR, whose dense copy must hold the same values (zeros of either sign
 * alike: CSR keeps no -0.0 of an array file). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/csr.h"
#include "io/matsrc.h"
#include "io/mtx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct outcome {
    tdcl_status st;
    tdcl_matrix m;
    tdcl_err e;
} outcome;

static void read_with(const uint8_t *data, size_t size, int threads, size_t chunk, outcome *o)
{
    tdcl_src s;
    tdcl_src_open_mem(&s, "fuzz.mtx", data, size);
    tdcl_mtx_read_opts opts = {.max_bytes = (size_t)1 << 24, .threads = threads, .chunk = chunk};
    memset(&o->e, 0, sizeof o->e);
    o->st = tdcl_mtx_read(&s, &opts, &o->m, &o->e);
    tdcl_src_close(&s);
}

/* data as a gzip member in a new buffer (*n bytes), or NULL. */
static unsigned char *gzip_of(const uint8_t *data, size_t size, size_t *n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
    size_t cap = deflateBound(&z, (uLong)size) + 32;
    unsigned char *out = malloc(cap);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = out ? deflate(&z, Z_FINISH) : Z_MEM_ERROR;
    *n = cap - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}

/* Traps unless a and b have the same status and, when both read, the
 * same shape and bits; with msg, the same message too. */
static void agree(const outcome *a, const outcome *b, int msg)
{
    if (a->st != b->st) __builtin_trap();
    if (a->st == TDCL_OK) {
        if (a->m.rows != b->m.rows || a->m.cols != b->m.cols || a->m.dtype != b->m.dtype ||
            memcmp(a->m.data, b->m.data, tdcl_matrix_count(&a->m) * 8) != 0)
            __builtin_trap();
    } else if (msg && a->st != TDCL_ENOMEM && strcmp(a->e.msg, b->e.msg) != 0) {
        __builtin_trap();
    }
}

/* Traps unless the CSR reading of data agrees with the dense matrix a. */
static void agree_csr(const uint8_t *data, size_t size, int threads, size_t chunk,
                      const tdcl_matrix *a)
{
    tdcl_src s;
    tdcl_csr m;
    tdcl_matrix d;
    tdcl_err e;
    tdcl_src_open_mem(&s, "fuzz.mtx", data, size);
    tdcl_mtx_read_opts opts = {.threads = threads, .chunk = chunk};
    tdcl_status st = tdcl_mtx_read_csr(&s, &opts, &m, &e);
    tdcl_src_close(&s);
    if (st == TDCL_ENOMEM) return;
    if (st || tdcl_csr_to_dense(&m, 0, &d, &e)) __builtin_trap();
    for (size_t k = 0; k < tdcl_matrix_count(a); k++) {
        double x = tdcl_matrix_get_f64(a, k), y = tdcl_matrix_get_f64(&d, k);
        /* as integers only when they are: a float past int64 would not convert */
        if (a->dtype == TDCL_I64 && tdcl_matrix_get_i64(a, k) != tdcl_matrix_get_i64(&d, k))
            __builtin_trap();
        if (memcmp(&x, &y, sizeof x) != 0 && !(x == 0 && y == 0)) __builtin_trap();
    }
    tdcl_matrix_free(&d);
    tdcl_csr_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t chunks[] = {1, 7, 64};
    int gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
    int threads = 2 + (int)(size % 2);
    outcome a, b, c = {.st = TDCL_OK};
    read_with(data, size, 1, 0, &a);
    read_with(data, size, threads, chunks[size % 3], &b);
    if (!gz)
        agree(&a, &b, 1);
    else if (a.st == TDCL_OK && b.st == TDCL_OK)
        agree(&a, &b, 0);
    size_t zn;
    unsigned char *z = gz ? NULL : gzip_of(data, size, &zn);
    int streamed = z != NULL;
    if (streamed) {
        read_with(z, zn, threads, chunks[(size + 1) % 3], &c);
        free(z);
        agree(&a, &c, 0);
    }
    if (a.st == TDCL_OK) agree_csr(data, size, threads, chunks[size % 3], &a.m);
    if (a.st == TDCL_OK) tdcl_matrix_free(&a.m);
    if (b.st == TDCL_OK) tdcl_matrix_free(&b.m);
    if (streamed && c.st == TDCL_OK) tdcl_matrix_free(&c.m);
    return 0;
}
