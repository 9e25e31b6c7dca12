/* The matmul command as one core call (tdcl_mm_job): read both matrix
 * files, choose the type, multiply, verify on request, write the product. */
#include "jobs/matmul_job.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/fileio.h"
#include "base/log.h"
#include "io/matio.h"
#include "io/matsrc.h"
#include "io/npy.h"
#include <stdlib.h>
#include "base/clock.h"

static tdcl_status check_out_path(const char *path, tdcl_err *err)
{
    if (!path || strcmp(path, "-") == 0 || tdcl_path_has_ext(path, ".mtx") ||
        tdcl_path_has_ext(path, ".npy"))
        return TDCL_OK;
    return tdcl_fail(err, TDCL_EINVAL,
                     "output '%s': unknown extension (write .mtx or .npy, or '-' for stdout)",
                     path);
}

static tdcl_status read_inputs(tdcl_ctx *ctx, const tdcl_mm_job_opts *o, tdcl_matrix *a,
                               tdcl_matrix *b, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    double t0 = tdcl_now_ms();
    if (o->a_path && o->b_path && strcmp(o->a_path, "-") == 0 && strcmp(o->b_path, "-") == 0)
        return tdcl_fail(err, TDCL_EINVAL, "only one of A and B can be read from stdin ('-')");
    TDCL_TRY(tdcl_matrix_read(o->a_path, o->max_input_bytes, a, err));
    TDCL_TRY(tdcl_matrix_read(o->b_path, o->max_input_bytes, b, err));
    if (a->cols != b->rows)
        st = tdcl_fail(err, TDCL_EINVAL,
                       "cannot multiply '%s' (%" PRId64 "x%" PRId64 ") by '%s' (%" PRId64
                       "x%" PRId64 "): A has %" PRId64 " columns but B has %" PRId64 " rows",
                       tdcl_path_display(o->a_path), a->rows, a->cols, tdcl_path_display(o->b_path),
                       b->rows, b->cols, a->cols, b->rows);
out:
    ctx->t.read_ms += tdcl_now_ms() - t0;
    return st;
}

/* Two integer inputs multiply exactly; anything with a float in it is
 * computed in float32 unless the user asked for another type. */
static tdcl_dtype job_type(const tdcl_mm_job_opts *o, const tdcl_matrix *a, const tdcl_matrix *b)
{
    if (o->type_given) return o->mm.type;
    if (o->mm.precision == TDCL_MM_TF32 || o->mm.precision == TDCL_MM_3XTF32) return TDCL_F32;
    return tdcl_dtype_is_int(a->dtype) && tdcl_dtype_is_int(b->dtype) ? TDCL_I64 : TDCL_F32;
}

static tdcl_status verify(const tdcl_mm_job_opts *o, const tdcl_matrix *a, const tdcl_matrix *b,
                          const tdcl_matrix *c, tdcl_err *err)
{
    tdcl_mm_check chk;
    double t0 = tdcl_now_ms();
    tdcl_status st = tdcl_mm_check_product(a, b, c, &chk, err);
    if (st) return st;
    if (o->mm.precision == TDCL_MM_TF32 && chk.k > 0 && chk.bound > 0 && isfinite(chk.bound)) {
        /* TF32 rounds each input to 2^-11: every product is off by up to
         * 2^-10 relative on top of the float32 sums the bound is for */
        double fp32 = 2.0 * (double)(chk.k + 2) * ldexp(1.0, -24);
        chk.bound *= 1.0 + ldexp(1.0, -10) / fp32;
        chk.ok = chk.rel_err <= chk.bound;
    }
    tdcl_log(TDCL_LOG_VERBOSE, "matmul: host check took %.1f ms", tdcl_now_ms() - t0);
    if (o->check) *o->check = chk;
    if (chk.ok) return TDCL_OK;
    if (tdcl_dtype_is_int(c->dtype))
        return tdcl_fail(err, TDCL_EVERIFY,
                         "verification failed: %" PRId64 " of %" PRId64
                         " elements differ from the exact host product",
                         chk.differing, c->rows * c->cols);
    return tdcl_fail(err, TDCL_EVERIFY,
                     "verification failed: relative Frobenius error %.3g exceeds the bound %.3g "
                     "for %s%s with K=%" PRId64,
                     chk.rel_err, chk.bound, tdcl_dtype_name(c->dtype),
                     o->mm.precision == TDCL_MM_TF32 ? " (tf32 inputs)" : "", a->cols);
}

static tdcl_status write_product(tdcl_ctx *ctx, const tdcl_mm_job_opts *o, const tdcl_matrix *c,
                                 const tdcl_matrix *a, tdcl_err *err)
{
    char comment[512];
    snprintf(comment, sizeof comment, "C = A*B, A = %s (%" PRId64 "x%" PRId64 "), B = %s, %s on %s",
             tdcl_path_display(o->a_path), a->rows, a->cols, tdcl_path_display(o->b_path),
             tdcl_dtype_name(c->dtype), ctx->dev.device_name);
    double t0 = tdcl_now_ms();
    tdcl_status st = tdcl_matrix_write(o->out_path, c, comment, err);
    ctx->t.write_ms += tdcl_now_ms() - t0;
    return st;
}

/* The inputs' headers for the mapped path: both .npy files in C order of
 * one dtype, which is the product's. 1 when they are, else 0 (the plain
 * path then reads them, and reports any error). */
static int mapped_inputs(const tdcl_mm_job_opts *o, tdcl_src *sa, tdcl_src *sb, tdcl_npy_info *ia,
                         tdcl_npy_info *ib)
{
    const char *env = getenv("TILEDCL_MAPPED");
    tdcl_err e = {0};
    if (o->verify || (env && strcmp(env, "0") == 0) || !o->a_path || !o->b_path ||
        strcmp(o->a_path, "-") == 0 || strcmp(o->b_path, "-") == 0)
        return 0;
    if (tdcl_src_open(sa, o->a_path, &e)) return 0;
    if (tdcl_src_open(sb, o->b_path, &e)) return 0;
    if (!sa->regular || !sb->regular || !tdcl_npy_magic(sa) || !tdcl_npy_magic(sb)) return 0;
    if (tdcl_npy_read_header(sa, o->max_input_bytes, ia, &e) ||
        tdcl_npy_read_header(sb, o->max_input_bytes, ib, &e))
        return 0;
    tdcl_matrix ha = {.rows = ia->rows, .cols = ia->cols, .channels = 1, .dtype = ia->dtype};
    tdcl_matrix hb = {.rows = ib->rows, .cols = ib->cols, .channels = 1, .dtype = ib->dtype};
    tdcl_dtype t = job_type(o, &ha, &hb);
    return !ia->fortran && !ib->fortran && ia->dtype == t && ib->dtype == t && ia->cols == ib->rows;
}

/* Reads an input's data straight into operand which of p. */
static tdcl_status fill_operand(tdcl_ctx *ctx, tdcl_mm_plan *p, tdcl_mm_operand which, tdcl_src *s,
                                const tdcl_npy_info *info, tdcl_err *err)
{
    void *dst = NULL;
    tdcl_status st = tdcl_mm_plan_map(p, which, &dst, err);
    if (st) return st;
    double t0 = tdcl_now_ms();
    st = tdcl_npy_read_data(s, info, dst, err);
    ctx->t.read_ms += tdcl_now_ms() - t0;
    if (st) return st; /* tdcl_mm_plan_destroy unmaps without uploading */
    return tdcl_mm_plan_unmap(p, which, err);
}

/* The mapped path (tdcl_mm_plan_create_mapped): .npy data read straight
 * into the device's buffers (a CPU device's own memory, or a GPU's pinned
 * staging), the product written straight from them: no host copies, no
 * first touch of fresh memory. *done is 0 when the path does not apply
 * (nothing was read or written; the plain path follows). */
static tdcl_status mapped_job(tdcl_ctx *ctx, const tdcl_mm_job_opts *o, int *done, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_src sa = {.fd = -1}, sb = {.fd = -1}; /* closable before opening */
    tdcl_npy_info ia, ib;
    tdcl_mm_plan *p = NULL;
    void *cdata = NULL;
    *done = 0;
    double t0 = tdcl_now_ms();
    int ok = mapped_inputs(o, &sa, &sb, &ia, &ib);
    ctx->t.read_ms += tdcl_now_ms() - t0;
    if (!ok) goto out;
    TDCL_TRY(tdcl_ctx_wait(ctx, err));
    tdcl_mm_opts mm = o->mm;
    mm.type = ia.dtype;
    tdcl_err e = {0};
    st = tdcl_mm_plan_create_mapped(ctx, &mm, ia.rows, ia.cols, ib.cols, &p, &e);
    if (st == TDCL_EUNSUPPORTED) {
        tdcl_log(TDCL_LOG_VERBOSE, "matmul: plain buffers: %s", e.msg);
        st = TDCL_OK;
        goto out;
    }
    if (st) {
        if (err) *err = e;
        goto out;
    }
    *done = 1;
    tdcl_log(TDCL_LOG_VERBOSE, "matmul: inputs read into %s",
             ctx->dev.type & CL_DEVICE_TYPE_CPU ? "the device's mapped buffers (zero copy)"
                                                : "pinned, mapped staging buffers");
    TDCL_TRY(fill_operand(ctx, p, TDCL_MM_A, &sa, &ia, err));
    TDCL_TRY(fill_operand(ctx, p, TDCL_MM_B, &sb, &ib, err));
    tdcl_src_close(&sa);
    tdcl_src_close(&sb);
    TDCL_TRY(tdcl_mm_plan_execute(p, NULL, err));
    TDCL_TRY(tdcl_mm_plan_map(p, TDCL_MM_C, &cdata, err));
    tdcl_matrix c = {
        .rows = ia.rows, .cols = ib.cols, .channels = 1, .dtype = mm.type, .data = cdata};
    tdcl_matrix a = {.rows = ia.rows, .cols = ia.cols, .channels = 1, .dtype = ia.dtype};
    TDCL_TRY(write_product(ctx, o, &c, &a, err));
    /* C is written: a failure to unmap it now costs nothing but a warning */
    if (tdcl_mm_plan_unmap(p, TDCL_MM_C, &e))
        tdcl_log(TDCL_LOG_WARN, "after writing the product: %s", e.msg);
out:
    tdcl_mm_plan_destroy(p);
    tdcl_src_close(&sa);
    tdcl_src_close(&sb);
    return st;
}

tdcl_status tdcl_mm_job(tdcl_ctx *ctx, const tdcl_mm_job_opts *o, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix a = {0}, b = {0}, c = {0};
    int done = 0;
    TDCL_TRY(check_out_path(o->out_path, err));
    TDCL_TRY(mapped_job(ctx, o, &done, err));
    if (done) goto out;
    TDCL_TRY(read_inputs(ctx, o, &a, &b, err));
    TDCL_TRY(tdcl_ctx_wait(ctx, err));
    tdcl_mm_opts mm = o->mm;
    mm.type = job_type(o, &a, &b);
    TDCL_TRY(tdcl_mm_run(ctx, &mm, &a, &b, &c, err));
    if (o->verify) TDCL_TRY(verify(o, &a, &b, &c, err));
    TDCL_TRY(write_product(ctx, o, &c, &a, err));
out:
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&c);
    return st;
}
