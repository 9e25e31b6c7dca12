/* What the Matrix Market reader (mtx.c) hands to its CSR builder
 * (mtx_csr.c): the parsed coordinate entries of each band of rows, in the
 * order of the file. Internal to io/mtx*.c. */
#ifndef TDCL_MTX_IMPL_H
#define TDCL_MTX_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/csr.h"
#include "base/status.h"

#define MTX_MAXT 64 /* threads a reader or a writer uses at most */

typedef union val8 {
    double f;
    int64_t i;
} val8;

/* What a coordinate entry adds to one cell: the cell's row-major offset and
 * the value. A mirrored entry of a symmetric file is a second item. */
typedef struct mtx_item {
    uint64_t cell;
    val8 v;
} mtx_item;

/* Items in file order. */
typedef struct mtx_list {
    mtx_item *it;
    size_t n, cap;
} mtx_list;

/* How the CSR builder turns the items into a matrix. */
typedef struct mtx_csr_in {
    const char *name; /* for messages */
    int64_t rows, cols;
    int integer, pattern; /* the file's field; neither: real */
    int f32;              /* real values that were float32: the result is float32 */
    int nb;               /* bands */
    const int64_t *bound; /* nb + 1 row bounds: band b holds rows bound[b]..bound[b+1]-1 */
    mtx_list *lists;      /* nb lists, each of its band's items; freed as they are used */
    int threads;
} mtx_csr_in;

/* Builds out from the items: rows sorted by column, duplicates summed in
 * file order (a pattern keeps one), int64 sums checked. Frees the lists. */
tdcl_status tdcl_mtx_build_csr(const mtx_csr_in *in, tdcl_csr *out, tdcl_err *err);

/* Formats entries k0..k1 of what ctx describes into buf (room for
 * k1 - k0 entries of the writer's per-entry maximum); returns the bytes. */
typedef size_t (*mtx_fmt_fn)(const void *ctx, uint64_t k0, uint64_t k1, char *buf);

/* Formats total entries on threads, in blocks, and writes them to fp in
 * order; per_entry is the longest text of one. TDCL_EIO naming name when a
 * write fails. */
tdcl_status tdcl_mtx_write_blocks(FILE *fp, const char *name, int threads, uint64_t total,
                                  size_t per_entry, mtx_fmt_fn fmt, const void *ctx, tdcl_err *err);

/* The banner ("coordinate"/"array", field word, general), the comment line
 * (NULL: "written by tiledcl") and the size line (nnz < 0: none). */
tdcl_status tdcl_mtx_write_header(FILE *fp, const char *name, int coordinate, const char *field,
                                  const char *comment, int64_t rows, int64_t cols, int64_t nnz,
                                  tdcl_err *err);

#endif
