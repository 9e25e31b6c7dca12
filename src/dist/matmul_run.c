/* matmul on an execution of several devices (dist/matmul_run.h): a set's
 * grid of shards or MPI ranks, behind one sequence of calls for the job. */
#include "dist/matmul_run.h"

#include <stdio.h>
#include <string.h>

#include "dist/mpi.h"

tdcl_status tdcl_mm_exec_start(tdcl_exec *ex, tdcl_mm_exec *r, tdcl_err *err)
{
    memset(r, 0, sizeof *r);
    r->ex = ex;
    if (ex->kind != TDCL_EXEC_RANKS) return TDCL_OK;
    tdcl_status st = tdcl_mpi_open_local(ex->spec, &r->ctx, err);
    if (st) return st;
    /* fp64 on every rank, or the product is float32 on all of them */
    int fp64 = tdcl_mm_mpi_fp64(r->ctx);
    r->no_fp64 = fp64 > 0 ? NULL : fp64 < 0 ? "a device of another rank" : r->ctx->dev.device_name;
    return TDCL_OK;
}

tdcl_status tdcl_mm_exec_slabs(tdcl_mm_exec *r, const char *a_path, const char *b_path,
                               tdcl_dtype *ta, tdcl_dtype *tb, int *slabs, tdcl_err *err)
{
    *slabs = 0;
    if (r->ex->kind != TDCL_EXEC_RANKS) return TDCL_OK;
    return tdcl_mm_mpi_slabs(a_path, b_path, ta, tb, slabs, err);
}

tdcl_status tdcl_mm_exec_devices(tdcl_mm_exec *r, const tdcl_mm_shard_opts *so, tdcl_status in_st,
                                 tdcl_err *err)
{
    tdcl_devset *set = r->ex->set;
    if (r->ex->kind != TDCL_EXEC_SET) return TDCL_OK;
    if (in_st) return in_st;
    tdcl_status st = tdcl_devset_wait(set, err);
    if (st) return st;
    st = tdcl_mm_shard_grid_local(set->n, so->grid_rows, so->grid_cols, &r->rows, &r->cols, err);
    if (st) return st;
    for (size_t i = 0; i < set->n && !r->no_fp64; i++) /* the type every device computes in */
        if (!set->ctx[i]->dev.fp64) r->no_fp64 = set->ctx[i]->dev.device_name;
    return TDCL_OK;
}

void tdcl_mm_exec_share(tdcl_mm_exec *r, tdcl_dtype *type, int *offset)
{
    if (r->ex->kind != TDCL_EXEC_RANKS) return;
    int64_t t = *type, off = *offset; /* the other ranks learn the type in the run */
    tdcl_mpi_bcast_i64(&t);
    tdcl_mpi_bcast_i64(&off);
    *type = (tdcl_dtype)t;
    *offset = (int)off;
}

tdcl_status tdcl_mm_exec_run(tdcl_mm_exec *r, const tdcl_mm_shard_opts *so, const tdcl_mm_opts *mm,
                             tdcl_status in_st, const tdcl_matrix *a, const tdcl_matrix *b,
                             tdcl_matrix *c, tdcl_err *err)
{
    tdcl_mm_shard_opts sl = *so;
    memset(c, 0, sizeof *c);
    sl.set = r->ex->set;
    sl.devices = r->ex->spec;
    if (r->ex->kind == TDCL_EXEC_RANKS) /* agrees on in_st before anything else */
        return tdcl_mm_mpi_run(r->ctx, &sl, mm, in_st, a, b, c, err);
    if (in_st) return in_st;
    return tdcl_mm_shard_run(sl.set, mm, r->rows, r->cols, a, b, c, err);
}

void tdcl_mm_exec_where(const tdcl_mm_exec *r, char *buf, size_t n)
{
    if (r->ex->kind == TDCL_EXEC_RANKS)
        snprintf(buf, n, "%d MPI ranks", tdcl_mpi_size());
    else
        snprintf(buf, n, "%dx%d shards", r->rows, r->cols);
}

void tdcl_mm_exec_end(tdcl_mm_exec *r)
{
    tdcl_ctx_close(r->ctx);
    r->ctx = NULL;
}
