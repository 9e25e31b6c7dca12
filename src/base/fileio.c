/* Whole-file reads, atomic writes and the signal-time cleanup of temporaries. */
#define _GNU_SOURCE /* fallocate: posix_fallocate writes zeros where it is not supported */
#include "base/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* Pending temporary files, removed by the signal handler. Written only
 * outside signal context; the handler only reads and unlinks. */
#define MAX_PENDING 32
static char *volatile pending[MAX_PENDING];
/* Text the handler writes to stderr before dying (a progress bar's eraser). */
static const char *volatile signal_note;

static int pending_add(char *tmp)
{
    for (int i = 0; i < MAX_PENDING; i++)
        if (!pending[i]) {
            pending[i] = tmp;
            return i;
        }
    return -1;
}

static void pending_remove(int slot)
{
    if (slot >= 0 && slot < MAX_PENDING) pending[slot] = NULL;
}

int tdcl_cleanup_add(char *path)
{
    return pending_add(path);
}

void tdcl_cleanup_remove(int slot)
{
    pending_remove(slot);
}

void tdcl_signal_note(const char *text)
{
    signal_note = text;
}

/* Removes the pending temporaries and writes the note: async-signal-safe. */
static void remove_pending(void)
{
    int saved = errno;
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i]) unlink(pending[i]);
    const char *note = signal_note;
    if (note) {
        ssize_t w = write(STDERR_FILENO, note, strlen(note));
        (void)w;
    }
    errno = saved;
}

static void cleanup_handler(int sig)
{
    remove_pending();
    signal(sig, SIG_DFL);
    raise(sig); /* delivered once the handler returns: dies of sig */
}

/* Every asynchronous signal whose default action ends the process, and
 * SIGABRT (a driver's failed assertion). The faults (SIGSEGV, SIGBUS, ...)
 * are left to the sanitizers' handlers, and the real-time signals to
 * whichever library uses them. SIGXFSZ is not among them: it is ignored
 * instead, so that a write past `ulimit -f` fails with EFBIG and gets a
 * message. */
static const int fatal_signals[] = {SIGHUP,  SIGINT,  SIGQUIT,   SIGTERM,   SIGPIPE,
                                    SIGALRM, SIGUSR1, SIGUSR2,   SIGPOLL,   SIGPROF,
                                    SIGXCPU, SIGABRT, SIGVTALRM, SIGSTKFLT, SIGPWR};

/* Of those, the ones that an OpenCL compiler's handler swallows: PoCL's
 * LLVM installs handlers (llvm::sys::RemoveFileOnSignal) whenever it
 * compiles; for SIGQUIT and SIGXCPU it removes its own files, puts back the
 * handlers it found and returns without raising the signal again, and
 * SIGUSR1 it takes as a request for information. Whatever handler is in
 * place, these are therefore never delivered to one: every thread blocks
 * them (threads inherit the mask of the thread that makes them, and this
 * runs before any other exists), and a thread of ours takes them with
 * sigwait. */
static const int waited_signals[] = {SIGQUIT, SIGUSR1, SIGXCPU};

#define NFATAL (sizeof fatal_signals / sizeof fatal_signals[0])
#define NWAITED (sizeof waited_signals / sizeof waited_signals[0])
static char taken[NFATAL]; /* the signals whose handler is ours */
static int installed;      /* tdcl_out_install_signal_cleanup ran */
static sigset_t waited;    /* the signals the waiting thread takes */

static void take_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cleanup_handler;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NFATAL; i++)
        if (taken[i]) sigaction(fatal_signals[i], &sa, NULL);
}

/* The waiting thread: the first blocked signal to arrive removes the
 * temporaries and ends the process as the signal's default action would. */
static void *signal_waiter(void *arg)
{
    (void)arg;
    for (;;) {
        int sig = 0;
        if (sigwait(&waited, &sig) != 0) continue;
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        remove_pending();
        /* die of sig: its default action, raised here and delivered when
         * unblocked; should a handler have been put in again in between,
         * it took the signal, and this tries again */
        for (int i = 0; i < 100; i++) {
            signal(sig, SIG_DFL);
            raise(sig);
            pthread_sigmask(SIG_UNBLOCK, &one, NULL);
            pthread_sigmask(SIG_BLOCK, &one, NULL);
        }
        _exit(128 + sig);
    }
    return NULL;
}

/* Blocks the swallowed signals that are not ignored and starts the thread
 * that waits for them; on failure they stay with the handler. */
static void start_waiter(void)
{
    pthread_t t;
    pthread_attr_t attr;
    sigset_t old;
    sigemptyset(&waited);
    for (size_t i = 0; i < NFATAL; i++)
        for (size_t w = 0; w < NWAITED; w++)
            if (taken[i] && fatal_signals[i] == waited_signals[w])
                sigaddset(&waited, waited_signals[w]);
    if (pthread_sigmask(SIG_BLOCK, &waited, &old) != 0) return;
    int ok = pthread_attr_init(&attr) == 0;
    ok = ok && pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
         pthread_attr_setstacksize(&attr, 64 * 1024) == 0 &&
         pthread_create(&t, &attr, signal_waiter, NULL) == 0;
    pthread_attr_destroy(&attr);
    if (!ok) pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void tdcl_out_install_signal_cleanup(void)
{
    for (size_t i = 0; i < NFATAL; i++) {
        /* a signal ignored by whoever started us (nohup) stays ignored */
        struct sigaction old;
        taken[i] = sigaction(fatal_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN;
    }
    installed = 1;
    take_signals();
    signal(SIGXFSZ, SIG_IGN);
    start_waiter();
}

void tdcl_out_reclaim_signals(void)
{
    if (!installed) return;
    take_signals();
    signal(SIGXFSZ, SIG_IGN);
}

const char *tdcl_path_display(const char *path)
{
    return (!path || strcmp(path, "-") == 0) ? "<stdin>" : path;
}

int tdcl_path_has_ext(const char *path, const char *ext)
{
    if (!path || !ext) return 0;
    size_t n = strlen(path), e = strlen(ext);
    return n > e && strcasecmp(path + n - e, ext) == 0;
}

/* The descriptor number path names as an alias of one of ours
 * (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N), else -1. Such a
 * path is written through a dup() of it: same file, same offset. */
static int fd_alias(const char *path)
{
    if (strcmp(path, "/dev/stdout") == 0) return STDOUT_FILENO;
    if (strcmp(path, "/dev/stderr") == 0) return STDERR_FILENO;
    const char *num = NULL;
    if (strncmp(path, "/dev/fd/", 8) == 0)
        num = path + 8;
    else if (strncmp(path, "/proc/self/fd/", 14) == 0)
        num = path + 14;
    if (!num || !*num) return -1;
    char *end;
    long v = strtol(num, &end, 10);
    return (*end || v < 0 || v > INT_MAX) ? -1 : (int)v;
}

int tdcl_path_is_stdout(const char *path)
{
    return !path || strcmp(path, "-") == 0 || fd_alias(path) == STDOUT_FILENO;
}

/* Follows symbolic links from path to the file they finally name (which
 * need not exist). Returns a malloc'd path, NULL with errno on failure. */
static char *follow_links(const char *path)
{
    char *cur = strdup(path);
    for (int hops = 0; cur; hops++) {
        struct stat sb;
        /* /dev/stdout and /proc/self/fd/N name one of our descriptors: past
         * them lies "pipe:[N]" or "socket:[N]", no path at all */
        if (fd_alias(cur) >= 0 || lstat(cur, &sb) != 0 || !S_ISLNK(sb.st_mode)) return cur;
        if (hops == 40) {
            free(cur);
            errno = ELOOP;
            return NULL;
        }
        char buf[PATH_MAX];
        ssize_t n = readlink(cur, buf, sizeof buf - 1);
        if (n < 0) {
            free(cur);
            return NULL;
        }
        buf[n] = '\0';
        char *next;
        const char *slash = strrchr(cur, '/');
        if (buf[0] == '/' || !slash) {
            next = strdup(buf);
        } else { /* relative to the link's own directory */
            size_t d = (size_t)(slash - cur) + 1;
            next = malloc(d + (size_t)n + 1);
            if (next) {
                memcpy(next, cur, d);
                memcpy(next + d, buf, (size_t)n + 1);
            }
        }
        free(cur);
        cur = next;
    }
    errno = ENOMEM;
    return NULL;
}

int tdcl_path_is_stream(const char *path)
{
    if (tdcl_path_is_stdout(path)) return 1;
    char *target = follow_links(path);
    struct stat sb;
    int r = target && (fd_alias(target) >= 0 ||
                       (stat(target, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)));
    free(target);
    return r;
}

/* The directory part of path ("." if none), malloc'd. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return strdup(".");
    if (slash == path) return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

char *tdcl_path_canonical(const char *path)
{
    char *target = follow_links(path);
    if (!target) return NULL;
    size_t n = strlen(target);
    while (n > 1 && target[n - 1] == '/') /* "dir/" names dir */
        target[--n] = '\0';
    const char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    char *dir = dir_of(target), *real = dir ? realpath(dir, NULL) : NULL, *out = NULL;
    if (!real || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 || !*base) {
        /* nothing to join: the whole path resolved, or as written */
        free(real);
        real = realpath(target, NULL);
        out = real ? real : strdup(target);
    } else if ((out = malloc(strlen(real) + strlen(base) + 2))) {
        sprintf(out, "%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/", base);
        free(real);
    } else {
        free(real);
    }
    free(dir);
    free(target);
    return out;
}

int tdcl_path_same_file(const char *a, const char *b)
{
    if (!a || !b) return 0;
    if (tdcl_path_is_stdout(a) || tdcl_path_is_stdout(b))
        return tdcl_path_is_stdout(a) && tdcl_path_is_stdout(b);
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb) /* devices and FIFOs take any number of writers */
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && S_ISREG(sa.st_mode);
    if (ea != eb) return 0;
    char *ca = tdcl_path_canonical(a), *cb = tdcl_path_canonical(b);
    int same = ca && cb ? strcmp(ca, cb) == 0 : strcmp(a, b) == 0;
    free(ca);
    free(cb);
    return same;
}

tdcl_status tdcl_out_precheck(const char *path, tdcl_err *err)
{
    if (!path || strcmp(path, "-") == 0 || fd_alias(path) >= 0) return TDCL_OK;
    tdcl_status st = TDCL_OK;
    char *target = follow_links(path), *dir = NULL;
    if (!target) return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", path, strerror(errno));
    struct stat sb;
    if (fd_alias(target) >= 0) goto out; /* a link to /dev/stdout: written through the descriptor */
    if (stat(target, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            st = tdcl_fail(err, TDCL_EIO, "cannot write '%s': it is a directory", path);
        else if (access(target, W_OK) != 0 && !S_ISREG(sb.st_mode))
            st = tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", path, strerror(errno));
        if (st || !S_ISREG(sb.st_mode)) goto out; /* devices and FIFOs are written in place */
    }
    const char *base = strrchr(target, '/');
    base = base ? base + 1 : target;
    if (strlen(base) > NAME_MAX) {
        st = tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", path, strerror(ENAMETOOLONG));
        goto out;
    }
    dir = dir_of(target);
    if (!dir) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory checking '%s'", path);
        goto out;
    }
    if (stat(dir, &sb) != 0)
        st = tdcl_fail(err, TDCL_EIO, "cannot write '%s': directory '%s': %s", path, dir,
                       strerror(errno));
    else if (!S_ISDIR(sb.st_mode))
        st = tdcl_fail(err, TDCL_EIO, "cannot write '%s': '%s' is not a directory", path, dir);
    else if (access(dir, W_OK | X_OK) != 0)
        st = tdcl_fail(err, TDCL_EIO, "cannot write '%s': directory '%s': %s", path, dir,
                       strerror(errno));
out:
    free(dir);
    free(target);
    return st;
}

/* Opens a file that is written in place: a descriptor alias, a FIFO, a
 * device. Nothing to rename, nothing to remove on failure. */
static tdcl_status open_direct(tdcl_outfile *o, const char *path, int alias, tdcl_err *err)
{
    int fd = alias >= 0 ? dup(alias) : open(o->path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || !(o->fp = fdopen(fd, "wb"))) {
        int e = errno;
        if (fd >= 0) close(fd);
        tdcl_out_abort(o);
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    o->direct = 1;
    return TDCL_OK;
}

tdcl_status tdcl_out_reserve(tdcl_outfile *o, unsigned long long bytes, tdcl_err *err)
{
    if (!o->fp || o->direct || !o->tmp || bytes == 0) return TDCL_OK;
    if (fflush(o->fp) != 0)
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", o->path, strerror(errno));
    int rc = fallocate(fileno(o->fp), 0, 0, (off_t)bytes);
    if (rc == 0 || errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL || errno == EINTR)
        return TDCL_OK;
    return tdcl_fail(err, TDCL_EIO, "cannot write '%s' (%llu bytes): %s", o->path, bytes,
                     strerror(errno));
}

tdcl_status tdcl_out_open(tdcl_outfile *o, const char *path, tdcl_err *err)
{
    memset(o, 0, sizeof *o);
    o->slot = -1;
    if (!path || strcmp(path, "-") == 0) {
        o->fp = stdout;
        return TDCL_OK;
    }
    tdcl_out_reclaim_signals(); /* from a driver's compiler, if it took them */
    int alias = fd_alias(path);
    /* Through symbolic links to the file they name: the link stays a link. */
    o->path = alias >= 0 ? strdup(path) : follow_links(path);
    if (!o->path) {
        int e = errno;
        tdcl_out_abort(o);
        return tdcl_fail(err, e == ENOMEM ? TDCL_ENOMEM : TDCL_EIO, "cannot write '%s': %s", path,
                         strerror(e));
    }
    if (alias < 0) alias = fd_alias(o->path); /* a link to /dev/stdout */
    struct stat old;
    int exists = alias < 0 && stat(o->path, &old) == 0;
    if (alias >= 0 || (exists && !S_ISREG(old.st_mode) && !S_ISDIR(old.st_mode)))
        return open_direct(o, path, alias, err);
    if (exists && S_ISDIR(old.st_mode)) {
        tdcl_out_abort(o);
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': it is a directory", path);
    }
    /* The temporary lives in the target's directory so rename() is atomic:
     * NAME.tmp.XXXXXX, or tiledcl.tmp.XXXXXX where that would pass the
     * file system's 255 bytes. */
    size_t n = strlen(o->path);
    const char *slash = strrchr(o->path, '/');
    size_t dlen = slash ? (size_t)(slash - o->path) + 1 : 0;
    o->tmp = malloc(n + 32);
    if (!o->tmp) {
        tdcl_out_abort(o);
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory opening '%s'", path);
    }
    if (n - dlen + 11 <= NAME_MAX)
        snprintf(o->tmp, n + 32, "%s.tmp.XXXXXX", o->path);
    else
        snprintf(o->tmp, n + 32, "%.*stiledcl.tmp.XXXXXX", (int)dlen, o->path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        tdcl_out_abort(o);
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    o->slot = pending_add(o->tmp);
    if (exists) { /* a replaced file keeps its permission bits and, if we may, its owner */
        if (fchown(fd, old.st_uid, old.st_gid) != 0 && fchown(fd, (uid_t)-1, old.st_gid) != 0) {
            /* not ours to give away: the new file is the caller's, like cp's */
        }
        fchmod(fd, old.st_mode & 07777);
    } else {
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
    o->fp = fdopen(fd, "wb");
    if (!o->fp) {
        int e = errno;
        close(fd);
        tdcl_out_abort(o);
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    return TDCL_OK;
}

/* No fsync unless TILEDCL_FSYNC=1: the rename alone keeps a failed or
 * interrupted run from touching an existing file, as with cp, sed -i and
 * sort -o, none of which sync. A sync only adds durability across a power
 * loss or a kernel crash (ext4's auto_da_alloc flushes a file renamed over
 * another anyway), and costs a large part of a big output's write;
 * docs/internals/outputs-and-signals.md says more. */
int tdcl_out_sync_wanted(void)
{
    const char *e = getenv("TILEDCL_FSYNC");
    return e && strcmp(e, "1") == 0;
}

tdcl_status tdcl_out_commit(tdcl_outfile *o, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    if (!o->tmp && !o->direct) { /* stdout */
        if (fflush(o->fp) != 0 || ferror(o->fp))
            st = tdcl_fail(err, TDCL_EIO, "cannot write to standard output: %s", strerror(errno));
        o->fp = NULL;
        return st;
    }
    int bad = fflush(o->fp) != 0 || ferror(o->fp);
    int e = errno;
    if (!bad && !o->direct && tdcl_out_sync_wanted() && fsync(fileno(o->fp)) != 0 &&
        errno != EINVAL) {
        bad = 1;
        e = errno;
    }
    if (fclose(o->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->fp = NULL;
    if (!bad && o->tmp && rename(o->tmp, o->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        if (o->direct)
            st = tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", o->path, strerror(e));
        else
            st = tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s (the old file, if any, is kept)",
                           o->path, strerror(e));
        tdcl_out_abort(o);
        return st;
    }
    pending_remove(o->slot);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    o->slot = -1;
    return TDCL_OK;
}

void tdcl_out_abort(tdcl_outfile *o)
{
    if (!o) return;
    if (o->fp && o->fp != stdout) fclose(o->fp);
    if (o->tmp) {
        pending_remove(o->slot);
        unlink(o->tmp);
    }
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
    o->slot = -1;
}
tdcl_status tdcl_read_file(const char *path, char **data, size_t *len, tdcl_err *err)
{
    *data = NULL;
    *len = 0;
    int is_stdin = strcmp(path, "-") == 0;
    FILE *fp = is_stdin ? stdin : fopen(path, "rb");
    if (!fp) return tdcl_fail(err, TDCL_EIO, "cannot open '%s': %s", path, strerror(errno));
    tdcl_status st = TDCL_OK;
    size_t cap = 1 << 16, n = 0;
    struct stat sb;
    if (!is_stdin && fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode))
        cap = (size_t)sb.st_size + 1;
    char *buf = malloc(cap + 1);
    if (!buf) {
        st = tdcl_fail(err, TDCL_ENOMEM, "cannot allocate %zu bytes to read '%s'", cap,
                       tdcl_path_display(path));
        goto out;
    }
    for (;;) {
        if (n == cap) {
            size_t ncap = cap * 2;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                st = tdcl_fail(err, TDCL_ENOMEM, "'%s' is too large to read into memory",
                               tdcl_path_display(path));
                goto out;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0) {
            if (ferror(fp))
                st = tdcl_fail(err, TDCL_EIO, "cannot read '%s': %s", tdcl_path_display(path),
                               strerror(errno));
            break;
        }
    }
out:
    if (fp && !is_stdin) fclose(fp);
    if (st) {
        free(buf);
        return st;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return TDCL_OK;
}
