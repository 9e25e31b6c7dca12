/* The product over a set's devices (dist/matmul_run.h) against one
 * shard on its first device (tdcl_bench_matmul_set; both with the row
 * panels overlapped with their copies where the plans choose them,
 * TILEDCL_MM_PANEL_ROWS=0 turns them off for a comparison), or over MPI ranks
 * against rank 0 alone (tdcl_bench_matmul_ranks), measured in the same
 * invocation, after a check that both give the same C (within the
 * product check's bound for floats, exactly for int64). Each repetition
 * is the whole sharded call: plans (kernels from the cache), uploads,
 * products, downloads, assembly. */
#include <math.h>
#include <string.h>

#include "base/rng.h"
#include "bench/bench_scale.h"
#include "dist/mpi.h"
#include "dist/matmul_run.h"

typedef struct mm_bench {
    tdcl_devset *set; /* NULL: MPI ranks */
    tdcl_ctx *ctx;    /* MPI: this rank's device */
    tdcl_mm_shard_opts so;
    const tdcl_mm_opts *o;
    const tdcl_matrix *a, *b;
    int rows, cols;
    tdcl_matrix c;
    tdcl_mm_mpi_layout layout; /* MPI: the grid the run chose */
} mm_bench;

/* The slowest device's kernel time since k0 (each device's kernel_ms). */
static double slowest_kernels(const tdcl_devset *set, const double *k0)
{
    double most = 0;
    for (size_t i = 0; i < set->n; i++) {
        double d = set->ctx[i]->t.kernel_ms - k0[i];
        most = d > most ? d : most;
    }
    return most;
}

/* tdcl_bench_fn: one sharded product, the whole call timed by the caller;
 * the slowest device's kernels in the device slot */
static tdcl_status run_product(void *user, double *device_ms, tdcl_err *err)
{
    mm_bench *r = user;
    double k0[TDCL_DEVSET_MAX];
    *device_ms = 0;
    tdcl_matrix_free(&r->c);
    if (!r->set) { /* MPI: the slowest rank's kernels in the device slot */
        double k0 = r->ctx->t.kernel_ms;
        tdcl_status st = tdcl_mm_mpi_run(r->ctx, &r->so, r->o, TDCL_OK, r->a, r->b, &r->c, err);
        *device_ms = tdcl_mpi_max(r->ctx->t.kernel_ms - k0);
        return st;
    }
    for (size_t i = 0; i < r->set->n; i++)
        k0[i] = r->set->ctx[i]->t.kernel_ms;
    tdcl_status st = tdcl_mm_shard_run(r->set, r->o, r->rows, r->cols, r->a, r->b, &r->c, err);
    *device_ms = slowest_kernels(r->set, k0);
    return st;
}

/* tdcl_bench_fn: the product on one device (MPI: rank 0's, alone) */
static tdcl_status run_alone(void *user, double *device_ms, tdcl_err *err)
{
    mm_bench *r = user;
    double k0 = r->ctx->t.kernel_ms;
    tdcl_matrix_free(&r->c);
    tdcl_status st = tdcl_mm_run(r->ctx, r->o, r->a, r->b, &r->c, err);
    *device_ms = r->ctx->t.kernel_ms - k0; /* its kernels alone */
    return st;
}

static tdcl_status random_matrix(int64_t rows, int64_t cols, tdcl_dtype t, uint64_t seed,
                                 tdcl_matrix *m, tdcl_err *err)
{
    tdcl_status st = tdcl_matrix_alloc(m, rows, cols, 1, t, err);
    uint64_t s = seed;
    for (size_t i = 0; st == TDCL_OK && i < (size_t)(rows * cols); i++) {
        double v = tdcl_rng_uniform(&s, -1, 1);
        if (t == TDCL_I64)
            ((int64_t *)m->data)[i] = (int64_t)(v * 1000);
        else if (t == TDCL_F64)
            ((double *)m->data)[i] = v;
        else
            ((float *)m->data)[i] = (float)v;
    }
    return st;
}

/* The two products agree: int64 exactly, floats within the bound of
 * both against each other (twice --verify's). */
static tdcl_status agree(const tdcl_matrix *x, const tdcl_matrix *y, int64_t k, tdcl_err *err)
{
    size_t n = tdcl_matrix_count(x);
    if (x->dtype == TDCL_I64)
        return memcmp(x->data, y->data, n * 8) == 0
                   ? TDCL_OK
                   : tdcl_fail(err, TDCL_EVERIFY, "the shards' int64 product differs from one's");
    double d = 0, r = 0, u = x->dtype == TDCL_F64 ? ldexp(1, -53) : ldexp(1, -24);
    for (size_t i = 0; i < n; i++) {
        double p = tdcl_matrix_get_f64(x, i), q = tdcl_matrix_get_f64(y, i);
        d += (p - q) * (p - q);
        r += p * p;
    }
    /* |A| |B| of uniform [-1, 1] entries is about K sqrt(M N) / 3 >= |C| */
    double bound = 4.0 * (double)(k + 2) * u * sqrt((double)k) * sqrt(r) + 1e-300;
    return sqrt(d) <= bound ? TDCL_OK
                            : tdcl_fail(err, TDCL_EVERIFY,
                                        "the shards' product differs from one's by %.3g (bound "
                                        "%.3g)",
                                        sqrt(d), bound);
}

/* What both matmul drivers report beside the two timings. */
static void mm_figure(const tdcl_bench_opts *o, const mm_bench *all, size_t parts, int64_t m,
                      int64_t k, int64_t n, tdcl_bench_scale *r)
{
    r->op = TDCL_BENCH_MATMUL;
    r->parts = parts;
    r->type = o->type;
    r->m = m;
    r->k = k;
    r->n = n;
    r->grid_rows = all->rows;
    r->grid_cols = all->cols;
    r->bands = all->layout.bands;
}

tdcl_status tdcl_bench_matmul_set(const char *spec, const tdcl_ctx_opts *co,
                                  const tdcl_bench_opts *o, tdcl_bench_scale *r, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix a = {0}, b = {0};
    tdcl_bench_stats t1 = {0}, tn = {0};
    tdcl_mm_opts mo = {
        .type = o->type, .precision = o->precision, .par = o->mm_par, .no_tune = o->mm_no_tune};
    mm_bench one = {.o = &mo, .a = &a, .b = &b, .rows = 1, .cols = 1};
    mm_bench all = {.o = &mo, .a = &a, .b = &b};
    memset(r, 0, sizeof *r);
    r->root = 1;
    TDCL_TRY(tdcl_devset_open_async(spec, co, &all.set, err));
    TDCL_TRY(tdcl_devset_wait(all.set, err));
    TDCL_TRY(tdcl_mm_shard_grid_local(all.set->n, o->grid_rows, o->grid_cols, &all.rows, &all.cols,
                                      err));
    int64_t sz = o->size ? o->size : tdcl_bench_default_size(&all.set->ctx[0]->dev, o->op);
    int64_t m = o->m ? o->m : sz, k = o->k ? o->k : sz, n = o->n ? o->n : sz;
    int reps = o->reps ? o->reps : 3, warm = o->warmup < 0 ? 1 : o->warmup;
    TDCL_TRY(random_matrix(m, k, o->type, o->seed ? o->seed : 1, &a, err));
    TDCL_TRY(random_matrix(k, n, o->type, (o->seed ? o->seed : 1) + 1, &b, err));
    tdcl_devset first = {.n = 1, .ctx = {all.set->ctx[0]}};
    one.set = &first;
    TDCL_TRY(tdcl_bench_time(warm, reps, run_product, &one, &t1, err));
    TDCL_TRY(tdcl_bench_time(warm, reps, run_product, &all, &tn, err));
    TDCL_TRY(agree(&one.c, &all.c, k, err));
    tdcl_bench_scale_devices(all.set, r->devices, sizeof r->devices);
    mm_figure(o, &all, all.set->n, m, k, n, r);
    r->reps = t1.reps;
    r->one = t1;
    r->all = tn;
out:
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&one.c);
    tdcl_matrix_free(&all.c);
    tdcl_devset_close(all.set);
    return st;
}

#define SYNC TDCL_MPI_SYNC

tdcl_status tdcl_bench_matmul_ranks(const char *spec, const tdcl_bench_opts *o, tdcl_bench_scale *r,
                                    tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix a = {0}, b = {0};
    tdcl_bench_stats t1 = {0}, tn = {0};
    int root = tdcl_mpi_rank() == 0;
    tdcl_mm_opts mo = {
        .type = o->type, .precision = o->precision, .par = o->mm_par, .no_tune = o->mm_no_tune};
    mm_bench one = {.o = &mo, .a = &a, .b = &b};
    mm_bench all = {.o = &mo, .a = &a, .b = &b};
    memset(r, 0, sizeof *r);
    r->ranks = 1;
    all.so.devices = spec;
    all.so.grid_rows = o->grid_rows;
    all.so.grid_cols = o->grid_cols;
    /* each rank starts with the inputs, as each reads its own from .npy
     * files, and keeps its block of C, as each writes its own into a .npy
     * output: the measure is the decomposition, not rank 0's scatter */
    all.so.inputs_everywhere = 1;
    all.so.c_stays = 1;
    all.so.layout = &all.layout;
    SYNC(tdcl_mm_mpi_open(&all.so, &all.ctx, err));
    one.ctx = all.ctx;
    /* rank 0's device picks the default size for every rank */
    int64_t sz = o->size ? o->size : tdcl_bench_default_size(&all.ctx->dev, o->op);
    tdcl_mpi_bcast_i64(&sz);
    int64_t m = o->m ? o->m : sz, k = o->k ? o->k : sz, n = o->n ? o->n : sz;
    int reps = o->reps ? o->reps : 3, warm = o->warmup < 0 ? 1 : o->warmup;
    st = random_matrix(m, k, o->type, o->seed ? o->seed : 1, &a, err);
    if (st == TDCL_OK) st = random_matrix(k, n, o->type, (o->seed ? o->seed : 1) + 1, &b, err);
    SYNC(st);
    if (root) st = tdcl_bench_time(warm, reps, run_alone, &one, &t1, err);
    tdcl_mpi_quiet_barrier(); /* the others wait without taking rank 0's CPU */
    SYNC(st);
    SYNC(tdcl_bench_time(warm, reps, run_product, &all, &tn, err));
    all.rows = all.layout.rows, all.cols = all.layout.cols;
    /* the check: one more run, C gathered on rank 0 */
    all.so.c_stays = 0;
    double ignored = 0;
    SYNC(run_product(&all, &ignored, err));
    if (root) st = agree(&one.c, &all.c, k, err);
    SYNC(st);
    r->root = root;
    mm_figure(o, &all, (size_t)tdcl_mpi_size(), m, k, n, r);
    r->reps = t1.reps;
    r->one = t1;
    r->all = tn;
out:
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&one.c);
    tdcl_matrix_free(&all.c);
    tdcl_ctx_close(all.ctx);
    return st;
}
