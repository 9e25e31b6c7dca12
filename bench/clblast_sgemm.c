/* CLBlast's SGEMM timed the way `tiledcl bench matmul` times its own, for
 * the per-size comparison in docs/PERFORMANCE.md. Not built by meson
 * (CLBlast is not a dependency of tiledcl); on a machine with Debian's
 * libclblast-dev:
 *
 *   cc -O2 -o clblast_sgemm bench/clblast_sgemm.c -lclblast -lOpenCL
 *   ./clblast_sgemm [-d gpu|cpu] [-r REPS] N | MxKxN ...
 *
 * For each size: random row-major float32 A (MxK) and B (KxN) uploaded
 * once, two warm-up calls (the first compiles CLBlast's kernels), then
 * REPS timed calls of CLBlastSgemm (C = A*B, no transposes). Prints the
 * median of the device time of the event CLBlast returns (its last
 * kernel; CLBlast may run padding or transposing kernels before it) and
 * the median host time of enqueue + clFinish, each as GFLOP/s. */
#define CL_TARGET_OPENCL_VERSION 120
#include <clblast_c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static cl_mem upload(cl_context ctx, cl_command_queue q, size_t n, unsigned seed)
{
    float *h = malloc(n * sizeof *h);
    srand(seed);
    for (size_t i = 0; i < n; i++)
        h[i] = (float)rand() / (float)RAND_MAX * 2 - 1;
    cl_int rc;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof *h, NULL, &rc);
    if (rc == CL_SUCCESS) clEnqueueWriteBuffer(q, m, CL_TRUE, 0, n * sizeof *h, h, 0, NULL, NULL);
    free(h);
    return rc == CL_SUCCESS ? m : NULL;
}

static void run(cl_context ctx, cl_command_queue q, size_t M, size_t K, size_t N, int reps)
{
    cl_mem a = upload(ctx, q, M * K, 1), b = upload(ctx, q, K * N, 2), c = upload(ctx, q, M * N, 3);
    double dev[64], host[64];
    int ok = a && b && c;
    for (int r = -2; ok && r < reps; r++) {
        cl_event ev = NULL;
        double t0 = now_ms();
        CLBlastStatusCode s =
            CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, M, N, K,
                         1.0f, a, 0, K, b, 0, N, 0.0f, c, 0, N, &q, &ev);
        clFinish(q);
        double t1 = now_ms();
        if (s != CLBlastSuccess) {
            printf("clblast %zux%zux%zu: status %d\n", M, K, N, (int)s);
            ok = 0;
            break;
        }
        cl_ulong st = 0, en = 0;
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof st, &st, NULL);
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof en, &en, NULL);
        clReleaseEvent(ev);
        if (r >= 0) dev[r] = (double)(en - st) / 1e6, host[r] = t1 - t0;
    }
    if (ok) {
        double fl = 2.0 * (double)M * (double)K * (double)N, d = median(dev, reps),
               h = median(host, reps);
        printf("clblast %zux%zux%zu: device %.4f ms %.1f GFLOP/s, host %.4f ms %.1f GFLOP/s\n", M,
               K, N, d, fl / d / 1e6, h, fl / h / 1e6);
    }
    fflush(stdout);
    if (a) clReleaseMemObject(a);
    if (b) clReleaseMemObject(b);
    if (c) clReleaseMemObject(c);
}

int main(int argc, char **argv)
{
    cl_device_type type = CL_DEVICE_TYPE_GPU;
    int reps = 10, i = 1;
    for (; i < argc && argv[i][0] == '-'; i += 2) {
        if (i + 1 >= argc) return 2;
        if (strcmp(argv[i], "-d") == 0)
            type = strcmp(argv[i + 1], "cpu") == 0 ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU;
        else if (strcmp(argv[i], "-r") == 0)
            reps = atoi(argv[i + 1]);
    }
    reps = reps < 1 ? 1 : reps > 64 ? 64 : reps;
    cl_platform_id plats[8];
    cl_uint np = 0;
    cl_device_id dev = NULL;
    clGetPlatformIDs(8, plats, &np);
    for (cl_uint p = 0; p < np && !dev; p++)
        if (clGetDeviceIDs(plats[p], type, 1, &dev, NULL) != CL_SUCCESS) dev = NULL;
    if (!dev) {
        fprintf(stderr, "clblast_sgemm: no device\n");
        return 3;
    }
    char name[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    printf("clblast device: %s\n", name);
    cl_int rc;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &rc);
    for (; i < argc; i++) {
        size_t M, K, N;
        if (sscanf(argv[i], "%zux%zux%zu", &M, &K, &N) != 3) {
            M = K = N = (size_t)atol(argv[i]);
        }
        if (M && K && N) run(ctx, q, M, K, N, reps);
    }
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
