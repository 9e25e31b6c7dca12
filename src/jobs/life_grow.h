/* The unbounded plane of the life job (module prefix tdcl_life_plane): a
 * dense grid that follows the pattern, grown (or shrunk) with a margin of
 * dead cells whenever live cells come near an open edge, checked between
 * chunks of generations no longer than the margin, so the dead edge never
 * changes a result; and the memory bound a grid must fit. */
#ifndef TDCL_LIFE_GROW_H
#define TDCL_LIFE_GROW_H

#include <stdint.h>

#include "base/matrix.h"
#include "base/status.h"

typedef struct tdcl_life_plane {
    int open_x, open_y; /* the directions without an edge */
    int64_t x0, y0;     /* plane coordinates of grid cell (0, 0) */
    int64_t margin;     /* dead cells kept beyond the live ones; the most generations
                           between two fits */
    int64_t max_cells;  /* the memory bound */
    char where[160];    /* what holds the grid, for messages ("the device 'X'") */
} tdcl_life_plane;

/* TDCL_ELIMIT unless a rows x cols grid fits max_cells (the one place
 * that says how large a grid may be). what names the grid in the message. */
tdcl_status tdcl_life_grid_bound(int64_t rows, int64_t cols, int64_t max_cells, const char *where,
                                 const char *what, tdcl_err *err);

/* Generations between fits of an unbounded plane, and the dead cells kept
 * past the live ones, for a rows x cols pattern: more on larger grids,
 * where a fit costs more. */
int64_t tdcl_life_plane_margin(int64_t rows, int64_t cols);

/* Fits the grid to its live cells: when a live cell is nearer than
 * pl->margin to an open edge, or the grid is much larger than the live
 * cells need, *out (new, the caller's) receives a grid of the live box
 * plus twice the margin along the open directions, pl->x0/y0 follow, and
 * *changed is 1; else *changed is 0 and *out is untouched. gen is named
 * in the message when the grid passes the bound. */
tdcl_status tdcl_life_plane_fit(tdcl_life_plane *pl, const tdcl_matrix *grid, int64_t gen,
                                tdcl_matrix *out, int *changed, tdcl_err *err);

/* The live cells' box of grid (all of it if none is alive) as a new
 * matrix, *out the caller's; *dx, *dy its offset in grid. */
tdcl_status tdcl_life_crop(const tdcl_matrix *grid, tdcl_matrix *out, int64_t *dx, int64_t *dy,
                           tdcl_err *err);

/* The window of rows x cols cells whose top-left cell is at plane
 * coordinates (wx, wy), from grid at plane coordinates (gx, gy); cells
 * outside grid are dead. *out (new) is the caller's. */
tdcl_status tdcl_life_window(const tdcl_matrix *grid, int64_t gx, int64_t gy, int64_t wx,
                             int64_t wy, int64_t rows, int64_t cols, tdcl_matrix *out,
                             tdcl_err *err);

/* Centres pattern (a 0/1 grid) in a new rows x cols grid, *out (the
 * caller's); TDCL_EINVAL, about the grid size, when it does not fit. */
tdcl_status tdcl_life_place(const tdcl_matrix *pat, int64_t rows, int64_t cols, tdcl_matrix *out,
                            tdcl_err *err);

#endif
