/* tile-avg: the mean (or another reduction: tdcl_ta_op) of every T x U tile
 * (T rows by U columns) of a matrix or image, per channel, on an OpenCL
 * device (cl/tile_avg/).
 *
 * Means of one-plane matrices go through the tuned kernels below
 * (cl/tile_avg/mean.cl). Every other reduction, image means, and inputs of
 * several channels go through one kernel that reads the channels
 * interleaved as files hold them (cl/tile_avg/reduce.cl, ops/tile_avg/
 * ta_reduce.c): a work-item per tile, exact integer sums, medians by a
 * bisection over the values' order (8-bit: a histogram in local memory).
 *
 * Edge tiles: where the matrix is not a whole number of tiles, the last tile
 * row and column hang over its edge and average the cells they hold (an
 * 8x10 matrix in 4x4 tiles gives a 2x3 result whose last column averages
 * 4x2 cells). With strict set, such a matrix is refused instead.
 *
 * Three kernel variants, chosen from the device type and the tile unless
 * asked for:
 *   cpu:  a work-item sums whole small tiles from row runs in registers, with
 *         no barrier; a tile larger than 8x64 is reduced in stages, each
 *         writing tile sums that the next stage adds (several stages, every
 *         work-item adding a part of a tile);
 *   gpu:  narrow vector loads so that adjacent work-items read adjacent
 *         memory; the work-items sharing a tile add their partial sums as a
 *         tree in local memory, in one stage;
 *   band: for short wide tiles (fewer rows than a gpu team would stack, or
 *         wider than a cpu stage takes): a work-group covers a band of a
 *         row, a team of items per tile with interleaved vector loads (one
 *         item per tile on a CPU), partial sums in registers, one barrier
 *         and one local-memory pass per tile. auto picks it for such tiles.
 * All accumulate in double where the device has fp64, in float elsewhere.
 *
 * tile-map (tdcl_ta_map_run) shows how a launch is tiled: one work-item per
 * element in work-groups of one tile each, recording its global, tile and
 * local indices (cl/tile_map.cl), checked against the host's arithmetic.
 *
 * Plans: tdcl_ta_plan_create uploads the input and builds the kernels once;
 * tdcl_ta_plan_execute runs them (as often as a benchmark wants);
 * tdcl_ta_plan_result downloads. tdcl_ta_run does all three; the file job
 * (read, run, verify, write) is jobs/tile_avg_job.h. */
#ifndef TDCL_TILE_AVG_H
#define TDCL_TILE_AVG_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/clrt.h"
#include "base/matrix.h"
#include "base/status.h"

typedef enum tdcl_ta_variant {
    TDCL_TA_AUTO = 0, /* band for short wide tiles, else cpu on a CPU device, gpu elsewhere */
    TDCL_TA_CPU,
    TDCL_TA_GPU,
    TDCL_TA_BAND,
} tdcl_ta_variant;

/* The reduction of each tile (cl/tile_avg/prelude.cl numbers them alike). */
typedef enum tdcl_ta_op {
    TDCL_TA_MEAN = 0,
    TDCL_TA_SUM,
    TDCL_TA_MIN,
    TDCL_TA_MAX,
    TDCL_TA_MEDIAN, /* of an even count: the mean of the two middle values */
    TDCL_TA_MODE,   /* the most frequent value, the smallest among ties */
} tdcl_ta_op;

/* "mean", "sum", "min", "max", "median", "mode"; tdcl_ta_op_parse returns 0
 * and sets *op, or -1. */
const char *tdcl_ta_op_name(tdcl_ta_op op);
int tdcl_ta_op_parse(const char *name, tdcl_ta_op *op);

typedef struct tdcl_ta_opts {
    int64_t tile_rows, tile_cols; /* T x U, both >= 1 and at most the matrix's size */
    int strict;                   /* refuse a matrix that is not a whole number of tiles */
    tdcl_ta_variant variant;
    int acc_f32;        /* accumulate in float even with fp64 (the no-fp64 path, for tests) */
    int band_team;      /* band: items per tile, a power of two (0: chosen from the device) */
    int band_rows;      /* band: tile rows per item (0: chosen) */
    tdcl_ta_op op;      /* mean unless set */
    int image;          /* 8/16-bit samples of an image: means and medians keep the
                           sample type, rounded half up from the exact sum */
    int alpha_weighted; /* image means with alpha last (2 or 4 channels): colour
                           weighted by alpha (round(sum(c a) / sum(a)), 0 where
                           the alpha is all 0), alpha the plain mean */
} tdcl_ta_opts;

/* "auto", "cpu", "gpu", "band"; tdcl_ta_variant_parse returns 0 and sets *v, or -1. */
const char *tdcl_ta_variant_name(tdcl_ta_variant v);
int tdcl_ta_variant_parse(const char *name, tdcl_ta_variant *v);

/* Checks o against a rows x cols matrix and gives the result's shape:
 * ceil(rows / T) x ceil(cols / U). TDCL_EINVAL names the tile and the
 * matrix when the tile is empty, larger than the matrix, or (strict) does
 * not divide it. */
tdcl_status tdcl_ta_shape(const tdcl_ta_opts *o, int64_t rows, int64_t cols, int64_t *orows,
                          int64_t *ocols, tdcl_err *err);

/* The element type of the result for input type in on device d:
 *   mean:   an image's (o->image) uint8/uint16 keep their type; else float64
 *           for float64 and the wide integer types where d has fp64 (and
 *           !acc_f32), else float32;
 *   sum:    int64 for integer input, float64 for float input where d has
 *           fp64, else float32;
 *   min, max, median, mode: the input's (float64 as float32 without fp64).
 * TDCL_EINVAL-worthy combinations are checked by tdcl_ta_check. */
tdcl_dtype tdcl_ta_result_type(const tdcl_device_info *d, const tdcl_ta_opts *o, tdcl_dtype in);

/* Checks the options against an input of `channels` channels of type in:
 * alpha weighting applies to image means with 2 or 4 channels.
 * TDCL_EINVAL saying why otherwise. */
tdcl_status tdcl_ta_check(const tdcl_ta_opts *o, int channels, tdcl_dtype in, tdcl_err *err);

typedef struct tdcl_ta_plan tdcl_ta_plan;

/* Checks o against in (any dtype, 1..4 channels), chooses the variant and
 * its launch shapes from the device's limits, builds the kernels and
 * uploads in (in is not kept: the caller may free it afterwards). *out is
 * owned by the caller (tdcl_ta_plan_destroy). Adds to ctx->t (compile,
 * upload). TDCL_ELIMIT when the matrix exceeds the device's largest
 * buffer. */
tdcl_status tdcl_ta_plan_create(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_matrix *in,
                                tdcl_ta_plan **out, tdcl_err *err);

/* Runs every stage once and waits; *kernel_ms (if non-NULL) receives the
 * device time of all stages from their profiling events. */
tdcl_status tdcl_ta_plan_execute(tdcl_ta_plan *p, double *kernel_ms, tdcl_err *err);

/* Downloads the last result into out, a new matrix owned by the caller
 * (orows x ocols, the input's channels, tdcl_ta_result_type). Adds to
 * ctx->t.download_ms. */
tdcl_status tdcl_ta_plan_result(tdcl_ta_plan *p, tdcl_matrix *out, tdcl_err *err);

/* What runs, e.g. "variant=cpu stages=2 [8x64 vw=16 nt=1 my=1] [8x1 ...]";
 * owned by the plan. */
const char *tdcl_ta_plan_describe(const tdcl_ta_plan *p);

/* Releases everything; accepts NULL. */
void tdcl_ta_plan_destroy(tdcl_ta_plan *p);

/* Create, execute once, result, destroy: out receives the tile means. Adds
 * the kernel time to ctx->t.kernel_ms. */
tdcl_status tdcl_ta_run(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_matrix *in,
                        tdcl_matrix *out, tdcl_err *err);

/* A matrix streamed in bands of rows (jobs/tile_avg_job.c), each band
 * reduced as the whole matrix's rows would be: bands of whole blocks of 8
 * tile rows (the kernels' rows per work-item divide 8, so a band adds its
 * tiles as the whole does), and the plan's choices that hang on the
 * matrix's largest finite |x| taken from the whole's, not the band's.
 *
 * tdcl_ta_max_finite_abs: that |x| of m (0 for integers).
 * tdcl_ta_maxabs_matters: whether a plan over a matrix of that |x| can
 * choose otherwise than over a matrix of small values (a float prescale,
 * float register sums): below it, bands planned with maxabs 0 reduce as
 * the whole does.
 * tdcl_ta_f64_scale: the prescale (a power of two) with which a float64
 * input's means are run again, after a first run gave a mean that is
 * infinite or NaN (0: none helps).
 * tdcl_ta_run_part: tdcl_ta_run of one band, planned with maxabs and
 * float64 prescale f64_scale, run once as given (no second run, no
 * further bands). */
double tdcl_ta_max_finite_abs(const tdcl_matrix *m);
int tdcl_ta_maxabs_matters(const tdcl_ta_opts *o, double maxabs);
int tdcl_ta_f64_scale(const tdcl_ta_opts *o, double maxabs);
tdcl_status tdcl_ta_run_part(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_matrix *in,
                             double maxabs, int f64_scale, tdcl_matrix *out, tdcl_err *err);

/* The tile means of in computed on the host in float64 (same edge rule;
 * sums scaled by a power of two near DBL_MAX, so that the mean of finite
 * values is finite), into out (float64, owned by the caller); with mean_abs non-NULL, also the
 * mean of |x| of each tile, the scale against which errors are measured.
 * The plain mean, whatever o->op. */
tdcl_status tdcl_ta_reference(const tdcl_ta_opts *o, const tdcl_matrix *in, tdcl_matrix *out,
                              tdcl_matrix *mean_abs, tdcl_err *err);

/* o->op of every tile of in computed on the host from each tile's values
 * (sorted for median and mode), independent of the kernels: exact for
 * integers (TDCL_ERANGE naming the tile where an int64 sum overflows),
 * long double sums for floats, NaN where a float tile holds one. out (new,
 * the caller's) has type out_type (tdcl_ta_result_type's); with abs_sum
 * non-NULL and a float sum or mean, also each tile's sum (or mean) of |x|
 * in float64. */
tdcl_status tdcl_ta_reference_op(const tdcl_ta_opts *o, const tdcl_matrix *in, tdcl_dtype out_type,
                                 tdcl_matrix *out, tdcl_matrix *abs_sum, tdcl_err *err);

/* Converts *res in place to dtype to unless it has it already: integers
 * from floats rounded half up first, then range-checked like every
 * narrowing (tdcl_matrix_narrow: TDCL_ERANGE naming the first value that
 * does not fit, NaN included). */
tdcl_status tdcl_ta_retype(tdcl_matrix *res, tdcl_dtype to, tdcl_err *err);

/* The largest error of got against the host reference of in, relative to
 * each tile's mean |x| (an all-zero tile must be exactly 0), into
 * *max_rel_err, over the tiles whose reference mean is finite. Where the
 * reference is NaN got must be NaN, where it is infinite the same
 * infinity, and where it is finite, finite: TDCL_EVERIFY naming the first
 * tile otherwise. Integer results, min, max, median and mode must equal
 * tdcl_ta_reference_op's exactly (*max_rel_err 0). */
tdcl_status tdcl_ta_compare(const tdcl_ta_opts *o, const tdcl_matrix *in, const tdcl_matrix *got,
                            double *max_rel_err, tdcl_err *err);

/* tile-map: the indices each work-item of a tiled launch sees. */
typedef struct tdcl_ta_map {
    int64_t rows, cols, tile_rows, tile_cols;
    int32_t *cells; /* rows*cols*6: global row, col; tile row, col; local row, col */
} tdcl_ta_map;

/* The most cells tile-map runs on (it is meant to be read). */
#define TDCL_TA_MAP_MAX_CELLS 1000000

/* Launches cl/tile_map.cl over a rows x cols matrix in t x u work-groups
 * and checks every recorded index against i / t, i % t, j / u, j % u.
 * *out is owned by the caller (tdcl_ta_map_free). TDCL_EINVAL for a tile
 * larger than the matrix or a matrix past TDCL_TA_MAP_MAX_CELLS;
 * TDCL_ELIMIT, naming the limit, when a t x u work-group exceeds the
 * device's (the tile is the point here, so it is not shrunk); TDCL_EVERIFY
 * when an index differs. */
tdcl_status tdcl_ta_map_run(tdcl_ctx *ctx, int64_t rows, int64_t cols, int64_t t, int64_t u,
                            tdcl_ta_map *out, tdcl_err *err);

/* Releases m's cells; accepts NULL and an empty map. */
void tdcl_ta_map_free(tdcl_ta_map *m);

/* Bands: an image reduced a band of rows at a time, so that it is never
 * held whole (jobs/tile_avg_stream.c). The kernel is built once for bands
 * of band_rows rows (a multiple of the tile's rows) of a cols-wide image of
 * `channels` interleaved uint8 or uint16 samples; nslots (1..4) host slots
 * of band_rows rows each are the caller's to fill, one while the device
 * reduces another (a CPU device reads them in place). */
typedef struct tdcl_ta_bands tdcl_ta_bands;

tdcl_status tdcl_ta_bands_create(tdcl_ctx *ctx, const tdcl_ta_opts *o, int64_t cols, int channels,
                                 tdcl_dtype in, int64_t band_rows, int nslots, tdcl_ta_bands **out,
                                 tdcl_err *err);

/* Slot i's host memory: band_rows * cols * channels samples. */
void *tdcl_ta_bands_slot(tdcl_ta_bands *b, int slot);

/* The results' type (tdcl_ta_result_type's) and what runs. */
tdcl_dtype tdcl_ta_bands_out_type(const tdcl_ta_bands *b);
const char *tdcl_ta_bands_describe(const tdcl_ta_bands *b);

/* Reduces the first rows rows of slot's band (rows <= band_rows; fewer in
 * the last band, whose last tile row reduces the rows it holds) into out:
 * ceil(rows / T) x ceil(cols / U) x channels results, returning when out
 * holds them and the slot may be filled again. Adds to ctx->t (upload,
 * kernel, download). */
tdcl_status tdcl_ta_bands_run(tdcl_ta_bands *b, int slot, int64_t rows, void *out, tdcl_err *err);

/* Releases everything; accepts NULL. */
void tdcl_ta_bands_destroy(tdcl_ta_bands *b);

#endif
