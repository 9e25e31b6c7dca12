/* tile-avg over bands of rows (tdcl_ta_bands_*): the kernel built once for
 * the widest band, a few host slots the caller fills while the device works
 * on another, and each band reduced into the caller's memory. */
#include "ops/tile_avg/tile_avg.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/mem.h"
#include "runtime/xfer.h"
#include "ops/tile_avg/ta_reduce.h"

#define TB_MAX_SLOTS 4
#define TB_ALIGN 4096 /* host slots: page-aligned, so a CPU device reads them in place */

struct tdcl_ta_bands {
    tdcl_ctx *ctx;
    tdcl_ta_opts o;
    int64_t cols, band_rows, ocols;
    int channels, nslots;
    tdcl_dtype in, out_type;
    size_t in_row_bytes, out_row_bytes; /* an input row; a row of results */
    void *host[TB_MAX_SLOTS];
    cl_mem dev_in[TB_MAX_SLOTS], dev_out;
    int in_place; /* a CPU device reads the host slots themselves */
    cl_program prog;
    cl_kernel kern;
    size_t gws[3], lws[3];
    char desc[256];
};

static tdcl_status make_slot(tdcl_ta_bands *b, int i, size_t bytes, tdcl_err *err)
{
    cl_int rc;
    if (posix_memalign(&b->host[i], TB_ALIGN, bytes)) {
        b->host[i] = NULL;
        return tdcl_fail(err, TDCL_ENOMEM, "tile-avg: out of memory for a band of %.1f MiB",
                         bytes / 1048576.0);
    }
    /* a CPU device's buffer over the slot: zero copy (the slot outlives
     * the buffer, and the host writes it only while no kernel reads it) */
    b->dev_in[i] =
        clCreateBuffer(b->ctx->context, CL_MEM_READ_ONLY | (b->in_place ? CL_MEM_USE_HOST_PTR : 0),
                       bytes, b->in_place ? b->host[i] : NULL, &rc);
    if (rc != CL_SUCCESS)
        return tdcl_fail_cl(err, rc, "clCreateBuffer", "tile-avg: a band of %.1f MiB",
                            bytes / 1048576.0);
    return TDCL_OK;
}

tdcl_status tdcl_ta_bands_create(tdcl_ctx *ctx, const tdcl_ta_opts *o, int64_t cols, int channels,
                                 tdcl_dtype in, int64_t band_rows, int nslots, tdcl_ta_bands **out,
                                 tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_ta_bands *b = NULL;
    size_t in_bytes = 0, out_bytes = 0;
    int64_t orows = 0, ocols = 0;
    cl_int rc;
    *out = NULL;
    if (channels < 1 || channels > 4 || nslots < 1 || nslots > TB_MAX_SLOTS || band_rows < 1 ||
        band_rows % o->tile_rows || (in != TDCL_U8 && in != TDCL_U16))
        return tdcl_fail(err, TDCL_EINVAL,
                         "tile-avg: bands of %lld rows of %d channel(s) of %s, %d slots: "
                         "not a shape that bands take",
                         (long long)band_rows, channels, tdcl_dtype_name(in), nslots);
    TDCL_TRY(tdcl_ta_check(o, channels, in, err));
    TDCL_TRY(tdcl_ta_shape(o, band_rows, cols, &orows, &ocols, err));
    b = calloc(1, sizeof *b);
    if (!b) {
        st = tdcl_fail(err, TDCL_ENOMEM, "tile-avg: out of memory");
        goto out;
    }
    b->ctx = ctx;
    b->o = *o;
    b->cols = cols;
    b->band_rows = band_rows;
    b->channels = channels;
    b->nslots = nslots;
    b->in = in;
    b->out_type = tdcl_ta_result_type(&ctx->dev, o, in);
    b->ocols = (cols + o->tile_cols - 1) / o->tile_cols;
    b->in_place = (ctx->dev.type & CL_DEVICE_TYPE_CPU) != 0;
    TDCL_TRY(tdcl_matrix_bytes(1, cols, channels, in, &b->in_row_bytes, err));
    TDCL_TRY(tdcl_matrix_bytes(1, b->ocols, channels, b->out_type, &b->out_row_bytes, err));
    TDCL_TRY(tdcl_matrix_bytes(band_rows, cols, channels, in, &in_bytes, err));
    out_bytes = b->out_row_bytes * (size_t)orows;
    if (in_bytes > ctx->dev.max_alloc) {
        st = tdcl_fail(err, TDCL_ELIMIT,
                       "tile-avg: a band of %lld rows of %lld needs a %.1f MiB buffer; '%s' "
                       "allows %.1f MiB",
                       (long long)band_rows, (long long)cols, in_bytes / 1048576.0,
                       ctx->dev.device_name, ctx->dev.max_alloc / 1048576.0);
        goto out;
    }
    TDCL_TRY(tdcl_mem_check((uint64_t)in_bytes * (uint64_t)nslots, "tile-avg's bands", 0, 0, err));
    TDCL_TRY(ta_reduce_build(ctx, o, channels, in, b->out_type,
                             ctx->dev.fp64 && !o->acc_f32 ? TDCL_F64 : TDCL_F32, orows, b->ocols,
                             &b->prog, &b->kern, b->gws, b->lws, b->desc, sizeof b->desc, err));
    for (int i = 0; i < nslots; i++)
        TDCL_TRY(make_slot(b, i, in_bytes, err));
    b->dev_out = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, out_bytes, NULL, &rc);
    if (rc != CL_SUCCESS) {
        st = tdcl_fail_cl(err, rc, "clCreateBuffer", "tile-avg: %.1f MiB", out_bytes / 1048576.0);
        goto out;
    }
    TDCL_CL_TRY(err, clSetKernelArg(b->kern, 1, sizeof(cl_mem), &b->dev_out), "clSetKernelArg");
out:
    if (st) {
        tdcl_ta_bands_destroy(b);
        return st;
    }
    *out = b;
    return TDCL_OK;
}

void *tdcl_ta_bands_slot(tdcl_ta_bands *b, int slot)
{
    return slot >= 0 && slot < b->nslots ? b->host[slot] : NULL;
}

tdcl_dtype tdcl_ta_bands_out_type(const tdcl_ta_bands *b)
{
    return b->out_type;
}

const char *tdcl_ta_bands_describe(const tdcl_ta_bands *b)
{
    return b ? b->desc : "";
}

/* The kernel's arguments for a band of rows rows; its launch rows. */
static tdcl_status set_band_args(tdcl_ta_bands *b, int slot, int64_t rows, int64_t orows,
                                 tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_ulong dims[6] = {(cl_ulong)rows,     (cl_ulong)b->cols,        (cl_ulong)orows,
                        (cl_ulong)b->ocols, (cl_ulong)b->o.tile_rows, (cl_ulong)b->o.tile_cols};
    TDCL_CL_TRY(err, clSetKernelArg(b->kern, 0, sizeof(cl_mem), &b->dev_in[slot]),
                "clSetKernelArg");
    for (cl_uint a = 0; a < 6; a++)
        TDCL_CL_TRY(err, clSetKernelArg(b->kern, 2 + a, sizeof(cl_ulong), &dims[a]),
                    "clSetKernelArg");
    b->gws[1] = (size_t)orows;
out:
    return st;
}

tdcl_status tdcl_ta_bands_run(tdcl_ta_bands *b, int slot, int64_t rows, void *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_event ev = NULL;
    tdcl_ctx *ctx = b->ctx;
    int64_t orows = (rows + b->o.tile_rows - 1) / b->o.tile_rows;
    double t0 = tdcl_now_ms();
    if (slot < 0 || slot >= b->nslots || rows < 1 || rows > b->band_rows)
        return tdcl_fail(err, TDCL_EINVAL, "tile-avg: a band of %lld rows in slot %d",
                         (long long)rows, slot);
    if (!b->in_place)
        TDCL_TRY(tdcl_xfer_upload(ctx, b->dev_in[slot], 0, b->host[slot],
                                  b->in_row_bytes * (size_t)rows, err));
    double t1 = tdcl_now_ms();
    ctx->t.upload_ms += t1 - t0;
    TDCL_TRY(set_band_args(b, slot, rows, orows, err));
    TDCL_CL_TRY(err,
                clEnqueueNDRangeKernel(ctx->queue, b->kern, 3, NULL, b->gws, b->lws, 0, NULL, &ev),
                "clEnqueueNDRangeKernel");
    TDCL_CL_TRY(err,
                clEnqueueReadBuffer(ctx->queue, b->dev_out, CL_TRUE, 0,
                                    b->out_row_bytes * (size_t)orows, out, 0, NULL, NULL),
                "clEnqueueReadBuffer");
    double k = tdcl_event_ms(ev);
    ctx->t.kernel_ms += k;
    ctx->t.download_ms += tdcl_now_ms() - t1 - k;
out:
    if (ev) clReleaseEvent(ev);
    return st;
}

void tdcl_ta_bands_destroy(tdcl_ta_bands *b)
{
    if (!b) return;
    if (b->kern) clReleaseKernel(b->kern);
    if (b->prog) clReleaseProgram(b->prog);
    if (b->dev_out) clReleaseMemObject(b->dev_out);
    for (int i = 0; i < TB_MAX_SLOTS; i++) {
        if (b->dev_in[i]) clReleaseMemObject(b->dev_in[i]);
        free(b->host[i]);
    }
    free(b);
}
