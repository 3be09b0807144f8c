// SPDX-License-Identifier: BSD-3-Clause
// Minkowski distance (k5 of Jin and Vetter's suite) in register tiles: the fastest shape we found, not Jin and Vetter's port.
//
// Jin and Vetter's kernel (minkowski.cu, HeCBench's minkowski) gives each output a thread that reads a
// row of a and a column of b from memory and takes two special-function instructions (lg2, ex2)
// per term for |x|^p. Here a block of MKT_THREADS x MKT_THREADS threads computes a tile of
// MKT_TILE x MKT_TILE outputs, MKT_WORK x MKT_WORK to a thread in registers, from chunks of a and
// b staged in shared memory (the matrix product's classic tiling, the product replaced by a
// power of a difference). A whole p of 1 to 4 takes its power as products (|x|, x^2, |x|^3, x^4:
// exact where powf rounds), chosen once per launch; any other p calls powf as Jin and Vetter's port does.
#ifndef MKT_THREADS
#define MKT_THREADS 16
#endif
#define MKT_WORK 4  // outputs along each side of a thread's tile: one float4 of each chunk
#ifndef MKT_CHUNK
#define MKT_CHUNK 16
#endif
#define MKT_TILE (MKT_THREADS * MKT_WORK)
#define MKT_PAD (MKT_TILE + 4)  // a row of the staged chunks: the transposed stores fall on two banks, not sixteen

// |x|^P for a whole P of 1 to 4 as products; P = 0 stands for any other p (powf).
template <int P>
__device__ __forceinline__ float mkt_power(float x, float p) {
    const float d = fabsf(x);
    if (P == 1) return d;
    if (P == 2) return d * d;
    if (P == 3) return d * d * d;
    if (P == 4) { const float d2 = d * d; return d2 * d2; }
    return powf(d, p);
}

template <int P>
__device__ __forceinline__ void mkt_tile(const float *__restrict__ a, const float *__restrict__ b,
                                         float *__restrict__ c, const int m, const int n, const int k, const float p,
                                         const float one_over_p) {
    __shared__ __align__(16) float as[MKT_CHUNK][MKT_PAD];  // a's chunk, transposed: as[i][row]
    __shared__ __align__(16) float bs[MKT_CHUNK][MKT_PAD];  // b's chunk: bs[i][col]
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * MKT_THREADS + tx;
    const int row0 = blockIdx.y * MKT_TILE, col0 = blockIdx.x * MKT_TILE;
    float sum[MKT_WORK][MKT_WORK];
#pragma unroll
    for (int r = 0; r < MKT_WORK; ++r)
#pragma unroll
        for (int q = 0; q < MKT_WORK; ++q) sum[r][q] = 0.0f;
    for (int i0 = 0; i0 < n; i0 += MKT_CHUNK) {
        for (int e = tid; e < MKT_CHUNK * MKT_TILE; e += MKT_THREADS * MKT_THREADS) {
            const int i = e % MKT_CHUNK, r = e / MKT_CHUNK;  // a: consecutive threads along a row
            as[i][r] = row0 + r < m && i0 + i < n ? a[(long long)(row0 + r) * n + i0 + i] : 0.0f;
            const int q = e % MKT_TILE, j = e / MKT_TILE;    // b: consecutive threads along a row of b
            bs[j][q] = col0 + q < k && i0 + j < n ? b[(long long)(i0 + j) * k + col0 + q] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < MKT_CHUNK; ++i) {
            const float4 xv = *reinterpret_cast<const float4 *>(&as[i][ty * MKT_WORK]);  // MKT_WORK is 4
            const float4 yv = *reinterpret_cast<const float4 *>(&bs[i][tx * MKT_WORK]);
            const float x[MKT_WORK] = {xv.x, xv.y, xv.z, xv.w}, y[MKT_WORK] = {yv.x, yv.y, yv.z, yv.w};
#pragma unroll
            for (int r = 0; r < MKT_WORK; ++r)
#pragma unroll
                for (int q = 0; q < MKT_WORK; ++q) sum[r][q] += mkt_power<P>(x[r] - y[q], p);
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < MKT_WORK; ++r)
#pragma unroll
        for (int q = 0; q < MKT_WORK; ++q) {
            const int row = row0 + ty * MKT_WORK + r, col = col0 + tx * MKT_WORK + q;
            if (row < m && col < k) c[(long long)row * k + col] = P == 1 ? sum[r][q] : powf(sum[r][q], one_over_p);
        }
}

extern "C" __global__ void __launch_bounds__(MKT_THREADS * MKT_THREADS)
minkowski_tiles(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c, const int m,
                const int n, const int k, const float p, const float one_over_p) {
    if (p == 1.0f) mkt_tile<1>(a, b, c, m, n, k, p, one_over_p);
    else if (p == 2.0f) mkt_tile<2>(a, b, c, m, n, k, p, one_over_p);
    else if (p == 3.0f) mkt_tile<3>(a, b, c, m, n, k, p, one_over_p);
    else if (p == 4.0f) mkt_tile<4>(a, b, c, m, n, k, p, one_over_p);
    else mkt_tile<0>(a, b, c, m, n, k, p, one_over_p);
}
