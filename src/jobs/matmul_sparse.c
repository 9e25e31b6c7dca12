/* The sparse branch of the matmul job: sparse files (coordinate .mtx,
 * .npz) are read into CSR and multiplied as such where that is faster or
 * the dense product cannot fit: SpGEMM with a sparse product, SpMM with a
 * dense one (ops/sparse); -v and the summary say what each operand and C
 * were. A sparse C goes to coordinate .mtx or .npz, and to .npy or an
 * array .mtx only when asked, after a memory check naming its size. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/csr_mul.h"
#include "base/fileio.h"
#include "base/log.h"
#include "base/mem.h"
#include "io/matio.h"
#include "io/mtx.h"
#include "io/sparse_io.h"
#include "dist/mpi.h"
#include "dist/sparse_run.h"
#include "jobs/matmul_job.h"
#include "ops/sparse/sparse.h"

__extension__ typedef __int128 i128;

/* The crossovers of the automatic choice by device kind. CPU: measured
 * with tiledcl matmul --sparse and --dense on uniform random 2000^2
 * float32 files (PoCL, 2 cores, a loaded host): SpGEMM took 0.68 of the
 * dense product's time at densities 0.1 x 0.1 and 2.3 times it at
 * 0.3 x 0.3, so it is chosen below a product of densities of 0.02; SpMM
 * (times 256 dense columns) took 0.64 of the dense kernel's time at 30%.
 * GPU: bench/sparse_crossover.sh on an H200, kernel times against the
 * dense product's: SpGEMM stops winning at a product of 0.0002 (2048^2)
 * to 0.005 (4096^2), SpMM at 13% (both sizes). Ranks take the CPU's. */
#define SPGEMM_CROSS_CPU 0.02
#define SPMM_CROSS_CPU 0.30
#define SPGEMM_CROSS_GPU 0.002
#define SPMM_CROSS_GPU 0.13

typedef struct operand {
    const char *path;
    int sparse_file;
    int64_t rows, cols, nnz; /* from the header (.mtx) or the read CSR; nnz -1: unknown */
    tdcl_csr s;              /* read as CSR */
    tdcl_matrix d;           /* read (or made) dense */
} operand;

/* What a file is and, for a coordinate .mtx, its size from the header. */
static void peek(const char *path, operand *x)
{
    tdcl_mtx_header h;
    memset(x, 0, sizeof *x);
    x->path = path;
    x->nnz = -1;
    x->sparse_file = path && strcmp(path, "-") != 0 && tdcl_sparse_path(path);
    if (!x->sparse_file || tdcl_mtx_peek_path(path, &h, NULL) != TDCL_OK) return;
    x->rows = h.rows;
    x->cols = h.cols;
    x->nnz = h.symmetry == TDCL_MTX_GENERAL ? h.entries : 2 * h.entries;
}

static double density(const operand *x)
{
    return x->rows && x->cols ? (double)x->nnz / ((double)x->rows * (double)x->cols) : 1;
}

typedef enum how { DENSE_PATH, SPGEMM, SPMM, DENSE_HERE } how;

/* Whether dense float32 copies of A, B and C would not fit in memory. */
static int dense_too_big(const operand *a, const operand *b)
{
    tdcl_mem_info mi;
    tdcl_mem_query(&mi);
    double bytes =
        4.0 * ((double)a->rows * a->cols + (double)b->rows * b->cols + (double)a->rows * b->cols);
    return bytes > (double)tdcl_mem_headroom(&mi) / 2;
}

/* Whether the execution's (first) device is a GPU. It waits for a device
 * still opening, which the caller asks only when the kinds disagree. */
static int on_gpu(tdcl_exec *ex)
{
    tdcl_err e = {0};
    if (ex->kind == TDCL_EXEC_ONE && ex->ctx && tdcl_ctx_wait(ex->ctx, &e) == TDCL_OK)
        return (ex->ctx->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    if (ex->kind == TDCL_EXEC_SET && ex->set && tdcl_devset_wait(ex->set, &e) == TDCL_OK)
        return ex->set->n && (ex->set->ctx[0]->dev.type & CL_DEVICE_TYPE_GPU) != 0;
    return 0;
}

/* The crossover for density d between a CPU's and a GPU's; which kind
 * into *kind. */
static double crossover(tdcl_exec *ex, double d, double cpu, double gpu, const char **kind)
{
    int g = (d < cpu) != (d < gpu) && on_gpu(ex);
    *kind = (d < cpu) == (d < gpu) ? "" : g ? " (a GPU's)" : " (a CPU's)";
    return g ? gpu : cpu;
}

/* The choice, and why, into why (for -v). Sizes must be known (nnz >= 0)
 * for every sparse file. */
static how choose(tdcl_exec *ex, const tdcl_mm_job_opts *o, const operand *a, const operand *b,
                  char *why, size_t cap)
{
    const char *kind;
    int sa = a->sparse_file, sb = b->sparse_file;
    if (o->sparse == TDCL_MM_SPARSE_ON) {
        snprintf(why, cap, "sparse as asked");
        return sa != sb ? SPMM : SPGEMM;
    }
    if (o->sparse == TDCL_MM_SPARSE_OFF) {
        snprintf(why, cap, "dense as asked");
        return DENSE_HERE;
    }
    int big = dense_too_big(a, b);
    if (sa && sb) {
        double d = density(a) * density(b);
        double x = crossover(ex, d, SPGEMM_CROSS_CPU, SPGEMM_CROSS_GPU, &kind);
        snprintf(why, cap, "density %.3g x %.3g = %.3g %s the crossover %.3g%s%s", density(a),
                 density(b), d, d < x ? "below" : "above", x, kind,
                 big ? ", and the dense product would not fit in memory" : "");
        return d < x || big ? SPGEMM : DENSE_HERE;
    }
    double d = density(sa ? a : b);
    double x = crossover(ex, d, SPMM_CROSS_CPU, SPMM_CROSS_GPU, &kind);
    snprintf(why, cap, "%s's density %.3g %s the crossover %.3g%s%s", sa ? "A" : "B", d,
             d < x ? "below" : "above", x, kind,
             big ? ", and the dense product would not fit in memory" : "");
    return d < x || big ? SPMM : DENSE_HERE;
}

static void describe_csr(const tdcl_csr *m, const char *from, char *buf, size_t cap)
{
    snprintf(buf, cap, "sparse (CSR, %" PRId64 " entries, %.3g%% dense)%s", m->nnz,
             100.0 * (double)m->nnz / ((double)m->rows * (double)m->cols), from);
}

/* Reads x as CSR (a dense file: its nonzeros), timing it. */
static tdcl_status read_csr(tdcl_timing *t, const tdcl_mm_job_opts *o, operand *x, tdcl_err *err)
{
    double t0 = tdcl_now_ms();
    tdcl_status st = tdcl_sparse_read_path(x->path, o->max_input_bytes, &x->s, err);
    t->read_ms += tdcl_now_ms() - t0;
    if (st == TDCL_OK) {
        x->rows = x->s.rows;
        x->cols = x->s.cols;
        x->nnz = x->s.nnz;
    }
    return st;
}

static tdcl_status read_dense(tdcl_timing *t, const tdcl_mm_job_opts *o, operand *x, tdcl_err *err)
{
    double t0 = tdcl_now_ms();
    tdcl_status st = TDCL_OK;
    if (x->s.rowptr) /* read sparse already: made dense after a memory check */
        st = tdcl_csr_to_dense(&x->s, o->max_input_bytes, &x->d, err);
    else
        st = tdcl_matrix_read(x->path, o->max_input_bytes, &x->d, err);
    t->read_ms += tdcl_now_ms() - t0;
    if (st == TDCL_OK) {
        x->rows = x->d.rows;
        x->cols = x->d.cols;
    }
    return st;
}

static tdcl_status check_shapes(const tdcl_mm_job_opts *o, const operand *a, const operand *b,
                                tdcl_err *err)
{
    if (a->cols == b->rows) return TDCL_OK;
    return tdcl_fail(err, TDCL_EINVAL,
                     "cannot multiply '%s' (%" PRId64 "x%" PRId64 ") by '%s' (%" PRId64 "x%" PRId64
                     "): A has %" PRId64 " columns but B has %" PRId64 " rows",
                     tdcl_path_display(o->a_path), a->rows, a->cols, tdcl_path_display(o->b_path),
                     b->rows, b->cols, a->cols, b->rows);
}

/* The unit roundoff of t (0: integers, exact). */
static double roundoff(tdcl_dtype t)
{
    return t == TDCL_F32 ? ldexp(1, -24) : t == TDCL_F64 ? ldexp(1, -53) : 0;
}

static double csr_norm(const tdcl_csr *m)
{
    double s = 0;
    for (int64_t k = 0; k < m->nnz; k++)
        s += tdcl_csr_get_f64(m, k) * tdcl_csr_get_f64(m, k);
    return sqrt(s);
}

/* --verify of a sparse C against the host's Gustavson product: the same
 * columns row by row, integers exact, floating point within the bound of
 * the dense check, 2 (K + 2) u ||A||_F ||B||_F / ||R||_F. */
static tdcl_status verify_spgemm(const tdcl_mm_job_opts *o, const tdcl_csr *a, const tdcl_csr *b,
                                 const tdcl_csr *c, tdcl_err *err)
{
    tdcl_csr r = {0};
    tdcl_mm_check chk = {.type = c->dtype, .k = a->cols, .exact = c->dtype == TDCL_I64};
    double t0 = tdcl_now_ms();
    tdcl_status st = tdcl_csr_mul_host(a, b, 0, &r, err);
    if (st != TDCL_OK) return st;
    double nr = csr_norm(&r), d2 = 0;
    chk.bound =
        nr > 0 ? 2.0 * (double)(a->cols + 2) * roundoff(c->dtype) * csr_norm(a) * csr_norm(b) / nr
               : 0;
    st = tdcl_csr_compare(c, &r, chk.exact ? 0 : INFINITY, NULL, err);
    for (int64_t k = 0; st == TDCL_OK && k < r.nnz; k++) {
        double x = tdcl_csr_get_f64(c, k) - tdcl_csr_get_f64(&r, k);
        d2 += x * x;
    }
    chk.rel_err = nr > 0 ? sqrt(d2) / nr : sqrt(d2);
    chk.ok = st == TDCL_OK && chk.rel_err <= chk.bound;
    tdcl_log(TDCL_LOG_VERBOSE, "matmul: host check took %.1f ms", tdcl_now_ms() - t0);
    tdcl_csr_free(&r);
    if (o->check) *o->check = chk;
    if (st != TDCL_OK || chk.ok) return st;
    return tdcl_fail(err, TDCL_EVERIFY,
                     "verification failed: relative Frobenius error %.3g exceeds the bound %.3g "
                     "for %s with K=%" PRId64,
                     chk.rel_err, chk.bound, tdcl_dtype_name(c->dtype), a->cols);
}

/* The reference of S*D (a_sparse) or D*S, element (i, j), in double, or
 * exactly in *x for integers. */
static double spmm_ref(const tdcl_csr *s, const tdcl_csr *st, const tdcl_matrix *d, int a_sparse,
                       int64_t i, int64_t j, i128 *x)
{
    const tdcl_csr *m = a_sparse ? s : st; /* rows of S, or columns of S */
    int64_t at = a_sparse ? i : j;
    double sum = 0;
    *x = 0;
    for (int64_t p = tdcl_csr_rp(m, at); p < tdcl_csr_rp(m, at + 1); p++) {
        int64_t k = tdcl_csr_ci(m, p);
        int64_t e = a_sparse ? k * d->cols + j : i * d->cols + k;
        double dv = d->dtype == TDCL_F32   ? ((const float *)d->data)[e]
                    : d->dtype == TDCL_F64 ? ((const double *)d->data)[e]
                    : d->dtype == TDCL_I32 ? ((const int32_t *)d->data)[e]
                                           : (double)((const int64_t *)d->data)[e];
        sum += tdcl_csr_get_f64(m, p) * dv;
        if (tdcl_dtype_is_int(d->dtype))
            *x += (i128)tdcl_csr_get_i64(m, p) * (d->dtype == TDCL_I32
                                                      ? ((const int32_t *)d->data)[e]
                                                      : ((const int64_t *)d->data)[e]);
    }
    return sum;
}

/* --verify of a dense C = S*D or D*S against the host's sums: exact for
 * int64, else within the dense check's bound. */
static tdcl_status verify_spmm(const tdcl_mm_job_opts *o, const tdcl_csr *s, const tdcl_matrix *d,
                               int a_sparse, const tdcl_matrix *c, tdcl_err *err)
{
    tdcl_csr st = {0};
    tdcl_mm_check chk = {.type = c->dtype, .exact = c->dtype == TDCL_I64};
    chk.k = a_sparse ? s->cols : s->rows;
    tdcl_status rc = a_sparse ? TDCL_OK : tdcl_csr_transpose(s, &st, err);
    if (rc != TDCL_OK) return rc;
    double r2 = 0, d2 = 0, nd = 0;
    for (int64_t i = 0; i < c->rows; i++)
        for (int64_t j = 0; j < c->cols; j++) {
            i128 x;
            double r = spmm_ref(s, &st, d, a_sparse, i, j, &x), got;
            if (chk.exact) {
                int64_t g = ((const int64_t *)c->data)[i * c->cols + j];
                chk.differing += (i128)g != x;
                continue;
            }
            got = c->dtype == TDCL_F32 ? ((const float *)c->data)[i * c->cols + j]
                                       : ((const double *)c->data)[i * c->cols + j];
            r2 += r * r;
            d2 += (got - r) * (got - r);
        }
    for (int64_t k = 0; k < d->rows * d->cols; k++) {
        double v = d->dtype == TDCL_F32   ? ((const float *)d->data)[k]
                   : d->dtype == TDCL_F64 ? ((const double *)d->data)[k]
                                          : 0;
        nd += v * v;
    }
    chk.rel_err = r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
    chk.bound =
        r2 > 0 ? 2.0 * (double)(chk.k + 2) * roundoff(c->dtype) * csr_norm(s) * sqrt(nd) / sqrt(r2)
               : 0;
    chk.ok = chk.exact ? chk.differing == 0 : chk.rel_err <= chk.bound;
    tdcl_csr_free(&st);
    if (o->check) *o->check = chk;
    if (chk.ok) return TDCL_OK;
    if (chk.exact)
        return tdcl_fail(err, TDCL_EVERIFY,
                         "verification failed: %" PRId64 " of %" PRId64
                         " elements differ from the exact host product",
                         chk.differing, c->rows * c->cols);
    return tdcl_fail(err, TDCL_EVERIFY,
                     "verification failed: relative Frobenius error %.3g exceeds the bound %.3g "
                     "for %s with K=%" PRId64,
                     chk.rel_err, chk.bound, tdcl_dtype_name(c->dtype), chk.k);
}

static void log_repr(const tdcl_mm_repr *r)
{
    tdcl_log(TDCL_LOG_VERBOSE, "matmul: A %s; B %s; C %s", r->a, r->b, r->c);
}

/* Writes a sparse C by the output's extension: coordinate .mtx, .npz or
 * stdout; .npy, or an array .mtx when dense output is asked, dense after a
 * memory check naming the size. */
static tdcl_status write_sparse(tdcl_timing *t, const tdcl_mm_job_opts *o, const tdcl_csr *c,
                                tdcl_err *err)
{
    const char *path = o->out_path;
    int npy = path && tdcl_path_has_ext(path, ".npy");
    double t0 = tdcl_now_ms();
    tdcl_status st;
    if (npy || (o->dense_output && !(path && tdcl_path_has_ext(path, ".npz")))) {
        tdcl_matrix d = {0};
        st = tdcl_csr_to_dense(c, 0, &d, err);
        if (st == TDCL_OK) {
            tdcl_log(TDCL_LOG_VERBOSE, "matmul: the sparse product written dense, as asked");
            st = tdcl_matrix_write(path, &d, "C = A*B, a sparse product written dense", err);
        }
        tdcl_matrix_free(&d);
    } else {
        st = tdcl_sparse_write_path(path, c, err);
    }
    t->write_ms += tdcl_now_ms() - t0;
    return st;
}

/* Writes a dense C: .npz keeps its nonzeros, other extensions as the
 * dense path writes. */
static tdcl_status write_dense(tdcl_timing *t, const tdcl_mm_job_opts *o, const char *where,
                               const tdcl_matrix *c, tdcl_err *err)
{
    double t0 = tdcl_now_ms();
    tdcl_status st;
    if (o->out_path && tdcl_path_has_ext(o->out_path, ".npz")) {
        tdcl_csr s = {0};
        st = tdcl_csr_from_dense(c, &s, err);
        if (st == TDCL_OK) st = tdcl_sparse_write_path(o->out_path, &s, err);
        tdcl_csr_free(&s);
    } else {
        char comment[256];
        snprintf(comment, sizeof comment, "C = A*B, A = %s, B = %s, %s on %s",
                 tdcl_path_display(o->a_path), tdcl_path_display(o->b_path),
                 tdcl_dtype_name(c->dtype), where);
        st = tdcl_matrix_write(o->out_path, c, comment, err);
    }
    t->write_ms += tdcl_now_ms() - t0;
    return st;
}

/* -v's account of a product over r: the method and its figures. */
static void log_product(const tdcl_sp_exec *r, int spgemm, const tdcl_sparse_info *info,
                        int64_t entries)
{
    char where[96];
    tdcl_sp_exec_where(r, where, sizeof where);
    if (!spgemm) {
        tdcl_log(TDCL_LOG_VERBOSE, "matmul: SpMM on %s: %" PRId64 " terms, kernels %.2f ms", where,
                 info->terms, info->kernel_ms);
        return;
    }
    tdcl_log(TDCL_LOG_VERBOSE,
             "matmul: SpGEMM on %s, %s: %" PRId64 " product terms, %" PRId64
             " entries, kernels %.2f ms%s",
             where,
             info->rows_path ? "rows with dense accumulators" : "rows binned into hash tables",
             info->terms, entries, info->kernel_ms,
             info->host_settled ? "; int64 partial sums left the range: host's exact sums" : "");
}

/* The dense product of operands made dense here (a .npz file, or dense as
 * asked), as tdcl_mm_job computes it. */
static tdcl_status run_dense(tdcl_ctx *ctx, const tdcl_mm_job_opts *o, operand *a, operand *b,
                             tdcl_matrix *c, tdcl_err *err)
{
    tdcl_mm_plan *p = NULL;
    tdcl_mm_opts mm = o->mm;
    tdcl_status st;
    mm.type = tdcl_mm_job_type(o, &a->d, &b->d, ctx->dev.fp64 ? NULL : ctx->dev.device_name);
    TDCL_TRY(tdcl_mm_plan_create(ctx, &mm, &a->d, &b->d, &p, err));
    TDCL_TRY(tdcl_mm_plan_execute(p, NULL, err));
    TDCL_TRY(tdcl_mm_plan_result(p, c, err));
    if (o->verify) st = tdcl_mm_job_verify(o, &a->d, &b->d, c, err);
out:
    tdcl_mm_plan_destroy(p);
    return st;
}

static int has_float(const operand *x)
{
    if (x->s.rowptr) return !x->s.pattern && !tdcl_dtype_is_int(x->s.dtype);
    return x->d.data && !tdcl_dtype_is_int(x->d.dtype);
}

static const char *type_name(const operand *x)
{
    if (x->s.rowptr) return x->s.pattern ? "a pattern" : tdcl_dtype_name(x->s.dtype);
    return tdcl_dtype_name(x->d.dtype);
}

/* x's values (CSR and dense copies) as type t, as C's casts do (the dense
 * path's --type computation of wider inputs); a pattern stays one. */
static tdcl_status cast_operand(operand *x, tdcl_dtype t, tdcl_err *err)
{
    tdcl_matrix v = {.rows = 1, .cols = x->s.nnz, .channels = 1, .dtype = x->s.dtype}, w = {0};
    tdcl_status st = TDCL_OK;
    if (x->s.rowptr && !x->s.pattern && x->s.dtype != t) {
        v.data = x->s.values;
        if (x->s.nnz) TDCL_TRY(tdcl_matrix_convert(&v, t, &w, err));
        free(x->s.values);
        x->s.values = w.data ? w.data : malloc(1);
        x->s.dtype = t;
    }
    if (x->d.data && x->d.dtype != t) {
        TDCL_TRY(tdcl_matrix_convert(&x->d, t, &w, err));
        tdcl_matrix_free(&x->d);
        x->d = w;
    }
out:
    return st;
}

/* A type the user asked for: the operands cast to it (float32 sums on a
 * device without doubles, rather than the host's float64); int64 needs
 * integer operands. */
static tdcl_status as_type(const tdcl_mm_job_opts *o, operand *a, operand *b, tdcl_err *err)
{
    tdcl_dtype t = o->mm.type;
    if (!o->type_given) return TDCL_OK;
    if (t == TDCL_I64 && (has_float(a) || has_float(b)))
        return tdcl_fail(err, TDCL_EINVAL,
                         "an exact int64 product needs integer inputs, but A is %s and B %s",
                         type_name(a), type_name(b));
    if (t == TDCL_I64) return TDCL_OK; /* integers multiply in int64 already */
    tdcl_status st = cast_operand(a, t, err);
    return st != TDCL_OK ? st : cast_operand(b, t, err);
}

/* Reads on the root what the choice needs (root 0: another rank, which
 * reads nothing); in_st: how that went. */
static tdcl_status read_operands(tdcl_timing *t, const tdcl_mm_job_opts *o, how h, operand *a,
                                 operand *b, tdcl_mm_repr *r, tdcl_err *err)
{
    operand *sp = a->sparse_file ? a : b, *dn = a->sparse_file ? b : a;
    tdcl_status st = TDCL_OK;
    if (h == SPGEMM) {
        if (!a->s.rowptr) TDCL_TRY(read_csr(t, o, a, err));
        if (!b->s.rowptr) TDCL_TRY(read_csr(t, o, b, err));
    } else if (h == SPMM) {
        if (!sp->s.rowptr) TDCL_TRY(read_csr(t, o, sp, err));
        TDCL_TRY(read_dense(t, o, dn, err));
    } else {
        TDCL_TRY(read_dense(t, o, a, err));
        TDCL_TRY(read_dense(t, o, b, err));
    }
    TDCL_TRY(check_shapes(o, a, b, err));
    if (h != DENSE_HERE) TDCL_TRY(as_type(o, a, b, err));
    const char *fa = a->sparse_file ? "" : ", from a dense file";
    const char *fb = b->sparse_file ? "" : ", from a dense file";
    if (a->s.rowptr && h != DENSE_HERE) describe_csr(&a->s, fa, r->a, sizeof r->a);
    if (b->s.rowptr && h != DENSE_HERE) describe_csr(&b->s, fb, r->b, sizeof r->b);
out:
    return st;
}

/* Hands over or writes a sparse C (the root). */
static tdcl_status put_sparse(tdcl_timing *t, const tdcl_mm_job_opts *o, tdcl_csr *cs,
                              tdcl_err *err)
{
    if (o->product && o->sparse_product) {
        *o->sparse_product = *cs;
        memset(cs, 0, sizeof *cs);
        return TDCL_OK;
    }
    return write_sparse(t, o, cs, err);
}

/* Multiplies on ex (every rank), verifies and hands over or writes C
 * (the root). */
static tdcl_status run(tdcl_exec *ex, tdcl_timing *t, const tdcl_mm_job_opts *o, how h, operand *a,
                       operand *b, tdcl_mm_repr *r, tdcl_err *err)
{
    tdcl_csr cs = {0};
    tdcl_matrix cd = {0};
    tdcl_sp_exec x = {0};
    tdcl_sparse_info info;
    char where[96];
    operand *sp = a->sparse_file ? a : b, *dn = a->sparse_file ? b : a;
    int root = tdcl_exec_root(ex);
    tdcl_status st = TDCL_OK, in_st = TDCL_OK;
    if (root) in_st = read_operands(t, o, h, a, b, r, err);
    if (h == DENSE_HERE && ex->kind != TDCL_EXEC_ONE) /* every rank: the job agrees after */
        return in_st ? in_st
                     : tdcl_fail(err, TDCL_EUNSUPPORTED,
                                 "a dense product of a .npz file runs on one device: convert it "
                                 "to .npy, or multiply it sparse");
    if (ex->kind != TDCL_EXEC_RANKS) TDCL_TRY(in_st);
    TDCL_TRY(tdcl_sp_exec_start(ex, &x, err));
    tdcl_sp_exec_where(&x, where, sizeof where);
    if (h == SPGEMM) {
        TDCL_TRY(tdcl_sp_exec_spgemm(&x, in_st, &a->s, &b->s, &cs, &info, err));
        if (!root) goto out;
        log_product(&x, 1, &info, cs.nnz);
        describe_csr(&cs, "", r->c, sizeof r->c);
        log_repr(r);
        if (o->verify) TDCL_TRY(verify_spgemm(o, &a->s, &b->s, &cs, err));
        TDCL_TRY(put_sparse(t, o, &cs, err));
        goto out;
    }
    if (h == SPMM) {
        TDCL_TRY(tdcl_sp_exec_spmm(&x, in_st, &sp->s, &dn->d, sp == a, &cd, &info, err));
        if (!root) goto out;
        log_product(&x, 0, &info, 0);
        if (o->verify) TDCL_TRY(verify_spmm(o, &sp->s, &dn->d, sp == a, &cd, err));
    } else {
        TDCL_TRY(in_st);
        TDCL_TRY(run_dense(ex->ctx, o, a, b, &cd, err));
    }
    log_repr(r);
    if (o->product) {
        *o->product = cd;
        memset(&cd, 0, sizeof cd);
    } else {
        TDCL_TRY(write_dense(t, o, where, &cd, err));
    }
out:
    tdcl_sp_exec_end(&x);
    tdcl_csr_free(&cs);
    tdcl_matrix_free(&cd);
    return st;
}

/* The root's choice (*h; -1: the dense path of the job, files unread). */
static tdcl_status decide(tdcl_exec *ex, tdcl_timing *t, const tdcl_mm_job_opts *o, operand *a,
                          operand *b, tdcl_mm_repr *r, int *h, tdcl_err *err)
{
    char why[160] = "";
    tdcl_status st = TDCL_OK;
    *h = -1;
    peek(o->a_path, a);
    peek(o->b_path, b);
    if (o->sparse != TDCL_MM_SPARSE_ON && !a->sparse_file && !b->sparse_file) return TDCL_OK;
    snprintf(r->a, sizeof r->a, "dense%s", a->sparse_file ? ", from a sparse file" : "");
    snprintf(r->b, sizeof r->b, "dense%s", b->sparse_file ? ", from a sparse file" : "");
    snprintf(r->c, sizeof r->c, "dense");
    /* a sparse file without a Matrix Market header (.npz) is read first */
    if (a->sparse_file && a->nnz < 0) TDCL_TRY(read_csr(t, o, a, err));
    if (b->sparse_file && b->nnz < 0) TDCL_TRY(read_csr(t, o, b, err));
    how c = choose(ex, o, a, b, why, sizeof why);
    tdcl_log(TDCL_LOG_VERBOSE, "matmul: %s product: %s",
             c == SPGEMM ? "sparse x sparse (SpGEMM)"
             : c == SPMM ? "sparse x dense (SpMM)"
                         : "dense",
             why);
    if (c == DENSE_HERE && !a->s.rowptr && !b->s.rowptr) {
        log_repr(r); /* the dense path reads the files */
        return TDCL_OK;
    }
    *h = (int)c;
out:
    return st;
}

tdcl_status tdcl_mm_sparse_job(tdcl_exec *ex, const tdcl_mm_job_opts *o, int *handled,
                               tdcl_err *err)
{
    operand a, b;
    tdcl_mm_repr own, *r = o->repr ? o->repr : &own;
    tdcl_timing scratch = {0}, *t = tdcl_exec_timing(ex) ? tdcl_exec_timing(ex) : &scratch;
    tdcl_status st = TDCL_OK;
    int h = -1;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    if (tdcl_exec_root(ex)) st = decide(ex, t, o, &a, &b, r, &h, err);
    if (ex->kind == TDCL_EXEC_RANKS) { /* rank 0's choice, for every rank */
        int64_t v = h, sa = a.sparse_file, sb = b.sparse_file;
        tdcl_exec_agree(ex, &st, err);
        tdcl_mpi_bcast_i64(&v);
        tdcl_mpi_bcast_i64(&sa); /* which operand is sparse, for SpMM */
        tdcl_mpi_bcast_i64(&sb);
        h = (int)v;
        a.sparse_file = (int)sa;
        b.sparse_file = (int)sb;
    }
    *handled = st != TDCL_OK || h >= 0;
    if (st == TDCL_OK && h >= 0) st = run(ex, t, o, (how)h, &a, &b, r, err);
    if (*handled) tdcl_exec_agree(ex, &st, err);
    tdcl_csr_free(&a.s);
    tdcl_csr_free(&b.s);
    tdcl_matrix_free(&a.d);
    tdcl_matrix_free(&b.d);
    return st;
}
