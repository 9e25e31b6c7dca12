/* A `tiledcl bench` figure (tdcl_bench_result) as a line of text or of
 * JSON, and a figure over a set or ranks (tdcl_bench_scale) as a block of
 * text or a line of JSON (bench_report.c). */
#ifndef TDCL_BENCH_REPORT_H
#define TDCL_BENCH_REPORT_H

#include <stddef.h>

#include "base/json.h"
#include "bench/bench_ops.h"
#include "bench/bench_scale.h"

/* r as one JSON object on one line (no newline) in j; NULL on overflow. */
const char *tdcl_bench_result_json(const tdcl_bench_result *r, tdcl_jsonl *j);

/* r as one line of text (no newline) in buf. */
void tdcl_bench_result_text(const tdcl_bench_result *r, char *buf, size_t cap);

/* r as text: what ran where, then the one part's and all parts' timings,
 * speedup and efficiency (newline-separated, no final newline) in buf. */
void tdcl_bench_scale_text(const tdcl_bench_scale *r, char *buf, size_t cap);

/* r as one JSON object on one line (no newline) in buf. */
void tdcl_bench_scale_json(const tdcl_bench_scale *r, char *buf, size_t cap);

#endif
