// SPDX-License-Identifier: BSD-3-Clause
// Epistasis detection (k2 of Jin and Vetter's suite) from the margins, in OpenCL C 1.2: the two kernels and the
// four-counts-per-word table of kernels/suite/cuda/epistasis_margins.cu.
#define EPI_UNROLL 1  // the score's loop over the nine combinations unrolled
#include "epistasis.h"  // the table from the margins and the score, shared with cuda/epistasis_margins.cu

__kernel void epistasis_margins(__global const uint2 *restrict zeros, __global const uint2 *restrict ones,
                                __global uint2 *restrict margins, const int snps, const int words_zeros,
                                const int words_ones) {
    const int s = get_global_id(0);
    if (s >= snps) return;
    const int ph = get_global_id(1);
    __global const uint2 *bits = ph ? ones : zeros;
    const int words = ph ? words_ones : words_zeros;
    uint n0 = 0, n1 = 0;
    for (int w = 0; w < words; ++w) {
        const uint2 g = bits[(long)w * snps + s];
        n0 += popcount(g.x);
        n1 += popcount(g.y);
    }
    margins[(long)ph * snps + s] = (uint2)(n0, n1);
}

__kernel __attribute__((reqd_work_group_size(EPI_BLOCK, EPI_BLOCK, 1)))
void epistasis_pairs(__global const uint2 *restrict zeros, __global const uint2 *restrict ones,
                     __global const uint2 *restrict margins, __global float *restrict scores, const int snps,
                     const int words_zeros, const int words_ones, const uint samples_zeros, const uint samples_ones) {
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i >= snps || j >= snps || j <= i) return;
    scores[(long)i * snps + j] =
        epi_pair_from_margins(zeros, ones, margins, i, j, snps, words_zeros, words_ones, samples_zeros, samples_ones);
}
