/* The matmul command's pipeline (module prefix tdcl_mm_job): two matrix
 * files -> host -> device plan -> host -> matrix file. */
#ifndef TDCL_MATMUL_JOB_H
#define TDCL_MATMUL_JOB_H

#include <stddef.h>

#include "base/csr.h"
#include "base/status.h"
#include "dist/exec.h"
#include "dist/matmul_run.h"
#include "ops/matmul/matmul.h"
#include "runtime/clrt.h"

typedef struct tdcl_mm_job_opts {
    const char *a_path, *b_path; /* "-" = stdin (for one of them) */
    const char *out_path;        /* .mtx or .npy; NULL or "-": Matrix Market to stdout */
    tdcl_mm_opts mm;
    int type_given;            /* mm.type chosen by the user; otherwise two integer
                                  inputs give TDCL_I64 and anything else TDCL_F32 */
    int verify;                /* check on the host; TDCL_EVERIFY past the bound */
    size_t max_input_bytes;    /* refuse inputs whose dense size exceeds it; 0 = any */
    tdcl_mm_check *check;      /* if non-NULL and verify: the check's figures */
    tdcl_matrix *product;      /* if non-NULL: C is handed over here (the caller
                                  frees it) instead of being written */
    int sparse;                /* a tdcl_mm_sparse_mode: sparse operands' handling */
    int dense_output;          /* a sparse product may be written dense (array .mtx) */
    tdcl_csr *sparse_product;  /* with product: a sparse C is handed over here */
    struct tdcl_mm_repr *repr; /* if non-NULL: what each operand and C were */
} tdcl_mm_job_opts;

/* How matmul treats sparse files (coordinate .mtx, .npz). */
typedef enum tdcl_mm_sparse_mode {
    TDCL_MM_SPARSE_AUTO = 0, /* sparse where the density makes it faster, or dense cannot fit */
    TDCL_MM_SPARSE_ON,       /* sparse files stay sparse; two dense files become CSR */
    TDCL_MM_SPARSE_OFF,      /* every operand dense (today's path) */
} tdcl_mm_sparse_mode;

/* The representation of A, B and C in a job, for -v and the summary:
 * "sparse (CSR, 200000 entries, 0.05%)", "dense", "dense, from a sparse
 * file". */
typedef struct tdcl_mm_repr {
    char a[96], b[96], c[96];
} tdcl_mm_repr;

/* The sparse branch of tdcl_mm_job (jobs/matmul_sparse.c): when an
 * operand is a sparse file (or o->sparse is TDCL_MM_SPARSE_ON), chooses
 * by density and size between SpGEMM (sparse C), SpMM (dense C) and
 * the dense product, and runs it on ex (dist/sparse_run.h: one device,
 * bands of A's rows over a set or over ranks, rank 0 reading and
 * writing); *handled 0 when the dense path is to run instead (the files
 * unread). Over ranks every rank calls it and learns rank 0's choice. */
tdcl_status tdcl_mm_sparse_job(tdcl_exec *ex, const tdcl_mm_job_opts *o, int *handled,
                               tdcl_err *err);

/* The matmul command: reads both files (tdcl_matrix_read), multiplies,
 * verifies if asked, writes C (tdcl_matrix_write, atomically; nothing is
 * written when the verification fails). Fills ctx->t. ctx may still be
 * opening (tdcl_ctx_open_async): the job reads A and B first, then waits. */
tdcl_status tdcl_mm_job(tdcl_ctx *ctx, const tdcl_mm_job_opts *o, tdcl_err *err);

/* The type the job computes in for inputs a and b: o->mm.type when given,
 * float32 for the tensor-core precisions, int64 for two integer inputs,
 * float64 where either is float64, else float32. no_fp64: NULL where the
 * device has fp64 (or is not known yet), else the name of the device
 * that has not, which makes a float64 product float32 with a warning
 * naming it. */
tdcl_dtype tdcl_mm_job_type(const tdcl_mm_job_opts *o, const tdcl_matrix *a, const tdcl_matrix *b,
                            const char *no_fp64);

/* --verify's check of c against a*b on the host (tdcl_mm_check_product,
 * widened for tf32 and wrap-around as o asks); fills *o->check if set.
 * TDCL_EVERIFY saying what failed. */
tdcl_status tdcl_mm_job_verify(const tdcl_mm_job_opts *o, const tdcl_matrix *a,
                               const tdcl_matrix *b, const tdcl_matrix *c, tdcl_err *err);

/* The matmul job on ex, whichever its kind, written once: on one device
 * tdcl_mm_job on its device (a grid of more than one shard is refused
 * there); on a set or over ranks one flow over the runner of
 * dist/matmul_run.h: rank 0 (or the only process) checks the output and
 * reads A and B (over ranks, where every rank can read its own blocks of
 * two .npy files, only as --verify or an int64 check needs them), the
 * type is chosen as tdcl_mm_job_type does for the devices of all, the
 * product is computed, verified if asked, and handed over (o->product) or
 * written, over ranks by rank 0 or by every rank into a .npy output by
 * offset. Over ranks o->product is cleared (rank 0 writes, to stdout
 * too) and a failure on any rank fails every rank. */
tdcl_status tdcl_mm_exec_job(tdcl_exec *ex, const tdcl_mm_shard_opts *so, tdcl_mm_job_opts *o,
                             tdcl_err *err);

#endif
