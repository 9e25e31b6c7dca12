/* The mma.sync ceiling of the tensor-core matmul path: runs
 * matmul_tc_peak from cl/matmul/tc.cl, where each warp issues only
 * independent m16n8k8 tf32 mma on register fragments, with W work-groups
 * of 128 work-items (4 warps) per compute unit, and prints the median
 * device time of REPS runs after a warm-up and the TFLOP/s. The figure the
 * matmul kernels are measured against (docs/internals/tensor-cores.md).
 *
 *   bench_tc_peak [-r REPS] [-i ITERS] W...      (default: 1 2 4 8)
 *
 * Needs the tensor-core path (an NVIDIA device of compute capability 8.0
 * or later); TILEDCL_TC_EMULATE=1 runs it anywhere, slowly. A benchmark,
 * not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ops/matmul/mm_prog.h"
#include "runtime/clrt.h"
#include "ops/matmul/matmul_tc.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int reps = 7, iters = 16384, c, rc = 1;
    while ((c = getopt(argc, argv, "r:i:")) != -1) {
        if (c == 'r')
            reps = atoi(optarg) > 0 ? atoi(optarg) : 1;
        else if (c == 'i')
            iters = atoi(optarg) > 0 ? atoi(optarg) : 1;
        else {
            fprintf(stderr, "usage: bench_tc_peak [-r REPS] [-i ITERS] W...\n");
            return 2;
        }
    }
    tdcl_ctx *ctx = NULL;
    tdcl_err e = {0};
    cl_program prog = NULL;
    cl_kernel k = NULL;
    cl_mem d = NULL, x = NULL;
    double *ms = calloc((size_t)reps, sizeof *ms);
    char why[128];
    /* the variable is this program's: the library reads none */
    const char *env = getenv("TILEDCL_TC_EMULATE");
    int emu = env && env[0] == '1';
    if (!ms || tdcl_ctx_open(NULL, &ctx, &e)) goto out;
    if (!emu && !tdcl_mm_tc_available(ctx, why, sizeof why)) {
        fprintf(stderr, "bench_tc_peak: no tensor-core path on '%s': %s\n", ctx->dev.device_name,
                why);
        goto out;
    }
    if (tdcl_mm_prog_build(ctx, TDCL_MM_PROG_TC, emu ? "-DPREC=1 -DTC_EMULATE=1" : "-DPREC=1",
                           &prog, &e) ||
        tdcl_ctx_kernel(prog, "matmul_tc_peak", &k, &e))
        goto out;
    float xs[64];
    for (int i = 0; i < 64; i++)
        xs[i] = 1.0f + (float)i / 64.0f;
    cl_int err;
    size_t cu = ctx->dev.compute_units, most = cu * 128 * 64;
    x = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof xs, xs, &err);
    if (err == CL_SUCCESS)
        d = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, most * sizeof(float), NULL, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "bench_tc_peak: clCreateBuffer: %d\n", err);
        goto out;
    }
    clSetKernelArg(k, 0, sizeof d, &d);
    clSetKernelArg(k, 1, sizeof x, &x);
    clSetKernelArg(k, 2, sizeof iters, &iters);
    printf("device: %s, %zu compute units\n", ctx->dev.device_name, cu);
    int nw = argc - optind;
    static const char *const dflt[] = {"1", "2", "4", "8"};
    for (int a = 0; a < (nw ? nw : 4); a++) {
        int w = atoi(nw ? argv[optind + a] : dflt[a]);
        if (w < 1 || w > 64) continue;
        size_t l = 128, g = cu * (size_t)w * l;
        for (int r = -1; r < reps; r++) {
            cl_event ev = NULL;
            err = clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &g, &l, 0, NULL, &ev);
            if (err != CL_SUCCESS || clWaitForEvents(1, &ev) != CL_SUCCESS) {
                fprintf(stderr, "bench_tc_peak: kernel failed: %d\n", err);
                if (ev) clReleaseEvent(ev);
                goto out;
            }
            if (r >= 0) ms[r] = tdcl_event_ms(ev);
            clReleaseEvent(ev);
        }
        qsort(ms, (size_t)reps, sizeof *ms, cmp_double);
        double flop = (double)(g / 32) * iters * 8 * 2.0 * 16 * 8 * 8;
        printf("peak mma.sync m16n8k8 tf32: %d work-groups (%d warps) per compute unit: median "
               "%.3f ms, %.1f TFLOP/s\n",
               w, 4 * w, ms[reps / 2], flop / ms[reps / 2] / 1e9);
    }
    rc = 0;
out:
    if (rc && e.msg[0]) fprintf(stderr, "bench_tc_peak: %s\n", e.msg);
    if (k) clReleaseKernel(k);
    if (prog) clReleaseProgram(prog);
    if (d) clReleaseMemObject(d);
    if (x) clReleaseMemObject(x);
    tdcl_ctx_close(ctx);
    free(ms);
    return rc;
}
