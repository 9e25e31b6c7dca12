/* Life-like cellular automata: one generation of any B/S rule per cell,
 * with dead, torus or clamp boundaries. Two kernels:
 *
 * life_bytes: one byte per cell, one generation per launch. A work-group
 *   is TS_X x TS_Y work-items, one cell each. The group stages its tile plus
 *   a one-cell halo in __local memory (every work-item loads one or more of
 *   the (TS_X+2)*(TS_Y+2) cells, the halo through the boundary rule), one
 *   barrier so every cell of the tile is there before anyone reads its
 *   neighbours, then each work-item counts its 8 neighbours from local
 *   memory and writes its cell. The reference, and the fallback.
 *
 * life_bits: WBITS cells per word (bit b of word c of a row is cell
 *   c*WBITS+b, so the lowest bit is the leftmost cell); up to K generations
 *   per launch (temporal blocking). A work-group is LX x LY work-items; its
 *   extended tile is LX words by LY*S rows, held in __local memory with a
 *   zero border. Work-item (lx, ly) owns word column lx and the S rows
 *   ly*S .. ly*S+S-1 of the tile. The group's output is the interior: all but
 *   HW words on each side and all but K rows on each side. Each generation a
 *   work-item slides down its rows keeping three row sums (a bit-sliced full
 *   adder of west, centre and east), adds them into the 4-bit count of the 9
 *   cells, and applies the rule as a boolean function of the count bits.
 *   Barriers: after loading the tile (all of it is read by neighbours);
 *   after computing a generation into registers (nobody may overwrite a row
 *   someone still reads); after writing it back (the next generation reads
 *   the neighbours' new words). Wrong values creep in from the tile's border
 *   one cell per generation, so after K <= WBITS generations the interior is
 *   exact. SINGLE=1 is the whole grid in one work-group with no halo: every
 *   boundary is applied when reading, so any number of generations runs in
 *   one launch.
 *
 * life_bits1: the same words and adder network, one generation per launch
 *   straight from global memory, VW words per work-item as one vector; see
 *   its own comment below. The choice on CPUs.
 *
 * Boundaries, the kernel argument bnd: 0 dead (outside is dead), 1 torus
 * (wrap around), 2 clamp (an index past the edge is clamped to the edge, so
 * edge cells count their own edge row or column again: the MATLAB seed's
 * updateGrid). A run-time argument rather than a macro: it is only looked at
 * next to the grid's edges, and one program serves all three. In life_bits
 * the torus halo is fetched wrapped; dead and clamp are applied when reading
 * local memory in groups that touch the edge.
 *
 * The rule is compiled in (BIRTH, SURVIVE: bit n set for n neighbours) so
 * the compiler folds it into a few logic operations. */

#ifndef BIRTH
#define BIRTH 0x008 /* bit n: born with n live neighbours (B3) */
#endif
#ifndef SURVIVE
#define SURVIVE 0x00c /* bit n: survives with n live neighbours (S23) */
#endif

#ifndef LIFE_KERNEL
#define LIFE_KERNEL 0 /* 0 both kernels, 1 life_bytes only, 2 life_bits only */
#endif

#define B_DEAD 0
#define B_TORUS 1
#define B_CLAMP 2

/* ---- byte per cell --------------------------------------------------------- */
#if LIFE_KERNEL != 2

#ifndef TS_X
#define TS_X 16
#endif
#ifndef TS_Y
#define TS_Y 16
#endif

/* The cell at (y, x), which may be one past any edge. */
inline uchar cell_at(__global const uchar *in, int rows, int cols, int bnd, int y, int x)
{
    if (bnd == B_DEAD) {
        if (y < 0 || y >= rows || x < 0 || x >= cols) return 0;
    } else if (bnd == B_TORUS) {
        y = y < 0 ? y + rows : (y >= rows ? y - rows : y);
        x = x < 0 ? x + cols : (x >= cols ? x - cols : x);
    } else {
        y = clamp(y, 0, rows - 1);
        x = clamp(x, 0, cols - 1);
    }
    return in[(size_t)y * (size_t)cols + (size_t)x];
}

__kernel __attribute__((reqd_work_group_size(TS_X, TS_Y, 1))) void
life_bytes(__global const uchar *restrict in, __global uchar *restrict out, const int rows,
           const int cols, const int bnd)
{
    __local uchar tile[TS_Y + 2][TS_X + 2];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int x0 = get_group_id(0) * TS_X - 1, y0 = get_group_id(1) * TS_Y - 1;
    for (int i = ly * TS_X + lx; i < (TS_X + 2) * (TS_Y + 2); i += TS_X * TS_Y) {
        const int ty = i / (TS_X + 2), tx = i % (TS_X + 2);
        tile[ty][tx] = cell_at(in, rows, cols, bnd, y0 + ty, x0 + tx);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = x0 + 1 + lx, y = y0 + 1 + ly;
    if (x >= cols || y >= rows) return;
    const int n = tile[ly][lx] + tile[ly][lx + 1] + tile[ly][lx + 2] + tile[ly + 1][lx] +
                  tile[ly + 1][lx + 2] + tile[ly + 2][lx] + tile[ly + 2][lx + 1] +
                  tile[ly + 2][lx + 2];
    const uint table = (uint)BIRTH | ((uint)SURVIVE << 9);
    out[(size_t)y * (size_t)cols + (size_t)x] =
        (uchar)((table >> (n + 9 * tile[ly + 1][lx + 1])) & 1);
}

#endif

/* ---- bit-packed, temporally blocked ---------------------------------------- */
#if LIFE_KERNEL != 1

#ifndef WBITS
#define WBITS 32
#endif
#if WBITS == 64
typedef ulong word;
#else
typedef uint word;
#endif
#ifndef LX
#define LX 32 /* words across the extended tile (work-items in x) */
#endif
#ifndef LY
#define LY 8 /* work-items in y */
#endif
#ifndef S
#define S 8 /* rows per work-item */
#endif
#ifndef SINGLE
#define SINGLE 0
#endif
#if SINGLE
#define K 0
#define HW 0
#else
#ifndef K
#define K 8 /* halo rows: the most generations one launch may advance */
#endif
#define HW 1 /* halo words on each side */
#endif
#define ER (LY * S) /* rows of the extended tile */

#ifndef VW
#define VW 1 /* life_bits1: words per work-item, handled as one vector */
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
/* lword: what the adder network works on; a vector of VW words in
 * life_bits1 (one instruction for VW*WBITS cells on a SIMD CPU), else a word */
#if LIFE_KERNEL == 3 && VW > 1
#if WBITS == 64
typedef CAT(ulong, VW) lword;
#else
typedef CAT(uint, VW) lword;
#endif
#define VLOAD(p) CAT(vload, VW)(0, p)
#define VSTORE(v, p) CAT(vstore, VW)(v, 0, p)
#else
typedef word lword;
#define VLOAD(p) (*(p))
#define VSTORE(v, p) (*(p) = (v))
#endif

/* Helpers are plain "inline": every compiler inlines them. (PoCL 3.1 gives
 * wrong results when the ghost pass below is left out of line, as "static
 * inline" allows; the device tests catch that.) */

#define ONES ((word)0 - (word)1)
#define IN(mask, v) (((mask) >> (v)) & 1)
/* bit v: a live cell whose 3x3 block (itself included) holds v live cells
 * survives */
#define SURVIVE9 ((SURVIVE) << 1)

/* The count of the 9 cells equals v (0..9); s3 implies s2 = s1 = 0, which
 * saves literals. */
inline lword count_is(int v, lword s0, lword s1, lword s2, lword s3)
{
    const lword m0 = (v & 1) ? s0 : ~s0;
    if (v >= 8) return s3 & m0;
    const lword m2 = (v & 4) ? s2 : ~s2, m1 = (v & 2) ? s1 : ~s1;
    if (v < 2) return m2 & m1 & m0 & ~s3;
    return m2 & m1 & m0;
}

/* The next state of 32/64 cells from the count of their 3x3 block (self
 * included) and their state; constant-folded for the rule in BIRTH/SURVIVE. */
inline lword apply_rule(lword alive, lword s0, lword s1, lword s2, lword s3)
{
    lword born = (lword)(0), stay = (lword)(0);
#define TERM(v)                                                                                    \
    do {                                                                                           \
        if (IN(BIRTH, v) || IN(SURVIVE9, v)) {                                                     \
            const lword e = count_is(v, s0, s1, s2, s3);                                           \
            if (IN(BIRTH, v)) born |= e;                                                           \
            if (IN(SURVIVE9, v)) stay |= e;                                                        \
        }                                                                                          \
    } while (0)
    TERM(0);
    TERM(1);
    TERM(2);
    TERM(3);
    TERM(4);
    TERM(5);
    TERM(6);
    TERM(7);
    TERM(8);
    TERM(9);
#undef TERM
    return (alive & stay) | (~alive & born);
}

/* What the group needs to know to read its tile through the boundary. */
typedef struct {
    int bnd;          /* boundary */
    int rbase, cbase; /* grid row and word of local (0, 0) */
    int rows, nw;     /* grid rows, words per row */
    int rem;          /* cols % WBITS: used bits of the last word, 0 if all */
} geom;

/* Local word (lr, lc), lr in [-1, ER], lc in [-1, LX]; the border is 0. */
#define L(lr, lc) tile[((lr) + 1) * (LX + 2) + (lc) + 1]

/* Word C (in [-1, nw]) of a row as the boundary says, given the stored
 * word w at C (any value when C is outside), and the row's first and last
 * words. Only the bits next to the grid's cells matter outside it: the top
 * bit of word -1 and the bits past the last cell. */
inline word fix_word(int bnd, int C, word w, word first, word lastw, int nw, int rem)
{
    const int last = rem ? rem - 1 : WBITS - 1; /* bit of the row's last cell */
    if (C < 0) {
        if (bnd == B_DEAD) return 0;
        if (bnd == B_CLAMP) return (first & 1) ? ONES : 0;
        return lastw << (WBITS - 1 - last);
    }
    if (C >= nw) {
        if (bnd == B_DEAD) return 0;
        if (bnd == B_CLAMP) return ((lastw >> last) & 1) ? ONES : 0;
        return first;
    }
    if (C == nw - 1 && rem) {
        const word low = ((word)1 << rem) - 1;
        if (bnd == B_DEAD)
            w &= low;
        else if (bnd == B_CLAMP)
            w = (w & low) | (((w >> last) & 1) ? ~low : 0);
        else
            w = (w & low) | (first << rem);
    }
    return w;
}

/* Two-bit sums (s0 + 2*s1) of the west, centre and east neighbours of
 * every cell of word c, with l and r the words beside it. */
inline void row_sum3(lword l, lword c, lword r, lword *s0, lword *s1)
{
    const lword w = (c << 1) | (l >> (WBITS - 1));
    const lword e = (c >> 1) | (r << (WBITS - 1));
    const lword t = w ^ c;
    *s0 = t ^ e;
    *s1 = (w & c) | (e & t);
}

/* The next state from the row sums above (a), here (b) and below (c): a
 * bit-sliced adder makes the 4-bit count of each 3x3 block. */
inline lword next_word(lword a0, lword a1, lword b0, lword b1, lword c0, lword c1, lword alive)
{
    const lword t0 = a0 ^ b0, t1 = a1 ^ b1;
    const lword s0 = t0 ^ c0, k0 = (a0 & b0) | (c0 & t0); /* weight 1, carry 2 */
    const lword x = t1 ^ c1, y = (a1 & b1) | (c1 & t1);   /* weight 2, carry 4 */
    const lword s1 = x ^ k0, z = x & k0;
    return apply_rule(alive, s0, s1, y ^ z, y & z);
}

#if LIFE_KERNEL != 3
/* The local row that holds grid row R's cells under the boundary, for R
 * one past the top or bottom edge (clamp, or a torus in one group). */
inline int source_row(const geom *g, int R)
{
    if (g->bnd == B_CLAMP)
        R = R < 0 ? 0 : g->rows - 1;
    else
        R = R < 0 ? R + g->rows : R - g->rows;
    return R - g->rbase;
}

/* Makes local cell (lr, lc) what the boundary says, if it is a ghost: one
 * row or word past the grid (rows -1 and H, words -1 and nw), or the
 * unused bits of a row's last word. Ghosts are the only outside cells that
 * inside cells read. Only word 0 of a row is read besides the cell itself,
 * and bit 'last' of word nw-1: neither is changed by this pass, and fixing a
 * last word twice gives the same word, so the pass needs no barrier inside. */
inline void fix_ghost(__local word *tile, const geom *g, int lr, int lc)
{
    const int R = g->rbase + lr, C = g->cbase + lc, nw = g->nw;
    const int ghost_row = R == -1 || R == g->rows, inside_row = R >= 0 && R < g->rows;
    if (C < -1 || C > nw || !(ghost_row || (inside_row && (C == -1 || C >= nw - 1)))) return;
    if (ghost_row && g->bnd == B_DEAD) {
        L(lr, lc) = 0;
        return;
    }
    const int src = ghost_row ? source_row(g, R) : lr;
    const int lc0 = -g->cbase, lcl = nw - 1 - g->cbase; /* words 0 and nw-1 */
    const word first = lc0 >= 0 && lc0 < LX ? L(src, lc0) : 0;
    const word lastw = lcl >= 0 && lcl < LX ? L(src, lcl) : 0;
    L(lr, lc) = fix_word(g->bnd, C, L(src, lc), first, lastw, nw, g->rem);
}

/* The ghosts among this work-item's cells; the work-items on the tile's
 * sides also take the zero border beside them, where a group alone has
 * its ghosts. */
inline void fix_ghosts(__local word *tile, const geom *g, int lr0, int lx, int ly)
{
    const int r_lo = ly == 0 ? -1 : lr0, r_hi = ly == LY - 1 ? ER : lr0 + S - 1;
    const int c_lo = lx == 0 ? -1 : lx, c_hi = lx == LX - 1 ? LX : lx;
    for (int lr = r_lo; lr <= r_hi; lr++)
        for (int lc = c_lo; lc <= c_hi; lc++)
            fix_ghost(tile, g, lr, lc);
}

/* Row sums of local row lr at column lc; *mid receives the centre word. */
inline void row_sum(__local const word *tile, int lr, int lc, word *s0, word *s1, word *mid)
{
    const word c = L(lr, lc);
    row_sum3(L(lr, lc - 1), c, L(lr, lc + 1), s0, s1);
    *mid = c;
}

/* Word C of row R of the input for the tile; outside cells as the
 * boundary says (dead and clamp: anything, they are never read). */
inline word fetch(__global const word *in, int bnd, int R, int C, int rows, int nw, int cols)
{
    if (bnd != B_TORUS) {
        if (R < 0 || R >= rows || C < 0 || C >= nw) return 0;
        return in[(size_t)R * (size_t)nw + (size_t)C];
    }
    if (R < 0 || R >= rows) { /* the modulo only for halo rows */
        R %= rows;
        R = R < 0 ? R + rows : R;
    }
    __global const word *row = in + (size_t)R * (size_t)nw;
    const int rem = cols % WBITS;
    if (C >= 0 && (C < nw - 1 || (C == nw - 1 && rem == 0))) return row[C];
    if (rem == 0) {
        C %= nw;
        return row[C < 0 ? C + nw : C];
    }
    word v = 0; /* the word straddles the wrap: gather bit by bit */
    for (int b = 0; b < WBITS; b++) {
        long x = ((long)C * WBITS + b) % cols;
        x = x < 0 ? x + cols : x;
        v |= ((row[x / WBITS] >> (x % WBITS)) & 1) << b;
    }
    return v;
}

__kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void
life_bits(__global const word *restrict in, __global word *restrict out, const int rows,
          const int cols, const int bnd, const int nw, const int gens)
{
    __local word tile[(ER + 2) * (LX + 2)];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int c0 = get_group_id(0) * (LX - 2 * HW), r0 = get_group_id(1) * (ER - 2 * K);
    geom g;
    g.bnd = bnd;
    g.rbase = r0 - K;
    g.cbase = c0 - HW;
    g.rows = rows;
    g.nw = nw;
    g.rem = cols % WBITS;
    const int lr0 = ly * S;

    /* zero the border, load the extended tile */
    for (int i = ly * LX + lx; i < (ER + 2) * (LX + 2); i += LX * LY)
        tile[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 0; s < S; s++)
        L(lr0 + s, lx) = fetch(in, bnd, g.rbase + lr0 + s, g.cbase + lx, rows, nw, cols);
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Groups whose tile reaches past the grid set its ghosts after every
     * generation (and after loading), so reading is plain everywhere. A
     * torus halo is fetched wrapped: only a group alone (SINGLE) has torus
     * ghosts. The flag is the group's, so its barriers are uniform. */
    const int C = g.cbase + lx;
    const int edge = (bnd != B_TORUS || SINGLE) && (g.rbase <= 0 || g.rbase + ER >= rows ||
                                                    g.cbase <= 0 || g.cbase + LX >= nw - 1);
    if (edge) {
        fix_ghosts(tile, &g, lr0, lx, ly);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int gen = 0; gen < gens; gen++) {
        /* the next generation of this work-item's S words, in registers; the
         * array is the kernel's own (not a callee's), as it lives across a
         * barrier */
        word nv[S], a0, a1, b0, b1, c0, c1, alive, nxt, unused;
        row_sum(tile, lr0 - 1, lx, &a0, &a1, &unused);
        row_sum(tile, lr0, lx, &b0, &b1, &alive);
#pragma unroll
        for (int s = 0; s < S; s++) {
            row_sum(tile, lr0 + s + 1, lx, &c0, &c1, &nxt);
            nv[s] = next_word(a0, a1, b0, b1, c0, c1, alive);
            a0 = b0;
            a1 = b1;
            b0 = c0;
            b1 = c1;
            alive = nxt;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (int s = 0; s < S; s++)
            L(lr0 + s, lx) = nv[s];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (edge) {
            fix_ghosts(tile, &g, lr0, lx, ly);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }

    /* the interior goes out, without the unused bits of each row's last word */
    if (lx < HW || lx >= LX - HW || C >= nw) return;
    const word keep = (C == nw - 1 && g.rem) ? ((word)1 << g.rem) - 1 : ONES;
    for (int s = 0; s < S; s++) {
        const int lr = lr0 + s, R = g.rbase + lr;
        if (lr >= K && lr < ER - K && R < rows)
            out[(size_t)R * (size_t)nw + (size_t)C] = L(lr, lx) & keep;
    }
}
#endif /* LIFE_KERNEL != 3 */

/* ---- bit-packed, one generation per launch, straight from global memory ---- */
/* life_bits1: work-item (x, y) owns VW words from word x*VW, as one vector,
 * in the S rows from y*S, and slides down them keeping three row sums. No
 * local memory and no barrier: on a CPU the caches do the tile's work, the
 * work-items run without the synchronisation a barrier costs there, and the
 * vectors fill the SIMD registers. */
#if LIFE_KERNEL == 3

/* Row sums of grid row R for the VW words from C0 through the boundary
 * (edge: the words or their neighbours reach either end of the row). *mid
 * receives the centre words. */
inline void grid_row_sum(__global const word *in, int bnd, int rows, int nw, int rem, int R, int C0,
                         int edge, lword *s0, lword *s1, lword *mid)
{
    if (R < 0 || R >= rows) {
        if (bnd == B_DEAD) {
            *s0 = *s1 = *mid = (lword)(0);
            return;
        }
        if (bnd == B_CLAMP)
            R = R < 0 ? 0 : rows - 1;
        else
            R = R < 0 ? R + rows : R - rows;
    }
    __global const word *row = in + (size_t)R * (size_t)nw;
    lword l, c, r;
    if (edge) {
        word a[VW + 2];
        const word first = row[0], lastw = row[nw - 1];
        for (int i = 0; i < VW + 2; i++) {
            const int C = C0 - 1 + i;
            a[i] = fix_word(bnd, C, (C >= 0 && C < nw) ? row[C] : 0, first, lastw, nw, rem);
        }
        l = VLOAD(a);
        c = VLOAD(a + 1);
        r = VLOAD(a + 2);
    } else {
        l = VLOAD(row + C0 - 1);
        c = VLOAD(row + C0);
        r = VLOAD(row + C0 + 1);
    }
    row_sum3(l, c, r, s0, s1);
    *mid = c;
}

/* Stores the VW words from C0 of row R, the ones inside the row only, the
 * last without its unused bits. */
inline void store_edge(__global word *out, int nw, int rem, int R, int C0, lword v)
{
    word a[VW];
    VSTORE(v, a);
    for (int i = 0; i < VW && C0 + i < nw; i++) {
        const int C = C0 + i;
        const word keep = (C == nw - 1 && rem) ? ((word)1 << rem) - 1 : ONES;
        out[(size_t)R * (size_t)nw + (size_t)C] = a[i] & keep;
    }
}

__kernel void life_bits1(__global const word *restrict in, __global word *restrict out,
                         const int rows, const int cols, const int bnd, const int nw)
{
    const int C0 = get_global_id(0) * VW, r0 = get_global_id(1) * S;
    if (C0 >= nw || r0 >= rows) return;
    const int rem = cols % WBITS, edge = C0 == 0 || C0 + VW >= nw;
    const int rend = min(r0 + S, rows);
    lword a0, a1, b0, b1, c0, c1, alive, nxt, unused;
    grid_row_sum(in, bnd, rows, nw, rem, r0 - 1, C0, edge, &a0, &a1, &unused);
    grid_row_sum(in, bnd, rows, nw, rem, r0, C0, edge, &b0, &b1, &alive);
    for (int R = r0; R < rend; R++) {
        grid_row_sum(in, bnd, rows, nw, rem, R + 1, C0, edge, &c0, &c1, &nxt);
        const lword v = next_word(a0, a1, b0, b1, c0, c1, alive);
        if (edge)
            store_edge(out, nw, rem, R, C0, v);
        else
            VSTORE(v, out + (size_t)R * (size_t)nw + (size_t)C0);
        a0 = b0;
        a1 = b1;
        b0 = c0;
        b1 = c1;
        alive = nxt;
    }
}
#endif
#endif
