// Sparse times dense products for the value type of the type file before
// this one. Dense blocks are row-major; a pattern operand's values are 1.
#ifdef VT

// C (m x n) = A (CSR, m x k) * B (k x n). A work-group of get_local_size(0)
// items per row of C (dimension 1), each item one column j: reads of B's
// rows are consecutive across the items. The row's entries of A are staged
// in local memory (lk, lv: one per item) a chunk at a time; barriers
// around each chunk (every item of the group has the same row, so all
// meet them).
__kernel void K(spmm_csr_dense)(__global const int *arp, __global const int *aci,
                                __global const VT *av, int a_pat, __global const VT *b, int n,
                                __global VT *c, __local int *lk, __local VT *lv,
                                __global int *ovf)
{
    int i = get_global_id(1), j = get_global_id(0);
    int l = get_local_id(0), w = get_local_size(0);
    int p1 = arp[i + 1];
    VT acc = 0;
    for (int p0 = arp[i]; p0 < p1; p0 += w) {
        int m = min(w, p1 - p0);
        if (l < m) {
            lk[l] = aci[p0 + l];
            lv[l] = a_pat ? (VT)1 : av[p0 + l];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (j < n)
            for (int u = 0; u < m; u++)
                acc = K(sp_sum)(acc, K(sp_mul)(lv[u], b[(size_t)lk[u] * n + j], ovf), ovf);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (j < n) c[(size_t)i * n + j] = acc;
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
