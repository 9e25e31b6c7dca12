/* Images read and written in bands of rows, never held whole.
 *
 * A reader opens a file by its content (magic bytes), not its name, reads
 * the header only, then hands out rows on request; a writer takes rows as
 * they come and encodes them straight into a temporary file that commit
 * renames into place (tdcl_outfile), so a failure leaves nothing behind.
 *
 * Formats: PNG (libpng: 1..16-bit grey, grey+alpha, palette, RGB, RGBA;
 * interlaced files are the one case decoded whole, on the first read),
 * JPEG (libjpeg-turbo: grey and colour, 8-bit; written at quality 90 by
 * default, with a restart marker every MCU row; a file with restart
 * intervals of whole MCU rows is decoded by several threads), TIFF
 * (libtiff: striped or tiled, classic or BigTIFF, 1, 8 and 16-bit
 * unsigned and 32-bit float samples, decoded by several threads; written
 * striped), PBM, PGM, PPM (plain and raw) and PAM with any maxval.
 *
 * Samples are interleaved (RGBRGB...), rows top to bottom, in the dtype of
 * the info: TDCL_U8 (maxval 1 or 255) or TDCL_U16 (maxval 65535), in host
 * byte order. Netpbm samples of any other maxval are rescaled as netpbm's
 * pamdepth does, round(v * M / maxval) with M = 255 for maxval <= 255 and
 * 65535 above; PBM (and PAM BLACKANDWHITE) pixels read as 1 for black and 0
 * for white, with maxval 1. */
#ifndef TDCL_IMGSTREAM_H
#define TDCL_IMGSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "base/matrix.h"
#include "base/status.h"

typedef struct tdcl_img_info {
    int64_t width, height;
    int channels;     /* 1..4: grey, grey+alpha, RGB, RGBA */
    tdcl_dtype dtype; /* of the samples read_rows returns / write_rows takes */
    int maxval;       /* of the samples read_rows returns: 1 (PBM), 255 or 65535 */
    const char *kind; /* "a PNG image", "a PGM image", ... (static storage) */
    int file_maxval;  /* reading: the maxval the file states (a PGM's 1000) */
} tdcl_img_info;

typedef struct tdcl_img_reader tdcl_img_reader;

/* Opens path ("-" = stdin) by its content and reads the header into *info.
 * A file of another kind is refused naming what it is ("'x' is a GIF
 * image; ..."). Where the input's size is known (a regular file), a header
 * that claims more pixels than the file can hold is refused here. *r is
 * the caller's, for tdcl_img_close; NULL on failure. */
tdcl_status tdcl_img_open(const char *path, tdcl_img_reader **r, tdcl_img_info *info,
                          tdcl_err *err);

/* Options of a reader; zero is the default of each. */
typedef struct tdcl_img_ropts {
    int fast_dct; /* JPEG: the fast integer DCT (libjpeg's IFAST) instead of
                     the accurate one (ISLOW, as djpeg and Pillow decode) */
    int threads;  /* TIFF strips or tiles, JPEG stripes of restart intervals
                     decoded at once; 0: the cores, at most 16 (an image
                     under 4 MiB: 1) */
} tdcl_img_ropts;

/* tdcl_img_open with options (o NULL: defaults). */
tdcl_status tdcl_img_open_opts(const char *path, const tdcl_img_ropts *o, tdcl_img_reader **r,
                               tdcl_img_info *info, tdcl_err *err);

/* The same over data[0..len), which must stay valid until the close; name
 * is used in messages. */
tdcl_status tdcl_img_open_mem(const char *name, const unsigned char *data, size_t len,
                              tdcl_img_reader **r, tdcl_img_info *info, tdcl_err *err);

/* The next nrows rows into dst (nrows * width * channels samples of
 * info->dtype). Asking past the last row is TDCL_EINVAL. After the last
 * row the rest of the file is checked (a PNG's end chunk, garbage after a
 * Netpbm raster). */
tdcl_status tdcl_img_read_rows(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err);

/* Closes the input and frees r. Accepts NULL. */
void tdcl_img_close(tdcl_img_reader *r);

typedef struct tdcl_img_writer tdcl_img_writer;

/* Options of a writer beyond the bit depth; zero is the default of each. */
typedef struct tdcl_img_wopts {
    int bits;           /* 1 (PBM, PAM, TIFF), 8 or 16 bits per sample; 32: TIFF
                           float samples */
    int clip;           /* clamp samples past 0..2^bits-1 instead of failing */
    const char *format; /* "png", "pgm", ... where path has no image extension
                           (standard output); NULL: info->kind decides */
    int level;          /* PNG: zlib level 1..9, 0: the fast default; TIFF:
                           Deflate at that level, 0: uncompressed */
    int quality;        /* lossy formats: 1..100; 0: the default */
    int compress;       /* TIFF: a tdcl_img_compress; 0: by level */
} tdcl_img_wopts;

/* A TIFF writer's compression, where one is asked for. */
typedef enum tdcl_img_compress {
    TDCL_IMG_COMPRESS_AUTO, /* Deflate when level > 0, else none */
    TDCL_IMG_COMPRESS_NONE,
    TDCL_IMG_COMPRESS_DEFLATE, /* at level, 0: zlib's default (6) */
    TDCL_IMG_COMPRESS_LZW
} tdcl_img_compress;

/* Opens path for writing in the format its extension names (.png, .pbm,
 * .pgm, .ppm, .pam, .pnm, .jpg, .jpeg, .tif, .tiff), or for "-" and streams in the format of
 * info->kind; the image is width x height x channels, rows are given in
 * info->dtype (any dtype: floats are rounded to nearest; a sample that
 * rounds outside 0..2^bits-1, or NaN, fails with TDCL_ERANGE naming it).
 * PBM samples are 1 black, 0 white (nonzero after rounding is black). */
tdcl_status tdcl_img_create(const char *path, const tdcl_img_info *info, int bits,
                            tdcl_img_writer **w, tdcl_err *err);

/* The same with options (o NULL: defaults, 8 bits). */
tdcl_status tdcl_img_create_opts(const char *path, const tdcl_img_info *info,
                                 const tdcl_img_wopts *o, tdcl_img_writer **w, tdcl_err *err);

/* Encodes the next nrows rows of src (nrows * width * channels samples). */
tdcl_status tdcl_img_write_rows(tdcl_img_writer *w, const void *src, int64_t nrows, tdcl_err *err);

/* Finishes the file (every row must have been written), renames it into
 * place and frees w, whatever the outcome. */
tdcl_status tdcl_img_commit(tdcl_img_writer *w, tdcl_err *err);

/* Removes the temporary file and frees w. Accepts NULL. */
void tdcl_img_abort(tdcl_img_writer *w);

/* 1 if path's extension names a format tdcl_img_create writes. */
int tdcl_img_write_ext(const char *path);

#endif
