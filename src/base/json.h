/* One JSON object on one line (module prefix tdcl_jsonl_): the one JSON
 * writer of the tool, for bench, devices and every --json output. */
#ifndef TDCL_JSON_H
#define TDCL_JSON_H

#include <stddef.h>
#include <stdint.h>

/* One JSON object on one line, built field by field into a fixed buffer.
 * Keys are written as given (plain ASCII); strings are escaped; numbers that
 * are not finite become null. A line that would overflow is marked and
 * tdcl_jsonl_end returns NULL. */
typedef struct tdcl_jsonl {
    char buf[2048];
    size_t len;
    int fields;
    int overflow;
} tdcl_jsonl;

void tdcl_jsonl_begin(tdcl_jsonl *j);
void tdcl_jsonl_str(tdcl_jsonl *j, const char *key, const char *value); /* NULL: null */
void tdcl_jsonl_num(tdcl_jsonl *j, const char *key, double value);      /* 6 significant digits */
void tdcl_jsonl_int(tdcl_jsonl *j, const char *key, int64_t value);
void tdcl_jsonl_bool(tdcl_jsonl *j, const char *key, int value);
void tdcl_jsonl_null(tdcl_jsonl *j, const char *key);

/* Closes the object; returns j->buf (no newline), or NULL after overflow. */
const char *tdcl_jsonl_end(tdcl_jsonl *j);

#endif
