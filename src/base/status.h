/* Status codes and the error record every core function fills.
 *
 * Core functions return a tdcl_status and, when given a non-NULL tdcl_err,
 * leave a message there that a person can act on ("a.mtx:3: expected ...").
 * The CLI prints err->msg prefixed with "tiledcl: " and maps the status to an
 * exit code with tdcl_exit_code(). */
#ifndef TDCL_STATUS_H
#define TDCL_STATUS_H

#include <stdarg.h>

typedef enum tdcl_status {
    TDCL_OK = 0,
    TDCL_EINVAL,       /* bad argument or option value */
    TDCL_EIO,          /* open/read/write/rename failed */
    TDCL_EPARSE,       /* input file does not follow its format */
    TDCL_EUNSUPPORTED, /* valid input, but a variant we refuse (complex, hermitian, ...) */
    TDCL_ENOMEM,       /* host allocation failed */
    TDCL_ELIMIT,       /* a size past host memory or a device limit */
    TDCL_EVERIFY,      /* a --verify check failed */
    TDCL_ENODEV,       /* no device matches, or no OpenCL platform at all */
    TDCL_ECL,          /* an OpenCL call failed */
    TDCL_EINTR,        /* interrupted by a signal */
    TDCL_ERANGE,       /* a value does not fit the type it must become (overflow, NaN to int) */
} tdcl_status;

/* The option of a call that an error is about, when it is one: library
 * messages name the quantity ("the 10x10 grid"), never a CLI flag, and the
 * CLI names its flag from this (cli_report). */
typedef enum tdcl_param {
    TDCL_PARAM_NONE = 0,
    TDCL_PARAM_TILE,       /* a tile or vector width asked for */
    TDCL_PARAM_SIZE,       /* a grid or problem size */
    TDCL_PARAM_BOUNDARY,   /* Life's boundary */
    TDCL_PARAM_PRECISION,  /* matmul's precision */
    TDCL_PARAM_KERNEL_DIR, /* the kernel directory */
    TDCL_PARAM_SCALE,      /* pixels per cell */
    TDCL_PARAM_MAX_BYTES,  /* an input size limit */
    TDCL_PARAM_FRAMES_DIR, /* the directory of Life frames */
    TDCL_PARAM_REPS,       /* repetitions of a benchmark */
    TDCL_PARAM_STRICT,     /* tile-avg's whole tiles only */
    TDCL_PARAM_WRAP,       /* accepting int64 sums wrapped modulo 2^64 */
    TDCL_PARAM_CLIP,       /* saturating values a narrower type cannot hold */
    TDCL_PARAM_TYPE,       /* the element type to compute in */
} tdcl_param;

typedef struct tdcl_err {
    tdcl_status status;
    int cl_code;      /* the OpenCL error code when status == TDCL_ECL, else 0 */
    tdcl_param param; /* the option the error is about, else TDCL_PARAM_NONE */
    char msg[1024];
} tdcl_err;

/* Records a formatted message in err (if non-NULL) and returns status. An
 * existing message is replaced: the innermost failure usually knows most. */
tdcl_status tdcl_fail(tdcl_err *err, tdcl_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
tdcl_status tdcl_vfail(tdcl_err *err, tdcl_status status, const char *fmt, va_list ap);

/* tdcl_fail for an error about one option of the call: also records param,
 * which the other tdcl_fail* functions reset. */
tdcl_status tdcl_fail_param(tdcl_err *err, tdcl_status status, tdcl_param param, const char *fmt,
                            ...) __attribute__((format(printf, 4, 5)));

/* Records "CALL failed: CL_NAME (code)" plus an optional context text. */
tdcl_status tdcl_fail_cl(tdcl_err *err, int cl_code, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "CL_OUT_OF_RESOURCES" for -5 and so on; "CL_UNKNOWN_ERROR" if unknown. */
const char *tdcl_cl_error_name(int cl_code);

/* A short name for a status ("parse error"). */
const char *tdcl_status_name(tdcl_status status);

/* Process exit status for a status: 0 ok, 1 bad input or runtime failure,
 * 3 no usable device or OpenCL failure. (2, usage, is the CLI's own.) */
int tdcl_exit_code(tdcl_status status);

/* Helpers for the common "check a cl_int" pattern inside functions that use
 * a single `out:` cleanup label and a `tdcl_status st` variable. */
#define TDCL_TRY(expr)                                                                             \
    do {                                                                                           \
        st = (expr);                                                                               \
        if (st != TDCL_OK) goto out;                                                               \
    } while (0)

#define TDCL_CL_TRY(err, call_expr, call_name)                                                     \
    do {                                                                                           \
        cl_int cl_rc_ = (call_expr);                                                               \
        if (cl_rc_ != CL_SUCCESS) {                                                                \
            st = tdcl_fail_cl((err), cl_rc_, (call_name), NULL);                                   \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

#endif
