/* Life pattern files: RLE as Golly and LifeWiki define it, plaintext .cells,
 * and the matrix and image formats through matio.h and image.h; animated
 * GIFs of a run.
 *
 * A grid is a tdcl_matrix of TDCL_U8 cells, 1 alive and 0 dead, rows = the
 * height. Readers name "path:line" and what was expected on bad input and
 * check claimed sizes before allocating; writers go through tdcl_outfile. */
#ifndef TDCL_LIFE_IO_H
#define TDCL_LIFE_IO_H

#include <stdint.h>
#include <stdio.h>

#include "base/matrix.h"
#include "base/rule.h"
#include "base/status.h"
#include "io/life_pattern.h"

/* Parses RLE text buf[0..len) (NUL after the end) as Golly reads it: "#r"
 * rules, "#CXRLE Pos= Gen=", run counts split from their tag by line
 * breaks. name is used in messages ("name:line: ..."). Grids over
 * max_cells cells (0: no limit beyond overflow) are refused before
 * allocating, with TDCL_ELIMIT. A bounded-grid rule makes the grid that
 * size, the pattern placed as Golly places it (top-left at "#CXRLE
 * Pos=X,Y" with the grid's top-left cell at -W/2,-H/2; without Pos the
 * pattern is centred); a size 0 side takes the pattern's own size there.
 * Without a bounded grid the grid is the pattern's box, at Pos (default
 * 0,0). "#C tiledcl boundary=clamp" makes the header's size a clamped
 * grid. *out is owned by the caller. */
tdcl_status tdcl_life_rle_parse(const char *name, const char *buf, size_t len, int64_t max_cells,
                                tdcl_life_pattern *out, tdcl_err *err);

/* Parses plaintext .cells text ('!' comment lines, '.' dead, 'O' alive;
 * short lines padded with dead cells). Same contract as tdcl_life_rle_parse. */
tdcl_status tdcl_life_cells_parse(const char *name, const char *buf, size_t len, int64_t max_cells,
                                  tdcl_life_pattern *out, tdcl_err *err);

/* Reads a pattern from path ("-" = stdin, named '-' in messages): .rle,
 * .cells, .lif, .mc, each also gzipped (.rle.gz, ...), .mtx/.mtx.gz/.npy
 * (nonzero = alive), .pbm/.png (black or dark = alive). The format comes
 * from the extension, else from the content. */
tdcl_status tdcl_life_read(const char *path, int64_t max_cells, tdcl_life_pattern *out,
                           tdcl_err *err);

/* Reads a pattern as tdcl_life_read does, but for a pattern on the
 * unbounded plane its live cells are appended to *cells (the caller's) at
 * their plane coordinates and out->grid keeps only the box's shape (rows,
 * cols; no data): RLE from its runs, .cells and .lif from their lines,
 * .mc by walking its quadtree, so the box may be far larger than memory.
 * max_cells then bounds the list as TDCL_LIFE_CELL_BYTES says (the bytes
 * of a grid of max_cells cells), checked before the list grows. A sparse
 * matrix (coordinate .mtx, .npz) is listed from its nonzero entries, its
 * fixed grid with a dead edge in out->topo and out->grid's shape (no
 * data), whatever its size, and so is an RLE's fixed grid with a dead
 * edge (a ":P" suffix with both sizes). Dense matrices, images and other
 * bounded grids (torus and the other suffixes, the clamp comment) are read
 * into out->grid as tdcl_life_read reads them and nothing is listed. */
tdcl_status tdcl_life_read_cells(const char *path, int64_t max_cells, tdcl_life_pattern *out,
                                 tdcl_life_cells *cells, tdcl_err *err);

typedef struct tdcl_life_write_opts {
    tdcl_life_rule rule;
    tdcl_life_boundary boundary;
    tdcl_life_edges edges; /* shifts, twists, open sides of a Golly grid */
    int unbounded;         /* an unbounded plane: RLE holds the live cells' box at its
                              true place (x0, y0), no bounded-grid suffix */
    int64_t x0, y0;        /* plane coordinates of grid cell (0, 0): unbounded and open
                              sides */
    int64_t generation;    /* written as "#CXRLE Gen=N" and in comments */
    int scale;             /* .png: pixels per cell (0 or 1: one) */
    const char *comment;   /* one comment line (no newline), or NULL */
} tdcl_life_write_opts;

/* Writes grid as RLE to fp, so that Golly and tiledcl resume the run
 * exactly: a bounded grid gives the whole grid's width and height, Golly's
 * suffix (":T64,48", ":K64*,48", ...) and "#CXRLE Pos= Gen="; clamp gives a
 * "#C tiledcl boundary=clamp" line that Golly ignores; an unbounded plane
 * gives the live cells' box at its true Pos. Lines are at most 70
 * characters. */
tdcl_status tdcl_life_rle_write_fp(FILE *fp, const tdcl_matrix *grid, const tdcl_life_write_opts *o,
                                   tdcl_err *err);

/* Writes the live cells (sorted by tdcl_life_cells_sort) as RLE to path
 * (NULL or "-": stdout) through tdcl_outfile: their box at its place on the
 * plane ("#CXRLE Pos= Gen="), no grid made, so the box may be any size
 * the 64-bit plane holds; TDCL_ERANGE when it spans more than 2^63 cells. */
tdcl_status tdcl_life_rle_write_cells(const char *path, const tdcl_life_cells *cells,
                                      const tdcl_life_write_opts *o, tdcl_err *err);

/* Writes a fixed rows x cols grid as RLE to path from its live cells
 * (sorted by tdcl_life_cells_sort, grid coordinates 0..cols-1, 0..rows-1),
 * byte for byte as tdcl_life_write writes the grid with o->unbounded 0:
 * the grid's size and bounded-grid suffix (o->boundary, o->edges), no
 * grid made. */
tdcl_status tdcl_life_rle_write_grid_cells(const char *path, const tdcl_life_cells *cells,
                                           int64_t rows, int64_t cols,
                                           const tdcl_life_write_opts *o, tdcl_err *err);

/* Writes grid as plaintext .cells to fp (full rows, '.' and 'O'). */
tdcl_status tdcl_life_cells_write_fp(FILE *fp, const tdcl_matrix *grid,
                                     const tdcl_life_write_opts *o, tdcl_err *err);

/* Writes grid to path by extension: .rle, .cells, .mtx, .npy, .pbm, .png;
 * NULL or "-" writes RLE to stdout. An unknown extension is TDCL_EINVAL. */
tdcl_status tdcl_life_write(const char *path, const tdcl_matrix *grid,
                            const tdcl_life_write_opts *o, tdcl_err *err);

/* 1 if path's extension is one tdcl_life_write knows. */
int tdcl_life_path_known(const char *path);

/* Number of live cells. */
int64_t tdcl_life_population(const tdcl_matrix *grid);

/* Animated GIFs of a run (tdcl_life_gif_*) are io/gif.h. */
#include "io/gif.h"

#endif
