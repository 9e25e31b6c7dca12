/* The programs of Life's kernels (cl/life/), and the one step that builds
 * them. A program is named to the kernels by a macro, LIFE_PROG_<NAME>,
 * which the kernel files test with defined(): the name ties the two sides,
 * not a number. Callers give the remaining -D options (rule, shape). */
#ifndef TDCL_LIFE_PROG_H
#define TDCL_LIFE_PROG_H

#include "runtime/clrt.h"

typedef enum tdcl_life_prog {
    TDCL_LIFE_PROG_BYTES,  /* life_bytes */
    TDCL_LIFE_PROG_BITS,   /* life_bits, life_flow: tiles, bands, one group, registers */
    TDCL_LIFE_PROG_BITS1,  /* life_bits1; life_sparse1 with -DSPARSE1 */
    TDCL_LIFE_PROG_BAND,   /* life_band: a CPU's bands of rows */
    TDCL_LIFE_PROG_SPARSE, /* life_sparse_list and life_sparse */
    TDCL_LIFE_PROG_PEAK,   /* life_peak: the bench's ceiling */
    TDCL_LIFE_PROG_STREAM, /* life_stream and life_stream_last */
    TDCL_LIFE_PROG_PLANE,  /* life_plane, life_plane_clear: the tile plane */
    TDCL_LIFE_PROG_COUNT
} tdcl_life_prog;

/* "LIFE_PROG_BITS" for TDCL_LIFE_PROG_BITS; NULL out of range. */
const char *tdcl_life_prog_macro(tdcl_life_prog prog);

/* Builds (or loads from the cache) program prog with the -D options given,
 * its macro defined first. */
tdcl_status tdcl_life_prog_build(tdcl_ctx *ctx, tdcl_life_prog prog, const char *options,
                                 cl_program *out, tdcl_err *err);

#endif
