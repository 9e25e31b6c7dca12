/* Arithmetic peak: the measured FLOP/s ceiling that bench compares matmul
 * with (beside the specification's peak where tiledcl knows it).
 *
 * Each work-item runs 8 independent chains of 4-wide multiply-adds ITERS
 * times in registers (independent chains hide the latency of each
 * multiply-add) and writes one sum so the compiler cannot drop the work.
 * Work per item: ITERS * 8 chains * 4 lanes * 2 FLOP = 64 * ITERS. Any
 * 1-D work-group shape; no local memory, no barriers. */
#ifndef REAL
#define REAL float
#endif
#ifndef ITERS
#define ITERS 1024
#endif

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifndef VW
#define VW 4
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
typedef CAT(REAL, VW) realv;

__kernel void peak_fma(__global REAL *out, const REAL a, const REAL b)
{
    const REAL g = (REAL)get_global_id(0) * (REAL)1e-7f;
    realv x0 = g, x1 = g + (REAL)0.1f, x2 = g + (REAL)0.2f, x3 = g + (REAL)0.3f;
    realv x4 = g + (REAL)0.4f, x5 = g + (REAL)0.5f, x6 = g + (REAL)0.6f, x7 = g + (REAL)0.7f;
    const realv va = a, vb = b;
    /* x <- a*x + b with |a| < 1 converges to b/(1-a): no overflow, no
     * denormals, whatever ITERS is */
    for (int i = 0; i < ITERS; i++) {
        x0 = mad(x0, va, vb);
        x1 = mad(x1, va, vb);
        x2 = mad(x2, va, vb);
        x3 = mad(x3, va, vb);
        x4 = mad(x4, va, vb);
        x5 = mad(x5, va, vb);
        x6 = mad(x6, va, vb);
        x7 = mad(x7, va, vb);
    }
    realv s = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
    REAL t = 0;
    for (int l = 0; l < VW; l++)
        t += ((REAL *)&s)[l];
    out[get_global_id(0)] = t;
}
