/* The wgmma tensor-core kernel's plan (cl/matmul/wg.cl). Hopper's warpgroup instructions, on
 * compute capability 9.x: a packing kernel lays A and B out in slabs, the product kernel moves each
 * slab with one bulk copy completing on an mbarrier and multiplies with wgmma. Tried first there;
 * any failure (build, binary load, probe) falls back to the mma.sync kernel with a line at verbose
 * level.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/clock.h"
#include "ops/matmul/mm_prog.h"
#include "ops/matmul/mm_ptx.h"
#include "ops/matmul/mm_tc_plan.h"

static int wg_threads(const tdcl_mm_tc *p)
{
    return 128 * (p->bm / 64) + 32 * p->producer;
}

/* B slabs per stage: 2 for 3xtf32 (big and small), else 1 */
static int wg_bparts(const tdcl_mm_tc *p)
{
    return p->prec == TDCL_MM_3XTF32 ? 2 : 1;
}

static size_t wg_stage_bytes(const tdcl_mm_tc *p)
{
    return sizeof(float) * (size_t)p->bk * ((size_t)p->bm + (size_t)wg_bparts(p) * p->bn);
}

/* Local memory besides the stages (mbarriers, with room to spare). */
static size_t wg_extra_bytes(const tdcl_mm_tc *p)
{
    (void)p;
    return 256;
}

static tdcl_status wg_build(tdcl_mm_tc *p, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_program first = NULL;
    cl_device_id dev = p->ctx->dev.device;
    char opts[640];
    const char *extra = p->lab.build;
    snprintf(opts, sizeof opts,
             "-DPREC=%d -DNWG=%d -DBN=%d -DBK=%d -DSTAGES=%d -DLAG=%d -DKSUB=%d -DGROUP_M=%d "
             "-DPRODUCER=%d %s",
             p->prec == TDCL_MM_3XTF32 ? 3 : 1, p->bm / 64, p->bn, p->bk, p->stages, p->lag,
             p->ksub, p->group_m, p->producer, extra);
    TDCL_TRY(tdcl_mm_prog_build(p->ctx, TDCL_MM_PROG_WG, opts, &first, err));
    st = tdcl_mm_ptx_build_sm90a(p->ctx, first, tdcl_mm_prog_file(TDCL_MM_PROG_WG), extra, &p->prog,
                                 err);
    if (p->prog && (st != TDCL_OK || strstr(extra, "-cl-nv-verbose"))) tdcl_mm_tc_log_build(p);
    if (st) goto out;
    TDCL_TRY(tdcl_ctx_kernel(p->prog, "matmul_wg", &p->k, err));
    TDCL_TRY(tdcl_ctx_kernel(p->prog, "wg_pack", &p->kpack, err));
    size_t lim = 0;
    TDCL_CL_TRY(
        err, clGetKernelWorkGroupInfo(p->k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof lim, &lim, NULL),
        "clGetKernelWorkGroupInfo");
    if (lim < (size_t)wg_threads(p) && !p->lab.wg_nolimit)
        st = tdcl_fail(err, TDCL_ELIMIT,
                       "the wgmma kernel needs %d work-items per group, device '%s' allows %zu",
                       wg_threads(p), p->ctx->dev.device_name, lim);
out:
    if (first) clReleaseProgram(first);
    return st;
}

/* Bytes of packed A (which 0) or B (1). */
static size_t wg_pack_bytes(const tdcl_mm_tc *p, int which)
{
    size_t split = which ? (size_t)wg_bparts(p) : 1;
    size_t rows = which ? (size_t)p->tiles_n * p->bn : (size_t)p->tiles_m * p->bm;
    return sizeof(float) * rows * (size_t)p->nk * (size_t)p->bk * split;
}

static tdcl_status wg_buffer(tdcl_mm_tc *p, cl_mem *buf, size_t bytes, tdcl_err *err)
{
    cl_int rc;
    *buf = clCreateBuffer(p->ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &rc);
    if (rc == CL_SUCCESS) return TDCL_OK;
    *buf = NULL;
    return tdcl_fail_cl(err, rc, "clCreateBuffer", "a wgmma matmul buffer of %zu bytes", bytes);
}

/* Enqueues the two packing kernels and the product; *ms gets the device
 * time from the start of the first to the end of the last (packing
 * included), *pack_ms that of the packing alone. */
static tdcl_status wg_run(tdcl_mm_tc *p, double *ms, double *pack_ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_event ev[3] = {NULL, NULL, NULL};
    cl_command_queue q = p->ctx->queue;
    const int three = p->prec == TDCL_MM_3XTF32;
    /* wg_pack(src, dst, rows, inner, ld, trans, R, nk, frag, kind): kind 0
     * raw, 1 rounded to tf32, 2 big and small */
    struct {
        cl_mem src, dst;
        cl_int rows, inner, ld, trans, r, nk, frag, kind;
    } pk[2] = {
        {p->a, p->ap, (cl_int)p->M, (cl_int)p->K, (cl_int)p->K, 0, p->bm, p->nk, three, !three},
        {p->b, p->bp, (cl_int)p->N, (cl_int)p->K, (cl_int)p->N, 1, p->bn, p->nk, 0, three ? 2 : 1},
    };
    int64_t tiles[2] = {p->tiles_m, p->tiles_n};
    for (int i = 0; i < 2; i++) {
        TDCL_CL_TRY(err, clSetKernelArg(p->kpack, 0, sizeof(cl_mem), &pk[i].src), "clSetKernelArg");
        TDCL_CL_TRY(err, clSetKernelArg(p->kpack, 1, sizeof(cl_mem), &pk[i].dst), "clSetKernelArg");
        cl_int ints[8] = {pk[i].rows, pk[i].inner, pk[i].ld,   pk[i].trans,
                          pk[i].r,    pk[i].nk,    pk[i].frag, pk[i].kind};
        for (cl_uint j = 0; j < 8; j++)
            TDCL_CL_TRY(err, clSetKernelArg(p->kpack, 2 + j, sizeof(cl_int), &ints[j]),
                        "clSetKernelArg");
        size_t g = (size_t)tiles[i] * (size_t)p->nk * (size_t)pk[i].r * (size_t)p->bk / 4 *
                   (size_t)(pk[i].kind == 2 ? 2 : 1);
        TDCL_CL_TRY(err, clEnqueueNDRangeKernel(q, p->kpack, 1, NULL, &g, NULL, 0, NULL, &ev[i]),
                    "clEnqueueNDRangeKernel (wg_pack)");
    }
    cl_mem bufs[3] = {p->ap, p->bp, p->c};
    cl_int ints[5] = {(cl_int)p->M, (cl_int)p->N, p->nk, (cl_int)p->tiles_m, (cl_int)p->tiles_n};
    for (cl_uint i = 0; i < 3; i++)
        TDCL_CL_TRY(err, clSetKernelArg(p->k, i, sizeof(cl_mem), &bufs[i]), "clSetKernelArg");
    for (cl_uint i = 0; i < 5; i++)
        TDCL_CL_TRY(err, clSetKernelArg(p->k, 3 + i, sizeof(cl_int), &ints[i]), "clSetKernelArg");
    size_t l = (size_t)wg_threads(p), g = (size_t)(p->tiles_m * p->tiles_n) * l;
    TDCL_CL_TRY(err, clEnqueueNDRangeKernel(q, p->k, 1, NULL, &g, &l, 0, NULL, &ev[2]),
                "clEnqueueNDRangeKernel (matmul_wg)");
    TDCL_CL_TRY(err, clWaitForEvents(1, &ev[2]), "clWaitForEvents");
    cl_ulong t0 = 0, t1 = 0, tp = 0;
    TDCL_CL_TRY(err,
                clGetEventProfilingInfo(ev[0], CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL),
                "clGetEventProfilingInfo");
    TDCL_CL_TRY(err, clGetEventProfilingInfo(ev[1], CL_PROFILING_COMMAND_END, sizeof tp, &tp, NULL),
                "clGetEventProfilingInfo");
    TDCL_CL_TRY(err, clGetEventProfilingInfo(ev[2], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL),
                "clGetEventProfilingInfo");
    *ms = t1 > t0 ? (double)(t1 - t0) / 1e6 : 0;
    *pack_ms = tp > t0 ? (double)(tp - t0) / 1e6 : 0;
out:
    for (int i = 0; i < 3; i++)
        if (ev[i]) clReleaseEvent(ev[i]);
    return st;
}

static int64_t small_int(uint64_t *x)
{
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int64_t)(*x >> 61) - 3; /* -3..4 */
}

/* The probe: the plan's kernels on a 130 x 37 * 37 x 140 product of small
 * integers (exact in tf32 and in float), every element compared; M, N and K
 * cross the tile and slab edges. TDCL_EUNSUPPORTED when one differs. */
static tdcl_status wg_probe(tdcl_mm_tc *p, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_mm_tc q = *p;
    enum { M = 130, K = 37, N = 140 };
    float *a = malloc(sizeof(float) * (M * K + K * N + M * N)), *b, *c;
    uint64_t x = 12345;
    int bad = 0;
    if (!a) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    b = a + M * K, c = b + K * N;
    q.a = q.b = q.c = q.ap = q.bp = NULL;
    q.M = M, q.K = K, q.N = N;
    q.nk = (K + q.bk - 1) / q.bk;
    q.tiles_m = (M + q.bm - 1) / q.bm, q.tiles_n = (N + q.bn - 1) / q.bn;
    for (int i = 0; i < M * K + K * N; i++)
        a[i] = (float)small_int(&x);
    tdcl_matrix ma = {.rows = M, .cols = K, .channels = 1, .dtype = TDCL_F32, .data = a};
    tdcl_matrix mb = {.rows = K, .cols = N, .channels = 1, .dtype = TDCL_F32, .data = b};
    TDCL_TRY(tdcl_mm_tc_upload(&q, &q.a, &ma, M * K, CL_MEM_READ_ONLY, err));
    TDCL_TRY(tdcl_mm_tc_upload(&q, &q.b, &mb, K * N, CL_MEM_READ_ONLY, err));
    TDCL_TRY(tdcl_mm_tc_upload(&q, &q.c, NULL, M * N, CL_MEM_WRITE_ONLY, err));
    TDCL_TRY(wg_buffer(&q, &q.ap, wg_pack_bytes(&q, 0), err));
    TDCL_TRY(wg_buffer(&q, &q.bp, wg_pack_bytes(&q, 1), err));
    double ms, pms;
    TDCL_TRY(wg_run(&q, &ms, &pms, err));
    TDCL_CL_TRY(
        err,
        clEnqueueReadBuffer(q.ctx->queue, q.c, CL_TRUE, 0, sizeof(float) * M * N, c, 0, NULL, NULL),
        "clEnqueueReadBuffer");
    for (int i = 0; i < M && !bad; i++)
        for (int j = 0; j < N; j++) {
            float r = 0;
            for (int k = 0; k < K; k++)
                r += a[i * K + k] * b[k * N + j];
            if (c[i * N + j] != r) {
                bad = 1;
                st = tdcl_fail(err, TDCL_EUNSUPPORTED, "wgmma probe: C[%d][%d] = %g, expected %g",
                               i, j, c[i * N + j], r);
                break;
            }
        }
out:;
    cl_mem bufs[5] = {q.a, q.b, q.c, q.ap, q.bp};
    for (int i = 0; i < 5; i++)
        if (bufs[i]) clReleaseMemObject(bufs[i]);
    free(a);
    return st;
}

/* The wgmma work-group tile: BM = 64 * NWG rows (NWG consumer warpgroups)
 * by BN columns. Built in (H200, docs/internals/tensor-cores.md): one
 * warpgroup, 64 x 256 for tf32 (work-item 0 as producer: 128 work-items of
 * 154 registers, three work-groups an SM) and 64 x 128 for 3xtf32 (whose
 * partial accumulator doubles the registers; a producer warp: 160 of 158,
 * two an SM). Several small work-groups per SM keep more slabs in flight
 * than one big one can in the 48 KiB a work-group gets. Tuning aids
 * wg_nwg and wg_bn in the plan's overrides (matmul_lab.h). */
static void wg_tile(const tdcl_mm_tc *p, int *bm, int *bn)
{
    *bm = 64 * tdcl_mm_lab_or(p->lab.wg_nwg, 1);
    *bn = tdcl_mm_lab_or(p->lab.wg_bn, p->prec == TDCL_MM_3XTF32 ? 128 : 256);
}

/* The rest of the plan: slab K 8, one wgmma group left running while the
 * next is issued (LAG 1: faster than waiting for each group),
 * 3xtf32's partial added every 4, 8 or 16 k-steps (KSUB), tiles in bands of
 * 16 rows (GROUP_M; 32 for 3xtf32), as many stages as the local memory
 * holds; overridden by wg_bk, wg_lag, wg_ksub, wg_group_m, wg_producer and
 * wg_stages (matmul_lab.h). */
static tdcl_status wg_choose(tdcl_mm_tc *p, tdcl_err *err)
{
    wg_tile(p, &p->bm, &p->bn);
    const int nwg = p->bm / 64;
    p->bk = tdcl_mm_lab_or(p->lab.wg_bk, 8);
    p->lag = tdcl_mm_lab_or(p->lab.wg_lag, 1);
    /* the partial is truncated by the tensor cores at every add: 4 k-steps
     * keep the error of short products within twice fp32's (the unit test's
     * bound; 8 gave 4.6e-7 against fp32's 1.5e-7 at K = 67), 8 are faster
     * and still 3x below fp32's error from K = 4096 (5.1e-7 against 1.6e-6
     * at 8192^3), 16 from K = 8192 (9.2e-7, 1.8e-6 with 32). Each wait for
     * the partial drains the warpgroup's wgmma, which costs a few percent
     * (docs/internals/tensor-cores.md has the speeds). */
    p->ksub = tdcl_mm_lab_or(p->lab.wg_ksub, p->K >= 8192 ? 16 : p->K >= 4096 ? 8 : 4);
    /* Bands of 32 tile rows for 3xtf32 (2048 rows of A), 16 for tf32 (1024),
     * let the work-groups in flight share more of B in L2: fewer bytes from
     * memory, and less power, which is what bounds both once the GPU has
     * been busy for ~50 ms (docs/internals/tensor-cores.md has the
     * medians against bands of 4, 8 and 32). */
    p->group_m = tdcl_mm_lab_or(p->lab.wg_group_m, p->prec == TDCL_MM_3XTF32 ? 32 : 16);
    p->producer = tdcl_mm_lab_or(p->lab.wg_producer, p->prec == TDCL_MM_3XTF32);
    size_t fit = (p->ctx->dev.local_mem - wg_extra_bytes(p)) / wg_stage_bytes(p);
    p->stages = tdcl_mm_lab_or(p->lab.wg_stages, fit > 8 ? 8 : (int)fit);
    int ok = nwg >= 1 && nwg <= 4 && p->bm == 64 * nwg &&
             (p->bn == 64 || p->bn == 128 || p->bn == 256) &&
             (p->bk == 8 || p->bk == 16 || p->bk == 32) && (p->lag == 0 || p->lag == 1) &&
             (p->producer == 0 || p->producer == 1) && p->ksub >= p->bk / 8 &&
             p->ksub % (p->bk / 8) == 0 && p->group_m >= 1 && p->stages >= 2 &&
             p->stages > p->lag + 1 &&
             (size_t)p->stages * wg_stage_bytes(p) + wg_extra_bytes(p) <= p->ctx->dev.local_mem;
    if (!ok)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "wgmma tile %dx%d, slab %d, %d stages, lag %d, partial every %d k-steps "
                         "does not fit or is not supported",
                         p->bm, p->bn, p->bk, p->stages, p->lag, p->ksub);
    p->nk = (int)((p->K + p->bk - 1) / p->bk);
    p->tiles_m = (p->M + p->bm - 1) / p->bm;
    p->tiles_n = (p->N + p->bn - 1) / p->bn;
    return TDCL_OK;
}

/* The context's memo of the path for p's precision (tdcl_ctx_memo_get): 0
 * not tried yet, 1 builds and passes its probe, -1 not. */
static const char *wg_probe_key(const tdcl_mm_tc *p)
{
    return p->prec == TDCL_MM_3XTF32 ? "mm.wgmma.3xtf32" : "mm.wgmma.tf32";
}

tdcl_status tdcl_mm_wg_setup(tdcl_mm_tc *p, const tdcl_matrix *a, const tdcl_matrix *b,
                             tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const char *key = wg_probe_key(p);
    TDCL_TRY(wg_choose(p, err));
    st = wg_build(p, err);
    if (st == TDCL_OK && tdcl_ctx_memo_get(p->ctx, key) == 0) st = wg_probe(p, err);
    /* a build or probe failure stands for this context: later plans go
     * straight to mma.sync */
    tdcl_ctx_memo_set(p->ctx, key, st == TDCL_OK ? 1 : -1);
    if (st) goto out;
    double t0 = tdcl_now_ms();
    TDCL_TRY(tdcl_mm_tc_upload(p, &p->a, a, (size_t)(p->M * p->K), CL_MEM_READ_ONLY, err));
    TDCL_TRY(tdcl_mm_tc_upload(p, &p->b, b, (size_t)(p->K * p->N), CL_MEM_READ_ONLY, err));
    TDCL_TRY(tdcl_mm_tc_upload(p, &p->c, NULL, (size_t)(p->M * p->N), CL_MEM_WRITE_ONLY, err));
    TDCL_TRY(wg_buffer(p, &p->ap, wg_pack_bytes(p, 0), err));
    TDCL_TRY(wg_buffer(p, &p->bp, wg_pack_bytes(p, 1), err));
    p->ctx->t.upload_ms += tdcl_now_ms() - t0;
    p->wgmma = 1;
    snprintf(p->desc, sizeof p->desc,
             "kernel=tc-wgmma precision=%s bm=%d bn=%d bk=%d stages=%d lag=%d producer=%d "
             "group_m=%d",
             tdcl_mm_precision_name(p->prec), p->bm, p->bn, p->bk, p->stages, p->lag, p->producer,
             p->group_m);
    if (p->prec == TDCL_MM_3XTF32) {
        size_t used = strlen(p->desc);
        snprintf(p->desc + used, sizeof p->desc - used, " ksub=%d", p->ksub);
    }
out:
    return st;
}

/* Whether to try the wgmma path: compute capability 9.x, not emulated, no
 * mma.sync tile forced, not turned off (wgmma 0 in the overrides),
 * not known to fail on this context. */
int tdcl_mm_wg_wanted(const tdcl_mm_tc *p)
{
    int want = p->lab.wgmma, bm, bn;
    if (want == 0 || p->lab.emulate || p->ctx->dev.nv_cc_major != 9) return 0;
    if (p->M < 1 || p->N < 1 || p->K < 1) return 0;
    if (p->lab.bm || p->lab.bn || p->lab.bk || p->lab.wm || p->lab.wn) return 0;
    if (want == 1) return 1;
    if (tdcl_ctx_memo_get(p->ctx, wg_probe_key(p)) < 0) return 0;
    /* Too few tiles leave SMs idle and the packing pass costs more than
     * it saves: below 3/4 (tf32) or 3/2 (3xtf32) as many tiles as compute
     * units the mma.sync kernel is faster (measured on an H200 across tile
     * counts: docs/internals/tensor-cores.md). */
    wg_tile(p, &bm, &bn);
    int64_t tiles = ((p->M + bm - 1) / bm) * ((p->N + bn - 1) / bn);
    int64_t cu = p->ctx->dev.compute_units ? p->ctx->dev.compute_units : 1;
    return p->prec == TDCL_MM_3XTF32 ? 2 * tiles >= 3 * cu : 4 * tiles >= 3 * cu;
}

tdcl_status tdcl_mm_wg_execute(tdcl_mm_tc *p, double *kernel_ms, tdcl_err *err)
{
    double ms = 0;
    tdcl_status st = wg_run(p, &ms, &p->pack_ms, err);
    if (st) return st;
    tdcl_log(TDCL_LOG_VERBOSE, "matmul: wgmma %.3f ms, packing %.3f ms of it", ms, p->pack_ms);
    p->ctx->t.kernel_ms += ms;
    if (kernel_ms) *kernel_ms = ms;
    return TDCL_OK;
}
