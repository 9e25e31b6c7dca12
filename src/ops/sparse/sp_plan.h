/* What spgemm.c and spmm.c share: the plan's program and kernels, value
 * conversion and buffers. Private to ops/sparse. */
#ifndef TDCL_OPS_SP_PLAN_H
#define TDCL_OPS_SP_PLAN_H

#include "ops/sparse/sparse.h"

/* Columns of C per lane of spmm_csr_dense (a kernel option too). */
#ifndef SP_MM_CW
#define SP_MM_CW 4
#endif
/* Entries of A past which a row is not merged (sp_count_merge; a kernel
 * option too). */
#ifndef SP_MERGE_K
#define SP_MERGE_K 8
#endif

/* Value types of the program: f32, f64, i64 (cl/sparse/<type>.cl). */
enum { SP_F32, SP_F64, SP_I64, SP_TYPES };

struct tdcl_sparse_plan {
    tdcl_ctx *ctx;
    cl_program prog;
    cl_kernel count_local, count_dense, count_rows, count_merge;
    cl_kernel fill_local[SP_TYPES], fill_dense[SP_TYPES], fill_rows[SP_TYPES], fill_merge[SP_TYPES];
    cl_kernel spmm_cd[SP_TYPES], spmm_long[SP_TYPES], spmm_dc[SP_TYPES], spmm_rows[SP_TYPES];
    int atom64;         /* cl_khr_int64_base_atomics: lanes may share 64-bit sums */
    int cpu;            /* a CPU device: one lane a row (a barrier costs a pass over the
                           group's items there, and atomics are not needed) */
    int rows_path;      /* SpGEMM by rows with dense accumulators (CPU devices), else bins */
    size_t wg;          /* work-group size: the tunable, within every kernel's limit */
    size_t local_mb;    /* local memory a group may take, bytes */
    size_t max_wg;      /* the device's largest group, within every kernel's limit */
    size_t dense_bytes; /* global scratch of the rows path's items at once */
    size_t dense_cols;  /* SpGEMM's dense rows in chunks of at most this many columns
                           (0: as many as local memory holds) */
};

/* The program's index of a value type (float32, float64, int64). */
int tdcl_sp_type(tdcl_dtype t);

/* A device buffer of size bytes (at least 1), filled from host if
 * non-NULL. NULL with *st and err set on failure. */
cl_mem tdcl_sp_buf(tdcl_sparse_plan *p, size_t size, const void *host, tdcl_status *st,
                   tdcl_err *err);

/* m's values as an array of type t (n of them), for upload: *out points
 * at m's own array when it already is (*owned 0), else at a converted copy
 * (*owned 1, free it). A pattern matrix gives NULL: the kernels take 1. */
tdcl_status tdcl_sp_values(const void *values, int64_t n, tdcl_dtype from, int pattern,
                           tdcl_dtype t, void **out, int *owned, tdcl_err *err);

/* Enqueues k over a 2D range (gsize, lsize), waits, adds its device time
 * to *ms. */
tdcl_status tdcl_sp_launch(tdcl_sparse_plan *p, cl_kernel k, const size_t *gsize,
                           const size_t *lsize, double *ms, tdcl_err *err);

/* Reads size bytes of buf into host. */
tdcl_status tdcl_sp_read(tdcl_sparse_plan *p, cl_mem buf, size_t size, void *host, tdcl_err *err);

#endif
