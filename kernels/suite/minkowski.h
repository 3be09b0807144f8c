// SPDX-License-Identifier: BSD-3-Clause
// What the Minkowski kernels (k5 of Jin and Vetter's suite) of cuda/minkowski.cu and
// opencl/minkowski.cl compute alike, in the C that both CUDA C++ and OpenCL C read: one output
// c[row][col] = (sum_i |a[row][i] - b[i][col]|^p)^(1/p), and the power each model takes for it.
// Included through -I kernels/suite; each source keeps its own entry point.
//
// Jin and Vetter's finding is about the power, so MINKOWSKI_POW picks it per model. CUDA: 0 powf
// (fast math, when asked for with --use_fast_math, applies to it), 1 __powf (the intrinsic,
// with or without fast math). OpenCL: 0 pow, 1 powr (x >= 0, which |a - b| is), 2 native_powr
// (the device's own precision); -cl-fast-relaxed-math is the build option Jin and Vetter compare
// with CUDA's --use_fast_math.
#ifndef LASSM_SUITE_MINKOWSKI_H
#define LASSM_SUITE_MINKOWSKI_H

#ifndef MINKOWSKI_POW
#define MINKOWSKI_POW 0
#endif
#ifndef MINKOWSKI_BLOCK
#define MINKOWSKI_BLOCK 16
#endif

#ifdef __OPENCL_VERSION__
#define MINKOWSKI_FN inline
#define MINKOWSKI_MEM __global
#define MINKOWSKI_RESTRICT restrict
#define MINKOWSKI_FABS fabs
#if MINKOWSKI_POW == 2
#define MINKOWSKI_POWER native_powr
#elif MINKOWSKI_POW == 1
#define MINKOWSKI_POWER powr
#else
#define MINKOWSKI_POWER pow
#endif
#else
#define MINKOWSKI_FN __device__ __forceinline__
#define MINKOWSKI_MEM
#define MINKOWSKI_RESTRICT __restrict__
#define MINKOWSKI_FABS fabsf
#if MINKOWSKI_POW == 1
#define MINKOWSKI_POWER __powf
#else
#define MINKOWSKI_POWER powf
#endif
#endif

MINKOWSKI_FN float minkowski_pow(float x, float p) { return MINKOWSKI_POWER(x, p); }

// c[row][col] of the m x k result, a being m x n and b n x k.
MINKOWSKI_FN float minkowski_at(MINKOWSKI_MEM const float *MINKOWSKI_RESTRICT a,
                                MINKOWSKI_MEM const float *MINKOWSKI_RESTRICT b, const int row, const int col,
                                const int n, const int k, const float p, const float one_over_p) {
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) sum += minkowski_pow(MINKOWSKI_FABS(a[row * n + i] - b[i * k + col]), p);
    return minkowski_pow(sum, one_over_p);
}

#endif  // LASSM_SUITE_MINKOWSKI_H
