/* matmul's kernel names, precisions and kernel parameters (module prefix
 * tdcl_mm_): their text form ("bm=128 bn=128 tm=8 ..."), the ranges of each
 * value and whether a set fits a device. The plan (matmul.h), the parameter
 * table (mm_table.h), tune, bench and the CLI use it; it knows neither the
 * plan nor the table. */
#ifndef TDCL_MM_PARAMS_H
#define TDCL_MM_PARAMS_H

#include <stddef.h>

#include "runtime/clrt.h"
#include "base/status.h"

typedef enum tdcl_mm_kernel {
    TDCL_MM_AUTO = 0, /* by device type and size (see tdcl_mm_plan_create) */
    TDCL_MM_TILED,    /* local-memory T x T tile, any device, any type */
    TDCL_MM_CPU,      /* packed register blocks, no local memory: CPUs */
    TDCL_MM_GPU,      /* 8x8 register blocks in a 128x128 local tile: GPUs */
} tdcl_mm_kernel;

/* The parameters of the CPU and GPU kernel shapes (cl/matmul/gemm.cl), each a
 * -D option of the build; 0 means "choose": a tuned or built-in value for
 * the device (tune.h), else the default. */
typedef struct tdcl_mm_params {
    /* CPU: an MR-row by NV-vector block of VW lanes, K in passes of KC */
    int mr, nv, vw, kc;
    /* GPU: a BM x BN work-group tile over K slabs of BK; a TM x TN block per
     * work-item; teams of WX x WY items (32: a warp); NBUF local buffers
     * (1 or 2); ALOAD 1 or 2 (1 = A's slab read along k, 2 = along m);
     * ATRANS 1 (A read as is) or 2 (A transposed first); KSPLIT groups
     * along K, summed by a second kernel; PAD 1 (local rows unpadded) or
     * 2 (padded by 4 elements); FRAG 1 or 2 (register fragments of the
     * next slab row read ahead); CP 1 (slabs staged through registers) or
     * 2 (cp.async copies, NVIDIA compute capability 8.0 on, float only,
     * with NBUF 2 or 3 stages); SWZ tiles handed out in bands of SWZ tile
     * rows (1: row by row); TAIL the last, partial wave of tiles run with K
     * split TAIL ways (2..16), not split (1), or as the plan estimates (0) */
    int bm, bn, bk, tm, tn, wx, wy, nbuf, aload, atrans, ksplit, pad, frag, cp, swz, tail;
} tdcl_mm_params;

/* Arithmetic of a float32 product (the tensor-core path is
 * matmul_tc.h). */
typedef enum tdcl_mm_precision {
    TDCL_MM_FP32 = 0,  /* exact float32 multiply-adds on the CUDA cores / ALUs */
    TDCL_MM_TF32,      /* NVIDIA tensor cores, inputs rounded to TF32: ~1e-3 relative */
    TDCL_MM_3XTF32,    /* tensor cores, each input split big + small: float32-level */
    TDCL_MM_PREC_AUTO, /* 3xtf32 where the device has it, else fp32 */
} tdcl_mm_precision;

/* "fp32", "tf32", "3xtf32", "auto". */
const char *tdcl_mm_precision_name(tdcl_mm_precision p);

/* Parses a name as tdcl_mm_precision_name writes it; TDCL_EINVAL naming
 * the choices otherwise. */
tdcl_status tdcl_mm_precision_parse(const char *s, tdcl_mm_precision *p, tdcl_err *err);

/* "auto", "tiled", "cpu", "gpu". */
const char *tdcl_mm_kernel_name(tdcl_mm_kernel k);

/* Parses a kernel name as tdcl_mm_kernel_name writes it; TDCL_EINVAL
 * naming the choices otherwise. */
tdcl_status tdcl_mm_kernel_parse(const char *s, tdcl_mm_kernel *k, tdcl_err *err);

/* Fills *p from text "bm=128 bn=128 tm=8 ..." (keys as in tdcl_mm_params,
 * separated by spaces or commas; keys not given stay as they were).
 * TDCL_EINVAL naming the bad key or value. */
tdcl_status tdcl_mm_params_parse(const char *s, tdcl_mm_params *p, tdcl_err *err);

/* Writes the non-zero parameters of one kernel shape (TDCL_MM_CPU: mr nv
 * vw kc; TDCL_MM_GPU: bm .. ksplit) as "key=value" separated by spaces;
 * returns buf. */
char *tdcl_mm_params_format(const tdcl_mm_params *p, tdcl_mm_kernel k, char *buf, size_t n);

struct tdcl_mm_lab;

/* TDCL_OK when the parameters of kernel k (TDCL_MM_CPU or TDCL_MM_GPU)
 * are consistent and fit the device for element size esz (work-group,
 * local memory); else TDCL_ELIMIT saying why. Unset (0) values must have
 * been filled in. lab (matmul_lab.h; NULL in the product): with
 * lab->emulate, cp=2 is accepted on any device. */
tdcl_status tdcl_mm_params_check(const tdcl_device_info *d, tdcl_mm_kernel k,
                                 const tdcl_mm_params *p, size_t esz, const struct tdcl_mm_lab *lab,
                                 tdcl_err *err);

/* 1 on NVIDIA's own OpenCL (tdcl_device_info.nv_options). */
int tdcl_mm_nvidia(const tdcl_device_info *d);

/* 1 where d has the gpu kernel's cp.async slab copies (cp=2): an NVIDIA
 * device of compute capability 8.0 or later. Elsewhere they run only
 * emulated (tdcl_mm_lab.emulate). */
int tdcl_mm_cp_async_ok(const tdcl_device_info *d);

/* Local memory bytes of the tiled kernel's two T x T tiles. */
static inline size_t tdcl_mm_tiled_local(int ts, size_t esz)
{
    return ((size_t)ts * ts + (size_t)ts * (ts + 1)) * esz;
}

/* Local memory bytes of the gpu kernel's slab buffers. */
static inline size_t tdcl_mm_gpu_local(const tdcl_mm_params *p, size_t esz)
{
    size_t pad = p->pad == 1 ? 0 : 4;
    return (size_t)p->nbuf * (size_t)p->bk * ((size_t)p->bm + pad + (size_t)p->bn + pad) * esz;
}

/* Work-items per group of the gpu kernel. */
static inline int tdcl_mm_gpu_items(const tdcl_mm_params *p)
{
    return (p->bm / p->tm) * (p->bn / p->tn);
}

/* 1 if a w x h work-group fits the device's limits. */
static inline int tdcl_mm_wg_fits(const tdcl_device_info *d, size_t w, size_t h)
{
    return w * h <= d->max_wg && w <= d->max_item_sizes[0] && h <= d->max_item_sizes[1];
}

#endif
