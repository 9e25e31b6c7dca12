/* The host reference of the matmul module: a blocked product in double (or
 * exact 128-bit sums for integer results), spread over the host's cores,
 * the comparison behind --verify (tdcl_mm_check_product), and the int64
 * overflow bound and search the plan uses. */
#include "ops/matmul/matmul.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"

/* Rows of R computed at a time, and the K block whose rows of B are reused
 * across them while they are in cache. */
#define REF_ROWS 32
#define REF_KB 256

/* 128-bit sums: a product of two int64 always fits; a sum that leaves the
 * 128 bits is counted in an overflow word, so nothing is ever lost. */
__extension__ typedef __int128 i128;
typedef struct acc128 {
    i128 s;
    int64_t ext; /* the exact sum is s + ext * 2^128 */
} acc128;

static void acc_add(acc128 *x, int64_t a, int64_t b)
{
    i128 p = (i128)a * b;
    if (__builtin_add_overflow(x->s, p, &x->s)) x->ext += p > 0 ? 1 : -1;
}

static int acc_fits(const acc128 *x)
{
    return x->ext == 0 && x->s >= INT64_MIN && x->s <= INT64_MAX;
}

/* The sum modulo 2^64, as int64 sums that wrap would give it. */
static int64_t acc_wrapped(const acc128 *x)
{
    return (int64_t)(uint64_t)x->s;
}

int tdcl_mm_i64_bound_ok(const int64_t *a, const int64_t *b, int64_t M, int64_t K, int64_t N)
{
    double *bmax = malloc((size_t)K * sizeof *bmax);
    if (!bmax) return 0;
    for (int64_t k = 0; k < K; k++) {
        double m = 0;
        for (int64_t n = 0; n < N; n++) {
            double v = fabs((double)b[k * N + n]);
            m = v > m ? v : m;
        }
        bmax[k] = m;
    }
    /* 2^62 leaves a factor of 2 for the rounding of the double sums */
    int ok = 1;
    for (int64_t i = 0; i < M && ok; i++) {
        double s = 0;
        for (int64_t k = 0; k < K; k++)
            s += fabs((double)a[i * K + k]) * bmax[k];
        ok = s < 0x1p62;
    }
    free(bmax);
    return ok;
}

int tdcl_mm_i64_first_overflow(const int64_t *a, const int64_t *b, int64_t M, int64_t K, int64_t N,
                               int64_t *row, int64_t *col)
{
    for (int64_t i = 0; i < M; i++)
        for (int64_t n = 0; n < N; n++) {
            acc128 x = {0, 0};
            for (int64_t k = 0; k < K; k++)
                acc_add(&x, a[i * K + k], b[k * N + n]);
            if (!acc_fits(&x)) {
                *row = i;
                *col = n;
                return 1;
            }
        }
    return 0;
}

typedef struct ref_job {
    const tdcl_matrix *a, *c;
    const void *b; /* B as double (float C) or int64 (integer C), K x N */
    int64_t M, K, N;
    int is_int;
    int nthreads, id;
    /* results of this thread; squares in long double, whose range holds a
     * double's square (in double, those of subnormal or huge elements
     * would round to 0 or overflow) */
    long double diff2, ref2;
    int64_t differing, overflowed, first_ovf; /* first_ovf: element index, -1 none */
    int64_t nonfinite, nonfinite_differ, extra_nonfinite;
    int failed; /* scratch allocation failed */
} ref_job;

/* r[i][:] = sum over k of a[i0 + i][k] * b[k][:] for mb rows, in double. */
static void rows_f64(const ref_job *j, int64_t i0, int64_t mb, double *r)
{
    const double *b = j->b;
    memset(r, 0, (size_t)(mb * j->N) * sizeof *r);
    for (int64_t k0 = 0; k0 < j->K; k0 += REF_KB) {
        int64_t k1 = k0 + REF_KB < j->K ? k0 + REF_KB : j->K;
        for (int64_t i = 0; i < mb; i++) {
            double *ri = r + i * j->N;
            for (int64_t k = k0; k < k1; k++) {
                double aik = tdcl_matrix_get_f64(j->a, (size_t)((i0 + i) * j->K + k));
                const double *bk = b + k * j->N;
                for (int64_t n = 0; n < j->N; n++)
                    ri[n] += aik * bk[n];
            }
        }
    }
}

/* The same in exact 128-bit sums. */
static void rows_int(const ref_job *j, int64_t i0, int64_t mb, acc128 *r)
{
    const int64_t *b = j->b;
    memset(r, 0, (size_t)(mb * j->N) * sizeof *r);
    for (int64_t k0 = 0; k0 < j->K; k0 += REF_KB) {
        int64_t k1 = k0 + REF_KB < j->K ? k0 + REF_KB : j->K;
        for (int64_t i = 0; i < mb; i++) {
            acc128 *ri = r + i * j->N;
            for (int64_t k = k0; k < k1; k++) {
                int64_t aik = tdcl_matrix_get_i64(j->a, (size_t)((i0 + i) * j->K + k));
                const int64_t *bk = b + k * j->N;
                for (int64_t n = 0; n < j->N; n++)
                    acc_add(&ri[n], aik, bk[n]);
            }
        }
    }
}

static void compare_rows(ref_job *j, int64_t i0, int64_t mb, const void *r)
{
    size_t base = (size_t)(i0 * j->N), n = (size_t)(mb * j->N);
    for (size_t e = 0; e < n; e++) {
        double ref, got;
        if (j->is_int) {
            const acc128 *x = (const acc128 *)r + e;
            int64_t want = acc_wrapped(x);
            int64_t have = tdcl_matrix_get_i64(j->c, base + e);
            j->differing += want != have;
            if (!acc_fits(x) && j->overflowed++ == 0) j->first_ovf = (int64_t)(base + e);
            ref = (double)want;
            got = (double)have;
        } else {
            ref = ((const double *)r)[e];
            got = tdcl_matrix_get_f64(j->c, base + e);
            if (!isfinite(ref)) {
                /* NaN where R has NaN, the same infinity where R has one */
                j->nonfinite++;
                j->nonfinite_differ += isnan(ref) ? !isnan(got) : got != ref;
                continue;
            }
            if (!isfinite(got)) {
                j->extra_nonfinite++;
                continue;
            }
        }
        const long double d = (long double)got - ref;
        j->diff2 += d * d;
        j->ref2 += (long double)ref * ref;
    }
}

/* Job i of the reference: every nthreads-th block of rows from block i. */
static void ref_thread(void *arg, int i)
{
    ref_job *j = &((ref_job *)arg)[i];
    void *r = malloc((size_t)(REF_ROWS * j->N) * (j->is_int ? sizeof(acc128) : sizeof(double)));
    if (!r) {
        j->failed = 1;
        return;
    }
    for (int64_t blk = j->id; blk * REF_ROWS < j->M; blk += j->nthreads) {
        int64_t i0 = blk * REF_ROWS, mb = j->M - i0 < REF_ROWS ? j->M - i0 : REF_ROWS;
        if (j->is_int)
            rows_int(j, i0, mb, r);
        else
            rows_f64(j, i0, mb, r);
        compare_rows(j, i0, mb, r);
    }
    free(r);
}

/* B converted once to the reference's element type. */
static void *reference_b(const tdcl_matrix *b, int is_int)
{
    size_t n = tdcl_matrix_count(b);
    void *out = malloc(n * 8);
    if (!out) return NULL;
    for (size_t e = 0; e < n; e++) {
        if (is_int)
            ((int64_t *)out)[e] = tdcl_matrix_get_i64(b, e);
        else
            ((double *)out)[e] = tdcl_matrix_get_f64(b, e);
    }
    return out;
}

/* Over the finite elements: an element of A*B is finite only where every
 * term of its dot product is, so these bound the finite elements' error. */
static double frobenius(const tdcl_matrix *m)
{
    long double s = 0;
    size_t n = tdcl_matrix_count(m);
    for (size_t e = 0; e < n; e++) {
        double v = tdcl_matrix_get_f64(m, e);
        if (isfinite(v)) s += (long double)v * v;
    }
    return (double)sqrtl(s);
}

/* Runs the reference in up to 16 jobs over the pool and sums their
 * figures into *total, in job order (the same sums whatever thread ran
 * which job). */
static tdcl_status run_reference(ref_job *proto, ref_job *total, tdcl_err *err)
{
    int nt = tdcl_pool_size(0, 16);
    ref_job jobs[16];
    for (int t = 0; t < nt; t++) {
        jobs[t] = *proto;
        jobs[t].nthreads = nt;
        jobs[t].id = t;
        jobs[t].first_ovf = -1;
    }
    tdcl_pool_run(nt, ref_thread, jobs);
    *total = *proto;
    for (int t = 0; t < nt; t++) {
        total->diff2 += jobs[t].diff2;
        total->ref2 += jobs[t].ref2;
        total->differing += jobs[t].differing;
        total->overflowed += jobs[t].overflowed;
        if (jobs[t].first_ovf >= 0 &&
            (total->first_ovf < 0 || jobs[t].first_ovf < total->first_ovf))
            total->first_ovf = jobs[t].first_ovf;
        total->nonfinite += jobs[t].nonfinite;
        total->nonfinite_differ += jobs[t].nonfinite_differ;
        total->extra_nonfinite += jobs[t].extra_nonfinite;
        total->failed |= jobs[t].failed;
    }
    if (total->failed)
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory for the host reference product");
    return TDCL_OK;
}

tdcl_status tdcl_mm_check_product(const tdcl_matrix *a, const tdcl_matrix *b, const tdcl_matrix *c,
                                  tdcl_mm_check *out, tdcl_err *err)
{
    memset(out, 0, sizeof *out);
    if (a->cols != b->rows || c->rows != a->rows || c->cols != b->cols)
        return tdcl_fail(err, TDCL_EINVAL, "check: C is not shaped like A*B");
    ref_job proto = {.a = a,
                     .c = c,
                     .M = a->rows,
                     .K = a->cols,
                     .N = b->cols,
                     .is_int = tdcl_dtype_is_int(c->dtype),
                     .first_ovf = -1};
    ref_job total;
    if (!(proto.b = reference_b(b, proto.is_int)))
        return tdcl_fail(err, TDCL_ENOMEM, "out of memory for the host reference product");
    tdcl_status st = run_reference(&proto, &total, err);
    free((void *)proto.b);
    if (st) return st;
    out->type = c->dtype;
    out->k = proto.K;
    double diff = (double)sqrtl(total.diff2), ref = (double)sqrtl(total.ref2), limit = 0;
    if (proto.is_int) {
        out->differing = total.differing;
        out->overflowed = total.overflowed;
        if (total.first_ovf >= 0) {
            out->ovf_row = total.first_ovf / proto.N;
            out->ovf_col = total.first_ovf % proto.N;
        }
        out->exact = 1;
        out->ok = total.differing == 0 && total.overflowed == 0;
    } else {
        double u = c->dtype == TDCL_F32 ? ldexp(1.0, -24) : ldexp(1.0, -53);
        /* and the absolute error of underflow: each of the K products and
         * sums of an element may lose up to the smallest subnormal, which
         * no relative term covers (1e-20 * 1e-20 in float32 is subnormal,
         * correctly rounded, 5e-6 off relatively); over M x N elements in
         * the Frobenius norm */
        double eta = c->dtype == TDCL_F32 ? ldexp(1.0, -149) : ldexp(1.0, -1074);
        limit = 2.0 * ((double)proto.K + 2.0) *
                (u * frobenius(a) * frobenius(b) + eta * sqrt((double)proto.M * (double)proto.N));
        out->nonfinite = total.nonfinite;
        out->nonfinite_differ = total.nonfinite_differ;
        out->extra_nonfinite = total.extra_nonfinite;
        out->ok = diff <= limit && total.nonfinite_differ == 0 && total.extra_nonfinite == 0;
    }
    out->rel_err = ref > 0 ? diff / ref : diff > 0 ? INFINITY : 0;
    out->bound = ref > 0 ? limit / ref : limit > 0 ? INFINITY : 0;
    return TDCL_OK;
}
