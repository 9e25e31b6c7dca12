/* The tile plane (module prefix tdcl_life_tiles): Life on the unbounded
 * plane held as 64 x 64-cell tiles that exist only near live cells, so
 * memory and work follow the live area rather than its bounding box.
 *
 * The tiles live in a pool of slots on the device (cl/life/plane.cl), two
 * buffers of 64 words a slot. The host keeps the index from 64-bit tile
 * coordinates to slots (an open-addressing hash) and each slot's eight
 * neighbour slots. A launch advances the listed tiles up to K generations
 * (16 on CPUs, 32 on GPUs); after it the host downloads one flag word and
 * one count a computed tile, never the cells: from them it frees empty
 * tiles, creates tiles where live cells come within K cells of an edge,
 * and lists the next launch's tiles (those that moved and the neighbours
 * their changes come near; still and periodic tiles are skipped). Life-like
 * rules without B0 in the Moore neighbourhood; the rest runs dense. */
#ifndef TDCL_LIFE_PLANE_H
#define TDCL_LIFE_PLANE_H

#include <stdint.h>

#include "base/matrix.h"
#include "base/rule.h"
#include "base/status.h"
#include "base/life_cells.h"
#include "runtime/clrt.h"

/* Cells along a tile's side (a tile is one 64-bit word a row). */
#define TDCL_LIFE_TILE 64

/* Device bytes one tile slot takes: its two buffers and its share of the
 * per-launch lists. */
#define TDCL_LIFE_TILE_BYTES (2 * 8 * (TDCL_LIFE_TILE + 1) + 4 * 11)

typedef struct tdcl_life_tiles tdcl_life_tiles;

typedef struct tdcl_life_tiles_stats {
    int64_t generation;   /* advanced since creation */
    int64_t population;   /* live cells now */
    int64_t tiles;        /* tiles held */
    int64_t active;       /* tiles the next generation computes */
    int64_t peak_tiles;   /* the most tiles held at once */
    double cell_updates;  /* cells of the active area since creation: 64 x 64 a listed
                             tile and generation */
    int launch_gens;      /* the most generations one launch advances */
    int64_t launches;     /* kernel launches since creation */
    double tile_launches; /* tiles listed, summed over the launches */
    double tiles_held;    /* tiles held, summed over the launches */
    double device_ms;     /* in launches, from the first enqueue to the flags read */
    double host_ms;       /* in the host's bookkeeping between launches */
} tdcl_life_tiles_stats;

/* NULL if the plane runs rule, else why not ("B0 rules ...") for the
 * caller's message. */
const char *tdcl_life_tiles_refuses(const tdcl_life_rule *rule);

/* Builds the program and uploads cells (any order; duplicates are one
 * cell). max_bytes bounds the device memory the pool may take (0: the
 * device's own limits). gen0 is the generation cells are at, named in
 * messages. *out is the caller's; release with tdcl_life_tiles_destroy. */
tdcl_status tdcl_life_tiles_create(tdcl_ctx *ctx, const tdcl_life_rule *rule, uint64_t max_bytes,
                                   int64_t gen0, const tdcl_life_cells *cells,
                                   tdcl_life_tiles **out, tdcl_err *err);

/* The same on a fixed grid with a dead edge: the cells [0, cols) x
 * [0, rows) (1..2^62 each; cells must lie inside), every cell outside
 * dead at every generation and no tile made there (plane.cl's
 * PLANE_BOUND). cols = rows = 0 is the unbounded plane. */
tdcl_status tdcl_life_tiles_create_bounded(tdcl_ctx *ctx, const tdcl_life_rule *rule,
                                           uint64_t max_bytes, int64_t gen0, int64_t cols,
                                           int64_t rows, const tdcl_life_cells *cells,
                                           tdcl_life_tiles **out, tdcl_err *err);

/* Advances gens >= 0 generations. A pool that would pass its bound stops
 * with TDCL_ELIMIT naming the generation, the population and the bytes it
 * would need; the plane then holds the generation before. */
tdcl_status tdcl_life_tiles_run(tdcl_life_tiles *p, int64_t gens, tdcl_err *err);

/* The live cells now, appended to *out (the caller's), sorted by row then
 * column. */
tdcl_status tdcl_life_tiles_cells(tdcl_life_tiles *p, tdcl_life_cells *out, tdcl_err *err);

/* The rows x cols cells from plane coordinates (x, y) as a new TDCL_U8 0/1
 * matrix, the caller's (cells of missing tiles dead). */
tdcl_status tdcl_life_tiles_window(tdcl_life_tiles *p, int64_t x, int64_t y, int64_t rows,
                                   int64_t cols, tdcl_matrix *out, tdcl_err *err);

void tdcl_life_tiles_stats_get(const tdcl_life_tiles *p, tdcl_life_tiles_stats *s);

/* Device bytes a pool of tiles slots takes. */
uint64_t tdcl_life_tiles_bytes(int64_t tiles);

/* Releases everything; accepts NULL. */
void tdcl_life_tiles_destroy(tdcl_life_tiles *p);

#endif
