/* libFuzzer target for the Matrix Market reader (plain and gzip): any input
 * must give a matrix or an error, never a crash, a leak or a read out of
 * bounds. Small chunks and two threads exercise the chunk boundaries; the
 * size limit keeps a header's claimed dense size from exhausting memory. */
#include <stddef.h>
#include <stdint.h>

#include "matsrc.h"
#include "mtx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t chunks[] = {0, 1, 7, 64};
    tdcl_src s;
    tdcl_src_open_mem(&s, "fuzz.mtx", data, size);
    tdcl_mtx_read_opts o = {
        .max_bytes = (size_t)1 << 24, .threads = 1 + (int)(size % 2), .chunk = chunks[size % 4]};
    tdcl_matrix m;
    tdcl_err e;
    if (tdcl_mtx_read(&s, &o, &m, &e) == TDCL_OK) tdcl_matrix_free(&m);
    tdcl_src_close(&s);
    return 0;
}
