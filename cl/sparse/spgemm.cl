// The numeric phase of the sparse product C = A*B for the value type of
// the type file before this one (VT, named with suffix SFX). The symbolic
// phase (prelude.cl) has counted each row of C; crp holds C's row
// offsets. Values of a pattern operand (a_pat, b_pat) are 1.
#ifdef VT

// x * y; an int64 product outside the range raises *ovf.
static inline VT K(sp_mul)(VT x, VT y, __global int *ovf)
{
#if VT_INT
    long lo = (long)((ulong)x * (ulong)y);
    if (mul_hi(x, y) != (lo >> 63)) *ovf = 1;
    return lo;
#else
    return x * y;
#endif
}

// o + x; an int64 sum outside the range raises *ovf.
static inline VT K(sp_sum)(VT o, VT x, __global int *ovf)
{
#if VT_INT
    long s = (long)((ulong)o + (ulong)x);
    if (((o ^ s) & (x ^ s)) < 0) *ovf = 1;
    return s;
#else
    return o + x;
#endif
}

#if !VT_64 || defined(HAS_ATOM64)
#define SP_SHARED_ADD 1
#endif

// *p += x, with a compare-and-swap loop where lanes share the slot (the
// host gives one lane per row where the device cannot swap 64 bits). The
// loop starts from a guess of zero, the slot's value before its first
// term, rather than a plain read: another lane may be swapping the slot,
// and mixing plain and atomic accesses is a data race. A wrong guess
// costs one failed swap, which returns the value to start from.
static inline void K(sp_add_l)(volatile __local VT *p, VT x, int shared, __global int *ovf)
{
#ifdef SP_SHARED_ADD
    if (shared) {
        BT old = 0, seen;
        for (;;) {
            BT want = AS_B(K(sp_sum)(AS_V(old), x, ovf));
            seen = CAS((volatile __local BT *)p, old, want);
            if (seen == old) return;
            old = seen;
        }
    }
#endif
    *p = K(sp_sum)(*p, x, ovf);
}

static inline void K(sp_add_g)(volatile __global VT *p, VT x, int shared, __global int *ovf)
{
#ifdef SP_SHARED_ADD
    if (shared) {
        BT old = 0, seen;
        for (;;) {
            BT want = AS_B(K(sp_sum)(AS_V(old), x, ovf));
            seen = CAS((volatile __global BT *)p, old, want);
            if (seen == old) return;
            old = seen;
        }
    }
#endif
    *p = K(sp_sum)(*p, x, ovf);
}
#undef SP_SHARED_ADD

// Sorts a team's table by column, free slots (-1, the largest as uint)
// last, by a bitonic network: every team of the group has t slots, so
// all lanes meet the same barriers, one after each step.
static inline void K(sp_sort_team)(volatile __local int *tk, volatile __local VT *tv, int t,
                                   int lane, int g)
{
    for (int k = 2; k <= t; k <<= 1)
        for (int h = k >> 1; h > 0; h >>= 1) {
            for (int s = lane; s < t; s += g) {
                int o = s ^ h;
                if (o < s) continue; /* the lane of slot o swaps the pair */
                uint ks = (uint)tk[s], ko = (uint)tk[o];
                if ((ks > ko) == ((s & k) == 0)) {
                    VT x = tv[s];
                    tk[s] = (int)ko;
                    tk[o] = (int)ks;
                    tv[s] = tv[o];
                    tv[o] = x;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
}

// The same for a row with one lane (CPU devices, where a barrier costs a
// pass over the group's items): the entries moved to the front, then a
// shell sort; no barrier.
static inline void K(sp_sort_alone)(volatile __local int *tk, volatile __local VT *tv, int t)
{
    int n = 0;
    for (int s = 0; s < t; s++)
        if (tk[s] >= 0) {
            tk[n] = tk[s];
            tv[n++] = tv[s];
        }
    for (int s = n; s < t; s++)
        tk[s] = -1;
    for (int gap = n / 2; gap > 0; gap = gap == 2 ? 1 : gap * 5 / 11)
        for (int i = gap; i < n; i++) {
            int key = tk[i], u = i;
            VT x = tv[i];
            for (; u >= gap && tk[u - gap] > key; u -= gap) {
                tk[u] = tk[u - gap];
                tv[u] = tv[u - gap];
            }
            tk[u] = key;
            tv[u] = x;
        }
}

// Tables of up to SP_RANK_MAX slots are written out by rank instead of
// sorted: a lane's entry goes to the place given by the count of smaller
// columns in the table (t reads of keys that the team's lanes all read
// at once), with no barrier, where a sort took a barrier a step.
#ifndef SP_RANK_MAX
#define SP_RANK_MAX 128
#endif
static inline void K(sp_write_ranked)(volatile __local int *tk, volatile __local VT *tv, int t,
                                      int lane, int g, __global int *ci, __global VT *v)
{
    for (int s = lane; s < t; s += g) {
        uint k = (uint)tk[s], rank = 0; /* a free slot (-1) is the largest */
        if (tk[s] < 0) continue;
        for (int u = 0; u < t; u++)
            rank += (uint)tk[u] < k;
        ci[rank] = (int)k;
        v[rank] = tv[s];
    }
}

// Rows whose entries fit local memory: teams as in sp_count_local, each
// with a table of t keys and t values. Barriers: after clearing the
// tables, after summing, and after each step of a team's sort; the row's
// entries are then the first slots, in order, written out by lane.
__kernel void K(sp_fill_local)(__global const int *arp, __global const int *aci,
                               __global const VT *av, int a_pat, __global const int *brp,
                               __global const int *bci, __global const VT *bv, int b_pat,
                               __global const int *rows, int first, int nrows, int g, int t,
                               __local int *keys, __local VT *vals, __global const int *crp,
                               __global int *cci, __global VT *cv, __global int *ovf,
                               __local int *scan, __local int *from, __local VT *fx)
{
    int lid = get_local_id(0), team = lid / g, lane = lid % g;
    int r = get_group_id(0) * (get_local_size(0) / g) + team;
    volatile __local int *tk = keys + team * t;
    volatile __local VT *tv = vals + team * t;
    for (int s = lane; s < t; s += g) {
        tk[s] = -1;
        tv[s] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int row = r < nrows ? rows[first + r] : 0;
    int sw = min(g, SP_LSUB);
    if (g == get_local_size(0) && g > 1 && t >= SP_SPREAD_MIN) { /* the group's one row */
        for (int p0 = arp[row], p1 = arp[row + 1]; p0 < p1; p0 += g) {
            if (p0 + lane < p1) fx[lane] = a_pat ? (VT)1 : av[p0 + lane];
            int terms = sp_batch(aci, brp, p0, p1, scan, from);
            for (int u = lane; u < terms; u += g) {
                int e = sp_entry_of(scan, u), q = from[e] + u, fresh;
                int s = sp_insert(tk, t, bci[q], &fresh, 1);
                K(sp_add_l)(&tv[s], b_pat ? fx[e] : K(sp_mul)(fx[e], bv[q], ovf), 1, ovf);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    } else if (r < nrows)
        for (int p = arp[row] + lane / sw; p < arp[row + 1]; p += g / sw) {
            int k = aci[p];
            VT x = a_pat ? (VT)1 : av[p];
            for (int q = brp[k] + lane % sw; q < brp[k + 1]; q += sw) {
                int fresh, s = sp_insert(tk, t, bci[q], &fresh, g > 1);
                K(sp_add_l)(&tv[s], b_pat ? x : K(sp_mul)(x, bv[q], ovf), g > 1, ovf);
            }
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (g > 1 && t <= SP_RANK_MAX) { /* t is the group's: no lane meets another barrier */
        if (r < nrows) K(sp_write_ranked)(tk, tv, t, lane, g, cci + crp[row], cv + crp[row]);
        return;
    }
    if (g > 1)
        K(sp_sort_team)(tk, tv, t, lane, g);
    else if (r < nrows)
        K(sp_sort_alone)(tk, tv, t);
    if (r >= nrows) return;
    int base = crp[row], n = crp[row + 1] - base;
    for (int s = lane; s < n; s += g) {
        cci[base + s] = tk[s];
        cv[base + s] = tv[s];
    }
}

// Numeric phase of the merged rows (sp_count_merge): each step writes
// the smallest head's column and the sum of its terms, in order.
__kernel void K(sp_fill_merge)(__global const int *arp, __global const int *aci,
                               __global const VT *av, int a_pat, __global const int *brp,
                               __global const int *bci, __global const VT *bv, int b_pat,
                               __global const int *rows, int first, int nrows,
                               __global const int *crp, __global int *cci, __global VT *cv,
                               __global int *ovf)
{
    int r = get_global_id(0);
    if (r >= nrows) return;
    int row = rows[first + r], q[SP_MERGE_K], e[SP_MERGE_K], h[SP_MERGE_K];
    VT x[SP_MERGE_K];
    sp_merge_open(arp, aci, brp, bci, row, q, e, h);
#pragma unroll
    for (int u = 0; u < SP_MERGE_K; u++)
        x[u] = a_pat || q[u] >= e[u] ? (VT)1 : av[arp[row] + u];
    int at = crp[row];
    for (int j = sp_merge_min(h); j != SP_NONE; j = sp_merge_min(h), at++) {
        VT s = 0;
#pragma unroll
        for (int u = 0; u < SP_MERGE_K; u++)
            while (h[u] == j) {
                s = K(sp_sum)(s, b_pat ? x[u] : K(sp_mul)(x[u], bv[q[u]], ovf), ovf);
                h[u] = ++q[u] < e[u] ? bci[q[u]] : SP_NONE;
            }
        cci[at] = j;
        cv[at] = s;
    }
}

// Rows too large for a table in local memory (a power-law graph's hubs):
// a work-group per row, chunk columns at a time (a multiple of 32): each
// chunk's sums in vals and its marks in bits, both in local memory, then
// the marked columns written in order, each lane taking a run of words of
// bits placed by a scan. The row's entries of A go in batches of a lane
// each: a lane finds its entry's part of B's row in the chunk
// (sp_chunk_of), a scan of the parts' lengths (scan, one int per item)
// lays the batch's terms end to end, and lane l takes terms l, l + n, ...
// of them (the entry by a binary search of the scan, its column and
// factor from from and fx): every lane has independent loads in flight
// whatever the lengths of B's rows, where teams taking an entry each
// waited on one chain of loads after another. Lanes meet on a column:
// the sums are shared.
__kernel void K(sp_fill_dense)(__global const int *arp, __global const int *aci,
                               __global const VT *av, int a_pat, __global const int *brp,
                               __global const int *bci, __global const VT *bv, int b_pat,
                               __global const int *rows, int first, int ncols, int chunk,
                               int b_sorted, __local uint *bits, __local VT *vals,
                               __local int *scan, __local int *from, __local VT *fx,
                               __global const int *crp, __global int *cci, __global VT *cv,
                               __global int *ovf)
{
    int l = get_local_id(0), n = get_local_size(0);
    int row = rows[first + get_group_id(0)], words = chunk / 32;
    int per = (words + n - 1) / n, w0 = min(l * per, words), w1 = min(w0 + per, words);
    int at = crp[row], p1 = arp[row + 1];
    for (int c0 = 0; c0 < ncols; c0 += chunk) {
        int c1 = min(c0 + chunk, ncols), whole = chunk >= ncols;
        for (int w = l; w < words; w += n)
            bits[w] = 0;
        for (int s = l; s < chunk; s += n)
            vals[s] = 0;
        for (int p0 = arp[row]; p0 < p1; p0 += n) {
            int p = p0 + l, lo = 0, hi = 0, terms;
            if (p < p1) {
                sp_chunk_of(brp, bci, aci[p], c0, c1, whole, b_sorted, 8, &lo, &hi);
                fx[l] = a_pat ? (VT)1 : av[p];
            }
            int start = sp_scan(scan, hi - lo, &terms); /* scan: inclusive ends */
            from[l] = lo - start;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int t = l; t < terms; t += n) {
                int e = 0, f = n - 1;
                while (e < f) { /* the first entry whose end passes t */
                    int m = (e + f) >> 1;
                    if (scan[m] > t)
                        f = m;
                    else
                        e = m + 1;
                }
                int q = from[e] + t, j = bci[q] - c0;
                if (j < 0 || j >= c1 - c0) continue;
                atomic_or(&bits[j >> 5], 1u << (j & 31));
                VT x = fx[e];
                K(sp_add_l)(&vals[j], b_pat ? x : K(sp_mul)(x, bv[q], ovf), n > 1, ovf);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        int mine = 0, total;
        for (int w = w0; w < w1; w++)
            mine += popcount(bits[w]);
        int o = at + sp_scan(scan, mine, &total);
        for (int w = w0; w < w1; w++)
            for (uint m = bits[w]; m; m &= m - 1) {
                int s = w * 32 + 31 - (int)clz(m & (0u - m)); /* the lowest bit */
                cci[o] = c0 + s;
                cv[o++] = vals[s];
            }
        at += total;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

#endif

#ifdef VT
// The numeric phase on CPU devices: rows as sp_count_rows takes them, each
// summed in the item's dense row of values (acc, ncols; a column's first
// term stores, the marks say which is first) while its columns are listed
// straight into C's row; the list is then put in order, by a scan of the
// marks over the columns it spans when that is short (SP_SCAN times the
// entries or less), else by a sort, and the values gathered.
#ifndef SP_SCAN
#define SP_SCAN 8
#endif
__kernel void K(sp_fill_rows)(__global const int *restrict arp, __global const int *restrict aci,
                              __global const VT *restrict av, int a_pat, __global const int *restrict brp,
                              __global const int *restrict bci, __global const VT *restrict bv, int b_pat,
                              int nrows, int ncols, __global int *restrict marks, __global VT *restrict acc,
                              __global int *restrict tmp, __global const int *restrict crp, __global int *restrict cci, __global VT *restrict cv,
                              __global int *restrict ovf)
{
    int w = get_global_id(0), nw = get_global_size(0);
    __global int *m = marks + (size_t)w * ncols;
    __global VT *a = acc + (size_t)w * ncols;
    __global int *s = tmp + (size_t)w * (2 * ncols + 2);
    for (int i = w; i < nrows; i += nw) {
        int base = crp[i], n = 0, lo = ncols, hi = -1;
        for (int p = arp[i]; p < arp[i + 1]; p++) {
            int k = aci[p];
            VT x = a_pat ? (VT)1 : av[p];
            for (int q = brp[k]; q < brp[k + 1]; q++) {
                int j = bci[q];
                VT y = b_pat ? x : K(sp_mul)(x, bv[q], ovf);
                if (m[j] != i) {
                    m[j] = i;
                    a[j] = y;
                    cci[base + n++] = j;
                    lo = min(lo, j);
                    hi = max(hi, j);
                } else {
                    a[j] = K(sp_sum)(a[j], y, ovf);
                }
            }
        }
        if (hi - lo < SP_SCAN * n) {
            for (int j = lo, at = base; j <= hi; j++)
                if (m[j] == i) cci[at++] = j;
        } else {
            sp_sort_ints(cci + base, n, lo, hi, s);
        }
        for (int t = base; t < base + n; t++)
            cv[t] = a[cci[t]];
    }
}
#endif
