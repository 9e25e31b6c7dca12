/* The whole-command benchmark behind `tiledcl bench e2e` (module prefix
 * cli_e2e_): runs tiledcl's own commands (matmul .npy -> .npy, life to
 * .npy, the seeds' `life --gens 200`, tile-avg .npy -> .npy) as child
 * processes on generated files, and reports each one's wall time and -v
 * phases beside the floor of each phase measured in the same run:
 *
 *   start-up  the fastest device opening (platform discovery, context,
 *             queue) seen in the run, this process's or a command's
 *   read      plain read() of the same input files from the page cache
 *   upload,   the inputs' and the output's bytes at the bandwidth of a
 *   download  pinned (CL_MEM_ALLOC_HOST_PTR, mapped) buffer's copies
 *   kernel    the child's own kernel time (profiling events)
 *   write     plain write() of the output's bytes to a new file
 *
 * and the floor laid end to end (their sum), and overlapped (the start-up
 * beside the reading). maxrss is the command's own peak resident memory
 * (VmHWM, from its -v line; for an older build without it, wait4's
 * ru_maxrss, which also counts this process's memory, carried over exec). A
 * matmul row is also timed against numpy (np.load, @, np.save) when
 * python3 has it.
 *
 * Besides those (the default set), two sets of rows beside what users
 * would run instead: sparse (matmul A.mtx A.mtx -o C.mtx and tile-avg of
 * A.mtx on generated coordinate files, beside scipy reading and writing
 * through fast_matrix_market, else scipy.io), and golly (life PATTERN -o
 * L.rle beside bgolly's QuickLife). Each of those rows also compares the
 * two outputs (entries, tile means, live cells) and says so in its check.
 * It hands each row to a callback and never prints.
 *
 * It belongs to the command, not the library: it spawns processes (the
 * executable, python3) and makes this process the subreaper of their
 * helpers, which no library function may do to its caller. */
#ifndef TDCL_CLI_BENCH_E2E_H
#define TDCL_CLI_BENCH_E2E_H

#include <stdint.h>

#include "base/json.h"
#include "base/status.h"
#include "bench/bench_sparse.h"
#include "runtime/clrt.h"

/* The sets of rows (cli_e2e_opts.rows). */
enum { CLI_E2E_DEFAULT = 1, CLI_E2E_SPARSE = 2, CLI_E2E_GOLLY = 4 };

typedef struct cli_e2e_opts {
    const char *exe;            /* the tiledcl executable the rows run */
    const char *const *global;  /* options put before each command (--device ...), NULL-ended */
    const char *dir;            /* where the files go; NULL: $TMPDIR, else /tmp */
    int reps;                   /* timed runs per row after one warm-up; 0: 3 */
    int quick;                  /* small sizes (tests): 256, life 256 x 10 generations */
    int64_t size;               /* matmul and tile-avg N x N; 0: 8192 on a GPU, 2048 on a CPU */
    int numpy;                  /* time numpy beside matmul when python3 has it */
    int64_t image_size;         /* the image rows' side; 0: 16000 on a GPU, 4000 on a CPU */
    int no_vips;                /* do not time vips beside the image rows */
    unsigned rows;              /* CLI_E2E_* bits; 0: the default set */
    const tdcl_spgen *matrices; /* the sparse rows' matrices; NULL: R-MAT 2^15 x 8, the
                                   Laplacian of 1000^2, uniform 10^5 x 16 (quick: tiny ones) */
    int nmatrices;
    int no_scipy;                /* do not time scipy beside the sparse rows */
    const char *const *patterns; /* the golly rows' "PATH[:GENS]"; NULL: Golly's own */
    int npatterns;
    int no_bgolly; /* do not time bgolly beside the golly rows */
} cli_e2e_opts;

typedef struct cli_e2e_row {
    char name[64];     /* "matmul 8192 npy" */
    char command[384]; /* the child's arguments after the executable */
    int reps;
    double wall_ms, wall_min_ms; /* median and fastest run */
    double release_ms;           /* the median run's device release after its exit: the helper
                                    it left (base/proc.h), awaited before the next run */
    tdcl_timing t;               /* the -v phases of the median run */
    double in_mb, out_mb;        /* input and output files, 10^6 bytes */
    double maxrss_mb;            /* largest over the runs */
    double floor_startup_ms, floor_read_ms, floor_upload_ms, floor_kernel_ms, floor_download_ms,
        floor_write_ms;
    double floor_ms;         /* the six laid end to end */
    double floor_overlap_ms; /* with start-up beside reading */
    double write_fsync_ms;   /* writing the output with fsync, as TILEDCL_FSYNC=1 does (not in the
                                floor) */
    double numpy_ms;         /* numpy's median wall time, or NAN */
    double vips_ms;          /* image rows: vips shrink's median wall time, or NAN */
    double vips_maxrss_mb;   /* its peak memory (through /usr/bin/time), or NAN */
    const char *vips_note;   /* why there is no vips time ("not installed"), or NULL */
    const char *anchor;      /* sparse and golly rows: what runs beside ("scipy+fmm",
                                "bgolly QuickLife"), else NULL */
    double anchor_ms;        /* its median wall time, or NAN */
    double anchor_maxrss_mb; /* its peak memory (through /usr/bin/time), or NAN */
    const char *anchor_note; /* why there is no anchor time, or NULL */
    char check[160];         /* the outputs compared ("same cells", a mismatch), or "" */
} cli_e2e_row;

typedef void (*cli_e2e_emit_fn)(const cli_e2e_row *r, void *user);

/* Runs the rows on ctx's device (the children get o->global; ctx gives the
 * start-up floor and measures the copy floor), calling emit per row. Its
 * files are removed before it returns. A child that fails gives TDCL_EIO
 * with the tail of its messages. */
tdcl_status cli_e2e_run(tdcl_ctx *ctx, const cli_e2e_opts *o, cli_e2e_emit_fn emit, void *user,
                        tdcl_err *err);

/* r as one JSON object on one line (no newline) in j; NULL on overflow. */
const char *cli_e2e_row_json(const cli_e2e_row *r, tdcl_jsonl *j);

/* r as text lines (newline-separated, no final newline) in buf. */
void cli_e2e_row_text(const cli_e2e_row *r, char *buf, size_t cap);

#endif
