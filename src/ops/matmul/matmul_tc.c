/* The tensor-core matmul path: detection (platform, compute capability,
 * probe build), precision names and resolution, and the plan that runs
 * cl/matmul_wg.cl (wgmma, compute capability 9.x, where it builds, passes
 * its probe and has enough tiles) or else cl/matmul_tc.cl (mma.sync).
 * tdcl_mm_plan_create (matmul.c) hands tf32 and 3xtf32 products here. */
#include "ops/matmul/matmul_tc.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/clock.h"
#include "runtime/xfer.h"

struct tdcl_mm_tc {
    tdcl_ctx *ctx;
    tdcl_mm_precision prec;
    int64_t M, K, N;
    int bm, bn, bk, wm, wn, stages;
    int emulate; /* TILEDCL_TC_EMULATE: plain OpenCL C stands in for the PTX */
    int wgmma;   /* the wgmma path runs (cl/matmul_wg.cl) */
    /* wgmma only: slabs, tile counts, LAG, partial length, tile band */
    int nk, lag, ksub, group_m, producer;
    int64_t tiles_m, tiles_n;
    double pack_ms; /* packing time of the last run */
    int poison;
    cl_program prog;
    cl_kernel k, kpack;
    cl_mem a, b, c, ap, bp; /* ap, bp: packed A and B (wgmma) */
    char desc[160];
    char extra[256]; /* tdcl_mm_opts.tc_extra: the benchmark programs' tuning aids */
};

static const char *const prec_names[] = {"fp32", "tf32", "3xtf32", "auto"};

const char *tdcl_mm_precision_name(tdcl_mm_precision p)
{
    return (unsigned)p < 4 ? prec_names[p] : "unknown";
}

tdcl_status tdcl_mm_precision_parse(const char *s, tdcl_mm_precision *p, tdcl_err *err)
{
    for (int i = 0; i < 4; i++)
        if (s && strcmp(s, prec_names[i]) == 0) {
            *p = (tdcl_mm_precision)i;
            return TDCL_OK;
        }
    return tdcl_fail(err, TDCL_EINVAL, "unknown precision '%s' (choose fp32, tf32, 3xtf32 or auto)",
                     s ? s : "");
}

/* ---- detection ----------------------------------------------------------- */

static int is_nvidia(const tdcl_device_info *d)
{
    return strstr(d->platform_vendor, "NVIDIA") || strstr(d->platform_name, "NVIDIA");
}

/* cp.async came with compute capability 8.0, as the tensor-core tf32 did. */
int tdcl_mm_cp_async_ok(const tdcl_device_info *d)
{
    return tdcl_mm_tc_emulated() || (is_nvidia(d) && d->nv_cc_major >= 8);
}

/* Builds the probe kernel: NVIDIA's compiler accepts the PTX or not. */
static int probe(tdcl_ctx *ctx)
{
    cl_program prog = NULL;
    cl_kernel k = NULL;
    tdcl_err e = {0};
    int ok = tdcl_ctx_program(ctx, "matmul_tc.cl", "-DPREC=1", &prog, &e) == TDCL_OK &&
             tdcl_ctx_kernel(prog, "matmul_tc_probe", &k, &e) == TDCL_OK;
    if (!ok) tdcl_log(TDCL_LOG_VERBOSE, "matmul: tensor-core probe failed: %s", e.msg);
    if (k) clReleaseKernel(k);
    if (prog) clReleaseProgram(prog);
    return ok;
}

/* Emulated, the mma kernel is slow: two barriers per mma. */
int tdcl_mm_tc_emulated(void)
{
    const char *e = getenv("TILEDCL_TC_EMULATE");
    return e && strcmp(e, "1") == 0;
}

int tdcl_mm_tc_available(tdcl_ctx *ctx, char *why, size_t n)
{
    const tdcl_device_info *d = &ctx->dev;
    char buf[128];
    if (!why) why = buf, n = sizeof buf;
    why[0] = '\0';
    if (tdcl_mm_tc_emulated()) return 1;
    if (!is_nvidia(d)) {
        snprintf(why, n, "not an NVIDIA platform ('%s')", d->platform_name);
        return 0;
    }
    if (d->nv_cc_major < 8) {
        snprintf(why, n, "compute capability %d.%d, tensor-core tf32 needs 8.0 or later",
                 d->nv_cc_major, d->nv_cc_minor);
        return 0;
    }
    if (ctx->mm_tc_probe == 0) ctx->mm_tc_probe = probe(ctx) ? 1 : -1;
    if (ctx->mm_tc_probe < 0) {
        snprintf(why, n, "its OpenCL compiler does not build the mma.sync probe kernel");
        return 0;
    }
    return 1;
}

tdcl_status tdcl_mm_precision_resolve(tdcl_ctx *ctx, const tdcl_mm_opts *o, tdcl_mm_precision *out,
                                      tdcl_err *err)
{
    tdcl_mm_precision p = o ? o->precision : TDCL_MM_FP32;
    *out = TDCL_MM_FP32;
    if (p == TDCL_MM_FP32) return TDCL_OK;
    int plain = o->type == TDCL_F32 && o->kernel == TDCL_MM_AUTO && o->tile == 0;
    if (p == TDCL_MM_PREC_AUTO) {
        if (plain && tdcl_mm_tc_available(ctx, NULL, 0)) *out = TDCL_MM_3XTF32;
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
    if (!tdcl_mm_tc_available(ctx, why, sizeof why))
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "precision '%s' needs NVIDIA tensor cores (compute capability 8.0 or "
                         "later); device '%s' has none: %s",
                         tdcl_mm_precision_name(p), ctx->dev.device_name, why);
    *out = p;
    return TDCL_OK;
}

/* ---- plan ------------------------------------------------------------------ */

/* Local memory of one pipeline stage: the A and B slabs (see
 * cl/matmul_tc.cl; swizzled, no padding). */
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

/* The integer value of -DNAME=... in the plan's extra options (a tuning
 * aid of the benchmark programs, tdcl_mm_opts.tc_extra), or dflt. */
static int extra_define(const tdcl_mm_tc *p, const char *name, int dflt)
{
    char pat[32];
    snprintf(pat, sizeof pat, "-D%s=", name);
    const char *at = strstr(p->extra, pat);
    return at ? atoi(at + strlen(pat)) : dflt;
}

/* Built-in tile: 128x128 work-group tiles when there are at least 3/4 as
 * many of them as compute units, else 64x64 of four 32x32 warp tiles; K
 * slabs of 16, as many pipeline stages as the device's local memory holds,
 * up to 6. Measured on an H200: tf32 is fastest with four 64x64 warp
 * tiles (3 stages in 48 KiB), 3xtf32, which needs twice the fragment
 * registers, with eight 64x32; 128x128 tiles win from about one tile per
 * compute unit and lose well below it (docs/internals/tensor-cores.md). */
static void choose_tile(tdcl_mm_tc *p, const tdcl_mm_opts *o)
{
    int64_t tiles = ((p->M + 127) / 128) * ((p->N + 127) / 128);
    int64_t cu = p->ctx->dev.compute_units ? p->ctx->dev.compute_units : 1;
    int three = p->prec == TDCL_MM_3XTF32;
    int big = 4 * tiles >= 3 * cu;
    p->bm = o->tc_bm ? o->tc_bm : (big ? 128 : 64);
    p->bn = o->tc_bn ? o->tc_bn : (big ? 128 : 64);
    p->bk = o->tc_bk ? o->tc_bk : 16;
    p->wm = o->tc_wm ? o->tc_wm : (big ? 64 : 32);
    p->wn = o->tc_wn ? o->tc_wn : (big && !three ? 64 : 32);
    size_t fit = p->ctx->dev.local_mem / tc_stage_bytes(p);
    p->stages = extra_define(p, "STAGES", fit > 6 ? 6 : (int)fit);
}

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

static void log_build(const tdcl_mm_tc *p)
{
    tdcl_log_build_log(p->prog, p->ctx->dev.device, TDCL_LOG_VERBOSE, "matmul: tensor-core");
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
             p->emulate ? " -DTC_EMULATE=1" : "");
    /* Tuning aid: extra -D options (GROUP_M, RND, PIPE, CP_CA, CP_ADDR and
     * the timing aids; a STAGES there is the one passed above too), and with -cl-nv-verbose among
     * them the build log (registers, spills) at -v (set TILEDCL_CACHE=0 to see it). */
    const char *extra = p->extra;
    if (*extra) {
        size_t used = strlen(opts);
        snprintf(opts + used, sizeof opts - used, " %s", extra);
    }
    TDCL_TRY(tdcl_ctx_program(p->ctx, "matmul_tc.cl", opts, &p->prog, err));
    TDCL_TRY(tdcl_ctx_kernel(p->prog, "matmul_tc", &p->k, err));
    if (strstr(extra, "-cl-nv-verbose")) log_build(p);
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

/* A device buffer of elems floats, filled from m (NULL: left empty)
 * through the pinned staging ring: CL_MEM_COPY_HOST_PTR from pageable
 * memory was slow enough to take most of a large product's time on an
 * H200 (docs/internals/tensor-cores.md). */
static tdcl_status upload(tdcl_mm_tc *p, cl_mem *buf, const tdcl_matrix *m, size_t elems,
                          cl_mem_flags flags, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix conv = {0};
    const void *src = m ? m->data : NULL;
    cl_int rc;
    if (m && m->dtype != TDCL_F32) {
        /* a float64 past float32's range would become infinite: refused */
        TDCL_TRY(tdcl_matrix_narrow(m, TDCL_F32, 0, &conv, err));
        src = conv.data;
    }
    *buf = clCreateBuffer(p->ctx->context, flags, elems * sizeof(float), NULL, &rc);
    if (rc != CL_SUCCESS) {
        *buf = NULL;
        st = tdcl_fail_cl(err, rc, "clCreateBuffer", "a tensor-core matmul buffer of %zu bytes",
                          elems * sizeof(float));
        goto out;
    }
    if (src) st = tdcl_xfer_upload(p->ctx, *buf, 0, src, elems * sizeof(float), err);
out:
    tdcl_matrix_free(&conv);
    return st;
}

/* ---- wgmma path (cl/matmul_wg.cl) -----------------------------------------
 * Hopper's warpgroup instructions, on compute capability 9.x: a packing
 * kernel lays A and B out in slabs, the product kernel moves each slab with
 * one bulk copy completing on an mbarrier and multiplies with wgmma. Tried
 * first there; any failure (build, binary load, probe) falls back to the
 * mma.sync kernel with a line at verbose level.
 *
 * wgmma exists only for `.target sm_90a`, and NVIDIA's OpenCL compiles for
 * `.target sm_90` whatever the options say. The kernel therefore writes its
 * sm_90a instructions as PTX comments ("// TDCL_SM90A ..."); wg_build
 * builds the .cl normally, takes the program "binary" (on NVIDIA's OpenCL,
 * PTX text), removes the markers, sets `.target sm_90a` and hands the text
 * back to clCreateProgramWithBinary + clBuildProgram, which run ptxas on it.
 * Not documented by NVIDIA: that the binary is PTX and that edited PTX is
 * accepted was found on driver 580.159.04 (docs/internals/tensor-cores.md);
 * a driver that stops accepting it fails the build, and the plan falls back. */

/* ptx with every "// TDCL_SM90A " removed and `.target sm_90` made
 * `.target sm_90a`; malloc'd, NULL when out of memory. */
static char *wg_uncomment(const char *ptx)
{
    static const char key[] = "// TDCL_SM90A ", tgt[] = ".target sm_90";
    char *r = malloc(strlen(ptx) + 2), *w = r;
    int done = 0;
    if (!r) return NULL;
    for (const char *s = ptx; *s;) {
        if (strncmp(s, key, sizeof key - 1) == 0) {
            s += sizeof key - 1;
        } else if (!done && strncmp(s, tgt, sizeof tgt - 1) == 0 && s[sizeof tgt - 1] != 'a') {
            memcpy(w, ".target sm_90a", 14);
            w += 14, s += sizeof tgt - 1, done = 1;
        } else {
            *w++ = *s++;
        }
    }
    *w = '\0';
    return r;
}

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
    char *ptx = NULL, *fixed = NULL;
    size_t n = 0;
    cl_int rc, bst;
    cl_device_id dev = p->ctx->dev.device;
    char opts[640];
    const char *extra = p->extra;
    snprintf(opts, sizeof opts,
             "-DPREC=%d -DNWG=%d -DBN=%d -DBK=%d -DSTAGES=%d -DLAG=%d -DKSUB=%d -DGROUP_M=%d "
             "-DPRODUCER=%d %s",
             p->prec == TDCL_MM_3XTF32 ? 3 : 1, p->bm / 64, p->bn, p->bk, p->stages, p->lag,
             p->ksub, p->group_m, p->producer, extra);
    TDCL_TRY(tdcl_ctx_program(p->ctx, "matmul_wg.cl", opts, &first, err));
    TDCL_CL_TRY(err, clGetProgramInfo(first, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL),
                "clGetProgramInfo");
    if (!(ptx = calloc(n + 1, 1))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
        goto out;
    }
    TDCL_CL_TRY(err, clGetProgramInfo(first, CL_PROGRAM_BINARIES, sizeof ptx, &ptx, NULL),
                "clGetProgramInfo");
    if (!strstr(ptx, ".target sm_90") || !(fixed = wg_uncomment(ptx))) {
        st = tdcl_fail(err, TDCL_EUNSUPPORTED,
                       "the wgmma kernel needs PTX for .target sm_90 from device '%s'",
                       p->ctx->dev.device_name);
        goto out;
    }
    size_t len = strlen(fixed) + 1;
    const unsigned char *bin = (const unsigned char *)fixed;
    p->prog = clCreateProgramWithBinary(p->ctx->context, 1, &dev, &len, &bin, &bst, &rc);
    if (rc == CL_SUCCESS && bst != CL_SUCCESS) rc = bst;
    TDCL_CL_TRY(err, rc, "clCreateProgramWithBinary (matmul_wg.cl as sm_90a PTX)");
    rc = clBuildProgram(p->prog, 1, &dev, extra, NULL, NULL);
    if (rc != CL_SUCCESS || strstr(extra, "-cl-nv-verbose")) log_build(p);
    TDCL_CL_TRY(err, rc, "clBuildProgram (matmul_wg.cl as sm_90a PTX)");
    TDCL_TRY(tdcl_ctx_kernel(p->prog, "matmul_wg", &p->k, err));
    TDCL_TRY(tdcl_ctx_kernel(p->prog, "wg_pack", &p->kpack, err));
    size_t lim = 0;
    TDCL_CL_TRY(
        err, clGetKernelWorkGroupInfo(p->k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof lim, &lim, NULL),
        "clGetKernelWorkGroupInfo");
    if (lim < (size_t)wg_threads(p) && !extra_define(p, "WG_NOLIMIT", 0))
        st = tdcl_fail(err, TDCL_ELIMIT,
                       "the wgmma kernel needs %d work-items per group, device '%s' allows %zu",
                       wg_threads(p), p->ctx->dev.device_name, lim);
out:
    if (first) clReleaseProgram(first);
    free(ptx);
    free(fixed);
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
    TDCL_TRY(upload(&q, &q.a, &ma, M * K, CL_MEM_READ_ONLY, err));
    TDCL_TRY(upload(&q, &q.b, &mb, K * N, CL_MEM_READ_ONLY, err));
    TDCL_TRY(upload(&q, &q.c, NULL, M * N, CL_MEM_WRITE_ONLY, err));
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
 * -DWG_NWG and -DWG_BN in tc_extra. */
static void wg_tile(const tdcl_mm_tc *p, int *bm, int *bn)
{
    *bm = 64 * extra_define(p, "WG_NWG", 1);
    *bn = extra_define(p, "WG_BN", p->prec == TDCL_MM_3XTF32 ? 128 : 256);
}

/* The rest of the plan: slab K 8, one wgmma group left running while the
 * next is issued (LAG 1: faster than waiting for each group),
 * 3xtf32's partial added every 4, 8 or 16 k-steps (KSUB), tiles in bands of
 * 16 rows (GROUP_M; 32 for 3xtf32), as many stages as the local memory
 * holds; with the tuning aids
 * -DWG_BK, -DWG_LAG, -DWG_KSUB, -DWG_GROUP_M, -DWG_PRODUCER, -DWG_STAGES. */
static tdcl_status wg_choose(tdcl_mm_tc *p, tdcl_err *err)
{
    wg_tile(p, &p->bm, &p->bn);
    const int nwg = p->bm / 64;
    p->bk = extra_define(p, "WG_BK", 8);
    p->lag = extra_define(p, "WG_LAG", 1);
    /* the partial is truncated by the tensor cores at every add: 4 k-steps
     * keep the error of short products within twice fp32's (the unit test's
     * bound; 8 gave 4.6e-7 against fp32's 1.5e-7 at K = 67), 8 are faster
     * and still 3x below fp32's error from K = 4096 (5.1e-7 against 1.6e-6
     * at 8192^3), 16 from K = 8192 (9.2e-7, 1.8e-6 with 32). Each wait for
     * the partial drains the warpgroup's wgmma, which costs a few percent
     * (docs/internals/tensor-cores.md has the speeds). */
    p->ksub = extra_define(p, "WG_KSUB", p->K >= 8192 ? 16 : p->K >= 4096 ? 8 : 4);
    /* Bands of 32 tile rows for 3xtf32 (2048 rows of A), 16 for tf32 (1024),
     * let the work-groups in flight share more of B in L2: fewer bytes from
     * memory, and less power, which is what bounds both once the GPU has
     * been busy for ~50 ms (docs/internals/tensor-cores.md has the
     * medians against bands of 4, 8 and 32). */
    p->group_m = extra_define(p, "WG_GROUP_M", p->prec == TDCL_MM_3XTF32 ? 32 : 16);
    p->producer = extra_define(p, "WG_PRODUCER", p->prec == TDCL_MM_3XTF32);
    size_t fit = (p->ctx->dev.local_mem - wg_extra_bytes(p)) / wg_stage_bytes(p);
    p->stages = extra_define(p, "WG_STAGES", fit > 8 ? 8 : (int)fit);
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

static tdcl_status wg_setup(tdcl_mm_tc *p, const tdcl_matrix *a, const tdcl_matrix *b,
                            tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int *probed = &p->ctx->mm_wg_probe[p->prec == TDCL_MM_3XTF32];
    TDCL_TRY(wg_choose(p, err));
    st = wg_build(p, err);
    if (st == TDCL_OK && *probed == 0) st = wg_probe(p, err);
    /* a build or probe failure stands for this context: later plans go
     * straight to mma.sync */
    *probed = st == TDCL_OK ? 1 : -1;
    if (st) goto out;
    double t0 = tdcl_now_ms();
    TDCL_TRY(upload(p, &p->a, a, (size_t)(p->M * p->K), CL_MEM_READ_ONLY, err));
    TDCL_TRY(upload(p, &p->b, b, (size_t)(p->K * p->N), CL_MEM_READ_ONLY, err));
    TDCL_TRY(upload(p, &p->c, NULL, (size_t)(p->M * p->N), CL_MEM_WRITE_ONLY, err));
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
 * mma.sync tile forced (o->tc_*), not turned off (-DWGMMA=0 in
 * tc_extra), not known to fail on this context. */
static int wg_wanted(const tdcl_mm_tc *p, const tdcl_mm_opts *o)
{
    int want = extra_define(p, "WGMMA", -1), bm, bn;
    if (want == 0 || p->emulate || p->ctx->dev.nv_cc_major != 9) return 0;
    if (p->M < 1 || p->N < 1 || p->K < 1) return 0;
    if (o->tc_bm || o->tc_bn || o->tc_bk || o->tc_wm || o->tc_wn) return 0;
    if (want == 1) return 1;
    if (p->ctx->mm_wg_probe[p->prec == TDCL_MM_3XTF32] < 0) return 0;
    /* Too few tiles leave SMs idle and the packing pass costs more than
     * it saves: below 3/4 (tf32) or 3/2 (3xtf32) as many tiles as compute
     * units the mma.sync kernel is faster (measured on an H200 across tile
     * counts: docs/internals/tensor-cores.md). */
    wg_tile(p, &bm, &bn);
    int64_t tiles = ((p->M + bm - 1) / bm) * ((p->N + bn - 1) / bn);
    int64_t cu = p->ctx->dev.compute_units ? p->ctx->dev.compute_units : 1;
    return p->prec == TDCL_MM_3XTF32 ? 2 * tiles >= 3 * cu : 4 * tiles >= 3 * cu;
}

/* Releases what a failed wg_setup left, so the mma.sync plan starts clean. */
static void wg_reset(tdcl_mm_tc *p)
{
    cl_mem ms[] = {p->a, p->b, p->c, p->ap, p->bp};
    for (int i = 0; i < 5; i++)
        if (ms[i]) clReleaseMemObject(ms[i]);
    if (p->k) clReleaseKernel(p->k);
    if (p->kpack) clReleaseKernel(p->kpack);
    if (p->prog) clReleaseProgram(p->prog);
    p->a = p->b = p->c = p->ap = p->bp = NULL;
    p->k = p->kpack = NULL;
    p->prog = NULL;
    p->wgmma = 0;
}

static tdcl_status tc_setup(tdcl_mm_tc *p, const tdcl_mm_opts *o, const tdcl_matrix *a,
                            const tdcl_matrix *b, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    TDCL_TRY(check_sizes(p, err));
    if (wg_wanted(p, o)) {
        tdcl_err we = {0};
        st = wg_setup(p, a, b, &we);
        if (st == TDCL_OK) goto logged;
        if (extra_define(p, "WGMMA", -1) == 1) {
            if (err) *err = we;
            goto out;
        }
        tdcl_log(TDCL_LOG_VERBOSE, "matmul: wgmma path not used (%s); mma.sync kernel instead",
                 we.msg);
        wg_reset(p);
        st = TDCL_OK;
    }
    choose_tile(p, o);
    TDCL_TRY(check_params(p, err));
    TDCL_TRY(tc_build(p, err));
    double t0 = tdcl_now_ms();
    TDCL_TRY(upload(p, &p->a, a, (size_t)(p->M * p->K), CL_MEM_READ_ONLY, err));
    TDCL_TRY(upload(p, &p->b, b, (size_t)(p->K * p->N), CL_MEM_READ_ONLY, err));
    TDCL_TRY(upload(p, &p->c, NULL, (size_t)(p->M * p->N), CL_MEM_WRITE_ONLY, err));
    p->ctx->t.upload_ms += tdcl_now_ms() - t0;
    snprintf(p->desc, sizeof p->desc,
             "kernel=tc precision=%s bm=%d bn=%d bk=%d wm=%d wn=%d stages=%d%s",
             tdcl_mm_precision_name(p->prec), p->bm, p->bn, p->bk, p->wm, p->wn, p->stages,
             p->emulate ? " (emulated)" : "");
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
    p->emulate = tdcl_mm_tc_emulated();
    tdcl_status st = TDCL_OK;
    if (o->tc_extra &&
        snprintf(p->extra, sizeof p->extra, "%s", o->tc_extra) >= (int)sizeof p->extra)
        st = tdcl_fail(err, TDCL_EINVAL, "extra tensor-core build options longer than %zu bytes",
                       sizeof p->extra - 1);
    if (!st) st = tc_setup(p, o, a, b, err);
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
    wg_reset(p);
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

static tdcl_status wg_execute(tdcl_mm_tc *p, double *kernel_ms, tdcl_err *err)
{
    double ms = 0;
    tdcl_status st = wg_run(p, &ms, &p->pack_ms, err);
    if (st) return st;
    tdcl_log(TDCL_LOG_VERBOSE, "matmul: wgmma %.3f ms, packing %.3f ms of it", ms, p->pack_ms);
    p->ctx->t.kernel_ms += ms;
    if (kernel_ms) *kernel_ms = ms;
    return TDCL_OK;
}

tdcl_status tdcl_mm_tc_execute(tdcl_mm_tc *p, double *kernel_ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_event ev = NULL;
    cl_command_queue q = p->ctx->queue;
    if (p->poison) {
        const uint32_t pat = 0x7fc0dead; /* a quiet NaN with a payload */
        TDCL_CL_TRY(err,
                    clEnqueueFillBuffer(q, p->c, &pat, sizeof pat, 0,
                                        (size_t)(p->M * p->N) * sizeof(float), 0, NULL, NULL),
                    "clEnqueueFillBuffer");
    }
    if (p->wgmma) return wg_execute(p, kernel_ms, err);
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
