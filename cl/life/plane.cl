/* life_plane: up to K generations of the tile plane a launch
 * (src/ops/life/life_plane.c).
 *
 * The plane is a pool of tiles of 64 x 64 cells, a 64-bit word a row (bit
 * b of a row is cell b, the lowest bit the leftmost cell, as in the dense
 * kernels). Only tiles near live cells exist; a missing tile is all dead.
 * The host lists the tiles to advance (act, 9 ints a tile: its slot, then
 * the slots of its 8 neighbours NW, N, NE, W, E, SW, S, SE, -1 for a
 * missing one), so the kernel never looks a coordinate up; one list, one
 * upload a launch.
 *
 * A listed tile is advanced gens <= K generations (K <= 32) in a frame of
 * its own: the rows from K above it to K below it, each as two words
 * holding the columns -32..95 (the tile's 64 and 32 of each side
 * neighbour). Outside the frame counts as dead; the wrong cells that makes
 * creep inwards a cell a generation, so after gens <= K generations the
 * centre 64 x 64 is exact, and only it is written (into the other buffer of
 * the same slot). Tiles not listed are not touched: the host lists every
 * tile that may change within the launch, so an unlisted tile holds the
 * same cells in both buffers.
 *
 * Two shapes, the same cells: life_plane, a work-group a tile and a
 * work-item a frame row in local memory (GPUs; where the compiled kernel
 * allows fewer items than the frame's rows, the host builds it with
 * PLANE_WG items, each taking every PLANE_WG-th row), and life_plane_wi, a
 * work-item a tile sweeping its frame in private memory, computing at each
 * generation only the rows the centre still depends on (CPUs; its frame's
 * words overlap instead, so it needs K <= 16).
 *
 * Per tile the kernel reports its flags (PF_* below, the same bits as
 * life_plane.c) and its live cells, two words side by side in out, so the
 * host downloads them in one read and never the cells: whether cells are
 * alive, changed (differ between the last two generations) and moved
 * (differ from before the launch: the tile's two buffers differ), each
 * anywhere and within K cells of each edge and corner (the band a launch
 * may carry into that neighbour, or the neighbour's launch reads).
 *
 * Built with PLANE_BOUND, the plane is a fixed grid with a dead edge: the
 * host creates no tile outside it, and each listed tile carries a tenth
 * int, the frame's columns and rows inside the grid (relative to the
 * tile's top-left cell, each end clamped to -64..128 and stored plus 64,
 * a byte each: first column, end column, first row, end row). Every
 * generation clears the frame's cells outside, so the cells beyond the
 * grid's far edges, in a partial tile or in the frame, stay dead. */

/* Bits 0..7: live cells in the band facing each neighbour, in act's order;
 * the same for changed cells from SH_CHANGED and for moved from SH_MOVED. */
#define PF_ALIVE (1u << 8)
#define SH_CHANGED 9
#define PF_CHANGED (1u << 17)
#define SH_MOVED 18
#define PF_MOVED (1u << 26)

#define TROWS 64
#define SLOTW 65 /* words a slot: the rows, then the rows that changed in the last generation */
#ifndef PLANE_K
#define PLANE_K 16 /* the most generations a launch; the width of the edge flags' bands */
#endif
#if PLANE_K < 1 || PLANE_K > 32
#error "PLANE_K must be 1..32"
#endif
#define FR (TROWS + 2 * PLANE_K) /* frame rows */
#ifndef PLANE_WG
#define PLANE_WG FR /* life_plane's work-items a tile: each takes every PLANE_WG-th frame row */
#endif

#ifdef PLANE_BOUND
#define ACTW 10 /* ints a listed tile: slot, 8 neighbours, the grid's part of the frame */
#else
#define ACTW 9
#endif

#define BAND_LO ((1ul << PLANE_K) - 1ul) /* the west band's bits */
#define BAND_HI (BAND_LO << (64 - PLANE_K))

#ifdef PLANE_BOUND
/* Bits a..b-1 of a word, the ends clamped to 0..64. */
HELPER ulong bits_between(int a, int b)
{
    a = clamp(a, 0, 64);
    b = clamp(b, 0, 64);
    if (b <= a) return 0;
    return (b == 64 ? ~0ul : (1ul << b) - 1ul) & ~((1ul << a) - 1ul);
}

/* Field k (0..3) of a listed tile's bound word, back to -64..128. */
HELPER int bound_field(uint w, int k)
{
    return (int)((w >> (8 * k)) & 0xffu) - 64;
}
#endif

/* Row y (-64..127) of the 3 x 3 tiles around the listed tile t as the
 * frame's two words: columns -32..31 and 32..95. */
HELPER void frame_row(__global const ulong *cur, __global const int *a, int y, ulong *lo, ulong *hi)
{
    const int band = y < 0 ? 0 : y < TROWS ? 3 : 5;
    const int ry = y < 0 ? y + TROWS : y < TROWS ? y : y - TROWS;
    const int sw = a[1 + band], sc = band == 3 ? a[0] : a[2 + band],
              se = a[band == 3 ? 5 : 3 + band];
    const ulong w = sw < 0 ? 0 : cur[(size_t)sw * SLOTW + ry];
    const ulong c = sc < 0 ? 0 : cur[(size_t)sc * SLOTW + ry];
    const ulong e = se < 0 ? 0 : cur[(size_t)se * SLOTW + ry];
    *lo = (w >> 32) | (c << 32);
    *hi = (c >> 32) | (e << 32);
}

/* The next state of a frame row (lo, hi) from the rows above (u) and below
 * (d); nothing lies beyond the frame's two words. */
HELPER void frame_next(ulong ulo, ulong uhi, ulong lo, ulong hi, ulong dlo, ulong dhi, ulong *nlo,
                       ulong *nhi)
{
    ulong a0, a1, b0, b1, c0, c1;
    row_sum3(0, ulo, uhi, &a0, &a1);
    row_sum3(0, lo, hi, &b0, &b1);
    row_sum3(0, dlo, dhi, &c0, &c1);
    *nlo = next_word(a0, a1, b0, b1, c0, c1, lo, 0, 0);
    row_sum3(ulo, uhi, 0, &a0, &a1);
    row_sum3(lo, hi, 0, &b0, &b1);
    row_sum3(dlo, dhi, 0, &c0, &c1);
    *nhi = next_word(a0, a1, b0, b1, c0, c1, hi, 0, 0);
}

/* Which neighbours' bands (bits 0..7) the set cells of v, row r (0..63) of
 * the tile, lie in. */
HELPER uint band_bits(int r, ulong v)
{
    if (!v) return 0u;
    const uint w = (v & BAND_LO) ? 1u : 0u, e = (v & BAND_HI) ? 1u : 0u;
    const uint n = r < PLANE_K ? 1u : 0u, s = r >= TROWS - PLANE_K ? 1u : 0u;
    return (n & w) | n << 1 | (n & e) << 2 | w << 3 | e << 4 | (s & w) << 5 | s << 6 | (s & e) << 7;
}

/* The flags of row r of the tile: n its cells now, last a generation
 * before, first before the launch. */
HELPER uint row_flags(int r, ulong n, ulong last, ulong first)
{
    const ulong c = n ^ last, m = n ^ first;
    return (n ? PF_ALIVE | band_bits(r, n) : 0u) |
           (c ? PF_CHANGED | band_bits(r, c) << SH_CHANGED : 0u) |
           (m ? PF_MOVED | band_bits(r, m) << SH_MOVED : 0u);
}

__kernel __attribute__((reqd_work_group_size(PLANE_WG, 1, 1))) void
life_plane(__global const ulong *restrict cur, __global ulong *restrict next,
           __global const int *restrict act, __global uint *restrict out, int gens)
{
    __local ulong fb[2][FR + 2][2]; /* two frames, a dead row above and below each */
    __local uint lflags, lpop;
    const int t = (int)get_group_id(0), l = (int)get_local_id(0);
    __global const int *a = act + (size_t)t * ACTW;
#ifdef PLANE_BOUND
    /* the frame's words hold columns -32..31 and 32..95 */
    const uint bw = (uint)a[9];
    const int c0 = bound_field(bw, 0), c1 = bound_field(bw, 1);
    const int r0 = bound_field(bw, 2) + PLANE_K, r1 = bound_field(bw, 3) + PLANE_K;
    const ulong blo = bits_between(c0 + 32, c1 + 32), bhi = bits_between(c0 - 32, c1 - 32);
#endif
    if (l == 0) {
        lflags = lpop = 0;
        for (int b = 0; b < 2; b++)
            fb[b][0][0] = fb[b][0][1] = fb[b][FR + 1][0] = fb[b][FR + 1][1] = 0;
    }
    for (int i = l; i < FR; i += PLANE_WG) {
        ulong lo, hi;
        frame_row(cur, a, i - PLANE_K, &lo, &hi);
        fb[0][i + 1][0] = lo;
        fb[0][i + 1][1] = hi;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int b = 0;
    for (int g = 0; g < gens; g++, b = !b) {
        __local ulong(*f)[2] = fb[b];
        for (int i = l; i < FR; i += PLANE_WG) {
            ulong lo, hi;
            frame_next(f[i][0], f[i][1], f[i + 1][0], f[i + 1][1], f[i + 2][0], f[i + 2][1], &lo,
                       &hi);
#ifdef PLANE_BOUND
            const ulong inside = i >= r0 && i < r1 ? ~0ul : 0ul;
            lo &= blo & inside;
            hi &= bhi & inside;
#endif
            fb[!b][i + 1][0] = lo;
            fb[!b][i + 1][1] = hi;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* fb[!b] holds the generation before the last (nothing wrote it since) */
    for (int i = l; i < FR; i += PLANE_WG) {
        const int r = i - PLANE_K;
        if (r < 0 || r >= TROWS) continue;
        const ulong n = (fb[b][i + 1][0] >> 32) | (fb[b][i + 1][1] << 32);
        const ulong prev = gens > 0 ? (fb[!b][i + 1][0] >> 32) | (fb[!b][i + 1][1] << 32) : 0;
        const size_t at = (size_t)a[0] * SLOTW + r;
        next[at] = n;
        const uint f = row_flags(r, n, prev, cur[at]);
        if (r == 0) next[(size_t)a[0] * SLOTW + TROWS] = ~0ul; /* not used by this shape */
        if (f) atomic_or(&lflags, f);
        if (n) atomic_add(&lpop, (uint)popcount(n));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        out[2 * (size_t)t] = lflags;
        out[2 * (size_t)t + 1] = lpop;
    }
}

/* The changed-rows word (word 64) of slot s, 0 for a missing tile. */
HELPER ulong moved_rows(__global const ulong *cur, int s)
{
    return s < 0 ? 0 : cur[(size_t)s * SLOTW + TROWS];
}

/* Sets in (*lo, *hi) the rows i (0..127: bit i of lo, i - 64 of hi) next to
 * a row of (lo, hi) within [a, b]. */
HELPER void near_rows(ulong *lo, ulong *hi, int a, int b)
{
    const ulong l = *lo, h = *hi;
    ulong nl = l | (l << 1) | (l >> 1) | (h << 63), nh = h | (h << 1) | (h >> 1) | (l >> 63);
    /* rows a..b */
    const ulong al = a >= 64 ? 0 : ~0ul << a, ah = a >= 64 ? ~0ul << (a - 64) : ~0ul;
    const ulong bl = b >= 63 ? ~0ul : (2ul << b) - 1, bh = b >= 127 ? ~0ul : b < 64 ? 0 : (2ul << (b - 64)) - 1;
    *lo = nl & al & bl;
    *hi = nh & ah & bh;
}

#if PLANE_K <= 16
/* Rows r0 .. r0 + n - 1 of the slots w, c, e (-1: a missing tile, dead)
 * as the CPU frame's two words, columns -K..63-K and K..63+K: a loop for
 * each case, so that the loads are of consecutive words, not gathered a
 * row at a time. */
HELPER void load_band(__global const ulong *cur, int w, int c, int e, int r0, int n, ulong *lo,
                      ulong *hi)
{
    __global const ulong *pw = cur + (size_t)(w < 0 ? 0 : w) * SLOTW + r0;
    __global const ulong *pc = cur + (size_t)(c < 0 ? 0 : c) * SLOTW + r0;
    __global const ulong *pe = cur + (size_t)(e < 0 ? 0 : e) * SLOTW + r0;
    if (c < 0)
        for (int i = 0; i < n; i++)
            lo[i] = hi[i] = 0;
    else
        for (int i = 0; i < n; i++) {
            lo[i] = pc[i] << PLANE_K;
            hi[i] = pc[i] >> PLANE_K;
        }
    if (w >= 0)
        for (int i = 0; i < n; i++)
            lo[i] |= pw[i] >> (64 - PLANE_K);
    if (e >= 0)
        for (int i = 0; i < n; i++)
            hi[i] |= pe[i] << (64 - PLANE_K);
}

/* The row sums of a word whose outside counts as dead. */
HELPER void word_sums(ulong v, ulong *s0, ulong *s1)
{
    const ulong w = v << 1, e = v >> 1;
    *s0 = w ^ v ^ e;
    *s1 = MAJ(w, v, e);
}

/* The same, a work-item a tile, in private memory, for K <= 16. A frame
 * row is two words that never exchange cells: lo the columns -K..63-K,
 * hi K..63+K, each advanced as if dead beyond its ends. Their wrong cells
 * creep in a column a generation, so after gens <= K generations lo is
 * right on 0..63-2K and hi on 2K..63, which meet; and a row costs two
 * independent words, no carries between them.
 *
 * Generation g (1..gens) computes only rows next to a row that changed in
 * the generation before (a row whose three rows stayed stays), the first
 * generation's from the rows each tile of the 3 x 3 changed in its last
 * (word 64 of its slot), and only the rows the centre still depends on,
 * K - r .. K + 63 + r with r = gens - g. A change counts only within the
 * columns the centre still depends on (-r .. 31 + r for lo, 32 - r .. 63 +
 * r for hi), where each word is right, so the wrong cells at its ends never
 * keep a row busy. A glider crossing a tile costs a few rows a generation,
 * not the frame. A run of adjacent rows computes each row's sums once and
 * keeps them for its neighbours below, and marks changed rows without a
 * branch (which row changes is not predictable). */
__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void
life_plane_wi(__global ulong *restrict cur, __global ulong *restrict next,
              __global const int *restrict act, __global uint *restrict out, int gens)
{
    const int t = (int)get_global_id(0);
    __global const int *a = act + (size_t)t * ACTW;
#ifdef PLANE_BOUND
    /* lo holds columns -K..63-K, hi K..63+K; frame row i is tile row i - K */
    const uint bw = (uint)a[9];
    const int c0 = bound_field(bw, 0), c1 = bound_field(bw, 1);
    const int r0 = bound_field(bw, 2) + PLANE_K, r1 = bound_field(bw, 3) + PLANE_K;
    const ulong blo = bits_between(c0 + PLANE_K, c1 + PLANE_K),
                bhi = bits_between(c0 - PLANE_K, c1 - PLANE_K);
#endif
    /* a new tile comes as -2 - its slot: dead, whatever its slot holds,
     * which this item clears (no other reads it: the host lists it as
     * missing to its neighbours) */
    const int self = a[0] < 0 ? -2 - a[0] : a[0], old = a[0] < 0 ? -1 : self;
    ulong fl[FR], fh[FR];
    load_band(cur, a[1], a[2], a[3], TROWS - gens, gens, fl + PLANE_K - gens, fh + PLANE_K - gens);
    load_band(cur, a[4], old, a[5], 0, TROWS, fl + PLANE_K, fh + PLANE_K);
    load_band(cur, a[6], a[7], a[8], 0, gens, fl + PLANE_K + TROWS, fh + PLANE_K + TROWS);
    /* the frame's rows that changed in the last generation, rows 0..127 */
    const ulong top = moved_rows(cur, a[1]) | moved_rows(cur, a[2]) | moved_rows(cur, a[3]);
    const ulong mid = moved_rows(cur, a[4]) | moved_rows(cur, old) | moved_rows(cur, a[5]);
    const ulong bot = moved_rows(cur, a[6]) | moved_rows(cur, a[7]) | moved_rows(cur, a[8]);
    ulong ml = (top >> (64 - PLANE_K)) | (mid << PLANE_K);
    ulong mh = (mid >> (64 - PLANE_K)) | ((bot & BAND_LO) << PLANE_K);
    for (int g = 1; g <= gens; g++) {
        const int r = gens - g, lo = PLANE_K - r, hi = PLANE_K + TROWS - 1 + r;
        /* the columns that count, as bits of lo and of hi */
        const ulong cl = (~0ul << (PLANE_K - r)) & (~0ul >> (32 - PLANE_K - r));
        const ulong ch = (~0ul << (32 - PLANE_K - r)) & (~0ul >> (PLANE_K - r));
        ulong dl = ml, dh = mh;
        near_rows(&dl, &dh, lo, hi);
        ml = mh = 0;
        /* the row sums of rows i - 1 and i before this generation */
        ulong al0 = 0, al1 = 0, ah0 = 0, ah1 = 0, bl0 = 0, bl1 = 0, bh0 = 0, bh1 = 0;
        int last = -2;
        for (int part = 0; part < 2; part++) {
            ulong m = 0;
            for (ulong d = part ? dh : dl; d; d &= d - 1) {
                const int i = (int)(part * 64 + (int)(63 - clz(d & (0ul - d))));
                if (last != i - 1) {
                    word_sums(fl[i - 1], &al0, &al1);
                    word_sums(fh[i - 1], &ah0, &ah1);
                    word_sums(fl[i], &bl0, &bl1);
                    word_sums(fh[i], &bh0, &bh1);
                }
                ulong cl0, cl1, ch0, ch1;
                word_sums(fl[i + 1], &cl0, &cl1);
                word_sums(fh[i + 1], &ch0, &ch1);
                const ulong ol = fl[i], oh = fh[i];
#ifdef PLANE_BOUND
                const ulong inside = i >= r0 && i < r1 ? ~0ul : 0ul;
                const ulong nl = next_word(al0, al1, bl0, bl1, cl0, cl1, ol, 0, 0) & blo & inside;
                const ulong nh = next_word(ah0, ah1, bh0, bh1, ch0, ch1, oh, 0, 0) & bhi & inside;
#else
                const ulong nl = next_word(al0, al1, bl0, bl1, cl0, cl1, ol, 0, 0);
                const ulong nh = next_word(ah0, ah1, bh0, bh1, ch0, ch1, oh, 0, 0);
#endif
                fl[i] = nl;
                fh[i] = nh;
                m |= (ulong)((((nl ^ ol) & cl) | ((nh ^ oh) & ch)) != 0) << (i & 63);
                al0 = bl0, al1 = bl1, ah0 = bh0, ah1 = bh1;
                bl0 = cl0, bl1 = cl1, bh0 = ch0, bh1 = ch1;
                last = i;
            }
            if (part)
                mh = m;
            else
                ml = m;
        }
    }
    /* the centre: written whole, its flags; ml, mh now the last generation's changes */
    const ulong rows = (ml >> PLANE_K) | (mh << (64 - PLANE_K));
    uint flags = 0, pop = 0;
    for (int r = 0; r < TROWS; r++) {
        const int i = r + PLANE_K;
        const ulong n = ((fl[i] >> PLANE_K) & 0xfffffffful) | ((fh[i] << PLANE_K) & ~0xfffffffful);
        const size_t at = (size_t)self * SLOTW + r;
        const ulong first = old < 0 ? 0 : cur[at];
        flags |= row_flags(r, n, ((rows >> r) & 1) ? ~n : n, first);
        pop += (uint)popcount(n);
        next[at] = n;
        if (old < 0) cur[at] = 0;
    }
    /* the changed rows need only be a superset of the true ones: the other
     * buffer's must hold these too, else the tile is listed again */
    const size_t m = (size_t)self * SLOTW + TROWS;
    const ulong mold = old < 0 ? 0 : cur[m];
    next[m] = rows;
    if (old < 0) cur[m] = 0;
    out[2 * (size_t)t] = flags | ((rows & ~mold) ? PF_MOVED : 0u);
    out[2 * (size_t)t + 1] = pop;
}
#endif

/* (The GPU shape; life_plane_wi clears its new tiles itself.) Zeroes the
 * slots listed (new tiles) in one buffer, rows and changed rows
 * (a new tile was dead and stays so until computed): a work-group a slot,
 * its items (as many as the kernel allows, at most a slot's words) taking
 * every local-size-th word. */
__kernel void life_plane_clear(__global ulong *restrict buf, __global const int *restrict list)
{
    const size_t s = (size_t)list[get_group_id(0)] * SLOTW;
    for (size_t w = get_local_id(0); w < SLOTW; w += get_local_size(0))
        buf[s + w] = 0;
}
