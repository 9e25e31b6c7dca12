/* The execution object (module prefix tdcl_exec_): where a command's work
 * runs, opened once by the CLI for a command that needs a device: one
 * device, a set of devices of this process (runtime/devset.h), or MPI
 * ranks, each with the device its node-local rank picks among the spec's
 * (dist/mpi.h). A job is written once against it; the runners of dist/
 * take the work to each kind. */
#ifndef TDCL_EXEC_H
#define TDCL_EXEC_H

#include "base/status.h"
#include "runtime/clrt.h"
#include "runtime/devset.h"

typedef enum tdcl_exec_kind {
    TDCL_EXEC_ONE,   /* one device: ctx */
    TDCL_EXEC_SET,   /* several devices of this process: set */
    TDCL_EXEC_RANKS, /* this process is one of several MPI ranks */
} tdcl_exec_kind;

typedef struct tdcl_exec {
    tdcl_exec_kind kind;
    const char *spec;   /* the device spec, resolved (tdcl_device_spec); NULL: the default */
    tdcl_ctx_opts opts; /* kernel directory and cache, for every device */
    tdcl_ctx *ctx;      /* ONE: the device, still opening until tdcl_ctx_wait */
    tdcl_devset *set;   /* SET: the devices, still opening until tdcl_devset_wait */
    int ranks;          /* RANKS: how many; each rank opens its device when its
                           runner first needs it (tdcl_mpi_open_local on spec) */
} tdcl_exec;

/* The kind spec and ranks ask for: RANKS when ranks > 1 (the processes
 * mpirun started), else SET when spec names several devices
 * (tdcl_devset_spec_is_set), else ONE. Pure. */
tdcl_exec_kind tdcl_exec_kind_of(const char *spec, int ranks);

/* Starts opening the execution of kind tdcl_exec_kind_of(spec, ranks)
 * into *ex: the device or the set on threads, while the caller reads its
 * inputs (tdcl_ctx_open_async, tdcl_devset_open_async); nothing for ranks.
 * opts->device_spec is ignored. Release with tdcl_exec_close, also on
 * failure. */
tdcl_status tdcl_exec_open(const char *spec, int ranks, const tdcl_ctx_opts *opts, tdcl_exec *ex,
                           tdcl_err *err);

/* Waits for the device or the set to be open; the first failure. */
tdcl_status tdcl_exec_wait(tdcl_exec *ex, tdcl_err *err);

/* Whether this process reads a job's inputs and writes its outputs: 1
 * but over ranks, where rank 0 alone does (tdcl_mpi_rank). */
int tdcl_exec_root(const tdcl_exec *ex);

/* Over ranks, *st agreed over every rank (tdcl_mpi_agree: a failure on
 * any fails all, one message for the job); else *st as it is. Returns
 * *st. */
tdcl_status tdcl_exec_agree(const tdcl_exec *ex, tdcl_status *st, tdcl_err *err);

/* The timing a job adds its read and write times to: the device's on one
 * device, else NULL (a set's contexts keep their own times). */
tdcl_timing *tdcl_exec_timing(tdcl_exec *ex);

/* Releases the device or the set; accepts a zeroed struct. */
void tdcl_exec_close(tdcl_exec *ex);

#endif
