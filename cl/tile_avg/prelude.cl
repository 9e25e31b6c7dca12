/* What every tile-avg kernel shares: the element types, the reductions'
 * codes, token pasting. The host builds a program from this file and one
 * kernel family after it (mean.cl: the tuned means of one-plane matrices;
 * reduce.cl: every reduction over interleaved channels). */
#ifdef USE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifndef IN
#define IN float /* input element type */
#endif
#ifndef ACC
#define ACC float /* accumulator type */
#endif
#ifndef OUT
#define OUT float /* output element type */
#endif

/* The reductions, as the host's tdcl_ta_op numbers them. */
#define TA_OP_MEAN 0
#define TA_OP_SUM 1
#define TA_OP_MIN 2
#define TA_OP_MAX 3
#define TA_OP_MEDIAN 4
#define TA_OP_MODE 5
#ifndef OP
#define OP TA_OP_MEAN
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
