/* SpMM on the device: a CSR matrix times a dense block (a work-group per
 * row of C, its items across C's columns) and a dense block times a CSR
 * matrix (its transpose, CSC, made on the host: an item per element of C
 * sums a column of S against a row of D). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/csr_mul.h"
#include "ops/sparse/sp_plan.h"

/* Items per work-group across C's columns. */
#ifndef SP_MM_COLS
#define SP_MM_COLS 128
#endif

tdcl_dtype tdcl_spmm_dtype(const tdcl_csr *s, const tdcl_matrix *d)
{
    tdcl_dtype dd = d->dtype == TDCL_F32 || d->dtype == TDCL_F64 ? d->dtype : TDCL_I64;
    tdcl_csr as_csr = {.dtype = dd, .pattern = 0};
    return tdcl_csr_mul_dtype(s, &as_csr);
}

#define ARG(k, i, x) rc |= clSetKernelArg((k), (i), sizeof(x), &(x))

static size_t round_up(size_t x, size_t m)
{
    return (x + m - 1) / m * m;
}

static tdcl_status check(const tdcl_sparse_plan *p, const tdcl_csr *s, const tdcl_matrix *d,
                         int a_sparse, tdcl_dtype t, tdcl_err *err)
{
    int64_t inner_a = a_sparse ? s->cols : d->cols, inner_b = a_sparse ? d->rows : s->rows;
    if (inner_a != inner_b || d->channels != 1)
        return tdcl_fail(err, TDCL_EINVAL,
                         "cannot multiply: the inner sizes differ (%" PRId64 " and %" PRId64 ")",
                         inner_a, inner_b);
    if (s->idx64)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "the device's sparse product takes 32-bit indices only");
    if (t == TDCL_F64 && !p->ctx->dev.fp64)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "the device has no float64");
    return TDCL_OK;
}

tdcl_status tdcl_spmm(tdcl_sparse_plan *p, const tdcl_csr *s, const tdcl_matrix *d, int a_sparse,
                      tdcl_matrix *c, tdcl_sparse_info *info, tdcl_err *err)
{
    tdcl_sparse_info own;
    if (!info) info = &own;
    memset(info, 0, sizeof *info);
    memset(c, 0, sizeof *c);
    tdcl_dtype t = tdcl_spmm_dtype(s, d);
    tdcl_status st = check(p, s, d, a_sparse, t, err);
    if (st != TDCL_OK) return st;
    tdcl_csr st_csc = {0};
    const tdcl_csr *sp = s;
    void *sv = NULL, *dv = NULL;
    int sown = 0, down = 0, zero = 0, ovf = 0;
    cl_mem m[6] = {0};
    int64_t rows = a_sparse ? s->rows : d->rows, cols = a_sparse ? d->cols : s->cols;
    size_t vb = tdcl_dtype_size(t);
    if (!a_sparse) {
        TDCL_TRY(tdcl_csr_transpose(s, &st_csc, err));
        sp = &st_csc;
    }
    TDCL_TRY(tdcl_matrix_alloc(c, rows, cols, 1, t, err));
    TDCL_TRY(tdcl_sp_values(sp->values, sp->nnz, sp->dtype, sp->pattern, t, &sv, &sown, err));
    TDCL_TRY(tdcl_sp_values(d->data, d->rows * d->cols, d->dtype, 0, t, &dv, &down, err));
    if (!(m[0] = tdcl_sp_buf(p, (size_t)(sp->rows + 1) * 4, sp->rowptr, &st, err)) ||
        !(m[1] = tdcl_sp_buf(p, (size_t)sp->nnz * 4, sp->colidx, &st, err)) ||
        !(m[2] = tdcl_sp_buf(p, sv ? (size_t)sp->nnz * vb : 0, sv, &st, err)) ||
        !(m[3] = tdcl_sp_buf(p, (size_t)(d->rows * d->cols) * vb, dv, &st, err)) ||
        !(m[4] = tdcl_sp_buf(p, (size_t)(rows * cols) * vb, NULL, &st, err)) ||
        !(m[5] = tdcl_sp_buf(p, 4, &zero, &st, err)))
        goto out;
    int ti = tdcl_sp_type(t), pat = sp->pattern;
    cl_int rc = 0, n = (cl_int)cols;
    size_t w = (size_t)cols < p->wg ? (size_t)cols : p->wg;
    if (w > SP_MM_COLS) w = SP_MM_COLS;
    size_t g[2] = {round_up((size_t)cols, w), (size_t)rows}, l[2] = {w, 1};
    cl_kernel k = a_sparse ? p->spmm_cd[ti] : p->spmm_dc[ti];
    if (a_sparse && p->rows_path) { /* CPU devices: an item a row, groups of one */
        k = p->spmm_rows[ti];
        ARG(k, 0, m[0]);
        ARG(k, 1, m[1]);
        ARG(k, 2, m[2]);
        ARG(k, 3, pat);
        ARG(k, 4, m[3]);
        ARG(k, 5, n);
        ARG(k, 6, m[4]);
        ARG(k, 7, m[5]);
        g[0] = (size_t)rows;
        g[1] = l[0] = l[1] = 1;
    } else if (a_sparse) {
        ARG(k, 0, m[0]);
        ARG(k, 1, m[1]);
        ARG(k, 2, m[2]);
        ARG(k, 3, pat);
        ARG(k, 4, m[3]);
        ARG(k, 5, n);
        ARG(k, 6, m[4]);
        rc |= clSetKernelArg(k, 7, w * 4, NULL);
        rc |= clSetKernelArg(k, 8, w * vb, NULL);
        ARG(k, 9, m[5]);
    } else {
        cl_int kk = (cl_int)d->cols;
        ARG(k, 0, m[3]);
        ARG(k, 1, kk);
        ARG(k, 2, m[0]);
        ARG(k, 3, m[1]);
        ARG(k, 4, m[2]);
        ARG(k, 5, pat);
        ARG(k, 6, n);
        ARG(k, 7, m[4]);
        ARG(k, 8, m[5]);
    }
    if (rc) {
        st = tdcl_fail_cl(err, rc, "clSetKernelArg", "a sparse times dense product");
        goto out;
    }
    info->terms = sp->nnz * (a_sparse ? cols : rows);
    if (rows && cols) TDCL_TRY(tdcl_sp_launch(p, k, g, l, &info->kernel_ms, err));
    TDCL_TRY(tdcl_sp_read(p, m[4], (size_t)(rows * cols) * vb, c->data, err));
    TDCL_TRY(tdcl_sp_read(p, m[5], 4, &ovf, err));
    if (ovf)
        st = tdcl_fail(err, TDCL_ERANGE,
                       "the exact int64 product overflows: a term or partial sum lies outside "
                       "the int64 range");
out:
    for (int i = 0; i < 6; i++)
        if (m[i]) clReleaseMemObject(m[i]);
    if (sown) free(sv);
    if (down) free(dv);
    tdcl_csr_free(&st_csc);
    if (st != TDCL_OK) tdcl_matrix_free(c);
    return st;
}
