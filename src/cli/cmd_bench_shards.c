/* tiledcl bench life --device LIST: life over the set's devices
 * (jobs/shard_life.h) against one shard on its first device, measured in
 * the same invocation: aggregate throughput, speedup and parallel
 * efficiency, after a check that both give the same grid. Under mpirun
 * (cmd_bench_life_mpi) the same over the ranks (jobs/mpi.h) against rank 0
 * alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/log.h"
#include "jobs/mpi.h"
#include "jobs/shard_life.h"

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

/* The one-device and the n-part runs side by side (what: "shard" or
 * "rank"). */
static void report(const tdcl_bench_opts *o, size_t parts, const char *what, int64_t n,
                   int64_t gens, int reps, int halo, const tdcl_bench_stats *t1,
                   const tdcl_bench_stats *tn, int json)
{
    double cells = (double)n * (double)n * (double)gens;
    double r1 = cells / (t1->host_median_ms / 1000), rn = cells / (tn->host_median_ms / 1000);
    double speedup = rn / r1, eff = speedup / (double)parts;
    const char *b = tdcl_life_boundary_name(o->life_boundary);
    if (json) {
        printf("{\"op\":\"life\",\"boundary\":\"%s\",\"size\":%lld,\"gens\":%lld,\"%ss\":%zu,"
               "\"halo\":%d,\"reps\":%d,\"one_ms\":%.4f,\"ms\":%.4f,\"one_cells_per_s\":%.6g,"
               "\"cells_per_s\":%.6g,\"speedup\":%.4f,\"efficiency\":%.4f,\"checked\":true}\n",
               b, (long long)n, (long long)gens, what, parts, halo, reps, t1->host_median_ms,
               tn->host_median_ms, r1, rn, speedup, eff);
        return;
    }
    printf("\nlife %lldx%lld %s, %lld generations, median of %d (host time):\n", (long long)n,
           (long long)n, b, (long long)gens, reps);
    printf("  1 %s:   %10.3f ms  %.4g cell updates/s\n", what, t1->host_median_ms, r1);
    printf("  %zu %ss:  %10.3f ms  %.4g cell updates/s  (halo %d)\n", parts, what,
           tn->host_median_ms, rn, halo);
    printf("  speedup %.3f, parallel efficiency %.3f; the grids agree\n", speedup, eff);
}

int cmd_bench_shards(const tdcl_bench_opts *o, int json, const cli_globals *g)
{
    tdcl_err err = {0};
    tdcl_status st = TDCL_OK;
    tdcl_devset *set = NULL;
    tdcl_matrix grid = {0}, one_out = {0}, all_out = {0};
    tdcl_bench_stats t1 = {0}, tn = {0};
    int halo1 = 0, halon = 0;
    if (o->op == TDCL_BENCH_MATMUL) return cmd_bench_mm_shards(o, json, g);
    if (o->op == TDCL_BENCH_TILE_AVG) return cmd_bench_ta_shards(o, json, g);
    if (o->op != TDCL_BENCH_LIFE)
        return cli_usage_error("bench", "over several devices, bench measures life, matmul and "
                                        "tile-avg only");
    tdcl_ctx_opts co = {.kernel_dir = g->kernel_dir, .no_cache = g->no_cache};
    const char *spec = g->device_spec ? g->device_spec : getenv("TILEDCL_DEVICE");
    TDCL_TRY(tdcl_devset_open_async(spec, &co, &set, &err));
    TDCL_TRY(tdcl_devset_wait(set, &err));
    int64_t n = o->size ? o->size : tdcl_bench_default_size(&set->ctx[0]->dev, TDCL_BENCH_LIFE);
    int64_t gens = o->gens ? o->gens : 100;
    int reps = o->reps ? o->reps : 5;
    TDCL_TRY(tdcl_life_soup(n, n, 0.25, o->seed ? o->seed : 1, &grid, &err));
    tdcl_devset one = {.n = 1, .ctx = {set->ctx[0]}};
    TDCL_TRY(measure(&one, &grid, o->life_boundary, gens, reps, &t1, &halo1, &one_out, &err));
    TDCL_TRY(measure(set, &grid, o->life_boundary, gens, reps, &tn, &halon, &all_out, &err));
    if (memcmp(one_out.data, all_out.data, (size_t)(n * n)) != 0) {
        st = tdcl_fail(&err, TDCL_EVERIFY, "%zu shards and one shard ended with different grids",
                       set->n);
        goto out;
    }
    if (!json) {
        printf("devices:");
        for (size_t i = 0; i < set->n; i++)
            printf("%s %u:%u %s", i ? "," : "", set->ctx[i]->dev.pidx, set->ctx[i]->dev.didx,
                   set->ctx[i]->dev.device_name);
    }
    report(o, set->n, "shard", n, gens, reps, halon, &t1, &tn, json);
out:
    tdcl_matrix_free(&grid);
    tdcl_matrix_free(&one_out);
    tdcl_matrix_free(&all_out);
    tdcl_devset_close(set);
    (void)halo1;
    return st ? cli_report(&err) : 0;
}

#define SYNC CLI_MPI_SYNC

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

int cmd_bench_life_mpi(const tdcl_bench_opts *o, int json, const cli_globals *g)
{
    tdcl_err err = {0};
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
    SYNC(tdcl_mpi_open_local(g->device_spec ? g->device_spec : getenv("TILEDCL_DEVICE"), &ctx,
                             &err));
    /* rank 0's device picks the default size */
    int64_t n = o->size ? o->size : tdcl_bench_default_size(&ctx->dev, TDCL_BENCH_LIFE);
    tdcl_mpi_bcast_i64(&n);
    SYNC(tdcl_life_soup(n, n, 0.25, o->seed ? o->seed : 1, &grid, &err));
    tdcl_devset one = {.n = 1, .ctx = {ctx}};
    if (root) st = measure(&one, &grid, lo.boundary, gens, reps, &t1, &halo1, &one_out, &err);
    tdcl_mpi_quiet_barrier(); /* the others wait without taking rank 0's CPU */
    SYNC(st);
    SYNC(tdcl_life_mpi_create(ctx, &lo, &grid, 0, &m, &err));
    ranks_run rr = {m, gens};
    SYNC(tdcl_bench_time(1, reps, run_ranks, &rr, &tn, &err));
    tdcl_life_mpi_log(m);
    SYNC(tdcl_life_mpi_result(m, &all_out, &err));
    if (root && memcmp(one_out.data, all_out.data, (size_t)(n * n)) != 0)
        st = tdcl_fail(&err, TDCL_EVERIFY, "%d ranks and rank 0 alone ended with different grids",
                       tdcl_mpi_size());
    SYNC(st);
    if (root) {
        if (!json) printf("%d MPI ranks, bands of rows", tdcl_mpi_size());
        report(o, (size_t)tdcl_mpi_size(), "rank", n, gens, reps, (int)tdcl_life_mpi_halo(m), &t1,
               &tn, json);
    }
out:
    tdcl_life_mpi_destroy(m);
    tdcl_matrix_free(&grid);
    tdcl_matrix_free(&one_out);
    tdcl_matrix_free(&all_out);
    tdcl_ctx_close(ctx);
    if (st && !err.msg[0]) return tdcl_exit_code(st); /* another rank reported it */
    return st ? cli_report(&err) : 0;
}
