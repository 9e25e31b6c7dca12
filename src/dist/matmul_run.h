/* matmul's runners (module prefixes tdcl_mm_exec_, tdcl_mm_shard_,
 * tdcl_mm_mpi_): the product on an execution (dist/exec.h), one runner for
 * its three kinds. Over several devices C is split into a 2D grid of
 * blocks, one per shard.
 *
 * Local transport (a set of devices of one process): each shard's device
 * computes its block of C from A's band of rows and B's band of columns,
 * both in host memory, with the ordinary single-device plan; no exchange
 * between shards (docs/internals/scale-out.md says why this, and not
 * SUMMA, in one process). MPI transport (dist/mpi.c): SUMMA over the ranks. */
#ifndef TDCL_MATMUL_RUN_H
#define TDCL_MATMUL_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "base/matrix.h"
#include "base/status.h"
#include "dist/exec.h"
#include "ops/matmul/matmul.h"
#include "runtime/devset.h"

typedef struct tdcl_mm_shard_opts {
    tdcl_devset *set;                  /* local: the devices, one shard each (may be opening) */
    const char *devices;               /* mpi: the set spec the ranks' devices come from */
    int grid_rows, grid_cols;          /* the grid of shards; 0 x 0: the most square one */
    int64_t panel;                     /* mpi: SUMMA's panel width along K; 0 = chosen */
    const char *a_npy, *b_npy;         /* mpi, both non-NULL: plain .npy files of A and B of
                                          which each rank reads its own blocks (tdcl_npy_probe
                                          accepts them); rank 0 then sends no blocks */
    const char *npy_out;               /* mpi: a .npy output every rank writes its block of C
                                          into by offset (c then stays empty) when its
                                          temporary file is a plain file every rank can open;
                                          else C is gathered to rank 0 as without it */
    double *panels_ms;                 /* mpi, if non-NULL: set to this rank's wall time of the
                                          panel phase (after the scatter, before the gather) */
    int inputs_everywhere;             /* mpi: every rank passes the whole A and B, already of
                                          the run's type: nothing is read or sent */
    int c_stays;                       /* mpi: c gets this rank's own block of C; nothing is
                                          written or gathered */
    struct tdcl_mm_mpi_layout *layout; /* mpi, if non-NULL: set to the grid chosen */
} tdcl_mm_shard_opts;

/* The grid of ranks a run chose, and whether it gave every rank the whole
 * of B (bands of C's rows, no panel exchange) rather than SUMMA's panels. */
typedef struct tdcl_mm_mpi_layout {
    int rows, cols, bands;
} tdcl_mm_mpi_layout;

/* The grid for n shards: *rows x *cols = given (rows, cols) when both are
 * non-zero, else the most square factorisation of n with rows >= cols
 * (2: 2x1, 4: 2x2, 6: 3x2). TDCL_EINVAL when a given grid does not hold
 * n shards. */
tdcl_status tdcl_mm_shard_grid(size_t n, int rows, int cols, int *out_rows, int *out_cols,
                               tdcl_err *err);

/* The grid of a set of devices in one process: the given one, else n x 1,
 * bands of C's rows. Every shard reads its inputs from host memory, so a
 * 2D grid saves no exchange, while a band's A rows and its C rows are
 * whole rows: no column copy of B, C downloaded in place; measured on four
 * GPUs, bands took less than half the time of a 2x2 grid
 * (docs/internals/scale-out.md). */
tdcl_status tdcl_mm_shard_grid_local(size_t n, int rows, int cols, int *out_rows, int *out_cols,
                                     tdcl_err *err);

/* Splits an M x N product over a rows x cols grid: rb (rows + 1 entries)
 * and cb (cols + 1) bound the bands of C's rows and columns, even to a
 * row or column. TDCL_EINVAL (naming both) when a band would be empty. */
tdcl_status tdcl_mm_shard_split(int64_t M, int64_t N, int rows, int cols, int64_t *rb, int64_t *cb,
                                tdcl_err *err);

/* c (new, the caller's) = a*b over the set's devices (opened), on a
 * rows x cols grid (shard p*cols + q on set->ctx[p*cols + q]), each block
 * by the plan of o (o->borrow_inputs is ignored). An int64 product that
 * leaves int64 fails with TDCL_ERANGE naming the first such element of the
 * whole C. -v logs the layout and each shard's times. */
tdcl_status tdcl_mm_shard_run(tdcl_devset *set, const tdcl_mm_opts *o, int rows, int cols,
                              const tdcl_matrix *a, const tdcl_matrix *b, tdcl_matrix *c,
                              tdcl_err *err);

/* Every rank: opens the device this rank's node-local rank picks among
 * so->devices into *ctx (the caller's, tdcl_ctx_close); agreed over the
 * ranks as tdcl_mm_mpi_run's steps are. */
tdcl_status tdcl_mm_mpi_open(const tdcl_mm_shard_opts *so, tdcl_ctx **ctx, tdcl_err *err);

/* matmul over MPI ranks (dist/matmul_mpi.c; every rank calls it): c =
 * a*b, each rank on its device ctx (tdcl_mm_mpi_open).
 *
 * Bands: with no grid and no panel width given (or a grid of one column
 * and no panel width), and where every rank's device holds the whole of B
 * beside its band of A's rows and of C's, the grid is R x 1 and every rank
 * gets the whole B: from the .npy file (each rank reads A's rows it needs
 * and all of B), or broadcast once from rank 0. Each rank then computes
 * its band of C with the single-device product (tensor cores included);
 * no panels cross between ranks. Two ranks sharing one GPU spent several
 * times the product's own time passing SUMMA's panels
 * (docs/internals/scale-out.md).
 *
 * SUMMA otherwise, on a so->grid_rows x so->grid_cols grid of ranks (0 x
 * 0: the most square). Rank 0 converts A and B to the compute type,
 * checks int64 overflow (as a panelled single-device product does, on the
 * host unless the inputs' bound rules it out) and sends each rank only
 * its own blocks; panels of A then go along the grid's rows and panels of
 * B along its columns (MPI_Ibcast from pinned host memory, the next
 * panel's in flight while the device computes this one), each rank adding
 * the panels' products into its block of C on its device. C is gathered
 * to rank 0, or written by every rank into so->npy_out.
 *
 * Rank 0 passes a and b (any dtypes, converted to mm->type there; empty
 * where so->a_npy and so->b_npy name them) and in_st (a failure it had
 * getting them, which stops every rank); the other ranks pass empty
 * matrices, TDCL_OK and the same mm. With so->inputs_everywhere every
 * rank passes the whole a and b, of mm->type. c (new) is rank 0's; the
 * others' stays empty; with so->c_stays each rank's c is its own block.
 * A failure on any rank stops every rank (the lowest failing rank's
 * message; the others return TDCL_EIO with an empty one).
 * TDCL_EUNSUPPORTED when built without MPI. */
tdcl_status tdcl_mm_mpi_run(tdcl_ctx *ctx, const tdcl_mm_shard_opts *so, const tdcl_mm_opts *mm,
                            tdcl_status in_st, const tdcl_matrix *a, const tdcl_matrix *b,
                            tdcl_matrix *c, tdcl_err *err);

/* Over ranks, every rank: whether every rank's device (ctx, this rank's)
 * has fp64 (1), this one has not (0) or another rank's has not (-1).
 * Built without MPI: ctx's alone. */
int tdcl_mm_mpi_fp64(const tdcl_ctx *ctx);

/* Over ranks, every rank: *slabs = 1 where every rank can read its own
 * blocks of A and B (a_path and b_path plain .npy files on every rank,
 * tdcl_npy_probe), with *ta and *tb their dtypes; every rank's copies
 * must hold rank 0's arrays, else every rank fails naming the file that
 * differs. *slabs = 0 otherwise (built without MPI: always). */
tdcl_status tdcl_mm_mpi_slabs(const char *a_path, const char *b_path, tdcl_dtype *ta,
                              tdcl_dtype *tb, int *slabs, tdcl_err *err);

/* The product on an execution of several devices (dist/matmul_run.c): a
 * set of this process's devices (tdcl_mm_shard_run on the grid
 * tdcl_mm_shard_grid_local gives) or MPI ranks (tdcl_mm_mpi_run). One
 * device runs the single-device pipeline (jobs/matmul_job.h), whose
 * zero-copy and streamed outputs have no counterpart here. A job calls,
 * in this order: _start; _slabs; reads its inputs on the root
 * (tdcl_exec_root); _devices; chooses the type; _share; _run; and _end,
 * also after a failure. The order keeps a set's inputs read while its
 * devices open, and the ranks' collective calls in step. */
typedef struct tdcl_mm_exec {
    tdcl_exec *ex;
    tdcl_ctx *ctx;       /* ranks: this rank's device, opened by _start */
    const char *no_fp64; /* NULL where every device has fp64, else the name of
                            one that has not (ranks: after _start; a set:
                            after _devices) */
    int rows, cols;      /* a set: the grid of shards, after _devices */
} tdcl_mm_exec;

/* Starts r on ex: over ranks, opens this rank's device and agrees whether
 * every rank's has fp64 (collective); else nothing. */
tdcl_status tdcl_mm_exec_start(tdcl_exec *ex, tdcl_mm_exec *r, tdcl_err *err);

/* tdcl_mm_mpi_slabs over ranks (collective); elsewhere *slabs = 0. */
tdcl_status tdcl_mm_exec_slabs(tdcl_mm_exec *r, const char *a_path, const char *b_path,
                               tdcl_dtype *ta, tdcl_dtype *tb, int *slabs, tdcl_err *err);

/* On a set: in_st when it failed, else the set waited for, the grid of
 * so's (tdcl_mm_shard_grid_local) and no_fp64 settled. Over ranks: TDCL_OK
 * (in_st goes to _run, which agrees on it). */
tdcl_status tdcl_mm_exec_devices(tdcl_mm_exec *r, const tdcl_mm_shard_opts *so, tdcl_status in_st,
                                 tdcl_err *err);

/* Over ranks, *type and *offset as rank 0 has them, on every rank;
 * elsewhere nothing. */
void tdcl_mm_exec_share(tdcl_mm_exec *r, tdcl_dtype *type, int *offset);

/* c (new, the root's) = a*b on r's execution: tdcl_mm_shard_run on a set
 * (in_st when it failed), tdcl_mm_mpi_run over ranks. so->set and
 * so->devices are ignored: r's execution gives them. */
tdcl_status tdcl_mm_exec_run(tdcl_mm_exec *r, const tdcl_mm_shard_opts *so, const tdcl_mm_opts *mm,
                             tdcl_status in_st, const tdcl_matrix *a, const tdcl_matrix *b,
                             tdcl_matrix *c, tdcl_err *err);

/* Where the product was computed, for the output's comment: "2x1 shards",
 * "4 MPI ranks". */
void tdcl_mm_exec_where(const tdcl_mm_exec *r, char *buf, size_t n);

/* Releases what _start opened; accepts a zeroed struct. */
void tdcl_mm_exec_end(tdcl_mm_exec *r);

#endif
