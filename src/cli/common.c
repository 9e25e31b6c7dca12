/* Error reporting, number parsing and device opening shared by commands. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/fileio.h"
#include "base/spec.h"
#include "io/image.h"

/* The flag that sets each option the library reports errors about. */
static const char *const param_flags[] = {
    [TDCL_PARAM_TILE] = "--tile",
    [TDCL_PARAM_SIZE] = "--size",
    [TDCL_PARAM_BOUNDARY] = "--boundary",
    [TDCL_PARAM_PRECISION] = "--precision",
    [TDCL_PARAM_KERNEL_DIR] = "--kernels",
    [TDCL_PARAM_SCALE] = "--scale",
    [TDCL_PARAM_MAX_BYTES] = "--max-bytes",
    [TDCL_PARAM_FRAMES_DIR] = "--frames",
    [TDCL_PARAM_REPS] = "--reps",
    [TDCL_PARAM_STRICT] = "--strict",
    [TDCL_PARAM_WRAP] = "--wrap accepts wrap-around modulo 2^64",
    [TDCL_PARAM_CLIP] = "--clip saturates",
    [TDCL_PARAM_TYPE] = "--type f64",
};

void cli_put_line(FILE *fp, const char *head, const char *msg, const char *tail)
{
    size_t hn = strlen(head), tn = strlen(tail), n = hn;
    size_t most = hn + 4 * strlen(msg) + tn; /* every byte of msg escaped */
    char stack[2048];
    char *buf = most < sizeof stack ? stack : malloc(most + 1);
    if (!buf) { /* no memory for the copy: the unescaped line still says what failed */
        fprintf(fp, "%s%s%s", head, msg, tail);
        return;
    }
    memcpy(buf, head, hn);
    for (const char *s = msg; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
            n += (size_t)snprintf(buf + n, 5, "\\x%02x", c);
        else
            buf[n++] = (char)c;
    }
    memcpy(buf + n, tail, tn);
    fwrite(buf, 1, n + tn, fp);
    fflush(fp);
    if (buf != stack) free(buf);
}

int cli_report(const tdcl_err *err)
{
    const char *flag = (unsigned)err->param < sizeof param_flags / sizeof param_flags[0]
                           ? param_flags[err->param]
                           : NULL;
    char tail[48] = "\n";
    if (flag && err->msg[0]) snprintf(tail, sizeof tail, " (%s)\n", flag);
    cli_put_line(stderr, "tiledcl: ", err->msg[0] ? err->msg : tdcl_status_name(err->status), tail);
    return tdcl_exit_code(err->status);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    char msg[1024], head[64], tail[80];
    snprintf(head, sizeof head, "tiledcl: %s%s", cmd ? cmd : "", cmd ? ": " : "");
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(tail, sizeof tail, "\nsee 'tiledcl %s%s--help'\n", cmd ? cmd : "", cmd ? " " : "");
    cli_put_line(stderr, head, msg, tail);
    return CLI_EXIT_USAGE;
}

int cli_parse_dtype(const char *cmd, const char *flag, const char *arg, const tdcl_dtype *allowed,
                    size_t n, tdcl_dtype *out)
{
    tdcl_dtype t;
    if (tdcl_dtype_parse(arg, &t, NULL) == TDCL_OK)
        for (size_t i = 0; i < n; i++)
            if (allowed[i] == t) {
                *out = t;
                return 0;
            }
    char shorts[64] = "", longs[96] = "";
    for (size_t i = 0; i < n; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        size_t a = strlen(shorts), b = strlen(longs);
        snprintf(shorts + a, sizeof shorts - a, "%s%s", sep, tdcl_dtype_short_name(allowed[i]));
        snprintf(longs + b, sizeof longs - b, "%s%s", sep, tdcl_dtype_name(allowed[i]));
    }
    return cli_usage_error(cmd, "%s takes %s (or %s), got '%s'", flag, shorts, longs, arg);
}

int cli_close_stdout(int rc)
{
    errno = 0;
    int flushed = fflush(stdout) == 0, e = errno;
    if (rc != 0 || (flushed && !ferror(stdout))) return rc; /* a failure is reported once */
    if (e)
        fprintf(stderr, "tiledcl: cannot write to standard output: %s\n", strerror(e));
    else
        fprintf(stderr, "tiledcl: cannot write to standard output\n");
    return 1;
}

tdcl_status cli_device(const cli_globals *g, tdcl_ctx **ctx, tdcl_err *err)
{
    *ctx = NULL;
    if (!g->ctx) /* a command not flagged NEEDS_DEVICE in main's table */
        return tdcl_fail(err, TDCL_ENODEV, "this command opens no device");
    tdcl_status st = tdcl_ctx_wait(g->ctx, err);
    if (st == TDCL_OK) *ctx = g->ctx;
    return st;
}

int cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    return tdcl_spec_i64(s, lo, hi, out);
}

int cli_parse_double(const char *s, double *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end) return -1;
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
    if (cols <= 0) cols = 80;
    return cols < 20 ? 20 : cols > 1000 ? 1000 : (int)cols;
}

void cli_print_corner(const tdcl_matrix *m)
{
    const int cw = 12;
    int64_t ncol = (cli_term_cols() - 5) / cw, nrow = 8; /* and " ..." */
    if (ncol > 8) ncol = 8;
    if (ncol < 1) ncol = 1;
    if (ncol > m->cols) ncol = m->cols;
    if (nrow > m->rows) nrow = m->rows;
    int is_int = tdcl_dtype_is_int(m->dtype);
    for (int64_t r = 0; r < nrow; r++) {
        for (int64_t k = 0; k < ncol; k++) {
            size_t at = (size_t)(r * m->cols + k);
            if (is_int)
                printf("%*" PRId64, cw, tdcl_matrix_get_i64(m, at));
            else
                printf("%*.5g", cw, tdcl_matrix_get_f64(m, at));
        }
        printf("%s\n", ncol < m->cols ? " ..." : "");
    }
    if (nrow < m->rows) printf("%*s\n", cw, "...");
    if (nrow < m->rows || ncol < m->cols)
        printf("(the top-left %" PRId64 "x%" PRId64 " of %" PRId64 "x%" PRId64
               "; use -o FILE, or redirect stdout, for every element)\n",
               nrow, ncol, m->rows, m->cols);
}

int cli_parse_img_wopt(const char *cmd, int opt, const char *arg, int *quality, int *compress)
{
    int64_t q;
    if (opt == CLI_OPT_QUALITY) {
        if (cli_parse_i64(arg, 1, 100, &q))
            return cli_usage_error(cmd, "expected --quality 1..100, got '%s'", arg);
        *quality = (int)q;
    } else if (tdcl_img_compress_parse(arg, compress)) {
        return cli_usage_error(cmd, "expected --compress none, deflate or lzw, got '%s'", arg);
    }
    return -1;
}

int cli_check_img_wopts(const char *cmd, const char *out, int quality, int compress)
{
    const char *shown = out ? out : "-";
    if (quality && !tdcl_path_has_ext(shown, ".jpg") && !tdcl_path_has_ext(shown, ".jpeg"))
        return cli_usage_error(cmd, "--quality is for JPEG outputs (.jpg, .jpeg), not '%s'", shown);
    if (compress && !tdcl_path_has_ext(shown, ".tif") && !tdcl_path_has_ext(shown, ".tiff"))
        return cli_usage_error(cmd, "--compress is for TIFF outputs (.tif, .tiff), not '%s'",
                               shown);
    return -1;
}
