/* PTX editing for the wgmma kernel (module prefix tdcl_mm_ptx_).
 *
 * wgmma exists only for `.target sm_90a`, and NVIDIA's OpenCL compiles for
 * `.target sm_90` whatever the options say. The kernel therefore writes its
 * sm_90a instructions as PTX comments ("// TDCL_SM90A ..."); the plan
 * builds the .cl normally, takes the program "binary" (on NVIDIA's OpenCL,
 * PTX text), removes the markers, sets `.target sm_90a` and hands the text
 * back to clCreateProgramWithBinary + clBuildProgram, which run ptxas on it,
 * through the kernel cache (tdcl_ctx_program_binary: keyed by the edited
 * PTX, the options, the device and the driver).
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
    char *ptx = NULL, *fixed = NULL, what[160];
    size_t n = 0;
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
    snprintf(what, sizeof what, "%s as sm_90a PTX", name);
    st = tdcl_ctx_program_binary(ctx, what, (const unsigned char *)fixed, strlen(fixed) + 1,
                                 options, out, err);
out:
    free(ptx);
    free(fixed);
    return st;
}
