/* Animated GIFs through giflib (io/gif.h). giflib does the LZW and the
 * block framing; this file lays out the frames: the 2-colour global table,
 * the loop extension, and per frame a graphic control block with the delay
 * and the scaled rows. giflib writes through write_out into the
 * tdcl_outfile, so temporary files, renames and the signal cleanup stay
 * the project's. */
#include "io/gif.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>

#include "base/fileio.h"

struct tdcl_life_gif {
    tdcl_outfile f;
    GifFileType *gif;
    int64_t rows, cols;
    int scale, delay_cs;
    int write_errno;   /* errno of the first failed write, else 0 */
    int dropping;      /* aborting: giflib's last writes go nowhere */
    GifByteType *line; /* one scaled row of pixels */
};

/* giflib's output function: into the outfile, or nowhere when aborting. */
static int write_out(GifFileType *gf, const GifByteType *buf, int n)
{
    tdcl_life_gif *g = gf->UserData;
    if (g->dropping) return n;
    if (n > 0 && fwrite(buf, 1, (size_t)n, g->f.fp) != (size_t)n) {
        if (!g->write_errno) g->write_errno = errno ? errno : EIO;
        return 0;
    }
    return n;
}

/* The error of a failed giflib call: the write's errno when a write
 * failed, else giflib's own message. */
static tdcl_status gif_fail(const tdcl_life_gif *g, int gif_err, tdcl_err *err)
{
    const char *name = g->f.path ? g->f.path : "<stdout>";
    if (g->write_errno)
        return tdcl_fail(err, TDCL_EIO, "'%s': write error: %s", name, strerror(g->write_errno));
    if (gif_err == E_GIF_ERR_NOT_ENOUGH_MEM) return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    const char *why = GifErrorString(gif_err);
    return tdcl_fail(err, TDCL_EIO, "'%s': GIF encoder: %s", name, why ? why : "failed");
}

/* Releases g's memory (giflib's handle already closed). */
static void gif_free(tdcl_life_gif *g)
{
    free(g->line);
    free(g);
}

tdcl_status tdcl_life_gif_open(const char *path, int64_t rows, int64_t cols, int scale,
                               int delay_cs, tdcl_life_gif **out, tdcl_err *err)
{
    *out = NULL;
    int64_t k = scale > 1 ? scale : 1;
    if (rows * k > 65535 || cols * k > 65535)
        return tdcl_fail(err, TDCL_ELIMIT,
                         "'%s': a GIF is at most 65535 pixels wide and high; the grid is %" PRId64
                         " x %" PRId64 " cells at scale %d",
                         path, cols, rows, (int)k);
    tdcl_status st = TDCL_OK;
    int e = 0;
    ColorMapObject *map = NULL;
    tdcl_life_gif *g = calloc(1, sizeof *g);
    if (g) g->line = malloc((size_t)(cols * k) + 1);
    if (!g || !g->line) {
        if (g) free(g->line);
        free(g);
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory");
    }
    g->rows = rows;
    g->cols = cols;
    g->scale = (int)k;
    g->delay_cs = delay_cs;
    TDCL_TRY(tdcl_out_open(&g->f, path, err));
    const GifColorType colours[2] = {{255, 255, 255}, {0, 0, 0}}; /* 0 dead, 1 alive */
    if (!(map = GifMakeMapObject(2, colours))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory");
        goto out;
    }
    if (!(g->gif = EGifOpen(g, write_out, &e))) {
        st = gif_fail(g, e, err);
        goto out;
    }
    EGifSetGifVersion(g->gif, true);
    /* loop forever: the NETSCAPE2.0 application extension, count 0 */
    static const GifByteType loop[3] = {1, 0, 0};
    if (EGifPutScreenDesc(g->gif, (int)(cols * k), (int)(rows * k), 1, 0, map) == GIF_ERROR ||
        EGifPutExtensionLeader(g->gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(g->gif, 11, "NETSCAPE2.0") == GIF_ERROR ||
        EGifPutExtensionBlock(g->gif, 3, loop) == GIF_ERROR ||
        EGifPutExtensionTrailer(g->gif) == GIF_ERROR)
        st = gif_fail(g, g->gif->Error, err);
out:
    GifFreeMapObject(map);
    if (st) {
        tdcl_life_gif_abort(g);
        return st;
    }
    *out = g;
    return TDCL_OK;
}

tdcl_status tdcl_life_gif_frame(tdcl_life_gif *g, const tdcl_matrix *grid, tdcl_err *err)
{
    GifFileType *gf = g->gif;
    const int k = g->scale, w = (int)(g->cols * k), h = (int)(g->rows * k);
    if (grid->rows != g->rows || grid->cols != g->cols || grid->dtype != TDCL_U8)
        return tdcl_fail(err, TDCL_EINVAL,
                         "'%s': a frame of %" PRId64 " x %" PRId64 " cells for a %" PRId64
                         " x %" PRId64 " animation",
                         g->f.path ? g->f.path : "<stdout>", grid->cols, grid->rows, g->cols,
                         g->rows);
    GraphicsControlBlock gcb = {.DisposalMode = DISPOSAL_UNSPECIFIED,
                                .UserInputFlag = false,
                                .DelayTime = g->delay_cs,
                                .TransparentColor = NO_TRANSPARENT_COLOR};
    GifByteType ext[4];
    EGifGCBToExtension(&gcb, ext);
    ext[3] = 0; /* the unused transparent index as the GIFs before giflib had it (giflib: 0xff) */
    if (EGifPutExtension(gf, GRAPHICS_EXT_FUNC_CODE, 4, ext) == GIF_ERROR ||
        EGifPutImageDesc(gf, 0, 0, w, h, false, NULL) == GIF_ERROR)
        return gif_fail(g, gf->Error, err);
    const uint8_t *c = grid->data;
    for (int64_t r = 0; r < g->rows; r++) {
        const uint8_t *row = c + r * g->cols;
        for (int x = 0; x < w; x++)
            g->line[x] = row[x / k] ? 1 : 0;
        for (int rep = 0; rep < k; rep++)
            if (EGifPutLine(gf, g->line, w) == GIF_ERROR) return gif_fail(g, gf->Error, err);
    }
    return TDCL_OK;
}

tdcl_status tdcl_life_gif_close(tdcl_life_gif *g, tdcl_err *err)
{
    int e = 0;
    tdcl_status st = TDCL_OK;
    GifFileType *gf = g->gif;
    g->gif = NULL;
    if (EGifCloseFile(gf, &e) == GIF_ERROR) /* writes the trailer; frees gf */
        st = gif_fail(g, e, err);
    if (!st)
        st = tdcl_out_commit(&g->f, err);
    else
        tdcl_out_abort(&g->f);
    gif_free(g);
    return st;
}

void tdcl_life_gif_abort(tdcl_life_gif *g)
{
    if (!g) return;
    g->dropping = 1; /* giflib's closing writes go nowhere */
    if (g->gif) {
        int e;
        EGifCloseFile(g->gif, &e);
        g->gif = NULL;
    }
    tdcl_out_abort(&g->f);
    gif_free(g);
}
