/* Life's kernels: sparse tiles (life_sparse_list, life_sparse, life_sparse1).
 * Built after prelude.cl, in the programs src/ops/life/life_prog.c lists. */

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
