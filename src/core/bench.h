/* The generic benchmark timer and the JSON-line writer, apart from any
 * operation (the per-operation drivers are in bench_ops.h).
 *
 * A benchmark is a callback that does the work once and reports the device
 * time it took, from OpenCL profiling events; the timer calls it for a
 * warm-up, then R timed repetitions, and keeps the median, minimum and
 * maximum of the device time and of the host wall-clock time around each
 * call. */
#ifndef TDCL_BENCH_H
#define TDCL_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Runs the work once; stores the device milliseconds in *device_ms. */
typedef tdcl_status (*tdcl_bench_fn)(void *user, double *device_ms, tdcl_err *err);

typedef struct tdcl_bench_stats {
    int reps;
    double median_ms, min_ms, max_ms;                /* device time (profiling events) */
    double host_median_ms, host_min_ms, host_max_ms; /* wall clock around each call */
} tdcl_bench_stats;

/* Calls fn warmup times untimed, then reps (>= 1) times timed, and fills
 * *out. The first failure of fn is returned as is. A device time of 0 (no
 * profiling information) falls back to the host time of that call. */
tdcl_status tdcl_bench_time(int warmup, int reps, tdcl_bench_fn fn, void *user,
                            tdcl_bench_stats *out, tdcl_err *err);

/* Median of v[0..n-1] (the mean of the middle two when n is even); sorts v
 * in place. 0 when n is 0. */
double tdcl_bench_median(double *v, size_t n);

/* One JSON object on one line, built field by field into a fixed buffer.
 * Keys are written as given (plain ASCII); strings are escaped; numbers that
 * are not finite become null. A line that would overflow is marked and
 * tdcl_jsonl_end returns NULL. */
typedef struct tdcl_jsonl {
    char buf[2048];
    size_t len;
    int fields;
    int overflow;
} tdcl_jsonl;

void tdcl_jsonl_begin(tdcl_jsonl *j);
void tdcl_jsonl_str(tdcl_jsonl *j, const char *key, const char *value); /* NULL: null */
void tdcl_jsonl_num(tdcl_jsonl *j, const char *key, double value);      /* 6 significant digits */
void tdcl_jsonl_int(tdcl_jsonl *j, const char *key, int64_t value);
void tdcl_jsonl_bool(tdcl_jsonl *j, const char *key, int value);
void tdcl_jsonl_null(tdcl_jsonl *j, const char *key);

/* Closes the object; returns j->buf (no newline), or NULL after overflow. */
const char *tdcl_jsonl_end(tdcl_jsonl *j);

#endif
