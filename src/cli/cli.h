/* The CLI's shared pieces: the global options, the command table entry and
 * the helpers every command uses to report errors and open a device. */
#ifndef TDCL_CLI_H
#define TDCL_CLI_H

#include <stdint.h>

#include "runtime/clrt.h"
#include "base/status.h"

/* Exit status for usage errors; the others come from tdcl_exit_code(). */
#define CLI_EXIT_USAGE 2

/* Options accepted before or after the command name. */
typedef struct cli_globals {
    const char *device_spec; /* --device SPEC */
    const char *kernel_dir;  /* --kernels DIR */
    int no_cache;            /* --no-cache */
    int verbose;             /* -v (1), -vv (2) */
    int quiet;               /* -q: no progress */
} cli_globals;

enum { NEEDS_DEVICE = 1 << 0 };

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

/* Prints "tiledcl: MSG" to stderr and returns the exit code for err. */
int cli_report(const tdcl_err *err);

/* Prints "tiledcl: CMD: MSG" and a hint to run --help; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Opens the device the globals ask for. */
tdcl_status cli_open_ctx(const cli_globals *g, tdcl_ctx **ctx, tdcl_err *err);

/* Parses a whole decimal integer in [lo, hi]; 0 on success, -1 otherwise. */
int cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);

/* The width of the terminal on stdout (else $COLUMNS, else 80), in
 * columns, at least 20. */
int cli_term_cols(void);

/* Parses a whole decimal number; 0 on success, -1 otherwise. */
int cli_parse_double(const char *s, double *out);

#endif
