/* MPI: the launch size from the environment, MPI's start and end, the
 * moves between ranks, .npy files by offset, the rank's device, and life
 * over ranks (dist/mpi.h). Life's decomposition is shard_life.c's (bands
 * of rows, halos K rows deep, the plan's own boundary inside the halo);
 * only the exchange differs: MPI_Sendrecv between neighbours, staged
 * through pinned host buffers. */
#include "dist/mpi.h"

#include <inttypes.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/hash.h"
#include "base/log.h"
#include "io/npy.h"
#include "dist/shard.h"
#include "runtime/devset.h"

#if TDCL_HAVE_MPI
#include <mpi.h>
#endif

int tdcl_mpi_built(void)
{
    return TDCL_HAVE_MPI;
}

int tdcl_mpi_launched_size(int *rank)
{
    static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                                        "SLURM_NTASKS"};
    static const char *const ranks[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                        "SLURM_PROCID"};
    if (rank) *rank = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const char *s = getenv(sizes[i]);
        if (!s || !*s) continue;
        const char *r = getenv(ranks[i]);
        if (rank && r) *rank = atoi(r);
        int n = atoi(s);
        return n > 0 ? n : 0;
    }
    return 0;
}

#if !TDCL_HAVE_MPI

tdcl_status tdcl_mpi_init(tdcl_err *err)
{
    return tdcl_fail(err, TDCL_EUNSUPPORTED, "built without MPI");
}

void tdcl_mpi_finalize(void) {}

int tdcl_mpi_rank(void)
{
    return 0;
}

int tdcl_mpi_size(void)
{
    return 1;
}

int tdcl_mpi_agree(tdcl_status *st, tdcl_err *err)
{
    (void)err;
    return *st ? 0 : -1; /* one rank: its own status */
}

void tdcl_mpi_quiet_barrier(void) {}

void tdcl_mpi_name_rank(tdcl_err *err)
{
    (void)err;
}

int tdcl_mpi_bcast(void *buf, size_t bytes)
{
    (void)buf, (void)bytes;
    return 0;
}

void tdcl_mpi_bcast_i64(int64_t *v)
{
    (void)v;
}

tdcl_status tdcl_mpi_same(const char *subject, const char *shown, uint64_t sum, tdcl_err *err)
{
    (void)subject, (void)shown, (void)sum, (void)err;
    return TDCL_OK; /* one rank agrees with itself */
}

tdcl_status tdcl_mpi_npy_all(const char *path, tdcl_npy_info *info, int *all, tdcl_err *err)
{
    (void)err;
    *all = path && tdcl_npy_probe(path, info, NULL) == TDCL_OK;
    return TDCL_OK;
}

tdcl_status tdcl_mpi_same_npy(const char *path, const tdcl_npy_info *info, tdcl_err *err)
{
    (void)path, (void)info, (void)err;
    return TDCL_OK;
}

int tdcl_mpi_write_npy(const char *path, const tdcl_mpi_block *b, const void *data,
                       tdcl_status *res, tdcl_err *err)
{
    (void)path, (void)b, (void)data, (void)err;
    *res = TDCL_OK;
    return 0; /* one rank: the caller writes */
}

double tdcl_mpi_max(double v)
{
    return v;
}

tdcl_status tdcl_mpi_open_local(const char *spec, tdcl_ctx **ctx, tdcl_err *err)
{
    (void)spec;
    *ctx = NULL;
    return tdcl_fail(err, TDCL_EUNSUPPORTED, "built without MPI");
}

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

static int g_started, g_rank, g_size = 1;

tdcl_status tdcl_mpi_init(tdcl_err *err)
{
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return tdcl_fail(err, TDCL_EIO, "MPI_Init_thread failed");
    g_started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    /* errors come back as codes: a dead peer ends the job, not a hang */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    return TDCL_OK;
}

void tdcl_mpi_finalize(void)
{
    if (g_started) MPI_Finalize();
    g_started = 0;
}

int tdcl_mpi_rank(void)
{
    return g_rank;
}

int tdcl_mpi_size(void)
{
    return g_size;
}

/* Every rank's status: returns the lowest failing rank, or -1. A rank that
 * did not fail gets TDCL_EIO and an empty message in *err; a failing rank
 * that is not the lowest clears its message (one message for the job). */
int tdcl_mpi_agree(tdcl_status *st, tdcl_err *err)
{
    /* [0]: the lowest failing rank; [1]: the lowest failing rank with a
     * message, which reports (after an agreed failure only one has it) */
    int mine[2] = {*st ? g_rank : INT_MAX, *st && err->msg[0] ? g_rank : INT_MAX};
    int first[2] = {INT_MAX, INT_MAX};
    if (MPI_Allreduce(mine, first, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) {
        *st = tdcl_fail(err, TDCL_EIO, "rank %d: lost the other ranks", g_rank);
        return g_rank;
    }
    if (first[0] == INT_MAX) return -1;
    if ((first[1] != INT_MAX ? first[1] : first[0]) != g_rank) {
        if (!*st) *st = TDCL_EIO;
        err->msg[0] = '\0';
    }
    return first[0];
}

/* "rank N: " before err's message, unless it names a rank already: for a
 * failure that happened on one rank only (its own copy of a file). */
void tdcl_mpi_name_rank(tdcl_err *err)
{
    char pre[32];
    if (!err || strncmp(err->msg, "rank ", 5) == 0) return;
    size_t n = (size_t)snprintf(pre, sizeof pre, "rank %d: ", g_rank);
    size_t len = strnlen(err->msg, sizeof err->msg - 1);
    if (n + len >= sizeof err->msg) len = sizeof err->msg - 1 - n; /* the end goes */
    memmove(err->msg + n, err->msg, len);
    memcpy(err->msg, pre, n);
    err->msg[n + len] = '\0';
}

/* s into dst (n bytes), its end replaced by "..." where it does not fit. */
static void clip(char *dst, size_t n, const char *s)
{
    size_t len = strlen(s);
    if (len < n) {
        memcpy(dst, s, len + 1);
        return;
    }
    memcpy(dst, s, n - 4);
    memcpy(dst + n - 4, "...", 4);
}

tdcl_status tdcl_mpi_same(const char *subject, const char *shown, uint64_t sum, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    /* fixed size, so that one broadcast serves whatever rank 0 has */
    struct {
        uint64_t sum, shown_sum;
        char shown[320];
    } mine = {sum, tdcl_hash64(0, shown, strlen(shown)), ""}, root;
    clip(mine.shown, sizeof mine.shown, shown);
    root = mine;
    if (MPI_Bcast(&root, (int)sizeof root, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        st = tdcl_fail(err, TDCL_EIO, "rank %d: lost the other ranks", g_rank);
    else if (root.shown_sum != mine.shown_sum)
        st = tdcl_fail(err, TDCL_EINVAL, "rank %d %s (%s) from rank 0 (%s)", g_rank, subject,
                       mine.shown, root.shown);
    else if (root.sum != mine.sum)
        st = tdcl_fail(err, TDCL_EINVAL, "rank %d %s from rank 0 (both %s, other contents)", g_rank,
                       subject, mine.shown);
    tdcl_mpi_agree(&st, err);
    return st;
}

static uint64_t rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

/* A digest of every byte of the file at path. Four independent lanes over
 * 8-byte words (xxHash64's round) rather than tdcl_hash64's byte at a
 * time: every rank reads the whole file, and a multiplication per byte in
 * one chain would take seconds a gigabyte. */
static tdcl_status file_sum(const char *path, uint64_t *sum, tdcl_err *err)
{
    const uint64_t P1 = 0x9e3779b185ebca87ULL, P2 = 0xc2b2ae3d27d4eb4fULL;
    const size_t cap = (size_t)1 << 20;
    tdcl_status st = TDCL_OK;
    uint64_t lane[4] = {P1 + P2, P2, 0, (uint64_t)0 - P1}, total = 0;
    unsigned char *buf = malloc(cap);
    FILE *fp = buf ? fopen(path, "rb") : NULL;
    if (!buf) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    if (!fp) {
        st = tdcl_fail(err, TDCL_EIO, "cannot open '%s': %s", path, strerror(errno));
        goto out;
    }
    *sum = 0;
    for (;;) {
        size_t n = fread(buf, 1, cap, fp), k = 0;
        total += n;
        for (; k + 32 <= n; k += 32)
            for (int i = 0; i < 4; i++) {
                uint64_t w;
                memcpy(&w, buf + k + 8 * i, 8);
                lane[i] = rotl64(lane[i] + w * P2, 31) * P1;
            }
        if (n < cap) { /* the end (a full buffer is a multiple of 32) */
            if (ferror(fp)) {
                st = tdcl_fail(err, TDCL_EIO, "cannot read '%s': %s", path, strerror(errno));
                goto out;
            }
            *sum = tdcl_hash64(tdcl_hash64(tdcl_hash64(0, lane, sizeof lane), &total, sizeof total),
                               buf + k, n - k);
            break;
        }
    }
out:
    if (fp) fclose(fp);
    free(buf);
    return st;
}

tdcl_status tdcl_mpi_same_npy(const char *path, const tdcl_npy_info *info, tdcl_err *err)
{
    uint64_t sum = 0;
    char shown[96], name[280], subject[320];
    tdcl_status st = file_sum(path, &sum, err);
    if (st) tdcl_mpi_name_rank(err);
    if (tdcl_mpi_agree(&st, err) >= 0) return st;
    snprintf(shown, sizeof shown, "%" PRId64 "x%" PRId64 " %s", info->rows, info->cols,
             tdcl_dtype_name(info->dtype));
    clip(name, sizeof name, path);
    snprintf(subject, sizeof subject, "read a different '%s'", name);
    return tdcl_mpi_same(subject, shown, sum, err);
}

#define SYNC TDCL_MPI_SYNC

void tdcl_mpi_quiet_barrier(void)
{
    MPI_Request req;
    int done = 0;
    if (MPI_Ibarrier(MPI_COMM_WORLD, &req) != MPI_SUCCESS) return;
    while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        nanosleep(&(struct timespec){0, 200000}, NULL);
}

void tdcl_mpi_bcast_i64(int64_t *v)
{
    MPI_Bcast(v, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
}

int tdcl_mpi_bcast(void *buf, size_t bytes)
{
    const size_t piece = (size_t)1 << 30;
    int rc = 0;
    for (size_t at = 0; at < bytes; at += piece) /* every piece, failed or not */
        if (MPI_Bcast((char *)buf + at, (int)(bytes - at < piece ? bytes - at : piece), MPI_BYTE, 0,
                      MPI_COMM_WORLD) != MPI_SUCCESS)
            rc = -1;
    return rc;
}

tdcl_status tdcl_mpi_npy_all(const char *path, tdcl_npy_info *info, int *all, tdcl_err *err)
{
    int mine = path && tdcl_npy_probe(path, info, NULL) == TDCL_OK;
    *all = 0;
    if (MPI_Allreduce(&mine, all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) *all = 0;
    return *all ? tdcl_mpi_same_npy(path, info, err) : TDCL_OK;
}

double tdcl_mpi_max(double v)
{
    double r = v;
    MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return r;
}

tdcl_status tdcl_mpi_move(int send, void *buf, size_t bytes, int peer, tdcl_err *err)
{
    const size_t piece = (size_t)1 << 30;
    for (size_t at = 0; at < bytes; at += piece) {
        int n = (int)(bytes - at < piece ? bytes - at : piece);
        int rc = send ? MPI_Send((char *)buf + at, n, MPI_BYTE, peer, 9, MPI_COMM_WORLD)
                      : MPI_Recv((char *)buf + at, n, MPI_BYTE, peer, 9, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return tdcl_fail(err, TDCL_EIO, "rank %d: %s rank %d failed", g_rank,
                             send ? "sending to" : "receiving from", peer);
    }
    return TDCL_OK;
}

/* Rank 0: the temporary output with the header written and the file at
 * its full size; *off where the data starts. *direct when the output
 * cannot be written by offset (a FIFO, a device). */
static tdcl_status open_npy(const char *path, const tdcl_mpi_block *b, tdcl_outfile *of,
                            size_t *off, int *direct, tdcl_err *err)
{
    tdcl_status st = tdcl_out_open(of, path, err);
    tdcl_matrix shape = {b->rows, b->cols, 1, b->dtype, NULL};
    size_t bytes = (size_t)(b->rows * b->cols) * tdcl_dtype_size(b->dtype);
    if (st) return st;
    if ((*direct = of->direct || !of->tmp)) return TDCL_OK;
    st = tdcl_npy_write_header(of->fp, path, &shape, off, err);
    if (st == TDCL_OK &&
        (fflush(of->fp) != 0 || ftruncate(fileno(of->fp), (off_t)(*off + bytes)) != 0))
        st = tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", path, strerror(errno));
    return st;
}

/* This rank's rows of the block at their offsets in the file open as fd. */
static tdcl_status write_block(int fd, size_t off, const tdcl_mpi_block *b, const void *data,
                               tdcl_err *err)
{
    size_t esz = tdcl_dtype_size(b->dtype), w = (size_t)b->nj * esz;
    for (int64_t r = 0; r < b->mi; r++) {
        const char *src = (const char *)data + (size_t)r * w;
        off_t at = (off_t)(off + ((size_t)(b->r0 + r) * (size_t)b->cols + (size_t)b->c0) * esz);
        for (size_t done = 0; done < w;) {
            ssize_t n = pwrite(fd, src + done, w - done, at + (off_t)done);
            if (n <= 0)
                return tdcl_fail(err, TDCL_EIO, "rank %d: writing its rows of the output: %s",
                                 g_rank, strerror(errno));
            done += (size_t)n;
        }
    }
    if (fsync(fd) != 0)
        return tdcl_fail(err, TDCL_EIO, "rank %d: syncing its rows of the output: %s", g_rank,
                         strerror(errno));
    return TDCL_OK;
}

int tdcl_mpi_write_npy(const char *path, const tdcl_mpi_block *b, const void *data,
                       tdcl_status *res, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_outfile of = {0};
    size_t off = 0;
    int direct = 1, fd = -1, can, all = 1;
    char tmp[4096] = "";
    if (g_rank == 0) st = open_npy(path, b, &of, &off, &direct, err);
    if (g_rank == 0 && st == TDCL_OK && !direct) snprintf(tmp, sizeof tmp, "%s", of.tmp);
    SYNC(st);
    uint64_t h[2] = {(uint64_t)direct, off};
    MPI_Bcast(h, 2, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Bcast(tmp, sizeof tmp, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!h[0]) fd = open(tmp, O_WRONLY | O_CLOEXEC);
    can = fd >= 0;
    MPI_Allreduce(&can, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) goto out; /* gather instead */
    st = write_block(fd, (size_t)h[1], b, data, err);
    close(fd), fd = -1;
    SYNC(st);
    if (g_rank == 0) st = tdcl_out_commit(&of, err);
    SYNC(st);
out:
    if (fd >= 0) close(fd);
    if (g_rank == 0) tdcl_out_abort(&of);
    *res = st;
    return st != TDCL_OK || all;
}

/* The device of this rank: the node-local rank's pick among the spec's. */
tdcl_status tdcl_mpi_open_device(const char *spec, int local, tdcl_ctx **ctx, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_device_info *list = NULL;
    size_t n = 0, idx[TDCL_DEVSET_MAX], count = 0;
    *ctx = NULL;
    TDCL_TRY(tdcl_cl_devices(&list, &n, err));
    if (!spec || !*spec) {
        spec = "all";
        for (size_t i = 0; i < n; i++)
            if (list[i].type & CL_DEVICE_TYPE_GPU) spec = "gpu:all";
    }
    if (tdcl_devset_spec_is_set(spec)) {
        TDCL_TRY(tdcl_devset_pick(list, n, spec, idx, TDCL_DEVSET_MAX, &count, err));
    } else {
        TDCL_TRY(tdcl_cl_pick(list, n, spec, &idx[0], err));
        count = 1;
    }
    char one[32];
    size_t k = idx[(size_t)local % count];
    snprintf(one, sizeof one, "%u:%u", list[k].pidx, list[k].didx);
    tdcl_ctx_opts o = {.device_spec = one};
    TDCL_TRY(tdcl_ctx_open(&o, ctx, err));
out:
    free(list);
    return st;
}

tdcl_status tdcl_mpi_open_local(const char *spec, tdcl_ctx **ctx, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    MPI_Comm node = MPI_COMM_NULL;
    int local = 0;
    *ctx = NULL;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS)
        MPI_Comm_rank(node, &local);
    if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
    SYNC(tdcl_mpi_open_device(spec, local, ctx, err));
out:
    return st;
}

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
static tdcl_status src_rows(const tdcl_life_mpi_src *s, int64_t y0, int64_t n, uint8_t *dst,
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
static tdcl_status band_grid(const tdcl_life_mpi_src *src, const mpi_band *b, tdcl_matrix *sub,
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
        st = tdcl_fail(err, TDCL_EIO, "rank %d: the halo exchange failed", g_rank);
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
    if (g_rank == 0)
        st = tdcl_matrix_alloc(grid, rows, cols, 1, TDCL_U8, err);
    else if (!(mine = malloc((size_t)(band * cols))))
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    if (st == TDCL_OK)
        st = tdcl_life_plan_cells(b->plan, b->top, band, g_rank == 0 ? (uint8_t *)grid->data : mine,
                                  err);
    if (tdcl_mpi_agree(&st, err) >= 0) goto out;
    for (int r = 1; r < g_size; r++)
        for (int64_t y = begin[r]; y < begin[r + 1]; y += piece) {
            int64_t n = begin[r + 1] - y < piece ? begin[r + 1] - y : piece;
            int rc = g_rank == 0   ? MPI_Recv((uint8_t *)grid->data + y * cols, (int)(n * cols),
                                              MPI_BYTE, r, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
                     : g_rank == r ? MPI_Send(mine + (y - begin[r]) * cols, (int)(n * cols),
                                              MPI_BYTE, 0, 3, MPI_COMM_WORLD)
                                   : MPI_SUCCESS;
            if (rc != MPI_SUCCESS && st == TDCL_OK)
                st = tdcl_fail(err, TDCL_EIO, "rank %d: gathering the grid failed", g_rank);
        }
    tdcl_mpi_agree(&st, err);
out:
    free(mine);
    if (st && g_rank == 0) tdcl_matrix_free(grid);
    return st;
}

struct tdcl_life_mpi {
    mpi_band b;
    int64_t *begin; /* every rank's first row, and the grid's rows at [g_size] */
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
    b->top = b->halo && (g_rank > 0 || wrap) ? b->halo : 0;
    b->bot = b->halo && (g_rank + 1 < g_size || wrap) ? b->halo : 0;
    b->send_prev = b->halo && (g_rank > 0 || wrap);
    b->send_next = b->halo && (g_rank + 1 < g_size || wrap);
}

/* The bands, this rank's halos and neighbours; the halo checked against
 * the thinnest band. */
static tdcl_status mpi_bands(tdcl_life_mpi *m, const tdcl_life_opts *lo, int64_t halo,
                             tdcl_err *err)
{
    mpi_band *b = &m->b;
    if (!(m->begin = malloc(sizeof *m->begin * (size_t)(g_size + 1))))
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    tdcl_status st = tdcl_shard_split(m->rows, (size_t)g_size, 1, m->begin, err);
    if (st) return st;
    int64_t thinnest = INT64_MAX, thickest = 0;
    for (int r = 0; r < g_size; r++) {
        int64_t rows = m->begin[r + 1] - m->begin[r];
        if (rows < thinnest) thinnest = rows;
        if (rows > thickest) thickest = rows;
    }
    m->thinnest = thinnest;
    m->thickest = thickest;
    m->auto_halo = g_size > 1 && !halo;
    halo = g_size == 1 ? 0 : halo ? halo : thinnest < 64 ? thinnest : 64; /* as the shards' */
    if (halo > thinnest)
        return tdcl_fail(err, TDCL_EINVAL,
                         "a halo of %" PRId64 " rows is more than the %" PRId64
                         " rows of the thinnest of %d bands",
                         halo, thinnest, g_size);
    b->begin = m->begin[g_rank];
    b->end = m->begin[g_rank + 1];
    b->prev = (g_rank + g_size - 1) % g_size;
    b->next = (g_rank + 1) % g_size;
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
                                 const tdcl_life_mpi_src *src, tdcl_err *err)
{
    tdcl_matrix sub = {0};
    tdcl_status st = band_grid(src, &m->b, &sub, err);
    if (st == TDCL_OK) st = band_plan(&m->b, ctx, lo, &sub, err);
    tdcl_matrix_free(&sub);
    return st;
}

tdcl_status tdcl_life_mpi_create_src(tdcl_ctx *ctx, const tdcl_life_opts *lo,
                                     const tdcl_life_mpi_src *src, int64_t halo,
                                     tdcl_life_mpi **out, tdcl_err *err)
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
             g_rank, g_size, m->b.begin, m->b.end - 1, m->b.top, m->b.bot, ctx->dev.pidx,
             ctx->dev.didx, ctx->dev.device_name,
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
    tdcl_life_mpi_src src = {.rows = grid->rows, .cols = grid->cols, .grid = grid};
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
 * shard_life.c's choose_halo says why not rounds of one generation). Every
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
        return tdcl_fail(err, TDCL_EIO, "rank %d: measuring the halo exchange failed", g_rank);
    int64_t want = tdcl_shard_halo(mx[0], mx[1], m->thinnest);
    if (!tdcl_shard_halo_worth(mx[0], mx[1], m->thickest, b->halo, want)) want = b->halo;
    if (g_rank == 0)
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
             g_rank, m->b.compute_ms, m->b.kernel_ms, m->b.exchange_ms);
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
    tdcl_log(TDCL_LOG_VERBOSE, "rank %d: rows %s", g_rank,
             *written ? "written into the output by offset" : "to rank 0");
out:
    free(mine);
    return st;
}

#endif
