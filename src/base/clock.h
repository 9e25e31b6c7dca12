/* Wall-clock time and the median of a sample (module prefix tdcl_). */
#ifndef TDCL_CLOCK_H
#define TDCL_CLOCK_H

#include <stddef.h>

/* Milliseconds on the monotonic clock (from an arbitrary origin). */
double tdcl_now_ms(void);

/* Median of v[0..n-1] (the mean of the middle two when n is even); sorts v
 * in place. 0 when n is 0. */
double tdcl_median(double *v, size_t n);

#endif
