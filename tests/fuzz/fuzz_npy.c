/* libFuzzer target for the .npy reader: header dictionary, versions, dtype,
 * shape and data size checks. Any input gives a matrix or an error. */
#include <stddef.h>
#include <stdint.h>

#include "io/matsrc.h"
#include "io/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tdcl_src s;
    tdcl_src_open_mem(&s, "fuzz.npy", data, size);
    tdcl_matrix m;
    tdcl_err e;
    if (tdcl_npy_read(&s, (size_t)1 << 24, &m, &e) == TDCL_OK) tdcl_matrix_free(&m);
    tdcl_src_close(&s);
    return 0;
}
