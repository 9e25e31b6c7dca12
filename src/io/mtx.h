/* Matrix Market (.mtx): the text format of the SuiteSparse collection and
 * scipy.io, read in full and written as array or coordinate.
 *
 * Reading: formats array (column-major entries, turned into the row-major
 * layout used inside) and coordinate (1-based, duplicates summed in file
 * order), into a dense matrix or, for coordinate files, straight into CSR;
 * fields real/double (TDCL_F64), integer (TDCL_I64, sums checked), pattern
 * (dense: TDCL_F64 ones; CSR: a pattern matrix; duplicates kept once);
 * symmetries general, symmetric, hermitian (real values: symmetric) and
 * skew-symmetric (the stored triangle mirrored). complex is refused. The body is
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

#include "base/csr.h"
#include "base/matrix.h"
#include "base/status.h"
#include "io/matsrc.h"

typedef enum tdcl_mtx_field { TDCL_MTX_REAL, TDCL_MTX_INTEGER, TDCL_MTX_PATTERN } tdcl_mtx_field;

typedef enum tdcl_mtx_symmetry {
    TDCL_MTX_GENERAL,
    TDCL_MTX_SYMMETRIC,
    TDCL_MTX_SKEW,
    TDCL_MTX_HERMITIAN /* real values: read as symmetric */
} tdcl_mtx_symmetry;

/* What the banner and the size line say. */
typedef struct tdcl_mtx_header {
    int64_t rows, cols, entries; /* entries as stored (one triangle of a symmetric file) */
    int coordinate;              /* else array */
    int field;                   /* a tdcl_mtx_field */
    int symmetry;                /* a tdcl_mtx_symmetry */
    int64_t header_lines;        /* lines up to and including the size line */
} tdcl_mtx_header;

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

/* Reads the banner and the size line of src only (the errors of
 * tdcl_mtx_read for them). */
tdcl_status tdcl_mtx_peek(tdcl_src *src, tdcl_mtx_header *h, tdcl_err *err);
tdcl_status tdcl_mtx_peek_path(const char *path, tdcl_mtx_header *h, tdcl_err *err);

/* Reads a coordinate file into out, a new sorted CSR matrix (TDCL_F64,
 * TDCL_I64 or pattern), never through a dense array; o->max_bytes > 0
 * refuses a file whose claimed entries need more CSR bytes. Claimed
 * entries are checked against the file size and the memory left before
 * anything large is allocated. An array file is read dense (max_bytes
 * then bounds the dense size) and its nonzeros kept. */
tdcl_status tdcl_mtx_read_csr(tdcl_src *src, const tdcl_mtx_read_opts *o, tdcl_csr *out,
                              tdcl_err *err);
tdcl_status tdcl_mtx_read_csr_path(const char *path, const tdcl_mtx_read_opts *o, tdcl_csr *out,
                                   tdcl_err *err);

/* Writes m as coordinate general, rows then columns ascending (an
 * unsorted m is written from a sorted copy), field pattern, integer or
 * real (shortest round-trip text; float32 as float32). o may be NULL; its
 * coordinate is ignored. */
tdcl_status tdcl_mtx_write_csr(FILE *fp, const char *name, const tdcl_csr *m,
                               const tdcl_mtx_write_opts *o, tdcl_err *err);

/* Writes m to path (NULL or "-" = stdout) atomically through tdcl_outfile. */
tdcl_status tdcl_mtx_write_csr_path(const char *path, const tdcl_csr *m,
                                    const tdcl_mtx_write_opts *o, tdcl_err *err);

/* Writes m (1 channel, any dtype) to fp; name is for messages. Returns
 * TDCL_EIO when a write fails (the caller aborts its tdcl_outfile). */
tdcl_status tdcl_mtx_write(FILE *fp, const char *name, const tdcl_matrix *m,
                           const tdcl_mtx_write_opts *o, tdcl_err *err);

/* Writes m to path (NULL or "-" = stdout) atomically through tdcl_outfile. */
tdcl_status tdcl_mtx_write_path(const char *path, const tdcl_matrix *m,
                                const tdcl_mtx_write_opts *o, tdcl_err *err);

#endif
