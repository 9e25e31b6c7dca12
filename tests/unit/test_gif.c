/* Animated GIFs (io/gif.c) read back with giflib's decoder: the screen and
 * frame sizes, the two colours, every pixel of every frame against the
 * grid it was drawn from (scaled), each frame's delay, and the loop
 * extension; a failed or aborted animation leaves no file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gif_lib.h>

#include "tdcl_test.h"

#include "io/gif.h"

static tdcl_matrix grid(int64_t rows, int64_t cols, uint64_t seed, int fill)
{
    tdcl_matrix m = {0};
    assert_int_equal(tdcl_matrix_alloc(&m, rows, cols, 1, TDCL_U8, NULL), TDCL_OK);
    uint64_t s = seed;
    for (size_t k = 0; k < (size_t)(rows * cols); k++)
        ((uint8_t *)m.data)[k] = fill >= 0 ? (uint8_t)fill : tdcl_test_rand(&s) % 3 == 0;
    return m;
}

/* Writes the frames to path at scale and delay, then decodes the file with
 * giflib and checks everything against the frames. */
static void round_trip(const char *path, tdcl_matrix *f, int nf, int scale, int delay)
{
    int64_t rows = f[0].rows, cols = f[0].cols, k = scale > 1 ? scale : 1;
    tdcl_life_gif *g = NULL;
    tdcl_err e = {0};
    assert_int_equal(tdcl_life_gif_open(path, rows, cols, scale, delay, &g, &e), TDCL_OK);
    for (int i = 0; i < nf; i++)
        assert_int_equal(tdcl_life_gif_frame(g, &f[i], &e), TDCL_OK);
    assert_int_equal(tdcl_life_gif_close(g, &e), TDCL_OK);

    int err = 0;
    GifFileType *d = DGifOpenFileName(path, &err);
    assert_non_null(d);
    assert_int_equal(DGifSlurp(d), GIF_OK);
    assert_int_equal(d->SWidth, cols * k);
    assert_int_equal(d->SHeight, rows * k);
    assert_int_equal(d->ImageCount, nf);
    assert_non_null(d->SColorMap);
    assert_int_equal(d->SColorMap->ColorCount, 2);
    const GifColorType *c = d->SColorMap->Colors;
    assert_true(c[0].Red == 255 && c[0].Green == 255 && c[0].Blue == 255); /* dead: white */
    assert_true(c[1].Red == 0 && c[1].Green == 0 && c[1].Blue == 0);       /* alive: black */
    /* loop forever: NETSCAPE2.0 with a count of 0, before the first frame */
    const SavedImage *s0 = &d->SavedImages[0];
    int loop = 0;
    for (int b = 0; b + 1 < s0->ExtensionBlockCount; b++) {
        const ExtensionBlock *x = &s0->ExtensionBlocks[b], *y = x + 1;
        if (x->Function == APPLICATION_EXT_FUNC_CODE && x->ByteCount == 11 &&
            memcmp(x->Bytes, "NETSCAPE2.0", 11) == 0 && y->Function == CONTINUE_EXT_FUNC_CODE &&
            y->ByteCount == 3 && y->Bytes[0] == 1 && y->Bytes[1] == 0 && y->Bytes[2] == 0)
            loop = 1;
    }
    assert_true(loop);
    for (int i = 0; i < nf; i++) {
        const SavedImage *im = &d->SavedImages[i];
        assert_int_equal(im->ImageDesc.Left, 0);
        assert_int_equal(im->ImageDesc.Top, 0);
        assert_int_equal(im->ImageDesc.Width, cols * k);
        assert_int_equal(im->ImageDesc.Height, rows * k);
        assert_false(im->ImageDesc.Interlace);
        GraphicsControlBlock gcb;
        assert_int_equal(DGifSavedExtensionToGCB(d, i, &gcb), GIF_OK);
        assert_int_equal(gcb.DelayTime, delay);
        assert_int_equal(gcb.TransparentColor, NO_TRANSPARENT_COLOR);
        const uint8_t *cells = f[i].data;
        for (int64_t y = 0; y < rows * k; y++)
            for (int64_t x = 0; x < cols * k; x++) {
                int want = cells[(y / k) * cols + x / k] != 0;
                int got = im->RasterBits[y * cols * k + x];
                if (got != want)
                    fail_msg("frame %d pixel (%lld, %lld): %d, the grid says %d", i, (long long)x,
                             (long long)y, got, want);
            }
    }
    assert_int_equal(DGifCloseFile(d, &err), GIF_OK);
}

static void test_round_trip(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir(), *path = tdcl_test_join(dir, "a.gif");
    tdcl_matrix f[4] = {grid(37, 90, 1, -1), grid(37, 90, 2, -1), grid(37, 90, 0, 1),
                        grid(37, 90, 0, 0)}; /* random, random, all alive, all dead */
    round_trip(path, f, 4, 2, 7);
    round_trip(path, f, 4, 1, 0);
    for (int i = 0; i < 4; i++)
        tdcl_matrix_free(&f[i]);
    /* large enough that the LZW table fills and is cleared many times */
    tdcl_matrix big[2] = {grid(300, 257, 3, -1), grid(300, 257, 4, -1)};
    round_trip(path, big, 2, 3, 250);
    tdcl_matrix_free(&big[0]);
    tdcl_matrix_free(&big[1]);
    tdcl_matrix one = grid(1, 1, 0, 1);
    round_trip(path, &one, 1, 5, 1);
    tdcl_matrix_free(&one);
    remove(path);
    rmdir(dir);
    free(path);
    free(dir);
}

static void test_errors(void **state)
{
    (void)state;
    char *dir = tdcl_test_tmpdir(), *path = tdcl_test_join(dir, "b.gif");
    tdcl_life_gif *g = NULL;
    tdcl_err e = {0};
    /* 40000 rows at scale 2 pass GIF's 65535 */
    assert_int_equal(tdcl_life_gif_open(path, 40000, 10, 2, 7, &g, &e), TDCL_ELIMIT);
    assert_null(g);
    assert_non_null(strstr(e.msg, "65535"));
    /* an aborted animation leaves nothing */
    tdcl_matrix f = grid(8, 8, 5, -1), other = grid(9, 8, 5, -1);
    assert_int_equal(tdcl_life_gif_open(path, 8, 8, 1, 7, &g, &e), TDCL_OK);
    assert_int_equal(tdcl_life_gif_frame(g, &f, &e), TDCL_OK);
    assert_int_equal(tdcl_life_gif_frame(g, &other, &e), TDCL_EINVAL); /* another shape */
    tdcl_life_gif_abort(g);
    struct stat sb;
    assert_int_not_equal(stat(path, &sb), 0);
    tdcl_life_gif_abort(NULL);
    /* a directory that does not exist */
    char *bad = tdcl_test_join(dir, "no/such/dir.gif");
    assert_int_equal(tdcl_life_gif_open(bad, 8, 8, 1, 7, &g, &e), TDCL_EIO);
    assert_null(g);
    tdcl_matrix_free(&f);
    tdcl_matrix_free(&other);
    rmdir(dir);
    free(bad);
    free(path);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
