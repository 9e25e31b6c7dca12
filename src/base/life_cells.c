/* Live cells by plane coordinates: the list, its order, from a grid. */
#include "base/life_cells.h"

#include <stdlib.h>
#include <string.h>

tdcl_status tdcl_life_cells_add(tdcl_life_cells *c, int64_t x, int64_t y, tdcl_err *err)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        int64_t *xy = cap < SIZE_MAX / 16 ? realloc(c->xy, cap * 2 * sizeof *xy) : NULL;
        if (!xy) return tdcl_fail(err, TDCL_ENOMEM, "out of memory for %zu live cells", cap);
        c->xy = xy;
        c->cap = cap;
    }
    c->xy[2 * c->n] = x;
    c->xy[2 * c->n + 1] = y;
    c->n++;
    return TDCL_OK;
}

tdcl_status tdcl_life_cells_reserve(tdcl_life_cells *c, size_t n, tdcl_err *err)
{
    if (n <= c->cap - c->n) return TDCL_OK;
    size_t cap = n < SIZE_MAX / 16 - c->n ? c->n + n : SIZE_MAX;
    int64_t *xy = cap < SIZE_MAX / 16 ? realloc(c->xy, cap * 2 * sizeof *xy) : NULL;
    if (!xy) return tdcl_fail(err, TDCL_ENOMEM, "out of memory for %zu live cells", cap);
    c->xy = xy;
    c->cap = cap;
    return TDCL_OK;
}

static int by_row(const void *a, const void *b)
{
    const int64_t *p = a, *q = b;
    if (p[1] != q[1]) return p[1] < q[1] ? -1 : 1;
    return (p[0] > q[0]) - (p[0] < q[0]);
}

void tdcl_life_cells_sort(tdcl_life_cells *c)
{
    if (c->n > 1) qsort(c->xy, c->n, 2 * sizeof *c->xy, by_row);
}

tdcl_status tdcl_life_cells_from_grid(const tdcl_matrix *grid, int64_t x0, int64_t y0,
                                      tdcl_life_cells *out, tdcl_err *err)
{
    const uint8_t *g = grid->data;
    for (int64_t y = 0; y < grid->rows; y++)
        for (int64_t x = 0; x < grid->cols; x++)
            if (g[y * grid->cols + x]) {
                tdcl_status st = tdcl_life_cells_add(out, x0 + x, y0 + y, err);
                if (st) return st;
            }
    return TDCL_OK;
}

void tdcl_life_cells_free(tdcl_life_cells *c)
{
    if (!c) return;
    free(c->xy);
    memset(c, 0, sizeof *c);
}
