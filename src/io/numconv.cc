// The extern "C" shim over std::from_chars / std::to_chars (see numconv.h).
// The only C++ in the project: libstdc++ 12 implements both with the
// Eisel-Lemire fast path and Ryu, correctly rounded and locale-free.
#include "io/numconv.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace
{

// from_chars reports result_out_of_range (and leaves the value) when the
// text rounds to 0 or to infinity. Tell the two apart from the decimal
// magnitude: the position of the first nonzero digit plus the exponent.
bool text_overflows(const char *p, const char *end)
{
    long long mag = 0;
    bool seen_nonzero = false, after_point = false;
    for (; p < end; p++) {
        char c = *p;
        if (c == '.') {
            after_point = true;
        } else if (c >= '0' && c <= '9') {
            if (c != '0') seen_nonzero = true;
            if (!after_point && seen_nonzero)
                mag++;
            else if (after_point && !seen_nonzero)
                mag--;
        } else {
            break;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        bool neg = false;
        if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
        long long e = 0;
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            if (e < 100000000) e = e * 10 + (*p - '0');
        mag += neg ? -e : e;
    }
    return mag > 0;
}

template <typename T> const char *parse(const char *p, const char *end, T *out)
{
    bool neg = false;
    if (p < end && *p == '+') {
        p++;
        if (p < end && (*p == '-' || *p == '+')) return nullptr;
    } else if (p < end && *p == '-') {
        neg = true;
    }
    T v;
    auto r = std::from_chars(p, end, v);
    if (r.ec == std::errc::invalid_argument || r.ptr == p) return nullptr;
    if (r.ec == std::errc::result_out_of_range) {
        const char *digits = neg ? p + 1 : p;
        bool over = text_overflows(digits, r.ptr);
        v = over ? std::numeric_limits<T>::infinity() : T(0);
        if (neg) v = -v;
    }
    *out = v;
    return r.ptr;
}

template <typename T> char *format(char *buf, T v)
{
    auto r = std::to_chars(buf, buf + TDCL_NC_MAX, v);
    // Cannot fail: TDCL_NC_MAX exceeds the longest shortest form (24 chars).
    return r.ptr;
}

} // namespace

extern "C" const char *tdcl_nc_parse_f64(const char *p, const char *end, double *out)
{
    return parse(p, end, out);
}

extern "C" const char *tdcl_nc_parse_f32(const char *p, const char *end, float *out)
{
    return parse(p, end, out);
}

extern "C" char *tdcl_nc_format_f64(char *buf, double v)
{
    if (std::isnan(v)) { // to_chars writes "-nan" for a negative NaN
        buf[0] = 'n', buf[1] = 'a', buf[2] = 'n';
        return buf + 3;
    }
    return format(buf, v);
}

extern "C" char *tdcl_nc_format_f32_std(char *buf, float v)
{
    if (std::isnan(v)) {
        buf[0] = 'n', buf[1] = 'a', buf[2] = 'n';
        return buf + 3;
    }
    return format(buf, v);
}

extern "C" char *tdcl_nc_format_f32_sci(char *buf, float v, int digits)
{
    return std::to_chars(buf, buf + TDCL_NC_MAX, v, std::chars_format::scientific, digits - 1).ptr;
}
