/* The life job on the tile plane: pattern -> cells -> tiles on the device
 * -> cells -> RLE, with the population log, frames and GIF of a window. */
#include "jobs/life_plane_job.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/log.h"
#include "base/mem.h"
#include "io/life_io.h"
#include "io/sparse_io.h"
#include "jobs/life_grow.h"
#include "ops/life/life_plane.h"

/* The most cells a grid made from the plane (a window, the live box for a
 * format other than RLE, the terminal's preview) may have. */
#define BOX_CELLS_MAX (INT64_C(1) << 32)
#define PREVIEW_CELLS_MAX (INT64_C(1) << 20)

typedef struct plane_run {
    const tdcl_life_job_opts *o;
    tdcl_life_tiles *t;
    tdcl_life_rule rule;
    int64_t gen0;
    int64_t wx, wy, ww, wh; /* the window of frames and the GIF */
    tdcl_life_gif *gif;
    /* a fixed grid with a dead edge: its size (0: the unbounded plane), its
     * suffix, and the pattern's coordinates of its cell (0, 0); the tiles
     * and the window hold grid coordinates */
    int64_t rows, cols, ox, oy;
    tdcl_life_topology topo;
} plane_run;

/* 1 when the job is the plane's to run at all: a file on the unbounded
 * plane, nothing sizing or bounding it; 2 for a fixed grid with a dead
 * edge on every side (a matrix, an RLE's ":P" suffix) that no option
 * resizes or rebounds. Tori, clamped grids and the rest run dense. */
static int plane_case(const tdcl_life_job_opts *o, const tdcl_life_pattern *pat)
{
    const tdcl_life_topology *t = &pat->topo;
    if (o->width > 0 || o->height > 0 || o->boundary_given) return 0;
    if (!t->present) return 1;
    return t->boundary == TDCL_LIFE_DEAD && t->width > 0 && t->height > 0 && !t->edges.open_x &&
                   !t->edges.open_y
               ? 2
               : 0;
}

/* The live box of sorted cells into a new grid at plane (*x0, *y0);
 * TDCL_ELIMIT past max cells. */
static tdcl_status box_grid(const tdcl_life_cells *c, int64_t max, tdcl_matrix *g, int64_t *x0,
                            int64_t *y0, tdcl_err *err)
{
    int64_t a = 0, b = -1, r0 = 0, r1 = -1;
    for (size_t i = 0; i < c->n; i++) {
        int64_t x = c->xy[2 * i];
        if (i == 0 || x < a) a = x;
        if (i == 0 || x > b) b = x;
    }
    if (c->n) r0 = c->xy[1], r1 = c->xy[2 * c->n - 1];
    uint64_t w = c->n ? (uint64_t)b - (uint64_t)a + 1 : 1,
             h = c->n ? (uint64_t)r1 - (uint64_t)r0 + 1 : 1;
    if (w > (uint64_t)max || h > (uint64_t)max / w)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "the live cells' box of %" PRIu64 " x %" PRIu64
                         " cells is too large for a grid; write RLE",
                         w, h);
    tdcl_status st = tdcl_matrix_alloc(g, (int64_t)h, (int64_t)w, 1, TDCL_U8, err);
    if (st) return st;
    memset(g->data, 0, (size_t)(w * h));
    for (size_t i = 0; i < c->n; i++)
        ((uint8_t *)g->data)[(uint64_t)(c->xy[2 * i + 1] - r0) * w + (uint64_t)(c->xy[2 * i] - a)] =
            1;
    *x0 = a;
    *y0 = r0;
    return TDCL_OK;
}

/* pat's grid (its shape set, no data) drawn from its cells, within max
 * cells. */
static tdcl_status draw(tdcl_life_pattern *pat, const tdcl_life_cells *c, int64_t max,
                        tdcl_err *err)
{
    int64_t rows = pat->grid.rows, cols = pat->grid.cols;
    tdcl_status st = tdcl_life_grid_bound(rows, cols, max, "host memory", "the pattern", err);
    if (!st) st = tdcl_matrix_alloc(&pat->grid, rows, cols, 1, TDCL_U8, err);
    if (st) return st;
    uint8_t *g = pat->grid.data;
    memset(g, 0, (size_t)(rows * cols));
    for (size_t i = 0; i < c->n; i++)
        g[(c->xy[2 * i + 1] - pat->y0) * cols + (c->xy[2 * i] - pat->x0)] = 1;
    return TDCL_OK;
}

/* The --every, --frames and --gif work at generation gen of the run. */
static tdcl_status snapshot(plane_run *r, int64_t gen, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix win = {0};
    char *path = NULL;
    const tdcl_life_job_opts *o = r->o;
    int frames = o->frames_dir && o->every > 0;
    if (o->every > 0) {
        tdcl_life_tiles_stats s;
        tdcl_life_tiles_stats_get(r->t, &s);
        tdcl_log(TDCL_LOG_INFO, "generation %" PRId64 ": population %" PRId64, r->gen0 + gen,
                 s.population);
    }
    if (!frames && !r->gif) return TDCL_OK;
    TDCL_TRY(tdcl_life_tiles_window(r->t, r->wx, r->wy, r->wh, r->ww, &win, err));
    if (frames) {
        size_t n = strlen(o->frames_dir) + 40;
        if (!(path = malloc(n))) {
            st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
            goto out;
        }
        snprintf(path, n, "%s/gen-%08" PRId64 ".png", o->frames_dir, r->gen0 + gen);
        tdcl_life_write_opts w = {
            .rule = r->rule, .unbounded = 1, .x0 = r->ox + r->wx, .y0 = r->oy + r->wy};
        w.generation = r->gen0 + gen;
        w.scale = o->scale;
        TDCL_TRY(tdcl_life_write(path, &win, &w, err));
    }
    if (r->gif) TDCL_TRY(tdcl_life_gif_frame(r->gif, &win, err));
out:
    free(path);
    tdcl_matrix_free(&win);
    return st;
}

/* The generations in chunks: up to the next snapshot, with progress. */
static tdcl_status loop(plane_run *r, double *ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const tdcl_life_job_opts *o = r->o;
    tdcl_life_tiles_stats s;
    tdcl_life_tiles_stats_get(r->t, &s);
    /* whole launches: a shorter one ends the plane's skipping of periodic tiles */
    int64_t every = o->every > 0 ? o->every : (r->gif ? 1 : 0), chunk = 4 * s.launch_gens;
    double t0 = tdcl_now_ms(), shown = t0;
    if (every) TDCL_TRY(snapshot(r, 0, err));
    for (int64_t done = 0; done < o->gens;) {
        int64_t n = o->gens - done < chunk ? o->gens - done : chunk;
        if (every && n > every - done % every) n = every - done % every;
        double c0 = tdcl_now_ms();
        TDCL_TRY(tdcl_life_tiles_run(r->t, n, err));
        tdcl_out_reclaim_signals(); /* as the dense loop: PoCL's LLVM takes signals */
        done += n;
        if (tdcl_now_ms() - c0 < 100 && chunk < (INT64_C(1) << 40)) chunk *= 2;
        if (every && done % every == 0) TDCL_TRY(snapshot(r, done, err));
        double now = tdcl_now_ms();
        if (now - shown >= 1000 && done < o->gens) {
            shown = now;
            if (o->progress)
                o->progress(done, o->gens, now - t0, o->progress_user);
            else
                tdcl_log(TDCL_LOG_INFO, "generation %" PRId64 " of %" PRId64 ", %.1f s", done,
                         o->gens, (now - t0) / 1000);
        }
    }
out:
    *ms = tdcl_now_ms() - t0;
    return st;
}

/* A fixed grid's live cells (sorted, grid coordinates) as a coordinate
 * Matrix Market or .npz file of 1s: no array of the grid's cells. */
static tdcl_status write_sparse(const plane_run *r, const tdcl_life_cells *c, tdcl_err *err)
{
    tdcl_csr m = {0};
    tdcl_status st = tdcl_csr_alloc(&m, r->rows, r->cols, (int64_t)c->n, TDCL_I64, 0, err);
    if (st) return st;
    for (size_t k = 0; k < c->n; k++) {
        int64_t x = c->xy[2 * k], y = c->xy[2 * k + 1];
        if (m.idx64) {
            ((int64_t *)m.colidx)[k] = x;
            ((int64_t *)m.rowptr)[y + 1]++;
        } else {
            ((int32_t *)m.colidx)[k] = (int32_t)x;
            ((int32_t *)m.rowptr)[y + 1]++;
        }
        ((int64_t *)m.values)[k] = 1;
    }
    for (int64_t i = 0; i < r->rows; i++)
        if (m.idx64)
            ((int64_t *)m.rowptr)[i + 1] += ((int64_t *)m.rowptr)[i];
        else
            ((int32_t *)m.rowptr)[i + 1] += ((int32_t *)m.rowptr)[i];
    m.sorted = 1;
    st = tdcl_sparse_write_path(r->o->output, &m, err);
    tdcl_csr_free(&m);
    return st;
}

/* A fixed grid's result: RLE and matrices straight from the cells, other
 * formats from the grid drawn, as the dense grid writes them. */
static tdcl_status write_grid_out(const plane_run *r, const tdcl_life_cells *c,
                                  tdcl_life_write_opts *w, tdcl_err *err)
{
    const char *out = r->o->output;
    w->unbounded = 0;
    w->boundary = TDCL_LIFE_DEAD;
    w->edges = r->topo.edges;
    w->x0 = r->ox;
    w->y0 = r->oy;
    if (strcmp(out, "-") == 0 || tdcl_path_has_ext(out, ".rle") || !tdcl_life_path_known(out))
        return tdcl_life_rle_write_grid_cells(out, c, r->rows, r->cols, w, err);
    if (tdcl_path_has_ext(out, ".mtx")) return write_sparse(r, c, err);
    tdcl_life_pattern g = {.grid = {.rows = r->rows, .cols = r->cols}};
    tdcl_status st = draw(&g, c, BOX_CELLS_MAX, err);
    if (!st) st = tdcl_life_write(out, &g.grid, w, err);
    tdcl_life_pattern_free(&g);
    return st;
}

/* The result: RLE straight from the cells, other formats from their box. */
static tdcl_status write_out(const plane_run *r, const tdcl_life_cells *c, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const tdcl_life_job_opts *o = r->o;
    char comment[96];
    snprintf(comment, sizeof comment, "generation %" PRId64 ", written by tiledcl life",
             r->gen0 + o->gens);
    tdcl_life_write_opts w = {.rule = r->rule, .unbounded = 1, .scale = o->scale};
    w.generation = r->gen0 + o->gens;
    w.comment = comment;
    if (r->cols) return write_grid_out(r, c, &w, err);
    if (strcmp(o->output, "-") == 0 || tdcl_path_has_ext(o->output, ".rle") ||
        !tdcl_life_path_known(o->output))
        return tdcl_life_rle_write_cells(o->output, c, &w, err);
    tdcl_matrix g = {0};
    TDCL_TRY(box_grid(c, BOX_CELLS_MAX, &g, &w.x0, &w.y0, err));
    st = tdcl_life_write(o->output, &g, &w, err);
out:
    tdcl_matrix_free(&g);
    return st;
}

static void summarize(const plane_run *r, const tdcl_life_cells *c, double ms,
                      tdcl_life_summary *sum)
{
    tdcl_life_tiles_stats s;
    tdcl_life_tiles_stats_get(r->t, &s);
    memset(sum, 0, sizeof *sum);
    if (c->n) {
        int64_t a = c->xy[0], b = c->xy[0];
        for (size_t i = 0; i < c->n; i++) {
            if (c->xy[2 * i] < a) a = c->xy[2 * i];
            if (c->xy[2 * i] > b) b = c->xy[2 * i];
        }
        sum->cols = b - a + 1;
        sum->rows = c->xy[2 * c->n - 1] - c->xy[1] + 1;
    }
    sum->generations = r->o->gens;
    sum->population = s.population;
    sum->kernel_ms = ms;
    sum->host_timed = 1; /* launches and the host's index between them */
    sum->wall_ms = ms;
    sum->computed = s.cell_updates; /* of the tiles computed, not of the box */
    sum->tiles = s.tiles;
    sum->peak_tiles = s.peak_tiles > 0 ? s.peak_tiles : 1;
    sum->rule = r->rule;
    sum->boundary = TDCL_LIFE_DEAD;
    sum->open_x = sum->open_y = !r->cols;
    if (r->cols) { /* the fixed grid, as the dense grid reports it */
        sum->rows = r->rows;
        sum->cols = r->cols;
    }
    snprintf(sum->describe, sizeof sum->describe,
             "plane=tiles%s tile=%dx%d tiles=%" PRId64 " peak=%" PRId64 " active=%" PRId64
             " computed=%.3g cell updates",
             r->cols ? " grid=dead" : "", TDCL_LIFE_TILE, TDCL_LIFE_TILE, s.tiles, s.peak_tiles,
             s.active, s.cell_updates);
}

/* AUTO's choice, said with -v: 1 for tiles. */
static int choose(const tdcl_ctx *ctx, const tdcl_life_job_opts *o, const tdcl_life_pattern *pat,
                  int64_t live)
{
    double area = (double)pat->grid.rows * (double)pat->grid.cols;
    double d = area > 0 ? (double)live / area : 0;
    int cpu = (ctx->dev.type & CL_DEVICE_TYPE_CPU) != 0;
    double limit = cpu ? TDCL_LIFE_PLANE_DENSITY_CPU : TDCL_LIFE_PLANE_DENSITY_GPU;
    int tiles =
        o->plane == TDCL_LIFE_PLANE_TILES || (o->plane == TDCL_LIFE_PLANE_AUTO && d < limit);
    tdcl_log(TDCL_LOG_VERBOSE,
             "life: %s: %" PRId64 " live cells in a %" PRId64 " x %" PRId64
             " box, %.3g%% alive (%s %.3g%%, measured for a %s)%s",
             tiles ? "the tile plane" : "a dense grid", live, pat->grid.cols, pat->grid.rows,
             100 * d, d < limit ? "below" : "at or above", 100 * limit, cpu ? "CPU" : "GPU",
             o->plane == TDCL_LIFE_PLANE_AUTO ? "" : " (forced)");
    return tiles;
}

static tdcl_status open_outputs(plane_run *r, tdcl_err *err)
{
    const tdcl_life_job_opts *o = r->o;
    tdcl_status st = o->output ? tdcl_out_precheck(o->output, err) : TDCL_OK;
    if (!st && o->gif_path) st = tdcl_out_precheck(o->gif_path, err);
    if (st) return st;
    if (o->frames_dir && mkdir(o->frames_dir, 0777) != 0 && errno != EEXIST)
        return tdcl_fail_param(err, TDCL_EIO, TDCL_PARAM_FRAMES_DIR,
                               "cannot create the frames directory '%s': %s", o->frames_dir,
                               strerror(errno));
    if (o->gif_path)
        return tdcl_life_gif_open(o->gif_path, r->wh, r->ww, o->scale, o->every > 0 ? 10 : 5,
                                  &r->gif, err);
    return TDCL_OK;
}

/* Frames and the GIF show by default the starting grid the dense plane
 * takes: the live cells' box with twice the margin around it, so a run
 * draws the same frames whichever plane its density chose. The pattern's
 * box alone where that would pass the 64-bit plane's edge. */
static void default_window(plane_run *r, const tdcl_life_pattern *pat, const tdcl_life_cells *c,
                           int64_t x0, int64_t y0)
{
    int64_t x1 = x0 + pat->grid.cols - 1, y1 = y0 + pat->grid.rows - 1;
    int64_t m = 2 * tdcl_life_plane_margin(pat->grid.rows, pat->grid.cols), a, b, w, h;
    for (size_t i = 0; i < c->n; i++) {
        int64_t x = c->xy[2 * i], y = c->xy[2 * i + 1];
        if (i == 0) x0 = x1 = x, y0 = y1 = y;
        x0 = x < x0 ? x : x0;
        x1 = x > x1 ? x : x1;
        y0 = y < y0 ? y : y0;
        y1 = y > y1 ? y : y1;
    }
    r->wx = x0;
    r->wy = y0;
    r->ww = x1 - x0 + 1;
    r->wh = y1 - y0 + 1;
    if (__builtin_sub_overflow(x0, m, &a) || __builtin_sub_overflow(y0, m, &b) ||
        __builtin_add_overflow(x1, m, &w) || __builtin_add_overflow(y1, m, &h))
        return;
    r->wx = a;
    r->wy = b;
    r->ww = w - a + 1;
    r->wh = h - b + 1;
}

tdcl_status tdcl_life_plane_job(tdcl_ctx *ctx, const tdcl_life_job_opts *o, tdcl_life_summary *sum,
                                tdcl_matrix *final, int *taken, tdcl_life_pattern *left,
                                tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_life_pattern pat = {0};
    tdcl_life_cells cells = {0};
    plane_run r = {.o = o};
    double t0 = tdcl_now_ms(), ms = 0;
    *taken = 0;
    if (!o->input || o->plane == TDCL_LIFE_PLANE_DENSE || o->gens < 0) return TDCL_OK;
    TDCL_TRY(tdcl_ctx_wait(ctx, err));
    int64_t budget = (int64_t)(tdcl_mem_budget(o->max_bytes, 0, NULL) / 2);
    if ((st = tdcl_life_read_cells(o->input, budget, &pat, &cells, err))) {
        /* a list of 16 bytes a cell can outgrow the grid's 2.25 a cell of
         * the box: the pattern then runs dense if its grid fits, else the
         * caller gives this refusal; a grid the reader drew and refused
         * is refused again by the dense path, with its memory note */
        if (err->status == TDCL_ELIMIT && o->plane != TDCL_LIFE_PLANE_TILES) {
            tdcl_log(TDCL_LOG_VERBOSE, "%s; reading it as a grid", err->msg);
            if (cells.over_limit)
                *taken = -1;
            else
                *err = (tdcl_err){0};
            st = TDCL_OK;
        }
        goto out;
    }
    r.rule = o->rule_given || !pat.has_rule ? tdcl_life_opts_rule(&o->life) : pat.rule;
    const char *why = tdcl_life_tiles_refuses(&r.rule);
    int kind = plane_case(o, &pat);
    if (!kind || why) {
        if (o->plane == TDCL_LIFE_PLANE_TILES)
            st = tdcl_fail(err, TDCL_EINVAL, "the tile plane cannot run this: %s",
                           why ? why
                               : "it holds the unbounded plane and grids with a dead edge "
                                 "only, without a grid size or a boundary");
        if (!why && !pat.grid.data) /* a bounded grid read as cells: the dense grid's */
            goto give_back;
        goto out;
    }
    int64_t x0 = pat.x0, y0 = pat.y0;
    if (kind == 2 && pat.grid.data) /* an RLE's bounded grid, drawn: listed */
        TDCL_TRY(tdcl_life_cells_from_grid(&pat.grid, 0, 0, &cells, err));
    else if (kind == 2) /* a matrix's entries or a ":P" RLE's runs, listed on the plane */
        for (size_t i = 0; i < cells.n; i++) {
            cells.xy[2 * i] -= x0;
            cells.xy[2 * i + 1] -= y0;
        }
    if (!choose(ctx, o, &pat, (int64_t)cells.n)) {
        if (kind == 2 && !pat.grid.data)
            for (size_t i = 0; i < cells.n; i++) { /* back for the dense grid's draw */
                cells.xy[2 * i] += x0;
                cells.xy[2 * i + 1] += y0;
            }
        goto give_back;
    }
    *taken = 1;
    r.gen0 = pat.generation;
    if (kind == 2) {
        r.rows = pat.grid.rows;
        r.cols = pat.grid.cols;
        r.ox = x0;
        r.oy = y0;
        r.topo = pat.topo;
    }
    if (o->window_given) {
        r.wx = o->window_x - r.ox;
        r.wy = o->window_y - r.oy;
        r.ww = o->window_w;
        r.wh = o->window_h;
    } else if (kind == 2) { /* the whole grid, as the dense grid draws it */
        r.ww = r.cols;
        r.wh = r.rows;
    } else {
        default_window(&r, &pat, &cells, x0, y0);
    }
    tdcl_life_pattern_free(&pat);
    ctx->t.read_ms += tdcl_now_ms() - t0;
    uint64_t bound = o->max_bytes;
    if (!bound && (ctx->dev.type & CL_DEVICE_TYPE_CPU)) bound = tdcl_mem_budget(0, 0, NULL);
    t0 = tdcl_now_ms();
    TDCL_TRY(tdcl_life_tiles_create_bounded(ctx, &r.rule, bound, r.gen0, r.cols, r.rows, &cells,
                                            &r.t, err));
    ctx->t.setup_ms += tdcl_now_ms() - t0;
    TDCL_TRY(open_outputs(&r, err));
    TDCL_TRY(loop(&r, &ms, err));
    if (r.gif) {
        tdcl_life_gif *g = r.gif;
        r.gif = NULL;
        TDCL_TRY(tdcl_life_gif_close(g, err));
    }
    cells.n = 0;
    t0 = tdcl_now_ms();
    TDCL_TRY(tdcl_life_tiles_cells(r.t, &cells, err));
    ctx->t.download_ms += tdcl_now_ms() - t0;
    if (sum) summarize(&r, &cells, ms, sum);
    if (o->output) {
        t0 = tdcl_now_ms();
        TDCL_TRY(write_out(&r, &cells, err));
        ctx->t.write_ms += tdcl_now_ms() - t0;
    }
    if (final && r.cols) { /* the preview: the grid where it is small */
        tdcl_life_pattern g = {.grid = {.rows = r.rows, .cols = r.cols}};
        tdcl_err e = {0};
        if (!draw(&g, &cells, PREVIEW_CELLS_MAX, &e)) *final = g.grid;
    } else if (final) { /* the preview: the live box where it is small */
        int64_t fx, fy;
        tdcl_err e = {0};
        if (box_grid(&cells, PREVIEW_CELLS_MAX, final, &fx, &fy, &e))
            memset(final, 0, sizeof *final);
    }
    goto out;
give_back:
    if (!st && !pat.grid.data) /* read as cells: drawn for the dense grid, if it may be */
        st = draw(&pat, &cells, budget, err);
    if (!st) {
        *left = pat;
        memset(&pat, 0, sizeof pat);
    }
out:
    tdcl_life_gif_abort(r.gif);
    tdcl_life_tiles_destroy(r.t);
    tdcl_life_cells_free(&cells);
    tdcl_life_pattern_free(&pat);
    return st;
}
