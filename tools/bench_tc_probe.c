/* Probes of what NVIDIA's OpenCL lets a kernel reach beyond mma.sync
 * (the bounds in docs/internals/tensor-cores.md).
 * Prints one line per probe:
 *
 *   a  build options that might change the PTX target (-cl-nv-arch ...):
 *      build status, the `.target` line of the program binary (PTX text on
 *      NVIDIA), the build log on one line;
 *   b  a kernel with inline `wgmma.fence.sync.aligned`, with each option;
 *   c  clCreateProgramWithBinary on PTX text edited by hand: c1 a normally
 *      built kernel with `.target sm_90a`, c2 the same with a wgmma.fence
 *      (c2n: the fence without the new target), c3 a hand-written
 *      wgmma m64n16k8 tf32 product checked against the host for two
 *      readings of the matrix-descriptor offsets, c4 the wgmma ceiling:
 *      warpgroups issuing only m64nNk8 tf32 on shared-memory operands;
 *   d  read bandwidth of buffers that fit in L2 (and one that does not):
 *      every work-group reads its chunk of the buffer in float4s, a
 *      different chunk each pass, through ld.global.cg (L2 only), plain
 *      loads (L1 and L2) and cp.async.cg / .ca into local memory.
 *
 *   c6 the 3xtf32 k-step on wgmma (split, three products, float adds)
 *      without global memory: what a wgmma 3xtf32 kernel could reach;
 *   c5 the route for a .cl file: OpenCL C carrying the wgmma instructions
 *      as PTX comments, uncommented in the PTX and rebuilt as sm_90a;
 *   c7 thread-block clusters of two work-groups asked for in the PTX
 *      (.reqnctapercluster), with a store into the partner's local memory;
 *   c8 local memory past the reported 48 KiB as a __local argument;
 *   e  the wgmma kernels' data path alone: cl/matmul/wg.cl
 *      built as the product builds it for 8192^3 (tf32 and 3xtf32), run
 *      whole and with its wgmma.mma_async left as PTX comments, so that
 *      every slab is still copied, waited for, loaded and handed back but
 *      nothing is multiplied: the time the 48 KiB pipeline needs to move
 *      the bytes, against the whole kernel's;
 *
 *   bench_tc_probe [a|b|c|c3|c4|c5|c6|c7|c8|d|e]...     (default: all; run a probe
 *   that may fault in a process of its own: a fault ends the context)
 *
 * Needs an NVIDIA device; a benchmark, not a test. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/matmul/mm_prog.h"
#include "runtime/clrt.h"

static tdcl_ctx *ctx;

/* malloc that ends the program when memory runs out (a benchmark). */
static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "bench_tc_probe: out of memory\n");
        exit(1);
    }
    return p;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Launches k (1-D, g items in groups of l) once untimed and 7 times timed;
 * ms gets the 7 device times sorted (ms[3] the median). */
static cl_int time_launches(tdcl_ctx *ctx, cl_kernel k, size_t g, size_t l, double ms[7])
{
    cl_int err = CL_SUCCESS;
    for (int r = -1; r < 7 && err == CL_SUCCESS; r++) {
        cl_event ev = NULL;
        err = clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &g, &l, 0, NULL, &ev);
        if (err == CL_SUCCESS) err = clWaitForEvents(1, &ev);
        if (r >= 0) ms[r] = tdcl_event_ms(ev);
        if (ev) clReleaseEvent(ev);
    }
    if (err == CL_SUCCESS) qsort(ms, 7, sizeof *ms, cmp_double);
    return err;
}

/* s on one line: newlines as " | ", at most n-1 bytes. */
static void flat(const char *s, char *out, size_t n)
{
    size_t j = 0;
    for (; s && *s && j + 4 < n; s++) {
        if (*s == '\n') {
            if (s[1]) memcpy(out + j, " | ", 3), j += 3;
        } else if (*s != '\r')
            out[j++] = *s;
    }
    out[j] = '\0';
}

static void build_log(cl_program p, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    clGetProgramBuildInfo(p, ctx->dev.device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
    char *log = malloc(len + 1);
    if (!log) return;
    log[0] = '\0';
    clGetProgramBuildInfo(p, ctx->dev.device, CL_PROGRAM_BUILD_LOG, len, log, NULL);
    log[len] = '\0';
    flat(log, out, n);
    free(log);
}

/* The PTX text of a built program (malloc'd), or NULL. */
static char *program_ptx(cl_program p)
{
    size_t n = 0;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL) != CL_SUCCESS || !n)
        return NULL;
    char *bin = calloc(n + 1, 1);
    if (bin && clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS) {
        free(bin);
        return NULL;
    }
    return bin;
}

/* The line of ptx starting with key ("`.target`"), copied to out. */
static void ptx_line(const char *ptx, const char *key, char *out, size_t n)
{
    const char *at = ptx ? strstr(ptx, key) : NULL;
    size_t j = 0;
    for (; at && at[j] && at[j] != '\n' && j + 1 < n; j++)
        out[j] = at[j];
    out[j] = '\0';
}

/* Builds from source or, when bin, from PTX text; returns the clBuildProgram
 * status (or the creation error) and the program in *prog. */
static cl_int build(const char *src, int bin, const char *opts, cl_program *prog)
{
    cl_int err, st = CL_SUCCESS;
    size_t len = strlen(src) + 1;
    *prog = bin ? clCreateProgramWithBinary(ctx->context, 1, &ctx->dev.device, &len,
                                            (const unsigned char **)&src, &st, &err)
                : clCreateProgramWithSource(ctx->context, 1, &src, NULL, &err);
    if (err != CL_SUCCESS || st != CL_SUCCESS) return err != CL_SUCCESS ? err : st;
    return clBuildProgram(*prog, 1, &ctx->dev.device, opts, NULL, NULL);
}

static const char *const k0_src = "__kernel void k0(__global float *d) { d[get_global_id(0)] = "
                                  "1.0f; }\n";
static const char *const k1_src = "__kernel void k1(__global float *d) {\n"
                                  "  asm volatile(\"wgmma.fence.sync.aligned;\");\n"
                                  "  d[get_global_id(0)] = 1.0f;\n}\n";
static const char *const opt_list[] = {"",
                                       "-cl-nv-arch sm_90a",
                                       "-cl-nv-arch=sm_90a",
                                       "-cl-nv-arch sm_90",
                                       "-cl-nv-arch=sm_90",
                                       "-cl-nv-arch sm_80",
                                       "-cl-nv-arch=sm_80",
                                       "-cl-nv-arch compute_90a",
                                       "-cl-nv-arch bogus"};

static void probe_options(const char *tag, const char *src)
{
    for (size_t i = 0; i < sizeof opt_list / sizeof *opt_list; i++) {
        cl_program p = NULL;
        cl_int rc = build(src, 0, opt_list[i], &p);
        char log[600] = "", tgt[64] = "";
        if (p) build_log(p, log, sizeof log);
        char *ptx = rc == CL_SUCCESS ? program_ptx(p) : NULL;
        ptx_line(ptx, ".target", tgt, sizeof tgt);
        printf("%s opts='%s' build=%d target='%s' log='%s'\n", tag, opt_list[i], rc, tgt, log);
        free(ptx);
        if (p) clReleaseProgram(p);
    }
}

/* Replaces the first `from` in s by `to`; malloc'd, NULL if absent. */
static char *replace(const char *s, const char *from, const char *to)
{
    const char *at = strstr(s, from);
    if (!at) return NULL;
    size_t a = (size_t)(at - s), nf = strlen(from), nt = strlen(to);
    char *r = malloc(strlen(s) - nf + nt + 1);
    if (!r) return NULL;
    memcpy(r, s, a);
    memcpy(r + a, to, nt);
    strcpy(r + a + nt, at + nf);
    return r;
}

/* Runs kernel k0-like `name` of p on 128 work-items; 1 if all wrote 1.0. */
static int run_ones(cl_program p, const char *name)
{
    cl_int err;
    int ok = 0;
    cl_kernel k = clCreateKernel(p, name, &err);
    cl_mem d = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, 128 * sizeof(float), NULL, &err);
    float h[128] = {0};
    size_t g = 128;
    if (k && d && clSetKernelArg(k, 0, sizeof d, &d) == CL_SUCCESS &&
        clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &g, &g, 0, NULL, NULL) == CL_SUCCESS &&
        clEnqueueReadBuffer(ctx->queue, d, CL_TRUE, 0, sizeof h, h, 0, NULL, NULL) == CL_SUCCESS) {
        ok = 1;
        for (int i = 0; i < 128; i++)
            ok &= h[i] == 1.0f;
    }
    if (k) clReleaseKernel(k);
    if (d) clReleaseMemObject(d);
    return ok;
}

static void report_bin(const char *tag, const char *ptx, const char *kname)
{
    cl_program p = NULL;
    cl_int rc = build(ptx, 1, "", &p);
    char log[600] = "";
    if (p) build_log(p, log, sizeof log);
    int ran = rc == CL_SUCCESS ? run_ones(p, kname) : 0;
    printf("%s build=%d ran=%s log='%s'\n", tag, rc,
           rc == CL_SUCCESS ? (ran ? "ok" : "WRONG") : "-", log);
    if (p) clReleaseProgram(p);
}

/* Writes text to $TC_PROBE_DUMP/name when that is set (the PTX, for the
 * record). */
static void dump(const char *name, const char *text)
{
    const char *dir = getenv("TC_PROBE_DUMP");
    char path[512];
    if (!dir || !text) return;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
}

/* Appends printf-style text at w; returns the new end. */
static char *put(char *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsprintf(w, fmt, ap);
    va_end(ap);
    return w + (n > 0 ? n : 0);
}

/* ---- hand-written wgmma PTX ---------------------------------------------- */

static char ptx_version[32] = ".version 8.0";

/* D (64x16) = A (64x8, row-major, from registers) * B (8x16) from local
 * memory through a descriptor whose offset fields come in p_desc. The B
 * image (128 floats) is copied as is into local memory; work-item w*32+l
 * holds the m64nNk8 tf32 fragments (warp w: rows 16w..16w+15; g = l/4,
 * t = l%4: a0 A[g][t], a1 A[g+8][t], a2 A[g][t+4], a3 A[g+8][t+4];
 * d[4j..4j+3] = D[g][8j+2t], D[g][8j+2t+1], D[g+8][8j+2t], D[g+8][8j+2t+1]). */
static const char *const wg_test_body =
    "\n.target sm_90a, texmode_independent\n.address_size 64\n\n"
    ".shared .align 256 .b8 sB[512];\n\n"
    ".visible .entry wg_test(.param .u64 .ptr .global .align 16 p_d,\n"
    "  .param .u64 .ptr .global .align 16 p_a, .param .u64 .ptr .global .align 16 p_b,\n"
    "  .param .u64 p_desc)\n"
    ".reqntid 128, 1, 1\n{\n"
    "  .reg .pred p<4>;\n  .reg .b32 r<32>;\n  .reg .b64 rd<32>;\n  .reg .f32 f<32>;\n"
    "  ld.param.u64 rd1, [p_d];\n  ld.param.u64 rd2, [p_a];\n"
    "  ld.param.u64 rd3, [p_b];\n  ld.param.u64 rd4, [p_desc];\n"
    "  cvta.to.global.u64 rd1, rd1;\n  cvta.to.global.u64 rd2, rd2;\n"
    "  cvta.to.global.u64 rd3, rd3;\n"
    "  mov.u32 r1, %tid.x;\n"
    "  mul.wide.u32 rd5, r1, 4;\n  add.u64 rd6, rd3, rd5;\n  ld.global.f32 f1, [rd6];\n"
    "  mov.u32 r2, sB;\n  shl.b32 r3, r1, 2;\n  add.u32 r4, r2, r3;\n"
    "  st.shared.f32 [r4], f1;\n"
    "  fence.proxy.async.shared::cta;\n  bar.sync 0;\n"
    "  shr.u32 r5, r1, 5;\n  and.b32 r6, r1, 31;\n  shr.u32 r7, r6, 2;\n  and.b32 r8, r6, 3;\n"
    "  shl.b32 r9, r5, 4;\n  add.u32 r9, r9, r7;\n"
    "  shl.b32 r10, r9, 3;\n  add.u32 r10, r10, r8;\n"
    "  mul.wide.u32 rd7, r10, 4;\n  add.u64 rd8, rd2, rd7;\n"
    "  ld.global.b32 r11, [rd8];\n  ld.global.b32 r12, [rd8+256];\n"
    "  ld.global.b32 r13, [rd8+16];\n  ld.global.b32 r14, [rd8+272];\n"
    "  shr.u32 r15, r2, 4;\n  and.b32 r15, r15, 16383;\n  cvt.u64.u32 rd9, r15;\n"
    "  or.b64 rd10, rd4, rd9;\n"
    "  mov.u32 r20, 0;\n  setp.ne.b32 p1, r20, 0;\n"
    "  wgmma.fence.sync.aligned;\n"
    "  wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 {f10,f11,f12,f13,f14,f15,f16,f17}, "
    "{r11,r12,r13,r14}, rd10, p1, 1, 1;\n"
    "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n"
    "  shl.b32 r16, r9, 4;\n  shl.b32 r17, r8, 1;\n  add.u32 r16, r16, r17;\n"
    "  mul.wide.u32 rd11, r16, 4;\n  add.u64 rd12, rd1, rd11;\n"
    "  st.global.f32 [rd12], f10;\n  st.global.f32 [rd12+4], f11;\n"
    "  st.global.f32 [rd12+512], f12;\n  st.global.f32 [rd12+516], f13;\n"
    "  st.global.f32 [rd12+32], f14;\n  st.global.f32 [rd12+36], f15;\n"
    "  st.global.f32 [rd12+544], f16;\n  st.global.f32 [rd12+548], f17;\n"
    "  ret;\n}\n";

static uint64_t desc_fields(unsigned lbo, unsigned sbo)
{
    return ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32);
}

/* Runs kernel `name` of p (arguments d, a, b, descriptor fields) on the
 * 64x8 * 8x16 product for both readings of the descriptor offsets; prints
 * a line per reading. */
static void check_wgmma(const char *tag, cl_program p, const char *name)
{
    float A[64 * 8], B[8 * 16], img[128], D[64 * 16];
    for (int i = 0; i < 64 * 8; i++)
        A[i] = (float)((i * 7 + 3) % 11 - 5);
    for (int i = 0; i < 8 * 16; i++)
        B[i] = (float)((i * 5 + 1) % 9 - 4);
    /* B image, K-major core matrices of 8 n x 4 k (16-byte rows): the two
     * k halves 128 bytes apart, the two n groups 256 bytes apart */
    for (int n = 0; n < 16; n++)
        for (int k = 0; k < 8; k++)
            img[(n / 8) * 64 + (k / 4) * 32 + (n % 8) * 4 + k % 4] = B[k * 16 + n];
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    cl_mem bd = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, sizeof D, NULL, &err);
    cl_mem ba =
        clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof A, A, &err);
    cl_mem bb = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof img,
                               img, &err);
    const unsigned v[2][2] = {{128, 256}, {256, 128}};
    for (int vi = 0; vi < 2 && k; vi++) {
        uint64_t desc = desc_fields(v[vi][0], v[vi][1]);
        size_t g = 128;
        for (int i = 0; i < 64 * 16; i++)
            D[i] = -999.0f;
        clEnqueueWriteBuffer(ctx->queue, bd, CL_TRUE, 0, sizeof D, D, 0, NULL, NULL);
        clSetKernelArg(k, 0, sizeof bd, &bd);
        clSetKernelArg(k, 1, sizeof ba, &ba);
        clSetKernelArg(k, 2, sizeof bb, &bb);
        clSetKernelArg(k, 3, sizeof desc, &desc);
        err = clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &g, &g, 0, NULL, NULL);
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(ctx->queue, bd, CL_TRUE, 0, sizeof D, D, 0, NULL, NULL);
        int bad = 0;
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < 16; j++) {
                double r = 0;
                for (int kk = 0; kk < 8; kk++)
                    r += (double)A[i * 8 + kk] * B[kk * 16 + j];
                bad += D[i * 16 + j] != (float)r;
            }
        printf("%s desc lbo=%u sbo=%u: run=%d wrong=%d of 1024 (D[0][0..3] = %g %g %g %g)\n", tag,
               v[vi][0], v[vi][1], err, bad, D[0], D[1], D[2], D[3]);
        if (err != CL_SUCCESS) break; /* the context is gone after a fault */
    }
    if (k) clReleaseKernel(k);
    clReleaseMemObject(bd);
    clReleaseMemObject(ba);
    clReleaseMemObject(bb);
}

static void probe_wgmma_test(void)
{
    char *ptx = xmalloc(strlen(ptx_version) + strlen(wg_test_body) + 1);
    strcpy(ptx, ptx_version);
    strcat(ptx, wg_test_body);
    dump("wg_test.ptx", ptx);
    cl_program p = NULL;
    cl_int rc = build(ptx, 1, "-cl-nv-verbose", &p);
    char log[600] = "";
    if (p) build_log(p, log, sizeof log);
    printf("c3 wgmma m64n16k8 tf32 (A registers, B descriptor) build=%d log='%s'\n", rc, log);
    free(ptx);
    if (rc == CL_SUCCESS) check_wgmma("c3", p, "wg_test");
    if (p) clReleaseProgram(p);
}

/* The route for a kernel in a .cl file: OpenCL C whose inline asm carries
 * the sm_90a instructions as PTX comments ("// TDCL_SM90A ..."), with their
 * operands substituted by the compiler; the host uncomments them in the
 * PTX the normal build produced, sets `.target sm_90a` and builds that
 * with clCreateProgramWithBinary. Same product and layouts as wg_test. */
static const char *const wg_cl_src =
    "__kernel __attribute__((reqd_work_group_size(128, 1, 1)))\n"
    "void wg_cl(__global float *d, const __global float *a, const __global float *b, ulong descf)\n"
    "{\n"
    "  __local float sB[128] __attribute__((aligned(256)));\n"
    "  const int tid = get_local_id(0), w = tid / 32, l = tid % 32, g = l / 4, t = l % 4;\n"
    "  const int r0 = 16 * w + g;\n"
    "  sB[tid] = b[tid];\n"
    "  asm volatile(\"// TDCL_SM90A fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  uint a0 = as_uint(a[r0 * 8 + t]), a1 = as_uint(a[(r0 + 8) * 8 + t]);\n"
    "  uint a2 = as_uint(a[r0 * 8 + t + 4]), a3 = as_uint(a[(r0 + 8) * 8 + t + 4]);\n"
    "  uint sa;\n"
    "  asm(\"mov.u32 %0, %1;\" : \"=r\"(sa) : \"r\"(sB));\n"
    "  ulong desc = descf | (ulong)((sa >> 4) & 0x3FFF);\n"
    "  float d0, d1, d2, d3, d4, d5, d6, d7;\n"
    "  asm volatile(\"// TDCL_SM90A wgmma.fence.sync.aligned;\" ::: \"memory\");\n"
    "  asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %13, 0;\\n\"\n"
    "      \"// TDCL_SM90A wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 \"\n"
    "      \"{%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, p, 1, 1;\\n}\"\n"
    "      : \"=f\"(d0), \"=f\"(d1), \"=f\"(d2), \"=f\"(d3), \"=f\"(d4), \"=f\"(d5), \"=f\"(d6), "
    "\"=f\"(d7)\n"
    "      : \"r\"(a0), \"r\"(a1), \"r\"(a2), \"r\"(a3), \"l\"(desc), \"r\"(0) : \"memory\");\n"
    "  asm volatile(\"// TDCL_SM90A wgmma.commit_group.sync.aligned;\" ::: \"memory\");\n"
    "  asm volatile(\"// TDCL_SM90A wgmma.wait_group.sync.aligned 0;\" ::: \"memory\");\n"
    "  __global float *o = d + r0 * 16 + 2 * t;\n"
    "  o[0] = d0; o[1] = d1; o[128] = d2; o[129] = d3;\n"
    "  o[8] = d4; o[9] = d5; o[136] = d6; o[137] = d7;\n"
    "}\n";

/* Every "// TDCL_SM90A " removed and the target set to sm_90a; malloc'd. */
static char *uncomment_sm90a(const char *ptx)
{
    const char *key = "// TDCL_SM90A ";
    char *r = xmalloc(strlen(ptx) + 16), *w = r;
    for (const char *s = ptx; *s;) {
        if (strncmp(s, key, strlen(key)) == 0)
            s += strlen(key);
        else if (strncmp(s, ".target sm_90,", 14) == 0 || strncmp(s, ".target sm_90\n", 14) == 0) {
            w = put(w, ".target sm_90a");
            s += 13;
        } else
            *w++ = *s++;
    }
    *w = '\0';
    return r;
}

static void probe_wgmma_cl(void)
{
    cl_program p = NULL;
    cl_int rc = build(wg_cl_src, 0, "-cl-std=CL1.2", &p);
    char log[600] = "";
    if (p) build_log(p, log, sizeof log);
    char *ptx = rc == CL_SUCCESS ? program_ptx(p) : NULL;
    if (p) clReleaseProgram(p);
    printf("c5 OpenCL C with sm_90a comments: normal build=%d log='%s'\n", rc, log);
    if (!ptx) return;
    char *fixed = uncomment_sm90a(ptx);
    dump("wg_cl_sm90a.ptx", fixed);
    p = NULL;
    rc = build(fixed, 1, "-cl-nv-verbose", &p);
    if (p) build_log(p, log, sizeof log);
    printf("c5 uncommented, .target sm_90a: build=%d log='%s'\n", rc, log);
    if (rc == CL_SUCCESS) check_wgmma("c5", p, "wg_cl");
    if (p) clReleaseProgram(p);
    free(fixed);
    free(ptx);
}

/* c7: thread-block clusters. NVIDIA's OpenCL has no launch attribute for
 * them; the PTX directive `.reqnctapercluster 2, 1, 1` put on the entry of
 * a normally built kernel asks for clusters of two work-groups at compile
 * time. Each work-group reports its rank in the cluster, the cluster size,
 * the cluster id, and the word its partner stored into its local memory
 * through the cluster's shared window (mapa + st.shared::cluster). */
static const char *const cluster_src =
    "__kernel void cl7(__global uint *o) {\n"
    "  __local uint w[1];\n"
    "  uint r, n, cid, me, far, got = 0;\n"
    "  asm volatile(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"(r));\n"
    "  asm volatile(\"mov.u32 %0, %%cluster_nctarank;\" : \"=r\"(n));\n"
    "  asm volatile(\"mov.u32 %0, %%clusterid.x;\" : \"=r\"(cid));\n"
    "  asm(\"mov.u32 %0, %1;\" : \"=r\"(me) : \"r\"(w));\n"
    "  if (n == 2) {\n"
    "    asm volatile(\"barrier.cluster.arrive;\\nbarrier.cluster.wait;\" ::: \"memory\");\n"
    "    asm volatile(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(far) : \"r\"(me), \"r\"(r "
    "^ 1));\n"
    "    if (get_local_id(0) == 0)\n"
    "      asm volatile(\"st.shared::cluster.u32 [%0], %1;\" :: \"r\"(far), \"r\"(100 + r) : "
    "\"memory\");\n"
    "    asm volatile(\"barrier.cluster.arrive;\\nbarrier.cluster.wait;\" ::: \"memory\");\n"
    "    got = w[0];\n"
    "    asm volatile(\"barrier.cluster.arrive;\\nbarrier.cluster.wait;\" ::: \"memory\");\n"
    "  }\n"
    "  if (get_local_id(0) == 0) {\n"
    "    uint g = get_group_id(0);\n"
    "    o[4 * g] = r; o[4 * g + 1] = n; o[4 * g + 2] = cid; o[4 * g + 3] = got;\n"
    "  }\n"
    "}\n";

static void probe_cluster(void)
{
    enum { G = 8 };
    cl_program p = NULL;
    cl_int rc = build(cluster_src, 0, "-cl-std=CL1.2", &p), err;
    char log[600] = "";
    if (p) build_log(p, log, sizeof log);
    char *ptx = rc == CL_SUCCESS ? program_ptx(p) : NULL;
    if (p) clReleaseProgram(p);
    printf("c7 cluster kernel, normal build=%d log='%s'\n", rc, log);
    if (!ptx) return;
    const char *dirs = getenv("C7_DIRECTIVES"); /* a variant, for the record */
    char with[200];
    snprintf(with, sizeof with, "\n%s\n{", dirs ? dirs : ".reqnctapercluster 2, 1, 1");
    char *t = uncomment_sm90a(ptx), *fixed = replace(t, "\n{", with);
    free(t);
    free(ptx);
    if (!fixed) return;
    dump("cl7_sm90a.ptx", fixed);
    p = NULL;
    rc = build(fixed, 1, "", &p);
    if (p) build_log(p, log, sizeof log);
    printf("c7 with '%s': build=%d log='%s'\n", with + 1, rc, log);
    free(fixed);
    if (rc != CL_SUCCESS) {
        if (p) clReleaseProgram(p);
        return;
    }
    cl_kernel k = clCreateKernel(p, "cl7", &err);
    cl_mem d = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, 4 * G * sizeof(cl_uint), NULL, &err);
    cl_uint h[4 * G];
    memset(h, 0xff, sizeof h);
    size_t g = 32 * G, l = 32;
    rc = clEnqueueWriteBuffer(ctx->queue, d, CL_TRUE, 0, sizeof h, h, 0, NULL, NULL);
    if (rc == CL_SUCCESS) rc = clSetKernelArg(k, 0, sizeof d, &d);
    if (rc == CL_SUCCESS)
        rc = clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &g, &l, 0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clEnqueueReadBuffer(ctx->queue, d, CL_TRUE, 0, sizeof h, h, 0, NULL, NULL);
    printf("c7 run=%d:", rc);
    for (int i = 0; rc == CL_SUCCESS && i < G; i++)
        printf(" [g%d rank %u of %u, cluster %u, partner wrote %u]", i, h[4 * i], h[4 * i + 1],
               h[4 * i + 2], h[4 * i + 3]);
    printf("\n");
    clReleaseMemObject(d);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* c8: local memory beyond the 48 KiB CL_DEVICE_LOCAL_MEM_SIZE reports, as a
 * __local kernel argument (dynamic shared memory on NVIDIA), for sizes from
 * 48 to 224 KiB: whether the launch is accepted and the memory usable (each
 * work-item writes and reads back its strided words). */
static const char *const bigl_src =
    "__kernel void c8(__global uint *o, __local uint *l, uint n) {\n"
    "  uint t = get_local_id(0), bad = 0;\n"
    "  for (uint i = t; i < n; i += get_local_size(0)) l[i] = i * 2654435761u;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint i = t; i < n; i += get_local_size(0)) bad += l[n - 1 - i] != (n - 1 - i) * "
    "2654435761u;\n"
    "  if (bad) atomic_inc(o);\n"
    "}\n";

static void probe_big_local(void)
{
    cl_program p = NULL;
    cl_int rc = build(bigl_src, 0, "-cl-std=CL1.2", &p), err;
    printf("c8 build=%d, device reports %llu bytes of local memory\n", rc,
           (unsigned long long)ctx->dev.local_mem);
    if (rc != CL_SUCCESS) return;
    cl_kernel k = clCreateKernel(p, "c8", &err);
    cl_mem d = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, sizeof(cl_uint), NULL, &err);
    for (int kib = 48; kib <= 224; kib += 16) {
        cl_uint zero = 0, n = (cl_uint)kib * 256, bad = 0;
        size_t g = 256 * 4, l = 256;
        rc = clEnqueueWriteBuffer(ctx->queue, d, CL_TRUE, 0, sizeof zero, &zero, 0, NULL, NULL);
        cl_int a0 = clSetKernelArg(k, 0, sizeof d, &d);
        cl_int a1 = clSetKernelArg(k, 1, (size_t)kib * 1024, NULL);
        cl_int a2 = clSetKernelArg(k, 2, sizeof n, &n);
        cl_int run = clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &g, &l, 0, NULL, NULL);
        cl_int fin = clFinish(ctx->queue);
        if (run == CL_SUCCESS && fin == CL_SUCCESS)
            clEnqueueReadBuffer(ctx->queue, d, CL_TRUE, 0, sizeof bad, &bad, 0, NULL, NULL);
        printf("c8 %3d KiB: setarg %d %d %d, launch %d, finish %d, work-groups wrong %u\n", kib, a0,
               a1, a2, run, fin, bad);
        if (fin != CL_SUCCESS) break;
    }
    clReleaseMemObject(d);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* The wgmma ceiling: each work-group is one warpgroup (128 work-items)
 * issuing UNR wgmma m64nNk8 tf32 per commit group on A and B in local
 * memory (descriptors, no swizzle), ITERS times, then summing its
 * accumulators so nothing is dropped. */
static char *peak_ptx(int n)
{
    size_t cap = 64 * 1024;
    char *s = xmalloc(cap), *w = s;
    int nacc = n / 2; /* accumulators per work-item: 64 * n / 128 */
    const int unr = 8;
    w = put(w,
            "%s\n.target sm_90a, texmode_independent\n.address_size 64\n\n"
            ".shared .align 256 .b8 sm[%d];\n\n"
            ".visible .entry wg_peak(.param .u64 .ptr .global .align 16 p_d,\n"
            "  .param .u64 .ptr .global .align 16 p_x, .param .u32 p_it)\n"
            ".reqntid 128, 1, 1\n{\n"
            "  .reg .pred p<4>;\n  .reg .b32 r<32>;\n  .reg .b64 rd<32>;\n"
            "  .reg .f32 f<8>;\n  .reg .f32 acc<%d>;\n"
            "  ld.param.u64 rd1, [p_d];\n  ld.param.u64 rd2, [p_x];\n"
            "  ld.param.u32 r1, [p_it];\n"
            "  cvta.to.global.u64 rd1, rd1;\n  cvta.to.global.u64 rd2, rd2;\n"
            "  mov.u32 r2, %%tid.x;\n  mov.u32 r3, sm;\n"
            "  and.b32 r4, r2, 63;\n  mul.wide.u32 rd3, r4, 4;\n  add.u64 rd4, rd2, rd3;\n"
            "  ld.global.f32 f1, [rd4];\n"
            "  mov.u32 r5, r2;\n"
            "FILL:\n  shl.b32 r6, r5, 2;\n  add.u32 r7, r3, r6;\n  st.shared.f32 [r7], f1;\n"
            "  add.u32 r5, r5, 128;\n  setp.lt.u32 p2, r5, %d;\n  @p2 bra FILL;\n"
            "  fence.proxy.async.shared::cta;\n  bar.sync 0;\n"
            "  shr.u32 r8, r3, 4;\n  and.b32 r8, r8, 16383;\n  cvt.u64.u32 rd5, r8;\n"
            "  or.b64 rd6, rd5, %llu;\n" /* A descriptor */
            "  add.u64 rd7, rd6, 128;\n" /* B at +2 KiB (>> 4) */
            "  mov.u32 r9, 1;\n  setp.ne.b32 p1, r9, 0;\n",
            ptx_version, 2048 + n * 32, nacc, (2048 + n * 32) / 4,
            (unsigned long long)desc_fields(128, 256));
    for (int i = 0; i < nacc; i++)
        w = put(w, "  mov.f32 acc%d, 0f00000000;\n", i);
    w = put(w, "  mov.u32 r10, 0;\n  wgmma.fence.sync.aligned;\nLOOP:\n");
    for (int u = 0; u < unr; u++) {
        w = put(w, "  wgmma.mma_async.sync.aligned.m64n%dk8.f32.tf32.tf32 {", n);
        for (int i = 0; i < nacc; i++)
            w = put(w, "acc%d%s", i, i + 1 < nacc ? "," : "");
        w = put(w, "}, rd6, rd7, p1, 1, 1;\n");
    }
    w = put(w, "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n"
               "  add.u32 r10, r10, 1;\n  setp.lt.u32 p3, r10, r1;\n  @p3 bra LOOP;\n"
               "  mov.f32 f2, 0f00000000;\n");
    for (int i = 0; i < nacc; i++)
        w = put(w, "  add.f32 f2, f2, acc%d;\n", i);
    w = put(w, "  mov.u32 r11, %%ctaid.x;\n  mad.lo.u32 r12, r11, 128, r2;\n"
               "  mul.wide.u32 rd8, r12, 4;\n  add.u64 rd9, rd1, rd8;\n"
               "  st.global.f32 [rd9], f2;\n  ret;\n}\n");
    return s;
}

/* The 3xtf32 k-step on wgmma, without global memory: each work-group is one
 * warpgroup owning a 64x128 tile of C. Per k-step (8 k) every work-item
 * loads its A fragment (4 floats) from local memory and splits it into
 * big (rounded to tf32, low 13 bits cleared) and small = x - big, splits 4
 * floats of the B slab into two other local buffers (the work a kernel
 * does on each slab once it lands), then after a barrier issues
 * A_big*B_big (into a zeroed partial at the first k-step of a chunk),
 * A_big*B_small and A_small*B_big with B from local memory (descriptors),
 * waits, and adds the partial into its float accumulators once per chunk
 * of CHUNK k-steps (the tensor cores truncate when they accumulate; the
 * float add rounds). Product flop counted once (2*64*128*8 per k-step). */
static char *split_ptx(int chunk)
{
    size_t cap = 256 * 1024;
    char *s = xmalloc(cap), *w = s;
    w = put(w,
            "%s\n.target sm_90a, texmode_independent\n.address_size 64\n\n"
            ".shared .align 256 .b8 sm[24576];\n\n"
            ".visible .entry wg_split(.param .u64 .ptr .global .align 16 p_d,\n"
            "  .param .u64 .ptr .global .align 16 p_x, .param .u32 p_it)\n"
            ".reqntid 128, 1, 1\n{\n"
            "  .reg .pred p<8>;\n  .reg .b32 r<64>;\n  .reg .b64 rd<32>;\n"
            "  .reg .f32 f<8>;\n  .reg .f32 acc<64>;\n  .reg .f32 part<64>;\n"
            "  .reg .b32 x<%d>;\n  .reg .b32 ab<%d>;\n  .reg .b32 as<%d>;\n"
            "  .reg .b32 y<12>;\n"
            "  ld.param.u64 rd1, [p_d];\n  ld.param.u64 rd2, [p_x];\n"
            "  ld.param.u32 r1, [p_it];\n"
            "  cvta.to.global.u64 rd1, rd1;\n  cvta.to.global.u64 rd2, rd2;\n"
            "  mov.u32 r2, %%tid.x;\n  mov.u32 r3, sm;\n"
            "  and.b32 r4, r2, 63;\n  mul.wide.u32 rd3, r4, 4;\n  add.u64 rd4, rd2, rd3;\n"
            "  ld.global.f32 f1, [rd4];\n"
            "  mov.u32 r5, r2;\n"
            "FILL:\n  shl.b32 r6, r5, 2;\n  add.u32 r7, r3, r6;\n  st.shared.f32 [r7], f1;\n"
            "  add.u32 r5, r5, 128;\n  setp.lt.u32 p2, r5, 4096;\n  @p2 bra FILL;\n"
            "  fence.proxy.async.shared::cta;\n  bar.sync 0;\n"
            "  shr.u32 r8, r3, 4;\n  and.b32 r8, r8, 16383;\n  cvt.u64.u32 rd5, r8;\n"
            "  or.b64 rd6, rd5, %llu;\n" /* B_big at 0 */
            "  add.u64 rd7, rd6, 256;\n" /* B_small at 4 KiB */
            "  shl.b32 r9, r2, 4;\n"
            "  add.u32 r20, r3, 8192;\n  add.u32 r20, r20, r9;\n" /* A slab, 16 B each */
            "  and.b32 r21, r9, 4095;\n  add.u32 r21, r21, r3;\n" /* B slab chunk */
            "  add.u32 r22, r21, 12288;\n"                        /* split B outputs */
            "  mov.u32 r11, 1;\n  setp.ne.b32 p1, r11, 0;\n  setp.eq.b32 p4, r11, 0;\n",
            ptx_version, 4 * chunk, 4 * chunk, 4 * chunk,
            (unsigned long long)desc_fields(128, 256));
    for (int i = 0; i < 64; i++)
        w = put(w, "  mov.f32 acc%d, 0f00000000;\n", i);
    w = put(w, "  mov.u32 r10, 0;\nLOOP:\n");
    for (int c = 0; c < chunk; c++) {
        w = put(w, "  ld.shared.v4.b32 {x%d,x%d,x%d,x%d}, [r20+%d];\n", 4 * c, 4 * c + 1, 4 * c + 2,
                4 * c + 3, 16 * c);
        for (int i = 4 * c; i < 4 * c + 4; i++)
            w = put(w,
                    "  add.u32 r30, x%d, 4096;\n  and.b32 ab%d, r30, -8192;\n"
                    "  sub.f32 r31, x%d, ab%d;\n  mov.b32 as%d, r31;\n",
                    i, i, i, i, i);
        w = put(w, "  ld.shared.v4.b32 {y0,y1,y2,y3}, [r21+%d];\n", 2048 * c % 4096);
        for (int i = 0; i < 4; i++)
            w = put(w,
                    "  add.u32 r30, y%d, 4096;\n  and.b32 y%d, r30, -8192;\n"
                    "  sub.f32 y%d, y%d, y%d;\n",
                    i, i + 4, i + 8, i, i + 4);
        w = put(w, "  st.shared.v4.b32 [r22+%d], {y4,y5,y6,y7};\n", 2048 * c % 4096);
        w = put(w, "  st.shared.v4.b32 [r22+%d], {y8,y9,y10,y11};\n", 2048 * c % 4096 + 4096);
    }
    w = put(w, "  fence.proxy.async.shared::cta;\n  bar.sync 0;\n  wgmma.fence.sync.aligned;\n");
    for (int c = 0; c < chunk; c++) {
        const char *ops[3][2] = {{"ab", "rd6"}, {"ab", "rd7"}, {"as", "rd6"}};
        for (int m = 0; m < 3; m++) {
            w = put(w, "  wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {");
            for (int i = 0; i < 64; i++)
                w = put(w, "part%d%s", i, i < 63 ? "," : "");
            w = put(w, "}, {%s%d,%s%d,%s%d,%s%d}, %s, %s, 1, 1;\n", ops[m][0], 4 * c, ops[m][0],
                    4 * c + 1, ops[m][0], 4 * c + 2, ops[m][0], 4 * c + 3, ops[m][1],
                    c == 0 && m == 0 ? "p4" : "p1");
        }
    }
    w = put(w, "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n");
    for (int i = 0; i < 64; i++)
        w = put(w, "  add.rn.f32 acc%d, acc%d, part%d;\n", i, i, i);
    w = put(w, "  add.u32 r10, r10, 1;\n  setp.lt.u32 p3, r10, r1;\n  @p3 bra LOOP;\n"
               "  mov.f32 f2, 0f00000000;\n");
    for (int i = 0; i < 64; i++)
        w = put(w, "  add.f32 f2, f2, acc%d;\n", i);
    w = put(w, "  mov.u32 r12, %%ctaid.x;\n  mad.lo.u32 r13, r12, 128, r2;\n"
               "  mul.wide.u32 rd8, r13, 4;\n  add.u64 rd9, rd1, rd8;\n"
               "  st.global.f32 [rd9], f2;\n  ret;\n}\n");
    return s;
}

/* Builds ptx (kernel `name`: d, x, iters) and times it with 1..4
 * work-groups of 128 per compute unit; flop_it is the flop of one loop
 * iteration of one work-group. */
static void time_ptx(const char *tag, char *ptx, const char *name, int iters, double flop_it)
{
    /* TC_PROBE_SCALE: iterations times this, for launches long enough to
     * meet the device's power management (sustained rather than cold) */
    const char *scale = getenv("TC_PROBE_SCALE");
    if (scale && atoi(scale) > 1) iters *= atoi(scale);
    cl_program p = NULL;
    cl_int rc = build(ptx, 1, "-cl-nv-verbose", &p);
    char log[600] = "";
    if (p) build_log(p, log, sizeof log);
    printf("%s build=%d log='%s'\n", tag, rc, log);
    cl_int err;
    cl_kernel k = rc == CL_SUCCESS ? clCreateKernel(p, name, &err) : NULL;
    float xs[64];
    for (int i = 0; i < 64; i++)
        xs[i] = 1.0f + (float)i / 64.0f;
    size_t cu = ctx->dev.compute_units;
    cl_mem x =
        clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof xs, xs, &err);
    cl_mem d =
        clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, cu * 8 * 128 * sizeof(float), NULL, &err);
    for (int wgs = 1; wgs <= 4 && k; wgs++) {
        size_t l = 128, g = cu * (size_t)wgs * l;
        double ms[7];
        clSetKernelArg(k, 0, sizeof d, &d);
        clSetKernelArg(k, 1, sizeof x, &x);
        clSetKernelArg(k, 2, sizeof iters, &iters);
        err = time_launches(ctx, k, g, l, ms);
        if (err != CL_SUCCESS) {
            printf("%s %d work-groups/CU: run error %d\n", tag, wgs, err);
            break;
        }
        double flop = (double)(g / 128) * iters * flop_it;
        printf("%s: %d warpgroups/CU: median %.3f ms, %.1f TFLOP/s (fastest %.1f, slowest %.1f)\n",
               tag, wgs, ms[3], flop / ms[3] / 1e9, flop / ms[0] / 1e9, flop / ms[6] / 1e9);
    }
    if (k) clReleaseKernel(k);
    if (p) clReleaseProgram(p);
    clReleaseMemObject(x);
    clReleaseMemObject(d);
}

static void probe_wgmma_split(void)
{
    const int chunks[3] = {1, 2, 4};
    for (int i = 0; i < 3; i++) {
        char *ptx = split_ptx(chunks[i]), tag[96];
        if (chunks[i] == 2) dump("wg_split2.ptx", ptx);
        snprintf(tag, sizeof tag, "c6 3xtf32 k-step on wgmma m64n128k8, float add every %d",
                 chunks[i]);
        time_ptx(tag, ptx, "wg_split", 4096 / chunks[i], chunks[i] * 2.0 * 64 * 128 * 8);
        free(ptx);
    }
}

static void probe_wgmma_peak(void)
{
    const int ns[2] = {256, 128};
    for (int ni = 0; ni < 2; ni++) {
        int n = ns[ni];
        char *ptx = peak_ptx(n), tag[64];
        if (n == 128) dump("wg_peak128.ptx", ptx);
        snprintf(tag, sizeof tag, "c4 wgmma m64n%dk8 tf32", n);
        time_ptx(tag, ptx, "wg_peak", n == 256 ? 2048 : 4096, 8 * 2.0 * 64 * n * 8);
        free(ptx);
    }
}

static void probe_ptx(void)
{
    cl_program p = NULL;
    cl_int rc = build(k0_src, 0, "", &p);
    char *ptx = rc == CL_SUCCESS ? program_ptx(p) : NULL;
    if (p) clReleaseProgram(p);
    char ver[64] = "", tgt[64] = "";
    ptx_line(ptx, ".version", ver, sizeof ver);
    ptx_line(ptx, ".target", tgt, sizeof tgt);
    printf("c0 normal build=%d version='%s' target='%s'\n", rc, ver, tgt);
    if (!ptx) return;
    dump("k0.ptx", ptx);
    if (ver[0]) snprintf(ptx_version, sizeof ptx_version, "%s", ver);
    char *a = replace(ptx, ".target sm_90", ".target sm_90a");
    /* a `.target sm_90a` already would have become sm_90aa: rebuild from
     * the original then */
    if (a && strstr(a, "sm_90aa")) {
        free(a);
        a = strdup(ptx);
    }
    char *f = a ? replace(a, "ret;", "wgmma.fence.sync.aligned;\n\tret;") : NULL;
    char *fn = replace(ptx, "ret;", "wgmma.fence.sync.aligned;\n\tret;");
    if (a) report_bin("c1 patched .target sm_90a:", a, "k0");
    dump("k0_fence_sm90a.ptx", f);
    if (f) report_bin("c2 sm_90a + wgmma.fence:", f, "k0");
    if (fn) report_bin("c2n sm_90 + wgmma.fence (control):", fn, "k0");
    free(a);
    free(f);
    free(fn);
    free(ptx);
}

/* ---- L2 bandwidth -------------------------------------------------------- */

/* V = 0 ld.global.cg, 1 plain loads, 2 cp.async.cg, 3 cp.async.ca. Work-group
 * of 256; group w reads chunk (w + pass * 37) % groups of M float4 per
 * work-item, coalesced. */
static const char *const bw_src =
    "#define WG 256\n"
    "__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
    "void bw(__global float *out, const __global float4 *buf, int m, int passes) {\n"
    "  const int groups = get_num_groups(0), t = get_local_id(0);\n"
    "  float acc = 0.0f;\n"
    "#if V >= 2\n"
    "  __local float4 slot[8 * WG];\n"
    "#endif\n"
    "  for (int p = 0; p < passes; p++) {\n"
    "    const __global float4 *c = buf + (size_t)((get_group_id(0) + p * 37) % groups) * m * WG + "
    "t;\n"
    "#if V == 0\n"
    "    for (int u = 0; u < m; u++) {\n"
    "      float x, y, z, w;\n"
    "      asm(\"ld.global.cg.v4.f32 {%0,%1,%2,%3}, [%4];\" : \"=f\"(x), \"=f\"(y), \"=f\"(z), "
    "\"=f\"(w) : \"l\"(c + u * WG));\n"
    "      acc += (x + y) + (z + w);\n"
    "    }\n"
    "#elif V == 1\n"
    "    for (int u = 0; u < m; u++) { float4 v = c[u * WG]; acc += (v.x + v.y) + (v.z + v.w); }\n"
    "#else\n"
    "    for (int u = 0; u < m; u++) {\n"
    "      __local float4 *s = slot + (u % 8) * WG + t;\n"
    "#if V == 2\n"
    "      asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" :: \"r\"(s), \"l\"(c + u * "
    "WG));\n"
    "#else\n"
    "      asm volatile(\"cp.async.ca.shared.global [%0], [%1], 16;\" :: \"r\"(s), \"l\"(c + u * "
    "WG));\n"
    "#endif\n"
    "      asm volatile(\"cp.async.commit_group;\");\n"
    "      asm volatile(\"cp.async.wait_group 6;\");\n"
    "    }\n"
    "    asm volatile(\"cp.async.wait_group 0;\");\n"
    "    acc += slot[t].x;\n"
    "#endif\n"
    "  }\n"
    "  out[get_global_id(0)] = acc;\n"
    "}\n";

static void probe_bw(void)
{
    static const char *const names[4] = {"ld.global.cg", "ld.global (L1)", "cp.async.cg",
                                         "cp.async.ca"};
    size_t cu = ctx->dev.compute_units, groups = cu * 8, unit = groups * 256 * 16;
    const int ms_list[] = {1, 2, 4, 5, 6, 8, 10, 256};
    size_t most = unit * 256;
    cl_int err;
    float *h = xmalloc(most);
    for (size_t i = 0; i < most / 4; i++)
        h[i] = 1.0f + (float)(i % 97) / 97.0f;
    cl_mem buf =
        clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, most, h, &err);
    free(h);
    cl_mem out =
        clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, groups * 256 * sizeof(float), NULL, &err);
    if (!buf || !out) {
        printf("d buffers: %d\n", err);
        return;
    }
    for (int v = 0; v < 4; v++) {
        char opts[32];
        snprintf(opts, sizeof opts, "-DV=%d", v);
        cl_program p = NULL;
        cl_int rc = build(bw_src, 0, opts, &p);
        if (rc != CL_SUCCESS) {
            char log[600] = "";
            if (p) build_log(p, log, sizeof log);
            printf("d %s build=%d log='%s'\n", names[v], rc, log);
            if (p) clReleaseProgram(p);
            continue;
        }
        cl_kernel k = clCreateKernel(p, "bw", &err);
        for (size_t mi = 0; mi < sizeof ms_list / sizeof *ms_list; mi++) {
            int m = ms_list[mi], passes = m >= 64 ? 8 : 2048 / m;
            size_t l = 256, g = groups * l;
            double ms[7];
            clSetKernelArg(k, 0, sizeof out, &out);
            clSetKernelArg(k, 1, sizeof buf, &buf);
            clSetKernelArg(k, 2, sizeof m, &m);
            clSetKernelArg(k, 3, sizeof passes, &passes);
            err = time_launches(ctx, k, g, l, ms);
            if (err != CL_SUCCESS) {
                printf("d %s m=%d: run error %d\n", names[v], m, err);
                break;
            }
            double bytes = (double)unit * m * passes;
            printf("d %-15s buffer %7.2f MiB: median %.3f ms, %.2f TB/s (best %.2f)\n", names[v],
                   (double)unit * m / 1048576.0, ms[3], bytes / ms[3] / 1e9, bytes / ms[0] / 1e9);
        }
        clReleaseKernel(k);
        clReleaseProgram(p);
    }
    clReleaseMemObject(buf);
    clReleaseMemObject(out);
}

/* ---- the wgmma kernels' data path (e) ------------------------------------ */

/* ptx with the "// TDCL_SM90A " markers removed and the target sm_90a, as
 * matmul_tc.c does, except (math 0) on the wgmma.mma_async lines, which
 * then stay comments: the kernel moves every byte and waits on every
 * barrier, and the tensor cores do nothing. malloc'd. */
static char *uncomment_but_mma(const char *ptx, int math)
{
    const char *key = "// TDCL_SM90A ";
    const size_t kl = strlen(key);
    char *r = xmalloc(strlen(ptx) + 16), *w = r;
    for (const char *s = ptx; *s;) {
        size_t len = strcspn(s, "\n") + (s[strcspn(s, "\n")] == '\n');
        char *line = xmalloc(len + 1);
        memcpy(line, s, len);
        line[len] = '\0';
        char *at = strstr(line, key);
        if (at && (math || !strstr(at, "wgmma.mma_async")))
            memmove(at, at + kl, strlen(at + kl) + 1);
        if (strncmp(line, ".target sm_90", 13) == 0 && (line[13] == ',' || line[13] == '\n'))
            w = put(w, ".target sm_90a%s", line + 13);
        else
            w = put(w, "%s", line);
        free(line);
        s += len;
    }
    *w = '\0';
    return r;
}

/* cl/matmul/wg.cl built with the product's options for an n^3 product
 * (opts as matmul_tc.c's wg_build writes them), run on packed operands of
 * random floats with (math 1) and without (0) the wgmma instructions. */
static void wg_path(const char *tag, const char *opts, int bm, int bn, int nb2, int nt, int n,
                    int math)
{
    tdcl_err e = {0};
    cl_program first = NULL, p = NULL;
    if (tdcl_mm_prog_build(ctx, TDCL_MM_PROG_WG, opts, &first, &e) != TDCL_OK) {
        printf("e %s: %s\n", tag, e.msg);
        return;
    }
    char *ptx = program_ptx(first), *fixed = ptx ? uncomment_but_mma(ptx, math) : NULL;
    clReleaseProgram(first);
    cl_int err, rc = fixed ? build(fixed, 1, "", &p) : CL_INVALID_BINARY;
    free(ptx);
    free(fixed);
    if (rc != CL_SUCCESS) {
        char log[600] = "";
        if (p) build_log(p, log, sizeof log);
        printf("e %s: build %d '%s'\n", tag, rc, log);
        if (p) clReleaseProgram(p);
        return;
    }
    int nk = n / 8, tm = n / bm, tn = n / bn;
    size_t na = (size_t)n * n, nbv = na * (size_t)nb2, most = nbv > na ? nbv : na;
    float *h = xmalloc(most * sizeof *h);
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < most; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        h[i] = (float)(x >> 40) / (float)(1 << 24) - 0.5f;
    }
    cl_mem a =
        clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, na * 4, h, &err);
    cl_mem b =
        clCreateBuffer(ctx->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nbv * 4, h, &err);
    cl_mem c = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, na * 4, NULL, &err);
    free(h);
    cl_kernel k = clCreateKernel(p, "matmul_wg", &err);
    clSetKernelArg(k, 0, sizeof a, &a);
    clSetKernelArg(k, 1, sizeof b, &b);
    clSetKernelArg(k, 2, sizeof c, &c);
    clSetKernelArg(k, 3, sizeof n, &n);
    clSetKernelArg(k, 4, sizeof n, &n);
    clSetKernelArg(k, 5, sizeof nk, &nk);
    clSetKernelArg(k, 6, sizeof tm, &tm);
    clSetKernelArg(k, 7, sizeof tn, &tn);
    double ms[7];
    err = time_launches(ctx, k, (size_t)tm * tn * nt, (size_t)nt, ms);
    if (err == CL_SUCCESS) {
        double bytes = (double)tm * tn * nk * 8.0 * (bm + nb2 * bn) * 4.0;
        printf("e %-7s %s %d^3: median %.3f ms (min %.3f): %.1f TFLOP/s of product, slabs %.2f "
               "TB/s from L2 into local memory\n",
               tag, math ? "whole kernel     " : "data path, no mma", n, ms[3], ms[0],
               2.0 * n * (double)n * n / ms[3] / 1e9, bytes / ms[3] / 1e9);
    } else
        printf("e %s: run error %d\n", tag, err);
    clReleaseKernel(k);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
    clReleaseProgram(p);
}

/* The built-in wgmma plans at 8192^3 (-v of `tiledcl bench matmul
 * --precision tf32|3xtf32` prints them): tf32 64x256, 4 stages, LAG 1,
 * work-item 0 producing; 3xtf32 64x128, B stored twice, a producer warp. */
static void probe_wg_path(void)
{
    static const char *const t1 = "-DPREC=1 -DNWG=1 -DBN=256 -DBK=8 -DSTAGES=4 -DLAG=1 -DKSUB=16 "
                                  "-DGROUP_M=16 -DPRODUCER=0";
    static const char *const t3 = "-DPREC=3 -DNWG=1 -DBN=128 -DBK=8 -DSTAGES=4 -DLAG=1 -DKSUB=16 "
                                  "-DGROUP_M=32 -DPRODUCER=1";
    for (int r = 0; r < 2; r++)
        for (int math = 1; math >= 0; math--) {
            wg_path("tf32", t1, 64, 256, 1, 128, 8192, math);
            wg_path("3xtf32", t3, 64, 128, 2, 160, 8192, math);
        }
}

int main(int argc, char **argv)
{
    tdcl_err e = {0};
    if (tdcl_ctx_open(NULL, &ctx, &e)) {
        fprintf(stderr, "bench_tc_probe: %s\n", e.msg);
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* a probe that hangs keeps what came before */
    printf("device: %s, driver %s, %u compute units\n", ctx->dev.device_name,
           ctx->dev.driver_version, ctx->dev.compute_units);
    /* c0-c2 set ptx_version, which c3-c4 use */
    static const char *const all[] = {"a", "b", "c", "c3", "c4", "c5", "c6", "c7", "c8", "d", "e"};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        int want = argc < 2;
        for (int j = 1; j < argc; j++)
            want |= strcmp(argv[j], all[i]) == 0;
        if (!want) continue;
        const char *s = all[i];
        if (!strcmp(s, "a")) probe_options("a", k0_src);
        if (!strcmp(s, "b")) probe_options("b", k1_src);
        if (!strcmp(s, "c")) probe_ptx();
        if (!strcmp(s, "c3")) probe_wgmma_test();
        if (!strcmp(s, "c4")) probe_wgmma_peak();
        if (!strcmp(s, "c5")) probe_wgmma_cl();
        if (!strcmp(s, "c6")) probe_wgmma_split();
        if (!strcmp(s, "c7")) probe_cluster();
        if (!strcmp(s, "c8")) probe_big_local();
        if (!strcmp(s, "d")) probe_bw();
        if (!strcmp(s, "e")) probe_wg_path();
        fflush(stdout);
    }
    tdcl_ctx_close(ctx);
    return 0;
}
