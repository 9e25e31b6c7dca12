/* Matrix Market writing: the header, then the entries formatted in blocks
 * by several threads and appended in order (tdcl_mtx_write_blocks, shared
 * with the CSR writer in mtx_csr.c). */
#include "io/mtx.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/pool.h"
#include "io/mtx_impl.h"
#include "io/numconv.h"

#define WBLOCK ((uint64_t)1 << 18) /* entries formatted per thread and round */
#define WMAX_ARRAY (TDCL_NC_MAX + 1)
#define WMAX_COORD (2 * 21 + TDCL_NC_MAX + 3)

/* The writer's threads format blocks of entries round-robin and append
 * them to the file in block order, each waiting for its turn, so
 * formatting goes on while another thread writes. */
typedef struct wjob {
    mtx_fmt_fn fmt;
    const void *ctx;
    int nt;
    FILE *fp;
    uint64_t total;
    char *buf[MTX_MAXT];
    pthread_mutex_t mu;
    pthread_cond_t turn;
    uint64_t next; /* the block to be written next */
    int failed, err_no;
} wjob;

/* Formats element idx of m (any dtype) into o; returns the end. */
static char *fmt_elem(char *o, const tdcl_matrix *m, size_t idx)
{
    switch (m->dtype) {
    case TDCL_F64:
        return tdcl_nc_format_f64(o, ((const double *)m->data)[idx]);
    case TDCL_F32:
        return tdcl_nc_format_f32(o, ((const float *)m->data)[idx]);
    default:
        return tdcl_nc_format_i64(o, tdcl_matrix_get_i64(m, idx));
    }
}

static int elem_nonzero(const tdcl_matrix *m, size_t idx)
{
    switch (m->dtype) {
    case TDCL_F64:
        return ((const double *)m->data)[idx] != 0;
    case TDCL_F32:
        return ((const float *)m->data)[idx] != 0;
    default:
        return tdcl_matrix_get_i64(m, idx) != 0;
    }
}

/* Array entries k0..k1 in column-major order, one per line. */
static size_t fmt_array(const void *ctx, uint64_t k0, uint64_t k1, char *buf)
{
    const tdcl_matrix *m = ctx;
    uint64_t rows = (uint64_t)m->rows, cols = (uint64_t)m->cols;
    uint64_t i = k0 % rows, j = k0 / rows;
    char *o = buf;
    for (uint64_t k = k0; k < k1; k++) {
        o = fmt_elem(o, m, (size_t)(i * cols + j));
        *o++ = '\n';
        if (++i == rows) {
            i = 0;
            j++;
        }
    }
    return (size_t)(o - buf);
}

/* The nonzeros among the cells k0..k1 in row-major order, as "i j v". */
static size_t fmt_coord(const void *ctx, uint64_t k0, uint64_t k1, char *buf)
{
    const tdcl_matrix *m = ctx;
    uint64_t cols = (uint64_t)m->cols;
    char *o = buf;
    for (uint64_t k = k0; k < k1; k++) {
        if (!elem_nonzero(m, (size_t)k)) continue;
        o = tdcl_nc_format_u64(o, k / cols + 1);
        *o++ = ' ';
        o = tdcl_nc_format_u64(o, k % cols + 1);
        *o++ = ' ';
        o = fmt_elem(o, m, (size_t)k);
        *o++ = '\n';
    }
    return (size_t)(o - buf);
}

/* Waits until block b may be written; 0 if another thread failed. */
static int wait_turn(wjob *j, uint64_t b)
{
    pthread_mutex_lock(&j->mu);
    while (j->next != b && !j->failed)
        pthread_cond_wait(&j->turn, &j->mu);
    int ok = !j->failed;
    pthread_mutex_unlock(&j->mu);
    return ok;
}

static void pass_turn(wjob *j, int bad)
{
    pthread_mutex_lock(&j->mu);
    if (bad) {
        j->failed = 1;
        j->err_no = errno;
    } else {
        j->next++;
    }
    pthread_cond_broadcast(&j->turn);
    pthread_mutex_unlock(&j->mu);
}

static void fmt_worker(void *arg, int w)
{
    wjob *j = arg;
    uint64_t nblocks = (j->total + WBLOCK - 1) / WBLOCK;
    for (uint64_t b = (uint64_t)w; b < nblocks; b += (uint64_t)j->nt) {
        uint64_t k0 = b * WBLOCK, k1 = j->total - k0 > WBLOCK ? k0 + WBLOCK : j->total;
        size_t len = j->fmt(j->ctx, k0, k1, j->buf[w]);
        if (!wait_turn(j, b)) return;
        int bad = fwrite(j->buf[w], 1, len, j->fp) != len;
        pass_turn(j, bad);
        if (bad) return;
    }
}

tdcl_status tdcl_mtx_write_header(FILE *fp, const char *name, int coordinate, const char *field,
                                  const char *comment, int64_t rows, int64_t cols, int64_t nnz,
                                  tdcl_err *err)
{
    fprintf(fp, "%%%%MatrixMarket matrix %s %s general\n", coordinate ? "coordinate" : "array",
            field);
    /* The comment must stay one line: a line end would start the size line. */
    const char *c = comment ? comment : "written by tiledcl";
    fputs("% ", fp);
    for (; *c; c++)
        fputc(*c == '\n' || *c == '\r' ? ' ' : *c, fp);
    fputc('\n', fp);
    if (nnz >= 0)
        fprintf(fp, "%lld %lld %lld\n", (long long)rows, (long long)cols, (long long)nnz);
    else
        fprintf(fp, "%lld %lld\n", (long long)rows, (long long)cols);
    if (ferror(fp)) return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", name, strerror(errno));
    return TDCL_OK;
}

tdcl_status tdcl_mtx_write_blocks(FILE *fp, const char *name, int threads, uint64_t total,
                                  size_t per_entry, mtx_fmt_fn fmt, const void *ctx, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int nt = tdcl_pool_size(threads, 8);
    if ((uint64_t)nt * WBLOCK > total) nt = (int)((total + WBLOCK - 1) / WBLOCK);
    wjob job = {.fmt = fmt, .ctx = ctx, .nt = nt, .fp = fp, .total = total};
    for (int w = 0; w < nt; w++)
        if (!(job.buf[w] = malloc((size_t)WBLOCK * per_entry))) {
            st = tdcl_fail(err, TDCL_ENOMEM, "out of memory writing '%s'", name);
            goto out;
        }
    pthread_mutex_init(&job.mu, NULL);
    pthread_cond_init(&job.turn, NULL);
    tdcl_pool_run(nt, fmt_worker, &job);
    pthread_cond_destroy(&job.turn);
    pthread_mutex_destroy(&job.mu);
    if (job.failed)
        st = tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", name, strerror(job.err_no));
out:
    for (int w = 0; w < MTX_MAXT; w++)
        free(job.buf[w]);
    return st;
}

static uint64_t count_nonzeros(const tdcl_matrix *m)
{
    uint64_t n = 0, total = (uint64_t)tdcl_matrix_count(m);
    for (uint64_t k = 0; k < total; k++)
        n += (uint64_t)elem_nonzero(m, (size_t)k);
    return n;
}

tdcl_status tdcl_mtx_write(FILE *fp, const char *name, const tdcl_matrix *m,
                           const tdcl_mtx_write_opts *o, tdcl_err *err)
{
    static const tdcl_mtx_write_opts defaults = {0};
    if (!o) o = &defaults;
    if (m->channels != 1)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s': Matrix Market holds one value per entry, got %d channels", name,
                         m->channels);
    const char *field = tdcl_dtype_is_int(m->dtype) ? "integer" : "real";
    int64_t nnz = o->coordinate ? (int64_t)count_nonzeros(m) : -1;
    tdcl_status st = tdcl_mtx_write_header(fp, name, o->coordinate, field, o->comment, m->rows,
                                           m->cols, nnz, err);
    if (st) return st;
    return tdcl_mtx_write_blocks(fp, name, o->threads, (uint64_t)tdcl_matrix_count(m),
                                 o->coordinate ? WMAX_COORD : WMAX_ARRAY,
                                 o->coordinate ? fmt_coord : fmt_array, m, err);
}

tdcl_status tdcl_mtx_write_path(const char *path, const tdcl_matrix *m,
                                const tdcl_mtx_write_opts *o, tdcl_err *err)
{
    tdcl_outfile f;
    tdcl_status st = tdcl_out_open(&f, path, err);
    if (st) return st;
    const char *name = path && strcmp(path, "-") != 0 ? path : "<stdout>";
    st = tdcl_mtx_write(f.fp, name, m, o, err);
    if (st) {
        tdcl_out_abort(&f);
        return st;
    }
    return tdcl_out_commit(&f, err);
}
