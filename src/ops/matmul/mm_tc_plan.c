/* What the tensor-core plan's files share (mm_tc_plan.h): its buffers,
 * its release and its build log. */
#include "ops/matmul/mm_tc_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "runtime/xfer.h"

/* A device buffer of elems floats, filled from m (NULL: left empty)
 * through the pinned staging ring: CL_MEM_COPY_HOST_PTR from pageable
 * memory was slow enough to take most of a large product's time on an
 * H200 (docs/internals/tensor-cores.md). */
tdcl_status tdcl_mm_tc_upload(tdcl_mm_tc *p, cl_mem *buf, const tdcl_matrix *m, size_t elems,
                              cl_mem_flags flags, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix conv = {0};
    const void *src = m ? m->data : NULL;
    cl_int rc;
    if (m && m->dtype != TDCL_F32) {
        /* a float64 past float32's range would become infinite: refused */
        TDCL_TRY(tdcl_matrix_narrow(m, TDCL_F32, 0, &conv, err));
        src = conv.data;
    }
    *buf = clCreateBuffer(p->ctx->context, flags, elems * sizeof(float), NULL, &rc);
    if (rc != CL_SUCCESS) {
        *buf = NULL;
        st = tdcl_fail_cl(err, rc, "clCreateBuffer", "a tensor-core matmul buffer of %zu bytes",
                          elems * sizeof(float));
        goto out;
    }
    if (src) st = tdcl_xfer_upload(p->ctx, *buf, 0, src, elems * sizeof(float), err);
out:
    tdcl_matrix_free(&conv);
    return st;
}

void tdcl_mm_tc_log_build(const tdcl_mm_tc *p)
{
    tdcl_log_build_log(p->prog, p->ctx->dev.device, TDCL_LOG_VERBOSE, "matmul: tensor-core");
}

void tdcl_mm_tc_release(tdcl_mm_tc *p)
{
    cl_mem ms[] = {p->a, p->b, p->c, p->ap, p->bp};
    for (int i = 0; i < 5; i++)
        if (ms[i]) clReleaseMemObject(ms[i]);
    if (p->k) clReleaseKernel(p->k);
    if (p->kpack) clReleaseKernel(p->kpack);
    if (p->prog) clReleaseProgram(p->prog);
    p->a = p->b = p->c = p->ap = p->bp = NULL;
    p->k = p->kpack = NULL;
    p->prog = NULL;
    p->wgmma = 0;
}
