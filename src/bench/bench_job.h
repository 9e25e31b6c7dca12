/* What the per-operation drivers (bench_ops.c) and the ceilings
 * (bench_ceilings.c) of one `tiledcl bench` job share; private to
 * src/bench. */
#ifndef TDCL_BENCH_JOB_H
#define TDCL_BENCH_JOB_H

#include "bench/bench_ops.h"

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
    int timer_said; /* tdcl_bench_run_time's note was logged */
} bench_job;

/* tdcl_bench_time with the job's warm-up and repetitions, on the host's
 * clock where the device's cannot be trusted (said once a job). */
tdcl_status tdcl_bench_run_time(bench_job *j, tdcl_bench_fn fn, void *user, tdcl_bench_stats *t,
                                tdcl_err *err);

/* r zeroed for a figure of op on j's device, with the job's ceilings so
 * far and the unknown fractions NaN. */
void tdcl_bench_result_init(const bench_job *j, tdcl_bench_result *r, const char *op);

/* Rates and fractions from r->t, r->bytes and the work of one run (FLOP for
 * gflops, bytes for gbps, cell updates for cells_per_s), then emits r. */
void tdcl_bench_result_emit(const bench_job *j, tdcl_bench_result *r, double work);

/* The ceilings (bench_ceilings.c), each emitted as a figure and kept in j:
 * the copy ceiling always and the read ceiling when tile-avg is measured;
 * the multiply-add peak of j's matmul element type; the life logic
 * peak. */
tdcl_status tdcl_bench_measure_memory(bench_job *j, tdcl_err *err);
tdcl_status tdcl_bench_measure_peak(bench_job *j, tdcl_err *err);
tdcl_status tdcl_bench_measure_life_peak(bench_job *j, tdcl_err *err);

/* life --pattern on the tile plane (bench_plane.c): generations/s, live
 * cells and tiles in the plan text, cell updates/s of the active area. */
tdcl_status tdcl_bench_life_plane(bench_job *j, tdcl_err *err);

#endif
