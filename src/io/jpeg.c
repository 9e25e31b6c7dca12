/* JPEG images in bands through libjpeg (libjpeg-turbo): scanlines decoded
 * as asked for and encoded as given.
 *
 * Decoding uses the accurate integer DCT (JDCT_ISLOW) unless the reader
 * asks for the fast one: ISLOW gives the samples libjpeg-turbo's own tools
 * (djpeg) and Pillow give by default. A progressive file is buffered by
 * libjpeg as coefficients (two bytes a sample) before the first row; a
 * baseline one never is. Grey and colour (YCbCr, RGB) files read; CMYK
 * ones are refused by name. libjpeg reports errors by longjmp, so each
 * call into it sits in a small function with its own setjmp. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "base/log.h"
#include "io/image_int.h"

/* A baseline JPEG of one flat colour takes a few bits per 8x8 block; a
 * header claiming more pixel bytes than this many per file byte lies. */
#define JPEG_MAX_RATIO 8192u

/* The writer's quality when none is asked for, as Pillow's own is 75 and
 * ImageMagick's 92: high enough that a reduction's output is not marked. */
#define JPEG_QUALITY_DEFAULT 90

typedef struct jpeg_errmgr {
    struct jpeg_error_mgr pub;
    jmp_buf jmp;
    char msg[JMSG_LENGTH_MAX];
    const char *name;
    int warned;
} jpeg_errmgr;

static void on_error(j_common_ptr c)
{
    jpeg_errmgr *e = (jpeg_errmgr *)c->err;
    c->err->format_message(c, e->msg);
    longjmp(e->jmp, 1);
}

/* Corrupt-data warnings: libjpeg goes on (as djpeg does); said once. */
static void on_message(j_common_ptr c, int level)
{
    jpeg_errmgr *e = (jpeg_errmgr *)c->err;
    char msg[JMSG_LENGTH_MAX];
    if (level >= 0 || e->warned) return;
    e->warned = 1;
    c->err->format_message(c, msg);
    tdcl_log(TDCL_LOG_WARN, "%s: %s", e->name, msg);
}

typedef struct jpeg_r {
    struct jpeg_decompress_struct d;
    struct jpeg_source_mgr src;
    jpeg_errmgr err;
    tdcl_img_reader *r;
    int started, created;
} jpeg_r;

static void src_init(j_decompress_ptr d)
{
    (void)d;
}

/* Hands libjpeg the whole window of the byte source; at the end of the
 * input, an error (a cut file is refused, not filled with grey). */
static boolean src_fill(j_decompress_ptr d)
{
    jpeg_r *j = (jpeg_r *)d->client_data;
    img_src *s = &j->r->src;
    size_t n = img_src_ensure(s, s->cap ? s->cap : s->n - s->pos);
    if (!n) {
        if (s->ioerr)
            snprintf(j->err.msg, sizeof j->err.msg, "read failed: %s", strerror(s->ioerr));
        else
            snprintf(j->err.msg, sizeof j->err.msg, "truncated: the file ends at byte %" PRIu64,
                     img_src_tell(s));
        longjmp(j->err.jmp, 1);
    }
    j->src.next_input_byte = s->p + s->pos;
    j->src.bytes_in_buffer = n;
    s->pos += n;
    return TRUE;
}

static void src_skip(j_decompress_ptr d, long n)
{
    jpeg_r *j = (jpeg_r *)d->client_data;
    while (n > (long)j->src.bytes_in_buffer) {
        n -= (long)j->src.bytes_in_buffer;
        src_fill(d);
    }
    if (n > 0) {
        j->src.next_input_byte += n;
        j->src.bytes_in_buffer -= (size_t)n;
    }
}

static void src_term(j_decompress_ptr d)
{
    (void)d;
}

static tdcl_status jpg_fail(jpeg_r *j, tdcl_err *err)
{
    return tdcl_fail(err, TDCL_EPARSE, "%s: bad JPEG data: %s", j->r->name, j->err.msg);
}

static tdcl_status open_body(jpeg_r *j, tdcl_err *err)
{
    tdcl_img_reader *r = j->r;
    if (setjmp(j->err.jmp)) return jpg_fail(j, err);
    jpeg_create_decompress(&j->d);
    j->created = 1;
    j->d.client_data = j;
    j->d.src = &j->src;
    jpeg_read_header(&j->d, TRUE);
    J_COLOR_SPACE cs = j->d.jpeg_color_space;
    if (cs == JCS_CMYK || cs == JCS_YCCK)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s' is a CMYK JPEG image; tiledcl reads grey and colour (YCbCr, RGB) "
                         "JPEG images",
                         r->name);
    int ch = cs == JCS_GRAYSCALE ? 1 : 3;
    j->d.out_color_space = ch == 1 ? JCS_GRAYSCALE : JCS_RGB;
    j->d.dct_method = r->opts.fast_dct ? JDCT_IFAST : JDCT_ISLOW;
    double raw = (double)j->d.image_width * j->d.image_height * ch;
    if (r->src.size >= 0 && raw > (double)JPEG_MAX_RATIO * (double)r->src.size + (1 << 20))
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s: header claims %ux%u pixels, more than a file of %" PRId64
                         " bytes can hold compressed",
                         r->name, j->d.image_width, j->d.image_height, r->src.size);
    r->info = (tdcl_img_info){.width = j->d.image_width,
                              .height = j->d.image_height,
                              .channels = ch,
                              .dtype = TDCL_U8,
                              .maxval = 255,
                              .kind = img_kind_jpeg,
                              .file_maxval = 255};
    return TDCL_OK;
}

static tdcl_status jpg_rows(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err);
static void jpg_close(tdcl_img_reader *r);
static const img_rops jpg_ops = {jpg_rows, jpg_close};

tdcl_status img_jpeg_open(tdcl_img_reader *r, tdcl_err *err)
{
    jpeg_r *j = calloc(1, sizeof *j);
    if (!j) return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory", r->name);
    r->fmt = j;
    r->ops = &jpg_ops;
    j->r = r;
    j->d.err = jpeg_std_error(&j->err.pub);
    j->err.pub.error_exit = on_error;
    j->err.pub.emit_message = on_message;
    j->err.name = r->name;
    j->src = (struct jpeg_source_mgr){.init_source = src_init,
                                      .fill_input_buffer = src_fill,
                                      .skip_input_data = src_skip,
                                      .resync_to_restart = jpeg_resync_to_restart,
                                      .term_source = src_term};
    return open_body(j, err);
}

static void jpg_close(tdcl_img_reader *r)
{
    jpeg_r *j = r->fmt;
    if (!j) return;
    if (j->created) jpeg_destroy_decompress(&j->d);
    free(j);
}

static tdcl_status rows_body(jpeg_r *j, unsigned char *dst, int64_t nrows, tdcl_err *err)
{
    tdcl_img_reader *r = j->r;
    size_t rowb = (size_t)r->info.width * (size_t)r->info.channels;
    if (setjmp(j->err.jmp)) return jpg_fail(j, err);
    if (!j->started) {
        jpeg_start_decompress(&j->d);
        j->started = 1;
    }
    for (int64_t i = 0; i < nrows;) {
        JSAMPROW rows[16];
        JDIMENSION k, want = (JDIMENSION)(nrows - i < 16 ? nrows - i : 16);
        for (k = 0; k < want; k++)
            rows[k] = dst + (size_t)(i + k) * rowb;
        JDIMENSION got = jpeg_read_scanlines(&j->d, rows, want);
        if (!got) ERREXIT(&j->d, JERR_INPUT_EOF);
        i += got;
    }
    if (r->row + nrows == r->info.height) jpeg_finish_decompress(&j->d);
    return TDCL_OK;
}

static tdcl_status jpg_rows(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err)
{
    return rows_body(r->fmt, dst, nrows, err);
}

/* ---- writing ------------------------------------------------------------ */

typedef struct jpeg_w {
    struct jpeg_compress_struct c;
    jpeg_errmgr err;
    int created;
} jpeg_w;

static tdcl_status write_fail(tdcl_img_writer *w, jpeg_w *j, tdcl_err *err)
{
    return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", w->name, j->err.msg);
}

static tdcl_status create_body(tdcl_img_writer *w, jpeg_w *j, tdcl_err *err)
{
    if (setjmp(j->err.jmp)) return write_fail(w, j, err);
    jpeg_create_compress(&j->c);
    j->created = 1;
    jpeg_stdio_dest(&j->c, w->out.fp);
    j->c.image_width = (JDIMENSION)w->info.width;
    j->c.image_height = (JDIMENSION)w->info.height;
    j->c.input_components = w->info.channels;
    j->c.in_color_space = w->info.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&j->c);
    jpeg_set_quality(&j->c, w->o.quality > 0 ? w->o.quality : JPEG_QUALITY_DEFAULT, TRUE);
    j->c.dct_method = JDCT_ISLOW;
    jpeg_start_compress(&j->c, TRUE);
    return TDCL_OK;
}

static tdcl_status jpg_wrow(tdcl_img_writer *w, const void *samples, tdcl_err *err);
static tdcl_status jpg_finish(tdcl_img_writer *w, tdcl_err *err);
static void jpg_destroy(tdcl_img_writer *w);
static const img_wops jpg_wops = {jpg_wrow, jpg_finish, jpg_destroy};

tdcl_status img_jpeg_create(tdcl_img_writer *w, tdcl_err *err)
{
    if (w->o.quality < 0 || w->o.quality > 100)
        return tdcl_fail(err, TDCL_EINVAL, "'%s': expected a JPEG quality 1..100, got %d", w->name,
                         w->o.quality);
    jpeg_w *j = calloc(1, sizeof *j);
    if (!j) return tdcl_fail(err, TDCL_ENOMEM, "'%s': out of memory", w->name);
    w->fmt = j;
    w->ops = &jpg_wops;
    w->info.kind = img_kind_jpeg;
    j->c.err = jpeg_std_error(&j->err.pub);
    j->err.pub.error_exit = on_error;
    j->err.pub.emit_message = on_message;
    j->err.name = w->name;
    return create_body(w, j, err);
}

static tdcl_status jpg_wrow(tdcl_img_writer *w, const void *samples, tdcl_err *err)
{
    jpeg_w *j = w->fmt;
    JSAMPROW row = (JSAMPROW)(uintptr_t)samples; /* libjpeg does not write through it */
    if (setjmp(j->err.jmp)) return write_fail(w, j, err);
    jpeg_write_scanlines(&j->c, &row, 1);
    return TDCL_OK;
}

static tdcl_status jpg_finish(tdcl_img_writer *w, tdcl_err *err)
{
    jpeg_w *j = w->fmt;
    if (setjmp(j->err.jmp)) return write_fail(w, j, err);
    jpeg_finish_compress(&j->c);
    return TDCL_OK;
}

static void jpg_destroy(tdcl_img_writer *w)
{
    jpeg_w *j = w->fmt;
    if (j && j->created) jpeg_destroy_compress(&j->c);
    free(j);
}
