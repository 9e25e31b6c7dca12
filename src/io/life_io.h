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

typedef struct tdcl_life_pattern {
    tdcl_matrix grid; /* TDCL_U8 cells, 0 or 1; owned by the pattern */
    int has_rule;     /* the file named a rule (RLE "rule = ...") */
    tdcl_life_rule rule;
    tdcl_life_topology topo; /* Golly's bounded grid from the RLE rule, if any */
    int64_t generation;      /* RLE "#CXRLE Gen=N", else 0 */
} tdcl_life_pattern;

/* Releases the pattern's grid; accepts NULL. */
void tdcl_life_pattern_free(tdcl_life_pattern *p);

/* Parses RLE text buf[0..len) (NUL after the end). name is used in
 * messages ("name:line: ..."). Grids over max_cells cells (0: no limit
 * beyond overflow) are refused before allocating, with TDCL_ELIMIT. A
 * bounded-grid rule makes the grid that size, the pattern placed as Golly
 * places it (top-left at "#CXRLE Pos=X,Y", default 0,0, relative to the
 * grid's centre). *out is owned by the caller. */
tdcl_status tdcl_life_rle_parse(const char *name, const char *buf, size_t len, int64_t max_cells,
                                tdcl_life_pattern *out, tdcl_err *err);

/* Parses plaintext .cells text ('!' comment lines, '.' dead, 'O' alive;
 * short lines padded with dead cells). Same contract as tdcl_life_rle_parse. */
tdcl_status tdcl_life_cells_parse(const char *name, const char *buf, size_t len, int64_t max_cells,
                                  tdcl_life_pattern *out, tdcl_err *err);

/* Reads a pattern from path ("-" = stdin): .rle, .cells, .mtx/.mtx.gz/.npy
 * (nonzero = alive), .pbm/.png (black or dark = alive). The format comes
 * from the extension, else from the content. */
tdcl_status tdcl_life_read(const char *path, int64_t max_cells, tdcl_life_pattern *out,
                           tdcl_err *err);

typedef struct tdcl_life_write_opts {
    tdcl_life_rule rule;
    tdcl_life_boundary boundary;
    int64_t generation;  /* written as "#CXRLE Gen=N" and in comments */
    int scale;           /* .png: pixels per cell (0 or 1: one) */
    const char *comment; /* one comment line (no newline), or NULL */
} tdcl_life_write_opts;

/* Writes grid as RLE to fp: the header gives the whole grid's width and
 * height and the rule, with ":T" (torus) or ":P" (dead) and the size so
 * Golly opens it as it was run; lines are at most 70 characters. */
tdcl_status tdcl_life_rle_write_fp(FILE *fp, const tdcl_matrix *grid, const tdcl_life_write_opts *o,
                                   tdcl_err *err);

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
