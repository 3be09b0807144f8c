// SPDX-License-Identifier: BSD-3-Clause
// Minkowski distance, k5 of Jin and Vetter's suite, in OpenCL C 1.2: the computation and
// work-items of kernels/suite/cuda/minkowski.cu. MINKOWSKI_POW picks the power: 0 pow, 1 powr
// (x >= 0, which |a - b| is), 2 native_powr (the device's own precision); -cl-fast-relaxed-math
// is the build option Jin and Vetter compare with CUDA's --use_fast_math.
#ifndef MINKOWSKI_POW
#define MINKOWSKI_POW 0
#endif
#ifndef MINKOWSKI_BLOCK
#define MINKOWSKI_BLOCK 16
#endif

inline float minkowski_pow(float x, float p) {
#if MINKOWSKI_POW == 2
    return native_powr(x, p);
#elif MINKOWSKI_POW == 1
    return powr(x, p);
#else
    return pow(x, p);
#endif
}

__kernel __attribute__((reqd_work_group_size(MINKOWSKI_BLOCK, MINKOWSKI_BLOCK, 1)))
void minkowski(__global const float *restrict a, __global const float *restrict b, __global float *restrict c,
               const int m, const int n, const int k, const float p, const float one_over_p) {
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    if (row >= m || col >= k) return;
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) sum += minkowski_pow(fabs(a[row * n + i] - b[i * k + col]), p);
    c[row * k + col] = minkowski_pow(sum, one_over_p);
}
