/* Device-to-device copy: the memory-bandwidth ceiling that bench compares
 * copy-like operations with, and the smallest real kernel for runtime
 * tests; and a read-mostly sum, the ceiling of operations that read far
 * more than they write (tile-avg).
 *
 * copy_f32: one work-item copies VEC consecutive floats per step of a
 * grid-stride loop, so any global size covers any n. read_f32: the same
 * loop adds the vectors instead, and each work-item writes one partial sum,
 * so a launch of n / (R * VEC) work-items reads n floats and writes n / (R *
 * VEC), R vectors each. No local memory, no barriers. */
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

/* Work-item g sums, lane by lane, either (chunk 0) the vectors g, g + G, g
 * + 2G, ... (G the global size: neighbours read neighbouring vectors,
 * coalesced on a GPU) or (chunk > 0) the chunk vectors from g * chunk (one
 * contiguous run per work-item, which suits a CPU running work-items one
 * after the other); then adds the lanes in order and its part of the tail
 * (elements nvec * VEC + g, + G, ...), and writes that partial sum: the host
 * recomputes every one of them. */
#if VEC == 1
#define LOAD(i) src[i]
#else
#define LOAD(i) VLOAD(i, src)
#endif

__kernel void read_f32(__global const float *restrict src, __global float *restrict part,
                       const ulong n, const uint chunk)
{
    const ulong nvec = n / VEC;
    const ulong stride = get_global_size(0), g = get_global_id(0);
    const ulong first = chunk ? g * chunk : g, step = chunk ? 1 : stride;
    const ulong end = chunk ? min(first + chunk, nvec) : nvec;
    /* four sums in turn: four add chains, not one, so the adds' latency
     * does not bound a CPU's reading */
    vec_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    ulong i = first;
    for (; i + 3 * step < end; i += 4 * step) {
        a0 += LOAD(i);
        a1 += LOAD(i + step);
        a2 += LOAD(i + 2 * step);
        a3 += LOAD(i + 3 * step);
    }
    for (; i < end; i += step)
        a0 += LOAD(i);
    const vec_t acc = (a0 + a1) + (a2 + a3);
#if VEC == 1
    float s = acc;
#else
    float s = 0;
    for (int l = 0; l < VEC; l++)
        s += ((const float *)&acc)[l];
#endif
    for (ulong i = nvec * VEC + g; i < n; i += stride)
        s += src[i];
    part[g] = s;
}
