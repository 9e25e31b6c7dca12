/* The execution object: one device, a set, or MPI ranks (dist/exec.h). */
#include "dist/exec.h"

#include <string.h>

#include "dist/mpi.h"

tdcl_exec_kind tdcl_exec_kind_of(const char *spec, int ranks)
{
    if (ranks > 1) return TDCL_EXEC_RANKS;
    return tdcl_devset_spec_is_set(spec) ? TDCL_EXEC_SET : TDCL_EXEC_ONE;
}

tdcl_status tdcl_exec_open(const char *spec, int ranks, const tdcl_ctx_opts *opts, tdcl_exec *ex,
                           tdcl_err *err)
{
    memset(ex, 0, sizeof *ex);
    ex->kind = tdcl_exec_kind_of(spec, ranks);
    ex->spec = spec;
    if (opts) ex->opts = *opts;
    ex->opts.device_spec = spec;
    switch (ex->kind) {
    case TDCL_EXEC_ONE:
        return tdcl_ctx_open_async(&ex->opts, &ex->ctx, err);
    case TDCL_EXEC_SET:
        return tdcl_devset_open_async(spec, &ex->opts, &ex->set, err);
    case TDCL_EXEC_RANKS:
        ex->ranks = ranks;
        return TDCL_OK;
    }
    return TDCL_OK;
}

tdcl_status tdcl_exec_wait(tdcl_exec *ex, tdcl_err *err)
{
    switch (ex->kind) {
    case TDCL_EXEC_ONE:
        return tdcl_ctx_wait(ex->ctx, err);
    case TDCL_EXEC_SET:
        return tdcl_devset_wait(ex->set, err);
    case TDCL_EXEC_RANKS:
        return TDCL_OK;
    }
    return TDCL_OK;
}

int tdcl_exec_root(const tdcl_exec *ex)
{
    return ex->kind != TDCL_EXEC_RANKS || tdcl_mpi_rank() == 0;
}

tdcl_status tdcl_exec_agree(const tdcl_exec *ex, tdcl_status *st, tdcl_err *err)
{
    if (ex->kind == TDCL_EXEC_RANKS) tdcl_mpi_agree(st, err);
    return *st;
}

tdcl_timing *tdcl_exec_timing(tdcl_exec *ex)
{
    return ex->kind == TDCL_EXEC_ONE && ex->ctx ? &ex->ctx->t : NULL;
}

void tdcl_exec_close(tdcl_exec *ex)
{
    tdcl_ctx_close(ex->ctx);
    tdcl_devset_close(ex->set);
    ex->ctx = NULL;
    ex->set = NULL;
}
