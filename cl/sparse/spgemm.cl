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
// host gives one lane per row where the device cannot swap 64 bits).
static inline void K(sp_add_l)(volatile __local VT *p, VT x, int shared, __global int *ovf)
{
#ifdef SP_SHARED_ADD
    if (shared) {
        BT old = AS_B(*p), seen;
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
        BT old = AS_B(*p), seen;
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

// Rows whose entries fit local memory: teams as in sp_count_local, each
// with a table of t keys and t values. Barriers: after clearing the
// tables, and after summing, before each lane writes its slots' entries
// at their rank among the row's columns (sorted without a sort: the
// number of smaller keys in the table).
__kernel void K(sp_fill_local)(__global const int *arp, __global const int *aci,
                               __global const VT *av, int a_pat, __global const int *brp,
                               __global const int *bci, __global const VT *bv, int b_pat,
                               __global const int *rows, int first, int nrows, int g, int t,
                               __local int *keys, __local VT *vals, __global const int *crp,
                               __global int *cci, __global VT *cv, __global int *ovf)
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
    if (r < nrows)
        for (int p = arp[row] + lane; p < arp[row + 1]; p += g) {
            int k = aci[p];
            VT x = a_pat ? (VT)1 : av[p];
            for (int q = brp[k]; q < brp[k + 1]; q++) {
                int fresh, s = sp_insert(tk, t, bci[q], &fresh);
                K(sp_add_l)(&tv[s], b_pat ? x : K(sp_mul)(x, bv[q], ovf), g > 1, ovf);
            }
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (r >= nrows) return;
    int base = crp[row];
    for (int s = lane; s < t; s += g) {
        int key = tk[s];
        if (key < 0) continue;
        int rank = 0;
        for (int u = 0; u < t; u++) {
            int o = tk[u];
            rank += o >= 0 && o < key;
        }
        cci[base + rank] = key;
        cv[base + rank] = tv[s];
    }
}

// Rows too large for local memory: a work-group per row, its lanes taking
// a row of B in turn (lanes at different entries of A may meet on a
// column: the sums are shared), summing into its own row of flags and values (ncols each, zero on entry and left zero),
// then writing the marked columns in order, a chunk of get_local_size(0)
// columns at a time placed by a scan in scan (one int per item).
__kernel void K(sp_fill_dense)(__global const int *arp, __global const int *aci,
                               __global const VT *av, int a_pat, __global const int *brp,
                               __global const int *bci, __global const VT *bv, int b_pat,
                               __global const int *rows, int first, int ncols,
                               __global int *flags, __global VT *dv, __local int *scan,
                               __global const int *crp, __global int *cci, __global VT *cv,
                               __global int *ovf)
{
    int l = get_local_id(0), n = get_local_size(0);
    int row = rows[first + get_group_id(0)];
    __global int *f = flags + (size_t)get_group_id(0) * ncols;
    volatile __global VT *d = dv + (size_t)get_group_id(0) * ncols;
    for (int p = arp[row]; p < arp[row + 1]; p++) {
        int k = aci[p];
        VT x = a_pat ? (VT)1 : av[p];
        for (int q = brp[k] + l; q < brp[k + 1]; q += n) {
            int j = bci[q];
            f[j] = 1;
            K(sp_add_g)(&d[j], b_pat ? x : K(sp_mul)(x, bv[q], ovf), n > 1, ovf);
        }
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    int at = crp[row];
    for (int c0 = 0; c0 < ncols; c0 += n) {
        int j = c0 + l, on = j < ncols && f[j], total;
        int off = sp_scan(scan, on, &total);
        if (on) {
            cci[at + off] = j;
            cv[at + off] = d[j];
            f[j] = 0;
            d[j] = 0;
        }
        at += total;
    }
}

#endif
