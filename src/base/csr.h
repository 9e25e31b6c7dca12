/* The sparse matrix every sparse operation and file format shares:
 * compressed sparse rows (CSR).
 *
 * Row i's entries are k in [rowptr[i], rowptr[i+1]), at column colidx[k]
 * with value values[k]. Indices are 32-bit while rows, cols and nnz all fit
 * in INT32_MAX, else 64-bit (idx64): both arrays have that width. Values are
 * float32, float64 or int64; a pattern matrix stores no values (every
 * stored entry is 1). sorted: columns ascend within each row with no
 * duplicate, which readers and products guarantee and writers rely on.
 * The matrix owns its arrays; tdcl_csr_free releases them. */
#ifndef TDCL_CSR_H
#define TDCL_CSR_H

#include <stddef.h>
#include <stdint.h>

#include "base/matrix.h"
#include "base/status.h"

typedef struct tdcl_csr {
    int64_t rows, cols, nnz;
    tdcl_dtype dtype; /* TDCL_F32, TDCL_F64 or TDCL_I64; TDCL_I64 for pattern */
    int pattern;      /* no values: every stored entry is 1 */
    int idx64;        /* rowptr and colidx are int64_t, else int32_t */
    int sorted;       /* columns ascend within each row, no duplicates */
    void *rowptr;     /* rows + 1 offsets */
    void *colidx;     /* nnz column indices */
    void *values;     /* nnz values of dtype; NULL for pattern */
} tdcl_csr;

/* 1 when a rows x cols matrix with nnz entries needs 64-bit indices. */
int tdcl_csr_needs_idx64(int64_t rows, int64_t cols, int64_t nnz);

/* The bytes of such a matrix's three arrays; TDCL_ELIMIT on overflow. */
tdcl_status tdcl_csr_bytes(int64_t rows, int64_t cols, int64_t nnz, tdcl_dtype dtype, int pattern,
                           size_t *bytes, tdcl_err *err);

/* Allocates the arrays of a rows x cols matrix with room for nnz entries
 * (rowptr zero-filled; index width from tdcl_csr_needs_idx64), after
 * checking the size with tdcl_mem_check (TDCL_ELIMIT naming what and the
 * bytes). m->sorted is 0 until the filler says otherwise. */
tdcl_status tdcl_csr_alloc(tdcl_csr *m, int64_t rows, int64_t cols, int64_t nnz, tdcl_dtype dtype,
                           int pattern, tdcl_err *err);

/* Releases the arrays and empties m. Accepts NULL and an empty matrix. */
void tdcl_csr_free(tdcl_csr *m);

/* Row offset i and column index k, whatever the index width. */
static inline int64_t tdcl_csr_rp(const tdcl_csr *m, int64_t i)
{
    return m->idx64 ? ((const int64_t *)m->rowptr)[i] : ((const int32_t *)m->rowptr)[i];
}
static inline int64_t tdcl_csr_ci(const tdcl_csr *m, int64_t k)
{
    return m->idx64 ? ((const int64_t *)m->colidx)[k] : ((const int32_t *)m->colidx)[k];
}

/* Value k as double / int64 (1 for a pattern matrix). */
double tdcl_csr_get_f64(const tdcl_csr *m, int64_t k);
int64_t tdcl_csr_get_i64(const tdcl_csr *m, int64_t k);

/* Sets m's entry count to nnz (at most the allocated count), narrows its
 * indices to 32 bits when they now fit, and gives the unused room back. */
void tdcl_csr_shrink(tdcl_csr *m, int64_t nnz);

/* A column and what travels with it, for sorting a row. */
typedef struct tdcl_csr_pair {
    int64_t col;
    uint64_t v; /* a value's bits or an entry's position */
} tdcl_csr_pair;

/* Sorts a[0..n) by col, stably (equal columns keep their order), using
 * tmp (room for n) as scratch. */
void tdcl_csr_sort_pairs(tdcl_csr_pair *a, tdcl_csr_pair *tmp, size_t n);

/* Sorts every row of m by column, stably; duplicates stay (adjacent).
 * Sets m->sorted when no row holds a column twice. */
tdcl_status tdcl_csr_sort_rows(tdcl_csr *m, tdcl_err *err);

/* A new copy of m in *out. */
tdcl_status tdcl_csr_copy(const tdcl_csr *m, tdcl_csr *out, tdcl_err *err);

/* The dense copy of m in out (dtype m->dtype; a pattern gives TDCL_I64
 * ones), duplicates summed (int64 overflow: TDCL_ERANGE naming the cell),
 * after a memory check: TDCL_ELIMIT naming the size when it exceeds
 * max_bytes (> 0) or the memory left. */
tdcl_status tdcl_csr_to_dense(const tdcl_csr *m, size_t max_bytes, tdcl_matrix *out, tdcl_err *err);

/* The nonzeros of m (1 channel) as a sorted CSR matrix: float32 and
 * float64 kept, integer dtypes widened to int64 (exactly). NaN is a
 * nonzero; -0.0 is not. */
tdcl_status tdcl_csr_from_dense(const tdcl_matrix *m, tdcl_csr *out, tdcl_err *err);

#endif
