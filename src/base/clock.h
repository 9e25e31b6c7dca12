/* Wall-clock time, the median of a sample and the process's peak memory
 * (module prefix tdcl_). */
#ifndef TDCL_CLOCK_H
#define TDCL_CLOCK_H

#include <stddef.h>

/* Milliseconds on the monotonic clock (from an arbitrary origin). */
double tdcl_now_ms(void);

/* Median of v[0..n-1] (the mean of the middle two when n is even); sorts v
 * in place. 0 when n is 0. */
double tdcl_median(double *v, size_t n);

/* This process image's peak resident memory in MB (10^6 bytes), from
 * /proc/self/status VmHWM: unlike getrusage's ru_maxrss it starts afresh at
 * exec, so a parent's memory is not counted. 0 where unknown. */
double tdcl_peak_rss_mb(void);

#endif
