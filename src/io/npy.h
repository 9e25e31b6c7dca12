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

/* A plain .npy file's array as its header describes it. */
typedef struct tdcl_npy_info {
    int64_t rows, cols;
    tdcl_dtype dtype;
    uint64_t data_off; /* where the data starts in the file */
} tdcl_npy_info;

/* Reads only the header of path, a .npy file on disk (not stdin, not
 * gzip), in C order, whose size matches its header. TDCL_EUNSUPPORTED
 * when it is not such a file (the caller reads it whole instead), the
 * header's errors otherwise. */
tdcl_status tdcl_npy_probe(const char *path, tdcl_npy_info *info, tdcl_err *err);

/* Reads rows [r0, r1) and columns [c0, c1) of the array tdcl_npy_probe
 * described into out (new, the array's dtype): one positioned read per
 * row, so that each of several processes reads only its block. */
tdcl_status tdcl_npy_read_block(const char *path, const tdcl_npy_info *info, int64_t r0, int64_t r1,
                                int64_t c0, int64_t c1, tdcl_matrix *out, tdcl_err *err);

/* A plain .npy file (as tdcl_npy_probe takes) read by rows at their
 * offsets, never whole: a matrix larger than memory streams through it. */
typedef struct tdcl_npy_rows tdcl_npy_rows;

/* Probes path into *info and opens it; *r is the caller's, for
 * tdcl_npy_rows_close. TDCL_EUNSUPPORTED as tdcl_npy_probe gives it. */
tdcl_status tdcl_npy_rows_open(const char *path, tdcl_npy_rows **r, tdcl_npy_info *info,
                               tdcl_err *err);

/* Rows [r0, r0 + n) into dst (n * cols elements of the array's dtype), in
 * positioned reads. TDCL_EIO names the byte where the file ended early. */
tdcl_status tdcl_npy_rows_read(tdcl_npy_rows *r, int64_t r0, int64_t n, void *dst, tdcl_err *err);

/* Closes the file and frees r; accepts NULL. */
void tdcl_npy_rows_close(tdcl_npy_rows *r);

/* Writes only the version 1.0 header of an array of m's shape and dtype
 * (m->data is not read) to fp; *off (if non-NULL) gets its length, where
 * the data starts. */
tdcl_status tdcl_npy_write_header(FILE *fp, const char *name, const tdcl_matrix *m, size_t *off,
                                  tdcl_err *err);

/* A read-only private mapping of a file that holds a matrix's data. */
typedef struct tdcl_mapping {
    void *addr; /* NULL: none */
    size_t len;
} tdcl_mapping;

/* tdcl_npy_read, but where src is a plain regular file whose C-order data
 * starts 64-byte aligned, out->data points into a read-only mapping of the
 * file (*map; nothing is copied and no fresh page touched, the pages are
 * prefaulted), to be released with tdcl_mapping_release and never freed
 * or written. Elsewhere, or if mmap fails, map->addr is NULL and out is
 * read as tdcl_npy_read reads it. */
tdcl_status tdcl_npy_read_mapped(tdcl_src *src, size_t max_bytes, tdcl_matrix *out,
                                 tdcl_mapping *map, tdcl_err *err);

/* An array of a .npz member, as its header describes it: any dtype, 0 to 2
 * dimensions. */
typedef struct tdcl_npy_member {
    char descr[64]; /* as written: '<i4', '|S3', '|b1', ... */
    int ndim;
    int64_t shape[2];
    int fortran;
    size_t item;      /* bytes per element (the descr's trailing digits) */
    uint64_t count;   /* elements */
    const void *data; /* count * item bytes inside the parsed buffer */
} tdcl_npy_member;

/* Parses the .npy bytes [data, data + n) (name for messages): the header,
 * and that the data is all there. */
tdcl_status tdcl_npy_parse_mem(const char *name, const void *data, size_t n, tdcl_npy_member *out,
                               tdcl_err *err);

/* A version 1.0 header for a C-order array of descr with ndim (0 to 2)
 * dimensions into hdr (256 bytes); returns its length, a multiple of 64. */
size_t tdcl_npy_header_nd(char *hdr, const char *descr, int ndim, const int64_t *shape);

/* Unmaps; accepts NULL and an empty mapping, and empties it. */
void tdcl_mapping_release(tdcl_mapping *map);

/* Lets the mapping's pages leave this process's memory; the mapping stays,
 * and a page read again comes back from the file as it was. Accepts NULL
 * and an empty mapping. */
void tdcl_mapping_drop(tdcl_mapping *map);

/* Writes m (1 channel) as a version 1.0 .npy file, C order, to fp. */
tdcl_status tdcl_npy_write(FILE *fp, const char *name, const tdcl_matrix *m, tdcl_err *err);

/* A .npy file written in pieces (the chunks of a download, from several
 * threads, in any order): the header at open, each range of the C-order
 * data at its place, the file renamed into place only by
 * tdcl_npy_out_commit once every byte came (base/fileio.h: an existing
 * file is never truncated). path is borrowed until commit or abort. */
typedef struct tdcl_npy_out tdcl_npy_out;

/* Opens path for a rows x cols array of dtype t and writes the header.
 * Only a regular file (new or replaced) can be written in pieces: "-", a
 * FIFO or a device give TDCL_EUNSUPPORTED before anything is opened. *out
 * is owned by the caller. */
tdcl_status tdcl_npy_out_open(const char *path, int64_t rows, int64_t cols, tdcl_dtype t,
                              tdcl_npy_out **out, tdcl_err *err);

/* Writes the n data bytes at data offset pos (w: a tdcl_npy_out; a
 * tdcl_xfer_sink: thread-safe for distinct ranges). Bytes past the array
 * are refused. */
tdcl_status tdcl_npy_out_write(void *w, size_t pos, const void *p, size_t n, tdcl_err *err);

/* A .npy output opened and its space reserved ahead of the work (while
 * the device opens): *out stays NULL where path is not a .npy file that
 * can be written in pieces ("-", another extension, a FIFO, a device). */
tdcl_status tdcl_npy_out_early(const char *path, int64_t rows, int64_t cols, tdcl_dtype t,
                               tdcl_npy_out **out, tdcl_err *err);

/* Writes the whole array from data (C order, the open's shape and type;
 * in bands on several threads from 16 MiB up) and commits; frees w either
 * way. */
tdcl_status tdcl_npy_out_finish(tdcl_npy_out *w, const void *data, tdcl_err *err);

/* 1 if m (one channel) has the shape and type w was opened for. */
int tdcl_npy_out_fits(const tdcl_npy_out *w, const tdcl_matrix *m);

/* Renames the file into place if every byte came, else fails and writes
 * nothing; frees w either way. */
tdcl_status tdcl_npy_out_commit(tdcl_npy_out *w, tdcl_err *err);

/* Writes m (1 channel, 16 MiB and up) to the regular file path (new or
 * replaced, atomically) as tdcl_npy_write would, in bands written by
 * several threads at once (tmpfs and the page cache take them faster):
 * *done = 1. Smaller or multi-channel matrices, a FIFO, a device or "-":
 * *done = 0 and nothing is opened (the caller writes them in order). */
tdcl_status tdcl_npy_save(const char *path, const tdcl_matrix *m, int *done, tdcl_err *err);

/* Removes the temporary and frees w; accepts NULL. */
void tdcl_npy_out_abort(tdcl_npy_out *w);

#endif
