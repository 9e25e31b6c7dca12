/* tile-avg bandwidth against the copy ceiling, for tuning the kernels (not
 * a test; `meson test --benchmark` or run build/tests/bench_tile_avg).
 *
 * usage: bench_tile_avg [N [VARIANT [ROUNDS [TILE...]]]]
 *   N        the N x N float32 input (default 4096)
 *   VARIANT  auto, cpu or gpu (default auto)
 *   ROUNDS   rounds of measurement (default 5)
 *   TILE     TxU tiles (default 2x2 4x4 16x16 64x64 1x256)
 *
 * Each round measures the copy ceiling (tdcl_bench_job's copy: bytes read
 * plus written, the best vector width) and then every tile through the plan
 * API (median device time of 10 runs after a warm-up, bytes read plus
 * written). The figure reported per tile is the median over the rounds of
 * its bandwidth as a fraction of the same round's copy bandwidth, so that a
 * machine shared with other work disturbs both sides alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "bench_ops.h"
#include "clrt.h"
#include "log.h"
#include "tile_avg.h"

#define MAX_TILES 16
#define MAX_ROUNDS 64

typedef struct copy_ceiling {
    double gbps;
    char plan[160];
} copy_ceiling;

static void take_copy(const tdcl_bench_result *r, void *user)
{
    copy_ceiling *c = user;
    if (strcmp(r->op, "copy") == 0) {
        c->gbps = r->copy_gbps;
        snprintf(c->plan, sizeof c->plan, "%s", r->plan);
    }
}

static tdcl_status exec_plan(void *user, double *ms, tdcl_err *err)
{
    return tdcl_ta_plan_execute(user, ms, err);
}

/* Bandwidth of one tile shape on in: bytes read plus written per median. */
static tdcl_status measure(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_matrix *in,
                           double *gbps, char *desc, size_t cap, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_ta_plan *p = NULL;
    tdcl_bench_stats s;
    int64_t orows, ocols;
    TDCL_TRY(tdcl_ta_shape(o, in->rows, in->cols, &orows, &ocols, err));
    TDCL_TRY(tdcl_ta_plan_create(ctx, o, in, &p, err));
    TDCL_TRY(tdcl_bench_time(1, 10, exec_plan, p, &s, err));
    double bytes = 4.0 * ((double)in->rows * (double)in->cols + (double)orows * (double)ocols);
    *gbps = bytes / (s.median_ms / 1e3) / 1e9;
    snprintf(desc, cap, "%s", tdcl_ta_plan_describe(p));
out:
    tdcl_ta_plan_destroy(p);
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

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 4096;
    tdcl_ta_variant variant = TDCL_TA_AUTO;
    if (argc > 2 && tdcl_ta_variant_parse(argv[2], &variant)) {
        fprintf(stderr, "bench_tile_avg: expected a variant auto, cpu or gpu, got '%s'\n", argv[2]);
        return 2;
    }
    int rounds = argc > 3 ? atoi(argv[3]) : 5;
    rounds = rounds < 1 ? 1 : rounds > MAX_ROUNDS ? MAX_ROUNDS : rounds;
    const char *defaults[] = {"2x2", "4x4", "16x16", "64x64", "1x256"};
    int ntiles = argc > 4 ? argc - 4 : 5;
    ntiles = ntiles > MAX_TILES ? MAX_TILES : ntiles;
    tdcl_ta_opts o[MAX_TILES];
    for (int i = 0; i < ntiles; i++) {
        const char *s = argc > 4 ? argv[4 + i] : defaults[i];
        long long t = 0, u = 0;
        if (sscanf(s, "%lldx%lld", &t, &u) != 2 || t < 1 || u < 1) {
            fprintf(stderr, "bench_tile_avg: expected a tile TxU, got '%s'\n", s);
            return 2;
        }
        o[i] = (tdcl_ta_opts){.tile_rows = t, .tile_cols = u, .variant = variant};
    }

    tdcl_err err = {0};
    tdcl_ctx *ctx = NULL;
    tdcl_matrix in = {0};
    int rc = 1;
    if (tdcl_ctx_open(NULL, &ctx, &err) || tdcl_matrix_alloc(&in, n, n, 1, TDCL_F32, &err))
        goto out;
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    for (size_t k = 0; k < (size_t)(n * n); k++) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        ((float *)in.data)[k] = (float)((s * 0x2545F4914F6CDD1DULL >> 40) / 16777216.0 + 1.0);
    }
    static double frac[MAX_TILES][MAX_ROUNDS], bw[MAX_TILES][MAX_ROUNDS], copy[MAX_ROUNDS];
    char desc[MAX_TILES][640];
    copy_ceiling cc = {0};
    tdcl_bench_opts bo;
    tdcl_bench_opts_init(&bo);
    bo.op = TDCL_BENCH_COPY;
    bo.size = n;
    for (int r = 0; r < rounds; r++) {
        if (tdcl_bench_job(ctx, &bo, take_copy, &cc, &err)) goto out;
        copy[r] = cc.gbps;
        for (int i = 0; i < ntiles; i++) {
            if (measure(ctx, &o[i], &in, &bw[i][r], desc[i], sizeof desc[i], &err)) goto out;
            frac[i][r] = bw[i][r] / cc.gbps;
        }
    }
    printf("device: %s\ncopy: %s, median %.2f GB/s over %d rounds\n", ctx->dev.device_name, cc.plan,
           median(copy, rounds), rounds);
    printf("%-8s %10s %8s  plan\n", "tile", "GB/s", "of copy");
    for (int i = 0; i < ntiles; i++)
        printf("%lldx%-6lld %10.2f %7.0f%%  %s\n", (long long)o[i].tile_rows,
               (long long)o[i].tile_cols, median(bw[i], rounds), 100 * median(frac[i], rounds),
               desc[i]);
    rc = 0;
out:
    if (rc) fprintf(stderr, "bench_tile_avg: %s\n", err.msg);
    tdcl_matrix_free(&in);
    tdcl_ctx_close(ctx);
    return rc;
}
