/* Life's file jobs over several devices (module prefix tdcl_life_shard_):
 * over a set (tdcl_life_shard_job, jobs/life_shard_job.c), over MPI ranks
 * (tdcl_life_mpi_job, jobs/life_mpi_job.c), streamed through one device
 * (tdcl_life_stream_job), and the steps they share. The runner over a set
 * is dist/life_shards.h. */
#ifndef TDCL_SHARD_LIFE_H
#define TDCL_SHARD_LIFE_H

#include <stdint.h>

#include "base/matrix.h"
#include "base/status.h"
#include "dist/life_shards.h"
#include "io/gif.h"
#include "io/life_io.h"
#include "jobs/life_job.h"
#include "ops/life/life.h"
#include "runtime/devset.h"

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
