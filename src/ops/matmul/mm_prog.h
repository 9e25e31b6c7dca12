/* The programs of matmul's kernels (cl/matmul/): each is the prelude and
 * one kernel family's file, built as one program; this is the one place
 * that names the files. Callers give the -D options (shape, type). */
#ifndef TDCL_MM_PROG_H
#define TDCL_MM_PROG_H

#include "runtime/clrt.h"

typedef enum tdcl_mm_prog {
    TDCL_MM_PROG_GEMM, /* mm_tiled, mm_gpu, mm_cpu and their packing (gemm.cl) */
    TDCL_MM_PROG_TC,   /* matmul_tc: mma.sync tensor cores, its probe and peak (tc.cl) */
    TDCL_MM_PROG_WG,   /* matmul_wg and wg_pack: Hopper's wgmma (wg.cl) */
    TDCL_MM_PROG_COUNT
} tdcl_mm_prog;

/* "matmul/tc.cl" for TDCL_MM_PROG_TC: the family's file, for messages;
 * NULL out of range. */
const char *tdcl_mm_prog_file(tdcl_mm_prog prog);

/* Builds (or loads from the cache) program prog with the -D options
 * given; *out is the caller's. */
tdcl_status tdcl_mm_prog_build(tdcl_ctx *ctx, tdcl_mm_prog prog, const char *options,
                               cl_program *out, tdcl_err *err);

#endif
