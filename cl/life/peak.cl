/* Life's kernels: the logic ceiling of bench (life_peak).
 * Built after prelude.cl, in the programs src/ops/life/life_prog.c lists. */

/* life_peak: the logic ceiling that bench compares the bit-packed kernels
 * with, in cell updates per second: the same row sums, adder network and
 * rule (row_sum3, next_word), with no memory traffic. Any 1-D work-group
 * shape; no local memory, no barriers.
 *
 * Each work-item keeps PK rows of NV words in registers and runs ITERS
 * steps. A step computes the row sums of every row once, with the rows
 * above and below standing in for the words to the west and east (so
 * those are other registers, as in life_bits1, and cost what they cost
 * there), then the next state of every row from the sums of its own row
 * and the rows beside it (cyclically), then flips row 0 by the step's
 * number, so the state cannot settle into a cycle that a launch skipping
 * steps would also reach. It writes the XOR of all its words. Per step
 * that is PK * NV * WBITS cell updates. The host recomputes it. */
#ifndef ITERS
#define ITERS 256
#endif
#ifndef PK
#define PK 8
#endif

/* A word of the start state: splitmix64 of the word's index. */
HELPER word peak_seed(ulong idx)
{
    ulong z = (idx + 1) * 0x9E3779B97F4A7C15UL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
    return (word)(z ^ (z >> 31));
}

__kernel void life_peak(__global word *out)
{
    const ulong g = get_global_id(0);
    lword x[PK], s0[PK], s1[PK];
    for (int i = 0; i < PK; i++) {
        word a[NV];
        for (int v = 0; v < NV; v++)
            a[v] = peak_seed((g * PK + i) * NV + v);
        x[i] = VLOAD(a);
    }
    for (int it = 0; it < ITERS; it++) {
#pragma unroll
        for (int i = 0; i < PK; i++)
            row_sum3(x[(i + PK - 1) % PK], x[i], x[(i + 1) % PK], &s0[i], &s1[i]);
        lword nx[PK];
#pragma unroll
        for (int i = 0; i < PK; i++) {
            const int u = (i + PK - 1) % PK, d = (i + 1) % PK;
            nx[i] = next_word(s0[u], s1[u], s0[i], s1[i], s0[d], s1[d], x[i], x[u], x[d]);
        }
#pragma unroll
        for (int i = 0; i < PK; i++)
            x[i] = nx[i];
        x[0] ^= (lword)((word)it);
    }
    word r = 0;
    for (int i = 0; i < PK; i++) {
        word a[NV];
        VSTORE(x[i], a);
        for (int v = 0; v < NV; v++)
            r ^= a[v];
    }
    out[g] = r;
}
