/* tile-avg of a sparse matrix file (module prefix tdcl_ta_sparse_job):
 * coordinate Matrix Market or .npz -> CSR -> the device's tile reductions
 * (ops/tile_avg/ta_sparse.h) -> a dense matrix file, never through a dense
 * copy of the input. */
#ifndef TDCL_TILE_AVG_SPARSE_H
#define TDCL_TILE_AVG_SPARSE_H

#include "dist/exec.h"
#include "jobs/tile_avg_job.h"

/* tdcl_ta_job for an input that tdcl_sparse_path calls sparse: reads it as
 * CSR (jo->max_bytes bounds its arrays), reduces every tile on one device
 * (a set or ranks: TDCL_EUNSUPPORTED), verifies against the host's
 * reduction of the entries when asked, converts to jo->out_type, and
 * writes the results (Matrix Market, .npy or an image by extension) or
 * hands them to jo->result. */
tdcl_status tdcl_ta_sparse_job(tdcl_exec *ex, const tdcl_ta_job_opts *jo, tdcl_err *err);

#endif
