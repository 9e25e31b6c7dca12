/* Life's kernels: bit-packed tiles, bands, one group and registers (life_bits, life_flow).
 * Built after prelude.cl, in the programs src/ops/life/life_prog.c lists. */

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
