/* Life's kernels: one generation per launch from global memory (life_bits1).
 * Built after prelude.cl, in the programs src/ops/life/life_prog.c lists. */

/* ---- bit-packed, one generation per launch, straight from global memory ---- */
/* life_bits1: work-item (x, y) owns VW words from word x*VW, as one vector,
 * in the S rows from y*S, and slides down them keeping three row sums. No
 * local memory and no barrier: on a CPU the caches do the tile's work, the
 * work-items run without the synchronisation a barrier costs there, and the
 * vectors fill the SIMD registers. */

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
