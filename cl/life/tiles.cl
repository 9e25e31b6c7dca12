/* Life-like cellular automata: one generation of any B/S rule per cell,
 * with dead, torus or clamp boundaries. Five kernels:
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
 *   east), adds them into the count of the 9 cells, and applies the rule
 *   as a boolean function of the count bits (NET 1: four 3-input sums and
 *   majorities, then the rule as four 3-input tables and two selects;
 *   about 12.5 instructions per 32 cells on an H200, see NET below).
 *   Wrong values creep in from the tile's sides one cell per generation,
 *   so after K generations the interior is exact; rows the creep has
 *   reached are not computed.
 *   Barriers: after loading the tile (all of it is read by neighbours);
 *   with DBUF, after each generation (it reads one buffer and writes the
 *   other: the next generation reads the neighbours' new words); without,
 *   after computing a generation into registers (nobody may overwrite a
 *   row someone still reads) and after writing it back.
 *   With REGT the tile lives in registers, neighbours across by shuffles
 *   (reg_tile, below).
 *   Three shapes: tiles (HW = 1 halo word each side, K <= WBITS); FULLW,
 *   bands of whole rows (no halo words, so K is bound only by the rows);
 *   SINGLE, the whole grid in one work-group with no halo, every
 *   generation of a run in one launch.
 *
 * life_bits1: the same words and adder network, one generation per launch
 *   straight from global memory, VW words per work-item as one vector; see
 *   its own comment below. The choice on CPUs for a depth of 1.
 *
 * life_band: bands of whole rows, K generations per launch, in a CPU's
 *   cache; see its own comment below. The choice on CPUs.
 *
 * life_stream: the same words and network, each work-item streaming a
 *   column of words down a long chunk of rows through K levels of
 *   registers, neighbours across by shuffles; see its own comment below.
 *   On NVIDIA GPUs the choice for grids that fill them several times
 *   where the tile in registers does not apply (a depth other than 8).
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

/* The program: the host's build step (src/ops/life/life_prog.c) defines
 * exactly one LIFE_PROG_<NAME>, which selects the kernels it holds. */
#if defined(LIFE_PROG_BYTES) + defined(LIFE_PROG_BITS) + defined(LIFE_PROG_BITS1) + \
    defined(LIFE_PROG_BAND) + defined(LIFE_PROG_SPARSE) + defined(LIFE_PROG_PEAK) +     \
    defined(LIFE_PROG_STREAM) != 1
#error "a life program is built with exactly one LIFE_PROG_ macro"
#endif

/* Every helper is HELPER: static, so that a call the compiler leaves out
 * of line still links (a plain C99 "inline" definition gives no symbol:
 * AMD and SPIR-V builds fail), and always inlined, because PoCL 3.1
 * computes wrong cells when one is left out of line (sums, in life_bits
 * with vectors across; test_life's shapes catch it).
 * tests/check_nvptx.sh refuses a plain "inline". */
#define HELPER static inline __attribute__((always_inline))

#define B_DEAD 0
#define B_TORUS 1
#define B_CLAMP 2
#define B_MAPPED 3 /* life_bytes: Golly's other bounded grids, from the TOPO macros */

/* ---- byte per cell --------------------------------------------------------- */
#if defined(LIFE_PROG_BYTES) || defined(LIFE_PROG_BITS1) || defined(LIFE_PROG_BAND) ||             \
    defined(LIFE_PROG_SPARSE)

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
HELPER int wrapi(int i, int n)
{
    i %= n;
    return i < 0 ? i + n : i;
}

/* the constant first: clang warns of a constant right of '&&' or '||' */
#define CORNERS (TOPO == 4 || TOPO == 5)

HELPER uchar cell_mapped(__global const uchar *in, int rows, int cols, int y, int x)
{
    const int yo = y < 0 || y >= rows, xo = x < 0 || x >= cols;
    if (CORNERS && yo && xo) { /* corners see the corner cell */
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
HELPER uchar cell_at(__global const uchar *in, int rows, int cols, int bnd, int y, int x)
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
#if !defined(LIFE_PROG_BYTES)

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
#ifndef FLOW
#define FLOW 0 /* 1: also life_flow, every step of a run in one launch */
#endif
#ifndef DBUF
#define DBUF 1 /* life_bits: two tile buffers, one barrier per generation */
#endif
#ifndef REGT
#define REGT 0 /* life_bits, life_flow: the tile in registers, not local memory */
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
#if defined(LIFE_PROG_BITS1) || defined(LIFE_PROG_BAND) || defined(LIFE_PROG_PEAK)
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

#define ONES ((word)0 - (word)1)
#define IN(mask, v) (((mask) >> (v)) & 1)
/* bit v: a live cell whose 3x3 block (itself included) holds v live cells
 * survives */
#define SURVIVE9 ((SURVIVE) << 1)

/* The count of the 9 cells equals v (0..9); s3 implies s2 = s1 = 0, which
 * saves literals. */
HELPER lword count_is(int v, lword s0, lword s1, lword s2, lword s3)
{
    const lword m0 = (v & 1) ? s0 : ~s0;
    if (v >= 8) return s3 & m0;
    const lword m2 = (v & 4) ? s2 : ~s2, m1 = (v & 2) ? s1 : ~s1;
    if (v < 2) return m2 & m1 & m0 & ~s3;
    return m2 & m1 & m0;
}

/* The next state of 32/64 cells from the count of their 3x3 block (self
 * included) and their state; constant-folded for the rule in BIRTH/SURVIVE. */
HELPER lword apply_rule(lword alive, lword s0, lword s1, lword s2, lword s3)
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

/* ---- the rule from a 3-input view of the count (NET 1) ----
 * The count n of a 3x3 block is s0 + 2 (k0 + x) + 4 y (its bits as the
 * adder leaves them: k0 and x both weigh 2). For each s0 and state, the
 * rule is a function of the three bits k0, x, y: a truth table of 8 bits,
 * worked out here by the preprocessor, which a compiler maps to one
 * 3-input instruction (NVIDIA's LOP3, AVX-512's vpternlog). The next
 * state picks among the four tables by the state and s0; tables that are
 * equal or empty (B3/S23: births need an odd count, survival at odd counts
 * is birth's table) drop their selects. */
#ifndef NET
#define NET 1 /* 1: this network; 0: the 4-bit count and apply_rule */
#endif
#ifndef LOP3ASM
#define LOP3ASM 0 /* 1: NVIDIA, the tables as inline PTX lop3 */
#endif
/* majority, written apart from the sum's a ^ b so that each is one
 * 3-input operation of its own */
#define MAJ(a, b, c) (((a) & (b)) | ((c) & ((a) | (b))))
#define NCOUNT(s, i) ((s) + 2 * ((((i) >> 2) & 1) + (((i) >> 1) & 1)) + 4 * ((i) & 1))
#define TBIT(mask, s, i) ((((mask) >> NCOUNT(s, i)) & 1) << (i))
#define TABLE(mask, s)                                                                             \
    (TBIT(mask, s, 0) | TBIT(mask, s, 1) | TBIT(mask, s, 2) | TBIT(mask, s, 3) |                   \
     TBIT(mask, s, 4) | TBIT(mask, s, 5) | TBIT(mask, s, 6) | TBIT(mask, s, 7))
#define TB0 TABLE(BIRTH, 0)
#define TB1 TABLE(BIRTH, 1)
#define TS0 TABLE(SURVIVE9, 0)
#define TS1 TABLE(SURVIVE9, 1)

/* The function with truth table t (bit 4a + 2b + c) of a, b, c; the
 * constant t folds it to the minterms it has. */
HELPER lword lut3(uint t, lword a, lword b, lword c)
{
    const lword z = (lword)(0);
    return ((t & 1) ? ~a & ~b & ~c : z) | ((t & 2) ? ~a & ~b & c : z) |
           ((t & 4) ? ~a & b & ~c : z) | ((t & 8) ? ~a & b & c : z) | ((t & 16) ? a & ~b & ~c : z) |
           ((t & 32) ? a & ~b & c : z) | ((t & 64) ? a & b & ~c : z) | ((t & 128) ? a & b & c : z);
}

#if LOP3ASM
/* NVIDIA: each table as one lop3 of its own. Written as logic, the
 * compiler shares parts between tables (they have the same inputs), and
 * its 3-input fusion then takes two or three operations for a table. The
 * host passes the tables as literals (LUT_*), since PTX takes the
 * immediate as text; they must be what the preprocessor works out. */
#if NV != 1 || (!defined(NET3) && (LUT_B0 != TB0 || LUT_B1 != TB1 || LUT_S0 != TS0 || LUT_S1 != TS1))
#error "LOP3ASM needs one word per work-item and LUT_* equal to the rule's tables"
#endif
#ifndef ASM
#define ASM asm /* NVIDIA's OpenCL C takes asm (clang's: __asm__) */
#endif
#define STR_(x) #x
#define STR(x) STR_(x)
#if WBITS == 64
#define LOP3(d, a, b, c, imm)                                                                      \
    do {                                                                                           \
        const uint2 a_ = as_uint2(a), b_ = as_uint2(b), c_ = as_uint2(c);                         \
        uint2 d_;                                                                                  \
        ASM("lop3.b32 %0, %1, %2, %3, " STR(imm) ";"                                              \
            : "=r"(d_.x)                                                                           \
            : "r"(a_.x), "r"(b_.x), "r"(c_.x));                                                    \
        ASM("lop3.b32 %0, %1, %2, %3, " STR(imm) ";"                                              \
            : "=r"(d_.y)                                                                           \
            : "r"(a_.y), "r"(b_.y), "r"(c_.y));                                                    \
        d = as_ulong(d_);                                                                          \
    } while (0)
#else
#define LOP3(d, a, b, c, imm)                                                                      \
    ASM("lop3.b32 %0, %1, %2, %3, " STR(imm) ";" : "=r"(d) : "r"(a), "r"(b), "r"(c))
#endif
#define LUT_FN(name, imm)                                                                          \
    HELPER lword name(lword a, lword b, lword c)                                                   \
    {                                                                                              \
        lword d;                                                                                   \
        LOP3(d, a, b, c, imm);                                                                     \
        return d;                                                                                  \
    }
#ifdef NET3
LUT_FN(lut_n0, N3_T0)
LUT_FN(lut_n1, N3_T1)
LUT_FN(lut_n2, N3_T2)
#else
LUT_FN(lut_b0, LUT_B0)
LUT_FN(lut_b1, LUT_B1)
LUT_FN(lut_s0, LUT_S0)
LUT_FN(lut_s1, LUT_S1)

/* table t, one of the four */
HELPER lword lut(uint t, lword a, lword b, lword c)
{
    return t == TB0 ? lut_b0(a, b, c)
           : t == TB1 ? lut_b1(a, b, c)
           : t == TS0 ? lut_s0(a, b, c)
                      : lut_s1(a, b, c);
}
#endif /* NET3 */
#else
#define lut lut3
#ifdef NET3
#define lut_n0(a, b, c) lut3(N3_T0, a, b, c)
#define lut_n1(a, b, c) lut3(N3_T1, a, b, c)
#define lut_n2(a, b, c) lut3(N3_T2, a, b, c)
#endif
#endif

#ifdef NET3
/* The rule as three gates the host found by search (src/ops/life/life_net.c:
 * one fewer than the form below for B3/S23). Gate g's inputs N3_Ag, N3_Bg,
 * N3_Cg name planes (s0, k0, x, y, alive) or earlier gates' outputs (g0,
 * g1); its truth table is N3_Tg. */
HELPER lword rule3(lword alive, lword s0, lword k0, lword x, lword y)
{
    const lword g0 = lut_n0(N3_A0, N3_B0, N3_C0);
    const lword g1 = lut_n1(N3_A1, N3_B1, N3_C1);
    return lut_n2(N3_A2, N3_B2, N3_C2);
}
#else
/* The next state of cells with count parity s (0 or 1) given the weight-2
 * bits k0, x and the weight-4 bit y: births by table tb, survival by ts. */
HELPER lword rule_half(uint tb, uint ts, lword alive, lword k0, lword x, lword y)
{
    if (tb == ts) return lut(tb, k0, x, y);
    if (tb == 0) return alive & lut(ts, k0, x, y);
    if (ts == 0) return ~alive & lut(tb, k0, x, y);
    return bitselect(lut(tb, k0, x, y), lut(ts, k0, x, y), alive);
}

HELPER lword rule3(lword alive, lword s0, lword k0, lword x, lword y)
{
    /* decided by the preprocessor: clang warns of '&&' between constants,
     * and PoCL prints the count of warnings on stderr */
#if TB0 == 0 && TS0 == 0
    return s0 & rule_half(TB1, TS1, alive, k0, x, y);
#elif TB1 == 0 && TS1 == 0
    return ~s0 & rule_half(TB0, TS0, alive, k0, x, y);
#else
    return bitselect(rule_half(TB0, TS0, alive, k0, x, y), rule_half(TB1, TS1, alive, k0, x, y),
                     s0);
#endif
}
#endif

/* Word C (in [-1, nw]) of a row as the boundary says, given the stored
 * word w at C (any value when C is outside), and the row's first and last
 * words. Only the bits next to the grid's cells matter outside it: the top
 * bit of word -1 and the bits past the last cell. */
HELPER word fix_word(int bnd, int C, word w, word first, word lastw, int nw, int rem)
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
#if NV == 1 && WBITS == 64 && defined(HALVES)
/* The same for one 64-bit word from the west word's high half and the
 * east word's low half (the only bits it needs), each half of w and e a
 * 32-bit funnel shift: one instruction on a GPU (NVIDIA's SHF), where a
 * 64-bit shift and an or take three or four. */
HELPER void row_sum3_halves(uint lhi, ulong c, uint rlo, ulong *s0, ulong *s1)
{
    const uint2 h = as_uint2(c);
#if HALVES == 2 /* each half the low word of a 64-bit shift of a register pair */
    const ulong w = as_ulong((uint2)((uint)(upsample(h.x, lhi) >> 31), (uint)(c >> 31)));
    const ulong e = as_ulong((uint2)((uint)(c >> 1), (uint)(upsample(rlo, h.y) >> 1)));
#else
    const ulong w = as_ulong((uint2)((h.x << 1) | (lhi >> 31), (h.y << 1) | (h.x >> 31)));
    const ulong e = as_ulong((uint2)((h.x >> 1) | (h.y << 31), (h.y >> 1) | (rlo << 31)));
#endif
    *s0 = w ^ c ^ e;
    *s1 = MAJ(w, c, e);
}

HELPER void row_sum3(ulong l, ulong c, ulong r, ulong *s0, ulong *s1)
{
    row_sum3_halves((uint)(l >> 32), c, (uint)r, s0, s1);
}
#else
HELPER void row_sum3(lword l, lword c, lword r, lword *s0, lword *s1)
{
    const lword w = (c << 1) | (l >> (WBITS - 1));
    const lword e = (c >> 1) | (r << (WBITS - 1));
    *s0 = w ^ c ^ e;
    *s1 = MAJ(w, c, e);
}
#endif
#else
/* Hexagonal and von Neumann: a row's part depends on whether it is above,
 * at or below the cell, so a row keeps its west and east neighbour words
 * (s0, s1) beside its centre (the caller's mid), and next_word adds what
 * each role needs. */
HELPER void row_sum3(lword l, lword c, lword r, lword *s0, lword *s1)
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
HELPER lword next_word(lword a0, lword a1, lword b0, lword b1, lword c0, lword c1, lword alive,
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
#if NET == 0
    const lword t0 = a0 ^ b0, t1 = a1 ^ b1;
    const lword s0 = t0 ^ c0, k0 = (a0 & b0) | (c0 & t0); /* weight 1, carry 2 */
    const lword x = t1 ^ c1, y = (a1 & b1) | (c1 & t1);   /* weight 2, carry 4 */
    const lword s1 = x ^ k0, z = x & k0;
    return apply_rule(alive, s0, s1, y ^ z, y & z);
#else
    /* the count of the 9 cells is s0 + 2 (k0 + x) + 4 y: four 3-input
     * operations (sum and majority of each weight), no carry chain */
    const lword s0 = a0 ^ b0 ^ c0, k0 = MAJ(a0, b0, c0);
    const lword x = a1 ^ b1 ^ c1, y = MAJ(a1, b1, c1);
    return rule3(alive, s0, k0, x, y);
#endif
#endif
}
#if defined(LIFE_PROG_BITS) || defined(LIFE_PROG_SPARSE) || defined(LIFE_PROG_STREAM)

/* How the grid is read and a tile's cells handed on. life_flow's tiles
 * read what other work-groups of the same launch wrote, past any cache
 * that is not coherent across compute units, and raise a flag only after
 * a fence at the device's scope. On NVIDIA (FLOWNV): ld.global.cg, cached
 * in L2 only (a multiprocessor's L1 may hold the same addresses from two
 * steps before), and membar.gl (OpenCL 1.2's mem_fence orders memory for
 * the work-group only; with it, two MPI ranks' grids once came out unlike
 * one rank's on an H200). Elsewhere volatile reads and mem_fence, which
 * suffice on a CPU; the host runs life_flow on nothing else. */
#ifndef FLOWNV
#define FLOWNV 0
#endif
#if FLOW && !FLOWNV
#define GIN __global const volatile
#else
#define GIN __global const
#endif
#if FLOW
#define GIN_RESTRICT
#else
#define GIN_RESTRICT restrict
#endif
#if FLOW && FLOWNV
HELPER word gload(GIN word *p)
{
    word v;
#if WBITS == 64
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
#else
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p));
#endif
    return v;
}
#define GLOAD(p) gload(p)
#define FLOW_FENCE() asm volatile("membar.gl;" ::: "memory")
#else
#define GLOAD(p) (*(p))
#define FLOW_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

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
HELPER word cells_at(GIN word *row, int nw, int x, int n)
{
    const int i = x / WBITS, b = x % WBITS;
    word v = GLOAD(row + i) >> b;
    if (b && i + 1 < nw) v |= GLOAD(row + i + 1) << (WBITS - b);
    return n < WBITS ? v & (((word)1 << n) - 1) : v;
}

/* Word C of grid row R for the tile. What the tile takes wrapped (g->vwrap,
 * g->hwrap) is fetched wrapped; anything else outside the grid is 0 and
 * never read as a cell. */
HELPER word fetch(GIN word *in, const geom *g, int R, int C, int cols)
{
    const int rows = g->rows, nw = g->nw;
    if (R < 0 || R >= rows) {
        if (!g->vwrap) return 0;
        R %= rows;
        R = R < 0 ? R + rows : R;
    }
    GIN word *row = in + (size_t)R * (size_t)nw;
    if (C >= 0 && C < nw && !(g->hwrap && C == nw - 1 && g->rem)) return GLOAD(row + C);
    if (!g->hwrap) return 0;
    if (g->rem == 0) {
        C %= nw;
        return GLOAD(row + (C < 0 ? C + nw : C));
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

#endif /* geom, fetch */

#if defined(LIFE_PROG_BITS) || defined(LIFE_PROG_SPARSE)
/* Row sums of the NV words from x0 in tile row lr, read plainly; xl and
 * xr are the columns west and east of them, clamped into the tile. */
HELPER void sums_plain(__local const word *t, int lr, int x0, int xl, int xr, lword *s0, lword *s1,
                       lword *mid)
{
    const lword c = TV(t, lr, x0);
#if NBHD == 0 && NV == 1 && WBITS == 64 && defined(HALVES)
    /* 32-bit loads of the halves next to c: less of local memory's bandwidth */
    row_sum3_halves(((__local const uint *)&T(t, lr, xl))[1], c,
                    ((__local const uint *)&T(t, lr, xr))[0], s0, s1);
#else
    row_sum3(WEST_OF(T(t, lr, xl), c), c, EAST_OF(c, T(t, lr, xr)), s0, s1);
#endif
    *mid = c;
}

/* The same through the boundary, for a work-item next to the grid's edge:
 * a row past the top or bottom, a word past either end and the unused
 * bits of a row's last word are what the boundary says (unless the tile
 * holds them wrapped). */
HELPER void sums_mapped(__local const word *t, const geom *g, int lr, int x0, lword *s0, lword *s1,
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

HELPER void edge_setup(edge_masks *m, const geom *g, int x0)
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
HELPER void sums_edge(__local const word *t, const edge_masks *m, int lr, int x0, int xl, int xr,
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
HELPER void sums(__local const word *t, const geom *g, const edge_masks *m, int how, int lr, int x0,
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
HELPER void item_step(__local const word *t, __local word *dst, const geom *g, const edge_masks *m,
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

#if REGT
/* life_bits with the tile in registers (REGT, tune reg=1; 64-bit words
 * with HALVES, one a work-item, the Moore neighbourhood). The tile is as
 * bits_tile's (TW = LX words by ER = LY*S rows, one halo word each side,
 * K rows above and below), but work-item (lane, ly) keeps its S rows of
 * word column lane in registers, not in local memory: on NVIDIA (SHFL) a
 * row of LX = 32 work-items is a warp, and a word's neighbours across come
 * from the lanes beside by shfl.sync, so local memory holds only the row
 * sums of each work-item's top and bottom rows, which the work-items above
 * and below read. NVIDIA's 48 KiB of local memory bounded bits_tile at 16
 * words by 144 rows (0.78 of the cells computed are output); in registers
 * the default tile is 32 words by 8 x 24 rows (0.86). One barrier a
 * generation: the exchange is double-buffered by the generation's parity.
 * Without the shuffle (PoCL, the tests) every row's halves also go
 * through local memory, under the same barrier.
 * Boundaries: a torus's tiles are fetched wrapped and run the plain loop;
 * a dead or clamp tile at the grid's edge fixes, at every generation, the
 * words beside the row's first and last (and the bits past its end) and the
 * row sums above row 0 and below the last, as life_stream does. */
#if WBITS != 64 || NV != 1 || NBHD != 0 || !defined(HALVES) || DBUF || FULLW
#error "REGT: 64-bit words (HALVES), one a work-item, the Moore neighbourhood, tiles, DBUF 0"
#endif
#ifndef SHFL
#define SHFL 0
#endif
#if SHFL && LX != 32
#error "SHFL needs LX = 32, one warp"
#endif
#ifndef ASM
#define ASM asm
#endif
/* The loops over a work-item's rows unrolled with the shuffle, so that its
 * rows stay in registers; rolled without (PoCL compiles them faster, and
 * speed there is not this path's point). */
#if SHFL
#define REG_UNROLL _Pragma("unroll")
#else
#define REG_UNROLL _Pragma("unroll 1")
#endif

/* A work-item's place, for the boundary fixes of an edge tile. */
typedef struct {
    int lane, ly, first, lastw, clampb, rem, r0, rows;
    ulong lowm;
} reg_geo;

/* Local memory: the row sums of every work-item's top and bottom rows
 * (s0, s1 of each), twice; without SHFL also every row's halves, twice. */
#define REG_XV (2 * LY * 4 * LX)
#if SHFL
#define REG_XH 0
#else
#define REG_XH (2 * ER * LX)
#endif

/* Row sums of word w, tile row lr (the work-item's own row, or without
 * SHFL any row, its centre word read from xh), through the fixes hfix
 * needs. */
HELPER void reg_sums(ulong w, __local const uint2 *xh, int lr, const reg_geo *e, const int hfix,
                     ulong *s0, ulong *s1)
{
    uint whi, elo;
#if SHFL
    (void)xh;
    (void)lr;
#else
    __local const uint2 *row = xh + lr * LX;
    w = upsample(row[e->lane].y, row[e->lane].x);
#endif
    /* the bits past the row's end (a select: every lane reaches the shuffle) */
    const ulong fill = e->clampb && ((w >> (e->rem - 1)) & 1) ? ~e->lowm : (ulong)0;
    w = hfix && e->lastw && e->rem ? (w & e->lowm) | fill : w;
#if SHFL
    ASM("shfl.sync.up.b32 %0, %1, 1, 0, -1;" : "=r"(whi) : "r"((uint)(w >> 32)));
    ASM("shfl.sync.down.b32 %0, %1, 1, 31, -1;" : "=r"(elo) : "r"((uint)w));
#else
    whi = row[max(e->lane - 1, 0)].y;
    elo = row[min(e->lane + 1, LX - 1)].x;
#endif
    if (hfix && e->first) whi = e->clampb && (w & 1) ? 0xffffffffu : 0u;
    if (hfix && e->lastw && !e->rem) elo = e->clampb ? (uint)(w >> 63) : 0u;
    row_sum3_halves(whi, w, elo, s0, s1);
}

/* One generation of the work-item's rows v, with exchange space xv, xh of
 * this generation's parity; hfix, vfix: the fixes of an edge tile. */
HELPER void reg_gen(ulong *v, __local ulong *xv, __local uint2 *xh, const reg_geo *e,
                    const int hfix, const int vfix)
{
    const int lane = e->lane, ly = e->ly, lr0 = ly * S;
    ulong t0, t1, b0, b1, u0 = 0, u1 = 0, d0 = 0, d1 = 0;
#if SHFL
    reg_sums(v[0], xh, lr0, e, hfix, &t0, &t1);
    reg_sums(v[S - 1], xh, lr0 + S - 1, e, hfix, &b0, &b1);
    xv[(ly * 4 + 0) * LX + lane] = t0;
    xv[(ly * 4 + 1) * LX + lane] = t1;
    xv[(ly * 4 + 2) * LX + lane] = b0;
    xv[(ly * 4 + 3) * LX + lane] = b1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (ly > 0) {
        u0 = xv[((ly - 1) * 4 + 2) * LX + lane];
        u1 = xv[((ly - 1) * 4 + 3) * LX + lane];
    }
    if (ly < LY - 1) {
        d0 = xv[((ly + 1) * 4 + 0) * LX + lane];
        d1 = xv[((ly + 1) * 4 + 1) * LX + lane];
    }
#else
    (void)xv;
    for (int s = 0; s < S; s++)
        xh[(lr0 + s) * LX + lane] = (uint2)((uint)v[s], (uint)(v[s] >> 32));
    barrier(CLK_LOCAL_MEM_FENCE);
    reg_sums(0, xh, lr0, e, hfix, &t0, &t1);
    reg_sums(0, xh, lr0 + S - 1, e, hfix, &b0, &b1);
    if (ly > 0) reg_sums(0, xh, lr0 - 1, e, hfix, &u0, &u1);
    if (ly < LY - 1) reg_sums(0, xh, lr0 + S, e, hfix, &d0, &d1);
#endif
    ulong a0 = u0, a1 = u1, m0 = t0, m1 = t1, c0, c1;
    REG_UNROLL
    for (int s = 0; s < S; s++) {
        if (s == S - 1) {
            c0 = d0;
            c1 = d1;
        } else if (s == S - 2) {
            c0 = b0;
            c1 = b1;
        } else {
            reg_sums(v[s + 1], xh, lr0 + s + 1, e, hfix, &c0, &c1);
        }
        if (vfix) { /* the sums above row 0 and below the last */
            const int R = e->r0 + s;
            if (R == 0) {
                a0 = e->clampb ? m0 : 0;
                a1 = e->clampb ? m1 : 0;
            }
            if (R == e->rows - 1) {
                c0 = e->clampb ? m0 : 0;
                c1 = e->clampb ? m1 : 0;
            }
        }
        v[s] = next_word(a0, a1, m0, m1, c0, c1, v[s], 0, 0);
        a0 = m0;
        a1 = m1;
        m0 = c0;
        m1 = c1;
    }
}

/* gens generations of tile (tx, ty) from in into out, as bits_tile. */
HELPER void reg_tile(GIN word *GIN_RESTRICT in, __global word *restrict out, __local ulong *xv,
                     __local uint2 *xh, const int rows, const int cols, const int bnd, const int nw,
                     const int gens, const int tx, const int ty)
{
    geom g;
    g.bnd = bnd;
    g.rbase = ty * (ER - 2 * K) - K;
    g.cbase = tx * (TW - 2) - 1;
    g.rows = rows;
    g.nw = nw;
    g.rem = cols % WBITS;
    g.vwrap = g.hwrap = bnd == B_TORUS;
    reg_geo e;
    e.lane = get_local_id(0);
    e.ly = get_local_id(1);
    const int C = g.cbase + e.lane, lr0 = e.ly * S, R0 = g.rbase + lr0;
    e.first = C == 0;
    e.lastw = C == nw - 1;
    e.clampb = bnd == B_CLAMP;
    e.rem = g.rem;
    e.lowm = g.rem ? ((ulong)1 << g.rem) - 1 : ONES;
    e.r0 = R0;
    e.rows = rows;

    ulong v[S];
    if (R0 >= 0 && R0 + S <= rows && C >= 0 && C < nw - (g.hwrap && g.rem != 0)) {
#pragma unroll
        for (int s = 0; s < S; s++)
            v[s] = GLOAD(in + (size_t)(R0 + s) * (size_t)nw + (size_t)C);
    } else {
        REG_UNROLL
        for (int s = 0; s < S; s++)
            v[s] = fetch(in, &g, R0 + s, C, cols);
    }

    /* a dead or clamp tile reaching the grid's edge fixes it at every
     * generation, in a loop of its own for each kind of edge (the whole
     * group: a warp's lanes must agree for the shuffle): the top and bottom
     * (corners too) check every row, the left and right (most edge tiles)
     * only the words beside */
    const int vedge = !g.vwrap && (g.rbase <= 0 || g.rbase + ER >= rows);
    const int hedge = !g.hwrap && (g.cbase <= 0 || g.cbase + TW - 1 >= nw - 1);
    for (int gen = 0; gen < gens; gen++) {
        __local ulong *pv = xv + (gen & 1) * (REG_XV / 2);
        __local uint2 *ph = xh + (gen & 1) * (REG_XH / 2);
        if (vedge)
            reg_gen(v, pv, ph, &e, 1, 1);
        else if (hedge)
            reg_gen(v, pv, ph, &e, 1, 0);
        else
            reg_gen(v, pv, ph, &e, 0, 0);
    }

    REG_UNROLL
    for (int s = 0; s < S; s++) {
        const int lr = lr0 + s, R = R0 + s;
        if (lr < K || lr >= ER - K || R >= rows || e.lane < 1 || e.lane > LX - 2 || C >= nw)
            continue;
        out[(size_t)R * (size_t)nw + (size_t)C] = e.lastw && g.rem ? v[s] & e.lowm : v[s];
    }
}
#endif /* REGT */

/* gens generations of tile (tx, ty) from in into out: its halo loaded
 * into local memory (tile: 2 buffers of BUFW words with DBUF, else 1),
 * advanced there, and its interior written out. */
HELPER void bits_tile(GIN word *GIN_RESTRICT in, __global word *restrict out, __local word *tile,
                      const int rows, const int cols, const int bnd, const int nw, const int gens,
                      const int tx, const int ty)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    geom g;
    g.bnd = bnd;
    g.rbase = ty * (ER - 2 * K) - K;
    g.cbase = tx * (TW - 2 * HW) - HW;
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
                T(tile, lr0 + s, x0 + i) =
                    GLOAD(in + (size_t)(R0 + s) * (size_t)nw + (size_t)(C0 + i));
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

/* The tile's local memory and its run: in registers (REGT) or bits_tile's. */
#if REGT
#define TILE_LOCAL                                                                                 \
    __local ulong reg_xv[REG_XV];                                                                  \
    __local uint2 reg_xh[REG_XH > 0 ? REG_XH : 1]
#define TILE_RUN(in, out, rows, cols, bnd, nw, gens, tx, ty)                                       \
    reg_tile(in, out, reg_xv, reg_xh, rows, cols, bnd, nw, gens, tx, ty)
#else
#define TILE_LOCAL __local lword tile_v[(DBUF ? 2 : 1) * BUFW / NV]
#define TILE_RUN(in, out, rows, cols, bnd, nw, gens, tx, ty)                                       \
    bits_tile(in, out, (__local word *)tile_v, rows, cols, bnd, nw, gens, tx, ty)
#endif

__kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void
life_bits(GIN word *GIN_RESTRICT in, __global word *restrict out, const int rows, const int cols,
          const int bnd, const int nw, const int gens)
{
    TILE_LOCAL;
    TILE_RUN(in, out, rows, cols, bnd, nw, gens, (int)get_group_id(0), (int)get_group_id(1));
}

#if FLOW
/* life_flow: every step of K generations of every tile in one launch, so
 * that no launch's ramp and tail (about 23 us a launch of 8 generations on
 * an H200, a fifth of it at 16384^2) separate the steps. Work-groups take
 * tickets in order from *ticket: ticket t is step t / tiles of tile
 * t % tiles (row by row). Step a of a tile reads buffer a % 2, the state
 * after a steps, and writes buffer (a + 1) % 2; it starts once each tile
 * whose cells its halo reaches, and each whose halo reaches its cells
 * (itself and the 8 around, wrapped on a torus; flow_reach), has finished
 * step a - 1, as flags[tile] (the steps it has finished, counted from the
 * plan's first launch: step0 on) says. Then those tiles have also finished
 * reading the cells it overwrites. Cells a tile reads past these (on a
 * torus, of the rows and words past the grid's end) feed only cells it
 * never writes out.
 * Deadlock-free whatever the device runs at once: a work-group waits only
 * for lower tickets, all taken by work-groups already running. The flag
 * goes up after a global barrier and a fence, and is read (volatile) by
 * the work-items that wait, before a barrier; the cells themselves are
 * read past the caches that are not coherent (GIN, GLOAD). (A work-group
 * that took its next ticket while computing this one hung PoCL, even on
 * one thread.) */
/* Whether the tile d tiles away (-2 .. 2, across or down) from tile i of
 * n is one that tile i's halo reads or that reads tile i's cells. On a
 * torus, tile 0's halo crosses the last tile, which may be thinner than
 * the halo, into the one before it (whose halo in turn reaches tile 0); all
 * other reading lies within a tile each way. */
HELPER int flow_reach(int d, int i, int n, int wrap)
{
    return d >= -1 && d <= 1 ? 1 : wrap && ((d == -2 && i == 0) || (d == 2 && i == n - 2));
}

__kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void
life_flow(__global word *b0, __global word *b1, const int rows, const int cols, const int bnd,
          const int nw, const int gens, const int last_gens, const int steps, const int step0,
          const int ntx, const int nty, __global volatile int *flags, __global int *ticket)
{
    TILE_LOCAL;
    __local int take;
    const int lid = get_local_id(1) * LX + get_local_id(0), tiles = ntx * nty;
    const int wrap = bnd == B_TORUS;
    if (lid == 0) take = atomic_inc(ticket);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = take; t < steps * tiles; t = take) {
        const int a = t / tiles, tile = t % tiles, tx = tile % ntx, ty = tile / ntx;
        const int need = step0 + a; /* steps every tile around must have finished */
        for (int n = lid; a > 0 && n < 25; n += LX * LY) {
            const int dy = n / 5 - 2, dx = n % 5 - 2;
            int y = ty + dy, x = tx + dx;
            if (!flow_reach(dy, ty, nty, wrap) || !flow_reach(dx, tx, ntx, wrap)) continue;
            if (wrap) {
                y = (y + nty) % nty;
                x = (x + ntx) % ntx;
            }
            if (y >= 0 && y < nty && x >= 0 && x < ntx)
                while (flags[y * ntx + x] < need)
                    ;
            FLOW_FENCE();
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        __global word *src = (a & 1) ? b1 : b0, *dst = (a & 1) ? b0 : b1;
        TILE_RUN(src, dst, rows, cols, bnd, nw, a == steps - 1 ? last_gens : gens, tx, ty);
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            FLOW_FENCE();
            atomic_xchg(&flags[tile], need + 1);
            take = atomic_inc(ticket); /* every work-item has read take into t */
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
#endif
#endif /* life_bits */

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
#if defined(LIFE_PROG_STREAM)
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
#endif /* life_stream */

/* ---- bit-packed, bands of whole rows blocked in a CPU's cache -------------- */
/* life_band: one work-item per work-group; group y owns the s grid rows
 * from y*s and copies them with K rows above and below (be = s + 2K rows of
 * nvw vectors of VW words, one vector of pad each side) into __local
 * memory, which on a CPU is a block of its cache: two such bands,
 * ping-ponged, and a zero row each, given by the host (band_v). Each
 * generation slides down every vector column of the rows the creep from
 * the band's top and bottom has not reached, three row sums at a time as
 * life_bits1 does, into the other band; then each row's pad words and last
 * word are set as the boundary says (fix_word), and rows past the grid's
 * top or bottom are read from the zero row (dead) or the edge row (clamp);
 * a torus's are real rows, fetched wrapped. After gens <= K generations the
 * s rows go out. No barrier (one work-item), and a whole row per vector
 * loop: the grid crosses memory once per K generations. The band's rows
 * and width are arguments, so one program serves every grid. */
#if defined(LIFE_PROG_BAND)
/* word 0 of band row r of band b, rows of brw words */
#define BROW(b, r, brw) ((b) + (r) * (brw) + VW)

/* The band row to read for band row r (grid row R0 + r); be: the zero row. */
HELPER int band_src(int r, int R0, int rows, int bnd, int be)
{
    const int R = R0 + r;
    if (bnd == B_TORUS || (R >= 0 && R < rows)) return r;
    return bnd == B_DEAD ? be : clamp(R, 0, rows - 1) - R0;
}

/* Pad words and the last word of a band row, as the boundary says. */
HELPER void band_fix(__local word *p, int bnd, int nw, int rem)
{
    const word first = p[0], lastw = p[nw - 1];
    p[-1] = fix_word(bnd, -1, 0, first, lastw, nw, rem);
    p[nw - 1] = fix_word(bnd, nw - 1, lastw, first, lastw, nw, rem);
    p[nw] = fix_word(bnd, nw, 0, first, lastw, nw, rem);
}

HELPER void band_sums(__local const word *p, lword *s0, lword *s1, lword *mid)
{
    const lword c = VLOAD(p);
    row_sum3(VLOAD(p - 1), c, VLOAD(p + 1), s0, s1);
    *mid = c;
}

/* One generation of band rows lo .. hi-1 from src into dst, nvw vectors a
 * row. */
HELPER void band_step(__local const word *src, __local word *dst, int lo, int hi, int R0, int rows,
                      int bnd, int nvw, int brw, int be)
{
    for (int j = 0; j < nvw * VW; j += VW) {
        lword a0, a1, b0, b1, c0, c1, alive, nxt, amid;
        band_sums(BROW(src, band_src(lo - 1, R0, rows, bnd, be), brw) + j, &a0, &a1, &amid);
        band_sums(BROW(src, band_src(lo, R0, rows, bnd, be), brw) + j, &b0, &b1, &alive);
        for (int r = lo; r < hi; r++) {
            band_sums(BROW(src, band_src(r + 1, R0, rows, bnd, be), brw) + j, &c0, &c1, &nxt);
            VSTORE(next_word(a0, a1, b0, b1, c0, c1, alive, amid, nxt), BROW(dst, r, brw) + j);
            a0 = b0;
            a1 = b1;
            b0 = c0;
            b1 = c1;
            amid = alive;
            alive = nxt;
        }
    }
}

/* band_v: 2 (s + 2K + 1) (nvw + 2) VW words, nvw = ceil(nw / VW). */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
life_band(__global const word *restrict in, __global word *restrict out, const int rows,
          const int cols, const int bnd, const int nw, const int gens, __local lword *band_v,
          const int s)
{
    __local word *band = (__local word *)band_v;
    const int nvw = (nw + VW - 1) / VW, brw = (nvw + 2) * VW, be = s + 2 * K;
    const int bbuf = (be + 1) * brw;
    const int R0 = (int)get_group_id(1) * s - K, rem = cols % WBITS, full = nw / VW * VW;
    for (int i = 0; i < brw; i++) /* the zero rows */
        band[be * brw + i] = band[bbuf + be * brw + i] = 0;
    for (int r = 0; r < be; r++) {
        int R = R0 + r;
        R = bnd == B_TORUS ? (R % rows + rows) % rows : clamp(R, 0, rows - 1);
        __global const word *g = in + (size_t)R * (size_t)nw;
        __local word *p = BROW(band, r, brw);
        for (int c = 0; c < full; c += VW)
            VSTORE(VLOAD(g + c), p + c);
        for (int c = full; c < nw; c++)
            p[c] = g[c];
        band_fix(p, bnd, nw, rem);
    }
    for (int gen = 1; gen <= gens; gen++) {
        __local const word *src = band + ((gen - 1) & 1) * bbuf;
        __local word *dst = band + (gen & 1) * bbuf;
        band_step(src, dst, gen, be - gen, R0, rows, bnd, nvw, brw, be);
        for (int r = gen; r < be - gen; r++)
            band_fix(BROW(dst, r, brw), bnd, nw, rem);
    }
    __local const word *fin = band + (gens & 1) * bbuf;
    const word keep = rem ? ((word)1 << rem) - 1 : ONES;
    for (int r = K; r < K + s && R0 + r < rows; r++) {
        __global word *g = out + (size_t)(R0 + r) * (size_t)nw;
        __local const word *p = BROW(fin, r, brw);
        for (int c = 0; c < full; c += VW)
            VSTORE(VLOAD(p + c), g + c);
        for (int c = full; c < nw; c++)
            g[c] = p[c];
        g[nw - 1] = p[nw - 1] & keep;
    }
}
#endif

/* ---- bit-packed, one generation per launch, straight from global memory ---- */
/* life_bits1: work-item (x, y) owns VW words from word x*VW, as one vector,
 * in the S rows from y*S, and slides down them keeping three row sums. No
 * local memory and no barrier: on a CPU the caches do the tile's work, the
 * work-items run without the synchronisation a barrier costs there, and the
 * vectors fill the SIMD registers. */
#if defined(LIFE_PROG_BITS1)

/* Row sums of grid row R for the VW words from C0 through the boundary
 * (edge: the words or their neighbours reach either end of the row). *mid
 * receives the centre words. */
HELPER void grid_row_sum(__global const word *in, int bnd, int rows, int nw, int rem, int R, int C0,
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
HELPER void store_edge(__global word *out, int nw, int rem, int R, int C0, lword v)
{
    word a[VW];
    VSTORE(v, a);
    for (int i = 0; i < VW && C0 + i < nw; i++) {
        const int C = C0 + i;
        const word keep = (C == nw - 1 && rem) ? ((word)1 << rem) - 1 : ONES;
        out[(size_t)R * (size_t)nw + (size_t)C] = a[i] & keep;
    }
}

/* Row sums of the VW words at p, read plainly (words p[-1] .. p[VW]). */
HELPER void plain_row_sum(__global const word *p, lword *s0, lword *s1, lword *mid)
{
    const lword c = VLOAD(p);
    row_sum3(VLOAD(p - 1), c, VLOAD(p + 1), s0, s1);
    *mid = c;
}

/* Rows r0 .. rend-1 of the VW words from C0, all of whose neighbours are
 * inside the grid: a loop of loads, logic and a store (the mapped loop
 * below, left to itself, keeps the compiler from inlining the row sums). */
HELPER void rows_plain(__global const word *in, __global word *out, int nw, int r0, int rend,
                       int C0)
{
    __global const word *p = in + (size_t)(r0 - 1) * (size_t)nw + (size_t)C0;
    __global word *q = out + (size_t)r0 * (size_t)nw + (size_t)C0;
    lword a0, a1, b0, b1, c0, c1, alive, nxt, amid;
    plain_row_sum(p, &a0, &a1, &amid);
    plain_row_sum(p + nw, &b0, &b1, &alive);
    p += 2 * (size_t)nw;
    for (int R = r0; R < rend; R++, p += nw, q += nw) {
        plain_row_sum(p, &c0, &c1, &nxt);
        VSTORE(next_word(a0, a1, b0, b1, c0, c1, alive, amid, nxt), q);
        a0 = b0;
        a1 = b1;
        b0 = c0;
        b1 = c1;
        amid = alive;
        alive = nxt;
    }
}

__kernel void life_bits1(__global const word *restrict in, __global word *restrict out,
                         const int rows, const int cols, const int bnd, const int nw)
{
    const int C0 = get_global_id(0) * VW, r0 = get_global_id(1) * S;
    if (C0 >= nw || r0 >= rows) return;
    const int rem = cols % WBITS, edge = C0 == 0 || C0 + VW >= nw;
    const int rend = min(r0 + S, rows);
    if (!edge && r0 > 0 && rend < rows) {
        rows_plain(in, out, nw, r0, rend, C0);
        return;
    }
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

#if defined(LIFE_PROG_PEAK)
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
HELPER word peak_seed(ulong idx)
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

/* ==== skipping what does not change: life_sparse_list, life_sparse,
 * life_sparse1 ====
 *
 * The grid is cut into tiles: life_bits's (life_sparse: tile (tx, ty)
 * outputs the words tx*(TW-2) .. +TW-3 of rows ty*(ER-2K) .. +ER-2K-1 and
 * reads K rows and one word, >= K cells, more around them) or a work-item's
 * of life_bits1 (life_sparse1: VW words by S rows, one generation, reading
 * one cell more around them), so a tile's K generations depend on its own
 * cells and its 8 neighbour tiles' only. act[t] holds, per tile, what
 * its last computed launch found: ACT_CHG, its output differed from its
 * input; ACT_LIVE, its output has a live cell. A tile is computed when a
 * tile of its neighbourhood changed in the previous launch of the same
 * depth (else its neighbourhood, hence its next K generations, is what it
 * was: it is unchanged again), or, after a launch of another depth, when a
 * tile of its neighbourhood changed or is alive (an all-dead neighbourhood
 * stays dead without B0). A skipped tile holds the same words in both
 * buffers (it did not change in the launch that wrote the one it is read
 * from), so the buffer being written needs nothing; a skipped tile's act
 * (no ACT_CHG, ACT_LIVE as its unchanged cells say) stays right. The host
 * (src/ops/life/life_sparse.c) makes the first launch, and any after rows
 * were written from outside, compute every tile. */
#if defined(LIFE_PROG_SPARSE) || defined(SPARSE1)

#define ACT_CHG 1
#define ACT_LIVE 2
#define LIST_ALL 0    /* every tile */
#define LIST_STEADY 1 /* neighbourhood changed */
#define LIST_DEPTH 2  /* neighbourhood changed or alive */

#ifndef LIST_WG
#define LIST_WG 64
#endif
#ifndef LIST_TPI
#define LIST_TPI 1 /* tiles per work-item of life_sparse_list, at most 32 */
#endif
#if defined(LIFE_PROG_SPARSE)
#define OW (TW - 2)     /* output words of a tile */
#define OH (ER - 2 * K) /* output rows of a tile */
#else
#define OW VW /* life_sparse1: a work-item's words ... */
#define OH S  /* ... and rows */
#endif

HELPER int wrap_tile(int i, int n)
{
    i %= n;
    return i < 0 ? i + n : i;
}

/* The act bits of tile (tx, ty)'s neighbourhood: tiles within rx across
 * and ry down (2 on a torus whose last tile is narrower than K cells),
 * wrapped on a torus, cut at the grid's edges otherwise (a clamped edge
 * reads the edge tile's own cells). */
HELPER uint hood_act(__global const uchar *act, int tx, int ty, int ntx, int nty, int torus, int rx,
                     int ry)
{
    uint any = 0;
    for (int dy = -ry; dy <= ry; dy++) {
        int y = ty + dy;
        if (y < 0 || y >= nty) {
            if (!torus) continue;
            y = wrap_tile(y, nty);
        }
        for (int dx = -rx; dx <= rx; dx++) {
            int x = tx + dx;
            if (x < 0 || x >= ntx) {
                if (!torus) continue;
                x = wrap_tile(x, ntx);
            }
            any |= act[y * ntx + x];
        }
    }
    return any;
}

/* The list of tiles to compute, into list[count[slot] ...]: LIST_TPI
 * tiles per work-item (a few on CPUs, where work-items cost more than the
 * look at 9 bytes), a group's tiles appended with one global atomic (their
 * order does not matter); count[2 + slot] adds up their output words (rows
 * times words, cut at the grid's edges). Work-item 0 also adds the
 * previous launch's words times its prev_gens generations into acc[0] and
 * zeroes that launch's slots for the launch after this one. */
__kernel __attribute__((reqd_work_group_size(LIST_WG, 1, 1))) void
life_sparse_list(__global const uchar *restrict act, __global int *restrict list,
                 __global uint *restrict count, __global ulong *restrict acc, const int ntx,
                 const int nty, const int torus, const int rx, const int ry, const int mode,
                 const int slot, const int prev_gens, const int rows, const int nw)
{
    __local uint n, base, words;
    const int t0 = get_global_id(0) * LIST_TPI;
    if (get_local_id(0) == 0) n = words = 0;
    if (get_global_id(0) == 0) {
        acc[0] += (ulong)count[3 - slot] * (ulong)prev_gens;
        count[1 - slot] = count[3 - slot] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint mask = mode == LIST_STEADY ? ACT_CHG : ACT_CHG | ACT_LIVE;
    uint on = 0, w = 0; /* bit k: tile t0 + k is listed */
    for (int k = 0; k < LIST_TPI; k++) {
        const int t = t0 + k, tx = t % ntx, ty = t / ntx;
        if (t < ntx * nty &&
            (mode == LIST_ALL || (hood_act(act, tx, ty, ntx, nty, torus, rx, ry) & mask))) {
            on |= 1u << k;
            w += (uint)(min(OW, nw - tx * OW) * min(OH, rows - ty * OH));
        }
    }
    uint at = 0;
    if (on) {
        at = atomic_add(&n, popcount(on));
        atomic_add(&words, w);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0 && n) {
        base = atomic_add(&count[slot], n);
        atomic_add(&count[2 + slot], words);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < LIST_TPI; k++)
        if ((on >> k) & 1) list[base + at++] = t0 + k;
}

#endif /* the list */
#if defined(LIFE_PROG_SPARSE)

/* K generations of the tile (tx, ty) as life_bits computes its group's
 * tile; the interior goes to out, and ACT_CHG / ACT_LIVE of what this
 * work-item wrote are returned. Barriers as life_bits's, the last one
 * after the final generation (the interior is read from local memory). */
HELPER uint sparse_tile(__global const word *restrict in, __global word *restrict out,
                        __local word *tile, int rows, int cols, int bnd, int nw, int gens, int tx,
                        int ty)
{
    const int lx = get_local_id(0), ly = get_local_id(1);
    geom g;
    g.bnd = bnd;
    g.rbase = ty * (ER - 2 * K) - K;
    g.cbase = tx * (TW - 2 * HW) - HW;
    g.rows = rows;
    g.nw = nw;
    g.rem = cols % WBITS;
    g.vwrap = bnd == B_TORUS;
    g.hwrap = bnd == B_TORUS;
    const int x0 = lx * NV, lr0 = ly * S, C0 = g.cbase + x0;
    const int xl = max(x0 - 1, 0), xr = min(x0 + NV, TW - 1);
    const int R0 = g.rbase + lr0;
    if (R0 >= 0 && R0 + S <= rows && C0 >= 0 && C0 + NV <= nw - (g.hwrap && g.rem != 0)) {
#pragma unroll
        for (int s = 0; s < S; s++)
            for (int i = 0; i < NV; i++)
                T(tile, lr0 + s, x0 + i) =
                    GLOAD(in + (size_t)(R0 + s) * (size_t)nw + (size_t)(C0 + i));
    } else {
#pragma unroll 1
        for (int s = 0; s < S; s++)
            for (int i = 0; i < NV; i++)
                T(tile, lr0 + s, x0 + i) = fetch(in, &g, R0 + s, C0 + i, cols);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
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
        const int rest = lr0 + S - 1 <= gen || lr0 >= ER - 1 - gen;
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
    __local const word *fin = tile + (DBUF ? (gens & 1) * BUFW : 0);
    uint act = 0;
    for (int s = 0; s < S; s++) {
        const int lr = lr0 + s, R = g.rbase + lr;
        if (lr < K || lr >= ER - K || R >= rows) continue;
        for (int i = 0; i < NV; i++) {
            const int x = x0 + i, C = g.cbase + x;
            if (x < HW || x >= TW - HW || C >= nw) continue;
            const word keep = (C == nw - 1 && g.rem) ? ((word)1 << g.rem) - 1 : ONES;
            const size_t at = (size_t)R * (size_t)nw + (size_t)C;
            const word v = T(fin, lr, x) & keep;
            act |= (v != in[at] ? ACT_CHG : 0) | (v ? ACT_LIVE : 0);
            out[at] = v;
        }
    }
    return act;
}

/* Computes the tiles of list[0 .. count[slot]), each group a tile at a
 * time (as many groups as the host launches, fewer than the tiles: a
 * launch with few tiles costs few groups), and records each tile's act.
 * All work-items of a group take the same tiles, so the barriers inside
 * are reached by all. */
__kernel __attribute__((reqd_work_group_size(LX, LY, 1))) void
life_sparse(__global const word *restrict in, __global word *restrict out, const int rows,
            const int cols, const int bnd, const int nw, const int gens,
            __global const int *restrict list, __global const uint *restrict count,
            __global uchar *restrict act, const int ntx, const int slot)
{
    __local lword tile_v[(DBUF ? 2 : 1) * BUFW / NV];
    __local word *tile = (__local word *)tile_v;
    __local uint flags;
    const int lx = get_local_id(0), ly = get_local_id(1), first = lx == 0 && ly == 0;
    for (int i = 0; i < NV && (ly == 0 || ly == LY - 1); i++)
        for (int b = 0; b < (DBUF ? 2 : 1); b++) {
            if (ly == 0) T(tile + b * BUFW, -1, lx * NV + i) = 0;
            if (ly == LY - 1) T(tile + b * BUFW, ER, lx * NV + i) = 0;
        }
    const uint n = count[slot];
    for (uint j = get_group_id(0); j < n; j += get_num_groups(0)) {
        const int t = list[j];
        if (first) flags = 0;
        const uint a = sparse_tile(in, out, tile, rows, cols, bnd, nw, gens, t % ntx, t / ntx);
        if (a) atomic_or(&flags, a);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (first) act[t] = (uchar)flags;
    }
}
#endif /* life_sparse */

/* life_sparse1: one generation of the tiles of list[0 .. count[slot]) as
 * life_bits1 computes them, straight from global memory, a tile (VW words
 * by S rows) per work-item, each work-item taking tiles of the list in
 * turn; no local memory, no barrier (the choice on CPUs, as life_bits1).
 * The work-item records its tile's act. */
#if defined(LIFE_PROG_BITS1) && defined(SPARSE1)

/* OR of a vector's words. */
HELPER word or_words(lword v)
{
    word a[VW], r = 0;
    VSTORE(v, a);
    for (int i = 0; i < VW; i++)
        r |= a[i];
    return r;
}

/* Stores row R's words of a tile at the grid's side as store_edge does,
 * and returns their act bits against the input. */
HELPER uint store_act(__global const word *in, __global word *out, int nw, int rem, int R, int C0,
                      lword v)
{
    word a[VW];
    uint act = 0;
    VSTORE(v, a);
    for (int i = 0; i < VW && C0 + i < nw; i++) {
        const int C = C0 + i;
        const word keep = (C == nw - 1 && rem) ? ((word)1 << rem) - 1 : ONES;
        const size_t at = (size_t)R * (size_t)nw + (size_t)C;
        const word w = a[i] & keep;
        act |= (w != in[at] ? ACT_CHG : 0) | (w ? ACT_LIVE : 0);
        out[at] = w;
    }
    return act;
}

/* One generation of tile t; returns its act bits. */
HELPER uchar sparse1_tile(__global const word *restrict in, __global word *restrict out, int rows,
                          int cols, int bnd, int nw, int ntx, int t)
{
    const int C0 = (t % ntx) * VW, r0 = (t / ntx) * S;
    const int rem = cols % WBITS, edge = C0 == 0 || C0 + VW >= nw;
    const int rend = min(r0 + S, rows);
    lword a0, a1, b0, b1, c0, c1, alive, nxt, amid, diff = (lword)(0), live = (lword)(0);
    uint act = 0;
    grid_row_sum(in, bnd, rows, nw, rem, r0 - 1, C0, edge, &a0, &a1, &amid);
    grid_row_sum(in, bnd, rows, nw, rem, r0, C0, edge, &b0, &b1, &alive);
    for (int R = r0; R < rend; R++) {
        grid_row_sum(in, bnd, rows, nw, rem, R + 1, C0, edge, &c0, &c1, &nxt);
        const lword v = next_word(a0, a1, b0, b1, c0, c1, alive, amid, nxt);
        if (edge) {
            act |= store_act(in, out, nw, rem, R, C0, v);
        } else {
            VSTORE(v, out + (size_t)R * (size_t)nw + (size_t)C0);
            diff |= v ^ alive;
            live |= v;
        }
        a0 = b0;
        a1 = b1;
        b0 = c0;
        b1 = c1;
        amid = alive;
        alive = nxt;
    }
    return (uchar)(act | (or_words(diff) ? ACT_CHG : 0) | (or_words(live) ? ACT_LIVE : 0));
}

__kernel void life_sparse1(__global const word *restrict in, __global word *restrict out,
                           const int rows, const int cols, const int bnd, const int nw,
                           __global const int *restrict list, __global const uint *restrict count,
                           __global uchar *restrict act, const int ntx, const int slot)
{
    const uint n = count[slot];
    for (uint j = get_global_id(0); j < n; j += get_global_size(0)) {
        const int t = list[j];
        act[t] = sparse1_tile(in, out, rows, cols, bnd, nw, ntx, t);
    }
}
#endif /* life_sparse1 */
