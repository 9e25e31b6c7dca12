/* The matmul plan: kernel choice and parameters per device, panel
 * splitting against the device's allocation limit, buffers, uploads and
 * the enqueueing of cl/matmul.cl. The parameters' text form and checks
 * are mm_params.c, the host reference and check matmul_check.c, the
 * tensor-core plans matmul_tc.c, the file job jobs/matmul_job.c. */
#include "ops/matmul/matmul.h"

#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/mem.h"
#include "ops/matmul/matmul_tc.h"
#include "ops/matmul/mm_table.h"
#include "base/clock.h"

/* Panel extents stay within int kernel arguments with room to spare. */
#define MM_MAX_PANEL_DIM ((int64_t)1 << 30)

struct tdcl_mm_plan {
    tdcl_ctx *ctx;
    tdcl_mm_kernel kind;
    tdcl_dtype type;
    size_t esz;
    int64_t M, K, N;
    int kind_forced;          /* the kernel was given: never fall back to another */
    int params_forced;        /* its parameters were given: never shrink them */
    int ts;                   /* tiled */
    tdcl_mm_params par;       /* cpu and gpu */
    const char *par_source;   /* where par came from: given, tuned, built-in, default */
    int pack_wg;              /* cpu packing kernels' group side */
    int tt;                   /* gpu transpose kernel's group side */
    int idx_int;              /* IDX is int (else long) */
    int64_t pm, pk, pn;       /* panel extents */
    int64_t npm, npk, npn;    /* panel counts */
    double tail_cap;          /* most elements the split last wave's workspace may take */
    void *ha, *hb;            /* converted inputs, kept only when panelled */
    void *hc;                 /* C on the host when panelled */
    int64_t up_a[2], up_b[2]; /* panel indices now in the a and b buffers */
    int poison;
    int wrap;        /* int64: wrap-around accepted */
    int range_check; /* int64: the inputs' bound cannot rule overflow out */
    int64_t ovf[2];  /* the first element found outside int64, or -1 */
    cl_program prog;
    cl_kernel k_mm, k_pack_a, k_pack_b, k_tr, k_red, k_red_tiles, k_range;
    cl_mem a, b, c, ap, bp, at, w;
    char desc[384];
    tdcl_mm_tc *tc;  /* tf32 / 3xtf32: the tensor-core plan does the work */
    int zero_copy;   /* o->borrow_inputs on a CPU device, one panel: A and B are the
                        caller's memory in place, C the driver's host memory */
    int borrowed[2]; /* A, B were created on the caller's memory: nothing to upload */
    void (*input_read)(void *user, int which); /* o->input_read, o->input_user */
    void *input_user;
    void *c_ptr; /* C mapped by tdcl_mm_plan_map_result */
};

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int64_t round_up(int64_t a, int64_t b)
{
    return ceil_div(a, b) * b;
}

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
    int64_t tiles = ceil_div(p->M, 128) * ceil_div(p->N, 128);
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
    int64_t tiles = ceil_div(p->M, x->bm) * ceil_div(p->N, x->bn);
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
            if (tdcl_mm_params_check(d, p->kind, &t, p->esz, NULL) == TDCL_OK)
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
    return tdcl_mm_params_check(d, p->kind, &p->par, p->esz, err);
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

/* ---- panels ------------------------------------------------------------ */

/* Granularity of panel extents: whole blocks of the kernel. */
static void panel_grain(const tdcl_mm_plan *p, int64_t g[3])
{
    switch (p->kind) {
    case TDCL_MM_CPU:
        g[0] = p->par.mr, g[1] = p->par.kc, g[2] = (int64_t)p->par.nv * p->par.vw;
        break;
    case TDCL_MM_GPU:
        g[0] = p->par.bm, g[1] = p->par.bk, g[2] = p->par.bn;
        break;
    default:
        g[0] = g[1] = g[2] = p->ts;
        break;
    }
}

#define NBUFS 7

/* Work-groups of the gpu kernel that one compute unit holds at once, as
 * far as its registers allow. No OpenCL query gives a kernel's registers,
 * so they are estimated: the accumulators, the fragments, the staged slab
 * and about 24 for addresses, against a 64K register file (NVIDIA's, since
 * compute capability 3.0). ptxas gives the 128x256 tile of 8x16 blocks 235,
 * and the estimate 200: either way one group per SM. */
static int64_t groups_per_cu(const tdcl_mm_params *x)
{
    int64_t nt = tdcl_mm_gpu_items(x),
            staged = x->cp == 2 ? 0 : (int64_t)x->bk * (x->bm + x->bn) / nt;
    int64_t regs = (int64_t)x->tm * x->tn + (int64_t)(x->tm + x->tn) * x->frag + staged + 24;
    int64_t r = 65536 / (nt * (regs < 255 ? regs : 255)), most = 2048 / nt;
    r = r < most ? r : most;
    return r < 1 ? 1 : r;
}

/* The split last wave. T tiles run in waves of P = compute units x groups
 * per unit; the last, partial wave of Tr tiles leaves the rest of the
 * device idle for most of a tile's time (8192^3 in 128x256 tiles: 15.5
 * waves, so 3% of the time; 2500^3, 1.5 waves: a third). Each of its
 * tiles runs instead as S groups of 1/S of K, launched after the whole
 * tiles so that they fill the compute units as those finish;
 * mm_reduce_tiles sums the pieces into C.
 *
 * The automatic S (tail=0) gives about 4 P pieces, 2 to 16 a tile, each
 * at least 8 slabs long, so that the wave's end is uneven by a quarter of
 * a piece. It is for GPUs, products of at least one whole wave, and tiles
 * of at most 4 groups a unit, and only where Tr is at most 3/4 P: a
 * nearly whole last wave gains less than the pieces and the sum cost, and
 * small tiles make short pieces while the groups a unit holds are only
 * estimated (docs/internals/matmul-kernels.md has the measurements).
 * tail=S forces S on the last wave, whole or not. */
typedef struct mm_tail {
    int64_t first;          /* the tiles before it, run whole */
    int64_t tiles;          /* the tiles of the split wave; 0: none */
    int64_t slices, kchunk; /* K's pieces and their length (whole slabs) */
} mm_tail;

static mm_tail tail_plan(const tdcl_mm_plan *p, int64_t mi, int64_t ki, int64_t nj)
{
    const tdcl_mm_params *x = &p->par;
    if (p->kind != TDCL_MM_GPU) return (mm_tail){0, 0, 1, ki};
    int64_t tiles = ceil_div(mi, x->bm) * ceil_div(nj, x->bn);
    mm_tail whole = {tiles, 0, 1, ki}, t = whole;
    int forced = x->tail > 1, gpu = (p->ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    if (x->ksplit > 1 || x->tail == 1 || (!forced && !gpu)) return whole;
    int64_t cu = p->ctx->dev.compute_units ? p->ctx->dev.compute_units : 1;
    int64_t per_cu = groups_per_cu(x), wave = cu * per_cu, rest = tiles % wave;
    if (forced && rest == 0) rest = tiles < wave ? tiles : wave;
    if (rest == 0 || (!forced && (tiles < wave || 4 * rest > 3 * wave || per_cu > 4))) return whole;
    int64_t s = x->tail;
    if (!forced) {
        int64_t most = ki / (8 * (int64_t)x->bk);
        s = ceil_div(4 * wave, rest);
        s = s > 16 ? 16 : s;
        s = s > most ? most : s;
    }
    if (s < 2) return whole;
    t.kchunk = round_up(ceil_div(ki, s), x->bk);
    t.slices = ceil_div(ki, t.kchunk);
    if (t.slices < 2 || (double)rest * t.slices * x->bm * x->bn > p->tail_cap) return whole;
    t.first = tiles - rest, t.tiles = rest;
    return t;
}

/* Elements of the split last wave's workspace for panels of d, the
 * smaller panels at the ends included (their waves split differently). */
static double tail_elems(const tdcl_mm_plan *p, const int64_t d[3])
{
    const int64_t full[3] = {p->M, p->K, p->N};
    double most = 0;
    for (int c = 0; c < 8; c++) {
        int64_t e[3];
        for (int i = 0; i < 3; i++) {
            int64_t r = full[i] % d[i];
            e[i] = (c >> i & 1) && r ? r : d[i];
        }
        mm_tail t = tail_plan(p, e[0], e[1], e[2]);
        double w = (double)t.tiles * (double)t.slices * p->par.bm * p->par.bn;
        most = w > most ? w : most;
    }
    return most;
}

/* Element counts of the buffers of a pm x pk x pn panel: A, B, C, for the
 * CPU kernel the packed Ap, Bp (padded to whole blocks), for the GPU
 * kernel A transposed (rows padded to 4) and the K-split workspace. */
static void panel_sizes(const tdcl_mm_plan *p, const int64_t d[3], double n[NBUFS])
{
    n[0] = (double)d[0] * d[1];
    n[1] = (double)d[1] * d[2];
    n[2] = (double)d[0] * d[2];
    n[3] = n[4] = n[5] = n[6] = 0;
    if (p->kind == TDCL_MM_CPU) {
        n[3] = (double)round_up(d[0], p->par.mr) * d[1];
        n[4] = (double)d[1] * round_up(d[2], (int64_t)p->par.nv * p->par.vw);
    }
    if (p->kind == TDCL_MM_GPU && p->par.atrans == 2) n[5] = (double)round_up(d[0], 4) * d[1];
    if (p->kind == TDCL_MM_GPU && p->par.ksplit > 1)
        n[6] = (double)p->par.ksplit * (double)d[0] * d[2];
    if (p->kind == TDCL_MM_GPU && p->par.ksplit == 1) n[6] = tail_elems(p, d);
}

/* Which two of (m, k, n) each buffer spans. */
static const int buf_dims[NBUFS][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 1}, {1, 2}, {0, 1}, {0, 2}};

/* Halves the larger dimension of the buffer that is over its limit (or the
 * largest one when the sum is over budget); 0 when nothing can shrink. */
static int shrink_panel(int64_t d[3], const int64_t g[3], const double n[NBUFS], double limit,
                        double budget)
{
    int worst = -1;
    double sum = 0;
    for (int i = 0; i < NBUFS; i++) {
        sum += n[i];
        if (n[i] > limit && (worst < 0 || n[i] > n[worst])) worst = i;
    }
    if (worst < 0 && sum > budget)
        for (int i = 0; i < NBUFS; i++)
            if (worst < 0 || n[i] > n[worst]) worst = i;
    for (int i = 0; i < 3; i++)
        if (d[i] > MM_MAX_PANEL_DIM) return d[i] = MM_MAX_PANEL_DIM, 1;
    if (worst < 0) return 1;
    int a = buf_dims[worst][0], b = buf_dims[worst][1];
    int pick = d[a] >= d[b] ? a : b;
    if (d[pick] <= 1) pick = pick == a ? b : a;
    if (d[pick] <= 1) return 0;
    int64_t half = d[pick] / 2;
    int64_t r = half >= g[pick] ? round_up(half, g[pick]) : half;
    d[pick] = r < d[pick] ? r : half;
    return 1;
}

static tdcl_status plan_panels(tdcl_mm_plan *p, const tdcl_mm_opts *o, tdcl_err *err)
{
    const tdcl_device_info *dev = &p->ctx->dev;
    size_t limit = dev->max_alloc;
    if (o->max_alloc && o->max_alloc < limit) limit = o->max_alloc;
    double lim = (double)limit / (double)p->esz;
    double budget = 0.8 * (double)dev->global_mem / (double)p->esz;
    int64_t d[3] = {p->M, p->K, p->N}, full[3] = {p->M, p->K, p->N}, g[3];
    /* a split last wave is a gain, not a need: it never shrinks the panels */
    p->tail_cap = lim < budget / 16 ? lim : budget / 16;
    double n[NBUFS];
    panel_grain(p, g);
    for (;;) {
        panel_sizes(p, d, n);
        int over = d[0] > MM_MAX_PANEL_DIM || d[1] > MM_MAX_PANEL_DIM || d[2] > MM_MAX_PANEL_DIM;
        double sum = 0;
        for (int i = 0; i < NBUFS; i++)
            over |= n[i] > lim, sum += n[i];
        over |= sum > budget;
        if (!over) break;
        if (!shrink_panel(d, g, n, lim, budget))
            return tdcl_fail(err, TDCL_ELIMIT,
                             "device '%s' cannot hold even a 1x1 panel of the product within %zu "
                             "bytes per buffer",
                             dev->device_name, limit);
    }
    /* Even out the panels: as many as needed, each as small as allows. */
    int64_t *ext[3] = {&p->pm, &p->pk, &p->pn}, *cnt[3] = {&p->npm, &p->npk, &p->npn};
    for (int i = 0; i < 3; i++) {
        *cnt[i] = ceil_div(full[i], d[i]);
        int64_t e = ceil_div(full[i], *cnt[i]);
        if (*cnt[i] > 1 && round_up(e, g[i]) <= d[i]) e = round_up(e, g[i]);
        *ext[i] = e;
        *cnt[i] = ceil_div(full[i], e);
    }
    panel_sizes(p, d, n);
    double most = 0;
    for (int i = 0; i < NBUFS; i++)
        most = n[i] > most ? n[i] : most;
    p->idx_int = most + 65536.0 < (double)INT_MAX;
    return TDCL_OK;
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
        int tails = tail_elems(p, pd) > 0;
        snprintf(buf, n,
                 " -DBM=%d -DBN=%d -DBK=%d -DTM=%d -DTN=%d -DWX=%d -DWY=%d -DNBUF=%d -DALOAD=%d "
                 "-DATRANS=%d -DTT=%d -DVEC_ALIGNED=%d -DUNROLL=%d -DPADL=%d -DFRAG=%d "
                 "-DCPASYNC=%d -DCP_EMULATE=%d -DSWZ=%d -DTAILS=%d",
                 x->bm, x->bn, x->bk, x->tm, x->tn, x->wx, x->wy, nbuf, x->aload - 1, x->atrans - 1,
                 p->tt, aligned, unroll, x->pad == 1 ? 0 : 4, x->frag - 1, cp,
                 cp && tdcl_mm_tc_emulated(), x->swz, tails);
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
    TDCL_TRY(tdcl_ctx_program(p->ctx, "matmul.cl", opts, &p->prog, err));
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

/* Builds the kernels; when the compiled kernel allows fewer work-items than
 * its group needs (registers), shrinks the automatic choice and rebuilds,
 * or refuses a forced one. */
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

/* ---- buffers and uploads ------------------------------------------------ */

static tdcl_status make_buffer(tdcl_mm_plan *p, cl_mem *m, double elems, cl_mem_flags flags,
                               void *host, tdcl_err *err)
{
    cl_int rc;
    *m = clCreateBuffer(p->ctx->context, flags, (size_t)elems * p->esz, host, &rc);
    if (rc != CL_SUCCESS) {
        *m = NULL;
        return tdcl_fail_cl(err, rc, "clCreateBuffer", "a matmul buffer of %.0f bytes on '%s'",
                            elems * (double)p->esz, p->ctx->dev.device_name);
    }
    return TDCL_OK;
}

/* The host memory the plan will hold: its buffers where the device's
 * memory is the host's (CPU devices; PoCL aborts when an allocation
 * fails), the converted copies of a panelled product, and the result. */
static tdcl_status check_host_memory(const tdcl_mm_plan *p, tdcl_err *err)
{
    int64_t d[3] = {p->pm, p->pk, p->pn};
    double n[NBUFS], elems = (double)p->M * (double)p->N;
    panel_sizes(p, d, n);
    if (p->ctx->dev.type & CL_DEVICE_TYPE_CPU)
        for (int i = 0; i < NBUFS; i++)
            elems += n[i];
    if (p->npm * p->npk * p->npn > 1)
        elems += (double)p->M * p->K + (double)p->K * p->N + (double)p->M * p->N;
    char what[160];
    snprintf(what, sizeof what,
             "the %" PRId64 "x%" PRId64 " * %" PRId64 "x%" PRId64 " %s product on '%s'", p->M, p->K,
             p->K, p->N, tdcl_dtype_name(p->type), p->ctx->dev.device_name);
    return tdcl_mem_check((uint64_t)(elems * (double)p->esz), what, 0, 0, err);
}

static tdcl_status make_buffers(tdcl_mm_plan *p, const tdcl_matrix *a, const tdcl_matrix *b,
                                tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t d[3] = {p->pm, p->pk, p->pn};
    double n[NBUFS];
    panel_sizes(p, d, n);
    /* zero copy on a CPU device: A and B in place (when of the plan's type),
     * C in the driver's host memory, which the caller maps */
    const tdcl_matrix *in[2] = {a, b};
    cl_mem *ms[2] = {&p->a, &p->b};
    for (int i = 0; i < 2; i++) {
        p->borrowed[i] = p->zero_copy && in[i]->dtype == p->type;
        TDCL_TRY(make_buffer(p, ms[i], n[i],
                             CL_MEM_READ_ONLY | (p->borrowed[i] ? CL_MEM_USE_HOST_PTR : 0),
                             p->borrowed[i] ? in[i]->data : NULL, err));
    }
    TDCL_TRY(make_buffer(
        p, &p->c, n[2], CL_MEM_READ_WRITE | (p->zero_copy ? CL_MEM_ALLOC_HOST_PTR : 0), NULL, err));
    if (p->kind == TDCL_MM_CPU) {
        TDCL_TRY(make_buffer(p, &p->ap, n[3], CL_MEM_READ_WRITE, NULL, err));
        TDCL_TRY(make_buffer(p, &p->bp, n[4], CL_MEM_READ_WRITE, NULL, err));
    }
    if (n[5] > 0) TDCL_TRY(make_buffer(p, &p->at, n[5], CL_MEM_READ_WRITE, NULL, err));
    if (n[6] > 0) TDCL_TRY(make_buffer(p, &p->w, n[6], CL_MEM_READ_WRITE, NULL, err));
out:
    return st;
}

/* m (input `name`) converted to the plan's type, refusing a value the type
 * cannot hold (a float64 past float32's range would become infinite). */
static tdcl_status convert_input(const tdcl_mm_plan *p, const tdcl_matrix *m, const char *name,
                                 tdcl_matrix *t, tdcl_err *err)
{
    tdcl_status st = tdcl_matrix_narrow(m, p->type, 0, t, err);
    if (st == TDCL_ERANGE && err) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s: %.900s; compute in float64", name, err->msg);
        snprintf(err->msg, sizeof err->msg, "%s", msg);
        err->param = TDCL_PARAM_TYPE;
    }
    return st;
}

/* Converts m to the plan's type; *data is m's own buffer when no
 * conversion is needed, else a new one stored in *owned too. */
static tdcl_status as_type(const tdcl_mm_plan *p, const tdcl_matrix *m, const char *name,
                           const void **data, void **owned, tdcl_err *err)
{
    *owned = NULL;
    if (m->dtype == p->type) {
        *data = m->data;
        return TDCL_OK;
    }
    tdcl_matrix t;
    tdcl_status st = convert_input(p, m, name, &t, err);
    if (st) return st;
    *data = *owned = t.data;
    return TDCL_OK;
}

/* Keeps converted host copies for panel-by-panel uploads. */
static tdcl_status keep_inputs(tdcl_mm_plan *p, const tdcl_matrix *a, const tdcl_matrix *b,
                               tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const tdcl_matrix *in[2] = {a, b};
    void **dst[2] = {&p->ha, &p->hb};
    for (int i = 0; i < 2; i++) {
        tdcl_matrix t;
        TDCL_TRY(convert_input(p, in[i], i ? "B" : "A", &t, err));
        *dst[i] = t.data;
    }
    if (p->type == TDCL_I64 && !p->wrap)
        p->range_check = !tdcl_mm_i64_bound_ok(p->ha, p->hb, p->M, p->K, p->N);
    size_t bytes;
    TDCL_TRY(tdcl_matrix_bytes(p->M, p->N, 1, p->type, &bytes, err));
    if (!(p->hc = malloc(bytes)))
        st = tdcl_fail(err, TDCL_ENOMEM, "cannot allocate %zu bytes for the product", bytes);
out:
    return st;
}

static tdcl_status upload_whole(tdcl_mm_plan *p, const tdcl_matrix *a, const tdcl_matrix *b,
                                tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const void *da, *db;
    void *oa = NULL, *ob = NULL;
    TDCL_TRY(as_type(p, a, "A", &da, &oa, err));
    TDCL_TRY(as_type(p, b, "B", &db, &ob, err));
    if (p->type == TDCL_I64 && !p->wrap)
        p->range_check = !tdcl_mm_i64_bound_ok(da, db, p->M, p->K, p->N);
    /* through pinned staging on a GPU (xfer.h) */
    if (!p->borrowed[0])
        TDCL_TRY(tdcl_xfer_upload(p->ctx, p->a, 0, da, (size_t)(p->M * p->K) * p->esz, err));
    if (!p->borrowed[1])
        TDCL_TRY(tdcl_xfer_upload(p->ctx, p->b, 0, db, (size_t)(p->K * p->N) * p->esz, err));
out:
    free(oa);
    free(ob);
    return st;
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
    mm_tail t = tail_plan(p, p->pm, p->pk, p->pn);
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
    TDCL_TRY(plan_panels(p, o, err));
    if (p->npm * p->npk * p->npn != 1) p->zero_copy = 0; /* panels upload from host copies */
    TDCL_TRY(build(p, err));
    /* a shrunk tile changes the grain, but not which panels fit */
    TDCL_TRY(check_host_memory(p, err));
    TDCL_TRY(make_buffers(p, a, b, err));
    describe(p);
    tdcl_log(TDCL_LOG_VERBOSE,
             "matmul: %" PRId64 "x%" PRId64 " * %" PRId64 "x%" PRId64 " on %s: %s", p->M, p->K,
             p->K, p->N, p->ctx->dev.device_name, p->desc);
    double t0 = tdcl_now_ms();
    if (p->npm * p->npk * p->npn == 1)
        TDCL_TRY(upload_whole(p, a, b, err));
    else
        TDCL_TRY(keep_inputs(p, a, b, err));
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

tdcl_status tdcl_mm_plan_map_result(tdcl_mm_plan *p, void **ptr, tdcl_err *err)
{
    cl_int rc;
    *ptr = NULL;
    if (p->tc || !p->zero_copy || p->c_ptr)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "the product is not in host memory");
    double t0 = tdcl_now_ms();
    size_t bytes = (size_t)(p->M * p->N) * p->esz;
    void *m =
        clEnqueueMapBuffer(p->ctx->queue, p->c, CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL, NULL, &rc);
    p->ctx->t.download_ms += tdcl_now_ms() - t0;
    if (rc != CL_SUCCESS) return tdcl_fail_cl(err, rc, "clEnqueueMapBuffer", "the product");
    *ptr = p->c_ptr = m;
    return TDCL_OK;
}

tdcl_status tdcl_mm_plan_unmap_result(tdcl_mm_plan *p, tdcl_err *err)
{
    void *m = p->c_ptr;
    p->c_ptr = NULL;
    if (!m) return TDCL_OK;
    cl_int rc = clEnqueueUnmapMemObject(p->ctx->queue, p->c, m, 0, NULL, NULL);
    const char *call = "clEnqueueUnmapMemObject";
    if (rc == CL_SUCCESS) rc = clFinish(p->ctx->queue), call = "clFinish";
    return rc == CL_SUCCESS ? TDCL_OK : tdcl_fail_cl(err, rc, call, "the product");
}

tdcl_status tdcl_mm_plan_result_into(tdcl_mm_plan *p, void *dst, tdcl_err *err)
{
    if (p->tc && p->type != TDCL_F32)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "the tensor-core plan's result is float32");
    if (p->tc) return tdcl_mm_tc_result_into(p->tc, dst, err);
    double t0 = tdcl_now_ms();
    size_t bytes = (size_t)(p->M * p->N) * p->esz;
    if (p->hc) {
        memcpy(dst, p->hc, bytes);
    } else {
        tdcl_status st = tdcl_xfer_read(p->ctx, p->c, 0, dst, bytes, err);
        if (st) return st;
    }
    p->ctx->t.download_ms += tdcl_now_ms() - t0;
    return TDCL_OK;
}

tdcl_status tdcl_mm_plan_result_each(tdcl_mm_plan *p, tdcl_xfer_sink sink, void *user,
                                     tdcl_err *err)
{
    if (p->tc || p->hc)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "the product is not in one device buffer");
    size_t bytes = (size_t)(p->M * p->N) * p->esz;
    return tdcl_xfer_download(p->ctx, p->c, 0, bytes, sink, user, err);
}

void tdcl_mm_plan_destroy(tdcl_mm_plan *p)
{
    if (!p) return;
    tdcl_mm_plan_unmap_result(p, NULL);
    tdcl_mm_tc_destroy(p->tc);
    release_kernels(p);
    cl_mem *ms[] = {&p->a, &p->b, &p->c, &p->ap, &p->bp, &p->at, &p->w};
    for (size_t i = 0; i < 7; i++)
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

/* ---- execute ------------------------------------------------------------ */

/* Events of one panel's kernels, waited for and timed together. */
typedef struct mm_events {
    cl_event ev[64];
    int n;
    double ms;
} mm_events;

static void events_flush(mm_events *e)
{
    if (e->n) clWaitForEvents((cl_uint)e->n, e->ev);
    for (int i = 0; i < e->n; i++) {
        e->ms += tdcl_event_ms(e->ev[i]);
        clReleaseEvent(e->ev[i]);
    }
    e->n = 0;
}

/* Enqueues k over dims dimensions (2 or 3) of g, groups l (NULL: any). */
static tdcl_status enqueue_nd(tdcl_mm_plan *p, cl_kernel k, cl_uint dims, const size_t *g,
                              const size_t *l, mm_events *e, tdcl_err *err)
{
    if (e->n == (int)(sizeof e->ev / sizeof e->ev[0])) events_flush(e);
    cl_int rc = clEnqueueNDRangeKernel(p->ctx->queue, k, dims, NULL, g, l, 0, NULL, &e->ev[e->n]);
    if (rc != CL_SUCCESS)
        return tdcl_fail_cl(err, rc, "clEnqueueNDRangeKernel", "matmul kernel on '%s'",
                            p->ctx->dev.device_name);
    e->n++;
    return TDCL_OK;
}

static tdcl_status enqueue(tdcl_mm_plan *p, cl_kernel k, const size_t g[2], const size_t l[2],
                           mm_events *e, tdcl_err *err)
{
    return enqueue_nd(p, k, 2, g, l, e, err);
}

/* Kernel arguments: ints, IDX (int or long) and buffers, in order. The
 * format string holds 'i' (int), 'x' (IDX) and 'm' (cl_mem). */
static tdcl_status set_args(const tdcl_mm_plan *p, cl_kernel k, const char *fmt,
                            const int64_t *vals, const cl_mem *mems, tdcl_err *err)
{
    cl_int rc = CL_SUCCESS;
    for (cl_uint i = 0; fmt[i] && rc == CL_SUCCESS; i++) {
        int iv = (int)vals[i];
        long long lv = vals[i];
        if (fmt[i] == 'm')
            rc = clSetKernelArg(k, i, sizeof(cl_mem), &mems[i]);
        else if (fmt[i] == 'i' || p->idx_int)
            rc = clSetKernelArg(k, i, sizeof(cl_int), &iv);
        else
            rc = clSetKernelArg(k, i, sizeof(cl_long), &lv);
    }
    return rc == CL_SUCCESS ? TDCL_OK : tdcl_fail_cl(err, rc, "clSetKernelArg", "matmul kernel");
}

/* One panel C(mi x nj) (+)= A(mi x ki) * B(ki x nj) out of the buffers. */
typedef struct mm_panel {
    int64_t mi, ki, nj;
    int accumulate;
} mm_panel;

static tdcl_status run_tiled(tdcl_mm_plan *p, const mm_panel *x, mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t v[] = {x->mi, x->nj, x->ki, 0, x->ki, 0, x->nj, 0, x->nj, x->accumulate};
    cl_mem m[] = {0, 0, 0, p->a, 0, p->b, 0, p->c, 0, 0};
    TDCL_TRY(set_args(p, p->k_mm, "iiimxmxmxi", v, m, err));
    size_t l[2] = {(size_t)p->ts, (size_t)p->ts};
    size_t g[2] = {(size_t)round_up(x->nj, p->ts), (size_t)round_up(x->mi, p->ts)};
    TDCL_TRY(enqueue(p, p->k_mm, g, l, e, err));
out:
    return st;
}

/* mm_gpu over the panel: its whole tiles (in slices of K into the
 * workspace with ksplit), then the pieces of the split last wave (t). */
static tdcl_status launch_gpu(tdcl_mm_plan *p, const mm_panel *x, cl_mem a, int64_t lda,
                              const mm_tail *t, int64_t kchunk, int64_t slices, mm_events *e,
                              tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const tdcl_mm_params *q = &p->par;
    int split = slices > 1;
    int64_t v[] = {x->mi,
                   x->nj,
                   x->ki,
                   0,
                   lda,
                   0,
                   x->nj,
                   0,
                   x->nj,
                   split ? 0 : x->accumulate,
                   kchunk,
                   split ? x->mi * x->nj : 0,
                   0,
                   t->first,
                   t->slices,
                   t->kchunk,
                   ceil_div(x->nj, q->bn)};
    cl_mem m[] = {0, 0, 0, a, 0, p->b, 0, split ? p->w : p->c, 0, 0, 0, 0, p->w, 0, 0, 0, 0};
    TDCL_TRY(set_args(p, p->k_mm, "iiimxmxmxiixmiiii", v, m, err));
    size_t nt = (size_t)tdcl_mm_gpu_items(q), groups = (size_t)(t->first + t->tiles * t->slices);
    size_t l[3] = {nt, 1, 1}, g[3] = {groups * nt, 1, (size_t)slices};
    TDCL_TRY(enqueue_nd(p, p->k_mm, 3, g, l, e, err));
out:
    return st;
}

/* The GPU shape: A transposed first (atrans=2), then the product: over
 * ksplit slices of K into the workspace, then summed; or straight into C,
 * its last wave split (tail_plan) and its pieces summed. */
static tdcl_status run_gpu(tdcl_mm_plan *p, const mm_panel *x, mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const tdcl_mm_params *q = &p->par;
    cl_mem a = p->a;
    int64_t lda = x->ki;
    if (q->atrans == 2) {
        int64_t ldat = round_up(x->mi, 4), tt = p->tt;
        int64_t vt[] = {x->mi, x->ki, 0, x->ki, 0, ldat};
        cl_mem mt[] = {0, 0, p->a, 0, p->at, 0};
        TDCL_TRY(set_args(p, p->k_tr, "iimxmx", vt, mt, err));
        size_t lt[2] = {(size_t)tt, (size_t)tt};
        size_t gt[2] = {(size_t)round_up(x->ki, tt), (size_t)round_up(x->mi, tt)};
        TDCL_TRY(enqueue(p, p->k_tr, gt, lt, e, err));
        a = p->at, lda = ldat;
    }
    /* slices of whole slabs; fewer slices when K is short */
    int64_t kchunk = round_up(ceil_div(x->ki, q->ksplit), q->bk);
    int64_t slices = ceil_div(x->ki, kchunk);
    /* pieces only where build_options built TAILS: tail_elems covers this panel */
    mm_tail t = tail_plan(p, x->mi, x->ki, x->nj);
    TDCL_TRY(launch_gpu(p, x, a, lda, &t, kchunk, slices, e, err));
    if (slices > 1) {
        int64_t vr[] = {x->mi, x->nj, 0, x->mi * x->nj, slices, 0, x->nj, x->accumulate};
        cl_mem mr[] = {0, 0, p->w, 0, 0, p->c, 0, 0}; /* 8 arguments */
        TDCL_TRY(set_args(p, p->k_red, "iimximxi", vr, mr, err));
        size_t gr[2] = {(size_t)x->nj, (size_t)x->mi};
        TDCL_TRY(enqueue_nd(p, p->k_red, 2, gr, NULL, e, err));
    }
    if (t.tiles > 0) {
        int64_t vr[] = {x->mi, x->nj,         0,       t.tiles * q->bm * q->bn, t.slices, 0,
                        x->nj, x->accumulate, t.first, ceil_div(x->nj, q->bn)};
        cl_mem mr[] = {0, 0, p->w, 0, 0, p->c, 0, 0, 0, 0};
        TDCL_TRY(set_args(p, p->k_red_tiles, "iimximxiii", vr, mr, err));
        size_t gr[3] = {(size_t)q->bn, (size_t)q->bm, (size_t)t.tiles};
        TDCL_TRY(enqueue_nd(p, p->k_red_tiles, 3, gr, NULL, e, err));
    }
out:
    return st;
}

/* A borrowed input packed: once its packing kernel is done, the caller
 * hears (o->input_read), A before B is packed so that at most one input,
 * the packed panels and no C are in memory at once. */
static void input_read(tdcl_mm_plan *p, int which, mm_events *e)
{
    if (!p->input_read || !p->zero_copy || !p->borrowed[which]) return;
    events_flush(e);
    p->input_read(p->input_user, which);
}

static tdcl_status run_packs(tdcl_mm_plan *p, const mm_panel *x, int64_t mpad, int64_t npad,
                             mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    size_t w = (size_t)p->pack_wg, l[2] = {w, w};
    int64_t va[] = {x->mi, mpad, x->ki, 0, x->ki, 0};
    cl_mem ma[] = {0, 0, 0, p->a, 0, p->ap};
    TDCL_TRY(set_args(p, p->k_pack_a, "iiimxm", va, ma, err));
    size_t ga[2] = {(size_t)round_up(x->ki, (int64_t)w), (size_t)round_up(mpad, (int64_t)w)};
    TDCL_TRY(enqueue(p, p->k_pack_a, ga, l, e, err));
    input_read(p, 0, e);
    int64_t vb[] = {x->nj, npad, x->ki, 0, x->nj, 0};
    cl_mem mb[] = {0, 0, 0, p->b, 0, p->bp};
    TDCL_TRY(set_args(p, p->k_pack_b, "iiimxm", vb, mb, err));
    size_t gb[2] = {(size_t)round_up(npad, (int64_t)w), (size_t)round_up(x->ki, (int64_t)w)};
    TDCL_TRY(enqueue(p, p->k_pack_b, gb, l, e, err));
    input_read(p, 1, e);
out:
    return st;
}

static tdcl_status run_cpu(tdcl_mm_plan *p, const mm_panel *x, mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const tdcl_mm_params *q = &p->par;
    int64_t nr = (int64_t)q->nv * q->vw;
    int64_t mpad = round_up(x->mi, q->mr), npad = round_up(x->nj, nr);
    TDCL_TRY(run_packs(p, x, mpad, npad, e, err));
    /* Even passes of at most kc: a short last pass would waste a launch. */
    int64_t passes = ceil_div(x->ki, q->kc), kc = ceil_div(x->ki, passes);
    size_t g[2] = {(size_t)(mpad / q->mr), (size_t)(npad / nr)}, l[2] = {1, 1};
    for (int64_t k0 = 0; k0 < x->ki; k0 += kc) {
        int64_t len = x->ki - k0 < kc ? x->ki - k0 : kc;
        int64_t v[] = {x->mi, x->nj, x->ki, 0, 0, 0, x->nj, k0, len, x->accumulate || k0 > 0};
        cl_mem m[] = {0, 0, 0, p->ap, p->bp, p->c, 0, 0, 0, 0};
        TDCL_TRY(set_args(p, p->k_mm, "iiimmmxiii", v, m, err));
        TDCL_TRY(enqueue(p, p->k_mm, g, l, e, err));
    }
out:
    return st;
}

static tdcl_status run_panel(tdcl_mm_plan *p, const mm_panel *x, mm_events *e, tdcl_err *err)
{
    if (p->poison && !x->accumulate) {
        /* a quiet NaN with a payload for floats; an unlikely pattern for int64 */
        const uint64_t p64 = 0x7ff8dead5a5a5a5aULL;
        const uint32_t p32 = 0x7fc0dead;
        const void *pat = p->esz == 8 ? (const void *)&p64 : (const void *)&p32;
        cl_int rc = clEnqueueFillBuffer(p->ctx->queue, p->c, pat, p->esz, 0,
                                        (size_t)(x->mi * x->nj) * p->esz, 0, NULL, NULL);
        if (rc != CL_SUCCESS) return tdcl_fail_cl(err, rc, "clEnqueueFillBuffer", "poisoning C");
    }
    if (p->kind == TDCL_MM_CPU) return run_cpu(p, x, e, err);
    return p->kind == TDCL_MM_GPU ? run_gpu(p, x, e, err) : run_tiled(p, x, e, err);
}

/* Copies a rows x cols block between the host matrix (row length ld, at
 * row r0, column c0) and a dense device buffer. */
static tdcl_status rect(tdcl_mm_plan *p, int write, cl_mem buf, void *host, int64_t ld, int64_t r0,
                        int64_t c0, int64_t rows, int64_t cols, tdcl_err *err)
{
    size_t e = p->esz;
    size_t hoff[3] = {(size_t)c0 * e, (size_t)r0, 0}, boff[3] = {0, 0, 0};
    size_t reg[3] = {(size_t)cols * e, (size_t)rows, 1};
    cl_int rc;
    if (write)
        rc = clEnqueueWriteBufferRect(p->ctx->queue, buf, CL_FALSE, boff, hoff, reg, reg[0], 0,
                                      (size_t)ld * e, 0, host, 0, NULL, NULL);
    else
        rc = clEnqueueReadBufferRect(p->ctx->queue, buf, CL_TRUE, boff, hoff, reg, reg[0], 0,
                                     (size_t)ld * e, 0, host, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return tdcl_fail_cl(err, rc, write ? "clEnqueueWriteBufferRect" : "clEnqueueReadBufferRect",
                            "a %" PRId64 "x%" PRId64 " panel", rows, cols);
    return TDCL_OK;
}

static int64_t extent(int64_t full, int64_t step, int64_t i)
{
    return full - i * step < step ? full - i * step : step;
}

/* Uploads the panels of A and B that (im, ik, jn) needs, unless there. */
static tdcl_status upload_panels(tdcl_mm_plan *p, int64_t im, int64_t ik, int64_t jn,
                                 const mm_panel *x, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    double t0 = tdcl_now_ms();
    if (p->up_a[0] != im || p->up_a[1] != ik) {
        TDCL_TRY(rect(p, 1, p->a, p->ha, p->K, im * p->pm, ik * p->pk, x->mi, x->ki, err));
        p->up_a[0] = im, p->up_a[1] = ik;
    }
    if (p->up_b[0] != ik || p->up_b[1] != jn) {
        TDCL_TRY(rect(p, 1, p->b, p->hb, p->N, ik * p->pk, jn * p->pn, x->ki, x->nj, err));
        p->up_b[0] = ik, p->up_b[1] = jn;
    }
out:
    p->ctx->t.upload_ms += tdcl_now_ms() - t0;
    return st;
}

static tdcl_status execute_panels(tdcl_mm_plan *p, mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    for (int64_t im = 0; im < p->npm; im++)
        for (int64_t jn = 0; jn < p->npn; jn++) {
            for (int64_t ik = 0; ik < p->npk; ik++) {
                mm_panel x = {extent(p->M, p->pm, im), extent(p->K, p->pk, ik),
                              extent(p->N, p->pn, jn), ik > 0};
                TDCL_TRY(upload_panels(p, im, ik, jn, &x, err));
                TDCL_TRY(run_panel(p, &x, e, err));
            }
            events_flush(e);
            double t0 = tdcl_now_ms();
            TDCL_TRY(rect(p, 0, p->c, p->hc, p->N, im * p->pm, jn * p->pn, extent(p->M, p->pm, im),
                          extent(p->N, p->pn, jn), err));
            p->ctx->t.download_ms += tdcl_now_ms() - t0;
        }
out:
    return st;
}

tdcl_status tdcl_mm_fail_overflow(int64_t row, int64_t col, tdcl_err *err)
{
    return tdcl_fail_param(err, TDCL_ERANGE, TDCL_PARAM_WRAP,
                           "the exact int64 product overflows: element (%" PRId64 ", %" PRId64
                           ") of C (row, column from 1) lies outside the int64 range",
                           row + 1, col + 1);
}

/* The device's search for elements outside int64 (mm_i64_range) over the
 * whole A and B in their buffers: the first in row-major order, if any. */
static tdcl_status overflow_at(tdcl_mm_plan *p, int64_t row, int64_t col, tdcl_err *err)
{
    p->ovf[0] = row;
    p->ovf[1] = col;
    return tdcl_mm_fail_overflow(row, col, err);
}

static tdcl_status range_device(tdcl_mm_plan *p, mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_int rc, n = (cl_int)p->N;
    int *first = NULL;
    cl_mem f = clCreateBuffer(p->ctx->context, CL_MEM_READ_WRITE, (size_t)p->M * sizeof(cl_int),
                              NULL, &rc);
    if (rc != CL_SUCCESS)
        return tdcl_fail_cl(err, rc, "clCreateBuffer", "int64 overflow flags (%" PRId64 " rows)",
                            p->M);
    if (!(first = malloc((size_t)p->M * sizeof *first))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory for the int64 overflow flags");
        goto out;
    }
    TDCL_CL_TRY(err,
                clEnqueueFillBuffer(p->ctx->queue, f, &n, sizeof n, 0,
                                    (size_t)p->M * sizeof(cl_int), 0, NULL, NULL),
                "clEnqueueFillBuffer");
    int64_t v[] = {p->M, p->N, p->K, 0, p->K, 0, p->N, 0};
    cl_mem m[] = {0, 0, 0, p->a, 0, p->b, 0, f};
    TDCL_TRY(set_args(p, p->k_range, "iiimxmxm", v, m, err));
    size_t g[2] = {(size_t)p->N, (size_t)p->M};
    TDCL_TRY(enqueue(p, p->k_range, g, NULL, e, err));
    TDCL_CL_TRY(err,
                clEnqueueReadBuffer(p->ctx->queue, f, CL_TRUE, 0, (size_t)p->M * sizeof(cl_int),
                                    first, 0, NULL, NULL),
                "clEnqueueReadBuffer");
    for (int64_t i = 0; i < p->M; i++)
        if (first[i] < n) {
            st = overflow_at(p, i, first[i], err);
            break;
        }
out:
    free(first);
    clReleaseMemObject(f);
    return st;
}

/* The whole product in one piece, C = A*B or C += A*B, waited for. */
static tdcl_status execute_whole(tdcl_mm_plan *p, int accumulate, mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    mm_panel x = {p->M, p->K, p->N, accumulate};
    TDCL_TRY(run_panel(p, &x, e, err));
    if (p->range_check && !accumulate) TDCL_TRY(range_device(p, e, err));
    TDCL_CL_TRY(err, clFinish(p->ctx->queue), "clFinish");
out:
    return st;
}

/* Waits for and times the events; on success adds their device time. */
static tdcl_status events_done(tdcl_mm_plan *p, mm_events *e, tdcl_status st, double *kernel_ms)
{
    events_flush(e);
    if (st == TDCL_OK) {
        p->ctx->t.kernel_ms += e->ms;
        if (kernel_ms) *kernel_ms = e->ms;
    }
    return st;
}

tdcl_status tdcl_mm_plan_execute(tdcl_mm_plan *p, double *kernel_ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    mm_events e = {.n = 0};
    int64_t r, c;
    if (p->tc) return tdcl_mm_tc_execute(p->tc, kernel_ms, err);
    if (p->npm * p->npk * p->npn == 1) {
        st = execute_whole(p, 0, &e, err);
    } else {
        st = execute_panels(p, &e, err);
        /* the panels are not on the device together: search on the host */
        if (st == TDCL_OK && p->range_check &&
            tdcl_mm_i64_first_overflow(p->ha, p->hb, p->M, p->K, p->N, &r, &c))
            st = overflow_at(p, r, c, err);
    }
    return events_done(p, &e, st, kernel_ms);
}

int tdcl_mm_plan_overflow(const tdcl_mm_plan *p, int64_t *row, int64_t *col)
{
    if (p->ovf[0] < 0) return 0;
    *row = p->ovf[0];
    *col = p->ovf[1];
    return 1;
}

tdcl_status tdcl_mm_plan_execute_with(tdcl_mm_plan *p, const tdcl_matrix *a, const tdcl_matrix *b,
                                      int accumulate, double *kernel_ms, tdcl_err *err)
{
    mm_events e = {.n = 0};
    if (p->tc || p->npm * p->npk * p->npn != 1 || p->borrowed[0] || p->borrowed[1])
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "this plan cannot take new inputs");
    if (a->rows != p->M || a->cols != p->K || b->rows != p->K || b->cols != p->N)
        return tdcl_fail(err, TDCL_EINVAL, "new inputs of another shape than the plan's");
    double t0 = tdcl_now_ms();
    tdcl_status st = upload_whole(p, a, b, err);
    p->ctx->t.upload_ms += tdcl_now_ms() - t0;
    if (st == TDCL_OK) st = execute_whole(p, accumulate, &e, err);
    return events_done(p, &e, st, kernel_ms);
}

tdcl_status tdcl_mm_plan_result(tdcl_mm_plan *p, tdcl_matrix *c, tdcl_err *err)
{
    if (p->tc) return tdcl_mm_tc_result(p->tc, c, err);
    tdcl_status st = tdcl_matrix_alloc(c, p->M, p->N, 1, p->type, err);
    if (st) return st;
    double t0 = tdcl_now_ms();
    size_t bytes = (size_t)(p->M * p->N) * p->esz;
    if (p->hc) {
        memcpy(c->data, p->hc, bytes);
    } else if ((st = tdcl_xfer_read(p->ctx, p->c, 0, c->data, bytes, err))) {
        tdcl_matrix_free(c);
        return st;
    }
    p->ctx->t.download_ms += tdcl_now_ms() - t0;
    return TDCL_OK;
}

tdcl_status tdcl_mm_run(tdcl_ctx *ctx, const tdcl_mm_opts *o, const tdcl_matrix *a,
                        const tdcl_matrix *b, tdcl_matrix *c, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_mm_plan *p = NULL;
    memset(c, 0, sizeof *c);
    TDCL_TRY(tdcl_mm_plan_create(ctx, o, a, b, &p, err));
    TDCL_TRY(tdcl_mm_plan_execute(p, NULL, err));
    TDCL_TRY(tdcl_mm_plan_result(p, c, err));
out:
    tdcl_mm_plan_destroy(p);
    return st;
}
