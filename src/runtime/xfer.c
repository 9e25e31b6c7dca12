/* Staged host <-> device copies: a ring of pinned, mapped chunks per
 * context, filled by a few host threads while the device copies the
 * others (xfer.h says why). */
#include "runtime/xfer.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/pool.h"

#define DEFAULT_CHUNK ((size_t)1 << 20)
#define DEFAULT_LANES 8
#define MIN_STAGED ((size_t)4 << 20) /* smaller copies: the driver's own path */

/* The ring: lanes x 2 chunks. An upload runs one host thread per lane,
 * each filling its two chunks in turn while the device copies the other
 * (one fork-join per upload, not per chunk); a download the other way
 * round, each lane handing its chunks to the sink. */
struct tdcl_xfer {
    tdcl_ctx *ctx;
    cl_command_queue q; /* ctx's queue, or a channel's own */
    int own_q;          /* a channel's: released with it */
    int failed;         /* the ring could not be made: plain copies from now on */
    size_t chunk;
    int lanes, slots;
    cl_mem mem;
    unsigned char *host; /* slots * chunk bytes, mapped */
    cl_event ev[2 * TDCL_POOL_MAX];
};

static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    if (!s || !*s) return dflt;
    char *end;
    long v = strtol(s, &end, 10);
    return *end || v < 0 ? dflt : v;
}

/* -1 never staged, 1 always, 0 by device and size (TILEDCL_STAGING). */
static int staging_mode(void)
{
    const char *s = getenv("TILEDCL_STAGING");
    if (s && strcmp(s, "0") == 0) return -1;
    if (s && strcmp(s, "1") == 0) return 1;
    return 0;
}

int tdcl_xfer_staged(const tdcl_ctx *ctx, size_t n)
{
    int mode = staging_mode();
    if (mode) return mode > 0;
    return !(ctx->dev.type & CL_DEVICE_TYPE_CPU) && n >= MIN_STAGED;
}

static void ring_free(struct tdcl_xfer *x)
{
    if (x->host) clEnqueueUnmapMemObject(x->q, x->mem, x->host, 0, NULL, NULL);
    if (x->mem) {
        clFinish(x->q);
        clReleaseMemObject(x->mem);
    }
    x->mem = NULL;
    x->host = NULL;
}

/* Makes the pinned ring; on failure marks it failed and says why at -v. */
static void ring_make(struct tdcl_xfer *x)
{
    tdcl_ctx *ctx = x->ctx;
    cl_int rc;
    size_t bytes = (size_t)x->slots * x->chunk;
    x->mem =
        clCreateBuffer(ctx->context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes, NULL, &rc);
    const char *call = "clCreateBuffer";
    if (rc == CL_SUCCESS) {
        call = "clEnqueueMapBuffer";
        x->host = clEnqueueMapBuffer(x->q, x->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                     NULL, NULL, &rc);
    }
    if (rc == CL_SUCCESS && x->host) return;
    tdcl_log(TDCL_LOG_VERBOSE, "transfers: no pinned staging memory (%s: %s); plain copies", call,
             tdcl_cl_error_name(rc));
    x->host = NULL;
    ring_free(x);
    x->failed = 1;
}

static struct tdcl_xfer *xfer_new(tdcl_ctx *ctx, cl_command_queue q)
{
    struct tdcl_xfer *x = calloc(1, sizeof *x);
    if (!x) return NULL;
    long chunk = env_long("TILEDCL_STAGING_CHUNK", (long)DEFAULT_CHUNK);
    x->ctx = ctx;
    x->q = q;
    x->chunk = chunk < 4096 ? 4096 : (size_t)chunk;
    x->lanes = tdcl_pool_size((int)env_long("TILEDCL_STAGING_THREADS", DEFAULT_LANES), 1);
    x->slots = 2 * x->lanes;
    return x;
}

/* x's ring for a copy of n bytes, made on first use; NULL: plain copies. */
static struct tdcl_xfer *chan_ring(struct tdcl_xfer *x, size_t n)
{
    if (!tdcl_xfer_staged(x->ctx, n)) return NULL;
    if (!x->host && !x->failed) ring_make(x);
    return x->failed ? NULL : x;
}

/* ctx's own ring for a copy of n bytes, on ctx's queue. */
static struct tdcl_xfer *ring(tdcl_ctx *ctx, size_t n)
{
    if (!tdcl_xfer_staged(ctx, n)) return NULL;
    if (!ctx->xfer && !(ctx->xfer = xfer_new(ctx, ctx->queue))) return NULL;
    return chan_ring(ctx->xfer, n);
}

static void xfer_free(struct tdcl_xfer *x)
{
    for (int s = 0; s < x->slots; s++)
        if (x->ev[s]) clReleaseEvent(x->ev[s]);
    ring_free(x);
    if (x->own_q) clReleaseCommandQueue(x->q);
    free(x);
}

void tdcl_xfer_release(tdcl_ctx *ctx)
{
    if (!ctx || !ctx->xfer) return;
    xfer_free(ctx->xfer);
    ctx->xfer = NULL;
}

static unsigned char *slot_ptr(const struct tdcl_xfer *x, int s)
{
    return x->host + (size_t)s * x->chunk;
}

/* Waits for slot s's copy; the event is released either way. */
static tdcl_status wait_slot(struct tdcl_xfer *x, int s, tdcl_err *err)
{
    if (!x->ev[s]) return TDCL_OK;
    cl_int rc = clWaitForEvents(1, &x->ev[s]);
    clReleaseEvent(x->ev[s]);
    x->ev[s] = NULL;
    return rc == CL_SUCCESS ? TDCL_OK : tdcl_fail_cl(err, rc, "clWaitForEvents", "a staged copy");
}

/* Waits for every slot, keeping st if it is a failure already. */
static tdcl_status drain(struct tdcl_xfer *x, tdcl_status st, tdcl_err *err)
{
    for (int s = 0; s < x->slots; s++) {
        tdcl_status w = wait_slot(x, s, st ? NULL : err);
        if (!st) st = w;
    }
    return st;
}

typedef struct upload {
    struct tdcl_xfer *x;
    cl_mem buf;
    size_t off, n;
    const unsigned char *src;
    tdcl_status st[TDCL_POOL_MAX];
    tdcl_err *err; /* one per lane */
} upload;

/* Lane t: chunks t, t + lanes, ... through its slots 2t and 2t+1. */
static void upload_lane(void *arg, int t)
{
    upload *u = arg;
    struct tdcl_xfer *x = u->x;
    cl_command_queue q = x->q;
    tdcl_status st = TDCL_OK;
    tdcl_err *err = &u->err[t];
    for (size_t i = (size_t)t, k = 0; i * x->chunk < u->n; i += (size_t)x->lanes, k++) {
        size_t pos = i * x->chunk, len = u->n - pos < x->chunk ? u->n - pos : x->chunk;
        int s = 2 * t + (int)(k & 1);
        TDCL_TRY(wait_slot(x, s, err));
        memcpy(slot_ptr(x, s), u->src + pos, len);
        TDCL_CL_TRY(err,
                    clEnqueueWriteBuffer(q, u->buf, CL_FALSE, u->off + pos, len, slot_ptr(x, s), 0,
                                         NULL, &x->ev[s]),
                    "clEnqueueWriteBuffer");
        TDCL_CL_TRY(err, clFlush(q), "clFlush");
    }
out:
    u->st[t] = st;
}

static int lanes_of(const struct tdcl_xfer *x, size_t n)
{
    size_t chunks = (n + x->chunk - 1) / x->chunk;
    return chunks < (size_t)x->lanes ? (int)chunks : x->lanes;
}

/* Through x's ring (NULL: a plain copy on q). */
static tdcl_status upload_on(struct tdcl_xfer *x, cl_command_queue q, cl_mem buf, size_t off,
                             const void *src, size_t n, tdcl_err *err)
{
    if (!x) {
        cl_int rc = clEnqueueWriteBuffer(q, buf, CL_TRUE, off, n, src, 0, NULL, NULL);
        return rc == CL_SUCCESS ? TDCL_OK : tdcl_fail_cl(err, rc, "clEnqueueWriteBuffer", NULL);
    }
    upload u = {x, buf, off, n, src, {TDCL_OK}, calloc((size_t)x->lanes, sizeof(tdcl_err))};
    if (!u.err) return tdcl_fail(err, TDCL_ENOMEM, "out of memory for a staged copy");
    int lanes = lanes_of(x, n);
    tdcl_pool_run(lanes, upload_lane, &u);
    tdcl_status st = TDCL_OK;
    for (int t = 0; t < lanes && !st; t++)
        if ((st = u.st[t]) && err) *err = u.err[t];
    free(u.err);
    return drain(x, st, err);
}

tdcl_status tdcl_xfer_upload(tdcl_ctx *ctx, cl_mem buf, size_t off, const void *src, size_t n,
                             tdcl_err *err)
{
    return upload_on(ring(ctx, n), ctx->queue, buf, off, src, n, err);
}

/* Chunk by chunk through one malloc'd bounce buffer: the fallback. */
static tdcl_status download_plain(cl_command_queue q, cl_mem buf, size_t off, size_t n,
                                  tdcl_xfer_sink sink, void *user, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    size_t chunk = n < DEFAULT_CHUNK ? n : DEFAULT_CHUNK;
    unsigned char *b = malloc(chunk ? chunk : 1);
    if (!b) return tdcl_fail(err, TDCL_ENOMEM, "cannot allocate %zu bytes for a download", chunk);
    for (size_t pos = 0, len; pos < n; pos += len) {
        len = n - pos < chunk ? n - pos : chunk;
        TDCL_CL_TRY(err, clEnqueueReadBuffer(q, buf, CL_TRUE, off + pos, len, b, 0, NULL, NULL),
                    "clEnqueueReadBuffer");
        TDCL_TRY(sink(user, pos, b, len, err));
    }
out:
    free(b);
    return st;
}

typedef struct download {
    struct tdcl_xfer *x;
    cl_mem buf;
    size_t off, n;
    tdcl_xfer_sink sink;
    void *user;
    volatile int stop; /* a lane failed: the others stop too */
    tdcl_status st[TDCL_POOL_MAX];
    tdcl_err *err; /* one per lane */
} download;

/* Enqueues the read of chunk i into slot s, if there is such a chunk. */
static tdcl_status enqueue_read(download *d, size_t i, int s, tdcl_err *err)
{
    struct tdcl_xfer *x = d->x;
    size_t pos = i * x->chunk;
    if (pos >= d->n) return TDCL_OK;
    size_t len = d->n - pos < x->chunk ? d->n - pos : x->chunk;
    const char *call = "clEnqueueReadBuffer";
    cl_int rc = clEnqueueReadBuffer(x->q, d->buf, CL_FALSE, d->off + pos, len, slot_ptr(x, s), 0,
                                    NULL, &x->ev[s]);
    if (rc == CL_SUCCESS) rc = clFlush(x->q), call = "clFlush";
    return rc == CL_SUCCESS ? TDCL_OK : tdcl_fail_cl(err, rc, call, NULL);
}

/* Lane t: chunks t, t + lanes, ... read ahead into its slots 2t and
 * 2t+1, each handed to the sink as soon as it lands. */
static void download_lane(void *arg, int t)
{
    download *d = arg;
    struct tdcl_xfer *x = d->x;
    tdcl_status st = TDCL_OK;
    tdcl_err *err = &d->err[t];
    size_t step = (size_t)x->lanes;
    TDCL_TRY(enqueue_read(d, (size_t)t, 2 * t, err));
    TDCL_TRY(enqueue_read(d, (size_t)t + step, 2 * t + 1, err));
    for (size_t i = (size_t)t, k = 0; i * x->chunk < d->n && !d->stop; i += step, k++) {
        size_t pos = i * x->chunk, len = d->n - pos < x->chunk ? d->n - pos : x->chunk;
        int s = 2 * t + (int)(k & 1);
        TDCL_TRY(wait_slot(x, s, err));
        TDCL_TRY(d->sink(d->user, pos, slot_ptr(x, s), len, err));
        TDCL_TRY(enqueue_read(d, i + 2 * step, s, err));
    }
out:
    if (st) d->stop = 1;
    d->st[t] = st;
}

static tdcl_status download_on(struct tdcl_xfer *x, cl_command_queue q, cl_mem buf, size_t off,
                               size_t n, tdcl_xfer_sink sink, void *user, tdcl_err *err)
{
    if (!x) return download_plain(q, buf, off, n, sink, user, err);
    download d = {
        x, buf, off, n, sink, user, 0, {TDCL_OK}, calloc((size_t)x->lanes, sizeof(tdcl_err))};
    if (!d.err) return tdcl_fail(err, TDCL_ENOMEM, "out of memory for a staged copy");
    tdcl_pool_run(lanes_of(x, n), download_lane, &d);
    tdcl_status st = TDCL_OK;
    for (int t = 0; t < x->lanes && !st; t++)
        if ((st = d.st[t]) && err) *err = d.err[t];
    free(d.err);
    return drain(x, st, err);
}

tdcl_status tdcl_xfer_download(tdcl_ctx *ctx, cl_mem buf, size_t off, size_t n, tdcl_xfer_sink sink,
                               void *user, tdcl_err *err)
{
    return download_on(ring(ctx, n), ctx->queue, buf, off, n, sink, user, err);
}

int tdcl_xfer_lanes(tdcl_ctx *ctx, size_t n)
{
    struct tdcl_xfer *x = ring(ctx, n);
    return x ? lanes_of(x, n) : 1;
}

static tdcl_status copy_sink(void *user, size_t pos, const void *p, size_t n, tdcl_err *err)
{
    (void)err;
    memcpy((unsigned char *)user + pos, p, n);
    return TDCL_OK;
}

tdcl_status tdcl_xfer_read(tdcl_ctx *ctx, cl_mem buf, size_t off, void *dst, size_t n,
                           tdcl_err *err)
{
    if (!ring(ctx, n)) {
        cl_int rc = clEnqueueReadBuffer(ctx->queue, buf, CL_TRUE, off, n, dst, 0, NULL, NULL);
        return rc == CL_SUCCESS ? TDCL_OK : tdcl_fail_cl(err, rc, "clEnqueueReadBuffer", NULL);
    }
    return tdcl_xfer_download(ctx, buf, off, n, copy_sink, dst, err);
}

tdcl_status tdcl_xfer_open(tdcl_ctx *ctx, tdcl_xfer **out, tdcl_err *err)
{
    cl_int rc;
    *out = NULL;
    cl_command_queue q = clCreateCommandQueue(ctx->context, ctx->dev.device, 0, &rc);
    if (rc != CL_SUCCESS)
        return tdcl_fail_cl(err, rc, "clCreateCommandQueue", "a copy queue on '%s'",
                            ctx->dev.device_name);
    struct tdcl_xfer *x = xfer_new(ctx, q);
    if (!x) {
        clReleaseCommandQueue(q);
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory for a copy channel");
    }
    x->own_q = 1;
    *out = x;
    return TDCL_OK;
}

void tdcl_xfer_close(tdcl_xfer *x)
{
    if (x) xfer_free(x);
}

tdcl_status tdcl_xfer_put(tdcl_xfer *x, cl_mem buf, size_t off, const void *src, size_t n,
                          tdcl_err *err)
{
    return upload_on(chan_ring(x, n), x->q, buf, off, src, n, err);
}

tdcl_status tdcl_xfer_get(tdcl_xfer *x, cl_mem buf, size_t off, void *dst, size_t n, tdcl_err *err)
{
    struct tdcl_xfer *r = chan_ring(x, n);
    if (!r) {
        cl_int rc = clEnqueueReadBuffer(x->q, buf, CL_TRUE, off, n, dst, 0, NULL, NULL);
        return rc == CL_SUCCESS ? TDCL_OK : tdcl_fail_cl(err, rc, "clEnqueueReadBuffer", NULL);
    }
    return download_on(r, x->q, buf, off, n, copy_sink, dst, err);
}
