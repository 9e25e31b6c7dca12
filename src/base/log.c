/* The log callback and its level filter. */
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>

static tdcl_log_fn log_fn;
static void *log_user;
static tdcl_log_level log_max = TDCL_LOG_WARN;

void tdcl_log_set(tdcl_log_fn fn, void *user, tdcl_log_level max_level)
{
    log_fn = fn;
    log_user = user;
    log_max = max_level;
}

int tdcl_log_enabled(tdcl_log_level level)
{
    return log_fn && level <= log_max;
}

void tdcl_log(tdcl_log_level level, const char *fmt, ...)
{
    if (!tdcl_log_enabled(level)) return;
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    log_fn(level, buf, log_user);
}
