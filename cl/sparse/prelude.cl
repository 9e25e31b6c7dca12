// Sparse products: what every type's kernels share. Built as one program
// with a type file before each copy of the kernel families (f32.cl,
// spgemm.cl, spmm.cl, f64.cl, spgemm.cl, ...), so that one compile serves
// every value type; a type file names its kernels with its suffix (K).
//
// Host options: HAS_FP64 (the device has doubles), HAS_ATOM64 (it has
// cl_khr_int64_base_atomics: 64-bit sums shared by lanes; without it the
// host gives each row one lane, which needs no atomics).

#ifdef HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifdef HAS_ATOM64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif

#define SP_CAT2(a, b) a##_##b
#define SP_CAT(a, b) SP_CAT2(a, b)
#define K(name) SP_CAT(name, SFX)

// Hash of a column into a table of t slots (t a power of two).
#ifndef HASH_MUL
#define HASH_MUL 107u
#endif

// The slot of column j in table tk of t slots, inserting it (-1 marks a
// free slot). *fresh is 1 when this call inserted it. The table never
// fills: the host sizes it at twice the row's terms or entries. shared:
// other lanes insert into the same table, so every probe is an
// atomic_cmpxchg (its old value is the read): a plain read of a slot
// that another lane fills with an atomic is a data race in OpenCL's
// memory model, and Oclgrind reports it. Else plain loads and stores.
static inline int sp_insert(volatile __local int *tk, int t, int j, int *fresh, int shared)
{
    int h = (int)(((uint)j * HASH_MUL) & (uint)(t - 1));
    for (;;) {
        int k = shared ? atomic_cmpxchg(&tk[h], -1, j) : tk[h];
        if (k == j) {
            *fresh = 0;
            return h;
        }
        if (k == -1) {
            if (!shared) tk[h] = j;
            *fresh = 1;
            return h;
        }
        h = (h + 1) & (t - 1);
    }
}

// Exclusive prefix sum of v over the work-group in s (one int per item);
// returns this item's offset, *total the group's sum. Barriers: every item
// calls it.
static inline int sp_scan(__local int *s, int v, int *total)
{
    int l = get_local_id(0), n = get_local_size(0);
    s[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = 1; d < n; d <<= 1) {
        int x = l >= d ? s[l - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        s[l] += x;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    int incl = s[l];
    *total = s[n - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    return incl - v;
}

// Tables of at least SP_SPREAD_MIN slots whose team is the whole group
// take the row's entries of A a batch of one a lane, as the dense rows
// do: groups of SP_LSUB lanes taking an entry each waited on the longest
// row of B among them (a power-law hub's) while the rest idled.
#ifndef SP_SPREAD_MIN
#define SP_SPREAD_MIN 2048
#endif

// One batch of a row's entries of A, entries p0 .. p0 + n (before p1), a
// lane each: lays their rows of B end to end. scan gets the inclusive
// ends, from[e] the offset that turns term t of entry e into its index in
// bci (from[e] + t). Returns the batch's terms; barriers: every item
// calls it, and the caller meets a barrier before the next batch.
static inline int sp_batch(__global const int *aci, __global const int *brp, int p0, int p1,
                           __local int *scan, __local int *from)
{
    int l = get_local_id(0), p = p0 + l, lo = 0, hi = 0, terms;
    if (p < p1) {
        int k = aci[p];
        lo = brp[k];
        hi = brp[k + 1];
    }
    int start = sp_scan(scan, hi - lo, &terms);
    from[l] = lo - start;
    barrier(CLK_LOCAL_MEM_FENCE);
    return terms;
}

// The entry of the batch that term t belongs to: the first whose end
// (scan, inclusive) passes t.
static inline int sp_entry_of(__local const int *scan, int t)
{
    int e = 0, f = get_local_size(0) - 1;
    while (e < f) {
        int m = (e + f) >> 1;
        if (scan[m] > t)
            f = m;
        else
            e = m + 1;
    }
    return e;
}

// Lanes of a team that share an entry of A in the local tables' kernels,
// each taking a column of its row of B in turn: a lane per entry ran a
// power-law hub's row of B alone while the team waited.
#ifndef SP_LSUB
#define SP_LSUB 8
#endif

// Symbolic phase, rows whose terms fit a table in local memory. A team of
// g lanes owns one row of the bin (rows[first ..][0 .. nrows)) and a table of t slots; the work-group
// holds get_local_size(0) / g teams. Groups of SP_LSUB lanes take the row's
// entries of A in turn and insert the columns of B's matching rows; each lane adds the
// columns it inserted first to cnt[row]. One barrier: the tables are
// cleared before any lane inserts.
__kernel void sp_count_local(__global const int *arp, __global const int *aci,
                             __global const int *brp, __global const int *bci,
                             __global const int *rows, int first, int nrows, int g, int t,
                             __local int *keys, __global int *cnt, __local int *scan,
                             __local int *from)
{
    int lid = get_local_id(0), team = lid / g, lane = lid % g;
    int r = get_group_id(0) * (get_local_size(0) / g) + team;
    volatile __local int *tk = keys + team * t;
    for (int s = lane; s < t; s += g)
        tk[s] = -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (r >= nrows) return;
    int row = rows[first + r], mine = 0, sw = min(g, SP_LSUB);
    if (g == get_local_size(0) && g > 1 && t >= SP_SPREAD_MIN) { /* the group's one row */
        for (int p0 = arp[row], p1 = arp[row + 1]; p0 < p1; p0 += g) {
            int terms = sp_batch(aci, brp, p0, p1, scan, from);
            for (int u = lane; u < terms; u += g) {
                int fresh;
                sp_insert(tk, t, bci[from[sp_entry_of(scan, u)] + u], &fresh, 1);
                mine += fresh;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (mine) atomic_add(&cnt[row], mine);
        return;
    }
    for (int p = arp[row] + lane / sw; p < arp[row + 1]; p += g / sw) {
        int k = aci[p];
        for (int q = brp[k] + lane % sw; q < brp[k + 1]; q += sw) {
            int fresh;
            sp_insert(tk, t, bci[q], &fresh, g > 1);
            mine += fresh;
        }
    }
    if (mine) atomic_add(&cnt[row], mine);
}

// Lanes of a team in the dense rows' kernels: a team takes an entry of
// A and its lanes the matching row of B.
#ifndef SP_DSUB
#define SP_DSUB 32
#endif

// The part [*lo, *hi) of B's row k (brp[k] .. brp[k + 1]) whose columns
// lie in [c0, c1): a binary search where the row is sorted (b_sorted),
// longer than a team and the chunk is not all columns, else the whole
// row, whose columns the caller filters.
static inline void sp_chunk_of(__global const int *brp, __global const int *bci, int k, int c0,
                               int c1, int whole, int b_sorted, int sw, int *lo, int *hi)
{
    *lo = brp[k];
    *hi = brp[k + 1];
    if (whole || !b_sorted || *hi - *lo <= sw) return;
    int x = *lo, y = *hi;
    while (x < y) { /* the first column >= c0 */
        int m = (x + y) >> 1;
        if (bci[m] < c0)
            x = m + 1;
        else
            y = m;
    }
    *lo = x;
    y = *hi;
    while (x < y) { /* the first column >= c1 */
        int m = (x + y) >> 1;
        if (bci[m] < c1)
            x = m + 1;
        else
            y = m;
    }
    *hi = x;
}

// Symbolic phase, rows too large for a hash table in local memory (a
// power-law graph's hubs): a work-group per row (rows[first + group])
// marks the columns it reaches in a bit array in local memory (bits:
// chunk bits, chunk a multiple of 32), chunk columns at a time, and adds
// the marks' count to cnt[row]. Teams of SP_DSUB lanes take the row's
// entries of A in turn: hubs hold thousands of entries whose rows of B
// are short. No global atomics but one add a lane and chunk: the sums in
// global memory that this replaced cost most of an R-MAT product.
__kernel void sp_count_dense(__global const int *arp, __global const int *aci,
                             __global const int *brp, __global const int *bci,
                             __global const int *rows, int first, int ncols, int chunk,
                             int b_sorted, __local uint *bits, __global int *cnt)
{
    int l = get_local_id(0), n = get_local_size(0), sw = min(n, SP_DSUB);
    int row = rows[first + get_group_id(0)], words = chunk / 32;
    for (int c0 = 0; c0 < ncols; c0 += chunk) {
        int c1 = min(c0 + chunk, ncols), mine = 0;
        for (int w = l; w < words; w += n)
            bits[w] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int p = arp[row] + l / sw; p < arp[row + 1]; p += n / sw) {
            int lo, hi;
            sp_chunk_of(brp, bci, aci[p], c0, c1, chunk >= ncols, b_sorted, sw, &lo, &hi);
            for (int q = lo + l % sw; q < hi; q += sw) {
                int j = bci[q] - c0;
                if (j >= 0 && j < c1 - c0) atomic_or(&bits[j >> 5], 1u << (j & 31));
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int w = l; w < words; w += n)
            mine += popcount(bits[w]);
        if (mine) atomic_add(&cnt[row], mine);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

// Symbolic phase on CPU devices, Gustavson's way: item w of nw takes rows
// w, w + nw, ... and marks the columns a row reaches in its own row of
// marks (ncols ints, -1 on entry: a mark holds the last row that set it,
// so nothing is cleared between rows). Groups of one item: PoCL would run
// a larger group's items in vector lanes, each as long as the longest row.
__kernel void sp_count_rows(__global const int *restrict arp, __global const int *restrict aci,
                            __global const int *restrict brp, __global const int *restrict bci, int nrows,
                            int ncols, __global int *restrict marks, __global int *restrict cnt)
{
    int w = get_global_id(0), nw = get_global_size(0);
    __global int *m = marks + (size_t)w * ncols;
    for (int i = w; i < nrows; i += nw) {
        int c = 0;
        for (int p = arp[i]; p < arp[i + 1]; p++) {
            int k = aci[p];
            for (int q = brp[k]; q < brp[k + 1]; q++) {
                int j = bci[q];
                if (m[j] != i) {
                    m[j] = i;
                    c++;
                }
            }
        }
        cnt[i] = c;
    }
}

// Rows of at most SP_MERGE_K entries of A whose terms are few (the host
// picks them where B's rows are sorted): an item a row merges the rows of
// B that its entries select, as sorted lists, taking the smallest head
// each step. A 2D Laplacian's rows (5 entries, 25 terms) spent more on a
// team's hash table, its atomics and barriers than on the product.
#ifndef SP_MERGE_K
#define SP_MERGE_K 8
#endif
#define SP_NONE 0x7fffffff /* past every column: an exhausted list's head */

// Opens row's lists: q[u] .. e[u] of bci, head h[u] (SP_NONE: none).
static inline void sp_merge_open(__global const int *arp, __global const int *aci,
                                 __global const int *brp, __global const int *bci, int row,
                                 int *q, int *e, int *h)
{
    int p0 = arp[row], n = arp[row + 1] - p0;
#pragma unroll
    for (int u = 0; u < SP_MERGE_K; u++) {
        int k = u < n ? aci[p0 + u] : 0;
        q[u] = u < n ? brp[k] : 0;
        e[u] = u < n ? brp[k + 1] : 0;
        h[u] = q[u] < e[u] ? bci[q[u]] : SP_NONE;
    }
}

// The smallest head.
static inline int sp_merge_min(const int *h)
{
    int j = SP_NONE;
#pragma unroll
    for (int u = 0; u < SP_MERGE_K; u++)
        j = min(j, h[u]);
    return j;
}

// Symbolic phase of the merged rows (rows[first ..][0 .. nrows)): counts
// each row's distinct columns. A list's repeated column (B not summed)
// advances it again, as the hash tables count it once.
__kernel void sp_count_merge(__global const int *arp, __global const int *aci,
                             __global const int *brp, __global const int *bci,
                             __global const int *rows, int first, int nrows, __global int *cnt)
{
    int r = get_global_id(0);
    if (r >= nrows) return;
    int row = rows[first + r], q[SP_MERGE_K], e[SP_MERGE_K], h[SP_MERGE_K], c = 0;
    sp_merge_open(arp, aci, brp, bci, row, q, e, h);
    for (int j = sp_merge_min(h); j != SP_NONE; j = sp_merge_min(h), c++)
#pragma unroll
        for (int u = 0; u < SP_MERGE_K; u++)
            while (h[u] == j)
                h[u] = ++q[u] < e[u] ? bci[q[u]] : SP_NONE;
    cnt[row] = c;
}

// Sorts the n ints of v by insertion: for short rows, and for rows that
// are nearly in order.
static inline void sp_insertion(__global int *v, __global const int *from, int n)
{
    for (int i = 0; i < n; i++) {
        int x = from[i], u = i;
        for (; u > 0 && v[u - 1] > x; u--)
            v[u] = v[u - 1];
        v[u] = x;
    }
}

// Sorts the n distinct ints of v, all in [lo, hi], with tmp (2n + 2
// ints) for scratch: scattered into n buckets by value (a counting pass;
// the bucket by a multiply, one division a row), then an insertion sort,
// which moves each element only within its bucket: linear for evenly
// spread columns, where a comparison sort costs more than the product.
static inline void sp_sort_ints(__global int *v, int n, int lo, int hi, __global int *tmp)
{
    if (n <= 32) { /* in private memory: no global load or store per step */
        int w[32];
        for (int i = 0; i < n; i++) {
            int x = v[i], u = i;
            for (; u > 0 && w[u - 1] > x; u--)
                w[u] = w[u - 1];
            w[u] = x;
        }
        for (int i = 0; i < n; i++)
            v[i] = w[i];
        return;
    }
    __global int *at = tmp, *out = tmp + n + 1;
    ulong mul = ((ulong)n << 32) / (ulong)((long)hi - lo + 1);
    for (int b = 0; b <= n; b++)
        at[b] = 0;
    for (int i = 0; i < n; i++)
        at[(int)(((ulong)(v[i] - lo) * mul) >> 32) + 1]++;
    for (int b = 0; b < n; b++)
        at[b + 1] += at[b];
    for (int i = 0; i < n; i++)
        out[at[(int)(((ulong)(v[i] - lo) * mul) >> 32)]++] = v[i];
    sp_insertion(v, out, n);
}
