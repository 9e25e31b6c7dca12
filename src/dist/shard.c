/* Shards: band splits, pinned host buffers, the parallel step. */
#include "dist/shard.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "base/pool.h"

tdcl_status tdcl_shard_split(int64_t rows, size_t n, int64_t align, int64_t *begin, tdcl_err *err)
{
    if (align < 1) align = 1;
    int64_t blocks = (rows + align - 1) / align;
    if (n == 0 || (int64_t)n > blocks) {
        if (align == 1)
            return tdcl_fail(err, TDCL_EINVAL,
                             "%zu shards for a grid of %" PRId64
                             " rows: each shard needs a row at least; use fewer devices",
                             n, rows);
        return tdcl_fail(err, TDCL_EINVAL,
                         "%zu shards for %" PRId64 " rows in blocks of %" PRId64
                         ": each shard needs a block at least; use fewer devices",
                         n, rows, align);
    }
    int64_t per = blocks / (int64_t)n, extra = blocks % (int64_t)n;
    begin[0] = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t b = per + ((int64_t)i < extra ? 1 : 0);
        int64_t e = begin[i] + b * align;
        begin[i + 1] = e < rows ? e : rows;
    }
    return TDCL_OK;
}

tdcl_status tdcl_pinned_alloc(tdcl_ctx *ctx, size_t bytes, tdcl_pinned *p, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_int rc;
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->bytes = bytes;
    p->mem =
        clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &rc);
    TDCL_CL_TRY(err, rc, "clCreateBuffer");
    p->ptr = clEnqueueMapBuffer(ctx->queue, p->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                0, NULL, NULL, &rc);
    TDCL_CL_TRY(err, rc, "clEnqueueMapBuffer");
out:
    if (st) tdcl_pinned_free(p);
    return st;
}

void tdcl_pinned_free(tdcl_pinned *p)
{
    if (p->ptr) {
        clEnqueueUnmapMemObject(p->ctx->queue, p->mem, p->ptr, 0, NULL, NULL);
        clFinish(p->ctx->queue);
    }
    if (p->mem) clReleaseMemObject(p->mem);
    memset(p, 0, sizeof *p);
}

int64_t tdcl_shard_halo(double fixed_ms, double row_ms, int64_t thinnest)
{
    double k = row_ms > 0 ? sqrt(fixed_ms / (2 * row_ms)) : TDCL_SHARD_HALO_MAX;
    int64_t want = k >= TDCL_SHARD_HALO_MAX ? TDCL_SHARD_HALO_MAX : k < 1 ? 1 : (int64_t)(k + 0.5);
    return want < thinnest ? want : thinnest;
}

static double gen_cost(double fixed_ms, double row_ms, int64_t band, int64_t k)
{
    return row_ms * (double)(band + 2 * k) + fixed_ms / (double)(k > 0 ? k : 1);
}

int tdcl_shard_halo_worth(double fixed_ms, double row_ms, int64_t band, int64_t from, int64_t to)
{
    return gen_cost(fixed_ms, row_ms, band, to) <= 0.95 * gen_cost(fixed_ms, row_ms, band, from);
}

tdcl_status tdcl_shard_run(size_t n, void (*fn)(void *arg, int i), void *arg,
                           const tdcl_shard_stat *stat, size_t stat_stride, tdcl_err *err)
{
    tdcl_pool_run((int)n, fn, arg);
    for (size_t i = 0; i < n; i++) {
        const tdcl_shard_stat *s = (const tdcl_shard_stat *)((const char *)stat + i * stat_stride);
        if (s->st) {
            if (err) *err = s->err;
            return s->st;
        }
    }
    return TDCL_OK;
}
