/* Overrides of the tensor-core plans' built-in choices, for tests and
 * benchmark programs (module prefix tdcl_mm_lab_): forced tiles, the wgmma
 * path forced on or off, its shape, build options passed through to the
 * kernels, and plain OpenCL C in place of the PTX instructions. The
 * product passes none (tdcl_mm_opts.lab is NULL); the library reads no
 * environment variable for them. docs/internals/tensor-cores.md describes
 * each. */
#ifndef TDCL_MATMUL_LAB_H
#define TDCL_MATMUL_LAB_H

#include "base/status.h"

typedef struct tdcl_mm_lab {
    /* mma.sync: work-group tile bm x bn, K slab bk, warp tile wm x wn;
     * 0 = built-in. A forced tile also keeps the plan off wgmma. */
    int bm, bn, bk, wm, wn;
    int stages;     /* mma.sync pipeline stages (-DSTAGES); -1 = built-in */
    int wgmma;      /* -DWGMMA: -1 as the plan chooses, 0 never, 1 always (its failure
                       is then the plan's) */
    int wg_nolimit; /* -DWG_NOLIMIT: 1 runs wgmma where the driver reports fewer
                       work-items per group than it needs */
    /* wgmma: consumer warpgroups, tile columns, slab, lag, partial length,
     * tile band, producer warp, stages (-DWG_NWG .. -DWG_STAGES); -1 =
     * built-in */
    int wg_nwg, wg_bn, wg_bk, wg_lag, wg_ksub, wg_group_m, wg_producer, wg_stages;
    /* The text parsed, appended to both kernels' build options: their own
     * switches (GROUP_M, RND, PIPE, CP_CA, CP_ADDR, the timing aids) and
     * -cl-nv-verbose (the build log at verbose level). */
    char build[256];
    /* 1: plain OpenCL C stands in for each PTX instruction (mma,
     * cp.async), so the tensor-core kernel and the gpu kernel's cp.async
     * copies (cp=2) run, slowly, on any device: their layouts, pipelines
     * and edges are checked where the instructions do not exist. 0: the
     * instructions, where the device has them. */
    int emulate;
} tdcl_mm_lab;

/* Sets *lab to override nothing. */
void tdcl_mm_lab_init(tdcl_mm_lab *lab);

/* Sets *lab from text such as "-DWGMMA=0 -DWG_BN=128 -DSTAGES=4
 * -cl-nv-verbose" (the tests' and benchmarks' TILEDCL_TC_OPTIONS); NULL or
 * "" overrides nothing. TDCL_EINVAL when the text is longer than
 * lab->build holds. */
tdcl_status tdcl_mm_lab_parse(const char *text, tdcl_mm_lab *lab, tdcl_err *err);

/* v where it overrides (v >= 0), else dflt. */
static inline int tdcl_mm_lab_or(int v, int dflt)
{
    return v >= 0 ? v : dflt;
}

#endif
