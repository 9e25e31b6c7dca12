/* The dense matrix every operation and file format shares.
 *
 * Row-major, element (i, j) of channel c at data[(i * cols + j) * channels + c].
 * channels is 1 for matrices and 1..4 for images (grey, grey+alpha, RGB, RGBA).
 * The matrix owns data; tdcl_matrix_free releases it. */
#ifndef TDCL_MATRIX_H
#define TDCL_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

typedef enum tdcl_dtype {
    TDCL_F32 = 0,
    TDCL_F64,
    TDCL_I32,
    TDCL_I64,
    TDCL_U8,  /* 8-bit images and Life grids */
    TDCL_U16, /* 16-bit images */
} tdcl_dtype;

typedef struct tdcl_matrix {
    int64_t rows, cols;
    int channels;
    tdcl_dtype dtype;
    void *data;
} tdcl_matrix;

/* Bytes per element of dtype. */
size_t tdcl_dtype_size(tdcl_dtype dtype);

/* "float32", "float64", "int32", "int64", "uint8", "uint16". */
const char *tdcl_dtype_name(tdcl_dtype dtype);

/* Parses an element type name as every command takes it: the short and the
 * long name of each dtype, f32/float32 (also float), f64/float64 (also
 * double), i32/int32, i64/int64, u8/uint8, u16/uint16. TDCL_EINVAL naming
 * the choices otherwise. */
tdcl_status tdcl_dtype_parse(const char *s, tdcl_dtype *out, tdcl_err *err);

/* "f32", "f64", "i32", "i64", "u8", "u16": the short name. */
const char *tdcl_dtype_short_name(tdcl_dtype dtype);

/* 1 for the integer dtypes. */
int tdcl_dtype_is_int(tdcl_dtype dtype);

/* Checks rows*cols*channels*size for overflow and stores the byte count.
 * Returns TDCL_ELIMIT naming the shape when it overflows. */
tdcl_status tdcl_matrix_bytes(int64_t rows, int64_t cols, int channels, tdcl_dtype dtype,
                              size_t *bytes, tdcl_err *err);

/* Allocates a zero-filled rows x cols matrix (rows, cols >= 1). On failure
 * m is left empty and TDCL_ENOMEM / TDCL_ELIMIT is returned. */
tdcl_status tdcl_matrix_alloc(tdcl_matrix *m, int64_t rows, int64_t cols, int channels,
                              tdcl_dtype dtype, tdcl_err *err);

/* Releases m->data and empties m. Accepts NULL and an empty matrix. */
void tdcl_matrix_free(tdcl_matrix *m);

/* Element count rows*cols*channels (the caller has checked it fits). */
size_t tdcl_matrix_count(const tdcl_matrix *m);

/* Element k (flat index) as double / int64, whatever the dtype. */
double tdcl_matrix_get_f64(const tdcl_matrix *m, size_t k);
int64_t tdcl_matrix_get_i64(const tdcl_matrix *m, size_t k);

/* Stores v as element k (flat index), converted as C's casts do: the
 * caller has checked that v fits m's dtype. */
void tdcl_matrix_set_i64(tdcl_matrix *m, size_t k, int64_t v);
void tdcl_matrix_set_f64(tdcl_matrix *m, size_t k, double v);

/* Converts src into a new matrix of dtype dst_type (dst is overwritten),
 * as C's casts do: no range checks (matmul's own float32 computation of
 * wider inputs). Files go through tdcl_matrix_narrow. */
tdcl_status tdcl_matrix_convert(const tdcl_matrix *src, tdcl_dtype dst_type, tdcl_matrix *dst,
                                tdcl_err *err);

/* The flat index k of m as "row R, column C" (from 1; "channel H" too when
 * m has several) into buf; returns buf. */
const char *tdcl_matrix_where(const tdcl_matrix *m, size_t k, char *buf, size_t n);

/* Converts src to dst_type like tdcl_matrix_convert, but never silently
 * changes a value beyond rounding: a finite value past the target's range
 * (float32: past FLT_MAX, which would become an infinity), and NaN or an
 * infinity for an integer type, fail with TDCL_ERANGE naming the first
 * such element and the range. With clip, values past the range saturate to
 * its ends (infinities too); NaN for an integer type still fails. Integer
 * targets truncate fractions toward zero; float targets round to nearest. */
tdcl_status tdcl_matrix_narrow(const tdcl_matrix *src, tdcl_dtype dst_type, int clip,
                               tdcl_matrix *dst, tdcl_err *err);

#endif
