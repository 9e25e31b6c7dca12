/* The repetition timer of bench and tune: warm-up, repetitions,
 * median/min/max of device and host time. */
#include "base/timer.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"

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
        if (!(dev[i] > 0) || (dev[i] < 1e-3 && host[i] > 100 * dev[i])) {
            dev[i] = host[i];
            out->host_timed++;
        }
    }
    out->reps = reps;
    out->median_ms = tdcl_median(dev, (size_t)reps); /* sorted from here on */
    out->min_ms = dev[0];
    out->max_ms = dev[reps - 1];
    out->host_median_ms = tdcl_median(host, (size_t)reps);
    out->host_min_ms = host[0];
    out->host_max_ms = host[reps - 1];
out:
    free(dev);
    free(host);
    return st;
}
