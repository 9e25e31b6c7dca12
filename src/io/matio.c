/* Matrix files: the dispatch declared in matio.h. Input is recognised by its
 * first bytes (.npy magic, else Matrix Market, plain or gzip), output by the
 * extension, through the table below. */
#include "io/matio.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/fileio.h"
#include "base/log.h"
#include "io/image.h"
#include "io/matsrc.h"
#include "io/mtx.h"
#include "io/npy.h"

typedef tdcl_status (*writer_fn)(FILE *fp, const char *name, const tdcl_matrix *m,
                                 const tdcl_matio_opts *o, tdcl_err *err);

static tdcl_status write_mtx(FILE *fp, const char *name, const tdcl_matrix *m,
                             const tdcl_matio_opts *o, tdcl_err *err)
{
    tdcl_mtx_write_opts mo = {
        .coordinate = o->coordinate, .threads = o->threads, .comment = o->comment};
    return tdcl_mtx_write(fp, name, m, &mo, err);
}

static tdcl_status write_npy(FILE *fp, const char *name, const tdcl_matrix *m,
                             const tdcl_matio_opts *o, tdcl_err *err)
{
    (void)o; /* .npy has no place for a comment */
    return tdcl_npy_write(fp, name, m, err);
}

static const struct {
    const char *ext;
    writer_fn fn;
} writers[] = {
    {".mtx", write_mtx},
    {".npy", write_npy},
};

int tdcl_matrix_path(const char *path)
{
    return tdcl_path_has_ext(path, ".mtx") || tdcl_path_has_ext(path, ".mtx.gz") ||
           tdcl_path_has_ext(path, ".npy");
}

tdcl_status tdcl_matrix_read(const char *path, size_t max_bytes, tdcl_matrix *out, tdcl_err *err)
{
    tdcl_matio_opts o = {.max_bytes = max_bytes};
    return tdcl_matrix_read_opts(path, &o, out, err);
}

tdcl_status tdcl_matrix_write(const char *path, const tdcl_matrix *m, const char *comment,
                              tdcl_err *err)
{
    tdcl_matio_opts o = {.comment = comment};
    return tdcl_matrix_write_opts(path, m, &o, err);
}

/* Refuses by name what the first bytes show is no matrix: an image, a
 * zip archive. A matrix reader would call it a bad Matrix Market file. */
static tdcl_status check_kind(const tdcl_src *s, tdcl_err *err)
{
    int image;
    const char *what = s->gz ? NULL : tdcl_file_kind(s->head, s->head_len, &image, NULL);
    if (what && image)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "'%s' is %s, not a matrix (.mtx or .npy)", s->name,
                         what);
    if (what && strncmp(what, "a zip", 5) == 0)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "'%s' is %s; tiledcl reads .npy and .mtx files",
                         s->name, what);
    return TDCL_OK;
}

/* The whole of an image source in memory, then read as an image. */
static tdcl_status read_image_src(tdcl_src *s, tdcl_matrix *out, int *maxval, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const char *p;
    size_t n = 0, cap = 0, got;
    unsigned char *buf = NULL;
    if (tdcl_src_map(s, &p, &n))
        return tdcl_image_read_mem(s->name, (const unsigned char *)p, n, out, maxval, err);
    do {
        if (n == cap) {
            unsigned char *b = realloc(buf, cap = cap ? 2 * cap : 1 << 16);
            if (!b) {
                st = tdcl_fail(err, TDCL_ENOMEM, "out of memory reading '%s'", s->name);
                goto out;
            }
            buf = b;
        }
        TDCL_TRY(tdcl_src_read(s, buf + n, cap - n, &got, err));
        n += got;
    } while (got);
    st = tdcl_image_read_mem(s->name, buf, n, out, maxval, err);
out:
    free(buf);
    return st;
}

tdcl_status tdcl_matrix_read_opts(const char *path, const tdcl_matio_opts *o, tdcl_matrix *out,
                                  tdcl_err *err)
{
    static const tdcl_matio_opts defaults = {0};
    if (!o) o = &defaults;
    tdcl_src s;
    memset(out, 0, sizeof *out);
    tdcl_status st = tdcl_src_open(&s, path, err);
    if (st) return st;
    if (tdcl_npy_magic(&s)) {
        st = tdcl_npy_read(&s, o->max_bytes, out, err);
    } else if (!(st = check_kind(&s, err))) {
        tdcl_mtx_read_opts mo = {.max_bytes = o->max_bytes, .threads = o->threads};
        st = tdcl_mtx_read(&s, &mo, out, err);
    }
    tdcl_src_close(&s);
    return st;
}

tdcl_status tdcl_matrix_read_mapped(const char *path, size_t max_bytes, tdcl_matrix *out,
                                    tdcl_mapping *map, tdcl_err *err)
{
    return tdcl_matrix_or_image_read(path, max_bytes, out, map, NULL, err);
}

tdcl_status tdcl_matrix_or_image_read(const char *path, size_t max_bytes, tdcl_matrix *out,
                                      tdcl_mapping *map, int *maxval, tdcl_err *err)
{
    tdcl_src s;
    int image = 0;
    memset(map, 0, sizeof *map);
    memset(out, 0, sizeof *out);
    if (maxval) *maxval = 0;
    tdcl_status st = tdcl_src_open(&s, path, err);
    if (st) return st;
    if (tdcl_npy_magic(&s)) {
        st = tdcl_npy_read_mapped(&s, max_bytes, out, map, err);
    } else if (maxval && !s.gz && tdcl_file_kind(s.head, s.head_len, &image, NULL) && image) {
        st = read_image_src(&s, out, maxval, err);
    } else if (!(st = check_kind(&s, err))) {
        tdcl_mtx_read_opts mo = {.max_bytes = max_bytes};
        st = tdcl_mtx_read(&s, &mo, out, err);
    }
    tdcl_src_close(&s);
    return st;
}

void tdcl_matrix_release(tdcl_matrix *m, tdcl_mapping *map)
{
    if (map && map->addr)
        memset(m, 0, sizeof *m);
    else
        tdcl_matrix_free(m);
    tdcl_mapping_release(map);
}

tdcl_status tdcl_matrix_write_opts(const char *path, const tdcl_matrix *m, const tdcl_matio_opts *o,
                                   tdcl_err *err)
{
    static const tdcl_matio_opts defaults = {0};
    if (!o) o = &defaults;
    writer_fn fn = NULL;
    int to_stdout = !path || strcmp(path, "-") == 0;
    if (to_stdout) fn = write_mtx;
    for (size_t i = 0; !fn && i < sizeof writers / sizeof writers[0]; i++)
        if (tdcl_path_has_ext(path, writers[i].ext)) fn = writers[i].fn;
    if (!fn && tdcl_path_is_stream(path)) fn = write_mtx; /* /dev/null, a FIFO: as stdout */
    if (!fn && tdcl_path_has_ext(path, ".gz"))
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s': gzip output is not supported; write .mtx and compress it", path);
    if (!fn)
        return tdcl_fail(err, TDCL_EINVAL,
                         "'%s': unknown matrix format (the extension must be .mtx or .npy)", path);
    tdcl_outfile f;
    tdcl_status st = TDCL_OK;
    int done = 0;
    if (fn == write_npy && !to_stdout && (st = tdcl_npy_save(path, m, &done, err))) return st;
    if (done) return TDCL_OK; /* large: in bands on several threads */
    if ((st = tdcl_out_open(&f, path, err))) return st;
    st = fn(f.fp, to_stdout ? "<stdout>" : path, m, o, err);
    if (st) {
        tdcl_out_abort(&f);
        return st;
    }
    return tdcl_out_commit(&f, err);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Size of a written or read file for the MB/s figures; 0 for pipes. */
static double file_mb(const char *path)
{
    struct stat sb;
    if (!path || strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
    return (double)sb.st_size / 1e6;
}

static void log_speed(const char *what, const char *path, const tdcl_matrix *m, double ms)
{
    double mb = file_mb(path);
    if (mb > 0)
        tdcl_log(TDCL_LOG_VERBOSE, "%s '%s': %lldx%lld %s, %.1f MB in %.1f ms (%.0f MB/s)", what,
                 path, (long long)m->rows, (long long)m->cols, tdcl_dtype_name(m->dtype), mb, ms,
                 ms > 0 ? mb / (ms / 1e3) : 0.0);
    else
        tdcl_log(TDCL_LOG_VERBOSE, "%s '%s': %lldx%lld %s in %.1f ms", what,
                 tdcl_path_display(path), (long long)m->rows, (long long)m->cols,
                 tdcl_dtype_name(m->dtype), ms);
}

tdcl_status tdcl_matio_convert(const tdcl_matio_convert_opts *o, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix m = {0}, c = {0};
    double t0 = now_ms();
    TDCL_TRY(tdcl_matrix_read_opts(o->in, &o->io, &m, err));
    double t1 = now_ms();
    log_speed("read", o->in, &m, t1 - t0);
    const tdcl_matrix *src = &m;
    if (o->dtype >= 0 && (tdcl_dtype)o->dtype != m.dtype) {
        TDCL_TRY(tdcl_matrix_narrow(&m, (tdcl_dtype)o->dtype, o->clip, &c, err));
        src = &c;
    }
    double t2 = now_ms();
    TDCL_TRY(tdcl_matrix_write_opts(o->out, src, &o->io, err));
    log_speed("wrote", o->out && strcmp(o->out, "-") ? o->out : "-", src, now_ms() - t2);
out:
    tdcl_matrix_free(&m);
    tdcl_matrix_free(&c);
    return st;
}
