/* Exhaustive check: every float32 (NaNs aside) written by tiledcl's formatter
 * (io/numconv tdcl_nc_format_f32) reads back bit-identical through the
 * parser (tdcl_nc_parse_f64_fast, then rounded to float).
 *
 *   build/tools/matio_exhaustive_read_back LO HI [THREADS]
 *
 * e.g. 0 0x100000000 2 for all 2^32 floats. Prints the first 20 failures and
 * a count; exit 1 when any. Built with meson -Dtools=true. */
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <pthread.h>
#include "io/numconv.h"
static uint64_t lo0, hi0;
static int nth;
static void *run(void *a)
{
    long w = (long)a;
    char b1[40];
    uint64_t bad = 0;
    for (uint64_t u = lo0 + w; u < hi0; u += nth) {
        uint32_t bits = (uint32_t)u;
        float v;
        memcpy(&v, &bits, 4);
        if (isnan(v)) continue;
        char *e1 = tdcl_nc_format_f32(b1, v);
        double d;
        const char *q = tdcl_nc_parse_f64_fast(b1, e1, &d);
        float back = (float)d;
        uint32_t bb;
        memcpy(&bb, &back, 4);
        if (q != e1 || bb != bits) {
            if (bad++ < 20) {
                *e1 = 0;
                printf("%08x %s -> %08x\n", bits, b1, bb);
            }
        }
    }
    return (void *)bad;
}
int main(int c, char **v)
{
    if (c < 3) {
        fprintf(stderr, "usage: %s LO HI [THREADS]\n", v[0]);
        return 2;
    }
    lo0 = strtoull(v[1], 0, 0);
    hi0 = strtoull(v[2], 0, 0);
    nth = c > 3 ? atoi(v[3]) : 2;
    if (nth < 1 || nth > 8) nth = 2;
    pthread_t t[8];
    uint64_t bad = 0;
    for (long i = 0; i < nth; i++)
        pthread_create(&t[i], 0, run, (void *)i);
    for (int i = 0; i < nth; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad += (uint64_t)r;
    }
    printf("range %llx..%llx round-trip failures %llu\n", (unsigned long long)lo0,
           (unsigned long long)hi0, (unsigned long long)bad);
    return bad != 0;
}
