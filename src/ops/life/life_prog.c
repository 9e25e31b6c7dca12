/* The build step of Life's programs: the only place that names them to the
 * kernels. */
#include "ops/life/life_prog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const macros[TDCL_LIFE_PROG_COUNT] = {
    [TDCL_LIFE_PROG_BYTES] = "LIFE_PROG_BYTES",   [TDCL_LIFE_PROG_BITS] = "LIFE_PROG_BITS",
    [TDCL_LIFE_PROG_BITS1] = "LIFE_PROG_BITS1",   [TDCL_LIFE_PROG_BAND] = "LIFE_PROG_BAND",
    [TDCL_LIFE_PROG_SPARSE] = "LIFE_PROG_SPARSE", [TDCL_LIFE_PROG_PEAK] = "LIFE_PROG_PEAK",
    [TDCL_LIFE_PROG_STREAM] = "LIFE_PROG_STREAM", [TDCL_LIFE_PROG_PLANE] = "LIFE_PROG_PLANE",
};

/* Each program's files, the prelude first: its kernel family, and what
 * that family uses (life_sparse the tile body of life_bits; life_sparse1,
 * built with -DSPARSE1, life_bits1's). */
#define F(x) "life/" x ".cl"
static const char *const programs[TDCL_LIFE_PROG_COUNT][5] = {
    [TDCL_LIFE_PROG_BYTES] = {F("prelude"), F("bytes")},
    [TDCL_LIFE_PROG_BITS] = {F("prelude"), F("tiles")},
    [TDCL_LIFE_PROG_BITS1] = {F("prelude"), F("bits1"), F("sparse")},
    [TDCL_LIFE_PROG_BAND] = {F("prelude"), F("band")},
    [TDCL_LIFE_PROG_SPARSE] = {F("prelude"), F("tiles"), F("sparse")},
    [TDCL_LIFE_PROG_PEAK] = {F("prelude"), F("peak")},
    [TDCL_LIFE_PROG_STREAM] = {F("prelude"), F("stream")},
    [TDCL_LIFE_PROG_PLANE] = {F("prelude"), F("plane")},
};
#undef F

const char *tdcl_life_prog_macro(tdcl_life_prog prog)
{
    return (unsigned)prog < TDCL_LIFE_PROG_COUNT ? macros[prog] : NULL;
}

tdcl_status tdcl_life_prog_build(tdcl_ctx *ctx, tdcl_life_prog prog, const char *options,
                                 cl_program *out, tdcl_err *err)
{
    const char *macro = tdcl_life_prog_macro(prog);
    *out = NULL;
    if (!macro) return tdcl_fail(err, TDCL_EINVAL, "no life program %d", (int)prog);
    size_t n = strlen(options) + strlen(macro) + 8;
    char *opts = malloc(n);
    if (!opts) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    snprintf(opts, n, "-D%s=1%s%s", macro, *options ? " " : "", options);
    const char *const *files = programs[prog];
    size_t nfiles = 0;
    while (files[nfiles])
        nfiles++;
    tdcl_status st = tdcl_ctx_program_files(ctx, files, nfiles, opts, out, err);
    free(opts);
    return st;
}
