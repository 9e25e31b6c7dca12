/* Number text in and out, locale-independent and exact.
 *
 * Floats go through libstdc++'s std::from_chars / std::to_chars (an
 * Eisel-Lemire parser and a shortest round-trip printer) behind the extern
 * "C" shim in numconv.cc, the only C++ in the project: they are correctly
 * rounded, ignore the locale and run several times faster than strtod and
 * snprintf. Integers are parsed and printed by the inline code below, since
 * sprintf("%lld") is the bottleneck of coordinate output. */
#ifndef TDCL_NUMCONV_H
#define TDCL_NUMCONV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest text the formatters below write (no NUL is written). */
#define TDCL_NC_MAX 32

/* Parses a decimal floating-point number at p (no leading whitespace; an
 * optional sign, digits with an optional point and exponent, or inf,
 * infinity, nan, nan(...) in any case) ending before end. Values past the
 * type's range give +-inf, values below its smallest subnormal +-0, as
 * strtod does. Returns the first character after the number, or NULL when
 * no number starts at p; *out is untouched then. */
const char *tdcl_nc_parse_f64(const char *p, const char *end, double *out);
const char *tdcl_nc_parse_f32(const char *p, const char *end, float *out);

/* Writes the shortest text that reads back as exactly v (float32 values as
 * float32, so 0.1f prints "0.1") into buf, which holds at least TDCL_NC_MAX
 * bytes, and returns the end of the text. inf and nan print as "inf",
 * "-inf", "nan". */
char *tdcl_nc_format_f64(char *buf, double v);
char *tdcl_nc_format_f32(char *buf, float v);

#ifdef __cplusplus
}
#endif

/* Writes the decimal digits of v into buf (at least 20 bytes); returns the end. */
static inline char *tdcl_nc_format_u64(char *buf, uint64_t v)
{
    /* Two digits per division, written backwards into a scratch area. */
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324"
                                   "25262728293031323334353637383940414243444546474849"
                                   "50515253545556575859606162636465666768697071727374"
                                   "75767778798081828384858687888990919293949596979899";
    char tmp[20];
    char *q = tmp + sizeof tmp;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        q[0] = pairs[2 * r];
        q[1] = pairs[2 * r + 1];
    }
    if (v >= 10) {
        q -= 2;
        q[0] = pairs[2 * v];
        q[1] = pairs[2 * v + 1];
    } else {
        *--q = (char)('0' + v);
    }
    size_t n = (size_t)(tmp + sizeof tmp - q);
    memcpy(buf, q, n);
    return buf + n;
}

/* Writes v (INT64_MIN included) into buf (at least 21 bytes); returns the end. */
static inline char *tdcl_nc_format_i64(char *buf, int64_t v)
{
    if (v < 0) {
        *buf++ = '-';
        return tdcl_nc_format_u64(buf, 0 - (uint64_t)v);
    }
    return tdcl_nc_format_u64(buf, (uint64_t)v);
}

/* Parses an unsigned decimal integer (digits only) at p before end. Returns
 * the end of the digits, or NULL when there is none or the value exceeds
 * UINT64_MAX (*overflow set to 1 then). */
static inline const char *tdcl_nc_parse_u64(const char *p, const char *end, uint64_t *out,
                                            int *overflow)
{
    uint64_t v = 0;
    const char *s = p;
    *overflow = 0;
    while (p < end && (unsigned)(*p - '0') < 10u) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) {
            *overflow = 1;
            return NULL;
        }
        v = v * 10 + d;
        p++;
    }
    if (p == s) return NULL;
    *out = v;
    return p;
}

/* Parses an optionally signed decimal integer in int64 range at p before
 * end. Returns the end, or NULL (with *overflow 1 when out of range). */
static inline const char *tdcl_nc_parse_i64(const char *p, const char *end, int64_t *out,
                                            int *overflow)
{
    int neg = 0;
    *overflow = 0;
    if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
    uint64_t u;
    const char *q = tdcl_nc_parse_u64(p, end, &u, overflow);
    if (!q) return NULL;
    if (u > (uint64_t)INT64_MAX + (uint64_t)neg) {
        *overflow = 1;
        return NULL;
    }
    *out = neg ? (int64_t)(0 - u) : (int64_t)u;
    return q;
}

#endif
