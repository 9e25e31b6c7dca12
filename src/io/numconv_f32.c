/* The shortest round-trip text of a float32, in plain C.
 *
 * Dense Matrix Market output is one float per line, so this function is
 * most of the time spent writing array files. libstdc++'s std::to_chars
 * (Ryu) is exact but takes about 40 ns a value on this project's CI
 * machine; this one writes the same text in about 30 (650 against 870 ms
 * for a 4000^2 array file on one thread) for magnitudes from about 4e-12 to
 * 1.8e19, where matrix values live, and hands everything else (tinier,
 * huger, subnormal, zero, inf, nan) to std::to_chars. Its output is
 * byte for byte what std::to_chars(buf, end, v) writes: the shortest
 * digits that read back as v, the closest to v among them (ties to even),
 * in fixed or scientific notation whichever is shorter (fixed on a tie),
 * an integer in fixed notation printed exactly; except for one float and
 * its negative whose shortest text does not survive being read as a
 * double (format_checked). All 2^32 floats were compared once, and read
 * back both ways; tests/unit/test_numconv.c compares every exponent.
 *
 * The digits: v = c * 2^q lies in the interval of reals that read back as
 * v, with bounds halfway to its neighbours, (4c -+ 2) * 2^(q-2) (the lower
 * one 4c - 1 at a power of two, whose lower neighbour is closer), both
 * included when c is even (a tie reads back as the even significand).
 * Scaled exactly by 10^j (a 64x64->128-bit multiply and a shift) so that
 * it is 1..10 units wide, it holds at most one multiple of ten, which is
 * then the answer; else the integer in it nearest to v is (the scheme of
 * Schubfach, Giulietti 2020). The lopsided interval at a power of two
 * drops digits one at a time instead (the scheme of Ryu, Adams 2018). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "io/numconv.h"

const uint64_t tdcl_nc_pow10[20] = {1ULL,
                                    10ULL,
                                    100ULL,
                                    1000ULL,
                                    10000ULL,
                                    100000ULL,
                                    1000000ULL,
                                    10000000ULL,
                                    100000000ULL,
                                    1000000000ULL,
                                    10000000000ULL,
                                    100000000000ULL,
                                    1000000000000ULL,
                                    10000000000000ULL,
                                    100000000000000ULL,
                                    1000000000000000ULL,
                                    10000000000000000ULL,
                                    100000000000000000ULL,
                                    1000000000000000000ULL,
                                    10000000000000000000ULL};

/* Exactly 200 characters: C drops the string's NUL. */
const char tdcl_nc_digit_pairs[200] = "00010203040506070809101112131415161718192021222324"
                                      "25262728293031323334353637383940414243444546474849"
                                      "50515253545556575859606162636465666768697071727374"
                                      "75767778798081828384858687888990919293949596979899";

static int same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* 1 when the text p..e reads back as v both as a float32 and as a double
 * converted to float32. */
static int reads_back(const char *p, const char *e, float v)
{
    float f;
    double d;
    return tdcl_nc_parse_f32(p, e, &f) == e && same_bits(f, v) &&
           tdcl_nc_parse_f64(p, e, &d) == e && same_bits((float)d, v);
}

/* std::to_chars's text, unless it is one of the rare shortest texts that
 * land exactly on a float32 tie when read as a double (as the Matrix
 * Market reader reads them) and so come back one ulp off once converted to
 * float32: of all 2^32 floats only 7.038531e-26 and its negative, which
 * the scheme below does not print itself. Those get the shortest longer
 * text that survives both reads ("7.0385307e-26"). */
static char *format_checked(char *buf, float v)
{
    char *e = tdcl_nc_format_f32_std(buf, v);
    for (int digits = 1; !isnan(v) && digits <= 9 && !reads_back(buf, e, v); digits++)
        e = tdcl_nc_format_f32_sci(buf, v, digits);
    return e;
}

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

/* A decimal: digits * 10^exp10, digits < 10^9. */
typedef struct decimal {
    uint32_t digits;
    int exp10;
} decimal;

/* The interval of v scaled to integers: floors of the lower bound, v and
 * the upper bound, and whether each scaled value was an exact integer. */
typedef struct scaled {
    uint64_t lo, mid, hi;
    int lo_exact, mid_exact, hi_exact;
    int frac_cmp; /* mid's dropped fraction against 1/2: -1, 0 or 1 */
} scaled;

/* floor(x / 2^s) and exactness, 0 < s < 64. */
static inline uint64_t shift_down(u128 x, int s, int *exact)
{
    *exact = ((uint64_t)x & (((uint64_t)1 << s) - 1)) == 0;
    return (uint64_t)(x >> s);
}

/* The fraction x mod 2^s over 2^s against 1/2. */
static inline int frac_vs_half(u128 x, int s)
{
    uint64_t f = (uint64_t)x & (((uint64_t)1 << s) - 1), half = (uint64_t)1 << (s - 1);
    return (f > half) - (f < half);
}

/* floor(x log10 2) for |x| < 1650, by a multiply-shift. */
static inline int floor_log10_pow2(int x)
{
    return x >= 0 ? (x * 78913) >> 18 : -((-x * 78913 + (1 << 18) - 1) >> 18);
}

/* Scales 4c and its bounds 4c - below and 4c + 2 by 2^e2 * 10^j. Returns 0
 * out of the exact range of 64-bit powers of ten and shifted significands. */
static inline int scale_interval(uint32_t c, int e2, int j, int below, scaled *s)
{
    uint64_t v4 = 4 * (uint64_t)c;
    if (j >= 0) {
        if (e2 < -63 || j > 19) return 0;
        u128 p = tdcl_nc_pow10[j], mid = (u128)v4 * p;
        u128 lo = mid - (unsigned)below * p, hi = mid + 2 * p;
        if (e2 >= 0) { /* e2 <= 4 and j <= 1 here: the product fits, nothing is lost */
            s->lo = (uint64_t)lo << e2, s->mid = (uint64_t)mid << e2, s->hi = (uint64_t)hi << e2;
            s->lo_exact = s->mid_exact = s->hi_exact = 1;
            s->frac_cmp = -1;
        } else {
            s->lo = shift_down(lo, -e2, &s->lo_exact);
            s->mid = shift_down(mid, -e2, &s->mid_exact);
            s->hi = shift_down(hi, -e2, &s->hi_exact);
            s->frac_cmp = frac_vs_half(mid, -e2);
        }
    } else {
        if (e2 > 38) return 0; /* v4 << e2 must fit in 64 bits */
        uint64_t d = tdcl_nc_pow10[-j], mid = v4 << e2;
        uint64_t lo = (v4 - (unsigned)below) << e2, hi = (v4 + 2) << e2;
        s->lo = lo / d, s->mid = mid / d, s->hi = hi / d;
        s->lo_exact = lo % d == 0, s->mid_exact = mid % d == 0, s->hi_exact = hi % d == 0;
        uint64_t twice = 2 * (mid % d); /* d <= 10^12: no overflow */
        s->frac_cmp = (twice > d) - (twice < d);
    }
    return 1;
}

/* 1 when the integer x is inside the interval's lower bound: lo is the
 * bound's floor, so x == lo is on the bound when it is exact (inside only
 * if bounds are included) and below it otherwise. */
static inline int above_lo(const scaled *s, uint64_t x, int include_bounds)
{
    return x > s->lo || (x == s->lo && s->lo_exact && include_bounds);
}

/* 1 when the integer x is inside the interval's upper bound: hi is the
 * bound's floor, so x == hi is below the bound when it is not exact and on
 * it (inside only if bounds are included) when it is. */
static inline int below_hi(const scaled *s, uint64_t x, int include_bounds)
{
    return x < s->hi || (x == s->hi && (!s->hi_exact || include_bounds));
}

/* The common case, an interval 1..10 units wide (the scale of Schubfach,
 * Giulietti 2020): it holds at most one multiple of ten, u = vr rounded
 * down to one or w = u + 10, and when it does that is the shortest decimal
 * (with its own trailing zeros dropped); otherwise the shortest are the
 * integers in it, and v's nearer neighbour among vr and vr + 1 (ties to
 * even) is taken, or the one that is in. Written as selects, not branches:
 * which case applies is a coin toss on real data. */
static inline decimal pick_in_narrow(const scaled *s, int include_bounds, int j)
{
    uint64_t vr = s->mid, u = vr / 10 * 10, w = u + 10;
    int lo_in_u = above_lo(s, u, include_bounds), hi_in_w = below_hi(s, w, include_bounds);
    int lo_in_vr = above_lo(s, vr, include_bounds),
        hi_in_next = below_hi(s, vr + 1, include_bounds);
    int up = s->frac_cmp > 0 || (s->frac_cmp == 0 && (vr & 1));
    up = (up | !lo_in_vr) & hi_in_next;
    int shorter = lo_in_u | hi_in_w;
    uint32_t d = (uint32_t)(shorter ? vr / 10 + !lo_in_u : vr + (unsigned)up);
    int e = shorter - j;
    while (shorter && d % 10 == 0) { /* vr + up never ends in 0: that would be u or w */
        d /= 10;
        e++;
    }
    return (decimal){d, e};
}

/* The shortest decimal in an interval 7.5..75 units wide (the asymmetric
 * one at a power of two), closest to v, by dropping digits while a
 * multiple of ten is left in it. */
static inline decimal pick_by_removal(const scaled *s, int include_bounds, int j)
{
    uint64_t vm = s->lo, vr = s->mid, vp = s->hi;
    if (s->hi_exact && !include_bounds) vp--;  /* the upper bound itself is out */
    int vm_ok = s->lo_exact && include_bounds; /* vm is in, and so far all its dropped digits 0 */
    int vr_tz = s->mid_exact;                  /* v's dropped digits so far are all 0 */
    unsigned last = 0;                         /* the last digit dropped from v */
    int removed = 0;
    while (vp / 10 > vm / 10) {
        vm_ok &= vm % 10 == 0;
        vr_tz &= last == 0;
        last = (unsigned)(vr % 10);
        vr /= 10, vp /= 10, vm /= 10;
        removed++;
    }
    if (vm_ok) /* the lower bound is a candidate: drop its trailing zeros too */
        while (vm % 10 == 0) {
            vr_tz &= last == 0;
            last = (unsigned)(vr % 10);
            vr /= 10, vp /= 10, vm /= 10;
            removed++;
        }
    int up; /* v is nearer to vr + 1, or halfway and vr is odd */
    if (removed == 0)
        up = s->frac_cmp > 0 || (s->frac_cmp == 0 && vr % 2);
    else
        up = last > 5 || (last == 5 && !(vr_tz && vr % 2 == 0));
    uint64_t out = vr + ((vr == vm && !vm_ok) || up);
    return (decimal){(uint32_t)out, removed - j};
}

/* The number of decimal digits of v (1..10), without a loop: the bit
 * length times log10(2) is the digit count or one more. */
static inline int count_digits(uint32_t v)
{
    int t = ((32 - __builtin_clz(v | 1)) * 1233) >> 12;
    return t + 1 - (v < (uint32_t)tdcl_nc_pow10[t]);
}

/* Text is built in a 128-bit register, its first character in the low
 * byte so that a 16-byte store writes it in order, and assembled with
 * fixed-size stores at computed offsets: nothing is read back. */
static inline void store16(char *o, u128 t)
{
    memcpy(o, &t, 16);
}

/* The two characters of the pair p < 100, the first in the low byte. */
static inline uint64_t pair_chars(uint64_t p)
{
    uint16_t c;
    memcpy(&c, tdcl_nc_digit_pairs + 2 * p, 2);
    return c;
}

/* The n digits of v < 10^9 (n its digit count) left-aligned in c0..: v
 * / 10^8 as a fixed-point number with 57 fraction bits, rounded up, gives
 * the first of nine digits (leading zeros included) as its integer part,
 * and each multiply of the fraction by 100 the next two. Rounding up makes
 * every step exact for v < 10^9: the excess, under 2^-29 of a unit at the
 * start, stays below the gap between the true fraction and the next digit
 * boundary at each step. Dropping the 9 - n leading zeros is a shift. */
static inline u128 left_digits(uint32_t v, int n)
{
    const uint64_t frac_mask = ((uint64_t)1 << 57) - 1;
    uint64_t t = (uint64_t)v * 1441151881u; /* ceil(2^57 / 10^8) */
    uint64_t c0 = '0' + (t >> 57);
    t = (t & frac_mask) * 100;
    uint64_t p1 = pair_chars(t >> 57);
    t = (t & frac_mask) * 100;
    uint64_t p2 = pair_chars(t >> 57);
    t = (t & frac_mask) * 100;
    uint64_t p3 = pair_chars(t >> 57);
    t = (t & frac_mask) * 100;
    uint64_t p4 = pair_chars(t >> 57);
    u128 all = (u128)(c0 | p1 << 8 | p2 << 24 | p3 << 40 | p4 << 56) | (u128)(p4 >> 8) << 64;
    return all >> (8 * (9 - n));
}

/* d.ddde-XX, the exponent of at least two digits (|x| < 100 for a float).
 * Writes up to 22 bytes at o, returns the end of the text. */
static inline char *put_scientific(char *o, u128 t, int n, int x)
{
    store16(o + 1, t);
    o[0] = o[1];
    o[1] = '.';
    o += n > 1 ? n + 1 : 1;
    unsigned ax = (unsigned)(x < 0 ? -x : x);
    o[0] = 'e';
    o[1] = x < 0 ? '-' : '+';
    memcpy(o + 2, tdcl_nc_digit_pairs + 2 * ax, 2);
    return o + 4;
}

/* Fixed notation with a fraction: ddd.ddd for 0 <= x <= 7 (the first x + 1
 * digits, a point, the rest), and 0.000ddd for -4 <= x < 0 (the only
 * negative exponents to_chars writes in fixed notation), which is the
 * first case once -x '0's are put in front of the digits. No branches:
 * the two are equally likely. Writes up to 25 bytes at o, returns the end
 * of the text. */
static inline char *put_fixed(char *o, u128 t, int n, int x)
{
    int zeros = x < 0 ? -x : 0;
    u128 fill = (((u128)1 << (8 * zeros)) - 1) & 0x30303030u;
    t = t << (8 * zeros) | fill;
    x += zeros;
    store16(o, t);
    o[x + 1] = '.';
    store16(o + x + 2, t >> (8 * (x + 1)));
    return o + n + zeros + 1;
}

char *tdcl_nc_format_f32(char *buf, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint32_t frac = bits & 0x7FFFFF, bexp = (bits >> 23) & 0xFF;
    scaled s;
    if ((bits << 1) == 0) { /* zero, common in matrices: "0" or "-0" */
        char *o = buf + (bits >> 31);
        buf[0] = '-';
        *o = '0';
        return o + 1;
    }
    if (bexp == 0 || bexp == 0xFF) return format_checked(buf, v); /* subnormal, inf, nan */
    uint32_t c = frac | 0x800000;
    int q = (int)bexp - 150, include_bounds = c % 2 == 0;
    decimal d;
    if (frac != 0 || bexp == 1) {
        /* 10^j * 2^q in [1, 10): the interval, 2^q wide, becomes 1..10 units */
        int j = -floor_log10_pow2(q);
        if (!scale_interval(c, q - 2, j, 2, &s)) return format_checked(buf, v);
        d = pick_in_narrow(&s, include_bounds, j);
    } else {
        /* 10^j * 2^q in (1, 10] times ten: 0.75 * 2^q becomes 7.5..75 units */
        int j = 1 - floor_log10_pow2(q);
        if (!scale_interval(c, q - 2, j, 1, &s)) return format_checked(buf, v);
        d = pick_by_removal(&s, include_bounds, j);
    }
    char *o = buf;
    *o = '-';
    o += bits >> 31;
    int n = count_digits(d.digits), x = n - 1 + d.exp10;
    int sci_len = n + (n > 1) + 4;
    int fixed_len = x < 0 ? n + 1 - x : (n > x + 1 ? n + 1 : x + 1);
    if (fixed_len <= sci_len && x + 1 >= n) /* an integer: std::to_chars prints it exactly */
        return tdcl_nc_format_u64(o, (uint64_t)fabsf(v));
    u128 text = left_digits(d.digits, n);
    if (fixed_len <= sci_len) return put_fixed(o, text, n, x);
    return put_scientific(o, text, n, x);
}

#else /* no 128-bit integers: std::to_chars does it all */
char *tdcl_nc_format_f32(char *buf, float v)
{
    return format_checked(buf, v);
}
#endif
