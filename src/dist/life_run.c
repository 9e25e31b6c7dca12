/* Life on an execution, whichever its kind (dist/life_run.h): one
 * device's plan, bands streamed through one device, a set's bands, or the
 * ranks' bands, behind one sequence of calls for the job. */
#include "dist/life_run.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "dist/mpi.h"
#include "io/life_io.h"

#define SYNC TDCL_MPI_SYNC

int64_t tdcl_life_exec_device_cells(const tdcl_ctx *ctx, const tdcl_life_opts *lo)
{
    int64_t rows = tdcl_life_max_rows(&ctx->dev, lo, 64);
    return rows > INT64_MAX / 64 ? INT64_MAX : rows * 64;
}

tdcl_status tdcl_life_exec_start(tdcl_exec *ex, tdcl_life_exec *r, tdcl_err *err)
{
    memset(r, 0, sizeof *r);
    r->ex = ex;
    if (ex->kind == TDCL_EXEC_ONE) r->ctx = ex->ctx;
    if (ex->kind != TDCL_EXEC_RANKS) return TDCL_OK;
    tdcl_status st = TDCL_OK;
    SYNC(tdcl_mpi_open_local(ex->spec, &r->ctx, err));
out:
    return st;
}

tdcl_status tdcl_life_exec_npy_all(tdcl_life_exec *r, const char *path, tdcl_npy_info *info,
                                   int *all, tdcl_err *err)
{
    *all = 0;
    if (r->ex->kind != TDCL_EXEC_RANKS) return TDCL_OK;
    return tdcl_mpi_npy_all(path, info, all, err);
}

/* Over ranks: rank 0's grid (src->grid there), its first generation and
 * the rule and boundary its file gave, on every rank (*grid: a copy on
 * the others). */
static tdcl_status share_grid(tdcl_life_opts *lo, const tdcl_matrix *root, tdcl_matrix *grid,
                              int64_t *gen0, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int me = tdcl_mpi_rank();
    int64_t h[4] = {me == 0 ? root->rows : 0, me == 0 ? root->cols : 0, *gen0,
                    (int64_t)lo->boundary};
    if (tdcl_mpi_bcast(h, sizeof h) != 0 || tdcl_mpi_bcast(&lo->rule, sizeof lo->rule) != 0)
        st = tdcl_fail(err, TDCL_EIO, "rank %d: lost the other ranks", me);
    else if (me != 0) {
        *gen0 = h[2];
        lo->boundary = (tdcl_life_boundary)h[3];
        st = tdcl_matrix_alloc(grid, h[0], h[1], 1, TDCL_U8, err);
    }
    SYNC(st);
    void *data = me == 0 ? root->data : grid->data;
    if (tdcl_mpi_bcast(data, (size_t)h[0] * (size_t)h[1]) != 0) /* on every rank */
        st = tdcl_fail(err, TDCL_EIO, "rank %d: the broadcast of the grid failed", me);
    SYNC(st);
out:
    return st;
}

static tdcl_status create_ranks(tdcl_life_exec *r, tdcl_life_opts *lo, int64_t *gen0,
                                tdcl_status in_st, const tdcl_life_src *src, int halo,
                                tdcl_err *err)
{
    tdcl_status st = in_st;
    tdcl_matrix copy = {0};
    tdcl_life_src s = *src;
    if (st && tdcl_mpi_rank() == 0) tdcl_mpi_name_rank(err);
    SYNC(st);
    if (src->grid) { /* rank 0 read it: every rank gets it */
        SYNC(share_grid(lo, src->grid, &copy, gen0, err));
        s.grid = tdcl_mpi_rank() == 0 ? src->grid : &copy;
        s.rows = s.grid->rows;
        s.cols = s.grid->cols;
    }
    SYNC(tdcl_life_check(lo, err));
    SYNC(tdcl_life_mpi_create_src(r->ctx, lo, &s, halo, &r->mpi, err));
    r->rows = s.rows;
    r->cols = s.cols;
out:
    tdcl_matrix_free(&copy);
    return st;
}

tdcl_status tdcl_life_exec_create(tdcl_life_exec *r, tdcl_life_opts *lo, int64_t *gen0,
                                  tdcl_status in_st, const tdcl_life_src *src, int halo,
                                  tdcl_err *err)
{
    tdcl_status st = in_st;
    if (r->ex->kind == TDCL_EXEC_RANKS) { /* agrees on in_st before anything else */
        st = create_ranks(r, lo, gen0, in_st, src, halo, err);
        r->lo = *lo;
        return st;
    }
    if (st) return st;
    r->lo = *lo;
    r->rows = src->grid->rows;
    r->cols = src->grid->cols;
    if (r->ex->kind == TDCL_EXEC_SET) {
        TDCL_TRY(tdcl_devset_wait(r->ex->set, err));
        return tdcl_life_shards_create(r->ex->set, lo, src->grid, halo, &r->shards, err);
    }
    TDCL_TRY(tdcl_ctx_wait(r->ctx, err));
    if (r->rows <= tdcl_life_exec_device_cells(r->ctx, lo) / r->cols)
        return tdcl_life_plan_create(r->ctx, lo, src->grid, &r->plan, err);
    /* larger than the device: through it in bands, as a set of one */
    r->one.n = 1;
    r->one.ctx[0] = r->ctx;
    return tdcl_life_shards_create(&r->one, lo, src->grid, 0, &r->shards, err);
out:
    return st;
}

tdcl_status tdcl_life_exec_regrid(tdcl_life_exec *r, const tdcl_matrix *grid, tdcl_err *err)
{
    /* the old plan's buffers go first: the device's bound counts one plan's */
    tdcl_life_plan_destroy(r->plan);
    r->plan = NULL;
    r->rows = grid->rows;
    r->cols = grid->cols;
    return tdcl_life_plan_create(r->ctx, &r->lo, grid, &r->plan, err);
}

int64_t tdcl_life_exec_chunk(const tdcl_life_exec *r)
{
    int64_t h = r->shards ? tdcl_life_shards_halo(r->shards)
                : r->mpi  ? tdcl_life_mpi_halo(r->mpi)
                          : 0;
    return h > 0 ? 64 * h : 0;
}

/* The plan's generations, timed by the device, or by the host where the
 * device's timer does not run (resolution 0; Mesa's rusticl gives about
 * 1 ns a launch), which would make the rate absurd: the host's time then
 * includes the launches, and the summary says so. */
static tdcl_status plan_execute(tdcl_life_exec *r, int64_t gens, tdcl_err *err)
{
    double ms = 0, t0 = tdcl_now_ms();
    tdcl_status st = tdcl_life_plan_execute(r->plan, gens, &ms, err);
    if (st) return st;
    double host = tdcl_now_ms() - t0;
    if (r->ctx->dev.timer_ns == 0 || (ms < 1e-3 && host > 100 * ms)) {
        if (!r->host_timed && !r->lo.quiet)
            tdcl_log(TDCL_LOG_VERBOSE,
                     "life: device '%s' gives no usable kernel times; timing on the host",
                     r->ctx->dev.device_name);
        r->host_timed = 1;
    }
    r->kernel_ms += r->host_timed ? host : ms;
    return TDCL_OK;
}

tdcl_status tdcl_life_exec_execute(tdcl_life_exec *r, int64_t gens, tdcl_err *err)
{
    if (r->plan) return plan_execute(r, gens, err);
    if (r->shards) return tdcl_life_shards_execute(r->shards, gens, err);
    return tdcl_life_mpi_execute(r->mpi, gens, err);
}

tdcl_status tdcl_life_exec_grid(tdcl_life_exec *r, tdcl_matrix *grid, tdcl_err *err)
{
    if (r->plan) return tdcl_life_plan_result(r->plan, grid, err);
    if (r->shards) return tdcl_life_shards_result(r->shards, grid, err);
    return tdcl_life_mpi_result(r->mpi, grid, err);
}

tdcl_status tdcl_life_exec_population(tdcl_life_exec *r, int64_t *pop, tdcl_err *err)
{
    *pop = 0;
    if (r->shards) return tdcl_life_shards_population(r->shards, pop, err);
    if (r->mpi) return tdcl_life_mpi_population(r->mpi, pop, err);
    tdcl_matrix g = {0};
    tdcl_status st = tdcl_life_plan_result(r->plan, &g, err);
    if (!st) *pop = tdcl_life_population(&g);
    tdcl_matrix_free(&g);
    return st;
}

tdcl_status tdcl_life_exec_final(tdcl_life_exec *r, tdcl_matrix *grid, int64_t *pop, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    *pop = 0;
    if (r->plan) {
        st = tdcl_life_plan_result_reuse(r->plan, grid, err);
        if (!st) *pop = tdcl_life_plan_population(r->plan); /* counted as it was unpacked */
        return st;
    }
    tdcl_matrix_free(grid);
    st = tdcl_life_exec_grid(r, grid, err);
    if (!st) *pop = tdcl_life_population(grid); /* 0 on the ranks but rank 0 */
    return st;
}

tdcl_status tdcl_life_exec_write_npy(tdcl_life_exec *r, const char *path, int *written,
                                     tdcl_err *err)
{
    *written = 0;
    if (!r->mpi) return TDCL_OK;
    return tdcl_life_mpi_write_npy(r->mpi, path, written, err);
}

tdcl_status tdcl_life_exec_computed(tdcl_life_exec *r, int64_t gens, double *computed,
                                    tdcl_err *err)
{
    *computed = -1;
    if (!r->plan || !tdcl_life_plan_sparse(r->plan) || tdcl_life_plan_generation(r->plan) != gens)
        return TDCL_OK;
    return tdcl_life_plan_computed(r->plan, computed, err);
}

double tdcl_life_exec_kernel_ms(tdcl_life_exec *r)
{
    double sum = 0, max = 0;
    if (r->mpi) return tdcl_mpi_max(tdcl_life_mpi_kernel_ms(r->mpi));
    if (!r->shards) return r->kernel_ms;
    tdcl_life_shards_kernel_ms(r->shards, &sum, &max);
    return max;
}

void tdcl_life_exec_log(const tdcl_life_exec *r, int timing)
{
    if (r->shards) tdcl_life_shards_log(r->shards, timing);
    if (r->mpi && timing) tdcl_life_mpi_log(r->mpi);
}

const char *tdcl_life_exec_describe(tdcl_life_exec *r)
{
    if (r->plan) return tdcl_life_plan_describe(r->plan);
    if (r->shards) return tdcl_life_shards_describe(r->shards);
    if (!r->mpi) return "";
    snprintf(r->describe, sizeof r->describe, "%d ranks, halo %" PRId64 ": %s", tdcl_mpi_size(),
             tdcl_life_mpi_halo(r->mpi), tdcl_life_mpi_describe(r->mpi));
    return r->describe;
}

void tdcl_life_exec_end(tdcl_life_exec *r)
{
    tdcl_life_plan_destroy(r->plan);
    tdcl_life_shards_destroy(r->shards);
    tdcl_life_mpi_destroy(r->mpi);
    if (r->ex && r->ex->kind == TDCL_EXEC_RANKS) tdcl_ctx_close(r->ctx);
    memset(r, 0, sizeof *r);
}
