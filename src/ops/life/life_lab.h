/* Overrides of life's automatic shape choice, for tests and benchmark
 * programs (module prefix tdcl_life_lab): the kernel family, its word
 * size, work-group and tile, depth and the variants of the bits kernels,
 * forced over what the choice would pick. The product passes none
 * (tdcl_life_opts.lab is NULL); the library reads no string or
 * environment variable for them. A zeroed struct overrides nothing: every
 * field's 0 is "unset", so a designated initializer names only what it
 * forces. cl/life/tiles.cl describes the variants. */
#ifndef TDCL_LIFE_LAB_H
#define TDCL_LIFE_LAB_H

/* The kernel family, in the order of life_choice.h's life_mode. */
typedef enum tdcl_life_lab_mode {
    TDCL_LIFE_LAB_MODE_AUTO = 0,
    TDCL_LIFE_LAB_TILES,  /* life_bits: tiles with a halo, K generations per launch */
    TDCL_LIFE_LAB_BANDS,  /* life_bits: bands of whole rows */
    TDCL_LIFE_LAB_SINGLE, /* life_bits: the whole grid in one work-group */
    TDCL_LIFE_LAB_GLOBAL, /* life_bits1: one generation per launch */
    TDCL_LIFE_LAB_BLOCK,  /* life_band: bands of whole rows in a CPU's cache */
    TDCL_LIFE_LAB_STREAM, /* life_stream: word columns streamed through registers */
} tdcl_life_lab_mode;

/* A variant switched off or on; AUTO leaves it as the mode sets it. */
typedef enum tdcl_life_lab_switch {
    TDCL_LIFE_LAB_AUTO = 0,
    TDCL_LIFE_LAB_OFF,
    TDCL_LIFE_LAB_ON,
} tdcl_life_lab_switch;

/* The adder network counting neighbours (bits kernels). */
typedef enum tdcl_life_lab_net {
    TDCL_LIFE_LAB_NET_AUTO = 0, /* the 3-input network with the gates life_net.h finds */
    TDCL_LIFE_LAB_NET_COUNT,    /* the 4-bit count network (cl/life's NET 0) */
    TDCL_LIFE_LAB_NET_OWN,      /* the rule's own 3-input form (NET 1) */
} tdcl_life_lab_net;

/* Row sums of 64-bit words (cl/life's HALVES). */
typedef enum tdcl_life_lab_halves {
    TDCL_LIFE_LAB_HALVES_AUTO = 0,
    TDCL_LIFE_LAB_HALVES_OFF,    /* HALVES 0: whole words */
    TDCL_LIFE_LAB_HALVES_ON,     /* HALVES 1: from 32-bit halves */
    TDCL_LIFE_LAB_HALVES_FUNNEL, /* HALVES 2: the funnel-shift form */
} tdcl_life_lab_halves;

typedef struct tdcl_life_lab {
    tdcl_life_lab_mode mode; /* a mode without ly and s is shaped as the choice would */
    /* 0: unset, else forced. w: word bits (32 or 64); lx, ly: work-group
     * (words across, rows); s: rows per work-item; k: generations per
     * launch; vx: words per work-item across (life_bits); vw: words per
     * work-item (life_bits1, life_band); g: groups of bands when a mode
     * picks the bands' shape (16 unset); regs: register cap per work-item
     * on NVIDIA. At most TDCL_LIFE_LAB_MAX each. */
    int w, lx, ly, s, k, vx, vw, g, regs;
    tdcl_life_lab_switch dbuf; /* life_bits: two tile buffers, one barrier per generation */
    tdcl_life_lab_net net;
    tdcl_life_lab_halves halves;
    tdcl_life_lab_switch lop3; /* life_bits on NVIDIA: the rule as inline PTX lop3 */
    /* tiles: a run's steps in one launch (life_flow), the tile in registers;
     * both off unless ON, as a forced shape names its kernel */
    tdcl_life_lab_switch flow, reg;
} tdcl_life_lab;

enum { TDCL_LIFE_LAB_MAX = 4096 };

#endif
