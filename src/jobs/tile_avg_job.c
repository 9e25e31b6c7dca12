/* The tile-avg job: reads a matrix or image, runs the plan, verifies on
 * request, and writes the means atomically. */
#include "jobs/tile_avg_job.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/log.h"
#include "base/mem.h"
#include "io/image.h"
#include "io/matio.h"
#include "io/npy.h"
#include "io/imgstream.h"
#include "dist/tile_avg_run.h"
#include "io/sparse_io.h"
#include "jobs/tile_avg_sparse.h"
#include "jobs/tile_avg_stream.h"

#define TA_STREAM_SLOTS 3               /* host bands: decoding, reducing, one spare */
#define TA_STREAM_BAND_BYTES (8u << 20) /* an automatic band's input, about */
#define TA_NPY_BAND_BYTES (32u << 20)   /* a streamed .npy band's data, about */

/* Reads the input: an image by its extension or its first bytes (stdin
 * too), else a matrix file. *bits receives the image's bit depth (8 for a
 * matrix), *maxval its maxval (1 for PBM; 0 for a matrix). */
static tdcl_status read_input(const tdcl_ta_job_opts *jo, tdcl_matrix *m, tdcl_mapping *map,
                              int *bits, int *maxval, tdcl_err *err)
{
    tdcl_status st;
    *bits = 8;
    *maxval = 0;
    if (strcmp(jo->in_path, "-") != 0 && tdcl_image_path(jo->in_path))
        st = tdcl_image_read(jo->in_path, m, maxval, err);
    else /* a plain .npy file is mapped, not read: no fresh memory touched,
          * and a CPU device averages the mapping in place */
        st = tdcl_matrix_or_image_read(jo->in_path, jo->max_bytes, m, map, maxval, err);
    if (st || !*maxval) return st;
    *bits = *maxval > 255 ? 16 : 8;
    if (jo->max_bytes && tdcl_matrix_count(m) * tdcl_dtype_size(m->dtype) > jo->max_bytes) {
        tdcl_matrix_release(m, map);
        return tdcl_fail_param(err, TDCL_ELIMIT, TDCL_PARAM_MAX_BYTES,
                               "'%s': the image is larger than the limit of %zu bytes",
                               tdcl_path_display(jo->in_path), jo->max_bytes);
    }
    return TDCL_OK;
}

/* An image of the means: PBM bits (1 = black) and grey levels (0 = black)
 * meet by tdcl_image_grey_to_bits and tdcl_image_bits_to_grey, so a mean
 * of bits is the share of black. */
static tdcl_status write_image(const tdcl_ta_job_opts *jo, const tdcl_matrix *m, int bits,
                               int maxval, tdcl_err *err)
{
    const char *path = jo->out_path;
    int pbm = tdcl_path_has_ext(path, ".pbm");
    tdcl_matrix conv = {0};
    tdcl_status st = TDCL_OK;
    if (pbm && maxval > 1)
        st = tdcl_image_grey_to_bits(m, maxval, &conv, err);
    else if (!pbm && maxval == 1)
        st = tdcl_image_bits_to_grey(m, 255, &conv, err);
    tdcl_img_wopts wo = {
        .bits = pbm ? 1 : bits, .clip = jo->clip, .quality = jo->quality, .compress = jo->compress};
    if (!st) st = tdcl_image_write_opts(path, conv.data ? &conv : m, &wo, err);
    tdcl_matrix_free(&conv);
    return st;
}

static tdcl_status write_output(const tdcl_ta_job_opts *jo, const tdcl_matrix *m, int bits,
                                int maxval, tdcl_err *err)
{
    const char *path = jo->out_path;
    if (path && strcmp(path, "-") != 0 && tdcl_image_path(path))
        return write_image(jo, m, bits, maxval, err);
    if (m->channels > 1 && (!path || strcmp(path, "-") == 0))
        return tdcl_fail(err, TDCL_EINVAL,
                         "tile-avg: a %d-channel result needs an image output such as -o out.png",
                         m->channels);
    char comment[256];
    snprintf(comment, sizeof comment, "tile-avg %s %lldx%lld of %s", tdcl_ta_op_name(jo->ta.op),
             (long long)jo->ta.tile_rows, (long long)jo->ta.tile_cols,
             tdcl_path_display(jo->in_path));
    return tdcl_matrix_write(path, m, comment, err);
}

/* The means written, or handed over to jo->result (which takes res's
 * memory: res is left empty). */
static tdcl_status deliver(const tdcl_ta_job_opts *jo, tdcl_matrix *res, int bits, int maxval,
                           tdcl_err *err)
{
    if (!jo->result) return write_output(jo, res, bits, maxval, err);
    if (res->channels > 1)
        return tdcl_fail(err, TDCL_EINVAL,
                         "tile-avg: a %d-channel result needs an image output such as -o out.png",
                         res->channels);
    *jo->result = *res;
    memset(res, 0, sizeof *res);
    return TDCL_OK;
}

/* The verdict on the largest error found against the host reference. */
static tdcl_status verify_worst(double worst, tdcl_err *err)
{
    tdcl_log(TDCL_LOG_VERBOSE,
             "tile-avg: largest error against the float64 host reference "
             "%.3g of the tile's mean |x|",
             worst);
    if (!(worst <= 1e-6))
        return tdcl_fail(err, TDCL_EVERIFY,
                         "tile-avg: the device's means differ from the float64 host reference "
                         "by up to %.3g of a tile's mean |x| (allowed 1e-06)",
                         worst);
    return TDCL_OK;
}

static tdcl_status verify(const tdcl_ta_opts *o, const tdcl_matrix *in, const tdcl_matrix *got,
                          tdcl_err *err)
{
    double worst = 0;
    tdcl_log(TDCL_LOG_STATUS, "verifying the results on the host...");
    tdcl_status st = tdcl_ta_compare(o, in, got, &worst, err);
    return st ? st : verify_worst(worst, err);
}

/* ---- images streamed in bands ----------------------------------------- */

/* Whether the input streams: an image file (not standard input, whose
 * claimed size cannot be checked against it) on one device, unless asked
 * to be read whole. */
static int stream_wanted(const tdcl_exec *ex, const tdcl_ta_job_opts *jo)
{
    return ex->kind == TDCL_EXEC_ONE && jo->band_rows >= 0 && strcmp(jo->in_path, "-") != 0 &&
           tdcl_image_file(jo->in_path);
}

/* Rows per band: jo's, else about TA_STREAM_BAND_BYTES of input; whole
 * tiles, at most the image's. */
static int64_t stream_band_rows(const tdcl_ta_job_opts *jo, const tdcl_img_info *info)
{
    int64_t t = jo->ta.tile_rows, want = jo->band_rows;
    if (!want) {
        double row = (double)info->width * info->channels * (double)tdcl_dtype_size(info->dtype);
        want = (int64_t)(TA_STREAM_BAND_BYTES / row);
    }
    int64_t tiles = (want + t - 1) / t, all = (info->height + t - 1) / t;
    if (tiles < 1) tiles = 1;
    return (tiles < all ? tiles : all) * t;
}

/* Whether each band's results go straight to the image writer: an image
 * output in the input's depth, not a PBM on either side and not retyped;
 * else they are gathered and written as a whole-image run's are. */
static int stream_encodes(const tdcl_ta_job_opts *jo, const tdcl_img_info *info)
{
    const char *path = jo->out_path;
    return !jo->result && !jo->retype && path && strcmp(path, "-") != 0 &&
           tdcl_img_write_ext(path) && !tdcl_path_has_ext(path, ".pbm") && info->maxval > 1;
}

static tdcl_status stream_writer(const tdcl_ta_job_opts *jo, const tdcl_img_info *info,
                                 tdcl_ta_bands *bands, tdcl_img_writer **w, tdcl_err *err)
{
    tdcl_img_info wi = *info;
    tdcl_img_wopts wo = {.bits = info->maxval > 255 ? 16 : 8,
                         .clip = jo->clip,
                         .quality = jo->quality,
                         .compress = jo->compress};
    wi.width = (info->width + jo->ta.tile_cols - 1) / jo->ta.tile_cols;
    wi.height = (info->height + jo->ta.tile_rows - 1) / jo->ta.tile_rows;
    wi.dtype = tdcl_ta_bands_out_type(bands);
    return tdcl_img_create_opts(jo->out_path, &wi, &wo, w, err);
}

static void stream_log(const tdcl_ta_job_opts *jo, const tdcl_ta_stream *s, double wall)
{
    tdcl_log(TDCL_LOG_VERBOSE,
             "tile-avg: %s: %lldx%lld, %d channel(s), %s, streamed in %lld bands of %lld rows "
             "(%d host bands of %.1f MiB)",
             tdcl_path_display(jo->in_path), (long long)s->info->width, (long long)s->info->height,
             s->info->channels, tdcl_dtype_name(s->info->dtype), (long long)s->nbands,
             (long long)s->band_rows, s->nslots,
             (double)s->band_rows * (double)s->info->width * s->info->channels *
                 (double)tdcl_dtype_size(s->info->dtype) / 1048576.0);
    tdcl_log(TDCL_LOG_VERBOSE,
             "tile-avg: stages overlapped over %.1f ms: decode %.1f ms, device %.1f ms "
             "(waiting for bands %.1f ms), %s %.1f ms; the decoder waited %.1f ms for a band",
             wall, s->decode_ms, s->device_ms, s->wait_decode_ms, s->w ? "encode" : "gather",
             s->encode_ms, s->wait_device_ms);
}

/* An image from its file through the device in bands (stream_wanted). */
static tdcl_status stream_job(tdcl_exec *ex, const tdcl_ta_job_opts *jo, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_img_reader *r = NULL;
    tdcl_img_writer *w = NULL;
    tdcl_ta_bands *bands = NULL;
    tdcl_matrix res = {0};
    tdcl_img_info info;
    tdcl_timing *t = tdcl_exec_timing(ex);
    int64_t orows, ocols;
    size_t bytes = 0;
    double t0;
    tdcl_ta_opts ta = jo->ta;
    tdcl_ta_stream s = {.nslots = TA_STREAM_SLOTS, .ta = &ta, .res = &res, .verify = jo->verify};
    TDCL_TRY(tdcl_out_precheck(jo->out_path, err));
    TDCL_TRY(tdcl_img_open(jo->in_path, &r, &info, err));
    TDCL_TRY(tdcl_matrix_bytes(info.height, info.width, info.channels, info.dtype, &bytes, err));
    if (jo->max_bytes && bytes > jo->max_bytes) {
        st = tdcl_fail_param(err, TDCL_ELIMIT, TDCL_PARAM_MAX_BYTES,
                             "'%s': the image is larger than the limit of %zu bytes",
                             tdcl_path_display(jo->in_path), jo->max_bytes);
        goto out;
    }
    ta.image = info.maxval > 1; /* PBM bits: the mean is the share of black */
    TDCL_TRY(tdcl_ta_shape(&ta, info.height, info.width, &orows, &ocols, err));
    TDCL_TRY(tdcl_ctx_wait(ex->ctx, err));
    s.r = r;
    s.info = &info;
    s.band_rows = stream_band_rows(jo, &info);
    TDCL_TRY(tdcl_ta_bands_create(ex->ctx, &ta, info.width, info.channels, info.dtype, s.band_rows,
                                  s.nslots, &bands, err));
    tdcl_log(TDCL_LOG_VERBOSE, "tile-avg: %s", tdcl_ta_bands_describe(bands));
    s.bands = bands;
    if (stream_encodes(jo, &info)) TDCL_TRY(stream_writer(jo, &info, bands, &w, err));
    s.w = w;
    t0 = tdcl_now_ms();
    st = tdcl_ta_stream_run(&s, err);
    stream_log(jo, &s, tdcl_now_ms() - t0);
    if (t) {
        t->read_ms += s.decode_ms;
        t->write_ms += s.encode_ms;
    }
    if (!st && jo->verify) st = verify_worst(s.worst, err);
    if (w) { /* commit frees the writer, whatever its outcome */
        if (st)
            tdcl_img_abort(w);
        else
            st = tdcl_img_commit(w, err);
        w = NULL;
        goto out;
    }
    if (!st && jo->retype) st = tdcl_ta_retype(&res, jo->out_type, err);
    if (!st) {
        t0 = tdcl_now_ms();
        st = deliver(jo, &res, info.maxval > 255 ? 16 : 8, info.maxval, err);
        if (t) t->write_ms += tdcl_now_ms() - t0;
    }
out:
    tdcl_img_abort(w);
    tdcl_ta_bands_destroy(bands);
    tdcl_img_close(r);
    tdcl_matrix_free(&res);
    return st;
}

/* ---- plain .npy matrices streamed by offset ----------------------------- */

/* Whether a .npy input streams: a plain one (C order, uncompressed, on
 * disk) on one device, unless asked to be read whole; when band rows are
 * given, or its data exceeds the memory budget (tdcl_mem_budget). */
static int npy_stream_wanted(const tdcl_exec *ex, const tdcl_ta_job_opts *jo)
{
    tdcl_npy_info info;
    if (ex->kind != TDCL_EXEC_ONE || jo->band_rows < 0 || strcmp(jo->in_path, "-") == 0 ||
        tdcl_npy_probe(jo->in_path, &info, NULL) != TDCL_OK)
        return 0;
    double bytes = (double)info.rows * (double)info.cols * (double)tdcl_dtype_size(info.dtype);
    return jo->band_rows > 0 || bytes > (double)tdcl_mem_budget(0, 0, NULL);
}

typedef struct npy_stream {
    const tdcl_ta_job_opts *jo;
    tdcl_ctx *ctx;
    tdcl_npy_rows *r;
    tdcl_npy_info info;
    tdcl_ta_opts ta;
    int64_t band, nbands; /* rows per band (the last may take fewer than a tile more) */
    void *buf;            /* one band's rows */
    tdcl_matrix res;      /* gathered: orows x ocols */
    double maxabs;        /* the largest finite |x| read so far */
    double worst;         /* verifying: the largest error */
    int nonfinite;        /* a float64 mean came out infinite or NaN */
    double read_ms;
} npy_stream;

/* Rows per band: jo's, else about TA_NPY_BAND_BYTES; whole blocks of 8
 * tile rows (tdcl_ta_run_part). */
static int64_t npy_band_rows(const tdcl_ta_job_opts *jo, const tdcl_npy_info *info)
{
    int64_t block = 8 * jo->ta.tile_rows, want = jo->band_rows;
    if (!want)
        want = (int64_t)(TA_NPY_BAND_BYTES /
                         ((double)info->cols * (double)tdcl_dtype_size(info->dtype)));
    int64_t n = want / block + (want % block != 0);
    return (n < 1 ? 1 : n) * block;
}

static int any_nonfinite(const tdcl_matrix *m)
{
    if (m->dtype != TDCL_F64) return 0;
    const double *x = m->data;
    for (size_t k = 0; k < tdcl_matrix_count(m); k++)
        if (!isfinite(x[k])) return 1;
    return 0;
}

/* Checks the results of rows [r0, r0 + n) against the host reference of
 * those rows, read again (the whole matrix was checked against strict
 * before). */
static tdcl_status npy_verify_band(npy_stream *s, int64_t r0, int64_t n, tdcl_err *err)
{
    tdcl_ta_opts o = s->ta;
    int64_t t = o.tile_rows;
    size_t row = (size_t)s->res.cols * tdcl_dtype_size(s->res.dtype);
    tdcl_matrix in = {
        .rows = n, .cols = s->info.cols, .channels = 1, .dtype = s->info.dtype, .data = s->buf};
    tdcl_matrix got = s->res;
    double worst = 0;
    got.rows = (n + t - 1) / t;
    got.data = (char *)s->res.data + (size_t)(r0 / t) * row;
    o.strict = 0;
    tdcl_status st = tdcl_npy_rows_read(s->r, r0, n, s->buf, err);
    if (!st) st = tdcl_ta_compare(&o, &in, &got, &worst, err);
    if (!st && !(worst <= s->worst)) s->worst = worst;
    return st;
}

/* Rows [r0, r0 + n) read, reduced and copied into their rows of s->res. */
static tdcl_status npy_band(npy_stream *s, int64_t r0, int64_t n, double hint, int scale,
                            tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix part = {0};
    tdcl_matrix view = {
        .rows = n, .cols = s->info.cols, .channels = 1, .dtype = s->info.dtype, .data = s->buf};
    int64_t t = s->ta.tile_rows;
    double t0 = tdcl_now_ms();
    TDCL_TRY(tdcl_npy_rows_read(s->r, r0, n, s->buf, err));
    s->read_ms += tdcl_now_ms() - t0;
    double m = tdcl_ta_max_finite_abs(&view);
    s->maxabs = m > s->maxabs ? m : s->maxabs;
    TDCL_TRY(tdcl_ta_run_part(s->ctx, &s->ta, &view, hint, scale, &part, err));
    if (!s->res.data)
        TDCL_TRY(
            tdcl_matrix_alloc(&s->res, (s->info.rows + t - 1) / t, part.cols, 1, part.dtype, err));
    size_t row = (size_t)part.cols * tdcl_dtype_size(part.dtype);
    memcpy((char *)s->res.data + (size_t)(r0 / t) * row, part.data, (size_t)part.rows * row);
    s->nonfinite |= any_nonfinite(&part);
out:
    tdcl_matrix_free(&part);
    return st;
}

/* Every band once, planned with the largest |x| hint and float64
 * prescale scale (verify: checked instead); rows left past the last band,
 * fewer than a tile's, go with it. */
static tdcl_status npy_pass(npy_stream *s, double hint, int scale, int verify, tdcl_err *err)
{
    int64_t rows = s->info.rows, t = s->ta.tile_rows;
    s->nonfinite = 0;
    s->nbands = 0;
    for (int64_t r0 = 0; r0 < rows; r0 += s->band) {
        int64_t rest = rows - r0, n = rest < s->band + t ? rest : s->band;
        tdcl_status st =
            verify ? npy_verify_band(s, r0, n, err) : npy_band(s, r0, n, hint, scale, err);
        if (st) return st;
        s->nbands++;
        if (n > s->band) break;
    }
    return TDCL_OK;
}

/* The passes a whole run's choices ask for: the first planned as for small
 * values; again with the largest |x| where it would have made a plan
 * choose otherwise; float64 means again prescaled where one came out
 * infinite or NaN (as tdcl_ta_run does over the whole). */
static tdcl_status npy_passes(npy_stream *s, tdcl_err *err)
{
    tdcl_status st = npy_pass(s, 0, 0, 0, err);
    int mean = s->ta.op == TDCL_TA_MEAN;
    int f64 = s->info.dtype == TDCL_F64 && s->res.dtype == TDCL_F64; /* float64 sums */
    double hint = 0;
    if (!st && mean && !f64 && tdcl_ta_maxabs_matters(&s->ta, s->maxabs)) {
        hint = s->maxabs;
        tdcl_log(TDCL_LOG_VERBOSE, "tile-avg: values up to %g: the bands again, planned for them",
                 hint);
        st = npy_pass(s, hint, 0, 0, err);
    }
    int scale = !st && mean && f64 && s->nonfinite ? tdcl_ta_f64_scale(&s->ta, s->maxabs) : 0;
    if (scale) {
        tdcl_log(TDCL_LOG_VERBOSE, "tile-avg: an infinite mean: the bands again, scaled by 2^-%d",
                 scale);
        st = npy_pass(s, s->maxabs, scale, 0, err);
    }
    if (!st && s->jo->verify) {
        tdcl_log(TDCL_LOG_STATUS, "verifying the results on the host...");
        st = npy_pass(s, 0, 0, 1, err);
    }
    return st;
}

static tdcl_status npy_stream_open(npy_stream *s, const tdcl_ta_job_opts *jo, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t orows, ocols, t = jo->ta.tile_rows;
    size_t bytes = 0;
    TDCL_TRY(tdcl_npy_rows_open(jo->in_path, &s->r, &s->info, err));
    TDCL_TRY(tdcl_matrix_bytes(s->info.rows, s->info.cols, 1, s->info.dtype, &bytes, err));
    if (jo->max_bytes && bytes > jo->max_bytes) {
        st = tdcl_fail_param(err, TDCL_ELIMIT, TDCL_PARAM_MAX_BYTES,
                             "'%s': the matrix is larger than the limit of %zu bytes",
                             tdcl_path_display(jo->in_path), jo->max_bytes);
        goto out;
    }
    s->ta.image = 0;
    TDCL_TRY(tdcl_ta_check(&s->ta, 1, s->info.dtype, err));
    TDCL_TRY(tdcl_ta_shape(&s->ta, s->info.rows, s->info.cols, &orows, &ocols, err));
    s->band = npy_band_rows(jo, &s->info);
    int64_t buf_rows = s->band + t - 1 < s->info.rows ? s->band + t - 1 : s->info.rows;
    TDCL_TRY(tdcl_matrix_bytes(buf_rows, s->info.cols, 1, s->info.dtype, &bytes, err));
    TDCL_TRY(tdcl_mem_check(bytes, "tile-avg's band", 0, 0, err));
    if (posix_memalign(&s->buf, 4096, bytes ? bytes : 1)) { /* a CPU device reads it in place */
        s->buf = NULL;
        st = tdcl_fail(err, TDCL_ENOMEM, "tile-avg: out of memory for a band of %.1f MiB",
                       bytes / 1048576.0);
    }
out:
    return st;
}

/* A plain .npy file through the device in bands read by offset
 * (npy_stream_wanted): never the whole matrix in memory, and the results
 * those of a whole run, bit for bit. */
static tdcl_status npy_stream_job(tdcl_exec *ex, const tdcl_ta_job_opts *jo, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    npy_stream s = {.jo = jo, .ctx = ex->ctx, .ta = jo->ta};
    tdcl_timing *t = tdcl_exec_timing(ex);
    TDCL_TRY(tdcl_out_precheck(jo->out_path, err));
    TDCL_TRY(npy_stream_open(&s, jo, err));
    TDCL_TRY(tdcl_ctx_wait(ex->ctx, err));
    TDCL_TRY(npy_passes(&s, err));
    tdcl_log(TDCL_LOG_VERBOSE,
             "tile-avg: %s: %lldx%lld, 1 channel(s), %s, streamed in %lld bands "
             "of %lld rows read by offset",
             tdcl_path_display(jo->in_path), (long long)s.info.rows, (long long)s.info.cols,
             tdcl_dtype_name(s.info.dtype), (long long)s.nbands, (long long)s.band);
    if (t) t->read_ms += s.read_ms;
    if (jo->verify) TDCL_TRY(verify_worst(s.worst, err));
    if (jo->retype) TDCL_TRY(tdcl_ta_retype(&s.res, jo->out_type, err));
    double t0 = tdcl_now_ms();
    st = deliver(jo, &s.res, 8, 0, err);
    if (t) t->write_ms += tdcl_now_ms() - t0;
out:
    tdcl_npy_rows_close(s.r);
    free(s.buf);
    tdcl_matrix_free(&s.res);
    return st;
}

tdcl_status tdcl_ta_job(tdcl_exec *ex, const tdcl_ta_job_opts *jo, tdcl_err *err)
{
    if (tdcl_sparse_path(jo->in_path)) return tdcl_ta_sparse_job(ex, jo, err);
    tdcl_status st = TDCL_OK;
    tdcl_matrix in = {0}, res = {0};
    tdcl_mapping map = {0};
    tdcl_npy_info info;
    tdcl_timing *t = tdcl_exec_timing(ex);
    int bits = 8, maxval = 0, written = 0, root = tdcl_exec_root(ex);
    int ranks = ex->kind == TDCL_EXEC_RANKS;
    /* over ranks, a plain .npy input: each rank reads its own band (rank 0
     * the whole for --verify); a .npy output without --verify: every rank
     * writes its means into it */
    const char *npy =
        ranks && tdcl_npy_probe(jo->in_path, &info, NULL) == TDCL_OK ? jo->in_path : NULL;
    const char *npy_out =
        ranks && !jo->verify && jo->out_path && tdcl_path_has_ext(jo->out_path, ".npy")
            ? jo->out_path
            : NULL;
    if (stream_wanted(ex, jo)) return stream_job(ex, jo, err);
    if (npy_stream_wanted(ex, jo)) return npy_stream_job(ex, jo, err);
    double t0 = tdcl_now_ms();
    if (root) st = tdcl_out_precheck(jo->out_path, err); /* before the work, not after */
    if (root && st == TDCL_OK && (!npy || jo->verify)) {
        st = read_input(jo, &in, &map, &bits, &maxval, err);
        if (t) t->read_ms += tdcl_now_ms() - t0;
        if (st == TDCL_OK)
            tdcl_log(TDCL_LOG_VERBOSE, "tile-avg: %s: %lldx%lld, %d channel(s), %s",
                     tdcl_path_display(jo->in_path), (long long)in.rows, (long long)in.cols,
                     in.channels, tdcl_dtype_name(in.dtype));
    }
    /* a grey or colour image (not PBM bits, whose mean is the share of
     * black) keeps its sample type */
    tdcl_ta_opts ta = jo->ta;
    ta.image = maxval > 1;
    if (root && st == TDCL_OK && in.data) st = tdcl_ta_check(&ta, in.channels, in.dtype, err);
    if (jo->retype && npy_out) npy_out = NULL; /* written here, converted */
    TDCL_TRY(tdcl_ta_exec_run(ex, &ta, st, &in, npy, npy_out, &written, &res, err));
    if (root && jo->verify) st = verify(&ta, &in, &res, err);
    if (root && st == TDCL_OK && !written && jo->retype)
        st = tdcl_ta_retype(&res, jo->out_type, err);
    if (root && st == TDCL_OK && !written) {
        t0 = tdcl_now_ms();
        st = deliver(jo, &res, bits, maxval, err);
        if (t) t->write_ms += tdcl_now_ms() - t0;
    }
    tdcl_exec_agree(ex, &st, err);
out:
    tdcl_matrix_release(&in, &map);
    tdcl_matrix_free(&res);
    return st;
}
