/* tile-avg on an execution, whichever its kind (dist/tile_avg_run.h). */
#include "dist/tile_avg_run.h"

#include <string.h>

tdcl_status tdcl_ta_exec_run(tdcl_exec *ex, const tdcl_ta_opts *o, tdcl_status in_st,
                             const tdcl_matrix *in, const char *npy_path, const char *npy_out,
                             int *written, tdcl_matrix *out, tdcl_err *err)
{
    tdcl_status st = in_st;
    memset(out, 0, sizeof *out);
    if (written) *written = 0;
    if (ex->kind == TDCL_EXEC_RANKS) /* agrees on in_st before anything else */
        return tdcl_ta_mpi_run(ex->spec, o, in_st, in, npy_path, npy_out, written, out, err);
    if (st) return st;
    if (ex->kind == TDCL_EXEC_SET) { /* the set's contexts keep their own times */
        st = tdcl_devset_wait(ex->set, err);
        return st ? st : tdcl_ta_shards_run(ex->set, o, in, out, err);
    }
    st = tdcl_ctx_wait(ex->ctx, err);
    return st ? st : tdcl_ta_run(ex->ctx, o, in, out, err);
}
