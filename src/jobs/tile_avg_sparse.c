/* The tile-avg job for sparse inputs: read as CSR, reduce on the device,
 * verify on request, write the dense results atomically. */
#include "jobs/tile_avg_sparse.h"

#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/log.h"
#include "io/image.h"
#include "base/mem.h"
#include "io/matio.h"
#include "io/mtx.h"
#include "io/sparse_io.h"
#include "ops/tile_avg/ta_sparse.h"

/* The results written by the output's extension, or handed over. */
static tdcl_status deliver(const tdcl_ta_job_opts *jo, tdcl_matrix *res, tdcl_err *err)
{
    const char *path = jo->out_path;
    char comment[256];
    if (jo->result) {
        *jo->result = *res;
        memset(res, 0, sizeof *res);
        return TDCL_OK;
    }
    if (path && strcmp(path, "-") != 0 && tdcl_image_path(path)) {
        tdcl_img_wopts wo = {.bits = tdcl_path_has_ext(path, ".pbm") ? 1 : 8,
                             .clip = jo->clip,
                             .quality = jo->quality,
                             .compress = jo->compress};
        return tdcl_image_write_opts(path, res, &wo, err);
    }
    snprintf(comment, sizeof comment, "tile-avg %s %lldx%lld of sparse %s",
             tdcl_ta_op_name(jo->ta.op), (long long)jo->ta.tile_rows, (long long)jo->ta.tile_cols,
             tdcl_path_display(jo->in_path));
    return tdcl_matrix_write(path, res, comment, err);
}

static tdcl_status verify(const tdcl_ta_opts *o, const tdcl_csr *m, const tdcl_matrix *got,
                          tdcl_err *err)
{
    double worst = 0;
    tdcl_log(TDCL_LOG_STATUS, "verifying the results on the host...");
    tdcl_status st = tdcl_ta_sparse_compare(o, m, got, &worst, err);
    if (!st)
        tdcl_log(TDCL_LOG_VERBOSE,
                 "tile-avg: largest error against the host's reduction of the entries %.3g of "
                 "the tile's mean |x|",
                 worst);
    return st;
}

/* Refuses, from a Matrix Market header alone, a result that cannot fit
 * (at float32's 4 bytes a tile, the smallest result type), before the CSR
 * arrays are read: their row offsets alone take 4 or 8 bytes a row. */
static tdcl_status precheck(const tdcl_ta_job_opts *jo, tdcl_err *err)
{
    tdcl_mtx_header h;
    tdcl_err e;
    int64_t orows, ocols;
    size_t bytes;
    char what[128];
    if (tdcl_path_has_ext(jo->in_path, ".npz") || tdcl_mtx_peek_path(jo->in_path, &h, &e))
        return TDCL_OK;
    tdcl_status st = tdcl_ta_shape(&jo->ta, h.rows, h.cols, &orows, &ocols, err);
    if (st) return st;
    snprintf(what, sizeof what, "the %lldx%lld result", (long long)orows, (long long)ocols);
    if (tdcl_matrix_bytes(orows, ocols, 1, TDCL_F32, &bytes, NULL))
        return tdcl_fail(err, TDCL_ELIMIT, "tile-avg: %s does not fit in memory", what);
    return tdcl_mem_check(bytes, what, 0, 0, err);
}

tdcl_status tdcl_ta_sparse_job(tdcl_exec *ex, const tdcl_ta_job_opts *jo, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_csr m = {0};
    tdcl_matrix res = {0};
    tdcl_timing *t = tdcl_exec_timing(ex);
    int64_t orows, ocols;
    if (ex->kind != TDCL_EXEC_ONE)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "tile-avg: '%s' is sparse; its tiles are reduced on one device, not "
                         "over several",
                         tdcl_path_display(jo->in_path));
    TDCL_TRY(tdcl_out_precheck(jo->out_path, err));
    TDCL_TRY(precheck(jo, err));
    double t0 = tdcl_now_ms();
    TDCL_TRY(tdcl_sparse_read_path(jo->in_path, jo->max_bytes, &m, err));
    if (t) t->read_ms += tdcl_now_ms() - t0;
    tdcl_log(TDCL_LOG_VERBOSE, "tile-avg: %s: sparse %lldx%lld %s, %lld entries (CSR)",
             tdcl_path_display(jo->in_path), (long long)m.rows, (long long)m.cols,
             m.pattern ? "pattern" : tdcl_dtype_name(m.dtype), (long long)m.nnz);
    TDCL_TRY(tdcl_ta_sparse_check(&jo->ta, &m, &orows, &ocols, err));
    TDCL_TRY(tdcl_exec_wait(ex, err));
    TDCL_TRY(tdcl_ta_sparse_run(ex->ctx, &jo->ta, &m, &res, err));
    if (jo->verify) TDCL_TRY(verify(&jo->ta, &m, &res, err));
    if (jo->retype) TDCL_TRY(tdcl_ta_retype(&res, jo->out_type, err));
    t0 = tdcl_now_ms();
    st = deliver(jo, &res, err);
    if (t) t->write_ms += tdcl_now_ms() - t0;
out:
    tdcl_csr_free(&m);
    tdcl_matrix_free(&res);
    return st;
}
