/* Image files: PBM (P1/P4), PGM (P2/P5, 8 and 16 bit), one-channel PAM (P7)
 * and PNG (grey,
 * grey+alpha, RGB, RGBA; 8 and 16 bit) through libpng.
 *
 * Images are tdcl_matrix values: rows = height, cols = width, channels =
 * 1..4, dtype TDCL_U8 (maxval <= 255, and PBM) or TDCL_U16. PBM pixels read
 * as 1 for black and 0 for white (so a Life pattern's live cells are black).
 * Readers check the claimed size against the file before allocating and name
 * "path:line" (text headers) or the path and byte offset on errors. */
#ifndef TDCL_IMAGE_H
#define TDCL_IMAGE_H

#include "base/matrix.h"
#include "base/status.h"
#include "io/imgstream.h"

/* 1 if path's extension is one of .pbm .pgm .pnm .png (any case). */
int tdcl_image_path(const char *path);

/* What the first len bytes at p say a file is ("a PNG image", "a JPEG
 * image", "a Matrix Market file", ...) for reading by content and for
 * naming what is refused; NULL when they match no format known here.
 * *image: an image format; *readable: one tiledcl reads (PNG, PBM, PGM,
 * PAM; a PAM's header decides). Either pointer may be NULL. */
const char *tdcl_file_kind(const unsigned char *p, size_t len, int *image, int *readable);

/* 1 if path is an image by its extension or, for a regular file, by its
 * first bytes (in any image format, read or not). */
int tdcl_image_file(const char *path);

/* Reads a PBM, PGM or PNG file ("-" = stdin), chosen by magic bytes. *out is
 * owned by the caller. *maxval, if non-NULL, receives the format's maximum
 * sample value (1 for PBM, the PGM maxval, 255 or 65535 for PNG). */
tdcl_status tdcl_image_read(const char *path, tdcl_matrix *out, int *maxval, tdcl_err *err);

/* The same from memory: data[0..len) holds the whole file, name is used in
 * messages. Nothing is kept of data after the call. */
tdcl_status tdcl_image_read_mem(const char *name, const unsigned char *data, size_t len,
                                tdcl_matrix *out, int *maxval, tdcl_err *err);

/* Writes m to path by extension (.pbm, .pgm, .png) through tdcl_outfile.
 * bits is 1 (.pbm: nonzero = black), 8 or 16 (.pgm/.png). Samples of any
 * dtype are rounded to nearest; one that rounds outside [0, 2^bits - 1],
 * or NaN, fails with TDCL_ERANGE naming it (nothing written). .pgm needs
 * channels == 1; .png takes 1..4 channels. */
tdcl_status tdcl_image_write(const char *path, const tdcl_matrix *m, int bits, tdcl_err *err);

/* The same; with clip, samples past the range are clamped to it (NaN still
 * fails). */
tdcl_status tdcl_image_write_clip(const char *path, const tdcl_matrix *m, int bits, int clip,
                                  tdcl_err *err);

/* "none", "deflate" or "lzw" to a tdcl_img_compress; 0 on success. */
int tdcl_img_compress_parse(const char *s, int *out);

/* The same with every writer option (bits, clip, quality, compression). */
tdcl_status tdcl_image_write_opts(const char *path, const tdcl_matrix *m, const tdcl_img_wopts *o,
                                  tdcl_err *err);

/* Grey samples (brightness 0..maxval; with 3 or 4 channels the mean of the
 * colours, alpha ignored) to PBM bits in a new one-channel TDCL_U8 matrix:
 * 1 (black) where the sample is below maxval / 2, else 0 (white). */
tdcl_status tdcl_image_grey_to_bits(const tdcl_matrix *grey, int maxval, tdcl_matrix *bits,
                                    tdcl_err *err);

/* PBM bits (1 black, 0 white; fractions, such as means of bits, are the
 * share of black) to grey samples maxval * (1 - v) in a new TDCL_F32
 * matrix: black 0, white maxval. */
tdcl_status tdcl_image_bits_to_grey(const tdcl_matrix *bits, int maxval, tdcl_matrix *grey,
                                    tdcl_err *err);

#endif
