/* PTX editing for the wgmma kernel (module prefix tdcl_mm_ptx_).
 *
 * wgmma exists only for `.target sm_90a`, and NVIDIA's OpenCL compiles for
 * `.target sm_90` whatever the options say. The kernel therefore writes its
 * sm_90a instructions as PTX comments ("// TDCL_SM90A ..."); the plan
 * builds the .cl normally, takes the program "binary" (on NVIDIA's OpenCL,
 * PTX text), removes the markers, sets `.target sm_90a` and hands the text
 * back to clCreateProgramWithBinary + clBuildProgram, which run ptxas on it.
 * Not documented by NVIDIA: that the binary is PTX and that edited PTX is
 * accepted was found on driver 580.159.04 (docs/internals/tensor-cores.md);
 * a driver that stops accepting it fails the build, and the plan falls back. */
#include "ops/matmul/mm_ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tdcl_mm_ptx_sm90a(const char *ptx)
{
    static const char key[] = "// TDCL_SM90A ", tgt[] = ".target sm_90";
    char *r = malloc(strlen(ptx) + 2), *w = r;
    int done = 0;
    if (!r) return NULL;
    for (const char *s = ptx; *s;) {
        if (strncmp(s, key, sizeof key - 1) == 0) {
            s += sizeof key - 1;
        } else if (!done && strncmp(s, tgt, sizeof tgt - 1) == 0 && s[sizeof tgt - 1] != 'a') {
            memcpy(w, ".target sm_90a", 14);
            w += 14, s += sizeof tgt - 1, done = 1;
        } else {
            *w++ = *s++;
        }
    }
    *w = '\0';
    return r;
}

tdcl_status tdcl_mm_ptx_build_sm90a(tdcl_ctx *ctx, cl_program first, const char *name,
                                    const char *options, cl_program *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_program prog = NULL;
    char *ptx = NULL, *fixed = NULL, call[128];
    size_t n = 0;
    cl_int rc, bst;
    cl_device_id dev = ctx->dev.device;
    *out = NULL;
    TDCL_CL_TRY(err, clGetProgramInfo(first, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL),
                "clGetProgramInfo");
    if (!(ptx = calloc(n + 1, 1))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
        goto out;
    }
    TDCL_CL_TRY(err, clGetProgramInfo(first, CL_PROGRAM_BINARIES, sizeof ptx, &ptx, NULL),
                "clGetProgramInfo");
    if (!strstr(ptx, ".target sm_90") || !(fixed = tdcl_mm_ptx_sm90a(ptx))) {
        st = tdcl_fail(err, TDCL_EUNSUPPORTED,
                       "the wgmma kernel needs PTX for .target sm_90 from device '%s'",
                       ctx->dev.device_name);
        goto out;
    }
    size_t len = strlen(fixed) + 1;
    const unsigned char *bin = (const unsigned char *)fixed;
    prog = clCreateProgramWithBinary(ctx->context, 1, &dev, &len, &bin, &bst, &rc);
    if (rc == CL_SUCCESS && bst != CL_SUCCESS) rc = bst;
    snprintf(call, sizeof call, "clCreateProgramWithBinary (%s as sm_90a PTX)", name);
    TDCL_CL_TRY(err, rc, call);
    *out = prog;
    prog = NULL;
    rc = clBuildProgram(*out, 1, &dev, options, NULL, NULL);
    snprintf(call, sizeof call, "clBuildProgram (%s as sm_90a PTX)", name);
    TDCL_CL_TRY(err, rc, call);
out:
    if (prog) clReleaseProgram(prog);
    free(ptx);
    free(fixed);
    return st;
}
