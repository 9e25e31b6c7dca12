/* Wall-clock time and the median of a sample: what every timer needs. */
#include "base/clock.h"

#include <stdio.h>

#include <stdlib.h>
#include <time.h>

double tdcl_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tdcl_median(double *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double tdcl_peak_rss_mb(void)
{
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0;
    if (!fp) return 0;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "VmHWM: %lf kB", &kb) == 1) break;
    fclose(fp);
    return kb * 1024 / 1e6;
}
