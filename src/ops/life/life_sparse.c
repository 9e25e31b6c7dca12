/* Skipping what does not change: the choice of the sparse path, its tile
 * shape, the activity map and tile list on the device, the launches. The
 * argument that skipping is exact is cl/life/sparse.cl's, at its top. */
#include "ops/life/life_sparse.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "ops/life/life_net.h"
#include "ops/life/life_prog.h"

enum { LIST_ALL = 0, LIST_STEADY = 1, LIST_DEPTH = 2 }; /* cl/life/sparse.cl's LIST_* */
enum { LIST_WG = 64, CPU_LIST_TPI = 32 };

/* The automatic choice: grids of at least AUTO_CELLS cells and AUTO_TILES
 * tiles, at most 1 / AUTO_LIVE_DIV of whose tiles hold a live cell. */
#define AUTO_CELLS (INT64_C(1) << 22)
enum { AUTO_TILES = 16, AUTO_LIVE_DIV = 4 };

/* Groups per compute unit the tile kernel is launched with (each group
 * takes tiles of the list in turn): on a GPU enough to fill it when every
 * tile is listed, on a CPU a few per core (each one's start costs). */
enum { GROUPS_PER_CU = 16, CPU_GROUPS_PER_CU = 4 };

/* life_sparse1's tile, a work-item's: VW words of S rows, as life_bits1
 * on CPUs; work-items per group. */
enum { ONE_VW = 8, ONE_S = 64, ONE_WG = 8 };

struct tdcl_life_sparse {
    tdcl_ctx *ctx;
    int one;                    /* life_sparse1 (CPUs, one generation per launch) */
    int tpi;                    /* tiles per work-item of the list */
    int lx, ly, s, k, wb, dbuf; /* life_sparse: TW = lx words, ER = ly * s rows */
    int torus, bnd, rx, ry;
    int64_t rows, cols, nw, ntx, nty, ow, oh; /* tiles across and down; output words, rows */
    cl_program prog;
    cl_kernel list_k, tile_k;
    cl_mem act, list, count, acc;
    size_t groups;
    int slot, prev_gens, stale;
    char desc[96];
};

static int gpu_shape(const tdcl_ctx *ctx, const tdcl_life_opts *o)
{
    if (o->layout != TDCL_LIFE_LAYOUT_AUTO) return o->layout == TDCL_LIFE_LAYOUT_GPU;
    return (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
}

/* Why the sparse path cannot run these options, or NULL when it can. */
static const char *unsupported(const tdcl_life_opts *o, const tdcl_life_rule *rule,
                               const tdcl_life_sparse_grid *g)
{
    if (tdcl_life_rule_has_b0(rule)) return "a B0 rule changes empty regions";
    if (g->wb == 0) return "the bytes kernel runs";
    if (o->boundary > TDCL_LIFE_CLAMP || tdcl_life_edges_any(&o->edges))
        return "Golly's other bounded grids run on the bytes kernel";
    return NULL;
}

/* Local memory a compiler may add to the tile's, as life.c keeps. */
enum { LOCAL_SLACK = 64 };

/* Local memory of life_sparse's work-group (cl/life/tiles.cl: DBUF + 1 buffers
 * of ER + 2 rows of TW words, and the flags word), slack included. */
static size_t tile_local(const tdcl_life_sparse *s)
{
    return (size_t)(s->dbuf ? 2 : 1) * (size_t)(s->ly * s->s + 2) * (size_t)s->lx *
               (size_t)(s->wb / 8) +
           sizeof(uint32_t) + LOCAL_SLACK;
}

/* The tile shape. GPUs: life_bits's tiles (16 words by 128 rows), 16
 * generations deep (a sparse run is bound by launches). CPUs: life_bits1's
 * work-item of 8 words by 64 rows a tile, one generation per launch (as
 * the dense path: a barrier costs more there than the halo saves); with
 * a depth asked for, tiles of 16 words by 64 rows. The output rows are at
 * least the depth, so a tile's generations reach no further than its
 * neighbour tiles. */
static void shape(tdcl_life_sparse *s, const tdcl_life_opts *o, const tdcl_device_info *d, int gpu)
{
    s->one = !gpu && o->depth <= 1;
    s->tpi = gpu ? 1 : CPU_LIST_TPI;
    s->lx = 16;
    s->ly = gpu ? 8 : 4;
    s->s = 16;
    s->k = o->depth ? o->depth : gpu ? 16 : 1;
    while (s->ly * s->s - 2 * s->k < s->k)
        s->s *= 2;
    s->dbuf = 1;
    /* fewer rows a work-item where local memory is short (16 by 128 rows
     * of 64-bit words take 33,284 bytes: more than the 32 KiB a device may
     * have); build() refuses a tile that still does not fit */
    while (gpu && tile_local(s) > d->local_mem && s->ly * (s->s / 2) - 2 * s->k >= s->k)
        s->s /= 2;
    s->ow = s->one ? ONE_VW : s->lx - 2;
    s->oh = s->one ? ONE_S : s->ly * s->s - 2 * s->k;
    s->ntx = (s->nw + s->ow - 1) / s->ow;
    s->nty = (s->rows + s->oh - 1) / s->oh;
    /* on a torus a last tile narrower than the depth lets a tile's reach
     * across the wrap pass it */
    int64_t last_w = s->cols - (s->ntx - 1) * s->ow * s->wb,
            last_h = s->rows - (s->nty - 1) * s->oh;
    s->rx = s->torus && last_w < s->k ? 2 : 1;
    s->ry = s->torus && last_h < s->k ? 2 : 1;
}

/* Tiles holding a live cell, from the packed rows, counted up to more
 * than limit (a soup stops the scan early). */
static int64_t live_tiles(const tdcl_life_sparse *s, const tdcl_life_sparse_grid *g, int64_t limit)
{
    int64_t n = 0;
    const size_t wbytes = (size_t)s->wb / 8;
    uint8_t *seen = calloc((size_t)(s->ntx * s->nty), 1);
    if (!seen) return s->ntx * s->nty;
    for (int64_t y = 0; y < s->rows && n <= limit; y++) {
        const uint8_t *row = g->host + (size_t)y * g->row_bytes;
        uint8_t *ts = seen + (y / s->oh) * s->ntx;
        for (int64_t w = 0; w < s->nw; w++) {
            uint64_t v = 0;
            memcpy(&v, row + (size_t)w * wbytes, wbytes);
            if (v && !ts[w / s->ow]) {
                ts[w / s->ow] = 1;
                n++;
            }
        }
    }
    free(seen);
    return n;
}

/* 1 if o asks for skipping, or leaves it to us and the grid is large and
 * mostly empty; logs the reason for a dense run. */
static int wanted(const tdcl_life_sparse *s, const tdcl_life_opts *o, const tdcl_life_rule *rule,
                  const tdcl_life_sparse_grid *g)
{
    const char *why = unsupported(o, rule, g);
    if (o->sparse == TDCL_LIFE_SPARSE_OFF) return 0;
    if (why) {
        if (!o->quiet) tdcl_log(TDCL_LOG_VERBOSE, "life: dense, no tiles skipped: %s", why);
        return 0;
    }
    if (o->sparse == TDCL_LIFE_SPARSE_ON) return 1;
    if (o->lab || o->tile) return 0; /* a dense shape was asked for */
    int64_t tiles = s->ntx * s->nty;
    if (s->rows * s->cols < AUTO_CELLS || tiles < AUTO_TILES) return 0;
    int64_t limit = tiles / AUTO_LIVE_DIV;
    if (live_tiles(s, g, limit) > limit) {
        if (!o->quiet)
            tdcl_log(TDCL_LOG_VERBOSE,
                     "life: dense: more than 1 in %d of the %" PRId64 " tiles hold live cells",
                     AUTO_LIVE_DIV, tiles);
        return 0;
    }
    return 1;
}

/* Builds both kernels; TDCL_ELIMIT when the tile kernel cannot run its
 * work-group here (the caller then runs dense). */
static tdcl_status build(tdcl_life_sparse *s, const tdcl_life_rule *rule, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const tdcl_device_info *d = &s->ctx->dev;
    char opts[512];
    int n = snprintf(opts, sizeof opts, "-DBIRTH=0x%x -DSURVIVE=0x%x -DWBITS=%d -DLIST_WG=%d",
                     rule->birth, rule->survive, s->wb, LIST_WG);
    if (s->one)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -DSPARSE1=1 -DS=%d -DVW=%d", ONE_S,
                      ONE_VW);
    else
        n += snprintf(opts + n, sizeof opts - (size_t)n,
                      " -DLX=%d -DLY=%d -DS=%d -DK=%d -DVX=1 -DDBUF=%d "
                      "-DFULLW=0 -DSINGLE=0",
                      s->lx, s->ly, s->s, s->k, s->dbuf);
    if (s->tpi > 1) n += snprintf(opts + n, sizeof opts - (size_t)n, " -DLIST_TPI=%d", s->tpi);
    if (rule->nbhd) n += snprintf(opts + n, sizeof opts - (size_t)n, " -DNBHD=%d", rule->nbhd);
    /* as life_bits (life.c's build): the rule's gates, on NVIDIA as one
     * PTX lop3 each with row sums from 32-bit halves */
    const int lop3 = !s->one && d->nv_options && !rule->nbhd;
    if (tdcl_life_net_pays(d, lop3) && tdcl_life_net_opts(*rule, opts, sizeof opts, &n) && lop3)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -DLOP3ASM=1%s",
                      s->wb == 64 ? " -DHALVES=1" : "");
    if (!s->one && d->nv_options) /* as life_bits: 512 work-items on a multiprocessor */
        snprintf(opts + n, sizeof opts - (size_t)n, " -cl-nv-maxrregcount=128");
    size_t wg = 0;
    const char *tile_name = s->one ? "life_sparse1" : "life_sparse";
    if (!s->one && tile_local(s) > d->local_mem)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "life_sparse's tiles of %d rows need %zu bytes of local memory; the "
                         "device has %llu",
                         s->ly * s->s, tile_local(s), (unsigned long long)d->local_mem);
    TDCL_TRY(tdcl_life_prog_build(s->ctx, s->one ? TDCL_LIFE_PROG_BITS1 : TDCL_LIFE_PROG_SPARSE,
                                  opts, &s->prog, err));
    TDCL_TRY(tdcl_ctx_kernel(s->prog, "life_sparse_list", &s->list_k, err));
    TDCL_TRY(tdcl_ctx_kernel(s->prog, tile_name, &s->tile_k, err));
    TDCL_TRY(tdcl_kernel_local_check(s->ctx, s->list_k, "life_sparse_list", err));
    TDCL_TRY(tdcl_kernel_local_check(s->ctx, s->tile_k, tile_name, err));
    TDCL_CL_TRY(err,
                clGetKernelWorkGroupInfo(s->tile_k, d->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg,
                                         &wg, NULL),
                "clGetKernelWorkGroupInfo");
    if (wg < (s->one ? (size_t)ONE_WG : (size_t)(s->lx * s->ly)))
        st = tdcl_fail(err, TDCL_ELIMIT, "life_sparse runs work-groups of at most %zu", wg);
out:
    return st;
}

static tdcl_status buffers(tdcl_life_sparse *s, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const size_t tiles = (size_t)(s->ntx * s->nty);
    cl_context c = s->ctx->context;
    cl_int rc;
    uint64_t *zero = calloc(tiles + 2, sizeof *zero);
    if (!zero) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    struct {
        cl_mem *m;
        size_t bytes;
    } b[] = {{&s->act, tiles}, {&s->list, tiles * 4}, {&s->count, 16}, {&s->acc, 8}};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
        *b[i].m = clCreateBuffer(c, CL_MEM_READ_WRITE, b[i].bytes, NULL, &rc);
        TDCL_CL_TRY(err, rc, "clCreateBuffer");
        TDCL_CL_TRY(err,
                    clEnqueueWriteBuffer(s->ctx->queue, *b[i].m, CL_TRUE, 0, b[i].bytes, zero, 0,
                                         NULL, NULL),
                    "clEnqueueWriteBuffer");
    }
out:
    free(zero);
    return st;
}

tdcl_status tdcl_life_sparse_create(tdcl_ctx *ctx, const tdcl_life_opts *o,
                                    const tdcl_life_rule *rule, const tdcl_life_sparse_grid *g,
                                    tdcl_life_sparse **out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    *out = NULL;
    tdcl_life_sparse *s = calloc(1, sizeof *s);
    if (!s) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    s->ctx = ctx;
    s->rows = g->rows;
    s->cols = g->cols;
    s->nw = g->nw;
    s->wb = g->wb;
    s->bnd = (int)o->boundary;
    s->torus = o->boundary == TDCL_LIFE_TORUS;
    s->stale = 1;
    if (g->wb) shape(s, o, &ctx->dev, gpu_shape(ctx, o));
    if (!wanted(s, o, rule, g)) goto out;
    tdcl_err why = {0};
    st = build(s, rule, &why);
    if (st == TDCL_ELIMIT) {
        if (!o->quiet) tdcl_log(TDCL_LOG_VERBOSE, "life: dense, no tiles skipped: %s", why.msg);
        st = TDCL_OK;
        goto out;
    }
    if (st) {
        if (err) *err = why;
        goto out;
    }
    TDCL_TRY(buffers(s, err));
    size_t tiles = (size_t)(s->ntx * s->nty), per = s->one ? ONE_WG : 1;
    s->groups = (size_t)(ctx->dev.compute_units ? ctx->dev.compute_units : 1) *
                (size_t)(s->tpi > 1 ? CPU_GROUPS_PER_CU : GROUPS_PER_CU);
    if (s->groups > (tiles + per - 1) / per) s->groups = (tiles + per - 1) / per;
    snprintf(s->desc, sizeof s->desc, "sparse tiles=%" PRId64 "x%" PRId64 " depth=%d wg=%dx%d",
             s->ow * s->wb, s->oh, s->k, s->one ? ONE_WG : s->lx, s->one ? 1 : s->ly);
    if (!o->quiet)
        tdcl_log(TDCL_LOG_VERBOSE, "life: %s, %" PRId64 " x %" PRId64 " tiles, %zu groups", s->desc,
                 s->ntx, s->nty, s->groups);
    *out = s;
    s = NULL;
out:
    tdcl_life_sparse_destroy(s);
    return st;
}

int tdcl_life_sparse_depth(const tdcl_life_sparse *s)
{
    return s->k;
}

#define ARG(k, i, v) TDCL_CL_TRY(err, clSetKernelArg(k, i, sizeof(v), &(v)), "clSetKernelArg")

/* Enqueues the list of the tiles the next launch (of gens generations)
 * computes. */
static tdcl_status enqueue_list(tdcl_life_sparse *s, int gens, cl_event *ev, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_kernel k = s->list_k;
    cl_int ntx = (cl_int)s->ntx, nty = (cl_int)s->nty, slot = s->slot, prev = s->prev_gens;
    cl_int rows = (cl_int)s->rows, nw = (cl_int)s->nw;
    cl_int mode = s->stale ? LIST_ALL : gens == s->prev_gens ? LIST_STEADY : LIST_DEPTH;
    size_t items = (size_t)((s->ntx * s->nty + s->tpi - 1) / s->tpi), lws = LIST_WG;
    size_t gws = (items + lws - 1) / lws * lws;
    ARG(k, 0, s->act);
    ARG(k, 1, s->list);
    ARG(k, 2, s->count);
    ARG(k, 3, s->acc);
    ARG(k, 4, ntx);
    ARG(k, 5, nty);
    ARG(k, 6, s->torus);
    ARG(k, 7, s->rx);
    ARG(k, 8, s->ry);
    ARG(k, 9, mode);
    ARG(k, 10, slot);
    ARG(k, 11, prev);
    ARG(k, 12, rows);
    ARG(k, 13, nw);
    TDCL_CL_TRY(err, clEnqueueNDRangeKernel(s->ctx->queue, k, 1, NULL, &gws, &lws, 0, NULL, ev),
                "clEnqueueNDRangeKernel");
out:
    return st;
}

tdcl_status tdcl_life_sparse_launch(tdcl_life_sparse *s, cl_mem in, cl_mem out, int gens,
                                    cl_event *ev0, cl_event *ev1, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_kernel k = s->tile_k;
    cl_int rows = (cl_int)s->rows, cols = (cl_int)s->cols, nw = (cl_int)s->nw, g = gens;
    cl_int ntx = (cl_int)s->ntx, slot = s->slot;
    size_t lws[2] = {s->one ? (size_t)ONE_WG : (size_t)s->lx, (size_t)s->ly};
    size_t gws[2] = {s->groups * lws[0], lws[1]};
    int a = 0;
    TDCL_TRY(enqueue_list(s, gens, ev0, err));
    ARG(k, a++, in);
    ARG(k, a++, out);
    ARG(k, a++, rows);
    ARG(k, a++, cols);
    ARG(k, a++, s->bnd);
    ARG(k, a++, nw);
    if (!s->one) ARG(k, a++, g);
    ARG(k, a++, s->list);
    ARG(k, a++, s->count);
    ARG(k, a++, s->act);
    ARG(k, a++, ntx);
    ARG(k, a++, slot);
    TDCL_CL_TRY(
        err, clEnqueueNDRangeKernel(s->ctx->queue, k, s->one ? 1 : 2, NULL, gws, lws, 0, NULL, ev1),
        "clEnqueueNDRangeKernel");
    s->slot = 1 - s->slot;
    s->prev_gens = gens;
    s->stale = 0;
out:
    return st;
}

tdcl_status tdcl_life_sparse_rows_written(tdcl_life_sparse *s, int64_t row0, int64_t n,
                                          tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const cl_uchar both = 3; /* cl/life/sparse.cl's ACT_CHG | ACT_LIVE */
    if (n <= 0 || s->stale) return TDCL_OK;
    int64_t ty0 = row0 / s->oh, ty1 = (row0 + n - 1) / s->oh;
    size_t at = (size_t)(ty0 * s->ntx), bytes = (size_t)((ty1 - ty0 + 1) * s->ntx);
    TDCL_CL_TRY(err, clEnqueueFillBuffer(s->ctx->queue, s->act, &both, 1, at, bytes, 0, NULL, NULL),
                "clEnqueueFillBuffer");
out:
    return st;
}

tdcl_status tdcl_life_sparse_computed(tdcl_life_sparse *s, double *cell_updates, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_uint count[4] = {0, 0, 0, 0};
    cl_ulong acc = 0;
    *cell_updates = 0;
    TDCL_CL_TRY(err,
                clEnqueueReadBuffer(s->ctx->queue, s->count, CL_TRUE, 0, sizeof count, count, 0,
                                    NULL, NULL),
                "clEnqueueReadBuffer");
    TDCL_CL_TRY(
        err,
        clEnqueueReadBuffer(s->ctx->queue, s->acc, CL_TRUE, 0, sizeof acc, &acc, 0, NULL, NULL),
        "clEnqueueReadBuffer");
    /* the last launch's words are not in acc yet: the next list adds them */
    double word_gens = (double)acc + (double)count[3 - s->slot] * (double)s->prev_gens;
    *cell_updates = word_gens * (double)s->wb;
out:
    return st;
}

const char *tdcl_life_sparse_describe(const tdcl_life_sparse *s)
{
    return s->desc;
}

void tdcl_life_sparse_destroy(tdcl_life_sparse *s)
{
    if (!s) return;
    cl_mem m[] = {s->act, s->list, s->count, s->acc};
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (m[i]) clReleaseMemObject(m[i]);
    if (s->list_k) clReleaseKernel(s->list_k);
    if (s->tile_k) clReleaseKernel(s->tile_k);
    if (s->prog) clReleaseProgram(s->prog);
    free(s);
}
