/* Life over a set of devices, the file job (tdcl_life_shard_job and
 * tdcl_life_stream_job in jobs/shard_life.h) over the runner of
 * dist/life_shards.h, and the steps the MPI job shares with it. */
#include "jobs/shard_life.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/clock.h"
#include "base/log.h"
#include "io/life_io.h"
#include "jobs/life_grow.h"

tdcl_status tdcl_life_shard_input(const tdcl_life_job_opts *o, tdcl_life_opts *lo,
                                  tdcl_matrix *grid, int64_t *gen0, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_life_pattern pat = {0};
    const int64_t max_cells = INT64_MAX / 2;
    *gen0 = 0;
    if (!o->input) {
        int64_t w = o->width > 0 ? o->width : 500, h = o->height > 0 ? o->height : 500;
        return tdcl_life_soup(h, w, o->density, o->seed, grid, err);
    }
    TDCL_TRY(tdcl_life_read(o->input, max_cells, &pat, err));
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

int tdcl_life_snapshot_needs_grid(const tdcl_life_job_opts *o)
{
    return o->gif_path || (o->frames_dir && o->every > 0);
}

tdcl_status tdcl_life_snapshot_write(const tdcl_life_job_opts *o, const tdcl_life_write_opts *w0,
                                     tdcl_life_gif *gif, const tdcl_matrix *grid, int64_t gen,
                                     tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    if (o->frames_dir && o->every > 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/gen-%08" PRId64 ".png", o->frames_dir, gen);
        tdcl_life_write_opts w = *w0;
        w.generation = gen;
        st = tdcl_life_write(path, grid, &w, err);
    }
    if (st == TDCL_OK && gif) st = tdcl_life_gif_frame(gif, grid, err);
    return st;
}

tdcl_status tdcl_life_frames_dir(const tdcl_life_job_opts *o, tdcl_err *err)
{
    if (o->frames_dir && mkdir(o->frames_dir, 0777) != 0 && errno != EEXIST)
        return tdcl_fail_param(err, TDCL_EIO, TDCL_PARAM_FRAMES_DIR,
                               "cannot create the frames directory '%s': %s", o->frames_dir,
                               strerror(errno));
    return TDCL_OK;
}

void tdcl_life_progress(const tdcl_life_job_opts *o, int64_t done, double t_start, double *t_report)
{
    double now = tdcl_now_ms();
    if (now - t_start < 1000 || now - *t_report < 1000 || done >= o->gens) return;
    *t_report = now;
    if (o->progress)
        o->progress(done, o->gens, now - t_start, o->progress_user);
    else
        tdcl_log(TDCL_LOG_INFO, "generation %" PRId64 " of %" PRId64 " (%.0f%%), %.1f s", done,
                 o->gens, 100.0 * (double)done / (double)o->gens, (now - t_start) / 1000);
}

/* The --every, --frames and --gif work at generation gen. */
static tdcl_status job_snapshot(const tdcl_life_job_opts *o, tdcl_life_shards *S,
                                const tdcl_life_write_opts *w0, tdcl_life_gif *gif, int64_t gen,
                                tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix g = {0};
    if (o->every > 0) {
        int64_t pop = 0;
        TDCL_TRY(tdcl_life_shards_population(S, &pop, err));
        tdcl_log(TDCL_LOG_INFO, "generation %" PRId64 ": population %" PRId64, gen, pop);
    }
    if (!tdcl_life_snapshot_needs_grid(o)) return TDCL_OK;
    TDCL_TRY(tdcl_life_shards_result(S, &g, err));
    st = tdcl_life_snapshot_write(o, w0, gif, &g, gen, err);
out:
    tdcl_matrix_free(&g);
    return st;
}

/* The job's run over an open set: grid (read; freed here once the shards
 * hold it) advanced, snapshots, summary and output. */
static tdcl_status shard_run(tdcl_devset *set, int halo, const tdcl_life_job_opts *o,
                             const tdcl_life_opts *lop, tdcl_matrix *grid_in, int64_t gen0,
                             double read_ms, tdcl_life_summary *sum, tdcl_matrix *final,
                             tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_life_shards *S = NULL;
    tdcl_life_gif *gif = NULL;
    tdcl_matrix grid = *grid_in, result = {0};
    tdcl_life_opts lo = *lop;
    tdcl_life_write_opts w = {0};
    memset(grid_in, 0, sizeof *grid_in);
    TDCL_TRY(tdcl_life_shards_create(set, &lo, &grid, halo, &S, err));
    int64_t rows = grid.rows, cols = grid.cols;
    tdcl_matrix_free(&grid); /* the shards hold it */
    tdcl_life_shards_log(S, 0);
    w.rule = lo.rule;
    w.boundary = lo.boundary;
    w.scale = o->scale;
    TDCL_TRY(tdcl_life_frames_dir(o, err));
    if (o->gif_path)
        TDCL_TRY(tdcl_life_gif_open(o->gif_path, rows, cols, o->scale, o->every > 0 ? 10 : 5, &gif,
                                    err));
    double t_start = tdcl_now_ms(), t_report = t_start;
    int64_t every = o->every > 0 ? o->every : (gif ? 1 : 0);
    if (every) TDCL_TRY(job_snapshot(o, S, &w, gif, gen0, err));
    for (int64_t done = 0; done < o->gens;) {
        /* rounds of whole halos; chunks end at snapshots and about once a second */
        int64_t n = o->gens - done, h = tdcl_life_shards_halo(S);
        if (every && n > every - done % every) n = every - done % every;
        if (h > 0 && n > 64 * (int64_t)h) n = 64 * (int64_t)h;
        TDCL_TRY(tdcl_life_shards_execute(S, n, err));
        done += n;
        if (every && done % every == 0) TDCL_TRY(job_snapshot(o, S, &w, gif, gen0 + done, err));
        tdcl_life_progress(o, done, t_start, &t_report);
    }
    double wall_ms = tdcl_now_ms() - t_start;
    TDCL_TRY(tdcl_life_shards_result(S, &result, err));
    if (gif) {
        tdcl_life_gif *g = gif;
        gif = NULL;
        TDCL_TRY(tdcl_life_gif_close(g, err));
    }
    tdcl_life_shards_log(S, 1);
    double ksum, kmax;
    tdcl_life_shards_kernel_ms(S, &ksum, &kmax);
    if (sum) {
        memset(sum, 0, sizeof *sum);
        sum->rows = result.rows;
        sum->cols = result.cols;
        sum->generations = o->gens;
        sum->population = tdcl_life_population(&result);
        sum->computed = -1;
        sum->kernel_ms = kmax;
        sum->wall_ms = wall_ms;
        sum->rule = lo.rule;
        sum->boundary = lo.boundary;
        snprintf(sum->describe, sizeof sum->describe, "%s", tdcl_life_shards_describe(S));
    }
    double write_ms = 0;
    if (o->output) {
        double t1 = tdcl_now_ms();
        char comment[96];
        snprintf(comment, sizeof comment, "generation %" PRId64 ", written by tiledcl life",
                 gen0 + o->gens);
        w.generation = gen0 + o->gens;
        w.comment = comment;
        TDCL_TRY(tdcl_life_write(o->output, &result, &w, err));
        write_ms = tdcl_now_ms() - t1;
    }
    tdcl_log(
        TDCL_LOG_VERBOSE,
        "shard run (ms): read %.2f  run %.2f (device: slowest shard %.2f, all %.2f)  write %.2f",
        read_ms, wall_ms, kmax, ksum, write_ms);
    if (final) {
        *final = result;
        result.data = NULL;
    }
out:
    tdcl_life_gif_abort(gif);
    tdcl_life_shards_destroy(S);
    tdcl_matrix_free(&grid);
    tdcl_matrix_free(&result);
    return st;
}

tdcl_status tdcl_life_shard_job(tdcl_devset *set, int halo, const tdcl_life_job_opts *o,
                                tdcl_life_summary *sum, tdcl_matrix *final, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix grid = {0};
    tdcl_life_opts lo = o->life;
    int64_t gen0 = 0;
    if (final) memset(final, 0, sizeof *final);
    if (o->gens < 0)
        return tdcl_fail(err, TDCL_EINVAL, "generations must be >= 0, got %" PRId64, o->gens);
    lo.rule = tdcl_life_opts_rule(&lo);
    double t0 = tdcl_now_ms();
    TDCL_TRY(tdcl_life_shard_input(o, &lo, &grid, &gen0, err));
    double read_ms = tdcl_now_ms() - t0;
    TDCL_TRY(tdcl_devset_wait(set, err));
    st = shard_run(set, halo, o, &lo, &grid, gen0, read_ms, sum, final, err);
out:
    tdcl_matrix_free(&grid);
    return st;
}

tdcl_status tdcl_life_stream_job(tdcl_ctx *ctx, const tdcl_life_job_opts *o,
                                 const tdcl_life_opts *lo, tdcl_matrix *grid, int64_t gen0,
                                 tdcl_life_summary *sum, tdcl_matrix *final, tdcl_err *err)
{
    tdcl_devset one = {.n = 1, .ctx = {ctx}};
    if (final) memset(final, 0, sizeof *final);
    return shard_run(&one, 0, o, lo, grid, gen0, 0, sum, final, err);
}
