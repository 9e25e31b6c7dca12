/* Allocation, element access and dtype conversion for tdcl_matrix. */
#include "base/matrix.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
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
    case TDCL_F32:
        return 4;
    case TDCL_F64:
        return 8;
    case TDCL_I32:
        return 4;
    case TDCL_I64:
        return 8;
    case TDCL_U8:
        return 1;
    case TDCL_U16:
        return 2;
    }
    return 0;
}

const char *tdcl_dtype_name(tdcl_dtype t)
{
    switch (t) {
    case TDCL_F32:
        return "float32";
    case TDCL_F64:
        return "float64";
    case TDCL_I32:
        return "int32";
    case TDCL_I64:
        return "int64";
    case TDCL_U8:
        return "uint8";
    case TDCL_U16:
        return "uint16";
    }
    return "unknown";
}

/* Every name of every dtype, short name first. */
static const struct {
    const char *name;
    tdcl_dtype type;
} dtype_names[] = {
    {"f32", TDCL_F32},     {"float32", TDCL_F32}, {"float", TDCL_F32}, {"f64", TDCL_F64},
    {"float64", TDCL_F64}, {"double", TDCL_F64},  {"i32", TDCL_I32},   {"int32", TDCL_I32},
    {"i64", TDCL_I64},     {"int64", TDCL_I64},   {"u8", TDCL_U8},     {"uint8", TDCL_U8},
    {"u16", TDCL_U16},     {"uint16", TDCL_U16},
};

tdcl_status tdcl_dtype_parse(const char *s, tdcl_dtype *out, tdcl_err *err)
{
    for (size_t i = 0; s && i < sizeof dtype_names / sizeof dtype_names[0]; i++)
        if (strcmp(s, dtype_names[i].name) == 0) {
            *out = dtype_names[i].type;
            return TDCL_OK;
        }
    return tdcl_fail(err, TDCL_EINVAL,
                     "unknown element type '%s' (f32, f64, i32, i64, u8, u16 or float32, "
                     "float64, int32, int64, uint8, uint16)",
                     s ? s : "");
}

const char *tdcl_dtype_short_name(tdcl_dtype t)
{
    for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++)
        if (dtype_names[i].type == t) return dtype_names[i].name;
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
    if (st) return st;
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
    if (!m) return;
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
    case TDCL_F32:
        return ((const float *)m->data)[k];
    case TDCL_F64:
        return ((const double *)m->data)[k];
    case TDCL_I32:
        return ((const int32_t *)m->data)[k];
    case TDCL_I64:
        return (double)((const int64_t *)m->data)[k];
    case TDCL_U8:
        return ((const uint8_t *)m->data)[k];
    case TDCL_U16:
        return ((const uint16_t *)m->data)[k];
    }
    return 0;
}

int64_t tdcl_matrix_get_i64(const tdcl_matrix *m, size_t k)
{
    switch (m->dtype) {
    case TDCL_F32:
        return (int64_t)((const float *)m->data)[k];
    case TDCL_F64:
        return (int64_t)((const double *)m->data)[k];
    case TDCL_I32:
        return ((const int32_t *)m->data)[k];
    case TDCL_I64:
        return ((const int64_t *)m->data)[k];
    case TDCL_U8:
        return ((const uint8_t *)m->data)[k];
    case TDCL_U16:
        return ((const uint16_t *)m->data)[k];
    }
    return 0;
}

void tdcl_matrix_set_i64(tdcl_matrix *m, size_t k, int64_t v)
{
    switch (m->dtype) {
    case TDCL_F32:
        ((float *)m->data)[k] = (float)v;
        break;
    case TDCL_F64:
        ((double *)m->data)[k] = (double)v;
        break;
    case TDCL_I32:
        ((int32_t *)m->data)[k] = (int32_t)v;
        break;
    case TDCL_I64:
        ((int64_t *)m->data)[k] = v;
        break;
    case TDCL_U8:
        ((uint8_t *)m->data)[k] = (uint8_t)v;
        break;
    case TDCL_U16:
        ((uint16_t *)m->data)[k] = (uint16_t)v;
        break;
    }
}

void tdcl_matrix_set_f64(tdcl_matrix *m, size_t k, double v)
{
    switch (m->dtype) {
    case TDCL_F32:
        ((float *)m->data)[k] = (float)v;
        break;
    case TDCL_F64:
        ((double *)m->data)[k] = v;
        break;
    case TDCL_I32:
        ((int32_t *)m->data)[k] = (int32_t)v;
        break;
    case TDCL_I64:
        ((int64_t *)m->data)[k] = (int64_t)v;
        break;
    case TDCL_U8:
        ((uint8_t *)m->data)[k] = (uint8_t)v;
        break;
    case TDCL_U16:
        ((uint16_t *)m->data)[k] = (uint16_t)v;
        break;
    }
}

tdcl_status tdcl_matrix_convert(const tdcl_matrix *src, tdcl_dtype to, tdcl_matrix *dst,
                                tdcl_err *err)
{
    tdcl_status st = tdcl_matrix_alloc(dst, src->rows, src->cols, src->channels, to, err);
    if (st) return st;
    size_t n = tdcl_matrix_count(src);
    if (src->dtype == to) {
        memcpy(dst->data, src->data, n * tdcl_dtype_size(to));
        return TDCL_OK;
    }
    for (size_t k = 0; k < n; k++) {
        switch (to) {
        case TDCL_F32:
            ((float *)dst->data)[k] = (float)tdcl_matrix_get_f64(src, k);
            break;
        case TDCL_F64:
            ((double *)dst->data)[k] = tdcl_matrix_get_f64(src, k);
            break;
        case TDCL_I32:
            ((int32_t *)dst->data)[k] = (int32_t)tdcl_matrix_get_i64(src, k);
            break;
        case TDCL_I64:
            ((int64_t *)dst->data)[k] = tdcl_matrix_get_i64(src, k);
            break;
        case TDCL_U8:
            ((uint8_t *)dst->data)[k] = (uint8_t)tdcl_matrix_get_i64(src, k);
            break;
        case TDCL_U16:
            ((uint16_t *)dst->data)[k] = (uint16_t)tdcl_matrix_get_i64(src, k);
            break;
        }
    }
    return TDCL_OK;
}

const char *tdcl_matrix_where(const tdcl_matrix *m, size_t k, char *buf, size_t n)
{
    size_t ch = m->channels > 0 ? (size_t)m->channels : 1, cols = (size_t)m->cols;
    size_t px = k / ch;
    if (ch > 1)
        snprintf(buf, n, "row %zu, column %zu, channel %zu", px / cols + 1, px % cols + 1,
                 k % ch + 1);
    else
        snprintf(buf, n, "row %zu, column %zu", px / cols + 1, px % cols + 1);
    return buf;
}

/* The integer range of t (int types only). */
static void int_range(tdcl_dtype t, int64_t *lo, int64_t *hi)
{
    switch (t) {
    case TDCL_I32:
        *lo = INT32_MIN, *hi = INT32_MAX;
        break;
    case TDCL_U8:
        *lo = 0, *hi = UINT8_MAX;
        break;
    case TDCL_U16:
        *lo = 0, *hi = UINT16_MAX;
        break;
    default:
        *lo = INT64_MIN, *hi = INT64_MAX;
        break;
    }
}

static tdcl_status out_of_range(const tdcl_matrix *src, size_t k, tdcl_dtype to, const char *range,
                                tdcl_err *err)
{
    char where[96], val[64];
    if (tdcl_dtype_is_int(src->dtype))
        snprintf(val, sizeof val, "%" PRId64, tdcl_matrix_get_i64(src, k));
    else
        snprintf(val, sizeof val, "%.17g", tdcl_matrix_get_f64(src, k));
    return tdcl_fail_param(
        err, TDCL_ERANGE, TDCL_PARAM_CLIP, "value %s at %s does not fit in %s (%s)", val,
        tdcl_matrix_where(src, k, where, sizeof where), tdcl_dtype_name(to), range);
}

/* Element k of src into integer dst; 1 when out of range (not written). */
static int narrow_int(const tdcl_matrix *src, size_t k, tdcl_matrix *dst, int clip, int *nan)
{
    int64_t lo, hi, v;
    int_range(dst->dtype, &lo, &hi);
    *nan = 0;
    if (tdcl_dtype_is_int(src->dtype)) {
        v = tdcl_matrix_get_i64(src, k);
    } else {
        double d = tdcl_matrix_get_f64(src, k);
        if (isnan(d)) return *nan = 1;
        /* truncated toward zero first, then compared as doubles before
         * any cast, on both sides: -2147483648.5 fits in int32 and -0.5
         * in uint8 as 2147483647.5 does in int32. lo is exact as a
         * double, and hi + 1 a power of two */
        const double t = trunc(d);
        if (t < (double)lo || t >= (double)hi + 1.0) {
            if (!clip) return 1;
            v = t < 0 ? lo : hi;
        } else {
            v = (int64_t)t;
        }
    }
    if (v < lo || v > hi) {
        if (!clip) return 1;
        v = v < lo ? lo : hi;
    }
    tdcl_matrix_set_i64(dst, k, v);
    return 0;
}

tdcl_status tdcl_matrix_narrow(const tdcl_matrix *src, tdcl_dtype to, int clip, tdcl_matrix *dst,
                               tdcl_err *err)
{
    /* integers are written here, never through a cast of an out-of-range
     * double (undefined behaviour) */
    tdcl_status st = tdcl_dtype_is_int(to) && src->dtype != to
                         ? tdcl_matrix_alloc(dst, src->rows, src->cols, src->channels, to, err)
                         : tdcl_matrix_convert(src, to, dst, err);
    if (st || src->dtype == to || to == TDCL_F64) return st;
    size_t n = tdcl_matrix_count(src);
    char range[96];
    if (to == TDCL_F32) {
        snprintf(range, sizeof range, "its largest finite magnitude is %.9g", (double)FLT_MAX);
        float *f = dst->data;
        for (size_t k = 0; k < n; k++) {
            if (!isinf(f[k]) || isinf(tdcl_matrix_get_f64(src, k))) continue;
            if (!clip) {
                st = out_of_range(src, k, to, range, err);
                break;
            }
            f[k] = f[k] > 0 ? FLT_MAX : -FLT_MAX;
        }
    } else {
        int64_t lo, hi;
        int_range(to, &lo, &hi);
        snprintf(range, sizeof range, "%" PRId64 "..%" PRId64, lo, hi);
        for (size_t k = 0; k < n; k++) {
            int nan;
            if (!narrow_int(src, k, dst, clip, &nan)) continue;
            st = out_of_range(src, k, to, nan ? "NaN has no integer value" : range, err);
            break;
        }
    }
    if (st) tdcl_matrix_free(dst);
    return st;
}
