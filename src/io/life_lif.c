/* Life 1.05 / 1.06 (.lif) as Golly reads it: a dense grid of the live
 * cells' box, or a list of the live cells, and where that box lies on
 * Golly's plane. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/life_pattern.h"

/* ---- Life 1.05 / 1.06 ---------------------------------------------------- */

typedef struct lif_box {
    int64_t x0, y0, x1, y1; /* live cells' box, inclusive; x1 < x0: none */
    uint8_t *cells;         /* second pass: the grid, else NULL */
    int64_t cols;
    tdcl_life_cells *list; /* one pass: the cells listed here, the box found */
    int64_t max_cells;
} lif_box;

/* Coordinates beyond this are refused (Golly's are ints): a box of them
 * cannot overflow. */
#define LIF_MAX_COORD ((int64_t)1 << 40)

static tdcl_status lif_cell(const char *name, long line, lif_box *b, int64_t x, int64_t y,
                            tdcl_err *err)
{
    if (b->cells) {
        b->cells[(y - b->y0) * b->cols + (x - b->x0)] = 1;
        return TDCL_OK;
    }
    if (b->list) {
        tdcl_status st = tdcl_life_cells_room(name, line, b->list, 1, b->max_cells, err);
        if (!st) st = tdcl_life_cells_add(b->list, x, y, err);
        if (st) return st;
    }
    if (b->x1 < b->x0) {
        b->x0 = b->x1 = x;
        b->y0 = b->y1 = y;
        return TDCL_OK;
    }
    if (x < b->x0) b->x0 = x;
    if (x > b->x1) b->x1 = x;
    if (y < b->y0) b->y0 = y;
    if (y > b->y1) b->y1 = y;
    return TDCL_OK;
}

/* One pass over the text: the box (cells NULL) or the cells. */
static tdcl_status lif_pass(const char *name, const char *buf, lif_box *b, tdcl_life_pattern *out,
                            tdcl_err *err)
{
    int64_t x = 0, y = 0, left = 0;
    long line = 0;
    for (const char *p = buf, *next; *p; p = next) {
        const char *e = p;
        while (*e && *e != '\n')
            e++;
        next = *e ? e + 1 : e;
        line++;
        if (line == 1) continue; /* "#Life 1.0x" */
        if (p[0] == '#') {
            if (p[1] == 'P') {
                long long a, c;
                /* a bare "#P" (acorn.lif in Golly's collection) keeps the place,
                 * as Golly's reader does */
                if (sscanf(p + 2, " %lld %lld", &a, &c) == 2) {
                    if (llabs(a) > LIF_MAX_COORD || llabs(c) > LIF_MAX_COORD)
                        return tdcl_fail(err, TDCL_ELIMIT, "%s:%ld: a position past 2^40", name,
                                         line);
                    x = left = a;
                    y = c;
                }
            } else if (p[1] == 'R' && !b->cells) {
                tdcl_status st = tdcl_life_rule_line(name, line, p + 2, 0, out, err);
                if (st) return st;
            }
        } else if (p[0] == '-' || isdigit((unsigned char)p[0])) {
            long long a, c;
            if (sscanf(p, "%lld %lld", &a, &c) != 2)
                return tdcl_fail(err, TDCL_EPARSE, "%s:%ld: expected 'x y'", name, line);
            if (llabs(a) > LIF_MAX_COORD || llabs(c) > LIF_MAX_COORD)
                return tdcl_fail(err, TDCL_ELIMIT, "%s:%ld: a position past 2^40", name, line);
            tdcl_status st = lif_cell(name, line, b, a, c, err);
            if (st) return st;
        } else if (p[0] == '.' || p[0] == '*') {
            for (const char *q = p; q < e; q++, x++) {
                tdcl_status st = *q == '*' ? lif_cell(name, line, b, x, y, err) : TDCL_OK;
                if (st) return st;
            }
            x = left;
            y++;
        }
    }
    return TDCL_OK;
}

tdcl_status tdcl_life_lif_parse(const char *name, const char *buf, size_t len, int64_t max_cells,
                                tdcl_life_pattern *out, tdcl_err *err)
{
    (void)len;
    return tdcl_life_lif_read(name, buf, max_cells, out, NULL, err);
}

tdcl_status tdcl_life_lif_read(const char *name, const char *buf, int64_t max_cells,
                               tdcl_life_pattern *out, tdcl_life_cells *list, tdcl_err *err)
{
    memset(out, 0, sizeof *out);
    out->rule = tdcl_life_rule_conway();
    if (strncmp(buf, "#Life 1.0", 9) != 0)
        return tdcl_fail(err, TDCL_EPARSE, "%s:1: expected '#Life 1.05' or '#Life 1.06'", name);
    lif_box b = {0, 0, -1, -1, NULL, 0, list, max_cells};
    tdcl_status st = lif_pass(name, buf, &b, out, err);
    if (st) return st;
    if (b.x1 < b.x0) b.x0 = b.x1 = b.y0 = b.y1 = 0; /* no cells: one dead cell */
    int64_t w = b.x1 - b.x0 + 1, h = b.y1 - b.y0 + 1;
    out->x0 = b.x0;
    out->y0 = b.y0;
    if (list) { /* listed in the one pass: the box's shape only */
        out->grid.rows = h;
        out->grid.cols = w;
        return TDCL_OK;
    }
    if ((max_cells > 0 && h > max_cells / w))
        return tdcl_fail(err, TDCL_ELIMIT,
                         "%s: a grid of %" PRId64 " x %" PRId64 " cells is larger than the limit "
                         "of %" PRId64 " cells",
                         name, w, h, max_cells);
    st = tdcl_matrix_alloc(&out->grid, h, w, 1, TDCL_U8, err);
    if (st) return st;
    b.cells = out->grid.data;
    b.cols = w;
    st = lif_pass(name, buf, &b, out, err);
    if (st) tdcl_life_pattern_free(out);
    return st;
}
