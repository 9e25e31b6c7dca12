/* Life's kernels: bands of whole rows in a CPU's cache (life_band).
 * Built after prelude.cl, in the programs src/ops/life/life_prog.c lists. */

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
