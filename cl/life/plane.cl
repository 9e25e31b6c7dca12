/* life_plane: one generation of the tile plane (src/ops/life/life_plane.c).
 *
 * The plane is a pool of tiles of 64 x 64 cells, a 64-bit word a row (bit
 * b of a row is cell b, the lowest bit the leftmost cell, as in the dense
 * kernels). Only tiles near live cells exist; a missing tile is all dead.
 * The host lists the tiles to advance (act, 9 ints a tile: its slot, then
 * the slots of its 8 neighbours NW, N, NE, W, E, SW, S, SE, -1 for a
 * missing one), so the kernel never looks a coordinate up; one list, one
 * upload a generation.
 *
 * A work-group is one listed tile, a work-item one of its rows: it reads
 * the rows above, at and below it from the tile and its neighbours, runs
 * the prelude's adder network (WBITS 64, Moore) and writes the new row into
 * the other buffer of the same slot. Tiles not listed are not touched:
 * the host lists every tile that changed or has a changed neighbour, so
 * an unlisted tile holds the same cells in both buffers.
 *
 * Per tile the group reports its flags (PF_* below, the same bits as
 * life_plane.c) and its live cells, two words side by side in out, so the
 * host downloads them in one read and never the cells. */

#define PF_CHANGED 1u
#define PF_ALIVE 2u
#define PF_N 4u
#define PF_S 8u
#define PF_W 16u
#define PF_E 32u
#define PF_NW 64u
#define PF_NE 128u
#define PF_SW 256u
#define PF_SE 512u

#define TROWS 64

/* Row r of the tile in slot s, all dead for a missing tile. */
HELPER ulong tile_row(__global const ulong *cur, int s, int r)
{
    return s < 0 ? 0 : cur[(size_t)s * TROWS + r];
}

/* The row sums of one row of cells: west word, centre, east word. */
HELPER void sums_of(__global const ulong *cur, int w, int c, int e, int r, ulong *s0, ulong *s1)
{
    row_sum3(tile_row(cur, w, r), tile_row(cur, c, r), tile_row(cur, e, r), s0, s1);
}

__kernel __attribute__((reqd_work_group_size(TROWS, 1, 1))) void
life_plane(__global const ulong *restrict cur, __global ulong *restrict next,
           __global const int *restrict act, __global uint *restrict out)
{
    __local uint lflags, lpop;
    const int t = (int)get_group_id(0), r = (int)get_local_id(0);
    const int s = act[(size_t)t * 9];
    __global const int *nb = act + (size_t)t * 9 + 1;
    const int w = nb[3], e = nb[4];
    if (r == 0) lflags = lpop = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    ulong a0, a1, b0, b1, c0, c1;
    if (r > 0)
        sums_of(cur, w, s, e, r - 1, &a0, &a1);
    else
        sums_of(cur, nb[0], nb[1], nb[2], TROWS - 1, &a0, &a1);
    sums_of(cur, w, s, e, r, &b0, &b1);
    if (r < TROWS - 1)
        sums_of(cur, w, s, e, r + 1, &c0, &c1);
    else
        sums_of(cur, nb[5], nb[6], nb[7], 0, &c0, &c1);
    const ulong alive = cur[(size_t)s * TROWS + r];
    const ulong n = next_word(a0, a1, b0, b1, c0, c1, alive, 0, 0);
    next[(size_t)s * TROWS + r] = n;
    uint f = (n != alive ? PF_CHANGED : 0u);
    if (n) {
        const uint lo = (uint)(n & 1), hi = (uint)(n >> 63);
        f |= PF_ALIVE | (lo ? PF_W : 0u) | (hi ? PF_E : 0u);
        if (r == 0) f |= PF_N | (lo ? PF_NW : 0u) | (hi ? PF_NE : 0u);
        if (r == TROWS - 1) f |= PF_S | (lo ? PF_SW : 0u) | (hi ? PF_SE : 0u);
        atomic_add(&lpop, (uint)popcount(n));
    }
    if (f) atomic_or(&lflags, f);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (r == 0) {
        out[2 * (size_t)t] = lflags;
        out[2 * (size_t)t + 1] = lpop;
    }
}

/* Zeroes the slots listed (new tiles) in one buffer: a work-group a slot,
 * a work-item a row. */
__kernel __attribute__((reqd_work_group_size(TROWS, 1, 1))) void
life_plane_clear(__global ulong *restrict buf, __global const int *restrict list)
{
    buf[(size_t)list[get_group_id(0)] * TROWS + get_local_id(0)] = 0;
}
