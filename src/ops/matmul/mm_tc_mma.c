/* The mma.sync tensor-core kernel's plan (cl/matmul/tc.cl, compute
 * capability 8.0 on): its tile and pipeline, its build, and its launch. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "ops/matmul/mm_prog.h"
#include "ops/matmul/mm_tc_plan.h"

/* Local memory of one pipeline stage: the A and B slabs (see
 * cl/matmul/tc.cl; swizzled, no padding). */
static size_t tc_stage_bytes(const tdcl_mm_tc *p)
{
    return sizeof(float) * ((size_t)p->bm * (size_t)p->bk + (size_t)p->bk * (size_t)p->bn);
}

static size_t tc_threads(const tdcl_mm_tc *p)
{
    return 32 * (size_t)(p->bm / p->wm) * (size_t)(p->bn / p->wn);
}

static tdcl_status check_params(const tdcl_mm_tc *p, tdcl_err *err)
{
    const tdcl_device_info *d = &p->ctx->dev;
    int ok = p->bm >= 16 && p->bm <= 256 && p->bn >= 32 && p->bn <= 256 &&
             (p->bk == 8 || p->bk == 16 || p->bk == 32) && p->wm >= 16 && p->wm % 16 == 0 &&
             (p->wn == 32 || p->wn == 64) && p->bm % p->wm == 0 && p->bn % p->wn == 0 &&
             p->stages >= 2 && p->stages <= 8;
    size_t nt = ok ? tc_threads(p) : 1;
    ok = ok && ((size_t)p->bm * p->bk) % (4 * nt) == 0 && ((size_t)p->bk * p->bn) % (4 * nt) == 0;
    if (!ok)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "tensor-core tile %dx%d, slab %d, warp tile %dx%d, %d stages: BK must be "
                         "8, 16 or 32, the warp tile 16k x 32 or 16k x 64 dividing the tile, both "
                         "slabs must split into 16-byte chunks per work-item, 2 to 8 stages",
                         p->bm, p->bn, p->bk, p->wm, p->wn, p->stages);
    size_t local = (size_t)p->stages * tc_stage_bytes(p);
    if (nt > d->max_wg || nt > d->max_item_sizes[0] || local > d->local_mem)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "tensor-core tile %dx%d, slab %d, %d stages needs %zu work-items and %zu "
                         "bytes of local memory; device '%s' allows %zu and %llu",
                         p->bm, p->bn, p->bk, p->stages, nt, local, d->device_name, d->max_wg,
                         (unsigned long long)d->local_mem);
    return TDCL_OK;
}

/* Built-in tile: 128x128 work-group tiles when there are at least 3/4 as
 * many of them as compute units, else 64x64 of four 32x32 warp tiles; K
 * slabs of 16, as many pipeline stages as the device's local memory holds,
 * up to 6. Measured on an H200: tf32 is fastest with four 64x64 warp
 * tiles (3 stages in 48 KiB), 3xtf32, which needs twice the fragment
 * registers, with eight 64x32; 128x128 tiles win from about one tile per
 * compute unit and lose well below it (docs/internals/tensor-cores.md). */
static void choose_tile(tdcl_mm_tc *p)
{
    int64_t tiles = ((p->M + 127) / 128) * ((p->N + 127) / 128);
    int64_t cu = p->ctx->dev.compute_units ? p->ctx->dev.compute_units : 1;
    int three = p->prec == TDCL_MM_3XTF32;
    int big = 4 * tiles >= 3 * cu;
    p->bm = p->lab.bm ? p->lab.bm : (big ? 128 : 64);
    p->bn = p->lab.bn ? p->lab.bn : (big ? 128 : 64);
    p->bk = p->lab.bk ? p->lab.bk : 16;
    p->wm = p->lab.wm ? p->lab.wm : (big ? 64 : 32);
    p->wn = p->lab.wn ? p->lab.wn : (big && !three ? 64 : 32);
    size_t fit = p->ctx->dev.local_mem / tc_stage_bytes(p);
    p->stages = tdcl_mm_lab_or(p->lab.stages, fit > 6 ? 6 : (int)fit);
}

static tdcl_status tc_build(tdcl_mm_tc *p, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    double most = (double)p->M * p->K + (double)p->K * p->N + (double)p->M * p->N;
    char opts[512];
    snprintf(opts, sizeof opts,
             "-DPREC=%d -DBM=%d -DBN=%d -DBK=%d -DWM=%d -DWN=%d -DSTAGES=%d -DVEC_ALIGNED=%d "
             "-DIDX=%s%s",
             p->prec == TDCL_MM_3XTF32 ? 3 : 1, p->bm, p->bn, p->bk, p->wm, p->wn, p->stages,
             p->K % 4 == 0 && p->N % 4 == 0, most < (double)INT_MAX ? "int" : "long",
             p->lab.emulate ? " -DTC_EMULATE=1" : "");
    /* Tuning aid: extra -D options (GROUP_M, RND, PIPE, CP_CA, CP_ADDR and
     * the timing aids; a STAGES there is the one passed above too), and with -cl-nv-verbose among
     * them the build log (registers, spills) at -v (set TILEDCL_CACHE=0 to see it). */
    const char *extra = p->lab.build;
    if (*extra) {
        size_t used = strlen(opts);
        snprintf(opts + used, sizeof opts - used, " %s", extra);
    }
    TDCL_TRY(tdcl_mm_prog_build(p->ctx, TDCL_MM_PROG_TC, opts, &p->prog, err));
    TDCL_TRY(tdcl_ctx_kernel(p->prog, "matmul_tc", &p->k, err));
    if (strstr(extra, "-cl-nv-verbose")) tdcl_mm_tc_log_build(p);
    size_t lim = 0;
    TDCL_CL_TRY(err,
                clGetKernelWorkGroupInfo(p->k, p->ctx->dev.device, CL_KERNEL_WORK_GROUP_SIZE,
                                         sizeof lim, &lim, NULL),
                "clGetKernelWorkGroupInfo");
    if (lim < tc_threads(p))
        st = tdcl_fail(err, TDCL_ELIMIT,
                       "the tensor-core kernel needs %zu work-items per group but device '%s' "
                       "runs it with at most %zu (registers)",
                       tc_threads(p), p->ctx->dev.device_name, lim);
out:
    return st;
}

tdcl_status tdcl_mm_mma_setup(tdcl_mm_tc *p, const tdcl_matrix *a, const tdcl_matrix *b,
                              tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    choose_tile(p);
    TDCL_TRY(check_params(p, err));
    TDCL_TRY(tc_build(p, err));
    double t0 = tdcl_now_ms();
    TDCL_TRY(tdcl_mm_tc_upload(p, &p->a, a, (size_t)(p->M * p->K), CL_MEM_READ_ONLY, err));
    TDCL_TRY(tdcl_mm_tc_upload(p, &p->b, b, (size_t)(p->K * p->N), CL_MEM_READ_ONLY, err));
    TDCL_TRY(tdcl_mm_tc_upload(p, &p->c, NULL, (size_t)(p->M * p->N), CL_MEM_WRITE_ONLY, err));
    p->ctx->t.upload_ms += tdcl_now_ms() - t0;
    snprintf(p->desc, sizeof p->desc,
             "kernel=tc precision=%s bm=%d bn=%d bk=%d wm=%d wn=%d stages=%d%s",
             tdcl_mm_precision_name(p->prec), p->bm, p->bn, p->bk, p->wm, p->wn, p->stages,
             p->lab.emulate ? " (emulated)" : "");
out:
    return st;
}

tdcl_status tdcl_mm_mma_execute(tdcl_mm_tc *p, double *kernel_ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_event ev = NULL;
    cl_command_queue q = p->ctx->queue;
    cl_int dims[3] = {(cl_int)p->M, (cl_int)p->N, (cl_int)p->K};
    cl_mem bufs[3] = {p->a, p->b, p->c};
    for (cl_uint i = 0; i < 6; i++)
        TDCL_CL_TRY(err,
                    i < 3 ? clSetKernelArg(p->k, i, sizeof(cl_int), &dims[i])
                          : clSetKernelArg(p->k, i, sizeof(cl_mem), &bufs[i - 3]),
                    "clSetKernelArg");
    size_t l[2] = {tc_threads(p), 1};
    size_t g[2] = {(size_t)((p->N + p->bn - 1) / p->bn) * l[0],
                   (size_t)((p->M + p->bm - 1) / p->bm)};
    TDCL_CL_TRY(err, clEnqueueNDRangeKernel(q, p->k, 2, NULL, g, l, 0, NULL, &ev),
                "clEnqueueNDRangeKernel");
    TDCL_CL_TRY(err, clWaitForEvents(1, &ev), "clWaitForEvents");
    double ms = tdcl_event_ms(ev);
    p->ctx->t.kernel_ms += ms;
    if (kernel_ms) *kernel_ms = ms;
out:
    if (ev) clReleaseEvent(ev);
    return st;
}
