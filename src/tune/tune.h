/* The search for matmul's kernel parameters (module prefix tdcl_tune_):
 * candidate sets are checked and timed on ctx's device, and the winners
 * stored in matmul's tuned table (ops/matmul/mm_table.h). */
#ifndef TDCL_TUNE_H
#define TDCL_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/clrt.h"
#include "ops/matmul/matmul.h"
#include "ops/matmul/mm_table.h"
#include "base/matrix.h"
#include "base/status.h"

/* Called after each parameter set; line is a short summary of the best so
 * far. done counts sets tried, total the sets planned. */
typedef void (*tdcl_tune_progress_fn)(void *user, int done, int total, double elapsed_s,
                                      double limit_s, const char *line);

#define TDCL_TUNE_MAX_SIZES 8

typedef struct tdcl_tune_opts {
    int64_t sizes[TDCL_TUNE_MAX_SIZES]; /* square products to tune for */
    int nsizes;                         /* 0: 256, 1024 and 4096 on GPUs, 256 and 1024 else */
    double time_limit_s;                /* stop starting new sets after this; 0: 60 */
    const char *candidates;             /* parameter sets to try, one per line ('#' starts a
                                           comment); NULL: search the space */
    int max_sets;                       /* stop after this many sets; 0: no limit */
    int store;                          /* merge the winners into the tuned table */
    double min_gain;                    /* a set replaces the current choice only when at
                                           least this much faster (0.02: 2%, the default
                                           when 0; negative: any set, for tests) */
    uint64_t seed;                      /* order of the search; 0: fixed default */
    tdcl_tune_progress_fn progress;     /* NULL: none */
    void *user;
} tdcl_tune_opts;

typedef struct tdcl_tune_best {
    int64_t size;
    tdcl_mm_params par; /* the winner (all keys filled in) */
    double gflops;      /* its median rate */
    double base_gflops; /* what the plan chose before tuning (tuned, built-in or default) */
    int improved;       /* par beat the plan's choice by the margin: stored */
    int tried_any;      /* par is a set tried, not the plan's choice */
} tdcl_tune_best;

typedef struct tdcl_tune_result {
    tdcl_mm_kernel kernel; /* the shape tuned: cpu or gpu */
    int nsizes;
    tdcl_tune_best best[TDCL_TUNE_MAX_SIZES];
    int tried;    /* sets built, checked and timed */
    int rejected; /* sets the device refused or that computed wrong results */
    double elapsed_s;
    char stored[4096]; /* the table written, "" when not stored */
} tdcl_tune_result;

/* Tunes the float32 matmul kernel of ctx's device type (GPU: gpu shape,
 * else the cpu shape): first measures the plan's current choice per size,
 * then tries parameter sets until the time limit. Each set is built, run
 * on a small product with edge tiles and a partial K slab and compared
 * with a host reference (a wrong result rejects the set), then timed per
 * size (a warm-up, then the median of at least 3 runs; device time). Every
 * set tried is logged at verbose level with its rates. With o->store the
 * winners are merged into the tuned table (atomically). TDCL_EINVAL for a
 * bad candidate line, TDCL_EIO when the table cannot be written; a set
 * that fails to build or run only counts as rejected. */
tdcl_status tdcl_tune_matmul(tdcl_ctx *ctx, const tdcl_tune_opts *o, tdcl_tune_result *res,
                             tdcl_err *err);

#endif
