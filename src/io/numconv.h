/* Number text in and out, locale-independent and exact.
 *
 * Floats are parsed by libstdc++'s std::from_chars (Eisel-Lemire) behind
 * the extern "C" shim in numconv.cc, the only C++ in the project, with a
 * fast path for short decimals below; doubles are printed by its
 * std::to_chars (Ryu), float32 by numconv_f32.c, which writes the same
 * text faster. All are correctly rounded, ignore the locale and run
 * several times faster than strtod and snprintf. Integers are parsed and
 * printed by the inline code below, since sprintf("%lld") is the
 * bottleneck of coordinate output. */
#ifndef TDCL_NUMCONV_H
#define TDCL_NUMCONV_H

#include <float.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 10^k for k = 0..19, every power of ten a uint64_t holds, and the two
 * characters of each number 00..99 (tables of numconv_f32.c). */
extern const uint64_t tdcl_nc_pow10[20];
extern const char tdcl_nc_digit_pairs[200];

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
 * bytes, and returns the end of the text; bytes of buf past the end may be
 * overwritten. inf and nan print as "inf", "-inf", "nan". */
char *tdcl_nc_format_f64(char *buf, double v);
char *tdcl_nc_format_f32(char *buf, float v);

/* std::to_chars's text of v, which tdcl_nc_format_f32 (numconv_f32.c, plain
 * C and about three times faster over the magnitudes matrices hold)
 * reproduces exactly: its fallback outside that range, and the tests'
 * reference. */
char *tdcl_nc_format_f32_std(char *buf, float v);

/* v in scientific notation with digits (1..9) significant digits,
 * correctly rounded, as std::to_chars writes it. */
char *tdcl_nc_format_f32_sci(char *buf, float v, int digits);

#ifdef __cplusplus
}
#endif

/* 1 when the 8 bytes in x (little-endian) are all ASCII digits. */
static inline int tdcl_nc_is8(uint64_t x)
{
    return ((x & 0xF0F0F0F0F0F0F0F0ULL) |
            (((x + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) == 0x3333333333333333ULL;
}

/* The value of 8 ASCII digits (most significant first) in x, by SWAR. */
static inline uint32_t tdcl_nc_parse8(uint64_t x)
{
    const uint64_t mask = 0x000000FF000000FFULL;
    x -= 0x3030303030303030ULL;
    x = x * 10 + (x >> 8);
    x = (((x & mask) * 0x000F424000000064ULL) + (((x >> 16) & mask) * 0x0000271000000001ULL)) >> 32;
    return (uint32_t)x;
}

/* Accumulates the digits at *s into *m while the significant digit count
 * *nd stays <= 19 (so *m < 10^19); returns 0 when a 20th digit appears. */
static inline int tdcl_nc_digits(const char **s, const char *end, uint64_t *m, int *nd)
{
    const char *p = *s;
    while (end - p >= 8 && *nd <= 11) {
        uint64_t x;
        memcpy(&x, p, 8);
        if (!tdcl_nc_is8(x)) break;
        *m = *m * 100000000u + tdcl_nc_parse8(x);
        *nd += 8;
        p += 8;
    }
    for (; p < end && (unsigned)(*p - '0') < 10u; p++) {
        if (++*nd > 19) return 0;
        *m = *m * 10 + (unsigned)(*p - '0');
    }
    *s = p;
    return 1;
}

#ifdef __SSE2__
/* The number of ASCII digits at p, up to 16, found in one 16-byte compare
 * instead of a branch per character (16 means "16 or more"). p must have
 * 16 readable bytes. */
static inline unsigned tdcl_nc_digit_mask(const char *p)
{
    __m128i c = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), _mm_set1_epi8('0'));
    __m128i ok = _mm_cmpeq_epi8(_mm_min_epu8(c, _mm_set1_epi8(9)), c);
    return (unsigned)_mm_movemask_epi8(ok); /* bit i: p[i] is a digit */
}

static inline int tdcl_nc_digit_run(const char *p)
{
    return __builtin_ctz(~tdcl_nc_digit_mask(p)); /* bit 16 of ~mask is set: at most 16 */
}

/* The value of the n <= 16 digits at p (16 + 8 readable bytes). */
static inline uint64_t tdcl_nc_run_value(const char *p, int n)
{
    uint64_t x;
    int head = n > 8 ? n - 8 : n; /* the first, possibly partial, group */
    if (head == 0) return 0;
    memcpy(&x, p, 8);
    /* move the head digits to the top and pad with '0's below */
    if (head < 8) x = (x << (8 * (8 - head))) | (0x3030303030303030ULL >> (8 * head));
    uint64_t v = tdcl_nc_parse8(x);
    if (n > 8) {
        memcpy(&x, p + head, 8);
        v = v * 100000000u + tdcl_nc_parse8(x);
    }
    return v;
}

/* The common case with no loop over characters: sign, integer digits,
 * point and fraction within 16 bytes (at most 19 digits in all), found
 * with one 16-byte compare, and an exponent of at most 4 digits. Returns
 * NULL to hand the text to the general path. p must have 80 readable
 * bytes. */
static inline const char *tdcl_nc_parse_f64_simd(const char *p, double *out)
{
    static const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *s = p;
    int neg = *s == '-';
    s += neg || *s == '+';
    unsigned digits = tdcl_nc_digit_mask(s);
    int ni = __builtin_ctz(~digits);
    if (ni == 16) return NULL;
    uint64_t m = tdcl_nc_run_value(s, ni);
    int nf = 0;
    if (s[ni] == '.') {
        /* the fraction's digits, from the same mask: if they reach its last
         * byte they may go on past it */
        nf = __builtin_ctz(~(digits >> (ni + 1)));
        if (ni + 1 + nf >= 16 || ni + nf > 19) return NULL;
        m = m * tdcl_nc_pow10[nf] + tdcl_nc_run_value(s + ni + 1, nf);
        s += ni + 1 + nf;
    } else {
        s += ni;
    }
    if (ni + nf == 0) return NULL;
    int e10 = -nf;
    if ((*s | 0x20) == 'e') {
        const char *x = s + 1;
        int eneg = *x == '-';
        x += eneg || *x == '+';
        int ne = tdcl_nc_digit_run(x);
        if (ne > 4) return NULL;
        if (ne > 0) { /* else "1.5e": the e is not ours */
            int ev = (int)tdcl_nc_run_value(x, ne);
            e10 += eneg ? -ev : ev;
            s = x + ne;
        }
    }
    if (m > ((uint64_t)1 << 53) || e10 < -22 || e10 > 22) {
        if (m != 0) return NULL;
        e10 = 0;
    }
    double v = (double)m;
    v = e10 < 0 ? v / pow10[-e10] : v * pow10[e10];
    *out = neg ? -v : v;
    return s;
}
/* The value of the 16 digit values (0..9, most significant first) in d:
 * pairs, fours and eights of digits by three multiply-adds of 16-bit
 * lanes, no loop and no shift by a count. */
static inline uint64_t tdcl_nc_digits16(__m128i d)
{
    const __m128i z = _mm_setzero_si128();
    const __m128i w10 = _mm_set_epi16(1, 10, 1, 10, 1, 10, 1, 10);
    __m128i a = _mm_madd_epi16(_mm_unpacklo_epi8(d, z), w10);
    __m128i b = _mm_madd_epi16(_mm_unpackhi_epi8(d, z), w10);
    __m128i c =
        _mm_madd_epi16(_mm_packs_epi32(a, b), _mm_set_epi16(1, 100, 1, 100, 1, 100, 1, 100));
    __m128i e = _mm_madd_epi16(_mm_packs_epi32(c, c),
                               _mm_set_epi16(1, 10000, 1, 10000, 1, 10000, 1, 10000));
    uint64_t g = (uint64_t)_mm_cvtsi128_si64(e);
    return (g & 0xffffffffu) * 100000000u + (g >> 32);
}

/* The value of the n <= 4 digits at p (4 readable bytes; 0 when n = 0). */
static inline int tdcl_nc_small4(const char *p, unsigned n)
{
    uint32_t w;
    memcpy(&w, p, 4);
    w = (uint32_t)((uint64_t)(w - 0x30303030u) << (8 * (4 - n))); /* right-aligned */
    return (int)((w & 0xff) * 1000 + ((w >> 8) & 0xff) * 100 + ((w >> 16) & 0xff) * 10 + (w >> 24));
}

/* The exponent of a line whose 'e' is at pe < L (dig: the digit bytes):
 * an optional sign and 1 to 3 digits up to the end. Returns 0 for any
 * other text. */
static inline int tdcl_nc_line_exponent(const char *p, unsigned pe, unsigned L, unsigned dig,
                                        int *ev)
{
    unsigned xs = pe + 1, sign = p[xs] == '-' || p[xs] == '+';
    unsigned ds = xs + sign, ne = L - ds;
    unsigned edig = ((1u << L) - 1) & ~((1u << ds) - 1);
    if ((dig & edig) != edig || ne - 1 >= 3) return 0;
    int v = tdcl_nc_small4(p + ds, ne);
    *ev = p[xs] == '-' ? -v : v;
    return 1;
}

/* The digit values of d before pe, others 0, with those before the point
 * at pd (pd >= pe: none) moved up one byte into its place: the mantissa's
 * digits as 16 digits ending at byte pe, whatever the point's place. */
static inline __m128i tdcl_nc_close_point(__m128i d, __m128i isd, unsigned pe, unsigned pd)
{
    const __m128i idx = _mm_set_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    __m128i keep = _mm_and_si128(isd, _mm_cmplt_epi8(idx, _mm_set1_epi8((char)pe)));
    __m128i dz = _mm_and_si128(d, keep);
    __m128i up = _mm_cmplt_epi8(idx, _mm_set1_epi8((char)(pd < pe ? pd + 1 : 0)));
    return _mm_or_si128(_mm_and_si128(up, _mm_slli_si128(dz, 1)), _mm_andnot_si128(up, dz));
}

/* Parses the whole of [p, p + len), a line without its line end, as one
 * real number of the usual short form: an optional '-', 1 to 15 digits
 * with an optional point, and an optional exponent ('e' or 'E', an
 * optional sign, 1 to 3 digits), at most 16 bytes in all. No branch
 * depends on the digit counts: the bytes are classed by three 16-byte
 * compares, the point is closed up by a byte shift and a select, and the
 * 16 digit places become V = m * 10^(16 - end of mantissa) by multiply-
 * adds. V < 2^53 and 10^k for |k| <= 22 are exact doubles, so V * 10^k or
 * V / 10^-k is one correctly rounded operation (Clinger). Returns 1 with
 * *out set, or 0 with *out untouched for any other text or a V or k out of
 * that range (the caller's general path parses it or names what is
 * wrong). p must have 32 readable bytes. */
__attribute__((always_inline)) static inline int tdcl_nc_parse_f64_line(const char *p, size_t len,
                                                                        double *out)
{
    static const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (len - 1 >= 16) return 0; /* also len == 0 */
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i d = _mm_sub_epi8(x, _mm_set1_epi8('0'));
    __m128i isd = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
    unsigned dig = (unsigned)_mm_movemask_epi8(isd);
    unsigned dot = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('.')));
    unsigned ex = (unsigned)_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)), _mm_set1_epi8('e')));
    unsigned L = (unsigned)len, neg = p[0] == '-';
    unsigned pe = (unsigned)__builtin_ctz(ex | (1u << L));   /* L: no exponent */
    unsigned pd = (unsigned)__builtin_ctz(dot | (1u << pe)); /* pe: no point */
    unsigned hasdot = pd < pe, nd = pe - neg - hasdot;
    unsigned mant = ((1u << pe) - 1) >> neg << neg;
    if ((dig & mant) != (mant & ~(1u << pd)) || nd - 1 >= 15) return 0;
    int k = -(int)(hasdot ? pe - pd - 1 : 0) - (int)(16 - pe);
    if (__builtin_expect(pe < L, 0)) { /* an exponent: rare in most files */
        int ev;
        if (!tdcl_nc_line_exponent(p, pe, L, dig, &ev)) return 0;
        k += ev;
    }
    uint64_t V = tdcl_nc_digits16(tdcl_nc_close_point(d, isd, pe, pd));
    if (V > ((uint64_t)1 << 53) || k < -22 || k > 22) return 0;
    double v = (double)V;
    v = k < 0 ? v / pow10[-k] : v * pow10[k];
    *out = neg ? -v : v;
    return 1;
}
#endif

/* tdcl_nc_parse_f64 with Clinger's fast path inlined in front: a decimal
 * with at most 19 significant digits whose mantissa m fits in 53 bits and
 * whose exponent e is within +-22 is m * 10^e or m / 10^-e, both exact
 * operands, so one IEEE operation rounds it correctly. That covers the
 * float32 values printed with 9 digits that large files are made of;
 * everything else (17-digit doubles, inf, nan, far exponents) goes to
 * from_chars. Same contract and results as tdcl_nc_parse_f64. */
static inline const char *tdcl_nc_parse_f64_fast(const char *p, const char *end, double *out)
{
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#ifdef __SSE2__
    if (end - p >= 80) {
        const char *q = tdcl_nc_parse_f64_simd(p, out);
        if (q) return q;
    }
#endif
    static const double pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *s = p;
    int neg = 0;
    if (s < end && (*s == '-' || *s == '+')) neg = *s++ == '-';
    uint64_t m = 0;
    int nd = 0, e10 = 0;
    const char *digits = s;
    while (s < end && *s == '0') /* leading zeros are not significant */
        s++;
    if (!tdcl_nc_digits(&s, end, &m, &nd)) return tdcl_nc_parse_f64(p, end, out);
    size_t nint = (size_t)(s - digits), nfrac = 0;
    if (s < end && *s == '.') {
        const char *f = ++s;
        if (m == 0)
            while (s < end && *s == '0')
                s++;
        if (!tdcl_nc_digits(&s, end, &m, &nd)) return tdcl_nc_parse_f64(p, end, out);
        e10 -= (int)(s - f);
        nfrac = (size_t)(s - f);
    }
    if (nint + nfrac == 0) /* inf, nan, or no number */
        return tdcl_nc_parse_f64(p, end, out);
    if (s < end && (*s == 'e' || *s == 'E')) {
        const char *x = s + 1;
        int eneg = 0, ev = 0;
        if (x < end && (*x == '-' || *x == '+')) eneg = *x++ == '-';
        if (x < end && (unsigned)(*x - '0') < 10u) { /* else "1.5e": the e is not ours */
            for (; x < end && (unsigned)(*x - '0') < 10u; x++) {
                if (ev > 100000) return tdcl_nc_parse_f64(p, end, out);
                ev = ev * 10 + (*x - '0');
            }
            e10 += eneg ? -ev : ev;
            s = x;
        }
    }
    if (m > ((uint64_t)1 << 53) || e10 < -22 || e10 > 22) {
        if (m != 0) return tdcl_nc_parse_f64(p, end, out);
        e10 = 0; /* zero with any exponent is zero */
    }
    double v = (double)m;
    v = e10 < 0 ? v / pow10[-e10] : v * pow10[e10];
    *out = neg ? -v : v;
    return s;
#else
    return tdcl_nc_parse_f64(p, end, out);
#endif
}

/* Writes the decimal digits of v into buf (at least 20 bytes); returns the end. */
static inline char *tdcl_nc_format_u64(char *buf, uint64_t v)
{
    /* Two digits per division, written backwards into a scratch area. */
    char tmp[20];
    char *q = tmp + sizeof tmp;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        q[0] = tdcl_nc_digit_pairs[2 * r];
        q[1] = tdcl_nc_digit_pairs[2 * r + 1];
    }
    if (v >= 10) {
        q -= 2;
        q[0] = tdcl_nc_digit_pairs[2 * v];
        q[1] = tdcl_nc_digit_pairs[2 * v + 1];
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
    const char *s = p;
    *overflow = 0;
    while (p < end && *p == '0')
        p++;
    const char *sig = p;
    uint64_t v = 0;
    /* 19 digits cannot overflow; only a 20th needs the careful check */
    for (; p < end && (unsigned)(*p - '0') < 10u && p - sig < 19; p++)
        v = v * 10 + (unsigned)(*p - '0');
    if (p < end && (unsigned)(*p - '0') < 10u) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10 || (p + 1 < end && (unsigned)(p[1] - '0') < 10u)) {
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

/* tdcl_nc_parse_u64 finding the digits with one SIMD compare when at least
 * 32 bytes are readable (indices in coordinate files). */
static inline const char *tdcl_nc_parse_u64_fast(const char *p, const char *end, uint64_t *out,
                                                 int *overflow)
{
#ifdef __SSE2__
    if (end - p >= 32) {
        int n = tdcl_nc_digit_run(p);
        if (n > 0 && n < 16) {
            *overflow = 0;
            *out = tdcl_nc_run_value(p, n);
            return p + n;
        }
    }
#endif
    return tdcl_nc_parse_u64(p, end, out, overflow);
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
