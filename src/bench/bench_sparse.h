/* tiledcl bench spgemm / spmm: sparse products on seeded generated
 * matrices, in GFLOP/s (2 per product term) beside the copy bandwidth of
 * the same run.
 *
 * The generators are counter-based (splitmix64 of the seed's key plus the
 * index), so that bench/cusparse_anchor.py makes the same matrices with
 * numpy: R-MAT "rmat:K:E" (2^K vertices, E * 2^K edges drawn with the
 * Graph500 probabilities 0.57, 0.19, 0.19, 0.05, duplicates summed),
 * uniform "uniform:N:R" (N x N, R columns drawn per row, duplicates
 * summed), and the 2D 5-point Laplacian "laplace:M" (M^2 unknowns).
 * Values are float32 integers 1..4 (Laplacian: 4 and -1), so that sums
 * are exact whatever their order. */
#ifndef TDCL_BENCH_SPARSE_H
#define TDCL_BENCH_SPARSE_H

#include <stdint.h>

#include "base/csr.h"
#include "base/status.h"
#include "runtime/clrt.h"

typedef enum tdcl_spgen_kind {
    TDCL_SPGEN_RMAT,
    TDCL_SPGEN_UNIFORM,
    TDCL_SPGEN_LAPLACE
} tdcl_spgen_kind;

typedef struct tdcl_spgen {
    tdcl_spgen_kind kind;
    int64_t n;   /* rmat: K (2^K vertices); uniform: N; laplace: M */
    int64_t per; /* rmat: edges per vertex; uniform: columns per row */
} tdcl_spgen;

/* Parses "rmat:K:E", "uniform:N:R" or "laplace:M"; TDCL_EINVAL naming the
 * forms otherwise. */
tdcl_status tdcl_spgen_parse(const char *s, tdcl_spgen *g, tdcl_err *err);

/* "rmat:15:8" and so on into buf; returns buf. */
const char *tdcl_spgen_name(const tdcl_spgen *g, char *buf, size_t cap);

/* Makes the float32 matrix g describes from seed, sorted, duplicates
 * summed. out is overwritten; tdcl_csr_free. */
tdcl_status tdcl_spgen_make(const tdcl_spgen *g, uint64_t seed, tdcl_csr *out, tdcl_err *err);

/* One measured product. */
typedef struct tdcl_bench_sparse_row {
    char matrix[48];
    int spmm_cols; /* 0: SpGEMM A*A; else A times a dense block of that many columns */
    int64_t rows, nnz, nnz_c, terms;
    double median_ms, min_ms, gflops;
    double gbps;      /* bytes of A, B and C over the median time */
    double copy_gbps; /* the copy ceiling of the same run */
} tdcl_bench_sparse_row;

typedef void (*tdcl_bench_sparse_emit)(const tdcl_bench_sparse_row *r, void *user);

typedef struct tdcl_bench_sparse_opts {
    int spmm;               /* SpMM rows (else SpGEMM) */
    const tdcl_spgen *gens; /* the matrices; NULL: the four of the issue's table */
    int ngens;
    const int *cols; /* SpMM's dense columns; NULL: 32, 128, 512 */
    int ncols;
    int warmup, reps; /* < 0 / 0: 1 and 5 */
    uint64_t seed;    /* 0: 1 */
} tdcl_bench_sparse_opts;

/* Measures the copy ceiling, then each product (checked once against the
 * host's product for SpGEMM), handing each row to emit. */
tdcl_status tdcl_bench_sparse(tdcl_ctx *ctx, const tdcl_bench_sparse_opts *o,
                              tdcl_bench_sparse_emit emit, void *user, tdcl_err *err);

/* The row as a text line / a JSON object (no newline). */
void tdcl_bench_sparse_text(const tdcl_bench_sparse_row *r, char *buf, size_t cap);
void tdcl_bench_sparse_json(const tdcl_bench_sparse_row *r, char *buf, size_t cap);

#endif
