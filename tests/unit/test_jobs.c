/* The jobs (jobs/): each command's pipeline end to end, file -> host ->
 * device -> host -> file, in a scratch directory. Inputs are random data
 * written with io/; outputs are read back with io/ and checked against the
 * host references of the operations: tdcl_mm_check_product,
 * tdcl_ta_reference, tdcl_life_host_step. Device suite. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "base/rule.h"
#include "io/image.h"
#include "io/life_io.h"
#include "io/matio.h"
#include "jobs/life_job.h"
#include "jobs/matmul_job.h"
#include "jobs/tile_avg_job.h"

static char *dir;

static int setup(void **state)
{
    dir = tdcl_test_tmpdir();
    return tdcl_test_ctx_setup(state);
}

static int teardown(void **state)
{
    tdcl_test_rmtree(dir);
    free(dir);
    return tdcl_test_ctx_teardown(state);
}

/* A rows x cols matrix of dtype, uniform in [lo, hi), written to dir/name;
 * *m keeps it (the caller frees it). */
static void write_random(const char *name, int64_t rows, int64_t cols, tdcl_dtype dtype,
                         uint64_t seed, double lo, double hi, tdcl_matrix *m)
{
    tdcl_err e = {0};
    assert_int_equal(tdcl_matrix_alloc(m, rows, cols, 1, dtype, &e), TDCL_OK);
    tdcl_test_fill(m, seed, lo, hi);
    char *p = tdcl_test_join(dir, name);
    if (tdcl_matrix_write(p, m, NULL, &e) != TDCL_OK) fail_msg("%s: %s", name, e.msg);
    free(p);
}

static tdcl_matrix read_back(const char *name)
{
    char *p = tdcl_test_join(dir, name);
    tdcl_matrix m = {0};
    tdcl_err e = {0};
    if (tdcl_matrix_read(p, 0, &m, &e) != TDCL_OK) fail_msg("%s: %s", name, e.msg);
    free(p);
    return m;
}

/* matmul: two float32 .npy files of odd shapes to a .npy C, checked against
 * the host product in double; then the job's own --verify figures. */
static void test_matmul_job(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_matrix a = {0}, b = {0};
    write_random("a.npy", 37, 29, TDCL_F32, 1, -1, 1, &a);
    write_random("b.npy", 29, 41, TDCL_F32, 2, -1, 1, &b);
    char *pa = tdcl_test_join(dir, "a.npy"), *pb = tdcl_test_join(dir, "b.npy");
    char *pc = tdcl_test_join(dir, "c.npy");
    tdcl_mm_job_opts o;
    memset(&o, 0, sizeof o);
    o.a_path = pa;
    o.b_path = pb;
    o.out_path = pc;
    tdcl_err e = {0};
    if (tdcl_mm_job(ctx, &o, &e) != TDCL_OK) fail_msg("matmul job: %s", e.msg);
    tdcl_matrix c = read_back("c.npy");
    assert_int_equal(c.dtype, TDCL_F32);
    assert_int_equal(c.rows, 37);
    assert_int_equal(c.cols, 41);
    tdcl_mm_check chk;
    memset(&chk, 0, sizeof chk);
    assert_int_equal(tdcl_mm_check_product(&a, &b, &c, &chk, &e), TDCL_OK);
    assert_true(chk.bound > 0);
    if (!(chk.rel_err <= chk.bound)) fail_msg("error %.3g past %.3g", chk.rel_err, chk.bound);
    /* the job's own check agrees */
    tdcl_mm_check jchk;
    memset(&jchk, 0, sizeof jchk);
    o.verify = 1;
    o.check = &jchk;
    if (tdcl_mm_job(ctx, &o, &e) != TDCL_OK) fail_msg("matmul job --verify: %s", e.msg);
    assert_true(jchk.bound > 0);
    assert_true(jchk.rel_err <= jchk.bound);
    tdcl_matrix_free(&c);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    free(pa);
    free(pb);
    free(pc);
}

/* Two integer Matrix Market files give the exact int64 product. */
static void test_matmul_job_integers(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_matrix a = {0}, b = {0};
    write_random("ai.mtx", 13, 17, TDCL_I64, 3, -1000, 1000, &a);
    write_random("bi.mtx", 17, 11, TDCL_I64, 4, -1000, 1000, &b);
    char *pa = tdcl_test_join(dir, "ai.mtx"), *pb = tdcl_test_join(dir, "bi.mtx");
    char *pc = tdcl_test_join(dir, "ci.mtx");
    tdcl_mm_job_opts o;
    memset(&o, 0, sizeof o);
    o.a_path = pa;
    o.b_path = pb;
    o.out_path = pc;
    tdcl_err e = {0};
    if (tdcl_mm_job(ctx, &o, &e) != TDCL_OK) fail_msg("matmul job: %s", e.msg);
    tdcl_matrix c = read_back("ci.mtx");
    assert_int_equal(c.dtype, TDCL_I64);
    tdcl_mm_check chk;
    memset(&chk, 0, sizeof chk);
    assert_int_equal(tdcl_mm_check_product(&a, &b, &c, &chk, &e), TDCL_OK);
    assert_true(chk.exact);
    assert_int_equal(chk.differing, 0);
    tdcl_matrix_free(&c);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    free(pa);
    free(pb);
    free(pc);
}

/* tile-avg: a float64 .mtx with edge tiles (37 x 50 in 4 x 6 tiles) to a
 * .npy of means, against the float64 host reference. */
static void test_tile_avg_job(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_matrix in = {0};
    write_random("t.mtx", 37, 50, TDCL_F64, 5, -3, 5, &in);
    char *pi = tdcl_test_join(dir, "t.mtx"), *po = tdcl_test_join(dir, "t-means.npy");
    tdcl_ta_job_opts o;
    memset(&o, 0, sizeof o);
    o.in_path = pi;
    o.out_path = po;
    o.ta.tile_rows = 4;
    o.ta.tile_cols = 6;
    tdcl_err e = {0};
    if (tdcl_ta_job(&(tdcl_exec){.kind = TDCL_EXEC_ONE, .ctx = ctx}, &o, &e) != TDCL_OK)
        fail_msg("tile-avg job: %s", e.msg);
    tdcl_matrix got = read_back("t-means.npy"), ref = {0}, scale = {0};
    assert_int_equal(tdcl_ta_reference(&o.ta, &in, &ref, &scale, &e), TDCL_OK);
    assert_int_equal(got.rows, 10); /* ceil(37 / 4) */
    assert_int_equal(got.cols, 9);  /* ceil(50 / 6) */
    assert_int_equal(ref.rows, got.rows);
    assert_int_equal(ref.cols, got.cols);
    for (size_t k = 0; k < tdcl_matrix_count(&ref); k++) {
        double g = tdcl_matrix_get_f64(&got, k), r = tdcl_matrix_get_f64(&ref, k);
        double s = tdcl_matrix_get_f64(&scale, k);
        if (!(fabs(g - r) <= 1e-6 * s)) fail_msg("tile %zu: %.9g, want %.9g", k, g, r);
    }
    tdcl_matrix_free(&got);
    tdcl_matrix_free(&ref);
    tdcl_matrix_free(&scale);
    tdcl_matrix_free(&in);
    free(pi);
    free(po);
}

/* tile-avg of a picture to a picture: 8-bit PGM in 3 x 2 tiles, each mean
 * rounded to the nearest sample. */
static void test_tile_avg_job_image(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_matrix img = {0};
    tdcl_err e = {0};
    assert_int_equal(tdcl_matrix_alloc(&img, 9, 8, 1, TDCL_U8, &e), TDCL_OK);
    tdcl_test_fill(&img, 6, 0, 256);
    char *pi = tdcl_test_join(dir, "p.pgm"), *po = tdcl_test_join(dir, "p-small.pgm");
    assert_int_equal(tdcl_image_write(pi, &img, 8, &e), TDCL_OK);
    tdcl_ta_job_opts o;
    memset(&o, 0, sizeof o);
    o.in_path = pi;
    o.out_path = po;
    o.ta.tile_rows = 3;
    o.ta.tile_cols = 2;
    if (tdcl_ta_job(&(tdcl_exec){.kind = TDCL_EXEC_ONE, .ctx = ctx}, &o, &e) != TDCL_OK)
        fail_msg("tile-avg job: %s", e.msg);
    tdcl_matrix got = {0}, ref = {0};
    int maxval = 0;
    if (tdcl_image_read(po, &got, &maxval, &e) != TDCL_OK) fail_msg("p-small.pgm: %s", e.msg);
    assert_int_equal(maxval, 255);
    assert_int_equal(tdcl_ta_reference(&o.ta, &img, &ref, NULL, &e), TDCL_OK);
    assert_int_equal(got.rows, 3);
    assert_int_equal(got.cols, 4);
    for (size_t k = 0; k < tdcl_matrix_count(&ref); k++) {
        double r = tdcl_matrix_get_f64(&ref, k), g = tdcl_matrix_get_f64(&got, k);
        /* a mean of 6 samples: a half is rounded either way */
        if (fabs(g - r) > 0.5 + 1e-9) fail_msg("tile %zu: %g, want %g", k, g, r);
    }
    tdcl_matrix_free(&got);
    tdcl_matrix_free(&ref);
    tdcl_matrix_free(&img);
    free(pi);
    free(po);
}

/* life: a random .cells pattern, HighLife on a torus for 13 generations,
 * to RLE, against the host's steps; the job's final grid and summary too. */
static void test_life_job(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    const int64_t rows = 33, cols = 70, gens = 13;
    tdcl_matrix grid = {0}, next = {0}, final = {0};
    tdcl_err e = {0};
    assert_int_equal(tdcl_matrix_alloc(&grid, rows, cols, 1, TDCL_U8, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_alloc(&next, rows, cols, 1, TDCL_U8, &e), TDCL_OK);
    tdcl_test_fill(&grid, 7, 0, 2); /* 0 or 1, about half alive */
    char *pi = tdcl_test_join(dir, "soup.cells"), *po = tdcl_test_join(dir, "end.rle");
    tdcl_life_write_opts wo;
    memset(&wo, 0, sizeof wo);
    wo.rule = tdcl_life_rule_conway();
    assert_int_equal(tdcl_life_write(pi, &grid, &wo, &e), TDCL_OK);
    tdcl_life_rule highlife;
    assert_int_equal(tdcl_life_rule_parse("B36/S23", &highlife, NULL, &e), TDCL_OK);

    tdcl_life_job_opts o;
    memset(&o, 0, sizeof o);
    o.input = pi;
    o.output = po;
    o.gens = gens;
    o.life = tdcl_life_opts_default();
    o.life.rule = highlife;
    o.rule_given = 1;
    o.life.boundary = TDCL_LIFE_TORUS;
    o.boundary_given = 1;
    o.width = cols;
    o.height = rows;
    tdcl_life_summary sum;
    memset(&sum, 0, sizeof sum);
    if (tdcl_life_exec_job(&(tdcl_exec){.kind = TDCL_EXEC_ONE, .ctx = ctx}, 0, &o, &sum, &final,
                           &e) != TDCL_OK)
        fail_msg("life job: %s", e.msg);

    for (int64_t g = 0; g < gens; g++) {
        tdcl_life_host_step(&grid, &next, &highlife, TDCL_LIFE_TORUS);
        tdcl_matrix t = grid;
        grid = next;
        next = t;
    }
    tdcl_life_pattern back;
    memset(&back, 0, sizeof back);
    if (tdcl_life_read(po, 0, &back, &e) != TDCL_OK) fail_msg("end.rle: %s", e.msg);
    assert_int_equal(back.grid.rows, rows);
    assert_int_equal(back.grid.cols, cols);
    assert_true(back.has_rule);
    assert_int_equal(back.rule.birth, highlife.birth);
    assert_int_equal(back.rule.survive, highlife.survive);
    assert_memory_equal(back.grid.data, grid.data, (size_t)(rows * cols));
    assert_memory_equal(final.data, grid.data, (size_t)(rows * cols));
    assert_int_equal(sum.generations, gens);
    assert_int_equal(sum.population, tdcl_life_population(&grid));
    assert_true(sum.population > 0); /* the comparison is not of two empty grids */
    tdcl_life_pattern_free(&back);
    tdcl_matrix_free(&final);
    tdcl_matrix_free(&grid);
    tdcl_matrix_free(&next);
    free(pi);
    free(po);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_job),   cmocka_unit_test(test_matmul_job_integers),
        cmocka_unit_test(test_tile_avg_job), cmocka_unit_test(test_tile_avg_job_image),
        cmocka_unit_test(test_life_job),
    };
    return tdcl_test_exit(cmocka_run_group_tests(tests, setup, teardown));
}
