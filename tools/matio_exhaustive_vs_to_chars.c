/* Exhaustive check: tiledcl's float32 formatter (io/numconv tdcl_nc_format_f32)
 * against std::to_chars, byte for byte, over a range of float bit patterns.
 *
 *   build/tools/matio_exhaustive_vs_to_chars LO HI [THREADS]
 *
 * e.g. 0 0x100000000 2 for all 2^32 floats (about 2.5 minutes on 2 cores).
 * Prints the first 20 mismatches and a count; exit 1 when any. Built with
 * meson -Dtools=true. */
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include <pthread.h>
#include "io/numconv.h"
static uint64_t lo0, hi0;
static int nth;
static void *run(void *a)
{
    long w = (long)a;
    char b1[40], b2[40];
    uint64_t bad = 0;
    for (uint64_t u = lo0 + w; u < hi0; u += nth) {
        uint32_t bits = (uint32_t)u;
        float v;
        memcpy(&v, &bits, 4);
        char *e1 = tdcl_nc_format_f32(b1, v);
        char *e2 = tdcl_nc_format_f32_std(b2, v);
        if (e1 - b1 != e2 - b2 || memcmp(b1, b2, e1 - b1)) {
            if (bad++ < 20) {
                *e1 = 0;
                *e2 = 0;
                printf("%08x %.9g mine=%s std=%s\n", bits, v, b1, b2);
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
    printf("range %llx..%llx mismatches %llu\n", (unsigned long long)lo0, (unsigned long long)hi0,
           (unsigned long long)bad);
    return bad != 0;
}
