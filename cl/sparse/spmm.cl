// Sparse times dense products for the value type of the type file before
// this one. Dense blocks are row-major; a pattern operand's values are 1.
#ifdef VT

// Columns of C per lane in spmm_csr_dense*: loads of B in flight at once.
#ifndef SP_MM_CW
#define SP_MM_CW 4
#endif

// Entries of A whose rows of B a lane loads before adding any: on one
// H200, R-MAT 2^16 times 128 columns took 0.285 ms one entry at a time,
// 0.306 two at a time and 0.235 four at a time.
#ifndef SP_MM_UNROLL
#define SP_MM_UNROLL 4
#endif

// acc[u] += x * B's row k at the lane's columns j0 + u * w (below n).
static inline void K(sp_mm_row)(VT *acc, VT x, __global const VT *bk, int j0, int w, int n,
                                __global int *ovf)
{
#pragma unroll
    for (int u = 0; u < SP_MM_CW; u++)
        if (j0 + u * w < n) acc[u] = K(sp_sum)(acc[u], K(sp_mul)(x, bk[j0 + u * w], ovf), ovf);
}

// A's entries p0, p0 + step, ... before p1 into acc, SP_MM_UNROLL at a
// time: their indices and factors first, then their rows of B.
static inline void K(sp_mm_entries)(VT *acc, __global const int *aci, __global const VT *av,
                                    int a_pat, __global const VT *b, int n, int p0, int p1,
                                    int step, int j0, int w, __global int *ovf)
{
    int p = p0;
#if SP_MM_UNROLL > 1
    for (; p + (SP_MM_UNROLL - 1) * step < p1; p += SP_MM_UNROLL * step) {
        VT x[SP_MM_UNROLL];
        __global const VT *bk[SP_MM_UNROLL];
#pragma unroll
        for (int v = 0; v < SP_MM_UNROLL; v++) {
            x[v] = a_pat ? (VT)1 : av[p + v * step];
            bk[v] = b + (size_t)aci[p + v * step] * n;
        }
#pragma unroll
        for (int v = 0; v < SP_MM_UNROLL; v++)
            K(sp_mm_row)(acc, x[v], bk[v], j0, w, n, ovf);
    }
#endif
    for (; p < p1; p += step)
        K(sp_mm_row)(acc, a_pat ? (VT)1 : av[p], b + (size_t)aci[p] * n, j0, w, n, ovf);
}

// C (m x n) = A (CSR, m x k) * B (k x n), rows of A with at most lng
// entries. Groups of (lanes, rows): a team of get_local_size(0) lanes owns
// a row of C (dimension 1) and a tile of SP_MM_CW times as many columns
// (dimension 0), a lane's columns strided by the team so that each load
// of B's row is consecutive across the team. Several short rows share a
// group: a group per row idled most of its lanes on 5 to 16 entries.
// Longer rows are left to spmm_csr_dense_long.
__kernel void K(spmm_csr_dense)(__global const int *arp, __global const int *aci,
                                __global const VT *av, int a_pat, __global const VT *b, int n,
                                __global VT *c, int m, int lng, __global int *ovf)
{
    int i = get_global_id(1);
    if (i >= m) return;
    int p0 = arp[i], p1 = arp[i + 1], w = get_local_size(0);
    if (p1 - p0 > lng) return;
    int j0 = get_group_id(0) * w * SP_MM_CW + get_local_id(0);
    VT acc[SP_MM_CW];
    for (int u = 0; u < SP_MM_CW; u++)
        acc[u] = 0;
    K(sp_mm_entries)(acc, aci, av, a_pat, b, n, p0, p1, 1, j0, w, ovf);
    for (int u = 0; u < SP_MM_CW; u++)
        if (j0 + u * w < n) c[(size_t)i * n + j0 + u * w] = acc[u];
}

// The rows of A with more than lng entries (rows[0 .. get_num_groups(1))):
// a group per row and tile of columns, its get_local_size(1) teams taking
// the row's entries in turn (power-law rows hold thousands: one team
// would run alone long after the rest), their sums added in red (one
// value per column of the tile and team).
__kernel void K(spmm_csr_dense_long)(__global const int *arp, __global const int *aci,
                                     __global const VT *av, int a_pat, __global const VT *b,
                                     int n, __global VT *c, __global const int *rows,
                                     __local VT *red, __global int *ovf)
{
    int i = rows[get_group_id(1)], w = get_local_size(0), team = get_local_id(1);
    int nt = get_local_size(1), l = get_local_id(0), tile = w * SP_MM_CW;
    int j0 = get_group_id(0) * tile + l;
    VT acc[SP_MM_CW];
    for (int u = 0; u < SP_MM_CW; u++)
        acc[u] = 0;
    K(sp_mm_entries)(acc, aci, av, a_pat, b, n, arp[i] + team, arp[i + 1], nt, j0, w, ovf);
    for (int u = 0; u < SP_MM_CW; u++)
        red[team * tile + l + u * w] = acc[u];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = team * w + l; s < tile; s += w * nt) {
        VT sum = 0;
        for (int t = 0; t < nt; t++)
            sum = K(sp_sum)(sum, red[t * tile + s], ovf);
        int j = get_group_id(0) * tile + s; /* lane s % w, its column s / w */
        if (j < n) c[(size_t)i * n + j] = sum;
    }
}

// The same on CPU devices: an item a row of C, in groups of one item (no
// barrier, no lanes running as long as the longest row), adding each of
// A's entries times a row of B to C's row: the inner loop runs along
// contiguous rows, which the compiler vectorizes.
__kernel void K(spmm_csr_dense_rows)(__global const int *restrict arp,
                                     __global const int *restrict aci,
                                     __global const VT *restrict av, int a_pat,
                                     __global const VT *restrict b, int n,
                                     __global VT *restrict c, __global int *ovf)
{
    int i = get_global_id(0);
    __global VT *ci = c + (size_t)i * n;
    for (int j = 0; j < n; j++)
        ci[j] = 0;
    for (int p = arp[i]; p < arp[i + 1]; p++) {
        VT x = a_pat ? (VT)1 : av[p];
        __global const VT *bk = b + (size_t)aci[p] * n;
        for (int j = 0; j < n; j++)
            ci[j] = K(sp_sum)(ci[j], K(sp_mul)(x, bk[j], ovf), ovf);
    }
}

// C (m x n) = D (m x k) * S (k x n) with S given by columns (CSC: scp, sri,
// sv): item (j, i) sums column j of S against row i of D. Items of a group
// share D's row i, which stays in cache.
__kernel void K(spmm_dense_csc)(__global const VT *d, int k, __global const int *scp,
                                __global const int *sri, __global const VT *sv, int s_pat,
                                int n, __global VT *c, __global int *ovf)
{
    int i = get_global_id(1), j = get_global_id(0);
    if (j >= n) return;
    VT acc = 0;
    for (int p = scp[j]; p < scp[j + 1]; p++) {
        VT x = d[(size_t)i * k + sri[p]];
        acc = K(sp_sum)(acc, s_pat ? x : K(sp_mul)(x, sv[p], ovf), ovf);
    }
    c[(size_t)i * n + j] = acc;
}

#endif
