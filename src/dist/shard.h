/* Shards (module prefix tdcl_shard_): a problem split into bands of rows,
 * one per device of a set (runtime/devset.h), run by threads of one
 * process (the "local" transport) that exchange halos through pinned host
 * buffers between rounds. The operations' runners over a set (life_shards.c,
 * tile_avg_shards.c) build on these pieces. */
#ifndef TDCL_SHARD_H
#define TDCL_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "runtime/clrt.h"

/* Splits rows into n bands, each a multiple of align rows but the last,
 * sizes differing by at most align: band i is [begin[i], begin[i + 1]),
 * begin has n + 1 entries. TDCL_EINVAL (with a message naming both
 * numbers) when some band would be empty: more shards than blocks of
 * align rows. */
tdcl_status tdcl_shard_split(int64_t rows, size_t n, int64_t align, int64_t *begin, tdcl_err *err);

/* The halo depth K (generations per exchange) that minimises a
 * generation's cost t_row * (band + 2K) + fixed / K, where fixed_ms is
 * what a round costs beyond its kernels and row_ms a row's generation on
 * the device: K = sqrt(fixed / (2 t_row)), within 1, TDCL_SHARD_HALO_MAX
 * and the thinnest band. On 4 H200s at 131072^2 rounds asked for 108-126
 * rows. */
enum { TDCL_SHARD_HALO_MAX = 256 };
int64_t tdcl_shard_halo(double fixed_ms, double row_ms, int64_t thinnest);

/* 1 when a generation of a band of band rows costs at least 5% less with a
 * halo of to rows than with from (t_row * (band + 2K) + fixed / K), so
 * that rebuilding the plans for it is worth a measurement's noise; else 0. */
int tdcl_shard_halo_worth(double fixed_ms, double row_ms, int64_t band, int64_t from, int64_t to);

/* Host memory the device copies to and from at full speed: a buffer made
 * with CL_MEM_ALLOC_HOST_PTR and mapped for the life of the struct. */
typedef struct tdcl_pinned {
    tdcl_ctx *ctx;
    cl_mem mem;
    void *ptr; /* bytes of it, mapped */
    size_t bytes;
} tdcl_pinned;

/* Allocates and maps bytes (> 0) on ctx into *p (zeroed first). */
tdcl_status tdcl_pinned_alloc(tdcl_ctx *ctx, size_t bytes, tdcl_pinned *p, tdcl_err *err);

/* Unmaps and releases; accepts a zeroed struct. */
void tdcl_pinned_free(tdcl_pinned *p);

/* One shard's state in a parallel step: its status and error, its time. */
typedef struct tdcl_shard_stat {
    tdcl_status st;
    tdcl_err err;
    double compute_ms, exchange_ms; /* host wall time, summed over rounds */
} tdcl_shard_stat;

/* Runs fn(arg, i) for every shard i in [0, n) at once, one thread each,
 * and returns the first failure among stat[0..n) (copied into *err), or
 * TDCL_OK. fn reports through stat[i]. */
tdcl_status tdcl_shard_run(size_t n, void (*fn)(void *arg, int i), void *arg,
                           const tdcl_shard_stat *stat, size_t stat_stride, tdcl_err *err);

#endif
