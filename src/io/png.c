/* PNG images in bands through libpng: rows decoded as asked for and
 * encoded as given.
 *
 * libpng reports errors by longjmp, so every call into it sits in a small
 * function with its own setjmp whose state lives in the format's struct,
 * never in automatic variables. An interlaced (Adam7) file cannot give a
 * row before the last pass, so it alone is decoded whole, on the first
 * read. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "base/log.h"
#include "io/image_int.h"

/* Deflate cannot expand data by more than about 1032:1, so a PNG whose
 * header claims more pixel bytes than this many per file byte is lying. */
#define PNG_MAX_RATIO 1032u

/* zlib level 1 with only the Sub and Up filters by default: writing a
 * 12000x9000 RGB picture took 5.2 s of CPU and 188 MB, against 40.6 s and
 * 154 MB with libpng's defaults (level 6, every filter tried per row);
 * level 2 took 6.0 s for 186 MB, level 3 10.5 s for 185 MB. */
#define PNG_LEVEL_DEFAULT 1

typedef struct png_r {
    png_structp png;
    png_infop info;
    tdcl_img_reader *r;
    char msg[256];
    size_t rowb;
    int interlaced;
    unsigned char *whole; /* interlaced: every row, decoded on the first read */
} png_r;

static void on_error(png_structp png, png_const_charp msg)
{
    char *dst = png_get_error_ptr(png);
    snprintf(dst, 256, "%s", msg);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    tdcl_log(TDCL_LOG_DEBUG, "libpng: %s", msg);
}

static void read_fn(png_structp png, png_bytep dst, size_t n)
{
    png_r *p = png_get_io_ptr(png);
    img_src *s = &p->r->src;
    if (img_src_read(s, dst, n) == n) return;
    if (s->ioerr)
        snprintf(p->msg, sizeof p->msg, "read failed: %s", strerror(s->ioerr));
    else
        snprintf(p->msg, sizeof p->msg, "truncated: the file ends at byte %" PRIu64,
                 img_src_tell(s));
    png_longjmp(png, 1);
}

/* Asks libpng for 8 or 16 bits of grey, grey+alpha, RGB or RGBA in host
 * order, whatever the file stores. */
static void set_transforms(png_structp png, png_infop info)
{
    int type = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
    if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (depth == 16 && img_host_le()) png_set_swap(png);
    if (png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) png_set_interlace_handling(png);
    png_read_update_info(png, info);
}

/* 1 if the header's pixels could come out of a file of this size (any, when
 * the size is not known). */
static int size_plausible(png_structp png, png_infop info, int64_t file_len)
{
    double rowb = ceil((double)png_get_image_width(png, info) * png_get_channels(png, info) *
                       png_get_bit_depth(png, info) / 8.0);
    double raw = (rowb + 1) * png_get_image_height(png, info);
    return file_len < 0 || raw <= (double)PNG_MAX_RATIO * (double)file_len + 4096;
}

static tdcl_status open_body(png_r *p, tdcl_err *err)
{
    tdcl_img_reader *r = p->r;
    if (setjmp(png_jmpbuf(p->png)))
        return tdcl_fail(err, TDCL_EPARSE, "%s: bad PNG data: %s", r->name, p->msg);
    png_set_read_fn(p->png, p, read_fn);
    png_set_user_limits(p->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    png_read_info(p->png, p->info);
    uint32_t w = png_get_image_width(p->png, p->info), h = png_get_image_height(p->png, p->info);
    if (!size_plausible(p->png, p->info, r->src.size))
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s: header claims %ux%u pixels, more than a file of %" PRId64
                         " bytes can hold compressed",
                         r->name, w, h, r->src.size);
    p->interlaced = png_get_interlace_type(p->png, p->info) != PNG_INTERLACE_NONE;
    set_transforms(p->png, p->info);
    int ch = png_get_channels(p->png, p->info), depth = png_get_bit_depth(p->png, p->info);
    p->rowb = (size_t)w * (size_t)ch * (depth == 16 ? 2u : 1u);
    if (png_get_rowbytes(p->png, p->info) != p->rowb)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "%s: unexpected PNG row layout", r->name);
    r->info = (tdcl_img_info){.width = w,
                              .height = h,
                              .channels = ch,
                              .dtype = depth == 16 ? TDCL_U16 : TDCL_U8,
                              .maxval = depth == 16 ? 65535 : 255,
                              .kind = img_kind_png,
                              .file_maxval = depth == 16 ? 65535 : 255};
    return TDCL_OK;
}

static tdcl_status png_rows(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err);
static void png_close(tdcl_img_reader *r);
static const img_rops png_ops = {png_rows, png_close};

tdcl_status img_png_open(tdcl_img_reader *r, tdcl_err *err)
{
    png_r *p = calloc(1, sizeof *p);
    if (!p) return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory", r->name);
    r->fmt = p;
    r->ops = &png_ops;
    p->r = r;
    p->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, p->msg, on_error, on_warning);
    if (p->png) p->info = png_create_info_struct(p->png);
    if (!p->png || !p->info)
        return tdcl_fail(err, TDCL_ENOMEM, "%s: cannot set up the PNG reader", r->name);
    return open_body(p, err);
}

static void png_close(tdcl_img_reader *r)
{
    png_r *p = r->fmt;
    if (!p) return;
    png_destroy_read_struct(p->png ? &p->png : NULL, p->info ? &p->info : NULL, NULL);
    free(p->whole);
    free(p);
}

/* After the last row: the end chunk, and what follows it. */
static void read_end(png_r *p)
{
    img_src *s = &p->r->src;
    png_read_end(p->png, NULL);
    if (img_src_peek(s) >= 0)
        tdcl_log(TDCL_LOG_WARN, "%s: bytes after the PNG end chunk (at byte %" PRIu64 ") ignored",
                 p->r->name, img_src_tell(s));
}

/* The whole of an interlaced image, every pass. */
static tdcl_status read_whole(png_r *p, tdcl_err *err)
{
    tdcl_img_reader *r = p->r;
    size_t h = (size_t)r->info.height;
    png_bytep *rows = malloc(sizeof *rows * h);
    if (rows) p->whole = malloc(p->rowb * h);
    if (!rows || !p->whole) {
        free(rows);
        return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory for an interlaced PNG of %zu bytes",
                         r->name, p->rowb * h);
    }
    for (size_t i = 0; i < h; i++)
        rows[i] = p->whole + i * p->rowb;
    if (setjmp(png_jmpbuf(p->png))) {
        free(rows);
        return tdcl_fail(err, TDCL_EPARSE, "%s: bad PNG data: %s", r->name, p->msg);
    }
    png_read_image(p->png, rows);
    read_end(p);
    free(rows);
    return TDCL_OK;
}

static tdcl_status rows_body(png_r *p, unsigned char *dst, int64_t nrows)
{
    if (setjmp(png_jmpbuf(p->png))) return TDCL_EPARSE;
    for (int64_t i = 0; i < nrows; i++)
        png_read_row(p->png, dst + (size_t)i * p->rowb, NULL);
    if (p->r->row + nrows == p->r->info.height) read_end(p);
    return TDCL_OK;
}

static tdcl_status png_rows(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err)
{
    png_r *p = r->fmt;
    if (p->interlaced) {
        if (!p->whole && r->row == 0) {
            tdcl_status st = read_whole(p, err);
            if (st) return st;
        }
        if (!p->whole) return tdcl_fail(err, TDCL_EPARSE, "%s: bad PNG data: %s", r->name, p->msg);
        memcpy(dst, p->whole + (size_t)r->row * p->rowb, (size_t)nrows * p->rowb);
        return TDCL_OK;
    }
    if (rows_body(p, dst, nrows))
        return tdcl_fail(err, TDCL_EPARSE, "%s: bad PNG data: %s", r->name, p->msg);
    return TDCL_OK;
}

/* ---- writing ------------------------------------------------------------ */

typedef struct png_w {
    png_structp png;
    png_infop info;
    tdcl_img_writer *w;
    char msg[256];
} png_w;

static void write_fn(png_structp png, png_bytep src, size_t n)
{
    png_w *p = png_get_io_ptr(png);
    if (fwrite(src, 1, n, p->w->out.fp) != n) {
        snprintf(p->msg, sizeof p->msg, "%s", strerror(errno));
        png_longjmp(png, 1);
    }
}

static void flush_noop(png_structp png)
{
    (void)png;
}

static tdcl_status create_body(png_w *p, tdcl_err *err)
{
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                 PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    tdcl_img_writer *w = p->w;
    if (setjmp(png_jmpbuf(p->png)))
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", w->name, p->msg);
    png_set_write_fn(p->png, p, write_fn, flush_noop);
    png_set_IHDR(p->png, p->info, (png_uint_32)w->info.width, (png_uint_32)w->info.height,
                 w->o.bits, types[w->info.channels], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(p->png, w->o.level > 0 ? w->o.level : PNG_LEVEL_DEFAULT);
    png_set_filter(p->png, 0, PNG_FILTER_SUB | PNG_FILTER_UP);
    png_write_info(p->png, p->info);
    if (w->o.bits == 16 && img_host_le()) png_set_swap(p->png);
    return TDCL_OK;
}

static tdcl_status png_wrow(tdcl_img_writer *w, const void *samples, tdcl_err *err);
static tdcl_status png_finish(tdcl_img_writer *w, tdcl_err *err);
static void png_destroy(tdcl_img_writer *w);
static const img_wops png_wops = {png_wrow, png_finish, png_destroy};

tdcl_status img_png_create(tdcl_img_writer *w, tdcl_err *err)
{
    png_w *p = calloc(1, sizeof *p);
    if (!p) return tdcl_fail(err, TDCL_ENOMEM, "'%s': out of memory", w->name);
    w->fmt = p;
    w->ops = &png_wops;
    w->info.kind = img_kind_png;
    p->w = w;
    p->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, p->msg, on_error, on_warning);
    if (p->png) p->info = png_create_info_struct(p->png);
    if (!p->png || !p->info)
        return tdcl_fail(err, TDCL_ENOMEM, "cannot set up the PNG writer for '%s'", w->name);
    return create_body(p, err);
}

static tdcl_status png_wrow(tdcl_img_writer *w, const void *samples, tdcl_err *err)
{
    png_w *p = w->fmt;
    if (setjmp(png_jmpbuf(p->png)))
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", w->name, p->msg);
    png_write_row(p->png, (png_const_bytep)samples);
    return TDCL_OK;
}

static tdcl_status png_finish(tdcl_img_writer *w, tdcl_err *err)
{
    png_w *p = w->fmt;
    if (setjmp(png_jmpbuf(p->png)))
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", w->name, p->msg);
    png_write_end(p->png, NULL);
    return TDCL_OK;
}

static void png_destroy(tdcl_img_writer *w)
{
    png_w *p = w->fmt;
    if (!p) return;
    png_destroy_write_struct(p->png ? &p->png : NULL, p->info ? &p->info : NULL);
    free(p);
}
