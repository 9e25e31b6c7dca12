/* tiledcl bench e2e: whole commands as child processes beside the floor
 * of each of their phases, measured in the same run (bench_e2e.h). */
#include "cli/bench_e2e.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/matrix.h"
#include "io/imgstream.h"
#include "io/life_io.h"
#include "io/matio.h"
#include "io/sparse_io.h"

extern char **environ;

#define CHUNK ((size_t)64 << 20) /* the read and write floors' buffer */
#define MAX_ARGS 40
#define IMG_BAND 64 /* rows of a generated image made at a time */

/* One child run's outcome. */
typedef struct child_run {
    double wall_ms, maxrss_mb;
    double release_ms; /* after the exit, until the helper it left ended (base/proc.h) */
    tdcl_timing t;
    int have_t;
} child_run;

typedef struct e2e {
    tdcl_ctx *ctx;
    const cli_e2e_opts *o;
    char dir[512];
    char errlog[600];
    char *buf; /* CHUNK bytes, touched */
    double up_gbps, down_gbps;
    double startup_ms; /* the fastest device opening seen so far */
    int python_numpy;  /* 1 python3 imports numpy, 0 not, -1 unknown */
    int vips;          /* 1 vips runs, 0 not, -1 unknown */
    int scipy;         /* 2 python3 has scipy and fast_matrix_market, 1 scipy alone, 0 neither,
                          -1 unknown */
} e2e;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Writes an n x n float32 .npy of values in [-1, 1). */
static tdcl_status gen_npy(const char *path, int64_t n, uint64_t seed, tdcl_err *err)
{
    tdcl_matrix m = {0};
    tdcl_status st = tdcl_matrix_alloc(&m, n, n, 1, TDCL_F32, err);
    if (st) return st;
    float *f = m.data;
    for (size_t i = 0; i < (size_t)(n * n); i++)
        f[i] = (float)((double)(splitmix(&seed) >> 40) * 0x1p-23 - 1.0);
    st = tdcl_matrix_write(path, &m, NULL, err);
    tdcl_matrix_free(&m);
    return st;
}

/* Sample x, y of channel c of the picture of side n: waves (separable,
 * from the row's and the column's sines) as a photograph's smooth
 * regions, plus seeded noise of about 6 levels, so that it compresses as
 * a photograph does; 0..255. */
static double picture(const double *cs, const double *rs, int64_t x, int c, uint64_t *seed)
{
    static const double amp[3] = {90, 80, 100};
    double wave = cs[(x * 3 + c) * 2] * rs[c * 2 + 1] + cs[(x * 3 + c) * 2 + 1] * rs[c * 2];
    uint64_t z = splitmix(seed);
    double noise =
        ((double)(z & 0xffff) + (double)((z >> 16) & 0xffff) + (double)((z >> 32) & 0xffff)) /
            65536.0 -
        1.5;
    double v = 128 + amp[c % 3] * wave + 12 * noise;
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* Writes the n x n picture of ch channels at bits 8 or 16 to path, in the
 * format its extension names, IMG_BAND rows at a time. */
static tdcl_status gen_image(const char *path, int64_t n, int ch, int bits, uint64_t seed,
                             tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_img_info info = {.width = n,
                          .height = n,
                          .channels = ch,
                          .dtype = bits == 16 ? TDCL_U16 : TDCL_U8,
                          .maxval = bits == 16 ? 65535 : 255};
    tdcl_img_wopts wo = {.bits = bits};
    tdcl_img_writer *w = NULL;
    size_t row = (size_t)n * (size_t)ch;
    double period = (double)n / 18, rs[6];
    double *cs = malloc((size_t)n * 3 * 2 * sizeof *cs);
    void *buf = malloc(row * IMG_BAND * (bits == 16 ? 2 : 1));
    if (!cs || !buf) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
        goto out;
    }
    for (int64_t x = 0; x < n; x++) /* sin and cos of each channel's column phase */
        for (int c = 0; c < 3; c++) {
            double a = (double)x / (period * (1 + 0.7 * c));
            cs[(x * 3 + c) * 2] = sin(a);
            cs[(x * 3 + c) * 2 + 1] = cos(a);
        }
    TDCL_TRY(tdcl_img_create_opts(path, &info, &wo, &w, err));
    for (int64_t y0 = 0; y0 < n; y0 += IMG_BAND) {
        int64_t rows = n - y0 < IMG_BAND ? n - y0 : IMG_BAND;
        for (int64_t y = 0; y < rows; y++) {
            for (int c = 0; c < 3; c++) {
                double a = (double)(y0 + y) / (period * (1.3 - 0.2 * c));
                rs[c * 2] = sin(a);
                rs[c * 2 + 1] = cos(a);
            }
            for (size_t k = 0; k < row; k++) {
                double v = picture(cs, rs, (int64_t)(k / (size_t)ch), (int)(k % (size_t)ch), &seed);
                if (bits == 16)
                    ((uint16_t *)buf)[(size_t)y * row + k] = (uint16_t)(v * 257);
                else
                    ((uint8_t *)buf)[(size_t)y * row + k] = (uint8_t)v;
            }
        }
        TDCL_TRY(tdcl_img_write_rows(w, buf, rows, err));
    }
    st = tdcl_img_commit(w, err);
    w = NULL;
out:
    tdcl_img_abort(w);
    free(cs);
    free(buf);
    return st;
}

static double file_mb(const char *path)
{
    struct stat sb;
    return path && stat(path, &sb) == 0 ? (double)sb.st_size / 1e6 : 0;
}

/* Runs exe with argv; stdout to /dev/null, stderr to the error log. */
static tdcl_status spawn_run(e2e *b, char *const *argv, child_run *r, tdcl_err *err)
{
    posix_spawn_file_actions_t fa;
    pid_t pid;
    int status = 0;
    struct rusage ru;
    memset(r, 0, sizeof *r);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, b->errlog, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    /* the child starts with no signal blocked: this process blocks some
     * for its signal thread (base/fileio.c) */
    posix_spawnattr_t sa;
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_init(&sa);
    posix_spawnattr_setsigmask(&sa, &none);
    posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSIGMASK);
    double t0 = tdcl_now_ms();
    int rc = posix_spawnp(&pid, argv[0], &fa, &sa, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&sa);
    if (rc) return tdcl_fail(err, TDCL_EIO, "cannot run '%s': %s", argv[0], strerror(rc));
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR) return tdcl_fail(err, TDCL_EIO, "wait4: %s", strerror(errno));
    r->wall_ms = tdcl_now_ms() - t0;
    r->maxrss_mb = (double)ru.ru_maxrss * 1024 / 1e6;
    /* the device's release, left to a helper that this process adopts
     * (cli_e2e_run makes it a subreaper): awaited, so that every run
     * starts on a quiet device, as a lone command would */
    int hs;
    while (waitpid(-1, &hs, 0) > 0 || errno == EINTR) {
    }
    r->release_ms = tdcl_now_ms() - t0 - r->wall_ms;
    char *log = NULL;
    size_t len = 0;
    tdcl_err ignored = {0};
    if (tdcl_read_file(b->errlog, &log, &len, &ignored) == TDCL_OK) {
        r->have_t = tdcl_timing_parse(log, &r->t) == 0;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            const char *tail = len > 400 ? log + len - 400 : log;
            tdcl_fail(err, TDCL_EIO, "'%s %s ...' failed (%s %d): %s", argv[0],
                      argv[1] ? argv[1] : "", WIFEXITED(status) ? "exit" : "signal",
                      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), tail);
        }
    }
    free(log);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (err && !err->msg[0])
            tdcl_fail(err, TDCL_EIO, "'%s' failed with status %d", argv[0], status);
        return TDCL_EIO;
    }
    return TDCL_OK;
}

/* Milliseconds to read the files (NULL-ended) with plain read(), best of 3. */
static double read_floor(e2e *b, const char *const *files)
{
    double best = INFINITY;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = tdcl_now_ms();
        for (int i = 0; files[i]; i++) {
            int fd = open(files[i], O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            while (read(fd, b->buf, CHUNK) > 0) {
            }
            close(fd);
        }
        double ms = tdcl_now_ms() - t0;
        if (ms < best) best = ms;
    }
    return files[0] ? best : 0;
}

/* Milliseconds to write mb of a new file with plain write(), and with
 * fsync too if fsync_ms is non-NULL; best of 3 each. */
static double write_floor(e2e *b, double mb, double *fsync_ms)
{
    char path[600];
    double best = INFINITY;
    size_t total = (size_t)(mb * 1e6);
    if (total == 0) return 0;
    snprintf(path, sizeof path, "%s/floor.out", b->dir);
    if (fsync_ms) *fsync_ms = INFINITY;
    for (int rep = 0; rep < 6; rep++) {
        double t0 = tdcl_now_ms();
        int sync = rep >= 3;
        if (sync && !fsync_ms) break;
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) return NAN;
        for (size_t done = 0; done < total;) {
            size_t n = total - done < CHUNK ? total - done : CHUNK;
            ssize_t w = write(fd, b->buf, n);
            if (w <= 0) break;
            done += (size_t)w;
        }
        if (sync) fsync(fd);
        close(fd);
        double ms = tdcl_now_ms() - t0;
        unlink(path);
        double *keep = sync ? fsync_ms : &best;
        if (ms < *keep) *keep = ms;
    }
    return best;
}

/* Up and down bandwidth between a pinned, mapped host buffer and a device
 * buffer of bytes, best of 3 blocking copies each way. */
static tdcl_status copy_floor(e2e *b, size_t bytes, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_ctx *ctx = b->ctx;
    cl_int rc;
    void *host = NULL;
    cl_mem pin = NULL;
    cl_mem dev = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE, bytes, NULL, &rc);
    TDCL_CL_TRY(err, rc, "clCreateBuffer");
    pin = clCreateBuffer(ctx->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &rc);
    TDCL_CL_TRY(err, rc, "clCreateBuffer");
    host = clEnqueueMapBuffer(ctx->queue, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                              NULL, NULL, &rc);
    TDCL_CL_TRY(err, rc, "clEnqueueMapBuffer");
    memset(host, 1, bytes);
    double up = INFINITY, down = INFINITY;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = tdcl_now_ms();
        TDCL_CL_TRY(err,
                    clEnqueueWriteBuffer(ctx->queue, dev, CL_TRUE, 0, bytes, host, 0, NULL, NULL),
                    "clEnqueueWriteBuffer");
        double t1 = tdcl_now_ms();
        TDCL_CL_TRY(err,
                    clEnqueueReadBuffer(ctx->queue, dev, CL_TRUE, 0, bytes, host, 0, NULL, NULL),
                    "clEnqueueReadBuffer");
        double t2 = tdcl_now_ms();
        if (t1 - t0 < up) up = t1 - t0;
        if (t2 - t1 < down) down = t2 - t1;
    }
    b->up_gbps = (double)bytes / (up > 1e-3 ? up : 1e-3) / 1e6;
    b->down_gbps = (double)bytes / (down > 1e-3 ? down : 1e-3) / 1e6;
out:
    if (host) {
        clEnqueueUnmapMemObject(ctx->queue, pin, host, 0, NULL, NULL);
        clFinish(ctx->queue);
    }
    if (pin) clReleaseMemObject(pin);
    if (dev) clReleaseMemObject(dev);
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The timed runs per row and per anchor. */
static int e2e_reps(const e2e *b)
{
    int reps = b->o->reps > 0 ? b->o->reps : 3;
    return reps > 31 ? 31 : reps;
}

/* Runs one row: a warm-up, then reps timed runs of args (NULL-ended, after
 * the global options), and fills r from them and the floors. */
static tdcl_status run_row(e2e *b, const char *name, const char *const *args,
                           const char *const *inputs, const char *output, cli_e2e_row *r,
                           tdcl_err *err)
{
    char *argv[MAX_ARGS];
    int n = 0;
    argv[n++] = (char *)b->o->exe;
    argv[n++] = "-v";
    for (int i = 0; b->o->global && b->o->global[i] && n < MAX_ARGS - 20; i++)
        argv[n++] = (char *)b->o->global[i];
    for (int i = 0; args[i] && n < MAX_ARGS - 1; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    size_t used = 0;
    for (int i = 1; i < n && used < sizeof r->command; i++) {
        int w = snprintf(r->command + used, sizeof r->command - used, "%s%s", i > 1 ? " " : "",
                         argv[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
    int reps = e2e_reps(b);
    child_run runs[32];
    double walls[32];
    tdcl_status st = spawn_run(b, argv, &runs[0], err); /* warm-up: page and kernel caches */
    if (st) return st;
    for (int i = 0; i < reps; i++) {
        if ((st = spawn_run(b, argv, &runs[i], err))) return st;
        walls[i] = runs[i].wall_ms;
        /* the command's own peak (VmHWM) where its -v line has it: wait4's
         * ru_maxrss also counts this process's memory, carried over exec */
        double rss =
            runs[i].have_t && runs[i].t.peak_rss_mb > 0 ? runs[i].t.peak_rss_mb : runs[i].maxrss_mb;
        if (rss > r->maxrss_mb) r->maxrss_mb = rss;
    }
    r->reps = reps;
    qsort(walls, (size_t)reps, sizeof walls[0], cmp_double);
    r->wall_ms = walls[reps / 2];
    r->wall_min_ms = walls[0];
    for (int i = 0; i < reps; i++)
        if (runs[i].wall_ms == r->wall_ms) r->t = runs[i].t, r->release_ms = runs[i].release_ms;
    for (int i = 0; inputs[i]; i++)
        r->in_mb += file_mb(inputs[i]);
    r->out_mb = file_mb(output);
    /* the fastest device opening seen in this run, this process's or a child's */
    for (int i = 0; i < reps; i++)
        if (runs[i].have_t && runs[i].t.setup_ms > 0 && runs[i].t.setup_ms < b->startup_ms)
            b->startup_ms = runs[i].t.setup_ms;
    r->floor_startup_ms = b->startup_ms;
    r->floor_read_ms = read_floor(b, inputs);
    r->floor_upload_ms = r->in_mb / b->up_gbps;
    r->floor_kernel_ms = r->t.kernel_ms;
    r->floor_download_ms = r->out_mb / b->down_gbps;
    r->floor_write_ms = write_floor(b, r->out_mb, &r->write_fsync_ms);
    double rest =
        r->floor_upload_ms + r->floor_kernel_ms + r->floor_download_ms + r->floor_write_ms;
    r->floor_ms = r->floor_startup_ms + r->floor_read_ms + rest;
    r->floor_overlap_ms =
        (r->floor_startup_ms > r->floor_read_ms ? r->floor_startup_ms : r->floor_read_ms) + rest;
    r->numpy_ms = NAN;
    r->vips_ms = NAN;
    r->vips_maxrss_mb = NAN;
    r->anchor_ms = NAN;
    r->anchor_maxrss_mb = NAN;
    return TDCL_OK;
}

/* numpy's wall time for the same product, median of reps; NAN when
 * python3 or numpy is missing. */
static double numpy_ms(e2e *b, const char *a, const char *bb, const char *c)
{
    char script[2048];
    snprintf(script, sizeof script,
             "import numpy as np; np.save('%s', np.load('%s') @ np.load('%s'))", c, a, bb);
    char *argv[] = {"python3", "-c", script, NULL};
    char *probe[] = {"python3", "-c", "import numpy", NULL};
    child_run cr;
    tdcl_err e = {0};
    if (b->python_numpy < 0) b->python_numpy = spawn_run(b, probe, &cr, &e) == TDCL_OK;
    if (!b->python_numpy) return NAN;
    int reps = e2e_reps(b);
    double walls[32];
    if (spawn_run(b, argv, &cr, &e)) return NAN;
    for (int i = 0; i < reps; i++) {
        if (spawn_run(b, argv, &cr, &e)) return NAN;
        walls[i] = cr.wall_ms;
    }
    qsort(walls, (size_t)reps, sizeof walls[0], cmp_double);
    return walls[reps / 2];
}

/* 1 when argv (a probe such as "vips --version") runs and exits 0. */
static int probe_ok(e2e *b, char *const *argv)
{
    child_run cr;
    tdcl_err e = {0};
    return spawn_run(b, argv, &cr, &e) == TDCL_OK;
}

/* Times a tool beside a row: cmd (NULL-ended) after a warm-up (none when
 * quick), the median
 * wall of reps in *ms, and its peak memory in *maxrss_mb through
 * /usr/bin/time (a child of this process would count this process's
 * memory too; NAN without it). Returns 0, or -1 when a run fails. */
static int tool_time(e2e *b, char *const *cmd, double *ms, double *maxrss_mb)
{
    char mem[600], *argv[MAX_ARGS];
    child_run cr;
    tdcl_err e = {0};
    double walls[32];
    int n = 0, reps = e2e_reps(b), rc = 0;
    snprintf(mem, sizeof mem, "%s/tool-mem.txt", b->dir);
    if (access("/usr/bin/time", X_OK) == 0) {
        char *timed[] = {"/usr/bin/time", "-f", "%M", "-o", mem};
        for (size_t i = 0; i < sizeof timed / sizeof timed[0]; i++)
            argv[n++] = timed[i];
    }
    for (int i = 0; cmd[i] && n < MAX_ARGS - 1; i++)
        argv[n++] = cmd[i];
    argv[n] = NULL;
    *ms = NAN;
    *maxrss_mb = NAN;
    /* a smoke test (quick) saves the warm-up: python3 starts in 0.3-1 s */
    if (!b->o->quick && spawn_run(b, argv, &cr, &e)) return -1;
    for (int i = 0; i < reps && !rc; i++) {
        if (spawn_run(b, argv, &cr, &e)) rc = -1;
        walls[i] = cr.wall_ms;
        char *txt = NULL;
        size_t len = 0;
        if (!rc && tdcl_read_file(mem, &txt, &len, &e) == TDCL_OK) {
            double mb = strtod(txt, NULL) * 1024 / 1e6;
            if (!(mb <= *maxrss_mb)) *maxrss_mb = mb;
        }
        free(txt);
    }
    unlink(mem);
    if (rc) return rc;
    qsort(walls, (size_t)reps, sizeof walls[0], cmp_double);
    *ms = walls[reps / 2];
    return 0;
}

/* vips shrink in out 8 8 beside an image row, through tool_time; a note
 * instead where vips is not installed or not asked for. */
static void vips_time(e2e *b, const char *in, const char *out, cli_e2e_row *r)
{
    char *probe[] = {"vips", "--version", NULL};
    char *cmd[] = {"vips", "shrink", (char *)in, (char *)out, "8", "8", NULL};
    if (b->o->no_vips) {
        r->vips_note = "not asked for";
        return;
    }
    if (b->vips < 0) b->vips = probe_ok(b, probe);
    if (!b->vips)
        r->vips_note = "not installed";
    else if (tool_time(b, cmd, &r->vips_ms, &r->vips_maxrss_mb))
        r->vips_note = "failed";
    unlink(out);
}

/* Times cmd beside row r as its anchor (name), or notes why not: not
 * asked for (off), have's note (not installed), or failed. Returns 1 when
 * it ran. */
static int anchor_time(e2e *b, cli_e2e_row *r, const char *name, int off, const char *missing,
                       char *const *cmd)
{
    r->anchor = name;
    if (off)
        r->anchor_note = "not asked for";
    else if (missing)
        r->anchor_note = missing;
    else if (tool_time(b, cmd, &r->anchor_ms, &r->anchor_maxrss_mb))
        r->anchor_note = "failed";
    return r->anchor_note == NULL;
}

/* An image row: tile-avg in --tile 8 -o out, vips beside it. */
static tdcl_status image_row(e2e *b, const char *name, const char *in, const char *out,
                             const char *vips_out, cli_e2e_emit_fn emit, void *user, tdcl_err *err)
{
    cli_e2e_row r;
    const char *args[] = {"tile-avg", in, "--tile", "8", "-o", out, NULL};
    const char *ins[] = {in, NULL};
    tdcl_status st = run_row(b, name, args, ins, out, &r, err);
    if (st) return st;
    vips_time(b, in, vips_out, &r);
    emit(&r, user);
    return TDCL_OK;
}

/* The image rows: an RGB PNG, a JPEG of the same picture, a 16-bit RGB
 * TIFF, n x n, each reduced 8 x 8 to its own format. */
static tdcl_status image_rows(e2e *b, int64_t n, cli_e2e_emit_fn emit, void *user, tdcl_err *err)
{
    static const struct {
        const char *ext;
        int bits;
    } kinds[] = {{"png", 8}, {"jpg", 8}, {"tif", 16}};
    tdcl_status st = TDCL_OK;
    char in[600], out[600], vout[600], name[48];
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && !st; i++) {
        snprintf(in, sizeof in, "%s/I.%s", b->dir, kinds[i].ext);
        snprintf(out, sizeof out, "%s/O.%s", b->dir, kinds[i].ext);
        snprintf(vout, sizeof vout, "%s/V.%s", b->dir, kinds[i].ext);
        snprintf(name, sizeof name, "tile-avg %lld RGB%s %s 8x8", (long long)n,
                 kinds[i].bits == 16 ? "16" : "", kinds[i].ext);
        st = gen_image(in, n, 3, kinds[i].bits, 3 + i, err);
        if (!st) st = image_row(b, name, in, out, vout, emit, user, err);
        unlink(in);
        unlink(out);
        unlink(vout);
    }
    return st;
}

/* "same entries (N stored)" in out when the sparse files mine and theirs
 * hold the same values, an entry missing on one side counting as 0 (scipy
 * drops the zeros a product makes), else the first difference (1-based
 * row and column, as the files number them). */
static void compare_sparse(const char *mine, const char *theirs, char *out, size_t cap)
{
    tdcl_csr x = {0}, y = {0};
    tdcl_err e = {0};
    if (tdcl_sparse_read_path(mine, 0, &x, &e) || tdcl_sparse_read_path(theirs, 0, &y, &e)) {
        snprintf(out, cap, "not compared: %.140s", e.msg);
        goto out;
    }
    if (x.rows != y.rows || x.cols != y.cols) {
        snprintf(out, cap, "mismatch: %lld x %lld beside %lld x %lld", (long long)x.rows,
                 (long long)x.cols, (long long)y.rows, (long long)y.cols);
        goto out;
    }
    for (int64_t i = 0; i < x.rows; i++) {
        int64_t kx = tdcl_csr_rp(&x, i), ex = tdcl_csr_rp(&x, i + 1);
        int64_t ky = tdcl_csr_rp(&y, i), ey = tdcl_csr_rp(&y, i + 1);
        while (kx < ex || ky < ey) {
            int64_t cx = kx < ex ? tdcl_csr_ci(&x, kx) : INT64_MAX;
            int64_t cy = ky < ey ? tdcl_csr_ci(&y, ky) : INT64_MAX;
            int64_t c = cx < cy ? cx : cy;
            double vx = cx == c ? tdcl_csr_get_f64(&x, kx++) : 0;
            double vy = cy == c ? tdcl_csr_get_f64(&y, ky++) : 0;
            if (fabs(vx - vy) > 1e-6 * fmax(fabs(vx), fabs(vy))) {
                snprintf(out, cap, "mismatch at (%lld, %lld): %.9g beside %.9g", (long long)i + 1,
                         (long long)c + 1, vx, vy);
                goto out;
            }
        }
    }
    snprintf(out, cap, "same entries (%lld stored)", (long long)x.nnz);
out:
    tdcl_csr_free(&x);
    tdcl_csr_free(&y);
}

/* "same means" in out when the arrays mine and theirs hold the same
 * values to float32's precision, else the first difference. */
static void compare_means(const char *mine, const char *theirs, char *out, size_t cap)
{
    tdcl_matrix x = {0}, y = {0};
    tdcl_err e = {0};
    if (tdcl_matrix_read(mine, 0, &x, &e) || tdcl_matrix_read(theirs, 0, &y, &e)) {
        snprintf(out, cap, "not compared: %.140s", e.msg);
        goto out;
    }
    if (x.rows != y.rows || x.cols != y.cols || x.channels != y.channels) {
        snprintf(out, cap, "mismatch: %lld x %lld beside %lld x %lld", (long long)x.rows,
                 (long long)x.cols, (long long)y.rows, (long long)y.cols);
        goto out;
    }
    size_t n = tdcl_matrix_count(&x);
    for (size_t k = 0; k < n; k++) {
        double vx = tdcl_matrix_get_f64(&x, k), vy = tdcl_matrix_get_f64(&y, k);
        if (!(fabs(vx - vy) <= 1e-5 * fmax(fabs(vx), fabs(vy)))) {
            snprintf(out, cap, "mismatch at row %zu, column %zu: %.9g beside %.9g",
                     k / (size_t)x.cols, k % (size_t)x.cols, vx, vy);
            goto out;
        }
    }
    snprintf(out, cap, "same means (%zu tiles)", n);
out:
    tdcl_matrix_free(&x);
    tdcl_matrix_free(&y);
}

/* What python3 offers the scipy anchor: "python3 has no scipy", or NULL
 * with *module the reader's module, fast_matrix_market where importable. */
static const char *scipy_module(e2e *b, const char **module)
{
    /* found, not imported: an import of scipy takes 0.3 s */
    char *fmm[] = {"python3", "-c",
                   "import importlib.util as u, sys; "
                   "sys.exit(not (u.find_spec('scipy') and u.find_spec('fast_matrix_market')))",
                   NULL};
    char *sio[] = {"python3", "-c",
                   "import importlib.util as u, sys; sys.exit(not u.find_spec('scipy'))", NULL};
    if (b->scipy < 0) b->scipy = probe_ok(b, fmm) ? 2 : probe_ok(b, sio) ? 1 : 0;
    *module = b->scipy == 2 ? "fast_matrix_market" : "scipy.io";
    return b->scipy ? NULL : "python3 has no scipy";
}

/* The scipy anchors, run as python3 -c SCRIPT MODULE ARGS...: the product
 * of two files, and the tile means of one (zeros included, partial tiles
 * over the cells they hold), as a scipy user would write them. */
static const char scipy_matmul[] = "import importlib, sys\n"
                                   "mm = importlib.import_module(sys.argv[1])\n"
                                   "a = mm.mmread(sys.argv[2]).tocsr()\n"
                                   "b = mm.mmread(sys.argv[3]).tocsr()\n"
                                   "mm.mmwrite(sys.argv[4], a @ b)\n";
static const char scipy_tile_avg[] =
    "import importlib, sys, numpy as np\n"
    "mm = importlib.import_module(sys.argv[1])\n"
    "a = mm.mmread(sys.argv[2]).tocoo()\n"
    "t = int(sys.argv[3]); r, c = a.shape; tr, tc = -(-r // t), -(-c // t)\n"
    "s = np.bincount((a.row // t).astype(np.int64) * tc + a.col // t, weights=a.data,\n"
    "                minlength=tr * tc).reshape(tr, tc)\n"
    "h = np.minimum(t, r - np.arange(tr) * t); w = np.minimum(t, c - np.arange(tc) * t)\n"
    "np.save(sys.argv[4], (s / np.outer(h, w)).astype(np.float32))\n";

/* The sparse rows of the coordinate file a (the matrix g): matmul a a
 * -o C.mtx and tile-avg a (tiles of a 512th of its side, at least 2) -o T.npy,
 * each beside scipy, the outputs compared. */
static tdcl_status sparse_pair(e2e *b, const tdcl_spgen *g, const char *a, int64_t side,
                               cli_e2e_emit_fn emit, void *user, tdcl_err *err)
{
    char c[600], cs[600], t[600], ts[600], spec[48], name[64], tile[32];
    const char *module = NULL, *missing = scipy_module(b, &module);
    cli_e2e_row r;
    tdcl_status st;
    snprintf(c, sizeof c, "%s/C.mtx", b->dir);
    snprintf(cs, sizeof cs, "%s/C-scipy.mtx", b->dir);
    snprintf(t, sizeof t, "%s/T.npy", b->dir);
    snprintf(ts, sizeof ts, "%s/T-scipy.npy", b->dir);
    snprintf(tile, sizeof tile, "%lld", (long long)(side > 1024 ? (side + 511) / 512 : 2));
    tdcl_spgen_name(g, spec, sizeof spec);
    snprintf(name, sizeof name, "matmul %s mtx", spec);
    const char *mm_args[] = {"matmul", a, a, "-o", c, NULL};
    const char *ins[] = {a, a, NULL};
    if ((st = run_row(b, name, mm_args, ins, c, &r, err))) goto out;
    char *mm_cmd[] = {"python3", "-c", (char *)scipy_matmul, (char *)module, (char *)a, (char *)a,
                      cs,        NULL};
    if (anchor_time(b, &r, b->scipy == 2 ? "scipy+fast_matrix_market" : "scipy+scipy.io",
                    b->o->no_scipy, missing, mm_cmd))
        compare_sparse(c, cs, r.check, sizeof r.check);
    emit(&r, user);
    snprintf(name, sizeof name, "tile-avg %.30s mtx tile %.8s", spec, tile);
    const char *ta_args[] = {"tile-avg", a, "--tile", tile, "-o", t, NULL};
    if ((st = run_row(b, name, ta_args, ins + 1, t, &r, err))) goto out;
    char *ta_cmd[] = {"python3", "-c", (char *)scipy_tile_avg, (char *)module, (char *)a, tile,
                      ts,        NULL};
    if (anchor_time(b, &r, b->scipy == 2 ? "scipy+fast_matrix_market" : "scipy+scipy.io",
                    b->o->no_scipy, missing, ta_cmd))
        compare_means(t, ts, r.check, sizeof r.check);
    emit(&r, user);
out:
    unlink(c);
    unlink(cs);
    unlink(t);
    unlink(ts);
    return st;
}

/* The sparse rows over the asked-for matrices, each written (seed 1) to
 * A.mtx first. */
static tdcl_status sparse_rows(e2e *b, cli_e2e_emit_fn emit, void *user, tdcl_err *err)
{
    static const tdcl_spgen full[] = {
        {TDCL_SPGEN_RMAT, 15, 8}, {TDCL_SPGEN_LAPLACE, 1000, 0}, {TDCL_SPGEN_UNIFORM, 100000, 16}};
    static const tdcl_spgen quick[] = {
        {TDCL_SPGEN_RMAT, 8, 4}, {TDCL_SPGEN_LAPLACE, 16, 0}, {TDCL_SPGEN_UNIFORM, 256, 4}};
    const tdcl_spgen *gens = b->o->nmatrices ? b->o->matrices : b->o->quick ? quick : full;
    int ngens = b->o->nmatrices ? b->o->nmatrices : 3;
    char a[600];
    tdcl_status st = TDCL_OK;
    snprintf(a, sizeof a, "%s/A.mtx", b->dir);
    for (int i = 0; i < ngens && !st; i++) {
        tdcl_csr m = {0};
        st = tdcl_spgen_make(&gens[i], 1, &m, err);
        if (!st) st = tdcl_sparse_write_path(a, &m, err);
        int64_t side = m.rows;
        tdcl_csr_free(&m);
        if (!st) st = sparse_pair(b, &gens[i], a, side, emit, user, err);
        unlink(a);
    }
    return st;
}

/* 1 when the file's first 4 KiB hold a "#CXRLE" line (a position). */
static int has_position(const char *path)
{
    char head[4097];
    FILE *fp = fopen(path, "rb");
    size_t n = fp ? fread(head, 1, sizeof head - 1, fp) : 0;
    if (fp) fclose(fp);
    head[n] = '\0';
    return strstr(head, "#CXRLE") != NULL;
}

/* The live cells of a pattern file, sorted; moved so that their box's
 * corner is at 0, 0 when corner is set. */
static tdcl_status pattern_cells(const char *path, int corner, tdcl_life_cells *c, tdcl_err *err)
{
    tdcl_life_pattern p = {0};
    tdcl_status st = tdcl_life_read_cells(path, 0, &p, c, err);
    if (!st && p.grid.data) st = tdcl_life_cells_from_grid(&p.grid, p.x0, p.y0, c, err);
    tdcl_life_pattern_free(&p);
    if (st) return st;
    tdcl_life_cells_sort(c);
    int64_t x0 = INT64_MAX, y0 = c->n ? c->xy[1] : 0;
    for (size_t k = 0; k < c->n; k++)
        if (c->xy[2 * k] < x0) x0 = c->xy[2 * k];
    for (size_t k = 0; corner && k < c->n; k++) {
        c->xy[2 * k] -= x0;
        c->xy[2 * k + 1] -= y0;
    }
    return TDCL_OK;
}

/* "same cells (N live)" in out when the pattern files mine and theirs
 * hold the same live cells at the same places (from their boxes' corners
 * when theirs has no position: bgolly writes none), else the difference. */
static void compare_cells(const char *mine, const char *theirs, char *out, size_t cap)
{
    tdcl_life_cells x = {0}, y = {0};
    tdcl_err e = {0};
    int corner = !has_position(theirs);
    if (pattern_cells(mine, corner, &x, &e) || pattern_cells(theirs, corner, &y, &e)) {
        snprintf(out, cap, "not compared: %.140s", e.msg);
        goto out;
    }
    size_t k = 0;
    while (k < x.n && k < y.n && x.xy[2 * k] == y.xy[2 * k] && x.xy[2 * k + 1] == y.xy[2 * k + 1])
        k++;
    if (k == x.n && k == y.n)
        snprintf(out, cap, "same cells (%zu live%s)", x.n,
                 corner ? ", placed from their boxes' corners" : "");
    else if (k < x.n && k < y.n)
        snprintf(out, cap,
                 "mismatch: %zu live beside %zu; the first difference: (%lld, %lld) beside "
                 "(%lld, %lld)%s",
                 x.n, y.n, (long long)x.xy[2 * k], (long long)x.xy[2 * k + 1],
                 (long long)y.xy[2 * k], (long long)y.xy[2 * k + 1],
                 corner ? " from their boxes' corners" : "");
    else
        snprintf(out, cap, "mismatch: %zu live beside %zu, the same up to the fewer", x.n, y.n);
out:
    tdcl_life_cells_free(&x);
    tdcl_life_cells_free(&y);
}

/* 1 when name is an executable file in a directory of $PATH. */
static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    char full[1024];
    while (path && *path) {
        size_t len = strcspn(path, ":");
        snprintf(full, sizeof full, "%.*s/%s", (int)len, path, name);
        if (len && access(full, X_OK) == 0) return 1;
        path += len + (path[len] == ':');
    }
    return 0;
}

/* A golly row: life path --gens gens -o L.rle beside bgolly's QuickLife,
 * the outputs' live cells compared. */
static tdcl_status golly_row(e2e *b, const char *path, int64_t gens, cli_e2e_emit_fn emit,
                             void *user, tdcl_err *err)
{
    char out[600], gout[600], g[32], name[64];
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    cli_e2e_row r;
    snprintf(out, sizeof out, "%s/L.rle", b->dir);
    snprintf(gout, sizeof gout, "%s/G.rle", b->dir);
    snprintf(g, sizeof g, "%lld", (long long)gens);
    snprintf(name, sizeof name, "life %.36s %.12s gens", base, g);
    const char *args[] = {"life", path, "--gens", g, "-o", out, NULL};
    const char *ins[] = {path, NULL};
    tdcl_status st = run_row(b, name, args, ins, out, &r, err);
    char *cmd[] = {"bgolly", "-a", "QuickLife", "-m", g, "-o", gout, (char *)path, NULL};
    if (!st && anchor_time(b, &r, "bgolly QuickLife", b->o->no_bgolly,
                           on_path("bgolly") ? NULL : "not installed", cmd))
        compare_cells(out, gout, r.check, sizeof r.check);
    if (!st) emit(&r, user);
    unlink(out);
    unlink(gout);
    return st;
}

#define GOLLY_LIFE "/usr/share/golly/Patterns/Life"

/* The golly rows: the asked-for "PATH[:GENS]" patterns (20000
 * generations unless said; 20 quick), else those of Golly's collection
 * where it is installed. */
static tdcl_status golly_rows(e2e *b, cli_e2e_emit_fn emit, void *user, tdcl_err *err)
{
    static const struct {
        const char *path;
        int64_t gens;
    } own[] = {{"Signal-Circuitry/constructor-memory-loop.rle", 100000},
               {"Breeders/switch-engine-ping-pong.rle", 20000},
               {"Breeders/slide-breeder.rle", 20000},
               {"Signal-Circuitry/high-bandwidth-telegraph.rle.gz", 20000}};
    char path[1024];
    int64_t div = b->o->quick ? 1000 : 1;
    tdcl_status st = TDCL_OK;
    if (!b->o->npatterns && access(GOLLY_LIFE, R_OK) != 0)
        return tdcl_fail(err, TDCL_EINVAL,
                         "golly rows: no patterns named and no Golly collection in %s", GOLLY_LIFE);
    for (int i = 0; i < b->o->npatterns && !st; i++) {
        const char *spec = b->o->patterns[i], *colon = strrchr(spec, ':');
        int64_t gens = 20000 / div;
        size_t len = strlen(spec);
        if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
            gens = strtoll(colon + 1, NULL, 10);
            len = (size_t)(colon - spec);
        }
        snprintf(path, sizeof path, "%.*s", (int)len, spec);
        st = golly_row(b, path, gens, emit, user, err);
    }
    for (size_t i = 0; !b->o->npatterns && i < sizeof own / sizeof own[0] && !st; i++) {
        snprintf(path, sizeof path, "%s/%s", GOLLY_LIFE, own[i].path);
        st = golly_row(b, path, own[i].gens / div, emit, user, err);
    }
    return st;
}

/* The default rows: matmul .npy, life to .npy and the seeds' soup,
 * tile-avg .npy, and the image rows. */
static tdcl_status default_rows(e2e *b, cli_e2e_emit_fn emit, void *user, tdcl_err *err)
{
    const cli_e2e_opts *o = b->o;
    tdcl_status st = TDCL_OK;
    int gpu = (b->ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    int64_t n = o->size ? o->size : o->quick ? 256 : gpu ? 8192 : 2048;
    int64_t life_n = o->quick ? 256 : gpu ? 16384 : 4096;
    int64_t life_g = o->quick ? 10 : gpu ? 10000 : 1000;
    int64_t img_n = o->image_size ? o->image_size : o->quick ? 64 : gpu ? 16000 : 4000;
    char a[600], bm[600], c[600], l[600], t[600], cn[600], life_size[64], gens[32], name[64];
    cli_e2e_row r;
    snprintf(a, sizeof a, "%s/A.npy", b->dir);
    snprintf(bm, sizeof bm, "%s/B.npy", b->dir);
    snprintf(c, sizeof c, "%s/C.npy", b->dir);
    snprintf(cn, sizeof cn, "%s/C-numpy.npy", b->dir);
    snprintf(l, sizeof l, "%s/L.npy", b->dir);
    snprintf(t, sizeof t, "%s/T.npy", b->dir);
    snprintf(life_size, sizeof life_size, "%lldx%lld", (long long)life_n, (long long)life_n);
    snprintf(gens, sizeof gens, "%lld", (long long)life_g);
    TDCL_TRY(gen_npy(a, n, 1, err));
    TDCL_TRY(gen_npy(bm, n, 2, err));
    snprintf(name, sizeof name, "matmul %lld npy", (long long)n);
    {
        const char *args[] = {"matmul", a, bm, "-o", c, NULL};
        const char *in[] = {a, bm, NULL};
        TDCL_TRY(run_row(b, name, args, in, c, &r, err));
        if (o->numpy) r.numpy_ms = numpy_ms(b, a, bm, cn);
        emit(&r, user);
    }
    snprintf(name, sizeof name, "life %lld x %lld gens", (long long)life_n, (long long)life_g);
    {
        const char *args[] = {"life", "--size", life_size, "--gens", gens, "-o", l, NULL};
        const char *in[] = {NULL};
        TDCL_TRY(run_row(b, name, args, in, l, &r, err));
        emit(&r, user);
    }
    {
        const char *args[] = {"life", "--gens", "200", NULL};
        const char *in[] = {NULL};
        TDCL_TRY(run_row(b, "life 500x500 200 gens (default soup)", args, in, NULL, &r, err));
        emit(&r, user);
    }
    snprintf(name, sizeof name, "tile-avg %lld tile 4 npy", (long long)n);
    {
        const char *args[] = {"tile-avg", a, "--tile", "4", "-o", t, NULL};
        const char *in[] = {a, NULL};
        TDCL_TRY(run_row(b, name, args, in, t, &r, err));
        emit(&r, user);
    }
    TDCL_TRY(image_rows(b, img_n, emit, user, err));
out:;
    const char *files[] = {a, bm, c, cn, l, t};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        unlink(files[i]);
    return st;
}

tdcl_status cli_e2e_run(tdcl_ctx *ctx, const cli_e2e_opts *o, cli_e2e_emit_fn emit, void *user,
                        tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    e2e b = {.ctx = ctx,
             .o = o,
             .python_numpy = -1,
             .vips = -1,
             .scipy = -1,
             .startup_ms = ctx->t.setup_ms};
    unsigned rows = o->rows ? o->rows : CLI_E2E_DEFAULT;
    int gpu = (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    int64_t n = o->size ? o->size : o->quick ? 256 : gpu ? 8192 : 2048;
    const char *base = o->dir ? o->dir : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(b.dir, sizeof b.dir, "%s/tiledcl-e2e-XXXXXX", base);
    if (!mkdtemp(b.dir))
        return tdcl_fail(err, TDCL_EIO, "cannot create a directory in '%s': %s", base,
                         strerror(errno));
    /* the helpers the commands leave to release their devices come here,
     * to be awaited between runs (spawn_run) */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    snprintf(b.errlog, sizeof b.errlog, "%s/stderr.log", b.dir);
    b.buf = malloc(CHUNK);
    if (!b.buf) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
        goto out;
    }
    memset(b.buf, 7, CHUNK);
    size_t mat = (size_t)(n * n) * 4;
    TDCL_TRY(copy_floor(&b, mat < ((size_t)256 << 20) ? mat : (size_t)256 << 20, err));
    if (rows & CLI_E2E_DEFAULT) TDCL_TRY(default_rows(&b, emit, user, err));
    if (rows & CLI_E2E_SPARSE) TDCL_TRY(sparse_rows(&b, emit, user, err));
    if (rows & CLI_E2E_GOLLY) TDCL_TRY(golly_rows(&b, emit, user, err));
out:
    free(b.buf);
    unlink(b.errlog);
    rmdir(b.dir);
    return st;
}

const char *cli_e2e_row_json(const cli_e2e_row *r, tdcl_jsonl *j)
{
    tdcl_jsonl_begin(j);
    tdcl_jsonl_str(j, "op", "e2e");
    tdcl_jsonl_str(j, "row", r->name);
    tdcl_jsonl_str(j, "command", r->command);
    tdcl_jsonl_int(j, "reps", r->reps);
    tdcl_jsonl_num(j, "wall_ms", r->wall_ms);
    tdcl_jsonl_num(j, "wall_min_ms", r->wall_min_ms);
    tdcl_jsonl_num(j, "release_ms", r->release_ms);
    tdcl_jsonl_num(j, "read_ms", r->t.read_ms);
    tdcl_jsonl_num(j, "setup_ms", r->t.setup_ms);
    tdcl_jsonl_num(j, "wait_ms", r->t.wait_ms);
    tdcl_jsonl_num(j, "compile_ms", r->t.compile_ms);
    tdcl_jsonl_num(j, "upload_ms", r->t.upload_ms);
    tdcl_jsonl_num(j, "kernel_ms", r->t.kernel_ms);
    tdcl_jsonl_num(j, "download_ms", r->t.download_ms);
    tdcl_jsonl_num(j, "write_ms", r->t.write_ms);
    tdcl_jsonl_num(j, "floor_startup_ms", r->floor_startup_ms);
    tdcl_jsonl_num(j, "floor_read_ms", r->floor_read_ms);
    tdcl_jsonl_num(j, "floor_upload_ms", r->floor_upload_ms);
    tdcl_jsonl_num(j, "floor_kernel_ms", r->floor_kernel_ms);
    tdcl_jsonl_num(j, "floor_download_ms", r->floor_download_ms);
    tdcl_jsonl_num(j, "floor_write_ms", r->floor_write_ms);
    tdcl_jsonl_num(j, "write_fsync_ms", r->write_fsync_ms);
    tdcl_jsonl_num(j, "floor_ms", r->floor_ms);
    tdcl_jsonl_num(j, "floor_overlap_ms", r->floor_overlap_ms);
    tdcl_jsonl_num(j, "frac_floor", r->wall_ms > 0 ? r->floor_overlap_ms / r->wall_ms : NAN);
    tdcl_jsonl_num(j, "in_mb", r->in_mb);
    tdcl_jsonl_num(j, "out_mb", r->out_mb);
    tdcl_jsonl_num(j, "maxrss_mb", r->maxrss_mb);
    tdcl_jsonl_num(j, "numpy_ms", r->numpy_ms);
    tdcl_jsonl_num(j, "vs_numpy", r->numpy_ms > 0 ? r->wall_ms / r->numpy_ms : NAN);
    tdcl_jsonl_num(j, "vips_ms", r->vips_ms);
    tdcl_jsonl_num(j, "vips_maxrss_mb", r->vips_maxrss_mb);
    tdcl_jsonl_num(j, "vs_vips", r->vips_ms > 0 ? r->wall_ms / r->vips_ms : NAN);
    if (r->vips_note) tdcl_jsonl_str(j, "vips", r->vips_note);
    if (r->anchor) {
        tdcl_jsonl_str(j, "anchor", r->anchor);
        tdcl_jsonl_num(j, "anchor_ms", r->anchor_ms);
        tdcl_jsonl_num(j, "anchor_maxrss_mb", r->anchor_maxrss_mb);
        tdcl_jsonl_num(j, "vs_anchor", r->anchor_ms > 0 ? r->wall_ms / r->anchor_ms : NAN);
        tdcl_jsonl_num(j, "mem_vs_anchor",
                       r->anchor_maxrss_mb > 0 ? r->maxrss_mb / r->anchor_maxrss_mb : NAN);
        if (r->anchor_note) tdcl_jsonl_str(j, "anchor_note", r->anchor_note);
        tdcl_jsonl_str(j, "check", r->check);
    }
    return tdcl_jsonl_end(j);
}

/* The anchor's lines of a sparse or golly row. */
static void anchor_text(const cli_e2e_row *r, char *buf, size_t cap)
{
    char head[64];
    snprintf(head, sizeof head, "%s:", r->anchor);
    int w = r->anchor_note
                ? snprintf(buf, cap, "\n  %-24s %s", head, r->anchor_note)
                : snprintf(buf, cap,
                           "\n  %-24s %.1f ms, maxrss %.1f MB: tiledcl takes %.2fx its time, "
                           "%.2fx its memory",
                           head, r->anchor_ms, r->anchor_maxrss_mb, r->wall_ms / r->anchor_ms,
                           r->maxrss_mb / r->anchor_maxrss_mb);
    if (w > 0 && (size_t)w < cap && r->check[0])
        snprintf(buf + w, cap - (size_t)w, "\n  %-24s %s", "outputs:", r->check);
}

void cli_e2e_row_text(const cli_e2e_row *r, char *buf, size_t cap)
{
    int w =
        snprintf(buf, cap,
                 "%-26s wall %8.1f ms (min %.1f)  floor %.1f end to end, %.1f overlapped "
                 "(%.0f%% of the wall)  maxrss %.1f MB (files %.1f MB in, %.1f MB out)\n"
                 "  %-24s read %.1f/%.1f  start-up %.1f/%.1f (waited %.1f)  compile %.1f  "
                 "upload %.1f/%.1f  kernel %.2f  download %.1f/%.1f  write %.1f/%.1f "
                 "(with fsync %.1f)  device released %.1f after the exit",
                 r->name, r->wall_ms, r->wall_min_ms, r->floor_ms, r->floor_overlap_ms,
                 r->wall_ms > 0 ? 100 * r->floor_overlap_ms / r->wall_ms : 0, r->maxrss_mb,
                 r->in_mb, r->out_mb, "phase/floor ms:", r->t.read_ms, r->floor_read_ms,
                 r->t.setup_ms, r->floor_startup_ms, r->t.wait_ms, r->t.compile_ms, r->t.upload_ms,
                 r->floor_upload_ms, r->t.kernel_ms, r->t.download_ms, r->floor_download_ms,
                 r->t.write_ms, r->floor_write_ms, r->write_fsync_ms, r->release_ms);
    if (w > 0 && (size_t)w < cap && !isnan(r->numpy_ms))
        w += snprintf(buf + w, cap - (size_t)w,
                      "\n  %-24s %.1f ms: tiledcl takes %.2fx numpy's time",
                      "numpy load @ save:", r->numpy_ms, r->wall_ms / r->numpy_ms);
    if (w > 0 && (size_t)w < cap && r->vips_note)
        w += snprintf(buf + w, cap - (size_t)w, "\n  %-24s %s", "vips:", r->vips_note);
    else if (w > 0 && (size_t)w < cap && !isnan(r->vips_ms))
        w += snprintf(buf + w, cap - (size_t)w,
                      "\n  %-24s %.1f ms, maxrss %.1f MB: tiledcl takes %.2fx vips' time, %.2fx "
                      "its memory",
                      "vips shrink 8 8:", r->vips_ms, r->vips_maxrss_mb, r->wall_ms / r->vips_ms,
                      r->maxrss_mb / r->vips_maxrss_mb);
    if (w > 0 && (size_t)w < cap && r->anchor) anchor_text(r, buf + w, cap - (size_t)w);
}
