/* tile-avg over a set of devices: bands of tile rows, no exchange. */
#include "dist/tile_avg_run.h"

#include <inttypes.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "dist/shard.h"

typedef struct ta_shard {
    tdcl_shard_stat stat; /* first: tdcl_shard_run reads it */
    int64_t begin, end;   /* input rows */
    tdcl_matrix part;     /* its rows of the means */
} ta_shard;

typedef struct ta_run {
    tdcl_devset *set;
    const tdcl_ta_opts *o;
    const tdcl_matrix *in;
    ta_shard s[TDCL_DEVSET_MAX];
} ta_run;

static void ta_task(void *arg, int i)
{
    ta_run *R = arg;
    ta_shard *sh = &R->s[i];
    const tdcl_matrix *in = R->in;
    size_t row = (size_t)in->cols * (size_t)in->channels * tdcl_dtype_size(in->dtype);
    tdcl_matrix view = *in; /* the band's rows, not owned */
    view.rows = sh->end - sh->begin;
    view.data = (char *)in->data + (size_t)sh->begin * row;
    double t0 = tdcl_now_ms();
    sh->stat.st = tdcl_ta_run(R->set->ctx[i], R->o, &view, &sh->part, &sh->stat.err);
    sh->stat.compute_ms = tdcl_now_ms() - t0;
}

tdcl_status tdcl_ta_shards_split(const tdcl_ta_opts *o, int64_t rows, size_t n, int64_t *begin,
                                 tdcl_err *err)
{
    /* Blocks of TA_GROUP tile rows split over the shards; the last also
     * takes the rows past the last whole block. A kernel's work-item adds
     * up to 8 tile rows side by side (rows per item 1, 2, 4 or 8 in the cpu
     * and gpu variants), and its float rounding can depend on whether the
     * item's other tile rows exist: a band that starts on a multiple of 8
     * tile rows and holds whole blocks groups them as one device does. */
    enum { TA_GROUP = 8 };
    int64_t block = TA_GROUP * o->tile_rows, whole = rows / block;
    if ((int64_t)n > whole)
        return tdcl_fail(err, TDCL_EINVAL,
                         "%zu shards for %" PRId64 " rows in tiles of %" PRId64
                         " rows: each shard needs %d whole tile rows (%" PRId64
                         " rows); use fewer devices",
                         n, rows, o->tile_rows, TA_GROUP, block);
    tdcl_status st = tdcl_shard_split(whole * block, n, block, begin, err);
    begin[n] = rows;
    return st;
}

tdcl_status tdcl_ta_shards_run(tdcl_devset *set, const tdcl_ta_opts *o, const tdcl_matrix *in,
                               tdcl_matrix *out, tdcl_err *err)
{
    tdcl_status st = TDCL_OK;
    int64_t orows, ocols, begin[TDCL_DEVSET_MAX + 1];
    ta_run R = {.set = set, .o = o, .in = in};
    memset(out, 0, sizeof *out);
    TDCL_TRY(tdcl_ta_shape(o, in->rows, in->cols, &orows, &ocols, err));
    TDCL_TRY(tdcl_ta_shards_split(o, in->rows, set->n, begin, err));
    for (size_t i = 0; i < set->n; i++) {
        R.s[i].begin = begin[i];
        R.s[i].end = begin[i + 1];
        tdcl_log(TDCL_LOG_VERBOSE, "shard %zu: rows %" PRId64 "-%" PRId64 " on %u:%u %s", i,
                 begin[i], begin[i + 1] - 1, set->ctx[i]->dev.pidx, set->ctx[i]->dev.didx,
                 set->ctx[i]->dev.device_name);
    }
    TDCL_TRY(tdcl_shard_run(set->n, ta_task, &R, &R.s[0].stat, sizeof R.s[0], err));
    const tdcl_matrix *p0 = &R.s[0].part;
    for (size_t i = 1; i < set->n; i++)
        if (R.s[i].part.dtype != p0->dtype) {
            st = tdcl_fail(err, TDCL_EINVAL,
                           "the devices accumulate in different types (%s and %s): the means "
                           "would differ by device",
                           tdcl_dtype_name(p0->dtype), tdcl_dtype_name(R.s[i].part.dtype));
            goto out;
        }
    TDCL_TRY(tdcl_matrix_alloc(out, orows, ocols, p0->channels, p0->dtype, err));
    size_t orow = (size_t)ocols * (size_t)p0->channels * tdcl_dtype_size(p0->dtype);
    for (size_t i = 0; i < set->n; i++) {
        const tdcl_matrix *p = &R.s[i].part;
        memcpy((char *)out->data + (size_t)(begin[i] / o->tile_rows) * orow, p->data,
               (size_t)p->rows * orow);
        tdcl_log(TDCL_LOG_VERBOSE, "shard %zu: compute %.3f ms (device %.3f ms)", i,
                 R.s[i].stat.compute_ms, set->ctx[i]->t.kernel_ms);
    }
out:
    for (size_t i = 0; i < set->n; i++)
        tdcl_matrix_free(&R.s[i].part);
    if (st) tdcl_matrix_free(out);
    return st;
}
