#include "base/csr.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

int tdcl_csr_needs_idx64(int64_t rows, int64_t cols, int64_t nnz)
{
    return rows >= INT32_MAX || cols >= INT32_MAX || nnz >= INT32_MAX;
}

static int mul_add_ok(uint64_t a, uint64_t b, uint64_t c, uint64_t *out)
{
    if (b && a > (UINT64_MAX - c) / b) return 0;
    *out = a * b + c;
    return 1;
}

tdcl_status tdcl_csr_bytes(int64_t rows, int64_t cols, int64_t nnz, tdcl_dtype dtype, int pattern,
                           size_t *bytes, tdcl_err *err)
{
    if (rows < 0 || cols < 0 || nnz < 0)
        return tdcl_fail(err, TDCL_EINVAL,
                         "a sparse matrix needs sizes >= 0, got %lldx%lld "
                         "with %lld entries",
                         (long long)rows, (long long)cols, (long long)nnz);
    uint64_t iw = tdcl_csr_needs_idx64(rows, cols, nnz) ? 8 : 4;
    uint64_t vw = pattern ? 0 : tdcl_dtype_size(dtype);
    uint64_t ptr, all;
    if (!mul_add_ok((uint64_t)rows + 1, iw, 0, &ptr) ||
        !mul_add_ok((uint64_t)nnz, iw + vw, ptr, &all) || all > SIZE_MAX)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "a %lldx%lld sparse matrix with %lld entries is too "
                         "large for this host",
                         (long long)rows, (long long)cols, (long long)nnz);
    *bytes = (size_t)all;
    return TDCL_OK;
}

tdcl_status tdcl_csr_alloc(tdcl_csr *m, int64_t rows, int64_t cols, int64_t nnz, tdcl_dtype dtype,
                           int pattern, tdcl_err *err)
{
    memset(m, 0, sizeof *m);
    size_t bytes;
    tdcl_status st = tdcl_csr_bytes(rows, cols, nnz, dtype, pattern, &bytes, err);
    if (st == TDCL_OK) st = tdcl_mem_check(bytes, "the sparse matrix", 0, 0, err);
    if (st != TDCL_OK) return st;
    m->rows = rows;
    m->cols = cols;
    m->nnz = nnz;
    m->dtype = pattern ? TDCL_I64 : dtype;
    m->pattern = pattern;
    m->idx64 = tdcl_csr_needs_idx64(rows, cols, nnz);
    size_t iw = m->idx64 ? 8 : 4;
    m->rowptr = calloc((size_t)rows + 1, iw);
    m->colidx = malloc(nnz ? (size_t)nnz * iw : 1);
    m->values = pattern ? NULL : malloc(nnz ? (size_t)nnz * tdcl_dtype_size(dtype) : 1);
    if (!m->rowptr || !m->colidx || (!pattern && !m->values)) {
        tdcl_csr_free(m);
        return tdcl_fail(err, TDCL_ENOMEM,
                         "out of memory for a %lldx%lld sparse matrix with "
                         "%lld entries (%zu bytes)",
                         (long long)rows, (long long)cols, (long long)nnz, bytes);
    }
    return TDCL_OK;
}

void tdcl_csr_free(tdcl_csr *m)
{
    if (!m) return;
    free(m->rowptr);
    free(m->colidx);
    free(m->values);
    memset(m, 0, sizeof *m);
}

double tdcl_csr_get_f64(const tdcl_csr *m, int64_t k)
{
    if (m->pattern) return 1.0;
    switch (m->dtype) {
    case TDCL_F32:
        return ((const float *)m->values)[k];
    case TDCL_F64:
        return ((const double *)m->values)[k];
    default:
        return (double)((const int64_t *)m->values)[k];
    }
}

int64_t tdcl_csr_get_i64(const tdcl_csr *m, int64_t k)
{
    if (m->pattern) return 1;
    switch (m->dtype) {
    case TDCL_F32:
        return (int64_t)((const float *)m->values)[k];
    case TDCL_F64:
        return (int64_t)((const double *)m->values)[k];
    default:
        return ((const int64_t *)m->values)[k];
    }
}
