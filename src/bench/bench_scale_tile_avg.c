/* The means over a set's devices in bands (dist/tile_avg_run.h)
 * against one shard on its first device (tdcl_bench_tile_avg_set),
 * measured in the same invocation, after a check that both give the same
 * bytes. Each repetition is the whole banded call: plans, uploads,
 * kernels, downloads; its kernel phase (the slowest device's kernels, as
 * the bands run at once) is kept beside it. Over MPI ranks
 * (tdcl_bench_tile_avg_ranks) the same over the ranks' bands against rank
 * 0 alone. */
#include <string.h>

#include "base/rng.h"
#include "bench/bench_scale.h"
#include "dist/mpi.h"
#include "dist/tile_avg_run.h"

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

/* What both tile-avg drivers report beside the two timings. */
static void ta_figure(const tdcl_matrix *in, size_t parts, int64_t n, const tdcl_ta_opts *o,
                      const tdcl_bench_stats *t1, const tdcl_bench_stats *tn, tdcl_bench_scale *r)
{
    r->op = TDCL_BENCH_TILE_AVG;
    r->parts = parts;
    r->type = in->dtype;
    r->size = n;
    r->tile_rows = o->tile_rows;
    r->tile_cols = o->tile_cols;
    r->in_bytes = (double)tdcl_matrix_count(in) * (double)tdcl_dtype_size(in->dtype);
    r->reps = t1->reps;
    r->one = *t1;
    r->all = *tn;
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

tdcl_status tdcl_bench_tile_avg_set(const char *spec, const tdcl_ctx_opts *co,
                                    const tdcl_bench_opts *o, tdcl_bench_scale *r, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix in = {0};
    tdcl_bench_stats t1 = {0}, tn = {0};
    tdcl_ta_opts to = bench_tiles(o);
    ta_bench one = {.o = &to, .in = &in}, all = {.o = &to, .in = &in};
    memset(r, 0, sizeof *r);
    r->root = 1;
    TDCL_TRY(tdcl_devset_open_async(spec, co, &all.set, err));
    TDCL_TRY(tdcl_devset_wait(all.set, err));
    int64_t n = o->size ? o->size : tdcl_bench_default_size(&all.set->ctx[0]->dev, o->op);
    int reps = o->reps ? o->reps : 5, warm = o->warmup < 0 ? 1 : o->warmup;
    TDCL_TRY(random_input(n, o->type, o->seed ? o->seed : 1, &in, err));
    tdcl_devset first = {.n = 1, .ctx = {all.set->ctx[0]}};
    one.set = &first;
    TDCL_TRY(tdcl_bench_time(warm, reps, run_bands, &one, &t1, err));
    TDCL_TRY(tdcl_bench_time(warm, reps, run_bands, &all, &tn, err));
    size_t bytes = tdcl_matrix_count(&one.out) * tdcl_dtype_size(one.out.dtype);
    if (one.out.dtype != all.out.dtype ||
        tdcl_matrix_count(&all.out) != tdcl_matrix_count(&one.out) ||
        memcmp(one.out.data, all.out.data, bytes) != 0) {
        st = tdcl_fail(err, TDCL_EVERIFY, "%zu shards and one shard gave different means",
                       all.set->n);
        goto out;
    }
    tdcl_bench_scale_devices(all.set, r->devices, sizeof r->devices);
    ta_figure(&in, all.set->n, n, &to, &t1, &tn, r);
out:
    tdcl_matrix_free(&in);
    tdcl_matrix_free(&one.out);
    tdcl_matrix_free(&all.out);
    tdcl_devset_close(all.set);
    return st;
}

#define SYNC TDCL_MPI_SYNC

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

tdcl_status tdcl_bench_tile_avg_ranks(const char *spec, const tdcl_bench_opts *o,
                                      tdcl_bench_scale *r, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix in = {0};
    tdcl_bench_stats t1 = {0}, tn = {0};
    tdcl_ta_opts to = bench_tiles(o);
    ta_mpi_bench one = {.o = &to, .in = &in}, all = {.o = &to, .in = &in};
    int root = tdcl_mpi_rank() == 0;
    int reps = o->reps ? o->reps : 5, warm = o->warmup < 0 ? 1 : o->warmup;
    memset(r, 0, sizeof *r);
    r->ranks = 1;
    SYNC(tdcl_mpi_open_local(spec, &one.ctx, err));
    all.ctx = one.ctx;
    /* rank 0's device picks the default size for every rank */
    int64_t n = o->size ? o->size : tdcl_bench_default_size(&one.ctx->dev, o->op);
    tdcl_mpi_bcast_i64(&n);
    SYNC(random_input(n, o->type, o->seed ? o->seed : 1, &in, err));
    if (root) st = tdcl_bench_time(warm, reps, run_alone, &one, &t1, err);
    tdcl_mpi_quiet_barrier(); /* the others wait without taking rank 0's CPU */
    SYNC(st);
    SYNC(tdcl_bench_time(warm, reps, run_ranks, &all, &tn, err));
    /* the check: one more run, the means gathered on rank 0 */
    tdcl_matrix_free(&all.out);
    SYNC(tdcl_ta_mpi_bands(all.ctx, &to, TDCL_OK, &in, NULL, NULL, NULL, &all.out, err));
    size_t bytes = tdcl_matrix_count(&one.out) * tdcl_dtype_size(one.out.dtype);
    if (root && (one.out.dtype != all.out.dtype ||
                 tdcl_matrix_count(&all.out) != tdcl_matrix_count(&one.out) ||
                 memcmp(one.out.data, all.out.data, bytes) != 0))
        st = tdcl_fail(err, TDCL_EVERIFY, "%d ranks and rank 0 alone gave different means",
                       tdcl_mpi_size());
    SYNC(st);
    r->root = root;
    ta_figure(&in, (size_t)tdcl_mpi_size(), n, &to, &t1, &tn, r);
out:
    tdcl_matrix_free(&in);
    tdcl_matrix_free(&one.out);
    tdcl_matrix_free(&all.out);
    tdcl_ctx_close(one.ctx);
    return st;
}
