/* tiledcl bench spgemm / spmm (bench_sparse.h): the generators, the
 * timing of ops/sparse's products and their lines. */
#include "bench/bench_sparse.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/csr_mul.h"
#include "base/timer.h"
#include "bench/bench_ceilings.h"
#include "ops/sparse/sparse.h"

static uint64_t sm64(uint64_t x)
{
    uint64_t z = x + 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* The key of stream s (0: structure, 1: values) of seed. */
static uint64_t key(uint64_t seed, uint64_t s)
{
    return sm64(seed * 4 + s);
}

tdcl_status tdcl_spgen_parse(const char *s, tdcl_spgen *g, tdcl_err *err)
{
    long long a = 0, b = 0;
    char tail;
    memset(g, 0, sizeof *g);
    if (sscanf(s, "rmat:%lld:%lld%c", &a, &b, &tail) == 2 && a >= 1 && a <= 30 && b >= 1)
        *g = (tdcl_spgen){TDCL_SPGEN_RMAT, a, b};
    else if (sscanf(s, "uniform:%lld:%lld%c", &a, &b, &tail) == 2 && a >= 1 && b >= 1 && b <= a)
        *g = (tdcl_spgen){TDCL_SPGEN_UNIFORM, a, b};
    else if (sscanf(s, "laplace:%lld%c", &a, &tail) == 1 && a >= 1 && a <= 40000)
        *g = (tdcl_spgen){TDCL_SPGEN_LAPLACE, a, 0};
    else
        return tdcl_fail(err, TDCL_EINVAL,
                         "expected a matrix 'rmat:K:E' (K from 1 to 30), 'uniform:N:R' (R <= N) "
                         "or 'laplace:M', got '%s'",
                         s);
    return TDCL_OK;
}

const char *tdcl_spgen_name(const tdcl_spgen *g, char *buf, size_t cap)
{
    if (g->kind == TDCL_SPGEN_RMAT)
        snprintf(buf, cap, "rmat:%" PRId64 ":%" PRId64, g->n, g->per);
    else if (g->kind == TDCL_SPGEN_UNIFORM)
        snprintf(buf, cap, "uniform:%" PRId64 ":%" PRId64, g->n, g->per);
    else
        snprintf(buf, cap, "laplace:%" PRId64, g->n);
    return buf;
}

typedef struct ent {
    int32_t col;
    float v;
} ent;

static int cmp_ent(const void *x, const void *y)
{
    int32_t a = ((const ent *)x)->col, b = ((const ent *)y)->col;
    return (a > b) - (a < b);
}

/* CSR of n x n from ne triplets (row r[t], e[t]): rows sorted, duplicates
 * summed. */
static tdcl_status from_coo(int64_t n, int64_t ne, const int32_t *r, ent *e, tdcl_csr *out,
                            tdcl_err *err)
{
    int64_t *at = calloc((size_t)n + 1, sizeof *at);
    ent *s = malloc(ne ? (size_t)ne * sizeof *s : 1);
    tdcl_status st = TDCL_OK;
    if (!at || !s) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory generating a sparse matrix");
        goto out;
    }
    for (int64_t t = 0; t < ne; t++)
        at[r[t] + 1]++;
    for (int64_t i = 0; i < n; i++)
        at[i + 1] += at[i];
    for (int64_t t = 0; t < ne; t++)
        s[at[r[t]]++] = e[t];
    for (int64_t i = n; i > 0; i--)
        at[i] = at[i - 1];
    at[0] = 0;
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++) {
        qsort(s + at[i], (size_t)(at[i + 1] - at[i]), sizeof *s, cmp_ent);
        for (int64_t k = at[i]; k < at[i + 1]; k++) {
            if (k > at[i] && s[k].col == s[nnz - 1].col)
                s[nnz - 1].v += s[k].v;
            else
                s[nnz++] = s[k];
        }
        at[i] = nnz; /* the row's end, for the second pass */
    }
    TDCL_TRY(tdcl_csr_alloc(out, n, n, nnz, TDCL_F32, 0, err));
    int32_t *rp = out->rowptr, *ci = out->colidx;
    float *v = out->values;
    for (int64_t i = 0; i < n; i++)
        rp[i + 1] = (int32_t)at[i];
    for (int64_t k = 0; k < nnz; k++) {
        ci[k] = s[k].col;
        v[k] = s[k].v;
    }
    out->sorted = 1;
out:
    free(at);
    free(s);
    return st;
}

static float value(uint64_t kv, int64_t t)
{
    return (float)(1 + (sm64(kv + (uint64_t)t) >> 62));
}

static void rmat(const tdcl_spgen *g, uint64_t seed, int32_t *r, ent *e)
{
    uint64_t ks = key(seed, 0), kv = key(seed, 1);
    int64_t ne = g->per << g->n;
    for (int64_t t = 0; t < ne; t++) {
        int32_t i = 0, j = 0;
        for (int64_t l = 0; l < g->n; l++) {
            double u = (double)(sm64(ks + (uint64_t)(t * g->n + l)) >> 11) * 0x1p-53;
            int bi = u >= 0.57 + 0.19, bj = (u >= 0.57 && u < 0.76) || u >= 0.95;
            i = i * 2 + bi;
            j = j * 2 + bj;
        }
        r[t] = i;
        e[t] = (ent){j, value(kv, t)};
    }
}

static void uniform(const tdcl_spgen *g, uint64_t seed, int32_t *r, ent *e)
{
    uint64_t ks = key(seed, 0), kv = key(seed, 1);
    for (int64_t t = 0; t < g->n * g->per; t++) {
        r[t] = (int32_t)(t / g->per);
        e[t] = (ent){(int32_t)(sm64(ks + (uint64_t)t) % (uint64_t)g->n), value(kv, t)};
    }
}

/* Returns the triplets' count. */
static int64_t laplace(const tdcl_spgen *g, int32_t *r, ent *e)
{
    int64_t m = g->n, t = 0;
    for (int64_t y = 0; y < m; y++)
        for (int64_t x = 0; x < m; x++) {
            int32_t p = (int32_t)(y * m + x);
            int32_t nb[5] = {p - (int32_t)m, p - 1, p, p + 1, p + (int32_t)m};
            int ok[5] = {y > 0, x > 0, 1, x < m - 1, y < m - 1};
            for (int q = 0; q < 5; q++)
                if (ok[q]) {
                    r[t] = p;
                    e[t++] = (ent){nb[q], q == 2 ? 4.0f : -1.0f};
                }
        }
    return t;
}

tdcl_status tdcl_spgen_make(const tdcl_spgen *g, uint64_t seed, tdcl_csr *out, tdcl_err *err)
{
    int64_t n = g->kind == TDCL_SPGEN_RMAT      ? (int64_t)1 << g->n
                : g->kind == TDCL_SPGEN_UNIFORM ? g->n
                                                : g->n * g->n;
    int64_t ne = g->kind == TDCL_SPGEN_LAPLACE ? 5 * n : n * g->per;
    memset(out, 0, sizeof *out);
    if (n >= INT32_MAX || ne >= INT32_MAX)
        return tdcl_fail(err, TDCL_ELIMIT, "a generated matrix takes fewer than 2^31 entries");
    int32_t *r = malloc((size_t)ne * sizeof *r);
    ent *e = malloc((size_t)ne * sizeof *e);
    tdcl_status st;
    if (!r || !e) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory generating a sparse matrix");
        goto out;
    }
    if (g->kind == TDCL_SPGEN_RMAT) rmat(g, seed, r, e);
    if (g->kind == TDCL_SPGEN_UNIFORM) uniform(g, seed, r, e);
    if (g->kind == TDCL_SPGEN_LAPLACE) ne = laplace(g, r, e);
    st = from_coo(n, ne, r, e, out, err);
out:
    free(r);
    free(e);
    return st;
}

/* The copy ceiling of the run: 16M floats there and back, GB/s. */
static tdcl_status copy_gbps(tdcl_ctx *ctx, int warmup, int reps, double *gbps, tdcl_err *err)
{
    size_t n = (size_t)1 << 24;
    float *host = calloc(n, sizeof *host);
    tdcl_bench_copy *c = NULL;
    tdcl_bench_stats t;
    tdcl_status st;
    if (!host) return tdcl_fail(err, TDCL_ENOMEM, "bench: out of memory");
    TDCL_TRY(tdcl_bench_copy_create(ctx, host, n, 4, &c, err));
    TDCL_TRY(tdcl_bench_time(warmup, reps, tdcl_bench_copy_exec, c, &t, err));
    *gbps = 2.0 * (double)n * sizeof(float) / (t.median_ms * 1e6);
out:
    tdcl_bench_copy_destroy(c);
    free(host);
    return st;
}

typedef struct run {
    tdcl_sparse_plan *p;
    const tdcl_csr *a;
    const tdcl_matrix *d; /* SpMM's block, else NULL */
    int64_t nnz_c;
} run;

static tdcl_status run_once(void *user, double *ms, tdcl_err *err)
{
    run *r = user;
    tdcl_sparse_info info;
    tdcl_status st;
    if (r->d) {
        tdcl_matrix c;
        st = tdcl_spmm(r->p, r->a, r->d, 1, &c, &info, err);
        tdcl_matrix_free(&c);
    } else {
        tdcl_csr c;
        st = tdcl_spgemm(r->p, r->a, r->a, 0, &c, &info, err);
        r->nnz_c = c.nnz;
        tdcl_csr_free(&c);
    }
    *ms = info.kernel_ms;
    return st;
}

/* The SpGEMM A*A once against the host's product. */
static tdcl_status check_once(tdcl_sparse_plan *p, const tdcl_csr *a, tdcl_err *err)
{
    tdcl_csr c = {0}, want = {0};
    tdcl_status st;
    TDCL_TRY(tdcl_spgemm(p, a, a, 0, &c, NULL, err));
    TDCL_TRY(tdcl_csr_mul_host(a, a, 0, &want, err));
    TDCL_TRY(tdcl_csr_compare(&c, &want, 1e-5, NULL, err));
out:
    tdcl_csr_free(&c);
    tdcl_csr_free(&want);
    return st;
}

static tdcl_status measure(const tdcl_bench_sparse_opts *o, run *r, int cols,
                           tdcl_bench_sparse_row *row, tdcl_err *err)
{
    tdcl_bench_stats t;
    tdcl_status st =
        tdcl_bench_time(o->warmup < 0 ? 1 : o->warmup, o->reps ? o->reps : 5, run_once, r, &t, err);
    if (st != TDCL_OK) return st;
    const tdcl_csr *a = r->a;
    row->spmm_cols = cols;
    row->rows = a->rows;
    row->nnz = a->nnz;
    row->terms = cols ? a->nnz * cols : tdcl_csr_mul_work(a, a, NULL);
    row->nnz_c = cols ? a->rows * cols : r->nnz_c;
    row->median_ms = t.median_ms;
    row->min_ms = t.min_ms;
    row->gflops = 2.0 * (double)row->terms / (t.median_ms * 1e6);
    double bytes = cols ? (double)a->nnz * 8 + (double)(a->cols + a->rows) * cols * 4
                        : (double)a->nnz * 16 + (double)row->nnz_c * 8;
    row->gbps = bytes / (t.median_ms * 1e6);
    return TDCL_OK;
}

static const tdcl_spgen issue_set[] = {
    {TDCL_SPGEN_RMAT, 15, 8},
    {TDCL_SPGEN_RMAT, 16, 8},
    {TDCL_SPGEN_LAPLACE, 1000, 0},
    {TDCL_SPGEN_UNIFORM, 100000, 16},
};
static const int spmm_cols[] = {32, 128, 512};

tdcl_status tdcl_bench_sparse(tdcl_ctx *ctx, const tdcl_bench_sparse_opts *o,
                              tdcl_bench_sparse_emit emit, void *user, tdcl_err *err)
{
    const tdcl_spgen *gens = o->gens ? o->gens : issue_set;
    int ngens = o->gens ? o->ngens : 4, ncols = o->cols ? o->ncols : 3;
    const int *cols = o->cols ? o->cols : spmm_cols;
    uint64_t seed = o->seed ? o->seed : 1;
    tdcl_sparse_plan *p = NULL;
    tdcl_csr a = {0};
    tdcl_matrix d = {0};
    double ceiling = 0;
    tdcl_status st;
    TDCL_TRY(copy_gbps(ctx, 1, 5, &ceiling, err));
    TDCL_TRY(tdcl_sparse_plan_create(ctx, &p, err));
    for (int g = 0; g < ngens; g++) {
        tdcl_bench_sparse_row row = {0};
        tdcl_spgen_name(&gens[g], row.matrix, sizeof row.matrix);
        row.copy_gbps = ceiling;
        TDCL_TRY(tdcl_spgen_make(&gens[g], seed, &a, err));
        run r = {p, &a, NULL, 0};
        if (!o->spmm) {
            TDCL_TRY(check_once(p, &a, err));
            TDCL_TRY(measure(o, &r, 0, &row, err));
            emit(&row, user);
        }
        for (int c = 0; o->spmm && c < ncols; c++) {
            TDCL_TRY(tdcl_matrix_alloc(&d, a.cols, cols[c], 1, TDCL_F32, err));
            for (int64_t k = 0; k < a.cols * cols[c]; k++)
                ((float *)d.data)[k] = value(key(seed, 2), k);
            r.d = &d;
            TDCL_TRY(measure(o, &r, cols[c], &row, err));
            emit(&row, user);
            tdcl_matrix_free(&d);
        }
        tdcl_csr_free(&a);
    }
out:
    tdcl_matrix_free(&d);
    tdcl_csr_free(&a);
    tdcl_sparse_plan_destroy(p);
    return st;
}

void tdcl_bench_sparse_text(const tdcl_bench_sparse_row *r, char *buf, size_t cap)
{
    char what[32] = "spgemm";
    if (r->spmm_cols) snprintf(what, sizeof what, "spmm x%d", r->spmm_cols);
    snprintf(buf, cap,
             "%-9s %-18s %9" PRId64 " rows %10" PRId64 " nnz  C %11" PRId64
             "  %9.3f ms  %7.2f GFLOP/s  %6.1f GB/s (copy %.1f)",
             what, r->matrix, r->rows, r->nnz, r->nnz_c, r->median_ms, r->gflops, r->gbps,
             r->copy_gbps);
}

void tdcl_bench_sparse_json(const tdcl_bench_sparse_row *r, char *buf, size_t cap)
{
    snprintf(buf, cap,
             "{\"op\":\"%s\",\"matrix\":\"%s\",\"dense_cols\":%d,\"rows\":%" PRId64
             ",\"nnz\":%" PRId64 ",\"nnz_c\":%" PRId64 ",\"terms\":%" PRId64
             ",\"median_ms\":%.4f,\"min_ms\":%.4f,\"gflops\":%.3f,\"gbps\":%.2f,"
             "\"copy_gbps\":%.2f}",
             r->spmm_cols ? "spmm" : "spgemm", r->matrix, r->spmm_cols, r->rows, r->nnz, r->nnz_c,
             r->terms, r->median_ms, r->min_ms, r->gflops, r->gbps, r->copy_gbps);
}
