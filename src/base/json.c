/* The one-line JSON writer. */
#include "base/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void jl_put(tdcl_jsonl *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void jl_put(tdcl_jsonl *j, const char *fmt, ...)
{
    if (j->overflow) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(j->buf + j->len, sizeof j->buf - j->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof j->buf - j->len) {
        j->overflow = 1;
        return;
    }
    j->len += (size_t)n;
}

static void jl_string(tdcl_jsonl *j, const char *s)
{
    jl_put(j, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            jl_put(j, "\\%c", c);
        else if (c < 0x20)
            jl_put(j, "\\u%04x", c);
        else
            jl_put(j, "%c", c);
    }
    jl_put(j, "\"");
}

static void jl_key(tdcl_jsonl *j, const char *key)
{
    jl_put(j, "%s", j->fields++ ? ", " : "");
    jl_string(j, key);
    jl_put(j, ": ");
}

void tdcl_jsonl_begin(tdcl_jsonl *j)
{
    j->len = 0;
    j->fields = 0;
    j->overflow = 0;
    j->buf[0] = '\0';
    jl_put(j, "{");
}

void tdcl_jsonl_str(tdcl_jsonl *j, const char *key, const char *value)
{
    jl_key(j, key);
    if (value)
        jl_string(j, value);
    else
        jl_put(j, "null");
}

void tdcl_jsonl_num(tdcl_jsonl *j, const char *key, double value)
{
    jl_key(j, key);
    if (isfinite(value))
        jl_put(j, "%.6g", value);
    else
        jl_put(j, "null");
}

void tdcl_jsonl_int(tdcl_jsonl *j, const char *key, int64_t value)
{
    jl_key(j, key);
    jl_put(j, "%lld", (long long)value);
}

void tdcl_jsonl_bool(tdcl_jsonl *j, const char *key, int value)
{
    jl_key(j, key);
    jl_put(j, "%s", value ? "true" : "false");
}

void tdcl_jsonl_null(tdcl_jsonl *j, const char *key)
{
    jl_key(j, key);
    jl_put(j, "null");
}

const char *tdcl_jsonl_end(tdcl_jsonl *j)
{
    jl_put(j, "}");
    return j->overflow ? NULL : j->buf;
}
