/* Sparse products: the host Gustavson product (base/csr_mul.c) against a
 * dense triple loop, exact int64 through partial sums outside the range,
 * overflow named by element, path counts of pattern products, the
 * transpose; the device's SpGEMM and SpMM (ops/sparse) against the host. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tdcl_test.h"

#include "base/csr_mul.h"
#include "dist/sparse_run.h"
#include "ops/sparse/sparse.h"

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
    int64_t nnz = c.nnz;
    tdcl_csr_free(&c);
    assert_int_equal(tdcl_csr_mul_host(&a, &b, nnz - 1, &c, &err), TDCL_ELIMIT);
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

/* A dense one-channel matrix of type t holding d. */
static tdcl_matrix dense_of(const double *d, int64_t rows, int64_t cols, tdcl_dtype t)
{
    tdcl_matrix m = {0};
    assert_int_equal(tdcl_matrix_alloc(&m, rows, cols, 1, t, NULL), TDCL_OK);
    for (int64_t k = 0; k < rows * cols; k++)
        if (t == TDCL_F64)
            ((double *)m.data)[k] = d[k];
        else
            ((int64_t *)m.data)[k] = (int64_t)d[k];
    return m;
}

/* The host's S*D and D*S (the fallback of devices without doubles)
 * against the dense triple loop; int64 past the range is named. */
static void test_host_spmm(void **state)
{
    (void)state;
    const int64_t m = 9, k = 11, n = 7;
    double *ds = dense_rand(m, k, 0.3, 21, 0), *dd = dense_rand(k, n, 1, 22, 0);
    double *sd = dense_mul(ds, dd, m, k, n), *dt = dense_rand(n, m, 1, 23, 0);
    double *ts = dense_mul(dt, ds, n, m, k);
    tdcl_csr s = csr_of(ds, m, k, TDCL_F64, 0), si = csr_of(ds, m, k, TDCL_I64, 0);
    tdcl_matrix d = dense_of(dd, k, n, TDCL_F64), di = dense_of(dt, n, m, TDCL_I64), c;
    tdcl_err err = {0};
    assert_int_equal(tdcl_csr_mul_dense_host(&s, &d, 1, TDCL_F64, &c, &err), TDCL_OK);
    for (int64_t x = 0; x < m * n; x++)
        assert_true(((double *)c.data)[x] == sd[x]);
    tdcl_matrix_free(&c);
    assert_int_equal(tdcl_csr_mul_dense_host(&si, &di, 0, TDCL_I64, &c, &err), TDCL_OK);
    for (int64_t x = 0; x < n * k; x++)
        assert_int_equal(((int64_t *)c.data)[x], (int64_t)ts[x]);
    tdcl_matrix_free(&c);
    assert_int_equal(tdcl_csr_mul_dense_host(&s, &di, 1, TDCL_F64, &c, &err), TDCL_EINVAL);
    ((int64_t *)si.values)[0] = INT64_MAX; /* row 1 of S times D's rows of +-1..4 */
    ((int64_t *)di.data)[0] = 2;
    assert_int_equal(tdcl_csr_mul_dense_host(&si, &di, 0, TDCL_I64, &c, &err), TDCL_ERANGE);
    assert_non_null(strstr(err.msg, "(1, "));
    tdcl_csr_free(&s);
    tdcl_csr_free(&si);
    tdcl_matrix_free(&d);
    tdcl_matrix_free(&di);
    free(ds);
    free(dd);
    free(sd);
    free(dt);
    free(ts);
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

/* A rows x cols CSR whose row i has len(i) distinct random columns and
 * values in [-4, 4] without 0 (integers; pattern: none). */
static tdcl_csr gen(int64_t rows, int64_t cols, int (*len)(int64_t), uint64_t seed,
                    tdcl_dtype dtype, int pattern)
{
    int64_t nnz = 0;
    for (int64_t i = 0; i < rows; i++)
        nnz += len(i);
    tdcl_csr m;
    assert_int_equal(tdcl_csr_alloc(&m, rows, cols, nnz, dtype, pattern, NULL), TDCL_OK);
    char *used = calloc((size_t)cols, 1);
    uint64_t s = seed;
    int32_t *rp = m.rowptr, *ci = m.colidx;
    for (int64_t i = 0; i < rows; i++) {
        int n = len(i);
        rp[i + 1] = rp[i] + n;
        for (int u = 0; u < n; u++) {
            int64_t j;
            do
                j = (int64_t)tdcl_test_uniform(&s, 0, (double)cols);
            while (used[j]);
            used[j] = 1;
        }
        for (int64_t j = 0, k = rp[i]; j < cols; j++)
            if (used[j]) {
                used[j] = 0;
                ci[k] = (int32_t)j;
                double v = floor(tdcl_test_uniform(&s, -4, 4));
                v = v >= 0 ? v + 1 : v;
                if (!pattern && dtype == TDCL_F32) ((float *)m.values)[k] = (float)v;
                if (!pattern && dtype == TDCL_F64) ((double *)m.values)[k] = v;
                if (!pattern && dtype == TDCL_I64) ((int64_t *)m.values)[k] = (int64_t)v;
                k++;
            }
    }
    free(used);
    m.sorted = 1;
    return m;
}

/* Mostly short rows, some empty, a few whose terms pass any local table. */
static int len_a(int64_t i)
{
    return i % 97 == 5 ? 400 : i % 7 == 3 ? 0 : (int)(i * 13 % 23);
}
static int len_b(int64_t i)
{
    return 1 + (int)(i * 7 % 40);
}

/* method as tdcl_sparse_plan_force takes it. */
static void device_case(tdcl_sparse_plan *p, tdcl_dtype t, int pattern, int method)
{
    int rows_path = method == 1;
    tdcl_sparse_plan_force(p, method);
    tdcl_csr a = gen(400, 1500, len_a, 3, t, pattern), b = gen(1500, 6000, len_b, 4, t, pattern);
    tdcl_csr c, want;
    tdcl_sparse_info info;
    tdcl_err err = {0};
    if (tdcl_spgemm(p, &a, &b, 0, &c, &info, &err) != TDCL_OK) fail_msg("spgemm: %s", err.msg);
    assert_int_equal(tdcl_csr_mul_host(&a, &b, 0, &want, &err), TDCL_OK);
    assert_int_equal(c.dtype, tdcl_csr_mul_dtype(&a, &b));
    assert_int_equal(info.rows_path, rows_path);
    assert_true(info.rows_dense > 0 && (rows_path || info.rows_local > 0));
    assert_true(method != 2 || info.rows_merged > 0); /* short rows merged on GPUs */
    assert_int_equal(info.terms, tdcl_csr_mul_work(&a, &b, NULL));
    if (tdcl_csr_compare(&c, &want, t == TDCL_F32 ? 1e-6 : 0, NULL, &err) != TDCL_OK)
        fail_msg("%s", err.msg);
    tdcl_csr_free(&c);
    assert_int_equal(tdcl_spgemm(p, &a, &b, want.nnz - 1, &c, &info, &err), TDCL_ELIMIT);
    assert_non_null(strstr(err.msg, "entries"));
    tdcl_csr_free(&a);
    tdcl_csr_free(&b);
    tdcl_csr_free(&want);
}

static void test_spgemm(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_sparse_plan *p;
    tdcl_err err = {0};
    if (tdcl_sparse_plan_create(*state, &p, &err) != TDCL_OK) fail_msg("%s", err.msg);
    for (int method = 0; method < 2; method++) {
        device_case(p, TDCL_F32, 0, method);
        device_case(p, TDCL_I64, 0, method);
        device_case(p, TDCL_I64, 1, method); /* path counts */
    }
    /* Tables shared by a team of lanes, as on GPUs: the atomic inserts and
     * sums and the team's sort, which a CPU device never runs otherwise. */
    device_case(p, TDCL_F32, 0, 2);
    device_case(p, TDCL_I64, 0, 2);
    tdcl_sparse_plan_destroy(p);
}

/* A partial sum outside int64 whose element fits is settled by the host;
 * an element outside int64 is refused naming it. */
static void test_spgemm_int64_range(void **state)
{
    TDCL_NEED_DEVICE(state);
    const double big = 4611686018427387904.0; /* 2^62 */
    double da[] = {big, big, -big, big, big, 0}, db[] = {1, 1, 1};
    tdcl_csr a = csr_of(da, 1, 3, TDCL_I64, 0), b = csr_of(db, 3, 1, TDCL_I64, 0), c;
    tdcl_sparse_plan *p;
    tdcl_sparse_info info;
    tdcl_err err = {0};
    if (tdcl_sparse_plan_create(*state, &p, &err) != TDCL_OK) fail_msg("%s", err.msg);
    assert_int_equal(tdcl_spgemm(p, &a, &b, 0, &c, &info, &err), TDCL_OK);
    assert_true(info.host_settled);
    assert_int_equal(((int64_t *)c.values)[0], INT64_C(4611686018427387904));
    tdcl_csr_free(&a);
    tdcl_csr_free(&c);
    a = csr_of(da, 2, 3, TDCL_I64, 0);
    assert_int_equal(tdcl_spgemm(p, &a, &b, 0, &c, &info, &err), TDCL_ERANGE);
    assert_non_null(strstr(err.msg, "(2, 1)"));
    tdcl_csr_free(&a);
    tdcl_csr_free(&b);
    tdcl_sparse_plan_destroy(p);
}

/* S*D and D*S against the dense triple loop. */
static void test_spmm(void **state)
{
    TDCL_NEED_DEVICE(state);
    const int64_t m = 45, k = 60, n = 37;
    double *ds = dense_rand(m, k, 0.1, 7, 0), *dd = dense_rand(k, n, 1, 8, 0);
    for (int64_t j = 0; j < k; j++) /* a row past the short rows' kernel */
        ds[2 * k + j] = (double)(j % 5) - 2;
    double *want = dense_mul(ds, dd, m, k, n);
    tdcl_csr s = csr_of(ds, m, k, TDCL_F32, 0);
    tdcl_matrix d = {0}, c = {0};
    assert_int_equal(tdcl_matrix_alloc(&d, k, n, 1, TDCL_F64, NULL), TDCL_OK);
    memcpy(d.data, dd, (size_t)(k * n) * sizeof(double));
    tdcl_sparse_plan *p;
    tdcl_err err = {0};
    if (tdcl_sparse_plan_create(*state, &p, &err) != TDCL_OK) fail_msg("%s", err.msg);
    for (int rows_path = 0; rows_path < 2; rows_path++) {
        tdcl_sparse_plan_force(p, rows_path);
        if (tdcl_spmm(p, &s, &d, 1, &c, NULL, &err) != TDCL_OK) fail_msg("%s", err.msg);
        assert_int_equal(c.dtype, TDCL_F64);
        for (int64_t i = 0; i < m * n; i++)
            assert_true(((double *)c.data)[i] == want[i]);
        tdcl_matrix_free(&c);
    }
    /* (D^T S^T) = (S D)^T: D^T as a dense k... here S^T is n x m sparse. */
    double *dt = calloc((size_t)(n * k), sizeof *dt), *st = calloc((size_t)(k * m), sizeof *st);
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = 0; j < n; j++)
            dt[j * k + i] = dd[i * n + j];
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < k; j++)
            st[j * m + i] = ds[i * k + j];
    tdcl_csr s_t = csr_of(st, k, m, TDCL_I64, 0);
    tdcl_matrix d_t = {0};
    assert_int_equal(tdcl_matrix_alloc(&d_t, n, k, 1, TDCL_I64, NULL), TDCL_OK);
    for (int64_t i = 0; i < n * k; i++)
        ((int64_t *)d_t.data)[i] = (int64_t)dt[i];
    if (tdcl_spmm(p, &s_t, &d_t, 0, &c, NULL, &err) != TDCL_OK) fail_msg("%s", err.msg);
    assert_int_equal(c.dtype, TDCL_I64);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < m; j++)
            assert_int_equal(((int64_t *)c.data)[i * m + j], (int64_t)want[j * n + i]);
    tdcl_matrix_free(&c);
    tdcl_matrix_free(&d);
    tdcl_matrix_free(&d_t);
    tdcl_csr_free(&s);
    tdcl_csr_free(&s_t);
    tdcl_sparse_plan_destroy(p);
    free(ds);
    free(dd);
    free(dt);
    free(st);
    free(want);
}

/* A float64 SpMM on a device without doubles: the operation refuses
 * naming the device; a band of the execution runs on the host instead. */
static void test_spmm_no_fp64(void **state)
{
    TDCL_NEED_DEVICE(state);
    tdcl_ctx *ctx = *state;
    const int64_t m = 6, k = 8, n = 5;
    double *ds = dense_rand(m, k, 0.4, 31, 0), *dd = dense_rand(k, n, 1, 32, 0);
    double *want = dense_mul(ds, dd, m, k, n);
    tdcl_csr s = csr_of(ds, m, k, TDCL_F64, 0);
    tdcl_matrix d = dense_of(dd, k, n, TDCL_F64), c = {0};
    tdcl_sparse_plan *p;
    tdcl_sparse_info info;
    tdcl_err err = {0};
    if (tdcl_sparse_plan_create(ctx, &p, &err) != TDCL_OK) fail_msg("%s", err.msg);
    int fp64 = ctx->dev.fp64; /* pretend the device lacks double precision */
    ctx->dev.fp64 = 0;
    assert_int_equal(tdcl_spmm(p, &s, &d, 1, &c, NULL, &err), TDCL_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, ctx->dev.device_name));
    assert_non_null(strstr(err.msg, "cl_khr_fp64"));
    tdcl_status st = tdcl_sp_band_product(ctx, 1, &s, NULL, NULL, &d, NULL, &c, &info, &err);
    ctx->dev.fp64 = fp64;
    if (st != TDCL_OK) fail_msg("%s", err.msg);
    assert_int_equal(c.dtype, TDCL_F64);
    for (int64_t x = 0; x < m * n; x++)
        assert_true(((double *)c.data)[x] == want[x]);
    tdcl_matrix_free(&c);
    tdcl_matrix_free(&d);
    tdcl_csr_free(&s);
    tdcl_sparse_plan_destroy(p);
    free(ds);
    free(dd);
    free(want);
}

int main(void)
{
    const struct CMUnitTest host[] = {
        cmocka_unit_test(test_host_types),
        cmocka_unit_test(test_host_exact_int64),
        cmocka_unit_test(test_transpose_compare),
        cmocka_unit_test(test_host_spmm),
    };
    const struct CMUnitTest device[] = {
        cmocka_unit_test(test_spgemm),
        cmocka_unit_test(test_spgemm_int64_range),
        cmocka_unit_test(test_spmm),
        cmocka_unit_test(test_spmm_no_fp64),
    };
    int rc = cmocka_run_group_tests_name("sparse_host", host, NULL, NULL);
    rc |= cmocka_run_group_tests_name("sparse_device", device, tdcl_test_ctx_setup,
                                      tdcl_test_ctx_teardown);
    return tdcl_test_exit(rc);
}
