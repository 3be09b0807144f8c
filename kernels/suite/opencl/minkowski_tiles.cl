// SPDX-License-Identifier: BSD-3-Clause
// Minkowski distance (k5 of Jin and Vetter's suite) in register tiles, in OpenCL C 1.2: the tiles, staged chunks
// and whole powers of kernels/suite/cuda/minkowski_tiles.cu; a macro stands for its template
// (one function per power), and pow for its powf.
#ifndef MKT_THREADS
#define MKT_THREADS 16
#endif
#define MKT_WORK 4
#ifndef MKT_CHUNK
#define MKT_CHUNK 16
#endif
#define MKT_TILE (MKT_THREADS * MKT_WORK)
#define MKT_PAD (MKT_TILE + 4)

inline float mkt_power1(float x, float p) { return fabs(x); }
inline float mkt_power2(float x, float p) { const float d = fabs(x); return d * d; }
inline float mkt_power3(float x, float p) { const float d = fabs(x); return d * d * d; }
inline float mkt_power4(float x, float p) { const float d = fabs(x); const float d2 = d * d; return d2 * d2; }
inline float mkt_power0(float x, float p) { return pow(fabs(x), p); }

#define MKT_TILE_FUNCTION(P)                                                                                    \
inline void mkt_tile##P(__global const float *restrict a, __global const float *restrict b,                    \
                        __global float *restrict c, const int m, const int n, const int k, const float p,      \
                        const float one_over_p, __local float (*as)[MKT_PAD], __local float (*bs)[MKT_PAD]) {  \
    const int tx = get_local_id(0), ty = get_local_id(1), tid = ty * MKT_THREADS + tx;                         \
    const int row0 = get_group_id(1) * MKT_TILE, col0 = get_group_id(0) * MKT_TILE;                            \
    float sum[MKT_WORK][MKT_WORK];                                                                             \
    for (int r = 0; r < MKT_WORK; ++r)                                                                         \
        for (int q = 0; q < MKT_WORK; ++q) sum[r][q] = 0.0f;                                                   \
    for (int i0 = 0; i0 < n; i0 += MKT_CHUNK) {                                                                \
        for (int e = tid; e < MKT_CHUNK * MKT_TILE; e += MKT_THREADS * MKT_THREADS) {                          \
            const int i = e % MKT_CHUNK, r = e / MKT_CHUNK;                                                    \
            as[i][r] = row0 + r < m && i0 + i < n ? a[(long)(row0 + r) * n + i0 + i] : 0.0f;                   \
            const int q = e % MKT_TILE, j = e / MKT_TILE;                                                      \
            bs[j][q] = col0 + q < k && i0 + j < n ? b[(long)(i0 + j) * k + col0 + q] : 0.0f;                   \
        }                                                                                                      \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                          \
        for (int i = 0; i < MKT_CHUNK; ++i) {                                                                  \
            const float4 xv = vload4(0, &as[i][ty * MKT_WORK]);                                                \
            const float4 yv = vload4(0, &bs[i][tx * MKT_WORK]);                                                \
            const float x[MKT_WORK] = {xv.x, xv.y, xv.z, xv.w}, y[MKT_WORK] = {yv.x, yv.y, yv.z, yv.w};        \
            for (int r = 0; r < MKT_WORK; ++r)                                                                 \
                for (int q = 0; q < MKT_WORK; ++q) sum[r][q] += mkt_power##P(x[r] - y[q], p);                  \
        }                                                                                                      \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                          \
    }                                                                                                          \
    for (int r = 0; r < MKT_WORK; ++r)                                                                         \
        for (int q = 0; q < MKT_WORK; ++q) {                                                                   \
            const int row = row0 + ty * MKT_WORK + r, col = col0 + tx * MKT_WORK + q;                          \
            if (row < m && col < k) c[(long)row * k + col] = P == 1 ? sum[r][q] : pow(sum[r][q], one_over_p);  \
        }                                                                                                      \
}

MKT_TILE_FUNCTION(0)
MKT_TILE_FUNCTION(1)
MKT_TILE_FUNCTION(2)
MKT_TILE_FUNCTION(3)
MKT_TILE_FUNCTION(4)

__kernel __attribute__((reqd_work_group_size(MKT_THREADS, MKT_THREADS, 1)))
void minkowski_tiles(__global const float *restrict a, __global const float *restrict b, __global float *restrict c,
                     const int m, const int n, const int k, const float p, const float one_over_p) {
    __local float as[MKT_CHUNK][MKT_PAD];
    __local float bs[MKT_CHUNK][MKT_PAD];
    if (p == 1.0f) mkt_tile1(a, b, c, m, n, k, p, one_over_p, as, bs);
    else if (p == 2.0f) mkt_tile2(a, b, c, m, n, k, p, one_over_p, as, bs);
    else if (p == 3.0f) mkt_tile3(a, b, c, m, n, k, p, one_over_p, as, bs);
    else if (p == 4.0f) mkt_tile4(a, b, c, m, n, k, p, one_over_p, as, bs);
    else mkt_tile0(a, b, c, m, n, k, p, one_over_p, as, bs);
}
