/* The pattern the Life readers give, and the pieces they share. */
#include "io/life_pattern.h"

#include <stdlib.h>
#include <string.h>

void tdcl_life_pattern_free(tdcl_life_pattern *p)
{
    if (p) tdcl_matrix_free(&p->grid);
}

tdcl_status tdcl_life_rule_line(const char *name, long line, const char *p, int with_topo,
                                tdcl_life_pattern *out, tdcl_err *err)
{
    char rule[96];
    size_t n = 0;
    while (*p == ' ' || *p == '\t')
        p++;
    while (*p && *p != '\n' && *p != '\r' && n < sizeof rule - 1)
        rule[n++] = *p++;
    while (n && (rule[n - 1] == ' ' || rule[n - 1] == '\t'))
        n--;
    rule[n] = '\0';
    tdcl_err e = {0}; /* err may be NULL */
    tdcl_status st = tdcl_life_rule_parse(rule, &out->rule, with_topo ? &out->topo : NULL, &e);
    if (st) return tdcl_fail(err, st, "%s:%ld: %s", name, line, e.msg);
    out->has_rule = 1;
    return TDCL_OK;
}

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
