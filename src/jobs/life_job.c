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
#include "io/image.h"
#include "io/life_io.h"

/* The largest grid the device holds (two packed buffers) or, for the byte
 * kernel, two byte buffers. */
static int64_t max_cells_for(const tdcl_ctx *ctx, const tdcl_life_opts *o)
{
    const tdcl_device_info *d = &ctx->dev;
    double per_cell = o->kernel == TDCL_LIFE_KERNEL_BYTES ? 1.0 : 0.125;
    double by_alloc = (double)d->max_alloc / per_cell,
           by_mem = (double)d->global_mem / 2 / per_cell;
    double m = by_alloc < by_mem ? by_alloc : by_mem;
    return m > 9e18 ? INT64_MAX : (int64_t)m;
}

/* Centres pattern in a new rows x cols grid. */
static tdcl_status place(const tdcl_matrix *pat, int64_t rows, int64_t cols, tdcl_matrix *out,
                         tdcl_err *err)
{
    if (pat->rows > rows || pat->cols > cols)
        return tdcl_fail(err, TDCL_EINVAL,
                         "the pattern (%" PRId64 " x %" PRId64 ") does not fit in --size %" PRId64
                         "x%" PRId64,
                         pat->cols, pat->rows, cols, rows);
    tdcl_status st = tdcl_matrix_alloc(out, rows, cols, 1, TDCL_U8, err);
    if (st) return st;
    int64_t oy = (rows - pat->rows) / 2, ox = (cols - pat->cols) / 2;
    for (int64_t y = 0; y < pat->rows; y++)
        memcpy((uint8_t *)out->data + (oy + y) * cols + ox,
               (const uint8_t *)pat->data + y * pat->cols, (size_t)pat->cols);
    return TDCL_OK;
}

/* The starting grid, rule and boundary from the file or the soup options. */
static tdcl_status job_input(tdcl_ctx *ctx, const tdcl_life_job_opts *o, tdcl_life_opts *lo,
                             tdcl_matrix *grid, int64_t *gen0, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_life_pattern pat = {0};
    double t0 = tdcl_now_ms();
    *gen0 = 0;
    if (!o->input) {
        int64_t w = o->width > 0 ? o->width : 500, h = o->height > 0 ? o->height : 500;
        /* a soup of up to 2^32 cells is sown while the device opens, and
         * checked against it after; a larger one only once it is known */
        int early = w <= (INT64_C(1) << 32) / h;
        if (early) st = tdcl_life_soup(h, w, o->density, o->seed, grid, err);
        ctx->t.read_ms += tdcl_now_ms() - t0;
        if (!st) st = tdcl_ctx_wait(ctx, err);
        if (st) {
            tdcl_matrix_free(grid);
            return st;
        }
        int64_t max_cells = max_cells_for(ctx, lo);
        if (w > max_cells / h) {
            tdcl_matrix_free(grid);
            return tdcl_fail(err, TDCL_ELIMIT,
                             "--size %" PRId64 "x%" PRId64 " is more than the %" PRId64
                             " cells '%s' holds",
                             w, h, max_cells, ctx->dev.device_name);
        }
        if (early) return TDCL_OK;
        t0 = tdcl_now_ms();
        st = tdcl_life_soup(h, w, o->density, o->seed, grid, err);
        ctx->t.read_ms += tdcl_now_ms() - t0;
        return st;
    }
    TDCL_TRY(tdcl_ctx_wait(ctx, err)); /* the grid's limit is the device's */
    int64_t max_cells = max_cells_for(ctx, lo);
    TDCL_TRY(tdcl_life_read(o->input, max_cells, &pat, err));
    if (!o->rule_given && pat.has_rule) lo->rule = pat.rule;
    if (!o->boundary_given && pat.topo.present) lo->boundary = pat.topo.boundary;
    *gen0 = pat.generation;
    if (o->width > 0 || o->height > 0) {
        int64_t w = o->width > 0 ? o->width : pat.grid.cols;
        int64_t h = o->height > 0 ? o->height : pat.grid.rows;
        if (w > max_cells / h) {
            st = tdcl_fail(err, TDCL_ELIMIT, "--size %" PRId64 "x%" PRId64 " is too large", w, h);
            goto out;
        }
        TDCL_TRY(place(&pat.grid, h, w, grid, err));
    } else {
        *grid = pat.grid;
        pat.grid.data = NULL;
    }
out:
    tdcl_life_pattern_free(&pat);
    ctx->t.read_ms += tdcl_now_ms() - t0;
    return st;
}

typedef struct job_state {
    const tdcl_life_job_opts *o;
    tdcl_life_write_opts w;
    tdcl_life_gif *gif;
    int64_t gen0;
    double t_start, t_report;
} job_state;

/* The --every, --frames and --gif work at generation gen. */
static tdcl_status job_snapshot(job_state *js, tdcl_life_plan *p, int64_t gen, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix g = {0};
    char *path = NULL;
    TDCL_TRY(tdcl_life_plan_result(p, &g, err));
    if (js->o->every > 0)
        tdcl_log(TDCL_LOG_INFO, "generation %" PRId64 ": population %" PRId64, js->gen0 + gen,
                 tdcl_life_population(&g));
    if (js->o->frames_dir && js->o->every > 0) {
        size_t n = strlen(js->o->frames_dir) + 40;
        if (!(path = malloc(n))) {
            st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
            goto out;
        }
        snprintf(path, n, "%s/gen-%08" PRId64 ".png", js->o->frames_dir, js->gen0 + gen);
        tdcl_life_write_opts w = js->w;
        w.generation = js->gen0 + gen;
        TDCL_TRY(tdcl_life_write(path, &g, &w, err));
    }
    if (js->gif) TDCL_TRY(tdcl_life_gif_frame(js->gif, &g, err));
out:
    free(path);
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

/* Runs o->gens generations in chunks: up to the next snapshot, and short
 * enough (about a quarter of a second) for progress to show. */
static tdcl_status job_loop(job_state *js, tdcl_life_plan *p, double *kernel_ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const tdcl_life_job_opts *o = js->o;
    int64_t every = o->every > 0 ? o->every : (js->gif ? 1 : 0);
    int64_t chunk = 16;
    *kernel_ms = 0;
    if (every) TDCL_TRY(job_snapshot(js, p, 0, err));
    for (int64_t done = 0; done < o->gens;) {
        int64_t n = o->gens - done < chunk ? o->gens - done : chunk;
        if (every && n > every - done % every) n = every - done % every;
        double ms, t0 = tdcl_now_ms();
        TDCL_TRY(tdcl_life_plan_execute(p, n, &ms, err));
        *kernel_ms += ms;
        done += n;
        if (tdcl_now_ms() - t0 < 250 && chunk < ((int64_t)1 << 40)) chunk *= 2;
        if (every && done % every == 0) TDCL_TRY(job_snapshot(js, p, done, err));
        job_progress(js, done, o->gens);
    }
out:
    return st;
}

tdcl_status tdcl_life_job(tdcl_ctx *ctx, const tdcl_life_job_opts *o, tdcl_life_summary *sum,
                          tdcl_matrix *final, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix grid = {0}, result = {0};
    tdcl_life_plan *p = NULL;
    tdcl_life_opts lo = o->life;
    job_state js = {.o = o};
    double t_start = tdcl_now_ms(), kernel_ms = 0;
    if (final) memset(final, 0, sizeof *final);
    if (o->gens < 0)
        return tdcl_fail(err, TDCL_EINVAL, "generations must be >= 0, got %" PRId64, o->gens);
    lo.rule = tdcl_life_opts_rule(&lo);
    TDCL_TRY(job_input(ctx, o, &lo, &grid, &js.gen0, err));
    TDCL_TRY(tdcl_life_plan_create(ctx, &lo, &grid, &p, err));
    js.w.rule = lo.rule;
    js.w.boundary = lo.boundary;
    js.w.scale = o->scale;
    if (o->frames_dir && mkdir(o->frames_dir, 0777) != 0 && errno != EEXIST) {
        st = tdcl_fail(err, TDCL_EIO, "cannot create --frames directory '%s': %s", o->frames_dir,
                       strerror(errno));
        goto out;
    }
    if (o->gif_path)
        TDCL_TRY(tdcl_life_gif_open(o->gif_path, grid.rows, grid.cols, o->scale,
                                    o->every > 0 ? 10 : 5, &js.gif, err));
    js.t_start = js.t_report = tdcl_now_ms();
    TDCL_TRY(job_loop(&js, p, &kernel_ms, err));
    /* the starting grid's memory, touched already, takes the result */
    result = grid;
    memset(&grid, 0, sizeof grid);
    TDCL_TRY(tdcl_life_plan_result_reuse(p, &result, err));
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
        sum->wall_ms = tdcl_now_ms() - js.t_start;
        sum->rule = lo.rule;
        sum->boundary = lo.boundary;
        snprintf(sum->describe, sizeof sum->describe, "%s", tdcl_life_plan_describe(p));
    }
    if (o->output) {
        double t0 = tdcl_now_ms();
        char comment[96];
        snprintf(comment, sizeof comment, "generation %" PRId64 ", written by tiledcl life",
                 js.gen0 + o->gens);
        js.w.generation = js.gen0 + o->gens;
        js.w.comment = comment;
        st = tdcl_life_write(o->output, &result, &js.w, err);
        ctx->t.write_ms += tdcl_now_ms() - t0;
        if (st) goto out;
    }
    if (final) {
        *final = result;
        result.data = NULL;
    }
    (void)t_start;
out:
    tdcl_life_gif_abort(js.gif);
    tdcl_life_plan_destroy(p);
    tdcl_matrix_free(&grid);
    tdcl_matrix_free(&result);
    return st;
}
