/* The repetition timer (module prefix tdcl_bench_) that bench/ and tune/
 * share, apart from any operation; it lives in base so that tune, a peer of
 * bench, need not include bench (the per-operation drivers are in
 * bench/bench_ops.h).
 *
 * A benchmark is a callback that does the work once and reports the device
 * time it took, from OpenCL profiling events; the timer calls it for a
 * warm-up, then R timed repetitions, and keeps the median, minimum and
 * maximum of the device time and of the host wall-clock time around each
 * call. */
#ifndef TDCL_TIMER_H
#define TDCL_TIMER_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

/* Runs the work once; stores the device milliseconds in *device_ms. */
typedef tdcl_status (*tdcl_bench_fn)(void *user, double *device_ms, tdcl_err *err);

typedef struct tdcl_bench_stats {
    int reps;
    double median_ms, min_ms, max_ms;                /* device time (profiling events) */
    double host_median_ms, host_min_ms, host_max_ms; /* wall clock around each call */
    int host_timed; /* repetitions whose device time was replaced by the host's */
} tdcl_bench_stats;

/* Calls fn warmup times untimed, then reps (>= 1) times timed, and fills
 * *out. The first failure of fn is returned as is. A device time of 0 (no
 * profiling information) falls back to the host time of that call, and so
 * does one that cannot be true: under a microsecond for a call the host
 * waited a hundred times as long for (a device timer that does not run,
 * Mesa's rusticl's, reports about 1 ns a kernel); host_timed counts them. */
tdcl_status tdcl_bench_time(int warmup, int reps, tdcl_bench_fn fn, void *user,
                            tdcl_bench_stats *out, tdcl_err *err);

#endif
