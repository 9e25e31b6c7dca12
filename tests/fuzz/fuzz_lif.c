/* libFuzzer target for the lif reader (Golly's
 * Life 1.05/1.06 text): any text gives a pattern or an
 * error, never a crash, a leak or a grid over the cell limit. */
#include <assert.h>

#include "fuzz_text.h"
#include "io/life_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const int64_t max_cells = INT64_C(1) << 22;
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    tdcl_life_pattern p;
    tdcl_err e;
    if (tdcl_life_lif_parse("fuzz.lif", text, size, max_cells, &p, &e) == TDCL_OK) {
        assert(p.grid.rows >= 0 && p.grid.cols >= 0);
        assert(p.grid.rows * p.grid.cols <= max_cells);
        tdcl_life_pattern_free(&p);
    }
    /* the error record is optional: failures must not touch it */
    if (tdcl_life_lif_parse("fuzz.lif", text, size, max_cells, &p, NULL) == TDCL_OK)
        tdcl_life_pattern_free(&p);
    free(text);
    return 0;
}
