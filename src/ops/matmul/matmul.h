/* Dense matrix product C = A*B on an OpenCL device (module prefix tdcl_mm_).
 *
 * Three kernels (cl/matmul/gemm.cl): the textbook local-memory tile for any
 * device and shape, a register-blocked packed kernel for CPUs and a
 * register/local two-level tiled kernel for GPUs; the default choice goes by
 * device type and product size. Floats are computed in float32 (default)
 * or float64; integer inputs can be multiplied exactly in int64. Products
 * whose buffers exceed the device's max allocation are computed in panels.
 *
 * A plan holds the built kernels and the device buffers of one product so
 * it can run many times (bench, tests); tdcl_mm_run is the one-shot form.
 * The file job (read, multiply, verify, write) is jobs/matmul_job.h. */
#ifndef TDCL_MATMUL_H
#define TDCL_MATMUL_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/clrt.h"
#include "runtime/xfer.h"
#include "base/matrix.h"
#include "base/status.h"
#include "ops/matmul/mm_params.h"

/* Fills the unset (0) parameters of kernel k in *x with the defaults for
 * ctx's device and an M x K by K x N product of type (no table lookup). */
void tdcl_mm_params_defaults(tdcl_ctx *ctx, tdcl_mm_kernel k, tdcl_dtype type, int64_t M, int64_t K,
                             int64_t N, tdcl_mm_params *x);

struct tdcl_mm_lab;

typedef struct tdcl_mm_opts {
    tdcl_dtype type;       /* TDCL_F32 (the zero default), TDCL_F64 or TDCL_I64 */
    int tile;              /* tiled kernel's T (T x T work-group); 0 = per device.
                              Non-zero with TDCL_MM_AUTO selects the tiled kernel */
    tdcl_mm_kernel kernel; /* TDCL_MM_AUTO unless forced */
    /* Kernel parameters; 0 = the tuned or built-in choice for the device
     * and product size. A forced value the device cannot run is refused
     * with TDCL_ELIMIT. */
    tdcl_mm_params par;
    int no_tune;                   /* ignore tuned and built-in tables: plain defaults */
    size_t max_alloc;              /* per-buffer byte limit; 0 = the device's. Smaller values
                                      force panels (tests) */
    int poison;                    /* fill C with a pattern before each execute, so a test
                                      sees any element the kernels failed to write */
    tdcl_mm_precision precision;   /* TDCL_MM_FP32 (the zero default); the tensor-core
                                      choices need TDCL_F32 and the automatic kernel */
    const struct tdcl_mm_lab *lab; /* overrides of the tensor-core plans' choices, and the
                                      PTX emulated (also the gpu kernel's cp=2), for tests
                                      and benchmark programs (matmul_lab.h); NULL in the
                                      product */
    int wrap;                      /* TDCL_I64: accept sums wrapped modulo 2^64 where the exact
                                      product leaves int64; else such a product fails */
    int borrow_inputs;             /* the inputs outlive the plan: on a CPU device it then
                                      computes on their memory in place (CL_MEM_USE_HOST_PTR)
                                      and keeps C in the driver's host memory, for
                                      tdcl_mm_plan_map_result: no copies */
    /* If set, called during tdcl_mm_plan_execute on its thread once the
     * device has read a borrowed input for the last time in that execute
     * (which: 0 A, 1 B): on a CPU device, after the input's packing
     * kernel, so the caller may let the input's pages go (keeping its
     * contents: a file mapping's pages come back from the file) before the
     * product's own memory is touched. */
    void (*input_read)(void *user, int which);
    void *input_user;
    /* Rows of C per panel overlapped with the copies: A's rows go up and
     * C's rows come down while other panels compute, B is uploaded once.
     * 0: none; TDCL_MM_PANELS_AUTO: where the copies cross a bus and C is
     * large; > 0: that many (TILEDCL_MM_PANEL_ROWS overrides either of the
     * last two, 0 turning them off). Only where B fits the device whole.
     * Such a plan reads A (and B for an int64 range check) from the
     * caller's memory during execute: it must stay valid until then. */
    int64_t panel_rows;
} tdcl_mm_opts;

#define TDCL_MM_PANELS_AUTO (-1)

typedef struct tdcl_mm_plan tdcl_mm_plan;

/* Prepares C = A*B for a (M x K) and b (K x N), any dtypes, one channel.
 * Inputs are converted to o->type (TDCL_I64 needs integer inputs; TDCL_F64
 * a device with fp64) and uploaded now, unless the product needs panels, in
 * which case the plan keeps converted host copies and uploads panel by
 * panel in execute. The caller keeps ownership of a and b (they may be
 * freed after this call) and owns *out (release with tdcl_mm_plan_destroy).
 * TDCL_EINVAL on a shape mismatch (naming both shapes), TDCL_EUNSUPPORTED
 * for f64 without fp64, TDCL_ELIMIT for a forced tile or parameter the
 * device cannot run; -v logs the kernel chosen and why. */
tdcl_status tdcl_mm_plan_create(tdcl_ctx *ctx, const tdcl_mm_opts *o, const tdcl_matrix *a,
                                const tdcl_matrix *b, tdcl_mm_plan **out, tdcl_err *err);

/* Enqueues the whole product, waits, and stores the device time of its
 * kernels (profiling events; packing included, uploads not) in *kernel_ms
 * if non-NULL. Also adds it to ctx->t.kernel_ms. An int64 product whose
 * exact value leaves int64 anywhere (found on the device, or on the host
 * when panelled, unless a bound on the inputs rules it out) fails with
 * TDCL_ERANGE naming the first such element, unless o->wrap. */
tdcl_status tdcl_mm_plan_execute(tdcl_mm_plan *p, double *kernel_ms, tdcl_err *err);

/* For a plan that computes a part of a larger product (a shard's): after
 * create, replaces A and B by a and b (the plan's shapes, any dtype as
 * create takes them) and computes C = A*B, or C += A*B with accumulate;
 * waits; *kernel_ms (if non-NULL) as tdcl_mm_plan_execute. The int64
 * range check covers only a product that does not accumulate (ask for wrap
 * and check the whole product elsewhere). TDCL_EUNSUPPORTED for a plan in
 * panels, on the tensor cores or computing on borrowed inputs: the caller
 * then adds products on the host. */
tdcl_status tdcl_mm_plan_execute_with(tdcl_mm_plan *p, const tdcl_matrix *a, const tdcl_matrix *b,
                                      int accumulate, double *kernel_ms, tdcl_err *err);

/* After execute failed with TDCL_ERANGE: 1 and the element (from 0) the
 * message names, else 0. */
int tdcl_mm_plan_overflow(const tdcl_mm_plan *p, int64_t *row, int64_t *col);

/* The TDCL_ERANGE failure an int64 product whose element (row, col),
 * from 0, leaves int64 reports; returns TDCL_ERANGE. */
tdcl_status tdcl_mm_fail_overflow(int64_t row, int64_t col, tdcl_err *err);

/* Downloads C into a new M x N matrix of the plan's type (c is overwritten;
 * the caller frees it with tdcl_matrix_free). */
tdcl_status tdcl_mm_plan_result(tdcl_mm_plan *p, tdcl_matrix *c, tdcl_err *err);

/* Executes a plan with row panels overlapped (o->panel_rows): C's rows
 * downloaded into dst (M x N row-major of the plan's type) by the copying
 * threads as each panel finishes, while later ones compute; -v says how
 * much of the copies' time the kernels hid. TDCL_EUNSUPPORTED, doing
 * nothing, for any other plan (then tdcl_mm_plan_execute). */
tdcl_status tdcl_mm_plan_execute_into(tdcl_mm_plan *p, void *dst, double *kernel_ms, tdcl_err *err);

/* Maps C for reading where it is host memory already (o->borrow_inputs on
 * a CPU device): *ptr, M x N row-major of the plan's type, valid until
 * tdcl_mm_plan_unmap_result or destroy. TDCL_EUNSUPPORTED elsewhere. */
tdcl_status tdcl_mm_plan_map_result(tdcl_mm_plan *p, void **ptr, tdcl_err *err);

/* Unmaps C; accepts a plan whose C is not mapped. err may be NULL. */
tdcl_status tdcl_mm_plan_unmap_result(tdcl_mm_plan *p, tdcl_err *err);

/* Downloads C into dst (M x N of the plan's type, the caller's): memory
 * touched already (an input's, once uploaded) takes the download faster
 * than fresh pages. A tensor-core plan's C is float32: TDCL_EUNSUPPORTED
 * when the plan's type is not. */
tdcl_status tdcl_mm_plan_result_into(tdcl_mm_plan *p, void *dst, tdcl_err *err);

/* Hands C (M x N row-major of the plan's type) to sink in order, in chunks
 * straight from pinned staging memory on a GPU (runtime/xfer.h): the file
 * writer takes each chunk while the next one downloads. The caller times
 * it. TDCL_EUNSUPPORTED for a tensor-core or panelled plan. */
tdcl_status tdcl_mm_plan_result_each(tdcl_mm_plan *p, tdcl_xfer_sink sink, void *user,
                                     tdcl_err *err);

/* A one-line description of the choices: "kernel=cpu type=float32 mr=6
 * nr=32 vw=8 kc=1024 panels=1x1x1". Owned by the plan. */
const char *tdcl_mm_plan_describe(const tdcl_mm_plan *p);

/* What a plan chose, as fields for the callers that act on it (bench,
 * tune, tests); tdcl_mm_plan_describe is the same for people. */
typedef struct tdcl_mm_plan_info {
    tdcl_mm_kernel kernel;                /* TDCL_MM_TILED, _CPU or _GPU; TDCL_MM_AUTO when the
                                             tensor cores compute */
    int tensor_cores;                     /* 0; 1 on mma.sync; 2 on wgmma (precision tf32/3xtf32) */
    tdcl_mm_precision precision;          /* TDCL_MM_FP32, _TF32 or _3XTF32 (never auto) */
    tdcl_dtype type;                      /* the type computed in and returned */
    int tile_rows, tile_cols;             /* the work-group's tile of C: ts x ts (tiled), bm x bn
                                             (gpu, tensor cores); 0 for the cpu kernel */
    tdcl_mm_params par;                   /* the cpu or gpu kernel's parameters, else zeros */
    int64_t panels_m, panels_k, panels_n; /* panel counts (1 x 1 x 1: one piece) */
} tdcl_mm_plan_info;

/* Fills *out with p's choices. */
void tdcl_mm_plan_get_info(const tdcl_mm_plan *p, tdcl_mm_plan_info *out);

/* Releases everything; accepts NULL. */
void tdcl_mm_plan_destroy(tdcl_mm_plan *p);

/* One-shot C = A*B: plan, execute, result, destroy. c is overwritten. */
tdcl_status tdcl_mm_run(tdcl_ctx *ctx, const tdcl_mm_opts *o, const tdcl_matrix *a,
                        const tdcl_matrix *b, tdcl_matrix *c, tdcl_err *err);

/* 1 when no element of the int64 product of a (M x K) and b (K x N), both
 * row-major, can leave int64: sum_k |a_ik| max_j |b_kj| < 2^62 for every
 * row i (O(MK + KN)); 0 when one might. */
int tdcl_mm_i64_bound_ok(const int64_t *a, const int64_t *b, int64_t M, int64_t K, int64_t N);

/* The first element (row-major, from 0) of that product whose exact value
 * lies outside int64, in 128-bit arithmetic on the host (O(MKN), one
 * thread): returns 1 and sets *row and *col, else 0. */
int tdcl_mm_i64_first_overflow(const int64_t *a, const int64_t *b, int64_t M, int64_t K, int64_t N,
                               int64_t *row, int64_t *col);

/* The result of a host check of C against A*B. */
typedef struct tdcl_mm_check {
    double rel_err;           /* ||C - R||_F / ||R||_F, R the host product (0 if equal) */
    double bound;             /* largest rel_err accepted (0 for integer C: exact) */
    int64_t differing;        /* integer C: elements that differ from R modulo 2^64 */
    int64_t overflowed;       /* integer C: elements whose exact value leaves int64 */
    int64_t ovf_row, ovf_col; /* the first of them (from 0), if any */
    int64_t nonfinite;        /* float C: elements where R is NaN or infinite */
    int64_t nonfinite_differ; /* of those, where C is not the same (NaN for NaN) */
    int64_t extra_nonfinite;  /* float C: elements where C is NaN or infinite but R finite */
    int exact;                /* integer C: compared element by element */
    tdcl_dtype type;          /* C's type */
    int64_t k;                /* the inner dimension the bound is for */
    int ok;
} tdcl_mm_check;

/* Computes R = A*B on the host (blocked; double for float C, exact 128-bit
 * sums for integer C) and compares C with it. For float C of unit
 * roundoff u (2^-24 float32, 2^-53 float64) the check accepts
 *     ||C - R||_F <= 2 (K + 2) u ||A||_F ||B||_F
 * over the elements where R is finite, twice the worst-case error of
 * K-term dot products of inputs rounded to the type, since
 * ||(|A||B|)||_F <= ||A||_F ||B||_F; out->bound is that limit divided by
 * ||R||_F. Where R is NaN C must be NaN, where R is an infinity C must be
 * the same one. Integer C must match exactly, and out->ok is 0 where the
 * exact product leaves int64 (out->differing then counts differences
 * modulo 2^64, what a caller accepting wrap-around checks). Returns TDCL_OK
 * with out->ok set either way (TDCL_ENOMEM if the host copies fail). */
tdcl_status tdcl_mm_check_product(const tdcl_matrix *a, const tdcl_matrix *b, const tdcl_matrix *c,
                                  tdcl_mm_check *out, tdcl_err *err);

#endif
