// SPDX-License-Identifier: BSD-3-Clause
// Minkowski distance, k5 of Jin and Vetter's suite, in CUDA C++ (NVRTC builds it alone).
//
// c[r][q] = (sum_i |a[r][i] - b[i][q]|^p)^(1/p) for the m rows of a (m x n) and the k columns of
// b (n x k), one thread per output, blocks of MINKOWSKI_BLOCK x MINKOWSKI_BLOCK threads. Jin
// and Vetter's finding is about the power: CUDA's powf under --use_fast_math becomes lg2, mul, ex2,
// while the portable model's pow did not. The output and the power (MINKOWSKI_POW) are
// ../minkowski.h's, shared with opencl/minkowski.cl.
#include "minkowski.h"

extern "C" __global__ void __launch_bounds__(MINKOWSKI_BLOCK * MINKOWSKI_BLOCK)
minkowski(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c, const int m,
          const int n, const int k, const float p, const float one_over_p) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= k) return;
    c[row * k + col] = minkowski_at(a, b, row, col, n, k, p, one_over_p);
}
