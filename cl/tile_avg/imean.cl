/* Means of 8/16-bit images whose CH channels lie interleaved, read at the
 * memory's pace: a work-group per strip of GT tiles of one tile row.
 *
 * Phase 1: the strip's samples (GT * U * CH of each row) are split over the
 * group's LX items, VW consecutive samples per item and pass, so reads are
 * contiguous whatever CH is (no per-channel gather): on a GPU adjacent
 * items read adjacent words (VW 4), on a CPU an item's run of VW samples
 * is one vectorised loop (an item's loop over rows is not); each
 * item adds its samples down the tile's rows into column sums in __local
 * memory (sums[], passed by the host: GT * U * CH of SUMT).
 * Phase 2, after one barrier: an item per (tile, channel) adds the U column
 * sums of its channel (every CH-th) and writes the mean, rounded half up
 * from the exact integer sum, (2 s + n) / (2 n), as tile_reduce does.
 *
 * Edges: a strip past the right edge reads only the samples there (column
 * sums past it are 0 and not counted); the bottom tile row reduces the rows
 * it holds (rows < T for the last band of a stream).
 *
 * Same arguments as tile_reduce, and the column sums. */

#ifndef CH
#define CH 3 /* interleaved channels, 1..4 */
#endif
#ifndef LX
#define LX 64 /* items per work-group */
#endif
#ifndef VW
#define VW 1 /* consecutive samples per item and pass: 4 (vload4), or any */
#endif
#ifndef GT
#define GT 8 /* tiles per work-group (a strip of one tile row) */
#endif
#ifndef SUMT
#define SUMT uint /* a column sum of T samples: the host widens it where T * max could overflow */
#endif

#if VW == 4
#define VIN CAT(IN, 4)
#define VSUM CAT(SUMT, 4)
#endif

__kernel __attribute__((reqd_work_group_size(LX, 1, 1))) void
tile_imean(__global const IN *restrict in, __global OUT *restrict out, const ulong rows,
           const ulong cols, const ulong orows, const ulong ocols, const ulong T, const ulong U,
           __local SUMT *restrict sums)
{
    const ulong tr = get_group_id(1), t0 = get_group_id(0) * GT;
    const int l = (int)get_local_id(0);
    const ulong r0 = tr * T;
    const int nr = (int)min(T, rows - r0);
    const int strip = (int)(GT * U * CH); /* samples of the strip's full width */
    const long here = ((long)cols - (long)(t0 * U)) * CH;
    const int w = (int)min((long)strip, here); /* of them, inside the image */
    __global const IN *p = in + (r0 * cols + t0 * U) * CH;

    for (int s = l * VW; s < strip; s += LX * VW) {
#if VW == 4
        if (s + 4 <= w) {
            VSUM acc = 0;
            for (int r = 0; r < nr; r++)
                acc += CAT(convert_, VSUM)(vload4(0, p + (size_t)r * cols * CH + s));
            vstore4(acc, 0, sums + s);
            continue;
        }
#else
        if (s + VW <= w) { /* a run of VW samples down the rows: a vectorised inner loop */
            SUMT acc[VW];
            for (int k = 0; k < VW; k++)
                acc[k] = 0;
            for (int r = 0; r < nr; r++) {
                __global const IN *q = p + (size_t)r * cols * CH + s;
                for (int k = 0; k < VW; k++)
                    acc[k] += (SUMT)q[k];
            }
            for (int k = 0; k < VW; k++)
                sums[s + k] = acc[k];
            continue;
        }
#endif
        for (int k = 0; k < VW && s + k < strip; k++) {
            SUMT acc = 0;
            if (s + k < w)
                for (int r = 0; r < nr; r++)
                    acc += (SUMT)p[(size_t)r * cols * CH + s + k];
            sums[s + k] = acc;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int o = l; o < GT * CH; o += LX) {
        const int j = o / CH, ch = o - j * CH;
        const ulong tc = t0 + (ulong)j;
        if (tc >= ocols) break;
        const int nc = (int)min(U, cols - tc * U);
        __local const SUMT *c = sums + (size_t)j * U * CH + ch;
        ulong s = 0;
        for (int k = 0; k < nc; k++)
            s += c[k * CH];
        const ulong n = (ulong)nr * (ulong)nc;
        out[(tr * ocols + tc) * CH + ch] = (OUT)((2 * s + n) / (2 * n));
    }
}
