/* The core's only way to talk: a log callback the embedding program sets.
 * The core never writes to stderr itself. */
#ifndef TDCL_LOG_H
#define TDCL_LOG_H

typedef enum tdcl_log_level {
    TDCL_LOG_ERROR = 0,
    TDCL_LOG_WARN = 1,
    TDCL_LOG_INFO = 2,    /* progress on long runs */
    TDCL_LOG_STATUS = 3,  /* what a long wait is spent on (compiling kernels, a host
                             check), for a person watching: the program may show it
                             on a terminal only */
    TDCL_LOG_VERBOSE = 4, /* -v: choices made, timing breakdown */
    TDCL_LOG_DEBUG = 5,   /* -vv */
} tdcl_log_level;

typedef void (*tdcl_log_fn)(tdcl_log_level level, const char *msg, void *user);

/* Sets the callback and the most detailed level passed to it. A NULL fn
 * silences the core. Not thread-safe: call once at start-up. */
void tdcl_log_set(tdcl_log_fn fn, void *user, tdcl_log_level max_level);

/* 1 when messages of this level reach the callback (skip costly formatting). */
int tdcl_log_enabled(tdcl_log_level level);

void tdcl_log(tdcl_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
