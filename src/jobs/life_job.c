/* The life job, written once for every execution: reads or seeds the
 * grid on the root, runs it in chunks on the runner of dist/life_run.h
 * with progress and snapshots, and writes the result atomically. */
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
#include "dist/life_run.h"
#include "jobs/life_grow.h"
#include "jobs/life_plane_job.h"

/* The largest grid the device holds, in cells: its rows of one word. */
static int64_t max_cells_for(const tdcl_ctx *ctx, const tdcl_life_opts *o)
{
    return tdcl_life_exec_device_cells(ctx, o);
}

/* The host bytes a cell takes: the grid and the result, a byte each, and
 * on a CPU device its two buffers. */
static double host_bytes_per_cell(const tdcl_ctx *ctx, const tdcl_life_opts *o)
{
    double dev = o->kernel == TDCL_LIFE_KERNEL_BYTES ? 2.0 : 0.25;
    return 2.0 + ((ctx->dev.type & CL_DEVICE_TYPE_CPU) ? dev : 0.0);
}

/* The host bytes a cell takes where the grid is larger than the device
 * and streams through it in bands (dist/life_run.h): the grid read,
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
    pl->margin = tdcl_life_plane_margin(grid->rows, grid->cols);
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
static tdcl_status one_input(tdcl_ctx *ctx, const tdcl_life_job_opts *o, tdcl_life_opts *lo,
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

/* In the job: st = expr, agreed over the ranks (elsewhere as it is); a
 * failure goes to out. */
#define SYNC(js, expr)                                                                             \
    do {                                                                                           \
        st = (expr);                                                                               \
        if (tdcl_exec_agree((js)->r.ex, &st, err)) goto out;                                       \
    } while (0)

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

/* A set's or the ranks' grid read on the root: the file (as large as
 * host memory allows reading it: the bands check their devices) or the
 * soup, placed in a grid of o's size; the bounded grid as read, with the
 * file's rule and boundary unless given. */
static tdcl_status bands_read(const tdcl_life_job_opts *o, tdcl_life_opts *lo, tdcl_matrix *grid,
                              int64_t *gen0, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_life_pattern pat = {0};
    if (!o->input) {
        int64_t w = o->width > 0 ? o->width : 500, h = o->height > 0 ? o->height : 500;
        return tdcl_life_soup(h, w, o->density, o->seed, grid, err);
    }
    TDCL_TRY(tdcl_life_read(o->input, INT64_MAX / 2, &pat, err));
    if (!o->rule_given && pat.has_rule) lo->rule = pat.rule;
    if (!o->boundary_given && pat.topo.present) lo->boundary = pat.topo.boundary;
    *gen0 = pat.generation;
    if (o->width > 0 || o->height > 0) {
        int64_t w = o->width > 0 ? o->width : pat.grid.cols;
        int64_t h = o->height > 0 ? o->height : pat.grid.rows;
        TDCL_TRY(tdcl_life_place(&pat.grid, h, w, grid, err));
    } else {
        *grid = pat.grid;
        pat.grid.data = NULL;
    }
out:
    tdcl_life_pattern_free(&pat);
    return st;
}

/* Where a set's or the ranks' rows come from (*src). Over ranks the soup,
 * and a plain .npy input that every rank can read (not placed in a grid of
 * o's size), never exist whole on any rank: each sows or reads its own
 * rows, once the ranks agree that their copies of the file hold the same
 * array. Other inputs the root reads into *grid; over ranks the runner
 * sends it to every rank, so that a copy missing or different on another
 * host changes nothing. */
static tdcl_status bands_input(tdcl_life_exec *r, const tdcl_life_job_opts *o, tdcl_life_opts *lo,
                               tdcl_matrix *grid, int64_t *gen0, tdcl_life_src *src, tdcl_err *err)
{
    int ranks = r->ex->kind == TDCL_EXEC_RANKS, all = 0;
    memset(src, 0, sizeof *src);
    src->grid = grid;
    if (ranks && !o->input) {
        src->grid = NULL;
        src->cols = o->width > 0 ? o->width : 500;
        src->rows = o->height > 0 ? o->height : 500;
        src->density = o->density;
        src->seed = o->seed;
        return TDCL_OK;
    }
    int placed = o->width > 0 || o->height > 0;
    tdcl_status st = tdcl_life_exec_npy_all(r, placed ? NULL : o->input, &src->info, &all, err);
    if (st) return st; /* agreed */
    if (all) {
        src->grid = NULL;
        src->npy = o->input;
        src->rows = src->info.rows;
        src->cols = src->info.cols;
        if (!o->boundary_given) lo->boundary = TDCL_LIFE_DEAD; /* an array's edge, as read */
        return TDCL_OK;
    }
    return tdcl_exec_root(r->ex) ? bands_read(o, lo, grid, gen0, err) : TDCL_OK;
}

typedef struct job_state {
    const tdcl_life_job_opts *o;
    tdcl_life_exec r;
    tdcl_life_opts lo;
    tdcl_timing *t;     /* one device's; NULL elsewhere */
    int root;           /* this process reads and writes (tdcl_exec_root) */
    tdcl_life_plane pl; /* the unbounded plane, when pl.open_x or pl.open_y */
    int64_t gif_x0, gif_y0, gif_rows, gif_cols; /* a growing grid's window: GIF, frames */
    tdcl_life_write_opts w;
    tdcl_life_gif *gif;    /* the root's */
    tdcl_npy_out *early;   /* a soup's .npy output, opened while the device opens */
    tdcl_life_pattern pre; /* the pattern as the tile plane read it and left it */
    int64_t gen0;
    double t_start, t_report, read_ms;
} job_state;

static int on_plane(const job_state *js)
{
    return js->pl.open_x || js->pl.open_y;
}

/* The --every, --frames and --gif work at generation gen of the run: the
 * population logged, the grid written as a frame; a growing grid's frames
 * of one size, the starting grid's window (cells that leave it are not
 * drawn). */
static tdcl_status job_snapshot(job_state *js, int64_t gen, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix g = {0}, win = {0};
    const tdcl_life_job_opts *o = js->o;
    int64_t pop = 0;
    tdcl_life_write_opts w = js->w;
    const tdcl_matrix *pic = &g; /* what a frame and the GIF show */
    if (o->gif_path || (o->frames_dir && o->every > 0)) {
        SYNC(js, tdcl_life_exec_grid(&js->r, &g, err));
        pop = tdcl_life_population(&g);
    } else
        SYNC(js, tdcl_life_exec_population(&js->r, &pop, err));
    if (o->every > 0 && js->root)
        tdcl_log(TDCL_LOG_INFO, "generation %" PRId64 ": population %" PRId64, js->gen0 + gen, pop);
    if (!g.data || !js->root) goto out;
    if (on_plane(js)) {
        st = tdcl_life_window(&g, js->pl.x0, js->pl.y0, js->gif_x0, js->gif_y0, js->gif_rows,
                              js->gif_cols, &win, err);
        pic = &win;
        w.x0 = js->gif_x0;
        w.y0 = js->gif_y0;
    }
    if (!st && o->frames_dir && o->every > 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/gen-%08" PRId64 ".png", o->frames_dir, js->gen0 + gen);
        w.generation = js->gen0 + gen;
        st = tdcl_life_write(path, pic, &w, err);
    }
    if (!st && js->gif) st = tdcl_life_gif_frame(js->gif, pic, err);
out:
    tdcl_exec_agree(js->r.ex, &st, err);
    tdcl_matrix_free(&win);
    tdcl_matrix_free(&g);
    return st;
}

/* The progress line or bar, about once a second, on the root. */
static void job_progress(job_state *js, int64_t done)
{
    const tdcl_life_job_opts *o = js->o;
    double now = tdcl_now_ms(), el = now - js->t_start;
    if (!js->root || el < 1000 || now - js->t_report < 1000 || done >= o->gens) return;
    js->t_report = now;
    if (o->progress)
        o->progress(done, o->gens, el, o->progress_user);
    else
        tdcl_log(TDCL_LOG_INFO, "generation %" PRId64 " of %" PRId64 " (%.0f%%), %.1f s", done,
                 o->gens, 100.0 * (double)done / (double)o->gens, el / 1000);
}

/* Between chunks on an unbounded plane: refits the grid to its live cells
 * and, when it changed, moves the run to a plan of the new grid. */
static tdcl_status plane_step(job_state *js, int64_t gen, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix g = {0}, fitted = {0};
    int changed = 0;
    TDCL_TRY(tdcl_life_exec_grid(&js->r, &g, err));
    TDCL_TRY(tdcl_life_plane_fit(&js->pl, &g, gen, &fitted, &changed, err));
    if (changed) {
        tdcl_log(TDCL_LOG_VERBOSE,
                 "life: generation %" PRId64 ": the plane's grid is now %" PRId64 " x %" PRId64
                 " at %" PRId64 ",%" PRId64,
                 gen, fitted.cols, fitted.rows, js->pl.x0, js->pl.y0);
        TDCL_TRY(tdcl_life_exec_regrid(&js->r, &fitted, err));
    }
out:
    tdcl_matrix_free(&g);
    tdcl_matrix_free(&fitted);
    return st;
}

/* The frames' directory and the GIF, on the root, before any generation
 * runs. */
static tdcl_status open_snapshots(job_state *js, tdcl_err *err)
{
    const tdcl_life_job_opts *o = js->o;
    tdcl_status st = TDCL_OK;
    if (js->root && o->frames_dir && mkdir(o->frames_dir, 0777) != 0 && errno != EEXIST)
        st = tdcl_fail_param(err, TDCL_EIO, TDCL_PARAM_FRAMES_DIR,
                             "cannot create the frames directory '%s': %s", o->frames_dir,
                             strerror(errno));
    if (js->root && !st && o->gif_path)
        st = tdcl_life_gif_open(o->gif_path, js->gif_rows, js->gif_cols, o->scale,
                                o->every > 0 ? 10 : 5, &js->gif, err);
    return tdcl_exec_agree(js->r.ex, &st, err);
}

/* Runs o->gens generations in chunks: up to the next snapshot, whole
 * rounds of the bands' halo, no longer than an unbounded plane's margin,
 * and short enough (about a quarter of a second) for progress to show. */
static tdcl_status job_loop(job_state *js, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const tdcl_life_job_opts *o = js->o;
    int64_t every = o->every > 0 ? o->every : (o->gif_path ? 1 : 0);
    int64_t chunk = 16;
    js->w.rule = js->lo.rule; /* as the runner has them: the ranks', rank 0's */
    js->w.boundary = js->lo.boundary;
    js->w.edges = js->lo.edges;
    js->gif_rows = js->r.rows; /* the starting grid's */
    js->gif_cols = js->r.cols;
    TDCL_TRY(open_snapshots(js, err));
    js->t_start = js->t_report = tdcl_now_ms();
    if (every) TDCL_TRY(job_snapshot(js, 0, err));
    for (int64_t done = 0; done < o->gens;) {
        int64_t n = o->gens - done, most = tdcl_life_exec_chunk(&js->r);
        if (!most && n > chunk) n = chunk;
        if (most && n > most) n = most;
        if (every && n > every - done % every) n = every - done % every;
        if (on_plane(js) && n > js->pl.margin) n = js->pl.margin;
        double t0 = tdcl_now_ms();
        TDCL_TRY(tdcl_life_exec_execute(&js->r, n, err));
        /* PoCL compiles in its worker threads at launches, and its LLVM
         * takes some signals over each time; the GIF's temporary is open,
         * so take them back (a few system calls per chunk) */
        tdcl_out_reclaim_signals();
        done += n;
        if (tdcl_now_ms() - t0 < 250 && chunk < ((int64_t)1 << 40)) chunk *= 2;
        if (on_plane(js)) TDCL_TRY(plane_step(js, js->gen0 + done, err));
        if (every && done % every == 0) TDCL_TRY(job_snapshot(js, done, err));
        job_progress(js, done);
    }
out:
    return st;
}

/* The one device's unbounded plane (or a Golly grid open one way): the
 * grid fitted around the pattern, refitted between chunks as it grows. */
static tdcl_status run_plane(job_state *js, tdcl_matrix *grid, tdcl_err *err)
{
    tdcl_life_src src = {.rows = grid->rows, .cols = grid->cols, .grid = grid};
    tdcl_status st = tdcl_life_exec_create(&js->r, &js->lo, &js->gen0, TDCL_OK, &src, 0, err);
    return st ? st : job_loop(js, err);
}

/* A bounded grid, or the bands' rows of src, on any execution. */
static tdcl_status run_grid(job_state *js, tdcl_status in_st, int halo, tdcl_matrix *grid,
                            const tdcl_life_src *src, tdcl_err *err)
{
    tdcl_status st = tdcl_life_exec_create(&js->r, &js->lo, &js->gen0, in_st, src, halo, err);
    if (st) return st;
    if (!js->r.plan) { /* the bands hold it: the starting grid goes */
        tdcl_matrix_free(grid);
        /* streamed through one device, written as the bands write */
        tdcl_npy_out_abort(js->early);
        js->early = NULL;
    }
    tdcl_life_exec_log(&js->r, 0);
    return job_loop(js, err);
}

/* The summary of the run that left result (the root's). */
static tdcl_status summarize(job_state *js, const tdcl_matrix *result, int64_t pop,
                             tdcl_life_summary *sum, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    double computed = -1, wall_ms = tdcl_now_ms() - js->t_start;
    double kernel_ms = tdcl_life_exec_kernel_ms(&js->r);
    SYNC(js, tdcl_life_exec_computed(&js->r, js->o->gens, &computed, err));
    if (!sum) goto out;
    memset(sum, 0, sizeof *sum);
    sum->rows = result->data ? result->rows : js->r.rows;
    sum->cols = result->data ? result->cols : js->r.cols;
    sum->generations = js->o->gens;
    sum->population = pop;
    sum->kernel_ms = kernel_ms;
    sum->host_timed = js->r.host_timed;
    sum->computed = computed;
    sum->wall_ms = wall_ms;
    sum->rule = js->lo.rule;
    sum->boundary = js->lo.boundary;
    sum->open_x = js->pl.open_x;
    sum->open_y = js->pl.open_y;
    snprintf(sum->describe, sizeof sum->describe, "%s", tdcl_life_exec_describe(&js->r));
out:
    return st;
}

/* The end of the run: the last grid gathered (or written by every rank),
 * cropped to the live cells on the plane, summarized, the GIF closed and
 * the output written on the root. */
static tdcl_status job_finish(job_state *js, tdcl_matrix *result, tdcl_life_summary *sum,
                              tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const tdcl_life_job_opts *o = js->o;
    int written = 0; /* a .npy output written by every rank */
    int64_t pop = 0;
    double wall_ms = tdcl_now_ms() - js->t_start, write_ms = 0;
    tdcl_life_exec_log(&js->r, 1);
    if (o->output && tdcl_path_has_ext(o->output, ".npy"))
        SYNC(js, tdcl_life_exec_write_npy(&js->r, o->output, &written, err));
    if (written)
        SYNC(js, tdcl_life_exec_population(&js->r, &pop, err));
    else
        SYNC(js, tdcl_life_exec_final(&js->r, result, &pop, err));
    if (on_plane(js)) { /* the live cells at their true place */
        tdcl_matrix c = {0};
        int64_t dx = 0, dy = 0;
        if (js->w.unbounded) TDCL_TRY(tdcl_life_crop(result, &c, &dx, &dy, err));
        if (c.data) {
            tdcl_matrix_free(result);
            *result = c;
        }
        js->w.x0 = js->pl.x0 + dx;
        js->w.y0 = js->pl.y0 + dy;
    }
    TDCL_TRY(summarize(js, result, pop, sum, err));
    if (js->gif) { /* the GIF is kept once nothing but the output can fail */
        tdcl_life_gif *g = js->gif;
        js->gif = NULL;
        st = tdcl_life_gif_close(g, err);
    }
    SYNC(js, st);
    if (o->output && !written && js->root) {
        double t0 = tdcl_now_ms();
        char comment[96];
        snprintf(comment, sizeof comment, "generation %" PRId64 ", written by tiledcl life",
                 js->gen0 + o->gens);
        js->w.generation = js->gen0 + o->gens;
        js->w.comment = comment;
        st = write_result(o, result, &js->w, &js->early, err);
        write_ms = tdcl_now_ms() - t0;
        if (js->t) js->t->write_ms += write_ms;
    }
    if (!js->t && js->root) /* one device's times are its context's, logged once */
        tdcl_log(TDCL_LOG_VERBOSE, "life run (ms): read %.2f  run %.2f  write %.2f", js->read_ms,
                 wall_ms, write_ms);
    SYNC(js, st);
out:
    return st;
}

/* The input on one device: the grid's limits are the device's, and the
 * unbounded plane is set up; elsewhere the bands' input. */
static tdcl_status job_input(job_state *js, tdcl_matrix *grid, tdcl_life_src *src, tdcl_err *err)
{
    const tdcl_life_job_opts *o = js->o;
    tdcl_ctx *ctx = js->r.ctx;
    tdcl_status st;
    if (js->r.ex->kind != TDCL_EXEC_ONE) {
        double t0 = tdcl_now_ms();
        st = bands_input(&js->r, o, &js->lo, grid, &js->gen0, src, err);
        js->read_ms = tdcl_now_ms() - t0;
        return st;
    }
    memset(src, 0, sizeof *src);
    src->grid = grid;
    st = one_input(ctx, o, &js->lo, &js->pre, grid, &js->gen0, &js->pl, &js->early, err);
    if (st) memory_note(ctx, o, &js->lo, err);
    src->rows = grid->rows;
    src->cols = grid->cols;
    return st;
}

tdcl_status tdcl_life_exec_job(tdcl_exec *ex, int halo, const tdcl_life_job_opts *o,
                               tdcl_life_summary *sum, tdcl_matrix *final, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix grid = {0}, result = {0};
    tdcl_life_src src = {0};
    tdcl_err listed = {0};
    job_state js = {.o = o, .t = tdcl_exec_timing(ex), .root = tdcl_exec_root(ex)};
    if (final) memset(final, 0, sizeof *final);
    if (sum) memset(sum, 0, sizeof *sum);
    js.lo = o->life;
    js.lo.rule = tdcl_life_opts_rule(&js.lo);
    js.r.ex = ex;
    if (o->gens < 0)
        st = tdcl_fail(err, TDCL_EINVAL, "generations must be >= 0, got %" PRId64, o->gens);
    if (!st && js.root) st = check_outputs(o, err);
    SYNC(&js, st);
    SYNC(&js, tdcl_life_exec_start(ex, &js.r, err));
    if (ex->kind == TDCL_EXEC_ONE) { /* a sparse pattern on the unbounded plane runs in tiles */
        int tiles = 0;
        st = tdcl_life_plane_job(ex->ctx, o, sum, final, &tiles, &js.pre, err);
        if (!st && tiles < 0) { /* its cells outgrew a list: try the grid */
            listed = *err;
            *err = (tdcl_err){0};
            tiles = 0;
        }
        if (st || tiles) goto out;
    }
    st = job_input(&js, &grid, &src, err);
    /* refused both ways: the list's refusal, which counts the live cells */
    if (st && err->status == TDCL_ELIMIT && listed.status) *err = listed;
    js.gif_x0 = js.w.x0 = js.pl.x0;
    js.gif_y0 = js.w.y0 = js.pl.y0;
    js.w.unbounded = js.pl.open_x && js.pl.open_y;
    js.w.scale = o->scale;
    /* the plane lives on one device, so no other rank waits here */
    if (st == TDCL_OK && on_plane(&js))
        st = run_plane(&js, &grid, err);
    else
        st = run_grid(&js, st, halo, &grid, &src, err);
    if (st) goto out;
    result = grid; /* a plan's last grid takes the starting grid's memory */
    memset(&grid, 0, sizeof grid);
    TDCL_TRY(job_finish(&js, &result, sum, err));
    if (final) {
        *final = result;
        result.data = NULL;
    }
out:
    tdcl_life_pattern_free(&js.pre);
    tdcl_npy_out_abort(js.early);
    tdcl_life_gif_abort(js.gif);
    tdcl_life_exec_end(&js.r);
    tdcl_matrix_free(&grid);
    tdcl_matrix_free(&result);
    return st;
}
