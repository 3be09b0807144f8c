// SPDX-License-Identifier: BSD-3-Clause
// Minkowski distance, k5 of Jin and Vetter's suite, in OpenCL C 1.2: the computation and
// work-items of kernels/suite/cuda/minkowski.cu. The output and the power (MINKOWSKI_POW: pow,
// powr or native_powr here) are ../minkowski.h's, shared with it.
#include "minkowski.h"

__kernel __attribute__((reqd_work_group_size(MINKOWSKI_BLOCK, MINKOWSKI_BLOCK, 1)))
void minkowski(__global const float *restrict a, __global const float *restrict b, __global float *restrict c,
               const int m, const int n, const int k, const float p, const float one_over_p) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    if (row >= m || col >= k) return;
    c[row * k + col] = minkowski_at(a, b, row, col, n, k, p, one_over_p);
}
