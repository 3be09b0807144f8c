// SPDX-License-Identifier: BSD-3-Clause
// All-pairs distance (k1 of Jin and Vetter's suite) in tiles: the fastest shape we found, not Jin and Vetter's port.
//
// Jin and Vetter's kernel (all_pairs.cu, HeCBench's k1-k3) gives each pair of instances a block that
// reads both rows from memory: 224 x 224 blocks, each row read 448 times. Here a block scores a
// tile of APT_TILE x APT_TILE pairs whose rows it stages in shared memory a chunk of words at a
// time, so each row is read once per tile; the distance is symmetric, so only tiles on or above
// the diagonal run and each writes both halves. Four attributes are one 32-bit word: the bytes
// that differ are four minus the zero bytes of a ^ b (the classic zero-byte test, then a
// popcount). APT_SPLIT threads share a pair, each taking every APT_SPLIT-th word, and add their
// counts with shuffles. Attributes are a multiple of four; the rows start on four bytes.
#ifndef APT_TILE
#define APT_TILE 8  // pairs along each side of a tile
#endif
#ifndef APT_SPLIT
#define APT_SPLIT 4  // threads per pair: a power of two, at most 32
#endif
#ifndef APT_CHUNK
#define APT_CHUNK 128  // words of each row staged at once
#endif
#define APT_THREADS (APT_TILE * APT_TILE * APT_SPLIT)
#define APT_STRIDE (APT_CHUNK + APT_SPLIT)  // padded so the tile's rows fall on different banks

// How many of the four bytes of a and b differ.
__device__ __forceinline__ int apt_differ4(unsigned a, unsigned b) {
    const unsigned x = a ^ b;
    const unsigned zero = ~(((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x | 0x7f7f7f7fu);  // 0x80 in each zero byte
    return 4 - __popc(zero);
}

// The tile (ti, tj), ti <= tj, of the upper triangle's linear index `t`.
__device__ __forceinline__ void apt_tile_of(int t, int &ti, int &tj) {
    int j = (int)((sqrtf(8.0f * (float)t + 1.0f) - 1.0f) * 0.5f);
    while (j * (j + 1) / 2 > t) --j;
    while ((j + 1) * (j + 2) / 2 <= t) ++j;
    tj = j;
    ti = t - j * (j + 1) / 2;
}

extern "C" __global__ void __launch_bounds__(APT_THREADS)
all_pairs_tiles(const char *__restrict__ data, int *__restrict__ distance, const int instances, const int attributes) {
    __shared__ unsigned rows_a[APT_TILE * APT_STRIDE];
    __shared__ unsigned rows_b[APT_TILE * APT_STRIDE];
    int ti, tj;
    apt_tile_of(blockIdx.x, ti, tj);
    const int tid = threadIdx.x;
    const int part = tid % APT_SPLIT;                // which words of the pair this thread takes
    const int b = (tid / APT_SPLIT) % APT_TILE;      // the pair's row in tile tj
    const int a = tid / (APT_SPLIT * APT_TILE);      // the pair's row in tile ti
    const int words = attributes / 4;
    const unsigned *rows = (const unsigned *)data;
    int count = 0;
    for (int w0 = 0; w0 < words; w0 += APT_CHUNK) {
        __syncthreads();
        for (int e = tid; e < 2 * APT_TILE * APT_CHUNK; e += APT_THREADS) {
            const int side = e / (APT_TILE * APT_CHUNK);
            const int r = (e / APT_CHUNK) % APT_TILE;
            const int w = e % APT_CHUNK;
            const int row = (side ? tj : ti) * APT_TILE + r;
            const unsigned v = row < instances && w0 + w < words ? rows[(long long)row * words + w0 + w] : 0u;
            (side ? rows_b : rows_a)[r * APT_STRIDE + w] = v;
        }
        __syncthreads();
        const unsigned *x = rows_a + a * APT_STRIDE;
        const unsigned *y = rows_b + b * APT_STRIDE;
#pragma unroll 8
        for (int w = part; w < APT_CHUNK; w += APT_SPLIT) count += apt_differ4(x[w], y[w]);
    }
#pragma unroll
    for (int lane = APT_SPLIT / 2; lane > 0; lane /= 2) count += __shfl_xor_sync(0xffffffffu, count, lane);
    const int row_a = ti * APT_TILE + a, row_b = tj * APT_TILE + b;
    if (part == 0 && row_a < instances && row_b < instances) {
        distance[(long long)row_b * instances + row_a] = count;
        distance[(long long)row_a * instances + row_b] = count;
    }
}
