/* Helper for the fuzz targets of text parsers: a NUL-terminated copy of the
 * fuzzer's bytes (the parsers take C strings or "NUL after the end"). */
#ifndef TDCL_FUZZ_TEXT_H
#define TDCL_FUZZ_TEXT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* malloc'd copy of data[0..size) plus a NUL; NULL when out of memory. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return NULL;
    if (size) memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
