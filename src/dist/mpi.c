/* MPI: the launch size from the environment, MPI's start and end, the
 * moves between ranks, .npy files by offset, the rank's device, and life
 * over ranks (dist/mpi.h). Life's decomposition is life_shards.c's (bands
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

#endif
