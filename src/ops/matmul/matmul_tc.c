/* The tensor-core matmul path: detection (platform, compute capability,
 * probe build), precision names and resolution, and the plan's life cycle:
 * the wgmma kernel (mm_tc_wg.c; compute capability 9.x, where it builds,
 * passes its probe and has enough tiles), else the mma.sync kernel
 * (mm_tc_mma.c). tdcl_mm_plan_create (matmul.c) hands tf32 and 3xtf32
 * products here. */
#include "ops/matmul/mm_prog.h"
#include "ops/matmul/matmul_tc.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/clock.h"
#include "ops/matmul/mm_tc_plan.h"
#include "runtime/xfer.h"

/* ---- detection ----------------------------------------------------------- */

/* The probe's answer in the context: 0 not run yet, 1 the compiler builds
 * it, -1 not. */
#define TC_PROBE "mm.tc"

/* Builds the probe kernel: NVIDIA's compiler accepts the PTX or not. */
static int probe(tdcl_ctx *ctx)
{
    cl_program prog = NULL;
    cl_kernel k = NULL;
    tdcl_err e = {0};
    int ok = tdcl_mm_prog_build(ctx, TDCL_MM_PROG_TC, "-DPREC=1", &prog, &e) == TDCL_OK &&
             tdcl_ctx_kernel(prog, "matmul_tc_probe", &k, &e) == TDCL_OK;
    if (!ok) tdcl_log(TDCL_LOG_VERBOSE, "matmul: tensor-core probe failed: %s", e.msg);
    if (k) clReleaseKernel(k);
    if (prog) clReleaseProgram(prog);
    return ok;
}

int tdcl_mm_tc_available(tdcl_ctx *ctx, char *why, size_t n)
{
    const tdcl_device_info *d = &ctx->dev;
    char buf[128];
    if (!why) why = buf, n = sizeof buf;
    why[0] = '\0';
    if (!tdcl_mm_nvidia(d)) {
        snprintf(why, n, "not an NVIDIA platform ('%s')", d->platform_name);
        return 0;
    }
    if (d->nv_cc_major < 8) {
        snprintf(why, n, "compute capability %d.%d, tensor-core tf32 needs 8.0 or later",
                 d->nv_cc_major, d->nv_cc_minor);
        return 0;
    }
    int probed = tdcl_ctx_memo_get(ctx, TC_PROBE);
    if (probed == 0) tdcl_ctx_memo_set(ctx, TC_PROBE, probed = probe(ctx) ? 1 : -1);
    if (probed < 0) {
        snprintf(why, n, "its OpenCL compiler does not build the mma.sync probe kernel");
        return 0;
    }
    return 1;
}

/* The path, or its emulation asked for by o->lab (which needs no tensor
 * cores: plain OpenCL C stands in for the PTX). */
static int tc_usable(tdcl_ctx *ctx, const tdcl_mm_opts *o, char *why, size_t n)
{
    if (o->lab && o->lab->emulate) return 1;
    return tdcl_mm_tc_available(ctx, why, n);
}

tdcl_status tdcl_mm_precision_resolve(tdcl_ctx *ctx, const tdcl_mm_opts *o, tdcl_mm_precision *out,
                                      tdcl_err *err)
{
    tdcl_mm_precision p = o ? o->precision : TDCL_MM_FP32;
    *out = TDCL_MM_FP32;
    if (p == TDCL_MM_FP32) return TDCL_OK;
    int plain = o->type == TDCL_F32 && o->kernel == TDCL_MM_AUTO && o->tile == 0;
    if (p == TDCL_MM_PREC_AUTO) {
        if (plain && tc_usable(ctx, o, NULL, 0)) *out = TDCL_MM_3XTF32;
        tdcl_log(TDCL_LOG_VERBOSE, "matmul: precision auto: %s", tdcl_mm_precision_name(*out));
        return TDCL_OK;
    }
    if (o->type != TDCL_F32)
        return tdcl_fail(err, TDCL_EINVAL, "precision '%s' computes float32 products, not %s",
                         tdcl_mm_precision_name(p), tdcl_dtype_name(o->type));
    if (o->kernel != TDCL_MM_AUTO || o->tile)
        return tdcl_fail(err, TDCL_EINVAL,
                         "precision '%s' runs its own tensor-core kernel; it cannot be combined "
                         "with a forced kernel or tile",
                         tdcl_mm_precision_name(p));
    char why[128];
    if (!tc_usable(ctx, o, why, sizeof why))
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "precision '%s' needs NVIDIA tensor cores (compute capability 8.0 or "
                         "later); device '%s' has none: %s",
                         tdcl_mm_precision_name(p), ctx->dev.device_name, why);
    *out = p;
    return TDCL_OK;
}

/* ---- plan ------------------------------------------------------------------ */

static tdcl_status check_sizes(const tdcl_mm_tc *p, tdcl_err *err)
{
    const tdcl_device_info *d = &p->ctx->dev;
    double most = (double)p->M * p->K;
    if ((double)p->K * p->N > most) most = (double)p->K * p->N;
    if ((double)p->M * p->N > most) most = (double)p->M * p->N;
    if (p->M > INT_MAX / 2 || p->N > INT_MAX / 2 || p->K > INT_MAX / 2 ||
        most * sizeof(float) > (double)d->max_alloc)
        return tdcl_fail_param(
            err, TDCL_ELIMIT, TDCL_PARAM_PRECISION,
            "a %" PRId64 "x%" PRId64 " * %" PRId64 "x%" PRId64
            " product needs buffers of %.0f bytes; the tensor-core path does not "
            "split into panels and device '%s' allows %llu (use precision fp32)",
            p->M, p->K, p->K, p->N, most * sizeof(float), d->device_name,
            (unsigned long long)d->max_alloc);
    return TDCL_OK;
}

static tdcl_status tc_setup(tdcl_mm_tc *p, const tdcl_matrix *a, const tdcl_matrix *b,
                            tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    TDCL_TRY(check_sizes(p, err));
    if (tdcl_mm_wg_wanted(p)) {
        tdcl_err we = {0};
        st = tdcl_mm_wg_setup(p, a, b, &we);
        if (st == TDCL_OK) goto logged;
        if (p->lab.wgmma == 1) {
            if (err) *err = we;
            goto out;
        }
        tdcl_log(TDCL_LOG_VERBOSE, "matmul: wgmma path not used (%s); mma.sync kernel instead",
                 we.msg);
        tdcl_mm_tc_release(p);
        st = TDCL_OK;
    }
    TDCL_TRY(tdcl_mm_mma_setup(p, a, b, err));
logged:
    tdcl_log(TDCL_LOG_VERBOSE,
             "matmul: %" PRId64 "x%" PRId64 " * %" PRId64 "x%" PRId64 " on %s: %s", p->M, p->K,
             p->K, p->N, p->ctx->dev.device_name, p->desc);
out:
    return st;
}

tdcl_status tdcl_mm_tc_create(tdcl_ctx *ctx, const tdcl_mm_opts *o, tdcl_mm_precision prec,
                              const tdcl_matrix *a, const tdcl_matrix *b, tdcl_mm_tc **out,
                              tdcl_err *err)
{
    *out = NULL;
    if (prec != TDCL_MM_TF32 && prec != TDCL_MM_3XTF32)
        return tdcl_fail(err, TDCL_EINVAL, "the tensor-core path computes tf32 or 3xtf32, not %s",
                         tdcl_mm_precision_name(prec));
    tdcl_mm_tc *p = calloc(1, sizeof *p);
    if (!p) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    p->ctx = ctx;
    p->prec = prec;
    p->M = a->rows;
    p->K = a->cols;
    p->N = b->cols;
    p->poison = o->poison;
    if (o->lab)
        p->lab = *o->lab;
    else
        tdcl_mm_lab_init(&p->lab);
    tdcl_status st = tc_setup(p, a, b, err);
    if (st) {
        tdcl_mm_tc_destroy(p);
        return st;
    }
    *out = p;
    return TDCL_OK;
}

void tdcl_mm_tc_destroy(tdcl_mm_tc *p)
{
    if (!p) return;
    tdcl_mm_tc_release(p);
    free(p);
}

const char *tdcl_mm_tc_describe(const tdcl_mm_tc *p)
{
    return p ? p->desc : "";
}

void tdcl_mm_tc_get_info(const tdcl_mm_tc *p, tdcl_mm_plan_info *out)
{
    out->precision = p->prec;
    out->tensor_cores = p->wgmma ? 2 : 1;
    out->tile_rows = p->bm;
    out->tile_cols = p->bn;
}

tdcl_status tdcl_mm_tc_execute(tdcl_mm_tc *p, double *kernel_ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_command_queue q = p->ctx->queue;
    if (p->poison) {
        const uint32_t pat = 0x7fc0dead; /* a quiet NaN with a payload */
        TDCL_CL_TRY(err,
                    clEnqueueFillBuffer(q, p->c, &pat, sizeof pat, 0,
                                        (size_t)(p->M * p->N) * sizeof(float), 0, NULL, NULL),
                    "clEnqueueFillBuffer");
    }
    st = p->wgmma ? tdcl_mm_wg_execute(p, kernel_ms, err) : tdcl_mm_mma_execute(p, kernel_ms, err);
out:
    return st;
}

tdcl_status tdcl_mm_tc_result_into(tdcl_mm_tc *p, void *dst, tdcl_err *err)
{
    double t0 = tdcl_now_ms();
    tdcl_status st =
        tdcl_xfer_read(p->ctx, p->c, 0, dst, (size_t)(p->M * p->N) * sizeof(float), err);
    if (st == TDCL_OK) p->ctx->t.download_ms += tdcl_now_ms() - t0;
    return st;
}

tdcl_status tdcl_mm_tc_result(tdcl_mm_tc *p, tdcl_matrix *c, tdcl_err *err)
{
    tdcl_status st = tdcl_matrix_alloc(c, p->M, p->N, 1, TDCL_F32, err);
    if (st == TDCL_OK) st = tdcl_mm_tc_result_into(p, c->data, err);
    if (st) tdcl_matrix_free(c);
    return st;
}
