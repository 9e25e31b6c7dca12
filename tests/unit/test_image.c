/* Image files: PBM/PGM/PNG round trips of every variant, exact bytes of the
 * raw formats, hand-made PBM/PGM fixtures, PNG fixtures from an independent
 * encoder (tests/data/image/make_fixtures.py, pypng) and every error case. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>

#include "tdcl_test.h"

#include "base/log.h"
#include "io/image.h"
#include "io/imgstream.h"

static char *tmp; /* scratch directory of this run */

static int group_setup(void **state)
{
    (void)state;
    tmp = tdcl_test_tmpdir();
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    DIR *d = opendir(tmp);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char *p = tdcl_test_join(tmp, e->d_name);
        unlink(p);
        free(p);
    }
    if (d) closedir(d);
    rmdir(tmp);
    free(tmp);
    return 0;
}

static char *scratch(const char *name)
{
    return tdcl_test_join(tmp, name);
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, n, fp), n);
    assert_int_equal(fclose(fp), 0);
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *d = malloc((size_t)len + 1);
    assert_non_null(d);
    assert_int_equal(fread(d, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    *n = (size_t)len;
    return d;
}

static char *fixture(const char *name)
{
    const char *dir = getenv("TDCL_TEST_DATA");
    assert_non_null(dir);
    char *sub = tdcl_test_join(dir, "image");
    char *p = tdcl_test_join(sub, name);
    free(sub);
    return p;
}

static void test_image_path(void **state)
{
    (void)state;
    assert_true(tdcl_image_path("a.pbm"));
    assert_true(tdcl_image_path("dir/A.PGM"));
    assert_true(tdcl_image_path("x.pnm"));
    assert_true(tdcl_image_path("x.Png"));
    assert_false(tdcl_image_path("x.mtx"));
    assert_false(tdcl_image_path("png"));
    assert_true(tdcl_image_path("x.ppm"));
    assert_true(tdcl_image_path("x.pam"));
}

/* ---- round trips ------------------------------------------------------ */

/* Fills m with seeded random samples in [0, 2^bits). */
static void fill_samples(tdcl_matrix *m, int bits, uint64_t seed)
{
    uint64_t s = seed;
    uint64_t mod = 1ull << bits;
    for (size_t k = 0; k < tdcl_matrix_count(m); k++) {
        uint64_t v = tdcl_test_rand(&s) % mod;
        if (m->dtype == TDCL_U8)
            ((uint8_t *)m->data)[k] = (uint8_t)v;
        else
            ((uint16_t *)m->data)[k] = (uint16_t)v;
    }
}

static void expect_same(const tdcl_matrix *want, const tdcl_matrix *got)
{
    assert_int_equal(got->rows, want->rows);
    assert_int_equal(got->cols, want->cols);
    assert_int_equal(got->channels, want->channels);
    for (size_t k = 0; k < tdcl_matrix_count(want); k++)
        if (tdcl_matrix_get_i64(got, k) != tdcl_matrix_get_i64(want, k))
            fail_msg("sample %zu: got %lld, expected %lld", k,
                     (long long)tdcl_matrix_get_i64(got, k),
                     (long long)tdcl_matrix_get_i64(want, k));
}

static void roundtrip(const char *name, int channels, int bits, uint64_t seed)
{
    tdcl_matrix m, r = {0};
    tdcl_err e = {0};
    char *path = scratch(name);
    int maxval = -1;
    /* 13 columns: PBM rows do not fill whole bytes */
    assert_int_equal(tdcl_matrix_alloc(&m, 5, 13, channels, bits == 16 ? TDCL_U16 : TDCL_U8, &e),
                     TDCL_OK);
    fill_samples(&m, bits, seed);
    assert_int_equal(tdcl_image_write(path, &m, bits, &e), TDCL_OK);
    if (tdcl_image_read(path, &r, &maxval, &e) != TDCL_OK) fail_msg("%s: %s", name, e.msg);
    assert_int_equal(r.dtype, bits == 16 ? TDCL_U16 : TDCL_U8);
    assert_int_equal(maxval, (1 << bits) - 1);
    expect_same(&m, &r);
    tdcl_matrix_free(&m);
    tdcl_matrix_free(&r);
    free(path);
}

static void test_roundtrip_every_variant(void **state)
{
    (void)state;
    roundtrip("rt.pbm", 1, 1, 11);
    roundtrip("rt8.pgm", 1, 8, 12);
    roundtrip("rt16.pgm", 1, 16, 13);
    roundtrip("rt.pnm", 1, 1, 14); /* .pnm with bits 1 is PBM */
    char name[32];
    for (int ch = 1; ch <= 4; ch++)
        for (int bits = 8; bits <= 16; bits += 8) {
            snprintf(name, sizeof name, "rt_c%d_%d.png", ch, bits);
            roundtrip(name, ch, bits, (uint64_t)(20 + ch * 2 + bits));
        }
}

/* A float matrix goes out rounded; a sample that rounds outside the range,
 * or NaN, is refused naming it, unless clipping, which clamps (NaN is
 * refused even then). */
static void test_write_rounds_and_clamps(void **state)
{
    (void)state;
    tdcl_matrix f, i, r = {0};
    tdcl_err e;
    char *pgm = scratch("clamp.pgm"), *png = scratch("clamp16.png"), *pbm = scratch("clamp.pbm");
    assert_int_equal(tdcl_matrix_alloc(&f, 1, 7, 1, TDCL_F64, &e), TDCL_OK);
    const double fv[7] = {-0.4, 0.49, 0.5, 254.6, 255.49, 3, 17.4};
    memcpy(f.data, fv, sizeof fv);
    assert_int_equal(tdcl_image_write(pgm, &f, 8, &e), TDCL_OK);
    assert_int_equal(tdcl_image_read(pgm, &r, NULL, &e), TDCL_OK);
    const int64_t want8[7] = {0, 0, 1, 255, 255, 3, 17};
    for (int k = 0; k < 7; k++)
        assert_int_equal(tdcl_matrix_get_i64(&r, (size_t)k), want8[k]);
    tdcl_matrix_free(&r);
    /* past the range: refused, naming the element; clamped with clip */
    ((double *)f.data)[4] = 300.0;
    assert_int_equal(tdcl_image_write(pgm, &f, 8, &e), TDCL_ERANGE);
    assert_non_null(strstr(e.msg, "row 1, column 5"));
    ((double *)f.data)[0] = -3.7;
    assert_int_equal(tdcl_image_write(pgm, &f, 8, &e), TDCL_ERANGE);
    assert_non_null(strstr(e.msg, "row 1, column 1"));
    assert_int_equal(tdcl_image_write_clip(pgm, &f, 8, 1, &e), TDCL_OK);
    assert_int_equal(tdcl_image_read(pgm, &r, NULL, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_get_i64(&r, 0), 0);
    assert_int_equal(tdcl_matrix_get_i64(&r, 4), 255);
    tdcl_matrix_free(&r);
    ((double *)f.data)[5] = NAN;
    assert_int_equal(tdcl_image_write_clip(pgm, &f, 8, 1, &e), TDCL_ERANGE);
    assert_non_null(strstr(e.msg, "NaN at row 1, column 6"));

    assert_int_equal(tdcl_matrix_alloc(&i, 1, 3, 1, TDCL_I64, &e), TDCL_OK);
    const int64_t iv[3] = {-5, 70000, 1234};
    memcpy(i.data, iv, sizeof iv);
    assert_int_equal(tdcl_image_write(png, &i, 16, &e), TDCL_ERANGE);
    assert_non_null(strstr(e.msg, "value -5 at row 1, column 1"));
    assert_int_equal(tdcl_image_write_clip(png, &i, 16, 1, &e), TDCL_OK);
    assert_int_equal(tdcl_image_read(png, &r, NULL, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_get_i64(&r, 0), 0);
    assert_int_equal(tdcl_matrix_get_i64(&r, 1), 65535);
    assert_int_equal(tdcl_matrix_get_i64(&r, 2), 1234);
    tdcl_matrix_free(&r);

    /* PBM: rounded and clamped to 0..1, so 0.4 and -1 are white, 0.6 and 7 black */
    const double bv[7] = {0.4, 0.6, -1.0, 7.0, 0.0, 1.0, 0.2};
    memcpy(f.data, bv, sizeof bv);
    assert_int_equal(tdcl_image_write(pbm, &f, 1, &e), TDCL_OK);
    assert_int_equal(tdcl_image_read(pbm, &r, NULL, &e), TDCL_OK);
    const int64_t want1[7] = {0, 1, 0, 1, 0, 1, 0};
    for (int k = 0; k < 7; k++)
        assert_int_equal(tdcl_matrix_get_i64(&r, (size_t)k), want1[k]);
    tdcl_matrix_free(&r);
    ((double *)f.data)[6] = NAN;
    assert_int_equal(tdcl_image_write(pbm, &f, 1, &e), TDCL_ERANGE);
    tdcl_matrix_free(&f);
    tdcl_matrix_free(&i);
    free(pgm);
    free(png);
    free(pbm);
}

/* Grey to bits at half the maxval, bits to grey over the full range. */
static void test_bits_and_grey(void **state)
{
    (void)state;
    tdcl_matrix g, b = {0}, back = {0};
    tdcl_err e;
    assert_int_equal(tdcl_matrix_alloc(&g, 1, 5, 1, TDCL_U16, &e), TDCL_OK);
    const uint16_t gv[5] = {0, 499, 500, 1000, 250};
    memcpy(g.data, gv, sizeof gv);
    assert_int_equal(tdcl_image_grey_to_bits(&g, 1000, &b, &e), TDCL_OK);
    const int64_t want[5] = {1, 1, 0, 0, 1}; /* 1 = black */
    for (int k = 0; k < 5; k++)
        assert_int_equal(tdcl_matrix_get_i64(&b, (size_t)k), want[k]);
    assert_int_equal(tdcl_image_bits_to_grey(&b, 255, &back, &e), TDCL_OK);
    const double wantg[5] = {0, 0, 255, 255, 0};
    for (int k = 0; k < 5; k++)
        assert_true(tdcl_matrix_get_f64(&back, (size_t)k) == wantg[k]);
    tdcl_matrix_free(&back);
    /* RGB: the mean of the colours; a white picture stays white */
    tdcl_matrix_free(&g);
    tdcl_matrix_free(&b);
    assert_int_equal(tdcl_matrix_alloc(&g, 1, 2, 3, TDCL_U8, &e), TDCL_OK);
    const uint8_t rgb[6] = {255, 255, 255, 200, 10, 10};
    memcpy(g.data, rgb, sizeof rgb);
    assert_int_equal(tdcl_image_grey_to_bits(&g, 255, &b, &e), TDCL_OK);
    assert_int_equal(b.channels, 1);
    assert_int_equal(tdcl_matrix_get_i64(&b, 0), 0);
    assert_int_equal(tdcl_matrix_get_i64(&b, 1), 1);
    tdcl_matrix_free(&g);
    tdcl_matrix_free(&b);
}

static void expect_file(const char *path, const void *want, size_t n)
{
    size_t len;
    unsigned char *d = slurp(path, &len);
    assert_int_equal(len, n);
    assert_memory_equal(d, want, n);
    free(d);
}

/* The raw formats byte for byte, as the Netpbm spec lays them out. */
static void test_write_exact_bytes(void **state)
{
    (void)state;
    tdcl_matrix m;
    tdcl_err e;
    char *pbm = scratch("exact.pbm"), *pgm = scratch("exact.pgm");
    /* 10x2: row 0 = 1000000011, row 1 = 0101010101 */
    assert_int_equal(tdcl_matrix_alloc(&m, 2, 10, 1, TDCL_U8, &e), TDCL_OK);
    const uint8_t px[20] = {1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
    memcpy(m.data, px, sizeof px);
    assert_int_equal(tdcl_image_write(pbm, &m, 1, &e), TDCL_OK);
    expect_file(pbm, "P4\n10 2\n\x80\xc0\x55\x40", 12);
    tdcl_matrix_free(&m);

    assert_int_equal(tdcl_matrix_alloc(&m, 1, 2, 1, TDCL_U16, &e), TDCL_OK);
    ((uint16_t *)m.data)[0] = 258;
    ((uint16_t *)m.data)[1] = 65535;
    assert_int_equal(tdcl_image_write(pgm, &m, 16, &e), TDCL_OK);
    expect_file(pgm, "P5\n2 1\n65535\n\x01\x02\xff\xff", 17);
    assert_int_equal(tdcl_image_write(pgm, &m, 8, &e), TDCL_ERANGE);
    assert_int_equal(tdcl_image_write_clip(pgm, &m, 8, 1, &e), TDCL_OK);
    expect_file(pgm, "P5\n2 1\n255\n\xff\xff", 13);
    tdcl_matrix_free(&m);
    free(pbm);
    free(pgm);
}

/* ---- hand-made PBM / PGM fixtures -------------------------------------- */

static tdcl_matrix read_bytes(const char *name, const void *data, size_t n, int *maxval)
{
    char *path = scratch(name);
    tdcl_matrix m = {0};
    tdcl_err e = {0};
    write_bytes(path, data, n);
    if (tdcl_image_read(path, &m, maxval, &e) != TDCL_OK) fail_msg("%s: %s", name, e.msg);
    free(path);
    return m;
}

static void expect_values(const tdcl_matrix *m, int64_t rows, int64_t cols, const int64_t *v)
{
    assert_int_equal(m->rows, rows);
    assert_int_equal(m->cols, cols);
    assert_int_equal(m->channels, 1);
    for (size_t k = 0; k < (size_t)(rows * cols); k++)
        if (tdcl_matrix_get_i64(m, k) != v[k])
            fail_msg("pixel %zu: got %lld, expected %lld", k, (long long)tdcl_matrix_get_i64(m, k),
                     (long long)v[k]);
}

static void test_plain_fixtures(void **state)
{
    (void)state;
    int maxval;
    /* P1 digits may run together or be spaced; comments anywhere in the header */
    const char p1[] = "P1\n# a glider\n5 # width\n2\n01101\n1 0 0\n1 1\n";
    tdcl_matrix m = read_bytes("p1.pbm", p1, sizeof p1 - 1, &maxval);
    const int64_t v1[10] = {0, 1, 1, 0, 1, 1, 0, 0, 1, 1};
    expect_values(&m, 2, 5, v1);
    assert_int_equal(m.dtype, TDCL_U8);
    assert_int_equal(maxval, 1);
    tdcl_matrix_free(&m);

    const char p2[] = "P2 3 2\n# max\n1000\n0 999 1000\n\n7\t8\r\n9";
    m = read_bytes("p2.pgm", p2, sizeof p2 - 1, &maxval);
    /* maxval 1000 rescaled to 65535 as netpbm does: round(v * 65535 / 1000) */
    const int64_t v2[6] = {0, 65469, 65535, 459, 524, 590};
    expect_values(&m, 2, 3, v2);
    assert_int_equal(m.dtype, TDCL_U16);
    assert_int_equal(maxval, 65535);
    tdcl_matrix_free(&m);

    const char p2b[] = "P2\n2 2\n255\n255 0\n12 34\n";
    m = read_bytes("p2b.pgm", p2b, sizeof p2b - 1, &maxval);
    const int64_t v2b[4] = {255, 0, 12, 34};
    expect_values(&m, 2, 2, v2b);
    assert_int_equal(m.dtype, TDCL_U8);
    assert_int_equal(maxval, 255);
    tdcl_matrix_free(&m);
}

static void test_raw_fixtures(void **state)
{
    (void)state;
    int maxval;
    /* P4, 9x2: rows padded to 2 bytes; padding bits are ignored */
    const char p4[] = "P4\n# c\n9 2\n\xa5\x80\x0f\x7f";
    tdcl_matrix m = read_bytes("p4.pbm", p4, sizeof p4 - 1, &maxval);
    const int64_t v4[18] = {1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0};
    expect_values(&m, 2, 9, v4);
    assert_int_equal(maxval, 1);
    tdcl_matrix_free(&m);

    const char p5[] = "P5 # comment\n3 1 200\n\x00\x7f\xc8";
    m = read_bytes("p5.pgm", p5, sizeof p5 - 1, &maxval);
    const int64_t v5[3] = {0, 162, 255}; /* round(127 * 255 / 200) = 162 */
    expect_values(&m, 1, 3, v5);
    assert_int_equal(maxval, 255);
    tdcl_matrix_free(&m);

    /* 16-bit samples are big-endian */
    const char p5w[] = "P5\n2 2\n65535\n\x00\x01\x01\x00\xff\xfe\x12\x34";
    m = read_bytes("p5w.pgm", p5w, sizeof p5w - 1, &maxval);
    const int64_t v5w[4] = {1, 256, 65534, 0x1234};
    expect_values(&m, 2, 2, v5w);
    assert_int_equal(m.dtype, TDCL_U16);
    assert_int_equal(maxval, 65535);
    tdcl_matrix_free(&m);
}

/* ---- PNG fixtures (pypng) --------------------------------------------- */

/* The formulas of make_fixtures.py, recomputed here. */
static int64_t v8(int64_t r, int64_t c, int ch)
{
    return (r * 37 + c * 11 + ch * 71 + 5) % 256;
}

static int64_t v16(int64_t r, int64_t c, int ch)
{
    return (r * 7919 + c * 263 + ch * 20011 + 3) % 65536;
}

static tdcl_matrix read_fixture(const char *name, int *maxval)
{
    char *path = fixture(name);
    tdcl_matrix m = {0};
    tdcl_err e = {0};
    if (tdcl_image_read(path, &m, maxval, &e) != TDCL_OK) fail_msg("%s: %s", name, e.msg);
    free(path);
    return m;
}

static int64_t px(const tdcl_matrix *m, int64_t r, int64_t c, int ch)
{
    return tdcl_matrix_get_i64(m, (size_t)((r * m->cols + c) * m->channels + ch));
}

static void check_formula(const char *name, int64_t w, int64_t h, int ch, int bits)
{
    int maxval;
    tdcl_matrix m = read_fixture(name, &maxval);
    assert_int_equal(m.cols, w);
    assert_int_equal(m.rows, h);
    assert_int_equal(m.channels, ch);
    assert_int_equal(m.dtype, bits == 16 ? TDCL_U16 : TDCL_U8);
    assert_int_equal(maxval, bits == 16 ? 65535 : 255);
    for (int64_t r = 0; r < h; r++)
        for (int64_t c = 0; c < w; c++)
            for (int k = 0; k < ch; k++) {
                int64_t want = bits == 16 ? v16(r, c, k) : v8(r, c, k);
                if (px(&m, r, c, k) != want)
                    fail_msg("%s (%lld,%lld,%d): got %lld, expected %lld", name, (long long)r,
                             (long long)c, k, (long long)px(&m, r, c, k), (long long)want);
            }
    tdcl_matrix_free(&m);
}

static void test_png_fixtures(void **state)
{
    (void)state;
    check_formula("grey8.png", 7, 5, 1, 8);
    check_formula("ga8.png", 7, 5, 2, 8);
    check_formula("rgb8.png", 7, 5, 3, 8);
    check_formula("rgba8.png", 7, 5, 4, 8);
    check_formula("grey16.png", 6, 4, 1, 16);
    check_formula("ga16.png", 6, 4, 2, 16);
    check_formula("rgb16.png", 6, 4, 3, 16);
    check_formula("rgba16.png", 6, 4, 4, 16);
    check_formula("rgb8_interlaced.png", 9, 9, 3, 8);
}

/* 1, 2 and 4-bit grey come out scaled to 0..255. */
static void test_png_low_depth(void **state)
{
    (void)state;
    const char *names[3] = {"grey1bit.png", "grey2bit.png", "grey4bit.png"};
    const int bits[3] = {1, 2, 4};
    for (int t = 0; t < 3; t++) {
        int maxval;
        tdcl_matrix m = read_fixture(names[t], &maxval);
        int64_t top = (1 << bits[t]) - 1;
        assert_int_equal(m.channels, 1);
        assert_int_equal(maxval, 255);
        for (int64_t r = 0; r < 3; r++)
            for (int64_t c = 0; c < 11; c++)
                assert_int_equal(px(&m, r, c, 0), ((r * 5 + c * 3) % (top + 1)) * 255 / top);
        tdcl_matrix_free(&m);
    }
}

/* Palettes expand to RGB, or RGBA when a tRNS chunk gives alpha; a grey
 * tRNS level becomes a grey+alpha image. */
static void test_png_palette_and_trns(void **state)
{
    (void)state;
    tdcl_matrix m = read_fixture("palette.png", NULL);
    tdcl_matrix a = read_fixture("palette_trns.png", NULL);
    assert_int_equal(m.channels, 3);
    assert_int_equal(a.channels, 4);
    for (int64_t r = 0; r < 4; r++)
        for (int64_t c = 0; c < 5; c++) {
            int64_t i = (r + 2 * c) % 6;
            int64_t want[4] = {(i * 40) % 256, (i * 90) % 256, 255 - i * 30, (i * 50) % 256};
            for (int k = 0; k < 3; k++) {
                assert_int_equal(px(&m, r, c, k), want[k]);
                assert_int_equal(px(&a, r, c, k), want[k]);
            }
            assert_int_equal(px(&a, r, c, 3), want[3]);
        }
    tdcl_matrix_free(&m);
    tdcl_matrix_free(&a);

    m = read_fixture("grey8_trns.png", NULL);
    assert_int_equal(m.channels, 2);
    for (int64_t r = 0; r < 5; r++)
        for (int64_t c = 0; c < 7; c++) {
            assert_int_equal(px(&m, r, c, 0), v8(r, c, 0));
            assert_int_equal(px(&m, r, c, 1), v8(r, c, 0) == v8(1, 1, 0) ? 0 : 255);
        }
    tdcl_matrix_free(&m);
}

/* ---- errors -------------------------------------------------------------- */

typedef struct bad_case {
    const char *data;
    size_t len;
    tdcl_status st;
    const char *msg; /* substring of the message, after the path */
} bad_case;

#define BAD(lit, st, msg)                                                                          \
    {                                                                                              \
        lit, sizeof lit - 1, st, msg                                                               \
    }

static void expect_bad(const char *name, const void *data, size_t n, tdcl_status st,
                       const char *msg)
{
    char *path = scratch(name);
    tdcl_matrix m = {0};
    tdcl_err e = {0};
    write_bytes(path, data, n);
    tdcl_status got = tdcl_image_read(path, &m, NULL, &e);
    if (got != st || !strstr(e.msg, msg) || !strstr(e.msg, path))
        fail_msg("case '%.*s': status %d (expected %d), message '%s', expected to contain '%s'",
                 (int)(n < 30 ? n : 30), (const char *)data, got, st, e.msg, msg);
    assert_null(m.data);
    unlink(path);
    free(path);
}

/* One-channel PAM reads as PGM does; black-and-white PAM as PBM (its 0 is
 * black, PBM's 1); any image is an image whatever its name. */
static void test_pam_and_content(void **state)
{
    (void)state;
    static const char grey[] = "P7\nWIDTH 3\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\n"
                               "# a comment\nTUPLTYPE GRAYSCALE\nENDHDR\n\x05\x80\xff";
    char *path = scratch("grey.pam");
    write_bytes(path, grey, sizeof grey - 1);
    tdcl_matrix m = {0};
    int maxval = 0;
    tdcl_err e = {0};
    if (tdcl_image_read(path, &m, &maxval, &e) != TDCL_OK) fail_msg("%s", e.msg);
    assert_int_equal(m.rows, 1);
    assert_int_equal(m.cols, 3);
    assert_int_equal(maxval, 255);
    assert_memory_equal(m.data, "\x05\x80\xff", 3);
    tdcl_matrix_free(&m);
    static const char bw[] = "P7\nWIDTH 2\nHEIGHT 2\nDEPTH 1\nMAXVAL 1\n"
                             "TUPLTYPE BLACKANDWHITE\nENDHDR\n\x00\x01\x01\x00";
    write_bytes(path, bw, sizeof bw - 1);
    if (tdcl_image_read(path, &m, &maxval, &e) != TDCL_OK) fail_msg("%s", e.msg);
    assert_int_equal(maxval, 1);
    assert_memory_equal(m.data, "\x01\x00\x00\x01", 4); /* 1 = black, as from PBM */
    tdcl_matrix_free(&m);
    /* grey of maxval 1, in PAM, plain and raw PGM: 0 is black, rescaled to 0..255 */
    static const char pam1[] = "P7\nWIDTH 2\nHEIGHT 2\nDEPTH 1\nMAXVAL 1\n"
                               "TUPLTYPE GRAYSCALE\nENDHDR\n\x00\x01\x01\x00";
    static const char p2[] = "P2\n2 2\n1\n0 1\n1 0\n", p5[] = "P5\n2 2\n1\n\x00\x01\x01\x00";
    const char *grey1[] = {pam1, p2, p5};
    const size_t grey1_len[] = {sizeof pam1 - 1, sizeof p2 - 1, sizeof p5 - 1};
    for (int c = 0; c < 3; c++) {
        write_bytes(path, grey1[c], grey1_len[c]);
        if (tdcl_image_read(path, &m, &maxval, &e) != TDCL_OK) fail_msg("%s", e.msg);
        assert_int_equal(maxval, 255);
        assert_memory_equal(m.data, "\x00\xff\xff\x00", 4);
        tdcl_matrix_free(&m);
    }
    unlink(path);
    free(path);
    /* a PBM under another name is still an image; a text file is not */
    path = scratch("noext");
    write_bytes(path, "P1\n1 1\n1\n", 9);
    assert_true(tdcl_image_file(path));
    write_bytes(path, "x = 1, y = 1\no!\n", 16);
    assert_false(tdcl_image_file(path));
    assert_false(tdcl_image_file("-"));
    unlink(path);
    free(path);
    int image, readable;
    assert_string_equal(
        tdcl_file_kind((const unsigned char *)"\x89PNG\r\n\x1a\n", 8, &image, &readable),
        "a PNG image");
    assert_true(image && readable);
    assert_string_equal(tdcl_file_kind((const unsigned char *)"PK\3\4", 4, &image, &readable),
                        "a zip archive (numpy's .npz is one)");
    assert_false(image);
    assert_null(tdcl_file_kind((const unsigned char *)"BM", 2, &image, &readable));
}

static void test_pnm_errors(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        BAD("", TDCL_EPARSE, "an empty file"),
        BAD("hello", TDCL_EPARSE,
            "expected a PBM (P1/P4), PGM (P2/P5), PPM (P3/P6), PAM (P7), PNG, JPEG, TIFF or BMP"),
        BAD("P9\n1 1\n", TDCL_EPARSE, "expected a PBM"),
        BAD("P6\n1 1\n255\nab", TDCL_EPARSE, ":4: header claims 1x1 pixels, which need 3 bytes"),
        BAD("P3\n1 1\n255\n1 2", TDCL_EPARSE, "need at least 5 bytes, but only 4 bytes follow"),
        BAD("P3\n2 1\n9\n1 2 3 4 5 10", TDCL_EPARSE, ":4: expected a sample 0..9, got '10'"),
        /* formats tiledcl does not read, named by their first bytes */
        BAD("\xff\xd8\xff\xe0\0\x10JFIF", TDCL_EPARSE, "bad JPEG data: truncated"),
        BAD("GIF89a\1\0\1\0", TDCL_EUNSUPPORTED,
            "' is a GIF image; tiledcl reads PNG, JPEG, TIFF, BMP, PBM, PGM, PPM and PAM images"),
        BAD("GIF87a\1\0\1\0", TDCL_EUNSUPPORTED, "' is a GIF image; tiledcl reads"),
        BAD("BM\x46\0\0\0\0\0\0\0\x36\0\0\0", TDCL_EPARSE, "expected a BMP info header"),
        BAD("II*\0\x08\0\0\0", TDCL_EPARSE, "bad TIFF data"),
        BAD("MM\0*\0\0\0\x08", TDCL_EPARSE, "bad TIFF data"),
        BAD("%%MatrixMarket matrix array real general\n1 1\n1\n", TDCL_EPARSE,
            "' is a Matrix Market file, not an image"),
        BAD("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 4\nMAXVAL 255\nTUPLTYPE CMYK\nENDHDR\nabcd",
            TDCL_EUNSUPPORTED, "' is a PAM image of 4 channels (TUPLTYPE CMYK); tiledcl reads"),
        BAD("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\na",
            TDCL_EUNSUPPORTED, "' is a PAM image of 1 channel (TUPLTYPE RGB)"),
        BAD("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nENDHDR\na", TDCL_EPARSE,
            "the PAM header lacks MAXVAL"),
        BAD("P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 9\nSIZE 2\nENDHDR\na", TDCL_EPARSE,
            ":6: expected WIDTH, HEIGHT, DEPTH, MAXVAL, TUPLTYPE or ENDHDR, got 'SIZE'"),
        BAD("P7\nWIDTH 2\nHEIGHT 1\nDEPTH 1\nMAXVAL 9\nENDHDR\n\x01", TDCL_EPARSE,
            "need 2 bytes, but only 1 bytes follow"),
        BAD("P2", TDCL_EPARSE, ":1: expected a width 1..2147483647, got end of file"),
        BAD("P2x 1 1 1 0", TDCL_EPARSE, ":1: expected whitespace after the magic number"),
        BAD("P2\n0 1\n255\n", TDCL_EPARSE, ":2: expected a width 1..2147483647, got '0'"),
        BAD("P2\n-3 1\n255\n", TDCL_EPARSE, "expected a width 1..2147483647, got '-3'"),
        BAD("P2\n# c\n# c\n3 abc\n255\n", TDCL_EPARSE, ":4: expected a height"),
        BAD("P2\n3 99999999999\n255\n", TDCL_EPARSE, "got '99999999999'"),
        BAD("P2\n1 1\n0\n0\n", TDCL_EPARSE, ":3: expected a maxval 1..65535, got '0'"),
        BAD("P2\n1 1\n65536\n0\n", TDCL_EPARSE, ":3: expected a maxval 1..65535, got '65536'"),
        BAD("P5\n1 1\n70000\n\x00\x00", TDCL_EPARSE, "expected a maxval 1..65535, got '70000'"),
        BAD("P2\n2 1\n100\n5 101\n", TDCL_EPARSE, ":4: expected a sample 0..100, got '101'"),
        BAD("P2\n2 1\n100\n5 x\n", TDCL_EPARSE, "expected a sample 0..100, got 'x'"),
        BAD("P2\n2 2\n100\n5 6\n", TDCL_EPARSE, "need at least 7 bytes, but only 5 bytes follow"),
        BAD("P2\n2 2\n100\n5 6\n7   \n", TDCL_EPARSE, ":6: expected a sample 0..100, got end"),
        BAD("P2\n2 1\n100\n5 6\n7\n", TDCL_EPARSE,
            ":5: expected end of file after 2 pixels, got '7'"),
        BAD("P1\n3 1\n012\n", TDCL_EPARSE, ":3: expected a pixel '0' or '1', got '2'"),
        BAD("P1\n3 1\n01 \n", TDCL_EPARSE, "expected a pixel '0' or '1', got end of file"),
        BAD("P1\n2 1\n01 x\n", TDCL_EPARSE, ":3: expected end of file after 2 pixels, got 'x'"),
        BAD("P1\n4 4\n0101\n", TDCL_EPARSE, "header claims 4x4 pixels"),
        BAD("P4\n9 2\n\x01\x02\x03", TDCL_EPARSE, "need 4 bytes, but only 3 bytes follow"),
        BAD("P4\n8 1\n\x01\x02", TDCL_EPARSE, "1 bytes of garbage after the 1 bytes"),
        BAD("P4\n8 1", TDCL_EPARSE, "expected one whitespace character before the pixel data"),
        BAD("P5\n2 1\n255x\x01\x02", TDCL_EPARSE, "expected a maxval 1..65535, got '255x"),
        BAD("P5\n2 1\n255\n\x01", TDCL_EPARSE, "need 2 bytes, but only 1 bytes follow"),
        BAD("P5\n2 1\n1000\n\x03\xe8\x03", TDCL_EPARSE, "need 4 bytes, but only 3 bytes follow"),
        BAD("P5\n2 1\n1000\n\x03\xe8\x03\xe9", TDCL_EPARSE,
            "byte 14: expected a sample 0..1000, got 1001 (pixel 0, 1)"),
        BAD("P5\n2 1\n200\n\x03\xc9", TDCL_EPARSE, "expected a sample 0..200, got 201"),
        /* claims far past the file: refused before any allocation */
        BAD("P5\n2000000000 2000000000\n65535\n\x00", TDCL_EPARSE, "header claims"),
        BAD("P1\n2147483647 2147483647\n0", TDCL_EPARSE, "header claims"),
        BAD("P4\n2147483647 2147483647\n\x00", TDCL_EPARSE, "header claims"),
    };
    char name[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(name, sizeof name, "bad%zu.pgm", i);
        expect_bad(name, cases[i].data, cases[i].len, cases[i].st, cases[i].msg);
    }
}

static void test_png_errors(void **state)
{
    (void)state;
    size_t n;
    char *good = fixture("rgb8.png"), *huge = fixture("huge_claim.png");
    unsigned char *d = slurp(good, &n);
    expect_bad("trunc.png", d, n / 2, TDCL_EPARSE, "bad PNG data: truncated");
    expect_bad("noend.png", d, n - 12, TDCL_EPARSE, "bad PNG data: truncated");
    d[20] ^= 0x40; /* inside IHDR: its CRC no longer matches */
    expect_bad("crc.png", d, n, TDCL_EPARSE, "bad PNG data");
    free(d);
    d = slurp(huge, &n);
    expect_bad("huge.png", d, n, TDCL_EPARSE, "header claims 100000x100000 pixels");
    free(d);
    expect_bad("sig.png", "\x89PNG\r\n\x1a\n", 8, TDCL_EPARSE, "truncated");
    free(good);
    free(huge);
}

/* Every prefix of every kind of file fails cleanly: no crash, no output. */
static void test_every_truncation_fails(void **state)
{
    (void)state;
    static const char *pngs[] = {"grey16.png", "rgba8.png", "palette_trns.png",
                                 "rgb8_interlaced.png"};
    static const bad_case pnms[] = {
        BAD("P1\n3 2\n010\n111\n", TDCL_OK, ""),
        BAD("P2\n2 2\n300\n1 2\n3 7\n", TDCL_OK, ""),
        BAD("P4\n9 1\n\xff\x80", TDCL_OK, ""),
        BAD("P5\n2 1\n65535\n\x01\x02\x03\x04", TDCL_OK, ""),
    };
    char *path = scratch("prefix.img");
    for (size_t f = 0; f < 8; f++) {
        size_t n;
        unsigned char *d;
        if (f < 4) {
            char *fx = fixture(pngs[f]);
            d = slurp(fx, &n);
            free(fx);
        } else {
            n = pnms[f - 4].len;
            d = malloc(n);
            memcpy(d, pnms[f - 4].data, n);
        }
        /* plain formats end with whitespace that may be cut; stop before it */
        size_t last = d[n - 1] == '\n' ? n - 2 : n - 1;
        for (size_t cut = 0; cut <= last; cut++) {
            tdcl_matrix m = {0};
            tdcl_err e = {0};
            write_bytes(path, d, cut);
            if (tdcl_image_read(path, &m, NULL, &e) == TDCL_OK)
                fail_msg("file %zu cut at %zu of %zu bytes was accepted", f, cut, n);
            assert_null(m.data);
            assert_true(e.msg[0] != '\0');
        }
        free(d);
    }
    free(path);
}

static void test_write_errors(void **state)
{
    (void)state;
    tdcl_matrix m, rgb;
    tdcl_err e;
    char *keep = scratch("keep.pgm");
    assert_int_equal(tdcl_matrix_alloc(&m, 2, 2, 1, TDCL_U8, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_alloc(&rgb, 2, 2, 3, TDCL_U8, &e), TDCL_OK);
    tdcl_test_write_text(keep, "old");

    assert_int_equal(tdcl_image_write(keep, &rgb, 8, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "PBM and PGM hold one channel, got 3"));
    assert_int_equal(tdcl_image_write(keep, &m, 12, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "expected 8 or 16 bits per sample, got 12"));
    char *pbm = scratch("x.pbm"), *jpg = scratch("x.jpg"), *png = scratch("x.png");
    assert_int_equal(tdcl_image_write(pbm, &m, 8, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "PBM file holds 1-bit pixels, got bits=8"));
    assert_int_equal(tdcl_image_write(jpg, &m, 16, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "JPEG holds 8-bit grey or RGB, got 16 bits and 1 channels"));
    assert_int_equal(tdcl_image_write(jpg, &rgb, 1, &e), TDCL_EINVAL);
    assert_int_equal(tdcl_image_write("x.gif", &m, 8, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "expected an image extension"));
    assert_int_equal(tdcl_image_write(png, &m, 1, &e), TDCL_EINVAL);
    rgb.channels = 5;
    rgb.cols = 1;
    assert_int_equal(tdcl_image_write(png, &rgb, 8, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "expected 1..4 channels, got 5"));
    rgb.channels = 3;
    rgb.cols = 2;
    assert_int_equal(tdcl_image_write("/nonexistent-dir/x.png", &m, 8, &e), TDCL_EIO);
    assert_non_null(strstr(e.msg, "/nonexistent-dir/x.png"));

    /* the old file is untouched and nothing else appeared */
    expect_file(keep, "old", 3);
    assert_int_equal(access(pbm, F_OK), -1);
    assert_int_equal(access(png, F_OK), -1);
    assert_int_equal(access(jpg, F_OK), -1);
    tdcl_matrix_free(&m);
    tdcl_matrix_free(&rgb);
    free(keep);
    free(pbm);
    free(jpg);
    free(png);
}

/* ---- PPM and PAM of several channels -------------------------------------- */

/* Hand-made colour files: raw and plain PPM, PAM with alpha at 16 bits,
 * samples of an odd maxval rescaled; and PPM/PAM written byte for byte. */
static void test_ppm_and_pam(void **state)
{
    (void)state;
    int maxval;
    const char p6[] = "P6\n2 1\n255\n\x01\x02\x03\xfd\xfe\xff";
    tdcl_matrix m = read_bytes("c.ppm", p6, sizeof p6 - 1, &maxval);
    assert_int_equal(m.channels, 3);
    assert_int_equal(maxval, 255);
    assert_memory_equal(m.data, "\x01\x02\x03\xfd\xfe\xff", 6);
    tdcl_matrix_free(&m);
    /* maxval 7: round(v * 255 / 7) = 0, 36, 73, 109, 146, 182 */
    const char p3[] = "P3 2 1 7\n0 1 2\n3 4 5\n";
    m = read_bytes("c3.ppm", p3, sizeof p3 - 1, &maxval);
    assert_int_equal(maxval, 255);
    assert_int_equal(m.dtype, TDCL_U8);
    assert_memory_equal(m.data, "\x00\x24\x49\x6d\x92\xb6", 6);
    tdcl_matrix_free(&m);
    const char p7[] = "P7\nWIDTH 1\nHEIGHT 2\nDEPTH 4\nMAXVAL 65535\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
                      "\x00\x01\x01\x00\xff\xff\x12\x34"
                      "\x80\x00\x00\x00\x00\x02\xab\xcd";
    m = read_bytes("c.pam", p7, sizeof p7 - 1, &maxval);
    assert_int_equal(m.channels, 4);
    assert_int_equal(m.dtype, TDCL_U16);
    const uint16_t want7[8] = {1, 256, 65535, 0x1234, 0x8000, 0, 2, 0xabcd};
    assert_memory_equal(m.data, want7, sizeof want7);
    tdcl_matrix_free(&m);

    /* written: PPM and PAM headers and samples as the spec lays them out */
    tdcl_err e;
    char *ppm = scratch("w.ppm"), *pam = scratch("w.pam"), *pnm = scratch("w.pnm");
    assert_int_equal(tdcl_matrix_alloc(&m, 1, 2, 3, TDCL_U8, &e), TDCL_OK);
    memcpy(m.data, "\x01\x02\x03\xfd\xfe\xff", 6);
    assert_int_equal(tdcl_image_write(ppm, &m, 8, &e), TDCL_OK);
    expect_file(ppm, "P6\n2 1\n255\n\x01\x02\x03\xfd\xfe\xff", 17);
    assert_int_equal(tdcl_image_write(pnm, &m, 8, &e), TDCL_OK); /* .pnm of RGB is PPM */
    expect_file(pnm, "P6\n2 1\n255\n\x01\x02\x03\xfd\xfe\xff", 17);
    tdcl_matrix_free(&m);
    assert_int_equal(tdcl_matrix_alloc(&m, 1, 1, 2, TDCL_U16, &e), TDCL_OK);
    ((uint16_t *)m.data)[0] = 0x0102;
    ((uint16_t *)m.data)[1] = 0xfffe;
    assert_int_equal(tdcl_image_write(pam, &m, 16, &e), TDCL_OK);
    static const char wpam[] = "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 2\nMAXVAL 65535\n"
                               "TUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n\x01\x02\xff\xfe";
    expect_file(pam, wpam, sizeof wpam - 1);
    assert_int_equal(tdcl_image_write(ppm, &m, 16, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "PPM holds three channels (RGB), got 2"));
    tdcl_matrix_free(&m);
    /* bits to a PAM: BLACKANDWHITE, whose 0 is black, and back */
    assert_int_equal(tdcl_matrix_alloc(&m, 1, 3, 1, TDCL_U8, &e), TDCL_OK);
    memcpy(m.data, "\x01\x00\x01", 3);
    assert_int_equal(tdcl_image_write(pam, &m, 1, &e), TDCL_OK);
    static const char bpam[] = "P7\nWIDTH 3\nHEIGHT 1\nDEPTH 1\nMAXVAL 1\n"
                               "TUPLTYPE BLACKANDWHITE\nENDHDR\n\x00\x01\x00";
    expect_file(pam, bpam, sizeof bpam - 1);
    tdcl_matrix r = {0};
    assert_int_equal(tdcl_image_read(pam, &r, &maxval, &e), TDCL_OK);
    assert_int_equal(maxval, 1);
    assert_memory_equal(r.data, "\x01\x00\x01", 3);
    tdcl_matrix_free(&r);
    tdcl_matrix_free(&m);
    free(ppm);
    free(pam);
    free(pnm);
}

/* ---- the stream -------------------------------------------------------------- */

/* Writes an image in bands of 3 rows and reads it back in bands of 2 and
 * 1; the samples are the seeded ones written. */
static void stream_roundtrip(const char *name, int channels, int bits)
{
    const int64_t w = 17, h = 11;
    tdcl_matrix m, got;
    tdcl_err e = {0};
    tdcl_dtype t = bits == 16 ? TDCL_U16 : TDCL_U8;
    size_t rowb = (size_t)w * (size_t)channels * tdcl_dtype_size(t);
    char *path = scratch(name);
    assert_int_equal(tdcl_matrix_alloc(&m, h, w, channels, t, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_alloc(&got, h, w, channels, t, &e), TDCL_OK);
    fill_samples(&m, bits, (uint64_t)(channels * 100 + bits));
    tdcl_img_info info = {.width = w, .height = h, .channels = channels, .dtype = t};
    tdcl_img_writer *wr;
    assert_int_equal(tdcl_img_create(path, &info, bits, &wr, &e), TDCL_OK);
    for (int64_t i = 0; i < h; i += 3)
        assert_int_equal(
            tdcl_img_write_rows(wr, (char *)m.data + (size_t)i * rowb, i + 3 <= h ? 3 : h - i, &e),
            TDCL_OK);
    if (tdcl_img_commit(wr, &e) != TDCL_OK) fail_msg("%s: %s", name, e.msg);
    tdcl_img_reader *rd;
    if (tdcl_img_open(path, &rd, &info, &e) != TDCL_OK) fail_msg("%s: %s", name, e.msg);
    assert_int_equal(info.width, w);
    assert_int_equal(info.height, h);
    assert_int_equal(info.channels, channels);
    assert_int_equal(info.dtype, t);
    assert_int_equal(info.maxval, (1 << bits) - 1);
    for (int64_t i = 0; i < h; i += i < 6 ? 2 : 1)
        if (tdcl_img_read_rows(rd, (char *)got.data + (size_t)i * rowb, i < 6 ? 2 : 1, &e))
            fail_msg("%s: %s", name, e.msg);
    assert_int_equal(tdcl_img_read_rows(rd, got.data, 1, &e), TDCL_EINVAL);
    tdcl_img_close(rd);
    expect_same(&m, &got);
    tdcl_matrix_free(&m);
    tdcl_matrix_free(&got);
    free(path);
}

static void test_stream_bands(void **state)
{
    (void)state;
    stream_roundtrip("s3.png", 3, 8);
    stream_roundtrip("s4.png", 4, 16);
    stream_roundtrip("s3.ppm", 3, 16);
    stream_roundtrip("s2.pam", 2, 8);
    stream_roundtrip("s1.pgm", 1, 8);
}

/* Reads path's bytes through a pipe on standard input: no size known, so
 * the format is found by content and a short or long file fails late. */
static tdcl_status read_piped(const void *data, size_t n, tdcl_matrix *m, tdcl_img_info *info,
                              tdcl_err *e)
{
    int fds[2], saved = dup(0);
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], data, n), (ssize_t)n); /* small: fits the pipe */
    close(fds[1]);
    dup2(fds[0], 0);
    close(fds[0]);
    clearerr(stdin);
    tdcl_img_reader *r = NULL;
    tdcl_status st = tdcl_img_open("-", &r, info, e);
    if (!st) st = tdcl_matrix_alloc(m, info->height, info->width, info->channels, info->dtype, e);
    if (!st) st = tdcl_img_read_rows(r, m->data, info->height, e);
    tdcl_img_close(r);
    dup2(saved, 0);
    close(saved);
    clearerr(stdin);
    return st;
}

static void test_stream_stdin(void **state)
{
    (void)state;
    tdcl_matrix m = {0};
    tdcl_img_info info;
    tdcl_err e = {0};
    size_t n;
    char *fx = fixture("rgb8.png");
    unsigned char *d = slurp(fx, &n);
    if (read_piped(d, n, &m, &info, &e)) fail_msg("%s", e.msg);
    assert_string_equal(info.kind, "a PNG image");
    assert_int_equal(info.channels, 3);
    for (int64_t r = 0; r < 5; r++)
        for (int64_t c = 0; c < 7; c++)
            for (int k = 0; k < 3; k++)
                assert_int_equal(px(&m, r, c, k), v8(r, c, k));
    tdcl_matrix_free(&m);
    assert_int_equal(read_piped(d, n / 2, &m, &info, &e), TDCL_EPARSE);
    assert_non_null(strstr(e.msg, "<stdin>: bad PNG data: truncated"));
    tdcl_matrix_free(&m);
    free(d);
    free(fx);
    static const char p5[] = "P5\n2 2\n255\n\x01\x02\x03\x04";
    assert_int_equal(read_piped(p5, sizeof p5 - 2, &m, &info, &e), TDCL_EPARSE);
    assert_non_null(strstr(e.msg, "<stdin>: the file ends at byte 14, inside row 2 of 2"));
    tdcl_matrix_free(&m);
    static const char p5x[] = "P5\n2 1\n255\n\x01\x02xyz";
    assert_int_equal(read_piped(p5x, sizeof p5x - 1, &m, &info, &e), TDCL_EPARSE);
    assert_non_null(strstr(e.msg, "3 bytes of garbage after the 13 bytes of pixel data"));
    tdcl_matrix_free(&m);
}

/* A writer left short is refused at commit and leaves nothing; the format
 * of standard output comes from the kind; a float band is rounded. */
static void test_stream_writer(void **state)
{
    (void)state;
    tdcl_err e = {0};
    char *path = scratch("short.png");
    tdcl_img_info info = {.width = 2, .height = 3, .channels = 1, .dtype = TDCL_F32};
    tdcl_img_writer *w;
    const float row[2] = {1.4f, 254.5f};
    assert_int_equal(tdcl_img_create(path, &info, 8, &w, &e), TDCL_OK);
    assert_int_equal(tdcl_img_write_rows(w, row, 1, &e), TDCL_OK);
    assert_int_equal(tdcl_img_write_rows(w, row, 3, &e), TDCL_EINVAL);
    assert_int_equal(tdcl_img_commit(w, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "1 of 3 rows written"));
    assert_int_equal(access(path, F_OK), -1);
    /* a NaN mid-stream fails naming the row; abort removes the file */
    const float bad[2] = {3, NAN};
    assert_int_equal(tdcl_img_create(path, &info, 8, &w, &e), TDCL_OK);
    assert_int_equal(tdcl_img_write_rows(w, row, 1, &e), TDCL_OK);
    assert_int_equal(tdcl_img_write_rows(w, bad, 1, &e), TDCL_ERANGE);
    assert_non_null(strstr(e.msg, "NaN at row 2, column 2"));
    tdcl_img_abort(w);
    assert_int_equal(access(path, F_OK), -1);
    /* no extension: the format the options or the kind name */
    char *noext = scratch("out");
    tdcl_img_wopts o = {.bits = 8, .format = "pgm"};
    info.height = 1;
    assert_int_equal(tdcl_img_create_opts(noext, &info, &o, &w, &e), TDCL_OK);
    assert_int_equal(tdcl_img_write_rows(w, row, 1, &e), TDCL_OK);
    assert_int_equal(tdcl_img_commit(w, &e), TDCL_OK);
    expect_file(noext, "P5\n2 1\n255\n\x01\xff", 13);
    o.format = "gif";
    assert_int_equal(tdcl_img_create_opts(noext, &info, &o, &w, &e), TDCL_EINVAL);
    assert_non_null(strstr(e.msg, "unknown image format 'gif'"));
    info.kind = "a PNG image";
    assert_int_equal(tdcl_img_create(noext, &info, 8, &w, &e), TDCL_OK);
    assert_int_equal(tdcl_img_write_rows(w, row, 1, &e), TDCL_OK);
    assert_int_equal(tdcl_img_commit(w, &e), TDCL_OK);
    tdcl_matrix m = {0};
    int maxval;
    assert_int_equal(tdcl_image_read(noext, &m, &maxval, &e), TDCL_OK); /* PNG by content */
    assert_memory_equal(m.data, "\x01\xff", 2);
    tdcl_matrix_free(&m);
    free(noext);
    free(path);
}

/* ---- JPEG -------------------------------------------------------------------- */

/* Writes m as JPEG at quality q through the stream, returns the file size. */
static long write_jpeg(const char *path, const tdcl_matrix *m, int q)
{
    tdcl_err e = {0};
    tdcl_img_info info = {
        .width = m->cols, .height = m->rows, .channels = m->channels, .dtype = m->dtype};
    tdcl_img_wopts o = {.bits = 8, .quality = q};
    tdcl_img_writer *w;
    assert_int_equal(tdcl_img_create_opts(path, &info, &o, &w, &e), TDCL_OK);
    assert_int_equal(tdcl_img_write_rows(w, m->data, m->rows, &e), TDCL_OK);
    if (tdcl_img_commit(w, &e)) fail_msg("%s", e.msg);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    return (long)sb.st_size;
}

/* JPEG is lossy, so the checks are against known pixels within a bound:
 * a flat colour survives within 2 levels (the YCbCr round trip), a smooth
 * ramp at quality 100 within 3; reading in odd bands gives the rows of a
 * whole read; the fast DCT stays within 4 of the accurate one; a lower
 * quality makes a smaller file; a cut file is refused. */
static void test_jpeg(void **state)
{
    (void)state;
    tdcl_matrix m, r = {0}, f = {0};
    tdcl_err e = {0};
    char *path = scratch("a.jpg");
    assert_int_equal(tdcl_matrix_alloc(&m, 19, 21, 3, TDCL_U8, &e), TDCL_OK);
    uint8_t *d = m.data;
    for (size_t k = 0; k < 19 * 21; k++) {
        d[3 * k] = 200;
        d[3 * k + 1] = 100;
        d[3 * k + 2] = 50;
    }
    write_jpeg(path, &m, 0);
    int maxval;
    if (tdcl_image_read(path, &r, &maxval, &e)) fail_msg("%s", e.msg);
    assert_int_equal(r.channels, 3);
    assert_int_equal(maxval, 255);
    for (size_t k = 0; k < tdcl_matrix_count(&m); k++)
        if (labs((long)((uint8_t *)r.data)[k] - d[k]) > 2)
            fail_msg("flat: sample %zu is %d, expected %d", k, ((uint8_t *)r.data)[k], d[k]);
    tdcl_matrix_free(&r);
    tdcl_matrix_free(&m);

    /* grey ramp, quality 100 */
    assert_int_equal(tdcl_matrix_alloc(&m, 19, 21, 1, TDCL_U8, &e), TDCL_OK);
    d = m.data;
    for (int64_t i = 0; i < 19; i++)
        for (int64_t j = 0; j < 21; j++)
            d[i * 21 + j] = (uint8_t)(40 + 4 * i + 3 * j);
    long big = write_jpeg(path, &m, 100);
    tdcl_img_reader *rd;
    tdcl_img_info info;
    assert_int_equal(tdcl_img_open(path, &rd, &info, &e), TDCL_OK);
    assert_string_equal(info.kind, "a JPEG image");
    assert_int_equal(tdcl_matrix_alloc(&r, 19, 21, 1, TDCL_U8, &e), TDCL_OK);
    for (int64_t i = 0; i < 19; i += 5)
        assert_int_equal(
            tdcl_img_read_rows(rd, (uint8_t *)r.data + i * 21, i + 5 <= 19 ? 5 : 4, &e), TDCL_OK);
    tdcl_img_close(rd);
    for (size_t k = 0; k < 19 * 21; k++)
        if (labs((long)((uint8_t *)r.data)[k] - d[k]) > 3)
            fail_msg("ramp: sample %zu is %d, expected %d", k, ((uint8_t *)r.data)[k], d[k]);
    tdcl_img_ropts ro = {.fast_dct = 1};
    assert_int_equal(tdcl_img_open_opts(path, &ro, &rd, &info, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_alloc(&f, 19, 21, 1, TDCL_U8, &e), TDCL_OK);
    assert_int_equal(tdcl_img_read_rows(rd, f.data, 19, &e), TDCL_OK);
    tdcl_img_close(rd);
    for (size_t k = 0; k < 19 * 21; k++)
        assert_true(labs((long)((uint8_t *)f.data)[k] - ((uint8_t *)r.data)[k]) <= 4);
    assert_true(write_jpeg(path, &m, 20) < big);

    size_t n;
    unsigned char *bytes = slurp(path, &n);
    expect_bad("cut.jpg", bytes, n / 2, TDCL_EPARSE, "bad JPEG data: truncated");
    free(bytes);
    tdcl_matrix_free(&m);
    tdcl_matrix_free(&r);
    tdcl_matrix_free(&f);
    free(path);
}

/* ---- TIFF ---------------------------------------------------------------------- */

/* A hand-built little-endian TIFF (classic, or BigTIFF with big), by the
 * TIFF 6.0 and BigTIFF layouts: header, uncompressed strips or tiles, the
 * arrays, then one IFD of the tags given in ascending order. */
typedef struct tif_tag {
    uint16_t tag, type; /* 3 SHORT, 4 LONG */
    uint32_t count;
    uint32_t v[64];
} tif_tag;

typedef struct tif_buf {
    unsigned char d[1 << 14];
    size_t n;
} tif_buf;

static void tb_put(tif_buf *b, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        b->d[b->n++] = (unsigned char)(v >> (8 * i));
}

static size_t tif_build(tif_buf *b, int big, const unsigned char *data, size_t nbytes,
                        tif_tag *tags, int ntags)
{
    int vs = big ? 8 : 4; /* bytes of a count and of an inline value */
    b->n = 0;
    tb_put(b, 'I' | 'I' << 8, 2);
    tb_put(b, big ? 43 : 42, 2);
    if (big) {
        tb_put(b, 8, 2);
        tb_put(b, 0, 2);
    }
    size_t ifd_at = b->n;
    tb_put(b, 0, vs); /* patched below */
    size_t data_at = b->n;
    memcpy(b->d + b->n, data, nbytes);
    b->n += nbytes;
    /* offsets of strips/tiles are relative to the data: shift them */
    for (int t = 0; t < ntags; t++)
        if (tags[t].tag == 273 || tags[t].tag == 324)
            for (uint32_t k = 0; k < tags[t].count; k++)
                tags[t].v[k] += (uint32_t)data_at;
    size_t arr_at[32];
    for (int t = 0; t < ntags; t++) {
        int sz = tags[t].type == 3 ? 2 : 4;
        arr_at[t] = 0;
        if (tags[t].count * (uint32_t)sz <= (uint32_t)vs) continue;
        arr_at[t] = b->n;
        for (uint32_t k = 0; k < tags[t].count; k++)
            tb_put(b, tags[t].v[k], sz);
    }
    if (b->n & 1) b->d[b->n++] = 0;
    size_t ifd = b->n;
    b->n = ifd_at;
    tb_put(b, ifd, vs);
    b->n = ifd;
    tb_put(b, (uint64_t)ntags, big ? 8 : 2);
    for (int t = 0; t < ntags; t++) {
        int sz = tags[t].type == 3 ? 2 : 4;
        tb_put(b, tags[t].tag, 2);
        tb_put(b, tags[t].type, 2);
        tb_put(b, tags[t].count, vs);
        size_t start = b->n;
        if (arr_at[t])
            tb_put(b, arr_at[t], vs);
        else
            for (uint32_t k = 0; k < tags[t].count; k++)
                tb_put(b, tags[t].v[k], sz);
        while (b->n < start + (size_t)vs)
            b->d[b->n++] = 0;
    }
    tb_put(b, 0, vs); /* no next IFD */
    return b->n;
}

#define TAG1(t, ty, x)                                                                             \
    (tif_tag)                                                                                      \
    {                                                                                              \
        .tag = t, .type = ty, .count = 1, .v = { x }                                               \
    }

static int64_t tv(int64_t r, int64_t c, int k)
{
    return (r * 7 + c * 3 + k * 50) & 255;
}

/* Striped 8-bit RGB (3 strips of 2 rows, the last short), tiled 16-bit
 * grey (2x2 tiles of 16), BigTIFF float, 1-bit MINISWHITE: each read
 * against the formula its bytes were made from. */
static void test_tiff_hand_built(void **state)
{
    (void)state;
    static tif_buf b;
    unsigned char data[4096];
    char *path = scratch("h.tif");
    tdcl_matrix m = {0};
    tdcl_err e = {0};
    int maxval;
    /* 5 x 5 RGB, rows per strip 2 */
    size_t n = 0;
    for (int64_t r = 0; r < 5; r++)
        for (int64_t c = 0; c < 5; c++)
            for (int k = 0; k < 3; k++)
                data[n++] = (unsigned char)tv(r, c, k);
    tif_tag rgb[] = {
        TAG1(256, 4, 5), TAG1(257, 4, 5), {.tag = 258, .type = 3, .count = 3, .v = {8, 8, 8}},
        TAG1(259, 3, 1), TAG1(262, 3, 2), {.tag = 273, .type = 4, .count = 3, .v = {0, 30, 60}},
        TAG1(277, 3, 3), TAG1(278, 4, 2), {.tag = 279, .type = 4, .count = 3, .v = {30, 30, 15}},
        TAG1(284, 3, 1)};
    write_bytes(path, b.d, tif_build(&b, 0, data, n, rgb, 10));
    if (tdcl_image_read(path, &m, &maxval, &e)) fail_msg("rgb: %s", e.msg);
    assert_int_equal(m.channels, 3);
    assert_int_equal(maxval, 255);
    for (int64_t r = 0; r < 5; r++)
        for (int64_t c = 0; c < 5; c++)
            for (int k = 0; k < 3; k++)
                assert_int_equal(px(&m, r, c, k), tv(r, c, k));
    tdcl_matrix_free(&m);

    /* 20 x 18 grey 16-bit in 16 x 16 tiles, BigTIFF */
    n = 0;
    for (int ty = 0; ty < 2; ty++)
        for (int tx = 0; tx < 2; tx++)
            for (int y = 0; y < 16; y++)
                for (int x = 0; x < 16; x++) {
                    uint16_t v = (uint16_t)(tv(ty * 16 + y, tx * 16 + x, 0) * 257);
                    data[n++] = (unsigned char)v;
                    data[n++] = (unsigned char)(v >> 8);
                }
    tif_tag tiled[] = {TAG1(256, 4, 20),
                       TAG1(257, 4, 18),
                       TAG1(258, 3, 16),
                       TAG1(259, 3, 1),
                       TAG1(262, 3, 1),
                       TAG1(277, 3, 1),
                       TAG1(284, 3, 1),
                       TAG1(322, 4, 16),
                       TAG1(323, 4, 16),
                       {.tag = 324, .type = 4, .count = 4, .v = {0, 512, 1024, 1536}},
                       {.tag = 325, .type = 4, .count = 4, .v = {512, 512, 512, 512}}};
    write_bytes(path, b.d, tif_build(&b, 1, data, n, tiled, 11));
    if (tdcl_image_read(path, &m, &maxval, &e)) fail_msg("tiled: %s", e.msg);
    assert_int_equal(m.dtype, TDCL_U16);
    assert_int_equal(m.rows, 18);
    assert_int_equal(m.cols, 20);
    assert_int_equal(maxval, 65535);
    for (int64_t r = 0; r < 18; r++)
        for (int64_t c = 0; c < 20; c++)
            assert_int_equal(px(&m, r, c, 0), tv(r, c, 0) * 257);
    tdcl_matrix_free(&m);

    /* 3 x 2 float32 grey, one strip */
    const float fv[6] = {0.5f, -2.0f, 1e30f, 3.25f, 0.0f, 7.0f};
    tif_tag flt[] = {TAG1(256, 4, 3),  TAG1(257, 4, 2), TAG1(258, 3, 32), TAG1(259, 3, 1),
                     TAG1(262, 3, 1),  TAG1(273, 4, 0), TAG1(277, 3, 1),  TAG1(278, 4, 2),
                     TAG1(279, 4, 24), TAG1(284, 3, 1), TAG1(339, 3, 3)};
    write_bytes(path, b.d, tif_build(&b, 0, (const unsigned char *)fv, sizeof fv, flt, 11));
    if (tdcl_image_read(path, &m, &maxval, &e)) fail_msg("float: %s", e.msg);
    assert_int_equal(m.dtype, TDCL_F32);
    assert_memory_equal(m.data, fv, sizeof fv);
    tdcl_matrix_free(&m);

    /* 10 x 2 bilevel, MINISWHITE (1 is black, as PBM) */
    const unsigned char bits[4] = {0xa5, 0x40, 0x0f, 0x80};
    tif_tag bw[] = {TAG1(256, 4, 10), TAG1(257, 4, 2), TAG1(258, 3, 1), TAG1(259, 3, 1),
                    TAG1(262, 3, 0),  TAG1(273, 4, 0), TAG1(277, 3, 1), TAG1(278, 4, 2),
                    TAG1(279, 4, 4),  TAG1(284, 3, 1)};
    write_bytes(path, b.d, tif_build(&b, 0, bits, 4, bw, 10));
    if (tdcl_image_read(path, &m, &maxval, &e)) fail_msg("bilevel: %s", e.msg);
    assert_int_equal(maxval, 1);
    assert_memory_equal(m.data, "\1\0\1\0\0\1\0\1\0\1\0\0\0\0\1\1\1\1\1\0", 20);
    tdcl_matrix_free(&m);

    /* refused by name: signed samples, separate planes */
    tif_tag sgn[] = {TAG1(256, 4, 3),  TAG1(257, 4, 2), TAG1(258, 3, 16), TAG1(259, 3, 1),
                     TAG1(262, 3, 1),  TAG1(273, 4, 0), TAG1(277, 3, 1),  TAG1(278, 4, 2),
                     TAG1(279, 4, 12), TAG1(284, 3, 1), TAG1(339, 3, 2)};
    write_bytes(path, b.d, tif_build(&b, 0, data, 12, sgn, 11));
    assert_int_equal(tdcl_image_read(path, &m, &maxval, &e), TDCL_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "is a TIFF image of 16-bit signed samples; tiledcl reads"));
    /* a strip past the end of the file */
    rgb[5].v[2] = 4000;
    write_bytes(path, b.d, tif_build(&b, 0, data, 75, rgb, 10));
    assert_int_equal(tdcl_image_read(path, &m, &maxval, &e), TDCL_EPARSE);
    assert_non_null(strstr(e.msg, "bad TIFF data"));
    assert_null(m.data);
    free(path);
}

/* Written TIFFs of every kind read back as written: 8 and 16-bit grey,
 * grey+alpha, RGB, RGBA, 1-bit and float, Deflate too; a big one of many
 * strips read by 4 threads gives what one thread gives. */
static void test_tiff_write(void **state)
{
    (void)state;
    stream_roundtrip("t1.tif", 1, 8);
    stream_roundtrip("t2.tiff", 2, 16);
    stream_roundtrip("t3.tif", 3, 8);
    stream_roundtrip("t4.tif", 4, 16);
    tdcl_matrix m, r = {0};
    tdcl_err e = {0};
    char *path = scratch("f.tif");
    assert_int_equal(tdcl_matrix_alloc(&m, 3, 4, 1, TDCL_F64, &e), TDCL_OK);
    for (int k = 0; k < 12; k++)
        ((double *)m.data)[k] = k * 0.25 - 1;
    tdcl_img_info info = {.width = 4, .height = 3, .channels = 1, .dtype = TDCL_F64};
    tdcl_img_wopts o = {.bits = 32, .level = 6};
    tdcl_img_writer *w;
    assert_int_equal(tdcl_img_create_opts(path, &info, &o, &w, &e), TDCL_OK);
    assert_int_equal(tdcl_img_write_rows(w, m.data, 3, &e), TDCL_OK);
    assert_int_equal(tdcl_img_commit(w, &e), TDCL_OK);
    assert_int_equal(tdcl_image_read(path, &r, NULL, &e), TDCL_OK);
    assert_int_equal(r.dtype, TDCL_F32);
    for (int k = 0; k < 12; k++)
        assert_true(((float *)r.data)[k] == (float)(k * 0.25 - 1));
    tdcl_matrix_free(&r);
    tdcl_matrix_free(&m);
    assert_int_equal(tdcl_matrix_alloc(&m, 2, 11, 1, TDCL_U8, &e), TDCL_OK);
    for (int k = 0; k < 22; k++)
        ((uint8_t *)m.data)[k] = (uint8_t)(k % 3 == 0);
    assert_int_equal(tdcl_image_write(path, &m, 1, &e), TDCL_OK);
    int maxval;
    assert_int_equal(tdcl_image_read(path, &r, &maxval, &e), TDCL_OK);
    assert_int_equal(maxval, 1);
    assert_memory_equal(r.data, m.data, 22);
    tdcl_matrix_free(&r);
    tdcl_matrix_free(&m);

    /* 1024 x 1100 RGBA: 4.3 MiB in 256 KiB strips */
    assert_int_equal(tdcl_matrix_alloc(&m, 1100, 1024, 4, TDCL_U8, &e), TDCL_OK);
    fill_samples(&m, 8, 77);
    assert_int_equal(tdcl_image_write(path, &m, 8, &e), TDCL_OK);
    for (int threads = 1; threads <= 4; threads += 3) {
        tdcl_img_ropts ro = {.threads = threads};
        tdcl_img_reader *rd;
        assert_int_equal(tdcl_img_open_opts(path, &ro, &rd, &info, &e), TDCL_OK);
        assert_int_equal(tdcl_matrix_alloc(&r, 1100, 1024, 4, TDCL_U8, &e), TDCL_OK);
        for (int64_t y = 0; y < 1100; y += 100)
            assert_int_equal(tdcl_img_read_rows(rd, (uint8_t *)r.data + y * 4096, 100, &e),
                             TDCL_OK);
        tdcl_img_close(rd);
        expect_same(&m, &r);
        tdcl_matrix_free(&r);
    }
    tdcl_matrix_free(&m);
    free(path);
}

/* ---- BMP ------------------------------------------------------------------------ */

/* A BMP by the Windows layout: file header, an info header of hsize
 * bytes (BITMAPINFOHEADER, or V4 with masks), then rows. */
static size_t bmp_build(unsigned char *b, int32_t w, int32_t h, int bpp, uint32_t comp,
                        uint32_t hsize, const uint32_t masks[4], const unsigned char *rows,
                        size_t nrows_bytes)
{
    memset(b, 0, 14 + hsize);
    uint32_t off = 14 + hsize;
    uint32_t v[] = {off + (uint32_t)nrows_bytes, 0, off};
    b[0] = 'B';
    b[1] = 'M';
    for (int i = 0; i < 4; i++) {
        b[2 + i] = (unsigned char)(v[0] >> (8 * i));
        b[10 + i] = (unsigned char)(off >> (8 * i));
        b[14 + i] = (unsigned char)(hsize >> (8 * i));
        b[18 + i] = (unsigned char)((uint32_t)w >> (8 * i));
        b[22 + i] = (unsigned char)((uint32_t)h >> (8 * i));
        b[30 + i] = (unsigned char)(comp >> (8 * i));
        for (int k = 0; masks && k < 4; k++)
            b[54 + 4 * k + i] = (unsigned char)(masks[k] >> (8 * i));
    }
    b[26] = 1;
    b[28] = (unsigned char)bpp;
    memcpy(b + off, rows, nrows_bytes);
    return off + nrows_bytes;
}

/* 24-bit bottom-up with row padding, read from a file and through a pipe;
 * 32-bit top-down with an alpha mask; RLE refused by name. */
static void test_bmp(void **state)
{
    (void)state;
    unsigned char b[512];
    char *path = scratch("a.bmp");
    tdcl_matrix m = {0};
    tdcl_img_info info;
    tdcl_err e = {0};
    /* 3 x 2; stored bottom row first, BGR, each row padded to 12 bytes */
    static const unsigned char rows24[24] = {
        70, 80, 90, 100, 110, 120, 130, 140, 150, 0, 0, 0, /* image row 1 */
        1,  2,  3,  4,   5,   6,   7,   8,   9,   0, 0, 0, /* image row 0 */
    };
    static const unsigned char want24[18] = {3,  2,  1,  6,   5,   4,   9,   8,   7,
                                             90, 80, 70, 120, 110, 100, 150, 140, 130};
    size_t n = bmp_build(b, 3, 2, 24, 0, 40, NULL, rows24, sizeof rows24);
    write_bytes(path, b, n);
    if (tdcl_image_read(path, &m, NULL, &e)) fail_msg("%s", e.msg);
    assert_int_equal(m.channels, 3);
    assert_memory_equal(m.data, want24, 18);
    tdcl_matrix_free(&m);
    if (read_piped(b, n, &m, &info, &e)) fail_msg("%s", e.msg);
    assert_string_equal(info.kind, "a BMP image");
    assert_memory_equal(m.data, want24, 18);
    tdcl_matrix_free(&m);
    /* 2 x 2 top-down (negative height), BGRA by masks */
    static const unsigned char rows32[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    static const unsigned char want32[16] = {3, 2, 1, 4, 7, 6, 5, 8, 11, 10, 9, 12, 15, 14, 13, 16};
    const uint32_t masks[4] = {0xff0000, 0xff00, 0xff, 0xff000000};
    write_bytes(path, b, bmp_build(b, 2, -2, 32, 3, 108, masks, rows32, 16));
    if (tdcl_image_read(path, &m, NULL, &e)) fail_msg("%s", e.msg);
    assert_int_equal(m.channels, 4);
    assert_memory_equal(m.data, want32, 16);
    tdcl_matrix_free(&m);
    write_bytes(path, b, bmp_build(b, 2, 2, 8, 1, 40, NULL, rows32, 16));
    assert_int_equal(tdcl_image_read(path, &m, NULL, &e), TDCL_EUNSUPPORTED);
    assert_non_null(strstr(e.msg, "is a BMP image of bits per pixel 8; tiledcl reads"));
    write_bytes(path, b, bmp_build(b, 3, 2, 24, 0, 40, NULL, rows24, 20));
    assert_int_equal(tdcl_image_read(path, &m, NULL, &e), TDCL_EPARSE);
    assert_non_null(strstr(e.msg, "which need 78 bytes, but the file has 74"));
    free(path);
}

static void count_stripes(tdcl_log_level level, const char *msg, void *user)
{
    (void)level;
    if (strstr(msg, "in stripes of")) ++*(int *)user;
}

/* A JPEG of restart intervals (tiledcl writes one a row of MCUs) decoded
 * by 4 threads in stripes gives the bytes of a decode by one thread, for
 * RGB (4:2:0, whose chroma upsampling reads across stripe edges) and grey;
 * a cut one fails naming it. */
static void test_jpeg_parallel(void **state)
{
    (void)state;
    static const int chans[2] = {3, 1};
    static const int64_t rows[2] = {1100, 2100}, cols[2] = {1301, 2000};
    char *path = scratch("p.jpg");
    int stripes = 0;
    tdcl_log_set(count_stripes, &stripes, TDCL_LOG_DEBUG);
    for (int t = 0; t < 2; t++) {
        tdcl_matrix m, got[2];
        tdcl_err e = {0};
        assert_int_equal(tdcl_matrix_alloc(&m, rows[t], cols[t], chans[t], TDCL_U8, &e), TDCL_OK);
        uint8_t *d = m.data;
        for (size_t k = 0; k < tdcl_matrix_count(&m); k++)
            d[k] = (uint8_t)((k / 7 + (k % 3) * 40 + (k * 2654435761u >> 28)) & 255);
        write_jpeg(path, &m, 0);
        for (int v = 0; v < 2; v++) {
            tdcl_img_ropts ro = {.threads = v ? 4 : 1};
            tdcl_img_reader *rd;
            tdcl_img_info info;
            assert_int_equal(tdcl_img_open_opts(path, &ro, &rd, &info, &e), TDCL_OK);
            assert_int_equal(tdcl_matrix_alloc(&got[v], rows[t], cols[t], chans[t], TDCL_U8, &e),
                             TDCL_OK);
            size_t rowb = (size_t)cols[t] * (size_t)chans[t];
            for (int64_t y = 0; y < rows[t]; y += 300)
                assert_int_equal(tdcl_img_read_rows(rd, (uint8_t *)got[v].data + y * rowb,
                                                    y + 300 <= rows[t] ? 300 : rows[t] - y, &e),
                                 TDCL_OK);
            tdcl_img_close(rd);
        }
        expect_same(&got[0], &got[1]);
        tdcl_matrix_free(&got[0]);
        tdcl_matrix_free(&got[1]);
        tdcl_matrix_free(&m);
    }
    tdcl_log_set(NULL, NULL, TDCL_LOG_WARN);
    assert_int_equal(stripes, 2); /* the 4-thread reads, not the 1-thread ones */
    size_t n;
    unsigned char *bytes = slurp(path, &n);
    write_bytes(path, bytes, n - n / 3);
    tdcl_img_ropts ro = {.threads = 4};
    tdcl_img_reader *rd;
    tdcl_img_info info;
    tdcl_err e = {0};
    tdcl_matrix m;
    assert_int_equal(tdcl_img_open_opts(path, &ro, &rd, &info, &e), TDCL_OK);
    assert_int_equal(tdcl_matrix_alloc(&m, info.height, info.width, 1, TDCL_U8, &e), TDCL_OK);
    assert_int_equal(tdcl_img_read_rows(rd, m.data, info.height, &e), TDCL_EPARSE);
    assert_non_null(strstr(e.msg, "bad JPEG data"));
    tdcl_img_close(rd);
    tdcl_matrix_free(&m);
    free(bytes);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_image_path),
        cmocka_unit_test(test_roundtrip_every_variant),
        cmocka_unit_test(test_write_rounds_and_clamps),
        cmocka_unit_test(test_bits_and_grey),
        cmocka_unit_test(test_write_exact_bytes),
        cmocka_unit_test(test_plain_fixtures),
        cmocka_unit_test(test_raw_fixtures),
        cmocka_unit_test(test_png_fixtures),
        cmocka_unit_test(test_png_low_depth),
        cmocka_unit_test(test_png_palette_and_trns),
        cmocka_unit_test(test_pnm_errors),
        cmocka_unit_test(test_pam_and_content),
        cmocka_unit_test(test_png_errors),
        cmocka_unit_test(test_every_truncation_fails),
        cmocka_unit_test(test_write_errors),
        cmocka_unit_test(test_ppm_and_pam),
        cmocka_unit_test(test_stream_bands),
        cmocka_unit_test(test_stream_stdin),
        cmocka_unit_test(test_stream_writer),
        cmocka_unit_test(test_jpeg),
        cmocka_unit_test(test_jpeg_parallel),
        cmocka_unit_test(test_tiff_hand_built),
        cmocka_unit_test(test_tiff_write),
        cmocka_unit_test(test_bmp),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
