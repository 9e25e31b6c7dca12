/* The tensor-core plan's state and what its files share (internal to
 * ops/matmul; callers use matmul_tc.h): matmul_tc.c detects the path and
 * runs the plan's life cycle, choosing between the wgmma kernel
 * (mm_tc_wg.c, cl/matmul/wg.cl) and the mma.sync kernel (mm_tc_mma.c,
 * cl/matmul/tc.cl). */
#ifndef TDCL_MM_TC_PLAN_H
#define TDCL_MM_TC_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "ops/matmul/matmul_lab.h"
#include "ops/matmul/matmul_tc.h"

struct tdcl_mm_tc {
    tdcl_ctx *ctx;
    tdcl_mm_precision prec;
    int64_t M, K, N;
    int bm, bn, bk, wm, wn, stages;
    int wgmma; /* the wgmma path runs (cl/matmul/wg.cl) */
    /* wgmma only: slabs, tile counts, LAG, partial length, tile band */
    int nk, lag, ksub, group_m, producer;
    int64_t tiles_m, tiles_n;
    double pack_ms; /* packing time of the last run */
    int poison;
    cl_program prog;
    cl_kernel k, kpack;
    cl_mem a, b, c, ap, bp; /* ap, bp: packed A and B (wgmma) */
    char desc[160];
    tdcl_mm_lab lab; /* tdcl_mm_opts.lab, else nothing overridden */
};

/* A device buffer of elems floats, filled from m (NULL: left empty). */
tdcl_status tdcl_mm_tc_upload(tdcl_mm_tc *p, cl_mem *buf, const tdcl_matrix *m, size_t elems,
                              cl_mem_flags flags, tdcl_err *err);

/* p's program build log at verbose level. */
void tdcl_mm_tc_log_build(const tdcl_mm_tc *p);

/* Releases p's buffers, kernels and program (not p), so that the
 * mma.sync plan starts clean after a failed wgmma setup. */
void tdcl_mm_tc_release(tdcl_mm_tc *p);

/* mma.sync (mm_tc_mma.c): chooses the tile, builds, uploads a and b and
 * describes the plan. */
tdcl_status tdcl_mm_mma_setup(tdcl_mm_tc *p, const tdcl_matrix *a, const tdcl_matrix *b,
                              tdcl_err *err);

/* Runs the mma.sync product once and waits, as tdcl_mm_tc_execute. */
tdcl_status tdcl_mm_mma_execute(tdcl_mm_tc *p, double *kernel_ms, tdcl_err *err);

/* wgmma (mm_tc_wg.c): 1 where the plan should try it first. */
int tdcl_mm_wg_wanted(const tdcl_mm_tc *p);

/* Chooses, builds and (once per context and precision) probes the wgmma
 * kernels, uploads a and b and describes the plan; sets p->wgmma. On
 * failure the caller releases what was made and falls back. */
tdcl_status tdcl_mm_wg_setup(tdcl_mm_tc *p, const tdcl_matrix *a, const tdcl_matrix *b,
                             tdcl_err *err);

/* Runs the packing and the wgmma product once and waits, as
 * tdcl_mm_tc_execute. */
tdcl_status tdcl_mm_wg_execute(tdcl_mm_tc *p, double *kernel_ms, tdcl_err *err);

#endif
