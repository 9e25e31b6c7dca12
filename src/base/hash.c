/* FNV-1a: small, fast enough for keys, and stable across builds. */
#include "base/hash.h"

uint64_t tdcl_hash64(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    if (h == 0) h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}
