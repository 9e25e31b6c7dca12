/* SpGEMM on the device, in two phases as the GPU SpGEMMs of the
 * literature do (nsparse, spECK, OpSparse): each row's product terms (an
 * upper bound of its entries) bin the rows by the hash table they need;
 * the symbolic phase counts each row's distinct columns in a table in
 * local memory (rows too large for it: in a dense row of flags in global
 * memory); the host turns the counts into C's row offsets and checks C's
 * size before allocating it; the numeric phase bins the rows again by
 * their exact count, sums in tables of keys and values and writes each
 * row's columns in order. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/csr_mul.h"
#include "ops/sparse/sp_plan.h"

/* Smallest table, slots per lane of a team, the largest table, and the
 * bytes of global scratch the dense rows may take at once. */
#ifndef SP_TMIN
#define SP_TMIN 32
#endif
#ifndef SP_SLOTS_PER_LANE
#define SP_SLOTS_PER_LANE 8
#endif
#ifndef SP_TMAX
#define SP_TMAX 8192
#endif
/* Product terms past which a row of at most SP_MERGE_K entries is not
 * merged by one item (0: none is). */
#ifndef SP_MERGE_WORK
#define SP_MERGE_WORK 64
#endif
/* Items per compute unit of the rows path. */
#ifndef SP_ROWS_PER_CU
#define SP_ROWS_PER_CU 8
#endif
#define SP_BINS 16

typedef struct bin {
    int64_t off, n; /* rows perm[off .. off + n) */
    int t, g, teams;
} bin;

typedef struct bins {
    bin b[SP_BINS];
    int nb;
    int64_t dense_off, ndense; /* rows for the dense path, after the bins */
    int32_t *perm;
} bins;

static int64_t round_up(int64_t x, int64_t m)
{
    return (x + m - 1) / m * m;
}

/* Which bin a row of size s goes to (-1: none, SP_BINS: dense). */
static int bin_of(const bins *bs, int64_t s)
{
    if (s == 0) return -1;
    for (int k = 0; k < bs->nb; k++)
        if (bs->b[k].t >= 2 * s) return k;
    return SP_BINS;
}

/* Local memory of a group's batch of A's entries (sp_batch): a scan, an
 * offset and a factor of up to 8 bytes a lane, and 256 bytes for each
 * local argument's alignment. */
static size_t spread_bytes(const tdcl_sparse_plan *p)
{
    return p->wg * 16 + 1280;
}

/* Bins rows by size[i] (terms or entries) for tables of slot bytes per
 * slot; shared: lanes may share a row (else one lane a row). */
static tdcl_status bin_rows(const tdcl_sparse_plan *p, const int64_t *size, int64_t rows,
                            size_t slot, int shared, bins *bs, tdcl_err *err)
{
    memset(bs, 0, sizeof *bs);
    for (int64_t t = SP_TMIN; t <= SP_TMAX && (size_t)t * slot <= p->local_mb; t *= 2) {
        int g = shared && !p->cpu ? (int)(t / SP_SLOTS_PER_LANE) : 1;
        if ((size_t)g > p->wg) g = (int)p->wg;
        size_t teams = p->wg / (size_t)g, fit = p->local_mb / ((size_t)t * slot);
        if (fit < teams) teams = fit;
        /* a team of the whole group takes its row's entries in batches,
         * with a lane's scan, offset and factor beside the table */
        if (teams == 1 && g > 1 && (size_t)t * slot + spread_bytes(p) > p->local_mb) break;
        bs->b[bs->nb++] = (bin){0, 0, (int)t, g, (int)teams};
    }
    bs->perm = malloc(rows ? (size_t)rows * sizeof *bs->perm : 1);
    if (!bs->perm) return tdcl_fail(err, TDCL_ENOMEM, "out of memory binning the product's rows");
    int64_t at[SP_BINS + 1] = {0};
    for (int64_t i = 0; i < rows; i++) {
        int k = bin_of(bs, size[i]);
        if (k >= 0) at[k]++;
    }
    int64_t off = 0;
    for (int k = 0; k <= SP_BINS; k++) {
        int64_t n = at[k];
        at[k] = off;
        if (k < bs->nb) bs->b[k] = (bin){off, n, bs->b[k].t, bs->b[k].g, bs->b[k].teams};
        off += n;
    }
    bs->dense_off = at[SP_BINS];
    bs->ndense = off - at[SP_BINS];
    for (int64_t i = 0; i < rows; i++) {
        int k = bin_of(bs, size[i]);
        if (k >= 0) bs->perm[at[k]++] = (int32_t)i;
    }
    return TDCL_OK;
}

/* The buffers of one product. */
typedef struct bufs {
    cl_mem arp, aci, av, brp, bci, bv, perm, cnt, crp, cci, cv, ovf, marks, acc, tmp, merged;
} bufs;

static void bufs_release(bufs *d)
{
    cl_mem *m = (cl_mem *)d;
    for (size_t i = 0; i < sizeof *d / sizeof *m; i++)
        if (m[i]) clReleaseMemObject(m[i]);
}

#define ARG(k, i, x) rc |= clSetKernelArg((k), (i), sizeof(x), &(x))

/* The operand arguments 0..4 of a count kernel (the bins' rows where
 * there are bins). */
static cl_int count_args(cl_kernel k, bufs *d)
{
    cl_int rc = 0;
    ARG(k, 0, d->arp);
    ARG(k, 1, d->aci);
    ARG(k, 2, d->brp);
    ARG(k, 3, d->bci);
    if (d->perm) ARG(k, 4, d->perm);
    return rc;
}

/* The operand arguments 0..8 of a fill kernel (as count_args). */
static cl_int fill_args(cl_kernel k, bufs *d, int a_pat, int b_pat)
{
    cl_int rc = 0;
    ARG(k, 0, d->arp);
    ARG(k, 1, d->aci);
    ARG(k, 2, d->av);
    ARG(k, 3, a_pat);
    ARG(k, 4, d->brp);
    ARG(k, 5, d->bci);
    ARG(k, 6, d->bv);
    ARG(k, 7, b_pat);
    if (d->perm) ARG(k, 8, d->perm);
    return rc;
}

/* The result arguments from at: a fill kernel's C (row starts, columns,
 * values) and overflow flag, else a count kernel's counts. */
static cl_int out_args(cl_kernel k, int at, int numeric, bufs *d)
{
    cl_int rc = 0;
    if (!numeric) {
        ARG(k, at, d->cnt);
        return rc;
    }
    ARG(k, at, d->crp);
    ARG(k, at + 1, d->cci);
    ARG(k, at + 2, d->cv);
    ARG(k, at + 3, d->ovf);
    return rc;
}

/* Launches the local-memory bins; numeric: the fill kernel k (else the
 * count kernel), vb value bytes. */
static tdcl_status run_bins(tdcl_sparse_plan *p, cl_kernel k, const bins *bs, bufs *d, size_t vb,
                            int numeric, double *ms, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    for (int i = 0; i < bs->nb; i++) {
        const bin *b = &bs->b[i];
        if (!b->n) continue;
        cl_int rc = 0, n = (cl_int)b->n, first = (cl_int)b->off;
        size_t team = (size_t)b->teams * (size_t)b->g, kb = (size_t)b->teams * (size_t)b->t * 4;
        int at = numeric ? 9 : 5;
        ARG(k, at, first);
        ARG(k, at + 1, n);
        ARG(k, at + 2, b->g);
        ARG(k, at + 3, b->t);
        rc |= clSetKernelArg(k, at + 4, kb, NULL);
        if (numeric) rc |= clSetKernelArg(k, at + 5, (size_t)b->teams * (size_t)b->t * vb, NULL);
        rc |= out_args(k, numeric ? at + 6 : at + 5, numeric, d);
        /* the batches' scratch where the team is the group (sp_batch) */
        size_t lanes = b->g == (int)team && b->g > 1 ? team : 1, x = numeric ? at + 10 : at + 6;
        rc |= clSetKernelArg(k, x, lanes * 4, NULL);
        rc |= clSetKernelArg(k, x + 1, lanes * 4, NULL);
        if (numeric) rc |= clSetKernelArg(k, x + 2, lanes * vb, NULL);
        size_t g[2] = {(size_t)round_up(b->n, b->teams) / (size_t)b->teams * team, 1};
        size_t l[2] = {team, 1};
        if (rc) st = tdcl_fail_cl(err, rc, "clSetKernelArg", "a sparse product's bin");
        if (st == TDCL_OK) st = tdcl_sp_launch(p, k, g, l, ms, err);
        if (st != TDCL_OK) return st;
    }
    return TDCL_OK;
}

/* Columns of a dense row's chunk: as many as local memory holds at
 * per_col bits a column beside fixed bytes, a multiple of 32 (a word of
 * marks), no more than the columns (rounded up) or p->dense_cols. */
static cl_int dense_chunk(const tdcl_sparse_plan *p, int64_t ncols, size_t per_col, size_t fixed)
{
    size_t fit = p->local_mb > fixed ? (p->local_mb - fixed) * 8 / per_col / 32 * 32 : 0;
    size_t all = (size_t)round_up(ncols, 32);
    if (p->dense_cols && fit > p->dense_cols) fit = p->dense_cols;
    return (cl_int)(fit < all ? fit : all);
}

/* Launches the dense rows, a group of lanes each, their columns in
 * chunks that local memory holds (marks, and values when numeric, of vb
 * bytes each). */
static tdcl_status run_dense(tdcl_sparse_plan *p, cl_kernel k, const bins *bs, bufs *d,
                             const tdcl_csr *b, size_t vb, int numeric, size_t lanes, double *ms,
                             tdcl_err *err)
{
    if (!bs->ndense) return TDCL_OK;
    cl_int rc = 0, nc = (cl_int)b->cols, sorted = b->sorted, first = (cl_int)bs->dense_off;
    /* beside the scan's arrays, 256 bytes for each local argument's
     * alignment: NVIDIA's driver refused a launch that filled local
     * memory to the byte */
    cl_int chunk = dense_chunk(p, b->cols, 1 + 8 * vb, (numeric ? lanes * (8 + vb) : 0) + 1280);
    if (chunk < 32)
        return tdcl_fail(err, TDCL_EUNSUPPORTED,
                         "the device's local memory (%zu bytes) holds no chunk of a dense row",
                         p->local_mb);
    int at = numeric ? 9 : 5;
    ARG(k, at, first);
    ARG(k, at + 1, nc);
    ARG(k, at + 2, chunk);
    ARG(k, at + 3, sorted);
    rc |= clSetKernelArg(k, at + 4, (size_t)chunk / 8, NULL);
    if (numeric) {
        rc |= clSetKernelArg(k, at + 5, (size_t)chunk * vb, NULL);
        rc |= clSetKernelArg(k, at + 6, lanes * 4, NULL);
        rc |= clSetKernelArg(k, at + 7, lanes * 4, NULL);
        rc |= clSetKernelArg(k, at + 8, lanes * vb, NULL);
    }
    rc |= out_args(k, numeric ? at + 9 : at + 5, numeric, d);
    if (rc) return tdcl_fail_cl(err, rc, "clSetKernelArg", "the dense rows of a sparse product");
    size_t g[2] = {(size_t)bs->ndense * lanes, 1}, l[2] = {lanes, 1};
    return tdcl_sp_launch(p, k, g, l, ms, err);
}

/* The rows path's items: a few per compute unit, fewer where their dense
 * rows (ncols marks, values and twice ncols of sort scratch each) would
 * pass SP_DENSE_BYTES. */
static size_t rows_items(const tdcl_sparse_plan *p, int64_t rows, int64_t ncols, size_t vb)
{
    size_t n = (size_t)p->ctx->dev.compute_units * SP_ROWS_PER_CU;
    size_t fit = p->dense_bytes / ((size_t)(ncols ? ncols : 1) * (12 + vb));
    if (n > fit) n = fit;
    if (n > (size_t)rows) n = (size_t)rows;
    return n ? n : 1;
}

/* The rows path: symbolic (numeric 0, kernel count_rows) or numeric. */
static tdcl_status run_rows(tdcl_sparse_plan *p, cl_kernel k, int64_t rows, int64_t ncols,
                            size_t vb, int numeric, bufs *d, double *ms, tdcl_err *err)
{
    size_t nw = rows_items(p, rows, ncols, vb), mb = nw * (size_t)ncols * 4;
    tdcl_status st = TDCL_OK;
    cl_int rc = 0, nr = (cl_int)rows, nc = (cl_int)ncols, minus = -1;
    if (!rows) return TDCL_OK;
    if (!d->marks && !(d->marks = tdcl_sp_buf(p, mb, NULL, &st, err))) return st;
    if (numeric && (!(d->acc = tdcl_sp_buf(p, nw * (size_t)ncols * vb, NULL, &st, err)) ||
                    !(d->tmp = tdcl_sp_buf(p, nw * (2 * (size_t)ncols + 2) * 4, NULL, &st, err))))
        return st;
    if (mb) rc = clEnqueueFillBuffer(p->ctx->queue, d->marks, &minus, 4, 0, mb, 0, NULL, NULL);
    int at = numeric ? 8 : 4;
    ARG(k, at, nr);
    ARG(k, at + 1, nc);
    ARG(k, at + 2, d->marks);
    if (numeric) {
        ARG(k, at + 3, d->acc);
        ARG(k, at + 4, d->tmp);
    }
    rc |= out_args(k, numeric ? at + 5 : at + 3, numeric, d);
    if (rc) return tdcl_fail_cl(err, rc, "clSetKernelArg", "a sparse product by rows");
    size_t g[2] = {nw, 1}, l[2] = {1, 1};
    return tdcl_sp_launch(p, k, g, l, ms, err);
}

/* The rows that one item each merges (sp_count_merge): on the binned
 * path, where B's rows are sorted, rows of at most SP_MERGE_K entries
 * and SP_MERGE_WORK terms. Lists them in *list (free it), zeroes their
 * work so that no bin takes them, and returns how many. */
static int64_t merge_rows(const tdcl_sparse_plan *p, const tdcl_csr *a, const tdcl_csr *b,
                          int64_t *work, int32_t **list)
{
    const int32_t *rp = a->rowptr;
    int64_t n = 0;
    *list = NULL;
    if (p->rows_path || !b->sorted || SP_MERGE_WORK <= 0 || !a->rows) return 0;
    if (!(*list = malloc((size_t)a->rows * sizeof **list))) return -1;
    for (int64_t i = 0; i < a->rows; i++)
        if (work[i] > 0 && work[i] <= SP_MERGE_WORK && rp[i + 1] - rp[i] <= SP_MERGE_K) {
            (*list)[n++] = (int32_t)i;
            work[i] = 0;
        }
    return n;
}

/* Launches the merged rows' kernel k (count or fill: numeric), an item a
 * row. */
static tdcl_status run_merge(tdcl_sparse_plan *p, cl_kernel k, bufs *d, int64_t nm, int numeric,
                             double *ms, tdcl_err *err)
{
    if (!nm) return TDCL_OK;
    cl_int rc = 0, first = 0, n = (cl_int)nm;
    rc |= clSetKernelArg(k, numeric ? 8 : 4, sizeof d->merged, &d->merged);
    int at = numeric ? 9 : 5;
    ARG(k, at, first);
    ARG(k, at + 1, n);
    rc |= out_args(k, at + 2, numeric, d);
    if (rc) return tdcl_fail_cl(err, rc, "clSetKernelArg", "the merged rows of a sparse product");
    size_t g[2] = {(size_t)round_up(nm, (int64_t)p->wg), 1}, l[2] = {p->wg, 1};
    return tdcl_sp_launch(p, k, g, l, ms, err);
}

static tdcl_status check_operands(const tdcl_sparse_plan *p, const tdcl_csr *a, const tdcl_csr *b,
                                  tdcl_dtype t, tdcl_err *err)
{
    if (a->cols != b->rows)
        return tdcl_fail(err, TDCL_EINVAL,
                         "cannot multiply a %" PRId64 "x%" PRId64 " matrix by a %" PRId64
                         "x%" PRId64 " one: the inner sizes differ",
                         a->rows, a->cols, b->rows, b->cols);
    tdcl_status st = tdcl_sparse_supported(p->ctx, a, t, err);
    return st != TDCL_OK ? st : tdcl_sparse_supported(p->ctx, b, t, err);
}

/* Uploads the operands (values converted to t) and the zeroed counters. */
static tdcl_status upload(tdcl_sparse_plan *p, const tdcl_csr *a, const tdcl_csr *b, tdcl_dtype t,
                          bufs *d, tdcl_err *err)
{
    void *av = NULL, *bv = NULL;
    int aown = 0, bown = 0, zero = 0;
    tdcl_status st = TDCL_OK;
    size_t vb = tdcl_dtype_size(t);
    TDCL_TRY(tdcl_sp_values(a->values, a->nnz, a->dtype, a->pattern, t, &av, &aown, err));
    TDCL_TRY(tdcl_sp_values(b->values, b->nnz, b->dtype, b->pattern, t, &bv, &bown, err));
    if (!(d->arp = tdcl_sp_buf(p, (size_t)(a->rows + 1) * 4, a->rowptr, &st, err)) ||
        !(d->aci = tdcl_sp_buf(p, (size_t)a->nnz * 4, a->colidx, &st, err)) ||
        !(d->av = tdcl_sp_buf(p, av ? (size_t)a->nnz * vb : 0, av, &st, err)) ||
        !(d->brp = tdcl_sp_buf(p, (size_t)(b->rows + 1) * 4, b->rowptr, &st, err)) ||
        !(d->bci = tdcl_sp_buf(p, (size_t)b->nnz * 4, b->colidx, &st, err)) ||
        !(d->bv = tdcl_sp_buf(p, bv ? (size_t)b->nnz * vb : 0, bv, &st, err)) ||
        !(d->cnt = tdcl_sp_buf(p, (size_t)a->rows * 4, NULL, &st, err)) ||
        !(d->ovf = tdcl_sp_buf(p, 4, &zero, &st, err)))
        goto out;
    if (a->rows)
        TDCL_CL_TRY(err,
                    clEnqueueFillBuffer(p->ctx->queue, d->cnt, &zero, 4, 0, (size_t)a->rows * 4, 0,
                                        NULL, NULL),
                    "clEnqueueFillBuffer");
out:
    if (aown) free(av);
    if (bown) free(bv);
    return st;
}

/* Counts each row's entries of C into cnt (the symbolic phase). */
static tdcl_status symbolic(tdcl_sparse_plan *p, const tdcl_csr *a, const tdcl_csr *b, bufs *d,
                            const int64_t *work, int64_t nm, tdcl_sparse_info *info, tdcl_err *err)
{
    bins bs = {0};
    tdcl_status st = TDCL_OK;
    cl_int rc = 0;
    if (p->rows_path) {
        rc = count_args(p->count_rows, d);
        if (rc) return tdcl_fail_cl(err, rc, "clSetKernelArg", "the symbolic phase");
        return run_rows(p, p->count_rows, a->rows, b->cols, 0, 0, d, &info->kernel_ms, err);
    }
    TDCL_TRY(bin_rows(p, work, a->rows, 4, 1, &bs, err));
    if (!(d->perm = tdcl_sp_buf(p, (size_t)a->rows * 4, bs.perm, &st, err))) goto out;
    rc |= count_args(p->count_local, d);
    rc |= count_args(p->count_dense, d);
    if (nm) rc |= count_args(p->count_merge, d);
    if (rc) {
        st = tdcl_fail_cl(err, rc, "clSetKernelArg", "the symbolic phase");
        goto out;
    }
    TDCL_TRY(run_merge(p, p->count_merge, d, nm, 0, &info->kernel_ms, err));
    TDCL_TRY(run_bins(p, p->count_local, &bs, d, 0, 0, &info->kernel_ms, err));
    TDCL_TRY(
        run_dense(p, p->count_dense, &bs, d, b, 0, 0, p->cpu ? 1 : p->wg, &info->kernel_ms, err));
out:
    free(bs.perm);
    return st;
}

/* C's row offsets from the counts; refuses a C past max_entries or past
 * 32-bit indices, naming its size, then allocates C. */
static tdcl_status offsets(tdcl_sparse_plan *p, const tdcl_csr *a, const tdcl_csr *b, bufs *d,
                           tdcl_dtype t, int64_t max_entries, int64_t *cnt, tdcl_csr *c,
                           tdcl_err *err)
{
    int32_t *c32 = (int32_t *)cnt; /* read as int32, widened in place from the end */
    tdcl_status st = tdcl_sp_read(p, d->cnt, (size_t)a->rows * 4, c32, err);
    if (st != TDCL_OK) return st;
    int64_t total = 0;
    for (int64_t i = a->rows - 1; i >= 0; i--)
        cnt[i] = c32[i];
    for (int64_t i = 0; i < a->rows; i++)
        total += cnt[i];
    size_t bytes = 0;
    tdcl_csr_bytes(a->rows, b->cols, total, t, 0, &bytes, NULL);
    if ((max_entries > 0 && total > max_entries) || total >= INT32_MAX)
        return tdcl_fail(
            err, TDCL_ELIMIT, "the sparse product has %" PRId64 " entries (%.1f MB), more than %s",
            total, bytes / 1e6, total >= INT32_MAX ? "32-bit indices hold" : "the limit allows");
    TDCL_TRY(tdcl_csr_alloc(c, a->rows, b->cols, total, t, 0, err));
    int32_t *rp = c->rowptr;
    for (int64_t i = 0; i < a->rows; i++)
        rp[i + 1] = rp[i] + (int32_t)cnt[i];
    if (!(d->crp = tdcl_sp_buf(p, (size_t)(a->rows + 1) * 4, rp, &st, err)) ||
        !(d->cci = tdcl_sp_buf(p, (size_t)total * 4, NULL, &st, err)) ||
        !(d->cv = tdcl_sp_buf(p, (size_t)total * tdcl_dtype_size(t), NULL, &st, err)))
        goto out;
out:
    return st;
}

/* Sums and writes C's entries (the numeric phase), then reads them back. */
static tdcl_status numeric(tdcl_sparse_plan *p, const tdcl_csr *a, const tdcl_csr *b, bufs *d,
                           int64_t *cnt, const int32_t *merged, int64_t nm, tdcl_csr *c,
                           tdcl_sparse_info *info, tdcl_err *err)
{
    int ti = tdcl_sp_type(c->dtype);
    size_t vb = tdcl_dtype_size(c->dtype);
    int shared = vb == 4 || p->atom64;
    cl_kernel kl = p->fill_local[ti], kd = p->fill_dense[ti];
    bins bs = {0};
    cl_int rc = 0;
    tdcl_status st = TDCL_OK;
    if (p->rows_path) {
        cl_kernel kr = p->fill_rows[ti];
        if ((rc = fill_args(kr, d, a->pattern, b->pattern)))
            return tdcl_fail_cl(err, rc, "clSetKernelArg", "the numeric phase");
        TDCL_TRY(run_rows(p, kr, a->rows, b->cols, vb, 1, d, &info->kernel_ms, err));
        info->rows_path = 1;
        info->rows_dense = a->rows;
        goto read;
    }
    for (int64_t i = 0; i < nm; i++) /* no bin takes them */
        cnt[merged[i]] = 0;
    TDCL_TRY(bin_rows(p, cnt, a->rows, 4 + vb, shared, &bs, err));
    clReleaseMemObject(d->perm);
    if (!(d->perm = tdcl_sp_buf(p, (size_t)a->rows * 4, bs.perm, &st, err))) goto out;
    rc |= fill_args(kl, d, a->pattern, b->pattern);
    rc |= fill_args(kd, d, a->pattern, b->pattern);
    if (nm) rc |= fill_args(p->fill_merge[ti], d, a->pattern, b->pattern);
    if (rc) {
        st = tdcl_fail_cl(err, rc, "clSetKernelArg", "the numeric phase");
        goto out;
    }
    TDCL_TRY(run_merge(p, p->fill_merge[ti], d, nm, 1, &info->kernel_ms, err));
    TDCL_TRY(run_bins(p, kl, &bs, d, vb, 1, &info->kernel_ms, err));
    TDCL_TRY(
        run_dense(p, kd, &bs, d, b, vb, 1, shared && !p->cpu ? p->wg : 1, &info->kernel_ms, err));
    info->rows_local = bs.dense_off;
    info->rows_merged = nm;
    info->rows_dense = bs.ndense;
read:
    TDCL_TRY(tdcl_sp_read(p, d->cci, (size_t)c->nnz * 4, c->colidx, err));
    TDCL_TRY(tdcl_sp_read(p, d->cv, (size_t)c->nnz * vb, c->values, err));
    c->sorted = 1;
out:
    free(bs.perm);
    return st;
}

/* An int64 product whose terms or partial sums left the range on the
 * device: the host's exact sums decide (an element outside int64 is
 * refused naming it). */
static tdcl_status settle(tdcl_sparse_plan *p, const tdcl_csr *a, const tdcl_csr *b, bufs *d,
                          tdcl_csr *c, tdcl_sparse_info *info, tdcl_err *err)
{
    int ovf = 0;
    tdcl_status st = tdcl_sp_read(p, d->ovf, 4, &ovf, err);
    if (st != TDCL_OK || !ovf) return st;
    tdcl_csr exact;
    info->host_settled = 1;
    if ((st = tdcl_csr_mul_host(a, b, 0, &exact, err)) != TDCL_OK) return st;
    tdcl_csr_free(c);
    *c = exact;
    return TDCL_OK;
}

tdcl_status tdcl_spgemm(tdcl_sparse_plan *p, const tdcl_csr *a, const tdcl_csr *b,
                        int64_t max_entries, tdcl_csr *c, tdcl_sparse_info *info, tdcl_err *err)
{
    tdcl_sparse_info own;
    if (!info) info = &own;
    memset(info, 0, sizeof *info);
    memset(c, 0, sizeof *c);
    bufs d = {0};
    int32_t *merged = NULL;
    tdcl_dtype t = tdcl_csr_mul_dtype(a, b);
    tdcl_status st = check_operands(p, a, b, t, err);
    if (st != TDCL_OK) return st;
    int64_t *work = malloc(a->rows ? (size_t)a->rows * sizeof *work : 1);
    if (!work) return tdcl_fail(err, TDCL_ENOMEM, "out of memory for the product's row sizes");
    info->terms = tdcl_csr_mul_work(a, b, work);
    int64_t nm = merge_rows(p, a, b, work, &merged);
    if (nm < 0) {
        st = tdcl_fail(err, TDCL_ENOMEM, "out of memory listing the product's short rows");
        goto out;
    }
    TDCL_TRY(upload(p, a, b, t, &d, err));
    if (nm && !(d.merged = tdcl_sp_buf(p, (size_t)nm * 4, merged, &st, err))) goto out;
    TDCL_TRY(symbolic(p, a, b, &d, work, nm, info, err));
    TDCL_TRY(offsets(p, a, b, &d, t, max_entries, work, c, err));
    TDCL_TRY(numeric(p, a, b, &d, work, merged, nm, c, info, err));
    if (t == TDCL_I64) TDCL_TRY(settle(p, a, b, &d, c, info, err));
out:
    if (st != TDCL_OK) tdcl_csr_free(c);
    bufs_release(&d);
    free(work);
    free(merged);
    return st;
}
