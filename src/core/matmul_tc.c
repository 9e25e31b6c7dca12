/* The tensor-core matmul path: detection (platform, compute capability,
 * probe build), precision names and resolution, and the plan that runs
 * cl/matmul_tc.cl. tdcl_mm_plan_create (matmul.c) hands tf32 and 3xtf32
 * products here. */
#include "matmul_tc.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

struct tdcl_mm_tc {
    tdcl_ctx *ctx;
    tdcl_mm_precision prec;
    int64_t M, K, N;
    int bm, bn, bk, wm, wn, stages;
    int emulate; /* TILEDCL_TC_EMULATE: plain OpenCL C stands in for the PTX */
    int wgmma;   /* -DWGMMA=1 in TILEDCL_TC_OPTIONS: the cl/matmul_wg.cl prototype */
    int64_t kp;  /* K padded to its slab (wgmma only) */
    int poison;
    cl_program prog;
    cl_kernel k;
    cl_mem a, b, c;
    char desc[160];
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

/* TILEDCL_TC_EMULATE=1: a test aid. The kernel runs on any device with
 * plain OpenCL C in place of each PTX instruction (slow: two barriers per
 * mma), so the fragment layouts, swizzles and edges are checked where
 * there is no NVIDIA GPU. */
static int emulated(void)
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
    if (emulated()) return 1;
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

/* The integer value of -DNAME=... in TILEDCL_TC_OPTIONS (a tuning aid),
 * or dflt. */
static int extra_define(const char *name, int dflt)
{
    const char *extra = getenv("TILEDCL_TC_OPTIONS");
    char pat[32];
    snprintf(pat, sizeof pat, "-D%s=", name);
    const char *at = extra ? strstr(extra, pat) : NULL;
    return at ? atoi(at + strlen(pat)) : dflt;
}

/* Built-in tile: 128x128 work-group tiles when there are at least 3/4 as
 * many of them as compute units, else 64x64 of four 32x32 warp tiles; K
 * slabs of 16, as many pipeline stages as the device's local memory holds,
 * up to 6. Measured on an H200 (docs/PERFORMANCE.md): tf32 is fastest with
 * four 64x64 warp tiles (3 stages in 48 KiB), 3xtf32, which needs twice the
 * fragment registers, with eight 64x32; at 1000x1999 (128 tiles of 128x128
 * on 132 compute units) they gave 62.8 and 39.0 TFLOP/s against 39.2 and
 * 35.5 with 64x64 tiles, at 1280^2 (100 tiles) the same, at 1024^2 (64
 * tiles) 37.7 against 55.8 for tf32. */
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
    p->stages = extra_define("STAGES", fit > 6 ? 6 : (int)fit);
}

static tdcl_status check_sizes(const tdcl_mm_tc *p, tdcl_err *err)
{
    const tdcl_device_info *d = &p->ctx->dev;
    double most = (double)p->M * p->K;
    if ((double)p->K * p->N > most) most = (double)p->K * p->N;
    if ((double)p->M * p->N > most) most = (double)p->M * p->N;
    if (p->M > INT_MAX / 2 || p->N > INT_MAX / 2 || p->K > INT_MAX / 2 ||
        most * sizeof(float) > (double)d->max_alloc)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "a %" PRId64 "x%" PRId64 " * %" PRId64 "x%" PRId64
                         " product needs buffers of %.0f bytes; the tensor-core path does not "
                         "split into panels and device '%s' allows %llu (use --precision fp32)",
                         p->M, p->K, p->K, p->N, most * sizeof(float), d->device_name,
                         (unsigned long long)d->max_alloc);
    return TDCL_OK;
}

static void log_build(const tdcl_mm_tc *p)
{
    size_t n = 0;
    char *log = NULL;
    cl_device_id dev = p->ctx->dev.device;
    if (clGetProgramBuildInfo(p->prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) == CL_SUCCESS &&
        (log = calloc(n + 1, 1)) &&
        clGetProgramBuildInfo(p->prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) == CL_SUCCESS)
        tdcl_log(TDCL_LOG_VERBOSE, "matmul: tensor-core build log: %s", log);
    free(log);
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
    const char *extra = getenv("TILEDCL_TC_OPTIONS");
    if (extra && *extra) {
        size_t used = strlen(opts);
        snprintf(opts + used, sizeof opts - used, " %s", extra);
    }
    TDCL_TRY(tdcl_ctx_program(p->ctx, "matmul_tc.cl", opts, &p->prog, err));
    TDCL_TRY(tdcl_ctx_kernel(p->prog, "matmul_tc", &p->k, err));
    if (extra && strstr(extra, "-cl-nv-verbose")) log_build(p);
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

static tdcl_status upload(tdcl_mm_tc *p, cl_mem *buf, const tdcl_matrix *m, size_t elems,
                          cl_mem_flags flags, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix conv = {0};
    const void *src = m ? m->data : NULL;
    cl_int rc;
    if (m && m->dtype != TDCL_F32) {
        TDCL_TRY(tdcl_matrix_convert(m, TDCL_F32, &conv, err));
        src = conv.data;
    }
    *buf = clCreateBuffer(p->ctx->context, flags | (src ? CL_MEM_COPY_HOST_PTR : 0),
                          elems * sizeof(float), (void *)src, &rc);
    if (rc != CL_SUCCESS) {
        *buf = NULL;
        st = tdcl_fail_cl(err, rc, "clCreateBuffer", "a tensor-core matmul buffer of %zu bytes",
                          elems * sizeof(float));
    }
out:
    tdcl_matrix_free(&conv);
    return st;
}

/* ---- wgmma prototype (cl/matmul_wg.cl) -------------------------------------
 * A tuning aid, not a default: TILEDCL_TC_OPTIONS=-DWGMMA=1 with tf32 on a
 * device of compute capability 9.0. The kernel's sm_90a instructions are
 * PTX comments; the PTX of the normal build is edited (markers removed,
 * `.target sm_90a`) and built again from that text. */

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

static tdcl_status wg_build(tdcl_mm_tc *p, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_program first = NULL;
    char *ptx = NULL, *fixed = NULL;
    size_t n = 0;
    cl_int rc, bst;
    cl_device_id dev = p->ctx->dev.device;
    char opts[512];
    const char *extra = getenv("TILEDCL_TC_OPTIONS");
    snprintf(opts, sizeof opts, "-DBK=%d -DSTAGES=%d -DLAG=%d -DNWG=%d %s", p->bk, p->stages,
             extra_define("WG_LAG", 0), p->bm / 64, extra ? extra : "");
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
                       "the wgmma prototype needs PTX for .target sm_90 from device '%s'",
                       p->ctx->dev.device_name);
        goto out;
    }
    size_t len = strlen(fixed) + 1;
    const unsigned char *bin = (const unsigned char *)fixed;
    p->prog = clCreateProgramWithBinary(p->ctx->context, 1, &dev, &len, &bin, &bst, &rc);
    if (rc == CL_SUCCESS && bst != CL_SUCCESS) rc = bst;
    TDCL_CL_TRY(err, rc, "clCreateProgramWithBinary");
    rc = clBuildProgram(p->prog, 1, &dev, getenv("TILEDCL_TC_OPTIONS"), NULL, NULL);
    if (rc != CL_SUCCESS || getenv("TILEDCL_TC_OPTIONS")) log_build(p);
    TDCL_CL_TRY(err, rc, "clBuildProgram (matmul_wg.cl as sm_90a PTX)");
    TDCL_TRY(tdcl_ctx_kernel(p->prog, "matmul_wg", &p->k, err));
out:
    if (first) clReleaseProgram(first);
    free(ptx);
    free(fixed);
    return st;
}

/* Uploads m (rows x cols, any dtype) as float32 rows x kp zero-padded, or
 * with tr its transpose, cols x kp. */
static tdcl_status wg_upload(tdcl_mm_tc *p, cl_mem *buf, const tdcl_matrix *m, int tr,
                             tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix conv = {0};
    const float *src = m->data;
    int64_t rows = tr ? m->cols : m->rows, inner = tr ? m->rows : m->cols;
    float *pad = NULL;
    cl_int rc;
    if (m->dtype != TDCL_F32) {
        TDCL_TRY(tdcl_matrix_convert(m, TDCL_F32, &conv, err));
        src = conv.data;
    }
    if (!(pad = calloc((size_t)(rows * p->kp), sizeof *pad))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
        goto out;
    }
    for (int64_t i0 = 0; i0 < rows; i0 += 32)
        for (int64_t k0 = 0; k0 < inner; k0 += 32)
            for (int64_t i = i0; i < rows && i < i0 + 32; i++)
                for (int64_t k = k0; k < inner && k < k0 + 32; k++)
                    pad[i * p->kp + k] = tr ? src[k * m->cols + i] : src[i * m->cols + k];
    *buf = clCreateBuffer(p->ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          (size_t)(rows * p->kp) * sizeof(float), pad, &rc);
    if (rc != CL_SUCCESS) {
        *buf = NULL;
        st = tdcl_fail_cl(err, rc, "clCreateBuffer", "a wgmma matmul buffer");
    }
out:
    free(pad);
    tdcl_matrix_free(&conv);
    return st;
}

static tdcl_status wg_setup(tdcl_mm_tc *p, const tdcl_matrix *a, const tdcl_matrix *b,
                            tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    if (p->prec != TDCL_MM_TF32 || p->emulate || p->ctx->dev.nv_cc_major != 9)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "the wgmma prototype (-DWGMMA=1) computes tf32 on compute capability "
                         "9.0 only; device '%s' is %d.%d",
                         p->ctx->dev.device_name, p->ctx->dev.nv_cc_major, p->ctx->dev.nv_cc_minor);
    /* tuning aids: -DWG_BK=8|16, -DWG_STAGES=N, -DWG_LAG=0|1, -DWG_NWG=2|4 */
    p->bm = extra_define("WG_NWG", 2) == 4 ? 256 : 128;
    p->bn = 128, p->wm = 64, p->wn = 128;
    p->bk = extra_define("WG_BK", 16) == 8 ? 8 : 16;
    size_t stage = (size_t)(p->bm + p->bn) * p->bk * sizeof(float);
    p->stages = extra_define("WG_STAGES", (int)(p->ctx->dev.local_mem / stage));
    if (p->stages < 2 || (size_t)p->stages * stage > p->ctx->dev.local_mem)
        return tdcl_fail(err, TDCL_ELIMIT, "wgmma prototype: %d stages of K %d do not fit",
                         p->stages, p->bk);
    p->kp = (p->K + 15) / 16 * 16;
    TDCL_TRY(wg_build(p, err));
    double t0 = tdcl_now_ms();
    TDCL_TRY(wg_upload(p, &p->a, a, 0, err));
    TDCL_TRY(wg_upload(p, &p->b, b, 1, err));
    TDCL_TRY(upload(p, &p->c, NULL, (size_t)(p->M * p->N), CL_MEM_WRITE_ONLY, err));
    p->ctx->t.upload_ms += tdcl_now_ms() - t0;
    snprintf(p->desc, sizeof p->desc,
             "kernel=tc-wgmma precision=tf32 (truncated) bm=%d bn=128 bk=%d stages=%d lag=%d",
             p->bm, p->bk, p->stages, extra_define("WG_LAG", 0));
out:
    return st;
}

static tdcl_status tc_setup(tdcl_mm_tc *p, const tdcl_mm_opts *o, const tdcl_matrix *a,
                            const tdcl_matrix *b, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    TDCL_TRY(check_sizes(p, err));
    if (extra_define("WGMMA", 0)) {
        p->wgmma = 1;
        return wg_setup(p, a, b, err);
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
    p->emulate = emulated();
    tdcl_status st = tc_setup(p, o, a, b, err);
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
    if (p->k) clReleaseKernel(p->k);
    if (p->prog) clReleaseProgram(p->prog);
    cl_mem ms[] = {p->a, p->b, p->c};
    for (int i = 0; i < 3; i++)
        if (ms[i]) clReleaseMemObject(ms[i]);
    free(p);
}

const char *tdcl_mm_tc_describe(const tdcl_mm_tc *p)
{
    return p ? p->desc : "";
}

static tdcl_status wg_execute(tdcl_mm_tc *p, double *kernel_ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_event ev = NULL;
    cl_mem bufs[3] = {p->a, p->b, p->c};
    cl_int dims[3] = {(cl_int)p->M, (cl_int)p->N, (cl_int)p->kp};
    for (cl_uint i = 0; i < 6; i++)
        TDCL_CL_TRY(err,
                    i < 3 ? clSetKernelArg(p->k, i, sizeof(cl_mem), &bufs[i])
                          : clSetKernelArg(p->k, i, sizeof(cl_int), &dims[i - 3]),
                    "clSetKernelArg");
    size_t l[2] = {(size_t)p->bm * 2, 1}; /* 128 work-items per 64 rows */
    size_t g[2] = {(size_t)((p->N + 127) / 128) * l[0], (size_t)((p->M + p->bm - 1) / p->bm)};
    TDCL_CL_TRY(err, clEnqueueNDRangeKernel(p->ctx->queue, p->k, 2, NULL, g, l, 0, NULL, &ev),
                "clEnqueueNDRangeKernel");
    TDCL_CL_TRY(err, clWaitForEvents(1, &ev), "clWaitForEvents");
    double ms = tdcl_event_ms(ev);
    p->ctx->t.kernel_ms += ms;
    if (kernel_ms) *kernel_ms = ms;
out:
    if (ev) clReleaseEvent(ev);
    return st;
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

tdcl_status tdcl_mm_tc_result(tdcl_mm_tc *p, tdcl_matrix *c, tdcl_err *err)
{
    tdcl_status st = tdcl_matrix_alloc(c, p->M, p->N, 1, TDCL_F32, err);
    if (st) return st;
    double t0 = tdcl_now_ms();
    cl_int rc = clEnqueueReadBuffer(p->ctx->queue, p->c, CL_TRUE, 0,
                                    (size_t)(p->M * p->N) * sizeof(float), c->data, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
        tdcl_matrix_free(c);
        return tdcl_fail_cl(err, rc, "clEnqueueReadBuffer", "the product");
    }
    p->ctx->t.download_ms += tdcl_now_ms() - t0;
    return TDCL_OK;
}
