/* matmul over MPI ranks (tdcl_mm_mpi_run in dist/matmul_run.h): bands
 * of C's rows with the whole of B on every rank where the devices hold it,
 * else SUMMA on a 2D grid of ranks.
 *
 * Bands: rank p of R x 1 holds A's rows of its band and all of B, and
 * computes its rows of C with tdcl_mm_run; nothing crosses between ranks
 * but the inputs (none where each rank reads its own from .npy files).
 *
 * Rank (p, q) of a P x Q grid owns C's block (rows band p, columns band
 * q), A's block (rows band p, K band q of Q) and B's block (K band p of P,
 * columns band q). K is cut at both splits' bounds and into panels of at
 * most w columns of A (rows of B); for each panel the owner of its A part
 * broadcasts it along grid row p, the owner of its B part along grid
 * column q, and every rank adds A_panel * B_panel into its C block on its
 * device (tdcl_mm_plan_execute_with, accumulating). A short panel is
 * padded with zeros to w (0 * 0 adds nothing, exactly), so one plan of
 * shape mi x w x nj serves every panel. Panels travel through pinned host
 * buffers, two of each, so that panel s + 1's broadcast runs while the
 * device computes panel s: the main thread (the only one calling MPI)
 * waits on the broadcast while a second thread drives the device. */
#include "dist/matmul_run.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/log.h"
#include "base/pool.h"
#include "io/npy.h"
#include "dist/mpi.h"
#include "dist/shard.h"

#if TDCL_HAVE_MPI
#include <mpi.h>
#endif

#if !TDCL_HAVE_MPI

int tdcl_mm_mpi_fp64(const tdcl_ctx *ctx)
{
    return ctx->dev.fp64 ? 1 : 0;
}

tdcl_status tdcl_mm_mpi_slabs(const char *a_path, const char *b_path, tdcl_dtype *ta,
                              tdcl_dtype *tb, int *slabs, tdcl_err *err)
{
    (void)a_path, (void)b_path, (void)ta, (void)tb, (void)err;
    *slabs = 0;
    return TDCL_OK;
}

tdcl_status tdcl_mm_mpi_open(const tdcl_mm_shard_opts *so, tdcl_ctx **ctx, tdcl_err *err)
{
    (void)so;
    *ctx = NULL;
    return tdcl_fail(err, TDCL_EUNSUPPORTED, "built without MPI");
}

tdcl_status tdcl_mm_mpi_run(tdcl_ctx *ctx, const tdcl_mm_shard_opts *so, const tdcl_mm_opts *mm,
                            tdcl_status in_st, const tdcl_matrix *a, const tdcl_matrix *b,
                            tdcl_matrix *c, tdcl_err *err)
{
    (void)ctx, (void)so, (void)mm, (void)in_st, (void)a, (void)b, (void)c;
    return tdcl_fail(err, TDCL_EUNSUPPORTED, "built without MPI");
}

#else

#define SYNC TDCL_MPI_SYNC

typedef struct summa {
    int rank, size, pr, pc, p, q;
    MPI_Comm row, col; /* this grid row (A's panels), this grid column (B's) */
    int64_t M, K, N, mi, nj;
    tdcl_dtype type;
    size_t esz;
    int64_t *rb, *cb, *ka, *kb; /* C's row and column bands; K split over Q and over P */
    int64_t *pk, npan, w;       /* panel s is K's [pk[s], pk[s + 1]), padded to w */
    void *ablk, *bblk;          /* this rank's blocks of A and B */
    tdcl_pinned ap[2], bp[2];   /* panels: mi x w of A, w x nj of B */
    MPI_Request req[2];
    int posted;
    tdcl_ctx *ctx;
    tdcl_mm_opts mm;
    tdcl_mm_plan *plan; /* NULL: each panel's product added on the host into cblk */
    tdcl_matrix cblk;
    int64_t cur;                /* the panel the device computes */
    int npy;                    /* each rank read its blocks from the .npy files */
    int bands;                  /* R x 1, the whole of B on every rank, no panels */
    int local;                  /* every rank was given the whole A and B */
    int views;                  /* ablk and bblk point into the caller's matrices */
    int wrote;                  /* each rank wrote its block of C into the output */
    tdcl_status dev_st, net_st; /* a step's device side, and its packing and broadcasts */
    tdcl_err dev_err, net_err;
    double compute_ms, kernel_ms, exchange_ms, scatter_ms, gather_ms;
} summa;

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* K split evenly into n parts, some possibly empty. */
static void even_split(int64_t K, int n, int64_t *b)
{
    for (int i = 0; i <= n; i++)
        b[i] = K * i / n;
}

/* The part of split b (n parts) holding k. */
static int owner(const int64_t *b, int n, int64_t k)
{
    int i = 0;
    while (i + 1 < n && b[i + 1] <= k)
        i++;
    return i;
}

/* Where the stretch of K holding k ends: the next bound of either split. */
static int64_t stretch_end(const summa *S, int64_t k)
{
    return min64(S->ka[owner(S->ka, S->pc, k) + 1], S->kb[owner(S->kb, S->pr, k) + 1]);
}

/* Copies rows x cols elements at (r0, c0) of a row-major matrix with ld
 * columns into dense dst (to = 0), or from dense dst into it (to = 1). */
static void copy_block(void *m, int64_t ld, int64_t r0, int64_t c0, int64_t rows, int64_t cols,
                       void *dst, size_t esz, int to)
{
    size_t w = (size_t)cols * esz;
    for (int64_t r = 0; r < rows; r++) {
        char *in = (char *)m + ((size_t)(r0 + r) * (size_t)ld + (size_t)c0) * esz;
        char *d = (char *)dst + (size_t)r * w;
        memcpy(to ? in : d, to ? d : in, w);
    }
}

/* Rank 0: A and B converted to type, overflow ruled out or refused. */
static tdcl_status root_convert(const tdcl_mm_opts *mm, const tdcl_matrix *a, const tdcl_matrix *b,
                                tdcl_matrix *at, tdcl_matrix *bt, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t r, c;
    if (a->cols != b->rows)
        return tdcl_fail(err, TDCL_EINVAL,
                         "cannot multiply a %" PRId64 "x%" PRId64 " matrix by a %" PRId64
                         "x%" PRId64 " one",
                         a->rows, a->cols, b->rows, b->cols);
    TDCL_TRY(tdcl_matrix_narrow(a, mm->type, 0, at, err));
    TDCL_TRY(tdcl_matrix_narrow(b, mm->type, 0, bt, err));
    /* the ranks add wrapped panel sums: the whole product is checked here,
     * as a single device does for a product in panels */
    if (mm->type == TDCL_I64 && !mm->wrap &&
        !tdcl_mm_i64_bound_ok(at->data, bt->data, a->rows, a->cols, b->cols) &&
        tdcl_mm_i64_first_overflow(at->data, bt->data, a->rows, a->cols, b->cols, &r, &c))
        st = tdcl_mm_fail_overflow(r, c, err);
out:
    return st;
}

/* The splits and panels, the same on every rank. */
static tdcl_status plan_grid(summa *S, int64_t panel, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t n = 4 * ((int64_t)S->pr + S->pc + 2);
    if (!(S->rb = calloc((size_t)n, sizeof *S->rb)))
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    S->cb = S->rb + S->pr + 1, S->ka = S->cb + S->pc + 1, S->kb = S->ka + S->pc + 1;
    TDCL_TRY(tdcl_mm_shard_split(S->M, S->N, S->pr, S->pc, S->rb, S->cb, err));
    even_split(S->K, S->pc, S->ka);
    even_split(S->K, S->pr, S->kb);
    S->mi = S->rb[S->p + 1] - S->rb[S->p];
    S->nj = S->cb[S->q + 1] - S->cb[S->q];
    /* segments between both splits' bounds, then panels of at most w */
    int64_t seg = 0, maxm = 0, maxn = 0;
    for (int64_t k = 0; k < S->K;) {
        int64_t e = stretch_end(S, k);
        seg = e - k > seg ? e - k : seg;
        k = e;
    }
    for (int i = 0; i < S->pr; i++)
        maxm = S->rb[i + 1] - S->rb[i] > maxm ? S->rb[i + 1] - S->rb[i] : maxm;
    for (int j = 0; j < S->pc; j++)
        maxn = S->cb[j + 1] - S->cb[j] > maxn ? S->cb[j + 1] - S->cb[j] : maxn;
    int64_t w = panel > 0 ? panel : ((seg + 3) / 4 + 15) / 16 * 16;
    int64_t lim = (int64_t)INT_MAX / (int64_t)S->esz / (maxm > maxn ? maxm : maxn);
    S->w = w = min64(min64(w, seg), lim > 0 ? lim : 1);
    S->npan = 0;
    for (int64_t k = 0; k < S->K; S->npan++)
        k = min64(k + w, stretch_end(S, k));
    if (!(S->pk = malloc(sizeof *S->pk * (size_t)(S->npan + 1))))
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    S->pk[0] = 0;
    for (int64_t s = 0; s < S->npan; s++) {
        int64_t k = S->pk[s];
        S->pk[s + 1] = min64(k + w, stretch_end(S, k));
    }
out:
    return st;
}

static size_t ablk_bytes(const summa *S, int p, int q)
{
    return (size_t)(S->rb[p + 1] - S->rb[p]) * (size_t)(S->ka[q + 1] - S->ka[q]) * S->esz;
}

static size_t bblk_bytes(const summa *S, int p, int q)
{
    if (S->bands) return (size_t)S->K * (size_t)S->N * S->esz;
    return (size_t)(S->kb[p + 1] - S->kb[p]) * (size_t)(S->cb[q + 1] - S->cb[q]) * S->esz;
}

/* This rank's blocks, before any is sent: a rank that cannot hold its
 * own stops every rank (SYNC) instead of leaving rank 0 sending to it.
 * Bands: rank 0's B is bt's memory, taken over. */
static tdcl_status alloc_blocks(summa *S, tdcl_matrix *bt, tdcl_err *err)
{
    S->ablk = malloc(ablk_bytes(S, S->p, S->q) + 1);
    if (S->bands && S->rank == 0)
        S->bblk = bt->data, bt->data = NULL;
    else
        S->bblk = malloc(bblk_bytes(S, S->p, S->q) + 1);
    return S->ablk && S->bblk ? TDCL_OK
                              : tdcl_fail(err, TDCL_ENOMEM, "out of memory for the blocks");
}

/* Bands: the whole of B from rank 0 to every rank, in pieces of at most
 * 1 GiB (MPI counts are int). */
static tdcl_status bcast_b(summa *S, tdcl_err *err)
{
    size_t bytes = bblk_bytes(S, S->p, S->q), piece = (size_t)1 << 30;
    for (size_t off = 0; off < bytes; off += piece) {
        int n = (int)(bytes - off < piece ? bytes - off : piece);
        if (MPI_Bcast((char *)S->bblk + off, n, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
            return tdcl_fail(err, TDCL_EIO, "rank %d: the broadcast of B failed", S->rank);
    }
    return TDCL_OK;
}

/* Rank 0 sends every rank its blocks of A and B (bands: A's, then B to
 * all at once); the others receive. The blocks are allocated. */
static tdcl_status scatter(summa *S, const tdcl_matrix *at, const tdcl_matrix *bt, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    void *tmp = NULL;
    if (S->rank != 0) {
        TDCL_TRY(tdcl_mpi_move(0, S->ablk, ablk_bytes(S, S->p, S->q), 0, err));
        if (!S->bands) TDCL_TRY(tdcl_mpi_move(0, S->bblk, bblk_bytes(S, S->p, S->q), 0, err));
        goto out;
    }
    for (int r = S->size - 1; r >= 0; r--) {
        int p = r / S->pc, q = r % S->pc;
        void *a = r ? (tmp = malloc(ablk_bytes(S, p, q) + 1)) : S->ablk;
        if (!a) return tdcl_fail(err, TDCL_ENOMEM, "out of memory for the blocks");
        copy_block(at->data, S->K, S->rb[p], S->ka[q], S->rb[p + 1] - S->rb[p],
                   S->ka[q + 1] - S->ka[q], a, S->esz, 0);
        if (r) TDCL_TRY(tdcl_mpi_move(1, a, ablk_bytes(S, p, q), r, err));
        free(tmp), tmp = NULL;
        if (S->bands) continue;
        void *b = r ? (tmp = malloc(bblk_bytes(S, p, q) + 1)) : S->bblk;
        if (!b) return tdcl_fail(err, TDCL_ENOMEM, "out of memory for the blocks");
        copy_block(bt->data, S->N, S->kb[p], S->cb[q], S->kb[p + 1] - S->kb[p],
                   S->cb[q + 1] - S->cb[q], b, S->esz, 0);
        if (r) TDCL_TRY(tdcl_mpi_move(1, b, bblk_bytes(S, p, q), r, err));
        free(tmp), tmp = NULL;
    }
out:
    free(tmp);
    return st == TDCL_OK && S->bands ? bcast_b(S, err) : st;
}

/* Starts panel s's broadcasts into buffers s % 2: the owners pack theirs
 * (zeros past the panel's width), everyone posts MPI_Ibcast. */
static tdcl_status post(summa *S, int64_t s, tdcl_err *err)
{
    int64_t k0 = S->pk[s], len = S->pk[s + 1] - k0;
    int qa = owner(S->ka, S->pc, k0), pb = owner(S->kb, S->pr, k0), i = (int)(s % 2);
    double t0 = tdcl_now_ms();
    if (S->q == qa) {
        int64_t ld = S->ka[S->q + 1] - S->ka[S->q];
        if (len < S->w) memset(S->ap[i].ptr, 0, S->ap[i].bytes); /* the padding */
        for (int64_t r = 0; r < S->mi; r++)
            memcpy((char *)S->ap[i].ptr + (size_t)(r * S->w) * S->esz,
                   (char *)S->ablk + (size_t)(r * ld + k0 - S->ka[S->q]) * S->esz,
                   (size_t)len * S->esz);
    }
    if (S->p == pb) {
        size_t have = (size_t)(len * S->nj) * S->esz;
        memcpy(S->bp[i].ptr, (char *)S->bblk + (size_t)((k0 - S->kb[S->p]) * S->nj) * S->esz, have);
        memset((char *)S->bp[i].ptr + have, 0, S->bp[i].bytes - have);
    }
    int rc = MPI_Ibcast(S->ap[i].ptr, (int)S->ap[i].bytes, MPI_BYTE, qa, S->row, &S->req[0]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Ibcast(S->bp[i].ptr, (int)S->bp[i].bytes, MPI_BYTE, pb, S->col, &S->req[1]);
    S->posted = rc == MPI_SUCCESS;
    S->exchange_ms += tdcl_now_ms() - t0;
    return rc == MPI_SUCCESS
               ? TDCL_OK
               : tdcl_fail(err, TDCL_EIO, "rank %d: a panel broadcast failed", S->rank);
}

static tdcl_status wait_posted(summa *S, tdcl_err *err)
{
    double t0 = tdcl_now_ms();
    int rc = S->posted ? MPI_Waitall(2, S->req, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    S->posted = 0;
    S->exchange_ms += tdcl_now_ms() - t0;
    return rc == MPI_SUCCESS
               ? TDCL_OK
               : tdcl_fail(err, TDCL_EIO, "rank %d: a panel broadcast failed", S->rank);
}

/* Adds the product of one panel (host mode: tensor cores, a plan in
 * pieces) into cblk. */
static tdcl_status host_add(summa *S, const tdcl_matrix *a, const tdcl_matrix *b, tdcl_err *err)
{
    tdcl_matrix part = {0};
    tdcl_status st = tdcl_mm_run(S->ctx, &S->mm, a, b, &part, err);
    if (st) return st;
    size_t n = (size_t)(S->mi * S->nj);
    if (S->type == TDCL_F32)
        for (size_t k = 0; k < n; k++)
            ((float *)S->cblk.data)[k] += ((const float *)part.data)[k];
    else if (S->type == TDCL_F64)
        for (size_t k = 0; k < n; k++)
            ((double *)S->cblk.data)[k] += ((const double *)part.data)[k];
    else /* int64 modulo 2^64: rank 0 ruled overflow out, or wrap was asked */
        for (size_t k = 0; k < n; k++)
            ((uint64_t *)S->cblk.data)[k] += ((const uint64_t *)part.data)[k];
    tdcl_matrix_free(&part);
    return TDCL_OK;
}

/* The device's part of a step: panel S->cur into C's block. */
static void device_step(summa *S)
{
    int i = (int)(S->cur % 2);
    tdcl_matrix a = {S->mi, S->w, 1, S->type, S->ap[i].ptr};
    tdcl_matrix b = {S->w, S->nj, 1, S->type, S->bp[i].ptr};
    double t0 = tdcl_now_ms(), ms = 0;
    if (S->plan)
        S->dev_st = tdcl_mm_plan_execute_with(S->plan, &a, &b, S->cur > 0, &ms, &S->dev_err);
    else
        S->dev_st = host_add(S, &a, &b, &S->dev_err);
    S->kernel_ms += ms;
    S->compute_ms += tdcl_now_ms() - t0;
}

/* Index 0 (the calling thread, MPI's): the next panel packed and its
 * broadcast posted and awaited; index 1: the device on this one. The
 * packing of panel s + 1 (host copies of up to a few tens of MB) thus runs
 * beside the device's work on panel s, not before it. */
static void step_task(void *arg, int i)
{
    summa *S = arg;
    if (i == 1) {
        device_step(S);
        return;
    }
    tdcl_err e = {0};
    tdcl_status st = S->cur + 1 < S->npan ? post(S, S->cur + 1, &e) : TDCL_OK;
    if (st == TDCL_OK) st = wait_posted(S, &e);
    S->net_st = st;
    S->net_err = e;
}

/* The device's plan over the first panel's shape, or host mode. */
static tdcl_status make_plan(summa *S, const tdcl_mm_opts *mm, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_mm_plan_info info;
    S->mm = *mm;
    S->mm.type = S->type;
    S->mm.wrap = 1; /* overflow is rank 0's check, over the whole product */
    S->mm.borrow_inputs = 0;
    for (int i = 0; i < 2; i++) {
        TDCL_TRY(tdcl_pinned_alloc(S->ctx, (size_t)(S->mi * S->w) * S->esz, &S->ap[i], err));
        TDCL_TRY(tdcl_pinned_alloc(S->ctx, (size_t)(S->w * S->nj) * S->esz, &S->bp[i], err));
        memset(S->ap[i].ptr, 0, S->ap[i].bytes);
        memset(S->bp[i].ptr, 0, S->bp[i].bytes);
    }
    tdcl_matrix a = {S->mi, S->w, 1, S->type, S->ap[0].ptr};
    tdcl_matrix b = {S->w, S->nj, 1, S->type, S->bp[0].ptr};
    TDCL_TRY(tdcl_mm_plan_create(S->ctx, &S->mm, &a, &b, &S->plan, err));
    tdcl_mm_plan_get_info(S->plan, &info);
    if (info.tensor_cores || info.panels_m * info.panels_k * info.panels_n != 1) {
        tdcl_mm_plan_destroy(S->plan);
        S->plan = NULL;
        TDCL_TRY(tdcl_matrix_alloc(&S->cblk, S->mi, S->nj, 1, S->type, err));
        memset(S->cblk.data, 0, (size_t)(S->mi * S->nj) * S->esz);
    }
out:
    return st;
}

/* The panels, each broadcast while the previous one is computed. */
static tdcl_status run_panels(summa *S, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    SYNC(post(S, 0, err));
    SYNC(wait_posted(S, err));
    for (S->cur = 0; S->cur < S->npan; S->cur++) {
        S->dev_st = S->net_st = TDCL_OK;
        tdcl_pool_run(2, step_task, S);
        /* the device's failure comes first */
        if ((st = S->dev_st))
            *err = S->dev_err;
        else if ((st = S->net_st))
            *err = S->net_err;
        SYNC(st);
    }
out:
    if (S->posted) MPI_Waitall(2, S->req, MPI_STATUSES_IGNORE);
    S->posted = 0;
    return st;
}

/* This rank's block of C, from the device or the host sums. */
static tdcl_status my_block(summa *S, tdcl_matrix *mine, tdcl_err *err)
{
    if (S->plan) return tdcl_mm_plan_result(S->plan, mine, err);
    *mine = S->cblk;
    memset(&S->cblk, 0, sizeof S->cblk);
    return TDCL_OK;
}

/* Rank 0 receives every block of C into c (allocated there). */
static tdcl_status gather(summa *S, const tdcl_matrix *mine, tdcl_matrix *c, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    void *tmp = NULL;
    if (S->rank == 0) st = tdcl_matrix_alloc(c, S->M, S->N, 1, S->type, err);
    SYNC(st);
    if (S->rank != 0) {
        st = tdcl_mpi_move(1, mine->data, (size_t)(S->mi * S->nj) * S->esz, 0, err);
        goto done;
    }
    for (int r = 0; r < S->size && st == TDCL_OK; r++) {
        int p = r / S->pc, q = r % S->pc;
        int64_t m = S->rb[p + 1] - S->rb[p], n = S->cb[q + 1] - S->cb[q];
        void *blk = r ? (tmp = malloc((size_t)(m * n) * S->esz)) : mine->data;
        if (!blk) st = tdcl_fail(err, TDCL_ENOMEM, "out of memory gathering C");
        if (st == TDCL_OK && r) st = tdcl_mpi_move(0, blk, (size_t)(m * n) * S->esz, r, err);
        if (st == TDCL_OK) copy_block(c->data, S->N, S->rb[p], S->cb[q], m, n, blk, S->esz, 1);
        free(tmp), tmp = NULL;
    }
done:
    SYNC(st);
out:
    return st;
}

/* C written into path (so->npy_out) by every rank, or gathered into c on
 * rank 0. */
static tdcl_status finish(summa *S, const tdcl_mm_shard_opts *so, tdcl_matrix *c, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix mine = {0};
    double t0 = tdcl_now_ms();
    SYNC(my_block(S, &mine, err));
    if (so->c_stays) {
        *c = mine;
        memset(&mine, 0, sizeof mine);
        goto out;
    }
    int written = 0; /* handled by the ranks' writes, failed or not */
    if (so->npy_out) {
        tdcl_mpi_block blk = {S->M, S->N, S->type, S->rb[S->p], S->cb[S->q], S->mi, S->nj};
        written = tdcl_mpi_write_npy(so->npy_out, &blk, mine.data, &st, err);
    }
    S->wrote = written && st == TDCL_OK;
    if (!written) st = gather(S, &mine, c, err);
out:
    S->gather_ms = tdcl_now_ms() - t0;
    tdcl_matrix_free(&mine);
    return st;
}

static void log_rank(const summa *S, int after)
{
    if (!after && S->bands) {
        tdcl_log(TDCL_LOG_VERBOSE,
                 "rank %d of %d: grid position %d,%d of %dx%d, rows %" PRId64 "-%" PRId64
                 ", all %" PRId64 " columns, with the whole of B (bands: no panels) on %u:%u %s",
                 S->rank, S->size, S->p, S->q, S->pr, S->pc, S->rb[S->p], S->rb[S->p + 1] - 1, S->N,
                 S->ctx->dev.pidx, S->ctx->dev.didx, S->ctx->dev.device_name);
        return;
    }
    if (!after) {
        tdcl_log(
            TDCL_LOG_VERBOSE,
            "rank %d of %d: grid position %d,%d of %dx%d, rows %" PRId64 "-%" PRId64
            ", columns %" PRId64 "-%" PRId64 ", %" PRId64 " panels of %" PRId64 " on %u:%u %s%s",
            S->rank, S->size, S->p, S->q, S->pr, S->pc, S->rb[S->p], S->rb[S->p + 1] - 1,
            S->cb[S->q], S->cb[S->q + 1] - 1, S->npan, S->w, S->ctx->dev.pidx, S->ctx->dev.didx,
            S->ctx->dev.device_name, S->plan ? "" : " (panel products added on the host)");
        return;
    }
    tdcl_log(TDCL_LOG_VERBOSE,
             "rank %d: compute %.3f ms (device %.3f ms), exchange %.3f ms (blocks %s %.3f ms, "
             "panels %.3f ms, C %s %.3f ms)",
             S->rank, S->compute_ms, S->kernel_ms, S->scatter_ms + S->exchange_ms + S->gather_ms,
             S->npy     ? "read from the .npy files"
             : S->local ? "given"
                        : "from rank 0",
             S->scatter_ms, S->exchange_ms,
             S->wrote ? "written into the output by offset" : "to rank 0", S->gather_ms);
}

/* Whether every rank's device holds the whole of B beside its band of
 * A's rows and of C's under R x 1, with half its memory to spare for the
 * plan's own buffers (agreed over the ranks). */
static int bands_fit(const summa *S)
{
    double band = (double)((S->M + S->size - 1) / S->size), k = (double)S->K, n = (double)S->N;
    double need = (band * k + k * n + band * n) * (double)S->esz;
    int mine = need <= 0.5 * (double)S->ctx->dev.global_mem, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* The grid (bands where they fit and no grid of several columns or panel
 * width was asked for), this rank's place and its row and column
 * communicators. */
static tdcl_status grid_comms(summa *S, const tdcl_mm_shard_opts *so, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int fit = bands_fit(S) && so->panel == 0;
    if (fit && so->grid_rows == 0 && so->grid_cols == 0)
        S->pr = S->size, S->pc = 1;
    else
        TDCL_TRY(
            tdcl_mm_shard_grid((size_t)S->size, so->grid_rows, so->grid_cols, &S->pr, &S->pc, err));
    S->bands = fit && S->pc == 1;
    S->p = S->rank / S->pc;
    S->q = S->rank % S->pc;
    MPI_Comm_split(MPI_COMM_WORLD, S->p, S->q, &S->row);
    MPI_Comm_split(MPI_COMM_WORLD, S->q, S->p, &S->col);
out:
    return st;
}

/* Both .npy headers, read on every rank. */
static tdcl_status npy_shape(const tdcl_mm_shard_opts *so, tdcl_npy_info *ia, tdcl_npy_info *ib,
                             tdcl_err *err)
{
    tdcl_status st = tdcl_npy_probe(so->a_npy, ia, err);
    if (st == TDCL_OK) st = tdcl_npy_probe(so->b_npy, ib, err);
    if (st == TDCL_OK && ia->cols != ib->rows)
        st = tdcl_fail(err, TDCL_EINVAL,
                       "cannot multiply '%s' (%" PRId64 "x%" PRId64 ") by '%s' (%" PRId64
                       "x%" PRId64 "): A's columns are not B's rows",
                       so->a_npy, ia->rows, ia->cols, so->b_npy, ib->rows, ib->cols);
    return st;
}

/* This rank's block of a .npy file, converted to the type, into *blk
 * (malloc'd; a byte for an empty block). */
static tdcl_status npy_block(const summa *S, const char *path, const tdcl_npy_info *info,
                             int64_t r0, int64_t r1, int64_t c0, int64_t c1, void **blk,
                             tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix raw = {0}, t = {0};
    if (r1 <= r0 || c1 <= c0)
        return (*blk = malloc(1)) ? TDCL_OK : tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    TDCL_TRY(tdcl_npy_read_block(path, info, r0, r1, c0, c1, &raw, err));
    TDCL_TRY(tdcl_matrix_narrow(&raw, S->type, 0, &t, err));
    *blk = t.data;
out:
    tdcl_matrix_free(&raw);
    return st;
}

/* Each rank reads its own blocks of A and B (bands: all of B). */
static tdcl_status read_blocks(summa *S, const tdcl_mm_shard_opts *so, const tdcl_npy_info *ia,
                               const tdcl_npy_info *ib, tdcl_err *err)
{
    int p = S->p, q = S->q;
    tdcl_status st =
        npy_block(S, so->a_npy, ia, S->rb[p], S->rb[p + 1], S->ka[q], S->ka[q + 1], &S->ablk, err);
    if (st == TDCL_OK && S->bands)
        return npy_block(S, so->b_npy, ib, 0, S->K, 0, S->N, &S->bblk, err);
    return st ? st
              : npy_block(S, so->b_npy, ib, S->kb[p], S->kb[p + 1], S->cb[q], S->cb[q + 1],
                          &S->bblk, err);
}

/* The shape from both .npy files, rank 0's check of A and B if it holds
 * them, the grid, and each rank's blocks read. */
static tdcl_status setup_npy(summa *S, const tdcl_mm_shard_opts *so, const tdcl_mm_opts *mm,
                             tdcl_status in_st, const tdcl_matrix *a, const tdcl_matrix *b,
                             tdcl_err *err)
{
    tdcl_status st = in_st;
    tdcl_matrix at = {0}, bt = {0};
    tdcl_npy_info ia, ib;
    if (S->rank == 0 && st == TDCL_OK && a->data) st = root_convert(mm, a, b, &at, &bt, err);
    tdcl_matrix_free(&at);
    tdcl_matrix_free(&bt);
    if (st == TDCL_OK) st = npy_shape(so, &ia, &ib, err);
    SYNC(st);
    S->M = ia.rows, S->K = ia.cols, S->N = ib.cols, S->type = mm->type;
    S->esz = tdcl_dtype_size(S->type);
    SYNC(grid_comms(S, so, err));
    SYNC(plan_grid(S, so->panel, err));
    double t0 = tdcl_now_ms();
    S->npy = 1;
    SYNC(read_blocks(S, so, &ia, &ib, err));
    S->scatter_ms = tdcl_now_ms() - t0;
out:
    return st;
}

/* Rank 0's inputs converted, the shape every rank learns from it, the
 * grid and the blocks sent out. */
static tdcl_status setup(summa *S, const tdcl_mm_shard_opts *so, const tdcl_mm_opts *mm,
                         tdcl_status in_st, const tdcl_matrix *a, const tdcl_matrix *b,
                         tdcl_err *err)
{
    tdcl_status st = in_st;
    tdcl_matrix at = {0}, bt = {0};
    int64_t h[4] = {0};
    if (S->rank == 0 && st == TDCL_OK) st = root_convert(mm, a, b, &at, &bt, err);
    if (st == TDCL_OK && S->rank == 0) h[0] = a->rows, h[1] = a->cols, h[2] = b->cols;
    h[3] = mm->type;
    SYNC(st);
    MPI_Bcast(h, 4, MPI_INT64_T, 0, MPI_COMM_WORLD);
    S->M = h[0], S->K = h[1], S->N = h[2], S->type = (tdcl_dtype)h[3];
    S->esz = tdcl_dtype_size(S->type);
    SYNC(grid_comms(S, so, err));
    SYNC(plan_grid(S, so->panel, err));
    double t0 = tdcl_now_ms();
    SYNC(alloc_blocks(S, &bt, err));
    SYNC(scatter(S, &at, &bt, err));
    S->scatter_ms = tdcl_now_ms() - t0;
out:
    tdcl_matrix_free(&at);
    tdcl_matrix_free(&bt);
    return st;
}

/* Every rank was given the whole A and B (so->inputs_everywhere): its
 * blocks are views of them (bands) or copies (SUMMA). Rank 0 rules out
 * int64 overflow as root_convert does. */
static tdcl_status setup_local(summa *S, const tdcl_mm_shard_opts *so, const tdcl_mm_opts *mm,
                               tdcl_status in_st, const tdcl_matrix *a, const tdcl_matrix *b,
                               tdcl_err *err)
{
    tdcl_status st = in_st;
    int64_t r, c;
    if (st == TDCL_OK && (a->cols != b->rows || a->dtype != mm->type || b->dtype != mm->type))
        st =
            tdcl_fail(err, TDCL_EINVAL,
                      "rank %d: A and B do not multiply or are not of the product's type", S->rank);
    if (st == TDCL_OK && S->rank == 0 && mm->type == TDCL_I64 && !mm->wrap &&
        !tdcl_mm_i64_bound_ok(a->data, b->data, a->rows, a->cols, b->cols) &&
        tdcl_mm_i64_first_overflow(a->data, b->data, a->rows, a->cols, b->cols, &r, &c))
        st = tdcl_mm_fail_overflow(r, c, err);
    SYNC(st);
    S->M = a->rows, S->K = a->cols, S->N = b->cols, S->type = mm->type;
    S->esz = tdcl_dtype_size(S->type);
    S->local = 1;
    SYNC(grid_comms(S, so, err));
    SYNC(plan_grid(S, so->panel, err));
    if (S->bands) {
        S->ablk = (char *)a->data + (size_t)S->rb[S->p] * (size_t)S->K * S->esz;
        S->bblk = b->data;
        S->views = 1;
        goto out;
    }
    SYNC(alloc_blocks(S, NULL, err)); /* not bands: no B to take over */
    copy_block(a->data, S->K, S->rb[S->p], S->ka[S->q], S->mi, S->ka[S->q + 1] - S->ka[S->q],
               S->ablk, S->esz, 0);
    copy_block(b->data, S->N, S->kb[S->p], S->cb[S->q], S->kb[S->p + 1] - S->kb[S->p], S->nj,
               S->bblk, S->esz, 0);
out:
    return st;
}

/* Bands: this rank's rows of C from its rows of A and all of B, by the
 * single-device product. */
static tdcl_status run_bands(summa *S, const tdcl_mm_opts *mm, tdcl_err *err)
{
    tdcl_matrix a = {S->mi, S->K, 1, S->type, S->ablk};
    tdcl_matrix b = {S->K, S->N, 1, S->type, S->bblk};
    tdcl_mm_opts o = *mm;
    o.type = S->type;
    o.wrap = 1; /* overflow is rank 0's check, over the whole product */
    o.borrow_inputs = 0;
    double t0 = tdcl_now_ms(), k0 = S->ctx->t.kernel_ms;
    tdcl_status st = tdcl_mm_run(S->ctx, &o, &a, &b, &S->cblk, err);
    S->kernel_ms = S->ctx->t.kernel_ms - k0;
    S->compute_ms = tdcl_now_ms() - t0;
    return st;
}

tdcl_status tdcl_mm_mpi_open(const tdcl_mm_shard_opts *so, tdcl_ctx **ctx, tdcl_err *err)
{
    return tdcl_mpi_open_local(so->devices, ctx, err);
}

static void summa_free(summa *S)
{
    for (int i = 0; i < 2; i++) {
        tdcl_pinned_free(&S->ap[i]);
        tdcl_pinned_free(&S->bp[i]);
    }
    tdcl_mm_plan_destroy(S->plan);
    tdcl_matrix_free(&S->cblk);
    if (S->row != MPI_COMM_NULL) MPI_Comm_free(&S->row);
    if (S->col != MPI_COMM_NULL) MPI_Comm_free(&S->col);
    free(S->rb);
    free(S->pk);
    if (!S->views) {
        free(S->ablk);
        free(S->bblk);
    }
    free(S);
}

tdcl_status tdcl_mm_mpi_run(tdcl_ctx *ctx, const tdcl_mm_shard_opts *so, const tdcl_mm_opts *mm,
                            tdcl_status in_st, const tdcl_matrix *a, const tdcl_matrix *b,
                            tdcl_matrix *c, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    summa *S = calloc(1, sizeof *S);
    memset(c, 0, sizeof *c);
    if (!S) st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    SYNC(st);
    S->row = S->col = MPI_COMM_NULL;
    S->ctx = ctx;
    S->rank = tdcl_mpi_rank();
    S->size = tdcl_mpi_size();
    if (so->inputs_everywhere)
        TDCL_TRY(setup_local(S, so, mm, in_st, a, b, err));
    else if (so->a_npy && so->b_npy)
        TDCL_TRY(setup_npy(S, so, mm, in_st, a, b, err));
    else
        TDCL_TRY(setup(S, so, mm, in_st, a, b, err));
    if (so->layout) *so->layout = (tdcl_mm_mpi_layout){S->pr, S->pc, S->bands};
    if (!S->bands) SYNC(make_plan(S, mm, err));
    log_rank(S, 0);
    double t0 = tdcl_now_ms();
    if (S->bands)
        SYNC(run_bands(S, mm, err));
    else
        TDCL_TRY(run_panels(S, err));
    if (so->panels_ms) *so->panels_ms = tdcl_now_ms() - t0;
    TDCL_TRY(finish(S, so, c, err));
    log_rank(S, 1);
out:
    if (st) tdcl_matrix_free(c);
    if (S) summa_free(S);
    return st;
}

int tdcl_mm_mpi_fp64(const tdcl_ctx *ctx)
{
    int fp64 = ctx->dev.fp64 ? 1 : 0, all_fp64 = 0;
    MPI_Allreduce(&fp64, &all_fp64, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all_fp64 ? 1 : fp64 ? -1 : 0;
}

tdcl_status tdcl_mm_mpi_slabs(const char *a_path, const char *b_path, tdcl_dtype *ta,
                              tdcl_dtype *tb, int *slabs, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_npy_info ia, ib;
    int mine = a_path && b_path && tdcl_npy_probe(a_path, &ia, NULL) == TDCL_OK &&
               tdcl_npy_probe(b_path, &ib, NULL) == TDCL_OK,
        all = 0;
    *slabs = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) return TDCL_OK;
    TDCL_TRY(tdcl_mpi_same_npy(a_path, &ia, err)); /* agreed: every rank or none */
    TDCL_TRY(tdcl_mpi_same_npy(b_path, &ib, err));
    *ta = ia.dtype;
    *tb = ib.dtype;
    *slabs = 1;
out:
    return st;
}

#endif
