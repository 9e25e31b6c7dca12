/* Per-device kernel parameters for matmul (module prefix tdcl_tune_): the
 * tuned table stored in the cache directory, the built-in table of known
 * devices, and the search behind `tiledcl tune matmul`.
 *
 * A table holds, per kernel shape (cpu, gpu), element type and product
 * size, one parameter set (matmul.h's tdcl_mm_params). A product takes the
 * entry whose size is nearest to the cube root of M*N*K (in ratio). The
 * tuned table is a text file keyed by platform, device, driver and device
 * version, like the kernel cache: a new driver starts from the built-in
 * table again. */
#ifndef TDCL_TUNE_H
#define TDCL_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "clrt.h"
#include "matmul.h"
#include "matrix.h"
#include "status.h"

/* Parameters for kernel k (TDCL_MM_CPU or TDCL_MM_GPU) on ctx's device for
 * an M x K by K x N product of type: the tuned table (when ctx caches),
 * else the built-in one. Fills *out (only the keys the entry gives; the
 * rest stay 0) and returns "tuned" or "built-in", or NULL when neither has
 * an entry (then *out is untouched). */
const char *tdcl_tune_lookup(tdcl_ctx *ctx, tdcl_mm_kernel k, tdcl_dtype type, int64_t M, int64_t K,
                             int64_t N, tdcl_mm_params *out);

/* Entry i of the built-in table (every device): its parameter text, and
 * its kernel in *k; NULL past the last entry. For tests that run every
 * built-in set. */
const char *tdcl_tune_builtin(size_t i, tdcl_mm_kernel *k);

/* The tuned table's path for ctx's device (malloc'd), or NULL when ctx has
 * no cache directory. */
char *tdcl_tune_path(const tdcl_ctx *ctx);

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
    uint64_t seed;                      /* order of the search; 0: fixed default */
    tdcl_tune_progress_fn progress;     /* NULL: none */
    void *user;
} tdcl_tune_opts;

typedef struct tdcl_tune_best {
    int64_t size;
    tdcl_mm_params par; /* the winner (all keys filled in) */
    double gflops;      /* its median rate */
    double base_gflops; /* what the plan chose before tuning (tuned, built-in or default) */
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
