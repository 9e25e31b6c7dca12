/* Sparse products on an execution (module prefix tdcl_sp_exec_): SpGEMM
 * and SpMM (ops/sparse) on one device, a set of devices of this process or
 * MPI ranks, behind one sequence of calls for the matmul job.
 *
 * Over several devices A's rows are cut into bands balanced by their work
 * (product terms, tdcl_csr_mul_work; power-law rows differ by orders of
 * magnitude, so bands of equal rows would leave one device with most of
 * the product), B goes whole to every device, and each device runs the
 * one-device product on its band: a thread a device on a set, a band a
 * rank over MPI (rank 0 sends the bands and B, and gathers the results).
 * The bands' results are concatenated into one CSR (row offsets shifted)
 * or one dense C. Each row of C is computed by one device as one device
 * computes it, so the result is one device's. */
#ifndef TDCL_SPARSE_RUN_H
#define TDCL_SPARSE_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "base/csr.h"
#include "base/matrix.h"
#include "base/status.h"
#include "dist/exec.h"
#include "ops/sparse/sparse.h"

typedef struct tdcl_sp_exec {
    tdcl_exec *ex;
    tdcl_ctx *ctx;  /* one device: ex->ctx; ranks: this rank's, opened by _start */
    size_t devices; /* how many devices or ranks share the product */
} tdcl_sp_exec;

/* Starts r on ex: over ranks opens this rank's device (collective); on
 * one device waits for it. Release with tdcl_sp_exec_end, also after a
 * failure. */
tdcl_status tdcl_sp_exec_start(tdcl_exec *ex, tdcl_sp_exec *r, tdcl_err *err);

/* Bands of rows rows balanced by work (row_work: rows of them; NULL:
 * every row alike) over n devices: band i is [begin[i], begin[i + 1]),
 * begin has n + 1 entries; each row counts one more than its work, so
 * that rows without terms still spread. A band may be empty where rows
 * are fewer than devices or one row outweighs a band. Pure. */
void tdcl_sp_bands(const int64_t *row_work, int64_t rows, size_t n, int64_t *begin);

/* c (new, sorted) = a*b on r's execution: the root (tdcl_exec_root)
 * passes a, b and in_st (its failure getting them stops every rank);
 * other ranks pass empty matrices. c is the root's. A band the device
 * cannot multiply (64-bit indices, float64 without doubles) is
 * multiplied on the host, saying so. info (if non-NULL) sums the bands'.
 * -v logs each band's rows, work and times. */
tdcl_status tdcl_sp_exec_spgemm(tdcl_sp_exec *r, tdcl_status in_st, const tdcl_csr *a,
                                const tdcl_csr *b, tdcl_csr *c, tdcl_sparse_info *info,
                                tdcl_err *err);

/* c (new, dense) = S*D (a_sparse) or D*S on r's execution, as
 * tdcl_sp_exec_spgemm: bands of A's rows (by entries when A is S). */
tdcl_status tdcl_sp_exec_spmm(tdcl_sp_exec *r, tdcl_status in_st, const tdcl_csr *s,
                              const tdcl_matrix *d, int a_sparse, tdcl_matrix *c,
                              tdcl_sparse_info *info, tdcl_err *err);

/* Where the product was computed, for an output's comment: the device's
 * name, "2 devices", "2 MPI ranks". */
void tdcl_sp_exec_where(const tdcl_sp_exec *r, char *buf, size_t n);

/* Releases what _start opened; accepts a zeroed struct. */
void tdcl_sp_exec_end(tdcl_sp_exec *r);

/* Over ranks (dist/sparse_mpi.c, every rank): c = a*b, bands of A's rows
 * one a rank, as tdcl_sp_exec_spgemm / _spmm (kind 0: SpGEMM, 1: S*D, 2:
 * D*S; the operands that kind does not use are NULL). TDCL_EUNSUPPORTED
 * when built without MPI. */
tdcl_status tdcl_sp_mpi_run(tdcl_ctx *ctx, int kind, tdcl_status in_st, const tdcl_csr *as,
                            const tdcl_matrix *ad, const tdcl_csr *bs, const tdcl_matrix *bd,
                            tdcl_csr *cs, tdcl_matrix *cd, tdcl_sparse_info *info, tdcl_err *err);

/* One band's product on ctx (internal to the runners): kind as above,
 * A's band as as or ad; into cs or cd. */
tdcl_status tdcl_sp_band_product(tdcl_ctx *ctx, int kind, const tdcl_csr *as, const tdcl_matrix *ad,
                                 const tdcl_csr *bs, const tdcl_matrix *bd, tdcl_csr *cs,
                                 tdcl_matrix *cd, tdcl_sparse_info *info, tdcl_err *err);

/* Internal to the runners: the work of A's rows for kind (row_work,
 * a->rows of them, for SpGEMM and S*D; NULL for D*S) and the split. */
tdcl_status tdcl_sp_split(int kind, const tdcl_csr *as, const tdcl_matrix *ad, const tdcl_csr *bs,
                          size_t n, int64_t *begin, int64_t *work, tdcl_err *err);

/* Internal to the runners: A's rows [r0, r1) as a matrix borrowing a's
 * arrays (a CSR band gets its own rebased row offsets: free band->rowptr
 * alone). */
tdcl_status tdcl_sp_band_of(const tdcl_csr *as, const tdcl_matrix *ad, int64_t r0, int64_t r1,
                            tdcl_csr *band_s, tdcl_matrix *band_d, tdcl_err *err);

/* Internal to the runners: n bands' CSR results concatenated into c (new,
 * sorted), rows after rows. */
tdcl_status tdcl_sp_concat(const tdcl_csr *parts, size_t n, int64_t cols, tdcl_csr *c,
                           tdcl_err *err);

#endif
