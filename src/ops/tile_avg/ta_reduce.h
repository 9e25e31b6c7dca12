/* tile-avg's interleaved kernel (module prefix ta_reduce_, private to
 * ops/tile_avg): every reduction of cl/tile_avg/reduce.cl, chosen, built
 * and sized for one input; and the host's reference of each reduction. */
#ifndef TDCL_TA_REDUCE_H
#define TDCL_TA_REDUCE_H

#include "ops/tile_avg/tile_avg.h"

/* Whether in (channels, dtype) goes through the interleaved kernel rather
 * than the tuned means: any reduction but the mean, an image's mean, or
 * several channels. */
int ta_reduce_wanted(const tdcl_ta_opts *o, int channels);

/* Builds tile_reduce (or, for an 8/16-bit image's plain means, tile_imean:
 * the same arguments and a ninth, its __local column sums, set here) for an input of `channels`
 * channels read as dev_in, out as out_type, acc the float accumulator (float or double), over an
 * orows x ocols result; sets *prog, *kern, gws and lws (3 each) and a
 * description into desc. Checks the compiled kernel's work-group and
 * local memory against the device. */
tdcl_status ta_reduce_build(tdcl_ctx *ctx, const tdcl_ta_opts *o, int channels, tdcl_dtype dev_in,
                            tdcl_dtype out_type, tdcl_dtype acc, int64_t orows, int64_t ocols,
                            cl_program *prog, cl_kernel *kern, size_t *gws, size_t *lws, char *desc,
                            size_t desc_cap, tdcl_err *err);

/* The OpenCL C name of t ("float", "uchar", ...). */
const char *ta_cl_type(tdcl_dtype t);

#endif
