/* The life job's unbounded plane: fitting the grid to its live cells with a
 * margin, cropping for output, windows for animations, the memory bound. */
#include "jobs/life_grow.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

tdcl_status tdcl_life_grid_bound(int64_t rows, int64_t cols, int64_t max_cells, const char *where,
                                 const char *what, tdcl_err *err)
{
    if (rows < 1 || cols < 1 || rows > INT64_MAX / cols ||
        (max_cells > 0 && rows * cols > max_cells))
        return tdcl_fail(err, TDCL_ELIMIT,
                         "%s of %" PRId64 " x %" PRId64 " cells is more than the %" PRId64
                         " cells %s holds",
                         what, cols, rows, max_cells, where ? where : "memory");
    return TDCL_OK;
}

/* The live box: rows r0..r1, columns c0..c1; 0 if no cell is alive. */
static int live_box(const tdcl_matrix *g, int64_t *r0, int64_t *r1, int64_t *c0, int64_t *c1)
{
    const uint8_t *c = g->data;
    int64_t w = g->cols;
    *r0 = g->rows, *r1 = -1, *c0 = w, *c1 = -1;
    for (int64_t i = 0; i < g->rows; i++) {
        const uint8_t *row = c + i * w;
        int64_t a = 0, b = w - 1;
        while (a < w && !row[a])
            a++;
        if (a == w) continue;
        while (!row[b])
            b--;
        if (*r1 < 0) *r0 = i;
        *r1 = i;
        if (a < *c0) *c0 = a;
        if (b > *c1) *c1 = b;
    }
    return *r1 >= 0;
}

/* Copies the rows x cols block of src at (sy, sx) to dst at (dy, dx),
 * clipped to both. */
static void blit(const tdcl_matrix *src, int64_t sy, int64_t sx, tdcl_matrix *dst, int64_t dy,
                 int64_t dx, int64_t rows, int64_t cols)
{
    for (int64_t i = 0; i < rows; i++) {
        int64_t ys = sy + i, yd = dy + i;
        if (ys < 0 || ys >= src->rows || yd < 0 || yd >= dst->rows) continue;
        int64_t a = 0, b = cols;
        if (sx + a < 0) a = -sx;
        if (dx + a < 0) a = -dx;
        if (sx + b > src->cols) b = src->cols - sx;
        if (dx + b > dst->cols) b = dst->cols - dx;
        if (b > a)
            memcpy((uint8_t *)dst->data + yd * dst->cols + dx + a,
                   (const uint8_t *)src->data + ys * src->cols + sx + a, (size_t)(b - a));
    }
}

int64_t tdcl_life_plane_margin(int64_t rows, int64_t cols)
{
    int64_t side = rows > cols ? rows : cols, m = side / 8;
    return m < 32 ? 32 : (m > 1024 ? 1024 : m);
}

tdcl_status tdcl_life_plane_fit(tdcl_life_plane *pl, const tdcl_matrix *grid, int64_t gen,
                                tdcl_matrix *out, int *changed, tdcl_err *err)
{
    int64_t r0, r1, c0, c1, m = pl->margin;
    *changed = 0;
    if (!live_box(grid, &r0, &r1, &c0, &c1)) return TDCL_OK; /* nothing left to grow */
    int64_t bw = c1 - c0 + 1, bh = r1 - r0 + 1;
    /* too near an open edge, or more than four times the room needed */
    int fit_x = pl->open_x && (c0 < m || grid->cols - 1 - c1 < m || grid->cols > 4 * (bw + 4 * m));
    int fit_y = pl->open_y && (r0 < m || grid->rows - 1 - r1 < m || grid->rows > 4 * (bh + 4 * m));
    if (!fit_x && !fit_y) return TDCL_OK;
    int64_t nx = fit_x ? c0 - 2 * m : 0, ny = fit_y ? r0 - 2 * m : 0;
    int64_t ncols = fit_x ? bw + 4 * m : grid->cols, nrows = fit_y ? bh + 4 * m : grid->rows;
    /* every cell of the new grid needs a 64-bit place: the writer and a
     * resumed run must see the same positions, never wrapped ones */
    int64_t nx0, ny0, far;
    if (__builtin_add_overflow(pl->x0, nx, &nx0) || __builtin_add_overflow(nx0, ncols - 1, &far) ||
        __builtin_add_overflow(pl->y0, ny, &ny0) || __builtin_add_overflow(ny0, nrows - 1, &far))
        return tdcl_fail(err, TDCL_ERANGE,
                         "at generation %" PRId64 " the pattern reaches the edge of the 64-bit "
                         "plane (cells are numbered -2^63..2^63-1)",
                         gen);
    char what[96];
    snprintf(what, sizeof what, "at generation %" PRId64 " the unbounded plane's grid", gen);
    tdcl_status st = tdcl_life_grid_bound(nrows, ncols, pl->max_cells, pl->where, what, err);
    if (st) return st;
    st = tdcl_matrix_alloc(out, nrows, ncols, 1, TDCL_U8, err);
    if (st) return st;
    blit(grid, ny, nx, out, 0, 0, nrows, ncols);
    pl->x0 = nx0;
    pl->y0 = ny0;
    *changed = 1;
    return TDCL_OK;
}

tdcl_status tdcl_life_crop(const tdcl_matrix *grid, tdcl_matrix *out, int64_t *dx, int64_t *dy,
                           tdcl_err *err)
{
    int64_t r0, r1, c0, c1;
    if (!live_box(grid, &r0, &r1, &c0, &c1)) r0 = c0 = 0, r1 = grid->rows - 1, c1 = grid->cols - 1;
    tdcl_status st = tdcl_matrix_alloc(out, r1 - r0 + 1, c1 - c0 + 1, 1, TDCL_U8, err);
    if (st) return st;
    blit(grid, r0, c0, out, 0, 0, out->rows, out->cols);
    *dx = c0;
    *dy = r0;
    return TDCL_OK;
}

tdcl_status tdcl_life_window(const tdcl_matrix *grid, int64_t gx, int64_t gy, int64_t wx,
                             int64_t wy, int64_t rows, int64_t cols, tdcl_matrix *out,
                             tdcl_err *err)
{
    tdcl_status st = tdcl_matrix_alloc(out, rows, cols, 1, TDCL_U8, err);
    if (st) return st;
    blit(grid, wy - gy, wx - gx, out, 0, 0, rows, cols);
    return TDCL_OK;
}

tdcl_status tdcl_life_place(const tdcl_matrix *pat, int64_t rows, int64_t cols, tdcl_matrix *out,
                            tdcl_err *err)
{
    if (pat->rows > rows || pat->cols > cols)
        return tdcl_fail_param(err, TDCL_EINVAL, TDCL_PARAM_SIZE,
                               "the pattern (%" PRId64 " x %" PRId64
                               ") does not fit in the %" PRId64 "x%" PRId64 " grid",
                               pat->cols, pat->rows, cols, rows);
    tdcl_status st = tdcl_matrix_alloc(out, rows, cols, 1, TDCL_U8, err);
    if (st) return st;
    int64_t oy = (rows - pat->rows) / 2, ox = (cols - pat->cols) / 2;
    for (int64_t y = 0; y < pat->rows; y++)
        memcpy((uint8_t *)out->data + (oy + y) * cols + ox,
               (const uint8_t *)pat->data + y * pat->cols, (size_t)pat->cols);
    return TDCL_OK;
}
