/* Sparse products: the host Gustavson product (base/csr_mul.c) against a
 * dense triple loop, exact int64 through partial sums outside the range,
 * overflow named by element, path counts of pattern products, the
 * transpose; the device's SpGEMM and SpMM (ops/sparse) against the host. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "base/csr_mul.h"

/* A rows x cols CSR of dtype from a dense row-major array of doubles
 * (zeros left out); pattern stores no values. */
static tdcl_csr csr_of(const double *d, int64_t rows, int64_t cols, tdcl_dtype dtype, int pattern)
{
    int64_t nnz = 0;
    for (int64_t k = 0; k < rows * cols; k++)
        nnz += d[k] != 0;
    tdcl_csr m;
    assert_int_equal(tdcl_csr_alloc(&m, rows, cols, nnz, dtype, pattern, NULL), TDCL_OK);
    int64_t k = 0;
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t j = 0; j < cols; j++) {
            double v = d[i * cols + j];
            if (v == 0) continue;
            ((int32_t *)m.colidx)[k] = (int32_t)j;
            if (!pattern && dtype == TDCL_F32) ((float *)m.values)[k] = (float)v;
            if (!pattern && dtype == TDCL_F64) ((double *)m.values)[k] = v;
            if (!pattern && dtype == TDCL_I64) ((int64_t *)m.values)[k] = (int64_t)v;
            k++;
        }
        ((int32_t *)m.rowptr)[i + 1] = (int32_t)k;
    }
    m.sorted = 1;
    return m;
}

/* A dense rows x cols array with about density of its cells set to small
 * integers in [-4, 4] without 0 (1 for pattern); malloc'd. */
static double *dense_rand(int64_t rows, int64_t cols, double density, uint64_t seed, int pattern)
{
    double *d = calloc((size_t)(rows * cols), sizeof *d);
    uint64_t s = seed * 2654435761u + 1;
    for (int64_t k = 0; k < rows * cols; k++)
        if (tdcl_test_uniform(&s, 0, 1) < density) {
            double v = floor(tdcl_test_uniform(&s, -4, 4));
            d[k] = pattern ? 1 : v >= 0 ? v + 1 : v;
        }
    return d;
}

static double *dense_mul(const double *a, const double *b, int64_t m, int64_t k, int64_t n)
{
    double *c = calloc((size_t)(m * n), sizeof *c);
    for (int64_t i = 0; i < m; i++)
        for (int64_t p = 0; p < k; p++)
            for (int64_t j = 0; j < n; j++)
                c[i * n + j] += a[i * k + p] * b[p * n + j];
    return c;
}

/* C equals the dense product d where d is non-zero; an entry of C where d
 * is zero must come from cancelling terms (structural). */
static void expect_dense(const tdcl_csr *c, const double *d, const int *reach)
{
    for (int64_t i = 0; i < c->rows; i++) {
        int64_t k = tdcl_csr_rp(c, i);
        for (int64_t j = 0; j < c->cols; j++) {
            int here = k < tdcl_csr_rp(c, i + 1) && tdcl_csr_ci(c, k) == j;
            assert_int_equal(here, reach[i * c->cols + j]);
            if (!here) continue;
            assert_true(fabs(tdcl_csr_get_f64(c, k) - d[i * c->cols + j]) < 1e-9);
            k++;
        }
    }
}

/* Which cells of A*B some product term reaches. */
static int *reach_of(const double *a, const double *b, int64_t m, int64_t k, int64_t n)
{
    int *r = calloc((size_t)(m * n), sizeof *r);
    for (int64_t i = 0; i < m; i++)
        for (int64_t p = 0; p < k; p++)
            for (int64_t j = 0; j < n; j++)
                r[i * n + j] |= a[i * k + p] != 0 && b[p * n + j] != 0;
    return r;
}

static void host_case(tdcl_dtype ta, tdcl_dtype tb, int pattern, tdcl_dtype want)
{
    const int64_t m = 37, k = 29, n = 41;
    double *da = dense_rand(m, k, 0.15, 1, pattern), *db = dense_rand(k, n, 0.2, 2, pattern);
    double *dc = dense_mul(da, db, m, k, n);
    int *reach = reach_of(da, db, m, k, n);
    tdcl_csr a = csr_of(da, m, k, ta, pattern), b = csr_of(db, k, n, tb, pattern), c;
    assert_int_equal(tdcl_csr_mul_dtype(&a, &b), want);
    tdcl_err err = {0};
    assert_int_equal(tdcl_csr_mul_host(&a, &b, 0, &c, &err), TDCL_OK);
    assert_true(c.sorted);
    assert_int_equal(c.dtype, want == TDCL_I64 ? TDCL_I64 : TDCL_F64);
    expect_dense(&c, dc, reach);
    int64_t work = tdcl_csr_mul_work(&a, &b, NULL), terms = 0;
    for (int64_t i = 0; i < m * k; i++)
        for (int64_t j = 0; j < n; j++)
            terms += da[i] != 0 && db[(i % k) * n + j] != 0;
    assert_int_equal(work, terms);
    assert_int_equal(tdcl_csr_mul_host(&a, &b, c.nnz - 1, &c, &err), TDCL_ELIMIT);
    tdcl_csr_free(&a);
    tdcl_csr_free(&b);
    tdcl_csr_free(&c);
    free(da);
    free(db);
    free(dc);
    free(reach);
}

static void test_host_types(void **state)
{
    (void)state;
    host_case(TDCL_F32, TDCL_F32, 0, TDCL_F32);
    host_case(TDCL_F64, TDCL_F32, 0, TDCL_F64);
    host_case(TDCL_I64, TDCL_I64, 0, TDCL_I64);
    host_case(TDCL_I64, TDCL_I64, 1, TDCL_I64); /* path counts */
}

/* Row 0 sums 2^62 + 2^62 - 2^62: the partial sum leaves int64, the result
 * does not. Row 1 sums 2^62 + 2^62 and is refused naming (2, 1). */
static void test_host_exact_int64(void **state)
{
    (void)state;
    const double big = 4611686018427387904.0; /* 2^62 */
    double da[] = {big, big, -big, big, big, 0}, db[] = {1, 1, 1};
    tdcl_csr a = csr_of(da, 1, 3, TDCL_I64, 0), b = csr_of(db, 3, 1, TDCL_I64, 0), c;
    tdcl_err err = {0};
    assert_int_equal(tdcl_csr_mul_host(&a, &b, 0, &c, &err), TDCL_OK);
    assert_int_equal(((int64_t *)c.values)[0], INT64_C(4611686018427387904));
    tdcl_csr_free(&a);
    tdcl_csr_free(&c);
    a = csr_of(da, 2, 3, TDCL_I64, 0);
    assert_int_equal(tdcl_csr_mul_host(&a, &b, 0, &c, &err), TDCL_ERANGE);
    assert_non_null(strstr(err.msg, "(2, 1)"));
    tdcl_csr_free(&a);
    tdcl_csr_free(&b);
}

static void test_transpose_compare(void **state)
{
    (void)state;
    const int64_t m = 13, n = 17;
    double *d = dense_rand(m, n, 0.3, 5, 0);
    tdcl_csr a = csr_of(d, m, n, TDCL_F64, 0), t, tt;
    tdcl_err err = {0};
    assert_int_equal(tdcl_csr_transpose(&a, &t, &err), TDCL_OK);
    for (int64_t j = 0; j < n; j++)
        for (int64_t k = tdcl_csr_rp(&t, j); k < tdcl_csr_rp(&t, j + 1); k++)
            assert_true(tdcl_csr_get_f64(&t, k) == d[tdcl_csr_ci(&t, k) * n + j]);
    assert_int_equal(tdcl_csr_transpose(&t, &tt, &err), TDCL_OK);
    double rel = 1;
    assert_int_equal(tdcl_csr_compare(&tt, &a, 0, &rel, &err), TDCL_OK);
    assert_true(rel == 0);
    ((double *)tt.values)[3] += 1e-3;
    assert_int_equal(tdcl_csr_compare(&tt, &a, 1e-6, NULL, &err), TDCL_EVERIFY);
    tdcl_csr_free(&a);
    tdcl_csr_free(&t);
    tdcl_csr_free(&tt);
    free(d);
}

int main(void)
{
    const struct CMUnitTest host[] = {
        cmocka_unit_test(test_host_types),
        cmocka_unit_test(test_host_exact_int64),
        cmocka_unit_test(test_transpose_compare),
    };
    return cmocka_run_group_tests_name("sparse_host", host, NULL, NULL);
}
