/* tile-avg's image pipeline (module prefix tdcl_ta_stream): an image
 * decoded in bands of rows, each band reduced on the device and its
 * results encoded as they come, never the whole image in memory.
 *
 * Three stages overlap on threads: a decoder fills the bands' host slots
 * (tdcl_ta_bands), the calling thread (the only one using the OpenCL
 * queue) reduces each filled slot and hands the slot back, and an encoder
 * writes each band's results. With nslots slots the decoder runs up to
 * nslots - 1 bands ahead of the device; two result buffers let the device
 * run a band ahead of the encoder. */
#ifndef TDCL_TILE_AVG_STREAM_H
#define TDCL_TILE_AVG_STREAM_H

#include "base/matrix.h"
#include "base/status.h"
#include "io/imgstream.h"
#include "ops/tile_avg/tile_avg.h"

typedef struct tdcl_ta_stream {
    tdcl_img_reader *r;
    const tdcl_img_info *info;
    tdcl_ta_bands *bands;
    int64_t band_rows; /* as the bands were made */
    int nslots;
    const tdcl_ta_opts *ta; /* the tile (and, verifying, the reduction) */
    tdcl_img_writer *w;     /* the results encoded band by band, or, NULL, */
    tdcl_matrix *res;       /* gathered here (allocated: orows x ocols) */
    int verify;             /* check each band against the host reference */
    /* filled by tdcl_ta_stream_run: */
    double worst;                           /* verifying: the largest error */
    int64_t nbands;                         /* bands reduced */
    double decode_ms, device_ms, encode_ms; /* each stage's busy time */
    double wait_decode_ms, wait_device_ms;  /* the device waiting for a band; the
                                               decoder waiting for a slot */
} tdcl_ta_stream;

/* Runs the pipeline over every row of s->r. The writer is neither
 * committed nor aborted here: the caller does either. On failure the
 * first stage to fail names the cause; the others stop at their next
 * band. */
tdcl_status tdcl_ta_stream_run(tdcl_ta_stream *s, tdcl_err *err);

#endif
