/* Dense matrix product C = A*B: A is M x K, B is K x N, C is M x N, all
 * row-major with leading dimensions lda, ldb, ldc (elements). The host
 * builds one of three shapes of kernel with -DVARIANT:
 *
 *   1  mm_tiled: the textbook local-memory tile, for any device, type and
 *      shape (the default for small and odd products);
 *   2  mm_pack_a, mm_pack_b, mm_cpu: register blocks with no local memory
 *      and no barriers, for CPUs (PoCL, Intel, ...);
 *   3  mm_gpu (with mm_transpose and mm_reduce): a BM x BN work-group tile
 *      of TM x TN register blocks over (double-buffered) local K slabs,
 *      for GPUs; every shape parameter is a -D tunable.
 *
 * Shared tunables: REAL is the element type (float; double with
 * -DREAL_FP64=1; long with -DREAL_INT=1, where sums wrap modulo 2^64, which
 * is the exact product wherever that fits in a long, and mm_i64_range finds
 * the elements where it does not); IDX is the index type (int when the host knows every
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

/* a * b + c: one rounding for floats (FMA), wrapping for integers. */
#if REAL_INT
#define MADD(a, b, c) ((a) * (b) + (c))
#else
#define MADD(a, b, c) fma((a), (b), (c))
#endif

#if REAL_INT
/* ---------------------------------------------------------------------------
 * mm_i64_range: which elements of an integer C = A*B lie outside long.
 * Sums wrap modulo 2^64, so the product kernels are exact exactly where the
 * true sum fits in a long, whatever the partial sums did; this kernel
 * decides where it does not. One work-item per element of C (column
 * get_global_id(0), row get_global_id(1)), any work-group shape, no local
 * memory: it only runs when the host's cheap bound (row sums of |A| times
 * row maxima of |B|) cannot rule overflow out. Each work-item sums its dot
 * product in 192-bit two's complement (ext:hi:lo; mul_hi gives the high
 * half of each 128-bit product, ext absorbs carries out of hi, so nothing
 * wraps for K < 2^62) and, where the sum is not the sign extension of its
 * low word, lowers first[row] (set to N by the host) to its column. */
__kernel void mm_i64_range(const int M, const int N, const int K, __global const long *restrict A,
                           const IDX lda, __global const long *restrict B, const IDX ldb,
                           __global int *restrict first)
{
    const IDX col = get_global_id(0), row = get_global_id(1);
    if (row >= M || col >= N) return;
    ulong lo = 0, hi = 0;
    long ext = 0;
    for (int k = 0; k < K; k++) {
        const long a = A[row * lda + k], b = B[k * ldb + col];
        const ulong plo = (ulong)a * (ulong)b, phi = (ulong)mul_hi(a, b);
        lo += plo;
        const ulong c1 = lo < plo;
        ulong h = hi + phi, c2 = h < phi;
        hi = h + c1;
        c2 += hi < c1;
        ext += (long)c2 - (long)(phi >> 63);
    }
    if (ext != ((long)hi >> 63) || hi != (ulong)((long)lo >> 63)) atomic_min(&first[row], (int)col);
}
#endif /* REAL_INT */

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
static inline void store_vec(__global REAL *restrict c, const realv x, const IDX cols,
                             const int accumulate)
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
 * The GPU shape: a BM x BN tile of C per work-group, staged through local
 * memory in K slabs of BK, with a TM x TN register block per work-item.
 *
 * Work-group: 1-D, NT = (BM/TM) * (BN/TN) work-items, grouped into teams of
 * WX x WY items (WX along n); NVIDIA forms warps from consecutive local ids,
 * so a team of 32 is one warp. Item (wx, wy) of a team owns MI x NJ float4
 * quarters of 4x4 elements: rows trow + i*4*WY + 0..3 (i < TM/4) and columns
 * tcol + j*4*WX + 0..3 (j < TN/4), trow = team row + wy*4 and tcol = team
 * column + wx*4. In the compute loop the items of a team read the same
 * float4 of A's slab (broadcast across wx) and WX consecutive float4 of
 * B's (conflict-free), so a 32-item team reads little local memory per FMA.
 * A team of the whole group (WX = BN/TN, WY = BM/TM) is the classic layout.
 *
 * Slabs: each work-item loads LA float4 of A and LB float4 of B per slab
 * into registers, then stores them into local memory. As is k-major (A
 * transposed) so the compute loop reads float4 along m: ALOAD = 0 maps
 * consecutive items along k of a row of A (long coalesced reads, four
 * scalar transposing stores), ALOAD = 1 along m (shorter reads, stores of
 * consecutive items to consecutive banks). With ATRANS = 1 the host has
 * transposed A into At (K x lda, lda a multiple of 4) beforehand, and A's
 * slab is read and stored as float4 rows like B's. Local rows are padded
 * by 4 elements: float4 alignment kept, transposing stores spread.
 *
 * Barriers: NBUF = 2 double-buffers the local slabs: slab t+1 is read
 * into registers before slab t is multiplied out of buffer t&1 and stored
 * into buffer (t+1)&1 after it, and one barrier per slab suffices: after
 * it the new buffer is complete for everyone, and everyone finished
 * reading the other one (compute t) before it, so the next stores cannot
 * race. NBUF = 1 uses one buffer and two barriers per slab (all done
 * reading before the store; the store complete before the reads).
 *
 * KSPLIT > 1 splits K over get_group_id(2): group z multiplies columns
 * [z*kchunk, (z+1)*kchunk) of A and writes its partial product to slice z
 * of C (C + z*zstride, a workspace the host sums with mm_reduce): more
 * work-groups for small products with a long K. The split last wave
 * (host: tail_plan): the tiles from tile0 on are each run as tslices
 * groups of a piece of K, launched after the whole tiles in the same
 * launch so that they fill the compute units as the whole tiles finish;
 * the pieces' products go to the workspace W, which mm_reduce_tiles sums
 * into C.
 *
 * Edges: interior tiles and full slabs load with float4 (aligned when the
 * host sets VEC_ALIGNED: every leading dimension a multiple of 4); edge
 * tiles and the last partial slab load guarded scalars, zero outside.
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
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#ifndef WX
#define WX (BN / TN)
#endif
#ifndef WY
#define WY (BM / TM)
#endif
#ifndef NBUF
#define NBUF 2
#endif
#ifndef ALOAD
#define ALOAD 0
#endif
#ifndef ATRANS
#define ATRANS 0
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
#if UNROLL
#define UNROLL_LOOP _Pragma("unroll")
#else
#define UNROLL_LOOP _Pragma("unroll 1")
#endif
#define GX (BN / TN)
#define GY (BM / TM)
#define NT (GX * GY)
#define TCX (GX / WX)
#define MI (TM / 4)
#define NJ (TN / 4)
#define LA (BM * BK / 4 / NT)
#define LB (BK * BN / 4 / NT)
#ifndef PADL
#define PADL 4
#endif
#ifndef FRAG
#define FRAG 0
#endif
#ifndef CPASYNC
#define CPASYNC 0
#endif
#ifndef SWZ
#define SWZ 1
#endif
#ifndef TAILS
#define TAILS 0
#endif
#ifndef CP_EMULATE
#define CP_EMULATE 0
#endif
#if BM % TM || BN % TN || TM % 4 || TN % 4 || BK % 4 || GX % WX || GY % WY ||                       \
    LA * NT * 4 != BM * BK || LB * NT * 4 != BK * BN || LA < 1 || LB < 1 || NBUF < 1 ||            \
    NBUF > (CPASYNC ? 3 : 2) || (CPASYNC && (NBUF < 2 || !ATRANS || !VEC_ALIGNED)) ||             \
    (PADL != 0 && PADL != 4)
#error "inconsistent BM BN BK TM TN WX WY NBUF PADL CPASYNC (see the comment above mm_gpu)"
#endif
typedef CAT(REAL, 4) real4;

#if VEC_ALIGNED
#define LOAD4(p) (*(const __global real4 *)(p))
#else
#define LOAD4(p) vload4(0, (p))
#endif
/* At's rows are padded to a multiple of 4 elements: always aligned. */
#if ATRANS
#define LOADA4(p) (*(const __global real4 *)(p))
#else
#define LOADA4(p) LOAD4(p)
#endif
#define LDS4(p) (*(__local const real4 *)(p))

#if CPASYNC && (REAL_FP64 || REAL_INT)
#error "CPASYNC copies float slabs only"
#endif
#if CPASYNC && !CP_EMULATE
/* bytes (0..16) of the 16 at src land at dst, the rest zeros; src is not
 * read past bytes. The local pointer goes in as the 32-bit shared address
 * NVIDIA's compiler gives it, as in matmul/tc.cl. */
#define CP_ASYNC16(dst, src, bytes)                                                                \
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(bytes)  \
                 : "memory")
#define CP_COMMIT() asm volatile("cp.async.commit_group;" ::: "memory")
#define CP_WAIT(n) asm volatile("cp.async.wait_group %0;" ::"n"(n) : "memory")
#elif CPASYNC
/* Portable stand-in with the same meaning, copying at once: the tests run
 * the pipeline's indexing and barriers on any device with it. */
#define CP_ASYNC16(dst, src, bytes)                                                                \
    do {                                                                                           \
        for (int e_ = 0; e_ < 4; e_++)                                                             \
            (dst)[e_] = e_ * 4 < (int)(bytes) ? (src)[e_] : (REAL)0;                               \
    } while (0)
#define CP_COMMIT() ((void)0)
#define CP_WAIT(n) ((void)0)
#endif

/* Four consecutive elements of a row starting at column c, zero past cols. */
static inline real4 load4_guarded(const __global REAL *restrict row, const IDX c, const IDX cols)
{
    real4 v;
    v.s0 = c < cols ? row[c] : (REAL)0;
    v.s1 = c + 1 < cols ? row[c + 1] : (REAL)0;
    v.s2 = c + 2 < cols ? row[c + 2] : (REAL)0;
    v.s3 = c + 3 < cols ? row[c + 3] : (REAL)0;
    return v;
}

/* Tile gid's first row and column. SWZ = G > 1 hands out tiles in bands
 * of G tile rows, column by column within a band, rather than row by row:
 * the groups running at once (about one per compute unit, started in order
 * of their linear id) then share G panels of A and fewer of B in L2. ntn
 * and ntm count the tiles along n and m. */
static inline void tile_origin(const int gid, const int ntn, const int ntm, IDX *row0, IDX *col0)
{
    const int band = SWZ * ntn, first = gid / band * SWZ;
    const int rows = min(ntm - first, SWZ);
    *row0 = (IDX)(first + gid % band % rows) * BM;
    *col0 = (IDX)(gid % band / rows) * BN;
}

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void
mm_gpu(const int M, const int N, const int Kfull, __global const REAL *restrict A, const IDX lda,
       __global const REAL *restrict B, const IDX ldb, __global REAL *restrict C, IDX ldc,
       const int accumulate, const int kchunk, const IDX zstride, __global REAL *restrict W,
       const int tile0, const int tslices, const int tkchunk, const int ntn)
{
    /* 16-byte aligned, so float4 accesses of rows are vector accesses */
    __local REAL As[NBUF][BK][BM + PADL] __attribute__((aligned(16)));
    __local REAL Bs[NBUF][BK][BN + PADL] __attribute__((aligned(16)));
    const int tid = get_local_id(0);
    const int team = tid / (WX * WY), ti = tid % (WX * WY);
    const int trow = (team / TCX) * (WY * TM) + (ti / WX) * 4;
    const int tcol = (team % TCX) * (WX * TN) + (ti % WX) * 4;
    /* Groups up to tile0 take a tile each (and slice get_group_id(2) of K
     * with KSPLIT); the ones after, launched last, one of tslices pieces
     * of K of a tile of the split last wave each. */
    const int g = (int)get_group_id(0), ntm = (M + BM - 1) / BM;
#if TAILS
    /* (the host builds TAILS only without KSPLIT: whole tiles take all of K) */
    const int piece = g >= tile0;
    const int gid = piece ? tile0 + (g - tile0) / tslices : g;
    const int z = piece ? (g - tile0) % tslices : 0;
    const int kbeg = z * tkchunk, K = piece ? min(Kfull - kbeg, tkchunk) : Kfull;
#else
    /* without pieces the kernel keeps no more registers than before them
     * (a 64x128 tile of 8x8 blocks runs 4 groups an SM only just) */
    const int piece = 0, gid = g, z = (int)get_group_id(2);
    /* this group's part of K (all of it unless KSPLIT) */
    const int kbeg = z * kchunk, K = min(Kfull - kbeg, kchunk);
#endif
    IDX row0, col0;
    tile_origin(gid, ntn, ntm, &row0, &col0);
    const int full_mn = row0 + BM <= M && col0 + BN <= N;
#if ATRANS
    A += (IDX)kbeg * lda;
#else
    A += kbeg;
#endif
    B += (IDX)kbeg * ldb;
    /* a piece's product goes to slice z of W, where the split wave's tiles
     * lie one after another, BM x BN each (row length BN) */
    const IDX rbase = piece ? row0 : 0, cbase = piece ? col0 : 0;
    const int add = piece ? 0 : accumulate;
#if TAILS
    if (piece)
        C = W + ((IDX)z * (ntn * ntm - tile0) + (gid - tile0)) * (BM * BN), ldc = BN;
#else
    C += (IDX)z * zstride;
#endif
#if !CPASYNC
    real4 ra[LA], rb[LB];
#endif
    REAL acc[TM][TN];
    UNROLL_LOOP
    for (int i = 0; i < TM; i++)
        UNROLL_LOOP
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0;

    /* Slab k0 of A and B into registers. Without ATRANS, float4 f of A is
     * row m, columns k0 + kq.. (ALOAD picks which of f's digits is m); with
     * it, row k0 + kk of At, columns mq... Float4 f of B is row k0 + kk,
     * columns nq... */
#if ATRANS
#define LOAD_A(k0, fast_)                                                                          \
    for (int s = 0; s < LA; s++) {                                                                 \
        const int f = tid + s * NT, kk = f / (BM / 4), mq = (f % (BM / 4)) * 4;                    \
        if (fast_)                                                                                 \
            ra[s] = LOADA4(A + ((k0) + kk) * lda + row0 + mq);                                     \
        else if ((k0) + kk < K)                                                                    \
            ra[s] = load4_guarded(A + ((k0) + kk) * lda + row0, mq, M - row0);                     \
        else                                                                                       \
            ra[s] = (real4)0;                                                                      \
    }
#else
#if ALOAD
#define A_COORDS const int m = f % BM, kq = (f / BM) * 4
#else
#define A_COORDS const int m = f / (BK / 4), kq = (f % (BK / 4)) * 4
#endif
#define LOAD_A(k0, fast_)                                                                          \
    for (int s = 0; s < LA; s++) {                                                                 \
        const int f = tid + s * NT;                                                                \
        A_COORDS;                                                                                  \
        if (fast_)                                                                                 \
            ra[s] = LOADA4(A + (row0 + m) * lda + (k0) + kq);                                      \
        else if (row0 + m < M)                                                                     \
            ra[s] = load4_guarded(A + (row0 + m) * lda + (k0), kq, K - (k0));                      \
        else                                                                                       \
            ra[s] = (real4)0;                                                                      \
    }
#endif
#define LOAD_SLAB(k0)                                                                              \
    do {                                                                                           \
        const int fast_ = full_mn && (k0) + BK <= K;                                               \
        LOAD_A(k0, fast_)                                                                          \
        for (int s = 0; s < LB; s++) {                                                             \
            const int f = tid + s * NT, kk = f / (BN / 4), nq = (f % (BN / 4)) * 4;                \
            if (fast_)                                                                             \
                rb[s] = LOAD4(B + ((k0) + kk) * ldb + col0 + nq);                                  \
            else if ((k0) + kk < K)                                                                \
                rb[s] = load4_guarded(B + ((k0) + kk) * ldb + col0, nq, N - col0);                 \
            else                                                                                   \
                rb[s] = (real4)0;                                                                  \
        }                                                                                          \
    } while (0)

#if ATRANS
#define STORE_A(buf)                                                                               \
    for (int s = 0; s < LA; s++) {                                                                 \
        const int f = tid + s * NT, kk = f / (BM / 4), mq = (f % (BM / 4)) * 4;                    \
        *(__local real4 *)&As[buf][kk][mq] = ra[s];                                                \
    }
#else
#define STORE_A(buf)                                                                               \
    for (int s = 0; s < LA; s++) {                                                                 \
        const int f = tid + s * NT;                                                                \
        A_COORDS;                                                                                  \
        As[buf][kq + 0][m] = ra[s].s0;                                                             \
        As[buf][kq + 1][m] = ra[s].s1;                                                             \
        As[buf][kq + 2][m] = ra[s].s2;                                                             \
        As[buf][kq + 3][m] = ra[s].s3;                                                             \
    }
#endif
#define STORE_SLAB(buf)                                                                            \
    do {                                                                                           \
        STORE_A(buf)                                                                               \
        for (int s = 0; s < LB; s++) {                                                             \
            const int f = tid + s * NT, kk = f / (BN / 4), nq = (f % (BN / 4)) * 4;                \
            *(__local real4 *)&Bs[buf][kk][nq] = rb[s];                                            \
        }                                                                                          \
    } while (0)

    /* The k-th row of the slab in buffer buf_ into registers av_, bv_. */
#define LOAD_FRAG(buf_, k_, av_, bv_)                                                              \
    do {                                                                                           \
        UNROLL_LOOP                                                                                \
        for (int i = 0; i < MI; i++) {                                                             \
            const real4 x = LDS4(&As[buf_][k_][trow + i * 4 * WY]);                                \
            av_[i * 4] = x.s0, av_[i * 4 + 1] = x.s1, av_[i * 4 + 2] = x.s2, av_[i * 4 + 3] = x.s3; \
        }                                                                                          \
        UNROLL_LOOP                                                                                \
        for (int j = 0; j < NJ; j++) {                                                             \
            const real4 x = LDS4(&Bs[buf_][k_][tcol + j * 4 * WX]);                                \
            bv_[j * 4] = x.s0, bv_[j * 4 + 1] = x.s1, bv_[j * 4 + 2] = x.s2, bv_[j * 4 + 3] = x.s3; \
        }                                                                                          \
    } while (0)
#define FMA_BLOCK(av_, bv_)                                                                        \
    UNROLL_LOOP                                                                                    \
    for (int i = 0; i < TM; i++)                                                                   \
        UNROLL_LOOP                                                                                \
        for (int j = 0; j < TN; j++)                                                               \
            acc[i][j] = MADD(av_[i], bv_[j], acc[i][j]);
    /* FRAG = 1 reads row k+1 of the slab into a second set of registers
     * before the multiply-adds of row k, so the local reads' latency hides
     * behind them rather than behind other warps (one group per SM at the
     * big tiles leaves few warps to switch to). */
#if FRAG
#define COMPUTE_SLAB(buf_)                                                                         \
    do {                                                                                           \
        REAL av[2][TM], bv[2][TN];                                                                 \
        LOAD_FRAG(buf_, 0, av[0], bv[0]);                                                          \
        UNROLL_LOOP                                                                                \
        for (int k = 0; k < BK; k++) {                                                             \
            if (k + 1 < BK) LOAD_FRAG(buf_, k + 1, av[(k + 1) & 1], bv[(k + 1) & 1]);              \
            FMA_BLOCK(av[k & 1], bv[k & 1])                                                        \
        }                                                                                          \
    } while (0)
#else
#define COMPUTE_SLAB(buf_)                                                                         \
    do {                                                                                           \
        UNROLL_LOOP                                                                                \
        for (int k = 0; k < BK; k++) {                                                             \
            REAL av[TM], bv[TN];                                                                   \
            LOAD_FRAG(buf_, k, av, bv);                                                            \
            FMA_BLOCK(av, bv)                                                                      \
        }                                                                                          \
    } while (0)
#endif

    const int nslabs = K > 0 ? (K + BK - 1) / BK : 0;
#if CPASYNC
    /* Slab t_ of At and B copied into buffer buf_ by cp.async, 16 bytes a
     * copy; past M, N or K the copy writes zeros (bytes 0..12 short of 16
     * at the ragged edges). No registers hold the slab on its way, and
     * NBUF - 1 slabs are in flight while one is multiplied out. */
#define CP_SLAB(t_, buf_)                                                                          \
    do {                                                                                           \
        const int k0 = (t_) * BK, cb = (buf_);                                                     \
        for (int s = 0; s < LA; s++) {                                                             \
            const int f = tid + s * NT, kk = f / (BM / 4), mq = (f % (BM / 4)) * 4;                \
            const int rem = min(M - (int)row0 - mq, 4), ok = k0 + kk < K && rem > 0;               \
            const __global REAL *src = ok ? A + (IDX)(k0 + kk) * lda + row0 + mq : A;              \
            CP_ASYNC16(&As[cb][kk][mq], src, ok ? rem * 4 : 0);                                    \
        }                                                                                          \
        for (int s = 0; s < LB; s++) {                                                             \
            const int f = tid + s * NT, kk = f / (BN / 4), nq = (f % (BN / 4)) * 4;                \
            const int rem = min(N - (int)col0 - nq, 4), ok = k0 + kk < K && rem > 0;               \
            const __global REAL *src = ok ? B + (IDX)(k0 + kk) * ldb + col0 + nq : B;              \
            CP_ASYNC16(&Bs[cb][kk][nq], src, ok ? rem * 4 : 0);                                    \
        }                                                                                          \
    } while (0)
    for (int t = 0; t < NBUF - 1; t++) {
        if (t < nslabs) CP_SLAB(t, t);
        CP_COMMIT();
    }
    for (int t = 0; t < nslabs; t++) {
        /* this item's copies of slab t are done (the groups after it may
         * still fly); the barrier makes everyone's done, and everyone has
         * finished multiplying slab t-1, whose buffer the next copies take */
        CP_WAIT(NBUF - 2);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t + NBUF - 1 < nslabs) CP_SLAB(t + NBUF - 1, (t + NBUF - 1) % NBUF);
        CP_COMMIT();
        COMPUTE_SLAB(t % NBUF);
    }
    CP_WAIT(0);
#else
    if (nslabs > 0) {
        LOAD_SLAB(0);
        STORE_SLAB(0);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = 0; t < nslabs; t++) {
        const int cur = NBUF == 2 ? t & 1 : 0;
        if (t + 1 < nslabs)
            LOAD_SLAB((t + 1) * BK);
        COMPUTE_SLAB(cur);
        if (t + 1 < nslabs) {
#if NBUF == 1
            barrier(CLK_LOCAL_MEM_FENCE);
#endif
            STORE_SLAB(NBUF == 2 ? cur ^ 1 : 0);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif

    UNROLL_LOOP
    for (int i = 0; i < TM; i++) {
        const IDX r = row0 + trow + (i / 4) * 4 * WY + i % 4;
        UNROLL_LOOP
        for (int j = 0; j < NJ; j++) {
            const IDX c = col0 + tcol + j * 4 * WX;
            real4 v = (real4)(acc[i][j * 4], acc[i][j * 4 + 1], acc[i][j * 4 + 2],
                              acc[i][j * 4 + 3]);
            __global REAL *cp = C + (r - rbase) * ldc + (c - cbase);
            if (full_mn) {
                if (add)
                    v += LOAD4(cp);
#if VEC_ALIGNED
                *(__global real4 *)cp = v;
#else
                vstore4(v, 0, cp);
#endif
            } else if (r < M) {
                const REAL e[4] = {v.s0, v.s1, v.s2, v.s3};
                UNROLL_LOOP
                for (int q = 0; q < 4; q++)
                    if (c + q < N)
                        cp[q] = add ? cp[q] + e[q] : e[q];
            }
        }
    }
}

/* ATRANS: At = A^T for A of M x K (lda), At of K x ldat. Work-group TT x
 * TT; each item reads one element of a TT x TT block of A (consecutive
 * items along k: coalesced), and after the barrier (the block is complete)
 * writes one of At (consecutive items along m: coalesced). The padding
 * column spreads the column reads over the banks. */
#ifndef TT
#define TT 16
#endif
__kernel __attribute__((reqd_work_group_size(TT, TT, 1))) void
mm_transpose(const int M, const int K, __global const REAL *restrict A, const IDX lda,
             __global REAL *restrict At, const IDX ldat)
{
    __local REAL t[TT][TT + 1];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const IDX k0 = (IDX)get_group_id(0) * TT, m0 = (IDX)get_group_id(1) * TT;
    if (m0 + ly < M && k0 + lx < K)
        t[ly][lx] = A[(m0 + ly) * lda + k0 + lx];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (k0 + ly < K && m0 + lx < M)
        At[(k0 + ly) * ldat + m0 + lx] = t[lx][ly];
}

/* KSPLIT: C (+)= the sum of the S partial products W + z*zstride (M x N,
 * leading dimension N). One work-item per element of C, any group shape. */
__kernel void mm_reduce(const int M, const int N, __global const REAL *restrict W,
                        const IDX zstride, const int S, __global REAL *restrict C, const IDX ldc,
                        const int accumulate)
{
    const IDX c = get_global_id(0), r = get_global_id(1);
    if (r >= M || c >= N)
        return;
    const __global REAL *w = W + r * N + c;
    REAL s = 0;
    for (int z = 0; z < S; z++)
        s += w[z * zstride];
    __global REAL *cp = C + r * ldc + c;
    *cp = accumulate ? *cp + s : s;
}

/* The split last wave: C (+)= the sum of the S partial products of tiles
 * tile0, tile0 + 1, ... that mm_gpu wrote compactly (tile t of slice z at
 * W + z*zstride + t*BM*BN, row length BN). Work-item (j, i, t) sums
 * element (i, j) of tile t; any group shape. */
__kernel void mm_reduce_tiles(const int M, const int N, __global const REAL *restrict W,
                              const IDX zstride, const int S, __global REAL *restrict C,
                              const IDX ldc, const int accumulate, const int tile0, const int ntn)
{
    const int j = get_global_id(0), i = get_global_id(1), t = get_global_id(2);
    IDX row0, col0;
    tile_origin(tile0 + t, ntn, (M + BM - 1) / BM, &row0, &col0);
    const IDX r = row0 + i, c = col0 + j;
    if (r >= M || c >= N)
        return;
    const __global REAL *w = W + (IDX)t * (BM * BN) + i * BN + j;
    REAL s = 0;
    for (int z = 0; z < S; z++)
        s += w[z * zstride];
    __global REAL *cp = C + r * ldc + c;
    *cp = accumulate ? *cp + s : s;
}
#endif /* VARIANT == 3 */
