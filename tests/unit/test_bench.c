/* The benchmark timer, the JSON-line writer and the result formatting,
 * with scripted callbacks instead of a device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "base/timer.h"
#include "bench/bench_ops.h"
#include "bench/bench_report.h"
#include "base/json.h"
#include "base/clock.h"

static void test_median(void **state)
{
    (void)state;
    double odd[5] = {5, 1, 4, 2, 3};
    assert_true(tdcl_median(odd, 5) == 3);
    assert_true(odd[0] == 1 && odd[4] == 5); /* sorted in place */
    double even[4] = {10, 2, 8, 4};
    assert_true(tdcl_median(even, 4) == 6);
    double one[1] = {7.5};
    assert_true(tdcl_median(one, 1) == 7.5);
    assert_true(tdcl_median(NULL, 0) == 0);
}

/* A callback that reports scripted device times and counts its calls. */
typedef struct script {
    const double *ms;
    int calls;
    int fail_at; /* call index that fails, -1 never */
} script;

static tdcl_status scripted(void *user, double *device_ms, tdcl_err *err)
{
    script *s = user;
    if (s->calls == s->fail_at)
        return tdcl_fail(err, TDCL_ECL, "scripted failure at call %d", s->calls);
    *device_ms = s->ms[s->calls++];
    return TDCL_OK;
}

static void test_timer_stats(void **state)
{
    (void)state;
    /* two warm-up values (99) that must not count, then five timed runs */
    const double ms[7] = {99, 99, 5, 1, 4, 2, 3};
    script s = {ms, 0, -1};
    tdcl_bench_stats st;
    tdcl_err e;
    assert_int_equal(tdcl_bench_time(2, 5, scripted, &s, &st, &e), TDCL_OK);
    assert_int_equal(s.calls, 7);
    assert_int_equal(st.reps, 5);
    assert_true(st.median_ms == 3 && st.min_ms == 1 && st.max_ms == 5);
    assert_true(st.host_min_ms >= 0 && st.host_min_ms <= st.host_median_ms &&
                st.host_median_ms <= st.host_max_ms);
}

/* Without profiling information (0 ms) the host time of the call stands in. */
static void test_timer_falls_back_to_host(void **state)
{
    (void)state;
    const double ms[3] = {0, 0, 0};
    script s = {ms, 0, -1};
    tdcl_bench_stats st;
    tdcl_err e;
    assert_int_equal(tdcl_bench_time(0, 3, scripted, &s, &st, &e), TDCL_OK);
    assert_true(st.median_ms == st.host_median_ms && st.min_ms == st.host_min_ms);
}

static void test_timer_errors(void **state)
{
    (void)state;
    const double ms[4] = {1, 2, 3, 4};
    script s = {ms, 0, 2};
    tdcl_bench_stats st;
    tdcl_err e = {0};
    assert_int_equal(tdcl_bench_time(1, 3, scripted, &s, &st, &e), TDCL_ECL);
    assert_string_equal(e.msg, "scripted failure at call 2");
    assert_int_equal(tdcl_bench_time(0, 0, scripted, &s, &st, &e), TDCL_EINVAL);
    assert_int_equal(tdcl_bench_time(-1, 1, scripted, &s, &st, &e), TDCL_EINVAL);
}

static void test_jsonl(void **state)
{
    (void)state;
    tdcl_jsonl j;
    tdcl_jsonl_begin(&j);
    tdcl_jsonl_str(&j, "s", "a\"b\\c\n\x01");
    tdcl_jsonl_num(&j, "x", 1.5);
    tdcl_jsonl_num(&j, "big", 1234567890.0);
    tdcl_jsonl_num(&j, "inf", INFINITY);
    tdcl_jsonl_num(&j, "nan", NAN);
    tdcl_jsonl_int(&j, "i", -42);
    tdcl_jsonl_bool(&j, "t", 1);
    tdcl_jsonl_null(&j, "z");
    tdcl_jsonl_str(&j, "n", NULL);
    assert_string_equal(tdcl_jsonl_end(&j),
                        "{\"s\": \"a\\\"b\\\\c\\u000a\\u0001\", \"x\": 1.5, \"big\": 1.23457e+09, "
                        "\"inf\": null, \"nan\": null, \"i\": -42, \"t\": true, \"z\": null, "
                        "\"n\": null}");

    /* a line past the buffer is refused, not cut */
    char longs[600];
    memset(longs, 'x', sizeof longs - 1);
    longs[sizeof longs - 1] = '\0';
    tdcl_jsonl_begin(&j);
    for (int i = 0; i < 5; i++)
        tdcl_jsonl_str(&j, "k", longs);
    assert_null(tdcl_jsonl_end(&j));
}

static tdcl_bench_result sample_result(void)
{
    tdcl_bench_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.op, sizeof r.op, "matmul");
    snprintf(r.device, sizeof r.device, "dev \"x\"");
    snprintf(r.plan, sizeof r.plan, "kernel=tiled ts=16");
    r.type = "float32";
    r.size = 1600;
    r.tile = 16;
    r.t.reps = 3;
    r.t.median_ms = 2;
    r.t.min_ms = 1.5;
    r.t.max_ms = 4;
    r.t.host_median_ms = 2.5;
    r.upload_ms = 1;
    r.download_ms = 0.5;
    r.total_ms = 4;
    r.rate_key = "gflops";
    r.rate = 4096;
    r.bytes = 3 * 1600.0 * 1600 * 4;
    r.copy_gbps = 100;
    r.frac_copy = 0.0768;
    r.peak_gflops = 8192;
    r.frac_peak = 0.5;
    r.spec_peak_gflops = NAN;
    r.frac_spec_peak = NAN;
    r.read_gbps = r.frac_read = r.life_peak = r.frac_life_peak = NAN;
    r.ceiling = "peak";
    r.frac_ceiling = 0.5;
    r.checked = 1;
    return r;
}

static void test_result_json(void **state)
{
    (void)state;
    tdcl_bench_result r = sample_result();
    tdcl_jsonl j;
    assert_string_equal(
        tdcl_bench_result_json(&r, &j),
        "{\"op\": \"matmul\", \"device\": \"dev \\\"x\\\"\", \"type\": \"float32\", \"size\": "
        "1600, \"tile\": 16, \"plan\": \"kernel=tiled ts=16\", \"reps\": 3, \"median_ms\": 2, "
        "\"min_ms\": 1.5, \"max_ms\": 4, \"host_median_ms\": 2.5, \"upload_ms\": 1, "
        "\"download_ms\": 0.5, \"total_ms\": 4, \"gflops\": 4096, \"copy_gbps\": 100, "
        "\"frac_copy\": 0.0768, \"peak_gflops\": 8192, \"frac_peak\": 0.5, "
        "\"spec_peak_gflops\": null, \"frac_spec_peak\": null, \"ceiling\": \"peak\", "
        "\"frac_ceiling\": 0.5, \"checked\": true}");

    /* a --shape matmul has no size but m, k, n; no tile shows null */
    r.size = 0;
    r.m = 10;
    r.k = 20;
    r.n = 30;
    r.tile = 0;
    const char *line = tdcl_bench_result_json(&r, &j);
    assert_non_null(
        strstr(line, "\"size\": null, \"m\": 10, \"k\": 20, \"n\": 30, \"tile\": null"));

    /* tile-avg: its read ceiling beside copy (the old fields stay) */
    r = sample_result();
    snprintf(r.op, sizeof r.op, "tile-avg");
    r.rate_key = "gbps";
    r.rate = 90;
    r.frac_copy = 0.9;
    r.read_gbps = 120;
    r.frac_read = 0.75;
    r.ceiling = "read";
    r.frac_ceiling = 0.75;
    line = tdcl_bench_result_json(&r, &j);
    assert_non_null(strstr(line, "\"gbps\": 90, \"copy_gbps\": 100, \"frac_copy\": 0.9, "
                                 "\"read_gbps\": 120, \"frac_read\": 0.75, \"ceiling\": \"read\", "
                                 "\"frac_ceiling\": 0.75, \"checked\": true}"));
    assert_null(strstr(line, "peak"));

    /* life: its logic peak */
    snprintf(r.op, sizeof r.op, "life");
    r.rate_key = "cells_per_s";
    r.rate = 2e9;
    r.life_peak = 8e9;
    r.frac_life_peak = 0.25;
    r.ceiling = "life-peak";
    r.frac_ceiling = 0.25;
    line = tdcl_bench_result_json(&r, &j);
    assert_non_null(strstr(line, "\"cells_per_s\": 2e+09, "));
    assert_non_null(strstr(line, "\"life_peak_cells_per_s\": 8e+09, \"frac_life_peak\": 0.25, "
                                 "\"ceiling\": \"life-peak\", \"frac_ceiling\": 0.25"));
    assert_null(strstr(line, "read_gbps"));
}

static void test_result_text(void **state)
{
    (void)state;
    tdcl_bench_result r = sample_result();
    char buf[1024];
    tdcl_bench_result_text(&r, buf, sizeof buf);
    assert_non_null(strstr(buf, "matmul"));
    assert_non_null(strstr(buf, "1600x1600"));
    assert_non_null(strstr(buf, "median 2 ms (min 1.5, max 4"));
    assert_non_null(strstr(buf, "4096 GFLOP/s, 7.7% of copy"));
    assert_non_null(strstr(buf, "50.0% of measured peak 8192 GFLOP/s"));
    assert_non_null(strstr(buf, "spec peak unknown"));
    assert_non_null(strstr(buf, "[kernel=tiled ts=16]"));
}

/* The block and the line of a figure over a set or ranks, written out in
 * full: the text and JSON that `tiledcl bench` has always printed. */
static void test_scale_report(void **state)
{
    (void)state;
    char buf[1024];
    tdcl_bench_scale r;
    memset(&r, 0, sizeof r);
    r.op = TDCL_BENCH_LIFE;
    r.root = 1;
    r.parts = 2;
    snprintf(r.devices, sizeof r.devices, " 0:0 A, 0:1 B");
    r.size = 100;
    r.gens = 10;
    r.halo = 32;
    r.reps = 3;
    r.boundary = TDCL_LIFE_TORUS;
    r.one.host_median_ms = 10;
    r.all.host_median_ms = 5;
    tdcl_bench_scale_text(&r, buf, sizeof buf);
    assert_string_equal(buf, "devices: 0:0 A, 0:1 B\n"
                             "life 100x100 torus, 10 generations, median of 3 (host time):\n"
                             "  1 shard:       10.000 ms  1e+07 cell updates/s\n"
                             "  2 shards:       5.000 ms  2e+07 cell updates/s  (halo 32)\n"
                             "  speedup 2.000, parallel efficiency 1.000; the grids agree");

    memset(&r, 0, sizeof r);
    r.op = TDCL_BENCH_MATMUL;
    r.ranks = 1;
    r.parts = 4;
    r.type = TDCL_F32;
    r.m = r.k = r.n = 100;
    r.grid_rows = r.grid_cols = 2;
    r.reps = 3;
    r.one.host_median_ms = 2;
    r.one.median_ms = 1;
    r.all.host_median_ms = 1;
    r.all.median_ms = 0.5;
    tdcl_bench_scale_json(&r, buf, sizeof buf);
    assert_string_equal(buf, "{\"op\":\"matmul\",\"m\":100,\"k\":100,\"n\":100,\"type\":"
                             "\"float32\",\"ranks\":4,\"grid\":\"2x2\",\"layout\":\"summa\","
                             "\"reps\":3,\"one_ms\":2.0000,\"ms\":1.0000,\"one_gflops\":1,"
                             "\"gflops\":2,\"speedup\":2.0000,\"efficiency\":0.5000,"
                             "\"one_kernel_ms\":1.0000,\"kernel_ms\":0.5000,\"checked\":true}");
    tdcl_bench_scale_text(&r, buf, sizeof buf);
    assert_true(strncmp(buf, "4 MPI ranks, SUMMA; every rank holds", 36) == 0);
    assert_non_null(strstr(buf, "\n  4 ranks  2x2:      1.000 ms  2 GFLOP/s\n"));
    assert_non_null(strstr(buf, "the slowest rank's 0.500 ms: speedup 2.000, 0.500 per rank"));
}

static void test_ops_and_defaults(void **state)
{
    (void)state;
    const char *names[] = {"copy", "matmul", "tile-avg", "life", "all"};
    for (int i = 0; i < 5; i++) {
        tdcl_bench_op op;
        assert_int_equal(tdcl_bench_op_parse(names[i], &op), 0);
        assert_int_equal(op, i);
        assert_string_equal(tdcl_bench_op_name(op), names[i]);
    }
    tdcl_bench_op op;
    assert_int_equal(tdcl_bench_op_parse("tile_avg", &op), -1);
    assert_int_equal(tdcl_bench_op_parse(NULL, &op), -1);

    tdcl_device_info cpu = {.type = CL_DEVICE_TYPE_CPU}, gpu = {.type = CL_DEVICE_TYPE_GPU};
    assert_int_equal(tdcl_bench_default_size(&cpu, TDCL_BENCH_MATMUL), 2048);
    assert_int_equal(tdcl_bench_default_size(&gpu, TDCL_BENCH_MATMUL), 8192);
    assert_int_equal(tdcl_bench_default_size(&cpu, TDCL_BENCH_TILE_AVG), 4096);
    assert_int_equal(tdcl_bench_default_size(&gpu, TDCL_BENCH_TILE_AVG), 16384);
    assert_int_equal(tdcl_bench_default_size(&cpu, TDCL_BENCH_LIFE), 2048);
    assert_int_equal(tdcl_bench_default_size(&gpu, TDCL_BENCH_LIFE), 16384);
    assert_int_equal(tdcl_bench_default_size(&cpu, TDCL_BENCH_COPY), 4096);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_timer_stats),
        cmocka_unit_test(test_timer_falls_back_to_host),
        cmocka_unit_test(test_timer_errors),
        cmocka_unit_test(test_jsonl),
        cmocka_unit_test(test_result_json),
        cmocka_unit_test(test_result_text),
        cmocka_unit_test(test_scale_report),
        cmocka_unit_test(test_ops_and_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
