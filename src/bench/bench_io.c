/* The file I/O benchmark (see bench_io.h). */
#include "bench/bench_io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/matio.h"
#include "base/fileio.h"
#include "base/matrix.h"
#include "io/matsrc.h"
#include "io/mtx.h"
#include "io/npy.h"
#include "base/json.h"
#include "base/clock.h"
#include "base/pool.h"
#include "base/rng.h"

/* One timed job: run does the work once and leaves its status in st (and
 * err); before, when set, runs ahead of each run, untimed. */
typedef struct io_job {
    const char *path;
    const tdcl_matrix *m;
    int threads, coord;
    tdcl_status st;
    tdcl_err *err;
} io_job;

typedef void (*io_fn)(io_job *j);

typedef struct timing {
    double wall_ms, cpu_ms; /* medians */
} timing;

static double now_ms(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Median wall and CPU (all threads) time of reps runs after one warm-up;
 * stops at the first failure, which stays in j->st. */
static timing time_runs(int reps, io_fn before, io_fn run, io_job *j)
{
    double w[32], c[32];
    for (int r = -1; r < reps && !j->st; r++) {
        if (before) before(j);
        double c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID), t0 = now_ms(CLOCK_MONOTONIC);
        run(j);
        if (r >= 0) {
            w[r] = now_ms(CLOCK_MONOTONIC) - t0;
            c[r] = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
        }
    }
    return (timing){tdcl_median(w, (size_t)reps), tdcl_median(c, (size_t)reps)};
}

static double file_mb(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? sb.st_size / 1e6 : 0;
}

static void emit_figure(tdcl_bench_io_emit_fn emit, void *user, const char *what, int threads,
                        double mb, timing t)
{
    tdcl_bench_io_result r = {
        .threads = threads, .mb = mb, .wall_ms = t.wall_ms, .cpu_ms = t.cpu_ms};
    snprintf(r.what, sizeof r.what, "%s", what);
    r.mbps = mb / (t.wall_ms / 1e3);
    r.mb_per_cpu_s = mb / (t.cpu_ms / 1e3);
    emit(&r, user);
}

/* Magnitudes from 1e-5 to 1e4 and both signs, so most values need 8 or 9
 * digits, as measured data does. */
static float rnd_float(uint64_t *s)
{
    double u = tdcl_rng_unit(s);
    int e = (int)(tdcl_rng_next(s) % 9) - 4;
    double v = u * 2 - 1;
    for (; e > 0; e--)
        v *= 10;
    for (; e < 0; e++)
        v /= 10;
    return (float)v;
}

static tdcl_status close_written(FILE *fp, const char *path, tdcl_err *err)
{
    int bad = ferror(fp);
    if (fclose(fp) != 0) bad = 1;
    return bad ? tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", path, strerror(errno)) : TDCL_OK;
}

static tdcl_status create_file(const char *path, FILE **fp, tdcl_err *err)
{
    *fp = fopen(path, "wb");
    return *fp ? TDCL_OK
               : tdcl_fail(err, TDCL_EIO, "cannot create '%s': %s", path, strerror(errno));
}

/* The read side's files: float32 values with 9 significant digits. */
static tdcl_status make_text_files(const tdcl_bench_io_opts *o, const char *arr, const char *coo,
                                   tdcl_err *err)
{
    uint64_t s = 12345;
    FILE *fp;
    tdcl_status st = create_file(arr, &fp, err);
    if (st) return st;
    fprintf(fp, "%%%%MatrixMarket matrix array real general\n%lld %lld\n", (long long)o->n,
            (long long)o->n);
    for (int64_t k = 0; k < o->n * o->n; k++)
        fprintf(fp, "%.9g\n", rnd_float(&s));
    if ((st = close_written(fp, arr, err)) || (st = create_file(coo, &fp, err))) return st;
    fprintf(fp, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n",
            (long long)o->n, (long long)o->n, (long long)o->nnz);
    for (int64_t k = 0; k < o->nnz; k++)
        fprintf(fp, "%llu %llu %.9g\n",
                (unsigned long long)(tdcl_rng_next(&s) % (uint64_t)o->n + 1),
                (unsigned long long)(tdcl_rng_next(&s) % (uint64_t)o->n + 1), rnd_float(&s));
    return close_written(fp, coo, err);
}

/* The write side's matrices: every entry set in the dense one, nnz entries
 * spread evenly in the sparse one. */
static tdcl_status make_matrices(const tdcl_bench_io_opts *o, tdcl_matrix *dense,
                                 tdcl_matrix *sparse, tdcl_err *err)
{
    tdcl_status st = tdcl_matrix_alloc(dense, o->n, o->n, 1, TDCL_F32, err);
    if (!st) st = tdcl_matrix_alloc(sparse, o->n, o->n, 1, TDCL_F32, err);
    if (st) return st;
    uint64_t s = 777;
    float *d = dense->data, *p = sparse->data;
    int64_t total = o->n * o->n, nnz = o->nnz < total ? o->nnz : total;
    for (int64_t k = 0; k < total; k++)
        d[k] = rnd_float(&s);
    for (int64_t k = 0; k < nnz; k++) {
        float v = rnd_float(&s);
        p[(int64_t)((double)k * (double)total / (double)nnz)] = v != 0 ? v : 1;
    }
    return TDCL_OK;
}

static void mtx_read_once(io_job *j)
{
    tdcl_matrix m;
    tdcl_mtx_read_opts o = {.threads = j->threads};
    if (!(j->st = tdcl_mtx_read_path(j->path, &o, &m, j->err))) tdcl_matrix_free(&m);
}

/* Removes a write's target before the timer starts: replacing a large
 * file makes ext4 free the old one's blocks inside open(O_TRUNC) (or
 * rename()), a large share of a write's time on the CI machine, the
 * file system's work and not the writer's. */
static void remove_target(io_job *j)
{
    unlink(j->path);
}

/* Writes j's file with fn: creates it, writes, closes; the first failure
 * stays in j->st. */
static void write_file(io_job *j, tdcl_status (*fn)(FILE *fp, const io_job *j))
{
    FILE *fp;
    if ((j->st = create_file(j->path, &fp, j->err))) return;
    j->st = fn(fp, j);
    tdcl_status st = close_written(fp, j->path, j->err);
    if (!j->st) j->st = st;
}

static tdcl_status mtx_text(FILE *fp, const io_job *j)
{
    tdcl_mtx_write_opts o = {.coordinate = j->coord, .threads = j->threads};
    return tdcl_mtx_write(fp, j->path, j->m, &o, j->err);
}

static void mtx_write_once(io_job *j)
{
    write_file(j, mtx_text);
}

static tdcl_status npy_bytes(FILE *fp, const io_job *j)
{
    return tdcl_npy_write(fp, j->path, j->m, j->err);
}

static void npy_write_once(io_job *j)
{
    write_file(j, npy_bytes);
}

static void npy_read_once(io_job *j)
{
    tdcl_matrix m;
    if (!(j->st = tdcl_matrix_read(j->path, 0, &m, j->err))) tdcl_matrix_free(&m);
}

/* The plain C reader and writer, one value per line, for scale. */
static void plain_read_once(io_job *j)
{
    FILE *fp = fopen(j->path, "r");
    if (!fp) {
        j->st = tdcl_fail(j->err, TDCL_EIO, "cannot open '%s': %s", j->path, strerror(errno));
        return;
    }
    char line[256];
    volatile double sum = 0;
    int64_t k = 0;
    while (fgets(line, sizeof line, fp))
        if (line[0] != '%' && k++ > 0) /* skip the banner and size line */
            sum += strtod(line, NULL);
    fclose(fp);
}

static tdcl_status plain_text(FILE *fp, const io_job *j)
{
    const float *v = j->m->data;
    size_t n = tdcl_matrix_count(j->m);
    for (size_t k = 0; k < n; k++)
        fprintf(fp, "%.9g\n", v[k]);
    return TDCL_OK; /* close_written reports a failed write */
}

static void plain_write_once(io_job *j)
{
    write_file(j, plain_text);
}

/* malloc + memcpy of the matrix's bytes into fresh memory: what reading a
 * .npy file into a new matrix cannot beat. */
static void copy_once(io_job *j)
{
    size_t bytes = tdcl_matrix_count(j->m) * tdcl_dtype_size(j->m->dtype);
    char *dst = malloc(bytes);
    if (!dst) {
        j->st = tdcl_fail(j->err, TDCL_ENOMEM, "out of memory copying %zu bytes", bytes);
        return;
    }
    memcpy(dst, j->m->data, bytes);
    volatile char keep = dst[bytes / 2]; /* the copy must happen */
    (void)keep;
    free(dst);
}

/* Reads the array file written from m back and compares it bit for bit. */
static tdcl_status check_written(const char *path, const tdcl_matrix *m, tdcl_err *err)
{
    tdcl_matrix back = {0}, back32 = {0};
    tdcl_status st = tdcl_mtx_read_path(path, NULL, &back, err);
    if (!st) st = tdcl_matrix_convert(&back, TDCL_F32, &back32, err);
    if (!st && (back32.rows != m->rows || back32.cols != m->cols ||
                memcmp(back32.data, m->data, tdcl_matrix_count(m) * sizeof(float)) != 0))
        st = tdcl_fail(err, TDCL_EVERIFY, "'%s' does not read back as the matrix written", path);
    tdcl_matrix_free(&back);
    tdcl_matrix_free(&back32);
    return st;
}

typedef struct io_files {
    char arr[4096], coo[4096], out[4096], npy[4096];
} io_files;

static void name_files(const tdcl_bench_io_opts *o, io_files *f)
{
    const char *dir = o->dir;
    if (!dir) dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    long pid = (long)getpid();
    snprintf(f->arr, sizeof f->arr, "%s/tiledcl-bench-io-%ld-array.mtx", dir, pid);
    snprintf(f->coo, sizeof f->coo, "%s/tiledcl-bench-io-%ld-coord.mtx", dir, pid);
    snprintf(f->out, sizeof f->out, "%s/tiledcl-bench-io-%ld-out.mtx", dir, pid);
    snprintf(f->npy, sizeof f->npy, "%s/tiledcl-bench-io-%ld.npy", dir, pid);
}

/* Times job on 1 thread and, when nt > 1, on nt, emitting one figure for
 * each. */
static tdcl_status time_threads(const tdcl_bench_io_opts *o, int nt, const char *what, io_fn before,
                                io_fn run, io_job *j, const char *measured,
                                tdcl_bench_io_emit_fn emit, void *user)
{
    const int counts[2] = {1, nt};
    for (int i = 0; i < (nt > 1 ? 2 : 1) && !j->st; i++) {
        j->threads = counts[i];
        timing tm = time_runs(o->reps, before, run, j);
        if (!j->st) emit_figure(emit, user, what, counts[i], file_mb(measured), tm);
    }
    return j->st;
}

static tdcl_status bench_reads(const tdcl_bench_io_opts *o, int nt, const io_files *f,
                               tdcl_bench_io_emit_fn emit, void *user, tdcl_err *err)
{
    io_job j = {.path = f->arr, .err = err};
    tdcl_status st =
        time_threads(o, nt, "mtx read array", NULL, mtx_read_once, &j, f->arr, emit, user);
    io_job c = {.path = f->coo, .err = err};
    if (!st)
        st =
            time_threads(o, nt, "mtx read coordinate", NULL, mtx_read_once, &c, f->coo, emit, user);
    if (!st && o->plain) {
        io_job p = {.path = f->arr, .err = err};
        timing tm = time_runs(1, NULL, plain_read_once, &p);
        if (!(st = p.st))
            emit_figure(emit, user, "plain fgets+strtod, array", 1, file_mb(f->arr), tm);
    }
    return st;
}

static tdcl_status bench_writes(const tdcl_bench_io_opts *o, int nt, const io_files *f,
                                const tdcl_matrix *dense, const tdcl_matrix *sparse,
                                tdcl_bench_io_emit_fn emit, void *user, tdcl_err *err)
{
    io_job a = {.path = f->out, .m = dense, .err = err};
    tdcl_status st = time_threads(o, nt, "mtx write array", remove_target, mtx_write_once, &a,
                                  f->out, emit, user);
    if (!st) st = check_written(f->out, dense, err);
    io_job c = {.path = f->out, .m = sparse, .coord = 1, .err = err};
    if (!st)
        st = time_threads(o, nt, "mtx write coordinate", remove_target, mtx_write_once, &c, f->out,
                          emit, user);
    if (!st && o->plain) {
        io_job p = {.path = f->out, .m = dense, .err = err};
        timing tm = time_runs(1, remove_target, plain_write_once, &p);
        if (!(st = p.st))
            emit_figure(emit, user, "plain fprintf(\"%.9g\"), array", 1, file_mb(f->out), tm);
    }
    return st;
}

static tdcl_status bench_npy(const tdcl_bench_io_opts *o, const io_files *f,
                             const tdcl_matrix *dense, tdcl_bench_io_emit_fn emit, void *user,
                             tdcl_err *err)
{
    tdcl_matrix m64 = {0};
    tdcl_status st = tdcl_matrix_convert(dense, TDCL_F64, &m64, err);
    io_job j = {.path = f->npy, .m = &m64, .err = err};
    if (!st) {
        timing tm = time_runs(o->reps, remove_target, npy_write_once, &j);
        if (!(st = j.st)) emit_figure(emit, user, "npy write float64", 1, file_mb(f->npy), tm);
    }
    if (!st) {
        timing tm = time_runs(o->reps, NULL, npy_read_once, &j);
        if (!(st = j.st)) emit_figure(emit, user, "npy read float64", 1, file_mb(f->npy), tm);
    }
    if (!st) {
        timing tm = time_runs(o->reps, NULL, copy_once, &j);
        double mb = tdcl_matrix_count(&m64) * 8 / 1e6;
        if (!(st = j.st)) emit_figure(emit, user, "malloc + memcpy of the same bytes", 1, mb, tm);
    }
    tdcl_matrix_free(&m64);
    return st;
}

static tdcl_status check_opts(const tdcl_bench_io_opts *o, tdcl_err *err)
{
    if (o->reps < 1 || o->reps > 31)
        return tdcl_fail_param(err, TDCL_EINVAL, TDCL_PARAM_REPS,
                               "io benchmark: the repetitions must be 1 to 31, got %d", o->reps);
    if (o->n < 1 || o->n > 100000 || o->nnz < 1 || o->nnz > o->n * o->n)
        return tdcl_fail_param(err, TDCL_EINVAL, TDCL_PARAM_SIZE,
                               "io benchmark: the size must be 1 to 100000 and the entries 1 to "
                               "size^2, got %lld and %lld",
                               (long long)o->n, (long long)o->nnz);
    return TDCL_OK;
}

tdcl_status tdcl_bench_io(const tdcl_bench_io_opts *opts, tdcl_bench_io_emit_fn emit, void *user,
                          tdcl_err *err)
{
    tdcl_bench_io_opts o = opts ? *opts : (tdcl_bench_io_opts){0};
    if (!o.n) o.n = 4000;
    if (!o.nnz) o.nnz = o.n * o.n < 10000000 ? o.n * o.n / 2 + 1 : 10000000;
    if (!o.reps) o.reps = 5;
    int nt = tdcl_pool_size(o.threads, 8);
    if (o.read_path) {
        io_job j = {.path = o.read_path, .err = err};
        return time_threads(&o, nt, "mtx read", NULL, mtx_read_once, &j, o.read_path, emit, user);
    }
    tdcl_status st = check_opts(&o, err);
    if (st) return st;
    io_files f;
    name_files(&o, &f);
    /* removed by a signal too: an interrupted run leaves nothing in /tmp */
    int slots[4] = {tdcl_cleanup_add(f.arr), tdcl_cleanup_add(f.coo), tdcl_cleanup_add(f.out),
                    tdcl_cleanup_add(f.npy)};
    tdcl_matrix dense = {0}, sparse = {0};
    st = make_text_files(&o, f.arr, f.coo, err);
    if (!st) st = bench_reads(&o, nt, &f, emit, user, err);
    unlink(f.arr);
    unlink(f.coo);
    if (!st) st = make_matrices(&o, &dense, &sparse, err);
    if (!st) st = bench_writes(&o, nt, &f, &dense, &sparse, emit, user, err);
    unlink(f.out);
    if (!st) st = bench_npy(&o, &f, &dense, emit, user, err);
    unlink(f.npy);
    for (int i = 0; i < 4; i++)
        tdcl_cleanup_remove(slots[i]);
    tdcl_matrix_free(&dense);
    tdcl_matrix_free(&sparse);
    return st;
}

const char *tdcl_bench_io_result_json(const tdcl_bench_io_result *r, tdcl_jsonl *j)
{
    tdcl_jsonl_begin(j);
    tdcl_jsonl_str(j, "op", "io");
    tdcl_jsonl_str(j, "what", r->what);
    tdcl_jsonl_int(j, "threads", r->threads);
    tdcl_jsonl_num(j, "mb", r->mb);
    tdcl_jsonl_num(j, "median_ms", r->wall_ms);
    tdcl_jsonl_num(j, "cpu_median_ms", r->cpu_ms);
    tdcl_jsonl_num(j, "mbps", r->mbps);
    tdcl_jsonl_num(j, "mb_per_cpu_s", r->mb_per_cpu_s);
    return tdcl_jsonl_end(j);
}

void tdcl_bench_io_result_text(const tdcl_bench_io_result *r, char *buf, size_t cap)
{
    char what[96];
    snprintf(what, sizeof what, "%s, %d thread%s", r->what, r->threads, r->threads > 1 ? "s" : "");
    snprintf(buf, cap, "io %-46s %8.1f MB %9.1f ms %7.0f MB/s %7.0f MB/cpu-s", what, r->mb,
             r->wall_ms, r->mbps, r->mb_per_cpu_s);
}
