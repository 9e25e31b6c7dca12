/* matmul's parameter table (module prefix tdcl_mm_table_): per kernel shape
 * (cpu, gpu), element type and product size, one parameter set
 * (mm_params.h's tdcl_mm_params). A product takes the entry whose size is
 * nearest to the cube root of M*N*K (in ratio). The tuned table is a text
 * file in the cache directory keyed by platform, device, driver and device
 * version, like the kernel cache: a new driver starts from the built-in
 * table again. The tuned table is read from disk once per process and
 * device; storing a new one replaces what was read. */
#ifndef TDCL_MM_TABLE_H
#define TDCL_MM_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "base/matrix.h"
#include "base/status.h"
#include "ops/matmul/mm_params.h"
#include "runtime/clrt.h"

/* Parameters for kernel k (TDCL_MM_CPU or TDCL_MM_GPU) on ctx's device for
 * an M x K by K x N product of type: the tuned table (when ctx caches),
 * else the built-in one. Fills *out (only the keys the entry gives; the
 * rest stay 0) and returns "tuned" or "built-in", or NULL when neither has
 * an entry (then *out is untouched). */
const char *tdcl_mm_table_lookup(tdcl_ctx *ctx, tdcl_mm_kernel k, tdcl_dtype type, int64_t M,
                                 int64_t K, int64_t N, tdcl_mm_params *out);

/* Entry i of the built-in table (every device): its parameter text, and
 * its kernel in *k; NULL past the last entry. For tests that run every
 * built-in set. */
const char *tdcl_mm_table_builtin(size_t i, tdcl_mm_kernel *k);

/* The tuned table's path for ctx's device (malloc'd), or NULL when ctx has
 * no cache directory. */
char *tdcl_mm_table_path(const tdcl_ctx *ctx);

/* Forgets every tuned table read so far, so that the next lookup reads the
 * file again (a test that edits a table in place; a long-lived process
 * that wants another process's tuning). */
void tdcl_mm_table_forget(void);

/* One float32 row to store: a square product size, its winning set (all
 * keys filled in) and its measured rate. */
typedef struct tdcl_mm_table_row {
    int64_t size;
    tdcl_mm_params par;
    double gflops;
} tdcl_mm_table_row;

/* Merges rows (for kernel) into ctx's tuned table, replacing rows of the
 * same kernel, type and size, and writes it atomically. The path written
 * goes to stored (when not NULL). TDCL_EIO when ctx has no cache directory
 * or the table cannot be written. */
tdcl_status tdcl_mm_table_store(tdcl_ctx *ctx, tdcl_mm_kernel kernel, const tdcl_mm_table_row *rows,
                                int nrows, char *stored, size_t stored_cap, tdcl_err *err);

#endif
