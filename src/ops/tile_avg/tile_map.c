/* tile-map: launches cl/tile_map.cl, one work-item per element in
 * work-groups of one tile each, and checks the indices each recorded
 * against the host's arithmetic. */
#include "ops/tile_avg/tile_avg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

/* n rounded up to a multiple of m: a launch covers the ragged edge tiles. */
static size_t round_up(size_t n, size_t m)
{
    return (n + m - 1) / m * m;
}

static tdcl_status map_check_limits(tdcl_ctx *ctx, int64_t rows, int64_t cols, int64_t t, int64_t u,
                                    tdcl_err *err)
{
    const tdcl_device_info *d = &ctx->dev;
    if (rows < 1 || cols < 1 || t < 1 || u < 1 || t > rows || u > cols)
        return tdcl_fail(err, TDCL_EINVAL,
                         "tile-map: expected a tile of at least 1x1 within the %lldx%lld matrix, "
                         "got %lldx%lld",
                         (long long)rows, (long long)cols, (long long)t, (long long)u);
    if (rows > TDCL_TA_MAP_MAX_CELLS / cols)
        return tdcl_fail(err, TDCL_EINVAL,
                         "tile-map: a %lldx%lld matrix has more than the %d cells tile-map shows",
                         (long long)rows, (long long)cols, TDCL_TA_MAP_MAX_CELLS);
    if ((size_t)u > d->max_item_sizes[0] || (size_t)t > d->max_item_sizes[1] ||
        (size_t)(t * u) > d->max_wg)
        return tdcl_fail(
            err, TDCL_ELIMIT,
            "tile-map: a %lldx%lld tile is a work-group of %lld items; '%s' allows %zu "
            "(at most %zu columns by %zu rows)",
            (long long)t, (long long)u, (long long)(t * u), d->device_name, d->max_wg,
            d->max_item_sizes[0], d->max_item_sizes[1]);
    return TDCL_OK;
}

/* Every cell's indices against the arithmetic the kernels rely on. */
static tdcl_status map_verify(const tdcl_ta_map *m, tdcl_err *err)
{
    for (int64_t i = 0; i < m->rows; i++)
        for (int64_t j = 0; j < m->cols; j++) {
            const int32_t *c = m->cells + ((size_t)i * (size_t)m->cols + (size_t)j) * 6;
            int64_t want[6] = {
                i, j, i / m->tile_rows, j / m->tile_cols, i % m->tile_rows, j % m->tile_cols};
            for (int k = 0; k < 6; k++)
                if (c[k] != want[k])
                    return tdcl_fail(err, TDCL_EVERIFY,
                                     "tile-map: element (%lld,%lld) recorded %d for index %d, "
                                     "expected %lld",
                                     (long long)i, (long long)j, c[k], k, (long long)want[k]);
        }
    return TDCL_OK;
}

tdcl_status tdcl_ta_map_run(tdcl_ctx *ctx, int64_t rows, int64_t cols, int64_t t, int64_t u,
                            tdcl_ta_map *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    cl_mem buf = NULL;
    cl_event ev = NULL;
    cl_int rc;
    memset(out, 0, sizeof *out);
    TDCL_TRY(map_check_limits(ctx, rows, cols, t, u, err));
    size_t n = (size_t)rows * (size_t)cols * 6;
    out->cells = calloc(n, sizeof *out->cells);
    if (!out->cells) {
        st = tdcl_fail(err, TDCL_ENOMEM, "tile-map: out of memory");
        goto out;
    }
    *out = (tdcl_ta_map){rows, cols, t, u, out->cells};
    TDCL_TRY(tdcl_ctx_program(ctx, "tile_map.cl", "", &prog, err));
    TDCL_TRY(tdcl_ctx_kernel(prog, "tile_map", &k, err));
    size_t kwg = 0;
    if (clGetKernelWorkGroupInfo(k, ctx->dev.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg,
                                 NULL) == CL_SUCCESS &&
        kwg && (size_t)(t * u) > kwg) {
        st = tdcl_fail(err, TDCL_ELIMIT,
                       "tile-map: a %lldx%lld tile is a work-group of %lld items; the kernel "
                       "allows %zu on '%s'",
                       (long long)t, (long long)u, (long long)(t * u), kwg, ctx->dev.device_name);
        goto out;
    }
    buf = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, n * sizeof(cl_int), NULL, &rc);
    TDCL_CL_TRY(err, rc, "clCreateBuffer");
    cl_ulong dims[2] = {(cl_ulong)rows, (cl_ulong)cols};
    TDCL_CL_TRY(err, clSetKernelArg(k, 0, sizeof buf, &buf), "clSetKernelArg");
    TDCL_CL_TRY(err, clSetKernelArg(k, 1, sizeof dims[0], &dims[0]), "clSetKernelArg");
    TDCL_CL_TRY(err, clSetKernelArg(k, 2, sizeof dims[1], &dims[1]), "clSetKernelArg");
    size_t lws[2] = {(size_t)u, (size_t)t};
    size_t gws[2] = {round_up((size_t)cols, lws[0]), round_up((size_t)rows, lws[1])};
    TDCL_CL_TRY(err, clEnqueueNDRangeKernel(ctx->queue, k, 2, NULL, gws, lws, 0, NULL, &ev),
                "clEnqueueNDRangeKernel");
    TDCL_CL_TRY(err,
                clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, 0, n * sizeof(cl_int), out->cells, 1,
                                    &ev, NULL),
                "clEnqueueReadBuffer");
    ctx->t.kernel_ms += tdcl_event_ms(ev);
    TDCL_TRY(map_verify(out, err));
out:
    if (ev) clReleaseEvent(ev);
    if (buf) clReleaseMemObject(buf);
    if (k) clReleaseKernel(k);
    if (prog) clReleaseProgram(prog);
    if (st) tdcl_ta_map_free(out);
    return st;
}

void tdcl_ta_map_free(tdcl_ta_map *m)
{
    if (!m) return;
    free(m->cells);
    memset(m, 0, sizeof *m);
}
