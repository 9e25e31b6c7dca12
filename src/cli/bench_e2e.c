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
#include "io/matio.h"

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
    int reps = b->o->reps > 0 ? b->o->reps : 3;
    if (reps > 31) reps = 31;
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
    int reps = b->o->reps > 0 ? b->o->reps : 3;
    if (reps > 31) reps = 31;
    double walls[32];
    if (spawn_run(b, argv, &cr, &e)) return NAN;
    for (int i = 0; i < reps; i++) {
        if (spawn_run(b, argv, &cr, &e)) return NAN;
        walls[i] = cr.wall_ms;
    }
    qsort(walls, (size_t)reps, sizeof walls[0], cmp_double);
    return walls[reps / 2];
}

/* vips shrink in out 8 8 beside an image row: the median wall of reps
 * after a warm-up, and its peak memory through /usr/bin/time (a child of
 * this process would count this process's memory too); a note instead
 * where vips is not installed or not asked for. */
static void vips_time(e2e *b, const char *in, const char *out, cli_e2e_row *r)
{
    char mem[600];
    char *probe[] = {"vips", "--version", NULL};
    child_run cr;
    tdcl_err e = {0};
    double walls[32];
    int reps = b->o->reps > 0 ? b->o->reps : 3, timed = access("/usr/bin/time", X_OK) == 0;
    if (reps > 31) reps = 31;
    snprintf(mem, sizeof mem, "%s/vips-mem.txt", b->dir);
    char *argv[] = {"/usr/bin/time", "-f",       "%M",        "-o", mem, "vips",
                    "shrink",        (char *)in, (char *)out, "8",  "8", NULL};
    char *const *av = timed ? argv : argv + 5;
    if (b->o->no_vips) {
        r->vips_note = "not asked for";
        return;
    }
    if (b->vips < 0) b->vips = spawn_run(b, probe, &cr, &e) == TDCL_OK;
    if (!b->vips || spawn_run(b, av, &cr, &e)) {
        r->vips_note = b->vips ? "failed" : "not installed";
        return;
    }
    for (int i = 0; i < reps; i++) {
        if (spawn_run(b, av, &cr, &e)) {
            r->vips_note = "failed";
            return;
        }
        walls[i] = cr.wall_ms;
        char *txt = NULL;
        size_t len = 0;
        if (timed && tdcl_read_file(mem, &txt, &len, &e) == TDCL_OK) {
            double kb = strtod(txt, NULL) * 1024 / 1e6;
            if (!(kb <= r->vips_maxrss_mb)) r->vips_maxrss_mb = kb;
        }
        free(txt);
    }
    unlink(mem);
    unlink(out);
    qsort(walls, (size_t)reps, sizeof walls[0], cmp_double);
    r->vips_ms = walls[reps / 2];
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

tdcl_status cli_e2e_run(tdcl_ctx *ctx, const cli_e2e_opts *o, cli_e2e_emit_fn emit, void *user,
                        tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    e2e b = {.ctx = ctx, .o = o, .python_numpy = -1, .vips = -1, .startup_ms = ctx->t.setup_ms};
    int gpu = (ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    int64_t n = o->size ? o->size : o->quick ? 256 : gpu ? 8192 : 2048;
    int64_t life_n = o->quick ? 256 : gpu ? 16384 : 4096;
    int64_t life_g = o->quick ? 10 : gpu ? 10000 : 1000;
    int64_t img_n = o->image_size ? o->image_size : o->quick ? 64 : gpu ? 16000 : 4000;
    const char *base = o->dir ? o->dir : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char a[600], bm[600], c[600], l[600], t[600], cn[600], life_size[64], gens[32], tile_in[600];
    cli_e2e_row r;
    int made_dir = 0;
    snprintf(b.dir, sizeof b.dir, "%s/tiledcl-e2e-XXXXXX", base);
    if (!mkdtemp(b.dir))
        return tdcl_fail(err, TDCL_EIO, "cannot create a directory in '%s': %s", base,
                         strerror(errno));
    made_dir = 1;
    /* the helpers the commands leave to release their devices come here,
     * to be awaited between runs (spawn_run) */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    snprintf(b.errlog, sizeof b.errlog, "%s/stderr.log", b.dir);
    snprintf(a, sizeof a, "%s/A.npy", b.dir);
    snprintf(bm, sizeof bm, "%s/B.npy", b.dir);
    snprintf(c, sizeof c, "%s/C.npy", b.dir);
    snprintf(cn, sizeof cn, "%s/C-numpy.npy", b.dir);
    snprintf(l, sizeof l, "%s/L.npy", b.dir);
    snprintf(t, sizeof t, "%s/T.npy", b.dir);
    snprintf(tile_in, sizeof tile_in, "%s", a);
    snprintf(life_size, sizeof life_size, "%lldx%lld", (long long)life_n, (long long)life_n);
    snprintf(gens, sizeof gens, "%lld", (long long)life_g);
    b.buf = malloc(CHUNK);
    if (!b.buf) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
        goto out;
    }
    memset(b.buf, 7, CHUNK);
    TDCL_TRY(gen_npy(a, n, 1, err));
    TDCL_TRY(gen_npy(bm, n, 2, err));
    size_t mat = (size_t)(n * n) * 4;
    TDCL_TRY(copy_floor(&b, mat < ((size_t)256 << 20) ? mat : (size_t)256 << 20, err));

    char name[48];
    snprintf(name, sizeof name, "matmul %lld npy", (long long)n);
    {
        const char *args[] = {"matmul", a, bm, "-o", c, NULL};
        const char *in[] = {a, bm, NULL};
        TDCL_TRY(run_row(&b, name, args, in, c, &r, err));
        if (o->numpy) r.numpy_ms = numpy_ms(&b, a, bm, cn);
        emit(&r, user);
    }
    snprintf(name, sizeof name, "life %lld x %lld gens", (long long)life_n, (long long)life_g);
    {
        const char *args[] = {"life", "--size", life_size, "--gens", gens, "-o", l, NULL};
        const char *in[] = {NULL};
        TDCL_TRY(run_row(&b, name, args, in, l, &r, err));
        emit(&r, user);
    }
    {
        const char *args[] = {"life", "--gens", "200", NULL};
        const char *in[] = {NULL};
        TDCL_TRY(run_row(&b, "life 500x500 200 gens (default soup)", args, in, NULL, &r, err));
        emit(&r, user);
    }
    snprintf(name, sizeof name, "tile-avg %lld tile 4 npy", (long long)n);
    {
        const char *args[] = {"tile-avg", tile_in, "--tile", "4", "-o", t, NULL};
        const char *in[] = {tile_in, NULL};
        TDCL_TRY(run_row(&b, name, args, in, t, &r, err));
        emit(&r, user);
    }
    TDCL_TRY(image_rows(&b, img_n, emit, user, err));
out:
    free(b.buf);
    if (made_dir) {
        const char *files[] = {a, bm, c, cn, l, t, b.errlog};
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
            unlink(files[i]);
        rmdir(b.dir);
    }
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
    return tdcl_jsonl_end(j);
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
        snprintf(buf + w, cap - (size_t)w, "\n  %-24s %s", "vips:", r->vips_note);
    else if (w > 0 && (size_t)w < cap && !isnan(r->vips_ms))
        snprintf(buf + w, cap - (size_t)w,
                 "\n  %-24s %.1f ms, maxrss %.1f MB: tiledcl takes %.2fx vips' time, %.2fx its "
                 "memory",
                 "vips shrink 8 8:", r->vips_ms, r->vips_maxrss_mb, r->wall_ms / r->vips_ms,
                 r->maxrss_mb / r->vips_maxrss_mb);
}
