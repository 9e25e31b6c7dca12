/* The ceilings each figure of `tiledcl bench` is measured against, in the
 * same job: the copy and read ceilings (cl/copy.cl), the multiply-add peak
 * (cl/peak.cl) and the life logic peak (cl/life.cl's life_peak). Each is
 * the fastest run of the best of several shapes, its output checked
 * against the host so that a broken kernel cannot raise a ceiling. */
#include "bench/bench_ceilings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_job.h"
#include "ops/life/life.h"
#include "ops/life/life_net.h"
#include "ops/life/life_prog.h"
#include "base/log.h"
#include "base/rng.h"
#include "base/clock.h"

/* ---- launching ---------------------------------------------------------- */

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
    TDCL_TRY(tdcl_bench_run_time(j, copy_exec, &c, &r.t, err));
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
    tdcl_bench_result_init(j, &r, "copy");
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
    tdcl_bench_result_emit(j, &r, r.bytes);
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
    tdcl_bench_result_init(j, &r, "read");
    for (int w = 0; w < 3; w++)
        for (int p = 0; p < 2; p++)
            for (int chunk = 0; chunk < 2; chunk++)
                TDCL_TRY(mem_try(j, host, n, widths[w], pers[p], chunk, &r, err));
    r.size = e;
    r.checked = 1;
    r.rate_key = "gbps";
    j->read_gbps = r.bytes / (r.t.min_ms / 1e3) / 1e9;
    r.read_gbps = j->read_gbps;
    tdcl_bench_result_emit(j, &r, r.bytes);
out:
    return st;
}

/* The memory ceilings on one NxN float array of seeded values: copy
 * always, read when tile-avg is measured. */
tdcl_status tdcl_bench_measure_memory(bench_job *j, tdcl_err *err)
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
    TDCL_TRY(tdcl_bench_run_time(j, peak_exec, &p, &r.t, err));
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
tdcl_status tdcl_bench_measure_peak(bench_job *j, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_bench_result r;
    double flop = 0;
    j->spec_peak_gflops = spec_peak(&j->ctx->dev, j->o.type);
    if (j->o.type != TDCL_F32 && j->o.type != TDCL_F64) return TDCL_OK;
    tdcl_bench_result_init(j, &r, "peak");
    r.type = tdcl_dtype_name(j->o.type);
    for (int vw = 4; vw <= 16; vw *= 2)
        TDCL_TRY(peak_try(j, vw, &r, &flop, err));
    r.checked = 1;
    r.rate_key = "gflops";
    j->peak_gflops = flop / (r.t.min_ms / 1e3) / 1e9;
    tdcl_bench_result_emit(j, &r, flop);
out:
    return st;
}

/* ---- the life logic peak ------------------------------------------------ */

/* cl/life/peak.cl's life_peak: B3/S23 over PK rows of NV words of WB bits per
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
    int n = snprintf(opts, sizeof opts,
                     "-DBIRTH=0x8 -DSURVIVE=0xc -DWBITS=%d -DVW=%d -DITERS=%d -DPK=%d", wb, nv,
                     p->iters, LP_ROWS);
    /* the product's network (life.c's build): the rule's gates, on NVIDIA
     * for one word a work-item as one PTX lop3 each, row sums from 32-bit
     * halves */
    const int lop3 = nv == 1 && ctx->dev.nv_options;
    const int net3 = tdcl_life_net_pays(&ctx->dev, lop3) &&
                     tdcl_life_net_opts(tdcl_life_rule_conway(), opts, sizeof opts, &n);
    p->lop3 = lop3 && net3;
    if (p->lop3)
        snprintf(opts + n, sizeof opts - (size_t)n, " -DLOP3ASM=1%s",
                 wb == 64 ? " -DHALVES=1" : "");
    TDCL_TRY(tdcl_life_prog_build(ctx, TDCL_LIFE_PROG_PEAK, opts, &p->prog, err));
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
    TDCL_TRY(tdcl_bench_run_time(j, lpeak_exec, &p, &r.t, err));
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
tdcl_status tdcl_bench_measure_life_peak(bench_job *j, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_bench_result r;
    double cells = 0;
    static const int shapes[][2] = {{32, 1}, {32, 4}, {64, 1}, {64, 2}, {64, 8}};
    tdcl_bench_result_init(j, &r, "life-peak");
    r.type = tdcl_dtype_name(TDCL_U8);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        TDCL_TRY(lpeak_try(j, shapes[i][0], shapes[i][1], &r, &cells, err));
    r.checked = 1;
    r.rate_key = "cells_per_s";
    j->life_peak = cells / (r.t.min_ms / 1e3);
    r.life_peak = j->life_peak;
    tdcl_bench_result_emit(j, &r, cells);
out:
    return st;
}
