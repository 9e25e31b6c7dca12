/* Times C = A*B through the plan API on the default device: for each size
 * N given (square) or MxKxN, one warm-up run, then REPS timed runs; prints
 * the median and best device time (profiling events, packing included)
 * with GFLOP/s, the median host time around execute, the GFLOP per
 * CPU-second of the whole process (PoCL's worker threads included: the
 * stable figure on a shared machine; an idle one reaches at most that
 * times its cores), and checks 64 random elements of C against double dot
 * products.
 *
 *   bench_matmul [-r REPS] [-k auto|tiled|cpu|gpu] [-p MR,NV,VW,KC] [-g BM,BN,BK]
 *                [-P fp32|tf32|3xtf32|auto] [-t BM,BN,BK,WM,WN] [-c] SIZE...
 *
 * -P picks the precision (tensor cores on NVIDIA), -t the tensor-core
 * tiles, and -c adds the relative Frobenius error of the whole C against
 * the double host product (tdcl_mm_check_product; slow for large sizes).
 *
 * A benchmark, not a test: meson registers it with benchmark(). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "runtime/clrt.h"
#include "base/log.h"
#include "ops/matmul/matmul.h"
#include "ops/matmul/matmul_lab.h"
#include "ops/matmul/matmul_tc.h"
#include "base/clock.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0 * 2 - 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Largest relative error over 64 sampled elements. */
static double spot_check(const tdcl_matrix *a, const tdcl_matrix *b, const tdcl_matrix *c)
{
    const float *A = a->data, *B = b->data, *C = c->data;
    double worst = 0;
    for (int s = 0; s < 64; s++) {
        int64_t i = (int64_t)((uniform() + 1) / 2 * (double)a->rows) % a->rows;
        int64_t j = (int64_t)((uniform() + 1) / 2 * (double)b->cols) % b->cols;
        double ref = 0, mag = 0;
        for (int64_t k = 0; k < a->cols; k++) {
            ref += (double)A[i * a->cols + k] * B[k * b->cols + j];
            mag += fabs((double)A[i * a->cols + k] * B[k * b->cols + j]);
        }
        double e = fabs(C[i * b->cols + j] - ref) / (mag > 0 ? mag : 1);
        worst = e > worst ? e : worst;
    }
    return worst;
}

static int full_check;

/* The 1-minute load average, to say how shared the machine was. */
static double load_average(void)
{
    double l[1] = {0};
    return getloadavg(l, 1) == 1 ? l[0] : -1;
}

/* CPU time of the process (every thread), in seconds. */
static double cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + (double)u.ru_stime.tv_sec +
           ((double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_usec) / 1e6;
}

static int bench_one(tdcl_ctx *ctx, const tdcl_mm_opts *o, int64_t M, int64_t K, int64_t N,
                     int reps)
{
    tdcl_matrix a = {0}, b = {0}, c = {0};
    tdcl_mm_plan *p = NULL;
    tdcl_err e = {0};
    double *dev = calloc((size_t)reps, sizeof *dev), *host = calloc((size_t)reps, sizeof *host);
    int rc = 1;
    if (!dev || !host || tdcl_matrix_alloc(&a, M, K, 1, TDCL_F32, &e) ||
        tdcl_matrix_alloc(&b, K, N, 1, TDCL_F32, &e))
        goto out;
    for (size_t i = 0; i < tdcl_matrix_count(&a); i++)
        ((float *)a.data)[i] = (float)uniform();
    for (size_t i = 0; i < tdcl_matrix_count(&b); i++)
        ((float *)b.data)[i] = (float)uniform();
    double t0 = tdcl_now_ms();
    if (tdcl_mm_plan_create(ctx, o, &a, &b, &p, &e) || tdcl_mm_plan_execute(p, NULL, &e)) goto out;
    double setup = tdcl_now_ms() - t0;
    double cpu0 = cpu_seconds();
    for (int r = 0; r < reps; r++) {
        double h0 = tdcl_now_ms();
        if (tdcl_mm_plan_execute(p, &dev[r], &e)) goto out;
        host[r] = tdcl_now_ms() - h0;
    }
    double cpu = cpu_seconds() - cpu0;
    if (tdcl_mm_plan_result(p, &c, &e)) goto out;
    qsort(dev, (size_t)reps, sizeof *dev, cmp_double);
    qsort(host, (size_t)reps, sizeof *host, cmp_double);
    double flop = 2.0 * (double)M * (double)N * (double)K;
    printf("%6lldx%lldx%lld  device median %9.3f ms (%7.1f GFLOP/s)  best %9.3f ms (%7.1f)  "
           "host median %9.3f ms  setup+warm-up %.0f ms  spot error %.1e  [%s]\n",
           (long long)M, (long long)K, (long long)N, dev[reps / 2], flop / dev[reps / 2] / 1e6,
           dev[0], flop / dev[0] / 1e6, host[reps / 2], setup, spot_check(&a, &b, &c),
           tdcl_mm_plan_describe(p));
    printf("        %.1f GFLOP per CPU-second over %d runs (%.1f CPU-s; load %.2f)\n",
           flop * reps / cpu / 1e9, reps, cpu, load_average());
    if (full_check) {
        tdcl_mm_check chk;
        if (tdcl_mm_check_product(&a, &b, &c, &chk, &e)) goto out;
        printf("        relative Frobenius error vs double %.3e (fp32 bound %.3e)\n", chk.rel_err,
               chk.bound);
    }
    fflush(stdout);
    rc = 0;
out:
    if (rc) fprintf(stderr, "bench_matmul: %s\n", e.msg);
    tdcl_mm_plan_destroy(p);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&c);
    free(dev);
    free(host);
    return rc;
}

static void log_stderr(tdcl_log_level level, const char *msg, void *user)
{
    (void)level;
    (void)user;
    fprintf(stderr, "bench_matmul: %s\n", msg);
}

int main(int argc, char **argv)
{
    /* the tensor-core kernels' tuning aids (-DWGMMA=1, -DWG_BN=..., see
     * docs/internals/tensor-cores.md); the library reads no environment for them */
    tdcl_mm_lab lab;
    tdcl_mm_opts o = {.lab = &lab};
    int reps = 7, c;
    tdcl_err e = {0};
    if (tdcl_mm_lab_parse(getenv("TILEDCL_TC_OPTIONS"), &lab, &e)) {
        fprintf(stderr, "bench_matmul: %s\n", e.msg);
        return 2;
    }
    while ((c = getopt(argc, argv, "r:k:p:g:P:t:cv")) != -1) {
        switch (c) {
        case 'r':
            reps = atoi(optarg) > 0 ? atoi(optarg) : 1;
            break;
        case 'k':
            if (tdcl_mm_kernel_parse(optarg, &o.kernel, &e)) {
                fprintf(stderr, "bench_matmul: %s\n", e.msg);
                return 2;
            }
            break;
        case 'p':
            sscanf(optarg, "%d,%d,%d,%d", &o.par.mr, &o.par.nv, &o.par.vw, &o.par.kc);
            break;
        case 'g':
            sscanf(optarg, "%d,%d,%d", &o.par.bm, &o.par.bn, &o.par.bk);
            break;
        case 'P':
            if (tdcl_mm_precision_parse(optarg, &o.precision, &e)) {
                fprintf(stderr, "bench_matmul: %s\n", e.msg);
                return 2;
            }
            break;
        case 't':
            sscanf(optarg, "%d,%d,%d,%d,%d", &lab.bm, &lab.bn, &lab.bk, &lab.wm, &lab.wn);
            break;
        case 'c':
            full_check = 1;
            break;
        case 'v':
            tdcl_log_set(log_stderr, NULL, TDCL_LOG_VERBOSE);
            break;
        default:
            fprintf(stderr, "usage: bench_matmul [-r REPS] [-k KERNEL] [-p MR,NV,VW,KC] "
                            "[-g BM,BN,BK] [-P PREC] [-t BM,BN,BK,WM,WN] [-c] [-v] N|MxKxN...\n");
            return 2;
        }
    }
    tdcl_ctx *ctx = NULL;
    if (tdcl_ctx_open(NULL, &ctx, &e)) {
        fprintf(stderr, "bench_matmul: %s\n", e.msg);
        return 3;
    }
    printf("device: %s (%s), driver %s\n", ctx->dev.device_name, ctx->dev.platform_name,
           ctx->dev.driver_version);
    int rc = 0;
    for (int i = optind; i < argc; i++) {
        long long m, k, n;
        if (sscanf(argv[i], "%lldx%lldx%lld", &m, &k, &n) != 3) m = k = n = atoll(argv[i]);
        if (m < 1 || k < 1 || n < 1) {
            fprintf(stderr, "bench_matmul: bad size '%s'\n", argv[i]);
            rc = 2;
            continue;
        }
        rc |= bench_one(ctx, &o, m, k, n, reps);
    }
    tdcl_ctx_close(ctx);
    return rc;
}
