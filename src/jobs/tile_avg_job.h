/* The tile-avg command's pipeline (module prefix tdcl_ta_job): matrix or
 * image file -> host -> device plan -> host -> matrix or image file. */
#ifndef TDCL_TILE_AVG_JOB_H
#define TDCL_TILE_AVG_JOB_H

#include <stddef.h>

#include "base/status.h"
#include "ops/tile_avg/tile_avg.h"
#include "dist/exec.h"

typedef struct tdcl_ta_job_opts {
    const char *in_path;  /* .mtx, .mtx.gz, .npy, or an image (.pgm, .pbm, .png); "-" stdin */
    const char *out_path; /* NULL or "-": Matrix Market on stdout; else by extension */
    tdcl_ta_opts ta;
    size_t max_bytes; /* refuse inputs whose dense size exceeds this (0: no limit) */
    int verify;       /* check against tdcl_ta_reference; TDCL_EVERIFY past 1e-6 */
    int clip;         /* image outputs: clamp means past the samples' range (else an
                         error naming the first) */
    int quality;      /* JPEG outputs: 1..100, 0: the writer's default */
    int compress;     /* TIFF outputs: a tdcl_img_compress, 0: the writer's default */
    int retype;       /* convert the result to out_type (integers: rounded half up,
                         a value past the type's range an error) */
    tdcl_dtype out_type;
    int64_t band_rows;   /* an image input on one device streams in bands of this
                            many rows, rounded up to whole tiles (0: about 8 MiB a
                            band); a plain .npy too, in whole blocks of 8 tile rows
                            (0: only past the memory budget, about 32 MiB a band);
                            -1: read whole */
    tdcl_matrix *result; /* non-NULL (not over ranks): the means are handed over here,
                            for the caller to free, instead of written; one channel
                            only */
} tdcl_ta_job_opts;

/* The tile-avg command: reads the input (an image by its magic bytes or
 * extension; a PGM or PNG sets ta.image, so that its means keep the sample
 * type), runs ta.op, optionally verifies, and writes the results: Matrix
 * Market or NumPy by extension, or an image (.pgm, .png: rounded to the
 * input's bit depth, 8 for a matrix, a PBM input's share of black as grey;
 * .pbm: 1 bit, black where a grey input's mean is below half its maxval,
 * a PBM input's or a matrix's mean rounds to 1).
 * On one device, an image file (not standard input) streams: decoded in
 * bands of rows, reduced band by band and, to an image output, encoded as
 * the bands come (jobs/tile_avg_stream.h); other outputs gather the
 * results first. A set of devices and MPI ranks read the image whole.
 * On one device, fills its ctx->t. Nothing is written unless everything
 * before succeeded. ex may still be opening: the job reads first. Over a
 * set, the devices share the work in bands of tile rows; over MPI ranks,
 * rank 0 reads (or each rank its band of a plain .npy), the ranks compute
 * a band each, rank 0 verifies and writes (or each rank its band of a .npy
 * output), and a failure on any rank fails all (the others' message
 * empty). */
tdcl_status tdcl_ta_job(tdcl_exec *ex, const tdcl_ta_job_opts *jo, tdcl_err *err);

#endif
