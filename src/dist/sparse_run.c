/* Sparse products on an execution (dist/sparse_run.h): one device, a set's
 * bands of A's rows on threads, or MPI ranks (dist/sparse_mpi.c). */
#include "dist/sparse_run.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/csr_mul.h"
#include "base/log.h"
#include "dist/mpi.h"
#include "dist/shard.h"

enum { SPGEMM, SPMM_SD, SPMM_DS };

tdcl_status tdcl_sp_exec_start(tdcl_exec *ex, tdcl_sp_exec *r, tdcl_err *err)
{
    memset(r, 0, sizeof *r);
    r->ex = ex;
    r->devices = 1;
    if (ex->kind == TDCL_EXEC_RANKS) {
        r->devices = (size_t)tdcl_mpi_size();
        return tdcl_mpi_open_local(ex->spec, &r->ctx, err);
    }
    if (ex->kind == TDCL_EXEC_SET) {
        tdcl_status st = tdcl_devset_wait(ex->set, err);
        r->devices = ex->set->n;
        return st;
    }
    r->ctx = ex->ctx;
    return tdcl_ctx_wait(ex->ctx, err);
}

void tdcl_sp_bands(const int64_t *row_work, int64_t rows, size_t n, int64_t *begin)
{
    double total = 0, acc = 0;
    for (int64_t i = 0; i < rows; i++)
        total += 1.0 + (row_work ? (double)row_work[i] : 0);
    int64_t i = 0;
    begin[0] = 0;
    for (size_t b = 1; b < n; b++) {
        /* the band ends at the row whose end comes nearest b/n of the work */
        double goal = total * (double)b / (double)n;
        while (i < rows) {
            double w = 1.0 + (row_work ? (double)row_work[i] : 0);
            if (acc + w / 2 > goal) break;
            acc += w;
            i++;
        }
        begin[b] = i;
    }
    begin[n] = rows;
}

tdcl_status tdcl_sp_split(int kind, const tdcl_csr *as, const tdcl_matrix *ad, const tdcl_csr *bs,
                          size_t n, int64_t *begin, int64_t *work, tdcl_err *err)
{
    (void)err;
    if (kind == SPMM_DS) {
        tdcl_sp_bands(NULL, ad->rows, n, begin);
        return TDCL_OK;
    }
    if (kind == SPGEMM)
        tdcl_csr_mul_work(as, bs, work);
    else
        for (int64_t i = 0; i < as->rows; i++)
            work[i] = tdcl_csr_rp(as, i + 1) - tdcl_csr_rp(as, i);
    tdcl_sp_bands(work, as->rows, n, begin);
    return TDCL_OK;
}

tdcl_status tdcl_sp_band_of(const tdcl_csr *as, const tdcl_matrix *ad, int64_t r0, int64_t r1,
                            tdcl_csr *band_s, tdcl_matrix *band_d, tdcl_err *err)
{
    if (ad) {
        *band_d = *ad;
        band_d->rows = r1 - r0;
        band_d->data =
            (char *)ad->data + (size_t)r0 * (size_t)ad->cols * tdcl_dtype_size(ad->dtype);
        return TDCL_OK;
    }
    size_t iw = as->idx64 ? 8 : 4;
    int64_t base = tdcl_csr_rp(as, r0);
    *band_s = *as;
    band_s->rows = r1 - r0;
    band_s->nnz = tdcl_csr_rp(as, r1) - base;
    band_s->rowptr = malloc((size_t)(r1 - r0 + 1) * iw);
    if (!band_s->rowptr) return tdcl_fail(err, TDCL_ENOMEM, "out of memory for a band's rows");
    for (int64_t i = r0; i <= r1; i++) {
        int64_t v = tdcl_csr_rp(as, i) - base;
        if (as->idx64)
            ((int64_t *)band_s->rowptr)[i - r0] = v;
        else
            ((int32_t *)band_s->rowptr)[i - r0] = (int32_t)v;
    }
    band_s->colidx = (char *)as->colidx + (size_t)base * iw;
    if (!as->pattern)
        band_s->values = (char *)as->values + (size_t)base * tdcl_dtype_size(as->dtype);
    return TDCL_OK;
}

/* Values of m as float32 in place (the host's product of float32
 * operands is in double; the device's, and so C's type, float32). */
static void narrow_to_f32(tdcl_csr *m)
{
    if (m->dtype != TDCL_F64 || m->pattern) return;
    for (int64_t k = 0; k < m->nnz; k++)
        ((float *)m->values)[k] = (float)((double *)m->values)[k];
    m->dtype = TDCL_F32;
}

/* Whether ctx's device multiplies this band (else the message why). */
static tdcl_status band_supported(tdcl_ctx *ctx, int kind, const tdcl_csr *as,
                                  const tdcl_matrix *ad, const tdcl_csr *bs, const tdcl_matrix *bd,
                                  tdcl_err *err)
{
    if (kind == SPGEMM) {
        tdcl_dtype t = tdcl_csr_mul_dtype(as, bs);
        tdcl_status st = tdcl_sparse_supported(ctx, as, t, err);
        return st != TDCL_OK ? st : tdcl_sparse_supported(ctx, bs, t, err);
    }
    const tdcl_csr *s = kind == SPMM_SD ? as : bs;
    return tdcl_sparse_supported(ctx, s, tdcl_spmm_dtype(s, kind == SPMM_SD ? bd : ad), err);
}

static tdcl_status band_device(tdcl_ctx *ctx, int kind, const tdcl_csr *as, const tdcl_matrix *ad,
                               const tdcl_csr *bs, const tdcl_matrix *bd, tdcl_csr *cs,
                               tdcl_matrix *cd, tdcl_sparse_info *info, tdcl_err *err)
{
    tdcl_sparse_plan *p = NULL;
    tdcl_status st = tdcl_sparse_plan_create(ctx, &p, err);
    if (st == TDCL_OK && kind == SPGEMM) st = tdcl_spgemm(p, as, bs, 0, cs, info, err);
    if (st == TDCL_OK && kind == SPMM_SD) st = tdcl_spmm(p, as, bd, 1, cd, info, err);
    if (st == TDCL_OK && kind == SPMM_DS) st = tdcl_spmm(p, bs, ad, 0, cd, info, err);
    tdcl_sparse_plan_destroy(p);
    return st;
}

/* The band on the host, in the type the device would have given. */
static tdcl_status band_host(int kind, const tdcl_csr *as, const tdcl_matrix *ad,
                             const tdcl_csr *bs, const tdcl_matrix *bd, tdcl_csr *cs,
                             tdcl_matrix *cd, tdcl_sparse_info *info, tdcl_err *err)
{
    if (kind == SPGEMM) {
        info->terms = tdcl_csr_mul_work(as, bs, NULL);
        tdcl_status st = tdcl_csr_mul_host(as, bs, 0, cs, err);
        if (st == TDCL_OK && tdcl_csr_mul_dtype(as, bs) == TDCL_F32) narrow_to_f32(cs);
        return st;
    }
    const tdcl_csr *s = kind == SPMM_SD ? as : bs;
    const tdcl_matrix *d = kind == SPMM_SD ? bd : ad;
    info->terms = s->nnz * (kind == SPMM_SD ? d->cols : d->rows);
    return tdcl_csr_mul_dense_host(s, d, kind == SPMM_SD, tdcl_spmm_dtype(s, d), cd, err);
}

/* C = A*B on the device, or on the host where the device cannot (64-bit
 * indices, float64 without fp64), saying so; then no program is built. */
tdcl_status tdcl_sp_band_product(tdcl_ctx *ctx, int kind, const tdcl_csr *as, const tdcl_matrix *ad,
                                 const tdcl_csr *bs, const tdcl_matrix *bd, tdcl_csr *cs,
                                 tdcl_matrix *cd, tdcl_sparse_info *info, tdcl_err *err)
{
    tdcl_status st = band_supported(ctx, kind, as, ad, bs, bd, err);
    if (st == TDCL_OK) st = band_device(ctx, kind, as, ad, bs, bd, cs, cd, info, err);
    if (st != TDCL_EUNSUPPORTED) return st;
    tdcl_log(TDCL_LOG_VERBOSE, "matmul: %s: %s on the host", err ? err->msg : "",
             kind == SPGEMM ? "SpGEMM" : "SpMM");
    double t0 = tdcl_now_ms();
    memset(info, 0, sizeof *info);
    st = band_host(kind, as, ad, bs, bd, cs, cd, info, err);
    info->kernel_ms = tdcl_now_ms() - t0;
    ctx->t.kernel_ms += info->kernel_ms;
    return st;
}

tdcl_status tdcl_sp_concat(const tdcl_csr *parts, size_t n, int64_t cols, tdcl_csr *c,
                           tdcl_err *err)
{
    int64_t rows = 0, nnz = 0;
    tdcl_dtype t = TDCL_F32;
    int pattern = 0, first = 1;
    for (size_t i = 0; i < n; i++) {
        if (!parts[i].rowptr) continue;
        if (!first && (parts[i].dtype != t || parts[i].pattern != pattern))
            return tdcl_fail(err, TDCL_EINVAL,
                             "the bands' products came out as %s and %s: the devices differ",
                             tdcl_dtype_name(t), tdcl_dtype_name(parts[i].dtype));
        t = parts[i].dtype;
        pattern = parts[i].pattern;
        first = 0;
        rows += parts[i].rows;
        nnz += parts[i].nnz;
    }
    tdcl_status st = tdcl_csr_alloc(c, rows, cols, nnz, t, pattern, err);
    if (st) return st;
    int64_t r = 0, k = 0;
    size_t vb = tdcl_dtype_size(t);
    for (size_t i = 0; i < n; i++) {
        const tdcl_csr *m = &parts[i];
        for (int64_t j = 0; m->rowptr && j < m->rows; j++, r++) {
            int64_t v = k + tdcl_csr_rp(m, j + 1);
            if (c->idx64)
                ((int64_t *)c->rowptr)[r + 1] = v;
            else
                ((int32_t *)c->rowptr)[r + 1] = (int32_t)v;
        }
        for (int64_t e = 0; m->rowptr && e < m->nnz; e++) {
            if (c->idx64)
                ((int64_t *)c->colidx)[k + e] = tdcl_csr_ci(m, e);
            else
                ((int32_t *)c->colidx)[k + e] = (int32_t)tdcl_csr_ci(m, e);
        }
        if (m->rowptr && !pattern && m->nnz)
            memcpy((char *)c->values + (size_t)k * vb, m->values, (size_t)m->nnz * vb);
        if (m->rowptr) k += m->nnz;
    }
    c->sorted = 1;
    return TDCL_OK;
}

/* One band a device of a set, on the device's thread. */
typedef struct sp_band {
    tdcl_shard_stat stat; /* first: tdcl_shard_run reads it */
    int64_t r0, r1, work;
    tdcl_csr cs;
    tdcl_matrix cd;
    tdcl_sparse_info info;
} sp_band;

typedef struct sp_set {
    tdcl_devset *set;
    int kind;
    const tdcl_csr *as, *bs;
    const tdcl_matrix *ad, *bd;
    sp_band s[TDCL_DEVSET_MAX];
} sp_set;

static void band_task(void *arg, int i)
{
    sp_set *R = arg;
    sp_band *b = &R->s[i];
    tdcl_csr as = {0};
    tdcl_matrix ad = {0};
    double t0 = tdcl_now_ms();
    b->stat.st = TDCL_OK;
    if (b->r1 == b->r0) return; /* nothing to do: fewer rows than devices */
    tdcl_err *err = &b->stat.err;
    tdcl_status st = tdcl_sp_band_of(R->as, R->ad, b->r0, b->r1, &as, &ad, err);
    if (st == TDCL_OK)
        st = tdcl_sp_band_product(R->set->ctx[i], R->kind, R->as ? &as : NULL, R->ad ? &ad : NULL,
                                  R->bs, R->bd, &b->cs, &b->cd, &b->info, err);
    free(as.rowptr); /* the band's own row offsets; the rest is A's */
    b->stat.st = st;
    b->stat.compute_ms = tdcl_now_ms() - t0;
}

/* The dense bands' rows into c (new). */
static tdcl_status stack_dense(const sp_set *R, size_t n, int64_t rows, int64_t cols,
                               tdcl_matrix *c, tdcl_err *err)
{
    tdcl_dtype t = TDCL_F32;
    for (size_t i = 0; i < n; i++)
        if (R->s[i].cd.data) t = R->s[i].cd.dtype;
    tdcl_status st = tdcl_matrix_alloc(c, rows, cols, 1, t, err);
    size_t row = (size_t)cols * tdcl_dtype_size(t);
    for (size_t i = 0; st == TDCL_OK && i < n; i++)
        if (R->s[i].cd.data && R->s[i].cd.rows)
            memcpy((char *)c->data + (size_t)R->s[i].r0 * row, R->s[i].cd.data,
                   (size_t)R->s[i].cd.rows * row);
    return st;
}

static void add_info(tdcl_sparse_info *sum, const tdcl_sparse_info *b)
{
    sum->kernel_ms = sum->kernel_ms > b->kernel_ms ? sum->kernel_ms : b->kernel_ms;
    sum->terms += b->terms;
    sum->rows_local += b->rows_local;
    sum->rows_dense += b->rows_dense;
    sum->rows_path |= b->rows_path;
    sum->host_settled |= b->host_settled;
}

static tdcl_status set_run(tdcl_devset *set, int kind, const tdcl_csr *as, const tdcl_matrix *ad,
                           const tdcl_csr *bs, const tdcl_matrix *bd, tdcl_csr *cs, tdcl_matrix *cd,
                           tdcl_sparse_info *info, tdcl_err *err)
{
    size_t n = set->n;
    int64_t rows = as ? as->rows : ad->rows, begin[TDCL_DEVSET_MAX + 1];
    int64_t *work = as ? malloc((size_t)(as->rows ? as->rows : 1) * sizeof *work) : NULL;
    sp_set *R = calloc(1, sizeof *R);
    tdcl_csr parts[TDCL_DEVSET_MAX] = {{0}};
    tdcl_status st = TDCL_OK;
    if (!R || (as && !work)) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory for the bands");
        goto out;
    }
    *R = (sp_set){.set = set, .kind = kind, .as = as, .bs = bs, .ad = ad, .bd = bd};
    TDCL_TRY(tdcl_sp_split(kind, as, ad, bs, n, begin, work, err));
    for (size_t i = 0; i < n; i++) {
        R->s[i].r0 = begin[i];
        R->s[i].r1 = begin[i + 1];
        for (int64_t r = begin[i]; work && r < begin[i + 1]; r++)
            R->s[i].work += work[r];
    }
    TDCL_TRY(tdcl_shard_run(n, band_task, R, &R->s[0].stat, sizeof R->s[0], err));
    for (size_t i = 0; i < n; i++) {
        const sp_band *b = &R->s[i];
        tdcl_log(TDCL_LOG_VERBOSE,
                 "matmul: band %zu on %s: rows %" PRId64 "-%" PRId64 " (%" PRId64
                 " rows), work %" PRId64 ", %.2f ms (kernels %.2f ms)",
                 i, set->ctx[i]->dev.device_name, b->r0, b->r1 - 1, b->r1 - b->r0,
                 work ? b->work : (b->r1 - b->r0) * bs->nnz, b->stat.compute_ms, b->info.kernel_ms);
        add_info(info, &b->info);
        parts[i] = b->cs;
    }
    if (kind == SPGEMM)
        st = tdcl_sp_concat(parts, n, bs->cols, cs, err);
    else
        st = stack_dense(R, n, rows, kind == SPMM_SD ? bd->cols : bs->cols, cd, err);
out:
    for (size_t i = 0; R && i < n; i++) {
        tdcl_csr_free(&R->s[i].cs);
        tdcl_matrix_free(&R->s[i].cd);
    }
    free(R);
    free(work);
    return st;
}

static tdcl_status exec_run(tdcl_sp_exec *r, int kind, tdcl_status in_st, const tdcl_csr *as,
                            const tdcl_matrix *ad, const tdcl_csr *bs, const tdcl_matrix *bd,
                            tdcl_csr *cs, tdcl_matrix *cd, tdcl_sparse_info *info, tdcl_err *err)
{
    tdcl_sparse_info own;
    if (!info) info = &own;
    memset(info, 0, sizeof *info);
    if (r->ex->kind == TDCL_EXEC_RANKS)
        return tdcl_sp_mpi_run(r->ctx, kind, in_st, as, ad, bs, bd, cs, cd, info, err);
    if (in_st) return in_st;
    if (r->ex->kind == TDCL_EXEC_SET)
        return set_run(r->ex->set, kind, as, ad, bs, bd, cs, cd, info, err);
    return tdcl_sp_band_product(r->ctx, kind, as, ad, bs, bd, cs, cd, info, err);
}

tdcl_status tdcl_sp_exec_spgemm(tdcl_sp_exec *r, tdcl_status in_st, const tdcl_csr *a,
                                const tdcl_csr *b, tdcl_csr *c, tdcl_sparse_info *info,
                                tdcl_err *err)
{
    memset(c, 0, sizeof *c);
    return exec_run(r, SPGEMM, in_st, a, NULL, b, NULL, c, NULL, info, err);
}

tdcl_status tdcl_sp_exec_spmm(tdcl_sp_exec *r, tdcl_status in_st, const tdcl_csr *s,
                              const tdcl_matrix *d, int a_sparse, tdcl_matrix *c,
                              tdcl_sparse_info *info, tdcl_err *err)
{
    memset(c, 0, sizeof *c);
    if (a_sparse) return exec_run(r, SPMM_SD, in_st, s, NULL, NULL, d, NULL, c, info, err);
    return exec_run(r, SPMM_DS, in_st, NULL, d, s, NULL, NULL, c, info, err);
}

void tdcl_sp_exec_where(const tdcl_sp_exec *r, char *buf, size_t n)
{
    if (r->ex->kind == TDCL_EXEC_RANKS)
        snprintf(buf, n, "%d MPI ranks", tdcl_mpi_size());
    else if (r->ex->kind == TDCL_EXEC_SET)
        snprintf(buf, n, "%zu devices", r->devices);
    else
        snprintf(buf, n, "%s", r->ctx ? r->ctx->dev.device_name : "the device");
}

void tdcl_sp_exec_end(tdcl_sp_exec *r)
{
    if (r->ex && r->ex->kind == TDCL_EXEC_RANKS) tdcl_ctx_close(r->ctx);
    r->ctx = NULL;
}
