/* The mean kernels (after prelude.cl): the mean of every T x U tile (T rows
 * by U columns) of a row-major matrix, tuned to the device's read ceiling.
 * Several planes (global id 2 picks one) are averaged alike. Edge tiles
 * that hang over the matrix average only the cells they hold.
 *
 * Two kernels: tile_avg (BAND 0, the cpu and gpu variants), described
 * here, and tile_avg_band (BAND 1, the band variant for short wide tiles),
 * described at its section below.
 *
 * Work-item: owns a run of W consecutive values of a row, read as NV vector
 * loads of VW, over RPI consecutive rows of a tile row, and keeps a partial
 * sum per vector lane in registers while it walks those rows.
 *   SX == 1: the run holds NT whole tiles (W = NT * U) and, for short tiles,
 *            the item repeats this for MY tile rows, one below the other;
 *   SX  > 1: a tile is wider than a run; SX items own its runs side by side.
 * When T > RPI, SY items share a tile's rows (then MY == 1). A team is the
 * S = SX * SY items that share tiles.
 *
 * Work-group: (TX * SX, TY * SY, 1) items, TX x TY teams. Global id 0 runs
 * along the row, so adjacent items read adjacent runs: loads coalesce on a
 * GPU and stream on a CPU. Global id 1 runs down tile rows.
 *
 * Barriers: none when S == 1. Otherwise each item stores its partial sums in
 * __local memory and the team adds them as a binary tree of log2(S2) steps
 * (S2: S rounded up to a power of two), with a barrier before each step as
 * a step reads what the one before wrote. Items past the matrix take part
 * too, adding zeros, so every item meets every barrier. The team's first
 * item writes.
 *
 * Stages: with FINAL 0 the kernel writes tile sums instead of means, and the
 * host runs it again on those sums with a smaller tile. That reduces a large
 * tile in several barrier-free stages (the CPU variant). The final stage
 * divides by the cell count of the original tile: CT x CU cells of a
 * crows x ccols matrix, fewer at its edges.
 *
 * Lanes: when U is a power of two, tile sums come out of the vectors by
 * folding adjacent lanes (even + odd) or, for a whole vector, its halves:
 * pairwise trees either way; other widths go through a private array. Items
 * whose run crosses the matrix's right edge (or a tile's, when W does not
 * divide U) go element by element.
 *
 * Accuracy: ACC is double where the device has fp64; without it ACC is float
 * and the host keeps RPI short, the other additions being trees. RACC, the
 * type of the lean path's register sums, may be float where the host knows
 * the chains are short (at most 8 float rows, then trees).
 */
#ifndef DEREF
#define DEREF 0 /* 1: vector loads by dereference (for PoCL, see VIN) */
#endif
#ifndef BAND
#define BAND 0 /* 1: the row-band kernel tile_avg_band; 0: the staged kernel tile_avg */
#endif
#ifndef RACC
#define RACC ACC /* the lean path's register sums: float is enough for short float chains */
#endif
#ifndef T
#define T 2 /* tile rows, in input elements */
#endif
#ifndef U
#define U 2 /* tile columns, in input elements */
#endif
#ifndef LOG2U
#define LOG2U 1 /* log2(U) when U is a power of two, else -1 */
#endif
#ifndef VW
#define VW 4 /* vector width of a load: 1, 2, 4, 8 or 16 */
#endif
#ifndef SX
#define SX 1 /* items across one tile */
#endif
#ifndef NT
#define NT 2 /* whole tiles per item when SX == 1 */
#endif
#ifndef W
#define W (NT * U) /* values per row an item owns, a multiple of VW */
#endif
#ifndef RPI
#define RPI 2 /* rows per item */
#endif
#ifndef SY
#define SY 1 /* items down one tile */
#endif
#ifndef MY
#define MY 1 /* tile rows per item (when SY == 1) */
#endif
#ifndef TX
#define TX 64 /* teams per work-group along a row */
#endif
#ifndef TY
#define TY 1 /* teams per work-group down the matrix */
#endif
#ifndef FINAL
#define FINAL 1 /* 1: write means; 0: write sums for a further stage */
#endif
#ifndef CT
#define CT T /* rows of the original tile (final stage) */
#endif
#ifndef CU
#define CU U /* columns of the original tile (final stage) */
#endif

#define NV (W / VW)           /* vector loads per row */
#define S (SX * SY)           /* team size */
#define NP (SX == 1 ? NT : 1) /* partial sums per item and tile row */

#if S <= 1
#define S2 1
#elif S <= 2
#define S2 2
#elif S <= 4
#define S2 4
#elif S <= 8
#define S2 8
#elif S <= 16
#define S2 16
#elif S <= 32
#define S2 32
#elif S <= 64
#define S2 64
#elif S <= 128
#define S2 128
#elif S <= 256
#define S2 256
#elif S <= 512
#define S2 512
#elif S <= 1024
#define S2 1024
#elif S <= 2048
#define S2 2048
#else
#define S2 4096
#endif

/* VIN(p): the VW input values at p. With DEREF, a dereference of a vector
 * type aligned like its elements (an unaligned vector load to the
 * compiler) instead of vloadn, which PoCL builds from lane pairs when the
 * lanes are folded afterwards: several times the instructions. */
#if VW > 1 && DEREF
typedef CAT(IN, VW) __attribute__((aligned(sizeof(IN)))) in_vec;
#define VIN(p) (*(__global const in_vec *)(p))
#elif VW > 1
#define VIN(p) CAT(vload, VW)(0, (p))
#endif
#if VW == 1
#define VACC ACC
#define VLOAD(p) ((ACC)(p)[0])
#define VSTORE(x, i, p) ((p)[i] = (x))
#else
#define VACC CAT(ACC, VW)
#define VLOAD(p) CAT(convert_, VACC)(VIN(p))
#define VSTORE(x, i, p) CAT(vstore, VW)((x), (i), (p))
#endif
#if VW == 1
#define VRACC RACC
#define RLOAD(p) ((RACC)(p)[0])
#else
#define VRACC CAT(RACC, VW)
#define RLOAD(p) CAT(convert_, VRACC)(VIN(p))
#endif

/* Folds adjacent lanes pairwise: a vector of n lanes becomes n / 2 sums.
 * FOLD and HALVES expand x twice per level: pass a plain variable. */
#define FOLD(x) ((x).even + (x).odd)
/* Adds the halves: a tree over the lanes in the other order, for a whole
 * vector's sum. Not FOLD: compilers turn folds of loaded vectors into
 * loads of lane pairs. */
#define HALVES(x) ((x).lo + (x).hi)
#if VW == 1
#define HSUM(x) (x)
#elif VW == 2
#define HSUM(x) HALVES(x)
#elif VW == 4
#define HSUM(x) HALVES(HALVES(x))
#elif VW == 8
#define HSUM(x) HALVES(HALVES(HALVES(x)))
#else
#define HSUM(x) HALVES(HALVES(HALVES(HALVES(x))))
#endif

/* When U < VW, each vector folds LOG2U times into RW tile sums. */
#if LOG2U >= 0 && U < VW
#if LOG2U == 0
#define TFOLD(x) (x)
#elif LOG2U == 1
#define TFOLD(x) FOLD(x)
#elif LOG2U == 2
#define TFOLD(x) FOLD(FOLD(x))
#else
#define TFOLD(x) FOLD(FOLD(FOLD(x)))
#endif
#if VW / U == 16
#define RW 16
#elif VW / U == 8
#define RW 8
#elif VW / U == 4
#define RW 4
#else
#define RW 2
#endif
#endif

#if FINAL
#define SCALE ((ACC)1 / ((ACC)CT * (ACC)CU))
#else
#define SCALE ((ACC)1)
#endif

/* Adds n vectors as a pairwise tree, in registers. */
static VACC vec_tree(VACC *a, const int n)
{
#pragma unroll
    for (int h = 1; h < n; h *= 2)
#pragma unroll
        for (int k = 0; k + h < n; k += 2 * h)
            a[k] += a[k + h];
    return a[0];
}

#if BAND
/* ---- the row-band kernel: tile_avg_band ----------------------------------
 *
 * For tiles of few rows (1xU and the like), where a work-item alone has too
 * few loads per tile and the team of tile_avg would reduce a whole tile row
 * as a long local tree.
 *
 * Work-group: (BG * BS, BTY, 1) items covering a band of rows: BG tiles side
 * by side along the row, BS items (a team) per tile, BTY item rows of BMY
 * tile rows each. Global id 1 runs down the item rows.
 *
 * Work-item: item j of a team owns the vector slots j, j + BS, j + 2 BS ...
 * (BK slots of VW values) of its tile's U columns, over all T rows of each
 * of its BMY tiles (one below the other). At each slot the team's loads are
 * adjacent, and adjacent teams hold adjacent tiles, so a load instruction of
 * a GPU reads whole segments (coalesced); on a CPU, BS is 1 and an item
 * reads its tile's row runs whole. A slot's T rows are added in RACC, then
 * slots round-robin into BNA accumulators, a tree, and the VW lanes as a
 * tree: one partial sum per tile in registers.
 *
 * Barriers: none when BS == 1 (the item writes its means). Otherwise one:
 * every item stores its BMY partial sums in __local memory, then, after the
 * barrier, one item per tile adds the team's BS sums as a tree and writes
 * the mean; tiles side by side go to adjacent items, so the writes
 * coalesce. Items past the matrix store zeros and meet the barrier too.
 *
 * Edges: a tile cut by the matrix's right or bottom edge reads its cells
 * one by one (lanes past the edge as zeros) and adds them in the same order;
 * its mean divides by the cells it holds.
 */

#ifndef BS
#define BS 16 /* items per tile (a team), side by side along its row */
#endif
#ifndef BK
#define BK 4 /* vector slots per item and row: ceil(U / (VW * BS)) */
#endif
#ifndef BG
#define BG 16 /* tiles per work-group, side by side along a row */
#endif
#ifndef BMY
#define BMY 1 /* tile rows per item, one below the other */
#endif
#ifndef BTY
#define BTY 1 /* item rows per work-group */
#endif

/* Register accumulators per item: slots go round-robin into BNA vectors,
 * which are then added as a tree, so a chain in ACC is BK / BNA long (at
 * most 8 with the host's BK <= 64). */
#define BNA (BK < 8 ? BK : 8)
/* Slots of the last round: fewer than BS when U / VW is not a multiple of
 * BS, and then only those loads are guarded. */
#define BLAST ((U / VW) - (BK - 1) * BS)
#if BLAST == BS
#define BSLOT(k, j) 1
#else
#define BSLOT(k, j) ((k) < BK - 1 || (j) < BLAST)
#endif

/* The lanes of v added as a tree, through a private array: a tree of
 * shuffles instead lets compilers (PoCL's LLVM) narrow the loads feeding v
 * to pairs of lanes, at several times the cost. */
static ACC lanes_sum(VACC v)
{
#if VW == 1
    return v;
#else
    ACC l[VW];
    VSTORE(v, 0, l);
#pragma unroll
    for (int h = 1; h < VW; h *= 2)
#pragma unroll
        for (int k = 0; k + h < VW; k += 2 * h)
            l[k] += l[k + h];
    return l[0];
#endif
}

/* The sum of item j's slots over the T rows of a whole tile at p: each
 * slot's column of T vectors in RACC (float for up to 8 rows of float
 * input), then into the accumulators. */
static ACC band_whole(__global const IN *restrict p, const ulong cols, const int j)
{
    VACC a[BNA];
#pragma unroll
    for (int i = 0; i < BNA; i++)
        a[i] = (VACC)0;
#pragma unroll
    for (int k = 0; k < BK; k++)
        if (BSLOT(k, j)) {
            __global const IN *q = p + (k * BS + j) * VW;
            VRACC c = RLOAD(q);
            for (int r = 1; r < T; r++) /* unrolled by the compiler where short */
                c += RLOAD(q + r * cols);
            a[k % BNA] += CAT(convert_, VACC)(c);
        }
    return lanes_sum(vec_tree(a, BNA));
}

/* The same for a tile cut by the matrix's edges: nrows x ncols cells, lanes
 * past ncols read as zeros; the same order of additions. */
static ACC band_part(__global const IN *restrict p, const ulong cols, const int nrows,
                     const int ncols, const int j)
{
    VACC a[BNA];
    ACC l[VW];
#pragma unroll
    for (int i = 0; i < BNA; i++)
        a[i] = (VACC)0;
    for (int r = 0; r < nrows; r++, p += cols)
        for (int k = 0; k < BK; k++) {
            const int c = (k * BS + j) * VW;
            for (int e = 0; e < VW; e++)
                l[e] = c + e < ncols ? (ACC)p[c + e] : (ACC)0;
#if VW == 1
            a[k % BNA] += l[0];
#else
            a[k % BNA] += CAT(vload, VW)(0, l);
#endif
        }
    return lanes_sum(vec_tree(a, BNA));
}

/* Tile (tr, tc)'s partial sum from item j of its team, with the number of
 * cells the tile holds in *cells (0 for a tile past the matrix). */
static ACC band_tile(__global const IN *restrict in, const ulong rows, const ulong cols,
                     const ulong orows, const ulong ocols, const ulong tr, const ulong tc,
                     const int j, ACC *cells)
{
    const int nrows = tr < orows ? (int)min((ulong)T, rows - tr * T) : 0;
    const int ncols = tc < ocols ? (int)min((ulong)U, cols - tc * U) : 0;
    *cells = (ACC)nrows * (ACC)ncols;
    __global const IN *p = in + tr * T * cols + tc * U;
    if (nrows == T && ncols == U) return band_whole(p, cols, j);
    return nrows && ncols ? band_part(p, cols, nrows, ncols, j) : (ACC)0;
}

__kernel void tile_avg_band(__global const IN *restrict in, __global OUT *restrict out,
                            const ulong rows, const ulong cols, const ulong orows,
                            const ulong ocols, const ulong crows, const ulong ccols)
{
    (void)crows;
    (void)ccols;
    in += get_global_id(2) * rows * cols;
    out += get_global_id(2) * orows * ocols;
    const int lx = (int)get_local_id(0), j = lx % BS, g = lx / BS;
    const ulong tc = get_group_id(0) * BG + g;
    const ulong tr0 = get_global_id(1) * BMY;
    ACC part[BMY], cells;
#pragma unroll
    for (int m = 0; m < BMY; m++) {
        part[m] = band_tile(in, rows, cols, orows, ocols, tr0 + m, tc, j, &cells);
#if BS == 1
        if (cells > 0) out[(tr0 + m) * ocols + tc] = (OUT)(part[m] / cells);
#endif
    }
#if BS > 1
    /* one row of BS + 1 (odd) per tile: the readers below, one tile each,
     * then fall in different banks */
    __local ACC scratch[BTY * BMY * BG * (BS + 1)];
    const int ly = (int)get_local_id(1);
#pragma unroll
    for (int m = 0; m < BMY; m++)
        scratch[((ly * BMY + m) * BG + g) * (BS + 1) + j] = part[m];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* entry e: item row e / (BMY * BG), tile row (e / BG) % BMY, tile e % BG,
     * so adjacent items write adjacent means */
    for (int e = ly * BG * BS + lx; e < BTY * BMY * BG; e += BTY * BG * BS) {
        ACC v[BS];
#pragma unroll
        for (int i = 0; i < BS; i++)
            v[i] = scratch[e * (BS + 1) + i];
#pragma unroll
        for (int h = 1; h < BS; h *= 2)
#pragma unroll
            for (int k = 0; k + h < BS; k += 2 * h)
                v[k] += v[k + h];
        const ulong tr = (get_group_id(1) * BTY + e / (BMY * BG)) * BMY + (e / BG) % BMY;
        const ulong tce = get_group_id(0) * BG + e % BG;
        if (tr < orows && tce < ocols) {
            const ACC n = (ACC)min((ulong)T, rows - tr * T) * (ACC)min((ulong)U, cols - tce * U);
            out[tr * ocols + tce] = (OUT)(v[0] / n);
        }
    }
#endif
}

#else

/* The same in the lean path's type. */
static VRACC rvec_tree(VRACC *a, const int n)
{
#pragma unroll
    for (int h = 1; h < n; h *= 2)
#pragma unroll
        for (int k = 0; k + h < n; k += 2 * h)
            a[k] += a[k + h];
    return a[0];
}

/* Sums the run's NV vectors over nrows rows starting at p. */
static void sum_vectors(__global const IN *restrict p, ulong cols, ulong nrows, VACC *acc)
{
#pragma unroll
    for (int v = 0; v < NV; v++)
        acc[v] = (VACC)0;
    for (ulong r = 0; r < nrows; r++, p += cols)
#pragma unroll
        for (int v = 0; v < NV; v++)
            acc[v] += VLOAD(p + v * VW);
}

#if S == 1 && LOG2U >= 0
/* Sums tile row p (T rows of the run) into NV vectors. */
static void tile_row(__global const IN *restrict p, ulong cols, VRACC *acc)
{
#pragma unroll
    for (int v = 0; v < NV; v++)
        acc[v] = RLOAD(p + v * VW);
    __global const IN *q = p + cols;
    for (int r = 1; r < T; r++, q += cols)
#pragma unroll
        for (int v = 0; v < NV; v++)
            acc[v] += RLOAD(q + v * VW);
}

/* The common case, kept lean since per-item overhead shows on CPUs: a lone
 * item (no team) whose NT x MY tiles all lie inside the matrix sums each
 * tile row with a fixed trip count and writes straight from registers. */
static void tiles_inside(__global const IN *restrict p, __global OUT *restrict o, ulong cols,
                         ulong ocols)
{
    for (int m = 0; m < MY; m++, p += T * cols, o += ocols) {
        VRACC acc[NV];
        tile_row(p, cols, acc);
#if U >= VW
#pragma unroll
        for (int t = 0; t < NT; t++) {
            const VRACC sum = rvec_tree(acc + t * (U / VW), U / VW);
            o[t] = (OUT)((ACC)HSUM(sum) * SCALE);
        }
#else
#pragma unroll
        for (int v = 0; v < NV; v++) {
            const VRACC sum = acc[v];
            const CAT(ACC, RW) mean = CAT(convert_, CAT(ACC, RW))(TFOLD(sum)) * SCALE;
            CAT(vstore, RW)(CAT(convert_, CAT(OUT, RW))(mean), v, o);
        }
#endif
    }
}
#endif

/* The NP tile sums of a run whose W values of nrows rows lie inside. */
static void run_inside(__global const IN *restrict p, ulong cols, ulong nrows, ACC *part)
{
    VACC acc[NV];
    sum_vectors(p, cols, nrows, acc);
#if LOG2U >= 0 && U >= VW
#pragma unroll
    for (int t = 0; t < NP; t++) {
        const VACC sum = vec_tree(acc + t * (NV / NP), NV / NP);
        part[t] = HSUM(sum);
    }
#elif LOG2U >= 0
#pragma unroll
    for (int v = 0; v < NV; v++) {
        const VACC sum = acc[v];
        CAT(vstore, RW)(TFOLD(sum), v, part);
    }
#else
    ACC lanes[W];
    for (int v = 0; v < NV; v++)
        VSTORE(acc[v], v, lanes);
    for (int t = 0; t < NP; t++) {
        ACC s = 0;
        for (int j = 0; j < W / NP; j++)
            s += lanes[t * (W / NP) + j];
        part[t] = s;
    }
#endif
}

/* The NP tile sums of a run cut short, or empty: values [f0, fend) of nrows
 * rows from row, one at a time. */
static void run_edge(__global const IN *restrict row, ulong cols, ulong nrows, ulong f0, ulong fend,
                     ACC *part)
{
    for (int t = 0; t < NP; t++) {
        const ulong a = f0 + (ulong)t * (W / NP);
        const ulong b = min(a + W / NP, fend);
        ACC s = 0;
        __global const IN *p = row;
        for (ulong r = 0; r < nrows; r++, p += cols)
            for (ulong j = a; j < b; j++)
                s += (ACC)p[j];
        part[t] = s;
    }
}

#if S > 1
/* Adds the team's partial sums as a tree in __local memory; returns 1 in
 * the team's first item, which then holds the team's sums in part. */
static int team_sum(ACC *part, __local ACC *scratch)
{
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int k = (ly % SY) * SX + lx % SX;
    __local ACC *mine = scratch + ((ly / SY) * TX + lx / SX) * MY * NP * S2;
    for (int t = 0; t < MY * NP; t++)
        mine[t * S2 + k] = part[t];
    for (int h = S2 / 2; h > 0; h /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (k < h && k + h < S)
            for (int t = 0; t < MY * NP; t++)
                mine[t * S2 + k] += mine[t * S2 + k + h];
    }
    if (k != 0) return 0;
    for (int t = 0; t < MY * NP; t++)
        part[t] = mine[t * S2];
    return 1;
}
#endif

/* Writes the item's MY x NP results from tile (tr0, tc): means over the cells
 * each original tile holds (FINAL), or sums. */
static void write_tiles(__global OUT *restrict out, const ACC *part, ulong tr0, ulong tc,
                        ulong orows, ulong ocols, ulong crows, ulong ccols)
{
#if FINAL
    const int full_cols = (tc + NP) * CU <= ccols;
#endif
    for (int m = 0; m < MY && tr0 + m < orows; m++) {
        const ulong tr = tr0 + m;
        __global OUT *o = out + tr * ocols + tc;
#if FINAL
        const int whole = full_cols && (tr + 1) * CT <= crows;
#else
        const int whole = 1;
#endif
        if (whole) {
            for (int t = 0; t < NP && tc + t < ocols; t++)
                o[t] = (OUT)(part[m * NP + t] * SCALE);
            continue;
        }
        const ACC nr = (ACC)(min((tr + 1) * CT, crows) - tr * CT);
        for (int t = 0; t < NP && tc + t < ocols; t++)
            o[t] = (OUT)(part[m * NP + t] /
                         (nr * (ACC)(min((tc + t + 1) * CU, ccols) - (tc + t) * CU)));
    }
}

__kernel void tile_avg(__global const IN *restrict in, __global OUT *restrict out, const ulong rows,
                       const ulong cols, const ulong orows, const ulong ocols, const ulong crows,
                       const ulong ccols)
{
    const ulong gx = get_global_id(0), gy = get_global_id(1);
    in += get_global_id(2) * rows * cols;
    out += get_global_id(2) * orows * ocols;
#if SX == 1
    const ulong tc = gx * NT; /* the first of the item's NT tiles */
    const ulong f0 = tc * U;
    const ulong fend = min(f0 + W, cols);
#else
    const ulong tc = gx / SX;
    const ulong f0 = tc * U + (gx % SX) * W;
    const ulong fend = min(min(f0 + W, (tc + 1) * U), cols);
#endif
    const int inside = f0 + W == fend;
    const ulong tr0 = (gy / SY) * MY; /* the first of the item's MY tile rows */
#if S == 1 && LOG2U >= 0
    int fast = inside && (tr0 + MY) * T <= rows;
#if FINAL
    /* the final stage's fast path also needs whole original tiles */
    fast = fast && (tr0 + MY) * CT <= crows && (tc + NT) * CU <= ccols;
#endif
    if (fast) {
        tiles_inside(in + tr0 * T * cols + f0, out + tr0 * ocols + tc, cols, ocols);
        return;
    }
#endif

    ACC part[MY * NP];
    for (int m = 0; m < MY; m++) {
        const ulong r0 = min((tr0 + m) * T + (gy % SY) * RPI, rows);
        const ulong nrows = min(min(r0 + RPI, (tr0 + m + 1) * T), rows) - r0;
        if (inside)
            run_inside(in + r0 * cols + f0, cols, nrows, part + m * NP);
        else
            run_edge(in + r0 * cols, cols, nrows, f0, max(f0, fend), part + m * NP);
    }
#if S > 1
    __local ACC scratch[TX * TY * MY * NP * S2];
    if (!team_sum(part, scratch)) return;
#endif
    if (tc < ocols) write_tiles(out, part, tr0, tc, orows, ocols, crows, ccols);
}

#endif /* BAND */
