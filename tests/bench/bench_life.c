/* A small timing harness for the life kernels (until `tiledcl bench life`
 * covers them): a seeded soup, a warm-up launch, then the median of R
 * repetitions of G generations, device time from profiling events and wall
 * time beside it.
 *
 * usage: bench_life [SIZE [GENS [REPS [BOUNDARY [KERNEL [WORD_BITS [DEPTH [TILE [LAYOUT]]]]]]]]]
 *   defaults: 4096 100 5 dead bits auto auto auto auto; LAYOUT cpu or gpu
 *   forces that device's layout (the GPU's runs on PoCL too). Run it through
 * `meson test -C build --benchmark` or with TILEDCL_KERNEL_PATH=build/cl. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrt.h"
#include "life.h"
#include "log.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void log_stderr(tdcl_log_level level, const char *msg, void *user)
{
    (void)level;
    (void)user;
    fprintf(stderr, "%s\n", msg);
}

int main(int argc, char **argv)
{
    long size = argc > 1 ? atol(argv[1]) : 4096, gens = argc > 2 ? atol(argv[2]) : 100;
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    tdcl_life_opts o = tdcl_life_opts_default();
    if (argc > 4 && tdcl_life_boundary_parse(argv[4], &o.boundary)) {
        fprintf(stderr, "bad boundary '%s'\n", argv[4]);
        return 2;
    }
    if (argc > 5 && strcmp(argv[5], "bytes") == 0) o.kernel = TDCL_LIFE_KERNEL_BYTES;
    o.word_bits = argc > 6 && strcmp(argv[6], "auto") ? atoi(argv[6]) : 0;
    o.depth = argc > 7 && strcmp(argv[7], "auto") ? atoi(argv[7]) : 0;
    o.tile = argc > 8 && strcmp(argv[8], "auto") ? atoi(argv[8]) : 0;
    if (argc > 9 && strcmp(argv[9], "auto"))
        o.layout = strcmp(argv[9], "gpu") == 0 ? TDCL_LIFE_LAYOUT_GPU : TDCL_LIFE_LAYOUT_CPU;
    if (size < 1 || gens < 1 || reps < 1) {
        fprintf(stderr, "usage: bench_life [SIZE [GENS [REPS [BOUNDARY [KERNEL [WORD_BITS "
                        "[DEPTH [TILE [LAYOUT]]]]]]]]]\n");
        return 2;
    }
    tdcl_log_set(log_stderr, NULL, getenv("BENCH_VERBOSE") ? TDCL_LOG_VERBOSE : TDCL_LOG_WARN);
    tdcl_err err = {0};
    tdcl_ctx *ctx = NULL;
    tdcl_life_plan *p = NULL;
    tdcl_matrix g = {0};
    double *dev = calloc((size_t)reps, sizeof *dev), *wall = calloc((size_t)reps, sizeof *wall);
    int rc = 1;
    if (!dev || !wall || tdcl_ctx_open(NULL, &ctx, &err) ||
        tdcl_life_soup(size, size, 0.25, 1, &g, &err) ||
        tdcl_life_plan_create(ctx, &o, &g, &p, &err) ||
        tdcl_life_plan_execute(p, gens, NULL, &err)) /* warm-up */
        goto out;
    for (int r = 0; r < reps; r++) {
        double t0 = tdcl_now_ms();
        if (tdcl_life_plan_execute(p, gens, &dev[r], &err)) goto out;
        wall[r] = tdcl_now_ms() - t0;
    }
    qsort(dev, (size_t)reps, sizeof *dev, cmp_double);
    qsort(wall, (size_t)reps, sizeof *wall, cmp_double);
    double md = dev[reps / 2], mw = wall[reps / 2], cells = (double)size * size * gens;
    printf("%s | %ldx%ld x %ld gens | device %.3f ms (%.2f us/gen, %.3g cells/s) | wall %.3f ms "
           "(%.3g cells/s) | %s | compile %.0f ms\n",
           ctx->dev.device_name, size, size, gens, md, md * 1000 / gens, cells / (md / 1000), mw,
           cells / (mw / 1000), tdcl_life_plan_describe(p), ctx->t.compile_ms);
    rc = 0;
out:
    if (rc) fprintf(stderr, "bench_life: %s\n", err.msg);
    tdcl_life_plan_destroy(p);
    tdcl_matrix_free(&g);
    tdcl_ctx_close(ctx);
    free(dev);
    free(wall);
    return rc;
}
