// SPDX-License-Identifier: BSD-3-Clause
// Needleman-Wunsch, k4 of Jin and Vetter's suite, in CUDA C++ (NVRTC builds it alone).
//
// The (n+1) x (n+1) score matrix is cut into square tiles of NW_TILE x NW_TILE cells below its
// first row and column. A launch scores every tile of one anti-diagonal of tiles, one block per
// tile, NW_TILE threads to a block; the host launches the anti-diagonals in order, the upper-left
// half of the matrix growing, then the lower-right half shrinking: 2 n / NW_TILE - 1 dependent
// launches (Rodinia's structure, which the suite's NW keeps: its cost is launch overhead).
// Inside a tile the cells are scored along its own anti-diagonals, thread x owning column x:
//   S[i][j] = max(S[i-1][j-1] + R[i][j], S[i][j-1] - penalty, S[i-1][j] - penalty)
// with R the reference matrix (BLOSUM62 of the two sequences' residues) as the host built it.
#ifndef NW_TILE
#define NW_TILE 16
#endif

#define NW_S(y, x) tile[(y) * (NW_TILE + 1) + (x)]
#define NW_R(y, x) ref_tile[(y) * NW_TILE + (x)]

__device__ __forceinline__ int nw_max3(int a, int b, int c) { return max(max(a, b), c); }

// One cell: its diagonal neighbour plus the residues' score, or a gap from the left or from above.
__device__ __forceinline__ int nw_cell(int diagonal, int left, int up, int ref, int penalty) {
    return nw_max3(diagonal + ref, left - penalty, up - penalty);
}

extern "C" __global__ void __launch_bounds__(NW_TILE)
nw_tiles(int *__restrict__ score, const int *__restrict__ ref, const int cols, const int diagonal,
         const int first_tile_col, const int penalty) {
    __shared__ int tile[(NW_TILE + 1) * (NW_TILE + 1)];
    __shared__ int ref_tile[NW_TILE * NW_TILE];
    const int x = threadIdx.x;
    const int tile_col = first_tile_col + blockIdx.x;
    const int tile_row = diagonal - tile_col;
    const long long row0 = (long long)tile_row * NW_TILE;  // the cell above the tile's first row
    const long long col0 = (long long)tile_col * NW_TILE;  // the cell left of its first column

    if (x == 0) NW_S(0, 0) = score[row0 * cols + col0];
    NW_S(0, x + 1) = score[row0 * cols + col0 + 1 + x];
    NW_S(x + 1, 0) = score[(row0 + 1 + x) * cols + col0];
    for (int y = 0; y < NW_TILE; ++y) NW_R(y, x) = ref[(row0 + 1 + y) * cols + col0 + 1 + x];
    __syncthreads();

    for (int wave = 0; wave < 2 * NW_TILE - 1; ++wave) {
        const int y = wave - x;  // the tile row of this thread's cell on this anti-diagonal
        if (y >= 0 && y < NW_TILE)
            NW_S(y + 1, x + 1) = nw_cell(NW_S(y, x), NW_S(y + 1, x), NW_S(y, x + 1), NW_R(y, x), penalty);
        __syncthreads();
    }
    for (int y = 0; y < NW_TILE; ++y) score[(row0 + 1 + y) * cols + col0 + 1 + x] = NW_S(y + 1, x + 1);
}
