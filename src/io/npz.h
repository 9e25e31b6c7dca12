/* scipy's sparse .npz (scipy.sparse.save_npz / load_npz), through libzip:
 * a zip archive (stored or deflated members) of .npy arrays: format.npy
 * (b'csr', b'csc' or b'coo'), shape.npy (rows, cols), data.npy, and
 * indices.npy + indptr.npy (csr, csc) or row.npy + col.npy (coo).
 *
 * Reading gives a sorted CSR matrix, duplicates summed as for Matrix Market:
 * data float64 and float32 kept, integer and bool data as int64 (exact),
 * bool data that is all True as a pattern. Writing gives CSR members,
 * deflated, which load_npz reads; a pattern is written as bool ones. */
#ifndef TDCL_NPZ_H
#define TDCL_NPZ_H

#include <stddef.h>
#include <stdio.h>

#include "base/csr.h"
#include "base/status.h"
#include "io/matsrc.h"

/* Reads the archive src (a file or stdin, read whole) into out, a new
 * sorted CSR matrix; max_bytes > 0 refuses larger CSR arrays before they
 * are allocated. Every error names the file and the member. */
tdcl_status tdcl_npz_read(tdcl_src *src, size_t max_bytes, tdcl_csr *out, tdcl_err *err);
tdcl_status tdcl_npz_read_path(const char *path, tdcl_csr *out, tdcl_err *err);

/* Writes m as a CSR .npz to fp; name is for messages. */
tdcl_status tdcl_npz_write(FILE *fp, const char *name, const tdcl_csr *m, tdcl_err *err);

/* Writes m to path (NULL or "-" = stdout) atomically through tdcl_outfile. */
tdcl_status tdcl_npz_write_path(const char *path, const tdcl_csr *m, tdcl_err *err);

#endif
