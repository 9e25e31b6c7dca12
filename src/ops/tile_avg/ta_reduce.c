/* tile-avg's reductions over interleaved channels: the kernel's options and
 * launch shape (cl/tile_avg/reduce.cl), and the host reference of every
 * reduction (tdcl_ta_reference_op), written from the definitions rather
 * than the kernel's algorithms: values gathered per tile, sorted for the
 * median and the mode. */
#include "ops/tile_avg/ta_reduce.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Work-group width: tiles side by side along a row. A CPU's items run as
 * a loop, so a few suffice; a GPU's want a warp or more. */
#define TR_LX_CPU 16
#define TR_LX_GPU 64
#define TR_HIST_BYTES (256 * sizeof(cl_uint)) /* one item's 8-bit histogram */
/* tile_imean (cl/tile_avg/imean.cl): a strip of about TR_STRIP_* samples
 * of a row per work-group, VW samples per item and pass: a CPU's item
 * sums a run of 32 down the rows as one vectorised loop (PoCL leaves the
 * loop over items scalar here; 32 and 64 measured alike, 16 1.5x slower on
 * RGB, single samples 2.5x), a GPU's items read four at a time; at most
 * TR_IMEAN_LX_* items. */
#define TR_STRIP_CPU 4096
#define TR_STRIP_GPU 2048
#define TR_VW_CPU 32
#define TR_VW_GPU 4
#define TR_IMEAN_LX_CPU 512
#define TR_IMEAN_LX_GPU 256

static const char *const op_names[] = {"mean", "sum", "min", "max", "median", "mode"};

const char *tdcl_ta_op_name(tdcl_ta_op op)
{
    return (unsigned)op <= TDCL_TA_MODE ? op_names[op] : "unknown";
}

int tdcl_ta_op_parse(const char *name, tdcl_ta_op *op)
{
    for (int i = 0; i <= TDCL_TA_MODE; i++)
        if (name && strcmp(name, op_names[i]) == 0) {
            *op = (tdcl_ta_op)i;
            return 0;
        }
    return -1;
}

int ta_reduce_wanted(const tdcl_ta_opts *o, int channels)
{
    (void)channels; /* several planes of a matrix: the tuned kernels take them too */
    return o->op != TDCL_TA_MEAN || o->image;
}

const char *ta_cl_type(tdcl_dtype t)
{
    switch (t) {
    case TDCL_F32:
        return "float";
    case TDCL_F64:
        return "double";
    case TDCL_I32:
        return "int";
    case TDCL_I64:
        return "long";
    case TDCL_U8:
        return "uchar";
    case TDCL_U16:
        return "ushort";
    }
    return "float";
}

/* Items per work-group: within the device's limits and, for the 8-bit
 * histogram, its local memory (half of it, leaving the compiler room). */
static size_t group_width(const tdcl_ctx *ctx, int hist)
{
    const tdcl_device_info *d = &ctx->dev;
    size_t lx = (d->type & CL_DEVICE_TYPE_CPU) ? TR_LX_CPU : TR_LX_GPU;
    while (lx > 1 && (lx > d->max_wg || lx > d->max_item_sizes[0] ||
                      (hist && lx * TR_HIST_BYTES > d->local_mem / 2)))
        lx /= 2;
    return lx;
}

static void build_options(const tdcl_ta_opts *o, int channels, tdcl_dtype in, tdcl_dtype out,
                          tdcl_dtype acc, int hist, size_t lx, char *buf, size_t cap)
{
    int isint = tdcl_dtype_is_int(in);
    int weighted = o->alpha_weighted && o->op == TDCL_TA_MEAN;
    const char *fp64 = acc == TDCL_F64 || in == TDCL_F64 || out == TDCL_F64 ? " -DUSE_FP64" : "";
    snprintf(buf, cap,
             "-DOP=%d -DIN=%s -DOUT=%s -DACC=%s -DSUMT=%s -DISINT=%d -DOUTINT=%d -DIN_F64=%d "
             "-DCH=%d -DLX=%zu -DHIST=%d -DALPHA_W=%d%s",
             (int)o->op, ta_cl_type(in), ta_cl_type(out), ta_cl_type(acc),
             isint ? "long" : ta_cl_type(acc), isint, tdcl_dtype_is_int(out), in == TDCL_F64,
             channels, lx, hist, weighted, fp64);
}

/* tile_imean's launch: tiles per group, items, samples per item and pass,
 * the column sums' type. */
typedef struct imean_shape {
    int64_t gt;
    size_t lx, sum_bytes;
    int vw;
    tdcl_dtype sumt;
} imean_shape;

/* Whether an image's plain means go through tile_imean, and its shape: the
 * strip's column sums must fit half the local memory. The strip does not
 * shrink to a narrow image (its last group's tiles past the edge do
 * nothing), so that the program depends on the tile and the device only. */
static int imean_plan(const tdcl_ctx *ctx, const tdcl_ta_opts *o, int channels, tdcl_dtype in,
                      tdcl_dtype out, imean_shape *sh)
{
    const tdcl_device_info *d = &ctx->dev;
    int cpu = (d->type & CL_DEVICE_TYPE_CPU) != 0;
    if (o->op != TDCL_TA_MEAN || !o->image || o->alpha_weighted || in != out ||
        (in != TDCL_U8 && in != TDCL_U16))
        return 0;
    int64_t tile = o->tile_cols * channels, strip = cpu ? TR_STRIP_CPU : TR_STRIP_GPU;
    sh->sumt = o->tile_rows <= 65536 ? TDCL_I32 : TDCL_I64; /* T samples < 2^32 */
    size_t sz = sh->sumt == TDCL_I32 ? 4 : 8;
    sh->gt = strip / tile > 1 ? strip / tile : 1;
    if ((double)(sh->gt * tile) * (double)sz > (double)d->local_mem / 2) return 0;
    sh->sum_bytes = (size_t)(sh->gt * tile) * sz;
    sh->vw = cpu ? TR_VW_CPU : TR_VW_GPU;
    size_t lx = ((size_t)(sh->gt * tile) + (size_t)sh->vw - 1) / (size_t)sh->vw;
    size_t cap = cpu ? TR_IMEAN_LX_CPU : TR_IMEAN_LX_GPU;
    if (cap > d->max_wg) cap = d->max_wg;
    if (cap > d->max_item_sizes[0]) cap = d->max_item_sizes[0];
    sh->lx = lx < cap ? lx : cap;
    return 1;
}

/* The largest power of two within k's CL_KERNEL_WORK_GROUP_SIZE, when that
 * is below lx (a kernel's limit can be below the device's: Mesa's llvmpipe
 * allows 32 per kernel), else 0: the kernels' loops take any group width,
 * so a narrower build replaces a refusal. */
static size_t narrower_width(const tdcl_ctx *ctx, cl_kernel k, const char *what, size_t lx)
{
    size_t kwg = 0, w = 1;
    if (clGetKernelWorkGroupInfo(k, ctx->dev.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg,
                                 NULL) != CL_SUCCESS ||
        kwg == 0 || kwg >= lx)
        return 0;
    while (w * 2 <= kwg)
        w *= 2;
    tdcl_log(TDCL_LOG_VERBOSE,
             "tile-avg: the %s kernel allows work-groups of %zu items on '%s', fewer than its "
             "%zu; building it for %zu",
             what, kwg, ctx->dev.device_name, lx, w);
    return w;
}

static void release_build(cl_program *prog, cl_kernel *kern)
{
    if (*kern) clReleaseKernel(*kern);
    if (*prog) clReleaseProgram(*prog);
    *kern = NULL;
    *prog = NULL;
}

/* tile_imean built for groups of lx items. */
static tdcl_status imean_compile(tdcl_ctx *ctx, int channels, tdcl_dtype in, const imean_shape *sh,
                                 size_t lx, cl_program *prog, cl_kernel *kern, tdcl_err *err)
{
    static const char *const files[] = {"tile_avg/prelude.cl", "tile_avg/imean.cl"};
    tdcl_status st = TDCL_OK;
    char opts[256];
    snprintf(opts, sizeof opts, "-DIN=%s -DOUT=%s -DSUMT=%s -DCH=%d -DLX=%zu -DVW=%d -DGT=%lld",
             ta_cl_type(in), ta_cl_type(in), sh->sumt == TDCL_I32 ? "uint" : "ulong", channels, lx,
             sh->vw, (long long)sh->gt);
    TDCL_TRY(tdcl_ctx_program_files(ctx, files, 2, opts, prog, err));
    TDCL_TRY(tdcl_ctx_kernel(*prog, "tile_imean", kern, err));
    TDCL_CL_TRY(err, clSetKernelArg(*kern, 8, sh->sum_bytes, NULL), "clSetKernelArg");
    TDCL_TRY(tdcl_kernel_local_check(ctx, *kern, "tile_imean", err));
out:
    return st;
}

static tdcl_status imean_build(tdcl_ctx *ctx, int channels, tdcl_dtype in, const imean_shape *sh,
                               int64_t orows, int64_t ocols, cl_program *prog, cl_kernel *kern,
                               size_t *gws, size_t *lws, char *desc, size_t desc_cap, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    size_t lx = sh->lx, w;
    TDCL_TRY(imean_compile(ctx, channels, in, sh, lx, prog, kern, err));
    if ((w = narrower_width(ctx, *kern, "image mean", lx))) {
        release_build(prog, kern);
        lx = w;
        TDCL_TRY(imean_compile(ctx, channels, in, sh, lx, prog, kern, err));
        if (narrower_width(ctx, *kern, "image mean", lx)) {
            st = tdcl_fail(err, TDCL_ELIMIT,
                           "tile-avg: the image mean kernel built for work-groups of %zu items "
                           "allows fewer on '%s'",
                           lx, ctx->dev.device_name);
            goto out;
        }
    }
    lws[0] = lx;
    lws[1] = lws[2] = 1;
    gws[0] = (size_t)((ocols + sh->gt - 1) / sh->gt) * lx;
    gws[1] = (size_t)orows;
    gws[2] = 1;
    snprintf(desc, desc_cap,
             "kernel=imean op=mean in=%s channels=%d strip=%lld tiles wg=%zu vw=%d sums=%s",
             ta_cl_type(in), channels, (long long)sh->gt, lx, sh->vw,
             sh->sumt == TDCL_I32 ? "uint" : "ulong");
out:
    return st;
}

/* tile_reduce built for groups of lx items. */
static tdcl_status reduce_compile(tdcl_ctx *ctx, const tdcl_ta_opts *o, int channels,
                                  tdcl_dtype dev_in, tdcl_dtype out_type, tdcl_dtype acc, int hist,
                                  size_t lx, cl_program *prog, cl_kernel *kern, tdcl_err *err)
{
    static const char *const files[] = {"tile_avg/prelude.cl", "tile_avg/reduce.cl"};
    tdcl_status st = TDCL_OK;
    char opts[512];
    build_options(o, channels, dev_in, out_type, acc, hist, lx, opts, sizeof opts);
    TDCL_TRY(tdcl_ctx_program_files(ctx, files, 2, opts, prog, err));
    TDCL_TRY(tdcl_ctx_kernel(*prog, "tile_reduce", kern, err));
    TDCL_TRY(tdcl_kernel_local_check(ctx, *kern, "tile_reduce", err));
out:
    return st;
}

tdcl_status ta_reduce_build(tdcl_ctx *ctx, const tdcl_ta_opts *o, int channels, tdcl_dtype dev_in,
                            tdcl_dtype out_type, tdcl_dtype acc, int64_t orows, int64_t ocols,
                            cl_program *prog, cl_kernel *kern, size_t *gws, size_t *lws, char *desc,
                            size_t desc_cap, tdcl_err *err)
{
    imean_shape sh;
    if (imean_plan(ctx, o, channels, dev_in, out_type, &sh))
        return imean_build(ctx, channels, dev_in, &sh, orows, ocols, prog, kern, gws, lws, desc,
                           desc_cap, err);
    tdcl_status st = TDCL_OK;
    int hist = dev_in == TDCL_U8 && (o->op == TDCL_TA_MEDIAN || o->op == TDCL_TA_MODE);
    size_t lx = group_width(ctx, hist), w;
    const char *name = tdcl_ta_op_name(o->op);
    TDCL_TRY(reduce_compile(ctx, o, channels, dev_in, out_type, acc, hist, lx, prog, kern, err));
    if ((w = narrower_width(ctx, *kern, name, lx))) {
        release_build(prog, kern);
        lx = w;
        TDCL_TRY(
            reduce_compile(ctx, o, channels, dev_in, out_type, acc, hist, lx, prog, kern, err));
        if (narrower_width(ctx, *kern, name, lx)) {
            st = tdcl_fail(err, TDCL_ELIMIT,
                           "tile-avg: the %s kernel built for work-groups of %zu items allows "
                           "fewer on '%s'",
                           name, lx, ctx->dev.device_name);
            goto out;
        }
    }
    lws[0] = lx;
    lws[1] = lws[2] = 1;
    gws[0] = ((size_t)ocols + lx - 1) / lx * lx;
    gws[1] = (size_t)orows;
    gws[2] = 1;
    snprintf(desc, desc_cap, "kernel=reduce op=%s in=%s out=%s channels=%d%s%s wg=%zu", name,
             ta_cl_type(dev_in), ta_cl_type(out_type), channels, hist ? " histogram" : "",
             o->alpha_weighted ? " alpha=weighted" : "", lx);
out:
    return st;
}

/* ---- the host reference ------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_f64(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* floor((a + b + 1) / 2) without overflow: the mean of two middle integers
 * rounded half up. */
static int64_t mid_i64(int64_t a, int64_t b)
{
    return (a >> 1) + (b >> 1) + (((a & 1) + (b & 1) + 1) >> 1);
}

/* The most frequent of n sorted values, the first (smallest) among ties. */
#define SORTED_MODE(v, n, out)                                                                     \
    do {                                                                                           \
        size_t best_n_ = 0;                                                                        \
        for (size_t i_ = 0, j_; i_ < (n); i_ = j_) {                                               \
            for (j_ = i_ + 1; j_ < (n) && (v)[j_] == (v)[i_]; j_++)                                \
                ;                                                                                  \
            if (j_ - i_ > best_n_) {                                                               \
                best_n_ = j_ - i_;                                                                 \
                (out) = (v)[i_];                                                                   \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* One tile's channel of integers: v (n values), a its alpha (NULL unless
 * weighted). */
static tdcl_status ref_ints(const tdcl_ta_opts *o, int64_t *v, const int64_t *a, size_t n,
                            tdcl_matrix *out, size_t k, tdcl_err *err)
{
    int64_t s = 0, w = 0, r = 0;
    switch (o->op) {
    case TDCL_TA_MEAN:
    case TDCL_TA_SUM:
        for (size_t i = 0; i < n; i++) {
            int64_t x = a ? v[i] * a[i] : v[i];
            if (__builtin_add_overflow(s, x, &s)) {
                char where[96];
                return tdcl_fail(err, TDCL_ERANGE,
                                 "tile-avg: the sum of the tile at %s overflows int64",
                                 tdcl_matrix_where(out, k, where, sizeof where));
            }
            w += a ? a[i] : 0;
        }
        if (o->op == TDCL_TA_SUM) {
            tdcl_matrix_set_i64(out, k, s);
        } else if (a) {
            tdcl_matrix_set_i64(out, k, w ? (2 * s + w) / (2 * w) : 0);
        } else if (tdcl_dtype_is_int(out->dtype)) {
            tdcl_matrix_set_i64(out, k, (2 * s + (int64_t)n) / (2 * (int64_t)n));
        } else {
            tdcl_matrix_set_f64(out, k, (double)s / (double)n);
        }
        return TDCL_OK;
    case TDCL_TA_MIN:
    case TDCL_TA_MAX:
        r = v[0];
        for (size_t i = 1; i < n; i++)
            r = o->op == TDCL_TA_MIN ? (v[i] < r ? v[i] : r) : (v[i] > r ? v[i] : r);
        break;
    case TDCL_TA_MEDIAN:
        qsort(v, n, sizeof *v, cmp_i64);
        r = n % 2 ? v[n / 2] : mid_i64(v[n / 2 - 1], v[n / 2]);
        break;
    case TDCL_TA_MODE:
        qsort(v, n, sizeof *v, cmp_i64);
        SORTED_MODE(v, n, r);
        break;
    }
    tdcl_matrix_set_i64(out, k, r);
    return TDCL_OK;
}

/* One tile's channel of floats; *abs_out the sum (mean) of |x| for sums
 * (means). */
static void ref_floats(const tdcl_ta_opts *o, double *v, size_t n, tdcl_matrix *out, size_t k,
                       double *abs_out)
{
    long double s = 0, sa = 0;
    double r = 0;
    for (size_t i = 0; i < n; i++)
        if (isnan(v[i])) {
            tdcl_matrix_set_f64(out, k, NAN);
            *abs_out = NAN;
            return;
        }
    switch (o->op) {
    case TDCL_TA_MEAN:
    case TDCL_TA_SUM:
        for (size_t i = 0; i < n; i++) {
            s += v[i];
            sa += fabsl((long double)v[i]);
        }
        if (o->op == TDCL_TA_MEAN) {
            s /= (long double)n;
            sa /= (long double)n;
        }
        r = (double)s;
        *abs_out = (double)sa;
        break;
    case TDCL_TA_MIN:
    case TDCL_TA_MAX:
        r = v[0];
        for (size_t i = 1; i < n; i++)
            r = o->op == TDCL_TA_MIN ? (v[i] < r ? v[i] : r) : (v[i] > r ? v[i] : r);
        break;
    case TDCL_TA_MEDIAN:
        qsort(v, n, sizeof *v, cmp_f64);
        if (n % 2)
            r = v[n / 2];
        else if (out->dtype == TDCL_F32) /* as float32 arithmetic rounds it */
            r = (float)v[n / 2 - 1] * 0.5f + (float)v[n / 2] * 0.5f;
        else
            r = v[n / 2 - 1] * 0.5 + v[n / 2] * 0.5;
        break;
    case TDCL_TA_MODE:
        qsort(v, n, sizeof *v, cmp_f64);
        SORTED_MODE(v, n, r);
        break;
    }
    tdcl_matrix_set_f64(out, k, r);
}

/* Gathers channel c of tile (ti, tj) into vi (integers) or vd (floats),
 * and the alpha channel into va when weighted; returns the count. */
static size_t gather(const tdcl_ta_opts *o, const tdcl_matrix *in, int64_t ti, int64_t tj, int c,
                     int64_t *vi, double *vd, int64_t *va)
{
    int ch = in->channels, isint = tdcl_dtype_is_int(in->dtype);
    int64_t r1 = (ti + 1) * o->tile_rows < in->rows ? (ti + 1) * o->tile_rows : in->rows;
    int64_t c1 = (tj + 1) * o->tile_cols < in->cols ? (tj + 1) * o->tile_cols : in->cols;
    size_t n = 0;
    for (int64_t i = ti * o->tile_rows; i < r1; i++)
        for (int64_t j = tj * o->tile_cols; j < c1; j++, n++) {
            size_t e = ((size_t)i * (size_t)in->cols + (size_t)j) * (size_t)ch;
            if (isint)
                vi[n] = tdcl_matrix_get_i64(in, e + (size_t)c);
            else
                vd[n] = tdcl_matrix_get_f64(in, e + (size_t)c);
            if (va) va[n] = tdcl_matrix_get_i64(in, e + (size_t)ch - 1);
        }
    return n;
}

tdcl_status tdcl_ta_reference_op(const tdcl_ta_opts *o, const tdcl_matrix *in, tdcl_dtype out_type,
                                 tdcl_matrix *out, tdcl_matrix *abs_sum, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t orows, ocols;
    int ch = in->channels, isint = tdcl_dtype_is_int(in->dtype);
    size_t cells = (size_t)(o->tile_rows * o->tile_cols);
    int64_t *vi = NULL, *va = NULL;
    double *vd = NULL;
    memset(out, 0, sizeof *out);
    if (abs_sum) memset(abs_sum, 0, sizeof *abs_sum);
    TDCL_TRY(tdcl_ta_shape(o, in->rows, in->cols, &orows, &ocols, err));
    TDCL_TRY(tdcl_matrix_alloc(out, orows, ocols, ch, out_type, err));
    if (abs_sum) TDCL_TRY(tdcl_matrix_alloc(abs_sum, orows, ocols, ch, TDCL_F64, err));
    int weighted = o->alpha_weighted && o->op == TDCL_TA_MEAN && isint && (ch == 2 || ch == 4);
    vi = malloc(cells * sizeof *vi);
    va = malloc(cells * sizeof *va);
    vd = malloc(cells * sizeof *vd);
    if (!vi || !va || !vd) {
        st = tdcl_fail(err, TDCL_ENOMEM, "tile-avg: out of memory for a %zu-cell tile", cells);
        goto out;
    }
    for (int64_t ti = 0; ti < orows; ti++)
        for (int64_t tj = 0; tj < ocols; tj++)
            for (int c = 0; c < ch; c++) {
                size_t k = ((size_t)ti * (size_t)ocols + (size_t)tj) * (size_t)ch + (size_t)c;
                int w = weighted && c < ch - 1;
                size_t n = gather(o, in, ti, tj, c, vi, vd, w ? va : NULL);
                double a = 0;
                if (isint)
                    TDCL_TRY(ref_ints(o, vi, w ? va : NULL, n, out, k, err));
                else
                    ref_floats(o, vd, n, out, k, &a);
                if (abs_sum) ((double *)abs_sum->data)[k] = a;
            }
out:
    free(vi);
    free(va);
    free(vd);
    if (st) {
        tdcl_matrix_free(out);
        tdcl_matrix_free(abs_sum);
    }
    return st;
}
