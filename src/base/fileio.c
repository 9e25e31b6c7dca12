/* Whole-file reads, atomic writes and the signal-time cleanup of temporaries. */
#include "base/fileio.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Pending temporary files, removed by the signal handler. Written only
 * outside signal context; the handler only reads and unlinks. */
#define MAX_PENDING 16
static char *volatile pending[MAX_PENDING];

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
    if (slot >= 0 && slot < MAX_PENDING)
        pending[slot] = NULL;
}

static void cleanup_handler(int sig)
{
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i])
            unlink(pending[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

void tdcl_out_install_signal_cleanup(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cleanup_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

const char *tdcl_path_display(const char *path)
{
    return (!path || strcmp(path, "-") == 0) ? "<stdin>" : path;
}

int tdcl_path_has_ext(const char *path, const char *ext)
{
    if (!path || !ext)
        return 0;
    size_t n = strlen(path), e = strlen(ext);
    return n > e && strcasecmp(path + n - e, ext) == 0;
}

tdcl_status tdcl_out_open(tdcl_outfile *o, const char *path, tdcl_err *err)
{
    memset(o, 0, sizeof *o);
    o->slot = -1;
    if (!path || strcmp(path, "-") == 0) {
        o->fp = stdout;
        return TDCL_OK;
    }
    size_t n = strlen(path);
    o->path = strdup(path);
    o->tmp = malloc(n + 16);
    if (!o->path || !o->tmp) {
        tdcl_out_abort(o);
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory opening '%s'", path);
    }
    /* The temporary lives in the target's directory so rename() is atomic. */
    snprintf(o->tmp, n + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        tdcl_out_abort(o);
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    o->slot = pending_add(o->tmp);
    o->fp = fdopen(fd, "wb");
    if (!o->fp) {
        int e = errno;
        close(fd);
        tdcl_out_abort(o);
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", path, strerror(e));
    }
    return TDCL_OK;
}

tdcl_status tdcl_out_commit(tdcl_outfile *o, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    if (!o->tmp) { /* stdout */
        if (fflush(o->fp) != 0 || ferror(o->fp))
            st = tdcl_fail(err, TDCL_EIO, "cannot write to standard output: %s",
                           strerror(errno));
        o->fp = NULL;
        return st;
    }
    int bad = fflush(o->fp) != 0 || ferror(o->fp);
    int e = errno;
    if (!bad && fsync(fileno(o->fp)) != 0 && errno != EINVAL) {
        bad = 1;
        e = errno;
    }
    if (fclose(o->fp) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->fp = NULL;
    if (!bad && rename(o->tmp, o->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
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
    if (!o)
        return;
    if (o->fp && o->fp != stdout)
        fclose(o->fp);
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
    if (!fp)
        return tdcl_fail(err, TDCL_EIO, "cannot open '%s': %s", path, strerror(errno));
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
    if (fp && !is_stdin)
        fclose(fp);
    if (st) {
        free(buf);
        return st;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return TDCL_OK;
}
