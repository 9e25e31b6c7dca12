/* Life's kernel and shape choice, inside ops/life and for its tests: a
 * shape (life_cfg) and the search over shapes for a device description.
 * The search is pure: it reads the description and the options and
 * builds nothing, so its fallback rules are tested without a device. */
#ifndef TDCL_LIFE_CHOICE_H
#define TDCL_LIFE_CHOICE_H

#include <stddef.h>
#include <stdint.h>

#include "ops/life/life.h"
#include "ops/life/life_lab.h"
#include "runtime/clrt.h"

typedef enum life_mode {
    MODE_TILES,  /* life_bits: tiles with a halo, K generations per launch */
    MODE_BANDS,  /* life_bits: bands of whole rows, K generations per launch */
    MODE_SINGLE, /* life_bits: the whole grid in one work-group, a run per launch */
    MODE_GLOBAL, /* life_bits1: one generation per launch from global memory */
    MODE_BLOCK,  /* life_band: bands of whole rows in a CPU's cache, K generations per launch */
    MODE_STREAM, /* life_stream: word columns streamed through registers, K generations */
} life_mode;

typedef struct life_cfg {
    int bits;             /* 1: life_bits or life_bits1, 0: life_bytes */
    int ts;               /* bytes: tile side */
    life_mode mode;       /* bits */
    int wb, lx, ly, s, k; /* bits: word bits, work-group, rows per item, depth */
    int vx;               /* life_bits: words per work-item across (a vector) */
    int dbuf;             /* life_bits: two tile buffers, one barrier per generation */
    int vw;               /* life_bits1: words per work-item (a vector) */
    int regs;             /* life_bits on NVIDIA: register cap per work-item; 0: by the group */
    int net0;   /* bits: the 4-bit count network (cl/life's NET 0), else the 3-input one */
    int net1;   /* bits: the rule's own 3-input form, not the three gates found by search */
    int halves; /* life_bits, 64-bit words: row sums from 32-bit halves (cl/life's HALVES) */
    int lop3;   /* life_bits on NVIDIA: the rule's tables as inline PTX lop3 (LOP3ASM) */
    int flow;   /* tiles: a run's steps in one launch, tiles in ticket order (life_flow) */
    int reg;    /* tiles: the tile in registers, neighbours across by shuffles (REGT) */
} life_cfg;

/* The first shape for a grid of rows x cols on d, as the options ask. */
life_cfg tdcl_life_choice_first(const tdcl_device_info *d, const tdcl_life_opts *o, int64_t rows,
                                int64_t cols);

/* 1 when d's limits (work-group, local memory) run c and c covers the grid. */
int tdcl_life_choice_fits(const tdcl_device_info *d, const life_cfg *c, int64_t rows, int64_t cols);

/* The fallback rules: the shape to try after *c did not fit or did not
 * build, in this order: the tile in registers gives way to the tiles in
 * local memory; life_flow to the tiles launched step by step; then a
 * smaller shape of the same kind (shrink); bands of a CPU's cache that do
 * not fit even one row to one generation per launch; whole rows (one
 * group, bands) to tiles. 0 when none is left. */
int tdcl_life_choice_next(const tdcl_device_info *d, const tdcl_life_opts *o, int64_t rows,
                          int64_t cols, life_cfg *c);

/* The candidates in the order they are tried, those that fit d only: at
 * most cap into out; returns how many. */
size_t tdcl_life_choice_list(const tdcl_device_info *d, const tdcl_life_opts *o, int64_t rows,
                             int64_t cols, life_cfg *out, size_t cap);

/* life_flow: at most this many tickets a launch (an int on the device,
 * with room for the work-groups' last takes), and this many work-groups a
 * compute unit launched (more than run at once: the rest find no ticket). */
enum { FLOW_MAX_TICKETS = INT32_MAX / 2, FLOW_GROUPS_CU = 8 };

/* The modes' names, by life_mode, for -v. */
extern const char *const tdcl_life_mode_names[];

/* What the plan needs of the shapes: life_band's local memory for rows of
 * nw words; life_stream's word columns and chunks of rows; the device's
 * compute units as the choice counts them; whether it takes NVIDIA's
 * compiler options; whether the tile in registers trades by shuffles. */
size_t tdcl_life_block_local(const life_cfg *c, int64_t nw);
int64_t tdcl_life_stream_cols(int64_t nw, int lx);
int64_t tdcl_life_stream_chunks(int64_t rows, int s);
int64_t tdcl_life_compute_units(const tdcl_device_info *d);
int tdcl_life_nv_options(const tdcl_device_info *d);
int tdcl_life_reg_shfl(const tdcl_device_info *d, const life_cfg *c);

/* Applies lab's overrides over c, for a grid of rows x cols (tests and
 * bench only); TDCL_EINVAL for a field out of range. */
tdcl_status tdcl_life_apply_lab(const tdcl_device_info *d, const tdcl_life_lab *lab, int64_t rows,
                                int64_t cols, life_cfg *c, tdcl_err *err);

/* The fields lab sets, as "mode=bands,g=16,k=40", into buf of n bytes. */
void tdcl_life_lab_describe(const tdcl_life_lab *lab, char *buf, size_t n);

#endif
