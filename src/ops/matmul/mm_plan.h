/* The plan's state and what its files share (internal to ops/matmul;
 * callers use matmul.h): matmul.c chooses the kernel and its parameters,
 * builds and creates the plan; mm_panels.c splits the product into panels
 * that fit the device and plans the split last wave; mm_buffers.c makes
 * the buffers and uploads the inputs; mm_exec.c enqueues the kernels and
 * reads the result back. */
#ifndef TDCL_MM_PLAN_H
#define TDCL_MM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "ops/matmul/matmul.h"
#include "ops/matmul/matmul_tc.h"

struct tdcl_mm_plan {
    tdcl_ctx *ctx;
    tdcl_mm_kernel kind;
    tdcl_dtype type;
    size_t esz;
    int64_t M, K, N;
    int kind_forced;             /* the kernel was given: never fall back to another */
    int params_forced;           /* its parameters were given: never shrink them */
    int ts;                      /* tiled */
    tdcl_mm_params par;          /* cpu and gpu */
    const char *par_source;      /* where par came from: given, tuned, built-in, default */
    int pack_wg;                 /* cpu packing kernels' group side */
    int tt;                      /* gpu transpose kernel's group side */
    int idx_int;                 /* IDX is int (else long) */
    int64_t pm, pk, pn;          /* panel extents */
    int64_t npm, npk, npn;       /* panel counts */
    double tail_cap;             /* most elements the split last wave's workspace may take */
    void *ha, *hb;               /* converted inputs, kept only when panelled */
    const void *src_a, *src_b;   /* A and B of the plan's type on the host, when panelled: ha
                                    and hb, or (pipe) the caller's, valid until execute ends */
    int pipe;                    /* row panels overlapped with their copies (mm_exec.c) */
    cl_mem a2, c2;               /* pipe: the second slots of A's and C's panels */
    struct tdcl_xfer *up, *down; /* pipe: copy channels, opened on first execute */
    void *hc;                    /* C on the host when panelled */
    int64_t up_a[2], up_b[2];    /* panel indices now in the a and b buffers */
    int poison;
    int wrap;        /* int64: wrap-around accepted */
    int range_check; /* int64: the inputs' bound cannot rule overflow out */
    int64_t ovf[2];  /* the first element found outside int64, or -1 */
    cl_program prog;
    cl_kernel k_mm, k_pack_a, k_pack_b, k_tr, k_red, k_red_tiles, k_range;
    cl_mem a, b, c, ap, bp, at, w;
    char desc[384];
    tdcl_mm_tc *tc;  /* tf32 / 3xtf32: the tensor-core plan does the work */
    int zero_copy;   /* o->borrow_inputs on a CPU device, one panel: A and B are the
                        caller's memory in place, C the driver's host memory */
    int borrowed[2]; /* A, B were created on the caller's memory: nothing to upload */
    void (*input_read)(void *user, int which); /* o->input_read, o->input_user */
    void *input_user;
    void *c_ptr; /* C mapped by tdcl_mm_plan_map_result */
    int emulate; /* o->lab->emulate: cp=2's copies in plain OpenCL C */
};

static inline int64_t tdcl_mm_ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static inline int64_t tdcl_mm_round_up(int64_t a, int64_t b)
{
    return tdcl_mm_ceil_div(a, b) * b;
}

/* The plan's device buffers: A, B, C, the packed Ap and Bp (cpu), A
 * transposed and the workspace (gpu), in tdcl_mm_panel_sizes' order. */
#define TDCL_MM_NBUFS 7

/* ---- panels (mm_panels.c) ---------------------------------------------- */

/* The split last wave of an mi x ki x nj panel (tdcl_mm_tail_plan). */
typedef struct tdcl_mm_tail {
    int64_t first;          /* the tiles before it, run whole */
    int64_t tiles;          /* the tiles of the split wave; 0: none */
    int64_t slices, kchunk; /* K's pieces and their length (whole slabs) */
} tdcl_mm_tail;

/* The last wave of an mi x ki x nj panel, split or not (tiles 0): only the
 * gpu kernel splits it, within p->tail_cap elements of workspace. */
tdcl_mm_tail tdcl_mm_tail_plan(const tdcl_mm_plan *p, int64_t mi, int64_t ki, int64_t nj);

/* Elements of the split last wave's workspace for panels of d (m, k, n),
 * the smaller panels at the ends included; 0 when no panel splits. */
double tdcl_mm_tail_elems(const tdcl_mm_plan *p, const int64_t d[3]);

/* Element counts n[] of the buffers of a d[0] x d[1] x d[2] panel. */
void tdcl_mm_panel_sizes(const tdcl_mm_plan *p, const int64_t d[3], double n[TDCL_MM_NBUFS]);

/* Sets the panel extents and counts, tail_cap and idx_int so that every
 * buffer fits the device's allocation limit (or o->max_alloc) and all
 * together 80% of its memory; TDCL_ELIMIT when not even 1x1 panels do. */
tdcl_status tdcl_mm_plan_panels(tdcl_mm_plan *p, const tdcl_mm_opts *o, tdcl_err *err);

/* ---- row panels overlapped with their copies (mm_exec.c) -------------- */

/* Releases the pipeline's slots and channels (destroy calls it). */
void tdcl_mm_pipe_release(tdcl_mm_plan *p);

/* ---- buffers and uploads (mm_buffers.c) -------------------------------- */

/* TDCL_ELIMIT (tdcl_mem_check) when the host memory the plan will hold
 * does not fit: its buffers on a CPU device, the host copies of a
 * panelled product, the result. */
tdcl_status tdcl_mm_check_host_memory(const tdcl_mm_plan *p, tdcl_err *err);

/* Creates the panel-sized device buffers; on a zero-copy plan A and B are
 * a's and b's memory in place where their type is the plan's. */
tdcl_status tdcl_mm_make_buffers(tdcl_mm_plan *p, const tdcl_matrix *a, const tdcl_matrix *b,
                                 tdcl_err *err);

/* A panelled plan: keeps a and b converted to the plan's type (p->ha,
 * p->hb) and allocates C on the host (p->hc), for execute's uploads. A
 * pipelined one (p->pipe) uploads B whole now and reads A's rows at
 * execute from a itself where it is of the plan's type. */
tdcl_status tdcl_mm_keep_inputs(tdcl_mm_plan *p, const tdcl_matrix *a, const tdcl_matrix *b,
                                tdcl_err *err);

/* A plan in one piece: converts a and b to the plan's type and uploads
 * them (unless borrowed); sets p->range_check for int64. */
tdcl_status tdcl_mm_upload_whole(tdcl_mm_plan *p, const tdcl_matrix *a, const tdcl_matrix *b,
                                 tdcl_err *err);

#endif
