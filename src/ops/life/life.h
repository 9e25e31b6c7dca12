/* Life-like cellular automata on the device: seeded soups, a host
 * reference, the plan API (upload once, advance any number of generations,
 * download). The file job (read, run, report, write) is jobs/life_job.h.
 *
 * Two kernels (cl/life/): "bits", 32 or 64 cells per word with
 * bit-sliced neighbour counts and several generations per launch, the
 * default; "bytes", one byte per cell and one generation per launch, the
 * reference. Both give identical results for every rule and boundary. On a
 * GPU a small grid runs in bands of whole rows many generations deep, or
 * whole in one work-group for a whole run in one launch; larger grids in
 * tiles a few generations deep. */
#ifndef TDCL_LIFE_H
#define TDCL_LIFE_H

#include <stdint.h>

#include "runtime/clrt.h"
#include "base/matrix.h"
#include "base/rule.h"
#include "base/status.h"

typedef enum tdcl_life_kernel {
    TDCL_LIFE_KERNEL_AUTO = 0, /* bits */
    TDCL_LIFE_KERNEL_BITS,
    TDCL_LIFE_KERNEL_BYTES,
} tdcl_life_kernel;

/* Which device's layout to use; AUTO follows the device type. Forcing the
 * other one is for tests and tuning (the GPU layout runs on PoCL too). */
typedef enum tdcl_life_layout {
    TDCL_LIFE_LAYOUT_AUTO = 0,
    TDCL_LIFE_LAYOUT_CPU,
    TDCL_LIFE_LAYOUT_GPU,
} tdcl_life_layout;

/* Skipping tiles that do not change (life_sparse.h): AUTO skips on grids of
 * at least 2^22 cells of which at most a quarter of the tiles hold a live
 * cell, unless a tile or a lab override asks for a dense shape; ON whenever
 * the rule and boundary allow (no B0; dead, torus or clamp; the bits
 * kernel); OFF never. Results are identical either way. */
typedef enum tdcl_life_sparse_mode {
    TDCL_LIFE_SPARSE_AUTO = 0,
    TDCL_LIFE_SPARSE_OFF,
    TDCL_LIFE_SPARSE_ON,
} tdcl_life_sparse_mode;

struct tdcl_life_lab;

typedef struct tdcl_life_opts {
    tdcl_life_rule rule; /* a zeroed rule means B3/S23 */
    tdcl_life_boundary boundary;
    /* Golly's shifted, twisted or open edges (zero: plain). These, the
     * Klein bottle, cross-surface and sphere run on the bytes kernel (the
     * automatic choice then); the bits kernel refuses them. Both kernels run
     * the hexagonal and von Neumann neighbourhoods. */
    tdcl_life_edges edges;
    /* 0: chosen within the device's limits. bytes: the square tile's side
     * (work-group tile x tile). bits: rows of the work-group's tile. A value
     * the device cannot run is refused with TDCL_ELIMIT. */
    int tile;
    tdcl_life_kernel kernel;
    int depth;     /* bits: generations per launch, 1..word bits; 0 = auto */
    int word_bits; /* bits: 32 or 64 cells per word; 0 = auto */
    tdcl_life_layout layout;
    /* Tests and benchmarks: a shape forced over the automatic choice
     * (life_lab.h), refused with TDCL_ELIMIT when the device cannot run it.
     * NULL in the product: automatic. Not kept past plan creation. */
    const struct tdcl_life_lab *lab;
    tdcl_life_sparse_mode sparse;
    int quiet; /* the plan logs nothing (plans made over and over: streamed bands) */
} tdcl_life_opts;

/* The B3/S23, dead-boundary, automatic-everything options. */
tdcl_life_opts tdcl_life_opts_default(void);

/* The rule o runs: o->rule, or Conway's B3/S23 when o->rule is empty. */
tdcl_life_rule tdcl_life_opts_rule(const tdcl_life_opts *o);

/* Checks the options against each other and the grid: a B0 rule needs a
 * boundary with no outside (torus or clamp). TDCL_EINVAL with a message. */
tdcl_status tdcl_life_check(const tdcl_life_opts *o, tdcl_err *err);

/* A random soup: rows x cols cells, each alive with probability density,
 * from splitmix64 seeded with seed, drawn in row-major order (one draw per
 * cell: alive when its top 53 bits, as a fraction, are below density). The
 * same on every run and machine (large soups are drawn by several threads,
 * each its own part of the one stream). *grid (TDCL_U8 0/1) is the
 * caller's. */
tdcl_status tdcl_life_soup(int64_t rows, int64_t cols, double density, uint64_t seed,
                           tdcl_matrix *grid, tdcl_err *err);

/* Rows r0 .. r0+n-1 of any soup tdcl_life_soup sows cols cells wide, into
 * dst (n x cols bytes): a cell depends on its index alone, so each of
 * several ranks sows only its own rows. */
tdcl_status tdcl_life_soup_rows(int64_t cols, int64_t r0, int64_t n, double density, uint64_t seed,
                                uint8_t *dst, tdcl_err *err);

/* One generation on the host, the reference the kernels are tested against:
 * in and out are rows x cols TDCL_U8 grids (nonzero alive) of equal shape,
 * out receives 0/1. */
void tdcl_life_host_step(const tdcl_matrix *in, tdcl_matrix *out, const tdcl_life_rule *rule,
                         tdcl_life_boundary boundary);

/* Rows y0 .. y1-1 of out only (the rest untouched): callers split one
 * generation over threads. */
void tdcl_life_host_step_rows(const tdcl_matrix *in, tdcl_matrix *out, const tdcl_life_rule *rule,
                              tdcl_life_boundary boundary, int64_t y0, int64_t y1);

/* The same with Golly's edges (NULL: plain) and the rule's neighbourhood. */
void tdcl_life_host_step_edges(const tdcl_matrix *in, tdcl_matrix *out, const tdcl_life_rule *rule,
                               tdcl_life_boundary boundary, const tdcl_life_edges *edges);

/* Where the neighbour (y, x), at most one cell past the grid's edges,
 * lies on a rows x cols grid with boundary b and edges e (NULL: plain), as
 * Golly's Help/bounded.html draws it: 1 and *ry, *rx inside, or 0 for a
 * dead outside. */
int tdcl_life_edge_map(tdcl_life_boundary b, const tdcl_life_edges *e, int64_t rows, int64_t cols,
                       int64_t y, int64_t x, int64_t *ry, int64_t *rx);

/* 1 if the automatic GPU layout runs a grid of rows x cols cells in one
 * work-group on device d, all generations of a run in one launch (its
 * packed words fit the device's local memory and one group's work-items);
 * else 0. */
int tdcl_life_one_group(const tdcl_device_info *d, int64_t rows, int64_t cols);

/* 1 if one work-group of the GPU layout can hold a grid of rows x cols
 * cells at all (its 64-bit words in the device's local memory, its rows
 * among a group's work-items), as a lab override of mode single forces it,
 * whether or not the automatic choice runs it so; else 0. */
int tdcl_life_one_group_fits(const tdcl_device_info *d, int64_t rows, int64_t cols);

/* The most rows of cols cells a plan of o holds on device d: its two grid
 * buffers (words of up to 64 cells, or a byte a cell with
 * TDCL_LIFE_KERNEL_BYTES) each within the largest buffer, both within the
 * memory, as tdcl_life_plan_create checks them. */
int64_t tdcl_life_max_rows(const tdcl_device_info *d, const tdcl_life_opts *o, int64_t cols);

typedef struct tdcl_life_plan tdcl_life_plan;

/* Chooses kernel and tile for the device, builds the program, uploads grid
 * (TDCL_U8, nonzero alive; not kept). *out is the caller's; release with
 * tdcl_life_plan_destroy. A grid without data (its shape only) makes a
 * plan whose cells are not uploaded, to be written whole with
 * tdcl_life_plan_write_rows before it runs; it runs dense. */
tdcl_status tdcl_life_plan_create(tdcl_ctx *ctx, const tdcl_life_opts *o, const tdcl_matrix *grid,
                                  tdcl_life_plan **out, tdcl_err *err);

/* Advances gens >= 0 generations on the device (two buffers ping-ponged, no
 * host copy) and waits. *kernel_ms, if non-NULL, receives the device time
 * from the first launch's start to the last one's end. */
tdcl_status tdcl_life_plan_execute(tdcl_life_plan *p, int64_t gens, double *kernel_ms,
                                   tdcl_err *err);

/* Downloads the current grid into a new TDCL_U8 0/1 matrix, the caller's. */
tdcl_status tdcl_life_plan_result(tdcl_life_plan *p, tdcl_matrix *grid, tdcl_err *err);

/* The same into grid's own memory when grid (the caller's, or empty)
 * already holds a TDCL_U8 matrix of the plan's shape, such as the starting
 * grid: memory touched already takes the download faster than fresh
 * pages. Otherwise grid's data is freed and a new matrix made. On failure
 * grid keeps its memory (the caller frees it). */
tdcl_status tdcl_life_plan_result_reuse(tdcl_life_plan *p, tdcl_matrix *grid, tdcl_err *err);

/* Live cells of the grid the last tdcl_life_plan_result* gave, counted
 * from the packed words as it was unpacked; -1 before any. */
int64_t tdcl_life_plan_population(const tdcl_life_plan *p);

/* "kernel=bits w=64 wg=8x8 rows/item=8 depth=8", valid while p lives. */
const char *tdcl_life_plan_describe(const tdcl_life_plan *p);

/* Cell updates the plan computed since it was created: the whole grid's
 * per generation on the dense path, the computed tiles' when it skips
 * tiles (tdcl_life_plan_sparse). Waits for the device. */
tdcl_status tdcl_life_plan_computed(tdcl_life_plan *p, double *cell_updates, tdcl_err *err);

/* 1 if the plan skips tiles that do not change, else 0. */
int tdcl_life_plan_sparse(const tdcl_life_plan *p);

/* Generations advanced since the plan was created. */
int64_t tdcl_life_plan_generation(const tdcl_life_plan *p);

/* Releases everything; accepts NULL. */
void tdcl_life_plan_destroy(tdcl_life_plan *p);

/* One shot: out (new, the caller's) = grid after gens generations. */
tdcl_status tdcl_life_run(tdcl_ctx *ctx, const tdcl_life_opts *o, const tdcl_matrix *grid,
                          int64_t gens, tdcl_matrix *out, tdcl_err *err);

/* ---- rows of a plan, for a grid split into shards (dist/life_shards.c) */

/* Bytes of one row in the plan's device layout (packed words or bytes). */
size_t tdcl_life_plan_row_bytes(const tdcl_life_plan *p);

/* Cells a word of the plan's layout packs (32 or 64), or 0 for a byte a
 * cell. */
int tdcl_life_plan_word_bits(const tdcl_life_plan *p);

/* 1 if rows of a and b have the same width and device layout, so that rows
 * read from one may be written into the other; else 0. */
int tdcl_life_plan_same_layout(const tdcl_life_plan *a, const tdcl_life_plan *b);

/* Copies rows [row0, row0 + n) of the current generation, in the device
 * layout (n * tdcl_life_plan_row_bytes bytes), to dst, or from src into
 * the plan; both wait for the copy. TDCL_EINVAL for rows outside the grid. */
tdcl_status tdcl_life_plan_read_rows(tdcl_life_plan *p, int64_t row0, int64_t n, void *dst,
                                     tdcl_err *err);
tdcl_status tdcl_life_plan_write_rows(tdcl_life_plan *p, int64_t row0, int64_t n, const void *src,
                                      tdcl_err *err);

/* Rows [row0, row0 + n) of the current generation as cells, 0/1 bytes,
 * n * cols of them, into the caller's cells. */
tdcl_status tdcl_life_plan_cells(tdcl_life_plan *p, int64_t row0, int64_t n, uint8_t *cells,
                                 tdcl_err *err);

#endif
