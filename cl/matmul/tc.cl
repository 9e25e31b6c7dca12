/* C = A*B in float32 on NVIDIA tensor cores (sm_80 and later) through
 * inline PTX: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 for the
 * products and cp.async (sm_80) for a multi-stage global -> local
 * pipeline. Only NVIDIA's OpenCL compiler accepts the asm statements; the
 * host runs this file only after detecting such a device
 * (src/ops/matmul/matmul_tc.c), or with TC_EMULATE = 1, where plain OpenCL C
 * stands in for every PTX instruction (slowly: a test aid that lets any
 * device check the layouts below).
 *
 * Precision (PREC): 1 = tf32: each input is rounded to TF32 (10 mantissa
 * bits) and the products accumulate in float32; relative error about
 * 1e-3. 3 = 3xtf32: each x is split into big = tf32(x) and
 * small = x - big, and the kernel accumulates small*big + big*small +
 * big*big in float32 (small*small, below 2^-22 relative, is dropped):
 * float32-level accuracy at a third of the tensor-core rate.
 *
 * TF32 operands. The tensor cores read the top 19 bits of each 32-bit
 * operand and ignore the low 13 (round toward zero). Rounding to nearest
 * (ties away, as cvt.rna.tf32.f32) is therefore one integer add of 0x1000
 * to the bits (RND = 1, the default); RND = 0 feeds the raw bits
 * (truncation: twice the error, biased toward zero). For 3xtf32, big is
 * the rounded value with the low bits cleared and small = x - big is exact
 * in float32; small goes in raw, its truncation costs under 2^-21 of x,
 * unbiased (small has either sign).
 *
 * Fragment layouts of m16n8k8 (PTX ISA, "Matrix Fragments for mma.m16n8k8"
 * with .tf32), for lane l of the warp, g = l / 4 and t = l % 4:
 *   A (16x8, row-major), 4 registers: a0 = A[g][t], a1 = A[g+8][t],
 *                                     a2 = A[g][t+4], a3 = A[g+8][t+4]
 *   B (8x8, "col"), 2 registers:      b0 = B[t][g], b1 = B[t+4][g]
 *   C, D (16x8, float), 4 registers:  c0 = C[g][2t], c1 = C[g][2t+1],
 *                                     c2 = C[g+8][2t], c3 = C[g+8][2t+1]
 * The k index of one mma is summed over and the n index of its B columns
 * is only a name for the C columns it produces, so both are relabelled to
 * make every fragment a vector load from the natural (cp.async) layouts:
 *   k: in each K slab of BK, lane t owns the KPT = BK/4 consecutive k at
 *      t*KPT; in k-step s (8 k) its "k = t" is t*KPT + 2s and its
 *      "k = t+4" is t*KPT + 2s + 1. So a0/a2 (and a1/a3) are adjacent in a
 *      row of A: one float4 covers two k-steps (BK >= 16; a float2 for
 *      BK = 8), and b0/b1 are rows t*KPT + 2s and t*KPT + 2s + 1 of B.
 *   n: in a warp's WN columns, mma tile j's column n is column n*NTL + j
 *      (NTL = WN/8 tiles). So a lane's b0 for all NTL tiles are the NTL
 *      consecutive columns g*NTL.. of one row (NTL/4 float4s), and its C
 *      values for row g of m-tile i are the 2*NTL consecutive columns
 *      2t*NTL..: c0 of tiles 0..NTL-1, then c1 of tiles 0..NTL-1.
 *
 * Work-group: 1-D, NT = 32 * (BM/WM) * (BN/WN) work-items (NVIDIA forms warps
 * from consecutive local ids). It owns the BM x BN tile of C at
 * (tile row, tile column) = the group id remapped so that GROUP_M
 * consecutive tile rows are walked column by column (neighbouring groups,
 * which run at the same time, share panels of A and B in L2). Warp w owns
 * the WM x WN sub-tile at warp row w / (BN/WN), warp column w % (BN/WN), as
 * MT x NTL mma tiles (MT = WM/16) whose accumulators stay in registers:
 * 4 * MT * NTL floats of C per work-item.
 *
 * Pipeline: K is walked in slabs of BK; STAGES slabs of A (BM x BK) and B
 * (BK x BN) live in local memory, filled by cp.async (16 bytes each,
 * zero-filled past the matrix edges; 4 bytes each when K or N is not a
 * multiple of 4) in commit groups of one slab. Each work-item's chunks of
 * a slab (sources, bounds, places) are worked out once (plan_copies).
 * CP_CA = 1 (the default) copies through L1 (cp.async.ca), 0 through L2
 * only (.cg): on an H200 the L1 path moved the slabs faster.
 *   PIPE = 0 (BK 16 or 32): before slab s is computed, each work-item waits
 *   for its own copies of slab s (cp.async.wait_group STAGES-2), and one
 *   barrier makes every copy visible and guarantees every warp is done
 *   with slab s-1, whose buffer then receives slab s+STAGES-1: one barrier
 *   per slab, STAGES-1 slabs in flight.
 *   PIPE = 1 (BK = 8, the default there): the fragments of slab s are in
 *   registers before step s begins, so after that step's barrier no warp
 *   reads slab s's buffer again: it receives slab s+STAGES at once (all
 *   STAGES buffers in flight), and slab s+1's fragments are loaded before
 *   slab s's mma are issued (two fragment sets, alternating).
 *
 * Local layouts (16-byte chunks, an XOR swizzle instead of padding, so
 * that STAGES x (BM*BK + BK*BN) floats fit the 48 KiB NVIDIA allows):
 *   A: row-major, rows of BK floats. LDS.128 (BK >= 16) is served per
 *      quarter-warp: lanes g = 2p, 2p+1, t = 0..3. BK = 16: rows r, r+1 are
 *      8 consecutive chunks: conflict free. BK = 32: the lanes read chunk
 *      2t + h of rows r and r+1, so chunk c of row r sits at c ^ (r & 1).
 *      BK = 8 (LDS.64, half-warps g = 0..3): words 8g + 2t: conflict free.
 *   B: k-major, rows of BN floats; chunk c of row r sits at c ^ f(r / KPT
 *      mod 4), where r / KPT is the lane t that reads row r. A
 *      quarter-warp reads chunks (wn0 + g*NTL)/4 + h of the rows of
 *      t = 0..3: NTL = 8: chunks {0,2} + 4p (+1), f(t) in {0,1,4,5}
 *      makes the 8 distinct mod 8; NTL = 4: chunks {0,1} + 2p, f = 2t.
 *   cp.async stores 8 consecutive chunks of a row per quarter-warp, which
 *   the XOR only permutes: conflict free.
 * 3xtf32 sums the three products of each k-step from zero and adds that
 * partial to the accumulator with a rounded float add: the tensor cores
 * add with truncation, which on a long running sum grows linearly with K.
 *
 * Edges: copies outside A or B fill zeros, so any M, N, K work; stores of C
 * are guarded. VEC_ALIGNED = 1 (K and N multiples of 4) copies 16-byte
 * chunks and stores float4s. */

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
#define WN 64
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif
#ifndef PREC
#define PREC 3
#endif
#ifndef RND
#define RND 1
#endif
#ifndef VEC_ALIGNED
#define VEC_ALIGNED 0
#endif
#ifndef IDX
#define IDX int
#endif
/* PIPE = 1 (BK = 8 only): fragments double buffered in registers, the
 * next slab's loaded before this one's mma are issued (see the kernel). */
#ifndef PIPE
#define PIPE (BK == 8)
#endif
#ifndef TC_EMULATE
#define TC_EMULATE 0
#endif
/* PIPE_COPY = 1: the PIPE loop moves the next fragments into place
 * instead of alternating two sets (one step per iteration). Emulated it is
 * the default: PoCL 3.1 ran the alternating form, with the emulated mma's
 * barriers inside, with whole tiles wrong now and then when two
 * work-groups ran at once (3xtf32 only; never with one PoCL thread). */
#ifndef PIPE_COPY
#define PIPE_COPY TC_EMULATE
#endif
/* How a pointer reaches the cp.async operands: 0 = as is ("r" for the
 * local one, "l" for the global one), 1 = converted to an integer first. */
#ifndef CP_ADDR
#define CP_ADDR 0
#endif

/* Emulated, the loops stay rolled: every emulated mma holds two barriers,
 * and unrolled they make PoCL's compile take minutes. */
#if TC_EMULATE
#define UNROLL _Pragma("unroll 1")
#else
#define UNROLL _Pragma("unroll")
#endif

/* CP_CA = 1 (default): the 16-byte copies go through L1 (cp.async.ca);
 * 0: L2 only (.cg), slower on an H200 (docs/internals/tensor-cores.md). */
#ifndef CP_CA
#define CP_CA 1
#endif

#define NWARP ((BM / WM) * (BN / WN))
#define NT (32 * NWARP)
#define MT (WM / 16)
#define NTL (WN / 8)
#define KPT (BK / 4)            /* k per lane per slab */
#define KSTEPS (BK / 8)         /* mma k-steps per slab */
#define SPQ (BK == 8 ? 1 : 2)   /* k-steps per A fragment load */
#define A_CH (BM * BK / 4 / NT) /* 16-byte chunks of the A slab per work-item */
#define B_CH (BK * BN / 4 / NT)
#define A_STAGE (BM * BK) /* floats */
#define B_STAGE (BK * BN)

#if PIPE && BK != 8
#error "matmul/tc.cl: PIPE = 1 needs BK = 8"
#endif
#if (BK != 8 && BK != 16 && BK != 32) || (WN != 32 && WN != 64) || WM % 16 || BM % WM ||           \
    BN % WN || (BM * BK / 4) % NT || (BK * BN / 4) % NT || STAGES < 2
#error                                                                                             \
    "matmul/tc.cl: BK must be 8, 16 or 32, WN 32 or 64, WM a multiple of 16 dividing BM, and both slabs must split into 16-byte chunks per work-item"
#endif

/* ---- the PTX, or its emulation ------------------------------------------ */

#if TC_EMULATE
/* Per-warp scratch through which an emulated mma sees its warp's fragments;
 * the barriers in emu_mma are reached by every work-item, as every mma is
 * issued in uniform control flow. */
#define EMU_ARG , __local float *emu
#define EMU_PASS , emu
static inline float tf32_trunc(uint x)
{
    return as_float(x & 0xffffe000u);
}
static inline void emu_mma(float d[4], const uint a[4], const uint b[2], __local float *emu)
{
    int lane = (int)get_local_id(0) % 32, w = (int)get_local_id(0) / 32, g = lane / 4, t = lane % 4;
    __local float *s = emu + w * 32 * 6;
    for (int r = 0; r < 4; r++)
        s[lane * 6 + r] = tf32_trunc(a[r]);
    s[lane * 6 + 4] = tf32_trunc(b[0]);
    s[lane * 6 + 5] = tf32_trunc(b[1]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int r = 0; r < 4; r++) {
        int row = g + 8 * (r / 2), col = 2 * t + (r % 2);
        float sum = d[r];
        for (int k = 0; k < 8; k++) {
            float av = s[((row % 8) * 4 + k % 4) * 6 + (row / 8) + 2 * (k / 4)];
            float bv = s[(col * 4 + k % 4) * 6 + 4 + k / 4];
            sum += av * bv;
        }
        d[r] = sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
#define MMA(d, a, b) emu_mma(d, a, b, emu)
#define CP_ASYNC16(dst, src, bytes)                                                                \
    do {                                                                                           \
        for (int e_ = 0; e_ < 4; e_++)                                                             \
            (dst)[e_] = (bytes) ? (src)[e_] : 0.0f;                                                \
    } while (0)
#define CP_ASYNC4(dst, src, bytes) (*(dst) = (bytes) ? *(src) : 0.0f)
#define CP_COMMIT() ((void)0)
#define CP_WAIT(n) ((void)0)
#else
#define EMU_ARG
#define EMU_PASS
/* d += a * b on one m16n8k8 tile. Not volatile: the compiler may schedule
 * it like any arithmetic. */
#define MMA(d, a, b)                                                                               \
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "                       \
        "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"                                               \
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                                           \
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(d[0]), "f"(d[1]),  \
          "f"(d[2]), "f"(d[3]))
#if CP_ADDR
#define SADDR(p) ((uint)(ulong)(p))
#define GADDR(p) ((ulong)(p))
#else
#define SADDR(p) (p)
#define GADDR(p) (p)
#endif
/* bytes = 16 or 0: copies 16 bytes or writes 16 zeros (src then unread). */
#if CP_CA
#define CP_LEVEL "ca"
#else
#define CP_LEVEL "cg"
#endif
#define CP_ASYNC16(dst, src, bytes)                                                                \
    asm volatile("cp.async." CP_LEVEL ".shared.global [%0], [%1], 16, %2;" ::"r"(SADDR(dst)),      \
                 "l"(GADDR(src)), "r"(bytes)                                                       \
                 : "memory")
#define CP_ASYNC4(dst, src, bytes)                                                                 \
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(SADDR(dst)),                 \
                 "l"(GADDR(src)), "r"(bytes)                                                       \
                 : "memory")
#define CP_COMMIT() asm volatile("cp.async.commit_group;" ::: "memory")
#define CP_WAIT(n) asm volatile("cp.async.wait_group %0;" ::"n"(n) : "memory")
#endif

/* The probe: the smallest use of the PTX instructions, built once per
 * context to learn whether the compiler accepts them. */
__kernel void matmul_tc_probe(__global float *d, const __global float *x)
{
    __local float buf[4] __attribute__((aligned(16)));
#if TC_EMULATE
    __local float emu[32 * 6];
#endif
    uint a[4], b[2];
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (get_local_id(0) == 0) CP_ASYNC16(buf, x, 16);
    CP_COMMIT();
    CP_WAIT(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int r = 0; r < 4; r++)
        a[r] = as_uint(buf[r]);
    b[0] = as_uint(x[4]);
    b[1] = as_uint(x[5]);
    MMA(c, a, b);
    for (int r = 0; r < 4; r++)
        d[get_global_id(0) * 4 + r] = c[r];
}

/* ---- slabs ------------------------------------------------------------- */

/* Physical 16-byte chunk of chunk c in row r of the A and B slabs. */
static inline int swz_a(int r, int c)
{
    return BK == 32 ? c ^ (r & 1) : c;
}

static inline int swz_b(int r, int c)
{
    int t = (r / KPT) & 3;
    return c ^ (NTL == 8 ? (t & 1) | ((t & 2) << 1) : 2 * t);
}

/* What a work-item copies of every slab, worked out once: its chunks of
 * the A slab (row, k within the slab) and of the B slab (k row, column),
 * their sources at k0 = 0 (rows and columns clamped into the matrices, so
 * every pointer formed is valid) and their places in a stage. */
typedef struct copy_plan {
    const __global float *a[A_CH], *b[B_CH];
    int a_ok[A_CH], ak[A_CH], da[A_CH]; /* row < M; k in slab; local offset */
    int bk[B_CH], bn[B_CH], db[B_CH];   /* k in slab; column; local offset */
} copy_plan;

static inline void plan_copies(copy_plan *p, const __global float *A, const __global float *B,
                               int M, int N, int K, int m0, int n0, int lid)
{
    UNROLL
    for (int i = 0; i < A_CH; i++) {
        int idx = lid + i * NT, r = idx / (BK / 4), c = idx % (BK / 4);
        p->a_ok[i] = m0 + r < M;
        p->ak[i] = 4 * c;
        p->a[i] = A + (IDX)min(m0 + r, M - 1) * K;
        p->da[i] = r * BK + 4 * swz_a(r, c);
    }
    UNROLL
    for (int i = 0; i < B_CH; i++) {
        int idx = lid + i * NT, r = idx / (BN / 4), c = idx % (BN / 4);
        p->bk[i] = r;
        p->bn[i] = n0 + 4 * c;
        p->b[i] = B + (IDX)min(r, K - 1) * N;
        p->db[i] = r * BN + 4 * swz_b(r, c);
    }
}

/* Issues the copies of slab k0 into as, bs; zeros outside the matrices. */
static inline void load_slab(__local float *as, __local float *bs, const __global float *A,
                             const __global float *B, int N, int K, int k0, const copy_plan *p)
{
    UNROLL
    for (int i = 0; i < A_CH; i++) {
        int k = k0 + p->ak[i];
#if VEC_ALIGNED
        int ok = p->a_ok[i] && k < K;
        CP_ASYNC16(as + p->da[i], ok ? p->a[i] + k : A, ok ? 16 : 0);
#else
        UNROLL
        for (int e = 0; e < 4; e++) {
            int ok = p->a_ok[i] && k + e < K;
            CP_ASYNC4(as + p->da[i] + e, ok ? p->a[i] + k + e : A, ok ? 4 : 0);
        }
#endif
    }
    UNROLL
    for (int i = 0; i < B_CH; i++) {
        int k = k0 + p->bk[i];
        const __global float *row = p->b[i] + (IDX)k0 * N; /* in B when k < K */
#if VEC_ALIGNED
        int ok = k < K && p->bn[i] < N;
        CP_ASYNC16(bs + p->db[i], ok ? row + p->bn[i] : B, ok ? 16 : 0);
#else
        UNROLL
        for (int e = 0; e < 4; e++) {
            int ok = k < K && p->bn[i] + e < N;
            CP_ASYNC4(bs + p->db[i] + e, ok ? row + p->bn[i] + e : B, ok ? 4 : 0);
        }
#endif
    }
}

/* ---- fragments and products ------------------------------------------ */

/* The tf32 operand of x: rounded to nearest (RND = 1) or raw (the tensor
 * cores truncate). */
static inline uint tf32_op(float x)
{
    return RND ? as_uint(x) + 0x1000u : as_uint(x);
}

/* 3xtf32: big = x rounded to TF32 with the low bits cleared, small the
 * exact remainder (fed raw). */
static inline void split(float x, uint *big, uint *small)
{
    uint b = RND ? tf32_round(as_uint(x)) : as_uint(x) & 0xffffe000u;
    *big = b;
    *small = as_uint(x - as_float(b));
}

/* Row r, logical k column kc (even) of the A slab: the SPQ*2 floats from
 * kc on. */
static inline void load_a(const __local float *as, int r, int kc, float v[2 * SPQ])
{
    const __local float *p = as + r * BK + 4 * swz_a(r, kc / 4) + kc % 4;
#if SPQ == 2
    float4 x = *(const __local float4 *)p;
    v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
#else
    float2 x = *(const __local float2 *)p;
    v[0] = x.x, v[1] = x.y;
#endif
}

/* Row r of the B slab, columns c0..c0+NTL-1 (c0 a multiple of 4). */
static inline void load_b(const __local float *bs, int r, int c0, float v[NTL])
{
    UNROLL
    for (int q = 0; q < NTL / 4; q++) {
        float4 x = *(const __local float4 *)(bs + r * BN + 4 * swz_b(r, c0 / 4 + q));
        v[4 * q] = x.x, v[4 * q + 1] = x.y, v[4 * q + 2] = x.z, v[4 * q + 3] = x.w;
    }
}

/* The products of one k-step on raw fragments: fa[i][h][x] is row
 * g + 8h of m-tile i at the lane's k x (0: "k = t", 1: "k = t+4"); fb[x][j]
 * is B at that k, column g of tile j. */
static inline void mma_step(float fa[MT][2][2], float fb[2][NTL], float acc[MT][NTL][4] EMU_ARG)
{
#if PREC == 3
    uint abig[MT][4], asml[MT][4], bbig[NTL][2], bsml[NTL][2];
    UNROLL
    for (int i = 0; i < MT; i++) {
        split(fa[i][0][0], &abig[i][0], &asml[i][0]);
        split(fa[i][1][0], &abig[i][1], &asml[i][1]);
        split(fa[i][0][1], &abig[i][2], &asml[i][2]);
        split(fa[i][1][1], &abig[i][3], &asml[i][3]);
    }
    UNROLL
    for (int j = 0; j < NTL; j++) {
        split(fb[0][j], &bbig[j][0], &bsml[j][0]);
        split(fb[1][j], &bbig[j][1], &bsml[j][1]);
    }
    UNROLL
    for (int i = 0; i < MT; i++)
        UNROLL
    for (int j = 0; j < NTL; j++) {
        /* The tensor cores add into the accumulator with truncation;
         * added into a large running sum that bias grows linearly
         * with K (25x the fp32 path's error at K = 4096). Summing each
         * k-step from zero and adding the partial with a rounded float
         * add keeps float32 accuracy. */
        float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        MMA(part, asml[i], bbig[j]);
        MMA(part, abig[i], bsml[j]);
        MMA(part, abig[i], bbig[j]);
        UNROLL
        for (int r = 0; r < 4; r++)
            acc[i][j][r] += part[r];
    }
#else
    uint af[MT][4], bf[NTL][2];
    UNROLL
    for (int i = 0; i < MT; i++) {
        af[i][0] = tf32_op(fa[i][0][0]);
        af[i][1] = tf32_op(fa[i][1][0]);
        af[i][2] = tf32_op(fa[i][0][1]);
        af[i][3] = tf32_op(fa[i][1][1]);
    }
    UNROLL
    for (int j = 0; j < NTL; j++) {
        bf[j][0] = tf32_op(fb[0][j]);
        bf[j][1] = tf32_op(fb[1][j]);
    }
    UNROLL
    for (int i = 0; i < MT; i++)
        UNROLL
    for (int j = 0; j < NTL; j++)
        MMA(acc[i][j], af[i], bf[j]);
#endif
}

/* All mma tiles of the warp over one slab in local memory. */
static inline void compute_slab(const __local float *as, const __local float *bs, int wm0, int wn0,
                                int g, int t, float acc[MT][NTL][4] EMU_ARG)
{
    UNROLL
    for (int q = 0; q < KSTEPS / SPQ; q++) {
        float ar[MT][2][2 * SPQ];
        UNROLL
        for (int i = 0; i < MT; i++)
            UNROLL
        for (int h = 0; h < 2; h++)
            load_a(as, wm0 + 16 * i + g + 8 * h, t * KPT + 2 * SPQ * q, ar[i][h]);
        UNROLL
        for (int u = 0; u < SPQ; u++) {
            int kb = t * KPT + 2 * (q * SPQ + u); /* B rows of b0, and b1 = kb + 1 */
            float fa[MT][2][2], fb[2][NTL];
            UNROLL
            for (int i = 0; i < MT; i++)
                UNROLL
            for (int h = 0; h < 2; h++)
                fa[i][h][0] = ar[i][h][2 * u], fa[i][h][1] = ar[i][h][2 * u + 1];
            load_b(bs, kb, wn0 + g * NTL, fb[0]);
            load_b(bs, kb + 1, wn0 + g * NTL, fb[1]);
            mma_step(fa, fb, acc EMU_PASS);
        }
    }
}

/* PIPE: the raw fragments of the one k-step of a slab (BK = 8). */
static inline void load_frags(const __local float *as, const __local float *bs, int wm0, int wn0,
                              int g, int t, float fa[MT][2][2], float fb[2][NTL])
{
    UNROLL
    for (int i = 0; i < MT; i++)
        UNROLL
    for (int h = 0; h < 2; h++)
        load_a(as, wm0 + 16 * i + g + 8 * h, 2 * t, fa[i][h]);
    load_b(bs, 2 * t, wn0 + g * NTL, fb[0]);
    load_b(bs, 2 * t + 1, wn0 + g * NTL, fb[1]);
}

/* Rows m0 + g (+8) of each m-tile, columns n0 + 2t*NTL .. + 2*NTL: c0 of
 * the NTL tiles, then their c1 (the n relabelling above). */
static inline void store_c(__global float *C, int M, int N, int m0, int n0, int g, int t,
                           float acc[MT][NTL][4])
{
    UNROLL
    for (int i = 0; i < MT; i++)
        UNROLL
    for (int h = 0; h < 2; h++) {
        int r = m0 + 16 * i + g + 8 * h, c = n0 + 2 * t * NTL;
        if (r >= M) continue;
        float v[2 * NTL];
        UNROLL
        for (int j = 0; j < NTL; j++) {
            v[j] = acc[i][j][2 * h];
            v[NTL + j] = acc[i][j][2 * h + 1];
        }
        __global float *dst = C + (IDX)r * N + c;
        UNROLL
        for (int q = 0; q < NTL / 2; q++) {
#if VEC_ALIGNED
            if (c + 4 * q + 3 < N) {
                vstore4((float4)(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]), 0,
                        dst + 4 * q);
                continue;
            }
#endif
            UNROLL
            for (int e = 0; e < 4; e++)
                if (c + 4 * q + e < N) dst[4 * q + e] = v[4 * q + e];
        }
    }
}

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void
matmul_tc(int M, int N, int K, const __global float *restrict A, const __global float *restrict B,
          __global float *restrict C)
{
    __local float as[STAGES * A_STAGE] __attribute__((aligned(16)));
    __local float bs[STAGES * B_STAGE] __attribute__((aligned(16)));
#if TC_EMULATE
    __local float emu[NWARP * 32 * 6];
#endif
    int lid = (int)get_local_id(0), lane = lid % 32, warp = lid / 32;
    int g = lane / 4, t = lane % 4;
    int tm = (int)get_group_id(1), tn = (int)get_group_id(0);
#if GROUP_M > 1
    {
        /* GROUP_M tile rows at a time, column by column */
        int nx = (int)get_num_groups(0), ny = (int)get_num_groups(1);
        group_tile(tm * nx + tn, ny, nx, GROUP_M, &tm, &tn);
    }
#endif
    int m0 = tm * BM, n0 = tn * BN;
    int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;
    float acc[MT][NTL][4];
    UNROLL
    for (int i = 0; i < MT; i++)
        UNROLL
    for (int j = 0; j < NTL; j++)
        UNROLL
    for (int r = 0; r < 4; r++)
        acc[i][j][r] = 0.0f;
    int nslab = (K + BK - 1) / BK;
    copy_plan cp;
    plan_copies(&cp, A, B, M, N, K, m0, n0, lid);
#if PIPE
    /* All STAGES buffers fill before the loop. At the top of step s the
     * fragments of slab s are in registers (f0/f1, alternating), so after
     * the barrier no warp reads slab s's buffer again: it receives slab
     * s + STAGES at once, and slab s+1's fragments are loaded before slab
     * s's mma are issued, hiding the load latency behind them. */
    UNROLL
    for (int s = 0; s < STAGES; s++) {
        if (s < nslab) load_slab(as + s * A_STAGE, bs + s * B_STAGE, A, B, N, K, s * BK, &cp);
        CP_COMMIT();
    }
    CP_WAIT(STAGES - 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    float fa0[MT][2][2], fb0[2][NTL], fa1[MT][2][2], fb1[2][NTL];
    load_frags(as, bs, wm0, wn0, g, t, fa0, fb0);
    int buf = 0; /* slab s's buffer */
#define PIPE_STEP(fa, fb, fa_next, fb_next)                                                        \
    if (s < nslab) {                                                                               \
        int nb = buf + 1 == STAGES ? 0 : buf + 1;                                                  \
        CP_WAIT(STAGES - 2);          /* slab s+1 has landed, for this work-item */                \
        barrier(CLK_LOCAL_MEM_FENCE); /* for everyone; slab s is read */                           \
        if (s + STAGES < nslab)                                                                    \
            load_slab(as + buf * A_STAGE, bs + buf * B_STAGE, A, B, N, K, (s + STAGES) * BK, &cp); \
        CP_COMMIT();                                                                               \
        if (s + 1 < nslab)                                                                         \
            load_frags(as + nb * A_STAGE, bs + nb * B_STAGE, wm0, wn0, g, t, fa_next, fb_next);    \
        mma_step(fa, fb, acc EMU_PASS);                                                            \
        buf = nb;                                                                                  \
        s++;                                                                                       \
    }
#if PIPE_COPY
    for (int s = 0; s < nslab;) {
        PIPE_STEP(fa0, fb0, fa1, fb1)
        UNROLL
        for (int i = 0; i < MT; i++)
            UNROLL
        for (int h = 0; h < 2; h++)
            fa0[i][h][0] = fa1[i][h][0], fa0[i][h][1] = fa1[i][h][1];
        UNROLL
        for (int j = 0; j < NTL; j++)
            fb0[0][j] = fb1[0][j], fb0[1][j] = fb1[1][j];
    }
#else
    for (int s = 0; s < nslab;) {
        PIPE_STEP(fa0, fb0, fa1, fb1)
        PIPE_STEP(fa1, fb1, fa0, fb0)
    }
#endif
#undef PIPE_STEP
#else
    UNROLL
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < nslab) load_slab(as + s * A_STAGE, bs + s * B_STAGE, A, B, N, K, s * BK, &cp);
        CP_COMMIT();
    }
    int rd = 0, wr = STAGES - 1;
    for (int s = 0; s < nslab; s++) {
        CP_WAIT(STAGES - 2);          /* this work-item's copies of slab s have landed */
        barrier(CLK_LOCAL_MEM_FENCE); /* everyone's have; slab s-1 is free */
        if (s + STAGES - 1 < nslab)
            load_slab(as + wr * A_STAGE, bs + wr * B_STAGE, A, B, N, K, (s + STAGES - 1) * BK, &cp);
        CP_COMMIT(); /* possibly empty: keeps one group per slab */
        compute_slab(as + rd * A_STAGE, bs + rd * B_STAGE, wm0, wn0, g, t, acc EMU_PASS);
        rd = rd + 1 == STAGES ? 0 : rd + 1;
        wr = wr + 1 == STAGES ? 0 : wr + 1;
    }
#endif
    store_c(C, M, N, m0 + wm0, n0 + wn0, g, t, acc);
}

/* The mma.sync ceiling through this compiler: each warp issues ITERS x 8
 * independent m16n8k8 (eight accumulators, one chain each) on fragments
 * from x; no memory traffic in the loop. 2 * 16 * 8 * 8 * 8 * ITERS flops
 * per warp. A benchmark aid (tools/bench_tc_peak.c). */
__kernel void matmul_tc_peak(__global float *d, const __global float *x, int iters)
{
#if TC_EMULATE
    __local float emu[32 * 6 * 32];
#endif
    int lane = (int)get_local_id(0) % 32;
    uint a[4], b[2][2];
    for (int r = 0; r < 4; r++)
        a[r] = as_uint(x[(lane + r) % 64]);
    for (int r = 0; r < 4; r++)
        b[r / 2][r % 2] = as_uint(x[(lane + 4 + r) % 64]);
    float acc[8][4];
    for (int j = 0; j < 8; j++)
        for (int r = 0; r < 4; r++)
            acc[j][r] = 0.0f;
    for (int it = 0; it < iters; it++)
        UNROLL
    for (int j = 0; j < 8; j++)
        MMA(acc[j], a, b[j % 2]);
    float s = 0.0f;
    for (int j = 0; j < 8; j++)
        for (int r = 0; r < 4; r++)
            s += acc[j][r];
    d[get_global_id(0)] = s;
}
