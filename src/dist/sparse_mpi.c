/* Sparse products over MPI ranks (tdcl_sp_mpi_run in dist/sparse_run.h):
 * rank 0 cuts A's rows into bands by work, broadcasts B and sends each
 * rank its band; each rank multiplies its band on its device, and rank 0
 * gathers the bands' products and joins them. Moves go through
 * tdcl_mpi_move and tdcl_mpi_bcast (pieces of 1 GiB), as tile-avg's bands
 * do: a band's entries may pass MPI_Gatherv's int counts. */
#include "dist/sparse_run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "dist/mpi.h"

#if TDCL_HAVE_MPI
#include <mpi.h>
#endif

#if !TDCL_HAVE_MPI

tdcl_status tdcl_sp_mpi_run(tdcl_ctx *ctx, int kind, tdcl_status in_st, const tdcl_csr *as,
                            const tdcl_matrix *ad, const tdcl_csr *bs, const tdcl_matrix *bd,
                            tdcl_csr *cs, tdcl_matrix *cd, tdcl_sparse_info *info, tdcl_err *err)
{
    (void)ctx, (void)kind, (void)in_st, (void)as, (void)ad, (void)bs, (void)bd, (void)cs;
    (void)cd, (void)info;
    return tdcl_fail(err, TDCL_EUNSUPPORTED, "built without MPI");
}

#else

#define SYNC TDCL_MPI_SYNC

enum { SPGEMM, SPMM_SD, SPMM_DS };

/* A CSR matrix's shape and arrays' widths, as they travel. */
static void csr_header(const tdcl_csr *m, int64_t h[7])
{
    int64_t v[7] = {m->rows, m->cols, m->nnz, m->dtype, m->pattern, m->idx64, m->rowptr != NULL};
    memcpy(h, v, sizeof v);
}

/* Allocates m's arrays for header h (an empty matrix where h says none). */
static tdcl_status csr_from_header(const int64_t h[7], tdcl_csr *m, tdcl_err *err)
{
    memset(m, 0, sizeof *m);
    if (!h[6]) return TDCL_OK;
    *m = (tdcl_csr){.rows = h[0],
                    .cols = h[1],
                    .nnz = h[2],
                    .dtype = (tdcl_dtype)h[3],
                    .pattern = (int)h[4],
                    .idx64 = (int)h[5],
                    .sorted = 1};
    size_t iw = m->idx64 ? 8 : 4;
    m->rowptr = malloc((size_t)(m->rows + 1) * iw);
    m->colidx = malloc(m->nnz ? (size_t)m->nnz * iw : 1);
    m->values = m->pattern ? NULL : malloc(m->nnz ? (size_t)m->nnz * tdcl_dtype_size(m->dtype) : 1);
    if (m->rowptr && m->colidx && (m->pattern || m->values)) return TDCL_OK;
    tdcl_csr_free(m);
    return tdcl_fail(err, TDCL_ENOMEM, "out of memory for a band of %" PRId64 " entries", h[2]);
}

/* The three arrays' sizes in bytes. */
static void csr_sizes(const tdcl_csr *m, size_t sz[3])
{
    size_t iw = m->idx64 ? 8 : 4;
    sz[0] = (size_t)(m->rows + 1) * iw;
    sz[1] = (size_t)m->nnz * iw;
    sz[2] = m->pattern ? 0 : (size_t)m->nnz * tdcl_dtype_size(m->dtype);
}

/* Sends m to peer (send 1) or receives it into m (new). */
static tdcl_status csr_move(int send, tdcl_csr *m, int peer, tdcl_err *err)
{
    int64_t h[7];
    size_t sz[3];
    tdcl_status st = TDCL_OK;
    if (send) csr_header(m, h);
    TDCL_TRY(tdcl_mpi_move(send, h, sizeof h, peer, err));
    if (!send) TDCL_TRY(csr_from_header(h, m, err));
    if (!h[6]) return TDCL_OK;
    csr_sizes(m, sz);
    void *arr[3] = {m->rowptr, m->colidx, m->values};
    for (int i = 0; i < 3; i++)
        if (sz[i]) TDCL_TRY(tdcl_mpi_move(send, arr[i], sz[i], peer, err));
out:
    return st;
}

/* m as rank 0 has it, on every rank (the others' new). */
static tdcl_status csr_bcast(tdcl_csr *m, tdcl_err *err)
{
    int64_t h[7];
    size_t sz[3];
    tdcl_status st = TDCL_OK;
    int root = tdcl_mpi_rank() == 0;
    if (root) csr_header(m, h);
    MPI_Bcast(h, 7, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (!root) st = csr_from_header(h, m, err);
    if (tdcl_mpi_agree(&st, err) >= 0) return st; /* every rank has room, or none goes on */
    csr_sizes(m, sz);
    void *arr[3] = {m->rowptr, m->colidx, m->values};
    for (int i = 0; i < 3; i++) /* every piece is sent, so that the ranks stay in step */
        if (sz[i] && tdcl_mpi_bcast(arr[i], sz[i]) && st == TDCL_OK)
            st = tdcl_fail(err, TDCL_EIO, "MPI failed broadcasting B");
    return st;
}

/* d as rank 0 has it, on every rank (the others' new). */
static tdcl_status dense_bcast(tdcl_matrix *d, tdcl_err *err)
{
    int64_t h[3] = {d->rows, d->cols, d->dtype};
    tdcl_status st = TDCL_OK;
    int root = tdcl_mpi_rank() == 0;
    MPI_Bcast(h, 3, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (!root) st = tdcl_matrix_alloc(d, h[0], h[1], 1, (tdcl_dtype)h[2], err);
    if (tdcl_mpi_agree(&st, err) >= 0) return st;
    size_t bytes = (size_t)(h[0] * h[1]) * tdcl_dtype_size((tdcl_dtype)h[2]);
    if (bytes && tdcl_mpi_bcast(d->data, bytes) && st == TDCL_OK)
        st = tdcl_fail(err, TDCL_EIO, "MPI failed broadcasting B");
    return st;
}

/* Sends d's rows to peer (send 1) or receives them into d (new). */
static tdcl_status dense_move(int send, tdcl_matrix *d, int peer, tdcl_err *err)
{
    int64_t h[4] = {d->rows, d->cols, d->dtype, d->data != NULL};
    tdcl_status st = tdcl_mpi_move(send, h, sizeof h, peer, err);
    if (st || !h[3]) return st;
    if (!send) TDCL_TRY(tdcl_matrix_alloc(d, h[0], h[1], 1, (tdcl_dtype)h[2], err));
    size_t bytes = (size_t)(h[0] * h[1]) * tdcl_dtype_size((tdcl_dtype)h[2]);
    if (bytes) st = tdcl_mpi_move(send, d->data, bytes, peer, err);
out:
    return st;
}

/* Rank 0 sends each rank its band of A; every rank gets its own band in
 * *bs or *bd (rank 0's borrows A's arrays but for its row offsets). */
static tdcl_status scatter(const tdcl_csr *as, const tdcl_matrix *ad, int sparse,
                           const int64_t *begin, tdcl_csr *band_s, tdcl_matrix *band_d,
                           tdcl_err *err)
{
    int rank = tdcl_mpi_rank(), size = tdcl_mpi_size();
    tdcl_status st = TDCL_OK;
    if (rank != 0) return sparse ? csr_move(0, band_s, 0, err) : dense_move(0, band_d, 0, err);
    for (int r = 1; r < size && st == TDCL_OK; r++) {
        tdcl_csr s = {0};
        tdcl_matrix d = {0};
        st = tdcl_sp_band_of(as, ad, begin[r], begin[r + 1], &s, &d, err);
        if (st == TDCL_OK) st = sparse ? csr_move(1, &s, r, err) : dense_move(1, &d, r, err);
        free(s.rowptr);
    }
    return st ? st : tdcl_sp_band_of(as, ad, begin[0], begin[1], band_s, band_d, err);
}

/* Rank 0 receives every rank's product and joins them into cs or cd. */
static tdcl_status gather(int kind, tdcl_csr *mine_s, tdcl_matrix *mine_d, int64_t cols,
                          const int64_t *begin, tdcl_csr *cs, tdcl_matrix *cd, tdcl_err *err)
{
    int rank = tdcl_mpi_rank(), size = tdcl_mpi_size();
    tdcl_status st = TDCL_OK;
    if (rank != 0)
        return kind == SPGEMM ? csr_move(1, mine_s, 0, err) : dense_move(1, mine_d, 0, err);
    tdcl_csr *parts = calloc((size_t)size, sizeof *parts);
    tdcl_matrix *dparts = calloc((size_t)size, sizeof *dparts);
    if (!parts || !dparts) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory gathering the bands");
        goto out;
    }
    parts[0] = *mine_s;
    dparts[0] = *mine_d;
    for (int r = 1; r < size; r++)
        TDCL_TRY(kind == SPGEMM ? csr_move(0, &parts[r], r, err)
                                : dense_move(0, &dparts[r], r, err));
    if (kind == SPGEMM) {
        TDCL_TRY(tdcl_sp_concat(parts, (size_t)size, cols, cs, err));
        goto out;
    }
    tdcl_dtype t = TDCL_F32;
    for (int r = 0; r < size; r++)
        if (dparts[r].data) t = dparts[r].dtype;
    TDCL_TRY(tdcl_matrix_alloc(cd, begin[size], cols, 1, t, err));
    size_t row = (size_t)cols * tdcl_dtype_size(t);
    for (int r = 0; r < size; r++)
        if (dparts[r].data && dparts[r].rows)
            memcpy((char *)cd->data + (size_t)begin[r] * row, dparts[r].data,
                   (size_t)dparts[r].rows * row);
out:
    for (int r = 1; parts && dparts && r < size; r++) {
        tdcl_csr_free(&parts[r]);
        tdcl_matrix_free(&dparts[r]);
    }
    free(parts);
    free(dparts);
    return st;
}

tdcl_status tdcl_sp_mpi_run(tdcl_ctx *ctx, int kind, tdcl_status in_st, const tdcl_csr *as,
                            const tdcl_matrix *ad, const tdcl_csr *bs, const tdcl_matrix *bd,
                            tdcl_csr *cs, tdcl_matrix *cd, tdcl_sparse_info *info, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int rank = tdcl_mpi_rank(), size = tdcl_mpi_size(), sparse_a = kind != SPMM_DS;
    int64_t *begin = calloc((size_t)size + 1, sizeof *begin), *work = NULL, cols = 0;
    tdcl_csr b_s = {0}, band_s = {0}, part_s = {0};
    tdcl_matrix b_d = {0}, band_d = {0}, part_d = {0};
    SYNC(in_st);
    SYNC(begin ? TDCL_OK : tdcl_fail(err, TDCL_ENOMEM, "out of memory for the bands"));
    if (rank == 0) {
        int64_t rows = sparse_a ? as->rows : ad->rows;
        if (sparse_a && !(work = malloc((size_t)(rows ? rows : 1) * sizeof *work)))
            st = tdcl_fail(err, TDCL_ENOMEM, "out of memory for the rows' work");
        if (st == TDCL_OK) st = tdcl_sp_split(kind, as, ad, bs, (size_t)size, begin, work, err);
        if (kind == SPGEMM) b_s = *bs; /* rank 0's B: borrowed, not freed */
        if (kind == SPMM_DS) b_s = *bs;
        if (kind == SPMM_SD) b_d = *bd;
    }
    SYNC(st);
    MPI_Bcast(begin, size + 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    SYNC(kind == SPMM_SD ? dense_bcast(&b_d, err) : csr_bcast(&b_s, err));
    cols = kind == SPMM_SD ? b_d.cols : b_s.cols;
    double t0 = tdcl_now_ms();
    SYNC(scatter(as, ad, sparse_a, begin, &band_s, &band_d, err));
    double t1 = tdcl_now_ms();
    int64_t nband = begin[rank + 1] - begin[rank];
    if (nband)
        SYNC(tdcl_sp_band_product(ctx, kind, sparse_a ? &band_s : NULL, sparse_a ? NULL : &band_d,
                                  &b_s, &b_d, &part_s, &part_d, info, err));
    else
        SYNC(TDCL_OK);
    double t2 = tdcl_now_ms();
    tdcl_log(TDCL_LOG_VERBOSE,
             "matmul: rank %d of %d on %s: rows %" PRId64 "-%" PRId64 " (%" PRId64
             " rows), %" PRId64 " terms, %.2f ms (kernels %.2f ms), exchange %.2f ms",
             rank, size, ctx->dev.device_name, begin[rank], begin[rank + 1] - 1, nband, info->terms,
             t2 - t1, info->kernel_ms, t1 - t0);
    SYNC(gather(kind, &part_s, &part_d, cols, begin, cs, cd, err));
    info->kernel_ms = tdcl_mpi_max(info->kernel_ms);
    MPI_Allreduce(MPI_IN_PLACE, &info->terms, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
out:
    if (rank == 0) {
        free(band_s.rowptr); /* a view of A but for its row offsets */
    } else {
        tdcl_csr_free(&b_s);
        tdcl_matrix_free(&b_d);
        tdcl_csr_free(&band_s);
        tdcl_matrix_free(&band_d);
    }
    tdcl_csr_free(&part_s);
    tdcl_matrix_free(&part_d);
    if (st) {
        tdcl_csr_free(cs);
        tdcl_matrix_free(cd);
    }
    free(begin);
    free(work);
    return st;
}

#endif
