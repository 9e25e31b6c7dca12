/* tile-avg of a sparse matrix in CSR, never made dense. Two kernels:
 *
 * tile_sparse: one work-item per output tile walks the rows of its tile
 * band, finds the first entry of the tile's column range by a binary
 * search (columns are sorted within a row) and reduces the entries up to
 * the range's end: rows x map columns searches, good for narrow maps.
 *
 * tile_sparse_band: one work-item per tile band and group of G adjacent
 * tile columns scans each row's entries in the group's range once, each
 * entry going to its tile's running value in scratch that the item alone
 * owns (no atomics): the entries plus rows x groups searches, good for
 * wide maps. Each tile still sees its entries rows in order, columns in
 * order, as in tile_sparse, so both give bit-identical results.
 *
 * The cells without an entry are zeros: they count in the mean, and min
 * and max take 0 when the tile holds fewer entries than cells.
 *
 * Host options: IDX the index type (int or long), VAL the value type
 * (float, double or long; PATTERN=1: no values, every entry 1), ISINT
 * (long values: exact sums in long, overflow flagged), ACC the float
 * accumulator, OUT the result type, OP the reduction (mean, sum, min, max;
 * prelude.cl's codes). */
#ifndef IDX
#define IDX int
#endif
#ifndef VAL
#define VAL float
#endif
#ifndef PATTERN
#define PATTERN 0
#endif
#ifndef ISINT
#define ISINT 0
#endif

#if ISINT
typedef long sval;
#define SV_ZERO 0L
#define SV_MIN(a, b) min(a, b)
#define SV_MAX(a, b) max(a, b)
#else
typedef ACC sval;
#define SV_ZERO ((ACC)0)
#define SV_MIN(a, b) fmin(a, b)
#define SV_MAX(a, b) fmax(a, b)
#endif

/* The first k in [a, b) with colidx[k] >= c (b when none). */
static inline long lower_bound(__global const IDX *colidx, long a, long b, long c)
{
    while (a < b) {
        long m = a + (b - a) / 2;
        if ((long)colidx[m] < c)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* flag[0] is set when an integer sum overflows (the host names the tile). */
__kernel void tile_sparse(__global const IDX *rowptr, __global const IDX *colidx,
                          __global const VAL *values, __global OUT *out, __global int *flag,
                          const long rows, const long cols, const long tr, const long tc,
                          const long ocols)
{
    const long tj = get_global_id(0), ti = get_global_id(1);
    if (tj >= ocols) return;
    const long r0 = ti * tr, r1 = min(r0 + tr, rows);
    const long c0 = tj * tc, c1 = min(c0 + tc, cols);
    long n = 0;
    int bad = 0; /* integers: an overflow; floats: a NaN seen */
    sval s = SV_ZERO, lo = SV_ZERO, hi = SV_ZERO;
    for (long r = r0; r < r1; r++) {
        const long e = (long)rowptr[r + 1];
        for (long k = lower_bound(colidx, (long)rowptr[r], e, c0); k < e && (long)colidx[k] < c1;
             k++) {
#if PATTERN
            const sval v = (sval)1;
#else
            const sval v = (sval)values[k];
#endif
#if ISINT
            const long t = as_long(as_ulong(s) + as_ulong(v));
            bad |= ((s ^ t) & (v ^ t)) < 0;
            s = t;
#else
            bad |= isnan(v);
            s += v;
#endif
            lo = n ? SV_MIN(lo, v) : v;
            hi = n ? SV_MAX(hi, v) : v;
            n++;
        }
    }
    const long cells = (r1 - r0) * (c1 - c0);
    if (n < cells) { /* implicit zeros */
        lo = n ? SV_MIN(lo, SV_ZERO) : SV_ZERO;
        hi = n ? SV_MAX(hi, SV_ZERO) : SV_ZERO;
    }
#if ISINT && (OP == TA_OP_MEAN || OP == TA_OP_SUM)
    if (bad) flag[0] = 1;
#endif
    OUT res;
#if OP == TA_OP_MEAN
    res = (OUT)((ACC)s / (ACC)cells);
#elif OP == TA_OP_SUM
    res = (OUT)s;
#elif OP == TA_OP_MIN
    res = (OUT)lo;
#else
    res = (OUT)hi;
#endif
#if !ISINT && (OP == TA_OP_MIN || OP == TA_OP_MAX)
    if (bad) res = (OUT)NAN;
#endif
    (void)bad; /* each reduction reads only some of the running values */
    (void)s;
    out[ti * ocols + tj] = res;
}

#define TS_MINMAX (OP == TA_OP_MIN || OP == TA_OP_MAX)

/* The result of a tile of `cells` cells whose running value is v, of n
 * entries (min and max; -1: a NaN was seen). */
static inline OUT band_finish(sval v, long n, long cells)
{
#if OP == TA_OP_MEAN
    return (OUT)((ACC)v / (ACC)cells);
#elif OP == TA_OP_SUM
    return (OUT)v;
#else
    if (n < 0) return (OUT)NAN;
    if (n < cells) /* implicit zeros */
#if OP == TA_OP_MIN
        v = n ? SV_MIN(v, SV_ZERO) : SV_ZERO;
#else
        v = n ? SV_MAX(v, SV_ZERO) : SV_ZERO;
#endif
    return (OUT)v;
#endif
}

/* acc (a running value per tile) and cnt (min and max: entries per tile,
 * -1 once a NaN was seen; unused otherwise) are shaped as out. flag[0] is
 * set when an integer sum overflows (the host names the tile). */
__kernel void tile_sparse_band(__global const IDX *rowptr, __global const IDX *colidx,
                               __global const VAL *values, __global OUT *out, __global int *flag,
                               __global sval *acc, __global IDX *cnt, const long rows,
                               const long cols, const long tr, const long tc, const long ocols,
                               const long G)
{
    const long t0 = get_global_id(0) * G, ti = get_global_id(1);
    if (t0 >= ocols) return;
    const long t1 = min(t0 + G, ocols);
    const long r0 = ti * tr, r1 = min(r0 + tr, rows);
    const long c0 = t0 * tc, c1 = min(t1 * tc, cols);
    __global sval *a = acc + ti * ocols;
#if TS_MINMAX
    __global IDX *nc = cnt + ti * ocols;
#endif
    for (long t = t0; t < t1; t++) {
        a[t] = SV_ZERO;
#if TS_MINMAX
        nc[t] = 0;
#endif
    }
    int bad = 0; /* an integer sum's overflow */
    for (long r = r0; r < r1; r++) {
        const long e = (long)rowptr[r + 1];
        long k = c0 ? lower_bound(colidx, (long)rowptr[r], e, c0) : (long)rowptr[r];
        long t = t0, tend = c0 + tc; /* the entry's tile and its end column */
        for (; k < e; k++) {
            const long c = (long)colidx[k];
            if (c >= c1) break;
            if (c >= tend) { /* a division only where the tile changes */
                t = c / tc;
                tend = (t + 1) * tc;
            }
#if PATTERN
            const sval v = (sval)1;
#else
            const sval v = (sval)values[k];
#endif
#if !TS_MINMAX && ISINT
            const sval s = a[t], u = as_long(as_ulong(s) + as_ulong(v));
            bad |= ((s ^ u) & (v ^ u)) < 0;
            a[t] = u;
#elif !TS_MINMAX
            a[t] += v;
#else
            const IDX n = nc[t];
#if !ISINT
            if (n < 0) continue;
            if (isnan(v)) {
                nc[t] = -1;
                continue;
            }
#endif
#if OP == TA_OP_MIN
            a[t] = n ? SV_MIN(a[t], v) : v;
#else
            a[t] = n ? SV_MAX(a[t], v) : v;
#endif
            nc[t] = n + 1;
#endif
        }
    }
    if (bad) flag[0] = 1;
    for (long t = t0; t < t1; t++) {
        const long tc0 = t * tc, tc1 = min(tc0 + tc, cols);
#if TS_MINMAX
        const long n = (long)nc[t];
#else
        const long n = 0;
#endif
        out[ti * ocols + t] = band_finish(a[t], n, (r1 - r0) * (tc1 - tc0));
    }
}
