/* Program binary cache: entry naming, the file layout, load and store.
 *
 * File layout: "TDCLBIN1", u64 key length, key text, u64 binary length,
 * u64 FNV-1a of the binary, the binary. The key text holds the device
 * identity, the options and a 128-bit hash of the source.
 *
 * An entry can be well formed and still make the driver crash while it
 * loads it (a program cut short with its checksum recomputed, or a driver
 * changed under the same version string). So a load is bracketed by a
 * mark, ENTRY.loading, which the loader holds locked (flock) from before
 * the binary goes to the driver until after it is built. The kernel drops
 * the lock when its holder dies, however it dies, so a mark found at the
 * start of a load that nobody holds was left by a run that died loading
 * the entry, which is then condemned and rebuilt; a held mark is a live
 * load (MPI ranks and parallel runs load the same entry at once, and
 * condemning a live load made every rank of every mpirun recompile), and
 * the entry is loaded without waiting for it. A process id and host name
 * cannot tell this: a fresh PID namespace gives the next run the dead
 * run's id, and a new host name makes every mark look foreign. Entries
 * are opened without blocking, must be regular files, and are bounded in
 * size, so a FIFO or a device at an entry's path cannot hang a run. */
#include "runtime/clcache.h"

#include "base/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"

static const char MAGIC[8] = {'T', 'D', 'C', 'L', 'B', 'I', 'N', '1'};

char *tdcl_cache_dir(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    char buf[4096];
    if (xdg && *xdg)
        snprintf(buf, sizeof buf, "%s/tiledcl", xdg);
    else if (home && *home)
        snprintf(buf, sizeof buf, "%s/.cache/tiledcl", home);
    else
        return NULL;
    return strdup(buf);
}

/* The key text; malloc'd. */
static char *make_key(const tdcl_ctx *ctx, const char *src, size_t src_len, const char *options)
{
    uint64_t h1 = tdcl_hash64(0, src, src_len);
    uint64_t h2 = tdcl_hash64(0x9e3779b97f4a7c15ULL, src, src_len);
    size_t n = strlen(options) + 1024;
    char *key = malloc(n);
    if (key)
        snprintf(
            key, n,
            "platform=%s\ndevice=%s\ndriver=%s\nversion=%s\noptions=%s\nsource=%016llx%016llx\n",
            ctx->dev.platform_name, ctx->dev.device_name, ctx->dev.driver_version,
            ctx->dev.device_version, options, (unsigned long long)h1, (unsigned long long)h2);
    return key;
}

char *tdcl_cache_entry_path(const tdcl_ctx *ctx, const char *src, size_t src_len,
                            const char *options)
{
    if (!ctx->cache_dir) return NULL;
    char *key = make_key(ctx, src, src_len, options);
    if (!key) return NULL;
    uint64_t a = tdcl_hash64(0, key, strlen(key));
    uint64_t b = tdcl_hash64(0x9e3779b97f4a7c15ULL, key, strlen(key));
    free(key);
    size_t n = strlen(ctx->cache_dir) + 48;
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "%s/%016llx%016llx.bin", ctx->cache_dir, (unsigned long long)a,
                 (unsigned long long)b);
    return path;
}

/* No program binary is near this; a larger entry is not ours. */
#define MAX_ENTRY_BYTES ((size_t)256 << 20)

/* Reads the entry at path: a regular file of at most MAX_ENTRY_BYTES,
 * opened without blocking. 0 and a malloc'd *data on success. */
static int read_entry(const char *path, char **data, size_t *len)
{
    *data = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return -1;
    struct stat sb;
    char *buf = NULL;
    size_t n = 0, size = 0;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size < 0 ||
        (size_t)sb.st_size > MAX_ENTRY_BYTES) {
        tdcl_log(TDCL_LOG_VERBOSE, "cache entry %s is not a regular file of a sane size; ignored",
                 path);
        goto fail;
    }
    size = (size_t)sb.st_size;
    if (!(buf = malloc(size + 1))) goto fail;
    while (n < size) {
        ssize_t got = read(fd, buf + n, size - n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) goto fail;
        n += (size_t)got;
    }
    close(fd);
    *data = buf;
    *len = n;
    return 0;
fail:
    free(buf);
    close(fd);
    return -1;
}

/* ENTRY.loading, malloc'd. */
static char *mark_path(const char *entry)
{
    size_t n = strlen(entry) + 16;
    char *m = malloc(n);
    if (m) snprintf(m, n, "%s.loading", entry);
    return m;
}

/* Makes the mark, locked: written aside under a unique name, locked, then
 * linked into place, so that it is never seen unlocked or half written.
 * It holds "HOST PID" for a person reading the cache; only the lock
 * decides. The open descriptor (the lock's holder) or -1 when no mark
 * could be made. */
static int mark_make(const char *mark)
{
    char host[256] = "", tmp[4200];
    gethostname(host, sizeof host - 1);
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", mark) >= (int)sizeof tmp) return -1;
    int fd = mkstemp(tmp);
    if (fd < 0) return -1;
    /* readable by all: another user sharing the cache tests the lock */
    int ok = fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 && fchmod(fd, 0644) == 0 &&
             flock(fd, LOCK_EX | LOCK_NB) == 0 &&
             dprintf(fd, "%s %ld\n", host, (long)getpid()) > 0 && link(tmp, mark) == 0;
    unlink(tmp);
    if (!ok) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Whether a loader holds the mark now. A mark nobody holds (or that is not
 * a regular file, or that cannot be locked at all) was left by a run that
 * died loading the entry. Taking the lock and finding the mark gone or
 * replaced means its holder finished between our open and our lock: a
 * live load, not a dead one. Opened without blocking. */
static int mark_held(const char *mark)
{
    int fd = open(mark, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
    if (fd < 0) return errno == ENOENT;
    struct stat sb, now;
    int held = 0;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) goto out;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        held = errno == EWOULDBLOCK || errno == EINTR;
        goto out;
    }
    held = lstat(mark, &now) != 0 || now.st_ino != sb.st_ino || now.st_dev != sb.st_dev;
out:
    close(fd); /* drops our lock, if we took it */
    return held;
}

tdcl_status tdcl_cache_load(tdcl_ctx *ctx, const char *src, size_t src_len, const char *options,
                            cl_program *prog)
{
    tdcl_status st = TDCL_EIO;
    char *path = tdcl_cache_entry_path(ctx, src, src_len, options);
    char *key = make_key(ctx, src, src_len, options);
    char *mark = path ? mark_path(path) : NULL;
    char *data = NULL;
    size_t len = 0;
    int marked = -1; /* our mark's descriptor: holding it open holds its lock */
    cl_program p = NULL;
    *prog = NULL;
    if (!path || !key || !mark) goto out;
    struct stat sb;
    int busy = 0; /* another live process is loading the entry: no mark of ours */
    if (lstat(mark, &sb) == 0) {
        if (!(busy = mark_held(mark))) {
            tdcl_log(TDCL_LOG_VERBOSE,
                     "cache entry %s: an earlier run died while the driver loaded it; "
                     "rebuilding it",
                     path);
            unlink(path);
            unlink(mark);
            goto out;
        }
        tdcl_log(TDCL_LOG_DEBUG, "cache entry %s: another process is loading it too", path);
    }
    if (access(path, F_OK) != 0) goto out;
    if (read_entry(path, &data, &len) != 0) goto out;
    size_t klen = strlen(key), off = 0;
    uint64_t stored_klen, blen, sum;
    if (len < 32 || memcmp(data, MAGIC, 8) != 0) goto corrupt;
    off = 8;
    memcpy(&stored_klen, data + off, 8);
    off += 8;
    if (stored_klen != klen || len - off < klen + 16 || memcmp(data + off, key, klen) != 0)
        goto corrupt;
    off += klen;
    memcpy(&blen, data + off, 8);
    memcpy(&sum, data + off + 8, 8);
    off += 16;
    if (blen == 0 || blen != len - off || tdcl_hash64(0, data + off, blen) != sum) goto corrupt;
    const unsigned char *bin = (const unsigned char *)data + off;
    size_t bsize = (size_t)blen;
    cl_int rc, bin_status;
    marked = busy ? -1 : mark_make(mark);
    p = clCreateProgramWithBinary(ctx->context, 1, &ctx->dev.device, &bsize, &bin, &bin_status,
                                  &rc);
    if (rc != CL_SUCCESS || bin_status != CL_SUCCESS) goto corrupt;
    if (clBuildProgram(p, 1, &ctx->dev.device, options, NULL, NULL) != CL_SUCCESS) goto corrupt;
    *prog = p;
    p = NULL;
    st = TDCL_OK;
    goto out;
corrupt:
    tdcl_log(TDCL_LOG_VERBOSE, "cache entry %s is stale or corrupt; rebuilding", path);
out:
    if (marked >= 0) {
        unlink(mark); /* before the lock drops, so no one sees it unheld */
        close(marked);
    }
    free(mark);
    if (p) clReleaseProgram(p);
    free(data);
    free(key);
    free(path);
    return st;
}

int tdcl_cache_make_dirs(const char *dir)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *s = buf + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            *s = '/';
        }
    return (mkdir(buf, 0777) == 0 || errno == EEXIST) ? 0 : -1;
}

char *tdcl_cache_file_path(const tdcl_ctx *ctx, const char *name)
{
    if (!ctx->cache_dir) return NULL;
    size_t n = strlen(ctx->cache_dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (path) snprintf(path, n, "%s/%s", ctx->cache_dir, name);
    return path;
}

tdcl_status tdcl_cache_file_read(const tdcl_ctx *ctx, const char *name, char **data, size_t *len,
                                 tdcl_err *err)
{
    char *path = tdcl_cache_file_path(ctx, name);
    tdcl_status st = path ? tdcl_read_file(path, data, len, err)
                          : tdcl_fail(err, TDCL_EIO, "no cache directory to read '%s' from", name);
    free(path);
    return st;
}

tdcl_status tdcl_cache_file_write(const tdcl_ctx *ctx, const char *name, const char *data,
                                  size_t len, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_outfile o = {.slot = -1};
    char *path = tdcl_cache_file_path(ctx, name);
    if (!path) return tdcl_fail(err, TDCL_EIO, "no cache directory to store '%s' in", name);
    if (tdcl_cache_make_dirs(ctx->cache_dir) != 0)
        st = tdcl_fail(err, TDCL_EIO, "cannot create the cache directory '%s': %s", ctx->cache_dir,
                       strerror(errno));
    if (!st) st = tdcl_out_open(&o, path, err);
    if (!st && fwrite(data, 1, len, o.fp) != len)
        st = tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", path, strerror(errno));
    if (!st) st = tdcl_out_commit(&o, err);
    tdcl_out_abort(&o);
    free(path);
    return st;
}

/* A merge takes milliseconds; a holder this long is stopped or hung. */
#define LOCK_WAIT_MS 10000

tdcl_status tdcl_cache_file_lock(const tdcl_ctx *ctx, const char *name, int *fd, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    char *path = NULL, *lock = NULL;
    *fd = -1;
    if (!(path = tdcl_cache_file_path(ctx, name)))
        return tdcl_fail(err, TDCL_EIO, "no cache directory to lock '%s' in", name);
    size_t n = strlen(path) + 8;
    if (!(lock = malloc(n))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
        goto out;
    }
    snprintf(lock, n, "%s.lock", path);
    if (tdcl_cache_make_dirs(ctx->cache_dir) != 0) {
        st = tdcl_fail(err, TDCL_EIO, "cannot create the cache directory '%s': %s", ctx->cache_dir,
                       strerror(errno));
        goto out;
    }
    int l = open(lock, O_RDWR | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0666);
    if (l < 0) {
        st = tdcl_fail(err, TDCL_EIO, "cannot open the lock '%s': %s", lock, strerror(errno));
        goto out;
    }
    /* polled rather than blocking, so a stopped holder cannot hang us */
    int waited = 0;
    while (flock(l, LOCK_EX | LOCK_NB) != 0) {
        int busy = errno == EWOULDBLOCK || errno == EINTR;
        if (busy && waited < LOCK_WAIT_MS) {
            nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
            waited += 5;
            continue;
        }
        if (busy)
            st = tdcl_fail(err, TDCL_EIO, "cannot lock '%s': another process has held it for %d s",
                           lock, LOCK_WAIT_MS / 1000);
        else
            st = tdcl_fail(err, TDCL_EIO, "cannot lock '%s': %s", lock, strerror(errno));
        close(l);
        goto out;
    }
    *fd = l;
out:
    free(lock);
    free(path);
    return st;
}

void tdcl_cache_file_unlock(int fd)
{
    if (fd >= 0) close(fd); /* closing the only descriptor drops the lock */
}

void tdcl_cache_store(tdcl_ctx *ctx, const char *src, size_t src_len, const char *options,
                      cl_program prog)
{
    char *path = tdcl_cache_entry_path(ctx, src, src_len, options);
    char *key = make_key(ctx, src, src_len, options);
    unsigned char *bin = NULL;
    tdcl_outfile o = {.slot = -1};
    size_t bsize = 0;
    if (!path || !key) goto out;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof bsize, &bsize, NULL) != CL_SUCCESS ||
        bsize == 0 || !(bin = malloc(bsize)))
        goto out;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS) goto out;
    if (tdcl_cache_make_dirs(ctx->cache_dir) != 0) {
        tdcl_log(TDCL_LOG_VERBOSE, "cannot create cache directory %s: %s", ctx->cache_dir,
                 strerror(errno));
        goto out;
    }
    tdcl_err e;
    struct stat sb;
    /* a FIFO or device squatting on the entry's name is replaced, not written to */
    if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && unlink(path) != 0) {
        tdcl_log(TDCL_LOG_VERBOSE, "cache store skipped: cannot remove %s: %s", path,
                 strerror(errno));
        goto out;
    }
    if (tdcl_out_open(&o, path, &e) != TDCL_OK) {
        tdcl_log(TDCL_LOG_VERBOSE, "cache store skipped: %s", e.msg);
        goto out;
    }
    uint64_t klen = strlen(key), blen = bsize, sum = tdcl_hash64(0, bin, bsize);
    fwrite(MAGIC, 1, 8, o.fp);
    fwrite(&klen, 8, 1, o.fp);
    fwrite(key, 1, klen, o.fp);
    fwrite(&blen, 8, 1, o.fp);
    fwrite(&sum, 8, 1, o.fp);
    fwrite(bin, 1, bsize, o.fp);
    if (tdcl_out_commit(&o, &e) != TDCL_OK)
        tdcl_log(TDCL_LOG_VERBOSE, "cache store failed: %s", e.msg);
out:
    tdcl_out_abort(&o);
    free(bin);
    free(key);
    free(path);
}
