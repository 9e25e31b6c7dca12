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

/* Byte k of a cell's key: bytes 0-7 the column, 8-15 the row, each as its
 * distance from the least one so that negative coordinates order right. */
static unsigned key_byte(const int64_t *xy, const int64_t lo[2], int k)
{
    return (unsigned)(((uint64_t)xy[k >> 3] - (uint64_t)lo[k >> 3]) >> (8 * (k & 7))) & 255;
}

/* An LSD radix sort, one stable pass per byte of the coordinates' spans:
 * qsort took about 20 s for 10^8 cells, and the writers sort every result.
 * The counts of every pass come from one read (a pass's counts do not depend
 * on the order before it); a pass where all cells share the byte is
 * skipped, so a span of 2^20 columns and rows costs at most six passes. */
static int radix_sort(tdcl_life_cells *c)
{
    int64_t lo[2] = {c->xy[0], c->xy[1]}, hi[2] = {lo[0], lo[1]};
    for (size_t i = 1; i < c->n; i++)
        for (int d = 0; d < 2; d++) {
            int64_t v = c->xy[2 * i + d];
            lo[d] = v < lo[d] ? v : lo[d];
            hi[d] = v > hi[d] ? v : hi[d];
        }
    int used[16], passes = 0;
    for (int k = 0; k < 16; k++)
        if (((uint64_t)hi[k >> 3] - (uint64_t)lo[k >> 3]) >> (8 * (k & 7))) used[passes++] = k;
    size_t(*at)[256] = calloc((size_t)passes + 1, sizeof *at);
    int64_t *tmp = malloc(c->n * 2 * sizeof *tmp);
    if (!at || !tmp) {
        free(at);
        free(tmp);
        return -1;
    }
    for (size_t i = 0; i < c->n; i++)
        for (int p = 0; p < passes; p++)
            at[p][key_byte(c->xy + 2 * i, lo, used[p])]++;
    int64_t *src = c->xy, *dst = tmp;
    for (int p = 0; p < passes; p++) {
        size_t sum = 0, most = 0;
        for (int b = 0; b < 256; b++) {
            size_t n = at[p][b];
            most = n > most ? n : most;
            at[p][b] = sum;
            sum += n;
        }
        if (most == c->n) continue;
        for (size_t i = 0; i < c->n; i++) {
            size_t j = at[p][key_byte(src + 2 * i, lo, used[p])]++;
            dst[2 * j] = src[2 * i];
            dst[2 * j + 1] = src[2 * i + 1];
        }
        int64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != c->xy) memcpy(c->xy, src, c->n * 2 * sizeof *src);
    free(at);
    free(tmp);
    return 0;
}

void tdcl_life_cells_sort(tdcl_life_cells *c)
{
    if (c->n < 2) return;
    /* the radix sort's scratch is a second list; without it, qsort in place */
    if (c->n < 64 || radix_sort(c)) qsort(c->xy, c->n, 2 * sizeof *c->xy, by_row);
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
