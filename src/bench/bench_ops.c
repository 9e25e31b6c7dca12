/* The per-operation benchmark drivers: the copy ceiling (cl/copy.cl), the
 * measured arithmetic peak (cl/peak.cl), and the operations through their
 * plan APIs; plus the text and JSON lines of a result.
 *
 * Every figure uses the median device time from profiling events; the host
 * time of each run, the plan's upload and one download are reported beside
 * it. Inputs are seeded random values, never all zeros, and each output is
 * spot-checked against the host so a broken kernel cannot post a figure. */
#include "bench/bench_ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/life_io.h"
#include "ops/life/life.h"
#include "ops/life/life_net.h"
#include "base/log.h"
#include "base/pool.h"
#include "base/rng.h"
#include "ops/matmul/matmul.h"
#include "ops/tile_avg/tile_avg.h"
#include "base/json.h"
#include "base/clock.h"

#define DEFAULT_REPS 10
#define DEFAULT_GENS 100
#define DEFAULT_SEED 0x7d1c5eedULL

/* What every driver of one job shares. */
typedef struct bench_job {
    tdcl_ctx *ctx;
    tdcl_bench_opts o; /* defaults filled in */
    tdcl_bench_emit_fn emit;
    void *user;
    double copy_gbps;
    double read_gbps; /* NaN until measured (tile-avg) */
    double life_peak; /* cell updates/s; NaN until measured (life) */
    double peak_gflops, spec_peak_gflops;
    int timer_said; /* bench_time's note was logged */
} bench_job;

/* tdcl_bench_time with the job's warm-up and repetitions; on the host's
 * clock where the device's cannot be trusted (a profiling timer of
 * resolution 0, or device times the timer rejected: Mesa's rusticl gives
 * about 1 ns a kernel, and copies at 1.3e8 GB/s), said once a job. */
static tdcl_status bench_time(bench_job *j, tdcl_bench_fn fn, void *user, tdcl_bench_stats *t,
                              tdcl_err *err)
{
    tdcl_status st = tdcl_bench_time(j->o.warmup, j->o.reps, fn, user, t, err);
    if (st || (j->ctx->dev.timer_ns > 0 && !t->host_timed)) return st;
    t->median_ms = t->host_median_ms;
    t->min_ms = t->host_min_ms;
    t->max_ms = t->host_max_ms;
    if (!j->timer_said)
        tdcl_log(TDCL_LOG_WARN,
                 "bench: device '%s' gives no usable kernel times (%s); the figures are host "
                 "times, each launch's overhead included",
                 j->ctx->dev.device_name,
                 j->ctx->dev.timer_ns
                     ? "under a microsecond for launches the host waited longer for"
                     : "its profiling timer's resolution is 0");
    j->timer_said = 1;
    return st;
}

void tdcl_bench_opts_init(tdcl_bench_opts *o)
{
    memset(o, 0, sizeof *o);
    o->op = TDCL_BENCH_COPY;
    o->type = TDCL_F32;
    o->warmup = 1;
}

static const char *const op_names[] = {"copy", "matmul", "tile-avg", "life", "all"};

const char *tdcl_bench_op_name(tdcl_bench_op op)
{
    return (unsigned)op <= TDCL_BENCH_ALL ? op_names[op] : "unknown";
}

int tdcl_bench_op_parse(const char *name, tdcl_bench_op *op)
{
    for (int i = 0; i <= TDCL_BENCH_ALL; i++)
        if (name && strcmp(name, op_names[i]) == 0) {
            *op = (tdcl_bench_op)i;
            return 0;
        }
    return -1;
}

int64_t tdcl_bench_default_size(const tdcl_device_info *d, tdcl_bench_op op)
{
    int big = !(d->type & CL_DEVICE_TYPE_CPU);
    switch (op) {
    case TDCL_BENCH_MATMUL:
        return big ? 8192 : 2048;
    case TDCL_BENCH_TILE_AVG:
        return big ? 16384 : 4096;
    case TDCL_BENCH_LIFE:
        return big ? 16384 : 2048;
    default:
        return big ? 16384 : 4096; /* copy: 1 GiB or 64 MiB per buffer */
    }
}

/* ---- shared helpers ----------------------------------------------------- */

static void result_init(const bench_job *j, tdcl_bench_result *r, const char *op)
{
    memset(r, 0, sizeof *r);
    snprintf(r->op, sizeof r->op, "%s", op);
    snprintf(r->device, sizeof r->device, "%s", j->ctx->dev.device_name);
    r->type = tdcl_dtype_name(TDCL_F32);
    r->copy_gbps = j->copy_gbps;
    r->frac_copy = r->peak_gflops = r->spec_peak_gflops = NAN;
    r->frac_peak = r->frac_spec_peak = NAN;
    r->computed_rate = NAN;
    r->read_gbps = j->read_gbps;
    r->life_peak = j->life_peak;
    r->frac_read = r->frac_life_peak = r->frac_ceiling = NAN;
}

/* The ceiling that bounds r's figure: the read ceiling for tile-avg (it
 * reads far more than it writes), the multiply-add peak for a float
 * matmul, the logic peak for life's bit-packed kernels; else copy. */
static const char *pick_ceiling(const tdcl_bench_result *r)
{
    if (strcmp(r->op, "tile-avg") == 0 || strcmp(r->op, "read") == 0) return "read";
    if (strcmp(r->rate_key, "gflops") == 0 && isfinite(r->peak_gflops)) return "peak";
    if (strcmp(r->op, "life-peak") == 0) return "life-peak";
    if (strcmp(r->op, "life") == 0 && strncmp(r->plan, "kernel=bits", 11) == 0) return "life-peak";
    return "copy";
}

/* r's fractions of the read and life ceilings, and of its own one. */
static void result_fracs(tdcl_bench_result *r)
{
    if (r->read_gbps > 0 && r->bytes > 0 && strcmp(r->rate_key, "gbps") == 0)
        r->frac_read = r->rate / r->read_gbps;
    /* with tiles skipped, the logic ran only on the tiles computed: those
     * cells' rate is what the logic peak bounds, not the whole grid's */
    double cells = isfinite(r->computed_rate) && r->computed_rate > 0 ? r->computed_rate : r->rate;
    if (r->life_peak > 0 && strcmp(r->rate_key, "cells_per_s") == 0)
        r->frac_life_peak = cells / r->life_peak;
    r->ceiling = pick_ceiling(r);
    if (strcmp(r->ceiling, "read") == 0)
        r->frac_ceiling = r->frac_read;
    else if (strcmp(r->ceiling, "peak") == 0)
        r->frac_ceiling = r->frac_peak;
    else if (strcmp(r->ceiling, "life-peak") == 0)
        r->frac_ceiling = r->frac_life_peak;
    else
        r->frac_ceiling = r->frac_copy;
}

/* Rates and fractions from r->t, r->bytes and the work of one run (FLOP for
 * gflops, bytes for gbps, cell updates for cells_per_s), then emits r. */
static void result_emit(const bench_job *j, tdcl_bench_result *r, double work)
{
    double s = r->t.median_ms / 1e3;
    r->total_ms = r->upload_ms + r->t.host_median_ms + r->download_ms;
    r->cpu = (j->ctx->dev.type & CL_DEVICE_TYPE_CPU) != 0;
    if (strcmp(r->rate_key, "cells_per_s") == 0)
        r->rate = work / s;
    else
        r->rate = work / s / 1e9;
    if (j->copy_gbps > 0 && r->bytes > 0) r->frac_copy = r->bytes / s / 1e9 / j->copy_gbps;
    if (strcmp(r->rate_key, "gflops") == 0) {
        r->peak_gflops = j->peak_gflops;
        r->spec_peak_gflops = j->spec_peak_gflops;
        if (j->peak_gflops > 0) r->frac_peak = r->rate / j->peak_gflops;
        if (j->spec_peak_gflops > 0) r->frac_spec_peak = r->rate / j->spec_peak_gflops;
    }
    result_fracs(r);
    if (j->emit) j->emit(r, j->user);
}

static size_t kernel_wg(const tdcl_ctx *ctx, cl_kernel k, size_t want)
{
    size_t wg = 0;
    if (clGetKernelWorkGroupInfo(k, ctx->dev.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                 NULL) != CL_SUCCESS ||
        wg == 0)
        wg = ctx->dev.max_wg;
    size_t l = want < wg ? want : wg;
    return l < ctx->dev.max_item_sizes[0] ? l : ctx->dev.max_item_sizes[0];
}

/* Enqueues k over gsize work-items in groups of lsize, waits, and returns the
 * device time of the launch. */
static tdcl_status launch(tdcl_ctx *ctx, cl_kernel k, size_t gsize, size_t lsize, double *ms,
                          tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_event ev = NULL;
    TDCL_CL_TRY(err, clEnqueueNDRangeKernel(ctx->queue, k, 1, NULL, &gsize, &lsize, 0, NULL, &ev),
                "clEnqueueNDRangeKernel");
    TDCL_CL_TRY(err, clWaitForEvents(1, &ev), "clWaitForEvents");
    *ms = tdcl_event_ms(ev);
    ctx->t.kernel_ms += *ms;
out:
    if (ev) clReleaseEvent(ev);
    return st;
}

/* ---- the copy ceiling ----------------------------------------------------- */

struct tdcl_bench_copy {
    tdcl_ctx *ctx;
    cl_program prog;
    cl_kernel k;
    cl_mem src, dst;
    size_t n, gsize, lsize;
    int vec;
    int per;   /* read_f32: vectors per work-item; 0: copy_f32 */
    int chunk; /* read_f32: a work-item's vectors are contiguous (else strided) */
    char desc[96];
};
typedef struct tdcl_bench_copy copy_run;

static void copy_release(copy_run *c)
{
    if (c->k) clReleaseKernel(c->k);
    if (c->prog) clReleaseProgram(c->prog);
    if (c->src) clReleaseMemObject(c->src);
    if (c->dst) clReleaseMemObject(c->dst);
    memset(c, 0, sizeof *c);
}

/* The launch shape: per 0 (copy), one vector per work-item: contiguous for
 * a CPU's vectorised work-group loops, coalesced on a GPU; else (read)
 * per vectors per work-item. */
static void copy_shape(copy_run *c, size_t want_wg)
{
    c->lsize = kernel_wg(c->ctx, c->k, want_wg);
    size_t items = c->per ? c->n / (size_t)c->vec / (size_t)c->per + 1 : c->n / (size_t)c->vec + 1;
    c->gsize = (items + c->lsize - 1) / c->lsize * c->lsize;
    if (c->per)
        snprintf(c->desc, sizeof c->desc, "read_f32 vec=%d per=%d %s items=%zu wg=%zu", c->vec,
                 c->per, c->chunk ? "contiguous" : "strided", c->gsize, c->lsize);
    else
        snprintf(c->desc, sizeof c->desc, "copy_f32 vec=%d items=%zu wg=%zu", c->vec, c->gsize,
                 c->lsize);
}

/* Builds copy_f32 (per 0) or read_f32 (per > 0: about per vectors summed
 * by each work-item, contiguous ones when chunk, else strided by the global
 * size) with VEC=vec, uploads host (n floats) and sets the launch shape. */
static tdcl_status copy_setup(tdcl_ctx *ctx, const float *host, size_t n, int vec, int per,
                              int chunk, copy_run *c, double *upload_ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    char opts[32];
    cl_int rc;
    double t0 = tdcl_now_ms(), c0 = ctx->t.compile_ms;
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    c->n = n;
    c->vec = vec;
    c->per = per;
    c->chunk = chunk;
    snprintf(opts, sizeof opts, "-DVEC=%d", vec);
    TDCL_TRY(tdcl_ctx_program(ctx, "copy.cl", opts, &c->prog, err));
    TDCL_TRY(tdcl_ctx_kernel(c->prog, per ? "read_f32" : "copy_f32", &c->k, err));
    copy_shape(c, 256);
    c->src = clCreateBuffer(ctx->context, CL_MEM_READ_ONLY, n * sizeof(float), NULL, &rc);
    TDCL_CL_TRY(err, rc, "clCreateBuffer");
    c->dst = clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, (per ? c->gsize : n) * sizeof(float),
                            NULL, &rc);
    TDCL_CL_TRY(err, rc, "clCreateBuffer");
    TDCL_CL_TRY(err,
                clEnqueueWriteBuffer(ctx->queue, c->src, CL_TRUE, 0, n * sizeof(float), host, 0,
                                     NULL, NULL),
                "clEnqueueWriteBuffer");
    cl_ulong nn = n;
    TDCL_CL_TRY(err, clSetKernelArg(c->k, 0, sizeof c->src, &c->src), "clSetKernelArg");
    TDCL_CL_TRY(err, clSetKernelArg(c->k, 1, sizeof c->dst, &c->dst), "clSetKernelArg");
    TDCL_CL_TRY(err, clSetKernelArg(c->k, 2, sizeof nn, &nn), "clSetKernelArg");
    cl_uint ch = chunk ? (cl_uint)per : 0;
    if (per) TDCL_CL_TRY(err, clSetKernelArg(c->k, 3, sizeof ch, &ch), "clSetKernelArg");
    *upload_ms = tdcl_now_ms() - t0 - (ctx->t.compile_ms - c0);
    ctx->t.upload_ms += *upload_ms;
out:
    return st;
}

static tdcl_status copy_exec(void *user, double *ms, tdcl_err *err)
{
    copy_run *c = user;
    return launch(c->ctx, c->k, c->gsize, c->lsize, ms, err);
}

/* Downloads the copy and compares it with what was uploaded. */
static tdcl_status copy_check(copy_run *c, const float *host, double *download_ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    double t0 = tdcl_now_ms();
    float *back = malloc(c->n * sizeof *back);
    if (!back) return tdcl_fail(err, TDCL_ENOMEM, "bench: out of memory for the copy check");
    TDCL_CL_TRY(err,
                clEnqueueReadBuffer(c->ctx->queue, c->dst, CL_TRUE, 0, c->n * sizeof(float), back,
                                    0, NULL, NULL),
                "clEnqueueReadBuffer");
    *download_ms = tdcl_now_ms() - t0;
    c->ctx->t.download_ms += *download_ms;
    if (memcmp(back, host, c->n * sizeof(float)) != 0)
        st = tdcl_fail(err, TDCL_EVERIFY, "bench: the device copy differs from its input");
out:
    free(back);
    return st;
}

tdcl_status tdcl_bench_copy_create(tdcl_ctx *ctx, const float *host, size_t n, int vec,
                                   tdcl_bench_copy **out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    double upload_ms = 0;
    copy_run *c = calloc(1, sizeof *c);
    *out = NULL;
    if (!c) return tdcl_fail(err, TDCL_ENOMEM, "bench: out of memory");
    if (vec != 1 && vec != 4 && vec != 8) {
        st = tdcl_fail(err, TDCL_EINVAL, "bench: copy takes a vector width 1, 4 or 8, got %d", vec);
        goto out;
    }
    TDCL_TRY(copy_setup(ctx, host, n, vec, 0, 0, c, &upload_ms, err));
out:
    if (st) {
        tdcl_bench_copy_destroy(c);
        return st;
    }
    *out = c;
    return TDCL_OK;
}

tdcl_status tdcl_bench_copy_exec(void *copy, double *ms, tdcl_err *err)
{
    return copy_exec(copy, ms, err);
}

const char *tdcl_bench_copy_describe(const tdcl_bench_copy *c)
{
    return c ? c->desc : "";
}

void tdcl_bench_copy_destroy(tdcl_bench_copy *c)
{
    if (!c) return;
    copy_release(c);
    free(c);
}

/* The copy size: the one asked for (refused when the device cannot hold
 * it), or the default halved until two buffers fit comfortably. */
static tdcl_status copy_size(const bench_job *j, int64_t *edge, tdcl_err *err)
{
    const tdcl_device_info *d = &j->ctx->dev;
    int64_t forced = j->o.op == TDCL_BENCH_COPY && j->o.size ? j->o.size : j->o.copy_size;
    int64_t e = forced ? forced : tdcl_bench_default_size(d, TDCL_BENCH_COPY);
    for (;;) {
        double bytes = (double)e * (double)e * sizeof(float);
        if (bytes <= (double)d->max_alloc && 2 * bytes <= (double)d->global_mem / 2) break;
        if (forced)
            return tdcl_fail(err, TDCL_ELIMIT,
                             "bench: a %lldx%lld float copy needs two buffers of %.0f MiB; the "
                             "device allows %.0f MiB per buffer and %.0f MiB in all",
                             (long long)e, (long long)e, bytes / 1048576.0,
                             d->max_alloc / 1048576.0, d->global_mem / 1048576.0);
        e /= 2;
    }
    *edge = e;
    return TDCL_OK;
}

/* Recomputes read_f32's partial sums from host (n floats) in double, with
 * their magnitudes: element e is summed by the work-item that reads its
 * vector (contiguous runs of per vectors, or every global size-th vector),
 * or in the tail by work-item e - nvec*vec modulo the global size. */
static void read_expected(const copy_run *c, const float *host, double *want, double *mag)
{
    size_t vec = (size_t)c->vec, nvec = c->n / vec, per = (size_t)c->per;
    size_t g = 0, left = per; /* the work-item of vector v, counted along */
    for (size_t i = 0; i < c->gsize; i++)
        want[i] = mag[i] = 0;
    for (size_t v = 0; v < nvec; v++) {
        for (size_t l = 0; l < vec; l++) {
            want[g] += host[v * vec + l];
            mag[g] += fabs(host[v * vec + l]);
        }
        if (!c->chunk && ++g == c->gsize) g = 0;
        if (c->chunk && --left == 0) {
            g++;
            left = per;
        }
    }
    g = 0;
    for (size_t e = nvec * vec; e < c->n; e++) { /* the tail */
        want[g] += host[e];
        mag[g] += fabs(host[e]);
        if (++g == c->gsize) g = 0;
    }
}

/* Downloads read_f32's partial sums and checks every one against the host:
 * within (terms + 2) float roundings of the sum of the magnitudes. */
static tdcl_status read_check(copy_run *c, const float *host, double *download_ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    double t0 = tdcl_now_ms(), *want = NULL, *mag = NULL;
    float *back = malloc(c->gsize * sizeof *back);
    want = malloc(c->gsize * sizeof *want);
    mag = malloc(c->gsize * sizeof *mag);
    if (!back || !want || !mag) {
        st = tdcl_fail(err, TDCL_ENOMEM, "bench: out of memory for the read check");
        goto out;
    }
    TDCL_CL_TRY(err,
                clEnqueueReadBuffer(c->ctx->queue, c->dst, CL_TRUE, 0, c->gsize * sizeof(float),
                                    back, 0, NULL, NULL),
                "clEnqueueReadBuffer");
    *download_ms = tdcl_now_ms() - t0;
    read_expected(c, host, want, mag);
    double terms = (double)c->n / (double)c->gsize + 2;
    for (size_t g = 0; g < c->gsize && !st; g++)
        if (!(fabs(back[g] - want[g]) <= terms * 0x1p-24 * mag[g]))
            st = tdcl_fail(err, TDCL_EVERIFY,
                           "bench: the read kernel's work-item %zu summed %.9g, the host %.9g", g,
                           (double)back[g], want[g]);
out:
    free(back);
    free(want);
    free(mag);
    return st;
}

/* Times copy_f32 (per 0) or read_f32 (per vectors per work-item,
 * contiguous when chunk, else strided) with vector width vec, checks its
 * output against host, and keeps it in *best when its fastest run, in
 * bytes per second, beats the best so far. */
static tdcl_status mem_try(bench_job *j, const float *host, size_t n, int vec, int per, int chunk,
                           tdcl_bench_result *best, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    copy_run c = {0};
    tdcl_bench_result r = *best;
    TDCL_TRY(copy_setup(j->ctx, host, n, vec, per, chunk, &c, &r.upload_ms, err));
    TDCL_TRY(bench_time(j, copy_exec, &c, &r.t, err));
    TDCL_TRY(per ? read_check(&c, host, &r.download_ms, err)
                 : copy_check(&c, host, &r.download_ms, err));
    r.bytes = (double)(per ? n + c.gsize : 2 * n) * sizeof(float);
    tdcl_log(TDCL_LOG_VERBOSE, "bench: %s: %.4g GB/s (median), %.4g (fastest)", c.desc,
             r.bytes / r.t.median_ms / 1e6, r.bytes / r.t.min_ms / 1e6);
    snprintf(r.plan, sizeof r.plan, "%s", c.desc);
    if (best->t.reps == 0 || r.bytes / r.t.min_ms > best->bytes / best->t.min_ms) *best = r;
out:
    copy_release(&c);
    return st;
}

/* The copy ceiling: the fastest run of the best vector width (unless one is
 * forced), in GB/s read plus written. Emitted as op "copy": its median as
 * gbps, the ceiling as copy_gbps. */
static tdcl_status measure_copy(bench_job *j, const float *host, int64_t e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_bench_result r;
    size_t n = (size_t)e * (size_t)e;
    result_init(j, &r, "copy");
    /* the ceiling is the best vector width unless one is forced */
    static const int widths[] = {1, 4, 8};
    int forced = j->o.op == TDCL_BENCH_COPY ? j->o.tile : 0; /* else the ops' tile */
    for (int w = 0; w < 3; w++)
        if (!forced || forced == widths[w]) TDCL_TRY(mem_try(j, host, n, widths[w], 0, 0, &r, err));
    r.size = e;
    r.checked = 1;
    r.rate_key = "gbps";
    r.bytes = 2.0 * (double)n * sizeof(float);
    j->copy_gbps = r.bytes / (r.t.min_ms / 1e3) / 1e9; /* the fastest run: a ceiling */
    r.copy_gbps = j->copy_gbps;
    result_emit(j, &r, r.bytes);
out:
    return st;
}

/* The read ceiling, for operations that read far more than they write
 * (tile-avg): the fastest run of the best of read_f32's vector widths 1, 4
 * and 8, 16 or 256 vectors per work-item, contiguous or strided, in GB/s
 * read plus written (the partial sums, 1/16 of the input at most). Emitted
 * as op "read". */
static tdcl_status measure_read(bench_job *j, const float *host, int64_t e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_bench_result r;
    size_t n = (size_t)e * (size_t)e;
    static const int widths[] = {1, 4, 8}, pers[] = {16, 256};
    result_init(j, &r, "read");
    for (int w = 0; w < 3; w++)
        for (int p = 0; p < 2; p++)
            for (int chunk = 0; chunk < 2; chunk++)
                TDCL_TRY(mem_try(j, host, n, widths[w], pers[p], chunk, &r, err));
    r.size = e;
    r.checked = 1;
    r.rate_key = "gbps";
    j->read_gbps = r.bytes / (r.t.min_ms / 1e3) / 1e9;
    r.read_gbps = j->read_gbps;
    result_emit(j, &r, r.bytes);
out:
    return st;
}

/* The memory ceilings on one NxN float array of seeded values: copy
 * always, read when tile-avg is measured. */
static tdcl_status measure_memory(bench_job *j, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t e = 0;
    float *host = NULL;
    TDCL_TRY(copy_size(j, &e, err));
    size_t n = (size_t)e * (size_t)e;
    host = malloc(n * sizeof *host);
    if (!host) {
        st = tdcl_fail(err, TDCL_ENOMEM, "bench: out of memory for a %lldx%lld copy input",
                       (long long)e, (long long)e);
        goto out;
    }
    uint64_t s = j->o.seed;
    for (size_t i = 0; i < n; i++)
        host[i] = (float)tdcl_rng_uniform(&s, -1, 1);
    TDCL_TRY(measure_copy(j, host, e, err));
    if (j->o.op == TDCL_BENCH_TILE_AVG || j->o.op == TDCL_BENCH_ALL)
        TDCL_TRY(measure_read(j, host, e, err));
out:
    free(host);
    return st;
}

/* ---- the arithmetic peak ------------------------------------------------ */

/* FP32 lanes per NVIDIA streaming multiprocessor, by compute capability. */
static int nv_fp32_per_sm(int major, int minor)
{
    if (major == 6) return minor == 0 ? 64 : 128;
    if (major == 7 || (major == 8 && minor == 0)) return 64;
    if (major >= 8 && major <= 12) return 128;
    return 0;
}

/* The specification's peak in GFLOP/s, or NaN when tiledcl does not know it:
 * NVIDIA only (FP64 only on the 1:2 parts: P100, V100, A100, H100/H200). */
static double spec_peak(const tdcl_device_info *d, tdcl_dtype t)
{
    int lanes = nv_fp32_per_sm(d->nv_cc_major, d->nv_cc_minor);
    if (!lanes || !d->clock_mhz || !d->compute_units) return NAN;
    if (t == TDCL_F64) {
        int half = d->nv_cc_minor == 0 && (d->nv_cc_major == 6 || d->nv_cc_major == 7 ||
                                           d->nv_cc_major == 8 || d->nv_cc_major == 9);
        if (!half) return NAN;
        lanes /= 2;
    } else if (t != TDCL_F32) {
        return NAN;
    }
    return 2.0 * lanes * d->compute_units * d->clock_mhz / 1e3;
}

typedef struct peak_run {
    tdcl_ctx *ctx;
    cl_program prog;
    cl_kernel k;
    cl_mem out;
    size_t gsize, lsize;
    int dbl, vw, iters;
} peak_run;

#define PEAK_A 0.999
#define PEAK_B 0.001

static void peak_release(peak_run *p)
{
    if (p->k) clReleaseKernel(p->k);
    if (p->prog) clReleaseProgram(p->prog);
    if (p->out) clReleaseMemObject(p->out);
}

static tdcl_status peak_exec(void *user, double *ms, tdcl_err *err)
{
    peak_run *p = user;
    return launch(p->ctx, p->k, p->gsize, p->lsize, ms, err);
}

/* FLOP of one launch: 8 chains of VW-wide multiply-adds per iteration. */
static double peak_flop(const peak_run *p)
{
    return 16.0 * p->vw * p->iters * (double)p->gsize;
}

/* Builds peak_fma for the element type and vector width, sized so one
 * launch is a few milliseconds on a CPU and on a large GPU alike. */
static tdcl_status peak_setup(const bench_job *j, int vw, peak_run *p, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_ctx *ctx = j->ctx;
    char opts[80];
    cl_int rc;
    cl_float af = (cl_float)PEAK_A, bf = (cl_float)PEAK_B;
    cl_double ad = PEAK_A, bd = PEAK_B;
    p->ctx = ctx;
    p->dbl = j->o.type == TDCL_F64;
    p->vw = vw;
    /* a few ms per launch: long enough to time, short enough to dodge a busy
     * machine's scheduler on a CPU */
    p->iters = ctx->dev.type & CL_DEVICE_TYPE_CPU ? 1024 : 4096;
    snprintf(opts, sizeof opts, "-DREAL=%s -DITERS=%d -DVW=%d", p->dbl ? "double" : "float",
             p->iters, vw);
    TDCL_TRY(tdcl_ctx_program(ctx, "peak.cl", opts, &p->prog, err));
    TDCL_TRY(tdcl_ctx_kernel(p->prog, "peak_fma", &p->k, err));
    p->lsize = kernel_wg(j->ctx, p->k, 256);
    p->gsize = (size_t)ctx->dev.compute_units * p->lsize * 4;
    p->out =
        clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, p->gsize * (p->dbl ? 8 : 4), NULL, &rc);
    TDCL_CL_TRY(err, rc, "clCreateBuffer");
    TDCL_CL_TRY(err, clSetKernelArg(p->k, 0, sizeof p->out, &p->out), "clSetKernelArg");
    TDCL_CL_TRY(err,
                p->dbl ? clSetKernelArg(p->k, 1, sizeof ad, &ad)
                       : clSetKernelArg(p->k, 1, sizeof af, &af),
                "clSetKernelArg");
    TDCL_CL_TRY(err,
                p->dbl ? clSetKernelArg(p->k, 2, sizeof bd, &bd)
                       : clSetKernelArg(p->k, 2, sizeof bf, &bf),
                "clSetKernelArg");
out:
    return st;
}

/* What work-item g writes: VW lanes of 8 chains x <- a*x + b from
 * g*1e-7 + c/10, after ITERS steps (closed form). */
static double peak_expected(const peak_run *p, size_t g)
{
    double an = pow(PEAK_A, p->iters), fix = PEAK_B / (1 - PEAK_A), sum = 0;
    for (int c = 0; c < 8; c++) {
        double x0 = (double)g * 1e-7 + c / 10.0;
        sum += an * x0 + fix * (1 - an);
    }
    return sum * p->vw;
}

/* Checks the first, middle and last work-items' sums: the launch did all
 * its iterations, or the figure would be a lie. */
static tdcl_status peak_check(const peak_run *p, tdcl_err *err)
{
    const size_t idx[3] = {0, p->gsize / 2, p->gsize - 1};
    for (int i = 0; i < 3; i++) {
        double got;
        cl_float f;
        cl_int rc = p->dbl ? clEnqueueReadBuffer(p->ctx->queue, p->out, CL_TRUE, idx[i] * 8, 8,
                                                 &got, 0, NULL, NULL)
                           : clEnqueueReadBuffer(p->ctx->queue, p->out, CL_TRUE, idx[i] * 4, 4, &f,
                                                 0, NULL, NULL);
        if (rc != CL_SUCCESS) return tdcl_fail_cl(err, rc, "clEnqueueReadBuffer", NULL);
        if (!p->dbl) got = f;
        double want = peak_expected(p, idx[i]);
        if (!(fabs(got - want) <= 1e-3 * fabs(want)))
            return tdcl_fail(err, TDCL_EVERIFY,
                             "bench: the peak kernel's work-item %zu gave %g, expected %g", idx[i],
                             got, want);
    }
    return TDCL_OK;
}

/* Times peak_fma with vector width vw; keeps it in *best (and its FLOP per
 * launch in *best_flop) when its fastest run beats the best so far. */
static tdcl_status peak_try(bench_job *j, int vw, tdcl_bench_result *best, double *best_flop,
                            tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    peak_run p = {0};
    tdcl_bench_result r = *best;
    TDCL_TRY(peak_setup(j, vw, &p, err));
    TDCL_TRY(bench_time(j, peak_exec, &p, &r.t, err));
    TDCL_TRY(peak_check(&p, err));
    double flop = peak_flop(&p);
    tdcl_log(TDCL_LOG_VERBOSE, "bench: peak vw=%d: %.4g GFLOP/s (median), %.4g (fastest)", vw,
             flop / r.t.median_ms / 1e6, flop / r.t.min_ms / 1e6);
    if (best->t.reps == 0 || flop / r.t.min_ms > *best_flop / best->t.min_ms) {
        snprintf(r.plan, sizeof r.plan, "peak_fma vw=%d iters=%d items=%zu wg=%zu", vw, p.iters,
                 p.gsize, p.lsize);
        *best = r;
        *best_flop = flop;
    }
out:
    peak_release(&p);
    return st;
}

/* Measures the multiply-add peak of the matmul element type (float or
 * double; integers have none): the fastest run of the best of vector
 * widths 4, 8, 16 is the ceiling. Emits it as op "peak". */
static tdcl_status measure_peak(bench_job *j, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_bench_result r;
    double flop = 0;
    j->spec_peak_gflops = spec_peak(&j->ctx->dev, j->o.type);
    if (j->o.type != TDCL_F32 && j->o.type != TDCL_F64) return TDCL_OK;
    result_init(j, &r, "peak");
    r.type = tdcl_dtype_name(j->o.type);
    for (int vw = 4; vw <= 16; vw *= 2)
        TDCL_TRY(peak_try(j, vw, &r, &flop, err));
    r.checked = 1;
    r.rate_key = "gflops";
    j->peak_gflops = flop / (r.t.min_ms / 1e3) / 1e9;
    result_emit(j, &r, flop);
out:
    return st;
}

/* ---- the life logic peak ------------------------------------------------ */

/* cl/life.cl's life_peak: B3/S23 over PK rows of NV words of WB bits per
 * work-item, from registers; see its comment. */
#define LP_ROWS 8

typedef struct lpeak_run {
    tdcl_ctx *ctx;
    cl_program prog;
    cl_kernel k;
    cl_mem out;
    size_t gsize, lsize;
    int wb, nv, iters, lop3;
} lpeak_run;

static void lpeak_release(lpeak_run *p)
{
    if (p->k) clReleaseKernel(p->k);
    if (p->prog) clReleaseProgram(p->prog);
    if (p->out) clReleaseMemObject(p->out);
}

static tdcl_status lpeak_exec(void *user, double *ms, tdcl_err *err)
{
    lpeak_run *p = user;
    return launch(p->ctx, p->k, p->gsize, p->lsize, ms, err);
}

static double lpeak_cells(const lpeak_run *p)
{
    return (double)p->gsize * p->iters * LP_ROWS * p->nv * p->wb;
}

/* Builds life_peak for wb-bit words, nv per vector, with as many steps as
 * keep a launch near a few milliseconds whatever the width. */
static tdcl_status lpeak_setup(const bench_job *j, int wb, int nv, lpeak_run *p, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_ctx *ctx = j->ctx;
    char opts[256];
    cl_int rc;
    int base = ctx->dev.type & CL_DEVICE_TYPE_CPU ? 2048 : 4096;
    p->ctx = ctx;
    p->wb = wb;
    p->nv = nv;
    p->iters = base * 32 / (wb * nv) < 16 ? 16 : base * 32 / (wb * nv);
    int n =
        snprintf(opts, sizeof opts,
                 "-DLIFE_KERNEL=6 -DBIRTH=0x8 -DSURVIVE=0xc -DWBITS=%d -DVW=%d -DITERS=%d -DPK=%d",
                 wb, nv, p->iters, LP_ROWS);
    /* the product's network (life.c's build): the rule's gates, on NVIDIA
     * for one word a work-item as one PTX lop3 each, row sums from 32-bit
     * halves */
    const int lop3 = nv == 1 && ctx->dev.nv_cc_major > 0;
    const int net3 = tdcl_life_net_pays(&ctx->dev, lop3) &&
                     tdcl_life_net_opts(tdcl_life_rule_conway(), opts, sizeof opts, &n);
    p->lop3 = lop3 && net3;
    if (p->lop3)
        snprintf(opts + n, sizeof opts - (size_t)n, " -DLOP3ASM=1%s",
                 wb == 64 ? " -DHALVES=1" : "");
    TDCL_TRY(tdcl_ctx_program(ctx, "life.cl", opts, &p->prog, err));
    TDCL_TRY(tdcl_ctx_kernel(p->prog, "life_peak", &p->k, err));
    p->lsize = kernel_wg(ctx, p->k, 256);
    p->gsize = (size_t)ctx->dev.compute_units * p->lsize * 4;
    p->out =
        clCreateBuffer(ctx->context, CL_MEM_WRITE_ONLY, p->gsize * (size_t)(wb / 8), NULL, &rc);
    TDCL_CL_TRY(err, rc, "clCreateBuffer");
    TDCL_CL_TRY(err, clSetKernelArg(p->k, 0, sizeof p->out, &p->out), "clSetKernelArg");
out:
    return st;
}

/* life_peak's start word idx: splitmix64, as the kernel's peak_seed. */
static uint64_t lpeak_seed(uint64_t idx)
{
    uint64_t z = (idx + 1) * UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* One step of life_peak on one lane, cell by cell: each bit counts its
 * word's west, centre and east bits (west and east reaching into the rows
 * above and below, as the kernel's row sums do) over its own row and the
 * two beside it, itself included, and lives with 3, or with 4 when alive. */
static void lpeak_step(uint64_t *x, int wb, uint64_t mask)
{
    int cnt[LP_ROWS][64];
    uint64_t nx[LP_ROWS];
    for (int i = 0; i < LP_ROWS; i++) {
        uint64_t l = x[(i + LP_ROWS - 1) % LP_ROWS], c = x[i], r = x[(i + 1) % LP_ROWS];
        uint64_t w = ((c << 1) | (l >> (wb - 1))) & mask, e = ((c >> 1) | (r << (wb - 1))) & mask;
        for (int b = 0; b < wb; b++)
            cnt[i][b] = (int)(((w >> b) & 1) + ((c >> b) & 1) + ((e >> b) & 1));
    }
    for (int i = 0; i < LP_ROWS; i++) {
        int u = (i + LP_ROWS - 1) % LP_ROWS, d = (i + 1) % LP_ROWS;
        nx[i] = 0;
        for (int b = 0; b < wb; b++) {
            int n9 = cnt[u][b] + cnt[i][b] + cnt[d][b];
            int live = n9 == 3 || (n9 == 4 && ((x[i] >> b) & 1));
            nx[i] |= (uint64_t)live << b;
        }
    }
    memcpy(x, nx, sizeof nx);
}

/* What work-item g writes: the XOR of its words after every step. */
static uint64_t lpeak_expected(const lpeak_run *p, size_t g)
{
    uint64_t mask = p->wb == 64 ? ~UINT64_C(0) : (UINT64_C(1) << p->wb) - 1, r = 0;
    for (int v = 0; v < p->nv; v++) {
        uint64_t x[LP_ROWS];
        for (int i = 0; i < LP_ROWS; i++)
            x[i] =
                lpeak_seed(((uint64_t)g * LP_ROWS + (uint64_t)i) * (uint64_t)p->nv + (uint64_t)v) &
                mask;
        for (int it = 0; it < p->iters; it++) {
            lpeak_step(x, p->wb, mask);
            x[0] ^= (uint64_t)it & mask;
        }
        for (int i = 0; i < LP_ROWS; i++)
            r ^= x[i];
    }
    return r;
}

/* Checks the first, middle and last work-items against the host. */
static tdcl_status lpeak_check(const lpeak_run *p, tdcl_err *err)
{
    const size_t idx[3] = {0, p->gsize / 2, p->gsize - 1};
    for (int i = 0; i < 3; i++) {
        uint64_t got = 0;
        uint32_t got32 = 0;
        size_t wbytes = (size_t)(p->wb / 8);
        cl_int rc = clEnqueueReadBuffer(p->ctx->queue, p->out, CL_TRUE, idx[i] * wbytes, wbytes,
                                        p->wb == 64 ? (void *)&got : (void *)&got32, 0, NULL, NULL);
        if (rc != CL_SUCCESS) return tdcl_fail_cl(err, rc, "clEnqueueReadBuffer", NULL);
        if (p->wb == 32) got = got32;
        uint64_t want = lpeak_expected(p, idx[i]);
        if (got != want)
            return tdcl_fail(err, TDCL_EVERIFY,
                             "bench: the life peak kernel's work-item %zu gave %#llx, the host "
                             "%#llx",
                             idx[i], (unsigned long long)got, (unsigned long long)want);
    }
    return TDCL_OK;
}

/* Times life_peak with wb-bit words, nv per vector; keeps it in *best (and
 * its cell updates per launch in *best_cells) when its fastest run beats
 * the best so far. */
static tdcl_status lpeak_try(bench_job *j, int wb, int nv, tdcl_bench_result *best,
                             double *best_cells, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    lpeak_run p = {0};
    tdcl_bench_result r = *best;
    TDCL_TRY(lpeak_setup(j, wb, nv, &p, err));
    TDCL_TRY(bench_time(j, lpeak_exec, &p, &r.t, err));
    TDCL_TRY(lpeak_check(&p, err));
    double cells = lpeak_cells(&p);
    tdcl_log(TDCL_LOG_VERBOSE, "bench: life peak %dx%d: %.4g cells/s (median), %.4g (fastest)", nv,
             wb, cells / r.t.median_ms * 1e3, cells / r.t.min_ms * 1e3);
    if (best->t.reps == 0 || cells / r.t.min_ms > *best_cells / best->t.min_ms) {
        snprintf(r.plan, sizeof r.plan, "life_peak w=%dx%d rows=%d steps=%d items=%zu wg=%zu%s", nv,
                 wb, LP_ROWS, p.iters, p.gsize, p.lsize, p.lop3 ? " lop3" : "");
        *best = r;
        *best_cells = cells;
    }
out:
    lpeak_release(&p);
    return st;
}

/* The logic ceiling of the bit-packed life kernels: the fastest run of the
 * best of 32- and 64-bit words, 1 to 8 per vector, in cell updates per
 * second. Emitted as op "life-peak". */
static tdcl_status measure_life_peak(bench_job *j, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_bench_result r;
    double cells = 0;
    static const int shapes[][2] = {{32, 1}, {32, 4}, {64, 1}, {64, 2}, {64, 8}};
    result_init(j, &r, "life-peak");
    r.type = tdcl_dtype_name(TDCL_U8);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        TDCL_TRY(lpeak_try(j, shapes[i][0], shapes[i][1], &r, &cells, err));
    r.checked = 1;
    r.rate_key = "cells_per_s";
    j->life_peak = cells / (r.t.min_ms / 1e3);
    r.life_peak = j->life_peak;
    result_emit(j, &r, cells);
out:
    return st;
}

/* ---- the operations --------------------------------------------------------- */

static int64_t op_size(const bench_job *j, tdcl_bench_op op)
{
    return j->o.size ? j->o.size : tdcl_bench_default_size(&j->ctx->dev, op);
}

/* Seeded values in [lo, hi) (integer types: rounded down) into m. */
static void fill_random(tdcl_matrix *m, uint64_t seed, double lo, double hi)
{
    size_t n = tdcl_matrix_count(m);
    uint64_t s = seed;
    for (size_t k = 0; k < n; k++) {
        double v = tdcl_rng_uniform(&s, lo, hi);
        switch (m->dtype) {
        case TDCL_F32:
            ((float *)m->data)[k] = (float)v;
            break;
        case TDCL_F64:
            ((double *)m->data)[k] = v;
            break;
        case TDCL_I64:
            ((int64_t *)m->data)[k] = (int64_t)floor(v);
            break;
        default:
            break; /* the bench makes only these */
        }
    }
}

/* Host time since t0 less the program builds since c0: the upload and the
 * set-up of a plan. */
static double since_less_builds(const tdcl_ctx *ctx, double t0, double c0)
{
    double ms = tdcl_now_ms() - t0 - (ctx->t.compile_ms - c0);
    return ms > 0 ? ms : 0;
}

/* tile-avg: an NxN matrix of the bench's element type, TxT tiles (16 by
 * default); GB/s of the input read plus the means written. */
static tdcl_status ta_exec(void *user, double *ms, tdcl_err *err)
{
    return tdcl_ta_plan_execute(user, ms, err);
}

static tdcl_status ta_verify(const tdcl_ta_opts *o, const tdcl_matrix *in, const tdcl_matrix *out,
                             tdcl_err *err)
{
    double rel = 0;
    tdcl_status st = tdcl_ta_compare(o, in, out, &rel, err);
    if (st == TDCL_OK && !(rel <= 1e-6))
        st = tdcl_fail(err, TDCL_EVERIFY,
                       "bench: tile-avg means differ from the host's by %.3g (relative)", rel);
    return st;
}

static tdcl_status bench_tile_avg(bench_job *j, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_ctx *ctx = j->ctx;
    tdcl_matrix in = {0}, out = {0};
    tdcl_ta_plan *p = NULL;
    tdcl_bench_result r;
    int64_t n = op_size(j, TDCL_BENCH_TILE_AVG), t = j->o.tile ? j->o.tile : 16;
    int64_t u = j->o.tile_cols ? j->o.tile_cols : t;
    tdcl_ta_opts o = {.tile_rows = t, .tile_cols = u};
    TDCL_TRY(tdcl_matrix_alloc(&in, n, n, 1, j->o.type, err));
    fill_random(&in, j->o.seed + 1, 0, j->o.type == TDCL_I64 ? 1000 : 1);
    result_init(j, &r, "tile-avg");
    double t0 = tdcl_now_ms(), c0 = ctx->t.compile_ms;
    TDCL_TRY(tdcl_ta_plan_create(ctx, &o, &in, &p, err));
    r.upload_ms = since_less_builds(ctx, t0, c0);
    TDCL_TRY(bench_time(j, ta_exec, p, &r.t, err));
    t0 = tdcl_now_ms();
    TDCL_TRY(tdcl_ta_plan_result(p, &out, err));
    r.download_ms = tdcl_now_ms() - t0;
    TDCL_TRY(ta_verify(&o, &in, &out, err));
    r.checked = 1;
    r.type = tdcl_dtype_name(in.dtype);
    r.size = n;
    r.tile = t;
    r.tile_cols = u != t ? u : 0;
    snprintf(r.plan, sizeof r.plan, "%s", tdcl_ta_plan_describe(p));
    r.rate_key = "gbps";
    r.bytes = (double)tdcl_matrix_count(&in) * (double)tdcl_dtype_size(in.dtype) +
              (double)tdcl_matrix_count(&out) * (double)tdcl_dtype_size(out.dtype);
    result_emit(j, &r, r.bytes);
out:
    tdcl_ta_plan_destroy(p);
    tdcl_matrix_free(&in);
    tdcl_matrix_free(&out);
    return st;
}

/* life: an NxN B3/S23 soup (density 0.25, dead boundary), G generations
 * per run; cell updates per second, and as traffic one byte read and one
 * written per cell update (what a byte-per-cell kernel moves; a bit-packed
 * kernel moves less, so its fraction of copy can pass 1). */
typedef struct life_run {
    tdcl_life_plan *p;
    int64_t gens;
} life_run;

static tdcl_status life_exec(void *user, double *ms, tdcl_err *err)
{
    life_run *l = user;
    return tdcl_life_plan_execute(l->p, l->gens, ms, err);
}

/* One host generation of a grid, split over threads by rows. */
typedef struct host_steps {
    const tdcl_matrix *in;
    tdcl_matrix *out;
    const tdcl_life_rule *rule;
    tdcl_life_boundary boundary;
    int parts;
} host_steps;

static void host_step_part(void *arg, int i)
{
    host_steps *h = arg;
    int64_t rows = h->in->rows;
    tdcl_life_host_step_rows(h->in, h->out, h->rule, h->boundary, rows * i / h->parts,
                             rows * (i + 1) / h->parts);
}

/* Host generations the check may cost: about half a second. */
#define LIFE_CHECK_CELLS (INT64_C(1) << 27)

/* Advances the plan's grid (a copy of grid) by a few generations on the
 * device and on the host and compares them: as many generations as the
 * host budget allows, at least one and at most gens. */
static tdcl_status life_check(tdcl_life_plan *p, const tdcl_life_opts *o, const tdcl_matrix *grid,
                              int64_t gens, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix a = {0}, b = {0}, dev = {0};
    int64_t cells = grid->rows * grid->cols, g = LIFE_CHECK_CELLS / cells;
    g = g < 1 ? 1 : g > gens ? gens : g;
    TDCL_TRY(tdcl_life_plan_execute(p, g, NULL, err));
    TDCL_TRY(tdcl_life_plan_result(p, &dev, err));
    TDCL_TRY(tdcl_matrix_alloc(&a, grid->rows, grid->cols, 1, TDCL_U8, err));
    TDCL_TRY(tdcl_matrix_alloc(&b, grid->rows, grid->cols, 1, TDCL_U8, err));
    memcpy(a.data, grid->data, (size_t)cells);
    host_steps hs = {&a, &b, &o->rule, o->boundary, tdcl_pool_size(0, TDCL_POOL_MAX)};
    for (int64_t i = 0; i < g; i++) {
        tdcl_pool_run(hs.parts, host_step_part, &hs); /* a 65536^2 grid: minutes on one core */
        tdcl_matrix t = a;
        a = b;
        b = t;
    }
    if (memcmp(a.data, dev.data, (size_t)cells) != 0)
        st = tdcl_fail(err, TDCL_EVERIFY,
                       "bench: life on the device differs from the host after %lld generations",
                       (long long)g);
out:
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&dev);
    return st;
}

/* ---- life: a pattern in a large grid, tiles skipped and dense ----------- */

/* One run of a pattern bench: the grid reset to the pattern (the rows
 * written, not timed), then gens generations. */
typedef struct life_pat_run {
    tdcl_life_plan *p;
    int64_t gens, rows;
    const void *start; /* the starting grid's rows in the device layout */
} life_pat_run;

static tdcl_status life_pat_exec(void *user, double *ms, tdcl_err *err)
{
    life_pat_run *l = user;
    tdcl_status st = tdcl_life_plan_write_rows(l->p, 0, l->rows, l->start, err);
    return st ? st : tdcl_life_plan_execute(l->p, l->gens, ms, err);
}

/* pattern (its cells) centred in a new n x n grid. */
static tdcl_status life_centre(const tdcl_matrix *pat, int64_t n, tdcl_matrix *grid, tdcl_err *err)
{
    if (pat->rows > n || pat->cols > n)
        return tdcl_fail(err, TDCL_EINVAL, "bench: the pattern (%lld x %lld) is larger than %lld^2",
                         (long long)pat->cols, (long long)pat->rows, (long long)n);
    tdcl_status st = tdcl_matrix_alloc(grid, n, n, 1, TDCL_U8, err);
    if (st) return st;
    memset(grid->data, 0, (size_t)(n * n));
    int64_t y0 = (n - pat->rows) / 2, x0 = (n - pat->cols) / 2;
    for (int64_t y = 0; y < pat->rows; y++)
        memcpy((uint8_t *)grid->data + (y0 + y) * n + x0,
               (const uint8_t *)pat->data + y * pat->cols, (size_t)pat->cols);
    return TDCL_OK;
}

/* Times grid under o (the plan's rows after the runs into *end, a new
 * buffer, the caller's) and emits the figure. */
static tdcl_status life_pat_time(bench_job *j, const tdcl_life_opts *o, const tdcl_matrix *grid,
                                 void **end, size_t *end_bytes, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_ctx *ctx = j->ctx;
    tdcl_bench_result r;
    life_pat_run l = {NULL, j->o.gens, grid->rows, NULL};
    void *start = NULL;
    double c0 = 0, c1 = 0, t0 = tdcl_now_ms(), b0 = ctx->t.compile_ms;
    result_init(j, &r, "life");
    TDCL_TRY(tdcl_life_plan_create(ctx, o, grid, &l.p, err));
    r.upload_ms = since_less_builds(ctx, t0, b0);
    size_t bytes = tdcl_life_plan_row_bytes(l.p) * (size_t)grid->rows;
    *end_bytes = bytes;
    if (!(start = malloc(bytes)) || !(*end = malloc(bytes))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory (%zu bytes)", bytes);
        goto out;
    }
    TDCL_TRY(tdcl_life_plan_read_rows(l.p, 0, grid->rows, start, err));
    l.start = start;
    TDCL_TRY(tdcl_life_plan_computed(l.p, &c0, err));
    TDCL_TRY(bench_time(j, life_pat_exec, &l, &r.t, err));
    TDCL_TRY(tdcl_life_plan_computed(l.p, &c1, err));
    t0 = tdcl_now_ms();
    TDCL_TRY(tdcl_life_plan_read_rows(l.p, 0, grid->rows, *end, err));
    r.download_ms = tdcl_now_ms() - t0;
    r.size = grid->rows;
    r.gens = l.gens;
    r.type = tdcl_dtype_name(TDCL_U8);
    snprintf(r.plan, sizeof r.plan, "%s", tdcl_life_plan_describe(l.p));
    r.rate_key = "cells_per_s";
    double updates = (double)grid->rows * (double)grid->cols * (double)l.gens;
    double per_run = (c1 - c0) / (double)(j->o.warmup + j->o.reps);
    r.bytes = 2 * updates;
    if (tdcl_life_plan_sparse(l.p) && r.t.median_ms > 0)
        r.computed_rate = per_run / (r.t.median_ms / 1e3);
    r.checked = 1; /* the caller compares the two runs before this figure counts */
    result_emit(j, &r, updates);
out:
    tdcl_life_plan_destroy(l.p);
    free(start);
    return st;
}

/* The pattern file centred in an NxN grid, dead boundary, its own rule:
 * timed with tiles skipped (--sparse, default automatic), then dense in
 * the same run; both end grids must agree byte for byte. */
static tdcl_status bench_life_pattern(bench_job *j, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_life_pattern pat;
    tdcl_matrix grid = {0};
    void *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    int64_t n = op_size(j, TDCL_BENCH_LIFE);
    memset(&pat, 0, sizeof pat);
    TDCL_TRY(tdcl_life_read(j->o.life_pattern, n * n, &pat, err));
    TDCL_TRY(life_centre(&pat.grid, n, &grid, err));
    tdcl_life_opts o = tdcl_life_opts_default();
    if (pat.has_rule) o.rule = pat.rule;
    o.tile = j->o.tile;
    o.sparse = j->o.life_sparse;
    TDCL_TRY(life_pat_time(j, &o, &grid, &a, &na, err));
    o.sparse = TDCL_LIFE_SPARSE_OFF;
    TDCL_TRY(life_pat_time(j, &o, &grid, &b, &nb, err));
    if (na != nb || memcmp(a, b, na) != 0) /* both plans lay rows out alike */
        st = tdcl_fail(err, TDCL_EVERIFY,
                       "bench: life with tiles skipped differs from the dense run after %lld "
                       "generations",
                       (long long)j->o.gens);
out:
    free(a);
    free(b);
    tdcl_matrix_free(&grid);
    tdcl_life_pattern_free(&pat);
    return st;
}

static tdcl_status bench_life(bench_job *j, tdcl_err *err)
{
    if (j->o.life_pattern) return bench_life_pattern(j, err);
    tdcl_status st = TDCL_OK;
    tdcl_ctx *ctx = j->ctx;
    tdcl_matrix grid = {0}, last = {0};
    life_run l = {NULL, j->o.gens};
    tdcl_bench_result r;
    int64_t n = op_size(j, TDCL_BENCH_LIFE);
    tdcl_life_opts o = tdcl_life_opts_default();
    o.tile = j->o.tile;
    o.sparse = j->o.life_sparse;
    o.boundary = j->o.life_boundary;
    TDCL_TRY(tdcl_life_soup(n, n, 0.25, j->o.seed + 2, &grid, err));
    result_init(j, &r, "life");
    double t0 = tdcl_now_ms(), c0 = ctx->t.compile_ms;
    TDCL_TRY(tdcl_life_plan_create(ctx, &o, &grid, &l.p, err));
    r.upload_ms = since_less_builds(ctx, t0, c0);
    TDCL_TRY(life_check(l.p, &o, &grid, l.gens, err));
    double u0 = 0, u1 = 0;
    TDCL_TRY(tdcl_life_plan_computed(l.p, &u0, err));
    TDCL_TRY(bench_time(j, life_exec, &l, &r.t, err));
    TDCL_TRY(tdcl_life_plan_computed(l.p, &u1, err));
    if (tdcl_life_plan_sparse(l.p) && r.t.median_ms > 0)
        r.computed_rate = (u1 - u0) / (double)(j->o.warmup + j->o.reps) / (r.t.median_ms / 1e3);
    t0 = tdcl_now_ms();
    TDCL_TRY(tdcl_life_plan_result(l.p, &last, err));
    r.download_ms = tdcl_now_ms() - t0;
    r.checked = 1;
    r.type = tdcl_dtype_name(TDCL_U8);
    r.size = n;
    r.tile = o.tile;
    r.gens = l.gens;
    snprintf(r.plan, sizeof r.plan, "%s", tdcl_life_plan_describe(l.p));
    r.rate_key = "cells_per_s";
    double updates = (double)n * (double)n * (double)l.gens;
    r.bytes = 2 * updates;
    result_emit(j, &r, updates);
out:
    tdcl_life_plan_destroy(l.p);
    tdcl_matrix_free(&grid);
    tdcl_matrix_free(&last);
    return st;
}

/* matmul: A (MxK) times B (KxN) of the bench's element type, uniform in
 * [-1, 1) (int64: integers in [-100, 100)); GFLOP/s of 2*M*N*K per
 * product, and as traffic A and B read once and C written once. */
static tdcl_status mm_exec(void *user, double *ms, tdcl_err *err)
{
    return tdcl_mm_plan_execute(user, ms, err);
}

/* Entries of C the spot check recomputes on the host. */
#define MM_CHECKS 64

/* Recomputes MM_CHECKS random entries of c on the host: integers exactly
 * (wrapping, as the device does), floats within 2 (K + 2) u sum |a_ik b_kj|,
 * twice the worst-case rounding of a K-term dot product. */
static tdcl_status mm_spot_check(const tdcl_matrix *a, const tdcl_matrix *b, const tdcl_matrix *c,
                                 int tf32, uint64_t seed, tdcl_err *err)
{
    int64_t kk = a->cols, nn = b->cols;
    double u = c->dtype == TDCL_F64 ? 0x1p-53 : 0x1p-24;
    /* tf32 rounds the inputs to 2^-11: each product is off by up to 2^-10 */
    double extra = tf32 ? 0x1p-10 : 0;
    uint64_t s = seed;
    for (int t = 0; t < MM_CHECKS; t++) {
        int64_t i = (int64_t)(tdcl_rng_next(&s) % (uint64_t)a->rows),
                jc = (int64_t)(tdcl_rng_next(&s) % (uint64_t)nn);
        double want = 0, mag = 0, got = tdcl_matrix_get_f64(c, (size_t)(i * nn + jc));
        uint64_t iwant = 0;
        for (int64_t k = 0; k < kk; k++) {
            size_t ia = (size_t)(i * kk + k), ib = (size_t)(k * nn + jc);
            if (c->dtype == TDCL_I64) {
                iwant +=
                    (uint64_t)tdcl_matrix_get_i64(a, ia) * (uint64_t)tdcl_matrix_get_i64(b, ib);
            } else {
                double x = tdcl_matrix_get_f64(a, ia) * tdcl_matrix_get_f64(b, ib);
                want += x;
                mag += fabs(x);
            }
        }
        int bad = c->dtype == TDCL_I64
                      ? (int64_t)iwant != tdcl_matrix_get_i64(c, (size_t)(i * nn + jc))
                      : !(fabs(got - want) <= (extra + 2.0 * (double)(kk + 2) * u) * mag);
        if (bad)
            return tdcl_fail(err, TDCL_EVERIFY,
                             "bench: matmul C(%lld,%lld) is %.17g, the host gives %.17g",
                             (long long)i, (long long)jc, got,
                             c->dtype == TDCL_I64 ? (double)(int64_t)iwant : want);
    }
    return TDCL_OK;
}

static tdcl_status bench_matmul(bench_job *j, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_ctx *ctx = j->ctx;
    tdcl_matrix a = {0}, b = {0}, c = {0};
    tdcl_mm_plan *p = NULL;
    tdcl_bench_result r;
    int64_t sq = op_size(j, TDCL_BENCH_MATMUL);
    int64_t m = j->o.m ? j->o.m : sq, k = j->o.m ? j->o.k : sq, n = j->o.m ? j->o.n : sq;
    double lo = j->o.type == TDCL_I64 ? -100 : -1, hi = j->o.type == TDCL_I64 ? 100 : 1;
    tdcl_mm_opts o = {.type = j->o.type,
                      .tile = j->o.tile,
                      .precision = j->o.precision,
                      .par = j->o.mm_par,
                      .no_tune = j->o.mm_no_tune};
    TDCL_TRY(tdcl_matrix_alloc(&a, m, k, 1, j->o.type, err));
    TDCL_TRY(tdcl_matrix_alloc(&b, k, n, 1, j->o.type, err));
    fill_random(&a, j->o.seed + 3, lo, hi);
    fill_random(&b, j->o.seed + 4, lo, hi);
    result_init(j, &r, "matmul");
    double t0 = tdcl_now_ms(), c0 = ctx->t.compile_ms;
    TDCL_TRY(tdcl_mm_plan_create(ctx, &o, &a, &b, &p, err));
    r.upload_ms = since_less_builds(ctx, t0, c0);
    TDCL_TRY(bench_time(j, mm_exec, p, &r.t, err));
    t0 = tdcl_now_ms();
    TDCL_TRY(tdcl_mm_plan_result(p, &c, err));
    r.download_ms = tdcl_now_ms() - t0;
    tdcl_mm_plan_info info;
    tdcl_mm_plan_get_info(p, &info);
    TDCL_TRY(mm_spot_check(&a, &b, &c, info.precision == TDCL_MM_TF32, j->o.seed + 5, err));
    r.checked = 1;
    r.type = tdcl_dtype_name(j->o.type);
    r.size = j->o.m ? 0 : sq;
    r.m = m;
    r.k = k;
    r.n = n;
    snprintf(r.plan, sizeof r.plan, "%s", tdcl_mm_plan_describe(p));
    r.tile = j->o.tile ? j->o.tile : info.tile_rows;
    r.tensor_cores = info.tensor_cores != 0;
    r.rate_key = "gflops";
    r.bytes = (double)(m * k + k * n + m * n) * (double)tdcl_dtype_size(j->o.type);
    result_emit(j, &r, 2.0 * (double)m * (double)n * (double)k);
out:
    tdcl_mm_plan_destroy(p);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&c);
    return st;
}

typedef tdcl_status (*op_driver)(bench_job *j, tdcl_err *err);

/* The drivers this build has, by op; NULL where the operation has not
 * landed yet. */
static const op_driver drivers[TDCL_BENCH_ALL] = {
    [TDCL_BENCH_MATMUL] = bench_matmul,
    [TDCL_BENCH_TILE_AVG] = bench_tile_avg,
    [TDCL_BENCH_LIFE] = bench_life,
};

static tdcl_status run_op(bench_job *j, tdcl_bench_op op, tdcl_err *err)
{
    if (drivers[op]) return drivers[op](j, err);
    if (j->o.op == TDCL_BENCH_ALL) {
        tdcl_log(TDCL_LOG_WARN, "bench: '%s' is not available yet in this build; skipped",
                 tdcl_bench_op_name(op));
        return TDCL_OK;
    }
    return tdcl_fail(err, TDCL_EUNSUPPORTED, "bench: '%s' is not available yet in this build",
                     tdcl_bench_op_name(op));
}

static tdcl_status check_opts(const bench_job *j, tdcl_err *err)
{
    const tdcl_bench_opts *o = &j->o;
    if ((unsigned)o->op > TDCL_BENCH_ALL)
        return tdcl_fail(err, TDCL_EINVAL, "bench: unknown operation %d", (int)o->op);
    if (o->type != TDCL_F32 && o->type != TDCL_F64 && o->type != TDCL_I64)
        return tdcl_fail(err, TDCL_EINVAL,
                         "bench: expected a float32, float64 or int64 "
                         "element type, got %s",
                         tdcl_dtype_name(o->type));
    if (o->type == TDCL_F64 && !j->ctx->dev.fp64)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "bench: '%s' has no double precision (fp64)",
                         j->ctx->dev.device_name);
    if (o->size < 0 || o->m < 0 || o->k < 0 || o->n < 0 || o->copy_size < 0 || o->gens < 0 ||
        o->reps < 0 || o->tile < 0)
        return tdcl_fail(err, TDCL_EINVAL, "bench: sizes, counts and tiles must be positive");
    if (o->op != TDCL_BENCH_ALL && o->op != TDCL_BENCH_COPY && !drivers[o->op])
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "bench: '%s' is not available yet in this build",
                         tdcl_bench_op_name(o->op));
    if (o->op == TDCL_BENCH_COPY && o->tile && o->tile != 1 && o->tile != 4 && o->tile != 8)
        return tdcl_fail_param(err, TDCL_EINVAL, TDCL_PARAM_TILE,
                               "bench: copy takes the tile as its vector width 1, 4 or 8, got %d",
                               o->tile);
    return TDCL_OK;
}

tdcl_status tdcl_bench_job(tdcl_ctx *ctx, const tdcl_bench_opts *o, tdcl_bench_emit_fn emit,
                           void *user, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    bench_job j = {.ctx = ctx, .o = *o, .emit = emit, .user = user};
    j.peak_gflops = j.spec_peak_gflops = j.read_gbps = j.life_peak = NAN;
    if (!j.o.reps) j.o.reps = DEFAULT_REPS;
    if (j.o.warmup < 0) j.o.warmup = 1;
    if (!j.o.gens) j.o.gens = DEFAULT_GENS;
    if (!j.o.seed) j.o.seed = DEFAULT_SEED;
    TDCL_TRY(check_opts(&j, err));
    TDCL_TRY(measure_memory(&j, err));
    if (j.o.op == TDCL_BENCH_COPY) goto out;
    if (j.o.op == TDCL_BENCH_MATMUL || j.o.op == TDCL_BENCH_ALL) TDCL_TRY(measure_peak(&j, err));
    if (j.o.op == TDCL_BENCH_LIFE || j.o.op == TDCL_BENCH_ALL) TDCL_TRY(measure_life_peak(&j, err));
    for (int op = TDCL_BENCH_MATMUL; op < TDCL_BENCH_ALL; op++)
        if (j.o.op == TDCL_BENCH_ALL || j.o.op == (tdcl_bench_op)op)
            TDCL_TRY(run_op(&j, (tdcl_bench_op)op, err));
out:
    return st;
}

/* ---- output lines ------------------------------------------------------ */

static void json_frac(tdcl_jsonl *j, const char *key, double v)
{
    if (isfinite(v))
        tdcl_jsonl_num(j, key, v);
    else
        tdcl_jsonl_null(j, key);
}

const char *tdcl_bench_result_json(const tdcl_bench_result *r, tdcl_jsonl *j)
{
    tdcl_jsonl_begin(j);
    tdcl_jsonl_str(j, "op", r->op);
    tdcl_jsonl_str(j, "device", r->device);
    tdcl_jsonl_str(j, "type", r->type);
    if (r->size)
        tdcl_jsonl_int(j, "size", r->size);
    else
        tdcl_jsonl_null(j, "size");
    if (r->m) {
        tdcl_jsonl_int(j, "m", r->m);
        tdcl_jsonl_int(j, "k", r->k);
        tdcl_jsonl_int(j, "n", r->n);
    }
    if (r->tile)
        tdcl_jsonl_int(j, "tile", r->tile);
    else
        tdcl_jsonl_null(j, "tile");
    if (r->tile_cols) tdcl_jsonl_int(j, "tile_cols", r->tile_cols);
    if (r->gens) tdcl_jsonl_int(j, "gens", r->gens);
    tdcl_jsonl_str(j, "plan", r->plan);
    tdcl_jsonl_int(j, "reps", r->t.reps);
    tdcl_jsonl_num(j, "median_ms", r->t.median_ms);
    tdcl_jsonl_num(j, "min_ms", r->t.min_ms);
    tdcl_jsonl_num(j, "max_ms", r->t.max_ms);
    tdcl_jsonl_num(j, "host_median_ms", r->t.host_median_ms);
    tdcl_jsonl_num(j, "upload_ms", r->upload_ms);
    tdcl_jsonl_num(j, "download_ms", r->download_ms);
    tdcl_jsonl_num(j, "total_ms", r->total_ms);
    tdcl_jsonl_num(j, r->rate_key, r->rate);
    if (isfinite(r->computed_rate) && r->computed_rate > 0)
        tdcl_jsonl_num(j, "computed_cells_per_s", r->computed_rate);
    tdcl_jsonl_num(j, "copy_gbps", r->copy_gbps);
    json_frac(j, "frac_copy", r->frac_copy);
    if (strcmp(r->rate_key, "gflops") == 0) {
        json_frac(j, "peak_gflops", r->peak_gflops);
        json_frac(j, "frac_peak", r->frac_peak);
        json_frac(j, "spec_peak_gflops", r->spec_peak_gflops);
        json_frac(j, "frac_spec_peak", r->frac_spec_peak);
    }
    if (isfinite(r->read_gbps) && strcmp(r->rate_key, "gbps") == 0) {
        tdcl_jsonl_num(j, "read_gbps", r->read_gbps);
        json_frac(j, "frac_read", r->frac_read);
    }
    if (isfinite(r->life_peak) && strcmp(r->rate_key, "cells_per_s") == 0) {
        tdcl_jsonl_num(j, "life_peak_cells_per_s", r->life_peak);
        json_frac(j, "frac_life_peak", r->frac_life_peak);
    }
    if (r->ceiling) {
        tdcl_jsonl_str(j, "ceiling", r->ceiling);
        json_frac(j, "frac_ceiling", r->frac_ceiling);
    } else {
        tdcl_jsonl_null(j, "ceiling");
        tdcl_jsonl_null(j, "frac_ceiling");
    }
    tdcl_jsonl_bool(j, "checked", r->checked);
    return tdcl_jsonl_end(j);
}

/* "12.3 GFLOP/s" style figure of r. */
static void rate_text(const tdcl_bench_result *r, char *buf, size_t cap)
{
    if (strcmp(r->rate_key, "gflops") == 0)
        snprintf(buf, cap, "%.4g GFLOP/s", r->rate);
    else if (strcmp(r->rate_key, "gbps") == 0)
        snprintf(buf, cap, "%.4g GB/s", r->rate);
    else if (isfinite(r->computed_rate) && r->computed_rate > 0)
        snprintf(buf, cap, "%.4g Gcells/s (of the tiles computed: %.4g, %.3g%% of the cells)",
                 r->rate / 1e9, r->computed_rate / 1e9, 100 * r->computed_rate / r->rate);
    else
        snprintf(buf, cap, "%.4g Gcells/s", r->rate / 1e9);
}

static void pct_text(double frac, const char *of, char *buf, size_t cap)
{
    if (isfinite(frac))
        snprintf(buf, cap, ", %.1f%% of %s", 100 * frac, of);
    else
        snprintf(buf, cap, ", %s unknown", of);
}

/* As pct_text, and a figure past 100% of a ceiling says why it can be. */
static void pct_why(double frac, const char *of, const char *why, char *buf, size_t cap)
{
    pct_text(frac, of, buf, cap);
    size_t n = strlen(buf);
    if (isfinite(frac) && frac > 1.0 && n < cap) snprintf(buf + n, cap - n, " (above it: %s)", why);
}

/* The fraction of copy that an operation's figure is, and why it may pass
 * 100%. */
static void copy_frac_text(const tdcl_bench_result *r, char *buf, size_t cap)
{
    pct_why(r->frac_copy, "copy",
            strcmp(r->op, "life") == 0
                ? "a cell is one bit in memory, an eighth of a byte, and several "
                  "generations run per pass over it"
            : r->cpu ? "a CPU write reads its cache line first, which the copy figure "
                       "counts once; an operation that mostly reads passes it"
                     : "the copy writes as many bytes as it reads; an operation that "
                       "mostly reads gets more of the memory's bandwidth",
            buf, cap);
}

/* A ceiling's own line says what it is; an operation's says its fraction of
 * its ceiling (tile-avg: read; life's bit-packed kernels: the logic peak;
 * the rest: copy, and matmul the peaks below). */
static void ceiling_text(const tdcl_bench_result *r, char *buf, size_t cap)
{
    char of[96];
    if (strcmp(r->op, "copy") == 0 || strcmp(r->op, "read") == 0) {
        snprintf(buf, cap, ", ceiling (fastest run) %.4g GB/s",
                 strcmp(r->op, "copy") == 0 ? r->copy_gbps : r->read_gbps);
    } else if (strcmp(r->op, "peak") == 0) {
        snprintf(buf, cap, ", ceiling (fastest run) %.4g GFLOP/s", r->peak_gflops);
    } else if (strcmp(r->op, "life-peak") == 0) {
        snprintf(buf, cap, ", ceiling (fastest run) %.4g Gcells/s", r->life_peak / 1e9);
    } else if (strcmp(r->ceiling ? r->ceiling : "", "read") == 0 && isfinite(r->frac_read)) {
        snprintf(of, sizeof of, "read ceiling %.4g GB/s", r->read_gbps);
        pct_why(r->frac_read, of,
                "the read ceiling is a lower bound: the operation's loads were scheduled "
                "better than the sum's, or its input sat in a cache",
                buf, cap);
    } else if (strcmp(r->ceiling ? r->ceiling : "", "life-peak") == 0 &&
               isfinite(r->frac_life_peak)) {
        snprintf(of, sizeof of, "life-peak %.4g Gcells/s", r->life_peak / 1e9);
        pct_why(r->frac_life_peak, of,
                "the logic peak runs the same adder network from registers; the compiler "
                "scheduled the operation's copy of it better",
                buf, cap);
    } else {
        copy_frac_text(r, buf, cap);
    }
}

/* matmul's fractions of the measured and the specified multiply-add
 * peaks. */
static void peak_frac_text(const tdcl_bench_result *r, char *fp, char *fs, size_t cap)
{
    char of[64];
    int tc = r->tensor_cores; /* not in the FP32 peaks */
    snprintf(of, sizeof of, "measured peak %.4g GFLOP/s", r->peak_gflops);
    pct_why(r->frac_peak, isfinite(r->peak_gflops) ? of : "measured peak",
            tc ? "tensor cores, which the FP32 multiply-add loop does not use"
               : "the multiply-add loop is a lower bound where the compiler schedules "
                 "matmul's code better",
            fp, cap);
    snprintf(of, sizeof of, "spec peak %.4g GFLOP/s", r->spec_peak_gflops);
    pct_why(r->frac_spec_peak, isfinite(r->spec_peak_gflops) ? of : "spec peak",
            tc ? "tensor cores, past the FP32 specification"
               : "clocks above the base clock of the specification",
            fs, cap);
}

void tdcl_bench_result_text(const tdcl_bench_result *r, char *buf, size_t cap)
{
    char size[64], rate[128], fc[240] = "", fp[240] = "", fs[240] = "";
    if (r->m)
        snprintf(size, sizeof size, "%lldx%lldx%lld", (long long)r->m, (long long)r->k,
                 (long long)r->n);
    else if (r->size)
        snprintf(size, sizeof size, "%lldx%lld", (long long)r->size, (long long)r->size);
    else
        snprintf(size, sizeof size, "-");
    rate_text(r, rate, sizeof rate);
    ceiling_text(r, fc, sizeof fc);
    if (strcmp(r->rate_key, "gflops") == 0 && strcmp(r->op, "peak") != 0)
        peak_frac_text(r, fp, fs, sizeof fp);
    snprintf(buf, cap,
             "%-8s %-16s %-7s median %.4g ms (min %.4g, max %.4g; host %.4g, total with "
             "transfers %.4g)  %s%s%s%s  [%s]",
             r->op, size, r->type, r->t.median_ms, r->t.min_ms, r->t.max_ms, r->t.host_median_ms,
             r->total_ms, rate, fc, fp, fs, r->plan);
}
