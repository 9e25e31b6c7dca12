/* The build step of matmul's programs: the prelude, then the family. */
#include "ops/matmul/mm_prog.h"

static const char *const files[TDCL_MM_PROG_COUNT] = {
    [TDCL_MM_PROG_GEMM] = "matmul/gemm.cl",
    [TDCL_MM_PROG_TC] = "matmul/tc.cl",
    [TDCL_MM_PROG_WG] = "matmul/wg.cl",
};

const char *tdcl_mm_prog_file(tdcl_mm_prog prog)
{
    return (unsigned)prog < TDCL_MM_PROG_COUNT ? files[prog] : NULL;
}

tdcl_status tdcl_mm_prog_build(tdcl_ctx *ctx, tdcl_mm_prog prog, const char *options,
                               cl_program *out, tdcl_err *err)
{
    const char *file = tdcl_mm_prog_file(prog);
    *out = NULL;
    if (!file) return tdcl_fail(err, TDCL_EINVAL, "no matmul program %d", (int)prog);
    const char *const names[2] = {"matmul/prelude.cl", file};
    return tdcl_ctx_program_files(ctx, names, 2, options, out, err);
}
