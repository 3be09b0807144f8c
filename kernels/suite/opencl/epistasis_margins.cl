// SPDX-License-Identifier: BSD-3-Clause
// Epistasis detection (k2 of Jin and Vetter's suite) from the margins, in OpenCL C 1.2: the two kernels and the
// four-counts-per-word table of kernels/suite/cuda/epistasis_margins.cu.
#ifndef EPI_BLOCK
#define EPI_BLOCK 16
#endif
#define EPI_FLT_MAX 3.402823466e+38f

inline float epi_gamma(uint n) {
    return n == 0 ? 0.0f : ((float)n + 0.5f) * log((float)n) - ((float)n - 1.0f);
}

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

inline void epi_table(__global const uint2 *restrict bits, const uint2 mi, const uint2 mj, const uint samples,
                      int i, int j, int snps, int words, uint *table) {
    uint t00 = 0, t01 = 0, t10 = 0, t11 = 0;
    for (int w = 0; w < words; ++w) {
        const uint2 gi = bits[(long)w * snps + i];
        const uint2 gj = bits[(long)w * snps + j];
        t00 += popcount(gi.x & gj.x);
        t01 += popcount(gi.x & gj.y);
        t10 += popcount(gi.y & gj.x);
        t11 += popcount(gi.y & gj.y);
    }
    const uint t02 = mi.x - t00 - t01, t12 = mi.y - t10 - t11;
    const uint t20 = mj.x - t00 - t10, t21 = mj.y - t01 - t11;
    table[0] = t00; table[1] = t01; table[2] = t02;
    table[3] = t10; table[4] = t11; table[5] = t12;
    table[6] = t20; table[7] = t21;
    table[8] = samples - (t00 + t01 + t02 + t10 + t11 + t12 + t20 + t21);
}

__kernel __attribute__((reqd_work_group_size(EPI_BLOCK, EPI_BLOCK, 1)))
void epistasis_pairs(__global const uint2 *restrict zeros, __global const uint2 *restrict ones,
                     __global const uint2 *restrict margins, __global float *restrict scores, const int snps,
                     const int words_zeros, const int words_ones, const uint samples_zeros, const uint samples_ones) {
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i >= snps || j >= snps || j <= i) return;
    uint table[18];
    epi_table(zeros, margins[i], margins[j], samples_zeros, i, j, snps, words_zeros, table);
    epi_table(ones, margins[snps + i], margins[snps + j], samples_ones, i, j, snps, words_ones, table + 9);
    float score = 0.0f;
#pragma unroll
    for (int c = 0; c < 9; ++c)
        score += epi_gamma(table[c] + table[9 + c] + 1) - epi_gamma(table[c]) - epi_gamma(table[9 + c]);
    score = fabs(score);
    scores[(long)i * snps + j] = score == 0.0f ? EPI_FLT_MAX : score;
}
