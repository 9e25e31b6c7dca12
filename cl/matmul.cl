/* Dense matrix product C = A*B: A is M x K, B is K x N, C is M x N, all
 * row-major with leading dimensions lda, ldb, ldc (elements). The host
 * builds one of three shapes of kernel with -DVARIANT:
 *
 *   1  mm_tiled: the textbook local-memory tile, for any device, type and
 *      shape (the default for small and odd products);
 *   2  mm_pack_a, mm_pack_b, mm_cpu: register blocks with no local memory
 *      and no barriers, for CPUs (PoCL, Intel, ...);
 *   3  mm_gpu: a 128x128 work-group tile of 8x8 register blocks over
 *      double-buffered local K slabs, for GPUs.
 *
 * Shared tunables: REAL is the element type (float; double with
 * -DREAL_FP64=1; long with -DREAL_INT=1, where sums wrap modulo 2^64 like
 * the host reference); IDX is the index type (int when the host knows every
 * buffer has fewer than 2^31 elements, else long).
 *
 * Every kernel writes C = A*B, or C += A*B when `accumulate` is non-zero:
 * the host splits K into passes (cache blocking) or panels (buffers larger
 * than the device allows) and accumulates into the same C. Loads outside A
 * and B read zeros and stores outside C are skipped, so any M, N, K >= 1
 * works without padding copies (the CPU shape pads inside its packed
 * buffers instead). */

#ifndef VARIANT
#define VARIANT 1
#endif
#ifndef IDX
#define IDX long
#endif
#ifndef REAL_FP64
#define REAL_FP64 0
#endif
#ifndef REAL_INT
#define REAL_INT 0
#endif

#if REAL_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define REAL double
#elif REAL_INT
#define REAL long
#else
#define REAL float
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* a * b + c: one rounding for floats (FMA), wrapping for integers. */
#if REAL_INT
#define MADD(a, b, c) ((a) * (b) + (c))
#else
#define MADD(a, b, c) fma((a), (b), (c))
#endif

#if VARIANT == 1
/* ---------------------------------------------------------------------------
 * mm_tiled: work-group TS x TS, one work-item per element of C (column
 * get_global_id(0), row get_global_id(1)); the global size is M and N
 * rounded up to TS, and work-items past the edge still help load tiles.
 * Per K step of TS, each work-item loads one element of A's tile and one of
 * B's into local memory (zero outside the matrices), then:
 *   barrier 1 - the tiles are complete before anyone reads them;
 *   barrier 2 - everyone has finished reading before the next step
 *               overwrites them.
 * Bs has a padding column so the column reads of a row of work-items fall
 * into different banks on GPUs. */
#ifndef TS
#define TS 16
#endif

__kernel __attribute__((reqd_work_group_size(TS, TS, 1))) void
mm_tiled(const int M, const int N, const int K, __global const REAL *restrict A, const IDX lda,
         __global const REAL *restrict B, const IDX ldb, __global REAL *restrict C, const IDX ldc,
         const int accumulate)
{
    __local REAL As[TS][TS];
    __local REAL Bs[TS][TS + 1];
    const int lc = get_local_id(0), lr = get_local_id(1);
    const IDX col = get_global_id(0), row = get_global_id(1);
    REAL acc = 0;
    for (int k0 = 0; k0 < K; k0 += TS) {
        const int ka = k0 + lc, kb = k0 + lr;
        As[lr][lc] = row < M && ka < K ? A[row * lda + ka] : (REAL)0;
        Bs[lr][lc] = kb < K && col < N ? B[kb * ldb + col] : (REAL)0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++)
            acc = MADD(As[lr][k], Bs[k][lc], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M && col < N) {
        __global REAL *c = C + row * ldc + col;
        *c = accumulate ? *c + acc : acc;
    }
}
#endif /* VARIANT == 1 */

#if VARIANT == 2
/* ---------------------------------------------------------------------------
 * The CPU shape, after the BLIS micro-kernel. A and B are first packed so
 * the micro-kernel streams both contiguously:
 *   Ap: panels of MR rows, k-major inside a panel:
 *       Ap[(p*K + k)*MR + r] = A[p*MR + r][k], zero for rows >= M;
 *   Bp: panels of NR = NV*VW columns, k-major inside a panel:
 *       Bp[(q*K + k)*NR + c] = B[k][q*NR + c], zero for columns >= N.
 * mm_cpu then runs one work-item per work-group (no local memory, no
 * barriers: on a CPU both only cost time) and each work-item owns an
 * MR x NR block of C, held in MR*NV vectors of VW lanes: 6 x 4 float8 = 24
 * of the 32 AVX-512 registers by default, plus NV for the row of B and one
 * broadcast of A. The k loop covers [k0, k0 + kc), one cache-blocking pass
 * chosen by the host so a KC x NR slice of B stays in L1/L2 while the
 * work-items of one column (consecutive groups in dimension 0) stream A. */
#ifndef MR
#define MR 6
#endif
#ifndef NV
#define NV 4
#endif
#ifndef VW
#define VW 8
#endif
#ifndef PACK_WG
#define PACK_WG 16
#endif
#define NR (NV * VW)
typedef CAT(REAL, VW) realv;
#define VLOADV CAT(vload, VW)
#define VSTOREV CAT(vstore, VW)

/* Work-group PACK_WG x PACK_WG; one work-item per element of Ap: k is
 * get_global_id(0), the padded row get_global_id(1). */
__kernel __attribute__((reqd_work_group_size(PACK_WG, PACK_WG, 1))) void
mm_pack_a(const int M, const int Mpad, const int K, __global const REAL *restrict A, const IDX lda,
          __global REAL *restrict Ap)
{
    const IDX k = get_global_id(0), i = get_global_id(1);
    if (k >= K || i >= Mpad)
        return;
    Ap[((i / MR) * K + k) * MR + i % MR] = i < M ? A[i * lda + k] : (REAL)0;
}

/* Work-group PACK_WG x PACK_WG; one work-item per element of Bp: the padded
 * column is get_global_id(0), k get_global_id(1). */
__kernel __attribute__((reqd_work_group_size(PACK_WG, PACK_WG, 1))) void
mm_pack_b(const int N, const int Npad, const int K, __global const REAL *restrict B, const IDX ldb,
          __global REAL *restrict Bp)
{
    const IDX j = get_global_id(0), k = get_global_id(1);
    if (j >= Npad || k >= K)
        return;
    Bp[((j / NR) * K + k) * NR + j % NR] = j < N ? B[k * ldb + j] : (REAL)0;
}

/* Adds (or stores) one vector of the block into C, cut at column N. */
void store_vec(__global REAL *restrict c, const realv x, const IDX cols, const int accumulate)
{
    if (cols >= VW) {
        VSTOREV(accumulate ? x + VLOADV(0, c) : x, 0, c);
        return;
    }
    REAL t[VW];
    VSTOREV(x, 0, t);
    for (IDX e = 0; e < cols; e++)
        c[e] = accumulate ? c[e] + t[e] : t[e];
}

/* Global size (Mpad / MR, Npad / NR), work-group 1 x 1: work-item (p, q)
 * owns rows p*MR.. and columns q*NR.. of C. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
mm_cpu(const int M, const int N, const int K, __global const REAL *restrict Ap,
       __global const REAL *restrict Bp, __global REAL *restrict C, const IDX ldc, const int k0,
       const int kc, const int accumulate)
{
    const IDX p = get_global_id(0), q = get_global_id(1);
    const __global REAL *a = Ap + (p * K + k0) * MR;
    const __global REAL *b = Bp + (q * K + k0) * NR;
    realv acc[MR][NV];
#pragma unroll
    for (int r = 0; r < MR; r++)
#pragma unroll
        for (int v = 0; v < NV; v++)
            acc[r][v] = (realv)0;
    for (int k = 0; k < kc; k++) {
        realv bv[NV];
#pragma unroll
        for (int v = 0; v < NV; v++)
            bv[v] = VLOADV(v, b);
#pragma unroll
        for (int r = 0; r < MR; r++) {
            const realv ar = (realv)(a[r]);
#pragma unroll
            for (int v = 0; v < NV; v++)
                acc[r][v] = MADD(ar, bv[v], acc[r][v]);
        }
        a += MR;
        b += NR;
    }
    const IDX i0 = p * MR, j0 = q * NR;
#pragma unroll
    for (int r = 0; r < MR; r++) {
        if (i0 + r >= M)
            break;
#pragma unroll
        for (int v = 0; v < NV; v++) {
            const IDX j = j0 + v * VW;
            if (j < N)
                store_vec(C + (i0 + r) * ldc + j, acc[r][v], N - j, accumulate);
        }
    }
}
#endif /* VARIANT == 2 */

#if VARIANT == 3
/* ---------------------------------------------------------------------------
 * The GPU shape. Work-group (BN/8) x (BM/8) = 16 x 16 by default; it owns a
 * BM x BN tile of C and each work-item an 8 x 8 register block made of four
 * 4 x 4 quarters, BM/2 rows and BN/2 columns apart: work-item (tx, ty) owns
 * rows ty*4 + {0..3} and BM/2 + ty*4 + {0..3}, columns likewise with tx.
 * So the 16 work-items of a row read 16 consecutive float4 of B's slab
 * (conflict-free) and the same float4 of A's slab (a broadcast).
 *
 * K advances in slabs of BK. Each work-item loads LA float4 of A (along k)
 * and LB float4 of B (along n) per slab into registers, then into local
 * memory: As is stored transposed (k-major) so the compute loop reads
 * float4 along m; both rows are padded by 4 elements, which keeps float4
 * alignment and spreads the transposing stores over the banks. The local
 * tiles are double-buffered: while slab t is multiplied out of buffer t&1,
 * slab t+1 is already in registers, and is stored into buffer (t+1)&1
 * after the compute. One barrier per slab suffices:
 *   - after it, buffer (t+1)&1 is complete for everyone's next compute;
 *   - everyone finished reading buffer t&1 (compute t) before it, so the
 *     stores of slab t+2 into t&1 (after compute t+1) cannot race.
 * Interior tiles and full slabs load with float4 (aligned when the host
 * sets VEC_ALIGNED: every leading dimension a multiple of 4); edge tiles
 * and the last partial slab use guarded scalar loads, zero outside.
 * Stores are guarded element by element only on edge tiles. */
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef VEC_ALIGNED
#define VEC_ALIGNED 0
#endif
/* Full unrolling keeps acc[][] in registers on GPUs; CPU OpenCL compilers
 * (PoCL) take minutes over the unrolled work-group function, so the host
 * sets UNROLL=0 when this kernel is forced onto a CPU to test it. */
#ifndef UNROLL
#define UNROLL 1
#endif
#define WGX (BN / 8)
#define WGY (BM / 8)
#define NT (WGX * WGY)
#define LA (BM * BK / 4 / NT)
#define LB (BK * BN / 4 / NT)
#define PADL 4
#if BM % 8 || BN % 8 || BK % 4 || LA * NT * 4 != BM * BK || LB * NT * 4 != BK * BN || LA < 1 ||  \
    LB < 1
#error "BM, BN must be multiples of 8, BK of 4, and each tile a whole number of float4 per item"
#endif
typedef CAT(REAL, 4) real4;

#if VEC_ALIGNED
#define LOAD4(p) (*(const __global real4 *)(p))
#else
#define LOAD4(p) vload4(0, (p))
#endif

/* Four consecutive elements of a row starting at column c, zero past cols. */
real4 load4_guarded(const __global REAL *restrict row, const IDX c, const IDX cols)
{
    real4 v;
    v.s0 = c < cols ? row[c] : (REAL)0;
    v.s1 = c + 1 < cols ? row[c + 1] : (REAL)0;
    v.s2 = c + 2 < cols ? row[c + 2] : (REAL)0;
    v.s3 = c + 3 < cols ? row[c + 3] : (REAL)0;
    return v;
}

__kernel __attribute__((reqd_work_group_size(WGX, WGY, 1))) void
mm_gpu(const int M, const int N, const int K, __global const REAL *restrict A, const IDX lda,
       __global const REAL *restrict B, const IDX ldb, __global REAL *restrict C, const IDX ldc,
       const int accumulate)
{
    /* 16-byte aligned, so float4 reads of rows compile to vector loads */
    __local REAL As[2][BK][BM + PADL] __attribute__((aligned(16)));
    __local REAL Bs[2][BK][BN + PADL] __attribute__((aligned(16)));
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int tid = ty * WGX + tx;
    const IDX row0 = (IDX)get_group_id(1) * BM, col0 = (IDX)get_group_id(0) * BN;
    const int full_mn = row0 + BM <= M && col0 + BN <= N;
    real4 ra[LA], rb[LB];
    REAL acc[8][8];
#if UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
    for (int i = 0; i < 8; i++)
#if UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
        for (int j = 0; j < 8; j++)
            acc[i][j] = 0;

    /* Slab k0 of A and B into registers: float4 f of A is row f/(BK/4),
     * k (f%(BK/4))*4; float4 f of B is k f/(BN/4), column (f%(BN/4))*4. */
#define LOAD_SLAB(k0)                                                                              \
    do {                                                                                           \
        const int fast_ = full_mn && (k0) + BK <= K;                                               \
        for (int s = 0; s < LA; s++)                                             \
        {                                                                                          \
            const int f = tid + s * NT, m = f / (BK / 4), kq = (f % (BK / 4)) * 4;                 \
            if (fast_)                                                                             \
                ra[s] = LOAD4(A + (row0 + m) * lda + (k0) + kq);                                   \
            else if (row0 + m < M)                                                                 \
                ra[s] = load4_guarded(A + (row0 + m) * lda + (k0), kq, K - (k0));                  \
            else                                                                                   \
                ra[s] = (real4)0;                                                                  \
        }                                                                                          \
        for (int s = 0; s < LB; s++)                                             \
        {                                                                                          \
            const int f = tid + s * NT, kk = f / (BN / 4), nq = (f % (BN / 4)) * 4;                \
            if (fast_)                                                                             \
                rb[s] = LOAD4(B + ((k0) + kk) * ldb + col0 + nq);                                  \
            else if ((k0) + kk < K)                                                                \
                rb[s] = load4_guarded(B + ((k0) + kk) * ldb + col0, nq, N - col0);                 \
            else                                                                                   \
                rb[s] = (real4)0;                                                                  \
        }                                                                                          \
    } while (0)

#define STORE_SLAB(buf)                                                                            \
    do {                                                                                           \
        for (int s = 0; s < LA; s++)                                             \
        {                                                                                          \
            const int f = tid + s * NT, m = f / (BK / 4), kq = (f % (BK / 4)) * 4;                 \
            As[buf][kq + 0][m] = ra[s].s0;                                                         \
            As[buf][kq + 1][m] = ra[s].s1;                                                         \
            As[buf][kq + 2][m] = ra[s].s2;                                                         \
            As[buf][kq + 3][m] = ra[s].s3;                                                         \
        }                                                                                          \
        for (int s = 0; s < LB; s++)                                             \
        {                                                                                          \
            const int f = tid + s * NT, kk = f / (BN / 4), nq = (f % (BN / 4)) * 4;                \
            vstore4(rb[s], 0, &Bs[buf][kk][nq]);                                                   \
        }                                                                                          \
    } while (0)

    LOAD_SLAB(0);
    STORE_SLAB(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int nslabs = (K + BK - 1) / BK;
    for (int t = 0; t < nslabs; t++) {
        const int cur = t & 1;
        if (t + 1 < nslabs)
            LOAD_SLAB((t + 1) * BK);
#if UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
        for (int k = 0; k < BK; k++) {
            const real4 a0 = vload4(0, &As[cur][k][ty * 4]);
            const real4 a1 = vload4(0, &As[cur][k][BM / 2 + ty * 4]);
            const real4 b0 = vload4(0, &Bs[cur][k][tx * 4]);
            const real4 b1 = vload4(0, &Bs[cur][k][BN / 2 + tx * 4]);
            const REAL av[8] = {a0.s0, a0.s1, a0.s2, a0.s3, a1.s0, a1.s1, a1.s2, a1.s3};
            const REAL bv[8] = {b0.s0, b0.s1, b0.s2, b0.s3, b1.s0, b1.s1, b1.s2, b1.s3};
#if UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
            for (int i = 0; i < 8; i++)
#if UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
                for (int j = 0; j < 8; j++)
                    acc[i][j] = MADD(av[i], bv[j], acc[i][j]);
        }
        if (t + 1 < nslabs)
            STORE_SLAB(cur ^ 1);
        barrier(CLK_LOCAL_MEM_FENCE);
    }

#if UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
    for (int i = 0; i < 8; i++) {
        const IDX r = row0 + (i < 4 ? ty * 4 + i : BM / 2 + ty * 4 + i - 4);
#if UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
        for (int h = 0; h < 2; h++) {
            const IDX c = col0 + h * (BN / 2) + tx * 4;
            real4 v = (real4)(acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2],
                              acc[i][h * 4 + 3]);
            if (full_mn) {
                __global REAL *cp = C + r * ldc + c;
                if (accumulate)
                    v += LOAD4(cp);
#if VEC_ALIGNED
                *(__global real4 *)cp = v;
#else
                vstore4(v, 0, cp);
#endif
            } else if (r < M) {
                __global REAL *cp = C + r * ldc + c;
                const REAL e[4] = {v.s0, v.s1, v.s2, v.s3};
#if UNROLL
#pragma unroll
#else
#pragma unroll 1
#endif
                for (int j = 0; j < 4; j++)
                    if (c + j < N)
                        cp[j] = accumulate ? cp[j] + e[j] : e[j];
            }
        }
    }
}
#endif /* VARIANT == 3 */
