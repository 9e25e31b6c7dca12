/* The plan's device buffers and the uploads of its inputs, converted to
 * the plan's type: all at once for a product in one piece, or kept on the
 * host for execute to upload panel by panel. */
#include "ops/matmul/mm_plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"

static tdcl_status make_buffer(tdcl_mm_plan *p, cl_mem *m, double elems, cl_mem_flags flags,
                               void *host, tdcl_err *err)
{
    cl_int rc;
    *m = clCreateBuffer(p->ctx->context, flags, (size_t)elems * p->esz, host, &rc);
    if (rc != CL_SUCCESS) {
        *m = NULL;
        return tdcl_fail_cl(err, rc, "clCreateBuffer", "a matmul buffer of %.0f bytes on '%s'",
                            elems * (double)p->esz, p->ctx->dev.device_name);
    }
    return TDCL_OK;
}

/* The host memory the plan will hold: its buffers where the device's
 * memory is the host's (CPU devices; PoCL aborts when an allocation
 * fails), the converted copies of a panelled product, and the result. */
tdcl_status tdcl_mm_check_host_memory(const tdcl_mm_plan *p, tdcl_err *err)
{
    int64_t d[3] = {p->pm, p->pk, p->pn};
    double n[TDCL_MM_NBUFS], elems = (double)p->M * (double)p->N;
    tdcl_mm_panel_sizes(p, d, n);
    if (p->ctx->dev.type & CL_DEVICE_TYPE_CPU)
        for (int i = 0; i < TDCL_MM_NBUFS; i++)
            elems += n[i];
    if (p->npm * p->npk * p->npn > 1)
        elems += (double)p->M * p->K + (double)p->K * p->N + (double)p->M * p->N;
    char what[160];
    snprintf(what, sizeof what,
             "the %" PRId64 "x%" PRId64 " * %" PRId64 "x%" PRId64 " %s product on '%s'", p->M, p->K,
             p->K, p->N, tdcl_dtype_name(p->type), p->ctx->dev.device_name);
    return tdcl_mem_check((uint64_t)(elems * (double)p->esz), what, 0, 0, err);
}

tdcl_status tdcl_mm_make_buffers(tdcl_mm_plan *p, const tdcl_matrix *a, const tdcl_matrix *b,
                                 tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t d[3] = {p->pm, p->pk, p->pn};
    double n[TDCL_MM_NBUFS];
    tdcl_mm_panel_sizes(p, d, n);
    /* zero copy on a CPU device: A and B in place (when of the plan's type),
     * C in the driver's host memory, which the caller maps */
    const tdcl_matrix *in[2] = {a, b};
    cl_mem *ms[2] = {&p->a, &p->b};
    for (int i = 0; i < 2; i++) {
        p->borrowed[i] = p->zero_copy && in[i]->dtype == p->type;
        TDCL_TRY(make_buffer(p, ms[i], n[i],
                             CL_MEM_READ_ONLY | (p->borrowed[i] ? CL_MEM_USE_HOST_PTR : 0),
                             p->borrowed[i] ? in[i]->data : NULL, err));
    }
    TDCL_TRY(make_buffer(
        p, &p->c, n[2], CL_MEM_READ_WRITE | (p->zero_copy ? CL_MEM_ALLOC_HOST_PTR : 0), NULL, err));
    if (p->kind == TDCL_MM_CPU) {
        TDCL_TRY(make_buffer(p, &p->ap, n[3], CL_MEM_READ_WRITE, NULL, err));
        TDCL_TRY(make_buffer(p, &p->bp, n[4], CL_MEM_READ_WRITE, NULL, err));
    }
    if (p->pipe) { /* B whole (one panel of K and N); A's and C's panels in two slots each */
        TDCL_TRY(make_buffer(p, &p->a2, n[0], CL_MEM_READ_ONLY, NULL, err));
        TDCL_TRY(make_buffer(p, &p->c2, n[2], CL_MEM_READ_WRITE, NULL, err));
    }
    if (n[5] > 0) TDCL_TRY(make_buffer(p, &p->at, n[5], CL_MEM_READ_WRITE, NULL, err));
    if (n[6] > 0) TDCL_TRY(make_buffer(p, &p->w, n[6], CL_MEM_READ_WRITE, NULL, err));
out:
    return st;
}

/* m (input `name`) converted to the plan's type, refusing a value the type
 * cannot hold (a float64 past float32's range would become infinite). */
static tdcl_status convert_input(const tdcl_mm_plan *p, const tdcl_matrix *m, const char *name,
                                 tdcl_matrix *t, tdcl_err *err)
{
    tdcl_status st = tdcl_matrix_narrow(m, p->type, 0, t, err);
    if (st == TDCL_ERANGE && err) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s: %.900s; compute in float64", name, err->msg);
        snprintf(err->msg, sizeof err->msg, "%s", msg);
        err->param = TDCL_PARAM_TYPE;
    }
    return st;
}

/* Converts m to the plan's type; *data is m's own buffer when no
 * conversion is needed, else a new one stored in *owned too. */
static tdcl_status as_type(const tdcl_mm_plan *p, const tdcl_matrix *m, const char *name,
                           const void **data, void **owned, tdcl_err *err)
{
    *owned = NULL;
    if (m->dtype == p->type) {
        *data = m->data;
        return TDCL_OK;
    }
    tdcl_matrix t;
    tdcl_status st = convert_input(p, m, name, &t, err);
    if (st) return st;
    *data = *owned = t.data;
    return TDCL_OK;
}

/* A pipelined plan: B converted and uploaded whole now, once, through the
 * context's pinned ring; A's rows read at execute from the caller's
 * memory where of the plan's type, else from a converted copy; B kept
 * only for the host's int64 range search. Over a set each device has its
 * own context, and OpenCL copies between buffers of one context only: no
 * GPU-to-GPU broadcast of B, each device takes it from host memory. */
static tdcl_status keep_pipe_inputs(tdcl_mm_plan *p, const tdcl_matrix *a, const tdcl_matrix *b,
                                    tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const void *db;
    void *ob = NULL;
    TDCL_TRY(as_type(p, a, "A", &p->src_a, &p->ha, err));
    TDCL_TRY(as_type(p, b, "B", &db, &ob, err));
    if (p->type == TDCL_I64 && !p->wrap)
        p->range_check = !tdcl_mm_i64_bound_ok(p->src_a, db, p->M, p->K, p->N);
    TDCL_TRY(tdcl_xfer_upload(p->ctx, p->b, 0, db, (size_t)(p->K * p->N) * p->esz, err));
    if (p->range_check) {
        p->src_b = db;
        p->hb = ob;
        ob = NULL;
    }
out:
    free(ob);
    return st;
}

/* Keeps converted host copies for panel-by-panel uploads. */
tdcl_status tdcl_mm_keep_inputs(tdcl_mm_plan *p, const tdcl_matrix *a, const tdcl_matrix *b,
                                tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    if (p->pipe) return keep_pipe_inputs(p, a, b, err);
    const tdcl_matrix *in[2] = {a, b};
    void **dst[2] = {&p->ha, &p->hb};
    for (int i = 0; i < 2; i++) {
        tdcl_matrix t;
        TDCL_TRY(convert_input(p, in[i], i ? "B" : "A", &t, err));
        *dst[i] = t.data;
    }
    p->src_a = p->ha;
    p->src_b = p->hb;
    if (p->type == TDCL_I64 && !p->wrap)
        p->range_check = !tdcl_mm_i64_bound_ok(p->ha, p->hb, p->M, p->K, p->N);
    size_t bytes;
    TDCL_TRY(tdcl_matrix_bytes(p->M, p->N, 1, p->type, &bytes, err));
    if (!(p->hc = malloc(bytes)))
        st = tdcl_fail(err, TDCL_ENOMEM, "cannot allocate %zu bytes for the product", bytes);
out:
    return st;
}

tdcl_status tdcl_mm_upload_whole(tdcl_mm_plan *p, const tdcl_matrix *a, const tdcl_matrix *b,
                                 tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const void *da, *db;
    void *oa = NULL, *ob = NULL;
    TDCL_TRY(as_type(p, a, "A", &da, &oa, err));
    TDCL_TRY(as_type(p, b, "B", &db, &ob, err));
    if (p->type == TDCL_I64 && !p->wrap)
        p->range_check = !tdcl_mm_i64_bound_ok(da, db, p->M, p->K, p->N);
    /* through pinned staging on a GPU (xfer.h) */
    if (!p->borrowed[0])
        TDCL_TRY(tdcl_xfer_upload(p->ctx, p->a, 0, da, (size_t)(p->M * p->K) * p->esz, err));
    if (!p->borrowed[1])
        TDCL_TRY(tdcl_xfer_upload(p->ctx, p->b, 0, db, (size_t)(p->K * p->N) * p->esz, err));
out:
    free(oa);
    free(ob);
    return st;
}
