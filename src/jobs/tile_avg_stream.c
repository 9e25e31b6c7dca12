/* tile-avg's image pipeline: decoder thread, device on the calling
 * thread, encoder thread, handing bands over under one lock. */
#include "jobs/tile_avg_stream.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"

#define TS_OUTS 2 /* result buffers between the device and the encoder */

typedef struct ts_state {
    tdcl_ta_stream *s;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t nbands, decoded, reduced, encoded; /* bands through each stage */
    int failed;
    tdcl_err err;        /* the first failure's */
    void *outs[TS_OUTS]; /* results of band b in outs[b % TS_OUTS] */
    size_t out_row_bytes;
    int64_t ocols;
} ts_state;

/* Rows of band b. */
static int64_t band_len(const ts_state *z, int64_t b)
{
    int64_t r0 = b * z->s->band_rows, left = z->s->info->height - r0;
    return left < z->s->band_rows ? left : z->s->band_rows;
}

/* Records the first failure and wakes every stage. */
static void fail(ts_state *z, const tdcl_err *e)
{
    pthread_mutex_lock(&z->mu);
    if (!z->failed) {
        z->failed = 1;
        z->err = *e;
    }
    pthread_cond_broadcast(&z->cv);
    pthread_mutex_unlock(&z->mu);
}

/* Waits until *counter > need or a stage failed; 0 if the band is there.
 * The time waited is added to *ms. */
static int wait_for(ts_state *z, const int64_t *counter, int64_t need, double *ms)
{
    double t0 = tdcl_now_ms();
    pthread_mutex_lock(&z->mu);
    while (!z->failed && *counter <= need)
        pthread_cond_wait(&z->cv, &z->mu);
    int failed = z->failed;
    pthread_mutex_unlock(&z->mu);
    if (ms) *ms += tdcl_now_ms() - t0;
    return failed;
}

static void advance(ts_state *z, int64_t *counter)
{
    pthread_mutex_lock(&z->mu);
    (*counter)++;
    pthread_cond_broadcast(&z->cv);
    pthread_mutex_unlock(&z->mu);
}

static void *decode_main(void *arg)
{
    ts_state *z = arg;
    tdcl_ta_stream *s = z->s;
    tdcl_err e = {0};
    for (int64_t b = 0; b < z->nbands; b++) {
        /* slot b % nslots is free once band b - nslots is reduced */
        if (wait_for(z, &z->reduced, b - s->nslots, &s->wait_device_ms)) break;
        double t0 = tdcl_now_ms();
        void *slot = tdcl_ta_bands_slot(s->bands, (int)(b % s->nslots));
        tdcl_status st = tdcl_img_read_rows(s->r, slot, band_len(z, b), &e);
        s->decode_ms += tdcl_now_ms() - t0;
        if (st) {
            fail(z, &e);
            break;
        }
        advance(z, &z->decoded);
    }
    return NULL;
}

static void *encode_main(void *arg)
{
    ts_state *z = arg;
    tdcl_ta_stream *s = z->s;
    tdcl_err e = {0};
    for (int64_t b = 0; b < z->nbands; b++) {
        if (wait_for(z, &z->reduced, b, NULL)) break;
        double t0 = tdcl_now_ms();
        int64_t orows = (band_len(z, b) + s->ta->tile_rows - 1) / s->ta->tile_rows;
        tdcl_status st = tdcl_img_write_rows(s->w, z->outs[b % TS_OUTS], orows, &e);
        s->encode_ms += tdcl_now_ms() - t0;
        if (st) {
            fail(z, &e);
            break;
        }
        advance(z, &z->encoded);
    }
    return NULL;
}

/* Checks band b's results against the host reference of its rows. */
static tdcl_status verify_band(ts_state *z, int64_t b, const void *in, const void *out,
                               tdcl_err *err)
{
    tdcl_ta_stream *s = z->s;
    int64_t rows = band_len(z, b);
    tdcl_matrix vin = {.rows = rows,
                       .cols = s->info->width,
                       .channels = s->info->channels,
                       .dtype = s->info->dtype,
                       .data = (void *)in};
    tdcl_matrix vout = {.rows = (rows + s->ta->tile_rows - 1) / s->ta->tile_rows,
                        .cols = z->ocols,
                        .channels = s->info->channels,
                        .dtype = tdcl_ta_bands_out_type(s->bands),
                        .data = (void *)out};
    /* a last band shorter than a tile is one partial tile row: the same
     * reduction as a tile of its height (the whole image was checked
     * against strict before) */
    tdcl_ta_opts o = *s->ta;
    o.strict = 0;
    if (o.tile_rows > rows) o.tile_rows = rows;
    double worst = 0;
    tdcl_status st = tdcl_ta_compare(&o, &vin, &vout, &worst, err);
    if (!st && !(worst <= s->worst)) s->worst = worst;
    return st;
}

/* The device stage, on the calling thread: band b from its slot into its
 * result buffer (or its rows of s->res). */
static void device_loop(ts_state *z)
{
    tdcl_ta_stream *s = z->s;
    tdcl_err e = {0};
    for (int64_t b = 0; b < z->nbands; b++) {
        if (wait_for(z, &z->decoded, b, &s->wait_decode_ms)) return;
        if (s->w && wait_for(z, &z->encoded, b - TS_OUTS, NULL)) return;
        double t0 = tdcl_now_ms();
        int slot = (int)(b % s->nslots);
        void *out = s->w ? z->outs[b % TS_OUTS]
                         : (char *)s->res->data +
                               (size_t)(b * s->band_rows / s->ta->tile_rows) * z->out_row_bytes;
        tdcl_status st = tdcl_ta_bands_run(s->bands, slot, band_len(z, b), out, &e);
        if (!st && s->verify) st = verify_band(z, b, tdcl_ta_bands_slot(s->bands, slot), out, &e);
        s->device_ms += tdcl_now_ms() - t0;
        if (st) {
            fail(z, &e);
            return;
        }
        advance(z, &z->reduced);
        s->nbands = b + 1;
    }
}

/* The result buffers (or s->res) for the bands' results. */
static tdcl_status alloc_outputs(ts_state *z, tdcl_err *err)
{
    tdcl_ta_stream *s = z->s;
    tdcl_dtype ot = tdcl_ta_bands_out_type(s->bands);
    int ch = s->info->channels;
    int64_t orows = (s->info->height + s->ta->tile_rows - 1) / s->ta->tile_rows;
    tdcl_status st = tdcl_matrix_bytes(1, z->ocols, ch, ot, &z->out_row_bytes, err);
    if (st) return st;
    if (!s->w) return tdcl_matrix_alloc(s->res, orows, z->ocols, ch, ot, err);
    size_t bytes = z->out_row_bytes * (size_t)(s->band_rows / s->ta->tile_rows);
    for (int i = 0; i < TS_OUTS; i++)
        if (!(z->outs[i] = malloc(bytes)))
            return tdcl_fail(err, TDCL_ENOMEM, "tile-avg: out of memory for a band's results");
    return TDCL_OK;
}

tdcl_status tdcl_ta_stream_run(tdcl_ta_stream *s, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    ts_state z = {.s = s};
    pthread_t dec, enc;
    int dec_on = 0, enc_on = 0;
    z.nbands = (s->info->height + s->band_rows - 1) / s->band_rows;
    z.ocols = (s->info->width + s->ta->tile_cols - 1) / s->ta->tile_cols;
    s->worst = 0;
    s->nbands = 0;
    pthread_mutex_init(&z.mu, NULL);
    pthread_cond_init(&z.cv, NULL);
    TDCL_TRY(alloc_outputs(&z, err));
    if (pthread_create(&dec, NULL, decode_main, &z)) {
        st = tdcl_fail(err, TDCL_ENOMEM, "tile-avg: cannot start the decoding thread");
        goto out;
    }
    dec_on = 1;
    if (s->w && pthread_create(&enc, NULL, encode_main, &z)) {
        tdcl_err e = {0};
        tdcl_fail(&e, TDCL_ENOMEM, "tile-avg: cannot start the encoding thread");
        fail(&z, &e);
    } else {
        enc_on = s->w != NULL;
    }
    device_loop(&z);
out:
    if (dec_on) pthread_join(dec, NULL);
    if (enc_on) pthread_join(enc, NULL);
    if (!st && z.failed) {
        *err = z.err;
        st = z.err.status ? z.err.status : TDCL_ENOMEM;
    }
    for (int i = 0; i < TS_OUTS; i++)
        free(z.outs[i]);
    if (st && s->res) tdcl_matrix_free(s->res);
    pthread_cond_destroy(&z.cv);
    pthread_mutex_destroy(&z.mu);
    return st;
}
