/* The text and JSON lines of a `tiledcl bench` figure: the figure, its
 * fractions of the ceilings, and why a fraction past 100% can be; and the
 * block of a figure over a set of devices or MPI ranks. */
#include "bench/bench_report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void json_frac(tdcl_jsonl *j, const char *key, double v)
{
    if (isfinite(v))
        tdcl_jsonl_num(j, key, v);
    else
        tdcl_jsonl_null(j, key);
}

const char *tdcl_bench_result_json(const tdcl_bench_result *r, tdcl_jsonl *j)
{
    tdcl_jsonl_begin(j);
    tdcl_jsonl_str(j, "op", r->op);
    tdcl_jsonl_str(j, "device", r->device);
    tdcl_jsonl_str(j, "type", r->type);
    if (r->size)
        tdcl_jsonl_int(j, "size", r->size);
    else
        tdcl_jsonl_null(j, "size");
    if (r->m) {
        tdcl_jsonl_int(j, "m", r->m);
        tdcl_jsonl_int(j, "k", r->k);
        tdcl_jsonl_int(j, "n", r->n);
    }
    if (r->tile)
        tdcl_jsonl_int(j, "tile", r->tile);
    else
        tdcl_jsonl_null(j, "tile");
    if (r->tile_cols) tdcl_jsonl_int(j, "tile_cols", r->tile_cols);
    if (r->gens) tdcl_jsonl_int(j, "gens", r->gens);
    tdcl_jsonl_str(j, "plan", r->plan);
    tdcl_jsonl_int(j, "reps", r->t.reps);
    tdcl_jsonl_num(j, "median_ms", r->t.median_ms);
    tdcl_jsonl_num(j, "min_ms", r->t.min_ms);
    tdcl_jsonl_num(j, "max_ms", r->t.max_ms);
    tdcl_jsonl_num(j, "host_median_ms", r->t.host_median_ms);
    tdcl_jsonl_num(j, "upload_ms", r->upload_ms);
    tdcl_jsonl_num(j, "download_ms", r->download_ms);
    tdcl_jsonl_num(j, "total_ms", r->total_ms);
    tdcl_jsonl_num(j, r->rate_key, r->rate);
    if (isfinite(r->computed_rate) && r->computed_rate > 0)
        tdcl_jsonl_num(j, "computed_cells_per_s", r->computed_rate);
    tdcl_jsonl_num(j, "copy_gbps", r->copy_gbps);
    json_frac(j, "frac_copy", r->frac_copy);
    if (strcmp(r->rate_key, "gflops") == 0) {
        json_frac(j, "peak_gflops", r->peak_gflops);
        json_frac(j, "frac_peak", r->frac_peak);
        json_frac(j, "spec_peak_gflops", r->spec_peak_gflops);
        json_frac(j, "frac_spec_peak", r->frac_spec_peak);
    }
    if (isfinite(r->read_gbps) && strcmp(r->rate_key, "gbps") == 0) {
        tdcl_jsonl_num(j, "read_gbps", r->read_gbps);
        json_frac(j, "frac_read", r->frac_read);
    }
    if (isfinite(r->life_peak) && strcmp(r->rate_key, "cells_per_s") == 0) {
        tdcl_jsonl_num(j, "life_peak_cells_per_s", r->life_peak);
        json_frac(j, "frac_life_peak", r->frac_life_peak);
    }
    if (r->ceiling) {
        tdcl_jsonl_str(j, "ceiling", r->ceiling);
        json_frac(j, "frac_ceiling", r->frac_ceiling);
    } else {
        tdcl_jsonl_null(j, "ceiling");
        tdcl_jsonl_null(j, "frac_ceiling");
    }
    tdcl_jsonl_bool(j, "checked", r->checked);
    return tdcl_jsonl_end(j);
}

/* "12.3 GFLOP/s" style figure of r. */
static void rate_text(const tdcl_bench_result *r, char *buf, size_t cap)
{
    if (strcmp(r->rate_key, "gflops") == 0)
        snprintf(buf, cap, "%.4g GFLOP/s", r->rate);
    else if (strcmp(r->rate_key, "gbps") == 0)
        snprintf(buf, cap, "%.4g GB/s", r->rate);
    else if (isfinite(r->computed_rate) && r->computed_rate > 0)
        snprintf(buf, cap, "%.4g Gcells/s (of the tiles computed: %.4g, %.3g%% of the cells)",
                 r->rate / 1e9, r->computed_rate / 1e9, 100 * r->computed_rate / r->rate);
    else
        snprintf(buf, cap, "%.4g Gcells/s", r->rate / 1e9);
}

static void pct_text(double frac, const char *of, char *buf, size_t cap)
{
    if (isfinite(frac))
        snprintf(buf, cap, ", %.1f%% of %s", 100 * frac, of);
    else
        snprintf(buf, cap, ", %s unknown", of);
}

/* As pct_text, and a figure past 100% of a ceiling says why it can be. */
static void pct_why(double frac, const char *of, const char *why, char *buf, size_t cap)
{
    pct_text(frac, of, buf, cap);
    size_t n = strlen(buf);
    if (isfinite(frac) && frac > 1.0 && n < cap) snprintf(buf + n, cap - n, " (above it: %s)", why);
}

/* The fraction of copy that an operation's figure is, and why it may pass
 * 100%. */
static void copy_frac_text(const tdcl_bench_result *r, char *buf, size_t cap)
{
    pct_why(r->frac_copy, "copy",
            strcmp(r->op, "life") == 0
                ? "a cell is one bit in memory, an eighth of a byte, and several "
                  "generations run per pass over it"
            : r->cpu ? "a CPU write reads its cache line first, which the copy figure "
                       "counts once; an operation that mostly reads passes it"
                     : "the copy writes as many bytes as it reads; an operation that "
                       "mostly reads gets more of the memory's bandwidth",
            buf, cap);
}

/* A ceiling's own line says what it is; an operation's says its fraction of
 * its ceiling (tile-avg: read; life's bit-packed kernels: the logic peak;
 * the rest: copy, and matmul the peaks below). */
static void ceiling_text(const tdcl_bench_result *r, char *buf, size_t cap)
{
    char of[96];
    if (strcmp(r->op, "copy") == 0 || strcmp(r->op, "read") == 0) {
        snprintf(buf, cap, ", ceiling (fastest run) %.4g GB/s",
                 strcmp(r->op, "copy") == 0 ? r->copy_gbps : r->read_gbps);
    } else if (strcmp(r->op, "peak") == 0) {
        snprintf(buf, cap, ", ceiling (fastest run) %.4g GFLOP/s", r->peak_gflops);
    } else if (strcmp(r->op, "life-peak") == 0) {
        snprintf(buf, cap, ", ceiling (fastest run) %.4g Gcells/s", r->life_peak / 1e9);
    } else if (strcmp(r->ceiling ? r->ceiling : "", "read") == 0 && isfinite(r->frac_read)) {
        snprintf(of, sizeof of, "read ceiling %.4g GB/s", r->read_gbps);
        pct_why(r->frac_read, of,
                "the read ceiling is a lower bound: the operation's loads were scheduled "
                "better than the sum's, or its input sat in a cache",
                buf, cap);
    } else if (strcmp(r->ceiling ? r->ceiling : "", "life-peak") == 0 &&
               isfinite(r->frac_life_peak)) {
        snprintf(of, sizeof of, "life-peak %.4g Gcells/s", r->life_peak / 1e9);
        pct_why(r->frac_life_peak, of,
                "the logic peak runs the same adder network from registers; the compiler "
                "scheduled the operation's copy of it better",
                buf, cap);
    } else {
        copy_frac_text(r, buf, cap);
    }
}

/* matmul's fractions of the measured and the specified multiply-add
 * peaks. */
static void peak_frac_text(const tdcl_bench_result *r, char *fp, char *fs, size_t cap)
{
    char of[64];
    int tc = r->tensor_cores; /* not in the FP32 peaks */
    snprintf(of, sizeof of, "measured peak %.4g GFLOP/s", r->peak_gflops);
    pct_why(r->frac_peak, isfinite(r->peak_gflops) ? of : "measured peak",
            tc ? "tensor cores, which the FP32 multiply-add loop does not use"
               : "the multiply-add loop is a lower bound where the compiler schedules "
                 "matmul's code better",
            fp, cap);
    snprintf(of, sizeof of, "spec peak %.4g GFLOP/s", r->spec_peak_gflops);
    pct_why(r->frac_spec_peak, isfinite(r->spec_peak_gflops) ? of : "spec peak",
            tc ? "tensor cores, past the FP32 specification"
               : "clocks above the base clock of the specification",
            fs, cap);
}

void tdcl_bench_result_text(const tdcl_bench_result *r, char *buf, size_t cap)
{
    char size[64], rate[128], fc[240] = "", fp[240] = "", fs[240] = "";
    if (r->m)
        snprintf(size, sizeof size, "%lldx%lldx%lld", (long long)r->m, (long long)r->k,
                 (long long)r->n);
    else if (r->size)
        snprintf(size, sizeof size, "%lldx%lld", (long long)r->size, (long long)r->size);
    else
        snprintf(size, sizeof size, "-");
    rate_text(r, rate, sizeof rate);
    ceiling_text(r, fc, sizeof fc);
    if (strcmp(r->rate_key, "gflops") == 0 && strcmp(r->op, "peak") != 0)
        peak_frac_text(r, fp, fs, sizeof fp);
    snprintf(buf, cap,
             "%-8s %-16s %-7s median %.4g ms (min %.4g, max %.4g; host %.4g, total with "
             "transfers %.4g)  %s%s%s%s  [%s]",
             r->op, size, r->type, r->t.median_ms, r->t.min_ms, r->t.max_ms, r->t.host_median_ms,
             r->total_ms, rate, fc, fp, fs, r->plan);
}

/* ---- over a set or ranks ------------------------------------------------ */

/* printf at buf + *len, within cap; *len follows what was written. */
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    if (*len >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n > 0) *len = *len + (size_t)n < cap ? *len + (size_t)n : cap;
}

/* The first line: the set's devices, or the ranks and how they split the
 * work. */
static void scale_where(const tdcl_bench_scale *r, char *buf, size_t cap, size_t *len)
{
    if (!r->ranks)
        put(buf, cap, len, "devices:%s", r->devices);
    else if (r->op == TDCL_BENCH_MATMUL)
        put(buf, cap, len,
            "%zu MPI ranks, %s; every rank holds the generated A and B, and keeps its block of C",
            r->parts, r->bands ? "bands of C's rows with the whole of B on every rank" : "SUMMA");
    else if (r->op == TDCL_BENCH_TILE_AVG)
        put(buf, cap, len,
            "%zu MPI ranks, bands of rows; every rank holds the generated input and keeps its "
            "means",
            r->parts);
    else
        put(buf, cap, len, "%zu MPI ranks, bands of rows", r->parts);
}

static void scale_life_text(const tdcl_bench_scale *r, char *buf, size_t cap, size_t *len)
{
    const char *what = r->ranks ? "rank" : "shard";
    double cells = (double)r->size * (double)r->size * (double)r->gens;
    double r1 = cells / (r->one.host_median_ms / 1000), rn = cells / (r->all.host_median_ms / 1000);
    double speedup = rn / r1, eff = speedup / (double)r->parts;
    put(buf, cap, len, "\nlife %lldx%lld %s, %lld generations, median of %d (host time):\n",
        (long long)r->size, (long long)r->size, tdcl_life_boundary_name(r->boundary),
        (long long)r->gens, r->reps);
    put(buf, cap, len, "  1 %s:   %10.3f ms  %.4g cell updates/s\n", what, r->one.host_median_ms,
        r1);
    put(buf, cap, len, "  %zu %ss:  %10.3f ms  %.4g cell updates/s  (halo %d)\n", r->parts, what,
        r->all.host_median_ms, rn, r->halo);
    put(buf, cap, len, "  speedup %.3f, parallel efficiency %.3f; the grids agree", speedup, eff);
}

static void scale_matmul_text(const tdcl_bench_scale *r, char *buf, size_t cap, size_t *len)
{
    const tdcl_bench_stats *t1 = &r->one, *tn = &r->all;
    double flops = 2.0 * (double)r->m * (double)r->k * (double)r->n;
    double r1 = flops / t1->host_median_ms / 1e6, rn = flops / tn->host_median_ms / 1e6;
    double speedup = rn / r1, eff = speedup / (double)r->parts;
    put(buf, cap, len, "\nmatmul %lldx%lld * %lldx%lld %s, median of %d (host time, plans to C):\n",
        (long long)r->m, (long long)r->k, (long long)r->k, (long long)r->n,
        tdcl_dtype_name(r->type), r->reps);
    put(buf, cap, len, "  1 %s:      %10.3f ms  %.4g GFLOP/s\n", r->ranks ? "rank " : "shard",
        t1->host_median_ms, r1);
    put(buf, cap, len, "  %zu %s %dx%d: %10.3f ms  %.4g GFLOP/s\n", r->parts,
        r->ranks ? "ranks " : "shards", r->grid_rows, r->grid_cols, tn->host_median_ms, rn);
    put(buf, cap, len, "  speedup %.3f, parallel efficiency %.3f; the products agree", speedup,
        eff);
    if (r->ranks)
        put(buf, cap, len,
            "\n  the kernels alone: rank 0's alone %.3f ms, the slowest rank's %.3f ms: speedup "
            "%.3f, %.3f per rank",
            t1->median_ms, tn->median_ms, t1->median_ms / tn->median_ms,
            t1->median_ms / tn->median_ms / (double)r->parts);
    else if (tn->median_ms > 0)
        put(buf, cap, len,
            "\n  the kernels alone: one shard's %.3f ms, the slowest shard's %.3f ms: speedup "
            "%.3f, %.3f per shard",
            t1->median_ms, tn->median_ms, t1->median_ms / tn->median_ms,
            t1->median_ms / tn->median_ms / (double)r->parts);
}

static void scale_tile_avg_text(const tdcl_bench_scale *r, char *buf, size_t cap, size_t *len)
{
    const tdcl_bench_stats *t1 = &r->one, *tn = &r->all;
    const char *what = r->ranks ? "rank" : "shard";
    double bytes = r->in_bytes;
    double r1 = bytes / t1->host_median_ms / 1e6, rn = bytes / tn->host_median_ms / 1e6;
    double speedup = rn / r1, eff = speedup / (double)r->parts;
    double kspeedup = t1->median_ms / tn->median_ms, keff = kspeedup / (double)r->parts;
    put(buf, cap, len,
        "\ntile-avg %lldx%lld %s, %lldx%lld tiles, median of %d (host time, plans to means):\n",
        (long long)r->size, (long long)r->size, tdcl_dtype_name(r->type), (long long)r->tile_rows,
        (long long)r->tile_cols, r->reps);
    put(buf, cap, len, "  1 %s:   %10.3f ms  %.4g GB/s of input\n", what, t1->host_median_ms, r1);
    put(buf, cap, len, "  %zu %ss:  %10.3f ms  %.4g GB/s of input\n", r->parts, what,
        tn->host_median_ms, rn);
    put(buf, cap, len, "  speedup %.3f, parallel efficiency %.3f; the means are identical\n",
        speedup, eff);
    put(buf, cap, len,
        "  the kernel phase alone (the slowest device's kernels): 1 %s %.3f ms "
        "(%.4g GB/s), %zu %ss %.3f ms (%.4g GB/s): speedup %.3f, efficiency %.3f",
        what, t1->median_ms, bytes / t1->median_ms / 1e6, r->parts, what, tn->median_ms,
        bytes / tn->median_ms / 1e6, kspeedup, keff);
}

void tdcl_bench_scale_text(const tdcl_bench_scale *r, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap) buf[0] = 0;
    scale_where(r, buf, cap, &len);
    if (r->op == TDCL_BENCH_LIFE)
        scale_life_text(r, buf, cap, &len);
    else if (r->op == TDCL_BENCH_MATMUL)
        scale_matmul_text(r, buf, cap, &len);
    else
        scale_tile_avg_text(r, buf, cap, &len);
}

void tdcl_bench_scale_json(const tdcl_bench_scale *r, char *buf, size_t cap)
{
    const tdcl_bench_stats *t1 = &r->one, *tn = &r->all;
    const char *what = r->ranks ? "rank" : "shard";
    size_t len = 0;
    if (cap) buf[0] = 0;
    if (r->op == TDCL_BENCH_LIFE) {
        double cells = (double)r->size * (double)r->size * (double)r->gens;
        double r1 = cells / (t1->host_median_ms / 1000), rn = cells / (tn->host_median_ms / 1000);
        double speedup = rn / r1, eff = speedup / (double)r->parts;
        put(buf, cap, &len,
            "{\"op\":\"life\",\"boundary\":\"%s\",\"size\":%lld,\"gens\":%lld,\"%ss\":%zu,"
            "\"halo\":%d,\"reps\":%d,\"one_ms\":%.4f,\"ms\":%.4f,\"one_cells_per_s\":%.6g,"
            "\"cells_per_s\":%.6g,\"speedup\":%.4f,\"efficiency\":%.4f,\"checked\":true}",
            tdcl_life_boundary_name(r->boundary), (long long)r->size, (long long)r->gens, what,
            r->parts, r->halo, r->reps, t1->host_median_ms, tn->host_median_ms, r1, rn, speedup,
            eff);
    } else if (r->op == TDCL_BENCH_MATMUL) {
        double flops = 2.0 * (double)r->m * (double)r->k * (double)r->n;
        double r1 = flops / t1->host_median_ms / 1e6, rn = flops / tn->host_median_ms / 1e6;
        double speedup = rn / r1, eff = speedup / (double)r->parts;
        put(buf, cap, &len,
            "{\"op\":\"matmul\",\"m\":%lld,\"k\":%lld,\"n\":%lld,\"type\":\"%s\",\"%s\":%zu,"
            "\"grid\":\"%dx%d\",\"layout\":\"%s\",\"reps\":%d,\"one_ms\":%.4f,\"ms\":%.4f,"
            "\"one_gflops\":%.6g,\"gflops\":%.6g,\"speedup\":%.4f,\"efficiency\":%.4f,"
            "\"one_kernel_ms\":%.4f,\"kernel_ms\":%.4f,\"checked\":true}",
            (long long)r->m, (long long)r->k, (long long)r->n, tdcl_dtype_name(r->type),
            r->ranks ? "ranks" : "shards", r->parts, r->grid_rows, r->grid_cols,
            !r->ranks  ? "blocks"
            : r->bands ? "bands"
                       : "summa",
            r->reps, t1->host_median_ms, tn->host_median_ms, r1, rn, speedup, eff, t1->median_ms,
            tn->median_ms);
    } else {
        double bytes = r->in_bytes;
        double r1 = bytes / t1->host_median_ms / 1e6, rn = bytes / tn->host_median_ms / 1e6;
        double speedup = rn / r1, eff = speedup / (double)r->parts;
        double keff = t1->median_ms / tn->median_ms / (double)r->parts;
        put(buf, cap, &len,
            "{\"op\":\"tile-avg\",\"size\":%lld,\"tile\":\"%lldx%lld\",\"%ss\":%zu,"
            "\"reps\":%d,\"one_ms\":%.4f,\"ms\":%.4f,\"one_gbps\":%.6g,\"gbps\":%.6g,"
            "\"speedup\":%.4f,\"efficiency\":%.4f,\"one_kernel_ms\":%.4f,\"kernel_ms\":%.4f,"
            "\"kernel_efficiency\":%.4f,\"checked\":true}",
            (long long)r->size, (long long)r->tile_rows, (long long)r->tile_cols, what, r->parts,
            r->reps, t1->host_median_ms, tn->host_median_ms, r1, rn, speedup, eff, t1->median_ms,
            tn->median_ms, keff);
    }
}
