/* The tile-avg job: reads a matrix or image, runs the plan, verifies on
 * request, and writes the means atomically. */
#include "jobs/tile_avg_job.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/log.h"
#include "io/image.h"
#include "io/matio.h"
#include "jobs/shard_tile_avg.h"

/* Reads the input: an image by its extension, else a matrix file. *bits
 * receives the image's bit depth (8 for a matrix). */
static tdcl_status read_input(const tdcl_ta_job_opts *jo, tdcl_matrix *m, int *bits, tdcl_err *err)
{
    *bits = 8;
    if (strcmp(jo->in_path, "-") != 0 && tdcl_image_path(jo->in_path)) {
        int maxval = 255;
        tdcl_status st = tdcl_image_read(jo->in_path, m, &maxval, err);
        *bits = maxval > 255 ? 16 : 8;
        if (st == TDCL_OK && jo->max_bytes &&
            tdcl_matrix_count(m) * tdcl_dtype_size(m->dtype) > jo->max_bytes) {
            tdcl_matrix_free(m);
            return tdcl_fail(err, TDCL_ELIMIT, "'%s': the image is larger than --max-bytes %zu",
                             jo->in_path, jo->max_bytes);
        }
        return st;
    }
    return tdcl_matrix_read(jo->in_path, jo->max_bytes, m, err);
}

static tdcl_status write_output(const tdcl_ta_job_opts *jo, const tdcl_matrix *m, int bits,
                                tdcl_err *err)
{
    const char *path = jo->out_path;
    if (path && strcmp(path, "-") != 0 && tdcl_image_path(path))
        return tdcl_image_write(path, m, tdcl_path_has_ext(path, ".pbm") ? 1 : bits, err);
    if (m->channels > 1 && (!path || strcmp(path, "-") == 0))
        return tdcl_fail(err, TDCL_EINVAL,
                         "tile-avg: a %d-channel result needs an image output such as -o out.png",
                         m->channels);
    char comment[256];
    snprintf(comment, sizeof comment, "tile-avg %lldx%lld of %s", (long long)jo->ta.tile_rows,
             (long long)jo->ta.tile_cols, tdcl_path_display(jo->in_path));
    return tdcl_matrix_write(path, m, comment, err);
}

static tdcl_status verify(const tdcl_ta_job_opts *jo, const tdcl_matrix *in, const tdcl_matrix *got,
                          tdcl_err *err)
{
    double worst = 0;
    tdcl_status st = tdcl_ta_compare(&jo->ta, in, got, &worst, err);
    if (st) return st;
    tdcl_log(TDCL_LOG_VERBOSE,
             "tile-avg: largest error against the float64 host reference "
             "%.3g of the tile's mean |x|",
             worst);
    if (!(worst <= 1e-6))
        return tdcl_fail(err, TDCL_EVERIFY,
                         "tile-avg: the device's means differ from the float64 host reference "
                         "by up to %.3g of a tile's mean |x| (allowed 1e-06)",
                         worst);
    return TDCL_OK;
}

tdcl_status tdcl_ta_job(tdcl_ctx *ctx, const tdcl_ta_job_opts *jo, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix in = {0}, res = {0};
    int bits = 8;
    double t0 = tdcl_now_ms();
    TDCL_TRY(read_input(jo, &in, &bits, err));
    if (jo->set) { /* several devices: the set's contexts keep their own times */
        TDCL_TRY(tdcl_devset_wait(jo->set, err));
        TDCL_TRY(tdcl_ta_shards_run(jo->set, &jo->ta, &in, &res, err));
        if (jo->verify) TDCL_TRY(verify(jo, &in, &res, err));
        TDCL_TRY(write_output(jo, &res, bits, err));
        goto out;
    }
    ctx->t.read_ms += tdcl_now_ms() - t0;
    TDCL_TRY(tdcl_ctx_wait(ctx, err));
    tdcl_log(TDCL_LOG_VERBOSE, "tile-avg: %s: %lldx%lld, %d channel(s), %s",
             tdcl_path_display(jo->in_path), (long long)in.rows, (long long)in.cols, in.channels,
             tdcl_dtype_name(in.dtype));
    TDCL_TRY(tdcl_ta_run(ctx, &jo->ta, &in, &res, err));
    if (jo->verify) TDCL_TRY(verify(jo, &in, &res, err));
    t0 = tdcl_now_ms();
    st = write_output(jo, &res, bits, err);
    ctx->t.write_ms += tdcl_now_ms() - t0;
out:
    tdcl_matrix_free(&in);
    tdcl_matrix_free(&res);
    return st;
}
