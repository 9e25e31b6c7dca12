/* tile-avg over MPI ranks (tdcl_ta_mpi_run in dist/tile_avg_run.h): the
 * bands of tile_avg_shards.c, one per rank; rank 0 sends each rank its
 * rows and gathers the means. No exchange: the result is one device's. */
#include "dist/tile_avg_run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "io/matio.h"
#include "io/npy.h"
#include "dist/mpi.h"

#if TDCL_HAVE_MPI
#include <mpi.h>
#endif

#if !TDCL_HAVE_MPI

tdcl_status tdcl_ta_mpi_run(const char *devices, const tdcl_ta_opts *o, tdcl_status in_st,
                            const tdcl_matrix *in, const char *npy_path, const char *npy_out,
                            int *written, tdcl_matrix *out, tdcl_err *err)
{
    (void)devices, (void)o, (void)in_st, (void)in, (void)npy_path, (void)npy_out, (void)written;
    (void)out;
    return tdcl_fail(err, TDCL_EUNSUPPORTED, "built without MPI");
}

tdcl_status tdcl_ta_mpi_bands(tdcl_ctx *ctx, const tdcl_ta_opts *o, tdcl_status in_st,
                              const tdcl_matrix *in, const char *npy_path, const char *npy_out,
                              int *written, tdcl_matrix *out, tdcl_err *err)
{
    (void)ctx, (void)o, (void)in_st, (void)in, (void)npy_path, (void)npy_out, (void)written;
    (void)out;
    return tdcl_fail(err, TDCL_EUNSUPPORTED, "built without MPI");
}

tdcl_status tdcl_ta_mpi_own_band(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_matrix *in,
                                 tdcl_matrix *part, tdcl_err *err)
{
    (void)ctx, (void)o, (void)in, (void)part;
    return tdcl_fail(err, TDCL_EUNSUPPORTED, "built without MPI");
}

#else

#define SYNC TDCL_MPI_SYNC

static size_t row_bytes(const tdcl_matrix *m)
{
    return (size_t)m->cols * (size_t)m->channels * tdcl_dtype_size(m->dtype);
}

/* Rank 0 sends each rank its rows; the others receive theirs into band. */
static tdcl_status scatter(const tdcl_matrix *in, const int64_t *begin, int rank, int size,
                           tdcl_matrix *band, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t rows = begin[rank + 1] - begin[rank];
    if (rank != 0) {
        st = tdcl_matrix_alloc(band, rows, band->cols, band->channels, band->dtype, err);
        return st ? st : tdcl_mpi_move(0, band->data, (size_t)rows * row_bytes(band), 0, err);
    }
    for (int r = 1; r < size && st == TDCL_OK; r++)
        st = tdcl_mpi_move(1, (char *)in->data + (size_t)begin[r] * row_bytes(in),
                           (size_t)(begin[r + 1] - begin[r]) * row_bytes(in), r, err);
    *band = *in; /* rank 0's band: a view of its rows */
    band->rows = rows;
    return st;
}

/* Rank 0 receives every rank's means into out (allocated there). */
static tdcl_status gather(const tdcl_ta_opts *o, const tdcl_matrix *part, const int64_t *begin,
                          int rank, int size, int64_t orows, int64_t ocols, tdcl_matrix *out,
                          tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    if (rank != 0)
        return tdcl_mpi_move(1, part->data, (size_t)part->rows * row_bytes(part), 0, err);
    TDCL_TRY(tdcl_matrix_alloc(out, orows, ocols, part->channels, part->dtype, err));
    size_t orow = row_bytes(out);
    memcpy(out->data, part->data, (size_t)part->rows * orow);
    for (int r = 1; r < size; r++) {
        int64_t o0 = begin[r] / o->tile_rows;
        int64_t o1 = r + 1 < size ? begin[r + 1] / o->tile_rows : orows;
        TDCL_TRY(tdcl_mpi_move(0, (char *)out->data + (size_t)o0 * orow, (size_t)(o1 - o0) * orow,
                               r, err));
    }
out:
    return st;
}

/* The matrix's shape and type, from rank 0. */
static void share_shape(const tdcl_matrix *in, tdcl_matrix *band)
{
    int64_t h[4] = {in->rows, in->cols, in->channels, in->dtype};
    MPI_Bcast(h, 4, MPI_INT64_T, 0, MPI_COMM_WORLD);
    *band =
        (tdcl_matrix){.rows = h[0], .cols = h[1], .channels = (int)h[2], .dtype = (tdcl_dtype)h[3]};
}

/* Every rank's means written into npy_out by offset (tdcl_mpi_write_npy);
 * *written 0 where they cannot be (the caller gathers). */
static tdcl_status write_parts(const tdcl_matrix *part, const int64_t *begin, int rank,
                               const tdcl_ta_opts *o, int64_t orows, int64_t ocols,
                               const char *npy_out, int *written, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_mpi_block blk = {orows, ocols,      part->dtype, begin[rank] / o->tile_rows,
                          0,     part->rows, ocols};
    *written = tdcl_mpi_write_npy(npy_out, &blk, part->data, &st, err);
    tdcl_log(TDCL_LOG_VERBOSE, "rank %d: means %s", rank,
             *written ? "written into the output by offset" : "to rank 0");
    return st;
}

tdcl_status tdcl_ta_mpi_bands(tdcl_ctx *ctx, const tdcl_ta_opts *o, tdcl_status in_st,
                              const tdcl_matrix *in, const char *npy_path, const char *npy_out,
                              int *written, tdcl_matrix *out, tdcl_err *err)
{
    tdcl_status st = in_st;
    int wrote = 0;
    int rank = tdcl_mpi_rank(), size = tdcl_mpi_size(), dt[2];
    int64_t *begin = NULL, orows = 0, ocols = 0;
    tdcl_matrix band = {0}, part = {0}, whole = {0};
    double k0 = ctx->t.kernel_ms;
    memset(out, 0, sizeof *out);
    SYNC(st);
    tdcl_npy_info info;
    int slabs = 0;
    SYNC(tdcl_mpi_npy_all(npy_path, &info, &slabs, err)); /* the ranks' copies agree */
    if (!slabs && rank == 0 && !in->data) {               /* rank 0 left the file to the ranks */
        SYNC(tdcl_matrix_read(npy_path, 0, &whole, err));
        in = &whole;
    } else if (!slabs) {
        SYNC(TDCL_OK);
    }
    if (slabs)
        band = (tdcl_matrix){info.rows, info.cols, 1, info.dtype, NULL};
    else
        share_shape(in, &band);
    st = (begin = malloc(sizeof *begin * (size_t)(size + 1)))
             ? tdcl_ta_shards_split(o, band.rows, (size_t)size, begin, err)
             : tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    if (st == TDCL_OK) st = tdcl_ta_shape(o, band.rows, band.cols, &orows, &ocols, err);
    SYNC(st);
    tdcl_log(TDCL_LOG_VERBOSE, "rank %d of %d: rows %" PRId64 "-%" PRId64 " on %u:%u %s%s", rank,
             size, begin[rank], begin[rank + 1] - 1, ctx->dev.pidx, ctx->dev.didx,
             ctx->dev.device_name, slabs ? ", read from the .npy file" : "");
    double t0 = tdcl_now_ms();
    SYNC(slabs ? tdcl_npy_read_block(npy_path, &info, begin[rank], begin[rank + 1], 0, info.cols,
                                     &band, err)
               : scatter(in, begin, rank, size, &band, err));
    double t1 = tdcl_now_ms();
    SYNC(tdcl_ta_run(ctx, o, &band, &part, err));
    double t2 = tdcl_now_ms();
    /* the devices must accumulate in one type, or the means differ by rank */
    int mine[2] = {(int)part.dtype, -(int)part.dtype};
    MPI_Allreduce(mine, dt, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    SYNC(dt[0] != -dt[1]
             ? tdcl_fail(err, TDCL_EINVAL,
                         "the ranks' devices accumulate in different types (%s and "
                         "%s): the means would differ by device",
                         tdcl_dtype_name((tdcl_dtype)dt[0]), tdcl_dtype_name((tdcl_dtype)-dt[1]))
             : TDCL_OK);
    if (npy_out && part.channels == 1) /* the same on every rank */
        SYNC(write_parts(&part, begin, rank, o, orows, ocols, npy_out, &wrote, err));
    if (!wrote) SYNC(gather(o, &part, begin, rank, size, orows, ocols, out, err));
    tdcl_log(TDCL_LOG_VERBOSE, "rank %d: compute %.3f ms (device %.3f ms), exchange %.3f ms", rank,
             t2 - t1, ctx->t.kernel_ms - k0, t1 - t0 + tdcl_now_ms() - t2);
out:
    if (written) *written = wrote;
    if (st) tdcl_matrix_free(out);
    if (band.data && band.data != in->data) tdcl_matrix_free(&band); /* not rank 0's view */
    tdcl_matrix_free(&whole);
    tdcl_matrix_free(&part);
    free(begin);
    return st;
}

tdcl_status tdcl_ta_mpi_own_band(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_matrix *in,
                                 tdcl_matrix *part, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int rank = tdcl_mpi_rank(), size = tdcl_mpi_size();
    int64_t *begin = malloc(sizeof *begin * (size_t)(size + 1));
    memset(part, 0, sizeof *part);
    SYNC(begin ? tdcl_ta_shards_split(o, in->rows, (size_t)size, begin, err)
               : tdcl_fail(err, TDCL_ENOMEM, "out of memory"));
    tdcl_matrix band = *in; /* a view of this rank's rows */
    band.data = (char *)in->data + (size_t)begin[rank] * row_bytes(in);
    band.rows = begin[rank + 1] - begin[rank];
    SYNC(tdcl_ta_run(ctx, o, &band, part, err));
out:
    if (st) tdcl_matrix_free(part);
    free(begin);
    return st;
}

tdcl_status tdcl_ta_mpi_run(const char *devices, const tdcl_ta_opts *o, tdcl_status in_st,
                            const tdcl_matrix *in, const char *npy_path, const char *npy_out,
                            int *written, tdcl_matrix *out, tdcl_err *err)
{
    tdcl_status st = in_st;
    tdcl_ctx *ctx = NULL;
    memset(out, 0, sizeof *out);
    if (written) *written = 0;
    SYNC(st);
    SYNC(tdcl_mpi_open_local(devices, &ctx, err));
    st = tdcl_ta_mpi_bands(ctx, o, TDCL_OK, in, npy_path, npy_out, written, out, err);
out:
    tdcl_ctx_close(ctx);
    return st;
}

#endif
