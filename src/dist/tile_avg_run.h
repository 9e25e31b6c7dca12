/* tile-avg's runners (module prefixes tdcl_ta_exec_, tdcl_ta_shards_,
 * tdcl_ta_mpi_): the means of a matrix on an execution (dist/exec.h), one
 * runner for its three kinds. Over a set (tile_avg_shards.c) the matrix
 * goes in bands of whole tile rows, one per device; over MPI ranks
 * (tile_avg_mpi.c) the same bands, one per rank. Each band's means are
 * computed by its device exactly as one device computes them, so the
 * result is bit-identical to one device's. */
#ifndef TDCL_TILE_AVG_RUN_H
#define TDCL_TILE_AVG_RUN_H

#include "base/matrix.h"
#include "base/status.h"
#include "dist/exec.h"
#include "ops/tile_avg/tile_avg.h"
#include "runtime/devset.h"

/* The means of in on ex, whichever its kind, into out (new, the
 * caller's; over ranks rank 0's). in_st is this rank's status of reading
 * in: a failure returns it (over ranks, agreed first, so that every rank
 * stops). On one device: tdcl_ta_run once the device is open (its timing
 * gets the kernel time); on a set: tdcl_ta_shards_run once the set is
 * open; over ranks: tdcl_ta_mpi_run on ex->spec with npy_path, npy_out and
 * *written as it takes them. Elsewhere npy_path and npy_out are ignored
 * and *written (if non-NULL) is 0: the caller writes out. */
tdcl_status tdcl_ta_exec_run(tdcl_exec *ex, const tdcl_ta_opts *o, tdcl_status in_st,
                             const tdcl_matrix *in, const char *npy_path, const char *npy_out,
                             int *written, tdcl_matrix *out, tdcl_err *err);

/* The bands of rows for n shards: band i is [begin[i], begin[i + 1])
 * (begin has n + 1 entries), whole blocks of 8 tile rows each, the last
 * also taking the rows past the last block. TDCL_EINVAL when there are
 * fewer blocks than shards. */
tdcl_status tdcl_ta_shards_split(const tdcl_ta_opts *o, int64_t rows, size_t n, int64_t *begin,
                                 tdcl_err *err);

/* out (new, the caller's) = the tile means of in, computed over the set's
 * devices (opened: tdcl_devset_wait first), in bands of whole blocks of 8
 * tile rows (the kernels' rows per work-item divide 8, so each band adds
 * its tiles as one device does); the last band takes the rows past the
 * last block. TDCL_EINVAL when the matrix has fewer blocks than the set
 * has devices. Each device's kernel time
 * is added to its context's timing. */
tdcl_status tdcl_ta_shards_run(tdcl_devset *set, const tdcl_ta_opts *o, const tdcl_matrix *in,
                               tdcl_matrix *out, tdcl_err *err);

/* tile-avg over MPI ranks (dist/tile_avg_mpi.c; every rank calls it):
 * rank 0 passes its input (read with status in_st; the others pass an
 * empty matrix and TDCL_OK), each rank runs the band of
 * tdcl_ta_shards_split for its rank on the device its node-local rank
 * picks among devices (as tdcl_mpi_open_device), and rank 0 receives all
 * the means into out (new, rank 0's). A failure on any rank stops every
 * rank (the lowest failing rank's message; the others TDCL_EIO with an
 * empty one). With npy_path (a plain .npy file every rank can read:
 * tdcl_npy_probe) each rank reads its own band from it by offset, and
 * rank 0 may pass an empty in. With npy_out (a .npy output path) every
 * rank writes its means there by offset instead (tdcl_mpi_write_npy) and
 * *written is 1 (out stays empty); where it cannot, *written is 0 and the
 * means are gathered. TDCL_EUNSUPPORTED when built without MPI. */
tdcl_status tdcl_ta_mpi_run(const char *devices, const tdcl_ta_opts *o, tdcl_status in_st,
                            const tdcl_matrix *in, const char *npy_path, const char *npy_out,
                            int *written, tdcl_matrix *out, tdcl_err *err);

/* tdcl_ta_mpi_run on this rank's device ctx, already open
 * (tdcl_mpi_open_local): bench runs it many times on one context. */
tdcl_status tdcl_ta_mpi_bands(tdcl_ctx *ctx, const tdcl_ta_opts *o, tdcl_status in_st,
                              const tdcl_matrix *in, const char *npy_path, const char *npy_out,
                              int *written, tdcl_matrix *out, tdcl_err *err);

/* Every rank: the means of its own band of in, which every rank holds
 * whole (as each reads its own band from a .npy file), into part (new,
 * this rank's rows of the means; nothing is sent or gathered). The bands
 * are tdcl_ta_mpi_bands's. bench measures the decomposition with it. */
tdcl_status tdcl_ta_mpi_own_band(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_matrix *in,
                                 tdcl_matrix *part, tdcl_err *err);

#endif
