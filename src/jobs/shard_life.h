/* Life over several devices (module prefix tdcl_life_shards_): the grid in
 * bands of rows, one per device of a set, each band's plan holding K rows
 * of its neighbours above and below (wrapping on a torus) so that it
 * advances K generations between exchanges (temporal blocking); the
 * result is bit-identical to one device's. The file job on top of it is
 * tdcl_life_shard_job. */
#ifndef TDCL_SHARD_LIFE_H
#define TDCL_SHARD_LIFE_H

#include <stdint.h>

#include "base/matrix.h"
#include "base/status.h"
#include "io/gif.h"
#include "io/life_io.h"
#include "jobs/life_job.h"
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

/* Where the set is and how the halo is chosen, for tdcl_life_shard_job. */
typedef struct tdcl_life_shard_opts {
    const char *devices; /* the set's spec (tdcl_devset_pick) */
    tdcl_ctx_opts ctx;   /* kernel directory and cache for every device */
    int halo;            /* 0: chosen */
} tdcl_life_shard_opts;

/* The life job (jobs/life_job.h) over a set of devices (may be opening;
 * waited for after the input is read), halo as tdcl_life_shards_create
 * takes it: reads or seeds the grid, runs it sharded, logs --every
 * populations (reduced over the shards), writes frames, GIF and output
 * from the gathered grid. */
tdcl_status tdcl_life_shard_job(tdcl_devset *set, int halo, const tdcl_life_job_opts *o,
                                tdcl_life_summary *sum, tdcl_matrix *final, tdcl_err *err);

/* The life job over MPI ranks (jobs/life_mpi_job.c): rank 0 reads the
 * pattern and sends it to every rank (a plain .npy file every rank holds
 * alike: each reads its own rows; the soup: each sows its own rows), every
 * rank runs its band (dist/mpi.h's runner) on the device its node-local
 * rank picks among so->devices (a set spec, a single device, or NULL:
 * every GPU, else every device), and rank 0 gathers the result, logs
 * --every populations (summed over the ranks), writes frames and GIF and
 * the output (a .npy output: every rank its rows). A failure on any rank
 * stops every rank: the lowest failing rank's error is returned with its
 * message; the others return TDCL_EIO with an empty message (the failing
 * rank reports it). *sum is filled on every rank. TDCL_EUNSUPPORTED when
 * built without MPI. */
tdcl_status tdcl_life_mpi_job(const tdcl_life_shard_opts *so, const tdcl_life_job_opts *o,
                              tdcl_life_summary *sum, tdcl_err *err);

/* The life job's run of a grid larger than ctx's device holds (jobs/
 * life_job.c hands it over): grid (read, with the starting generation
 * gen0; taken) streamed through the device in bands, as the shards do it
 * over a one-device set; snapshots, summary and output as
 * tdcl_life_shard_job. */
tdcl_status tdcl_life_stream_job(tdcl_ctx *ctx, const tdcl_life_job_opts *o,
                                 const tdcl_life_opts *lo, tdcl_matrix *grid, int64_t gen0,
                                 tdcl_life_summary *sum, tdcl_matrix *final, tdcl_err *err);

/* The job's first step, shared with the MPI job: the
 * starting grid (the caller's), rule and boundary (into *lo, unless o says
 * they were given) and generation from o's file or soup options. */
tdcl_status tdcl_life_shard_input(const tdcl_life_job_opts *o, tdcl_life_opts *lo,
                                  tdcl_matrix *grid, int64_t *gen0, tdcl_err *err);

/* Shared with the MPI job too: whether generation snapshots need the whole
 * grid (--frames with --every, or --gif), and writing one: the PNG frame
 * DIR/gen-GGGGGGGG.png and the GIF's frame (gif NULL: none) of grid at
 * generation gen. */
int tdcl_life_snapshot_needs_grid(const tdcl_life_job_opts *o);
tdcl_status tdcl_life_snapshot_write(const tdcl_life_job_opts *o, const tdcl_life_write_opts *w0,
                                     tdcl_life_gif *gif, const tdcl_matrix *grid, int64_t gen,
                                     tdcl_err *err);

/* Shared with the MPI job: --frames' directory made (or there already). */
tdcl_status tdcl_life_frames_dir(const tdcl_life_job_opts *o, tdcl_err *err);

/* Shared with the MPI job: the progress line or bar of a long run (o's
 * callback, else the log), about once a second; *t_report is the last
 * report's time (tdcl_now_ms), t_start the run's. */
void tdcl_life_progress(const tdcl_life_job_opts *o, int64_t done, double t_start,
                        double *t_report);

#endif
