/* libFuzzer target for the option value parsers: --tile T[xU], tile-map's
 * RxC and plain integers. Whatever parses is within the bounds asked for. */
#include <assert.h>

#include "fuzz_text.h"
#include "base/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_text(data, size);
    if (!s) return 0;
    static const int64_t his[] = {INT64_MAX, INT32_MAX, 4096};
    unsigned flags = size % 4;
    int64_t hi = his[size % 3], a = 0, b = 0, v = 0;
    if (tdcl_spec_pair(s, flags, hi, &a, &b) == 0) {
        assert(a >= 1 && a <= hi && b >= 1 && b <= hi);
        if (!strpbrk(s, "xX")) assert(a == b && (flags & TDCL_SPEC_SQUARE));
    }
    if (tdcl_spec_i64(s, -hi, hi, &v) == 0) assert(v >= -hi && v <= hi);
    free(s);
    return 0;
}
