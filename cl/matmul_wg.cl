/* C = A*B in tf32 on Hopper's warpgroup tensor-core instructions (wgmma,
 * sm_90a): a prototype for issue 9 (docs/PERFORMANCE.md, "What it would
 * take"), run by src/core/matmul_tc.c only when asked
 * (TILEDCL_TC_OPTIONS=-DWGMMA=1) on an NVIDIA device of compute capability
 * 9.0.
 *
 * NVIDIA's OpenCL compiles for `.target sm_90`, where wgmma does not
 * assemble. Every sm_90a instruction is therefore written here as a PTX
 * comment, "// TDCL_SM90A <instruction>;", inside an asm statement whose
 * operands the compiler substitutes like any other; the host builds this
 * file normally, removes the "// TDCL_SM90A " markers from the PTX it gets
 * back, sets `.target sm_90a` and builds that PTX with
 * clCreateProgramWithBinary. Built as is, the kernel computes nothing.
 *
 * Operands: A is M x KP (row-major, KP a multiple of BK, zero-padded by the
 * host), BT is B transposed, N x KP (wgmma reads tf32 B only K-major), C is
 * M x N. TF32 by truncation: wgmma reads the operands from local memory and
 * ignores their low 13 bits.
 *
 * Work-group: NT = 128 * NWG work-items, NWG warpgroups (NVIDIA forms warps
 * from consecutive local ids, a warpgroup from 4 consecutive warps); it
 * owns the BM x 128 tile of C (BM = 64 * NWG) at (group row, group column) = (get_group_id(1),
 * get_group_id(0)); warpgroup w owns rows 64w..64w+63 of it as one
 * wgmma.m64n128k8 accumulator: 64 floats per work-item, lane l of warp v of
 * the warpgroup holding, for n8 block j, D[16v+g][8j+2t], D[16v+g][8j+2t+1],
 * D[16v+g+8][8j+2t], D[16v+g+8][8j+2t+1] (g = l/4, t = l%4).
 *
 * Local memory, no swizzle ("interleave" matrix descriptors): a slab of R
 * rows x BK k is stored as core matrices of 8 rows x 4 k (16-byte rows,
 * 128 bytes), the BK/4 core matrices of a row group 128 bytes apart (the
 * descriptor's leading offset, LBO = 128) and row groups BK*32 bytes apart
 * (stride offset, SBO); k-step j (8 k) starts 256*j bytes in. Checked on an
 * H200 by bench_tc_probe (c3, c5): LBO is the K direction, SBO the M/N one.
 * A 16-byte cp.async chunk is one row of a core matrix; a warp's 32 chunks
 * fill 512 consecutive bytes (conflict free).
 *
 * Pipeline: STAGES slabs (A 128 x BK, BT 128 x BK: 16 KiB at BK = 16, three
 * in 48 KiB; BK = 8 or 16) filled by cp.async.ca, one commit group per slab. Step kt:
 * wait for the work-item's copies of slab kt, make them visible to the
 * tensor cores' (async) proxy (fence.proxy.async), one barrier (every copy
 * landed; every warpgroup is done with slab kt-1, whose buffer then
 * receives slab kt+STAGES-1), BK/8 wgmma per warpgroup, wait for them. */
#ifndef BK
#define BK 16
#endif
#ifndef STAGES
#define STAGES 3
#endif
/* LAG = 1: a warpgroup leaves slab kt's wgmma running while it goes on to
 * slab kt+1 and waits only for slab kt-1's (wgmma.wait_group 1); the copy
 * issued in step kt then goes to slab kt-2's buffer, one slab less ahead. */
#ifndef LAG
#define LAG 0
#endif
/* Timing aids: CP_CG = 1 copies through L2 only (cp.async.cg); NO_PFENCE = 1
 * drops the proxy fence (whether the results stay right says whether the
 * fence is needed on this device; the results are checked). */
#if CP_CG
#define CP_LEVEL "cg"
#else
#define CP_LEVEL "ca"
#endif
/* NWG warpgroups stacked in M: 2 (128 x 128 tiles) or 4 (256 x 128) */
#ifndef NWG
#define NWG 2
#endif
#define NT (128 * NWG)
#define BM (64 * NWG)
#define BN 128
#define ASLAB (BM * BK)         /* floats of one A slab */
#define STAGE (ASLAB + BN * BK) /* floats of one stage, A then BT */
#define SBO (BK * 32)           /* bytes between 8-row groups */

#define SM90A(text) asm volatile("// TDCL_SM90A " text ::: "memory")

/* Matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address
 * >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4 in 32-45, no swizzle. */
static inline ulong desc(uint saddr)
{
    return (ulong)((saddr >> 4) & 0x3FFF) | ((ulong)(128 >> 4) << 16) | ((ulong)(SBO >> 4) << 32);
}

/* One 16-byte chunk: row r, k-chunk kc of a slab at dst; rows >= rows are
 * zero-filled (cp.async src-size 0, the source clamped to row 0). */
static inline void copy_chunk(__local float *dst, const __global float *src, int KP, int row,
                              int rows, int c, int kt)
{
    int r = c / (BK / 4), kc = c % (BK / 4);
    int off = (r / 8) * (SBO / 4) + kc * 32 + (r % 8) * 4;
    const __global float *s = src + (size_t)(row + r < rows ? row + r : 0) * KP + kt * BK + 4 * kc;
    asm volatile("cp.async." CP_LEVEL ".shared.global [%0], [%1], 16, %2;" ::"r"(dst + off), "l"(s),
                 "r"(row + r < rows ? 16 : 0)
                 : "memory");
}

/* Copies slab kt of A (BM x BK) and BT (BN x BK) into buffer buf. */
static inline void copy_slab(__local float *sm, const __global float *A, const __global float *BT,
                             int M, int N, int KP, int m0, int n0, int kt, int buf, int tid)
{
    __local float *da = sm + buf * STAGE, *db = da + ASLAB;
    for (int c = tid; c < BM * BK / 4; c += NT)
        copy_chunk(da, A, KP, m0, M, c, kt);
    for (int c = tid; c < BN * BK / 4; c += NT)
        copy_chunk(db, BT, KP, n0, N, c, kt);
}

__kernel __attribute__((reqd_work_group_size(NT, 1, 1))) void matmul_wg(__global const float *A,
                                                                        __global const float *BT,
                                                                        __global float *C, int M,
                                                                        int N, int KP)
{
    __local float sm[STAGES * STAGE] __attribute__((aligned(256)));
    const int tid = get_local_id(0), wg = tid / 128, v = (tid % 128) / 32, l = tid % 32;
    const int g = l / 4, t = l % 4;
    const int m0 = get_group_id(1) * BM, n0 = get_group_id(0) * BN, nk = KP / BK;
    uint sbase;
    asm("mov.u32 %0, %1;" : "=r"(sbase) : "r"(sm));
    float acc[64];
#pragma unroll
    for (int i = 0; i < 64; i++)
        acc[i] = 0.0f;
    for (int s = 0; s < STAGES - 1 - LAG; s++) {
        if (s < nk) copy_slab(sm, A, BT, M, N, KP, m0, n0, s, s, tid);
        asm volatile("cp.async.commit_group;" ::: "memory");
    }
    for (int kt = 0; kt < nk; kt++) {
        asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2 - LAG) : "memory");
#if !NO_PFENCE
        SM90A("fence.proxy.async.shared::cta;");
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
        int next = kt + STAGES - 1 - LAG;
        if (next < nk) copy_slab(sm, A, BT, M, N, KP, m0, n0, next, next % STAGES, tid);
        asm volatile("cp.async.commit_group;" ::: "memory");
        uint sa = sbase + (uint)((kt % STAGES) * STAGE * 4) + (uint)(wg * 8 * SBO);
        uint sb = sbase + (uint)((kt % STAGES) * STAGE * 4 + ASLAB * 4);
        SM90A("wgmma.fence.sync.aligned;");
#pragma unroll
        for (int j = 0; j < BK / 8; j++) {
            ulong da = desc(sa + 256 * j), db = desc(sb + 256 * j);
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                "// TDCL_SM90A wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
                "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
                "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
                "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
                "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, "
                "%64, %65, p, 1, 1;\n}"
                : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]),
                  "+f"(acc[5]), "+f"(acc[6]), "+f"(acc[7]), "+f"(acc[8]), "+f"(acc[9]),
                  "+f"(acc[10]), "+f"(acc[11]), "+f"(acc[12]), "+f"(acc[13]), "+f"(acc[14]),
                  "+f"(acc[15]), "+f"(acc[16]), "+f"(acc[17]), "+f"(acc[18]), "+f"(acc[19]),
                  "+f"(acc[20]), "+f"(acc[21]), "+f"(acc[22]), "+f"(acc[23]), "+f"(acc[24]),
                  "+f"(acc[25]), "+f"(acc[26]), "+f"(acc[27]), "+f"(acc[28]), "+f"(acc[29]),
                  "+f"(acc[30]), "+f"(acc[31]), "+f"(acc[32]), "+f"(acc[33]), "+f"(acc[34]),
                  "+f"(acc[35]), "+f"(acc[36]), "+f"(acc[37]), "+f"(acc[38]), "+f"(acc[39]),
                  "+f"(acc[40]), "+f"(acc[41]), "+f"(acc[42]), "+f"(acc[43]), "+f"(acc[44]),
                  "+f"(acc[45]), "+f"(acc[46]), "+f"(acc[47]), "+f"(acc[48]), "+f"(acc[49]),
                  "+f"(acc[50]), "+f"(acc[51]), "+f"(acc[52]), "+f"(acc[53]), "+f"(acc[54]),
                  "+f"(acc[55]), "+f"(acc[56]), "+f"(acc[57]), "+f"(acc[58]), "+f"(acc[59]),
                  "+f"(acc[60]), "+f"(acc[61]), "+f"(acc[62]), "+f"(acc[63])
                : "l"(da), "l"(db), "r"(1)
                : "memory");
        }
        SM90A("wgmma.commit_group.sync.aligned;");
#if LAG
        SM90A("wgmma.wait_group.sync.aligned 1;");
#else
        SM90A("wgmma.wait_group.sync.aligned 0;");
#endif
    }
    SM90A("wgmma.wait_group.sync.aligned 0;");
    const int r = m0 + 64 * wg + 16 * v + g;
#pragma unroll
    for (int j = 0; j < 16; j++) {
        int c = n0 + 8 * j + 2 * t;
#pragma unroll
        for (int h = 0; h < 2; h++) {
            int rr = r + 8 * h;
            if (rr >= M) continue;
            if (c < N) C[(size_t)rr * N + c] = acc[4 * j + 2 * h];
            if (c + 1 < N) C[(size_t)rr * N + c + 1] = acc[4 * j + 2 * h + 1];
        }
    }
}
