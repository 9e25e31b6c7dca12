/* matmul on the device: every kernel and type on random shapes (1xK.Kx1,
 * K=1, primes, non-multiples of every tile) against a naive host product
 * written here, the seeds' examples, every tile from 1 to 32, a sample of
 * the CPU and GPU kernels' parameter sets, panels forced by a small
 * allocation limit, the host check behind --verify, and the errors. The
 * output buffer is poisoned (NaN / a bit pattern) before every run, so an
 * element no kernel wrote fails the comparison. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "ops/matmul/matmul.h"
#include "ops/matmul/matmul_lab.h"
#include "ops/matmul/mm_table.h"

static tdcl_matrix rand_mat(int64_t rows, int64_t cols, tdcl_dtype t, uint64_t seed, double lo,
                            double hi)
{
    tdcl_matrix m;
    tdcl_err e = {0};
    assert_int_equal(tdcl_matrix_alloc(&m, rows, cols, 1, t, &e), TDCL_OK);
    tdcl_test_fill(&m, seed, lo, hi);
    return m;
}

static tdcl_matrix from_rows(int64_t rows, int64_t cols, tdcl_dtype t, const double *v)
{
    tdcl_matrix m;
    tdcl_err e = {0};
    assert_int_equal(tdcl_matrix_alloc(&m, rows, cols, 1, t, &e), TDCL_OK);
    for (int64_t i = 0; i < rows * cols; i++) {
        if (t == TDCL_I64)
            ((int64_t *)m.data)[i] = (int64_t)v[i];
        else if (t == TDCL_F64)
            ((double *)m.data)[i] = v[i];
        else
            ((float *)m.data)[i] = (float)v[i];
    }
    return m;
}

/* The naive triple loop in double of the inputs as the device sees them
 * (rounded to float first when the product is float32). */
static double *naive_f64(const tdcl_matrix *a, const tdcl_matrix *b, tdcl_dtype as)
{
    int64_t M = a->rows, K = a->cols, N = b->cols;
    double *r = calloc((size_t)(M * N), sizeof *r);
    assert_non_null(r);
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double s = 0;
            for (int64_t k = 0; k < K; k++) {
                double x = tdcl_matrix_get_f64(a, (size_t)(i * K + k));
                double y = tdcl_matrix_get_f64(b, (size_t)(k * N + j));
                if (as == TDCL_F32) x = (float)x, y = (float)y;
                s += x * y;
            }
            r[i * N + j] = s;
        }
    return r;
}

static double rel_frob(const tdcl_matrix *c, const double *r)
{
    double d = 0, n = 0;
    for (size_t e = 0; e < tdcl_matrix_count(c); e++) {
        double v = tdcl_matrix_get_f64(c, e);
        d += (v - r[e]) * (v - r[e]);
        n += r[e] * r[e];
    }
    return n > 0 ? sqrt(d / n) : sqrt(d);
}

/* Exact int64 check with an independent loop (uint64 wraps like the device). */
static void expect_exact(const tdcl_matrix *a, const tdcl_matrix *b, const tdcl_matrix *c)
{
    int64_t M = a->rows, K = a->cols, N = b->cols;
    assert_int_equal(c->dtype, TDCL_I64);
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            uint64_t s = 0;
            for (int64_t k = 0; k < K; k++)
                s += (uint64_t)tdcl_matrix_get_i64(a, (size_t)(i * K + k)) *
                     (uint64_t)tdcl_matrix_get_i64(b, (size_t)(k * N + j));
            if ((int64_t)s != ((int64_t *)c->data)[i * N + j])
                fail_msg("C[%" PRId64 "][%" PRId64 "] = %" PRId64 ", expected %" PRId64, i, j,
                         ((int64_t *)c->data)[i * N + j], (int64_t)s);
        }
}

/* Runs the product through a plan and checks it against the naive loop. */
static void run_case(tdcl_ctx *ctx, tdcl_mm_opts o, int64_t M, int64_t K, int64_t N,
                     tdcl_dtype in_type, uint64_t seed)
{
    tdcl_matrix a = rand_mat(M, K, in_type, seed, -1, 1),
                b = rand_mat(K, N, in_type, seed + 7, -1, 1);
    if (tdcl_dtype_is_int(in_type)) {
        tdcl_test_fill(&a, seed, -1000, 1000);
        tdcl_test_fill(&b, seed + 7, -1000, 1000);
    }
    tdcl_matrix c = {0};
    tdcl_mm_plan *p = NULL;
    tdcl_err e = {0};
    o.poison = 1;
    if (tdcl_mm_plan_create(ctx, &o, &a, &b, &p, &e) != TDCL_OK)
        fail_msg("%" PRId64 "x%" PRId64 "x%" PRId64 ": %s", M, K, N, e.msg);
    double ms = -1;
    assert_int_equal(tdcl_mm_plan_execute(p, &ms, &e), TDCL_OK);
    assert_true(ms >= 0);
    assert_int_equal(tdcl_mm_plan_result(p, &c, &e), TDCL_OK);
    assert_int_equal(c.rows, M);
    assert_int_equal(c.cols, N);
    if (o.type == TDCL_I64) {
        expect_exact(&a, &b, &c);
    } else {
        double *r = naive_f64(&a, &b, o.type);
        double err = rel_frob(&c, r), tol = o.type == TDCL_F32 ? 1e-5 : 1e-12;
        if (!(err < tol))
            fail_msg("%" PRId64 "x%" PRId64 "x%" PRId64 " %s: relative error %g (%s)", M, K, N,
                     tdcl_dtype_name(o.type), err, tdcl_mm_plan_describe(p));
        free(r);
    }
    tdcl_mm_plan_destroy(p);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&c);
}

/* M, K, N: vectors, K = 1, primes, and sizes straddling the blocks. */
static const int64_t shapes[][3] = {{1, 1, 1},    {1, 300, 1},    {300, 1, 7},
                                    {37, 1, 29},  {1, 33, 130},   {17, 31, 13},
                                    {33, 17, 65}, {130, 70, 129}, {257, 67, 31}};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static void all_shapes(void **state, tdcl_mm_kernel k, tdcl_dtype t, tdcl_dtype in)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    if (t == TDCL_F64 && !ctx->dev.fp64) skip();
    tdcl_mm_opts o = {.type = t, .kernel = k};
    if (k == TDCL_MM_GPU) /* one build per type: each costs PoCL seconds */
        o.par.bm = o.par.bn = 64, o.par.bk = 16;
    for (size_t i = 0; i < NSHAPES; i++)
        run_case(ctx, o, shapes[i][0], shapes[i][1], shapes[i][2], in, 100 + i);
}

static void test_tiled_f32(void **state)
{
    all_shapes(state, TDCL_MM_TILED, TDCL_F32, TDCL_F32);
}
static void test_cpu_f32(void **state)
{
    all_shapes(state, TDCL_MM_CPU, TDCL_F32, TDCL_F32);
}
static void test_gpu_f32(void **state)
{
    all_shapes(state, TDCL_MM_GPU, TDCL_F32, TDCL_F32);
}
static void test_auto_f32_from_f64(void **state)
{
    all_shapes(state, TDCL_MM_AUTO, TDCL_F32, TDCL_F64);
}
static void test_tiled_f64(void **state)
{
    all_shapes(state, TDCL_MM_TILED, TDCL_F64, TDCL_F64);
}
static void test_cpu_f64(void **state)
{
    all_shapes(state, TDCL_MM_CPU, TDCL_F64, TDCL_F64);
}
static void test_gpu_f64(void **state)
{
    all_shapes(state, TDCL_MM_GPU, TDCL_F64, TDCL_F64);
}
static void test_tiled_i64(void **state)
{
    all_shapes(state, TDCL_MM_TILED, TDCL_I64, TDCL_I64);
}
static void test_cpu_i64(void **state)
{
    all_shapes(state, TDCL_MM_CPU, TDCL_I64, TDCL_I32);
}
static void test_gpu_i64(void **state)
{
    all_shapes(state, TDCL_MM_GPU, TDCL_I64, TDCL_I64);
}

/* Integer products past 2^53, where a double accumulation would round. */
static void test_int_exact_large(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix a = rand_mat(9, 40, TDCL_I64, 5, -(1 << 28), 1 << 28);
    tdcl_matrix b = rand_mat(40, 11, TDCL_I32, 6, -(1 << 28), 1 << 28);
    tdcl_mm_kernel ks[] = {TDCL_MM_TILED, TDCL_MM_CPU, TDCL_MM_GPU};
    for (size_t i = 0; i < 3; i++) {
        tdcl_mm_opts o = {.type = TDCL_I64, .kernel = ks[i], .poison = 1};
        if (ks[i] == TDCL_MM_GPU) o.par.bm = o.par.bn = 64, o.par.bk = 16;
        tdcl_matrix c = {0};
        tdcl_err e = {0};
        assert_int_equal(tdcl_mm_run(*state, &o, &a, &b, &c, &e), TDCL_OK);
        expect_exact(&a, &b, &c);
        /* at least one sum really is past double's exact range */
        int big = 0;
        for (size_t k = 0; k < tdcl_matrix_count(&c); k++)
            big |= llabs(((int64_t *)c.data)[k]) > (1LL << 53);
        assert_true(big);
        tdcl_matrix_free(&c);
    }
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
}

/* 3x2 by 2x3 integers: 47 52 57 / 64 71 78 / 81 90 99, exactly. */
static void test_seed_int_example(void **state)
{
    TDCL_NEED_DEVICE(state);
    const double av[] = {1, 4, 2, 5, 3, 6}, bv[] = {7, 8, 9, 10, 11, 12};
    const int64_t want[] = {47, 52, 57, 64, 71, 78, 81, 90, 99};
    tdcl_matrix a = from_rows(3, 2, TDCL_I64, av), b = from_rows(2, 3, TDCL_I64, bv), c = {0};
    tdcl_mm_opts o = {.type = TDCL_I64, .poison = 1};
    tdcl_err e = {0};
    assert_int_equal(tdcl_mm_run(*state, &o, &a, &b, &c, &e), TDCL_OK);
    assert_int_equal(c.dtype, TDCL_I64);
    for (int i = 0; i < 9; i++)
        assert_int_equal(((int64_t *)c.data)[i], want[i]);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&c);
}

/* The 4x4 tiled example: A = B = rows 1 2 3 4 / 5 6 7 8 repeated, with a
 * 2x2 tile so the product really crosses tiles; C[0][0] = 34. */
static void test_seed_4x4_example(void **state)
{
    TDCL_NEED_DEVICE(state);
    const double v[] = {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8};
    tdcl_matrix a = from_rows(4, 4, TDCL_F32, v), c = {0};
    tdcl_mm_opts o = {.tile = 2, .poison = 1};
    tdcl_err e = {0};
    assert_int_equal(tdcl_mm_run(*state, &o, &a, &a, &c, &e), TDCL_OK);
    double *r = naive_f64(&a, &a, TDCL_F32);
    assert_true(((float *)c.data)[0] == 34.0f);
    for (int i = 0; i < 16; i++)
        assert_true(((float *)c.data)[i] == (float)r[i]);
    free(r);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&c);
}

/* Tiles from 1 to 32 the device allows, on a shape that is a multiple of
 * none of them past 1. Each tile is a build that costs PoCL ~0.7 s from
 * cold, so by default 1 to 9 and a spread up to 32 (16 sizes);
 * TDCL_TEST_ALL_TILES=1 runs every one. */
static void test_every_tile(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    static const int spread[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32};
    int all = getenv("TDCL_TEST_ALL_TILES") != NULL;
    int n = all ? 32 : (int)(sizeof spread / sizeof spread[0]);
    tdcl_matrix a = rand_mat(37, 41, TDCL_F32, 11, -1, 1),
                b = rand_mat(41, 29, TDCL_F32, 12, -1, 1);
    double *r = naive_f64(&a, &b, TDCL_F32);
    int ran = 0;
    for (int i = 0; i < n; i++) {
        int t = all ? i + 1 : spread[i];
        if ((size_t)t * t > ctx->dev.max_wg) break;
        tdcl_mm_opts o = {.tile = t, .poison = 1};
        tdcl_matrix c = {0};
        tdcl_err e = {0};
        tdcl_status st = tdcl_mm_run(ctx, &o, &a, &b, &c, &e);
        /* The built kernel may allow fewer work-items than the device
         * (registers): past that a forced tile is refused clearly, as it
         * must be, and larger tiles need not be tried. */
        if (st == TDCL_ELIMIT && strstr(e.msg, "work-items per group")) break;
        if (st != TDCL_OK) fail_msg("tile %d: %s", t, e.msg);
        if (!(rel_frob(&c, r) < 1e-5)) fail_msg("tile %d: relative error %g", t, rel_frob(&c, r));
        tdcl_matrix_free(&c);
        ran++;
    }
    assert_true(ran >= 8);
    free(r);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
}

/* The parameter sets a tuner may choose, with short uneven K passes. */
static void test_cpu_param_sample(void **state)
{
    TDCL_NEED_DEVICE(state);
    static const int sets[][4] = {{1, 1, 2, 5}, {3, 2, 4, 7}, {4, 1, 16, 16}, {5, 3, 8, 0}};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        tdcl_mm_opts o = {
            .kernel = TDCL_MM_CPU,
            .par = {.mr = sets[i][0], .nv = sets[i][1], .vw = sets[i][2], .kc = sets[i][3]}};
        run_case(*state, o, 29, 45, 53, TDCL_F32, 200 + i);
    }
}

/* Every built-in GPU set (tune.c's table) and a sample of the ones the
 * tuner searches (tune.c's gpu_space: blocks 4..16 each way, warp teams
 * 4/8/16 wide or the whole group, one or two buffers, both A load orders,
 * A transposed first, K split, unpadded local rows, fragments read ahead,
 * tiles in bands), each on an aligned shape with interior
 * tiles and an odd one with edges and a partial slab. PoCL compiles each
 * set for seconds: a handful. */
static const char *const gpu_sample[] = {
    "bm=128 bn=128 bk=16 tm=8 tn=8 wx=16 wy=16 nbuf=2 aload=1 atrans=1 pad=1 frag=2 swz=3",
    "bm=64 bn=128 bk=8 tm=8 tn=16 wx=8 wy=4 nbuf=2 aload=1 atrans=2",
    "bm=64 bn=32 bk=16 tm=4 tn=4 wx=4 wy=8 nbuf=1 aload=2 atrans=1 ksplit=3 swz=2",
    "bm=32 bn=64 bk=32 tm=16 tn=4 wx=16 wy=2 nbuf=2 aload=2 atrans=2 ksplit=2",
};

/* Runs the gpu kernel with the parameter set, lab's overrides (may be
 * NULL) on a product of whole tiles and one with ragged edges. */
static void gpu_set_case(void **state, const char *set, const tdcl_mm_lab *lab, uint64_t seed)
{
    tdcl_mm_opts o = {.kernel = TDCL_MM_GPU, .lab = lab};
    tdcl_err e = {0};
    assert_int_equal(tdcl_mm_params_parse(set, &o.par, &e), TDCL_OK);
    run_case(*state, o, 2 * o.par.bm, 4 * o.par.bk, 2 * o.par.bn, TDCL_F32, seed);
    run_case(*state, o, o.par.bm + 7, 3 * o.par.bk + 5, o.par.bn + 3, TDCL_F32, seed + 1);
}

static void test_gpu_param_sample(void **state)
{
    TDCL_NEED_DEVICE(state);
    for (size_t i = 0; i < sizeof gpu_sample / sizeof gpu_sample[0]; i++)
        gpu_set_case(state, gpu_sample[i], NULL, 300 + 2 * i);
    const char *set;
    tdcl_mm_kernel k;
    for (size_t i = 0; (set = tdcl_mm_table_builtin(i, &k)) != NULL; i++) {
        int seen = 0; /* rows share sets */
        for (size_t j = 0; j < i; j++) {
            tdcl_mm_kernel kj;
            seen |= strcmp(tdcl_mm_table_builtin(j, &kj), set) == 0;
        }
        if (k == TDCL_MM_GPU && !seen) gpu_set_case(state, set, NULL, 400 + 2 * i);
    }
    /* the old fixed shapes: float4 fast path, an oblong tile */
    tdcl_mm_opts o = {.kernel = TDCL_MM_GPU, .par = {.bm = 32, .bn = 64, .bk = 8}};
    run_case(*state, o, 131, 37, 70, TDCL_F32, 302);
}

/* Plans a product of the given shape and says whether its description
 * holds `what`. */
static int plan_says(tdcl_ctx *ctx, tdcl_mm_opts o, const int64_t d[3], const char *what)
{
    tdcl_dtype t = o.type == TDCL_I64 ? TDCL_I64 : TDCL_F32;
    tdcl_matrix a = rand_mat(d[0], d[1], t, 600, -1, 1), b = rand_mat(d[1], d[2], t, 601, -1, 1);
    tdcl_mm_plan *p = NULL;
    tdcl_err e = {0};
    if (tdcl_mm_plan_create(ctx, &o, &a, &b, &p, &e) != TDCL_OK) fail_msg("%s", e.msg);
    int said = strstr(tdcl_mm_plan_describe(p), what) != NULL;
    tdcl_mm_plan_destroy(p);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    return said;
}

/* The last wave split along K (tail=S, forced here: the automatic split
 * is for GPUs): tiles in the wave after the whole ones with edges and a
 * partial slab (float32, float64), a whole single wave, bands of tiles,
 * int64, and panels along K, where the wave's sums are added to C's.
 * ksplit=1, since a GPU would split the deep product's K by itself. */
static void test_gpu_tail(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    static const struct {
        const char *set;
        int64_t d[3];
        tdcl_dtype type;
        size_t max_alloc;
    } cases[] = {
        {"bm=32 bn=32 bk=16 tm=4 tn=4 wx=8 wy=4 nbuf=2 atrans=2 ksplit=1 tail=3",
         {229, 61, 579},
         TDCL_F32,
         0},
        {"bm=32 bn=32 bk=16 tm=4 tn=4 wx=8 wy=4 nbuf=2 atrans=2 ksplit=1 tail=3",
         {229, 61, 579},
         TDCL_F64,
         0},
        {"bm=32 bn=32 bk=16 tm=4 tn=4 wx=8 wy=4 nbuf=2 atrans=2 ksplit=1 tail=3",
         {33, 200, 130},
         TDCL_I64,
         0},
        {"bm=32 bn=32 bk=16 tm=4 tn=4 wx=8 wy=4 nbuf=2 atrans=2 ksplit=1 tail=3",
         {69, 4103, 67},
         TDCL_F32,
         256 * 1024},
        {"bm=32 bn=64 bk=8 tm=4 tn=8 wx=8 wy=4 nbuf=1 aload=2 atrans=1 swz=2 ksplit=1 tail=5",
         {229, 61, 579},
         TDCL_F32,
         0},
        {"bm=32 bn=64 bk=8 tm=4 tn=8 wx=8 wy=4 nbuf=1 aload=2 atrans=1 swz=2 ksplit=1 tail=5",
         {64, 128, 64},
         TDCL_F32,
         0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tdcl_mm_opts o = {.kernel = TDCL_MM_GPU, .type = cases[i].type};
        o.max_alloc = cases[i].max_alloc;
        tdcl_err e = {0};
        const int64_t *d = cases[i].d;
        assert_int_equal(tdcl_mm_params_parse(cases[i].set, &o.par, &e), TDCL_OK);
        if (o.type == TDCL_F64 && !ctx->dev.fp64) continue;
        assert_true(plan_says(ctx, o, d, " last-wave="));
        if (o.max_alloc) assert_false(plan_says(ctx, o, d, "panels=1x1x1"));
        run_case(ctx, o, d[0], d[1], d[2], o.type, 610 + i);
    }
    /* tail=1 keeps every wave whole */
    tdcl_mm_opts o = {.kernel = TDCL_MM_GPU, .par = {.bm = 32, .bn = 32, .tail = 1}};
    assert_false(plan_says(ctx, o, cases[0].d, "last-wave"));
}

/* cp=2, the cp.async slab copies, through plain copies (the lab's
 * emulate) where the device lacks them: aligned products with interior
 * tiles, ragged M and K (zero-filled copies), and N not a multiple of 4,
 * where the plan stages through registers instead. Without the emulation
 * a device without cp.async refuses the set, whatever the environment
 * says: the library reads no variable for it. */
static void test_gpu_cp_async(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_mm_params p = {0};
    tdcl_err e = {0};
    const char *three = "bm=64 bn=64 bk=8 tm=8 tn=8 wx=8 wy=4 nbuf=3 atrans=2 cp=2 frag=2 pad=1";
    assert_int_equal(tdcl_mm_params_parse(three, &p, &e), TDCL_OK);
    tdcl_mm_params_defaults(ctx, TDCL_MM_GPU, TDCL_F32, 128, 128, 128, &p);
    tdcl_mm_lab emu;
    tdcl_mm_lab_init(&emu);
    emu.emulate = 1;
    if (!tdcl_mm_cp_async_ok(&ctx->dev)) {
        assert_int_equal(setenv("TILEDCL_TC_EMULATE", "1", 1), 0);
        assert_int_equal(tdcl_mm_params_check(&ctx->dev, TDCL_MM_GPU, &p, 4, NULL, &e),
                         TDCL_ELIMIT);
        assert_non_null(strstr(e.msg, "cp.async"));
        tdcl_mm_opts o = {.kernel = TDCL_MM_GPU, .par = p};
        tdcl_matrix a = rand_mat(8, 8, TDCL_F32, 1, -1, 1), b = rand_mat(8, 8, TDCL_F32, 2, -1, 1);
        tdcl_mm_plan *pl = NULL;
        assert_int_equal(tdcl_mm_plan_create(ctx, &o, &a, &b, &pl, &e), TDCL_ELIMIT);
        assert_null(pl);
        assert_non_null(strstr(e.msg, "cp.async"));
        unsetenv("TILEDCL_TC_EMULATE");
        tdcl_matrix_free(&a);
        tdcl_matrix_free(&b);
    }
    assert_int_equal(tdcl_mm_params_check(&ctx->dev, TDCL_MM_GPU, &p, 4, &emu, &e), TDCL_OK);
    p.cp = 1; /* three buffers need the copies */
    assert_int_equal(tdcl_mm_params_check(&ctx->dev, TDCL_MM_GPU, &p, 4, NULL, &e), TDCL_ELIMIT);
    static const char *const sets[] = {
        "bm=64 bn=64 bk=8 tm=8 tn=8 wx=8 wy=4 nbuf=3 atrans=2 cp=2 frag=2 pad=1",
        "bm=32 bn=64 bk=16 tm=4 tn=8 wx=8 wy=4 nbuf=2 atrans=2 cp=2 ksplit=2 swz=2"};
    /* natively where the device has cp.async, then emulated everywhere */
    for (int emulate = !tdcl_mm_cp_async_ok(&ctx->dev); emulate < 2; emulate++) {
        const tdcl_mm_lab *lab = emulate ? &emu : NULL;
        for (size_t i = 0; i < 2; i++) {
            tdcl_mm_opts o = {.kernel = TDCL_MM_GPU, .lab = lab};
            assert_int_equal(tdcl_mm_params_parse(sets[i], &o.par, &e), TDCL_OK);
            gpu_set_case(state, sets[i], lab, 500 + 4 * i);
            run_case(ctx, o, o.par.bm + 6, 3 * o.par.bk + 5, o.par.bn + 4, TDCL_F32, 502 + 4 * i);
        }
    }
}

/* A device of 32 KiB of local memory, the least OpenCL allows (the limit
 * lowered here): the default 128x128 tile of 8-byte elements needs 33,792
 * bytes at the smallest slab, so it shrinks to one that fits; a tile given
 * is kept, and refused. */
static void test_gpu_small_local(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    const cl_ulong local = ctx->dev.local_mem;
    const size_t wg = ctx->dev.max_wg;
    ctx->dev.local_mem = 32768;
    ctx->dev.max_wg = 1024;
    const tdcl_dtype types[] = {TDCL_F64, TDCL_I64};
    for (int i = 0; i < 2; i++) {
        tdcl_mm_params p = {0};
        tdcl_err e = {0};
        tdcl_mm_params_defaults(ctx, TDCL_MM_GPU, types[i], 4096, 4096, 4096, &p);
        assert_int_equal(tdcl_mm_params_check(&ctx->dev, TDCL_MM_GPU, &p, 8, NULL, &e), TDCL_OK);
        assert_int_equal(p.bm, 64);
        assert_int_equal(p.bn, 64);
        p = (tdcl_mm_params){.bm = 128, .bn = 128};
        tdcl_mm_params_defaults(ctx, TDCL_MM_GPU, types[i], 4096, 4096, 4096, &p);
        assert_int_equal(tdcl_mm_params_check(&ctx->dev, TDCL_MM_GPU, &p, 8, NULL, &e),
                         TDCL_ELIMIT);
        assert_non_null(strstr(e.msg, "local memory"));
    }
    ctx->dev.local_mem = local;
    ctx->dev.max_wg = wg;
}

/* A long K under a small C splits K over groups by itself (gpu shape),
 * unless ksplit is given. */
static void test_auto_ksplit(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_matrix a = rand_mat(20, 700, TDCL_F32, 61, -1, 1),
                b = rand_mat(700, 24, TDCL_F32, 62, -1, 1);
    tdcl_mm_opts o = {.kernel = TDCL_MM_GPU, .par = {.bm = 32, .bn = 32, .bk = 16}};
    tdcl_mm_plan *p = NULL;
    tdcl_err e = {0};
    unsigned cu = ctx->dev.compute_units;
    ctx->dev.compute_units = 8; /* the same decision on any device */
    assert_int_equal(tdcl_mm_plan_create(ctx, &o, &a, &b, &p, &e), TDCL_OK);
    ctx->dev.compute_units = cu;
    tdcl_mm_plan_info info;
    tdcl_mm_plan_get_info(p, &info);
    assert_int_equal(info.kernel, TDCL_MM_GPU);
    assert_int_equal(info.par.ksplit, 8);
    assert_int_equal(info.tile_rows, 32);
    tdcl_mm_plan_destroy(p);
    o.poison = 1;
    run_case(ctx, o, 20, 700, 24, TDCL_F32, 63);
    o.par.ksplit = 1;
    assert_int_equal(tdcl_mm_plan_create(ctx, &o, &a, &b, &p, &e), TDCL_OK);
    tdcl_mm_plan_get_info(p, &info);
    assert_int_equal(info.par.ksplit, 1);
    tdcl_mm_plan_destroy(p);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
}

/* Parameter text: round trip, partial updates, errors naming the key. */
static void test_params_text(void **state)
{
    (void)state;
    tdcl_mm_params p = {0}, q = {0};
    tdcl_err e = {0};
    char buf[256];
    assert_int_equal(tdcl_mm_params_parse(gpu_sample[1], &p, &e), TDCL_OK);
    assert_int_equal(p.bn, 128);
    assert_int_equal(p.tn, 16);
    assert_int_equal(p.atrans, 2);
    assert_string_equal(tdcl_mm_params_format(&p, TDCL_MM_GPU, buf, sizeof buf), gpu_sample[1]);
    assert_int_equal(tdcl_mm_params_parse(buf, &q, &e), TDCL_OK);
    assert_memory_equal(&p, &q, sizeof p);
    assert_int_equal(tdcl_mm_params_parse("mr=4,kc=512", &p, &e), TDCL_OK);
    assert_string_equal(tdcl_mm_params_format(&p, TDCL_MM_CPU, buf, sizeof buf), "mr=4 kc=512");
    assert_int_equal(tdcl_mm_params_parse("bm=64 bogus=3", &p, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "'bogus=3'"));
    assert_int_equal(tdcl_mm_params_parse("bm=0", &p, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "'bm'"));
    assert_int_equal(tdcl_mm_params_parse("tm=8x", &p, &e), TDCL_EINVAL);
}

/* A 4 KiB allocation limit splits the product along M, K and N. */
static void test_panels(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_mm_kernel ks[] = {TDCL_MM_TILED, TDCL_MM_CPU, TDCL_MM_GPU};
    tdcl_matrix a = rand_mat(70, 90, TDCL_F32, 21, -1, 1),
                b = rand_mat(90, 50, TDCL_F32, 22, -1, 1);
    for (size_t i = 0; i < 3; i++) {
        tdcl_mm_opts o = {.kernel = ks[i], .max_alloc = 4096};
        if (ks[i] == TDCL_MM_GPU) /* the build of test_gpu_f32 and _i64 */
            o.par.bm = o.par.bn = 64, o.par.bk = 16;
        tdcl_mm_plan *p = NULL;
        tdcl_err e = {0};
        assert_int_equal(tdcl_mm_plan_create(ctx, &o, &a, &b, &p, &e), TDCL_OK);
        tdcl_mm_plan_info info;
        tdcl_mm_plan_get_info(p, &info);
        assert_int_equal(info.kernel, ks[i]);
        assert_true(info.panels_m * info.panels_k * info.panels_n > 1);
        assert_null(strstr(tdcl_mm_plan_describe(p), "panels=1x1x1"));
        tdcl_mm_plan_destroy(p);
        run_case(ctx, o, 70, 90, 50, TDCL_F32, 21);
        o.type = TDCL_I64;
        run_case(ctx, o, 41, 77, 23, TDCL_I64, 23);
    }
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
}

/* A plan runs again and again with the same result. */
static void test_plan_reuse(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix a = rand_mat(40, 50, TDCL_F32, 31, -1, 1),
                b = rand_mat(50, 60, TDCL_F32, 32, -1, 1);
    tdcl_mm_plan *p = NULL;
    tdcl_matrix c1 = {0}, c2 = {0};
    tdcl_err e = {0};
    tdcl_mm_opts o = {.poison = 1};
    assert_int_equal(tdcl_mm_plan_create(*state, &o, &a, &b, &p, &e), TDCL_OK);
    assert_non_null(strstr(tdcl_mm_plan_describe(p), "kernel="));
    assert_int_equal(tdcl_mm_plan_execute(p, NULL, &e), TDCL_OK);
    assert_int_equal(tdcl_mm_plan_result(p, &c1, &e), TDCL_OK);
    assert_int_equal(tdcl_mm_plan_execute(p, NULL, &e), TDCL_OK);
    assert_int_equal(tdcl_mm_plan_result(p, &c2, &e), TDCL_OK);
    assert_memory_equal(c1.data, c2.data, 40 * 60 * sizeof(float));
    double *r = naive_f64(&a, &b, TDCL_F32);
    assert_true(rel_frob(&c1, r) < 1e-5);
    free(r);
    tdcl_mm_plan_destroy(p);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&c1);
    tdcl_matrix_free(&c2);
}

/* Borrowed inputs on a CPU device: the plan says when each has been read
 * for the last time, A before B, once per execute; the caller may then
 * scribble over them (here: NaN) and the product is still right. On other
 * devices (nothing borrowed) it is never called. */
typedef struct reads {
    int order[4], n;
    tdcl_matrix *in[2];
} reads;

static void note_read(void *user, int which)
{
    reads *r = user;
    if (r->n < 4) r->order[r->n] = which;
    r->n++;
    float *d = r->in[which]->data;
    for (size_t i = 0; i < tdcl_matrix_count(r->in[which]); i++)
        d[i] = NAN;
}

static void test_input_read(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_matrix a = rand_mat(70, 90, TDCL_F32, 41, -1, 1),
                b = rand_mat(90, 50, TDCL_F32, 42, -1, 1);
    tdcl_matrix a0 = a, b0 = b, c = {0};
    a0.data = malloc(70 * 90 * sizeof(float));
    b0.data = malloc(90 * 50 * sizeof(float));
    memcpy(a0.data, a.data, 70 * 90 * sizeof(float));
    memcpy(b0.data, b.data, 90 * 50 * sizeof(float));
    reads r = {.in = {&a, &b}};
    tdcl_mm_opts o = {.borrow_inputs = 1, .input_read = note_read, .input_user = &r};
    tdcl_mm_plan *p = NULL;
    tdcl_err e = {0};
    assert_int_equal(tdcl_mm_plan_create(ctx, &o, &a, &b, &p, &e), TDCL_OK);
    assert_int_equal(tdcl_mm_plan_execute(p, NULL, &e), TDCL_OK);
    assert_int_equal(tdcl_mm_plan_result(p, &c, &e), TDCL_OK);
    double *ref = naive_f64(&a0, &b0, TDCL_F32);
    assert_true(rel_frob(&c, ref) < 1e-5);
    if (ctx->dev.type & CL_DEVICE_TYPE_CPU) {
        assert_int_equal(r.n, 2);
        assert_int_equal(r.order[0], 0);
        assert_int_equal(r.order[1], 1);
    } else {
        assert_int_equal(r.n, 0);
    }
    free(ref);
    tdcl_mm_plan_destroy(p);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&a0);
    tdcl_matrix_free(&b0);
    tdcl_matrix_free(&c);
}

/* Mixed inputs: int32 x int64 is exact; int x float computes in the float type. */
static void test_mixed_inputs(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_mm_opts o = {.type = TDCL_I64};
    run_case(*state, o, 19, 23, 17, TDCL_I32, 41);
    tdcl_matrix a = rand_mat(12, 9, TDCL_I32, 42, -50, 50),
                b = rand_mat(9, 14, TDCL_F64, 43, -1, 1);
    tdcl_matrix c = {0};
    tdcl_err e = {0};
    tdcl_mm_opts f = {.type = TDCL_F32, .poison = 1};
    assert_int_equal(tdcl_mm_run(*state, &f, &a, &b, &c, &e), TDCL_OK);
    assert_int_equal(c.dtype, TDCL_F32);
    double *r = naive_f64(&a, &b, TDCL_F32);
    assert_true(rel_frob(&c, r) < 1e-5);
    free(r);
    tdcl_matrix_free(&c);
    /* an exact product of a float input is refused */
    assert_int_equal(tdcl_mm_run(*state, &o, &a, &b, &c, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "integer inputs"));
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
}

static void test_errors(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_matrix a = rand_mat(3, 2, TDCL_F32, 1, -1, 1), b = rand_mat(3, 3, TDCL_F32, 2, -1, 1);
    tdcl_matrix c = {0};
    tdcl_err e = {0};
    tdcl_mm_opts o = {0};
    assert_int_equal(tdcl_mm_run(ctx, &o, &a, &b, &c, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "3x2"));
    assert_non_null(strstr(e.msg, "3x3"));
    tdcl_matrix_free(&b);
    b = rand_mat(2, 3, TDCL_F32, 2, -1, 1);

    o.tile = 100; /* 10000 work-items: past every device's group limit */
    assert_int_equal(tdcl_mm_run(ctx, &o, &a, &b, &c, &e), TDCL_ELIMIT);
    assert_non_null(strstr(e.msg, "tile 100"));
    assert_non_null(strstr(e.msg, "largest"));
    o.kernel = TDCL_MM_CPU; /* a tile is for the tiled kernel only */
    assert_int_equal(tdcl_mm_run(ctx, &o, &a, &b, &c, &e), TDCL_EINVAL);
    tdcl_mm_opts bad_cpu = {.kernel = TDCL_MM_CPU, .par = {.vw = 3}};
    assert_int_equal(tdcl_mm_run(ctx, &bad_cpu, &a, &b, &c, &e), TDCL_ELIMIT);
    tdcl_mm_opts bad_gpu = {.kernel = TDCL_MM_GPU, .par = {.bm = 12, .tm = 8}};
    assert_int_equal(tdcl_mm_run(ctx, &bad_gpu, &a, &b, &c, &e), TDCL_ELIMIT);
    tdcl_mm_opts bad_type = {.type = TDCL_U8};
    assert_int_equal(tdcl_mm_run(ctx, &bad_type, &a, &b, &c, &e), TDCL_EINVAL);

    int fp64 = ctx->dev.fp64; /* pretend the device lacks double precision */
    ctx->dev.fp64 = 0;
    tdcl_mm_opts f64 = {.type = TDCL_F64};
    assert_int_equal(tdcl_mm_run(ctx, &f64, &a, &b, &c, &e), TDCL_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, ctx->dev.device_name));
    ctx->dev.fp64 = fp64;

    tdcl_mm_kernel k;
    assert_int_equal(tdcl_mm_kernel_parse("gpu", &k, &e), TDCL_OK);
    assert_int_equal(k, TDCL_MM_GPU);
    assert_int_equal(tdcl_mm_kernel_parse("fast", &k, &e), TDCL_EINVAL);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
}

/* The host check accepts a right product and catches one wrong element. */
static void test_check_product(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix a = rand_mat(33, 70, TDCL_F64, 51, -1, 1),
                b = rand_mat(70, 45, TDCL_F64, 52, -1, 1);
    tdcl_matrix c = {0};
    tdcl_err e = {0};
    tdcl_mm_check chk;
    tdcl_mm_opts o = {0};
    assert_int_equal(tdcl_mm_run(*state, &o, &a, &b, &c, &e), TDCL_OK);
    assert_int_equal(tdcl_mm_check_product(&a, &b, &c, &chk, &e), TDCL_OK);
    assert_true(chk.ok);
    assert_true(chk.rel_err > 0 && chk.rel_err < 1e-5 && chk.rel_err < chk.bound);
    ((float *)c.data)[33 * 45 / 2] += 0.5f;
    assert_int_equal(tdcl_mm_check_product(&a, &b, &c, &chk, &e), TDCL_OK);
    assert_false(chk.ok);
    tdcl_matrix_free(&c);

    tdcl_matrix ai = rand_mat(20, 30, TDCL_I64, 53, -99, 99),
                bi = rand_mat(30, 10, TDCL_I32, 54, -99, 99);
    tdcl_mm_opts oi = {.type = TDCL_I64};
    assert_int_equal(tdcl_mm_run(*state, &oi, &ai, &bi, &c, &e), TDCL_OK);
    assert_int_equal(tdcl_mm_check_product(&ai, &bi, &c, &chk, &e), TDCL_OK);
    assert_true(chk.ok && chk.rel_err == 0 && chk.differing == 0);
    ((int64_t *)c.data)[7]++;
    assert_int_equal(tdcl_mm_check_product(&ai, &bi, &c, &chk, &e), TDCL_OK);
    assert_false(chk.ok);
    assert_int_equal(chk.differing, 1);
    tdcl_matrix_free(&c);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&ai);
    tdcl_matrix_free(&bi);
}

/* The first element (row-major) of a*b outside int64, by an independent
 * 128-bit loop (no term of these tests reaches 2^127); -1 if none. */
static int64_t first_outside_i64(const tdcl_matrix *a, const tdcl_matrix *b)
{
    __extension__ typedef __int128 i128;
    int64_t M = a->rows, K = a->cols, N = b->cols;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            i128 s = 0;
            for (int64_t k = 0; k < K; k++)
                s += (i128)tdcl_matrix_get_i64(a, (size_t)(i * K + k)) *
                     tdcl_matrix_get_i64(b, (size_t)(k * N + j));
            if (s < INT64_MIN || s > INT64_MAX) return i * N + j;
        }
    return -1;
}

/* Exact int64 products that leave int64 fail naming the first element, on
 * every kernel shape and in panels; with wrap they are the sums modulo
 * 2^64, and the host check never calls such a product exact. Inputs whose
 * partial sums wrap but whose result fits pass. */
static void test_i64_overflow(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_mm_kernel ks[] = {TDCL_MM_TILED, TDCL_MM_CPU, TDCL_MM_GPU};
    /* (bits of A, bits of B, K): overflowing; partial sums past the bound
     * that (mostly) fit; a 1x2 product of 2^62 by 2s */
    struct {
        double amax, bmax;
        int64_t M, K, N;
    } cases[] = {{0x1p60, 16, 40, 13, 37}, {0x1p58, 2, 35, 40, 36}, {0x1p61, 2, 1, 2, 1}};
    for (size_t c = 0; c < 3; c++) {
        tdcl_matrix a = rand_mat(cases[c].M, cases[c].K, TDCL_I64, 61 + c, 0, 1),
                    b = rand_mat(cases[c].K, cases[c].N, TDCL_I64, 71 + c, 0, 1);
        tdcl_test_fill(&a, 61 + c, -cases[c].amax, cases[c].amax);
        tdcl_test_fill(&b, 71 + c, -cases[c].bmax, cases[c].bmax);
        if (c == 2) {
            ((int64_t *)a.data)[0] = ((int64_t *)a.data)[1] = (int64_t)1 << 62;
            ((int64_t *)b.data)[0] = ((int64_t *)b.data)[1] = 2;
        }
        int64_t want = first_outside_i64(&a, &b);
        if (c != 1) assert_true(want >= 0);
        char name[64];
        snprintf(name, sizeof name, "(%" PRId64 ", %" PRId64 ")", want / b.cols + 1,
                 want % b.cols + 1);
        for (size_t i = 0; i < 6; i++) {
            tdcl_mm_opts o = {
                .type = TDCL_I64, .kernel = ks[i % 3], .max_alloc = i >= 3 ? 4096 : 0};
            if (ks[i % 3] == TDCL_MM_GPU) o.par.bm = o.par.bn = 64, o.par.bk = 16;
            tdcl_matrix r = {0};
            tdcl_err e = {0};
            tdcl_status st = tdcl_mm_run(*state, &o, &a, &b, &r, &e);
            if (want >= 0) {
                if (st != TDCL_ERANGE)
                    fail_msg("case %zu, %zu: status %d: %s", c, i, (int)st, e.msg);
                if (!strstr(e.msg, name))
                    fail_msg("case %zu, %zu: want %s in '%s'", c, i, name, e.msg);
            } else {
                assert_int_equal(st, TDCL_OK);
                expect_exact(&a, &b, &r);
                tdcl_matrix_free(&r);
            }
            o.wrap = 1;
            assert_int_equal(tdcl_mm_run(*state, &o, &a, &b, &r, &e), TDCL_OK);
            expect_exact(&a, &b, &r); /* modulo 2^64 */
            tdcl_mm_check chk;
            assert_int_equal(tdcl_mm_check_product(&a, &b, &r, &chk, &e), TDCL_OK);
            assert_int_equal(chk.differing, 0);
            assert_int_equal(chk.ok, want < 0);
            assert_int_equal(chk.overflowed > 0, want >= 0);
            if (want >= 0) assert_int_equal(chk.ovf_row * b.cols + chk.ovf_col, want);
            tdcl_matrix_free(&r);
        }
        int64_t row, col;
        assert_int_equal(
            tdcl_mm_i64_first_overflow(a.data, b.data, a.rows, a.cols, b.cols, &row, &col),
            want >= 0);
        if (want >= 0) assert_int_equal(row * b.cols + col, want);
        if (want >= 0) assert_false(tdcl_mm_i64_bound_ok(a.data, b.data, a.rows, a.cols, b.cols));
        tdcl_matrix_free(&a);
        tdcl_matrix_free(&b);
    }
    /* small integers pass the bound, extreme ones fail it */
    int64_t x[2] = {1 << 20, -(1 << 20)}, y[2] = {INT64_MAX / 4, 3};
    assert_true(tdcl_mm_i64_bound_ok(x, x, 1, 2, 1));
    assert_false(tdcl_mm_i64_bound_ok(y, y, 1, 2, 1));
}

/* Non-finite inputs: the host check asks NaN where the host product is NaN
 * and the same infinity where it is infinite, and bounds the rest. */
static void test_check_nonfinite(void **state)
{
    (void)state;
    tdcl_matrix a = {0}, b = {0}, c = {0};
    tdcl_err e = {0};
    tdcl_mm_check chk;
    assert_int_equal(tdcl_matrix_alloc(&a, 3, 2, 1, TDCL_F64, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_alloc(&b, 2, 1, 1, TDCL_F64, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_alloc(&c, 3, 1, 1, TDCL_F64, &e), TDCL_OK);
    double *A = a.data, *B = b.data, *C = c.data;
    A[0] = NAN, A[1] = 1, A[2] = INFINITY, A[3] = 1, A[4] = 2, A[5] = 3;
    B[0] = 1, B[1] = 1;
    C[0] = NAN, C[1] = INFINITY, C[2] = 5;
    assert_int_equal(tdcl_mm_check_product(&a, &b, &c, &chk, &e), TDCL_OK);
    assert_true(chk.ok);
    assert_int_equal(chk.nonfinite, 2);
    assert_true(chk.bound > 0 && isfinite(chk.bound) && chk.rel_err == 0);
    C[1] = -INFINITY;
    assert_int_equal(tdcl_mm_check_product(&a, &b, &c, &chk, &e), TDCL_OK);
    assert_false(chk.ok);
    assert_int_equal(chk.nonfinite_differ, 1);
    C[1] = INFINITY, C[0] = 1;
    assert_int_equal(tdcl_mm_check_product(&a, &b, &c, &chk, &e), TDCL_OK);
    assert_false(chk.ok);
    C[0] = NAN, C[2] = NAN;
    assert_int_equal(tdcl_mm_check_product(&a, &b, &c, &chk, &e), TDCL_OK);
    assert_false(chk.ok);
    assert_int_equal(chk.extra_nonfinite, 1);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&c);
}

/* Products that underflow into the subnormals, correctly rounded, pass;
 * one off by more than rounding does not. */
static void test_check_subnormal(void **state)
{
    (void)state;
    tdcl_matrix a = {0}, b = {0}, c = {0};
    tdcl_err e = {0};
    tdcl_mm_check chk;
    for (int f64 = 0; f64 < 2; f64++) {
        tdcl_dtype dt = f64 ? TDCL_F64 : TDCL_F32;
        double x = f64 ? 1e-160 : 1e-20;
        assert_int_equal(tdcl_matrix_alloc(&a, 1, 1, 1, dt, &e), TDCL_OK);
        assert_int_equal(tdcl_matrix_alloc(&b, 1, 1, 1, dt, &e), TDCL_OK);
        assert_int_equal(tdcl_matrix_alloc(&c, 1, 1, 1, dt, &e), TDCL_OK);
        if (f64) {
            *(double *)a.data = *(double *)b.data = x;
            *(double *)c.data = x * x; /* one rounding: correctly rounded */
        } else {
            float xf = (float)x;
            *(float *)a.data = *(float *)b.data = xf;
            /* the product of two floats is exact in double: one rounding */
            *(float *)c.data = (float)((double)xf * (double)xf);
        }
        assert_int_equal(tdcl_mm_check_product(&a, &b, &c, &chk, &e), TDCL_OK);
        if (!chk.ok)
            fail_msg("%s: a correctly rounded subnormal product fails: error %g, bound %g",
                     f64 ? "float64" : "float32", chk.rel_err, chk.bound);
        if (f64)
            *(double *)c.data *= 2;
        else
            *(float *)c.data *= 2;
        assert_int_equal(tdcl_mm_check_product(&a, &b, &c, &chk, &e), TDCL_OK);
        assert_false(chk.ok);
        tdcl_matrix_free(&a);
        tdcl_matrix_free(&b);
        tdcl_matrix_free(&c);
    }
}

int main(void)
{
    /* Exporting a program binary for tiledcl's cache makes PoCL compile a
     * generic work-group function too, which triples the cold run of these
     * many small builds; PoCL's own kernel cache still serves warm runs. */
    setenv("TILEDCL_CACHE", "0", 0);
    /* TDCL_TEST_FILTER=test_panels runs one test (cmocka's pattern) */
    if (getenv("TDCL_TEST_FILTER")) cmocka_set_test_filter(getenv("TDCL_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_int_example), cmocka_unit_test(test_seed_4x4_example),
        cmocka_unit_test(test_tiled_f32),        cmocka_unit_test(test_cpu_f32),
        cmocka_unit_test(test_gpu_f32),          cmocka_unit_test(test_auto_f32_from_f64),
        cmocka_unit_test(test_tiled_f64),        cmocka_unit_test(test_cpu_f64),
        cmocka_unit_test(test_gpu_f64),          cmocka_unit_test(test_tiled_i64),
        cmocka_unit_test(test_cpu_i64),          cmocka_unit_test(test_gpu_i64),
        cmocka_unit_test(test_int_exact_large),  cmocka_unit_test(test_every_tile),
        cmocka_unit_test(test_cpu_param_sample), cmocka_unit_test(test_gpu_param_sample),
        cmocka_unit_test(test_panels),           cmocka_unit_test(test_plan_reuse),
        cmocka_unit_test(test_mixed_inputs),     cmocka_unit_test(test_errors),
        cmocka_unit_test(test_check_product),    cmocka_unit_test(test_params_text),
        cmocka_unit_test(test_gpu_tail),         cmocka_unit_test(test_auto_ksplit),
        cmocka_unit_test(test_i64_overflow),     cmocka_unit_test(test_check_nonfinite),
        cmocka_unit_test(test_check_subnormal),  cmocka_unit_test(test_input_read),
        cmocka_unit_test(test_gpu_cp_async),     cmocka_unit_test(test_gpu_small_local),
    };
    return tdcl_test_exit(
        cmocka_run_group_tests(tests, tdcl_test_ctx_setup, tdcl_test_ctx_teardown));
}
