/* tile-avg over several devices (module prefix tdcl_ta_shards_): the
 * matrix in bands of whole tile rows, one per device of a set, each band's
 * means computed by its device exactly as one device computes them, so the
 * result is bit-identical to one device's. */
#ifndef TDCL_SHARD_TILE_AVG_H
#define TDCL_SHARD_TILE_AVG_H

#include "base/matrix.h"
#include "base/status.h"
#include "ops/tile_avg/tile_avg.h"
#include "runtime/devset.h"

/* out (new, the caller's) = the tile means of in, computed over the set's
 * devices (opened: tdcl_devset_wait first), in bands of whole blocks of 8
 * tile rows (the kernels' rows per work-item divide 8, so each band adds
 * its tiles as one device does); the last band takes the rows past the
 * last block. TDCL_EINVAL when the matrix has fewer blocks than the set
 * has devices. Each device's kernel time
 * is added to its context's timing. */
tdcl_status tdcl_ta_shards_run(tdcl_devset *set, const tdcl_ta_opts *o, const tdcl_matrix *in,
                               tdcl_matrix *out, tdcl_err *err);

#endif
