/* Conversion between every file format tiledcl reads and writes: matrices
 * (.mtx, .mtx.gz, .npy), images (.pbm, .pgm, .png) and Life patterns (.rle,
 * .cells). Matrix to matrix goes through tdcl_matio_convert (the fast path);
 * anything involving an image or a pattern reads the whole input, maps it
 * and writes it atomically. */
#ifndef TDCL_CONVERT_H
#define TDCL_CONVERT_H

#include "io/matio.h"
#include "base/status.h"

typedef struct tdcl_convert_opts {
    const char *in, *out; /* "-" = stdin / Matrix Market on stdout */
    int dtype;            /* matrix outputs: a tdcl_dtype, or -1 to keep */
    int clip;             /* saturate values past the target's range (dtype, image
                             samples) instead of failing; NaN still fails */
    int quality;          /* JPEG outputs: 1..100, 0: the writer's default */
    int compress;         /* TIFF outputs: a tdcl_img_compress, 0: the writer's default */
    tdcl_matio_opts io;   /* Matrix Market threads, coordinate output, comment */
    int rep;              /* a tdcl_convert_rep: the output's representation */
} tdcl_convert_opts;

/* What a matrix output holds. AUTO: sparse inputs (.npz, coordinate Matrix
 * Market) stay sparse in .mtx, .npz and on stdout, dense inputs stay dense;
 * .npy and images are dense and .npz sparse whatever the input. */
typedef enum tdcl_convert_rep {
    TDCL_REP_AUTO,
    TDCL_REP_DENSE, /* made dense after a memory check naming the size */
    TDCL_REP_SPARSE /* a dense input's nonzeros */
} tdcl_convert_rep;

/* 1 if out names a format tdcl_convert can write. */
int tdcl_convert_out_known(const char *out);

/* Reads o->in and writes o->out by its extension:
 * - to .rle/.cells: the input read as a Life pattern (nonzero, black or dark
 *   cells alive), written with the pattern's rule or B3/S23;
 * - to .pbm/.pgm/.png: an image input as it is; a pattern as black (alive)
 *   on white; a matrix rounded and clamped to 8 bits (16 when a value
 *   exceeds 255; .pbm: nonzero is black);
 * - to .mtx/.npy/.npz/"-": a dense matrix input through tdcl_matio_convert,
 *   a sparse one (or any with TDCL_REP_SPARSE) through CSR (see
 *   tdcl_convert_rep); an image's samples or a pattern's 0/1 cells as an
 *   integer matrix (one channel only).
 * Sparse input on stdin is found by its banner and read without a copy.
 * Nothing is written unless the input was read whole. */
tdcl_status tdcl_convert(const tdcl_convert_opts *o, tdcl_err *err);

#endif
