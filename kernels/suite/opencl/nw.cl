// SPDX-License-Identifier: BSD-3-Clause
// Needleman-Wunsch, k4 of Jin and Vetter's suite, in OpenCL C 1.2: the tiles, launches
// and recurrence of kernels/suite/cuda/nw.cu, a work-group of NW_TILE work-items per tile.
#ifndef NW_TILE
#define NW_TILE 16
#endif

#define NW_S(y, x) tile[(y) * (NW_TILE + 1) + (x)]
#define NW_R(y, x) ref_tile[(y) * NW_TILE + (x)]

// One cell: its diagonal neighbour plus the residues' score, or a gap from the left or from above.
inline int nw_cell(int diagonal, int left, int up, int ref, int penalty) {
    return max(max(diagonal + ref, left - penalty), up - penalty);
}

__kernel __attribute__((reqd_work_group_size(NW_TILE, 1, 1)))
void nw_tiles(__global int *restrict score, __global const int *restrict ref, const int cols,
              const int diagonal, const int first_tile_col, const int penalty) {
    __local int tile[(NW_TILE + 1) * (NW_TILE + 1)];
    __local int ref_tile[NW_TILE * NW_TILE];
    const int x = get_local_id(0);
    const int tile_col = first_tile_col + get_group_id(0);
    const int tile_row = diagonal - tile_col;
    const long row0 = (long)tile_row * NW_TILE;
    const long col0 = (long)tile_col * NW_TILE;

    if (x == 0) NW_S(0, 0) = score[row0 * cols + col0];
    NW_S(0, x + 1) = score[row0 * cols + col0 + 1 + x];
    NW_S(x + 1, 0) = score[(row0 + 1 + x) * cols + col0];
    for (int y = 0; y < NW_TILE; ++y) NW_R(y, x) = ref[(row0 + 1 + y) * cols + col0 + 1 + x];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int wave = 0; wave < 2 * NW_TILE - 1; ++wave) {
        const int y = wave - x;
        if (y >= 0 && y < NW_TILE)
            NW_S(y + 1, x + 1) = nw_cell(NW_S(y, x), NW_S(y + 1, x), NW_S(y, x + 1), NW_R(y, x), penalty);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int y = 0; y < NW_TILE; ++y) score[(row0 + 1 + y) * cols + col0 + 1 + x] = NW_S(y + 1, x + 1);
}
