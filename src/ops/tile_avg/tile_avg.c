/* tile-avg on the device: choosing the variant and its launch shapes from
 * the tile and the device's limits, the plan (upload, stages, download), the
 * float64 host reference. The file job is jobs/tile_avg_job.c. */
#include "ops/tile_avg/tile_avg.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/pool.h"
#include "base/clock.h"
#include "runtime/xfer.h"
#include "ops/tile_avg/ta_reduce.h"

#define TA_MAX_STAGES 8

/* cpu variant: a stage sums sub-tiles of at most TA_CPU_TMAX rows and
 * TA_CPU_UMAX columns, and a stage that leaves work to a next one at most
 * TA_CPU_STAGE_U columns; an item reads about TA_CPU_ROWS rows (several
 * short tile rows); work-groups of TA_CPU_WG items. Measured on PoCL: items
 * that touch more rows, or wider runs, lose bandwidth
 * (docs/internals/tile-avg-kernels.md). */
#define TA_CPU_TMAX 8
#define TA_CPU_UMAX 64
#define TA_CPU_STAGE_U 16
#define TA_CPU_ROWS 8
#define TA_CPU_VW 16
#define TA_CPU_WG 16
/* gpu variant: float4-wide loads, up to TA_GPU_RPI rows per item, about
 * TA_GPU_WG items per work-group, teams of at most TA_GPU_TEAM items. */
#define TA_GPU_VW 4
#define TA_GPU_RPI 16
#define TA_GPU_WG 256
#define TA_GPU_TEAM 1024
/* band variant: loads of up to TA_BAND_VW_CPU (a CPU: one item per tile,
 * no barrier) or TA_BAND_VW_GPU values (a GPU: a team per tile of
 * TA_BAND_TEAM_MIN_GPU to TA_BAND_TEAM_GPU items, each with about
 * TA_BAND_SLOTS_GPU interleaved vectors per row, or one vector each where
 * the tile is narrower); at most TA_BAND_KMAX vectors per item and row (the
 * kernel unrolls them); items read about TA_BAND_LOADS_GPU or
 * TA_BAND_LOADS_CPU vectors; work-groups of about TA_GPU_WG or TA_CPU_WG
 * items. Measured on an H200: teams of 2 or 4 items with several vectors
 * each lose half the bandwidth (the loads of one instruction scatter over
 * many lines); teams of 8 to 32 reach the copy's. */
#define TA_BAND_VW_CPU 16
#define TA_BAND_VW_GPU 4
#define TA_BAND_TEAM_MIN_GPU 8
#define TA_BAND_TEAM_GPU 32
#define TA_BAND_SLOTS_GPU 4
#define TA_BAND_KMAX 64
#define TA_BAND_TEAM_MAX 256
#define TA_BAND_LOADS_GPU 8
#define TA_BAND_LOADS_CPU 16
#define TA_BAND_MY_MAX 8

/* One launch of cl/tile_avg.cl: its compile-time shape (see the kernel's
 * header comment for the names) and its sizes. A band stage (tile_avg_band)
 * uses vw, sx as BS, nt as BK, my as BMY, tx as BG and ty as BTY. */
typedef struct ta_stage {
    int64_t t, u;         /* tile, in elements of this stage's input */
    int64_t rows, cols;   /* this stage's input, per plane */
    int64_t orows, ocols; /* its output, per plane */
    int vw, sx, nt, w, rpi, sy, my, tx, ty, final;
    int band; /* tile_avg_band rather than tile_avg */
    tdcl_dtype in, out;
    tdcl_dtype racc; /* the lean path's register sums */
    size_t gws[3], lws[3];
    cl_program prog;
    cl_kernel kern;
} ta_stage;

struct tdcl_ta_plan {
    tdcl_ctx *ctx;
    const tdcl_matrix *in_host; /* the input while the plan is made (for in_maxabs) */
    int maxabs_known;
    double in_maxabs; /* the largest finite |x| of a float input as the device reads it
                         (0 otherwise) */
    int prescale;     /* the input goes times 2^-prescale and the means come back
                         times 2^prescale, so a tile's sum cannot overflow: float
                         accumulators, or float64 input near DBL_MAX */
    tdcl_ta_opts o;
    tdcl_ta_variant variant;
    int64_t rows, cols, orows, ocols;
    int channels;
    tdcl_dtype acc, out_type;
    size_t max_wg; /* the device's, lowered when a built kernel allows less */
    int nstages;
    ta_stage st[TA_MAX_STAGES];
    cl_mem buf[TA_MAX_STAGES + 1]; /* buf[0] the input, buf[k] the output of stage k-1 */
    char desc[640];
    int interleaved; /* one stage of tile_reduce (ta_reduce.c) over the channels as
                        they lie: input and result interleaved, no prescale */
    int borrow;      /* tdcl_ta_run: the input outlives the plan, so a CPU device may read it in
                        place (CL_MEM_USE_HOST_PTR) rather than from a copy */
};

static const char *const variant_names[] = {"auto", "cpu", "gpu", "band"};

const char *tdcl_ta_variant_name(tdcl_ta_variant v)
{
    return (unsigned)v <= TDCL_TA_BAND ? variant_names[v] : "unknown";
}

int tdcl_ta_variant_parse(const char *name, tdcl_ta_variant *v)
{
    for (int i = 0; i <= TDCL_TA_BAND; i++)
        if (name && strcmp(name, variant_names[i]) == 0) {
            *v = (tdcl_ta_variant)i;
            return 0;
        }
    return -1;
}

tdcl_status tdcl_ta_shape(const tdcl_ta_opts *o, int64_t rows, int64_t cols, int64_t *orows,
                          int64_t *ocols, tdcl_err *err)
{
    int64_t t = o->tile_rows, u = o->tile_cols;
    if (t < 1 || u < 1)
        return tdcl_fail(err, TDCL_EINVAL,
                         "tile-avg: expected a tile of at least 1x1, got %lldx%lld", (long long)t,
                         (long long)u);
    if (t > rows || u > cols)
        return tdcl_fail(err, TDCL_EINVAL,
                         "tile-avg: the %lldx%lld tile is larger than the %lldx%lld matrix",
                         (long long)t, (long long)u, (long long)rows, (long long)cols);
    if (o->strict && (rows % t || cols % u))
        return tdcl_fail_param(
            err, TDCL_EINVAL, TDCL_PARAM_STRICT,
            "tile-avg: the %lldx%lld matrix is not a whole number of %lldx%lld tiles",
            (long long)rows, (long long)cols, (long long)t, (long long)u);
    *orows = (rows + t - 1) / t;
    *ocols = (cols + u - 1) / u;
    return TDCL_OK;
}

static int use_f64(const tdcl_device_info *d, const tdcl_ta_opts *o)
{
    return d->fp64 && !o->acc_f32;
}

tdcl_dtype tdcl_ta_result_type(const tdcl_device_info *d, const tdcl_ta_opts *o, tdcl_dtype in)
{
    int wide = in == TDCL_F64 || in == TDCL_I32 || in == TDCL_I64;
    int small = in == TDCL_U8 || in == TDCL_U16;
    switch (o->op) {
    case TDCL_TA_MEAN:
        if (o->image && small) return in;
        return wide && use_f64(d, o) ? TDCL_F64 : TDCL_F32;
    case TDCL_TA_SUM:
        if (tdcl_dtype_is_int(in)) return TDCL_I64;
        return d->fp64 ? TDCL_F64 : TDCL_F32;
    default:
        return in == TDCL_F64 && !d->fp64 ? TDCL_F32 : in;
    }
}

tdcl_status tdcl_ta_check(const tdcl_ta_opts *o, int channels, tdcl_dtype in, tdcl_err *err)
{
    if ((unsigned)o->op > TDCL_TA_MODE)
        return tdcl_fail(err, TDCL_EINVAL, "tile-avg: no reduction %d", (int)o->op);
    if (!o->alpha_weighted) return TDCL_OK;
    if (o->op != TDCL_TA_MEAN)
        return tdcl_fail(err, TDCL_EINVAL,
                         "tile-avg: alpha weighting applies to the mean, not the %s",
                         tdcl_ta_op_name(o->op));
    if (!o->image || !(in == TDCL_U8 || in == TDCL_U16) || !(channels == 2 || channels == 4))
        return tdcl_fail(err, TDCL_EINVAL,
                         "tile-avg: alpha weighting needs an 8- or 16-bit image with alpha "
                         "(2 or 4 channels), got %d channel(s) of %s",
                         channels, tdcl_dtype_name(in));
    return TDCL_OK;
}

/* ---- launch shapes ------------------------------------------------------ */

static int is_pow2(int64_t n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

static int log2_exact(int64_t n)
{
    int l = 0;
    while (((int64_t)1 << l) < n)
        l++;
    return is_pow2(n) ? l : -1;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Largest divisor of n that is at most cap. */
static int64_t divisor_le(int64_t n, int64_t cap)
{
    for (int64_t d = cap < n ? cap : n; d > 1; d--)
        if (n % d == 0) return d;
    return 1;
}

static size_t round_up(size_t n, size_t m)
{
    return (n + m - 1) / m * m;
}

/* Run width of a lone item (SX == 1) holding whole tiles of width u with
 * loads of about vw: whole vectors of whole tiles when that stays within
 * wmax values, else one tile read with the widest vector dividing it. */
static void whole_tile_run(ta_stage *s, int vw, int wmax)
{
    int64_t u = s->u;
    int64_t l = u / gcd64(u, vw) * vw; /* lcm(u, vw) */
    if (l <= wmax) {
        s->vw = vw;
        s->nt = (int)(l / u);
        s->w = (int)l;
        return;
    }
    s->vw = (int)gcd64(u, vw);
    s->nt = 1;
    s->w = (int)u;
}

/* A barrier-free stage of the cpu variant: tile t x u of a rows x cols
 * input, whole tiles per item, several short tile rows per item. */
static void shape_cpu_stage(const tdcl_ta_plan *p, ta_stage *s)
{
    whole_tile_run(s, TA_CPU_VW, TA_CPU_UMAX);
    s->sx = s->sy = 1;
    s->rpi = (int)s->t;
    s->my = s->t < TA_CPU_ROWS ? (int)(TA_CPU_ROWS / s->t) : 1;
    s->tx = TA_CPU_WG;
    while (s->tx > 1 &&
           ((size_t)s->tx > p->max_wg || (size_t)s->tx > p->ctx->dev.max_item_sizes[0]))
        s->tx /= 2;
    s->ty = 1;
}

/* Splits the cpu variant's tile into stages; 0 when the tile does not
 * factor into stages that each shrink it (a large prime side). */
static int plan_cpu_stages(tdcl_ta_plan *p)
{
    int64_t t = p->o.tile_rows, u = p->o.tile_cols, rows = p->rows, cols = p->cols;
    int n = 0;
    for (;;) {
        if (n == TA_MAX_STAGES) return 0;
        ta_stage *s = &p->st[n++];
        memset(s, 0, sizeof *s);
        s->final = t <= TA_CPU_TMAX && u <= TA_CPU_UMAX;
        s->t = s->final ? t : divisor_le(t, TA_CPU_TMAX);
        s->u = s->final ? u : divisor_le(u, TA_CPU_STAGE_U);
        if (s->t * s->u == 1 && !s->final) return 0;
        s->rows = rows;
        s->cols = cols;
        s->orows = (rows + s->t - 1) / s->t;
        s->ocols = (cols + s->u - 1) / s->u;
        shape_cpu_stage(p, s);
        if (s->final) break;
        t /= s->t;
        u /= s->u;
        rows = s->orows;
        cols = s->ocols;
    }
    p->nstages = n;
    return 1;
}

/* The gpu variant's run width and team across the tile: float4 runs side
 * by side (SX items) for a wide tile, whole tiles per item for a narrow
 * one, widened until the team fits max_team. */
static void shape_gpu_cols(ta_stage *s, int64_t max_team)
{
    int64_t u = s->u;
    if (u <= 4 * TA_GPU_VW && !(is_pow2(u) && u > TA_GPU_VW)) {
        whole_tile_run(s, TA_GPU_VW, 16 * TA_GPU_VW);
        s->sx = 1;
        return;
    }
    s->vw = TA_GPU_VW;
    s->nt = 1;
    s->w = TA_GPU_VW;
    while ((u + s->w - 1) / s->w > max_team && s->w < 64 * TA_GPU_VW)
        s->w *= 2;
    s->sx = (int)((u + s->w - 1) / s->w);
}

/* Stage 0 cleared and set to reduce the whole tile at once (the final
 * stage), for the plans that take one stage. */
static ta_stage *whole_tile_stage(tdcl_ta_plan *p)
{
    ta_stage *s = &p->st[0];
    memset(s, 0, sizeof *s);
    s->t = p->o.tile_rows;
    s->u = p->o.tile_cols;
    s->rows = p->rows;
    s->cols = p->cols;
    s->orows = p->orows;
    s->ocols = p->ocols;
    s->final = 1;
    return s;
}

/* The gpu variant in one stage: a team of SX x SY items per tile, reduced
 * in local memory. 0 when the device's limits leave no such shape. */
static int plan_gpu_stage(tdcl_ta_plan *p)
{
    const tdcl_device_info *d = &p->ctx->dev;
    ta_stage *s = whole_tile_stage(p);
    int64_t max_team = (int64_t)p->max_wg < TA_GPU_TEAM ? (int64_t)p->max_wg : TA_GPU_TEAM;
    if ((int64_t)d->max_item_sizes[0] < max_team) max_team = (int64_t)d->max_item_sizes[0];
    shape_gpu_cols(s, max_team);
    int64_t rpi = s->t < TA_GPU_RPI ? s->t : TA_GPU_RPI;
    while (s->sx * ((s->t + rpi - 1) / rpi) > max_team && rpi < s->t)
        rpi *= 2;
    rpi = rpi < s->t ? rpi : s->t;
    s->rpi = (int)rpi;
    s->sy = (int)((s->t + rpi - 1) / rpi);
    if ((int64_t)s->sx * s->sy > max_team || (size_t)s->sy > d->max_item_sizes[1]) return 0;
    s->my = s->sy == 1 && s->t < 8 ? (int)(8 / s->t) : 1;
    int team = s->sx * s->sy;
    s->tx = team >= TA_GPU_WG ? 1 : TA_GPU_WG / team;
    while (s->tx > 1 &&
           ((size_t)(s->tx * team) > p->max_wg || (size_t)(s->tx * s->sx) > d->max_item_sizes[0]))
        s->tx /= 2;
    s->ty = 1;
    p->nstages = 1;
    return 1;
}

static int64_t pow2_floor(int64_t n)
{
    int64_t p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

static int64_t pow2_ceil(int64_t n)
{
    int64_t p = 1;
    while (p < n)
        p *= 2;
    return p;
}

/* The band variant's team: the one asked for, else one item per tile on a
 * CPU (no barrier) and a few interleaved vectors per item on a GPU; widened
 * until an item's vectors per row fit TA_BAND_KMAX. 0 when none fits. */
static int64_t band_team(const tdcl_ta_plan *p, int cpu, int64_t slots)
{
    int64_t bs = p->o.band_team;
    if (bs <= 0) {
        bs = cpu ? 1 : pow2_floor(slots / TA_BAND_SLOTS_GPU);
        if (!cpu && slots < TA_BAND_TEAM_MIN_GPU)
            bs = pow2_ceil(slots); /* one vector per item and row */
        else if (!cpu)
            bs = bs < TA_BAND_TEAM_MIN_GPU ? TA_BAND_TEAM_MIN_GPU
                 : bs > TA_BAND_TEAM_GPU   ? TA_BAND_TEAM_GPU
                                           : bs;
        while ((slots + bs - 1) / bs > TA_BAND_KMAX)
            bs *= 2;
    }
    if (!is_pow2(bs) || bs > TA_BAND_TEAM_MAX || (slots + bs - 1) / bs > TA_BAND_KMAX ||
        (size_t)bs > p->max_wg || (size_t)bs > p->ctx->dev.max_item_sizes[0])
        return 0;
    return bs;
}

/* Work-groups of about wg items: tiles side by side (tx), then item rows
 * (ty), neither past what the matrix needs nor past the device's limits. */
static void band_group(const tdcl_ta_plan *p, ta_stage *s, size_t wg)
{
    const tdcl_device_info *d = &p->ctx->dev;
    size_t bs = (size_t)s->sx, lim = wg < p->max_wg ? wg : p->max_wg;
    size_t tx = (size_t)pow2_floor((int64_t)(lim / bs));
    size_t need = (size_t)pow2_ceil(s->ocols);
    tx = tx < need ? tx : need;
    while (tx > 1 && tx * bs > d->max_item_sizes[0])
        tx /= 2;
    size_t ty = (size_t)pow2_floor((int64_t)(lim / (tx * bs)));
    need = (size_t)pow2_ceil((s->orows + s->my - 1) / s->my);
    ty = ty < need ? ty : need;
    while (ty > 1 && ty > d->max_item_sizes[1])
        ty /= 2;
    s->tx = (int)tx;
    s->ty = (int)ty;
}

/* The band variant in one stage (tile_avg_band). 0 when the tile does not
 * suit it here: too wide for the device's work-groups, or float
 * accumulators that would add more than 8 rows' values in a chain. */
static int plan_band_stage(tdcl_ta_plan *p, int cpu)
{
    ta_stage *s = whole_tile_stage(p);
    s->band = 1;
    s->vw = (int)gcd64(s->u, cpu ? TA_BAND_VW_CPU : TA_BAND_VW_GPU);
    int64_t slots = s->u / s->vw, bs = band_team(p, cpu, slots);
    if (!bs) return 0;
    s->sx = (int)bs;
    s->nt = (int)((slots + bs - 1) / bs);
    s->w = s->vw;
    s->rpi = (int)s->t;
    s->sy = 1;
    /* float chains: a slot's T rows, then at most TA_BAND_KMAX / 8 slots
     * per accumulator (the kernel's BNA), then trees */
    if (p->acc == TDCL_F32 && s->t > 8) return 0;
    int64_t loads = s->t * s->nt, want = cpu ? TA_BAND_LOADS_CPU : TA_BAND_LOADS_GPU;
    int64_t my = p->o.band_rows > 0 ? p->o.band_rows : want / loads;
    my = my < 1 ? 1 : my;
    if (p->o.band_rows <= 0 && my > TA_BAND_MY_MAX) my = TA_BAND_MY_MAX;
    if (p->o.band_rows <= 0 && my > p->orows) my = p->orows;
    s->my = (int)my;
    band_group(p, s, cpu ? TA_CPU_WG : TA_GPU_WG);
    p->nstages = 1;
    return 1;
}

/* Whether auto takes the band variant: on a CPU, a short tile too wide
 * for one cpu stage; on a GPU, a tile of fewer than 8 rows that the gpu
 * variant covers with a team along a single row of items, stacking 8 / T
 * tile rows per item to have enough loads: on an H200 the band variant
 * beat the gpu one on tiles of 1 to 6 rows, and the gpu variant reached
 * the copy from 8 rows on (docs/internals/tile-avg-kernels.md). */
static int band_suits(tdcl_ta_plan *p, int cpu)
{
    int64_t t = p->o.tile_rows, u = p->o.tile_cols;
    if (cpu) return t <= TA_CPU_TMAX && u > TA_CPU_UMAX && u % 4 == 0;
    if (!plan_gpu_stage(p)) return 1;
    return p->st[0].sx > 1 && p->st[0].sy == 1 && t < 8;
}

/* Bytes of __local memory a stage's kernel declares. */
static size_t stage_local_bytes(const ta_stage *s, size_t acc_size)
{
    if (s->band) return s->sx > 1 ? (size_t)s->ty * s->my * s->tx * (s->sx + 1) * acc_size : 0;
    int team = s->sx * s->sy;
    if (team <= 1) return 0;
    size_t s2 = 1;
    while (s2 < (size_t)team)
        s2 *= 2;
    int np = s->sx == 1 ? s->nt : 1;
    return (size_t)s->tx * s->ty * s->my * np * s2 * acc_size;
}

/* Shrinks work-groups until their local memory fits; 0 if it never does. */
static int fit_local(tdcl_ta_plan *p)
{
    size_t acc = tdcl_dtype_size(p->acc), limit = (size_t)p->ctx->dev.local_mem;
    for (int i = 0; i < p->nstages; i++) {
        ta_stage *s = &p->st[i];
        while (stage_local_bytes(s, acc) > limit && (s->ty > 1 || s->tx > 1 || s->my > 1)) {
            if (s->band && s->ty > 1)
                s->ty /= 2;
            else if (s->tx > 1)
                s->tx /= 2;
            else
                s->my /= 2;
        }
        if (stage_local_bytes(s, acc) > limit) return 0;
    }
    return 1;
}

/* One band of max_finite_abs: the largest finite |x| of elements
 * [n * i / parts, n * (i + 1) / parts). Bit patterns compare as magnitudes
 * once the sign is cleared, and every finite one is below infinity's. */
typedef struct maxabs_job {
    const tdcl_matrix *m;
    size_t n;
    int parts;
    double max[TDCL_POOL_MAX];
} maxabs_job;

static void maxabs_band(void *arg, int i)
{
    maxabs_job *j = arg;
    size_t k0 = j->n * (size_t)i / (size_t)j->parts, k1 = j->n * (size_t)(i + 1) / (size_t)j->parts;
    if (j->m->dtype == TDCL_F32) {
        const uint32_t *x = j->m->data;
        uint32_t mx = 0;
        for (size_t k = k0; k < k1; k++) {
            uint32_t u = x[k] & 0x7fffffffu;
            u = u < 0x7f800000u ? u : 0;
            mx = u > mx ? u : mx;
        }
        float f;
        memcpy(&f, &mx, sizeof f);
        j->max[i] = f;
    } else {
        const uint64_t *x = j->m->data;
        uint64_t mx = 0;
        for (size_t k = k0; k < k1; k++) {
            uint64_t u = x[k] & 0x7fffffffffffffffull;
            u = u < 0x7ff0000000000000ull ? u : 0;
            mx = u > mx ? u : mx;
        }
        memcpy(&j->max[i], &mx, sizeof mx);
    }
}

/* The largest finite |x| of a float matrix (0 for integers): whether a
 * tile's float sum can overflow. A pass over the whole input, so on
 * threads when it is large. */
static double max_finite_abs(const tdcl_matrix *m)
{
    if (m->dtype != TDCL_F32 && m->dtype != TDCL_F64) return 0;
    maxabs_job j = {.m = m, .n = tdcl_matrix_count(m), .parts = 1};
    if (j.n >= ((size_t)1 << 22)) j.parts = tdcl_pool_size(0, 16);
    tdcl_pool_run(j.parts, maxabs_band, &j);
    double mx = 0;
    for (int i = 0; i < j.parts; i++)
        mx = j.max[i] > mx ? j.max[i] : mx;
    return mx;
}

/* The input's largest finite |x|, found on first need: only float
 * accumulators (a tile's float sum could overflow) ask, so a device that
 * sums in double never scans the input. */
static double plan_maxabs(tdcl_ta_plan *p)
{
    if (!p->maxabs_known && p->in_host) {
        p->in_maxabs = max_finite_abs(p->in_host);
        p->maxabs_known = 1;
    }
    return p->in_maxabs;
}

/* Sets each stage's types and its global and local sizes. */
static void finish_stages(tdcl_ta_plan *p, tdcl_dtype dev_in)
{
    for (int i = 0; i < p->nstages; i++) {
        ta_stage *s = &p->st[i];
        s->in = i == 0 ? dev_in : p->acc;
        s->out = s->final ? p->out_type : p->acc;
        /* a cpu stage adds at most TA_CPU_TMAX rows per lane, then trees:
         * float sums of float input stay within 1e-6 of the mean |x|. Not
         * for single rows: PoCL's compiler then splits the vector loads
         * into pairs of lanes, while converting to double keeps them whole */
        s->racc = p->variant == TDCL_TA_CPU && s->in == TDCL_F32 && s->t > 1 ? TDCL_F32 : p->acc;
        /* ... unless a tile's float sum could overflow: the lean path adds
         * a whole tile in float, which would make the mean of finite
         * values infinite */
        if (s->racc == TDCL_F32 && plan_maxabs(p) * (double)s->t * (double)s->u > FLT_MAX / 2)
            s->racc = p->acc;
        if (s->band) {
            /* a slot's T rows: float, short enough, for float input */
            s->racc = s->in == TDCL_F32 && s->t <= 8 && plan_maxabs(p) * (double)s->t <= FLT_MAX / 2
                          ? TDCL_F32
                          : p->acc;
            size_t groups = (size_t)((s->ocols + s->tx - 1) / s->tx);
            size_t trows = (size_t)((s->orows + s->my - 1) / s->my);
            s->lws[0] = (size_t)s->tx * (size_t)s->sx;
            s->lws[1] = (size_t)s->ty;
            s->lws[2] = 1;
            s->gws[0] = groups * s->lws[0];
            s->gws[1] = round_up(trows, s->lws[1]);
            s->gws[2] = (size_t)p->channels;
            continue;
        }
        size_t runs = s->sx == 1 ? (size_t)((s->ocols + s->nt - 1) / s->nt)
                                 : (size_t)s->ocols * (size_t)s->sx;
        size_t trows = (size_t)((s->orows + s->my - 1) / s->my) * (size_t)s->sy;
        s->lws[0] = (size_t)s->tx * (size_t)s->sx;
        s->lws[1] = (size_t)s->ty * (size_t)s->sy;
        s->lws[2] = 1;
        s->gws[0] = round_up(runs, s->lws[0]);
        s->gws[1] = round_up(trows, s->lws[1]);
        s->gws[2] = (size_t)p->channels;
    }
}

static int plan_variant(tdcl_ta_plan *p, tdcl_ta_variant v)
{
    int cpu_dev = (p->ctx->dev.type & CL_DEVICE_TYPE_CPU) != 0;
    int ok = v == TDCL_TA_CPU   ? plan_cpu_stages(p)
             : v == TDCL_TA_GPU ? plan_gpu_stage(p)
                                : plan_band_stage(p, cpu_dev);
    return ok && fit_local(p);
}

/* Chooses the variant and every stage's shape. */
static tdcl_status plan_shapes(tdcl_ta_plan *p, tdcl_dtype dev_in, tdcl_err *err)
{
    int cpu_dev = (p->ctx->dev.type & CL_DEVICE_TYPE_CPU) != 0;
    tdcl_ta_variant dflt = cpu_dev ? TDCL_TA_CPU : TDCL_TA_GPU;
    tdcl_ta_variant v = p->o.variant;
    if (v == TDCL_TA_AUTO) v = band_suits(p, cpu_dev) ? TDCL_TA_BAND : dflt;
    /* each variant covers the others' gaps: a prime side too large for
     * stages, a team too large for the device, a band too wide */
    tdcl_ta_variant cand[4] = {v, dflt, dflt == TDCL_TA_CPU ? TDCL_TA_GPU : TDCL_TA_CPU,
                               TDCL_TA_BAND};
    int ok = 0;
    for (int i = 0; i < 4 && !ok; i++) {
        int seen = 0;
        for (int k = 0; k < i; k++)
            seen |= cand[k] == cand[i];
        if (seen) continue;
        if (i > 0)
            tdcl_log(TDCL_LOG_VERBOSE,
                     "tile-avg: the %s variant cannot run a %lldx%lld tile here; trying %s",
                     tdcl_ta_variant_name(v), (long long)p->o.tile_rows, (long long)p->o.tile_cols,
                     tdcl_ta_variant_name(cand[i]));
        v = cand[i];
        ok = plan_variant(p, v);
    }
    if (!ok)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "tile-avg: no launch shape for a %lldx%lld tile fits '%s' (max work-group "
                         "%zu, local memory %llu bytes)",
                         (long long)p->o.tile_rows, (long long)p->o.tile_cols,
                         p->ctx->dev.device_name, p->max_wg,
                         (unsigned long long)p->ctx->dev.local_mem);
    p->variant = v;
    finish_stages(p, dev_in);
    return TDCL_OK;
}

/* ---- programs ----------------------------------------------------------- */

#define cl_type ta_cl_type

/* PoCL builds vloadn from pairs of lanes where the kernel then folds them;
 * its compiler (clang) takes a dereference of an element-aligned vector
 * type as one unaligned vector load instead (the kernel's DEREF). */
static int is_pocl(const tdcl_ctx *ctx)
{
    return strstr(ctx->dev.platform_name, "Portable Computing Language") != NULL;
}

static void stage_options(const tdcl_ta_plan *p, const ta_stage *s, char *buf, size_t cap)
{
    const char *fp64 = p->acc == TDCL_F64 || s->in == TDCL_F64 ? " -DUSE_FP64" : "";
    const char *deref = is_pocl(p->ctx) ? " -DDEREF=1" : "";
    if (s->band) {
        snprintf(buf, cap,
                 "-DBAND=1 -DIN=%s -DACC=%s -DRACC=%s -DOUT=%s%s -DT=%lld -DU=%lld -DVW=%d -DBS=%d "
                 "-DBK=%d -DBG=%d -DBMY=%d -DBTY=%d%s",
                 cl_type(s->in), cl_type(p->acc), cl_type(s->racc), cl_type(s->out), fp64,
                 (long long)s->t, (long long)s->u, s->vw, s->sx, s->nt, s->tx, s->my, s->ty, deref);
        return;
    }
    snprintf(buf, cap,
             "-DIN=%s -DACC=%s -DRACC=%s -DOUT=%s%s -DT=%lld -DU=%lld -DLOG2U=%d -DVW=%d -DSX=%d "
             "-DNT=%d "
             "-DW=%d -DRPI=%d -DSY=%d -DMY=%d -DTX=%d -DTY=%d -DFINAL=%d -DCT=%lldL -DCU=%lldL%s",
             cl_type(s->in), cl_type(p->acc), cl_type(s->racc), cl_type(s->out), fp64,
             (long long)s->t, (long long)s->u, log2_exact(s->u), s->vw, s->sx, s->nt, s->w, s->rpi,
             s->sy, s->my, s->tx, s->ty, s->final, (long long)p->o.tile_rows,
             (long long)p->o.tile_cols, deref);
}

static void describe(tdcl_ta_plan *p)
{
    size_t n = (size_t)snprintf(p->desc, sizeof p->desc, "variant=%s acc=%s stages=%d",
                                tdcl_ta_variant_name(p->variant), cl_type(p->acc), p->nstages);
    for (int i = 0; i < p->nstages && n < sizeof p->desc; i++) {
        const ta_stage *s = &p->st[i];
        if (s->band) {
            n +=
                (size_t)snprintf(p->desc + n, sizeof p->desc - n,
                                 " [%lldx%lld %s sum=%s vw=%d team=%d slots=%d rows=%d wg=%zux%zu]",
                                 (long long)s->t, (long long)s->u, cl_type(s->in), cl_type(s->racc),
                                 s->vw, s->sx, s->nt, s->my, s->lws[0], s->lws[1]);
            continue;
        }
        n +=
            (size_t)snprintf(p->desc + n, sizeof p->desc - n,
                             " [%lldx%lld %s sum=%s vw=%d run=%d team=%dx%d rows=%dx%d wg=%zux%zu]",
                             (long long)s->t, (long long)s->u, cl_type(s->in), cl_type(s->racc),
                             s->vw, s->w, s->sx, s->sy, s->rpi, s->my, s->lws[0], s->lws[1]);
    }
}

static tdcl_status build_stages(tdcl_ta_plan *p, tdcl_err *err)
{
    static const char *const mean_files[] = {"tile_avg/prelude.cl", "tile_avg/mean.cl"};
    tdcl_status st = TDCL_OK;
    char opts[512];
    for (int i = 0; i < p->nstages; i++) {
        ta_stage *s = &p->st[i];
        stage_options(p, s, opts, sizeof opts);
        TDCL_TRY(tdcl_ctx_program_files(p->ctx, mean_files, 2, opts, &s->prog, err));
        const char *name = s->band ? "tile_avg_band" : "tile_avg";
        TDCL_TRY(tdcl_ctx_kernel(s->prog, name, &s->kern, err));
        TDCL_TRY(tdcl_kernel_local_check(p->ctx, s->kern, name, err));
    }
out:
    return st;
}

/* The smallest CL_KERNEL_WORK_GROUP_SIZE among the stages whose work-group
 * exceeds it (registers and local memory can make a kernel's limit lower
 * than the device's), or 0 when every stage fits. */
static size_t kernel_wg_shortfall(const tdcl_ta_plan *p)
{
    size_t worst = 0;
    for (int i = 0; i < p->nstages; i++) {
        const ta_stage *s = &p->st[i];
        size_t kwg = 0;
        if (clGetKernelWorkGroupInfo(s->kern, p->ctx->dev.device, CL_KERNEL_WORK_GROUP_SIZE,
                                     sizeof kwg, &kwg, NULL) != CL_SUCCESS ||
            kwg == 0)
            continue;
        if (s->lws[0] * s->lws[1] > kwg && (worst == 0 || kwg < worst)) worst = kwg;
    }
    return worst;
}

static void release_stages(tdcl_ta_plan *p)
{
    for (int i = 0; i < TA_MAX_STAGES; i++) {
        if (p->st[i].kern) clReleaseKernel(p->st[i].kern);
        if (p->st[i].prog) clReleaseProgram(p->st[i].prog);
        p->st[i].kern = NULL;
        p->st[i].prog = NULL;
    }
}

/* Chooses shapes and builds them; when a built kernel allows smaller
 * work-groups than planned, plans again within its limit. */
static tdcl_status plan_and_build(tdcl_ta_plan *p, tdcl_dtype dev_in, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    for (int attempt = 0; attempt < 4; attempt++) {
        TDCL_TRY(plan_shapes(p, dev_in, err));
        describe(p);
        TDCL_TRY(build_stages(p, err));
        size_t kwg = kernel_wg_shortfall(p);
        if (!kwg) {
            tdcl_log(TDCL_LOG_VERBOSE, "tile-avg: %s", p->desc);
            return TDCL_OK;
        }
        release_stages(p);
        size_t lim = 1;
        while (lim * 2 <= kwg)
            lim *= 2;
        tdcl_log(TDCL_LOG_VERBOSE,
                 "tile-avg: the kernel allows work-groups of %zu items; planning "
                 "again within %zu",
                 kwg, lim);
        p->max_wg = lim;
    }
    st = tdcl_fail(err, TDCL_ELIMIT,
                   "tile-avg: no work-group shape fits the kernel's limits on '%s'",
                   p->ctx->dev.device_name);
out:
    return st;
}

/* The interleaved plan: one stage of tile_reduce over the whole tile. */
static tdcl_status plan_reduce(tdcl_ta_plan *p, tdcl_dtype dev_in, tdcl_err *err)
{
    ta_stage *s = whole_tile_stage(p);
    s->in = dev_in;
    s->out = p->out_type;
    p->nstages = 1;
    tdcl_status st =
        ta_reduce_build(p->ctx, &p->o, p->channels, dev_in, p->out_type, p->acc, p->orows, p->ocols,
                        &s->prog, &s->kern, s->gws, s->lws, p->desc, sizeof p->desc, err);
    if (!st) tdcl_log(TDCL_LOG_VERBOSE, "tile-avg: %s", p->desc);
    return st;
}

/* ---- buffers ------------------------------------------------------------ */

/* The dtype the device reads: the input's, except float64 on a device
 * without fp64. */
static tdcl_dtype device_in_type(const tdcl_ta_plan *p, tdcl_dtype in)
{
    return in == TDCL_F64 && !p->ctx->dev.fp64 ? TDCL_F32 : in;
}

/* in as the device reads it: dtype dt, one plane per channel where planar
 * (else interleaved as it is). Returns in itself when nothing changes, else
 * a new matrix in *tmp. */
static tdcl_status device_layout(const tdcl_matrix *in, tdcl_dtype dt, int planar, tdcl_matrix *tmp,
                                 const tdcl_matrix **dev, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix conv = {0};
    const tdcl_matrix *src = in;
    *dev = in;
    if (in->dtype != dt) {
        TDCL_TRY(tdcl_matrix_convert(in, dt, &conv, err));
        src = &conv;
    }
    if (in->channels == 1 || !planar) {
        *tmp = conv;
        memset(&conv, 0, sizeof conv);
        *dev = src == in ? in : tmp;
        goto out;
    }
    TDCL_TRY(tdcl_matrix_alloc(tmp, in->rows, in->cols, in->channels, dt, err));
    size_t es = tdcl_dtype_size(dt), plane = (size_t)in->rows * (size_t)in->cols;
    const char *s = src->data;
    char *d = tmp->data;
    for (size_t k = 0; k < plane; k++)
        for (int c = 0; c < in->channels; c++)
            memcpy(d + ((size_t)c * plane + k) * es, s + (k * in->channels + c) * es, es);
    *dev = tmp;
out:
    tdcl_matrix_free(&conv);
    return st;
}

static tdcl_status make_buffer(tdcl_ta_plan *p, size_t bytes, cl_mem *buf, void *host,
                               tdcl_err *err)
{
    cl_int rc;
    if (bytes > p->ctx->dev.max_alloc)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "tile-avg: a %lldx%lld matrix needs a %.1f MiB buffer; '%s' allows %.1f "
                         "MiB",
                         (long long)p->rows, (long long)p->cols, bytes / 1048576.0,
                         p->ctx->dev.device_name, p->ctx->dev.max_alloc / 1048576.0);
    /* a CPU device's buffers are host memory: a failure there aborts PoCL */
    if (!host && (p->ctx->dev.type & CL_DEVICE_TYPE_CPU)) {
        tdcl_status st = tdcl_mem_check(bytes, "a tile-avg device buffer", 0, 0, err);
        if (st) return st;
    }
    *buf = clCreateBuffer(p->ctx->context, CL_MEM_READ_WRITE | (host ? CL_MEM_USE_HOST_PTR : 0),
                          bytes, host, &rc);
    if (rc != CL_SUCCESS)
        return tdcl_fail_cl(err, rc, "clCreateBuffer", "tile-avg: %.1f MiB", bytes / 1048576.0);
    return TDCL_OK;
}

/* Creates every stage's output buffer and uploads in to buf[0]. */
/* m's float elements times 2^e. */
static void scale_floats(tdcl_matrix *m, int e)
{
    size_t n = tdcl_matrix_count(m);
    if (m->dtype == TDCL_F32)
        for (size_t k = 0; k < n; k++)
            ((float *)m->data)[k] = ldexpf(((float *)m->data)[k], e);
    else if (m->dtype == TDCL_F64)
        for (size_t k = 0; k < n; k++)
            ((double *)m->data)[k] = ldexp(((double *)m->data)[k], e);
}

static tdcl_status upload(tdcl_ta_plan *p, const tdcl_matrix *in, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix tmp = {0}, scaled = {0};
    const tdcl_matrix *dev = NULL;
    double t0 = tdcl_now_ms();
    size_t bytes = 0;
    if (p->prescale) {
        /* scaled in the input's own type, before a float64 becomes float */
        TDCL_TRY(tdcl_matrix_convert(in, in->dtype, &scaled, err));
        scale_floats(&scaled, -p->prescale);
        in = &scaled;
    }
    TDCL_TRY(device_layout(in, p->st[0].in, !p->interleaved, &tmp, &dev, err));
    TDCL_TRY(tdcl_matrix_bytes(in->rows, in->cols, in->channels, p->st[0].in, &bytes, err));
    /* zero copy: a CPU device reads the caller's input where it is (not a
     * scaled copy, which goes before the plan does) */
    int in_place =
        p->borrow && !p->prescale && dev == in && (p->ctx->dev.type & CL_DEVICE_TYPE_CPU);
    TDCL_TRY(make_buffer(p, bytes, &p->buf[0], in_place ? in->data : NULL, err));
    for (int i = 0; i < p->nstages; i++) {
        const ta_stage *s = &p->st[i];
        TDCL_TRY(tdcl_matrix_bytes(s->orows, s->ocols, p->channels, s->out, &bytes, err));
        TDCL_TRY(make_buffer(p, bytes, &p->buf[i + 1], NULL, err));
    }
    TDCL_TRY(tdcl_matrix_bytes(in->rows, in->cols, in->channels, p->st[0].in, &bytes, err));
    if (!in_place) /* through pinned staging on a GPU (runtime/xfer.h) */
        TDCL_TRY(tdcl_xfer_upload(p->ctx, p->buf[0], 0, dev->data, bytes, err));
out:
    tdcl_matrix_free(&scaled);
    tdcl_matrix_free(&tmp);
    p->ctx->t.upload_ms += tdcl_now_ms() - t0;
    return st;
}

static tdcl_status set_args(tdcl_ta_plan *p, int i, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    ta_stage *s = &p->st[i];
    cl_ulong dims[6] = {(cl_ulong)s->rows,  (cl_ulong)s->cols, (cl_ulong)s->orows,
                        (cl_ulong)s->ocols, (cl_ulong)p->rows, (cl_ulong)p->cols};
    if (p->interleaved) { /* tile_reduce takes the tile instead */
        dims[4] = (cl_ulong)p->o.tile_rows;
        dims[5] = (cl_ulong)p->o.tile_cols;
    }
    TDCL_CL_TRY(err, clSetKernelArg(s->kern, 0, sizeof(cl_mem), &p->buf[i]), "clSetKernelArg");
    TDCL_CL_TRY(err, clSetKernelArg(s->kern, 1, sizeof(cl_mem), &p->buf[i + 1]), "clSetKernelArg");
    for (cl_uint a = 0; a < 6; a++)
        TDCL_CL_TRY(err, clSetKernelArg(s->kern, 2 + a, sizeof(cl_ulong), &dims[a]),
                    "clSetKernelArg");
out:
    return st;
}

/* ---- the plan ----------------------------------------------------------- */

/* The power of two by which values up to maxabs go down so that a sum of
 * cells of them stays below limit (0 when it does already). The ratio
 * first: maxabs * cells alone can overflow. */
static int prescale_for(double maxabs, double cells, double limit)
{
    double need = maxabs / limit * cells;
    return need > 1 ? (int)ceil(log2(need)) : 0;
}

/* The prescale a float64 input needs with float64 accumulators: a pass over
 * it, so asked for only where an overflow is possible. */
static int f64_prescale(const tdcl_ta_opts *o, const tdcl_matrix *in)
{
    if (in->dtype != TDCL_F64) return 0;
    return prescale_for(max_finite_abs(in), (double)o->tile_rows * (double)o->tile_cols,
                        DBL_MAX / 4);
}

/* tdcl_ta_plan_create, borrowing in when borrow is set (tdcl_ta_run).
 * f64_scale applies to float64 input with float64 accumulators: the
 * prescale to use, or -1 to find it from the input. */
static tdcl_status plan_create(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_matrix *in,
                               int borrow, int f64_scale, double maxabs, tdcl_ta_plan **out,
                               tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_ta_plan *p = NULL;
    *out = NULL;
    if (!in || !in->data || in->channels < 1 || in->channels > 4) {
        st = tdcl_fail(err, TDCL_EINVAL, "tile-avg: expected a matrix of 1 to 4 channels");
        goto out;
    }
    p = calloc(1, sizeof *p);
    if (!p) {
        st = tdcl_fail(err, TDCL_ENOMEM, "tile-avg: out of memory");
        goto out;
    }
    p->ctx = ctx;
    p->o = *o;
    p->borrow = borrow;
    p->rows = in->rows;
    p->cols = in->cols;
    p->channels = in->channels;
    TDCL_TRY(tdcl_ta_shape(o, in->rows, in->cols, &p->orows, &p->ocols, err));
    p->acc = use_f64(&ctx->dev, o) ? TDCL_F64 : TDCL_F32;
    p->out_type = tdcl_ta_result_type(&ctx->dev, o, in->dtype);
    p->max_wg = ctx->dev.max_wg;
    p->in_host = in;
    if (maxabs >= 0) { /* a part of a larger matrix: the whole's, not in's */
        p->in_maxabs = maxabs;
        p->maxabs_known = 1;
    }
    p->interleaved = ta_reduce_wanted(o, in->channels);
    if (p->interleaved) {
        TDCL_TRY(tdcl_ta_check(o, in->channels, in->dtype, err));
        TDCL_TRY(plan_reduce(p, device_in_type(p, in->dtype), err));
    } else if (p->acc == TDCL_F32 && plan_maxabs(p) > 0) {
        /* a tile's float sum past FLT_MAX / 4 could overflow: scale by a
         * power of two, which is exact (but for values near the smallest
         * floats, far below the mean's rounding) */
        p->prescale =
            prescale_for(p->in_maxabs, (double)o->tile_rows * (double)o->tile_cols, FLT_MAX / 4);
        p->in_maxabs = ldexp(p->in_maxabs, -p->prescale);
    } else if (p->acc == TDCL_F64 && in->dtype == TDCL_F64) {
        /* the same near DBL_MAX, where a tile's double sum overflows */
        p->prescale = f64_scale >= 0 ? f64_scale : f64_prescale(o, in);
    }
    if (!p->interleaved) TDCL_TRY(plan_and_build(p, device_in_type(p, in->dtype), err));
    p->in_host = NULL;
    TDCL_TRY(upload(p, in, err));
    for (int i = 0; i < p->nstages; i++)
        TDCL_TRY(set_args(p, i, err));
out:
    if (st) {
        tdcl_ta_plan_destroy(p);
        return st;
    }
    *out = p;
    return TDCL_OK;
}

tdcl_status tdcl_ta_plan_create(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_matrix *in,
                                tdcl_ta_plan **out, tdcl_err *err)
{
    return plan_create(ctx, o, in, 0, -1, -1, out, err);
}

tdcl_status tdcl_ta_plan_execute(tdcl_ta_plan *p, double *kernel_ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_event ev[TA_MAX_STAGES] = {0};
    int n = 0;
    double ms = 0;
    for (; n < p->nstages; n++) {
        const ta_stage *s = &p->st[n];
        TDCL_CL_TRY(err,
                    clEnqueueNDRangeKernel(p->ctx->queue, s->kern, 3, NULL, s->gws, s->lws, 0, NULL,
                                           &ev[n]),
                    "clEnqueueNDRangeKernel");
    }
    TDCL_CL_TRY(err, clWaitForEvents((cl_uint)n, ev), "clWaitForEvents");
    for (int i = 0; i < n; i++)
        ms += tdcl_event_ms(ev[i]);
    if (kernel_ms) *kernel_ms = ms;
out:
    for (int i = 0; i < n; i++)
        clReleaseEvent(ev[i]);
    return st;
}

tdcl_status tdcl_ta_plan_result(tdcl_ta_plan *p, tdcl_matrix *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix planar = {0};
    double t0 = tdcl_now_ms();
    size_t bytes = 0;
    memset(out, 0, sizeof *out);
    TDCL_TRY(tdcl_matrix_alloc(&planar, p->orows, p->ocols, p->channels, p->out_type, err));
    TDCL_TRY(tdcl_matrix_bytes(p->orows, p->ocols, p->channels, p->out_type, &bytes, err));
    TDCL_TRY(tdcl_xfer_read(p->ctx, p->buf[p->nstages], 0, planar.data, bytes, err));
    if (p->prescale) scale_floats(&planar, p->prescale);
    if (p->channels == 1 || p->interleaved) {
        *out = planar;
        memset(&planar, 0, sizeof planar);
        goto out;
    }
    TDCL_TRY(tdcl_matrix_alloc(out, p->orows, p->ocols, p->channels, p->out_type, err));
    size_t es = tdcl_dtype_size(p->out_type), plane = (size_t)p->orows * (size_t)p->ocols;
    const char *s = planar.data;
    char *d = out->data;
    for (size_t k = 0; k < plane; k++)
        for (int c = 0; c < p->channels; c++)
            memcpy(d + (k * p->channels + c) * es, s + ((size_t)c * plane + k) * es, es);
out:
    tdcl_matrix_free(&planar);
    p->ctx->t.download_ms += tdcl_now_ms() - t0;
    return st;
}

const char *tdcl_ta_plan_describe(const tdcl_ta_plan *p)
{
    return p ? p->desc : "";
}

void tdcl_ta_plan_destroy(tdcl_ta_plan *p)
{
    if (!p) return;
    release_stages(p);
    for (int i = 0; i <= TA_MAX_STAGES; i++)
        if (p->buf[i]) clReleaseMemObject(p->buf[i]);
    free(p);
}

/* Whether any element of a float64 matrix is infinite or NaN. */
static int any_nonfinite_f64(const tdcl_matrix *m)
{
    if (m->dtype != TDCL_F64) return 0;
    const double *x = m->data;
    for (size_t k = 0; k < tdcl_matrix_count(m); k++)
        if (!isfinite(x[k])) return 1;
    return 0;
}

static tdcl_status run_once(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_matrix *in,
                            tdcl_matrix *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_ta_plan *p = NULL;
    double ms = 0;
    int scale = 0;
    memset(out, 0, sizeof *out);
    /* in outlives the plan here: a CPU device reads it in place. Float64
     * input runs unscaled first, without a pass over the input: only a
     * mean that came out infinite or NaN (few: the result is a tile's
     * part of the input) sends it through the scan, and a run again
     * scaled where finite values overflowed a tile's sum */
    for (;;) {
        TDCL_TRY(plan_create(ctx, o, in, 1, scale, -1, &p, err));
        TDCL_TRY(tdcl_ta_plan_execute(p, &ms, err));
        ctx->t.kernel_ms += ms;
        TDCL_TRY(tdcl_ta_plan_result(p, out, err));
        if (scale || p->interleaved || p->acc != TDCL_F64 || !any_nonfinite_f64(out)) break;
        scale = f64_prescale(o, in);
        if (!scale) break;
        tdcl_ta_plan_destroy(p);
        p = NULL;
        tdcl_matrix_free(out);
    }
out:
    tdcl_ta_plan_destroy(p);
    return st;
}

/* The rows of a band (whole blocks of 8 tile rows, as the shards' bands:
 * the kernels' rows per work-item divide 8, so a band adds its tiles as
 * the whole does) whose buffers fit the device where in's do not: input
 * and means within the largest buffer and half the memory, with room for
 * the last band's rows past a band (fewer than a tile's, which could not
 * be a band of their own). 0: in fits whole, or not even a block does
 * (the plan then refuses, naming the limit). */
static int64_t band_rows(const tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_matrix *in)
{
    const tdcl_device_info *d = &ctx->dev;
    int64_t orows, ocols;
    if (tdcl_ta_shape(o, in->rows, in->cols, &orows, &ocols, NULL) != TDCL_OK) return 0;
    tdcl_dtype dt = in->dtype == TDCL_F64 && !d->fp64 ? TDCL_F32 : in->dtype;
    double in_row = (double)in->cols * in->channels * (double)tdcl_dtype_size(dt);
    double out_row = (double)ocols * in->channels * 8.0; /* per tile row, at most float64 */
    double buf = (double)d->max_alloc, mem = (double)d->global_mem / 2;
    double whole_in = in_row * (double)in->rows, whole_out = out_row * (double)orows;
    if (whole_in <= buf && whole_out <= buf && whole_in + whole_out <= mem) return 0;
    double block_in = 8.0 * (double)o->tile_rows * in_row, block_out = 8.0 * out_row;
    double extra = (double)o->tile_rows * (in_row + out_row); /* the last band's rows past */
    double by_buf = floor((buf - extra) / block_in),
           by_mem = floor((mem - extra) / (block_in + block_out));
    int64_t blocks = (int64_t)(by_buf < by_mem ? by_buf : by_mem);
    return blocks >= 1 ? blocks * 8 * o->tile_rows : 0;
}

/* in in bands of band rows, each planned, run and read back in turn into
 * its rows of out; the last takes the rows left, and the one before it
 * takes them too where they are fewer than a tile's. */
static tdcl_status run_bands(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_matrix *in,
                             int64_t band, tdcl_matrix *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix part = {0};
    int64_t orows, ocols, nb = 0;
    size_t in_row = (size_t)in->cols * (size_t)in->channels * tdcl_dtype_size(in->dtype);
    TDCL_TRY(tdcl_ta_shape(o, in->rows, in->cols, &orows, &ocols, err));
    for (int64_t r0 = 0; r0 < in->rows; r0 += band) {
        tdcl_matrix view = *in;
        int64_t rest = in->rows - r0;
        view.data = (char *)in->data + (size_t)r0 * in_row;
        view.rows = rest < band + o->tile_rows ? rest : band;
        nb++;
        TDCL_TRY(run_once(ctx, o, &view, &part, err));
        if (!out->data)
            TDCL_TRY(tdcl_matrix_alloc(out, orows, ocols, part.channels, part.dtype, err));
        size_t out_row = (size_t)ocols * (size_t)part.channels * tdcl_dtype_size(part.dtype);
        memcpy((char *)out->data + (size_t)(r0 / o->tile_rows) * out_row, part.data,
               (size_t)part.rows * out_row);
        tdcl_matrix_free(&part);
        if (view.rows > band) break;
    }
    tdcl_log(TDCL_LOG_VERBOSE,
             "tile-avg: %lld rows in %lld bands of up to %lld rows (the device's largest buffer "
             "%.1f MiB, memory %.1f MiB)",
             (long long)in->rows, (long long)nb, (long long)band, ctx->dev.max_alloc / 1048576.0,
             ctx->dev.global_mem / 1048576.0);
out:
    tdcl_matrix_free(&part);
    if (st) tdcl_matrix_free(out);
    return st;
}

tdcl_status tdcl_ta_run(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_matrix *in,
                        tdcl_matrix *out, tdcl_err *err)
{
    memset(out, 0, sizeof *out);
    int64_t band = in && in->data ? band_rows(ctx, o, in) : 0;
    if (band <= 0 || band >= in->rows) return run_once(ctx, o, in, out, err);
    return run_bands(ctx, o, in, band, out, err);
}

/* ---- parts of a matrix streamed in bands ------------------------------- */

double tdcl_ta_max_finite_abs(const tdcl_matrix *m)
{
    return max_finite_abs(m);
}

int tdcl_ta_maxabs_matters(const tdcl_ta_opts *o, double maxabs)
{
    /* the lowest of the plan's bounds: the float prescale's (a stage's
     * register sums and the band variant's switch at FLT_MAX / 2, over at
     * most the tile's cells) */
    return prescale_for(maxabs, (double)o->tile_rows * (double)o->tile_cols, FLT_MAX / 4) > 0;
}

int tdcl_ta_f64_scale(const tdcl_ta_opts *o, double maxabs)
{
    return prescale_for(maxabs, (double)o->tile_rows * (double)o->tile_cols, DBL_MAX / 4);
}

tdcl_status tdcl_ta_run_part(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_matrix *in,
                             double maxabs, int f64_scale, tdcl_matrix *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_ta_plan *p = NULL;
    double ms = 0;
    memset(out, 0, sizeof *out);
    TDCL_TRY(plan_create(ctx, o, in, 1, f64_scale, maxabs < 0 ? 0 : maxabs, &p, err));
    TDCL_TRY(tdcl_ta_plan_execute(p, &ms, err));
    ctx->t.kernel_ms += ms;
    TDCL_TRY(tdcl_ta_plan_result(p, out, err));
out:
    tdcl_ta_plan_destroy(p);
    return st;
}

/* ---- the host reference ------------------------------------------------- */

tdcl_status tdcl_ta_reference(const tdcl_ta_opts *o, const tdcl_matrix *in, tdcl_matrix *out,
                              tdcl_matrix *mean_abs, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t orows, ocols, t = o->tile_rows, u = o->tile_cols;
    int ch = in->channels;
    memset(out, 0, sizeof *out);
    if (mean_abs) memset(mean_abs, 0, sizeof *mean_abs);
    TDCL_TRY(tdcl_ta_shape(o, in->rows, in->cols, &orows, &ocols, err));
    TDCL_TRY(tdcl_matrix_alloc(out, orows, ocols, ch, TDCL_F64, err));
    if (mean_abs) TDCL_TRY(tdcl_matrix_alloc(mean_abs, orows, ocols, ch, TDCL_F64, err));
    double *m = out->data, *ma = mean_abs ? mean_abs->data : NULL;
    /* near DBL_MAX the sums go scaled by a power of two, so the mean of
     * finite values is finite here too and an infinite result is caught */
    const int e = prescale_for(max_finite_abs(in), (double)t * (double)u, DBL_MAX / 4);
    for (int64_t i = 0; i < in->rows; i++)
        for (int64_t j = 0; j < in->cols; j++)
            for (int c = 0; c < ch; c++) {
                size_t k = ((size_t)(i / t) * (size_t)ocols + (size_t)(j / u)) * ch + c;
                double v = tdcl_matrix_get_f64(in, ((size_t)i * (size_t)in->cols + j) * ch + c);
                if (e) v = ldexp(v, -e);
                m[k] += v;
                if (ma) ma[k] += fabs(v);
            }
    for (int64_t ti = 0; ti < orows; ti++)
        for (int64_t tj = 0; tj < ocols; tj++) {
            double n = (double)((ti + 1) * t < in->rows ? t : in->rows - ti * t) *
                       (double)((tj + 1) * u < in->cols ? u : in->cols - tj * u);
            for (int c = 0; c < ch; c++) {
                size_t k = ((size_t)ti * (size_t)ocols + (size_t)tj) * ch + c;
                m[k] = ldexp(m[k] / n, e);
                if (ma) ma[k] = ldexp(ma[k] / n, e);
            }
        }
out:
    if (st) {
        tdcl_matrix_free(out);
        tdcl_matrix_free(mean_abs);
    }
    return st;
}

/* Element k of got against ref's: equal (NaN for NaN) where exact, else
 * within a share of abs_sum; *e receives that share (0 where exact). */
static int element_agrees(const tdcl_matrix *got, const tdcl_matrix *ref,
                          const tdcl_matrix *abs_sum, size_t k, double *e)
{
    *e = 0;
    if (tdcl_dtype_is_int(got->dtype))
        return tdcl_matrix_get_i64(got, k) == tdcl_matrix_get_i64(ref, k);
    double g = tdcl_matrix_get_f64(got, k), r = tdcl_matrix_get_f64(ref, k);
    if (isnan(r) || isnan(g)) return isnan(r) && isnan(g);
    if (!abs_sum->data || g == r) return g == r;
    double a = ((const double *)abs_sum->data)[k];
    *e = a > 0 ? fabs(g - r) / a : INFINITY;
    return 1;
}

/* tdcl_ta_compare for every result but a float mean: against
 * tdcl_ta_reference_op, exactly but for float sums. */
static tdcl_status compare_op(const tdcl_ta_opts *o, const tdcl_matrix *in, const tdcl_matrix *got,
                              double *max_rel_err, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix ref = {0}, abs_sum = {0};
    int approx = o->op == TDCL_TA_SUM && !tdcl_dtype_is_int(got->dtype);
    double worst = 0, e;
    TDCL_TRY(tdcl_ta_reference_op(o, in, got->dtype, &ref, approx ? &abs_sum : NULL, err));
    if (got->rows != ref.rows || got->cols != ref.cols || got->channels != ref.channels) {
        st = tdcl_fail(err, TDCL_EVERIFY, "tile-avg: expected a %lldx%lld result, got %lldx%lld",
                       (long long)ref.rows, (long long)ref.cols, (long long)got->rows,
                       (long long)got->cols);
        goto out;
    }
    for (size_t k = 0; k < tdcl_matrix_count(&ref); k++) {
        if (element_agrees(got, &ref, &abs_sum, k, &e)) {
            worst = e > worst ? e : worst;
            continue;
        }
        char where[96];
        st = tdcl_fail(err, TDCL_EVERIFY,
                       "tile-avg: the %s at %s is %.17g where the host reference is %.17g",
                       tdcl_ta_op_name(o->op), tdcl_matrix_where(&ref, k, where, sizeof where),
                       tdcl_matrix_get_f64(got, k), tdcl_matrix_get_f64(&ref, k));
        goto out;
    }
    *max_rel_err = worst;
out:
    tdcl_matrix_free(&ref);
    tdcl_matrix_free(&abs_sum);
    return st;
}

tdcl_status tdcl_ta_compare(const tdcl_ta_opts *o, const tdcl_matrix *in, const tdcl_matrix *got,
                            double *max_rel_err, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix ref = {0}, ma = {0};
    double worst = 0;
    if (o->op != TDCL_TA_MEAN || tdcl_dtype_is_int(got->dtype))
        return compare_op(o, in, got, max_rel_err, err);
    TDCL_TRY(tdcl_ta_reference(o, in, &ref, &ma, err));
    if (got->rows != ref.rows || got->cols != ref.cols || got->channels != ref.channels) {
        st = tdcl_fail(err, TDCL_EVERIFY, "tile-avg: expected a %lldx%lld result, got %lldx%lld",
                       (long long)ref.rows, (long long)ref.cols, (long long)got->rows,
                       (long long)got->cols);
        goto out;
    }
    const double *r = ref.data, *a = ma.data;
    for (size_t k = 0; k < tdcl_matrix_count(&ref); k++) {
        double g = tdcl_matrix_get_f64(got, k);
        if (!isfinite(r[k]) || !isfinite(g)) {
            /* NaN for NaN, the same infinity for an infinity, and a finite
             * mean where the reference is finite */
            if (isnan(r[k]) ? isnan(g) : g == r[k]) continue;
            char where[96];
            st = tdcl_fail(err, TDCL_EVERIFY,
                           "tile-avg: the mean at %s is %g where the float64 host reference is "
                           "%g (a NaN mean must be NaN, an infinite one the same infinity, a "
                           "finite one finite)",
                           tdcl_matrix_where(&ref, k, where, sizeof where), g, r[k]);
            goto out;
        }
        double d = fabs(g - r[k]);
        double e = a[k] > 0 ? d / a[k] : (d == 0 ? 0 : INFINITY);
        if (!(e <= worst)) /* also catches NaN */
            worst = isnan(e) ? INFINITY : e;
    }
    *max_rel_err = worst;
out:
    tdcl_matrix_free(&ref);
    tdcl_matrix_free(&ma);
    return st;
}

tdcl_status tdcl_ta_retype(tdcl_matrix *res, tdcl_dtype to, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix rounded = {0}, conv = {0};
    const tdcl_matrix *src = res;
    if (res->dtype == to) return TDCL_OK;
    if (tdcl_dtype_is_int(to) && !tdcl_dtype_is_int(res->dtype)) {
        TDCL_TRY(tdcl_matrix_convert(res, TDCL_F64, &rounded, err));
        double *x = rounded.data;
        for (size_t k = 0; k < tdcl_matrix_count(&rounded); k++)
            x[k] = floor(x[k] + 0.5); /* NaN stays NaN: narrow names it */
        src = &rounded;
    }
    TDCL_TRY(tdcl_matrix_narrow(src, to, 0, &conv, err));
    tdcl_matrix_free(res);
    *res = conv;
    memset(&conv, 0, sizeof conv);
out:
    tdcl_matrix_free(&rounded);
    tdcl_matrix_free(&conv);
    return st;
}
