/* Option value parsers: integers and "AxB" pairs (see spec.h). */
#include "base/spec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int tdcl_spec_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int tdcl_spec_pair(const char *s, unsigned flags, int64_t hi, int64_t *a, int64_t *b)
{
    char buf[64];
    if (!s || strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    char *x = strchr(buf, 'x');
    if (!x && (flags & TDCL_SPEC_UPPER_X)) x = strchr(buf, 'X');
    if (x) *x = '\0';
    if ((!x && !(flags & TDCL_SPEC_SQUARE)) || tdcl_spec_i64(buf, 1, hi, a)) return -1;
    *b = *a;
    return x ? tdcl_spec_i64(x + 1, 1, hi, b) : 0;
}
