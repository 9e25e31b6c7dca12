/* Life over a set's devices (dist/life_shards.h) against one shard on its
 * first device, measured in the same invocation, after a check that both
 * give the same grid (tdcl_bench_life_set); over MPI ranks (dist/mpi.h)
 * against rank 0 alone (tdcl_bench_life_ranks). */
#include <stdio.h>
#include <string.h>

#include "bench/bench_scale.h"
#include "dist/life_mpi.h"
#include "dist/life_shards.h"

typedef struct shard_run {
    tdcl_life_shards *s;
    int64_t gens;
} shard_run;

/* tdcl_bench_fn: gens generations; no device time, so the host's counts */
static tdcl_status run_gens(void *user, double *device_ms, tdcl_err *err)
{
    shard_run *r = user;
    *device_ms = 0;
    return tdcl_life_shards_execute(r->s, r->gens, err);
}

/* Times set's devices on grid: fills *t, leaves the final grid in *out. */
static tdcl_status measure(tdcl_devset *set, const tdcl_matrix *grid, tdcl_life_boundary b,
                           int64_t gens, int reps, tdcl_bench_stats *t, int *halo, tdcl_matrix *out,
                           tdcl_err *err)
{
    tdcl_life_opts lo = tdcl_life_opts_default();
    lo.boundary = b;
    shard_run r = {NULL, gens};
    tdcl_status st = tdcl_life_shards_create(set, &lo, grid, 0, &r.s, err);
    if (st == TDCL_OK) st = tdcl_bench_time(1, reps, run_gens, &r, t, err);
    if (st == TDCL_OK) {
        *halo = tdcl_life_shards_halo(r.s);
        tdcl_life_shards_log(r.s, 1);
        st = tdcl_life_shards_result(r.s, out, err);
    }
    tdcl_life_shards_destroy(r.s);
    return st;
}

void tdcl_bench_scale_devices(const tdcl_devset *set, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < set->n && len < cap; i++) {
        int w = snprintf(buf + len, cap - len, "%s %u:%u %s", i ? "," : "", set->ctx[i]->dev.pidx,
                         set->ctx[i]->dev.didx, set->ctx[i]->dev.device_name);
        if (w < 0) break;
        len += (size_t)w;
    }
}

/* What both life drivers report beside the two timings. */
static void life_figure(const tdcl_bench_opts *o, size_t parts, int64_t n, int64_t gens, int reps,
                        int halo, tdcl_bench_scale *r)
{
    r->op = TDCL_BENCH_LIFE;
    r->parts = parts;
    r->size = n;
    r->gens = gens;
    r->reps = reps;
    r->halo = halo;
    r->boundary = o->life_boundary;
}

tdcl_status tdcl_bench_life_set(const char *spec, const tdcl_ctx_opts *co, const tdcl_bench_opts *o,
                                tdcl_bench_scale *r, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_devset *set = NULL;
    tdcl_matrix grid = {0}, one_out = {0}, all_out = {0};
    tdcl_bench_stats t1 = {0}, tn = {0};
    int halo1 = 0, halon = 0;
    memset(r, 0, sizeof *r);
    r->root = 1;
    TDCL_TRY(tdcl_devset_open_async(spec, co, &set, err));
    TDCL_TRY(tdcl_devset_wait(set, err));
    int64_t n = o->size ? o->size : tdcl_bench_default_size(&set->ctx[0]->dev, TDCL_BENCH_LIFE);
    int64_t gens = o->gens ? o->gens : 100;
    int reps = o->reps ? o->reps : 5;
    TDCL_TRY(tdcl_life_soup(n, n, 0.25, o->seed ? o->seed : 1, &grid, err));
    tdcl_devset one = {.n = 1, .ctx = {set->ctx[0]}};
    TDCL_TRY(measure(&one, &grid, o->life_boundary, gens, reps, &t1, &halo1, &one_out, err));
    TDCL_TRY(measure(set, &grid, o->life_boundary, gens, reps, &tn, &halon, &all_out, err));
    if (memcmp(one_out.data, all_out.data, (size_t)(n * n)) != 0) {
        st = tdcl_fail(err, TDCL_EVERIFY, "%zu shards and one shard ended with different grids",
                       set->n);
        goto out;
    }
    tdcl_bench_scale_devices(set, r->devices, sizeof r->devices);
    life_figure(o, set->n, n, gens, reps, halon, r);
    r->one = t1;
    r->all = tn;
out:
    tdcl_matrix_free(&grid);
    tdcl_matrix_free(&one_out);
    tdcl_matrix_free(&all_out);
    tdcl_devset_close(set);
    (void)halo1;
    return st;
}

#define SYNC TDCL_MPI_SYNC

typedef struct ranks_run {
    tdcl_life_mpi *m;
    int64_t gens;
} ranks_run;

/* tdcl_bench_fn: gens generations over the ranks; host time */
static tdcl_status run_ranks(void *user, double *device_ms, tdcl_err *err)
{
    ranks_run *r = user;
    *device_ms = 0;
    return tdcl_life_mpi_execute(r->m, r->gens, err);
}

tdcl_status tdcl_bench_life_ranks(const char *spec, const tdcl_bench_opts *o, tdcl_bench_scale *r,
                                  tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_ctx *ctx = NULL;
    tdcl_life_mpi *m = NULL;
    tdcl_matrix grid = {0}, one_out = {0}, all_out = {0};
    tdcl_bench_stats t1 = {0}, tn = {0};
    int halo1 = 0, root = tdcl_mpi_rank() == 0;
    int64_t gens = o->gens ? o->gens : 100;
    int reps = o->reps ? o->reps : 5;
    tdcl_life_opts lo = tdcl_life_opts_default();
    lo.boundary = o->life_boundary;
    memset(r, 0, sizeof *r);
    r->ranks = 1;
    SYNC(tdcl_mpi_open_local(spec, &ctx, err));
    /* rank 0's device picks the default size */
    int64_t n = o->size ? o->size : tdcl_bench_default_size(&ctx->dev, TDCL_BENCH_LIFE);
    tdcl_mpi_bcast_i64(&n);
    SYNC(tdcl_life_soup(n, n, 0.25, o->seed ? o->seed : 1, &grid, err));
    tdcl_devset one = {.n = 1, .ctx = {ctx}};
    if (root) st = measure(&one, &grid, lo.boundary, gens, reps, &t1, &halo1, &one_out, err);
    tdcl_mpi_quiet_barrier(); /* the others wait without taking rank 0's CPU */
    SYNC(st);
    SYNC(tdcl_life_mpi_create(ctx, &lo, &grid, 0, &m, err));
    ranks_run rr = {m, gens};
    SYNC(tdcl_bench_time(1, reps, run_ranks, &rr, &tn, err));
    tdcl_life_mpi_log(m);
    SYNC(tdcl_life_mpi_result(m, &all_out, err));
    if (root && memcmp(one_out.data, all_out.data, (size_t)(n * n)) != 0)
        st = tdcl_fail(err, TDCL_EVERIFY, "%d ranks and rank 0 alone ended with different grids",
                       tdcl_mpi_size());
    SYNC(st);
    r->root = root;
    life_figure(o, (size_t)tdcl_mpi_size(), n, gens, reps, (int)tdcl_life_mpi_halo(m), r);
    r->one = t1;
    r->all = tn;
out:
    tdcl_life_mpi_destroy(m);
    tdcl_matrix_free(&grid);
    tdcl_matrix_free(&one_out);
    tdcl_matrix_free(&all_out);
    tdcl_ctx_close(ctx);
    return st;
}
