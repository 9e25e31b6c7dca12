/* Life's kernels, the prelude of every program (src/ops/life/life_prog.c
 * lists each program's files): the rule, the boundaries, and for the
 * bit-packed kernels the word type, the adder network and the geometry.
 *
 * Life-like cellular automata: one generation of any B/S rule per cell,
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
    defined(LIFE_PROG_STREAM) + defined(LIFE_PROG_PLANE) != 1
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
#endif /* !LIFE_PROG_BYTES */
