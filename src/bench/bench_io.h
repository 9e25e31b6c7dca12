/* The file I/O benchmark behind `tiledcl bench io`: Matrix Market and .npy
 * reading and writing on the host alone (no device), in MB/s of file
 * (10^6 bytes) and MB per CPU-second of all threads (what the code does
 * per core, whatever else runs on the machine).
 *
 * It writes an N x N array file and a coordinate file of K entries of
 * float32 values printed with "%.9g" (the setting of the speed targets in
 * docs/PERFORMANCE.md), reads them back from the page cache with 1 thread and with T,
 * writes a dense float32 matrix as array and a sparse one as coordinate in
 * tiledcl's shortest text (to a new file, without fsync: the formatter's
 * speed, not the disk's), and times .npy both ways beside malloc + memcpy
 * of the same bytes. Each figure is the median of R runs after a warm-up.
 * The array file written is read back and compared with its matrix bit for
 * bit. Like tdcl_bench_job, it hands each figure to a callback as it
 * comes and never prints. */
#ifndef TDCL_BENCH_IO_H
#define TDCL_BENCH_IO_H

#include <stdint.h>

#include "base/timer.h"
#include "base/status.h"
#include "base/json.h"

typedef struct tdcl_bench_io_opts {
    int64_t n;             /* array files n x n; 0: 4000 */
    int64_t nnz;           /* coordinate entries (in n x n); 0: 10 million */
    int reps;              /* timed runs (at most 31); 0: 5 */
    int threads;           /* the many-thread figures' threads; 0: one per core */
    const char *dir;       /* where the files go; NULL: $TMPDIR, else /tmp */
    const char *read_path; /* when set: only time reading this file */
    int plain;             /* also time fgets + strtod and fprintf("%.9g"), for scale */
} tdcl_bench_io_opts;

/* One measured figure. */
typedef struct tdcl_bench_io_result {
    char what[64]; /* "mtx read array", "npy write float64", ... */
    int threads;
    double mb;              /* file size, 10^6 bytes */
    double wall_ms, cpu_ms; /* medians over the runs */
    double mbps, mb_per_cpu_s;
} tdcl_bench_io_result;

typedef void (*tdcl_bench_io_emit_fn)(const tdcl_bench_io_result *r, void *user);

/* Measures what o asks (NULL: the defaults), calling emit once per figure.
 * Its files are removed before it returns, whatever happens. Returns
 * TDCL_EIO when a file cannot be written, the reader's status when one
 * cannot be read, TDCL_EVERIFY when a file read back differs. */
tdcl_status tdcl_bench_io(const tdcl_bench_io_opts *o, tdcl_bench_io_emit_fn emit, void *user,
                          tdcl_err *err);

/* r as one JSON object on one line (no newline) in j; NULL on overflow. */
const char *tdcl_bench_io_result_json(const tdcl_bench_io_result *r, tdcl_jsonl *j);

/* r as one line of text (no newline) in buf. */
void tdcl_bench_io_result_text(const tdcl_bench_io_result *r, char *buf, size_t cap);

#endif
