/* The pattern every Life reader gives, the pieces the readers share, and
 * the readers of Golly's own formats (.lif in io/life_lif.c, .mc in
 * io/life_mc.c). io/life_io.h (RLE, .cells, the dispatch by extension or
 * content) sits above them: the format files call only what is declared
 * here. */
#ifndef TDCL_LIFE_PATTERN_H
#define TDCL_LIFE_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "base/life_cells.h"
#include "base/matrix.h"
#include "base/rule.h"
#include "base/status.h"

typedef struct tdcl_life_pattern {
    tdcl_matrix grid; /* TDCL_U8 cells, 0 or 1; owned by the pattern */
    int has_rule;     /* the file named a rule (RLE "rule = ...") */
    tdcl_life_rule rule;
    tdcl_life_topology topo; /* Golly's bounded grid from the RLE rule (or tiledcl's
                                clamp comment), if any */
    int64_t generation;      /* RLE "#CXRLE Gen=N", else 0 */
    int64_t x0, y0;          /* Golly's plane coordinates of grid cell (0, 0) */
} tdcl_life_pattern;

/* Releases the pattern's grid; accepts NULL. */
void tdcl_life_pattern_free(tdcl_life_pattern *p);

/* A listed live cell's bytes (two int64 coordinates). A reader that lists
 * cells holds the list to max_cells bytes, the bytes a grid of max_cells
 * cells (one byte a cell) would take: at most max_cells / 16 cells. */
#define TDCL_LIFE_CELL_BYTES 16

/* TDCL_OK when more live cells may join the list c under max_cells (0: no
 * limit; see TDCL_LIFE_CELL_BYTES); else TDCL_ELIMIT as "name:line: ...",
 * giving the cells and the bytes they would take, and c->over_limit set. Called before the list
 * grows, so a file claiming more cells than memory holds is refused before
 * anything is allocated for them. */
tdcl_status tdcl_life_cells_room(const char *name, long line, tdcl_life_cells *c, uint64_t more,
                                 int64_t max_cells, tdcl_err *err);

/* Parses Life 1.05 or 1.06 text ("#Life 1.05" with "#P x y" blocks of
 * '.' and '*', or "#Life 1.06" with "x y" lines); "#R" or "#N" rules. The
 * grid is the cells' box, x0/y0 its top-left. Same contract as
 * tdcl_life_rle_parse. */
tdcl_status tdcl_life_lif_parse(const char *name, const char *buf, size_t len, int64_t max_cells,
                                tdcl_life_pattern *out, tdcl_err *err);

/* tdcl_life_lif_parse, with list non-NULL the cells appended there at
 * their plane coordinates and out->grid only the box's shape (rows, cols;
 * no data), the list held to max_cells as TDCL_LIFE_CELL_BYTES says. */
tdcl_status tdcl_life_lif_read(const char *name, const char *buf, int64_t max_cells,
                               tdcl_life_pattern *out, tdcl_life_cells *list, tdcl_err *err);

/* Parses a two-state Macrocell file ("[M2]", Golly's quadtree) into a
 * dense grid of the live cells' box; refused with its size (TDCL_ELIMIT)
 * over max_cells, and with TDCL_EUNSUPPORTED for multi-state files. Same
 * contract as tdcl_life_rle_parse. */
tdcl_status tdcl_life_mc_parse(const char *name, const char *buf, size_t len, int64_t max_cells,
                               tdcl_life_pattern *out, tdcl_err *err);

/* tdcl_life_mc_parse, with list non-NULL (and no bounded grid in a "#R"
 * line) the quadtree walked straight into the list: memory in proportion
 * to the live cells, whatever the box (out->grid only its shape, no data);
 * a population past max_cells (TDCL_LIFE_CELL_BYTES) is refused with the
 * root's line before any cell is listed. */
tdcl_status tdcl_life_mc_read(const char *name, const char *buf, int64_t max_cells,
                              tdcl_life_pattern *out, tdcl_life_cells *list, tdcl_err *err);

/* The readers' rule line ("#r 23/3", "#R B3/S23"): the rule from p to the
 * end of the line into out (its bounded grid too when with_topo), or the
 * parser's refusal as "name:line: ...". */
tdcl_status tdcl_life_rule_line(const char *name, long line, const char *p, int with_topo,
                                tdcl_life_pattern *out, tdcl_err *err);

#endif
