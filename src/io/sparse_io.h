/* Sparse matrix files (module prefix tdcl_sparse_): coordinate Matrix
 * Market (.mtx, .mtx.gz) and scipy's .npz, read into CSR and written from
 * it, chosen by content on input and by extension on output. A dense file
 * (.npy, array .mtx) is read dense and its nonzeros kept. */
#ifndef TDCL_SPARSE_IO_H
#define TDCL_SPARSE_IO_H

#include <stddef.h>

#include "base/csr.h"
#include "base/status.h"

/* 1 when path is a sparse file: named .npz, or named .mtx / .mtx.gz with a
 * coordinate banner. 0 for stdin ("-"), dense and unreadable files (the
 * dense readers name what is wrong with them). */
int tdcl_sparse_path(const char *path);

/* Reads path ("-" = stdin) into out, a new sorted CSR matrix owned by the
 * caller. max_bytes > 0 refuses a matrix whose CSR arrays (a dense file:
 * its dense size) would need more, before allocating them. */
tdcl_status tdcl_sparse_read_path(const char *path, size_t max_bytes, tdcl_csr *out, tdcl_err *err);

/* Writes m to path by extension: .mtx (coordinate general) or .npz; NULL
 * or "-" writes Matrix Market to stdout. Atomic (tdcl_outfile). */
tdcl_status tdcl_sparse_write_path(const char *path, const tdcl_csr *m, tdcl_err *err);

#endif
