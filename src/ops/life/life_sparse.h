/* Skipping what does not change, for the life plan
 * (ops/life/life.c): a per-tile activity map on the device, a list of the
 * tiles to compute built from it before each launch, and cl/life/sparse.cl's
 * life_sparse kernel computing only those, in the plan's own two buffers
 * and word layout. Empty tiles, and tiles whose neighbourhood did not
 * change in the previous launch, are skipped; the result is bit-identical
 * to the dense kernels'. Only life.c uses this header. */
#ifndef TDCL_LIFE_SPARSE_H
#define TDCL_LIFE_SPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "ops/life/life.h"
#include "runtime/clrt.h"

typedef struct tdcl_life_sparse tdcl_life_sparse;

/* The grid the plan holds: rows x cols cells in rows of nw words of wb
 * bits (wb 0: a byte per cell, which the sparse path does not run),
 * row_bytes apart; host, its packed rows (what was uploaded; not kept). */
typedef struct tdcl_life_sparse_grid {
    int64_t rows, cols, nw;
    int wb;
    size_t row_bytes;
    const uint8_t *host;
} tdcl_life_sparse_grid;

/* Decides, from o->sparse, the rule, boundary, layout and the grid's
 * live tiles, whether the plan skips tiles; builds the kernels and the
 * map when it does. *out: the new state (the caller's, release with
 * tdcl_life_sparse_destroy), or NULL for the dense path (the reason is
 * logged at the verbose level). An error only for a failure (a build or
 * an allocation), never for a case the sparse path does not run. */
tdcl_status tdcl_life_sparse_create(tdcl_ctx *ctx, const tdcl_life_opts *o,
                                    const tdcl_life_rule *rule, const tdcl_life_sparse_grid *g,
                                    tdcl_life_sparse **out, tdcl_err *err);

/* Generations one launch advances (the most; the last may advance fewer). */
int tdcl_life_sparse_depth(const tdcl_life_sparse *s);

/* Enqueues one launch of gens generations (1 .. depth) from in to out:
 * the tile list, then the tiles. *ev0 receives the launch's first
 * command's event, *ev1 its last's (each the caller's; NULL: none). */
tdcl_status tdcl_life_sparse_launch(tdcl_life_sparse *s, cl_mem in, cl_mem out, int gens,
                                    cl_event *ev0, cl_event *ev1, tdcl_err *err);

/* Rows [row0, row0 + n) were written from outside (enqueued before the
 * next launch): their tiles are marked changed and alive, so the next
 * launch computes them and their neighbours. */
tdcl_status tdcl_life_sparse_rows_written(tdcl_life_sparse *s, int64_t row0, int64_t n,
                                          tdcl_err *err);

/* Cell updates of the tiles computed since creation (their output words
 * within the grid, times the word's cells, times generations: a row's
 * last word counts whole); waits for the queue. */
tdcl_status tdcl_life_sparse_computed(tdcl_life_sparse *s, double *cell_updates, tdcl_err *err);

/* "sparse tiles=896x96 depth=16", valid while s lives. */
const char *tdcl_life_sparse_describe(const tdcl_life_sparse *s);

/* Releases everything; accepts NULL. */
void tdcl_life_sparse_destroy(tdcl_life_sparse *s);

#endif
