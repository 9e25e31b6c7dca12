/* matmul over a set of devices of one process: C in a grid of blocks, each
 * computed by one device from A's rows and B's columns in host memory. */
#include "dist/matmul_run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "dist/shard.h"

tdcl_status tdcl_mm_shard_grid(size_t n, int rows, int cols, int *out_rows, int *out_cols,
                               tdcl_err *err)
{
    if (rows > 0 && cols > 0) {
        if ((size_t)rows * (size_t)cols != n)
            return tdcl_fail(err, TDCL_EINVAL,
                             "a %dx%d grid of shards needs %d devices, but there are %zu", rows,
                             cols, rows * cols, n);
        *out_rows = rows;
        *out_cols = cols;
        return TDCL_OK;
    }
    int c = 1;
    for (int f = 1; (size_t)f * (size_t)f <= n; f++)
        if (n % (size_t)f == 0) c = f;
    *out_rows = (int)(n / (size_t)c);
    *out_cols = c;
    return TDCL_OK;
}

tdcl_status tdcl_mm_shard_grid_local(size_t n, int rows, int cols, int *out_rows, int *out_cols,
                                     tdcl_err *err)
{
    if (rows > 0 && cols > 0) return tdcl_mm_shard_grid(n, rows, cols, out_rows, out_cols, err);
    *out_rows = (int)n;
    *out_cols = 1;
    return TDCL_OK;
}

tdcl_status tdcl_mm_shard_split(int64_t M, int64_t N, int rows, int cols, int64_t *rb, int64_t *cb,
                                tdcl_err *err)
{
    if (rows > M || cols > N)
        return tdcl_fail(err, TDCL_EINVAL,
                         "a %dx%d grid of shards for a %" PRId64 "x%" PRId64
                         " product: each shard needs a row and a column of C at least; use "
                         "fewer devices or another grid",
                         rows, cols, M, N);
    tdcl_status st = tdcl_shard_split(M, (size_t)rows, 1, rb, err);
    return st ? st : tdcl_shard_split(N, (size_t)cols, 1, cb, err);
}

typedef struct mm_shard {
    tdcl_shard_stat stat; /* first: tdcl_shard_run reads it */
    int64_t r0, r1, c0, c1;
    tdcl_mm_plan *plan;
    tdcl_matrix part; /* its block of C */
    int ovf;          /* TDCL_ERANGE: the first element outside int64, in C */
    int64_t ovf_row, ovf_col;
    double setup_ms, kernel_ms;
} mm_shard;

typedef struct mm_run {
    tdcl_devset *set;
    tdcl_mm_opts o;
    const tdcl_matrix *a, *b;
    int cols;      /* of the grid */
    tdcl_matrix c; /* the product, allocated before the shards run */
    mm_shard s[TDCL_DEVSET_MAX];
} mm_run;

/* B's columns [c0, c1) as a new matrix. */
static tdcl_status column_band(const tdcl_matrix *b, int64_t c0, int64_t c1, tdcl_matrix *out,
                               tdcl_err *err)
{
    size_t esz = tdcl_dtype_size(b->dtype), w = (size_t)(c1 - c0) * esz;
    tdcl_status st = tdcl_matrix_alloc(out, b->rows, c1 - c0, 1, b->dtype, err);
    if (st) return st;
    for (int64_t r = 0; r < b->rows; r++)
        memcpy((char *)out->data + (size_t)r * w,
               (const char *)b->data + ((size_t)r * (size_t)b->cols + (size_t)c0) * esz, w);
    return TDCL_OK;
}

/* The shard's plan over A's rows and B's columns: on the shard's own
 * thread, so that the shards' uploads overlap (the runtime builds their
 * programs one at a time). */
static tdcl_status shard_plan(mm_run *R, mm_shard *sh, tdcl_ctx *ctx, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix bband = {0}, a = *R->a; /* a: A's rows of the shard, not owned */
    const tdcl_matrix *b = R->b;
    a.rows = sh->r1 - sh->r0;
    a.data = (char *)R->a->data + (size_t)sh->r0 * (size_t)a.cols * tdcl_dtype_size(a.dtype);
    double t0 = tdcl_now_ms();
    if (R->cols > 1) {
        TDCL_TRY(column_band(R->b, sh->c0, sh->c1, &bband, err));
        b = &bband;
    }
    TDCL_TRY(tdcl_mm_plan_create(ctx, &R->o, &a, b, &sh->plan, err));
    sh->setup_ms = tdcl_now_ms() - t0;
out:
    tdcl_matrix_free(&bband);
    return st;
}

/* The shard's block of C: straight into its rows of c when they are
 * whole rows (a grid of one column), else into part. */
static tdcl_status shard_download(const mm_run *R, mm_shard *sh, tdcl_err *err)
{
    tdcl_err e = {0};
    if (R->cols == 1) {
        size_t row = (size_t)R->c.cols * tdcl_dtype_size(R->c.dtype);
        tdcl_status st =
            tdcl_mm_plan_result_into(sh->plan, (char *)R->c.data + (size_t)sh->r0 * row, &e);
        if (st != TDCL_EUNSUPPORTED) {
            if (st && err) *err = e;
            return st;
        }
    }
    return tdcl_mm_plan_result(sh->plan, &sh->part, err);
}

/* st, noting where an int64 overflow lies in the whole C. */
static tdcl_status overflow_of(mm_shard *sh, tdcl_status st)
{
    if (st == TDCL_ERANGE && tdcl_mm_plan_overflow(sh->plan, &sh->ovf_row, &sh->ovf_col)) {
        sh->ovf = 1;
        sh->ovf_row += sh->r0;
        sh->ovf_col += sh->c0;
    }
    return st;
}

/* Row panels overlapped with their copies, C's rows downloaded straight
 * into the shard's rows of C; TDCL_EUNSUPPORTED where the plan has none
 * or the shard's rows are not whole rows of C. */
static tdcl_status shard_overlapped(const mm_run *R, mm_shard *sh, tdcl_err *err)
{
    tdcl_err e = {0};
    if (R->cols != 1) return TDCL_EUNSUPPORTED;
    size_t row = (size_t)R->c.cols * tdcl_dtype_size(R->c.dtype);
    tdcl_status st = tdcl_mm_plan_execute_into(sh->plan, (char *)R->c.data + (size_t)sh->r0 * row,
                                               &sh->kernel_ms, &e);
    if (st && st != TDCL_EUNSUPPORTED && err) *err = e;
    return st;
}

static tdcl_status shard_product(const mm_run *R, mm_shard *sh, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    double t0 = tdcl_now_ms();
    st = shard_overlapped(R, sh, err);
    if (st != TDCL_EUNSUPPORTED) {
        sh->stat.compute_ms = tdcl_now_ms() - t0;
        return overflow_of(sh, st);
    }
    st = tdcl_mm_plan_execute(sh->plan, &sh->kernel_ms, err);
    sh->stat.compute_ms = tdcl_now_ms() - t0;
    if ((st = overflow_of(sh, st))) return st;
    t0 = tdcl_now_ms();
    st = shard_download(R, sh, err);
    sh->stat.exchange_ms = tdcl_now_ms() - t0;
    return st;
}

/* The shard's block into its place in C, where it was not downloaded
 * there; its copy is freed at once. */
static void place(mm_run *R, mm_shard *sh)
{
    size_t esz = tdcl_dtype_size(R->c.dtype), N = (size_t)R->c.cols;
    size_t w = (size_t)(sh->c1 - sh->c0) * esz;
    for (int64_t r = sh->r0; sh->part.data && r < sh->r1; r++)
        memcpy((char *)R->c.data + ((size_t)r * N + (size_t)sh->c0) * esz,
               (const char *)sh->part.data + (size_t)(r - sh->r0) * w, w);
    tdcl_matrix_free(&sh->part);
}

static void mm_task(void *arg, int i)
{
    mm_run *R = arg;
    mm_shard *sh = &R->s[i];
    tdcl_err *err = &sh->stat.err;
    tdcl_status st = shard_plan(R, sh, R->set->ctx[i], err);
    if (st == TDCL_OK) st = shard_product(R, sh, err);
    if (st == TDCL_OK) place(R, sh);
    sh->stat.st = st;
}

/* An int64 overflow in several shards: the first element in C's order. */
static tdcl_status first_overflow(const mm_run *R, size_t n, tdcl_err *err)
{
    const mm_shard *f = NULL;
    for (size_t i = 0; i < n; i++) {
        const mm_shard *s = &R->s[i];
        if (s->ovf && (!f || s->ovf_row < f->ovf_row ||
                       (s->ovf_row == f->ovf_row && s->ovf_col < f->ovf_col)))
            f = s;
    }
    return f ? tdcl_mm_fail_overflow(f->ovf_row, f->ovf_col, err) : TDCL_ERANGE;
}

static void log_layout(const mm_run *R, size_t n, int rows, int cols)
{
    tdcl_log(TDCL_LOG_VERBOSE,
             "matmul: %zu shards in a %dx%d grid, blocks of C from A and B in "
             "host memory",
             n, rows, cols);
    for (size_t i = 0; i < n; i++) {
        const mm_shard *s = &R->s[i];
        const tdcl_ctx *x = R->set->ctx[i];
        tdcl_log(
            TDCL_LOG_VERBOSE,
            "shard %zu: rows %" PRId64 "-%" PRId64 ", columns %" PRId64 "-%" PRId64 " on %u:%u %s",
            i, s->r0, s->r1 - 1, s->c0, s->c1 - 1, x->dev.pidx, x->dev.didx, x->dev.device_name);
    }
}

static void log_times(const mm_run *R, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const mm_shard *s = &R->s[i];
        tdcl_log(TDCL_LOG_VERBOSE,
                 "shard %zu: setup and upload %.3f ms, compute %.3f ms (device %.3f ms), "
                 "exchange (download) %.3f ms",
                 i, s->setup_ms, s->stat.compute_ms, s->kernel_ms, s->stat.exchange_ms);
    }
}

tdcl_status tdcl_mm_shard_run(tdcl_devset *set, const tdcl_mm_opts *o, int rows, int cols,
                              const tdcl_matrix *a, const tdcl_matrix *b, tdcl_matrix *c,
                              tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t rb[TDCL_DEVSET_MAX + 1], cb[TDCL_DEVSET_MAX + 1];
    size_t n = set->n;
    mm_run *R = calloc(1, sizeof *R);
    memset(c, 0, sizeof *c);
    if (!R) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    *R = (mm_run){.set = set, .o = *o, .a = a, .b = b, .cols = cols};
    R->o.borrow_inputs = 0; /* the shards' A is a view, B a copy or shared */
    /* a band of whole rows: A and B outlive the plans, C's rows are whole */
    if (!R->o.panel_rows && cols == 1) R->o.panel_rows = TDCL_MM_PANELS_AUTO;
    if ((size_t)rows * (size_t)cols != n) {
        st = tdcl_fail(err, TDCL_EINVAL, "a %dx%d grid for %zu shards", rows, cols, n);
        goto out;
    }
    TDCL_TRY(tdcl_mm_shard_split(a->rows, b->cols, rows, cols, rb, cb, err));
    for (size_t i = 0; i < n; i++) {
        int p = (int)i / cols, q = (int)i % cols;
        R->s[i].r0 = rb[p], R->s[i].r1 = rb[p + 1];
        R->s[i].c0 = cb[q], R->s[i].c1 = cb[q + 1];
    }
    log_layout(R, n, rows, cols);
    TDCL_TRY(tdcl_matrix_alloc(&R->c, a->rows, b->cols, 1, o->type, err));
    st = tdcl_shard_run(n, mm_task, R, &R->s[0].stat, sizeof R->s[0], err);
    if (st == TDCL_ERANGE) st = first_overflow(R, n, err);
    if (st) goto out;
    log_times(R, n);
    *c = R->c;
    memset(&R->c, 0, sizeof R->c);
out:
    for (size_t i = 0; i < n; i++) {
        tdcl_mm_plan_destroy(R->s[i].plan);
        tdcl_matrix_free(&R->s[i].part);
    }
    tdcl_matrix_free(&R->c);
    free(R);
    return st;
}
