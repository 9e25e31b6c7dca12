/* Life's runner (module prefix tdcl_life_exec_): a grid advanced on an
 * execution (dist/exec.h), one sequence of calls for its three kinds. On
 * one device it is the plan of ops/life/life.h, or, for a grid larger than
 * the device holds, the bands of dist/life_shards.h streamed through that
 * device; on a set, those bands one per device; over MPI ranks, the bands
 * of dist/life_mpi.h, one per rank. The file job is jobs/life_job.c.
 *
 * A job calls, in this order: _start; _npy_all where an input may be read
 * by every rank; reads its input on the root (tdcl_exec_root); _create;
 * then _execute, _grid and _population as it goes; _final or _write_npy;
 * and _end, also after a failure. Over ranks every call but _describe and
 * _end is collective, and a failure on any rank fails all (tdcl_mpi_agree). */
#ifndef TDCL_LIFE_RUN_H
#define TDCL_LIFE_RUN_H

#include <stdint.h>

#include "base/matrix.h"
#include "base/status.h"
#include "dist/exec.h"
#include "dist/life_mpi.h"
#include "dist/life_shards.h"
#include "ops/life/life.h"
#include "runtime/devset.h"

typedef struct tdcl_life_exec {
    tdcl_exec *ex;
    tdcl_ctx *ctx;            /* one device: ex->ctx; ranks: this rank's (_start) */
    tdcl_life_opts lo;        /* as _create took them */
    tdcl_devset one;          /* one device, streamed: that device as a set of one */
    tdcl_life_plan *plan;     /* one device, the grid held whole */
    tdcl_life_shards *shards; /* a set, or one device streamed */
    tdcl_life_mpi *mpi;       /* ranks */
    int64_t rows, cols;       /* the grid's */
    double kernel_ms;         /* the plan's device time so far (host_timed: the host's) */
    int host_timed;           /* the device's timer is unusable: times are the host's */
    char describe[160];
} tdcl_life_exec;

/* The largest grid ctx's device holds whole, in cells (rows of one word). */
int64_t tdcl_life_exec_device_cells(const tdcl_ctx *ctx, const tdcl_life_opts *lo);

/* Starts r on ex: over ranks, opens this rank's device (collective); on
 * one device r->ctx is ex->ctx, which may still be opening. */
tdcl_status tdcl_life_exec_start(tdcl_exec *ex, tdcl_life_exec *r, tdcl_err *err);

/* Over ranks, tdcl_mpi_npy_all (collective): *all = 1 where path is a
 * plain .npy file every rank holds alike (info: its header); elsewhere, or
 * with path NULL, *all = 0. */
tdcl_status tdcl_life_exec_npy_all(tdcl_life_exec *r, const char *path, tdcl_npy_info *info,
                                   int *all, tdcl_err *err);

/* Makes the run of the grid src names, with lo (rule and boundary) and
 * *gen0 (the starting generation) as the root has them; in_st is this
 * rank's status of reading the input: a failure returns it (over ranks,
 * agreed first). src->grid is the root's grid, not kept; over ranks
 * every rank passes src->grid (empty but on rank 0) to have rank 0's sent
 * to all, or a src naming a .npy file or a soup whose rows each rank reads
 * or sows. halo: generations between
 * exchanges over bands (0: chosen). Waits for the device or the set. */
tdcl_status tdcl_life_exec_create(tdcl_life_exec *r, tdcl_life_opts *lo, int64_t *gen0,
                                  tdcl_status in_st, const tdcl_life_src *src, int halo,
                                  tdcl_err *err);

/* One device's plan again, on grid (the unbounded plane refitted): the
 * old plan's buffers are released first. */
tdcl_status tdcl_life_exec_regrid(tdcl_life_exec *r, const tdcl_matrix *grid, tdcl_err *err);

/* The most generations one _execute should take (whole rounds of the
 * bands' halo), or 0: any. */
int64_t tdcl_life_exec_chunk(const tdcl_life_exec *r);

/* Advances gens generations. */
tdcl_status tdcl_life_exec_execute(tdcl_life_exec *r, int64_t gens, tdcl_err *err);

/* The whole grid now, into *grid (new; the root's). */
tdcl_status tdcl_life_exec_grid(tdcl_life_exec *r, tdcl_matrix *grid, tdcl_err *err);

/* The live cells now, on every rank. */
tdcl_status tdcl_life_exec_population(tdcl_life_exec *r, int64_t *pop, tdcl_err *err);

/* The last grid into *grid (the root's): a plan's into grid's own memory
 * where it fits (the starting grid's, kept by the caller), else a new
 * matrix; *pop its live cells. */
tdcl_status tdcl_life_exec_final(tdcl_life_exec *r, tdcl_matrix *grid, int64_t *pop, tdcl_err *err);

/* Over ranks, every rank's band written into the .npy file path by offset
 * (tdcl_life_mpi_write_npy); *written 0 where it cannot, or on one device
 * or a set: the caller takes _final and writes it. */
tdcl_status tdcl_life_exec_write_npy(tdcl_life_exec *r, const char *path, int *written,
                                     tdcl_err *err);

/* The cell updates of the tiles computed after gens generations where one
 * plan skipped tiles, else -1. */
tdcl_status tdcl_life_exec_computed(tdcl_life_exec *r, int64_t gens, double *computed,
                                    tdcl_err *err);

/* The device time so far: the plan's, or the slowest band's (over ranks,
 * collective). */
double tdcl_life_exec_kernel_ms(tdcl_life_exec *r);

/* Logs the bands' layout, and with timing their times so far, at
 * TDCL_LOG_VERBOSE; nothing for a plan. */
void tdcl_life_exec_log(const tdcl_life_exec *r, int timing);

/* "kernel=bits ...", "2 shards, halo 8: ...", "4 ranks, halo 16: ...";
 * valid while r lives. */
const char *tdcl_life_exec_describe(tdcl_life_exec *r);

/* Releases the plan, the bands and what _start opened; accepts a zeroed
 * struct. */
void tdcl_life_exec_end(tdcl_life_exec *r);

#endif
