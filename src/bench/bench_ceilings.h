/* The ceilings of `tiledcl bench` (bench_ceilings.c): the copy, read,
 * multiply-add and life logic peaks that a job measures before the
 * operations (tdcl_bench_job). The copy kernel is also offered on its own,
 * for the benchmark programs in bench/. */
#ifndef TDCL_BENCH_CEILINGS_H
#define TDCL_BENCH_CEILINGS_H

#include <stddef.h>

#include "base/status.h"
#include "runtime/clrt.h"

/* The copy ceiling's kernel on its own, for drivers that pair copies with
 * their own runs (bench/): cl/copy.cl's copy_f32 with vec (1, 4 or 8)
 * floats per work-item, launched as tdcl_bench_job launches it. create
 * uploads host (n floats; not kept) into a new copy owned by the caller
 * (tdcl_bench_copy_destroy, which accepts NULL); exec (a tdcl_bench_fn)
 * runs it once and gives its device time; describe names the launch
 * ("copy_f32 vec=8 items=... wg=256"), owned by the copy. */
typedef struct tdcl_bench_copy tdcl_bench_copy;
tdcl_status tdcl_bench_copy_create(tdcl_ctx *ctx, const float *host, size_t n, int vec,
                                   tdcl_bench_copy **out, tdcl_err *err);
tdcl_status tdcl_bench_copy_exec(void *copy, double *device_ms, tdcl_err *err);
const char *tdcl_bench_copy_describe(const tdcl_bench_copy *c);
void tdcl_bench_copy_destroy(tdcl_bench_copy *c);

#endif
