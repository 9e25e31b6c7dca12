/* Value syntax shared by the commands' options: integers in a range and
 * "AxB" size pairs (--tile, tile-map's RxC). Pure functions over strings, in
 * the core so that they can be fuzzed and tested without argv. */
#ifndef TDCL_SPEC_H
#define TDCL_SPEC_H

#include <stdint.h>

enum {
    TDCL_SPEC_SQUARE = 1,  /* "A" alone means A x A */
    TDCL_SPEC_UPPER_X = 2, /* 'X' separates as well as 'x' */
};

/* Parses the whole of s as a decimal integer in [lo, hi] into *out (left
 * alone on failure). Returns 0 on success, -1 otherwise. */
int tdcl_spec_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);

/* Parses "AxB" (and "A" with TDCL_SPEC_SQUARE) with 1 <= A, B <= hi into *a
 * and *b; flags is a mask of TDCL_SPEC_*. Returns 0 on success, -1
 * otherwise (then *a and *b may have changed). */
int tdcl_spec_pair(const char *s, unsigned flags, int64_t hi, int64_t *a, int64_t *b);

#endif
