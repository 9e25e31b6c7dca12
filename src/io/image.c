/* Image files: the PBM/PGM readers and writers (plain and raw) and the PNG
 * reader and writer over libpng, all to and from tdcl_matrix.
 *
 * Readers take the whole file in memory (tdcl_read_file, so "-" works) and
 * check every size a header claims against the bytes that follow it before
 * allocating. Writers stream rows through tdcl_outfile so a failure never
 * leaves a partial file. */
#include "io/image.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "base/fileio.h"
#include "base/log.h"

/* Deflate cannot expand data by more than about 1032:1, so a PNG whose
 * header claims more pixel bytes than this many per file byte is lying. */
#define PNG_MAX_RATIO 1032u

int tdcl_image_path(const char *path)
{
    return tdcl_path_has_ext(path, ".pbm") || tdcl_path_has_ext(path, ".pgm") ||
           tdcl_path_has_ext(path, ".pnm") || tdcl_path_has_ext(path, ".png");
}

/* ---- PBM / PGM reading ---------------------------------------------- */

typedef struct pnm_in {
    const char *path; /* display name */
    const unsigned char *p;
    size_t len, pos;
    int line;
} pnm_in;

static int pnm_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* ---- what a file is, by its first bytes ------------------------------ */

const char *tdcl_file_kind(const unsigned char *p, size_t len, int *image, int *readable)
{
    static const struct {
        const char *magic;
        size_t n;
        const char *what;
        int image, readable;
    } kinds[] = {
        {"\x89PNG\r\n\x1a\n", 8, "a PNG image", 1, 1},
        {"\xff\xd8\xff", 3, "a JPEG image", 1, 0},
        {"GIF87a", 6, "a GIF image", 1, 0},
        {"GIF89a", 6, "a GIF image", 1, 0},
        {"II*\0", 4, "a TIFF image", 1, 0},
        {"MM\0*", 4, "a TIFF image", 1, 0},
        {"\x93NUMPY", 6, "a .npy array", 0, 0},
        {"%%MatrixMarket", 14, "a Matrix Market file", 0, 0},
        {"\x1f\x8b", 2, "gzip-compressed data", 0, 0},
        {"PK\3\4", 4, "a zip archive (numpy's .npz is one)", 0, 0},
    };
    int im = 0, rd = 0;
    const char *what = NULL;
    for (size_t i = 0; !what && i < sizeof kinds / sizeof kinds[0]; i++)
        if (len >= kinds[i].n && memcmp(p, kinds[i].magic, kinds[i].n) == 0) {
            what = kinds[i].what;
            im = kinds[i].image;
            rd = kinds[i].readable;
        }
    /* "BM", the file size, two reserved zero words; "RIFF", a size, "WEBP" */
    if (!what && len >= 14 && p[0] == 'B' && p[1] == 'M' && !p[6] && !p[7] && !p[8] && !p[9])
        what = "a BMP image", im = 1;
    if (!what && len >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0)
        what = "a WebP image", im = 1;
    /* Netpbm: "P1".."P7" and whitespace */
    if (!what && len >= 3 && p[0] == 'P' && p[1] >= '1' && p[1] <= '7' && pnm_space(p[2])) {
        static const char *const pnm[] = {"a PBM image", "a PGM image", "a colour PPM image",
                                          "a PBM image", "a PGM image", "a colour PPM image",
                                          "a PAM image"};
        what = pnm[p[1] - '1'];
        im = 1;
        rd = !strchr("36", p[1]); /* a PAM image: its header decides */
    }
    if (image) *image = im;
    if (readable) *readable = rd;
    return what;
}

int tdcl_image_file(const char *path)
{
    if (tdcl_image_path(path)) return 1;
    if (!path || strcmp(path, "-") == 0) return 0;
    unsigned char head[16];
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    size_t n = fread(head, 1, sizeof head, fp);
    fclose(fp);
    int image = 0;
    tdcl_file_kind(head, n, &image, NULL);
    return image;
}

/* Skips whitespace and '#' comments, counting lines. */
static void pnm_skip(pnm_in *in)
{
    while (in->pos < in->len) {
        unsigned char c = in->p[in->pos];
        if (c == '#') {
            while (in->pos < in->len && in->p[in->pos] != '\n')
                in->pos++;
        } else if (pnm_space(c)) {
            in->line += c == '\n';
            in->pos++;
        } else {
            break;
        }
    }
}

/* Copies the token at the read position into buf (printable, shortened) for
 * "got '...'" messages; "end of file" when nothing is left. */
static const char *pnm_token(const pnm_in *in, char *buf, size_t cap)
{
    if (in->pos >= in->len) return "end of file";
    size_t n = 0;
    buf[n++] = '\'';
    for (size_t i = in->pos; i < in->len && n + 5 < cap; i++) {
        unsigned char c = in->p[i];
        if (pnm_space(c) || (c == '#' && i > in->pos)) break;
        buf[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
        if (i - in->pos >= 20) {
            memcpy(buf + n, "...", 3);
            n += 3;
            break;
        }
    }
    buf[n++] = '\'';
    buf[n] = '\0';
    return buf;
}

static tdcl_status pnm_expected(pnm_in *in, tdcl_err *err, const char *what)
{
    char tok[40];
    return tdcl_fail(err, TDCL_EPARSE, "%s:%d: expected %s, got %s", in->path, in->line, what,
                     pnm_token(in, tok, sizeof tok));
}

/* Reads one decimal number in [lo, hi] after whitespace and comments. */
static tdcl_status pnm_uint(pnm_in *in, const char *what, uint32_t lo, uint32_t hi, uint32_t *v,
                            tdcl_err *err)
{
    pnm_skip(in);
    size_t i = in->pos;
    uint64_t x = 0;
    while (i < in->len && in->p[i] >= '0' && in->p[i] <= '9' && x <= hi) {
        x = x * 10 + (uint64_t)(in->p[i] - '0');
        i++;
    }
    int ends = i >= in->len || pnm_space(in->p[i]) || in->p[i] == '#';
    if (i == in->pos || !ends || x < lo || x > hi) return pnm_expected(in, err, what);
    *v = (uint32_t)x;
    in->pos = i;
    return TDCL_OK;
}

typedef struct pnm_header {
    char kind; /* '1', '2', '4' or '5' */
    uint32_t w, h, maxval;
    size_t npix; /* w * h, overflow-checked */
} pnm_header;

static tdcl_status pnm_read_header(pnm_in *in, pnm_header *hd, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    hd->kind = (char)in->p[1];
    in->pos = 2;
    if (in->pos < in->len && !pnm_space(in->p[in->pos]) && in->p[in->pos] != '#')
        return pnm_expected(in, err, "whitespace after the magic number");
    TDCL_TRY(pnm_uint(in, "a width 1..2147483647", 1, INT32_MAX, &hd->w, err));
    TDCL_TRY(pnm_uint(in, "a height 1..2147483647", 1, INT32_MAX, &hd->h, err));
    hd->maxval = 1;
    if (hd->kind == '2' || hd->kind == '5')
        TDCL_TRY(pnm_uint(in, "a maxval 1..65535", 1, 65535, &hd->maxval, err));
    TDCL_TRY(tdcl_matrix_bytes(hd->h, hd->w, 1, TDCL_U8, &hd->npix, err));
    if (hd->kind == '4' || hd->kind == '5') {
        /* raw data starts after exactly one whitespace character */
        if (in->pos >= in->len || !pnm_space(in->p[in->pos]))
            return pnm_expected(in, err, "one whitespace character before the pixel data");
        in->pos++;
    }
out:
    return st;
}

/* P7 (PAM): "WIDTH w", "HEIGHT h", "DEPTH d", "MAXVAL m" and "TUPLTYPE t"
 * lines up to "ENDHDR". One channel reads as P5 (*bw for BLACKANDWHITE,
 * whose 0 is black); more are refused by what they hold. */
static tdcl_status pam_read_header(pnm_in *in, pnm_header *hd, int *bw, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    uint32_t w = 0, h = 0, depth = 0, maxval = 0;
    char tupl[40] = "";
    in->pos = 2;
    for (;;) {
        pnm_skip(in);
        const unsigned char *t = in->p + in->pos;
        size_t n = 0;
        while (in->pos + n < in->len && !pnm_space(t[n]))
            n++;
#define PAM_KEY(k) (n == sizeof k - 1 && memcmp(t, k, n) == 0)
        if (PAM_KEY("ENDHDR")) {
            in->pos += n;
            break;
        }
        in->pos += n;
        if (PAM_KEY("WIDTH"))
            TDCL_TRY(pnm_uint(in, "a width 1..2147483647", 1, INT32_MAX, &w, err));
        else if (PAM_KEY("HEIGHT"))
            TDCL_TRY(pnm_uint(in, "a height 1..2147483647", 1, INT32_MAX, &h, err));
        else if (PAM_KEY("DEPTH"))
            TDCL_TRY(pnm_uint(in, "a depth 1..4", 1, 4, &depth, err));
        else if (PAM_KEY("MAXVAL"))
            TDCL_TRY(pnm_uint(in, "a maxval 1..65535", 1, 65535, &maxval, err));
        else if (PAM_KEY("TUPLTYPE")) { /* the rest of the line */
            size_t k = strlen(tupl);
            while (in->pos < in->len && (in->p[in->pos] == ' ' || in->p[in->pos] == '\t'))
                in->pos++;
            if (k && k < sizeof tupl - 1) tupl[k++] = ' ';
            while (in->pos < in->len && in->p[in->pos] != '\n' && in->p[in->pos] != '\r') {
                unsigned char c = in->p[in->pos++];
                if (k < sizeof tupl - 1) tupl[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
            }
            tupl[k] = '\0';
        } else {
            in->pos -= n;
            return pnm_expected(in, err, "WIDTH, HEIGHT, DEPTH, MAXVAL, TUPLTYPE or ENDHDR");
        }
#undef PAM_KEY
    }
    if (in->pos >= in->len || in->p[in->pos] != '\n')
        return pnm_expected(in, err, "a newline after ENDHDR");
    in->pos++;
    in->line++;
    if (!w || !h || !depth || !maxval)
        return tdcl_fail(err, TDCL_EPARSE, "%s: the PAM header lacks %s", in->path,
                         !w       ? "WIDTH"
                         : !h     ? "HEIGHT"
                         : !depth ? "DEPTH"
                                  : "MAXVAL");
    *bw = strcmp(tupl, "BLACKANDWHITE") == 0;
    if (depth != 1 || (*tupl && !*bw && strcmp(tupl, "GRAYSCALE") != 0))
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s' is a PAM image of %u channel%s (TUPLTYPE %s); tiledcl reads "
                         "one-channel PAM, PNG, PGM and PBM images",
                         in->path, depth, depth == 1 ? "" : "s", *tupl ? tupl : "not given");
    if (*bw && maxval != 1)
        return tdcl_fail(err, TDCL_EPARSE, "%s: a BLACKANDWHITE PAM image needs MAXVAL 1, got %u",
                         in->path, maxval);
    hd->kind = '5';
    hd->w = w;
    hd->h = h;
    hd->maxval = maxval;
    TDCL_TRY(tdcl_matrix_bytes(hd->h, hd->w, 1, TDCL_U8, &hd->npix, err));
out:
    return st;
}

/* Bytes the raster needs at least: the exact raw size, or for plain files
 * one character per pixel (P1) or a digit and a separator per sample (P2). */
static tdcl_status pnm_check_room(const pnm_in *in, const pnm_header *hd, size_t *raw,
                                  tdcl_err *err)
{
    size_t left = in->len - in->pos;
    size_t need;
    int bps = hd->maxval > 255 ? 2 : 1;
    if (hd->kind == '4') {
        size_t rowb = hd->w / 8u + (hd->w % 8u != 0);
        need = rowb * hd->h; /* <= npix, no overflow */
    } else if (hd->kind == '5') {
        if (hd->npix > SIZE_MAX / 2)
            return tdcl_fail(err, TDCL_ELIMIT, "%s: a %ux%u image does not fit in memory", in->path,
                             hd->w, hd->h);
        need = hd->npix * (size_t)bps;
    } else {
        need = hd->kind == '1' ? hd->npix : 2 * (hd->npix - 1) + 1;
    }
    *raw = need;
    if (left < need)
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s:%d: header claims %ux%u pixels, which need %s%zu bytes, but only "
                         "%zu bytes follow",
                         in->path, in->line, hd->w, hd->h,
                         (hd->kind == '4' || hd->kind == '5') ? "" : "at least ", need, left);
    if ((hd->kind == '4' || hd->kind == '5') && left > need)
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s: %zu bytes of garbage after the %zu bytes of pixel data (one image "
                         "per file)",
                         in->path, left - need, need);
    return TDCL_OK;
}

static tdcl_status pnm_plain_raster(pnm_in *in, const pnm_header *hd, tdcl_matrix *m, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    char what[64];
    snprintf(what, sizeof what, "a sample 0..%u", hd->maxval);
    for (size_t k = 0; k < hd->npix; k++) {
        uint32_t v;
        if (hd->kind == '1') {
            /* P1 digits need no separator: "0110" is four pixels */
            pnm_skip(in);
            if (in->pos >= in->len || (in->p[in->pos] != '0' && in->p[in->pos] != '1'))
                return pnm_expected(in, err, "a pixel '0' or '1'");
            v = (uint32_t)(in->p[in->pos++] - '0');
        } else {
            TDCL_TRY(pnm_uint(in, what, 0, hd->maxval, &v, err));
        }
        if (m->dtype == TDCL_U8)
            ((uint8_t *)m->data)[k] = (uint8_t)v;
        else
            ((uint16_t *)m->data)[k] = (uint16_t)v;
    }
    pnm_skip(in);
    if (in->pos < in->len) {
        snprintf(what, sizeof what, "end of file after %zu pixels", hd->npix);
        return pnm_expected(in, err, what);
    }
out:
    return st;
}

static tdcl_status pnm_raw_raster(pnm_in *in, const pnm_header *hd, tdcl_matrix *m, tdcl_err *err)
{
    const unsigned char *src = in->p + in->pos;
    if (hd->kind == '4') {
        size_t rowb = hd->w / 8u + (hd->w % 8u != 0);
        uint8_t *dst = m->data;
        for (size_t i = 0; i < hd->h; i++)
            for (size_t j = 0; j < hd->w; j++)
                dst[i * hd->w + j] = (src[i * rowb + j / 8] >> (7 - j % 8)) & 1u;
        return TDCL_OK;
    }
    for (size_t k = 0; k < hd->npix; k++) {
        uint32_t v = m->dtype == TDCL_U8 ? src[k] : ((uint32_t)src[2 * k] << 8 | src[2 * k + 1]);
        if (v > hd->maxval)
            return tdcl_fail(err, TDCL_EPARSE,
                             "%s: byte %zu: expected a sample 0..%u, got %u (pixel %zu, %zu)",
                             in->path, in->pos + k * (m->dtype == TDCL_U8 ? 1 : 2), hd->maxval, v,
                             k / hd->w, k % hd->w);
        if (m->dtype == TDCL_U8)
            ((uint8_t *)m->data)[k] = (uint8_t)v;
        else
            ((uint16_t *)m->data)[k] = (uint16_t)v;
    }
    return TDCL_OK;
}

static tdcl_status read_pnm(const char *path, const unsigned char *data, size_t len,
                            tdcl_matrix *out, int *maxval, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix m = {0};
    pnm_in in = {.path = path, .p = data, .len = len, .pos = 0, .line = 1};
    pnm_header hd;
    size_t raw;
    int bw = 0;
    if (data[1] == '7')
        TDCL_TRY(pam_read_header(&in, &hd, &bw, err));
    else
        TDCL_TRY(pnm_read_header(&in, &hd, err));
    TDCL_TRY(pnm_check_room(&in, &hd, &raw, err));
    TDCL_TRY(tdcl_matrix_alloc(&m, hd.h, hd.w, 1, hd.maxval > 255 ? TDCL_U16 : TDCL_U8, err));
    if (hd.kind == '1' || hd.kind == '2')
        TDCL_TRY(pnm_plain_raster(&in, &hd, &m, err));
    else
        TDCL_TRY(pnm_raw_raster(&in, &hd, &m, err));
    /* maxval 1 means bits to the callers, 1 black as in PBM; a grey image
     * of maxval 1 (PGM, PAM, black and white or not) has 0 black */
    if (hd.maxval == 1 && hd.kind != '1' && hd.kind != '4')
        for (size_t k = 0; k < hd.npix; k++)
            ((uint8_t *)m.data)[k] ^= 1;
    *out = m;
    m.data = NULL;
    if (maxval) *maxval = (int)hd.maxval;
out:
    tdcl_matrix_free(&m);
    return st;
}

/* ---- PNG reading ---------------------------------------------------- */

/* What the libpng callbacks share; it lives in the caller's frame so that
 * nothing the setjmp function changes sits in its own automatic variables. */
typedef struct png_job {
    const char *path;
    const unsigned char *data;
    size_t len, pos;
    FILE *fp; /* writing */
    char msg[256];
    png_bytep *rows;
    unsigned char *buf; /* writing: one row */
    tdcl_matrix m;
} png_job;

static void png_on_error(png_structp png, png_const_charp msg)
{
    png_job *j = png_get_error_ptr(png);
    snprintf(j->msg, sizeof j->msg, "%s", msg);
    png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg)
{
    png_job *j = png_get_error_ptr(png);
    tdcl_log(TDCL_LOG_DEBUG, "%s: libpng: %s", j->path, msg);
}

static void png_read_mem(png_structp png, png_bytep dst, size_t n)
{
    png_job *j = png_get_io_ptr(png);
    if (n > j->len - j->pos) {
        snprintf(j->msg, sizeof j->msg, "truncated: the file ends at byte %zu", j->len);
        png_longjmp(png, 1);
    }
    memcpy(dst, j->data + j->pos, n);
    j->pos += n;
}

static int host_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* Asks libpng for 8 or 16 bits of grey, grey+alpha, RGB or RGBA in host
 * order, whatever the file stores. */
static void png_set_transforms(png_structp png, png_infop info)
{
    int type = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
    if (type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (depth == 16 && host_little_endian()) png_set_swap(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
}

/* Refuses a header whose pixel data could not come out of this file. */
static int png_size_plausible(png_structp png, png_infop info, size_t file_len)
{
    double rowb = ceil((double)png_get_image_width(png, info) * png_get_channels(png, info) *
                       png_get_bit_depth(png, info) / 8.0);
    double raw = (rowb + 1) * png_get_image_height(png, info);
    return raw <= (double)PNG_MAX_RATIO * (double)file_len + 4096;
}

/* The part that may longjmp: everything it changes lives in *j. */
static tdcl_status png_read_body(png_structp png, png_infop info, png_job *j, tdcl_err *err)
{
    if (setjmp(png_jmpbuf(png)))
        return tdcl_fail(err, TDCL_EPARSE, "%s: bad PNG data: %s", j->path, j->msg);
    png_set_read_fn(png, j, png_read_mem);
    png_read_info(png, info);
    uint32_t w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if (!png_size_plausible(png, info, j->len))
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s: header claims %ux%u pixels, more than a file of %zu bytes can "
                         "hold compressed",
                         j->path, w, h, j->len);
    png_set_transforms(png, info);
    int ch = png_get_channels(png, info), depth = png_get_bit_depth(png, info);
    tdcl_status st = tdcl_matrix_alloc(&j->m, h, w, ch, depth == 16 ? TDCL_U16 : TDCL_U8, err);
    if (st) return st;
    j->rows = malloc(sizeof *j->rows * h);
    if (!j->rows)
        return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory for %u row pointers", j->path, h);
    size_t rowb = (size_t)w * (size_t)ch * (depth == 16 ? 2u : 1u);
    if (png_get_rowbytes(png, info) != rowb)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "%s: unexpected PNG row layout", j->path);
    for (uint32_t i = 0; i < h; i++)
        j->rows[i] = (png_bytep)j->m.data + (size_t)i * rowb;
    png_read_image(png, j->rows);
    png_read_end(png, NULL);
    if (j->pos < j->len)
        tdcl_log(TDCL_LOG_WARN, "%s: %zu bytes after the PNG end chunk ignored", j->path,
                 j->len - j->pos);
    return TDCL_OK;
}

static tdcl_status read_png(const char *path, const unsigned char *data, size_t len,
                            tdcl_matrix *out, int *maxval, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    png_job j = {.path = path, .data = data, .len = len};
    png_infop info = NULL;
    png_structp png =
        png_create_read_struct(PNG_LIBPNG_VER_STRING, &j, png_on_error, png_on_warning);
    if (png) info = png_create_info_struct(png);
    if (!png || !info) {
        st = tdcl_fail(err, TDCL_ENOMEM, "%s: cannot set up the PNG reader", path);
        goto out;
    }
    TDCL_TRY(png_read_body(png, info, &j, err));
    if (maxval) *maxval = j.m.dtype == TDCL_U16 ? 65535 : 255;
    *out = j.m;
    j.m.data = NULL;
out:
    png_destroy_read_struct(png ? &png : NULL, info ? &info : NULL, NULL);
    free(j.rows);
    tdcl_matrix_free(&j.m);
    return st;
}

/* ---- reading: dispatch by magic bytes -------------------------------- */

static const unsigned char png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

tdcl_status tdcl_image_read_mem(const char *name, const unsigned char *p, size_t len,
                                tdcl_matrix *out, int *maxval, tdcl_err *err)
{
    memset(out, 0, sizeof *out);
    if (len >= 8 && memcmp(p, png_magic, 8) == 0) return read_png(name, p, len, out, maxval, err);
    int image, readable;
    const char *what = tdcl_file_kind(p, len, &image, &readable);
    if (len >= 2 && p[0] == 'P' && p[1] && strchr("12457", p[1]) && (!what || readable))
        return read_pnm(name, p, len, out, maxval, err);
    if (what && image)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s' is %s; tiledcl reads PNG, PGM, PBM and one-channel PAM images", name,
                         what);
    if (what) return tdcl_fail(err, TDCL_EPARSE, "'%s' is %s, not an image", name, what);
    return tdcl_fail(err, TDCL_EPARSE,
                     "%s: expected a PBM (P1/P4), PGM (P2/P5) or PNG image, got %s", name,
                     len ? "unknown leading bytes" : "an empty file");
}

tdcl_status tdcl_image_read(const char *path, tdcl_matrix *out, int *maxval, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    char *data = NULL;
    size_t len = 0;
    memset(out, 0, sizeof *out);
    TDCL_TRY(tdcl_read_file(path, &data, &len, err));
    st = tdcl_image_read_mem(tdcl_path_display(path), (const unsigned char *)data, len, out, maxval,
                             err);
out:
    free(data);
    return st;
}

/* ---- writing ------------------------------------------------------- */

/* Sample k of m rounded to nearest and clamped to [0, maxv] (check_samples
 * has refused NaN, and values past the range unless clipping). */
static uint32_t sample_at(const tdcl_matrix *m, size_t k, uint32_t maxv)
{
    if (tdcl_dtype_is_int(m->dtype)) {
        int64_t v = tdcl_matrix_get_i64(m, k);
        return v < 0 ? 0 : v > (int64_t)maxv ? maxv : (uint32_t)v;
    }
    double v = tdcl_matrix_get_f64(m, k);
    if (!(v > 0)) /* negative, zero or NaN */
        return 0;
    return v >= maxv ? maxv : (uint32_t)floor(v + 0.5);
}

/* Packs row i of m into buf: bits 1 (PBM, MSB first), 8, or 16 big-endian. */
static void pack_row(const tdcl_matrix *m, int64_t i, int bits, unsigned char *buf)
{
    size_t n = (size_t)m->cols * (size_t)m->channels, k0 = (size_t)i * n;
    if (bits == 1) {
        memset(buf, 0, (n + 7) / 8);
        for (size_t k = 0; k < n; k++)
            buf[k / 8] |= (unsigned char)(sample_at(m, k0 + k, 1) << (7 - k % 8));
    } else if (bits == 8) {
        for (size_t k = 0; k < n; k++)
            buf[k] = (unsigned char)sample_at(m, k0 + k, 255);
    } else {
        for (size_t k = 0; k < n; k++) {
            uint32_t v = sample_at(m, k0 + k, 65535);
            buf[2 * k] = (unsigned char)(v >> 8);
            buf[2 * k + 1] = (unsigned char)v;
        }
    }
}

static size_t row_bytes(const tdcl_matrix *m, int bits)
{
    size_t n = (size_t)m->cols * (size_t)m->channels;
    return bits == 1 ? (n + 7) / 8 : n * (size_t)(bits / 8);
}

static tdcl_status write_pnm(tdcl_outfile *o, const tdcl_matrix *m, int bits, unsigned char *buf)
{
    size_t rb = row_bytes(m, bits);
    if (bits == 1)
        fprintf(o->fp, "P4\n%lld %lld\n", (long long)m->cols, (long long)m->rows);
    else
        fprintf(o->fp, "P5\n%lld %lld\n%d\n", (long long)m->cols, (long long)m->rows,
                bits == 8 ? 255 : 65535);
    for (int64_t i = 0; i < m->rows; i++) {
        pack_row(m, i, bits, buf);
        if (fwrite(buf, 1, rb, o->fp) != rb) return TDCL_EIO;
    }
    return TDCL_OK;
}

static void png_write_mem(png_structp png, png_bytep src, size_t n)
{
    png_job *j = png_get_io_ptr(png);
    if (fwrite(src, 1, n, j->fp) != n) {
        snprintf(j->msg, sizeof j->msg, "write failed: %s", strerror(errno));
        png_longjmp(png, 1);
    }
}

static void png_flush_noop(png_structp png)
{
    (void)png;
}

/* The part that may longjmp: everything it changes lives in *j. */
static tdcl_status png_write_body(png_structp png, png_infop info, png_job *j, const tdcl_matrix *m,
                                  int bits, tdcl_err *err)
{
    static const int types[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                 PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    if (setjmp(png_jmpbuf(png)))
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", j->path, j->msg);
    png_set_write_fn(png, j, png_write_mem, png_flush_noop);
    png_set_IHDR(png, info, (png_uint_32)m->cols, (png_uint_32)m->rows, bits, types[m->channels],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int64_t i = 0; i < m->rows; i++) {
        pack_row(m, i, bits, j->buf);
        png_write_row(png, j->buf);
    }
    png_write_end(png, NULL);
    return TDCL_OK;
}

static tdcl_status write_png(tdcl_outfile *o, const char *path, const tdcl_matrix *m, int bits,
                             unsigned char *buf, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    png_job j = {.path = path, .fp = o->fp, .buf = buf};
    png_infop info = NULL;
    png_structp png =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, &j, png_on_error, png_on_warning);
    if (png) info = png_create_info_struct(png);
    if (!png || !info) {
        st = tdcl_fail(err, TDCL_ENOMEM, "cannot set up the PNG writer for '%s'", path);
        goto out;
    }
    st = png_write_body(png, info, &j, m, bits, err);
out:
    png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
    return st;
}

typedef enum { IMG_PBM, IMG_PGM, IMG_PNG } img_kind;

/* Picks the format from the extension and checks bits and channels fit it. */
static tdcl_status write_kind(const char *path, const tdcl_matrix *m, int bits, img_kind *kind,
                              tdcl_err *err)
{
    if (tdcl_path_has_ext(path, ".pbm"))
        *kind = IMG_PBM;
    else if (tdcl_path_has_ext(path, ".pgm"))
        *kind = IMG_PGM;
    else if (tdcl_path_has_ext(path, ".pnm"))
        *kind = bits == 1 ? IMG_PBM : IMG_PGM;
    else if (tdcl_path_has_ext(path, ".png"))
        *kind = IMG_PNG;
    else
        return tdcl_fail(err, TDCL_EINVAL,
                         "'%s': expected an image extension .pbm, .pgm, .pnm or .png", path);
    if (!m || !m->data || m->rows < 1 || m->cols < 1)
        return tdcl_fail(err, TDCL_EINVAL, "'%s': no image to write", path);
    if (m->rows > INT32_MAX || m->cols > INT32_MAX)
        return tdcl_fail(err, TDCL_ELIMIT, "'%s': a %lldx%lld image is past the formats' limit",
                         path, (long long)m->rows, (long long)m->cols);
    if (*kind == IMG_PBM && bits != 1)
        return tdcl_fail(err, TDCL_EINVAL, "'%s': a PBM file holds 1-bit pixels, got bits=%d", path,
                         bits);
    if (*kind != IMG_PBM && bits != 8 && bits != 16)
        return tdcl_fail(err, TDCL_EINVAL, "'%s': expected 8 or 16 bits per sample, got %d", path,
                         bits);
    if (*kind != IMG_PNG && m->channels != 1)
        return tdcl_fail(err, TDCL_EINVAL,
                         "'%s': PBM and PGM hold one channel, got %d (write .png instead)", path,
                         m->channels);
    if (m->channels < 1 || m->channels > 4)
        return tdcl_fail(err, TDCL_EINVAL, "'%s': expected 1..4 channels, got %d", path,
                         m->channels);
    return TDCL_OK;
}

/* The first sample of m that a bits-deep image cannot hold (NaN anywhere;
 * with !clip, a value that rounds outside 0..2^bits - 1); TDCL_ERANGE
 * naming it, else TDCL_OK. PBM bits take any value but NaN. */
static tdcl_status check_samples(const char *path, const tdcl_matrix *m, int bits, int clip,
                                 tdcl_err *err)
{
    size_t n = tdcl_matrix_count(m);
    uint32_t maxv = bits == 1 ? 1 : bits == 8 ? 255 : 65535;
    int is_int = tdcl_dtype_is_int(m->dtype);
    for (size_t k = 0; k < n; k++) {
        char where[96];
        double v = tdcl_matrix_get_f64(m, k);
        int bad;
        if (is_int) {
            int64_t iv = tdcl_matrix_get_i64(m, k);
            bad = !clip && bits != 1 && (iv < 0 || iv > (int64_t)maxv);
        } else {
            bad = isnan(v) || (!clip && bits != 1 && (v < -0.5 || v >= maxv + 0.5));
        }
        if (!bad) continue;
        tdcl_matrix_where(m, k, where, sizeof where);
        if (is_int)
            return tdcl_fail_param(err, TDCL_ERANGE, TDCL_PARAM_CLIP,
                                   "'%s': value %" PRId64 " at %s is not a %d-bit sample (0..%u)",
                                   path, tdcl_matrix_get_i64(m, k), where, bits, maxv);
        if (isnan(v))
            return tdcl_fail(err, TDCL_ERANGE, "'%s': NaN at %s has no pixel value", path, where);
        return tdcl_fail_param(err, TDCL_ERANGE, TDCL_PARAM_CLIP,
                               "'%s': value %.17g at %s is not a %d-bit sample (0..%u)", path, v,
                               where, bits, maxv);
    }
    return TDCL_OK;
}

tdcl_status tdcl_image_write(const char *path, const tdcl_matrix *m, int bits, tdcl_err *err)
{
    return tdcl_image_write_clip(path, m, bits, 0, err);
}

tdcl_status tdcl_image_write_clip(const char *path, const tdcl_matrix *m, int bits, int clip,
                                  tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_outfile o = {.slot = -1};
    unsigned char *buf = NULL;
    img_kind kind = IMG_PNG;
    TDCL_TRY(write_kind(path, m, bits, &kind, err));
    TDCL_TRY(check_samples(path, m, bits, clip, err));
    buf = malloc(row_bytes(m, bits));
    if (!buf) {
        st = tdcl_fail(err, TDCL_ENOMEM, "'%s': out of memory for a row buffer", path);
        goto out;
    }
    TDCL_TRY(tdcl_out_open(&o, path, err));
    if (kind == IMG_PNG)
        TDCL_TRY(write_png(&o, path, m, bits, buf, err));
    else if (write_pnm(&o, m, bits, buf) != TDCL_OK)
        TDCL_TRY(tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", path, strerror(errno)));
    TDCL_TRY(tdcl_out_commit(&o, err));
out:
    if (st) tdcl_out_abort(&o);
    free(buf);
    return st;
}

tdcl_status tdcl_image_grey_to_bits(const tdcl_matrix *grey, int maxval, tdcl_matrix *bits,
                                    tdcl_err *err)
{
    tdcl_status st = tdcl_matrix_alloc(bits, grey->rows, grey->cols, 1, TDCL_U8, err);
    if (st) return st;
    size_t n = (size_t)(grey->rows * grey->cols), ch = (size_t)grey->channels;
    size_t colours = ch >= 3 ? 3 : 1; /* alpha is not looked at */
    uint8_t *b = bits->data;
    for (size_t k = 0; k < n; k++) {
        double sum = 0;
        for (size_t c = 0; c < colours; c++)
            sum += tdcl_matrix_get_f64(grey, k * ch + c);
        b[k] = sum / (double)colours < maxval / 2.0; /* dark: black, 1 */
    }
    return TDCL_OK;
}

tdcl_status tdcl_image_bits_to_grey(const tdcl_matrix *bits, int maxval, tdcl_matrix *grey,
                                    tdcl_err *err)
{
    tdcl_status st = tdcl_matrix_alloc(grey, bits->rows, bits->cols, bits->channels, TDCL_F32, err);
    if (st) return st;
    size_t n = tdcl_matrix_count(bits);
    float *g = grey->data;
    for (size_t k = 0; k < n; k++)
        g[k] = (float)(maxval * (1.0 - tdcl_matrix_get_f64(bits, k)));
    return TDCL_OK;
}
