/* Panels: the product split into pieces whose buffers fit the device's
 * allocation limit and memory, in whole blocks of the kernel, and the
 * split last wave of the gpu kernel, whose workspace counts among them. */
#include "ops/matmul/mm_plan.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Panel extents stay within int kernel arguments with room to spare. */
#define MM_MAX_PANEL_DIM ((int64_t)1 << 30)

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
tdcl_mm_tail tdcl_mm_tail_plan(const tdcl_mm_plan *p, int64_t mi, int64_t ki, int64_t nj)
{
    const tdcl_mm_params *x = &p->par;
    if (p->kind != TDCL_MM_GPU) return (tdcl_mm_tail){0, 0, 1, ki};
    int64_t tiles = tdcl_mm_ceil_div(mi, x->bm) * tdcl_mm_ceil_div(nj, x->bn);
    tdcl_mm_tail whole = {tiles, 0, 1, ki}, t = whole;
    int forced = x->tail > 1, gpu = (p->ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    if (x->ksplit > 1 || x->tail == 1 || (!forced && !gpu)) return whole;
    int64_t cu = p->ctx->dev.compute_units ? p->ctx->dev.compute_units : 1;
    int64_t per_cu = groups_per_cu(x), wave = cu * per_cu, rest = tiles % wave;
    if (forced && rest == 0) rest = tiles < wave ? tiles : wave;
    if (rest == 0 || (!forced && (tiles < wave || 4 * rest > 3 * wave || per_cu > 4))) return whole;
    int64_t s = x->tail;
    if (!forced) {
        int64_t most = ki / (8 * (int64_t)x->bk);
        s = tdcl_mm_ceil_div(4 * wave, rest);
        s = s > 16 ? 16 : s;
        s = s > most ? most : s;
    }
    if (s < 2) return whole;
    t.kchunk = tdcl_mm_round_up(tdcl_mm_ceil_div(ki, s), x->bk);
    t.slices = tdcl_mm_ceil_div(ki, t.kchunk);
    if (t.slices < 2 || (double)rest * t.slices * x->bm * x->bn > p->tail_cap) return whole;
    t.first = tiles - rest, t.tiles = rest;
    return t;
}

/* Elements of the split last wave's workspace for panels of d, the
 * smaller panels at the ends included (their waves split differently). */
double tdcl_mm_tail_elems(const tdcl_mm_plan *p, const int64_t d[3])
{
    const int64_t full[3] = {p->M, p->K, p->N};
    double most = 0;
    for (int c = 0; c < 8; c++) {
        int64_t e[3];
        for (int i = 0; i < 3; i++) {
            int64_t r = full[i] % d[i];
            e[i] = (c >> i & 1) && r ? r : d[i];
        }
        tdcl_mm_tail t = tdcl_mm_tail_plan(p, e[0], e[1], e[2]);
        double w = (double)t.tiles * (double)t.slices * p->par.bm * p->par.bn;
        most = w > most ? w : most;
    }
    return most;
}

/* Element counts of the buffers of a pm x pk x pn panel: A, B, C, for the
 * CPU kernel the packed Ap, Bp (padded to whole blocks), for the GPU
 * kernel A transposed (rows padded to 4) and the K-split workspace. */
void tdcl_mm_panel_sizes(const tdcl_mm_plan *p, const int64_t d[3], double n[TDCL_MM_NBUFS])
{
    n[0] = (double)d[0] * d[1];
    n[1] = (double)d[1] * d[2];
    n[2] = (double)d[0] * d[2];
    n[3] = n[4] = n[5] = n[6] = 0;
    if (p->kind == TDCL_MM_CPU) {
        n[3] = (double)tdcl_mm_round_up(d[0], p->par.mr) * d[1];
        n[4] = (double)d[1] * tdcl_mm_round_up(d[2], (int64_t)p->par.nv * p->par.vw);
    }
    if (p->kind == TDCL_MM_GPU && p->par.atrans == 2)
        n[5] = (double)tdcl_mm_round_up(d[0], 4) * d[1];
    if (p->kind == TDCL_MM_GPU && p->par.ksplit > 1)
        n[6] = (double)p->par.ksplit * (double)d[0] * d[2];
    if (p->kind == TDCL_MM_GPU && p->par.ksplit == 1) n[6] = tdcl_mm_tail_elems(p, d);
}

/* Which two of (m, k, n) each buffer spans. */
static const int buf_dims[TDCL_MM_NBUFS][2] = {{0, 1}, {1, 2}, {0, 2}, {0, 1},
                                               {1, 2}, {0, 1}, {0, 2}};

/* Halves the larger dimension of the buffer that is over its limit (or the
 * largest one when the sum is over budget); 0 when nothing can shrink. */
static int shrink_panel(int64_t d[3], const int64_t g[3], const double n[TDCL_MM_NBUFS],
                        double limit, double budget)
{
    int worst = -1;
    double sum = 0;
    for (int i = 0; i < TDCL_MM_NBUFS; i++) {
        sum += n[i];
        if (n[i] > limit && (worst < 0 || n[i] > n[worst])) worst = i;
    }
    if (worst < 0 && sum > budget)
        for (int i = 0; i < TDCL_MM_NBUFS; i++)
            if (worst < 0 || n[i] > n[worst]) worst = i;
    for (int i = 0; i < 3; i++)
        if (d[i] > MM_MAX_PANEL_DIM) return d[i] = MM_MAX_PANEL_DIM, 1;
    if (worst < 0) return 1;
    int a = buf_dims[worst][0], b = buf_dims[worst][1];
    int pick = d[a] >= d[b] ? a : b;
    if (d[pick] <= 1) pick = pick == a ? b : a;
    if (d[pick] <= 1) return 0;
    int64_t half = d[pick] / 2;
    int64_t r = half >= g[pick] ? tdcl_mm_round_up(half, g[pick]) : half;
    d[pick] = r < d[pick] ? r : half;
    return 1;
}

/* Row panels overlapped with their copies (mm_exec.c's pipeline), on a
 * plan that holds B whole. Chosen only where the whole product fits (two
 * slots of smaller panels then fit too), the copies cross a bus (not a
 * CPU device) and C is large: at most 8 panels of at least 64 MiB of C,
 * as the first panel's upload and the last one's download stay exposed,
 * an eighth of each, while each panel's tiles still fill the device many
 * times over. */
#define PIPE_MIN_BYTES ((double)(64 << 20))
#define PIPE_MOST 8

static void plan_pipe(tdcl_mm_plan *p, const tdcl_mm_opts *o, const int64_t g[3])
{
    int64_t rows = 0;
    const char *env = getenv("TILEDCL_MM_PANEL_ROWS");
    if (!o->panel_rows || p->npk > 1 || p->npn > 1) return;
    if (env && *env) {
        rows = strtoll(env, NULL, 10);
    } else if (o->panel_rows > 0) {
        rows = o->panel_rows;
    } else if (p->npm == 1 && !(p->ctx->dev.type & CL_DEVICE_TYPE_CPU)) {
        int64_t n = (int64_t)((double)p->M * (double)p->N * (double)p->esz / PIPE_MIN_BYTES);
        n = n > PIPE_MOST ? PIPE_MOST : n;
        if (n >= 2) rows = tdcl_mm_round_up(tdcl_mm_ceil_div(p->M, n), g[0]);
    }
    rows = rows > p->pm ? p->pm : rows; /* within the panel that fits */
    if (rows <= 0 || rows >= p->M) return;
    p->pipe = 1;
    p->pm = rows;
    p->npm = tdcl_mm_ceil_div(p->M, rows);
}

tdcl_status tdcl_mm_plan_panels(tdcl_mm_plan *p, const tdcl_mm_opts *o, tdcl_err *err)
{
    const tdcl_device_info *dev = &p->ctx->dev;
    size_t limit = dev->max_alloc;
    if (o->max_alloc && o->max_alloc < limit) limit = o->max_alloc;
    double lim = (double)limit / (double)p->esz;
    double budget = 0.8 * (double)dev->global_mem / (double)p->esz;
    int64_t d[3] = {p->M, p->K, p->N}, full[3] = {p->M, p->K, p->N}, g[3];
    /* a split last wave is a gain, not a need: it never shrinks the panels */
    p->tail_cap = lim < budget / 16 ? lim : budget / 16;
    double n[TDCL_MM_NBUFS];
    panel_grain(p, g);
    for (;;) {
        tdcl_mm_panel_sizes(p, d, n);
        int over = d[0] > MM_MAX_PANEL_DIM || d[1] > MM_MAX_PANEL_DIM || d[2] > MM_MAX_PANEL_DIM;
        double sum = 0;
        for (int i = 0; i < TDCL_MM_NBUFS; i++)
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
        *cnt[i] = tdcl_mm_ceil_div(full[i], d[i]);
        int64_t e = tdcl_mm_ceil_div(full[i], *cnt[i]);
        if (*cnt[i] > 1 && tdcl_mm_round_up(e, g[i]) <= d[i]) e = tdcl_mm_round_up(e, g[i]);
        *ext[i] = e;
        *cnt[i] = tdcl_mm_ceil_div(full[i], e);
    }
    plan_pipe(p, o, g);
    tdcl_mm_panel_sizes(p, d, n);
    double most = 0;
    for (int i = 0; i < TDCL_MM_NBUFS; i++)
        most = n[i] > most ? n[i] : most;
    p->idx_int = most + 65536.0 < (double)INT_MAX;
    return TDCL_OK;
}
