/* libFuzzer target for image input: Netpbm headers and rasters (PBM, PGM,
 * PPM, PAM; plain and raw), PNG through libpng, JPEG through libjpeg,
 * TIFF through libtiff (strips and tiles) and BMP, all read through the
 * band stream. Any bytes give an image whose sample buffer
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
        assert(maxval <= 65535 && (maxval >= 1 || m.dtype == TDCL_F32)); /* 0: float TIFF */
        tdcl_matrix_free(&m);
    }
    if (tdcl_image_read_mem("fuzz.img", data, size, &m, NULL, NULL) == TDCL_OK)
        tdcl_matrix_free(&m);
    return 0;
}
