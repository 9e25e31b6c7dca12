/* Life on the device: soups, the host reference, cell packing, and the
 * plan (two device buffers ping-ponged, several generations per launch)
 * that builds and runs the shape life_choice.c finds. The file job is
 * jobs/life_job.c. */
#include "ops/life/life.h"
#include "ops/life/life_choice.h"
#include "ops/life/life_net.h"
#include "ops/life/life_prog.h"
#include "ops/life/life_sparse.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/pool.h"
#include "base/rng.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/clock.h"

tdcl_life_opts tdcl_life_opts_default(void)
{
    tdcl_life_opts o;
    memset(&o, 0, sizeof o);
    o.rule = tdcl_life_rule_conway();
    o.boundary = TDCL_LIFE_DEAD;
    return o;
}

/* A zeroed rule (B/S with nothing) is taken as "not set": B3/S23. */
tdcl_life_rule tdcl_life_opts_rule(const tdcl_life_opts *o)
{
    if (o->rule.birth == 0 && o->rule.survive == 0) return tdcl_life_rule_conway();
    return o->rule;
}

tdcl_status tdcl_life_check(const tdcl_life_opts *o, tdcl_err *err)
{
    tdcl_life_rule r = tdcl_life_opts_rule(o);
    char name[24];
    if ((unsigned)o->boundary > TDCL_LIFE_SPHERE)
        return tdcl_fail(err, TDCL_EINVAL, "unknown boundary %d", (int)o->boundary);
    /* Under B0 every dead cell with no live neighbour is born, so "outside
     * is dead" cannot hold; on a torus or a clamped grid there is no outside. */
    if (tdcl_life_rule_has_b0(&r) &&
        (o->boundary == TDCL_LIFE_DEAD || o->edges.open_x || o->edges.open_y))
        return tdcl_fail_param(
            err, TDCL_EINVAL, TDCL_PARAM_BOUNDARY,
            "rule '%s' has B0 (cells born with no live neighbour), which is only "
            "well defined on a finite grid: use a torus or clamped boundary",
            tdcl_life_rule_format(&r, name, sizeof name));
    if (o->word_bits != 0 && o->word_bits != 32 && o->word_bits != 64)
        return tdcl_fail(err, TDCL_EINVAL, "cells per word must be 32 or 64, got %d", o->word_bits);
    if (o->depth < 0 || o->depth > 64 || (o->word_bits && o->depth > o->word_bits))
        return tdcl_fail(err, TDCL_EINVAL,
                         "generations per launch must be 1 to the word's bits, got %d", o->depth);
    if (o->tile < 0) return tdcl_fail(err, TDCL_EINVAL, "tile must be >= 0, got %d", o->tile);
    return TDCL_OK;
}

/* ---- soups and the host reference -------------------------------------- */

typedef struct soup_part {
    uint8_t *cells; /* cells[k] is the soup's cell base + k */
    size_t base, end;
    uint64_t seed, thr;
    int nt; /* pieces */
} soup_part;

/* Fills part i of the soup: nt pieces of the cell range, the last one
 * taking the remainder (any split gives the same cells: counter-based). */
static void soup_fill(void *arg, int i)
{
    const soup_part *p = arg;
    size_t n = p->end, nt = (size_t)p->nt, begin = n / nt * (size_t)i;
    size_t end = i == p->nt - 1 ? n : n / nt * (size_t)(i + 1);
    for (size_t k = begin; k < end; k++)
        p->cells[k] = (uint8_t)((tdcl_rng_at(p->seed, p->base + k) >> 11) < p->thr);
}

tdcl_status tdcl_life_soup_rows(int64_t cols, int64_t r0, int64_t n, double density, uint64_t seed,
                                uint8_t *dst, tdcl_err *err)
{
    if (!(density >= 0.0 && density <= 1.0))
        return tdcl_fail(err, TDCL_EINVAL, "density must be in [0, 1], got %g", density);
    /* alive when the draw's top 53 bits, as a fraction, are below density:
     * exact in double arithmetic, so every machine agrees */
    const uint64_t thr = density >= 1.0 ? UINT64_MAX : (uint64_t)ldexp(density, 53);
    size_t cells = (size_t)n * (size_t)cols;
    int nt = cells < ((size_t)1 << 24) ? 1 : tdcl_pool_size(0, 16);
    soup_part part = {dst, (size_t)r0 * (size_t)cols, cells, seed, thr, nt};
    tdcl_pool_run(nt, soup_fill, &part);
    return TDCL_OK;
}

tdcl_status tdcl_life_soup(int64_t rows, int64_t cols, double density, uint64_t seed,
                           tdcl_matrix *grid, tdcl_err *err)
{
    if (!(density >= 0.0 && density <= 1.0))
        return tdcl_fail(err, TDCL_EINVAL, "density must be in [0, 1], got %g", density);
    tdcl_status st = tdcl_matrix_alloc(grid, rows, cols, 1, TDCL_U8, err);
    if (st == TDCL_OK) st = tdcl_life_soup_rows(cols, 0, rows, density, seed, grid->data, err);
    return st;
}

/* Index of a neighbour one step past [0, n), or -1 for a dead outside. */
static int64_t nb_index(int64_t i, int64_t n, tdcl_life_boundary b)
{
    if (i >= 0 && i < n) return i;
    switch (b) {
    case TDCL_LIFE_TORUS:
        return i < 0 ? i + n : i - n;
    case TDCL_LIFE_CLAMP:
        return i < 0 ? 0 : n - 1;
    default:
        return -1;
    }
}

static int64_t wrap(int64_t i, int64_t n)
{
    i %= n;
    return i < 0 ? i + n : i;
}

int tdcl_life_edge_map(tdcl_life_boundary b, const tdcl_life_edges *e, int64_t rows, int64_t cols,
                       int64_t y, int64_t x, int64_t *ry, int64_t *rx)
{
    static const tdcl_life_edges plain = {0};
    if (!e) e = &plain;
    const int yo = y < 0 || y >= rows, xo = x < 0 || x >= cols;
    if (!yo && !xo) goto in;
    switch (b) {
    case TDCL_LIFE_DEAD:
        return 0;
    case TDCL_LIFE_CLAMP:
        y = y < 0 ? 0 : (y >= rows ? rows - 1 : y);
        x = x < 0 ? 0 : (x >= cols ? cols - 1 : x);
        goto in;
    case TDCL_LIFE_SPHERE: /* top joined to left, right to bottom; corners see the corner */
        if (yo && xo) {
            y = y < 0 ? 0 : rows - 1;
            x = x < 0 ? 0 : cols - 1;
        } else if (yo) {
            int64_t t = x;
            x = y < 0 ? 0 : cols - 1;
            y = t;
        } else {
            int64_t t = y;
            y = x < 0 ? 0 : rows - 1;
            x = t;
        }
        goto in;
    case TDCL_LIFE_CROSS: /* corners see themselves */
        if (yo && xo) {
            y = y < 0 ? 0 : rows - 1;
            x = x < 0 ? 0 : cols - 1;
            goto in;
        }
        break;
    default:
        break;
    }
    /* a torus or Klein bottle: across the top or bottom first, then across
     * the sides, each with its shift or twist. A Klein bottle's shift goes
     * against the twist, as Golly's lifealgo::JoinTwistedAndShiftedEdges
     * runs it (its Help/bounded.html picture of :K4*+1,3 shows the other
     * way; bgolly is the reference) */
    if (yo) {
        if (e->open_y) return 0;
        x = e->twist_h ? cols - 1 - x - e->shift_h : x + (y < 0 ? -e->shift_h : e->shift_h);
        y = wrap(y, rows);
    }
    if (x < 0 || x >= cols) {
        if (e->open_x) return 0;
        y = e->twist_v ? wrap(rows - 1 - y - e->shift_v, rows)
                       : wrap(y + (x < 0 ? -e->shift_v : e->shift_v), rows);
        x = wrap(x, cols);
    }
in:
    *ry = y;
    *rx = x;
    return 1;
}

/* 1 if (dy, dx) is a neighbour in neighbourhood nb. */
static int in_nbhd(int nb, int dy, int dx)
{
    if (!dy && !dx) return 0;
    if (nb == TDCL_LIFE_HEX) return !((dy == -1 && dx == 1) || (dy == 1 && dx == -1));
    if (nb == TDCL_LIFE_VONNEUMANN) return !dy || !dx;
    return 1;
}

/* Rows y0 .. y1-1 of one generation through tdcl_life_edge_map. */
static void step_edges_rows(const tdcl_matrix *in, tdcl_matrix *out, const tdcl_life_rule *rule,
                            tdcl_life_boundary boundary, const tdcl_life_edges *edges, int64_t y0,
                            int64_t y1)
{
    const int64_t H = in->rows, W = in->cols;
    const uint8_t *a = in->data;
    uint8_t *b = out->data;
    for (int64_t y = y0; y < y1; y++)
        for (int64_t x = 0; x < W; x++) {
            int n = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int64_t yy, xx;
                    if (in_nbhd(rule->nbhd, dy, dx) &&
                        tdcl_life_edge_map(boundary, edges, H, W, y + dy, x + dx, &yy, &xx))
                        n += a[yy * W + xx] != 0;
                }
            unsigned mask = a[y * W + x] ? rule->survive : rule->birth;
            b[y * W + x] = (uint8_t)((mask >> n) & 1);
        }
}

void tdcl_life_host_step_edges(const tdcl_matrix *in, tdcl_matrix *out, const tdcl_life_rule *rule,
                               tdcl_life_boundary boundary, const tdcl_life_edges *edges)
{
    step_edges_rows(in, out, rule, boundary, edges, 0, in->rows);
}

void tdcl_life_host_step_rows(const tdcl_matrix *in, tdcl_matrix *out, const tdcl_life_rule *rule,
                              tdcl_life_boundary boundary, int64_t y0, int64_t y1)
{
    /* dead, torus and clamp with Moore keep a loop of their own, apart from
     * tdcl_life_edge_map: a second reference where the two overlap */
    if (rule->nbhd || boundary > TDCL_LIFE_CLAMP) {
        step_edges_rows(in, out, rule, boundary, NULL, y0, y1);
        return;
    }
    const int64_t H = in->rows, W = in->cols;
    const uint8_t *a = in->data;
    uint8_t *b = out->data;
    for (int64_t y = y0; y < y1; y++)
        for (int64_t x = 0; x < W; x++) {
            int n = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    if (!dy && !dx) continue;
                    int64_t yy = nb_index(y + dy, H, boundary), xx = nb_index(x + dx, W, boundary);
                    if (yy >= 0 && xx >= 0) n += a[yy * W + xx] != 0;
                }
            unsigned mask = a[y * W + x] ? rule->survive : rule->birth;
            b[y * W + x] = (uint8_t)((mask >> n) & 1);
        }
}

void tdcl_life_host_step(const tdcl_matrix *in, tdcl_matrix *out, const tdcl_life_rule *rule,
                         tdcl_life_boundary boundary)
{
    tdcl_life_host_step_rows(in, out, rule, boundary, 0, in->rows);
}

/* ---- packing ---------------------------------------------------------- */

/* 8 bytes (any values) to 8 bits, byte i (in memory order) to bit i. */
static uint64_t pack8(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    v |= v >> 4; /* fold each byte onto its bit 0 ... */
    v |= v >> 2;
    v |= v >> 1;
    v &= 0x0101010101010101ULL;
    return (v * 0x0102040810204080ULL) >> 56; /* ... and gather the bits */
}

/* Row of cols cells to nw words of wb bits; unused high bits are 0. */
static void pack_row(const uint8_t *c, int64_t cols, int wb, int64_t nw, void *dst)
{
    uint8_t *bytes = dst; /* words are little-endian on every OpenCL device we serve */
    int64_t nbytes = nw * (wb / 8), full = cols / 8;
    for (int64_t k = 0; k < full; k++)
        bytes[k] = (uint8_t)pack8(c + 8 * k);
    for (int64_t k = full; k < nbytes; k++) {
        uint8_t v = 0;
        for (int b = 0; b < 8 && 8 * k + b < cols; b++)
            v |= (uint8_t)((c[8 * k + b] != 0) << b);
        bytes[k] = v;
    }
}

static void unpack_row(const void *src, int64_t cols, uint8_t *c)
{
    const uint8_t *bytes = src;
    int64_t full = cols / 8;
    for (int64_t k = 0; k < full; k++) {
        uint64_t x = bytes[k] * 0x0101010101010101ULL & 0x8040201008040201ULL;
        x = ((x + 0x7f7f7f7f7f7f7f7fULL) >> 7) & 0x0101010101010101ULL;
        memcpy(c + 8 * k, &x, 8);
    }
    for (int64_t j = full * 8; j < cols; j++)
        c[j] = (bytes[j / 8] >> (j % 8)) & 1;
}

/* Live cells of a row: the packed row's whole bytes (every bit a cell) by
 * popcount, 64 at a time, and the last cols % 8 from the unpacked row c. */
static int64_t row_population(const uint8_t *packed, int64_t cols, const uint8_t *c)
{
    int64_t full = cols / 8, k = 0, n = 0;
    for (; k + 8 <= full; k += 8) {
        uint64_t w;
        memcpy(&w, packed + k, 8);
        n += __builtin_popcountll(w);
    }
    for (; k < full; k++)
        n += __builtin_popcount(packed[k]);
    for (int64_t j = full * 8; j < cols; j++)
        n += c[j] != 0;
    return n;
}

/* ---- the plan's state (the choice: life_choice.c) ------------------------ */

struct tdcl_life_plan {
    tdcl_ctx *ctx;
    tdcl_life_opts o;
    tdcl_life_rule rule;
    life_cfg c;
    int64_t rows, cols, nw; /* nw: words per row (bits), else cols */
    size_t row_bytes, buf_bytes;
    cl_program prog;
    cl_kernel kern;
    cl_kernel kern_last; /* life_stream: the launch of fewer than k generations */
    cl_mem buf[2];
    int cur; /* buf[cur] holds the current generation */
    size_t gws[2], lws[2];
    int64_t generation;
    int64_t population;       /* of the last grid tdcl_life_plan_result* gave, -1 before */
    tdcl_life_sparse *sparse; /* skipping tiles that do not change; NULL: dense */
    cl_mem flow_flags;        /* life_flow: steps each tile has finished, from flow_step 0 */
    cl_mem flow_ticket;       /* life_flow: the next ticket, 0 at each launch */
    int flow_step;            /* life_flow: steps finished since the flags were last 0 */
    char desc[200];
};
static void describe(tdcl_life_plan *p)
{
    const life_cfg *c = &p->c;
    char rule[24];
    tdcl_life_rule_format(&p->rule, rule, sizeof rule);
    if (!c->bits)
        snprintf(p->desc, sizeof p->desc, "kernel=bytes tile=%dx%d rule=%s boundary=%s", c->ts,
                 c->ts, rule, tdcl_life_boundary_name(p->o.boundary));
    else if (c->mode == MODE_BLOCK)
        snprintf(p->desc, sizeof p->desc,
                 "kernel=bits w=%dx%d band=%d rows depth=%d block rule=%s boundary=%s", c->vw,
                 c->wb, c->s, c->k, rule, tdcl_life_boundary_name(p->o.boundary));
    else if (c->mode == MODE_STREAM)
        snprintf(p->desc, sizeof p->desc,
                 "kernel=bits w=1x%d wg=%dx%d stream rows=%d depth=%d rule=%s boundary=%s", c->wb,
                 c->lx, c->ly, c->s, c->k, rule, tdcl_life_boundary_name(p->o.boundary));
    else if (c->mode == MODE_GLOBAL)
        snprintf(p->desc, sizeof p->desc,
                 "kernel=bits w=%dx%d wg=%dx%d rows/item=%d depth=1 global rule=%s boundary=%s",
                 c->vw, c->wb, c->lx, c->ly, c->s, rule, tdcl_life_boundary_name(p->o.boundary));
    else
        snprintf(p->desc, sizeof p->desc,
                 "kernel=bits w=%dx%d wg=%dx%d tile=%dx%d depth=%s%d rule=%s boundary=%s %s%s%s%s",
                 c->vx, c->wb, c->lx, c->ly, c->lx * c->vx * c->wb, c->ly * c->s,
                 c->mode == MODE_SINGLE ? "all/" : "", c->mode == MODE_SINGLE ? 0 : c->k, rule,
                 tdcl_life_boundary_name(p->o.boundary),
                 c->mode == MODE_SINGLE  ? "single-group"
                 : c->mode == MODE_BANDS ? "bands"
                                         : "tiles",
                 c->dbuf ? " 2-buffer" : "", c->flow ? " flow" : "", c->reg ? " registers" : "");
}

/* Registers per work-item for life_bits on NVIDIA: left alone, the
 * compiler spends so many (loads hoisted from every row of the unrolled
 * loop, the boundary's rare paths) that a group of more than 256
 * work-items cannot run and one group fills a multiprocessor. Capped so
 * that a 65536-register multiprocessor holds 512 work-items (two groups of
 * 256), or the group when it is larger. */
static int reg_cap(const life_cfg *c)
{
    if (c->regs > 0) return c->regs < 255 ? c->regs : 255;
    int items = c->lx * c->ly < 512 ? 512 : c->lx * c->ly;
    int r = 65536 / items / 8 * 8;
    return r < 32 ? 32 : r > 255 ? 255 : r;
}

/* Builds the kernel for c; TDCL_ELIMIT when the compiled kernel cannot run
 * with c's work-group (registers, local memory), so choose() can shrink. */
/* 1 if the options' edges need the bytes kernel's general map: Golly's
 * Klein bottle, cross-surface, sphere, shifted or open edges. */
static int edges_mapped(const tdcl_life_opts *o)
{
    return o->boundary > TDCL_LIFE_CLAMP ||
           (o->boundary == TDCL_LIFE_TORUS && tdcl_life_edges_any(&o->edges));
}

static tdcl_status build(tdcl_life_plan *p, const life_cfg *c, tdcl_err *err)
{
    char opts[640];
    tdcl_status st = TDCL_OK;
    const tdcl_device_info *d = &p->ctx->dev;
    /* only the macros the kernel uses, so equal programs share a cache entry */
    const tdcl_life_prog prog = !c->bits                 ? TDCL_LIFE_PROG_BYTES
                                : c->mode == MODE_GLOBAL ? TDCL_LIFE_PROG_BITS1
                                : c->mode == MODE_BLOCK  ? TDCL_LIFE_PROG_BAND
                                : c->mode == MODE_STREAM ? TDCL_LIFE_PROG_STREAM
                                                         : TDCL_LIFE_PROG_BITS;
    const int tiles = prog == TDCL_LIFE_PROG_BITS, stream = prog == TDCL_LIFE_PROG_STREAM;
    const char *kname = tiles && c->flow               ? "life_flow"
                        : tiles                        ? "life_bits"
                        : stream                       ? "life_stream"
                        : prog == TDCL_LIFE_PROG_BAND  ? "life_band"
                        : prog == TDCL_LIFE_PROG_BITS1 ? "life_bits1"
                                                       : "life_bytes";
    const int nv = tdcl_life_nv_options(d);
    int n =
        snprintf(opts, sizeof opts, "-DBIRTH=0x%x -DSURVIVE=0x%x", p->rule.birth, p->rule.survive);
    /* the band's rows and width are arguments: one program for all grids */
    if (prog == TDCL_LIFE_PROG_BAND)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -DWBITS=%d -DK=%d -DVW=%d", c->wb, c->k,
                      c->vw);
    else if (stream) /* the shuffle: NVIDIA, a warp across */
        n +=
            snprintf(opts + n, sizeof opts - (size_t)n,
                     " -DWBITS=%d -DLX=%d -DLY=%d -DS=%d -DK=%d -DVX=1 -DHALVES=%d -DSHFL=%d",
                     c->wb, c->lx, c->ly, c->s, c->k, c->halves ? c->halves : 1, nv && c->lx == 32);
    else if (c->bits && c->mode == MODE_GLOBAL)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -DWBITS=%d -DS=%d -DVW=%d", c->wb, c->s,
                      c->vw);
    else if (c->bits)
        n += snprintf(opts + n, sizeof opts - (size_t)n,
                      " -DWBITS=%d -DLX=%d -DLY=%d -DS=%d -DK=%d -DVX=%d -DDBUF=%d -DFULLW=%d "
                      "-DSINGLE=%d",
                      c->wb, c->lx, c->ly, c->s, c->mode == MODE_SINGLE ? 0 : c->k, c->vx, c->dbuf,
                      c->mode != MODE_TILES, c->mode == MODE_SINGLE);
    else
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -DTS_X=%d -DTS_Y=%d", c->ts, c->ts);
    if (tiles && c->flow)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -DFLOW=1 -DFLOWNV=%d", nv);
    if (tiles && c->reg)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -DREGT=1 -DSHFL=%d",
                      tdcl_life_reg_shfl(d, c));
    if (p->rule.nbhd) /* only when not Moore: equal programs share a cache entry */
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -DNBHD=%d", p->rule.nbhd);
    if (c->bits && c->net0) n += snprintf(opts + n, sizeof opts - (size_t)n, " -DNET=0");
    const int lop3 = (tiles || stream) && c->lop3 && c->vx == 1 && !c->net0 && !p->rule.nbhd && nv;
    const int net3 = c->bits && !c->net0 && !c->net1 && tdcl_life_net_pays(d, lop3) &&
                     tdcl_life_net_opts(p->rule, opts, sizeof opts, &n);
    if (lop3)
        n += net3 ? snprintf(opts + n, sizeof opts - (size_t)n, " -DLOP3ASM=1")
                  : snprintf(opts + n, sizeof opts - (size_t)n,
                             " -DLOP3ASM=1 -DLUT_B0=0x%x -DLUT_B1=0x%x -DLUT_S0=0x%x -DLUT_S1=0x%x",
                             tdcl_life_net_table(p->rule.birth, 0),
                             tdcl_life_net_table(p->rule.birth, 1),
                             tdcl_life_net_table((unsigned)p->rule.survive << 1, 0),
                             tdcl_life_net_table((unsigned)p->rule.survive << 1, 1));
    if (tiles && c->halves && c->wb == 64 && c->vx == 1)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -DHALVES=%d", c->halves);
    if (!c->bits && edges_mapped(&p->o)) {
        const tdcl_life_edges *e = &p->o.edges;
        n += snprintf(opts + n, sizeof opts - (size_t)n,
                      " -DTOPO=%d -DSHIFT_H=%" PRId64 " -DSHIFT_V=%" PRId64
                      " -DTWIST_H=%d -DTWIST_V=%d -DOPEN_X=%d -DOPEN_Y=%d",
                      (int)p->o.boundary, e->shift_h, e->shift_v, e->twist_h, e->twist_v, e->open_x,
                      e->open_y);
    }
    if ((tiles || stream) && nv)
        snprintf(opts + n, sizeof opts - (size_t)n, " -cl-nv-maxrregcount=%d", reg_cap(c));
    if (p->kern) clReleaseKernel(p->kern);
    if (p->kern_last) clReleaseKernel(p->kern_last);
    if (p->prog) clReleaseProgram(p->prog);
    p->kern = p->kern_last = NULL;
    p->prog = NULL;
    TDCL_TRY(tdcl_life_prog_build(p->ctx, prog, opts, &p->prog, err));
    TDCL_TRY(tdcl_ctx_kernel(p->prog, kname, &p->kern, err));
    if (stream) {
        size_t wg_last = 0;
        TDCL_TRY(tdcl_ctx_kernel(p->prog, "life_stream_last", &p->kern_last, err));
        TDCL_CL_TRY(err,
                    clGetKernelWorkGroupInfo(p->kern_last, d->device, CL_KERNEL_WORK_GROUP_SIZE,
                                             sizeof wg_last, &wg_last, NULL),
                    "clGetKernelWorkGroupInfo");
        if (wg_last < (size_t)(c->lx * c->ly)) {
            st = tdcl_fail(err, TDCL_ELIMIT,
                           "life kernel with %s: the device runs life_stream_last in "
                           "work-groups of at most %zu (wanted %d)",
                           opts, wg_last, c->lx * c->ly);
            goto out;
        }
    }
    size_t wg = 0;
    cl_ulong lmem = 0, pmem = 0;
    TDCL_CL_TRY(err,
                clGetKernelWorkGroupInfo(p->kern, d->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg,
                                         &wg, NULL),
                "clGetKernelWorkGroupInfo");
    TDCL_CL_TRY(err,
                clGetKernelWorkGroupInfo(p->kern, d->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem,
                                         &lmem, NULL),
                "clGetKernelWorkGroupInfo");
    if (clGetKernelWorkGroupInfo(p->kern, d->device, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof pmem, &pmem,
                                 NULL) != CL_SUCCESS)
        pmem = 0;
    if (!p->o.quiet)
        tdcl_log(TDCL_LOG_VERBOSE,
                 "life: kernel with %s: work-groups of up to %zu, %llu bytes local, %llu private",
                 opts, wg, (unsigned long long)lmem, (unsigned long long)pmem);
    size_t want = c->bits ? (size_t)(c->lx * c->ly) : (size_t)(c->ts * c->ts);
    if (wg < want || lmem > d->local_mem)
        st = tdcl_fail(err, TDCL_ELIMIT,
                       "life kernel with %s: the device runs work-groups of at most %zu "
                       "(wanted %zu) and has %llu bytes of local memory (kernel uses %llu)",
                       opts, wg, want, (unsigned long long)d->local_mem, (unsigned long long)lmem);
out:
    return st;
}

/* Candidates past this many are not tried: the search's list for one
 * grid is a few dozen shapes. */
enum { CHOICE_CAP = 256 };

/* Why a forced shape is not tried: the search says it does not fit. */
static void no_fit(const tdcl_device_info *d, tdcl_err *why)
{
    tdcl_fail(why, TDCL_ELIMIT,
              "the shape does not cover the grid or exceeds the device's limits (work-group "
              "%zu, local memory %llu bytes)",
              d->max_wg, (unsigned long long)d->local_mem);
}

/* The shapes to try, in order, into list: the user's alone, exactly, when
 * forced (tile or lab overrides given; *n 0 and *why set where it does not
 * fit), else the pure search's list (tdcl_life_choice_list). */
static tdcl_status candidates(const tdcl_life_plan *p, life_cfg *list, size_t *n, char *lab,
                              size_t lab_n, tdcl_err *why, tdcl_err *err)
{
    const tdcl_device_info *d = &p->ctx->dev;
    life_cfg c = tdcl_life_choice_first(d, &p->o, p->rows, p->cols);
    if (p->o.lab) {
        tdcl_life_lab_describe(p->o.lab, lab, lab_n);
        tdcl_status st = tdcl_life_apply_lab(d, p->o.lab, p->rows, p->cols, &c, err);
        if (st) return st;
    }
    if ((c.mode == MODE_STREAM || c.reg) && p->rule.nbhd)
        return tdcl_fail(err, TDCL_EINVAL, "life lab '%s': %s runs the Moore neighbourhood only",
                         lab, c.reg ? "reg=1" : "mode=stream");
    if (p->o.tile == 0 && p->o.lab == NULL) {
        *n = tdcl_life_choice_list(d, &p->o, p->rows, p->cols, list, CHOICE_CAP);
        return TDCL_OK;
    }
    *n = tdcl_life_choice_fits(d, &c, p->rows, p->cols);
    list[0] = c;
    if (!*n) no_fit(d, why);
    return TDCL_OK;
}

/* Builds the first candidate the device runs (the search builds nothing:
 * this step alone does); a build refused for the device's limits
 * (TDCL_ELIMIT) moves on to the next. */
static tdcl_status choose(tdcl_life_plan *p, tdcl_err *err)
{
    const tdcl_device_info *d = &p->ctx->dev;
    char lab[160] = "";
    life_cfg list[CHOICE_CAP];
    size_t n = 0;
    tdcl_err why = {0};
    tdcl_status st = candidates(p, list, &n, lab, sizeof lab, &why, err);
    if (st) return st;
    if (n == 0 && !why.msg[0]) no_fit(d, &why);
    for (size_t i = 0; i < n; i++) {
        memset(&why, 0, sizeof why);
        st = build(p, &list[i], &why);
        if (st == TDCL_OK) {
            p->c = list[i];
            return TDCL_OK;
        }
        if (st != TDCL_ELIMIT) {
            if (err) *err = why;
            return st;
        }
    }
    if (p->o.lab)
        return tdcl_fail(err, TDCL_ELIMIT, "life lab '%s' on '%s', %" PRId64 " x %" PRId64 ": %s",
                         lab, d->device_name, p->cols, p->rows, why.msg);
    if (p->o.tile)
        return tdcl_fail_param(err, TDCL_ELIMIT, TDCL_PARAM_TILE,
                               "tile %d: the device '%s' cannot run this tile (max work-group "
                               "%zu, local memory %llu bytes); leave the tile unset to choose one "
                               "that fits",
                               p->o.tile, d->device_name, d->max_wg,
                               (unsigned long long)d->local_mem);
    return tdcl_fail(err, TDCL_ELIMIT, "no life kernel configuration fits '%s'", d->device_name);
}

/* ---- the plan ------------------------------------------------------------ */

/* Converting between the grid (a byte per cell) and the device layout
 * (packed words or bytes), in bands of rows on up to 8 threads for a large
 * grid: a 16384^2 grid is 268 M cells each way. */
typedef struct layout_job {
    const tdcl_life_plan *p;
    uint8_t *cells; /* the grid */
    uint8_t *dev;   /* the device layout */
    int unpack;     /* dev -> cells (and count), else cells -> dev */
    int nt;
    int64_t pop[8]; /* unpacking: live cells of each band */
} layout_job;

static void layout_band(void *arg, int i)
{
    layout_job *j = arg;
    const tdcl_life_plan *p = j->p;
    int64_t y0 = p->rows * i / j->nt, y1 = p->rows * (i + 1) / j->nt, pop = 0;
    for (int64_t y = y0; y < y1; y++) {
        uint8_t *row = j->dev + (size_t)y * p->row_bytes, *cy = j->cells + y * p->cols;
        if (!j->unpack && p->c.bits) {
            pack_row(cy, p->cols, p->c.wb, p->nw, row);
        } else if (!j->unpack) {
            for (int64_t x = 0; x < p->cols; x++)
                row[x] = cy[x] != 0;
        } else if (p->c.bits) {
            unpack_row(row, p->cols, cy);
            pop += row_population(row, p->cols, cy);
        } else {
            memcpy(cy, row, (size_t)p->cols);
            for (int64_t x = 0; x < p->cols; x++)
                pop += cy[x] != 0;
        }
    }
    j->pop[i] = pop;
}

/* Runs the conversion; returns the live cells when unpacking. */
static int64_t layout(const tdcl_life_plan *p, uint8_t *cells, uint8_t *dev, int unpack)
{
    layout_job j = {.p = p, .cells = cells, .dev = dev, .unpack = unpack, .nt = 1};
    if ((double)p->rows * (double)p->cols >= 4e6) j.nt = tdcl_pool_size(0, 8);
    if (j.nt > 8) j.nt = 8;
    if (j.nt > p->rows) j.nt = (int)p->rows;
    tdcl_pool_run(j.nt, layout_band, &j);
    int64_t pop = 0;
    for (int i = 0; i < j.nt; i++)
        pop += j.pop[i];
    return pop;
}

/* Host rows of the device layout (packed words or bytes) from the grid. */
static tdcl_status host_layout(const tdcl_life_plan *p, const tdcl_matrix *grid, uint8_t **out,
                               tdcl_err *err)
{
    uint8_t *h = malloc(p->buf_bytes);
    if (!h)
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory (%zu bytes for the grid)", p->buf_bytes);
    layout(p, grid->data, h, 0);
    *out = h;
    return TDCL_OK;
}

int64_t tdcl_life_max_rows(const tdcl_device_info *d, const tdcl_life_opts *o, int64_t cols)
{
    double row =
        o->kernel == TDCL_LIFE_KERNEL_BYTES ? (double)cols : (double)((cols + 63) / 64 * 8);
    double cap = (double)d->global_mem / 2;
    if ((double)d->max_alloc < cap) cap = (double)d->max_alloc;
    double rows = cap / (row > 0 ? row : 1);
    return rows > 9e18 ? INT64_MAX : (int64_t)rows;
}

/* Sizes the buffers and checks them against the device. */
static tdcl_status size_buffers(tdcl_life_plan *p, tdcl_err *err)
{
    const tdcl_device_info *d = &p->ctx->dev;
    if (p->rows > INT32_MAX / 2 || p->cols > INT32_MAX / 2)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "a grid of %" PRId64 " x %" PRId64 " is too large (at most %d per side)",
                         p->cols, p->rows, INT32_MAX / 2);
    p->nw = p->c.bits ? (p->cols + p->c.wb - 1) / p->c.wb : p->cols;
    p->row_bytes = p->c.bits ? (size_t)p->nw * (size_t)(p->c.wb / 8) : (size_t)p->cols;
    p->buf_bytes = p->row_bytes * (size_t)p->rows;
    if (p->buf_bytes > d->max_alloc || 2 * (double)p->buf_bytes > (double)d->global_mem)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "a grid of %" PRId64 " x %" PRId64 " needs 2 buffers of %.1f MiB; '%s' "
                         "allows %.1f MiB per buffer and has %.1f MiB",
                         p->cols, p->rows, p->buf_bytes / 1048576.0, d->device_name,
                         d->max_alloc / 1048576.0, d->global_mem / 1048576.0);
    return TDCL_OK;
}

/* life_flow's flags back to 0: every tile has finished step 0. */
static tdcl_status flow_flags_zero(tdcl_life_plan *p, size_t tiles, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const cl_int zero = 0;
    TDCL_CL_TRY(err,
                clEnqueueFillBuffer(p->ctx->queue, p->flow_flags, &zero, sizeof zero, 0,
                                    tiles * sizeof(cl_int), 0, NULL, NULL),
                "clEnqueueFillBuffer");
    p->flow_step = 0;
out:
    return st;
}

/* life_flow's flags and ticket. */
static tdcl_status flow_buffers(tdcl_life_plan *p, size_t tiles, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_int rc;
    p->flow_flags =
        clCreateBuffer(p->ctx->context, CL_MEM_READ_WRITE, tiles * sizeof(cl_int), NULL, &rc);
    TDCL_CL_TRY(err, rc, "clCreateBuffer");
    p->flow_ticket = clCreateBuffer(p->ctx->context, CL_MEM_READ_WRITE, sizeof(cl_int), NULL, &rc);
    TDCL_CL_TRY(err, rc, "clCreateBuffer");
    st = flow_flags_zero(p, tiles, err);
out:
    return st;
}

/* The sparse path when the options and grid take it (life_sparse.c); its
 * tiles join the plan's description. */
static tdcl_status sparse_create(tdcl_life_plan *p, const uint8_t *host, tdcl_err *err)
{
    tdcl_life_sparse_grid g = {p->rows,      p->cols, p->nw, p->c.bits ? p->c.wb : 0,
                               p->row_bytes, host};
    tdcl_status st = tdcl_life_sparse_create(p->ctx, &p->o, &p->rule, &g, &p->sparse, err);
    if (!st && p->sparse) {
        size_t n = strlen(p->desc);
        snprintf(p->desc + n, sizeof p->desc - n, " %s", tdcl_life_sparse_describe(p->sparse));
    }
    return st;
}

tdcl_status tdcl_life_plan_create(tdcl_ctx *ctx, const tdcl_life_opts *o, const tdcl_matrix *grid,
                                  tdcl_life_plan **out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    uint8_t *host = NULL;
    *out = NULL;
    if (grid->dtype != TDCL_U8 || grid->channels != 1 || grid->rows < 1 || grid->cols < 1)
        return tdcl_fail(err, TDCL_EINVAL, "a life grid is a non-empty uint8 matrix, got %s x%d",
                         tdcl_dtype_name(grid->dtype), grid->channels);
    if ((st = tdcl_life_check(o, err)) != TDCL_OK) return st;
    tdcl_life_plan *p = calloc(1, sizeof *p);
    if (!p) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    p->ctx = ctx;
    p->o = *o;
    p->population = -1;
    p->rule = tdcl_life_opts_rule(o);
    p->rows = grid->rows;
    p->cols = grid->cols;
    int wb = o->word_bits ? o->word_bits : 64;
    if (o->kernel != TDCL_LIFE_KERNEL_BYTES && o->depth > wb) {
        st = tdcl_fail(err, TDCL_EINVAL, "depth %d is more than the %d cells of a word", o->depth,
                       wb);
        goto out;
    }
    if (o->boundary == TDCL_LIFE_SPHERE && grid->rows != grid->cols) {
        st = tdcl_fail(err, TDCL_EINVAL, "a sphere's grid is square, got %" PRId64 " x %" PRId64,
                       grid->cols, grid->rows);
        goto out;
    }
    if (edges_mapped(o)) {
        if (o->kernel == TDCL_LIFE_KERNEL_BITS) {
            st = tdcl_fail(err, TDCL_EUNSUPPORTED,
                           "the bits kernel runs dead, torus and clamp boundaries; the bytes "
                           "kernel runs Golly's other bounded grids");
            goto out;
        }
        p->o.kernel = TDCL_LIFE_KERNEL_BYTES;
    }
    TDCL_TRY(choose(p, err));
    TDCL_TRY(size_buffers(p, err));
    describe(p);
    if (!p->o.quiet)
        tdcl_log(TDCL_LOG_VERBOSE, "life: %" PRId64 " x %" PRId64 ", %s", p->cols, p->rows,
                 p->desc);
    if (grid->data) TDCL_TRY(host_layout(p, grid, &host, err));
    double t0 = tdcl_now_ms();
    cl_int rc;
    /* a CPU device's buffers are host memory: a failure there aborts PoCL */
    if (ctx->dev.type & CL_DEVICE_TYPE_CPU)
        TDCL_TRY(
            tdcl_mem_check(2 * (uint64_t)p->buf_bytes, "the grid's two device buffers", 0, 0, err));
    for (int i = 0; i < 2; i++) {
        p->buf[i] = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, p->buf_bytes, NULL, &rc);
        TDCL_CL_TRY(err, rc, "clCreateBuffer");
    }
    if (host)
        TDCL_CL_TRY(err,
                    clEnqueueWriteBuffer(ctx->queue, p->buf[0], CL_TRUE, 0, p->buf_bytes, host, 0,
                                         NULL, NULL),
                    "clEnqueueWriteBuffer");
    ctx->t.upload_ms += tdcl_now_ms() - t0;
    if (host) TDCL_TRY(sparse_create(p, host, err)); /* else dense: no cells to judge by */
    if (p->c.bits && p->c.mode == MODE_BLOCK) {
        p->lws[0] = p->lws[1] = p->gws[0] = 1;
        p->gws[1] = (size_t)((p->rows + p->c.s - 1) / p->c.s);
    } else if (p->c.bits && p->c.mode == MODE_GLOBAL) {
        const life_cfg *c = &p->c;
        p->lws[0] = (size_t)c->lx;
        p->lws[1] = (size_t)c->ly;
        int64_t nv = (p->nw + c->vw - 1) / c->vw;
        p->gws[0] = (size_t)((nv + c->lx - 1) / c->lx) * p->lws[0];
        p->gws[1] = (size_t)(((p->rows + c->s - 1) / c->s + c->ly - 1) / c->ly) * p->lws[1];
    } else if (p->c.bits && p->c.mode == MODE_STREAM) {
        const life_cfg *c = &p->c;
        int64_t chunks = tdcl_life_stream_chunks(p->rows, c->s);
        p->lws[0] = (size_t)c->lx;
        p->lws[1] = (size_t)c->ly;
        p->gws[0] = (size_t)tdcl_life_stream_cols(p->nw, c->lx) * p->lws[0];
        p->gws[1] = (size_t)((chunks + c->ly - 1) / c->ly) * p->lws[1];
    } else if (p->c.bits) {
        const life_cfg *c = &p->c;
        int64_t tw = (int64_t)c->lx * c->vx, er = (int64_t)c->ly * c->s;
        int64_t gx = c->mode != MODE_TILES ? 1 : (p->nw + (tw - 2) - 1) / (tw - 2);
        int64_t gy = c->mode == MODE_SINGLE ? 1 : (p->rows + (er - 2 * c->k) - 1) / (er - 2 * c->k);
        p->lws[0] = (size_t)c->lx;
        p->lws[1] = (size_t)c->ly;
        p->gws[0] = (size_t)gx * p->lws[0];
        p->gws[1] = (size_t)gy * p->lws[1];
        if (c->flow) TDCL_TRY(flow_buffers(p, (size_t)(gx * gy), err));
    } else {
        p->lws[0] = p->lws[1] = (size_t)p->c.ts;
        p->gws[0] = (size_t)((p->cols + p->c.ts - 1) / p->c.ts) * p->lws[0];
        p->gws[1] = (size_t)((p->rows + p->c.ts - 1) / p->c.ts) * p->lws[1];
    }
out:
    free(host);
    if (st) {
        tdcl_life_plan_destroy(p);
        return st;
    }
    *out = p;
    return TDCL_OK;
}

/* Enqueues one launch of n generations (bits) or one (bytes). */
static tdcl_status launch(tdcl_life_plan *p, int n, cl_event *ev, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_kernel k = p->kern_last && n < p->c.k ? p->kern_last : p->kern;
    cl_int rows = (cl_int)p->rows, cols = (cl_int)p->cols, nw = (cl_int)p->nw, gens = n;
    cl_int bnd = edges_mapped(&p->o) ? 3 : (cl_int)p->o.boundary; /* 3: cl/life's B_MAPPED */
    TDCL_CL_TRY(err, clSetKernelArg(k, 0, sizeof(cl_mem), &p->buf[p->cur]), "clSetKernelArg");
    TDCL_CL_TRY(err, clSetKernelArg(k, 1, sizeof(cl_mem), &p->buf[1 - p->cur]), "clSetKernelArg");
    TDCL_CL_TRY(err, clSetKernelArg(k, 2, sizeof rows, &rows), "clSetKernelArg");
    TDCL_CL_TRY(err, clSetKernelArg(k, 3, sizeof cols, &cols), "clSetKernelArg");
    TDCL_CL_TRY(err, clSetKernelArg(k, 4, sizeof bnd, &bnd), "clSetKernelArg");
    if (p->c.bits) TDCL_CL_TRY(err, clSetKernelArg(k, 5, sizeof nw, &nw), "clSetKernelArg");
    if (p->c.bits && p->c.mode != MODE_GLOBAL)
        TDCL_CL_TRY(err, clSetKernelArg(k, 6, sizeof gens, &gens), "clSetKernelArg");
    if (p->c.bits && p->c.mode == MODE_BLOCK) { /* life_band: its two bands, its rows */
        cl_int s = p->c.s;
        TDCL_CL_TRY(err, clSetKernelArg(k, 7, tdcl_life_block_local(&p->c, p->nw), NULL),
                    "clSetKernelArg");
        TDCL_CL_TRY(err, clSetKernelArg(k, 8, sizeof s, &s), "clSetKernelArg");
    }
    TDCL_CL_TRY(err, clEnqueueNDRangeKernel(p->ctx->queue, k, 2, NULL, p->gws, p->lws, 0, NULL, ev),
                "clEnqueueNDRangeKernel");
    p->cur = 1 - p->cur;
out:
    return st;
}

static int64_t flow_tiles(const tdcl_life_plan *p)
{
    return (int64_t)(p->gws[0] / p->lws[0]) * (int64_t)(p->gws[1] / p->lws[1]);
}

/* Generations a life_flow launch advances at most: its tickets (steps
 * times tiles) an int on the device, with room for the last takes. */
static int64_t flow_per(const tdcl_life_plan *p)
{
    int64_t per = (int64_t)p->c.k * (FLOW_MAX_TICKETS / flow_tiles(p));
    return per < INT32_MAX ? per : INT32_MAX;
}

/* Enqueues one life_flow launch of n generations: every step of k of
 * them (the last what is left), every tile, in ticket order. */
static tdcl_status flow_launch(tdcl_life_plan *p, int64_t n, cl_event *ev, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_kernel k = p->kern;
    const cl_int zero = 0, ntx = (cl_int)(p->gws[0] / p->lws[0]),
                 nty = (cl_int)(p->gws[1] / p->lws[1]);
    const int64_t steps = (n + p->c.k - 1) / p->c.k, tiles = flow_tiles(p);
    if (p->flow_step > INT32_MAX - 1 - steps) /* the flags count again from 0 */
        TDCL_TRY(flow_flags_zero(p, (size_t)tiles, err));
    TDCL_CL_TRY(err,
                clEnqueueFillBuffer(p->ctx->queue, p->flow_ticket, &zero, sizeof zero, 0,
                                    sizeof zero, 0, NULL, NULL),
                "clEnqueueFillBuffer");
    cl_int a[] = {(cl_int)p->rows,
                  (cl_int)p->cols,
                  (cl_int)p->o.boundary,
                  (cl_int)p->nw,
                  p->c.k,
                  (cl_int)(n - (steps - 1) * p->c.k),
                  (cl_int)steps,
                  p->flow_step,
                  ntx,
                  nty};
    TDCL_CL_TRY(err, clSetKernelArg(k, 0, sizeof(cl_mem), &p->buf[p->cur]), "clSetKernelArg");
    TDCL_CL_TRY(err, clSetKernelArg(k, 1, sizeof(cl_mem), &p->buf[1 - p->cur]), "clSetKernelArg");
    for (cl_uint i = 0; i < sizeof a / sizeof a[0]; i++)
        TDCL_CL_TRY(err, clSetKernelArg(k, 2 + i, sizeof a[i], &a[i]), "clSetKernelArg");
    TDCL_CL_TRY(err, clSetKernelArg(k, 12, sizeof(cl_mem), &p->flow_flags), "clSetKernelArg");
    TDCL_CL_TRY(err, clSetKernelArg(k, 13, sizeof(cl_mem), &p->flow_ticket), "clSetKernelArg");
    /* enough work-groups to fill the device; any more would find no ticket */
    int64_t cu = tdcl_life_compute_units(&p->ctx->dev);
    int64_t groups = steps * tiles < FLOW_GROUPS_CU * cu ? steps * tiles : FLOW_GROUPS_CU * cu;
    size_t gws[2] = {(size_t)groups * p->lws[0], p->lws[1]};
    TDCL_CL_TRY(err, clEnqueueNDRangeKernel(p->ctx->queue, k, 2, NULL, gws, p->lws, 0, NULL, ev),
                "clEnqueueNDRangeKernel");
    p->cur ^= (int)(steps & 1);
    p->flow_step += (int)steps;
out:
    return st;
}

/* Device time from the start of first to the end of last, in ms. */
static double span_ms(cl_event first, cl_event last)
{
    cl_ulong t0 = 0, t1 = 0;
    if (clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) !=
            CL_SUCCESS ||
        clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) !=
            CL_SUCCESS ||
        t1 < t0)
        return 0;
    return (double)(t1 - t0) * 1e-6;
}

tdcl_status tdcl_life_plan_execute(tdcl_life_plan *p, int64_t gens, double *kernel_ms,
                                   tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_event first = NULL, last = NULL;
    int64_t per = p->sparse                                ? tdcl_life_sparse_depth(p->sparse)
                  : !p->c.bits || p->c.mode == MODE_GLOBAL ? 1
                  : p->c.mode == MODE_SINGLE               ? INT32_MAX
                  : p->c.flow                              ? flow_per(p)
                                                           : p->c.k;
    if (kernel_ms) *kernel_ms = 0;
    if (gens < 0)
        return tdcl_fail(err, TDCL_EINVAL, "generations must be >= 0, got %" PRId64, gens);
    for (int64_t done = 0; done < gens;) {
        int n = (int)(gens - done < per ? gens - done : per);
        int is_first = done == 0, is_last = done + n == gens;
        cl_event ev = NULL;
        if (p->sparse) {
            TDCL_TRY(tdcl_life_sparse_launch(p->sparse, p->buf[p->cur], p->buf[1 - p->cur], n,
                                             is_first ? &first : NULL, is_last ? &last : NULL,
                                             err));
            p->cur = 1 - p->cur;
        } else {
            cl_event *want = (is_first || is_last) ? &ev : NULL;
            TDCL_TRY(p->c.flow ? flow_launch(p, n, want, err) : launch(p, n, want, err));
            if (is_first) first = ev;
            if (is_last) {
                last = ev;
                if (first && ev == first) clRetainEvent(ev);
            }
        }
        done += n;
        p->generation += n;
    }
    if (last) {
        TDCL_CL_TRY(err, clWaitForEvents(1, &last), "clWaitForEvents");
        double ms = span_ms(first, last);
        p->ctx->t.kernel_ms += ms;
        if (kernel_ms) *kernel_ms = ms;
    }
out:
    if (st) clFinish(p->ctx->queue);
    if (first) clReleaseEvent(first);
    if (last) clReleaseEvent(last);
    return st;
}

tdcl_status tdcl_life_plan_result(tdcl_life_plan *p, tdcl_matrix *grid, tdcl_err *err)
{
    memset(grid, 0, sizeof *grid);
    return tdcl_life_plan_result_reuse(p, grid, err);
}

tdcl_status tdcl_life_plan_result_reuse(tdcl_life_plan *p, tdcl_matrix *grid, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    uint8_t *host = NULL;
    int reuse = grid->data && grid->rows == p->rows && grid->cols == p->cols &&
                grid->channels == 1 && grid->dtype == TDCL_U8;
    if (!reuse) tdcl_matrix_free(grid);
    double t0 = tdcl_now_ms();
    if (!(host = malloc(p->buf_bytes)))
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory (%zu bytes)", p->buf_bytes);
    TDCL_CL_TRY(err,
                clEnqueueReadBuffer(p->ctx->queue, p->buf[p->cur], CL_TRUE, 0, p->buf_bytes, host,
                                    0, NULL, NULL),
                "clEnqueueReadBuffer");
    if (!reuse) TDCL_TRY(tdcl_matrix_alloc(grid, p->rows, p->cols, 1, TDCL_U8, err));
    p->population = layout(p, grid->data, host, 1);
    p->ctx->t.download_ms += tdcl_now_ms() - t0;
out:
    free(host);
    return st;
}

int64_t tdcl_life_plan_population(const tdcl_life_plan *p)
{
    return p->population;
}

const char *tdcl_life_plan_describe(const tdcl_life_plan *p)
{
    return p->desc;
}

tdcl_status tdcl_life_plan_computed(tdcl_life_plan *p, double *cell_updates, tdcl_err *err)
{
    double all = (double)p->rows * (double)p->cols * (double)p->generation;
    if (!p->sparse) {
        *cell_updates = all;
        return TDCL_OK;
    }
    tdcl_status st = tdcl_life_sparse_computed(p->sparse, cell_updates, err);
    if (!st && *cell_updates > all) *cell_updates = all; /* last words count whole */
    return st;
}

int tdcl_life_plan_sparse(const tdcl_life_plan *p)
{
    return p->sparse != NULL;
}

int64_t tdcl_life_plan_generation(const tdcl_life_plan *p)
{
    return p->generation;
}

void tdcl_life_plan_destroy(tdcl_life_plan *p)
{
    if (!p) return;
    tdcl_life_sparse_destroy(p->sparse);
    for (int i = 0; i < 2; i++)
        if (p->buf[i]) clReleaseMemObject(p->buf[i]);
    if (p->flow_flags) clReleaseMemObject(p->flow_flags);
    if (p->flow_ticket) clReleaseMemObject(p->flow_ticket);
    if (p->kern) clReleaseKernel(p->kern);
    if (p->kern_last) clReleaseKernel(p->kern_last);
    if (p->prog) clReleaseProgram(p->prog);
    free(p);
}

tdcl_status tdcl_life_run(tdcl_ctx *ctx, const tdcl_life_opts *o, const tdcl_matrix *grid,
                          int64_t gens, tdcl_matrix *out, tdcl_err *err)
{
    tdcl_life_plan *p = NULL;
    tdcl_status st = tdcl_life_plan_create(ctx, o, grid, &p, err);
    if (st == TDCL_OK) st = tdcl_life_plan_execute(p, gens, NULL, err);
    if (st == TDCL_OK) st = tdcl_life_plan_result(p, out, err);
    tdcl_life_plan_destroy(p);
    return st;
}

/* ---- rows of the plan, for shards (dist/life_shards.c) ----------------- */

size_t tdcl_life_plan_row_bytes(const tdcl_life_plan *p)
{
    return p->row_bytes;
}

int tdcl_life_plan_word_bits(const tdcl_life_plan *p)
{
    return p->c.bits ? p->c.wb : 0;
}

int tdcl_life_plan_same_layout(const tdcl_life_plan *a, const tdcl_life_plan *b)
{
    return a->cols == b->cols && a->row_bytes == b->row_bytes && a->c.bits == b->c.bits &&
           (!a->c.bits || a->c.wb == b->c.wb);
}

/* TDCL_EINVAL unless [row0, row0 + n) lies within the plan's rows. */
static tdcl_status check_rows(const tdcl_life_plan *p, int64_t row0, int64_t n, tdcl_err *err)
{
    if (row0 < 0 || n < 0 || row0 > p->rows || n > p->rows - row0)
        return tdcl_fail(err, TDCL_EINVAL,
                         "rows %" PRId64 " to %" PRId64 " are outside the grid's %" PRId64, row0,
                         row0 + n, p->rows);
    return TDCL_OK;
}

tdcl_status tdcl_life_plan_read_rows(tdcl_life_plan *p, int64_t row0, int64_t n, void *dst,
                                     tdcl_err *err)
{
    tdcl_status st = check_rows(p, row0, n, err);
    if (st || n == 0) return st;
    TDCL_CL_TRY(err,
                clEnqueueReadBuffer(p->ctx->queue, p->buf[p->cur], CL_TRUE,
                                    (size_t)row0 * p->row_bytes, (size_t)n * p->row_bytes, dst, 0,
                                    NULL, NULL),
                "clEnqueueReadBuffer");
out:
    return st;
}

tdcl_status tdcl_life_plan_write_rows(tdcl_life_plan *p, int64_t row0, int64_t n, const void *src,
                                      tdcl_err *err)
{
    tdcl_status st = check_rows(p, row0, n, err);
    if (st || n == 0) return st;
    if (p->sparse) TDCL_TRY(tdcl_life_sparse_rows_written(p->sparse, row0, n, err));
    TDCL_CL_TRY(err,
                clEnqueueWriteBuffer(p->ctx->queue, p->buf[p->cur], CL_TRUE,
                                     (size_t)row0 * p->row_bytes, (size_t)n * p->row_bytes, src, 0,
                                     NULL, NULL),
                "clEnqueueWriteBuffer");
out:
    return st;
}

tdcl_status tdcl_life_plan_cells(tdcl_life_plan *p, int64_t row0, int64_t n, uint8_t *cells,
                                 tdcl_err *err)
{
    tdcl_status st = check_rows(p, row0, n, err);
    uint8_t *host = NULL;
    if (st || n == 0) return st;
    size_t bytes = (size_t)n * p->row_bytes;
    if (!(host = malloc(bytes)))
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory (%zu bytes)", bytes);
    TDCL_TRY(tdcl_life_plan_read_rows(p, row0, n, host, err));
    for (int64_t y = 0; y < n; y++) {
        if (p->c.bits)
            unpack_row(host + (size_t)y * p->row_bytes, p->cols, cells + y * p->cols);
        else
            memcpy(cells + y * p->cols, host + (size_t)y * p->row_bytes, (size_t)p->cols);
    }
out:
    free(host);
    return st;
}
