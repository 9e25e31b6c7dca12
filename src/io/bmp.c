/* BMP images, uncompressed 24 and 32-bit (BI_RGB, or BI_BITFIELDS with the
 * usual byte masks), read in bands; others are refused by name.
 *
 * Rows are stored bottom-up unless the height is negative, so a band of
 * rows top-down is one read of contiguous rows in reverse: a regular file
 * is read in place with a seek a band, a pipe is read into memory first.
 * 32-bit BI_RGB pixels are BGRX (Pillow and libvips ignore the fourth
 * byte); with BI_BITFIELDS and an alpha mask they are BGRA. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "io/image_int.h"

typedef struct bmp_r {
    uint64_t data;      /* offset of the pixel array */
    size_t stride;      /* bytes a stored row, padded to 4 */
    int bottom_up;      /* row 0 of the image is the last one stored */
    int bpp, alpha;     /* 24 or 32; 32-bit with alpha */
    unsigned char *mem; /* a pipe's bytes, from offset base */
    uint64_t mem_len;
    uint64_t base;      /* file offset of mem[0] */
    unsigned char *buf; /* rows of a band, as stored */
    size_t bufrows;
} bmp_r;

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static tdcl_status refuse(tdcl_img_reader *r, const char *what, unsigned v, tdcl_err *err)
{
    return tdcl_fail(err, TDCL_EUNSUPPORTED,
                     "'%s' is a BMP image of %s %u; tiledcl reads uncompressed 24 and 32-bit BMP "
                     "images",
                     r->name, what, v);
}

/* Masks of BI_BITFIELDS: the byte order BGR(A) only. */
static tdcl_status bitfields(tdcl_img_reader *r, bmp_r *p, const unsigned char *h, uint32_t hsize,
                             tdcl_err *err)
{
    if (hsize < 52 || p->bpp != 32) return refuse(r, "compression", 3, err);
    uint32_t rm = le32(h + 40), gm = le32(h + 44), bm = le32(h + 48);
    uint32_t am = hsize >= 56 ? le32(h + 52) : 0;
    if (rm != 0xff0000u || gm != 0xff00u || bm != 0xffu || (am && am != 0xff000000u))
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s' is a BMP image of colour masks %08x %08x %08x; tiledcl reads BGR "
                         "and BGRA byte orders",
                         r->name, rm, gm, bm);
    p->alpha = am != 0;
    return TDCL_OK;
}

static tdcl_status bmp_header(tdcl_img_reader *r, bmp_r *p, int64_t *w, int64_t *h, tdcl_err *err)
{
    unsigned char b[14 + 124];
    size_t n = img_src_ensure(&r->src, sizeof b);
    memcpy(b, r->src.p + r->src.pos, n);
    uint32_t hsize = n >= 18 ? le32(b + 14) : 0;
    if (n < 14 + 40 || hsize < 40 || hsize > 124 || n < 14 + hsize)
        return tdcl_fail(err, TDCL_EPARSE, "%s: expected a BMP info header of 40..124 bytes",
                         r->name);
    const unsigned char *ih = b + 14;
    p->data = le32(b + 10);
    *w = (int32_t)le32(ih + 4);
    int32_t hh = (int32_t)le32(ih + 8);
    p->bpp = le16(ih + 14);
    uint32_t comp = le32(ih + 16);
    if (p->bpp != 24 && p->bpp != 32) return refuse(r, "bits per pixel", (unsigned)p->bpp, err);
    if (comp == 3) {
        tdcl_status st = bitfields(r, p, ih, hsize, err);
        if (st) return st;
    } else if (comp != 0) {
        return refuse(r, "compression", comp, err);
    }
    if (*w < 1 || hh == 0 || hh == INT32_MIN)
        return tdcl_fail(err, TDCL_EPARSE, "%s: expected a BMP size of at least 1x1, got %lldx%d",
                         r->name, (long long)*w, hh);
    p->bottom_up = hh > 0;
    *h = hh > 0 ? hh : -(int64_t)hh;
    p->stride = ((size_t)*w * (size_t)(p->bpp / 8) + 3) & ~(size_t)3;
    return TDCL_OK;
}

static tdcl_status bmp_rows(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err);
static void bmp_close(tdcl_img_reader *r);
static const img_rops bmp_ops = {bmp_rows, bmp_close};

tdcl_status img_bmp_open(tdcl_img_reader *r, tdcl_err *err)
{
    bmp_r *p = calloc(1, sizeof *p);
    int64_t w = 0, h = 0;
    if (!p) return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory", r->name);
    r->fmt = p;
    r->ops = &bmp_ops;
    tdcl_status st = bmp_header(r, p, &w, &h, err);
    if (st) return st;
    uint64_t need = p->data + (uint64_t)h * p->stride;
    if (r->src.fp && r->src.size < 0) { /* a pipe: whole, to go backwards */
        p->base = img_src_tell(&r->src);
        st = img_src_slurp(r, &p->mem, &p->mem_len, err);
        if (st) return st;
    }
    uint64_t size = r->src.size >= 0 ? (uint64_t)r->src.size : p->base + p->mem_len;
    if (p->data < 14 || need > size)
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s: header claims %lldx%lld pixels at byte %" PRIu64
                         ", which need %" PRIu64 " bytes, but the file has %" PRIu64,
                         r->name, (long long)w, (long long)h, p->data, need, size);
    r->info = (tdcl_img_info){.width = w,
                              .height = h,
                              .channels = p->alpha ? 4 : 3,
                              .dtype = TDCL_U8,
                              .maxval = 255,
                              .kind = img_kind_bmp,
                              .file_maxval = 255};
    return TDCL_OK;
}

static void bmp_close(tdcl_img_reader *r)
{
    bmp_r *p = r->fmt;
    if (!p) return;
    free(p->mem);
    free(p->buf);
    free(p);
}

/* Stored rows s0 .. s0 + n - 1 (file order), as bytes. */
static tdcl_status stored_rows(tdcl_img_reader *r, bmp_r *p, int64_t s0, int64_t n,
                               const unsigned char **rows, tdcl_err *err)
{
    uint64_t at = p->data + (uint64_t)s0 * p->stride;
    size_t bytes = (size_t)n * p->stride;
    img_src *s = &r->src;
    if (!s->fp) { /* memory: in place */
        *rows = s->p + at;
        return TDCL_OK;
    }
    if (p->mem) {
        *rows = p->mem + (at - p->base);
        return TDCL_OK;
    }
    if ((size_t)n > p->bufrows) {
        unsigned char *b = realloc(p->buf, bytes);
        if (!b) return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory for a band", r->name);
        p->buf = b;
        p->bufrows = (size_t)n;
    }
    if (fseeko(s->fp, (off_t)at, SEEK_SET) || fread(p->buf, 1, bytes, s->fp) != bytes)
        return tdcl_fail(err, TDCL_EIO, "cannot read '%s': %s", r->name,
                         ferror(s->fp) ? strerror(errno) : "the file is shorter than its header");
    *rows = p->buf;
    return TDCL_OK;
}

static tdcl_status bmp_rows(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err)
{
    bmp_r *p = r->fmt;
    int64_t y0 = r->row, h = r->info.height;
    int64_t s0 = p->bottom_up ? h - y0 - nrows : y0;
    const unsigned char *rows = NULL;
    tdcl_status st = stored_rows(r, p, s0, nrows, &rows, err);
    if (st) return st;
    size_t w = (size_t)r->info.width, ch = (size_t)r->info.channels, in = (size_t)p->bpp / 8;
    for (int64_t i = 0; i < nrows; i++) {
        const unsigned char *src = rows + (size_t)(p->bottom_up ? nrows - 1 - i : i) * p->stride;
        unsigned char *d = (unsigned char *)dst + (size_t)i * w * ch;
        for (size_t j = 0; j < w; j++) {
            d[j * ch] = src[j * in + 2];
            d[j * ch + 1] = src[j * in + 1];
            d[j * ch + 2] = src[j * in];
            if (ch == 4) d[j * ch + 3] = src[j * in + 3];
        }
    }
    return TDCL_OK;
}
