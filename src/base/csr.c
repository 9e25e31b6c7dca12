#include "base/csr.h"

#include <stdio.h>
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

static void set_idx(void *a, int wide, int64_t k, int64_t v)
{
    if (wide)
        ((int64_t *)a)[k] = v;
    else
        ((int32_t *)a)[k] = (int32_t)v;
}

/* Narrows n int64 indices to int32 in place (each lands at or before its
 * source) and gives the rest of the array back. */
static void *narrow_idx(void *a, size_t n)
{
    const int64_t *s = a;
    int32_t *d = a;
    for (size_t k = 0; k < n; k++)
        d[k] = (int32_t)s[k];
    void *p = realloc(a, n ? n * 4 : 1);
    return p ? p : a;
}

void tdcl_csr_shrink(tdcl_csr *m, int64_t nnz)
{
    m->nnz = nnz;
    if (m->idx64 && !tdcl_csr_needs_idx64(m->rows, m->cols, nnz)) {
        m->rowptr = narrow_idx(m->rowptr, (size_t)m->rows + 1);
        m->colidx = narrow_idx(m->colidx, (size_t)nnz);
        m->idx64 = 0;
    } else {
        size_t iw = m->idx64 ? 8 : 4;
        void *p = realloc(m->colidx, nnz ? (size_t)nnz * iw : 1);
        if (p) m->colidx = p;
    }
    if (!m->pattern) {
        void *p = realloc(m->values, nnz ? (size_t)nnz * tdcl_dtype_size(m->dtype) : 1);
        if (p) m->values = p;
    }
}

void tdcl_csr_sort_pairs(tdcl_csr_pair *a, tdcl_csr_pair *tmp, size_t n)
{
    if (n <= 32) { /* short rows: insertion sort, stable */
        for (size_t k = 1; k < n; k++) {
            tdcl_csr_pair x = a[k];
            size_t j = k;
            for (; j > 0 && a[j - 1].col > x.col; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    size_t h = n / 2;
    tdcl_csr_sort_pairs(a, tmp, h);
    tdcl_csr_sort_pairs(a + h, tmp, n - h);
    if (a[h - 1].col <= a[h].col) return; /* already in order */
    memcpy(tmp, a, h * sizeof *a);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        a[k++] = a[j].col < tmp[i].col ? a[j++] : tmp[i++];
    while (i < h)
        a[k++] = tmp[i++];
}

/* 1 when row i's columns strictly ascend. */
static int row_ascends(const tdcl_csr *m, int64_t s, int64_t e)
{
    for (int64_t k = s + 1; k < e; k++)
        if (tdcl_csr_ci(m, k) <= tdcl_csr_ci(m, k - 1)) return 0;
    return 1;
}

/* Sorts entries [s, e) of m through pairs of (column, position), then
 * moves the values along; vtmp holds a row of values. */
static void sort_row(tdcl_csr *m, int64_t s, int64_t e, tdcl_csr_pair *pr, tdcl_csr_pair *tmp,
                     char *vtmp)
{
    size_t n = (size_t)(e - s), vw = m->pattern ? 0 : tdcl_dtype_size(m->dtype);
    for (size_t k = 0; k < n; k++)
        pr[k] = (tdcl_csr_pair){tdcl_csr_ci(m, s + (int64_t)k), k};
    tdcl_csr_sort_pairs(pr, tmp, n);
    char *v = (char *)m->values + (size_t)s * vw;
    for (size_t k = 0; k < n; k++) {
        set_idx(m->colidx, m->idx64, s + (int64_t)k, pr[k].col);
        if (vw) memcpy(vtmp + k * vw, v + pr[k].v * vw, vw);
    }
    if (vw) memcpy(v, vtmp, n * vw);
}

tdcl_status tdcl_csr_sort_rows(tdcl_csr *m, tdcl_err *err)
{
    int64_t longest = 0;
    for (int64_t i = 0; i < m->rows; i++) {
        int64_t n = tdcl_csr_rp(m, i + 1) - tdcl_csr_rp(m, i);
        if (n > longest) longest = n;
    }
    tdcl_csr_pair *pr = malloc(((size_t)longest + 1) * 2 * sizeof *pr);
    char *vtmp = malloc(((size_t)longest + 1) * 8);
    if (!pr || !vtmp) {
        free(pr);
        free(vtmp);
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory sorting a sparse matrix's rows");
    }
    int dup = 0;
    for (int64_t i = 0; i < m->rows; i++) {
        int64_t s = tdcl_csr_rp(m, i), e = tdcl_csr_rp(m, i + 1);
        if (row_ascends(m, s, e)) continue;
        sort_row(m, s, e, pr, pr + longest + 1, vtmp);
        dup |= !row_ascends(m, s, e);
    }
    m->sorted = !dup;
    free(pr);
    free(vtmp);
    return TDCL_OK;
}

tdcl_status tdcl_csr_copy(const tdcl_csr *m, tdcl_csr *out, tdcl_err *err)
{
    tdcl_status st = tdcl_csr_alloc(out, m->rows, m->cols, m->nnz, m->dtype, m->pattern, err);
    if (st) return st;
    if (out->idx64 != m->idx64) { /* m kept 64-bit indices it does not need */
        for (int64_t i = 0; i <= m->rows; i++)
            set_idx(out->rowptr, out->idx64, i, tdcl_csr_rp(m, i));
        for (int64_t k = 0; k < m->nnz; k++)
            set_idx(out->colidx, out->idx64, k, tdcl_csr_ci(m, k));
    } else {
        size_t iw = m->idx64 ? 8 : 4;
        memcpy(out->rowptr, m->rowptr, ((size_t)m->rows + 1) * iw);
        memcpy(out->colidx, m->colidx, (size_t)m->nnz * iw);
    }
    if (!m->pattern) memcpy(out->values, m->values, (size_t)m->nnz * tdcl_dtype_size(m->dtype));
    out->sorted = m->sorted;
    return TDCL_OK;
}

/* Adds entry k of m to cell d of out; TDCL_ERANGE on an int64 overflow. */
static tdcl_status add_cell(const tdcl_csr *m, int64_t k, tdcl_matrix *out, size_t d)
{
    switch (out->dtype) {
    case TDCL_F32:
        ((float *)out->data)[d] += ((const float *)m->values)[k];
        return TDCL_OK;
    case TDCL_F64:
        ((double *)out->data)[d] += ((const double *)m->values)[k];
        return TDCL_OK;
    default: {
        int64_t *c = &((int64_t *)out->data)[d];
        return __builtin_add_overflow(*c, tdcl_csr_get_i64(m, k), c) ? TDCL_ERANGE : TDCL_OK;
    }
    }
}

tdcl_status tdcl_csr_to_dense(const tdcl_csr *m, size_t max_bytes, tdcl_matrix *out, tdcl_err *err)
{
    char a[32], b[32], what[200];
    size_t bytes;
    memset(out, 0, sizeof *out);
    tdcl_dtype dt = m->pattern ? TDCL_I64 : m->dtype;
    snprintf(what, sizeof what, "a dense %lldx%lld %s copy of the sparse matrix",
             (long long)m->rows, (long long)m->cols, tdcl_dtype_name(dt));
    if (tdcl_matrix_bytes(m->rows, m->cols, 1, dt, &bytes, NULL))
        return tdcl_fail(err, TDCL_ELIMIT, "%s does not fit in memory", what);
    if (max_bytes > 0 && bytes > max_bytes)
        return tdcl_fail(err, TDCL_ELIMIT, "%s needs %s, more than the limit of %s", what,
                         tdcl_mem_size(bytes, a, sizeof a), tdcl_mem_size(max_bytes, b, sizeof b));
    tdcl_status st = tdcl_mem_check(bytes, what, 0, 0, err);
    if (!st) st = tdcl_matrix_alloc(out, m->rows, m->cols, 1, dt, err);
    if (st) return st;
    for (int64_t i = 0; i < m->rows; i++)
        for (int64_t k = tdcl_csr_rp(m, i); k < tdcl_csr_rp(m, i + 1); k++) {
            int64_t j = tdcl_csr_ci(m, k);
            if (add_cell(m, k, out, (size_t)(i * m->cols + j))) {
                tdcl_matrix_free(out);
                return tdcl_fail(err, TDCL_ERANGE,
                                 "the sum of the entries at (%lld, %lld) overflows int64",
                                 (long long)i + 1, (long long)j + 1);
            }
        }
    return TDCL_OK;
}

static int dense_nonzero(const tdcl_matrix *m, size_t k)
{
    switch (m->dtype) {
    case TDCL_F32:
        return ((const float *)m->data)[k] != 0;
    case TDCL_F64:
        return ((const double *)m->data)[k] != 0;
    default:
        return tdcl_matrix_get_i64(m, k) != 0;
    }
}

tdcl_status tdcl_csr_from_dense(const tdcl_matrix *m, tdcl_csr *out, tdcl_err *err)
{
    memset(out, 0, sizeof *out);
    if (m->channels != 1)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "a sparse matrix holds one value per entry, got %d channels", m->channels);
    size_t cells = tdcl_matrix_count(m), nnz = 0;
    for (size_t k = 0; k < cells; k++)
        nnz += (size_t)dense_nonzero(m, k);
    tdcl_dtype dt = m->dtype == TDCL_F32 || m->dtype == TDCL_F64 ? m->dtype : TDCL_I64;
    tdcl_status st = tdcl_csr_alloc(out, m->rows, m->cols, (int64_t)nnz, dt, 0, err);
    if (st) return st;
    size_t vw = tdcl_dtype_size(dt), n = 0;
    for (int64_t i = 0; i < m->rows; i++) {
        for (int64_t j = 0; j < m->cols; j++) {
            size_t k = (size_t)(i * m->cols + j);
            if (!dense_nonzero(m, k)) continue;
            set_idx(out->colidx, out->idx64, (int64_t)n, j);
            if (dt == TDCL_I64)
                ((int64_t *)out->values)[n] = tdcl_matrix_get_i64(m, k);
            else
                memcpy((char *)out->values + n * vw, (const char *)m->data + k * vw, vw);
            n++;
        }
        set_idx(out->rowptr, out->idx64, i + 1, (int64_t)n);
    }
    out->sorted = 1;
    return TDCL_OK;
}
