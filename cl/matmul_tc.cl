/* C = A*B in float32 on NVIDIA tensor cores (sm_80 and later) through
 * inline PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32. Only
 * NVIDIA's OpenCL compiler accepts the asm statements; the host runs this
 * file only after detecting such a device (src/core/matmul_tc.c).
 *
 * Precision (PREC): 1 = tf32: each input is rounded to TF32 (10 mantissa
 * bits, cvt.rna) and the products accumulate in float32; relative error
 * about 1e-3. 3 = 3xtf32: each x is split into big = tf32(x) and
 * small = tf32(x - big) and the kernel accumulates small*big + big*small +
 * big*big in float32 (the small*small term, below 2^-22 relative, is
 * dropped): float32-level accuracy at a third of the tensor-core rate.
 *
 * Fragment layouts of m16n8k8 (PTX ISA, "Matrix Fragments for mma.m16n8k8"
 * with .tf32), for lane l of the warp, g = l / 4 and t = l % 4:
 *   A (16x8, row-major), 4 registers: a0 = A[g][t], a1 = A[g+8][t],
 *                                     a2 = A[g][t+4], a3 = A[g+8][t+4]
 *   B (8x8, "col"), 2 registers:      b0 = B[t][g], b1 = B[t+4][g]
 *   C, D (16x8, float), 4 registers:  c0 = C[g][2t], c1 = C[g][2t+1],
 *                                     c2 = C[g+8][2t], c3 = C[g+8][2t+1]
 *
 * Work-group: 1-D, NT = 32 * (BM/WM) * (BN/WN) work-items (NVIDIA forms warps
 * from consecutive local ids). It owns the BM x BN tile of C at
 * (group(1)*BM, group(0)*BN); warp w owns the WM x WN sub-tile at warp row
 * w / (BN/WN), warp column w % (BN/WN), as (WM/16) x (WN/8) mma tiles whose
 * accumulators stay in registers: each work-item holds 4 * (WM/16) * (WN/8)
 * floats of C, in the C layout above.
 *
 * K is walked in slabs of BK. The slabs of A (BM x BK) and B (BK x BN) are
 * staged in local memory, double buffered: while the warps compute from one
 * buffer, the next slab is read from global memory into registers and then
 * stored into the other buffer; one barrier per slab then publishes it (and
 * at the same time guarantees every warp is done reading the buffer that
 * the following slab will overwrite). tf32 rounds each input (cvt.rna)
 * once, as it is stored to local memory; 3xtf32 stores raw floats and
 * splits them on the fragment loads.
 *
 * Local layouts, for vector fragment loads free of bank conflicts (32-bit
 * registers cannot use ldmatrix):
 *   A: row-major, row stride SA = 8 (mod 16) floats (BK + 8, or BK when
 *      BK = 8 mod 16); within each aligned group of 8 columns, k = t sits at
 *      2t and k = t + 4 at 2t + 1 (kpos), so a0/a2 and a1/a3 are float2
 *      loads. A half-warp reads rows g = 0..3 at 2t: banks g*SA + 2t + {0,1}
 *      with g*SA = 0, 24, 16, 8 (mod 32): all distinct.
 *   B: k-major, row stride SB = BN + 8; within each warp's WN columns,
 *      column j*8 + g sits at g*NTL + j (npos), so the b0 (row t) of four
 *      tiles are one float4. A quarter-warp (g = 0..1, t = 0..3) reads
 *      banks 8t + 4g + 0..3 for NTL = 4: distinct (NTL = 8: two-way).
 * 3xtf32 sums the three products of each k8 step from zero and adds that
 * partial to the accumulator with a rounded float add: the tensor cores
 * add with truncation, which on a long running sum grows linearly with K.
 *
 * Edges: slab loads outside A or B read zeros, so any M, N, K work; stores
 * of C are guarded. VEC_ALIGNED = 1 (K and N multiples of 4) loads float4. */

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef WM
#define WM 64
#endif
#ifndef WN
#define WN 32
#endif
#ifndef PREC
#define PREC 3
#endif
#ifndef VEC_ALIGNED
#define VEC_ALIGNED 0
#endif
#ifndef IDX
#define IDX int
#endif

#define NWARP ((BM / WM) * (BN / WN))
#define NT (32 * NWARP)
#define MT (WM / 16)
#define NTL (WN / 8)
/* A row stride = 8 (mod 16) floats: see the bank note above */
#define SA (BK % 16 == 8 ? BK : BK + 8)
#define SB (BN + 8)
#define A_VEC (BM * BK / 4 / NT) /* float4s of the A slab per work-item */
#define B_VEC (BK * BN / 4 / NT)

#if (BM * BK) % (4 * NT) || (BK * BN) % (4 * NT) || BK % 8 || WM % 16 || WN % 32
#error "matmul_tc.cl: BM*BK and BK*BN must split into float4s per work-item, BK % 8 == 0, WN % 32 == 0"
#endif

static inline uint tf32_round(float x)
{
    uint r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

#ifndef MMA_VOLATILE
#define MMA_VOLATILE 0
#endif
#if MMA_VOLATILE
#define MMA_ASM asm volatile
#else
#define MMA_ASM asm /* not volatile: the compiler may schedule it like any op */
#endif

/* d += a * b on one m16n8k8 tile. */
#define MMA(d, a, b)                                                                               \
    MMA_ASM("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "            \
                 "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                                      \
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                                  \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(d[0]),   \
                   "f"(d[1]), "f"(d[2]), "f"(d[3]))

/* Reads the A slab (rows m0.., columns k0..) and the B slab into registers,
 * zeros outside the matrices. */
static inline void load_slab(const __global float *A, const __global float *B, int M, int N,
                             int K, int m0, int n0, int k0, int lid, float4 ra[A_VEC],
                             float4 rb[B_VEC])
{
#pragma unroll
    for (int i = 0; i < A_VEC; i++) {
        int idx = lid + i * NT;
        int r = idx / (BK / 4), c = (idx % (BK / 4)) * 4;
        int gr = m0 + r, gc = k0 + c;
        const __global float *src = A + (IDX)gr * K + gc;
#if VEC_ALIGNED
        ra[i] = gr < M && gc < K ? vload4(0, src) : (float4)(0.0f);
#else
        ra[i] = (float4)(gr < M && gc < K ? src[0] : 0.0f, gr < M && gc + 1 < K ? src[1] : 0.0f,
                         gr < M && gc + 2 < K ? src[2] : 0.0f,
                         gr < M && gc + 3 < K ? src[3] : 0.0f);
#endif
    }
#pragma unroll
    for (int i = 0; i < B_VEC; i++) {
        int idx = lid + i * NT;
        int r = idx / (BN / 4), c = (idx % (BN / 4)) * 4;
        int gr = k0 + r, gc = n0 + c;
        const __global float *src = B + (IDX)gr * N + gc;
#if VEC_ALIGNED
        rb[i] = gr < K && gc < N ? vload4(0, src) : (float4)(0.0f);
#else
        rb[i] = (float4)(gr < K && gc < N ? src[0] : 0.0f, gr < K && gc + 1 < N ? src[1] : 0.0f,
                         gr < K && gc + 2 < N ? src[2] : 0.0f,
                         gr < K && gc + 3 < N ? src[3] : 0.0f);
#endif
    }
}

/* Position of k inside its row of the A slab: within each aligned group
 * of 8, k = t goes to 2t and k = t + 4 to 2t + 1, so a0 and a2 (and a1 and
 * a3) of a fragment are adjacent and load as one float2. */
static inline int kpos(int k)
{
    return (k & ~7) | ((k & 3) << 1) | ((k >> 2) & 1);
}

/* Position of column n inside its row of the B slab: within the WN
 * columns of a warp, column j * 8 + g goes to g * NTL + j, so the b0 of all
 * NTL tiles of a work-item are adjacent and load as float4s. */
static inline int npos(int n)
{
    int w = n / WN, j = (n % WN) / 8, g = n % 8;
    return w * WN + g * NTL + j;
}

/* TF32 rounding once per element as it enters local memory (tf32 only;
 * 3xtf32 needs the raw value to split it on the fragment load). */
static inline float stage(float x)
{
#if PREC == 1
    return as_float(tf32_round(x));
#else
    return x;
#endif
}

static inline void store_slab(__local float *as, __local float *bs, int lid,
                              const float4 ra[A_VEC], const float4 rb[B_VEC])
{
#pragma unroll
    for (int i = 0; i < A_VEC; i++) {
        int idx = lid + i * NT;
        __local float *row = as + (idx / (BK / 4)) * SA;
        int c = (idx % (BK / 4)) * 4;
        row[kpos(c)] = stage(ra[i].x);
        row[kpos(c + 1)] = stage(ra[i].y);
        row[kpos(c + 2)] = stage(ra[i].z);
        row[kpos(c + 3)] = stage(ra[i].w);
    }
#pragma unroll
    for (int i = 0; i < B_VEC; i++) {
        int idx = lid + i * NT;
        __local float *row = bs + (idx / (BN / 4)) * SB;
        int c = (idx % (BN / 4)) * 4;
        row[npos(c)] = stage(rb[i].x);
        row[npos(c + 1)] = stage(rb[i].y);
        row[npos(c + 2)] = stage(rb[i].z);
        row[npos(c + 3)] = stage(rb[i].w);
    }
}

/* The TF32 operand of x (tf32: already rounded in local memory) and, for
 * 3xtf32, the TF32 rounding of the remainder. */
static inline void split(float x, uint *big, uint *small)
{
#if PREC == 1
    *big = as_uint(x);
    (void)small;
#else
    *big = tf32_round(x);
    *small = tf32_round(x - as_float(*big));
#endif
}

/* All mma tiles of the warp over one slab in local memory. */
static inline void compute_slab(const __local float *as, const __local float *bs, int wm0,
                                int wn0, int g, int t, float acc[MT][NTL][4])
{
#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
        uint ab[MT][4], bb[NTL][2], as_[MT][4], bs_[NTL][2];
#pragma unroll
        for (int i = 0; i < MT; i++) {
            const __local float *p = as + (wm0 + i * 16 + g) * SA + kk + 2 * t;
            float2 lo = *(const __local float2 *)p, hi = *(const __local float2 *)(p + 8 * SA);
            split(lo.x, &ab[i][0], &as_[i][0]);
            split(hi.x, &ab[i][1], &as_[i][1]);
            split(lo.y, &ab[i][2], &as_[i][2]);
            split(hi.y, &ab[i][3], &as_[i][3]);
        }
#pragma unroll
        for (int q = 0; q < NTL / 4; q++) {
            const __local float *p = bs + (kk + t) * SB + wn0 + g * NTL + 4 * q;
            float4 r0 = *(const __local float4 *)p, r1 = *(const __local float4 *)(p + 4 * SB);
            float x0[4] = {r0.x, r0.y, r0.z, r0.w}, x1[4] = {r1.x, r1.y, r1.z, r1.w};
#pragma unroll
            for (int j = 0; j < 4; j++) {
                split(x0[j], &bb[4 * q + j][0], &bs_[4 * q + j][0]);
                split(x1[j], &bb[4 * q + j][1], &bs_[4 * q + j][1]);
            }
        }
#pragma unroll
        for (int i = 0; i < MT; i++)
#pragma unroll
            for (int j = 0; j < NTL; j++) {
#if PREC == 3
                /* The tensor cores add into the accumulator with truncation;
                 * added into a large running sum that bias grows linearly
                 * with K (3xtf32 measured 25x the fp32 path's error at
                 * K = 4096). Summing each k8 step from zero and adding the
                 * partial with a rounded float add keeps float32 accuracy. */
                float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                MMA(part, as_[i], bb[j]);
                MMA(part, ab[i], bs_[j]);
                MMA(part, ab[i], bb[j]);
#pragma unroll
                for (int r = 0; r < 4; r++)
                    acc[i][j][r] += part[r];
#else
                MMA(acc[i][j], ab[i], bb[j]);
#endif
            }
    }
}

static inline void store_c(__global float *C, int M, int N, int m0, int n0, int g, int t,
                           float acc[MT][NTL][4])
{
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int r = m0 + i * 16 + g + 8 * h, c = n0 + j * 8 + 2 * t;
                if (r >= M) continue;
                __global float *dst = C + (IDX)r * N + c;
                if (c < N) dst[0] = acc[i][j][2 * h];
                if (c + 1 < N) dst[1] = acc[i][j][2 * h + 1];
            }
}

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void
matmul_tc(int M, int N, int K, const __global float *restrict A, const __global float *restrict B,
          __global float *restrict C)
{
    __local float as[2][BM * SA] __attribute__((aligned(16)));
    __local float bs[2][BK * SB] __attribute__((aligned(16)));
    int lid = (int)get_local_id(0), lane = lid % 32, warp = lid / 32;
    int g = lane / 4, t = lane % 4;
    int m0 = (int)get_group_id(1) * BM, n0 = (int)get_group_id(0) * BN;
    int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;
    float acc[MT][NTL][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NTL; j++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                acc[i][j][r] = 0.0f;
    float4 ra[A_VEC], rb[B_VEC];
    int nslab = (K + BK - 1) / BK;
    load_slab(A, B, M, N, K, m0, n0, 0, lid, ra, rb);
    store_slab(as[0], bs[0], lid, ra, rb);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 0; s < nslab; s++) {
        int cur = s & 1;
        if (s + 1 < nslab) load_slab(A, B, M, N, K, m0, n0, (s + 1) * BK, lid, ra, rb);
        compute_slab(as[cur], bs[cur], wm0, wn0, g, t, acc);
        if (s + 1 < nslab) store_slab(as[cur ^ 1], bs[cur ^ 1], lid, ra, rb);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    store_c(C, M, N, m0 + wm0, n0 + wn0, g, t, acc);
}

/* The probe: the smallest use of both PTX instructions, built once per
 * context to learn whether the compiler accepts them. */
__kernel void matmul_tc_probe(__global float *d, const __global float *x)
{
    uint a[4], b[2];
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int r = 0; r < 4; r++)
        a[r] = tf32_round(x[r]);
    b[0] = tf32_round(x[4]);
    b[1] = tf32_round(x[5]);
    MMA(c, a, b);
    for (int r = 0; r < 4; r++)
        d[get_global_id(0) * 4 + r] = c[r];
}
