/* The image stream: the byte source, opening by content, and the writer's
 * sample conversion; the formats live in png.c and pnm.c. */
#include "io/imgstream.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/image.h"
#include "io/image_int.h"

#define SRC_CAP ((size_t)1 << 16)

const char img_kind_png[] = "a PNG image", img_kind_jpeg[] = "a JPEG image",
           img_kind_tiff[] = "a TIFF image", img_kind_bmp[] = "a BMP image",
           img_kind_pbm[] = "a PBM image", img_kind_pgm[] = "a PGM image",
           img_kind_ppm[] = "a PPM image", img_kind_pam[] = "a PAM image";

int img_host_le(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* ---- the byte source ---------------------------------------------------- */

size_t img_src_ensure(img_src *s, size_t k)
{
    size_t left = s->n - s->pos;
    if (left >= k || !s->fp || s->eof) return left < k ? left : k;
    if (k > s->cap) k = s->cap;
    memmove(s->buf, s->p + s->pos, left);
    s->base += s->pos;
    s->p = s->buf;
    s->pos = 0;
    s->n = left;
    while (s->n < k && !s->eof) {
        size_t got = fread(s->buf + s->n, 1, s->cap - s->n, s->fp);
        s->n += got;
        if (got == 0) {
            s->eof = 1;
            if (ferror(s->fp)) s->ioerr = errno ? errno : EIO;
        }
    }
    return s->n < k ? s->n : k;
}

size_t img_src_read(img_src *s, void *dst, size_t n)
{
    unsigned char *d = dst;
    size_t done = 0;
    while (done < n) {
        size_t left = s->n - s->pos;
        if (!left) {
            /* large reads bypass the window */
            if (s->fp && !s->eof && n - done >= s->cap) {
                size_t want = n - done, got = fread(d + done, 1, want, s->fp);
                s->base += got;
                done += got;
                if (got == want) continue;
                s->eof = 1;
                if (ferror(s->fp)) s->ioerr = errno ? errno : EIO;
                break;
            }
            if (!img_src_ensure(s, s->cap)) break;
            continue;
        }
        size_t take = left < n - done ? left : n - done;
        memcpy(d + done, s->p + s->pos, take);
        s->pos += take;
        done += take;
    }
    return done;
}

int img_src_peek(img_src *s)
{
    if (s->pos == s->n && !img_src_ensure(s, 1)) return -1;
    return s->p[s->pos];
}

int img_src_getc(img_src *s)
{
    int c = img_src_peek(s);
    if (c >= 0) s->pos++;
    return c;
}

uint64_t img_src_tell(const img_src *s)
{
    return s->base + s->pos;
}

tdcl_status img_src_short(const img_src *s, const char *name, const char *where, tdcl_err *err)
{
    if (s->ioerr) return tdcl_fail(err, TDCL_EIO, "cannot read '%s': %s", name, strerror(s->ioerr));
    return tdcl_fail(err, TDCL_EPARSE, "%s: the file ends at byte %" PRIu64 ", %s", name,
                     img_src_tell(s), where);
}

tdcl_status img_src_slurp(tdcl_img_reader *r, unsigned char **data, uint64_t *len, tdcl_err *err)
{
    img_src *s = &r->src;
    size_t n = s->n - s->pos, cap = n > ((size_t)1 << 20) ? n : (size_t)1 << 20;
    unsigned char *buf = malloc(cap);
    if (!buf) return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory", r->name);
    memcpy(buf, s->p + s->pos, n);
    for (size_t got; !s->eof; n += got) {
        if (n == cap) {
            unsigned char *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory reading it whole", r->name);
            }
            buf = b;
        }
        got = fread(buf + n, 1, cap - n, s->fp);
        if (!got) s->eof = 1;
    }
    if (ferror(s->fp)) {
        free(buf);
        return tdcl_fail(err, TDCL_EIO, "cannot read '%s': %s", r->name, strerror(errno));
    }
    *data = buf;
    *len = n;
    return TDCL_OK;
}

/* ---- readers -------------------------------------------------------------- */

static tdcl_status refuse_kind(tdcl_img_reader *r, tdcl_err *err)
{
    int image = 0;
    size_t n = img_src_ensure(&r->src, 16);
    const char *what = tdcl_file_kind(r->src.p + r->src.pos, n, &image, NULL);
    if (r->src.ioerr) return img_src_short(&r->src, r->name, "", err);
    if (what && image)
        return tdcl_fail(
            err, TDCL_EUNSUPPORTED,
            "'%s' is %s; tiledcl reads PNG, JPEG, TIFF, BMP, PBM, PGM, PPM and PAM images", r->name,
            what);
    if (what) return tdcl_fail(err, TDCL_EPARSE, "'%s' is %s, not an image", r->name, what);
    return tdcl_fail(err, TDCL_EPARSE,
                     "%s: expected a PBM (P1/P4), PGM (P2/P5), PPM (P3/P6), PAM (P7), PNG, "
                     "JPEG, TIFF or BMP image, got %s",
                     r->name, n ? "unknown leading bytes" : "an empty file");
}

/* Picks the format by the first bytes and reads its header. */
static tdcl_status open_any(tdcl_img_reader *r, tdcl_img_info *info, tdcl_err *err)
{
    static const unsigned char png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    tdcl_status st;
    size_t n = img_src_ensure(&r->src, 16);
    const unsigned char *p = r->src.p + r->src.pos;
    if (n >= 8 && memcmp(p, png_magic, 8) == 0)
        st = img_png_open(r, err);
    else if (n >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff)
        st = img_jpeg_open(r, err);
    else if (n >= 4 && (memcmp(p, "II*\0", 4) == 0 || memcmp(p, "MM\0*", 4) == 0 ||
                        memcmp(p, "II+\0", 4) == 0 || memcmp(p, "MM\0+", 4) == 0))
        st = img_tiff_open(r, err);
    else if (n >= 10 && p[0] == 'B' && p[1] == 'M' && !p[6] && !p[7] && !p[8] && !p[9])
        st = img_bmp_open(r, err);
    else if (n >= 2 && p[0] == 'P' && p[1] >= '1' && p[1] <= '7')
        st = img_pnm_open(r, err);
    else
        st = refuse_kind(r, err);
    if (!st) *info = r->info;
    return st;
}

static tdcl_img_reader *reader_new(const char *name)
{
    tdcl_img_reader *r = calloc(1, sizeof *r);
    if (r && !(r->name = strdup(name))) {
        free(r);
        r = NULL;
    }
    if (r) r->src.size = -1;
    return r;
}

tdcl_status tdcl_img_open_mem(const char *name, const unsigned char *data, size_t len,
                              tdcl_img_reader **rp, tdcl_img_info *info, tdcl_err *err)
{
    tdcl_img_reader *r = reader_new(name);
    *rp = NULL;
    if (!r) return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory for an image reader", name);
    r->src.p = data;
    r->src.n = len;
    r->src.size = (int64_t)len;
    r->src.eof = 1;
    tdcl_status st = open_any(r, info, err);
    if (st)
        tdcl_img_close(r);
    else
        *rp = r;
    return st;
}

tdcl_status tdcl_img_open(const char *path, tdcl_img_reader **rp, tdcl_img_info *info,
                          tdcl_err *err)
{
    return tdcl_img_open_opts(path, NULL, rp, info, err);
}

tdcl_status tdcl_img_open_opts(const char *path, const tdcl_img_ropts *o, tdcl_img_reader **rp,
                               tdcl_img_info *info, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const char *name = tdcl_path_display(path);
    tdcl_img_reader *r = reader_new(name);
    *rp = NULL;
    if (!r) return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory for an image reader", name);
    img_src *s = &r->src;
    if (o) r->opts = *o;
    r->path = strcmp(path, "-") == 0 ? NULL : path;
    if (strcmp(path, "-") == 0) {
        s->fp = stdin;
    } else if (!(s->fp = fopen(path, "rb"))) {
        st = tdcl_fail(err, TDCL_EIO, "cannot open '%s': %s", path, strerror(errno));
        goto out;
    } else {
        s->own = 1;
    }
    struct stat sb;
    if (fstat(fileno(s->fp), &sb) == 0 && S_ISREG(sb.st_mode)) s->size = (int64_t)sb.st_size;
    s->cap = SRC_CAP;
    if (!(s->buf = malloc(s->cap))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory for a read buffer", name);
        goto out;
    }
    s->p = s->buf;
    TDCL_TRY(open_any(r, info, err));
    r->path = NULL;
    *rp = r;
    r = NULL;
out:
    tdcl_img_close(r);
    return st;
}

tdcl_status tdcl_img_read_rows(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err)
{
    if (nrows < 0 || nrows > r->info.height - r->row)
        return tdcl_fail(err, TDCL_EINVAL, "%s: asked for %lld rows from row %lld of %lld", r->name,
                         (long long)nrows, (long long)r->row, (long long)r->info.height);
    if (!nrows) return TDCL_OK;
    tdcl_status st = r->ops->rows(r, dst, nrows, err);
    if (!st) r->row += nrows;
    return st;
}

void tdcl_img_close(tdcl_img_reader *r)
{
    if (!r) return;
    if (r->ops && r->ops->close) r->ops->close(r);
    if (r->src.own) fclose(r->src.fp);
    free(r->src.buf);
    free(r->name);
    free(r);
}

/* ---- writers -------------------------------------------------------------- */

static const struct {
    const char *ext, *name;
    char kind; /* '4'..'7' Netpbm, 'p' PNG, 'n' PNM: PBM, PGM or PPM by the image */
} out_formats[] = {
    {".png", "png", 'p'},  {".pbm", "pbm", '4'},   {".pgm", "pgm", '5'},  {".ppm", "ppm", '6'},
    {".pam", "pam", '7'},  {".pnm", "pnm", 'n'},   {".jpg", "jpeg", 'j'}, {".jpeg", "jpeg", 'j'},
    {".tif", "tiff", 'T'}, {".tiff", "tiff", 'T'},
};
#define N_OUT_FORMATS (sizeof out_formats / sizeof out_formats[0])

int tdcl_img_write_ext(const char *path)
{
    for (size_t i = 0; i < N_OUT_FORMATS; i++)
        if (tdcl_path_has_ext(path, out_formats[i].ext)) return 1;
    return 0;
}

/* The format letter for path, else for o->format, else for info->kind. */
static char out_kind(const char *path, const tdcl_img_info *info, const tdcl_img_wopts *o)
{
    for (size_t i = 0; i < N_OUT_FORMATS; i++)
        if (tdcl_path_has_ext(path, out_formats[i].ext)) return out_formats[i].kind;
    for (size_t i = 0; o->format && i < N_OUT_FORMATS; i++)
        if (strcmp(o->format, out_formats[i].name) == 0) return out_formats[i].kind;
    const char *k = info->kind;
    if (!k || o->format) return 0;
    return strstr(k, "PNG")    ? 'p'
           : strstr(k, "JPEG") ? 'j'
           : strstr(k, "TIFF") ? 'T'
           : strstr(k, "PBM")  ? '4'
           : strstr(k, "PGM")  ? '5'
           : strstr(k, "PPM")  ? '6'
           : strstr(k, "PAM")  ? '7'
                               : 0;
}

static tdcl_status check_shape(const char *name, const tdcl_img_info *info, char kind, int bits,
                               tdcl_err *err)
{
    if (info->width < 1 || info->height < 1)
        return tdcl_fail(err, TDCL_EINVAL, "'%s': no image to write", name);
    if (info->width > INT32_MAX || info->height > INT32_MAX)
        return tdcl_fail(err, TDCL_ELIMIT, "'%s': a %lldx%lld image is past the formats' limit",
                         name, (long long)info->height, (long long)info->width);
    if (info->channels < 1 || info->channels > 4)
        return tdcl_fail(err, TDCL_EINVAL, "'%s': expected 1..4 channels, got %d", name,
                         info->channels);
    if (kind == '4' && bits != 1)
        return tdcl_fail(err, TDCL_EINVAL, "'%s': a PBM file holds 1-bit pixels, got bits=%d", name,
                         bits);
    if (bits == 1 && kind != '4' && !((kind == '7' || kind == 'T') && info->channels == 1))
        return tdcl_fail(err, TDCL_EINVAL,
                         "'%s': 1-bit pixels go to PBM or one-channel PAM or TIFF files, not %s",
                         name,
                         kind == 'p'   ? "PNG"
                         : kind == 'j' ? "JPEG"
                                       : "PGM or PPM");
    if (bits == 32 && kind != 'T')
        return tdcl_fail(err, TDCL_EINVAL,
                         "'%s': float samples (bits=32) go to TIFF files, got another format",
                         name);
    if (bits != 1 && bits != 8 && bits != 16 && bits != 32)
        return tdcl_fail(err, TDCL_EINVAL, "'%s': expected 8 or 16 bits per sample, got %d", name,
                         bits);
    if ((kind == '4' || kind == '5') && info->channels != 1)
        return tdcl_fail(err, TDCL_EINVAL,
                         "'%s': PBM and PGM hold one channel, got %d (write .ppm, .pam or .png "
                         "instead)",
                         name, info->channels);
    if (kind == 'j' && (bits != 8 || (info->channels != 1 && info->channels != 3)))
        return tdcl_fail(err, TDCL_EINVAL,
                         "'%s': JPEG holds 8-bit grey or RGB, got %d bits and %d channels (write "
                         ".png instead)",
                         name, bits, info->channels);
    if (kind == '6' && info->channels != 3)
        return tdcl_fail(err, TDCL_EINVAL,
                         "'%s': PPM holds three channels (RGB), got %d (write .pam or .png "
                         "instead)",
                         name, info->channels);
    return TDCL_OK;
}

static tdcl_status pick_format(const char *path, const char *name, const tdcl_img_info *info,
                               const tdcl_img_wopts *o, char *kind, tdcl_err *err)
{
    *kind = out_kind(path, info, o);
    if (*kind == 'n')
        *kind = o->bits == 1 ? '4' : info->channels == 1 ? '5' : info->channels == 3 ? '6' : '7';
    if (!*kind && o->format)
        return tdcl_fail(
            err, TDCL_EINVAL,
            "'%s': unknown image format '%s' (expected png, jpeg, tiff, pbm, pgm, ppm, "
            "pam or pnm)",
            name, o->format);
    if (!*kind)
        return tdcl_fail(err, TDCL_EINVAL,
                         "'%s': expected an image extension .png, .jpg, .jpeg, .tif, .tiff, .pbm, "
                         ".pgm, .ppm, "
                         ".pam or .pnm",
                         name);
    return check_shape(name, info, *kind, o->bits, err);
}

tdcl_status tdcl_img_create_opts(const char *path, const tdcl_img_info *info,
                                 const tdcl_img_wopts *o, tdcl_img_writer **wp, tdcl_err *err)
{
    static const tdcl_img_wopts defaults = {.bits = 8};
    tdcl_status st = TDCL_OK;
    const char *name = path && strcmp(path, "-") != 0 ? path : "<stdout>";
    tdcl_img_writer *w = NULL;
    char kind;
    *wp = NULL;
    if (!o) o = &defaults;
    TDCL_TRY(pick_format(path, name, info, o, &kind, err));
    size_t per = o->bits == 32 ? 4 : o->bits == 16 ? 2 : 1;
    if (!(w = calloc(1, sizeof *w)) || !(w->name = strdup(name)) ||
        !(w->conv = malloc((size_t)info->width * (size_t)info->channels * per))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "'%s': out of memory for an image writer", name);
        goto out;
    }
    w->out.slot = -1;
    w->info = *info;
    w->o = *o;
    TDCL_TRY(tdcl_out_open(&w->out, path, err));
    if (kind == 'p')
        TDCL_TRY(img_png_create(w, err));
    else if (kind == 'j')
        TDCL_TRY(img_jpeg_create(w, err));
    else if (kind == 'T')
        TDCL_TRY(img_tiff_create(w, err));
    else
        TDCL_TRY(img_pnm_create(w, kind, err));
    *wp = w;
    w = NULL;
out:
    tdcl_img_abort(w);
    return st;
}

tdcl_status tdcl_img_create(const char *path, const tdcl_img_info *info, int bits,
                            tdcl_img_writer **w, tdcl_err *err)
{
    tdcl_img_wopts o = {.bits = bits};
    return tdcl_img_create_opts(path, info, &o, w, err);
}

/* Sample k of a row of dtype t as a double, or as an integer where exact. */
static double get_f64(const void *p, tdcl_dtype t, size_t k)
{
    switch (t) {
    case TDCL_F32:
        return ((const float *)p)[k];
    case TDCL_F64:
        return ((const double *)p)[k];
    case TDCL_I32:
        return ((const int32_t *)p)[k];
    case TDCL_I64:
        return (double)((const int64_t *)p)[k];
    case TDCL_U8:
        return ((const uint8_t *)p)[k];
    case TDCL_U16:
        return ((const uint16_t *)p)[k];
    }
    return 0;
}

static tdcl_status bad_sample(const tdcl_img_writer *w, const void *row, size_t k, int64_t i,
                              uint32_t maxv, tdcl_err *err)
{
    char where[96];
    size_t ch = (size_t)w->info.channels, px = k / ch;
    if (ch > 1)
        snprintf(where, sizeof where, "row %lld, column %zu, channel %zu", (long long)i + 1, px + 1,
                 k % ch + 1);
    else
        snprintf(where, sizeof where, "row %lld, column %zu", (long long)i + 1, px + 1);
    tdcl_dtype t = w->info.dtype;
    if (t == TDCL_I64)
        return tdcl_fail_param(err, TDCL_ERANGE, TDCL_PARAM_CLIP,
                               "'%s': value %" PRId64 " at %s is not a %d-bit sample (0..%u)",
                               w->name, ((const int64_t *)row)[k], where, w->o.bits, maxv);
    double v = get_f64(row, t, k);
    if (isnan(v))
        return tdcl_fail(err, TDCL_ERANGE, "'%s': NaN at %s has no pixel value", w->name, where);
    return tdcl_fail_param(err, TDCL_ERANGE, TDCL_PARAM_CLIP,
                           "'%s': value %.17g at %s is not a %d-bit sample (0..%u)", w->name, v,
                           where, w->o.bits, maxv);
}

/* One row of src into float samples (NaN and infinities are floats too;
 * a finite value past float's range is refused). */
static tdcl_status float_row(tdcl_img_writer *w, const void *row, int64_t i, tdcl_err *err)
{
    size_t n = (size_t)w->info.width * (size_t)w->info.channels;
    float *d = (float *)(void *)w->conv;
    for (size_t k = 0; k < n; k++) {
        double x = get_f64(row, w->info.dtype, k);
        d[k] = (float)x;
        if (isinf(d[k]) && !isinf(x))
            return tdcl_fail(err, TDCL_ERANGE,
                             "'%s': value %.17g at row %lld is past float's range", w->name, x,
                             (long long)i + 1);
    }
    return TDCL_OK;
}

/* One row of src into w->conv: rounded to nearest, checked or clamped
 * (PBM bits are always clamped: any value but NaN is a pixel). */
static tdcl_status convert_row(tdcl_img_writer *w, const void *row, int64_t i, tdcl_err *err)
{
    size_t n = (size_t)w->info.width * (size_t)w->info.channels;
    if (w->o.bits == 32) return float_row(w, row, i, err);
    uint32_t maxv = w->o.bits == 1 ? 1 : w->o.bits == 8 ? 255 : 65535;
    int clamp = w->o.clip || w->o.bits == 1;
    tdcl_dtype t = w->info.dtype;
    for (size_t k = 0; k < n; k++) {
        uint32_t v;
        if (t == TDCL_I64 || t == TDCL_I32 || t == TDCL_U8 || t == TDCL_U16) {
            int64_t x = t == TDCL_I64 ? ((const int64_t *)row)[k] : (int64_t)get_f64(row, t, k);
            if (!clamp && (x < 0 || x > (int64_t)maxv)) return bad_sample(w, row, k, i, maxv, err);
            v = x < 0 ? 0 : x > (int64_t)maxv ? maxv : (uint32_t)x;
        } else {
            double x = get_f64(row, t, k);
            if (isnan(x) || (!clamp && (x < -0.5 || x >= maxv + 0.5)))
                return bad_sample(w, row, k, i, maxv, err);
            v = !(x > 0) ? 0 : x >= maxv ? maxv : (uint32_t)floor(x + 0.5);
        }
        if (w->o.bits == 16)
            ((uint16_t *)w->conv)[k] = (uint16_t)v;
        else
            w->conv[k] = (unsigned char)v;
    }
    return TDCL_OK;
}

tdcl_status tdcl_img_write_rows(tdcl_img_writer *w, const void *src, int64_t nrows, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    if (nrows < 0 || nrows > w->info.height - w->row)
        return tdcl_fail(err, TDCL_EINVAL, "'%s': %lld rows given after row %lld of %lld", w->name,
                         (long long)nrows, (long long)w->row, (long long)w->info.height);
    size_t n = (size_t)w->info.width * (size_t)w->info.channels;
    size_t rowb = n * tdcl_dtype_size(w->info.dtype);
    /* samples already of the file's depth go as they are */
    int direct = (w->o.bits == 8 && w->info.dtype == TDCL_U8) ||
                 (w->o.bits == 32 && w->info.dtype == TDCL_F32) ||
                 (w->o.bits == 16 && w->info.dtype == TDCL_U16);
    for (int64_t i = 0; i < nrows; i++) {
        const unsigned char *row = (const unsigned char *)src + (size_t)i * rowb;
        if (!direct) TDCL_TRY(convert_row(w, row, w->row, err));
        TDCL_TRY(w->ops->row(w, direct ? row : w->conv, err));
        w->row++;
    }
out:
    return st;
}

static void writer_free(tdcl_img_writer *w)
{
    if (w->ops && w->ops->destroy) w->ops->destroy(w);
    free(w->conv);
    free(w->name);
    free(w);
}

tdcl_status tdcl_img_commit(tdcl_img_writer *w, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    if (w->row != w->info.height) {
        st = tdcl_fail(err, TDCL_EINVAL, "'%s': %lld of %lld rows written", w->name,
                       (long long)w->row, (long long)w->info.height);
        goto out;
    }
    TDCL_TRY(w->ops->finish(w, err));
    st = tdcl_out_commit(&w->out, err);
out:
    if (st) tdcl_out_abort(&w->out);
    writer_free(w);
    return st;
}

void tdcl_img_abort(tdcl_img_writer *w)
{
    if (!w) return;
    tdcl_out_abort(&w->out);
    writer_free(w);
}
