/* The matmul command as one core call: read both matrix files, choose the
 * type, multiply, verify on request, write the product; on one device
 * (tdcl_mm_job) or on any execution (tdcl_mm_exec_job). */
#include "jobs/matmul_job.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "base/log.h"
#include "io/matio.h"
#include "io/npy.h"
#include "io/sparse_io.h"
#include <stdlib.h>
#include "base/clock.h"

static tdcl_status check_out_path(const char *path, tdcl_err *err)
{
    if (!path || strcmp(path, "-") == 0 || tdcl_path_has_ext(path, ".mtx") ||
        tdcl_path_has_ext(path, ".npy") || tdcl_path_has_ext(path, ".npz") ||
        tdcl_path_is_stream(path))
        return TDCL_OK;
    return tdcl_fail(err, TDCL_EINVAL,
                     "output '%s': unknown extension (write .mtx, .npy or .npz, or '-' for "
                     "stdout)",
                     path);
}

/* A and B, each read or, for a plain .npy file, mapped (maps[0], maps[1]):
 * no fresh memory touched and nothing copied before the upload, which on
 * a CPU device computes on the mapping in place. */
static tdcl_status read_inputs(tdcl_ctx *ctx, const tdcl_mm_job_opts *o, tdcl_matrix *a,
                               tdcl_matrix *b, tdcl_mapping maps[2], tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    double t0 = tdcl_now_ms();
    if (o->a_path && o->b_path && strcmp(o->a_path, "-") == 0 && strcmp(o->b_path, "-") == 0)
        return tdcl_fail(err, TDCL_EINVAL, "only one of A and B can be read from stdin ('-')");
    TDCL_TRY(tdcl_matrix_read_mapped(o->a_path, o->max_input_bytes, a, &maps[0], err));
    TDCL_TRY(tdcl_matrix_read_mapped(o->b_path, o->max_input_bytes, b, &maps[1], err));
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

/* The product's type follows the inputs, as numpy's A @ B does: two
 * integer inputs multiply exactly, a float64 one makes a float64 product
 * (where the device has fp64; else float32, saying so), anything else is
 * float32; unless the user asked for a type. */
tdcl_dtype tdcl_mm_job_type(const tdcl_mm_job_opts *o, const tdcl_matrix *a, const tdcl_matrix *b,
                            const char *no_fp64)
{
    if (o->type_given) return o->mm.type;
    if (o->mm.precision == TDCL_MM_TF32 || o->mm.precision == TDCL_MM_3XTF32) return TDCL_F32;
    if (tdcl_dtype_is_int(a->dtype) && tdcl_dtype_is_int(b->dtype)) return TDCL_I64;
    if (a->dtype != TDCL_F64 && b->dtype != TDCL_F64) return TDCL_F32;
    if (!no_fp64) return TDCL_F64;
    tdcl_log(TDCL_LOG_WARN,
             "matmul: %s is float64, but '%s' has no fp64: computing the product in float32",
             a->dtype == TDCL_F64 ? (b->dtype == TDCL_F64 ? "A and B" : "A") : "B", no_fp64);
    return TDCL_F32;
}

tdcl_status tdcl_mm_job_verify(const tdcl_mm_job_opts *o, const tdcl_matrix *a,
                               const tdcl_matrix *b, const tdcl_matrix *c, tdcl_err *err)
{
    tdcl_mm_check chk;
    double t0 = tdcl_now_ms();
    tdcl_log(TDCL_LOG_STATUS, "verifying the %" PRId64 "x%" PRId64 " product on the host...",
             c->rows, c->cols);
    tdcl_status st = tdcl_mm_check_product(a, b, c, &chk, err);
    if (st) return st;
    if (o->mm.precision == TDCL_MM_TF32 && chk.k > 0 && chk.bound > 0 && isfinite(chk.bound)) {
        /* TF32 rounds each input to 2^-11: every product is off by up to
         * 2^-10 relative on top of the float32 sums the bound is for */
        double fp32 = 2.0 * (double)(chk.k + 2) * ldexp(1.0, -24);
        chk.bound *= 1.0 + ldexp(1.0, -10) / fp32;
        chk.ok = chk.rel_err <= chk.bound;
    }
    /* wrap-around asked for: the product modulo 2^64 is what must match */
    if (chk.exact && o->mm.wrap) chk.ok = chk.differing == 0;
    tdcl_log(TDCL_LOG_VERBOSE, "matmul: host check took %.1f ms", tdcl_now_ms() - t0);
    if (o->check) *o->check = chk;
    if (chk.ok) return TDCL_OK;
    if (chk.exact && chk.overflowed && chk.differing == 0)
        return tdcl_fail(err, TDCL_EVERIFY,
                         "verification failed: %" PRId64 " elements of the exact product leave "
                         "int64, the first at (%" PRId64 ", %" PRId64
                         ") (row, column from 1); C holds them wrapped modulo 2^64",
                         chk.overflowed, chk.ovf_row + 1, chk.ovf_col + 1);
    if (chk.exact)
        return tdcl_fail(err, TDCL_EVERIFY,
                         "verification failed: %" PRId64 " of %" PRId64
                         " elements differ from the exact host product%s",
                         chk.differing, c->rows * c->cols,
                         chk.overflowed ? " (and some leave int64)" : "");
    if (chk.nonfinite_differ || chk.extra_nonfinite)
        return tdcl_fail(err, TDCL_EVERIFY,
                         "verification failed: %" PRId64 " elements differ where the host product "
                         "is NaN or infinite (NaN must stay NaN, an infinity the same one), "
                         "%" PRId64 " are NaN or infinite where it is finite",
                         chk.nonfinite_differ, chk.extra_nonfinite);
    return tdcl_fail(err, TDCL_EVERIFY,
                     "verification failed: relative Frobenius error %.3g exceeds the bound %.3g "
                     "for %s%s with K=%" PRId64,
                     chk.rel_err, chk.bound, tdcl_dtype_name(c->dtype),
                     o->mm.precision == TDCL_MM_TF32 ? " (tf32 inputs)" : "", a->cols);
}

/* The product written: into the .npy file opened early (w, freed), else
 * through tdcl_matrix_write (any format; .mtx gets a comment). */
static tdcl_status write_product(tdcl_ctx *ctx, const tdcl_mm_job_opts *o, const tdcl_matrix *c,
                                 const tdcl_matrix *a, tdcl_npy_out **w, tdcl_err *err)
{
    if (*w) {
        double t0 = tdcl_now_ms();
        tdcl_status st = tdcl_npy_out_finish(*w, c->data, err);
        *w = NULL;
        ctx->t.write_ms += tdcl_now_ms() - t0;
        return st;
    }
    char comment[512];
    snprintf(comment, sizeof comment, "C = A*B, A = %s (%" PRId64 "x%" PRId64 "), B = %s, %s on %s",
             tdcl_path_display(o->a_path), a->rows, a->cols, tdcl_path_display(o->b_path),
             tdcl_dtype_name(c->dtype), ctx->dev.device_name);
    double t0 = tdcl_now_ms();
    tdcl_status st = tdcl_matrix_write(o->out_path, c, comment, err);
    ctx->t.write_ms += tdcl_now_ms() - t0;
    return st;
}

/* On a CPU device C is mapped where the kernel wrote it (zero copy): view
 * (its shape and type set by the caller) then borrows that memory, never
 * to be freed through it, and *done is 1. Elsewhere *done stays 0. */
static tdcl_status map_in_place(tdcl_mm_plan *p, tdcl_matrix *view, int *done, tdcl_err *err)
{
    tdcl_err e = {0};
    void *ptr = NULL;
    tdcl_status st = tdcl_mm_plan_map_result(p, &ptr, &e);
    *done = 0;
    if (st == TDCL_EUNSUPPORTED) return TDCL_OK;
    if (st) {
        if (err) *err = e;
        return st;
    }
    view->data = ptr;
    *done = 1;
    return TDCL_OK;
}

/* C downloaded into A's host memory, touched already and free once A is
 * uploaded (faster than fresh pages): view borrows it and *done is 2;
 * *done stays 0 where A is too small or the plan cannot. */
static tdcl_status download_into_a(tdcl_mm_plan *p, tdcl_matrix *a, tdcl_matrix *view, int *done,
                                   tdcl_err *err)
{
    tdcl_err e = {0};
    size_t need = (size_t)(view->rows * view->cols) * tdcl_dtype_size(view->dtype);
    *done = 0;
    if (tdcl_matrix_count(a) * tdcl_dtype_size(a->dtype) < need) return TDCL_OK;
    tdcl_status st = tdcl_mm_plan_result_into(p, a->data, &e);
    if (st == TDCL_EUNSUPPORTED) return TDCL_OK;
    if (st) {
        if (err) *err = e;
        return st;
    }
    view->data = a->data;
    *done = 2;
    return TDCL_OK;
}

typedef struct timed_out {
    tdcl_npy_out *w;
    int64_t us; /* summed over the writing threads (atomic) */
} timed_out;

static tdcl_status timed_write(void *user, size_t pos, const void *p, size_t n, tdcl_err *err)
{
    timed_out *t = user;
    double t0 = tdcl_now_ms();
    tdcl_status st = tdcl_npy_out_write(t->w, pos, p, n, err);
    __atomic_add_fetch(&t->us, (int64_t)((tdcl_now_ms() - t0) * 1000), __ATOMIC_RELAXED);
    return st;
}

/* A .npy product opened and its space reserved while the device opens
 * (tdcl_npy_out_early), unless the product is wanted in memory. */
static tdcl_status open_early(const tdcl_mm_job_opts *o, const tdcl_matrix *shape, tdcl_npy_out **w,
                              tdcl_err *err)
{
    *w = NULL;
    if (o->product) return TDCL_OK;
    return tdcl_npy_out_early(o->out_path, shape->rows, shape->cols, shape->dtype, w, err);
}

/* A .npy product written chunk by chunk as it downloads, each chunk from
 * the pinned staging memory on a GPU straight to its place in the file
 * opened early (*w, taken), on several threads (runtime/xfer.h): no host
 * copy of C at all. *done stays 0 when the plan cannot (panels, tensor
 * cores) or there is no such file: the caller downloads C whole. The write
 * phase is the writing threads' mean time, the rest is the download's. */
static tdcl_status stream_product(tdcl_ctx *ctx, tdcl_mm_plan *p, const tdcl_matrix *shape,
                                  tdcl_npy_out **w, int *done, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_mm_plan_info info;
    timed_out t = {0};
    *done = 0;
    tdcl_mm_plan_get_info(p, &info);
    if (!*w || info.tensor_cores || info.panels_m * info.panels_k * info.panels_n != 1)
        return TDCL_OK;
    double t0 = tdcl_now_ms();
    size_t bytes = tdcl_matrix_count(shape) * tdcl_dtype_size(shape->dtype);
    t.w = *w;
    *w = NULL;
    TDCL_TRY(tdcl_mm_plan_result_each(p, timed_write, &t, err));
    st = tdcl_npy_out_commit(t.w, err); /* frees it either way */
    t.w = NULL;
    *done = !st;
    if (*done)
        tdcl_log(TDCL_LOG_VERBOSE,
                 "matmul: the product is written from the download, chunk by chunk into the file");
out:
    tdcl_npy_out_abort(t.w);
    double all = tdcl_now_ms() - t0, wr = t.us / 1000.0 / tdcl_xfer_lanes(ctx, bytes);
    if (wr > all) wr = all;
    ctx->t.download_ms += all - wr;
    ctx->t.write_ms += wr;
    return st;
}

/* tdcl_mm_opts.input_read: a mapped input, packed, leaves the process's
 * memory (on a CPU device the peak is then one input, the packed panels
 * and C, not both inputs beside them; --verify reads it back from the
 * file). */
static void drop_input(void *user, int which)
{
    tdcl_mapping_drop(&((tdcl_mapping *)user)[which]);
}

tdcl_status tdcl_mm_job(tdcl_ctx *ctx, const tdcl_mm_job_opts *o, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    tdcl_matrix a = {0}, b = {0}, c = {0}, view = {0};
    tdcl_mapping maps[2] = {{0}};
    tdcl_mm_plan *p = NULL;
    tdcl_npy_out *w = NULL; /* a .npy product, opened while the device opens */
    int in_place = 0;
    TDCL_TRY(check_out_path(o->out_path, err));
    TDCL_TRY(tdcl_out_precheck(o->out_path, err)); /* before the work, not after */
    int sparse = 0;
    tdcl_exec one = {.kind = TDCL_EXEC_ONE, .ctx = ctx};
    TDCL_TRY(tdcl_mm_sparse_job(&one, o, &sparse, err));
    if (sparse) goto out;
    TDCL_TRY(read_inputs(ctx, o, &a, &b, maps, err));
    tdcl_mm_opts mm = o->mm;
    /* the type as if the device had fp64, while it opens; settled after */
    mm.type = tdcl_mm_job_type(o, &a, &b, NULL);
    view = (tdcl_matrix){.rows = a.rows, .cols = b.cols, .channels = 1, .dtype = mm.type};
    TDCL_TRY(open_early(o, &view, &w, err));
    TDCL_TRY(tdcl_ctx_wait(ctx, err));
    if (mm.type == TDCL_F64 && !o->type_given && !ctx->dev.fp64) {
        mm.type = tdcl_mm_job_type(o, &a, &b, ctx->dev.device_name);
        view.dtype = mm.type;
        tdcl_npy_out_abort(w); /* its header says float64 */
        w = NULL;
        TDCL_TRY(open_early(o, &view, &w, err));
    }
    /* a and b live until the plan is destroyed: a CPU device computes on
     * them in place; TILEDCL_MAPPED=0 copies them as other devices do */
    const char *env = getenv("TILEDCL_MAPPED");
    mm.borrow_inputs = !(env && strcmp(env, "0") == 0);
    mm.input_read = drop_input;
    mm.input_user = maps;
    TDCL_TRY(tdcl_mm_plan_create(ctx, &mm, &a, &b, &p, err));
    TDCL_TRY(tdcl_mm_plan_execute(p, NULL, err));
    if (!o->verify && !o->product) {
        int streamed = 0;
        if (mm.borrow_inputs) TDCL_TRY(map_in_place(p, &view, &in_place, err));
        if (!in_place) TDCL_TRY(stream_product(ctx, p, &view, &w, &streamed, err));
        if (streamed) goto out;
        if (!in_place && mm.borrow_inputs && !maps[0].addr) /* a mapping is read-only */
            TDCL_TRY(download_into_a(p, &a, &view, &in_place, err));
    }
    if (in_place) {
        tdcl_log(TDCL_LOG_VERBOSE, "matmul: the product is written from %s",
                 in_place == 1 ? "the device's own memory (zero copy)"
                               : "A's host memory, reused for the download");
        TDCL_TRY(write_product(ctx, o, &view, &a, &w, err));
    } else {
        TDCL_TRY(tdcl_mm_plan_result(p, &c, err));
        if (o->verify) TDCL_TRY(tdcl_mm_job_verify(o, &a, &b, &c, err));
        if (o->product) {
            *o->product = c;
            memset(&c, 0, sizeof c);
        } else {
            TDCL_TRY(write_product(ctx, o, &c, &a, &w, err));
        }
    }
out:
    tdcl_npy_out_abort(w);
    tdcl_mm_plan_destroy(p);
    tdcl_matrix_release(&a, &maps[0]);
    tdcl_matrix_release(&b, &maps[1]);
    tdcl_matrix_free(&c);
    return st;
}

/* Reads o's A and B and checks that they multiply. */
static tdcl_status exec_inputs(const tdcl_mm_job_opts *o, tdcl_matrix *a, tdcl_matrix *b,
                               tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    TDCL_TRY(tdcl_matrix_read(o->a_path, o->max_input_bytes, a, err));
    TDCL_TRY(tdcl_matrix_read(o->b_path, o->max_input_bytes, b, err));
    if (a->cols != b->rows)
        st = tdcl_fail(err, TDCL_EINVAL,
                       "cannot multiply '%s' (%" PRId64 "x%" PRId64 ") by '%s' (%" PRId64
                       "x%" PRId64 "): A's columns are not B's rows",
                       tdcl_path_display(o->a_path), a->rows, a->cols, tdcl_path_display(o->b_path),
                       b->rows, b->cols);
out:
    return st;
}

/* Writes c to o->out_path (atomically), with a comment naming the inputs
 * and where the product was computed. */
static tdcl_status exec_write(const tdcl_mm_job_opts *o, const tdcl_matrix *a, const tdcl_matrix *c,
                              const char *where, tdcl_err *err)
{
    char comment[512], shape[48] = "";
    if (a->data) /* MPI ranks reading .npy blocks leave A unread on rank 0 */
        snprintf(shape, sizeof shape, " (%" PRId64 "x%" PRId64 ")", a->rows, a->cols);
    snprintf(comment, sizeof comment, "C = A*B, A = %s%s, B = %s, %s on %s",
             tdcl_path_display(o->a_path), shape, tdcl_path_display(o->b_path),
             tdcl_dtype_name(c->dtype), where);
    return tdcl_matrix_write(o->out_path, c, comment, err);
}

/* Whether the ranks may write C into the output by offset: a .npy file
 * that is new or a regular file, and no check of the whole C first. */
static int by_offset(const tdcl_mm_job_opts *o)
{
    struct stat sb;
    const char *p = o->out_path;
    if (!p || tdcl_path_is_stdout(p) || !tdcl_path_has_ext(p, ".npy") || o->verify || o->product)
        return 0;
    return stat(p, &sb) != 0 ? errno == ENOENT : S_ISREG(sb.st_mode);
}

tdcl_status tdcl_mm_exec_job(tdcl_exec *ex, const tdcl_mm_shard_opts *so, tdcl_mm_job_opts *o,
                             tdcl_err *err)
{
    tdcl_status st = TDCL_OK, in_st = TDCL_OK;
    tdcl_matrix a = {0}, b = {0}, c = {0};
    tdcl_mm_exec r = {0};
    tdcl_mm_shard_opts sl = *so;
    tdcl_mm_opts mm = o->mm;
    tdcl_dtype ta = TDCL_F32, tb = TDCL_F32;
    int root = tdcl_exec_root(ex), slabs = 0;
    if (ex->kind == TDCL_EXEC_ONE) {
        if (so->grid_rows * so->grid_cols > 1)
            return tdcl_fail(err, TDCL_EINVAL,
                             "a %dx%d grid of shards needs %d devices, but there is one",
                             so->grid_rows, so->grid_cols, so->grid_rows * so->grid_cols);
        return tdcl_mm_job(ex->ctx, o, err);
    }
    if (ex->kind == TDCL_EXEC_RANKS) o->product = NULL; /* rank 0 writes, to stdout too */
    if (o->sparse != TDCL_MM_SPARSE_OFF) { /* sparse files stay sparse: bands of A's rows */
        int sparse = 0;
        if (root) st = tdcl_out_precheck(o->out_path, err);
        tdcl_exec_agree(ex, &st, err);
        if (st == TDCL_OK) st = tdcl_mm_sparse_job(ex, o, &sparse, err);
        if (st != TDCL_OK || sparse) goto out;
    }
    TDCL_TRY(tdcl_mm_exec_start(ex, &r, err));
    TDCL_TRY(tdcl_mm_exec_slabs(&r, o->a_path, o->b_path, &ta, &tb, &slabs, err));
    if (slabs) { /* each rank reads its own blocks */
        tdcl_matrix da = {.dtype = ta}, db = {.dtype = tb};
        mm.type = tdcl_mm_job_type(o, &da, &db, r.no_fp64);
        sl.a_npy = o->a_path;
        sl.b_npy = o->b_path;
    }
    if (root) in_st = tdcl_out_precheck(o->out_path, err);
    if (root && in_st == TDCL_OK && (!slabs || o->verify || (mm.type == TDCL_I64 && !mm.wrap)))
        in_st = exec_inputs(o, &a, &b, err);
    TDCL_TRY(tdcl_mm_exec_devices(&r, so, in_st, err));
    if (root && in_st == TDCL_OK && !slabs) mm.type = tdcl_mm_job_type(o, &a, &b, r.no_fp64);
    int offset = by_offset(o); /* rank 0's view of the output decides, for all */
    tdcl_mm_exec_share(&r, &mm.type, &offset);
    sl.npy_out = offset ? o->out_path : NULL;
    TDCL_TRY(tdcl_mm_exec_run(&r, &sl, &mm, in_st, &a, &b, &c, err));
    if (root && o->verify) st = tdcl_mm_job_verify(o, &a, &b, &c, err);
    if (root && st == TDCL_OK && o->product) {
        *o->product = c;
        memset(&c, 0, sizeof c);
    } else if (root && st == TDCL_OK && c.data) { /* else the ranks wrote it */
        char where[96];
        tdcl_mm_exec_where(&r, where, sizeof where);
        st = exec_write(o, &a, &c, where, err);
    }
    tdcl_exec_agree(ex, &st, err);
out:
    tdcl_mm_exec_end(&r);
    tdcl_matrix_free(&a);
    tdcl_matrix_free(&b);
    tdcl_matrix_free(&c);
    return st;
}
