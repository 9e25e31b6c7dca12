/* Life's kernel and shape choice: the shape (life_cfg) a grid gets on a
 * device, found from the device's description and the options alone; the
 * plan (life.c) builds and runs it. */
#include "ops/life/life_choice.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"

const char *const tdcl_life_mode_names[] = {"tiles",  "bands", "single",
                                            "global", "block", "stream"};

/* Local memory life_bits's tile takes: ly*s rows and a spare one above
 * and below, lx*vx words across, once or twice. */
static size_t bits_local(const life_cfg *c)
{
    return (size_t)(c->dbuf ? 2 : 1) * (size_t)(c->ly * c->s + 2) * (size_t)(c->lx * c->vx) *
           (size_t)(c->wb / 8);
}

/* Local memory life_band's two bands take: s + 2k rows and a zero row,
 * each of the row's vectors and a vector of pad each side. */
size_t tdcl_life_block_local(const life_cfg *c, int64_t nw)
{
    int64_t nvw = (nw + c->vw - 1) / c->vw;
    return (size_t)2 * (size_t)(c->s + 2 * c->k + 1) * (size_t)(nvw + 2) * (size_t)c->vw *
           (size_t)(c->wb / 8);
}

/* life_stream: at most this many generations a launch (the levels'
 * registers); the default chunk of rows a row of work-items streams, and
 * rows of work-items a group. */
enum { STREAM_KMAX = 16, STREAM_S = 192, STREAM_LY = 4, STREAM_LX = 32 };

/* life_stream's rows of work-items across a grid of nw words (each keeps
 * lx - 2 of its words) and down its rows (chunks of s): the warps on
 * NVIDIA. */
int64_t tdcl_life_stream_cols(int64_t nw, int lx)
{
    return (nw + lx - 3) / (lx - 2);
}

int64_t tdcl_life_stream_chunks(int64_t rows, int s)
{
    return (rows + s - 1) / s;
}

/* Local memory life_stream exchanges neighbours through where it has no
 * shuffle (the host passes SHFL only for NVIDIA and 32 words across). */
static size_t stream_local(const life_cfg *c)
{
    return (size_t)c->ly * 2 * (size_t)c->lx * 4;
}

/* The device's compute units, at least 1 (a driver may report 0). */
int64_t tdcl_life_compute_units(const tdcl_device_info *d)
{
    return d->compute_units ? (int64_t)d->compute_units : 1;
}

/* Whether the tile in registers trades neighbours across by shuffles
 * (NVIDIA, a warp across) rather than through local memory. */
int tdcl_life_reg_shfl(const tdcl_device_info *d, const life_cfg *c)
{
    return c->lx == 32 && tdcl_life_nv_options(d);
}

/* Local memory the tile in registers takes: each work-item's top and bottom
 * row sums, twice; without the shuffle also every row's halves, twice. */
static size_t reg_local(const life_cfg *c, int shfl)
{
    size_t items = (size_t)c->lx * (size_t)c->ly;
    return 2 * items * 4 * 8 + (shfl ? 0 : 2 * items * (size_t)c->s * 8);
}

/* Devices life_flow's hand-over is written for (cl/life/prelude.cl's FLOWNV):
 * NVIDIA's, by inline PTX, and CPUs, where mem_fence is a full fence. */
static int flow_device(const tdcl_device_info *d)
{
    return tdcl_life_nv_options(d) || (d->type & CL_DEVICE_TYPE_CPU);
}

/* The tiles of a life_flow step over rows x nw words, or 0 where the
 * shape cannot run it: every tile's halo must lie in the 8 tiles around it
 * (at least k rows and 2 words out), and a step's tickets fit. */
static int64_t flow_tiles_of(const life_cfg *c, int64_t rows, int64_t nw)
{
    const int64_t out_r = (int64_t)c->ly * c->s - 2 * c->k, out_w = (int64_t)c->lx * c->vx - 2;
    if (c->mode != MODE_TILES || out_r < c->k || out_w < 2) return 0;
    const int64_t tiles = ((rows + out_r - 1) / out_r) * ((nw + out_w - 1) / out_w);
    return tiles <= FLOW_MAX_TICKETS ? tiles : 0;
}

/* Local memory a compiler may add to the tile's (NVIDIA's adds 8 bytes to
 * life_bits): a shape that fills the device to the byte would be refused
 * after its build. */
enum { LOCAL_SLACK = 64 };

/* 1 if the configuration is within the device's stated limits and
 * covers a grid of rows x nw words as its mode needs. */
static int cfg_fits(const tdcl_device_info *d, const life_cfg *c, int64_t rows, int64_t nw)
{
    if (!c->bits)
        return (size_t)(c->ts * c->ts) <= d->max_wg && (size_t)c->ts <= d->max_item_sizes[0] &&
               (size_t)c->ts <= d->max_item_sizes[1] &&
               (size_t)(c->ts + 2) * (size_t)(c->ts + 2) <= d->local_mem;
    if (c->lx < 1 || c->ly < 1 || c->s < 1 || (size_t)(c->lx * c->ly) > d->max_wg ||
        (size_t)c->lx > d->max_item_sizes[0] || (size_t)c->ly > d->max_item_sizes[1])
        return 0;
    if (c->mode == MODE_GLOBAL) return c->vw == 1 || c->vw == 2 || c->vw == 4 || c->vw == 8;
    if (c->mode == MODE_STREAM) /* one halo word each side: the creep's reach */
        return (c->wb == 64 || c->wb == 32) && c->vx == 1 && c->lx >= 3 && c->k >= 1 &&
               c->k <= STREAM_KMAX && stream_local(c) + LOCAL_SLACK <= d->local_mem;
    if (c->mode == MODE_BLOCK)
        return (c->vw == 1 || c->vw == 2 || c->vw == 4 || c->vw == 8) && c->k >= 1 &&
               tdcl_life_block_local(c, nw) + LOCAL_SLACK <= d->local_mem;
    const int64_t er = (int64_t)c->ly * c->s, tw = (int64_t)c->lx * c->vx;
    if (c->reg && (c->mode != MODE_TILES || c->wb != 64 || c->vx != 1 || c->dbuf || !c->halves ||
                   reg_local(c, tdcl_life_reg_shfl(d, c)) + LOCAL_SLACK > d->local_mem))
        return 0;
    if ((c->vx != 1 && c->vx != 2 && c->vx != 4) ||
        (!c->reg && bits_local(c) + LOCAL_SLACK > d->local_mem))
        return 0;
    if (c->flow && (!flow_tiles_of(c, rows, nw) || !flow_device(d))) return 0;
    switch (c->mode) {
    case MODE_TILES: /* one halo word each side: the creep's reach */
        return c->k >= 1 && c->k <= c->wb && er > 2 * c->k && tw > 2;
    case MODE_BANDS:
        return c->k >= 1 && er > 2 * c->k && tw >= nw;
    default:
        return tw >= nw && er >= rows;
    }
}

/* The GPU layout for GPUs, or when forced. */
static int gpu_layout(const tdcl_device_info *d, const tdcl_life_opts *o)
{
    if (o->layout != TDCL_LIFE_LAYOUT_AUTO) return o->layout == TDCL_LIFE_LAYOUT_GPU;
    return (d->type & CL_DEVICE_TYPE_GPU) != 0;
}

static int64_t pow2_at_least(int64_t n)
{
    int64_t p = 1;
    while (p < n)
        p *= 2;
    return p;
}

/* Work-items per group in the shapes below: NVIDIA's OpenCL (driver 580,
 * H200) runs life_bits, like this project's other kernels, in groups of at
 * most 256 whatever its registers (CL_KERNEL_WORK_GROUP_SIZE), so larger
 * shapes would only be refused and shrunk. */
enum { GPU_GROUP = 256 };

/* Whole rows in each work-group, er of them, mode MODE_SINGLE or
 * MODE_BANDS (k generations per launch): words across rounded up to a
 * power of two so that similar grids share one compiled program, as many
 * work-items as a group allows, each with an odd number of rows when a warp
 * spans several rows (so that they fall in different banks), two tile
 * buffers when they fit the device's local memory. Fills c and returns 1,
 * or 0 when one group cannot hold er rows. */
static int shape_rows(const tdcl_device_info *d, life_mode mode, int64_t er, int64_t rows,
                      int64_t nw, int wb, int k, life_cfg *c)
{
    const int64_t max_group = GPU_GROUP, min_lx = 2, max_s = 33;
    int64_t group = (int64_t)d->max_wg < max_group ? (int64_t)d->max_wg : max_group;
    int64_t lx = pow2_at_least(nw < min_lx ? min_lx : nw);
    if (lx > group || lx > (int64_t)d->max_item_sizes[0]) return 0;
    int64_t ly = group / lx;
    while (ly > (int64_t)d->max_item_sizes[1])
        ly /= 2;
    int64_t s = (er + ly - 1) / ly;
    if (lx < 32 && s % 2 == 0) s++;
    if (s > max_s) return 0; /* the rows' registers would not fit */
    ly = (er + s - 1) / s;
    life_cfg t = {.bits = 1,
                  .mode = mode,
                  .wb = wb,
                  .lx = (int)lx,
                  .ly = (int)ly,
                  .s = (int)s,
                  .k = k,
                  .vx = 1,
                  .dbuf = 1};
    if (!cfg_fits(d, &t, rows, nw)) t.dbuf = 0;
    if (!cfg_fits(d, &t, rows, nw)) return 0;
    *c = t;
    return 1;
}

/* The whole grid in one work-group, no halo, every generation of a run in
 * one launch: for grids whose words fit the device's local memory. */
static int choose_single(const tdcl_device_info *d, int64_t rows, int64_t nw, int wb, life_cfg *c)
{
    return shape_rows(d, MODE_SINGLE, rows, rows, nw, wb, 0, c);
}

/* About `groups` bands of whole rows, each advancing k generations per
 * launch over its rows and k more above and below. */
static int choose_bands(const tdcl_device_info *d, int64_t rows, int64_t nw, int wb, int k,
                        int64_t groups, life_cfg *c)
{
    int64_t out = (rows + groups - 1) / groups;
    return shape_rows(d, MODE_BANDS, out + 2 * (int64_t)k, rows, nw, wb, k, c);
}

/* The GPU's tile: 16 words of 64 cells across, 8 work-items of 16 rows
 * down (1024 x 128 cells, 256 halo words and rows recomputed around 896 x
 * 112), 8 generations per launch when the grid has tiles enough to fill
 * the device, else 16: a grid of a few tiles is bound by launches more
 * than by the halo's work. (H200 sweep, 16384^2: wider tiles of 32-bit
 * words, 2-word vectors, 4 or 12 generations, 8 rows per work-item and one
 * tile buffer were all as fast or slower.) */
enum { GPU_WB = 64, GPU_LX = 16, GPU_LY = 8, GPU_S = 16, GPU_K = 8, GPU_K_FEW = 16 };

static int64_t gpu_tiles(int64_t rows, int64_t nw, int k)
{
    return ((nw + GPU_LX - 3) / (GPU_LX - 2)) *
           ((rows + GPU_LY * GPU_S - 2 * k - 1) / (GPU_LY * GPU_S - 2 * k));
}

static int deep_enough(const tdcl_device_info *d, int64_t rows, int64_t nw, int wb)
{
    int k = gpu_tiles(rows, nw, GPU_K) >= 4 * (int64_t)d->compute_units ? GPU_K : GPU_K_FEW;
    return k < wb ? k : wb;
}

/* Small grids on a GPU, where tiles would leave most of the device idle
 * and each launch costs more than its work: up to SMALL_ONE_GROUP words
 * (4 per work-item) in one work-group, a whole run in one launch; else, up
 * to BAND_WORDS words across, bands of BAND_ROWS rows (one per compute
 * unit at most) that advance BAND_K generations per launch over their rows
 * and BAND_K more above and below. 500^2 is 8 words by 500 rows: 31 bands
 * of 16 rows, 80 rows each with the halo, 7 launches for 200 generations. */
enum { SMALL_ONE_GROUP = 1024, BAND_WORDS = 16, BAND_ROWS = 16, BAND_K = 32 };

static int choose_small(const tdcl_device_info *d, int64_t rows, int64_t nw, int wb, life_cfg *c)
{
    if (rows * nw <= SMALL_ONE_GROUP && choose_single(d, rows, nw, wb, c)) return 1;
    if (nw > BAND_WORDS * 64 / wb || gpu_tiles(rows, nw, GPU_K) >= 2 * (int64_t)d->compute_units)
        return 0;
    int64_t groups = rows / BAND_ROWS;
    groups = groups < 1                           ? 1
             : groups > (int64_t)d->compute_units ? (int64_t)d->compute_units
                                                  : groups;
    return choose_bands(d, rows, nw, wb, BAND_K, groups, c);
}

int tdcl_life_one_group(const tdcl_device_info *d, int64_t rows, int64_t cols)
{
    life_cfg c;
    return rows >= 1 && cols >= 1 && choose_small(d, rows, (cols + 63) / 64, 64, &c) &&
           c.mode == MODE_SINGLE;
}

int tdcl_life_one_group_fits(const tdcl_device_info *d, int64_t rows, int64_t cols)
{
    life_cfg c;
    return rows >= 1 && cols >= 1 && choose_single(d, rows, (cols + 63) / 64, 64, &c);
}

/* The CPU's bands (life_band): CPU_K generations per launch, two bands of
 * about CPU_BAND_BYTES (a part of a core's L2, which the grid's rows
 * stream through), at most CPU_S rows each and at least 4 bands per
 * compute unit so that every thread has work. 4096^2 on 2 cores: 32 bands
 * of 128 rows (144 with the halo), 185 KiB each pair. On a CPU, tiles
 * with barriers ran several times slower than even one generation per
 * launch from global memory (docs/internals/life-kernels.md). */
enum { CPU_K = 8, CPU_S = 128, CPU_BAND_BYTES = 256 * 1024 };

/* One generation per launch straight from global memory (life_bits1): no
 * halo to recompute. */
static void global_cfg(life_cfg *c, int gpu, int64_t nw, int tile)
{
    c->mode = MODE_GLOBAL;
    c->k = 1;
    c->vw = gpu ? 1 : 8; /* a CPU's SIMD register holds 8 64-bit words */
    int64_t nv = (nw + c->vw - 1) / c->vw;
    c->lx = gpu ? 64 : (int)(nv < 64 ? nv : 64);
    c->ly = gpu ? 4 : 1;
    c->s = tile ? tile : (gpu ? 16 : 64);
}

static int block_rows(const tdcl_device_info *d, int64_t rows, int64_t nw, int wb, int vw, int k)
{
    int64_t row_bytes = ((nw + vw - 1) / vw + 2) * vw * (wb / 8);
    int64_t fit = CPU_BAND_BYTES / (2 * row_bytes) - 2 * k - 1;
    int64_t cu = tdcl_life_compute_units(d);
    int64_t bal = (rows + 4 * cu - 1) / (4 * cu), s = CPU_S;
    s = fit < s ? fit : s;
    s = bal < s ? bal : s;
    return (int)(s < 2 * k ? 2 * k : s);
}

/* life_stream where it beats the tiles: NVIDIA (the shuffle), 64-bit
 * words, the Moore neighbourhood, and a grid of at least STREAM_HALF_WAVES
 * / 2 times the warps the device holds at once (STREAM_WARPS_CU a
 * multiprocessor: 164 registers a work-item on an H200). Its chunks are
 * long, so a smaller grid leaves multiprocessors idle: on an H200 it beat
 * the tiles at 7.6 waves on every boundary, at 3.8 waves only on some, and
 * lost below (docs/internals/life-kernels.md). The tile in registers
 * (reg_pays) goes first where it applies. */
enum { STREAM_WARPS_CU = 12, STREAM_HALF_WAVES = 12 };

static int stream_pays(const tdcl_device_info *d, const tdcl_life_opts *o, int64_t rows, int64_t nw,
                       int wb, int k)
{
    int64_t warps = tdcl_life_stream_cols(nw, STREAM_LX) * tdcl_life_stream_chunks(rows, STREAM_S);
    int64_t cu = tdcl_life_compute_units(d);
    return wb == 64 && k >= 1 && k <= STREAM_KMAX && tdcl_life_opts_rule(o).nbhd == 0 &&
           2 * warps >= STREAM_HALF_WAVES * STREAM_WARPS_CU * cu && tdcl_life_nv_options(d);
}

/* life_flow where it beats launching the tiles step by step: NVIDIA (the
 * only GPUs it was measured on), and a step of at least FLOW_TILES_CU tiles
 * a compute unit (4 run at once on an H200 multiprocessor): on an H200 it
 * won from 2.9 tiles a multiprocessor and lost at 1.4. Tiles of 144 rows
 * (37 KB of local memory) win from FLOW_TALL_TILES_CU tiles a compute
 * unit, are equal at 10 and lose below (docs/internals/life-kernels.md
 * has the rates). */
enum { FLOW_TILES_CU = 2, FLOW_TALL_TILES_CU = 12, FLOW_TALL_S = 18 };

static int flow_pays(const tdcl_device_info *d, int64_t rows, int64_t nw, const life_cfg *c)
{
    const int64_t cu = tdcl_life_compute_units(d);
    return flow_tiles_of(c, rows, nw) >= FLOW_TILES_CU * cu && tdcl_life_nv_options(d);
}

/* life_flow with the tile in registers (REGT) where it beats the tiles in
 * local memory: NVIDIA (the shuffle), 64-bit words, the Moore
 * neighbourhood, a depth of 8, and at least REG_TILES_CU of its 32-word x
 * REG_LY*REG_S-row tiles a multiprocessor a step. On an H200 it won on
 * every boundary from 6.4 tiles a multiprocessor up, was equal at 3.7 and
 * slower at 1.8; 24 rows a work-item beat 20, 28 and 32; 8 warps a group,
 * 256 work-items, is the most NVIDIA's OpenCL runs. It is taken before
 * life_stream, which it matches or beats at 65536^2
 * (docs/internals/life-kernels.md has the rates). */
enum { REG_TILES_CU = 5, REG_LX = 32, REG_LY = 8, REG_S = 24 };

static int reg_pays(const tdcl_device_info *d, const tdcl_life_opts *o, int64_t rows, int64_t nw,
                    int wb, int k)
{
    const life_cfg r = {.bits = 1,
                        .mode = MODE_TILES,
                        .wb = wb,
                        .lx = REG_LX,
                        .ly = REG_LY,
                        .s = REG_S,
                        .k = k,
                        .vx = 1};
    return wb == 64 && k == GPU_K && tdcl_life_opts_rule(o).nbhd == 0 &&
           flow_tiles_of(&r, rows, nw) >= REG_TILES_CU * tdcl_life_compute_units(d) &&
           tdcl_life_nv_options(d);
}

/* The starting configuration; choose() shrinks it while it does not fit.
 * GPU layout: 64-bit words; a small grid in one work-group or in bands,
 * else tiles of 16 words by 128 rows advancing 8 or 16 generations per
 * launch. CPU layout: 64-bit words, 8 to a vector, in bands of whole rows
 * CPU_K generations per launch (life_band), or with a depth of 1 one
 * generation per launch straight from global memory (life_bits1). */
static life_cfg initial_cfg(const tdcl_device_info *d, const tdcl_life_opts *o, int64_t rows,
                            int64_t cols, int allow_single, int allow_reg)
{
    life_cfg c = {0};
    int gpu = gpu_layout(d, o);
    if (o->kernel == TDCL_LIFE_KERNEL_BYTES) {
        c.ts = o->tile ? o->tile : 16;
        return c;
    }
    c.bits = 1;
    c.vx = 1;
    c.dbuf = 1;
    c.halves = gpu;
    c.lop3 = 1; /* taken where the device takes NVIDIA's compiler options */
    c.wb = o->word_bits ? o->word_bits : (gpu ? GPU_WB : 64);
    int64_t nw = (cols + c.wb - 1) / c.wb;
    if (allow_single && gpu && !o->tile && !o->depth && choose_small(d, rows, nw, c.wb, &c)) {
        c.halves = c.lop3 = 1;
        return c;
    }
    c.k = o->depth ? o->depth : (gpu ? deep_enough(d, rows, nw, c.wb) : CPU_K);
    if (!gpu && c.k > 1) {
        c.mode = MODE_BLOCK;
        c.vw = 8;
        c.lx = c.ly = 1;
        c.s = o->tile ? o->tile : block_rows(d, rows, nw, c.wb, c.vw, c.k);
        return c;
    }
    if (c.k == 1) {
        global_cfg(&c, gpu, nw, o->tile);
        return c;
    }
    const int reg = allow_reg && gpu && !o->tile && reg_pays(d, o, rows, nw, c.wb, c.k);
    if (gpu && !o->tile && !reg && stream_pays(d, o, rows, nw, c.wb, c.k)) {
        c.mode = MODE_STREAM;
        c.lx = STREAM_LX;
        c.ly = STREAM_LY;
        c.s = STREAM_S;
        return c;
    }
    c.mode = MODE_TILES;
    if (reg) { /* the tile in registers, every step in one launch */
        c.reg = c.halves = c.flow = 1;
        c.dbuf = 0;
        c.lx = REG_LX;
        c.ly = REG_LY;
        c.s = REG_S;
        return c;
    }
    c.lx = gpu ? GPU_LX : 16;
    c.ly = gpu ? GPU_LY : 4;
    c.s = gpu ? GPU_S : 16;
    if (o->tile) { /* rows of the tile: as many work-items as the rows allow */
        while (c.ly > 1 && o->tile % c.ly)
            c.ly /= 2;
        c.s = o->tile / c.ly;
    }
    while (c.ly * c.s <= 2 * c.k) /* at least one output row */
        c.s *= 2;
    c.flow = gpu && !o->tile && flow_pays(d, rows, nw, &c);
    life_cfg tall = c;
    tall.s = FLOW_TALL_S;
    const int64_t cu = tdcl_life_compute_units(d);
    if (c.flow && flow_tiles_of(&tall, rows, nw) >= FLOW_TALL_TILES_CU * cu) c.s = FLOW_TALL_S;
    return c;
}

_Static_assert(TDCL_LIFE_LAB_STREAM - 1 == MODE_STREAM && TDCL_LIFE_LAB_TILES - 1 == MODE_TILES,
               "life_lab.h's modes follow life_mode");

/* lab's fields in one order, for the applier and the messages: the
 * enums (ENUM_KEYS) hold the value plus one, every field 0 when unset. */
enum {
    LAB_W,
    LAB_LX,
    LAB_LY,
    LAB_S,
    LAB_K,
    LAB_VX,
    LAB_DBUF,
    LAB_VW,
    LAB_G,
    LAB_REGS,
    LAB_NET,
    LAB_HALVES,
    LAB_LOP3,
    LAB_FLOW,
    LAB_REG,
    LAB_NKEYS
};
enum {
    ENUM_KEYS = 1 << LAB_DBUF | 1 << LAB_NET | 1 << LAB_HALVES | 1 << LAB_LOP3 | 1 << LAB_FLOW |
                1 << LAB_REG
};
static const char *const lab_keys[LAB_NKEYS] = {"w",   "lx",     "ly",   "s",    "k",
                                                "vx",  "dbuf",   "vw",   "g",    "regs",
                                                "net", "halves", "lop3", "flow", "reg"};

static void lab_raw(const tdcl_life_lab *lab, int raw[LAB_NKEYS])
{
    const int r[LAB_NKEYS] = {lab->w,         lab->lx,        lab->ly,        lab->s,
                              lab->k,         lab->vx,        (int)lab->dbuf, lab->vw,
                              lab->g,         lab->regs,      (int)lab->net,  (int)lab->halves,
                              (int)lab->lop3, (int)lab->flow, (int)lab->reg};
    memcpy(raw, r, sizeof r);
}

/* Writes the fields lab sets as "mode=bands,g=16,k=40" into buf, for
 * messages (the enums by the numbers cl/life takes). */
void tdcl_life_lab_describe(const tdcl_life_lab *lab, char *buf, size_t n)
{
    int raw[LAB_NKEYS];
    lab_raw(lab, raw);
    size_t at = 0;
    buf[0] = '\0';
    if (lab->mode > TDCL_LIFE_LAB_MODE_AUTO && lab->mode <= TDCL_LIFE_LAB_STREAM)
        at += (size_t)snprintf(buf, n, "mode=%s", tdcl_life_mode_names[lab->mode - 1]);
    for (int i = 0; i < LAB_NKEYS && at < n; i++)
        if (raw[i] != 0)
            at += (size_t)snprintf(buf + at, n - at, "%s%s=%d", at ? "," : "", lab_keys[i],
                                   ENUM_KEYS >> i & 1 ? raw[i] - 1 : raw[i]);
    if (!buf[0]) snprintf(buf, n, "nothing forced");
}

/* Applies lab over c, for a grid of rows x cols: a mode given without ly
 * and s is shaped as the automatic choice would (bands: g groups, default
 * 16, k deep, default 32); fields given are taken as they are. */
tdcl_status tdcl_life_apply_lab(const tdcl_device_info *d, const tdcl_life_lab *lab, int64_t rows,
                                int64_t cols, life_cfg *c, tdcl_err *err)
{
    int raw[LAB_NKEYS];
    lab_raw(lab, raw);
    const int top[LAB_NKEYS] = {
        TDCL_LIFE_LAB_MAX, TDCL_LIFE_LAB_MAX, TDCL_LIFE_LAB_MAX,     TDCL_LIFE_LAB_MAX,
        TDCL_LIFE_LAB_MAX, TDCL_LIFE_LAB_MAX, TDCL_LIFE_LAB_ON,      TDCL_LIFE_LAB_MAX,
        TDCL_LIFE_LAB_MAX, TDCL_LIFE_LAB_MAX, TDCL_LIFE_LAB_NET_OWN, TDCL_LIFE_LAB_HALVES_FUNNEL,
        TDCL_LIFE_LAB_ON,  TDCL_LIFE_LAB_ON,  TDCL_LIFE_LAB_ON};
    int val[LAB_NKEYS] = {0}, given[LAB_NKEYS] = {0};
    int mode = (int)lab->mode - 1;
    if (mode < -1 || mode > MODE_STREAM)
        return tdcl_fail(err, TDCL_EINVAL, "life lab: mode %d is none of the modes", mode + 1);
    for (int i = 0; i < LAB_NKEYS; i++) {
        if (raw[i] < 0 || raw[i] > top[i])
            return tdcl_fail(err, TDCL_EINVAL, "life lab: %s=%d is out of range", lab_keys[i],
                             ENUM_KEYS >> i & 1 ? raw[i] - 1 : raw[i]);
        given[i] = raw[i] != 0;
        val[i] = ENUM_KEYS >> i & 1 ? raw[i] - 1 : raw[i];
    }
    int wb = given[LAB_W] ? val[LAB_W] : (c->bits ? c->wb : 32);
    if (wb != 32 && wb != 64) return tdcl_fail(err, TDCL_EINVAL, "life lab: w must be 32 or 64");
    int64_t nw = (cols + wb - 1) / wb;
    if (mode >= 0 && !given[LAB_LY] && !given[LAB_S]) {
        int k = given[LAB_K] ? val[LAB_K] : 32,
            g = given[LAB_G] && val[LAB_G] > 0 ? val[LAB_G] : 16;
        if (mode == MODE_SINGLE && !choose_single(d, rows, nw, wb, c))
            return tdcl_fail(err, TDCL_ELIMIT, "life lab: the grid does not fit one work-group");
        if (mode == MODE_BANDS && !choose_bands(d, rows, nw, wb, k, g, c))
            return tdcl_fail(err, TDCL_ELIMIT, "life lab: no bands of %d rows and depth %d",
                             (int)((rows + g - 1) / g), k);
    }
    int *const fields[LAB_NKEYS] = {&c->wb, &c->lx,     &c->ly,   &c->s,    &c->k,
                                    &c->vx, &c->dbuf,   &c->vw,   NULL,     &c->regs,
                                    NULL,   &c->halves, &c->lop3, &c->flow, &c->reg};
    for (int i = 0; i < LAB_NKEYS; i++)
        if (given[i] && fields[i]) *fields[i] = val[i];
    if (given[LAB_NET]) {
        c->net0 = val[LAB_NET] == 0;
        c->net1 = val[LAB_NET] == 1;
    }
    if (!given[LAB_FLOW])
        c->flow = 0; /* a forced shape names its kernel: life_flow only if asked */
    if (!given[LAB_REG]) c->reg = 0;
    if (c->reg && !given[LAB_DBUF]) c->dbuf = 0; /* the tile lives in registers */
    if (c->reg && !given[LAB_HALVES]) c->halves = 1;
    if (mode >= 0) c->mode = (life_mode)mode;
    if (c->mode == MODE_STREAM) { /* 64-bit words unless w=32, one a work-item, a warp across */
        c->wb = given[LAB_W] ? val[LAB_W] : 64;
        c->vx = 1;
        if (!given[LAB_LX]) c->lx = STREAM_LX;
        if (!given[LAB_LY]) c->ly = STREAM_LY;
        if (!given[LAB_S]) c->s = STREAM_S;
        if (!given[LAB_K]) c->k = GPU_K;
    }
    if (c->mode == MODE_BLOCK) { /* one work-item per group; the rest as the CPU's default */
        c->lx = c->ly = 1;
        if (!c->wb) c->wb = wb;
        if (!given[LAB_VW] && c->vw < 1) c->vw = 8;
        if (!given[LAB_K] && c->k < 2) c->k = CPU_K;
        if (!given[LAB_S]) c->s = block_rows(d, rows, nw, wb, c->vw, c->k);
    }
    c->bits = 1;
    return TDCL_OK;
}

/* 1 if the device takes NVIDIA's compiler options: a fact of its
 * description, read once when the device was opened. */
int tdcl_life_nv_options(const tdcl_device_info *d)
{
    return d->nv_cc_major > 0 && d->nv_options;
}

/* Halves the configuration; 0 when nothing smaller exists. */
static int shrink(life_cfg *c)
{
    if (!c->bits) {
        if (c->ts <= 1) return 0;
        c->ts /= 2;
        return 1;
    }
    if (c->mode == MODE_SINGLE || c->mode == MODE_BANDS) {
        /* fewer work-items, more rows each; then the caller gives up on whole rows */
        if (c->dbuf) {
            c->dbuf = 0;
            return 1;
        }
        if (c->ly <= 1 || c->s * 2 > 64) return 0;
        c->ly = (c->ly + 1) / 2;
        c->s *= 2;
        return 1;
    }
    if (c->mode == MODE_BLOCK) {
        if (c->s <= 1) return 0;
        c->s /= 2;
        return 1;
    }
    if (c->mode == MODE_GLOBAL) {
        if (c->lx * c->ly <= 1) return 0;
        if (c->ly > 1)
            c->ly /= 2;
        else
            c->lx /= 2;
        return 1;
    }
    if (c->ly > 1) {
        c->ly /= 2;
    } else if (c->lx > 3) {
        c->lx = c->lx / 2 + 1;
    } else {
        return 0;
    }
    while (c->ly * c->s <= 2 * c->k)
        c->s *= 2;
    return 1;
}

life_cfg tdcl_life_choice_first(const tdcl_device_info *d, const tdcl_life_opts *o, int64_t rows,
                                int64_t cols)
{
    return initial_cfg(d, o, rows, cols, 1, 1);
}

int tdcl_life_choice_fits(const tdcl_device_info *d, const life_cfg *c, int64_t rows, int64_t cols)
{
    return cfg_fits(d, c, rows, c->bits ? (cols + c->wb - 1) / c->wb : cols);
}

int tdcl_life_choice_next(const tdcl_device_info *d, const tdcl_life_opts *o, int64_t rows,
                          int64_t cols, life_cfg *c)
{
    if (c->reg) { /* the tiles in local memory before anything else */
        *c = initial_cfg(d, o, rows, cols, 0, 0);
        return 1;
    }
    if (c->flow) { /* the tiles launched step by step before a smaller shape */
        c->flow = 0;
        return 1;
    }
    if (shrink(c)) return 1;
    if (c->mode == MODE_BLOCK) { /* not even a band of one row fits: no bands */
        global_cfg(c, 0, (cols + c->wb - 1) / c->wb, 0);
        return 1;
    }
    if (c->mode == MODE_SINGLE || c->mode == MODE_BANDS) { /* whole rows do not fit: tiles */
        *c = initial_cfg(d, o, rows, cols, 0, 1);
        return 1;
    }
    return 0;
}

size_t tdcl_life_choice_list(const tdcl_device_info *d, const tdcl_life_opts *o, int64_t rows,
                             int64_t cols, life_cfg *out, size_t cap)
{
    size_t n = 0;
    life_cfg c = tdcl_life_choice_first(d, o, rows, cols);
    do {
        if (n < cap && tdcl_life_choice_fits(d, &c, rows, cols)) out[n++] = c;
    } while (n < cap && tdcl_life_choice_next(d, o, rows, cols, &c));
    return n;
}
