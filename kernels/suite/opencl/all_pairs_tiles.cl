// SPDX-License-Identifier: BSD-3-Clause
// All-pairs distance (k1 of Jin and Vetter's suite) in tiles, in OpenCL C 1.2: the tiles, chunks and zero-byte
// test of kernels/suite/cuda/all_pairs_tiles.cu; the APT_SPLIT work-items of a pair add their
// counts in local memory (OpenCL 1.2 has no shuffles).
#ifndef APT_TILE
#define APT_TILE 8
#endif
#ifndef APT_SPLIT
#define APT_SPLIT 4
#endif
#ifndef APT_CHUNK
#define APT_CHUNK 128
#endif
#define APT_THREADS (APT_TILE * APT_TILE * APT_SPLIT)
#define APT_STRIDE (APT_CHUNK + APT_SPLIT)

inline int apt_differ4(uint a, uint b) {
    const uint x = a ^ b;
    const uint zero = ~(((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x | 0x7f7f7f7fu);
    return 4 - (int)popcount(zero);
}

inline void apt_tile_of(int t, int *ti, int *tj) {
    int j = (int)((sqrt(8.0f * (float)t + 1.0f) - 1.0f) * 0.5f);
    while (j * (j + 1) / 2 > t) --j;
    while ((j + 1) * (j + 2) / 2 <= t) ++j;
    *tj = j;
    *ti = t - j * (j + 1) / 2;
}

__kernel __attribute__((reqd_work_group_size(APT_THREADS, 1, 1)))
void all_pairs_tiles(__global const uint *restrict rows, __global int *restrict distance, const int instances,
                     const int attributes) {
    __local uint rows_a[APT_TILE * APT_STRIDE];
    __local uint rows_b[APT_TILE * APT_STRIDE];
    __local int partial[APT_THREADS];
    int ti, tj;
    apt_tile_of((int)get_group_id(0), &ti, &tj);
    const int tid = get_local_id(0);
    const int part = tid % APT_SPLIT;
    const int b = (tid / APT_SPLIT) % APT_TILE;
    const int a = tid / (APT_SPLIT * APT_TILE);
    const int words = attributes / 4;
    int count = 0;
    for (int w0 = 0; w0 < words; w0 += APT_CHUNK) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int e = tid; e < 2 * APT_TILE * APT_CHUNK; e += APT_THREADS) {
            const int side = e / (APT_TILE * APT_CHUNK);
            const int r = (e / APT_CHUNK) % APT_TILE;
            const int w = e % APT_CHUNK;
            const int row = (side ? tj : ti) * APT_TILE + r;
            const uint v = row < instances && w0 + w < words ? rows[(long)row * words + w0 + w] : 0u;
            if (side) rows_b[r * APT_STRIDE + w] = v; else rows_a[r * APT_STRIDE + w] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        __local const uint *x = rows_a + a * APT_STRIDE;
        __local const uint *y = rows_b + b * APT_STRIDE;
        for (int w = part; w < APT_CHUNK; w += APT_SPLIT) count += apt_differ4(x[w], y[w]);
    }
    partial[tid] = count;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int row_a = ti * APT_TILE + a, row_b = tj * APT_TILE + b;
    if (part == 0 && row_a < instances && row_b < instances) {
        int sum = 0;
        for (int k = 0; k < APT_SPLIT; ++k) sum += partial[tid + k];
        distance[(long)row_b * instances + row_a] = sum;
        distance[(long)row_a * instances + row_b] = sum;
    }
}
