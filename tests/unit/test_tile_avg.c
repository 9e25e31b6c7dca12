/* tile-avg on the device, both kernel variants: the seeds' 8x8 example
 * (in memory and from data/seed8x8.mtx), random matrices of many shapes and
 * tiles (1x1, 1xN, non-dividing, prime, whole-matrix, large) against a
 * float64 host reference written here, multi-channel images, every input
 * type, the float-accumulator path, --strict and the plan API; tile-map's
 * indices; a sparse matrix's tiles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "io/matio.h"
#include "ops/tile_avg/tile_avg.h"
#include "ops/tile_avg/ta_sparse.h"

static const tdcl_ta_variant variants[] = {TDCL_TA_CPU, TDCL_TA_GPU, TDCL_TA_BAND};
#define NVARIANTS 3

/* The reference: tile (ti, tj) of channel c averages the cells of rows
 * [ti*t, min((ti+1)*t, rows)) and columns [tj*u, ...), summed in long
 * double. *scale receives the mean |x| of the tile. */
static double ref_mean(const tdcl_matrix *m, int64_t t, int64_t u, int64_t ti, int64_t tj, int c,
                       double *scale)
{
    long double s = 0, a = 0;
    int64_t r1 = (ti + 1) * t < m->rows ? (ti + 1) * t : m->rows;
    int64_t c1 = (tj + 1) * u < m->cols ? (tj + 1) * u : m->cols;
    for (int64_t i = ti * t; i < r1; i++)
        for (int64_t j = tj * u; j < c1; j++) {
            double v = tdcl_matrix_get_f64(m, ((size_t)i * m->cols + j) * m->channels + c);
            s += v;
            a += fabsl((long double)v);
        }
    long double n = (long double)(r1 - ti * t) * (long double)(c1 - tj * u);
    *scale = (double)(a / n);
    return (double)(s / n);
}

/* Checks got against the reference: shape, then every mean within tol of
 * the tile's mean |x| (exactly equal where that is 0). Returns the largest
 * relative error. */
static double check_means(const tdcl_matrix *in, int64_t t, int64_t u, const tdcl_matrix *got,
                          double tol)
{
    assert_int_equal(got->rows, (in->rows + t - 1) / t);
    assert_int_equal(got->cols, (in->cols + u - 1) / u);
    assert_int_equal(got->channels, in->channels);
    double worst = 0;
    for (int64_t ti = 0; ti < got->rows; ti++)
        for (int64_t tj = 0; tj < got->cols; tj++)
            for (int c = 0; c < in->channels; c++) {
                double scale, want = ref_mean(in, t, u, ti, tj, c, &scale);
                double have =
                    tdcl_matrix_get_f64(got, ((size_t)ti * got->cols + tj) * got->channels + c);
                double e = scale > 0 ? fabs(have - want) / scale : fabs(have - want);
                if (e > tol)
                    fail_msg("tile (%lld,%lld) channel %d of a %lldx%lld matrix in %lldx%lld "
                             "tiles: got %.17g, expected %.17g (relative error %.3g)",
                             (long long)ti, (long long)tj, c, (long long)in->rows,
                             (long long)in->cols, (long long)t, (long long)u, have, want, e);
                worst = e > worst ? e : worst;
            }
    return worst;
}

/* Runs tile-avg of in with tile t x u on variant v and checks it. */
static void run_check(tdcl_ctx *ctx, const tdcl_matrix *in, int64_t t, int64_t u, tdcl_ta_variant v,
                      double tol)
{
    tdcl_ta_opts o = {.tile_rows = t, .tile_cols = u, .variant = v};
    tdcl_matrix got = {0};
    tdcl_err err = {0};
    if (tdcl_ta_run(ctx, &o, in, &got, &err) != TDCL_OK)
        fail_msg("%lldx%lld tiles of a %lldx%lld matrix (%s): %s", (long long)t, (long long)u,
                 (long long)in->rows, (long long)in->cols, tdcl_ta_variant_name(v), err.msg);
    assert_int_equal(got.dtype, tdcl_ta_result_type(&ctx->dev, &o, in->dtype));
    check_means(in, t, u, &got, tol);
    tdcl_matrix_free(&got);
}

static void random_matrix(tdcl_matrix *m, int64_t rows, int64_t cols, int ch, tdcl_dtype dt,
                          uint64_t seed, double lo, double hi)
{
    tdcl_err err = {0};
    assert_int_equal(tdcl_matrix_alloc(m, rows, cols, ch, dt, &err), TDCL_OK);
    tdcl_test_fill(m, seed, lo, hi);
}

/* ---- the seeds' example ------------------------------------------------- */

static const double seed2[16] = {4.5,  6.5,  8.5,  10.5, 20.5, 22.5, 24.5, 26.5,
                                 36.5, 38.5, 40.5, 42.5, 52.5, 54.5, 56.5, 58.5};
static const double seed4[4] = {13.5, 17.5, 45.5, 49.5};

static void expect_values(const tdcl_matrix *got, const double *want, int n)
{
    assert_int_equal((int)tdcl_matrix_count(got), n);
    for (int k = 0; k < n; k++)
        if (tdcl_matrix_get_f64(got, (size_t)k) != want[k])
            fail_msg("entry %d: got %.17g, expected %g", k, tdcl_matrix_get_f64(got, (size_t)k),
                     want[k]);
}

static void seed_case(tdcl_ctx *ctx, const tdcl_matrix *m)
{
    for (int v = 0; v < NVARIANTS; v++) {
        tdcl_ta_opts o = {.tile_rows = 2, .tile_cols = 2, .variant = variants[v]};
        tdcl_matrix got = {0};
        tdcl_err err = {0};
        assert_int_equal(tdcl_ta_run(ctx, &o, m, &got, &err), TDCL_OK);
        assert_int_equal(got.rows, 4);
        expect_values(&got, seed2, 16);
        tdcl_matrix_free(&got);
        o.tile_rows = o.tile_cols = 4;
        assert_int_equal(tdcl_ta_run(ctx, &o, m, &got, &err), TDCL_OK);
        assert_int_equal(got.rows, 2);
        expect_values(&got, seed4, 4);
        tdcl_matrix_free(&got);
    }
}

static void test_seed_example(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix m = {0};
    tdcl_err err = {0};
    /* int64, as Matrix Market integer files read: the same kernels as the file */
    assert_int_equal(tdcl_matrix_alloc(&m, 8, 8, 1, TDCL_I64, &err), TDCL_OK);
    for (int k = 0; k < 64; k++)
        ((int64_t *)m.data)[k] = k;
    seed_case(*state, &m);
    tdcl_matrix_free(&m);
}

static void test_seed_file(void **state)
{
    TDCL_NEED_DEVICE(state);
    const char *dir = getenv("TDCL_DATA");
    if (!dir) skip();
    char *path = tdcl_test_join(dir, "seed8x8.mtx");
    tdcl_matrix m = {0};
    tdcl_err err = {0};
    assert_int_equal(tdcl_matrix_read(path, 0, &m, &err), TDCL_OK);
    assert_int_equal(m.rows, 8);
    assert_int_equal(m.cols, 8);
    seed_case(*state, &m);
    tdcl_matrix_free(&m);
    free(path);
}

/* ---- shapes ------------------------------------------------------------- */

typedef struct shape_case {
    int64_t rows, cols, t, u;
    int variants; /* bit 0: cpu, bit 1: gpu, bit 2: band (each new shape costs kernel builds) */
} shape_case;

static void run_cases(void **state, const shape_case *cases, size_t n, double lo, double hi,
                      uint64_t seed)
{
    tdcl_matrix m = {0};
    for (size_t i = 0; i < n; i++) {
        const shape_case *c = &cases[i];
        random_matrix(&m, c->rows, c->cols, 1, TDCL_F32, seed + i, lo, hi);
        for (int v = 0; v < NVARIANTS; v++)
            if (c->variants & (1 << v)) run_check(*state, &m, c->t, c->u, variants[v], 1e-6);
        tdcl_matrix_free(&m);
    }
}

static void test_shapes(void **state)
{
    TDCL_NEED_DEVICE(state);
    static const shape_case cases[] = {
        {37, 53, 1, 1, 5},     /* every cell its own tile */
        {37, 53, 3, 5, 7},     /* odd, non-dividing */
        {40, 67, 1, 16, 7},    /* one row per tile, partial last column */
        {37, 96, 2, 32, 5},    /* cpu: rows folded pairwise, 4 per item; partial last row */
        {50, 80, 4, 16, 5},    /* cpu: 2 tile rows per item, the last one alone */
        {33, 70, 16, 16, 7},   /* cpu: two stages; both edges partial */
        {50, 61, 7, 13, 7},    /* prime sides */
        {21, 150, 21, 150, 5}, /* the whole matrix as one tile, in two stages */
    };
    run_cases(state, cases, sizeof cases / sizeof cases[0], -1, 1, 100);
}

/* Large tiles of values of similar magnitude, where naive float sums would
 * drift: within 1e-6 of the float64 reference. */
static void test_large_tiles(void **state)
{
    TDCL_NEED_DEVICE(state);
    static const shape_case cases[] = {
        {130, 128, 64, 64, 7}, /* partial last tile row */
        {8, 4100, 1, 4096, 7}, /* a long row tile and a 4-wide remainder */
        {1024, 1024, 512, 512, 7},
        {100, 97, 97, 97, 5}, /* prime > 8: the cpu variant falls back to a team */
    };
    run_cases(state, cases, sizeof cases / sizeof cases[0], 1, 2, 200);
}

/* ---- the band variant, forced ------------------------------------------- */

typedef struct band_case {
    int64_t rows, cols, t, u;
    int team, my; /* items per tile, tile rows per item (0: chosen) */
} band_case;

/* Runs the band variant with the given team and rows per item, checks that
 * the plan kept them, and checks the means. */
static void run_band(tdcl_ctx *ctx, const tdcl_matrix *m, const band_case *c, int acc_f32,
                     double tol)
{
    tdcl_ta_opts o = {.tile_rows = c->t,
                      .tile_cols = c->u,
                      .variant = TDCL_TA_BAND,
                      .acc_f32 = acc_f32,
                      .band_team = c->team,
                      .band_rows = c->my};
    tdcl_ta_plan *p = NULL;
    tdcl_matrix got = {0};
    tdcl_err err = {0};
    if (tdcl_ta_plan_create(ctx, &o, m, &p, &err) != TDCL_OK)
        fail_msg("band %lldx%lld of %lldx%lld: %s", (long long)c->t, (long long)c->u,
                 (long long)m->rows, (long long)m->cols, err.msg);
    const char *d = tdcl_ta_plan_describe(p);
    char want[64];
    snprintf(want, sizeof want, "team=%d ", c->team);
    if (!strstr(d, "variant=band") || (c->team && !strstr(d, want)))
        fail_msg("expected the band variant with team %d, got %s", c->team, d);
    snprintf(want, sizeof want, "rows=%d ", c->my);
    if (c->my && !strstr(d, want)) fail_msg("expected %d tile rows per item, got %s", c->my, d);
    assert_int_equal(tdcl_ta_plan_execute(p, NULL, &err), TDCL_OK);
    assert_int_equal(tdcl_ta_plan_result(p, &got, &err), TDCL_OK);
    check_means(m, c->t, c->u, &got, tol);
    tdcl_matrix_free(&got);
    tdcl_ta_plan_destroy(p);
}

/* Odd widths (vectors of 1 or 4), teams whose last round of slots is short,
 * several tile rows per item with the last tile row and column partial,
 * teams of one (no barrier) and of 16; whatever the device. */
static void test_band_shapes(void **state)
{
    TDCL_NEED_DEVICE(state);
    static const band_case cases[] = {
        {37, 200, 1, 36, 4, 3},    /* 9 slots of 4 in 3 rounds of 4 items; partial edges */
        {29, 300, 3, 7, 2, 2},     /* width 7: single values; 2 rows left below */
        {50, 1000, 2, 256, 16, 1}, /* a team of 16, last tile 232 wide */
        {64, 4100, 1, 1024, 0, 0}, /* the device's own shape; a 4-wide remainder */
        {17, 96, 5, 96, 8, 4},     /* tiles as wide as the matrix, 2 rows in the last */
        {9, 130, 9, 65, 2, 1},     /* every row in one tile (more than 8: double sums) */
        {40, 48, 4, 16, 1, 8},     /* more tile rows per item than the matrix has */
    };
    tdcl_matrix m = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const band_case *c = &cases[i];
        random_matrix(&m, c->rows, c->cols, 1, TDCL_F32, 900 + i, -1, 1);
        run_band(*state, &m, c, 0, 1e-6);
        tdcl_matrix_free(&m);
    }
}

/* Images (planes by global id 2), wide input types, float accumulators. */
static void test_band_types(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix m = {0};
    const band_case rgb = {45, 300, 2, 60, 4, 2};
    random_matrix(&m, rgb.rows, rgb.cols, 3, TDCL_U8, 950, 0, 256);
    run_band(*state, &m, &rgb, 0, 1e-6);
    tdcl_matrix_free(&m);
    const band_case wide = {21, 700, 3, 128, 2, 0};
    random_matrix(&m, wide.rows, wide.cols, 1, TDCL_F64, 951, -1e6, 1e6);
    run_band(*state, &m, &wide, 0, 1e-9);
    tdcl_matrix_free(&m);
    const band_case f32 = {40, 1030, 8, 512, 8, 2}; /* 8 rows of float chains, then trees */
    random_matrix(&m, f32.rows, f32.cols, 1, TDCL_F32, 952, 1, 2);
    run_band(*state, &m, &f32, 1, 1e-6);
    tdcl_matrix_free(&m);
}

/* auto takes the band variant for 1x256 tiles and not for 2x2 ones. */
static void test_band_auto(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix m = {0};
    tdcl_err err = {0};
    tdcl_ta_plan *p = NULL;
    random_matrix(&m, 8, 1024, 1, TDCL_F32, 960, 0, 1);
    tdcl_ta_opts o = {.tile_rows = 1, .tile_cols = 256};
    assert_int_equal(tdcl_ta_plan_create(*state, &o, &m, &p, &err), TDCL_OK);
    assert_non_null(strstr(tdcl_ta_plan_describe(p), "variant=band"));
    tdcl_ta_plan_destroy(p);
    o.tile_rows = o.tile_cols = 2;
    assert_int_equal(tdcl_ta_plan_create(*state, &o, &m, &p, &err), TDCL_OK);
    assert_null(strstr(tdcl_ta_plan_describe(p), "variant=band"));
    tdcl_ta_plan_destroy(p);
    tdcl_matrix_free(&m);
}

/* ---- types and channels ------------------------------------------------- */

static void test_images(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix m = {0};
    random_matrix(&m, 45, 38, 3, TDCL_U8, 300, 0, 256); /* RGB */
    for (int v = 0; v < NVARIANTS; v++)
        run_check(*state, &m, 4, 5, variants[v], 1e-6);
    tdcl_matrix_free(&m);
    random_matrix(&m, 31, 33, 2, TDCL_U16, 301, 0, 65536); /* grey + alpha */
    run_check(*state, &m, 8, 8, TDCL_TA_CPU, 1e-6);
    tdcl_matrix_free(&m);
    random_matrix(&m, 16, 20, 4, TDCL_U8, 302, 0, 256); /* RGBA */
    run_check(*state, &m, 16, 20, TDCL_TA_GPU, 1e-6);
    tdcl_matrix_free(&m);
}

/* An image reduced in bands of rows (tdcl_ta_bands_*, the streamed
 * pipeline's device stage) gives the host reference's results band by
 * band, the last band holding a partial tile row (45 = 5 x 8 + 5 rows in
 * 4-row tiles). */
static void test_streamed_bands(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_err err = {0};
    tdcl_matrix m = {0}, want = {0};
    tdcl_ta_bands *b = NULL;
    tdcl_ta_opts o = {.tile_rows = 4, .tile_cols = 4, .image = 1};
    random_matrix(&m, 45, 38, 3, TDCL_U8, 303, 0, 256);
    assert_int_equal(tdcl_ta_reference_op(&o, &m, TDCL_U8, &want, NULL, &err), TDCL_OK);
    if (tdcl_ta_bands_create(ctx, &o, 38, 3, TDCL_U8, 8, 2, &b, &err) != TDCL_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(tdcl_ta_bands_out_type(b), TDCL_U8);
    size_t row = 38 * 3, orow = 10 * 3;
    uint8_t got[2 * 10 * 3];
    for (int64_t r0 = 0, k = 0; r0 < 45; r0 += 8, k++) {
        int64_t rows = 45 - r0 < 8 ? 45 - r0 : 8;
        memcpy(tdcl_ta_bands_slot(b, (int)(k % 2)), (uint8_t *)m.data + (size_t)r0 * row,
               (size_t)rows * row);
        if (tdcl_ta_bands_run(b, (int)(k % 2), rows, got, &err) != TDCL_OK) fail_msg("%s", err.msg);
        int64_t orows = (rows + 3) / 4;
        assert_memory_equal(got, (uint8_t *)want.data + (size_t)(r0 / 4) * orow,
                            (size_t)orows * orow);
    }
    /* a band that is not whole tile rows, or a slot past the last, is refused */
    assert_int_equal(tdcl_ta_bands_run(b, 2, 8, got, &err), TDCL_EINVAL);
    tdcl_ta_bands_destroy(b);
    assert_int_equal(tdcl_ta_bands_create(ctx, &o, 38, 3, TDCL_U8, 6, 2, &b, &err), TDCL_EINVAL);
    tdcl_matrix_free(&m);
    tdcl_matrix_free(&want);
}

static void test_input_types(void **state)
{
    TDCL_NEED_DEVICE(state);
    static const tdcl_dtype types[] = {TDCL_F64, TDCL_I32, TDCL_I64};
    tdcl_matrix m = {0};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        random_matrix(&m, 29, 41, 1, types[i], 400 + i, -1e6, 1e6);
        run_check(*state, &m, 4, 4, TDCL_TA_CPU, 1e-9);
        tdcl_matrix_free(&m);
    }
}

/* The path of devices without fp64: float accumulators, still within 1e-6
 * on large tiles of similar values thanks to short chains and trees. */
static void test_float_accumulators(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix m = {0}, got = {0};
    tdcl_err err = {0};
    random_matrix(&m, 512, 512, 1, TDCL_F32, 500, 1, 2);
    for (int v = 0; v < NVARIANTS; v++) {
        tdcl_ta_opts o = {.tile_rows = 512, .tile_cols = 512, .variant = variants[v], .acc_f32 = 1};
        assert_int_equal(tdcl_ta_run(*state, &o, &m, &got, &err), TDCL_OK);
        assert_int_equal(got.dtype, TDCL_F32);
        double worst = check_means(&m, 512, 512, &got, 1e-6);
        print_message("float accumulators (%s): largest relative error %.3g\n",
                      tdcl_ta_variant_name(variants[v]), worst);
        tdcl_matrix_free(&got);
    }
    tdcl_matrix_free(&m);
}

/* Values near FLT_MAX: every variant, with double and with float
 * accumulators (the no-fp64 path), gives the finite means, not inf. Each
 * tile shape is a program per variant and accumulator (PoCL: cold builds),
 * so each variant and accumulator takes half of the shapes, every shape
 * meeting both accumulators and every variant. */
static void test_huge_values(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix m = {0}, got = {0};
    tdcl_err err = {0};
    random_matrix(&m, 64, 96, 1, TDCL_F32, 501, 3.0e38, 3.4e38);
    const int64_t tiles[][2] = {{16, 16}, {2, 2}, {4, 4}, {1, 32}, {64, 96}, {3, 5}};
    for (int acc = 0; acc < 2; acc++)
        for (int v = 0; v < NVARIANTS; v++)
            for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
                if ((t + (size_t)acc + (size_t)v) % 2) continue; /* half, see above */
                tdcl_ta_opts o = {.tile_rows = tiles[t][0],
                                  .tile_cols = tiles[t][1],
                                  .variant = variants[v],
                                  .acc_f32 = acc};
                assert_int_equal(tdcl_ta_run(*state, &o, &m, &got, &err), TDCL_OK);
                for (size_t k = 0; k < tdcl_matrix_count(&got); k++)
                    if (!isfinite(tdcl_matrix_get_f64(&got, k)))
                        fail_msg("%s, %lldx%lld, %s accumulators: mean %zu is %g",
                                 tdcl_ta_variant_name(variants[v]), (long long)tiles[t][0],
                                 (long long)tiles[t][1], acc ? "float" : "default", k,
                                 tdcl_matrix_get_f64(&got, k));
                check_means(&m, tiles[t][0], tiles[t][1], &got, 1e-6);
                tdcl_matrix_free(&got);
            }
    tdcl_matrix_free(&m);
    /* float64 near DBL_MAX, where a double sum of a tile overflows */
    random_matrix(&m, 64, 96, 1, TDCL_F64, 502, 1.5e308, 1.79e308);
    for (int v = 0; v < NVARIANTS; v++)
        for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
            tdcl_ta_opts o = {
                .tile_rows = tiles[t][0], .tile_cols = tiles[t][1], .variant = variants[v]};
            assert_int_equal(tdcl_ta_run(*state, &o, &m, &got, &err), TDCL_OK);
            for (size_t k = 0; k < tdcl_matrix_count(&got); k++)
                if (!isfinite(tdcl_matrix_get_f64(&got, k)))
                    fail_msg("float64, %s, %lldx%lld: mean %zu is %g",
                             tdcl_ta_variant_name(variants[v]), (long long)tiles[t][0],
                             (long long)tiles[t][1], k, tdcl_matrix_get_f64(&got, k));
            check_means(&m, tiles[t][0], tiles[t][1], &got, 1e-15);
            tdcl_matrix_free(&got);
        }
    tdcl_matrix_free(&m);
    /* a 2x2 of 1e308 in one tile: exactly 1e308 */
    assert_int_equal(tdcl_matrix_alloc(&m, 2, 2, 1, TDCL_F64, &err), TDCL_OK);
    for (int k = 0; k < 4; k++)
        ((double *)m.data)[k] = 1e308;
    for (int v = 0; v < NVARIANTS; v++) {
        tdcl_ta_opts o = {.tile_rows = 2, .tile_cols = 2, .variant = variants[v]};
        assert_int_equal(tdcl_ta_run(*state, &o, &m, &got, &err), TDCL_OK);
        assert_true(tdcl_matrix_get_f64(&got, 0) == 1e308);
        tdcl_matrix_free(&got);
    }
    tdcl_matrix_free(&m);
}

/* ---- refusals and the plan API ------------------------------------------ */

static void test_refusals(void **state)
{
    (void)state;
    tdcl_ta_opts o = {.tile_rows = 3, .tile_cols = 3};
    tdcl_err err = {0};
    int64_t r, c;
    assert_int_equal(tdcl_ta_shape(&o, 10, 9, &r, &c, &err), TDCL_OK);
    assert_int_equal(r, 4);
    assert_int_equal(c, 3);
    o.strict = 1;
    assert_int_equal(tdcl_ta_shape(&o, 10, 9, &r, &c, &err), TDCL_EINVAL);
    assert_non_null(strstr(err.msg, "not a whole number of 3x3 tiles"));
    assert_int_equal(tdcl_ta_shape(&o, 9, 9, &r, &c, &err), TDCL_OK);
    o.tile_cols = 10;
    assert_int_equal(tdcl_ta_shape(&o, 9, 9, &r, &c, &err), TDCL_EINVAL);
    assert_non_null(strstr(err.msg, "larger than the 9x9 matrix"));
    o.tile_rows = 0;
    assert_int_equal(tdcl_ta_shape(&o, 9, 9, &r, &c, &err), TDCL_EINVAL);
}

static void test_strict_run(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_matrix m = {0}, got = {0};
    tdcl_err err = {0};
    random_matrix(&m, 10, 12, 1, TDCL_F32, 600, 0, 1);
    tdcl_ta_opts o = {.tile_rows = 4, .tile_cols = 4, .strict = 1};
    assert_int_equal(tdcl_ta_run(*state, &o, &m, &got, &err), TDCL_EINVAL);
    assert_null(got.data);
    assert_int_equal(tdcl_exit_code(err.status), 1);
    tdcl_matrix_free(&m);
}

/* A matrix larger than the device's largest buffer goes in bands of whole
 * blocks of 8 tile rows: the means are byte for byte the whole's, for
 * every variant, partial tiles, channels and a last band of fewer rows
 * than a tile (as auto picks); with not even a block in a buffer, the
 * refusal names it. */
static void test_bands_past_the_largest_buffer(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    typedef struct {
        int64_t rows, cols, t, u;
        int ch;
        tdcl_dtype dt;
    } big_case;
    const big_case cases[] = {
        {203, 50, 4, 4, 1, TDCL_F32},  /* 6 bands of 32 rows and one of 11 */
        {171, 37, 3, 5, 3, TDCL_U8},   /* three channels, partial tiles both ways */
        {130, 64, 1, 7, 1, TDCL_F64},  /* one-row tiles */
        {389, 40, 16, 2, 1, TDCL_F32}, /* 5 rows past the bands: fewer than a tile's */
    };
    cl_ulong keep = ctx->dev.max_alloc;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const big_case *c = &cases[i];
        /* every variant on the first case; the others as auto picks (each
         * variant and shape is a program to build, cold in CI) */
        size_t nv = i == 0 ? sizeof variants / sizeof variants[0] : 1;
        for (size_t v = 0; v < nv; v++) {
            tdcl_ta_opts o = {.tile_rows = c->t,
                              .tile_cols = c->u,
                              .variant = i == 0 ? variants[v] : TDCL_TA_AUTO};
            tdcl_matrix m = {0}, whole = {0}, banded = {0};
            tdcl_err err = {0};
            random_matrix(&m, c->rows, c->cols, c->ch, c->dt, 700 + i, 0, 200);
            ctx->dev.max_alloc = keep;
            assert_int_equal(tdcl_ta_run(ctx, &o, &m, &whole, &err), TDCL_OK);
            size_t row = (size_t)c->cols * (size_t)c->ch * tdcl_dtype_size(c->dt);
            /* room for 2 or 3 blocks of 8 tile rows, not the whole */
            ctx->dev.max_alloc = (cl_ulong)(row * 8 * (size_t)c->t * 2 + row * (size_t)c->t);
            /* the whole would not fit one buffer: the plan would refuse it */
            assert_true(row * (size_t)c->rows > ctx->dev.max_alloc);
            tdcl_status st = tdcl_ta_run(ctx, &o, &m, &banded, &err);
            ctx->dev.max_alloc = keep;
            if (st != TDCL_OK)
                fail_msg("case %zu (%s): %s", i, tdcl_ta_variant_name(o.variant), err.msg);
            assert_int_equal(banded.dtype, whole.dtype);
            assert_int_equal(banded.rows, whole.rows);
            assert_int_equal(banded.channels, whole.channels);
            assert_memory_equal(banded.data, whole.data,
                                tdcl_matrix_count(&whole) * tdcl_dtype_size(whole.dtype));
            check_means(&m, c->t, c->u, &banded, 1e-5);
            tdcl_matrix_free(&whole);
            tdcl_matrix_free(&banded);
            tdcl_matrix_free(&m);
        }
    }
    tdcl_matrix m = {0}, got = {0};
    tdcl_err err = {0};
    random_matrix(&m, 100, 100, 1, TDCL_F32, 799, 0, 1);
    tdcl_ta_opts o = {.tile_rows = 8, .tile_cols = 8};
    ctx->dev.max_alloc = 100 * 4 * 8 * 8 - 1; /* less than one block of 8 tile rows */
    tdcl_status st = tdcl_ta_run(ctx, &o, &m, &got, &err);
    ctx->dev.max_alloc = keep;
    assert_int_equal(st, TDCL_ELIMIT);
    assert_non_null(strstr(err.msg, "MiB"));
    assert_null(got.data);
    tdcl_matrix_free(&m);
}

static void test_plan_reuse(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    tdcl_matrix m = {0}, a = {0}, b = {0};
    tdcl_err err = {0};
    tdcl_ta_plan *p = NULL;
    random_matrix(&m, 64, 96, 1, TDCL_F32, 700, -5, 5);
    tdcl_ta_opts o = {.tile_rows = 2, .tile_cols = 2};
    assert_int_equal(tdcl_ta_plan_create(ctx, &o, &m, &p, &err), TDCL_OK);
    assert_non_null(strstr(tdcl_ta_plan_describe(p), "variant="));
    double ms = -1;
    assert_int_equal(tdcl_ta_plan_execute(p, &ms, &err), TDCL_OK);
    assert_true(ms >= 0);
    assert_int_equal(tdcl_ta_plan_result(p, &a, &err), TDCL_OK);
    assert_int_equal(tdcl_ta_plan_execute(p, NULL, &err), TDCL_OK);
    assert_int_equal(tdcl_ta_plan_result(p, &b, &err), TDCL_OK);
    assert_memory_equal(a.data, b.data, tdcl_matrix_count(&a) * sizeof(float));
    check_means(&m, 2, 2, &a, 1e-6);
    tdcl_ta_plan_destroy(p);
    tdcl_ta_plan_destroy(NULL);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&m);
}

/* The core's own reference and comparison (behind --verify) agree with the
 * one here, and catch a wrong mean. */
static void test_compare(void **state)
{
    (void)state;
    tdcl_matrix m = {0}, ref = {0};
    tdcl_err err = {0};
    random_matrix(&m, 9, 11, 1, TDCL_F64, 800, -1, 1);
    tdcl_ta_opts o = {.tile_rows = 2, .tile_cols = 3};
    assert_int_equal(tdcl_ta_reference(&o, &m, &ref, NULL, &err), TDCL_OK);
    check_means(&m, 2, 3, &ref, 1e-15);
    double worst = 1;
    assert_int_equal(tdcl_ta_compare(&o, &m, &ref, &worst, &err), TDCL_OK);
    assert_true(worst == 0);
    ((double *)ref.data)[5] += 1e-3;
    assert_int_equal(tdcl_ta_compare(&o, &m, &ref, &worst, &err), TDCL_OK);
    assert_true(worst > 1e-4);
    tdcl_matrix_free(&ref);
    tdcl_matrix_free(&m);
    /* finite values near DBL_MAX: the reference mean is finite, so an
     * infinite result fails and the true one passes */
    assert_int_equal(tdcl_matrix_alloc(&m, 8, 8, 1, TDCL_F64, &err), TDCL_OK);
    for (int k = 0; k < 64; k++)
        ((double *)m.data)[k] = k % 2 ? 1.7e308 : -1e308;
    o.tile_rows = o.tile_cols = 4;
    assert_int_equal(tdcl_ta_reference(&o, &m, &ref, NULL, &err), TDCL_OK);
    check_means(&m, 4, 4, &ref, 1e-15);
    assert_int_equal(tdcl_ta_compare(&o, &m, &ref, &worst, &err), TDCL_OK);
    ((double *)ref.data)[3] = INFINITY;
    assert_int_equal(tdcl_ta_compare(&o, &m, &ref, &worst, &err), TDCL_EVERIFY);
    tdcl_matrix_free(&ref);
    tdcl_matrix_free(&m);
}

/* ---- tile-map ----------------------------------------------------------- */

static void expect_map(tdcl_ctx *ctx, int64_t rows, int64_t cols, int64_t t, int64_t u)
{
    tdcl_ta_map m = {0};
    tdcl_err err = {0};
    if (tdcl_ta_map_run(ctx, rows, cols, t, u, &m, &err) != TDCL_OK)
        fail_msg("tile-map %lldx%lld in %lldx%lld: %s", (long long)rows, (long long)cols,
                 (long long)t, (long long)u, err.msg);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            const int32_t *c = m.cells + (i * cols + j) * 6;
            assert_int_equal(c[0], i);
            assert_int_equal(c[1], j);
            assert_int_equal(c[2], i / t);
            assert_int_equal(c[3], j / u);
            assert_int_equal(c[4], i % t);
            assert_int_equal(c[5], j % u);
        }
    tdcl_ta_map_free(&m);
}

static void test_tile_map(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    expect_map(ctx, 8, 9, 2, 3); /* the seeds' example */
    expect_map(ctx, 5, 7, 2, 3); /* edge tiles hang over */
    expect_map(ctx, 3, 40, 1, 40);
    tdcl_ta_map m = {0};
    tdcl_err err = {0};
    assert_int_equal(tdcl_ta_map_run(ctx, 8, 9, 9, 3, &m, &err), TDCL_EINVAL);
    assert_null(m.cells);
    int64_t side = 1;
    while ((size_t)(side * side) <= ctx->dev.max_wg)
        side *= 2; /* a square work-group past the device's limit */
    assert_int_equal(tdcl_ta_map_run(ctx, side, side, side, side, &m, &err), TDCL_ELIMIT);
    assert_non_null(strstr(err.msg, "work-group"));
    tdcl_ta_map_free(&m);
    tdcl_ta_map_free(NULL);
}

/* The host reference of every reduction on a 2x5 int32 matrix in 2x2
 * tiles (the last tile 2x1), against values worked out by hand; an RGBA
 * pixel pair weighted by alpha; an int64 sum past the type refused. */
static void test_reference_ops(void **state)
{
    (void)state;
    static const int32_t v[10] = {3, 1, 4, 7, 5, /* row 0 */ 1, 9, 2, 7, -6};
    static const struct {
        tdcl_ta_op op;
        tdcl_dtype out;
        double want[3];
    } cases[] = {
        {TDCL_TA_SUM, TDCL_I64, {14, 20, -1}},
        {TDCL_TA_MIN, TDCL_I32, {1, 2, -6}},
        {TDCL_TA_MAX, TDCL_I32, {9, 7, 5}},
        {TDCL_TA_MEDIAN, TDCL_I32, {2, 6, 0}}, /* (1+3)/2; (4+7)/2 = 5.5 up; (5-6)/2 = -0.5 up */
        {TDCL_TA_MODE, TDCL_I32, {1, 7, -6}},  /* ties: the smallest */
        {TDCL_TA_MEAN, TDCL_F64, {3.5, 5, -0.5}},
    };
    tdcl_matrix in = {2, 5, 1, TDCL_I32, (void *)v}, out = {0};
    tdcl_err err = {0};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tdcl_ta_opts o = {.tile_rows = 2, .tile_cols = 2, .op = cases[i].op};
        assert_int_equal(tdcl_ta_reference_op(&o, &in, cases[i].out, &out, NULL, &err), TDCL_OK);
        for (size_t k = 0; k < 3; k++)
            if (tdcl_matrix_get_f64(&out, k) != cases[i].want[k])
                fail_msg("%s of tile %zu: %g, expected %g", tdcl_ta_op_name(cases[i].op), k,
                         tdcl_matrix_get_f64(&out, k), cases[i].want[k]);
        tdcl_matrix_free(&out);
    }
    /* colour (10*255 + 200*5) / (255 + 5) = 13.65 -> 14; alpha 130 */
    static const uint8_t px[8] = {10, 0, 0, 255, 200, 0, 0, 5};
    tdcl_matrix rgba = {1, 2, 4, TDCL_U8, (void *)px};
    tdcl_ta_opts w = {.tile_rows = 1, .tile_cols = 2, .image = 1, .alpha_weighted = 1};
    assert_int_equal(tdcl_ta_reference_op(&w, &rgba, TDCL_U8, &out, NULL, &err), TDCL_OK);
    assert_int_equal(((uint8_t *)out.data)[0], 14);
    assert_int_equal(((uint8_t *)out.data)[3], 130);
    tdcl_matrix_free(&out);
    static const int64_t big[2] = {INT64_MAX, 1};
    tdcl_matrix b = {1, 2, 1, TDCL_I64, (void *)big};
    tdcl_ta_opts so = {.tile_rows = 1, .tile_cols = 2, .op = TDCL_TA_SUM};
    assert_int_equal(tdcl_ta_reference_op(&so, &b, TDCL_I64, &out, NULL, &err), TDCL_ERANGE);
    assert_non_null(strstr(err.msg, "overflows int64"));
}

/* The sparse kernels a test forces (TILEDCL_TA_SPARSE): the tile kernel,
 * then the band kernel with one, two (a short last group) and three tile
 * columns (the whole band: no search) a work-item. */
static const char *const sparse_kernel_names[] = {"tile", "band:1", "band:2", "band:3"};
#define NSPARSE_KERNELS 4

/* op of the 2x2 tiles of m (3x5) on every sparse kernel: the hand-worked
 * values, the host reference's, and bit for bit the tile kernel's. */
static void sparse_kernels(tdcl_ctx *ctx, const tdcl_csr *m, tdcl_ta_op op, const double *want)
{
    tdcl_ta_opts o = {.tile_rows = 2, .tile_cols = 2, .op = op};
    tdcl_matrix out = {0}, first = {0};
    tdcl_err err = {0};
    double worst;
    for (int k = 0; k < NSPARSE_KERNELS; k++) {
        setenv("TILEDCL_TA_SPARSE", sparse_kernel_names[k], 1);
        assert_int_equal(tdcl_ta_sparse_run(ctx, &o, m, &out, &err), TDCL_OK);
        assert_int_equal(out.rows, 2);
        assert_int_equal(out.cols, 3);
        for (size_t i = 0; i < 6; i++) {
            double g = tdcl_matrix_get_f64(&out, i);
            if (!(g == want[i] || (isnan(g) && isnan(want[i]))))
                fail_msg("%s of sparse tile %zu on the %s kernel: %.17g, expected %g",
                         tdcl_ta_op_name(op), i, sparse_kernel_names[k], g, want[i]);
        }
        assert_int_equal(tdcl_ta_sparse_compare(&o, m, &out, &worst, &err), TDCL_OK);
        if (k == 0)
            first = out;
        else {
            assert_memory_equal(out.data, first.data, 6 * tdcl_dtype_size(out.dtype));
            tdcl_matrix_free(&out);
        }
        memset(&out, 0, sizeof out);
    }
    unsetenv("TILEDCL_TA_SPARSE");
    tdcl_matrix_free(&first);
}

/* Exact int64 sums on every sparse kernel against the host's (a 4x5
 * matrix in 3x2 tiles: a short last tile row and column), and big's
 * overflow refused by each. */
static void sparse_int_sums(tdcl_ctx *ctx, const tdcl_csr *big)
{
    static const int64_t d[20] = {0, 5, 0, 0, -7,           3, 0, 0, 9, 0, 0, 0, 0,
                                  0, 0, 0, 0, 4000000000LL, 0, 1};
    static const int64_t want[6] = {8, 9, -7, 0, 4000000000LL, 1};
    tdcl_matrix dense = {4, 5, 1, TDCL_I64, (void *)d}, out = {0};
    tdcl_ta_opts o = {.tile_rows = 3, .tile_cols = 2, .op = TDCL_TA_SUM};
    tdcl_ta_opts so = {.tile_rows = 1, .tile_cols = 2, .op = TDCL_TA_SUM};
    tdcl_csr m = {0};
    tdcl_err err = {0};
    double worst;
    assert_int_equal(tdcl_csr_from_dense(&dense, &m, &err), TDCL_OK);
    for (int k = 0; k < NSPARSE_KERNELS; k++) {
        setenv("TILEDCL_TA_SPARSE", sparse_kernel_names[k], 1);
        assert_int_equal(tdcl_ta_sparse_run(ctx, &o, &m, &out, &err), TDCL_OK);
        assert_int_equal(out.dtype, TDCL_I64);
        assert_memory_equal(out.data, want, sizeof want);
        assert_int_equal(tdcl_ta_sparse_compare(&o, &m, &out, &worst, &err), TDCL_OK);
        tdcl_matrix_free(&out);
        assert_int_equal(tdcl_ta_sparse_run(ctx, &so, big, &out, &err), TDCL_ERANGE);
        assert_non_null(strstr(err.msg, "tile (1, 1) overflows int64"));
    }
    unsetenv("TILEDCL_TA_SPARSE");
    tdcl_csr_free(&m);
}

/* A sparse matrix's tiles: cells without an entry count as zeros (min and
 * max take 0 unless the tile is full of entries), the last tile row and
 * column over the cells they hold, a NaN gives NaN; worked by hand. */
static void test_sparse(void **state)
{
    static const double d[15] = {0,  -1.5, 0, 0, 2, /* row 0 */
                                 4,  0,    0, 0, 0, /* row 1 */
                                 -3, -2,   0, 7, NAN};
    static const struct {
        tdcl_ta_op op;
        double want[6];
    } cases[] = {
        {TDCL_TA_MEAN, {0.625, 0, 1, -2.5, 3.5, NAN}},
        {TDCL_TA_SUM, {2.5, 0, 2, -5, 7, NAN}},
        {TDCL_TA_MIN, {-1.5, 0, 0, -3, 0, NAN}},
        {TDCL_TA_MAX, {4, 0, 2, -2, 7, NAN}},
    };
    tdcl_matrix dense = {3, 5, 1, TDCL_F64, (void *)d}, out = {0};
    tdcl_csr m = {0};
    tdcl_err err = {0};
    double worst;
    assert_int_equal(tdcl_csr_from_dense(&dense, &m, &err), TDCL_OK);
    assert_int_equal(m.nnz, 7);
    for (size_t i = 0; i < 4; i++) {
        tdcl_ta_opts o = {.tile_rows = 2, .tile_cols = 2, .op = cases[i].op};
        assert_int_equal(tdcl_ta_sparse_reference(&o, &m, TDCL_F64, &out, NULL, &err), TDCL_OK);
        for (size_t k = 0; k < 6; k++) {
            double g = tdcl_matrix_get_f64(&out, k), w = cases[i].want[k];
            if (!(g == w || (isnan(g) && isnan(w))))
                fail_msg("%s of sparse tile %zu: %g, expected %g", tdcl_ta_op_name(cases[i].op), k,
                         g, w);
        }
        tdcl_matrix_free(&out);
    }
    tdcl_ta_opts med = {.tile_rows = 2, .tile_cols = 2, .op = TDCL_TA_MEDIAN};
    assert_int_equal(tdcl_ta_sparse_reference(&med, &m, TDCL_F64, &out, NULL, &err),
                     TDCL_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "median of a sparse matrix"));
    static const int64_t bigv[2] = {INT64_MAX, 1};
    static const int32_t rp[2] = {0, 2}, ci[2] = {0, 1};
    tdcl_csr big = {1, 2, 2, TDCL_I64, 0, 0, 1, (void *)rp, (void *)ci, (void *)bigv};
    tdcl_ta_opts so = {.tile_rows = 1, .tile_cols = 2, .op = TDCL_TA_SUM};
    assert_int_equal(tdcl_ta_sparse_reference(&so, &big, TDCL_I64, &out, NULL, &err), TDCL_ERANGE);
    assert_non_null(strstr(err.msg, "tile (1, 1) overflows int64"));
    tdcl_ctx *ctx = *state;
    if (ctx) { /* every kernel: mean and max, then checked by the comparison */
        sparse_kernels(ctx, &m, TDCL_TA_MEAN, cases[0].want);
        sparse_kernels(ctx, &m, TDCL_TA_MAX, cases[3].want);
        tdcl_ta_opts o = {.tile_rows = 2, .tile_cols = 2, .op = TDCL_TA_MAX};
        assert_int_equal(tdcl_ta_sparse_run(ctx, &o, &m, &out, &err), TDCL_OK);
        ((double *)out.data)[3] = -1;
        assert_int_equal(tdcl_ta_sparse_compare(&o, &m, &out, &worst, &err), TDCL_EVERIFY);
        assert_non_null(strstr(err.msg, "tile (2, 1)"));
        tdcl_matrix_free(&out);
        sparse_int_sums(ctx, &big);
    }
    tdcl_csr_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_reference_ops),
        cmocka_unit_test(test_sparse),
        cmocka_unit_test(test_seed_example),
        cmocka_unit_test(test_seed_file),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_large_tiles),
        cmocka_unit_test(test_band_shapes),
        cmocka_unit_test(test_band_types),
        cmocka_unit_test(test_band_auto),
        cmocka_unit_test(test_images),
        cmocka_unit_test(test_streamed_bands),
        cmocka_unit_test(test_input_types),
        cmocka_unit_test(test_float_accumulators),
        cmocka_unit_test(test_huge_values),
        cmocka_unit_test(test_strict_run),
        cmocka_unit_test(test_plan_reuse),
        cmocka_unit_test(test_tile_map),
        cmocka_unit_test(test_bands_past_the_largest_buffer),
    };
    return tdcl_test_exit(
        cmocka_run_group_tests(tests, tdcl_test_ctx_setup, tdcl_test_ctx_teardown));
}
