/* The per-operation benchmark drivers behind `tiledcl bench`: the
 * ceilings (bench_ceilings.h), then each operation through its plan API,
 * on seeded random inputs (never all zeros); bench_report.h writes the
 * figures as lines.
 *
 * One job measures the ceilings first, then the operations asked for, and
 * hands each finished figure to a callback as it comes, so a long run shows
 * progress and the core never prints. */
#ifndef TDCL_BENCH_OPS_H
#define TDCL_BENCH_OPS_H

#include <stdint.h>

#include "base/timer.h"
#include "runtime/clrt.h"
#include "ops/life/life.h"
#include "ops/matmul/matmul.h"
#include "base/matrix.h"
#include "base/status.h"

typedef enum tdcl_bench_op {
    TDCL_BENCH_COPY = 0,
    TDCL_BENCH_MATMUL,
    TDCL_BENCH_TILE_AVG,
    TDCL_BENCH_LIFE,
    TDCL_BENCH_ALL,
} tdcl_bench_op;

typedef struct tdcl_bench_opts {
    tdcl_bench_op op;
    int64_t size;                /* N of the NxN problem; 0: the default for the device type */
    int64_t m, k, n;             /* matmul --shape MxKxN; all 0: square N */
    int64_t copy_size;           /* the copy ceiling moves an NxN float array; 0: default */
    int tile;                    /* 0: each operation's own choice (copy: best vector width) */
    int tile_cols;               /* tile-avg: U of a T x U tile; 0: square (U = T) */
    int64_t gens;                /* life generations per repetition; 0: 100 */
    int reps;                    /* timed repetitions; 0: 10 */
    int warmup;                  /* untimed runs first; < 0: 1 */
    tdcl_dtype type;             /* matmul element type: TDCL_F32, TDCL_F64 or TDCL_I64 */
    tdcl_mm_precision precision; /* matmul arithmetic: fp32 (the zero default), tf32,
                                    3xtf32 or auto (tensor cores, matmul_tc.h) */
    tdcl_mm_params mm_par;       /* matmul kernel parameters; 0s: the plan's choice */
    int mm_no_tune;              /* matmul ignores the tuned and built-in tables */
    uint64_t seed;               /* 0: a fixed default */
    const char *life_pattern;    /* life: a pattern file centred in the NxN grid (dead
                                    boundary, its rule), run with life_sparse and
                                    again dense; NULL: the soup */
    tdcl_life_sparse_mode life_sparse; /* life: skipping tiles (the soup's and the
                                          pattern's first run) */
    tdcl_life_boundary life_boundary;  /* life: the soup's boundary (dead, the zero
                                          default; torus; clamp) */
    int grid_rows, grid_cols;          /* matmul over a set or ranks: the grid of
                                          shards; 0: the squarest */
    int life_plane;                    /* life --pattern on the tile plane, not a grid */
} tdcl_bench_opts;

/* Fills o with the defaults above (op COPY, type F32, warm-up 1). */
void tdcl_bench_opts_init(tdcl_bench_opts *o);

/* "copy", "matmul", "tile-avg", "life", "all"; tdcl_bench_op_parse returns
 * 0 and sets *op, or -1 for an unknown name. */
const char *tdcl_bench_op_name(tdcl_bench_op op);
int tdcl_bench_op_parse(const char *name, tdcl_bench_op *op);

/* The default problem size of op on device d: the large sizes on a GPU or
 * accelerator, the small ones on a CPU. */
int64_t tdcl_bench_default_size(const tdcl_device_info *d, tdcl_bench_op op);

/* One measured figure. Fractions and peaks are NaN where not meaningful or
 * unknown (they print as null / "unknown"). */
typedef struct tdcl_bench_result {
    char op[16]; /* "copy", "read", "peak", "life-peak", "matmul", "tile-avg", "life" */
    char device[128];
    char plan[320];          /* what ran: kernel, tile, vector width ... */
    const char *type;        /* element type name ("float32") */
    int64_t size;            /* N of an NxN problem; 0 for a --shape matmul */
    int64_t m, k, n;         /* matmul shape; 0 elsewhere */
    int64_t tile;            /* the tile edge used; 0 when none or unknown */
    int64_t tile_cols;       /* tile-avg: the tile's columns when not square; else 0 */
    int64_t gens;            /* life; 0 elsewhere */
    tdcl_bench_stats t;      /* device and host ms over the repetitions */
    double upload_ms;        /* host time to create the plan, less program builds */
    double download_ms;      /* host time to fetch the result once */
    double total_ms;         /* upload + median host time of one run + download */
    const char *rate_key;    /* "gbps", "gflops" or "cells_per_s" */
    double rate;             /* per the median device time */
    double bytes;            /* bytes read plus written by one run (traffic model) */
    double copy_gbps;        /* the copy ceiling of this job: its fastest copy run */
    double frac_copy;        /* bytes / median time as a fraction of copy_gbps */
    double peak_gflops;      /* the fastest run of the peak kernel in this job */
    double spec_peak_gflops; /* from the vendor's specification table */
    double frac_peak, frac_spec_peak;
    double computed_rate;  /* life with tiles skipped: cell updates/s of the tiles
                              computed (rate is the whole grid's); NaN or 0 otherwise */
    double read_gbps;      /* the read ceiling of this job (tile-avg), else NaN */
    double frac_read;      /* bytes / median time as a fraction of read_gbps */
    double life_peak;      /* the life logic ceiling, cell updates/s (life), else NaN */
    double frac_life_peak; /* rate as a fraction of life_peak */
    const char *ceiling;   /* the ceiling this figure is measured against: "copy",
                              "read", "peak" or "life-peak" */
    double frac_ceiling;   /* the fraction of that ceiling (one of the above) */
    int checked;           /* 1 when the output was checked against the host */
    int tensor_cores;      /* matmul: computed on tensor cores, past the FP32 peaks */
    int cpu;               /* the device is a CPU (caches allocate on write) */
} tdcl_bench_result;

typedef void (*tdcl_bench_emit_fn)(const tdcl_bench_result *r, void *user);

/* Measures what o asks on ctx: the copy ceiling (always, emitted as op
 * "copy"), the read ceiling (when tile-avg is measured, op "read"), the
 * multiply-add peak (when matmul is, op "peak"), the life logic peak (when
 * life is, op "life-peak"), then the operations, each against the ceiling
 * that bounds it (tdcl_bench_result.ceiling). emit is called once per figure. Fills ctx->t. Returns
 * TDCL_EUNSUPPORTED for an operation this build does not have yet,
 * TDCL_ELIMIT for a size past the device's memory, TDCL_EVERIFY when a
 * spot check of an output against the host fails. */
tdcl_status tdcl_bench_job(tdcl_ctx *ctx, const tdcl_bench_opts *o, tdcl_bench_emit_fn emit,
                           void *user, tdcl_err *err);

#endif
