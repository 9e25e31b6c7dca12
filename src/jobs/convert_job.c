/* tdcl_convert: the format dispatch behind `tiledcl convert`. */
#include "jobs/convert_job.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/log.h"
#include "base/csr.h"
#include "io/image.h"
#include "io/life_io.h"
#include "io/mtx.h"
#include "io/npz.h"
#include "io/sparse_io.h"
#include "base/mem.h"

static int is_life_path(const char *p)
{
    return tdcl_path_has_ext(p, ".rle") || tdcl_path_has_ext(p, ".cells");
}

static int is_matrix_out(const char *p)
{
    return tdcl_matrix_path(p) || tdcl_path_is_stream(p) || tdcl_path_has_ext(p, ".npz");
}

int tdcl_convert_out_known(const char *out)
{
    return is_matrix_out(out) || tdcl_image_path(out) || is_life_path(out);
}

/* Pattern in any format to .rle/.cells. */
static tdcl_status to_life(const tdcl_convert_opts *o, tdcl_err *err)
{
    tdcl_life_pattern p = {0};
    tdcl_status st = tdcl_life_read(o->in, 0, &p, err);
    if (st == TDCL_OK) {
        tdcl_life_write_opts wo = {.rule = p.has_rule ? p.rule : tdcl_life_rule_conway(),
                                   .boundary = p.topo.boundary,
                                   .edges = p.topo.edges,
                                   .unbounded = !p.topo.present, /* Golly's plane: at its Pos */
                                   .x0 = p.x0,
                                   .y0 = p.y0,
                                   .generation = p.generation,
                                   .comment = "written by tiledcl convert"};
        st = tdcl_life_write(o->out, &p.grid, &wo, err);
    }
    tdcl_life_pattern_free(&p);
    return st;
}

/* Reads an image, a pattern (as 0/1 cells; life_in) or a matrix into m. */
static tdcl_status read_grid(const char *in, int life_in, tdcl_matrix *m, int *maxval,
                             tdcl_err *err)
{
    *maxval = 0;
    if (tdcl_image_file(in)) return tdcl_image_read(in, m, maxval, err);
    if (life_in) {
        tdcl_life_pattern p = {0};
        tdcl_status st = tdcl_life_read(in, 0, &p, err);
        *m = p.grid; /* the pattern's grid changes hands */
        *maxval = -1;
        return st;
    }
    return tdcl_matrix_read(in, 0, m, err);
}

/* m (owned by the caller, maybe replaced) to .pbm/.pgm/.png. Bits (PBM, 1 =
 * black) and grey levels (0 = black) meet by tdcl_image_grey_to_bits and
 * tdcl_image_bits_to_grey; maxval: the image's, -1 for a pattern, 0 for a
 * matrix. */
static tdcl_status write_image(const tdcl_convert_opts *o, tdcl_matrix *m, int maxval,
                               tdcl_err *err)
{
    tdcl_matrix conv = {0};
    tdcl_status st = TDCL_OK;
    int bits = 8, pbm = tdcl_path_has_ext(o->out, ".pbm");
    size_t n = tdcl_matrix_count(m);
    if (pbm && maxval > 1) {
        /* grey to bits: black below half the maxval */
        if ((st = tdcl_image_grey_to_bits(m, maxval, &conv, err))) return st;
        tdcl_matrix_free(m);
        *m = conv;
    } else if (maxval == 1 && !pbm) {
        /* PBM bits to the full grey range: black 0, white 255 */
        if ((st = tdcl_image_bits_to_grey(m, 255, &conv, err))) return st;
        tdcl_matrix_free(m);
        *m = conv;
    } else if (maxval < 0 && !pbm) {
        /* a pattern: alive black on white, as the readers take it back */
        for (size_t k = 0; k < n; k++)
            ((uint8_t *)m->data)[k] = ((uint8_t *)m->data)[k] ? 0 : 255;
    } else if (maxval > 255) {
        bits = 16;
    } else if (maxval == 0) {
        for (size_t k = 0; k < n && bits == 8; k++)
            if (tdcl_matrix_get_f64(m, k) > 255.5) bits = 16;
    }
    if (pbm) bits = 1;
    tdcl_img_wopts wo = {
        .bits = bits, .clip = o->clip, .quality = o->quality, .compress = o->compress};
    return tdcl_image_write_opts(o->out, m, &wo, err);
}

/* Anything dense to an image. */
static tdcl_status to_image(const tdcl_convert_opts *o, int life_in, tdcl_err *err)
{
    tdcl_matrix m = {0};
    int maxval;
    tdcl_status st = read_grid(o->in, life_in, &m, &maxval, err);
    if (!st) st = write_image(o, &m, maxval, err);
    tdcl_matrix_free(&m);
    return st;
}

/* 1 when in holds a sparse matrix: named .npz, or Matrix Market whose
 * banner says coordinate (found by content, whatever the name). */
static int sparse_in(const char *in)
{
    if (tdcl_path_has_ext(in, ".npz")) return 1;
    tdcl_mtx_header h;
    tdcl_err e;
    return tdcl_mtx_peek_path(in, &h, &e) == TDCL_OK && h.coordinate;
}

/* 1 when the output is dense: asked for, or .npy, or an image. */
static int dense_out(const tdcl_convert_opts *o)
{
    return o->rep == TDCL_REP_DENSE || tdcl_path_has_ext(o->out, ".npy") || tdcl_image_path(o->out);
}

/* m made dense for o->out, after the memory check that names the size; the
 * value type converted when asked. */
static tdcl_status csr_dense_out(const tdcl_convert_opts *o, const tdcl_csr *m, tdcl_err *err)
{
    tdcl_matrix d = {0}, conv = {0};
    const tdcl_matrix *w = &d;
    char sz[32];
    tdcl_status st = tdcl_csr_to_dense(m, o->io.max_bytes, &d, err);
    if (st) return st;
    tdcl_log(TDCL_LOG_VERBOSE, "made dense for '%s': %lldx%lld %s, %s", o->out, (long long)d.rows,
             (long long)d.cols, tdcl_dtype_name(d.dtype),
             tdcl_mem_size(tdcl_matrix_count(&d) * tdcl_dtype_size(d.dtype), sz, sizeof sz));
    if (tdcl_image_path(o->out)) {
        st = write_image(o, &d, 0, err);
        goto out;
    }
    if (o->dtype >= 0 && (tdcl_dtype)o->dtype != d.dtype) {
        if ((st = tdcl_matrix_narrow(&d, (tdcl_dtype)o->dtype, o->clip, &conv, err))) goto out;
        w = &conv;
    }
    tdcl_matio_opts io = o->io;
    io.coordinate = 0;
    st = tdcl_matrix_write_opts(o->out, w, &io, err);
    if (!st)
        tdcl_log(TDCL_LOG_VERBOSE, "wrote '%s' dense (%s)", o->out,
                 tdcl_path_has_ext(o->out, ".npy") ? ".npy" : "array Matrix Market");
out:
    tdcl_matrix_free(&conv);
    tdcl_matrix_free(&d);
    return st;
}

/* m written sparse: .npz, else coordinate general Matrix Market. */
static tdcl_status csr_sparse_out(const tdcl_convert_opts *o, const tdcl_csr *m, tdcl_err *err)
{
    tdcl_status st;
    if (o->dtype >= 0)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s' -> '%s': a sparse conversion keeps the value type (%s); only a "
                         "dense output converts it",
                         o->in, o->out, m->pattern ? "pattern" : tdcl_dtype_name(m->dtype));
    if (tdcl_path_has_ext(o->out, ".gz"))
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s': gzip output is not supported; write .mtx and compress it", o->out);
    if (tdcl_path_has_ext(o->out, ".npz")) {
        st = tdcl_npz_write_path(o->out, m, err);
    } else {
        tdcl_mtx_write_opts wo = {.threads = o->io.threads, .comment = o->io.comment};
        st = tdcl_mtx_write_csr_path(o->out, m, &wo, err);
    }
    if (!st)
        tdcl_log(TDCL_LOG_VERBOSE, "wrote '%s' sparse (%s, %lld entries)", o->out,
                 tdcl_path_has_ext(o->out, ".npz") ? ".npz, CSR" : "coordinate Matrix Market",
                 (long long)m->nnz);
    return st;
}

/* Through CSR: a sparse input (from src when not NULL: stdin read without
 * a copy), or a dense one's nonzeros; written sparse or made dense as
 * dense_out says. */
static tdcl_status sparse_convert(const tdcl_convert_opts *o, tdcl_src *src, tdcl_err *err)
{
    tdcl_csr m;
    tdcl_status st;
    double t0 = tdcl_now_ms();
    if (dense_out(o) && tdcl_path_has_ext(o->out, ".npz"))
        return tdcl_fail(err, TDCL_EINVAL, "'%s': a .npz holds a sparse matrix, not a dense one",
                         o->out);
    if (src) {
        tdcl_mtx_read_opts mo = {.max_bytes = o->io.max_bytes, .threads = o->io.threads};
        st = tdcl_mtx_read_csr(src, &mo, &m, err);
    } else {
        st = tdcl_sparse_read_path(o->in, o->io.max_bytes, &m, err);
    }
    if (st) return st;
    tdcl_log(TDCL_LOG_VERBOSE,
             "read '%s' as a sparse %lldx%lld %s matrix, %lld entries (CSR), in %.1f ms",
             src ? src->name : o->in, (long long)m.rows, (long long)m.cols,
             m.pattern ? "pattern" : tdcl_dtype_name(m.dtype), (long long)m.nnz,
             tdcl_now_ms() - t0);
    t0 = tdcl_now_ms();
    st = dense_out(o) ? csr_dense_out(o, &m, err) : csr_sparse_out(o, &m, err);
    if (!st) tdcl_log(TDCL_LOG_VERBOSE, "written in %.1f ms", tdcl_now_ms() - t0);
    tdcl_csr_free(&m);
    return st;
}

/* Image or pattern to .mtx/.npy/"-". */
static tdcl_status grid_to_matrix(const tdcl_convert_opts *o, int life_in, tdcl_err *err)
{
    tdcl_matrix m = {0}, conv = {0};
    int maxval;
    tdcl_status st = read_grid(o->in, life_in, &m, &maxval, err);
    if (st) goto out;
    if (m.channels != 1) {
        st = tdcl_fail(err, TDCL_EUNSUPPORTED,
                       "'%s' has %d channels; a matrix holds one (write an image: .png)", o->in,
                       m.channels);
        goto out;
    }
    const tdcl_matrix *w = &m;
    if (o->dtype >= 0 && (tdcl_dtype)o->dtype != m.dtype) {
        if ((st = tdcl_matrix_narrow(&m, (tdcl_dtype)o->dtype, o->clip, &conv, err))) goto out;
        w = &conv;
    }
    st = tdcl_matrix_write_opts(o->out, w, &o->io, err);
out:
    tdcl_matrix_free(&m);
    tdcl_matrix_free(&conv);
    return st;
}

/* The input is a pattern when life_in (by its name, or on stdin by its
 * content), an image by its name or first bytes, else a matrix. */
static tdcl_status convert_as(const tdcl_convert_opts *o, int life_in, tdcl_err *err)
{
    int image_in = life_in || tdcl_image_file(o->in);
    if (is_life_path(o->out)) return to_life(o, err);
    if (o->rep == TDCL_REP_SPARSE && (tdcl_image_path(o->out) || tdcl_path_has_ext(o->out, ".npy")))
        return tdcl_fail(err, TDCL_EINVAL, "'%s' holds a dense matrix, not a sparse one", o->out);
    if (tdcl_image_path(o->out))
        return !image_in && sparse_in(o->in) ? sparse_convert(o, NULL, err)
                                             : to_image(o, life_in, err);
    if (!is_matrix_out(o->out))
        return tdcl_fail(err, TDCL_EINVAL,
                         "cannot tell the format of '%s' (use .mtx, .npy, .npz, .pbm, .pgm, "
                         ".png, .rle, .cells or '-')",
                         o->out);
    if (image_in) return grid_to_matrix(o, life_in, err);
    if (o->rep == TDCL_REP_SPARSE || tdcl_path_has_ext(o->out, ".npz") || sparse_in(o->in))
        return sparse_convert(o, NULL, err);
    tdcl_matio_convert_opts mo = {
        .in = o->in, .out = o->out, .dtype = o->dtype, .clip = o->clip, .io = o->io};
    return tdcl_matio_convert(&mo, err);
}

/* Copies fd's content to the file descriptor out, keeping the first bytes
 * in head. */
static tdcl_status copy_stdin(int out, unsigned char *head, size_t *nhead, size_t cap,
                              tdcl_err *err)
{
    unsigned char buf[1 << 16];
    for (;;) {
        ssize_t r = read(STDIN_FILENO, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return tdcl_fail(err, TDCL_EIO, "cannot read stdin: %s", strerror(errno));
        if (r == 0) return TDCL_OK;
        size_t take = cap - *nhead < (size_t)r ? cap - *nhead : (size_t)r;
        memcpy(head + *nhead, buf, take);
        *nhead += take;
        for (ssize_t done = 0, w; done < r; done += w)
            if ((w = write(out, buf + done, (size_t)(r - done))) < 0)
                return tdcl_fail(err, TDCL_EIO, "cannot write a temporary copy of stdin: %s",
                                 strerror(errno));
    }
}

/* 1 when head starts with a coordinate Matrix Market banner. */
static int coordinate_banner(const unsigned char *head, size_t n)
{
    char line[128], w[3][16];
    size_t k = 0;
    while (k < n && k < sizeof line - 1 && head[k] != '\n') {
        line[k] = (char)head[k];
        k++;
    }
    line[k] = 0;
    return sscanf(line, "%15s %15s %15s", w[0], w[1], w[2]) == 3 &&
           strcasecmp(w[0], "%%MatrixMarket") == 0 && strcasecmp(w[2], "coordinate") == 0;
}

/* Sparse Matrix Market on stdin (plain text) is read straight from it.
 * Anything else is copied whole to a temporary file (the bytes read to
 * look at the banner first) and read by its content, as a file without an
 * extension: an RLE from `life`, an image, a matrix. Any text that is not
 * Matrix Market is taken for a pattern. */
static tdcl_status convert_stdin(const tdcl_convert_opts *o, tdcl_err *err)
{
    const char *dir = getenv("TMPDIR");
    char tmp[PATH_MAX];
    unsigned char head[16];
    size_t nhead = 0;
    tdcl_src s;
    tdcl_status st = tdcl_src_open(&s, "-", err);
    if (st) return st;
    if (!s.gz && !is_life_path(o->out) && coordinate_banner(s.head, s.head_len)) {
        st = sparse_convert(o, &s, err);
        tdcl_src_close(&s);
        return st;
    }
    snprintf(tmp, sizeof tmp, "%s/tiledcl-stdin-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        tdcl_src_close(&s);
        return tdcl_fail(err, TDCL_EIO, "cannot create a temporary copy of stdin: %s",
                         strerror(errno));
    }
    int slot = tdcl_cleanup_add(tmp);
    nhead = s.head_len < sizeof head ? s.head_len : sizeof head;
    memcpy(head, s.head, nhead);
    for (size_t done = 0; done < s.head_len && !st;) {
        ssize_t w = write(fd, s.head + done, s.head_len - done);
        if (w < 0)
            st = tdcl_fail(err, TDCL_EIO, "cannot write a temporary copy of stdin: %s",
                           strerror(errno));
        else
            done += (size_t)w;
    }
    tdcl_src_close(&s);
    if (!st) st = copy_stdin(fd, head, &nhead, sizeof head, err);
    close(fd);
    if (!st) {
        tdcl_convert_opts c = *o;
        c.in = tmp;
        st = convert_as(&c, nhead > 0 && !tdcl_file_kind(head, nhead, NULL, NULL), err);
        char *at = st && err ? strstr(err->msg, tmp) : NULL;
        if (at) { /* messages name stdin, not the copy */
            size_t tl = strlen(tmp);
            memmove(at + 7, at + tl, strlen(at + tl) + 1);
            memcpy(at, "<stdin>", 7);
        }
    }
    unlink(tmp);
    tdcl_cleanup_remove(slot);
    return st;
}

tdcl_status tdcl_convert(const tdcl_convert_opts *o, tdcl_err *err)
{
    if (strcmp(o->in, "-") == 0) return convert_stdin(o, err);
    return convert_as(o, is_life_path(o->in), err);
}
