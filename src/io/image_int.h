/* What the image stream's formats share, inside src/io only: the buffered
 * byte source every reader pulls from, and the reader and writer objects
 * with one table of functions per format. */
#ifndef TDCL_IMAGE_INT_H
#define TDCL_IMAGE_INT_H

#include <stdint.h>
#include <stdio.h>

#include "base/fileio.h"
#include "io/imgstream.h"

/* Bytes from a file, a pipe or memory, through a window: p[pos..n) are
 * readable now and p[0] is byte base of the input. */
typedef struct img_src {
    FILE *fp; /* NULL: memory only, p[0..n) is all there is */
    int own;  /* fclose fp at the end */
    unsigned char *buf;
    size_t cap;
    const unsigned char *p;
    size_t n, pos;
    uint64_t base;
    int64_t size; /* bytes in the whole input when known, else -1 */
    int eof;      /* the file has nothing more than the window */
    int ioerr;    /* errno of a failed read, else 0 */
} img_src;

/* Makes up to k bytes (k <= the buffer, 64 KiB) readable at p + pos;
 * returns how many are (fewer only at the end of the input). */
size_t img_src_ensure(img_src *s, size_t k);

/* Copies up to n bytes to dst; returns how many (fewer at the end). */
size_t img_src_read(img_src *s, void *dst, size_t n);

/* The next byte, or -1 at the end; img_src_getc also consumes it. */
int img_src_peek(img_src *s);
int img_src_getc(img_src *s);

/* Offset of the next byte in the input. */
uint64_t img_src_tell(const img_src *s);

/* The rest of a pipe's bytes (from the read position), whole, into a new
 * buffer *data of *len bytes, for formats that seek. */
tdcl_status img_src_slurp(tdcl_img_reader *r, unsigned char **data, uint64_t *len, tdcl_err *err);

/* "the file ends at byte N" or the read error, for messages. */
tdcl_status img_src_short(const img_src *s, const char *name, const char *where, tdcl_err *err);

typedef struct img_rops {
    tdcl_status (*rows)(tdcl_img_reader *r, void *dst, int64_t nrows, tdcl_err *err);
    void (*close)(tdcl_img_reader *r);
} img_rops;

struct tdcl_img_reader {
    img_src src;
    tdcl_img_info info;
    char *name;  /* for messages */
    int64_t row; /* rows handed out */
    const img_rops *ops;
    void *fmt; /* the format's state */
    tdcl_img_ropts opts;
    const char *path; /* while opening: the file, for more handles; NULL for stdin, memory */
};

/* Read the header at the source's start into r->info and set r->ops. */
tdcl_status img_pnm_open(tdcl_img_reader *r, tdcl_err *err);
tdcl_status img_png_open(tdcl_img_reader *r, tdcl_err *err);
tdcl_status img_jpeg_open(tdcl_img_reader *r, tdcl_err *err);
tdcl_status img_tiff_open(tdcl_img_reader *r, tdcl_err *err);
tdcl_status img_bmp_open(tdcl_img_reader *r, tdcl_err *err);

typedef struct img_wops {
    /* One row of converted samples: uint8_t for bits 1 and 8 (PBM: 1
     * black), uint16_t in host order for 16. */
    tdcl_status (*row)(tdcl_img_writer *w, const void *samples, tdcl_err *err);
    tdcl_status (*finish)(tdcl_img_writer *w, tdcl_err *err);
    void (*destroy)(tdcl_img_writer *w);
} img_wops;

struct tdcl_img_writer {
    tdcl_outfile out;
    tdcl_img_info info;
    tdcl_img_wopts o;
    char *name;          /* for messages */
    int64_t row;         /* rows written */
    unsigned char *conv; /* one converted row */
    const img_wops *ops;
    void *fmt;
};

/* Netpbm formats a writer may be: '4' PBM, '5' PGM, '6' PPM, '7' PAM. */
tdcl_status img_pnm_create(tdcl_img_writer *w, char kind, tdcl_err *err);
tdcl_status img_png_create(tdcl_img_writer *w, tdcl_err *err);
tdcl_status img_jpeg_create(tdcl_img_writer *w, tdcl_err *err);
tdcl_status img_tiff_create(tdcl_img_writer *w, tdcl_err *err);

/* The name of a format's kind string, shared by readers and writers. */
extern const char img_kind_png[], img_kind_jpeg[], img_kind_tiff[], img_kind_bmp[], img_kind_pbm[],
    img_kind_pgm[], img_kind_ppm[], img_kind_pam[];

/* 1 on a little-endian host. */
int img_host_le(void);

#endif
