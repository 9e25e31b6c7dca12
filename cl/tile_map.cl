/* Tile map: how an NDRange launch is tiled. The host launches one work-item
 * per element of a rows x cols matrix with work-groups of T x U items (one
 * tile each), global size rounded up to whole tiles; every work-item inside
 * the matrix records where it is.
 *
 * Work-group: (U, T) items, dimension 0 along a row (columns), dimension 1
 * down the columns (rows), the layout every other kernel here uses.
 * Work-item: owns element (get_global_id(1), get_global_id(0)) and writes
 * its global, tile (group) and local (row, col) indices, 6 ints. No local
 * memory, no barriers. Items of edge tiles past the matrix write nothing. */

__kernel void tile_map(__global int *restrict out, const ulong rows, const ulong cols)
{
    const ulong r = get_global_id(1), c = get_global_id(0);
    if (r >= rows || c >= cols)
        return;
    __global int *o = out + (r * cols + c) * 6;
    o[0] = (int)r;
    o[1] = (int)c;
    o[2] = (int)get_group_id(1);
    o[3] = (int)get_group_id(0);
    o[4] = (int)get_local_id(1);
    o[5] = (int)get_local_id(0);
}
