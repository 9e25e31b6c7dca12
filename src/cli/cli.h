/* The CLI's shared pieces: the global options, the command table entry and
 * the helpers every command uses to report errors and open a device. */
#ifndef TDCL_CLI_H
#define TDCL_CLI_H

#include <stdint.h>

#include "base/matrix.h"
#include "bench/bench_ops.h"
#include "dist/exec.h"
#include "runtime/clrt.h"
#include "base/status.h"

/* Exit status for usage errors; the others come from tdcl_exit_code(). */
#define CLI_EXIT_USAGE 2

/* Options accepted before or after the command name. */
typedef struct cli_globals {
    const char *device_spec; /* --device SPEC, else $TILEDCL_DEVICE, else NULL: resolved
                                once by main (tdcl_device_spec) */
    const char *kernel_dir;  /* --kernels DIR */
    int no_cache;            /* --no-cache */
    int verbose;             /* -v (1), -vv (2) */
    int quiet;               /* -q: no progress */
    int ranks;               /* MPI ranks when started by mpirun (an MPI build), else 0 */
    tdcl_exec *exec;         /* NEEDS_DEVICE commands: where the work runs, opened by
                                main (tdcl_exec_open: one device, a set, or MPI
                                ranks) while the command parses and reads; owned
                                by main, which prints the -v timing and closes it */
    tdcl_ctx *ctx;           /* exec's device when it is one (else NULL); wait with
                                tdcl_ctx_wait or cli_device before use */
} cli_globals;

/* NEEDS_DEVICE: main starts opening the device before calling the command
 * (unless it is asked for --help), so that the command reads its inputs
 * while platform discovery and context creation run; main prints the -v
 * timing of a successful run and closes the device. */
enum { NEEDS_DEVICE = 1 << 0 };

/* SHARDS: the command also runs over a set of devices ("--device all", a
 * list: runtime/devset.h); given one, main opens the set as g->exec (g->ctx
 * stays NULL). A command without it refuses a set. */
enum { SHARDS = 1 << 1 };

/* RANKS: under mpirun with several ranks (an MPI build), the command runs
 * as one of the ranks (g->ranks > 1, g->exec of kind TDCL_EXEC_RANKS, whose
 * runners open the rank's device); a command without it is refused there. */
enum { RANKS = 1 << 2 };

/* OWN_SET: given a set of devices, main opens nothing and the command opens
 * the set itself (bench: its drivers open one per measurement). */
enum { OWN_SET = 1 << 3 };

typedef struct cli_command {
    const char *name;
    int (*fn)(int argc, char **argv, const cli_globals *g);
    unsigned flags;
    const char *summary;
} cli_command;

int cmd_devices(int argc, char **argv, const cli_globals *g);
int cmd_matmul(int argc, char **argv, const cli_globals *g);
int cmd_tile_avg(int argc, char **argv, const cli_globals *g);
int cmd_tile_map(int argc, char **argv, const cli_globals *g);
int cmd_life(int argc, char **argv, const cli_globals *g);
int cmd_bench(int argc, char **argv, const cli_globals *g);
int cmd_convert(int argc, char **argv, const cli_globals *g);
int cmd_tune(int argc, char **argv, const cli_globals *g);
int cmd_bench_e2e(int argc, char **argv, const cli_globals *g);    /* bench e2e */
int cmd_bench_sparse(int argc, char **argv, const cli_globals *g); /* bench spgemm, spmm */

/* Writes head, msg and tail to fp in one write, msg's control bytes (ESC,
 * BEL, CR, ... in a file name) as \xNN, as file contents are quoted in
 * messages, so that no message drives the terminal; newlines and tabs stay.
 * One write keeps the lines of processes sharing a stderr (MPI ranks) whole. */
void cli_put_line(FILE *fp, const char *head, const char *msg, const char *tail);

/* Prints "tiledcl: MSG" to stderr, followed by " (--FLAG)" when the error
 * is about an option (err->param), and returns the exit code for err. */
int cli_report(const tdcl_err *err);

/* Prints "tiledcl: CMD: MSG" and a hint to run --help; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Ends a command's use of stdout: flushes it and, when a write to it
 * failed (tiledcl devices >/dev/full) while the command returned 0, says so
 * on stderr and returns 1; otherwise returns rc. */
int cli_close_stdout(int rc);

/* The device main opened for a NEEDS_DEVICE command, once ready: waits for
 * it. *ctx stays owned by main. */
tdcl_status cli_device(const cli_globals *g, tdcl_ctx **ctx, tdcl_err *err);

/* Parses a whole decimal integer in [lo, hi]; 0 on success, -1 otherwise. */
int cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);

/* Parses arg, the value of option flag ("--type") of command cmd, as an
 * element type by any of its names (tdcl_dtype_parse: f32 or float32, ...)
 * and accepts it when it is one of the n types in allowed; 0 then, else
 * the usage error (exit status 2) naming what the flag takes. */
int cli_parse_dtype(const char *cmd, const char *flag, const char *arg, const tdcl_dtype *allowed,
                    size_t n, tdcl_dtype *out);

/* Image writers' options, shared by the commands that write images:
 * --quality Q (JPEG, 1..100) when opt is CLI_OPT_QUALITY, else --compress
 * none|deflate|lzw (TIFF). Each returns -1 to go on, else the usage
 * error's exit status; the check refuses an option the output's format
 * does not take. */
enum { CLI_OPT_QUALITY = 1000, CLI_OPT_COMPRESS };
int cli_parse_img_wopt(const char *cmd, int opt, const char *arg, int *quality, int *compress);
int cli_check_img_wopts(const char *cmd, const char *out, int quality, int compress);

/* The width of the terminal on stdout (else $COLUMNS, else 80), in
 * columns, at least 20. */
int cli_term_cols(void);

/* Prints to stdout the top-left corner of m (one channel) that fits the
 * terminal, at most 8x8, and, when that is not all of m, a line saying
 * what is shown: what a terminal gets instead of every element. */
void cli_print_corner(const tdcl_matrix *m);

/* Parses a whole decimal number; 0 on success, -1 otherwise. */
int cli_parse_double(const char *s, double *out);

#endif
