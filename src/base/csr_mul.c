#include "base/csr_mul.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

__extension__ typedef __int128 i128;

static void set_rp(tdcl_csr *m, int64_t i, int64_t v)
{
    if (m->idx64)
        ((int64_t *)m->rowptr)[i] = v;
    else
        ((int32_t *)m->rowptr)[i] = (int32_t)v;
}

static void set_ci(tdcl_csr *m, int64_t k, int64_t v)
{
    if (m->idx64)
        ((int64_t *)m->colidx)[k] = v;
    else
        ((int32_t *)m->colidx)[k] = (int32_t)v;
}

int64_t tdcl_csr_mul_work(const tdcl_csr *a, const tdcl_csr *b, int64_t *row_work)
{
    int64_t total = 0;
    for (int64_t i = 0; i < a->rows; i++) {
        int64_t w = 0;
        for (int64_t p = tdcl_csr_rp(a, i); p < tdcl_csr_rp(a, i + 1); p++) {
            int64_t k = tdcl_csr_ci(a, p);
            w += tdcl_csr_rp(b, k + 1) - tdcl_csr_rp(b, k);
        }
        if (row_work) row_work[i] = w;
        total += w;
    }
    return total;
}

static int is_float(const tdcl_csr *m)
{
    return !m->pattern && (m->dtype == TDCL_F32 || m->dtype == TDCL_F64);
}

tdcl_dtype tdcl_csr_mul_dtype(const tdcl_csr *a, const tdcl_csr *b)
{
    int fa = is_float(a), fb = is_float(b);
    if (fa && fb && a->dtype == TDCL_F32 && b->dtype == TDCL_F32) return TDCL_F32;
    if ((fa && a->dtype == TDCL_F32 && b->pattern) || (fb && b->dtype == TDCL_F32 && a->pattern))
        return TDCL_F32;
    return fa || fb ? TDCL_F64 : TDCL_I64;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The accumulator of one row: a value per column of B, and the columns
 * touched, in a list, with the row that last touched each (mark). */
typedef struct acc {
    double *f;
    i128 *n;
    int64_t *mark, *list;
} acc;

static void acc_free(acc *s)
{
    free(s->f);
    free(s->n);
    free(s->mark);
    free(s->list);
}

static tdcl_status acc_alloc(acc *s, int64_t cols, int exact, tdcl_err *err)
{
    memset(s, 0, sizeof *s);
    size_t n = cols ? (size_t)cols : 1;
    uint64_t bytes = (uint64_t)n * (exact ? 32 : 24);
    tdcl_status st = tdcl_mem_check(bytes, "the product's row accumulator", 0, 0, err);
    if (st != TDCL_OK) return st;
    s->mark = malloc(n * sizeof *s->mark);
    s->list = malloc(n * sizeof *s->list);
    if (exact)
        s->n = calloc(n, sizeof *s->n);
    else
        s->f = calloc(n, sizeof *s->f);
    if (!s->mark || !s->list || (!s->n && !s->f)) {
        acc_free(s);
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory for the product's row accumulator");
    }
    for (size_t j = 0; j < n; j++)
        s->mark[j] = -1;
    return TDCL_OK;
}

/* Gathers row i of A*B into s: returns the number of columns touched
 * (listed in s->list, unsorted); with values, sums them too. */
static int64_t gather_row(const tdcl_csr *a, const tdcl_csr *b, int64_t i, acc *s, int values)
{
    int64_t cnt = 0;
    for (int64_t p = tdcl_csr_rp(a, i); p < tdcl_csr_rp(a, i + 1); p++) {
        int64_t k = tdcl_csr_ci(a, p);
        double af = values && s->f ? tdcl_csr_get_f64(a, p) : 0;
        int64_t an = values && s->n ? tdcl_csr_get_i64(a, p) : 0;
        for (int64_t q = tdcl_csr_rp(b, k); q < tdcl_csr_rp(b, k + 1); q++) {
            int64_t j = tdcl_csr_ci(b, q);
            if (s->mark[j] != i) {
                s->mark[j] = i;
                s->list[cnt++] = j;
            }
            if (!values) continue;
            if (s->f)
                s->f[j] += af * tdcl_csr_get_f64(b, q);
            else
                s->n[j] += (i128)an * tdcl_csr_get_i64(b, q);
        }
    }
    return cnt;
}

/* Writes the gathered row i into C at offset k0, sorted, and clears the
 * accumulator; TDCL_ERANGE for an integer sum outside int64. */
static tdcl_status store_row(tdcl_csr *c, acc *s, int64_t i, int64_t cnt, int64_t k0, tdcl_err *err)
{
    qsort(s->list, (size_t)cnt, sizeof *s->list, cmp_i64);
    for (int64_t t = 0; t < cnt; t++) {
        int64_t j = s->list[t];
        set_ci(c, k0 + t, j);
        if (s->f) {
            ((double *)c->values)[k0 + t] = s->f[j];
            s->f[j] = 0;
            continue;
        }
        i128 v = s->n[j];
        s->n[j] = 0;
        if (v > INT64_MAX || v < INT64_MIN)
            return tdcl_fail(err, TDCL_ERANGE,
                             "the exact int64 product overflows: element (%" PRId64 ", %" PRId64
                             ") of C (row, column from 1) lies outside the int64 range",
                             i + 1, j + 1);
        ((int64_t *)c->values)[k0 + t] = (int64_t)v;
    }
    return TDCL_OK;
}

static tdcl_status check_shapes(const tdcl_csr *a, const tdcl_csr *b, tdcl_err *err)
{
    if (a->cols != b->rows)
        return tdcl_fail(err, TDCL_EINVAL,
                         "cannot multiply a %" PRId64 "x%" PRId64 " matrix by a %" PRId64
                         "x%" PRId64 " one: the inner sizes differ",
                         a->rows, a->cols, b->rows, b->cols);
    return TDCL_OK;
}

tdcl_status tdcl_csr_mul_host(const tdcl_csr *a, const tdcl_csr *b, int64_t max_entries,
                              tdcl_csr *c, tdcl_err *err)
{
    memset(c, 0, sizeof *c);
    tdcl_status st = check_shapes(a, b, err);
    if (st != TDCL_OK) return st;
    int exact = tdcl_csr_mul_dtype(a, b) == TDCL_I64;
    acc s;
    if ((st = acc_alloc(&s, b->cols, exact, err)) != TDCL_OK) return st;
    int64_t nnz = 0;
    for (int64_t i = 0; i < a->rows; i++)
        nnz += gather_row(a, b, i, &s, 0);
    if (max_entries > 0 && nnz > max_entries) {
        st = tdcl_fail(err, TDCL_ELIMIT,
                       "the product has %" PRId64 " entries, more than the %" PRId64 " allowed",
                       nnz, max_entries);
        goto out;
    }
    if ((st = tdcl_csr_alloc(c, a->rows, b->cols, nnz, exact ? TDCL_I64 : TDCL_F64, 0, err)) !=
        TDCL_OK)
        goto out;
    for (int64_t j = 0; j < b->cols; j++)
        s.mark[j] = -1;
    int64_t k = 0;
    for (int64_t i = 0; i < a->rows; i++) {
        int64_t cnt = gather_row(a, b, i, &s, 1);
        if ((st = store_row(c, &s, i, cnt, k, err)) != TDCL_OK) goto out;
        k += cnt;
        set_rp(c, i + 1, k);
    }
    c->sorted = 1;
out:
    if (st != TDCL_OK) tdcl_csr_free(c);
    acc_free(&s);
    return st;
}

/* Row i of C = S*D (a_sparse) or D*S added into f (double) or n (exact):
 * S*D adds S(i, k) times row k of D for each entry of S's row i; D*S adds
 * D(i, k) times row k of S for every k (no zero of D is skipped: 0 times
 * an infinity must stay NaN). */
static void dense_row(const tdcl_csr *s, const tdcl_matrix *d, int a_sparse, int64_t i, double *f,
                      i128 *n)
{
    int64_t kk = a_sparse ? s->rows : d->cols, cols = a_sparse ? d->cols : s->cols;
    if (a_sparse) {
        for (int64_t p = tdcl_csr_rp(s, i); p < tdcl_csr_rp(s, i + 1); p++) {
            size_t row = (size_t)tdcl_csr_ci(s, p) * (size_t)cols;
            if (f) {
                double x = tdcl_csr_get_f64(s, p);
                for (int64_t j = 0; j < cols; j++)
                    f[j] += x * tdcl_matrix_get_f64(d, row + (size_t)j);
            } else {
                int64_t x = tdcl_csr_get_i64(s, p);
                for (int64_t j = 0; j < cols; j++)
                    n[j] += (i128)x * tdcl_matrix_get_i64(d, row + (size_t)j);
            }
        }
        return;
    }
    for (int64_t k = 0; k < kk; k++) {
        size_t at = (size_t)i * (size_t)kk + (size_t)k;
        double x = f ? tdcl_matrix_get_f64(d, at) : 0;
        int64_t y = f ? 0 : tdcl_matrix_get_i64(d, at);
        for (int64_t q = tdcl_csr_rp(s, k); q < tdcl_csr_rp(s, k + 1); q++) {
            int64_t j = tdcl_csr_ci(s, q);
            if (f)
                f[j] += x * tdcl_csr_get_f64(s, q);
            else
                n[j] += (i128)y * tdcl_csr_get_i64(s, q);
        }
    }
}

/* Stores row i of the sums into C and clears them. */
static tdcl_status dense_store(tdcl_matrix *c, int64_t i, double *f, i128 *n, tdcl_err *err)
{
    for (int64_t j = 0; j < c->cols; j++) {
        size_t at = (size_t)i * (size_t)c->cols + (size_t)j;
        if (c->dtype == TDCL_F32)
            ((float *)c->data)[at] = (float)f[j];
        else if (c->dtype == TDCL_F64)
            ((double *)c->data)[at] = f[j];
        else if (n[j] > INT64_MAX || n[j] < INT64_MIN)
            return tdcl_fail(err, TDCL_ERANGE,
                             "the exact int64 product overflows: element (%" PRId64 ", %" PRId64
                             ") of C (row, column from 1) lies outside the int64 range",
                             i + 1, j + 1);
        else
            ((int64_t *)c->data)[at] = (int64_t)n[j];
        if (f)
            f[j] = 0;
        else
            n[j] = 0;
    }
    return TDCL_OK;
}

tdcl_status tdcl_csr_mul_dense_host(const tdcl_csr *s, const tdcl_matrix *d, int a_sparse,
                                    tdcl_dtype t, tdcl_matrix *c, tdcl_err *err)
{
    memset(c, 0, sizeof *c);
    int64_t ia = a_sparse ? s->cols : d->cols, ib = a_sparse ? d->rows : s->rows;
    if (ia != ib || d->channels != 1)
        return tdcl_fail(err, TDCL_EINVAL,
                         "cannot multiply: the inner sizes differ (%" PRId64 " and %" PRId64 ")",
                         ia, ib);
    int64_t rows = a_sparse ? s->rows : d->rows, cols = a_sparse ? d->cols : s->cols;
    int exact = t == TDCL_I64;
    double *f = NULL;
    i128 *n = NULL;
    tdcl_status st = tdcl_matrix_alloc(c, rows, cols, 1, t, err);
    if (st != TDCL_OK) return st;
    if (exact)
        n = calloc(cols ? (size_t)cols : 1, sizeof *n);
    else
        f = calloc(cols ? (size_t)cols : 1, sizeof *f);
    if (!n && !f) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory for the product's row accumulator");
        goto out;
    }
    for (int64_t i = 0; i < rows && st == TDCL_OK; i++) {
        dense_row(s, d, a_sparse, i, f, n);
        st = dense_store(c, i, f, n, err);
    }
out:
    if (st != TDCL_OK) tdcl_matrix_free(c);
    free(f);
    free(n);
    return st;
}

tdcl_status tdcl_csr_transpose(const tdcl_csr *m, tdcl_csr *t, tdcl_err *err)
{
    tdcl_status st = tdcl_csr_alloc(t, m->cols, m->rows, m->nnz, m->dtype, m->pattern, err);
    if (st != TDCL_OK) return st;
    int64_t *next = calloc((size_t)m->cols + 1, sizeof *next);
    if (!next) {
        tdcl_csr_free(t);
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory for a sparse transpose");
    }
    for (int64_t k = 0; k < m->nnz; k++)
        next[tdcl_csr_ci(m, k) + 1]++;
    for (int64_t j = 0; j < m->cols; j++)
        next[j + 1] += next[j];
    for (int64_t j = 0; j <= m->cols; j++)
        set_rp(t, j, next[j]);
    size_t vw = m->pattern ? 0 : tdcl_dtype_size(m->dtype);
    /* Rows of m in order: each column of t receives its entries sorted. */
    for (int64_t i = 0; i < m->rows; i++)
        for (int64_t k = tdcl_csr_rp(m, i); k < tdcl_csr_rp(m, i + 1); k++) {
            int64_t d = next[tdcl_csr_ci(m, k)]++;
            set_ci(t, d, i);
            if (vw) memcpy((char *)t->values + d * vw, (const char *)m->values + k * vw, vw);
        }
    free(next);
    t->sorted = 1;
    return TDCL_OK;
}

static tdcl_status differ(int64_t i, int64_t j, const char *what, tdcl_err *err)
{
    return tdcl_fail(err, TDCL_EVERIFY,
                     "the sparse product differs from the host's at (%" PRId64 ", %" PRId64
                     ") (row, column from 1): %s",
                     i + 1, j + 1, what);
}

static tdcl_status compare_row(const tdcl_csr *got, const tdcl_csr *want, int64_t i, double rtol,
                               double *max_rel, tdcl_err *err)
{
    int64_t g0 = tdcl_csr_rp(got, i), w0 = tdcl_csr_rp(want, i), w1 = tdcl_csr_rp(want, i + 1);
    if (tdcl_csr_rp(got, i + 1) - g0 != w1 - w0)
        return differ(i, 0, "the row has another number of entries", err);
    double scale = 0;
    for (int64_t k = w0; k < w1; k++)
        scale = fmax(scale, fabs(tdcl_csr_get_f64(want, k)));
    for (int64_t t = 0; t < w1 - w0; t++) {
        int64_t j = tdcl_csr_ci(want, w0 + t);
        if (tdcl_csr_ci(got, g0 + t) != j) return differ(i, j, "another column", err);
        if (!got->pattern && !want->pattern && got->dtype == TDCL_I64 && want->dtype == TDCL_I64) {
            if (tdcl_csr_get_i64(got, g0 + t) != tdcl_csr_get_i64(want, w0 + t))
                return differ(i, j, "another integer", err);
            continue;
        }
        double d = fabs(tdcl_csr_get_f64(got, g0 + t) - tdcl_csr_get_f64(want, w0 + t));
        double rel = scale > 0 ? d / scale : d;
        if (!(rel <= rtol)) return differ(i, j, "the value is out of tolerance", err);
        if (rel > *max_rel) *max_rel = rel;
    }
    return TDCL_OK;
}

tdcl_status tdcl_csr_compare(const tdcl_csr *got, const tdcl_csr *want, double rtol,
                             double *max_rel, tdcl_err *err)
{
    double worst = 0;
    tdcl_status st = TDCL_OK;
    if (got->rows != want->rows || got->cols != want->cols)
        return tdcl_fail(err, TDCL_EVERIFY, "the sparse product has another shape");
    for (int64_t i = 0; i < want->rows && st == TDCL_OK; i++)
        st = compare_row(got, want, i, rtol, &worst, err);
    if (max_rel) *max_rel = worst;
    return st;
}
