/* MPI, the "mpi" transport (module prefix tdcl_mpi_): whether this process
 * is one rank of several (read from the launcher's environment before any
 * MPI call), starting and ending MPI, agreeing, moving bytes between
 * ranks, writing a .npy file by offset, opening the rank's device. The
 * operations' runners over ranks build on it (dist/life_mpi.h,
 * dist/tile_avg_run.h, dist/matmul_run.h).
 *
 * MPI is optional at build time (meson option mpi). Built without it,
 * tdcl_mpi_built() is 0 and tdcl_mpi_init and the runners fail with
 * TDCL_EUNSUPPORTED; the launch size is still read, so that the CLI can
 * refuse to run the same job once per rank. */
#ifndef TDCL_MPI_H
#define TDCL_MPI_H

#include "base/status.h"
#include "io/npy.h"
#include "runtime/clrt.h"

/* 1 if built with MPI, else 0. */
int tdcl_mpi_built(void);

/* The number of ranks of the launch this process is part of, from the
 * environment mpirun (Open MPI, MPICH, Slurm's PMI) sets, and *rank (if
 * non-NULL) this one's; 0 (and rank 0) when not launched so. Pure: no MPI
 * call. */
int tdcl_mpi_launched_size(int *rank);

/* Starts MPI (threads funneled: only the calling thread makes MPI calls).
 * TDCL_EUNSUPPORTED when built without MPI. */
tdcl_status tdcl_mpi_init(tdcl_err *err);

/* Ends MPI if tdcl_mpi_init started it; safe to call always. */
void tdcl_mpi_finalize(void);

/* This rank and the ranks in all, once started; 0 and 1 otherwise. */
int tdcl_mpi_rank(void);
int tdcl_mpi_size(void);

/* Waits until every rank has called it, sleeping between looks rather
 * than spinning as MPI's own waits do (a benchmark's idle ranks would
 * otherwise take the CPU from the one it times); returns at once when
 * built without MPI. */
void tdcl_mpi_quiet_barrier(void);

/* *v as rank 0 has it, on every rank (built without MPI: unchanged). */
void tdcl_mpi_bcast_i64(int64_t *v);

/* bytes of buf as rank 0 has them, on every rank, in pieces of at most
 * 1 GiB (every piece is sent, failed or not, so that the ranks stay in
 * step); -1 when MPI failed, else 0 (built without MPI: 0). */
int tdcl_mpi_bcast(void *buf, size_t bytes);

/* "rank N: " before err's message, unless it names a rank already: for a
 * failure that happened on one rank only (its own copy of a file). Built
 * without MPI: unchanged. */
void tdcl_mpi_name_rank(tdcl_err *err);

/* Collective, for what every rank read or was asked before any work
 * that depends on it: compares this rank's account of it with rank 0's.
 * shown is what a person reads ("70x50 float32"; up to a few hundred
 * bytes are shown, all of it compared), sum a digest of the rest (the
 * bytes, say; 0 if none). Where any rank's differs, every rank fails (as
 * tdcl_mpi_agree), the lowest differing one with "rank N <subject>
 * (<its shown>) from rank 0 (<rank 0's>)", as "rank 1 read a different
 * 'A.npy' (90x50 float32) from rank 0 (70x50 float32)". Built without
 * MPI: TDCL_OK. */
tdcl_status tdcl_mpi_same(const char *subject, const char *shown, uint64_t sum, tdcl_err *err);

/* Collective: *all = 1 when every rank can read path as a plain .npy file
 * (tdcl_npy_probe: on disk, C order, not gzip; info gets its header), else
 * 0 (path NULL: 0). Where all can, the ranks then agree (tdcl_mpi_same)
 * that their files hold the same array: shape, dtype and a digest of every
 * byte; a difference, or a rank that cannot read its file through, fails
 * every rank naming it. */
tdcl_status tdcl_mpi_npy_all(const char *path, tdcl_npy_info *info, int *all, tdcl_err *err);

/* Collective: tdcl_mpi_npy_all's agreement alone, for a path every rank
 * has probed (info: this rank's header). */
tdcl_status tdcl_mpi_same_npy(const char *path, const tdcl_npy_info *info, tdcl_err *err);

/* The largest of the ranks' v, on every rank (built without MPI: v). */
double tdcl_mpi_max(double v);

/* For the jobs over ranks: every rank's status agreed (built without MPI:
 * the one rank's).
 * Returns the lowest failing rank, or -1; a rank that did not fail gets
 * TDCL_EIO and an empty message in *err, and every failing rank but the
 * reporter clears its message (one message for the job). The reporter is
 * the lowest failing rank that has a message, so that agreeing again on
 * an agreed failure keeps the message. */
int tdcl_mpi_agree(tdcl_status *st, tdcl_err *err);

/* In a job over ranks (a function with `tdcl_status st`, `tdcl_err *err`
 * and an `out:` label): st = expr, agreed over the ranks, so that a
 * failure on any rank sends every rank to out. */
#define TDCL_MPI_SYNC(expr)                                                                        \
    do {                                                                                           \
        st = (expr);                                                                               \
        if (tdcl_mpi_agree(&st, err) >= 0) goto out;                                               \
    } while (0)

/* For the jobs over ranks (MPI builds only): sends (send = 1) bytes to
 * rank peer or receives them from it, in pieces of at most 1 GiB (MPI
 * counts are int); TDCL_EIO naming the peer when MPI fails. */
tdcl_status tdcl_mpi_move(int send, void *buf, size_t bytes, int peer, tdcl_err *err);

/* For the jobs over ranks (MPI builds only): opens the device that node-
 * local rank `local` takes among spec's (a set, one device, or NULL:
 * every GPU, else every device), round robin. */
tdcl_status tdcl_mpi_open_device(const char *spec, int local, tdcl_ctx **ctx, tdcl_err *err);

/* A rank's block of a rows x cols matrix of dtype: rows r0 .. r0+mi-1,
 * columns c0 .. c0+nj-1. */
typedef struct tdcl_mpi_block {
    int64_t rows, cols;
    tdcl_dtype dtype;
    int64_t r0, c0, mi, nj;
} tdcl_mpi_block;

/* For the jobs over ranks (MPI builds only; collective): every rank writes
 * its block (data: mi x nj elements, row-major) into the .npy file path
 * without a gather: rank 0 opens the temporary file beside path, writes
 * the header and sets the file's full size, every rank writes its rows at
 * their offsets and syncs, and rank 0 renames the file into place once
 * every rank succeeded (else removes it: an existing output stays). The
 * bytes are those tdcl_matrix_write gives the whole matrix. Returns 0,
 * having written nothing, where the output cannot be written so (a FIFO, a
 * device, a rank that cannot open the temporary file: no shared file
 * system), and the caller gathers instead; else 1, with the outcome in
 * *res. */
int tdcl_mpi_write_npy(const char *path, const tdcl_mpi_block *b, const void *data,
                       tdcl_status *res, tdcl_err *err);

/* This rank's device: the node-local rank's
 * (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)) pick among spec's, as
 * tdcl_mpi_open_device, agreed over the ranks. */
tdcl_status tdcl_mpi_open_local(const char *spec, tdcl_ctx **ctx, tdcl_err *err);

#endif
