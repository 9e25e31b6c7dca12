/* A `tiledcl bench` figure (tdcl_bench_result) as a line of text or of
 * JSON (bench_report.c). */
#ifndef TDCL_BENCH_REPORT_H
#define TDCL_BENCH_REPORT_H

#include <stddef.h>

#include "base/json.h"
#include "bench/bench_ops.h"

/* r as one JSON object on one line (no newline) in j; NULL on overflow. */
const char *tdcl_bench_result_json(const tdcl_bench_result *r, tdcl_jsonl *j);

/* r as one line of text (no newline) in buf. */
void tdcl_bench_result_text(const tdcl_bench_result *r, char *buf, size_t cap);

#endif
