/* The benchmark drivers on the device: the copy ceiling, the measured peak
 * and each operation at tiny sizes; figures must be consistent with their
 * own work model, and every output the job checks must have passed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "bench/bench_ceilings.h"
#include "bench/bench_ops.h"
#include "bench/bench_report.h"

#define MAX_RESULTS 10

typedef struct collected {
    int n;
    tdcl_bench_result r[MAX_RESULTS];
} collected;

static void collect(const tdcl_bench_result *r, void *user)
{
    collected *c = user;
    assert_true(c->n < MAX_RESULTS);
    c->r[c->n++] = *r;
}

static const tdcl_bench_result *find(const collected *c, const char *op)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->r[i].op, op) == 0) return &c->r[i];
    return NULL;
}

static int close_rel(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

/* What holds for every figure: positive times in order, a positive rate
 * that matches the work model, the ceiling of this job. */
static void check_common(const tdcl_bench_result *r, double ceiling)
{
    assert_true(r->t.reps == 2);
    assert_true(r->t.min_ms > 0 && r->t.min_ms <= r->t.median_ms && r->t.median_ms <= r->t.max_ms);
    assert_true(r->t.host_median_ms > 0 && r->total_ms >= r->t.host_median_ms);
    assert_true(r->rate > 0 && isfinite(r->rate));
    assert_true(r->copy_gbps == ceiling);
    assert_true(r->plan[0] != '\0');
}

/* Runs the job into c, failing the test with the job's message. */
static void run_job(void **state, const tdcl_bench_opts *o, collected *c)
{
    tdcl_err e = {0};
    c->n = 0;
    if (tdcl_bench_job(*state, o, collect, c, &e) != TDCL_OK) fail_msg("bench job: %s", e.msg);
}

static tdcl_bench_opts small_opts(tdcl_bench_op op)
{
    tdcl_bench_opts o;
    tdcl_bench_opts_init(&o);
    o.op = op;
    o.copy_size = 64;
    o.size = 32;
    o.gens = 3;
    o.reps = 2;
    return o;
}

static void test_copy_ceiling(void **state)
{
    TDCL_NEED_DEVICE(state);
    collected c = {0};
    tdcl_bench_opts o = small_opts(TDCL_BENCH_COPY);
    o.size = 96;
    run_job(state, &o, &c);
    assert_int_equal(c.n, 1);
    const tdcl_bench_result *r = &c.r[0];
    assert_string_equal(r->op, "copy");
    assert_int_equal(r->size, 96);
    assert_true(r->checked);
    assert_true(r->bytes == 2.0 * 96 * 96 * 4); /* read plus written */
    assert_true(close_rel(r->rate, r->bytes / (r->t.median_ms / 1e3) / 1e9));
    /* the ceiling is the fastest run; the figure the median */
    assert_true(close_rel(r->copy_gbps, r->bytes / (r->t.min_ms / 1e3) / 1e9));
    check_common(r, r->copy_gbps);
    assert_true(close_rel(r->frac_copy, r->rate / r->copy_gbps) && r->frac_copy <= 1 + 1e-12);
    assert_non_null(strstr(r->plan, "copy_f32 vec="));

    /* --tile forces the vector width */
    o.tile = 4;
    run_job(state, &o, &c);
    assert_non_null(strstr(c.r[0].plan, "vec=4 "));
}

static void check_ceilings(const collected *c);

/* `all` measures the ceilings, then each operation this build has. */
static void test_all_ops(void **state)
{
    TDCL_NEED_DEVICE(state);
    collected c = {0};
    tdcl_bench_opts o = small_opts(TDCL_BENCH_ALL);
    run_job(state, &o, &c);
    const tdcl_bench_result *copy = find(&c, "copy"), *peak = find(&c, "peak");
    assert_non_null(copy);
    assert_non_null(peak);
    assert_string_equal(c.r[0].op, "copy"); /* the ceiling comes first */
    assert_int_equal(copy->size, 64);
    for (int i = 0; i < c.n; i++)
        check_common(&c.r[i], copy->copy_gbps);
    assert_true(peak->checked);
    assert_string_equal(peak->rate_key, "gflops");
    assert_non_null(strstr(peak->plan, "peak_fma vw="));

    const tdcl_bench_result *mm = find(&c, "matmul");
    assert_non_null(mm);
    assert_true(mm->checked);
    assert_int_equal(mm->size, 32);
    assert_true(mm->m == 32 && mm->k == 32 && mm->n == 32);
    assert_true(close_rel(mm->rate, 2.0 * 32 * 32 * 32 / (mm->t.median_ms / 1e3) / 1e9));
    assert_true(mm->peak_gflops == peak->peak_gflops && peak->peak_gflops >= peak->rate);
    assert_true(close_rel(mm->frac_peak, mm->rate / peak->peak_gflops));
    assert_true(mm->bytes == 3.0 * 32 * 32 * 4);

    const tdcl_bench_result *ta = find(&c, "tile-avg");
    assert_non_null(ta);
    assert_true(ta->checked);
    assert_int_equal(ta->size, 32);
    assert_int_equal(ta->tile, 16);
    /* 32x32 float32 read, 2x2 means written (float32 or float64) */
    assert_true(ta->bytes == 32 * 32 * 4 + 2 * 2 * 4 || ta->bytes == 32 * 32 * 4 + 2 * 2 * 8);
    assert_true(close_rel(ta->rate, ta->bytes / (ta->t.median_ms / 1e3) / 1e9));
    assert_true(close_rel(ta->frac_copy, ta->rate / copy->copy_gbps));

    const tdcl_bench_result *life = find(&c, "life");
    assert_non_null(life);
    assert_true(life->checked);
    assert_int_equal(life->size, 32);
    assert_int_equal(life->gens, 3);
    assert_true(close_rel(life->rate, 32.0 * 32 * 3 / (life->t.median_ms / 1e3)));
    assert_true(life->bytes == 2.0 * 32 * 32 * 3); /* a byte read and written per update */
    check_ceilings(&c);
}

/* The read ceiling: checked against the host's sums, its bytes the input
 * read plus a partial sum written per work-item, its ceiling the fastest
 * run; tile-avg is measured against it. */
static void check_read(const collected *c)
{
    const tdcl_bench_result *rd = find(c, "read"), *ta = find(c, "tile-avg");
    assert_non_null(rd);
    assert_true(rd->checked);
    assert_int_equal(rd->size, 64);
    const char *items = strstr(rd->plan, "items=");
    assert_non_null(strstr(rd->plan, "read_f32 vec="));
    assert_non_null(items);
    assert_true(rd->bytes == (64.0 * 64 + atof(items + 6)) * 4);
    assert_true(close_rel(rd->read_gbps, rd->bytes / (rd->t.min_ms / 1e3) / 1e9));
    assert_string_equal(rd->ceiling, "read");
    assert_non_null(ta);
    assert_string_equal(ta->ceiling, "read");
    assert_true(ta->read_gbps == rd->read_gbps);
    assert_true(close_rel(ta->frac_read, ta->rate / rd->read_gbps));
    assert_true(ta->frac_ceiling == ta->frac_read);
}

/* The life logic peak: checked against the host's cell-by-cell steps, in
 * cell updates per second; the bit-packed life is measured against it. */
static void check_life_peak(const collected *c)
{
    const tdcl_bench_result *lp = find(c, "life-peak"), *life = find(c, "life");
    assert_non_null(lp);
    assert_true(lp->checked);
    assert_string_equal(lp->rate_key, "cells_per_s");
    assert_non_null(strstr(lp->plan, "life_peak w="));
    assert_true(lp->life_peak >= lp->rate);
    assert_non_null(life);
    assert_true(life->life_peak == lp->life_peak);
    assert_true(close_rel(life->frac_life_peak, life->rate / lp->life_peak));
    if (strncmp(life->plan, "kernel=bits", 11) == 0) {
        assert_string_equal(life->ceiling, "life-peak");
        assert_true(life->frac_ceiling == life->frac_life_peak);
    } else {
        assert_string_equal(life->ceiling, "copy");
    }
}

/* Every figure names its ceiling, and the fraction is of that one. */
static void check_ceilings(const collected *c)
{
    check_read(c);
    check_life_peak(c);
    const tdcl_bench_result *mm = find(c, "matmul"), *copy = find(c, "copy");
    assert_string_equal(mm->ceiling, "peak");
    assert_true(mm->frac_ceiling == mm->frac_peak);
    assert_string_equal(copy->ceiling, "copy");
    assert_true(copy->frac_ceiling == copy->frac_copy);
    for (int i = 0; i < c->n; i++) {
        char buf[2048];
        tdcl_bench_result_text(&c->r[i], buf, sizeof buf);
        if (c->r[i].frac_ceiling > 1) assert_non_null(strstr(buf, "(above it: "));
    }
}

/* The read ceiling on an odd size: every shape's partial sums, the tail
 * that fills no vector included, passed the job's check against the host
 * (a wrong one fails the job), and the bytes count the partial sums. */
static void test_read_odd_size(void **state)
{
    TDCL_NEED_DEVICE(state);
    collected c = {0};
    tdcl_bench_opts o = small_opts(TDCL_BENCH_TILE_AVG);
    o.copy_size = 67; /* 4489 floats: not a whole number of vectors of 4 or 8 */
    run_job(state, &o, &c);
    const tdcl_bench_result *rd = find(&c, "read");
    assert_non_null(rd);
    assert_true(rd->checked);
    const char *items = strstr(rd->plan, "items=");
    assert_non_null(items);
    assert_true(rd->bytes == (67.0 * 67 + atof(items + 6)) * 4);
    assert_null(find(&c, "peak"));      /* no matmul: no multiply-add peak */
    assert_null(find(&c, "life-peak")); /* no life: no logic peak */
}

/* A non-square int64 product with a forced tile: exact, no peak to compare. */
static void test_matmul_shape_int64(void **state)
{
    TDCL_NEED_DEVICE(state);
    collected c = {0};
    tdcl_bench_opts o = small_opts(TDCL_BENCH_MATMUL);
    o.size = 0;
    o.m = 33;
    o.k = 17;
    o.n = 45;
    o.tile = 8;
    o.type = TDCL_I64;
    run_job(state, &o, &c);
    assert_null(find(&c, "peak")); /* integers have no FMA peak */
    const tdcl_bench_result *mm = find(&c, "matmul");
    assert_non_null(mm);
    assert_true(mm->checked);
    assert_string_equal(mm->type, "int64");
    assert_true(mm->size == 0 && mm->m == 33 && mm->k == 17 && mm->n == 45);
    assert_int_equal(mm->tile, 8);
    assert_non_null(strstr(mm->plan, "ts=8"));
    assert_true(close_rel(mm->rate, 2.0 * 33 * 17 * 45 / (mm->t.median_ms / 1e3) / 1e9));
    assert_true(isnan(mm->frac_peak) && isnan(mm->peak_gflops));
}

/* The copy kernel on its own (bench/ pairs it with its runs): it runs
 * at every width, reports a device time, names its launch, refuses other
 * widths. (What it copies is checked through the job, above.) */
static void test_copy_runner(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_bench_copy *c = NULL;
    tdcl_err e = {0};
    float host[1003];
    for (int i = 0; i < 1003; i++)
        host[i] = (float)i * 0.5f - 7.0f;
    assert_int_equal(tdcl_bench_copy_create(ctx, host, 1003, 3, &c, &e), TDCL_EINVAL);
    assert_null(c);
    assert_non_null(strstr(e.msg, "1, 4 or 8"));
    for (int vec = 1; vec <= 8; vec *= 2) {
        if (vec == 2) continue;
        double ms = -1;
        assert_int_equal(tdcl_bench_copy_create(ctx, host, 1003, vec, &c, &e), TDCL_OK);
        assert_int_equal(tdcl_bench_copy_exec(c, &ms, &e), TDCL_OK);
        assert_true(ms >= 0);
        char want[32];
        snprintf(want, sizeof want, "copy_f32 vec=%d ", vec);
        assert_non_null(strstr(tdcl_bench_copy_describe(c), want));
        tdcl_bench_copy_destroy(c);
        c = NULL;
    }
    tdcl_bench_copy_destroy(NULL);
}

static void test_bad_options(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_err e = {0};
    tdcl_bench_opts o = small_opts(TDCL_BENCH_COPY);
    o.size = 1 << 20; /* two 4 TiB buffers */
    assert_int_equal(tdcl_bench_job(*state, &o, NULL, NULL, &e), TDCL_ELIMIT);
    assert_non_null(strstr(e.msg, "1048576x1048576 float copy"));
    o = small_opts(TDCL_BENCH_COPY);
    o.tile = 3;
    assert_int_equal(tdcl_bench_job(*state, &o, NULL, NULL, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "vector width 1, 4 or 8, got 3"));
    o = small_opts(TDCL_BENCH_ALL);
    o.type = TDCL_U8;
    assert_int_equal(tdcl_bench_job(*state, &o, NULL, NULL, &e), TDCL_EINVAL);
}

/* A figure past 100% of a ceiling says why; one under it says nothing more. */
static void test_past_peak_says_why(void **state)
{
    (void)state;
    tdcl_bench_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.op, sizeof r.op, "matmul");
    snprintf(r.plan, sizeof r.plan, "kernel=cpu");
    r.type = "float32";
    r.size = 64;
    r.rate_key = "gflops";
    r.rate = 120;
    r.peak_gflops = 100;
    r.frac_peak = 1.2;
    r.spec_peak_gflops = 200;
    r.frac_spec_peak = 0.6;
    r.frac_copy = 0.5;
    char buf[2048];
    tdcl_bench_result_text(&r, buf, sizeof buf);
    assert_non_null(
        strstr(buf, "120.0% of measured peak 100 GFLOP/s (above it: the multiply-add loop"));
    assert_non_null(strstr(buf, "60.0% of spec peak 200 GFLOP/s"));
    assert_null(strstr(buf, "60.0% of spec peak 200 GFLOP/s (above"));
    snprintf(r.plan, sizeof r.plan, "kernel=gpu precision=tf32");
    r.tensor_cores = 1;
    r.frac_spec_peak = 1.5;
    tdcl_bench_result_text(&r, buf, sizeof buf);
    assert_non_null(strstr(buf, "(above it: tensor cores"));
    assert_non_null(strstr(buf, "150.0% of spec peak 200 GFLOP/s (above it: tensor cores"));
    snprintf(r.op, sizeof r.op, "tile-avg");
    r.rate_key = "gbps";
    r.frac_copy = 1.1;
    r.cpu = 1;
    tdcl_bench_result_text(&r, buf, sizeof buf);
    assert_non_null(strstr(buf, "110.0% of copy (above it: a CPU write reads its cache line"));
    r.cpu = 0; /* a GPU: no write-allocate */
    tdcl_bench_result_text(&r, buf, sizeof buf);
    assert_non_null(strstr(buf, "110.0% of copy (above it: the copy writes as many bytes"));
    snprintf(r.op, sizeof r.op, "life");
    r.rate_key = "cells_per_s";
    r.frac_copy = 8.4;
    tdcl_bench_result_text(&r, buf, sizeof buf);
    assert_non_null(strstr(buf, "840.0% of copy (above it: a cell is one bit"));
    /* the bit-packed kernels against the logic peak */
    snprintf(r.plan, sizeof r.plan, "kernel=bits w=1x32");
    r.ceiling = "life-peak";
    r.life_peak = 2e11;
    r.frac_life_peak = 0.4;
    tdcl_bench_result_text(&r, buf, sizeof buf);
    assert_non_null(strstr(buf, ", 40.0% of life-peak 200 Gcells/s  ["));
    assert_null(strstr(buf, "of copy"));
    r.frac_life_peak = 1.05;
    tdcl_bench_result_text(&r, buf, sizeof buf);
    assert_non_null(strstr(buf, "105.0% of life-peak 200 Gcells/s (above it: the logic peak"));
    /* tile-avg against the read ceiling, copy no longer */
    snprintf(r.op, sizeof r.op, "tile-avg");
    r.rate_key = "gbps";
    r.ceiling = "read";
    r.read_gbps = 120;
    r.frac_read = 0.9;
    r.frac_copy = 1.1;
    tdcl_bench_result_text(&r, buf, sizeof buf);
    assert_non_null(strstr(buf, ", 90.0% of read ceiling 120 GB/s  ["));
    assert_null(strstr(buf, "of copy"));
    r.frac_read = 1.02;
    tdcl_bench_result_text(&r, buf, sizeof buf);
    assert_non_null(strstr(buf, "102.0% of read ceiling 120 GB/s (above it: the read ceiling"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_ceiling),
        cmocka_unit_test(test_read_odd_size),
        cmocka_unit_test(test_all_ops),
        cmocka_unit_test(test_matmul_shape_int64),
        cmocka_unit_test(test_copy_runner),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_past_peak_says_why),
    };
    return tdcl_test_exit(
        cmocka_run_group_tests(tests, tdcl_test_ctx_setup, tdcl_test_ctx_teardown));
}
