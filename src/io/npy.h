/* NumPy .npy files: 2-D arrays of float32, float64, int32, int64 (and the
 * image dtypes uint8, uint16), little-endian, C or Fortran order, header
 * versions 1.0, 2.0 and 3.0. The data is read with one read straight into
 * the matrix and written with one write: the fast path for large data and
 * the bridge to Python users. */
#ifndef TDCL_NPY_H
#define TDCL_NPY_H

#include <stddef.h>
#include <stdio.h>

#include "base/matrix.h"
#include "io/matsrc.h"
#include "base/status.h"

/* 1 if the source starts with the .npy magic "\x93NUMPY". */
int tdcl_npy_magic(const tdcl_src *src);

/* Reads a .npy array from src into out (owned by the caller). Other
 * dtypes, shapes, big-endian data and a header that does not match the file
 * size are refused, naming what was found. max_bytes > 0 refuses larger
 * arrays before allocating. */
tdcl_status tdcl_npy_read(tdcl_src *src, size_t max_bytes, tdcl_matrix *out, tdcl_err *err);

/* A .npy header: the array's shape, dtype and order. */
typedef struct tdcl_npy_info {
    int64_t rows, cols;
    tdcl_dtype dtype;
    int fortran;  /* column-major data */
    size_t bytes; /* of data after the header */
} tdcl_npy_info;

/* Reads the header of a .npy array from src (positioned at its start) with
 * the checks of tdcl_npy_read, leaving src at the data. For a caller that
 * puts the data where it wants it (a mapped device buffer): then
 * tdcl_npy_read_data. */
tdcl_status tdcl_npy_read_header(tdcl_src *src, size_t max_bytes, tdcl_npy_info *info,
                                 tdcl_err *err);

/* Reads the info->bytes of data as stored (row-major for C order,
 * column-major for Fortran order) into dst and checks that nothing
 * follows. A short file gives TDCL_EPARSE or TDCL_EIO naming it. */
tdcl_status tdcl_npy_read_data(tdcl_src *src, const tdcl_npy_info *info, void *dst, tdcl_err *err);

/* Writes m (1 channel) as a version 1.0 .npy file, C order, to fp. */
tdcl_status tdcl_npy_write(FILE *fp, const char *name, const tdcl_matrix *m, tdcl_err *err);

#endif
