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
    TDCL_EINVAL,      /* bad argument or option value */
    TDCL_EIO,         /* open/read/write/rename failed */
    TDCL_EPARSE,      /* input file does not follow its format */
    TDCL_EUNSUPPORTED,/* valid input, but a variant we refuse (complex, hermitian, ...) */
    TDCL_ENOMEM,      /* host allocation failed */
    TDCL_ELIMIT,      /* a size past host memory or a device limit */
    TDCL_EVERIFY,     /* a --verify check failed */
    TDCL_ENODEV,      /* no device matches, or no OpenCL platform at all */
    TDCL_ECL,         /* an OpenCL call failed */
    TDCL_EINTR,       /* interrupted by a signal */
    TDCL_ERANGE,      /* a value does not fit the type it must become (overflow, NaN to int) */
} tdcl_status;

typedef struct tdcl_err {
    tdcl_status status;
    int cl_code;   /* the OpenCL error code when status == TDCL_ECL, else 0 */
    char msg[1024];
} tdcl_err;

/* Records a formatted message in err (if non-NULL) and returns status. An
 * existing message is replaced: the innermost failure usually knows most. */
tdcl_status tdcl_fail(tdcl_err *err, tdcl_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
tdcl_status tdcl_vfail(tdcl_err *err, tdcl_status status, const char *fmt, va_list ap);

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
        if (st != TDCL_OK)                                                                         \
            goto out;                                                                              \
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
