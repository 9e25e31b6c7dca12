/* Allocation, element access and dtype conversion for tdcl_matrix. */
#include "base/matrix.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Large matrices ask for transparent huge pages: a fresh buffer's first
 * touch (reading a file into it, downloading into it) then faults 2 MiB at
 * a time instead of 4 KiB, several times faster where the kernel has huge
 * pages to give (THP "madvise" or "always"); elsewhere the advice is a
 * no-op. Only the whole 2 MiB pages inside the block are advised. */
#define HUGE_FROM ((size_t)64 << 20)
static void advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1),
              hi = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (bytes >= HUGE_FROM && hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

size_t tdcl_dtype_size(tdcl_dtype t)
{
    switch (t) {
    case TDCL_F32: return 4;
    case TDCL_F64: return 8;
    case TDCL_I32: return 4;
    case TDCL_I64: return 8;
    case TDCL_U8: return 1;
    case TDCL_U16: return 2;
    }
    return 0;
}

const char *tdcl_dtype_name(tdcl_dtype t)
{
    switch (t) {
    case TDCL_F32: return "float32";
    case TDCL_F64: return "float64";
    case TDCL_I32: return "int32";
    case TDCL_I64: return "int64";
    case TDCL_U8: return "uint8";
    case TDCL_U16: return "uint16";
    }
    return "unknown";
}

int tdcl_dtype_is_int(tdcl_dtype t)
{
    return t != TDCL_F32 && t != TDCL_F64;
}

tdcl_status tdcl_matrix_bytes(int64_t rows, int64_t cols, int channels, tdcl_dtype dtype,
                              size_t *bytes, tdcl_err *err)
{
    if (rows < 1 || cols < 1 || channels < 1)
        return tdcl_fail(err, TDCL_EINVAL, "invalid matrix shape %lldx%lld", (long long)rows,
                         (long long)cols);
    uint64_t n = (uint64_t)rows, c = (uint64_t)cols, ch = (uint64_t)channels;
    uint64_t es = tdcl_dtype_size(dtype);
    if (c > SIZE_MAX / n || n * c > SIZE_MAX / ch || n * c * ch > SIZE_MAX / es)
        return tdcl_fail(err, TDCL_ELIMIT, "a %lldx%lld matrix does not fit in memory",
                         (long long)rows, (long long)cols);
    *bytes = (size_t)(n * c * ch * es);
    return TDCL_OK;
}

tdcl_status tdcl_matrix_alloc(tdcl_matrix *m, int64_t rows, int64_t cols, int channels,
                              tdcl_dtype dtype, tdcl_err *err)
{
    memset(m, 0, sizeof *m);
    size_t bytes;
    tdcl_status st = tdcl_matrix_bytes(rows, cols, channels, dtype, &bytes, err);
    if (st)
        return st;
    void *p = calloc(1, bytes);
    if (!p)
        return tdcl_fail(err, TDCL_ENOMEM, "cannot allocate %zu bytes for a %lldx%lld matrix",
                         bytes, (long long)rows, (long long)cols);
    advise_huge(p, bytes);
    m->rows = rows;
    m->cols = cols;
    m->channels = channels;
    m->dtype = dtype;
    m->data = p;
    return TDCL_OK;
}

void tdcl_matrix_free(tdcl_matrix *m)
{
    if (!m)
        return;
    free(m->data);
    memset(m, 0, sizeof *m);
}

size_t tdcl_matrix_count(const tdcl_matrix *m)
{
    return (size_t)m->rows * (size_t)m->cols * (size_t)m->channels;
}

double tdcl_matrix_get_f64(const tdcl_matrix *m, size_t k)
{
    switch (m->dtype) {
    case TDCL_F32: return ((const float *)m->data)[k];
    case TDCL_F64: return ((const double *)m->data)[k];
    case TDCL_I32: return ((const int32_t *)m->data)[k];
    case TDCL_I64: return (double)((const int64_t *)m->data)[k];
    case TDCL_U8: return ((const uint8_t *)m->data)[k];
    case TDCL_U16: return ((const uint16_t *)m->data)[k];
    }
    return 0;
}

int64_t tdcl_matrix_get_i64(const tdcl_matrix *m, size_t k)
{
    switch (m->dtype) {
    case TDCL_F32: return (int64_t)((const float *)m->data)[k];
    case TDCL_F64: return (int64_t)((const double *)m->data)[k];
    case TDCL_I32: return ((const int32_t *)m->data)[k];
    case TDCL_I64: return ((const int64_t *)m->data)[k];
    case TDCL_U8: return ((const uint8_t *)m->data)[k];
    case TDCL_U16: return ((const uint16_t *)m->data)[k];
    }
    return 0;
}

tdcl_status tdcl_matrix_convert(const tdcl_matrix *src, tdcl_dtype to, tdcl_matrix *dst,
                                tdcl_err *err)
{
    tdcl_status st = tdcl_matrix_alloc(dst, src->rows, src->cols, src->channels, to, err);
    if (st)
        return st;
    size_t n = tdcl_matrix_count(src);
    if (src->dtype == to) {
        memcpy(dst->data, src->data, n * tdcl_dtype_size(to));
        return TDCL_OK;
    }
    for (size_t k = 0; k < n; k++) {
        switch (to) {
        case TDCL_F32: ((float *)dst->data)[k] = (float)tdcl_matrix_get_f64(src, k); break;
        case TDCL_F64: ((double *)dst->data)[k] = tdcl_matrix_get_f64(src, k); break;
        case TDCL_I32: ((int32_t *)dst->data)[k] = (int32_t)tdcl_matrix_get_i64(src, k); break;
        case TDCL_I64: ((int64_t *)dst->data)[k] = tdcl_matrix_get_i64(src, k); break;
        case TDCL_U8: ((uint8_t *)dst->data)[k] = (uint8_t)tdcl_matrix_get_i64(src, k); break;
        case TDCL_U16: ((uint16_t *)dst->data)[k] = (uint16_t)tdcl_matrix_get_i64(src, k); break;
        }
    }
    return TDCL_OK;
}
