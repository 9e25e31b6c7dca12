/* Matrix Market (.mtx): the text format of the SuiteSparse collection and
 * scipy.io, read in full and written as array or coordinate.
 *
 * Reading: formats array (column-major entries, turned into the row-major
 * layout used inside) and coordinate (1-based, densified, duplicates
 * summed); fields real/double (TDCL_F64), integer (TDCL_I64), pattern
 * (TDCL_F64 ones); symmetries general, symmetric and skew-symmetric (the
 * stored triangle mirrored). complex and hermitian are refused. The body is
 * parsed in chunks split at line ends, on several threads; a line holding
 * the usual short real value is parsed whole by tdcl_nc_parse_f64_line,
 * anything else by the general parser. Every error names "path:line" and
 * what was expected.
 *
 * Writing: the integer field for integer dtypes, else real with the
 * shortest text that reads back bit-identical (float32 as float32). */
#ifndef TDCL_MTX_H
#define TDCL_MTX_H

#include <stddef.h>
#include <stdio.h>

#include "base/matrix.h"
#include "io/matsrc.h"
#include "base/status.h"

typedef struct tdcl_mtx_read_opts {
    size_t max_bytes; /* > 0: refuse a dense result larger than this */
    int threads;      /* 0: one per core (at most 8) */
    size_t chunk;     /* text per thread and round; 0: 4 MiB (tests use tiny ones) */
} tdcl_mtx_read_opts;

typedef struct tdcl_mtx_write_opts {
    int coordinate;      /* write the nonzeros as coordinate general, else array */
    int threads;         /* 0: one per core (at most 8) */
    const char *comment; /* the "% ..." line; NULL: "% written by tiledcl" */
} tdcl_mtx_write_opts;

/* Reads Matrix Market text from an open source (plain, gzip or stdin) into
 * out, a new matrix owned by the caller. o may be NULL (defaults). */
tdcl_status tdcl_mtx_read(tdcl_src *src, const tdcl_mtx_read_opts *o, tdcl_matrix *out,
                          tdcl_err *err);

/* Opens path ("-" = stdin) and reads it with tdcl_mtx_read. */
tdcl_status tdcl_mtx_read_path(const char *path, const tdcl_mtx_read_opts *o, tdcl_matrix *out,
                               tdcl_err *err);

/* Writes m (1 channel, any dtype) to fp; name is for messages. Returns
 * TDCL_EIO when a write fails (the caller aborts its tdcl_outfile). */
tdcl_status tdcl_mtx_write(FILE *fp, const char *name, const tdcl_matrix *m,
                           const tdcl_mtx_write_opts *o, tdcl_err *err);

/* Writes m to path (NULL or "-" = stdout) atomically through tdcl_outfile. */
tdcl_status tdcl_mtx_write_path(const char *path, const tdcl_matrix *m,
                                const tdcl_mtx_write_opts *o, tdcl_err *err);

#endif
