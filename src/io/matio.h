/* Matrix files: Matrix Market (.mtx, .mtx.gz) and NumPy (.npy), chosen by
 * magic bytes on input and by extension on output.
 *
 * Readers refuse anything the format does not allow with an error naming
 * "path:line" and what was expected, and check claimed sizes against the
 * file size before allocating. Writers go through tdcl_outfile, so a failed
 * write never truncates an existing file. */
#ifndef TDCL_MATIO_H
#define TDCL_MATIO_H

#include <stddef.h>

#include "base/matrix.h"
#include "base/status.h"
#include "io/npy.h"

/* 1 if path names a matrix file by its extension: .mtx, .mtx.gz, .npy
 * (any case). */
int tdcl_matrix_path(const char *path);

/* Reads path ("-" = stdin; Matrix Market may be gzip-compressed) into out
 * (owned by the caller afterwards). Matrix Market real/double fields give
 * TDCL_F64, integer fields TDCL_I64, pattern gives TDCL_F64 ones; .npy
 * keeps its dtype. max_bytes > 0 refuses
 * matrices whose dense size would exceed it (TDCL_ELIMIT, naming it). */
tdcl_status tdcl_matrix_read(const char *path, size_t max_bytes, tdcl_matrix *out, tdcl_err *err);

/* tdcl_matrix_read, but a plain .npy file in C order is mapped instead of
 * read (tdcl_npy_read_mapped): out->data then lies in *map, read-only.
 * Release both with tdcl_matrix_release, whichever happened. */
tdcl_status tdcl_matrix_read_mapped(const char *path, size_t max_bytes, tdcl_matrix *out,
                                    tdcl_mapping *map, tdcl_err *err);

/* tdcl_matrix_read_mapped, but an image (PNG, PBM, PGM, PAM) is read as one
 * whatever its name, stdin too, and *maxval receives its maxval (0 for a
 * matrix; see tdcl_image_read). Without maxval, and in tdcl_matrix_read*,
 * an image or a zip archive is refused by name. */
tdcl_status tdcl_matrix_or_image_read(const char *path, size_t max_bytes, tdcl_matrix *out,
                                      tdcl_mapping *map, int *maxval, tdcl_err *err);

/* Frees m or unmaps *map, as tdcl_matrix_read_mapped filled them; accepts
 * zeroed ones. */
void tdcl_matrix_release(tdcl_matrix *m, tdcl_mapping *map);

/* Writes m to path by extension (.mtx, .npy); NULL or "-" writes Matrix
 * Market to stdout. comment, if non-NULL, becomes a "% ..." line. Integer
 * dtypes are written with the integer field, floats in shortest round-trip
 * form. */
tdcl_status tdcl_matrix_write(const char *path, const tdcl_matrix *m, const char *comment,
                              tdcl_err *err);

/* The knobs behind the two calls above, for convert and the benchmark. */
typedef struct tdcl_matio_opts {
    size_t max_bytes;    /* reading: > 0 refuses larger dense matrices */
    int threads;         /* Matrix Market parse/format threads; 0: one per core, at most 8 */
    int coordinate;      /* writing .mtx: coordinate general (nonzeros only), else array */
    const char *comment; /* writing .mtx: the "% ..." line; NULL: "written by tiledcl" */
} tdcl_matio_opts;

/* tdcl_matrix_read / tdcl_matrix_write with options (o may be NULL). */
tdcl_status tdcl_matrix_read_opts(const char *path, const tdcl_matio_opts *o, tdcl_matrix *out,
                                  tdcl_err *err);
tdcl_status tdcl_matrix_write_opts(const char *path, const tdcl_matrix *m, const tdcl_matio_opts *o,
                                   tdcl_err *err);

/* What `tiledcl convert` does: read in, optionally convert the dtype, write
 * out. dtype < 0 keeps the dtype read. */
typedef struct tdcl_matio_convert_opts {
    const char *in, *out; /* "-" = stdin / stdout (Matrix Market) */
    int dtype;            /* a tdcl_dtype, or -1 */
    int clip;             /* saturate values past dtype's range (tdcl_matrix_narrow) */
    tdcl_matio_opts io;
} tdcl_matio_convert_opts;

/* Runs the conversion; logs sizes and MB/s at TDCL_LOG_VERBOSE. Nothing is
 * written unless the whole input was read and converted. */
tdcl_status tdcl_matio_convert(const tdcl_matio_convert_opts *o, tdcl_err *err);

#endif
