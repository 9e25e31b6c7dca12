/* The sparse products' program: built once per plan from cl/sparse/, a
 * type file before each copy of the kernel families, and the buffers,
 * conversions and launches spgemm.c and spmm.c share. */
#include "ops/sparse/sp_plan.h"

#include "base/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Work-group size the kernels ask for, within CL_KERNEL_WORK_GROUP_SIZE. */
#ifndef SP_WG
#define SP_WG 256
#endif

#define F(x) "sparse/" x ".cl"
static const char *const files[] = {
    F("prelude"), F("f32"),  F("spgemm"), F("spmm"),   F("f64"),
    F("spgemm"),  F("spmm"), F("i64"),    F("spgemm"), F("spmm"),
};
#undef F
static const char *const sfx[SP_TYPES] = {"f32", "f64", "i64"};

int tdcl_sp_type(tdcl_dtype t)
{
    return t == TDCL_F32 ? SP_F32 : t == TDCL_F64 ? SP_F64 : SP_I64;
}

static int has_atom64(cl_device_id dev)
{
    char ext[8192] = "";
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    return strstr(ext, "cl_khr_int64_base_atomics") != NULL;
}

/* The rows path's items (a dense row of marks and sums each) run as many
 * at once as their scratch allows: SP_DENSE_BYTES on CPU devices; on a
 * GPU, where the method is forced, a sixteenth of the device's memory, up
 * to SP_DENSE_GPU_BYTES. */
#ifndef SP_DENSE_BYTES
#define SP_DENSE_BYTES (64u << 20)
#endif
#ifndef SP_DENSE_GPU_BYTES
#define SP_DENSE_GPU_BYTES (1024u << 20)
#endif
static size_t dense_bytes(const tdcl_ctx *ctx)
{
    if (ctx->dev.type & CL_DEVICE_TYPE_CPU) return SP_DENSE_BYTES;
    cl_ulong b = ctx->dev.global_mem / 16;
    if (b > SP_DENSE_GPU_BYTES) b = SP_DENSE_GPU_BYTES;
    return b > SP_DENSE_BYTES ? (size_t)b : SP_DENSE_BYTES;
}

static tdcl_status kernel(tdcl_sparse_plan *p, const char *name, const char *suffix, cl_kernel *k,
                          tdcl_err *err)
{
    char full[64];
    snprintf(full, sizeof full, suffix ? "%s_%s" : "%s", name, suffix);
    tdcl_status st = tdcl_ctx_kernel(p->prog, full, k, err);
    if (st != TDCL_OK) return st;
    size_t wg = 0;
    clGetKernelWorkGroupInfo(*k, p->ctx->dev.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                             NULL);
    if (wg && wg < p->wg) p->wg = wg;
    if (wg && wg < p->max_wg) p->max_wg = wg;
    cl_ulong fixed = 0;
    clGetKernelWorkGroupInfo(*k, p->ctx->dev.device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof fixed, &fixed,
                             NULL);
    if (p->ctx->dev.local_mem > fixed && p->ctx->dev.local_mem - fixed < p->local_mb)
        p->local_mb = (size_t)(p->ctx->dev.local_mem - fixed);
    return TDCL_OK;
}

static tdcl_status kernels(tdcl_sparse_plan *p, tdcl_err *err)
{
    tdcl_status st;
    TDCL_TRY(kernel(p, "sp_count_local", NULL, &p->count_local, err));
    TDCL_TRY(kernel(p, "sp_count_dense", NULL, &p->count_dense, err));
    TDCL_TRY(kernel(p, "sp_count_rows", NULL, &p->count_rows, err));
    TDCL_TRY(kernel(p, "sp_count_merge", NULL, &p->count_merge, err));
    for (int t = 0; t < SP_TYPES; t++) {
        if (t == SP_F64 && !p->ctx->dev.fp64) continue;
        TDCL_TRY(kernel(p, "sp_fill_local", sfx[t], &p->fill_local[t], err));
        TDCL_TRY(kernel(p, "sp_fill_dense", sfx[t], &p->fill_dense[t], err));
        TDCL_TRY(kernel(p, "sp_fill_rows", sfx[t], &p->fill_rows[t], err));
        TDCL_TRY(kernel(p, "sp_fill_merge", sfx[t], &p->fill_merge[t], err));
        TDCL_TRY(kernel(p, "spmm_csr_dense", sfx[t], &p->spmm_cd[t], err));
        TDCL_TRY(kernel(p, "spmm_csr_dense_long", sfx[t], &p->spmm_long[t], err));
        TDCL_TRY(kernel(p, "spmm_dense_csc", sfx[t], &p->spmm_dc[t], err));
        TDCL_TRY(kernel(p, "spmm_csr_dense_rows", sfx[t], &p->spmm_rows[t], err));
    }
out:
    return st;
}

tdcl_status tdcl_sparse_plan_create(tdcl_ctx *ctx, tdcl_sparse_plan **out, tdcl_err *err)
{
    *out = NULL;
    tdcl_sparse_plan *p = calloc(1, sizeof *p);
    if (!p) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    p->ctx = ctx;
    p->atom64 = has_atom64(ctx->dev.device);
    p->cpu = (ctx->dev.type & CL_DEVICE_TYPE_CPU) != 0;
    p->rows_path = p->cpu;
    p->wg = SP_WG < ctx->dev.max_wg ? SP_WG : ctx->dev.max_wg;
    p->max_wg = ctx->dev.max_wg;
    p->local_mb = (size_t)ctx->dev.local_mem;
    p->dense_bytes = dense_bytes(ctx);
    /* TILEDCL_SPARSE_OPTS: more kernel options, for measuring tunables */
    const char *more = getenv("TILEDCL_SPARSE_OPTS");
    char opts[256];
    snprintf(opts, sizeof opts, "-DSP_MM_CW=%d -DSP_MERGE_K=%d%s%s %s", SP_MM_CW, SP_MERGE_K,
             ctx->dev.fp64 ? " -DHAS_FP64=1" : "", p->atom64 ? " -DHAS_ATOM64=1" : "",
             more ? more : "");
    tdcl_status st =
        tdcl_ctx_program_files(ctx, files, sizeof files / sizeof *files, opts, &p->prog, err);
    if (st == TDCL_OK) st = kernels(p, err);
    if (st != TDCL_OK) {
        tdcl_sparse_plan_destroy(p);
        return st;
    }
    *out = p;
    return TDCL_OK;
}

tdcl_status tdcl_sparse_supported(const tdcl_ctx *ctx, const tdcl_csr *m, tdcl_dtype t,
                                  tdcl_err *err)
{
    if (m->idx64)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "the device's sparse product takes 32-bit indices only");
    if (t == TDCL_F64 && !ctx->dev.fp64)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "device '%s' has no double precision (cl_khr_fp64); a float64 sparse "
                         "product runs on the host or in float32",
                         ctx->dev.device_name);
    return TDCL_OK;
}

void tdcl_sparse_plan_force(tdcl_sparse_plan *p, int method)
{
    p->rows_path = method == 1;
    p->cpu = method == 2 ? 0 : (p->ctx->dev.type & CL_DEVICE_TYPE_CPU) != 0;
    /* as a GPU's local memory cuts a wide product's dense rows */
    p->dense_cols = method == 2 ? 1024 : 0;
}

void tdcl_sparse_plan_destroy(tdcl_sparse_plan *p)
{
    if (!p) return;
    cl_kernel *all[] = {p->fill_local, p->fill_dense, p->fill_rows, p->fill_merge,
                        p->spmm_cd,    p->spmm_long,  p->spmm_dc,   p->spmm_rows};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        for (int t = 0; t < SP_TYPES; t++)
            if (all[i][t]) clReleaseKernel(all[i][t]);
    if (p->count_local) clReleaseKernel(p->count_local);
    if (p->count_dense) clReleaseKernel(p->count_dense);
    if (p->count_rows) clReleaseKernel(p->count_rows);
    if (p->count_merge) clReleaseKernel(p->count_merge);
    if (p->prog) clReleaseProgram(p->prog);
    free(p);
}

cl_mem tdcl_sp_buf(tdcl_sparse_plan *p, size_t size, const void *host, tdcl_status *st,
                   tdcl_err *err)
{
    cl_int rc;
    cl_mem_flags fl = CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0);
    cl_mem m = clCreateBuffer(p->ctx->context, fl, size ? size : 1, (void *)host, &rc);
    if (rc != CL_SUCCESS) {
        *st =
            tdcl_fail_cl(err, rc, "clCreateBuffer", "a sparse product's buffer of %zu bytes", size);
        return NULL;
    }
    return m;
}

static double to_f64(const void *v, tdcl_dtype t, int64_t k)
{
    switch (t) {
    case TDCL_F32:
        return ((const float *)v)[k];
    case TDCL_F64:
        return ((const double *)v)[k];
    case TDCL_I32:
        return ((const int32_t *)v)[k];
    default:
        return (double)((const int64_t *)v)[k];
    }
}

static int64_t to_i64(const void *v, tdcl_dtype t, int64_t k)
{
    if (t == TDCL_I32) return ((const int32_t *)v)[k];
    if (t == TDCL_I64) return ((const int64_t *)v)[k];
    return (int64_t)to_f64(v, t, k);
}

tdcl_status tdcl_sp_values(const void *values, int64_t n, tdcl_dtype from, int pattern,
                           tdcl_dtype t, void **out, int *owned, tdcl_err *err)
{
    *owned = 0;
    *out = pattern ? NULL : (void *)values;
    if (pattern || from == t) return TDCL_OK;
    void *v = malloc(n ? (size_t)n * tdcl_dtype_size(t) : 1);
    if (!v)
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory converting %lld values", (long long)n);
    for (int64_t k = 0; k < n; k++) {
        if (t == TDCL_F32)
            ((float *)v)[k] = (float)to_f64(values, from, k);
        else if (t == TDCL_F64)
            ((double *)v)[k] = to_f64(values, from, k);
        else
            ((int64_t *)v)[k] = to_i64(values, from, k);
    }
    *out = v;
    *owned = 1;
    return TDCL_OK;
}

tdcl_status tdcl_sp_launch(tdcl_sparse_plan *p, cl_kernel k, const size_t *gsize,
                           const size_t *lsize, double *ms, tdcl_err *err)
{
    cl_event ev = NULL;
    tdcl_status st = TDCL_OK;
    TDCL_CL_TRY(err, clEnqueueNDRangeKernel(p->ctx->queue, k, 2, NULL, gsize, lsize, 0, NULL, &ev),
                "clEnqueueNDRangeKernel");
    TDCL_CL_TRY(err, clWaitForEvents(1, &ev), "clWaitForEvents");
    double t = tdcl_event_ms(ev);
    char name[64] = "";
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
    tdcl_log(TDCL_LOG_DEBUG, "%s: %zu items in groups of %zu, %.3f ms", name, gsize[0], lsize[0],
             t);
    *ms += t;
    p->ctx->t.kernel_ms += t;
out:
    if (ev) clReleaseEvent(ev);
    return st;
}

tdcl_status tdcl_sp_read(tdcl_sparse_plan *p, cl_mem buf, size_t size, void *host, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    if (size)
        TDCL_CL_TRY(err,
                    clEnqueueReadBuffer(p->ctx->queue, buf, CL_TRUE, 0, size, host, 0, NULL, NULL),
                    "clEnqueueReadBuffer");
out:
    return st;
}
