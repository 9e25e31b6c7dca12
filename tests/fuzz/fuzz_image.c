/* libFuzzer target for image input: PBM/PGM headers and rasters (plain and
 * raw) and PNG through libpng. Any bytes give an image whose sample buffer
 * matches its shape, or an error; never a crash, a leak or an allocation
 * beyond what the file can hold. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "io/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tdcl_matrix m;
    tdcl_err e;
    int maxval = 0;
    if (tdcl_image_read_mem("fuzz.img", data, size, &m, &maxval, &e) == TDCL_OK) {
        assert(m.rows > 0 && m.cols > 0 && m.channels >= 1 && m.channels <= 4);
        assert(maxval >= 1 && maxval <= 65535);
        tdcl_matrix_free(&m);
    }
    if (tdcl_image_read_mem("fuzz.img", data, size, &m, NULL, NULL) == TDCL_OK)
        tdcl_matrix_free(&m);
    return 0;
}
