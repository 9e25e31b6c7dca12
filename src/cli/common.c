/* Error reporting, number parsing and device opening shared by commands. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/spec.h"

int cli_report(const tdcl_err *err)
{
    fprintf(stderr, "tiledcl: %s\n", err->msg[0] ? err->msg : tdcl_status_name(err->status));
    return tdcl_exit_code(err->status);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tiledcl: %s%s", cmd ? cmd : "", cmd ? ": " : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nsee 'tiledcl %s%s--help'\n", cmd ? cmd : "", cmd ? " " : "");
    return CLI_EXIT_USAGE;
}

tdcl_status cli_open_ctx(const cli_globals *g, tdcl_ctx **ctx, tdcl_err *err)
{
    tdcl_ctx_opts o = {.device_spec = g->device_spec, .kernel_dir = g->kernel_dir,
                       .no_cache = g->no_cache};
    return tdcl_ctx_open(&o, ctx, err);
}

int cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    return tdcl_spec_i64(s, lo, hi, out);
}

int cli_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int cli_term_cols(void)
{
    struct winsize ws;
    long cols = 0;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        cols = ws.ws_col;
    else if (getenv("COLUMNS"))
        cols = strtol(getenv("COLUMNS"), NULL, 10);
    if (cols <= 0)
        cols = 80;
    return cols < 20 ? 20 : cols > 1000 ? 1000 : (int)cols;
}
