/* Life's kernels: a byte per cell (life_bytes).
 * Built after prelude.cl, in the programs src/ops/life/life_prog.c lists. */

/* ---- byte per cell --------------------------------------------------------- */

#ifndef TS_X
#define TS_X 16
#endif
#ifndef TS_Y
#define TS_Y 16
#endif

#ifndef NBHD
#define NBHD 0 /* 0 Moore, 1 hexagonal (no NE, SW), 2 von Neumann (N, S, E, W) */
#endif

#ifdef TOPO
/* Golly's bounded grids beyond dead, torus and clamp (Help/bounded.html):
 * TOPO 1 torus, 3 Klein bottle, 4 cross-surface, 5 sphere; SHIFT_H and
 * TWIST_H act when crossing the top or bottom edge, SHIFT_V and TWIST_V the
 * sides; OPEN_X, OPEN_Y: no edge that way (dead past it). The host's
 * tdcl_life_edge_map is the same map. */
HELPER int wrapi(int i, int n)
{
    i %= n;
    return i < 0 ? i + n : i;
}

/* the constant first: clang warns of a constant right of '&&' or '||' */
#define CORNERS (TOPO == 4 || TOPO == 5)

HELPER uchar cell_mapped(__global const uchar *in, int rows, int cols, int y, int x)
{
    const int yo = y < 0 || y >= rows, xo = x < 0 || x >= cols;
    if (CORNERS && yo && xo) { /* corners see the corner cell */
        y = clamp(y, 0, rows - 1);
        x = clamp(x, 0, cols - 1);
    } else if (TOPO == 5 && (yo || xo)) { /* top joined to left, right to bottom */
        const int t = yo ? x : y;
        if (yo) {
            x = y < 0 ? 0 : cols - 1;
            y = t;
        } else {
            y = x < 0 ? 0 : rows - 1;
            x = t;
        }
    } else {
        if (yo) {
            if (OPEN_Y) return 0;
            x = TWIST_H ? cols - 1 - x - SHIFT_H : x + (y < 0 ? -SHIFT_H : SHIFT_H);
            y = wrapi(y, rows);
        }
        if (x < 0 || x >= cols) {
            if (OPEN_X) return 0;
            y = TWIST_V ? wrapi(rows - 1 - y - SHIFT_V, rows)
                        : wrapi(y + (x < 0 ? -SHIFT_V : SHIFT_V), rows);
            x = wrapi(x, cols);
        }
    }
    return in[(size_t)y * (size_t)cols + (size_t)x];
}
#endif

/* The cell at (y, x), which may be one past any edge. */
HELPER uchar cell_at(__global const uchar *in, int rows, int cols, int bnd, int y, int x)
{
#ifdef TOPO
    if (bnd == B_MAPPED) return cell_mapped(in, rows, cols, y, x);
#endif
    if (bnd == B_DEAD) {
        if (y < 0 || y >= rows || x < 0 || x >= cols) return 0;
    } else if (bnd == B_TORUS) {
        y = y < 0 ? y + rows : (y >= rows ? y - rows : y);
        x = x < 0 ? x + cols : (x >= cols ? x - cols : x);
    } else {
        y = clamp(y, 0, rows - 1);
        x = clamp(x, 0, cols - 1);
    }
    return in[(size_t)y * (size_t)cols + (size_t)x];
}

__kernel __attribute__((reqd_work_group_size(TS_X, TS_Y, 1))) void
life_bytes(__global const uchar *restrict in, __global uchar *restrict out, const int rows,
           const int cols, const int bnd)
{
    __local uchar tile[TS_Y + 2][TS_X + 2];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int x0 = get_group_id(0) * TS_X - 1, y0 = get_group_id(1) * TS_Y - 1;
    for (int i = ly * TS_X + lx; i < (TS_X + 2) * (TS_Y + 2); i += TS_X * TS_Y) {
        const int ty = i / (TS_X + 2), tx = i % (TS_X + 2);
        tile[ty][tx] = cell_at(in, rows, cols, bnd, y0 + ty, x0 + tx);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int x = x0 + 1 + lx, y = y0 + 1 + ly;
    if (x >= cols || y >= rows) return;
#if NBHD == 2
    const int n = tile[ly][lx + 1] + tile[ly + 1][lx] + tile[ly + 1][lx + 2] + tile[ly + 2][lx + 1];
#elif NBHD == 1
    const int n = tile[ly][lx] + tile[ly][lx + 1] + tile[ly + 1][lx] + tile[ly + 1][lx + 2] +
                  tile[ly + 2][lx + 1] + tile[ly + 2][lx + 2];
#else
    const int n = tile[ly][lx] + tile[ly][lx + 1] + tile[ly][lx + 2] + tile[ly + 1][lx] +
                  tile[ly + 1][lx + 2] + tile[ly + 2][lx] + tile[ly + 2][lx + 1] +
                  tile[ly + 2][lx + 2];
#endif
    const uint table = (uint)BIRTH | ((uint)SURVIVE << 9);
    out[(size_t)y * (size_t)cols + (size_t)x] =
        (uchar)((table >> (n + 9 * tile[ly + 1][lx + 1])) & 1);
}

