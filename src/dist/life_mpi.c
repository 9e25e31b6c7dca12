/* Life over MPI ranks (dist/life_mpi.h): the decomposition is
 * life_shards.c's (bands of rows, halos K rows deep, the plan's own
 * boundary inside the halo); only the exchange differs: MPI_Sendrecv
 * between neighbours, staged through pinned host buffers. */
#include "dist/life_mpi.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "dist/shard.h"

#if TDCL_HAVE_MPI
#include <mpi.h>
#endif

#if !TDCL_HAVE_MPI

tdcl_status tdcl_life_mpi_create(tdcl_ctx *ctx, const tdcl_life_opts *lo, const tdcl_matrix *grid,
                                 int64_t halo, tdcl_life_mpi **m, tdcl_err *err)
{
    (void)ctx, (void)lo, (void)grid, (void)halo;
    *m = NULL;
    return tdcl_fail(err, TDCL_EUNSUPPORTED, "built without MPI");
}

tdcl_status tdcl_life_mpi_execute(tdcl_life_mpi *m, int64_t gens, tdcl_err *err)
{
    (void)m, (void)gens;
    return tdcl_fail(err, TDCL_EUNSUPPORTED, "built without MPI");
}

tdcl_status tdcl_life_mpi_result(tdcl_life_mpi *m, tdcl_matrix *grid, tdcl_err *err)
{
    (void)m, (void)grid;
    return tdcl_fail(err, TDCL_EUNSUPPORTED, "built without MPI");
}

int64_t tdcl_life_mpi_halo(const tdcl_life_mpi *m)
{
    (void)m;
    return 0;
}

void tdcl_life_mpi_log(const tdcl_life_mpi *m)
{
    (void)m;
}

void tdcl_life_mpi_destroy(tdcl_life_mpi *m)
{
    (void)m;
}

#else

#define SYNC TDCL_MPI_SYNC

typedef struct mpi_band {
    tdcl_life_plan *plan;
    int64_t begin, end, top, bot, halo;
    int prev, next;           /* ranks, MPI_PROC_NULL where no halo goes or comes */
    int send_prev, send_next; /* whether prev (next) holds a halo of this band */
    tdcl_pinned send, recv;   /* 2 halos each: [first rows | last rows] */
    size_t rb;
    double compute_ms, exchange_ms, kernel_ms;
} mpi_band;

/* Rows y0 .. y0+n-1 of the source (inside the grid) into dst. */
static tdcl_status src_rows(const tdcl_life_src *s, int64_t y0, int64_t n, uint8_t *dst,
                            tdcl_err *err)
{
    size_t w = (size_t)s->cols;
    if (s->grid) {
        memcpy(dst, (const uint8_t *)s->grid->data + (size_t)y0 * w, (size_t)n * w);
        return TDCL_OK;
    }
    if (!s->npy) return tdcl_life_soup_rows(s->cols, y0, n, s->density, s->seed, dst, err);
    tdcl_matrix blk = {0};
    tdcl_status st = tdcl_npy_read_block(s->npy, &s->info, y0, y0 + n, 0, s->cols, &blk, err);
    for (size_t k = 0; st == TDCL_OK && k < (size_t)n * w; k++) /* as tdcl_life_read: nonzero */
        dst[k] = tdcl_matrix_get_f64(&blk, k) != 0;
    tdcl_matrix_free(&blk);
    return st;
}

/* This rank's rows of the grid, the halos included (wrapping on a torus). */
static tdcl_status band_grid(const tdcl_life_src *src, const mpi_band *b, tdcl_matrix *sub,
                             tdcl_err *err)
{
    int64_t n = b->top + (b->end - b->begin) + b->bot, rows = src->rows;
    tdcl_status st = tdcl_matrix_alloc(sub, n, src->cols, 1, TDCL_U8, err);
    for (int64_t r = 0; st == TDCL_OK && r < n;) {
        int64_t y = ((b->begin - b->top + r) % rows + rows) % rows;
        int64_t run = n - r < rows - y ? n - r : rows - y;
        st = src_rows(src, y, run, (uint8_t *)sub->data + r * src->cols, err);
        r += run;
    }
    return st;
}

/* gens generations, then the halos: each band's first rows to the rank
 * above (its bottom halo), its last rows to the rank below (its top halo). */
static tdcl_status band_round(mpi_band *b, int64_t gens, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    double ms = 0, t0 = tdcl_now_ms();
    const int64_t band = b->end - b->begin, H = b->halo;
    TDCL_TRY(tdcl_life_plan_execute(b->plan, gens, &ms, err));
    double t1 = tdcl_now_ms();
    b->kernel_ms += ms;
    b->compute_ms += t1 - t0;
    if (H == 0) goto out;
    uint8_t *snd = b->send.ptr, *rcv = b->recv.ptr;
    size_t half = (size_t)H * b->rb;
    TDCL_TRY(tdcl_life_plan_read_rows(b->plan, b->top, H, snd, err));
    TDCL_TRY(tdcl_life_plan_read_rows(b->plan, b->top + band - H, H, snd + half, err));
    /* tag 1: last rows downwards; tag 2: first rows upwards */
    if (MPI_Sendrecv(snd + half, (int)half, MPI_BYTE, b->send_next ? b->next : MPI_PROC_NULL, 1,
                     rcv, (int)half, MPI_BYTE, b->top ? b->prev : MPI_PROC_NULL, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS ||
        MPI_Sendrecv(snd, (int)half, MPI_BYTE, b->send_prev ? b->prev : MPI_PROC_NULL, 2,
                     rcv + half, (int)half, MPI_BYTE, b->bot ? b->next : MPI_PROC_NULL, 2,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        st = tdcl_fail(err, TDCL_EIO, "rank %d: the halo exchange failed", tdcl_mpi_rank());
        goto out;
    }
    if (b->top) TDCL_TRY(tdcl_life_plan_write_rows(b->plan, 0, b->top, rcv, err));
    if (b->bot)
        TDCL_TRY(tdcl_life_plan_write_rows(b->plan, b->top + band, b->bot, rcv + half, err));
    b->exchange_ms += tdcl_now_ms() - t1;
out:
    return st;
}

/* The band's live cells, summed over the ranks. */
static tdcl_status band_population(mpi_band *b, int64_t cols, int64_t *pop, tdcl_err *err)
{
    int64_t band = b->end - b->begin, mine = 0;
    uint8_t *cells = malloc((size_t)(band * cols));
    tdcl_status st = cells ? TDCL_OK : tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    if (st == TDCL_OK) st = tdcl_life_plan_cells(b->plan, b->top, band, cells, err);
    for (int64_t k = 0; st == TDCL_OK && k < band * cols; k++)
        mine += cells[k];
    free(cells);
    if (tdcl_mpi_agree(&st, err) >= 0) return st;
    MPI_Allreduce(&mine, pop, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return TDCL_OK;
}

/* Rank 0 receives every band's cells into grid (allocated there); the
 * others send theirs, in pieces of at most 1 GiB. */
static tdcl_status gather(mpi_band *b, const int64_t *begin, int64_t rows, int64_t cols,
                          tdcl_matrix *grid, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    uint8_t *mine = NULL;
    int64_t band = b->end - b->begin;
    const int64_t piece = ((int64_t)1 << 30) / cols > 0 ? ((int64_t)1 << 30) / cols : 1;
    if (tdcl_mpi_rank() == 0)
        st = tdcl_matrix_alloc(grid, rows, cols, 1, TDCL_U8, err);
    else if (!(mine = malloc((size_t)(band * cols))))
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    if (st == TDCL_OK)
        st = tdcl_life_plan_cells(b->plan, b->top, band,
                                  tdcl_mpi_rank() == 0 ? (uint8_t *)grid->data : mine, err);
    if (tdcl_mpi_agree(&st, err) >= 0) goto out;
    for (int r = 1; r < tdcl_mpi_size(); r++)
        for (int64_t y = begin[r]; y < begin[r + 1]; y += piece) {
            int64_t n = begin[r + 1] - y < piece ? begin[r + 1] - y : piece;
            int rc =
                tdcl_mpi_rank() == 0   ? MPI_Recv((uint8_t *)grid->data + y * cols, (int)(n * cols),
                                                  MPI_BYTE, r, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
                : tdcl_mpi_rank() == r ? MPI_Send(mine + (y - begin[r]) * cols, (int)(n * cols),
                                                  MPI_BYTE, 0, 3, MPI_COMM_WORLD)
                                       : MPI_SUCCESS;
            if (rc != MPI_SUCCESS && st == TDCL_OK)
                st =
                    tdcl_fail(err, TDCL_EIO, "rank %d: gathering the grid failed", tdcl_mpi_rank());
        }
    tdcl_mpi_agree(&st, err);
out:
    free(mine);
    if (st && tdcl_mpi_rank() == 0) tdcl_matrix_free(grid);
    return st;
}

struct tdcl_life_mpi {
    mpi_band b;
    int64_t *begin; /* every rank's first row, and the grid's rows at [tdcl_mpi_size()] */
    int64_t rows, cols;
    int64_t thinnest, thickest; /* the thinnest and the thickest band's rows */
    int auto_halo;              /* the halo is measured in the first run of 3 or more */
    tdcl_ctx *ctx;              /* for the plan rebuilt with that halo */
    tdcl_life_opts lo;
};

void tdcl_life_mpi_destroy(tdcl_life_mpi *m)
{
    if (!m) return;
    tdcl_pinned_free(&m->b.send);
    tdcl_pinned_free(&m->b.recv);
    tdcl_life_plan_destroy(m->b.plan);
    free(m->begin);
    free(m);
}

/* The band's halos, halo rows deep, where a neighbour holds one. */
static void band_halo(mpi_band *b, int64_t halo, int wrap)
{
    b->halo = halo;
    b->top = b->halo && (tdcl_mpi_rank() > 0 || wrap) ? b->halo : 0;
    b->bot = b->halo && (tdcl_mpi_rank() + 1 < tdcl_mpi_size() || wrap) ? b->halo : 0;
    b->send_prev = b->halo && (tdcl_mpi_rank() > 0 || wrap);
    b->send_next = b->halo && (tdcl_mpi_rank() + 1 < tdcl_mpi_size() || wrap);
}

/* The bands, this rank's halos and neighbours; the halo checked against
 * the thinnest band. */
static tdcl_status mpi_bands(tdcl_life_mpi *m, const tdcl_life_opts *lo, int64_t halo,
                             tdcl_err *err)
{
    mpi_band *b = &m->b;
    if (!(m->begin = malloc(sizeof *m->begin * (size_t)(tdcl_mpi_size() + 1))))
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    tdcl_status st = tdcl_shard_split(m->rows, (size_t)tdcl_mpi_size(), 1, m->begin, err);
    if (st) return st;
    int64_t thinnest = INT64_MAX, thickest = 0;
    for (int r = 0; r < tdcl_mpi_size(); r++) {
        int64_t rows = m->begin[r + 1] - m->begin[r];
        if (rows < thinnest) thinnest = rows;
        if (rows > thickest) thickest = rows;
    }
    m->thinnest = thinnest;
    m->thickest = thickest;
    m->auto_halo = tdcl_mpi_size() > 1 && !halo;
    halo = tdcl_mpi_size() == 1 ? 0
           : halo               ? halo
           : thinnest < 64      ? thinnest
                                : 64; /* as the shards' */
    if (halo > thinnest)
        return tdcl_fail(err, TDCL_EINVAL,
                         "a halo of %" PRId64 " rows is more than the %" PRId64
                         " rows of the thinnest of %d bands",
                         halo, thinnest, tdcl_mpi_size());
    b->begin = m->begin[tdcl_mpi_rank()];
    b->end = m->begin[tdcl_mpi_rank() + 1];
    b->prev = (tdcl_mpi_rank() + tdcl_mpi_size() - 1) % tdcl_mpi_size();
    b->next = (tdcl_mpi_rank() + 1) % tdcl_mpi_size();
    band_halo(b, halo, lo->boundary == TDCL_LIFE_TORUS);
    return TDCL_OK;
}

/* This rank's plan on its band of the grid and the pinned halo buffers. */
/* The band's plan on sub (its rows with the halos) and the pinned halo
 * buffers. */
static tdcl_status band_plan(mpi_band *b, tdcl_ctx *ctx, const tdcl_life_opts *lo,
                             const tdcl_matrix *sub, tdcl_err *err)
{
    tdcl_status st = tdcl_life_plan_create(ctx, lo, sub, &b->plan, err);
    if (st || !b->halo) return st;
    b->rb = tdcl_life_plan_row_bytes(b->plan);
    st = tdcl_pinned_alloc(ctx, 2 * (size_t)b->halo * b->rb, &b->send, err);
    return st ? st : tdcl_pinned_alloc(ctx, 2 * (size_t)b->halo * b->rb, &b->recv, err);
}

static tdcl_status mpi_band_plan(tdcl_life_mpi *m, tdcl_ctx *ctx, const tdcl_life_opts *lo,
                                 const tdcl_life_src *src, tdcl_err *err)
{
    tdcl_matrix sub = {0};
    tdcl_status st = band_grid(src, &m->b, &sub, err);
    if (st == TDCL_OK) st = band_plan(&m->b, ctx, lo, &sub, err);
    tdcl_matrix_free(&sub);
    return st;
}

tdcl_status tdcl_life_mpi_create_src(tdcl_ctx *ctx, const tdcl_life_opts *lo,
                                     const tdcl_life_src *src, int64_t halo, tdcl_life_mpi **out,
                                     tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_life_mpi *m = calloc(1, sizeof *m);
    *out = NULL;
    SYNC(m ? TDCL_OK : tdcl_fail(err, TDCL_ENOMEM, "out of memory"));
    m->rows = src->rows;
    m->cols = src->cols;
    m->ctx = ctx;
    m->lo = *lo;
    SYNC(mpi_bands(m, lo, halo, err));
    SYNC(mpi_band_plan(m, ctx, lo, src, err));
    /* the exchange copies rows as bytes: every rank's layout must agree */
    uint64_t rb = m->b.rb, lo_rb = 0, hi_rb = 0;
    MPI_Allreduce(&rb, &lo_rb, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rb, &hi_rb, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    SYNC(lo_rb != hi_rb ? tdcl_fail(err, TDCL_EINVAL,
                                    "the ranks' devices chose different cell layouts; give the "
                                    "kernel and the cells per word")
                        : TDCL_OK);
    tdcl_log(TDCL_LOG_VERBOSE,
             "rank %d of %d: rows %" PRId64 "-%" PRId64 " (%" PRId64 " and %" PRId64
             " halo) on %u:%u %s%s",
             tdcl_mpi_rank(), tdcl_mpi_size(), m->b.begin, m->b.end - 1, m->b.top, m->b.bot,
             ctx->dev.pidx, ctx->dev.didx, ctx->dev.device_name,
             src->grid  ? ""
             : src->npy ? ", read from the .npy file"
                        : ", its rows of the soup sown here");
    *out = m;
    m = NULL;
out:
    tdcl_life_mpi_destroy(m);
    return st;
}

tdcl_status tdcl_life_mpi_create(tdcl_ctx *ctx, const tdcl_life_opts *lo, const tdcl_matrix *grid,
                                 int64_t halo, tdcl_life_mpi **out, tdcl_err *err)
{
    tdcl_life_src src = {.rows = grid->rows, .cols = grid->cols, .grid = grid};
    return tdcl_life_mpi_create_src(ctx, lo, &src, halo, out, err);
}

/* The plan again with halos `halo` rows deep, from this band's cells;
 * its halos are empty until the next exchange. */
static tdcl_status rebuild(tdcl_life_mpi *m, int64_t halo, tdcl_err *err)
{
    mpi_band *b = &m->b;
    tdcl_matrix sub = {0};
    const int64_t band = b->end - b->begin;
    uint8_t *cells = malloc((size_t)(band * m->cols) + 1);
    tdcl_status st = cells ? TDCL_OK : tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    if (st == TDCL_OK) st = tdcl_life_plan_cells(b->plan, b->top, band, cells, err);
    if (st == TDCL_OK) {
        tdcl_pinned_free(&b->send);
        tdcl_pinned_free(&b->recv);
        tdcl_life_plan_destroy(b->plan);
        b->plan = NULL;
        band_halo(b, halo, m->lo.boundary == TDCL_LIFE_TORUS);
        st = tdcl_matrix_alloc(&sub, b->top + band + b->bot, m->cols, 1, TDCL_U8, err);
    }
    if (st == TDCL_OK) {
        memcpy((uint8_t *)sub.data + b->top * m->cols, cells, (size_t)(band * m->cols));
        st = band_plan(b, m->ctx, &m->lo, &sub, err);
    }
    free(cells);
    tdcl_matrix_free(&sub);
    return st;
}

/* After two rounds of gens generations, the halo's first depth (the
 * second timed: round_ms, its kernels dev_ms): the halo for the slowest
 * rank's costs, as the local transport chooses it (tdcl_shard_halo, and
 * life_shards.c's choose_halo says why not rounds of one generation). Every
 * rank takes the same K (the maxima over ranks), so all rebuild their
 * plans or none. */
static tdcl_status choose_halo(tdcl_life_mpi *m, double round_ms, double dev_ms, int64_t gens,
                               tdcl_err *err)
{
    mpi_band *b = &m->b;
    double v[2] = {round_ms > dev_ms ? round_ms - dev_ms : 0,
                   dev_ms / (double)(b->top + (b->end - b->begin) + b->bot) / (double)gens},
           mx[2] = {0, 0};
    m->auto_halo = 0;
    if (MPI_Allreduce(v, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        return tdcl_fail(err, TDCL_EIO, "rank %d: measuring the halo exchange failed",
                         tdcl_mpi_rank());
    int64_t want = tdcl_shard_halo(mx[0], mx[1], m->thinnest);
    if (!tdcl_shard_halo_worth(mx[0], mx[1], m->thickest, b->halo, want)) want = b->halo;
    if (tdcl_mpi_rank() == 0)
        tdcl_log(TDCL_LOG_VERBOSE,
                 "ranks: a round's fixed cost %.3f ms, a row's generation %.6f ms: halo %" PRId64
                 " (%" PRId64 " before)",
                 mx[0], mx[1], want, b->halo);
    return want == b->halo ? TDCL_OK : rebuild(m, want, err);
}

tdcl_status tdcl_life_mpi_execute(tdcl_life_mpi *m, int64_t gens, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t done = 0;
    int64_t g = m->b.halo; /* 16, or the thinnest band */
    if (m->auto_halo && gens > 2 * g) {
        SYNC(band_round(&m->b, g, err));
        double t0 = tdcl_now_ms(), k0 = m->b.kernel_ms;
        SYNC(band_round(&m->b, g, err));
        done = 2 * g;
        SYNC(choose_halo(m, tdcl_now_ms() - t0, m->b.kernel_ms - k0, g, err));
        SYNC(band_round(&m->b, 0, err)); /* the halos, after every rank's rebuild */
    }
    while (done < gens) {
        int64_t n = gens - done;
        if (m->b.halo && n > m->b.halo) n = m->b.halo;
        SYNC(band_round(&m->b, n, err));
        done += n;
    }
out:
    return st;
}

tdcl_status tdcl_life_mpi_result(tdcl_life_mpi *m, tdcl_matrix *grid, tdcl_err *err)
{
    return gather(&m->b, m->begin, m->rows, m->cols, grid, err);
}

tdcl_status tdcl_life_mpi_population(tdcl_life_mpi *m, int64_t *pop, tdcl_err *err)
{
    return band_population(&m->b, m->cols, pop, err);
}

void tdcl_life_mpi_shape(const tdcl_life_mpi *m, int64_t *rows, int64_t *cols)
{
    *rows = m->rows;
    *cols = m->cols;
}

const char *tdcl_life_mpi_describe(const tdcl_life_mpi *m)
{
    return tdcl_life_plan_describe(m->b.plan);
}

double tdcl_life_mpi_kernel_ms(const tdcl_life_mpi *m)
{
    return m->b.kernel_ms;
}

int64_t tdcl_life_mpi_halo(const tdcl_life_mpi *m)
{
    return m->b.halo;
}

void tdcl_life_mpi_log(const tdcl_life_mpi *m)
{
    tdcl_log(TDCL_LOG_VERBOSE, "rank %d: compute %.3f ms (device %.3f ms), exchange %.3f ms",
             tdcl_mpi_rank(), m->b.compute_ms, m->b.kernel_ms, m->b.exchange_ms);
}

tdcl_status tdcl_life_mpi_write_npy(tdcl_life_mpi *m, const char *path, int *written, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t band = m->b.end - m->b.begin;
    uint8_t *mine = malloc((size_t)(band * m->cols) + 1);
    *written = 0;
    SYNC(mine ? TDCL_OK : tdcl_fail(err, TDCL_ENOMEM, "out of memory"));
    SYNC(tdcl_life_plan_cells(m->b.plan, m->b.top, band, mine, err));
    tdcl_mpi_block blk = {m->rows, m->cols, TDCL_U8, m->b.begin, 0, band, m->cols};
    *written = tdcl_mpi_write_npy(path, &blk, mine, &st, err);
    tdcl_log(TDCL_LOG_VERBOSE, "rank %d: rows %s", tdcl_mpi_rank(),
             *written ? "written into the output by offset" : "to rank 0");
out:
    free(mine);
    return st;
}

#endif
