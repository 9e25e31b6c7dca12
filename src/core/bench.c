/* The benchmark timer (warm-up, repetitions, median/min/max of device and
 * host time) and the one-line JSON writer the bench output uses. */
#include "bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrt.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tdcl_bench_median(double *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

tdcl_status tdcl_bench_time(int warmup, int reps, tdcl_bench_fn fn, void *user,
                            tdcl_bench_stats *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    double *dev = NULL, *host = NULL;
    memset(out, 0, sizeof *out);
    if (reps < 1 || warmup < 0)
        return tdcl_fail(err, TDCL_EINVAL, "bench: expected reps >= 1 and warm-up >= 0, got %d, %d",
                         reps, warmup);
    dev = malloc(sizeof *dev * (size_t)reps);
    host = malloc(sizeof *host * (size_t)reps);
    if (!dev || !host) {
        st = tdcl_fail(err, TDCL_ENOMEM, "bench: out of memory for %d repetitions", reps);
        goto out;
    }
    for (int i = 0; i < warmup; i++) {
        double ms;
        TDCL_TRY(fn(user, &ms, err));
    }
    for (int i = 0; i < reps; i++) {
        double t0 = tdcl_now_ms();
        TDCL_TRY(fn(user, &dev[i], err));
        host[i] = tdcl_now_ms() - t0;
        if (!(dev[i] > 0)) dev[i] = host[i];
    }
    out->reps = reps;
    out->median_ms = tdcl_bench_median(dev, (size_t)reps); /* sorted from here on */
    out->min_ms = dev[0];
    out->max_ms = dev[reps - 1];
    out->host_median_ms = tdcl_bench_median(host, (size_t)reps);
    out->host_min_ms = host[0];
    out->host_max_ms = host[reps - 1];
out:
    free(dev);
    free(host);
    return st;
}

/* ---- JSON lines ------------------------------------------------------ */

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
