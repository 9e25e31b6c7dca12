/* Image files whole, as tdcl_matrix values, over the image stream
 * (imgstream.h), and what a file is by its first bytes.
 *
 * A whole read from a regular file streams it (its size bounds what a
 * header may claim); from a pipe or standard input the file is read into
 * memory first, so that the claim is checked against it before the image
 * is allocated. */
#include "io/image.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "io/imgstream.h"

int tdcl_image_path(const char *path)
{
    static const char *const ext[] = {".pbm", ".pgm", ".ppm",  ".pam", ".pnm",
                                      ".png", ".jpg", ".jpeg", ".tif", ".tiff"};
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (tdcl_path_has_ext(path, ext[i])) return 1;
    return 0;
}

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
        {"\xff\xd8\xff", 3, "a JPEG image", 1, 1},
        {"GIF87a", 6, "a GIF image", 1, 0},
        {"GIF89a", 6, "a GIF image", 1, 0},
        {"II*\0", 4, "a TIFF image", 1, 1},
        {"MM\0*", 4, "a TIFF image", 1, 1},
        {"II+\0", 4, "a BigTIFF image", 1, 1},
        {"MM\0+", 4, "a BigTIFF image", 1, 1},
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
        what = "a BMP image", im = 1, rd = 1;
    if (!what && len >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0)
        what = "a WebP image", im = 1;
    /* Netpbm: "P1".."P7" and whitespace */
    if (!what && len >= 3 && p[0] == 'P' && p[1] >= '1' && p[1] <= '7' && pnm_space(p[2])) {
        static const char *const pnm[] = {"a PBM image", "a PGM image", "a colour PPM image",
                                          "a PBM image", "a PGM image", "a colour PPM image",
                                          "a PAM image"};
        what = pnm[p[1] - '1'];
        im = 1;
        rd = 1;
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

/* The whole image of an open reader into a new matrix. */
static tdcl_status read_all(tdcl_img_reader *r, const tdcl_img_info *info, tdcl_matrix *out,
                            int *maxval, tdcl_err *err)
{
    tdcl_matrix m = {0};
    tdcl_status st =
        tdcl_matrix_alloc(&m, info->height, info->width, info->channels, info->dtype, err);
    if (!st) st = tdcl_img_read_rows(r, m.data, info->height, err);
    if (st) {
        tdcl_matrix_free(&m);
        return st;
    }
    *out = m;
    if (maxval) *maxval = info->maxval;
    return TDCL_OK;
}

tdcl_status tdcl_image_read_mem(const char *name, const unsigned char *data, size_t len,
                                tdcl_matrix *out, int *maxval, tdcl_err *err)
{
    tdcl_img_reader *r = NULL;
    tdcl_img_info info;
    memset(out, 0, sizeof *out);
    tdcl_status st = tdcl_img_open_mem(name, data, len, &r, &info, err);
    if (!st) st = read_all(r, &info, out, maxval, err);
    tdcl_img_close(r);
    return st;
}

tdcl_status tdcl_image_read(const char *path, tdcl_matrix *out, int *maxval, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    struct stat sb;
    memset(out, 0, sizeof *out);
    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        char *data = NULL;
        size_t len = 0;
        TDCL_TRY(tdcl_read_file(path, &data, &len, err));
        st = tdcl_image_read_mem(tdcl_path_display(path), (const unsigned char *)data, len, out,
                                 maxval, err);
        free(data);
        goto out;
    }
    tdcl_img_reader *r = NULL;
    tdcl_img_info info;
    st = tdcl_img_open(path, &r, &info, err);
    if (!st) st = read_all(r, &info, out, maxval, err);
    tdcl_img_close(r);
out:
    return st;
}

tdcl_status tdcl_image_write(const char *path, const tdcl_matrix *m, int bits, tdcl_err *err)
{
    return tdcl_image_write_clip(path, m, bits, 0, err);
}

tdcl_status tdcl_image_write_clip(const char *path, const tdcl_matrix *m, int bits, int clip,
                                  tdcl_err *err)
{
    tdcl_img_wopts o = {.bits = bits, .clip = clip};
    return tdcl_image_write_opts(path, m, &o, err);
}

int tdcl_img_compress_parse(const char *s, int *out)
{
    static const char *const names[] = {"none", "deflate", "lzw"};
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = TDCL_IMG_COMPRESS_NONE + i;
            return 0;
        }
    return -1;
}

tdcl_status tdcl_image_write_opts(const char *path, const tdcl_matrix *m, const tdcl_img_wopts *o,
                                  tdcl_err *err)
{
    tdcl_img_writer *w = NULL;
    tdcl_img_info info = {0};
    if (!m || !m->data || m->rows < 1 || m->cols < 1)
        return tdcl_fail(err, TDCL_EINVAL, "'%s': no image to write", tdcl_path_display(path));
    info.width = m->cols;
    info.height = m->rows;
    info.channels = m->channels;
    info.dtype = m->dtype;
    tdcl_status st = tdcl_img_create_opts(path, &info, o, &w, err);
    if (!st) st = tdcl_img_write_rows(w, m->data, m->rows, err);
    if (st) {
        tdcl_img_abort(w);
        return st;
    }
    return tdcl_img_commit(w, err);
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
