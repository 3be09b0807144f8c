// SPDX-License-Identifier: BSD-3-Clause
// Epistasis detection, k2 of Jin and Vetter's suite, in OpenCL C 1.2: the work-items of
// kernels/suite/cuda/epistasis.cu, over the counts and score of ../epistasis.h (shared line for
// line with it; EPI_UNROLL is described there).
#include "epistasis.h"  // the counts and the score, shared with cuda/epistasis.cu

__kernel __attribute__((reqd_work_group_size(EPI_BLOCK, EPI_BLOCK, 1)))
void epistasis(__global const uint *restrict zeros, __global const uint *restrict ones, __global float *restrict scores,
               const int snps, const int words_zeros, const int words_ones, const uint mask_zeros,
               const uint mask_ones) {
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i >= snps || j >= snps || j <= i) return;
    scores[(long)i * snps + j] = epi_pair(zeros, ones, i, j, snps, words_zeros, words_ones, mask_zeros, mask_ones);
}
