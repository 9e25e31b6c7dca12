/* SpMM on the device: a CSR matrix times a dense block (a work-group per
 * row of C, its items across C's columns) and a dense block times a CSR
 * matrix (its transpose, CSC, made on the host: an item per element of C
 * sums a column of S against a row of D). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/csr_mul.h"
#include "ops/sparse/sp_plan.h"

/* Lanes of a team across C's columns (SP_MM_CW each), teams of a
 * long row's group, and the entries past which a row is long. */
#ifndef SP_MM_COLS
#define SP_MM_COLS 32
#endif
#ifndef SP_MM_TEAMS
#define SP_MM_TEAMS 32
#endif
#ifndef SP_MM_LONG
#define SP_MM_LONG 16
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

/* Arguments 0..6 that the CSR-times-dense kernels share (spmm_csr_dense,
 * its long rows' and the rows path's): the CSR matrix, the pattern flag,
 * the dense block, its columns and C. */
static cl_int shared_args(cl_kernel k, cl_mem *m, cl_int pat, cl_int n)
{
    cl_int rc = 0;
    ARG(k, 0, m[0]);
    ARG(k, 1, m[1]);
    ARG(k, 2, m[2]);
    ARG(k, 3, pat);
    ARG(k, 4, m[3]);
    ARG(k, 5, n);
    ARG(k, 6, m[4]);
    return rc;
}

/* The arguments of spmm_csr_dense and its range: teams of w lanes, each
 * w * SP_MM_CW columns of a row, as many rows to a group as the group
 * holds. */
static cl_int csr_dense_args(const tdcl_sparse_plan *p, cl_kernel k, cl_mem *m, cl_int pat,
                             cl_int n, int64_t rows, int64_t cols, size_t *g, size_t *l)
{
    cl_int rc = 0, mr = (cl_int)rows, lng = SP_MM_LONG;
    size_t w = ((size_t)cols + SP_MM_CW - 1) / SP_MM_CW;
    if (w > SP_MM_COLS) w = SP_MM_COLS;
    if (w > p->wg) w = p->wg;
    if (w < 1) w = 1;
    l[0] = w;
    l[1] = p->wg / w;
    g[0] = round_up((size_t)cols, w * SP_MM_CW) / SP_MM_CW;
    g[1] = round_up((size_t)rows, l[1]);
    rc |= shared_args(k, m, pat, n);
    ARG(k, 7, mr);
    ARG(k, 8, lng);
    ARG(k, 9, m[5]);
    return rc;
}

/* The rows of s longer than SP_MM_LONG, by spmm_csr_dense_long: a group
 * of SP_MM_TEAMS teams (fewer where the kernel allows less) per row and
 * tile of columns. */
static tdcl_status run_long(tdcl_sparse_plan *p, cl_kernel k, const tdcl_csr *s, cl_mem *m,
                            cl_int pat, cl_int n, size_t vb, double *ms, tdcl_err *err)
{
    const int32_t *rp = s->rowptr;
    int32_t *list = malloc(s->rows ? (size_t)s->rows * sizeof *list : 1);
    int64_t nl = 0;
    tdcl_status st = TDCL_OK;
    cl_mem lb = NULL;
    if (!list) return tdcl_fail(err, TDCL_ENOMEM, "out of memory listing the long rows");
    for (int64_t i = 0; i < s->rows; i++)
        if (rp[i + 1] - rp[i] > SP_MM_LONG) list[nl++] = (int32_t)i;
    if (!nl) goto out;
    size_t w = ((size_t)n + SP_MM_CW - 1) / SP_MM_CW;
    if (w > SP_MM_COLS) w = SP_MM_COLS;
    if (w > p->max_wg) w = p->max_wg;
    size_t teams = p->max_wg / w;
    if (teams > SP_MM_TEAMS) teams = SP_MM_TEAMS;
    while (teams > 1 && teams * w * SP_MM_CW * vb > p->local_mb)
        teams /= 2;
    if (!(lb = tdcl_sp_buf(p, (size_t)nl * 4, list, &st, err))) goto out;
    cl_int rc = shared_args(k, m, pat, n);
    ARG(k, 7, lb);
    rc |= clSetKernelArg(k, 8, teams * w * SP_MM_CW * vb, NULL);
    ARG(k, 9, m[5]);
    size_t g[2] = {round_up((size_t)n, w * SP_MM_CW) / SP_MM_CW, (size_t)nl * teams};
    size_t l[2] = {w, teams};
    if (rc)
        st = tdcl_fail_cl(err, rc, "clSetKernelArg",
                          "the long rows of a sparse times dense product");
    else
        st = tdcl_sp_launch(p, k, g, l, ms, err);
out:
    if (lb) clReleaseMemObject(lb);
    free(list);
    return st;
}

static tdcl_status check(const tdcl_sparse_plan *p, const tdcl_csr *s, const tdcl_matrix *d,
                         int a_sparse, tdcl_dtype t, tdcl_err *err)
{
    int64_t inner_a = a_sparse ? s->cols : d->cols, inner_b = a_sparse ? d->rows : s->rows;
    if (inner_a != inner_b || d->channels != 1)
        return tdcl_fail(err, TDCL_EINVAL,
                         "cannot multiply: the inner sizes differ (%" PRId64 " and %" PRId64 ")",
                         inner_a, inner_b);
    return tdcl_sparse_supported(p->ctx, s, t, err);
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
    int ti = tdcl_sp_type(t);
    cl_int pat = sp->pattern;
    cl_int rc = 0, n = (cl_int)cols;
    size_t w = (size_t)cols < p->wg ? (size_t)cols : p->wg;
    if (w < 1) w = 1;
    size_t g[2] = {round_up((size_t)cols, w), (size_t)rows}, l[2] = {w, 1};
    cl_kernel k = a_sparse ? p->spmm_cd[ti] : p->spmm_dc[ti];
    if (a_sparse && p->rows_path) { /* CPU devices: an item a row, groups of one */
        k = p->spmm_rows[ti];
        rc |= shared_args(k, m, pat, n);
        ARG(k, 7, m[5]);
        g[0] = (size_t)rows;
        g[1] = l[0] = l[1] = 1;
    } else if (a_sparse) {
        rc = csr_dense_args(p, k, m, pat, n, rows, cols, g, l);
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
    if (a_sparse && !p->rows_path && rows && cols)
        TDCL_TRY(run_long(p, p->spmm_long[ti], sp, m, pat, n, vb, &info->kernel_ms, err));
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
