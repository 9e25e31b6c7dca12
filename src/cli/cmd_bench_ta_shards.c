/* tiledcl bench tile-avg --device LIST: the means over the set's devices
 * in bands (jobs/shard_tile_avg.h) against one shard on its first device,
 * measured in the same invocation: aggregate input GB/s, speedup and
 * parallel efficiency, after a check that both give the same bytes. Each
 * repetition is the whole banded call: plans, uploads, kernels, downloads;
 * its kernel phase (the slowest device's kernels, as the bands run at
 * once) is reported beside it. Under mpirun (cmd_bench_ta_mpi) the same
 * over the ranks (tdcl_ta_mpi_bands: rank 0 sends the bands and gathers
 * the means) against rank 0 alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "cli/cli.h"
#include "jobs/mpi.h"
#include "jobs/shard_tile_avg.h"

typedef struct ta_bench {
    tdcl_devset *set;
    const tdcl_ta_opts *o;
    const tdcl_matrix *in;
    tdcl_matrix out;
} ta_bench;

/* tdcl_bench_fn: one banded run; its device time is the slowest device's
 * kernels */
static tdcl_status run_bands(void *user, double *device_ms, tdcl_err *err)
{
    ta_bench *r = user;
    double k0[TDCL_DEVSET_MAX];
    for (size_t i = 0; i < r->set->n; i++)
        k0[i] = r->set->ctx[i]->t.kernel_ms;
    tdcl_matrix_free(&r->out);
    tdcl_status st = tdcl_ta_shards_run(r->set, r->o, r->in, &r->out, err);
    *device_ms = 0;
    for (size_t i = 0; i < r->set->n; i++)
        if (r->set->ctx[i]->t.kernel_ms - k0[i] > *device_ms)
            *device_ms = r->set->ctx[i]->t.kernel_ms - k0[i];
    return st;
}

/* parts: the devices of the set, or the ranks (set NULL) */
static void report(const ta_bench *all, size_t parts, int64_t n, const tdcl_ta_opts *o,
                   const tdcl_bench_stats *t1, const tdcl_bench_stats *tn, int json)
{
    const char *what = all->set ? "shard" : "rank";
    double bytes = (double)tdcl_matrix_count(all->in) * (double)tdcl_dtype_size(all->in->dtype);
    double r1 = bytes / t1->host_median_ms / 1e6, rn = bytes / tn->host_median_ms / 1e6;
    double speedup = rn / r1, eff = speedup / (double)parts;
    double kspeedup = t1->median_ms / tn->median_ms, keff = kspeedup / (double)parts;
    if (json) {
        printf("{\"op\":\"tile-avg\",\"size\":%lld,\"tile\":\"%lldx%lld\",\"%ss\":%zu,"
               "\"reps\":%d,\"one_ms\":%.4f,\"ms\":%.4f,\"one_gbps\":%.6g,\"gbps\":%.6g,"
               "\"speedup\":%.4f,\"efficiency\":%.4f,\"one_kernel_ms\":%.4f,\"kernel_ms\":%.4f,"
               "\"kernel_efficiency\":%.4f,\"checked\":true}\n",
               (long long)n, (long long)o->tile_rows, (long long)o->tile_cols, what, parts,
               t1->reps, t1->host_median_ms, tn->host_median_ms, r1, rn, speedup, eff,
               t1->median_ms, tn->median_ms, keff);
        return;
    }
    if (!all->set)
        printf("%zu MPI ranks, bands of rows; every rank holds the generated input and keeps its "
               "means",
               parts);
    for (size_t i = 0; all->set && i < all->set->n; i++)
        printf("%s %u:%u %s", i ? "," : "devices:", all->set->ctx[i]->dev.pidx,
               all->set->ctx[i]->dev.didx, all->set->ctx[i]->dev.device_name);
    printf("\ntile-avg %lldx%lld %s, %lldx%lld tiles, median of %d (host time, plans to means):\n",
           (long long)n, (long long)n, tdcl_dtype_name(all->in->dtype), (long long)o->tile_rows,
           (long long)o->tile_cols, t1->reps);
    printf("  1 %s:   %10.3f ms  %.4g GB/s of input\n", what, t1->host_median_ms, r1);
    printf("  %zu %ss:  %10.3f ms  %.4g GB/s of input\n", parts, what, tn->host_median_ms, rn);
    printf("  speedup %.3f, parallel efficiency %.3f; the means are identical\n", speedup, eff);
    printf("  the kernel phase alone (the slowest device's kernels): 1 %s %.3f ms "
           "(%.4g GB/s), %zu %ss %.3f ms (%.4g GB/s): speedup %.3f, efficiency %.3f\n",
           what, t1->median_ms, bytes / t1->median_ms / 1e6, parts, what, tn->median_ms,
           bytes / tn->median_ms / 1e6, kspeedup, keff);
}

/* --tile T[xU]; default 16x16. */
static tdcl_ta_opts bench_tiles(const tdcl_bench_opts *o)
{
    int64_t t = o->tile ? o->tile : 16;
    return (tdcl_ta_opts){.tile_rows = t, .tile_cols = o->tile_cols ? o->tile_cols : t};
}

/* An n x n input in [0, 1): float64 for --type f64, else float32. */
static tdcl_status random_input(int64_t n, tdcl_dtype type, uint64_t seed, tdcl_matrix *in,
                                tdcl_err *err)
{
    type = type == TDCL_F64 ? TDCL_F64 : TDCL_F32;
    tdcl_status st = tdcl_matrix_alloc(in, n, n, 1, type, err);
    for (size_t i = 0; st == TDCL_OK && i < (size_t)(n * n); i++)
        if (type == TDCL_F64)
            ((double *)in->data)[i] = tdcl_rng_uniform(&seed, 0, 1);
        else
            ((float *)in->data)[i] = (float)tdcl_rng_uniform(&seed, 0, 1);
    return st;
}

int cmd_bench_ta_shards(const tdcl_bench_opts *o, int json, const cli_globals *g)
{
    tdcl_err err = {0};
    tdcl_status st = TDCL_OK;
    tdcl_matrix in = {0};
    tdcl_bench_stats t1 = {0}, tn = {0};
    tdcl_ta_opts to = bench_tiles(o);
    ta_bench one = {.o = &to, .in = &in}, all = {.o = &to, .in = &in};
    tdcl_ctx_opts co = {.kernel_dir = g->kernel_dir, .no_cache = g->no_cache};
    const char *spec = g->device_spec ? g->device_spec : getenv("TILEDCL_DEVICE");
    TDCL_TRY(tdcl_devset_open_async(spec, &co, &all.set, &err));
    TDCL_TRY(tdcl_devset_wait(all.set, &err));
    int64_t n = o->size ? o->size : tdcl_bench_default_size(&all.set->ctx[0]->dev, o->op);
    int reps = o->reps ? o->reps : 5, warm = o->warmup < 0 ? 1 : o->warmup;
    TDCL_TRY(random_input(n, o->type, o->seed ? o->seed : 1, &in, &err));
    tdcl_devset first = {.n = 1, .ctx = {all.set->ctx[0]}};
    one.set = &first;
    TDCL_TRY(tdcl_bench_time(warm, reps, run_bands, &one, &t1, &err));
    TDCL_TRY(tdcl_bench_time(warm, reps, run_bands, &all, &tn, &err));
    size_t bytes = tdcl_matrix_count(&one.out) * tdcl_dtype_size(one.out.dtype);
    if (one.out.dtype != all.out.dtype ||
        tdcl_matrix_count(&all.out) != tdcl_matrix_count(&one.out) ||
        memcmp(one.out.data, all.out.data, bytes) != 0) {
        st = tdcl_fail(&err, TDCL_EVERIFY, "%zu shards and one shard gave different means",
                       all.set->n);
        goto out;
    }
    report(&all, all.set->n, n, &to, &t1, &tn, json);
out:
    tdcl_matrix_free(&in);
    tdcl_matrix_free(&one.out);
    tdcl_matrix_free(&all.out);
    tdcl_devset_close(all.set);
    return st ? cli_report(&err) : 0;
}

#define SYNC CLI_MPI_SYNC

typedef struct ta_mpi_bench {
    tdcl_ctx *ctx;
    const tdcl_ta_opts *o;
    const tdcl_matrix *in; /* every rank's (the same) */
    tdcl_matrix out;
} ta_mpi_bench;

/* tdcl_bench_fn: rank 0 alone on the whole input; its kernels */
static tdcl_status run_alone(void *user, double *device_ms, tdcl_err *err)
{
    ta_mpi_bench *r = user;
    double k0 = r->ctx->t.kernel_ms;
    tdcl_matrix_free(&r->out);
    tdcl_status st = tdcl_ta_run(r->ctx, r->o, r->in, &r->out, err);
    *device_ms = r->ctx->t.kernel_ms - k0;
    return st;
}

/* tdcl_bench_fn: the bands over the ranks, each from the input it holds
 * into its own means (as from and into .npy files by offset); the slowest
 * rank's kernels */
static tdcl_status run_ranks(void *user, double *device_ms, tdcl_err *err)
{
    ta_mpi_bench *r = user;
    double k0 = r->ctx->t.kernel_ms;
    tdcl_matrix_free(&r->out);
    tdcl_status st = tdcl_ta_mpi_own_band(r->ctx, r->o, r->in, &r->out, err);
    *device_ms = tdcl_mpi_max(r->ctx->t.kernel_ms - k0);
    return st;
}

int cmd_bench_ta_mpi(const tdcl_bench_opts *o, int json, const cli_globals *g)
{
    tdcl_err err = {0};
    tdcl_status st = TDCL_OK;
    tdcl_matrix in = {0};
    tdcl_bench_stats t1 = {0}, tn = {0};
    tdcl_ta_opts to = bench_tiles(o);
    ta_mpi_bench one = {.o = &to, .in = &in}, all = {.o = &to, .in = &in};
    int root = tdcl_mpi_rank() == 0;
    int reps = o->reps ? o->reps : 5, warm = o->warmup < 0 ? 1 : o->warmup;
    SYNC(tdcl_mpi_open_local(g->device_spec ? g->device_spec : getenv("TILEDCL_DEVICE"), &one.ctx,
                             &err));
    all.ctx = one.ctx;
    /* rank 0's device picks the default size for every rank */
    int64_t n = o->size ? o->size : tdcl_bench_default_size(&one.ctx->dev, o->op);
    tdcl_mpi_bcast_i64(&n);
    SYNC(random_input(n, o->type, o->seed ? o->seed : 1, &in, &err));
    if (root) st = tdcl_bench_time(warm, reps, run_alone, &one, &t1, &err);
    tdcl_mpi_quiet_barrier(); /* the others wait without taking rank 0's CPU */
    SYNC(st);
    SYNC(tdcl_bench_time(warm, reps, run_ranks, &all, &tn, &err));
    /* the check: one more run, the means gathered on rank 0 */
    tdcl_matrix_free(&all.out);
    SYNC(tdcl_ta_mpi_bands(all.ctx, &to, TDCL_OK, &in, NULL, NULL, NULL, &all.out, &err));
    size_t bytes = tdcl_matrix_count(&one.out) * tdcl_dtype_size(one.out.dtype);
    if (root && (one.out.dtype != all.out.dtype ||
                 tdcl_matrix_count(&all.out) != tdcl_matrix_count(&one.out) ||
                 memcmp(one.out.data, all.out.data, bytes) != 0))
        st = tdcl_fail(&err, TDCL_EVERIFY, "%d ranks and rank 0 alone gave different means",
                       tdcl_mpi_size());
    SYNC(st);
    ta_bench view = {.o = &to, .in = &in};
    if (root) report(&view, (size_t)tdcl_mpi_size(), n, &to, &t1, &tn, json);
out:
    tdcl_matrix_free(&in);
    tdcl_matrix_free(&one.out);
    tdcl_matrix_free(&all.out);
    tdcl_ctx_close(one.ctx);
    if (st && !err.msg[0]) return tdcl_exit_code(st); /* another rank reported it */
    return st ? cli_report(&err) : 0;
}
