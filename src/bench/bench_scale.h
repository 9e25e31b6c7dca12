/* The scale-out drivers behind `tiledcl bench OP` over a set of devices or
 * MPI ranks (module prefix tdcl_bench_scale_ and tdcl_bench_*_set/_ranks):
 * life, matmul and tile-avg over all the parts against one part alone,
 * measured in the same invocation, after a check that both give the same
 * answer. Each driver fills a tdcl_bench_scale; bench_report.h writes it
 * as text or JSON. They never print.
 *
 *   life      over the set's devices (dist/life_shards.h) or the ranks'
 *             bands (dist/mpi.h); the grids must agree byte for byte
 *   matmul    the whole sharded call (plans, uploads, products, downloads,
 *             assembly; dist/matmul_run.h) per repetition; the products
 *             agree exactly for int64, within twice --verify's bound for
 *             floats
 *   tile-avg  the whole banded call (dist/tile_avg_run.h) per
 *             repetition, with the slowest part's kernels beside it; the
 *             means must be identical */
#ifndef TDCL_BENCH_SCALE_H
#define TDCL_BENCH_SCALE_H

#include <stddef.h>
#include <stdint.h>

#include "base/matrix.h"
#include "base/status.h"
#include "base/timer.h"
#include "bench/bench_ops.h"
#include "runtime/clrt.h"
#include "runtime/devset.h"

/* One scale-out figure: one part alone, then all of them. */
typedef struct tdcl_bench_scale {
    tdcl_bench_op op;                    /* LIFE, MATMUL or TILE_AVG */
    int ranks;                           /* 1: MPI ranks; 0: the devices of a set */
    int root;                            /* this process holds the figures (a set; rank 0) */
    size_t parts;                        /* devices or ranks */
    char devices[TDCL_DEVSET_MAX * 144]; /* a set: " P:D name" per device, ", "
                                            between; else "" */
    tdcl_dtype type;                     /* matmul's and tile-avg's elements */
    int64_t size;                        /* life, tile-avg: N of the NxN input */
    int64_t m, k, n;                     /* matmul */
    int64_t gens;                        /* life */
    int halo;                            /* life: the halo of the parts' run */
    tdcl_life_boundary boundary;         /* life */
    int64_t tile_rows, tile_cols;        /* tile-avg */
    int grid_rows, grid_cols;            /* matmul: the grid of shards or ranks */
    int bands;                           /* matmul over ranks: bands of C's rows, else
                                            SUMMA */
    double in_bytes;                     /* tile-avg: the input's bytes */
    int reps;
    tdcl_bench_stats one, all; /* host medians; device times where measured */
} tdcl_bench_scale;

/* Over the set that spec names (co: the contexts' options): opens it,
 * generates o's input (o->size, else the default of the first device),
 * times one shard on the first device and then all of them, checks that
 * they agree, and fills *r. TDCL_EVERIFY when they differ. */
tdcl_status tdcl_bench_life_set(const char *spec, const tdcl_ctx_opts *co, const tdcl_bench_opts *o,
                                tdcl_bench_scale *r, tdcl_err *err);
tdcl_status tdcl_bench_matmul_set(const char *spec, const tdcl_ctx_opts *co,
                                  const tdcl_bench_opts *o, tdcl_bench_scale *r, tdcl_err *err);
tdcl_status tdcl_bench_tile_avg_set(const char *spec, const tdcl_ctx_opts *co,
                                    const tdcl_bench_opts *o, tdcl_bench_scale *r, tdcl_err *err);

/* Collective, on every rank: the same with each rank's device (spec, as
 * tdcl_mpi_open_local takes it) against rank 0 alone; rank 0 gets the
 * figures (r->root). Failures agree over the ranks (tdcl_mpi_agree): a
 * rank that did not report the failure gets an empty message. */
tdcl_status tdcl_bench_life_ranks(const char *spec, const tdcl_bench_opts *o, tdcl_bench_scale *r,
                                  tdcl_err *err);
tdcl_status tdcl_bench_matmul_ranks(const char *spec, const tdcl_bench_opts *o, tdcl_bench_scale *r,
                                    tdcl_err *err);
tdcl_status tdcl_bench_tile_avg_ranks(const char *spec, const tdcl_bench_opts *o,
                                      tdcl_bench_scale *r, tdcl_err *err);

/* " P:D name" per device of set, ", " between, into buf (the set drivers'
 * r->devices). */
void tdcl_bench_scale_devices(const tdcl_devset *set, char *buf, size_t cap);

#endif
