/* tile-avg of a sparse matrix (module prefix tdcl_ta_sparse_): the mean,
 * sum, min or max of every T x U tile of a CSR matrix over all its cells,
 * the cells without an entry counting as zeros (edge tiles over the cells
 * they hold), computed from the entries on the device (cl/tile_avg/
 * sparse.cl) without a dense copy. Integer and pattern values give exact
 * int64 sums; floats accumulate in double where the device has fp64, in
 * float elsewhere. Median and mode are refused: they would need each tile
 * made dense. */
#ifndef TDCL_TA_SPARSE_H
#define TDCL_TA_SPARSE_H

#include "base/csr.h"
#include "ops/tile_avg/tile_avg.h"

/* TDCL_EUNSUPPORTED naming the reduction for median and mode, TDCL_EINVAL
 * for an unsorted matrix or a tile tdcl_ta_shape refuses; else the
 * result's shape. */
tdcl_status tdcl_ta_sparse_check(const tdcl_ta_opts *o, const tdcl_csr *m, int64_t *orows,
                                 int64_t *ocols, tdcl_err *err);

/* The result type on d: tdcl_ta_result_type of the values' type (a
 * pattern's is int64). */
tdcl_dtype tdcl_ta_sparse_result_type(const tdcl_device_info *d, const tdcl_ta_opts *o,
                                      const tdcl_csr *m);

/* o->op of every tile of m on ctx's device into out (new, the caller's;
 * orows x ocols of tdcl_ta_sparse_result_type), after a check of the
 * result's size against the memory left and the device's largest buffer
 * (TDCL_ELIMIT naming it). The tile kernel or, for wide maps, the band
 * kernel with scratch shaped as the result (where it fits), by an estimate
 * of their work; TILEDCL_TA_SPARSE=tile, band or band:G forces one. An
 * int64 sum past the type's range: TDCL_ERANGE naming the tile. Adds to
 * ctx->t (compile, upload, kernel, download). */
tdcl_status tdcl_ta_sparse_run(tdcl_ctx *ctx, const tdcl_ta_opts *o, const tdcl_csr *m,
                               tdcl_matrix *out, tdcl_err *err);

/* The same on the host, from the entries by row (independent of the
 * kernel's search): exact int64 (TDCL_ERANGE naming the tile), long double
 * sums for floats, into out (new) of out_type; with abs_mean non-NULL, also
 * each tile's mean of |x| (float64), the scale of a float error. */
tdcl_status tdcl_ta_sparse_reference(const tdcl_ta_opts *o, const tdcl_csr *m, tdcl_dtype out_type,
                                     tdcl_matrix *out, tdcl_matrix *abs_mean, tdcl_err *err);

/* got against the host reference: integer results and min/max exactly,
 * float sums and means within 1e-6 of the tile's mean |x| (times its cell
 * count for a sum), NaN where the reference is NaN. *worst receives the
 * largest relative error; TDCL_EVERIFY names the first tile past it. */
tdcl_status tdcl_ta_sparse_compare(const tdcl_ta_opts *o, const tdcl_csr *m, const tdcl_matrix *got,
                                   double *worst, tdcl_err *err);

#endif
