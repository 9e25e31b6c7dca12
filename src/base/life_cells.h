/* Live cells of a Life pattern by their 64-bit plane coordinates, without
 * a grid (module prefix tdcl_life_cells): what the pattern readers give the
 * tile plane (ops/life/life_plane.h) and what it gives back to the
 * writers. */
#ifndef TDCL_LIFE_CELLS_H
#define TDCL_LIFE_CELLS_H

#include <stddef.h>
#include <stdint.h>

#include "base/matrix.h"
#include "base/status.h"

/* xy holds n pairs, x then y; order is the producer's until
 * tdcl_life_cells_sort. */
typedef struct tdcl_life_cells {
    int64_t *xy;
    size_t n, cap;
    int over_limit; /* a reader refused to list more cells: the memory limit */
} tdcl_life_cells;

/* Appends the cell (x, y); TDCL_ENOMEM when the list cannot grow. */
tdcl_status tdcl_life_cells_add(tdcl_life_cells *c, int64_t x, int64_t y, tdcl_err *err);

/* Makes room for n more cells at once (a reader that knows its population):
 * no growth by doubling past what is needed; TDCL_ENOMEM when it cannot. */
tdcl_status tdcl_life_cells_reserve(tdcl_life_cells *c, size_t n, tdcl_err *err);

/* Sorts by row (y), then column (x), the order RLE writes. */
void tdcl_life_cells_sort(tdcl_life_cells *c);

/* The live cells of grid (TDCL_U8, nonzero alive) whose cell (0, 0) is at
 * plane coordinates (x0, y0), appended to *out (the caller's). */
tdcl_status tdcl_life_cells_from_grid(const tdcl_matrix *grid, int64_t x0, int64_t y0,
                                      tdcl_life_cells *out, tdcl_err *err);

/* Releases the list; accepts NULL. */
void tdcl_life_cells_free(tdcl_life_cells *c);

#endif
