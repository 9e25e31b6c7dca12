/* Sparse products on a device: C = A*B of two CSR matrices (SpGEMM, a
 * sparse result) and of a CSR matrix and a dense block on either side
 * (SpMM, a dense result).
 *
 * A plan holds the program (one build serves float32, float64 where the
 * device has doubles, and int64) and is reused across products. Operands
 * need 32-bit indices (tdcl_csr idx64 0) and so does C; others give
 * TDCL_EUNSUPPORTED, as does float64 on a device without doubles: the
 * caller then multiplies on the host (base/csr_mul.h). Values are computed
 * in tdcl_csr_mul_dtype's type: float32 sums in float32 (as cuSPARSE),
 * int64 exactly (a product whose partial sums leave int64 is settled by
 * the host's 128-bit sums: TDCL_ERANGE naming the element only when an
 * element itself does not fit). Pattern x pattern counts paths (int64).
 * How SpGEMM works: docs/internals/sparse-products.md. */
#ifndef TDCL_OPS_SPARSE_H
#define TDCL_OPS_SPARSE_H

#include <stdint.h>

#include "base/csr.h"
#include "base/matrix.h"
#include "runtime/clrt.h"

typedef struct tdcl_sparse_plan tdcl_sparse_plan;

/* What a product did, for -v and bench. */
typedef struct tdcl_sparse_info {
    double kernel_ms;    /* device time of its kernels (profiling events) */
    int64_t terms;       /* product terms (flops / 2) */
    int64_t rows_local;  /* rows summed in local-memory tables */
    int64_t rows_dense;  /* rows summed in a dense row (by chunks of columns) */
    int64_t rows_merged; /* short rows merging sorted rows of B, an item each */
    int rows_path;       /* every row by one work-item (tdcl_sparse_plan_force) */
    int host_settled;    /* int64 partial sums left the range: the host summed */
} tdcl_sparse_info;

/* Builds (or loads from the cache) the program for ctx. *out is owned by
 * the caller: tdcl_sparse_plan_destroy. */
tdcl_status tdcl_sparse_plan_create(tdcl_ctx *ctx, tdcl_sparse_plan **out, tdcl_err *err);
void tdcl_sparse_plan_destroy(tdcl_sparse_plan *p);

/* Whether ctx's device multiplies the CSR operand m in type t: else
 * TDCL_EUNSUPPORTED saying why (64-bit indices; float64 on a device
 * without doubles, named), and the caller multiplies on the host
 * (base/csr_mul.h). Builds nothing. */
tdcl_status tdcl_sparse_supported(const tdcl_ctx *ctx, const tdcl_csr *m, tdcl_dtype t,
                                  tdcl_err *err);

/* SpGEMM's method: 1, each row by one work-item with a dense
 * accumulator (Gustavson's, the choice on CPU devices); 0, rows binned by
 * size into local-memory hash tables (the choice elsewhere), a row's
 * table shared by a team of lanes except on CPU devices; 2, binned with
 * shared tables on any device (the GPUs' kernels run on a CPU device).
 * For tests and measurements of the other on one device. */
void tdcl_sparse_plan_force(tdcl_sparse_plan *p, int method);

/* C = A*B into a new sorted CSR (c overwritten; tdcl_csr_free). A result
 * of more than max_entries entries (0: memory alone bounds it) is refused
 * after the symbolic phase with its size, before C is allocated. info (if
 * non-NULL) receives what the product did. */
tdcl_status tdcl_spgemm(tdcl_sparse_plan *p, const tdcl_csr *a, const tdcl_csr *b,
                        int64_t max_entries, tdcl_csr *c, tdcl_sparse_info *info, tdcl_err *err);

/* C = A*B where exactly one of A and B is sparse (the other a dense
 * one-channel matrix of any numeric type): a new dense C (tdcl_matrix_free)
 * of the product's type (the dense operand taken as its type: float32,
 * float64 or int64, int32 as int64). a_sparse says which is sparse. */
tdcl_status tdcl_spmm(tdcl_sparse_plan *p, const tdcl_csr *s, const tdcl_matrix *d, int a_sparse,
                      tdcl_matrix *c, tdcl_sparse_info *info, tdcl_err *err);

/* The type of S*D or D*S as tdcl_spmm computes it. */
tdcl_dtype tdcl_spmm_dtype(const tdcl_csr *s, const tdcl_matrix *d);

#endif
