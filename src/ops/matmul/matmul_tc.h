/* Float32 matmul on NVIDIA tensor cores through inline PTX (cl/matmul/tc.cl):
 * detection of the path, the tf32 / 3xtf32 precisions, and the plan that
 * tdcl_mm_plan_create hands these precisions to (module prefix tdcl_mm_).
 *
 * The path exists on an NVIDIA platform whose device reports compute
 * capability 8.0 or later (cl_nv_device_attribute_query) and whose compiler
 * builds the probe kernel; the answer is cached in the context. */
#ifndef TDCL_MATMUL_TC_H
#define TDCL_MATMUL_TC_H

#include <stddef.h>

#include "runtime/clrt.h"
#include "ops/matmul/matmul.h"
#include "base/matrix.h"
#include "base/status.h"

/* 1 if ctx's device runs the tensor-core kernels, else 0 with the reason
 * ("not an NVIDIA platform", ...) in why (n bytes, may be NULL). The first
 * call on an NVIDIA device of compute capability >= 8.0 builds the probe
 * kernel; the answer is kept in the context (tdcl_ctx_memo_set). The
 * device's own path only: a plan whose o->lab asks for emulation runs
 * without it. */
int tdcl_mm_tc_available(tdcl_ctx *ctx, char *why, size_t n);

/* The precision a plan with options o computes in: fp32, tf32 or 3xtf32
 * (auto resolved: 3xtf32 for a float32 product with the automatic kernel
 * on a device with the path or with o->lab->emulate, else fp32).
 * TDCL_EUNSUPPORTED naming the device and the reason when tf32 or 3xtf32
 * are asked where the path does not exist, TDCL_EINVAL when they are
 * combined with another type than float32 or with a forced kernel or
 * tile. */
tdcl_status tdcl_mm_precision_resolve(tdcl_ctx *ctx, const tdcl_mm_opts *o, tdcl_mm_precision *out,
                                      tdcl_err *err);

typedef struct tdcl_mm_tc tdcl_mm_tc;

/* Prepares C = A*B in precision prec (TDCL_MM_TF32 or TDCL_MM_3XTF32) for
 * a (M x K) and b (K x N) of any dtype, converted to float32 and uploaded
 * now; the caller keeps a and b and owns *out (tdcl_mm_tc_destroy).
 * TDCL_ELIMIT when a buffer exceeds the device's allocation limit (this
 * path does not split into panels) or a forced tile cannot run. */
tdcl_status tdcl_mm_tc_create(tdcl_ctx *ctx, const tdcl_mm_opts *o, tdcl_mm_precision prec,
                              const tdcl_matrix *a, const tdcl_matrix *b, tdcl_mm_tc **out,
                              tdcl_err *err);

/* Runs the product once and waits; *kernel_ms (if non-NULL) gets its
 * device time, which is also added to ctx->t.kernel_ms. */
tdcl_status tdcl_mm_tc_execute(tdcl_mm_tc *p, double *kernel_ms, tdcl_err *err);

/* Downloads C into dst, M x N floats of the caller's. */
tdcl_status tdcl_mm_tc_result_into(tdcl_mm_tc *p, void *dst, tdcl_err *err);

/* Downloads C into a new float32 M x N matrix owned by the caller. */
tdcl_status tdcl_mm_tc_result(tdcl_mm_tc *p, tdcl_matrix *c, tdcl_err *err);

/* "kernel=tc precision=3xtf32 bm=128 bn=128 bk=16 wm=64 wn=32"; owned by p. */
const char *tdcl_mm_tc_describe(const tdcl_mm_tc *p);

/* Fills the precision, tensor_cores and tile fields of *out (the others
 * are the caller's). */
void tdcl_mm_tc_get_info(const tdcl_mm_tc *p, tdcl_mm_plan_info *out);

/* Releases everything; accepts NULL. */
void tdcl_mm_tc_destroy(tdcl_mm_tc *p);

#endif
