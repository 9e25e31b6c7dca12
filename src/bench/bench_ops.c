/* The per-operation benchmark drivers behind `tiledcl bench`: one job
 * measures the ceilings it needs (bench_ceilings.c), then each operation
 * through its plan API, and hands each figure to the caller's callback.
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

#include "bench/bench_job.h"
#include "io/life_io.h"
#include "ops/life/life.h"
#include "base/log.h"
#include "base/pool.h"
#include "base/rng.h"
#include "ops/matmul/matmul.h"
#include "ops/tile_avg/tile_avg.h"
#include "base/clock.h"

#define DEFAULT_REPS 10
#define DEFAULT_GENS 100
#define DEFAULT_SEED 0x7d1c5eedULL

/* tdcl_bench_time with the job's warm-up and repetitions; on the host's
 * clock where the device's cannot be trusted (a profiling timer of
 * resolution 0, or device times the timer rejected: Mesa's rusticl gives
 * about 1 ns a kernel, and copies at 1.3e8 GB/s), said once a job. */
tdcl_status tdcl_bench_run_time(bench_job *j, tdcl_bench_fn fn, void *user, tdcl_bench_stats *t,
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

/* ---- the results of a job ---------------------------------------------- */

void tdcl_bench_result_init(const bench_job *j, tdcl_bench_result *r, const char *op)
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
void tdcl_bench_result_emit(const bench_job *j, tdcl_bench_result *r, double work)
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
    int whole = tdcl_dtype_is_int(m->dtype);
    for (size_t k = 0; k < n; k++) {
        double v = tdcl_rng_uniform(&s, lo, hi);
        tdcl_matrix_set_f64(m, k, whole ? floor(v) : v);
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
    tdcl_bench_result_init(j, &r, "tile-avg");
    double t0 = tdcl_now_ms(), c0 = ctx->t.compile_ms;
    TDCL_TRY(tdcl_ta_plan_create(ctx, &o, &in, &p, err));
    r.upload_ms = since_less_builds(ctx, t0, c0);
    TDCL_TRY(tdcl_bench_run_time(j, ta_exec, p, &r.t, err));
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
    tdcl_bench_result_emit(j, &r, r.bytes);
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
    tdcl_bench_result_init(j, &r, "life");
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
    TDCL_TRY(tdcl_bench_run_time(j, life_pat_exec, &l, &r.t, err));
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
    tdcl_bench_result_emit(j, &r, updates);
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
    if (j->o.life_pattern && j->o.life_plane) return tdcl_bench_life_plane(j, err);
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
    tdcl_bench_result_init(j, &r, "life");
    double t0 = tdcl_now_ms(), c0 = ctx->t.compile_ms;
    TDCL_TRY(tdcl_life_plan_create(ctx, &o, &grid, &l.p, err));
    r.upload_ms = since_less_builds(ctx, t0, c0);
    TDCL_TRY(life_check(l.p, &o, &grid, l.gens, err));
    double u0 = 0, u1 = 0;
    TDCL_TRY(tdcl_life_plan_computed(l.p, &u0, err));
    TDCL_TRY(tdcl_bench_run_time(j, life_exec, &l, &r.t, err));
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
    tdcl_bench_result_emit(j, &r, updates);
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
    tdcl_bench_result_init(j, &r, "matmul");
    double t0 = tdcl_now_ms(), c0 = ctx->t.compile_ms;
    TDCL_TRY(tdcl_mm_plan_create(ctx, &o, &a, &b, &p, err));
    r.upload_ms = since_less_builds(ctx, t0, c0);
    TDCL_TRY(tdcl_bench_run_time(j, mm_exec, p, &r.t, err));
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
    tdcl_bench_result_emit(j, &r, 2.0 * (double)m * (double)n * (double)k);
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
    TDCL_TRY(tdcl_bench_measure_memory(&j, err));
    if (j.o.op == TDCL_BENCH_COPY) goto out;
    if (j.o.op == TDCL_BENCH_MATMUL || j.o.op == TDCL_BENCH_ALL)
        TDCL_TRY(tdcl_bench_measure_peak(&j, err));
    if (j.o.op == TDCL_BENCH_LIFE || j.o.op == TDCL_BENCH_ALL)
        TDCL_TRY(tdcl_bench_measure_life_peak(&j, err));
    for (int op = TDCL_BENCH_MATMUL; op < TDCL_BENCH_ALL; op++)
        if (j.o.op == TDCL_BENCH_ALL || j.o.op == (tdcl_bench_op)op)
            TDCL_TRY(run_op(&j, (tdcl_bench_op)op, err));
out:
    return st;
}
