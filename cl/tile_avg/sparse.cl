/* tile-avg of a sparse matrix in CSR, never made dense: one work-item per
 * output tile walks the rows of its tile band, finds the first entry of
 * the tile's column range by a binary search (columns are sorted within a
 * row) and reduces the entries up to the range's end. The cells without
 * an entry are zeros: they count in the mean, and min and max take 0 when
 * the tile holds fewer entries than cells.
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
