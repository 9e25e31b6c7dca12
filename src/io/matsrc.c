/* Matrix file input: open, magic bytes, mmap, streamed reads and gunzip. */
#include "io/matsrc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/mem.h"
#include "base/fileio.h"
#include "base/matrix.h"

#define ZIN_SIZE (1u << 18)

/* read(2) until n bytes or the end, retrying on EINTR. */
static tdcl_status raw_fd_read(tdcl_src *s, void *dst, size_t n, size_t *got, tdcl_err *err)
{
    size_t have = 0;
    if (s->mem) {
        have = s->mem_len - s->mem_pos < n ? s->mem_len - s->mem_pos : n;
        memcpy(dst, s->mem + s->mem_pos, have);
        s->mem_pos += have;
        s->raw_eof = have < n;
        *got = have;
        return TDCL_OK;
    }
    while (have < n) {
        ssize_t r = read(s->fd, (char *)dst + have, n - have);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0)
            return tdcl_fail(err, TDCL_EIO, "cannot read '%s': %s", s->name, strerror(errno));
        if (r == 0) {
            s->raw_eof = 1;
            break;
        }
        have += (size_t)r;
    }
    *got = have;
    return TDCL_OK;
}

/* Raw (stored) bytes: the head buffer first, then the descriptor. */
static tdcl_status raw_read(tdcl_src *s, void *dst, size_t n, size_t *got, tdcl_err *err)
{
    size_t from_head = s->head_len - s->head_pos;
    if (from_head > n) from_head = n;
    memcpy(dst, s->head + s->head_pos, from_head);
    s->head_pos += from_head;
    size_t more = 0;
    tdcl_status st = TDCL_OK;
    if (from_head < n && !s->raw_eof)
        st = raw_fd_read(s, (char *)dst + from_head, n - from_head, &more, err);
    *got = from_head + more;
    return st;
}

tdcl_status tdcl_src_open(tdcl_src *s, const char *path, tdcl_err *err)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->path = path;
    s->name = tdcl_path_display(path);
    s->is_stdin = strcmp(path, "-") == 0;
    s->fd = s->is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0) return tdcl_fail(err, TDCL_EIO, "cannot open '%s': %s", path, strerror(errno));
    struct stat sb;
    /* A regular file read from its start (stdin redirected from a file is
     * one too, unless something read from it already) can be mapped and
     * its size checked against the header's claims. */
    if (fstat(s->fd, &sb) == 0 && S_ISREG(sb.st_mode) && lseek(s->fd, 0, SEEK_CUR) == 0) {
        s->regular = 1;
        s->file_size = (uint64_t)sb.st_size;
    } else if (!s->is_stdin && fstat(s->fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        tdcl_src_close(s);
        return tdcl_fail(err, TDCL_EIO, "cannot read '%s': it is a directory", path);
    }
    tdcl_status st = raw_fd_read(s, s->head, sizeof s->head, &s->head_len, err);
    if (st) {
        tdcl_src_close(s);
        return st;
    }
    s->gz = s->head_len >= 2 && s->head[0] == 0x1f && s->head[1] == 0x8b;
    return TDCL_OK;
}

void tdcl_src_open_mem(tdcl_src *s, const char *name, const void *data, size_t len)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->path = s->name = name;
    s->regular = 1;
    s->file_size = len;
    s->mem = data;
    s->mem_len = len;
    size_t got;
    raw_fd_read(s, s->head, sizeof s->head, &got, NULL);
    s->head_len = got;
    s->gz = s->head_len >= 2 && s->head[0] == 0x1f && s->head[1] == 0x8b;
}

int tdcl_src_map(tdcl_src *s, const char **p, size_t *n)
{
    *p = NULL;
    *n = 0;
    if (s->mem && !s->gz && !s->consumed && s->mem_len > 0) {
        *p = (const char *)s->mem;
        *n = s->mem_len;
        return 1;
    }
    if (!s->regular || s->gz || s->file_size == 0 || s->file_size > SIZE_MAX || s->consumed)
        return 0;
    void *m = mmap(NULL, (size_t)s->file_size, PROT_READ, MAP_PRIVATE, s->fd, 0);
    if (m == MAP_FAILED) return 0;
    /* advice values are not flags: give them one at a time */
    madvise(m, (size_t)s->file_size, MADV_SEQUENTIAL);
    madvise(m, (size_t)s->file_size, MADV_WILLNEED);
    s->map = m;
    s->map_len = (size_t)s->file_size;
    *p = m;
    *n = s->map_len;
    return 1;
}

static tdcl_status z_start(tdcl_src *s, tdcl_err *err)
{
    z_stream *z = calloc(1, sizeof *z);
    s->zin = malloc(ZIN_SIZE);
    if (!z || !s->zin) {
        free(z);
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory reading '%s'", s->name);
    }
    /* 16 + MAX_WBITS: gzip wrapper only, so a corrupt header is an error. */
    if (inflateInit2(z, 16 + MAX_WBITS) != Z_OK) {
        free(z);
        return tdcl_fail(err, TDCL_ENOMEM, "cannot start zlib to read '%s'", s->name);
    }
    s->zs = z;
    return TDCL_OK;
}

/* Inflates into dst; concatenated gzip members are read one after another,
 * as gunzip does. */
static tdcl_status z_read(tdcl_src *s, void *dst, size_t n, size_t *got, tdcl_err *err)
{
    *got = 0;
    if (!s->zs) {
        tdcl_status zst = z_start(s, err);
        if (zst) return zst;
    }
    tdcl_status st = TDCL_OK;
    z_stream *z = s->zs;
    z->next_out = dst;
    z->avail_out = (uInt)(n > (1u << 30) ? (1u << 30) : n);
    while (z->avail_out > 0 && !s->z_end) {
        if (z->avail_in == 0) {
            size_t r;
            TDCL_TRY(raw_read(s, s->zin, ZIN_SIZE, &r, err));
            if (r == 0) {
                st = tdcl_fail(err, TDCL_EPARSE, "'%s': the gzip data is truncated", s->name);
                goto out;
            }
            z->next_in = s->zin;
            z->avail_in = (uInt)r;
        }
        int rc = inflate(z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            /* Another member may follow; skip a NUL-padded tail. */
            if (z->avail_in == 0 && !s->raw_eof) {
                size_t r;
                TDCL_TRY(raw_read(s, s->zin, ZIN_SIZE, &r, err));
                z->next_in = s->zin;
                z->avail_in = (uInt)r;
            }
            if (z->avail_in == 0 || z->next_in[0] != 0x1f)
                s->z_end = 1;
            else
                inflateReset(z);
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            st = tdcl_fail(err, TDCL_EPARSE, "'%s': corrupt gzip data (%s)", s->name,
                           z->msg ? z->msg : "inflate failed");
            goto out;
        }
    }
out:
    *got = (size_t)((unsigned char *)z->next_out - (unsigned char *)dst);
    return st;
}

tdcl_status tdcl_src_read(tdcl_src *s, void *dst, size_t n, size_t *got, tdcl_err *err)
{
    tdcl_status st;
    *got = 0;
    if (n == 0) return TDCL_OK;
    if (s->map && !s->gz) {
        size_t left = s->map_len - (size_t)s->consumed;
        *got = n < left ? n : left;
        memcpy(dst, (char *)s->map + s->consumed, *got);
        st = TDCL_OK;
    } else {
        st = s->gz ? z_read(s, dst, n, got, err) : raw_read(s, dst, n, got, err);
    }
    s->consumed += *got;
    return st;
}

tdcl_status tdcl_src_read_full(tdcl_src *s, void *dst, size_t n, const char *what, tdcl_err *err)
{
    size_t have = 0;
    while (have < n) {
        size_t got;
        tdcl_status st = tdcl_src_read(s, (char *)dst + have, n - have, &got, err);
        if (st) return st;
        if (got == 0)
            return tdcl_fail(err, TDCL_EPARSE,
                             "'%s': expected %zu bytes of %s, the file ends after %zu", s->name, n,
                             what, have);
        have += got;
    }
    return TDCL_OK;
}

uint64_t tdcl_src_max_content(const tdcl_src *s)
{
    if (!s->regular) return UINT64_MAX;
    if (!s->gz) return s->file_size;
    return s->file_size > UINT64_MAX / 1032 ? UINT64_MAX : s->file_size * 1032;
}

void tdcl_src_close(tdcl_src *s)
{
    if (!s) return;
    if (s->map) munmap(s->map, s->map_len);
    if (s->zs) {
        inflateEnd(s->zs);
        free(s->zs);
    }
    free(s->zin);
    if (s->fd >= 0 && !s->is_stdin) close(s->fd);
    s->map = NULL;
    s->zs = NULL;
    s->zin = NULL;
    s->fd = -1;
}

tdcl_status tdcl_src_check_size(const char *name, int64_t rows, int64_t cols, int dtype,
                                size_t max_bytes, size_t *bytes, tdcl_err *err)
{
    tdcl_dtype t = (tdcl_dtype)dtype;
    if (tdcl_matrix_bytes(rows, cols, 1, t, bytes, NULL) != TDCL_OK)
        return tdcl_fail(err, TDCL_ELIMIT, "'%s': a %lldx%lld %s matrix does not fit in memory",
                         name, (long long)rows, (long long)cols, tdcl_dtype_name(t));
    if (max_bytes > 0 && *bytes > max_bytes)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "'%s': a %lldx%lld %s matrix needs %zu bytes, more than the limit "
                         "of %zu bytes",
                         name, (long long)rows, (long long)cols, tdcl_dtype_name(t), *bytes,
                         max_bytes);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0 && (uint64_t)*bytes / (uint64_t)page >= (uint64_t)pages)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "'%s': a %lldx%lld %s matrix needs %zu bytes, more than this "
                         "host's memory (%llu bytes)",
                         name, (long long)rows, (long long)cols, tdcl_dtype_name(t), *bytes,
                         (unsigned long long)pages * (unsigned long long)page);
    char what[256];
    snprintf(what, sizeof what, "'%s': a %lldx%lld %s matrix", name, (long long)rows,
             (long long)cols, tdcl_dtype_name(t));
    return tdcl_mem_check(*bytes, what, 0, 0, err);
}
