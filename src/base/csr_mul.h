/* Sparse products on the host: the work of a product row by row, the
 * result type, the Gustavson product that --verify and the tests check the
 * devices against, a transpose and a comparison.
 *
 * Products keep every column that some product term reaches, also where
 * the terms cancel to zero (the structural product, as cuSPARSE gives):
 * the result's pattern depends on the operands' patterns alone. */
#ifndef TDCL_CSR_MUL_H
#define TDCL_CSR_MUL_H

#include <stddef.h>
#include <stdint.h>

#include "base/csr.h"
#include "base/matrix.h"
#include "base/status.h"

/* The number of product terms of A*B (sum over A's entries (i, k) of the
 * length of B's row k): an upper bound of the entries of C, and half its
 * flops. row_work (if non-NULL, a->rows of them) receives each row's.
 * a->cols must equal b->rows. */
int64_t tdcl_csr_mul_work(const tdcl_csr *a, const tdcl_csr *b, int64_t *row_work);

/* The type of A*B: float32 when both are float32, float64 when either is
 * floating point, else int64 (exact; pattern x pattern counts paths). */
tdcl_dtype tdcl_csr_mul_dtype(const tdcl_csr *a, const tdcl_csr *b);

/* C = A*B by Gustavson's row-by-row method, into a new sorted CSR of
 * tdcl_csr_mul_dtype's type, except that float32 operands give float64:
 * floating point sums in double, integer sums exact (128-bit), TDCL_ERANGE
 * naming the first element (row, column from 1) outside int64. Entries of
 * C past max_entries (0: no bound beyond memory) are refused before C is
 * allocated (TDCL_ELIMIT naming the count and bytes). c is overwritten;
 * free it with tdcl_csr_free. TDCL_EINVAL when the shapes do not chain. */
tdcl_status tdcl_csr_mul_host(const tdcl_csr *a, const tdcl_csr *b, int64_t max_entries,
                              tdcl_csr *c, tdcl_err *err);

/* C = S*D (a_sparse) or D*S on the host, S sparse and D a dense
 * one-channel matrix, into a new dense C (c overwritten; tdcl_matrix_free)
 * of type t: float32 or float64 summed in double and rounded once, int64
 * exact (128-bit sums), TDCL_ERANGE naming the first element (row, column
 * from 1) outside int64. For devices that cannot multiply the operands
 * (float64 without doubles, 64-bit indices). TDCL_EINVAL when the inner
 * sizes differ. */
tdcl_status tdcl_csr_mul_dense_host(const tdcl_csr *s, const tdcl_matrix *d, int a_sparse,
                                    tdcl_dtype t, tdcl_matrix *c, tdcl_err *err);

/* The transpose of m (a cols x rows sorted CSR: the CSC of m), same type
 * and index width rule. t is overwritten; free it with tdcl_csr_free. */
tdcl_status tdcl_csr_transpose(const tdcl_csr *m, tdcl_csr *t, tdcl_err *err);

/* Whether got equals want: same shape and column pattern row by row, and
 * values within rtol relative to the largest |value| of want's row (exact
 * for integer types with rtol 0). TDCL_EVERIFY naming the first
 * difference (row, column from 1) otherwise; *max_rel (if non-NULL)
 * receives the largest relative difference seen. */
tdcl_status tdcl_csr_compare(const tdcl_csr *got, const tdcl_csr *want, double rtol,
                             double *max_rel, tdcl_err *err);

#endif
