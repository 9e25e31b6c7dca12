/* The tensor-core precisions of matmul (tf32, 3xtf32, auto). Everywhere:
 * names, the resolution rules, and on a device without the path (PoCL) the
 * clear error for tf32 / 3xtf32 and auto's fallback to an exact float32
 * product. On an NVIDIA device with the path: small integer products that
 * TF32 represents exactly (so the fragment layouts must be right to the
 * bit), then random shapes, multiples of the tiles or not, against a double
 * host reference: tf32 within its input rounding, 3xtf32 at least as
 * accurate as the fp32 kernel on the same inputs. C is poisoned (NaN)
 * before every run, so an element the kernel missed fails. On a device
 * without the path, the kernel also runs emulated (tdcl_mm_lab.emulate:
 * plain OpenCL C in place of the PTX) on exact integer products.
 * TILEDCL_TC_OPTIONS (bench/check_matmul_tc.sh: -DWGMMA=0 or 1) goes
 * to the plans as their overrides, tdcl_mm_opts.lab. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "ops/matmul/matmul.h"
#include "ops/matmul/matmul_lab.h"
#include "ops/matmul/matmul_tc.h"

/* The plans' overrides from TILEDCL_TC_OPTIONS, read once. */
static const tdcl_mm_lab *env_lab(void)
{
    static tdcl_mm_lab lab;
    static int read;
    if (!read) {
        tdcl_err e = {0};
        assert_int_equal(tdcl_mm_lab_parse(getenv("TILEDCL_TC_OPTIONS"), &lab, &e), TDCL_OK);
        read = 1;
    }
    return &lab;
}

static tdcl_matrix rand_mat(int64_t rows, int64_t cols, uint64_t seed, double lo, double hi)
{
    tdcl_matrix m;
    tdcl_err e = {0};
    assert_int_equal(tdcl_matrix_alloc(&m, rows, cols, 1, TDCL_F32, &e), TDCL_OK);
    tdcl_test_fill(&m, seed, lo, hi);
    return m;
}

/* Integers in [-8, 8]: TF32 holds them exactly, and with K <= 64 every
 * partial sum is an integer below 2^13, exact in float32 too. */
static tdcl_matrix small_int_mat(int64_t rows, int64_t cols, uint64_t seed)
{
    tdcl_matrix m = rand_mat(rows, cols, seed, -8, 9);
    float *v = m.data;
    for (size_t i = 0; i < tdcl_matrix_count(&m); i++)
        v[i] = floorf(v[i]);
    return m;
}

/* R = A*B in double, from the float inputs. */
static double *reference(const tdcl_matrix *a, const tdcl_matrix *b)
{
    int64_t M = a->rows, K = a->cols, N = b->cols;
    const float *A = a->data, *B = b->data;
    double *r = calloc((size_t)(M * N), sizeof *r);
    assert_non_null(r);
    for (int64_t i = 0; i < M; i++)
        for (int64_t k = 0; k < K; k++) {
            double x = A[i * K + k];
            for (int64_t j = 0; j < N; j++)
                r[i * N + j] += x * B[k * N + j];
        }
    return r;
}

/* Fails unless c equals the float64 product of a and b exactly (integer
 * inputs small enough that every route is exact), naming the first cell. */
static void expect_exact(const char *desc, const tdcl_matrix *a, const tdcl_matrix *b,
                         const tdcl_matrix *c)
{
    const int64_t M = a->rows, K = a->cols, N = b->cols;
    double *r = reference(a, b);
    const float *C = c->data;
    for (int64_t i = 0; i < M * N; i++)
        if ((double)C[i] != r[i]) {
            print_message("%s %lldx%lldx%lld: C[%lld,%lld] = %g, expected %g\n", desc, (long long)M,
                          (long long)K, (long long)N, (long long)(i / N), (long long)(i % N), C[i],
                          r[i]);
            free(r);
            fail();
        }
    free(r);
}

/* ||C - R||_F / ||R||_F; a NaN (an unwritten element) gives NaN. */
static double rel_err(const tdcl_matrix *c, const double *r)
{
    const float *C = c->data;
    double num = 0, den = 0;
    for (size_t i = 0; i < tdcl_matrix_count(c); i++) {
        double d = (double)C[i] - r[i];
        num += d * d;
        den += r[i] * r[i];
    }
    return sqrt(num) / sqrt(den);
}

static double frob(const tdcl_matrix *m)
{
    const float *v = m->data;
    double s = 0;
    for (size_t i = 0; i < tdcl_matrix_count(m); i++)
        s += (double)v[i] * v[i];
    return sqrt(s);
}

/* Tensor-core tiles to test beside the built-in choice (which takes the
 * small tile at these sizes): bm, bn, bk, wm, wn: the large built-ins and
 * each slab depth (8, 16, 32: three A layouts) and warp width (32, 64:
 * two B swizzles). */
static const int tc_tiles[][5] = {{0, 0, 0, 0, 0},        {128, 128, 8, 64, 64},
                                  {128, 128, 16, 64, 64}, {128, 128, 16, 64, 32},
                                  {128, 256, 8, 64, 64},  {64, 128, 32, 32, 64}};

/* Computes c = a*b in precision prec, with the tile forced (NULL: the
 * plan's) and emulated or not, and checks what the plan says it ran. */
static void run_tiles(tdcl_ctx *ctx, tdcl_mm_precision prec, const int *tile, int emulate,
                      const tdcl_matrix *a, const tdcl_matrix *b, tdcl_matrix *c, char *desc,
                      size_t n)
{
    tdcl_mm_lab lab = *env_lab();
    lab.emulate = emulate;
    if (tile)
        lab.bm = tile[0], lab.bn = tile[1], lab.bk = tile[2], lab.wm = tile[3], lab.wn = tile[4];
    tdcl_mm_opts o = {.lab = &lab};
    tdcl_mm_plan *p = NULL;
    tdcl_err e = {0};
    o.precision = prec;
    o.poison = 1;
    tdcl_status st = tdcl_mm_plan_create(ctx, &o, a, b, &p, &e);
    if (st) print_message("plan: %s\n", e.msg);
    assert_int_equal(st, TDCL_OK);
    assert_int_equal(tdcl_mm_plan_execute(p, NULL, &e), TDCL_OK);
    assert_int_equal(tdcl_mm_plan_result(p, c, &e), TDCL_OK);
    if (desc) snprintf(desc, n, "%s", tdcl_mm_plan_describe(p));
    tdcl_mm_plan_info info;
    tdcl_mm_plan_get_info(p, &info);
    /* the tensor cores compute exactly when a tensor-core precision was
     * asked, or auto resolved to one */
    assert_int_equal(info.tensor_cores != 0, info.precision != TDCL_MM_FP32);
    if (prec != TDCL_MM_PREC_AUTO) assert_int_equal(info.precision, prec);
    tdcl_mm_plan_destroy(p);
}

static void run_prec(tdcl_ctx *ctx, tdcl_mm_precision prec, const tdcl_matrix *a,
                     const tdcl_matrix *b, tdcl_matrix *c, char *desc, size_t n)
{
    run_tiles(ctx, prec, NULL, 0, a, b, c, desc, n);
}

static void test_names(void **state)
{
    (void)state;
    tdcl_mm_precision p;
    tdcl_err e = {0};
    const tdcl_mm_precision all[] = {TDCL_MM_FP32, TDCL_MM_TF32, TDCL_MM_3XTF32, TDCL_MM_PREC_AUTO};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(tdcl_mm_precision_parse(tdcl_mm_precision_name(all[i]), &p, &e), TDCL_OK);
        assert_int_equal(p, all[i]);
    }
    assert_int_equal(tdcl_mm_precision_parse("tf16", &p, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "'tf16'"));
    assert_non_null(strstr(e.msg, "3xtf32"));
}

/* The overrides' text: each switch to its field (STAGES apart from
 * WG_STAGES), the rest built in, the whole text kept for the builds; too
 * long a text is refused. */
static void test_lab_parse(void **state)
{
    (void)state;
    tdcl_mm_lab lab;
    tdcl_err e = {0};
    const char *text = "-DWGMMA=0 -DWG_BN=128 -DSTAGES=4 -DWG_LAG=0 -cl-nv-verbose";
    assert_int_equal(tdcl_mm_lab_parse(text, &lab, &e), TDCL_OK);
    assert_int_equal(lab.wgmma, 0);
    assert_int_equal(lab.wg_bn, 128);
    assert_int_equal(lab.stages, 4);
    assert_int_equal(lab.wg_lag, 0);
    assert_int_equal(lab.wg_stages, -1);
    assert_int_equal(lab.wg_nwg, -1);
    assert_int_equal(lab.wg_nolimit, 0);
    assert_int_equal(lab.bm, 0);
    assert_string_equal(lab.build, text);
    assert_int_equal(tdcl_mm_lab_or(lab.wg_bn, 256), 128);
    assert_int_equal(tdcl_mm_lab_or(lab.wg_stages, 6), 6);
    assert_int_equal(tdcl_mm_lab_parse(NULL, &lab, &e), TDCL_OK);
    assert_int_equal(lab.wgmma, -1);
    assert_int_equal(lab.stages, -1);
    assert_string_equal(lab.build, "");
    char big[300];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(tdcl_mm_lab_parse(big, &lab, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "longer than 255 bytes"));
}

/* Rules that hold on every device: fp32 stays fp32, tensor-core
 * precisions refuse other types and forced kernels, auto never picks them
 * for float64. */
static void test_resolve_rules(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_mm_opts o = {.lab = env_lab()};
    tdcl_mm_precision r = TDCL_MM_TF32;
    tdcl_err e = {0};
    assert_int_equal(tdcl_mm_precision_resolve(ctx, &o, &r, &e), TDCL_OK);
    assert_int_equal(r, TDCL_MM_FP32);
    o.precision = TDCL_MM_TF32;
    o.type = TDCL_F64;
    assert_int_equal(tdcl_mm_precision_resolve(ctx, &o, &r, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "float64"));
    o.type = TDCL_F32;
    o.kernel = TDCL_MM_TILED;
    assert_int_equal(tdcl_mm_precision_resolve(ctx, &o, &r, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "forced kernel"));
    o.kernel = TDCL_MM_AUTO;
    o.precision = TDCL_MM_PREC_AUTO;
    o.type = TDCL_F64;
    assert_int_equal(tdcl_mm_precision_resolve(ctx, &o, &r, &e), TDCL_OK);
    assert_int_equal(r, TDCL_MM_FP32);
}

/* Without the path: tf32 and 3xtf32 fail naming the device and why; auto
 * computes the exact float32 product. */
static void test_no_path(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    char why[128];
    if (tdcl_mm_tc_available(ctx, why, sizeof why)) {
        print_message("device has tensor cores: skipped\n");
        skip();
    }
    assert_true(why[0] != '\0');
    tdcl_matrix a = rand_mat(37, 29, 11, -1, 1), b = rand_mat(29, 41, 12, -1, 1), c = {0};
    const tdcl_mm_precision tc[] = {TDCL_MM_TF32, TDCL_MM_3XTF32};
    for (int i = 0; i < 2; i++) {
        tdcl_mm_opts o = {.lab = env_lab()};
        tdcl_mm_plan *p = NULL;
        tdcl_err e = {0};
        o.precision = tc[i];
        assert_int_equal(tdcl_mm_plan_create(ctx, &o, &a, &b, &p, &e), TDCL_EUNSUPPORTED);
        assert_null(p);
        assert_non_null(strstr(e.msg, ctx->dev.device_name));
        assert_non_null(strstr(e.msg, tdcl_mm_precision_name(tc[i])));
        assert_non_null(strstr(e.msg, why));
    }
    char desc[256];
    run_prec(ctx, TDCL_MM_PREC_AUTO, &a, &b, &c, desc, sizeof desc);
    assert_null(strstr(desc, "kernel=tc"));
    double *r = reference(&a, &b);
    double err = rel_err(&c, r);
    assert_true(err < 1e-6); /* float32 sums of 29 terms */
    free(r);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&c);
}

static int has_path(void **state)
{
    if (!*state) return 0;
    if (!tdcl_mm_tc_available(*state, NULL, 0)) {
        print_message("no tensor-core path on this device: skipped\n");
        return 0;
    }
    return 1;
}

/* Exact integer products: any misplaced fragment element shows. */
static void test_exact_small(void **state)
{
    if (!has_path(state)) skip();
    static const int64_t shapes[][3] = {{16, 8, 8},   {1, 1, 1},      {16, 64, 8},
                                        {33, 17, 45}, {130, 64, 129}, {64, 40, 256}};
    const tdcl_mm_precision precs[] = {TDCL_MM_TF32, TDCL_MM_3XTF32, TDCL_MM_PREC_AUTO};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int q = 0; q < 3; q++) {
            int64_t M = shapes[s][0], K = shapes[s][1], N = shapes[s][2];
            tdcl_matrix a = small_int_mat(M, K, 100 + s), b = small_int_mat(K, N, 200 + s), c = {0};
            char desc[256];
            run_prec(*state, precs[q], &a, &b, &c, desc, sizeof desc);
            assert_non_null(strstr(desc, "kernel=tc"));
            expect_exact(desc, &a, &b, &c);
            tdcl_matrix_free(&a);
            tdcl_matrix_free(&b);
            tdcl_matrix_free(&c);
        }
}

/* Random floats: tf32 within input rounding, 3xtf32 as good as fp32. */
static void test_random_shapes(void **state)
{
    if (!has_path(state)) skip();
    static const int64_t shapes[][3] = {{128, 128, 128}, {131, 67, 259}, {300, 257, 129},
                                        {7, 1000, 5},    {513, 96, 384}, {1024, 1024, 1024}};
    const size_t ntiles = sizeof tc_tiles / sizeof tc_tiles[0];
    for (size_t s = 0; s < ntiles * (sizeof shapes / sizeof shapes[0]); s++) {
        const int *tile = tc_tiles[s % ntiles];
        int64_t M = shapes[s / ntiles][0], K = shapes[s / ntiles][1], N = shapes[s / ntiles][2];
        tdcl_matrix a = rand_mat(M, K, 300 + s, -1, 1), b = rand_mat(K, N, 400 + s, -1, 1);
        tdcl_matrix c1 = {0}, c3 = {0}, cf = {0};
        char d1[256], d3[256];
        run_tiles(*state, TDCL_MM_TF32, tile, 0, &a, &b, &c1, d1, sizeof d1);
        run_tiles(*state, TDCL_MM_3XTF32, tile, 0, &a, &b, &c3, d3, sizeof d3);
        run_prec(*state, TDCL_MM_FP32, &a, &b, &cf, NULL, 0);
        double *r = reference(&a, &b), rn = 0;
        for (int64_t i = 0; i < M * N; i++)
            rn += r[i] * r[i];
        double e1 = rel_err(&c1, r), e3 = rel_err(&c3, r), ef = rel_err(&cf, r);
        /* TF32 inputs: each product off by up to 2^-10 relative, plus the
         * float32 sums; relative to ||A|| ||B|| like tdcl_mm_check_product */
        double scale = frob(&a) * frob(&b) / sqrt(rn);
        double b1 = (ldexp(1.0, -10) + 2.0 * (double)(K + 2) * ldexp(1.0, -24)) * scale;
        print_message("%lldx%lldx%lld: tf32 %.2e (bound %.2e)  3xtf32 %.2e  fp32 %.2e  [%s]\n",
                      (long long)M, (long long)K, (long long)N, e1, b1, e3, ef, d3);
        assert_true(e1 <= b1);
        assert_true(e1 > 1e-6); /* it really rounded to TF32 */
        assert_true(e3 <= 2.0 * ef + 1e-7);
        assert_true(e3 < e1 / 50);
        free(r);
        tdcl_matrix_free(&a);
        tdcl_matrix_free(&b);
        tdcl_matrix_free(&c1);
        tdcl_matrix_free(&c3);
        tdcl_matrix_free(&cf);
    }
}

/* The kernel with plain OpenCL C in place of the PTX (the lab's emulate),
 * on a device without the path: the fragment relabelling, the swizzles,
 * the pipeline's slab indexing, the tile remapping and the edges are
 * checked in every CI run, not only on an NVIDIA GPU. Exact small integer
 * products, aligned (K, N multiples of 4: 16-byte copies) and not, over
 * several tiles in both directions (GROUP_M remapping). The emulation is
 * the lab's alone: the library reads no environment variable for it. */
static void test_emulated(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    if (tdcl_mm_tc_available(ctx, NULL, 0)) {
        print_message("device has tensor cores: skipped\n");
        skip();
    }
    static const int tiles[][5] = {{64, 64, 8, 32, 32}, {64, 128, 32, 32, 64}};
    static const int64_t shapes[][3] = {{600, 40, 136}, {77, 37, 201}};
    const tdcl_mm_precision precs[] = {TDCL_MM_TF32, TDCL_MM_3XTF32};
    assert_int_equal(setenv("TILEDCL_TC_EMULATE", "1", 1), 0);
    assert_false(tdcl_mm_tc_available(ctx, NULL, 0));
    tdcl_mm_opts o = {.precision = TDCL_MM_TF32};
    tdcl_mm_precision r;
    assert_int_equal(tdcl_mm_precision_resolve(ctx, &o, &r, NULL), TDCL_EUNSUPPORTED);
    unsetenv("TILEDCL_TC_EMULATE");
    for (int q = 0; q < 2; q++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int64_t M = shapes[s][0], K = shapes[s][1], N = shapes[s][2];
            tdcl_matrix a = small_int_mat(M, K, 500 + s), b = small_int_mat(K, N, 600 + s), c = {0};
            char desc[256];
            run_tiles(ctx, precs[q], tiles[(s + q) % 2], 1, &a, &b, &c, desc, sizeof desc);
            assert_non_null(strstr(desc, "(emulated)"));
            expect_exact(desc, &a, &b, &c);
            tdcl_matrix_free(&a);
            tdcl_matrix_free(&b);
            tdcl_matrix_free(&c);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),         cmocka_unit_test(test_lab_parse),
        cmocka_unit_test(test_resolve_rules), cmocka_unit_test(test_no_path),
        cmocka_unit_test(test_exact_small),   cmocka_unit_test(test_random_shapes),
        cmocka_unit_test(test_emulated),
    };
    return tdcl_test_exit(
        cmocka_run_group_tests(tests, tdcl_test_ctx_setup, tdcl_test_ctx_teardown));
}
