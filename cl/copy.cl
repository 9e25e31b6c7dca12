/* Device-to-device copy: the memory-bandwidth ceiling that bench compares
 * every operation with, and the smallest real kernel for runtime tests.
 *
 * One work-item copies VEC consecutive floats per step of a grid-stride
 * loop, so any global size covers any n. No local memory, no barriers. */
#ifndef VEC
#define VEC 4
#endif

#if VEC == 4
typedef float4 vec_t;
#define VLOAD vload4
#define VSTORE vstore4
#elif VEC == 8
typedef float8 vec_t;
#define VLOAD vload8
#define VSTORE vstore8
#else
typedef float vec_t;
#endif

__kernel void copy_f32(__global const float *restrict src, __global float *restrict dst,
                       const ulong n)
{
    const ulong nvec = n / VEC;
    const ulong stride = get_global_size(0);
    for (ulong i = get_global_id(0); i < nvec; i += stride) {
#if VEC == 1
        dst[i] = src[i];
#else
        VSTORE(VLOAD(i, src), i, dst);
#endif
    }
    /* the tail that does not fill a vector */
    for (ulong i = nvec * VEC + get_global_id(0); i < n; i += stride)
        dst[i] = src[i];
}
