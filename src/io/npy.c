/* .npy reading and writing: the header dictionary, then the raw data. */
#include "io/npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/log.h"
#include "base/pool.h"
#include "io/numconv.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "npy.c reads and writes little-endian data in place");

#define MAX_HEADER ((size_t)1 << 20)

typedef struct npy_hdr {
    tdcl_dtype dtype;
    int have_descr, have_order, have_shape;
    int fortran;
    int64_t shape[2];
} npy_hdr;

int tdcl_npy_magic(const tdcl_src *src)
{
    return src->head_len >= 6 && memcmp(src->head, "\x93NUMPY", 6) == 0;
}

/* A parse cursor over the header text (a Python dict literal). */
typedef struct cur {
    const char *p, *e;
    const char *name;
    tdcl_npy_member *raw; /* non-NULL: any dtype and 0 to 2 dimensions, kept as written */
} cur;

static void ws(cur *c)
{
    while (c->p < c->e && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int eat(cur *c, char ch)
{
    ws(c);
    if (c->p < c->e && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A quoted string ('x' or "x") into out (at most n-1 bytes). */
static int str(cur *c, char *out, size_t n)
{
    ws(c);
    if (c->p >= c->e || (*c->p != '\'' && *c->p != '"')) return 0;
    char q = *c->p++;
    size_t k = 0;
    while (c->p < c->e && *c->p != q) {
        if (k + 1 < n) out[k++] = *c->p;
        c->p++;
    }
    out[k] = '\0';
    if (c->p == c->e) return 0;
    c->p++;
    return 1;
}

static tdcl_status bad(cur *c, const char *expected, tdcl_err *err)
{
    char got[32];
    size_t n = (size_t)(c->e - c->p) < 24 ? (size_t)(c->e - c->p) : 24;
    memcpy(got, c->p, n);
    got[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)got[i] < 0x20) got[i] = ' ';
    return tdcl_fail(err, TDCL_EPARSE, "'%s': npy header: expected %s, got '%s'", c->name, expected,
                     n ? got : "end of header");
}

static tdcl_status parse_descr(cur *c, npy_hdr *h, tdcl_err *err)
{
    static const struct {
        const char *descr;
        tdcl_dtype t;
    } known[] = {{"<f4", TDCL_F32}, {"<f8", TDCL_F64}, {"<i4", TDCL_I32},
                 {"<i8", TDCL_I64}, {"|u1", TDCL_U8},  {"<u2", TDCL_U16}};
    char d[64];
    if (!str(c, d, sizeof d)) return bad(c, "a dtype string such as '<f8' for 'descr'", err);
    if (c->raw) {
        snprintf(c->raw->descr, sizeof c->raw->descr, "%s", d);
        return TDCL_OK;
    }
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(d, known[i].descr) == 0 ||
            (d[0] == '=' && strcmp(d + 1, known[i].descr + 1) == 0)) {
            h->dtype = known[i].t;
            return TDCL_OK;
        }
    if (d[0] == '>')
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s': big-endian data ('%s') is not supported; save it little-endian "
                         "(arr.astype(arr.dtype.newbyteorder('<')))",
                         c->name, d);
    return tdcl_fail(err, TDCL_EUNSUPPORTED,
                     "'%s': dtype '%s' is not supported (float32, float64, int32, int64, "
                     "uint8, uint16)",
                     c->name, d);
}

static tdcl_status parse_shape(cur *c, npy_hdr *h, tdcl_err *err)
{
    if (!eat(c, '(')) return bad(c, "a tuple for 'shape'", err);
    int64_t dims[8];
    int n = 0;
    char txt[128] = "(";
    while (!eat(c, ')')) {
        ws(c);
        uint64_t u;
        int ovf;
        const char *q = tdcl_nc_parse_u64(c->p, c->e, &u, &ovf);
        if (!q || u > INT64_MAX) return bad(c, "a dimension in 'shape'", err);
        c->p = q;
        if (c->p < c->e && (*c->p == 'L' || *c->p == 'l')) c->p++; /* Python 2's long, "(2L, 3L)" */
        if (n < 8) dims[n] = (int64_t)u;
        size_t l = strlen(txt);
        snprintf(txt + l, sizeof txt - l, "%s%llu", n ? ", " : "", (unsigned long long)u);
        n++;
        if (!eat(c, ',') && (ws(c), c->p < c->e && *c->p != ')'))
            return bad(c, "',' or ')' in 'shape'", err);
    }
    size_t l = strlen(txt);
    snprintf(txt + l, sizeof txt - l, "%s)", n == 1 ? "," : "");
    if (c->raw && n <= 2) {
        c->raw->ndim = n;
        for (int k = 0; k < n; k++)
            c->raw->shape[k] = dims[k];
        return TDCL_OK;
    }
    if (n != 2)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "'%s': expected a 2-D array, got shape %s",
                         c->name, txt);
    if (dims[0] < 1 || dims[1] < 1)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "'%s': the array is empty (shape %s)", c->name,
                         txt);
    h->shape[0] = dims[0];
    h->shape[1] = dims[1];
    return TDCL_OK;
}

static tdcl_status parse_entry(cur *c, npy_hdr *h, tdcl_err *err)
{
    char key[32];
    if (!str(c, key, sizeof key)) return bad(c, "a quoted key", err);
    if (!eat(c, ':')) return bad(c, "':' after the key", err);
    ws(c);
    if (strcmp(key, "descr") == 0) {
        h->have_descr = 1;
        return parse_descr(c, h, err);
    }
    if (strcmp(key, "shape") == 0) {
        h->have_shape = 1;
        return parse_shape(c, h, err);
    }
    if (strcmp(key, "fortran_order") == 0) {
        h->have_order = 1;
        if ((size_t)(c->e - c->p) >= 4 && memcmp(c->p, "True", 4) == 0) {
            h->fortran = 1;
            if (c->raw) c->raw->fortran = 1;
            c->p += 4;
        } else if ((size_t)(c->e - c->p) >= 5 && memcmp(c->p, "False", 5) == 0) {
            c->p += 5;
        } else {
            return bad(c, "True or False for 'fortran_order'", err);
        }
        return TDCL_OK;
    }
    return tdcl_fail(err, TDCL_EPARSE,
                     "'%s': npy header: expected the keys 'descr', 'fortran_order' and "
                     "'shape', got '%s'",
                     c->name, key);
}

static tdcl_status parse_dict(const char *name, const char *p, size_t n, npy_hdr *h,
                              tdcl_npy_member *raw, tdcl_err *err)
{
    cur c = {p, p + n, name, raw};
    if (!eat(&c, '{')) return bad(&c, "'{' opening the header dictionary", err);
    while (!eat(&c, '}')) {
        tdcl_status st = parse_entry(&c, h, err);
        if (st) return st;
        if (!eat(&c, ',') && (ws(&c), c.p < c.e && *c.p != '}'))
            return bad(&c, "',' or '}' in the header dictionary", err);
    }
    if (!h->have_descr || !h->have_order || !h->have_shape)
        return tdcl_fail(err, TDCL_EPARSE, "'%s': npy header: missing the key '%s'", name,
                         !h->have_descr   ? "descr"
                         : !h->have_order ? "fortran_order"
                                          : "shape");
    return TDCL_OK;
}

/* Magic, version and the header length; leaves the source at the dict. */
static tdcl_status read_preamble(tdcl_src *s, size_t *hlen, size_t *pre, tdcl_err *err)
{
    unsigned char b[12];
    tdcl_status st = tdcl_src_read_full(s, b, 10, "npy header", err);
    if (st) return st;
    if (memcmp(b, "\x93NUMPY", 6) != 0)
        return tdcl_fail(err, TDCL_EPARSE, "'%s': expected the npy magic '\\x93NUMPY'", s->name);
    if (b[6] < 1 || b[6] > 3 || b[7] != 0)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s': npy format version %u.%u is not supported (1.0, 2.0, 3.0)", s->name,
                         b[6], b[7]);
    if (b[6] == 1) {
        *hlen = (size_t)b[8] | (size_t)b[9] << 8;
        *pre = 10;
        return TDCL_OK;
    }
    if ((st = tdcl_src_read_full(s, b + 10, 2, "npy header", err))) return st;
    uint32_t n =
        (uint32_t)b[8] | (uint32_t)b[9] << 8 | (uint32_t)b[10] << 16 | (uint32_t)b[11] << 24;
    if (n > MAX_HEADER)
        return tdcl_fail(err, TDCL_EPARSE, "'%s': npy header length %u is implausible (over %zu)",
                         s->name, n, MAX_HEADER);
    *hlen = n;
    *pre = 12;
    return TDCL_OK;
}

static tdcl_status read_header(tdcl_src *s, npy_hdr *h, uint64_t *data_off, tdcl_err *err)
{
    size_t hlen = 0, pre = 0;
    tdcl_status st = read_preamble(s, &hlen, &pre, err);
    if (st) return st;
    char *txt = malloc(hlen + 1);
    if (!txt) return tdcl_fail(err, TDCL_ENOMEM, "out of memory reading '%s'", s->name);
    st = tdcl_src_read_full(s, txt, hlen, "npy header", err);
    if (!st) st = parse_dict(s->name, txt, hlen, h, NULL, err);
    free(txt);
    *data_off = pre + hlen;
    return st;
}

/* Compares the data the header promises with what a plain file holds. */
static tdcl_status check_data_size(tdcl_src *s, const npy_hdr *h, uint64_t off, size_t bytes,
                                   tdcl_err *err)
{
    if (!s->regular || s->gz) return TDCL_OK;
    uint64_t held = s->file_size > off ? s->file_size - off : 0;
    if (held == bytes) return TDCL_OK;
    return tdcl_fail(err, TDCL_EPARSE,
                     "'%s': the npy header promises a %lldx%lld %s array (%zu bytes of data), "
                     "but the file holds %llu bytes after the header",
                     s->name, (long long)h->shape[0], (long long)h->shape[1],
                     tdcl_dtype_name(h->dtype), bytes, (unsigned long long)held);
}

tdcl_status tdcl_npy_probe(const char *path, tdcl_npy_info *info, tdcl_err *err)
{
    tdcl_src s;
    npy_hdr h = {0};
    uint64_t off = 0;
    size_t bytes;
    memset(info, 0, sizeof *info);
    tdcl_status st = tdcl_src_open(&s, path, err);
    if (st) return st;
    if (s.is_stdin || !s.regular || s.gz || !tdcl_npy_magic(&s)) {
        st = tdcl_fail(err, TDCL_EUNSUPPORTED, "'%s' is not a plain .npy file", s.name);
        goto out;
    }
    TDCL_TRY(read_header(&s, &h, &off, err));
    TDCL_TRY(tdcl_src_check_size(s.name, h.shape[0], h.shape[1], (int)h.dtype, 0, &bytes, err));
    TDCL_TRY(check_data_size(&s, &h, off, bytes, err));
    if (h.fortran && h.shape[0] > 1 && h.shape[1] > 1) {
        st = tdcl_fail(err, TDCL_EUNSUPPORTED, "'%s' is in Fortran order", s.name);
        goto out;
    }
    *info = (tdcl_npy_info){h.shape[0], h.shape[1], h.dtype, off};
out:
    tdcl_src_close(&s);
    return st;
}

tdcl_status tdcl_npy_read_block(const char *path, const tdcl_npy_info *info, int64_t r0, int64_t r1,
                                int64_t c0, int64_t c1, tdcl_matrix *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    size_t es = tdcl_dtype_size(info->dtype), w = (size_t)(c1 - c0) * es;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    memset(out, 0, sizeof *out);
    if (fd < 0) return tdcl_fail(err, TDCL_EIO, "cannot open '%s': %s", path, strerror(errno));
    TDCL_TRY(tdcl_matrix_alloc(out, r1 - r0, c1 - c0, 1, info->dtype, err));
    for (int64_t r = r0; r < r1; r++) {
        char *dst = (char *)out->data + (size_t)(r - r0) * w;
        off_t at =
            (off_t)(info->data_off + ((uint64_t)r * (uint64_t)info->cols + (uint64_t)c0) * es);
        for (size_t got = 0; got < w;) {
            ssize_t n = pread(fd, dst + got, w - got, at + (off_t)got);
            if (n <= 0) {
                st = tdcl_fail(err, TDCL_EIO, "reading '%s': %s", path,
                               n < 0 ? strerror(errno) : "the file ended early");
                goto out;
            }
            got += (size_t)n;
        }
    }
out:
    close(fd);
    if (st) tdcl_matrix_free(out);
    return st;
}

struct tdcl_npy_rows {
    int fd;
    char *path;
    tdcl_npy_info info;
};

tdcl_status tdcl_npy_rows_open(const char *path, tdcl_npy_rows **out, tdcl_npy_info *info,
                               tdcl_err *err)
{
    tdcl_npy_rows *r = NULL;
    *out = NULL;
    tdcl_status st = tdcl_npy_probe(path, info, err);
    if (st) return st;
    if (!(r = calloc(1, sizeof *r)) || !(r->path = strdup(path))) {
        free(r);
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory opening '%s'", path);
    }
    r->info = *info;
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        st = tdcl_fail(err, TDCL_EIO, "cannot open '%s': %s", path, strerror(errno));
        tdcl_npy_rows_close(r);
        return st;
    }
#ifdef POSIX_FADV_SEQUENTIAL
    (void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL); /* a hint: read ahead further */
#endif
    *out = r;
    return TDCL_OK;
}

tdcl_status tdcl_npy_rows_read(tdcl_npy_rows *r, int64_t r0, int64_t n, void *dst, tdcl_err *err)
{
    const tdcl_npy_info *in = &r->info;
    size_t row = (size_t)in->cols * tdcl_dtype_size(in->dtype);
    if (r0 < 0 || n < 0 || r0 > in->rows || n > in->rows - r0)
        return tdcl_fail(err, TDCL_EINVAL, "'%s': rows %lld to %lld of %lld", r->path,
                         (long long)r0, (long long)(r0 + n), (long long)in->rows);
    size_t want = row * (size_t)n;
    off_t at = (off_t)(in->data_off + (uint64_t)r0 * (uint64_t)row);
    for (size_t got = 0; got < want;) {
        ssize_t k = pread(r->fd, (char *)dst + got, want - got, at + (off_t)got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0)
            return tdcl_fail(err, TDCL_EIO, "reading '%s' at byte %llu: %s", r->path,
                             (unsigned long long)(at + (off_t)got),
                             k < 0 ? strerror(errno) : "the file ended early");
        got += (size_t)k;
    }
    return TDCL_OK;
}

void tdcl_npy_rows_close(tdcl_npy_rows *r)
{
    if (!r) return;
    if (r->fd >= 0) close(r->fd);
    free(r->path);
    free(r);
}

/* Column-major src (rows x cols, element size es) into row-major dst. */
static void transpose(const tdcl_matrix *m, const unsigned char *src, unsigned char *dst)
{
    size_t rows = (size_t)m->rows, cols = (size_t)m->cols, es = tdcl_dtype_size(m->dtype);
    enum { B = 32 }; /* blocks keep both sides in cache */
    for (size_t j0 = 0; j0 < cols; j0 += B)
        for (size_t i0 = 0; i0 < rows; i0 += B)
            for (size_t j = j0; j < j0 + B && j < cols; j++)
                for (size_t i = i0; i < i0 + B && i < rows; i++)
                    memcpy(dst + (i * cols + j) * es, src + (j * rows + i) * es, es);
}

static tdcl_status read_data(tdcl_src *s, const npy_hdr *h, tdcl_matrix *m, size_t bytes,
                             tdcl_err *err)
{
    void *tmp = NULL;
    tdcl_status st = TDCL_OK;
    if (h->fortran && m->rows > 1 && m->cols > 1) {
        if (!(tmp = malloc(bytes)))
            return tdcl_fail(err, TDCL_ENOMEM, "out of memory reading '%s'", s->name);
    }
    TDCL_TRY(tdcl_src_read_full(s, tmp ? tmp : m->data, bytes, "array data", err));
    unsigned char extra;
    size_t got;
    TDCL_TRY(tdcl_src_read(s, &extra, 1, &got, err));
    if (got) {
        st = tdcl_fail(err, TDCL_EPARSE, "'%s': unexpected bytes after the %zu bytes of data",
                       s->name, bytes);
        goto out;
    }
    if (tmp) transpose(m, tmp, m->data);
out:
    free(tmp);
    return st;
}

tdcl_status tdcl_npy_read(tdcl_src *s, size_t max_bytes, tdcl_matrix *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix m = {0};
    npy_hdr h = {0};
    uint64_t off = 0;
    size_t bytes;
    memset(out, 0, sizeof *out);
    TDCL_TRY(read_header(s, &h, &off, err));
    TDCL_TRY(
        tdcl_src_check_size(s->name, h.shape[0], h.shape[1], (int)h.dtype, max_bytes, &bytes, err));
    TDCL_TRY(check_data_size(s, &h, off, bytes, err));
    /* Every byte is overwritten, but calloc of a large block costs nothing
     * more than malloc (fresh pages are zero) and keeps the contract. */
    TDCL_TRY(tdcl_matrix_alloc(&m, h.shape[0], h.shape[1], 1, h.dtype, err));
    TDCL_TRY(read_data(s, &h, &m, bytes, err));
    *out = m;
    memset(&m, 0, sizeof m);
out:
    tdcl_matrix_free(&m);
    return st;
}

void tdcl_mapping_release(tdcl_mapping *map)
{
    if (map && map->addr) munmap(map->addr, map->len);
    if (map) memset(map, 0, sizeof *map);
}

void tdcl_mapping_drop(tdcl_mapping *map)
{
    if (map && map->addr) madvise(map->addr, map->len, MADV_DONTNEED);
}

/* Maps s's whole file read-only with its pages prefaulted (MAP_POPULATE
 * costs the page tables only: the pages are the page cache's); 0 when the
 * source cannot be mapped or mmap fails (the caller reads instead). */
static int map_file(tdcl_src *s, const npy_hdr *h, uint64_t off, tdcl_mapping *map)
{
    if (!s->regular || s->gz || s->is_stdin || s->mem || s->file_size > SIZE_MAX) return 0;
    if (off % 64 || (h->fortran && h->shape[0] > 1 && h->shape[1] > 1)) return 0;
    void *m = mmap(NULL, (size_t)s->file_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, s->fd, 0);
    if (m == MAP_FAILED) return 0;
    map->addr = m;
    map->len = (size_t)s->file_size;
    return 1;
}

tdcl_status tdcl_npy_read_mapped(tdcl_src *s, size_t max_bytes, tdcl_matrix *out, tdcl_mapping *map,
                                 tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix m = {0};
    npy_hdr h = {0};
    uint64_t off = 0;
    size_t bytes;
    memset(out, 0, sizeof *out);
    memset(map, 0, sizeof *map);
    TDCL_TRY(read_header(s, &h, &off, err));
    TDCL_TRY(
        tdcl_src_check_size(s->name, h.shape[0], h.shape[1], (int)h.dtype, max_bytes, &bytes, err));
    TDCL_TRY(check_data_size(s, &h, off, bytes, err));
    if (map_file(s, &h, off, map)) {
        *out = (tdcl_matrix){h.shape[0], h.shape[1], 1, h.dtype, (char *)map->addr + off};
        return TDCL_OK;
    }
    TDCL_TRY(tdcl_matrix_alloc(&m, h.shape[0], h.shape[1], 1, h.dtype, err));
    TDCL_TRY(read_data(s, &h, &m, bytes, err));
    *out = m;
    memset(&m, 0, sizeof m);
out:
    tdcl_matrix_free(&m);
    return st;
}

static const char *descr_of(tdcl_dtype t)
{
    switch (t) {
    case TDCL_F32:
        return "<f4";
    case TDCL_F64:
        return "<f8";
    case TDCL_I32:
        return "<i4";
    case TDCL_I64:
        return "<i8";
    case TDCL_U8:
        return "|u1";
    case TDCL_U16:
        return "<u2";
    }
    return "?";
}

size_t tdcl_npy_header_nd(char *hdr, const char *descr, int ndim, const int64_t *shape)
{
    char dims[64] = "()";
    if (ndim == 1) snprintf(dims, sizeof dims, "(%lld,)", (long long)shape[0]);
    if (ndim == 2)
        snprintf(dims, sizeof dims, "(%lld, %lld)", (long long)shape[0], (long long)shape[1]);
    int n = snprintf(hdr + 10, 246, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr,
                     dims);
    /* numpy pads with spaces and a final newline so the data starts on a
     * 64-byte boundary. */
    size_t total = ((size_t)n + 10 + 1 + 63) / 64 * 64;
    memset(hdr + 10 + n, ' ', total - 10 - (size_t)n);
    hdr[total - 1] = '\n';
    memcpy(hdr, "\x93NUMPY\x01\x00", 8);
    hdr[8] = (char)((total - 10) & 0xff);
    hdr[9] = (char)((total - 10) >> 8);
    return total;
}

/* The version 1.0 header of a rows x cols C-order array of dtype t. */
static size_t npy_header(char *hdr, int64_t rows, int64_t cols, tdcl_dtype t)
{
    int64_t shape[2] = {rows, cols};
    return tdcl_npy_header_nd(hdr, descr_of(t), 2, shape);
}

tdcl_status tdcl_npy_parse_mem(const char *name, const void *data, size_t n, tdcl_npy_member *out,
                               tdcl_err *err)
{
    const unsigned char *b = data;
    memset(out, 0, sizeof *out);
    if (n < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return tdcl_fail(err, TDCL_EPARSE, "'%s': expected the npy magic '\\x93NUMPY'", name);
    if (b[6] < 1 || b[6] > 3 || b[7] != 0)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s': npy format version %u.%u is not supported (1.0, 2.0, 3.0)", name,
                         b[6], b[7]);
    size_t pre = b[6] == 1 ? 10 : 12;
    size_t hlen =
        n < pre ? 0
        : b[6] == 1
            ? ((size_t)b[8] | (size_t)b[9] << 8)
            : ((size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24);
    if (n < pre || hlen > n - pre)
        return tdcl_fail(err, TDCL_EPARSE, "'%s': expected a npy header of %zu bytes, got %zu",
                         name, hlen, n > pre ? n - pre : 0);
    npy_hdr h = {0};
    tdcl_status st = parse_dict(name, (const char *)b + pre, hlen, &h, out, err);
    if (st) return st;
    size_t item = 0; /* the digits that end the descr: '<i4' -> 4, '|S3' -> 3 */
    const char *d = out->descr;
    const char *q = d + strlen(d);
    while (q > d && q[-1] >= '0' && q[-1] <= '9')
        q--;
    for (; *q && item < 4096; q++)
        item = item * 10 + (size_t)(*q - '0');
    if (d[0] && d[1] == 'U') item *= 4; /* UTF-32 characters */
    if (item == 0 || item >= 4096)
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "'%s': dtype '%s' is not supported", name, d);
    uint64_t count = 1;
    for (int k = 0; k < out->ndim; k++)
        if (out->shape[k] && count > UINT64_MAX / (uint64_t)out->shape[k] / item)
            return tdcl_fail(err, TDCL_EPARSE, "'%s': the array's shape is too large", name);
        else
            count *= (uint64_t)out->shape[k];
    size_t left = n - pre - hlen;
    if (count * item > left)
        return tdcl_fail(err, TDCL_EPARSE,
                         "'%s': expected %llu bytes of data, the member holds %zu", name,
                         (unsigned long long)(count * item), left);
    out->item = item;
    out->count = count;
    out->data = b + pre + hlen;
    return TDCL_OK;
}

tdcl_status tdcl_npy_write_header(FILE *fp, const char *name, const tdcl_matrix *m, size_t *off,
                                  tdcl_err *err)
{
    if (m->channels != 1)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s': .npy output takes 2-D matrices, got %d channels", name,
                         m->channels);
    char hdr[256];
    size_t total = npy_header(hdr, m->rows, m->cols, m->dtype);
    if (off) *off = total;
    if (fwrite(hdr, 1, total, fp) != total)
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", name, strerror(errno));
    return TDCL_OK;
}

tdcl_status tdcl_npy_write(FILE *fp, const char *name, const tdcl_matrix *m, tdcl_err *err)
{
    tdcl_status st = tdcl_npy_write_header(fp, name, m, NULL, err);
    size_t bytes = tdcl_matrix_count(m) * tdcl_dtype_size(m->dtype);
    if (st == TDCL_OK && fwrite(m->data, 1, bytes, fp) != bytes)
        return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", name, strerror(errno));
    return st;
}

struct tdcl_npy_out {
    tdcl_outfile of;
    const char *name;
    int64_t rows, cols;
    tdcl_dtype dtype;
    size_t hdr, bytes; /* header and data bytes */
    size_t left;       /* data bytes still to come (atomic) */
};

tdcl_status tdcl_npy_out_open(const char *path, int64_t rows, int64_t cols, tdcl_dtype t,
                              tdcl_npy_out **out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    char hdr[256];
    struct stat sb;
    *out = NULL;
    if (!path || strcmp(path, "-") == 0 || (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)))
        return tdcl_fail(err, TDCL_EUNSUPPORTED, "'%s': written in pieces only to a regular file",
                         path ? path : "-");
    tdcl_npy_out *w = calloc(1, sizeof *w);
    if (!w) return tdcl_fail(err, TDCL_ENOMEM, "out of memory writing '%s'", path);
    w->name = path;
    w->rows = rows;
    w->cols = cols;
    w->dtype = t;
    w->hdr = npy_header(hdr, rows, cols, t);
    w->bytes = w->left = (size_t)rows * (size_t)cols * tdcl_dtype_size(t);
    TDCL_TRY(tdcl_out_open(&w->of, path, err));
    if (fwrite(hdr, 1, w->hdr, w->of.fp) != w->hdr || fflush(w->of.fp) != 0) {
        st = tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", path, strerror(errno));
        goto out;
    }
    *out = w;
    w = NULL;
out:
    tdcl_npy_out_abort(w);
    return st;
}

tdcl_status tdcl_npy_out_write(void *user, size_t pos, const void *p, size_t n, tdcl_err *err)
{
    tdcl_npy_out *w = user;
    if (pos > w->bytes || n > w->bytes - pos)
        return tdcl_fail(err, TDCL_EINVAL, "'%s': bytes %zu..%zu lie past the array's %zu", w->name,
                         pos, pos + n, w->bytes);
    const char *b = p;
    int fd = fileno(w->of.fp);
    for (size_t done = 0; done < n;) {
        ssize_t k = pwrite(fd, b + done, n - done, (off_t)(w->hdr + pos + done));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0)
            return tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", w->name,
                             k < 0 ? strerror(errno) : "no progress");
        done += (size_t)k;
    }
    __atomic_sub_fetch(&w->left, n, __ATOMIC_RELAXED);
    return TDCL_OK;
}

tdcl_status tdcl_npy_out_commit(tdcl_npy_out *w, tdcl_err *err)
{
    tdcl_status st;
    if (w->left)
        st = tdcl_fail(err, TDCL_EIO, "'%s': %zu bytes of the array never came; nothing written",
                       w->name, w->left);
    else
        st = tdcl_out_commit(&w->of, err);
    tdcl_npy_out_abort(w);
    return st;
}

void tdcl_npy_out_abort(tdcl_npy_out *w)
{
    if (!w) return;
    tdcl_out_abort(&w->of);
    free(w);
}

#define SAVE_MIN ((size_t)16 << 20) /* smaller arrays: one write */

typedef struct save {
    tdcl_npy_out *w;
    const unsigned char *data;
    size_t bytes;
    int parts;
    tdcl_status st[TDCL_POOL_MAX];
    tdcl_err *err;
} save;

static void save_part(void *arg, int i)
{
    save *s = arg;
    size_t a = s->bytes / (size_t)s->parts * (size_t)i;
    size_t b = i + 1 == s->parts ? s->bytes : s->bytes / (size_t)s->parts * (size_t)(i + 1);
    s->st[i] = tdcl_npy_out_write(s->w, a, s->data + a, b - a, &s->err[i]);
}

/* The file's space allocated now (tdcl_out_reserve): done while the
 * caller waits for the device, it takes the file system's share of the
 * writing off the critical path. */
static tdcl_status reserve(tdcl_npy_out *w, tdcl_err *err)
{
    return tdcl_out_reserve(&w->of, (unsigned long long)(w->hdr + w->bytes), err);
}

tdcl_status tdcl_npy_out_early(const char *path, int64_t rows, int64_t cols, tdcl_dtype t,
                               tdcl_npy_out **out, tdcl_err *err)
{
    tdcl_err e = {0};
    double t0 = tdcl_now_ms();
    *out = NULL;
    if (!path || strcmp(path, "-") == 0 || !tdcl_path_has_ext(path, ".npy")) return TDCL_OK;
    tdcl_status st = tdcl_npy_out_open(path, rows, cols, t, out, &e);
    if (st == TDCL_EUNSUPPORTED) return TDCL_OK; /* a FIFO, a device: in order, later */
    if (!st) st = reserve(*out, &e);
    if (st) {
        tdcl_npy_out_abort(*out);
        *out = NULL;
        if (err) *err = e;
        return st;
    }
    tdcl_log(TDCL_LOG_VERBOSE, "'%s' opened and its space reserved in %.1f ms", path,
             tdcl_now_ms() - t0);
    return TDCL_OK;
}

int tdcl_npy_out_fits(const tdcl_npy_out *w, const tdcl_matrix *m)
{
    return m->channels == 1 && m->rows == w->rows && m->cols == w->cols && m->dtype == w->dtype;
}

static tdcl_status write_all(tdcl_npy_out *w, const void *data, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    save s = {.w = w, .data = data, .bytes = w->bytes};
    s.parts = s.bytes < SAVE_MIN ? 1 : tdcl_pool_size(0, 8);
    if (!(s.err = calloc((size_t)s.parts, sizeof *s.err)))
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory writing '%s'", w->name);
    tdcl_pool_run(s.parts, save_part, &s);
    for (int i = 0; i < s.parts && !st; i++)
        if ((st = s.st[i]) && err) *err = s.err[i];
    free(s.err);
    return st;
}

tdcl_status tdcl_npy_out_finish(tdcl_npy_out *w, const void *data, tdcl_err *err)
{
    tdcl_status st = write_all(w, data, err);
    if (st) {
        tdcl_npy_out_abort(w);
        return st;
    }
    return tdcl_npy_out_commit(w, err); /* frees w either way */
}

tdcl_status tdcl_npy_save(const char *path, const tdcl_matrix *m, int *done, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_err e = {0};
    tdcl_npy_out *w = NULL;
    *done = 0;
    if (m->channels != 1 || tdcl_matrix_count(m) * tdcl_dtype_size(m->dtype) < SAVE_MIN)
        return TDCL_OK;
    st = tdcl_npy_out_open(path, m->rows, m->cols, m->dtype, &w, &e);
    if (st == TDCL_EUNSUPPORTED) return TDCL_OK; /* not a regular file */
    if (st && err) *err = e;
    if (st) return st;
    st = tdcl_npy_out_finish(w, m->data, err);
    *done = !st;
    return st;
}
