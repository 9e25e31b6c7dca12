/* JPEG images in bands through libjpeg (libjpeg-turbo): scanlines decoded
 * as asked for and encoded as given.
 *
 * Decoding uses the accurate integer DCT (JDCT_ISLOW) unless the reader
 * asks for the fast one: ISLOW gives the samples libjpeg-turbo's own tools
 * (djpeg) and Pillow give by default. A progressive file is buffered by
 * libjpeg as coefficients (two bytes a sample) before the first row; a
 * baseline one never is. Grey and colour (YCbCr, RGB) files read; CMYK
 * ones are refused by name. libjpeg reports errors by longjmp, so each
 * call into it sits in a small function with its own setjmp. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>

#include "base/log.h"
#include "base/pool.h"
#include "io/image_int.h"

/* A baseline JPEG of one flat colour takes a few bits per 8x8 block; a
 * header claiming more pixel bytes than this many per file byte lies. */
#define JPEG_MAX_RATIO 8192u

/* The writer's quality when none is asked for, as Pillow's own is 75 and
 * ImageMagick's 92: high enough that a reduction's output is not marked. */
#define JPEG_QUALITY_DEFAULT 90

typedef struct jpeg_errmgr {
    struct jpeg_error_mgr pub;
    jmp_buf jmp;
    char msg[JMSG_LENGTH_MAX];
    const char *name;
    int warned;
} jpeg_errmgr;

static void on_error(j_common_ptr c)
{
    jpeg_errmgr *e = (jpeg_errmgr *)c->err;
    c->err->format_message(c, e->msg);
    longjmp(e->jmp, 1);
}

/* Corrupt-data warnings: libjpeg goes on (as djpeg does); said once. */
static void on_message(j_common_ptr c, int level)
{
    jpeg_errmgr *e = (jpeg_errmgr *)c->err;
    char msg[JMSG_LENGTH_MAX];
    if (level >= 0 || e->warned) return;
    e->warned = 1;
    c->err->format_message(c, msg);
    tdcl_log(TDCL_LOG_WARN, "%s: %s", e->name, msg);
}

typedef struct jpeg_par jpeg_par;

typedef struct jpeg_r {
    struct jpeg_decompress_struct d;
    struct jpeg_source_mgr src;
    jpeg_errmgr err;
    tdcl_img_reader *r;
    int started, created;
    jpeg_par *par; /* decoding by stripes of restart intervals, or NULL */
} jpeg_r;

static void src_init(j_decompress_ptr d)
{
    (void)d;
}

/* Hands libjpeg the whole window of the byte source; at the end of the
 * input, an error (a cut file is refused, not filled with grey). */
static boolean src_fill(j_decompress_ptr d)
{
    jpeg_r *j = (jpeg_r *)d->client_data;
    img_src *s = &j->r->src;
    size_t n = img_src_ensure(s, s->cap ? s->cap : s->n - s->pos);
    if (!n) {
        if (s->ioerr)
            snprintf(j->err.msg, sizeof j->err.msg, "read failed: %s", strerror(s->ioerr));
        else
            snprintf(j->err.msg, sizeof j->err.msg, "truncated: the file ends at byte %" PRIu64,
                     img_src_tell(s));
        longjmp(j->err.jmp, 1);
    }
    j->src.next_input_byte = s->p + s->pos;
    j->src.bytes_in_buffer = n;
    s->pos += n;
    return TRUE;
}

static void src_skip(j_decompress_ptr d, long n)
{
    jpeg_r *j = (jpeg_r *)d->client_data;
    while (n > (long)j->src.bytes_in_buffer) {
        n -= (long)j->src.bytes_in_buffer;
        src_fill(d);
    }
    if (n > 0) {
        j->src.next_input_byte += n;
        j->src.bytes_in_buffer -= (size_t)n;
    }
}

static void src_term(j_decompress_ptr d)
{
    (void)d;
}

static tdcl_status jpg_fail(jpeg_r *j, tdcl_err *err)
{
    return tdcl_fail(err, TDCL_EPARSE, "%s: bad JPEG data: %s", j->r->name, j->err.msg);
}

static tdcl_status open_body(jpeg_r *j, tdcl_err *err)
{
    tdcl_img_reader *r = j->r;
    if (setjmp(j->err.jmp)) return jpg_fail(j, err);
    jpeg_create_decompress(&j->d);
    j->created = 1;
    j->d.client_data = j;
    j->d.src = &j->src;
    jpeg_read_header(&j->d, TRUE);
    J_COLOR_SPACE cs = j->d.jpeg_color_space;
    if (cs == JCS_CMYK || cs == JCS_YCCK)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s' is a CMYK JPEG image; tiledcl reads grey and colour (YCbCr, RGB) "
                         "JPEG images",
                         r->name);
    int ch = cs == JCS_GRAYSCALE ? 1 : 3;
    j->d.out_color_space = ch == 1 ? JCS_GRAYSCALE : JCS_RGB;
    j->d.dct_method = r->opts.fast_dct ? JDCT_IFAST : JDCT_ISLOW;
    double raw = (double)j->d.image_width * j->d.image_height * ch;
    if (r->src.size >= 0 && raw > (double)JPEG_MAX_RATIO * (double)r->src.size + (1 << 20))
        return tdcl_fail(err, TDCL_EPARSE,
                         "%s: header claims %ux%u pixels, more than a file of %" PRId64
                         " bytes can hold compressed",
                         r->name, j->d.image_width, j->d.image_height, r->src.size);
    r->info = (tdcl_img_info){.width = j->d.image_width,
                              .height = j->d.image_height,
                              .channels = ch,
                              .dtype = TDCL_U8,
                              .maxval = 255,
                              .kind = img_kind_jpeg,
                              .file_maxval = 255};
    return TDCL_OK;
}

static tdcl_status jpg_rows(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err);
static void jpg_close(tdcl_img_reader *r);
static const img_rops jpg_ops = {jpg_rows, jpg_close};

/* ---- parallel decoding by restart intervals ------------------------------ */

/* A baseline file whose restart intervals are whole rows of MCUs is cut at
 * its RST markers into stripes, each a JPEG of its own (the headers, the
 * frame's height patched, the stripe's intervals with their markers
 * renumbered from RST0, EOI), decoded by a thread of its own. Where chroma
 * is subsampled vertically, a stripe is decoded with one interval more on
 * each side, whose rows are dropped: libjpeg's upsampling reads the rows
 * next to a boundary, so the kept rows are those of a whole decode, byte
 * for byte. Stripes of 256 rows keep that overhead near 1/8. The file is
 * never held: it is scanned once through a small window for its markers,
 * and each stripe's intervals are read by offset (pread) when decoded. */
typedef struct jpeg_seg {
    size_t at, len; /* entropy-coded bytes of one restart interval */
} jpeg_seg;

/* Bytes of the file at any offset: a window read by pread, or memory. */
#define PAR_WIN (256u << 10)

struct jpeg_par {
    const unsigned char *mem; /* the input when it is in memory, else NULL */
    int fd;
    size_t len;
    unsigned char *win; /* file[woff, woff + wn) while scanning */
    size_t woff, wn;
    unsigned char *hdr; /* the file's bytes up to the entropy-coded data */
    size_t hdr_len;
    size_t sof_at; /* offset of the frame's height */
    jpeg_seg *seg;
    size_t nseg;
    int64_t seg_rows;    /* image rows per interval */
    int64_t stripe_segs; /* intervals kept per stripe */
    int64_t overlap;     /* intervals decoded past each side, dropped */
    int nthr;
    unsigned char *band;
    int64_t band0, nband;
    J_DCT_METHOD dct;
    J_COLOR_SPACE cs;
};

typedef struct stripe_job {
    tdcl_img_reader *r;
    jpeg_par *p;
    int64_t first; /* stripe index of thread 0 */
    int fail[TDCL_POOL_MAX];
    char msg[TDCL_POOL_MAX][JMSG_LENGTH_MAX];
} stripe_job;

/* Reads n bytes at offset off into dst; 0 if the file has fewer. */
static int par_read(const jpeg_par *p, size_t off, void *dst, size_t n)
{
    if (off > p->len || n > p->len - off) return 0;
    if (p->mem) {
        memcpy(dst, p->mem + off, n);
        return 1;
    }
    for (size_t got = 0; got < n;) {
        ssize_t k = pread(p->fd, (unsigned char *)dst + got, n - got, (off_t)(off + got));
        if (k <= 0) return 0;
        got += (size_t)k;
    }
    return 1;
}

/* The byte at offset i (< len), through the window; -1 if unreadable. */
static int par_byte(jpeg_par *p, size_t i)
{
    if (p->mem) return p->mem[i];
    if (i - p->woff >= p->wn) {
        size_t n = p->len - i < PAR_WIN ? p->len - i : PAR_WIN;
        if (!par_read(p, i, p->win, n)) return -1;
        p->woff = i;
        p->wn = n;
    }
    return p->win[i - p->woff];
}

/* Walks the markers to the first SOS: the header's length and the
 * frame's height field; 0 unless a baseline or extended frame. */
static int par_markers(jpeg_par *p)
{
    size_t i = 2;
    while (i + 4 <= p->len) {
        if (par_byte(p, i) != 0xff) return 0;
        int m = par_byte(p, i + 1), hi = par_byte(p, i + 2), lo = par_byte(p, i + 3);
        if (m < 0 || hi < 0 || lo < 0) return 0;
        if (m == 0xff) {
            i++;
            continue;
        }
        size_t seglen = (size_t)hi << 8 | (size_t)lo;
        if (m == 0xc0 || m == 0xc1) p->sof_at = i + 5;
        if (m >= 0xc2 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) return 0;
        i += 2 + seglen;
        if (m == 0xda) {
            p->hdr_len = i;
            if (!p->sof_at || i >= p->len || !(p->hdr = malloc(i))) return 0;
            return par_read(p, 0, p->hdr, i);
        }
    }
    return 0;
}

/* The restart intervals of the entropy-coded data; 0 at any other marker
 * (a second scan, DNL) than RSTn and EOI. */
static int par_segments(jpeg_par *p)
{
    size_t cap = 1024, start = p->hdr_len;
    if (!(p->seg = malloc(cap * sizeof *p->seg))) return 0;
    for (size_t i = p->hdr_len; i + 1 < p->len; i++) {
        int c = par_byte(p, i);
        if (c < 0) return 0;
        if (c != 0xff) continue;
        int m = par_byte(p, i + 1);
        if (m < 0) return 0;
        if (m == 0x00 || m == 0xff) continue;
        if (!(m >= 0xd0 && m <= 0xd7) && m != 0xd9) return 0;
        if (p->nseg == cap) {
            jpeg_seg *g = realloc(p->seg, (cap *= 2) * sizeof *g);
            if (!g) return 0;
            p->seg = g;
        }
        p->seg[p->nseg++] = (jpeg_seg){start, i - start};
        start = i + 2;
        if (m == 0xd9) return 1;
        i++;
    }
    return 0;
}

static void par_free(jpeg_par *p)
{
    if (!p) return;
    free(p->win);
    free(p->hdr);
    free(p->seg);
    free(p->band);
    free(p);
}

/* The JPEG of intervals [a, b): headers, height patched, data, EOI. The
 * intervals lie back to back in the file, each marker between them, so
 * they are read in one piece and their markers renumbered in place. */
static unsigned char *stripe_bytes(const jpeg_par *p, int64_t a, int64_t b, int64_t height,
                                   size_t *n)
{
    size_t data = p->seg[b - 1].at + p->seg[b - 1].len - p->seg[a].at;
    size_t len = p->hdr_len + data + 2;
    unsigned char *s = malloc(len), *o = s + p->hdr_len;
    if (!s) return NULL;
    memcpy(s, p->hdr, p->hdr_len);
    s[p->sof_at] = (unsigned char)(height >> 8);
    s[p->sof_at + 1] = (unsigned char)height;
    if (!par_read(p, p->seg[a].at, o, data)) {
        free(s);
        return NULL;
    }
    for (int64_t k = a + 1; k < b; k++)
        o[p->seg[k].at - p->seg[a].at - 1] = (unsigned char)(0xd0 + ((k - a - 1) & 7));
    o[data] = 0xff;
    o[data + 1] = 0xd9;
    *n = len;
    return s;
}

/* One stripe's decoder: everything the setjmp function changes lives here. */
typedef struct stripe_dec {
    struct jpeg_decompress_struct d;
    jpeg_errmgr e;
    const jpeg_par *p;
    unsigned char *bytes, *row;
    size_t n, rowb;
    int64_t top, bottom, keep0, keep1;
    int created;
} stripe_dec;

static int stripe_run(stripe_dec *s)
{
    if (setjmp(s->e.jmp)) return 1;
    jpeg_create_decompress(&s->d);
    s->created = 1;
    jpeg_mem_src(&s->d, s->bytes, (unsigned long)s->n);
    jpeg_read_header(&s->d, TRUE);
    s->d.out_color_space = s->p->cs;
    s->d.dct_method = s->p->dct;
    jpeg_start_decompress(&s->d);
    for (int64_t y = s->top; y < s->bottom; y++) {
        JSAMPROW rp = y >= s->keep0 && y < s->keep1
                          ? s->p->band + (size_t)(y - s->p->band0) * s->rowb
                          : s->row;
        if (jpeg_read_scanlines(&s->d, &rp, 1) != 1) ERREXIT(&s->d, JERR_INPUT_EOF);
    }
    jpeg_finish_decompress(&s->d);
    return 0;
}

/* Thread i: stripe first + i, its rows into the band. */
static void stripe_decode(void *arg, int i)
{
    stripe_job *job = arg;
    jpeg_par *p = job->p;
    tdcl_img_reader *r = job->r;
    int64_t h = r->info.height, st = job->first + i;
    int64_t a = st * p->stripe_segs, b = a + p->stripe_segs;
    if (b > (int64_t)p->nseg) b = (int64_t)p->nseg;
    if (a >= b) return;
    int64_t a2 = a > p->overlap ? a - p->overlap : 0;
    int64_t b2 = b + p->overlap < (int64_t)p->nseg ? b + p->overlap : (int64_t)p->nseg;
    stripe_dec *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(job->msg[i], sizeof job->msg[i], "out of memory for a stripe");
        job->fail[i] = 1;
        return;
    }
    s->p = p;
    s->top = a2 * p->seg_rows;
    s->bottom = b2 * p->seg_rows < h ? b2 * p->seg_rows : h;
    s->keep0 = a * p->seg_rows;
    s->keep1 = b * p->seg_rows < h ? b * p->seg_rows : h;
    s->rowb = (size_t)r->info.width * (size_t)r->info.channels;
    s->e.name = r->name;
    s->d.err = jpeg_std_error(&s->e.pub);
    s->e.pub.error_exit = on_error;
    s->e.pub.emit_message = on_message;
    s->bytes = stripe_bytes(p, a2, b2, s->bottom - s->top, &s->n);
    s->row = malloc(s->rowb);
    if (!s->bytes || !s->row) {
        snprintf(job->msg[i], sizeof job->msg[i], "out of memory for a stripe");
        job->fail[i] = 1;
    } else if (stripe_run(s)) {
        snprintf(job->msg[i], sizeof job->msg[i], "%s", s->e.msg);
        job->fail[i] = 1;
    }
    if (s->created) jpeg_destroy_decompress(&s->d);
    free(s->bytes);
    free(s->row);
    free(s);
}

static tdcl_status par_band(tdcl_img_reader *r, jpeg_par *p, int64_t y, tdcl_err *err)
{
    int64_t stripe_rows = p->stripe_segs * p->seg_rows;
    stripe_job *job = calloc(1, sizeof *job);
    if (!job) return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory", r->name);
    job->r = r;
    job->p = p;
    job->first = y / stripe_rows;
    p->band0 = job->first * stripe_rows;
    p->nband = r->info.height - p->band0;
    if (p->nband > stripe_rows * p->nthr) p->nband = stripe_rows * p->nthr;
    int n = (int)((p->nband + stripe_rows - 1) / stripe_rows);
    tdcl_pool_run(n, stripe_decode, job);
    tdcl_status st = TDCL_OK;
    for (int i = 0; i < n && !st; i++)
        if (job->fail[i]) {
            p->nband = 0;
            st = tdcl_fail(err, TDCL_EPARSE, "%s: bad JPEG data: %s", r->name, job->msg[i]);
        }
    free(job);
    return st;
}

/* Sets up parallel decoding where it pays and the file allows; the
 * decoder j already read the header. Leaves j->par NULL otherwise. */
static void par_setup(tdcl_img_reader *r, jpeg_r *j)
{
    struct jpeg_decompress_struct *d = &j->d;
    size_t rowb = (size_t)r->info.width * (size_t)r->info.channels;
    int nthr = tdcl_pool_size(r->opts.threads, r->opts.threads > 0 ? TDCL_POOL_MAX : 16);
    if (nthr < 2 || d->progressive_mode || d->arith_code || !d->restart_interval ||
        rowb * (size_t)r->info.height < (4u << 20) || (r->src.fp && r->src.size < 0))
        return;
    int hmax = 1, vmax = 1;
    for (int c = 0; c < d->num_components; c++) {
        if (d->comp_info[c].h_samp_factor > hmax) hmax = d->comp_info[c].h_samp_factor;
        if (d->comp_info[c].v_samp_factor > vmax) vmax = d->comp_info[c].v_samp_factor;
    }
    if (d->num_components == 1) hmax = vmax = 1; /* one block an MCU */
    int64_t mcu_w = 8 * hmax, per_row = ((int64_t)r->info.width + mcu_w - 1) / mcu_w;
    if (d->restart_interval % per_row) return;
    jpeg_par *p = calloc(1, sizeof *p);
    if (!p) return;
    p->seg_rows = (int64_t)(d->restart_interval / per_row) * 8 * vmax;
    p->stripe_segs = p->seg_rows >= 256 ? 1 : 256 / p->seg_rows;
    p->overlap = d->num_components > 1 && vmax > 1;
    /* no more than 256 MiB of stripes in flight */
    size_t stripe_b = rowb * (size_t)(p->stripe_segs * p->seg_rows);
    if ((size_t)nthr * stripe_b > ((size_t)256 << 20)) nthr = (int)(((size_t)256 << 20) / stripe_b);
    p->nthr = nthr > 1 ? nthr : 1;
    p->dct = d->dct_method;
    p->cs = d->out_color_space;
    if (r->src.fp) {
        p->len = (size_t)r->src.size;
        p->fd = fileno(r->src.fp);
        if (!(p->win = malloc(PAR_WIN))) goto drop;
    } else {
        p->mem = r->src.p;
        p->len = r->src.n;
    }
    int64_t nseg = (r->info.height + p->seg_rows - 1) / p->seg_rows;
    if (!par_markers(p) || !par_segments(p) || (int64_t)p->nseg != nseg) goto drop;
    free(p->win); /* the scan is over: stripes read by offset */
    p->win = NULL;
    if (p->nthr < 2 || !(p->band = malloc(stripe_b * (size_t)p->nthr))) goto drop;
    j->par = p;
    tdcl_log(TDCL_LOG_DEBUG, "%s: decoded by %d threads in stripes of %lld rows", r->name, p->nthr,
             (long long)(p->stripe_segs * p->seg_rows));
    return;
drop:
    par_free(p);
}

tdcl_status img_jpeg_open(tdcl_img_reader *r, tdcl_err *err)
{
    jpeg_r *j = calloc(1, sizeof *j);
    if (!j) return tdcl_fail(err, TDCL_ENOMEM, "%s: out of memory", r->name);
    r->fmt = j;
    r->ops = &jpg_ops;
    j->r = r;
    j->d.err = jpeg_std_error(&j->err.pub);
    j->err.pub.error_exit = on_error;
    j->err.pub.emit_message = on_message;
    j->err.name = r->name;
    j->src = (struct jpeg_source_mgr){.init_source = src_init,
                                      .fill_input_buffer = src_fill,
                                      .skip_input_data = src_skip,
                                      .resync_to_restart = jpeg_resync_to_restart,
                                      .term_source = src_term};
    tdcl_status st = open_body(j, err);
    if (!st) par_setup(r, j);
    return st;
}

static void jpg_close(tdcl_img_reader *r)
{
    jpeg_r *j = r->fmt;
    if (!j) return;
    par_free(j->par);
    if (j->created) jpeg_destroy_decompress(&j->d);
    free(j);
}

static tdcl_status rows_body(jpeg_r *j, unsigned char *dst, int64_t nrows, tdcl_err *err)
{
    tdcl_img_reader *r = j->r;
    size_t rowb = (size_t)r->info.width * (size_t)r->info.channels;
    if (setjmp(j->err.jmp)) return jpg_fail(j, err);
    if (!j->started) {
        jpeg_start_decompress(&j->d);
        j->started = 1;
    }
    for (int64_t i = 0; i < nrows;) {
        JSAMPROW rows[16];
        JDIMENSION k, want = (JDIMENSION)(nrows - i < 16 ? nrows - i : 16);
        for (k = 0; k < want; k++)
            rows[k] = dst + (size_t)(i + k) * rowb;
        JDIMENSION got = jpeg_read_scanlines(&j->d, rows, want);
        if (!got) ERREXIT(&j->d, JERR_INPUT_EOF);
        i += got;
    }
    if (r->row + nrows == r->info.height) jpeg_finish_decompress(&j->d);
    return TDCL_OK;
}

static tdcl_status jpg_rows(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err)
{
    jpeg_r *j = r->fmt;
    jpeg_par *p = j->par;
    if (!p) return rows_body(j, dst, nrows, err);
    size_t rowb = (size_t)r->info.width * (size_t)r->info.channels;
    for (int64_t i = 0; i < nrows; i++) {
        int64_t y = r->row + i;
        if (y < p->band0 || y >= p->band0 + p->nband) {
            tdcl_status st = par_band(r, p, y, err);
            if (st) return st;
        }
        memcpy((unsigned char *)dst + (size_t)i * rowb, p->band + (size_t)(y - p->band0) * rowb,
               rowb);
    }
    return TDCL_OK;
}

/* ---- writing ------------------------------------------------------------ */

typedef struct jpeg_w {
    struct jpeg_compress_struct c;
    jpeg_errmgr err;
    int created;
} jpeg_w;

static tdcl_status write_fail(tdcl_img_writer *w, jpeg_w *j, tdcl_err *err)
{
    return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", w->name, j->err.msg);
}

static tdcl_status create_body(tdcl_img_writer *w, jpeg_w *j, tdcl_err *err)
{
    if (setjmp(j->err.jmp)) return write_fail(w, j, err);
    jpeg_create_compress(&j->c);
    j->created = 1;
    jpeg_stdio_dest(&j->c, w->out.fp);
    j->c.image_width = (JDIMENSION)w->info.width;
    j->c.image_height = (JDIMENSION)w->info.height;
    j->c.input_components = w->info.channels;
    j->c.in_color_space = w->info.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&j->c);
    jpeg_set_quality(&j->c, w->o.quality > 0 ? w->o.quality : JPEG_QUALITY_DEFAULT, TRUE);
    j->c.dct_method = JDCT_ISLOW;
    /* a restart marker every row of MCUs (2 bytes and a byte boundary
     * each): readers, this one among them, can then decode in parallel */
    j->c.restart_in_rows = 1;
    jpeg_start_compress(&j->c, TRUE);
    return TDCL_OK;
}

static tdcl_status jpg_wrow(tdcl_img_writer *w, const void *samples, tdcl_err *err);
static tdcl_status jpg_finish(tdcl_img_writer *w, tdcl_err *err);
static void jpg_destroy(tdcl_img_writer *w);
static const img_wops jpg_wops = {jpg_wrow, jpg_finish, jpg_destroy};

tdcl_status img_jpeg_create(tdcl_img_writer *w, tdcl_err *err)
{
    if (w->o.quality < 0 || w->o.quality > 100)
        return tdcl_fail(err, TDCL_EINVAL, "'%s': expected a JPEG quality 1..100, got %d", w->name,
                         w->o.quality);
    jpeg_w *j = calloc(1, sizeof *j);
    if (!j) return tdcl_fail(err, TDCL_ENOMEM, "'%s': out of memory", w->name);
    w->fmt = j;
    w->ops = &jpg_wops;
    w->info.kind = img_kind_jpeg;
    j->c.err = jpeg_std_error(&j->err.pub);
    j->err.pub.error_exit = on_error;
    j->err.pub.emit_message = on_message;
    j->err.name = w->name;
    return create_body(w, j, err);
}

static tdcl_status jpg_wrow(tdcl_img_writer *w, const void *samples, tdcl_err *err)
{
    jpeg_w *j = w->fmt;
    JSAMPROW row = (JSAMPROW)(uintptr_t)samples; /* libjpeg does not write through it */
    if (setjmp(j->err.jmp)) return write_fail(w, j, err);
    jpeg_write_scanlines(&j->c, &row, 1);
    return TDCL_OK;
}

static tdcl_status jpg_finish(tdcl_img_writer *w, tdcl_err *err)
{
    jpeg_w *j = w->fmt;
    if (setjmp(j->err.jmp)) return write_fail(w, j, err);
    jpeg_finish_compress(&j->c);
    return TDCL_OK;
}

static void jpg_destroy(tdcl_img_writer *w)
{
    jpeg_w *j = w->fmt;
    if (j && j->created) jpeg_destroy_compress(&j->c);
    free(j);
}
