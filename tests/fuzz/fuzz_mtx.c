/* libFuzzer target for the Matrix Market reader (plain and gzip): any input
 * must give a matrix or an error, never a crash, a leak or a read out of
 * bounds. Each input is read twice: whole, on one thread (the fast line
 * parser takes the usual lines), and in small chunks on two or three
 * threads (short parts go to the general parser, entries to several bands);
 * both must give the same status, message and bits. (Not the same message
 * for gzip input: a corrupt stream is found wherever its check fails,
 * which depends on how much was inflated before the text went wrong.) The
 * size limit keeps a header's claimed dense size from exhausting memory. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "matsrc.h"
#include "mtx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static tdcl_status read_with(const uint8_t *data, size_t size, int threads, size_t chunk,
                             tdcl_matrix *m, tdcl_err *e)
{
    tdcl_src s;
    tdcl_src_open_mem(&s, "fuzz.mtx", data, size);
    tdcl_mtx_read_opts o = {.max_bytes = (size_t)1 << 24, .threads = threads, .chunk = chunk};
    memset(e, 0, sizeof *e);
    tdcl_status st = tdcl_mtx_read(&s, &o, m, e);
    tdcl_src_close(&s);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t chunks[] = {1, 7, 64};
    tdcl_matrix a, b;
    tdcl_err ea, eb;
    tdcl_status sa = read_with(data, size, 1, 0, &a, &ea);
    tdcl_status sb = read_with(data, size, 2 + (int)(size % 2), chunks[size % 3], &b, &eb);
    int gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
    if (sa != sb && !gz) __builtin_trap();
    if (sa == TDCL_OK && sb == TDCL_OK) {
        size_t bytes = tdcl_matrix_count(&a) * 8;
        if (a.rows != b.rows || a.cols != b.cols || a.dtype != b.dtype ||
            memcmp(a.data, b.data, bytes) != 0)
            __builtin_trap();
    } else if (!gz && sa != TDCL_ENOMEM && strcmp(ea.msg, eb.msg) != 0) {
        __builtin_trap();
    }
    if (sa == TDCL_OK) tdcl_matrix_free(&a);
    if (sb == TDCL_OK) tdcl_matrix_free(&b);
    return 0;
}
