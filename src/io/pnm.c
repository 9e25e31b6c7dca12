/* Netpbm images in bands: PBM, PGM and PPM (plain P1-P3 and raw P4-P6)
 * and PAM (P7) of 1..4 channels, any maxval, read and written row by row.
 *
 * Samples of a maxval other than 255 or 65535 are rescaled as netpbm's
 * pamdepth does, round(v * M / maxval), through a table built once. Where
 * the input's size is known, the header's claim is checked against it
 * before any row is read; otherwise a short file fails at the row where it
 * ends. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "io/image_int.h"

typedef struct pnm_r {
    char kind;  /* '1'..'7' */
    int bits;   /* PBM-like output: 1 black, 0 white */
    int invert; /* PAM BLACKANDWHITE stores 0 for black */
    uint32_t maxval;
    int bps;       /* bytes per raw sample */
    uint16_t *lut; /* rescaling table of maxval + 1 entries, NULL when none */
    unsigned char *raw;
    size_t rawb; /* bytes of one raw row */
    int line;    /* of plain files, for messages */
} pnm_r;

static int pnm_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Skips whitespace and '#' comments, counting lines. */
static void pnm_skip(tdcl_img_reader *r, pnm_r *p)
{
    for (int c; (c = img_src_peek(&r->src)) >= 0;) {
        if (c == '#') {
            while ((c = img_src_peek(&r->src)) >= 0 && c != '\n')
                r->src.pos++;
        } else if (pnm_space(c)) {
            p->line += c == '\n';
            r->src.pos++;
        } else {
            break;
        }
    }
}

/* The token at the read position, quoted and shortened, for messages. */
static const char *pnm_token(tdcl_img_reader *r, char *buf, size_t cap)
{
    size_t avail = img_src_ensure(&r->src, 32);
    const unsigned char *t = r->src.p + r->src.pos;
    if (!avail) return "end of file";
    size_t n = 0;
    buf[n++] = '\'';
    for (size_t i = 0; i < avail && n + 5 < cap; i++) {
        unsigned char c = t[i];
        if (pnm_space(c) || (c == '#' && i > 0)) break;
        buf[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
        if (i >= 20) {
            memcpy(buf + n, "...", 3);
            n += 3;
            break;
        }
    }
    buf[n++] = '\'';
    buf[n] = '\0';
    return buf;
}

static tdcl_status pnm_expected(tdcl_img_reader *r, pnm_r *p, tdcl_err *err, const char *what)
{
    char tok[40];
    if (r->src.ioerr) return img_src_short(&r->src, r->name, "", err);
    return tdcl_fail(err, TDCL_EPARSE, "%s:%d: expected %s, got %s", r->name, p->line, what,
                     pnm_token(r, tok, sizeof tok));
}

/* One decimal number in [lo, hi] after whitespace and comments. */
static tdcl_status pnm_uint(tdcl_img_reader *r, pnm_r *p, const char *what, uint32_t lo,
                            uint32_t hi, uint32_t *v, tdcl_err *err)
{
    pnm_skip(r, p);
    size_t avail = img_src_ensure(&r->src, 64), i = 0;
    const unsigned char *t = r->src.p + r->src.pos;
    uint64_t x = 0;
    while (i < avail && t[i] >= '0' && t[i] <= '9' && x <= hi)
        x = x * 10 + (uint64_t)(t[i++] - '0');
    int ends = i >= avail ? avail < 64 : (pnm_space(t[i]) || t[i] == '#');
    if (i == 0 || !ends || x < lo || x > hi) return pnm_expected(r, p, err, what);
    *v = (uint32_t)x;
    r->src.pos += i;
    return TDCL_OK;
}

/* A keyword of a PAM header: the non-space bytes at the read position. */
static size_t pam_word(tdcl_img_reader *r, const unsigned char **t)
{
    size_t avail = img_src_ensure(&r->src, 64), n = 0;
    *t = r->src.p + r->src.pos;
    while (n < avail && !pnm_space((*t)[n]))
        n++;
    return n;
}

/* TUPLTYPE's value: the rest of the line, appended to tupl. */
static void pam_tupltype(tdcl_img_reader *r, char *tupl, size_t cap)
{
    size_t k = strlen(tupl);
    int c;
    while ((c = img_src_peek(&r->src)) == ' ' || c == '\t')
        r->src.pos++;
    if (k && k < cap - 1) tupl[k++] = ' ';
    while ((c = img_src_peek(&r->src)) >= 0 && c != '\n' && c != '\r') {
        r->src.pos++;
        if (k < cap - 1) tupl[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    tupl[k] = '\0';
}

typedef struct pnm_hdr {
    uint32_t w, h, depth, maxval;
    char tupl[40];
} pnm_hdr;

/* PAM: "WIDTH w", "HEIGHT h", "DEPTH d", "MAXVAL m", "TUPLTYPE t" lines up
 * to "ENDHDR" and its newline. */
static tdcl_status pam_fields(tdcl_img_reader *r, pnm_r *p, pnm_hdr *hd, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    for (;;) {
        const unsigned char *t;
        pnm_skip(r, p);
        size_t n = pam_word(r, &t);
#define PAM_KEY(k) (n == sizeof k - 1 && memcmp(t, k, n) == 0)
        if (PAM_KEY("ENDHDR")) {
            r->src.pos += n;
            break;
        }
        int key = PAM_KEY("WIDTH")      ? 1
                  : PAM_KEY("HEIGHT")   ? 2
                  : PAM_KEY("DEPTH")    ? 3
                  : PAM_KEY("MAXVAL")   ? 4
                  : PAM_KEY("TUPLTYPE") ? 5
                                        : 0;
#undef PAM_KEY
        if (!key)
            return pnm_expected(r, p, err, "WIDTH, HEIGHT, DEPTH, MAXVAL, TUPLTYPE or ENDHDR");
        r->src.pos += n;
        if (key == 1) TDCL_TRY(pnm_uint(r, p, "a width 1..2147483647", 1, INT32_MAX, &hd->w, err));
        if (key == 2) TDCL_TRY(pnm_uint(r, p, "a height 1..2147483647", 1, INT32_MAX, &hd->h, err));
        if (key == 3) TDCL_TRY(pnm_uint(r, p, "a depth 1..4", 1, 4, &hd->depth, err));
        if (key == 4) TDCL_TRY(pnm_uint(r, p, "a maxval 1..65535", 1, 65535, &hd->maxval, err));
        if (key == 5) pam_tupltype(r, hd->tupl, sizeof hd->tupl);
    }
    if (img_src_peek(&r->src) != '\n') return pnm_expected(r, p, err, "a newline after ENDHDR");
    r->src.pos++;
    p->line++;
out:
    return st;
}

/* The tuple types read, with their depth; BLACKANDWHITE reads as PBM. */
static tdcl_status pam_check(tdcl_img_reader *r, pnm_r *p, pnm_hdr *hd, tdcl_err *err)
{
    static const struct {
        const char *name;
        uint32_t depth;
    } types[] = {{"GRAYSCALE", 1},           {"BLACKANDWHITE", 1}, {"GRAYSCALE_ALPHA", 2},
                 {"BLACKANDWHITE_ALPHA", 2}, {"RGB", 3},           {"RGB_ALPHA", 4}};
    if (!hd->w || !hd->h || !hd->depth || !hd->maxval)
        return tdcl_fail(err, TDCL_EPARSE, "%s: the PAM header lacks %s", r->name,
                         !hd->w       ? "WIDTH"
                         : !hd->h     ? "HEIGHT"
                         : !hd->depth ? "DEPTH"
                                      : "MAXVAL");
    int known = !*hd->tupl;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        known |= strcmp(hd->tupl, types[i].name) == 0 && hd->depth == types[i].depth;
    if (!known)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s' is a PAM image of %u channel%s (TUPLTYPE %s); tiledcl reads "
                         "GRAYSCALE, GRAYSCALE_ALPHA, RGB, RGB_ALPHA and BLACKANDWHITE PAM images",
                         r->name, hd->depth, hd->depth == 1 ? "" : "s", hd->tupl);
    int bw = strncmp(hd->tupl, "BLACKANDWHITE", 13) == 0;
    if (bw && hd->maxval != 1)
        return tdcl_fail(err, TDCL_EPARSE, "%s: a %s PAM image needs MAXVAL 1, got %u", r->name,
                         hd->tupl, hd->maxval);
    p->bits = p->invert = bw && hd->depth == 1;
    return TDCL_OK;
}

/* P1..P6: width, height and (but for PBM) maxval. */
static tdcl_status pnm_fields(tdcl_img_reader *r, pnm_r *p, pnm_hdr *hd, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int c = img_src_peek(&r->src);
    if (c >= 0 && !pnm_space(c) && c != '#')
        return pnm_expected(r, p, err, "whitespace after the magic number");
    TDCL_TRY(pnm_uint(r, p, "a width 1..2147483647", 1, INT32_MAX, &hd->w, err));
    TDCL_TRY(pnm_uint(r, p, "a height 1..2147483647", 1, INT32_MAX, &hd->h, err));
    hd->maxval = 1;
    hd->depth = p->kind == '3' || p->kind == '6' ? 3 : 1;
    p->bits = p->kind == '1' || p->kind == '4';
    if (!p->bits) TDCL_TRY(pnm_uint(r, p, "a maxval 1..65535", 1, 65535, &hd->maxval, err));
    if (p->kind >= '4') {
        /* raw data starts after exactly one whitespace character */
        if (!pnm_space(img_src_peek(&r->src)))
            return pnm_expected(r, p, err, "one whitespace character before the pixel data");
        p->line += img_src_getc(&r->src) == '\n';
    }
out:
    return st;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

/* Bytes the raster needs at least (exactly, for raw files) against what
 * follows, where the input's size is known. */
static tdcl_status pnm_check_room(tdcl_img_reader *r, const pnm_r *p, const pnm_hdr *hd,
                                  tdcl_err *err)
{
    if (r->src.size < 0) return TDCL_OK;
    uint64_t left = (uint64_t)r->src.size - img_src_tell(&r->src);
    uint64_t samples = mul_sat(mul_sat(hd->w, hd->h), hd->depth), need;
    int raw = p->kind >= '4';
    if (raw)
        need = mul_sat(p->rawb, hd->h);
    else
        need = p->kind == '1' ? samples : 2 * (samples - 1) + 1;
    if (left < need)
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s:%d: header claims %ux%u pixels, which need %s%" PRIu64
                         " bytes, but only %" PRIu64 " bytes follow",
                         r->name, p->line, hd->w, hd->h, raw ? "" : "at least ", need, left);
    if (raw && left > need)
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s: %" PRIu64 " bytes of garbage after the %" PRIu64
                         " bytes of pixel data (one image per file)",
                         r->name, left - need, need);
    return TDCL_OK;
}

/* The output's maxval and the table taking file samples to it. */
static tdcl_status pnm_scale(tdcl_img_reader *r, pnm_r *p, tdcl_err *err)
{
    uint32_t m = p->bits ? 1 : p->maxval <= 255 ? 255 : 65535;
    r->info.maxval = (int)m;
    r->info.dtype = m == 65535 ? TDCL_U16 : TDCL_U8;
    if (p->bits || p->maxval == m) return TDCL_OK;
    if (!(p->lut = malloc(sizeof *p->lut * (p->maxval + 1u))))
        return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory for a rescaling table", r->name);
    for (uint32_t v = 0; v <= p->maxval; v++)
        p->lut[v] = (uint16_t)(((uint64_t)v * m + p->maxval / 2) / p->maxval);
    return TDCL_OK;
}

static tdcl_status pnm_rows(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err);
static void pnm_close(tdcl_img_reader *r);
static const img_rops pnm_ops = {pnm_rows, pnm_close};

tdcl_status img_pnm_open(tdcl_img_reader *r, tdcl_err *err)
{
    static const char *const kinds[7] = {img_kind_pbm, img_kind_pgm, img_kind_ppm, img_kind_pbm,
                                         img_kind_pgm, img_kind_ppm, img_kind_pam};
    tdcl_status st = TDCL_OK;
    pnm_r *p = calloc(1, sizeof *p);
    pnm_hdr hd = {0};
    if (!p) return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory", r->name);
    r->fmt = p;
    r->ops = &pnm_ops;
    p->line = 1;
    p->kind = (char)r->src.p[r->src.pos + 1];
    r->src.pos += 2;
    if (p->kind == '7') {
        TDCL_TRY(pam_fields(r, p, &hd, err));
        TDCL_TRY(pam_check(r, p, &hd, err));
    } else {
        TDCL_TRY(pnm_fields(r, p, &hd, err));
    }
    p->maxval = hd.maxval;
    p->bps = hd.maxval > 255 ? 2 : 1;
    p->rawb =
        p->kind == '4' ? hd.w / 8u + (hd.w % 8u != 0) : (size_t)hd.w * hd.depth * (size_t)p->bps;
    TDCL_TRY(pnm_check_room(r, p, &hd, err));
    r->info = (tdcl_img_info){.width = hd.w,
                              .height = hd.h,
                              .channels = (int)hd.depth,
                              .kind = kinds[p->kind - '1'],
                              .file_maxval = (int)hd.maxval};
    TDCL_TRY(pnm_scale(r, p, err));
    if (p->kind >= '4' && !(p->raw = malloc(p->rawb)))
        st = tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory for a row of %zu bytes", r->name,
                       p->rawb);
out:
    return st;
}

static void pnm_close(tdcl_img_reader *r)
{
    pnm_r *p = r->fmt;
    if (!p) return;
    free(p->lut);
    free(p->raw);
    free(p);
}

static void put(const tdcl_img_reader *r, void *dst, size_t k, uint32_t v)
{
    if (r->info.dtype == TDCL_U16)
        ((uint16_t *)dst)[k] = (uint16_t)v;
    else
        ((uint8_t *)dst)[k] = (uint8_t)v;
}

static tdcl_status plain_row(tdcl_img_reader *r, pnm_r *p, void *dst, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    size_t n = (size_t)r->info.width * (size_t)r->info.channels;
    char what[64];
    snprintf(what, sizeof what, "a sample 0..%u", p->maxval);
    for (size_t k = 0; k < n; k++) {
        uint32_t v;
        if (p->kind == '1') {
            /* P1 digits need no separator: "0110" is four pixels */
            pnm_skip(r, p);
            int c = img_src_peek(&r->src);
            if (c != '0' && c != '1') return pnm_expected(r, p, err, "a pixel '0' or '1'");
            r->src.pos++;
            v = (uint32_t)(c - '0');
        } else {
            TDCL_TRY(pnm_uint(r, p, what, 0, p->maxval, &v, err));
        }
        put(r, dst, k, p->lut ? p->lut[v] : v);
    }
out:
    return st;
}

static tdcl_status raw_row(tdcl_img_reader *r, pnm_r *p, void *dst, tdcl_err *err)
{
    size_t n = (size_t)r->info.width * (size_t)r->info.channels;
    /* 8-bit samples of maxval 255 need no work: straight into dst */
    int direct = p->kind != '4' && p->bps == 1 && !p->lut && !p->invert;
    unsigned char *raw = direct ? dst : p->raw;
    uint64_t at = img_src_tell(&r->src);
    if (img_src_read(&r->src, raw, p->rawb) != p->rawb) {
        char where[80];
        snprintf(where, sizeof where, "inside row %lld of %lld", (long long)r->row + 1,
                 (long long)r->info.height);
        return img_src_short(&r->src, r->name, where, err);
    }
    if (direct) return TDCL_OK;
    if (p->kind == '4') {
        uint8_t *d = dst;
        for (size_t j = 0; j < n; j++)
            d[j] = (raw[j / 8] >> (7 - j % 8)) & 1u;
        return TDCL_OK;
    }
    for (size_t k = 0; k < n; k++) {
        uint32_t v = p->bps == 1 ? raw[k] : ((uint32_t)raw[2 * k] << 8 | raw[2 * k + 1]);
        if (v > p->maxval)
            return tdcl_fail(err, TDCL_EPARSE,
                             "%s: byte %" PRIu64 ": expected a sample 0..%u, got %u (pixel %lld, "
                             "%zu)",
                             r->name, at + k * (size_t)p->bps, p->maxval, v, (long long)r->row,
                             k / (size_t)r->info.channels);
        put(r, dst, k, p->lut ? p->lut[v] : p->invert ? v ^ 1u : v);
    }
    return TDCL_OK;
}

/* After the last row: nothing but (for plain files) whitespace may follow. */
static tdcl_status pnm_end(tdcl_img_reader *r, pnm_r *p, tdcl_err *err)
{
    if (p->kind < '4') {
        pnm_skip(r, p);
        if (img_src_peek(&r->src) < 0 && !r->src.ioerr) return TDCL_OK;
        char what[64];
        snprintf(what, sizeof what, "end of file after %lld pixels",
                 (long long)(r->info.width * r->info.height));
        return pnm_expected(r, p, err, what);
    }
    if (img_src_peek(&r->src) < 0)
        return r->src.ioerr ? img_src_short(&r->src, r->name, "", err) : TDCL_OK;
    uint64_t need = img_src_tell(&r->src), more = 0;
    unsigned char sink[4096];
    for (size_t got; (got = img_src_read(&r->src, sink, sizeof sink));)
        more += got;
    return tdcl_fail(err, TDCL_EPARSE,
                     "%s: %" PRIu64 " bytes of garbage after the %" PRIu64
                     " bytes of pixel data (one image per file)",
                     r->name, more, need);
}

static tdcl_status pnm_rows(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    pnm_r *p = r->fmt;
    size_t rowb = (size_t)r->info.width * (size_t)r->info.channels * tdcl_dtype_size(r->info.dtype);
    int64_t row0 = r->row;
    for (int64_t i = 0; i < nrows; i++, r->row++) {
        void *d = (unsigned char *)dst + (size_t)i * rowb;
        TDCL_TRY(p->kind < '4' ? plain_row(r, p, d, err) : raw_row(r, p, d, err));
    }
    if (r->row == r->info.height) TDCL_TRY(pnm_end(r, p, err));
out:
    r->row = row0; /* the caller counts */
    return st;
}

/* ---- writing ------------------------------------------------------------ */

typedef struct pnm_w {
    char kind;
    unsigned char *buf;
    size_t rowb;
} pnm_w;

static tdcl_status pnm_wrow(tdcl_img_writer *w, const void *samples, tdcl_err *err);
static tdcl_status pnm_finish(tdcl_img_writer *w, tdcl_err *err);
static void pnm_destroy(tdcl_img_writer *w);
static const img_wops pnm_wops = {pnm_wrow, pnm_finish, pnm_destroy};

static int pnm_header(tdcl_img_writer *w, char kind)
{
    static const char *const tupl[5] = {"", "GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"};
    long long cols = (long long)w->info.width, rows = (long long)w->info.height;
    int maxv = w->o.bits == 1 ? 1 : w->o.bits == 8 ? 255 : 65535;
    if (kind == '4') return fprintf(w->out.fp, "P4\n%lld %lld\n", cols, rows);
    if (kind != '7') return fprintf(w->out.fp, "P%c\n%lld %lld\n%d\n", kind, cols, rows, maxv);
    return fprintf(
        w->out.fp, "P7\nWIDTH %lld\nHEIGHT %lld\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\nENDHDR\n", cols,
        rows, w->info.channels, maxv, w->o.bits == 1 ? "BLACKANDWHITE" : tupl[w->info.channels]);
}

tdcl_status img_pnm_create(tdcl_img_writer *w, char kind, tdcl_err *err)
{
    pnm_w *p = calloc(1, sizeof *p);
    size_t n = (size_t)w->info.width * (size_t)w->info.channels;
    if (!p) return tdcl_fail(err, TDCL_ENOMEM, "'%s': out of memory", w->name);
    w->fmt = p;
    w->ops = &pnm_wops;
    p->kind = kind;
    p->rowb = kind == '4' ? (n + 7) / 8 : n * (w->o.bits == 16 ? 2u : 1u);
    if (!(p->buf = malloc(p->rowb)))
        return tdcl_fail(err, TDCL_ENOMEM, "'%s': out of memory for a row buffer", w->name);
    w->info.kind = kind == '4'   ? img_kind_pbm
                   : kind == '5' ? img_kind_pgm
                   : kind == '6' ? img_kind_ppm
                                 : img_kind_pam;
    if (pnm_header(w, kind) < 0)
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", w->name, strerror(errno));
    return TDCL_OK;
}

static tdcl_status pnm_wrow(tdcl_img_writer *w, const void *samples, tdcl_err *err)
{
    pnm_w *p = w->fmt;
    size_t n = (size_t)w->info.width * (size_t)w->info.channels;
    const uint8_t *s8 = samples;
    if (p->kind == '4') {
        memset(p->buf, 0, p->rowb);
        for (size_t k = 0; k < n; k++)
            p->buf[k / 8] |= (unsigned char)((s8[k] & 1u) << (7 - k % 8));
    } else if (w->o.bits == 1) { /* PAM BLACKANDWHITE: 1 is white */
        for (size_t k = 0; k < n; k++)
            p->buf[k] = !s8[k];
    } else if (w->o.bits == 8) {
        memcpy(p->buf, samples, n);
    } else {
        const uint16_t *s16 = samples;
        for (size_t k = 0; k < n; k++) {
            p->buf[2 * k] = (unsigned char)(s16[k] >> 8);
            p->buf[2 * k + 1] = (unsigned char)s16[k];
        }
    }
    if (fwrite(p->buf, 1, p->rowb, w->out.fp) != p->rowb)
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", w->name, strerror(errno));
    return TDCL_OK;
}

static tdcl_status pnm_finish(tdcl_img_writer *w, tdcl_err *err)
{
    (void)w;
    (void)err;
    return TDCL_OK;
}

static void pnm_destroy(tdcl_img_writer *w)
{
    pnm_w *p = w->fmt;
    if (p) free(p->buf);
    free(p);
}
