/* matmul's kernels, the prelude of every program (src/ops/matmul/mm_prog.c
 * lists each program's files): token pasting, TF32 rounding, and the order
 * in which work-groups walk C's tiles. */

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* x's float32 bits rounded to TF32 (10 mantissa bits), to nearest with
 * ties away from zero as cvt.rna.tf32.f32 does: one integer add of half
 * the dropped unit, then the low 13 bits cleared. */
static inline uint tf32_round(uint x)
{
    return (x + 0x1000u) & 0xFFFFE000u;
}

/* The tile (*tm, *tn) of C that work-group lin walks (lin: 0 .. tiles_m *
 * tiles_n - 1 in launch order), in bands of group tile rows walked column
 * by column: the work-groups that run at once share panels of A and B in
 * L2. The last band takes the rows left. */
static inline void group_tile(int lin, int tiles_m, int tiles_n, int group, int *tm, int *tn)
{
    const int band = group * tiles_n, first = lin / band * group;
    const int rows = min(tiles_m - first, group);
    *tm = first + lin % band % rows;
    *tn = lin % band / rows;
}
