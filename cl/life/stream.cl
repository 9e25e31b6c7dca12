/* Life's kernels: columns streamed through registers (life_stream).
 * Built after prelude.cl, in the programs src/ops/life/life_prog.c lists. */

/* ---- bit-packed, columns streamed through registers -------------------- */
/* life_stream (GPU layout, 64- or 32-bit words, Moore neighbourhood): work-item
 * lx of a row of LX work-items owns word column C = cbase + lx, and the
 * row of work-items streams down a chunk of S grid rows (rows r0 .. r0+S-1
 * go out), reading each of the rows r0-K .. r0+S+K-1 once from global
 * memory. The K generations of a launch are a pipeline of K levels in
 * registers: level l keeps the row sums of the two rows above the one it
 * receives and the state of the middle one, so a row arriving at level l
 * leaves it as the next generation of the row above. Neighbours across are
 * the words of the work-items beside (a shuffle on NVIDIA, SHFL; local
 * memory and barriers elsewhere), so a row of work-items loses one word
 * each side to the creep (K <= 63 cells), and a chunk K rows above and
 * below: against life_bits's tile, no halo rows recomputed at every
 * generation inside the chunk, no local memory and no barriers. A row of
 * work-items is one warp on NVIDIA (LX = 32); LY of them, on chunks one
 * below the other, make a work-group.
 * Boundaries: warps (groups, without the shuffle) whose rows or words
 * reach past the grid's edges (or a torus's, read wrapped) take a loop
 * with the checks their place needs (stream_run): a dead or clamp row
 * above row 0 or below the last is replaced, in the window, by zeros or by
 * the edge row itself, and the words beside the first and last as fix_word
 * says; rows and words outside are computed and never read. A launch of
 * fewer than K generations (a run's last) takes a loop that stops at its
 * depth. */
#if (WBITS != 64 && WBITS != 32) || NV != 1 || NBHD != 0 || (WBITS == 64 && !defined(HALVES))
#error "life_stream: 32- or 64-bit words (HALVES), one per work-item, the Moore neighbourhood"
#endif
#ifndef SHFL
#define SHFL 0 /* 1: NVIDIA, neighbours by shfl.sync (LX must be the warp, 32) */
#endif
#if SHFL
#if LX != 32
#error "SHFL needs LX = 32, one warp"
#endif
#ifndef ASM
#define ASM asm
#endif
#endif

/* The west word's high half and the east word's low half (x: this row of
 * work-items' exchange space, without SHFL); with 32-bit words, the whole
 * west and east words (both halves are the word). */
HELPER void beside(uint lo, uint hi, __local uint *x, int lane, uint *whi, uint *elo)
{
#if SHFL
    (void)x;
    (void)lane;
    ASM("shfl.sync.up.b32 %0, %1, 1, 0, -1;" : "=r"(*whi) : "r"(hi));
    ASM("shfl.sync.down.b32 %0, %1, 1, 31, -1;" : "=r"(*elo) : "r"(lo));
#else
    x[lane] = hi;
    x[LX + lane] = lo;
    barrier(CLK_LOCAL_MEM_FENCE);
    *whi = x[max(lane - 1, 0)];
    *elo = x[LX + min(lane + 1, LX - 1)];
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
}

/* NVIDIA unrolls the levels (their arrays live in registers) and three
 * steps (the window's three rows rotate by renaming, not by moves).
 * Without the shuffle the loops stay rolled: PoCL takes minutes to compile
 * the unrolled barriers, and speed there is not this kernel's point. */
#if SHFL
#define STREAM_UNROLL_LEVELS _Pragma("unroll")
#else
#define STREAM_UNROLL_LEVELS _Pragma("unroll 1")
#endif

/* A row's sums from the neighbours' halves (64-bit words) or words (32). */
#if WBITS == 64
#define STREAM_ROW_SUM row_sum3_halves
#else
#define STREAM_ROW_SUM row_sum3
#endif

/* What a row of work-items needs besides its word column. */
typedef struct {
    int lane, C;          /* work-item in the row, its word */
    int r0;               /* first row out */
    int first, lastw;     /* a mapped edge: C is the row's first / last word */
    int clampb;           /* clamp, else dead (where mapped) */
    word lowm;            /* used bits of the last word (ONES: all) */
    int store;            /* this work-item's word goes out */
} stream_col;

/* Row R of this column: plainly, or through the boundary. A dead or clamp
 * row or word outside the grid is never read (the window and the words
 * beside the edge are replaced), so any row or word does: the nearest. A
 * torus's are real cells, wrapped: plainly unless a word straddles the
 * row's end (fetch). */
HELPER word stream_load(__global const word *in, const geom *g, int R, int C, int cols,
                        const int edge)
{
    if (edge && g->hwrap && g->rem) return fetch(in, g, R, C, cols);
    if (edge) {
        R = g->vwrap ? (R % g->rows + g->rows) % g->rows : clamp(R, 0, g->rows - 1);
        C = g->hwrap ? (C % g->nw + g->nw) % g->nw : clamp(C, 0, g->nw - 1);
    }
    return in[(size_t)R * (size_t)g->nw + (size_t)C];
}

/* The rows r0-K .. r0+S+K-1 of the column through the K levels, in a loop
 * made for where the warp lies: eload, rows or words read through the
 * boundary (stream_load); hfix, the words beside a dead or clamp grid's
 * first and last fixed at every level; vfix, the rows above row 0 and
 * below the last replaced in the window; shallow, through the first
 * gens < K levels only (a row then comes out gens rows up, not K). Each
 * check costs every level of every row: a warp at the left or right edge
 * has no row to check, and most edge warps are there. */
HELPER void stream_run(__global const word *restrict in, __global word *restrict out, const geom *g,
                       const stream_col *sc, int cols, int gens, __local uint *x, const int eload,
                       const int hfix, const int vfix, const int shallow)
{
    word a0[K], a1[K], b0[K], b1[K], mid[K];
#pragma unroll
    for (int l = 0; l < K; l++)
        a0[l] = a1[l] = b0[l] = b1[l] = mid[l] = 0;
    const int rows = g->rows, nw = g->nw, C = sc->C, top = sc->r0 - K;
    const int last = eload ? INT_MAX : sc->r0 + S + K - 1; /* the last row read (plain loads) */
    word q0 = stream_load(in, g, top, C, cols, eload);
    word q1 = stream_load(in, g, min(top + 1, last), C, cols, eload);
    word q2 = stream_load(in, g, min(top + 2, last), C, cols, eload);
    const int vmap = vfix && !g->vwrap, hmap = hfix && !g->hwrap;
    /* One step: row rin in, row rin-K out. In the prologue (PRO, i < 2K)
     * level l has no valid row before step 2l and no full window before
     * step 2l+2: the levels past that are skipped, not computed. */
#define STREAM_STEP(PRO)                                                                           \
    do {                                                                                           \
        const int rin = top + i;                                                                   \
        word w = q0;                                                                               \
        q0 = q1;                                                                                   \
        q1 = q2;                                                                                   \
        q2 = stream_load(in, g, min(rin + 3, last), C, cols, eload);                               \
        STREAM_UNROLL_LEVELS for (int l = 0; l < K; l++)                                          \
        {                                                                                          \
            if ((PRO && 2 * l > i) || (shallow && l >= gens)) break;                               \
            if (hmap && sc->lastw && g->rem) /* the bits past the row's end */                     \
                w = (w & sc->lowm) |                                                               \
                    (sc->clampb && ((w >> (g->rem - 1)) & 1) ? ~sc->lowm : (word)0);               \
            const uint hlo = (uint)w, hhi = (uint)(w >> (WBITS - 32));                             \
            uint whi, elo;                                                                         \
            beside(hlo, hhi, x, sc->lane, &whi, &elo);                                             \
            if (hmap && sc->first) whi = sc->clampb && (hlo & 1) ? 0xffffffffu : 0u;               \
            if (hmap && sc->lastw && !g->rem) elo = sc->clampb ? hhi >> 31 : 0u;                   \
            word c0, c1, u0 = a0[l], u1 = a1[l], nxt = 0;                                          \
            STREAM_ROW_SUM(whi, w, elo, &c0, &c1);                                                 \
            word d0 = c0, d1 = c1;                                                                 \
            if (vmap) {                                                                            \
                const int R = rin - l - 1; /* the row this level puts out */                       \
                if (R == 0) {                                                                      \
                    u0 = sc->clampb ? b0[l] : 0;                                                   \
                    u1 = sc->clampb ? b1[l] : 0;                                                   \
                }                                                                                  \
                if (R == rows - 1) {                                                               \
                    d0 = sc->clampb ? b0[l] : 0;                                                   \
                    d1 = sc->clampb ? b1[l] : 0;                                                   \
                }                                                                                  \
            }                                                                                      \
            const int full = !PRO || i >= 2 * l + 2;                                               \
            if (full) nxt = next_word(u0, u1, b0[l], b1[l], d0, d1, mid[l], 0, 0);                 \
            a0[l] = b0[l];                                                                         \
            a1[l] = b1[l];                                                                         \
            b0[l] = c0;                                                                            \
            b1[l] = c1;                                                                            \
            mid[l] = w;                                                                            \
            w = nxt;                                                                               \
            if (!full) break;                                                                      \
        }                                                                                          \
        const int R = rin - (shallow ? gens : K); /* the row out */                                \
        if ((shallow ? R >= sc->r0 : !PRO) && sc->store && R < rows)                               \
            out[(size_t)R * (size_t)nw + (size_t)C] = (C == nw - 1) ? w & sc->lowm : w;           \
    } while (0)
    int i = 0;
#pragma unroll 1
    for (; i < 2 * K; i++)
        STREAM_STEP(1);
#if SHFL
#pragma unroll 3
#else
#pragma unroll 1
#endif
    for (; i < S + 2 * K; i++)
        STREAM_STEP(0);
#undef STREAM_STEP
}

/* One launch of K generations, or with last of gens < K (a run's last). */
HELPER void stream_launch(__global const word *restrict in, __global word *restrict out,
                          const int rows, const int cols, const int bnd, const int nw,
                          const int gens, __local uint *x, const int last)
{
    geom g;
    g.bnd = bnd;
    g.rows = rows;
    g.nw = nw;
    g.rem = cols % WBITS;
    g.vwrap = g.hwrap = bnd == B_TORUS;
    g.rbase = g.cbase = 0;
    stream_col sc;
    const int cbase = (int)get_group_id(0) * (LX - 2) - 1;
    const int gr0 = (int)get_group_id(1) * LY * S; /* the group's first row out */
    sc.lane = (int)get_local_id(0);
    sc.C = cbase + sc.lane;
    sc.r0 = gr0 + (int)get_local_id(1) * S;
    sc.first = !g.hwrap && sc.C == 0;
    sc.lastw = !g.hwrap && sc.C == nw - 1;
    sc.clampb = bnd == B_CLAMP;
    sc.lowm = g.rem ? ((word)1 << g.rem) - 1 : ONES;
    sc.store = sc.lane >= 1 && sc.lane <= LX - 2 && sc.C >= 0 && sc.C < nw;
#if SHFL
    if (sc.r0 >= rows) return; /* no barriers: a warp past the end leaves */
#endif
    /* a warp takes the loop its place needs (with SHFL: no barriers), else
     * the whole group takes the one any of its warps needs */
    const int wlast = nw - 1 - (g.hwrap && g.rem != 0); /* the last word read plainly */
#if SHFL
    const int rlo = sc.r0 - K, rhi = sc.r0 + S + K - 1;
#else
    const int rlo = gr0 - K, rhi = gr0 + LY * S + K - 1;
#endif
    const int hfix = !g.hwrap && (cbase < 0 || cbase + LX - 1 >= nw - 1);
    const int vfix = !g.vwrap && (rlo <= 0 || rhi >= rows - 1);
    const int eload =
        hfix || vfix || cbase < 0 || cbase + LX - 1 > wlast || rlo < 0 || rhi > rows - 1;
#if !SHFL /* one loop, the checks chosen at run time: PoCL compiles each loop for minutes */
    stream_run(in, out, &g, &sc, cols, gens, x, eload, hfix, vfix, last);
#else
    if (last && eload) /* a run's last launch: two loops */
        stream_run(in, out, &g, &sc, cols, gens, x, 1, 1, 1, 1);
    else if (last)
        stream_run(in, out, &g, &sc, cols, gens, x, 0, 0, 0, 1);
    else if (vfix) /* the top or bottom, corners too */
        stream_run(in, out, &g, &sc, cols, gens, x, 1, 1, 1, 0);
    else if (hfix) /* the left or right */
        stream_run(in, out, &g, &sc, cols, gens, x, 1, 1, 0, 0);
    else if (eload) /* a torus's wrapped rows or words */
        stream_run(in, out, &g, &sc, cols, gens, x, 1, 0, 0, 0);
    else
        stream_run(in, out, &g, &sc, cols, gens, x, 0, 0, 0, 0);
#endif
}

#if SHFL
#define STREAM_X __local uint *x = 0
#else
#define STREAM_X                                                                                   \
    __local uint xch[LY * 2 * LX];                                                                 \
    __local uint *x = xch + get_local_id(1) * 2 * LX
#endif

__kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void
life_stream(__global const word *restrict in, __global word *restrict out, const int rows,
            const int cols, const int bnd, const int nw, const int gens)
{
    STREAM_X;
    stream_launch(in, out, rows, cols, bnd, nw, gens, x, 0);
}

/* A launch of fewer than K generations: a kernel of its own, since its
 * loops (which stop at a depth known at run time, so the levels' registers
 * no longer rotate by renaming) need more registers than the full one's,
 * and a kernel's count is its costliest path's (in one kernel: 184-188 a
 * work-item against 168, and about 15% slower on an H200). life_stream
 * itself always advances K generations. */
__kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void
life_stream_last(__global const word *restrict in, __global word *restrict out, const int rows,
                 const int cols, const int bnd, const int nw, const int gens)
{
    STREAM_X;
    stream_launch(in, out, rows, cols, bnd, nw, gens, x, 1);
}
