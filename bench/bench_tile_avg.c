/* tile-avg bandwidth against the copy ceiling, for tuning the kernels (not
 * a test; `meson test --benchmark` or run build/bench/bench_tile_avg).
 *
 * usage: bench_tile_avg [N [VARIANT [PAIRS [TILE...]]]]
 *   N        the N x N float32 input (default 4096), uniform in [1, 2)
 *   VARIANT  auto, cpu, gpu or band (default auto)
 *   PAIRS    timed pairs per tile (default 21)
 *   TILE     TxU tiles (default 2x2 4x4 16x16 64x64 1x256); TxU:TEAM:ROWS
 *            also sets the band variant's items per tile and tile rows per
 *            item (0: chosen)
 *
 * The ceiling is cl/copy.cl's copy_f32 through bench_ops.h, as `tiledcl
 * bench` runs it (one vector per work-item, work-groups of 256, the width
 * of 1, 4 and 8 with the fastest run), in bytes read plus written. Each tile runs through the plan
 * API; after a warm-up run, copy and tile-avg runs alternate, and the figure reported is the median
 * over the pairs of tile-avg's bandwidth (bytes read plus written) as a fraction of the copy's in
 * the same pair, so that a machine shared with other work disturbs both sides alike. Device times
 * come from profiling events. The last figure, for CPU devices, compares the CPU time the process
 * spent per byte instead: less sensitive to sharing the cores, blind to waiting on memory shared
 * with others. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "base/timer.h"
#include "bench/bench_ceilings.h"
#include "runtime/clrt.h"
#include "ops/tile_avg/tile_avg.h"

#define MAX_TILES 16
#define MAX_PAIRS 1000

/* The faster copy_f32 of vector widths 1, 4 and 8 by its fastest run, as
 * `tiledcl bench` takes its ceiling, in *out. */
static tdcl_status copy_ceiling(tdcl_ctx *ctx, const tdcl_matrix *in, tdcl_bench_copy **out,
                                tdcl_err *err)
{
    static const int widths[] = {1, 4, 8};
    tdcl_status st = TDCL_OK;
    tdcl_bench_copy *c = NULL;
    tdcl_bench_stats s;
    double best = 0;
    int best_vec = 8;
    for (int i = 0; i < 3; i++) {
        TDCL_TRY(tdcl_bench_copy_create(ctx, in->data, tdcl_matrix_count(in), widths[i], &c, err));
        TDCL_TRY(tdcl_bench_time(1, 10, tdcl_bench_copy_exec, c, &s, err));
        if (best == 0 || s.min_ms < best) {
            best = s.min_ms;
            best_vec = widths[i];
        }
        tdcl_bench_copy_destroy(c);
        c = NULL;
    }
    TDCL_TRY(tdcl_bench_copy_create(ctx, in->data, tdcl_matrix_count(in), best_vec, out, err));
out:
    tdcl_bench_copy_destroy(c);
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* CPU seconds this process has used (all threads: PoCL's workers too). */
static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Alternates copy and tile-avg o on in, pairs times, and prints a line. */
static tdcl_status measure(tdcl_ctx *ctx, tdcl_bench_copy *cp, const tdcl_ta_opts *o,
                           const tdcl_matrix *in, int pairs, tdcl_err *err)
{
    static double frac[MAX_PAIRS], bw[MAX_PAIRS], cbw[MAX_PAIRS], cfrac[MAX_PAIRS];
    tdcl_status st = TDCL_OK;
    tdcl_ta_plan *p = NULL;
    int64_t orows, ocols;
    double ms, cms;
    TDCL_TRY(tdcl_ta_shape(o, in->rows, in->cols, &orows, &ocols, err));
    TDCL_TRY(tdcl_ta_plan_create(ctx, o, in, &p, err));
    TDCL_TRY(tdcl_ta_plan_execute(p, &ms, err));
    double n = (double)tdcl_matrix_count(in);
    double bytes = 4.0 * (n + (double)orows * (double)ocols);
    for (int k = 0; k < pairs; k++) {
        double c0 = cpu_seconds();
        TDCL_TRY(tdcl_bench_copy_exec(cp, &cms, err));
        double c1 = cpu_seconds();
        TDCL_TRY(tdcl_ta_plan_execute(p, &ms, err));
        double c2 = cpu_seconds();
        cbw[k] = 8.0 * n / cms / 1e6;
        bw[k] = bytes / ms / 1e6;
        frac[k] = bw[k] / cbw[k];
        cfrac[k] = (bytes / (c2 - c1)) / (8.0 * n / (c1 - c0));
    }
    printf("%lldx%-6lld %9.2f %9.2f %7.0f%% %7.0f%%  %s\n", (long long)o->tile_rows,
           (long long)o->tile_cols, median(bw, pairs), median(cbw, pairs),
           100 * median(frac, pairs), 100 * median(cfrac, pairs), tdcl_ta_plan_describe(p));
    fflush(stdout);
out:
    tdcl_ta_plan_destroy(p);
    return st;
}

/* Fills o from the command line; returns the number of tiles, or -1. */
static int parse_tiles(int argc, char **argv, tdcl_ta_variant v, tdcl_ta_opts *o)
{
    const char *defaults[] = {"2x2", "4x4", "16x16", "64x64", "1x256"};
    int n = argc > 4 ? argc - 4 : 5;
    n = n > MAX_TILES ? MAX_TILES : n;
    for (int i = 0; i < n; i++) {
        const char *s = argc > 4 ? argv[4 + i] : defaults[i];
        long long t = 0, u = 0;
        int team = 0, rows = 0;
        if (sscanf(s, "%lldx%lld:%d:%d", &t, &u, &team, &rows) < 2 || t < 1 || u < 1 || team < 0 ||
            rows < 0) {
            fprintf(stderr, "bench_tile_avg: expected a tile TxU[:TEAM[:ROWS]], got '%s'\n", s);
            return -1;
        }
        o[i] = (tdcl_ta_opts){
            .tile_rows = t, .tile_cols = u, .variant = v, .band_team = team, .band_rows = rows};
    }
    return n;
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 4096;
    tdcl_ta_variant variant = TDCL_TA_AUTO;
    if (argc > 2 && tdcl_ta_variant_parse(argv[2], &variant)) {
        fprintf(stderr, "bench_tile_avg: expected a variant auto, cpu or gpu, got '%s'\n", argv[2]);
        return 2;
    }
    int pairs = argc > 3 ? atoi(argv[3]) : 21;
    pairs = pairs < 1 ? 1 : pairs > MAX_PAIRS ? MAX_PAIRS : pairs;
    tdcl_ta_opts o[MAX_TILES];
    int ntiles = parse_tiles(argc, argv, variant, o);
    if (ntiles < 0) return 2;

    tdcl_err err = {0};
    tdcl_ctx *ctx = NULL;
    tdcl_matrix in = {0};
    tdcl_bench_copy *cp = NULL;
    int rc = 1;
    if (tdcl_ctx_open(NULL, &ctx, &err) || tdcl_matrix_alloc(&in, n, n, 1, TDCL_F32, &err))
        goto out;
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    for (size_t k = 0; k < tdcl_matrix_count(&in); k++) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        ((float *)in.data)[k] = (float)((s * 0x2545F4914F6CDD1DULL >> 40) / 16777216.0 + 1.0);
    }
    if (copy_ceiling(ctx, &in, &cp, &err)) goto out;
    printf("device: %s, %lldx%lld float32\n%s; %d pairs per tile\n", ctx->dev.device_name,
           (long long)n, (long long)n, tdcl_bench_copy_describe(cp), pairs);
    printf("%-8s %9s %9s %8s %8s  plan\n", "tile", "GB/s", "copy GB/s", "of copy", "cpu-time");
    for (int i = 0; i < ntiles; i++)
        if (measure(ctx, cp, &o[i], &in, pairs, &err)) goto out;
    rc = 0;
out:
    if (rc) fprintf(stderr, "bench_tile_avg: %s\n", err.msg);
    tdcl_bench_copy_destroy(cp);
    tdcl_matrix_free(&in);
    tdcl_ctx_close(ctx);
    return rc;
}
