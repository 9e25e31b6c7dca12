/* Matrix Market and CSR: the reader's parsed coordinate entries turned into
 * a sorted CSR matrix, and a CSR matrix written as coordinate text.
 *
 * Building: each band of rows is built by one thread, in the room its items
 * take in the final arrays (the count of all items bounds the entries):
 * the items are counted per row, placed in file order, and each row is
 * sorted by column (stable) with its duplicates summed in that order.
 * The bands are then moved together and the spare room given back. Peak
 * memory: the parsed items (16 bytes an entry) and the CSR arrays. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/pool.h"
#include "io/mtx.h"
#include "io/mtx_impl.h"
#include "io/numconv.h"

#define MAXB 64

typedef struct bjob {
    const mtx_csr_in *in;
    tdcl_csr *m;
    size_t base[MAXB];                    /* where band b's room starts */
    size_t kept[MAXB];                    /* band b's entries after the duplicates are summed */
    int64_t bad_row[MAXB], bad_col[MAXB]; /* the first int64 overflow, 0-based; -1 none */
    int oom[MAXB];
} bjob;

static inline int64_t get_idx(const void *a, int wide, size_t k)
{
    return wide ? ((const int64_t *)a)[k] : ((const int32_t *)a)[k];
}

static inline void set_idx(void *a, int wide, size_t k, int64_t v)
{
    if (wide)
        ((int64_t *)a)[k] = v;
    else
        ((int32_t *)a)[k] = (int32_t)v;
}

/* Counts band w's items per row and places them, in file order, at
 * base + the row's offset within the band. rowptr[i + 1] ends as the
 * band-relative end of row i. Frees the band's list. */
static void place_band(bjob *j, int w)
{
    const mtx_csr_in *in = j->in;
    tdcl_csr *m = j->m;
    mtx_list *l = &in->lists[w];
    int wide = m->idx64;
    uint64_t cols = (uint64_t)in->cols;
    int64_t r0 = in->bound[w], r1 = in->bound[w + 1];
    for (size_t k = 0; k < l->n; k++) {
        size_t i = (size_t)(l->it[k].cell / cols) + 1;
        set_idx(m->rowptr, wide, i, get_idx(m->rowptr, wide, i) + 1);
    }
    int64_t at = 0; /* rowptr[i + 1] := the start of row i, the cursor */
    for (int64_t i = r0; i < r1; i++) {
        int64_t c = get_idx(m->rowptr, wide, (size_t)i + 1);
        set_idx(m->rowptr, wide, (size_t)i + 1, at);
        at += c;
    }
    val8 *v = m->values;
    for (size_t k = 0; k < l->n; k++) {
        uint64_t cell = l->it[k].cell;
        size_t i = (size_t)(cell / cols) + 1;
        int64_t pos = get_idx(m->rowptr, wide, i);
        set_idx(m->rowptr, wide, i, pos + 1);
        set_idx(m->colidx, wide, j->base[w] + (size_t)pos, (int64_t)(cell % cols));
        if (v) v[j->base[w] + (size_t)pos] = l->it[k].v;
    }
    free(l->it);
    *l = (mtx_list){0};
}

/* Sums the adjacent equal columns of the sorted pairs a[0..n) into
 * a[0..*kept); 0, or -1 on an int64 overflow (at a[*kept]'s column). */
static int sum_dups(const mtx_csr_in *in, tdcl_csr_pair *a, size_t n, size_t *kept)
{
    size_t o = 0;
    for (size_t k = 0; k < n; k++) {
        if (o == 0 || a[o - 1].col != a[k].col) {
            a[o++] = a[k];
            continue;
        }
        if (in->pattern) continue; /* a pattern lists places: one is enough */
        val8 x, y;
        memcpy(&x, &a[o - 1].v, 8);
        memcpy(&y, &a[k].v, 8);
        if (in->integer) {
            if (__builtin_add_overflow(x.i, y.i, &x.i)) {
                *kept = o - 1;
                return -1;
            }
        } else {
            x.f += y.f;
        }
        memcpy(&a[o - 1].v, &x, 8);
    }
    *kept = o;
    return 0;
}

/* Sorts the rows of band w in place and sums their duplicates, moving
 * each row down to the end of the one before; rowptr[i + 1] ends as the
 * band-relative end of row i after the summing. */
static void sort_band(bjob *j, int w, tdcl_csr_pair **buf, size_t *cap)
{
    const mtx_csr_in *in = j->in;
    tdcl_csr *m = j->m;
    int wide = m->idx64;
    val8 *v = m->values;
    size_t base = j->base[w], s = 0, out = 0;
    j->bad_row[w] = -1;
    for (int64_t i = in->bound[w]; i < in->bound[w + 1]; i++) {
        size_t e = (size_t)get_idx(m->rowptr, wide, (size_t)i + 1), n = e - s, k;
        for (k = 1; k < n; k++) /* the usual case: already ascending */
            if (get_idx(m->colidx, wide, base + s + k) <=
                get_idx(m->colidx, wide, base + s + k - 1))
                break;
        if (k >= n) {
            if (out != s) {
                for (k = 0; k < n; k++) {
                    set_idx(m->colidx, wide, base + out + k,
                            get_idx(m->colidx, wide, base + s + k));
                    if (v) v[base + out + k] = v[base + s + k];
                }
            }
            out += n;
        } else {
            if (2 * n > *cap) {
                free(*buf);
                *cap = 2 * n;
                if (!(*buf = malloc(*cap * sizeof **buf))) {
                    j->oom[w] = 1;
                    return;
                }
            }
            tdcl_csr_pair *a = *buf;
            for (k = 0; k < n; k++) {
                a[k].col = get_idx(m->colidx, wide, base + s + k);
                a[k].v = 0;
                if (v) memcpy(&a[k].v, &v[base + s + k], 8);
            }
            tdcl_csr_sort_pairs(a, a + n, n);
            size_t kept;
            if (sum_dups(in, a, n, &kept)) {
                j->bad_row[w] = i;
                j->bad_col[w] = a[kept].col;
                return;
            }
            for (k = 0; k < kept; k++) {
                set_idx(m->colidx, wide, base + out + k, a[k].col);
                if (v) memcpy(&v[base + out + k], &a[k].v, 8);
            }
            out += kept;
        }
        set_idx(m->rowptr, wide, (size_t)i + 1, (int64_t)out);
        s = e;
    }
    j->kept[w] = out;
}

static void build_band(void *arg, int w)
{
    bjob *j = arg;
    tdcl_csr_pair *buf = NULL;
    size_t cap = 0;
    place_band(j, w);
    sort_band(j, w, &buf, &cap);
    free(buf);
}

/* Moves band after band down to follow the one before, and turns the
 * band-relative row ends into offsets. */
static int64_t join_bands(const bjob *j)
{
    const mtx_csr_in *in = j->in;
    tdcl_csr *m = j->m;
    int wide = m->idx64;
    size_t iw = wide ? 8 : 4, at = 0;
    for (int w = 0; w < in->nb; w++) {
        if (j->base[w] != at) {
            memmove((char *)m->colidx + at * iw, (char *)m->colidx + j->base[w] * iw,
                    j->kept[w] * iw);
            if (m->values)
                memmove((val8 *)m->values + at, (val8 *)m->values + j->base[w],
                        j->kept[w] * sizeof(val8));
        }
        for (int64_t i = in->bound[w]; i < in->bound[w + 1]; i++)
            set_idx(m->rowptr, wide, (size_t)i + 1,
                    get_idx(m->rowptr, wide, (size_t)i + 1) + (int64_t)at);
        at += j->kept[w];
    }
    return (int64_t)at;
}

static int64_t row_of(const tdcl_csr *m, int64_t k);

/* Narrows the float64 sums of float32 values to float32 in place; a sum
 * past float32's range is refused. */
static tdcl_status to_f32(const mtx_csr_in *in, tdcl_csr *m, int64_t nnz, tdcl_err *err)
{
    const double *s = m->values;
    float *d = m->values;
    for (int64_t k = 0; k < nnz; k++) {
        double x = s[k];
        d[k] = (float)x;
        if (isinf(d[k]) && !isinf(x))
            return tdcl_fail(err, TDCL_ERANGE,
                             "'%s': the sum of the duplicate entries at (%lld, %lld) is %g, past "
                             "float32's range",
                             in->name, (long long)row_of(m, k) + 1,
                             (long long)tdcl_csr_ci(m, k) + 1, x);
    }
    m->dtype = TDCL_F32;
    return TDCL_OK;
}

tdcl_status tdcl_mtx_build_csr(const mtx_csr_in *in, tdcl_csr *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    bjob *j = calloc(1, sizeof *j);
    size_t total = 0;
    if (!j) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory reading '%s'", in->name);
        goto out;
    }
    j->in = in;
    j->m = out;
    for (int w = 0; w < in->nb; w++) {
        j->base[w] = total;
        total += in->lists[w].n;
    }
    TDCL_TRY(tdcl_csr_alloc(out, in->rows, in->cols, (int64_t)total,
                            in->integer || in->pattern ? TDCL_I64 : TDCL_F64, in->pattern, err));
    tdcl_pool_run(in->nb, build_band, j);
    int bad = -1;
    for (int w = 0; w < in->nb; w++) {
        if (j->oom[w]) {
            st = tdcl_fail(err, TDCL_ENOMEM, "out of memory reading '%s'", in->name);
            goto out;
        }
        if (bad < 0 && j->bad_row[w] >= 0) bad = w; /* the lowest row: bands ascend */
    }
    if (bad >= 0) {
        st = tdcl_fail(err, TDCL_EPARSE,
                       "%s: the sum of the entries at (%lld, %lld) overflows int64", in->name,
                       (long long)j->bad_row[bad] + 1, (long long)j->bad_col[bad] + 1);
        goto out;
    }
    int64_t nnz = join_bands(j);
    if (in->f32) TDCL_TRY(to_f32(in, out, nnz, err));
    tdcl_csr_shrink(out, nnz);
    out->sorted = 1;
out:
    if (st) tdcl_csr_free(out);
    for (int w = 0; w < in->nb; w++) {
        free(in->lists[w].it);
        in->lists[w] = (mtx_list){0};
    }
    free(j);
    return st;
}

/* --- writing ------------------------------------------------------------- */

#define WMAX_ENTRY (2 * 21 + TDCL_NC_MAX + 3)

/* The row holding entry k: the last i with rowptr[i] <= k. */
static int64_t row_of(const tdcl_csr *m, int64_t k)
{
    int64_t lo = 0, hi = m->rows; /* rowptr[lo] <= k < rowptr[hi] */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (tdcl_csr_rp(m, mid) <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static char *fmt_value(char *o, const tdcl_csr *m, int64_t k)
{
    switch (m->dtype) {
    case TDCL_F64:
        return tdcl_nc_format_f64(o, ((const double *)m->values)[k]);
    case TDCL_F32:
        return tdcl_nc_format_f32(o, ((const float *)m->values)[k]);
    default:
        return tdcl_nc_format_i64(o, ((const int64_t *)m->values)[k]);
    }
}

/* Entries k0..k1 as "i j v" (pattern: "i j") lines. */
static size_t fmt_entries(const void *ctx, uint64_t k0, uint64_t k1, char *buf)
{
    const tdcl_csr *m = ctx;
    char *o = buf;
    int64_t i = row_of(m, (int64_t)k0), end = tdcl_csr_rp(m, i + 1);
    for (int64_t k = (int64_t)k0; k < (int64_t)k1; k++) {
        while (k >= end)
            end = tdcl_csr_rp(m, ++i + 1);
        o = tdcl_nc_format_u64(o, (uint64_t)i + 1);
        *o++ = ' ';
        o = tdcl_nc_format_u64(o, (uint64_t)tdcl_csr_ci(m, k) + 1);
        if (!m->pattern) {
            *o++ = ' ';
            o = fmt_value(o, m, k);
        }
        *o++ = '\n';
    }
    return (size_t)(o - buf);
}

tdcl_status tdcl_mtx_write_csr(FILE *fp, const char *name, const tdcl_csr *m,
                               const tdcl_mtx_write_opts *o, tdcl_err *err)
{
    static const tdcl_mtx_write_opts defaults = {0};
    tdcl_status st = TDCL_OK;
    tdcl_csr sorted = {0};
    if (!o) o = &defaults;
    if (!m->sorted) { /* written from a sorted copy: readers expect rows in order */
        TDCL_TRY(tdcl_csr_copy(m, &sorted, err));
        TDCL_TRY(tdcl_csr_sort_rows(&sorted, err));
        m = &sorted;
    }
    const char *field = m->pattern ? "pattern" : tdcl_dtype_is_int(m->dtype) ? "integer" : "real";
    TDCL_TRY(tdcl_mtx_write_header(fp, name, 1, field, o->comment, m->rows, m->cols, m->nnz, err));
    st = tdcl_mtx_write_blocks(fp, name, o->threads, (uint64_t)m->nnz, WMAX_ENTRY, fmt_entries, m,
                               err);
out:
    tdcl_csr_free(&sorted);
    return st;
}

tdcl_status tdcl_mtx_write_csr_path(const char *path, const tdcl_csr *m,
                                    const tdcl_mtx_write_opts *o, tdcl_err *err)
{
    tdcl_outfile f;
    tdcl_status st = tdcl_out_open(&f, path, err);
    if (st) return st;
    const char *name = path && strcmp(path, "-") != 0 ? path : "<stdout>";
    st = tdcl_mtx_write_csr(f.fp, name, m, o, err);
    if (st) {
        tdcl_out_abort(&f);
        return st;
    }
    return tdcl_out_commit(&f, err);
}
