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
 *   extended tile is TW = LX*VX words by ER = LY*S rows in __local memory
 *   (two of them when DBUF), with a spare row above and below that only
 *   rows nobody needs read. Work-item (lx, ly) owns the VX words from
 *   column lx*VX (one vector) in the S rows ly*S .. ly*S+S-1. The group's
 *   output is the interior: all but HW words on each side and all but K
 *   rows on each side. Each generation a work-item slides down its rows
 *   keeping three row sums (a bit-sliced full adder of west, centre and
 *   east), adds them into the 4-bit count of the 9 cells, and applies the
 *   rule as a boolean function of the count bits. Wrong values creep in
 *   from the tile's sides one cell per generation, so after K generations
 *   the interior is exact; rows the creep has reached are not computed.
 *   Barriers: after loading the tile (all of it is read by neighbours);
 *   with DBUF, after each generation (it reads one buffer and writes the
 *   other: the next generation reads the neighbours' new words); without,
 *   after computing a generation into registers (nobody may overwrite a
 *   row someone still reads) and after writing it back.
 *   Three shapes: tiles (HW = 1 halo word each side, K <= WBITS); FULLW,
 *   bands of whole rows (no halo words, so K is bound only by the rows);
 *   SINGLE, the whole grid in one work-group with no halo, every
 *   generation of a run in one launch.
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
 * a torus halo is fetched wrapped (rows unless one group holds the whole
 * grid, words in tiles); the rest is applied when reading local memory:
 * groups whose tile reaches the grid's edge read every row through
 * per-work-item masks and a row redirect (with vectors, VX > 1, only the
 * work-items at the edge, word by word), the others read plainly. Cells
 * outside the grid are computed like any other but never read.
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
#define LIFE_KERNEL 0 /* 0 both kernels, 1 life_bytes only, 2 life_bits only, 3 life_bits1
                         (and life_bytes), 4 life_peak only */
#endif

#define B_DEAD 0
#define B_TORUS 1
#define B_CLAMP 2
#define B_MAPPED 3 /* life_bytes: Golly's other bounded grids, from the TOPO macros */

/* ---- byte per cell --------------------------------------------------------- */
#if LIFE_KERNEL != 2 && LIFE_KERNEL != 4

#ifndef TS_X
#define TS_X 16
#endif
#ifndef TS_Y
#define TS_Y 16
#endif

#ifndef NBHD
#define NBHD 0 /* 0 Moore, 1 hexagonal (no NE, SW), 2 von Neumann (N, S, E, W) */
#endif

#ifdef TOPO
/* Golly's bounded grids beyond dead, torus and clamp (Help/bounded.html):
 * TOPO 1 torus, 3 Klein bottle, 4 cross-surface, 5 sphere; SHIFT_H and
 * TWIST_H act when crossing the top or bottom edge, SHIFT_V and TWIST_V the
 * sides; OPEN_X, OPEN_Y: no edge that way (dead past it). The host's
 * tdcl_life_edge_map is the same map. */
inline int wrapi(int i, int n)
{
    i %= n;
    return i < 0 ? i + n : i;
}

inline uchar cell_mapped(__global const uchar *in, int rows, int cols, int y, int x)
{
    const int yo = y < 0 || y >= rows, xo = x < 0 || x >= cols;
    if (yo && xo && (TOPO == 4 || TOPO == 5)) { /* corners see the corner cell */
        y = clamp(y, 0, rows - 1);
        x = clamp(x, 0, cols - 1);
    } else if (TOPO == 5 && (yo || xo)) { /* top joined to left, right to bottom */
        const int t = yo ? x : y;
        if (yo) {
            x = y < 0 ? 0 : cols - 1;
            y = t;
        } else {
            y = x < 0 ? 0 : rows - 1;
            x = t;
        }
    } else {
        if (yo) {
            if (OPEN_Y) return 0;
            x = TWIST_H ? cols - 1 - x - SHIFT_H : x + (y < 0 ? -SHIFT_H : SHIFT_H);
            y = wrapi(y, rows);
        }
        if (x < 0 || x >= cols) {
            if (OPEN_X) return 0;
            y = TWIST_V ? wrapi(rows - 1 - y - SHIFT_V, rows)
                        : wrapi(y + (x < 0 ? -SHIFT_V : SHIFT_V), rows);
            x = wrapi(x, cols);
        }
    }
    return in[(size_t)y * (size_t)cols + (size_t)x];
}
#endif

/* The cell at (y, x), which may be one past any edge. */
inline uchar cell_at(__global const uchar *in, int rows, int cols, int bnd, int y, int x)
{
#ifdef TOPO
    if (bnd == B_MAPPED) return cell_mapped(in, rows, cols, y, x);
#endif
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
#if NBHD == 2
    const int n = tile[ly][lx + 1] + tile[ly + 1][lx] + tile[ly + 1][lx + 2] + tile[ly + 2][lx + 1];
#elif NBHD == 1
    const int n = tile[ly][lx] + tile[ly][lx + 1] + tile[ly + 1][lx] + tile[ly + 1][lx + 2] +
                  tile[ly + 2][lx + 1] + tile[ly + 2][lx + 2];
#else
    const int n = tile[ly][lx] + tile[ly][lx + 1] + tile[ly][lx + 2] + tile[ly + 1][lx] +
                  tile[ly + 1][lx + 2] + tile[ly + 2][lx] + tile[ly + 2][lx + 1] +
                  tile[ly + 2][lx + 2];
#endif
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
#define WTYPE ulong
#else
typedef uint word;
#define WTYPE uint
#endif
#ifndef LX
#define LX 32 /* work-items in x */
#endif
#ifndef LY
#define LY 8 /* work-items in y */
#endif
#ifndef S
#define S 16 /* rows per work-item */
#endif
#ifndef VX
#define VX 1 /* life_bits: words per work-item across, one vector (1, 2 or 4) */
#endif
#ifndef DBUF
#define DBUF 1 /* life_bits: two tile buffers, one barrier per generation */
#endif
#ifndef SINGLE
#define SINGLE 0 /* life_bits: the whole grid in one group */
#endif
#ifndef FULLW
#define FULLW SINGLE /* life_bits: whole rows in every group */
#endif
#if SINGLE
#undef K
#define K 0
#endif
#ifndef K
#define K 4 /* halo rows: the most generations one launch may advance */
#endif
#if FULLW
#define HW 0
#else
#define HW 1 /* halo words on each side */
#endif
#define TW (LX * VX)         /* words across the tile */
#define ER (LY * S)          /* rows of the tile */
#define BUFW ((ER + 2) * TW) /* words of one buffer, the spare rows included */

#ifndef VW
#define VW 1 /* life_bits1: words per work-item, handled as one vector */
#endif
#if LIFE_KERNEL >= 3
#define NV VW
#else
#define NV VX
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
/* lword: what the adder network works on, NV words as one vector (one
 * instruction for NV*WBITS cells on a SIMD CPU; fewer loads and more
 * independent work per work-item on a GPU) */
#if NV > 1
typedef CAT(WTYPE, NV) lword;
#define VLOAD(p) CAT(vload, NV)(0, p)
#define VSTORE(v, p) CAT(vstore, NV)(v, 0, p)
#else
typedef word lword;
#define VLOAD(p) (*(p))
#define VSTORE(v, p) (*(p) = (v))
#endif

/* Helpers are plain "inline": every compiler inlines them. (PoCL 3.1 gave
 * wrong results when a helper of life_bits was left out of line, as
 * "static inline" allows; the device tests catch that.) */

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

#ifndef NBHD
#define NBHD 0 /* 0 Moore, 1 hexagonal (no NE, SW), 2 von Neumann (N, S, E, W) */
#endif

#if NBHD == 0
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
#else
/* Hexagonal and von Neumann: a row's part depends on whether it is above,
 * at or below the cell, so a row keeps its west and east neighbour words
 * (s0, s1) beside its centre (the caller's mid), and next_word adds what
 * each role needs. */
inline void row_sum3(lword l, lword c, lword r, lword *s0, lword *s1)
{
    *s0 = (c << 1) | (l >> (WBITS - 1));
    *s1 = (c >> 1) | (r << (WBITS - 1));
}

/* Adds x into the bit-sliced 3-bit counter s0 + 2 s1 + 4 s2 (at most 7). */
#define ADD3(x)                                                                                    \
    do {                                                                                           \
        const lword k0 = s0 & (x);                                                                 \
        s0 ^= (x);                                                                                 \
        s2 |= s1 & k0;                                                                             \
        s1 ^= k0;                                                                                  \
    } while (0)
#endif

/* The next state from the row sums above (a), here (b) and below (c): a
 * bit-sliced adder makes the 4-bit count of each 3x3 block. amid and cmid
 * are the centre words of the rows above and below (hexagonal and von
 * Neumann only; Moore's compiler drops them). */
inline lword next_word(lword a0, lword a1, lword b0, lword b1, lword c0, lword c1, lword alive,
                       lword amid, lword cmid)
{
#if NBHD != 0
    /* the count includes the cell itself, as SURVIVE9 expects: von Neumann
     * N + S + W + E + C; hexagonal NW + N + W + C + E + S + SE */
    lword s0 = (lword)(0), s1 = (lword)(0), s2 = (lword)(0);
    (void)a1;
    (void)c0;
    ADD3(amid);
    ADD3(cmid);
    ADD3(b0);
    ADD3(b1);
    ADD3(alive);
#if NBHD == 1
    ADD3(a0);
    ADD3(c1);
#else
    (void)a0;
    (void)c1;
#endif
    return apply_rule(alive, s0, s1, s2, (lword)(0));
#else
    (void)amid;
    (void)cmid;
    const lword t0 = a0 ^ b0, t1 = a1 ^ b1;
    const lword s0 = t0 ^ c0, k0 = (a0 & b0) | (c0 & t0); /* weight 1, carry 2 */
    const lword x = t1 ^ c1, y = (a1 & b1) | (c1 & t1);   /* weight 2, carry 4 */
    const lword s1 = x ^ k0, z = x & k0;
    return apply_rule(alive, s0, s1, y ^ z, y & z);
#endif
}
#if LIFE_KERNEL == 0 || LIFE_KERNEL == 2

/* What a work-group needs to read its tile through the boundary. */
typedef struct {
    int bnd;          /* boundary */
    int rbase, cbase; /* grid row and word of tile (0, 0) */
    int rows, nw;     /* grid rows, words per row */
    int rem;          /* cols % WBITS: used bits of the last word, 0 if all */
    int vwrap, hwrap; /* a torus's rows / words are fetched wrapped: real cells */
} geom;

/* Tile word (lr, x) of buffer t; lr in [-1, ER], x in [0, TW). */
#define T(t, lr, x) (t)[((lr) + 1) * TW + (x)]

/* the NV words from x0 as one vector (aligned: x0 and TW are multiples of NV) */
#define TV(t, lr, x0) (*(__local lword *)&T(t, lr, x0))

/* The NV words west (left) and east (right) of c, given the word beyond
 * each end. */
#if NV == 1
#define WEST_OF(left, c) (left)
#define EAST_OF(c, right) (right)
#elif NV == 2
#define WEST_OF(left, c) ((lword)((left), (c).s0))
#define EAST_OF(c, right) ((lword)((c).s1, (right)))
#elif NV == 4
#define WEST_OF(left, c) ((lword)((left), (c).s012))
#define EAST_OF(c, right) ((lword)((c).s123, (right)))
#endif

/* n (1 .. WBITS) cells of a row from cell x on (x + n <= the row's cells),
 * in the low bits. */
inline word cells_at(__global const word *row, int nw, int x, int n)
{
    const int i = x / WBITS, b = x % WBITS;
    word v = row[i] >> b;
    if (b && i + 1 < nw) v |= row[i + 1] << (WBITS - b);
    return n < WBITS ? v & (((word)1 << n) - 1) : v;
}

/* Word C of grid row R for the tile. What the tile takes wrapped (g->vwrap,
 * g->hwrap) is fetched wrapped; anything else outside the grid is 0 and
 * never read as a cell. */
inline word fetch(__global const word *in, const geom *g, int R, int C, int cols)
{
    const int rows = g->rows, nw = g->nw;
    if (R < 0 || R >= rows) {
        if (!g->vwrap) return 0;
        R %= rows;
        R = R < 0 ? R + rows : R;
    }
    __global const word *row = in + (size_t)R * (size_t)nw;
    if (C >= 0 && C < nw && !(g->hwrap && C == nw - 1 && g->rem)) return row[C];
    if (!g->hwrap) return 0;
    if (g->rem == 0) {
        C %= nw;
        return row[C < 0 ? C + nw : C];
    }
    /* the word straddles the wrap: its cells from the first on, in pieces
     * that end at the row's end (two unless the row is narrower than a
     * word; a rolled loop of few registers, since the kernel's register
     * count is its costliest path's) */
    int x = (int)(((long)C * WBITS) % cols);
    x = x < 0 ? x + cols : x;
    word v = 0;
#pragma unroll 1
    for (int got = 0; got < WBITS; x = 0) {
        const int n = min(WBITS - got, cols - x);
        v |= cells_at(row, nw, x, n) << got;
        got += n;
    }
    return v;
}

/* Row sums of the NV words from x0 in tile row lr, read plainly; xl and
 * xr are the columns west and east of them, clamped into the tile. */
inline void sums_plain(__local const word *t, int lr, int x0, int xl, int xr, lword *s0, lword *s1,
                       lword *mid)
{
    const lword c = TV(t, lr, x0);
    row_sum3(WEST_OF(T(t, lr, xl), c), c, EAST_OF(c, T(t, lr, xr)), s0, s1);
    *mid = c;
}

/* The same through the boundary, for a work-item next to the grid's edge:
 * a row past the top or bottom, a word past either end and the unused
 * bits of a row's last word are what the boundary says (unless the tile
 * holds them wrapped). */
inline void sums_mapped(__local const word *t, const geom *g, int lr, int x0, lword *s0, lword *s1,
                        lword *mid)
{
    const int R = g->rbase + lr, C0 = g->cbase + x0;
    if (!g->vwrap && (R < 0 || R >= g->rows)) {
        if (g->bnd == B_DEAD) {
            *s0 = *s1 = *mid = (lword)(0);
            return;
        }
        const int src =
            g->bnd == B_CLAMP ? clamp(R, 0, g->rows - 1) : (R < 0 ? R + g->rows : R - g->rows);
        lr = clamp(src - g->rbase, -1, ER); /* past the tile: a row nobody needs */
    }
    word a[NV + 2];
    for (int i = 0; i < NV + 2; i++)
        a[i] = T(t, lr, clamp(x0 - 1 + i, 0, TW - 1));
    if (!g->hwrap && (C0 - 1 < 0 || C0 + NV >= g->nw - 1)) {
        const word first = T(t, lr, clamp(-g->cbase, 0, TW - 1));
        const word lastw = T(t, lr, clamp(g->nw - 1 - g->cbase, 0, TW - 1));
        for (int i = 0; i < NV + 2; i++)
            a[i] = fix_word(g->bnd, C0 - 1 + i, a[i], first, lastw, g->nw, g->rem);
    }
    const lword c = VLOAD(a + 1);
    row_sum3(VLOAD(a), c, VLOAD(a + 2), s0, s1);
    *mid = c;
}

/* How a work-item of a group at the grid's edge (one word per work-item)
 * reads a row through the boundary, with no branch: a row past the top or
 * bottom is read from another (dead: the spare zero row; clamp: the edge
 * row; a torus in one group: the far edge row), and the words west, centre
 * and east are masked and filled: kept bits, then bits of the centre word
 * (clamp) or of one more word e (a torus in whole rows: the row's last
 * word for the west end, its first for the east end). Work-items away from
 * the edges get masks that keep everything. */
typedef struct {
    int gt, gb, vt, vb; /* tile rows of grid rows -1 and `rows`, and where to read them */
    int xe, last, rem;  /* the column of e; the bit of the row's last cell; cols % WBITS */
    word lm, cm, rm;    /* kept bits of west, centre, east */
    word fl_c, fl_e;    /* west: from the centre's bit 0 (clamp), from e (torus) */
    word fc_b, fc_e;    /* centre: from its last cell (clamp), from e (torus) */
    word fr_c, fr_e;    /* east: from the centre's top bit (clamp), from e (torus) */
} edge_masks;

inline void edge_setup(edge_masks *m, const geom *g, int x0)
{
    const int C = g->cbase + x0, nw = g->nw, rem = g->rem, hmap = !g->hwrap, vmap = !g->vwrap;
    const int lo = hmap && C - 1 < 0, lastw = hmap && C == nw - 1 && rem,
              hi = hmap && C + 1 > nw - 1;
    const int clampb = g->bnd == B_CLAMP, torus = g->bnd == B_TORUS;
    const word lowm = rem ? ((word)1 << rem) - 1 : ONES;
    m->last = rem ? rem - 1 : WBITS - 1;
    m->rem = rem;
    m->xe = clamp(lo ? nw - 1 - g->cbase : -g->cbase, 0, TW - 1);
    m->lm = lo ? 0 : ONES;
    m->cm = lastw ? lowm : ONES;
    m->rm = hi ? 0 : ONES;
    m->fl_c = lo && clampb ? ONES : 0;
    m->fl_e = lo && torus ? ONES : 0;
    m->fc_b = lastw && clampb ? ~lowm : 0;
    m->fc_e = lastw && torus ? ~lowm : 0;
    m->fr_c = hi && clampb ? 1 : 0;
    m->fr_e = hi && torus ? ONES : 0;
    const int never = -1000000; /* no tile row: rows are -1 .. ER */
    m->gt = vmap ? -1 - g->rbase : never;
    m->gb = vmap ? g->rows - g->rbase : never;
    m->vt = clamp(g->bnd == B_DEAD ? -1 : clampb ? m->gt + 1 : g->rows - 1 - g->rbase, -1, ER);
    m->vb = clamp(g->bnd == B_DEAD ? -1 : clampb ? m->gb - 1 : -g->rbase, -1, ER);
}

#if NV == 1
inline void sums_edge(__local const word *t, const edge_masks *m, int lr, int x0, int xl, int xr,
                      word *s0, word *s1, word *mid)
{
    lr = lr == m->gt ? m->vt : (lr == m->gb ? m->vb : lr);
    const word l = T(t, lr, xl), c = T(t, lr, x0), r = T(t, lr, xr), e = T(t, lr, m->xe);
    const word lf =
        (l & m->lm) | ((c << (WBITS - 1)) & m->fl_c) | ((e << (WBITS - 1 - m->last)) & m->fl_e);
    const word cf =
        (c & m->cm) | (((word)0 - ((c >> m->last) & 1)) & m->fc_b) | ((e << m->rem) & m->fc_e);
    const word rf = (r & m->rm) | ((c >> (WBITS - 1)) & m->fr_c) | (e & m->fr_e);
    row_sum3(lf, cf, rf, s0, s1);
    *mid = cf;
}
#endif

/* Row sums of tile row lr read plainly (how 0), through the edge masks
 * (how 1, one word per work-item) or mapped word by word (how 2). */
inline void sums(__local const word *t, const geom *g, const edge_masks *m, int how, int lr, int x0,
                 int xl, int xr, lword *s0, lword *s1, lword *mid)
{
    (void)m;
#if NV == 1
    if (how == 1) {
        sums_edge(t, m, lr, x0, xl, xr, s0, s1, mid);
        return;
    }
#endif
    if (how == 2)
        sums_mapped(t, g, lr, x0, s0, s1, mid);
    else
        sums_plain(t, lr, x0, xl, xr, s0, s1, mid);
}

/* The next generation of this work-item's S rows of NV words, read from
 * buffer t: with DBUF straight into buffer dst, else into nv (an array of
 * the kernel's own: it lives across a barrier). how is a constant at each
 * call, so each way of reading gets a loop of its own (a branch per row,
 * or both ways of it evaluated, costs the common case registers and
 * time). */
inline void item_step(__local const word *t, __local word *dst, const geom *g, const edge_masks *m,
                      const int how, int lr0, int x0, int xl, int xr, lword *nv)
{
    lword a0, a1, b0, b1, c0, c1, alive, nxt, amid;
    (void)nv;
    sums(t, g, m, how, lr0 - 1, x0, xl, xr, &a0, &a1, &amid);
    sums(t, g, m, how, lr0, x0, xl, xr, &b0, &b1, &alive);
    if (how == 2 && DBUF) { /* rare and long: rolled, few registers */
#pragma unroll 1
        for (int s = 0; s < S; s++) {
            sums(t, g, m, 2, lr0 + s + 1, x0, xl, xr, &c0, &c1, &nxt);
            TV(dst, lr0 + s, x0) = next_word(a0, a1, b0, b1, c0, c1, alive, amid, nxt);
            a0 = b0;
            a1 = b1;
            b0 = c0;
            b1 = c1;
            amid = alive;
            alive = nxt;
        }
        return;
    }
#pragma unroll
    for (int s = 0; s < S; s++) {
        sums(t, g, m, how, lr0 + s + 1, x0, xl, xr, &c0, &c1, &nxt);
        const lword v = next_word(a0, a1, b0, b1, c0, c1, alive, amid, nxt);
#if DBUF
        TV(dst, lr0 + s, x0) = v;
#else
        nv[s] = v;
#endif
        a0 = b0;
        a1 = b1;
        b0 = c0;
        b1 = c1;
        amid = alive;
        alive = nxt;
    }
}

__kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void
life_bits(__global const word *restrict in, __global word *restrict out, const int rows,
          const int cols, const int bnd, const int nw, const int gens)
{
    __local lword tile_v[(DBUF ? 2 : 1) * BUFW / NV];
    __local word *tile = (__local word *)tile_v;
    const int lx = get_local_id(0), ly = get_local_id(1);
    geom g;
    g.bnd = bnd;
    g.rbase = (int)get_group_id(1) * (ER - 2 * K) - K;
    g.cbase = (int)get_group_id(0) * (TW - 2 * HW) - HW;
    g.rows = rows;
    g.nw = nw;
    g.rem = cols % WBITS;
    g.vwrap = !SINGLE && bnd == B_TORUS;
    g.hwrap = !FULLW && bnd == B_TORUS;
    const int x0 = lx * NV, lr0 = ly * S, C0 = g.cbase + x0;
    const int xl = max(x0 - 1, 0), xr = min(x0 + NV, TW - 1);

    /* load the tile: plain loads where all of this work-item's words are
     * the grid's (unrolled, all in flight at once), else through fetch
     * (rolled: rare, and its registers would count for every work-item);
     * the spare rows get zeros, in both buffers */
    const int R0 = g.rbase + lr0;
    if (R0 >= 0 && R0 + S <= rows && C0 >= 0 && C0 + NV <= nw - (g.hwrap && g.rem != 0)) {
#pragma unroll
        for (int s = 0; s < S; s++)
            for (int i = 0; i < NV; i++)
                T(tile, lr0 + s, x0 + i) = in[(size_t)(R0 + s) * (size_t)nw + (size_t)(C0 + i)];
    } else {
#pragma unroll 1
        for (int s = 0; s < S; s++)
            for (int i = 0; i < NV; i++)
                T(tile, lr0 + s, x0 + i) = fetch(in, &g, R0 + s, C0 + i, cols);
    }
    for (int i = 0; i < NV && (ly == 0 || ly == LY - 1); i++)
        for (int b = 0; b < (DBUF ? 2 : 1); b++) {
            if (ly == 0) T(tile + b * BUFW, -1, x0 + i) = 0;
            if (ly == LY - 1) T(tile + b * BUFW, ER, x0 + i) = 0;
        }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* How to read: groups whose tile reaches the grid's edge (what the tile
     * holds wrapped aside) read every row through edge masks, the same
     * loop for all their work-items; with vectors, only the work-items at
     * the edge map their words one by one. The rest read plainly. */
    edge_masks m;
    edge_setup(&m, &g, x0);
#if NV == 1
    const int how = (!g.vwrap && (g.rbase <= 0 || g.rbase + ER >= rows)) ||
                            (!g.hwrap && (g.cbase <= 0 || g.cbase + TW - 1 >= nw - 1))
                        ? 1
                        : 0;
#else
    const int how = (!g.vwrap && (g.rbase + lr0 - 1 < 0 || g.rbase + lr0 + S >= rows)) ||
                            (!g.hwrap && (C0 - 1 < 0 || C0 + NV >= nw - 1))
                        ? 2
                        : 0;
#endif
    for (int gen = 0; gen < gens; gen++) {
        __local const word *src = tile + (DBUF ? (gen & 1) * BUFW : 0);
        __local word *dst = tile + (DBUF ? ((gen + 1) & 1) * BUFW : 0);
        /* rows the creep from the tile's top and bottom has reached after
         * this generation are not needed: a work-item with none of its rows
         * below or above them rests */
        const int rest = (K > 0) && (lr0 + S - 1 <= gen || lr0 >= ER - 1 - gen);
        lword nv[S];
        if (!rest && how == 1)
            item_step(src, dst, &g, &m, 1, lr0, x0, xl, xr, nv);
        else if (!rest && how == 2)
            item_step(src, dst, &g, &m, 2, lr0, x0, xl, xr, nv);
        else if (!rest)
            item_step(src, dst, &g, &m, 0, lr0, x0, xl, xr, nv);
#if !DBUF
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!rest)
            for (int s = 0; s < S; s++)
                TV(dst, lr0 + s, x0) = nv[s];
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* the interior goes out, without the unused bits of each row's last word */
    __local const word *fin = tile + (DBUF ? (gens & 1) * BUFW : 0);
    for (int s = 0; s < S; s++) {
        const int lr = lr0 + s, R = g.rbase + lr;
        if (lr < K || lr >= ER - K || R >= rows) continue;
        for (int i = 0; i < NV; i++) {
            const int x = x0 + i, C = g.cbase + x;
            if (x < HW || x >= TW - HW || C >= nw) continue;
            const word keep = (C == nw - 1 && g.rem) ? ((word)1 << g.rem) - 1 : ONES;
            out[(size_t)R * (size_t)nw + (size_t)C] = T(fin, lr, x) & keep;
        }
    }
}
#endif /* life_bits */

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
    lword a0, a1, b0, b1, c0, c1, alive, nxt, amid;
    grid_row_sum(in, bnd, rows, nw, rem, r0 - 1, C0, edge, &a0, &a1, &amid);
    grid_row_sum(in, bnd, rows, nw, rem, r0, C0, edge, &b0, &b1, &alive);
    for (int R = r0; R < rend; R++) {
        grid_row_sum(in, bnd, rows, nw, rem, R + 1, C0, edge, &c0, &c1, &nxt);
        const lword v = next_word(a0, a1, b0, b1, c0, c1, alive, amid, nxt);
        if (edge)
            store_edge(out, nw, rem, R, C0, v);
        else
            VSTORE(v, out + (size_t)R * (size_t)nw + (size_t)C0);
        a0 = b0;
        a1 = b1;
        b0 = c0;
        b1 = c1;
        amid = alive;
        alive = nxt;
    }
}
#endif

#if LIFE_KERNEL == 4
/* life_peak: the logic ceiling that bench compares the bit-packed kernels
 * with, in cell updates per second: the same row sums, adder network and
 * rule (row_sum3, next_word), with no memory traffic. Any 1-D work-group
 * shape; no local memory, no barriers.
 *
 * Each work-item keeps PK rows of NV words in registers and runs ITERS
 * steps. A step computes the row sums of every row once, with the rows
 * above and below standing in for the words to the west and east (so
 * those are other registers, as in life_bits1, and cost what they cost
 * there), then the next state of every row from the sums of its own row
 * and the rows beside it (cyclically), then flips row 0 by the step's
 * number, so the state cannot settle into a cycle that a launch skipping
 * steps would also reach. It writes the XOR of all its words. Per step
 * that is PK * NV * WBITS cell updates. The host recomputes it. */
#ifndef ITERS
#define ITERS 256
#endif
#ifndef PK
#define PK 8
#endif

/* A word of the start state: splitmix64 of the word's index. */
inline word peak_seed(ulong idx)
{
    ulong z = (idx + 1) * 0x9E3779B97F4A7C15UL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
    return (word)(z ^ (z >> 31));
}

__kernel void life_peak(__global word *out)
{
    const ulong g = get_global_id(0);
    lword x[PK], s0[PK], s1[PK];
    for (int i = 0; i < PK; i++) {
        word a[NV];
        for (int v = 0; v < NV; v++)
            a[v] = peak_seed((g * PK + i) * NV + v);
        x[i] = VLOAD(a);
    }
    for (int it = 0; it < ITERS; it++) {
#pragma unroll
        for (int i = 0; i < PK; i++)
            row_sum3(x[(i + PK - 1) % PK], x[i], x[(i + 1) % PK], &s0[i], &s1[i]);
        lword nx[PK];
#pragma unroll
        for (int i = 0; i < PK; i++) {
            const int u = (i + PK - 1) % PK, d = (i + 1) % PK;
            nx[i] = next_word(s0[u], s1[u], s0[i], s1[i], s0[d], s1[d], x[i], x[u], x[d]);
        }
#pragma unroll
        for (int i = 0; i < PK; i++)
            x[i] = nx[i];
        x[0] ^= (lword)((word)it);
    }
    word r = 0;
    for (int i = 0; i < PK; i++) {
        word a[NV];
        VSTORE(x[i], a);
        for (int v = 0; v < NV; v++)
            r ^= a[v];
    }
    out[g] = r;
}
#endif
#endif
