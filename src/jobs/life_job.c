/* The life job: reads or seeds the grid, runs the plan in chunks with
 * progress and snapshots, and writes the result atomically. */
#include "jobs/life_job.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/log.h"
#include "base/mem.h"
#include "io/image.h"
#include "io/life_io.h"
#include "io/npy.h"
#include "jobs/life_grow.h"
#include "jobs/life_plane_job.h"
#include "jobs/shard_life.h"

/* The largest grid the device holds, in cells: its rows of one word. */
static int64_t max_cells_for(const tdcl_ctx *ctx, const tdcl_life_opts *o)
{
    int64_t rows = tdcl_life_max_rows(&ctx->dev, o, 64);
    return rows > INT64_MAX / 64 ? INT64_MAX : rows * 64;
}

/* The host bytes a cell takes: the grid and the result, a byte each, and
 * on a CPU device its two buffers. */
static double host_bytes_per_cell(const tdcl_ctx *ctx, const tdcl_life_opts *o)
{
    double dev = o->kernel == TDCL_LIFE_KERNEL_BYTES ? 2.0 : 0.25;
    return 2.0 + ((ctx->dev.type & CL_DEVICE_TYPE_CPU) ? dev : 0.0);
}

/* The host bytes a cell takes where the grid is larger than the device
 * and streams through it in bands (tdcl_life_stream_job): the grid read,
 * then the two grids of the rounds, and the result. */
#define STREAM_BYTES_PER_CELL 3.0

/* The most host bytes a cell can take, before the device is known: on a
 * CPU device, or streamed. */
static double worst_bytes_per_cell(const tdcl_life_opts *o)
{
    double dev = 2.0 + (o->kernel == TDCL_LIFE_KERNEL_BYTES ? 2.0 : 0.25);
    return dev > STREAM_BYTES_PER_CELL ? dev : STREAM_BYTES_PER_CELL;
}

static int64_t cells_in(double budget, double per, int64_t cap)
{
    double n = budget / per;
    return n < (double)cap ? (int64_t)n : cap;
}

/* The largest grid the host memory (tdcl_mem_budget's rules, o->max_bytes
 * confirming more or setting less) allows, on the device or streamed
 * through it, where held bytes of the grid are allocated already (so the
 * figure is the same before and after); *per: the host bytes a cell takes
 * at that limit, *by: the bound that sets the memory (NULL: not wanted). */
static int64_t grid_cells_limit_per(const tdcl_ctx *ctx, const tdcl_life_job_opts *o,
                                    const tdcl_life_opts *lo, uint64_t held, double *per,
                                    tdcl_mem_bound *by)
{
    double budget = (double)tdcl_mem_budget(o->max_bytes, held, by);
    double on_per = host_bytes_per_cell(ctx, lo);
    int64_t on = cells_in(budget, on_per, max_cells_for(ctx, lo));
    int64_t streamed = cells_in(budget, STREAM_BYTES_PER_CELL, INT64_MAX / 4);
    if (per) *per = on >= streamed ? on_per : STREAM_BYTES_PER_CELL;
    return on >= streamed ? on : streamed;
}

static int64_t grid_cells_limit(const tdcl_ctx *ctx, const tdcl_life_job_opts *o,
                                const tdcl_life_opts *lo, uint64_t held)
{
    return grid_cells_limit_per(ctx, o, lo, held, NULL, NULL);
}

/* After a grid was refused: says so when host memory set the limit. */
static void memory_note(const tdcl_ctx *ctx, const tdcl_life_job_opts *o, const tdcl_life_opts *lo,
                        tdcl_err *err)
{
    double per = 0;
    tdcl_mem_bound by = TDCL_MEM_BY_LIMITS;
    /* the grid is freed by now: nothing of it is held */
    int64_t lim = grid_cells_limit_per(ctx, o, lo, 0, &per, &by);
    int device = per != STREAM_BYTES_PER_CELL && lim >= max_cells_for(ctx, lo);
    if (!err || err->status != TDCL_ELIMIT || device) return;
    char b[32];
    size_t n = strlen(err->msg);
    double bytes = (double)lim * per;
    /* the byte limit given, or the half it would lift, is the one to change */
    if (by != TDCL_MEM_BY_LIMITS) err->param = TDCL_PARAM_MAX_BYTES;
    snprintf(err->msg + n, sizeof err->msg - n, " (at %.3g bytes of host memory a cell: %s, %s)",
             per, tdcl_mem_size((uint64_t)bytes, b, sizeof b),
             by == TDCL_MEM_BY_ALLOW  ? "the byte limit given"
             : by == TDCL_MEM_BY_HALF ? "half of what this host has available; allow more bytes "
                                        "to go ahead"
                                      : "what the process's limits (ulimit -v, -d) and the "
                                        "host's available memory leave");
}

/* Generations between fits of an unbounded plane, and the dead cells kept
 * past the live ones: more on larger grids, where a fit costs more. */
static int64_t plane_margin(int64_t rows, int64_t cols)
{
    int64_t side = rows > cols ? rows : cols, m = side / 8;
    return m < 32 ? 32 : (m > 1024 ? 1024 : m);
}

/* Sets up the unbounded plane (or a Golly grid open one way) for a pattern
 * without a bounded grid or overrides: pl->open_x/open_y say which ways
 * grow, and the grid gets its first margin. */
static tdcl_status plane_start(tdcl_ctx *ctx, const tdcl_life_job_opts *o, tdcl_life_opts *lo,
                               const tdcl_life_pattern *pat, tdcl_life_plane *pl, tdcl_matrix *grid,
                               tdcl_err *err)
{
    memset(pl, 0, sizeof *pl);
    if (o->width > 0 || o->height > 0 || o->boundary_given) return TDCL_OK;
    if (!pat->topo.present) {
        pl->open_x = pl->open_y = 1;
        lo->boundary = TDCL_LIFE_DEAD;
    } else {
        pl->open_x = pat->topo.edges.open_x;
        pl->open_y = pat->topo.edges.open_y;
    }
    if (!pl->open_x && !pl->open_y) return TDCL_OK;
    pl->x0 = pat->x0;
    pl->y0 = pat->y0;
    pl->margin = plane_margin(grid->rows, grid->cols);
    pl->max_cells = max_cells_for(ctx, lo);
    snprintf(pl->where, sizeof pl->where, "the device '%s'", ctx->dev.device_name);
    tdcl_matrix fitted = {0};
    int changed = 0;
    tdcl_status st = tdcl_life_plane_fit(pl, grid, pat->generation, &fitted, &changed, err);
    if (st || !changed) return st;
    tdcl_matrix_free(grid);
    *grid = fitted;
    return TDCL_OK;
}

/* The starting grid, rule and boundary from the file or the soup options.
 * A soup's .npy output (its shape the soup's) is opened and its space
 * reserved while the device opens (*early). */
static tdcl_status job_input(tdcl_ctx *ctx, const tdcl_life_job_opts *o, tdcl_life_opts *lo,
                             tdcl_life_pattern *pre, tdcl_matrix *grid, int64_t *gen0,
                             tdcl_life_plane *pl, tdcl_npy_out **early_out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_life_pattern pat = {0};
    double t0 = tdcl_now_ms();
    *gen0 = 0;
    if (!o->input) {
        int64_t w = o->width > 0 ? o->width : 500, h = o->height > 0 ? o->height : 500;
        /* a soup of up to 2^32 cells is sown while the device opens, and
         * checked against it after, where host memory holds it whatever
         * the device (nothing is sown that memory then refuses); any
         * other only once the device is known and the check passed */
        int early =
            w <= (INT64_C(1) << 32) / h && (double)w * (double)h * worst_bytes_per_cell(lo) <=
                                               (double)tdcl_mem_budget(o->max_bytes, 0, NULL);
        if (early) st = tdcl_life_soup(h, w, o->density, o->seed, grid, err);
        ctx->t.read_ms += tdcl_now_ms() - t0;
        if (!st && early) st = tdcl_npy_out_early(o->output, h, w, TDCL_U8, early_out, err);
        if (!st) st = tdcl_ctx_wait(ctx, err);
        /* the soup sown, a byte a cell, is the grid's own: counted back */
        uint64_t held = early ? (uint64_t)w * (uint64_t)h : 0;
        double per = 0;
        int64_t max_cells = st ? 0 : grid_cells_limit_per(ctx, o, lo, held, &per, NULL);
        int by_device = !st && per != STREAM_BYTES_PER_CELL && max_cells >= max_cells_for(ctx, lo);
        if (!st && w > max_cells / h)
            st = tdcl_fail_param(
                err, TDCL_ELIMIT, TDCL_PARAM_SIZE,
                "a %" PRId64 "x%" PRId64 " grid is more than the %" PRId64 " cells %s%s%s holds", w,
                h, max_cells, by_device ? "'" : "",
                by_device ? ctx->dev.device_name : "host memory", by_device ? "'" : "");
        if (st || early) {
            if (st) tdcl_matrix_free(grid);
            return st;
        }
        t0 = tdcl_now_ms();
        st = tdcl_life_soup(h, w, o->density, o->seed, grid, err);
        ctx->t.read_ms += tdcl_now_ms() - t0;
        return st;
    }
    TDCL_TRY(tdcl_ctx_wait(ctx, err)); /* the grid's limit is the device's */
    int64_t max_cells = grid_cells_limit(ctx, o, lo, 0);
    if (pre->grid.data) { /* read already: checked against this path's bound */
        TDCL_TRY(tdcl_life_grid_bound(pre->grid.rows, pre->grid.cols, max_cells, "host memory",
                                      "the pattern", err));
        pat = *pre;
        memset(pre, 0, sizeof *pre);
    } else {
        TDCL_TRY(tdcl_life_read(o->input, max_cells, &pat, err));
    }
    if (!o->rule_given && pat.has_rule) lo->rule = pat.rule;
    if (!o->boundary_given && pat.topo.present) {
        lo->boundary = pat.topo.boundary;
        lo->edges = pat.topo.edges;
    }
    *gen0 = pat.generation;
    if (o->width > 0 || o->height > 0) {
        int64_t w = o->width > 0 ? o->width : pat.grid.cols;
        int64_t h = o->height > 0 ? o->height : pat.grid.rows;
        if (w > max_cells / h) {
            st = tdcl_fail_param(err, TDCL_ELIMIT, TDCL_PARAM_SIZE,
                                 "a %" PRId64 "x%" PRId64 " grid is too large", w, h);
            goto out;
        }
        TDCL_TRY(tdcl_life_place(&pat.grid, h, w, grid, err));
    } else {
        *grid = pat.grid;
        pat.grid.data = NULL;
        TDCL_TRY(plane_start(ctx, o, lo, &pat, pl, grid, err));
    }
out:
    tdcl_life_pattern_free(&pat);
    ctx->t.read_ms += tdcl_now_ms() - t0;
    return st;
}

typedef struct job_state {
    const tdcl_life_job_opts *o;
    tdcl_ctx *ctx;
    const tdcl_life_opts *lo;
    tdcl_life_plane pl; /* the unbounded plane, when pl.open_x or pl.open_y */
    int64_t gif_x0, gif_y0, gif_rows, gif_cols; /* a growing grid's window: GIF, frames */
    tdcl_life_write_opts w;
    tdcl_life_gif *gif;
    int64_t gen0;
    double t_start, t_report;
    int host_timed; /* the loop's times are the host's (job_loop) */
} job_state;

/* The --every, --frames and --gif work at generation gen. */
static tdcl_status job_snapshot(job_state *js, tdcl_life_plan *p, int64_t gen, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix g = {0}, win = {0};
    char *path = NULL;
    int frames = js->o->frames_dir && js->o->every > 0;
    TDCL_TRY(tdcl_life_plan_result(p, &g, err));
    const tdcl_matrix *pic = &g; /* what a frame and the GIF show */
    if (js->pl.open_x || js->pl.open_y) {
        /* a growing grid: frames of one size, the starting grid's window
         * (cells that leave it are not drawn) */
        tdcl_matrix c = {0};
        int64_t dx, dy;
        if (js->gif || frames) {
            TDCL_TRY(tdcl_life_window(&g, js->pl.x0, js->pl.y0, js->gif_x0, js->gif_y0,
                                      js->gif_rows, js->gif_cols, &win, err));
            pic = &win;
        }
        dx = dy = 0;
        if (js->w.unbounded) {
            TDCL_TRY(tdcl_life_crop(&g, &c, &dx, &dy, err));
            tdcl_matrix_free(&g);
            g = c;
        }
        js->w.x0 = js->pl.x0 + dx;
        js->w.y0 = js->pl.y0 + dy;
    }
    if (js->o->every > 0)
        tdcl_log(TDCL_LOG_INFO, "generation %" PRId64 ": population %" PRId64, js->gen0 + gen,
                 tdcl_life_population(&g));
    if (frames) {
        size_t n = strlen(js->o->frames_dir) + 40;
        if (!(path = malloc(n))) {
            st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
            goto out;
        }
        snprintf(path, n, "%s/gen-%08" PRId64 ".png", js->o->frames_dir, js->gen0 + gen);
        tdcl_life_write_opts w = js->w;
        w.generation = js->gen0 + gen;
        if (pic == &win) w.x0 = js->gif_x0, w.y0 = js->gif_y0;
        TDCL_TRY(tdcl_life_write(path, pic, &w, err));
    }
    if (js->gif) TDCL_TRY(tdcl_life_gif_frame(js->gif, pic, err));
out:
    free(path);
    tdcl_matrix_free(&win);
    tdcl_matrix_free(&g);
    return st;
}

static void job_progress(job_state *js, int64_t done, int64_t total)
{
    double now = tdcl_now_ms(), el = now - js->t_start;
    if (el < 1000 || now - js->t_report < 1000 || done == total) return;
    js->t_report = now;
    if (js->o->progress)
        js->o->progress(done, total, el, js->o->progress_user);
    else
        tdcl_log(TDCL_LOG_INFO, "generation %" PRId64 " of %" PRId64 " (%.0f%%), %.1f s", done,
                 total, 100.0 * (double)done / (double)total, el / 1000);
}

/* Between chunks on an unbounded plane: refits the grid to its live cells
 * and, when it changed, moves the run to a plan of the new grid. */
static tdcl_status plane_step(job_state *js, tdcl_life_plan **pp, int64_t gen, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix g = {0}, fitted = {0};
    tdcl_life_plan *np = NULL;
    int changed = 0;
    TDCL_TRY(tdcl_life_plan_result(*pp, &g, err));
    TDCL_TRY(tdcl_life_plane_fit(&js->pl, &g, gen, &fitted, &changed, err));
    if (changed) {
        tdcl_log(TDCL_LOG_VERBOSE,
                 "life: generation %" PRId64 ": the plane's grid is now %" PRId64 " x %" PRId64
                 " at %" PRId64 ",%" PRId64,
                 gen, fitted.cols, fitted.rows, js->pl.x0, js->pl.y0);
        /* the old plan's buffers go first: the bound counts one plan's */
        tdcl_life_plan_destroy(*pp);
        *pp = NULL;
        TDCL_TRY(tdcl_life_plan_create(js->ctx, js->lo, &fitted, &np, err));
        *pp = np;
    }
out:
    tdcl_matrix_free(&g);
    tdcl_matrix_free(&fitted);
    return st;
}

/* Runs o->gens generations in chunks: up to the next snapshot, no longer
 * than an unbounded plane's margin, and short enough (about a quarter of
 * a second) for progress to show. */
static tdcl_status job_loop(job_state *js, tdcl_life_plan **pp, double *kernel_ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const tdcl_life_job_opts *o = js->o;
    int64_t every = o->every > 0 ? o->every : (js->gif ? 1 : 0);
    int64_t chunk = 16;
    int plane = js->pl.open_x || js->pl.open_y;
    *kernel_ms = 0;
    if (every) TDCL_TRY(job_snapshot(js, *pp, 0, err));
    for (int64_t done = 0; done < o->gens;) {
        int64_t n = o->gens - done < chunk ? o->gens - done : chunk;
        if (every && n > every - done % every) n = every - done % every;
        if (plane && n > js->pl.margin) n = js->pl.margin;
        double ms, t0 = tdcl_now_ms();
        TDCL_TRY(tdcl_life_plan_execute(*pp, n, &ms, err));
        /* a device timer that does not run (resolution 0; Mesa's rusticl
         * gives about 1 ns a launch) would make the rate absurd: the
         * host's time instead, launches included, which the summary says */
        double host = tdcl_now_ms() - t0;
        if (js->ctx->dev.timer_ns == 0 || (ms < 1e-3 && host > 100 * ms)) {
            if (!js->host_timed && !js->lo->quiet)
                tdcl_log(TDCL_LOG_VERBOSE,
                         "life: device '%s' gives no usable kernel times; timing on the host",
                         js->ctx->dev.device_name);
            js->host_timed = 1;
        }
        if (js->host_timed) ms = host;
        /* PoCL compiles in its worker threads at launches, and its LLVM
         * takes some signals over each time; the GIF's temporary is open,
         * so take them back (a few system calls per chunk) */
        tdcl_out_reclaim_signals();
        *kernel_ms += ms;
        done += n;
        if (tdcl_now_ms() - t0 < 250 && chunk < ((int64_t)1 << 40)) chunk *= 2;
        if (plane) TDCL_TRY(plane_step(js, pp, js->gen0 + done, err));
        if (every && done % every == 0) TDCL_TRY(job_snapshot(js, *pp, done, err));
        job_progress(js, done, o->gens);
    }
out:
    return st;
}

/* The output and the GIF can be written, and are not one file, before any
 * generation runs. */
/* 1 if path would be one of the frames written into dir ("gen-N.png",
 * N of 8 digits or more). */
static int is_frame(const char *path, const char *dir)
{
    char *cp = tdcl_path_canonical(path), *cd = tdcl_path_canonical(dir);
    int hit = 0;
    size_t n = cd ? strlen(cd) : 0;
    if (cp && cd && strncmp(cp, cd, n) == 0 && cp[n] == '/') {
        const char *b = cp + n + 1, *d = b + 4;
        size_t digits = strspn(d, "0123456789");
        hit = strncmp(b, "gen-", 4) == 0 && digits >= 8 && strcmp(d + digits, ".png") == 0;
    }
    free(cp);
    free(cd);
    return hit;
}

static tdcl_status check_outputs(const tdcl_life_job_opts *o, tdcl_err *err)
{
    /* one file however spelled: "./x", a link, the same inode */
    if (o->output && o->gif_path && tdcl_path_same_file(o->output, o->gif_path))
        return tdcl_fail(err, TDCL_EINVAL, "the GIF and the output are both '%s'", o->output);
    const char *named[2] = {o->output, o->gif_path};
    for (int i = 0; i < 2 && o->frames_dir && o->every > 0; i++)
        if (named[i] && is_frame(named[i], o->frames_dir))
            return tdcl_fail(err, TDCL_EINVAL, "the %s '%s' is one of the frames written in '%s'",
                             i ? "GIF" : "output", named[i], o->frames_dir);
    tdcl_status st = o->output ? tdcl_out_precheck(o->output, err) : TDCL_OK;
    if (!st && o->gif_path) st = tdcl_out_precheck(o->gif_path, err);
    return st;
}

/* The final grid into the .npy file opened early (*w, taken) where its
 * shape is still the soup's, else through tdcl_life_write. */
static tdcl_status write_result(const tdcl_life_job_opts *o, const tdcl_matrix *g,
                                const tdcl_life_write_opts *wo, tdcl_npy_out **w, tdcl_err *err)
{
    tdcl_npy_out *f = *w;
    *w = NULL;
    if (!f || !tdcl_npy_out_fits(f, g)) {
        tdcl_npy_out_abort(f);
        return tdcl_life_write(o->output, g, wo, err);
    }
    return tdcl_npy_out_finish(f, g->data, err);
}

tdcl_status tdcl_life_job(tdcl_ctx *ctx, const tdcl_life_job_opts *o, tdcl_life_summary *sum,
                          tdcl_matrix *final, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix grid = {0}, result = {0};
    tdcl_life_plan *p = NULL;
    tdcl_npy_out *early = NULL;  /* a soup's .npy output, opened while the device opens */
    tdcl_life_pattern pre = {0}; /* the pattern as the tile plane read it and left it */
    tdcl_life_opts lo = o->life;
    job_state js = {.o = o};
    double t_start = tdcl_now_ms(), kernel_ms = 0;
    if (final) memset(final, 0, sizeof *final);
    if (o->gens < 0)
        return tdcl_fail(err, TDCL_EINVAL, "generations must be >= 0, got %" PRId64, o->gens);
    TDCL_TRY(check_outputs(o, err));
    int tiles = 0; /* a sparse pattern on the unbounded plane runs in tiles */
    if ((st = tdcl_life_plane_job(ctx, o, sum, final, &tiles, &pre, err)) || tiles) goto out;
    lo.rule = tdcl_life_opts_rule(&lo);
    js.ctx = ctx;
    js.lo = &lo;
    if ((st = job_input(ctx, o, &lo, &pre, &grid, &js.gen0, &js.pl, &early, err))) {
        memory_note(ctx, o, &lo, err);
        goto out;
    }
    if (!js.pl.open_x && !js.pl.open_y && grid.rows > max_cells_for(ctx, &lo) / grid.cols) {
        /* larger than the device: through it in bands, written as the
         * shards write (the .npy opened early goes) */
        tdcl_npy_out_abort(early);
        early = NULL;
        st = tdcl_life_stream_job(ctx, o, &lo, &grid, js.gen0, sum, final, err);
        goto out;
    }
    TDCL_TRY(tdcl_life_plan_create(ctx, &lo, &grid, &p, err));
    js.w.rule = lo.rule;
    js.w.boundary = lo.boundary;
    js.w.edges = lo.edges;
    js.w.unbounded = js.pl.open_x && js.pl.open_y;
    js.w.x0 = js.pl.x0;
    js.w.y0 = js.pl.y0;
    js.w.scale = o->scale;
    js.gif_x0 = js.pl.x0;
    js.gif_y0 = js.pl.y0;
    js.gif_rows = grid.rows;
    js.gif_cols = grid.cols;
    if (o->frames_dir && mkdir(o->frames_dir, 0777) != 0 && errno != EEXIST) {
        st = tdcl_fail_param(err, TDCL_EIO, TDCL_PARAM_FRAMES_DIR,
                             "cannot create the frames directory '%s': %s", o->frames_dir,
                             strerror(errno));
        goto out;
    }
    if (o->gif_path)
        TDCL_TRY(tdcl_life_gif_open(o->gif_path, grid.rows, grid.cols, o->scale,
                                    o->every > 0 ? 10 : 5, &js.gif, err));
    js.t_start = js.t_report = tdcl_now_ms();
    TDCL_TRY(job_loop(&js, &p, &kernel_ms, err));
    /* the starting grid's memory, touched already, takes the result (a new
     * matrix when the plane has grown) */
    result = grid;
    memset(&grid, 0, sizeof grid);
    TDCL_TRY(tdcl_life_plan_result_reuse(p, &result, err));
    if (js.pl.open_x || js.pl.open_y) { /* the live cells at their true place */
        tdcl_matrix c = {0};
        int64_t dx = 0, dy = 0;
        if (js.w.unbounded) TDCL_TRY(tdcl_life_crop(&result, &c, &dx, &dy, err));
        if (c.data) {
            tdcl_matrix_free(&result);
            result = c;
        }
        js.w.x0 = js.pl.x0 + dx;
        js.w.y0 = js.pl.y0 + dy;
    }
    if (js.gif) {
        tdcl_life_gif *g = js.gif;
        js.gif = NULL;
        TDCL_TRY(tdcl_life_gif_close(g, err));
    }
    if (sum) {
        memset(sum, 0, sizeof *sum);
        sum->rows = result.rows;
        sum->cols = result.cols;
        sum->generations = o->gens;
        sum->population = tdcl_life_plan_population(p); /* counted as it was unpacked */
        sum->kernel_ms = kernel_ms;
        sum->host_timed = js.host_timed;
        sum->computed = -1;
        if (tdcl_life_plan_sparse(p) && tdcl_life_plan_generation(p) == o->gens)
            TDCL_TRY(tdcl_life_plan_computed(p, &sum->computed, err));
        sum->wall_ms = tdcl_now_ms() - js.t_start;
        sum->rule = lo.rule;
        sum->boundary = lo.boundary;
        sum->open_x = js.pl.open_x;
        sum->open_y = js.pl.open_y;
        snprintf(sum->describe, sizeof sum->describe, "%s", tdcl_life_plan_describe(p));
    }
    if (o->output) {
        double t0 = tdcl_now_ms();
        char comment[96];
        snprintf(comment, sizeof comment, "generation %" PRId64 ", written by tiledcl life",
                 js.gen0 + o->gens);
        js.w.generation = js.gen0 + o->gens;
        js.w.comment = comment;
        st = write_result(o, &result, &js.w, &early, err);
        ctx->t.write_ms += tdcl_now_ms() - t0;
        if (st) goto out;
    }
    if (final) {
        *final = result;
        result.data = NULL;
    }
    (void)t_start;
out:
    tdcl_life_pattern_free(&pre);
    tdcl_npy_out_abort(early);
    tdcl_life_gif_abort(js.gif);
    tdcl_life_plan_destroy(p);
    tdcl_matrix_free(&grid);
    tdcl_matrix_free(&result);
    return st;
}

tdcl_status tdcl_life_exec_job(tdcl_exec *ex, int halo, const tdcl_life_job_opts *o,
                               tdcl_life_summary *sum, tdcl_matrix *final, tdcl_err *err)
{
    tdcl_life_shard_opts so = {.devices = ex->spec, .ctx = ex->opts, .halo = halo};
    switch (ex->kind) {
    case TDCL_EXEC_RANKS:
        return tdcl_life_mpi_job(&so, o, sum, err);
    case TDCL_EXEC_SET:
        return tdcl_life_shard_job(ex->set, halo, o, sum, final, err);
    case TDCL_EXEC_ONE:
        break;
    }
    return tdcl_life_job(ex->ctx, o, sum, final, err);
}
