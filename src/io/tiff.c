/* TIFF images in bands through libtiff: striped and tiled files (classic
 * and BigTIFF) read a strip, or a row of tiles, at a time; written
 * striped.
 *
 * Samples: 1-bit grey (as PBM: 1 black), 8 and 16-bit unsigned integers
 * (TDCL_U8/U16), 32-bit floats (TDCL_F32, maxval 0: no scale), 1..4
 * channels interleaved (grey, grey+alpha, RGB, RGBA); MINISWHITE grey is
 * turned so that 0 is black. Planar (separate) files, palettes, CMYK,
 * signed and other integer widths are refused by name.
 *
 * libtiff needs to seek: a regular file is read in place, a pipe is read
 * into memory first. Errors come back through a per-handle handler into
 * the format's message buffer (libtiff 4.5's TIFFOpenOptions). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <tiffio.h>

#include "base/log.h"
#include "base/pool.h"
#include "io/image_int.h"

/* No TIFF codec expands data this much (Deflate stops near 1032:1, LZW
 * near 2700:1); a header claiming more pixel bytes per file byte lies. */
#define TIFF_MAX_RATIO 65536u

/* Strips of about this many bytes when writing. */
#define TIFF_STRIP_BYTES (256u << 10)

/* What libtiff reads from or writes to: a seekable FILE or memory. */
typedef struct tif_io {
    FILE *fp;
    const unsigned char *mem;
    uint64_t len, pos;
    unsigned char *owned; /* a pipe's bytes, read whole */
    char msg[256];
} tif_io;

static tmsize_t io_read(thandle_t h, void *buf, tmsize_t n)
{
    tif_io *io = h;
    if (io->fp) return (tmsize_t)fread(buf, 1, (size_t)n, io->fp);
    uint64_t left = io->pos < io->len ? io->len - io->pos : 0;
    size_t k = (uint64_t)n < left ? (size_t)n : (size_t)left;
    memcpy(buf, io->mem + io->pos, k);
    io->pos += k;
    return (tmsize_t)k;
}

static tmsize_t io_write(thandle_t h, void *buf, tmsize_t n)
{
    tif_io *io = h;
    return io->fp ? (tmsize_t)fwrite(buf, 1, (size_t)n, io->fp) : -1;
}

static toff_t io_seek(thandle_t h, toff_t off, int whence)
{
    tif_io *io = h;
    if (io->fp) {
        if (fseeko(io->fp, (off_t)off, whence)) return (toff_t)-1;
        return (toff_t)ftello(io->fp);
    }
    uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? io->pos : io->len;
    io->pos = base + off;
    return io->pos;
}

static int io_close(thandle_t h)
{
    (void)h;
    return 0;
}

static toff_t io_size(thandle_t h)
{
    tif_io *io = h;
    if (!io->fp) return io->len;
    off_t at = ftello(io->fp), end = (fseeko(io->fp, 0, SEEK_END), ftello(io->fp));
    fseeko(io->fp, at, SEEK_SET);
    return (toff_t)end;
}

static int io_map(thandle_t h, void **base, toff_t *size)
{
    tif_io *io = h;
    if (io->fp) return 0;
    *base = (void *)(uintptr_t)io->mem;
    *size = io->len;
    return 1;
}

static void io_unmap(thandle_t h, void *base, toff_t size)
{
    (void)h;
    (void)base;
    (void)size;
}

static int on_error(TIFF *t, void *user, const char *module, const char *fmt, va_list ap)
{
    tif_io *io = user;
    (void)t;
    (void)module;
    vsnprintf(io->msg, sizeof io->msg, fmt, ap);
    return 1;
}

static int on_warning(TIFF *t, void *user, const char *module, const char *fmt, va_list ap)
{
    char msg[256];
    (void)t;
    (void)user;
    vsnprintf(msg, sizeof msg, fmt, ap);
    tdcl_log(TDCL_LOG_DEBUG, "libtiff: %s: %s", module ? module : "", msg);
    return 1;
}

static TIFF *io_open(const char *name, const char *mode, tif_io *io)
{
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (!o) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(o, on_error, io);
    TIFFOpenOptionsSetWarningHandlerExtR(o, on_warning, io);
    TIFF *t = TIFFClientOpenExt(name, mode, io, io_read, io_write, io_seek, io_close, io_size,
                                io_map, io_unmap, o);
    TIFFOpenOptionsFree(o);
    return t;
}

/* ---- reading ------------------------------------------------------------ */

/* A decoder of its own (libtiff handles are not shared between threads)
 * over the same bytes: a FILE of its own, or the memory. */
typedef struct tif_dec {
    TIFF *t;
    tif_io io;
    unsigned char *buf; /* one strip or tile */
    int fail;
} tif_dec;

typedef struct tiff_r {
    tif_dec *dec; /* ndec decoders; dec[0] also read the header */
    int ndec;
    int tiled, bits1, invert;
    uint32_t rps, tw, th; /* rows per strip; tile size */
    size_t pixb;          /* bytes per pixel (8 pixels a byte for 1-bit: 0) */
    size_t rowb;          /* bytes per file row */
    size_t chunkb;        /* bytes per strip or tile */
    unsigned char *band;  /* rows band0 .. band0 + nband - 1 of the file */
    int64_t band0, nband, bandcap;
} tiff_r;

static tdcl_status tif_fail(tdcl_img_reader *r, const tif_io *io, const char *what, tdcl_err *err)
{
    return tdcl_fail(err, TDCL_EPARSE, "%s: bad TIFF data: %s", r->name, *io->msg ? io->msg : what);
}

static tdcl_status refuse(tdcl_img_reader *r, const char *what, tdcl_err *err)
{
    return tdcl_fail(err, TDCL_EUNSUPPORTED,
                     "'%s' is a TIFF image of %s; tiledcl reads 1-bit, 8 and 16-bit unsigned and "
                     "32-bit float TIFF images of 1..4 interleaved channels (grey or RGB)",
                     r->name, what);
}

typedef struct tif_fields {
    uint32_t w, h;
    uint16_t spp, bps, fmt, photo, planar, comp;
} tif_fields;

static tdcl_status check_fields(tdcl_img_reader *r, TIFF *t, tif_fields *f, tdcl_err *err)
{
    char what[96];
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &f->w);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &f->h);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &f->spp);
    TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &f->bps);
    TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &f->fmt);
    TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &f->planar);
    TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &f->comp);
    if (!TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &f->photo))
        f->photo = f->spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    if (f->photo == PHOTOMETRIC_YCBCR && f->comp == COMPRESSION_JPEG) {
        TIFFSetField(t, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        f->photo = PHOTOMETRIC_RGB;
    }
    if (!f->w || !f->h)
        return tdcl_fail(err, TDCL_EPARSE, "%s: a TIFF image of no pixels", r->name);
    if (f->spp < 1 || f->spp > 4)
        return snprintf(what, sizeof what, "%u samples a pixel", f->spp), refuse(r, what, err);
    if (f->planar != PLANARCONFIG_CONTIG) return refuse(r, "separate planes", err);
    int grey = f->photo == PHOTOMETRIC_MINISBLACK || f->photo == PHOTOMETRIC_MINISWHITE;
    if (!(grey && f->spp <= 2) && !(f->photo == PHOTOMETRIC_RGB && f->spp >= 3))
        return snprintf(what, sizeof what, "photometric %u with %u samples", f->photo, f->spp),
               refuse(r, what, err);
    int ok = (f->fmt == SAMPLEFORMAT_UINT && (f->bps == 8 || f->bps == 16)) ||
             (f->fmt == SAMPLEFORMAT_UINT && f->bps == 1 && f->spp == 1) ||
             (f->fmt == SAMPLEFORMAT_IEEEFP && f->bps == 32);
    if (!ok)
        return snprintf(what, sizeof what, "%u-bit %s samples", f->bps,
                        f->fmt == SAMPLEFORMAT_IEEEFP ? "float"
                        : f->fmt == SAMPLEFORMAT_INT  ? "signed"
                                                      : "unsigned"),
               refuse(r, what, err);
    double raw = (double)f->w * f->h * f->spp * f->bps / 8;
    int64_t size = r->src.size >= 0 ? r->src.size : -1;
    if (size >= 0 && raw > (double)TIFF_MAX_RATIO * (double)size + (16 << 20))
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s: header claims %ux%u pixels, more than a file of %" PRId64
                         " bytes can hold compressed",
                         r->name, f->w, f->h, size);
    return TDCL_OK;
}

static tdcl_status layout(tdcl_img_reader *r, tiff_r *p, TIFF *t, const tif_fields *f,
                          tdcl_err *err)
{
    p->bits1 = f->bps == 1;
    p->invert = f->photo == PHOTOMETRIC_MINISWHITE;
    if (p->invert && f->fmt == SAMPLEFORMAT_IEEEFP) return refuse(r, "float MINISWHITE", err);
    p->pixb = (size_t)f->spp * f->bps / 8;
    p->rowb = p->bits1 ? (f->w + 7u) / 8u : (size_t)f->w * p->pixb;
    p->tiled = TIFFIsTiled(t);
    if (p->tiled) {
        TIFFGetField(t, TIFFTAG_TILEWIDTH, &p->tw);
        TIFFGetField(t, TIFFTAG_TILELENGTH, &p->th);
        if (p->bits1) return refuse(r, "1-bit tiles", err);
        if (!p->tw || !p->th) return tdcl_fail(err, TDCL_EPARSE, "%s: bad TIFF tile size", r->name);
        p->chunkb = (size_t)TIFFTileSize(t);
    } else {
        TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &p->rps);
        if (!p->rps || p->rps > f->h) p->rps = f->h;
        p->chunkb = (size_t)TIFFStripSize(t);
    }
    if (!p->chunkb) return tif_fail(r, &p->dec[0].io, "no strip or tile size", err);
    r->info = (tdcl_img_info){.width = f->w,
                              .height = f->h,
                              .channels = f->spp,
                              .dtype = f->bps == 32   ? TDCL_F32
                                       : f->bps == 16 ? TDCL_U16
                                                      : TDCL_U8,
                              .maxval = f->bps == 32 ? 0
                                        : p->bits1   ? 1
                                                     : (1 << f->bps) - 1,
                              .kind = img_kind_tiff,
                              .file_maxval = f->bps == 32 ? 0 : (1 << f->bps) - 1};
    return TDCL_OK;
}

static tdcl_status tiff_rows(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err);
static void tiff_close(tdcl_img_reader *r);
static const img_rops tiff_ops = {tiff_rows, tiff_close};

/* Strips and tiles are decoded by this many threads at most: one for a
 * small image (opening decoders costs more than it saves), and no more
 * than keep 256 MiB of strips in flight. */
static int decoders_wanted(const tdcl_img_reader *r, const tiff_r *p)
{
    int want = r->opts.threads;
    uint64_t bytes = (uint64_t)r->info.height * p->rowb;
    uint64_t chunks = p->tiled ? (uint64_t)(r->info.width + p->tw - 1) / p->tw
                               : (uint64_t)(r->info.height + p->rps - 1) / p->rps;
    if (bytes < (4u << 20) || chunks < 2) return 1;
    int n = tdcl_pool_size(want, want > 0 ? TDCL_POOL_MAX : 16);
    uint64_t fit = ((uint64_t)256 << 20) / p->chunkb;
    if ((uint64_t)n > fit) n = fit ? (int)fit : 1;
    return (uint64_t)n > chunks ? (int)chunks : n;
}

/* More decoders over the same file, each with a FILE of its own. */
static void open_more(tdcl_img_reader *r, tiff_r *p, const char *path)
{
    int n = decoders_wanted(r, p);
    for (int k = 1; k < n; k++) {
        tif_dec *d = &p->dec[k];
        d->io = (tif_io){.mem = p->dec[0].io.mem, .len = p->dec[0].io.len};
        if (path && !(d->io.fp = fopen(path, "rb"))) break;
        if (!(d->t = io_open(r->name, "r", &d->io)) || !(d->buf = malloc(p->chunkb))) {
            if (d->t) TIFFCleanup(d->t);
            if (d->io.fp) fclose(d->io.fp);
            memset(d, 0, sizeof *d);
            break;
        }
        p->ndec = k + 1;
    }
}

/* Rows of the band: a row of tiles, or one strip per decoder. */
static tdcl_status alloc_band(tdcl_img_reader *r, tiff_r *p, tdcl_err *err)
{
    size_t stride = p->rowb;
    if (p->tiled) {
        stride = (size_t)p->tw * ((size_t)(r->info.width + p->tw - 1) / p->tw) * p->pixb;
        p->bandcap = p->th;
    } else {
        p->bandcap = (int64_t)p->rps * p->ndec;
    }
    /* a strip holds whole rows, the last one no more than the others */
    size_t bytes = p->tiled ? stride * p->th : p->chunkb * (size_t)p->ndec;
    /* tile sizes are the header's word, apart from the image's: held to
     * what the file can hold, as the image is (check_fields) */
    double most = (double)TIFF_MAX_RATIO * (double)r->src.size + (16 << 20);
    if (r->src.size >= 0 && ((double)bytes > most || (double)p->chunkb > most))
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s: header claims %s of %zu bytes, more than a file of %" PRId64
                         " bytes can hold compressed",
                         r->name, p->tiled ? "tiles" : "strips", p->chunkb, (int64_t)r->src.size);
    for (int k = 0; k < p->ndec; k++)
        if (!p->dec[k].buf && !(p->dec[k].buf = malloc(p->chunkb))) bytes = SIZE_MAX;
    if (bytes == SIZE_MAX || !(p->band = malloc(bytes)))
        return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory for a band of %lld rows", r->name,
                         (long long)p->bandcap);
    return TDCL_OK;
}

tdcl_status img_tiff_open(tdcl_img_reader *r, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const char *path = r->path;
    tiff_r *p = calloc(1, sizeof *p);
    if (!p) return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory", r->name);
    r->fmt = p;
    r->ops = &tiff_ops;
    if (!(p->dec = calloc(TDCL_POOL_MAX, sizeof *p->dec)))
        return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory", r->name);
    tif_dec *d = &p->dec[0];
    p->ndec = 1;
    if (r->src.fp && r->src.size >= 0) {
        d->io.fp = r->src.fp; /* libtiff reads the header where the file stands */
        if (fseeko(d->io.fp, 0, SEEK_SET))
            return tdcl_fail(err, TDCL_EIO, "cannot read '%s': %s", r->name, strerror(errno));
    } else if (r->src.fp) {
        TDCL_TRY(img_src_slurp(r, &d->io.owned, &d->io.len, err));
        d->io.mem = d->io.owned;
        path = NULL;
    } else {
        d->io.mem = r->src.p;
        d->io.len = r->src.n;
        path = NULL;
    }
    if (!(d->t = io_open(r->name, "r", &d->io))) {
        st = tif_fail(r, &d->io, "cannot read the header", err);
        goto out;
    }
    tif_fields f = {0};
    TDCL_TRY(check_fields(r, d->t, &f, err));
    TDCL_TRY(layout(r, p, d->t, &f, err));
    if (path || d->io.mem) open_more(r, p, path);
    TDCL_TRY(alloc_band(r, p, err));
    p->band0 = -1;
out:
    return st;
}

static void tiff_close(tdcl_img_reader *r)
{
    tiff_r *p = r->fmt;
    if (!p) return;
    for (int k = 0; p->dec && k < TDCL_POOL_MAX; k++) {
        tif_dec *d = &p->dec[k];
        if (d->t) TIFFCleanup(d->t);
        if (k && d->io.fp) fclose(d->io.fp);
        free(d->buf);
        free(d->io.owned);
    }
    free(p->dec);
    free(p->band);
    free(p);
}

/* One band: the strip holding row y, or the row of tiles holding it. */
typedef struct band_job {
    tdcl_img_reader *r;
    tiff_r *p;
    uint32_t chunk0, nchunk; /* strips, or tiles across (tiled) */
    int64_t y0;
} band_job;

/* Decoder i decodes chunks i, i + ndec, ... of the band into place. */
static void band_part(void *arg, int i)
{
    band_job *b = arg;
    tiff_r *p = b->p;
    tif_dec *d = &p->dec[i];
    int64_t w = b->r->info.width;
    size_t stride =
        p->tiled ? (size_t)p->tw * ((size_t)(w + p->tw - 1) / p->tw) * p->pixb : p->rowb;
    for (uint32_t c = (uint32_t)i; c < b->nchunk && !d->fail; c += (uint32_t)p->ndec) {
        if (!p->tiled) { /* strip c of the band straight into its rows */
            unsigned char *at = p->band + (size_t)c * p->rps * p->rowb;
            if (TIFFReadEncodedStrip(d->t, b->chunk0 + c, at, (tmsize_t)p->chunkb) < 0) d->fail = 1;
            continue;
        }
        uint32_t tile = TIFFComputeTile(d->t, c * p->tw, (uint32_t)b->y0, 0, 0);
        if (TIFFReadEncodedTile(d->t, tile, d->buf, (tmsize_t)p->chunkb) < 0) {
            d->fail = 1;
            continue;
        }
        size_t tb = (size_t)p->tw * p->pixb;
        for (uint32_t y = 0; y < p->th; y++)
            memcpy(p->band + y * stride + c * tb, d->buf + y * tb, tb);
    }
}

static tdcl_status load_band(tdcl_img_reader *r, tiff_r *p, int64_t y, tdcl_err *err)
{
    band_job b = {.r = r, .p = p};
    if (p->tiled) {
        b.y0 = y / p->th * p->th;
        b.chunk0 = 0;
        b.nchunk = (uint32_t)((r->info.width + p->tw - 1) / p->tw);
        p->nband = r->info.height - b.y0 < p->th ? r->info.height - b.y0 : p->th;
    } else {
        b.chunk0 = (uint32_t)(y / p->rps);
        b.y0 = (int64_t)b.chunk0 * p->rps;
        int64_t left = (r->info.height - b.y0 + p->rps - 1) / p->rps;
        b.nchunk = (uint32_t)(left < p->ndec ? left : p->ndec);
        p->nband = r->info.height - b.y0 < p->bandcap ? r->info.height - b.y0 : p->bandcap;
    }
    int n = p->ndec < (int)b.nchunk ? p->ndec : (int)b.nchunk;
    if (n > 1)
        tdcl_pool_run(n, band_part, &b);
    else
        band_part(&b, 0);
    for (int k = 0; k < n; k++)
        if (p->dec[k].fail) {
            p->dec[k].fail = 0;
            p->band0 = -1;
            return tif_fail(r, &p->dec[k].io, "cannot decode a strip or tile", err);
        }
    p->band0 = b.y0;
    return TDCL_OK;
}

static void put_row(const tdcl_img_reader *r, const tiff_r *p, const unsigned char *src,
                    unsigned char *dst)
{
    size_t w = (size_t)r->info.width, n = w * (size_t)r->info.channels;
    if (p->bits1) {
        /* 1 black: MINISWHITE stores black as 1, MINISBLACK as 0 */
        for (size_t j = 0; j < w; j++)
            dst[j] = (unsigned char)(((src[j / 8] >> (7 - j % 8)) & 1u) ^ !p->invert);
    } else if (!p->invert) {
        memcpy(dst, src, n * tdcl_dtype_size(r->info.dtype));
    } else if (r->info.dtype == TDCL_U8) {
        for (size_t k = 0; k < n; k++)
            dst[k] = (unsigned char)(255 - src[k]);
    } else {
        const uint16_t *s16 = (const uint16_t *)(const void *)src;
        uint16_t *d16 = (uint16_t *)(void *)dst;
        for (size_t k = 0; k < n; k++)
            d16[k] = (uint16_t)(65535 - s16[k]);
    }
    /* alpha is never inverted */
    if (p->invert && !p->bits1 && r->info.channels == 2) {
        for (size_t j = 0; j < w; j++)
            if (r->info.dtype == TDCL_U8)
                dst[2 * j + 1] = src[2 * j + 1];
            else
                memcpy(dst + 4 * j + 2, src + 4 * j + 2, 2);
    }
}

static tdcl_status tiff_rows(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err)
{
    tiff_r *p = r->fmt;
    size_t outb = (size_t)r->info.width * (size_t)r->info.channels * tdcl_dtype_size(r->info.dtype);
    size_t stride = p->tiled
                        ? (size_t)p->tw * ((size_t)(r->info.width + p->tw - 1) / p->tw) * p->pixb
                        : p->rowb;
    for (int64_t i = 0; i < nrows; i++) {
        int64_t y = r->row + i;
        if (p->band0 < 0 || y < p->band0 || y >= p->band0 + p->nband) {
            tdcl_status st = load_band(r, p, y, err);
            if (st) return st;
        }
        put_row(r, p, p->band + (size_t)(y - p->band0) * stride,
                (unsigned char *)dst + (size_t)i * outb);
    }
    return TDCL_OK;
}

/* ---- writing ------------------------------------------------------------ */

typedef struct tiff_w {
    TIFF *t;
    tif_io io;
} tiff_w;

static tdcl_status tiff_wrow(tdcl_img_writer *w, const void *samples, tdcl_err *err);
static tdcl_status tiff_finish(tdcl_img_writer *w, tdcl_err *err);
static void tiff_destroy(tdcl_img_writer *w);
static const img_wops tiff_wops = {tiff_wrow, tiff_finish, tiff_destroy};

static tdcl_status wfail(tdcl_img_writer *w, tiff_w *p, tdcl_err *err)
{
    return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", w->name,
                     *p->io.msg ? p->io.msg : strerror(errno));
}

tdcl_status img_tiff_create(tdcl_img_writer *w, tdcl_err *err)
{
    tiff_w *p = calloc(1, sizeof *p);
    if (!p) return tdcl_fail(err, TDCL_ENOMEM, "'%s': out of memory", w->name);
    w->fmt = p;
    w->ops = &tiff_wops;
    w->info.kind = img_kind_tiff;
    p->io.fp = w->out.fp;
    if (w->out.direct || fseeko(p->io.fp, 0, SEEK_CUR) != 0)
        return tdcl_fail(err, TDCL_EINVAL,
                         "'%s': a TIFF file needs a seekable output, not a stream", w->name);
    int ch = w->info.channels, bits = w->o.bits;
    uint64_t raw =
        (uint64_t)w->info.width * (uint64_t)w->info.height * (uint64_t)ch * (uint64_t)bits / 8;
    /* past 4 GiB, classic TIFF's 32-bit offsets cannot reach: BigTIFF */
    if (!(p->t = io_open(w->name, raw > (UINT64_C(4000) << 20) ? "w8" : "w", &p->io)))
        return wfail(w, p, err);
    TIFF *t = p->t;
    TIFFSetField(t, TIFFTAG_IMAGEWIDTH, (uint32_t)w->info.width);
    TIFFSetField(t, TIFFTAG_IMAGELENGTH, (uint32_t)w->info.height);
    TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)ch);
    TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, (uint16_t)bits);
    TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, bits == 32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
    TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(t, TIFFTAG_PHOTOMETRIC,
                 bits == 1 ? PHOTOMETRIC_MINISWHITE
                 : ch >= 3 ? PHOTOMETRIC_RGB
                           : PHOTOMETRIC_MINISBLACK);
    if (ch == 2 || ch == 4) {
        uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(t, TIFFTAG_EXTRASAMPLES, 1, &extra);
    }
    int how = w->o.compress    ? w->o.compress
              : w->o.level > 0 ? TDCL_IMG_COMPRESS_DEFLATE
                               : TDCL_IMG_COMPRESS_NONE;
    if (how != TDCL_IMG_COMPRESS_NONE) {
        if (how == TDCL_IMG_COMPRESS_LZW) {
            TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
        } else {
            TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
            TIFFSetField(t, TIFFTAG_ZIPQUALITY, w->o.level > 0 ? w->o.level : 6);
        }
        /* differences along the row compress smooth images far better */
        if (bits >= 8)
            TIFFSetField(t, TIFFTAG_PREDICTOR,
                         bits == 32 ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL);
    } else {
        TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
    }
    size_t rowb = bits == 1 ? ((size_t)w->info.width + 7) / 8
                            : (size_t)w->info.width * (size_t)ch * (size_t)bits / 8;
    uint32_t rps = (uint32_t)(TIFF_STRIP_BYTES / rowb);
    TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, rps ? rps : 1);
    return TDCL_OK;
}

static tdcl_status tiff_wrow(tdcl_img_writer *w, const void *samples, tdcl_err *err)
{
    tiff_w *p = w->fmt;
    const unsigned char *s = samples;
    unsigned char *packed = NULL;
    if (w->o.bits == 1) { /* MINISWHITE: 1 is black, as given */
        size_t n = (size_t)w->info.width;
        if (!(packed = calloc((n + 7) / 8, 1)))
            return tdcl_fail(err, TDCL_ENOMEM, "'%s': out of memory", w->name);
        for (size_t j = 0; j < n; j++)
            packed[j / 8] |= (unsigned char)((s[j] & 1u) << (7 - j % 8));
        s = packed;
    }
    int rc = TIFFWriteScanline(p->t, (void *)(uintptr_t)s, (uint32_t)w->row, 0);
    free(packed);
    return rc < 0 ? wfail(w, p, err) : TDCL_OK;
}

static tdcl_status tiff_finish(tdcl_img_writer *w, tdcl_err *err)
{
    tiff_w *p = w->fmt;
    int ok = TIFFWriteDirectory(p->t);
    TIFFCleanup(p->t);
    p->t = NULL;
    return ok ? TDCL_OK : wfail(w, p, err);
}

static void tiff_destroy(tdcl_img_writer *w)
{
    tiff_w *p = w->fmt;
    if (p && p->t) TIFFCleanup(p->t);
    free(p);
}
