/* scipy .npz sparse matrices: members read and written through libzip,
 * each parsed as .npy by npy.c, entries built into CSR by mtx_csr.c. */
#include "io/npz.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "base/fileio.h"
#include "base/mem.h"
#include "base/pool.h"
#include "io/mtx_impl.h"
#include "io/npy.h"

/* An open archive and its members read so far. */
typedef struct npz {
    const char *name;
    zip_t *za;
    void *buf[6];
    int nbuf;
} npz;

/* The whole content of src: mapped, or read into *owned. */
static tdcl_status slurp(tdcl_src *s, const char **p, size_t *n, char **owned, tdcl_err *err)
{
    *owned = NULL;
    if (tdcl_src_map(s, p, n)) return TDCL_OK;
    size_t cap = 0, got;
    *n = 0;
    do {
        if (*n == cap) {
            char *b = realloc(*owned, cap = cap ? 2 * cap : 1 << 16);
            if (!b) return tdcl_fail(err, TDCL_ENOMEM, "out of memory reading '%s'", s->name);
            *owned = b;
        }
        tdcl_status st = tdcl_src_read(s, *owned + *n, cap - *n, &got, err);
        if (st) return st;
        *n += got;
    } while (got);
    *p = *owned;
    return TDCL_OK;
}

/* Member `member` of the archive, uncompressed, parsed as .npy. */
static tdcl_status member(npz *z, const char *member, tdcl_npy_member *a, tdcl_err *err)
{
    char what[300];
    snprintf(what, sizeof what, "%s:%s", z->name, member);
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat(z->za, member, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
        return tdcl_fail(err, TDCL_EPARSE, "'%s': expected the member '%s' of a scipy sparse .npz",
                         z->name, member);
    tdcl_status s = tdcl_mem_check(st.size, what, 0, 0, err);
    if (s) return s;
    char *buf = malloc(st.size ? (size_t)st.size : 1);
    if (!buf) return tdcl_fail(err, TDCL_ENOMEM, "out of memory reading '%s'", what);
    z->buf[z->nbuf++] = buf;
    zip_file_t *f = zip_fopen(z->za, member, 0);
    zip_int64_t got = f ? zip_fread(f, buf, st.size) : -1;
    const char *why = f ? zip_file_strerror(f) : zip_strerror(z->za);
    if (got != (zip_int64_t)st.size) {
        s = tdcl_fail(err, TDCL_EPARSE, "'%s': cannot read the member: %s", what, why);
        if (f) zip_fclose(f);
        return s;
    }
    zip_fclose(f);
    return tdcl_npy_parse_mem(what, buf, (size_t)st.size, a, err);
}

/* Element k of an integer or bool array (1-D), as int64; 0 and *bad = 1 for
 * a uint64 past int64. */
static int64_t get_int(const tdcl_npy_member *a, uint64_t k, int *bad)
{
    const unsigned char *p = (const unsigned char *)a->data + k * a->item;
    char kind = a->descr[1];
    switch (a->item) {
    case 1:
        return kind == 'i' ? (int64_t)(int8_t)p[0] : (int64_t)p[0];
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return kind == 'i' ? (int64_t)(int16_t)v : (int64_t)v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return kind == 'i' ? (int64_t)(int32_t)v : (int64_t)v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        if (kind == 'u' && v > INT64_MAX) *bad = 1;
        return (int64_t)v;
    }
    }
}

/* 1 for a little-endian integer or bool dtype npz can hold. */
static int int_kind(const tdcl_npy_member *a)
{
    const char *d = a->descr;
    return (d[0] == '<' || d[0] == '|' || d[0] == '=') && strchr("iub", d[1]) &&
           (a->item == 1 || a->item == 2 || a->item == 4 || a->item == 8) &&
           (d[1] != 'b' || a->item == 1);
}

/* An integer array of n elements (1-D), or an error naming it. */
static tdcl_status want_ints(const npz *z, const char *what, const tdcl_npy_member *a, uint64_t n,
                             tdcl_err *err)
{
    if (!int_kind(a) || a->ndim != 1)
        return tdcl_fail(err, TDCL_EPARSE,
                         "'%s': %s: expected a 1-D integer array, got '%s' with %d dimensions",
                         z->name, what, a->descr, a->ndim);
    if (n != UINT64_MAX && a->count != n)
        return tdcl_fail(err, TDCL_EPARSE, "'%s': %s: expected %llu elements, got %llu", z->name,
                         what, (unsigned long long)n, (unsigned long long)a->count);
    return TDCL_OK;
}

/* The format member's text: 'csr', 'csc' or 'coo' (bytes or str). */
static tdcl_status read_format(npz *z, char fmt[4], tdcl_err *err)
{
    tdcl_npy_member a;
    tdcl_status st = member(z, "format.npy", &a, err);
    if (st) return st;
    const unsigned char *p = a.data;
    char kind = a.descr[1];
    size_t step = kind == 'U' ? 4 : 1, len = kind == 'U' ? a.item / 4 : a.item;
    memset(fmt, 0, 4);
    for (size_t k = 0; k < len && k < 3 && (kind == 'S' || kind == 'U'); k++)
        fmt[k] = (char)p[k * step];
    if (a.count != 1 || (strcmp(fmt, "csr") && strcmp(fmt, "csc") && strcmp(fmt, "coo")))
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s': format.npy: expected 'csr', 'csc' or 'coo', got '%s' ('%s')",
                         z->name, fmt, a.descr);
    return TDCL_OK;
}

/* How the data array's values become the matrix's. */
typedef struct vkind {
    int f32, f64, integer, pattern;
} vkind;

static tdcl_status data_kind(const npz *z, const tdcl_npy_member *d, uint64_t nnz, vkind *v,
                             tdcl_err *err)
{
    memset(v, 0, sizeof *v);
    if (d->ndim != 1 || d->count < nnz)
        return tdcl_fail(err, TDCL_EPARSE, "'%s': data.npy: expected %llu values, got %llu",
                         z->name, (unsigned long long)nnz, (unsigned long long)d->count);
    if (strcmp(d->descr, "<f8") == 0 || strcmp(d->descr, "=f8") == 0) {
        v->f64 = 1;
    } else if (strcmp(d->descr, "<f4") == 0 || strcmp(d->descr, "=f4") == 0) {
        v->f32 = 1;
    } else if (int_kind(d)) {
        v->integer = 1;
        if (d->descr[1] == 'b') { /* a bool matrix of True only is a pattern */
            v->pattern = 1;
            for (uint64_t k = 0; k < nnz && v->pattern; k++)
                v->pattern = ((const unsigned char *)d->data)[k] != 0;
        }
    } else {
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s': data.npy: dtype '%s' is not supported (float32, float64, "
                         "integers, bool; little-endian)",
                         z->name, d->descr);
    }
    return TDCL_OK;
}

/* The entries as (row, column, value) in one of the three layouts. */
typedef struct entries {
    int layout; /* 0 csr, 1 csc, 2 coo */
    const tdcl_npy_member *ptr, *idx, *row, *col, *data;
    int64_t rows, cols;
    uint64_t nnz;
} entries;

/* Checks the index arrays: offsets ascending within the index array,
 * indices in range. */
static tdcl_status check_entries(const npz *z, const entries *e, tdcl_err *err)
{
    int bad = 0;
    if (e->layout < 2) {
        int64_t prev = 0, n = e->layout == 0 ? e->rows : e->cols;
        for (int64_t i = 0; i <= n; i++) {
            int64_t v = get_int(e->ptr, (uint64_t)i, &bad);
            if (bad || v < prev || (uint64_t)v > e->idx->count || (i == 0 && v != 0))
                return tdcl_fail(err, TDCL_EPARSE,
                                 "'%s': indptr.npy[%lld] = %lld: expected offsets from 0, "
                                 "ascending, at most %llu",
                                 z->name, (long long)i, (long long)v,
                                 (unsigned long long)e->idx->count);
            prev = v;
        }
    }
    const tdcl_npy_member *ix[2] = {e->layout < 2 ? e->idx : e->row, e->layout < 2 ? NULL : e->col};
    const char *names[2] = {e->layout < 2 ? "indices.npy" : "row.npy", "col.npy"};
    int64_t lim[2] = {e->layout == 0 ? e->cols : e->rows, e->cols};
    for (int a = 0; a < 2 && ix[a]; a++)
        for (uint64_t k = 0; k < e->nnz; k++) {
            int64_t v = get_int(ix[a], k, &bad);
            if (bad || v < 0 || v >= lim[a])
                return tdcl_fail(err, TDCL_EPARSE, "'%s': %s[%llu] = %lld is out of range 0..%lld",
                                 z->name, names[a], (unsigned long long)k, (long long)v,
                                 (long long)lim[a] - 1);
        }
    return TDCL_OK;
}

static val8 value_of(const tdcl_npy_member *d, const vkind *vk, uint64_t k)
{
    val8 v;
    int bad = 0;
    if (vk->f64)
        memcpy(&v.f, (const char *)d->data + k * 8, 8);
    else if (vk->f32) {
        float f;
        memcpy(&f, (const char *)d->data + k * 4, 4);
        v.f = f;
    } else {
        v.i = get_int(d, k, &bad);
    }
    return v;
}

/* Sends every entry to the list of its band of rows, in the arrays' order. */
static tdcl_status fill_lists(const entries *e, const vkind *vk, int nb, const int64_t *bound,
                              mtx_list *lists, tdcl_err *err, const char *name)
{
    int bad = 0;
    uint64_t line = 0; /* the compressed axis of csr/csc */
    for (uint64_t k = 0; k < e->nnz; k++) {
        int64_t i, j;
        if (e->layout == 2) {
            i = get_int(e->row, k, &bad);
            j = get_int(e->col, k, &bad);
        } else {
            while ((uint64_t)get_int(e->ptr, line + 1, &bad) <= k)
                line++;
            i = e->layout == 0 ? (int64_t)line : get_int(e->idx, k, &bad);
            j = e->layout == 0 ? get_int(e->idx, k, &bad) : (int64_t)line;
        }
        int b = (int)((uint64_t)i * (uint64_t)nb / (uint64_t)e->rows);
        while (b > 0 && i < bound[b])
            b--;
        while (b < nb - 1 && i >= bound[b + 1])
            b++;
        mtx_list *l = &lists[b];
        if (l->n == l->cap) {
            size_t cap = l->cap ? 2 * l->cap : 1024;
            mtx_item *p = realloc(l->it, cap * sizeof *p);
            if (!p) return tdcl_fail(err, TDCL_ENOMEM, "out of memory reading '%s'", name);
            l->it = p;
            l->cap = cap;
        }
        l->it[l->n++] =
            (mtx_item){(uint64_t)i * (uint64_t)e->cols + (uint64_t)j, value_of(e->data, vk, k)};
    }
    return TDCL_OK;
}

/* Refuses entries whose CSR arrays and parsed entries would not fit. */
static tdcl_status check_size(const npz *z, const entries *e, const vkind *vk, size_t max_bytes,
                              tdcl_err *err)
{
    char a[32], b[32], what[320];
    size_t bytes;
    uint64_t cells;
    snprintf(what, sizeof what, "'%s': a %lldx%lld sparse matrix with %llu entries", z->name,
             (long long)e->rows, (long long)e->cols, (unsigned long long)e->nnz);
    if (__builtin_mul_overflow((uint64_t)e->rows, (uint64_t)e->cols, &cells) ||
        e->nnz > (uint64_t)INT64_MAX / 32 ||
        tdcl_csr_bytes(e->rows, e->cols, (int64_t)e->nnz, vk->f32 ? TDCL_F32 : TDCL_F64,
                       vk->pattern, &bytes, NULL))
        return tdcl_fail(err, TDCL_ELIMIT, "%s does not fit in memory", what);
    if (max_bytes > 0 && bytes > max_bytes)
        return tdcl_fail(err, TDCL_ELIMIT, "%s needs %s, more than the limit of %s", what,
                         tdcl_mem_size(bytes, a, sizeof a), tdcl_mem_size(max_bytes, b, sizeof b));
    return tdcl_mem_check(bytes + e->nnz * sizeof(mtx_item), what, 0, 0, err);
}

/* Reads the members the format names and checks their shapes. */
static tdcl_status read_members(npz *z, const char *fmt, tdcl_npy_member m[5], entries *e,
                                tdcl_err *err)
{
    tdcl_status st;
    int bad = 0;
    if ((st = member(z, "shape.npy", &m[0], err))) return st;
    if ((st = want_ints(z, "shape.npy", &m[0], 2, err))) return st;
    e->rows = get_int(&m[0], 0, &bad);
    e->cols = get_int(&m[0], 1, &bad);
    if (bad || e->rows < 1 || e->cols < 1)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "'%s': shape.npy: expected rows and cols >= 1, got (%lld, %lld)", z->name,
                         (long long)e->rows, (long long)e->cols);
    e->layout = strcmp(fmt, "csr") == 0 ? 0 : strcmp(fmt, "csc") == 0 ? 1 : 2;
    if (e->layout < 2) {
        int64_t n = e->layout == 0 ? e->rows : e->cols;
        if ((st = member(z, "indptr.npy", &m[1], err))) return st;
        if ((st = want_ints(z, "indptr.npy", &m[1], (uint64_t)n + 1, err))) return st;
        if ((st = member(z, "indices.npy", &m[2], err))) return st;
        if ((st = want_ints(z, "indices.npy", &m[2], UINT64_MAX, err))) return st;
        e->ptr = &m[1];
        e->idx = &m[2];
        e->nnz = (uint64_t)get_int(&m[1], (uint64_t)n, &bad);
    } else {
        if ((st = member(z, "row.npy", &m[1], err))) return st;
        if ((st = want_ints(z, "row.npy", &m[1], UINT64_MAX, err))) return st;
        if ((st = member(z, "col.npy", &m[2], err))) return st;
        if ((st = want_ints(z, "col.npy", &m[2], m[1].count, err))) return st;
        e->row = &m[1];
        e->col = &m[2];
        e->nnz = m[1].count;
    }
    if ((st = member(z, "data.npy", &m[3], err))) return st;
    e->data = &m[3];
    return TDCL_OK;
}

static tdcl_status read_archive(npz *z, size_t max_bytes, tdcl_csr *out, tdcl_err *err)
{
    tdcl_status st;
    char fmt[4];
    tdcl_npy_member m[5];
    entries e = {0};
    vkind vk;
    mtx_list lists[8] = {{0}};
    int64_t bound[9];
    int nb = tdcl_pool_size(0, 8);
    TDCL_TRY(read_format(z, fmt, err));
    TDCL_TRY(read_members(z, fmt, m, &e, err));
    TDCL_TRY(data_kind(z, e.data, e.nnz, &vk, err));
    TDCL_TRY(check_entries(z, &e, err));
    TDCL_TRY(check_size(z, &e, &vk, max_bytes, err));
    for (int b = 0; b <= nb; b++)
        bound[b] = (int64_t)((uint64_t)e.rows * (uint64_t)b / (uint64_t)nb);
    TDCL_TRY(fill_lists(&e, &vk, nb, bound, lists, err, z->name));
    mtx_csr_in in = {.name = z->name,
                     .rows = e.rows,
                     .cols = e.cols,
                     .integer = vk.integer,
                     .pattern = vk.pattern,
                     .f32 = vk.f32,
                     .nb = nb,
                     .bound = bound,
                     .lists = lists,
                     .threads = nb};
    return tdcl_mtx_build_csr(&in, out, err); /* frees the lists */
out:
    for (int b = 0; b < 8; b++)
        free(lists[b].it);
    return st;
}

tdcl_status tdcl_npz_read(tdcl_src *src, size_t max_bytes, tdcl_csr *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    const char *p;
    size_t n;
    char *owned = NULL;
    npz z = {.name = src->name};
    zip_error_t ze;
    zip_error_init(&ze);
    memset(out, 0, sizeof *out);
    TDCL_TRY(slurp(src, &p, &n, &owned, err));
    zip_source_t *zs = zip_source_buffer_create(p, n, 0, &ze);
    if (zs && !(z.za = zip_open_from_source(zs, ZIP_RDONLY, &ze))) zip_source_free(zs);
    if (!z.za) {
        st = tdcl_fail(err, TDCL_EPARSE, "'%s': not a readable zip archive (%s)", src->name,
                       zip_error_strerror(&ze));
        goto out;
    }
    st = read_archive(&z, max_bytes, out, err);
out:
    if (z.za) zip_discard(z.za);
    for (int k = 0; k < z.nbuf; k++)
        free(z.buf[k]);
    zip_error_fini(&ze);
    free(owned);
    return st;
}

tdcl_status tdcl_npz_read_path(const char *path, tdcl_csr *out, tdcl_err *err)
{
    tdcl_src src;
    memset(out, 0, sizeof *out);
    tdcl_status st = tdcl_src_open(&src, path, err);
    if (st) return st;
    st = tdcl_npz_read(&src, 0, out, err);
    tdcl_src_close(&src);
    return st;
}

/* --- writing ------------------------------------------------------------- */

/* One member: a .npy header and the array's bytes, added without a copy. */
typedef struct wmember {
    char hdr[256];
    zip_buffer_fragment_t frag[2];
} wmember;

static int add_member(zip_t *za, wmember *w, const char *name, const char *descr, int ndim,
                      const int64_t *shape, const void *data, size_t bytes)
{
    size_t h = tdcl_npy_header_nd(w->hdr, descr, ndim, shape);
    w->frag[0] = (zip_buffer_fragment_t){(zip_uint8_t *)w->hdr, h};
    w->frag[1] = (zip_buffer_fragment_t){(zip_uint8_t *)(uintptr_t)data, bytes};
    zip_source_t *s = zip_source_buffer_fragment(za, w->frag, bytes ? 2 : 1, 0);
    if (!s) return -1;
    zip_int64_t i = zip_file_add(za, name, s, ZIP_FL_OVERWRITE);
    if (i < 0) {
        zip_source_free(s);
        return -1;
    }
    return zip_set_file_compression(za, (zip_uint64_t)i, ZIP_CM_DEFLATE, 1);
}

/* Adds m's five members to za; the arrays must outlive zip_close. */
static int add_members(zip_t *za, wmember w[5], const tdcl_csr *m, const int64_t shape[2],
                       const void *values)
{
    const char *iw = m->idx64 ? "<i8" : "<i4";
    size_t isz = m->idx64 ? 8 : 4, nnz = (size_t)m->nnz;
    const char *vd = m->pattern             ? "|b1"
                     : m->dtype == TDCL_F32 ? "<f4"
                     : m->dtype == TDCL_F64 ? "<f8"
                                            : "<i8";
    size_t vsz = m->pattern ? 1 : tdcl_dtype_size(m->dtype);
    int64_t n1 = m->nnz, np1 = m->rows + 1, two = 2;
    return add_member(za, &w[0], "indices.npy", iw, 1, &n1, m->colidx, nnz * isz) ||
           add_member(za, &w[1], "indptr.npy", iw, 1, &np1, m->rowptr, (size_t)np1 * isz) ||
           add_member(za, &w[2], "format.npy", "|S3", 0, NULL, "csr", 3) ||
           add_member(za, &w[3], "shape.npy", "<i8", 1, &two, shape, 16) ||
           add_member(za, &w[4], "data.npy", vd, 1, &n1, values, nnz * vsz);
}

/* Copies the archive built in zs to fp. */
static int copy_out(zip_source_t *zs, FILE *fp)
{
    char buf[1 << 16];
    if (zip_source_open(zs) < 0) return -1;
    zip_int64_t got;
    int bad = 0;
    while ((got = zip_source_read(zs, buf, sizeof buf)) > 0)
        bad |= fwrite(buf, 1, (size_t)got, fp) != (size_t)got;
    zip_source_close(zs);
    return bad || got < 0 ? -1 : 0;
}

tdcl_status tdcl_npz_write(FILE *fp, const char *name, const tdcl_csr *m, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    zip_error_t ze;
    zip_error_init(&ze);
    wmember *w = calloc(5, sizeof *w);
    unsigned char *ones = NULL;
    zip_t *za = NULL;
    zip_source_t *zs = zip_source_buffer_create(NULL, 0, 0, &ze);
    if (!w || !zs || (m->pattern && !(ones = malloc(m->nnz ? (size_t)m->nnz : 1)))) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory writing '%s'", name);
        goto out;
    }
    if (ones) memset(ones, 1, m->nnz ? (size_t)m->nnz : 1);
    zip_source_keep(zs);
    int64_t shape[2] = {m->rows, m->cols};
    if (!(za = zip_open_from_source(zs, ZIP_TRUNCATE, &ze)) ||
        add_members(za, w, m, shape, m->pattern ? ones : m->values) || zip_close(za) < 0) {
        st = tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", name,
                       za ? zip_strerror(za) : zip_error_strerror(&ze));
        if (za) zip_discard(za);
        goto out;
    }
    if (copy_out(zs, fp) || fflush(fp))
        st = tdcl_fail(err, TDCL_EIO, "cannot write '%s': %s", name, strerror(errno));
out:
    if (zs) zip_source_free(zs);
    zip_error_fini(&ze);
    free(ones);
    free(w);
    return st;
}

tdcl_status tdcl_npz_write_path(const char *path, const tdcl_csr *m, tdcl_err *err)
{
    tdcl_outfile f;
    tdcl_status st = tdcl_out_open(&f, path, err);
    if (st) return st;
    const char *name = path && strcmp(path, "-") != 0 ? path : "<stdout>";
    st = tdcl_npz_write(f.fp, name, m, err);
    if (st) {
        tdcl_out_abort(&f);
        return st;
    }
    return tdcl_out_commit(&f, err);
}
