/* tile-avg of a CSR matrix: the kernel's options, buffers and launch
 * (cl/tile_avg/sparse.cl), and the host reference, which goes through
 * the entries row by row into a band of tile accumulators. */
#include "ops/tile_avg/ta_sparse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/mem.h"
#include "ops/tile_avg/ta_reduce.h"
#include "runtime/xfer.h"

#define TS_LX 64 /* work-group width: tiles side by side */

tdcl_status tdcl_ta_sparse_check(const tdcl_ta_opts *o, const tdcl_csr *m, int64_t *orows,
                                 int64_t *ocols, tdcl_err *err)
{
    if (o->op == TDCL_TA_MEDIAN || o->op == TDCL_TA_MODE)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "tile-avg: the %s of a sparse matrix's tiles is not computed (it would "
                         "need each tile made dense); mean, sum, min and max are",
                         tdcl_ta_op_name(o->op));
    if ((unsigned)o->op > TDCL_TA_MODE)
        return tdcl_fail(err, TDCL_EINVAL, "tile-avg: no reduction %d", (int)o->op);
    if (!m->sorted)
        return tdcl_fail(err, TDCL_EINVAL,
                         "tile-avg: the sparse matrix's rows are not sorted by column");
    return tdcl_ta_shape(o, m->rows, m->cols, orows, ocols, err);
}

static tdcl_dtype value_type(const tdcl_csr *m)
{
    return m->pattern ? TDCL_I64 : m->dtype;
}

tdcl_dtype tdcl_ta_sparse_result_type(const tdcl_device_info *d, const tdcl_ta_opts *o,
                                      const tdcl_csr *m)
{
    return tdcl_ta_result_type(d, o, value_type(m));
}

/* --- the host reference ------------------------------------------------ */

/* One tile's running reduction. */
typedef struct acc {
    int64_t n, isum;
    long double fsum, asum;
    double lo, hi; /* floats */
    int64_t ilo, ihi;
    int nan;
} acc;

static void acc_add(acc *a, const tdcl_csr *m, int64_t k, int isint, int *ovf)
{
    if (isint) {
        int64_t v = tdcl_csr_get_i64(m, k);
        if (__builtin_add_overflow(a->isum, v, &a->isum)) *ovf = 1;
        a->ilo = a->n && a->ilo < v ? a->ilo : v;
        a->ihi = a->n && a->ihi > v ? a->ihi : v;
        a->asum += fabsl((long double)v);
    } else {
        double v = tdcl_csr_get_f64(m, k);
        if (isnan(v)) a->nan = 1;
        a->fsum += v;
        a->asum += fabsl((long double)v);
        a->lo = a->n && a->lo < v ? a->lo : v;
        a->hi = a->n && a->hi > v ? a->hi : v;
    }
    a->n++;
}

static void put(tdcl_matrix *out, size_t k, long double v, int64_t iv, int isint)
{
    switch (out->dtype) {
    case TDCL_I64:
        ((int64_t *)out->data)[k] = iv;
        break;
    case TDCL_F32:
        ((float *)out->data)[k] = isint ? (float)iv : (float)v;
        break;
    default:
        ((double *)out->data)[k] = isint ? (double)iv : (double)v;
        break;
    }
}

/* The result of tile a of `cells` cells into out[k]. */
static void acc_finish(const tdcl_ta_opts *o, acc *a, int64_t cells, int isint, tdcl_matrix *out,
                       size_t k)
{
    if (a->n < cells) { /* implicit zeros */
        a->ilo = a->n && a->ilo < 0 ? a->ilo : 0;
        a->ihi = a->n && a->ihi > 0 ? a->ihi : 0;
        a->lo = a->n && a->lo < 0 ? a->lo : 0;
        a->hi = a->n && a->hi > 0 ? a->hi : 0;
    }
    switch (o->op) {
    case TDCL_TA_MEAN:
        put(out, k, isint ? (long double)a->isum / cells : a->fsum / cells, 0, 0);
        break;
    case TDCL_TA_SUM:
        put(out, k, a->fsum, a->isum, isint);
        break;
    default: {
        int mx = o->op == TDCL_TA_MAX;
        put(out, k, a->nan ? NAN : mx ? a->hi : a->lo, mx ? a->ihi : a->ilo, isint);
    }
    }
}

tdcl_status tdcl_ta_sparse_reference(const tdcl_ta_opts *o, const tdcl_csr *m, tdcl_dtype out_type,
                                     tdcl_matrix *out, tdcl_matrix *abs_mean, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t orows, ocols, T = o->tile_rows, U = o->tile_cols;
    int isint = value_type(m) == TDCL_I64;
    acc *band = NULL;
    memset(out, 0, sizeof *out);
    if (abs_mean) memset(abs_mean, 0, sizeof *abs_mean);
    TDCL_TRY(tdcl_ta_sparse_check(o, m, &orows, &ocols, err));
    TDCL_TRY(tdcl_matrix_alloc(out, orows, ocols, 1, out_type, err));
    if (abs_mean) TDCL_TRY(tdcl_matrix_alloc(abs_mean, orows, ocols, 1, TDCL_F64, err));
    band = malloc((size_t)ocols * sizeof *band);
    if (!band) {
        st = tdcl_fail(err, TDCL_ENOMEM, "tile-avg: no memory for the host reference");
        goto out;
    }
    for (int64_t ti = 0; ti < orows; ti++) {
        int64_t r0 = ti * T, r1 = r0 + T < m->rows ? r0 + T : m->rows;
        int ovf = 0;
        memset(band, 0, (size_t)ocols * sizeof *band);
        for (int64_t r = r0; r < r1; r++)
            for (int64_t k = tdcl_csr_rp(m, r); k < tdcl_csr_rp(m, r + 1); k++) {
                acc *a = &band[tdcl_csr_ci(m, k) / U];
                acc_add(a, m, k, isint, &ovf);
                if (ovf && (o->op == TDCL_TA_SUM || o->op == TDCL_TA_MEAN)) {
                    st = tdcl_fail(err, TDCL_ERANGE,
                                   "tile-avg: the sum of tile (%lld, %lld) overflows int64",
                                   (long long)ti + 1, (long long)(tdcl_csr_ci(m, k) / U) + 1);
                    goto out;
                }
            }
        for (int64_t tj = 0; tj < ocols; tj++) {
            int64_t c0 = tj * U, c1 = c0 + U < m->cols ? c0 + U : m->cols;
            int64_t cells = (r1 - r0) * (c1 - c0);
            size_t k = (size_t)(ti * ocols + tj);
            acc_finish(o, &band[tj], cells, isint, out, k);
            if (abs_mean) ((double *)abs_mean->data)[k] = (double)(band[tj].asum / cells);
        }
    }
out:
    free(band);
    if (st) {
        tdcl_matrix_free(out);
        if (abs_mean) tdcl_matrix_free(abs_mean);
    }
    return st;
}

/* The error of got[k] against ref[k] relative to scale; -1 when it must be
 * exact and is not (or NaN where NaN is not, or the other way). */
static double rel_err(const tdcl_matrix *got, const tdcl_matrix *ref, size_t k, double scale,
                      int exact)
{
    if (got->dtype == TDCL_I64)
        return tdcl_matrix_get_i64(got, k) == tdcl_matrix_get_i64(ref, k) ? 0 : -1;
    double g = tdcl_matrix_get_f64(got, k), r = tdcl_matrix_get_f64(ref, k);
    if (isnan(r) || isnan(g)) return isnan(r) && isnan(g) ? 0 : -1;
    if (g == r) return 0;
    if (exact || scale == 0 || isinf(r) || isinf(g)) return -1;
    return fabs(g - r) / scale;
}

tdcl_status tdcl_ta_sparse_compare(const tdcl_ta_opts *o, const tdcl_csr *m, const tdcl_matrix *got,
                                   double *worst, tdcl_err *err)
{
    tdcl_matrix ref = {0}, am = {0};
    tdcl_status st;
    int exact = o->op == TDCL_TA_MIN || o->op == TDCL_TA_MAX;
    *worst = 0;
    TDCL_TRY(tdcl_ta_sparse_reference(o, m, got->dtype, &ref, &am, err));
    for (int64_t i = 0; i < ref.rows; i++)
        for (int64_t j = 0; j < ref.cols; j++) {
            size_t k = (size_t)(i * ref.cols + j);
            double scale = ((double *)am.data)[k];
            if (o->op == TDCL_TA_SUM) {
                int64_t r1 = (i + 1) * o->tile_rows, c1 = (j + 1) * o->tile_cols;
                scale *= (double)((r1 < m->rows ? r1 : m->rows) - i * o->tile_rows) *
                         (double)((c1 < m->cols ? c1 : m->cols) - j * o->tile_cols);
            }
            double e = rel_err(got, &ref, k, scale, exact);
            if (e < 0 || e > 1e-6) {
                st = tdcl_fail(err, TDCL_EVERIFY,
                               "tile-avg: tile (%lld, %lld) of the sparse matrix is %.17g on the "
                               "device, %.17g on the host",
                               (long long)i + 1, (long long)j + 1, tdcl_matrix_get_f64(got, k),
                               tdcl_matrix_get_f64(&ref, k));
                goto out;
            }
            if (e > *worst) *worst = e;
        }
out:
    tdcl_matrix_free(&ref);
    tdcl_matrix_free(&am);
    return st;
}

/* --- the device ---------------------------------------------------------- */

/* Which kernel runs, and for the band kernel the tile columns a work-item
 * takes (g) and the work-items across a tile band (ng). */
typedef struct sp_plan {
    int band;
    int64_t g, ng;
    double tile_cost, band_cost;
    const char *why;
} sp_plan;

typedef struct sp_run {
    tdcl_ctx *ctx;
    cl_program prog;
    cl_kernel kern;
    cl_mem buf[7];   /* rowptr, colidx, values, out, flag; band: acc, cnt */
    float *narrowed; /* float64 values as float32 for a device without fp64 */
} sp_run;

static tdcl_status buffer(sp_run *r, size_t bytes, const void *host, const char *what, cl_mem *b,
                          tdcl_err *err)
{
    cl_int rc;
    char a[32], c[32];
    if (bytes == 0) bytes = 8; /* an empty array still needs a buffer */
    if (bytes > r->ctx->dev.max_alloc)
        return tdcl_fail(err, TDCL_ELIMIT, "tile-avg: %s needs a buffer of %s; '%s' allows %s",
                         what, tdcl_mem_size(bytes, a, sizeof a), r->ctx->dev.device_name,
                         tdcl_mem_size(r->ctx->dev.max_alloc, c, sizeof c));
    if (r->ctx->dev.type & CL_DEVICE_TYPE_CPU) { /* PoCL aborts on a failed allocation */
        tdcl_status st = tdcl_mem_check(bytes, what, 0, 0, err);
        if (st) return st;
    }
    /* the flag, the one small array both ways, is written by the kernel */
    cl_mem_flags fl = host && bytes > sizeof(cl_int) ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE;
    *b = clCreateBuffer(r->ctx->context, fl | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                        (void *)host, &rc);
    if (rc != CL_SUCCESS) return tdcl_fail_cl(err, rc, "clCreateBuffer", "tile-avg: %s", what);
    return TDCL_OK;
}

/* The band kernel's scratch: a running value a tile (8 bytes, 4 for
 * float accumulators), and for min and max an entry count a tile. */
static void scratch_bytes(const tdcl_ta_opts *o, const tdcl_csr *m, int fp64, int isint,
                          int64_t tiles, size_t *acc, size_t *cnt)
{
    *acc = (size_t)tiles * (isint || fp64 ? 8 : 4);
    *cnt = o->op == TDCL_TA_MIN || o->op == TDCL_TA_MAX ? (size_t)tiles * (m->idx64 ? 8 : 4) : 0;
}

/* The work-items wanted in flight: a few per core on a CPU, thousands on a
 * GPU. */
static int64_t wanted_items(const tdcl_device_info *d)
{
    int64_t cu = d->compute_units ? d->compute_units : 1;
    return d->type & CL_DEVICE_TYPE_CPU ? 4 * cu : 256 * cu;
}

/* TILEDCL_TA_SPARSE=tile, band or band:G forces a kernel (and the band
 * kernel's tile columns a work-item); returns 0 (auto), 1 (tile), 2 (band). */
static int forced(int64_t *g)
{
    const char *e = getenv("TILEDCL_TA_SPARSE");
    *g = 0;
    if (!e || !*e || strcmp(e, "auto") == 0) return 0;
    if (strcmp(e, "tile") == 0) return 1;
    if (strncmp(e, "band", 4) == 0) {
        if (e[4] == ':') *g = strtoll(e + 5, NULL, 10);
        return 2;
    }
    return 0;
}

/* The band kernel when the tile kernel's row walks (rows x map columns
 * binary searches) outweigh the entries plus the band kernel's fewer walks
 * and its scratch, and the scratch fits; the tile kernel for narrow maps
 * and where the device needs more work-items than bands give. */
static void plan(const tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_csr *m, int fp64, int isint,
                 size_t out_bytes, int64_t orows, int64_t ocols, sp_plan *p)
{
    int64_t g = 0, want = wanted_items(&ctx->dev);
    int f = forced(&g);
    size_t acc, cnt;
    tdcl_err e;
    memset(p, 0, sizeof *p);
    p->ng = want > orows ? (want + orows - 1) / orows : 1;
    if (p->ng > ocols) p->ng = ocols;
    if (p->ng < 1) p->ng = 1;
    p->g = (ocols + p->ng - 1) / p->ng;
    if (g > 0) p->g = g < ocols ? g : ocols;
    if (p->g < 1) p->g = 1;
    p->ng = (ocols + p->g - 1) / p->g;
    double walk = 1 + log2(1 + (double)m->nnz / (double)(m->rows ? m->rows : 1));
    p->tile_cost = (double)m->rows * (double)ocols * walk + (double)m->nnz;
    p->band_cost = (double)m->rows * (double)p->ng * (p->ng > 1 ? walk : 1) + 2 * (double)m->nnz +
                   3 * (double)orows * (double)ocols;
    scratch_bytes(o, m, fp64, isint, orows * ocols, &acc, &cnt);
    if (f) {
        p->band = f == 2;
        p->why = "forced by TILEDCL_TA_SPARSE";
    } else if (p->g < 2) {
        p->why = "a tile column a work-item";
    } else if (p->band_cost >= p->tile_cost) {
        p->why = "rows x map columns small against the entries";
    } else if (acc > ctx->dev.max_alloc || cnt > ctx->dev.max_alloc ||
               tdcl_mem_check(out_bytes + acc + cnt, "the scratch", 0, 0, &e)) {
        p->why = "its scratch does not fit";
    } else {
        p->band = 1;
        p->why = "rows x map columns large against the entries";
    }
}

static tdcl_status build(sp_run *r, const tdcl_ta_opts *o, const tdcl_csr *m, tdcl_dtype out_type,
                         int band, tdcl_err *err)
{
    static const char *const files[] = {"tile_avg/prelude.cl", "tile_avg/sparse.cl"};
    const char *name = band ? "tile_sparse_band" : "tile_sparse";
    tdcl_status st = TDCL_OK;
    int fp64 = r->ctx->dev.fp64 && !o->acc_f32;
    tdcl_dtype vt = value_type(m);
    if (vt == TDCL_F64 && !r->ctx->dev.fp64) vt = TDCL_F32;
    char opts[256];
    snprintf(
        opts, sizeof opts, "-DOP=%d -DIDX=%s -DVAL=%s -DPATTERN=%d -DISINT=%d -DACC=%s -DOUT=%s%s",
        (int)o->op, m->idx64 ? "long" : "int", ta_cl_type(vt), m->pattern, vt == TDCL_I64,
        fp64 ? "double" : "float", ta_cl_type(out_type),
        r->ctx->dev.fp64 && (fp64 || vt == TDCL_F64 || out_type == TDCL_F64) ? " -DUSE_FP64" : "");
    TDCL_TRY(tdcl_ctx_program_files(r->ctx, files, 2, opts, &r->prog, err));
    TDCL_TRY(tdcl_ctx_kernel(r->prog, name, &r->kern, err));
    TDCL_TRY(tdcl_kernel_local_check(r->ctx, r->kern, name, err));
out:
    return st;
}

/* rowptr, colidx and the values on the device; float64 values narrowed
 * for a device without fp64. */
static tdcl_status upload(sp_run *r, const tdcl_csr *m, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    size_t isz = m->idx64 ? 8 : 4, nnz = (size_t)m->nnz;
    const void *vals = m->values;
    size_t vsz = m->pattern ? 0 : tdcl_dtype_size(m->dtype);
    double t0 = tdcl_now_ms();
    if (!m->pattern && m->dtype == TDCL_F64 && !r->ctx->dev.fp64) {
        r->narrowed = malloc(nnz ? nnz * sizeof(float) : 1);
        if (!r->narrowed) return tdcl_fail(err, TDCL_ENOMEM, "tile-avg: no memory for the values");
        for (size_t k = 0; k < nnz; k++)
            r->narrowed[k] = (float)((const double *)m->values)[k];
        vals = r->narrowed;
        vsz = sizeof(float);
    }
    TDCL_TRY(buffer(r, ((size_t)m->rows + 1) * isz, m->rowptr, "the row offsets", &r->buf[0], err));
    TDCL_TRY(buffer(r, nnz * isz, nnz ? m->colidx : NULL, "the column indices", &r->buf[1], err));
    TDCL_TRY(buffer(r, nnz * vsz, nnz && vsz ? vals : NULL, "the values", &r->buf[2], err));
    r->ctx->t.upload_ms += tdcl_now_ms() - t0;
out:
    return st;
}

/* The band kernel's scratch, shaped as the result. */
static tdcl_status scratch(sp_run *r, const tdcl_ta_opts *o, const tdcl_csr *m, int64_t tiles,
                           tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    size_t acc, cnt;
    int isint = value_type(m) == TDCL_I64;
    scratch_bytes(o, m, r->ctx->dev.fp64 && !o->acc_f32, isint, tiles, &acc, &cnt);
    TDCL_TRY(buffer(r, acc, NULL, "the tiles' running sums", &r->buf[5], err));
    TDCL_TRY(buffer(r, cnt, NULL, "the tiles' entry counts", &r->buf[6], err));
out:
    return st;
}

/* The work-group width along the launch's first dimension: lx at most,
 * within the compiled kernel's and the device's limits. */
static size_t group_width(sp_run *r, size_t lx)
{
    size_t kwg = 0;
    if (clGetKernelWorkGroupInfo(r->kern, r->ctx->dev.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg,
                                 &kwg, NULL) == CL_SUCCESS &&
        kwg > 0)
        while (lx > 1 && (lx > kwg || lx > r->ctx->dev.max_item_sizes[0]))
            lx /= 2;
    return lx;
}

static tdcl_status launch(sp_run *r, const tdcl_ta_opts *o, const tdcl_csr *m, const sp_plan *p,
                          int64_t orows, int64_t ocols, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    cl_event ev = NULL;
    cl_long a[6] = {m->rows, m->cols, o->tile_rows, o->tile_cols, ocols, p->g};
    cl_uint nb = p->band ? 7 : 5, na = p->band ? 6 : 5;
    size_t items = p->band ? (size_t)p->ng : (size_t)ocols;
    size_t lx = group_width(r, items < TS_LX ? items : TS_LX);
    size_t lws[2] = {lx, 1}, gws[2] = {(items + lx - 1) / lx * lx, (size_t)orows};
    for (cl_uint i = 0; i < nb; i++)
        TDCL_CL_TRY(err, clSetKernelArg(r->kern, i, sizeof(cl_mem), &r->buf[i]), "clSetKernelArg");
    for (cl_uint i = 0; i < na; i++)
        TDCL_CL_TRY(err, clSetKernelArg(r->kern, nb + i, sizeof(cl_long), &a[i]), "clSetKernelArg");
    TDCL_CL_TRY(err,
                clEnqueueNDRangeKernel(r->ctx->queue, r->kern, 2, NULL, gws, lws, 0, NULL, &ev),
                "clEnqueueNDRangeKernel");
    TDCL_CL_TRY(err, clWaitForEvents(1, &ev), "clWaitForEvents");
    r->ctx->t.kernel_ms += tdcl_event_ms(ev);
    if (p->band)
        tdcl_log(TDCL_LOG_VERBOSE,
                 "tile-avg: sparse band kernel, %s, %lldx%lld tiles, %lld tile columns a "
                 "work-item in work-groups of %zu: %.2f ms",
                 tdcl_ta_op_name(o->op), (long long)orows, (long long)ocols, (long long)p->g, lx,
                 tdcl_event_ms(ev));
    else
        tdcl_log(TDCL_LOG_VERBOSE,
                 "tile-avg: sparse tile kernel, %s, %lldx%lld tiles in work-groups of %zu: %.2f ms",
                 tdcl_ta_op_name(o->op), (long long)orows, (long long)ocols, lx, tdcl_event_ms(ev));
out:
    if (ev) clReleaseEvent(ev);
    return st;
}

tdcl_status tdcl_ta_sparse_run(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_csr *m,
                               tdcl_matrix *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    sp_run r = {.ctx = ctx};
    sp_plan p;
    int64_t orows, ocols;
    size_t bytes;
    cl_int flag = 0;
    char what[160];
    memset(out, 0, sizeof *out);
    TDCL_TRY(tdcl_ta_sparse_check(o, m, &orows, &ocols, err));
    tdcl_dtype ot = tdcl_ta_sparse_result_type(&ctx->dev, o, m);
    snprintf(what, sizeof what, "the %lldx%lld %s result", (long long)orows, (long long)ocols,
             tdcl_dtype_name(ot));
    if (tdcl_matrix_bytes(orows, ocols, 1, ot, &bytes, NULL)) {
        st = tdcl_fail(err, TDCL_ELIMIT, "tile-avg: %s does not fit in memory", what);
        goto out;
    }
    TDCL_TRY(tdcl_mem_check(bytes, what, 0, 0, err));
    plan(ctx, o, m, ctx->dev.fp64 && !o->acc_f32, value_type(m) == TDCL_I64, bytes, orows, ocols,
         &p);
    tdcl_log(TDCL_LOG_VERBOSE,
             "tile-avg: the sparse %s kernel (%s: %.3g row walks and entries against %.3g for "
             "the %s kernel)",
             p.band ? "band" : "tile", p.why, p.band ? p.band_cost : p.tile_cost,
             p.band ? p.tile_cost : p.band_cost, p.band ? "tile" : "band");
    TDCL_TRY(build(&r, o, m, ot, p.band, err));
    TDCL_TRY(upload(&r, m, err));
    TDCL_TRY(buffer(&r, bytes, NULL, what, &r.buf[3], err));
    TDCL_TRY(buffer(&r, sizeof flag, &flag, "a flag", &r.buf[4], err));
    if (p.band) TDCL_TRY(scratch(&r, o, m, orows * ocols, err));
    TDCL_TRY(launch(&r, o, m, &p, orows, ocols, err));
    TDCL_TRY(tdcl_matrix_alloc(out, orows, ocols, 1, ot, err));
    double t0 = tdcl_now_ms();
    TDCL_TRY(tdcl_xfer_read(ctx, r.buf[3], 0, out->data, bytes, err));
    TDCL_TRY(tdcl_xfer_read(ctx, r.buf[4], 0, &flag, sizeof flag, err));
    ctx->t.download_ms += tdcl_now_ms() - t0;
    if (flag) { /* the host names the tile */
        tdcl_matrix ref = {0};
        st = tdcl_ta_sparse_reference(o, m, ot, &ref, NULL, err);
        tdcl_matrix_free(&ref);
        if (!st) st = tdcl_fail(err, TDCL_ERANGE, "tile-avg: an int64 sum of a tile overflows");
    }
out:
    for (int i = 0; i < 7; i++)
        if (r.buf[i]) clReleaseMemObject(r.buf[i]);
    if (r.kern) clReleaseKernel(r.kern);
    if (r.prog) clReleaseProgram(r.prog);
    free(r.narrowed);
    if (st) tdcl_matrix_free(out);
    return st;
}
