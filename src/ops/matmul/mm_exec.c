/* Running a plan: the kernels of cl/matmul/gemm.cl enqueued panel by panel
 * (uploads in between when panelled), their events timed, the int64
 * range check, and C read back. */
#include "ops/matmul/mm_plan.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/pool.h"

/* Events of one panel's kernels, waited for and timed together. */
typedef struct mm_events {
    cl_event ev[64];
    int n;
    double ms;
} mm_events;

static void events_flush(mm_events *e)
{
    if (e->n) clWaitForEvents((cl_uint)e->n, e->ev);
    for (int i = 0; i < e->n; i++) {
        e->ms += tdcl_event_ms(e->ev[i]);
        clReleaseEvent(e->ev[i]);
    }
    e->n = 0;
}

/* Enqueues k over dims dimensions (2 or 3) of g, groups l (NULL: any). */
static tdcl_status enqueue_nd(tdcl_mm_plan *p, cl_kernel k, cl_uint dims, const size_t *g,
                              const size_t *l, mm_events *e, tdcl_err *err)
{
    if (e->n == (int)(sizeof e->ev / sizeof e->ev[0])) events_flush(e);
    cl_int rc = clEnqueueNDRangeKernel(p->ctx->queue, k, dims, NULL, g, l, 0, NULL, &e->ev[e->n]);
    if (rc != CL_SUCCESS)
        return tdcl_fail_cl(err, rc, "clEnqueueNDRangeKernel", "matmul kernel on '%s'",
                            p->ctx->dev.device_name);
    e->n++;
    return TDCL_OK;
}

static tdcl_status enqueue(tdcl_mm_plan *p, cl_kernel k, const size_t g[2], const size_t l[2],
                           mm_events *e, tdcl_err *err)
{
    return enqueue_nd(p, k, 2, g, l, e, err);
}

/* Kernel arguments: ints, IDX (int or long) and buffers, in order. The
 * format string holds 'i' (int), 'x' (IDX) and 'm' (cl_mem). */
static tdcl_status set_args(const tdcl_mm_plan *p, cl_kernel k, const char *fmt,
                            const int64_t *vals, const cl_mem *mems, tdcl_err *err)
{
    cl_int rc = CL_SUCCESS;
    for (cl_uint i = 0; fmt[i] && rc == CL_SUCCESS; i++) {
        int iv = (int)vals[i];
        long long lv = vals[i];
        if (fmt[i] == 'm')
            rc = clSetKernelArg(k, i, sizeof(cl_mem), &mems[i]);
        else if (fmt[i] == 'i' || p->idx_int)
            rc = clSetKernelArg(k, i, sizeof(cl_int), &iv);
        else
            rc = clSetKernelArg(k, i, sizeof(cl_long), &lv);
    }
    return rc == CL_SUCCESS ? TDCL_OK : tdcl_fail_cl(err, rc, "clSetKernelArg", "matmul kernel");
}

/* One panel C(mi x nj) (+)= A(mi x ki) * B(ki x nj) out of the buffers. */
typedef struct mm_panel {
    int64_t mi, ki, nj;
    int accumulate;
} mm_panel;

static tdcl_status run_tiled(tdcl_mm_plan *p, const mm_panel *x, mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t v[] = {x->mi, x->nj, x->ki, 0, x->ki, 0, x->nj, 0, x->nj, x->accumulate};
    cl_mem m[] = {0, 0, 0, p->a, 0, p->b, 0, p->c, 0, 0};
    TDCL_TRY(set_args(p, p->k_mm, "iiimxmxmxi", v, m, err));
    size_t l[2] = {(size_t)p->ts, (size_t)p->ts};
    size_t g[2] = {(size_t)tdcl_mm_round_up(x->nj, p->ts), (size_t)tdcl_mm_round_up(x->mi, p->ts)};
    TDCL_TRY(enqueue(p, p->k_mm, g, l, e, err));
out:
    return st;
}

/* mm_gpu over the panel: its whole tiles (in slices of K into the
 * workspace with ksplit), then the pieces of the split last wave (t). */
static tdcl_status launch_gpu(tdcl_mm_plan *p, const mm_panel *x, cl_mem a, int64_t lda,
                              const tdcl_mm_tail *t, int64_t kchunk, int64_t slices, mm_events *e,
                              tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const tdcl_mm_params *q = &p->par;
    int split = slices > 1;
    int64_t v[] = {x->mi,
                   x->nj,
                   x->ki,
                   0,
                   lda,
                   0,
                   x->nj,
                   0,
                   x->nj,
                   split ? 0 : x->accumulate,
                   kchunk,
                   split ? x->mi * x->nj : 0,
                   0,
                   t->first,
                   t->slices,
                   t->kchunk,
                   tdcl_mm_ceil_div(x->nj, q->bn)};
    cl_mem m[] = {0, 0, 0, a, 0, p->b, 0, split ? p->w : p->c, 0, 0, 0, 0, p->w, 0, 0, 0, 0};
    TDCL_TRY(set_args(p, p->k_mm, "iiimxmxmxiixmiiii", v, m, err));
    size_t nt = (size_t)tdcl_mm_gpu_items(q), groups = (size_t)(t->first + t->tiles * t->slices);
    size_t l[3] = {nt, 1, 1}, g[3] = {groups * nt, 1, (size_t)slices};
    TDCL_TRY(enqueue_nd(p, p->k_mm, 3, g, l, e, err));
out:
    return st;
}

/* The GPU shape: A transposed first (atrans=2), then the product: over
 * ksplit slices of K into the workspace, then summed; or straight into C,
 * its last wave split (tail_plan) and its pieces summed. */
static tdcl_status run_gpu(tdcl_mm_plan *p, const mm_panel *x, mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const tdcl_mm_params *q = &p->par;
    cl_mem a = p->a;
    int64_t lda = x->ki;
    if (q->atrans == 2) {
        int64_t ldat = tdcl_mm_round_up(x->mi, 4), tt = p->tt;
        int64_t vt[] = {x->mi, x->ki, 0, x->ki, 0, ldat};
        cl_mem mt[] = {0, 0, p->a, 0, p->at, 0};
        TDCL_TRY(set_args(p, p->k_tr, "iimxmx", vt, mt, err));
        size_t lt[2] = {(size_t)tt, (size_t)tt};
        size_t gt[2] = {(size_t)tdcl_mm_round_up(x->ki, tt), (size_t)tdcl_mm_round_up(x->mi, tt)};
        TDCL_TRY(enqueue(p, p->k_tr, gt, lt, e, err));
        a = p->at, lda = ldat;
    }
    /* slices of whole slabs; fewer slices when K is short */
    int64_t kchunk = tdcl_mm_round_up(tdcl_mm_ceil_div(x->ki, q->ksplit), q->bk);
    int64_t slices = tdcl_mm_ceil_div(x->ki, kchunk);
    /* pieces only where build_options built TAILS: tail_elems covers this panel */
    tdcl_mm_tail t = tdcl_mm_tail_plan(p, x->mi, x->ki, x->nj);
    TDCL_TRY(launch_gpu(p, x, a, lda, &t, kchunk, slices, e, err));
    if (slices > 1) {
        int64_t vr[] = {x->mi, x->nj, 0, x->mi * x->nj, slices, 0, x->nj, x->accumulate};
        cl_mem mr[] = {0, 0, p->w, 0, 0, p->c, 0, 0}; /* 8 arguments */
        TDCL_TRY(set_args(p, p->k_red, "iimximxi", vr, mr, err));
        size_t gr[2] = {(size_t)x->nj, (size_t)x->mi};
        TDCL_TRY(enqueue_nd(p, p->k_red, 2, gr, NULL, e, err));
    }
    if (t.tiles > 0) {
        int64_t vr[] = {x->mi, x->nj,         0,       t.tiles * q->bm * q->bn,       t.slices, 0,
                        x->nj, x->accumulate, t.first, tdcl_mm_ceil_div(x->nj, q->bn)};
        cl_mem mr[] = {0, 0, p->w, 0, 0, p->c, 0, 0, 0, 0};
        TDCL_TRY(set_args(p, p->k_red_tiles, "iimximxiii", vr, mr, err));
        size_t gr[3] = {(size_t)q->bn, (size_t)q->bm, (size_t)t.tiles};
        TDCL_TRY(enqueue_nd(p, p->k_red_tiles, 3, gr, NULL, e, err));
    }
out:
    return st;
}

/* A borrowed input packed: once its packing kernel is done, the caller
 * hears (o->input_read), A before B is packed so that at most one input,
 * the packed panels and no C are in memory at once. */
static void input_read(tdcl_mm_plan *p, int which, mm_events *e)
{
    if (!p->input_read || !p->zero_copy || !p->borrowed[which]) return;
    events_flush(e);
    p->input_read(p->input_user, which);
}

static tdcl_status run_packs(tdcl_mm_plan *p, const mm_panel *x, int64_t mpad, int64_t npad,
                             mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    size_t w = (size_t)p->pack_wg, l[2] = {w, w};
    int64_t va[] = {x->mi, mpad, x->ki, 0, x->ki, 0};
    cl_mem ma[] = {0, 0, 0, p->a, 0, p->ap};
    TDCL_TRY(set_args(p, p->k_pack_a, "iiimxm", va, ma, err));
    size_t ga[2] = {(size_t)tdcl_mm_round_up(x->ki, (int64_t)w),
                    (size_t)tdcl_mm_round_up(mpad, (int64_t)w)};
    TDCL_TRY(enqueue(p, p->k_pack_a, ga, l, e, err));
    input_read(p, 0, e);
    int64_t vb[] = {x->nj, npad, x->ki, 0, x->nj, 0};
    cl_mem mb[] = {0, 0, 0, p->b, 0, p->bp};
    TDCL_TRY(set_args(p, p->k_pack_b, "iiimxm", vb, mb, err));
    size_t gb[2] = {(size_t)tdcl_mm_round_up(npad, (int64_t)w),
                    (size_t)tdcl_mm_round_up(x->ki, (int64_t)w)};
    TDCL_TRY(enqueue(p, p->k_pack_b, gb, l, e, err));
    input_read(p, 1, e);
out:
    return st;
}

static tdcl_status run_cpu(tdcl_mm_plan *p, const mm_panel *x, mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const tdcl_mm_params *q = &p->par;
    int64_t nr = (int64_t)q->nv * q->vw;
    int64_t mpad = tdcl_mm_round_up(x->mi, q->mr), npad = tdcl_mm_round_up(x->nj, nr);
    TDCL_TRY(run_packs(p, x, mpad, npad, e, err));
    /* Even passes of at most kc: a short last pass would waste a launch. */
    int64_t passes = tdcl_mm_ceil_div(x->ki, q->kc), kc = tdcl_mm_ceil_div(x->ki, passes);
    size_t g[2] = {(size_t)(mpad / q->mr), (size_t)(npad / nr)}, l[2] = {1, 1};
    for (int64_t k0 = 0; k0 < x->ki; k0 += kc) {
        int64_t len = x->ki - k0 < kc ? x->ki - k0 : kc;
        int64_t v[] = {x->mi, x->nj, x->ki, 0, 0, 0, x->nj, k0, len, x->accumulate || k0 > 0};
        cl_mem m[] = {0, 0, 0, p->ap, p->bp, p->c, 0, 0, 0, 0};
        TDCL_TRY(set_args(p, p->k_mm, "iiimmmxiii", v, m, err));
        TDCL_TRY(enqueue(p, p->k_mm, g, l, e, err));
    }
out:
    return st;
}

static tdcl_status run_panel(tdcl_mm_plan *p, const mm_panel *x, mm_events *e, tdcl_err *err)
{
    if (p->poison && !x->accumulate) {
        /* a quiet NaN with a payload for floats; an unlikely pattern for int64 */
        const uint64_t p64 = 0x7ff8dead5a5a5a5aULL;
        const uint32_t p32 = 0x7fc0dead;
        const void *pat = p->esz == 8 ? (const void *)&p64 : (const void *)&p32;
        cl_int rc = clEnqueueFillBuffer(p->ctx->queue, p->c, pat, p->esz, 0,
                                        (size_t)(x->mi * x->nj) * p->esz, 0, NULL, NULL);
        if (rc != CL_SUCCESS) return tdcl_fail_cl(err, rc, "clEnqueueFillBuffer", "poisoning C");
    }
    if (p->kind == TDCL_MM_CPU) return run_cpu(p, x, e, err);
    return p->kind == TDCL_MM_GPU ? run_gpu(p, x, e, err) : run_tiled(p, x, e, err);
}

/* Copies a rows x cols block between the host matrix (row length ld, at
 * row r0, column c0) and a dense device buffer. */
static tdcl_status rect(tdcl_mm_plan *p, int write, cl_mem buf, void *host, int64_t ld, int64_t r0,
                        int64_t c0, int64_t rows, int64_t cols, tdcl_err *err)
{
    size_t e = p->esz;
    size_t hoff[3] = {(size_t)c0 * e, (size_t)r0, 0}, boff[3] = {0, 0, 0};
    size_t reg[3] = {(size_t)cols * e, (size_t)rows, 1};
    cl_int rc;
    if (write)
        rc = clEnqueueWriteBufferRect(p->ctx->queue, buf, CL_FALSE, boff, hoff, reg, reg[0], 0,
                                      (size_t)ld * e, 0, host, 0, NULL, NULL);
    else
        rc = clEnqueueReadBufferRect(p->ctx->queue, buf, CL_TRUE, boff, hoff, reg, reg[0], 0,
                                     (size_t)ld * e, 0, host, 0, NULL, NULL);
    if (rc != CL_SUCCESS)
        return tdcl_fail_cl(err, rc, write ? "clEnqueueWriteBufferRect" : "clEnqueueReadBufferRect",
                            "a %" PRId64 "x%" PRId64 " panel", rows, cols);
    return TDCL_OK;
}

static int64_t extent(int64_t full, int64_t step, int64_t i)
{
    return full - i * step < step ? full - i * step : step;
}

/* Uploads the panels of A and B that (im, ik, jn) needs, unless there. */
static tdcl_status upload_panels(tdcl_mm_plan *p, int64_t im, int64_t ik, int64_t jn,
                                 const mm_panel *x, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    double t0 = tdcl_now_ms();
    if (p->up_a[0] != im || p->up_a[1] != ik) {
        TDCL_TRY(rect(p, 1, p->a, p->ha, p->K, im * p->pm, ik * p->pk, x->mi, x->ki, err));
        p->up_a[0] = im, p->up_a[1] = ik;
    }
    if (p->up_b[0] != ik || p->up_b[1] != jn) {
        TDCL_TRY(rect(p, 1, p->b, p->hb, p->N, ik * p->pk, jn * p->pn, x->ki, x->nj, err));
        p->up_b[0] = ik, p->up_b[1] = jn;
    }
out:
    p->ctx->t.upload_ms += tdcl_now_ms() - t0;
    return st;
}

/* ---- row panels overlapped with their copies ---------------------------
 *
 * Three queues on the device: the plan's for the kernels, one channel
 * (runtime/xfer.h) for A's rows going up and one for C's coming down,
 * each staged through its own pinned ring. Panel i computes from slot
 * i % 2 of A and into slot i % 2 of C: the calling thread uploads A's
 * panel i once panel i - 2's kernels are done with its slot, and enqueues
 * panel i's kernels once panel i - 2's C is down; a second thread
 * downloads each panel as its last kernel ends, its ring's threads
 * writing (and so faulting in) the pages of C. B went up once, when the
 * plan was made. The first panel's upload and the last one's download
 * are all the copies left exposed. */

typedef struct mm_pipe {
    tdcl_mm_plan *p;
    char *dst;
    /* the slots, copied before the threads start: the feeding thread
     * points p->a and p->c at slot 1 while it enqueues an odd panel, so
     * the draining thread reading p->c then would download the other
     * slot */
    cl_mem a[2], c[2];
    cl_event *last;         /* each panel's last kernel */
    int64_t posted, landed; /* panels enqueued, panels downloaded */
    int stop;               /* a side failed: the other stops too */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    tdcl_status st[2];
    tdcl_err err[2];
    mm_events *e;
    double up_ms, down_ms;
} mm_pipe;

void tdcl_mm_pipe_release(tdcl_mm_plan *p)
{
    tdcl_xfer_close(p->up);
    tdcl_xfer_close(p->down);
    if (p->a2) clReleaseMemObject(p->a2);
    if (p->c2) clReleaseMemObject(p->c2);
    p->up = p->down = NULL;
    p->a2 = p->c2 = NULL;
}

/* Sets *field to v (under the lock) and wakes the other side. */
static void pipe_post(mm_pipe *q, int64_t *field, int64_t v, int stop)
{
    pthread_mutex_lock(&q->mu);
    if (field) *field = v;
    q->stop |= stop;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* Waits until *field >= v; 0 when the other side stopped first. */
static int pipe_wait(mm_pipe *q, const int64_t *field, int64_t v)
{
    pthread_mutex_lock(&q->mu);
    while (*field < v && !q->stop)
        pthread_cond_wait(&q->cv, &q->mu);
    int ok = *field >= v;
    pthread_mutex_unlock(&q->mu);
    return ok;
}

static tdcl_status wait_event(cl_event ev, tdcl_err *err)
{
    cl_int rc = clWaitForEvents(1, &ev);
    return rc == CL_SUCCESS ? TDCL_OK : tdcl_fail_cl(err, rc, "clWaitForEvents", "a matmul panel");
}

/* Panel i's kernels on slot i % 2, its last event kept in q->last[i]. */
static tdcl_status pipe_compute(mm_pipe *q, int64_t i, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_mm_plan *p = q->p;
    mm_panel x = {extent(p->M, p->pm, i), p->K, p->N, 0};
    p->a = q->a[i & 1], p->c = q->c[i & 1]; /* the kernels take their arguments at enqueue */
    st = run_panel(p, &x, q->e, err);
    p->a = q->a[0], p->c = q->c[0];
    if (st) return st;
    q->last[i] = q->e->ev[q->e->n - 1];
    clRetainEvent(q->last[i]);
    cl_int rc = clFlush(p->ctx->queue);
    return rc == CL_SUCCESS ? TDCL_OK : tdcl_fail_cl(err, rc, "clFlush", "a matmul panel");
}

/* The calling thread's side: uploads and kernels, panel by panel. */
static tdcl_status pipe_feed(mm_pipe *q, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_mm_plan *p = q->p;
    size_t row = (size_t)p->K * p->esz;
    for (int64_t i = 0; i < p->npm; i++) {
        if (i >= 2) TDCL_TRY(wait_event(q->last[i - 2], err));
        double t0 = tdcl_now_ms();
        TDCL_TRY(tdcl_xfer_put(p->up, q->a[i & 1], 0,
                               (const char *)p->src_a + (size_t)(i * p->pm) * row,
                               (size_t)extent(p->M, p->pm, i) * row, err));
        q->up_ms += tdcl_now_ms() - t0;
        if (!pipe_wait(q, &q->landed, i - 1)) break; /* the downloads failed */
        TDCL_TRY(pipe_compute(q, i, err));
        pipe_post(q, &q->posted, i + 1, 0);
    }
out:
    return st;
}

/* The second thread's side: each panel's C down as its kernels end. */
static tdcl_status pipe_drain(mm_pipe *q, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_mm_plan *p = q->p;
    size_t row = (size_t)p->N * p->esz;
    for (int64_t i = 0; i < p->npm && pipe_wait(q, &q->posted, i + 1); i++) {
        TDCL_TRY(wait_event(q->last[i], err));
        double t0 = tdcl_now_ms();
        TDCL_TRY(tdcl_xfer_get(p->down, q->c[i & 1], 0, q->dst + (size_t)(i * p->pm) * row,
                               (size_t)extent(p->M, p->pm, i) * row, err));
        q->down_ms += tdcl_now_ms() - t0;
        pipe_post(q, &q->landed, i + 1, 0);
    }
out:
    return st;
}

static void pipe_side(void *arg, int side)
{
    mm_pipe *q = arg;
    q->st[side] = side ? pipe_drain(q, &q->err[side]) : pipe_feed(q, &q->err[side]);
    if (q->st[side]) pipe_post(q, NULL, 0, 1);
}

static void pipe_log(const mm_pipe *q, double wall_ms)
{
    const tdcl_mm_plan *p = q->p;
    double copies = q->up_ms + q->down_ms, exposed = wall_ms - q->e->ms;
    exposed = exposed < 0 ? 0 : exposed > copies ? copies : exposed;
    tdcl_log(TDCL_LOG_VERBOSE,
             "matmul: %" PRId64 " panels of %" PRId64
             " rows overlapped with their copies on '%s': uploads %.3f ms, downloads %.3f ms, "
             "%.3f ms of them hidden behind the kernels (%.3f ms), %.3f ms exposed",
             p->npm, p->pm, p->ctx->dev.device_name, q->up_ms, q->down_ms, copies - exposed,
             q->e->ms, exposed);
}

/* The pipeline into dst; the copies the kernels did not hide count as
 * the download phase. */
static tdcl_status execute_pipe(tdcl_mm_plan *p, void *dst, mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    mm_pipe q = {.p = p, .dst = dst, .a = {p->a, p->a2}, .c = {p->c, p->c2}, .e = e};
    if (!p->up) TDCL_TRY(tdcl_xfer_open(p->ctx, &p->up, err));
    if (!p->down) TDCL_TRY(tdcl_xfer_open(p->ctx, &p->down, err));
    if (!(q.last = calloc((size_t)p->npm, sizeof *q.last)))
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory for %" PRId64 " panels", p->npm);
    pthread_mutex_init(&q.mu, NULL);
    pthread_cond_init(&q.cv, NULL);
    double t0 = tdcl_now_ms();
    tdcl_pool_run(2, pipe_side, &q);
    for (int s = 0; s < 2 && !st; s++)
        if ((st = q.st[s]) && err) *err = q.err[s];
    events_flush(e);
    double wall = tdcl_now_ms() - t0;
    if (!st) pipe_log(&q, wall);
    p->ctx->t.download_ms += wall > e->ms ? wall - e->ms : 0;
    if (!st) TDCL_CL_TRY(err, clFinish(p->ctx->queue), "clFinish");
out:
    for (int64_t i = 0; q.last && i < p->npm; i++)
        if (q.last[i]) clReleaseEvent(q.last[i]);
    free(q.last);
    if (q.last) {
        pthread_cond_destroy(&q.cv);
        pthread_mutex_destroy(&q.mu);
    }
    return st;
}

static tdcl_status execute_panels(tdcl_mm_plan *p, mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    for (int64_t im = 0; im < p->npm; im++)
        for (int64_t jn = 0; jn < p->npn; jn++) {
            for (int64_t ik = 0; ik < p->npk; ik++) {
                mm_panel x = {extent(p->M, p->pm, im), extent(p->K, p->pk, ik),
                              extent(p->N, p->pn, jn), ik > 0};
                TDCL_TRY(upload_panels(p, im, ik, jn, &x, err));
                TDCL_TRY(run_panel(p, &x, e, err));
            }
            events_flush(e);
            double t0 = tdcl_now_ms();
            TDCL_TRY(rect(p, 0, p->c, p->hc, p->N, im * p->pm, jn * p->pn, extent(p->M, p->pm, im),
                          extent(p->N, p->pn, jn), err));
            p->ctx->t.download_ms += tdcl_now_ms() - t0;
        }
out:
    return st;
}

tdcl_status tdcl_mm_fail_overflow(int64_t row, int64_t col, tdcl_err *err)
{
    return tdcl_fail_param(err, TDCL_ERANGE, TDCL_PARAM_WRAP,
                           "the exact int64 product overflows: element (%" PRId64 ", %" PRId64
                           ") of C (row, column from 1) lies outside the int64 range",
                           row + 1, col + 1);
}

/* The device's search for elements outside int64 (mm_i64_range) over the
 * whole A and B in their buffers: the first in row-major order, if any. */
static tdcl_status overflow_at(tdcl_mm_plan *p, int64_t row, int64_t col, tdcl_err *err)
{
    p->ovf[0] = row;
    p->ovf[1] = col;
    return tdcl_mm_fail_overflow(row, col, err);
}

static tdcl_status range_device(tdcl_mm_plan *p, mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_int rc, n = (cl_int)p->N;
    int *first = NULL;
    cl_mem f = clCreateBuffer(p->ctx->context, CL_MEM_READ_WRITE, (size_t)p->M * sizeof(cl_int),
                              NULL, &rc);
    if (rc != CL_SUCCESS)
        return tdcl_fail_cl(err, rc, "clCreateBuffer", "int64 overflow flags (%" PRId64 " rows)",
                            p->M);
    if (!(first = malloc((size_t)p->M * sizeof *first))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory for the int64 overflow flags");
        goto out;
    }
    TDCL_CL_TRY(err,
                clEnqueueFillBuffer(p->ctx->queue, f, &n, sizeof n, 0,
                                    (size_t)p->M * sizeof(cl_int), 0, NULL, NULL),
                "clEnqueueFillBuffer");
    int64_t v[] = {p->M, p->N, p->K, 0, p->K, 0, p->N, 0};
    cl_mem m[] = {0, 0, 0, p->a, 0, p->b, 0, f};
    TDCL_TRY(set_args(p, p->k_range, "iiimxmxm", v, m, err));
    size_t g[2] = {(size_t)p->N, (size_t)p->M};
    TDCL_TRY(enqueue(p, p->k_range, g, NULL, e, err));
    TDCL_CL_TRY(err,
                clEnqueueReadBuffer(p->ctx->queue, f, CL_TRUE, 0, (size_t)p->M * sizeof(cl_int),
                                    first, 0, NULL, NULL),
                "clEnqueueReadBuffer");
    for (int64_t i = 0; i < p->M; i++)
        if (first[i] < n) {
            st = overflow_at(p, i, first[i], err);
            break;
        }
out:
    free(first);
    clReleaseMemObject(f);
    return st;
}

/* The whole product in one piece, C = A*B or C += A*B, waited for. */
static tdcl_status execute_whole(tdcl_mm_plan *p, int accumulate, mm_events *e, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    mm_panel x = {p->M, p->K, p->N, accumulate};
    TDCL_TRY(run_panel(p, &x, e, err));
    if (p->range_check && !accumulate) TDCL_TRY(range_device(p, e, err));
    TDCL_CL_TRY(err, clFinish(p->ctx->queue), "clFinish");
out:
    return st;
}

/* Waits for and times the events; on success adds their device time. */
static tdcl_status events_done(tdcl_mm_plan *p, mm_events *e, tdcl_status st, double *kernel_ms)
{
    events_flush(e);
    if (st == TDCL_OK) {
        p->ctx->t.kernel_ms += e->ms;
        if (kernel_ms) *kernel_ms = e->ms;
    }
    return st;
}

/* The panels (into dst when pipelined), then the int64 range search on
 * the host, as the panels are not on the device together. */
static tdcl_status execute_split(tdcl_mm_plan *p, void *dst, mm_events *e, tdcl_err *err)
{
    int64_t r, c;
    tdcl_status st = p->pipe ? execute_pipe(p, dst, e, err) : execute_panels(p, e, err);
    if (st == TDCL_OK && p->range_check &&
        tdcl_mm_i64_first_overflow(p->src_a, p->src_b, p->M, p->K, p->N, &r, &c))
        st = overflow_at(p, r, c, err);
    return st;
}

tdcl_status tdcl_mm_plan_execute(tdcl_mm_plan *p, double *kernel_ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    mm_events e = {.n = 0};
    if (p->tc) return tdcl_mm_tc_execute(p->tc, kernel_ms, err);
    if (p->npm * p->npk * p->npn == 1)
        return events_done(p, &e, execute_whole(p, 0, &e, err), kernel_ms);
    if (p->pipe && !p->hc) {
        size_t bytes = (size_t)(p->M * p->N) * p->esz;
        if (!(p->hc = malloc(bytes)))
            return tdcl_fail(err, TDCL_ENOMEM, "cannot allocate %zu bytes for the product", bytes);
    }
    st = execute_split(p, p->hc, &e, err);
    return events_done(p, &e, st, kernel_ms);
}

tdcl_status tdcl_mm_plan_execute_into(tdcl_mm_plan *p, void *dst, double *kernel_ms, tdcl_err *err)
{
    mm_events e = {.n = 0};
    if (p->tc || !p->pipe)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "this plan has no panels overlapped");
    return events_done(p, &e, execute_split(p, dst, &e, err), kernel_ms);
}

int tdcl_mm_plan_overflow(const tdcl_mm_plan *p, int64_t *row, int64_t *col)
{
    if (p->ovf[0] < 0) return 0;
    *row = p->ovf[0];
    *col = p->ovf[1];
    return 1;
}

tdcl_status tdcl_mm_plan_execute_with(tdcl_mm_plan *p, const tdcl_matrix *a, const tdcl_matrix *b,
                                      int accumulate, double *kernel_ms, tdcl_err *err)
{
    mm_events e = {.n = 0};
    if (p->tc || p->npm * p->npk * p->npn != 1 || p->borrowed[0] || p->borrowed[1])
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "this plan cannot take new inputs");
    if (a->rows != p->M || a->cols != p->K || b->rows != p->K || b->cols != p->N)
        return tdcl_fail(err, TDCL_EINVAL, "new inputs of another shape than the plan's");
    double t0 = tdcl_now_ms();
    tdcl_status st = tdcl_mm_upload_whole(p, a, b, err);
    p->ctx->t.upload_ms += tdcl_now_ms() - t0;
    if (st == TDCL_OK) st = execute_whole(p, accumulate, &e, err);
    return events_done(p, &e, st, kernel_ms);
}

tdcl_status tdcl_mm_plan_result(tdcl_mm_plan *p, tdcl_matrix *c, tdcl_err *err)
{
    if (p->tc) return tdcl_mm_tc_result(p->tc, c, err);
    if (p->pipe) { /* C is in host memory already: handed over, not copied */
        if (!p->hc) return tdcl_fail(err, TDCL_EUNSUPPORTED, "the product was handed over");
        *c = (tdcl_matrix){p->M, p->N, 1, p->type, p->hc};
        p->hc = NULL;
        return TDCL_OK;
    }
    tdcl_status st = tdcl_matrix_alloc(c, p->M, p->N, 1, p->type, err);
    if (st) return st;
    double t0 = tdcl_now_ms();
    size_t bytes = (size_t)(p->M * p->N) * p->esz;
    if (p->hc) {
        memcpy(c->data, p->hc, bytes);
    } else if ((st = tdcl_xfer_read(p->ctx, p->c, 0, c->data, bytes, err))) {
        tdcl_matrix_free(c);
        return st;
    }
    p->ctx->t.download_ms += tdcl_now_ms() - t0;
    return TDCL_OK;
}

tdcl_status tdcl_mm_plan_map_result(tdcl_mm_plan *p, void **ptr, tdcl_err *err)
{
    cl_int rc;
    *ptr = NULL;
    if (p->tc || !p->zero_copy || p->c_ptr)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "the product is not in host memory");
    double t0 = tdcl_now_ms();
    size_t bytes = (size_t)(p->M * p->N) * p->esz;
    void *m =
        clEnqueueMapBuffer(p->ctx->queue, p->c, CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL, NULL, &rc);
    p->ctx->t.download_ms += tdcl_now_ms() - t0;
    if (rc != CL_SUCCESS) return tdcl_fail_cl(err, rc, "clEnqueueMapBuffer", "the product");
    *ptr = p->c_ptr = m;
    return TDCL_OK;
}

tdcl_status tdcl_mm_plan_unmap_result(tdcl_mm_plan *p, tdcl_err *err)
{
    void *m = p->c_ptr;
    p->c_ptr = NULL;
    if (!m) return TDCL_OK;
    cl_int rc = clEnqueueUnmapMemObject(p->ctx->queue, p->c, m, 0, NULL, NULL);
    const char *call = "clEnqueueUnmapMemObject";
    if (rc == CL_SUCCESS) rc = clFinish(p->ctx->queue), call = "clFinish";
    return rc == CL_SUCCESS ? TDCL_OK : tdcl_fail_cl(err, rc, call, "the product");
}

tdcl_status tdcl_mm_plan_result_into(tdcl_mm_plan *p, void *dst, tdcl_err *err)
{
    if (p->tc && p->type != TDCL_F32)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "the tensor-core plan's result is float32");
    if (p->tc) return tdcl_mm_tc_result_into(p->tc, dst, err);
    if (p->pipe && !p->hc) return tdcl_fail(err, TDCL_EUNSUPPORTED, "the product was handed over");
    double t0 = tdcl_now_ms();
    size_t bytes = (size_t)(p->M * p->N) * p->esz;
    if (p->hc) {
        memcpy(dst, p->hc, bytes);
    } else {
        tdcl_status st = tdcl_xfer_read(p->ctx, p->c, 0, dst, bytes, err);
        if (st) return st;
    }
    p->ctx->t.download_ms += tdcl_now_ms() - t0;
    return TDCL_OK;
}

tdcl_status tdcl_mm_plan_result_each(tdcl_mm_plan *p, tdcl_xfer_sink sink, void *user,
                                     tdcl_err *err)
{
    if (p->tc || p->hc)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "the product is not in one device buffer");
    size_t bytes = (size_t)(p->M * p->N) * p->esz;
    return tdcl_xfer_download(p->ctx, p->c, 0, bytes, sink, user, err);
}

tdcl_status tdcl_mm_run(tdcl_ctx *ctx, const tdcl_mm_opts *o, const tdcl_matrix *a,
                        const tdcl_matrix *b, tdcl_matrix *c, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_mm_plan *p = NULL;
    memset(c, 0, sizeof *c);
    TDCL_TRY(tdcl_mm_plan_create(ctx, o, a, b, &p, err));
    TDCL_TRY(tdcl_mm_plan_execute(p, NULL, err));
    TDCL_TRY(tdcl_mm_plan_result(p, c, err));
out:
    tdcl_mm_plan_destroy(p);
    return st;
}
