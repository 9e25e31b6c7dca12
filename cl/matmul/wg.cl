/* C = A*B in tf32 or 3xtf32 on Hopper's warpgroup tensor-core instructions
 * (wgmma, sm_90a), for NVIDIA devices of compute capability 9.x; run by
 * src/ops/matmul/matmul_tc.c, which falls back to cl/matmul/tc.cl (mma.sync)
 * wherever this path does not build or pass its probe.
 *
 * NVIDIA's OpenCL compiles for `.target sm_90`, where wgmma does not
 * assemble. Every sm_90a instruction is therefore written here as a PTX
 * comment, "// TDCL_SM90A <instruction>;", inside an asm statement whose
 * operands the compiler substitutes like any other; the host builds this
 * file normally, removes the "// TDCL_SM90A " markers from the PTX it gets
 * back, sets `.target sm_90a` and builds that PTX with
 * clCreateProgramWithBinary (NVIDIA's OpenCL takes PTX text as its program
 * "binary"; that it also takes edited PTX is not documented). Built as is,
 * matmul_wg computes nothing. The mbarrier and bulk-copy instructions are
 * plain sm_90 and written normally.
 *
 * Two kernels, run one after the other:
 *
 * wg_pack copies A (M x K) and B (K x N), row-major floats, into slabs laid
 * out as the main kernel's local memory wants them, so that one slab of an
 * operand is one contiguous block that a single bulk copy moves. Rows
 * (of A; of B transposed, N x K, since wgmma reads tf32 B only K-major) are
 * grouped in blocks of R (BM for A, BN for B), K in slabs of BK; block b,
 * slab kt starts at (b * nk + kt) * R * BK floats (times 2 for a split B).
 * Past M, N and K the slabs hold zeros. Inside a slab, "core-matrix"
 * layout (no swizzle): core matrices of 8 rows x 4 k (16-byte rows, 128
 * bytes), the BK/4 core matrices of an 8-row group 128 bytes apart (the
 * matrix descriptor's leading offset, LBO = 128, the K direction) and
 * 8-row groups BK*32 bytes apart (stride offset, SBO); k-step j (8 k)
 * starts 256*j bytes in (checked on an H200 by bench_tc_probe c3/c5).
 * tf32 (PREC 1): both operands rounded to nearest tf32 here. 3xtf32
 * (PREC 3): A stays float32, in "fragment" order (k-step j, 16-row block
 * rb, lane l: the float4 of lane l's four A values, wgmma's register
 * layout, one 16-byte load per k-step), and B is stored twice per slab,
 * big = tf32(b) then small = b - big (exact), each in core-matrix layout.
 *
 * matmul_wg: work-group of NWG consumer warpgroups and, with PRODUCER 1,
 * one producer warp after them (128 * NWG + 32 work-items; NVIDIA forms
 * warps from consecutive local ids and a warpgroup from 4 consecutive
 * warps starting at a multiple of 4, so the producer is the last warp).
 * It owns the BM x BN tile of C (BM = 64 * NWG, BN 64, 128 or 256; built
 * in: 64 x 256 for tf32, 64 x 128 for 3xtf32, see matmul_tc.c); warpgroup
 * w owns rows 64w..64w+63 as one wgmma.m64n{BN}k8 accumulator, BN/2 floats
 * per work-item: lane l of warp v of the warpgroup holds, for n8 block j,
 * D[16v+g][8j+2t], D[16v+g][8j+2t+1], D[16v+g+8][8j+2t],
 * D[16v+g+8][8j+2t+1] (g = l/4, t = l%4). Tiles are numbered in bands of
 * GROUP_M tile rows so that the work-groups running at once share slabs
 * in L2.
 *
 * Pipeline: STAGES buffers of one A and one B slab in local memory (as many
 * as 48 KiB holds), each with two mbarriers. full[s]: the producer (lane 0
 * of the producer warp, or work-item 0 between its own wgmma with
 * PRODUCER 0) announces the slab's bytes (arrive.expect_tx) and starts two
 * cp.async.bulk copies that complete on it; consumers wait for its phase.
 * empty[s]: lane 0 of every consumer warp arrives once the warpgroup's
 * wgmma reading the buffer have finished (wgmma.wait_group); the producer
 * waits for it before it fills the buffer again. No work-group barrier
 * after the set-up. With 48 KiB per work-group (NVIDIA's OpenCL limit),
 * what keeps enough bytes in flight is several small work-groups per SM:
 * 2 or 3 of 154 (tf32) / 143-158 (3xtf32) registers a work-item.
 *
 * tf32: per slab, BK/8 wgmma with both operands from local memory
 * (matrix descriptors); LAG = 1 leaves one slab's wgmma running while the
 * warpgroup issues the next (the slab is handed back one step later).
 * 3xtf32: each work-item loads its A fragment
 * (one float4 per k-step), splits it into big and small in registers, and
 * per k-step issues small*Bbig, big*Bsmall, big*Bbig into a partial
 * accumulator begun from zero every KSUB k-steps; the tensor cores
 * accumulate with truncation, so the partial is added to the float
 * accumulator with a rounded float add after each KSUB k-steps (a running
 * sum in the tensor cores loses accuracy linearly in K). The A fragment
 * registers alternate between two sets, even and odd slabs (see STEP3).
 *
 * The loop over slabs is unrolled by two (even and odd slabs, STEP1 and
 * STEP3 as macros so that the accumulators stay in registers). */
#ifndef PREC
#define PREC 1
#endif
#ifndef NWG
#define NWG 1
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 8
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef LAG
#define LAG 0
#endif
#ifndef KSUB
#define KSUB 4
#endif
/* Work-group tiles in a band GROUP_M tiles tall walked column by column,
 * so that the tiles running at once share their slabs in L2. */
#ifndef GROUP_M
#define GROUP_M 8
#endif
/* PRODUCER 1: a producer warp after the consumers issues the copies;
 * 0: work-item 0 does, between its own wgmma. Without the extra warp a
 * 64-row tf32 work-group has 128 work-items, and three fit an SM by
 * registers instead of two, which is faster for tf32; 3xtf32 was faster
 * with it (docs/internals/tensor-cores.md).
 * NVIDIA's OpenCL reports at most 256 work-items for these kernels (it
 * ran 288 all the same), so the host keeps a producer warp only beside
 * one warpgroup. */
#ifndef PRODUCER
#define PRODUCER 1
#endif
#define BM (64 * NWG)
#define NTC (128 * NWG) /* consumer work-items */
#define NT (NTC + 32 * PRODUCER)
#define NB2 (PREC == 3 ? 2 : 1)     /* B slabs per stage: big (and small) */
#define ASLAB (BM * BK)             /* floats of an A slab */
#define BSLAB (BN * BK)             /* floats of one B slab */
#define STAGE (ASLAB + NB2 * BSLAB) /* floats of a stage */
#define SBO (BK * 32)               /* bytes between 8-row groups */
#define NACC (BN / 2)               /* accumulator floats per work-item */

#define SM90A(text) asm volatile("// TDCL_SM90A " text ::: "memory")

/* ---- packing -------------------------------------------------------------- */

/* One float4 of the packed operand per work-item. src is rows x inner as
 * stored (A: M x K, ld K; B: K x N, ld N, TRANS 1 reads it transposed);
 * blocks of R rows, nk slabs; FRAG 1 writes A in fragment order. */
__kernel void wg_pack(__global const float *src, __global float4 *dst, int rows, int inner, int ld,
                      int trans, int R, int nk, int frag, int kind)
{
    /* kind 0: raw floats, 1: rounded to tf32, 2: big then small */
    const int split = kind == 2 ? 2 : 1;
    const size_t f = get_global_id(0);
    const int per = R * BK / 4; /* float4s of one slab */
    const size_t slab = f / (size_t)(per * split);
    const int within = (int)(f % (size_t)(per * split));
    const int part = within / per, q = within % per;
    const int blk = (int)(slab / (size_t)nk), kt = (int)(slab % (size_t)nk);
    int r[4], k[4];
    if (frag) {
        /* q = (j * (R/16) + rb) * 32 + lane */
        int lane = q % 32, rb = (q / 32) % (R / 16), j = q / (32 * (R / 16));
        int g = lane / 4, t = lane % 4;
        for (int i = 0; i < 4; i++) {
            r[i] = 16 * rb + g + 8 * (i & 1);
            k[i] = 8 * j + t + 4 * (i >> 1);
        }
    } else {
        /* q = (row group) * (BK/4 * 8) + kc * 8 + row in group */
        int rg = q / (BK * 2), kc = (q / 8) % (BK / 4), rr = q % 8;
        for (int i = 0; i < 4; i++) {
            r[i] = 8 * rg + rr;
            k[i] = 4 * kc + i;
        }
    }
    float v[4];
    if (!frag && !trans && ld % 4 == 0 && blk * R + r[0] < rows && kt * BK + k[3] < inner) {
        /* four consecutive k of one row, 16-byte aligned: one load */
        float4 x = vload4(0, src + (size_t)(blk * R + r[0]) * ld + kt * BK + k[0]);
        float4 big = as_float4((as_uint4(x) + 0x1000u) & 0xFFFFE000u);
        dst[f] = kind == 0 ? x : kind == 1 || part == 0 ? big : x - big;
        return;
    }
    for (int i = 0; i < 4; i++) {
        int row = blk * R + r[i], kk = kt * BK + k[i];
        float x = 0.0f;
        if (row < rows && kk < inner)
            x = trans ? src[(size_t)kk * ld + row] : src[(size_t)row * ld + kk];
        if (kind) {
            float big = as_float(tf32_round(as_uint(x)));
            x = part ? x - big : big;
        }
        v[i] = x;
    }
    dst[f] = (float4)(v[0], v[1], v[2], v[3]);
}

/* ---- synchronisation ------------------------------------------------------ */

static inline uint saddr(__local void *p)
{
    uint a;
    asm("mov.u32 %0, %1;" : "=r"(a) : "r"(p));
    return a;
}

static inline void mbar_wait(uint bar, uint parity)
{
    uint done;
    do {
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

static inline void mbar_arrive(uint bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

/* Matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address
 * >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4 in 32-45, no swizzle. */
static inline ulong desc(uint a)
{
    return (ulong)((a >> 4) & 0x3FFF) | ((ulong)(128 >> 4) << 16) | ((ulong)(SBO >> 4) << 32);
}

/* ---- wgmma ---------------------------------------------------------------- */

#define ACC16(x, i)                                                                                \
    "+f"(x[i]), "+f"(x[i + 1]), "+f"(x[i + 2]), "+f"(x[i + 3]), "+f"(x[i + 4]), "+f"(x[i + 5]),    \
        "+f"(x[i + 6]), "+f"(x[i + 7]), "+f"(x[i + 8]), "+f"(x[i + 9]), "+f"(x[i + 10]),           \
        "+f"(x[i + 11]), "+f"(x[i + 12]), "+f"(x[i + 13]), "+f"(x[i + 14]), "+f"(x[i + 15])
#define REGS64                                                                                     \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,"         \
    "%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
#define REGS128                                                                                    \
    REGS64 ",%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,"         \
           "%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,"        \
           "%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,"           \
           "%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"

#if BN != 64 && BN != 128 && BN != 256
#error "BN must be 64, 128 or 256"
#endif

#if BN == 64
#define REGS32                                                                                     \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"       \
    "%24,%25,%26,%27,%28,%29,%30,%31"
#define WG_SS(acc, da, db, sd)                                                                     \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                      \
                 "// TDCL_SM90A wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "              \
                 "{" REGS32 "}, %32, %33, p, 1, 1;\n}"                                             \
                 : ACC16(acc, 0), ACC16(acc, 16)                                                   \
                 : "l"(da), "l"(db), "r"(sd)                                                       \
                 : "memory")
#define WG_RS(acc, a, db, sd)                                                                      \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"                                      \
                 "// TDCL_SM90A wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "              \
                 "{" REGS32 "}, {%32,%33,%34,%35}, %36, p, 1, 1;\n}"                               \
                 : ACC16(acc, 0), ACC16(acc, 16)                                                   \
                 : "r"(a.s0), "r"(a.s1), "r"(a.s2), "r"(a.s3), "l"(db), "r"(sd)                    \
                 : "memory")
#elif BN == 128
/* wgmma with A and B from local memory: d += a * b (scale_d 1) or d = a * b (0) */
#define WG_SS(acc, da, db, sd)                                                                     \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                      \
                 "// TDCL_SM90A wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "             \
                 "{" REGS64 "}, %64, %65, p, 1, 1;\n}"                                             \
                 : ACC16(acc, 0), ACC16(acc, 16), ACC16(acc, 32), ACC16(acc, 48)                   \
                 : "l"(da), "l"(db), "r"(sd)                                                       \
                 : "memory")
/* wgmma with A from registers (a0..a3 as uint), B from local memory */
#define WG_RS(acc, a, db, sd)                                                                      \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"                                      \
                 "// TDCL_SM90A wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "             \
                 "{" REGS64 "}, {%64,%65,%66,%67}, %68, p, 1, 1;\n}"                               \
                 : ACC16(acc, 0), ACC16(acc, 16), ACC16(acc, 32), ACC16(acc, 48)                   \
                 : "r"(a.s0), "r"(a.s1), "r"(a.s2), "r"(a.s3), "l"(db), "r"(sd)                    \
                 : "memory")
#else
#define WG_SS(acc, da, db, sd)                                                                     \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                     \
                 "// TDCL_SM90A wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "             \
                 "{" REGS128 "}, %128, %129, p, 1, 1;\n}"                                          \
                 : ACC16(acc, 0), ACC16(acc, 16), ACC16(acc, 32), ACC16(acc, 48), ACC16(acc, 64),  \
                   ACC16(acc, 80), ACC16(acc, 96), ACC16(acc, 112)                                 \
                 : "l"(da), "l"(db), "r"(sd)                                                       \
                 : "memory")
#define WG_RS(acc, a, db, sd)                                                                      \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"                                     \
                 "// TDCL_SM90A wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "             \
                 "{" REGS128 "}, {%128,%129,%130,%131}, %132, p, 1, 1;\n}"                         \
                 : ACC16(acc, 0), ACC16(acc, 16), ACC16(acc, 32), ACC16(acc, 48), ACC16(acc, 64),  \
                   ACC16(acc, 80), ACC16(acc, 96), ACC16(acc, 112)                                 \
                 : "r"(a.s0), "r"(a.s1), "r"(a.s2), "r"(a.s3), "l"(db), "r"(sd)                    \
                 : "memory")
#endif

#if LAG
#define WG_WAIT_LAG() SM90A("wgmma.wait_group.sync.aligned 1;")
#else
#define WG_WAIT_LAG() SM90A("wgmma.wait_group.sync.aligned 0;")
#endif

/* ---- the product ---------------------------------------------------------- */

/* Slab kt of the tile's packed A (pa) and B (pb) into buffer kt % STAGES:
 * the bytes announced on full[s], then two bulk copies completing on it. */
static inline void issue(const __global float *pa, const __global float *pb, int kt, uint sbase,
                         uint bbase)
{
    const int s = kt % STAGES;
    const uint full = bbase + 8 * s, dst = sbase + (uint)(s * STAGE * 4);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(full),
                 "r"(STAGE * 4)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(pa + (size_t)kt * ASLAB), "r"(ASLAB * 4), "r"(full)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1], %2, [%3];" ::"r"(dst + ASLAB * 4),
                 "l"(pb + (size_t)kt * NB2 * BSLAB), "r"(NB2 * BSLAB * 4), "r"(full)
                 : "memory");
}

/* One slab kt of the consumer loop: wait for its bytes, issue its wgmma,
 * wait for the group LAG back, hand slabs back, and (PRODUCER 0) refill.
 * Macros rather than functions so that acc, part and the A fragments stay
 * in registers. */
#define STEP_HEAD(kt)                                                                              \
    const int s = (kt) % STAGES;                                                                   \
    mbar_wait(bbase + 8 * s, (uint)(((kt) / STAGES) & 1));                                         \
    const uint st = sbase + (uint)(s * STAGE * 4);                                                 \
    const uint sb = st + ASLAB * 4;

#if PRODUCER
#define STEP_TAIL(kt, upto)                                                                        \
    for (; released < (upto); released++)                                                          \
        if (l == 0) mbar_arrive(bbase + 8 * (STAGES + released % STAGES));
#else
/* one slab per step, into the buffer this warpgroup has just handed back,
 * once the other warpgroups have too */
#define STEP_TAIL(kt, upto)                                                                        \
    for (; released < (upto); released++)                                                          \
        if (l == 0) mbar_arrive(bbase + 8 * (STAGES + released % STAGES));                         \
    if (tid == 0 && issued < nk && issued - STAGES < released) {                                   \
        mbar_wait(bbase + 8 * (STAGES + issued % STAGES), (uint)((issued / STAGES - 1) & 1));      \
        issue(pa, pb, issued, sbase, bbase);                                                       \
    }                                                                                              \
    issued += issued < nk && issued - STAGES < released;
#endif

#define STEP1(kt)                                                                                  \
    do {                                                                                           \
        STEP_HEAD(kt)                                                                              \
        const uint sa = st + (uint)(wg * 8 * SBO);                                                 \
        SM90A("wgmma.fence.sync.aligned;");                                                        \
        _Pragma("unroll") for (int j = 0; j < BK / 8; j++)                                         \
            WG_SS(acc, desc(sa + 256 * j), desc(sb + 256 * j), 1);                                 \
        SM90A("wgmma.commit_group.sync.aligned;");                                                 \
        WG_WAIT_LAG();                                                                             \
        STEP_TAIL(kt, (kt) + 1 - LAG)                                                              \
    } while (0)

/* 3xtf32: the A fragments loaded and split before the fence that orders
 * these register writes before the wgmma that read them; B big at sb, B
 * small BSLAB floats on; the partial begun from zero every KSUB k-steps and
 * added to acc (after a full wait) at the last of them. */
#define STEP3(kt, big, small)                                                                      \
    do {                                                                                           \
        STEP_HEAD(kt)                                                                              \
        __local const uint4 *af =                                                                  \
            (__local const uint4 *)((__local float *)sm4 + s * STAGE) + (4 * wg + v) * 32 + l;     \
        _Pragma("unroll") for (int j = 0; j < BK / 8; j++)                                         \
        {                                                                                          \
            uint4 x = af[j * (BM / 16) * 32];                                                      \
            big[j] = (x + 0x1000u) & 0xFFFFE000u;                                                  \
            small[j] = as_uint4(as_float4(x) - as_float4(big[j]));                                 \
        }                                                                                          \
        SM90A("wgmma.fence.sync.aligned;");                                                        \
        int flush = 0;                                                                             \
        _Pragma("unroll") for (int j = 0; j < BK / 8; j++)                                         \
        {                                                                                          \
            const int step = (kt) * (BK / 8) + j;                                                  \
            WG_RS(part, small[j], desc(sb + 256 * j), step % KSUB != 0);                           \
            WG_RS(part, big[j], desc(sb + BSLAB * 4 + 256 * j), 1);                                \
            WG_RS(part, big[j], desc(sb + 256 * j), 1);                                            \
            flush |= step % KSUB == KSUB - 1;                                                      \
        }                                                                                          \
        SM90A("wgmma.commit_group.sync.aligned;");                                                 \
        int upto;                                                                                  \
        if (flush || (kt) == nk - 1) {                                                             \
            SM90A("wgmma.wait_group.sync.aligned 0;");                                             \
            _Pragma("unroll") for (int i = 0; i < NACC; i++) acc[i] += part[i];                    \
            upto = (kt) + 1;                                                                       \
        } else {                                                                                   \
            WG_WAIT_LAG();                                                                         \
            upto = (kt) + 1 - LAG;                                                                 \
        }                                                                                          \
        STEP_TAIL(kt, upto)                                                                        \
    } while (0)

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void
matmul_wg(__global const float *Ap, __global const float *Bp, __global float *C, int M, int N,
          int nk, int tiles_m, int tiles_n)
{
    __local float4 sm4[STAGES * STAGE / 4] __attribute__((aligned(128)));
    __local ulong bars[2 * STAGES];
    const int tid = get_local_id(0), wg = tid / 128, v = (tid % 128) / 32, l = tid % 32;
    const uint sbase = saddr(sm4), bbase = saddr(bars); /* full[s], then empty[s] */

    /* tile order: bands of GROUP_M tile rows, column by column inside */
    int tm, tn;
    group_tile(get_group_id(0), tiles_m, tiles_n, GROUP_M, &tm, &tn);

    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bbase + 8 * s) : "memory");
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bbase + 8 * (STAGES + s)),
                         "r"(4 * NWG)
                         : "memory");
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const __global float *pa = Ap + (size_t)tm * nk * ASLAB;
    const __global float *pb = Bp + (size_t)tn * nk * NB2 * BSLAB;
#if PRODUCER
    if (wg == NWG) {
        /* producer: lane 0 of the last warp */
        if (l != 0) return;
        for (int kt = 0; kt < nk; kt++) {
            if (kt >= STAGES)
                mbar_wait(bbase + 8 * (STAGES + kt % STAGES), (uint)((kt / STAGES - 1) & 1));
            issue(pa, pb, kt, sbase, bbase);
        }
        return;
    }
#else
    /* work-item 0 fills every buffer now and each one again once all
     * consumer warps have handed it back (issued: the next slab to copy) */
    int issued = min(nk, STAGES);
    if (tid == 0)
        for (int kt = 0; kt < issued; kt++)
            issue(pa, pb, kt, sbase, bbase);
#endif

    float acc[NACC];
#pragma unroll
    for (int i = 0; i < NACC; i++)
        acc[i] = 0.0f;
#if PREC == 3
    float part[NACC];
#pragma unroll
    for (int i = 0; i < NACC; i++)
        part[i] = 0.0f;
#endif
    int released = 0; /* slabs handed back to the producer so far */
#if PREC == 3
    /* Two sets of A fragment registers, for even and odd slabs: with LAG 1
     * the wgmma of slab kt still reads its set while slab kt+1 is loaded
     * and split, and PTX forbids writing a register an unfinished wgmma
     * reads (one set, in a plain loop, gave wrong products now and then
     * on the H200). By slab kt+2 the wait of slab kt+1 has retired them. */
    uint4 bigE[BK / 8], smallE[BK / 8], bigO[BK / 8], smallO[BK / 8];
#define STEP_BODY(kt, big, small) STEP3(kt, big, small)
#else
#define STEP_BODY(kt, big, small) STEP1(kt)
#endif
    for (int k2 = 0; k2 < nk; k2 += 2) {
        STEP_BODY(k2, bigE, smallE);
        if (k2 + 1 < nk) STEP_BODY(k2 + 1, bigO, smallO);
    }
    SM90A("wgmma.wait_group.sync.aligned 0;");

    const int g = l / 4, t = l % 4;
    const int r = tm * BM + 64 * wg + 16 * v + g;
#pragma unroll
    for (int j = 0; j < BN / 8; j++) {
        int c = tn * BN + 8 * j + 2 * t;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            int rr = r + 8 * h;
            if (rr >= M) continue;
            __global float *o = C + (size_t)rr * N + c;
            if (c + 1 < N && N % 2 == 0) {
                vstore2((float2)(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]), 0, o);
            } else {
                if (c < N) o[0] = acc[4 * j + 2 * h];
                if (c + 1 < N) o[1] = acc[4 * j + 2 * h + 1];
            }
        }
    }
}
