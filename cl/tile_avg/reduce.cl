/* Every reduction (OP) of every T x U tile of an image or matrix whose CH
 * channels lie interleaved, as files hold them: no plane split on the host.
 *
 * The tile (T x U) comes as arguments, not macros: one program serves every
 * tile, and loops over runtime bounds compile quickly.
 *
 * Work-item: owns one tile, all its channels; it reads the tile's rows as
 * runs of U * CH consecutive elements and writes its CH results side by
 * side. Work-group: (LX, 1, 1) items, tiles side by side along a row, so
 * adjacent items read adjacent runs. No barrier: an item shares nothing,
 * but for the 8-bit histogram (HIST), its own slice of __local memory.
 *
 * Exactness: integer sums are exact (long); means of integers keep their
 * type where OUT is an integer (images), rounded half up from the exact
 * sum: (2 s + n) / (2 n). Float sums use ACC (double with fp64). min, max
 * and median select elements, so they are exact in any type; a median of
 * an even count is the mean of the two middle elements (rounded half up
 * for integers). mode: the most frequent value, the smallest among ties.
 * A NaN anywhere in a float tile gives NaN, as numpy's reductions do.
 *
 * ALPHA_W (means of 8/16-bit images with alpha as the last of CH = 2 or 4
 * channels): colour weighted by alpha, round(sum(c a) / sum(a)), 0 where
 * the tile's alpha is all 0; alpha itself the plain mean.
 *
 * Edges: a tile cut by the matrix's right or bottom edge reduces the cells
 * it holds. */

#ifndef CH
#define CH 1 /* interleaved channels, 1..4 */
#endif
#ifndef LX
#define LX 16 /* items per work-group */
#endif
#ifndef ISINT
#define ISINT 0 /* 1: IN is an integer type */
#endif
#ifndef OUTINT
#define OUTINT 0 /* 1: OUT is an integer type (means and medians round half up) */
#endif
#ifndef HIST
#define HIST 0 /* 1: median and mode of uchar through a 256-bin histogram */
#endif
#ifndef ALPHA_W
#define ALPHA_W 0
#endif
#ifndef IN_F64
#define IN_F64 0 /* 1: IN is double */
#endif
#ifndef KEY
#if ISINT
#define KEY long /* median: the ordered key of an element */
#else
#define KEY ulong
#endif
#endif
#ifndef SUMT
#define SUMT ACC /* sum and mean accumulator: long for integers */
#endif

/* Whether x is NaN: never for integers. */
static inline int nan_in(const IN x)
{
#if ISINT
    (void)x;
    return 0;
#else
    return isnan(x);
#endif
}

/* Element (r, c) of channel ch of the tile at p, a row pitch of cols. */
#define AT(p, r, c, ch) ((p)[((size_t)(r) * cols + (c)) * CH + (ch)])

/* The result of a mean of n cells summing to s, in OUT. */
static inline OUT mean_of(const SUMT s, const long n)
{
#if OUTINT && ISINT
    return (OUT)((2 * s + n) / (2 * n)); /* samples are >= 0: half up */
#else
    return (OUT)((ACC)s / (ACC)n);
#endif
}

/* The mean of two middle elements a <= b, in OUT. */
static inline OUT mid_of(const IN a, const IN b)
{
#if ISINT
    const long x = (long)a, y = (long)b; /* floor((x + y + 1) / 2), no overflow */
    return (OUT)((x >> 1) + (y >> 1) + (((x & 1) + (y & 1) + 1) >> 1));
#else
    return (OUT)(a * (IN)0.5 + b * (IN)0.5);
#endif
}

#if !ISINT
/* Float keys ordered as the values: the sign bit set for positives, every
 * bit flipped for negatives. */
static inline KEY key_of(const IN x)
{
#if IN_F64
    const ulong b = as_ulong(x);
    return (b >> 63) ? ~b : b | 0x8000000000000000UL;
#else
    const uint b = as_uint(x);
    return (KEY)((b >> 31) ? ~b : b | 0x80000000u);
#endif
}
#else
#define key_of(x) ((KEY)(x))
#endif

/* floor((a + b) / 2) of two keys, without overflow. */
#define KEY_MID(a, b) (((a) >> 1) + ((b) >> 1) + ((a) & (b) & 1))

/* Whether any element of channel ch is NaN. */
static inline int any_nan(__global const IN *p, const ulong cols, const int nr, const int nc,
                          const int ch)
{
#if ISINT
    return 0;
#else
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc; c++)
            if (isnan(AT(p, r, c, ch))) return 1;
    return 0;
#endif
}

#if OP == TA_OP_MEDIAN && !HIST
/* How many elements of channel ch have a key <= k, and the smallest
 * element whose key is above k (in *next, when there is one). */
static inline int count_le(__global const IN *p, const ulong cols, const int nr, const int nc,
                           const int ch, const KEY k, IN *next)
{
    int n = 0, have = 0;
    IN best = 0;
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc; c++) {
            const IN x = AT(p, r, c, ch);
            const KEY kx = key_of(x);
            if (kx <= k)
                n++;
            else if (!have || kx < key_of(best)) {
                best = x;
                have = 1;
            }
        }
    *next = best;
    return n;
}

/* The element of rank j (from 0) of channel ch: a bisection over keys,
 * each step a pass counting those at or below the middle key. */
static inline IN select_rank(__global const IN *p, const ulong cols, const int nr, const int nc,
                             const int ch, const int j)
{
    KEY lo = key_of(AT(p, 0, 0, ch)), hi = lo;
    IN lo_x = AT(p, 0, 0, ch);
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc; c++) {
            const IN x = AT(p, r, c, ch);
            const KEY kx = key_of(x);
            if (kx < lo) {
                lo = kx;
                lo_x = x;
            }
            hi = kx > hi ? kx : hi;
        }
    IN dummy;
    while (lo < hi) {
        const KEY mid = KEY_MID(lo, hi);
        if (count_le(p, cols, nr, nc, ch, mid, &dummy) > j)
            hi = mid;
        else
            lo = mid + 1;
    }
    /* lo is the key of an element: the smallest key with more than j at
     * or below it */
    IN x = lo_x;
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc; c++)
            if (key_of(AT(p, r, c, ch)) == lo) x = AT(p, r, c, ch);
    return x;
}

static inline OUT median_of(__global const IN *p, const ulong cols, const int nr, const int nc,
                            const int ch)
{
    const int n = nr * nc;
    const IN a = select_rank(p, cols, nr, nc, ch, (n - 1) / 2);
    if (n % 2) return (OUT)a;
    IN b;
    /* the next element up is a again when a repeats past rank n / 2 - 1 */
    const int le = count_le(p, cols, nr, nc, ch, key_of(a), &b);
    return mid_of(a, le > n / 2 ? a : b);
}
#endif

#if OP == TA_OP_MODE && !HIST
/* The most frequent element of channel ch, the smallest among ties: each
 * element counts its equals (cells^2 reads; the 8-bit case has HIST). */
static inline OUT mode_of(__global const IN *p, const ulong cols, const int nr, const int nc,
                          const int ch)
{
    IN best = AT(p, 0, 0, ch);
    int best_n = 0;
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc; c++) {
            const IN x = AT(p, r, c, ch);
            int n = 0;
            for (int r2 = 0; r2 < nr; r2++)
                for (int c2 = 0; c2 < nc; c2++)
                    n += AT(p, r2, c2, ch) == x;
            if (n > best_n || (n == best_n && x < best)) {
                best = x;
                best_n = n;
            }
        }
    return (OUT)best;
}
#endif

#if HIST
/* Median or mode of an 8-bit channel from its histogram h (256 bins, this
 * item's slice of __local memory, LX apart so adjacent items' bins are
 * adjacent). */
static inline OUT hist_of(__global const IN *p, const ulong cols, const int nr, const int nc,
                          const int ch, __local uint *h)
{
    for (int v = 0; v < 256; v++)
        h[v * LX] = 0;
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc; c++)
            h[(int)AT(p, r, c, ch) * LX]++;
#if OP == TA_OP_MODE
    int best = 0;
    uint best_n = 0;
    for (int v = 0; v < 256; v++)
        if (h[v * LX] > best_n) {
            best_n = h[v * LX];
            best = v;
        }
    return (OUT)best;
#else
    const uint n = (uint)(nr * nc), j = (n - 1) / 2;
    uint below = 0;
    int a = 0;
    while (below + h[a * LX] <= j)
        below += h[a++ * LX];
    if (n % 2 || below + h[a * LX] > j + 1) return (OUT)a;
    int b = a + 1;
    while (h[b * LX] == 0)
        b++;
    return mid_of((IN)a, (IN)b);
#endif
}
#endif

/* Sum and mean of channel ch; with ALPHA_W, a colour channel's sum
 * weighted by the last channel (then *wsum receives the alpha sum). */
static inline SUMT sum_of(__global const IN *p, const ulong cols, const int nr, const int nc,
                          const int ch, const int weighted, SUMT *wsum)
{
    SUMT s = 0, w = 0;
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc; c++) {
            if (weighted) {
                const SUMT a = (SUMT)AT(p, r, c, CH - 1);
                s += (SUMT)AT(p, r, c, ch) * a;
                w += a;
            } else {
                s += (SUMT)AT(p, r, c, ch);
            }
        }
    *wsum = w;
    return s;
}

static inline OUT minmax_of(__global const IN *p, const ulong cols, const int nr, const int nc,
                            const int ch)
{
    IN m = AT(p, 0, 0, ch);
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < nc; c++) {
            const IN x = AT(p, r, c, ch);
#if OP == TA_OP_MIN
            m = (x < m || nan_in(x)) && !nan_in(m) ? x : m;
#else
            m = (x > m || nan_in(x)) && !nan_in(m) ? x : m;
#endif
        }
    return (OUT)m;
}

/* Channel ch's result over the nr x nc cells at p. */
static inline OUT reduce_channel(__global const IN *p, const ulong cols, const int nr,
                                 const int nc, const int ch, __local uint *h)
{
    (void)h;
#if OP == TA_OP_MEAN || OP == TA_OP_SUM
    const int weighted = ALPHA_W && ch < CH - 1;
    SUMT w;
    const SUMT s = sum_of(p, cols, nr, nc, ch, weighted, &w);
#if OP == TA_OP_SUM
    return (OUT)s;
#else
    if (!weighted) return mean_of(s, (long)nr * nc);
    if (w == 0) return (OUT)0;
    return (OUT)((2 * s + w) / (2 * w)); /* round half up; images only */
#endif
#elif OP == TA_OP_MIN || OP == TA_OP_MAX
    return minmax_of(p, cols, nr, nc, ch);
#else
#if !ISINT
    if (any_nan(p, cols, nr, nc, ch)) return (OUT)NAN;
#endif
#if HIST
    return hist_of(p, cols, nr, nc, ch, h);
#elif OP == TA_OP_MEDIAN
    return median_of(p, cols, nr, nc, ch);
#else
    return mode_of(p, cols, nr, nc, ch);
#endif
#endif
}

__kernel void tile_reduce(__global const IN *restrict in, __global OUT *restrict out,
                          const ulong rows, const ulong cols, const ulong orows, const ulong ocols,
                          const ulong T, const ulong U)
{
    const ulong tc = get_global_id(0), tr = get_global_id(1);
#if HIST
    __local uint hist[256 * LX];
    __local uint *h = hist + get_local_id(0);
#else
    __local uint *h = 0;
#endif
    if (tc >= ocols || tr >= orows) return;
    const int nr = (int)min((ulong)T, rows - tr * T), nc = (int)min((ulong)U, cols - tc * U);
    __global const IN *p = in + (tr * T * cols + tc * U) * CH;
    __global OUT *o = out + (tr * ocols + tc) * CH;
    for (int ch = 0; ch < CH; ch++)
        o[ch] = reduce_channel(p, cols, nr, nc, ch, h);
}
