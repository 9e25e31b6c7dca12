/* Life over several devices (module prefix tdcl_life_shards_): the grid in
 * bands of rows, one per device of a set, each band's plan holding K rows
 * of its neighbours above and below (wrapping on a torus) so that it
 * advances K generations between exchanges (temporal blocking); the
 * result is bit-identical to one device's. The file job on top of it is
 * jobs/life_job.c, through the runner of dist/life_run.h. */
#ifndef TDCL_LIFE_SHARDS_H
#define TDCL_LIFE_SHARDS_H

#include <stdint.h>

#include "base/matrix.h"
#include "base/status.h"
#include "ops/life/life.h"
#include "runtime/devset.h"

typedef struct tdcl_life_shards tdcl_life_shards;

/* Splits grid (TDCL_U8, nonzero alive; not kept) over the set's devices
 * and makes a plan on each; where the bands would not fit their devices,
 * keeps the grid in host memory and streams it through them in as many
 * bands as it takes, every round (halo: generations a round; 0: 256). halo: generations per
 * exchange (the halo's rows), at most the thinnest band's rows; 0: chosen from the measured
 * per-round cost during the first execute of 3 or more generations
 * (tdcl_shard_halo). More shards than rows, or a halo thicker than a band, is
 * TDCL_EINVAL. *out is the caller's (tdcl_life_shards_destroy); set must
 * outlive it. */
tdcl_status tdcl_life_shards_create(tdcl_devset *set, const tdcl_life_opts *o,
                                    const tdcl_matrix *grid, int halo, tdcl_life_shards **out,
                                    tdcl_err *err);

/* Advances gens >= 0 generations on every shard, exchanging halos every K
 * generations. */
tdcl_status tdcl_life_shards_execute(tdcl_life_shards *s, int64_t gens, tdcl_err *err);

/* The live cells of the whole grid, summed over the shards' bands. */
tdcl_status tdcl_life_shards_population(tdcl_life_shards *s, int64_t *pop, tdcl_err *err);

/* The whole grid, gathered, into a new TDCL_U8 0/1 matrix, the caller's. */
tdcl_status tdcl_life_shards_result(tdcl_life_shards *s, tdcl_matrix *grid, tdcl_err *err);

/* Logs the layout (shards, rows and device of each, the halo) at
 * TDCL_LOG_VERBOSE, and with times when timing is nonzero: each shard's
 * compute and exchange time so far. */
void tdcl_life_shards_log(const tdcl_life_shards *s, int timing);

/* "2 shards, halo 8: kernel=bits ...", valid while s lives. */
const char *tdcl_life_shards_describe(const tdcl_life_shards *s);

/* The halo in use (generations per exchange). */
int tdcl_life_shards_halo(const tdcl_life_shards *s);

/* The sum of the shards' kernel time so far, and the largest one. */
void tdcl_life_shards_kernel_ms(const tdcl_life_shards *s, double *sum, double *max);

/* Releases the plans and buffers; accepts NULL. */
void tdcl_life_shards_destroy(tdcl_life_shards *s);

#endif
