/* Life over MPI ranks (module prefix tdcl_life_mpi_): one band of rows and
 * one device per rank, halos sent between neighbouring ranks through host
 * memory every K generations, over the transport of dist/mpi.h. Built
 * without MPI the calls fail with TDCL_EUNSUPPORTED. */
#ifndef TDCL_LIFE_MPI_H
#define TDCL_LIFE_MPI_H

#include <stdint.h>

#include "base/matrix.h"
#include "base/status.h"
#include "dist/mpi.h"
#include "io/npy.h"
#include "ops/life/life.h"
#include "runtime/clrt.h"

/* Life over the ranks on a grid every rank holds alike (the job's core,
 * for bench): one band of rows per rank on ctx, halos `halo` rows deep
 * (0: measured: 16, or the thinnest band, until the first _execute of 3
 * or more generations times a round and rebuilds the plans with the halo
 * the exchange's cost asks for), exchanged every `halo` generations.
 * Every call is collective, and a failure on any rank fails all (as
 * tdcl_mpi_agree). _result gathers the grid on rank 0 (the others' *grid
 * stays empty); _log prints this rank's compute and exchange times at -v. */
typedef struct tdcl_life_mpi tdcl_life_mpi;
tdcl_status tdcl_life_mpi_create(tdcl_ctx *ctx, const tdcl_life_opts *lo, const tdcl_matrix *grid,
                                 int64_t halo, tdcl_life_mpi **m, tdcl_err *err);
tdcl_status tdcl_life_mpi_execute(tdcl_life_mpi *m, int64_t gens, tdcl_err *err);
tdcl_status tdcl_life_mpi_result(tdcl_life_mpi *m, tdcl_matrix *grid, tdcl_err *err);
int64_t tdcl_life_mpi_halo(const tdcl_life_mpi *m);
void tdcl_life_mpi_log(const tdcl_life_mpi *m);
void tdcl_life_mpi_destroy(tdcl_life_mpi *m);

/* Where a rank's rows of a rows x cols grid come from: the whole grid in
 * memory (grid), else a plain .npy file every rank holds alike (npy, its
 * header info: each rank reads only its rows), else the soup (density,
 * seed: each rank sows only its rows). */
typedef struct tdcl_life_src {
    int64_t rows, cols;
    const tdcl_matrix *grid;
    const char *npy;
    tdcl_npy_info info;
    double density;
    uint64_t seed;
} tdcl_life_src;

/* For the jobs over ranks (MPI builds only; collective where they say so):
 * _create_src is _create from src, no rank holding the whole grid unless
 * src->grid; _population the live cells, summed over the ranks
 * (collective); _write_npy every rank's band written into the .npy file
 * path by offset (tdcl_mpi_write_npy; collective), *written 0 where the
 * output cannot take it and the caller gathers; _shape the grid's;
 * _describe the plan's (valid while m lives); _kernel_ms this rank's
 * device time so far. */
tdcl_status tdcl_life_mpi_create_src(tdcl_ctx *ctx, const tdcl_life_opts *lo,
                                     const tdcl_life_src *src, int64_t halo, tdcl_life_mpi **m,
                                     tdcl_err *err);
tdcl_status tdcl_life_mpi_population(tdcl_life_mpi *m, int64_t *pop, tdcl_err *err);
tdcl_status tdcl_life_mpi_write_npy(tdcl_life_mpi *m, const char *path, int *written,
                                    tdcl_err *err);
void tdcl_life_mpi_shape(const tdcl_life_mpi *m, int64_t *rows, int64_t *cols);
const char *tdcl_life_mpi_describe(const tdcl_life_mpi *m);
double tdcl_life_mpi_kernel_ms(const tdcl_life_mpi *m);

#endif
