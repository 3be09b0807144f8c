// SPDX-License-Identifier: BSD-3-Clause
// Epistasis detection, k2 of Jin and Vetter's suite, in OpenCL C 1.2: the counts, score
// and work-items of kernels/suite/cuda/epistasis.cu; EPI_UNROLL 1 asks for the combination loops
// unrolled (#pragma unroll, which NVIDIA's and Intel's compilers take), 0 leaves it to the compiler.
#ifndef EPI_BLOCK
#define EPI_BLOCK 16
#endif
#ifndef EPI_UNROLL
#define EPI_UNROLL 0
#endif
#if EPI_UNROLL
#define EPI_LOOP _Pragma("unroll")
#else
#define EPI_LOOP
#endif

inline float epi_gamma(uint n) {
    return n == 0 ? 0.0f : ((float)n + 0.5f) * log((float)n) - ((float)n - 1.0f);
}

inline void epi_count(__global const uint *restrict bits, int i, int j, int snps, int words, uint last_mask,
                      uint *table) {
    for (int w = 0; w < words; ++w) {
        const uint valid = w == words - 1 ? last_mask : 0xffffffffu;
        __global const uint *si = bits + 2 * ((long)w * snps + i);
        __global const uint *sj = bits + 2 * ((long)w * snps + j);
        const uint gi[3] = {si[0], si[1], ~(si[0] | si[1]) & valid};
        const uint gj[3] = {sj[0], sj[1], ~(sj[0] | sj[1]) & valid};
        EPI_LOOP
        for (int a = 0; a < 3; ++a) {
            EPI_LOOP
            for (int b = 0; b < 3; ++b) table[3 * a + b] += popcount(gi[a] & gj[b]);
        }
    }
}

__kernel __attribute__((reqd_work_group_size(EPI_BLOCK, EPI_BLOCK, 1)))
void epistasis(__global const uint *restrict zeros, __global const uint *restrict ones, __global float *restrict scores,
               const int snps, const int words_zeros, const int words_ones, const uint mask_zeros,
               const uint mask_ones) {
    const int j = get_global_id(0);
    const int i = get_global_id(1);
    if (i >= snps || j >= snps || j <= i) return;
    uint table[18];
    EPI_LOOP
    for (int c = 0; c < 18; ++c) table[c] = 0;
    epi_count(zeros, i, j, snps, words_zeros, mask_zeros, table);
    epi_count(ones, i, j, snps, words_ones, mask_ones, table + 9);
    float score = 0.0f;
    EPI_LOOP
    for (int c = 0; c < 9; ++c)
        score += epi_gamma(table[c] + table[9 + c] + 1) - epi_gamma(table[c]) - epi_gamma(table[9 + c]);
    score = fabs(score);
    scores[(long)i * snps + j] = score == 0.0f ? FLT_MAX : score;
}
