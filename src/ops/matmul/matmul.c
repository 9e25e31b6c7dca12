/* The matmul plan: kernel choice and parameters per device, the build of
 * cl/matmul/gemm.cl, and the plan's life cycle. Panels are mm_panels.c,
 * buffers and uploads mm_buffers.c, running and results mm_exec.c (the
 * plan's struct in mm_plan.h); the parameters' text form and checks
 * mm_params.c, the host reference and check matmul_check.c, the
 * tensor-core plans matmul_tc.c, the file job jobs/matmul_job.c. */
#include "ops/matmul/mm_prog.h"
#include "ops/matmul/mm_plan.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "ops/matmul/matmul_lab.h"
#include "ops/matmul/matmul_tc.h"
#include "ops/matmul/mm_table.h"
#include "base/clock.h"

/* ---- choice of kernel and parameters ---------------------------------- */

static tdcl_status check_tile(const tdcl_mm_plan *p, int ts, tdcl_err *err)
{
    const tdcl_device_info *d = &p->ctx->dev;
    if (ts >= 1 && ts <= 1024 && tdcl_mm_wg_fits(d, (size_t)ts, (size_t)ts) &&
        tdcl_mm_tiled_local(ts, p->esz) <= d->local_mem)
        return TDCL_OK;
    size_t best = 0;
    for (size_t t = 1; t <= 1024 && tdcl_mm_wg_fits(d, t, t) &&
                       tdcl_mm_tiled_local((int)t, p->esz) <= d->local_mem;
         t++)
        best = t;
    return tdcl_fail(err, TDCL_ELIMIT,
                     "tile %d needs a %dx%d work-group and %zu bytes of local memory; device '%s' "
                     "allows %zu work-items per group and %llu bytes (largest %s tile: %zu)",
                     ts, ts, ts, ts >= 1 ? tdcl_mm_tiled_local(ts, p->esz) : 0, d->device_name,
                     d->max_wg, (unsigned long long)d->local_mem, tdcl_dtype_name(p->type), best);
}

/* Vector lanes of one register for the type: the device's native float
 * width, capped at 256 bits (LLVM splits wider vectors on AVX-512 parts
 * that prefer 256-bit code, PoCL among them, so 8 floats is what runs). */
static int cpu_vector_lanes(const tdcl_mm_plan *p, int *nregs)
{
    cl_uint wf = 0;
    clGetDeviceInfo(p->ctx->dev.device, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, sizeof wf, &wf, NULL);
    *nregs = wf >= 16 ? 32 : 16; /* AVX-512 has 32 vector registers, AVX2 16 */
    size_t bytes = wf >= 8 ? 32 : 16;
    int lanes = (int)(bytes / p->esz);
    return lanes < 2 ? 2 : lanes;
}

/* Fills the unset (0) CPU parameters of *x with the defaults. */
static void cpu_defaults(tdcl_mm_plan *p, tdcl_mm_params *x)
{
    int nregs;
    int lanes = cpu_vector_lanes(p, &nregs);
    /* 6 rows by 4 vectors: 24 accumulators + 4 of B + 1 broadcast of A in
     * 32 registers (measured best of 4x6, 6x4, 8x3, 12x2 on Zen 4); with 16
     * registers, 6 by 2. */
    if (!x->vw) x->vw = lanes;
    if (!x->nv) x->nv = nregs >= 32 ? 4 : 2;
    if (!x->mr) x->mr = 6;
    /* A K pass keeps the KC x NR slice of B within 128 KiB (L2). */
    int kc = (int)(131072 / ((size_t)x->nv * x->vw * p->esz));
    if (!x->kc) x->kc = kc < 64 ? 64 : kc;
}

/* Fills the unset (0) GPU parameters of *x with the defaults. */
static void gpu_defaults(tdcl_mm_plan *p, tdcl_mm_params *x)
{
    const tdcl_device_info *d = &p->ctx->dev;
    /* 128x128 tiles once there is a wave of them (a group per compute
     * unit); smaller products get 64x64 tiles and four times the groups. */
    int64_t tiles = tdcl_mm_ceil_div(p->M, 128) * tdcl_mm_ceil_div(p->N, 128);
    int big =
        tiles >= (int64_t)(d->compute_units ? d->compute_units : 1) && tdcl_mm_wg_fits(d, 256, 1);
    const tdcl_mm_params given = *x;
    if (!x->bm) x->bm = big ? 128 : 64;
    if (!x->bn) x->bn = big ? 128 : 64;
    if (!x->nbuf) x->nbuf = 2;
    if (!x->aload) x->aload = 1;
    if (!x->atrans) x->atrans = 1;
    if (!x->ksplit) x->ksplit = 1;
    if (!x->pad) x->pad = 2;
    if (!x->frag) x->frag = 1;
    if (!x->cp) x->cp = 1;
    if (!x->swz) x->swz = 1;
    if (!x->bk) {
        x->bk = 16;
        if (tdcl_mm_gpu_local(x, p->esz) > d->local_mem) x->bk = 8;
    }
    /* 8-byte elements in 128x128 tiles take 33,792 bytes even so, more
     * than the 32 KiB a device may have: halve a tile that was not given */
    while (!given.bm && !given.bn && x->bm > 32 && tdcl_mm_gpu_local(x, p->esz) > d->local_mem) {
        x->bm /= 2;
        x->bn /= 2;
        tdcl_log(TDCL_LOG_VERBOSE,
                 "matmul: gpu tile %dx%d: the device's %llu bytes of local memory hold no "
                 "larger one",
                 x->bm, x->bn, (unsigned long long)d->local_mem);
    }
    if (!x->tm) x->tm = x->bm % 8 ? 4 : 8;
    if (!x->tn) x->tn = x->bn % 8 ? 4 : 8;
    if (!x->wx) x->wx = x->tn ? x->bn / x->tn : 1;
    if (!x->wy) x->wy = x->tm ? x->bm / x->tm : 1;
}

/* The automatic choice: CPU devices take the packed kernel and GPUs the
 * register-tiled one, except for products too small or thin to fill them,
 * where the plain tile's single launch wins. */
static tdcl_mm_kernel auto_kernel(const tdcl_mm_plan *p)
{
    const tdcl_device_info *d = &p->ctx->dev;
    double flops = 2.0 * (double)p->M * (double)p->N * (double)p->K;
    if ((d->type & CL_DEVICE_TYPE_CPU) && flops >= 2.0 * 64 * 64 * 64) return TDCL_MM_CPU;
    if ((d->type & CL_DEVICE_TYPE_GPU) && p->M >= 64 && p->N >= 64 && p->K >= 16)
        return TDCL_MM_GPU;
    return TDCL_MM_TILED;
}

/* Largest power-of-two tile up to 16 the device runs (0 if none). */
static int auto_tile(const tdcl_mm_plan *p)
{
    for (int t = 16; t >= 1; t /= 2)
        if (tdcl_mm_wg_fits(&p->ctx->dev, (size_t)t, (size_t)t) &&
            tdcl_mm_tiled_local(t, p->esz) <= p->ctx->dev.local_mem)
            return t;
    return 0;
}

void tdcl_mm_params_defaults(tdcl_ctx *ctx, tdcl_mm_kernel k, tdcl_dtype type, int64_t M, int64_t K,
                             int64_t N, tdcl_mm_params *x)
{
    tdcl_mm_plan p = {
        .ctx = ctx, .type = type, .esz = tdcl_dtype_size(type), .M = M, .K = K, .N = N};
    if (k == TDCL_MM_CPU) cpu_defaults(&p, x);
    if (k == TDCL_MM_GPU) gpu_defaults(&p, x);
}

/* Tables are tuned on square products. A long K under a small C (256 x
 * 8192 x 256) leaves most compute units idle: split K over groups until
 * there are about as many groups as compute units, each slice still at
 * least 4 slabs long. Square and wide products are left alone (there the
 * extra kernel and workspace cost more than they give). */
static void auto_ksplit(tdcl_mm_plan *p)
{
    tdcl_mm_params *x = &p->par;
    int64_t tiles = tdcl_mm_ceil_div(p->M, x->bm) * tdcl_mm_ceil_div(p->N, x->bn);
    int64_t cu = p->ctx->dev.compute_units ? p->ctx->dev.compute_units : 1;
    int64_t big = p->M > p->N ? p->M : p->N;
    if (p->K < 4 * big || 2 * tiles > cu) return;
    int64_t ks = cu / tiles, most = p->K / (4 * (int64_t)x->bk);
    ks = ks < most ? ks : most;
    ks = ks > 64 ? 64 : ks;
    if (ks > x->ksplit) x->ksplit = (int)ks;
}

static int params_given(const tdcl_mm_params *x, tdcl_mm_kernel k)
{
    const tdcl_mm_params zero = {0};
    char a[256], b[256];
    return strcmp(tdcl_mm_params_format(x, k, a, sizeof a),
                  tdcl_mm_params_format(&zero, k, b, sizeof b)) != 0;
}

/* The parameters of the CPU or GPU shape: the user's (over the defaults),
 * else the tuned or built-in ones for the device and size when they fit,
 * else the defaults. */
static tdcl_status shape_params(tdcl_mm_plan *p, const tdcl_mm_opts *o, tdcl_err *err)
{
    const tdcl_device_info *d = &p->ctx->dev;
    p->params_forced = params_given(&o->par, p->kind);
    p->par = o->par;
    p->par_source = p->params_forced ? "given" : "default";
    if (!p->params_forced && !o->no_tune) {
        tdcl_mm_params t = {0};
        const char *src = tdcl_mm_table_lookup(p->ctx, p->kind, p->type, p->M, p->K, p->N, &t);
        if (src) {
            if (p->kind == TDCL_MM_CPU)
                cpu_defaults(p, &t);
            else
                gpu_defaults(p, &t);
            if (tdcl_mm_params_check(d, p->kind, &t, p->esz, o->lab, NULL) == TDCL_OK)
                p->par = t, p->par_source = src;
            else
                tdcl_log(TDCL_LOG_VERBOSE, "matmul: %s parameters do not fit '%s'; defaults", src,
                         d->device_name);
        }
    }
    if (p->kind == TDCL_MM_CPU)
        cpu_defaults(p, &p->par);
    else
        gpu_defaults(p, &p->par);
    if (p->kind == TDCL_MM_GPU && !o->par.ksplit) auto_ksplit(p);
    p->pack_wg = (int)tdcl_cl_fit_square_tile(d, 16, 0);
    p->tt = (int)tdcl_cl_fit_square_tile(d, 16, 0);
    if (p->pack_wg < 1)
        return tdcl_fail(err, TDCL_ELIMIT, "device '%s' cannot run a packing work-group",
                         d->device_name);
    return tdcl_mm_params_check(d, p->kind, &p->par, p->esz, o->lab, err);
}

static tdcl_status choose_params(tdcl_mm_plan *p, const tdcl_mm_opts *o, tdcl_err *err)
{
    p->kind = o->kernel;
    p->kind_forced = o->kernel != TDCL_MM_AUTO;
    if (p->kind == TDCL_MM_AUTO) p->kind = o->tile ? TDCL_MM_TILED : auto_kernel(p);
    if (o->tile && p->kind != TDCL_MM_TILED)
        return tdcl_fail(err, TDCL_EINVAL, "a tile size applies to the tiled kernel, not to '%s'",
                         tdcl_mm_kernel_name(p->kind));
    if (p->kind == TDCL_MM_CPU) return shape_params(p, o, err);
    if (p->kind == TDCL_MM_GPU) {
        int strict = p->kind_forced || params_given(&o->par, TDCL_MM_GPU);
        tdcl_status st = shape_params(p, o, strict ? err : NULL);
        if (st == TDCL_OK || strict) return st;
        p->kind = TDCL_MM_TILED; /* a device too small for the GPU tile */
    }
    p->params_forced = o->tile != 0;
    p->par_source = p->params_forced ? "given" : "default";
    p->ts = o->tile ? o->tile : auto_tile(p);
    return check_tile(p, p->ts, err);
}

/* ---- building ---------------------------------------------------------- */

static void build_options(const tdcl_mm_plan *p, char *buf, size_t n)
{
    const char *type = p->type == TDCL_F64   ? " -DREAL_FP64=1"
                       : p->type == TDCL_I64 ? " -DREAL_INT=1"
                                             : "";
    int used = snprintf(buf, n, "-DVARIANT=%d -DIDX=%s%s", (int)p->kind,
                        p->idx_int ? "int" : "long", type);
    if (used < 0 || (size_t)used >= n) return;
    buf += used;
    n -= (size_t)used;
    switch (p->kind) {
    case TDCL_MM_CPU:
        snprintf(buf, n, " -DMR=%d -DNV=%d -DVW=%d -DPACK_WG=%d", p->par.mr, p->par.nv, p->par.vw,
                 p->pack_wg);
        break;
    case TDCL_MM_GPU: {
        const tdcl_mm_params *x = &p->par;
        /* float4 accesses need every leading dimension a multiple of 4
         * (A's only when read as is: At's rows are padded) */
        int a_ok = x->atrans == 2 || (p->K % 4 == 0 && (p->npk == 1 || p->pk % 4 == 0));
        int aligned = a_ok && p->N % 4 == 0 && (p->npn == 1 || p->pn % 4 == 0);
        /* unrolled, this kernel takes PoCL minutes to compile: test builds only */
        int unroll = (p->ctx->dev.type & CL_DEVICE_TYPE_CPU) == 0;
        /* cp.async copies 16 aligned bytes: unaligned rows stage through
         * registers instead, in at most the two buffers that path has */
        int cp = x->cp == 2 && aligned, nbuf = cp || x->nbuf < 3 ? x->nbuf : 2;
        /* the pieces of a split last wave, where some panel has one */
        const int64_t pd[3] = {p->pm, p->pk, p->pn};
        int tails = tdcl_mm_tail_elems(p, pd) > 0;
        snprintf(buf, n,
                 " -DBM=%d -DBN=%d -DBK=%d -DTM=%d -DTN=%d -DWX=%d -DWY=%d -DNBUF=%d -DALOAD=%d "
                 "-DATRANS=%d -DTT=%d -DVEC_ALIGNED=%d -DUNROLL=%d -DPADL=%d -DFRAG=%d "
                 "-DCPASYNC=%d -DCP_EMULATE=%d -DSWZ=%d -DTAILS=%d",
                 x->bm, x->bn, x->bk, x->tm, x->tn, x->wx, x->wy, nbuf, x->aload - 1, x->atrans - 1,
                 p->tt, aligned, unroll, x->pad == 1 ? 0 : 4, x->frag - 1, cp, cp && p->emulate,
                 x->swz, tails);
        break;
    }
    default:
        snprintf(buf, n, " -DTS=%d", p->ts);
        break;
    }
}

/* Work-items per group the kernel needs. */
static size_t wg_needed(const tdcl_mm_plan *p)
{
    switch (p->kind) {
    case TDCL_MM_CPU:
        return (size_t)p->pack_wg * p->pack_wg;
    case TDCL_MM_GPU:
        return (size_t)tdcl_mm_gpu_items(&p->par);
    default:
        return (size_t)p->ts * p->ts;
    }
}

static void release_kernels(tdcl_mm_plan *p)
{
    cl_kernel *ks[] = {&p->k_mm,  &p->k_pack_a,    &p->k_pack_b, &p->k_tr,
                       &p->k_red, &p->k_red_tiles, &p->k_range};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        if (*ks[i]) {
            clReleaseKernel(*ks[i]);
            *ks[i] = NULL;
        }
    if (p->prog) {
        clReleaseProgram(p->prog);
        p->prog = NULL;
    }
}

/* The most work-items per group the kernels that run in groups allow: the
 * packing kernels for the CPU shape (mm_cpu runs 1x1), else the product. */
static size_t kernel_wg_limit(const tdcl_mm_plan *p)
{
    size_t lim = SIZE_MAX;
    cl_kernel ks[2] = {p->k_mm, NULL};
    if (p->kind == TDCL_MM_CPU) ks[0] = p->k_pack_a, ks[1] = p->k_pack_b;
    for (size_t i = 0; i < 2; i++) {
        size_t w = 0;
        if (ks[i] &&
            clGetKernelWorkGroupInfo(ks[i], p->ctx->dev.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof w,
                                     &w, NULL) == CL_SUCCESS &&
            w < lim)
            lim = w;
    }
    return lim;
}

static tdcl_status build_once(tdcl_mm_plan *p, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    char opts[512];
    build_options(p, opts, sizeof opts);
    TDCL_TRY(tdcl_mm_prog_build(p->ctx, TDCL_MM_PROG_GEMM, opts, &p->prog, err));
    const char *name = p->kind == TDCL_MM_CPU   ? "mm_cpu"
                       : p->kind == TDCL_MM_GPU ? "mm_gpu"
                                                : "mm_tiled";
    TDCL_TRY(tdcl_ctx_kernel(p->prog, name, &p->k_mm, err));
    TDCL_TRY(tdcl_kernel_local_check(p->ctx, p->k_mm, name, err));
    if (p->kind == TDCL_MM_CPU) {
        TDCL_TRY(tdcl_ctx_kernel(p->prog, "mm_pack_a", &p->k_pack_a, err));
        TDCL_TRY(tdcl_ctx_kernel(p->prog, "mm_pack_b", &p->k_pack_b, err));
    }
    if (p->kind == TDCL_MM_GPU) {
        TDCL_TRY(tdcl_ctx_kernel(p->prog, "mm_transpose", &p->k_tr, err));
        TDCL_TRY(tdcl_kernel_local_check(p->ctx, p->k_tr, "mm_transpose", err));
        TDCL_TRY(tdcl_ctx_kernel(p->prog, "mm_reduce", &p->k_red, err));
        TDCL_TRY(tdcl_ctx_kernel(p->prog, "mm_reduce_tiles", &p->k_red_tiles, err));
    }
    if (p->type == TDCL_I64) TDCL_TRY(tdcl_ctx_kernel(p->prog, "mm_i64_range", &p->k_range, err));
out:
    return st;
}

/* Halves the automatic tile of the gpu kernel (the kernel itself given,
 * its parameters not) down to 32x32, as the compiled kernel's limits ask;
 * 0 when there is no smaller valid one. */
static int shrink_gpu_tile(tdcl_mm_plan *p)
{
    tdcl_mm_params x = p->par;
    struct tdcl_mm_lab lab = {.emulate = p->emulate};
    if (p->kind != TDCL_MM_GPU || p->params_forced || x.bm <= 32 || x.bn <= 32) return 0;
    x.bm /= 2;
    x.bn /= 2;
    x.tm = x.tn = x.wx = x.wy = 0;
    gpu_defaults(p, &x);
    if (tdcl_mm_params_check(&p->ctx->dev, TDCL_MM_GPU, &x, p->esz, &lab, NULL) != TDCL_OK)
        return 0;
    p->par = x;
    return 1;
}

/* Builds the kernels; when the compiled kernel allows fewer work-items than
 * its group needs (registers) or needs more local memory than the device
 * has, shrinks the automatic choice and rebuilds (a given gpu kernel keeps
 * its kind, on a smaller tile), or refuses a forced one. */
static tdcl_status build(tdcl_mm_plan *p, tdcl_err *err)
{
    for (;;) {
        /* TDCL_ELIMIT: the compiled kernel needs more local memory than
         * the device has (its compiler's additions, say), shrunk as for
         * work-items */
        tdcl_status st = build_once(p, err);
        const int short_local = st == TDCL_ELIMIT;
        if (st && !short_local) return st;
        size_t lim = short_local ? 0 : kernel_wg_limit(p), need = wg_needed(p);
        if (!short_local && need <= lim) return TDCL_OK;
        release_kernels(p);
        if (p->kind_forced && shrink_gpu_tile(p)) {
            tdcl_log(TDCL_LOG_VERBOSE, "matmul: %s; gpu tile %dx%d",
                     short_local && err ? err->msg : "fewer work-items per group", p->par.bm,
                     p->par.bn);
            continue;
        }
        if (short_local && (p->params_forced || p->kind_forced)) return st;
        if (p->params_forced || (p->kind == TDCL_MM_GPU && p->kind_forced))
            return tdcl_fail(err, TDCL_ELIMIT,
                             "the %s kernel needs %zu work-items per group but device '%s' runs "
                             "it with at most %zu",
                             tdcl_mm_kernel_name(p->kind), need, p->ctx->dev.device_name, lim);
        if (p->kind == TDCL_MM_TILED && p->ts > 1)
            p->ts /= 2;
        else if (p->kind == TDCL_MM_CPU && p->pack_wg > 1)
            p->pack_wg /= 2;
        else if (p->kind == TDCL_MM_GPU)
            p->kind = TDCL_MM_TILED, p->ts = 8;
        else
            return tdcl_fail(err, TDCL_ELIMIT, "device '%s' cannot run the matmul kernels",
                             p->ctx->dev.device_name);
        if (short_local)
            tdcl_log(TDCL_LOG_VERBOSE, "matmul: %s, shrinking", err ? err->msg : "local memory");
        else
            tdcl_log(TDCL_LOG_VERBOSE, "matmul: kernel limited to %zu work-items, shrinking", lim);
    }
}

/* ---- create ------------------------------------------------------------ */

static tdcl_status check_inputs(const tdcl_mm_plan *p, const tdcl_matrix *a, const tdcl_matrix *b,
                                tdcl_err *err)
{
    if (!a->data || !b->data || a->rows < 1 || a->cols < 1 || b->rows < 1 || b->cols < 1 ||
        a->channels != 1 || b->channels != 1)
        return tdcl_fail(err, TDCL_EINVAL, "matmul needs two non-empty one-channel matrices");
    if (a->cols != b->rows)
        return tdcl_fail(err, TDCL_EINVAL,
                         "cannot multiply a %" PRId64 "x%" PRId64 " matrix by a %" PRId64
                         "x%" PRId64 " one: A has %" PRId64 " columns but B has %" PRId64 " rows",
                         a->rows, a->cols, b->rows, b->cols, a->cols, b->rows);
    if (p->type != TDCL_F32 && p->type != TDCL_F64 && p->type != TDCL_I64)
        return tdcl_fail(err, TDCL_EINVAL, "matmul computes in float32, float64 or int64, not %s",
                         tdcl_dtype_name(p->type));
    if (p->type == TDCL_I64 && (!tdcl_dtype_is_int(a->dtype) || !tdcl_dtype_is_int(b->dtype)))
        return tdcl_fail(err, TDCL_EINVAL,
                         "an exact int64 product needs integer inputs, but A is %s and B %s",
                         tdcl_dtype_name(a->dtype), tdcl_dtype_name(b->dtype));
    if (p->type == TDCL_F64 && !p->ctx->dev.fp64)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "device '%s' has no double precision (cl_khr_fp64); use float32",
                         p->ctx->dev.device_name);
    return TDCL_OK;
}

static void describe(tdcl_mm_plan *p)
{
    char par[200];
    if (p->kind == TDCL_MM_TILED)
        snprintf(par, sizeof par, "ts=%d", p->ts);
    else
        tdcl_mm_params_format(&p->par, p->kind, par, sizeof par);
    /* the first panel's split last wave: its tiles and K slices */
    char tail[64] = "";
    tdcl_mm_tail t = tdcl_mm_tail_plan(p, p->pm, p->pk, p->pn);
    if (t.tiles > 0)
        snprintf(tail, sizeof tail, " last-wave=%" PRId64 "x%" PRId64, t.tiles, t.slices);
    snprintf(p->desc, sizeof p->desc,
             "kernel=%s type=%s %s params=%s idx=%s panels=%" PRId64 "x%" PRId64 "x%" PRId64 "%s",
             tdcl_mm_kernel_name(p->kind), tdcl_dtype_name(p->type), par, p->par_source,
             p->idx_int ? "int" : "long", p->npm, p->npk, p->npn, tail);
}

static tdcl_status plan_setup(tdcl_mm_plan *p, const tdcl_mm_opts *o, const tdcl_matrix *a,
                              const tdcl_matrix *b, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    TDCL_TRY(choose_params(p, o, err));
    TDCL_TRY(tdcl_mm_plan_panels(p, o, err));
    if (p->npm * p->npk * p->npn != 1) p->zero_copy = 0; /* panels upload from host copies */
    TDCL_TRY(build(p, err));
    /* a shrunk tile changes the grain, but not which panels fit */
    TDCL_TRY(tdcl_mm_check_host_memory(p, err));
    TDCL_TRY(tdcl_mm_make_buffers(p, a, b, err));
    describe(p);
    tdcl_log(TDCL_LOG_VERBOSE,
             "matmul: %" PRId64 "x%" PRId64 " * %" PRId64 "x%" PRId64 " on %s: %s", p->M, p->K,
             p->K, p->N, p->ctx->dev.device_name, p->desc);
    double t0 = tdcl_now_ms();
    if (p->npm * p->npk * p->npn == 1)
        TDCL_TRY(tdcl_mm_upload_whole(p, a, b, err));
    else
        TDCL_TRY(tdcl_mm_keep_inputs(p, a, b, err));
    p->ctx->t.upload_ms += tdcl_now_ms() - t0;
out:
    return st;
}

tdcl_status tdcl_mm_plan_create(tdcl_ctx *ctx, const tdcl_mm_opts *o, const tdcl_matrix *a,
                                const tdcl_matrix *b, tdcl_mm_plan **out, tdcl_err *err)
{
    static const tdcl_mm_opts defaults = {0};
    *out = NULL;
    if (!o) o = &defaults;
    tdcl_mm_plan *p = calloc(1, sizeof *p);
    if (!p) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    p->ctx = ctx;
    p->type = o->type;
    p->esz = tdcl_dtype_size(o->type);
    p->M = a->rows;
    p->K = a->cols;
    p->N = b->cols;
    p->poison = o->poison;
    p->wrap = o->wrap;
    p->up_a[0] = p->up_b[0] = -1;
    p->ovf[0] = p->ovf[1] = -1;
    p->zero_copy = o->borrow_inputs && (ctx->dev.type & CL_DEVICE_TYPE_CPU);
    p->input_read = o->input_read;
    p->input_user = o->input_user;
    p->emulate = o->lab && o->lab->emulate;
    tdcl_mm_precision prec = TDCL_MM_FP32;
    tdcl_status st = check_inputs(p, a, b, err);
    if (!st) st = tdcl_mm_precision_resolve(ctx, o, &prec, err);
    if (!st && prec != TDCL_MM_FP32) {
        st = tdcl_mm_tc_create(ctx, o, prec, a, b, &p->tc, err);
        if (!st) snprintf(p->desc, sizeof p->desc, "%s", tdcl_mm_tc_describe(p->tc));
    } else if (!st) {
        st = plan_setup(p, o, a, b, err);
    }
    if (st) {
        tdcl_mm_plan_destroy(p);
        return st;
    }
    *out = p;
    return TDCL_OK;
}

void tdcl_mm_plan_destroy(tdcl_mm_plan *p)
{
    if (!p) return;
    tdcl_mm_plan_unmap_result(p, NULL);
    tdcl_mm_tc_destroy(p->tc);
    release_kernels(p);
    tdcl_mm_pipe_release(p);
    cl_mem *ms[] = {&p->a, &p->b, &p->c, &p->ap, &p->bp, &p->at, &p->w};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        if (*ms[i]) clReleaseMemObject(*ms[i]);
    free(p->ha);
    free(p->hb);
    free(p->hc);
    free(p);
}

const char *tdcl_mm_plan_describe(const tdcl_mm_plan *p)
{
    return p ? p->desc : "";
}

void tdcl_mm_plan_get_info(const tdcl_mm_plan *p, tdcl_mm_plan_info *out)
{
    *out = (tdcl_mm_plan_info){.type = p->type, .precision = TDCL_MM_FP32};
    if (p->tc) {
        out->type = TDCL_F32;
        out->panels_m = out->panels_k = out->panels_n = 1;
        tdcl_mm_tc_get_info(p->tc, out);
        return;
    }
    out->kernel = p->kind;
    out->par = p->par;
    out->panels_m = p->npm;
    out->panels_k = p->npk;
    out->panels_n = p->npn;
    if (p->kind == TDCL_MM_TILED)
        out->tile_rows = out->tile_cols = p->ts;
    else if (p->kind == TDCL_MM_GPU)
        out->tile_rows = p->par.bm, out->tile_cols = p->par.bn;
}
