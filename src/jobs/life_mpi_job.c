/* Life over MPI ranks, the file job (tdcl_life_mpi_job in jobs/shard_life.h):
 * where each rank's rows come from, the snapshots and the output around the
 * runner of dist/mpi.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/log.h"
#include "dist/life_mpi.h"
#include "io/life_io.h"
#include "jobs/shard_life.h"

#if !TDCL_HAVE_MPI

tdcl_status tdcl_life_mpi_job(const tdcl_life_shard_opts *so, const tdcl_life_job_opts *o,
                              tdcl_life_summary *sum, tdcl_err *err)
{
    (void)so;
    (void)o;
    (void)sum;
    return tdcl_fail(err, TDCL_EUNSUPPORTED, "built without MPI");
}

#else

#define SYNC TDCL_MPI_SYNC

/* Rank 0's grid (read there), its first generation and the rule and
 * boundary its file gave, on every rank. */
static tdcl_status share_grid(tdcl_life_opts *lo, tdcl_matrix *grid, int64_t *gen0, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t h[4] = {grid->rows, grid->cols, *gen0, (int64_t)lo->boundary};
    if (tdcl_mpi_bcast(h, sizeof h) != 0 || tdcl_mpi_bcast(&lo->rule, sizeof lo->rule) != 0)
        st = tdcl_fail(err, TDCL_EIO, "rank %d: lost the other ranks", tdcl_mpi_rank());
    else if (tdcl_mpi_rank() != 0) {
        *gen0 = h[2];
        lo->boundary = (tdcl_life_boundary)h[3];
        st = tdcl_matrix_alloc(grid, h[0], h[1], 1, TDCL_U8, err);
    }
    SYNC(st);
    if (tdcl_mpi_bcast(grid->data, (size_t)h[0] * (size_t)h[1]) != 0) /* on every rank */
        st = tdcl_fail(err, TDCL_EIO, "rank %d: the broadcast of the grid failed", tdcl_mpi_rank());
    SYNC(st);
out:
    return st;
}

/* Where this rank's rows come from. The soup, and a plain .npy input that
 * every rank can read (not placed in a --size grid), never exist whole on
 * any rank: each sows or reads its own rows, once the ranks agree that
 * their copies of the file hold the same array. Other inputs rank 0 reads
 * and sends whole to every rank into *grid: a copy missing or different on
 * another host changes nothing. */
static tdcl_status job_source(const tdcl_life_job_opts *o, tdcl_life_opts *lo,
                              tdcl_life_mpi_src *src, tdcl_matrix *grid, int64_t *gen0,
                              tdcl_err *err)
{
    memset(src, 0, sizeof *src);
    *gen0 = 0;
    if (!o->input) { /* tdcl_life_shard_input's soup */
        src->cols = o->width > 0 ? o->width : 500;
        src->rows = o->height > 0 ? o->height : 500;
        src->density = o->density;
        src->seed = o->seed;
        return TDCL_OK;
    }
    int placed = o->width > 0 || o->height > 0, all = 0;
    tdcl_status st = tdcl_mpi_npy_all(placed ? NULL : o->input, &src->info, &all, err);
    if (st) return st; /* agreed */
    if (all) {
        src->npy = o->input;
        src->rows = src->info.rows;
        src->cols = src->info.cols;
        if (!o->boundary_given) lo->boundary = TDCL_LIFE_DEAD; /* an array's edge, as read */
        return TDCL_OK;
    }
    if (tdcl_mpi_rank() == 0 && (st = tdcl_life_shard_input(o, lo, grid, gen0, err)))
        tdcl_mpi_name_rank(err);
    if (tdcl_mpi_agree(&st, err) < 0) st = share_grid(lo, grid, gen0, err);
    src->rows = grid->rows;
    src->cols = grid->cols;
    src->grid = grid;
    return st;
}

/* Rank 0's log line of the population at generation gen. */
static tdcl_status mpi_population(tdcl_life_mpi *m, int64_t gen, tdcl_err *err)
{
    int64_t pop = 0;
    tdcl_status st = tdcl_life_mpi_population(m, &pop, err);
    if (st == TDCL_OK && tdcl_mpi_rank() == 0)
        tdcl_log(TDCL_LOG_INFO, "generation %" PRId64 ": population %" PRId64, gen, pop);
    return st;
}

/* The --every, --frames and --gif work at generation gen: the population
 * summed over the ranks, the grid gathered on rank 0 for its frames. */
static tdcl_status mpi_snapshot(tdcl_life_mpi *m, const tdcl_life_job_opts *o,
                                const tdcl_life_write_opts *w0, tdcl_life_gif *gif, int64_t gen,
                                tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix g = {0};
    if (o->every > 0) SYNC(mpi_population(m, gen, err));
    if (!tdcl_life_snapshot_needs_grid(o)) goto out;
    SYNC(tdcl_life_mpi_result(m, &g, err));
    if (tdcl_mpi_rank() == 0) st = tdcl_life_snapshot_write(o, w0, gif, &g, gen, err);
    SYNC(st);
out:
    tdcl_matrix_free(&g);
    return st;
}

/* The generations, in chunks that end at snapshots and about once a
 * second (rank 0 reports progress); *wall_ms their time. */
static tdcl_status mpi_run(tdcl_life_mpi *m, const tdcl_life_job_opts *o,
                           const tdcl_life_write_opts *w0, tdcl_life_gif *gif, int64_t gen0,
                           double *wall_ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    double t_start = tdcl_now_ms(), t_report = t_start;
    int64_t every = o->every > 0 ? o->every : (o->gif_path ? 1 : 0), h = tdcl_life_mpi_halo(m);
    if (every) SYNC(mpi_snapshot(m, o, w0, gif, gen0, err));
    for (int64_t done = 0; done < o->gens;) {
        int64_t n = o->gens - done;
        if (every && n > every - done % every) n = every - done % every;
        if (h > 0 && n > 64 * h) n = 64 * h;
        SYNC(tdcl_life_mpi_execute(m, n, err));
        done += n;
        if (every && done % every == 0) SYNC(mpi_snapshot(m, o, w0, gif, gen0 + done, err));
        if (tdcl_mpi_rank() == 0) tdcl_life_progress(o, done, t_start, &t_report);
    }
out:
    *wall_ms = tdcl_now_ms() - t_start;
    return st;
}

tdcl_status tdcl_life_mpi_job(const tdcl_life_shard_opts *so, const tdcl_life_job_opts *o,
                              tdcl_life_summary *sum, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_ctx *ctx = NULL;
    tdcl_matrix grid = {0}, result = {0};
    tdcl_life_opts lo = o->life;
    tdcl_life_mpi *m = NULL;
    tdcl_life_gif *gif = NULL; /* rank 0's */
    int64_t gen0 = 0;
    if (sum) memset(sum, 0, sizeof *sum);
    lo.rule = tdcl_life_opts_rule(&lo);
    SYNC(o->gens < 0 ? tdcl_fail(err, TDCL_EINVAL, "generations must be >= 0") : TDCL_OK);
    SYNC(tdcl_mpi_open_local(so->devices, &ctx, err));
    tdcl_life_mpi_src src;
    SYNC(job_source(o, &lo, &src, &grid, &gen0, err));
    SYNC(tdcl_life_check(&lo, err));
    SYNC(tdcl_life_mpi_create_src(ctx, &lo, &src, so->halo, &m, err));
    int64_t rows = 0, cols = 0;
    tdcl_life_mpi_shape(m, &rows, &cols);
    tdcl_life_write_opts w = {.rule = lo.rule, .boundary = lo.boundary, .scale = o->scale};
    if (tdcl_mpi_rank() == 0) st = tdcl_life_frames_dir(o, err);
    if (tdcl_mpi_rank() == 0 && st == TDCL_OK && o->gif_path)
        st =
            tdcl_life_gif_open(o->gif_path, rows, cols, o->scale, o->every > 0 ? 10 : 5, &gif, err);
    SYNC(st);
    double wall_ms = 0;
    SYNC(mpi_run(m, o, &w, gif, gen0, &wall_ms, err));
    if (gif) {
        tdcl_life_gif *g = gif;
        gif = NULL;
        st = tdcl_life_gif_close(g, err);
    }
    SYNC(st);
    tdcl_life_mpi_log(m);
    int written = 0; /* a .npy output written by every rank, failed or not */
    if (o->output && tdcl_path_has_ext(o->output, ".npy"))
        SYNC(tdcl_life_mpi_write_npy(m, o->output, &written, err));
    if (!written) SYNC(tdcl_life_mpi_result(m, &result, err));
    int64_t pop = 0;
    if (written && sum) SYNC(tdcl_life_mpi_population(m, &pop, err));
    if (tdcl_mpi_rank() == 0 && sum) {
        sum->rows = rows;
        sum->cols = cols;
        sum->generations = o->gens;
        sum->population = written ? pop : tdcl_life_population(&result);
        sum->wall_ms = wall_ms;
        sum->rule = lo.rule;
        sum->boundary = lo.boundary;
        snprintf(sum->describe, sizeof sum->describe, "%d ranks, halo %" PRId64 ": %s",
                 tdcl_mpi_size(), tdcl_life_mpi_halo(m), tdcl_life_mpi_describe(m));
    }
    double kmax = tdcl_mpi_max(tdcl_life_mpi_kernel_ms(m));
    if (sum) sum->kernel_ms = kmax;
    if (tdcl_mpi_rank() == 0 && o->output && !written) {
        char comment[96];
        snprintf(comment, sizeof comment, "generation %" PRId64 ", written by tiledcl life",
                 gen0 + o->gens);
        w.generation = gen0 + o->gens;
        w.comment = comment;
        st = tdcl_life_write(o->output, &result, &w, err);
    }
    SYNC(st);
out:
    tdcl_life_gif_abort(gif);
    tdcl_life_mpi_destroy(m);
    tdcl_ctx_close(ctx);
    tdcl_matrix_free(&grid);
    tdcl_matrix_free(&result);
    return st;
}

#endif
