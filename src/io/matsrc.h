/* Input for the matrix readers: a file or stdin, plain or gzip-compressed.
 *
 * A source opens the file, keeps its first bytes for magic-number checks,
 * and then offers the content either mapped whole (a plain regular file: the
 * fastest path, no copy) or as a stream of bytes (pipes and gzip, inflated
 * through zlib as they are read), so the parsers never hold more than the
 * file itself in memory. Internal to matio, mtx and npy. */
#ifndef TDCL_MATSRC_H
#define TDCL_MATSRC_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

#define TDCL_SRC_HEAD 4096

typedef struct tdcl_src {
    const char *path; /* as given ("-" = stdin); borrowed */
    const char *name; /* for messages ("<stdin>" for "-") */
    int fd;           /* -1 once closed */
    int is_stdin;
    int regular;                       /* a regular file: file_size is known */
    uint64_t file_size;                /* bytes on disk (compressed size for gzip) */
    int gz;                            /* starts with the gzip magic bytes */
    unsigned char head[TDCL_SRC_HEAD]; /* the first bytes, as stored */
    size_t head_len, head_pos;
    void *map; /* the whole file when mapped, else NULL */
    size_t map_len;
    void *zs;           /* z_stream when inflating */
    unsigned char *zin; /* inflate input buffer */
    int z_end;          /* the compressed stream is finished */
    int raw_eof;
    const unsigned char *mem; /* tdcl_src_open_mem: the content, borrowed */
    size_t mem_len, mem_pos;
    uint64_t consumed; /* content bytes handed out by tdcl_src_read */
} tdcl_src;

/* Opens path ("-" = stdin) and reads its first bytes. On failure names the
 * file and the reason; s is then closed. */
tdcl_status tdcl_src_open(tdcl_src *s, const char *path, tdcl_err *err);

/* A source over len bytes in memory (borrowed; they must outlive s), shown
 * as name in messages: for fuzzing and for callers holding data already. */
void tdcl_src_open_mem(tdcl_src *s, const char *name, const void *data, size_t len);

/* Maps a plain (not compressed) regular file whole and returns it in *p,
 * *n. Returns 0, leaving p NULL, when the source is a pipe, compressed or
 * empty (the caller streams instead). Call before any tdcl_src_read. */
int tdcl_src_map(tdcl_src *s, const char **p, size_t *n);

/* Reads up to n content bytes (inflated when gzip) into dst; *got is 0 only
 * at the end of the content. Names the file on read or inflate errors. */
tdcl_status tdcl_src_read(tdcl_src *s, void *dst, size_t n, size_t *got, tdcl_err *err);

/* Reads exactly n bytes, or fails with TDCL_EPARSE "expected N bytes of
 * WHAT, the file ends after K". */
tdcl_status tdcl_src_read_full(tdcl_src *s, void *dst, size_t n, const char *what, tdcl_err *err);

/* An upper bound on the content bytes: the file size, or for gzip files
 * the compressed size times deflate's largest ratio (1032). UINT64_MAX when
 * unknown (pipes). */
uint64_t tdcl_src_max_content(const tdcl_src *s);

/* Releases everything; accepts NULL and a closed source. */
void tdcl_src_close(tdcl_src *s);

/* Refuses, before any allocation, a rows x cols matrix of dtype from name
 * whose dense size overflows, exceeds max_bytes (when > 0), this host's
 * physical memory or what the process may still allocate (tdcl_mem_check:
 * its limits, the memory available): TDCL_ELIMIT naming the limit. Stores the size in *bytes. */
tdcl_status tdcl_src_check_size(const char *name, int64_t rows, int64_t cols, int dtype,
                                size_t max_bytes, size_t *bytes, tdcl_err *err);

#endif
