/* PTX editing for the wgmma kernel (module prefix tdcl_mm_ptx_): NVIDIA's
 * OpenCL compiles for `.target sm_90`, and wgmma needs sm_90a
 * (mm_ptx.c says how the kernel's PTX is turned into an sm_90a program). */
#ifndef TDCL_MM_PTX_H
#define TDCL_MM_PTX_H

#include "runtime/clrt.h"
#include "base/status.h"

/* ptx with every "// TDCL_SM90A " removed and `.target sm_90` made
 * `.target sm_90a`; malloc'd, NULL when out of memory. */
char *tdcl_mm_ptx_sm90a(const char *ptx);

/* Builds an sm_90a program for ctx's device from first, a program of
 * name (for messages) built from source: its PTX through
 * tdcl_mm_ptx_sm90a, loaded with clCreateProgramWithBinary and built with
 * options. *out is set once the program is created, also when its build
 * fails (its log is the caller's to show). TDCL_EUNSUPPORTED when first's
 * binary is no PTX for .target sm_90. */
tdcl_status tdcl_mm_ptx_build_sm90a(tdcl_ctx *ctx, cl_program first, const char *name,
                                    const char *options, cl_program *out, tdcl_err *err);

#endif
